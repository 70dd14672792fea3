/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zns/: the zones of a zoned namespace (NVMe Zoned Namespace Command Set)
 * laid on emulated NAND. Pure: no I/O, no clock, no allocation after
 * zns_create().
 *
 * Layout. A zone is block b on every (die, plane) of the namespace, as the
 * FTL's superblock (ftl/layout.c): zone z is block first_block + z of each
 * of them. Its pages stripe across dies first, then planes, then pages of
 * the block, so that consecutive pages of a zone land on different dies.
 * A NAND page holds page_size / 4096 logical blocks ("slots").
 *
 * Sizes are in logical blocks (LBAs) of 4096 bytes. The zone size is a
 * power of two (Linux requires it); the zone capacity is what the zone's
 * blocks hold less a reserve of pages the backend keeps for flushes of a
 * partial page (zns_layout()), so capacity <= size and the LBAs
 * [zslba + cap, zslba + size) of each zone are never writable.
 *
 * States and transitions follow the NVMe ZNS specification (Zone State
 * Machine): Empty, Implicitly Opened, Explicitly Opened, Closed, Full,
 * Read Only, Offline; an open zone holds an open and an active resource, a
 * closed zone an active one; Max Open / Max Active Resources (0: no
 * limit). A write that needs an open resource when none is left implicitly
 * closes the implicitly opened zone opened longest ago, as the spec lets a
 * controller do; if there is none it fails with Too Many Open Zones.
 */
#ifndef BLOX_ZNS_H
#define BLOX_ZNS_H

#include <stdbool.h>
#include <stdint.h>

#include "nand.h"

#define ZNS_LBA_SIZE 4096u

/* Zone states, by their value in a Zone Descriptor (Zone State field, bits 7:4). */
enum zns_state {
	ZNS_EMPTY = 0x1,
	ZNS_IOPEN = 0x2, /* implicitly opened */
	ZNS_EOPEN = 0x3, /* explicitly opened */
	ZNS_CLOSED = 0x4,
	ZNS_RONLY = 0xd,
	ZNS_FULL = 0xe,
	ZNS_OFFLINE = 0xf,
};

/*
 * Outcomes, by their NVMe status: (Status Code Type << 8) | Status Code.
 * Generic (SCT 0) and the ZNS command specific ones (SCT 1).
 */
enum zns_status {
	ZNS_OK = 0x000,
	ZNS_INVALID_FIELD = 0x002,
	ZNS_LBA_RANGE = 0x080,
	ZNS_BOUNDARY = 0x1b8, /* Zone Boundary Error */
	ZNS_ZONE_FULL = 0x1b9, /* Zone Is Full */
	ZNS_ZONE_RONLY = 0x1ba, /* Zone Is Read Only */
	ZNS_ZONE_OFFLINE = 0x1bb, /* Zone Is Offline */
	ZNS_INVALID_WRITE = 0x1bc, /* Zone Invalid Write */
	ZNS_TOO_MANY_ACTIVE = 0x1bd,
	ZNS_TOO_MANY_OPEN = 0x1be,
	ZNS_INVALID_TRANSITION = 0x1bf,
};

/* Zone Management Send actions, by their value (Zone Send Action). */
enum zns_action {
	ZNS_ACT_CLOSE = 0x1,
	ZNS_ACT_FINISH = 0x2,
	ZNS_ACT_OPEN = 0x3,
	ZNS_ACT_RESET = 0x4,
	ZNS_ACT_OFFLINE = 0x5,
};

/* Zone Attributes bits of a descriptor. */
#define ZNS_ATTR_ZFC 0x01u /* Zone Finished by Controller */

struct zns_layout {
	uint32_t ndies, planes, slots; /* slots: LBAs per NAND page */
	uint32_t pages_per_block;
	uint32_t first_block, nr_zones; /* zone z = block first_block + z */
	uint32_t zone_pages; /* NAND pages a zone's blocks hold */
	uint32_t reserve_pages; /* of them, kept for flushes of a partial page */
	uint64_t zone_size; /* LBAs, a power of two */
	uint64_t zone_cap; /* LBAs, <= zone_size */
};

/*
 * The layout of a zoned namespace on @ndies dies of @g and @nr_blocks
 * blocks per plane from @first_block. @zone_size: 0 for the smallest power
 * of two holding the zone's capacity, else a power of two (LBAs); a size
 * below what the blocks hold makes the capacity that size (the rest of the
 * blocks unused). @reserve_pages pages of each zone are kept back from the
 * capacity. 0; -EINVAL with a reason in @why.
 */
int zns_layout(const struct nand_geometry *g, uint32_t ndies, uint32_t first_block,
	       uint32_t nr_blocks, uint64_t zone_size, uint32_t reserve_pages,
	       struct zns_layout *out, const char **why);

/*
 * The pages of a zone on @ndies dies of @g that a backend keeps for
 * flushes of a partial page (each flushed partial page costs one): a
 * sixteenth of the zone's pages, in whole rows of a page on every die and
 * plane, at least one row.
 */
uint32_t zns_reserve_pages(const struct nand_geometry *g, uint32_t ndies);

/*
 * The NAND address of page @pidx (0..zone_pages) of zone @zone, with the
 * namespace's die slot in @slot (the caller turns it into its die).
 */
void zns_page_addr(const struct zns_layout *l, uint32_t zone, uint32_t pidx,
		   uint32_t *slot, uint32_t *plane, uint32_t *block, uint32_t *page);

struct zns_zone {
	enum zns_state state;
	uint8_t attrs; /* ZNS_ATTR_* */
	uint64_t wp; /* write pointer, an LBA; zslba + zone_cap when Full */
	uint64_t open_seq; /* when it was implicitly opened (to pick one to close) */
	uint64_t changed; /* zns_changes() when the controller last changed it by itself; 0: never */
};

struct zns_counts {
	uint32_t by_state[16]; /* zones per state value */
	uint32_t open, active; /* resources held */
};

struct zns;

/*
 * The zones of @l, every one Empty; limits 0: none (else at most nr_zones).
 * 0, -EINVAL or -ENOMEM.
 */
int zns_create(const struct zns_layout *l, uint32_t max_open, uint32_t max_active,
	       struct zns **out);
void zns_destroy(struct zns *z);
const struct zns_layout *zns_get_layout(const struct zns *z);
uint32_t zns_max_open(const struct zns *z);
uint32_t zns_max_active(const struct zns *z);
uint64_t zns_nlbas(const struct zns *z); /* nr_zones * zone_size */
const struct zns_zone *zns_zone(const struct zns *z, uint32_t zone);
uint32_t zns_zone_of(const struct zns *z, uint64_t lba);
uint64_t zns_zslba(const struct zns *z, uint32_t zone);
void zns_counts(const struct zns *z, struct zns_counts *c);

/*
 * A write of @nlb LBAs at @slba: checked and, on ZNS_OK, done to the
 * zones (the write pointer advances past it, the zone is opened and
 * becomes Full at its capacity); on an error nothing changes. @implicitly_closed
 * (may be NULL) gets the zone implicitly closed to make room, or UINT32_MAX.
 */
enum zns_status zns_write(struct zns *z, uint64_t slba, uint32_t nlb,
			  uint32_t *implicitly_closed);
/* Zone Append to the zone starting at @zslba: the LBA written in *@lba. */
enum zns_status zns_append(struct zns *z, uint64_t zslba, uint32_t nlb, uint64_t *lba,
			   uint32_t *implicitly_closed);
/* A read of @nlb LBAs at @slba (reads may cross zones; not an Offline one). */
enum zns_status zns_read_check(const struct zns *z, uint64_t slba, uint32_t nlb);

/*
 * Zone Management Send's @act on one zone. Reset leaves the zone Empty
 * (the caller erases its blocks); Offline applies to a Read Only zone.
 * Doing what is already so (open an open zone, close a closed one, finish
 * a full one, reset an empty one) succeeds and changes nothing.
 */
enum zns_status zns_action(struct zns *z, enum zns_action act, uint32_t zone);
/*
 * Whether Select All applies @act to @zone: close the open zones, finish
 * open and closed ones, open closed ones, reset open, closed and full
 * ones, offline read only ones.
 */
bool zns_action_selects(const struct zns *z, enum zns_action act, uint32_t zone);

/*
 * What the backend found or decided: @zone becomes Read Only or Offline
 * (a failed program or erase), or is finished by the controller (ZFC set).
 */
void zns_zone_fail(struct zns *z, uint32_t zone, enum zns_state to);
void zns_zone_finish_by_ctrl(struct zns *z, uint32_t zone);
/*
 * The media of @zone is whole again (a die gone offline came back as a
 * new, erased one): the zone is Empty, whatever its state, its write
 * pointer at its start; a change of the controller's own, as the two above.
 */
void zns_zone_revive(struct zns *z, uint32_t zone);
/*
 * The changes the controller made to zones by itself (the two above) since
 * the zones were made: the Changed Zone List's and its notice's source.
 */
uint64_t zns_changes(const struct zns *z);
/* The zones last changed after change count @since: up to @max of their ZSLBAs into @out; returns how many in all. */
uint32_t zns_changed_since(const struct zns *z, uint64_t since, uint64_t *out, uint32_t max);
/*
 * After a restart: @zone's write pointer recovered as @wp (LBA): Empty at
 * its start, Full at its capacity (or if @full), else Closed.
 */
void zns_zone_restore(struct zns *z, uint32_t zone, uint64_t wp, bool full);

/* Report filter (Zone Receive Action Specific), by value. */
enum zns_report {
	ZNS_REP_ALL = 0x0,
	ZNS_REP_EMPTY = 0x1,
	ZNS_REP_IOPEN = 0x2,
	ZNS_REP_EOPEN = 0x3,
	ZNS_REP_CLOSED = 0x4,
	ZNS_REP_FULL = 0x5,
	ZNS_REP_RONLY = 0x6,
	ZNS_REP_OFFLINE = 0x7,
};
/* Whether @zone is reported under @filter; false for an unknown filter. */
bool zns_report_matches(const struct zns *z, enum zns_report filter, uint32_t zone);

const char *zns_state_name(enum zns_state s);

#endif /* BLOX_ZNS_H */
