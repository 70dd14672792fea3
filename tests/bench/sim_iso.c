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

struct iso_slot {
	struct ftl_io io;
	struct iso_tenant *t;
	uint8_t *buf;
	uint32_t buf_units;
	uint64_t t_arr; /* arrival (open loop) or submission (closed loop) */
	uint32_t lba, nr;
	uint32_t lo; /* read: the LBA's committed version at submission */
	bool in_win; /* submitted inside the measured window */
	uint32_t ver[SIM_SEQ_UNITS]; /* write: versions written */
};

enum iso_job {
	ISO_JOB_NONE,
	ISO_JOB_FILL, /* closed loop: the capacity in 128 KiB sequential writes */
	ISO_JOB_RANDW, /* closed loop: uniform random 4 KiB writes */
	ISO_JOB_VERIFY, /* closed loop: uniform random 4 KiB reads */
	ISO_JOB_MIX, /* open loop: Poisson arrivals, zipfian reads and writes */
};

struct iso_tenant {
	struct iso_dev *d;
	char name; /* 'R' or 'W' */
	struct ftl_env env;
	struct ftl_resources res;
	struct ftl *f;
	struct sim_tenv se; /* its FTL's environment */
	uint32_t cap;
	uint32_t *shadow; /* committed version per LBA, 0: never written */
	uint32_t *pend; /* version of the write in flight per LBA, 0: none */
	uint32_t next_ver;
	uint64_t rng;
	struct iso_slot *slots;
	uint32_t *free_idx, nfree;

	/* The running job. */
	enum iso_job job;
	uint32_t qd;
	uint64_t to_submit, submitted, inflight;
	bool stop; /* closed loop: submit no more */
	uint32_t fill_ptr;
	bool arrivals; /* open loop: arrivals on */
	uint64_t next_arr;
	double mean_gap_ns;
	uint32_t reads_pct;
	bool uniform; /* LBAs uniform over the capacity, else scrambled zipfian */
	struct sim_zipf z;

	/* Measurement: ops arriving in [m0, m1) while m_on; those in flight. */
	bool m_on;
	uint64_t m0, m1, win_inflight;
	struct blox_hist rlat, wlat;
	uint64_t bad, io_errors;
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
	t->name = ti ? 'W' : 'R';
	sim_tenv_init(&t->se, &t->env, NULL, d->dev, d->store, &d->clock, (uint32_t)ti);
	level_resources(d->o, &d->nc.geo, d->level, ti, &t->res);
	if ((rc = ftl_create(&d->fc, &t->env, &t->res, &t->f)))
		sim_die("isolation: ftl_create (%c, %s): %d", t->name, iso_level_name[d->level], rc);
	t->cap = ftl_capacity(t->f);
	t->shadow = calloc(t->cap, sizeof(*t->shadow));
	t->pend = calloc(t->cap, sizeof(*t->pend));
	t->slots = calloc(ISO_POOL, sizeof(*t->slots));
	t->free_idx = calloc(ISO_POOL, sizeof(*t->free_idx));
	if (!t->shadow || !t->pend || !t->slots || !t->free_idx)
		sim_die("out of memory");
	for (uint32_t i = 0; i < ISO_POOL; i++) {
		t->slots[i].t = t;
		t->free_idx[i] = ISO_POOL - 1 - i;
	}
	t->nfree = ISO_POOL;
	t->rng = d->o->seed * 0x9e3779b97f4a7c15ull + (uint64_t)ti * 0x632be59bd9b4e019ull + 1;
	if (!t->rng)
		t->rng = 1;
	blox_hist_reset(&t->rlat);
	blox_hist_reset(&t->wlat);
}

static void iso_open(struct iso_dev *d, const struct sim_opts *o, enum iso_level lv,
		     bool suspend)
{
	struct nand_geometry *g = &d->nc.geo;
	const char *why;
	bool used[BLOX_FTL_MAX_DIES] = { false };
	int rc;

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
	if ((rc = nand_store_ram_open(g, &d->store)))
		sim_die("store: %d", rc);
	if ((rc = nand_dev_create(&d->nc, d->store, &d->dev)))
		sim_die("nand dev: %d", rc);
	blox_clock_init_virtual(&d->clock, 1);
	sim_base_config(&d->fc, o);
	sim_gc_levels(&d->fc, o);
	for (int ti = 0; ti < ISO_TENANTS; ti++) {
		tenant_open(d, ti);
		for (uint32_t i = 0; i < d->t[ti].res.nr_dies; i++)
			used[d->t[ti].res.dies[i]] = true;
	}
	for (uint32_t i = 0; i < nand_dies(g) && i < BLOX_FTL_MAX_DIES; i++)
		if (used[i])
			d->pool[d->npool++] = i;
	if (d->t[0].cap != d->t[1].cap)
		sim_die("isolation: tenants of unequal capacity (%u, %u units)", d->t[0].cap,
			d->t[1].cap);
}

static void iso_close(struct iso_dev *d)
{
	for (int ti = 0; ti < ISO_TENANTS; ti++) {
		struct iso_tenant *t = &d->t[ti];

		ftl_destroy(t->f);
		for (uint32_t i = 0; i < ISO_POOL; i++)
			free(t->slots[i].buf);
		free(t->slots);
		free(t->free_idx);
		free(t->shadow);
		free(t->pend);
	}
	nand_dev_destroy(d->dev);
	nand_store_close(d->store);
}

/* ---- ops ---- */

static void iso_done(struct ftl_io *io);
static void closed_next(struct iso_tenant *t);

static struct iso_slot *slot_get(struct iso_tenant *t, uint32_t nr)
{
	struct iso_slot *sl;

	if (!t->nfree)
		sim_die("isolation: tenant %c has %u ops in flight; lower --r-kiops", t->name,
			ISO_POOL);
	sl = &t->slots[t->free_idx[--t->nfree]];
	if (sl->buf_units < nr) {
		free(sl->buf);
		sl->buf = calloc(nr, FTL_UNIT);
		if (!sl->buf)
			sim_die("out of memory");
		sl->buf_units = nr;
	}
	return sl;
}

static void slot_put(struct iso_tenant *t, struct iso_slot *sl)
{
	t->free_idx[t->nfree++] = (uint32_t)(sl - t->slots);
}

static void iso_submit(struct iso_tenant *t, enum ftl_io_op op, uint32_t lba, uint32_t nr,
		       uint64_t t_arr)
{
	struct iso_slot *sl = slot_get(t, nr);
	int rc;

	memset(&sl->io, 0, sizeof(sl->io));
	sl->io.op = op;
	sl->io.lba = lba;
	sl->io.nr = nr;
	sl->io.buf = sl->buf;
	sl->io.cb = iso_done;
	sl->io.cb_arg = sl;
	sl->lba = lba;
	sl->nr = nr;
	sl->t_arr = t_arr;
	sl->in_win = t->m_on && t_arr >= t->m0 && t_arr < t->m1;
	t->win_inflight += sl->in_win;
	if (op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < nr; u++) {
			uint32_t *h = (uint32_t *)(sl->buf + (size_t)u * FTL_UNIT);

			sl->ver[u] = ++t->next_ver;
			t->pend[lba + u] = sl->ver[u];
			h[0] = SIM_MAGIC;
			h[1] = lba + u;
			h[2] = sl->ver[u];
			h[1023] = ~(lba + u);
		}
	} else {
		sl->lo = t->shadow[lba];
	}
	t->submitted++;
	t->inflight++;
	if ((rc = ftl_submit(t->f, &sl->io)))
		sim_die("isolation: ftl_submit (%c): %d (lba %u nr %u)", t->name, rc, lba, nr);
}

/*
 * A read may see the version committed when it was submitted or any
 * written since (a write to the LBA in flight meanwhile), never an older
 * one; an LBA never written reads as zeroes.
 */
static void check_read(struct iso_tenant *t, const struct iso_slot *sl)
{
	const uint32_t *h = (const uint32_t *)sl->buf;
	uint32_t lba = sl->lba, hi = t->shadow[lba] > t->pend[lba] ? t->shadow[lba] : t->pend[lba];
	bool ok;

	if (h[0] == 0 && h[1] == 0 && h[2] == 0)
		ok = sl->lo == 0;
	else
		ok = h[0] == SIM_MAGIC && h[1] == lba && h[1023] == ~lba && h[2] >= sl->lo &&
		     h[2] >= 1 && h[2] <= hi;
	if (!ok && t->bad++ < 10)
		fprintf(stderr, "VERIFY (%c): lba %u: got magic %08x lba %u ver %u, want %u..%u\n",
			t->name, lba, h[0], h[1], h[2], sl->lo, hi);
}

static void iso_done(struct ftl_io *io)
{
	struct iso_slot *sl = io->cb_arg;
	struct iso_tenant *t = sl->t;
	uint64_t now = blox_clock_now(&t->d->clock);

	t->inflight--;
	if (io->status) {
		if (t->io_errors++ < 10)
			fprintf(stderr, "IO ERROR (%c): op %d lba %u nr %u status %d\n", t->name,
				io->op, io->lba, io->nr, io->status);
	} else if (io->op == FTL_IO_READ) {
		check_read(t, sl);
	}
	if (io->op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < sl->nr; u++) {
			if (!io->status)
				t->shadow[sl->lba + u] = sl->ver[u];
			t->pend[sl->lba + u] = 0;
		}
	}
	if (sl->in_win) {
		blox_hist_add(io->op == FTL_IO_READ ? &t->rlat : &t->wlat, now - sl->t_arr);
		t->win_inflight--;
	}
	slot_put(t, sl);
	if (t->job != ISO_JOB_MIX && !t->stop && t->submitted < t->to_submit)
		closed_next(t);
}

/* A uniform LBA no write of ours is in flight to. */
static uint32_t free_lba(struct iso_tenant *t)
{
	for (int tries = 0; tries < 1024; tries++) {
		uint32_t lba = (uint32_t)(sim_rnd(&t->rng) % t->cap);

		if (!t->pend[lba])
			return lba;
	}
	sim_die("isolation: no free LBA found (%c)", t->name);
}

static void closed_next(struct iso_tenant *t)
{
	uint64_t now = blox_clock_now(&t->d->clock);
	uint32_t nr;

	switch (t->job) {
	case ISO_JOB_FILL:
		nr = t->cap - t->fill_ptr < SIM_SEQ_UNITS ? t->cap - t->fill_ptr : SIM_SEQ_UNITS;
		iso_submit(t, FTL_IO_WRITE, t->fill_ptr, nr, now);
		t->fill_ptr += nr;
		break;
	case ISO_JOB_RANDW:
		iso_submit(t, FTL_IO_WRITE, free_lba(t), 1, now);
		break;
	case ISO_JOB_VERIFY:
		iso_submit(t, FTL_IO_READ, (uint32_t)(sim_rnd(&t->rng) % t->cap), 1, now);
		break;
	default:
		break;
	}
}

static void job_closed(struct iso_tenant *t, enum iso_job job, uint64_t n, uint32_t qd)
{
	t->job = job;
	t->to_submit = n;
	t->submitted = 0;
	t->stop = false;
	t->qd = qd;
	t->fill_ptr = 0;
	for (uint32_t i = 0; i < qd && t->submitted < t->to_submit; i++)
		closed_next(t);
}

static uint64_t next_gap(struct iso_tenant *t)
{
	double g = -log(sim_rnd_unit(&t->rng)) * t->mean_gap_ns;

	return g < 1.0 ? 1 : (uint64_t)g;
}

static void job_mix(struct iso_tenant *t, double kiops, uint32_t reads_pct, bool uniform)
{
	if (!uniform && t->z.n != t->cap)
		sim_zipf_init(&t->z, t->cap, ISO_ZIPF_THETA);
	t->job = ISO_JOB_MIX;
	t->uniform = uniform;
	t->reads_pct = reads_pct;
	t->mean_gap_ns = 1e6 / kiops;
	t->arrivals = true;
	t->next_arr = blox_clock_now(&t->d->clock) + next_gap(t);
}

static void arrival(struct iso_tenant *t)
{
	uint64_t now = t->next_arr;

	if (t->uniform) {
		if (sim_rnd(&t->rng) % 100 < t->reads_pct)
			iso_submit(t, FTL_IO_READ, (uint32_t)(sim_rnd(&t->rng) % t->cap), 1, now);
		else
			iso_submit(t, FTL_IO_WRITE, free_lba(t), 1, now);
	} else if (sim_rnd(&t->rng) % 100 < t->reads_pct) {
		iso_submit(t, FTL_IO_READ, sim_zipf_lba(&t->z, &t->rng, t->cap), 1, now);
	} else {
		uint32_t lba = sim_zipf_lba(&t->z, &t->rng, t->cap);

		/* No two writes in flight to one LBA: draw again (hot LBAs). */
		for (int tries = 0; t->pend[lba]; tries++) {
			if (tries == 64)
				sim_die("isolation: no LBA without a write in flight (%c)", t->name);
			lba = sim_zipf_lba(&t->z, &t->rng, t->cap);
		}
		iso_submit(t, FTL_IO_WRITE, lba, 1, now);
	}
	t->next_arr = now + next_gap(t);
}

static bool tenant_busy(const struct iso_tenant *t)
{
	if (t->inflight)
		return true;
	switch (t->job) {
	case ISO_JOB_NONE:
		return false;
	case ISO_JOB_MIX:
		return t->arrivals;
	default:
		return !t->stop && t->submitted < t->to_submit;
	}
}

/* Neither tenant has work left. */
static bool both_idle(const struct iso_dev *d)
{
	return !tenant_busy(&d->t[0]) && !tenant_busy(&d->t[1]);
}

/* R has nothing in flight and no op of the window is in flight (W may run on). */
static bool window_drained(const struct iso_dev *d)
{
	return !tenant_busy(&d->t[0]) && !d->t[1].win_inflight;
}

/*
 * Run the device, both FTLs and the arrivals, event by event, until
 * @until, or until @done (if given) says so.
 */
static void iso_run(struct iso_dev *d, uint64_t until, bool (*done)(const struct iso_dev *d))
{
	for (;;) {
		struct iso_tenant *at = NULL;
		uint64_t next, arr = UINT64_MAX, now;
		bool any = false;

		for (int i = 0; i < ISO_TENANTS; i++) {
			struct iso_tenant *t = &d->t[i];

			if (t->se.kicked) {
				t->se.kicked = false;
				ftl_process(t->f);
				any = true;
			}
		}
		if (any)
			continue;
		if (done && done(d))
			return;
		for (int i = 0; i < ISO_TENANTS; i++) {
			struct iso_tenant *t = &d->t[i];

			if (t->job == ISO_JOB_MIX && t->arrivals && t->next_arr < arr) {
				arr = t->next_arr;
				at = t;
			}
		}
		next = nand_next_event(d->dev);
		now = next < arr ? next : arr;
		if (now == UINT64_MAX && until != UINT64_MAX)
			break;
		if (now == UINT64_MAX)
			sim_die("isolation: HANG: work left, nothing pending in the NAND engine, no kick"
				" (R %llu in flight, W %llu in flight)",
				(unsigned long long)d->t[0].inflight,
				(unsigned long long)d->t[1].inflight);
		if (now > until)
			break;
		blox_clock_set(&d->clock, now);
		if (at && arr <= next) {
			arrival(at);
			continue;
		}
		nand_advance(d->dev, now);
	}
	if (until != UINT64_MAX && blox_clock_now(&d->clock) < until)
		blox_clock_set(&d->clock, until);
}

static void check_clean(const struct iso_dev *d)
{
	for (int i = 0; i < ISO_TENANTS; i++)
		if (d->t[i].bad || d->t[i].io_errors)
			sim_die("isolation: DATA ERROR (%c): %llu bad reads, %llu I/O errors",
				d->t[i].name, (unsigned long long)d->t[i].bad,
				(unsigned long long)d->t[i].io_errors);
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
		ftl_get_stats(d->t[i].f, &s->st[i]);
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

	job_closed(r, ISO_JOB_FILL, (r->cap + SIM_SEQ_UNITS - 1) / SIM_SEQ_UNITS, o->qd);
	job_closed(w, ISO_JOB_FILL, (w->cap + SIM_SEQ_UNITS - 1) / SIM_SEQ_UNITS, o->qd);
	iso_run(d, UINT64_MAX, both_idle);
	if (r->fill_ptr != r->cap || w->fill_ptr != w->cap)
		sim_die("isolation: fill stopped short");
	snap(d, &s0);
	job_closed(w, ISO_JOB_RANDW, (uint64_t)(o->iso_precond_x * w->cap), o->iso_w_qd);
	iso_run(d, UINT64_MAX, both_idle);
	snap(d, &s1);
	*waf_pre = sim_waf_between(&s0.st[1], &s1.st[1]);
	/* From here W writes until the end of the last point. */
	job_closed(w, ISO_JOB_RANDW, UINT64_MAX, o->iso_w_qd);
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
		w->stop = true; /* the closed loop, if it ran */
		job_mix(w, p->w_rate, 0, true);
	} else if (w->job == ISO_JOB_MIX) {
		w->arrivals = false; /* back to the closed loop */
		job_closed(w, ISO_JOB_RANDW, UINT64_MAX, o->iso_w_qd);
	}
	job_mix(r, o->iso_r_kiops, p->reads_pct, false);
	iso_run(d, blox_clock_now(&d->clock) + (uint64_t)(o->iso_warmup_s * 1e9), NULL);
	now = blox_clock_now(&d->clock);
	for (int i = 0; i < ISO_TENANTS; i++) {
		d->t[i].m_on = true;
		d->t[i].m0 = now;
		d->t[i].m1 = now + win;
		blox_hist_reset(&d->t[i].rlat);
		blox_hist_reset(&d->t[i].wlat);
	}
	snap(d, &s1);
	iso_run(d, now + win, NULL);
	snap(d, &s2);
	r->arrivals = false;
	iso_run(d, UINT64_MAX, window_drained);
	for (int i = 0; i < ISO_TENANTS; i++)
		d->t[i].m_on = false;
	r->job = ISO_JOB_NONE;

	/* R's reads. */
	p->r_reads = r->rlat.count;
	p->r_writes = r->wlat.count;
	p->r_kiops = (double)(r->rlat.count + r->wlat.count) / win_s / 1000.0;
	p->r_mean = blox_hist_mean(&r->rlat) / 1000.0;
	p->r_p50 = sim_us(blox_hist_quantile(&r->rlat, 0.50));
	p->r_p99 = sim_us(blox_hist_quantile(&r->rlat, 0.99));
	p->r_p999 = sim_us(blox_hist_quantile(&r->rlat, 0.999));
	p->r_max = sim_us(r->rlat.max);
	p->rw_mean = r->wlat.count ? blox_hist_mean(&r->wlat) / 1000.0 : 0;
	p->rw_p99 = r->wlat.count ? sim_us(blox_hist_quantile(&r->wlat, 0.99)) : 0;
	p->r_tp_per_read = (double)(s2.st[0].flash_tp_reads - s1.st[0].flash_tp_reads) /
			   (double)(p->r_reads ? p->r_reads : 1);
	/* W's writes. */
	p->w_writes = w->wlat.count;
	p->w_kiops = (double)w->wlat.count / win_s / 1000.0;
	p->w_mean = blox_hist_mean(&w->wlat) / 1000.0;
	p->w_p99 = sim_us(blox_hist_quantile(&w->wlat, 0.99));
	p->w_p50 = sim_us(blox_hist_quantile(&w->wlat, 0.50));
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
	d->t[1].stop = true;
	d->t[1].arrivals = false;
	iso_run(d, UINT64_MAX, both_idle);
	for (int i = 0; i < ISO_TENANTS; i++)
		job_closed(&d->t[i], ISO_JOB_VERIFY, ISO_VERIFY_READS, d->o->qd);
	iso_run(d, UINT64_MAX, both_idle);
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
	ftl_inspect_layout(r->f, &lay);
	ftl_inspect_gc(r->f, &gc);
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
	     r->res.nr_dies, r->res.nr_blocks, lay.nr_sb, lay.units_per_sb,
	     lay.units_per_sb * 4096.0 / MiB, r->cap, r->cap * 4096.0 / MiB, lay.nr_tp,
	     d->fc.op_permille, d->fc.cmt_bytes / 1024, d->fc.mdc_enabled ? d->fc.mdc_bytes : 0,
	     gc.lvl_idle, gc.lvl_bg, gc.lvl_fg, gc.lvl_urgent, d->fc.write_buffer_pages);
	sim_outf(out, "# levels (%u dies and %u blocks per plane per tenant at every level; the die lists"
		" are in the order the FTL stripes over them, channel fastest):\n",
	     r->res.nr_dies, r->res.nr_blocks);
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
