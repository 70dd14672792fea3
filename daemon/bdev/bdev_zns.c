/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "zns" backend: a zoned namespace straight on the NAND device, on a
 * device of its own (store file or RAM) or on dies of a registered one.
 * This file: where data is (a row's pages and their dies, its wear, the
 * least worn free row), create (the zones' layout and the write pointers' recovery
 * from the pages' OOB, see bdev_zns.h), destroy (the partial pages
 * programmed, the store synced), the zone report and what it tells.
 */
#include "bdev_hop.h"
#include "bdev_zns.h"
#include "blox_log.h"
#include "blox_util.h"
#include "nand_rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- where data is: rows, their dies and wear ---- */

void zb_addr(const struct zns_bdev *zb, uint32_t row, uint32_t pidx, struct nand_addr *a)
{
	uint32_t slot, die;

	zns_page_addr(&zb->l, row, pidx, &slot, &a->plane, &a->block, &a->page);
	die = zb_die_of(zb, row, slot);
	a->ch = die / zb->geo->dies_per_channel;
	a->die = die % zb->geo->dies_per_channel;
}

uint64_t zb_row_wear(const struct zns_bdev *zb, uint32_t row)
{
	uint32_t stripe = zb->l.ndies * zb->l.planes;
	uint64_t wear = 0;

	for (uint32_t s = 0; s < stripe; s++) {
		struct nand_addr a;

		zb_addr(zb, row, s, &a);
		wear += zb->store->blocks[nand_block_index(zb->geo, &a)].erase_count;
	}
	return wear;
}

int zb_row_take(struct zns_bdev *zb, uint32_t zone)
{
	uint32_t best = ZB_NONE;
	uint64_t best_wear = UINT64_MAX;

	for (uint32_t r = 0; r < zb->nr_rows; r++) {
		uint64_t w;

		/* The row a migration moves now stays free until it is moved. */
		/* Nor does a row whose erase waits (a reset in a DTWIN, bdev_zns_plm.c). */
		if (zb->row_zone[r] != ZB_NONE || zb_row_bad(zb, r) || !zb_plm_row_clean(zb, r) ||
		    (zb->mig.active && r == zb->mig.row))
			continue;
		w = zb_row_wear(zb, r);
		if (w < best_wear) {
			best = r;
			best_wear = w;
		}
	}
	if (best == ZB_NONE)
		return -ENOSPC;
	zb->row_zone[best] = zone;
	zb->zones[zone].row = best;
	return 0;
}

static uint64_t page_index(const struct zns_bdev *zb, uint32_t row, uint32_t pidx,
			   uint64_t *block)
{
	struct nand_addr a;

	zb_addr(zb, row, pidx, &a);
	if (block)
		*block = nand_block_index(zb->geo, &a);
	return nand_page_index(zb->geo, &a);
}

static bool programmed(const struct zns_bdev *zb, uint32_t row, uint32_t pidx)
{
	struct nand_addr a;

	zb_addr(zb, row, pidx, &a);
	return a.page < zb->store->blocks[nand_block_index(zb->geo, &a)].write_ptr;
}

/* Program @zone's physical page @pidx on the store at once (no timing): a filler or the last partial page. */
static int store_program(struct zns_bdev *zb, uint32_t zone, uint32_t pidx,
			 const struct zb_oob *oob, const void *data)
{
	uint32_t row = zb->zones[zone].row;
	uint8_t *buf = calloc(1, zb->geo->oob_size);
	int rc;

	if (!buf)
		return -ENOMEM;
	memcpy(buf, oob, sizeof(*oob));
	rc = zb->store->ops->program(zb->store, page_index(zb, row, pidx, NULL), data, buf);
	free(buf);
	return rc;
}

/*
 * Every page of @zone below pnext programmed, a filler where none was: in
 * order, so that the earlier pages of each block come first.
 */
static int fill_holes(struct zns_bdev *zb, uint32_t zone)
{
	struct zb_oob filler = { .magic = ZB_OOB_MAGIC, .zone = zone, .lpage = ZB_NONE,
				 .flags = ZB_OOB_FILLER };
	int rc;

	for (uint32_t p = 0; p < zb->zones[zone].pnext; p++)
		if (!programmed(zb, zb->zones[zone].row, p) &&
		    !zb_block_bad(zb, zb->zones[zone].row, p) &&
		    (rc = store_program(zb, zone, p, &filler, NULL)))
			return rc;
	return 0;
}

int zb_row_erase(struct zns_bdev *zb, uint32_t row)
{
	uint32_t stripe = zb->l.ndies * zb->l.planes;
	uint64_t bi;
	int rc;

	for (uint32_t s = 0; s < stripe; s++) {
		page_index(zb, row, s, &bi);
		if (zb->store->blocks[bi].write_ptr && !(zb->store->blocks[bi].flags & NAND_BLOCK_BAD) &&
		    (rc = zb->store->ops->erase(zb->store, bi)))
			return rc;
	}
	return 0;
}

/* @zone's write pointer, pages and partial page, from what its pages' OOB say. */
static int recover_zone(struct zns_bdev *zb, uint32_t zone, uint8_t *oob, uint16_t *nvalid)
{
	struct zb_zone *zz = &zb->zones[zone];
	uint32_t *l2p = zb->l2p + (uint64_t)zone * zb->lpages, slots = zb->l.slots;
	uint32_t last = ZB_NONE, lp = 0, row = zz->row;
	uint64_t wpoff;
	bool finish = false, partial;
	int rc;

	if (row == ZB_NONE) {
		zns_zone_restore(zb->z, zone, zns_zslba(zb->z, zone), false);
		return 0;
	}
	for (uint32_t p = 0; p < zb->l.zone_pages; p++) {
		struct zb_oob o;

		if (!programmed(zb, row, p))
			continue;
		rc = zb->store->ops->read(zb->store, page_index(zb, row, p, NULL), NULL, oob);
		if (rc)
			return rc;
		last = p;
		memcpy(&o, oob, sizeof(o));
		if (o.magic != ZB_OOB_MAGIC || o.zone != zone)
			continue;
		if (o.flags & ZB_OOB_FINISH)
			finish = true;
		else if (!o.flags && o.lpage < zb->lpages && o.nvalid <= slots) {
			l2p[o.lpage] = p; /* a later copy of a page wins */
			nvalid[o.lpage] = o.nvalid;
		}
	}
	zz->pnext = last == ZB_NONE ? 0 : last + 1;
	/* The longest run of logical pages from the start; the last may be partial. */
	while (lp < zb->lpages && l2p[lp] != ZB_NONE && nvalid[lp] == slots)
		lp++;
	partial = lp < zb->lpages && l2p[lp] != ZB_NONE && nvalid[lp];
	wpoff = (uint64_t)lp * slots + (partial ? nvalid[lp] : 0);
	for (uint32_t j = lp + partial; j < zb->lpages; j++)
		l2p[j] = ZB_NONE;
	if (wpoff > zb->l.zone_cap)
		wpoff = zb->l.zone_cap;
	if (!finish && wpoff == 0) {
		/* Nothing of it survived: Empty, and erased to be written again. */
		for (uint32_t j = 0; j < zb->lpages; j++)
			l2p[j] = ZB_NONE;
		zz->pnext = 0;
		rc = zb_row_erase(zb, row);
		zb->row_zone[row] = ZB_NONE;
		zz->row = ZB_NONE;
		zns_zone_restore(zb->z, zone, zns_zslba(zb->z, zone), false);
		return rc;
	}
	rc = fill_holes(zb, zone);
	if (rc)
		return rc;
	finish = finish || zz->pnext >= zb->l.zone_pages || wpoff == zb->l.zone_cap;
	if (partial && !finish) {
		/* The padded page's data goes back into the buffer for the rest of it. */
		zz->buf = malloc(zb->geo->page_size);
		if (!zz->buf)
			return -ENOMEM;
		rc = zb->store->ops->read(zb->store, page_index(zb, row, l2p[lp], NULL), zz->buf,
					  NULL);
		if (rc)
			return rc;
		zz->buf_lpage = lp;
		zz->buf_fill = nvalid[lp];
		zz->buf_durable = nvalid[lp];
	}
	zns_zone_restore(zb->z, zone, zns_zslba(zb->z, zone) + wpoff, finish);
	return 0;
}

/*
 * Whose row @row is: the zone its pages name. A row that holds something
 * of no zone of ours (or of a zone another row has) is erased, free again.
 */
/*
 * Whether row @row's last page is a reset's marker (bdev_zns_plm.c): its
 * erase was deferred, nothing on it is any zone's.
 */
static int reset_marked(struct zns_bdev *zb, uint32_t row, uint8_t *oob, bool *marked)
{
	struct zb_oob o;
	int rc;

	*marked = false;
	for (uint32_t p = zb->l.zone_pages; p-- > 0;) {
		if (!programmed(zb, row, p))
			continue;
		rc = zb->store->ops->read(zb->store, page_index(zb, row, p, NULL), NULL, oob);
		if (rc)
			return rc;
		memcpy(&o, oob, sizeof(o));
		*marked = o.magic == ZB_OOB_MAGIC && (o.flags & ZB_OOB_RESET);
		return 0;
	}
	return 0;
}

static int find_row(struct zns_bdev *zb, uint32_t row, uint8_t *oob)
{
	uint32_t zone = ZB_NONE;
	bool any = false, marked;
	int rc;

	rc = reset_marked(zb, row, oob, &marked);
	if (rc || marked)
		return rc ? rc : zb_row_erase(zb, row);

	for (uint32_t p = 0; p < zb->l.zone_pages && zone == ZB_NONE; p++) {
		struct zb_oob o;

		if (!programmed(zb, row, p))
			continue;
		any = true;
		rc = zb->store->ops->read(zb->store, page_index(zb, row, p, NULL), NULL, oob);
		if (rc)
			return rc;
		memcpy(&o, oob, sizeof(o));
		if (o.magic == ZB_OOB_MAGIC && o.zone < zb->l.nr_zones &&
		    zb->zones[o.zone].row == ZB_NONE)
			zone = o.zone;
	}
	if (zone != ZB_NONE) {
		zb->row_zone[row] = zone;
		zb->zones[zone].row = row;
		return 0;
	}
	return any ? zb_row_erase(zb, row) : 0;
}

static int recover(struct zns_bdev *zb)
{
	uint8_t *oob = malloc(zb->geo->oob_size);
	uint16_t *nvalid = calloc(zb->lpages, sizeof(*nvalid));
	struct zns_counts c;
	int rc = oob && nvalid ? 0 : -ENOMEM;

	/* A die of it offline: every zone Offline, nothing read (bdev_zns_offline.c). */
	if (!rc && zb_dieoff_start(zb)) {
		free(oob);
		free(nvalid);
		return 0;
	}
	for (uint32_t row = 0; row < zb->nr_rows && !rc; row++)
		rc = find_row(zb, row, oob);
	for (uint32_t zone = 0; zone < zb->l.nr_zones && !rc; zone++) {
		memset(nvalid, 0, zb->lpages * sizeof(*nvalid));
		rc = recover_zone(zb, zone, oob, nvalid);
	}
	if (!rc)
		zb_fail_start(zb); /* bad blocks: zones Read Only or Offline (bdev_zns_fail.c) */
	free(oob);
	free(nvalid);
	if (!rc)
		rc = zb->store->ops->sync(zb->store);
	zns_counts(zb->z, &c);
	blox_log(zb->log, rc ? BLOX_LOG_ERR : BLOX_LOG_INFO,
		 "zns: %u zones of %lu LBAs (capacity %lu): %u empty, %u closed, %u full%s",
		 zb->l.nr_zones, (unsigned long)zb->l.zone_size, (unsigned long)zb->l.zone_cap,
		 c.by_state[ZNS_EMPTY], c.by_state[ZNS_CLOSED], c.by_state[ZNS_FULL],
		 rc ? "; recovery FAILED" : "");
	return rc;
}

static void zb_destroy(struct blox_bdev *bdev)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);

	zb_mig_fini(zb);
	/* A clean stop: the partial pages are programmed, padded (no timing). */
	for (uint32_t zone = 0; zb->zones && zone < zb->l.nr_zones; zone++) {
		struct zb_zone *zz = &zb->zones[zone];

		if (zz->buf && zz->buf_fill && zz->pnext < zb->l.zone_pages &&
		    (zz->row != ZB_NONE || !zb_row_take(zb, zone))) {
			struct zb_oob o = { .magic = ZB_OOB_MAGIC, .zone = zone,
					    .lpage = zz->buf_lpage,
					    .nvalid = (uint16_t)zz->buf_fill };

			memset(zz->buf + (uint64_t)zz->buf_fill * ZNS_LBA_SIZE, 0,
			       zb->geo->page_size - (uint64_t)zz->buf_fill * ZNS_LBA_SIZE);
			if (store_program(zb, zone, zz->pnext, &o, zz->buf))
				blox_log(zb->log, BLOX_LOG_ERR,
					 "zns: zone %u: its partial page was lost", zone);
		}
		free(zz->buf);
	}
	zb_plm_fini(zb); /* rows whose erase waits keep their marker: erased at the next start */
	if (zb->store)
		zb->store->ops->sync(zb->store);
	if (zb->z)
		blox_log(zb->log, BLOX_LOG_INFO,
			 "zns: stopped; %lu programs (%lu padded), %lu reads, %lu erases",
			 (unsigned long)zb->programs, (unsigned long)zb->pads,
			 (unsigned long)zb->reads, (unsigned long)zb->erases);
	zns_destroy(zb->z);
	free(zb->zones);
	free(zb->row_zone);
	free(zb->l2p);
	blox_nand_dev_put(zb->nd);
	free(zb);
}

static void zb_set_cache(struct blox_bdev *bdev, bool on)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);

	zb->cache_off = !on;
}

static void zb_telemetry(struct blox_bdev *bdev, struct blox_bdev_telemetry *t)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);

	t->nand = nand_dev_stats(zb->dev);
	t->nand_dev = zb->dev;
	t->dies = nand_dies(zb->geo);
	t->channels = zb->geo->channels;
	zb_wear(zb, &t->zoned);
	t->has_zoned = true;
}

static void zb_info(struct blox_bdev *bdev, struct blox_bdev_zone_info *info)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);

	*info = (struct blox_bdev_zone_info){ .zone_size = zb->l.zone_size,
					      .zone_cap = zb->l.zone_cap,
					      .nr_zones = zb->l.nr_zones,
					      .max_open = zns_max_open(zb->z),
					      .max_active = zns_max_active(zb->z),
					      .max_append_bytes = ZB_MAX_APPEND };
}

static uint32_t zb_report(struct blox_bdev *bdev, uint64_t slba, uint8_t filter,
			  struct blox_bdev_zone *out, uint32_t max)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);
	uint32_t n = 0;

	zb_dieoff_poll(zb);
	if (slba >= zns_nlbas(zb->z))
		return 0;
	for (uint32_t zone = zns_zone_of(zb->z, slba); zone < zb->l.nr_zones; zone++) {
		const struct zns_zone *zn = zns_zone(zb->z, zone);

		if (!zns_report_matches(zb->z, filter, zone))
			continue;
		if (n < max)
			out[n] = (struct blox_bdev_zone){ .state = (uint8_t)zn->state,
							  .attrs = zn->attrs,
							  .zslba = zns_zslba(zb->z, zone),
							  .wp = zn->wp,
							  .cap = zb->l.zone_cap };
		n++;
	}
	return n;
}

static uint32_t zb_changed(struct blox_bdev *bdev, uint64_t since, uint64_t *now,
			   uint64_t *out, uint32_t max)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);

	zb_dieoff_poll(zb);
	*now = zns_changes(zb->z);
	return zns_changed_since(zb->z, since, out, max);
}

static const struct blox_bdev_zoned_ops zb_zoned_ops = {
	.info = zb_info,
	.report = zb_report,
	.changed = zb_changed,
};

/*
 * Power loss and power-up of a zoned namespace, as after kill -9: its NAND
 * ops cut (on a shared device only its tenant's; programs in their array
 * phase torn), the partial pages at the write pointers (volatile) lost,
 * then its zones, rows and write pointers rebuilt from the pages' OOB by
 * the start-up's recovery; the commands it held fail.
 */
int zb_cut_check(struct zns_bdev *zb, struct blox_bdev_power_cut *out)
{
	bool check_only = out->check_only, device = out->device;

	memset(out, 0, sizeof(*out));
	out->check_only = check_only;
	out->device = device;
	out->shared = zb->nd->registered || zb->nd->refs > 1;
	if (!zb->z)
		return -ENODEV;
	if (out->shared && !nand_dev_config(zb->dev)->sched.ntenants) {
		out->refused = "its device is shared without tenants";
		return -EOPNOTSUPP;
	}
	return 0;
}

int zb_cut_off(struct zns_bdev *zb, struct blox_bdev_power_cut *out)
{
	struct nand_power_cut_stats cut;
	int rc;

	for (uint32_t i = 0; i < zb->l.nr_zones; i++)
		if (zb->zones[i].buf)
			out->bytes_buffered += (uint64_t)(zb->zones[i].buf_fill -
							  zb->zones[i].buf_durable) * ZNS_LBA_SIZE;
	out->bytes_lost = out->bytes_buffered;
	rc = out->shared ? nand_power_cut_tenant(zb->dev, zb->tenant, true, &cut)
			 : nand_power_cut(zb->dev, true, &cut);
	if (rc == -ENOMEM)
		return rc;
	if (rc)
		blox_log(zb->log, BLOX_LOG_ERR, "zns: power cut: a torn page not written: %s",
			 strerror(-rc));
	out->ops_dropped = cut.dropped;
	out->programs_torn = cut.torn;
	zb_power_off(zb);
	return 0;
}

int zb_cut_on(struct zns_bdev *zb, struct blox_bdev_power_cut *out)
{
	uint32_t max_open, max_active;
	uint64_t t0;
	int rc;

	/* Power on: everything in memory anew, rebuilt from flash. */
	t0 = blox_clock_now(zb->clock);
	max_open = zns_max_open(zb->z);
	max_active = zns_max_active(zb->z);
	for (uint32_t i = 0; i < zb->l.nr_zones; i++)
		free(zb->zones[i].buf);
	memset(zb->zones, 0, zb->l.nr_zones * sizeof(*zb->zones));
	for (uint32_t i = 0; i < zb->l.nr_zones; i++) {
		zb->zones[i].row = ZB_NONE;
		TAILQ_INIT(&zb->zones[i].progs);
	}
	memset(zb->l2p, 0xff, (uint64_t)zb->l.nr_zones * zb->lpages * sizeof(*zb->l2p));
	memset(zb->row_zone, 0xff, zb->nr_rows * sizeof(*zb->row_zone));
	TAILQ_INIT(&zb->progs);
	zns_destroy(zb->z);
	zb->z = NULL;
	rc = zns_create(&zb->l, max_open, max_active, &zb->z);
	if (!rc)
		rc = zb_mig_rebuild(zb);
	if (!rc) {
		zb_plm_rebuild(zb); /* the rows whose erase waited: erased by the recovery */
		rc = recover(zb);
	}
	if (rc) {
		zns_destroy(zb->z);
		zb->z = NULL;
		blox_log(zb->log, BLOX_LOG_ERR,
			 "zns: power cut: the rebuild from flash failed: %s; the namespace fails "
			 "every command",
			 strerror(-rc));
	}
	out->rebuild_ns = blox_clock_now(zb->clock) - t0;
	out->cmds_failed = zb_power_on(zb);
	if (zb->z)
		zb_mig_kick(zb);
	blox_log(zb->log, rc ? BLOX_LOG_ERR : BLOX_LOG_INFO,
		 "zns: power cut%s: %lu bytes of partial pages lost; %lu flash ops dropped, %u "
		 "programs torn, %u commands failed; rebuilt from flash in %.1f ms",
		 out->shared ? " of a vSSD" : "", (unsigned long)out->bytes_lost,
		 (unsigned long)out->ops_dropped, out->programs_torn, out->cmds_failed,
		 out->rebuild_ns / 1e6);
	return rc;
}

static int zb_power_cut(struct blox_bdev *bdev, struct blox_bdev_power_cut *out)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);
	int rc = zb_cut_check(zb, out);

	if (rc || out->check_only)
		return rc;
	rc = zb_cut_off(zb, out);
	return rc ? rc : zb_cut_on(zb, out);
}

static const struct blox_bdev_ops zb_ops;

struct zns_bdev *zb_of(struct blox_bdev *bdev, const struct blox_nand_dev *nd)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);

	return bdev->ops == &zb_ops && zb->nd == nd ? zb : NULL;
}

bool zb_is(const struct blox_bdev *bdev)
{
	return bdev->ops == &zb_ops;
}

static const struct blox_bdev_ops zb_ops = {
	.name = "zns",
	.submit = zb_submit,
	.destroy = zb_destroy,
	.set_write_cache = zb_set_cache,
	.telemetry = zb_telemetry,
	.zoned = &zb_zoned_ops,
	.power_cut = zb_power_cut,
	.plm_config = zb_plm_config,
	.plm_window = zb_plm_window,
	.plm_query = zb_plm_query,
	.endurance = zb_endurance,
};

/* The dies and blocks it has: a device of its own (all), or dies of @p->shared. */
static int zb_place(struct zns_bdev *zb, const struct blox_bdev_params *p,
		    uint32_t *first_block, uint32_t *nr_blocks)
{
	uint32_t ndies = nand_dies(zb->geo);

	if (!p->shared) {
		zb->l.ndies = ndies;
		for (uint32_t i = 0; i < ndies && i < BLOX_FTL_MAX_DIES; i++)
			zb->dies[i] = i;
		*first_block = 0;
		*nr_blocks = zb->geo->blocks_per_plane;
		return ndies <= BLOX_FTL_MAX_DIES ? 0 : -EINVAL;
	}
	if (p->nr_dies == 0 || p->nr_dies > BLOX_FTL_MAX_DIES || !p->dies ||
	    p->first_block >= zb->geo->blocks_per_plane ||
	    p->nr_blocks > zb->geo->blocks_per_plane - p->first_block)
		return -EINVAL;
	for (uint32_t i = 0; i < p->nr_dies; i++) {
		if (p->dies[i] >= ndies)
			return -EINVAL;
		for (uint32_t j = 0; j < i; j++)
			if (p->dies[j] == p->dies[i])
				return -EINVAL;
		zb->dies[i] = p->dies[i];
	}
	zb->l.ndies = p->nr_dies;
	zb->tenant = p->tenant;
	*first_block = p->first_block;
	*nr_blocks = p->nr_blocks ? p->nr_blocks : zb->geo->blocks_per_plane - p->first_block;
	return 0;
}

/* Layout, zones and their recovery, on a placed device. */
static int zb_setup(struct zns_bdev *zb, const struct blox_bdev_params *p)
{
	uint32_t first, nr, reserve;
	const char *why;
	uint64_t zone_bytes;
	int rc = zb_place(zb, p, &first, &nr);

	if (rc)
		return rc;
	if (zb->geo->oob_size < sizeof(struct zb_oob) || p->zone_size % ZNS_LBA_SIZE)
		return -EINVAL;
	/* Pages kept for flushed partial pages. */
	reserve = zns_reserve_pages(zb->geo, zb->l.ndies);
	rc = zns_layout(zb->geo, zb->l.ndies, first, nr, p->zone_size / ZNS_LBA_SIZE, reserve,
			&zb->l, &why);
	if (rc) {
		blox_log(zb->log, BLOX_LOG_ERR, "zns: %s", why);
		return rc;
	}
	zone_bytes = zb->l.zone_size * ZNS_LBA_SIZE;
	zb->nr_rows = zb->l.nr_zones; /* a row per block; zones may be fewer */
	if (p->size) {
		if (p->size / zone_bytes == 0 || p->size / zone_bytes > zb->l.nr_zones) {
			blox_log(zb->log, BLOX_LOG_ERR,
				 "zns: %lu bytes asked: zones of %lu bytes, %u of them at most",
				 (unsigned long)p->size, (unsigned long)zone_bytes, zb->l.nr_zones);
			return -ENOSPC;
		}
		zb->l.nr_zones = (uint32_t)(p->size / zone_bytes);
	}
	rc = zns_create(&zb->l, p->max_open, p->max_active, &zb->z);
	if (rc)
		return rc;
	zb->lpages = (uint32_t)((zb->l.zone_cap + zb->l.slots - 1) / zb->l.slots);
	zb->zones = calloc(zb->l.nr_zones, sizeof(*zb->zones));
	zb->row_zone = malloc(zb->nr_rows * sizeof(*zb->row_zone));
	zb->l2p = malloc((uint64_t)zb->l.nr_zones * zb->lpages * sizeof(*zb->l2p));
	if (!zb->zones || !zb->row_zone || !zb->l2p)
		return -ENOMEM;
	memset(zb->l2p, 0xff, (uint64_t)zb->l.nr_zones * zb->lpages * sizeof(*zb->l2p));
	memset(zb->row_zone, 0xff, zb->nr_rows * sizeof(*zb->row_zone));
	for (uint32_t i = 0; i < zb->l.nr_zones; i++) {
		zb->zones[i].row = ZB_NONE;
		TAILQ_INIT(&zb->zones[i].progs);
	}
	/* A die migration to resume: each row's die first, for the recovery to read. */
	rc = zb_mig_resume(zb, p->shared ? p->mig : NULL);
	return rc ? rc : recover(zb);
}

int blox_bdev_zns_create(const struct blox_bdev_params *p, struct blox_io_cq *cq,
			 struct blox_bdev **out)
{
	struct zns_bdev *zb;
	int rc;

	if ((!p->nand && !p->shared) || !p->clock || !p->base || p->block_size != ZNS_LBA_SIZE)
		return -EINVAL;
	zb = calloc(1, sizeof(*zb));
	if (!zb)
		return -ENOMEM;
	zb->log = p->log;
	TAILQ_INIT(&zb->progs);
	TAILQ_INIT(&zb->durable);
	TAILQ_INIT(&zb->waiting);
	TAILQ_INIT(&zb->ops);
	TAILQ_INIT(&zb->cut_reqs);
	zb->clock = p->clock;
	zb->evbase = p->base;
	zb->mig.row = ZB_NONE;
	if (p->shared) {
		zb->nd = p->shared;
		blox_nand_dev_get(zb->nd);
	} else {
		rc = nand_dev_open_unbound(NULL, p->nand, p->store_path, false, &zb->nd);
		if (rc) {
			free(zb);
			return rc;
		}
	}
	zb->store = zb->nd->store;
	zb->dev = zb->nd->dev;
	zb->geo = &nand_dev_config(zb->dev)->geo;
	if (!p->shared && p->faults) /* before it takes any op */
		nand_dev_set_faults(zb->dev, p->faults, p->fault_name);
	rc = zb_setup(zb, p);
	if (!rc)
		rc = zb_plm_init(zb);
	if (!rc && !zb->nd->rt)
		rc = nand_rt_create(p->base, p->clock, zb->dev, NAND_RT_SPIN_NS, &zb->nd->rt);
	if (rc) {
		zb_destroy(&zb->base);
		return rc;
	}
	zb->base.ops = &zb_ops;
	zb->base.size = zns_nlbas(zb->z) * ZNS_LBA_SIZE;
	zb->base.block_size = ZNS_LBA_SIZE;
	zb->base.cq = cq;
	*out = &zb->base;
	zb_mig_kick(zb);
	return 0;
}

/* ---- wherever it lives ---- */

struct zns_call {
	const struct blox_bdev_params *p;
	struct blox_bdev_home *home;
	struct blox_bdev *bdev;
	struct blox_bdev_zone_info *info;
	struct blox_bdev_zone *out;
	uint64_t *zslbas;
	uint64_t slba, since, now;
	uint32_t max, n;
	uint8_t filter;
	int rc;
};

static void create_fn(void *arg)
{
	struct zns_call *c = arg;
	struct blox_bdev_params p = *c->p;

	p.base = bdev_home_base(c->home);
	c->rc = blox_bdev_zns_create(&p, bdev_home_cq(c->home), &c->bdev);
}

int bdev_zns_create_home(const struct blox_bdev_params *p, struct blox_io_cq *cq,
			 struct blox_bdev **out)
{
	struct zns_call c = { .home = p->shared ? blox_nand_dev_home(p->shared) : p->home,
			      .p = p };

	if (!c.home)
		return blox_bdev_zns_create(p, cq, out);
	blox_bdev_home_call(c.home, create_fn, &c);
	if (c.rc)
		return c.rc;
	c.bdev->home = c.home;
	*out = c.bdev;
	return 0;
}

static void info_fn(void *arg)
{
	struct zns_call *c = arg;

	c->bdev->ops->zoned->info(c->bdev, c->info);
}

bool blox_bdev_zone_info(struct blox_bdev *bdev, struct blox_bdev_zone_info *info)
{
	struct zns_call c = { .bdev = bdev, .info = info };

	if (!bdev->ops->zoned)
		return false;
	blox_bdev_home_call(bdev->home, info_fn, &c);
	return true;
}

static void report_fn(void *arg)
{
	struct zns_call *c = arg;

	c->n = c->bdev->ops->zoned->report(c->bdev, c->slba, c->filter, c->out, c->max);
}

uint32_t blox_bdev_zone_report(struct blox_bdev *bdev, uint64_t slba, uint8_t filter,
			       struct blox_bdev_zone *out, uint32_t max)
{
	struct zns_call c = { .bdev = bdev, .slba = slba, .filter = filter, .out = out,
			      .max = max };

	if (!bdev->ops->zoned)
		return 0;
	blox_bdev_home_call(bdev->home, report_fn, &c);
	return c.n;
}

static void changed_fn(void *arg)
{
	struct zns_call *c = arg;

	c->n = c->bdev->ops->zoned->changed(c->bdev, c->since, &c->now, c->zslbas, c->max);
}

uint32_t blox_bdev_zone_changed(struct blox_bdev *bdev, uint64_t since, uint64_t *now,
				uint64_t *out, uint32_t max)
{
	struct zns_call c = { .bdev = bdev, .since = since, .zslbas = out, .max = max };

	*now = 0;
	if (!bdev->ops->zoned)
		return 0;
	blox_bdev_home_call(bdev->home, changed_fn, &c);
	*now = c.now;
	return c.n;
}
