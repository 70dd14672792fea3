/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of QoS: a namespace's limits (token buckets, qos/)
 * and weight, changed at once on the running namespace and kept in its
 * parameters (so in the state file), and shown with what they did.
 */
#include "adm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A QosInfo and what it points into. */
struct qos_msg {
	Blox__Admin__QosInfo m;
	Blox__Admin__QosParams q;
	uint64_t full[6]; /* full_ns, per bucket */
};

static void qos_msg_fill(const struct nvmf_ns *ns, struct qos_msg *x)
{
	const struct prov_ns_rec *rec = prov_ns_rec(ns);
	struct blox_bdev_qos_stats st;
	bool limited;

	blox__admin__qos_info__init(&x->m);
	blox__admin__qos_params__init(&x->q);
	x->m.nqn = (char *)ns->subsys->nqn;
	x->m.nsid = ns->nsid;
	if (rec && rec->params.has_qos) {
		const struct blox_qos_params *p = &rec->params.qos;

		x->q.read_iops = blox_param_given(p, BLOX_QP_READ_IOPS) ? p->read_iops : 0;
		x->q.write_iops = blox_param_given(p, BLOX_QP_WRITE_IOPS) ? p->write_iops : 0;
		x->q.iops = blox_param_given(p, BLOX_QP_IOPS) ? p->iops : 0;
		x->q.read_mbps = blox_param_given(p, BLOX_QP_READ_MBPS) ? p->read_mbps : 0;
		x->q.write_mbps = blox_param_given(p, BLOX_QP_WRITE_MBPS) ? p->write_mbps : 0;
		x->q.mbps = blox_param_given(p, BLOX_QP_MBPS) ? p->mbps : 0;
		x->q.burst_ms = blox_param_given(p, BLOX_QP_BURST_MS) ? p->burst_ms : 0;
		x->q.weight = blox_param_given(p, BLOX_QP_WEIGHT) ? p->weight : 0;
	}
	x->m.qos = &x->q;
	limited = blox_bdev_qos_get(ns->bdev, NULL, &st);
	x->m.reads_admitted = st.admitted[QOS_READ];
	x->m.writes_admitted = st.admitted[QOS_WRITE];
	x->m.others_admitted = st.admitted[QOS_OTHER];
	x->m.reads_held = st.held[QOS_READ];
	x->m.writes_held = st.held[QOS_WRITE];
	x->m.others_held = st.held[QOS_OTHER];
	x->m.waiting = st.waiting;
	x->m.max_waiting = st.max_waiting;
	memcpy(x->full, st.full_ns, sizeof(x->full));
	x->m.n_full_ns = limited ? sizeof(x->full) / sizeof(x->full[0]) : 0;
	x->m.full_ns = x->full;
	x->m.full_held_ns = st.full_held_ns;
	x->m.held_ns = st.wait_ns;
	if (rec && rec->dev)
		x->m.die_time_ns = blox_nand_dev_tenant_ns(rec->dev->dev, rec->tenant);
}

static void m_qos_set(ADM_SVC *svc, const Blox__Admin__QosSetRequest *in,
		      Blox__Admin__QosInfo_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_subsys *s = adm_find_subsys(a, ADM_REQ(d), in->nqn);
	struct nvmf_ns *ns = s ? nvmf_ns_find(s, in->nsid) : NULL;
	struct prov_ns_rec *rec;
	struct blox_qos_params q;
	struct qos_limits lim;
	struct qos_msg x;
	uint32_t weight;
	char err[256];
	int rc;

	if (!s)
		ADM_FAILED(closure, d);
	if (!ns)
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "namespace %u not found in %s", in->nsid,
			 in->nqn);
	rec = (struct prov_ns_rec *)prov_ns_rec(ns);
	if (!rec)
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "namespace %u of %s was not made by bloxd's provisioning", in->nsid,
			 in->nqn);
	/* What it has, the fields given on top, the fields unset taken off. */
	q = rec->params.has_qos ? rec->params.qos : (struct blox_qos_params){ 0 };
	{
		struct blox_qos_params given = { 0 };

		if ((rc = adm_params_from_proto(&blox_qos_table, in->qos ? &in->qos->base : NULL,
						"qos", &given, err, sizeof(err))))
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "%s", err);
		if ((rc = blox_params_check(&blox_qos_table, &given, "qos", err, sizeof(err))))
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "%s", err);
		for (size_t i = 0; i < blox_qos_table.n; i++) {
			const struct blox_param_field *f = &blox_qos_table.fields[i];

			if (!blox_param_given(&given, i))
				continue;
			*(uint32_t *)((char *)&q + f->off) = *(uint32_t *)((char *)&given + f->off);
			q.set |= 1u << i;
		}
	}
	for (size_t k = 0; k < in->n_unset; k++) {
		size_t i;

		for (i = 0; i < blox_qos_table.n; i++)
			if (!strcmp(in->unset[k], blox_qos_table.fields[i].key))
				break;
		if (i == blox_qos_table.n)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "qos: '%s' is not one of read_iops, write_iops, iops, read_mbps, "
				 "write_mbps, mbps, burst_ms, weight",
				 in->unset[k]);
		q.set &= ~(1u << i);
		*(uint32_t *)((char *)&q + blox_qos_table.fields[i].off) = 0;
	}
	blox_qos_resolve(&q, &lim, &weight);
	if (blox_bdev_qos_set(ns->bdev, &lim, a->base, a->tgt->clock))
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	/* Its share of dies it shares with others (a vSSD on a device). */
	if (rec->dev)
		blox_nand_dev_set_weight(rec->dev->dev, rec->tenant, weight ? weight : 1);
	rec->params.qos = q;
	rec->params.has_qos = q.set != 0;
	blox_log(a->log, BLOX_LOG_INFO,
		 "admin: namespace %u of %s: qos read_iops %u write_iops %u iops %u read_mbps %u "
		 "write_mbps %u mbps %u burst_ms %u weight %u",
		 ns->nsid, s->nqn, q.read_iops, q.write_iops, q.iops, q.read_mbps, q.write_mbps,
		 q.mbps, q.burst_ms, q.weight);
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	qos_msg_fill(ns, &x);
	closure(&x.m, d);
}

static void m_qos_show(ADM_SVC *svc, const Blox__Admin__QosRef *in,
		       Blox__Admin__QosList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__QosList out = BLOX__ADMIN__QOS_LIST__INIT;
	const struct nvmf_subsys *s, *only = NULL;
	const struct nvmf_ns *ns;
	struct qos_msg *xs;
	size_t n = 0, i = 0;

	if (in->nqn[0] && !(only = adm_find_subsys(a, ADM_REQ(d), in->nqn)))
		ADM_FAILED(closure, d);
	if (only && in->nsid && !nvmf_ns_find((struct nvmf_subsys *)only, in->nsid))
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "namespace %u not found in %s", in->nsid,
			 in->nqn);
	TAILQ_FOREACH(s, &a->tgt->subsystems, link)
		if (!only || s == only)
			TAILQ_FOREACH(ns, &s->namespaces, link)
				n += !in->nsid || ns->nsid == in->nsid;
	xs = calloc(n + 1, sizeof(*xs));
	out.namespaces = calloc(n + 1, sizeof(*out.namespaces));
	if (!xs || !out.namespaces) {
		free(xs);
		free(out.namespaces);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	TAILQ_FOREACH(s, &a->tgt->subsystems, link)
		if (!only || s == only)
			TAILQ_FOREACH(ns, &s->namespaces, link)
				if (!in->nsid || ns->nsid == in->nsid) {
					qos_msg_fill(ns, &xs[i]);
					out.namespaces[i] = &xs[i].m;
					i++;
				}
	out.n_namespaces = n;
	closure(&out, d);
	free(xs);
	free(out.namespaces);
}

void adm_m_qos_init(ADM_SVC *svc)
{
	svc->qos_set = m_qos_set;
	svc->qos_show = m_qos_show;
}
