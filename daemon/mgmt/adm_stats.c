/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry for the admin API. Counters are totals; rates and latency
 * percentiles cover the window between now and the older of two
 * once-a-second samples (1 to 2 s), so a reading shows what happens now
 * rather than an average since start.
 */
#include "adm_internal.h"

#include <stdlib.h>
#include <string.h>

static void shift(struct nvmf_io_telemetry snap[2], uint64_t snap_ns[2],
		  const struct nvmf_io_telemetry *tm, uint64_t now)
{
	snap[1] = snap[0];
	snap_ns[1] = snap_ns[0];
	snap[0] = *tm;
	snap_ns[0] = now;
}

void adm_stats_sample(struct blox_admin *a)
{
	uint64_t now = blox_clock_now(a->tgt->clock);
	struct nvmf_subsys *s;
	struct nvmf_ns *ns;
	struct nvmf_ctrl *c;

	TAILQ_FOREACH(s, &a->tgt->subsystems, link) {
		TAILQ_FOREACH(ns, &s->namespaces, link)
			shift(ns->snap, ns->snap_ns, &ns->tm, now);
		TAILQ_FOREACH(c, &s->ctrls, link)
			shift(c->snap, c->snap_ns, &c->tm, now);
	}
}

static void hist_sub(struct blox_hist *d, const struct blox_hist *a,
		     const struct blox_hist *b)
{
	d->count = a->count - b->count;
	d->sum = a->sum - b->sum;
	d->min = 0;
	d->max = a->max;
	for (uint32_t i = 0; i < BLOX_HIST_BUCKETS; i++)
		d->buckets[i] = a->buckets[i] - b->buckets[i];
}

struct stats_buf {
	struct blox_hist tmp;
};

static Blox__Admin__Latency *latency(const struct blox_hist *cur,
				     const struct blox_hist *base,
				     struct blox_hist *tmp)
{
	Blox__Admin__Latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	blox__admin__latency__init(l);
	hist_sub(tmp, cur, base);
	l->count = tmp->count;
	if (tmp->count) {
		uint64_t top = blox_hist_quantile(tmp, 1.0);

		l->p50_ns = blox_hist_quantile(tmp, 0.5);
		l->p99_ns = blox_hist_quantile(tmp, 0.99);
		l->p999_ns = blox_hist_quantile(tmp, 0.999);
		l->max_ns = top;
		l->mean_ns = (double)tmp->sum / (double)tmp->count;
	}
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
	double dt;

	if (!m)
		return NULL;
	blox__admin__io_stats__init(m);
	if (snap_ns[1]) {
		b = &snap[1];
		t0 = snap_ns[1];
	} else if (snap_ns[0] && now - snap_ns[0] >= 500000000ull) {
		b = &snap[0];
		t0 = snap_ns[0];
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
	m->read_lat = latency(&tm->read_lat, &b->read_lat, tmp);
	m->write_lat = latency(&tm->write_lat, &b->write_lat, tmp);
	m->queue_depth = qd;
	m->max_queue_depth = tm->max_inflight;
	return m;
}

static Blox__Admin__Latency *nand_lat(const struct blox_hist *h)
{
	Blox__Admin__Latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	blox__admin__latency__init(l);
	l->count = h->count;
	if (h->count) {
		l->p50_ns = blox_hist_quantile(h, 0.5);
		l->p99_ns = blox_hist_quantile(h, 0.99);
		l->p999_ns = blox_hist_quantile(h, 0.999);
		l->max_ns = h->max;
		l->mean_ns = blox_hist_mean(h);
	}
	return l;
}

static void device_stats(struct blox_bdev *bdev, Blox__Admin__NamespaceStats *m)
{
	struct blox_bdev_telemetry t;
	struct ftl_stats fs;

	if (!bdev->ops->telemetry)
		return;
	memset(&t, 0, sizeof(t));
	memset(&fs, 0, sizeof(fs));
	t.ftl = &fs;
	bdev->ops->telemetry(bdev, &t);
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
	}
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
			device_stats(ns->bdev, m);
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
		if (m->nand) {
			free_lat(m->nand->read_lat);
			free_lat(m->nand->program_lat);
			free_lat(m->nand->erase_lat);
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
