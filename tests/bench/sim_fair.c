/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment "fairness" (qos bench 3): weighted fair sharing of
 * common dies between two software vSSDs. Two FTL instances, A and B, on
 * the same dies of one device, each on its own block range (FlashBlox's
 * software isolation), both saturating it: closed loops of random 4 KiB
 * ops over their whole LBA space at a fixed queue depth, --mixes percent
 * of them reads, the rest writes. Their ops carry their tenant id
 * (ftl_config.tenant: A 0, B 1), and the NAND engine's scheduler
 * (nand_config.sched) decides whose op runs next:
 *
 *   fifo   no scheduler (tenants on for the telemetry only): first come,
 *          first served in each class, today's order;
 *   drr    qos/'s deficit round robin (qos_drr_pick()), one per die and
 *          class, weights --weights (default 1:3), costs in ns of array
 *          time, every class strict across tenants; with --bus-drr on, one
 *          per channel and class too (bus time);
 *   drr-g  the same with sched.group_from = NAND_PRIO_GC_READ: host reads
 *          strict first, then one DRR over the tenants' best ops of the
 *          other classes (GC, host writes, erases; strict inside a tenant).
 *
 * Per pool of shared dies (--pools) and scheduler a fresh device: both
 * tenants filled sequentially, then
 * overwritten --precond-x times their capacity with random 4 KiB writes
 * (GC in steady state). Then per mix: both loops run --warmup-s, then
 * --seconds measured; then both stop and drain before the next mix. What
 * is measured is the die time each tenant got: the array time of its ops
 * started on the shared dies in the window (nand_tenant_stats().served_ns,
 * what the scheduler charged), host ops and the FTL's own (GC reads and
 * programs, erases, translation pages) alike; also per die, and each
 * tenant's I/O rate and latency. Every read is checked against what was
 * written, and each tenant reads back a random sample at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qos.h"
#include "sim.h"
#include "sim_fair.h"

/* ---- the scheduler: qos_drr behind the engine's ops table ---- */

/* Tenant @t had nothing queued while a die served the other for @ns: why? */
static void fa_dry(struct fa_drr *s, uint32_t t, uint64_t ns)
{
	struct ftl_gc_info g;
	struct ftl_activity a;
	enum fa_dry_gc k;

	if (!s->ftl[t])
		return; /* outside the window */
	ftl_inspect_gc(s->ftl[t], &g);
	ftl_inspect_activity(s->ftl[t], &a);
	if (!g.active)
		k = g.busy ? DRY_ERASE : DRY_NOGC;
	else if (g.phase == FTL_GC_PHASE_SCAN)
		k = DRY_SCAN;
	else if (g.phase == FTL_GC_PHASE_READ)
		k = DRY_ROUND;
	else
		k = g.phase == FTL_GC_PHASE_MOVE ? DRY_MOVE : DRY_SLOT;
	s->dry_gc_ns[t][k] += ns;
	s->dry_host_ns[t][a.paced ? DRY_PACED : a.write_waiting ? DRY_SPACE : DRY_FREE] += ns;
}

static int fa_pick(void *ctx, uint32_t die, enum nand_prio cls, const uint64_t *cost_ns,
		   uint32_t n)
{
	struct fa_drr *s = ctx;
	int t = qos_drr_pick(&s->die[die * NAND_PRIOS + cls], cost_ns, n);

	/* What the picks were: contended (both waiting) or not, by whom. */
	if (t >= 0) {
		bool both = cost_ns[0] != UINT64_MAX && cost_ns[1] != UINT64_MAX;

		(both ? s->contended_ns : s->alone_ns)[t] += cost_ns[t];
		if (!both)
			fa_dry(s, 1 - (uint32_t)t, cost_ns[t]);
	}
	return t;
}

static int fa_pick_bus(void *ctx, uint32_t ch, enum nand_prio cls, const uint64_t *cost_ns,
		       uint32_t n)
{
	struct fa_drr *s = ctx;

	return qos_drr_pick(&s->bus[ch * NAND_PRIOS + cls], cost_ns, n);
}

static void drr_init(struct fa_drr *s, const struct fa_opts *o, const struct nand_geometry *g)
{
	s->ndies = nand_dies(g);
	s->nch = g->channels;
	s->die = calloc((size_t)s->ndies * NAND_PRIOS, sizeof(*s->die));
	s->bus = calloc((size_t)s->nch * NAND_PRIOS, sizeof(*s->bus));
	if (!s->die || !s->bus)
		sim_die("out of memory");
	for (uint32_t i = 0; i < s->ndies * NAND_PRIOS; i++) {
		qos_drr_init(&s->die[i]);
		for (uint32_t t = 0; t < FA_TENANTS; t++)
			if (qos_drr_set_weight(&s->die[i], t, o->weight[t]))
				sim_die("fairness: bad weight %u", o->weight[t]);
	}
	for (uint32_t i = 0; i < s->nch * NAND_PRIOS; i++) {
		qos_drr_init(&s->bus[i]);
		for (uint32_t t = 0; t < FA_TENANTS; t++)
			qos_drr_set_weight(&s->bus[i], t, o->weight[t]);
	}
}

/* ---- the device ---- */

static void tenant_open(struct fa_dev *d, uint32_t ti)
{
	const struct fa_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	struct fa_tenant *t = &d->t[ti];
	struct ftl_config fc = d->fc;
	int rc;

	t->d = d;
	t->id = ti;
	t->name = (char)('A' + ti);
	sim_tenv_init(&t->se, &t->env, NULL, d->dev, d->store, &d->clock, ti);
	/* Every die, channel fastest; its own half of the blocks. */
	memset(&t->res, 0, sizeof(t->res));
	for (uint32_t die = 0; die < g->dies_per_channel; die++)
		for (uint32_t ch = 0; ch < g->channels; ch++)
			t->res.dies[t->res.nr_dies++] = ch * g->dies_per_channel + die;
	t->res.first_block = ti * o->blocks;
	t->res.nr_blocks = o->blocks;
	fc.tenant = ti;
	if ((rc = ftl_create(&fc, &t->env, &t->res, &t->f)))
		sim_die("fairness: ftl_create (%c): %d", t->name, rc);
	t->se.f = t->f;
	t->cap = ftl_capacity(t->f);
	t->shadow = calloc(t->cap, sizeof(*t->shadow));
	t->pend = calloc(t->cap, sizeof(*t->pend));
	t->slots = calloc(FA_MAX_QD, sizeof(*t->slots));
	t->free_idx = calloc(FA_MAX_QD, sizeof(*t->free_idx));
	t->fill_buf = calloc(SIM_SEQ_UNITS, FTL_UNIT);
	if (!t->shadow || !t->pend || !t->slots || !t->free_idx || !t->fill_buf)
		sim_die("out of memory");
	for (uint32_t i = 0; i < FA_MAX_QD; i++) {
		t->slots[i].t = t;
		t->free_idx[i] = FA_MAX_QD - 1 - i;
	}
	t->nfree = FA_MAX_QD;
	t->rng = o->seed * 0x9e3779b97f4a7c15ull + (uint64_t)ti * 0x632be59bd9b4e019ull + 1;
	blox_hist_reset(&t->rlat);
	blox_hist_reset(&t->wlat);
}

static const struct sim_loop_ops fa_loop_ops; /* the run loop's part, below */

void fa_open(struct fa_dev *d, const struct fa_opts *o, uint32_t pool, enum fa_sched sched)
{
	struct nand_geometry *g = &d->nc.geo;
	const char *why;

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->sched = sched;
	nand_config_default(&d->nc); /* TLC timing, default suspension, multi-plane groups */
	g->channels = o->pool_ch[pool];
	g->dies_per_channel = o->pool_dies[pool];
	g->planes_per_die = o->planes;
	g->pages_per_block = o->ppb;
	g->blocks_per_plane = FA_TENANTS * o->blocks;
	if (nand_geometry_check(g, &why))
		sim_die("fairness geometry: %s", why);
	d->ndies = nand_dies(g);
	if (d->ndies > FA_MAX_DIES)
		sim_die("fairness: at most %u dies", FA_MAX_DIES);
	d->nc.sched = (struct nand_sched){ .name = fa_sched_name[sched], .ntenants = FA_TENANTS };
	if (sched == FA_DRR || sched == FA_DRRG) {
		drr_init(&d->drr, o, g);
		d->nc.sched.group_from = sched == FA_DRRG ? NAND_PRIO_GC_READ : 0;
		d->nc.sched.pick = fa_pick;
		d->nc.sched.pick_bus = o->bus_drr ? fa_pick_bus : NULL;
		d->nc.sched.ctx = &d->drr;
	}
	sim_nand_open(&d->nc, &d->store, &d->dev);
	blox_clock_init_virtual(&d->clock, 1);
	ftl_config_default(&d->fc);
	if (o->wbuf)
		d->fc.write_buffer_pages = o->wbuf;
	if (o->op_permille)
		d->fc.op_permille = o->op_permille;
	d->fc.gc_pipeline = o->gc_pipeline;
	for (uint32_t ti = 0; ti < FA_TENANTS; ti++)
		tenant_open(d, ti);
	d->loop = (struct sim_loop){ .dev = d->dev, .clock = &d->clock, .n = FA_TENANTS,
				     .ops = &fa_loop_ops, .ctx = d };
	for (int ti = 0; ti < FA_TENANTS; ti++)
		d->loop.env[ti] = &d->t[ti].se;
}

void fa_close(struct fa_dev *d)
{
	for (int ti = 0; ti < FA_TENANTS; ti++) {
		struct fa_tenant *t = &d->t[ti];

		ftl_destroy(t->f);
		free(t->slots);
		free(t->free_idx);
		free(t->shadow);
		free(t->pend);
		free(t->fill_buf);
	}
	nand_dev_destroy(d->dev);
	nand_store_close(d->store);
	free(d->drr.die);
	free(d->drr.bus);
}

/* ---- ops ---- */

static void fa_done(struct ftl_io *io);
static void next_op(struct fa_tenant *t);

static uint32_t free_lba(struct fa_tenant *t)
{
	for (int tries = 0; tries < 4096; tries++) {
		uint32_t lba = (uint32_t)(sim_rnd(&t->rng) % t->cap);

		if (!t->pend[lba])
			return lba;
	}
	sim_die("fairness: no LBA without a write in flight (%c)", t->name);
}

static void submit_4k(struct fa_tenant *t, enum ftl_io_op op)
{
	struct fa_slot *sl;
	uint64_t now = blox_clock_now(&t->d->clock);
	int rc;

	if (!t->nfree)
		sim_die("fairness: no free slot (%c)", t->name);
	sl = &t->slots[t->free_idx[--t->nfree]];
	sl->lba = op == FTL_IO_WRITE ? free_lba(t) : (uint32_t)(sim_rnd(&t->rng) % t->cap);
	sl->io = (struct ftl_io){ .op = op, .lba = sl->lba, .nr = 1, .buf = sl->buf, .cb = fa_done,
				  .cb_arg = sl };
	sl->t_sub = now;
	sl->in_win = t->m_on && now >= t->m0 && now < t->m1;
	if (op == FTL_IO_WRITE) {
		sl->ver = ++t->next_ver;
		t->pend[sl->lba] = sl->ver;
		sim_stamp_unit(sl->buf, sl->lba, sl->ver);
	} else {
		sl->lo = t->shadow[sl->lba];
	}
	t->submitted++;
	t->inflight++;
	if ((rc = ftl_submit(t->f, &sl->io)))
		sim_die("fairness: ftl_submit (%c): %d", t->name, rc);
}

/* A read sees the version committed at submission or a newer one in flight since. */
static void check_read(struct fa_tenant *t, const struct fa_slot *sl)
{
	const uint32_t *h = (const uint32_t *)sl->buf;
	uint32_t lba = sl->lba, hi = t->shadow[lba] > t->pend[lba] ? t->shadow[lba] : t->pend[lba];

	if (!sim_unit_between(sl->buf, lba, sl->lo, hi) && t->bad++ < 10)
		fprintf(stderr, "VERIFY (%c): lba %u: got magic %08x lba %u ver %u, want %u..%u\n",
			t->name, lba, h[0], h[1], h[2], sl->lo, hi);
}

static void fa_done(struct ftl_io *io)
{
	struct fa_slot *sl = io->cb_arg;
	struct fa_tenant *t = sl->t;
	uint64_t now = blox_clock_now(&t->d->clock);

	t->inflight--;
	if (io->status) {
		if (t->io_errors++ < 10)
			fprintf(stderr, "IO ERROR (%c): op %d lba %u status %d\n", t->name, io->op,
				io->lba, io->status);
	} else if (io->op == FTL_IO_READ) {
		check_read(t, sl);
	}
	if (io->op == FTL_IO_WRITE) {
		if (!io->status)
			t->shadow[sl->lba] = sl->ver;
		t->pend[sl->lba] = 0;
	}
	if (sl->in_win)
		blox_hist_add(io->op == FTL_IO_READ ? &t->rlat : &t->wlat, now - sl->t_sub);
	t->free_idx[t->nfree++] = (uint32_t)(sl - t->slots);
	if (!t->stop && t->submitted < t->to_submit)
		next_op(t);
}

static void fill_done(struct ftl_io *io)
{
	struct fa_tenant *t = io->cb_arg;

	t->inflight--;
	t->fill_busy = false;
	if (io->status)
		sim_die("fairness: fill write (%c): %d", t->name, io->status);
	for (uint32_t u = 0; u < io->nr; u++)
		t->shadow[io->lba + u] = t->pend[io->lba + u];
	for (uint32_t u = 0; u < io->nr; u++)
		t->pend[io->lba + u] = 0;
	if (t->fill_ptr < t->cap)
		next_op(t);
}

static void fill_next(struct fa_tenant *t)
{
	uint32_t nr = t->cap - t->fill_ptr < SIM_SEQ_UNITS ? t->cap - t->fill_ptr : SIM_SEQ_UNITS;
	int rc;

	for (uint32_t u = 0; u < nr; u++) {
		uint32_t lba = t->fill_ptr + u;

		t->pend[lba] = ++t->next_ver;
		sim_stamp_unit(t->fill_buf + (size_t)u * FTL_UNIT, lba, t->pend[lba]);
	}
	t->fill_io = (struct ftl_io){ .op = FTL_IO_WRITE, .lba = t->fill_ptr, .nr = nr,
				      .buf = t->fill_buf, .cb = fill_done, .cb_arg = t };
	t->fill_ptr += nr;
	t->fill_busy = true;
	t->inflight++;
	if ((rc = ftl_submit(t->f, &t->fill_io)))
		sim_die("fairness: fill submit (%c): %d", t->name, rc);
}

static void next_op(struct fa_tenant *t)
{
	switch (t->job) {
	case FA_JOB_FILL:
		fill_next(t);
		break;
	case FA_JOB_MIX:
		submit_4k(t, sim_rnd(&t->rng) % 100 < t->reads_pct ? FTL_IO_READ : FTL_IO_WRITE);
		break;
	case FA_JOB_VERIFY:
		submit_4k(t, FTL_IO_READ);
		break;
	default:
		break;
	}
}

/* Start @job: @n ops at most (UINT64_MAX: until stopped), @qd in flight. */
static void job_start(struct fa_tenant *t, enum fa_job job, uint32_t reads_pct, uint64_t n,
		      uint32_t qd)
{
	t->job = job;
	t->reads_pct = reads_pct;
	t->stop = false;
	t->to_submit = n;
	t->submitted = 0;
	t->fill_ptr = 0;
	if (job == FA_JOB_FILL) {
		fill_next(t);
		return;
	}
	for (uint32_t i = 0; i < qd && t->submitted < t->to_submit; i++)
		next_op(t);
}

static bool tenant_busy(const struct fa_tenant *t)
{
	if (t->inflight)
		return true;
	if (t->job == FA_JOB_FILL)
		return t->fill_ptr < t->cap;
	return t->job != FA_JOB_NONE && !t->stop && t->submitted < t->to_submit;
}

static bool both_idle(const void *ctx)
{
	const struct fa_dev *d = ctx;

	return !tenant_busy(&d->t[0]) && !tenant_busy(&d->t[1]);
}

static void loop_hang(void *ctx)
{
	struct fa_dev *d = ctx;

	sim_die("fairness: HANG: work left, nothing pending in the NAND engine"
		" (A %llu, B %llu in flight)",
		(unsigned long long)d->t[0].inflight, (unsigned long long)d->t[1].inflight);
}

static const struct sim_loop_ops fa_loop_ops = {
	.hang = loop_hang,
};

static void check_clean(const struct fa_dev *d)
{
	for (int i = 0; i < FA_TENANTS; i++) {
		const struct fa_tenant *t = &d->t[i];

		if (t->bad || t->io_errors)
			sim_die("fairness: DATA ERROR (%c): %llu bad reads, %llu I/O errors", t->name,
				(unsigned long long)t->bad, (unsigned long long)t->io_errors);
		if (t->se.wrong_tenant)
			sim_die("fairness: %c submitted %llu nand ops with another tenant id", t->name,
				(unsigned long long)t->se.wrong_tenant);
	}
}

/* Both filled, then overwritten at random --precond-x times their capacity. */
void fa_precondition(struct fa_dev *d)
{
	const struct fa_opts *o = d->o;

	for (int i = 0; i < FA_TENANTS; i++)
		job_start(&d->t[i], FA_JOB_FILL, 0, UINT64_MAX, 1);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	for (int i = 0; i < FA_TENANTS; i++)
		job_start(&d->t[i], FA_JOB_MIX, 0, (uint64_t)(o->precond_x * d->t[i].cap), o->qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	check_clean(d);
}

/* ---- one point ---- */

struct fa_snap {
	uint64_t served[FA_MAX_DIES][FA_TENANTS][NAND_OP_KINDS];
	uint64_t busy;
	struct ftl_stats st[FA_TENANTS];
	struct nand_stats ns;
};

static void snap(const struct fa_dev *d, struct fa_snap *s)
{
	s->busy = 0;
	for (uint32_t die = 0; die < d->ndies; die++) {
		const struct nand_die_stats *ds = nand_die_stats(d->dev, die);

		for (int k = 0; k < NAND_OP_KINDS; k++)
			s->busy += ds->busy_ns[k];
		for (uint32_t t = 0; t < FA_TENANTS; t++) {
			const struct nand_tenant_stats *ts = nand_tenant_stats(d->dev, die, t);

			for (int k = 0; k < NAND_OP_KINDS; k++)
				s->served[die][t][k] = ts->served_ns[k];
		}
	}
	for (int i = 0; i < FA_TENANTS; i++)
		ftl_get_stats(d->t[i].f, &s->st[i]);
	s->ns = *nand_dev_stats(d->dev);
}

void fa_point(struct fa_dev *d, uint32_t reads_pct, struct fa_point *p)
{
	const struct fa_opts *o = d->o;
	struct fa_snap *s1 = calloc(1, sizeof(*s1)), *s2 = calloc(1, sizeof(*s2));
	uint64_t win = (uint64_t)(o->seconds * 1e9), now;
	double w0 = sim_wall_now();

	if (!s1 || !s2)
		sim_die("out of memory");
	memset(p, 0, sizeof(*p));
	p->sched = d->sched;
	p->channels = d->nc.geo.channels;
	p->dies = d->nc.geo.dies_per_channel;
	p->reads_pct = reads_pct;
	p->window_s = o->seconds;
	for (int i = 0; i < FA_TENANTS; i++)
		job_start(&d->t[i], FA_JOB_MIX, reads_pct, UINT64_MAX, o->qd);
	sim_loop_run(&d->loop, blox_clock_now(&d->clock) + (uint64_t)(o->warmup_s * 1e9), NULL);
	now = blox_clock_now(&d->clock);
	for (int i = 0; i < FA_TENANTS; i++) {
		d->t[i].m_on = true;
		d->t[i].m0 = now;
		d->t[i].m1 = now + win;
		blox_hist_reset(&d->t[i].rlat);
		blox_hist_reset(&d->t[i].wlat);
	}
	snap(d, s1);
	memset(d->drr.contended_ns, 0, sizeof(d->drr.contended_ns));
	memset(d->drr.alone_ns, 0, sizeof(d->drr.alone_ns));
	memset(d->drr.dry_gc_ns, 0, sizeof(d->drr.dry_gc_ns));
	memset(d->drr.dry_host_ns, 0, sizeof(d->drr.dry_host_ns));
	for (int i = 0; i < FA_TENANTS; i++)
		d->drr.ftl[i] = d->t[i].f;
	sim_loop_run(&d->loop, now + win, NULL);
	snap(d, s2);
	memcpy(p->contended_ns, d->drr.contended_ns, sizeof(p->contended_ns));
	memcpy(p->alone_ns, d->drr.alone_ns, sizeof(p->alone_ns));
	memcpy(p->dry_gc_ns, d->drr.dry_gc_ns, sizeof(p->dry_gc_ns));
	memcpy(p->dry_host_ns, d->drr.dry_host_ns, sizeof(p->dry_host_ns));
	memset(d->drr.ftl, 0, sizeof(d->drr.ftl));
	for (int i = 0; i < FA_TENANTS; i++) {
		d->t[i].stop = true;
		d->t[i].m_on = false;
	}
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	check_clean(d);

	p->die_ratio_min = INFINITY;
	p->die_ratio_max = 0;
	for (uint32_t die = 0; die < d->ndies; die++) {
		double a = 0, b = 0, r;

		for (int k = 0; k < NAND_OP_KINDS; k++) {
			uint64_t da = s2->served[die][0][k] - s1->served[die][0][k];
			uint64_t db = s2->served[die][1][k] - s1->served[die][1][k];

			p->served[0][k] += da;
			p->served[1][k] += db;
			a += (double)da;
			b += (double)db;
		}
		r = a > 0 ? b / a : INFINITY;
		if (r < p->die_ratio_min)
			p->die_ratio_min = r;
		if (r > p->die_ratio_max)
			p->die_ratio_max = r;
	}
	p->busy_pct = 100.0 * (double)(s2->busy - s1->busy) / ((double)d->ndies * (double)win);
	for (int i = 0; i < FA_TENANTS; i++) {
		struct fa_tenant *t = &d->t[i];

		p->kiops_r[i] = (double)t->rlat.count / o->seconds / 1000.0;
		p->kiops_w[i] = (double)t->wlat.count / o->seconds / 1000.0;
		p->rmean[i] = t->rlat.count ? blox_hist_mean(&t->rlat) / 1000.0 : 0;
		p->rp99[i] = t->rlat.count ? sim_us(blox_hist_quantile(&t->rlat, 0.99)) : 0;
		p->wmean[i] = t->wlat.count ? blox_hist_mean(&t->wlat) / 1000.0 : 0;
		p->wp99[i] = t->wlat.count ? sim_us(blox_hist_quantile(&t->wlat, 0.99)) : 0;
		p->waf[i] = sim_waf_between(&s1->st[i], &s2->st[i]);
	}
	p->picks = s2->ns.sched_picks - s1->ns.sched_picks;
	p->bus_picks = s2->ns.sched_bus_picks - s1->ns.sched_bus_picks;
	p->fallbacks = s2->ns.sched_fallbacks - s1->ns.sched_fallbacks;
	p->wall_s = sim_wall_now() - w0;
	free(s1);
	free(s2);
}

/* Stop, then each tenant reads back a random sample. */
void fa_verify(struct fa_dev *d)
{
	for (int i = 0; i < FA_TENANTS; i++)
		job_start(&d->t[i], FA_JOB_VERIFY, 100, FA_VERIFY_READS, d->o->qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	check_clean(d);
}

