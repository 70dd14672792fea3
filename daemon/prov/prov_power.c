/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A namespace's drive loses power and comes back (bloxctl fault power-cut):
 * the hosts' connections drop first, so no completion reaches them from a
 * drive without power, then the backend is cut and rebuilt from flash, and
 * the namespace's SMART counts take the power cycle and the unsafe
 * shutdown it was.
 */
#include "prov.h"
#include "blox_log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int prov_ns_power_cut(struct blox_prov *p, struct nvmf_ns *ns, struct prov_power_cut *out,
		      char *err, size_t errlen)
{
	int rc;

	memset(out, 0, sizeof(*out));
	if (!ns->bdev->ops->power_cut) {
		snprintf(err, errlen, "namespace %u of %s: its backend (%s) has no power to cut",
			 ns->nsid, ns->subsys->nqn, ns->bdev->ops->name);
		return -EOPNOTSUPP;
	}
	out->ctrls_dropped = nvmf_subsys_drop_ctrls(ns->subsys, "power cut");
	rc = blox_bdev_power_cut(ns->bdev, &out->bdev);
	if (rc == -EOPNOTSUPP) {
		snprintf(err, errlen,
			 "namespace %u of %s: a power cut needs a nand namespace on a device of its "
			 "own with 4096-byte blocks",
			 ns->nsid, ns->subsys->nqn);
		return rc;
	}
	ns->health.power_cycles++;
	ns->health.unsafe_shutdowns++;
	out->unsafe_shutdowns = ns->health.unsafe_shutdowns;
	blox_log(p->log, rc ? BLOX_LOG_ERR : BLOX_LOG_INFO,
		 "namespace %u of %s: power cut, %u controllers dropped, rebuilt %s",
		 ns->nsid, ns->subsys->nqn, out->ctrls_dropped, rc ? "FAILED" : "from flash");
	if (rc)
		snprintf(err, errlen, "namespace %u of %s: the rebuild from flash failed: %s",
			 ns->nsid, ns->subsys->nqn, strerror(-rc));
	return rc;
}
