/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the metrics endpoint exposes (docs/metrics.md has the table): the
 * facts `bloxctl stats` shows, as totals since each object was made, with
 * rates and quantiles left to the scraper. One scrape renders one
 * telemetry snapshot (telemetry.h, the one `bloxctl stats` renders too)
 * of every namespace and controller, family by family, since a family's
 * samples must stand together.
 *
 * A NAND device's figures are labelled by whose it is: a namespace's own
 * device by the namespace's labels, a registered device (FlashBlox) by
 * {device}, once for all its namespaces.
 */
#include "blox_util.h"
#include "metrics.h"
#include "telemetry.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One namespace of the snapshot, with its labels. */
struct mx_ns {
	const struct nvmf_ns *ns;
	const struct tm_ns *s;
	char nsid[12];
	struct mx_labels l; /* subnqn, nsid, backend[, device] */
};

struct mx_ctrl {
	const struct nvmf_ctrl *c;
	char cntlid[8];
	struct mx_labels l; /* subnqn, cntlid, hostnqn */
};

/* A NAND device: a namespace's own, or a registered one (first namespace on it). */
struct mx_nand {
	const struct mx_ns *from;
	struct mx_labels l;
};

struct mx_scrape {
	struct blox_prov *p;
	struct mx_writer w;
	struct tm_snap snap;
	struct mx_ns *ns;
	size_t nr_ns;
	struct mx_ctrl *ctrl;
	size_t nr_ctrl;
	struct mx_nand *nand;
	size_t nr_nand;
};

#define FOR_NS(s, n) for (struct mx_ns *n = (s)->ns; n < (s)->ns + (s)->nr_ns; n++)
#define FOR_CTRL(s, c) for (struct mx_ctrl *c = (s)->ctrl; c < (s)->ctrl + (s)->nr_ctrl; c++)
#define FOR_NAND(s, d) for (struct mx_nand *d = (s)->nand; d < (s)->nand + (s)->nr_nand; d++)

static const char *const op_names[NAND_OP_KINDS] = { "read", "program", "erase" };
static const char *const dir_names[3] = { "read", "write", "other" }; /* QOS_READ.. */

/* @l plus one pair, in @out. */
static const struct mx_labels *with(struct mx_labels *out, const struct mx_labels *l,
				    const char *name, const char *value)
{
	*out = *l;
	mx_label(out, name, value);
	return out;
}

/* ---- The snapshot, labelled ---- */

static void look_ns(struct mx_ns *n, const struct tm_ns *t)
{
	const struct prov_ns_rec *rec = t->rec;
	const struct nvmf_ns *ns = t->ns;

	n->ns = ns;
	n->s = t;
	snprintf(n->nsid, sizeof(n->nsid), "%u", ns->nsid);
	mx_label(&n->l, "subnqn", ns->subsys->nqn);
	mx_label(&n->l, "nsid", n->nsid);
	mx_label(&n->l, "backend", rec ? rec->params.backend : ns->bdev->ops->name);
	if (rec && rec->params.device[0])
		mx_label(&n->l, "device", rec->params.device);
}

/* The NAND devices: each namespace's own, each registered device once. */
static void look_nand(struct mx_scrape *s)
{
	FOR_NS(s, n) {
		const struct prov_ns_rec *rec = n->s->rec;
		const char *dev = rec && rec->params.device[0] ? rec->params.device : NULL;
		bool seen = false;

		if (!n->s->has_tel || !n->s->t.nand || !n->s->t.nand_dev)
			continue;
		for (size_t i = 0; dev && i < s->nr_nand; i++)
			seen |= s->nand[i].l.n == 1 && !strcmp(s->nand[i].l.value[0], dev);
		if (seen)
			continue;
		s->nand[s->nr_nand].from = n;
		if (dev)
			mx_label(&s->nand[s->nr_nand].l, "device", dev);
		else
			s->nand[s->nr_nand].l = n->l;
		s->nr_nand++;
	}
}

static int look(struct mx_scrape *s)
{
	const struct tm_snap *snap = &s->snap;
	int rc = tm_snap_take(s->p, NULL, NULL, 0, TM_QOS | TM_ENDURANCE, &s->snap);

	if (rc)
		return rc;
	s->ns = calloc(snap->nr_ns + 1, sizeof(*s->ns));
	s->nand = calloc(snap->nr_ns + 1, sizeof(*s->nand));
	s->ctrl = calloc(snap->nr_ctrl + 1, sizeof(*s->ctrl));
	if (!s->ns || !s->nand || !s->ctrl)
		return -ENOMEM;
	for (size_t i = 0; i < snap->nr_ns; i++)
		look_ns(&s->ns[s->nr_ns++], &snap->ns[i]);
	for (size_t i = 0; i < snap->nr_ctrl; i++) {
		const struct nvmf_ctrl *c = snap->ctrl[i].c;
		struct mx_ctrl *m = &s->ctrl[s->nr_ctrl++];

		m->c = c;
		snprintf(m->cntlid, sizeof(m->cntlid), "%u", c->cntlid);
		mx_label(&m->l, "subnqn", c->subsys->nqn);
		mx_label(&m->l, "cntlid", m->cntlid);
		mx_label(&m->l, "hostnqn", c->hostnqn);
	}
	look_nand(s);
	return 0;
}

/* ---- Families ---- */

static void fam(struct mx_scrape *s, const char *name, enum mx_type type, const char *unit,
		const char *help)
{
	mx_family(&s->w, &(struct mx_family){ name, type, unit, help });
}

/* Limits on NVMe/TCP clients that tripped; one family, a sample per limit. */
static void limit_families(struct mx_scrape *s, const struct nvmf_tcp_stats *st,
			   const struct nvmf_tcp_buffers *bp)
{
	const struct nvmf_tgt_stats *gs = &s->p->tgt->stats;
	const struct nvmf_tcp_buffers b = *bp;
	const struct {
		const char *limit;
		uint64_t v;
	} trips[] = {
		{ "accept_error", st->accept_errors },
		{ "max_connections", st->refused_total },
		{ "max_connections_per_host", st->refused_per_host },
		{ "icreq_timeout", st->icreq_timeouts },
		{ "connect_timeout", st->connect_timeouts },
		{ "pdu_timeout", st->pdu_timeouts },
		{ "max_io_queues_granted", gs->io_queues_clamped },
		{ "max_io_queues", gs->refused_io_queues },
		{ "max_ctrls_per_host", gs->refused_ctrls_per_host },
		{ "max_queue_size", gs->refused_queue_size },
		{ "min_kato", gs->kato_raised },
		{ "kato0_timeout", gs->kato0_expired },
		{ "buffer_pool", b.pool_waits },
		{ "max_conn_buffer", b.conn_waits },
		{ "max_r2t", st->r2t_waits },
	};
	const struct {
		const char *name, *help;
		uint64_t v;
	} bytes[] = {
		{ "bloxd_tcp_buffer_pool_bytes", "The data buffer pool's cap (--buffer-pool-mb)", b.cap },
		{ "bloxd_tcp_buffer_used_bytes", "Data buffer bytes held by commands now", b.used },
		{ "bloxd_tcp_buffer_cached_bytes", "Data buffer bytes kept for reuse now", b.cached },
		{ "bloxd_tcp_buffer_peak_bytes", "Most data buffer bytes held by commands at once", b.peak },
	};

	fam(s, "bloxd_tcp_limit_trips", MX_COUNTER, NULL,
	    "Times a limit on NVMe/TCP clients tripped (a connection refused or closed, "
	    "an accept error, a grant cut, a KATO raised, a command made to wait)");
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(trips); i++) {
		struct mx_labels l = { 0 };

		mx_label(&l, "limit", trips[i].limit);
		mx_u64(&s->w, &l, trips[i].v);
	}
	fam(s, "bloxd_tcp_accept_pauses", MX_COUNTER, NULL,
	    "Times an NVMe/TCP listener paused accepting after an accept error");
	mx_u64(&s->w, NULL, st->accept_pauses);
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(bytes); i++) {
		fam(s, bytes[i].name, MX_GAUGE, "bytes", bytes[i].help);
		mx_u64(&s->w, NULL, bytes[i].v);
	}
}

/* TLS 1.3 handshakes on the NVMe/TCP listeners that take TLS. */
static void tls_families(struct mx_scrape *s, const struct nvmf_tcp_stats *st)
{
	struct mx_labels l = { 0 };

	fam(s, "bloxd_tcp_tls_handshakes", MX_COUNTER, NULL,
	    "TLS 1.3 handshakes on NVMe/TCP listeners, done or failed (no PSK, a wrong one, "
	    "not TLS)");
	mx_label(&l, "result", "ok");
	mx_u64(&s->w, &l, st->tls_handshakes);
	l = (struct mx_labels){ 0 };
	mx_label(&l, "result", "failed");
	mx_u64(&s->w, &l, st->tls_failures);
}

/* NVMe/TCP queues on each reactor (--reactors) now. */
static void reactor_families(struct mx_scrape *s, const struct nvmf_tcp *t)
{
	unsigned n = nvmf_tcp_nr_reactors(t);
	char id[12];

	fam(s, "bloxd_reactor_queues", MX_GAUGE, NULL,
	    "NVMe/TCP queues served by a reactor now (I/O queues move to reactor qid % N)");
	for (unsigned i = 0; i < n; i++) {
		struct mx_labels l = { 0 };

		snprintf(id, sizeof(id), "%u", i);
		mx_label(&l, "reactor", id);
		mx_u64(&s->w, &l, nvmf_tcp_reactor_queues(t, i));
	}
}

static void daemon_families(struct mx_scrape *s, const struct mx_self *self)
{
	const struct nvmf_tgt *tgt = s->p->tgt;
	const struct nvmf_tgt_stats *st = &tgt->stats;
	uint64_t up = blox_clock_now(tgt->clock) - tgt->start_ns;
	struct mx_labels l = { 0 };
	struct timespec now;
	uint64_t subsys = 0;
	struct nvmf_subsys *sub;

	mx_label(&l, "version", BLOX_VERSION);
	fam(s, "bloxd_build", MX_INFO, NULL, "bloxd's version");
	mx_u64(&s->w, &l, 1);
	clock_gettime(CLOCK_REALTIME, &now);
	fam(s, "bloxd_start_time_seconds", MX_GAUGE, "seconds",
	    "When bloxd started, in seconds since the Unix epoch");
	mx_ns(&s->w, NULL, (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec - up);
	fam(s, "bloxd_uptime_seconds", MX_GAUGE, "seconds", "Time since bloxd started");
	mx_ns(&s->w, NULL, up);
	TAILQ_FOREACH(sub, &tgt->subsystems, link)
		subsys++;
	{
		/* Families of one sample without labels. */
		const struct {
			const char *name;
			enum mx_type type;
			const char *help;
			uint64_t v;
		} one[] = {
			{ "bloxd_subsystems", MX_GAUGE, "NVM subsystems served", subsys },
			{ "bloxd_namespaces", MX_GAUGE, "Namespaces served", s->nr_ns },
			{ "bloxd_controllers", MX_GAUGE, "Controllers connected now", s->nr_ctrl },
			{ "bloxd_controllers_created", MX_COUNTER,
			  "Controllers created by a host's Connect on an admin queue", st->ctrls_created },
			{ "bloxd_controllers_destroyed", MX_COUNTER, "Controllers gone",
			  st->ctrls_destroyed },
			{ "bloxd_keep_alive_expirations", MX_COUNTER,
			  "Controllers dropped because their keep-alive timer expired", st->kato_expired },
			{ "bloxd_connects_rejected", MX_COUNTER, "Connect commands refused",
			  st->connects_rejected },
			{ "bloxd_auth_succeeded", MX_COUNTER,
			  "DH-HMAC-CHAP authentications of a queue that succeeded", st->auth_ok },
			{ "bloxd_auth_failed", MX_COUNTER,
			  "DH-HMAC-CHAP authentications of a queue that failed (the controller went)",
			  st->auth_failed },
			{ "bloxd_metrics_requests", MX_COUNTER,
			  "HTTP requests the metrics endpoint answered", self->requests },
			{ "bloxd_metrics_accept_pauses", MX_COUNTER,
			  "Times the metrics endpoint stopped accepting because too many connections "
			  "were open",
			  self->pauses },
			{ "bloxd_metrics_connections", MX_GAUGE, "Metrics connections open now",
			  self->conns },
		};

		for (size_t i = 0; i < BLOX_ARRAY_SIZE(one); i++) {
			fam(s, one[i].name, one[i].type, NULL, one[i].help);
			mx_u64(&s->w, NULL, one[i].v);
		}
	}
	if (s->p->tcp) {
		struct nvmf_tcp_buffers b;
		struct nvmf_tcp_stats ts;

		nvmf_tcp_buffers(s->p->tcp, &b);
		nvmf_tcp_stats(s->p->tcp, &ts);
		limit_families(s, &ts, &b);
		tls_families(s, &ts);
		reactor_families(s, s->p->tcp);
	}
}

/* Families of struct nvmf_io_telemetry, for namespaces and controllers alike. */
static const struct io_family {
	const char *suffix;
	const char *unit;
	const char *help;
	size_t off; /* in struct nvmf_ns_stats */
} io_families[] = {
	{ "read_commands", NULL, "Read commands completed successfully",
	  offsetof(struct nvmf_ns_stats, read_cmds) },
	{ "write_commands", NULL, "Write commands completed successfully",
	  offsetof(struct nvmf_ns_stats, write_cmds) },
	{ "other_commands", NULL,
	  "I/O commands but reads and writes completed successfully (flush, write zeroes, "
	  "dataset management, compare)",
	  offsetof(struct nvmf_ns_stats, other_cmds) },
	{ "command_errors", NULL, "I/O commands completed with an error status",
	  offsetof(struct nvmf_ns_stats, errors) },
	{ "read_bytes", "bytes", "Bytes read by successful read commands",
	  offsetof(struct nvmf_ns_stats, read_bytes) },
	{ "written_bytes", "bytes", "Bytes written by successful write commands",
	  offsetof(struct nvmf_ns_stats, write_bytes) },
};

/* The I/O of every namespace (@ns) or every controller, under "bloxd_@obj_". */
static void io_families_of(struct mx_scrape *s, bool ns, const char *obj)
{
	char name[96];

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(io_families); i++) {
		const struct io_family *f = &io_families[i];

		snprintf(name, sizeof(name), "bloxd_%s_%s", obj, f->suffix);
		fam(s, name, MX_COUNTER, f->unit, f->help);
#define IO_VALUE(tm) (*(const uint64_t *)((const char *)&(tm).c + f->off))
		if (ns)
			FOR_NS(s, n)
				mx_u64(&s->w, &n->l, IO_VALUE(n->ns->tm));
		else
			FOR_CTRL(s, c)
				mx_u64(&s->w, &c->l, IO_VALUE(c->c->tm));
#undef IO_VALUE
	}
	for (int rd = 1; rd >= 0; rd--) {
		snprintf(name, sizeof(name), "bloxd_%s_%s_latency_seconds", obj, rd ? "read" : "write");
		fam(s, name, MX_HISTOGRAM, "seconds",
		    rd ? "Read commands from receipt to completion"
		       : "Write commands from receipt to completion");
		if (ns)
			FOR_NS(s, n)
				mx_hist(&s->w, &n->l, rd ? &n->ns->tm.read_lat : &n->ns->tm.write_lat);
		else
			FOR_CTRL(s, c)
				mx_hist(&s->w, &c->l, rd ? &c->c->tm.read_lat : &c->c->tm.write_lat);
	}
	snprintf(name, sizeof(name), "bloxd_%s_queue_depth", obj);
	fam(s, name, MX_GAUGE, NULL, "I/O commands at the backends now");
	if (ns)
		FOR_NS(s, n)
			mx_u64(&s->w, &n->l, n->ns->inflight);
	else
		FOR_CTRL(s, c)
			mx_u64(&s->w, &c->l, c->c->inflight);
	snprintf(name, sizeof(name), "bloxd_%s_queue_depth_max", obj);
	fam(s, name, MX_GAUGE, NULL, "Most I/O commands at the backends at once");
	if (ns)
		FOR_NS(s, n)
			mx_u64(&s->w, &n->l, n->ns->tm.max_inflight);
	else
		FOR_CTRL(s, c)
			mx_u64(&s->w, &c->l, c->c->tm.max_inflight);
}

static void namespace_families(struct mx_scrape *s)
{
	struct mx_labels l;

	io_families_of(s, true, "namespace");
	fam(s, "bloxd_namespace_size_bytes", MX_GAUGE, "bytes", "Namespace capacity");
	FOR_NS(s, n)
		mx_u64(&s->w, &n->l, n->ns->bdev->size);
	fam(s, "bloxd_namespace_wear_used_ratio", MX_GAUGE, NULL,
	    "Mean erase count of the namespace's flash over the rated P/E cycles (1: worn out)");
	FOR_NS(s, n)
		if (n->s->has_end)
			mx_double(&s->w, &n->l, n->s->end.percent_used / 100.0);
	/* QoS, for namespaces that have had limits. */
	fam(s, "bloxd_namespace_qos_admitted_commands", MX_COUNTER, NULL,
	    "Commands the QoS limits passed at once");
	FOR_NS(s, n)
		for (int d = 0; n->s->has_qos && d < 3; d++)
			mx_u64(&s->w, with(&l, &n->l, "op", dir_names[d]), n->s->qos.admitted[d]);
	fam(s, "bloxd_namespace_qos_throttled_commands", MX_COUNTER, NULL,
	    "Commands the QoS limits held back, passed on later");
	FOR_NS(s, n)
		for (int d = 0; n->s->has_qos && d < 3; d++)
			mx_u64(&s->w, with(&l, &n->l, "op", dir_names[d]), n->s->qos.held[d]);
	fam(s, "bloxd_namespace_qos_throttled_seconds", MX_COUNTER, "seconds",
	    "Time commands spent held back by the QoS limits, summed");
	FOR_NS(s, n)
		if (n->s->has_qos)
			mx_ns(&s->w, &n->l, n->s->qos.wait_ns);
	fam(s, "bloxd_namespace_qos_waiting_commands", MX_GAUGE, NULL,
	    "Commands held back by the QoS limits now");
	FOR_NS(s, n)
		if (n->s->has_qos)
			mx_u64(&s->w, &n->l, n->s->qos.waiting);
}

/* FTL counters of backend "nand", by offset in struct ftl_stats. */
static const struct ftl_family {
	const char *name;
	enum mx_type type;
	const char *help;
	size_t off;
} ftl_families[] = {
	{ "bloxd_ftl_cmt_hits", MX_COUNTER,
	  "Mapping lookups that found their translation page in the cached mapping table (CMT)",
	  offsetof(struct ftl_stats, cmt_hits) },
	{ "bloxd_ftl_cmt_misses", MX_COUNTER, "Translation pages loaded into the CMT (misses)",
	  offsetof(struct ftl_stats, cmt_misses) },
	{ "bloxd_ftl_cmt_evictions", MX_COUNTER, "Translation pages evicted from the CMT",
	  offsetof(struct ftl_stats, cmt_evictions) },
	{ "bloxd_ftl_cmt_writebacks", MX_COUNTER, "Dirty translation pages written back",
	  offsetof(struct ftl_stats, cmt_writebacks) },
	{ "bloxd_ftl_mdc_lookups", MX_COUNTER, "Lookups in the mapping delta cache (MDC)",
	  offsetof(struct ftl_stats, mdc_lookups) },
	{ "bloxd_ftl_mdc_hits", MX_COUNTER, "MDC lookups that found the mapping",
	  offsetof(struct ftl_stats, mdc_hits) },
	{ "bloxd_ftl_gc_runs", MX_COUNTER, "Garbage collection runs (victim superblocks)",
	  offsetof(struct ftl_stats, gc_runs) },
	{ "bloxd_ftl_gc_storm_victims", MX_COUNTER,
	  "Victim superblocks GC storms took (bloxctl fault inject gc-storm)",
	  offsetof(struct ftl_stats, gc_storm_victims) },
	{ "bloxd_ftl_gc_moved_units", MX_COUNTER, "Valid mapping units garbage collection moved",
	  offsetof(struct ftl_stats, gc_units_moved) },
	{ "bloxd_ftl_gc_paced_writes", MX_COUNTER, "Host writes that waited for a GC credit",
	  offsetof(struct ftl_stats, gc_paced) },
	{ "bloxd_ftl_wear_leveling_runs", MX_COUNTER, "Static wear-leveling runs",
	  offsetof(struct ftl_stats, wl_runs) },
	{ "bloxd_ftl_erases", MX_COUNTER, "Flash blocks erased",
	  offsetof(struct ftl_stats, flash_erases) },
	{ "bloxd_ftl_free_superblocks", MX_GAUGE, "Free superblocks now",
	  offsetof(struct ftl_stats, free_superblocks) },
	{ "bloxd_ftl_superblocks", MX_GAUGE, "Superblocks of the FTL",
	  offsetof(struct ftl_stats, superblocks) },
	/* Flash that wears (the reliability model; docs/FAULTS.md). */
	{ "bloxd_ftl_read_retries", MX_COUNTER, "Read-retry steps the flash took for the FTL's reads",
	  offsetof(struct ftl_stats, read_retries) },
	{ "bloxd_ftl_uncorrectable_reads", MX_COUNTER, "Flash reads no retry could correct",
	  offsetof(struct ftl_stats, uncorrectable_reads) },
	{ "bloxd_ftl_refreshes", MX_COUNTER, "Superblocks flagged for refresh (many retries or uncorrectable)",
	  offsetof(struct ftl_stats, refreshes) },
	{ "bloxd_ftl_lost_units", MX_COUNTER, "Mapping units GC could not read: their LBAs read as errors",
	  offsetof(struct ftl_stats, units_lost) },
	{ "bloxd_ftl_lost_translation_pages", MX_COUNTER,
	  "Translation page loads that failed and pages GC could not move",
	  offsetof(struct ftl_stats, tp_lost) },
	{ "bloxd_ftl_lost_reads", MX_COUNTER, "Host reads of lost LBAs (failed)",
	  offsetof(struct ftl_stats, lost_reads) },
	{ "bloxd_ftl_retired_superblocks", MX_GAUGE,
	  "Superblocks retired because an erase or a program failed",
	  offsetof(struct ftl_stats, superblocks_retired) },
	{ "bloxd_ftl_program_failures", MX_COUNTER,
	  "Programs that failed on a grown bad block (the FTL wrote their data elsewhere)",
	  offsetof(struct ftl_stats, program_failures) },
	{ "bloxd_ftl_offline_units_lost", MX_COUNTER,
	  "Units that were on dies gone offline (lost)",
	  offsetof(struct ftl_stats, offline_units) },
	{ "bloxd_ftl_remapped_blocks", MX_GAUGE,
	  "Bad blocks standing in a spare block of their plane",
	  offsetof(struct ftl_stats, remapped_blocks) },
	{ "bloxd_ftl_factory_bad_blocks", MX_GAUGE, "The namespace's blocks bad from the factory",
	  offsetof(struct ftl_stats, factory_bad_blocks) },
	{ "bloxd_ftl_spare_blocks", MX_GAUGE, "Blocks of the spare pool",
	  offsetof(struct ftl_stats, spare_blocks) },
	{ "bloxd_ftl_spare_blocks_used", MX_GAUGE,
	  "Blocks of the spare pool used (spares in use, retired superblocks)",
	  offsetof(struct ftl_stats, spare_blocks_used) },
};

static void ftl_families_all(struct mx_scrape *s)
{
	static const char *const src[] = { "host", "gc", "translation", "padding" };
	struct mx_labels l;

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(ftl_families); i++) {
		const struct ftl_family *f = &ftl_families[i];

		fam(s, f->name, f->type, NULL, f->help);
		FOR_NS(s, n)
			if (n->s->t.has_ftl)
				mx_u64(&s->w, &n->l,
				       *(const uint64_t *)((const char *)&n->s->fs + f->off));
	}
	fam(s, "bloxd_ftl_written_units", MX_COUNTER, NULL,
	    "Mapping units programmed to flash, by what they were for (host, gc, translation, "
	    "padding); write amplification is all of them over host");
	FOR_NS(s, n) {
		const uint64_t v[] = { n->s->fs.units_written_host, n->s->fs.units_written_gc,
				       n->s->fs.units_written_tp, n->s->fs.units_padded };

		for (size_t k = 0; n->s->t.has_ftl && k < BLOX_ARRAY_SIZE(v); k++)
			mx_u64(&s->w, with(&l, &n->l, "source", src[k]), v[k]);
	}
	fam(s, "bloxd_ftl_write_amplification", MX_GAUGE, NULL,
	    "Flash units programmed over host units written, since the start");
	FOR_NS(s, n)
		if (n->s->t.has_ftl)
			mx_double(&s->w, &n->l, n->s->t.waf);
	fam(s, "bloxd_ftl_block_erases_min", MX_GAUGE, NULL, "Erase count of the least-erased block");
	FOR_NS(s, n)
		if (n->s->t.has_ftl)
			mx_u64(&s->w, &n->l, n->s->fs.min_erase);
	fam(s, "bloxd_ftl_block_erases_max", MX_GAUGE, NULL, "Erase count of the most-erased block");
	FOR_NS(s, n)
		if (n->s->t.has_ftl)
			mx_u64(&s->w, &n->l, n->s->fs.max_erase);
	/* A zoned namespace's rows (backend zns): the same figures of their blocks. */
	fam(s, "bloxd_zns_block_erases_min", MX_GAUGE, NULL,
	    "Erase count of the least-erased block of a zoned namespace's rows");
	FOR_NS(s, n)
		if (n->s->t.has_zoned)
			mx_u64(&s->w, &n->l, n->s->t.zoned.min_erase);
	fam(s, "bloxd_zns_block_erases_max", MX_GAUGE, NULL,
	    "Erase count of the most-erased block of a zoned namespace's rows");
	FOR_NS(s, n)
		if (n->s->t.has_zoned)
			mx_u64(&s->w, &n->l, n->s->t.zoned.max_erase);
	fam(s, "bloxd_zns_block_erases_mean", MX_GAUGE, NULL,
	    "Mean erase count of the blocks of a zoned namespace's rows");
	FOR_NS(s, n)
		if (n->s->t.has_zoned)
			mx_double(&s->w, &n->l, n->s->t.zoned.mean_erase);
	fam(s, "bloxd_zns_rows_waiting_erase", MX_GAUGE, NULL,
	    "Rows of a zoned namespace reset in a deterministic window, their erase waiting");
	FOR_NS(s, n)
		if (n->s->t.has_zoned)
			mx_u64(&s->w, &n->l, n->s->t.zoned.rows_dirty);
	fam(s, "bloxd_ftl_read_only", MX_GAUGE, NULL,
	    "1 when the FTL refuses writes (a program failed, or too little spare is left)");
	FOR_NS(s, n)
		if (n->s->t.has_ftl)
			mx_u64(&s->w, &n->l, n->s->fs.read_only);
}

/* Flexible Data Placement: each reclaim unit handle's bytes, labelled by its handle. */
static void fdp_families(struct mx_scrape *s)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} fams[] = {
		{ "bloxd_fdp_host_written_bytes", "Bytes the host wrote with a reclaim unit handle",
		  offsetof(struct blox_bdev_fdp_ruh, host_bytes) },
		{ "bloxd_fdp_media_written_bytes",
		  "Bytes programmed into a handle's superblocks: host data, GC moves, padding",
		  offsetof(struct blox_bdev_fdp_ruh, media_bytes) },
		{ "bloxd_fdp_erased_bytes", "Bytes of a handle's superblocks erased",
		  offsetof(struct blox_bdev_fdp_ruh, erased_bytes) },
	};
	struct mx_labels l;
	char h[12];

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(fams); i++) {
		fam(s, fams[i].name, MX_COUNTER, "bytes", fams[i].help);
		FOR_NS(s, n)
			for (uint32_t r = 0; n->s->has_fdp && r < n->s->fdp.nr_ruh; r++) {
				snprintf(h, sizeof(h), "%u", r);
				mx_u64(&s->w, with(&l, &n->l, "handle", h),
				       *(const uint64_t *)((const char *)&n->s->fdp.ruh[r] +
							   fams[i].off));
			}
	}
}

static void nand_families(struct mx_scrape *s)
{
	struct mx_labels l, l2;
	char die[12], ch[12];

	fam(s, "bloxd_nand_ops", MX_COUNTER, NULL, "Array operations completed, by kind");
	FOR_NAND(s, d)
		for (int k = 0; k < NAND_OP_KINDS; k++)
			mx_u64(&s->w, with(&l, &d->l, "op", op_names[k]),
			       d->from->s->t.nand->latency[k].count);
	fam(s, "bloxd_nand_op_latency_seconds", MX_HISTOGRAM, "seconds",
	    "Array operations from submission to completion, by kind");
	FOR_NAND(s, d)
		for (int k = 0; k < NAND_OP_KINDS; k++)
			mx_hist(&s->w, with(&l, &d->l, "op", op_names[k]),
				&d->from->s->t.nand->latency[k]);
	fam(s, "bloxd_nand_lateness_seconds", MX_HISTOGRAM, "seconds",
	    "How late the real-time driver delivered each completion after its modeled time");
	FOR_NAND(s, d)
		mx_hist(&s->w, &d->l, &d->from->s->t.nand->lateness);
	fam(s, "bloxd_nand_suspensions", MX_COUNTER, NULL,
	    "Programs and erases suspended for a read, by kind");
	FOR_NAND(s, d)
		for (int k = NAND_OP_PROGRAM; k <= NAND_OP_ERASE; k++)
			mx_u64(&s->w, with(&l, &d->l, "op", op_names[k]),
			       d->from->s->t.nand->suspend.suspends[k]);
	fam(s, "bloxd_nand_resumes", MX_COUNTER, NULL, "Suspended operations resumed, by kind");
	FOR_NAND(s, d)
		for (int k = NAND_OP_PROGRAM; k <= NAND_OP_ERASE; k++)
			mx_u64(&s->w, with(&l, &d->l, "op", op_names[k]),
			       d->from->s->t.nand->suspend.resumes[k]);
	fam(s, "bloxd_nand_suspensions_refused", MX_COUNTER, NULL,
	    "Suspensions refused, by who refused: the policy or the mechanism's cap");
	FOR_NAND(s, d) {
		const struct nand_suspend_stats *ss = &d->from->s->t.nand->suspend;

		mx_u64(&s->w, with(&l, &d->l, "by", "policy"), ss->declined);
		mx_u64(&s->w, with(&l, &d->l, "by", "cap"), ss->capped);
	}
	fam(s, "bloxd_nand_suspend_decisions", MX_COUNTER, NULL,
	    "The smart suspend policy's decisions: granted, or the reason it refused");
	FOR_NAND(s, d)
		for (int r = 0; d->from->s->t.susp_decisions && r < QOS_SUSP_REASONS; r++)
			mx_u64(&s->w, with(&l, &d->l, "decision", qos_suspend_reason_name(r)),
			       d->from->s->t.susp_decisions[r]);
	fam(s, "bloxd_nand_reads_overtaken", MX_COUNTER, NULL,
	    "Reads served while a program or erase was suspended");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->suspend.reads_overtaken);
	fam(s, "bloxd_nand_read_retries", MX_COUNTER, NULL,
	    "Read-retry steps taken (the reliability model), and reads that needed any");
	FOR_NAND(s, d) {
		mx_u64(&s->w, with(&l, &d->l, "count", "steps"), d->from->s->t.nand->rel.retries);
		mx_u64(&s->w, with(&l, &d->l, "count", "reads"), d->from->s->t.nand->rel.reads_retried);
	}
	fam(s, "bloxd_nand_uncorrectable_reads", MX_COUNTER, NULL,
	    "Reads past the last retry step: uncorrectable");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->rel.uncorrectable);
	fam(s, "bloxd_nand_grown_bad_blocks", MX_COUNTER, NULL,
	    "Blocks marked bad because an erase or a program failed");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l,
		       d->from->s->t.nand->rel.erase_failures +
			       d->from->s->t.nand->rel.program_failures);
	fam(s, "bloxd_nand_max_bit_errors", MX_GAUGE, NULL,
	    "Most raw bit errors seen in one ECC codeword");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->rel.max_errors);
	fam(s, "bloxd_nand_suspended_seconds", MX_COUNTER, "seconds",
	    "Time operations spent suspended, summed");
	FOR_NAND(s, d)
		mx_ns(&s->w, &d->l, d->from->s->t.nand->suspend.suspended_ns);
	fam(s, "bloxd_nand_dies", MX_GAUGE, NULL, "Dies of the device");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.dies);
	fam(s, "bloxd_nand_die_busy_seconds", MX_COUNTER, "seconds",
	    "Array time of each die, by operation kind (utilisation: its rate)");
	FOR_NAND(s, d) {
		uint32_t dpc = nand_dev_config(d->from->s->t.nand_dev)->geo.dies_per_channel;

		for (uint32_t i = 0; i < d->from->s->t.dies; i++) {
			const struct nand_die_stats *ds =
				d->from->s->t.die_stats ? &d->from->s->t.die_stats[i] : NULL;

			if (!ds)
				continue;
			snprintf(die, sizeof(die), "%u", i);
			snprintf(ch, sizeof(ch), "%u", dpc ? i / dpc : 0);
			with(&l2, with(&l2, &d->l, "die", die), "channel", ch);
			for (int k = 0; k < NAND_OP_KINDS; k++)
				mx_ns(&s->w, with(&l, &l2, "op", op_names[k]), ds->busy_ns[k]);
		}
	}
}

/* Registered devices: FlashBlox's wear and its balance (struct fbx_wear). */
static const struct wear_family {
	const char *name;
	enum mx_type type; /* a counter is a uint64_t, a gauge a double */
	const char *help;
	size_t off;
} wear_families[] = {
	{ "bloxd_device_wear_avg", MX_GAUGE, "Average erases per block of the device's blocks",
	  offsetof(struct fbx_wear, avg) },
	{ "bloxd_device_wear_max", MX_GAUGE,
	  "Average erases per block of the device's most-worn channel",
	  offsetof(struct fbx_wear, max) },
	{ "bloxd_device_wear_imbalance", MX_GAUGE,
	  "Most-worn channel's wear over the average (1: even); swaps keep it under the bound",
	  offsetof(struct fbx_wear, imbalance) },
	{ "bloxd_device_wear_checks", MX_COUNTER, "Wear checks made",
	  offsetof(struct fbx_wear, checks) },
	{ "bloxd_device_swaps", MX_COUNTER, "Channel swaps made to even the wear",
	  offsetof(struct fbx_wear, swaps) },
};

static void device_families(struct mx_scrape *s)
{
	struct prov_device *d;
	struct mx_labels l, lc;
	char ch[12];

#define DEV_LABELS (l = (struct mx_labels){ 0 }, mx_label(&l, "device", d->cfg.name), &l)
	TAILQ_FOREACH(d, &s->p->devices, link)
		prov_device_wear_update(d); /* the wear as the store has it now */
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(wear_families); i++) {
		const struct wear_family *f = &wear_families[i];

		fam(s, f->name, f->type, NULL, f->help);
		TAILQ_FOREACH(d, &s->p->devices, link) {
			struct fbx_wear w;
			const char *v = (const char *)&w + f->off;

			fbx_wear_get(d->rm, &w);
			if (f->type == MX_COUNTER)
				mx_u64(&s->w, DEV_LABELS, *(const uint64_t *)v);
			else
				mx_double(&s->w, DEV_LABELS, *(const double *)v);
		}
	}
	fam(s, "bloxd_device_wear_bound", MX_GAUGE, NULL, "The imbalance the device keeps under");
	TAILQ_FOREACH(d, &s->p->devices, link)
		mx_double(&s->w, DEV_LABELS, 1.0 + fbx_rm_params(d->rm)->bound_permille / 1000.0);
	fam(s, "bloxd_device_channel_wear", MX_GAUGE, NULL, "Average erases per block of a channel");
	TAILQ_FOREACH(d, &s->p->devices, link)
		for (uint32_t c = 0; c < d->cfg.nand.geo.channels; c++) {
			snprintf(ch, sizeof(ch), "%u", c);
			mx_double(&s->w, with(&lc, DEV_LABELS, "channel", ch),
				  fbx_channel_wear(d->rm, c, NULL));
		}
	fam(s, "bloxd_device_free_dies", MX_GAUGE, NULL, "Dies no vSSD holds");
	TAILQ_FOREACH(d, &s->p->devices, link)
		mx_u64(&s->w, DEV_LABELS, fbx_free_dies(d->rm));
#undef DEV_LABELS
}

static void controller_families(struct mx_scrape *s)
{
	io_families_of(s, false, "controller");
	fam(s, "bloxd_controller_keep_alive_timeout_seconds", MX_GAUGE, "seconds",
	    "Keep-alive timeout the host asked for (0: none)");
	FOR_CTRL(s, c)
		mx_ns(&s->w, &c->l, (uint64_t)c->c->kato_ms * 1000000u);
	fam(s, "bloxd_controller_io_queues", MX_GAUGE, NULL, "I/O queues connected");
	FOR_CTRL(s, c)
		mx_u64(&s->w, &c->l, c->c->nr_sqs ? c->c->nr_sqs - 1 : 0);
}

int mx_collect(struct blox_prov *p, const struct mx_self *self, struct evbuffer *out,
	       enum mx_format fmt)
{
	struct mx_scrape s = { .p = p };
	int rc;

	mx_begin(&s.w, out, fmt);
	rc = look(&s);
	if (!rc) {
		daemon_families(&s, self);
		namespace_families(&s);
		ftl_families_all(&s);
		fdp_families(&s);
		nand_families(&s);
		device_families(&s);
		controller_families(&s);
		rc = mx_end(&s.w);
	}
	tm_snap_free(&s.snap);
	free(s.ns);
	free(s.nand);
	free(s.ctrl);
	return rc;
}
