/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Faults on demand of latency and of the paths (docs/FAULTS.md), through
 * bloxctl and hosts over loopback:
 * - latency: a read takes at least the delay (fixed, uniform), bloxctl
 *   stats' read latency shows it, writes stay as they were (--op read);
 *   fault clear lets a command held for a long delay complete at once;
 *   --op write-zeroes, dsm, compare each delay that command alone; --op
 *   admin a host's admin commands (not its I/O, not another host's);
 * - gc-storm: GC takes the asked number of victims now, though space is
 *   plentiful (stats count them), and every LBA reads back;
 * - listener-stop: a new connection is refused while the host connected
 *   before goes on; after fault clear, and after --ms, connections work;
 * - host-drop --after N: the host's controllers drop at its N+1st I/O
 *   command, once; it connects again and carries on;
 * - queue-stall: a host's command waits until the stall ends and then
 *   completes, another host's do not wait; a cleared stall lets go at once;
 *   with --qid only that I/O queue waits;
 * - ka-ignore: a Keep Alive gets no answer while the fault is there,
 *   another host's does; cleared, the held one is answered;
 * - --persist: a latency and a ka-ignore fault come back after a restart;
 * - bad input for each: refused with a reason, nothing added.
 * Timings are checked as lower bounds only.
 */
#include "faults_common.h"

#define SUBNQN "nqn.2026-12.io.blox:pathfaults"

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"}]}]";

static int fixture_setup(void *arg)
{
	return faults_fx_setup(arg, SUBNQN);
}

/* The read latency's largest figure in bloxctl stats' window (0: no read in it). */
static uint64_t read_lat_max(struct faults_fx *f)
{
	json_object *o, *nss, *n, *io, *lat, *v;
	uint64_t r = 0;

	assert_int_equal(ctl(f, "--json stats " SUBNQN " 1"), 0);
	o = json_tokener_parse(f->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &nss));
	n = json_object_array_get_idx(nss, 0);
	if (json_object_object_get_ex(n, "io", &io) &&
	    json_object_object_get_ex(io, "read_lat", &lat) &&
	    json_object_object_get_ex(lat, "max_ns", &v))
		r = (uint64_t)json_object_get_int64(v);
	json_object_put(o);
	return r;
}

/* Milliseconds one read of namespace 1 takes on @q (it must succeed). */
static int64_t timed_read(struct faults_fx *f, struct ini_queue *q)
{
	int64_t t0 = fx_now_ms();

	assert_int_equal(ini_read(q, 1, 0, 1, f->buf, BLK), 0);
	return fx_now_ms() - t0;
}

static struct ini_ctrl *host_a(struct faults_fx *f)
{
	struct ini_ctrl *c;

	assert_int_equal(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c), 0);
	return c;
}

static void bye(struct ini_ctrl *c)
{
	ini_ctrl_shutdown(c);
	ini_ctrl_destroy(c);
}

static void test_latency(void **state)
{
	struct faults_fx *f = *state;
	struct ini_req r;
	uint64_t max = 0;
	uint32_t id;

	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 1 --op read --delay-us 200000"), 0);
	id = injected(f);
	assert_non_null(strstr(f->out, "+200000 us"));
	/* Each read at least 200 ms; stats' read latency says so (its window may miss one). */
	for (int i = 0; i < 5 && max < 200000000ull; i++) {
		assert_true(timed_read(f, f->c->io[0]) >= 200);
		max = read_lat_max(f);
	}
	assert_true(max >= 200000000ull);
	assert_true(fault_num(f, id, "fired") >= 1);
	assert_int_equal(fault_num(f, id, "fired"), fault_num(f, id, "seen"));
	/* Writes are not its op: not seen, not delayed (no upper bound asserted, only the count). */
	{
		uint64_t seen = fault_num(f, id, "seen");

		assert_int_equal(ini_write(f->c->io[0], 1, 8, 1, f->buf, BLK, false), 0);
		assert_int_equal(fault_num(f, id, "seen"), seen);
	}
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	/* Uniform 50-60 ms, reads and writes. */
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 1 --op rw --dist uniform "
				"--min-us 50000 --max-us 60000 --seed 3"), 0);
	id = injected(f);
	assert_true(timed_read(f, f->c->io[0]) >= 50);
	{
		int64_t t0 = fx_now_ms();

		assert_int_equal(ini_write(f->c->io[0], 1, 8, 1, f->buf, BLK, false), 0);
		assert_true(fx_now_ms() - t0 >= 50);
	}
	assert_int_equal(fault_num(f, id, "fired"), 2);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	/* Exponential with a cap: listed as asked. */
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 1 --dist exp --mean-us 1000 "
				"--max-us 5000 --count 3"), 0);
	id = injected(f);
	assert_int_equal(ctl(f, "--json fault list"), 0);
	assert_non_null(strstr(f->out, "exponential"));
	for (int i = 0; i < 4; i++)
		timed_read(f, f->c->io[0]);
	assert_int_equal(fault_num(f, id, "fired"), 3);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	/* A read held for 60 s completes once the fault is cleared (the queue waits 5 s at most). */
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 1 --delay-us 60000000"), 0);
	id = injected(f);
	ini_req_rw(&r, nvme_cmd_read, 1, 0, 1, f->buf, BLK);
	assert_int_equal(ini_submit(f->c->io[0], &r), 0);
	faults_wait_held(f, id, 1);
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ini_wait(f->c->io[0], &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
}

/* Milliseconds since @t0, the command's return code having been 0. */
static int64_t took_ms(int rc, int64_t t0)
{
	assert_int_equal(rc, 0);
	return fx_now_ms() - t0;
}

/*
 * --op flush delays a Flush (of the namespace, and of every namespace),
 * not reads, writes or Write Zeroes; --op all every I/O command.
 */
static void test_latency_ops(void **state)
{
	struct faults_fx *f = *state;
	struct ini_queue *q = f->c->io[0];
	uint64_t seen;
	uint32_t id;
	int64_t t0;

	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 1 --op flush --delay-us 100000"),
			 0);
	id = injected(f);
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "latency, flushes of namespace 1"));
	t0 = fx_now_ms();
	assert_true(took_ms(ini_flush(q, 1), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_flush(q, 0xffffffff), t0) >= 100);
	assert_int_equal(fault_num(f, id, "fired"), 2);
	seen = fault_num(f, id, "seen");
	assert_int_equal(ini_read(q, 1, 0, 1, f->buf, BLK), 0);
	assert_int_equal(ini_write(q, 1, 16, 1, f->buf, BLK, false), 0);
	assert_int_equal(ini_write_zeroes(q, 1, 32, 8), 0);
	assert_int_equal(fault_num(f, id, "seen"), seen); /* not its ops */
	assert_int_equal(ctl(f, "fault clear %u", id), 0);

	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 1 --op all --delay-us 100000"), 0);
	id = injected(f);
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "latency, every I/O command of namespace 1"));
	memset(f->buf, 0x5a, BLK);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_write(q, 1, 16, 1, f->buf, BLK, false), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_read(q, 1, 16, 1, f->buf + BLK, BLK), t0) >= 100);
	assert_memory_equal(f->buf, f->buf + BLK, BLK);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_compare(q, 1, 16, 1, f->buf, BLK), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_flush(q, 1), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_write_zeroes(q, 1, 32, 8), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_dsm_deallocate(q, 1, 32, 8), t0) >= 100);
	/* Answered without the backend (a range past the end): as late. */
	t0 = fx_now_ms();
	assert_int_equal(ini_dsm_deallocate(q, 1, 1ull << 40, 8), 0x4080);
	assert_true(fx_now_ms() - t0 >= 100);
	assert_int_equal(fault_num(f, id, "fired"), 7);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

/*
 * --op write-zeroes, dsm and compare each delay that command alone: the
 * other two, reads, writes and flushes are not even seen.
 */
static void test_latency_one_op(void **state)
{
	static const struct {
		const char *op, *listed;
	} ops[] = {
		{ "write-zeroes", "latency, Write Zeroes of namespace 1" },
		{ "dsm", "latency, Dataset Management of namespace 1" },
		{ "compare", "latency, Compares of namespace 1" },
	};
	struct faults_fx *f = *state;
	struct ini_queue *q = f->c->io[0];

	memset(f->buf, 0x6b, BLK);
	assert_int_equal(ini_write(q, 1, 40, 1, f->buf, BLK, false), 0);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		uint32_t id;
		int64_t t0;
		int rc[3];
		int64_t ms[3];

		assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 1 --op %s --delay-us 100000",
				     ops[i].op), 0);
		id = injected(f);
		assert_int_equal(ctl(f, "fault list"), 0);
		assert_non_null(strstr(f->out, ops[i].listed));
		/* Not its commands: not seen. */
		assert_int_equal(ini_read(q, 1, 40, 1, f->buf + BLK, BLK), 0);
		assert_int_equal(ini_write(q, 1, 48, 1, f->buf, BLK, false), 0);
		assert_int_equal(ini_flush(q, 1), 0);
		assert_int_equal(fault_num(f, id, "seen"), 0);
		/* Each of the three: only the fault's own waits (counted, and at least 100 ms). */
		t0 = fx_now_ms();
		rc[0] = ini_write_zeroes(q, 1, 64, 8);
		ms[0] = fx_now_ms() - t0;
		t0 = fx_now_ms();
		rc[1] = ini_dsm_deallocate(q, 1, 64, 8);
		ms[1] = fx_now_ms() - t0;
		t0 = fx_now_ms();
		rc[2] = ini_compare(q, 1, 40, 1, f->buf, BLK);
		ms[2] = fx_now_ms() - t0;
		for (size_t k = 0; k < 3; k++)
			assert_int_equal(rc[k], 0);
		assert_true(ms[i] >= 100);
		assert_int_equal(fault_num(f, id, "seen"), 1);
		assert_int_equal(fault_num(f, id, "fired"), 1);
		assert_int_equal(ctl(f, "fault clear %u", id), 0);
	}
}

/*
 * --op admin: the admin commands of a host's controllers (no namespace)
 * wait the delay before they run: an Identify, a Get Log Page, a Keep
 * Alive; its I/O and another host's admin commands are not seen. A 60 s
 * one holds an Identify until cleared.
 */
static void test_latency_admin(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c2 = host_a(f);
	uint8_t page[4096];
	struct ini_req r;
	uint32_t id;
	int64_t t0;

	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " --op admin --host " FX_HOST_A
				" --delay-us 150000"), 0);
	id = injected(f);
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "latency, admin commands of " FX_HOST_A " on " SUBNQN));
	t0 = fx_now_ms();
	assert_true(took_ms(ini_identify(c2->admin, 1, 0, 0, page), t0) >= 150);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_get_log(c2->admin, 2, 0xffffffff, 0, page, 512), t0) >= 150);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_keep_alive(c2->admin), t0) >= 150);
	assert_int_equal(fault_num(f, id, "fired"), 3);
	/* Its I/O, and another host's admin queue: not seen. */
	assert_int_equal(ini_read(c2->io[0], 1, 0, 1, f->buf, BLK), 0);
	assert_int_equal(ini_identify(f->c->admin, 1, 0, 0, page), 0);
	assert_int_equal(ini_keep_alive(f->c->admin), 0);
	assert_int_equal(fault_num(f, id, "seen"), 3);
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	/* Every host's, 60 s: an Identify held until the fault is cleared. */
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " --op admin --delay-us 60000000"),
			 0);
	id = injected(f);
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "admin commands of every host on " SUBNQN));
	ini_req_init(&r, nvme_admin_identify, 0, page, sizeof(page), INI_DIR_C2H);
	r.sqe.cdw10 = 1;
	assert_int_equal(ini_submit(f->c->admin, &r), 0);
	faults_wait_held(f, id, 1);
	assert_false(faults_answers_within(f->c->admin, 200));
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ini_wait(f->c->admin, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	bye(c2);
}

/*
 * --op all delays the Zoned Namespace commands (Zone Management Send and
 * Receive) and the reservation commands too; --op write a Zone Append.
 */
static void test_latency_zoned_resv(void **state)
{
	static const uint8_t hostid[16] = { 0x1a, 0x7e, 2, 3, 4, 5, 0x40, 7, 0x80, 9 };
	struct faults_fx *f = *state;
	struct ini_ctrl *c2;
	struct ini_queue *q;
	uint8_t rep[4096];
	uint64_t lba = 0;
	uint32_t id;
	int64_t t0;

	assert_int_equal(ctl(f, "device create zflash --channels 1 --dies-per-channel 2 "
				"--pages-per-block 48 --blocks-per-plane 32"), 0);
	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 3 --device zflash --zoned --size 8M "
				"--zone-size 2M"), 0);
	c2 = fx_ctrl_host(&f->fx.d, SUBNQN, FX_HOST_A, hostid);
	assert_non_null(c2);
	q = c2->io[0];
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 3 --op all --delay-us 100000"), 0);
	id = injected(f);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_zone_report(q, 3, 0, NVME_ZNS_ZRAS_REPORT_ALL, false, rep,
					    sizeof(rep)), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_zone_send(q, 3, 0, NVME_ZNS_ZSA_OPEN, false), t0) >= 100);
	memset(f->buf, 0x3c, BLK);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_zone_append(q, 3, 0, 1, f->buf, BLK, false, &lba), t0) >= 100);
	assert_int_equal(lba, 0);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_resv_register(q, 3, 0, 0, 0xabc), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_resv_acquire(q, 3, 1u << 8, 0xabc, 0), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_resv_report(q, 3, true, rep, sizeof(rep)), t0) >= 100);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_resv_release(q, 3, 1u << 8, 0xabc), t0) >= 100);
	/* A refused command waits as long: its status is what comes late. */
	t0 = fx_now_ms();
	assert_int_equal(ini_zone_send(q, 3, 1, NVME_ZNS_ZSA_OPEN, false), 0x4002);
	assert_true(fx_now_ms() - t0 >= 100);
	assert_int_equal(fault_num(f, id, "fired"), 8);
	assert_int_equal(ctl(f, "fault clear %u", id), 0);

	/* --op write: the append waits, a zone report does not count. */
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 3 --op write --delay-us 100000"),
			 0);
	id = injected(f);
	assert_int_equal(ini_zone_report(q, 3, 0, NVME_ZNS_ZRAS_REPORT_ALL, false, rep,
					 sizeof(rep)), 0);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_zone_append(q, 3, 0, 1, f->buf, BLK, false, &lba), t0) >= 100);
	assert_int_equal(lba, 1);
	assert_int_equal(fault_num(f, id, "fired"), 1);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	bye(c2);
	assert_int_equal(ctl(f, "ns delete " SUBNQN " 3 --force"), 0);
	assert_int_equal(ctl(f, "device delete zflash"), 0);
}

static void test_gc_storm(void **state)
{
	struct faults_fx *f = *state;

	/* Written once, then every other 128 KiB overwritten: superblocks half invalid. */
	faults_gc_prepare(f, BLK);
	faults_gc_storm(f);
	assert_int_equal(ctl(f, "stats " SUBNQN " 2"), 0);
	assert_non_null(strstr(f->out, "gc storms"));
	/* Every LBA as last written. */
	for (uint32_t lba = 0; lba < 1024; lba += 32) {
		uint8_t want = (uint8_t)(((lba / 32) % 2 ? 0 : 64) + lba / 32);

		assert_int_equal(ini_read(f->c->io[0], 2, lba, 32, f->buf, 32 * BLK), 0);
		for (uint32_t k = 0; k < 32 * BLK; k++)
			if (f->buf[k] != want)
				fail_msg("LBA %u: byte %u is %u, want %u", lba, k, f->buf[k], want);
	}
	/* For a time instead: accepted, listed. */
	assert_int_equal(ctl(f, "fault inject gc-storm " SUBNQN " 2 --ms 100"), 0);
	assert_non_null(strstr(f->out, "100 ms"));
	/* Not on a backend without an FTL; one way of saying how much; nothing that repeats. */
	assert_int_equal(ctl(f, "fault inject gc-storm " SUBNQN " 1"), 4);
	assert_non_null(strstr(f->out, "backend ram"));
	assert_int_equal(ctl(f, "fault inject gc-storm " SUBNQN " 2 --superblocks 2 --ms 5"), 1);
	assert_int_equal(ctl(f, "fault inject gc-storm " SUBNQN " 2 --count 3"), 1);
	assert_int_equal(ctl(f, "fault inject gc-storm " SUBNQN " 2 --persist"), 1);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	assert_int_equal(ctl(f, "ns delete " SUBNQN " 2 --force"), 0);
	assert_int_equal(ctl(f, "device delete gflash"), 0);
}

static void test_listener_stop(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c2 = NULL;
	uint16_t port = f->fx.d.nvm_port;
	uint32_t id;

	assert_int_equal(ctl(f, "fault inject listener-stop " FX_ADDR ":%u", port), 0);
	id = injected(f);
	assert_non_null(strstr(f->out, "refuses connections"));
	/* A new connection is refused; the host connected before goes on. */
	assert_true(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c2) != 0);
	assert_null(c2);
	assert_int_equal(ini_read(f->c->io[0], 1, 0, 1, f->buf, BLK), 0);
	assert_true(fault_num(f, id, "fired") >= 1);
	/* Cleared: it takes connections again. */
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	bye(host_a(f));
	/* For 300 ms: once they are over, it takes connections again by itself. */
	assert_int_equal(ctl(f, "fault inject listener-stop " FX_ADDR ":%u --ms 300", port), 0);
	id = injected(f);
	fx_sleep_ms(400);
	bye(host_a(f));
	assert_true(fault_num(f, id, "spent"));
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	/* A listener that does not run; not an address. */
	assert_int_equal(ctl(f, "fault inject listener-stop " FX_ADDR ":1"), 2);
	assert_non_null(strstr(f->out, "not found"));
	assert_int_equal(ctl(f, "fault inject listener-stop nowhere"), 1);
	assert_int_equal(ctl(f, "fault inject listener-stop " FX_ADDR ":%u --ms 90000000", port), 1);
	assert_non_null(strstr(f->out, "24 hours"));
}

static void test_host_drop_after(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c2 = host_a(f);
	uint32_t id;

	assert_int_equal(ctl(f, "fault inject host-drop " SUBNQN " --host " FX_HOST_A " --after 3"),
			 0);
	id = injected(f);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ini_read(c2->io[0], 1, 0, 1, f->buf, BLK), 0);
	assert_int_equal(fault_num(f, id, "fired"), 0);
	/* The fourth: the host's connections close (a moment later). */
	faults_wait_dropped(f, c2);
	ini_ctrl_destroy(c2);
	assert_int_equal(fault_num(f, id, "fired"), 1);
	assert_true(fault_num(f, id, "spent"));
	/* The other host went on; this one connects again and is not dropped again. */
	assert_int_equal(ini_read(f->c->io[0], 1, 0, 1, f->buf, BLK), 0);
	c2 = host_a(f);
	for (int i = 0; i < 8; i++)
		assert_int_equal(ini_read(c2->io[0], 1, 0, 1, f->buf, BLK), 0);
	bye(c2);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	assert_int_equal(ctl(f, "fault inject host-drop " SUBNQN " --after 3"), 64);
}

static void test_queue_stall(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c2 = host_a(f);
	struct ini_req r;
	int64_t t0;
	uint32_t id;

	/*
	 * 2 s from the inject on: a read of the host sent in it completes
	 * after. (At 300 ms, bloxctl under ASan on a loaded machine sometimes
	 * returned after the stall had ended, and the read was not held.)
	 */
	t0 = fx_now_ms();
	assert_int_equal(ctl(f, "fault inject queue-stall " SUBNQN " --host " FX_HOST_A " --ms 2000"),
			 0);
	id = injected(f);
	ini_req_rw(&r, nvme_cmd_read, 1, 0, 1, f->buf, BLK);
	assert_int_equal(ini_submit(c2->io[0], &r), 0);
	/* Another host's commands, and the host's admin queue, are served meanwhile. */
	assert_int_equal(ini_read(f->c->io[0], 1, 0, 1, f->buf + BLK, BLK), 0);
	assert_int_equal(ini_keep_alive(c2->admin), 0);
	assert_int_equal(ini_wait(c2->io[0], &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	assert_true(fx_now_ms() - t0 >= 2000);
	assert_int_equal(fault_num(f, id, "fired"), 1);
	assert_int_equal(ini_read(c2->io[0], 1, 0, 1, f->buf, BLK), 0); /* over */
	/* One of 60 s (every host): a command held, answered at once when cleared. */
	assert_int_equal(ctl(f, "fault inject queue-stall " SUBNQN " --ms 60000"), 0);
	id = injected(f);
	ini_req_rw(&r, nvme_cmd_write, 1, 4, 1, f->buf, BLK);
	assert_int_equal(ini_submit(c2->io[0], &r), 0);
	faults_wait_held(f, id, 1);
	assert_false(faults_answers_within(c2->io[0], 200));
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ini_wait(c2->io[0], &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	/* A stalled host that goes away: its held command ends with its queue. */
	assert_int_equal(ctl(f, "fault inject queue-stall " SUBNQN " --ms 2000"), 0);
	id = injected(f);
	ini_req_rw(&r, nvme_cmd_read, 1, 0, 1, f->buf, BLK);
	assert_int_equal(ini_submit(c2->io[0], &r), 0);
	faults_wait_held(f, id, 1);
	ini_ctrl_destroy(c2);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	assert_int_equal(ini_read(f->c->io[0], 1, 0, 1, f->buf, BLK), 0);
	/* One I/O queue (--qid 2): a read there waits, one on queue 1 does not. */
	c2 = NULL;
	assert_int_equal(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, 2, NULL, &c2), 0);
	assert_int_equal(ini_queue_qid(c2->io[1]), 2);
	assert_int_equal(ctl(f, "fault inject queue-stall " SUBNQN " --host " FX_HOST_A
				" --qid 2 --ms 60000"), 0);
	id = injected(f);
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "I/O queue 2 of " FX_HOST_A " on " SUBNQN));
	ini_req_rw(&r, nvme_cmd_read, 1, 0, 1, f->buf, BLK);
	assert_int_equal(ini_submit(c2->io[1], &r), 0);
	faults_wait_held(f, id, 1);
	assert_int_equal(ini_read(c2->io[0], 1, 0, 1, f->buf + BLK, BLK), 0);
	assert_int_equal(ini_write(c2->io[0], 1, 4, 1, f->buf + BLK, BLK, false), 0);
	assert_int_equal(fault_num(f, id, "seen"), 1);
	assert_false(faults_answers_within(c2->io[1], 200));
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ini_wait(c2->io[1], &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	bye(c2);
	/* Bad input: a stall needs its time; no such subsystem. */
	assert_int_equal(ctl(f, "fault inject queue-stall " SUBNQN), 64);
	assert_int_equal(ctl(f, "fault inject queue-stall nqn.2026-12.io.blox:none --ms 5"), 2);
	assert_int_equal(ctl(f, "fault inject queue-stall " SUBNQN " --qid 0 --ms 5"), 64);
	assert_int_equal(ctl(f, "fault inject queue-stall " SUBNQN " --qid 65 --ms 5"), 1);
	assert_int_equal(ctl(f, "fault inject read-unc " SUBNQN " 1 --qid 1"), 64);
}

static void test_ka_ignore(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c2 = host_a(f);
	struct ini_req r;
	uint32_t id;

	assert_int_equal(ctl(f, "fault inject ka-ignore " SUBNQN " --host " FX_HOST_A), 0);
	id = injected(f);
	ini_req_init(&r, nvme_admin_keep_alive, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(c2->admin, &r), 0);
	/* Unanswered: nothing comes back; the fault holds it. */
	assert_false(faults_answers_within(c2->admin, 1000));
	faults_wait_held(f, id, 1);
	assert_int_equal(fault_num(f, id, "fired"), 1);
	/* Another host's keep-alive, and this host's I/O, are answered. */
	assert_int_equal(ini_keep_alive(f->c->admin), 0);
	assert_int_equal(ini_read(c2->io[0], 1, 0, 1, f->buf, BLK), 0);
	/* Cleared: the held one is answered. */
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ini_wait(c2->admin, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	/* Every host's; one that goes away with its keep-alive held frees it. */
	assert_int_equal(ctl(f, "fault inject ka-ignore " SUBNQN), 0);
	id = injected(f);
	ini_req_init(&r, nvme_admin_keep_alive, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(c2->admin, &r), 0);
	faults_wait_held(f, id, 1);
	ini_ctrl_destroy(c2);
	faults_wait_held(f, id, 0);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	assert_int_equal(ini_keep_alive(f->c->admin), 0);
}

/* Kept with --persist: back after a restart, with their targets and times; the rest gone. */
static void test_persist(void **state)
{
	struct faults_fx *f = *state;

	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " 1 --op write --dist uniform "
				"--min-us 100000 --max-us 120000 --persist"), 0);
	assert_int_equal(ctl(f, "fault inject ka-ignore " SUBNQN " --host " FX_HOST_B " --persist"),
			 0);
	assert_int_equal(ctl(f, "fault inject queue-stall " SUBNQN " --ms 50"), 0);
	faults_restart(f, subsystems, fixture_setup);
	assert_non_null(strstr(f->out, "latency, write of namespace 1"));
	assert_non_null(strstr(f->out, "uniform 100000-120000 us"));
	assert_non_null(strstr(f->out, "keep-alives of " FX_HOST_B));
	assert_null(strstr(f->out, "queue-stall"));
	/* The latency works again: a write takes 100 ms at least, a read does not wait for it. */
	{
		int64_t t0 = fx_now_ms();

		assert_int_equal(ini_write(f->c->io[0], 1, 0, 1, f->buf, BLK, false), 0);
		assert_true(fx_now_ms() - t0 >= 100);
	}
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

static void test_latency_bad_input(void **state)
{
	struct faults_fx *f = *state;
	static const struct faults_bad bad[] = {
		{ "fault inject latency " SUBNQN " 9 --delay-us 5", 2, "namespace 9 not found" },
		{ "fault inject latency " SUBNQN " 1", 64, "--delay-us" },
		{ "fault inject latency " SUBNQN " 1 --delay-us 0", 64, "--delay-us" },
		{ "fault inject latency " SUBNQN " 1 --delay-us -5", 64, "not a number" },
		{ "fault inject latency " SUBNQN " 1 --delay-us 700000000", 1, "600 s" },
		{ "fault inject latency " SUBNQN " 1 --delay-us 5 --op trim", 1,
		  "read, write, rw, flush, write-zeroes, dsm, compare, all, admin or fabrics" },
		{ "fault inject latency " SUBNQN " 1 --op admin --delay-us 5", 64, "no NSID" },
		{ "fault inject latency " SUBNQN " --op read --delay-us 5", 64, "NSID are required" },
		{ "fault inject latency nqn.2026-12.io.blox:none --op admin --delay-us 5", 2,
		  "not found" },
		{ "fault inject queue-stall " SUBNQN " --qid 65 --ms 5", 1, "I/O queues 1 to 64" },
		{ "fault inject read-unc " SUBNQN " 1 --qid 1", 64, "queue-stall's" },
		{ "fault inject latency " SUBNQN " 1 --dist uniform --min-us 9 --max-us 2", 64,
		  "below" },
		{ "fault inject latency " SUBNQN " 1 --dist normal --delay-us 5", 64, "fixed, uniform" },
		{ "fault inject latency " SUBNQN " 1 --dist exp --mean-us 9 --max-us 2", 1, "cap" },
		{ "fault inject read-unc " SUBNQN " 1 --delay-us 5", 64, "latency's" },
		{ "fault inject read-unc " SUBNQN " 1 --ms 5", 1, "no --ms" },
		{ "fault inject ka-ignore nqn.2026-12.io.blox:none", 2, "not found" },
	};

	faults_expect_refused(f, bad, sizeof(bad) / sizeof(bad[0]));
}

int main(void)
{
	static const struct fx_group g = FAULTS_GROUP(subsystems, fixture_setup);
	const struct CMUnitTest tests[] = {
		/* Restarts on new ports: before anything writes the state file (device create). */
		cmocka_unit_test(test_persist),
		cmocka_unit_test(test_latency_bad_input),
		cmocka_unit_test(test_latency),
		cmocka_unit_test(test_latency_ops),
		cmocka_unit_test(test_latency_one_op),
		cmocka_unit_test(test_latency_admin),
		cmocka_unit_test(test_latency_zoned_resv),
		cmocka_unit_test(test_queue_stall),
		cmocka_unit_test(test_ka_ignore),
		cmocka_unit_test(test_host_drop_after),
		cmocka_unit_test(test_listener_stop),
		cmocka_unit_test(test_gc_storm),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
