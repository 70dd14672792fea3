/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the metrics endpoint exposes (docs/metrics.md has the table): the
 * facts `bloxctl stats` shows, as totals since each object was made, with
 * rates and quantiles left to the scraper. One scrape renders one
 * telemetry snapshot (telemetry.h, the one `bloxctl stats` renders too)
 * of every namespace and controller, family by family, since a family's
 * samples must stand together.
 *
 * The scrape's own families and those of the I/O, the namespaces and the
 * controllers are here; those of the flash (FTL, FDP, NAND devices,
 * registered devices) are metrics_flash.c's.
 */
#include "blox_util.h"
#include "metrics.h"
#include "metrics_collect.h"
#include "telemetry.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const dir_names[3] = { "read", "write", "other" }; /* QOS_READ.. */

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
		mx_flash_families(&s);
		controller_families(&s);
		rc = mx_end(&s.w);
	}
	tm_snap_free(&s.snap);
	free(s.ns);
	free(s.nand);
	free(s.ctrl);
	return rc;
}
