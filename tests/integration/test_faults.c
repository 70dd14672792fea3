/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Faults on demand (docs/FAULTS.md) through bloxctl and a host over
 * loopback:
 * - read-unc: a read touching the range fails with Unrecovered Read Error
 *   (02h/81h), the Error Information log names the first LBA of the range
 *   it touched, the namespace, the queue and command, SMART counts a
 *   media error; reads beside the range succeed; fault list counts it;
 * - write-fail with a count: Write Fault (02h/80h, DNR) that many times,
 *   then writes succeed and the fault is spent;
 * - a probability with a seed: the same seed fails the same reads of the
 *   same sequence, another seed others, about as often as asked;
 * - start conditions: after N commands, at a queue depth;
 * - bad input: each refused with its reason and exit code, nothing added;
 * - host-drop: a host's controllers drop at once, it connects again, the
 *   other host's controller carries on;
 * - --persist: a fault kept across a restart of bloxd; one without it gone;
 * - erase-fail: the next erase on a die of a registered device fails, GC
 *   retires its superblock (a vSSD's spare is a couple of superblocks:
 *   one), the namespace's data stays intact; die-fail: a read touching
 *   the failed die gets Unrecovered Read Error;
 * - die-offline: the LBAs whose data was on the die read as errors, the
 *   others as written; written again, all read back; SMART and stats; the
 *   same on a namespace's own device named by NQN NSID.
 */
#include "faults_common.h"

#define SUBNQN "nqn.2026-12.io.blox:faults"

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"},"
	"{\"nsid\": 2, \"backend\": \"ram\", \"size\": \"16M\"},"
	"{\"nsid\": 3, \"backend\": \"nand-timing\", \"size\": \"16M\"}]}]";

static int fixture_setup(void *arg)
{
	return faults_fx_setup(arg, SUBNQN);
}

/* The status of a read (or write) of @nlb blocks at @lba on @nsid. */
static uint16_t rw(struct faults_fx *f, bool write, uint32_t nsid, uint64_t lba, uint32_t nlb,
		   uint16_t *cid)
{
	struct ini_req r;

	ini_req_rw(&r, write ? nvme_cmd_write : nvme_cmd_read, nsid, lba, nlb, f->buf, nlb * BLK);
	assert_int_equal(ini_exec(f->c->io[0], &r), 0);
	if (cid)
		*cid = r.sqe.cid;
	return ini_status(&r.cqe);
}

/* Fault @id's fired and seen counts, and whether it is spent, from fault list --json. */
static void counts(struct faults_fx *f, uint32_t id, uint64_t *fired, uint64_t *seen, bool *spent)
{
	*fired = fault_num(f, id, "fired");
	*seen = fault_num(f, id, "seen");
	*spent = fault_num(f, id, "spent");
}

static uint64_t u128(const uint8_t v[16])
{
	uint64_t x;

	memcpy(&x, v, sizeof(x));
	return x;
}

static void test_read_unc(void **state)
{
	struct faults_fx *f = *state;
	static struct nvme_error_log_page e[64];
	struct nvme_smart_log sl;
	uint64_t media0, fired, seen;
	uint16_t st, cid;
	uint32_t id;
	bool spent;

	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_SMART, 1, 0, &sl, sizeof(sl)), 0);
	media0 = u128(sl.media_errors);
	assert_int_equal(ctl(f, "fault inject read-unc " SUBNQN " 1 --lba 100 --nlb 8"), 0);
	id = injected(f);
	/* Around it, before it, after it: fine. Writes: fine. */
	assert_int_equal(rw(f, false, 1, 90, 10, NULL), 0);
	assert_int_equal(rw(f, false, 1, 108, 4, NULL), 0);
	assert_int_equal(rw(f, false, 2, 100, 8, NULL), 0);
	assert_int_equal(rw(f, true, 1, 100, 8, NULL), 0);
	/* Reads touching it: Unrecovered Read Error, logged with the first LBA it touched. */
	st = rw(f, false, 1, 96, 8, &cid);
	assert_int_equal(INI_SC_CODE(st), INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_ERROR, 0, 0, e, sizeof(e)), 0);
	assert_int_equal(e[0].lba, 100);
	assert_int_equal(e[0].nsid, 1);
	assert_int_equal(e[0].sqid, 1);
	assert_int_equal(e[0].cmdid, cid);
	assert_int_equal((e[0].status_field >> 1) & 0x7ff, (NVME_SCT_MEDIA << 8) | NVME_SC_READ_ERROR);
	st = rw(f, false, 1, 105, 1, NULL);
	assert_int_equal(INI_SC_CODE(st), INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_ERROR, 0, 0, e, sizeof(e)), 0);
	assert_int_equal(e[0].lba, 105);
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_SMART, 1, 0, &sl, sizeof(sl)), 0);
	assert_int_equal(u128(sl.media_errors), media0 + 2);
	counts(f, id, &fired, &seen, &spent);
	assert_int_equal(fired, 2);
	assert_int_equal(seen, 2); /* reads that touched it */
	assert_false(spent);
	/* Cleared: reads again. */
	assert_int_equal(ctl(f, "fault clear %u", id), 0);
	assert_non_null(strstr(f->out, "no faults"));
	assert_int_equal(rw(f, false, 1, 96, 8, NULL), 0);
}

static void test_write_fail_count(void **state)
{
	struct faults_fx *f = *state;
	uint64_t fired, seen;
	uint32_t id;
	bool spent;
	uint16_t st;

	assert_int_equal(ctl(f, "fault inject write-fail " SUBNQN " 2 --lba 0 --nlb 16 --count 2"), 0);
	id = injected(f);
	for (int i = 0; i < 2; i++) {
		st = rw(f, true, 2, 8, 1, NULL);
		assert_int_equal(INI_SC_CODE(st), INI_SC(NVME_SCT_MEDIA, NVME_SC_WRITE_FAULT));
		assert_true(st & NVME_SC_DNR);
	}
	assert_int_equal(rw(f, false, 2, 8, 1, NULL), 0); /* reads are not its */
	assert_int_equal(rw(f, true, 2, 8, 1, NULL), 0); /* spent */
	counts(f, id, &fired, &seen, &spent);
	assert_int_equal(fired, 2);
	assert_int_equal(seen, 2); /* spent, it looks no more */
	assert_true(spent);
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "(spent)"));
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

/* Which of 200 reads of LBA 0..199 fail under read-unc --probability 0.3 --seed @seed. */
static int pattern(struct faults_fx *f, uint64_t seed, uint8_t bits[25])
{
	int n = 0;

	assert_int_equal(ctl(f, "fault inject read-unc " SUBNQN " 1 --nlb 1000 --probability 0.3 "
				"--seed %llu", (unsigned long long)seed), 0);
	memset(bits, 0, 25);
	for (int i = 0; i < 200; i++)
		if (rw(f, false, 1, (uint64_t)i, 1, NULL)) {
			bits[i / 8] |= (uint8_t)(1u << (i % 8));
			n++;
		}
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	return n;
}

static void test_probability_seeded(void **state)
{
	struct faults_fx *f = *state;
	uint8_t a[25], b[25];
	int na, nb;

	na = pattern(f, 42, a);
	nb = pattern(f, 42, b);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, sizeof(a)); /* the same reads fail */
	assert_in_range(na, 30, 90); /* 60 expected */
	nb = pattern(f, 7, b);
	assert_memory_not_equal(a, b, sizeof(a));
	assert_in_range(nb, 30, 90);
}

static void test_start_conditions(void **state)
{
	struct faults_fx *f = *state;
	struct ini_req r[8];
	int failed = 0;

	/* After 5 matching reads, once. */
	assert_int_equal(ctl(f, "fault inject read-unc " SUBNQN " 1 --lba 0 --nlb 4 --after 5 "
				"--count 1"), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(rw(f, false, 1, 0, 1, NULL), 0);
	assert_int_equal(INI_SC_CODE(rw(f, false, 1, 0, 1, NULL)),
			 INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
	assert_int_equal(rw(f, false, 1, 0, 1, NULL), 0);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	/*
	 * At a queue depth of 4 (commands of the namespace at its backend,
	 * this one included). A read limit of 1 IOPS holds reads at the
	 * backend a second apart, so the depth each read finds is bounded: the
	 * first (and a second, if the bucket holds two tokens) passes and may
	 * still be at the backend, each later one finds the ones held before
	 * it. Alone, never; of eight sent at once, never the first three
	 * (at most two others before them), and some of the last five (four
	 * or more held before them when they arrive together). Which of the
	 * five is not asserted: a CI machine once delivered the eight so far
	 * apart, even at 1 IOPS, that the seventh or eighth found fewer.
	 */
	assert_int_equal(ctl(f, "fault inject read-unc " SUBNQN " 3 --lba 0 --nlb 64 --min-qd 4"), 0);
	assert_int_equal(rw(f, false, 3, 0, 1, NULL), 0);
	assert_int_equal(ctl(f, "qos set " SUBNQN " 3 --read-iops 1 --burst-ms 1"), 0);
	for (int i = 0; i < 8; i++) {
		ini_req_rw(&r[i], nvme_cmd_read, 3, (uint64_t)i * 8, 8, f->buf + (size_t)i * 8 * BLK,
			   8 * BLK);
		assert_int_equal(ini_submit(f->c->io[0], &r[i]), 0);
	}
	for (int i = 0; i < 8; i++)
		assert_int_equal(ini_wait(f->c->io[0], &r[i]), 0);
	for (int i = 0; i < 8; i++) {
		uint16_t st = INI_SC_CODE(ini_status(&r[i].cqe));

		print_message("min-qd 4: read %d of 8: status %#x\n", i, st);
		if (st) {
			assert_int_equal(st, INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
			assert_true(i >= 3);
			failed++;
		}
	}
	assert_true(failed >= 1);
	assert_int_equal(ctl(f, "qos set " SUBNQN " 3 --read-iops off --burst-ms off"), 0);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

/* A host's connections drop, now; the host connects again; other hosts go on. */
static void test_host_drop(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c2;
	uint64_t fired, seen;
	uint32_t id;
	bool spent;

	assert_int_equal(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c2), 0);
	assert_int_equal(ini_read(c2->io[0], 1, 0, 1, f->buf, BLK), 0);
	assert_int_equal(ctl(f, "fault inject host-drop " SUBNQN " --host " FX_HOST_A), 0);
	assert_non_null(strstr(f->out, "its controllers dropped"));
	id = injected(f);
	/* Its queues close: a command finds the connection gone. */
	faults_wait_dropped(f, c2);
	ini_ctrl_destroy(c2);
	/* The other host's controller carries on. */
	assert_int_equal(rw(f, false, 1, 0, 1, NULL), 0);
	/* It connects again. */
	assert_int_equal(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c2), 0);
	assert_int_equal(ini_read(c2->io[0], 1, 0, 1, f->buf, BLK), 0);
	ini_ctrl_shutdown(c2);
	ini_ctrl_destroy(c2);
	counts(f, id, &fired, &seen, &spent);
	assert_int_equal(fired, 1);
	assert_true(spent); /* once */
	/* A host with nothing connected: recorded, nothing dropped. */
	assert_int_equal(ctl(f, "fault inject host-drop " SUBNQN " --host " FX_HOST_B), 0);
	assert_non_null(strstr(f->out, "none connected"));
	assert_int_equal(ctl(f, "fault inject host-drop " SUBNQN " --host " FX_HOST_B " --persist"), 1);
	assert_non_null(strstr(f->out, "once, now"));
	assert_int_equal(ctl(f, "fault inject host-drop " SUBNQN), 64);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

static void test_bad_input(void **state)
{
	struct faults_fx *f = *state;
	static const struct faults_bad bad[] = {
		{ "fault inject read-unc " SUBNQN " 9", 2, "namespace 9 not found" },
		{ "fault inject read-unc nqn.2026-12.io.blox:none 1", 2, "not found" },
		{ "fault inject read-unc " SUBNQN " 1 --lba 4096", 1, "past the end" },
		{ "fault inject read-unc " SUBNQN " 1 --lba 4000 --nlb 97", 1, "past the end" },
		{ "fault inject read-unc " SUBNQN " 1 --nlb 0", 64, "at least one" },
		{ "fault inject read-unc " SUBNQN " 1 --probability 1.5", 64, "at most 1" },
		{ "fault inject read-unc " SUBNQN " 1 --probability -0.1", 64, "above 0" },
		{ "fault inject read-unc " SUBNQN " 1 --probability x", 64, "not a number" },
		{ "fault inject read-unc " SUBNQN " 1 --lba x", 64, "not a number" },
		{ "fault inject bogus " SUBNQN " 1", 1, "unknown fault kind" },
		{ "fault inject read-unc " SUBNQN, 64, "required" },
		{ "fault inject read-unc " SUBNQN " 1 --frobnicate 3", 64, "unknown option" },
		{ "fault clear 77", 2, "fault 77 not found" },
		{ "fault clear", 64, "--all" },
		{ "fault clear 3 --all", 64, "--all" },
	};

	faults_expect_refused(f, bad, sizeof(bad) / sizeof(bad[0]));
}

static void test_persist(void **state)
{
	struct faults_fx *f = *state;

	assert_int_equal(ctl(f, "fault inject read-unc " SUBNQN " 1 --lba 7 --persist"), 0);
	assert_int_equal(ctl(f, "fault inject write-fail " SUBNQN " 1 --lba 7"), 0);
	faults_restart(f, subsystems, fixture_setup);
	assert_non_null(strstr(f->out, "read-unc"));
	assert_non_null(strstr(f->out, "kept"));
	assert_null(strstr(f->out, "write-fail"));
	assert_int_equal(INI_SC_CODE(rw(f, false, 1, 7, 1, NULL)),
			 INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
	assert_int_equal(rw(f, true, 1, 7, 1, NULL), 0);
	/* Cleared: gone from the file too. */
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	faults_restart(f, subsystems, fixture_setup);
	assert_non_null(strstr(f->out, "no faults"));
}

/* The next erase on a die of a registered device fails: GC retires its superblock. */
static void test_erase_fail(void **state)
{
	struct faults_fx *f = *state;
	uint64_t fired, seen, bad = 0, retired = 0;
	json_object *o, *nss, *n, *sub, *v;
	uint8_t *w = f->buf + 32 * BLK;
	uint32_t id;
	bool spent;

	assert_int_equal(ctl(f, "device create flash --channels 1 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 48 --blocks-per-plane 32"), 0);
	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 4 --size 4M --device flash "
				"--isolation chip:2"), 0);
	assert_int_equal(ctl(f, "fault inject erase-fail --device flash --die 9"), 1);
	assert_non_null(strstr(f->out, "dies 0 to 1"));
	assert_int_equal(ctl(f, "fault inject erase-fail --device nosuch --die 0"), 2);
	assert_int_equal(ctl(f, "fault inject erase-fail --device flash --die 1 --count 1"), 0);
	id = injected(f);
	/* Overwrite the namespace until GC has erased: 12 times its size. */
	for (uint32_t i = 0; i < 12 * (4u << 20) / (32 * BLK); i++) {
		memset(w, (int)(i & 0xff), 32 * BLK);
		int st = ini_write(f->c->io[0], 4, (i * 32) % 1024, 32, w, 32 * BLK, false);

		if (st) {
			ctl(f, "stats " SUBNQN " 4");
			fail_msg("write %u: status %#x\n%s", i, st, f->out);
		}
	}
	assert_int_equal(ini_flush(f->c->io[0], 4), 0);
	/* GC erases behind the writes: wait for the one that fails (its retirement with it). */
	for (int i = 0; i < 300; i++) {
		counts(f, id, &fired, &seen, &spent);
		if (fired)
			break;
		fx_sleep_ms(50);
	}
	assert_int_equal(fired, 1);
	assert_true(spent);
	/* The block went bad, its superblock is retired (as the erase completes); the data is intact. */
	for (int i = 0; i < 300 && !retired; i++) {
		if (i)
			fx_sleep_ms(50);
		assert_int_equal(ctl(f, "--json stats " SUBNQN " 4"), 0);
		o = json_tokener_parse(f->out);
		assert_non_null(o);
		assert_true(json_object_object_get_ex(o, "namespaces", &nss));
		n = json_object_array_get_idx(nss, 0);
		if (json_object_object_get_ex(n, "nand", &sub) &&
		    json_object_object_get_ex(sub, "grown_bad_blocks", &v))
			bad = (uint64_t)json_object_get_int64(v);
		if (json_object_object_get_ex(n, "ftl", &sub) &&
		    json_object_object_get_ex(sub, "superblocks_retired", &v))
			retired = (uint64_t)json_object_get_int64(v);
		json_object_put(o);
	}
	assert_int_equal(bad, 1);
	assert_int_equal(retired, 1);
	for (uint32_t lba = 0; lba < 1024; lba += 32) {
		uint32_t last = 12 * (4u << 20) / (32 * BLK) - 32 + lba / 32; /* its last write */

		assert_int_equal(ini_read(f->c->io[0], 4, lba, 32, f->buf, 32 * BLK), 0);
		for (uint32_t k = 0; k < 32 * BLK; k++)
			if (f->buf[k] != (uint8_t)(last & 0xff))
				fail_msg("LBA %u: byte %u is %u, want %u", lba, k, f->buf[k], last & 0xff);
	}
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	/* A failed die: every read of data on it fails (a 128 KiB read spans both dies). */
	assert_int_equal(ctl(f, "fault inject die-fail --device flash --die 5"), 1);
	assert_int_equal(ctl(f, "fault inject die-fail --device flash --die 0"), 0);
	assert_int_equal(INI_SC_CODE(rw(f, false, 4, 0, 32, NULL)),
			 INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

/*
 * A program that fails (program-fail on a die): the host sees no error, the
 * FTL writes the data elsewhere and retires the superblock once GC emptied
 * it; stats count the failure, the grown bad block and the retirement, and
 * every LBA reads what was last written.
 */
static void test_program_fail(void **state)
{
	struct faults_fx *f = *state;
	uint8_t *w = f->buf + 32 * BLK;
	uint64_t fired, seen, retired = 0;
	uint32_t id, writes = 2 * (4u << 20) / (32 * BLK);
	bool spent;

	assert_int_equal(ctl(f, "device create pflash --channels 1 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 48 --blocks-per-plane 32"), 0);
	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 6 --size 4M --device pflash "
				"--isolation chip:2"), 0);
	assert_int_equal(ctl(f, "fault inject program-fail --device pflash --die 0 --count 1"), 0);
	id = injected(f);
	for (uint32_t i = 0; i < writes; i++) {
		int st;

		memset(w, (int)(i & 0xff), 32 * BLK);
		st = ini_write(f->c->io[0], 6, (i * 32) % 1024, 32, w, 32 * BLK, false);
		if (st)
			fail_msg("write %u: status %#x", i, st);
	}
	assert_int_equal(ini_flush(f->c->io[0], 6), 0); /* waits for the failed page's data to move */
	counts(f, id, &fired, &seen, &spent);
	assert_int_equal(fired, 1);
	assert_true(ns_stat(f, 6, "ftl", "program_failures") >= 1);
	assert_int_equal(ns_stat(f, 6, "nand", "grown_bad_blocks"), 1);
	for (int i = 0; i < 300 && !retired; i++) {
		if (i)
			fx_sleep_ms(50);
		retired = ns_stat(f, 6, "ftl", "superblocks_retired");
	}
	assert_int_equal(retired, 1);
	for (uint32_t lba = 0; lba < 1024; lba += 32) {
		uint32_t last = writes - 32 + lba / 32;

		assert_int_equal(ini_read(f->c->io[0], 6, lba, 32, f->buf, 32 * BLK), 0);
		for (uint32_t k = 0; k < 32 * BLK; k++)
			if (f->buf[k] != (uint8_t)(last & 0xff))
				fail_msg("LBA %u: byte %u is %u, want %u", lba, k, f->buf[k], last & 0xff);
	}
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

/* Block @lba as written in round @r: its LBA and round in every word. */
static void lba_fill(uint8_t *b, uint32_t lba, uint32_t r)
{
	for (uint32_t k = 0; k < BLK / 4; k++) {
		uint32_t v = k & 1 ? r : lba;

		memcpy(b + 4 * k, &v, 4);
	}
}

/*
 * A die taken offline (die-offline on a die of a registered device): every
 * op on it fails. The LBAs whose data was there read as Unrecovered Read
 * Error (logged with their LBA, counted as media errors), every other one
 * reads its data; the FTL stops writing there, so every LBA written again
 * reads back; SMART's spare drops; stats count the die and what it held.
 */
static void test_die_offline(void **state)
{
	struct faults_fx *f = *state;
	static struct nvme_error_log_page e[64];
	struct nvme_smart_log sl;
	uint8_t *w = f->buf + 32 * BLK, want[BLK];
	uint64_t media0, fired, seen;
	uint32_t id, failed = 0, last_failed = UINT32_MAX;
	bool spent;

	assert_int_equal(ctl(f, "device create oflash --channels 2 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 48 --blocks-per-plane 32"), 0);
	/* 40% over-provisioning: the capacity still fits on three dies of four. */
	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 7 --size 4M --device oflash "
				"--isolation chip:4 --op-percent 40"), 0);
	assert_int_equal(ctl(f, "fault inject die-offline --device oflash --die 4"), 1);
	assert_non_null(strstr(f->out, "dies 0 to 3"));
	assert_int_equal(ctl(f, "fault inject die-offline --device nosuch --die 0"), 2);
	for (uint32_t lba = 0; lba < 1024; lba += 32) {
		for (uint32_t k = 0; k < 32; k++)
			lba_fill(w + k * BLK, lba + k, 1);
		assert_int_equal(ini_write(f->c->io[0], 7, lba, 32, w, 32 * BLK, false), 0);
	}
	assert_int_equal(ini_flush(f->c->io[0], 7), 0);
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_SMART, 7, 0, &sl, sizeof(sl)), 0);
	media0 = u128(sl.media_errors);
	assert_int_equal(sl.avail_spare, 100);
	assert_int_equal(ns_stat(f, 7, "ftl", "dies_offline"), 0);

	assert_int_equal(ctl(f, "fault inject die-offline --device oflash --die 1"), 0);
	id = injected(f);
	/* Each LBA alone: its data, or Unrecovered Read Error when its only copy was on die 1. */
	for (uint32_t lba = 0; lba < 1024; lba++) {
		uint16_t st = rw(f, false, 7, lba, 1, NULL);

		if (st) {
			assert_int_equal(INI_SC_CODE(st), INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
			failed++;
			last_failed = lba;
			continue;
		}
		lba_fill(want, lba, 1);
		assert_memory_equal(f->buf, want, BLK);
	}
	print_message("die-offline: %u of 1024 LBAs read as errors\n", failed);
	/* A quarter of the data was on the die (striped over four), not all of it. */
	assert_true(failed > 1024 / 8 && failed < 1024 / 2);
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_ERROR, 0, 0, e, sizeof(e)), 0);
	assert_int_equal(e[0].lba, last_failed);
	assert_int_equal(e[0].nsid, 7);
	assert_int_equal((e[0].status_field >> 1) & 0x7ff, (NVME_SCT_MEDIA << 8) | NVME_SC_READ_ERROR);
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_SMART, 7, 0, &sl, sizeof(sl)), 0);
	assert_int_equal(u128(sl.media_errors), media0 + failed);
	assert_true(sl.avail_spare < 100); /* the die took spare: more superblocks hold the data */
	assert_int_equal(ns_stat(f, 7, "ftl", "dies_offline"), 1);
	assert_true(ns_stat(f, 7, "ftl", "offline_units") >= failed);
	assert_true(ns_stat(f, 7, "ftl", "offline_spare_superblocks") > 0);
	assert_false(ns_stat(f, 7, "ftl", "read_only"));
	counts(f, id, &fired, &seen, &spent);
	assert_true(fired > 0);
	assert_false(spent);

	/* Writes go on on the other dies: all of it written again reads back. */
	for (uint32_t lba = 0; lba < 1024; lba += 32) {
		for (uint32_t k = 0; k < 32; k++)
			lba_fill(w + k * BLK, lba + k, 2);
		assert_int_equal(ini_write(f->c->io[0], 7, lba, 32, w, 32 * BLK, false), 0);
	}
	assert_int_equal(ini_flush(f->c->io[0], 7), 0);
	for (uint32_t lba = 0; lba < 1024; lba += 32) {
		assert_int_equal(ini_read(f->c->io[0], 7, lba, 32, f->buf, 32 * BLK), 0);
		for (uint32_t k = 0; k < 32; k++) {
			lba_fill(want, lba + k, 2);
			if (memcmp(f->buf + k * BLK, want, BLK))
				fail_msg("LBA %u: not what was written again", lba + k);
		}
	}
	assert_int_equal(ctl(f, "stats " SUBNQN " 7"), 0);
	assert_non_null(strstr(f->out, "dies offline 1"));
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

/*
 * Die faults on a namespace's own device, named by NQN NSID: die-offline on
 * die 1 of a nand namespace with 4 dies, as on a registered device's, its
 * spare now below the threshold (SMART's critical warning), writes going
 * on; a namespace without a NAND device of its own, a die past its dies, one
 * that is not there: refused.
 */
static void test_die_offline_own(void **state)
{
	struct faults_fx *f = *state;
	struct nvme_smart_log sl;
	uint8_t *w = f->buf + 32 * BLK, want[BLK];
	uint32_t failed = 0;

	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 8 --size 4M --channels 2 "
				"--dies-per-channel 2 --planes 1 --pages-per-block 48 "
				"--blocks-per-plane 32 --op-percent 30 --store ram"), 0);
	assert_int_equal(ctl(f, "fault inject die-offline " SUBNQN " 1 --die 0"), 4);
	assert_non_null(strstr(f->out, "no NAND device of its own"));
	assert_int_equal(ctl(f, "fault inject die-offline " SUBNQN " 8 --die 4"), 1);
	assert_non_null(strstr(f->out, "dies 0 to 3"));
	assert_int_equal(ctl(f, "fault inject die-offline " SUBNQN " 9 --die 0"), 2);
	assert_int_equal(ctl(f, "fault inject die-offline " SUBNQN " 8"), 64); /* no --die */
	for (uint32_t lba = 0; lba < 1024; lba += 32) {
		for (uint32_t k = 0; k < 32; k++)
			lba_fill(w + k * BLK, lba + k, 3);
		assert_int_equal(ini_write(f->c->io[0], 8, lba, 32, w, 32 * BLK, false), 0);
	}
	assert_int_equal(ini_flush(f->c->io[0], 8), 0);
	assert_int_equal(ctl(f, "fault inject die-offline " SUBNQN " 8 --die 1"), 0);
	assert_non_null(strstr(f->out, SUBNQN "/8"));
	for (uint32_t lba = 0; lba < 1024; lba++) {
		uint16_t st = rw(f, false, 8, lba, 1, NULL);

		if (st) {
			assert_int_equal(INI_SC_CODE(st), INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
			failed++;
			continue;
		}
		lba_fill(want, lba, 3);
		assert_memory_equal(f->buf, want, BLK);
	}
	assert_true(failed > 1024 / 8 && failed < 1024 / 2);
	assert_int_equal(ns_stat(f, 8, "ftl", "dies_offline"), 1);
	/*
	 * At 30% over-provisioning the die takes 6 of its 7 spare superblocks:
	 * Available Spare 14%, below its threshold (16%): the critical warning's
	 * spare bit is on (the event follows from it as for retirements); writes
	 * still fit on the three dies left.
	 */
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_SMART, 8, 0, &sl, sizeof(sl)), 0);
	assert_int_equal(sl.avail_spare, 14);
	assert_int_equal(sl.spare_thresh, 16);
	assert_true(sl.critical_warning & NVME_SMART_CRIT_SPARE);
	assert_false(ns_stat(f, 8, "ftl", "read_only"));
	for (uint32_t lba = 0; lba < 1024; lba += 32) {
		for (uint32_t k = 0; k < 32; k++)
			lba_fill(w + k * BLK, lba + k, 4);
		assert_int_equal(ini_write(f->c->io[0], 8, lba, 32, w, 32 * BLK, false), 0);
	}
	assert_int_equal(ini_flush(f->c->io[0], 8), 0);
	for (uint32_t lba = 0; lba < 1024; lba++) {
		assert_int_equal(rw(f, false, 8, lba, 1, NULL), 0);
		lba_fill(want, lba, 4);
		assert_memory_equal(f->buf, want, BLK);
	}
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

int main(void)
{
	static const struct fx_group g = FAULTS_GROUP(subsystems, fixture_setup);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_unc),
		cmocka_unit_test(test_write_fail_count),
		cmocka_unit_test(test_probability_seeded),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_host_drop),
		/* Restarts on new ports: before anything writes the state file (qos set). */
		cmocka_unit_test(test_persist),
		cmocka_unit_test(test_start_conditions),
		cmocka_unit_test(test_erase_fail),
		cmocka_unit_test(test_program_fail),
		cmocka_unit_test(test_die_offline),
		cmocka_unit_test(test_die_offline_own),
	};

	return FX_MAIN(&g, tests);
}
