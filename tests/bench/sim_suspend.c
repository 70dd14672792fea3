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
#include "sim_suspend.h"


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
void sp_set_policy(struct sp_dev *d, enum sp_policy pol)
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

void sp_open(struct sp_dev *d, const struct sp_opts *o)
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

void sp_close(struct sp_dev *d)
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

double sp_precondition(struct sp_dev *d)
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

void sp_window(struct sp_dev *d, uint32_t qd, struct sp_point *p)
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

void sp_verify(struct sp_dev *d)
{
	job_start(d, SP_JOB_VERIFY, SP_VERIFY_READS, 32);
	job_drain(d);
}

