/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GC levels and pacing: foreground pacing keeps free space above urgent,
 * GC stops on an idle full device, the levels fit any over-provisioning.
 */
#include "gc_tests.h"

/* ---- foreground pacing ---- */

#define PACE_QD 16

/*
 * Sustained random 4 KiB writes at QD 16 on a device with room for a
 * pacing band: below the foreground level host writes are paced by GC
 * credits, so they keep completing while free space never drops to the
 * urgent level (where they would all stall at once), let alone to 0.
 */
void test_gc_fg_pacing(void **state)
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
	assert_true(fx_gc(x).spare >= 8);
	assert_true(fx_gc(x).lvl_fg >= fx_gc(x).lvl_urgent + 2);
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
		if (fx_activity(x).free_sbs < min_free)
			min_free = fx_activity(x).free_sbs;
		below += fx_gc(x).urgent;
		t_fg += fx_activity(x).free_sbs < fx_gc(x).lvl_fg;
	}
	fx_wait_count(x, &count, (int)written);
	b = fx_stats(x);
	if (below || min_free < fx_gc(x).lvl_urgent)
		fail_msg("free space fell to %u (urgent %u, foreground %u) in %lu of %lu steps",
			 min_free, fx_gc(x).lvl_urgent, fx_gc(x).lvl_fg, (unsigned long)below,
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
	assert_true(fx_gc(x).lvl_idle <= fx_gc(x).spare || fx_gc(x).spare < 8);
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
	if (c.gc_runs != b.gc_runs || fx_gc(x).busy)
		fail_msg("op %u: GC goes on on an idle full device: %lu runs in the last second "
			 "(free %u, levels %u/%u/%u/%u)",
			 op_permille, (unsigned long)(c.gc_runs - b.gc_runs),
			 fx_activity(x).free_sbs, fx_gc(x).lvl_urgent, fx_gc(x).lvl_fg,
			 fx_gc(x).lvl_bg, fx_gc(x).lvl_idle);
	assert_int_equal(c.flash_erases, b.flash_erases);
	/* And it still works when the host comes back. */
	fx_random_writes(x, x->cap, 8, x->cap / 4);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

void test_gc_stops_when_full(void **state)
{
	(void)state;
	stops_when_full(70, FTL_GC_GREEDY);
	stops_when_full(70, FTL_GC_COST_BENEFIT);
	stops_when_full(280, FTL_GC_GREEDY);
}

/* The default levels, in superblocks, sit inside the spare on any OP. */
void test_gc_levels_reachable(void **state)
{
	static const uint32_t ops[] = { 0, 30, 70, 150, 280, 500 };

	(void)state;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct ftl_config cfg;
		struct fx_geo g;
		struct fx *x;
		struct ftl_gc_info gc;

		fx_cfg_default(&cfg);
		cfg.op_permille = ops[i];
		fx_geo_small(&g);
		g.blocks = 128;
		x = fx_new(&g, &cfg, false);
		gc = fx_gc(x);
		assert_true(gc.lvl_urgent >= 2);
		assert_true(gc.lvl_urgent < gc.lvl_fg);
		assert_true(gc.lvl_fg <= gc.lvl_bg && gc.lvl_bg <= gc.lvl_idle);
		/* Above the floors, every level is within the spare. */
		if (gc.spare >= 8)
			assert_true(gc.lvl_idle <= gc.spare);
		if (ops[i] >= 280)
			assert_true(gc.lvl_bg > gc.lvl_fg); /* a background band */
		fx_free(x);
	}
}

/*
 * A GC storm (ftl_gc_storm): with free space far above every level, GC
 * takes the asked victims at once, counted, and no more; a storm for a
 * time ends with it; every LBA reads back after.
 */
void test_gc_storm(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct ftl_stats a, b;
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.op_permille = 500; /* half the flash free: no level is near */
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, x->cap / 2);
	for (uint32_t lba = 0; lba < x->cap / 2; lba += 64) /* a quarter invalid */
		fx_write(x, lba, 16);
	fx_flush(x);
	fx_drain(x);
	a = fx_stats(x);
	assert_int_equal(a.gc_storm_victims, 0);
	ftl_gc_storm(x->f, 3, 0);
	assert_true(fx_stats(x).gc_storm_active);
	fx_drain(x);
	b = fx_stats(x);
	assert_int_equal(b.gc_storms, 1);
	assert_int_equal(b.gc_storm_victims, 3);
	assert_false(b.gc_storm_active);
	assert_true(b.gc_runs >= a.gc_runs + 3); /* its victims erased */
	assert_true(b.gc_units_moved > a.gc_units_moved);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	/* One for 1 ns: the victim it starts with, then over. */
	ftl_gc_storm(x->f, 0, 1);
	fx_drain(x);
	assert_false(fx_stats(x).gc_storm_active);
	assert_int_equal(fx_stats(x).gc_storm_victims, 4);
	fx_verify_all(x);
	fx_free(x);
}
