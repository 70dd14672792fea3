/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Online migration of one die slot of an instance to another die of its
 * device (FlashBlox, Huang et al., FAST 2017: channels and dies move
 * between tenants to even wear, with their data, while they serve I/O).
 *
 * Every flash address the FTL uses comes from ftl_fpid_addr(), which
 * asks ftl_mig_die() for the die of a slot: while a migration is active,
 * slot @slot of superblock sb is on dst when on_dst[sb] is set, on src
 * otherwise. A superblock moves by flipping its bit:
 *
 *   free (erased on both dies)   at once: at the start, when GC frees
 *                                one, and when one is opened;
 *   closed (full, checkpoint)    copied: every programmed page of its
 *                                blocks on the die it leaves (each plane
 *                                up to its write pointer) is read, data
 *                                and OOB, and programmed verbatim at the
 *                                same block/plane/page of the other die,
 *                                a batch of FTL_MIG_BATCH pages per step,
 *                                reads at GC priority, programs in the
 *                                host writes' class; then the store is synced,
 *                                the bit flips (reads go to the copy from
 *                                now on) and the blocks left behind are
 *                                erased and synced. GC does not take the
 *                                superblock meanwhile (ftl_mig_hide());
 *   open (a stream writes it)    copied once closed; when nothing else is
 *                                left, the streams holding such
 *                                superblocks are closed (their pages padded
 *                                as for a flush) and open new ones.
 *
 * A cancel runs the same machinery the other way (reverse): every
 * superblock goes back to src. A pause, a cancel or a clean stop in the
 * middle of a superblock's copy drops the copy (erases what was
 * programmed of it) and copies it again later.
 *
 * Crash safety rests on one invariant: outside the superblock being
 * copied, the die a superblock does not use has its blocks erased; during
 * a copy the copy never has more pages than the original (pages go in
 * order, the original is not written); between the flip and the end of
 * the erase both are complete and identical. So recovery (ftl_mig_recover())
 * can tell from the write pointers alone: the die with more programmed
 * pages holds the data, dst on a tie, and the other's pages are erased.
 * The store is synced after the copy's programs and before the erase of
 * the original, so the copy is durable before the original goes.
 *
 * Throttle: each step's ops are timed on the two dies (start to done,
 * overlaps counted once); the busier die's time t sets a pause of
 * t * (1000 - share) / share before the next step, so the migration takes
 * about share permille of that die's time. The instance asks its driver
 * to call ftl_process() then (ops->wake_at, if it has one).
 *
 * Flash that fails under the copy is migrate_fail.c's. This file moves
 * and copies; migrate_state.c keeps the migration's state
 * (start-up, recovery after a stop, what is persisted) and the API.
 */
#include "ftl_internal.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void mig_advance(struct ftl *f);

/*
 * The queue class of the copy's programs and erases: the host's writes'
 * own, in arrival order with them. A die serves the classes of one tenant
 * in strict order, and the copy is the vSSD's own tenant: a class below
 * its host writes (GC's) waited as long as the host kept writing, and
 * nothing paces the host for a migration as free space paces it for GC,
 * so a vSSD written all the time did not move until the writes stopped.
 * The throttle (share) is what bounds the copy's take of the die.
 */
#define MIG_PRIO_WRITE NAND_PRIO_HOST_WRITE

/* ---- dies and blocks ---- */

/* The bit superblocks go to: dst (1), or src (0) while cancelling. */
uint8_t ftl_mig_target(const struct ftl_mig *m)
{
	return m->reverse ? 0 : 1;
}

/* The die the superblocks leave, and the die they go to. */
uint32_t ftl_mig_die_from(const struct ftl_mig *m)
{
	return m->reverse ? m->dst : m->src;
}

uint32_t ftl_mig_die_to(const struct ftl_mig *m)
{
	return m->reverse ? m->src : m->dst;
}

/* Superblock @sb's block on @die, plane @plane, page @page. */
void ftl_mig_blk_addr(const struct ftl *f, uint32_t die, uint32_t sb, uint32_t plane,
		      uint32_t page, struct nand_addr *a)
{
	a->ch = die / f->geo->dies_per_channel;
	a->die = die % f->geo->dies_per_channel;
	a->plane = plane;
	a->block = f->res.first_block + sb;
	a->page = page;
	/* The slot's block of it remapped to a spare of that die (remap.c, remap_mig.c). */
	if (f->mig.active && die == f->mig.dst) {
		if (f->mig.dremap[(size_t)sb * f->planes + plane])
			a->block = f->mig.dremap[(size_t)sb * f->planes + plane] - 1;
	} else if (f->remap && f->remap[(size_t)sb * f->stripe + plane * f->ndies + f->mig.slot]) {
		a->block = f->remap[(size_t)sb * f->stripe + plane * f->ndies + f->mig.slot] - 1;
	}
}

static const struct nand_block_meta *blk_meta(const struct ftl *f, uint32_t die, uint32_t sb,
					      uint32_t plane)
{
	struct nand_addr a;

	ftl_mig_blk_addr(f, die, sb, plane, 0, &a);
	return nand_block_meta(f->env.dev, nand_block_index(f->geo, &a));
}

/* Programmed pages of superblock @sb's blocks on @die, every plane. */
uint32_t ftl_mig_die_pages(const struct ftl *f, uint32_t die, uint32_t sb)
{
	uint32_t n = 0;

	for (uint32_t p = 0; p < f->planes; p++) {
		const struct nand_block_meta *bm = blk_meta(f, die, sb, p);

		n += bm ? bm->write_ptr : 0;
	}
	return n;
}

/* Superblock @sb's erase count from the store: its most-erased block, where it is now. */
static void sb_erase_count(struct ftl *f, uint32_t sb)
{
	uint32_t ec = 0;

	for (uint32_t s = 0; s < f->stripe; s++) {
		const struct nand_block_meta *bm;
		struct nand_addr a;

		ftl_fpid_addr(f, ftl_ppn(f, sb, s * f->slots) / f->slots, &a);
		a.page = 0;
		bm = nand_block_meta(f->env.dev, nand_block_index(f->geo, &a));
		if (!bm)
			return; /* no store: keep the count the FTL kept */
		ec = bm->erase_count > ec ? bm->erase_count : ec;
	}
	f->sbs[sb].erase_count = ec;
}

uint64_t ftl_mig_now(const struct ftl *f)
{
	return f->env.ops->now(f->env.ctx);
}

int ftl_mig_sync(struct ftl *f)
{
	return f->env.ops->sync ? f->env.ops->sync(f->env.ctx) : 0;
}

/* ---- superblocks that move without a copy ---- */

void ftl_mig_sb_free(struct ftl *f, uint32_t sb)
{
	struct ftl_mig *m = &f->mig;

	if (!m->active || m->on_dst[sb] == ftl_mig_target(m))
		return;
	m->on_dst[sb] = ftl_mig_target(m);
	sb_erase_count(f, sb);
	/*
	 * The new die's known bad blocks take spares there before anything is
	 * written; none left: a program onto one fails and GC retires it.
	 */
	if (f->sbs[sb].state == SB_FREE && f->env.store)
		ftl_mig_remap_bad(f, ftl_mig_die_to(m), sb);
}

/* Free superblocks (erased on both dies) go where the migration goes. */
void ftl_mig_move_free(struct ftl *f)
{
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		if (f->sbs[sb].state == SB_FREE)
			ftl_mig_sb_free(f, sb);
}

void ftl_mig_step(struct ftl *f)
{
	if (f->mig.active)
		mig_advance(f);
}

/* ---- one step: ops, their time ---- */

/* Op @op of this step ran on die @w (0: the die copied from, 1: to). */
static void mig_busy(struct ftl_mig *m, int w, const struct nand_op *op)
{
	uint64_t s = op->start_ns > m->last_end[w] ? op->start_ns : m->last_end[w];

	if (op->done_ns > s)
		m->step_busy[w] += op->done_ns - s;
	if (op->done_ns > m->last_end[w])
		m->last_end[w] = op->done_ns;
}

static void step_begin(struct ftl_mig *m, enum mig_phase phase)
{
	m->phase = phase;
	m->pending = 0;
	m->failed = false;
	m->step_busy[0] = m->step_busy[1] = 0;
	m->last_end[0] = m->last_end[1] = 0;
}

/* The step's ops are all done: the throttle's pause after it. */
static void step_end(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	uint64_t busy = m->step_busy[0] > m->step_busy[1] ? m->step_busy[0] : m->step_busy[1];
	uint64_t now = ftl_mig_now(f);

	m->busy_ns += busy;
	/* A pause not waited out yet (a switch does not wait) adds up. */
	m->next_ns = (m->next_ns > now ? m->next_ns : now) + busy * (1000 - m->share) / m->share;
	m->phase = MIG_IDLE;
}

/* Until now passes next_ns: false, and the driver is asked to come back then. */
static bool mig_time(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (ftl_mig_now(f) >= m->next_ns)
		return true;
	if (f->env.ops->wake_at && m->wake_asked != m->next_ns) {
		m->wake_asked = m->next_ns; /* once per wait */
		f->env.ops->wake_at(f->env.ctx, m->next_ns);
	}
	return false;
}

/* An op failed or a sync did: hold everything until a resume or cancel. */
void ftl_mig_error(struct ftl *f, int status)
{
	struct ftl_mig *m = &f->mig;

	m->status = status ? status : -EIO;
	m->state = FTL_MIG_PAUSED;
}

static void op_done(struct ftl *f)
{
	f->mig.pending--;
	ftl_progress(f); /* moves the migration on too */
}

/* ---- copying a superblock ---- */

static void mig_prog_done(struct nand_op *op)
{
	struct ftl_mig_page *pg = op->cb_arg;
	struct ftl *f = pg->f;
	struct ftl_mig *m = &f->mig;

	mig_busy(m, 1, op);
	if (op->status)
		m->failed = true;
	else
		m->items_done++;
	op_done(f);
}

/* Program the batch's pages read so far, in order (pages of a block go in order). */
static void mig_pump(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	while (!m->failed && m->progs_issued < m->batch && m->pages[m->progs_issued].read_done) {
		struct ftl_mig_page *pg = &m->pages[m->progs_issued++];
		struct nand_op *op = &pg->pg;

		memset(op, 0, sizeof(*op));
		op->kind = NAND_OP_PROGRAM;
		op->prio = MIG_PRIO_WRITE;
		ftl_mig_blk_addr(f, ftl_mig_die_to(m), (uint32_t)m->sb, pg->plane, pg->page, &op->addr);
		op->nplanes = 1;
		op->data = pg->data;
		op->oob = pg->oob; /* verbatim: the FTL's OOB records as they are */
		op->cb = mig_prog_done;
		op->cb_arg = pg;
		op->tenant = f->cfg.tenant;
		op->status = f->env.ops->submit(f->env.ctx, op);
		if (op->status) {
			m->failed = true; /* a bad block fails at submit: -EIO */
			break;
		}
		m->pending++;
	}
}

static void mig_read_done(struct nand_op *op)
{
	struct ftl_mig_page *pg = op->cb_arg;
	struct ftl *f = pg->f;
	struct ftl_mig *m = &f->mig;

	mig_busy(m, 0, op);
	/* Only programmed pages are read: an erased one means it changed under us. */
	if (op->status || op->erased)
		m->failed = true;
	pg->read_done = true;
	mig_pump(f);
	op_done(f);
}

/* Read the next batch of the superblock's pages (plane by plane, page by page). */
static void mig_batch(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	step_begin(m, MIG_COPY);
	m->batch = m->progs_issued = 0;
	while (m->batch < FTL_MIG_BATCH && m->items_done + m->batch < m->items) {
		struct ftl_mig_page *pg;

		while (m->cur_page >= m->wp[m->cur_plane]) {
			if (++m->cur_plane == f->planes) {
				m->cur_plane = 0;
				m->cur_page++;
			}
		}
		pg = &m->pages[m->batch++];
		pg->plane = m->cur_plane;
		pg->page = m->cur_page;
		pg->read_done = false;
		if (++m->cur_plane == f->planes) {
			m->cur_plane = 0;
			m->cur_page++;
		}
	}
	for (uint32_t i = 0; i < m->batch; i++) {
		struct ftl_mig_page *pg = &m->pages[i];
		struct nand_op *op = &pg->rd;

		memset(op, 0, sizeof(*op));
		op->kind = NAND_OP_READ;
		op->prio = NAND_PRIO_GC_READ;
		ftl_mig_blk_addr(f, ftl_mig_die_from(m), (uint32_t)m->sb, pg->plane, pg->page, &op->addr);
		op->nplanes = 1;
		op->data = pg->data;
		op->oob = pg->oob;
		op->cb = mig_read_done;
		op->cb_arg = pg;
		op->tenant = f->cfg.tenant;
		if (f->env.ops->submit(f->env.ctx, op)) {
			m->failed = true;
			break;
		}
		m->pending++;
	}
}

static void mig_erase_done(struct nand_op *op)
{
	struct ftl *f = op->cb_arg;
	struct ftl_mig *m = &f->mig;

	mig_busy(m, m->phase == MIG_ERASE ? 0 : 1, op);
	if (op->status)
		m->failed = true;
	op_done(f);
}

/* Erase superblock @sb's blocks on @die that hold pages (@w: which die for the throttle). */
static void mig_erase(struct ftl *f, uint32_t die, enum mig_phase phase)
{
	struct ftl_mig *m = &f->mig;

	step_begin(m, phase);
	memset(m->erase_ops, 0, f->planes * sizeof(*m->erase_ops));
	for (uint32_t p = 0; p < f->planes; p++) {
		struct nand_op *op = &m->erase_ops[p];
		const struct nand_block_meta *bm = blk_meta(f, die, (uint32_t)m->sb, p);

		/* A bad block is not erased (it cannot be): it takes a spare at the step's end. */
		if (!bm || bm->write_ptr == 0 || (bm->flags & NAND_BLOCK_BAD))
			continue;
		op->kind = NAND_OP_ERASE;
		op->prio = MIG_PRIO_WRITE;
		ftl_mig_blk_addr(f, die, (uint32_t)m->sb, p, 0, &op->addr);
		op->nplanes = 1;
		op->cb = mig_erase_done;
		op->cb_arg = f;
		f->st.flash_erases++;
		/* Media erased of the superblock's handle, as GC's erases count (FDP statistics). */
		ftl_fdp_of(f, m->sb)->erased_bytes += (uint64_t)(f->units_per_sb / f->stripe) * FTL_UNIT;
		op->tenant = f->cfg.tenant;
		op->status = f->env.ops->submit(f->env.ctx, op);
		if (op->status) {
			m->failed = true;
			break;
		}
		m->pending++;
	}
}

/*
 * Every page is copied: make the copy durable, switch the superblock to
 * it, erase what it leaves behind. Host reads already queued on the old
 * die run before the erase (reads come first on a die); new ones go to
 * the copy.
 */
static void mig_switch(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	int rc = m->items ? ftl_mig_sync(f) : 0;

	if (rc) {
		ftl_mig_error(f, rc);
		return;
	}
	m->on_dst[m->sb] = ftl_mig_target(m);
	m->switched = true;
	sb_erase_count(f, (uint32_t)m->sb);
	mig_erase(f, ftl_mig_die_from(m), MIG_ERASE);
}

/* The superblock is done with (moved, or its copy dropped). */
static void mig_release(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (m->switched) {
		m->sbs_copied++;
		m->bytes_copied += (uint64_t)m->items * f->geo->page_size;
	}
	m->sb = -1;
	m->switched = m->redo = false;
	m->items = m->items_done = 0;
}

/* Take superblock @sb to copy; false: the die it goes to has no good block for it. */
static bool mig_take(struct ftl *f, uint32_t sb)
{
	struct ftl_mig *m = &f->mig;

	m->sb = (int32_t)sb;
	m->switched = m->redo = false;
	m->items = m->items_done = 0;
	m->cur_page = m->cur_plane = 0;
	for (uint32_t p = 0; p < f->planes; p++) {
		const struct nand_block_meta *bm = blk_meta(f, ftl_mig_die_from(m), sb, p);

		m->wp[p] = bm ? bm->write_ptr : 0;
		m->items += m->wp[p];
	}
	/* The blocks it goes to: known bad ones take spares first. */
	if (!ftl_mig_remap_bad(f, ftl_mig_die_to(m), sb)) {
		mig_release(f);
		ftl_mig_nospace(f);
		return false;
	}
	return true;
}

/* The migration is over: every superblock is where it goes. */
static void mig_finish(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	ftl_remap_mig_end(f); /* the slot's remap: the die it is on now */
	m->active = false;
	f->res.dies[m->slot] = ftl_mig_die_to(m);
	ftl_remap_mig_tags(f, ftl_mig_die_from(m), -1); /* the die left keeps no remap of ours */
	m->state = FTL_MIG_DONE;
	m->status = m->reverse ? (m->cause ? m->cause : -ECANCELED) : 0;
	m->finished_ns = ftl_mig_now(f);
	m->notify = true;
	ftl_kick(f);
}

/*
 * Only superblocks streams still write are left: close those streams (the
 * open pages of every stream padded and programmed, as a flush does, so
 * translation pages held for data pages go out too); they open new
 * superblocks, where the migration goes, and the closed ones are copied.
 */
static bool mig_close_streams(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	bool any = false;

	/* A free superblock for the next one to open (GC collects the padding). */
	if (f->free_sbs < 2)
		return false;
	for (int s = 0; s < ST_COUNT; s++)
		any |= f->streams[s].sb >= 0 && m->on_dst[f->streams[s].sb] != ftl_mig_target(m);
	if (!any)
		return false;
	ftl_close_pages(f);
	for (int s = 0; s < ST_COUNT; s++) {
		int32_t sb = f->streams[s].sb;

		if (sb < 0 || m->on_dst[sb] == ftl_mig_target(m))
			continue;
		f->streams[s].sb = -1;
		f->sbs[sb].state = SB_FULL;
		f->sbs[sb].closed_ns = ftl_mig_now(f);
	}
	return true;
}

/*
 * The next superblock to copy: closed, on the die left, none of its pages
 * in the write buffer. None left at all: the end. false: nothing to start
 * (a program or GC will call again); true: look again.
 */
static bool mig_pick(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	uint32_t left = 0;
	int32_t best = -1;
	bool open_left = false;

	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		uint8_t st = f->sbs[sb].state;

		if (m->on_dst[sb] == ftl_mig_target(m))
			continue;
		if (st == SB_FREE || st == SB_BAD) {
			ftl_mig_sb_free(f, sb); /* nothing of a retired one to copy */
			continue;
		}
		left++;
		open_left |= st == SB_OPEN;
		if (best < 0 && (st == SB_FULL || st == SB_CKPT) && !f->sbs[sb].buffered)
			best = (int32_t)sb;
	}
	if (!left) {
		mig_finish(f);
		return false;
	}
	if (best < 0) {
		/* Being collected, pages still programming, or open. */
		return open_left && mig_close_streams(f);
	}
	mig_take(f, (uint32_t)best); /* no good block there: back, from the next look */
	return true;
}

/* A cancel: from the next superblock on, everything goes back. */
static void mig_flip(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	m->reverse = true;
	m->sbs_copied = 0;
	m->bytes_copied = 0;
	m->next_ns = 0;
	ftl_mig_move_free(f);
}

static bool mig_may_work(const struct ftl *f)
{
	const struct ftl_mig *m = &f->mig;

	return (m->state == FTL_MIG_RUNNING || m->state == FTL_MIG_CANCELLING) &&
	       !f->shutting_down && !f->sync_io;
}

/* Between steps. true: something started (or changed), look again. */
static bool mig_idle(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	bool want_reverse = m->state == FTL_MIG_CANCELLING;

	if (f->sync_io)
		return false;
	if (m->sb >= 0) {
		uint32_t copied;

		if (m->state == FTL_MIG_PAUSED && m->status)
			return false; /* held after an error */
		if (m->switched) {
			/* Moved: the erase of what it left must end (again, after an error). */
			mig_erase(f, ftl_mig_die_from(m), MIG_ERASE);
			return true;
		}
		copied = ftl_mig_die_pages_good(f, ftl_mig_die_to(m), (uint32_t)m->sb);
		if (!mig_may_work(f) || want_reverse != m->reverse) {
			/* Paused, cancelled or stopping: drop the copy. */
			if (copied) {
				mig_erase(f, ftl_mig_die_to(m), MIG_DISCARD);
				return true;
			}
			mig_release(f);
			return true;
		}
		if (m->redo || copied != m->items_done) {
			/* Not the copy we made (a failed erase, say): start it again. */
			mig_erase(f, ftl_mig_die_to(m), MIG_DISCARD);
			return true;
		}
		if (m->items_done == m->items) {
			mig_switch(f);
			return true;
		}
		if (!mig_time(f))
			return false;
		mig_batch(f);
		return true;
	}
	if (want_reverse && !m->reverse) {
		mig_flip(f);
		return true;
	}
	if (!mig_may_work(f) || !mig_time(f))
		return false;
	return mig_pick(f);
}

static void mig_run(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	while (m->active) {
		switch (m->phase) {
		case MIG_IDLE:
			if (!mig_idle(f))
				return;
			break;
		case MIG_COPY:
			if (m->pending)
				return;
			step_end(f);
			if (m->failed)
				ftl_mig_copy_failed(f); /* dropped and made again (or dropped on a cancel) */
			break;
		case MIG_ERASE:
			if (m->pending)
				return;
			step_end(f);
			if (ftl_mig_erase_failed(f, ftl_mig_die_from(m))) {
				ftl_mig_error(f, -EIO); /* tried again on resume */
				break;
			}
			mig_release(f);
			break;
		case MIG_DISCARD:
			if (m->pending)
				return;
			step_end(f);
			if (ftl_mig_erase_failed(f, ftl_mig_die_to(m))) {
				ftl_mig_error(f, -EIO);
				break;
			}
			m->items_done = 0;
			m->cur_page = m->cur_plane = 0;
			m->redo = false;
			break;
		}
	}
}

/* Run the migration's state machine; a call from inside it repeats it. */
static void mig_advance(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (m->running) {
		m->again = true;
		return;
	}
	m->running = true;
	do {
		m->again = false;
		mig_run(f);
	} while (m->again);
	m->running = false;
}
