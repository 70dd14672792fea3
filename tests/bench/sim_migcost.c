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
 * daemon's migration jobs do it (daemon/mgmt/prov_mig.c): die d of the
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

#define MC_TENANTS 2
#define MC_POOL 4096u /* ops of one tenant in flight at most */
#define MC_ZIPF_THETA 0.99
#define MC_VERIFY_READS 8192u
#define MC_MAX_SHARES 8
#define MC_MAX_DPC 16 /* dies per channel */
#define MC_MAX_CH 64
#define MC_STALL_S 60u /* virtual seconds without migration progress: stalled */

struct mc_opts {
	uint32_t shares[MC_MAX_SHARES], nshares;
	int order[MC_TENANTS], norder; /* whose channel moves (0: R, 1: W), in this order */
	double base_s, warmup_s, r_kiops, precond_x;
	uint32_t w_qd, fill_qd, ppb, blocks;
	int wl_threshold; /* the FTL's static wear-leveling threshold; -1: its default */
	uint64_t seed;
	bool debug; /* BLOX_SIM_DEBUG set: the migration's progress to stderr */
	const char *out, *outdir;
	char cmdline[2048];
};

struct mc_dev;
struct mc_tenant;

/* One die migration of a channel move. */
struct mc_move {
	uint32_t slot, src, dst; /* global die indexes */
	int status;
	uint64_t t0, t1; /* virtual ns: ftl_migrate_start() and ops->migrated() */
	uint64_t ftl_t0, ftl_t1; /* the FTL's started_ns / finished_ns */
	uint64_t busy_ns; /* the FTL's progress.busy_ns at the end */
	uint64_t bytes, bytes_plan; /* copied; what was to copy right after the start */
	uint32_t sbs, sbs_plan;
	/* NAND array time (all kinds, suspend overhead included) of the two dies. */
	uint64_t src_ns0, dst_ns0, src_ns, dst_ns;
	uint64_t dst_prog0, dst_prog; /* the destination's program array time */
	/* The moved tenant's FTL: at the start, and the changes until the end. */
	struct ftl_stats st0;
	uint64_t gc_runs, wl_runs, gc_units; /* GC and static-WL runs, units GC moved */
	uint32_t ec_min0, ec_max0, ec_min1, ec_max1; /* superblock erase counts (ftl_stats) */
};

struct mc_tenant {
	struct sim_tenant b; /* its FTL, ops, jobs and window */
	struct mc_dev *d;
	uint64_t wake_ns; /* ops->wake_at() asked for this time; 0: nothing */
	bool mig_ended; /* ops->migrated() ran */
	int mig_status;
	uint32_t ch; /* the channel its dies are on */
};

/* A channel move under way: @t's dies, die by die, to channel @to_ch. */
struct mc_job_state {
	struct mc_tenant *t;
	bool on;
	uint32_t share, from_ch, to_ch, cur;
	struct mc_move mv[MC_MAX_DPC];
	uint64_t t0, t1;
	int error; /* a refused start: -errno */
};

struct mc_dev {
	const struct mc_opts *o;
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct blox_clock clock;
	struct ftl_config fc;
	struct mc_tenant t[MC_TENANTS];
	int owner[MC_MAX_CH]; /* tenant index on each channel, -1: free */
	struct mc_job_state job;
	struct sim_loop loop; /* the run loop over both */
};

/* One tenant's figures over a window. */
struct mc_lat {
	uint64_t n;
	double kiops, mean, p50, p99, p999, max; /* its main op: R's reads, W's writes; us */
	double waf; /* flash units / host units written in the window (W) */
	uint64_t gc_runs;
};

struct mc_win {
	double secs;
	struct mc_lat lat[MC_TENANTS];
};

struct mc_point {
	int target; /* tenant index moved */
	uint32_t share, from_ch, to_ch;
	struct mc_win base, mig;
	struct mc_move mv[MC_MAX_DPC];
	uint32_t nmv;
	double secs; /* the channel's migration, first start to last end */
	double wall_s;
};

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

static void mc_open(struct mc_dev *d, const struct mc_opts *o)
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

static void mc_close(struct mc_dev *d)
{
	for (int ti = 0; ti < MC_TENANTS; ti++)
		sim_tenant_close(&d->t[ti].b);
	nand_dev_destroy(d->dev);
	nand_store_close(d->store);
}

/* ---- ops (as sim_iso.c) ---- */

static void job_reads(struct mc_tenant *t, double kiops)
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
static void mc_point(struct mc_dev *d, int ti, uint32_t share, struct mc_point *p)
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
static double mc_precondition(struct mc_dev *d)
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
static void mc_verify(struct mc_dev *d)
{
	d->t[0].b.arrivals = false;
	d->t[1].b.stop = true;
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	for (int i = 0; i < MC_TENANTS; i++)
		sim_tenant_job_closed(&d->t[i].b, SIM_TJOB_VERIFY, MC_VERIFY_READS, d->o->fill_qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	check_clean(d);
}

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%s x %ld online, %s, Linux %s; the simulator is single-threaded", m.model,
		 m.cpus, m.os, m.release);
}

/* Raw bytes of one channel of @g. */
static double channel_raw(const struct nand_geometry *g)
{
	return (double)g->dies_per_channel * g->planes_per_die * g->blocks_per_plane *
	       g->pages_per_block * g->page_size;
}

static void mc_header(struct sim_out *out, const struct mc_dev *d, double waf_pre)
{
	const struct mc_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	const struct nand_timing *tm = &d->nc.timing;
	const struct mc_tenant *r = &d->t[0], *w = &d->t[1];
	struct nand_geometry dg;
	struct ftl_layout lay;
	struct ftl_gc_info gc;
	char m[768];

	nand_geometry_default(&dg);
	machine(m, sizeof(m));
	ftl_inspect_layout(r->b.f, &lay);
	ftl_inspect_gc(w->b.f, &gc);
	sim_outf(out, "# blox-sim: experiment migcost (FlashBlox, FAST 2017): the cost of moving a"
		 " channel vSSD to another channel online\n");
	sim_outf(out, "# command: %s\n", o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (FTL CPU time is not modeled)\n", m);
	sim_outf(out, "# device: %u ch x %u die/ch x %u planes x %u blocks x %u pages x %u KiB (+%u B"
		 " OOB), TLC: nand_config_default() but pages per block (default %u) and blocks per"
		 " plane (default %u)\n",
		 g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
		 g->pages_per_block, g->page_size / 1024, g->oob_size, dg.pages_per_block,
		 dg.blocks_per_plane);
	sim_outf(out, "#   a channel is %.0f MiB raw here (%.0f MiB with the default geometry)\n",
		 channel_raw(g) / MiB, channel_raw(&dg) / MiB);
	sim_outf(out, "# timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, bus %llu"
		 " MB/s, command %llu ns; multi-plane groups %s; default suspension policy (host reads"
		 " suspend programs/erases)\n",
		 (unsigned long long)tm->t_read_ns[0] / 1000, (unsigned long long)tm->t_read_ns[1] / 1000,
		 (unsigned long long)tm->t_read_ns[2] / 1000, (unsigned long long)tm->t_prog_ns[0] / 1000,
		 (unsigned long long)tm->t_prog_ns[1] / 1000, (unsigned long long)tm->t_prog_ns[2] / 1000,
		 (unsigned long long)tm->t_erase_ns / 1000, (unsigned long long)tm->bus_mbps,
		 (unsigned long long)tm->t_cmd_ns, d->nc.multiplane ? "on" : "off");
	sim_outf(out, "# tenants (channel isolation), each its own FTL instance over the %u dies of one"
		 " channel, all blocks: %u superblocks of %.1f MiB,\n"
		 "#   capacity %u units (%.1f MiB) each; FTL defaults (op_permille %u, CMT %u KiB, MDC %u"
		 " B, greedy GC, levels %u/%u/%u/%u free superblocks),\n"
		 "#   static wear leveling when the superblocks' erase counts spread more than %u%s\n",
		 g->dies_per_channel, lay.nr_sb, lay.units_per_sb * 4096.0 / MiB, r->b.cap,
		 r->b.cap * 4096.0 / MiB, d->fc.op_permille, d->fc.cmt_bytes / 1024,
		 d->fc.mdc_enabled ? d->fc.mdc_bytes : 0, gc.lvl_idle, gc.lvl_bg, gc.lvl_fg,
		 gc.lvl_urgent, d->fc.wl_threshold,
		 o->wl_threshold >= 0 ? " (--wl-threshold; 0: off)" : " (the FTL's default)");
	sim_outf(out, "#   R (reader) on channel 0: open loop, Poisson arrivals at %.1f kIOPS of 4 KiB"
		 " reads, LBAs scrambled zipfian (theta %.2f, YCSB C); filled sequentially\n"
		 "#     (128 KiB writes, QD %u) first\n",
		 o->r_kiops, MC_ZIPF_THETA, o->fill_qd);
	sim_outf(out, "#   W (writer) on channel 1: closed loop, uniform random 4 KiB writes at QD %u;"
		 " filled, then overwritten %.1f x its capacity (WAF %.2f over that),\n"
		 "#     so its GC runs in steady state\n",
		 o->w_qd, o->precond_x, waf_pre);
	sim_outf(out, "# a channel move, as daemon/mgmt/prov_mig.c makes one: die d of the channel to"
		 " die d of a free channel (the next free one after it), one\n"
		 "#   ftl_migrate_start() after the other, each started when ops->migrated() of the one"
		 " before ran (the daemon polls at 100 ms); the tenant moved\n"
		 "#   stays there (its next move starts from there); moves in the order of --move, each"
		 " at every share in turn. Both tenants run all along; per"
		 " share and tenant moved: the move as a window (m), then a window\n"
		 "#   without migration as long as the move (at least %.1f s; b). A window's ops are"
		 " those arriving in it (R) or submitted in it (W), each to its completion.\n",
		 o->base_s);
	sim_outf(out, "# every read checked against the data written; at the end %u random LBAs of"
		 " each tenant read back and checked; seed %llu; %.1f s of both running before the"
		 " first window\n",
		 MC_VERIFY_READS, (unsigned long long)o->seed, o->warmup_s);
}

static const char *tname(int ti)
{
	return ti ? "W" : "R";
}

static void table_moves(struct sim_out *out, const struct mc_dev *d, const struct mc_point *pts,
			uint32_t n)
{
	struct nand_geometry dg;
	double scale;

	nand_geometry_default(&dg);
	scale = channel_raw(&dg) / channel_raw(&d->nc.geo);
	sim_outf(out, "## A: the channel move (all %u dies, one after the other)\n",
		 d->nc.geo.dies_per_channel);
	sim_outf(out, "# time: first ftl_migrate_start() to the last ops->migrated(), virtual s;"
		 " copied: page data the FTL copied (progress.bytes_copied, summed over the dies),\n"
		 "#   planned: what it had to copy right after each start (progress.bytes_total);"
		 " sbs: superblock copies; MB/s: copied / time;\n"
		 "#   busy%%: the FTL's busy_ns (its ops' NAND time on the busier of the two dies, per"
		 " step) / time, summed over the dies: the share the migration took;\n"
		 "#   die/min..max: the shortest and longest die migration, s; full_ch_min: time x %.2f,"
		 " a channel of the default geometry (%.0f MiB raw) as full as this one,\n"
		 "#   at the same rate (an estimate, not simulated); GiB/15min: what this rate copies in"
		 " 15 minutes; %%of19d: full_ch_min as a share of 19 days;\n"
		 "#   wall: seconds for the point (both windows)\n",
		 scale, channel_raw(&dg) / MiB);
	sim_outf(out, "%-6s %5s %-7s %8s %9s %9s %5s %7s %6s %8s %8s %11s %9s %7s %6s\n", "moved",
		 "share", "ch", "time_s", "copiedMiB", "plannedMiB", "sbs", "MB/s", "busy%",
		 "die_min", "die_max", "full_ch_min", "GiB/15min", "%of19d", "wall");
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_point *p = &pts[i];
		uint64_t bytes = 0, plan = 0, busy = 0;
		uint32_t sbs = 0;
		double dmin = 1e30, dmax = 0;
		char ch[32];

		for (uint32_t k = 0; k < p->nmv; k++) {
			const struct mc_move *mv = &p->mv[k];
			double s = (double)(mv->t1 - mv->t0) * 1e-9;

			bytes += mv->bytes;
			plan += mv->bytes_plan;
			busy += mv->busy_ns;
			sbs += mv->sbs;
			dmin = s < dmin ? s : dmin;
			dmax = s > dmax ? s : dmax;
		}
		snprintf(ch, sizeof(ch), "%u->%u", p->from_ch, p->to_ch);
		sim_outf(out, "%-6s %5u %-7s %8.2f %9.1f %10.1f %5u %7.2f %6.1f %8.2f %8.2f %11.2f %9.2f"
			 " %7.4f %6.1f\n",
			 tname(p->target), p->share, ch, p->secs, (double)bytes / MiB,
			 (double)plan / MiB, sbs, (double)bytes / 1e6 / p->secs,
			 100.0 * (double)busy * 1e-9 / p->secs, dmin, dmax, p->secs * scale / 60.0,
			 (double)bytes / p->secs * 900.0 / (MiB * 1024.0),
			 100.0 * p->secs * scale / (19.0 * 86400.0), p->wall_s);
	}
}

static void lat_cols(struct sim_out *out, const struct mc_lat *b, const struct mc_lat *m)
{
	sim_outf(out, " %7.2f %7.2f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f %9.1f %6.2f %6.2f"
		 " %6.2f",
		 b->kiops, m->kiops, b->mean, m->mean, b->p50, m->p50, b->p99, m->p99, b->p999,
		 m->p999, b->mean > 0 ? m->mean / b->mean : 0, b->p99 > 0 ? m->p99 / b->p99 : 0,
		 b->p999 > 0 ? m->p999 / b->p999 : 0);
}

static void table_lat(struct sim_out *out, const struct mc_point *pts, uint32_t n, bool moved)
{
	if (moved)
		sim_outf(out, "## B: the moved tenant's latency during the move (m) and in the window"
			 " after it without migration (b)\n");
	else
		sim_outf(out, "## C: the other tenant's latency (its own channel, untouched), the same"
			 " windows\n");
	sim_outf(out, "# R: its reads, from arrival to completion; W: its writes, from submission"
		 " to completion (closed loop: latency = QD / throughput); us;\n"
		 "# kIOPS: ops of the window per second; x_mean, x_p99, x_p99.9: m / b\n");
	sim_outf(out, "%-6s %5s %-6s %7s %7s %8s %8s %8s %8s %8s %8s %9s %9s %6s %6s %6s\n", "moved",
		 "share", "tenant", "kIOPS_b", "kIOPS_m", "mean_b", "mean_m", "p50_b", "p50_m", "p99_b",
		 "p99_m", "p99.9_b", "p99.9_m", "x_mean", "x_p99", "x_p999");
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_point *p = &pts[i];
		int ti = moved ? p->target : !p->target;

		sim_outf(out, "%-6s %5u %-6s", tname(p->target), p->share, tname(ti));
		lat_cols(out, &p->base.lat[ti], &p->mig.lat[ti]);
		sim_outf(out, "\n");
	}
}

static void table_windows(struct sim_out *out, const struct mc_point *pts, uint32_t n)
{
	sim_outf(out, "## D: the windows: length (s), ops and the longest latency (us) of both tenants,"
		 " W's WAF and GC runs\n");
	sim_outf(out, "%-6s %5s %6s %6s %8s %8s %9s %9s %8s %8s %9s %9s %6s %6s %5s %5s\n", "moved",
		 "share", "base_s", "mig_s", "R_n_b", "R_n_m", "R_max_b", "R_max_m", "W_n_b",
		 "W_n_m", "W_max_b", "W_max_m", "Wwaf_b", "Wwaf_m", "gc_b", "gc_m");
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_point *p = &pts[i];
		const struct mc_lat *rb = &p->base.lat[0], *rm = &p->mig.lat[0];
		const struct mc_lat *wb = &p->base.lat[1], *wm = &p->mig.lat[1];

		sim_outf(out, "%-6s %5u %6.2f %6.2f %8llu %8llu %9.1f %9.1f %8llu %8llu %9.1f %9.1f"
			 " %6.2f %6.2f %5llu %5llu\n",
			 tname(p->target), p->share, p->base.secs, p->mig.secs,
			 (unsigned long long)rb->n, (unsigned long long)rm->n, rb->max, rm->max,
			 (unsigned long long)wb->n, (unsigned long long)wm->n, wb->max, wm->max, wb->waf,
			 wm->waf, (unsigned long long)wb->gc_runs, (unsigned long long)wm->gc_runs);
	}
}

static void table_dies(struct sim_out *out, const struct mc_dev *d, const struct mc_point *pts,
		       uint32_t n)
{
	uint32_t dpc = d->nc.geo.dies_per_channel;

	sim_outf(out, "## E: each die migration\n");
	sim_outf(out, "# die: global index (channel x %u + die); start: s after the channel move"
		 " began; time: s; MiB/plan: copied/planned; ftl_busy%%: progress.busy_ns / time\n"
		 "#   (what the throttle holds to share/10 %%); src%%, dst%%: the NAND's array time of"
		 " the two dies (all kinds and tenants, suspend overhead included) / time;\n"
		 "#   dst_prog%%: the destination's program array time / time; gc, wl: the moved"
		 " tenant's GC runs and static wear-leveling runs (ftl_stats) during it;\n"
		 "#   gcMiB: units GC moved, MiB; ec: its superblocks' erase counts min-max (ftl_stats)"
		 " at the start and at the end\n",
		 dpc);
	sim_outf(out, "%-6s %5s %4s %4s %4s %8s %8s %8s %8s %4s %9s %6s %6s %9s %5s %4s %7s %9s %9s\n",
		 "moved", "share", "slot", "src", "dst", "start_s", "time_s", "MiB", "planMiB", "sbs",
		 "ftl_busy%", "src%", "dst%", "dst_prog%", "gc", "wl", "gcMiB", "ec_start", "ec_end");
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_point *p = &pts[i];

		for (uint32_t k = 0; k < p->nmv; k++) {
			const struct mc_move *mv = &p->mv[k];
			double ns = (double)(mv->t1 - mv->t0);
			char e0[32], e1[32];

			snprintf(e0, sizeof(e0), "%u-%u", mv->ec_min0, mv->ec_max0);
			snprintf(e1, sizeof(e1), "%u-%u", mv->ec_min1, mv->ec_max1);
			sim_outf(out, "%-6s %5u %4u %4u %4u %8.2f %8.2f %8.1f %8.1f %4u %9.1f %6.1f"
				 " %6.1f %9.1f %5llu %4llu %7.1f %9s %9s\n",
				 tname(p->target), p->share, mv->slot, mv->src, mv->dst,
				 (double)(mv->t0 - p->mv[0].t0) * 1e-9, ns * 1e-9,
				 (double)mv->bytes / MiB, (double)mv->bytes_plan / MiB, mv->sbs,
				 100.0 * (double)mv->busy_ns / ns, 100.0 * (double)mv->src_ns / ns,
				 100.0 * (double)mv->dst_ns / ns, 100.0 * (double)mv->dst_prog / ns,
				 (unsigned long long)mv->gc_runs, (unsigned long long)mv->wl_runs,
				 (double)mv->gc_units * FTL_UNIT / MiB, e0, e1);
		}
	}
}

/* ---- options ---- */

static void usage(void)
{
	printf("usage: blox-sim migcost [options]   (FlashBlox: the cost of a channel migration)\n"
	       "  --shares a,b,...       throttle shares, permille (default 1000,500,250,100)\n"
	       "  --move a,b             whose channel moves, in this order: writer and/or reader\n"
	       "                         (default writer,reader)\n"
	       "  --base-s S             window without migration after each move: as long as\n"
	       "                         the move, at least S (default 5)\n"
	       "  --warmup-s S           both running before the first window (default 1)\n"
	       "  --r-kiops X            R's Poisson read rate, kIOPS (default 10)\n"
	       "  --w-qd N               W's closed-loop queue depth (default 32)\n"
	       "  --precond-x X          W's random overwrite before measuring, x capacity (default 2)\n"
	       "  --ppb N --blocks N     pages per block and blocks per plane (default 48, 64;\n"
	       "                         the NAND default is 384, 64)\n"
	       "  --wl-threshold N       the FTL's static wear-leveling threshold (erase-count\n"
	       "                         spread; 0: off; default the FTL's, 64)\n"
	       "  --qd N                 fill and verify queue depth (default 32)\n"
	       "  --seed N               RNG seed (default 1)\n"
	       "  --out FILE             output (default docs/results/flashblox_migcost.txt)\n"
	       "  --outdir DIR           output directory (default docs/results)\n");
}

static void parse_move(void *ctx, const char *k, const char *v)
{
	struct mc_opts *o = ctx;
	char *copy = strdup(v), *tok, *save = NULL;

	if (!copy)
		sim_die("out of memory");
	o->norder = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int ti;

		if (!strcmp(tok, "reader"))
			ti = 0;
		else if (!strcmp(tok, "writer"))
			ti = 1;
		else
			sim_die("%s: reader and/or writer, got %s", k, tok);
		for (int i = 0; i < o->norder; i++)
			if (o->order[i] == ti)
				sim_die("%s: %s twice", k, tok);
		o->order[o->norder++] = ti;
	}
	free(copy);
	if (!o->norder)
		sim_die("%s needs a value", k);
}

static bool parse(struct mc_opts *o, int argc, char **argv)
{
	const struct sim_opt opts[] = {
		SIM_OPT_U32S("--shares", o->shares, &o->nshares, MC_MAX_SHARES, 1, 1000),
		SIM_OPT_FN("--move", parse_move, o),
		SIM_OPT_POS("--base-s", &o->base_s),
		SIM_OPT_POS("--warmup-s", &o->warmup_s),
		SIM_OPT_POS("--r-kiops", &o->r_kiops),
		SIM_OPT_U32("--w-qd", &o->w_qd, 1, 1024),
		SIM_OPT_POS("--precond-x", &o->precond_x),
		SIM_OPT_U32("--ppb", &o->ppb, 3, 4096),
		SIM_OPT_U32("--blocks", &o->blocks, 8, 65536),
		SIM_OPT_INT("--wl-threshold", &o->wl_threshold, 0, 1000000),
		SIM_OPT_U32("--qd", &o->fill_qd, 1, 1024),
		SIM_OPT_SEED(&o->seed),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_STR("--outdir", &o->outdir),
		SIM_OPT_END,
	};

	*o = (struct mc_opts){ .shares = { 1000, 500, 250, 100 }, .nshares = 4, .order = { 1, 0 },
			       .norder = 2, .base_s = 5, .warmup_s = 1, .r_kiops = 10, .precond_x = 2,
			       .w_qd = 32, .wl_threshold = -1, .fill_qd = 32, .ppb = 48, .blocks = 64,
			       .seed = 1, .outdir = "docs/results",
			       .debug = getenv("BLOX_SIM_DEBUG") != NULL };
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	if (!sim_opts_parse("migcost", usage, opts, argc, argv))
		return false;
	o->seed |= 1;
	if (o->ppb % 3)
		sim_die("--ppb must be a multiple of 3 (TLC)");
	return true;
}

int sim_migcost_main(int argc, char **argv)
{
	struct mc_opts o;
	struct sim_out out;
	struct mc_dev *d;
	struct mc_point *pts;
	uint32_t n = 0;
	double w0 = sim_wall_now(), waf_pre;
	char path[1024];

	if (!parse(&o, argc, argv))
		return 0;
	if (o.out)
		snprintf(path, sizeof(path), "%s", o.out);
	else
		snprintf(path, sizeof(path), "%s/flashblox_migcost.txt", o.outdir);
	out.fp = fopen(path, "w");
	if (!out.fp)
		sim_die("cannot write %s: %s", path, strerror(errno));
	fprintf(stderr, "writing %s\n", path);
	d = calloc(1, sizeof(*d));
	pts = calloc(2 * MC_MAX_SHARES, sizeof(*pts));
	if (!d || !pts)
		sim_die("out of memory");
	mc_open(d, &o);
	waf_pre = mc_precondition(d);
	fprintf(stderr, "  [preconditioned, %.1f s wall]\n", sim_wall_now() - w0);
	mc_header(&out, d, waf_pre);
	/* From here R reads and W writes without a pause until the end. */
	sim_tenant_job_closed(&d->t[1].b, SIM_TJOB_RANDW, UINT64_MAX, o.w_qd);
	job_reads(&d->t[0], o.r_kiops);
	sim_loop_run(&d->loop, blox_clock_now(&d->clock) + (uint64_t)(o.warmup_s * 1e9), NULL);
	for (int i = 0; i < o.norder; i++) {
		int ti = o.order[i];

		for (uint32_t k = 0; k < o.nshares; k++) {
			struct mc_point *p = &pts[n++];

			mc_point(d, ti, o.shares[k], p);
			fprintf(stderr, "  [%s share %u: ch %u -> %u in %.2f s virtual, %.1f s wall]\n",
				tname(ti), p->share, p->from_ch, p->to_ch, p->secs, p->wall_s);
		}
	}
	mc_verify(d);
	table_moves(&out, d, pts, n);
	table_lat(&out, pts, n, true);
	table_lat(&out, pts, n, false);
	table_windows(&out, pts, n);
	table_dies(&out, d, pts, n);
	sim_outf(&out, "# virtual time at the end: %.1f s; wall time: %.1f s\n",
		 (double)blox_clock_now(&d->clock) * 1e-9, sim_wall_now() - w0);
	sim_out_close(&out);
	mc_close(d);
	free(d);
	free(pts);
	return 0;
}
