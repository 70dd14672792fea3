/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predictable latency in the FTL (ftl/plm.c and its hooks in gc.c,
 * gc_policy.c, ftl.c), in virtual time: the windows and their refusals, the figures,
 * GC deferred in a deterministic window (no victim, no erase, no pacing,
 * below the foreground level) where the same writes without it make GC
 * run, the window ending by itself at the urgent level (an excursion) and
 * when a budget of reads, writes or time runs out, warnings against the
 * host's thresholds and the event callback, GC stopped between two rounds
 * of a victim and finishing it after the window, a clean stop inside one.
 */
#include "plm_tests.h"
#include "ftl_internal.h"

#define MS (1000ull * 1000)

/* Room for windows: 4 dies x 64 blocks, 30% over-provisioning. */
static struct fx *plm_fx(void)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;

	fx_cfg_default(&cfg);
	cfg.op_permille = 300;
	fx_geo_small(&g);
	g.blocks = 64;
	x = fx_new(&g, &cfg, false);
	assert_true(fx_gc(x).lvl_idle > fx_gc(x).lvl_fg);
	assert_true(fx_gc(x).lvl_fg >= fx_gc(x).lvl_urgent + 2);
	return x;
}

static struct ftl_plm_info plm(struct fx *x)
{
	struct ftl_plm_info i;

	ftl_plm_info(x->f, &i);
	return i;
}

/* Move virtual time to @t (running what is due on the way), then ftl_process(). */
static void run_to(struct fx *x, uint64_t t)
{
	if (t > x->vd.clock.virt_ns)
		ftl_vdrive_run(&x->vd, x->f, t);
	ftl_process(x->f);
}

/* The daemon's side of ops->plm_event. */
static int plm_events_seen;
static struct ftl_env_ops plm_ops;

static void on_plm_event(void *ctx)
{
	(void)ctx;
	plm_events_seen++;
}

static void watch_events(struct fx *x)
{
	plm_ops = *x->f->env.ops;
	plm_ops.plm_event = on_plm_event;
	x->f->env.ops = &plm_ops;
	plm_events_seen = 0;
}

/* Enable, and wait out the NDWIN minimum: a DTWIN may start now. */
static void plm_ready(struct fx *x, const struct ftl_plm_warn *warn)
{
	assert_int_equal(ftl_plm_config(x->f, true, warn), 0);
	run_to(x, plm(x).dtwin_ready_ns);
}

/* Full, overwritten once at random, quiet: GC has worked. */
static void plm_prep(struct fx *x)
{
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_drain(x);
	assert_true(fx_stats(x).gc_runs > 0);
}

/* 1. Off by default; windows only once enabled; the NDWIN minimum; figures. */
void test_plm_windows(void **state)
{
	struct fx *x = plm_fx();
	struct ftl_gc_info g = fx_gc(x);
	struct ftl_plm_info i = plm(x);
	uint64_t t0, start, wt;

	(void)state;
	assert_int_equal(i.window, FTL_PLM_OFF);
	assert_int_equal(i.events, 0);
	assert_int_equal(ftl_plm_deadline(x->f), UINT64_MAX);
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), -EINVAL);
	assert_int_equal(ftl_set_deterministic(x->f, false, NULL), -EINVAL);

	/* Figures from the free space, the levels and the NAND timing. */
	assert_true(fx_activity(x).free_sbs > g.lvl_idle);
	assert_int_equal(i.writes_typical, (uint64_t)(fx_activity(x).free_sbs - g.lvl_urgent - 1) *
						   x->lay.units_per_sb / 2);
	assert_int_equal(i.time_max_ns, FTL_PLM_DTWIN_MAX_NS);
	assert_true(i.read_typ_ns > 50000); /* TLC: tR 56-74 us */
	assert_true(i.read_typ_ns < 200000);
	assert_true(i.prog_typ_ns > 1000000 && i.prog_max_ns >= i.prog_typ_ns);
	assert_int_equal(i.read_max_dtwin_ns, i.read_typ_ns + i.prog_max_ns);
	assert_true(i.read_max_ndwin_ns > i.read_max_dtwin_ns); /* behind a 10 ms erase */
	assert_int_equal(i.reads_typical, i.time_max_ns / i.read_typ_ns * x->lay.ndies);
	assert_true(i.ndwin_min_low_ns > 10 * MS); /* a victim's pages and its erase */
	assert_true(i.ndwin_min_high_ns >= i.ndwin_min_low_ns);

	/* Enabled: NDWIN; a DTWIN only once the NDWIN minimum has passed. */
	t0 = x->vd.clock.virt_ns;
	assert_int_equal(ftl_plm_config(x->f, true, NULL), 0);
	i = plm(x);
	assert_int_equal(i.window, FTL_PLM_NDWIN);
	assert_int_equal(i.dtwin_ready_ns, t0 + i.ndwin_min_low_ns);
	assert_int_equal(i.writes_left, i.writes_typical); /* what a DTWIN begun now gets */
	assert_int_equal(i.time_left_ns, i.time_max_ns);
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), -EAGAIN);
	run_to(x, i.dtwin_ready_ns - 1);
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), -EAGAIN);
	run_to(x, i.dtwin_ready_ns);
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), 0);
	start = x->vd.clock.virt_ns;
	wt = i.writes_typical;
	i = plm(x);
	assert_int_equal(i.window, FTL_PLM_DTWIN);
	assert_int_equal(i.budget.writes, wt);
	assert_int_equal(i.writes_typical, wt);
	assert_int_equal(i.budget.reads, i.reads_typical);
	assert_int_equal(i.budget.time_ns, i.time_max_ns);
	assert_int_equal(i.time_left_ns, i.time_max_ns);
	assert_int_equal(ftl_plm_deadline(x->f), start + i.time_max_ns);
	/* Asking again changes nothing. */
	run_to(x, start + MS);
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), 0);
	assert_int_equal(plm(x).window_ns, MS);
	assert_int_equal(plm(x).time_left_ns, i.time_max_ns - MS);
	assert_int_equal(ftl_plm_config(x->f, true, NULL), 0); /* still in it */
	assert_int_equal(plm(x).window, FTL_PLM_DTWIN);

	/* Back to NDWIN: a new minimum. */
	assert_int_equal(ftl_set_deterministic(x->f, false, NULL), 0);
	assert_int_equal(plm(x).window, FTL_PLM_NDWIN);
	assert_int_equal(ftl_plm_deadline(x->f), UINT64_MAX);
	assert_int_equal(ftl_set_deterministic(x->f, false, NULL), 0);
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), -EAGAIN);
	i = plm(x);
	assert_int_equal(i.events, 0); /* the host's own transitions are no events */
	assert_int_equal(i.st.dtwins, 1);
	assert_int_equal(i.st.dtwin_ns, MS);
	assert_int_equal(i.st.exceeded + i.st.excursions, 0);

	assert_int_equal(ftl_plm_config(x->f, false, NULL), 0);
	assert_int_equal(plm(x).window, FTL_PLM_OFF);
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), -EINVAL);
	fx_free(x);
}

/*
 * 2. GC deferred: in a DTWIN the host writes until free space is below the
 * foreground level: no victim collected, nothing erased, no unit moved, no
 * write paced. The same writes with predictable latency off make GC run.
 * Writing on, free space reaches the urgent level: the window ends by
 * itself (an excursion, an event) and the writes still complete. In NDWIN
 * GC catches up to the idle level with the host busy or not.
 */
void test_plm_gc_deferred(void **state)
{
	struct fx *x = plm_fx(), *y;
	struct ftl_gc_info g = fx_gc(x);
	struct ftl_plm_budget b = { .writes = 8ull * x->cap };
	struct ftl_stats a, z;
	struct ftl_plm_info i;
	uint64_t written = 0, left = UINT64_MAX, more = 0;

	(void)state;
	plm_prep(x);
	watch_events(x);
	plm_ready(x, NULL);
	fx_drain(x); /* NDWIN: caught up to the idle level */
	assert_true(fx_activity(x).free_sbs >= g.lvl_idle);
	assert_int_equal(ftl_set_deterministic(x->f, true, &b), 0);
	a = fx_stats(x);
	while (fx_activity(x).free_sbs >= g.lvl_fg) {
		uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap - nr + 1);

		fx_write(x, lba, nr);
		written += nr;
		i = plm(x);
		assert_int_equal(i.window, FTL_PLM_DTWIN);
		assert_true(i.writes_left <= left); /* never rising */
		left = i.writes_left;
		assert_true(written < 4ull * x->cap);
	}
	fx_drain(x);
	z = fx_stats(x);
	assert_int_equal(z.gc_runs, a.gc_runs);
	assert_int_equal(z.flash_erases, a.flash_erases);
	assert_int_equal(z.gc_units_moved, a.gc_units_moved);
	assert_int_equal(z.gc_paced, a.gc_paced);
	i = plm(x);
	assert_int_equal(i.window, FTL_PLM_DTWIN);
	assert_int_equal(i.writes, written);
	assert_int_equal(i.events, 0);
	assert_int_equal(plm_events_seen, 0);
	assert_true(fx_activity(x).free_sbs < g.lvl_fg); /* GC would be pacing writes here */
	fx_verify_all(x);

	/* The control: the same instance, the same writes, no window. */
	y = plm_fx();
	plm_prep(y);
	a = fx_stats(y);
	fx_random_writes(y, y->cap, 8, written);
	fx_drain(y);
	assert_true(fx_stats(y).gc_runs > a.gc_runs);
	assert_true(fx_stats(y).flash_erases > a.flash_erases);
	fx_free(y);

	/* On to the urgent level: an excursion ends the window. */
	a = fx_stats(x);
	while (plm(x).window == FTL_PLM_DTWIN) {
		uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap - nr + 1);

		fx_write(x, lba, nr);
		more += nr;
		assert_true(more < 2ull * x->cap);
	}
	i = plm(x);
	assert_int_equal(i.window, FTL_PLM_NDWIN);
	assert_int_equal(i.events, FTL_PLM_EV_EXCURSION);
	assert_int_equal(i.st.excursions, 1);
	assert_int_equal(i.st.exceeded, 0);
	assert_true(fx_activity(x).free_sbs <= g.lvl_urgent);
	ftl_process(x->f);
	assert_int_equal(plm_events_seen, 1);

	/* NDWIN: GC catches up, the host still writing. */
	fx_random_writes(x, x->cap, 8, x->lay.units_per_sb);
	fx_drain(x);
	z = fx_stats(x);
	assert_true(z.gc_runs > a.gc_runs);
	assert_true(fx_activity(x).free_sbs >= g.lvl_idle);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* 3. A window ends by itself when its writes, reads or time run out. */
void test_plm_budgets(void **state)
{
	struct fx *x = plm_fx();
	struct ftl_plm_info i;
	uint64_t start;

	(void)state;
	fx_seq_fill(x, 0, 1024);
	watch_events(x);
	plm_ready(x, NULL);

	/* Writes: 100 units fit, the 101st runs in NDWIN. */
	assert_int_equal(ftl_set_deterministic(x->f, true, &(struct ftl_plm_budget){ .writes = 100 }),
			 0);
	for (int k = 0; k < 10; k++)
		fx_write(x, 10u * (uint32_t)k, 10);
	i = plm(x);
	assert_int_equal(i.window, FTL_PLM_DTWIN);
	assert_int_equal(i.writes, 100);
	assert_int_equal(i.writes_left, 0);
	fx_write(x, 500, 1);
	i = plm(x);
	assert_int_equal(i.window, FTL_PLM_NDWIN);
	assert_int_equal(i.events, FTL_PLM_EV_EXCEEDED);
	assert_int_equal(i.st.exceeded, 1);
	ftl_process(x->f);
	assert_int_equal(plm_events_seen, 1);
	ftl_plm_clear_events(x->f);
	assert_int_equal(plm(x).events, 0);

	/* Reads: 64 units. */
	run_to(x, plm(x).dtwin_ready_ns);
	assert_int_equal(ftl_set_deterministic(x->f, true, &(struct ftl_plm_budget){ .reads = 64 }),
			 0);
	fx_verify(x, 0, 32);
	fx_verify(x, 32, 32);
	assert_int_equal(plm(x).window, FTL_PLM_DTWIN);
	assert_int_equal(plm(x).reads_left, 0);
	fx_verify(x, 64, 1);
	assert_int_equal(plm(x).window, FTL_PLM_NDWIN);
	assert_int_equal(plm(x).events, FTL_PLM_EV_EXCEEDED);
	ftl_plm_clear_events(x->f);

	/* Time: 5 ms, no I/O; the driver runs the FTL at the deadline. */
	run_to(x, plm(x).dtwin_ready_ns);
	assert_int_equal(ftl_set_deterministic(x->f, true,
					       &(struct ftl_plm_budget){ .time_ns = 5 * MS }),
			 0);
	start = x->vd.clock.virt_ns;
	assert_int_equal(ftl_plm_deadline(x->f), start + 5 * MS);
	run_to(x, start + 5 * MS - 1);
	assert_int_equal(plm(x).window, FTL_PLM_DTWIN);
	assert_int_equal(plm(x).time_left_ns, 1);
	plm_events_seen = 0;
	run_to(x, start + 5 * MS);
	assert_int_equal(plm_events_seen, 1); /* from ftl_process() */
	i = plm(x);
	assert_int_equal(i.window, FTL_PLM_NDWIN);
	assert_int_equal(i.events, FTL_PLM_EV_EXCEEDED);
	assert_int_equal(i.st.exceeded, 3);
	assert_int_equal(i.st.dtwins, 3);

	/* Disabled: events gone, nothing more counted. */
	assert_int_equal(ftl_plm_config(x->f, false, NULL), 0);
	assert_int_equal(plm(x).events, 0);
	fx_write(x, 0, 8);
	assert_int_equal(plm(x).writes, 0);
	fx_free(x);
}

/* 4. Warnings: once per window, when an estimate falls below its threshold. */
void test_plm_warnings(void **state)
{
	struct ftl_plm_warn w = { .enable = FTL_PLM_EV_WARNS, .reads = 50, .writes = 90,
				  .time_ns = 2 * MS };
	struct ftl_plm_budget b = { .reads = 100, .writes = 100, .time_ns = 10 * MS };
	struct fx *x = plm_fx();
	uint64_t start;

	(void)state;
	fx_seq_fill(x, 0, 256);
	watch_events(x);
	plm_ready(x, &w);
	assert_int_equal(ftl_set_deterministic(x->f, true, &b), 0);
	start = x->vd.clock.virt_ns;
	/* The time warning comes first: the driver is told when. */
	assert_int_equal(ftl_plm_deadline(x->f), start + 8 * MS + 1);

	fx_verify(x, 0, 25);
	fx_verify(x, 25, 25);
	assert_int_equal(plm(x).reads_left, 50);
	assert_int_equal(plm(x).events, 0); /* not below yet */
	fx_verify(x, 50, 1);
	assert_int_equal(plm(x).events, FTL_PLM_EV_READS_WARN);
	ftl_process(x->f);
	assert_int_equal(plm_events_seen, 1);

	fx_write(x, 0, 10);
	assert_int_equal(plm(x).events, FTL_PLM_EV_READS_WARN);
	fx_write(x, 10, 1);
	assert_int_equal(plm(x).events, FTL_PLM_EV_READS_WARN | FTL_PLM_EV_WRITES_WARN);

	run_to(x, start + 8 * MS);
	assert_int_equal(plm(x).events & FTL_PLM_EV_TIME_WARN, 0);
	run_to(x, ftl_plm_deadline(x->f));
	assert_int_equal(plm(x).events, FTL_PLM_EV_WARNS);
	assert_int_equal(plm_events_seen, 3);
	assert_int_equal(ftl_plm_deadline(x->f), start + 10 * MS); /* now the end */
	assert_int_equal(plm(x).window, FTL_PLM_DTWIN); /* warnings end nothing */

	/* Cleared, they do not come back in the same window. */
	ftl_plm_clear_events(x->f);
	fx_verify(x, 60, 10);
	fx_write(x, 20, 10);
	assert_int_equal(plm(x).events, 0);
	/* New thresholds apply at once, within the window. */
	w.enable = FTL_PLM_EV_WRITES_WARN;
	assert_int_equal(ftl_plm_config(x->f, true, &w), 0);
	assert_int_equal(plm(x).events, 0); /* already raised in this window */
	fx_free(x);
}

static void stop_done(void *arg, int st)
{
	*(int *)arg = st;
}

/*
 * 5. A victim half collected when the window begins: GC stops before its
 * next round (nothing erased), finishes it in NDWIN; a clean stop in a
 * DTWIN does not wait for the window.
 */
void test_plm_gc_paused(void **state)
{
	struct fx *x = plm_fx();
	struct ftl_gc_info g;
	struct ftl_stats a;
	int32_t victim;
	int status = 1;
	uint64_t n = 0;

	(void)state;
	plm_prep(x);
	assert_int_equal(ftl_plm_config(x->f, true, NULL), 0);
	/* Writes on in NDWIN until GC is inside a victim, past the NDWIN minimum. */
	for (;;) {
		fx_write(x, fx_below(x, x->cap - 8), 8);
		n++;
		assert_true(n < 100000);
		g = fx_gc(x);
		if (x->vd.clock.virt_ns >= plm(x).dtwin_ready_ns && g.active &&
		    (g.phase == FTL_GC_PHASE_READ || g.phase == FTL_GC_PHASE_MOVE))
			break;
	}
	victim = g.victim;
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), 0);
	a = fx_stats(x);
	fx_drain(x);
	g = fx_gc(x);
	assert_true(g.active);
	assert_int_equal(g.victim, victim);
	assert_int_equal(g.phase, FTL_GC_PHASE_READ);
	assert_int_equal(fx_stats(x).gc_runs, a.gc_runs);
	assert_int_equal(fx_stats(x).flash_erases, a.flash_erases);
	/* At most the round under way moved. */
	assert_true(fx_stats(x).gc_units_moved - a.gc_units_moved <=
		    (uint64_t)x->f->gc.nrds * x->lay.slots);

	assert_int_equal(ftl_set_deterministic(x->f, false, NULL), 0);
	fx_drain(x);
	assert_true(fx_stats(x).gc_runs > a.gc_runs);
	assert_int_equal(fx_sb(x, (uint32_t)victim).state == FTL_SB_GC, false);
	fx_verify_all(x);
	fx_check_invariants(x, true);

	/* Paused again, then a clean stop: it does not wait for the window. */
	for (n = 0;; n++) {
		fx_write(x, fx_below(x, x->cap - 8), 8);
		g = fx_gc(x);
		if (x->vd.clock.virt_ns >= plm(x).dtwin_ready_ns && g.active &&
		    (g.phase == FTL_GC_PHASE_READ || g.phase == FTL_GC_PHASE_MOVE))
			break;
		assert_true(n < 100000);
	}
	assert_int_equal(ftl_set_deterministic(x->f, true, NULL), 0);
	fx_drain(x);
	assert_true(fx_gc(x).active);
	assert_int_equal(ftl_shutdown(x->f, stop_done, &status), 0);
	while (status == 1)
		if (!fx_step(x)) {
			fx_dump(x);
			fail_msg("clean stop stuck in a deterministic window");
		}
	assert_int_equal(status, 0);
	assert_false(fx_gc(x).busy);
	fx_free(x);
}
