/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Planning a configuration's shared devices before anything is made: each
 * namespace on a device takes its NAND configuration, and a dry run on a
 * fresh resource manager per device (FlashBlox: ftl/include/flashblox.h)
 * places them in config order, so that a file that can never be placed is
 * refused whole. The provisioning service plans the same way when it
 * makes them.
 */
#include "conf.h"

#include <errno.h>
#include <string.h>

/*
 * Would the namespaces the configuration puts on device @di fit on it, in
 * config order, on a device as new? A file that can never be placed is
 * refused whole, before anything is made.
 */
static int plan_device(struct blox_config *cfg, size_t di, char *err, size_t errlen)
{
	const struct blox_cfg_device *d = &cfg->devices[di];
	struct fbx_rm *rm;
	uint32_t id = 0;
	int rc = 0;

	if ((rc = fbx_rm_create(&d->nand.geo, &d->fbx, &rm)))
		return blox_fail(err, errlen, "device %s: %s", d->name, strerror(-rc));
	for (size_t si = 0; !rc && si < cfg->nr_subsys; si++)
		for (size_t n = 0; !rc && n < cfg->subsys[si].nr_ns; n++) {
			const struct blox_cfg_ns *ns = &cfg->subsys[si].ns[n];
			struct fbx_ask ask = { .iso = ns->iso,
					       .count = ns->iso_count,
					       .units = ns->size / FTL_UNIT };
			struct fbx_alloc a;
			char why[200];

			if (strcmp(ns->device, d->name))
				continue;
			rc = fbx_plan(rm, &ask, &ns->ftl, &a, why, sizeof(why));
			if (!rc)
				rc = fbx_take(rm, ++id, &a, why, sizeof(why));
			if (rc)
				blox_fail(err, errlen, "%s namespace %u: device %s: %s",
					  cfg->subsys[si].nqn, ns->nsid, d->name, why);
		}
	fbx_rm_destroy(rm);
	return rc ? -EINVAL : 0;
}

/* Namespaces on a device take its NAND configuration; the device must be there. */
int blox_config_plan(struct blox_config *cfg, char *err, size_t errlen)
{
	for (size_t si = 0; si < cfg->nr_subsys; si++)
		for (size_t n = 0; n < cfg->subsys[si].nr_ns; n++) {
			struct blox_cfg_ns *ns = &cfg->subsys[si].ns[n];
			size_t di;

			if (!ns->device[0])
				continue;
			for (di = 0; di < cfg->nr_devices; di++)
				if (!strcmp(cfg->devices[di].name, ns->device))
					break;
			if (di == cfg->nr_devices)
				return blox_fail(err, errlen, "%s namespace %u: no device '%s'",
						 cfg->subsys[si].nqn, ns->nsid, ns->device);
			ns->nand = cfg->devices[di].nand;
		}
	for (size_t di = 0; di < cfg->nr_devices; di++) {
		int rc = plan_device(cfg, di, err, errlen);

		if (rc)
			return rc;
	}
	return 0;
}
