/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin API's Stats: one telemetry snapshot (telemetry.h: the window,
 * the model) of the namespaces and controllers asked for, as protobuf
 * messages. No figure is computed here.
 */
#include "adm_internal.h"
#include "telemetry.h"

#include <stdlib.h>
#include <string.h>

static Blox__Admin__Latency *lat_msg(const struct tm_lat *t)
{
	Blox__Admin__Latency *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	blox__admin__latency__init(l);
	l->count = t->count;
	l->p50_ns = t->p50_ns;
	l->p99_ns = t->p99_ns;
	l->p999_ns = t->p999_ns;
	l->p9999_ns = t->p9999_ns;
	l->max_ns = t->max_ns;
	l->mean_ns = t->mean_ns;
	return l;
}

static Blox__Admin__Latency *hist_msg(const struct blox_hist *h)
{
	struct tm_lat t;

	tm_lat_of(h, &t);
	return lat_msg(&t);
}

static Blox__Admin__IoStats *io_msg(const struct tm_io *io)
{
	Blox__Admin__IoStats *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	blox__admin__io_stats__init(m);
	m->read_cmds = io->read_cmds;
	m->write_cmds = io->write_cmds;
	m->read_bytes = io->read_bytes;
	m->write_bytes = io->write_bytes;
	m->errors = io->errors;
	m->interval_s = io->interval_s;
	m->end_ns = io->end_ns;
	m->read_iops = io->read_iops;
	m->write_iops = io->write_iops;
	m->read_bw = io->read_bw;
	m->write_bw = io->write_bw;
	m->read_lat = lat_msg(&io->read_lat);
	m->write_lat = lat_msg(&io->write_lat);
	m->mean_queue_depth = io->mean_queue_depth;
	m->queue_depth = io->queue_depth;
	m->max_queue_depth = io->max_queue_depth;
	return m;
}

static Blox__Admin__FtlStats *ftl_msg(const struct tm_ns *n)
{
	Blox__Admin__FtlStats *f = calloc(1, sizeof(*f));
	const struct ftl_stats *s = &n->fs;
	uint64_t lookups = s->cmt_hits + s->cmt_misses;

	if (!f)
		return NULL;
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
	f->waf = n->t.waf;
	f->units_padded = s->units_padded;
	f->gc_tp_reads = s->gc_tp_reads;
	f->gc_tp_writebacks = s->gc_tp_writebacks;
	f->gc_paced = s->gc_paced;
	f->tp_pages_held = s->tp_pages_held;
	f->recovered_units = s->recovered_units;
	f->gc_pipeline = s->gc_pipeline;
	f->gc_storms = s->gc_storms;
	f->gc_storm_victims = s->gc_storm_victims;
	f->gc_storm_active = s->gc_storm_active;
	f->read_retries = s->read_retries;
	f->uncorrectable_reads = s->uncorrectable_reads;
	f->refreshes = s->refreshes;
	f->units_lost = s->units_lost;
	f->tp_lost = s->tp_lost;
	f->lost_reads = s->lost_reads;
	f->superblocks_retired = s->superblocks_retired;
	f->program_failures = s->program_failures;
	f->dies_offline = s->dies_offline;
	f->offline_units = s->offline_units;
	f->offline_spare_superblocks = s->offline_spare_sbs;
	f->dies_back = s->dies_back;
	f->tp_rebuilt = s->tp_rebuilt;
	f->remapped_blocks = s->remapped_blocks;
	f->remapped_grown = s->remapped_grown;
	f->factory_bad_blocks = s->factory_bad_blocks;
	f->spare_blocks = s->spare_blocks;
	f->spare_blocks_used = s->spare_blocks_used;
	f->read_only = s->read_only;
	/* A read is a hit when the CMT or the MDC had its mapping. */
	f->cmt_hit_rate = lookups ? (double)s->cmt_hits / (double)lookups : 0;
	f->mdc_hit_rate = s->mdc_lookups ? (double)s->mdc_hits / (double)s->mdc_lookups : 0;
	return f;
}

static Blox__Admin__NandStats *nand_msg(const struct tm_ns *n)
{
	Blox__Admin__NandStats *m = calloc(1, sizeof(*m));
	const struct nand_stats *s = n->t.nand;
	const uint64_t *d = n->t.susp_decisions;

	if (!m)
		return NULL;
	blox__admin__nand_stats__init(m);
	m->reads = s->latency[NAND_OP_READ].count;
	m->programs = s->latency[NAND_OP_PROGRAM].count;
	m->erases = s->latency[NAND_OP_ERASE].count;
	m->suspends = s->suspend.suspends[NAND_OP_PROGRAM] + s->suspend.suspends[NAND_OP_ERASE];
	m->resumes = s->suspend.resumes[NAND_OP_PROGRAM] + s->suspend.resumes[NAND_OP_ERASE];
	m->reads_overtaken = s->suspend.reads_overtaken;
	m->suspend_declined = s->suspend.declined;
	m->read_lat = hist_msg(&s->latency[NAND_OP_READ]);
	m->program_lat = hist_msg(&s->latency[NAND_OP_PROGRAM]);
	m->erase_lat = hist_msg(&s->latency[NAND_OP_ERASE]);
	m->mp_program_groups = s->mp_groups[NAND_OP_PROGRAM];
	m->mp_erase_groups = s->mp_groups[NAND_OP_ERASE];
	m->mp_joined = s->mp_joined;
	m->dies = n->t.dies;
	m->channels = n->t.channels;
	m->suspend_policy = (char *)(n->t.suspend_policy ? n->t.suspend_policy : "");
	m->erase_suspend_wear = s->suspend.erase_suspend_wear;
	m->lateness = lat_msg(&n->late);
	m->timer_wakeup_late = hist_msg(&s->rt.wakeup_late);
	m->timer_wakeups_past_event = s->rt.wakeups_past_event;
	m->timer_window_ns = s->rt.window_ns;
	m->lent_reads = s->lent_reads;
	m->erases_held = s->erases_held;
	m->reactor = n->reactor;
	m->reactor_cpu = n->reactor_cpu;
	m->rel_reads = s->rel.reads;
	m->rel_reads_retried = s->rel.reads_retried;
	m->rel_retries = s->rel.retries;
	m->rel_uncorrectable = s->rel.uncorrectable;
	m->grown_bad_blocks = s->rel.erase_failures + s->rel.program_failures;
	m->max_bit_errors = s->rel.max_errors;
	m->factory_bad_blocks = s->factory_bad_blocks;
	m->dies_offline = s->rel.dies_offline;
	m->dies_replaced = s->rel.dies_replaced;
	if (d) {
		m->susp_granted = d[QOS_SUSP_GRANTED];
		m->susp_not_host_read = d[QOS_SUSP_NOT_HOST_READ];
		m->susp_nearly_done = d[QOS_SUSP_NEARLY_DONE];
		m->susp_capped = d[QOS_SUSP_CAPPED];
		m->susp_pressure = d[QOS_SUSP_PRESSURE];
		m->susp_gc_urgent = d[QOS_SUSP_GC_URGENT];
		m->susp_paced = d[QOS_SUSP_PACED];
	}
	return m;
}

static const char *const waf_from[] = {
	[BLOX_MODEL_WAF_NONE] = "none",
	[BLOX_MODEL_WAF_INTERVAL] = "interval",
	[BLOX_MODEL_WAF_LIFE] = "life",
};

static Blox__Admin__NamespaceStats__Model *model_msg(const struct tm_model *t)
{
	Blox__Admin__NamespaceStats__Model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	blox__admin__namespace_stats__model__init(m);
	m->interval_s = t->interval_s;
	m->dies = t->dies;
	m->channels = t->channels;
	m->t_read_ns = t->r.t_read_ns;
	m->t_prog_ns = t->r.t_prog_ns;
	m->read_iops_bound = t->r.read_iops_bound;
	m->read_iops = t->r.read_iops;
	m->rho = t->r.rho;
	m->busy_from = (char *)(t->from_dies ? "dies" : "ops");
	m->service_ns = t->r.service_ns;
	m->p99_read_ns = t->r.p99_read_ns;
	m->p99_read_pred_ns = t->p99_read_pred_ns;
	m->saturated = t->saturated;
	m->waf = t->r.waf;
	m->waf_from = (char *)(t->has_ftl ? waf_from[t->r.waf_src] : "");
	m->write_iops = t->r.write_iops;
	m->write_iops_pred = t->r.write_iops_pred;
	m->read_mean_ns = t->read_mean_ns;
	m->qd = t->qd;
	m->latency_model = (char *)t->latency_model;
	m->read_mean_pred_ns = t->read_mean_pred_ns;
	m->read_iops_pred = t->read_iops_pred;
	return m;
}

static double waf_of(uint64_t media, uint64_t host)
{
	return host ? (double)media / (double)host : 0;
}

/* Flexible Data Placement: each handle's bytes (freed with the reply, adm_stats_free()). */
static Blox__Admin__FdpStats *fdp_msg(const struct tm_ns *n)
{
	const struct blox_bdev_fdp *f = &n->fdp;
	Blox__Admin__FdpStats *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	blox__admin__fdp_stats__init(m);
	m->endgid = n->ns->endgid;
	m->persistent = f->persistent;
	m->ru_bytes = f->ru_bytes;
	m->host_bytes = f->host_bytes;
	m->media_bytes = f->media_bytes;
	m->erased_bytes = f->erased_bytes;
	m->waf = waf_of(f->media_bytes, f->host_bytes);
	m->handles = calloc(f->nr_ruh, sizeof(*m->handles));
	for (uint32_t r = 0; m->handles && r < f->nr_ruh; r++) {
		Blox__Admin__FdpStats__Handle *h = calloc(1, sizeof(*h));

		if (!h)
			break;
		blox__admin__fdp_stats__handle__init(h);
		h->handle = r;
		h->host_bytes = f->ruh[r].host_bytes;
		h->media_bytes = f->ruh[r].media_bytes;
		h->erased_bytes = f->ruh[r].erased_bytes;
		h->ru_left_bytes = f->ruh[r].ru_left_bytes;
		h->updates = f->ruh[r].updates;
		h->waf = waf_of(h->media_bytes, h->host_bytes);
		m->handles[m->n_handles++] = h;
	}
	return m;
}

static Blox__Admin__ZonedStats *zoned_msg(const struct blox_bdev_zoned_wear *w)
{
	Blox__Admin__ZonedStats *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	blox__admin__zoned_stats__init(m);
	m->min_erase = w->min_erase;
	m->max_erase = w->max_erase;
	m->mean_erase = w->mean_erase;
	m->rows = w->rows;
	m->rows_free = w->rows_free;
	m->rows_dirty = w->rows_dirty;
	m->resets_deferred = w->resets_deferred;
	m->rows_erased_later = w->rows_erased_later;
	return m;
}

static Blox__Admin__NamespaceStats *ns_msg(const struct tm_ns *n)
{
	Blox__Admin__NamespaceStats *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	blox__admin__namespace_stats__init(m);
	m->nqn = n->ns->subsys->nqn;
	m->nsid = n->ns->nsid;
	m->io = io_msg(&n->io);
	if (n->has_tel && n->t.has_ftl)
		m->ftl = ftl_msg(n);
	if (n->has_tel && n->t.nand)
		m->nand = nand_msg(n);
	if (n->has_tel && n->t.has_zoned)
		m->zoned = zoned_msg(&n->t.zoned);
	if (n->rec)
		m->device = (char *)n->rec->params.device;
	if (n->has_model && m->io)
		m->model = model_msg(&n->model);
	if (n->has_fdp)
		m->fdp = fdp_msg(n);
	return m;
}

void adm_stats_fill(struct blox_admin *a, const Blox__Admin__StatsRequest *in,
		    Blox__Admin__StatsReply *out, bool *found)
{
	struct tm_snap s;

	*found = !in->nqn[0];
	if (tm_snap_take(a->prov, a->tm, in->nqn, in->nsid, TM_WINDOW, &s)) {
		tm_snap_free(&s);
		return;
	}
	if (s.matched && !in->nsid)
		*found = true;
	if (s.nr_ns)
		*found = true;
	out->uptime_ns = s.now - a->tgt->start_ns;
	out->namespaces = calloc(s.nr_ns + 1, sizeof(*out->namespaces));
	out->controllers = calloc(s.nr_ctrl + 1, sizeof(*out->controllers));
	for (size_t i = 0; out->namespaces && out->controllers && i < s.nr_ns; i++) {
		Blox__Admin__NamespaceStats *m = ns_msg(&s.ns[i]);

		if (!m)
			break;
		out->namespaces[out->n_namespaces++] = m;
	}
	for (size_t i = 0; out->namespaces && out->controllers && i < s.nr_ctrl; i++) {
		Blox__Admin__ControllerStats *m = calloc(1, sizeof(*m));
		const struct nvmf_ctrl *c = s.ctrl[i].c;

		if (!m)
			break;
		blox__admin__controller_stats__init(m);
		m->nqn = c->subsys->nqn;
		m->cntlid = c->cntlid;
		m->host_nqn = (char *)c->hostnqn;
		m->io = io_msg(&s.ctrl[i].io);
		out->controllers[out->n_controllers++] = m;
	}
	tm_snap_free(&s);
}

static void free_io(Blox__Admin__IoStats *io)
{
	if (!io)
		return;
	free(io->read_lat);
	free(io->write_lat);
	free(io);
}

void adm_stats_free(Blox__Admin__StatsReply *out)
{
	for (size_t i = 0; i < out->n_namespaces; i++) {
		Blox__Admin__NamespaceStats *m = out->namespaces[i];

		free_io(m->io);
		free(m->ftl);
		free(m->zoned);
		free(m->model);
		if (m->fdp) {
			for (size_t h = 0; h < m->fdp->n_handles; h++)
				free(m->fdp->handles[h]);
			free(m->fdp->handles);
			free(m->fdp);
		}
		if (m->nand) {
			free(m->nand->read_lat);
			free(m->nand->program_lat);
			free(m->nand->erase_lat);
			free(m->nand->lateness);
			free(m->nand->timer_wakeup_late);
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
