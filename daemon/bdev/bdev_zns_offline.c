/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "zns" backend losing a die (docs/FAULTS.md, "Zoned namespaces on
 * failing flash"): a die-offline fault, or nand_die_set_offline(), on a die
 * the namespace has.
 *
 * Every zone is a row of blocks, one on each die and plane of the
 * namespace, its pages striped over the dies: a die gone takes a share of
 * every zone's data and of every zone's capacity. No zone can be read
 * whole or written to its capacity any more, so every zone goes Offline,
 * as a ZNS drive reports zones whose media is gone: reads, writes, appends
 * and resets get Zone Is Offline (SCT 1h, SC BBh), Report Zones shows them
 * Offline, and the change is the controller's own (the Changed Zone List,
 * the Zone Descriptor Changed notice). Commands whose flash ops were on the
 * die when it went fail (a read: Unrecovered Read Error; a write: Write
 * Fault). The device keeps the die offline in its store, so a restart, a
 * kill -9 or a power cut finds it gone and the zones Offline again without
 * reading the flash (zb_dieoff_start()).
 *
 * Back (the fault cleared): the device replaced the die with an empty one,
 * and what the other dies hold of each zone is a part of data the host was
 * told is gone. The backend erases its rows on the other dies and every
 * zone comes back Empty with its whole capacity, listed in the Changed
 * Zone List, as after a format: a repaired drive that gives its capacity
 * back. Zones that the bad rows leave no room for are Offline again, as at
 * a start (zb_fail_start()).
 */
#include "bdev_zns.h"
#include "blox_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Whether a die @zb has (or moves a slot to) is offline now; asking brings back a cleared one. */
static bool any_die_offline(struct zns_bdev *zb)
{
	bool any = false;

	for (uint32_t s = 0; s < zb->l.ndies; s++)
		any |= nand_die_offline(zb->dev, zb->dies[s]);
	if (zb->mig.active)
		any |= nand_die_offline(zb->dev, zb->mig.dst);
	return any;
}

/* Every zone Offline, its buffered partial page dropped (its data is gone with the rest). */
static void all_offline(struct zns_bdev *zb)
{
	for (uint32_t zone = 0; zone < zb->l.nr_zones; zone++) {
		struct zb_zone *zz = &zb->zones[zone];

		free(zz->buf);
		zz->buf = NULL;
		zz->buf_fill = 0;
		zz->buf_durable = 0;
		if (zns_zone(zb->z, zone)->state != ZNS_OFFLINE)
			zns_zone_fail(zb->z, zone, ZNS_OFFLINE);
	}
}

static void gone(struct zns_bdev *zb)
{
	zb->die_gone = true;
	all_offline(zb);
	blox_log(zb->log, BLOX_LOG_ERR,
		 "zns: a die of the namespace went offline: its %u zones are offline", zb->l.nr_zones);
	/* Writes that waited for a reset or a row's copy are refused now. */
	zb_resubmit_waiting(zb);
}

/* The die is back, new and empty: every row erased, every zone Empty. 0, or -EAGAIN: ops in flight. */
static int back(struct zns_bdev *zb)
{
	int rc = 0;

	if (!TAILQ_EMPTY(&zb->ops) || zb->mig.active)
		return -EAGAIN; /* asked again at the next command or report */
	for (uint32_t r = 0; r < zb->nr_rows && !rc; r++) {
		rc = zb_row_erase(zb, r);
		zb->row_zone[r] = ZB_NONE;
	}
	if (!rc)
		rc = zb->store->ops->sync(zb->store);
	if (rc) {
		blox_log(zb->log, BLOX_LOG_ERR,
			 "zns: a die came back but its rows could not be erased (%d): the zones "
			 "stay offline",
			 rc);
		return rc;
	}
	memset(zb->l2p, 0xff, (uint64_t)zb->l.nr_zones * zb->lpages * sizeof(*zb->l2p));
	zb_plm_rebuild(zb); /* no row waits for a deferred erase: all were erased */
	for (uint32_t zone = 0; zone < zb->l.nr_zones; zone++) {
		zb->zones[zone].row = ZB_NONE;
		zb->zones[zone].pnext = 0;
		zb->zones[zone].resetting = false;
		zb->zones[zone].reset_marked = false;
		zns_zone_revive(zb->z, zone);
	}
	zb_fail_start(zb);
	zb->die_gone = false;
	blox_log(zb->log, BLOX_LOG_WARN,
		 "zns: the die came back replaced (empty): the %u zones are empty again, their "
		 "old data erased",
		 zb->l.nr_zones);
	return 0;
}

void zb_dieoff_poll(struct zns_bdev *zb)
{
	bool off;

	if (!zb->z)
		return;
	off = any_die_offline(zb);
	if (off && !zb->die_gone)
		gone(zb);
	else if (!off && zb->die_gone)
		back(zb);
}

bool zb_dieoff_start(struct zns_bdev *zb)
{
	if (!any_die_offline(zb))
		return false;
	zb->die_gone = true;
	all_offline(zb);
	blox_log(zb->log, BLOX_LOG_WARN,
		 "zns: a die of the namespace is offline (kept by the device): its %u zones are "
		 "offline until the fault is cleared",
		 zb->l.nr_zones);
	return true;
}
