/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin methods of faults on demand: PowerCut (bloxctl fault power-cut),
 * a namespace's drive losing power and coming back (prov_power.c).
 */
#include "adm_internal.h"

#include <errno.h>

static void m_power_cut(ADM_SVC *svc, const Blox__Admin__PowerCutRequest *in,
			Blox__Admin__PowerCutReply_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_subsys *s = adm_find_subsys(a, ADM_REQ(d), in->nqn);
	Blox__Admin__PowerCutReply out = BLOX__ADMIN__POWER_CUT_REPLY__INIT;
	struct prov_power_cut pc;
	struct nvmf_ns *ns;
	char err[256];
	int rc;

	if (!s)
		ADM_FAILED(closure, d);
	ns = nvmf_ns_find(s, in->nsid);
	if (!ns)
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "namespace %u not found in %s", in->nsid,
			 in->nqn);
	rc = prov_ns_power_cut(a->prov, ns, &pc, err, sizeof(err));
	if (rc)
		ADM_FAIL(closure, d, rc == -EOPNOTSUPP ? ADM_S_FAILED_PRECONDITION : ADM_S_INTERNAL,
			 "%s", err);
	out.nqn = (char *)in->nqn;
	out.nsid = in->nsid;
	out.controllers_dropped = pc.ctrls_dropped;
	out.flash_ops_dropped = pc.bdev.ops_dropped;
	out.programs_torn = pc.bdev.programs_torn;
	out.commands_failed = pc.bdev.cmds_failed;
	out.recovered_units = pc.bdev.recovered_units;
	out.rebuild_ms = pc.bdev.rebuild_ns / 1e6;
	out.unsafe_shutdowns = pc.unsafe_shutdowns;
	out.superblocks_retired = pc.bdev.superblocks_retired;
	closure(&out, d);
}

void adm_m_fault_init(ADM_SVC *svc)
{
	svc->power_cut = m_power_cut;
}
