/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The parameters of a zoned namespace (backend zns): its zones checked
 * against its NAND geometry, and a device of its own sized to them. The
 * zone layout is zns/'s (zns_layout()), with the reserve of pages the
 * backend keeps for flushed partial pages (zns_reserve_pages()).
 */
#include "conf.h"
#include "zns.h"

#include <stdio.h>

uint64_t blox_zns_zone_bytes(const struct nand_geometry *g, uint32_t ndies,
			     const struct blox_zns_params *z)
{
	struct zns_layout l;
	const char *why;

	if (zns_layout(g, ndies, 0, 1, z->zone_size / ZNS_LBA_SIZE, zns_reserve_pages(g, ndies),
		       &l, &why))
		return 0;
	return l.zone_size * ZNS_LBA_SIZE;
}

int blox_zns_resolve(struct blox_cfg_ns *ns, const char *where, char *err, size_t errlen)
{
	const struct blox_zns_params *z = &ns->params.zns;
	struct nand_geometry *g = &ns->nand.geo;
	struct zns_layout l;
	uint64_t zone_bytes, zones;
	const char *why;

	ns->zoned = true;
	if (ns->block_size != ZNS_LBA_SIZE)
		return blox_fail(err, errlen, "%s.block_size: a zoned namespace has %u-byte blocks",
				 where, ZNS_LBA_SIZE);
	if (z->zone_size && (z->zone_size < ZNS_LBA_SIZE || (z->zone_size & (z->zone_size - 1))))
		return blox_fail(err, errlen,
				 "%s.zns.zone_size: must be a power of two of at least %u bytes",
				 where, ZNS_LBA_SIZE);
	if (z->max_open && z->max_active && z->max_open > z->max_active)
		return blox_fail(err, errlen, "%s.zns.max_open: more than max_active (%u)", where,
				 z->max_active);
	/* On a device: its zones are laid once its dies are known (the provisioning's plan). */
	if (ns->device[0])
		return 0;
	if (zns_layout(g, nand_dies(g), 0, 1, z->zone_size / ZNS_LBA_SIZE,
		       zns_reserve_pages(g, nand_dies(g)), &l, &why))
		return blox_fail(err, errlen, "%s.nand: no zones on this geometry: %s", where, why);
	zone_bytes = l.zone_size * ZNS_LBA_SIZE;
	if (ns->size % zone_bytes)
		return blox_fail(err, errlen,
				 "%s.size: a zoned namespace is whole zones, of %llu bytes here "
				 "(%llu writable)",
				 where, (unsigned long long)zone_bytes,
				 (unsigned long long)l.zone_cap * ZNS_LBA_SIZE);
	zones = ns->size / zone_bytes;
	if (ns->auto_blocks) {
		g->blocks_per_plane = (uint32_t)(zones + (zones + 7) / 8);
		if (zones > (1u << 20) || nand_geometry_check(g, &why))
			return blox_fail(err, errlen, "%s.size: %llu zones do not fit a NAND geometry",
					 where, (unsigned long long)zones);
	} else if (zones > g->blocks_per_plane) {
		return blox_fail(err, errlen,
				 "%s.size: %llu zones, more than the %u blocks of a plane (a zone "
				 "is a block on every die and plane)",
				 where, (unsigned long long)zones, g->blocks_per_plane);
	}
	if (z->max_open > zones || z->max_active > zones)
		return blox_fail(err, errlen, "%s.zns: Max Open or Active above its %llu zones",
				 where, (unsigned long long)zones);
	return 0;
}
