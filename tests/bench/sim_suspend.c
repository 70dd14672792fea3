/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment "suspend": program/erase suspension on a database-
 * like load, in virtual time. One FTL instance (ftl/) over a whole NAND
 * device (nand/), the same code as the daemon, driven by the virtual-time
 * driver (ftl/vdrive.c):
 *
 *   1. precondition: the capacity written sequentially (128 KiB writes),
 *      then --precond-x times the capacity in uniform random 4 KiB writes,
 *      so the device is full and GC runs in steady state;
 *   2. per queue depth (--qd, default 4 then 16): a closed loop of 4 KiB
 *      ops at uniform random LBAs, --reads-pct of them reads (default 70),
 *      the rest writes; --warmup-s, then --seconds measured: the ops
 *      submitted in the window, each to its completion (the loop keeps
 *      running until the last of them is done).
 *
 * The device is preconditioned once, with suspension off (its writes load
 * translation pages at host-read priority, so a policy would be asked);
 * then each queue depth and policy (--policies) runs in a child process
 * (fork()): a copy-on-write snapshot of the preconditioned device, so
 * every window starts from the very same state:
 *
 *   never   nand_suspend_never: a read waits for the program or erase
 *   always  nand_suspend_always: every waiting host read suspends (within
 *           the engine's mechanism: at most 8 suspensions per op, 100 us of
 *           array time between two, 16 reads per suspension)
 *   smart   qos_suspend_policy() with qos_suspend_cfg_default(), told the
 *           host commands in flight and the FTL's GC level (for every die:
 *           one instance owns them all), both updated at each host
 *           submission and completion
 *
 * Every read is checked against what was written (a header of magic, LBA
 * and version in each 4 KiB unit); an LBA has at most one op in flight.
 * The results file holds the command, the machine, the device, and per
 * queue depth and policy: read latency (mean, P50, P99, P99.9, max), host
 * throughput, write amplification, erases, suspensions per program and per
 * erase (per block: the erase-suspend wear the store records), and the
 * smart policy's decisions by reason.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "qos.h"
#include "sim.h"

#define SP_MAX_QDS 4
#define SP_POLICIES 4
#define SP_VERIFY_READS 8192u
#define SP_NRD 4096u /* host-priority NAND reads in flight at most */

/* smart-unpaced: the smart policy with its pacing off (qos_suspend_cfg.pace). */
enum sp_policy { SP_NEVER, SP_ALWAYS, SP_SMART, SP_SMART_UNPACED };

static const char *const sp_policy_name[SP_POLICIES] = { "never", "always", "smart",
							       "smart-unpaced" };

struct sp_opts {
	uint32_t qds[SP_MAX_QDS], nqds;
	uint32_t policies; /* bit per enum sp_policy */
	uint32_t reads_pct;
	double seconds, warmup_s, precond_x;
	uint32_t channels, dies, planes, blocks, ppb, page_size;
	int op_permille, cmt_kib; /* -1: the FTL's default */
	int engine_cap; /* nand_config.max_suspends_per_op; -1: the engine's default */
	int smart_max; /* the smart policy's max_suspends; -1: qos_suspend_cfg_default()'s */
	bool gc_pipeline; /* ftl_config.gc_pipeline */
	uint64_t seed;
	const char *out;
	char cmdline[1024];
};

enum sp_job { SP_JOB_FILL, SP_JOB_RANDW, SP_JOB_MIX, SP_JOB_VERIFY };

struct sp_dev;

struct sp_slot {
	struct ftl_io io;
	struct sp_dev *d;
	uint8_t *buf;
	uint64_t t_sub;
	uint32_t lba, nr;
	uint32_t ver[SIM_SEQ_UNITS];
	bool busy, in_win;
};

/* Counters at a point in time, for the window's deltas. */
struct sp_snap {
	uint64_t t;
	struct ftl_stats fs;
	struct nand_suspend_stats ss;
	uint64_t ops[NAND_OP_KINDS];
	uint64_t blk_erases, blk_erase_susp; /* summed over every block's meta */
	uint64_t decisions[QOS_SUSP_REASONS];
	uint64_t asked[NAND_OP_KINDS];
};

/* One measured window. */
struct sp_point {
	uint32_t qd;
	enum sp_policy pol;
	double secs;
	struct blox_hist rlat, wlat;
	struct blox_hist nand_rlat; /* host-priority NAND reads submitted in the window */
	uint64_t reads_done, writes_done; /* completed inside the window */
	uint64_t lvl[4]; /* GC level seen at host completions in the window */
	struct sp_snap a, b;
};

struct sp_dev {
	const struct sp_opts *o;
	enum sp_policy pol;
	/* The policy under test, behind a wrapper that counts what it is asked about. */
	struct nand_suspend_policy inner;
	bool pol_on; /* off (never suspend, nothing counted) during the precondition */
	uint64_t asked[NAND_OP_KINDS]; /* queries by the kind of op in the way */
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct ftl_vdrive vd;
	/*
	 * The FTL's environment: the virtual-time driver's, with host-read-
	 * priority NAND reads (data and translation pages of host reads)
	 * timed on their way through: the flash's part of a read's latency.
	 */
	struct ftl_env env;
	struct sp_nrd {
		nand_op_cb cb;
		void *cb_arg;
		struct sp_dev *d;
	} nrd[SP_NRD];
	uint32_t nrd_free[SP_NRD], nnrd_free;
	uint64_t win_t0, win_t1; /* the window, for those reads' submission times */
	struct ftl_config fc;
	struct ftl_resources res;
	struct ftl *f;
	struct ftl_gc_info gci;
	struct ftl_layout lay;
	/* The smart policy's state and the inputs it reads at each decision. */
	struct qos_suspend_inputs in;
	struct qos_suspend_state st;

	uint32_t cap;
	uint32_t *shadow; /* version per LBA, 0: never written */
	uint8_t *lba_busy; /* an op on this LBA is in flight */
	uint32_t next_ver;
	uint64_t rng;
	struct sp_slot slots[SIM_MAX_QD];

	/* The running job (closed loop). */
	enum sp_job job;
	uint32_t qd;
	bool stop;
	uint64_t to_submit, submitted, inflight;
	uint32_t fill_ptr;

	/* The window: ops submitted while win is on are measured. */
	bool win;
	uint64_t win_inflight;
	struct sp_point *pt;
	uint64_t bad, io_errors;
};

/* ---- the policy's inputs ---- */

/* GC level as qos.h counts it: 0 plenty, 1 background, 2 foreground, 3 urgent. */
static uint8_t gc_level(struct sp_dev *d)
{
	struct ftl_stats st;

	ftl_inspect_gc(d->f, &d->gci);
	if (d->gci.urgent)
		return 3;
	ftl_get_stats(d->f, &st);
	if (st.free_superblocks < d->gci.lvl_fg)
		return 2;
	if (st.free_superblocks < d->gci.lvl_bg)
		return 1;
	return 0;
}

static uint8_t update_inputs(struct sp_dev *d)
{
	uint8_t lvl = gc_level(d);

	d->in.host_inflight = (uint32_t)d->inflight;
	memset(d->in.gc_level, lvl, d->res.nr_dies);
	return lvl;
}

/*
 * Count the query by the kind of op in the read's way, then ask the policy
 * under test. Off during the precondition: its writes load translation
 * pages at host-read priority, and the precondition is to be the same for
 * every policy.
 */
static bool counting_cb(void *ctx, const struct nand_suspend_query *q)
{
	struct sp_dev *d = ctx;

	if (!d->pol_on)
		return false;
	d->asked[q->running]++;
	return d->inner.should_suspend(d->inner.ctx, q);
}

/* ---- the FTL's environment ---- */

static void nrd_done(struct nand_op *op)
{
	struct sp_nrd *r = op->cb_arg;
	struct sp_dev *d = r->d;

	op->cb = r->cb;
	op->cb_arg = r->cb_arg;
	d->nrd_free[d->nnrd_free++] = (uint32_t)(r - d->nrd);
	if (d->pt && op->submit_ns >= d->win_t0 && op->submit_ns < d->win_t1)
		blox_hist_add(&d->pt->nand_rlat, op->done_ns - op->submit_ns);
	op->cb(op);
}

static int env_submit(void *ctx, struct nand_op *op)
{
	struct sp_dev *d = ctx;
	struct sp_nrd *r;
	int rc;

	if (op->prio != NAND_PRIO_HOST_READ)
		return d->vd.env.ops->submit(d->vd.env.ctx, op);
	if (!d->nnrd_free)
		sim_die("more than %u host reads in flight at the NAND", SP_NRD);
	r = &d->nrd[d->nrd_free[--d->nnrd_free]];
	r->cb = op->cb;
	r->cb_arg = op->cb_arg;
	op->cb = nrd_done;
	op->cb_arg = r;
	rc = d->vd.env.ops->submit(d->vd.env.ctx, op);
	if (rc) {
		op->cb = r->cb;
		op->cb_arg = r->cb_arg;
		d->nnrd_free++;
	}
	return rc;
}

static uint64_t env_now(void *ctx)
{
	struct sp_dev *d = ctx;

	return d->vd.env.ops->now(d->vd.env.ctx);
}

static void env_kick(void *ctx)
{
	struct sp_dev *d = ctx;

	d->vd.env.ops->kick(d->vd.env.ctx);
}

static int env_sync(void *ctx)
{
	struct sp_dev *d = ctx;

	return d->vd.env.ops->sync(d->vd.env.ctx);
}

static const struct ftl_env_ops sp_env_ops = {
	.submit = env_submit,
	.now = env_now,
	.kick = env_kick,
	.sync = env_sync,
};

/* ---- device ---- */

/* The policy under test from now on (the device asks it through counting_cb()). */
static void sp_set_policy(struct sp_dev *d, enum sp_policy pol)
{
	d->pol = pol;
	switch (pol) {
	case SP_NEVER:
		d->inner = nand_suspend_never;
		break;
	case SP_ALWAYS:
		d->inner = nand_suspend_always;
		break;
	case SP_SMART:
	case SP_SMART_UNPACED:
		qos_suspend_cfg_default(&d->st.cfg);
		if (d->o->smart_max >= 0)
			d->st.cfg.max_suspends = (uint32_t)d->o->smart_max;
		d->st.cfg.pace = d->pol == SP_SMART;
		d->st.in = &d->in;
		qos_suspend_policy(&d->inner, &d->st);
		break;
	}
	d->pol_on = true;
}

static void sp_open(struct sp_dev *d, const struct sp_opts *o)
{
	struct nand_geometry *g = &d->nc.geo;
	const char *why;
	int rc;

	memset(d, 0, sizeof(*d));
	d->o = o;
	nand_config_default(&d->nc);
	g->channels = o->channels;
	g->dies_per_channel = o->dies;
	g->planes_per_die = o->planes;
	g->blocks_per_plane = o->blocks;
	g->pages_per_block = o->ppb;
	g->page_size = o->page_size;
	g->oob_size = 1024;
	g->cell = NAND_TLC;
	if (nand_geometry_check(g, &why))
		sim_die("geometry: %s", why);
	if (o->engine_cap >= 0)
		d->nc.max_suspends_per_op = (uint32_t)o->engine_cap;
	d->inner = nand_suspend_never;
	d->nc.policy = (struct nand_suspend_policy){ "under test", counting_cb, d };
	sim_nand_open(&d->nc, &d->store, &d->dev);
	ftl_vdrive_init(&d->vd, d->dev, d->store);
	d->env = d->vd.env;
	d->env.ops = &sp_env_ops;
	d->env.ctx = d;
	for (uint32_t i = 0; i < SP_NRD; i++) {
		d->nrd[i].d = d;
		d->nrd_free[i] = SP_NRD - 1 - i;
	}
	d->nnrd_free = SP_NRD;
	ftl_config_default(&d->fc);
	if (o->op_permille >= 0)
		d->fc.op_permille = (uint32_t)o->op_permille;
	if (o->cmt_kib >= 0)
		d->fc.cmt_bytes = (uint32_t)o->cmt_kib * 1024;
	d->fc.gc_pipeline = o->gc_pipeline;
	d->res.nr_dies = nand_dies(g);
	if (d->res.nr_dies > BLOX_FTL_MAX_DIES || d->res.nr_dies > sizeof(d->in.gc_level))
		sim_die("too many dies");
	for (uint32_t i = 0; i < d->res.nr_dies; i++)
		d->res.dies[i] = i;
	d->res.nr_blocks = g->blocks_per_plane;
	if ((rc = ftl_create(&d->fc, &d->env, &d->res, &d->f)))
		sim_die("ftl_create: %d", rc);
	ftl_inspect_layout(d->f, &d->lay);
	ftl_inspect_gc(d->f, &d->gci);
	d->cap = ftl_capacity(d->f);
	d->shadow = calloc(d->cap, sizeof(*d->shadow));
	d->lba_busy = calloc(d->cap, 1);
	if (!d->shadow || !d->lba_busy)
		sim_die("out of memory");
	d->rng = o->seed;
	for (uint32_t i = 0; i < SIM_MAX_QD; i++) {
		d->slots[i].d = d;
		d->slots[i].buf = calloc(SIM_SEQ_UNITS, FTL_UNIT);
		if (!d->slots[i].buf)
			sim_die("out of memory");
	}
}

static void shutdown_cb(void *arg, int status)
{
	*(int *)arg = status;
}

static void sp_close(struct sp_dev *d)
{
	int status = 1;

	if (ftl_shutdown(d->f, shutdown_cb, &status))
		sim_die("ftl_shutdown refused");
	while (status == 1) {
		if (!d->vd.kicked && nand_next_event(d->dev) == UINT64_MAX)
			sim_die("shutdown hangs");
		ftl_vdrive_run(&d->vd, d->f, blox_clock_now(&d->vd.clock) + 1000000);
	}
	ftl_destroy(d->f);
	nand_dev_destroy(d->dev);
	nand_store_close(d->store);
	for (uint32_t i = 0; i < SIM_MAX_QD; i++)
		free(d->slots[i].buf);
	free(d->shadow);
	free(d->lba_busy);
}

/* ---- the closed loop ---- */

static void sp_done(struct ftl_io *io);

/* A free LBA (no op on it in flight), uniform over the capacity. */
static bool free_lba(struct sp_dev *d, uint32_t *lba)
{
	for (int tries = 0; tries < 64; tries++) {
		*lba = (uint32_t)(sim_rnd(&d->rng) % d->cap);
		if (!d->lba_busy[*lba])
			return true;
	}
	return false;
}

static void sp_submit(struct sp_dev *d, struct sp_slot *sl)
{
	enum ftl_io_op op;
	uint32_t lba, nr = 1;
	int rc;

	switch (d->job) {
	case SP_JOB_FILL:
		op = FTL_IO_WRITE;
		lba = d->fill_ptr;
		nr = d->cap - lba < SIM_SEQ_UNITS ? d->cap - lba : SIM_SEQ_UNITS;
		d->fill_ptr += nr;
		break;
	case SP_JOB_RANDW:
		op = FTL_IO_WRITE;
		if (!free_lba(d, &lba))
			sim_die("no free LBA");
		break;
	case SP_JOB_VERIFY:
		op = FTL_IO_READ;
		if (!free_lba(d, &lba))
			sim_die("no free LBA");
		break;
	default:
		op = sim_rnd(&d->rng) % 100 < d->o->reads_pct ? FTL_IO_READ : FTL_IO_WRITE;
		if (!free_lba(d, &lba))
			sim_die("no free LBA");
		break;
	}
	sl->io = (struct ftl_io){ .op = op, .lba = lba, .nr = nr, .buf = sl->buf, .cb = sp_done,
				   .cb_arg = sl };
	sl->lba = lba;
	sl->nr = nr;
	if (op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < nr; u++) {
			sl->ver[u] = ++d->next_ver;
			sim_stamp_unit(sl->buf + (size_t)u * FTL_UNIT, lba + u, sl->ver[u]);
		}
	}
	for (uint32_t u = 0; u < nr; u++)
		d->lba_busy[lba + u] = 1;
	sl->busy = true;
	sl->in_win = d->win;
	d->win_inflight += d->win;
	sl->t_sub = blox_clock_now(&d->vd.clock);
	d->submitted++;
	d->inflight++;
	if (d->pol >= SP_SMART)
		update_inputs(d);
	if ((rc = ftl_submit(d->f, &sl->io)))
		sim_die("ftl_submit: %d (lba %u nr %u)", rc, lba, nr);
}

static void check_read(struct sp_dev *d, const struct sp_slot *sl)
{
	const uint32_t *h = (const uint32_t *)sl->buf;
	uint32_t want = d->shadow[sl->lba];

	if (!sim_unit_is(sl->buf, sl->lba, want) && d->bad++ < 10)
		fprintf(stderr, "VERIFY: lba %u: got magic %08x lba %u ver %u, want ver %u\n",
			sl->lba, h[0], h[1], h[2], want);
}

static void sp_done(struct ftl_io *io)
{
	struct sp_slot *sl = io->cb_arg;
	struct sp_dev *d = sl->d;
	uint64_t now = blox_clock_now(&d->vd.clock);
	uint8_t lvl = 0;

	sl->busy = false;
	d->inflight--;
	for (uint32_t u = 0; u < sl->nr; u++)
		d->lba_busy[sl->lba + u] = 0;
	if (io->status) {
		if (d->io_errors++ < 10)
			fprintf(stderr, "IO ERROR: op %d lba %u status %d\n", io->op, io->lba,
				io->status);
	} else if (io->op == FTL_IO_READ) {
		check_read(d, sl);
	} else {
		for (uint32_t u = 0; u < sl->nr; u++)
			d->shadow[sl->lba + u] = sl->ver[u];
	}
	if (d->pol >= SP_SMART)
		lvl = update_inputs(d);
	if (d->pt) {
		struct sp_point *p = d->pt;

		if (sl->in_win) {
			blox_hist_add(io->op == FTL_IO_READ ? &p->rlat : &p->wlat, now - sl->t_sub);
			d->win_inflight--;
		}
		if (d->win) {
			if (io->op == FTL_IO_READ)
				p->reads_done++;
			else
				p->writes_done++;
			if (d->pol < SP_SMART)
				lvl = gc_level(d);
			p->lvl[lvl]++;
		}
	}
	if (!d->stop && d->submitted < d->to_submit)
		sp_submit(d, sl);
}

static bool idle(const struct sp_dev *d)
{
	return d->inflight == 0;
}

/* Start a closed-loop job of @n ops (UINT64_MAX: until stopped) at depth @qd. */
static void job_start(struct sp_dev *d, enum sp_job job, uint64_t n, uint32_t qd)
{
	d->job = job;
	d->qd = qd;
	d->stop = false;
	d->to_submit = n;
	d->submitted = 0;
	d->fill_ptr = 0;
	for (uint32_t i = 0; i < qd && d->submitted < d->to_submit; i++)
		sp_submit(d, &d->slots[i]);
}

/* Run until the job has nothing in flight (no hang: dies if the FTL stalls). */
static void job_drain(struct sp_dev *d)
{
	while (!idle(d)) {
		ftl_vdrive_run(&d->vd, d->f, blox_clock_now(&d->vd.clock) + 1000000);
		if (!idle(d) && !d->vd.kicked && nand_next_event(d->dev) == UINT64_MAX)
			sim_die("FTL HANG: %llu in flight, nothing pending",
				(unsigned long long)d->inflight);
	}
	if (d->bad || d->io_errors)
		sim_die("DATA ERROR: %llu bad reads, %llu I/O errors", (unsigned long long)d->bad,
			(unsigned long long)d->io_errors);
}

static void run_for(struct sp_dev *d, uint64_t ns)
{
	ftl_vdrive_run(&d->vd, d->f, blox_clock_now(&d->vd.clock) + ns);
}

static void snap(const struct sp_dev *d, struct sp_snap *s)
{
	const struct nand_geometry *g = &d->nc.geo;
	uint32_t ndies = nand_dies(g);
	uint64_t nblk = nand_blocks(g);

	memset(s, 0, sizeof(*s));
	s->t = blox_clock_now(&d->vd.clock);
	ftl_get_stats(d->f, &s->fs);
	s->ss = nand_dev_stats(d->dev)->suspend;
	for (uint32_t i = 0; i < ndies; i++)
		for (int k = 0; k < NAND_OP_KINDS; k++)
			s->ops[k] += nand_die_stats(d->dev, i)->ops[k];
	for (uint64_t b = 0; b < nblk; b++) {
		const struct nand_block_meta *m = nand_block_meta(d->dev, b);

		s->blk_erases += m->erase_count;
		s->blk_erase_susp += m->erase_suspends;
	}
	memcpy(s->decisions, d->st.decisions, sizeof(s->decisions));
	memcpy(s->asked, d->asked, sizeof(s->asked));
}

/* ---- the experiment ---- */

static double precondition(struct sp_dev *d)
{
	struct ftl_stats a, b;
	uint64_t n = (uint64_t)(d->o->precond_x * d->cap);

	job_start(d, SP_JOB_FILL, (d->cap + SIM_SEQ_UNITS - 1) / SIM_SEQ_UNITS, 32);
	job_drain(d);
	if (d->fill_ptr != d->cap)
		sim_die("fill stopped at %u of %u", d->fill_ptr, d->cap);
	ftl_get_stats(d->f, &a);
	job_start(d, SP_JOB_RANDW, n, 32);
	job_drain(d);
	ftl_get_stats(d->f, &b);
	return (double)(b.units_written_host + b.units_written_gc + b.units_written_tp +
			b.units_padded - a.units_written_host - a.units_written_gc -
			a.units_written_tp - a.units_padded) /
	       (double)(b.units_written_host - a.units_written_host);
}

static void window(struct sp_dev *d, uint32_t qd, struct sp_point *p)
{
	const struct sp_opts *o = d->o;

	memset(p, 0, sizeof(*p));
	p->qd = qd;
	p->pol = d->pol;
	blox_hist_reset(&p->rlat);
	blox_hist_reset(&p->wlat);
	blox_hist_reset(&p->nand_rlat);
	job_start(d, SP_JOB_MIX, UINT64_MAX, qd);
	run_for(d, (uint64_t)(o->warmup_s * 1e9));
	d->pt = p;
	snap(d, &p->a);
	d->win = true;
	d->win_t0 = p->a.t;
	d->win_t1 = UINT64_MAX;
	run_for(d, (uint64_t)(o->seconds * 1e9));
	d->win = false;
	snap(d, &p->b);
	d->win_t1 = p->b.t;
	p->secs = (double)(p->b.t - p->a.t) * 1e-9;
	/* The measured ops finish under the same load, then the loop stops. */
	while (d->win_inflight)
		run_for(d, 100000);
	d->stop = true;
	job_drain(d);
	d->pt = NULL;
}

static void verify(struct sp_dev *d)
{
	job_start(d, SP_JOB_VERIFY, SP_VERIFY_READS, 32);
	job_drain(d);
}

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%s, %ld cores, %s, Linux %s; single-threaded", m.model, m.cpus, m.os,
		 m.release);
}

static double per(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void header(struct sim_out *out, const struct sp_dev *d, double waf_pre)
{
	const struct sp_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	const struct nand_timing *t = &d->nc.timing;
	struct qos_suspend_cfg sc;
	char m[768];

	machine(m, sizeof(m));
	qos_suspend_cfg_default(&sc);
	if (o->smart_max >= 0)
		sc.max_suspends = (uint32_t)o->smart_max;
	sim_outf(out, "# blox-sim suspend: program/erase suspension on a database-like load\n");
	sim_outf(out, "# command: %s\n", o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (results do not depend on the machine or build)\n", m);
	sim_outf(out, "# device: %u ch x %u die/ch x %u plane x %u blocks x %u pages x %u KiB, TLC: raw %.0f MiB"
		" (the default geometry is 8 x 4 x 2 x 64 x 384, 24 GiB: shrunk to keep the run short)\n",
		 g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
		 g->pages_per_block, g->page_size / 1024, (double)nand_capacity(g) / MiB);
	sim_outf(out, "# timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, tSUSPEND %llu us,"
		" tRESUME %llu us, bus %llu MB/s; engine: at most %u suspensions per op, %llu us of array"
		" time between two, %u reads per suspension; multi-plane groups %s\n",
		 (unsigned long long)t->t_read_ns[0] / 1000, (unsigned long long)t->t_read_ns[1] / 1000,
		 (unsigned long long)t->t_read_ns[2] / 1000, (unsigned long long)t->t_prog_ns[0] / 1000,
		 (unsigned long long)t->t_prog_ns[1] / 1000, (unsigned long long)t->t_prog_ns[2] / 1000,
		 (unsigned long long)t->t_erase_ns / 1000, (unsigned long long)t->t_suspend_ns / 1000,
		 (unsigned long long)t->t_resume_ns / 1000, (unsigned long long)t->bus_mbps,
		 d->nc.max_suspends_per_op, (unsigned long long)d->nc.min_progress_ns / 1000,
		 d->nc.max_reads_per_suspend, d->nc.multiplane ? "on" : "off");
	sim_outf(out, "# ftl: one instance on every die; %u superblocks of %.0f MiB; capacity %.0f MiB; op_permille %u;"
		" CMT %u KiB (%u of %u translation pages); write buffer %u pages, volatile cache %s;"
		" GC levels %u/%u/%u superblocks free (background/foreground/urgent); GC pipeline %s\n",
		 d->lay.nr_sb, d->lay.units_per_sb * 4096.0 / MiB, d->cap * 4096.0 / MiB,
		 d->fc.op_permille, d->fc.cmt_bytes / 1024, d->fc.cmt_bytes / FTL_UNIT, d->lay.nr_tp,
		 d->fc.write_buffer_pages, d->fc.volatile_cache ? "on" : "off", d->gci.lvl_bg,
		 d->gci.lvl_fg, d->gci.lvl_urgent, d->fc.gc_pipeline ? "on" : "off");
	sim_outf(out, "# precondition: sequential fill, then %.1f x capacity of uniform random 4 KiB writes"
		" at QD 32 (WAF %.2f), suspension off; then each QD and policy runs on a copy-on-write"
		" snapshot of that device (fork()), so all start from the same state\n",
		 o->precond_x, waf_pre);
	sim_outf(out, "# load: closed loop, 4 KiB at uniform random LBAs, %u%% reads; per QD %.1f s warm-up,"
		" then %.1f s measured (ops submitted in the window, to their completion)\n",
		 o->reads_pct, o->warmup_s, o->seconds);
	sim_outf(out, "# smart: qos_suspend_cfg_default()%s: no suspension with under %llu us left or past %u"
		" permille; %u per op, %u above %u host commands in flight; urgent GC: erases not"
		" suspended, programs once; paced (suspension k + 1 once the op is k / budget done,"
		" asked again then), smart-unpaced the same without. Inputs: host commands in"
		" flight, FTL GC level (all dies)\n",
		 o->smart_max >= 0 ? " but max_suspends" : "",
		 (unsigned long long)sc.min_remaining_ns / 1000, sc.max_progress_permille,
		 sc.max_suspends, sc.busy_max_suspends, sc.busy_inflight);
}

static void table(struct sim_out *out, const struct sp_point *pts, uint32_t n)
{
	sim_outf(out, "#\n# read latency (us) of the reads submitted in the window; host throughput over the"
		" window; WAF = flash units programmed (data, GC, translation pages, padding) / host units\n");
	sim_outf(out, "%-3s %-13s %8s %8s %8s %8s %9s %9s %8s %8s %8s %8s %6s\n", "qd", "policy",
		 "rd_kiops", "rd_mean", "rd_p50", "rd_p99", "rd_p99.9", "rd_max", "wr_MB/s",
		 "wr_mean", "wr_p99", "wr_max", "waf");
	for (uint32_t i = 0; i < n; i++) {
		const struct sp_point *p = &pts[i];
		const struct ftl_stats *a = &p->a.fs, *b = &p->b.fs;
		uint64_t host = b->units_written_host - a->units_written_host;
		uint64_t flash = (b->units_written_host + b->units_written_gc + b->units_written_tp +
				  b->units_padded) -
				 (a->units_written_host + a->units_written_gc + a->units_written_tp +
				  a->units_padded);

		sim_outf(out, "%-3u %-13s %8.2f %8.1f %8.1f %8.1f %9.1f %9.1f %8.2f %8.1f %8.1f %8.1f %6.2f\n",
			 p->qd, sp_policy_name[p->pol], p->reads_done / p->secs / 1000.0,
			 blox_hist_mean(&p->rlat) / 1000.0, sim_us(blox_hist_quantile(&p->rlat, 0.5)),
			 sim_us(blox_hist_quantile(&p->rlat, 0.99)),
			 sim_us(blox_hist_quantile(&p->rlat, 0.999)), sim_us(p->rlat.max),
			 p->writes_done * 4096.0 / p->secs / 1e6, blox_hist_mean(&p->wlat) / 1000.0,
			 sim_us(blox_hist_quantile(&p->wlat, 0.99)), sim_us(p->wlat.max), per(flash, host));
	}
	sim_outf(out, "#\n# the flash's part: NAND reads at host-read priority (host data and the translation"
		" pages host reads and writes load) submitted in the window, submit to completion at the"
		" engine (us); the rest of a host read's latency is spent in the FTL (waiting for a"
		" translation page to load, for a read context, ...)\n");
	sim_outf(out, "%-3s %-13s %9s %8s %8s %8s %9s %9s\n", "qd", "policy", "nand_rds", "mean", "p50",
		 "p99", "p99.9", "max");
	for (uint32_t i = 0; i < n; i++) {
		const struct sp_point *p = &pts[i];

		sim_outf(out, "%-3u %-13s %9llu %8.1f %8.1f %8.1f %9.1f %9.1f\n", p->qd,
			 sp_policy_name[p->pol], (unsigned long long)p->nand_rlat.count,
			 blox_hist_mean(&p->nand_rlat) / 1000.0, sim_us(blox_hist_quantile(&p->nand_rlat, 0.5)),
			 sim_us(blox_hist_quantile(&p->nand_rlat, 0.99)),
			 sim_us(blox_hist_quantile(&p->nand_rlat, 0.999)), sim_us(p->nand_rlat.max));
	}
	sim_outf(out, "#\n# NAND in the window: erases (block erases) and per GiB written by the host;"
		" asked: host reads that found a program / an erase in their way (the policy asked);"
		" suspensions per program op and per erase op; erase-suspend wear: suspensions"
		" recorded per block erase (block meta), and the device's erase_suspend_wear counter;"
		" declined: the policy said no; capped: the engine's mechanism said no;"
		" rd_overt: reads served inside suspensions;"
		" urgent%%: host completions that saw the FTL at its urgent GC level;"
		" gc/w, tp/w, pad/w: units GC moved, translation-page units and padding per host unit\n");
	sim_outf(out, "%-3s %-13s %7s %8s %8s %8s %9s %8s %8s %8s %8s %7s %8s %7s %6s %6s %6s\n",
		 "qd", "policy", "erases", "er/GiB", "ask_prg", "ask_er", "susp/prg", "susp/er",
		 "wear/er", "wear_cnt", "declined", "capped", "rd_overt", "urgent%", "gc/w", "tp/w",
		 "pad/w");
	for (uint32_t i = 0; i < n; i++) {
		const struct sp_point *p = &pts[i];
		const struct nand_suspend_stats *a = &p->a.ss, *b = &p->b.ss;
		const struct ftl_stats *fa = &p->a.fs, *fb = &p->b.fs;
		uint64_t er = p->b.blk_erases - p->a.blk_erases;
		uint64_t host = fb->units_written_host - fa->units_written_host;
		uint64_t lvls = p->lvl[0] + p->lvl[1] + p->lvl[2] + p->lvl[3];

		sim_outf(out, "%-3u %-13s %7llu %8.1f %8llu %8llu %9.4f %8.4f %8.4f %8llu %8llu %7llu %8llu"
			 " %7.2f %6.2f %6.2f %6.2f\n",
			 p->qd, sp_policy_name[p->pol], (unsigned long long)er,
			 per(er, host) * (1024.0 * 1024 * 1024 / FTL_UNIT),
			 (unsigned long long)(p->b.asked[NAND_OP_PROGRAM] - p->a.asked[NAND_OP_PROGRAM]),
			 (unsigned long long)(p->b.asked[NAND_OP_ERASE] - p->a.asked[NAND_OP_ERASE]),
			 per(b->suspends[NAND_OP_PROGRAM] - a->suspends[NAND_OP_PROGRAM],
			     p->b.ops[NAND_OP_PROGRAM] - p->a.ops[NAND_OP_PROGRAM]),
			 per(b->suspends[NAND_OP_ERASE] - a->suspends[NAND_OP_ERASE],
			     p->b.ops[NAND_OP_ERASE] - p->a.ops[NAND_OP_ERASE]),
			 per(p->b.blk_erase_susp - p->a.blk_erase_susp, er),
			 (unsigned long long)(b->erase_suspend_wear - a->erase_suspend_wear),
			 (unsigned long long)(b->declined - a->declined),
			 (unsigned long long)(b->capped - a->capped),
			 (unsigned long long)(b->reads_overtaken - a->reads_overtaken),
			 100.0 * per(p->lvl[3], lvls),
			 per(fb->units_written_gc - fa->units_written_gc, host),
			 per(fb->units_written_tp - fa->units_written_tp, host),
			 per(fb->units_padded - fa->units_padded, host));
	}
	sim_outf(out, "#\n# the smart policy's decisions in the window, by reason (qos_suspend_reason_name())\n");
	sim_outf(out, "%-3s %-13s", "qd", "policy");
	for (int r = 0; r < QOS_SUSP_REASONS; r++)
		sim_outf(out, " %13s", qos_suspend_reason_name((enum qos_suspend_reason)r));
	sim_outf(out, "\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct sp_point *p = &pts[i];

		if (p->pol < SP_SMART)
			continue;
		sim_outf(out, "%-3u %-13s", p->qd, sp_policy_name[p->pol]);
		for (int r = 0; r < QOS_SUSP_REASONS; r++)
			sim_outf(out, " %13llu",
				 (unsigned long long)(p->b.decisions[r] - p->a.decisions[r]));
		sim_outf(out, "\n");
	}
}

/* ---- options ---- */

static void usage(void)
{
	printf("usage: blox-sim suspend [options]\n"
	       "  program/erase suspension (never, always, smart) on a full device under a mixed\n"
	       "  closed-loop load; results in docs/results/qos_suspend.txt (docs/QOS_RESULTS.md)\n"
	       "  --qd a,b,...           queue depths, in this order (default 4,16)\n"
	       "  --policies a,b,...     of never,always,smart,smart-unpaced\n"
	       "                         (default all four)\n"
	       "  --reads-pct N          reads among the ops (default 70)\n"
	       "  --seconds S            measured virtual seconds per QD (default 20)\n"
	       "  --warmup-s S           virtual seconds before each window (default 2)\n"
	       "  --precond-x X          random 4 KiB overwrite after the fill, x capacity (default 2)\n"
	       "  --channels N --dies N --planes N --blocks N --ppb N --page-kib N\n"
	       "                         geometry (default 4, 2, 2, 64, 96, 16)\n"
	       "  --op N                 FTL over-provisioning, permille (default the FTL's, 70)\n"
	       "  --cmt-kib N            FTL mapping cache (default the FTL's, 256)\n"
	       "  --engine-cap N         the engine's suspensions per op (default the engine's, 8)\n"
	       "  --smart-max N          the smart policy's max_suspends (default its default, 8)\n"
	       "  --gc-pipeline on|off   ftl_config.gc_pipeline (default off, the FTL's)\n"
	       "  --seed N               RNG seed (default 1)\n"
	       "  --out FILE             results file (default docs/results/qos_suspend.txt)\n");
}

static bool parse(struct sp_opts *o, int argc, char **argv)
{
	static const struct sim_choice policies[] = {
		{ "never", 1 << SP_NEVER }, { "always", 1 << SP_ALWAYS }, { "smart", 1 << SP_SMART },
		{ "smart-unpaced", 1 << SP_SMART_UNPACED }, { NULL, 0 }
	};
	uint32_t page_kib = 16;
	const struct sim_opt opts[] = {
		SIM_OPT_U32S("--qd", o->qds, &o->nqds, SP_MAX_QDS, 1, SIM_MAX_QD),
		SIM_OPT_FLAGS("--policies", &o->policies, policies),
		SIM_OPT_U32("--reads-pct", &o->reads_pct, 0, 100),
		SIM_OPT_NONNEG("--seconds", &o->seconds),
		SIM_OPT_NONNEG("--warmup-s", &o->warmup_s),
		SIM_OPT_NONNEG("--precond-x", &o->precond_x),
		SIM_OPT_U32("--channels", &o->channels, 1, 1024),
		SIM_OPT_U32("--dies", &o->dies, 1, 1024),
		SIM_OPT_U32("--planes", &o->planes, 1, 16),
		SIM_OPT_U32("--blocks", &o->blocks, 1, 1u << 20),
		SIM_OPT_U32("--ppb", &o->ppb, 1, 1u << 16),
		SIM_OPT_U32("--page-kib", &page_kib, 1, 1024),
		SIM_OPT_INT("--op", &o->op_permille, 0, 999),
		SIM_OPT_INT("--cmt-kib", &o->cmt_kib, 0, 1 << 24),
		SIM_OPT_INT("--engine-cap", &o->engine_cap, 0, 1 << 16),
		SIM_OPT_INT("--smart-max", &o->smart_max, 0, 1 << 16),
		SIM_OPT_ONOFF("--gc-pipeline", &o->gc_pipeline),
		SIM_OPT_SEED(&o->seed),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_END,
	};

	*o = (struct sp_opts){ .qds = { 4, 16 }, .nqds = 2, .policies = 15, .reads_pct = 70,
			       .seconds = 20, .warmup_s = 2, .precond_x = 2, .channels = 4, .dies = 2,
			       .planes = 2, .blocks = 64, .ppb = 96, .op_permille = -1, .cmt_kib = -1,
			       .engine_cap = -1, .smart_max = -1, .seed = 1 };
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	if (!sim_opts_parse("suspend", usage, opts, argc, argv))
		return false;
	o->page_size = page_kib * 1024;
	o->seed |= 1;
	if (!(o->seconds > 0))
		sim_die("--seconds must be positive");
	return true;
}

/*
 * One window in a child process: a copy-on-write snapshot of the
 * preconditioned device (RAM store, FTL and engine), so every policy and
 * queue depth starts from the very same state; the point comes back
 * through a pipe.
 */
struct sp_child {
	struct sp_dev *d;
	enum sp_policy pol;
	uint32_t qd;
	struct sp_point *p;
};

static void window_in_child(void *arg)
{
	struct sp_child *c = arg;

	sp_set_policy(c->d, c->pol);
	window(c->d, c->qd, c->p);
	verify(c->d);
}

static void run_child(struct sp_dev *d, enum sp_policy pol, uint32_t qd, struct sp_point *p)
{
	struct sp_child c = { d, pol, qd, p };
	size_t got;
	int status;

	if (sim_in_child(window_in_child, &c, p, sizeof(*p), &got, &status))
		sim_die("%s at QD %u failed (status %d)", sp_policy_name[pol], qd, status);
}

int sim_suspend_main(int argc, char **argv)
{
	struct sp_opts o;
	struct sim_out out;
	struct sp_dev *d;
	struct sp_point *pts;
	uint32_t n = 0;
	double w0 = sim_wall_now(), waf_pre;
	const char *path;

	if (!parse(&o, argc, argv))
		return 0;
	path = o.out ? o.out : "docs/results/qos_suspend.txt";
	out.fp = fopen(path, "w");
	if (!out.fp)
		sim_die("cannot write %s: %s", path, strerror(errno));
	fprintf(stderr, "writing %s\n", path);
	d = calloc(1, sizeof(*d));
	pts = calloc(SP_POLICIES * SP_MAX_QDS, sizeof(*pts));
	if (!d || !pts)
		sim_die("out of memory");
	sp_open(d, &o);
	waf_pre = precondition(d);
	fprintf(stderr, "  [preconditioned, WAF %.2f, %.1f s wall]\n", waf_pre, sim_wall_now() - w0);
	header(&out, d, waf_pre);
	for (uint32_t q = 0; q < o.nqds; q++) {
		for (int pol = 0; pol < SP_POLICIES; pol++) {
			if (!(o.policies & (1u << pol)))
				continue;
			run_child(d, (enum sp_policy)pol, o.qds[q], &pts[n++]);
			fprintf(stderr, "  [QD %u %s: %.1f s wall]\n", o.qds[q], sp_policy_name[pol],
				sim_wall_now() - w0);
		}
	}
	table(&out, pts, n);
	verify(d);
	sp_close(d);
	sim_out_close(&out);
	fprintf(stderr, "wall time %.1f s\n", sim_wall_now() - w0);
	free(d);
	free(pts);
	return 0;
}
