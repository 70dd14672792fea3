/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for durability and recovery (ftl/write.c's flush and FUA,
 * ftl/recovery.c), mostly on a file store in a temporary directory. This
 * file: after a flush or a FUA write every page is programmed and in the
 * store; a clean shutdown comes back from its checkpoint alone; main().
 * The others:
 *   recovery_crash.c   an unclean stop comes back from the newest complete
 *                      checkpoint plus the OOB scan, with every flushed LBA
 *                      intact and every unflushed one holding its flushed
 *                      data or one of its later writes, never garbage;
 *                      trims survive a crash once flushed; a torn or
 *                      missing checkpoint falls back to the older one (or
 *                      to a full scan); a GC-heavy run with translation-page
 *                      write-backs recovers with a mapping whose every unit
 *                      has its validity bit; ten crash/recover cycles with
 *                      I/O in flight at the crash
 *   recovery_reopen.c  restarts reopen the streams' superblocks: after a
 *                      clean stop at the checkpoint's exact positions, after
 *                      a crash at the newest superblock of each stream past
 *                      its last programmed page, none left partly written
 *   recovery_holes.c   a lost page before that position padded; in doubt
 *                      (holes too wide, a garbage page) the superblock stays
 *                      closed; a version 1 checkpoint still loads; crash
 *                      cycles reopen the streams every time
 */
#include "recovery_tests.h"

/* ---- flush and FUA ---- */

static void expect_all_programmed(const struct fx *x)
{
	struct ftl_activity a = fx_activity(x);

	assert_int_equal(a.pages_in_flight, 0);
	assert_int_equal(a.done_through, a.next_ticket);
	for (int s = 0; s < FTL_STREAMS; s++)
		assert_false(fx_stream(x, s).filling);
	assert_int_equal(a.wbufs_busy, 0);
}

/* The store holds @lba's current data at its PPN. */
static void expect_in_store(const struct fx *x, uint32_t lba)
{
	uint32_t ppn = fx_ppn_resident(x, lba);
	uint8_t *page = fx_tmp_alloc(x->nc.geo.page_size);
	struct nand_addr a;

	ftl_inspect_page_addr(x->f, ppn / x->lay.slots, &a);
	assert_int_equal(x->store->ops->read(x->store, nand_page_index(&x->nc.geo, &a), page,
					     NULL),
			 0);
	assert_int_equal(fx_decode(page + (size_t)(ppn % x->lay.slots) * FTL_UNIT, lba),
			 x->shadow[lba]);
	fx_tmp_free(page);
}

static void test_flush_and_fua(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	/* Volatile cache: a write completes while its page is still filling. */
	fx_write(x, 0, 5);
	fx_write(x, 3000, 2);
	assert_non_null(ftl_inspect_buffered(x->f, fx_ppn_resident(x, 4)));
	assert_true(fx_stream(x, FTL_STREAM_RAND).filling);
	a = fx_stats(x);
	fx_flush(x);
	expect_all_programmed(x);
	assert_int_equal(fx_stats(x).flushes, a.flushes + 1);
	assert_int_equal(fx_stats(x).units_padded - a.units_padded, 3 + 2);
	for (uint32_t u = 0; u < 5; u++)
		expect_in_store(x, u);
	expect_in_store(x, 3001);
	/* Nothing buffered: a flush pads nothing. */
	a = fx_stats(x);
	fx_flush(x);
	expect_all_programmed(x);
	assert_int_equal(fx_stats(x).units_padded, a.units_padded);
	assert_int_equal(fx_stats(x).flash_programs, a.flash_programs);

	/* FUA: complete only once on flash. */
	fx_write_fua(x, 200, 1);
	expect_all_programmed(x);
	expect_in_store(x, 200);
	/* Volatile cache off: every write is durable at completion. */
	ftl_set_volatile_cache(x->f, false);
	fx_write(x, 300, 3);
	expect_all_programmed(x);
	expect_in_store(x, 302);
	ftl_set_volatile_cache(x->f, true);
	fx_write(x, 400, 1);
	assert_non_null(ftl_inspect_buffered(x->f, fx_ppn_resident(x, 400)));
	fx_verify(x, 0, 5);
	fx_verify(x, 200, 1);
	fx_verify(x, 300, 3);
	fx_verify(x, 400, 1);
	fx_free(x);
}

/* ---- life cycle ---- */

struct sd {
	bool done;
	int status;
};

static void sd_cb(void *arg, int status)
{
	struct sd *s = arg;

	s->done = true;
	s->status = status;
}

struct fx *rec_new(const struct ftl_config *cfg)
{
	struct fx_geo g;

	fx_geo_small(&g);
	return fx_new(&g, cfg, true);
}

/* ---- clean shutdown ---- */

static void test_clean_shutdown(void **state)
{
	struct fx *x;
	struct ftl_stats before, after;
	struct sd s = { 0 };
	struct fx_req r = { 0 };

	(void)state;
	x = rec_new(NULL);
	fx_seq_fill(x, 0, 4000);
	fx_random_writes(x, x->cap, 8, 6000);
	fx_trim(x, 100, 50);
	fx_write(x, 120, 3); /* unflushed: the shutdown flushes it */
	before = fx_stats(x);

	assert_int_equal(ftl_shutdown(x->f, sd_cb, &s), 0);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 0, 1, x->wbuf, false), -ESHUTDOWN);
	assert_int_equal(ftl_shutdown(x->f, sd_cb, &s), -EALREADY);
	fx_run_until(x, &s.done, "shutdown never completed");
	assert_true(s.done);
	assert_int_equal(s.status, 0);
	assert_false(r.done);
	fx_crash(x);
	fx_restart(x);

	after = fx_stats(x);
	assert_true(after.recovered_from_checkpoint);
	assert_int_equal(after.recovered_units, 0);
	assert_int_equal(after.host_writes, before.host_writes);
	assert_int_equal(after.units_written_host, before.units_written_host);
	fx_check_invariants(x, true);
	fx_verify_all(x);
	/* It keeps working, and comes back again. */
	fx_random_writes(x, x->cap, 8, 3000);
	fx_trim(x, 2000, 10);
	clean_restart(x);
	assert_true(fx_stats(x).recovered_from_checkpoint);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_flush_and_fua),
		FX_TEST(test_clean_shutdown),
		FX_TEST(test_unclean_format_checkpoint_only),
		FX_TEST(test_unclean_unflushed),
		FX_TEST(test_unclean_trims),
		FX_TEST(test_torn_checkpoint_garbage),
		FX_TEST(test_torn_checkpoint_erased),
		FX_TEST(test_no_checkpoint_full_scan),
		FX_TEST(test_gc_heavy_crash),
		FX_TEST(test_recovery_replay_evicts),
		FX_TEST(test_crash_cycles),
		FX_TEST(test_reopen_after_clean_shutdown),
		FX_TEST(test_reopen_after_crash),
		FX_TEST(test_reopen_hole_padded),
		FX_TEST(test_reopen_hole_wide_closed),
		FX_TEST(test_reopen_garbage_closed),
		FX_TEST(test_checkpoint_v1_loads),
		FX_TEST(test_reopen_crash_cycles),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
