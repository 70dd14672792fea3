/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The snapshot: the one place that asks backends and devices for their
 * figures (tm_look_ns()), and the figures over the recent window, read
 * against the sampler's history (tm_sample.c).
 *
 * Per namespace on emulated NAND, the model's figures over the window of
 * its I/O figures: the sampler keeps the counters of the namespace's dies
 * and FTL, and a reading takes their differences since the sample the
 * I/O figures start from. The dies' array time comes from the engine's
 * per-die busy counters: for a namespace on a registered device its own
 * dies only, for a device of its own every die (its backend's telemetry
 * hands the device over). A backend that gives neither has the array
 * time from the device's op counts times the array times ("ops" instead
 * of "dies" in busy_from).
 */
#include "tm_internal.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void tm_lat_of(const struct blox_hist *h, struct tm_lat *l)
{
	memset(l, 0, sizeof(*l));
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

/* ---- The model's part of a namespace now ---- */

/* The NAND configuration of a namespace with a device of its own. */
static const struct nand_config *own_config(struct tm_model_ns *e, const struct prov_ns_rec *rec)
{
	struct blox_cfg_ns *cn;
	char err[256];

	if (!e)
		return NULL;
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
static void add_die(struct tm_counters *c, const struct nand_die_stats *ds)
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
 * The model's part of @n now, from its telemetry (@e: the sampler's entry,
 * NULL: none): false when it has none (no NAND, null timing, not a
 * namespace of the provisioning service's). A namespace on a registered
 * device asks its backend for its dies (a call at the device's reactor).
 */
static bool flash_read(struct tm_model_ns *e, const struct tm_ns *n, struct tm_flash_now *out)
{
	const struct blox_bdev_telemetry *t = &n->t;
	const struct prov_ns_rec *rec = n->rec;
	const struct nand_config *cfg;

	if (!n->has_tel || !t->nand || !rec)
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
		if (!res || blox_bdev_ftl_migrate_progress(n->ns->bdev, NULL, res) || !res->nr_dies) {
			free(res);
			return false;
		}
		dpc = cfg->geo.dies_per_channel ? cfg->geo.dies_per_channel : 1;
		for (uint32_t i = 0; i < res->nr_dies; i++) {
			const struct nand_die_stats *ds =
				t->die_stats ? &t->die_stats[res->dies[i]] : NULL;
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
	} else if (t->nand_dev) {
		/* A device of its own: every die, their busy counters. */
		if (!(cfg = own_config(e, rec)))
			return false;
		for (uint32_t i = 0; i < t->dies; i++)
			add_die(&out->c, t->die_stats ? &t->die_stats[i] : NULL);
		flash_of(&out->flash, cfg, t->dies, t->channels);
		out->from_dies = true;
	} else {
		/* No per-die counters: the busy time from the device's op counts. */
		const struct nand_stats *st = t->nand;
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
		flash_of(&out->flash, cfg, t->dies, t->channels);
		out->c.busy_ns = blox_model_busy_from_ops(&out->flash, &ops, &out->c.read_busy_ns);
		out->c.reads = ops.reads;
		out->c.programs = ops.programs;
	}
	if (cfg->timing.null_timing || !out->flash.dies)
		return false;
	if (t->has_ftl) {
		out->has_ftl = true;
		out->waf_life = t->waf;
		out->c.units_host = n->fs.units_written_host;
		out->c.units_all = n->fs.units_written_host + n->fs.units_written_gc +
				   n->fs.units_written_tp + n->fs.units_padded;
	}
	return true;
}

/* ---- The windows ---- */

int tm_window_base(const uint64_t snap_ns[2], uint64_t now)
{
	if (snap_ns[1])
		return 1;
	if (snap_ns[0] && now - snap_ns[0] >= 500000000ull)
		return 0;
	return -1;
}

/* @a less @b, with @max the largest value added in between. */
static void hist_sub(struct blox_hist *d, const struct blox_hist *a, const struct blox_hist *b,
		     uint64_t max)
{
	d->count = a->count - b->count;
	d->sum = a->sum - b->sum;
	d->min = 0;
	d->max = max;
	for (uint32_t i = 0; i < BLOX_HIST_BUCKETS; i++)
		d->buckets[i] = a->buckets[i] - b->buckets[i];
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

static void io_window(struct tm_io *m, const struct nvmf_io_telemetry *tm,
		      const struct nvmf_io_telemetry snap[2], const uint64_t snap_ns[2],
		      uint64_t since, uint64_t now, uint64_t qd, struct blox_hist *tmp)
{
	static const struct nvmf_io_telemetry zero;
	const struct nvmf_io_telemetry *b = &zero;
	uint64_t t0 = since;
	int base = tm_window_base(snap_ns, now);
	struct nvmf_io_win win;
	double dt;

	memset(m, 0, sizeof(*m));
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
	m->end_ns = now;
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
	hist_sub(tmp, &tm->read_lat, &b->read_lat, win.read_ns);
	tm_lat_of(tmp, &m->read_lat);
	hist_sub(tmp, &tm->write_lat, &b->write_lat, win.write_ns);
	tm_lat_of(tmp, &m->write_lat);
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
}

/*
 * The device's lateness over the window of the namespace's samples (since
 * the start without one), and its reactor's CPU over the same window.
 */
static void timing_window(struct blox_telemetry *tm, struct tm_ns *n, uint64_t now,
			  struct blox_hist *tmp)
{
	struct tm_model_ns *e = tm_model_find(tm, n->ns);
	const struct blox_hist *late = &n->t.nand->lateness;
	int base = e ? tm_window_base(e->late_ns, now) : -1;

	n->has_late = true;
	if (base >= 0) {
		hist_sub(tmp, late, &e->late[base], hist_sub_top(late, &e->late[base]));
		tm_lat_of(tmp, &n->late);
	} else {
		tm_lat_of(late, &n->late);
	}
	n->reactor = blox_bdev_home_reactor(n->ns->bdev->home);
	base = tm_window_base(tm->cpu_at, now);
	if (base >= 0 && now > tm->cpu_at[base] && n->reactor < PROV_REACTORS_MAX)
		n->reactor_cpu = (double)(prov_reactor_cpu_ns(tm->p, n->reactor) -
					  tm->cpu_ns[base][n->reactor]) /
				 (double)(now - tm->cpu_at[base]);
}

/*
 * The read latency the flash explains. A host that keeps a steady depth is
 * a closed loop: the MVA at the depth bloxd held (its mean over the window)
 * when the window had reads and no programs to share the dies with;
 * otherwise the open-queue formulas on the measured occupancy.
 */
static void read_model(struct tm_model *m, const struct blox_model_flash *f,
		       const struct blox_model_meas *meas, const struct tm_io *io)
{
	const struct blox_model *r = &m->r;
	double rho = BLOX_MIN(BLOX_MAX(r->rho, 0.0), BLOX_MODEL_RHO_MAX);

	m->read_mean_ns = io->read_lat.mean_ns;
	m->qd = io->mean_queue_depth;
	if (meas->host_reads && !meas->flash_programs && io->mean_queue_depth > 0 &&
	    blox_model_closed_applies(io->mean_queue_depth, (double)io->max_queue_depth)) {
		struct blox_model_closed c;

		blox_model_closed(f, io->mean_queue_depth, 0, &c);
		if (c.x > 0) {
			m->latency_model = "closed";
			m->read_mean_pred_ns = c.r_ns;
			m->read_iops_pred = c.x;
			m->p99_read_pred_ns = (uint64_t)(c.p99_ns + 0.5);
			m->saturated = false;
			return;
		}
	}
	m->latency_model = "open";
	m->read_mean_pred_ns = r->service_ns * (1 + rho / (1 - rho));
}

/*
 * The model over the window of @n's I/O figures (from ns->snap[base]): none
 * without the model's part of it now, or without a sample of its flash at
 * the window's start.
 */
static void model_window(struct blox_telemetry *tm, struct tm_ns *n, uint64_t now)
{
	const struct nvmf_ns *ns = n->ns;
	struct tm_model_ns *e = tm_model_find(tm, ns);
	int base = tm_window_base(ns->snap_ns, now);
	const struct nvmf_ns_stats *c0, *c1 = &ns->tm.c;
	const struct tm_flash_now *cur = &n->flash;
	const struct tm_counters *b;
	struct tm_model *m = &n->model;
	struct blox_model_meas meas;

	if (!e || !n->has_flash || base < 0 || e->snap_ns[base] != ns->snap_ns[base])
		return;
	b = &e->snap[base];
	c0 = &ns->snap[base].c;
	meas = (struct blox_model_meas){
		.interval_ns = (double)(now - ns->snap_ns[base]),
		.host_reads = c1->read_cmds - c0->read_cmds,
		.host_writes = c1->write_cmds - c0->write_cmds,
		.host_write_bytes = c1->write_bytes - c0->write_bytes,
		.p99_read_ns = n->io.read_lat.p99_ns,
		.busy_ns = cur->c.busy_ns - b->busy_ns,
		.read_busy_ns = cur->c.read_busy_ns - b->read_busy_ns,
		.flash_reads = cur->c.reads - b->reads,
		.flash_programs = cur->c.programs - b->programs,
		.units_host = cur->c.units_host - b->units_host,
		.units_all = cur->c.units_all - b->units_all,
		.waf_life = cur->waf_life,
		.has_ftl = cur->has_ftl,
	};
	n->has_model = true;
	blox_model_eval(&cur->flash, &meas, &m->r);
	m->interval_s = meas.interval_ns / 1e9;
	m->dies = cur->flash.dies;
	m->channels = cur->flash.channels;
	m->from_dies = cur->from_dies;
	m->has_ftl = cur->has_ftl;
	m->p99_read_pred_ns = (uint64_t)(m->r.p99_read_pred_ns + 0.5);
	m->saturated = m->r.saturated;
	read_model(m, &cur->flash, &meas, &n->io);
}

/* ---- The snapshot ---- */

/* Every call into @ns's backend (and its device) a snapshot makes. */
static void look_ns(struct blox_telemetry *tm, struct tm_ns *n, const struct nvmf_ns *ns,
		    unsigned what)
{
	struct blox_bdev_telemetry *t = &n->t;

	n->ns = ns;
	n->rec = prov_ns_rec(ns);
	t->ftl = &n->fs;
	n->has_tel = blox_bdev_telemetry(ns->bdev, t);
	if (what & TM_QOS)
		n->has_qos = blox_bdev_qos_get(ns->bdev, NULL, &n->qos);
	if (what & TM_ENDURANCE)
		n->has_end = blox_bdev_endurance(ns->bdev, &n->end);
	if (nvmf_ns_fdp(ns))
		n->has_fdp = blox_bdev_fdp_info(ns->bdev, &n->fdp);
	if (what & (TM_FLASH | TM_WINDOW))
		n->has_flash = flash_read(tm ? tm_model_find(tm, ns) : NULL, n, &n->flash);
}

int tm_snap_take(struct blox_prov *p, struct blox_telemetry *tm, const char *nqn,
		 uint32_t nsid, unsigned what, struct tm_snap *out)
{
	const struct nvmf_tgt *tgt = p->tgt;
	struct blox_hist *tmp = NULL;
	struct nvmf_subsys *s;
	size_t nns = 0, nc = 0;
	bool any = !nqn || !nqn[0];

	memset(out, 0, sizeof(*out));
	out->now = blox_clock_now(tgt->clock);
	out->matched = any;
	if (!tm)
		what &= ~(unsigned)TM_WINDOW;
	TAILQ_FOREACH(s, &tgt->subsystems, link) {
		struct nvmf_ns *ns;
		struct nvmf_ctrl *c;

		if (!any && strcmp(nqn, s->nqn))
			continue;
		out->matched = true;
		TAILQ_FOREACH(ns, &s->namespaces, link)
			nns++;
		TAILQ_FOREACH(c, &s->ctrls, link)
			nc++;
	}
	out->ns = calloc(nns + 1, sizeof(*out->ns));
	out->ctrl = calloc(nc + 1, sizeof(*out->ctrl));
	if ((what & TM_WINDOW) && !(tmp = malloc(sizeof(*tmp))))
		return -ENOMEM;
	if (!out->ns || !out->ctrl) {
		free(tmp);
		return -ENOMEM;
	}
	TAILQ_FOREACH(s, &tgt->subsystems, link) {
		struct nvmf_ns *ns;
		struct nvmf_ctrl *c;

		if (!any && strcmp(nqn, s->nqn))
			continue;
		TAILQ_FOREACH(ns, &s->namespaces, link) {
			struct tm_ns *n = &out->ns[out->nr_ns];

			if (nsid && ns->nsid != nsid)
				continue;
			out->nr_ns++;
			look_ns(tm, n, ns, what);
			if (!(what & TM_WINDOW))
				continue;
			io_window(&n->io, &ns->tm, ns->snap, ns->snap_ns, ns->created_ns,
				  out->now, ns->inflight, tmp);
			if (n->has_tel && n->t.nand)
				timing_window(tm, n, out->now, tmp);
			model_window(tm, n, out->now);
		}
		if (nsid)
			continue; /* one namespace: its controllers are not asked for */
		TAILQ_FOREACH(c, &s->ctrls, link) {
			struct tm_ctrl *m = &out->ctrl[out->nr_ctrl++];

			m->c = c;
			if (what & TM_WINDOW)
				io_window(&m->io, &c->tm, c->snap, c->snap_ns, c->created_ns,
					  out->now, c->inflight, tmp);
		}
	}
	free(tmp);
	return 0;
}

void tm_snap_free(struct tm_snap *s)
{
	free(s->ns);
	free(s->ctrl);
	s->ns = NULL;
	s->ctrl = NULL;
	s->nr_ns = s->nr_ctrl = 0;
}
