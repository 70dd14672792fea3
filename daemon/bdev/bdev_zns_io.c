/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "zns" backend's I/O on its NAND device (see bdev_zns.h for where
 * data is): reads from the partial page's buffer, a program in flight or
 * flash; writes and appends at the write pointer, programmed page by page
 * with the NAND model's timing; Flush and FUA through padded pages and the
 * programs before them; the zone actions, Reset erasing the zone's blocks.
 * Every NAND op runs on the device's real-time driver; a command completes
 * through the completion queue once its ops have.
 */
#include "bdev_zns.h"
#include "blox_log.h"
#include "blox_util.h"
#include "nand_rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void zone_idle(struct zns_bdev *zb, uint32_t zone);
static void zone_clear(struct zns_bdev *zb, uint32_t zone);

/* Copy @len bytes between @buf and @io's data at byte @off (no data: zeroes to @buf). */
static void iov_copy(const struct blox_io *io, uint64_t off, uint8_t *buf, uint64_t len,
		     bool to_io)
{
	if (!io->iov) {
		if (!to_io)
			memset(buf, 0, len);
		return;
	}
	for (int i = 0; i < io->iovcnt && len; i++) {
		uint64_t n;

		if (off >= io->iov[i].iov_len) {
			off -= io->iov[i].iov_len;
			continue;
		}
		n = BLOX_MIN(len, io->iov[i].iov_len - off);
		if (to_io)
			memcpy((uint8_t *)io->iov[i].iov_base + off, buf, n);
		else
			memcpy(buf, (uint8_t *)io->iov[i].iov_base + off, n);
		buf += n;
		len -= n;
		off = 0;
	}
}

static void iov_zero(const struct blox_io *io, uint64_t off, uint64_t len)
{
	static const uint8_t zeroes[ZNS_LBA_SIZE];

	for (uint64_t done = 0; done < len; done += ZNS_LBA_SIZE)
		iov_copy(io, off + done, (uint8_t *)zeroes, BLOX_MIN(ZNS_LBA_SIZE, len - done), true);
}

/* ---- requests ---- */

static bool durable_reached(const struct zns_bdev *zb, uint64_t seq)
{
	const struct zb_op *oldest = TAILQ_FIRST(&zb->progs);

	return !oldest || oldest->seq > seq;
}

static void req_finish(struct zns_bdev *zb, struct zb_req *req)
{
	struct blox_io *io = req->io;

	/* What a Flush or FUA write made durable stays so across a crash of bloxd. */
	if (req->durable && !req->status && zb->store->ops->sync(zb->store))
		req->status = -EIO;
	io->status = req->status;
	io->zone_changes = zns_changes(zb->z);
	free(req);
	blox_io_cq_post(zb->base.cq, io);
}

static void req_put(struct zns_bdev *zb, struct zb_req *req, int status)
{
	if (status && !req->status)
		req->status = status;
	if (--req->pending)
		return;
	if (req->durable && !req->status && !durable_reached(zb, req->seq)) {
		TAILQ_INSERT_TAIL(&zb->durable, req, link);
		return;
	}
	req_finish(zb, req);
}

static void durable_check(struct zns_bdev *zb)
{
	struct zb_req *req, *next;

	TAILQ_FOREACH_SAFE(req, &zb->durable, link, next) {
		if (!durable_reached(zb, req->seq))
			continue;
		TAILQ_REMOVE(&zb->durable, req, link);
		req_finish(zb, req);
	}
}

/* A command the zone rules refuse: its NVMe status, nothing done. */
static void refuse(struct zns_bdev *zb, struct zb_req *req, enum zns_status st)
{
	if (st == ZNS_LBA_RANGE) {
		req->status = -ERANGE;
	} else {
		req->status = -EINVAL;
		req->io->nvme_status = (uint16_t)st;
	}
	req_put(zb, req, 0);
}

/* ---- NAND ops ---- */

static struct zb_op *op_new(struct zns_bdev *zb, struct zb_req *req, uint32_t zone,
			    bool with_data)
{
	struct zb_op *o = calloc(1, sizeof(*o) + zb->geo->oob_size);

	if (!o)
		return NULL;
	if (with_data && !(o->data = malloc(zb->geo->page_size))) {
		free(o);
		return NULL;
	}
	o->zb = zb;
	o->req = req;
	o->zone = zone;
	o->op.prio = NAND_PRIO_HOST_WRITE;
	o->op.tenant = zb->tenant;
	o->op.nplanes = 1;
	o->op.cb_arg = o;
	return o;
}

static void op_free(struct zb_op *o)
{
	if (o->listed)
		TAILQ_REMOVE(&o->zb->ops, o, alink);
	free(o->data);
	free(o);
}

/* Submit @o (addressed, kind and callback set) for @req; 0 or -errno (@o freed). */
static int op_go(struct zns_bdev *zb, struct zb_op *o)
{
	int rc;

	if (o->req)
		o->req->pending++;
	rc = nand_rt_submit(zb->nd->rt, &o->op);
	if (rc && o->req)
		o->req->pending--;
	if (!rc) {
		TAILQ_INSERT_TAIL(&zb->ops, o, alink);
		o->listed = true;
	}
	return rc;
}

static void prog_done(struct nand_op *op)
{
	struct zb_op *o = op->cb_arg;
	struct zns_bdev *zb = o->zb;
	struct zb_zone *zz = &zb->zones[o->zone];
	struct zb_req *req = o->req;
	int status = op->status ? -EIO : 0;
	uint32_t zone = o->zone;

	TAILQ_REMOVE(&zz->progs, o, zlink);
	TAILQ_REMOVE(&zb->progs, o, glink);
	zz->inflight--;
	if (o->oob.flags & ZB_OOB_RESET) {
		/* A deferred reset's marker (bdev_zns_plm.c): the zone leaves its row. */
		zz->reset_marked = false;
		zb_plm_reset_marked(zb, zone, !status);
		zone_clear(zb, zone);
		status = 0;
	} else if (status) {
		zb_dieoff_poll(zb); /* its die gone (in flight as it went: -EIO): every zone Offline */
		if (!zb->die_gone) {
			blox_log(zb->log, BLOX_LOG_ERR,
				 "zns: a program of zone %u failed (%d): read only", zone,
				 op->status);
			zns_zone_fail(zb->z, zone, ZNS_RONLY);
		}
	}
	op_free(o);
	if (req)
		req_put(zb, req, status);
	durable_check(zb);
	if (!zz->inflight)
		zone_idle(zb, zone);
}

/*
 * Program the zone's next physical page: @data (page_size bytes, taken
 * over; NULL: zeroes) as logical page @lpage with @nvalid LBAs, or a
 * marker (@flags). 0 or -errno.
 */
static int prog_submit(struct zns_bdev *zb, struct zb_req *req, uint32_t zone, uint32_t lpage,
		       uint32_t nvalid, uint16_t flags, uint8_t *data)
{
	struct zb_zone *zz = &zb->zones[zone];
	struct zb_op *o;
	uint32_t pidx;
	int rc;

	if (zz->pnext >= zb->l.zone_pages || (zz->row == ZB_NONE && (rc = zb_row_take(zb, zone)))) {
		free(data);
		return -ENOSPC;
	}
	o = op_new(zb, req, zone, false);
	if (!o) {
		free(data);
		return -ENOMEM;
	}
	o->data = data;
	o->lpage = lpage;
	o->oob = (struct zb_oob){ .magic = ZB_OOB_MAGIC, .zone = zone, .lpage = lpage,
				  .nvalid = (uint16_t)nvalid, .flags = flags };
	memcpy(o + 1, &o->oob, sizeof(o->oob));
	pidx = zz->pnext;
	zb_addr(zb, zz->row, pidx, &o->op.addr);
	o->op.kind = NAND_OP_PROGRAM;
	o->op.data = data;
	o->op.oob = o + 1;
	o->op.cb = prog_done;
	o->seq = ++zb->seq;
	TAILQ_INSERT_TAIL(&zz->progs, o, zlink);
	TAILQ_INSERT_TAIL(&zb->progs, o, glink);
	zz->inflight++;
	rc = op_go(zb, o);
	if (rc) {
		TAILQ_REMOVE(&zz->progs, o, zlink);
		TAILQ_REMOVE(&zb->progs, o, glink);
		zz->inflight--;
		op_free(o);
		return rc;
	}
	zz->pnext++;
	zb->programs++;
	if (!flags)
		zb->l2p[(uint64_t)zone * zb->lpages + lpage] = pidx;
	return 0;
}

static void buf_drop(struct zb_zone *zz)
{
	free(zz->buf);
	zz->buf = NULL;
	zz->buf_fill = 0;
	zz->buf_durable = 0;
}

/* A marker page saying the zone is Full, when it has a page left. */
static int mark_full(struct zns_bdev *zb, struct zb_req *req, uint32_t zone)
{
	if (zb->zones[zone].pnext >= zb->l.zone_pages)
		return 0;
	return prog_submit(zb, req, zone, ZB_NONE, 0, ZB_OOB_FINISH, NULL);
}

/*
 * Program the zone's partial page padded with zeroes (it stays in the
 * buffer for the rest of it). A zone that would have too few pages left
 * for its remaining logical pages is finished by the controller.
 */
static int zone_pad(struct zns_bdev *zb, struct zb_req *req, uint32_t zone)
{
	struct zb_zone *zz = &zb->zones[zone];
	uint32_t lpage = zz->buf_lpage;
	uint8_t *data;
	int rc;

	/* Nothing in the page, or nothing new since its last padded copy. */
	if (!zz->buf || !zz->buf_fill || zz->buf_durable == zz->buf_fill)
		return 0;
	data = malloc(zb->geo->page_size);
	if (!data)
		return -ENOMEM;
	memcpy(data, zz->buf, zz->buf_fill * ZNS_LBA_SIZE);
	memset(data + zz->buf_fill * ZNS_LBA_SIZE, 0,
	       zb->geo->page_size - zz->buf_fill * ZNS_LBA_SIZE);
	rc = prog_submit(zb, req, zone, lpage, zz->buf_fill, 0, data);
	if (rc)
		return rc;
	zz->buf_durable = zz->buf_fill;
	zb->pads++;
	if (zns_zone(zb->z, zone)->state != ZNS_FULL &&
	    zb->l.zone_pages - zz->pnext < zb->lpages - lpage) {
		blox_log(zb->log, BLOX_LOG_INFO,
			 "zns: zone %u has used its reserve of pages for flushes: finished", zone);
		zns_zone_finish_by_ctrl(zb->z, zone);
		buf_drop(zz);
		return mark_full(zb, req, zone);
	}
	return 0;
}

/* ---- reads ---- */

static void read_done(struct nand_op *op)
{
	struct zb_op *o = op->cb_arg;
	struct zns_bdev *zb = o->zb;
	struct zb_req *req = o->req;
	int status = op->status ? -EIO : 0;

	if (!status)
		iov_copy(req->io, o->ioff, o->data + (uint64_t)o->first * ZNS_LBA_SIZE,
			 (uint64_t)o->n * ZNS_LBA_SIZE, true);
	else
		zb_dieoff_poll(zb);
	op_free(o);
	req_put(zb, req, status);
	/* A migration may wait for the reads of a row's old blocks. */
	zb_mig_kick(zb);
}

/* The newest program in flight of logical page @lpage of @zz, or NULL. */
static const struct zb_op *prog_of(const struct zb_zone *zz, uint32_t lpage)
{
	const struct zb_op *o;

	TAILQ_FOREACH_REVERSE(o, &zz->progs, zb_ops_head, zlink)
		if (o->lpage == lpage && !o->oob.flags)
			return o;
	return NULL;
}

/* @n LBAs of logical page @lpage of @zone from LBA @first of it, to io byte @ioff. */
static int read_page(struct zns_bdev *zb, struct zb_req *req, uint32_t zone, uint32_t lpage,
		     uint32_t first, uint32_t n, uint64_t ioff)
{
	struct zb_zone *zz = &zb->zones[zone];
	uint32_t pidx = zb->l2p[(uint64_t)zone * zb->lpages + lpage];
	uint64_t off = (uint64_t)first * ZNS_LBA_SIZE, len = (uint64_t)n * ZNS_LBA_SIZE;
	const struct zb_op *p;
	struct zb_op *o;
	int rc;

	if (zz->buf && zz->buf_fill && zz->buf_lpage == lpage) {
		iov_copy(req->io, ioff, zz->buf + off, len, true);
		return 0;
	}
	if ((p = prog_of(zz, lpage))) {
		iov_copy(req->io, ioff, p->data + off, len, true);
		return 0;
	}
	if (pidx == ZB_NONE) {
		iov_zero(req->io, ioff, len);
		return 0;
	}
	o = op_new(zb, req, zone, true);
	if (!o)
		return -ENOMEM;
	zb_addr(zb, zz->row, pidx, &o->op.addr);
	o->op.kind = NAND_OP_READ;
	o->op.prio = NAND_PRIO_HOST_READ;
	o->op.data = o->data;
	o->op.xfer_bytes = (uint32_t)len;
	o->op.cb = read_done;
	o->first = first;
	o->n = n;
	o->ioff = ioff;
	rc = op_go(zb, o);
	if (rc)
		op_free(o);
	else
		zb->reads++;
	return rc;
}

static void zb_read(struct zns_bdev *zb, struct zb_req *req)
{
	const struct blox_io *io = req->io;
	uint64_t slba = io->offset / ZNS_LBA_SIZE, nlb = io->len / ZNS_LBA_SIZE;
	enum zns_status st = zns_read_check(zb->z, slba, (uint32_t)nlb);
	uint64_t lba = slba;
	int rc = 0;

	if (nlb > UINT32_MAX || st != ZNS_OK) {
		refuse(zb, req, nlb > UINT32_MAX ? ZNS_LBA_RANGE : st);
		return;
	}
	while (lba < slba + nlb && !rc) {
		uint32_t zone = zns_zone_of(zb->z, lba);
		uint64_t zslba = zns_zslba(zb->z, zone), in = lba - zslba;
		uint64_t wp = zns_zone(zb->z, zone)->wp;
		uint32_t s = (uint32_t)(in % zb->l.slots);
		uint32_t n = (uint32_t)BLOX_MIN(zb->l.slots - s, slba + nlb - lba);
		uint64_t ioff = (lba - slba) * ZNS_LBA_SIZE;
		/* LBAs at or past the write pointer read as zeroes. */
		uint32_t v = lba >= wp ? 0 : (uint32_t)BLOX_MIN(n, wp - lba);

		if (v)
			rc = read_page(zb, req, zone, (uint32_t)(in / zb->l.slots), s, v, ioff);
		if (v < n)
			iov_zero(io, ioff + (uint64_t)v * ZNS_LBA_SIZE,
				 (uint64_t)(n - v) * ZNS_LBA_SIZE);
		lba += n;
	}
	req_put(zb, req, rc);
}

/* ---- writes ---- */

/* @nlb LBAs of the command's data (from io byte 0) at LBA @in of @zone. */
static int write_data(struct zns_bdev *zb, struct zb_req *req, uint32_t zone, uint64_t in,
		      uint32_t nlb)
{
	struct zb_zone *zz = &zb->zones[zone];
	uint32_t slots = zb->l.slots, pos = 0;
	int rc = 0;

	while (pos < nlb && !rc) {
		uint32_t lpage = (uint32_t)((in + pos) / slots), s = (uint32_t)((in + pos) % slots);
		uint32_t n = BLOX_MIN(slots - s, nlb - pos);
		uint64_t ioff = (uint64_t)pos * ZNS_LBA_SIZE, len = (uint64_t)n * ZNS_LBA_SIZE;
		uint8_t *data;

		pos += n;
		if (s == 0 && n == slots) {
			/* A whole page: straight to flash. */
			if (!(data = malloc(zb->geo->page_size)))
				return -ENOMEM;
			iov_copy(req->io, ioff, data, len, false);
			rc = prog_submit(zb, req, zone, lpage, slots, 0, data);
			continue;
		}
		if (!zz->buf && !(zz->buf = malloc(zb->geo->page_size)))
			return -ENOMEM;
		if (zz->buf_lpage != lpage)
			zz->buf_durable = 0;
		zz->buf_lpage = lpage;
		iov_copy(req->io, ioff, zz->buf + (uint64_t)s * ZNS_LBA_SIZE, len, false);
		zz->buf_fill = s + n;
		if (zz->buf_fill < slots)
			continue;
		/* The buffered page is whole now. */
		if (!(data = malloc(zb->geo->page_size)))
			return -ENOMEM;
		memcpy(data, zz->buf, zb->geo->page_size);
		zz->buf_fill = 0;
		zz->buf_durable = 0;
		rc = prog_submit(zb, req, zone, lpage, slots, 0, data);
	}
	return rc;
}

static void zb_write(struct zns_bdev *zb, struct zb_req *req)
{
	struct blox_io *io = req->io;
	uint64_t slba = io->offset / ZNS_LBA_SIZE, nlb = io->len / ZNS_LBA_SIZE, lba = slba;
	uint32_t zone;
	enum zns_status st;
	int rc;

	if (nlb == 0 || nlb > UINT32_MAX) {
		refuse(zb, req, nlb ? ZNS_LBA_RANGE : ZNS_INVALID_FIELD);
		return;
	}
	if (io->op == BLOX_IO_ZONE_APPEND) {
		if (nlb * ZNS_LBA_SIZE > ZB_MAX_APPEND) {
			refuse(zb, req, ZNS_INVALID_FIELD);
			return;
		}
		st = zns_append(zb->z, slba, (uint32_t)nlb, &lba, NULL);
		io->result = lba;
	} else {
		st = zns_write(zb->z, slba, (uint32_t)nlb, NULL);
	}
	if (st != ZNS_OK) {
		/* A host writing out of order (Linux before 6.10 without mq-deadline). */
		if (st == ZNS_INVALID_WRITE)
			blox_log(zb->log, BLOX_LOG_DEBUG,
				 "zns: Zone Invalid Write: LBA %lu (%lu LBAs), zone %u's write "
				 "pointer at %lu",
				 (unsigned long)slba, (unsigned long)nlb, zns_zone_of(zb->z, slba),
				 (unsigned long)zns_zone(zb->z, zns_zone_of(zb->z, slba))->wp);
		refuse(zb, req, st);
		return;
	}
	zone = zns_zone_of(zb->z, lba);
	rc = write_data(zb, req, zone, lba - zns_zslba(zb->z, zone), (uint32_t)nlb);
	if (!rc && zns_zone(zb->z, zone)->state == ZNS_FULL) {
		/* A capacity that ends inside a page: its last page goes now. */
		rc = zone_pad(zb, req, zone);
		buf_drop(&zb->zones[zone]);
	}
	if (!rc && (io->fua || zb->cache_off)) {
		rc = zone_pad(zb, req, zone);
		req->durable = true;
		req->seq = zb->seq;
	}
	req_put(zb, req, rc);
}

static void zb_flush(struct zns_bdev *zb, struct zb_req *req)
{
	int rc = 0;

	for (uint32_t zone = 0; zone < zb->l.nr_zones && !rc; zone++)
		rc = zone_pad(zb, req, zone);
	req->durable = true;
	req->seq = zb->seq;
	req_put(zb, req, rc);
}

/* ---- zone actions ---- */

/* @zone reset: it has no row (erased, or waiting for its erase) and no data. */
static void zone_clear(struct zns_bdev *zb, uint32_t zone)
{
	struct zb_zone *zz = &zb->zones[zone];

	if (zz->row != ZB_NONE)
		zb->row_zone[zz->row] = ZB_NONE;
	zz->row = ZB_NONE;
	zz->pnext = 0;
	zz->resetting = false;
	for (uint32_t i = 0; i < zb->lpages; i++)
		zb->l2p[(uint64_t)zone * zb->lpages + i] = ZB_NONE;
}

static void erase_done(struct nand_op *op)
{
	struct zb_op *o = op->cb_arg;
	struct zns_bdev *zb = o->zb;
	struct zb_zone *zz = &zb->zones[o->zone];
	struct zb_req *req = o->req;
	uint32_t zone = o->zone;

	zz->inflight--;
	if (op->status) {
		blox_log(zb->log, BLOX_LOG_ERR, "zns: an erase of zone %u failed (%d): offline",
			 zone, op->status);
		zns_zone_fail(zb->z, zone, ZNS_OFFLINE);
		zb_dieoff_poll(zb);
	}
	op_free(o);
	/* Erased: nothing of the zone is anywhere any more; its row is free. */
	if (!zz->inflight)
		zone_clear(zb, zone);
	if (req)
		req_put(zb, req, 0);
	if (!zz->inflight)
		zone_idle(zb, zone);
}

/* Erase every block of @zone (none of its programs in flight). */
static int erase_zone(struct zns_bdev *zb, struct zb_req *req, uint32_t zone)
{
	struct zb_zone *zz = &zb->zones[zone];
	uint32_t stripe = zb->l.ndies * zb->l.planes;
	int rc = 0;

	for (uint32_t s = 0; s < stripe && !rc; s++) {
		struct zb_op *o = op_new(zb, req, zone, false);

		if (!o)
			return s ? 0 : -ENOMEM; /* the others end the reset */
		zb_addr(zb, zz->row, s, &o->op.addr);
		o->op.addr.page = 0;
		o->op.kind = NAND_OP_ERASE;
		o->op.prio = NAND_PRIO_ERASE;
		o->op.cb = erase_done;
		zz->inflight++;
		rc = op_go(zb, o);
		if (rc) {
			zz->inflight--;
			op_free(o);
		} else {
			zb->erases++;
		}
	}
	return rc;
}

/* The reset's erases start once the zone's programs are done. */
static void zone_idle(struct zns_bdev *zb, uint32_t zone)
{
	struct zb_zone *zz = &zb->zones[zone];

	if (zz->resetting && zz->reset_req) {
		struct zb_req *req = zz->reset_req;
		int rc;

		zz->reset_req = NULL;
		if (zb_plm_defer_reset(zb, zone)) {
			/* In a DTWIN: a marker page now, the erase later (bdev_zns_plm.c). */
			rc = prog_submit(zb, req, zone, ZB_NONE, 0, ZB_OOB_RESET, NULL);
			if (!rc) {
				zz->reset_marked = true;
				req_put(zb, req, 0);
				return;
			}
			zb->plm.mark[zz->row] = ZB_NONE;
		}
		rc = erase_zone(zb, req, zone);
		if (rc || !zz->inflight)
			zz->resetting = false;
		req_put(zb, req, rc);
		return;
	}
	if (zz->resetting)
		return;
	zb_resubmit_waiting(zb);
	/* A migration may wait for the zone. */
	zb_mig_kick(zb);
}

void zb_resubmit_waiting(struct zns_bdev *zb)
{
	TAILQ_HEAD(, blox_io) again = TAILQ_HEAD_INITIALIZER(again);
	struct blox_io *io;

	/* Commands that waited (a reset, a row's copy): again, in order. */
	TAILQ_CONCAT(&again, &zb->waiting, link);
	while ((io = TAILQ_FIRST(&again))) {
		TAILQ_REMOVE(&again, io, link);
		zb_submit(&zb->base, io);
	}
}

static enum zns_status zone_act(struct zns_bdev *zb, struct zb_req *req, uint32_t zone,
				enum zns_action act, int *rc)
{
	struct zb_zone *zz = &zb->zones[zone];
	enum zns_state before = zns_zone(zb->z, zone)->state;
	enum zns_status st = zns_action(zb->z, act, zone);

	if (st != ZNS_OK)
		return st;
	if (act == ZNS_ACT_RESET && before != ZNS_EMPTY) {
		buf_drop(zz);
		if (zz->row == ZB_NONE && !zz->inflight)
			return ZNS_OK;
		zz->resetting = true;
		zz->reset_req = req;
		req->pending++; /* held until the erases start (zone_idle) */
		if (!zz->inflight)
			zone_idle(zb, zone);
	} else if (act == ZNS_ACT_FINISH && before != ZNS_FULL) {
		*rc = zone_pad(zb, req, zone);
		buf_drop(zz);
		if (!*rc && zns_zone(zb->z, zone)->attrs == 0)
			*rc = mark_full(zb, req, zone);
	}
	return ZNS_OK;
}

static void zb_mgmt(struct zns_bdev *zb, struct zb_req *req)
{
	struct blox_io *io = req->io;
	enum zns_action act = io->zone_action;
	uint64_t slba = io->offset / ZNS_LBA_SIZE;
	enum zns_status st = ZNS_OK;
	int rc = 0;

	if (act < ZNS_ACT_CLOSE || act > ZNS_ACT_OFFLINE) {
		refuse(zb, req, ZNS_INVALID_FIELD);
		return;
	}
	if (!io->zone_all) {
		if (slba >= zns_nlbas(zb->z))
			st = ZNS_LBA_RANGE;
		else if (slba % zb->l.zone_size)
			st = ZNS_INVALID_FIELD;
		else
			st = zone_act(zb, req, zns_zone_of(zb->z, slba), act, &rc);
	} else {
		/* Open all: only when every closed zone can be opened. */
		if (act == ZNS_ACT_OPEN && zns_max_open(zb->z)) {
			struct zns_counts c;

			zns_counts(zb->z, &c);
			if (c.by_state[ZNS_CLOSED] + c.open > zns_max_open(zb->z))
				st = ZNS_TOO_MANY_OPEN;
		}
		for (uint32_t zone = 0; zone < zb->l.nr_zones && st == ZNS_OK && !rc; zone++)
			if (zns_action_selects(zb->z, act, zone))
				st = zone_act(zb, req, zone, act, &rc);
	}
	if (st != ZNS_OK) {
		refuse(zb, req, st);
		return;
	}
	req_put(zb, req, rc);
}

/* ---- submit ---- */

/*
 * Is @io about a zone being reset (or, a zone action, any zone), or one a
 * migration copies? It waits then, behind the others that wait; a read
 * needs no order and waits for nothing.
 */
static bool must_wait(const struct zns_bdev *zb, const struct blox_io *io)
{
	uint64_t lba = io->offset / ZNS_LBA_SIZE;

	if (io->op == BLOX_IO_READ)
		return false;
	if (!TAILQ_EMPTY(&zb->waiting) || zb_mig_blocks(zb, io))
		return true;
	if (io->op == BLOX_IO_ZONE_MGMT) {
		for (uint32_t i = 0; i < zb->l.nr_zones; i++)
			if (zb->zones[i].resetting)
				return true;
		return false;
	}
	if (io->op != BLOX_IO_WRITE && io->op != BLOX_IO_ZONE_APPEND &&
	    io->op != BLOX_IO_WRITE_ZEROES)
		return false;
	return lba < zns_nlbas(zb->z) && zb->zones[zns_zone_of(zb->z, lba)].resetting;
}

void zb_req_finish(struct zns_bdev *zb, struct zb_req *req)
{
	req_finish(zb, req);
}

void zb_op_free(struct zb_op *o)
{
	op_free(o);
}

struct zb_op *zb_op_new(struct zns_bdev *zb, struct zb_req *req, uint32_t zone, bool with_data)
{
	return op_new(zb, req, zone, with_data);
}

int zb_op_go(struct zns_bdev *zb, struct zb_op *o)
{
	return op_go(zb, o);
}

void zb_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);
	struct zb_req *req;

	if (!zb->z) { /* a power cut's rebuild failed */
		io->status = -EIO;
		blox_io_cq_post(bdev->cq, io);
		return;
	}
	zb_dieoff_poll(zb); /* a die gone, or back (bdev_zns_offline.c) */
	io->nvme_status = 0;
	io->zone_changes = zns_changes(zb->z);
	if (io->offset % ZNS_LBA_SIZE || io->len % ZNS_LBA_SIZE) {
		io->status = -EINVAL;
		blox_io_cq_post(bdev->cq, io);
		return;
	}
	if (must_wait(zb, io)) {
		TAILQ_INSERT_TAIL(&zb->waiting, io, link);
		return;
	}
	zb_plm_host_io(zb, io); /* counted against a deterministic window's limits */
	req = calloc(1, sizeof(*req));
	if (!req) {
		io->status = -ENOMEM;
		blox_io_cq_post(bdev->cq, io);
		return;
	}
	req->io = io;
	req->pending = 1;
	switch (io->op) {
	case BLOX_IO_READ:
		zb_read(zb, req);
		break;
	case BLOX_IO_WRITE:
	case BLOX_IO_WRITE_ZEROES:
	case BLOX_IO_ZONE_APPEND:
		zb_write(zb, req);
		break;
	case BLOX_IO_FLUSH:
		zb_flush(zb, req);
		break;
	case BLOX_IO_TRIM:
		/* Deallocation is advisory: a zone's data goes with its reset. */
		req_put(zb, req, 0);
		break;
	case BLOX_IO_ZONE_MGMT:
		zb_mgmt(zb, req);
		break;
	}
}
