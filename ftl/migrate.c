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
static uint8_t mig_target(const struct ftl_mig *m)
{
	return m->reverse ? 0 : 1;
}

/* The die the superblocks leave, and the die they go to. */
static uint32_t die_from(const struct ftl_mig *m)
{
	return m->reverse ? m->dst : m->src;
}

static uint32_t die_to(const struct ftl_mig *m)
{
	return m->reverse ? m->src : m->dst;
}

/* Superblock @sb's block on @die, plane @plane, page @page. */
static void blk_addr(const struct ftl *f, uint32_t die, uint32_t sb, uint32_t plane,
		     uint32_t page, struct nand_addr *a)
{
	a->ch = die / f->geo->dies_per_channel;
	a->die = die % f->geo->dies_per_channel;
	a->plane = plane;
	a->block = f->res.first_block + sb;
	a->page = page;
}

static const struct nand_block_meta *blk_meta(const struct ftl *f, uint32_t die, uint32_t sb,
					      uint32_t plane)
{
	struct nand_addr a;

	blk_addr(f, die, sb, plane, 0, &a);
	return nand_block_meta(f->env.dev, nand_block_index(f->geo, &a));
}

/* Programmed pages of superblock @sb's blocks on @die, every plane. */
static uint32_t die_pages(const struct ftl *f, uint32_t die, uint32_t sb)
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

/* A page of superblock @sb is in the write buffer (filling or programming). */
static bool sb_buffered(const struct ftl *f, uint32_t sb)
{
	for (uint32_t i = 0; i < f->nr_wbufs; i++) {
		const struct ftl_wbuf *wb = &f->wbufs[i];

		if (wb->state != WB_FREE && ftl_ppn_sb(f, wb->fpid * f->slots) == sb)
			return true;
	}
	return false;
}

static uint64_t mig_now(const struct ftl *f)
{
	return f->env.ops->now(f->env.ctx);
}

static int mig_sync(struct ftl *f)
{
	return f->env.ops->sync ? f->env.ops->sync(f->env.ctx) : 0;
}

/* ---- life cycle ---- */

static void mig_free_bufs(struct ftl_mig *m)
{
	for (uint32_t i = 0; i < FTL_MIG_BATCH; i++) {
		free(m->pages[i].data);
		free(m->pages[i].oob);
		m->pages[i].data = m->pages[i].oob = NULL;
	}
	free(m->wp);
	free(m->erase_ops);
	m->wp = NULL;
	m->erase_ops = NULL;
}

/* The copy's buffers, made for the first migration (an instance may never move). */
static int mig_alloc(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (m->wp)
		return 0;
	m->wp = calloc(f->planes, sizeof(*m->wp));
	m->erase_ops = calloc(f->planes, sizeof(*m->erase_ops));
	if (!m->wp || !m->erase_ops)
		goto fail;
	for (uint32_t i = 0; i < FTL_MIG_BATCH; i++) {
		m->pages[i].f = f;
		m->pages[i].data = blox_page_alloc(f->geo->page_size);
		m->pages[i].oob = calloc(1, f->geo->oob_size);
		if (!m->pages[i].data || !m->pages[i].oob)
			goto fail;
	}
	return 0;
fail:
	mig_free_bufs(m);
	return -ENOMEM;
}

int ftl_mig_init(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	const struct ftl_resources *r = &f->res;

	m->sb = -1;
	m->phase = MIG_IDLE;
	m->state = FTL_MIG_NONE;
	m->on_dst = calloc(f->nr_sb, 1);
	if (!m->on_dst)
		return -ENOMEM;
	if (r->mig_active) {
		if (mig_alloc(f))
			return -ENOMEM;
		/* Resumed after a stop: recovery (ftl_mig_recover()) sets the bits. */
		m->active = true;
		m->reverse = r->mig_cancel;
		m->slot = r->mig_slot;
		m->src = r->mig_src;
		m->dst = r->dies[r->mig_slot];
		m->share = r->mig_share ? r->mig_share : 1000;
		m->state = m->reverse ? FTL_MIG_CANCELLING : FTL_MIG_RUNNING;
		memset(m->on_dst, mig_target(m), f->nr_sb);
	}
	/* The migration's own state is kept here from now on. */
	f->res.mig_active = f->res.mig_cancel = false;
	f->res.mig_slot = f->res.mig_src = f->res.mig_share = 0;
	return 0;
}

void ftl_mig_fini(struct ftl *f)
{
	mig_free_bufs(&f->mig);
	free(f->mig.on_dst);
	f->mig.on_dst = NULL;
}

int ftl_mig_recover(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	struct nand_store *st = f->env.store;
	bool erased = false;

	if (!m->active)
		return 0;
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		uint32_t ps = die_pages(f, m->src, sb), pd = die_pages(f, m->dst, sb);
		/* src keeps it only over a copy with fewer pages (a partial one). */
		bool on_dst = !(ps > 0 && pd < ps);
		uint32_t lose = on_dst ? m->src : m->dst;

		m->on_dst[sb] = on_dst;
		for (uint32_t p = 0; p < f->planes; p++) {
			struct nand_addr a;
			int rc;

			blk_addr(f, lose, sb, p, 0, &a);
			if (st->blocks[nand_block_index(f->geo, &a)].write_ptr == 0)
				continue;
			rc = st->ops->erase(st, nand_block_index(f->geo, &a));
			if (rc)
				return rc;
			erased = true;
		}
	}
	return erased ? st->ops->sync(st) : 0;
}

void ftl_mig_sb_free(struct ftl *f, uint32_t sb)
{
	struct ftl_mig *m = &f->mig;

	if (!m->active || m->on_dst[sb] == mig_target(m))
		return;
	m->on_dst[sb] = mig_target(m);
	sb_erase_count(f, sb);
}

/* Free superblocks (erased on both dies) go where the migration goes. */
static void move_free(struct ftl *f)
{
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		if (f->sbs[sb].state == SB_FREE)
			ftl_mig_sb_free(f, sb);
}

void ftl_mig_resume_after_recovery(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (!m->active)
		return;
	move_free(f);
	m->started_ns = mig_now(f);
	m->next_ns = 0;
	ftl_kick(f);
}

bool ftl_mig_busy(const struct ftl *f)
{
	const struct ftl_mig *m = &f->mig;

	/* A copy held after an error waits for a resume: a stop need not. */
	if (m->phase == MIG_IDLE && m->sb >= 0 && m->state == FTL_MIG_PAUSED && m->status)
		return false;
	return m->phase != MIG_IDLE || m->sb >= 0;
}

int32_t ftl_mig_hide(struct ftl *f)
{
	int32_t sb = f->mig.sb;

	if (sb < 0 || f->sbs[sb].state != SB_FULL)
		return -1;
	f->sbs[sb].state = SB_GC; /* not SB_FULL: no victim */
	return sb;
}

void ftl_mig_unhide(struct ftl *f, int32_t sb)
{
	if (sb >= 0)
		f->sbs[sb].state = SB_FULL;
}

void ftl_mig_notify(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (!m->notify)
		return;
	m->notify = false;
	if (f->env.ops->migrated)
		f->env.ops->migrated(f->env.ctx, m->status);
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
	uint64_t now = mig_now(f);

	m->busy_ns += busy;
	/* A pause not waited out yet (a switch does not wait) adds up. */
	m->next_ns = (m->next_ns > now ? m->next_ns : now) + busy * (1000 - m->share) / m->share;
	m->phase = MIG_IDLE;
}

/* Until now passes next_ns: false, and the driver is asked to come back then. */
static bool mig_time(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (mig_now(f) >= m->next_ns)
		return true;
	if (f->env.ops->wake_at && m->wake_asked != m->next_ns) {
		m->wake_asked = m->next_ns; /* once per wait */
		f->env.ops->wake_at(f->env.ctx, m->next_ns);
	}
	return false;
}

/* An op failed or a sync did: hold everything until a resume or cancel. */
static void mig_error(struct ftl *f, int status)
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
		blk_addr(f, die_to(m), (uint32_t)m->sb, pg->plane, pg->page, &op->addr);
		op->nplanes = 1;
		op->data = pg->data;
		op->oob = pg->oob; /* verbatim: the FTL's OOB records as they are */
		op->cb = mig_prog_done;
		op->cb_arg = pg;
		op->tenant = f->cfg.tenant;
		if (f->env.ops->submit(f->env.ctx, op)) {
			m->failed = true;
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
		blk_addr(f, die_from(m), (uint32_t)m->sb, pg->plane, pg->page, &op->addr);
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
	for (uint32_t p = 0; p < f->planes; p++) {
		struct nand_op *op = &m->erase_ops[p];
		const struct nand_block_meta *bm = blk_meta(f, die, (uint32_t)m->sb, p);

		if (!bm || bm->write_ptr == 0)
			continue;
		memset(op, 0, sizeof(*op));
		op->kind = NAND_OP_ERASE;
		op->prio = MIG_PRIO_WRITE;
		blk_addr(f, die, (uint32_t)m->sb, p, 0, &op->addr);
		op->nplanes = 1;
		op->cb = mig_erase_done;
		op->cb_arg = f;
		f->st.flash_erases++;
		op->tenant = f->cfg.tenant;
		if (f->env.ops->submit(f->env.ctx, op)) {
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
	int rc = m->items ? mig_sync(f) : 0;

	if (rc) {
		mig_error(f, rc);
		return;
	}
	m->on_dst[m->sb] = mig_target(m);
	m->switched = true;
	sb_erase_count(f, (uint32_t)m->sb);
	mig_erase(f, die_from(m), MIG_ERASE);
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

/* Take superblock @sb to copy. */
static void mig_take(struct ftl *f, uint32_t sb)
{
	struct ftl_mig *m = &f->mig;

	m->sb = (int32_t)sb;
	m->switched = m->redo = false;
	m->items = m->items_done = 0;
	m->cur_page = m->cur_plane = 0;
	for (uint32_t p = 0; p < f->planes; p++) {
		const struct nand_block_meta *bm = blk_meta(f, die_from(m), sb, p);

		m->wp[p] = bm ? bm->write_ptr : 0;
		m->items += m->wp[p];
	}
}

/* The migration is over: every superblock is where it goes. */
static void mig_finish(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	m->active = false;
	f->res.dies[m->slot] = die_to(m);
	m->state = FTL_MIG_DONE;
	m->status = m->reverse ? -ECANCELED : 0;
	m->finished_ns = mig_now(f);
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
		any |= f->streams[s].sb >= 0 && m->on_dst[f->streams[s].sb] != mig_target(m);
	if (!any)
		return false;
	ftl_close_pages(f);
	for (int s = 0; s < ST_COUNT; s++) {
		int32_t sb = f->streams[s].sb;

		if (sb < 0 || m->on_dst[sb] == mig_target(m))
			continue;
		f->streams[s].sb = -1;
		f->sbs[sb].state = SB_FULL;
		f->sbs[sb].closed_ns = mig_now(f);
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

		if (m->on_dst[sb] == mig_target(m))
			continue;
		if (st == SB_FREE) {
			ftl_mig_sb_free(f, sb);
			continue;
		}
		left++;
		open_left |= st == SB_OPEN;
		if (best < 0 && (st == SB_FULL || st == SB_CKPT) && !sb_buffered(f, sb))
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
	mig_take(f, (uint32_t)best);
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
	move_free(f);
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
			mig_erase(f, die_from(m), MIG_ERASE);
			return true;
		}
		copied = die_pages(f, die_to(m), (uint32_t)m->sb);
		if (!mig_may_work(f) || want_reverse != m->reverse) {
			/* Paused, cancelled or stopping: drop the copy. */
			if (copied) {
				mig_erase(f, die_to(m), MIG_DISCARD);
				return true;
			}
			mig_release(f);
			return true;
		}
		if (m->redo || copied != m->items_done) {
			/* Not the copy we made (a failed erase, say): start it again. */
			mig_erase(f, die_to(m), MIG_DISCARD);
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
			if (m->failed) {
				/* Dropped and made again on resume (or dropped on a cancel). */
				m->redo = true;
				mig_error(f, -EIO);
			}
			break;
		case MIG_ERASE:
			if (m->pending)
				return;
			step_end(f);
			if (m->failed || mig_sync(f)) {
				mig_error(f, -EIO); /* tried again on resume */
				break;
			}
			mig_release(f);
			break;
		case MIG_DISCARD:
			if (m->pending)
				return;
			step_end(f);
			if (m->failed || mig_sync(f)) {
				mig_error(f, -EIO);
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

/* ---- the API (ftl.h) ---- */

int ftl_migrate_start(struct ftl *f, uint32_t slot, uint32_t dst_die,
		      const struct ftl_migrate_cfg *cfg)
{
	struct ftl_mig *m = &f->mig;

	if (!cfg || cfg->share < 1 || cfg->share > 1000 || slot >= f->ndies ||
	    dst_die >= nand_dies(f->geo))
		return -EINVAL;
	for (uint32_t i = 0; i < f->ndies; i++)
		if (f->res.dies[i] == dst_die)
			return -EINVAL;
	if (m->active || f->shutting_down || f->sync_io)
		return -EBUSY;
	if (!nand_block_meta(f->env.dev, 0))
		return -EOPNOTSUPP;
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		if (die_pages(f, dst_die, sb))
			return -EBUSY; /* not erased: not ours to write */
	if (mig_alloc(f))
		return -ENOMEM;
	memset(m->on_dst, 0, f->nr_sb);
	m->active = true;
	m->reverse = false;
	m->slot = slot;
	m->src = f->res.dies[slot];
	m->dst = dst_die;
	m->share = cfg->share;
	m->state = FTL_MIG_RUNNING;
	m->status = 0;
	m->sb = -1;
	m->switched = false;
	m->sbs_copied = 0;
	m->bytes_copied = 0;
	m->busy_ns = 0;
	m->started_ns = mig_now(f);
	m->finished_ns = 0;
	m->next_ns = 0;
	m->notify = false;
	/* What the caller persists (ftl_get_resources()): the slot's new die. */
	f->res.dies[slot] = dst_die;
	move_free(f);
	ftl_kick(f);
	return 0;
}

int ftl_migrate_pause(struct ftl *f)
{
	if (f->mig.state != FTL_MIG_RUNNING)
		return -EINVAL;
	f->mig.state = FTL_MIG_PAUSED;
	ftl_kick(f); /* a copy half made is dropped from ftl_process() */
	return 0;
}

int ftl_migrate_resume(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (m->state != FTL_MIG_PAUSED)
		return -EINVAL;
	m->state = m->reverse ? FTL_MIG_CANCELLING : FTL_MIG_RUNNING;
	m->status = 0;
	m->next_ns = 0;
	ftl_kick(f);
	return 0;
}

int ftl_migrate_set_share(struct ftl *f, uint32_t share)
{
	struct ftl_mig *m = &f->mig;

	if (!m->active || share < 1 || share > 1000)
		return -EINVAL;
	m->share = share;
	m->next_ns = 0;
	ftl_kick(f);
	return 0;
}

int ftl_migrate_cancel(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (m->state != FTL_MIG_RUNNING && m->state != FTL_MIG_PAUSED)
		return -EINVAL;
	m->state = FTL_MIG_CANCELLING;
	m->status = 0;
	m->next_ns = 0;
	ftl_kick(f);
	return 0;
}

void ftl_migrate_progress(const struct ftl *f, struct ftl_migrate_progress *out)
{
	const struct ftl_mig *m = &f->mig;
	uint64_t ps = f->geo->page_size, bytes_done = m->bytes_copied, bytes_left = 0;
	uint32_t sbs_done = m->sbs_copied, sbs_left = 0;

	*out = (struct ftl_migrate_progress){
		.state = m->state,
		.status = m->status,
		.slot = m->slot,
		.src = m->src,
		.dst = m->dst,
		.share = m->share,
		.started_ns = m->started_ns,
		.finished_ns = m->finished_ns,
		.busy_ns = m->busy_ns,
		.reverse = m->reverse,
	};
	if (!m->active) {
		out->sbs_copied = out->sbs_total = sbs_done;
		out->bytes_copied = out->bytes_total = bytes_done;
		return;
	}
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		if ((int32_t)sb == m->sb || m->on_dst[sb] == mig_target(m) ||
		    f->sbs[sb].state == SB_FREE)
			continue;
		sbs_left++;
		bytes_left += die_pages(f, die_from(m), sb) * ps;
	}
	if (m->sb >= 0 && m->switched) {
		sbs_done++;
		bytes_done += m->items * ps;
	} else if (m->sb >= 0) {
		sbs_left++;
		bytes_done += m->items_done * ps;
		bytes_left += (uint64_t)(m->items - m->items_done) * ps;
	}
	out->sbs_copied = sbs_done;
	out->sbs_total = sbs_done + sbs_left;
	out->bytes_copied = bytes_done;
	out->bytes_total = bytes_done + bytes_left;
	if (m->phase == MIG_IDLE && m->next_ns > mig_now(f))
		out->wake_ns = m->next_ns;
}

void ftl_get_resources(const struct ftl *f, struct ftl_resources *out)
{
	const struct ftl_mig *m = &f->mig;

	*out = f->res;
	if (!m->active)
		return;
	out->dies[m->slot] = m->dst;
	out->mig_active = true;
	out->mig_cancel = m->reverse || m->state == FTL_MIG_CANCELLING;
	out->mig_slot = m->slot;
	out->mig_src = m->src;
	out->mig_share = m->share;
}
