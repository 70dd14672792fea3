/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment "migcost": what a FlashBlox channel migration
 * (Huang et al., FAST 2017) costs, in virtual time. Two tenants on one
 * emulated NAND device, each its own FTL instance on a channel of its own
 * (channel isolation), both running all along:
 *
 *   R  the latency-sensitive reader: open-loop Poisson arrivals of 4 KiB
 *      reads (YCSB C), LBAs scrambled zipfian (theta 0.99) over its
 *      capacity; filled sequentially first;
 *   W  the writer: closed-loop uniform random 4 KiB writes at a fixed
 *      queue depth, preconditioned (filled, then overwritten) so that its
 *      GC runs in steady state.
 *
 * Then one tenant's whole channel moves to a free channel the way the
 * daemon's migration jobs do it (daemon/prov/prov_mig.c): die d of the
 * channel to die d of the destination, one die migration
 * (ftl_migrate_start()) after the other, each started as soon as the one
 * before ended (ops->migrated()), at a throttle share. For each share and
 * each tenant moved: the migration as a window, then a window without
 * migration as long as it (at least --base-s); both tenants' latencies in
 * both. The moved tenant stays on its new channel; the next migration
 * moves it on to the next free one.
 *
 * Every read is checked against what was written; at the end both tenants
 * read a random sample back. BLOX_SIM_DEBUG in the environment prints the
 * moving tenant's FTL (migration progress, free superblocks, GC, waiting
 * writes) every 0.25 s of a move to stderr.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blox_util.h"
#include "sim.h"
#include "sim_migcost.h"

/* ---- the FTL's environment ---- */

/* From ftl_process(): the run loop starts the next die's migration (not from in here). */
static void env_migrated(void *ctx, int status)
{
	struct mc_tenant *t = container_of(ctx, struct mc_tenant, b.se);

	t->mig_ended = true;
	t->mig_status = status;
}

/*
 * The FTL asks once per wait; a later ask replaces an earlier one (the
 * FTL's wait only moves on after a step, which is after the earlier time,
 * or is reset).
 */
static void env_wake_at(void *ctx, uint64_t ns)
{
	struct mc_tenant *t = container_of(ctx, struct mc_tenant, b.se);

	t->wake_ns = ns ? ns : 1;
}

static const struct ftl_env_ops mc_env_ops = {
	.submit = sim_tenv_submit,
	.now = sim_tenv_now,
	.kick = sim_tenv_kick,
	.sync = sim_tenv_sync,
	.migrated = env_migrated,
	.wake_at = env_wake_at,
};

/* ---- the device ---- */

static void tenant_open(struct mc_dev *d, int ti, uint32_t ch)
{
	struct mc_tenant *t = &d->t[ti];
	const struct nand_geometry *g = &d->nc.geo;
	int rc;

	t->d = d;
	t->b.name = ti ? 'W' : 'R';
	t->ch = ch;
	sim_tenv_init(&t->b.se, &t->b.env, &mc_env_ops, d->dev, d->store, &d->clock, (uint32_t)ti);
	memset(&t->b.res, 0, sizeof(t->b.res));
	for (uint32_t die = 0; die < g->dies_per_channel; die++)
		t->b.res.dies[t->b.res.nr_dies++] = ch * g->dies_per_channel + die;
	t->b.res.first_block = 0;
	t->b.res.nr_blocks = g->blocks_per_plane;
	if ((rc = ftl_create(&d->fc, &t->b.env, &t->b.res, &t->b.f)))
		sim_die("migcost: ftl_create (%c): %d", t->b.name, rc);
	d->owner[ch] = ti;
	sim_tenant_start(&t->b, "migcost", MC_POOL, d->o->seed, (uint32_t)ti);
}

static const struct sim_loop_ops mc_loop_ops; /* the run loop's part, below */

void mc_open(struct mc_dev *d, const struct mc_opts *o)
{
	struct nand_geometry *g = &d->nc.geo;
	const char *why;

	memset(d, 0, sizeof(*d));
	d->o = o;
	nand_config_default(&d->nc); /* 8 ch x 4 dies x 2 planes, TLC, default suspension */
	g->pages_per_block = o->ppb;
	g->blocks_per_plane = o->blocks;
	if (nand_geometry_check(g, &why))
		sim_die("migcost geometry: %s", why);
	if (g->channels < 3 || g->channels > MC_MAX_CH || g->dies_per_channel > MC_MAX_DPC)
		sim_die("migcost needs 3..%u channels of at most %u dies", MC_MAX_CH, MC_MAX_DPC);
	sim_nand_open(&d->nc, &d->store, &d->dev);
	blox_clock_init_virtual(&d->clock, 1);
	ftl_config_default(&d->fc);
	if (o->wl_threshold >= 0)
		d->fc.wl_threshold = (uint32_t)o->wl_threshold;
	for (uint32_t ch = 0; ch < MC_MAX_CH; ch++)
		d->owner[ch] = -1;
	tenant_open(d, 0, 0); /* R on channel 0 */
	tenant_open(d, 1, 1); /* W on channel 1 */
	d->loop = (struct sim_loop){ .dev = d->dev, .clock = &d->clock, .n = MC_TENANTS,
				     .ops = &mc_loop_ops, .ctx = d };
	for (int ti = 0; ti < MC_TENANTS; ti++)
		d->loop.env[ti] = &d->t[ti].b.se;
}

void mc_close(struct mc_dev *d)
{
	for (int ti = 0; ti < MC_TENANTS; ti++)
		sim_tenant_close(&d->t[ti].b);
	nand_dev_destroy(d->dev);
	nand_store_close(d->store);
}

/* ---- ops (as sim_iso.c) ---- */

void mc_job_reads(struct mc_tenant *t, double kiops)
{
	sim_tenant_job_open(&t->b, kiops, MC_ZIPF_THETA);
}

static void arrival(struct mc_tenant *t)
{
	uint64_t now = t->b.next_arr;

	sim_tenant_submit(&t->b, FTL_IO_READ, sim_zipf_lba(&t->b.z, &t->b.rng, t->b.cap), 1, now);
	t->b.next_arr = now + sim_tenant_next_gap(&t->b);
}

static bool both_idle(const void *ctx)
{
	const struct mc_dev *d = ctx;

	return !sim_tenant_busy(&d->t[0].b) && !sim_tenant_busy(&d->t[1].b);
}

/* No op of a window is in flight (both tenants run on). */
static bool window_drained(const void *ctx)
{
	const struct mc_dev *d = ctx;

	return !d->t[0].b.win_inflight && !d->t[1].b.win_inflight;
}

/* ---- channel moves ---- */

static uint64_t die_ns(const struct mc_dev *d, uint32_t die)
{
	const struct nand_die_stats *ds = nand_die_stats(d->dev, die);
	uint64_t n = ds->suspend_overhead_ns;

	for (int k = 0; k < NAND_OP_KINDS; k++)
		n += ds->busy_ns[k];
	return n;
}

/* Start the migration of die cur of the job's channel. */
static void move_start(struct mc_dev *d)
{
	struct mc_job_state *j = &d->job;
	struct mc_tenant *t = j->t;
	struct mc_move *mv = &j->mv[j->cur];
	uint32_t dpc = d->nc.geo.dies_per_channel;
	struct ftl_migrate_cfg cfg = { .share = j->share };
	struct ftl_migrate_progress pr;
	struct ftl_resources r;
	int rc;

	memset(mv, 0, sizeof(*mv));
	mv->src = j->from_ch * dpc + j->cur;
	mv->dst = j->to_ch * dpc + j->cur;
	ftl_get_resources(t->b.f, &r);
	for (mv->slot = 0; mv->slot < r.nr_dies && r.dies[mv->slot] != mv->src; mv->slot++)
		;
	if (mv->slot == r.nr_dies)
		sim_die("migcost: %c has no die %u", t->b.name, mv->src);
	mv->t0 = blox_clock_now(&d->clock);
	mv->src_ns0 = die_ns(d, mv->src);
	mv->dst_ns0 = die_ns(d, mv->dst);
	mv->dst_prog0 = nand_die_stats(d->dev, mv->dst)->busy_ns[NAND_OP_PROGRAM];
	ftl_get_stats(t->b.f, &mv->st0);
	mv->ec_min0 = mv->st0.min_erase;
	mv->ec_max0 = mv->st0.max_erase;
	rc = ftl_migrate_start(t->b.f, mv->slot, mv->dst, &cfg);
	if (rc) {
		j->error = rc;
		sim_die("migcost: ftl_migrate_start (%c, slot %u, die %u -> %u, share %u): %d (%s)",
			t->b.name, mv->slot, mv->src, mv->dst, j->share, rc, strerror(-rc));
	}
	ftl_migrate_progress(t->b.f, &pr);
	mv->bytes_plan = pr.bytes_total;
	mv->sbs_plan = pr.sbs_total;
}

/* ops->migrated() ran for the job's die cur: record it, start the next die or end. */
static void move_ended(struct mc_dev *d)
{
	struct mc_job_state *j = &d->job;
	struct mc_tenant *t = j->t;
	struct mc_move *mv = &j->mv[j->cur];
	struct ftl_migrate_progress pr;
	struct ftl_stats st;

	ftl_migrate_progress(t->b.f, &pr);
	ftl_get_stats(t->b.f, &st);
	mv->gc_runs = st.gc_runs - mv->st0.gc_runs;
	mv->wl_runs = st.wl_runs - mv->st0.wl_runs;
	mv->gc_units = st.gc_units_moved - mv->st0.gc_units_moved;
	mv->ec_min1 = st.min_erase;
	mv->ec_max1 = st.max_erase;
	mv->status = t->mig_status;
	if (pr.state != FTL_MIG_DONE || pr.status || t->mig_status)
		sim_die("migcost: die %u -> %u of %c ended with state %d status %d (callback %d)",
			mv->src, mv->dst, t->b.name, pr.state, pr.status, t->mig_status);
	mv->t1 = blox_clock_now(&d->clock);
	mv->ftl_t0 = pr.started_ns;
	mv->ftl_t1 = pr.finished_ns;
	mv->busy_ns = pr.busy_ns;
	mv->bytes = pr.bytes_copied;
	mv->sbs = pr.sbs_copied;
	mv->src_ns = die_ns(d, mv->src) - mv->src_ns0;
	mv->dst_ns = die_ns(d, mv->dst) - mv->dst_ns0;
	mv->dst_prog = nand_die_stats(d->dev, mv->dst)->busy_ns[NAND_OP_PROGRAM] - mv->dst_prog0;
	if (++j->cur < d->nc.geo.dies_per_channel) {
		move_start(d);
		return;
	}
	j->on = false;
	j->t1 = mv->t1;
	d->owner[j->from_ch] = -1;
	t->ch = j->to_ch;
}

/* The next free channel after @ch (round robin). */
static uint32_t next_free_channel(const struct mc_dev *d, uint32_t ch)
{
	uint32_t n = d->nc.geo.channels;

	for (uint32_t k = 1; k < n; k++)
		if (d->owner[(ch + k) % n] < 0)
			return (ch + k) % n;
	sim_die("migcost: no free channel");
}

static void job_start(struct mc_dev *d, int ti, uint32_t share)
{
	struct mc_job_state *j = &d->job;

	memset(j, 0, sizeof(*j));
	j->t = &d->t[ti];
	j->on = true;
	j->share = share;
	j->from_ch = j->t->ch;
	j->to_ch = next_free_channel(d, j->from_ch);
	d->owner[j->to_ch] = ti; /* held for the move, as fbx_reserve does */
	j->t0 = blox_clock_now(&d->clock);
	move_start(d);
}

/* The run loop's part: migrations ended, arrivals, the FTLs' wake-ups. */
static bool loop_events(void *ctx)
{
	struct mc_dev *d = ctx;
	bool any = false;

	for (int i = 0; i < MC_TENANTS; i++) {
		struct mc_tenant *t = &d->t[i];

		if (t->mig_ended) {
			t->mig_ended = false;
			if (d->job.on && d->job.t == t)
				move_ended(d);
			any = true;
		}
	}
	return any;
}

/* The tenants with the first arrival and the first wake-up (NULL: none), and their times. */
static void next_events(struct mc_dev *d, struct mc_tenant **at, uint64_t *arr,
			struct mc_tenant **wt, uint64_t *wake)
{
	*at = *wt = NULL;
	*arr = *wake = UINT64_MAX;
	for (int i = 0; i < MC_TENANTS; i++) {
		struct mc_tenant *t = &d->t[i];

		if (t->b.job == SIM_TJOB_OPEN && t->b.arrivals && t->b.next_arr < *arr) {
			*arr = t->b.next_arr;
			*at = t;
		}
		if (t->wake_ns && t->wake_ns < *wake) {
			*wake = t->wake_ns;
			*wt = t;
		}
	}
}

static uint64_t loop_next(void *ctx)
{
	struct mc_tenant *at, *wt;
	uint64_t arr, wake;

	next_events(ctx, &at, &arr, &wt, &wake);
	return wake < arr ? wake : arr;
}

/* A wake-up before an arrival at the same time. */
static void loop_fire(void *ctx, uint64_t now)
{
	struct mc_tenant *at, *wt;
	uint64_t arr, wake;

	next_events(ctx, &at, &arr, &wt, &wake);
	if (wt && wake == now) {
		wt->wake_ns = 0;
		ftl_process(wt->b.f);
		return;
	}
	arrival(at);
}

static void loop_hang(void *ctx)
{
	struct mc_dev *d = ctx;

	sim_die("migcost: HANG: work left, nothing pending in the NAND engine, no kick,"
		" no wake-up (R %llu in flight, W %llu in flight, migration %s)",
		(unsigned long long)d->t[0].b.inflight, (unsigned long long)d->t[1].b.inflight,
		d->job.on ? "on" : "off");
}

static const struct sim_loop_ops mc_loop_ops = {
	.events = loop_events,
	.next = loop_next,
	.fire = loop_fire,
	.hang = loop_hang,
};

static bool job_done(const void *ctx)
{
	const struct mc_dev *d = ctx;

	return !d->job.on;
}

static void check_clean(const struct mc_dev *d)
{
	for (int i = 0; i < MC_TENANTS; i++)
		if (d->t[i].b.bad || d->t[i].b.io_errors)
			sim_die("migcost: DATA ERROR (%c): %llu bad reads, %llu I/O errors",
				d->t[i].b.name, (unsigned long long)d->t[i].b.bad,
				(unsigned long long)d->t[i].b.io_errors);
}

/* ---- windows ---- */

static void win_begin(struct mc_dev *d, struct ftl_stats st[MC_TENANTS], uint64_t m1)
{
	uint64_t now = blox_clock_now(&d->clock);

	for (int i = 0; i < MC_TENANTS; i++) {
		struct mc_tenant *t = &d->t[i];

		t->b.m_on = true;
		t->b.m0 = now;
		t->b.m1 = m1;
		blox_hist_reset(&t->b.rlat);
		blox_hist_reset(&t->b.wlat);
		ftl_get_stats(t->b.f, &st[i]);
	}
}

/* The window ends now: no new op counts; run until its ops are done, then its figures. */
static void win_end(struct mc_dev *d, const struct ftl_stats st0[MC_TENANTS], struct mc_win *w)
{
	uint64_t now = blox_clock_now(&d->clock);
	struct ftl_stats st1[MC_TENANTS];

	w->secs = (double)(now - d->t[0].b.m0) * 1e-9;
	for (int i = 0; i < MC_TENANTS; i++) {
		d->t[i].b.m_on = false;
		ftl_get_stats(d->t[i].b.f, &st1[i]);
	}
	sim_loop_run(&d->loop, UINT64_MAX, window_drained);
	for (int i = 0; i < MC_TENANTS; i++) {
		const struct mc_tenant *t = &d->t[i];
		const struct blox_hist *h = i == 0 ? &t->b.rlat : &t->b.wlat;
		struct mc_lat *l = &w->lat[i];
		double host = (double)(st1[i].units_written_host - st0[i].units_written_host);

		l->n = h->count;
		l->kiops = (double)h->count / w->secs / 1000.0;
		l->mean = h->count ? blox_hist_mean(h) / 1000.0 : 0;
		l->p50 = sim_us(blox_hist_quantile(h, 0.50));
		l->p99 = sim_us(blox_hist_quantile(h, 0.99));
		l->p999 = sim_us(blox_hist_quantile(h, 0.999));
		l->max = sim_us(h->max);
		l->waf = host > 0 ? (sim_flash_units(&st1[i]) - sim_flash_units(&st0[i])) / host : 0;
		l->gc_runs = st1[i].gc_runs - st0[i].gc_runs;
	}
	check_clean(d);
}

/*
 * Run until the channel move is over. R's arrivals never stop, so a
 * migration that makes no progress would not hang the loop: die when a
 * die migration has copied nothing and changed state for
 * MC_STALL_S virtual seconds.
 */
static void mc_run_move(struct mc_dev *d)
{
	struct ftl_migrate_progress last, pr;
	uint32_t last_cur = UINT32_MAX;
	uint64_t since = blox_clock_now(&d->clock);

	memset(&last, 0, sizeof(last));
	while (d->job.on) {
		struct mc_tenant *t = d->job.t;

		sim_loop_run(&d->loop, blox_clock_now(&d->clock) + (d->o->debug ? 250000000ull : 1000000000ull),
			     job_done);
		if (!d->job.on)
			break;
		ftl_migrate_progress(t->b.f, &pr);
		if (d->o->debug) {
			struct ftl_activity a;
			struct ftl_gc_info g;

			struct ftl_sb_info vi = { 0 };

			ftl_inspect_activity(t->b.f, &a);
			ftl_inspect_gc(t->b.f, &g);
			if (g.victim >= 0)
				ftl_inspect_sb(t->b.f, (uint32_t)g.victim, &vi);
			fprintf(stderr, "t %.2f die %u: state %d sbs %u/%u MiB %.1f/%.1f busy %.2f s wake"
				" %.3f | %c: done %llu inflight %llu free_sbs %u gc %d/%d (ec %u, valid %u)"
				" urgent %d write_wait %u wbufs %u\n",
				(double)blox_clock_now(&d->clock) * 1e-9, d->job.cur, pr.state,
				pr.sbs_copied, pr.sbs_total, (double)pr.bytes_copied / MiB,
				(double)pr.bytes_total / MiB, (double)pr.busy_ns * 1e-9,
				(double)pr.wake_ns * 1e-9, t->b.name,
				(unsigned long long)(t->b.submitted - t->b.inflight),
				(unsigned long long)t->b.inflight, a.free_sbs, g.active, g.victim,
				vi.erase_count, vi.valid, g.urgent, a.write_waiting, a.wbufs_busy);
		}
		if (d->job.cur != last_cur || pr.bytes_copied != last.bytes_copied ||
		    pr.sbs_copied != last.sbs_copied || pr.state != last.state) {
			last = pr;
			last_cur = d->job.cur;
			since = blox_clock_now(&d->clock);
			continue;
		}
		if (blox_clock_now(&d->clock) - since >= MC_STALL_S * 1000000000ull) {
			struct ftl_activity a;
			struct ftl_gc_info g;

			ftl_inspect_activity(t->b.f, &a);
			ftl_inspect_gc(t->b.f, &g);
			sim_die("migcost: the migration of %c's die %u -> %u (share %u) made no progress"
				" for %u s: state %d status %d, %u/%u superblocks, %llu/%llu bytes, wake %llu,"
				" now %llu; free sbs %u, gc active %d victim %d",
				t->b.name, d->job.mv[d->job.cur].src, d->job.mv[d->job.cur].dst,
				d->job.share, MC_STALL_S, pr.state, pr.status, pr.sbs_copied,
				pr.sbs_total, (unsigned long long)pr.bytes_copied,
				(unsigned long long)pr.bytes_total, (unsigned long long)pr.wake_ns,
				(unsigned long long)blox_clock_now(&d->clock), a.free_sbs, g.active,
				g.victim);
		}
	}
}

/*
 * One point: tenant @ti's channel moved at @share (a window), then a
 * window without migration as long as the move (at least --base-s), so
 * that both see as many ops and the same rare events.
 */
void mc_point(struct mc_dev *d, int ti, uint32_t share, struct mc_point *p)
{
	struct ftl_stats st[MC_TENANTS];
	double w0 = sim_wall_now(), base_s;

	p->target = ti;
	p->share = share;
	win_begin(d, st, UINT64_MAX);
	job_start(d, ti, share);
	p->from_ch = d->job.from_ch;
	p->to_ch = d->job.to_ch;
	mc_run_move(d);
	win_end(d, st, &p->mig);
	p->nmv = d->nc.geo.dies_per_channel;
	memcpy(p->mv, d->job.mv, sizeof(p->mv[0]) * p->nmv);
	p->secs = (double)(d->job.t1 - d->job.t0) * 1e-9;

	base_s = p->secs > d->o->base_s ? p->secs : d->o->base_s;
	win_begin(d, st, UINT64_MAX);
	sim_loop_run(&d->loop, blox_clock_now(&d->clock) + (uint64_t)(base_s * 1e9), NULL);
	win_end(d, st, &p->base);
	p->wall_s = sim_wall_now() - w0;
}

/* Both filled; W overwritten --precond-x times its capacity; W's WAF over that. */
double mc_precondition(struct mc_dev *d)
{
	const struct mc_opts *o = d->o;
	struct mc_tenant *r = &d->t[0], *w = &d->t[1];
	struct ftl_stats s0, s1;
	double host;

	sim_tenant_job_closed(&r->b, SIM_TJOB_FILL, (r->b.cap + SIM_SEQ_UNITS - 1) / SIM_SEQ_UNITS, o->fill_qd);
	sim_tenant_job_closed(&w->b, SIM_TJOB_FILL, (w->b.cap + SIM_SEQ_UNITS - 1) / SIM_SEQ_UNITS, o->fill_qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	if (r->b.fill_ptr != r->b.cap || w->b.fill_ptr != w->b.cap)
		sim_die("migcost: fill stopped short");
	ftl_get_stats(w->b.f, &s0);
	sim_tenant_job_closed(&w->b, SIM_TJOB_RANDW, (uint64_t)(o->precond_x * w->b.cap), o->w_qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	ftl_get_stats(w->b.f, &s1);
	check_clean(d);
	host = (double)(s1.units_written_host - s0.units_written_host);
	return host > 0 ? (sim_flash_units(&s1) - sim_flash_units(&s0)) / host : 0;
}

/* W stops, R's arrivals stop; both read a random sample back. */
void mc_verify(struct mc_dev *d)
{
	d->t[0].b.arrivals = false;
	d->t[1].b.stop = true;
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	for (int i = 0; i < MC_TENANTS; i++)
		sim_tenant_job_closed(&d->t[i].b, SIM_TJOB_VERIFY, MC_VERIFY_READS, d->o->fill_qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	check_clean(d);
}

