/*
 * Unit tests for the FTL's mapping paths (ftl/), through ftl.h and the
 * virtual-time driver, looking at ftl_internal.h state where the public
 * surface says too little: submit-time checks, round trips of 1..32
 * units, unmapped and write-buffer reads, superblock striping across
 * dies and planes (down to the NAND address and the page in the store),
 * CMT hits, misses, LRU eviction and write-back, the MDC and hot regions
 * (including idle prefetch), stream detection and trim, translation
 * pages programmed only after the data they map. GC and wear
 * leveling live in test_ftl_gc.c, flush, FUA and recovery in
 * test_ftl_recovery.c.
 */
#include "ftl_fixture.h"

/* ---- submission ---- */

/* Capacity follows the layout rule; bad requests fail at submit, silently. */
static void test_capacity_and_bounds(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct fx_req r = { 0 };
	uint64_t units;
	uint8_t one[FTL_UNIT];

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	/* 32 superblocks of 48 pages x 4 dies x 4 slots; 2 checkpoint, 4 open, 1 GC. */
	assert_int_equal(x->f->units_per_sb, 48 * 4 * 4);
	units = (uint64_t)(32 - 2 - 4 - 1) * 768 * (1000 - 70) / 1000;
	units -= (units + 1023) / 1024;
	assert_int_equal(x->cap, units);
	assert_int_equal(x->f->nr_tp, (x->cap + 1023) / 1024);

	assert_int_equal(fx_submit(x, &r, FTL_IO_READ, x->cap, 1, one, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, x->cap - 1, 2, one, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 1, UINT32_MAX, one, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_READ, 0, 0, one, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_TRIM, x->cap, 1, NULL, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_TRIM, 0, 0, NULL, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_READ, 0, 1, NULL, false), -EINVAL);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 0, 1, NULL, false), -EINVAL);
	assert_int_equal(fx_submit(x, &r, (enum ftl_io_op)17, 0, 1, one, false), -EINVAL);
	assert_int_equal(x->f->outstanding, 0);
	fx_drain(x);
	assert_false(r.done);
	assert_int_equal(fx_stats(x).host_writes, 0);

	/* The edges are addressable. */
	fx_write(x, x->cap - 1, 1);
	fx_write(x, 0, 1);
	fx_verify(x, x->cap - 1, 1);
	fx_verify(x, 0, 1);
	fx_trim(x, x->cap - 1, 1);
	fx_verify(x, x->cap - 1, 1);
	fx_free(x);
}

/* Completions come from ftl_process(), after ftl_submit() returned. */
static void test_completions_deferred(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct fx_req w[8], rd, fl, tr;
	static uint8_t bufs[8 * 4 * FTL_UNIT], rbuf[4 * FTL_UNIT];
	int count = 0;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	for (int i = 0; i < 8; i++) {
		for (uint32_t u = 0; u < 4; u++) {
			x->shadow[i * 100 + u] = (uint32_t)++x->ver;
			fx_fill(bufs + (size_t)(i * 4 + u) * FTL_UNIT, i * 100 + u,
				x->shadow[i * 100 + u]);
		}
		w[i].count = &count;
		assert_int_equal(fx_submit(x, &w[i], FTL_IO_WRITE, i * 100, 4,
					   bufs + (size_t)i * 4 * FTL_UNIT, false),
				 0);
		assert_false(w[i].done);
	}
	rd.count = fl.count = tr.count = &count;
	assert_int_equal(fx_submit(x, &rd, FTL_IO_READ, 5000, 4, rbuf, false), 0);
	assert_int_equal(fx_submit(x, &fl, FTL_IO_FLUSH, 0, 0, NULL, false), 0);
	assert_int_equal(fx_submit(x, &tr, FTL_IO_TRIM, 9000, 4, NULL, false), 0);
	assert_false(rd.done || fl.done || tr.done);
	assert_int_equal(x->f->outstanding, 11);
	fx_wait_count(x, &count, 11);
	for (int i = 0; i < 8; i++)
		assert_int_equal(w[i].io.status, 0);
	assert_int_equal(fl.io.status, 0);
	assert_int_equal(x->f->outstanding, 0);
	for (int i = 0; i < 8; i++)
		fx_verify(x, i * 100, 4);
	fx_free(x);
}

/* ---- round trips ---- */

static void test_round_trips(void **state)
{
	static const struct { uint32_t lba, nr; } w[] = {
		{ 0, 1 }, { 1, 32 }, { 40, 7 }, { 1020, 8 }, { 2047, 2 }, { 3000, 32 },
		{ 3010, 5 }, { 5000, 3 }, { 5001, 1 }, { 17000, 32 },
	};
	struct fx_geo g;
	struct fx *x;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		fx_write(x, w[i].lba, w[i].nr);
		fx_verify(x, w[i].lba, w[i].nr);
	}
	/* Reads spanning several writes and unmapped holes, from the buffer. */
	fx_verify(x, 0, 32);
	fx_verify(x, 30, 32);
	fx_verify(x, 1016, 32);
	fx_verify(x, 2040, 16);
	fx_verify(x, 2990, 32);
	fx_flush(x);
	/* And from flash. */
	for (uint32_t lba = 0; lba < 6000; lba += 29)
		fx_verify(x, lba, 32);
	fx_verify(x, 17000, 32);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* A 32-unit read of a page-aligned sequential write takes 8 flash reads. */
static void test_read_shares_pages(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 64, 32);
	fx_flush(x);
	a = fx_stats(x);
	fx_verify(x, 64, 32);
	b = fx_stats(x);
	assert_int_equal(b.flash_data_reads - a.flash_data_reads, 32 / x->f->slots);
	assert_int_equal(b.buffer_reads, a.buffer_reads);
	/* Unaligned: 2 + 3 units over two pages. */
	fx_verify(x, 66, 5);
	assert_int_equal(fx_stats(x).flash_data_reads - b.flash_data_reads, 2);
	fx_free(x);
}

/* Unmapped units read as zeroes and touch no flash. */
static void test_unmapped_reads(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 10, 4);
	fx_flush(x);
	a = fx_stats(x);
	memset(x->rbuf, 0xa5, (size_t)FX_MAX_IO * FTL_UNIT);
	fx_verify(x, 100, 32); /* shadow 0: all zeroes */
	fx_verify(x, 8000, 3);
	b = fx_stats(x);
	assert_int_equal(b.unmapped_reads - a.unmapped_reads, 35);
	assert_int_equal(b.flash_data_reads, a.flash_data_reads);
	assert_int_equal(b.flash_tp_reads, a.flash_tp_reads);
	/* Mixed: 2 unmapped, 4 mapped on one page, 2 unmapped. */
	fx_verify(x, 8, 8);
	assert_int_equal(fx_stats(x).unmapped_reads - b.unmapped_reads, 4);
	assert_int_equal(fx_stats(x).flash_data_reads - b.flash_data_reads, 1);
	fx_free(x);
}

/* host_reads counts read units, like host_writes counts written ones. */
static void test_read_stats(void **state)
{
	struct fx_geo g;
	struct fx *x;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 0, 8);
	assert_int_equal(fx_stats(x).host_writes, 8);
	fx_verify(x, 0, 8);
	fx_verify(x, 100, 2);
	assert_int_equal(fx_stats(x).host_reads, 10);
	fx_free(x);
}

/* Units not yet programmed are read from the write buffer. */
static void test_buffer_reads(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a;
	uint32_t ppn;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 0, 1);
	ppn = fx_ppn_resident(x, 0);
	assert_non_null(ftl_buffered(x->f, ppn));
	assert_int_equal(x->f->streams[ST_SEQ].wb->state, WB_FILLING);
	a = fx_stats(x);
	fx_verify(x, 0, 1);
	assert_int_equal(fx_stats(x).buffer_reads - a.buffer_reads, 1);
	assert_int_equal(fx_stats(x).flash_data_reads, a.flash_data_reads);
	/* Fill the page: it is programming, and still read from the buffer. */
	fx_write(x, 1, 3);
	assert_true(TAILQ_FIRST(&x->f->inflight) != NULL);
	assert_non_null(ftl_buffered(x->f, ppn));
	fx_verify(x, 0, 4);
	assert_int_equal(fx_stats(x).buffer_reads - a.buffer_reads, 5);
	assert_int_equal(fx_stats(x).flash_data_reads, a.flash_data_reads);
	/* Once programmed, from flash. */
	fx_drain(x);
	assert_null(ftl_buffered(x->f, ppn));
	fx_verify(x, 0, 4);
	assert_int_equal(fx_stats(x).flash_data_reads - a.flash_data_reads, 1);
	fx_free(x);
}

/* ---- striping ---- */

/*
 * A sequential write of 32 units from a fresh FTL: slots units per flash
 * page, consecutive pages on consecutive (plane, die) of the instance in
 * resource order, rows of stripe pages, all in block first_block + sb; the
 * page in the store at that address holds the units.
 */
static void check_striping(const struct fx_geo *g, const uint32_t *dies, uint32_t first_block,
			   uint32_t nr_blocks)
{
	struct ftl_config cfg;
	struct fx *x;
	struct fx_geo gg = *g;
	const struct ftl *f;
	uint8_t *page;
	uint32_t seen = 0, sb;

	fx_cfg_default(&cfg);
	gg.blocks = first_block + nr_blocks;
	x = fx_new(&gg, &cfg, false);
	/* Re-create on the requested resources. */
	ftl_destroy(x->f);
	x->res.first_block = first_block;
	x->res.nr_blocks = nr_blocks;
	memcpy(x->res.dies, dies, x->res.nr_dies * sizeof(*dies));
	assert_int_equal(fx_ftl_create(x), 0);
	f = x->f;
	fx_write(x, 0, 32);
	fx_flush(x);
	page = fx_tmp_alloc(f->geo->page_size);
	sb = fx_ppn_resident(x, 0) / f->units_per_sb;
	for (uint32_t u = 0; u < 32; u++) {
		uint32_t ppn = fx_ppn_resident(x, u), fp = u / f->slots, s = fp % f->stripe;
		uint32_t plane = s / f->ndies, die = dies[s % f->ndies];
		struct nand_addr a;

		/* The layout formula of ftl_internal.h. */
		assert_int_equal(ppn, sb * f->units_per_sb + u);
		ftl_fpid_addr(f, ppn / f->slots, &a);
		assert_int_equal(a.ch, die / g->dies_per_channel);
		assert_int_equal(a.die, die % g->dies_per_channel);
		assert_int_equal(a.plane, plane);
		assert_int_equal(a.block, first_block + sb);
		assert_int_equal(a.page, fp / f->stripe);
		seen |= 1u << (die * g->planes + plane);
		assert_int_equal(x->store->ops->read(x->store, nand_page_index(f->geo, &a), page,
						     NULL),
				 0);
		assert_int_equal(fx_decode(page + (size_t)(ppn % f->slots) * FTL_UNIT, u),
				 x->shadow[u]);
	}
	/* 8 pages covered every (die, plane) at least once. */
	assert_int_equal(__builtin_popcount(seen), f->stripe < 8 ? f->stripe : 8);
	fx_tmp_free(page);
	fx_free(x);
}

static void test_striping(void **state)
{
	static const uint32_t id[] = { 0, 1, 2, 3 }, perm[] = { 2, 0, 3, 1 };
	struct fx_geo g;

	(void)state;
	fx_geo_small(&g);
	check_striping(&g, id, 0, 32);
	check_striping(&g, perm, 3, 24);
	g.planes = 2;
	g.channels = 2;
	g.dies_per_channel = 2;
	check_striping(&g, perm, 0, 24);
}

/* ---- CMT ---- */

static void test_cmt_lru_and_writeback(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats s;
	struct ftl *f;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 2 * FTL_UNIT;
	cfg.mdc_enabled = false;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	f = x->f;
	assert_int_equal(f->cmt_cap, 2);
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
	assert_null(f->cmt_index[1]);
	assert_non_null(f->cmt_index[0]);
	assert_non_null(f->cmt_index[2]);
	assert_int_not_equal(f->gtd[1], FTL_UNMAPPED);

	/* tp1 again: from the buffered translation page; evicts tp0. */
	fx_verify(x, 1024, 1);
	s = fx_stats(x);
	assert_int_equal(s.cmt_misses, 4);
	assert_int_equal(s.cmt_writebacks, 2);
	assert_int_equal(s.flash_tp_reads, 0);
	assert_null(f->cmt_index[0]);

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

/* Many translation pages through a 3-entry CMT, with data checked. */
static void test_cmt_thrash(void **state)
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
		for (uint32_t tp = 0; tp < x->f->nr_tp; tp++) {
			uint32_t lba = tp * 1024 + (uint32_t)round * 40;

			if (lba + 8 <= x->cap)
				fx_write(x, lba, 8);
		}
	fx_flush(x);
	fx_check_invariants(x, true);
	for (uint32_t tp = 0; tp < x->f->nr_tp; tp++)
		fx_verify(x, tp * 1024, 96 <= x->cap - tp * 1024 ? 32 : 1);
	s = fx_stats(x);
	assert_true(s.cmt_evictions >= 3 * x->f->nr_tp - 3);
	assert_true(s.cmt_writebacks >= 2 * x->f->nr_tp);
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
	assert_null(x->f->cmt_index[0]);
	assert_null(x->f->cmt_index[1]);
}

static void test_mdc_hits(void **state)
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
	assert_true(ftl_mdc_stats(x->f->mdc)->count > 0);
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

static void test_mdc_disabled(void **state)
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
	assert_int_equal(ftl_mdc_stats(x->f->mdc)->count, 0);
	fx_free(x);
}

/* Idle periods prefetch hot translation pages into the MDC. */
static void test_mdc_idle_prefetch(void **state)
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
	assert_int_equal(ftl_mdc_stats(x->f->mdc)->count, 0);
	/* Idle: the driver's next ftl_process() starts prefetching. */
	blox_clock_set(&x->vd.clock, x->vd.clock.virt_ns + 2 * cfg.idle_ns);
	for (int i = 0; i < 4; i++) {
		ftl_process(x->f);
		fx_drain(x);
	}
	a = fx_stats(x);
	assert_true(a.prefetched_tps >= 1);
	assert_true(ftl_mdc_stats(x->f->mdc)->count > 0);
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
static void test_mdc_prefetch_races_write(void **state)
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
	assert_true(x->f->pf.busy);
	assert_int_equal(x->f->pf.tp, 0);
	/* The host comes back before the prefetch read completes. */
	fx_prepare(x, 5, 1);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 5, 1, x->wbuf, false), 0);
	fx_wait(x, &r);
	ftl_vdrive_run(&x->vd, x->f, x->vd.clock.virt_ns + 1);
	fx_drain(x);
	assert_false(x->f->pf.busy);
	fx_verify(x, 5, 1);
	evict_low_tps(x); /* tp0 written back: only the MDC knows lba 5 now */
	fx_verify(x, 0, 8);
	fx_free(x);
}

/* Hot regions rank by reads, hottest first. */
static void test_hot_ranking(void **state)
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

/* ---- streams ---- */

static uint32_t sb_of(const struct fx *x, uint32_t lba)
{
	return fx_ppn_resident(x, lba) / x->f->units_per_sb;
}

static void test_streams(void **state)
{
	struct fx_geo g;
	struct fx *x;
	const struct ftl *f;
	int32_t seq, rnd;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	f = x->f;
	fx_write(x, 4000, 32); /* long: sequential by itself */
	seq = f->streams[ST_SEQ].sb;
	assert_true(seq >= FTL_CKPT_SBS);
	assert_int_equal(f->streams[ST_RAND].sb, -1);
	for (uint32_t u = 0; u < 32; u++)
		assert_int_equal(sb_of(x, 4000 + u), (uint32_t)seq);
	fx_write(x, 4032, 2); /* continues the last write */
	fx_write(x, 4034, 1);
	assert_int_equal(sb_of(x, 4033), (uint32_t)seq);
	assert_int_equal(sb_of(x, 4034), (uint32_t)seq);

	fx_write(x, 9000, 1); /* small, elsewhere: random */
	fx_write(x, 12, 4);
	fx_write(x, 700, 31);
	rnd = f->streams[ST_RAND].sb;
	assert_true(rnd >= FTL_CKPT_SBS);
	assert_int_not_equal(rnd, seq);
	assert_int_equal(sb_of(x, 9000), (uint32_t)rnd);
	assert_int_equal(sb_of(x, 13), (uint32_t)rnd);
	assert_int_equal(sb_of(x, 730), (uint32_t)rnd);
	fx_write(x, 731, 1); /* follows the random write: sequential again */
	assert_int_equal(sb_of(x, 731), (uint32_t)seq);
	assert_int_equal(f->sbs[seq].state, SB_OPEN);
	assert_int_equal(f->sbs[rnd].state, SB_OPEN);
	fx_verify(x, 4000, 32);
	fx_verify(x, 700, 32);
	fx_free(x);

	/* Without separation one stream takes everything. */
	{
		struct ftl_config cfg;

		fx_cfg_default(&cfg);
		cfg.stream_separation = false;
		x = fx_new(&g, &cfg, false);
		f = x->f;
		fx_write(x, 4000, 32);
		fx_write(x, 9000, 1);
		fx_write(x, 12, 4);
		seq = f->streams[ST_SEQ].sb;
		assert_int_equal(f->streams[ST_RAND].sb, -1);
		assert_int_equal(sb_of(x, 9000), (uint32_t)seq);
		assert_int_equal(sb_of(x, 12), (uint32_t)seq);
		assert_int_equal(fx_ppn_resident(x, 9000) + 1, fx_ppn_resident(x, 12));
		fx_free(x);
	}
}

/*
 * Sequential writes are placed in arrival order: one that waits for its
 * translation page holds back the next sequential write (whose page is
 * resident) instead of letting it take the flash pages first; a random
 * write is not held back.
 */
static void test_seq_order(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct fx_req a = { 0 }, b = { 0 }, r = { 0 };
	static uint8_t ba[32 * FTL_UNIT], bb[32 * FTL_UNIT], br[FTL_UNIT];
	const uint32_t la = 3 * FTL_TP_ENTRIES, lb = 4 * FTL_TP_ENTRIES;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 2 * FTL_UNIT;
	cfg.mdc_enabled = false;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	assert_true(lb + 64 <= x->cap);
	/* Translation page 3 on flash (evicted, then a flush) and out of the CMT; 4 resident. */
	fx_write(x, la + 100, 1);
	fx_write(x, 0, 1);
	fx_write(x, lb + 100, 1);
	fx_flush(x);
	assert_null(x->f->cmt_index[3]);
	assert_non_null(x->f->cmt_index[4]);
	for (uint32_t u = 0; u < 32; u++) {
		fx_fill(ba + (size_t)u * FTL_UNIT, la + u, 1000 + u);
		fx_fill(bb + (size_t)u * FTL_UNIT, lb + u, 2000 + u);
		x->shadow[la + u] = 1000 + u;
		x->shadow[lb + u] = 2000 + u;
	}
	fx_fill(br, lb + 500, 3000);
	x->shadow[lb + 500] = 3000;
	assert_int_equal(fx_submit(x, &a, FTL_IO_WRITE, la, 32, ba, false), 0);
	assert_int_equal(fx_submit(x, &b, FTL_IO_WRITE, lb, 32, bb, false), 0);
	/* A small write elsewhere is random: it goes on at once. */
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, lb + 500, 1, br, false), 0);
	assert_ptr_equal(x->f->seq_blocker, &a.io);
	assert_false(TAILQ_EMPTY(&x->f->seq_wait));
	fx_wait(x, &a);
	fx_wait(x, &b);
	fx_wait(x, &r);
	assert_null(x->f->seq_blocker);
	assert_true(TAILQ_EMPTY(&x->f->seq_wait));
	fx_verify(x, la, 32);
	fx_verify(x, lb, 32);
	fx_verify(x, lb + 500, 1);
	/* One run on flash: b's units follow a's. */
	assert_int_equal(fx_ppn_resident(x, la + 31) + 1, fx_ppn_resident(x, lb));
	fx_free(x);
}

/* ---- trim ---- */

/* Valid data units: all valid bits but the translation pages'. */
static uint64_t valid_data(const struct ftl *f)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < f->nr_sb; i++)
		v += f->sbs[i].valid;
	for (uint32_t tp = 0; tp < f->nr_tp; tp++)
		v -= f->gtd[tp] != FTL_UNMAPPED;
	return v;
}

static void test_trim(void **state)
{
	struct fx_geo g;
	struct fx *x;
	uint32_t ppn;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 1000, 32);
	fx_write(x, 1032, 32);
	fx_flush(x);
	assert_int_equal(valid_data(x->f), 64);
	ppn = fx_ppn_resident(x, 1010);
	assert_true(ftl_valid_get(x->f, ppn));
	fx_trim(x, 1010, 30); /* across the tp0/tp1 boundary */
	assert_int_equal(valid_data(x->f), 64 - 30);
	assert_false(ftl_valid_get(x->f, ppn));
	assert_int_equal(fx_ppn_resident(x, 1010), FTL_UNMAPPED);
	assert_int_equal(fx_ppn_resident(x, 1039), FTL_UNMAPPED);
	assert_int_not_equal(fx_ppn_resident(x, 1040), FTL_UNMAPPED);
	assert_int_equal(fx_stats(x).host_trims, 30);
	fx_verify(x, 1000, 32);
	fx_verify(x, 1032, 32);
	/* Unmapped ranges: no data changes. */
	fx_trim(x, 5000, 32);
	fx_trim(x, 1015, 5);
	assert_int_equal(valid_data(x->f), 64 - 30);
	fx_check_invariants(x, true);
	/* Written again after the trim. */
	fx_write(x, 1020, 4);
	fx_verify(x, 1000, 32);
	assert_int_equal(valid_data(x->f), 64 - 30 + 4);
	fx_flush(x);
	fx_verify(x, 1000, 32);
	fx_verify(x, 1032, 32);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* ---- write ordering: translation pages after the data they map ---- */

/*
 * A translation page written back while a unit it maps is still in a
 * filling buffer page must not reach flash first: a power loss in
 * between would leave the mapping pointing at a page never programmed.
 * Here trims write back translation page 0 (mapping LBA 5 to its new,
 * still buffered copy) and three others, filling a translation page; the
 * device then goes idle and the power goes.
 */
static void test_tp_page_waits_for_data(void **state)
{
	static const uint32_t others[] = { 1024, 2048, 3072 };
	struct fx_geo g;
	struct fx *x;
	uint32_t v1;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	assert_int_equal(x->f->slots, 4);
	fx_write(x, 5, 1);
	fx_write(x, 6, 1);
	for (int i = 0; i < 3; i++)
		fx_write(x, others[i], 1);
	fx_flush(x);
	v1 = x->shadow[5];
	fx_write(x, 5, 1); /* in a filling page of the random stream */
	assert_non_null(x->f->streams[ST_RAND].wb);
	fx_trim(x, 6, 1); /* translation page 0 written back: LBA 5 -> buffer */
	for (int i = 0; i < 3; i++)
		fx_trim(x, others[i], 1);
	assert_null(x->f->streams[ST_TP].wb); /* that page is full */
	assert_non_null(x->f->streams[ST_RAND].wb); /* LBA 5's page is not */
	fx_drain(x);
	fx_crash(x);
	assert_int_equal(fx_ftl_create(x), 0);
	assert_int_equal(fx_io(x, FTL_IO_READ, 5, 1, x->rbuf, false), 0);
	if (fx_decode(x->rbuf, 5) != v1 && fx_decode(x->rbuf, 5) != x->shadow[5])
		fail_msg("lba 5 after the crash: version %d, flushed %u, last %u",
			 (int)fx_decode(x->rbuf, 5), v1, x->shadow[5]);
	fx_free(x);
}

/*
 * Held translation pages must not deadlock a small write buffer: with
 * five buffer pages, a filling data page that every translation page
 * waits for (LBA 5's, the host idle otherwise) and write-backs of every
 * translation page, the buffer runs out; the data page is then padded
 * and programmed, and everything completes.
 */
static void test_tp_held_pages_unstick(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.write_buffer_pages = 1;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	for (uint32_t tp = 0; tp < x->f->nr_tp; tp++)
		fx_write(x, tp * FTL_TP_ENTRIES + 7, 1);
	fx_flush(x);
	a = fx_stats(x);
	for (int round = 0; round < 3; round++) {
		/* One unit of every translation page, then trim them all. */
		for (uint32_t tp = 0; tp < x->f->nr_tp; tp++)
			fx_write(x, tp * FTL_TP_ENTRIES + 5, 1);
		for (uint32_t tp = 0; tp < x->f->nr_tp; tp++)
			fx_trim(x, tp * FTL_TP_ENTRIES + 7, 1);
		for (uint32_t tp = 0; tp < x->f->nr_tp; tp++)
			fx_write(x, tp * FTL_TP_ENTRIES + 7, 1);
	}
	b = fx_stats(x);
	assert_true(b.tp_pages_held > a.tp_pages_held);
	fx_flush(x);
	fx_crash(x);
	assert_int_equal(fx_ftl_create(x), 0);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_capacity_and_bounds),
		FX_TEST(test_completions_deferred),
		FX_TEST(test_round_trips),
		FX_TEST(test_read_shares_pages),
		FX_TEST(test_unmapped_reads),
		FX_TEST(test_read_stats),
		FX_TEST(test_buffer_reads),
		FX_TEST(test_striping),
		FX_TEST(test_cmt_lru_and_writeback),
		FX_TEST(test_cmt_thrash),
		FX_TEST(test_mdc_hits),
		FX_TEST(test_mdc_disabled),
		FX_TEST(test_mdc_idle_prefetch),
		FX_TEST(test_mdc_prefetch_races_write),
		FX_TEST(test_hot_ranking),
		FX_TEST(test_streams),
		FX_TEST(test_seq_order),
		FX_TEST(test_trim),
		FX_TEST(test_tp_page_waits_for_data),
		FX_TEST(test_tp_held_pages_unstick),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
