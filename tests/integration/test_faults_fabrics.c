/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Faults on demand of the Fabrics commands and GC storms beyond 4 KiB
 * blocks (docs/FAULTS.md), through bloxctl and hosts over loopback:
 * - latency --op fabrics: a host's Connect of its admin queue and of a new
 *   I/O queue complete late (the I/O one held past bloxd's
 *   --connect-timeout-ms, which must not close it) and the queue then
 *   reads and writes; its Disconnect completes late; its admin commands
 *   and Keep Alive, and another host's Fabrics commands, are not seen;
 * - a controller reset held late: CC.EN cleared and CSTS polled, each
 *   Property Set and Get late, CSTS.RDY as the reset says; enabled again,
 *   the controller reads on; a Property Get held by a 60 s delay is
 *   answered once the fault is cleared, and one whose queue closes ends
 *   with it;
 * - a host's DH-HMAC-CHAP transaction held past the 10 s the target gives
 *   it: the time held is not counted, the queue authenticates;
 * - gc-storm on a 512-byte namespace: its FTL takes the asked victims
 *   and every LBA (whole 4 KiB units and single 512-byte blocks written
 *   over them) reads back; on a zoned namespace it is refused, saying
 *   there is no GC there;
 * - bad input: refused with a reason, nothing added.
 * Timings are checked as lower bounds only.
 */
#include "faults_common.h"

#define SUBNQN "nqn.2026-12.io.blox:fabfaults"
#define AUTHNQN "nqn.2026-12.io.blox:fabauth"
/* nvme gen-dhchap-key -m 1 */
#define KEY_A "DHHC-1:01:hkvLJezZUgf7679DpCWaKKHhPxoohyzMRldaJ4yQXuJa3ylC:"
#define CC_ENABLE (1u | 6u << 16 | 4u << 20) /* EN, IOSQES 64 B, IOCQES 16 B */
#define CSTS_RDY 1u

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"}]}]";

/* A Connect waits past this for a fault: the transport must not count it as the host's. */
static const char *const bloxd_args[] = { "--connect-timeout-ms", "1000", NULL };

static int fixture_setup(void *arg)
{
	return faults_fx_setup(arg, SUBNQN);
}

static int64_t took_ms(int rc, int64_t t0)
{
	assert_int_equal(rc, 0);
	return fx_now_ms() - t0;
}

static struct ini_ctrl *host_a(struct faults_fx *f, uint32_t nr_io)
{
	struct ini_ctrl *c;

	assert_int_equal(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, nr_io, NULL, &c), 0);
	return c;
}

static void bye(struct ini_ctrl *c)
{
	ini_ctrl_shutdown(c);
	ini_ctrl_destroy(c);
}

/* Connect of queue @qid of host A's controller @cntlid (0xffff: a new admin queue) on @q. */
static int connect_to(const char *subnqn, struct ini_queue *q, uint16_t qid, uint16_t cntlid,
		      uint16_t *status)
{
	struct ini_connect_args a = { .qid = qid, .sqsize = qid ? 127 : 31, .subnqn = subnqn,
				      .hostnqn = FX_HOST_A, .cntlid = cntlid };
	struct nvme_cqe cqe;
	int rc = ini_connect(q, &a, &cqe);

	*status = rc ? 0xffff : ini_status(&cqe);
	return rc;
}

static int connect_a(struct ini_queue *q, uint16_t qid, uint16_t cntlid, uint16_t *status)
{
	return connect_to(SUBNQN, q, qid, cntlid, status);
}

/*
 * --op fabrics --host A: A's Connect of a new admin queue, and of a new
 * I/O queue held 1.5 s (past --connect-timeout-ms 1000), complete late;
 * the queue reads and writes; its Disconnect completes late. A's admin
 * commands and Keep Alive, its reads, and the default host's Fabrics
 * commands are not seen.
 */
static void test_fabrics_connect(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c = host_a(f, 0);
	struct ini_queue *q;
	uint8_t page[4096];
	uint64_t v = 0;
	uint16_t st;
	uint32_t id, nq = 0;
	int64_t t0;

	/* One I/O queue allowed; none connected yet. */
	assert_int_equal(ini_set_features(c->admin, NVME_FEAT_FID_NUM_QUEUES, 0, &nq), 0);
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " --op fabrics --host " FX_HOST_A
				" --delay-us 300000"), 0);
	id = injected(f);
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "latency, Fabrics commands of " FX_HOST_A " on " SUBNQN));
	assert_non_null(strstr(f->out, "+300000 us"));
	assert_int_equal(ctl(f, "--json fault list"), 0);
	assert_non_null(strstr(f->out, "\"fabrics\""));

	/* A new admin queue's Connect: late, and it makes a controller. */
	assert_int_equal(ini_queue_connect(FX_ADDR, f->fx.d.nvm_port, NULL, &q), 0);
	t0 = fx_now_ms();
	assert_true(took_ms(connect_a(q, 0, 0xffff, &st), t0) >= 300);
	assert_int_equal(st, 0);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_prop_get(q, NVME_REG_VS, false, &v), t0) >= 300);
	assert_true(v >= 0x10300);
	ini_queue_destroy(q);
	assert_int_equal(fault_num(f, id, "fired"), 2);

	/* The I/O queue's Connect, held 1.5 s: past the transport's Connect deadline. */
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " --op fabrics --host " FX_HOST_A
				" --delay-us 1500000"), 0);
	id = injected(f);
	assert_int_equal(ini_queue_connect(FX_ADDR, f->fx.d.nvm_port, NULL, &q), 0);
	t0 = fx_now_ms();
	assert_true(took_ms(connect_a(q, 1, c->cntlid, &st), t0) >= 1500);
	assert_int_equal(st, 0);
	assert_int_equal(fault_num(f, id, "fired"), 1);
	/* The queue works; reads are not Fabrics commands. */
	memset(f->buf, 0x5a, 8 * BLK);
	assert_int_equal(ini_write(q, 1, 8, 8, f->buf, 8 * BLK, false), 0);
	memset(f->buf, 0, 8 * BLK);
	assert_int_equal(ini_read(q, 1, 8, 8, f->buf, 8 * BLK), 0);
	for (uint32_t k = 0; k < 8 * BLK; k++)
		if (f->buf[k] != 0x5a)
			fail_msg("byte %u read back %u", k, f->buf[k]);
	/* Its admin commands and Keep Alive, and another host's Property Get: not seen. */
	assert_int_equal(ini_identify(c->admin, 1, 0, 0, page), 0);
	assert_int_equal(ini_keep_alive(c->admin), 0);
	assert_int_equal(ini_prop_get(f->c->admin, NVME_REG_CSTS, false, &v), 0);
	assert_int_equal(fault_num(f, id, "seen"), 1);
	/* A Disconnect of the queue is a Fabrics command too. */
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " --op fabrics --host " FX_HOST_A
				" --delay-us 200000"), 0);
	id = injected(f);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_disconnect(q), t0) >= 200);
	assert_int_equal(fault_num(f, id, "fired"), 1);
	ini_queue_destroy(q);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	bye(c);
}

/* A 60 s fabrics fault injected: a Property Get of CSTS sent on @c's admin queue, held; its id. */
static uint32_t held_csts_get(struct faults_fx *f, struct ini_ctrl *c, struct ini_req *r)
{
	uint32_t id;

	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " --op fabrics --delay-us 60000000"),
			 0);
	id = injected(f);
	ini_req_init(r, nvme_admin_fabrics, nvme_fabrics_type_property_get, NULL, 0, INI_DIR_NONE);
	r->sqe.cdw11 = NVME_REG_CSTS;
	assert_int_equal(ini_submit(c->admin, r), 0);
	faults_wait_held(f, id, 1);
	return id;
}

/*
 * A controller reset seen through a slow drive: CC.EN cleared and CSTS
 * read, each late; CSTS.RDY 0; enabled again, RDY 1, the controller
 * reads on. A Property Get held 60 s is answered when the fault is
 * cleared; one whose admin queue closes goes with it.
 */
static void test_fabrics_reset(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c = host_a(f, 1);
	struct nvmf_connect_data cd;
	struct ini_queue *q;
	struct ini_req r;
	uint64_t cc = 0, csts = 0;
	uint32_t id;
	int64_t t0;

	assert_int_equal(ctl(f, "fault inject latency " SUBNQN " --op fabrics --delay-us 200000"),
			 0);
	id = injected(f);
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "Fabrics commands of every host on " SUBNQN));
	t0 = fx_now_ms();
	assert_true(took_ms(ini_prop_get(c->admin, NVME_REG_CC, false, &cc), t0) >= 200);
	assert_true(cc & 1);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_prop_set(c->admin, NVME_REG_CC, false, cc & ~1ull), t0) >= 200);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_prop_get(c->admin, NVME_REG_CSTS, false, &csts), t0) >= 200);
	assert_int_equal(csts & CSTS_RDY, 0);
	t0 = fx_now_ms();
	assert_true(took_ms(ini_prop_set(c->admin, NVME_REG_CC, false, CC_ENABLE), t0) >= 200);
	assert_int_equal(ini_ctrl_wait_csts(c->admin, CSTS_RDY, CSTS_RDY, 10000), 0);
	assert_true(fault_num(f, id, "fired") >= 5);
	assert_int_equal(ini_read(c->io[0], 1, 0, 1, f->buf, BLK), 0);

	/* 60 s: held until cleared, then answered with what CSTS is then. */
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	id = held_csts_get(f, c, &r);
	assert_false(faults_answers_within(c->admin, 200));
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ini_wait(c->admin, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	assert_int_equal(r.cqe.result & CSTS_RDY, CSTS_RDY);

	/* Held, and the host goes away: nothing stays held. */
	id = held_csts_get(f, c, &r);
	ini_ctrl_destroy(c);
	faults_wait_held(f, id, 0);
	/* A Connect held when its host goes away: the same. */
	assert_int_equal(ini_queue_connect(FX_ADDR, f->fx.d.nvm_port, NULL, &q), 0);
	memset(&cd, 0, sizeof(cd));
	cd.cntlid = 0xffff;
	snprintf(cd.subsysnqn, sizeof(cd.subsysnqn), "%s", SUBNQN);
	snprintf(cd.hostnqn, sizeof(cd.hostnqn), "%s", FX_HOST_A);
	ini_req_init(&r, nvme_admin_fabrics, nvme_fabrics_type_connect, &cd, sizeof(cd),
		     INI_DIR_H2C);
	r.flags = INI_REQ_INLINE;
	r.sqe.cdw11 = 31;
	assert_int_equal(ini_submit(q, &r), 0);
	faults_wait_held(f, id, 1);
	ini_queue_destroy(q);
	faults_wait_held(f, id, 0);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	/* The default host went on meanwhile. */
	assert_int_equal(ini_read(f->c->io[0], 1, 0, 1, f->buf, BLK), 0);
}

/*
 * A host with a DH-HMAC-CHAP secret whose Connect and four authentication
 * messages (Negotiate, Challenge, Reply, Success1) each wait 3.6 s: its
 * Reply, which authenticates the queue, is taken 10.8 s after the Connect
 * ran, past the 10 s the target gives a host to authenticate. The time
 * held is the target's: the queue authenticates and stays open.
 */
static void test_fabrics_auth(void **state)
{
	struct faults_fx *f = *state;
	struct ini_auth_opts o = { .key = KEY_A, .dhgroup = -1 };
	struct ini_auth_result res;
	struct ini_queue *q;
	uint64_t v = 0;
	uint16_t st;
	uint32_t id;
	int64_t t0;

	assert_int_equal(ctl(f, "subsys create " AUTHNQN " --host " FX_HOST_A), 0);
	assert_int_equal(ctl(f, "host allow " AUTHNQN " " FX_HOST_A " --dhchap-key " KEY_A), 0);
	assert_int_equal(ctl(f, "fault inject latency " AUTHNQN " --op fabrics --host " FX_HOST_A
				" --delay-us 3600000"), 0);
	id = injected(f);
	assert_int_equal(ini_queue_connect(FX_ADDR, f->fx.d.nvm_port, NULL, &q), 0);
	assert_int_equal(connect_to(AUTHNQN, q, 0, 0xffff, &st), 0);
	assert_int_equal(st, 0);
	t0 = fx_now_ms();
	assert_int_equal(ini_auth(q, AUTHNQN, FX_HOST_A, &o, &res), 0);
	assert_true(fx_now_ms() - t0 >= 4 * 3600);
	assert_int_equal(fault_num(f, id, "fired"), 5);
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_int_equal(ini_prop_get(q, NVME_REG_VS, false, &v), 0);
	assert_true(v >= 0x10300);
	ini_queue_destroy(q);
	assert_int_equal(ctl(f, "subsys delete " AUTHNQN " --force"), 0);
}

/* LBA @lba's 512-byte block as test_gc_storm_512 writes it. */
static uint8_t byte_of(uint32_t lba, uint32_t k)
{
	if (lba % 64 == 7) /* rewritten alone */
		return (uint8_t)(0x80 + lba / 64 + k % 3);
	if ((lba / 256) % 2 == 0) /* the even 128 KiB, overwritten */
		return (uint8_t)(64 + lba / 256);
	return (uint8_t)(lba / 256);
}

/*
 * gc-storm on a nand namespace of 512-byte blocks: written once in 128
 * KiB, every other 128 KiB overwritten, then single 512-byte blocks
 * rewritten (read-modify-write of their 4 KiB units); the storm takes
 * the two victims it asked for and every block reads back as last
 * written. On a zoned namespace: refused, saying it has no GC.
 */
static void test_gc_storm_512(void **state)
{
	const uint32_t lbas = 4u << 20 >> 9, chunk = 256; /* 4 MiB of 512-byte blocks, 128 KiB */
	struct faults_fx *f = *state;
	struct ini_queue *q = f->c->io[0];
	uint8_t *w = f->buf;

	faults_gc_prepare(f, 512);
	for (uint32_t lba = 7; lba < lbas; lba += 64) {
		for (uint32_t k = 0; k < 512; k++)
			w[k] = byte_of(lba, k);
		assert_int_equal(ini_write(q, 2, lba, 1, w, 512, false), 0);
	}
	faults_gc_storm(f);
	/* Every block as last written. */
	for (uint32_t lba = 0; lba < lbas; lba += chunk) {
		assert_int_equal(ini_read(q, 2, lba, chunk, f->buf, chunk * 512), 0);
		for (uint32_t k = 0; k < chunk * 512; k++)
			if (f->buf[k] != byte_of(lba + k / 512, k % 512))
				fail_msg("LBA %u: byte %u is %u, want %u", lba + k / 512, k % 512,
					 f->buf[k], byte_of(lba + k / 512, k % 512));
	}
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	assert_int_equal(ctl(f, "ns delete " SUBNQN " 2 --force"), 0);

	/* A zoned namespace has no GC: refused, saying so. */
	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 3 --device gflash --zoned --size 2M "
				"--zone-size 1M"), 0);
	assert_int_equal(ctl(f, "fault inject gc-storm " SUBNQN " 3"), 4);
	assert_non_null(strstr(f->out, "zoned"));
	assert_non_null(strstr(f->out, "no GC"));
	assert_int_equal(ctl(f, "--json fault list"), 0);
	assert_null(strstr(f->out, "gc-storm"));
	assert_int_equal(ctl(f, "ns delete " SUBNQN " 3 --force"), 0);
	assert_int_equal(ctl(f, "device delete gflash"), 0);
}

static void test_fabrics_bad_input(void **state)
{
	struct faults_fx *f = *state;
	static const struct faults_bad bad[] = {
		{ "fault inject latency " SUBNQN " 1 --op fabrics --delay-us 5", 64, "no NSID" },
		{ "fault inject latency " SUBNQN " --op fabrics", 64, "--delay-us" },
		{ "fault inject latency nqn.2026-12.io.blox:none --op fabrics --delay-us 5", 2,
		  "not found" },
		{ "fault inject latency " SUBNQN " 1 --op connect --delay-us 5", 1,
		  "all, admin or fabrics" },
		{ "fault inject latency " SUBNQN " --op fabrics --delay-us 5 --ms 10", 1, "no --ms" },
	};

	faults_expect_refused(f, bad, sizeof(bad) / sizeof(bad[0]));
}

int main(void)
{
	static const struct fx_group g = { .subsystems = subsystems,
					   .extra_args = bloxd_args,
					   .own_data_dir = true,
					   .size = sizeof(struct faults_fx),
					   .setup = fixture_setup,
					   .teardown = faults_fx_teardown };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fabrics_bad_input),
		cmocka_unit_test(test_fabrics_connect),
		cmocka_unit_test(test_fabrics_reset),
		cmocka_unit_test(test_fabrics_auth),
		cmocka_unit_test(test_gc_storm_512),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
