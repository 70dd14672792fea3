/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry for the admin API. Counters are totals; rates and latency
 * percentiles cover the window between now and the older of two
 * once-a-second samples (1 to 2 s), so a reading shows what happens now
 * rather than an average since start.
 *
 * Beside them, per namespace on emulated NAND, the model's figures over
 * the same window (common/include/blox_model.h): the sampler also keeps
 * the counters of the namespace's dies and FTL (struct adm_model), and a
 * reading takes their differences since the sample the I/O figures start
 * from. The dies' array time comes from the engine's per-die busy
 * counters: for a namespace on a registered device its own dies only, for
 * a device of its own every die (its backend's telemetry hands the
 * device over). A backend that gives neither has the array time from the
 * device's op counts times the array times ("ops" instead of "dies" in
 * busy_from).
 */
#include "adm_internal.h"
#include "blox_model.h"
#include "blox_util.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

bool adm_bdev_telemetry(struct blox_bdev *bdev, struct blox_bdev_telemetry *t,
			struct ftl_stats *fs)
{
	memset(t, 0, sizeof(*t));
	memset(fs, 0, sizeof(*fs));
	t->ftl = fs;
	return blox_bdev_telemetry(bdev, t);
}

/* What the model counts of a namespace at one sample (totals). */
struct model_counters {
	uint64_t busy_ns, read_busy_ns; /* on its dies */
	uint64_t reads, programs; /* ops on its dies */
	uint64_t units_host, units_all; /* FTL units programmed: for the host, all */
};

/* The model's part of a namespace now. */
struct model_now {
	struct blox_model_flash flash;
	struct model_counters c;
	bool from_dies; /* busy from the per-die counters, else from op counts */
	bool has_ftl;
	double waf_life;
};

/* What the model keeps of one namespace between samples. */
struct adm_model_ns {
	const struct nvmf_ns *ns; /* with @created_ns, who it is (never dereferenced) */
	uint64_t created_ns;
	bool seen; /* in the last sample */
	/* A device of its own: its NAND configuration, resolved once from its parameters. */
	bool cfg_tried, cfg_ok;
	struct nand_config cfg;
	struct model_counters snap[2]; /* as ns->snap: [0] newest, taken at snap_ns */
	uint64_t snap_ns[2];
	/* Its device's lateness histogram at the samples (0: none then). */
	struct blox_hist late[2];
	uint64_t late_ns[2];
	TAILQ_ENTRY(adm_model_ns) link;
};

struct adm_model {
	TAILQ_HEAD(, adm_model_ns) nss;
	/* Each reactor's thread CPU time at the samples, and when. */
	uint64_t cpu_ns[2][PROV_REACTORS_MAX], cpu_at[2];
};

static struct adm_model_ns *model_find(const struct adm_model *mo, const struct nvmf_ns *ns)
{
	struct adm_model_ns *e;

	if (!mo)
		return NULL;
	TAILQ_FOREACH(e, &mo->nss, link)
		if (e->ns == ns && e->created_ns == ns->created_ns)
			return e;
	return NULL;
}

/* The NAND configuration of a namespace with a device of its own. */
static const struct nand_config *own_config(struct adm_model_ns *e, const struct prov_ns_rec *rec)
{
	struct blox_cfg_ns *cn;
	char err[256];

	if (!e->cfg_tried) {
		e->cfg_tried = true;
		cn = malloc(sizeof(*cn));
		if (cn && !blox_ns_resolve(&rec->params, "namespace", cn, err, sizeof(err))) {
			e->cfg = cn->nand;
			e->cfg_ok = true;
		}
		free(cn);
	}
	return e->cfg_ok ? &e->cfg : NULL;
}

static void flash_of(struct blox_model_flash *f, const struct nand_config *cfg, uint32_t dies,
		     uint32_t channels)
{
	const struct nand_geometry *g = &cfg->geo;
	const struct nand_timing *t = &cfg->timing;

	memset(f, 0, sizeof(*f));
	f->dies = dies;
	f->channels = channels;
	f->planes = cfg->multiplane ? g->planes_per_die : 1;
	f->page_size = g->page_size;
	f->page_types = g->cell >= NAND_SLC && g->cell <= NAND_QLC ? (uint32_t)g->cell : 1;
	for (uint32_t i = 0; i < BLOX_MODEL_TYPES; i++) {
		f->t_read_ns[i] = t->t_read_ns[i];
		f->t_prog_ns[i] = t->t_prog_ns[i];
	}
	f->t_erase_ns = t->t_erase_ns;
	f->t_suspend_ns = t->t_suspend_ns;
	f->t_resume_ns = t->t_resume_ns;
	f->t_cmd_ns = t->t_cmd_ns;
	f->bus_mbps = t->bus_mbps;
}

/* Add one die's counters (NULL: none) to @c. */
static void add_die(struct model_counters *c, const struct nand_die_stats *ds)
{
	if (!ds)
		return;
	for (int k = 0; k < NAND_OP_KINDS; k++)
		c->busy_ns += ds->busy_ns[k];
	c->busy_ns += ds->suspend_overhead_ns;
	c->read_busy_ns += ds->busy_ns[NAND_OP_READ];
	c->reads += ds->ops[NAND_OP_READ];
	c->programs += ds->ops[NAND_OP_PROGRAM];
}

/*
 * The model's part of @ns now: false when it has none (no NAND, null
 * timing, not a namespace of the provisioning service's). @late, when
 * not NULL: its device's lateness histogram, *@late_ok set when it has one
 * (from the same telemetry call: each is a call at the device's reactor).
 */
static bool model_read(struct adm_model_ns *e, const struct nvmf_ns *ns, struct model_now *out,
		       struct blox_hist *late, bool *late_ok)
{
	const struct prov_ns_rec *rec = prov_ns_rec(ns);
	struct blox_bdev *bdev = ns->bdev;
	struct blox_bdev_telemetry t;
	const struct nand_config *cfg;
	struct ftl_stats fs;

	if (!adm_bdev_telemetry(bdev, &t, &fs) || !t.nand)
		return false;
	if (late) {
		*late = t.nand->lateness;
		*late_ok = true;
	}
	if (!rec)
		return false;
	memset(out, 0, sizeof(*out));
	if (rec->params.device[0]) {
		/* On a registered device: its own dies, their busy counters. */
		struct ftl_resources *res;
		uint64_t chans[4] = { 0 }; /* a bit per channel, up to 256 */
		uint32_t dpc, nch = 0;

		if (!rec->dev || !rec->dev->dev)
			return false;
		cfg = blox_nand_dev_nand_config(rec->dev->dev);
		res = malloc(sizeof(*res));
		if (!res || blox_bdev_ftl_migrate_progress(bdev, NULL, res) || !res->nr_dies) {
			free(res);
			return false;
		}
		dpc = cfg->geo.dies_per_channel ? cfg->geo.dies_per_channel : 1;
		for (uint32_t i = 0; i < res->nr_dies; i++) {
			const struct nand_die_stats *ds =
				t.die_stats ? &t.die_stats[res->dies[i]] : NULL;
			uint32_t ch = res->dies[i] / dpc;

			if (ch < 256 && !(chans[ch / 64] & (1ull << (ch % 64)))) {
				chans[ch / 64] |= 1ull << (ch % 64);
				nch++;
			}
			add_die(&out->c, ds);
		}
		flash_of(&out->flash, cfg, res->nr_dies, nch);
		out->from_dies = true;
		free(res);
	} else if (t.nand_dev) {
		/* A device of its own: every die, their busy counters. */
		if (!(cfg = own_config(e, rec)))
			return false;
		for (uint32_t i = 0; i < t.dies; i++)
			add_die(&out->c, t.die_stats ? &t.die_stats[i] : NULL);
		flash_of(&out->flash, cfg, t.dies, t.channels);
		out->from_dies = true;
	} else {
		/* No per-die counters: the busy time from the device's op counts. */
		const struct nand_stats *st = t.nand;
		struct blox_model_ops ops = {
			.reads = st->latency[NAND_OP_READ].count,
			.programs = st->latency[NAND_OP_PROGRAM].count,
			.erases = st->latency[NAND_OP_ERASE].count,
			.program_groups = st->mp_groups[NAND_OP_PROGRAM],
			.erase_groups = st->mp_groups[NAND_OP_ERASE],
			.joined = st->mp_joined,
			.suspends = st->suspend.suspends[NAND_OP_PROGRAM] +
				    st->suspend.suspends[NAND_OP_ERASE],
			.resumes = st->suspend.resumes[NAND_OP_PROGRAM] +
				   st->suspend.resumes[NAND_OP_ERASE],
		};

		if (!(cfg = own_config(e, rec)))
			return false;
		flash_of(&out->flash, cfg, t.dies, t.channels);
		out->c.busy_ns = blox_model_busy_from_ops(&out->flash, &ops, &out->c.read_busy_ns);
		out->c.reads = ops.reads;
		out->c.programs = ops.programs;
	}
	if (cfg->timing.null_timing || !out->flash.dies)
		return false;
	if (t.has_ftl) {
		out->has_ftl = true;
		out->waf_life = t.waf;
		out->c.units_host = fs.units_written_host;
		out->c.units_all = fs.units_written_host + fs.units_written_gc +
				   fs.units_written_tp + fs.units_padded;
	}
	return true;
}

static void model_sample(struct blox_admin *a, const struct nvmf_ns *ns, uint64_t now)
{
	struct adm_model_ns *e = model_find(a->model, ns);
	struct model_now cur;
	bool ok, late_ok;

	if (!e) {
		if (!(e = calloc(1, sizeof(*e))))
			return;
		e->ns = ns;
		e->created_ns = ns->created_ns;
		TAILQ_INSERT_TAIL(&a->model->nss, e, link);
	}
	e->seen = true;
	e->late[1] = e->late[0];
	e->late_ns[1] = e->late_ns[0];
	e->late_ns[0] = 0;
	e->snap[1] = e->snap[0];
	e->snap_ns[1] = e->snap_ns[0];
	late_ok = false;
	ok = model_read(e, ns, &cur, &e->late[0], &late_ok);
	if (late_ok)
		e->late_ns[0] = now;
	if (ok) {
		e->snap[0] = cur.c;
		e->snap_ns[0] = now;
	} else {
		e->snap_ns[0] = 0; /* no sample: no model over a window starting here */
	}
}

void adm_stats_fini(struct blox_admin *a)
{
	struct adm_model_ns *e;

	if (!a->model)
		return;
	while ((e = TAILQ_FIRST(&a->model->nss))) {
		TAILQ_REMOVE(&a->model->nss, e, link);
		free(e);
	}
	free(a->model);
	a->model = NULL;
}

/*
 * A sample: snap[0] takes the counters and the maxima of the interval
 * that ends now (tm->win), which start again from zero.
 */
static void shift(struct nvmf_io_telemetry snap[2], uint64_t snap_ns[2],
		  struct nvmf_io_telemetry *tm, uint64_t now)
{
	snap[1] = snap[0];
	snap_ns[1] = snap_ns[0];
	snap[0] = *tm;
	snap_ns[0] = now;
	memset(&tm->win, 0, sizeof(tm->win));
}

void adm_stats_sample(struct blox_admin *a)
{
	uint64_t now = blox_clock_now(a->tgt->clock);
	struct adm_model_ns *e, *next;
	struct nvmf_subsys *s;
	struct nvmf_ns *ns;
	struct nvmf_ctrl *c;

	if (!a->model && (a->model = calloc(1, sizeof(*a->model))))
		TAILQ_INIT(&a->model->nss);
	if (a->model) {
		TAILQ_FOREACH(e, &a->model->nss, link)
			e->seen = false;
		memcpy(a->model->cpu_ns[1], a->model->cpu_ns[0], sizeof(a->model->cpu_ns[0]));
		a->model->cpu_at[1] = a->model->cpu_at[0];
		for (unsigned k = 0; k < PROV_REACTORS_MAX; k++)
			a->model->cpu_ns[0][k] = prov_reactor_cpu_ns(a->prov, k);
		a->model->cpu_at[0] = now;
	}
	TAILQ_FOREACH(s, &a->tgt->subsystems, link) {
		TAILQ_FOREACH(ns, &s->namespaces, link) {
			shift(ns->snap, ns->snap_ns, &ns->tm, now);
			if (a->model)
				model_sample(a, ns, now);
		}
		TAILQ_FOREACH(c, &s->ctrls, link)
			shift(c->snap, c->snap_ns, &c->tm, now);
	}
	/* Namespaces gone since. */
	if (a->model)
		for (e = TAILQ_FIRST(&a->model->nss); e; e = next) {
			next = TAILQ_NEXT(e, link);
			if (!e->seen) {
				TAILQ_REMOVE(&a->model->nss, e, link);
				free(e);
			}
		}
}

/*
 * The sample a reading's window starts from: 1 (the older, 1 to 2 s
 * ago), 0 (the newer, when it is at least 0.5 s old and the only one),
 * or -1 (none: the window starts at the object's creation).
 */
static int window_base(const uint64_t snap_ns[2], uint64_t now)
{
	if (snap_ns[1])
		return 1;
	if (snap_ns[0] && now - snap_ns[0] >= 500000000ull)
		return 0;
	return -1;
}

/* @a less @b, with @max the largest value added in between. */
static void hist_sub(struct blox_hist *d, const struct blox_hist *a,
		     const struct blox_hist *b, uint64_t max)
{
	d->count = a->count - b->count;
	d->sum = a->sum - b->sum;
	d->min = 0;
	d->max = max;
	for (uint32_t i = 0; i < BLOX_HIST_BUCKETS; i++)
		d->buckets[i] = a->buckets[i] - b->buckets[i];
}

struct stats_buf {
	struct blox_hist tmp;
};

/* Count, percentiles, max and mean of @h into @l. */
static void lat_fill(Blox__Admin__Latency *l, const struct blox_hist *h)
{
	l->count = h->count;
	if (!h->count)
		return;
	l->p50_ns = blox_hist_quantile(h, 0.5);
	l->p99_ns = blox_hist_quantile(h, 0.99);
	l->p999_ns = blox_hist_quantile(h, 0.999);
	l->p9999_ns = blox_hist_quantile(h, 0.9999);
	l->max_ns = blox_hist_quantile(h, 1.0);
	l->mean_ns = (double)h->sum / (double)h->count;
}

/*
 * The largest value @a can hold beyond @b: the top of the highest bucket
 * that grew, no more than @a's maximum.
 */
static uint64_t hist_sub_top(const struct blox_hist *a, const struct blox_hist *b)
{
	for (uint32_t i = BLOX_HIST_BUCKETS; i-- > 0;)
		if (a->buckets[i] != b->buckets[i]) {
			uint64_t top = i + 1 < BLOX_HIST_BUCKETS ? blox_hist_bucket_low(i + 1) - 1
								 : UINT64_MAX;

			return BLOX_MIN(top, a->max);
		}
	return 0;
}

static Blox__Admin__Latency *latency(const struct blox_hist *cur,
				     const struct blox_hist *base, uint64_t max,
				     struct blox_hist *tmp)
{
	Blox__Admin__Latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	blox__admin__latency__init(l);
	hist_sub(tmp, cur, base, max);
	lat_fill(l, tmp);
	return l;
}

static Blox__Admin__IoStats *io_stats(const struct nvmf_io_telemetry *tm,
				      const struct nvmf_io_telemetry snap[2],
				      const uint64_t snap_ns[2], uint64_t since,
				      uint64_t now, uint64_t qd, struct blox_hist *tmp)
{
	static const struct nvmf_io_telemetry zero;
	Blox__Admin__IoStats *m = calloc(1, sizeof(*m));
	const struct nvmf_io_telemetry *b = &zero;
	uint64_t t0 = since;
	int base = window_base(snap_ns, now);
	struct nvmf_io_win win;
	double dt;

	if (!m)
		return NULL;
	blox__admin__io_stats__init(m);
	if (base >= 0) {
		b = &snap[base];
		t0 = snap_ns[base];
	}
	dt = (double)(now - t0) / 1e9;
	m->read_cmds = tm->c.read_cmds;
	m->write_cmds = tm->c.write_cmds;
	m->read_bytes = tm->c.read_bytes;
	m->write_bytes = tm->c.write_bytes;
	m->errors = tm->c.errors;
	m->interval_s = dt;
	if (dt > 0) {
		m->read_iops = (double)(tm->c.read_cmds - b->c.read_cmds) / dt;
		m->write_iops = (double)(tm->c.write_cmds - b->c.write_cmds) / dt;
		m->read_bw = (double)(tm->c.read_bytes - b->c.read_bytes) / dt;
		m->write_bw = (double)(tm->c.write_bytes - b->c.write_bytes) / dt;
	}
	/*
	 * The window's maxima: those of the interval running now, and, when
	 * the window starts at the older sample or at the start with one
	 * sample taken (under 0.5 s ago), those the newer sample holds.
	 */
	win = tm->win;
	if (base == 1 || (base < 0 && snap_ns[0])) {
		win.read_ns = BLOX_MAX(win.read_ns, snap[0].win.read_ns);
		win.write_ns = BLOX_MAX(win.write_ns, snap[0].win.write_ns);
		win.inflight = BLOX_MAX(win.inflight, snap[0].win.inflight);
	}
	m->read_lat = latency(&tm->read_lat, &b->read_lat, win.read_ns, tmp);
	m->write_lat = latency(&tm->write_lat, &b->write_lat, win.write_ns, tmp);
	/*
	 * Commands are at the backend only part of their life, and a sample
	 * taken between two turns of the loop mostly sees none: the mean over
	 * the window is the time they spent in flight over its length.
	 */
	if (dt > 0)
		m->mean_queue_depth = (double)(tm->read_lat.sum - b->read_lat.sum +
					       tm->write_lat.sum - b->write_lat.sum) /
				      (dt * 1e9);
	m->queue_depth = qd;
	m->max_queue_depth = BLOX_MAX(win.inflight, qd);
	return m;
}

static Blox__Admin__Latency *nand_lat(const struct blox_hist *h)
{
	Blox__Admin__Latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	blox__admin__latency__init(l);
	lat_fill(l, h);
	return l;
}

/*
 * The device's lateness over the window of the namespace's samples (since
 * the start without one), and its reactor's CPU over the same window.
 */
static void timing_stats(struct blox_admin *a, const struct nvmf_ns *ns,
			 const struct nand_stats *s, Blox__Admin__NandStats *n,
			 uint64_t now, struct blox_hist *tmp)
{
	struct adm_model_ns *e = model_find(a->model, ns);
	int base = e ? window_base(e->late_ns, now) : -1;

	if (base >= 0) {
		hist_sub(tmp, &s->lateness, &e->late[base],
			 hist_sub_top(&s->lateness, &e->late[base]));
		n->lateness = nand_lat(tmp);
	} else {
		n->lateness = nand_lat(&s->lateness);
	}
	/* The reactor its device lives on. */
	n->reactor = blox_bdev_home_reactor(ns->bdev->home);
	base = a->model ? window_base(a->model->cpu_at, now) : -1;
	if (base >= 0 && now > a->model->cpu_at[base] && n->reactor < PROV_REACTORS_MAX)
		n->reactor_cpu = (double)(prov_reactor_cpu_ns(a->prov, n->reactor) -
					  a->model->cpu_ns[base][n->reactor]) /
				 (double)(now - a->model->cpu_at[base]);
}

static void device_stats(struct blox_admin *a, const struct nvmf_ns *ns,
			 Blox__Admin__NamespaceStats *m, uint64_t now, struct blox_hist *tmp)
{
	struct blox_bdev_telemetry t;
	struct ftl_stats fs;

	if (!adm_bdev_telemetry(ns->bdev, &t, &fs))
		return;
	if (t.has_ftl && (m->ftl = calloc(1, sizeof(*m->ftl)))) {
		Blox__Admin__FtlStats *f = m->ftl;
		const struct ftl_stats *s = t.ftl;
		uint64_t lookups = s->cmt_hits + s->cmt_misses;

		blox__admin__ftl_stats__init(f);
		f->host_reads = s->host_reads;
		f->host_writes = s->host_writes;
		f->host_trims = s->host_trims;
		f->cmt_hits = s->cmt_hits;
		f->cmt_misses = s->cmt_misses;
		f->cmt_evictions = s->cmt_evictions;
		f->cmt_writebacks = s->cmt_writebacks;
		f->mdc_lookups = s->mdc_lookups;
		f->mdc_hits = s->mdc_hits;
		f->prefetched_tps = s->prefetched_tps;
		f->units_written_host = s->units_written_host;
		f->units_written_gc = s->units_written_gc;
		f->units_written_tp = s->units_written_tp;
		f->gc_runs = s->gc_runs;
		f->gc_units_moved = s->gc_units_moved;
		f->wl_runs = s->wl_runs;
		f->flash_erases = s->flash_erases;
		f->free_superblocks = s->free_superblocks;
		f->superblocks = s->superblocks;
		f->min_erase = s->min_erase;
		f->max_erase = s->max_erase;
		f->waf = t.waf;
		f->units_padded = s->units_padded;
		f->gc_tp_reads = s->gc_tp_reads;
		f->gc_tp_writebacks = s->gc_tp_writebacks;
		f->gc_paced = s->gc_paced;
		f->tp_pages_held = s->tp_pages_held;
		f->recovered_units = s->recovered_units;
		f->gc_pipeline = s->gc_pipeline;
		/* A read is a hit when the CMT or the MDC had its mapping. */
		f->cmt_hit_rate = lookups ? (double)s->cmt_hits / (double)lookups : 0;
		f->mdc_hit_rate = s->mdc_lookups ? (double)s->mdc_hits / (double)s->mdc_lookups
						 : 0;
	}
	if (t.nand && (m->nand = calloc(1, sizeof(*m->nand)))) {
		Blox__Admin__NandStats *n = m->nand;
		const struct nand_stats *s = t.nand;

		blox__admin__nand_stats__init(n);
		n->reads = s->latency[NAND_OP_READ].count;
		n->programs = s->latency[NAND_OP_PROGRAM].count;
		n->erases = s->latency[NAND_OP_ERASE].count;
		n->suspends = s->suspend.suspends[NAND_OP_PROGRAM] +
			      s->suspend.suspends[NAND_OP_ERASE];
		n->resumes = s->suspend.resumes[NAND_OP_PROGRAM] +
			     s->suspend.resumes[NAND_OP_ERASE];
		n->reads_overtaken = s->suspend.reads_overtaken;
		n->suspend_declined = s->suspend.declined;
		n->read_lat = nand_lat(&s->latency[NAND_OP_READ]);
		n->program_lat = nand_lat(&s->latency[NAND_OP_PROGRAM]);
		n->erase_lat = nand_lat(&s->latency[NAND_OP_ERASE]);
		n->mp_program_groups = s->mp_groups[NAND_OP_PROGRAM];
		n->mp_erase_groups = s->mp_groups[NAND_OP_ERASE];
		n->mp_joined = s->mp_joined;
		n->dies = t.dies;
		n->channels = t.channels;
		n->suspend_policy = (char *)(t.suspend_policy ? t.suspend_policy : "");
		n->erase_suspend_wear = s->suspend.erase_suspend_wear;
		timing_stats(a, ns, s, n, now, tmp);
		if (t.susp_decisions) {
			n->susp_granted = t.susp_decisions[QOS_SUSP_GRANTED];
			n->susp_not_host_read = t.susp_decisions[QOS_SUSP_NOT_HOST_READ];
			n->susp_nearly_done = t.susp_decisions[QOS_SUSP_NEARLY_DONE];
			n->susp_capped = t.susp_decisions[QOS_SUSP_CAPPED];
			n->susp_pressure = t.susp_decisions[QOS_SUSP_PRESSURE];
			n->susp_gc_urgent = t.susp_decisions[QOS_SUSP_GC_URGENT];
			n->susp_paced = t.susp_decisions[QOS_SUSP_PACED];
		}
	}
}

static const char *const waf_from[] = {
	[BLOX_MODEL_WAF_NONE] = "none",
	[BLOX_MODEL_WAF_INTERVAL] = "interval",
	[BLOX_MODEL_WAF_LIFE] = "life",
};

/*
 * The read latency the flash explains. A host that keeps a steady depth is
 * a closed loop: the MVA at the depth bloxd held (its mean over the window)
 * when the window had reads and no programs to share the dies with;
 * otherwise the open-queue formulas on the measured occupancy.
 */
static void read_model(Blox__Admin__NamespaceStats__Model *m, const struct blox_model_flash *f,
		       const struct blox_model_meas *meas, const struct blox_model *r,
		       const Blox__Admin__IoStats *io)
{
	double rho = BLOX_MIN(BLOX_MAX(r->rho, 0.0), BLOX_MODEL_RHO_MAX);

	m->read_mean_ns = io->read_lat ? io->read_lat->mean_ns : 0;
	m->qd = io->mean_queue_depth;
	if (meas->host_reads && !meas->flash_programs && io->mean_queue_depth > 0 &&
	    blox_model_closed_applies(io->mean_queue_depth, (double)io->max_queue_depth)) {
		struct blox_model_closed c;

		blox_model_closed(f, io->mean_queue_depth, 0, &c);
		if (c.x > 0) {
			m->latency_model = (char *)"closed";
			m->read_mean_pred_ns = c.r_ns;
			m->read_iops_pred = c.x;
			m->p99_read_pred_ns = (uint64_t)(c.p99_ns + 0.5);
			m->saturated = false;
			return;
		}
	}
	m->latency_model = (char *)"open";
	m->read_mean_pred_ns = r->service_ns * (1 + rho / (1 - rho));
}

/*
 * The model over the window of the namespace's I/O figures (@io, from
 * ns->snap[base]), or NULL: none, or no sample of its flash at the
 * window's start.
 */
static Blox__Admin__NamespaceStats__Model *model_stats(struct blox_admin *a,
							const struct nvmf_ns *ns,
							const Blox__Admin__IoStats *io, uint64_t now)
{
	struct adm_model_ns *e = model_find(a->model, ns);
	int base = window_base(ns->snap_ns, now);
	Blox__Admin__NamespaceStats__Model *m;
	const struct nvmf_ns_stats *c0, *c1 = &ns->tm.c;
	const struct model_counters *b;
	struct blox_model_meas meas;
	struct model_now cur;
	struct blox_model r;

	if (!e || !io || base < 0 || e->snap_ns[base] != ns->snap_ns[base] ||
	    !model_read(e, ns, &cur, NULL, NULL))
		return NULL;
	b = &e->snap[base];
	c0 = &ns->snap[base].c;
	meas = (struct blox_model_meas){
		.interval_ns = (double)(now - ns->snap_ns[base]),
		.host_reads = c1->read_cmds - c0->read_cmds,
		.host_writes = c1->write_cmds - c0->write_cmds,
		.host_write_bytes = c1->write_bytes - c0->write_bytes,
		.p99_read_ns = io->read_lat ? io->read_lat->p99_ns : 0,
		.busy_ns = cur.c.busy_ns - b->busy_ns,
		.read_busy_ns = cur.c.read_busy_ns - b->read_busy_ns,
		.flash_reads = cur.c.reads - b->reads,
		.flash_programs = cur.c.programs - b->programs,
		.units_host = cur.c.units_host - b->units_host,
		.units_all = cur.c.units_all - b->units_all,
		.waf_life = cur.waf_life,
		.has_ftl = cur.has_ftl,
	};
	blox_model_eval(&cur.flash, &meas, &r);
	if (!(m = calloc(1, sizeof(*m))))
		return NULL;
	blox__admin__namespace_stats__model__init(m);
	m->interval_s = meas.interval_ns / 1e9;
	m->dies = cur.flash.dies;
	m->channels = cur.flash.channels;
	m->t_read_ns = r.t_read_ns;
	m->t_prog_ns = r.t_prog_ns;
	m->read_iops_bound = r.read_iops_bound;
	m->read_iops = r.read_iops;
	m->rho = r.rho;
	m->busy_from = (char *)(cur.from_dies ? "dies" : "ops");
	m->service_ns = r.service_ns;
	m->p99_read_ns = r.p99_read_ns;
	m->p99_read_pred_ns = (uint64_t)(r.p99_read_pred_ns + 0.5);
	m->saturated = r.saturated;
	m->waf = r.waf;
	m->waf_from = (char *)(cur.has_ftl ? waf_from[r.waf_src] : "");
	m->write_iops = r.write_iops;
	m->write_iops_pred = r.write_iops_pred;
	read_model(m, &cur.flash, &meas, &r, io);
	return m;
}

void adm_stats_fill(struct blox_admin *a, const Blox__Admin__StatsRequest *in,
		    Blox__Admin__StatsReply *out, bool *found)
{
	uint64_t now = blox_clock_now(a->tgt->clock);
	struct blox_hist *tmp = malloc(sizeof(*tmp));
	struct nvmf_subsys *s;
	size_t nns = 0, nc = 0;

	*found = !in->nqn[0];
	out->uptime_ns = now - a->tgt->start_ns;
	TAILQ_FOREACH(s, &a->tgt->subsystems, link) {
		struct nvmf_ns *ns;
		struct nvmf_ctrl *c;

		if (in->nqn[0] && strcmp(in->nqn, s->nqn))
			continue;
		TAILQ_FOREACH(ns, &s->namespaces, link)
			nns++;
		TAILQ_FOREACH(c, &s->ctrls, link)
			nc++;
		if (!in->nsid)
			*found = true;
	}
	out->namespaces = calloc(nns + 1, sizeof(*out->namespaces));
	out->controllers = calloc(nc + 1, sizeof(*out->controllers));
	if (!tmp || !out->namespaces || !out->controllers) {
		free(tmp);
		return;
	}
	TAILQ_FOREACH(s, &a->tgt->subsystems, link) {
		struct nvmf_ns *ns;
		struct nvmf_ctrl *c;

		if (in->nqn[0] && strcmp(in->nqn, s->nqn))
			continue;
		TAILQ_FOREACH(ns, &s->namespaces, link) {
			Blox__Admin__NamespaceStats *m;

			if (in->nsid && ns->nsid != in->nsid)
				continue;
			*found = true;
			m = calloc(1, sizeof(*m));
			if (!m)
				break;
			blox__admin__namespace_stats__init(m);
			m->nqn = s->nqn;
			m->nsid = ns->nsid;
			m->io = io_stats(&ns->tm, ns->snap, ns->snap_ns, ns->created_ns,
					 now, ns->inflight, tmp);
			device_stats(a, ns, m, now, tmp);
			if (prov_ns_rec(ns))
				m->device = (char *)prov_ns_rec(ns)->params.device;
			m->model = model_stats(a, ns, m->io, now);
			out->namespaces[out->n_namespaces++] = m;
		}
		if (in->nsid)
			continue; /* one namespace: its controllers are not asked for */
		TAILQ_FOREACH(c, &s->ctrls, link) {
			Blox__Admin__ControllerStats *m = calloc(1, sizeof(*m));

			if (!m)
				break;
			blox__admin__controller_stats__init(m);
			m->nqn = s->nqn;
			m->cntlid = c->cntlid;
			m->host_nqn = c->hostnqn;
			m->io = io_stats(&c->tm, c->snap, c->snap_ns, c->created_ns, now,
					 c->inflight, tmp);
			out->controllers[out->n_controllers++] = m;
		}
	}
	free(tmp);
}

static void free_lat(Blox__Admin__Latency *l)
{
	free(l);
}

static void free_io(Blox__Admin__IoStats *io)
{
	if (!io)
		return;
	free_lat(io->read_lat);
	free_lat(io->write_lat);
	free(io);
}

void adm_stats_free(Blox__Admin__StatsReply *out)
{
	for (size_t i = 0; i < out->n_namespaces; i++) {
		Blox__Admin__NamespaceStats *m = out->namespaces[i];

		free_io(m->io);
		free(m->ftl);
		free(m->model);
		if (m->nand) {
			free_lat(m->nand->read_lat);
			free_lat(m->nand->program_lat);
			free_lat(m->nand->erase_lat);
			free_lat(m->nand->lateness);
			free(m->nand);
		}
		free(m);
	}
	for (size_t i = 0; i < out->n_controllers; i++) {
		free_io(out->controllers[i]->io);
		free(out->controllers[i]);
	}
	free(out->namespaces);
	free(out->controllers);
	out->namespaces = NULL;
	out->controllers = NULL;
	out->n_namespaces = out->n_controllers = 0;
}
