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
/* FTL_GC_READS_PER_DIE: what the header says of the FTL. */
#include "ftl_internal.h"

#define FA_TENANTS 2
#define FA_MAX_QD 1024u
#define FA_MAX_MIXES 8
#define FA_VERIFY_READS 8192u
#define FA_MAX_DIES 64u
#define FA_MAX_POOLS 8

enum fa_sched { FA_FIFO, FA_DRR, FA_DRRG, FA_SCHEDS };

static const char *const fa_sched_name[FA_SCHEDS] = { "fifo", "drr", "drr-g" };

struct fa_opts {
	uint32_t weight[FA_TENANTS];
	uint32_t mixes[FA_MAX_MIXES], nmixes; /* read percentages */
	uint32_t scheds; /* bit per enum fa_sched */
	bool bus_drr;
	uint32_t qd;
	double seconds, warmup_s, precond_x;
	uint32_t pool_ch[FA_MAX_POOLS], pool_dies[FA_MAX_POOLS], npools; /* channels x dies/channel */
	uint32_t planes, ppb, blocks;
	uint32_t wbuf; /* FTL write buffer pages; 0: the FTL's default */
	uint32_t op_permille; /* FTL over-provisioning; 0: the FTL's default */
	bool gc_pipeline; /* ftl_config.gc_pipeline */
	uint64_t seed;
	const char *out, *outdir;
	char cmdline[2048];
};

struct fa_dev;
struct fa_tenant;

struct fa_slot {
	struct ftl_io io;
	struct fa_tenant *t;
	uint8_t buf[FTL_UNIT];
	uint64_t t_sub;
	uint32_t lba;
	uint32_t lo; /* read: the LBA's committed version at submission */
	uint32_t ver; /* write: the version written */
	bool in_win;
};

enum fa_job {
	FA_JOB_NONE,
	FA_JOB_FILL, /* 128 KiB sequential writes over the capacity */
	FA_JOB_MIX, /* random 4 KiB ops, reads_pct of them reads */
	FA_JOB_VERIFY, /* random 4 KiB reads, a fixed number */
};

struct fa_tenant {
	struct fa_dev *d;
	char name;
	uint32_t id; /* tenant id on the device */
	struct ftl_env env;
	struct ftl_resources res;
	struct ftl *f;
	struct sim_tenv se; /* its FTL's environment */
	uint32_t cap;
	uint32_t *shadow, *pend; /* committed version per LBA, version in flight (0: none) */
	uint32_t next_ver;
	uint64_t rng;
	struct fa_slot *slots;
	uint32_t *free_idx, nfree;
	uint8_t *fill_buf;
	struct ftl_io fill_io;
	bool fill_busy;

	enum fa_job job;
	uint32_t reads_pct;
	bool stop;
	uint64_t to_submit, submitted, inflight;
	uint32_t fill_ptr;

	/* The window: ops submitted in [m0, m1). */
	bool m_on;
	uint64_t m0, m1;
	struct blox_hist rlat, wlat;
	uint64_t bad, io_errors;
};

/*
 * What a tenant's FTL was doing while it had nothing queued on a die the
 * other tenant was given (ftl_inspect_gc(), ftl_inspect_activity()): GC by
 * phase, and its host writes.
 */
enum fa_dry_gc {
	DRY_SCAN, /* a victim in pass 1: OOB reads */
	DRY_ROUND, /* a victim in pass 2: a round's data reads (or held back) */
	DRY_MOVE, /* a victim in pass 2: moving (waiting for translation pages or space) */
	DRY_SLOT, /* a victim collected, waiting for an erase slot */
	DRY_ERASE, /* no victim: collected ones waiting for their programs and erase */
	DRY_NOGC, /* no GC at all */
	DRY_GC_KINDS,
};

enum fa_dry_host {
	DRY_PACED, /* host writes waiting for a GC credit */
	DRY_SPACE, /* host writes waiting for buffer or superblock space */
	DRY_FREE, /* neither */
	DRY_HOST_KINDS,
};

static const char *const fa_dry_gc_name[DRY_GC_KINDS] = { "scan", "round", "move",
							  "slot", "erase", "noGC" };
static const char *const fa_dry_host_name[DRY_HOST_KINDS] = { "paced", "space", "free" };

/* qos_drr per die and class, per channel and class: the scheduler's state. */
struct fa_drr {
	uint32_t ndies, nch;
	struct qos_drr *die, *bus;
	/*
	 * Die time given per tenant by picks with both tenants waiting, and by
	 * picks with only that one waiting (the other had nothing queued).
	 */
	uint64_t contended_ns[FA_TENANTS], alone_ns[FA_TENANTS];
	/* During the window: the FTLs, and the other's alone_ns by what they did. */
	const struct ftl *ftl[FA_TENANTS];
	uint64_t dry_gc_ns[FA_TENANTS][DRY_GC_KINDS], dry_host_ns[FA_TENANTS][DRY_HOST_KINDS];
};

struct fa_dev {
	const struct fa_opts *o;
	enum fa_sched sched;
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct blox_clock clock;
	struct ftl_config fc;
	struct fa_drr drr;
	struct fa_tenant t[FA_TENANTS];
	struct sim_loop loop; /* the run loop over both */
	uint32_t ndies;
};

/* One measured point. */
struct fa_point {
	enum fa_sched sched;
	uint32_t reads_pct;
	double window_s;
	uint64_t served[FA_TENANTS][NAND_OP_KINDS]; /* ns, all dies */
	double die_ratio_min, die_ratio_max; /* B/A per die */
	double busy_pct; /* the dies' array time, % of the window */
	double kiops_r[FA_TENANTS], kiops_w[FA_TENANTS];
	double rmean[FA_TENANTS], rp99[FA_TENANTS], wmean[FA_TENANTS], wp99[FA_TENANTS];
	double waf[FA_TENANTS];
	uint64_t picks, bus_picks, fallbacks;
	uint64_t contended_ns[FA_TENANTS], alone_ns[FA_TENANTS]; /* drr: see struct fa_drr */
	uint64_t dry_gc_ns[FA_TENANTS][DRY_GC_KINDS], dry_host_ns[FA_TENANTS][DRY_HOST_KINDS];
	uint32_t channels, dies; /* the pool */
	double wall_s;
};

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

static void fa_open(struct fa_dev *d, const struct fa_opts *o, uint32_t pool, enum fa_sched sched)
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

static void fa_close(struct fa_dev *d)
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
static void fa_precondition(struct fa_dev *d)
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

static void fa_point(struct fa_dev *d, uint32_t reads_pct, struct fa_point *p)
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
static void fa_verify(struct fa_dev *d)
{
	for (int i = 0; i < FA_TENANTS; i++)
		job_start(&d->t[i], FA_JOB_VERIFY, 100, FA_VERIFY_READS, d->o->qd);
	sim_loop_run(&d->loop, UINT64_MAX, both_idle);
	check_clean(d);
}

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%.120s x %ld online, %.80s, Linux %.64s; the simulator is single-threaded",
		 m.model, m.cpus, m.os, m.release);
}

static void fa_header(struct sim_out *out, const struct fa_dev *d)
{
	const struct fa_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	const struct nand_timing *tm = &d->nc.timing;
	char m[512], pools[256];
	size_t len = 0;

	machine(m, sizeof(m));
	pools[0] = 0;
	for (uint32_t i = 0; i < o->npools; i++) {
		int k = snprintf(pools + len, sizeof(pools) - len, "%s%ux%u (%u dies)", i ? ", " : "",
				 o->pool_ch[i], o->pool_dies[i], o->pool_ch[i] * o->pool_dies[i]);

		if (k < 0 || (size_t)k >= sizeof(pools) - len)
			break;
		len += (size_t)k;
	}
	sim_outf(out, "# blox-sim: experiment fairness (qos bench 3): two software vSSDs on the same"
		 " dies, weighted %u:%u\n", o->weight[0], o->weight[1]);
	sim_outf(out, "# command: %s\n", o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (FTL and scheduler CPU time not modeled)\n", m);
	sim_outf(out, "# devices (one per pool and scheduler): channels x dies per channel %s; each die"
		 " %u planes x %u blocks x %u pages x %u KiB, TLC: tR %llu/%llu/%llu us, tPROG"
		 " %llu/%llu/%llu us, tBERS %llu us, bus %llu MB/s; multi-plane groups on; default"
		 " suspension policy\n",
		 pools, g->planes_per_die, g->blocks_per_plane, g->pages_per_block, g->page_size / 1024,
		 (unsigned long long)tm->t_read_ns[0] / 1000, (unsigned long long)tm->t_read_ns[1] / 1000,
		 (unsigned long long)tm->t_read_ns[2] / 1000, (unsigned long long)tm->t_prog_ns[0] / 1000,
		 (unsigned long long)tm->t_prog_ns[1] / 1000, (unsigned long long)tm->t_prog_ns[2] / 1000,
		 (unsigned long long)tm->t_erase_ns / 1000, (unsigned long long)tm->bus_mbps);
	sim_outf(out, "# tenants: A (tenant 0, weight %u) and B (tenant 1, weight %u), each an FTL"
		 " instance over every die of the pool, A on blocks 0..%u and B on %u..%u of every"
		 " plane\n"
		 "#   (%u superblocks each; FTL defaults but --wbuf and --op: volatile write cache, %u"
		 " write-buffer pages, op_permille %u, greedy GC, GC reads in flight: %u per die; GC"
		 " pipeline %s)\n",
		 o->weight[0], o->weight[1], o->blocks - 1, o->blocks, 2 * o->blocks - 1, o->blocks,
		 d->fc.write_buffer_pages, d->fc.op_permille, FTL_GC_READS_PER_DIE,
		 d->fc.gc_pipeline ? "on: the next victim while the last waits for its erase" : "off");
	sim_outf(out, "# load: per tenant a closed loop of random 4 KiB ops over its LBA space at QD"
		 " %u, R%% of them reads (the rest writes); per pool and scheduler a fresh device, both"
		 " filled then overwritten %.1fx at random (GC in steady state); per mix %.1f s"
		 " warm-up, %.1f s measured, then both drain\n",
		 o->qd, o->precond_x, o->warmup_s, o->seconds);
	sim_outf(out, "# schedulers (nand_config.sched, 2 tenants):\n"
		 "#   fifo   no pick(): first come first served in each class, the order before tenants\n"
		 "#   drr    qos_drr_pick() per die and class, weights %u:%u, quantum %u us x weight, cost ="
		 " array time; every class strict across tenants (host reads > GC reads > host writes >"
		 " GC writes > erases), weights inside a class\n"
		 "#   drr-g  the same with group_from = GC reads: host reads strict first, then one DRR over"
		 " each tenant's best op of the other classes (strict inside a tenant)\n"
		 "#   %s\n",
		 o->weight[0], o->weight[1], QOS_DRR_QUANTUM_NS / 1000,
		 o->bus_drr ? "drr and drr-g also weigh the channels (qos_drr per channel and class, cost ="
			      " bus time)" : "channels first come first served");
	sim_outf(out, "# die time = array time of each tenant's ops started on the pool's dies in the"
		 " window (host reads and writes, GC reads and programs, erases, translation pages),"
		 " as charged (nand_tenant_stats().served_ns)\n");
}

static double fa_total(const struct fa_point *p, int t)
{
	double x = 0;

	for (int k = 0; k < NAND_OP_KINDS; k++)
		x += (double)p->served[t][k];
	return x;
}

static double fa_ratio(const struct fa_point *p)
{
	double a = fa_total(p, 0);

	return a > 0 ? fa_total(p, 1) / a : INFINITY;
}

static void fa_table(struct sim_out *out, const struct fa_opts *o, const struct fa_point *pts,
		     uint32_t n)
{
	double target = (double)o->weight[1] / (double)o->weight[0];

	sim_outf(out, "\n# die time per tenant over the window, all dies of the pool (ms); B/A (target"
		 " %.3f with drr and drr-g) and its error; per-die B/A range; the dies' busy time (%%"
		 " of the window)\n", target);
	sim_outf(out, "# contended: %% of the die time given by picks with both tenants waiting;"
		 " A_alone, B_alone: die time given to one while the other had nothing queued (ms)\n");
	sim_outf(out, "%-4s %-5s %4s %9s %9s %7s %7s %11s %6s %4s %6s %8s %8s\n", "pool", "sched",
		 "R%", "A_ms", "B_ms", "B/A", "err%", "die_B/A", "busy%", "5%", "cont%", "A_alone",
		 "B_alone");
	for (uint32_t i = 0; i < n; i++) {
		const struct fa_point *p = &pts[i];
		double r = fa_ratio(p), err = 100.0 * (r / target - 1.0);
		char pool[16];

		snprintf(pool, sizeof(pool), "%ux%u", p->channels, p->dies);
		sim_outf(out, "%-4s %-5s %4u %9.1f %9.1f %7.3f %+7.1f %5.2f-%-5.2f %6.1f %4s", pool,
			 fa_sched_name[p->sched], p->reads_pct, fa_total(p, 0) / 1e6,
			 fa_total(p, 1) / 1e6, r, err, p->die_ratio_min, p->die_ratio_max, p->busy_pct,
			 p->sched != FA_FIFO ? (fabs(err) <= 5.0 ? "yes" : "NO") : "-");
		if (p->sched != FA_FIFO) {
			double c = (double)(p->contended_ns[0] + p->contended_ns[1]);
			double all = c + (double)(p->alone_ns[0] + p->alone_ns[1]);

			sim_outf(out, " %6.1f %8.1f %8.1f\n", all > 0 ? 100.0 * c / all : 0,
				 p->alone_ns[0] / 1e6, p->alone_ns[1] / 1e6);
		} else {
			sim_outf(out, " %6s %8s %8s\n", "-", "-", "-");
		}
	}
	sim_outf(out, "\n# where the die time given alone went (drr, drr-g): die time a tenant went"
		 " without while it had nothing queued on the die and the other was served (ms),"
		 " by what its FTL was doing then: GC scan (pass 1, OOB reads), round (pass 2, a"
		 " round's data reads or held back for an erase), move (pass 2 moving, waiting for"
		 " a translation page or space), slot (collected, waiting for an erase slot), erase"
		 " (no victim, collected ones waiting for their programs and erase), noGC; and its"
		 " host writes: paced (waiting for a GC credit), space (waiting for buffer or"
		 " superblock space), free\n");
	sim_outf(out, "%-4s %-5s %4s %2s", "pool", "sched", "R%", "t");
	for (int k = 0; k < DRY_GC_KINDS; k++)
		sim_outf(out, " %7s", fa_dry_gc_name[k]);
	sim_outf(out, "  ");
	for (int k = 0; k < DRY_HOST_KINDS; k++)
		sim_outf(out, " %7s", fa_dry_host_name[k]);
	sim_outf(out, "\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct fa_point *p = &pts[i];
		char pool[16];

		if (p->sched == FA_FIFO)
			continue;
		snprintf(pool, sizeof(pool), "%ux%u", p->channels, p->dies);
		for (int t = 0; t < FA_TENANTS; t++) {
			sim_outf(out, "%-4s %-5s %4u %2c", pool, fa_sched_name[p->sched], p->reads_pct,
				 'A' + t);
			for (int k = 0; k < DRY_GC_KINDS; k++)
				sim_outf(out, " %7.1f", p->dry_gc_ns[t][k] / 1e6);
			sim_outf(out, "  ");
			for (int k = 0; k < DRY_HOST_KINDS; k++)
				sim_outf(out, " %7.1f", p->dry_host_ns[t][k] / 1e6);
			sim_outf(out, "\n");
		}
	}
	sim_outf(out, "\n# die time by kind (ms): reads, programs, erases per tenant\n");
	sim_outf(out, "%-4s %-5s %4s %8s %8s %8s   %8s %8s %8s\n", "pool", "sched", "R%", "A_read",
		 "A_prog", "A_erase", "B_read", "B_prog", "B_erase");
	for (uint32_t i = 0; i < n; i++) {
		const struct fa_point *p = &pts[i];
		char pool[16];

		snprintf(pool, sizeof(pool), "%ux%u", p->channels, p->dies);
		sim_outf(out, "%-4s %-5s %4u %8.1f %8.1f %8.1f   %8.1f %8.1f %8.1f\n", pool,
			 fa_sched_name[p->sched], p->reads_pct, p->served[0][0] / 1e6,
			 p->served[0][1] / 1e6, p->served[0][2] / 1e6, p->served[1][0] / 1e6,
			 p->served[1][1] / 1e6, p->served[1][2] / 1e6);
	}
	sim_outf(out, "\n# host I/O per tenant: kIOPS (reads, writes), mean and P99 latency (us), WAF"
		 " in the window; scheduler calls (die, bus), fallbacks, wall seconds of the point\n");
	sim_outf(out, "%-4s %-5s %4s %6s %6s %8s %8s %8s %9s %5s  %6s %6s %8s %8s %8s %9s %5s  %8s %7s"
		 " %3s %5s\n",
		 "pool", "sched", "R%", "A_rk", "A_wk", "A_rmean", "A_rp99", "A_wmean", "A_wp99",
		 "A_waf", "B_rk", "B_wk", "B_rmean", "B_rp99", "B_wmean", "B_wp99", "B_waf", "picks",
		 "bus", "fb", "wall");
	for (uint32_t i = 0; i < n; i++) {
		const struct fa_point *p = &pts[i];
		char pool[16];

		snprintf(pool, sizeof(pool), "%ux%u", p->channels, p->dies);
		sim_outf(out, "%-4s %-5s %4u", pool, fa_sched_name[p->sched], p->reads_pct);
		for (int t = 0; t < FA_TENANTS; t++)
			sim_outf(out, " %6.2f %6.2f %8.1f %8.1f %8.1f %9.1f %5.2f ", p->kiops_r[t],
				 p->kiops_w[t], p->rmean[t], p->rp99[t], p->wmean[t], p->wp99[t],
				 p->waf[t]);
		sim_outf(out, " %8llu %7llu %3llu %5.1f\n", (unsigned long long)p->picks,
			 (unsigned long long)p->bus_picks, (unsigned long long)p->fallbacks, p->wall_s);
	}
}

/* ---- options ---- */

static void usage(void)
{
	printf("usage: blox-sim fairness [options]   (qos bench 3, docs/QOS_RESULTS.md)\n"
	       "two software vSSDs (FTL instances on the same dies, own block ranges) saturating\n"
	       "them; the die time each gets with no scheduler and with qos/'s DRR:\n"
	       "  --weights A:B          tenant weights (default 1:3)\n"
	       "  --mixes a,b,...        read percentages of the closed loops (default 100,50,0)\n"
	       "  --sched fifo,drr       schedulers to run (default both)\n"
	       "  --bus-drr on|off       DRR on the channels too (default on)\n"
	       "  --qd N                 queue depth per tenant (default 256)\n"
	       "  --seconds S            measured virtual seconds per mix (default 5)\n"
	       "  --warmup-s S           before each window (default 1)\n"
	       "  --precond-x X          random overwrite before, x capacity (default 1)\n"
	       "  --pools CxD,...        the shared dies: channels x dies per channel, one device\n"
	       "                         per pool (default 1x1,2x1,2x2)\n"
	       "  --planes N --ppb N     planes per die, pages per block (default 2, 48)\n"
	       "  --blocks N             blocks per plane per tenant (default 32)\n"
	       "  --wbuf N               FTL write buffer pages (default: the FTL's, 64)\n"
	       "  --op N                 FTL op_permille (default: the FTL's, 70)\n"
	       "  --gc-pipeline on|off   ftl_config.gc_pipeline (default on, as bloxd sets it for\n"
	       "                         software vSSDs; off: the FTL's default)\n"
	       "  --seed N               (default 1)\n"
	       "  --out FILE             (default --outdir/qos_fairness.txt)\n"
	       "  --outdir DIR           (default docs/results)\n");
}

static void parse_weights(void *ctx, const char *k, const char *v)
{
	struct fa_opts *o = ctx;
	unsigned a, b;

	if (sscanf(v, "%u:%u", &a, &b) != 2 || !a || !b || a > 1000 || b > 1000)
		sim_die("%s: A:B, each 1..1000, got %s", k, v);
	o->weight[0] = a;
	o->weight[1] = b;
}

static void parse_pools(void *ctx, const char *k, const char *v)
{
	struct fa_opts *o = ctx;
	char *copy = strdup(v), *tok, *save = NULL;

	if (!copy)
		sim_die("out of memory");
	o->npools = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned c, dd;

		if (o->npools == FA_MAX_POOLS)
			sim_die("%s: at most %d", k, FA_MAX_POOLS);
		if (sscanf(tok, "%ux%u", &c, &dd) != 2 || !c || !dd || c * dd > FA_MAX_DIES)
			sim_die("%s: CxD (channels x dies per channel, at most %u dies), got %s", k,
				FA_MAX_DIES, tok);
		o->pool_ch[o->npools] = c;
		o->pool_dies[o->npools++] = dd;
	}
	free(copy);
	if (!o->npools)
		sim_die("%s needs a value", k);
}

static bool parse(struct fa_opts *o, int argc, char **argv)
{
	static const struct sim_choice scheds[] = {
		{ "fifo", 1 << FA_FIFO }, { "drr", 1 << FA_DRR }, { "drr-g", 1 << FA_DRRG }, { NULL, 0 }
	};
	const struct sim_opt opts[] = {
		SIM_OPT_FN("--weights", parse_weights, o),
		SIM_OPT_U32S("--mixes", o->mixes, &o->nmixes, FA_MAX_MIXES, 0, 100),
		SIM_OPT_FLAGS("--sched", &o->scheds, scheds),
		SIM_OPT_ONOFF("--bus-drr", &o->bus_drr),
		SIM_OPT_ONOFF("--gc-pipeline", &o->gc_pipeline),
		SIM_OPT_U32("--qd", &o->qd, 1, FA_MAX_QD),
		SIM_OPT_NONNEG("--seconds", &o->seconds),
		SIM_OPT_NONNEG("--warmup-s", &o->warmup_s),
		SIM_OPT_NONNEG("--precond-x", &o->precond_x),
		SIM_OPT_FN("--pools", parse_pools, o),
		SIM_OPT_U32("--planes", &o->planes, 1, 4),
		SIM_OPT_U32("--ppb", &o->ppb, 3, 4096),
		SIM_OPT_U32("--op", &o->op_permille, 1, 999),
		SIM_OPT_U32("--wbuf", &o->wbuf, 1, 65536),
		SIM_OPT_U32("--blocks", &o->blocks, 8, 65536),
		SIM_OPT_SEED(&o->seed),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_STR("--outdir", &o->outdir),
		SIM_OPT_END,
	};

	*o = (struct fa_opts){ .weight = { 1, 3 }, .mixes = { 100, 50, 0 }, .nmixes = 3,
			       .scheds = (1u << FA_FIFO) | (1u << FA_DRR) | (1u << FA_DRRG), .bus_drr = true,
			       .gc_pipeline = true, .qd = 256,
			       .seconds = 5, .warmup_s = 1, .precond_x = 1,
			       .planes = 2, .ppb = 48, .blocks = 32, .seed = 1,
			       .outdir = "docs/results" };
	parse_pools(o, "--pools", "1x1,2x1,2x2");
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	if (!sim_opts_parse("fairness", usage, opts, argc, argv))
		return false;
	o->seed |= 1;
	if (o->ppb % 3)
		sim_die("--ppb must be a multiple of 3 (TLC)");
	if (!(o->seconds > 0))
		sim_die("--seconds must be positive");
	return true;
}

int sim_fairness_main(int argc, char **argv)
{
	struct fa_opts o;
	struct sim_out out;
	struct fa_dev *d;
	struct fa_point *pts;
	uint32_t n = 0;
	double w0 = sim_wall_now();
	char path[1024];
	bool header = false;

	if (!parse(&o, argc, argv))
		return 0;
	if (o.out)
		snprintf(path, sizeof(path), "%s", o.out);
	else
		snprintf(path, sizeof(path), "%s/qos_fairness.txt", o.outdir);
	out.fp = fopen(path, "w");
	if (!out.fp)
		sim_die("cannot write %s: %s", path, strerror(errno));
	fprintf(stderr, "writing %s\n", path);
	d = calloc(1, sizeof(*d));
	pts = calloc(FA_MAX_POOLS * FA_SCHEDS * FA_MAX_MIXES, sizeof(*pts));
	if (!d || !pts)
		sim_die("out of memory");
	for (uint32_t pool = 0; pool < o.npools; pool++) {
		for (int s = 0; s < FA_SCHEDS; s++) {
			double ws = sim_wall_now();

			if (!(o.scheds & (1u << s)))
				continue;
			fa_open(d, &o, pool, (enum fa_sched)s);
			if (!header) {
				fa_header(&out, d);
				header = true;
			}
			fa_precondition(d);
			fprintf(stderr, "  [%ux%u %s: preconditioned, %.1f s wall]\n", o.pool_ch[pool],
				o.pool_dies[pool], fa_sched_name[s], sim_wall_now() - ws);
			for (uint32_t m = 0; m < o.nmixes; m++) {
				struct fa_point *p = &pts[n++];

				fa_point(d, o.mixes[m], p);
				fprintf(stderr, "  [%ux%u %s R%u%%: B/A %.3f, %.1f s wall]\n",
					o.pool_ch[pool], o.pool_dies[pool], fa_sched_name[s],
					o.mixes[m], fa_ratio(p), p->wall_s);
			}
			fa_verify(d);
			fa_close(d);
		}
	}
	fa_table(&out, &o, pts, n);
	sim_outf(&out, "# every read checked against what was written, and %u random reads per tenant"
		 " after each device's last mix: no errors; every nand op carried its instance's"
		 " tenant id\n", FA_VERIFY_READS);
	sim_outf(&out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
	free(d);
	free(pts);
	return 0;
}
