/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of faults on demand. PowerCut (bloxctl fault
 * power-cut): a namespace's drive losing power and coming back
 * (prov_power.c). InjectFault, ListFaults, ClearFaults (bloxctl fault
 * inject, list, clear): a FaultSpec checked against what runs (the
 * namespace, its LBA range) and put into the target's fault registry
 * (blox_fault.h), where the layers that carry each kind out find it.
 * Latency, queue stalls, ignored keep-alives and host drops on a
 * condition are carried out by the NVMe core (daemon/nvmf/fault_hold.c),
 * listener stops by the transport as it accepts, a GC storm by the
 * namespace's FTL at once (adm_fault_kinds.c checks each kind's request).
 */
#include "adm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Fault message and what it points into. */
struct fault_msg {
	Blox__Admin__Fault m;
	Blox__Admin__FaultSpec s;
};

/* A latency fault's commands as bloxctl names them (--op). */
static const char *ops_name(unsigned ops)
{
	switch (ops) {
	case BLOX_FAULT_OP_READ:
		return "read";
	case BLOX_FAULT_OP_WRITE:
		return "write";
	case BLOX_FAULT_OP_FLUSH:
		return "flush";
	case BLOX_FAULT_OP_WRITE_ZEROES:
		return "write-zeroes";
	case BLOX_FAULT_OP_DSM:
		return "dsm";
	case BLOX_FAULT_OP_COMPARE:
		return "compare";
	case BLOX_FAULT_OP_ADMIN:
		return "admin";
	case BLOX_FAULT_OP_FABRICS:
		return "fabrics";
	case BLOX_FAULT_OP_ALL:
	case BLOX_FAULT_OP_READ | BLOX_FAULT_OP_WRITE | BLOX_FAULT_OP_FLUSH | BLOX_FAULT_OP_OTHER:
		return "all"; /* the second as kept before the others had bits of their own */
	default: /* 0 or both */
		return "both";
	}
}

static void fault_msg_fill(struct blox_admin *a, const struct blox_fault *f, struct fault_msg *x)
{
	const struct blox_fault_spec *s = &f->spec;
	uint64_t now = blox_clock_now(a->tgt->clock);

	blox__admin__fault__init(&x->m);
	blox__admin__fault_spec__init(&x->s);
	x->s.kind = (char *)blox_fault_kind_name(s->kind);
	x->s.nqn = (char *)s->subsys;
	x->s.host_nqn = (char *)s->host;
	x->s.device = (char *)s->device;
	x->s.die = s->die;
	x->s.nsid = s->nsid;
	x->s.lba = s->lba;
	x->s.nlb = s->nlb;
	if (s->kind == BLOX_FAULT_DELAY) {
		x->s.ops = (char *)ops_name(s->ops);
		x->s.dist = (char *)blox_fault_dist_name(s->dist);
		x->s.delay_us = s->delay_ns / 1000;
		x->s.delay_max_us = s->delay_max_ns / 1000;
	}
	x->s.listener = (char *)s->listener;
	x->s.duration_ms = s->duration_ns / 1000000;
	x->s.superblocks = s->superblocks;
	x->s.qid = s->qid;
	if (s->until_ns)
		x->m.remaining_ms = s->until_ns > now ? (s->until_ns - now + 999999) / 1000000 : 0;
	x->m.held = nvmf_holds_of(a->tgt, f->id);
	x->s.count = s->count;
	x->s.probability = s->probability;
	x->s.seed = s->seed;
	x->s.after = s->after;
	x->s.min_qd = s->min_qd;
	x->s.persist = s->persist;
	x->m.id = f->id;
	x->m.spec = &x->s;
	x->m.seen = f->seen;
	x->m.fired = f->fired;
	x->m.spent = blox_fault_spent(f, now);
}

static void m_fault_inject(ADM_SVC *svc, const Blox__Admin__FaultSpec *in,
			   Blox__Admin__Fault_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct blox_fault_spec s;
	struct fault_msg x;
	struct blox_fault f;
	char err[512];
	uint32_t id;
	int st, rc;

	if ((st = adm_fault_spec(a, in, &s, err, sizeof(err))))
		ADM_FAIL(closure, d, st, "%s", err);
	if (s.kind == BLOX_FAULT_GC_STORM) {
		/* Now, on the namespace's FTL; the registry keeps the record of it. */
		struct nvmf_ns *ns = nvmf_ns_find(nvmf_subsys_find(a->tgt, s.subsys), s.nsid);

		rc = blox_bdev_ftl_gc_storm(ns->bdev, s.superblocks, s.duration_ns);
		if (rc == -EOPNOTSUPP && !strcmp(ns->bdev->ops->name, "zns"))
			ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
				 "gc-storm: namespace %u of %s is zoned: it has no GC (the host "
				 "frees space by resetting zones; the drive moves no data of its "
				 "own but in a die migration, bloxctl migrate start)",
				 s.nsid, s.subsys);
		if (rc == -EOPNOTSUPP)
			ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
				 "gc-storm: namespace %u of %s has no FTL of its own here (backend "
				 "%s): only nand namespaces (of 4096- or 512-byte blocks)",
				 s.nsid, s.subsys, ns->bdev->ops->name);
		if (rc)
			ADM_FAIL(closure, d, ADM_S_INTERNAL, "gc-storm: %s", strerror(-rc));
	}
	rc = blox_fault_add(a->tgt->faults, &s, 0, &id, err, sizeof(err));
	if (rc == -ENOSPC)
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "%d faults already: clear some",
			 BLOX_FAULT_MAX);
	if (rc)
		ADM_FAIL(closure, d, rc == -EINVAL ? ADM_S_INVALID_ARGUMENT : ADM_S_INTERNAL, "%s",
			 rc == -EINVAL ? err : "out of memory");
	if (s.persist && adm_faults_save(a, err, sizeof(err))) {
		blox_fault_remove(a->tgt->faults, id);
		ADM_FAIL(closure, d, ADM_S_INTERNAL, "not injected: %s", err);
	}
	if (s.kind == BLOX_FAULT_GC_STORM) {
		struct blox_fault_site site = { .kind = BLOX_FAULT_GC_STORM,
						.subsys = s.subsys,
						.nsid = s.nsid };

		blox_fault_match(a->tgt->faults, &site, NULL);
	}
	if (s.kind == BLOX_FAULT_HOST_DROP && s.until_ns) {
		struct blox_fault_site site = { .kind = BLOX_FAULT_HOST_DROP,
						.subsys = s.subsys,
						.host = s.host };
		struct nvmf_subsys *sub = nvmf_subsys_find(a->tgt, s.subsys);
		uint32_t n = nvmf_subsys_drop_host(sub, s.host, "fault host-drop");

		if (n)
			blox_fault_match(a->tgt->faults, &site, NULL);
		blox_log(a->log, BLOX_LOG_INFO, "admin: fault %u: %u controllers of %s on %s dropped",
			 id, n, s.host, s.subsys);
	}
	blox_log(a->log, BLOX_LOG_INFO,
		 "admin: fault %u injected: %s on %s%s%s%s namespace %u, LBAs %llu+%llu, delay %llu us, "
		 "for %llu ms, count %llu, after %llu, probability %g, seed %llu%s",
		 id, in->kind, s.listener[0] ? s.listener : s.device[0] ? s.device : s.subsys,
		 s.host[0] ? " (host " : "", s.host, s.host[0] ? ")" : "", s.nsid,
		 (unsigned long long)s.lba, (unsigned long long)s.nlb,
		 (unsigned long long)s.delay_ns / 1000, (unsigned long long)s.duration_ns / 1000000,
		 (unsigned long long)s.count, (unsigned long long)s.after, s.probability,
		 (unsigned long long)s.seed, s.persist ? ", kept" : "");
	blox_fault_get(a->tgt->faults, id, &f);
	fault_msg_fill(a, &f, &x);
	closure(&x.m, d);
}

/* The list now. */
static void answer_list(struct blox_admin *a, Blox__Admin__FaultList_Closure closure, void *d)
{
	Blox__Admin__FaultList out = BLOX__ADMIN__FAULT_LIST__INIT;
	struct blox_fault *fs = calloc(BLOX_FAULT_MAX, sizeof(*fs));
	struct fault_msg *xs = calloc(BLOX_FAULT_MAX, sizeof(*xs));
	Blox__Admin__Fault **ms = calloc(BLOX_FAULT_MAX, sizeof(*ms));
	size_t n;

	if (!fs || !xs || !ms) {
		free(fs);
		free(xs);
		free(ms);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	n = BLOX_MIN(blox_fault_list(a->tgt->faults, fs, BLOX_FAULT_MAX), (size_t)BLOX_FAULT_MAX);
	for (size_t i = 0; i < n; i++) {
		fault_msg_fill(a, &fs[i], &xs[i]);
		ms[i] = &xs[i].m;
	}
	out.faults = ms;
	out.n_faults = n;
	closure(&out, d);
	free(fs);
	free(xs);
	free(ms);
}

static void m_fault_list(ADM_SVC *svc, const Blox__Admin__Empty *in,
			 Blox__Admin__FaultList_Closure closure, void *d)
{
	(void)in;
	answer_list(ADM_OF(svc), closure, d);
}

static void m_fault_clear(ADM_SVC *svc, const Blox__Admin__FaultClearRequest *in,
			  Blox__Admin__FaultList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct blox_fault f;
	bool kept = false;
	char err[512];

	if (in->all == (in->id != 0))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "give a fault id or all");
	if (in->all) {
		kept = true; /* the file is rewritten either way */
		blox_log(a->log, BLOX_LOG_INFO, "admin: %zu faults cleared",
			 blox_fault_clear(a->tgt->faults));
	} else {
		if (!blox_fault_get(a->tgt->faults, in->id, &f))
			ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "fault %u not found", in->id);
		kept = f.spec.persist;
		blox_fault_remove(a->tgt->faults, in->id);
		blox_log(a->log, BLOX_LOG_INFO, "admin: fault %u cleared (fired %llu times)",
			 in->id, (unsigned long long)f.fired);
	}
	/* What the faults cleared held goes on now (a stall's commands, a keep-alive). */
	nvmf_faults_cleared(a->tgt);
	/* A registered device's die whose fault went comes back, used or not. */
	prov_devices_faults_cleared(a->prov);
	if (kept && adm_faults_save(a, err, sizeof(err)))
		ADM_FAIL(closure, d, ADM_S_INTERNAL, "cleared, but %s", err);
	answer_list(a, closure, d);
}

static void power_cut_fill(Blox__Admin__PowerCutReply *out, const struct prov_power_cut *pc)
{
	out->controllers_dropped = pc->ctrls_dropped;
	out->flash_ops_dropped = pc->bdev.ops_dropped;
	out->programs_torn = pc->bdev.programs_torn;
	out->commands_failed = pc->bdev.cmds_failed;
	out->recovered_units = pc->bdev.recovered_units;
	out->rebuild_ms = pc->bdev.rebuild_ns / 1e6;
	out->unsafe_shutdowns = pc->unsafe_shutdowns;
	out->superblocks_retired = pc->bdev.superblocks_retired;
	out->bytes_lost = pc->bdev.bytes_lost;
	out->bytes_buffered = pc->bdev.bytes_buffered;
	out->holdup_ms = pc->bdev.holdup_ms;
	out->holdup_used_ms = pc->bdev.holdup_used_ns / 1e6;
}

#define DEV_CUT_MAX 64 /* vSSDs of one device: tenants 1..63 */

/* bloxctl fault power-cut --device NAME: every vSSD on it at once. */
static void power_cut_device(struct blox_admin *a, const Blox__Admin__PowerCutRequest *in,
			     Blox__Admin__PowerCutReply_Closure closure, void *d)
{
	Blox__Admin__PowerCutReply out = BLOX__ADMIN__POWER_CUT_REPLY__INIT;
	struct prov_dev_power_cut *cuts = calloc(DEV_CUT_MAX, sizeof(*cuts));
	Blox__Admin__PowerCutReply *rs = calloc(DEV_CUT_MAX, sizeof(*rs));
	Blox__Admin__PowerCutReply **rp = calloc(DEV_CUT_MAX, sizeof(*rp));
	char err[512];
	uint32_t n = 0;
	int rc;

	if (!cuts || !rs || !rp) {
		free(cuts);
		free(rs);
		free(rp);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	rc = prov_device_power_cut(a->prov, in->device, cuts, DEV_CUT_MAX, &n, err, sizeof(err));
	if (rc) {
		free(cuts);
		free(rs);
		free(rp);
		ADM_FAIL(closure, d,
			 rc == -ENOENT			       ? ADM_S_NOT_FOUND
			 : rc == -EOPNOTSUPP || rc == -EBUSY ? ADM_S_FAILED_PRECONDITION
							     : ADM_S_INTERNAL,
			 "%s", err);
	}
	out.device = (char *)in->device;
	for (uint32_t i = 0; i < n; i++) {
		blox__admin__power_cut_reply__init(&rs[i]);
		rs[i].nqn = (char *)cuts[i].ns->subsys->nqn;
		rs[i].nsid = cuts[i].ns->nsid;
		power_cut_fill(&rs[i], &cuts[i].cut);
		rp[i] = &rs[i];
		out.controllers_dropped += rs[i].controllers_dropped;
		out.flash_ops_dropped += rs[i].flash_ops_dropped;
		out.programs_torn += rs[i].programs_torn;
		out.commands_failed += rs[i].commands_failed;
		out.recovered_units += rs[i].recovered_units;
		out.rebuild_ms += rs[i].rebuild_ms;
		out.superblocks_retired += rs[i].superblocks_retired;
		out.bytes_lost += rs[i].bytes_lost;
		out.bytes_buffered += rs[i].bytes_buffered;
		out.unsafe_shutdowns += rs[i].unsafe_shutdowns;
		/* The device's one hold-up: that of each protected vSSD on it. */
		if (rs[i].holdup_ms > out.holdup_ms)
			out.holdup_ms = rs[i].holdup_ms;
		if (rs[i].holdup_used_ms > out.holdup_used_ms)
			out.holdup_used_ms = rs[i].holdup_used_ms;
	}
	out.namespaces = rp;
	out.n_namespaces = n;
	closure(&out, d);
	free(cuts);
	free(rs);
	free(rp);
}

static void m_power_cut(ADM_SVC *svc, const Blox__Admin__PowerCutRequest *in,
			Blox__Admin__PowerCutReply_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__PowerCutReply out = BLOX__ADMIN__POWER_CUT_REPLY__INIT;
	struct prov_power_cut pc;
	struct nvmf_subsys *s;
	struct nvmf_ns *ns;
	char err[512];
	int rc;

	if (in->device && in->device[0]) {
		if ((in->nqn && in->nqn[0]) || in->nsid)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "power cut: a device or a namespace (NQN NSID), not both");
		power_cut_device(a, in, closure, d);
		return;
	}
	s = adm_find_subsys(a, ADM_REQ(d), in->nqn);
	if (!s)
		ADM_FAILED(closure, d);
	ns = nvmf_ns_find(s, in->nsid);
	if (!ns)
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "namespace %u not found in %s", in->nsid,
			 in->nqn);
	rc = prov_ns_power_cut(a->prov, ns, &pc, err, sizeof(err));
	if (rc)
		ADM_FAIL(closure, d,
			 rc == -EOPNOTSUPP || rc == -EBUSY ? ADM_S_FAILED_PRECONDITION : ADM_S_INTERNAL,
			 "%s", err);
	out.nqn = (char *)in->nqn;
	out.nsid = in->nsid;
	power_cut_fill(&out, &pc);
	closure(&out, d);
}

void adm_m_fault_init(ADM_SVC *svc)
{
	svc->power_cut = m_power_cut;
	svc->inject_fault = m_fault_inject;
	svc->list_faults = m_fault_list;
	svc->clear_faults = m_fault_clear;
}
