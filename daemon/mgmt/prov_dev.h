/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A device's deletion (prov_dev.c): its flash goes with it, the store file
 * dev-NAME.nand and its vSSD record dev-NAME.vssd.json, unless kept.
 */
#ifndef BLOX_MGMT_PROV_DEV_H
#define BLOX_MGMT_PROV_DEV_H

#include "prov.h"

/*
 * Delete device @name (no vSSD may be on it): unregistered, its store file
 * and record removed, or kept with @keep_store (a create of the same
 * geometry takes them back). The store file's path in @store (may be
 * NULL). 0, -ENOENT, -EBUSY while vSSDs are on it.
 */
int prov_device_delete(struct blox_prov *p, const char *name, bool keep_store, char *store,
		       size_t len);

#endif
