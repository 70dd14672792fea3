/* SPDX-License-Identifier: BSD-3-Clause */
/* The CMT (LRU, write-back, thrashing), the MDC and hot regions, idle prefetch. */
#include "ftl_tests.h"
/* The hot-region tests drive the FTL's tracker (hot.h) themselves. */
#include "ftl_internal.h"

/* Descriptors in the FTL's MDC. */
static uint32_t mdc_count(const struct fx *x)
{
	struct ftl_mdc_info m;

	ftl_inspect_mdc(x->f, &m);
	return m.count;
}

/* ---- CMT ---- */

void test_cmt_lru_and_writeback(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats s;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 2 * FTL_UNIT;
	cfg.mdc_enabled = false;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	assert_int_equal(x->lay.cmt_pages, 2);
	fx_write(x, 0, 1); /* tp0: miss */
	fx_write(x, 1, 1); /* tp0: hit */
	fx_write(x, 1024, 1); /* tp1: miss */
	fx_verify(x, 0, 1); /* tp0: hit, now most recent */
	s = fx_stats(x);
	assert_int_equal(s.cmt_misses, 2);
	assert_int_equal(s.cmt_hits, 2);
	assert_int_equal(s.cmt_evictions, 0);
	assert_int_equal(s.cmt_writebacks, 0);
	assert_int_equal(s.units_written_tp, 0);

	fx_write(x, 2048, 1); /* tp2: evicts tp1 (LRU), which is dirty */
	s = fx_stats(x);
	assert_int_equal(s.cmt_misses, 3);
	assert_int_equal(s.cmt_evictions, 1);
	assert_int_equal(s.cmt_writebacks, 1);
	assert_int_equal(s.units_written_tp, 1);
	assert_false(fx_tp(x, 1).cached);
	assert_true(fx_tp(x, 0).cached);
	assert_true(fx_tp(x, 2).cached);
	assert_int_not_equal(fx_tp(x, 1).ppn, FTL_UNMAPPED);

	/* tp1 again: from the buffered translation page; evicts tp0. */
	fx_verify(x, 1024, 1);
	s = fx_stats(x);
	assert_int_equal(s.cmt_misses, 4);
	assert_int_equal(s.cmt_writebacks, 2);
	assert_int_equal(s.flash_tp_reads, 0);
	assert_false(fx_tp(x, 0).cached);

	/*
	 * After a flush the translation pages are on flash: a load reads one.
	 * The read that waited for it counts a miss, not a hit as well when
	 * it resumes (its second unit shares the flash read); the next
	 * lookup of the page is a hit.
	 */
	fx_flush(x);
	{
		uint64_t hits = fx_stats(x).cmt_hits, misses = fx_stats(x).cmt_misses;

		fx_verify(x, 0, 2); /* evicts tp2 */
		s = fx_stats(x);
		assert_int_equal(s.cmt_misses, misses + 1);
		assert_int_equal(s.cmt_hits, hits);
		fx_verify(x, 1, 1);
		s = fx_stats(x);
		assert_int_equal(s.cmt_hits, hits + 1);
	}
	assert_int_equal(s.flash_tp_reads, 1);
	assert_int_equal(s.cmt_writebacks, 3);
	fx_verify(x, 2048, 1);
	fx_verify(x, 1024, 1);
	fx_check_invariants(x, true);
	fx_free(x);
}

/*
 * A lookup that misses while the least recently used entry is dirty and
 * the data streams have taken every write buffer page they may (programs
 * in flight, as under GC) writes it back into the pages kept for
 * translation pages instead of waiting behind the writes for a program.
 */
void test_cmt_miss_with_buffer_full(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx_req w[4], r = { 0 };
	struct fx *x;
	uint8_t *wb, *rb;
	uint32_t v;
	int writes = 0;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 3 * FTL_UNIT;
	cfg.mdc_enabled = false;
	cfg.write_buffer_pages = 1;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_write(x, 2048, 1); /* tp2: dirty */
	fx_write(x, 3072, 1); /* tp3: dirty */
	fx_verify(x, 1024, 1); /* tp1: unmapped, clean */
	fx_write(x, 0, 1); /* tp0: evicts tp2 (written back) */
	fx_flush(x); /* no translation page left open */
	assert_false(fx_tp(x, 2).cached);
	assert_true(fx_tp(x, 3).dirty);
	assert_false(fx_tp(x, 1).dirty);

	/* Writes into tp0 take every write buffer page; nothing is programmed
	 * before the driver runs. LRU order: tp3 (dirty), tp1, tp0. */
	wb = x->aux[0] = calloc(4 * FX_MAX_IO, FTL_UNIT);
	rb = x->aux[1] = calloc(1, FTL_UNIT);
	assert_non_null(wb);
	assert_non_null(rb);
	v = (uint32_t)++x->ver;
	for (uint32_t i = 0; i < 4; i++) {
		uint32_t lba = 32 + i * FX_MAX_IO;

		for (uint32_t u = 0; u < FX_MAX_IO; u++)
			fx_fill(wb + ((size_t)i * FX_MAX_IO + u) * FTL_UNIT, lba + u, v);
		w[i] = (struct fx_req){ .count = &writes };
		assert_int_equal(fx_submit(x, &w[i], FTL_IO_WRITE, lba, FX_MAX_IO,
					   wb + (size_t)i * FX_MAX_IO * FTL_UNIT, false), 0);
	}
	assert_true(fx_activity(x).wbufs_busy < x->lay.nr_wbufs); /* the reserve */
	assert_true(fx_activity(x).write_waiting > 0);

	/* tp2 misses: tp3 (least recently used, dirty) goes into the reserve. */
	assert_int_equal(fx_submit(x, &r, FTL_IO_READ, 2048, 1, rb, false), 0);
	assert_false(fx_tp(x, 3).cached);
	assert_true(fx_tp(x, 1).cached);
	assert_true(fx_tp(x, 2).cached);
	assert_true(fx_activity(x).write_waiting > 0); /* the writes still wait */
	fx_wait(x, &r);
	assert_int_equal(r.io.status, 0);
	assert_int_equal(fx_decode(rb, 2048), x->shadow[2048]);
	fx_wait_count(x, &writes, 4);
	for (uint32_t i = 0; i < 4 * FX_MAX_IO; i++)
		x->shadow[32 + i] = v;
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/*
 * A lookup that misses when even the translation stream has no write
 * buffer page left (its reserve taken by translation pages in flight):
 * the least recently used entry is dirty and cannot be written back, so
 * the least recently used clean one makes room; the lookup never waits
 * behind the writes while a clean entry exists.
 */
void test_cmt_miss_clean_fallback(void **state)
{
	enum { DIRTY = 12 };
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx_req w[4], r[DIRTY];
	struct fx *x;
	uint8_t *wb, *rb;
	uint32_t v, tp, first = DIRTY;
	bool fell_back = false;
	int writes = 0, reads = 0;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = DIRTY * FTL_UNIT;
	cfg.mdc_enabled = false;
	cfg.write_buffer_pages = 1;
	fx_geo_small(&g);
	g.blocks = 64; /* room for 2 x DIRTY translation pages */
	x = fx_new(&g, &cfg, false);
	assert_true(x->lay.nr_tp >= 2 * DIRTY);
	for (tp = 0; tp < DIRTY; tp++)
		fx_write(x, tp * 1024, 1);
	fx_flush(x); /* no translation page left open; the entries stay dirty */
	for (tp = 0; tp < DIRTY; tp++)
		assert_true(fx_tp(x, tp).dirty);

	/* Writes into tp0 take the data streams' pages (nothing is programmed
	 * before the driver runs). */
	wb = x->aux[0] = calloc(4 * FX_MAX_IO, FTL_UNIT);
	rb = x->aux[1] = calloc(DIRTY, FTL_UNIT);
	assert_non_null(wb);
	assert_non_null(rb);
	v = (uint32_t)++x->ver;
	for (uint32_t i = 0; i < 4; i++) {
		for (uint32_t u = 0; u < FX_MAX_IO; u++)
			fx_fill(wb + ((size_t)i * FX_MAX_IO + u) * FTL_UNIT, 32 + i * FX_MAX_IO + u, v);
		w[i] = (struct fx_req){ .count = &writes };
		assert_int_equal(fx_submit(x, &w[i], FTL_IO_WRITE, 32 + i * FX_MAX_IO, FX_MAX_IO,
					   wb + (size_t)i * FX_MAX_IO * FTL_UNIT, false), 0);
	}
	assert_true(fx_activity(x).write_waiting > 0);

	/*
	 * Misses on translation pages never written, one at a time: each
	 * writes a dirty entry back into the reserve until it is taken, then
	 * evicts one of the clean entries these misses loaded.
	 */
	for (uint32_t k = 0; k < DIRTY && !fell_back; k++) {
		uint64_t wbs = fx_stats(x).cmt_writebacks;

		tp = DIRTY + k;
		r[k] = (struct fx_req){ .count = &reads };
		assert_int_equal(fx_submit(x, &r[k], FTL_IO_READ, tp * 1024, 1,
					   rb + (size_t)k * FTL_UNIT, false), 0);
		assert_true(fx_tp(x, tp).cached); /* it did not wait */
		if (fx_stats(x).cmt_writebacks == wbs) {
			fell_back = true;
			assert_false(fx_tp(x, first).cached); /* the oldest clean one went */
			assert_true(fx_tp(x, DIRTY - 1).dirty); /* dirty ones stayed */
		}
	}
	assert_true(fell_back);
	fx_wait_count(x, &writes, 4);
	for (uint32_t i = 0; i < 4 * FX_MAX_IO; i++)
		x->shadow[32 + i] = v;
	fx_drain(x);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* Many translation pages through a 3-entry CMT, with data checked. */
void test_cmt_thrash(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats s;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 3 * FTL_UNIT;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	for (int round = 0; round < 3; round++)
		for (uint32_t tp = 0; tp < x->lay.nr_tp; tp++) {
			uint32_t lba = tp * 1024 + (uint32_t)round * 40;

			if (lba + 8 <= x->cap)
				fx_write(x, lba, 8);
		}
	fx_flush(x);
	fx_check_invariants(x, true);
	for (uint32_t tp = 0; tp < x->lay.nr_tp; tp++)
		fx_verify(x, tp * 1024, 96 <= x->cap - tp * 1024 ? 32 : 1);
	s = fx_stats(x);
	assert_true(s.cmt_evictions >= 3 * x->lay.nr_tp - 3);
	assert_true(s.cmt_writebacks >= 2 * x->lay.nr_tp);
	assert_int_equal(s.units_written_tp, s.cmt_writebacks);
	assert_true(s.flash_tp_reads > 0);
	fx_verify_all(x);
	fx_free(x);
}

/* ---- MDC and hot regions ---- */

static void mdc_cfg(struct ftl_config *cfg)
{
	fx_cfg_default(cfg);
	cfg->cmt_bytes = 2 * FTL_UNIT;
	cfg->mdc_enabled = true;
	cfg->hot_regions = 16;
	cfg->hot_top = 2;
}

/* Read [0, 1000) often enough that region 0 becomes the hot one. */
static void heat_region0(struct fx *x, uint32_t reads)
{
	for (uint32_t i = 0; i < reads; i++)
		fx_verify(x, fx_below(x, 1000 - 8), 1 + fx_below(x, 8));
}

/* Evict tp0 and tp1: touch two unmapped translation pages. */
static void evict_low_tps(struct fx *x)
{
	fx_verify(x, 12 * 1024, 1);
	fx_verify(x, 13 * 1024, 1);
	assert_false(fx_tp(x, 0).cached);
	assert_false(fx_tp(x, 1).cached);
}

void test_mdc_hits(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;
	uint32_t top[2];

	(void)state;
	mdc_cfg(&cfg);
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, 8 * 1024);
	fx_flush(x);
	heat_region0(x, FTL_HOT_REFRESH_READS + 16);
	assert_int_equal(ftl_hot_top(x->f->hot, top, 2), 1);
	assert_int_equal(top[0], 0);
	assert_true(ftl_hot_is_hot(x->f->hot, 0));
	assert_false(ftl_hot_is_hot(x->f->hot, 5000));
	/* Reload tp0 now that region 0 is hot: its runs enter the MDC. */
	evict_low_tps(x);
	fx_verify(x, 0, 1);
	assert_true(mdc_count(x) > 0);
	evict_low_tps(x);
	a = fx_stats(x);
	for (uint32_t lba = 0; lba < 1000; lba += 37)
		fx_verify(x, lba, 1);
	b = fx_stats(x);
	assert_true(b.mdc_hits - a.mdc_hits >= 27);
	assert_true(b.mdc_lookups > b.mdc_hits);
	assert_int_equal(b.cmt_misses, a.cmt_misses); /* no translation page loaded */
	assert_int_equal(b.flash_tp_reads, a.flash_tp_reads);

	/* Writes and trims invalidate what the MDC holds. */
	fx_write(x, 100, 32);
	fx_trim(x, 300, 40);
	fx_write(x, 700, 1);
	evict_low_tps(x);
	for (uint32_t lba = 0; lba < 1000; lba += 32)
		fx_verify(x, lba, 32);
	evict_low_tps(x);
	fx_flush(x);
	evict_low_tps(x);
	fx_verify(x, 90, 32);
	fx_verify(x, 290, 32);
	fx_verify(x, 320, 32);
	fx_verify(x, 699, 3);
	fx_check_invariants(x, true);
	fx_free(x);
}

void test_mdc_disabled(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats s;

	(void)state;
	mdc_cfg(&cfg);
	cfg.mdc_enabled = false;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, 4 * 1024);
	fx_flush(x);
	heat_region0(x, FTL_HOT_REFRESH_READS + 16);
	evict_low_tps(x);
	fx_verify(x, 0, 32);
	evict_low_tps(x);
	fx_verify(x, 64, 32);
	s = fx_stats(x);
	assert_int_equal(s.mdc_lookups, 0);
	assert_int_equal(s.mdc_hits, 0);
	assert_int_equal(mdc_count(x), 0);
	fx_free(x);
}

/* Idle periods prefetch hot translation pages into the MDC. */
void test_mdc_idle_prefetch(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;

	(void)state;
	mdc_cfg(&cfg);
	cfg.idle_ns = 1000000;
	cfg.gc_idle_permille = 0;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, 4 * 1024);
	fx_flush(x);
	heat_region0(x, FTL_HOT_REFRESH_READS + 16);
	evict_low_tps(x);
	assert_int_equal(mdc_count(x), 0);
	/* Idle: the driver's next ftl_process() starts prefetching. */
	blox_clock_set(&x->vd.clock, x->vd.clock.virt_ns + 2 * cfg.idle_ns);
	for (int i = 0; i < 4; i++) {
		ftl_process(x->f);
		fx_drain(x);
	}
	a = fx_stats(x);
	assert_true(a.prefetched_tps >= 1);
	assert_true(mdc_count(x) > 0);
	for (uint32_t lba = 0; lba < 1000; lba += 50)
		fx_verify(x, lba, 1);
	b = fx_stats(x);
	assert_true(b.mdc_hits - a.mdc_hits >= 20);
	assert_int_equal(b.flash_tp_reads, a.flash_tp_reads);
	fx_free(x);
}

/*
 * A prefetch read of a translation page is in flight when a host write
 * changes a mapping on it: the prefetched (old) copy must not enter the
 * MDC, or the LBA reads its old data once the page leaves the CMT.
 */
void test_mdc_prefetch_races_write(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct fx_req r = { 0 };

	(void)state;
	mdc_cfg(&cfg);
	cfg.idle_ns = 1000000;
	cfg.gc_idle_permille = 0;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, 4 * 1024);
	fx_flush(x);
	heat_region0(x, FTL_HOT_REFRESH_READS + 16);
	evict_low_tps(x);
	blox_clock_set(&x->vd.clock, x->vd.clock.virt_ns + 2 * cfg.idle_ns);
	ftl_process(x->f);
	assert_true(fx_activity(x).prefetch_busy);
	assert_int_equal(fx_activity(x).prefetch_tp, 0);
	/* The host comes back before the prefetch read completes. */
	fx_prepare(x, 5, 1);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 5, 1, x->wbuf, false), 0);
	fx_wait(x, &r);
	ftl_vdrive_run(&x->vd, x->f, x->vd.clock.virt_ns + 1);
	fx_drain(x);
	assert_false(fx_activity(x).prefetch_busy);
	fx_verify(x, 5, 1);
	evict_low_tps(x); /* tp0 written back: only the MDC knows lba 5 now */
	fx_verify(x, 0, 8);
	fx_free(x);
}

/* Hot regions rank by reads, hottest first. */
void test_hot_ranking(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	uint32_t top[4], first, nr;

	(void)state;
	mdc_cfg(&cfg);
	cfg.hot_top = 3;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	ftl_hot_region_range(x->f->hot, 5, &first, &nr);
	assert_int_equal(nr, (x->cap + 15) / 16);
	for (int i = 0; i < 60; i++)
		fx_verify(x, first + (uint32_t)i, 1);
	ftl_hot_region_range(x->f->hot, 2, &first, &nr);
	for (int i = 0; i < 30; i++)
		fx_verify(x, first + (uint32_t)i, 1);
	/* One read over the edge of regions 8 and 9 counts in both. */
	ftl_hot_region_range(x->f->hot, 9, &first, &nr);
	for (int i = 0; i < 10; i++)
		fx_verify(x, first - 2, 4);
	ftl_hot_refresh(x->f->hot);
	assert_int_equal(ftl_hot_top(x->f->hot, top, 4), 3);
	assert_int_equal(top[0], 5);
	assert_int_equal(top[1], 2);
	assert_int_equal(top[2], 8); /* 8 and 9 tie: lower first */
	assert_int_equal(ftl_hot_count(x->f->hot, 5), 60);
	assert_int_equal(ftl_hot_count(x->f->hot, 9), 10);
	assert_false(ftl_hot_is_hot(x->f->hot, first));
	fx_free(x);
}
