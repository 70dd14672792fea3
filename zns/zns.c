/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The zone state machine of a zoned namespace and its layout on NAND
 * (see zns.h). Every transition goes through zone_set(), which keeps the
 * open and active resource counts.
 */
#include "zns.h"

#include <errno.h>
#include <stdlib.h>

struct zns {
	struct zns_layout l;
	uint32_t max_open, max_active;
	uint32_t open, active; /* resources held */
	uint64_t seq; /* order of implicit opens */
	uint64_t changes; /* zone changes the controller made by itself */
	struct zns_zone *zones;
};

int zns_layout(const struct nand_geometry *g, uint32_t ndies, uint32_t first_block,
	       uint32_t nr_blocks, uint64_t zone_size, uint32_t reserve_pages,
	       struct zns_layout *out, const char **why)
{
	struct zns_layout l = { 0 };
	uint64_t hold;

	*why = NULL;
	if (g->page_size < ZNS_LBA_SIZE || g->page_size % ZNS_LBA_SIZE)
		*why = "the NAND page size is not a multiple of 4096";
	else if (ndies == 0 || nr_blocks == 0)
		*why = "no dies or no blocks";
	else if ((uint64_t)first_block + nr_blocks > g->blocks_per_plane)
		*why = "blocks past the plane's";
	else if (zone_size && (zone_size & (zone_size - 1)))
		*why = "the zone size is not a power of two";
	if (*why)
		return -EINVAL;
	l.ndies = ndies;
	l.planes = g->planes_per_die;
	l.slots = g->page_size / ZNS_LBA_SIZE;
	l.pages_per_block = g->pages_per_block;
	l.first_block = first_block;
	l.nr_zones = nr_blocks;
	l.zone_pages = g->pages_per_block * ndies * l.planes;
	l.reserve_pages = reserve_pages;
	if (reserve_pages >= l.zone_pages) {
		*why = "the zone's blocks hold no more than its reserve";
		return -EINVAL;
	}
	hold = (uint64_t)(l.zone_pages - reserve_pages) * l.slots;
	if (zone_size == 0) {
		zone_size = 1;
		while (zone_size < hold)
			zone_size <<= 1;
	} else if (zone_size < l.slots) {
		*why = "the zone size is below one NAND page";
		return -EINVAL;
	}
	l.zone_size = zone_size;
	l.zone_cap = hold < zone_size ? hold : zone_size;
	if (l.zone_size > (UINT64_MAX >> 13) / l.nr_zones) {
		*why = "too many LBAs";
		return -EINVAL;
	}
	*out = l;
	return 0;
}

uint32_t zns_reserve_pages(const struct nand_geometry *g, uint32_t ndies)
{
	uint32_t stripe = ndies * g->planes_per_die;
	uint32_t want = stripe * g->pages_per_block / 16;

	return want > stripe ? (want + stripe - 1) / stripe * stripe : stripe;
}

void zns_page_addr(const struct zns_layout *l, uint32_t zone, uint32_t pidx,
		   uint32_t *slot, uint32_t *plane, uint32_t *block, uint32_t *page)
{
	uint32_t stripe = l->ndies * l->planes;
	uint32_t s = pidx % stripe;

	*page = pidx / stripe;
	*plane = s / l->ndies;
	*slot = s % l->ndies;
	*block = l->first_block + zone;
}

int zns_create(const struct zns_layout *l, uint32_t max_open, uint32_t max_active,
	       struct zns **out)
{
	struct zns *z;

	if (l->nr_zones == 0 || l->zone_cap == 0 || l->zone_cap > l->zone_size ||
	    max_open > l->nr_zones || max_active > l->nr_zones ||
	    (max_active && max_open > max_active))
		return -EINVAL;
	z = calloc(1, sizeof(*z));
	if (!z)
		return -ENOMEM;
	z->zones = calloc(l->nr_zones, sizeof(*z->zones));
	if (!z->zones) {
		free(z);
		return -ENOMEM;
	}
	z->l = *l;
	z->max_open = max_open;
	z->max_active = max_active;
	for (uint32_t i = 0; i < l->nr_zones; i++) {
		z->zones[i].state = ZNS_EMPTY;
		z->zones[i].wp = (uint64_t)i * l->zone_size;
	}
	*out = z;
	return 0;
}

void zns_destroy(struct zns *z)
{
	if (!z)
		return;
	free(z->zones);
	free(z);
}

const struct zns_layout *zns_get_layout(const struct zns *z)
{
	return &z->l;
}

uint32_t zns_max_open(const struct zns *z)
{
	return z->max_open;
}

uint32_t zns_max_active(const struct zns *z)
{
	return z->max_active;
}

uint64_t zns_nlbas(const struct zns *z)
{
	return (uint64_t)z->l.nr_zones * z->l.zone_size;
}

const struct zns_zone *zns_zone(const struct zns *z, uint32_t zone)
{
	return &z->zones[zone];
}

uint32_t zns_zone_of(const struct zns *z, uint64_t lba)
{
	return (uint32_t)(lba / z->l.zone_size);
}

uint64_t zns_zslba(const struct zns *z, uint32_t zone)
{
	return (uint64_t)zone * z->l.zone_size;
}

static bool is_open(enum zns_state s)
{
	return s == ZNS_IOPEN || s == ZNS_EOPEN;
}

static bool is_active(enum zns_state s)
{
	return is_open(s) || s == ZNS_CLOSED;
}

void zns_counts(const struct zns *z, struct zns_counts *c)
{
	*c = (struct zns_counts){ .open = z->open, .active = z->active };
	for (uint32_t i = 0; i < z->l.nr_zones; i++)
		c->by_state[z->zones[i].state & 0xf]++;
}

/* The one place a zone changes state: the resource counts follow. */
static void zone_set(struct zns *z, uint32_t zone, enum zns_state to)
{
	struct zns_zone *zn = &z->zones[zone];

	z->open -= is_open(zn->state);
	z->active -= is_active(zn->state);
	z->open += is_open(to);
	z->active += is_active(to);
	if (to == ZNS_IOPEN && zn->state != ZNS_IOPEN)
		zn->open_seq = ++z->seq;
	zn->state = to;
}

static uint64_t zone_end(const struct zns *z, uint32_t zone)
{
	return zns_zslba(z, zone) + z->l.zone_cap;
}

/*
 * An open resource for @zone (not open yet): free, or made free by
 * implicitly closing the implicitly opened zone opened longest ago.
 * Nothing changes unless @commit.
 */
static enum zns_status open_resource(struct zns *z, bool commit, uint32_t *closed)
{
	uint32_t victim = UINT32_MAX;

	if (!z->max_open || z->open < z->max_open)
		return ZNS_OK;
	for (uint32_t i = 0; i < z->l.nr_zones; i++)
		if (z->zones[i].state == ZNS_IOPEN &&
		    (victim == UINT32_MAX || z->zones[i].open_seq < z->zones[victim].open_seq))
			victim = i;
	if (victim == UINT32_MAX)
		return ZNS_TOO_MANY_OPEN;
	if (commit) {
		zone_set(z, victim, ZNS_CLOSED);
		if (closed)
			*closed = victim;
	}
	return ZNS_OK;
}

/* What opening @zone (from @zone's state, to @to) needs; done if @commit and possible. */
static enum zns_status zone_open(struct zns *z, uint32_t zone, enum zns_state to,
				 uint32_t *closed)
{
	enum zns_state s = z->zones[zone].state;
	enum zns_status st;

	if (is_open(s)) {
		if (to == ZNS_EOPEN)
			zone_set(z, zone, ZNS_EOPEN);
		return ZNS_OK;
	}
	if (s == ZNS_EMPTY && z->max_active && z->active >= z->max_active)
		return ZNS_TOO_MANY_ACTIVE;
	st = open_resource(z, true, closed);
	if (st != ZNS_OK)
		return st;
	zone_set(z, zone, to);
	return ZNS_OK;
}

/* Write pointer moved by @nlb: Full at the capacity. */
static void zone_advance(struct zns *z, uint32_t zone, uint32_t nlb)
{
	struct zns_zone *zn = &z->zones[zone];

	zn->wp += nlb;
	if (zn->wp == zone_end(z, zone))
		zone_set(z, zone, ZNS_FULL);
}

static enum zns_status writable(const struct zns_zone *zn)
{
	switch (zn->state) {
	case ZNS_FULL:
		return ZNS_ZONE_FULL;
	case ZNS_RONLY:
		return ZNS_ZONE_RONLY;
	case ZNS_OFFLINE:
		return ZNS_ZONE_OFFLINE;
	default:
		return ZNS_OK;
	}
}

static enum zns_status do_write(struct zns *z, uint32_t zone, uint64_t slba, uint32_t nlb,
				uint32_t *closed)
{
	struct zns_zone *zn = &z->zones[zone];
	enum zns_status st = writable(zn);

	if (st != ZNS_OK)
		return st;
	if (slba != zn->wp)
		return ZNS_INVALID_WRITE;
	if (slba + nlb > zone_end(z, zone))
		return ZNS_BOUNDARY;
	st = zone_open(z, zone, ZNS_IOPEN, closed);
	if (st != ZNS_OK)
		return st;
	zone_advance(z, zone, nlb);
	return ZNS_OK;
}

enum zns_status zns_write(struct zns *z, uint64_t slba, uint32_t nlb,
			  uint32_t *implicitly_closed)
{
	if (implicitly_closed)
		*implicitly_closed = UINT32_MAX;
	if (nlb == 0 || slba >= zns_nlbas(z) || nlb > zns_nlbas(z) - slba)
		return ZNS_LBA_RANGE;
	return do_write(z, zns_zone_of(z, slba), slba, nlb, implicitly_closed);
}

enum zns_status zns_append(struct zns *z, uint64_t zslba, uint32_t nlb, uint64_t *lba,
			   uint32_t *implicitly_closed)
{
	uint32_t zone;
	enum zns_status st;

	if (implicitly_closed)
		*implicitly_closed = UINT32_MAX;
	if (zslba >= zns_nlbas(z))
		return ZNS_LBA_RANGE;
	if (zslba % z->l.zone_size || nlb == 0)
		return ZNS_INVALID_FIELD;
	zone = zns_zone_of(z, zslba);
	*lba = z->zones[zone].wp;
	st = do_write(z, zone, *lba, nlb, implicitly_closed);
	return st;
}

enum zns_status zns_read_check(const struct zns *z, uint64_t slba, uint32_t nlb)
{
	if (nlb == 0 || slba >= zns_nlbas(z) || nlb > zns_nlbas(z) - slba)
		return ZNS_LBA_RANGE;
	for (uint32_t i = zns_zone_of(z, slba); i <= zns_zone_of(z, slba + nlb - 1); i++)
		if (z->zones[i].state == ZNS_OFFLINE)
			return ZNS_ZONE_OFFLINE;
	return ZNS_OK;
}

enum zns_status zns_action(struct zns *z, enum zns_action act, uint32_t zone)
{
	struct zns_zone *zn;
	enum zns_state s;

	if (zone >= z->l.nr_zones)
		return ZNS_LBA_RANGE;
	zn = &z->zones[zone];
	s = zn->state;
	if (s == ZNS_OFFLINE)
		return act == ZNS_ACT_OFFLINE ? ZNS_OK : ZNS_ZONE_OFFLINE;
	if (s == ZNS_RONLY && act != ZNS_ACT_OFFLINE)
		return ZNS_ZONE_RONLY;
	switch (act) {
	case ZNS_ACT_OPEN:
		if (s == ZNS_FULL)
			return ZNS_INVALID_TRANSITION;
		return zone_open(z, zone, ZNS_EOPEN, NULL);
	case ZNS_ACT_CLOSE:
		if (s == ZNS_CLOSED)
			return ZNS_OK;
		if (!is_open(s))
			return ZNS_INVALID_TRANSITION;
		/* An opened zone with nothing written goes back to Empty. */
		zone_set(z, zone, zn->wp == zns_zslba(z, zone) ? ZNS_EMPTY : ZNS_CLOSED);
		return ZNS_OK;
	case ZNS_ACT_FINISH:
		if (s == ZNS_FULL)
			return ZNS_OK;
		/* An Empty zone passes through the active states on its way. */
		if (s == ZNS_EMPTY && z->max_active && z->active >= z->max_active)
			return ZNS_TOO_MANY_ACTIVE;
		zn->wp = zone_end(z, zone);
		zone_set(z, zone, ZNS_FULL);
		return ZNS_OK;
	case ZNS_ACT_RESET:
		zn->wp = zns_zslba(z, zone);
		zn->attrs = 0;
		zone_set(z, zone, ZNS_EMPTY);
		return ZNS_OK;
	case ZNS_ACT_OFFLINE:
		if (s != ZNS_RONLY)
			return ZNS_INVALID_TRANSITION;
		zone_set(z, zone, ZNS_OFFLINE);
		return ZNS_OK;
	}
	return ZNS_INVALID_FIELD;
}

bool zns_action_selects(const struct zns *z, enum zns_action act, uint32_t zone)
{
	enum zns_state s = z->zones[zone].state;

	switch (act) {
	case ZNS_ACT_CLOSE:
		return is_open(s);
	case ZNS_ACT_FINISH:
		return is_active(s);
	case ZNS_ACT_OPEN:
		return s == ZNS_CLOSED;
	case ZNS_ACT_RESET:
		return is_active(s) || s == ZNS_FULL;
	case ZNS_ACT_OFFLINE:
		return s == ZNS_RONLY;
	}
	return false;
}

void zns_zone_fail(struct zns *z, uint32_t zone, enum zns_state to)
{
	zone_set(z, zone, to == ZNS_OFFLINE ? ZNS_OFFLINE : ZNS_RONLY);
	z->zones[zone].changed = ++z->changes;
}

void zns_zone_finish_by_ctrl(struct zns *z, uint32_t zone)
{
	z->zones[zone].wp = zone_end(z, zone);
	z->zones[zone].attrs |= ZNS_ATTR_ZFC;
	zone_set(z, zone, ZNS_FULL);
	z->zones[zone].changed = ++z->changes;
}

void zns_zone_revive(struct zns *z, uint32_t zone)
{
	z->zones[zone].wp = zns_zslba(z, zone);
	z->zones[zone].attrs = 0;
	zone_set(z, zone, ZNS_EMPTY);
	z->zones[zone].changed = ++z->changes;
}

uint64_t zns_changes(const struct zns *z)
{
	return z->changes;
}

uint32_t zns_changed_since(const struct zns *z, uint64_t since, uint64_t *out, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < z->l.nr_zones; i++) {
		if (z->zones[i].changed <= since)
			continue;
		if (n < max)
			out[n] = zns_zslba(z, i);
		n++;
	}
	return n;
}

void zns_zone_restore(struct zns *z, uint32_t zone, uint64_t wp, bool full)
{
	uint64_t start = zns_zslba(z, zone), end = zone_end(z, zone);

	if (wp < start)
		wp = start;
	if (full || wp >= end) {
		z->zones[zone].wp = end;
		zone_set(z, zone, ZNS_FULL);
	} else {
		z->zones[zone].wp = wp;
		zone_set(z, zone, wp == start ? ZNS_EMPTY : ZNS_CLOSED);
	}
}

bool zns_report_matches(const struct zns *z, enum zns_report filter, uint32_t zone)
{
	static const enum zns_state by_filter[] = {
		[ZNS_REP_EMPTY] = ZNS_EMPTY,   [ZNS_REP_IOPEN] = ZNS_IOPEN,
		[ZNS_REP_EOPEN] = ZNS_EOPEN,   [ZNS_REP_CLOSED] = ZNS_CLOSED,
		[ZNS_REP_FULL] = ZNS_FULL,     [ZNS_REP_RONLY] = ZNS_RONLY,
		[ZNS_REP_OFFLINE] = ZNS_OFFLINE,
	};

	if (filter == ZNS_REP_ALL)
		return true;
	if ((unsigned)filter >= sizeof(by_filter) / sizeof(by_filter[0]))
		return false;
	return z->zones[zone].state == by_filter[filter];
}

const char *zns_state_name(enum zns_state s)
{
	switch (s) {
	case ZNS_EMPTY:
		return "empty";
	case ZNS_IOPEN:
		return "implicitly-open";
	case ZNS_EOPEN:
		return "explicitly-open";
	case ZNS_CLOSED:
		return "closed";
	case ZNS_RONLY:
		return "read-only";
	case ZNS_FULL:
		return "full";
	case ZNS_OFFLINE:
		return "offline";
	}
	return "unknown";
}
