/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for garbage collection and wear leveling (ftl/gc.c, with
 * layout.c's allocation). This file: random overwrite against a shadow of
 * every LBA under greedy and cost-benefit victims, concurrent reads and
 * writes through a tiny CMT while GC runs, fills up to the last unit,
 * trims before and during GC, a GC victim whose last page is still being
 * programmed; main(). The others:
 *   gc_wear.c    dynamic (least-worn) allocation, and static wear leveling
 *                against the same workload with it off
 *   gc_batch.c   batched GC (gc.c): CMTs of 1-4 translation pages against
 *                the shadow, translation-page reads and write-backs per run
 *                bounded by the victim's translation pages, host writes and
 *                trims racing a batch, power loss in the middle of batches
 *   gc_pacing.c  levels and pacing (gc_policy.c): sustained random writes
 *                paced below the foreground level never reach urgent, GC
 *                stops on an idle full device with the default levels, the
 *                levels fit the spare on any OP, a GC storm takes its
 *                victims with space plentiful
 */
#include "gc_tests.h"

void expect_gc_worked(struct fx *x)
{
	struct ftl_stats s = fx_stats(x);

	fx_verify_all(x);
	fx_check_invariants(x, true);
	assert_true(s.gc_runs > 0);
	assert_true(s.flash_erases >= s.gc_runs * x->lay.stripe);
	assert_true(s.gc_units_moved > 0);
	assert_true(ftl_waf(x->f) > 1.0);
	assert_true(s.free_superblocks > 0);
}

/* Random writes; the fewest free superblocks seen while GC was idle. */
static uint32_t overwrite_watch(struct fx *x, uint32_t span, uint32_t maxnr, uint64_t units)
{
	uint32_t min_free = UINT32_MAX;
	uint64_t done = 0;

	while (done < units) {
		uint32_t nr = 1 + fx_below(x, maxnr), lba = fx_below(x, span - nr + 1);

		fx_write(x, lba, nr);
		done += nr;
		if (fx_activity(x).free_sbs < min_free)
			min_free = fx_activity(x).free_sbs;
	}
	return min_free;
}

static void gc_random(enum ftl_gc_policy policy)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	uint32_t min_free;

	fx_cfg_default(&cfg);
	cfg.gc_policy = policy;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, x->cap);
	fx_verify_all(x);
	min_free = overwrite_watch(x, x->cap, 8, 2ull * x->cap);
	/* Host streams leave the last free superblock to GC. */
	assert_true(min_free >= 1);
	expect_gc_worked(x);
	fx_free(x);
}

static void test_gc_greedy(void **state)
{
	(void)state;
	gc_random(FTL_GC_GREEDY);
}

static void test_gc_cost_benefit(void **state)
{
	(void)state;
	gc_random(FTL_GC_COST_BENEFIT);
}

/* ---- queue depth 8 through a 2-entry CMT while GC runs ---- */

#define QD 8

struct qd_slot {
	struct fx_req r;
	uint32_t want[8];
	uint8_t buf[8 * FTL_UNIT];
};

static void test_gc_concurrent_small_cmt(void **state)
{
	static struct qd_slot slots[QD];
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	uint8_t *busy;
	int count = 0, submitted = 0;
	bool active[QD] = { false };
	uint32_t writes = 0;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 2 * FTL_UNIT;
	cfg.gc_policy = FTL_GC_COST_BENEFIT;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, x->cap);
	busy = x->aux[0] = calloc(x->cap, 1);
	assert_non_null(busy);
	while (writes < 3 * x->cap / 2) {
		for (int i = 0; i < QD; i++) {
			struct qd_slot *s = &slots[i];
			uint32_t nr, lba, u;
			bool wr;

			if (active[i]) {
				if (!s->r.done)
					continue;
				active[i] = false;
				assert_int_equal(s->r.io.status, 0);
				for (u = 0; u < s->r.io.nr; u++) {
					uint32_t l = s->r.io.lba + u;

					if (s->r.io.op == FTL_IO_READ &&
					    fx_decode(s->buf + (size_t)u * FTL_UNIT, l) != s->want[u])
						fail_msg("lba %u: version %d, want %u", l,
							 (int)fx_decode(s->buf + (size_t)u * FTL_UNIT, l),
							 s->want[u]);
					busy[l] = 0;
				}
			}
			nr = 1 + fx_below(x, 8);
			lba = fx_below(x, x->cap - nr + 1);
			for (u = 0; u < nr && !busy[lba + u]; u++)
				;
			if (u < nr)
				continue; /* overlaps an I/O in flight: try later */
			wr = fx_below(x, 10) < 6;
			for (u = 0; u < nr; u++) {
				busy[lba + u] = 1;
				if (wr) {
					x->shadow[lba + u] = (uint32_t)++x->ver;
					fx_fill(s->buf + (size_t)u * FTL_UNIT, lba + u,
						x->shadow[lba + u]);
				}
				s->want[u] = x->shadow[lba + u];
			}
			writes += wr ? nr : 0;
			s->r.count = &count;
			assert_int_equal(fx_submit(x, &s->r, wr ? FTL_IO_WRITE : FTL_IO_READ, lba, nr,
						   s->buf, false),
					 0);
			active[i] = true;
			submitted++;
		}
		fx_wait_count(x, &count, count + 1);
	}
	fx_wait_count(x, &count, submitted);
	assert_true(fx_stats(x).cmt_writebacks > 0);
	assert_true(fx_stats(x).flash_tp_reads > 0);
	expect_gc_worked(x);
	fx_free(x);
}

/* ---- full devices ---- */

/* 95% and then 100% full, GC at the foreground and urgent levels. */
static void test_gc_nearly_full(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	uint32_t span;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.wl_threshold = 4;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	span = x->cap / 100 * 95;
	fx_seq_fill(x, 0, span);
	overwrite_watch(x, span, 32, x->cap);
	fx_verify_all(x);
	fx_seq_fill(x, span, x->cap - span);
	overwrite_watch(x, x->cap, 4, x->cap / 2);
	/* FUA and the cache off still complete on a full device. */
	fx_write_fua(x, 7, 3);
	ftl_set_volatile_cache(x->f, false);
	overwrite_watch(x, x->cap, 8, 2000);
	ftl_set_volatile_cache(x->f, true);
	expect_gc_worked(x);
	fx_free(x);
}

/* ---- trim and GC ---- */

static void test_gc_after_trim(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;
	uint32_t half;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_seq_fill(x, 0, x->cap);
	half = x->cap / 2;
	for (uint32_t lba = 0; lba < half; lba += 512)
		fx_trim(x, lba, half - lba < 512 ? half - lba : 512);
	a = fx_stats(x);
	/* Overwrite the live half: the trimmed space is free for GC's taking. */
	overwrite_watch(x, x->cap - half, 8, x->cap);
	fx_verify_all(x); /* the trimmed half still reads zeroes */
	b = fx_stats(x);
	assert_true(b.gc_runs > a.gc_runs);
	/* Half the device is empty: GC moves far less than it writes. */
	assert_true(b.gc_units_moved - a.gc_units_moved < (b.host_writes - a.host_writes) / 2);
	/* Trims during GC. */
	for (int i = 0; i < 200; i++) {
		uint32_t lba = fx_below(x, x->cap - 16);

		if (i % 2)
			fx_trim(x, lba, 1 + fx_below(x, 16));
		else
			fx_write(x, lba, 1 + fx_below(x, 16));
	}
	overwrite_watch(x, x->cap, 8, x->cap / 2);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/*
 * A host trimming, again and again, what is already unmapped (a
 * filesystem's periodic discard) must not use up the space: with no clean
 * shutdown in between, writes must keep completing.
 */
static void test_repeated_trims_keep_space(void **state)
{
	struct fx_geo g;
	struct fx *x;
	uint32_t span;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	span = x->cap / 100 * 90;
	fx_seq_fill(x, 0, span);
	/* As many trims as the device has units, in 14 rounds. */
	for (int round = 0; round < 14; round++) {
		for (uint32_t lba = span; lba < x->cap; lba++)
			fx_trim(x, lba, 1); /* all unmapped already */
		overwrite_watch(x, span, 8, 1000);
	}
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/*
 * GC picks a superblock whose last page is still queued for programming:
 * the GC read must not see an erased page and drop the units on it.
 */
static void test_gc_victim_page_still_programming(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	uint32_t ups;
	int32_t a;

	(void)state;
	fx_cfg_default(&cfg);
	/* Levels of every superblock: collect as soon as a victim is worth it. */
	cfg.gc_bg_permille = 1000000;
	cfg.gc_idle_permille = 1000000;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	ups = x->lay.units_per_sb;
	fx_seq_fill(x, 0, ups); /* fills the first sequential superblock */
	a = fx_stream(x, FTL_STREAM_SEQ).sb;
	assert_int_equal(fx_stream(x, FTL_STREAM_SEQ).next, ups);
	/* Keep only the units of its last page. */
	fx_trim(x, 0, ups - x->lay.slots);
	/* The next unit closes it: GC takes it at once. */
	fx_write(x, ups, 1);
	assert_int_equal(fx_sb(x, a).state, FTL_SB_GC);
	{
		/* GC has it, and the program of its last page has not happened yet. */
		struct nand_addr last;

		ftl_inspect_page_addr(x->f, (a + 1) * ups / x->lay.slots - 1, &last);
		assert_true(x->store->blocks[nand_block_index(&x->nc.geo, &last)].write_ptr <=
			    last.page);
	}
	fx_drain(x);
	assert_true(fx_stats(x).gc_runs >= 1);
	fx_verify(x, ups - x->lay.slots, x->lay.slots + 1);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_gc_greedy),
		FX_TEST(test_gc_cost_benefit),
		FX_TEST(test_gc_concurrent_small_cmt),
		FX_TEST(test_gc_nearly_full),
		FX_TEST(test_gc_after_trim),
		FX_TEST(test_repeated_trims_keep_space),
		FX_TEST(test_gc_victim_page_still_programming),
		FX_TEST(test_dynamic_wl_alloc),
		FX_TEST(test_static_wl),
		FX_TEST(test_gc_tiny_cmt_shadow),
		FX_TEST(test_gc_tp_io_per_run),
		FX_TEST(test_gc_batch_races_host),
		FX_TEST(test_gc_fg_pacing),
		FX_TEST(test_gc_stops_when_full),
		FX_TEST(test_gc_levels_reachable),
		FX_TEST(test_gc_storm),
		FX_TEST(test_gc_batch_crash),
		FX_TEST(test_gc_two_victims),
		FX_TEST(test_gc_crash_two_victims),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
