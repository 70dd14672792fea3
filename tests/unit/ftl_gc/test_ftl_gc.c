/*
 * Unit tests for garbage collection and wear leveling (ftl/gc.c, with
 * layout.c's allocation): random overwrite against a shadow of every LBA
 * under greedy and cost-benefit victims, concurrent reads and writes
 * through a tiny CMT while GC runs, fills up to the last unit, trims
 * before and during GC, a GC victim whose last page is still being
 * programmed, dynamic (least-worn) allocation, and static wear leveling
 * against the same workload with it off. Batched GC (gc.c): CMTs of 1-4
 * translation pages against the shadow, translation-page reads and
 * write-backs per run bounded by the victim's translation pages, host
 * writes and trims racing a batch, power loss in the middle of batches.
 * Levels and pacing (gc_policy.c): sustained random writes paced below
 * the foreground level never reach urgent, GC stops on an idle full
 * device with the default levels, the levels fit the spare on any OP.
 */
#include "ftl_fixture.h"

/* After a random-overwrite run: everything reads back, GC did the work. */
static void expect_gc_worked(struct fx *x)
{
	struct ftl_stats s = fx_stats(x);

	fx_verify_all(x);
	fx_check_invariants(x, true);
	assert_true(s.gc_runs > 0);
	assert_true(s.flash_erases >= s.gc_runs * x->f->stripe);
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
		if (x->f->free_sbs < min_free)
			min_free = x->f->free_sbs;
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
	ups = x->f->units_per_sb;
	fx_seq_fill(x, 0, ups); /* fills the first sequential superblock */
	a = x->f->streams[ST_SEQ].sb;
	assert_int_equal(x->f->streams[ST_SEQ].next, ups);
	/* Keep only the units of its last page. */
	fx_trim(x, 0, ups - x->f->slots);
	/* The next unit closes it: GC takes it at once. */
	fx_write(x, ups, 1);
	assert_int_equal(x->f->sbs[a].state, SB_GC);
	{
		/* GC has it, and the program of its last page has not happened yet. */
		struct nand_addr last;

		ftl_fpid_addr(x->f, (a + 1) * ups / x->f->slots - 1, &last);
		assert_true(x->store->blocks[nand_block_index(&x->nc.geo, &last)].write_ptr <=
			    last.page);
	}
	fx_drain(x);
	assert_true(fx_stats(x).gc_runs >= 1);
	fx_verify(x, ups - x->f->slots, x->f->slots + 1);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* ---- wear leveling ---- */

/* Allocation takes the least-worn free superblock. */
static void test_dynamic_wl_alloc(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl *f;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	f = x->f;
	for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb; sb++)
		f->sbs[sb].erase_count = 7;
	f->sbs[17].erase_count = 2;
	f->sbs[9].erase_count = 3;
	f->sbs[25].erase_count = 3;
	fx_write(x, 0, 32);
	assert_int_equal(f->streams[ST_SEQ].sb, 17);
	fx_write(x, 5000, 1);
	assert_int_equal(f->streams[ST_RAND].sb, 9); /* lowest among equals */
	f->sbs[30].erase_count = 0;
	fx_flush(x); /* the translation stream opens on a flush's write-back, */
	fx_trim(x, 5000, 1); /* or on a trim's */
	assert_int_equal(f->streams[ST_TP].sb, 30);
	fx_free(x);
}

static void wl_geo(struct fx_geo *g)
{
	*g = (struct fx_geo){ .channels = 4, .dies_per_channel = 1, .planes = 1,
			      .blocks = 24, .pages = 24 };
}

struct wl_result {
	uint32_t spread; /* max - min erase count, every superblock (ftl_stats) */
	uint32_t full_spread; /* the same over full superblocks only */
	uint64_t wl_runs, gc_runs;
};

/* Cold lower half written once, hot upper half overwritten 16 times. */
static void wl_run(uint32_t threshold, struct wl_result *r)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats s;
	uint32_t half, fmin = UINT32_MAX, fmax = 0;

	fx_cfg_default(&cfg);
	cfg.wl_threshold = threshold;
	wl_geo(&g);
	x = fx_new(&g, &cfg, false);
	half = x->cap / 2;
	fx_seq_fill(x, 0, x->cap);
	for (int i = 0; i < 16; i++) {
		uint64_t done = 0;

		while (done < x->cap) {
			uint32_t nr = 1 + fx_below(x, 4), lba = half + fx_below(x, x->cap - half - nr);

			fx_write(x, lba, nr);
			done += nr;
		}
	}
	fx_verify_all(x);
	fx_check_invariants(x, true);
	s = fx_stats(x);
	assert_true(s.max_erase >= 10); /* the hot half wore blocks out */
	for (uint32_t i = FTL_CKPT_SBS; i < x->f->nr_sb; i++) {
		const struct ftl_sb *sb = &x->f->sbs[i];

		if (sb->state != SB_FULL)
			continue;
		fmin = sb->erase_count < fmin ? sb->erase_count : fmin;
		fmax = sb->erase_count > fmax ? sb->erase_count : fmax;
	}
	r->spread = s.max_erase - s.min_erase;
	r->full_spread = fmax - fmin;
	r->wl_runs = s.wl_runs;
	r->gc_runs = s.gc_runs;
	fx_free(x);
}

static void test_static_wl(void **state)
{
	struct wl_result on, off;

	(void)state;
	wl_run(3, &on);
	wl_run(0, &off);
	assert_true(on.wl_runs > 0);
	assert_int_equal(off.wl_runs, 0);
	if (on.full_spread > 3 + 2)
		fail_msg("wear leveling on: full superblocks spread %u > threshold 3 + 2",
			 on.full_spread);
	/* Every superblock, the open ones of idle streams included. */
	if (on.spread > 3 + 2)
		fail_msg("wear leveling on: spread %u > threshold 3 + 2 (%lu of %lu GC runs "
			 "were wear leveling)",
			 on.spread, (unsigned long)on.wl_runs, (unsigned long)on.gc_runs);
	if (off.spread <= on.spread + 2)
		fail_msg("wear leveling off: spread %u, on: %u", off.spread, on.spread);
}

/* ---- batched GC: translation-page order, tiny CMTs, races, pacing, levels ---- */

/* Make GC collect now (any victim worth it), or go back to the levels. */
struct gc_levels {
	uint32_t bg, idle, min_invalid;
};

static void force_gc(struct fx *x, struct gc_levels *save)
{
	struct ftl_gc *g = &x->f->gc;

	save->bg = g->lvl_bg;
	save->idle = g->lvl_idle;
	save->min_invalid = g->min_invalid_bg;
	g->lvl_bg = g->lvl_idle = x->f->nr_sb;
	g->min_invalid_bg = 1;
	g->futile = false;
}

static void unforce_gc(struct fx *x, const struct gc_levels *save)
{
	x->f->gc.lvl_bg = save->bg;
	x->f->gc.lvl_idle = save->idle;
	x->f->gc.min_invalid_bg = save->min_invalid;
}

/* Translation pages with a valid data unit in superblock @sb; the units. */
static uint32_t victim_tps(struct fx *x, uint32_t sb, uint32_t *units)
{
	const struct ftl *f = x->f;
	uint32_t *map = fx_tmp_alloc(FTL_UNIT), n = 0;

	*units = 0;
	for (uint32_t tp = 0; tp < f->nr_tp; tp++) {
		bool any = false;

		fx_tp_contents(x, tp, map);
		for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++) {
			if (tp * FTL_TP_ENTRIES + i >= f->capacity || map[i] == FTL_UNMAPPED ||
			    map[i] / f->units_per_sb != sb)
				continue;
			any = true;
			++*units;
		}
		n += any;
	}
	fx_tmp_free(map);
	return n;
}

/*
 * Random overwrite and trims through CMTs of 1 (2: the minimum) to 4
 * translation pages: GC batches then hold one translation page per
 * round; every LBA is checked against the shadow.
 */
static void test_gc_tiny_cmt_shadow(void **state)
{
	(void)state;
	for (uint32_t pages = 1; pages <= 4; pages++) {
		struct ftl_config cfg;
		struct fx_geo g;
		struct fx *x;
		struct ftl_stats s;

		fx_cfg_default(&cfg);
		cfg.cmt_bytes = pages * FTL_UNIT;
		cfg.gc_policy = pages % 2 ? FTL_GC_GREEDY : FTL_GC_COST_BENEFIT;
		fx_geo_small(&g);
		x = fx_new(&g, &cfg, false);
		x->rng += pages;
		assert_int_equal(x->f->gc.groups_max, 1);
		fx_seq_fill(x, 0, x->cap);
		for (int i = 0; i < 4; i++) {
			fx_random_writes(x, x->cap, 8, x->cap / 4);
			fx_trim(x, fx_below(x, x->cap - 64), 1 + fx_below(x, 64));
			fx_verify(x, fx_below(x, x->cap - 32), 32);
		}
		s = fx_stats(x);
		assert_true(s.gc_runs > 5);
		assert_true(s.gc_tp_reads > 0);
		assert_true(s.gc_tp_writebacks > 0);
		expect_gc_worked(x);
		fx_free(x);
	}
}

/*
 * One GC run: translation-page reads and write-backs are bounded by the
 * translation pages the victim's units belong to, not by units moved.
 */
static void test_gc_tp_io_per_run(void **state)
{
	struct ftl_config cfg;
	struct gc_levels lv;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;
	uint32_t tps, units;
	int32_t v;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 4 * FTL_UNIT; /* 4 of 18 translation pages */
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 4, x->cap);
	fx_drain(x);
	assert_false(ftl_gc_busy(x->f));
	for (int run = 0; run < 3; run++) {
		a = fx_stats(x);
		force_gc(x, &lv);
		ftl_gc_step(x->f);
		unforce_gc(x, &lv);
		assert_true(x->f->gc.active);
		v = x->f->gc.victim;
		tps = victim_tps(x, (uint32_t)v, &units);
		assert_true(units > 4 * tps); /* worth batching */
		/* Until its units are moved (the erase follows, the next may start). */
		while (x->f->gc.active && x->f->gc.victim == v)
			assert_true(fx_step(x));
		b = fx_stats(x);
		if (b.flash_tp_reads - a.flash_tp_reads > tps ||
		    b.gc_tp_writebacks - a.gc_tp_writebacks > tps ||
		    b.cmt_writebacks - a.cmt_writebacks > 2 * tps)
			fail_msg("GC run: %u units of %u translation pages moved %lu units with "
				 "%lu translation-page reads, %lu GC write-backs, %lu write-backs",
				 units, tps, (unsigned long)(b.gc_units_moved - a.gc_units_moved),
				 (unsigned long)(b.flash_tp_reads - a.flash_tp_reads),
				 (unsigned long)(b.gc_tp_writebacks - a.gc_tp_writebacks),
				 (unsigned long)(b.cmt_writebacks - a.cmt_writebacks));
		assert_int_equal(b.gc_units_moved - a.gc_units_moved, units);
		assert_int_equal(b.gc_tp_reads - a.gc_tp_reads, b.flash_tp_reads - a.flash_tp_reads);
		fx_drain(x);
	}
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/*
 * Host writes and trims race a GC batch: after the victim's OOB is read
 * (its units listed) and before they move, some of them are overwritten
 * or trimmed. Those must not be moved, and nothing may come back.
 */
static void test_gc_batch_races_host(void **state)
{
	struct ftl_config cfg;
	struct gc_levels lv;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a;
	uint32_t tps, units, hit = 0, sb;
	uint32_t *map;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 2 * FTL_UNIT;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 4, x->cap / 2);
	fx_drain(x);
	a = fx_stats(x);
	force_gc(x, &lv);
	ftl_gc_step(x->f);
	unforce_gc(x, &lv);
	assert_true(x->f->gc.active);
	sb = (uint32_t)x->f->gc.victim;
	tps = victim_tps(x, sb, &units);
	/* Pass 1 done: the units are listed, none moved yet. */
	while (x->f->gc.tp_waiter.stage == GC_SCAN)
		assert_true(fx_step(x));
	assert_int_equal(x->f->gc.nent, units);
	assert_int_equal(fx_stats(x).gc_units_moved, a.gc_units_moved);
	map = fx_tmp_alloc(FTL_UNIT);
	for (uint32_t tp = 0; tp < x->f->nr_tp && hit < 64; tp++) {
		fx_tp_contents(x, tp, map);
		for (uint32_t i = 0; i < FTL_TP_ENTRIES && hit < 64; i += 7) {
			uint32_t lba = tp * FTL_TP_ENTRIES + i;

			if (lba >= x->cap || map[i] == FTL_UNMAPPED ||
			    map[i] / x->f->units_per_sb != sb)
				continue;
			/* The write may wait for GC itself; GC goes on meanwhile. */
			if (hit++ % 2)
				fx_trim(x, lba, 1);
			else
				fx_write(x, lba, 1);
		}
	}
	fx_tmp_free(map);
	assert_true(hit > 8);
	fx_drain(x);
	assert_true(fx_stats(x).gc_runs > a.gc_runs);
	/* The raced units were not moved (later runs may have moved others). */
	if (fx_stats(x).gc_runs == a.gc_runs + 1)
		assert_true(fx_stats(x).gc_units_moved - a.gc_units_moved <= units - hit);
	(void)tps;
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* ---- foreground pacing ---- */

#define PACE_QD 16

/*
 * Sustained random 4 KiB writes at QD 16 on a device with room for a
 * pacing band: below the foreground level host writes are paced by GC
 * credits, so they keep completing while free space never drops to the
 * urgent level (where they would all stall at once), let alone to 0.
 */
static void test_gc_fg_pacing(void **state)
{
	static struct {
		struct fx_req r;
		uint8_t buf[FTL_UNIT];
		bool busy;
	} q[PACE_QD];
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;
	uint8_t *busy;
	uint64_t written = 0, last_done, max_gap = 0, t_fg = 0, steps = 0, below = 0;
	uint32_t min_free = UINT32_MAX;
	int count = 0, seen = 0;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.op_permille = 200;
	cfg.cmt_bytes = 64 * FTL_UNIT; /* every translation page: GC alone */
	fx_geo_small(&g);
	g.blocks = 64;
	x = fx_new(&g, &cfg, false);
	assert_true(x->f->gc.spare >= 8);
	assert_true(x->f->gc.lvl_fg >= x->f->gc.lvl_urgent + 2);
	busy = x->aux[0] = calloc(x->cap, 1);
	assert_non_null(busy);
	fx_seq_fill(x, 0, x->cap);
	a = fx_stats(x);
	last_done = x->vd.clock.virt_ns;
	while (written < 3ull * x->cap) {
		for (int i = 0; i < PACE_QD; i++) {
			uint32_t lba;

			if (q[i].busy && !q[i].r.done)
				continue;
			if (q[i].busy) {
				assert_int_equal(q[i].r.io.status, 0);
				busy[q[i].r.io.lba] = 0;
				q[i].busy = false;
			}
			lba = fx_below(x, x->cap);
			if (busy[lba])
				continue;
			busy[lba] = 1;
			x->shadow[lba] = (uint32_t)++x->ver;
			fx_fill(q[i].buf, lba, x->shadow[lba]);
			q[i].r.count = &count;
			assert_int_equal(fx_submit(x, &q[i].r, FTL_IO_WRITE, lba, 1, q[i].buf, false),
					 0);
			q[i].busy = true;
			written++;
		}
		if (!fx_step(x)) {
			fx_dump(x);
			fail_msg("stuck with writes in flight");
		}
		if (count != seen) {
			seen = count;
			if (x->vd.clock.virt_ns - last_done > max_gap)
				max_gap = x->vd.clock.virt_ns - last_done;
			last_done = x->vd.clock.virt_ns;
		}
		steps++;
		if (x->f->free_sbs < min_free)
			min_free = x->f->free_sbs;
		below += ftl_gc_urgent(x->f);
		t_fg += x->f->free_sbs < x->f->gc.lvl_fg;
	}
	fx_wait_count(x, &count, (int)written);
	b = fx_stats(x);
	if (below || min_free < x->f->gc.lvl_urgent)
		fail_msg("free space fell to %u (urgent %u, foreground %u) in %lu of %lu steps",
			 min_free, x->f->gc.lvl_urgent, x->f->gc.lvl_fg, (unsigned long)below,
			 (unsigned long)steps);
	assert_true(min_free > 0);
	/* The load did sit below the foreground level, paced. */
	assert_true(t_fg > steps / 4);
	assert_true(b.gc_paced > a.gc_paced);
	assert_true(b.gc_runs - a.gc_runs > 20);
	/*
	 * Interleaved: the longest wait is about a write-buffer drain plus an
	 * erase (~50 ms here), not the collection of whole superblocks while
	 * every write waits at the urgent level (~400 ms before pacing).
	 */
	if (max_gap > 100ull * 1000 * 1000)
		fail_msg("a %.1f ms gap between write completions", (double)max_gap / 1e6);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* ---- levels: GC stops on a full device ---- */

/* The daemon's loop, idle: ftl_process() every ms for @ms of virtual time. */
static void idle_loop(struct fx *x, uint32_t ms)
{
	for (uint32_t i = 0; i < ms; i++) {
		ftl_process(x->f);
		ftl_vdrive_run(&x->vd, x->f, x->vd.clock.virt_ns + 1000000);
	}
}

static void stops_when_full(uint32_t op_permille, enum ftl_gc_policy policy)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b, c;

	fx_cfg_default(&cfg);
	cfg.idle_ns = 10 * 1000 * 1000ull; /* idle GC too, after 10 ms */
	cfg.op_permille = op_permille;
	cfg.gc_policy = policy;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	assert_true(x->f->gc.lvl_idle <= x->f->gc.spare || x->f->gc.spare < 8);
	fx_seq_fill(x, 0, x->cap);
	a = fx_stats(x);
	fx_random_writes(x, x->cap, 8, x->cap);
	b = fx_stats(x);
	assert_true(b.gc_runs > a.gc_runs);
	/* Idle for a while: GC may tidy up, then must stop. */
	idle_loop(x, 1000);
	b = fx_stats(x);
	idle_loop(x, 1000);
	c = fx_stats(x);
	if (c.gc_runs != b.gc_runs || ftl_gc_busy(x->f))
		fail_msg("op %u: GC goes on on an idle full device: %lu runs in the last second "
			 "(free %u, levels %u/%u/%u/%u)",
			 op_permille, (unsigned long)(c.gc_runs - b.gc_runs), x->f->free_sbs,
			 x->f->gc.lvl_urgent, x->f->gc.lvl_fg, x->f->gc.lvl_bg, x->f->gc.lvl_idle);
	assert_int_equal(c.flash_erases, b.flash_erases);
	/* And it still works when the host comes back. */
	fx_random_writes(x, x->cap, 8, x->cap / 4);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

static void test_gc_stops_when_full(void **state)
{
	(void)state;
	stops_when_full(70, FTL_GC_GREEDY);
	stops_when_full(70, FTL_GC_COST_BENEFIT);
	stops_when_full(280, FTL_GC_GREEDY);
}

/* The default levels, in superblocks, sit inside the spare on any OP. */
static void test_gc_levels_reachable(void **state)
{
	static const uint32_t ops[] = { 0, 30, 70, 150, 280, 500 };

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct ftl_config cfg;
		struct fx_geo g;
		struct fx *x;
		const struct ftl_gc *gc;

		fx_cfg_default(&cfg);
		cfg.op_permille = ops[i];
		fx_geo_small(&g);
		g.blocks = 128;
		x = fx_new(&g, &cfg, false);
		gc = &x->f->gc;
		assert_true(gc->lvl_urgent >= 2);
		assert_true(gc->lvl_urgent < gc->lvl_fg);
		assert_true(gc->lvl_fg <= gc->lvl_bg && gc->lvl_bg <= gc->lvl_idle);
		/* Above the floors, every level is within the spare. */
		if (gc->spare >= 8)
			assert_true(gc->lvl_idle <= gc->spare);
		if (ops[i] >= 280)
			assert_true(gc->lvl_bg > gc->lvl_fg); /* a background band */
		fx_free(x);
	}
}

/* ---- crash during GC batches ---- */

/*
 * Power loss in the middle of GC batches (translation pages loaded,
 * updated and written back, units moved, victim not erased yet), with and
 * without writes since the last flush: recovery brings back every flushed
 * LBA, and unflushed ones as flushed or as written, never garbage.
 */
static void test_gc_batch_crash(void **state)
{
	struct ftl_config cfg;
	struct gc_levels lv;
	struct fx_geo g;
	struct fx_crash_log l;
	struct fx *x;
	uint32_t crashes_mid = 0;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 3 * FTL_UNIT;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	fx_log_flushed(&l);
	for (int cycle = 0; cycle < 8; cycle++) {
		uint64_t wb;

		for (uint32_t done = 0; done < x->cap / 3;) {
			uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap - nr);

			if (fx_below(x, 100) < 4) {
				fx_trim(x, lba, nr);
			} else {
				fx_write(x, lba, nr);
				done += nr;
			}
			fx_log_add(&l, lba, nr);
		}
		if (cycle % 3 == 0) {
			fx_flush(x);
			fx_log_flushed(&l);
		}
		/* Start a victim and stop the power once some batches are written back. */
		fx_drain(x);
		force_gc(x, &lv);
		ftl_gc_step(x->f);
		unforce_gc(x, &lv);
		wb = fx_stats(x).gc_tp_writebacks;
		for (uint32_t k = 1 + fx_below(x, 4);
		     x->f->gc.active && k && fx_step(x);)
			if (fx_stats(x).gc_tp_writebacks >= wb + k)
				k = 0;
		crashes_mid += x->f->gc.active && x->f->gc.tp_waiter.stage >= GC_READ;
		fx_crash(x);
		assert_int_equal(fx_ftl_create(x), 0);
		fx_log_check(&l);
		fx_check_invariants(x, false);
	}
	assert_true(crashes_mid >= 4);
	/* GC through everything again: nothing recovered may get lost. */
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_verify_all(x);
	fx_check_invariants(x, false);
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
		FX_TEST(test_gc_batch_crash),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
