/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Batched GC: translation-page order, tiny CMTs, races with the host, and
 * power loss in the middle of batches.
 */
#include "gc_tests.h"
/* Forcing GC: its levels set by hand, ftl_gc_step() called directly. */
#include "ftl_internal.h"

/* ---- batched GC: translation-page order, tiny CMTs, races, pacing, levels ---- */

/* Make GC collect now (any victim worth it), or go back to the levels. */
struct gc_levels {
	uint32_t bg, idle, min_invalid, urgent;
};

static void force_gc(struct fx *x, struct gc_levels *save)
{
	struct ftl_gc *g = &x->f->gc;

	save->bg = g->lvl_bg;
	save->idle = g->lvl_idle;
	save->min_invalid = g->min_invalid_bg;
	save->urgent = g->lvl_urgent;
	g->lvl_bg = g->lvl_idle = x->lay.nr_sb;
	g->min_invalid_bg = 1;
	g->futile = false;
}

static void unforce_gc(struct fx *x, const struct gc_levels *save)
{
	x->f->gc.lvl_bg = save->bg;
	x->f->gc.lvl_idle = save->idle;
	x->f->gc.min_invalid_bg = save->min_invalid;
	x->f->gc.lvl_urgent = save->urgent;
}

/* Translation pages with a valid data unit in superblock @sb; the units. */
static uint32_t victim_tps(struct fx *x, uint32_t sb, uint32_t *units)
{
	uint32_t *map = fx_tmp_alloc(FTL_UNIT), n = 0;

	*units = 0;
	for (uint32_t tp = 0; tp < x->lay.nr_tp; tp++) {
		bool any = false;

		fx_tp_contents(x, tp, map);
		for (uint32_t i = 0; i < x->lay.tp_entries; i++) {
			if (tp * x->lay.tp_entries + i >= x->lay.capacity ||
			    map[i] == FTL_UNMAPPED || map[i] / x->lay.units_per_sb != sb)
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
void test_gc_tiny_cmt_shadow(void **state)
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
		assert_int_equal(fx_gc(x).groups_max, 1);
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
void test_gc_tp_io_per_run(void **state)
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
	assert_false(fx_gc(x).busy);
	for (int run = 0; run < 3; run++) {
		a = fx_stats(x);
		force_gc(x, &lv);
		ftl_gc_step(x->f);
		unforce_gc(x, &lv);
		assert_true(fx_gc(x).active);
		v = fx_gc(x).victim;
		tps = victim_tps(x, (uint32_t)v, &units);
		assert_true(units > 4 * tps); /* worth batching */
		/* Until its units are moved (the erase follows, the next may start). */
		while (fx_gc(x).active && fx_gc(x).victim == v)
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
void test_gc_batch_races_host(void **state)
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
	assert_true(fx_gc(x).active);
	sb = (uint32_t)fx_gc(x).victim;
	tps = victim_tps(x, sb, &units);
	/* Pass 1 done: the units are listed, none moved yet. */
	while (fx_gc(x).phase == FTL_GC_PHASE_SCAN)
		assert_true(fx_step(x));
	assert_int_equal(fx_gc(x).victim_units, units);
	assert_int_equal(fx_stats(x).gc_units_moved, a.gc_units_moved);
	map = fx_tmp_alloc(FTL_UNIT);
	for (uint32_t tp = 0; tp < x->lay.nr_tp && hit < 64; tp++) {
		fx_tp_contents(x, tp, map);
		for (uint32_t i = 0; i < x->lay.tp_entries && hit < 64; i += 7) {
			uint32_t lba = tp * x->lay.tp_entries + i;

			if (lba >= x->cap || map[i] == FTL_UNMAPPED ||
			    map[i] / x->lay.units_per_sb != sb)
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

/* ---- crash during GC batches ---- */

/* A third of the capacity written at random, a few trims among the writes, logged. */
static void crash_load(struct fx *x, struct fx_crash_log *l)
{
	for (uint32_t done = 0; done < x->cap / 3;) {
		uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap - nr);

		if (fx_below(x, 100) < 4) {
			fx_trim(x, lba, nr);
		} else {
			fx_write(x, lba, nr);
			done += nr;
		}
		fx_log_add(l, lba, nr);
	}
}

/* ---- two victims in flight ---- */

/* Dies of the instance with a GC read of the victim being collected in flight. */
static uint32_t dies_reading(const struct fx *x)
{
	const struct ftl_gc *g = &x->f->gc;
	bool on[BLOX_FTL_MAX_DIES] = { false };
	uint32_t n = 0;

	for (uint32_t i = 0; i < g->nrds; i++) {
		struct nand_addr a;

		if (!g->rds[i].busy)
			continue;
		ftl_inspect_page_addr(x->f, g->rds[i].fpid, &a);
		for (uint32_t d = 0; d < x->res.nr_dies; d++)
			if (x->res.dies[d] == nand_die_index(&x->nc.geo, &a) && !on[d]) {
				on[d] = true;
				n++;
			}
	}
	return n;
}

/*
 * A collected victim waits for its programs and its erase (a tBERS on
 * every die) in an erase slot; with the pipeline GC takes the next victim
 * meanwhile, and the next victim's reads are queued on every die, more of
 * them than the 16 a victim had before: the dies do not run dry between
 * two victims. Both get erased, and nothing is lost. Without the pipeline
 * the next victim waits for the erase.
 */
static void two_victims(bool pipeline)
{
	struct ftl_config cfg;
	struct gc_levels lv;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a;
	uint32_t overlap_steps = 0, all_dies = 0, max_reads = 0, ndies;
	int32_t first;
	uint32_t first_erases;

	fx_cfg_default(&cfg);
	cfg.gc_pipeline = pipeline;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	ndies = x->lay.ndies;
	assert_true(ndies > 1);
	assert_int_equal(x->f->gc.nrds, ndies * FTL_GC_READS_PER_DIE);
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 4, x->cap);
	fx_drain(x);
	a = fx_stats(x);
	force_gc(x, &lv);
	ftl_gc_step(x->f);
	assert_true(fx_gc(x).active);
	first = fx_gc(x).victim;
	first_erases = fx_sb(x, (uint32_t)first).erase_count;
	while (fx_stats(x).gc_runs < a.gc_runs + 3) {
		struct ftl_gc_info gi = fx_gc(x);

		if (gi.active && gi.erases_pending) {
			uint32_t reads = x->f->gc.scan_reads + x->f->gc.round_reads;

			/* The one waiting for its erase is not the one collected. */
			for (uint32_t i = 0; i < FTL_GC_ERASES; i++)
				assert_true(x->f->gc.erase[i].sb != gi.victim);
			overlap_steps++;
			all_dies += dies_reading(x) == ndies;
			max_reads = reads > max_reads ? reads : max_reads;
		}
		assert_true(gi.erases_pending <= FTL_GC_ERASES);
		assert_true(fx_step(x));
	}
	unforce_gc(x, &lv);
	fx_drain(x);
	if (pipeline) {
		assert_true(overlap_steps > 0);
		assert_true(all_dies > 0);
		assert_true(max_reads > 16);
	} else {
		assert_int_equal(overlap_steps, 0);
	}
	/* The first victim was erased (and may be written again). */
	assert_true(fx_sb(x, (uint32_t)first).erase_count > first_erases);
	assert_true(fx_sb(x, (uint32_t)first).state != FTL_SB_GC &&
		    fx_sb(x, (uint32_t)first).state != FTL_SB_ERASING);
	assert_false(fx_gc(x).busy);
	assert_int_equal(fx_gc(x).erases_pending, 0);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

void test_gc_two_victims(void **state)
{
	(void)state;
	two_victims(true);
	two_victims(false);
}

/* ---- power loss during GC ---- */

/* One victim: stop once 1 to 4 translation pages are written back. true: mid-batch. */
static bool stop_mid_batch(struct fx *x)
{
	uint64_t wb = fx_stats(x).gc_tp_writebacks;

	for (uint32_t k = 1 + fx_below(x, 4); fx_gc(x).active && k && fx_step(x);)
		if (fx_stats(x).gc_tp_writebacks >= wb + k)
			k = 0;
	return fx_gc(x).active && fx_gc(x).phase >= FTL_GC_PHASE_READ;
}

/*
 * Two victims: stop once the next one moved 1 to 64 units with the first
 * one collected and not erased yet. true: got there.
 */
static bool stop_two_victims(struct fx *x)
{
	uint64_t moved = 0;
	uint32_t k = 1 + fx_below(x, 64);

	while (fx_gc(x).busy && fx_step(x)) {
		struct ftl_gc_info gi = fx_gc(x);

		if (!gi.active || !gi.erases_pending)
			moved = fx_stats(x).gc_units_moved;
		else if (fx_stats(x).gc_units_moved >= moved + k)
			break;
	}
	return fx_gc(x).active && fx_gc(x).erases_pending && fx_stats(x).gc_units_moved > moved;
}

/*
 * Power loss during GC, eight times, with and without writes since the
 * last flush: recovery brings back every flushed LBA, and unflushed ones
 * as flushed or as written, never garbage. @two: with a victim collected
 * and not erased (in an erase slot, its programs done or not) while the
 * next one is half moved, so recovery finds up to three copies of a unit;
 * else in the middle of one victim's batches (translation pages loaded,
 * updated and written back, units moved, victim not erased).
 */
static void gc_crash(bool two)
{
	struct ftl_config cfg;
	struct gc_levels lv;
	struct fx_geo g;
	struct fx_crash_log l;
	struct fx *x;
	uint32_t crashes_mid = 0;

	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 3 * FTL_UNIT;
	cfg.gc_pipeline = two;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	fx_log_flushed(&l);
	for (int cycle = 0; cycle < 8; cycle++) {
		crash_load(x, &l);
		if (cycle % (two ? 2 : 3) == 0) {
			fx_flush(x);
			fx_log_flushed(&l);
		}
		fx_drain(x);
		force_gc(x, &lv);
		if (two) {
			/* Moves go on beside a pending erase: room above the urgent level. */
			x->f->gc.lvl_urgent = 0;
			ftl_gc_step(x->f);
			crashes_mid += stop_two_victims(x);
		} else {
			ftl_gc_step(x->f);
			unforce_gc(x, &lv);
			crashes_mid += stop_mid_batch(x);
		}
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

void test_gc_batch_crash(void **state)
{
	(void)state;
	gc_crash(false);
}

void test_gc_crash_two_victims(void **state)
{
	(void)state;
	gc_crash(true);
}
