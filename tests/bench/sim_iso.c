/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment "isolation": FlashBlox (Huang et al., FAST 2017) in
 * virtual time. Two tenants share one emulated NAND device, each through
 * an FTL instance of its own (ftl_create() with its struct ftl_resources),
 * both driven from one virtual clock, event to event:
 *
 *   R  read-mostly and latency-sensitive: open-loop Poisson arrivals of
 *      4 KiB ops at a fixed rate, --reads-pct of them reads (100: YCSB C,
 *      95: YCSB B, the rest 4 KiB writes), LBAs scrambled-zipfian (theta
 *      0.99, YCSB's) over its whole LBA space;
 *   W  write-heavy: closed-loop uniform random 4 KiB writes at a fixed
 *      queue depth, preconditioned so that its GC runs in steady state.
 *
 * Isolation levels (C = --iso-channels, default 2; every tenant has
 * C x dies-per-channel dies and the same blocks per plane, so the same
 * capacity, at every level):
 *
 *   software  both instances over the same dies (channels 0..C-1, every
 *             die), each on its own half of the blocks: dies and buses shared
 *   chip      each instance on its own dies of channels 0..2C-1, R on the
 *             even dies of each channel, W on the odd: buses shared
 *   channel   R on channels 0..C-1, W on channels C..2C-1: nothing shared
 *
 * Per level and suspension policy a fresh device: both tenants filled
 * sequentially (128 KiB writes), W then overwritten --iso-precond-x times
 * its capacity with random 4 KiB writes (GC active); from then on W writes
 * without a pause, and R runs each --reads-pct mix in turn: --iso-warmup-s,
 * then --seconds measured (the ops arriving in the window, each to its
 * completion; R is idle between mixes while W writes on).
 * Every read is checked against what was written (a header of magic, LBA
 * and version in each 4 KiB unit), and each tenant reads back a random
 * sample at the end.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define ISO_TENANTS 2
#define ISO_POOL 4096u /* ops of one tenant in flight at most */
#define ISO_ZIPF_THETA 0.99 /* YCSB's zipfian constant */
#define ISO_VERIFY_READS 8192u

enum iso_level { ISO_SOFTWARE, ISO_CHIP, ISO_CHANNEL, ISO_LEVELS };

static const char *const iso_level_name[ISO_LEVELS] = { "software", "chip", "channel" };

struct iso_dev;
struct iso_tenant;

struct iso_tenant {
	struct sim_tenant b; /* its FTL, ops, jobs and window */
	struct iso_dev *d;
	uint32_t reads_pct;
	bool uniform; /* LBAs uniform over the capacity, else scrambled zipfian */
};

struct iso_dev {
	const struct sim_opts *o;
	enum iso_level level;
	bool suspend;
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct blox_clock clock;
	struct ftl_config fc;
	struct iso_tenant t[ISO_TENANTS];
	struct sim_loop loop; /* the run loop over both */
	uint32_t pool[BLOX_FTL_MAX_DIES], npool; /* dies either tenant uses */
};

/* One measured point. */
struct iso_point {
	enum iso_level level;
	bool suspend;
	uint32_t reads_pct;
	double w_rate; /* W's open-loop kIOPS; 0: closed loop at --w-qd */
	uint64_t r_reads, r_writes, w_writes;
	double r_kiops, r_mean, r_p50, r_p99, r_p999, r_max; /* R reads, us */
	double rw_mean, rw_p99; /* R writes, us */
	double r_tp_per_read; /* R: translation-page flash reads per host read */
	double w_kiops, w_mean, w_p50, w_p99; /* W writes, us */
	double w_waf, w_waf_pre;
	uint64_t w_gc_runs, w_paced;
	uint64_t susp_prog, susp_erase, overtaken, declined, capped;
	double busy_read, busy_prog, busy_erase, busy_susp; /* % of the pool's die time */
	double chan_busy; /* % of the used channels' time */
	double wall_s;
};

/* ---- resources ---- */

static void add_die(struct ftl_resources *res, const struct nand_geometry *g, uint32_t ch,
		    uint32_t die)
{
	res->dies[res->nr_dies++] = ch * g->dies_per_channel + die;
}

/*
 * Tenant @ti's dies and blocks at level @lv, listed channel fastest (so
 * consecutive flash pages of a superblock go to different channels).
 */
static void level_resources(const struct sim_opts *o, const struct nand_geometry *g,
			    enum iso_level lv, int ti, struct ftl_resources *res)
{
	uint32_t c = o->iso_channels, dpc = g->dies_per_channel;

	memset(res, 0, sizeof(*res));
	res->nr_blocks = o->iso_blocks;
	switch (lv) {
	case ISO_SOFTWARE:
		for (uint32_t die = 0; die < dpc; die++)
			for (uint32_t ch = 0; ch < c; ch++)
				add_die(res, g, ch, die);
		res->first_block = (uint32_t)ti * o->iso_blocks;
		break;
	case ISO_CHIP:
		for (uint32_t die = (uint32_t)ti; die < dpc; die += 2)
			for (uint32_t ch = 0; ch < 2 * c; ch++)
				add_die(res, g, ch, die);
		break;
	case ISO_CHANNEL:
		for (uint32_t die = 0; die < dpc; die++)
			for (uint32_t ch = (uint32_t)ti * c; ch < (uint32_t)(ti + 1) * c; ch++)
				add_die(res, g, ch, die);
		break;
	default:
		break;
	}
}

/* "ch0:d0,2 ch1:d0,2": the dies of @res by channel. */
static void dies_text(const struct ftl_resources *res, const struct nand_geometry *g, char *buf,
		      size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (uint32_t ch = 0; ch < g->channels; ch++) {
		bool first = true;

		for (uint32_t die = 0; die < g->dies_per_channel; die++) {
			bool have = false;
			int k;

			for (uint32_t i = 0; i < res->nr_dies; i++)
				have |= res->dies[i] == ch * g->dies_per_channel + die;
			if (!have)
				continue;
			if (first)
				k = snprintf(buf + len, n - len, "%sch%u:d%u", len ? " " : "", ch, die);
			else
				k = snprintf(buf + len, n - len, ",%u", die);
			if (k < 0 || (size_t)k >= n - len)
				return;
			len += (size_t)k;
			first = false;
		}
	}
}

/* ---- the device ---- */

static void tenant_open(struct iso_dev *d, int ti)
{
	struct iso_tenant *t = &d->t[ti];
	int rc;

	t->d = d;
	t->b.name = ti ? 'W' : 'R';
	sim_tenv_init(&t->b.se, &t->b.env, NULL, d->dev, d->store, &d->clock, (uint32_t)ti);
	level_resources(d->o, &d->nc.geo, d->level, ti, &t->b.res);
	if ((rc = ftl_create(&d->fc, &t->b.env, &t->b.res, &t->b.f)))
		sim_die("isolation: ftl_create (%c, %s): %d", t->b.name, iso_level_name[d->level], rc);
	sim_tenant_start(&t->b, "isolation", ISO_POOL, d->o->seed, (uint32_t)ti);
}

static const struct sim_loop_ops iso_loop_ops; /* the run loop's part, below */

static void iso_open(struct iso_dev *d, const struct sim_opts *o, enum iso_level lv,
		     bool suspend)
{
	struct nand_geometry *g = &d->nc.geo;
	const char *why;
	bool used[BLOX_FTL_MAX_DIES] = { false };

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->level = lv;
	d->suspend = suspend;
	nand_config_default(&d->nc); /* 8 ch x 4 dies x 2 planes, TLC, default suspension */
	d->nc.multiplane = o->multiplane;
	g->pages_per_block = o->iso_ppb;
	g->blocks_per_plane = 2 * o->iso_blocks;
	if (!suspend)
		d->nc.policy = nand_suspend_never;
	if (nand_geometry_check(g, &why))
		sim_die("isolation geometry: %s", why);
	if (2 * o->iso_channels > g->channels || g->dies_per_channel % 2)
		sim_die("isolation needs 2 x --iso-channels <= %u channels and an even number of"
			" dies per channel", g->channels);
	sim_nand_open(&d->nc, &d->store, &d->dev);
	blox_clock_init_virtual(&d->clock, 1);
	sim_base_config(&d->fc, o);
	sim_gc_levels(&d->fc, o);
	for (int ti = 0; ti < ISO_TENANTS; ti++) {
		tenant_open(d, ti);
		for (uint32_t i = 0; i < d->t[ti].b.res.nr_dies; i++)
			used[d->t[ti].b.res.dies[i]] = true;
	}
	for (uint32_t i = 0; i < nand_dies(g) && i < BLOX_FTL_MAX_DIES; i++)
		if (used[i])
			d->pool[d->npool++] = i;
	d->loop = (struct sim_loop){ .dev = d->dev, .clock = &d->clock, .n = ISO_TENANTS,
				     .ops = &iso_loop_ops, .ctx = d };
	for (int ti = 0; ti < ISO_TENANTS; ti++)
		d->loop.env[ti] = &d->t[ti].b.se;
	if (d->t[0].b.cap != d->t[1].b.cap)
		sim_die("isolation: tenants of unequal capacity (%u, %u units)", d->t[0].b.cap,
			d->t[1].b.cap);
}

static void iso_close(struct iso_dev *d)
{
	for (int ti = 0; ti < ISO_TENANTS; ti++)
		sim_tenant_close(&d->t[ti].b);
	nand_dev_destroy(d->dev);
	nand_store_close(d->store);
}

/* ---- ops ---- */

static void job_mix(struct iso_tenant *t, double kiops, uint32_t reads_pct, bool uniform)
{
	t->uniform = uniform;
	t->reads_pct = reads_pct;
	sim_tenant_job_open(&t->b, kiops, uniform ? 0 : ISO_ZIPF_THETA);
}

static void arrival(struct iso_tenant *t)
{
	uint64_t now = t->b.next_arr;

	if (t->uniform) {
		if (sim_rnd(&t->b.rng) % 100 < t->reads_pct)
			sim_tenant_submit(&t->b, FTL_IO_READ, (uint32_t)(sim_rnd(&t->b.rng) % t->b.cap), 1, now);
		else
			sim_tenant_submit(&t->b, FTL_IO_WRITE, sim_tenant_free_lba(&t->b), 1, now);
	} else if (sim_rnd(&t->b.rng) % 100 < t->reads_pct) {
		sim_tenant_submit(&t->b, FTL_IO_READ, sim_zipf_lba(&t->b.z, &t->b.rng, t->b.cap), 1, now);
	} else {
		uint32_t lba = sim_zipf_lba(&t->b.z, &t->b.rng, t->b.cap);

		/* No two writes in flight to one LBA: draw again (hot LBAs). */
		for (int tries = 0; t->b.pend[lba]; tries++) {
			if (tries == 64)
				sim_die("isolation: no LBA without a write in flight (%c)", t->b.name);
			lba = sim_zipf_lba(&t->b.z, &t->b.rng, t->b.cap);
		}
		sim_tenant_submit(&t->b, FTL_IO_WRITE, lba, 1, now);
	}
	t->b.next_arr = now + sim_tenant_next_gap(&t->b);
}

/* Neither tenant has work left. */
static bool both_idle(const void *ctx)
{
	const struct iso_dev *d = ctx;

	return !sim_tenant_busy(&d->t[0].b) && !sim_tenant_busy(&d->t[1].b);
}

/* The tenant whose open-loop arrival comes first, or NULL. */
static struct iso_tenant *next_arrival(struct iso_dev *d)
{
	struct iso_tenant *at = NULL;
	uint64_t arr = UINT64_MAX;

	for (int i = 0; i < ISO_TENANTS; i++) {
		struct iso_tenant *t = &d->t[i];

		if (t->b.job == SIM_TJOB_OPEN && t->b.arrivals && t->b.next_arr < arr) {
			arr = t->b.next_arr;
			at = t;
		}
	}
	return at;
}

/* The run loop's part: the arrivals. */
static uint64_t loop_next(void *ctx)
{
	struct iso_tenant *at = next_arrival(ctx);

	return at ? at->b.next_arr : UINT64_MAX;
}

static void loop_fire(void *ctx, uint64_t now)
{
	(void)now;
	arrival(next_arrival(ctx));
}

static void loop_hang(void *ctx)
{
	struct iso_dev *d = ctx;

	sim_die("isolation: HANG: work left, nothing pending in the NAND engine, no kick"
		" (R %llu in flight, W %llu in flight)",
		(unsigned long long)d->t[0].b.inflight, (unsigned long long)d->t[1].b.inflight);
}

static const struct sim_loop_ops iso_loop_ops = {
	.next = loop_next,
	.fire = loop_fire,
	.hang = loop_hang,
};

/* R has nothing in flight and no op of the window is in flight (W may run on). */
static bool window_drained(const void *ctx)
{
	const struct iso_dev *d = ctx;

	return !sim_tenant_busy(&d->t[0].b) && !d->t[1].b.win_inflight;
}

static void check_clean(const struct iso_dev *d)
{
	for (int i = 0; i < ISO_TENANTS; i++)
		if (d->t[i].b.bad || d->t[i].b.io_errors)
			sim_die("isolation: DATA ERROR (%c): %llu bad reads, %llu I/O errors",
				d->t[i].b.name, (unsigned long long)d->t[i].b.bad,
				(unsigned long long)d->t[i].b.io_errors);
}

/* ---- one point ---- */

struct iso_snap {
	struct ftl_stats st[ISO_TENANTS];
	struct nand_suspend_stats susp;
	uint64_t busy[NAND_OP_KINDS], susp_ns, chan_ns;
};

static void snap(const struct iso_dev *d, struct iso_snap *s)
{
	const struct nand_geometry *g = &d->nc.geo;
	bool chan[64] = { false };

	memset(s, 0, sizeof(*s));
	for (int i = 0; i < ISO_TENANTS; i++)
		ftl_get_stats(d->t[i].b.f, &s->st[i]);
	s->susp = nand_dev_stats(d->dev)->suspend;
	for (uint32_t i = 0; i < d->npool; i++) {
		const struct nand_die_stats *ds = nand_die_stats(d->dev, d->pool[i]);

		for (int k = 0; k < NAND_OP_KINDS; k++)
			s->busy[k] += ds->busy_ns[k];
		s->susp_ns += ds->suspend_overhead_ns;
		chan[d->pool[i] / g->dies_per_channel] = true;
	}
	for (uint32_t ch = 0; ch < g->channels && ch < 64; ch++)
		if (chan[ch])
			s->chan_ns += nand_channel_stats(d->dev, ch)->busy_ns;
}

static uint32_t pool_channels(const struct iso_dev *d)
{
	bool chan[64] = { false };
	uint32_t n = 0;

	for (uint32_t i = 0; i < d->npool; i++)
		chan[d->pool[i] / d->nc.geo.dies_per_channel] = true;
	for (int ch = 0; ch < 64; ch++)
		n += chan[ch];
	return n;
}

/*
 * Both tenants filled, then W overwritten until its GC runs in steady
 * state; W's WAF over the overwrite into @waf_pre.
 */
static void iso_precondition(struct iso_dev *d, double *waf_pre)
{
	const struct sim_opts *o = d->o;
	struct iso_tenant *r = &d->t[0], *w = &d->t[1];
	struct iso_snap s0, s1;

	sim_tenant_job_closed(&r->b, SIM_TJOB_FILL, (r->b.cap + SIM_SEQ_UNITS - 1) / SIM_SEQ_UNITS, o->qd);
	sim_tenant_job_closed(&w->b, SIM_TJOB_FILL, (w->b.cap + SIM_SEQ_UNITS - 1) / SIM_SEQ_UNITS, o->qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	if (r->b.fill_ptr != r->b.cap || w->b.fill_ptr != w->b.cap)
		sim_die("isolation: fill stopped short");
	snap(d, &s0);
	sim_tenant_job_closed(&w->b, SIM_TJOB_RANDW, (uint64_t)(o->iso_precond_x * w->b.cap), o->iso_w_qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	snap(d, &s1);
	*waf_pre = sim_waf_between(&s0.st[1], &s1.st[1]);
	/* From here W writes until the end of the last point. */
	sim_tenant_job_closed(&w->b, SIM_TJOB_RANDW, UINT64_MAX, o->iso_w_qd);
}

/*
 * One point: R's mix p->reads_pct at its rate beside W (running since the
 * precondition; from here open loop at p->w_rate if set): warm-up, the
 * measured window, then until R and the window's ops of W are done (W
 * keeps writing).
 */
static void iso_window(struct iso_dev *d, struct iso_point *p)
{
	const struct sim_opts *o = d->o;
	struct iso_tenant *r = &d->t[0], *w = &d->t[1];
	struct iso_snap s1, s2;
	uint64_t win = (uint64_t)(o->iso_seconds * 1e9), now;
	double win_s = (double)win * 1e-9;

	if (p->w_rate > 0) {
		w->b.stop = true; /* the closed loop, if it ran */
		job_mix(w, p->w_rate, 0, true);
	} else if (w->b.job == SIM_TJOB_OPEN) {
		w->b.arrivals = false; /* back to the closed loop */
		sim_tenant_job_closed(&w->b, SIM_TJOB_RANDW, UINT64_MAX, o->iso_w_qd);
	}
	job_mix(r, o->iso_r_kiops, p->reads_pct, false);
	sim_loop_run(&d->loop, blox_clock_now(&d->clock) + (uint64_t)(o->iso_warmup_s * 1e9), NULL);
	now = blox_clock_now(&d->clock);
	for (int i = 0; i < ISO_TENANTS; i++) {
		d->t[i].b.m_on = true;
		d->t[i].b.m0 = now;
		d->t[i].b.m1 = now + win;
		blox_hist_reset(&d->t[i].b.rlat);
		blox_hist_reset(&d->t[i].b.wlat);
	}
	snap(d, &s1);
	sim_loop_run(&d->loop, now + win, NULL);
	snap(d, &s2);
	r->b.arrivals = false;
	sim_loop_run(&d->loop, UINT64_MAX, window_drained);
	for (int i = 0; i < ISO_TENANTS; i++)
		d->t[i].b.m_on = false;
	r->b.job = SIM_TJOB_NONE;

	/* R's reads. */
	p->r_reads = r->b.rlat.count;
	p->r_writes = r->b.wlat.count;
	p->r_kiops = (double)(r->b.rlat.count + r->b.wlat.count) / win_s / 1000.0;
	p->r_mean = blox_hist_mean(&r->b.rlat) / 1000.0;
	p->r_p50 = sim_us(blox_hist_quantile(&r->b.rlat, 0.50));
	p->r_p99 = sim_us(blox_hist_quantile(&r->b.rlat, 0.99));
	p->r_p999 = sim_us(blox_hist_quantile(&r->b.rlat, 0.999));
	p->r_max = sim_us(r->b.rlat.max);
	p->rw_mean = r->b.wlat.count ? blox_hist_mean(&r->b.wlat) / 1000.0 : 0;
	p->rw_p99 = r->b.wlat.count ? sim_us(blox_hist_quantile(&r->b.wlat, 0.99)) : 0;
	p->r_tp_per_read = (double)(s2.st[0].flash_tp_reads - s1.st[0].flash_tp_reads) /
			   (double)(p->r_reads ? p->r_reads : 1);
	/* W's writes. */
	p->w_writes = w->b.wlat.count;
	p->w_kiops = (double)w->b.wlat.count / win_s / 1000.0;
	p->w_mean = blox_hist_mean(&w->b.wlat) / 1000.0;
	p->w_p99 = sim_us(blox_hist_quantile(&w->b.wlat, 0.99));
	p->w_p50 = sim_us(blox_hist_quantile(&w->b.wlat, 0.50));
	p->w_waf = sim_waf_between(&s1.st[1], &s2.st[1]);
	p->w_gc_runs = s2.st[1].gc_runs - s1.st[1].gc_runs;
	p->w_paced = s2.st[1].gc_paced - s1.st[1].gc_paced;
	/* The device over the window. */
	p->susp_prog = s2.susp.suspends[NAND_OP_PROGRAM] - s1.susp.suspends[NAND_OP_PROGRAM];
	p->susp_erase = s2.susp.suspends[NAND_OP_ERASE] - s1.susp.suspends[NAND_OP_ERASE];
	p->overtaken = s2.susp.reads_overtaken - s1.susp.reads_overtaken;
	p->declined = s2.susp.declined - s1.susp.declined;
	p->capped = s2.susp.capped - s1.susp.capped;
	{
		double die_ns = (double)d->npool * (double)win;

		p->busy_read = 100.0 * (double)(s2.busy[NAND_OP_READ] - s1.busy[NAND_OP_READ]) / die_ns;
		p->busy_prog = 100.0 * (double)(s2.busy[NAND_OP_PROGRAM] - s1.busy[NAND_OP_PROGRAM]) /
			       die_ns;
		p->busy_erase = 100.0 * (double)(s2.busy[NAND_OP_ERASE] - s1.busy[NAND_OP_ERASE]) /
				die_ns;
		p->busy_susp = 100.0 * (double)(s2.susp_ns - s1.susp_ns) / die_ns;
		p->chan_busy = 100.0 * (double)(s2.chan_ns - s1.chan_ns) /
			       ((double)pool_channels(d) * (double)win);
	}
}

/* W stops; both read a random sample back and check it. */
static void iso_verify(struct iso_dev *d)
{
	d->t[1].b.stop = true;
	d->t[1].b.arrivals = false;
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	for (int i = 0; i < ISO_TENANTS; i++)
		sim_tenant_job_closed(&d->t[i].b, SIM_TJOB_VERIFY, ISO_VERIFY_READS, d->o->qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	check_clean(d);
}

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%s, Linux %s, single-threaded", m.model, m.release);
}

static void iso_header(struct sim_out *out, const struct iso_dev *d)
{
	const struct sim_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	const struct nand_timing *t = &d->nc.timing;
	const struct iso_tenant *r = &d->t[0];
	struct ftl_layout lay;
	struct ftl_gc_info gc;
	char m[512];

	machine(m, sizeof(m));
	ftl_inspect_layout(r->b.f, &lay);
	ftl_inspect_gc(r->b.f, &gc);
	sim_outf(out, "# blox-sim: experiment isolation (FlashBlox, FAST 2017): a read-mostly tenant R"
		" beside a write-heavy tenant W on one NAND device, at three isolation levels\n");
	sim_outf(out, "# command: %s\n", o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (FTL CPU time is not modeled)\n", m);
	sim_outf(out, "# device: %u ch x %u die/ch x %u planes x %u blocks x %u pages x %u KiB (+%u B OOB),"
		" TLC (nand_config_default() but pages per block and blocks per plane)\n",
	     g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
	     g->pages_per_block, g->page_size / 1024, g->oob_size);
	sim_outf(out, "# timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, bus %llu MB/s"
		" (a 16 KiB page %.1f us, a 4 KiB read %.1f us), command %llu ns; multi-plane groups %s\n",
	     (unsigned long long)t->t_read_ns[0] / 1000, (unsigned long long)t->t_read_ns[1] / 1000,
	     (unsigned long long)t->t_read_ns[2] / 1000, (unsigned long long)t->t_prog_ns[0] / 1000,
	     (unsigned long long)t->t_prog_ns[1] / 1000, (unsigned long long)t->t_prog_ns[2] / 1000,
	     (unsigned long long)t->t_erase_ns / 1000, (unsigned long long)t->bus_mbps,
	     (t->t_cmd_ns + g->page_size * 1000.0 / (double)t->bus_mbps) / 1000.0,
	     (t->t_cmd_ns + FTL_UNIT * 1000.0 / (double)t->bus_mbps) / 1000.0,
	     (unsigned long long)t->t_cmd_ns, d->nc.multiplane ? "on" : "off");
	sim_outf(out, "# suspension: 'default' = the default policy (a queued host read suspends a program"
		" or erase unless it is past %.0f%% of its array time;\n"
		"#   tSUSPEND %llu us + tRESUME %llu us, at least %llu us of array time between two"
		" suspensions, at most %u per op, at most %u reads per suspension);\n"
		"#   'never' = nand_suspend_never (a read waits for the program or erase on its die)."
		" Dies serve host reads (either tenant's, and\n"
		"#   translation-page loads) first, then GC reads, host programs, GC programs, erases.\n",
	     90.0, (unsigned long long)t->t_suspend_ns / 1000,
	     (unsigned long long)t->t_resume_ns / 1000,
	     (unsigned long long)d->nc.min_progress_ns / 1000, d->nc.max_suspends_per_op,
	     d->nc.max_reads_per_suspend);
	sim_outf(out, "# tenants: each its own FTL instance (ftl_create with its struct ftl_resources) on"
		" %u dies and %u blocks per plane:\n"
		"#   %u superblocks of %u units (%.0f MiB), capacity %u units (%.1f MiB), %u translation"
		" pages; op_permille %u, CMT %u KiB, MDC %u B,\n"
		"#   GC greedy, levels %u/%u/%u/%u free superblocks (idle/bg/fg/urgent, FTL defaults),"
		" write buffer %u pages, volatile cache on\n",
	     r->b.res.nr_dies, r->b.res.nr_blocks, lay.nr_sb, lay.units_per_sb,
	     lay.units_per_sb * 4096.0 / MiB, r->b.cap, r->b.cap * 4096.0 / MiB, lay.nr_tp,
	     d->fc.op_permille, d->fc.cmt_bytes / 1024, d->fc.mdc_enabled ? d->fc.mdc_bytes : 0,
	     gc.lvl_idle, gc.lvl_bg, gc.lvl_fg, gc.lvl_urgent, d->fc.write_buffer_pages);
	sim_outf(out, "# levels (%u dies and %u blocks per plane per tenant at every level; the die lists"
		" are in the order the FTL stripes over them, channel fastest):\n",
	     r->b.res.nr_dies, r->b.res.nr_blocks);
	for (int lv = 0; lv < ISO_LEVELS; lv++) {
		static const char *const what[ISO_LEVELS] = {
			"dies and buses shared, blocks separate",
			"dies separate, buses shared",
			"dies and buses separate",
		};
		struct ftl_resources rr, wr;
		char rd[256], wd[256];

		level_resources(o, g, (enum iso_level)lv, 0, &rr);
		level_resources(o, g, (enum iso_level)lv, 1, &wr);
		dies_text(&rr, g, rd, sizeof(rd));
		dies_text(&wr, g, wd, sizeof(wd));
		sim_outf(out, "#   %-8s (%s): R %s, blocks %u..%u; W %s, blocks %u..%u\n",
		     iso_level_name[lv], what[lv], rd, rr.first_block,
		     rr.first_block + rr.nr_blocks - 1, wd, wr.first_block,
		     wr.first_block + wr.nr_blocks - 1);
	}
	sim_outf(out, "# precondition (a fresh device per level and policy): R and W filled with 128 KiB sequential"
		" writes (QD %u each), then W overwritten %.1f x its\n"
		"#   capacity with uniform random 4 KiB writes at QD %u (its GC then runs in steady"
		" state: see W's waf and gc columns)\n",
	     o->qd, o->iso_precond_x, o->iso_w_qd);
	sim_outf(out, "# workload, both at once: R open loop, Poisson arrivals at %.1f kIOPS, 4 KiB, rd%%"
		" reads and the rest writes, LBAs scrambled zipfian\n"
		"#   (theta %.2f, YCSB's: zipf rank hashed by FNV-1a over R's capacity); rd%% 100 ="
		" YCSB C, 95 = YCSB B. W uniform random 4 KiB writes,\n"
		"#   closed loop at QD %u (as fast as its GC lets it) from the precondition on. Each"
		" device measures, in this order (W never pausing,\n"
		"#   R idle between its windows): rd%% %u beside W closed loop, rd%% %u beside W open"
		" loop (Poisson) at each --w-kiops rate, every other\n"
		"#   rd%% beside W closed loop again (so R has written nothing before any rd%% %u"
		" window).\n"
		"#   Each window: %.2f s warm-up, then %.2f s measured (the ops arriving in it, each"
		" to its completion)\n",
	     o->iso_r_kiops, ISO_ZIPF_THETA, o->iso_w_qd, o->iso_pcts[0], o->iso_pcts[0],
	     o->iso_pcts[0], o->iso_warmup_s, o->iso_seconds);
	sim_outf(out, "# every read checked against the data written; at the end %u random LBAs of each"
		" tenant read back and checked; seed %llu\n",
	     ISO_VERIFY_READS, (unsigned long long)o->seed);
}

/* W's load: "qd32" (closed loop) or "0.50k" (open loop, kIOPS). */
static const char *w_load(const struct sim_opts *o, const struct iso_point *p, char *buf, size_t n)
{
	if (p->w_rate > 0)
		snprintf(buf, n, "%.2fk", p->w_rate);
	else
		snprintf(buf, n, "qd%u", o->iso_w_qd);
	return buf;
}

static void table_header(struct sim_out *out)
{
	sim_outf(out, "## A: R's read latency (us; from arrival to completion) and W's writes\n");
	sim_outf(out, "# W: W's load, qdN = closed loop at N outstanding writes (as fast as its GC lets"
		" it), N.NNk = open loop, Poisson at N.NN kIOPS (uniform LBAs)\n"
		"# R_kIOPS: R's ops completed per second (reads and writes; the offered rate);"
		" Rw: R's own writes (rd%% < 100); tp/rd: R's translation-page flash reads per read;\n"
		"# W_kIOPS/W_*: W's writes submitted in the window, latency from submission (closed"
		" loop) or arrival (open loop); waf: W's flash units programmed / host units in the"
		" window;\n"
		"# gc: W's GC runs in the window\n");
	sim_outf(out, "%-7s %3s %-5s %-8s %7s %8s %8s %8s %8s %8s %7s %7s %5s %7s %8s %8s %8s %6s"
		" %4s\n",
	     "susp", "rd%", "W", "level", "R_kIOPS", "R_mean", "R_p50", "R_p99", "R_p99.9", "R_max",
	     "Rw_mean", "Rw_p99", "tp/rd", "W_kIOPS", "W_mean", "W_p50", "W_p99", "W_waf", "gc");
}

static void table_row(struct sim_out *out, const struct sim_opts *o, const struct iso_point *p)
{
	char wl[32];

	sim_outf(out, "%-7s %3u %-5s %-8s %7.2f %8.1f %8.1f %8.1f %8.1f %8.1f %7.1f %7.1f %5.3f %7.2f"
		" %8.1f %8.1f %8.1f %6.2f %4llu\n",
	     p->suspend ? "default" : "never", p->reads_pct, w_load(o, p, wl, sizeof(wl)),
	     iso_level_name[p->level], p->r_kiops,
	     p->r_mean, p->r_p50, p->r_p99, p->r_p999, p->r_max, p->rw_mean, p->rw_p99,
	     p->r_tp_per_read, p->w_kiops, p->w_mean, p->w_p50, p->w_p99, p->w_waf,
	     (unsigned long long)p->w_gc_runs);
}

static void device_table(struct sim_out *out, const struct sim_opts *o, const struct iso_point *pts,
			 uint32_t n)
{
	sim_outf(out, "## B: the device over the measured window\n");
	sim_outf(out, "# busy%%: array time by kind (and suspend/resume overhead) as a share of the"
		" time of the dies either tenant uses; bus%%: of the channels they are on;\n"
		"# suspensions of programs/erases and the reads served inside them; declined: the"
		" policy said no; capped: the mechanism's limits said no;\n"
		"# W_waf_pre: W's WAF over its random-write preconditioning; paced: W's host writes"
		" that waited for a GC credit in the window; wall: seconds per point\n");
	sim_outf(out, "%-7s %3s %-5s %-8s %6s %6s %6s %6s %5s %8s %8s %9s %8s %8s %9s %7s %6s\n",
	     "susp", "rd%", "W", "level", "rd%", "prog%", "ers%", "susp%", "bus%", "s_prog", "s_erase",
	     "overtaken", "declined", "capped", "W_waf_pre", "paced", "wall");
	for (uint32_t i = 0; i < n; i++) {
		const struct iso_point *p = &pts[i];
		char wl[32];

		sim_outf(out, "%-7s %3u %-5s %-8s %6.1f %6.1f %6.1f %6.1f %5.1f %8llu %8llu %9llu %8llu"
			" %8llu %9.2f %7llu %6.1f\n",
		     p->suspend ? "default" : "never", p->reads_pct, w_load(o, p, wl, sizeof(wl)),
		     iso_level_name[p->level],
		     p->busy_read, p->busy_prog, p->busy_erase, p->busy_susp, p->chan_busy,
		     (unsigned long long)p->susp_prog, (unsigned long long)p->susp_erase,
		     (unsigned long long)p->overtaken, (unsigned long long)p->declined,
		     (unsigned long long)p->capped, p->w_waf_pre, (unsigned long long)p->w_paced,
		     p->wall_s);
	}
}

/* The point of level @lv measured like @p (same policy, read mix and W load). */
static const struct iso_point *find_point(const struct iso_point *pts, uint32_t n,
					  const struct iso_point *p, enum iso_level lv)
{
	for (uint32_t i = 0; i < n; i++)
		if (pts[i].suspend == p->suspend && pts[i].reads_pct == p->reads_pct &&
		    pts[i].w_rate == p->w_rate && pts[i].level == lv)
			return &pts[i];
	return NULL;
}

static void ratio_table(struct sim_out *out, const struct sim_opts *o, const struct iso_point *pts,
			uint32_t n)
{
	sim_outf(out, "## C: R's read latency, software isolation over hardware isolation (x = how many"
		" times higher under software)\n");
	sim_outf(out, "%-7s %3s %-5s %13s %12s %14s %16s %15s %17s\n", "susp", "rd%", "W",
	     "sw/chip_mean", "sw/chip_p99", "sw/chip_p99.9", "sw/channel_mean", "sw/channel_p99",
	     "sw/channel_p99.9");
	for (uint32_t i = 0; i < n; i++) {
		const struct iso_point *sw = &pts[i], *cp, *ch;
		char a[3][32], b[3][32], wl[32];

		if (sw->level != ISO_SOFTWARE)
			continue;
		cp = find_point(pts, n, sw, ISO_CHIP);
		ch = find_point(pts, n, sw, ISO_CHANNEL);
		if (!cp && !ch)
			continue;
		for (int j = 0; j < 3; j++) {
			double v = j == 0 ? sw->r_mean : j == 1 ? sw->r_p99 : sw->r_p999;

			snprintf(a[j], sizeof(a[j]), "-");
			snprintf(b[j], sizeof(b[j]), "-");
			if (cp)
				snprintf(a[j], sizeof(a[j]), "%.2f",
					 v / (j == 0 ? cp->r_mean : j == 1 ? cp->r_p99 : cp->r_p999));
			if (ch)
				snprintf(b[j], sizeof(b[j]), "%.2f",
					 v / (j == 0 ? ch->r_mean : j == 1 ? ch->r_p99 : ch->r_p999));
		}
		sim_outf(out, "%-7s %3u %-5s %13s %12s %14s %16s %15s %17s\n",
		     sw->suspend ? "default" : "never", sw->reads_pct, w_load(o, sw, wl, sizeof(wl)),
		     a[0], a[1], a[2], b[0], b[1], b[2]);
	}
}

void sim_exp_isolation(const struct sim_opts *o)
{
	struct sim_out out;
	struct iso_point *pts;
	uint32_t n = 0, max = 2 * (o->iso_npcts + o->iso_nw_rates) * ISO_LEVELS;
	double w0 = sim_wall_now();
	bool first = true;

	pts = calloc(max, sizeof(*pts));
	if (!pts)
		sim_die("out of memory");
	sim_out_open(&out, o, "flashblox_isolation.txt");
	for (int susp = 1; susp >= 0; susp--) {
		if (o->iso_suspend != 2 && o->iso_suspend != susp)
			continue;
		for (int lv = 0; lv < ISO_LEVELS; lv++) {
			struct iso_dev *d;
			double w1 = sim_wall_now(), waf_pre;

			if (!(o->iso_levels & (1u << lv)))
				continue;
			d = calloc(1, sizeof(*d));
			if (!d)
				sim_die("out of memory");
			iso_open(d, o, (enum iso_level)lv, susp);
			if (first) {
				iso_header(&out, d);
				table_header(&out);
				first = false;
			}
			iso_precondition(d, &waf_pre);
			fprintf(stderr, "  [%s, suspension %s: preconditioned, %.1f s wall]\n",
				iso_level_name[lv], susp ? "default" : "never", sim_wall_now() - w1);
			/*
			 * The first read mix beside W closed loop, then beside W open
			 * loop at each rate (before any other mix has R write), then
			 * the other mixes beside W closed loop again.
			 */
			for (uint32_t k = 0; k < o->iso_npcts + o->iso_nw_rates; k++) {
				struct iso_point *p = &pts[n++];
				double w2 = sim_wall_now();
				bool open = k >= 1 && k <= o->iso_nw_rates;

				p->level = (enum iso_level)lv;
				p->suspend = susp;
				p->reads_pct = o->iso_pcts[k == 0 || open ? 0 : k - o->iso_nw_rates];
				p->w_rate = open ? o->iso_w_rates[k - 1] : 0;
				p->w_waf_pre = waf_pre;
				iso_window(d, p);
				p->wall_s = sim_wall_now() - w2;
				table_row(&out, o, p);
			}
			iso_verify(d);
			fprintf(stderr, "  [%.1f s wall]\n", sim_wall_now() - w1);
			iso_close(d);
			free(d);
		}
	}
	device_table(&out, o, pts, n);
	ratio_table(&out, o, pts, n);
	sim_outf(&out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
	free(pts);
}
