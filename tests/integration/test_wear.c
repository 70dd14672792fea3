/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flash that wears, seen from a host over loopback (docs/FAULTS.md). Two
 * nand namespaces with the reliability model on, their data ageing fast:
 * - nsid 1, the default ECC (60 bits per 1 KiB), data ageing 10^8 times
 *   faster than the clock (a second: three years): what was written reads
 *   back, retries or not, for the first half minute or so;
 * - nsid 2, an ECC of 1 bit and no read retry, ageing 10^9 times faster:
 *   a read of data seconds old fails with Unrecovered Read Error (SCT 2h,
 *   SC 81h), and so does the same read again, until the LBA is deallocated
 *   (then it reads zeroes); nsid 1 is untouched by nsid 2's errors. Each
 *   failure is an Error Information log entry naming the namespace, the
 *   first LBA that failed, the queue and command; SMART counts them as media errors;
 *   bloxctl stats (text and --json) counts the uncorrectable reads;
 * - nsid 3, every erase failing: GC's victims are retired one after the
 *   other until the spare is gone and writes fail (Capacity Exceeded);
 *   SMART's Available Spare falls to 0 below its threshold, Critical
 *   Warning sets bits 0 and 3, and a host that enabled them gets both
 *   asynchronous events (Spare Below Threshold, then NVM Subsystem
 *   Reliability once the log was read); stats shows the retirements and
 *   READ-ONLY. Reads go on.
 * The config keys are the ones docs/bloxd.md lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:wear"
#define BLK 4096u
#define NBLK 256u

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"nand\", \"size\": \"32M\", \"nand\": {"
	"\"channels\": 1, \"dies_per_channel\": 4, \"pages_per_block\": 96,"
	"\"reliability\": true, \"aging\": 100000000, \"reliability_seed\": 7}},"
	"{\"nsid\": 2, \"backend\": \"nand\", \"size\": \"32M\", \"nand\": {"
	"\"channels\": 1, \"dies_per_channel\": 4, \"pages_per_block\": 96,"
	"\"reliability\": true, \"aging\": 1000000000, \"ecc_bits\": 1,"
	"\"read_retries\": 0}},"
	"{\"nsid\": 3, \"backend\": \"nand\", \"size\": \"8M\", \"nand\": {"
	"\"channels\": 1, \"dies_per_channel\": 2, \"pages_per_block\": 48,"
	"\"reliability\": true, \"erase_fail_ppb\": 1000000000}}]}]";

struct fixture {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	struct ini_ctrl *c;
	uint8_t w[NBLK * BLK], r[NBLK * BLK];
	char out[65536];
};

static int fixture_setup(void *arg)
{
	struct fixture *f = arg;

	f->fx.seed = 0x3ea7;
	return fx_ctrl(&f->fx.d, SUBNQN, NULL, 1, NULL, &f->c) ? -1 : 0;
}

static void fixture_teardown(void *arg)
{
	struct fixture *f = arg;

	if (f->c) {
		ini_ctrl_shutdown(f->c);
		ini_ctrl_destroy(f->c);
	}
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 12));
}

/* @nsid's first NBLK blocks written (and flushed: on flash), then left to age. */
static void write_all(struct fixture *f, uint32_t nsid, uint32_t seed)
{
	struct ini_queue *q = f->c->io[0];

	fill(f->w, sizeof(f->w), seed);
	for (uint32_t b = 0; b < NBLK; b += 32)
		assert_int_equal(ini_write(q, nsid, b, 32, f->w + (size_t)b * BLK, 32 * BLK, false),
				 0);
	assert_int_equal(ini_flush(q, nsid), 0);
}

/* Years of retention in a second: the default ECC reads them back, with retries. */
static void test_decay_within_ecc(void **state)
{
	struct fixture *f = *state;
	struct ini_queue *q = f->c->io[0];

	write_all(f, 1, 1);
	sleep(1);
	for (uint32_t b = 0; b < NBLK; b += 32)
		assert_int_equal(ini_read(q, 1, b, 32, f->r + (size_t)b * BLK, 32 * BLK), 0);
	assert_memory_equal(f->r, f->w, sizeof(f->w));
}

/* A weak ECC and no retry: Unrecovered Read Error, again and again; a deallocate ends it. */
static void test_uncorrectable(void **state)
{
	struct fixture *f = *state;
	struct ini_queue *q = f->c->io[0];
	uint16_t want = INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR);
	int st;

	write_all(f, 2, 2);
	sleep(2);
	st = ini_read(q, 2, 0, 1, f->r, BLK);
	assert_true(st > 0);
	assert_int_equal(INI_SC_CODE(st), want);
	st = ini_read(q, 2, 0, 1, f->r, BLK);
	assert_int_equal(INI_SC_CODE(st), want);
	/* Deallocated: nothing on flash to read, zeroes. */
	assert_int_equal(ini_dsm_deallocate(q, 2, 0, 1), 0);
	memset(f->r, 0xa5, BLK);
	assert_int_equal(ini_read(q, 2, 0, 1, f->r, BLK), 0);
	memset(f->w, 0, BLK);
	assert_memory_equal(f->r, f->w, BLK);
	/* The other namespace's device is its own. */
	assert_int_equal(ini_read(q, 1, 0, 1, f->r, BLK), 0);
}

/* The Error Information log's newest entry, and SMART of @nsid. */
static void logs(struct fixture *f, uint32_t nsid, struct nvme_error_log_page *e,
		 struct nvme_smart_log *sl)
{
	static struct nvme_error_log_page ents[64];

	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_ERROR, 0, 0, ents, sizeof(ents)), 0);
	*e = ents[0];
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_SMART, nsid, 0, sl, sizeof(*sl)), 0);
}

static uint64_t u128(const uint8_t v[16])
{
	uint64_t x;

	memcpy(&x, v, sizeof(x));
	return x;
}

/* A JSON object's member @key (a path "a.b" one level deep at most). */
static uint64_t json_u64(json_object *o, const char *obj, const char *key)
{
	json_object *sub, *v;

	assert_true(json_object_object_get_ex(o, obj, &sub));
	if (!json_object_object_get_ex(sub, key, &v))
		return 0; /* proto3 JSON leaves zeroes out */
	return (uint64_t)json_object_get_int64(v);
}

/* bloxctl stats --json of @nsid: its namespace object (put it). */
static json_object *stats_json(struct fixture *f, uint32_t nsid, json_object **root)
{
	json_object *nss;

	assert_int_equal(fx_ctl(&f->fx.d, f->out, sizeof(f->out), "--json stats " SUBNQN " %u", nsid),
			 0);
	*root = json_tokener_parse(f->out);
	assert_non_null(*root);
	assert_true(json_object_object_get_ex(*root, "namespaces", &nss));
	return json_object_array_get_idx(nss, 0);
}

/* An uncorrectable read in the drive's logs and in bloxctl stats. */
static void test_uncorrectable_logged(void **state)
{
	struct fixture *f = *state;
	struct ini_queue *q = f->c->io[0];
	struct nvme_error_log_page e;
	struct nvme_smart_log sl;
	struct ini_req rd;
	json_object *root, *n;
	uint64_t media0, errs0;

	logs(f, 2, &e, &sl);
	media0 = u128(sl.media_errors);
	errs0 = u128(sl.num_err_log_entries);
	assert_true(media0 >= 2); /* test_uncorrectable's */
	write_all(f, 2, 3);
	sleep(2);
	/* 40 and 41 read as zeroes: the first LBA that fails is 42. */
	assert_int_equal(ini_dsm_deallocate(q, 2, 40, 2), 0);
	ini_req_rw(&rd, nvme_cmd_read, 2, 40, 4, f->r, 4 * BLK);
	assert_int_equal(ini_exec(q, &rd), 0);
	assert_int_equal(INI_SC_CODE(ini_status(&rd.cqe)),
			 INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
	logs(f, 2, &e, &sl);
	assert_int_equal(e.error_count, errs0 + 1);
	assert_int_equal(e.nsid, 2);
	assert_int_equal(e.lba, 42);
	assert_int_equal(e.sqid, 1);
	assert_int_equal(e.cmdid, rd.sqe.cid);
	assert_int_equal((e.status_field >> 1) & 0x7ff, (NVME_SCT_MEDIA << 8) | NVME_SC_READ_ERROR);
	assert_int_equal(u128(sl.media_errors), media0 + 1);
	assert_int_equal(u128(sl.num_err_log_entries), errs0 + 1);
	assert_int_equal(sl.critical_warning, 0);
	assert_int_equal(sl.avail_spare, 100);
	assert_true(sl.spare_thresh > 0 && sl.spare_thresh < 100);
	assert_int_equal(sl.percent_used, 0);

	n = stats_json(f, 2, &root);
	assert_true(json_u64(n, "ftl", "uncorrectable_reads") >= 3);
	assert_true(json_u64(n, "nand", "rel_uncorrectable") >= 3);
	assert_true(json_u64(n, "nand", "rel_reads") >= 3);
	json_object_put(root);
	assert_int_equal(fx_ctl(&f->fx.d, f->out, sizeof(f->out), "stats " SUBNQN " 2"), 0);
	assert_non_null(strstr(f->out, "uncorrectable reads"));
	assert_non_null(strstr(f->out, "reads decoded"));
	/* The namespace whose flash is fine shows none of it. */
	assert_int_equal(fx_ctl(&f->fx.d, f->out, sizeof(f->out), "stats " SUBNQN " 1"), 0);
	assert_null(strstr(f->out, "uncorrectable reads"));
}

/* An AER's completion: SMART / Health (1), @info, log page 02h. */
static void expect_smart_aen(struct ini_req *aer, uint32_t info)
{
	assert_int_equal(ini_status(&aer->cqe), 0);
	assert_int_equal(aer->cqe.result & 0x7, NVME_AER_SMART);
	assert_int_equal((aer->cqe.result >> 8) & 0xff, info);
	assert_int_equal((aer->cqe.result >> 16) & 0xff, NVME_LOG_LID_SMART);
}

/* Every erase fails: the spare runs out, SMART warns, the host hears it, writes stop. */
static void test_spare_runs_out(void **state)
{
	struct fixture *f = *state;
	struct ini_queue *q = f->c->io[0];
	struct nvme_error_log_page e;
	struct nvme_smart_log sl;
	struct ini_req aer;
	json_object *root, *n;
	uint32_t cap_blocks = (8u << 20) / BLK, b = 0;
	int st = 0;

	logs(f, 3, &e, &sl);
	assert_int_equal(sl.critical_warning, 0);
	assert_int_equal(sl.avail_spare, 100);
	/* Spare (bit 0) and read-only (bit 3) warnings enabled. */
	assert_int_equal(ini_set_features(f->c->admin, NVME_FEAT_FID_ASYNC_EVENT,
					  NVME_SMART_CRIT_SPARE | NVME_SMART_CRIT_MEDIA, NULL),
			 0);
	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(f->c->admin, &aer), 0);
	/* Overwrite until a write fails: GC collects, every erase fails, superblocks retire. */
	fill(f->w, 32 * BLK, 9);
	for (uint32_t i = 0; i < 64 * cap_blocks / 32 && !st; i++, b = (b + 32) % cap_blocks)
		st = ini_write(q, 3, b, 32, f->w, 32 * BLK, false);
	assert_int_equal(INI_SC_CODE(st), NVME_SC_CAP_EXCEEDED);
	/* The sampler looks once a second: the spare's event comes. */
	assert_int_equal(ini_wait(f->c->admin, &aer), 0);
	expect_smart_aen(&aer, NVME_AER_SMART_SPARE_THRESHOLD);
	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(f->c->admin, &aer), 0);
	/* Reading the log (RAE 0) lets the read-only one out. */
	logs(f, 3, &e, &sl);
	assert_int_equal(sl.critical_warning, NVME_SMART_CRIT_SPARE | NVME_SMART_CRIT_MEDIA);
	assert_int_equal(sl.avail_spare, 0);
	assert_true(sl.spare_thresh > 0);
	assert_int_equal(ini_wait(f->c->admin, &aer), 0);
	expect_smart_aen(&aer, NVME_AER_SMART_SUBSYSTEM_RELIABILITY);
	/* The controller's log warns of the worst namespace. */
	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_SMART, 0xffffffff, 0, &sl,
				     sizeof(sl)), 0);
	assert_int_equal(sl.critical_warning, NVME_SMART_CRIT_SPARE | NVME_SMART_CRIT_MEDIA);
	/* What was written reads back. */
	assert_int_equal(ini_read(q, 3, 0, 32, f->r, 32 * BLK), 0);
	n = stats_json(f, 3, &root);
	assert_true(json_u64(n, "ftl", "superblocks_retired") >= 1);
	assert_true(json_u64(n, "nand", "grown_bad_blocks") >= 1);
	{
		json_object *ftl, *ro;

		assert_true(json_object_object_get_ex(n, "ftl", &ftl));
		assert_true(json_object_object_get_ex(ftl, "read_only", &ro));
		assert_true(json_object_get_boolean(ro));
	}
	json_object_put(root);
	assert_int_equal(fx_ctl(&f->fx.d, f->out, sizeof(f->out), "stats " SUBNQN " 3"), 0);
	assert_non_null(strstr(f->out, "READ-ONLY"));
	assert_non_null(strstr(f->out, "grown bad"));
	/*
	 * Its FTL cannot stop cleanly (no checkpoint can be written where
	 * every erase fails): deleted, so that bloxd's own stop is clean.
	 */
	assert_int_equal(fx_ctl(&f->fx.d, f->out, sizeof(f->out), "ns delete " SUBNQN " 3 --force"),
			 0);
}

int main(void)
{
	static const struct fx_group g = { .subsystems = subsystems,
					   .size = sizeof(struct fixture),
					   .setup = fixture_setup,
					   .teardown = fixture_teardown };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decay_within_ecc),
		cmocka_unit_test(test_uncorrectable),
		cmocka_unit_test(test_uncorrectable_logged),
		cmocka_unit_test(test_spare_runs_out),
	};

	return FX_MAIN(&g, tests);
}
