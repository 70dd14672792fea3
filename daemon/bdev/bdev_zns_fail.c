/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "zns" backend on failing flash (docs/FAULTS.md, "Zoned namespaces
 * on failing flash"). A zone has no FTL to hide a bad block behind: its
 * data sits in place on its row, so a row with a bad block is worth
 * nothing to a new zone, and a zone whose row goes bad under it keeps only
 * what was programmed before.
 *
 * - A program that fails (injected, or drawn by the reliability model)
 *   fails its command and makes the zone Read Only (bdev_zns_io.c): what
 *   was written before reads back, writes are refused (Zone Is Read Only)
 *   and the host learns it from the zone's descriptor and the Changed
 *   Zone List. At the next start, a zone whose row holds a bad block is
 *   Read Only again (zb_fail_start()).
 * - A row with a bad block is never taken by a zone again (zb_row_bad(),
 *   asked by zb_row_take()), and the start-up's fillers and erases leave
 *   its bad blocks alone.
 * - Factory bad blocks: rows past the zones' count are spares, so bad rows
 *   cost nothing while spares last. With more bad rows than spares, as
 *   many Empty zones as the good rows cannot hold start Offline, as a ZNS
 *   drive reports its bad zones: first those whose own row (zone z, row z)
 *   is bad, then the highest numbered.
 */
#include "bdev_zns.h"
#include "blox_log.h"

bool zb_block_bad(const struct zns_bdev *zb, uint32_t row, uint32_t pidx)
{
	struct nand_addr a;

	zb_addr(zb, row, pidx, &a);
	return zb->store->blocks[nand_block_index(zb->geo, &a)].flags & NAND_BLOCK_BAD;
}

bool zb_row_bad(const struct zns_bdev *zb, uint32_t row)
{
	uint32_t stripe = zb->l.ndies * zb->l.planes;

	for (uint32_t s = 0; s < stripe; s++)
		if (zb_block_bad(zb, row, s))
			return true;
	return false;
}

void zb_fail_start(struct zns_bdev *zb)
{
	uint32_t good_free = 0, rowless = 0, ronly = 0, offline = 0, bad_rows = 0;

	for (uint32_t r = 0; r < zb->nr_rows; r++) {
		bool bad = zb_row_bad(zb, r);

		bad_rows += bad;
		if (zb->row_zone[r] == ZB_NONE) {
			good_free += !bad;
			continue;
		}
		if (bad) {
			/* Its data stays readable; it takes no more writes. */
			zns_zone_fail(zb->z, zb->row_zone[r], ZNS_RONLY);
			ronly++;
		}
	}
	for (uint32_t zone = 0; zone < zb->l.nr_zones; zone++)
		rowless += zb->zones[zone].row == ZB_NONE;
	/* Zones their own row's bad block puts Offline first, then from the last zone down. */
	for (uint32_t zone = 0; zone < zb->l.nr_zones && rowless > good_free; zone++) {
		if (zb->zones[zone].row != ZB_NONE || zone >= zb->nr_rows || !zb_row_bad(zb, zone))
			continue;
		zns_zone_fail(zb->z, zone, ZNS_OFFLINE);
		offline++;
		rowless--;
	}
	for (uint32_t zone = zb->l.nr_zones; zone-- > 0 && rowless > good_free;) {
		if (zb->zones[zone].row != ZB_NONE || zns_zone(zb->z, zone)->state == ZNS_OFFLINE)
			continue;
		zns_zone_fail(zb->z, zone, ZNS_OFFLINE);
		offline++;
		rowless--;
	}
	if (bad_rows)
		blox_log(zb->log, offline || ronly ? BLOX_LOG_WARN : BLOX_LOG_INFO,
			 "zns: %u of %u rows have a bad block (%u spare rows): %u zones read only, "
			 "%u offline",
			 bad_rows, zb->nr_rows, zb->nr_rows - zb->l.nr_zones, ronly, offline);
}
