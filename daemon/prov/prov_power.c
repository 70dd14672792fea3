/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A namespace's drive loses power and comes back (bloxctl fault power-cut):
 * the hosts' connections drop first, so no completion reaches them from a
 * drive without power, then the backend is cut and rebuilt from flash, and
 * the namespace's SMART counts take the power cycle and the unsafe
 * shutdown it was. A vSSD on a registered device loses power alone: only
 * its own flash ops are cut, its neighbours on the device serve on; one
 * with power-loss protection only with its whole device (a drive's
 * capacitors hold the drive), whose cut holds up for all of them. A vSSD
 * whose die migrates is rebuilt with the migration where its flash says it
 * was, and the job carries on as after a restart (prov_mig_resumed()).
 */
#include "prov.h"
#include "blox_log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int prov_ns_power_cut(struct blox_prov *p, struct nvmf_ns *ns, struct prov_power_cut *out,
		      char *err, size_t errlen)
{
	const struct prov_ns_rec *rec = prov_ns_rec(ns);
	struct prov_mig *m = rec && rec->dev ? prov_mig_of(p, rec->dev->cfg.name, rec->owner) : NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!ns->bdev->ops->power_cut) {
		snprintf(err, errlen, "namespace %u of %s: its backend (%s) has no power to cut",
			 ns->nsid, ns->subsys->nqn, ns->bdev->ops->name);
		return -EOPNOTSUPP;
	}
	/* Refused before anything happens: bad input costs the hosts nothing. */
	rc = blox_bdev_power_cut(ns->bdev, true, &out->bdev);
	if (!rc) {
		out->ctrls_dropped = nvmf_subsys_drop_ctrls(ns->subsys, "power cut");
		nvmf_ns_fdp_power_cut(ns, false);
		rc = blox_bdev_power_cut(ns->bdev, false, &out->bdev);
		nvmf_ns_fdp_power_cut(ns, true);
	}
	if (rc == -EOPNOTSUPP || rc == -EBUSY || rc == -ENOMEM) {
		snprintf(err, errlen, "namespace %u of %s%s%s%s: %s", ns->nsid, ns->subsys->nqn,
			 rec && rec->dev ? " (a vSSD on device " : "",
			 rec && rec->dev ? rec->dev->cfg.name : "", rec && rec->dev ? ")" : "",
			 rc == -ENOMEM ? "out of memory, nothing was cut"
			 : out->bdev.refused ? out->bdev.refused
					     : "its backend cannot lose power");
		return rc;
	}
	/* What a drive keeps of its reservations through a power loss: PTPL's. */
	nvmf_ns_resv_power_lost(ns);
	/* A migration under way: the rebuilt FTL took it back (as after a restart). */
	if (m)
		prov_mig_resumed(p, m);
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

/* May @ns of device @d lose power? 0, or -errno with the reason in @err. */
static int vssd_check(const struct prov_device *d, struct nvmf_ns *ns, char *err, size_t errlen)
{
	struct blox_bdev_power_cut chk;
	int rc;

	if (!ns->bdev->ops->power_cut) {
		snprintf(err, errlen, "namespace %u of %s on %s: its backend (%s) has no power to cut",
			 ns->nsid, ns->subsys->nqn, d->cfg.name, ns->bdev->ops->name);
		return -EOPNOTSUPP;
	}
	if (strcmp(ns->bdev->ops->name, "nand") && strcmp(ns->bdev->ops->name, "zns")) {
		snprintf(err, errlen,
			 "namespace %u of %s on %s: a %s vSSD is not cut with its device yet (cut it "
			 "alone: bloxctl fault power-cut %s %u)",
			 ns->nsid, ns->subsys->nqn, d->cfg.name, ns->bdev->ops->name, ns->subsys->nqn,
			 ns->nsid);
		return -EOPNOTSUPP;
	}
	rc = blox_bdev_power_cut_check(ns->bdev, true, &chk);
	if (rc)
		snprintf(err, errlen, "namespace %u of %s on %s: %s", ns->nsid, ns->subsys->nqn,
			 d->cfg.name,
			 chk.refused ? chk.refused : rc == -ENODEV ? "not serving" : strerror(-rc));
	return rc == -ENODEV ? -EOPNOTSUPP : rc;
}

int prov_device_power_cut(struct blox_prov *p, const char *name, struct prov_dev_power_cut *outs,
			  uint32_t max, uint32_t *n, char *err, size_t errlen)
{
	struct prov_device *d = prov_device_find(p, name);
	struct blox_bdev_power_cut *cuts;
	struct blox_bdev **bdevs;
	struct prov_vssd *v;
	uint32_t k = 0;
	int rc = 0;

	*n = 0;
	if (!d) {
		snprintf(err, errlen, "device %s not found", name);
		return -ENOENT;
	}
	TAILQ_FOREACH(v, &d->vssds, link) {
		struct nvmf_subsys *s = v->claimed ? nvmf_subsys_find(p->tgt, v->nqn) : NULL;
		struct nvmf_ns *ns = s ? nvmf_ns_find(s, v->nsid) : NULL;

		if (!ns)
			continue;
		if (k == max) {
			snprintf(err, errlen, "device %s: more than %u vSSDs", name, max);
			return -E2BIG;
		}
		rc = vssd_check(d, ns, err, errlen);
		if (rc)
			return rc;
		memset(&outs[k], 0, sizeof(outs[k]));
		outs[k].mig = prov_mig_of(p, d->cfg.name, v->id);
		outs[k++].ns = ns;
	}
	bdevs = calloc(k ? k : 1, sizeof(*bdevs));
	cuts = calloc(k ? k : 1, sizeof(*cuts));
	if (!bdevs || !cuts) {
		free(bdevs);
		free(cuts);
		snprintf(err, errlen, "out of memory, nothing was cut");
		return -ENOMEM;
	}
	/* The hosts' connections first: no completion from a device without power. */
	for (uint32_t i = 0; i < k; i++) {
		bool seen = false;

		for (uint32_t j = 0; j < i && !seen; j++)
			seen = outs[j].ns->subsys == outs[i].ns->subsys;
		if (!seen)
			outs[i].cut.ctrls_dropped =
				nvmf_subsys_drop_ctrls(outs[i].ns->subsys, "power cut of its device");
		bdevs[i] = outs[i].ns->bdev;
		nvmf_ns_fdp_power_cut(outs[i].ns, false);
	}
	if (k)
		rc = blox_nand_dev_power_cut(d->dev, bdevs, k, cuts);
	for (uint32_t i = 0; i < k; i++) {
		struct nvmf_ns *ns = outs[i].ns;

		outs[i].cut.bdev = cuts[i];
		if (rc == -ENOMEM && !cuts[i].rebuild_ns && !cuts[i].recovered_units)
			continue; /* not cut */
		nvmf_ns_resv_power_lost(ns);
		nvmf_ns_fdp_power_cut(ns, true);
		if (outs[i].mig)
			prov_mig_resumed(p, outs[i].mig);
		ns->health.power_cycles++;
		ns->health.unsafe_shutdowns++;
		outs[i].cut.unsafe_shutdowns = ns->health.unsafe_shutdowns;
	}
	free(bdevs);
	free(cuts);
	*n = k;
	blox_log(p->log, rc ? BLOX_LOG_ERR : BLOX_LOG_INFO,
		 "device %s: power cut, %u vSSDs %s", name, k,
		 rc ? "not all rebuilt" : "rebuilt from flash");
	if (rc)
		snprintf(err, errlen, "device %s: %s", name,
			 rc == -ENOMEM ? "out of memory, some vSSDs not cut"
				       : "a rebuild from flash failed (see the log)");
	return rc;
}
