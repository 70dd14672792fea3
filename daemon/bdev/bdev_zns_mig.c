/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Die migrations of the "zns" backend (FlashBlox moves of a zoned vSSD):
 * one die slot moves to another die while the namespace serves I/O, a row
 * of blocks at a time (bdev_zns.h, struct zb_mig).
 *
 * A row: wait until its zone has no program, erase or reset in flight
 * (its writes, its zone actions and Flushes wait from then on); copy each
 * of its pages on the slot below the zone's next page, read from the old
 * die and programmed at the same place of the new one (OOB included: a
 * hole gets a filler page), with the model's timing; switch the row to
 * the new die and let the waiting commands go; when no host read of the
 * old die's blocks of the row is left in flight, erase those blocks. A
 * free row is switched with nothing to copy. Rows go in order; a share
 * below 1000 waits after each row so that the copy takes at most that
 * permille of the time.
 *
 * Crashes. At any time a row's pages on the slot are whole on one die: the
 * old one until the copy ends, then both (the same pages) until the old
 * one is erased, then the new one, which alone takes new pages. So after
 * a crash the die with more of the row's pages holds it, the target on a
 * tie (a finished copy); the other die's blocks of the row are erased and
 * the migration goes on from there (forward or cancelling, as persisted).
 *
 * Pause, cancel and the end take effect between rows: a row under way is
 * finished first (its zone waits for no longer than its copy).
 */
#include "bdev_zns.h"
#include "blox_log.h"
#include "blox_util.h"
#include "nand_rt.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

static void mig_step(struct zns_bdev *zb);

uint32_t zb_die_of(const struct zns_bdev *zb, uint32_t row, uint32_t slot)
{
	const struct zb_mig *m = &zb->mig;

	if (m->active && slot == m->slot)
		return m->at_dst[row] ? m->dst : m->src;
	return zb->dies[slot];
}

/* The die rows go to now, and the one they leave. */
static uint32_t to_die(const struct zb_mig *m)
{
	return m->reverse ? m->src : m->dst;
}

static uint32_t from_die(const struct zb_mig *m)
{
	return m->reverse ? m->dst : m->src;
}

/*
 * The row under way keeps the direction it started in (a cancel asked
 * meanwhile turns the rows after it): where it goes, and where it leaves.
 */
static uint32_t row_to(const struct zb_mig *m)
{
	return m->row_rev ? m->src : m->dst;
}

static uint32_t row_from(const struct zb_mig *m)
{
	return m->row_rev ? m->dst : m->src;
}

static void die_block(const struct zns_bdev *zb, uint32_t die, uint32_t plane, uint32_t row,
		      struct nand_addr *a)
{
	*a = (struct nand_addr){ .ch = die / zb->geo->dies_per_channel,
				 .die = die % zb->geo->dies_per_channel,
				 .plane = plane,
				 .block = zb->l.first_block + row };
}

/* Pages programmed in @row's blocks of @die. */
static uint32_t row_pages(const struct zns_bdev *zb, uint32_t row, uint32_t die)
{
	uint32_t n = 0;

	for (uint32_t pl = 0; pl < zb->l.planes; pl++) {
		struct nand_addr a;

		die_block(zb, die, pl, row, &a);
		n += zb->store->blocks[nand_block_index(zb->geo, &a)].write_ptr;
	}
	return n;
}

/* Whether a block of @die in the namespace's rows is bad. */
static bool die_bad(const struct zns_bdev *zb, uint32_t die, uint32_t *row)
{
	for (uint32_t r = 0; r < zb->nr_rows; r++)
		for (uint32_t pl = 0; pl < zb->l.planes; pl++) {
			struct nand_addr a;

			die_block(zb, die, pl, r, &a);
			if (zb->store->blocks[nand_block_index(zb->geo, &a)].flags & NAND_BLOCK_BAD) {
				*row = r;
				return true;
			}
		}
	return false;
}

/* Pages of the slot among a zone's physical pages [from, to). */
static uint32_t slot_pages(const struct zns_bdev *zb, uint32_t from, uint32_t to)
{
	uint32_t s = zb->mig.slot, nd = zb->l.ndies;
	uint32_t a = from <= s ? 0 : (from - s + nd - 1) / nd;
	uint32_t b = to <= s ? 0 : (to - s + nd - 1) / nd;

	return b > a ? b - a : 0;
}

bool zb_mig_blocks(const struct zns_bdev *zb, const struct blox_io *io)
{
	const struct zb_mig *m = &zb->mig;
	uint64_t lba = io->offset / ZNS_LBA_SIZE;
	uint32_t zone;

	if (!m->active || m->row == ZB_NONE || (m->phase != ZM_WAIT && m->phase != ZM_COPY))
		return false;
	if (io->op == BLOX_IO_FLUSH || io->op == BLOX_IO_ZONE_MGMT)
		return true;
	if (io->op != BLOX_IO_WRITE && io->op != BLOX_IO_ZONE_APPEND &&
	    io->op != BLOX_IO_WRITE_ZEROES)
		return false;
	if (lba >= zns_nlbas(zb->z))
		return false;
	zone = zns_zone_of(zb->z, lba);
	return zb->row_zone[m->row] == zone;
}

/* ---- the steps ---- */

static void op_ended(struct zns_bdev *zb, struct zb_op *o, int *status)
{
	struct zb_mig *m = &zb->mig;

	*status = o->op.status;
	if (o->op.done_ns > o->op.start_ns)
		m->busy_ns += o->op.done_ns - o->op.start_ns;
	m->inflight--;
	zb_op_free(o);
}

/* A copy op or erase failed: the row's new blocks go, the migration pauses. */
static void mig_fail(struct zns_bdev *zb, int status)
{
	struct zb_mig *m = &zb->mig;

	blox_log(zb->log, BLOX_LOG_ERR,
		 "zns: migration of die slot %u, row %u: a NAND op failed (%d): paused", m->slot,
		 m->row, status);
	m->status = -EIO;
	m->phase = ZM_UNDO;
}

static struct zb_op *mig_op(struct zns_bdev *zb, enum nand_op_kind kind, enum nand_prio prio,
			    nand_op_cb cb)
{
	struct zb_op *o = zb_op_new(zb, NULL, zb->mig.zone, false);

	if (!o)
		return NULL;
	o->op.kind = kind;
	o->op.prio = prio;
	o->op.cb = cb;
	return o;
}

/* Submit @o, counted in flight; 0 or -errno (@o freed). */
static int mig_go(struct zns_bdev *zb, struct zb_op *o)
{
	int rc;

	zb->mig.inflight++;
	rc = zb_op_go(zb, o);
	if (rc) {
		zb->mig.inflight--;
		zb_op_free(o);
	}
	return rc;
}

static void prog_done(struct nand_op *op)
{
	struct zb_op *o = op->cb_arg;
	struct zns_bdev *zb = o->zb;
	int status;

	op_ended(zb, o, &status);
	if (status)
		mig_fail(zb, status);
	else
		zb->mig.bytes_copied += zb->geo->page_size;
	mig_step(zb);
}

/* Program the page in the buffer at @pidx of the row on the new die. */
static int copy_program(struct zns_bdev *zb, uint32_t pidx)
{
	struct zb_mig *m = &zb->mig;
	struct zb_op *o = mig_op(zb, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, prog_done);
	uint32_t slot;

	if (!o)
		return -ENOMEM;
	zns_page_addr(&zb->l, m->row, pidx, &slot, &o->op.addr.plane, &o->op.addr.block,
		      &o->op.addr.page);
	o->op.addr.ch = row_to(m) / zb->geo->dies_per_channel;
	o->op.addr.die = row_to(m) % zb->geo->dies_per_channel;
	o->op.data = m->buf;
	o->op.oob = m->buf + zb->geo->page_size;
	return mig_go(zb, o);
}

static void read_done(struct nand_op *op)
{
	struct zb_op *o = op->cb_arg;
	struct zns_bdev *zb = o->zb;
	struct zb_mig *m = &zb->mig;
	uint32_t pidx = o->lpage;
	int status, rc;

	op_ended(zb, o, &status);
	if (!status && !m->stopping && (rc = copy_program(zb, pidx)))
		status = rc;
	if (status)
		mig_fail(zb, status);
	mig_step(zb);
}

/* Copy the row's page @pidx (on the slot): read it, then program it (read_done). */
static int copy_page(struct zns_bdev *zb, uint32_t pidx)
{
	struct zb_mig *m = &zb->mig;
	struct nand_addr a;
	struct zb_op *o;

	zb_addr(zb, m->row, pidx, &a);
	if (a.page >= zb->store->blocks[nand_block_index(zb->geo, &a)].write_ptr) {
		/* A hole (a program that failed): a filler keeps the block's order. */
		struct zb_oob f = { .magic = ZB_OOB_MAGIC, .zone = m->zone, .lpage = ZB_NONE,
				    .flags = ZB_OOB_FILLER };

		memset(m->buf, 0, zb->geo->page_size + zb->geo->oob_size);
		memcpy(m->buf + zb->geo->page_size, &f, sizeof(f));
		return copy_program(zb, pidx);
	}
	o = mig_op(zb, NAND_OP_READ, NAND_PRIO_GC_READ, read_done);
	if (!o)
		return -ENOMEM;
	o->op.addr = a;
	o->op.data = m->buf;
	o->op.oob = m->buf + zb->geo->page_size;
	o->lpage = pidx;
	return mig_go(zb, o);
}

static void erase_done(struct nand_op *op)
{
	struct zb_op *o = op->cb_arg;
	struct zns_bdev *zb = o->zb;
	int status;

	op_ended(zb, o, &status);
	if (status)
		blox_log(zb->log, BLOX_LOG_ERR,
			 "zns: migration: an erase of die %u block %u failed (%d)",
			 o->op.addr.ch * zb->geo->dies_per_channel + o->op.addr.die,
			 o->op.addr.block, status);
	mig_step(zb);
}

/* Erase @row's programmed blocks on @die; how many erases went (or -errno). */
static int erase_row_on(struct zns_bdev *zb, uint32_t row, uint32_t die)
{
	int n = 0;

	for (uint32_t pl = 0; pl < zb->l.planes; pl++) {
		struct zb_op *o;
		struct nand_addr a;
		uint64_t bi;

		die_block(zb, die, pl, row, &a);
		bi = nand_block_index(zb->geo, &a);
		if (!zb->store->blocks[bi].write_ptr || (zb->store->blocks[bi].flags & NAND_BLOCK_BAD))
			continue;
		o = mig_op(zb, NAND_OP_ERASE, NAND_PRIO_ERASE, erase_done);
		if (!o)
			return n ? n : -ENOMEM;
		o->op.addr = a;
		if (mig_go(zb, o))
			continue;
		zb->erases++;
		n++;
	}
	return n;
}

/* Host reads of @row's blocks on @die in flight. */
static bool reads_on(const struct zns_bdev *zb, uint32_t row, uint32_t die)
{
	const struct zb_op *o;

	TAILQ_FOREACH(o, &zb->ops, alink)
		if (o->req && o->op.kind == NAND_OP_READ &&
		    o->op.addr.block == zb->l.first_block + row &&
		    o->op.addr.ch * zb->geo->dies_per_channel + o->op.addr.die == die)
			return true;
	return false;
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct zns_bdev *zb = arg;

	(void)fd;
	(void)what;
	zb->mig.wake_ns = 0;
	if (zb->mig.phase == ZM_THROTTLE)
		zb->mig.phase = ZM_IDLE;
	mig_step(zb);
}

/* A row is done: the next one now, or after the share's wait. */
static void row_done(struct zns_bdev *zb)
{
	struct zb_mig *m = &zb->mig;
	uint64_t busy = m->busy_ns - m->step_ns, wait;
	struct timeval tv;

	m->row = ZB_NONE;
	m->phase = ZM_IDLE;
	if (m->share >= 1000 || !busy || !m->timer)
		return;
	wait = busy * (1000 - m->share) / m->share;
	m->wake_ns = blox_clock_now(zb->clock) + wait;
	m->phase = ZM_THROTTLE;
	tv.tv_sec = (time_t)(wait / 1000000000u);
	tv.tv_usec = (suseconds_t)(wait % 1000000000u / 1000);
	evtimer_add(m->timer, &tv);
}

static void mig_end(struct zns_bdev *zb)
{
	struct zb_mig *m = &zb->mig;

	m->active = false;
	m->done = true;
	m->status = m->reverse ? -ECANCELED : 0;
	m->finished_ns = blox_clock_now(zb->clock);
	zb->dies[m->slot] = to_die(m);
	free(m->at_dst);
	m->at_dst = NULL;
	blox_log(zb->log, BLOX_LOG_INFO,
		 "zns: die slot %u %s die %u: %u rows, %lu bytes copied in %.1f ms", m->slot,
		 m->reverse ? "back on" : "moved to", to_die(m), m->rows_copied,
		 (unsigned long)m->bytes_copied, (m->finished_ns - m->started_ns) / 1e6);
}

/* The next row not yet where the rows go, or ZB_NONE. */
static uint32_t next_row(const struct zns_bdev *zb)
{
	for (uint32_t r = 0; r < zb->nr_rows; r++)
		if (zb->mig.at_dst[r] != !zb->mig.reverse)
			return r;
	return ZB_NONE;
}

/* One step of the row under way; true to go on at once, false: wait for a callback. */
static bool step_once(struct zns_bdev *zb)
{
	struct zb_mig *m = &zb->mig;
	const struct zb_zone *zz;
	int rc;

	switch (m->phase) {
	case ZM_THROTTLE:
		return false;
	case ZM_IDLE:
		if (m->paused)
			return false;
		m->row = next_row(zb);
		if (m->row == ZB_NONE) {
			mig_end(zb);
			return false;
		}
		m->row_rev = m->reverse;
		m->step_ns = m->busy_ns;
		m->phase = ZM_WAIT;
		return true;
	case ZM_WAIT:
		/* A row whose erase waits (bdev_zns_plm.c) is erased before it moves. */
		if (zb_plm_mig_wait(zb, m->row))
			return false;
		m->zone = zb->row_zone[m->row];
		zz = m->zone == ZB_NONE ? NULL : &zb->zones[m->zone];
		if (zz && (zz->inflight || zz->resetting))
			return false;
		m->pidx = 0;
		m->pend = zz ? zz->pnext : 0;
		m->phase = ZM_COPY;
		return true;
	case ZM_COPY:
		while (m->pidx < m->pend && m->pidx % zb->l.ndies != m->slot)
			m->pidx++;
		if (m->pidx < m->pend) {
			rc = copy_page(zb, m->pidx++);
			if (rc) {
				mig_fail(zb, rc);
				return true;
			}
			return false;
		}
		if (m->zone != ZB_NONE)
			m->rows_copied++;
		m->at_dst[m->row] = !m->row_rev;
		m->phase = ZM_DRAIN;
		zb_resubmit_waiting(zb);
		return true;
	case ZM_DRAIN:
		if (reads_on(zb, m->row, row_from(m)))
			return false;
		m->phase = ZM_ERASE;
		rc = erase_row_on(zb, m->row, row_from(m));
		return rc <= 0;
	case ZM_ERASE:
		row_done(zb);
		return true;
	case ZM_UNDO:
		/* Once the failed row's ops are done: its new blocks erased, then paused. */
		if (m->row != ZB_NONE) {
			uint32_t row = m->row;

			m->row = ZB_NONE;
			zb_resubmit_waiting(zb);
			if (erase_row_on(zb, row, row_to(m)) > 0)
				return false;
		}
		m->paused = true;
		m->phase = ZM_IDLE;
		return false;
	}
	return false;
}

static void mig_step(struct zns_bdev *zb)
{
	struct zb_mig *m = &zb->mig;

	if (m->stepping) {
		m->again = true;
		return;
	}
	m->stepping = true;
	do {
		m->again = false;
		while (m->active && !m->stopping && !m->inflight && step_once(zb))
			;
	} while (m->again);
	m->stepping = false;
}

void zb_mig_kick(struct zns_bdev *zb)
{
	if (zb->mig.active)
		mig_step(zb);
}

/* ---- start, resume, control, progress ---- */

static int mig_alloc(struct zns_bdev *zb)
{
	struct zb_mig *m = &zb->mig;

	free(m->at_dst);
	m->at_dst = calloc(zb->nr_rows, 1);
	if (!m->buf)
		m->buf = malloc(zb->geo->page_size + zb->geo->oob_size);
	if (!m->timer && zb->evbase)
		m->timer = evtimer_new(zb->evbase, timer_cb, zb);
	return m->at_dst && m->buf && m->timer ? 0 : -ENOMEM;
}

/* Where each row is after a crash (see the top), the other die's blocks of it erased. */
static int mig_resolve(struct zns_bdev *zb)
{
	struct zb_mig *m = &zb->mig;
	int rc = 0;

	m->phase = ZM_IDLE;
	m->row = ZB_NONE;
	m->inflight = 0;
	m->wake_ns = 0;
	if (m->timer)
		evtimer_del(m->timer);
	for (uint32_t r = 0; r < zb->nr_rows && !rc; r++) {
		uint32_t on_to = row_pages(zb, r, to_die(m)), on_from = row_pages(zb, r, from_die(m));
		bool to = on_to && on_to >= on_from;
		uint32_t other = to ? from_die(m) : to_die(m);

		m->at_dst[r] = to ? !m->reverse : m->reverse;
		for (uint32_t pl = 0; pl < zb->l.planes && !rc && (on_to && on_from); pl++) {
			struct nand_addr a;
			uint64_t bi;

			die_block(zb, other, pl, r, &a);
			bi = nand_block_index(zb->geo, &a);
			if (zb->store->blocks[bi].write_ptr &&
			    !(zb->store->blocks[bi].flags & NAND_BLOCK_BAD))
				rc = zb->store->ops->erase(zb->store, bi);
		}
	}
	return rc;
}

int zb_mig_resume(struct zns_bdev *zb, const struct ftl_resources *res)
{
	struct zb_mig *m = &zb->mig;
	int rc;

	if (!res || !res->mig_active)
		return 0;
	if (res->mig_slot >= zb->l.ndies || res->mig_src >= nand_dies(zb->geo) ||
	    res->mig_src == zb->dies[res->mig_slot])
		return -EINVAL;
	m->slot = res->mig_slot;
	m->src = res->mig_src;
	m->dst = zb->dies[m->slot];
	m->reverse = res->mig_cancel;
	m->share = res->mig_share ? res->mig_share : 1000;
	if ((rc = mig_alloc(zb)))
		return rc;
	m->active = true;
	m->started_ns = blox_clock_now(zb->clock);
	rc = mig_resolve(zb);
	blox_log(zb->log, rc ? BLOX_LOG_ERR : BLOX_LOG_INFO,
		 "zns: die migration of slot %u (die %u to %u%s) goes on%s", m->slot, m->src,
		 m->dst, m->reverse ? ", cancelling" : "", rc ? ": its rows not found" : "");
	return rc;
}

int zb_mig_rebuild(struct zns_bdev *zb)
{
	return zb->mig.active ? mig_resolve(zb) : 0;
}

void zb_mig_fini(struct zns_bdev *zb)
{
	struct zb_mig *m = &zb->mig;

	/*
	 * Its ops in flight end (the device driven to them: nobody waits);
	 * a row cut short is the old die's again at the next start.
	 */
	m->stopping = true;
	zb_drive(zb, &m->inflight);
	if (m->timer)
		event_free(m->timer);
	m->timer = NULL;
	free(m->at_dst);
	m->at_dst = NULL;
	free(m->buf);
	m->buf = NULL;
}

static struct zns_bdev *mig_zb(struct blox_bdev *bdev)
{
	return zb_is(bdev) ? container_of(bdev, struct zns_bdev, base) : NULL;
}

int zb_migrate_start(struct blox_bdev *bdev, uint32_t from, uint32_t to, uint32_t share)
{
	struct zns_bdev *zb = mig_zb(bdev);
	struct zb_mig *m;
	uint32_t slot = ZB_NONE, bad;
	int rc;

	if (!zb || !zb->z)
		return -EOPNOTSUPP;
	m = &zb->mig;
	for (uint32_t s = 0; s < zb->l.ndies; s++) {
		if (zb->dies[s] == from)
			slot = s;
		if (zb->dies[s] == to)
			return -EINVAL;
	}
	if (slot == ZB_NONE)
		return -ENOENT;
	if (to >= nand_dies(zb->geo) || share > 1000)
		return -EINVAL;
	if (m->active || m->stopping)
		return -EBUSY;
	/* The new die's blocks of the rows must be erased (as the FTL asks). */
	for (uint32_t r = 0; r < zb->nr_rows; r++)
		if (row_pages(zb, r, to))
			return -EBUSY;
	/*
	 * A zone's pages stay at their place in the row: a bad block on either
	 * die would change which rows are good (and which zones Read Only).
	 */
	if (die_bad(zb, from, &bad) || die_bad(zb, to, &bad)) {
		blox_log(zb->log, BLOX_LOG_ERR,
			 "zns: die %u cannot move to die %u: row %u has a bad block on one of them, "
			 "and a zone's pages stay in place (no FTL to remap them)",
			 from, to, bad);
		return -EOPNOTSUPP;
	}
	m->slot = slot;
	m->src = from;
	m->dst = to;
	if ((rc = mig_alloc(zb)))
		return rc;
	m->reverse = m->paused = m->done = false;
	m->status = 0;
	m->share = share ? share : 1000;
	m->phase = ZM_IDLE;
	m->row = ZB_NONE;
	m->rows_copied = 0;
	m->bytes_copied = m->busy_ns = m->finished_ns = 0;
	m->started_ns = blox_clock_now(zb->clock);
	zb->dies[slot] = to;
	m->active = true;
	blox_log(zb->log, BLOX_LOG_INFO, "zns: die slot %u moves from die %u to die %u", slot,
		 from, to);
	mig_step(zb);
	return 0;
}

int zb_migrate_ctl(struct blox_bdev *bdev, enum blox_mig_ctl what, uint32_t share)
{
	struct zns_bdev *zb = mig_zb(bdev);
	struct zb_mig *m;

	if (!zb)
		return -EOPNOTSUPP;
	m = &zb->mig;
	if (!m->active)
		return -EINVAL;
	switch (what) {
	case BLOX_MIG_PAUSE:
		if (m->paused)
			return -EINVAL;
		m->paused = true;
		return 0;
	case BLOX_MIG_RESUME:
		if (!m->paused || m->phase == ZM_UNDO)
			return -EINVAL;
		m->paused = false;
		m->status = 0;
		break;
	case BLOX_MIG_CANCEL:
		if (m->reverse)
			return -EINVAL;
		/* The row under way ends first; then the rows moved go back. */
		m->reverse = true;
		m->paused = false;
		m->status = 0;
		m->rows_copied = 0;
		m->bytes_copied = 0;
		break;
	case BLOX_MIG_SHARE:
		if (share < 1 || share > 1000)
			return -EINVAL;
		m->share = share;
		return 0;
	default:
		return -EINVAL;
	}
	mig_step(zb);
	return 0;
}

int zb_migrate_progress(struct blox_bdev *bdev, struct ftl_migrate_progress *out,
			struct ftl_resources *res)
{
	struct zns_bdev *zb = mig_zb(bdev);
	const struct zb_mig *m;

	if (!zb)
		return -EOPNOTSUPP;
	m = &zb->mig;
	if (out) {
		uint32_t left = 0, rows_left = 0;

		memset(out, 0, sizeof(*out));
		out->state = m->active ? (m->paused ? FTL_MIG_PAUSED
				    : m->reverse	? FTL_MIG_CANCELLING
							: FTL_MIG_RUNNING)
			 : m->done ? FTL_MIG_DONE
				   : FTL_MIG_NONE;
		out->status = m->status;
		out->slot = m->slot;
		out->src = m->reverse ? m->dst : m->src;
		out->dst = m->reverse ? m->src : m->dst;
		out->share = m->share;
		out->reverse = m->reverse;
		for (uint32_t r = 0; m->active && r < zb->nr_rows; r++) {
			uint32_t zone = zb->row_zone[r];

			if (m->at_dst[r] == !m->reverse || zone == ZB_NONE)
				continue;
			if (r == m->row && m->phase == ZM_COPY)
				left += slot_pages(zb, m->pidx, m->pend);
			else
				left += slot_pages(zb, 0, zb->zones[zone].pnext);
			rows_left++;
		}
		out->sbs_copied = m->rows_copied;
		out->sbs_total = m->rows_copied + rows_left;
		out->bytes_copied = m->bytes_copied;
		out->bytes_total = m->bytes_copied + (uint64_t)left * zb->geo->page_size;
		out->started_ns = m->started_ns;
		out->finished_ns = m->finished_ns;
		out->busy_ns = m->busy_ns;
		out->wake_ns = m->wake_ns;
	}
	if (res) {
		memset(res, 0, sizeof(*res));
		res->nr_dies = zb->l.ndies;
		memcpy(res->dies, zb->dies, sizeof(res->dies));
		res->first_block = zb->l.first_block;
		res->nr_blocks = zb->nr_rows;
		res->mig_active = m->active;
		if (m->active) {
			res->mig_slot = m->slot;
			res->mig_src = m->src;
			res->mig_cancel = m->reverse;
			res->mig_share = m->share;
		}
	}
	return 0;
}
