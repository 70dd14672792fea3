/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of what runs: connected controllers with their
 * queues, and telemetry (one answer, or a stream every interval).
 */
#include "adm_internal.h"

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- Telemetry ---- */

static void m_get_stats(ADM_SVC *svc, const Blox__Admin__StatsRequest *in,
			Blox__Admin__StatsReply_Closure closure, void *d)
{
	Blox__Admin__StatsReply out = BLOX__ADMIN__STATS_REPLY__INIT;
	bool found;

	adm_stats_fill(ADM_OF(svc), in, &out, &found);
	if (!found) {
		adm_stats_free(&out);
		if (in->nsid)
			ADM_FAIL(closure, d, ADM_S_NOT_FOUND,
				 "namespace %u not found in %s", in->nsid, in->nqn);
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "subsystem %s not found",
			 in->nqn);
	}
	closure(&out, d);
	adm_stats_free(&out);
}

struct watch {
	Blox__Admin__StatsRequest req; /* copy: the input is gone */
	char nqn[NVME_NQN_LENGTH];
	uint32_t sent;
	uint32_t interval_ms;
};

/* Cancelled, or the client went away: the stream ends (CANCELLED). */
static void watch_cancel(struct adm_req *r)
{
	adm_closure(NULL, r);
}

static void watch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct adm_req *r = arg;
	struct watch *w = r->priv;
	Blox__Admin__StatsReply out = BLOX__ADMIN__STATS_REPLY__INIT;
	bool found;

	(void)fd;
	(void)what;
	adm_stats_fill(r->a, &w->req, &out, &found);
	if (!found) {
		adm_stats_free(&out);
		adm_fail(r, ADM_S_NOT_FOUND, "%s: the watched object is gone",
			 w->nqn[0] ? w->nqn : "stats");
		adm_closure(NULL, r);
		return;
	}
	w->sent++;
	if (w->req.count && w->sent >= w->req.count) {
		adm_closure(&out.base, r); /* the last answer ends the stream */
		adm_stats_free(&out);
		return;
	}
	/* A client that does not keep up loses samples, not memory. */
	if (!adm_conn_congested(r))
		adm_stream_send(r, &out.base);
	adm_stats_free(&out);
	event_add(r->timer, &(struct timeval){ w->interval_ms / 1000,
					       (w->interval_ms % 1000) * 1000 });
}

static void m_watch_stats(ADM_SVC *svc, const Blox__Admin__StatsRequest *in,
			  Blox__Admin__StatsReply_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct adm_req *r = ADM_REQ(d);
	struct watch *w;

	if (in->interval_ms && (in->interval_ms < 100 || in->interval_ms > 3600000))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "interval %u ms: must be 100..3600000", in->interval_ms);
	w = calloc(1, sizeof(*w));
	r->timer = evtimer_new(a->base, watch_cb, r);
	if (!w || !r->timer) {
		free(w);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	blox__admin__stats_request__init(&w->req);
	snprintf(w->nqn, sizeof(w->nqn), "%s", in->nqn);
	w->req.nqn = w->nqn;
	w->req.nsid = in->nsid;
	w->req.count = in->count;
	w->interval_ms = in->interval_ms ? in->interval_ms : 1000;
	r->priv = w;
	r->on_cancel = watch_cancel;
	watch_cb(-1, 0, r); /* the first answer at once */
}

/* ---- Controllers ---- */

static void ctrl_msg(const struct nvmf_ctrl *c, uint64_t now,
		     Blox__Admin__Controller *m, char id[37], char *lis, size_t lislen,
		     Blox__Admin__Queue *qm, Blox__Admin__Queue **qp)
{
	blox__admin__controller__init(m);
	m->nqn = (char *)c->subsys->nqn;
	m->cntlid = c->cntlid;
	m->host_nqn = (char *)c->hostnqn;
	blox_uuid_str(c->hostid, id);
	m->host_id = id;
	m->kato_ms = c->kato_ms;
	m->io_queues = c->nr_sqs ? c->nr_sqs - 1 : 0;
	m->age_ns = now - c->created_ns;
	lis[0] = '\0';
	if (c->sqs[0] && c->sqs[0]->port)
		snprintf(lis, lislen, "%s:%s", c->sqs[0]->port->addr,
			 c->sqs[0]->port->svcid);
	m->listener = lis;
	m->queues = qp;
	for (uint32_t q = 0; q <= NVMF_MAX_IO_QUEUES; q++) {
		const struct nvmf_sq *sq = c->sqs[q];

		if (!sq)
			continue;
		blox__admin__queue__init(&qm[m->n_queues]);
		qm[m->n_queues].qid = q;
		qm[m->n_queues].size = sq->size;
		qm[m->n_queues].commands = sq->cmds;
		qm[m->n_queues].errors = sq->errors;
		qm[m->n_queues].reactor = sq->reactor;
		qp[m->n_queues] = &qm[m->n_queues];
		m->n_queues++;
	}
}

static void m_list_controllers(ADM_SVC *svc, const Blox__Admin__ControllerListRequest *in,
			       Blox__Admin__ControllerList_Closure closure, void *d)
{
	enum { QMAX = NVMF_MAX_IO_QUEUES + 1, LIS = NVMF_TRADDR_SIZE + 1 + NVMF_TRSVCID_SIZE };
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__ControllerList out = BLOX__ADMIN__CONTROLLER_LIST__INIT;
	struct nvmf_subsys *only = NULL, *s, *disc = a->tgt->discovery;
	const struct nvmf_ctrl *c;
	uint64_t now = blox_clock_now(a->tgt->clock);
	Blox__Admin__Controller *cm;
	Blox__Admin__Controller **cp;
	Blox__Admin__Queue *qm;
	Blox__Admin__Queue **qp;
	char (*ids)[37], (*lis)[LIS];
	size_t nc = 0;

	if (in->nqn[0] && !(only = nvmf_subsys_find(a->tgt, in->nqn)))
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "subsystem %s not found",
			 in->nqn);
	TAILQ_FOREACH(s, &a->tgt->subsystems, link)
		if (!only || s == only)
			nc += adm_nr_ctrls(s);
	if (disc && (!only || only == disc))
		nc += adm_nr_ctrls(disc);
	cm = calloc(nc + 1, sizeof(*cm));
	cp = calloc(nc + 1, sizeof(*cp));
	ids = calloc(nc + 1, sizeof(*ids));
	lis = calloc(nc + 1, sizeof(*lis));
	qm = calloc((nc + 1) * QMAX, sizeof(*qm));
	qp = calloc((nc + 1) * QMAX, sizeof(*qp));
	if (!cm || !cp || !ids || !lis || !qm || !qp) {
		adm_fail(ADM_REQ(d), ADM_S_RESOURCE_EXHAUSTED, "out of memory");
		closure(NULL, d);
		goto out;
	}
	for (s = TAILQ_FIRST(&a->tgt->subsystems);; s = TAILQ_NEXT(s, link)) {
		struct nvmf_subsys *cur = s ? s : disc;

		if (cur && (!only || cur == only))
			TAILQ_FOREACH(c, &cur->ctrls, link) {
				size_t i = out.n_controllers++;

				ctrl_msg(c, now, &cm[i], ids[i], lis[i], LIS, &qm[i * QMAX],
					 &qp[i * QMAX]);
				cp[i] = &cm[i];
			}
		if (!s)
			break;
	}
	out.controllers = cp;
	closure(&out, d);
out:
	free(cm);
	free(cp);
	free(ids);
	free(lis);
	free(qm);
	free(qp);
}

void adm_m_ctrl_init(ADM_SVC *svc)
{
	svc->get_stats = m_get_stats;
	svc->watch_stats = m_watch_stats;
	svc->list_controllers = m_list_controllers;
}
