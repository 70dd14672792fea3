/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A namespace's drive loses power and comes back (bloxctl fault power-cut):
 * the hosts' connections drop first, so no completion reaches them from a
 * drive without power, then the backend is cut and rebuilt from flash, and
 * the namespace's SMART counts take the power cycle and the unsafe
 * shutdown it was. A vSSD on a registered device loses power alone: only
 * its own flash ops are cut, its neighbours on the device serve on.
 */
#include "prov.h"
#include "blox_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int prov_ns_power_cut(struct blox_prov *p, struct nvmf_ns *ns, struct prov_power_cut *out,
		      char *err, size_t errlen)
{
	const struct prov_ns_rec *rec = prov_ns_rec(ns);
	int rc;

	memset(out, 0, sizeof(*out));
	if (!ns->bdev->ops->power_cut) {
		snprintf(err, errlen, "namespace %u of %s: its backend (%s) has no power to cut",
			 ns->nsid, ns->subsys->nqn, ns->bdev->ops->name);
		return -EOPNOTSUPP;
	}
	if (rec && rec->dev) {
		const struct prov_mig *m = prov_mig_of(p, rec->dev->cfg.name, rec->owner);

		if (m && m->state != PM_QUEUED) {
			snprintf(err, errlen,
				 "namespace %u of %s: its vSSD on %s has migration job %u %s: "
				 "cancel it or wait for it to end (bloxctl migrate status)",
				 ns->nsid, ns->subsys->nqn, rec->dev->cfg.name, m->id,
				 prov_mig_state_name(m->state));
			return -EBUSY;
		}
	}
	/* Refused before anything happens: bad input costs the hosts nothing. */
	rc = blox_bdev_power_cut(ns->bdev, true, &out->bdev);
	if (!rc) {
		out->ctrls_dropped = nvmf_subsys_drop_ctrls(ns->subsys, "power cut");
		rc = blox_bdev_power_cut(ns->bdev, false, &out->bdev);
	}
	if (rc == -EOPNOTSUPP || rc == -EBUSY || rc == -ENOMEM) {
		snprintf(err, errlen, "namespace %u of %s: %s", ns->nsid, ns->subsys->nqn,
			 rc == -ENOMEM ? "out of memory, nothing was cut"
			 : out->bdev.refused ? out->bdev.refused
					     : "its backend cannot lose power");
		return rc;
	}
	ns->health.power_cycles++;
	ns->health.unsafe_shutdowns++;
	out->unsafe_shutdowns = ns->health.unsafe_shutdowns;
	blox_log(p->log, rc ? BLOX_LOG_ERR : BLOX_LOG_INFO,
		 "namespace %u of %s%s%s: power cut, %u controllers dropped, rebuilt %s",
		 ns->nsid, ns->subsys->nqn, rec && rec->dev ? ", a vSSD on " : "",
		 rec && rec->dev ? rec->dev->cfg.name : "", out->ctrls_dropped,
		 rc ? "FAILED" : "from flash");
	if (rc)
		snprintf(err, errlen, "namespace %u of %s: the rebuild from flash failed: %s",
			 ns->nsid, ns->subsys->nqn, strerror(-rc));
	return rc;
}
