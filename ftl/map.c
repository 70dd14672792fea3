/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DFTL mapping: the GTD (translation page -> PPN, in memory) and the CMT
 * (whole translation pages cached LRU within the configured budget; a
 * miss costs a flash read, evicting a dirty page costs a write into the
 * translation stream). Loaded pages of hot regions are scanned for runs
 * that the MDC may keep. Idle prefetch fills the MDC from hot regions.
 */
#include "ftl_internal.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool hot_pred(void *ctx, uint32_t lba)
{
	struct ftl *f = ctx;

	return ftl_hot_is_hot(f->hot, lba);
}

int ftl_map_init(struct ftl *f)
{
	int rc;

	f->gtd = malloc((size_t)f->nr_tp * sizeof(*f->gtd));
	f->tp_fixgen = calloc(f->nr_tp ? f->nr_tp : 1, sizeof(*f->tp_fixgen));
	f->cmt_index = calloc(f->nr_tp, sizeof(*f->cmt_index));
	f->cmt_cap = f->cfg.cmt_bytes / FTL_UNIT;
	if (f->cmt_cap < 2)
		f->cmt_cap = 2;
	f->cmt_pool = calloc(f->cmt_cap, sizeof(*f->cmt_pool));
	if (!f->gtd || !f->cmt_index || !f->cmt_pool || !f->tp_fixgen)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->nr_tp; i++)
		f->gtd[i] = FTL_UNMAPPED;
	TAILQ_INIT(&f->cmt_lru);
	for (uint32_t i = 0; i < f->cmt_cap; i++) {
		struct ftl_cmt *e = &f->cmt_pool[i];

		e->map = malloc(FTL_UNIT);
		if (!e->map)
			return -ENOMEM;
		e->f = f;
		e->tp = FTL_UNMAPPED;
		TAILQ_INIT(&e->waiters);
	}
	f->pf.page = blox_page_alloc(f->geo->page_size);
	f->pf.done = calloc(((size_t)f->nr_tp + 63) / 64, sizeof(uint64_t));
	if (!f->pf.page || !f->pf.done)
		return -ENOMEM;
	rc = ftl_mdc_create(f->cfg.mdc_bytes, f->cfg.mdc_min_run, &f->mdc);
	if (rc)
		return rc;
	return ftl_hot_create(f->capacity, f->cfg.hot_regions, f->cfg.hot_top,
			      f->cfg.hot_decay_reads, &f->hot);
}

void ftl_map_fini(struct ftl *f)
{
	for (uint32_t i = 0; f->cmt_pool && i < f->cmt_cap; i++) {
		free(f->cmt_pool[i].map);
	}
	free(f->cmt_pool);
	free(f->cmt_index);
	free(f->gtd);
	free(f->tp_fixgen);
	free(f->pf.page);
	free(f->pf.done);
	ftl_mdc_destroy(f->mdc);
	ftl_hot_destroy(f->hot);
}

/* Write a dirty translation page into the translation stream. */
static bool writeback(struct ftl *f, struct ftl_cmt *e);

bool ftl_cmt_writeback_tp(struct ftl *f, uint32_t tp)
{
	struct ftl_cmt *e = f->cmt_index[tp];

	if (!e || e->state != CMT_READY || !e->dirty)
		return true;
	return writeback(f, e);
}

static bool writeback(struct ftl *f, struct ftl_cmt *e)
{
	/*
	 * A translation page's data version is the write sequence of this
	 * writeback (the unit's own wseq): it holds every mapping change made
	 * before it. GC copies keep it, so recovery knows what the copy holds.
	 */
	uint32_t ppn = ftl_put_unit(f, ST_TP, e->tp, UK_TP, f->wseq + 1, e->map);

	if (ppn == FTL_UNMAPPED)
		return false;
	ftl_valid_clear(f, f->gtd[e->tp]);
	f->gtd[e->tp] = ppn;
	ftl_valid_set(f, ppn);
	e->dirty = false;
	f->st.cmt_writebacks++;
	return true;
}

/*
 * A free entry, or the least recently used ready one (written back). When
 * a dirty one cannot be written back (no buffer or space: the write
 * streams are full, with GC running), the least recently used clean one:
 * a lookup never waits for a program while a clean entry can make room.
 */
static struct ftl_cmt *cmt_victim(struct ftl *f)
{
	struct ftl_cmt *e;
	bool stuck = false;

	if (f->cmt_used < f->cmt_cap)
		return &f->cmt_pool[f->cmt_used++];
	TAILQ_FOREACH(e, &f->cmt_lru, lru) {
		if (e->state != CMT_READY || (stuck && e->dirty))
			continue;
		if (e->dirty && !writeback(f, e)) {
			stuck = true; /* no buffer space: a clean one, else wait */
			continue;
		}
		TAILQ_REMOVE(&f->cmt_lru, e, lru);
		f->cmt_index[e->tp] = NULL;
		f->st.cmt_evictions++;
		return e;
	}
	return NULL;
}

static void cmt_loaded(struct ftl *f, struct ftl_cmt *e)
{
	TAILQ_HEAD(, ftl_io) batch = TAILQ_HEAD_INITIALIZER(batch);
	struct ftl_io *io;

	e->state = CMT_READY;
	ftl_dieoff_fix_map(f, e); /* mappings to a die gone offline are lost */
	if (f->cfg.mdc_enabled)
		ftl_mdc_scan(f->mdc, e->tp * FTL_TP_ENTRIES, e->map, FTL_TP_ENTRIES,
			     hot_pred, f);
	/* A resumed waiter may recycle this entry for another page and wait
	 * on it again: wake only those waiting now. */
	TAILQ_CONCAT(&batch, &e->waiters, link);
	while ((io = TAILQ_FIRST(&batch))) {
		TAILQ_REMOVE(&batch, io, link);
		ftl_io_resume(f, io);
	}
}

static void tp_read_done(struct nand_op *op)
{
	struct ftl_cmt *e = op->cb_arg;
	struct ftl *f = e->f;

	/*
	 * The unit read (at load_ppn, where it was even if GC moved it since)
	 * is in e->map already. An unreadable one: where its LBAs' data is
	 * is lost, and they read as errors until written or deallocated (what
	 * was unmapped stays unmapped only if the host says so again).
	 */
	if (op->status) {
		for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++)
			e->map[i] = FTL_LOST;
		f->st.tp_lost++;
	}
	ftl_note_read(f, op);
	cmt_loaded(f, e);
	ftl_progress(f);
}

struct ftl_cmt *ftl_cmt_get(struct ftl *f, uint32_t tp, struct ftl_io *io)
{
	struct ftl_cmt *e = f->cmt_index[tp];
	uint32_t ppn = f->gtd[tp];
	const uint8_t *buffered;

	if (e) {
		if (e->state == CMT_READY) {
			TAILQ_REMOVE(&f->cmt_lru, e, lru);
			TAILQ_INSERT_TAIL(&f->cmt_lru, e, lru);
			/* A request back from waiting for this load is no hit. */
			if (io && io->cmt_waited)
				io->cmt_waited = false;
			else
				f->st.cmt_hits++;
			return e;
		}
		if (io) {
			io->cmt_waited = true;
			TAILQ_INSERT_TAIL(&e->waiters, io, link);
		}
		return NULL;
	}
	e = cmt_victim(f);
	if (!e) {
		if (io)
			TAILQ_INSERT_TAIL(&f->write_wait, io, link);
		ftl_gc_step(f); /* room may depend on GC freeing space */
		return NULL;
	}
	f->st.cmt_misses++;
	e->tp = tp;
	e->dirty = false;
	e->gc_loaded = false;
	f->cmt_index[tp] = e;
	TAILQ_INSERT_TAIL(&f->cmt_lru, e, lru);
	if (ppn >= FTL_LOST) {
		/* Never written, or lost (GC could not read it): nothing on flash to load. */
		for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++)
			e->map[i] = ppn;
		e->state = CMT_READY;
		f->tp_fixgen[tp] = f->deaths; /* nothing in it predates a die's loss */
		return e;
	}
	buffered = ftl_buffered(f, ppn);
	if (buffered || f->sync_io) {
		struct nand_addr a;

		if (buffered) {
			memcpy(e->map, buffered, FTL_UNIT);
		} else {
			int rc;

			ftl_fpid_addr(f, ppn / f->slots, &a);
			rc = f->env.store->ops->read_part(f->env.store,
							  nand_page_index(f->geo, &a),
							  (ppn % f->slots) * FTL_UNIT, FTL_UNIT,
							  e->map);
			if (rc == -ENODEV) {
				/* On a die gone offline: where its LBAs' data is is lost. */
				for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++)
					e->map[i] = FTL_LOST;
				f->st.tp_lost++;
			} else if (rc) {
				memset(e->map, 0xff, FTL_UNIT);
			}
		}
		e->state = CMT_READY;
		ftl_dieoff_fix_map(f, e);
		return e;
	}
	e->state = CMT_LOADING;
	e->load_ppn = ppn;
	if (io) {
		io->cmt_waited = true;
		TAILQ_INSERT_TAIL(&e->waiters, io, link);
	}
	memset(&e->op, 0, sizeof(e->op));
	e->op.kind = NAND_OP_READ;
	e->op.prio = NAND_PRIO_HOST_READ;
	ftl_fpid_addr(f, ppn / f->slots, &e->op.addr);
	e->op.nplanes = 1;
	e->op.xfer_bytes = FTL_UNIT;
	/* Just its 4 KiB unit of the flash page, straight into the entry's map. */
	e->seg = (struct nand_seg){ (ppn % f->slots) * FTL_UNIT, FTL_UNIT, e->map };
	e->op.segs = &e->seg;
	e->op.nsegs = 1;
	e->op.cb = tp_read_done;
	e->op.cb_arg = e;
	f->st.flash_tp_reads++;
	e->op.tenant = f->cfg.tenant;
	if (f->env.ops->submit(f->env.ctx, &e->op)) {
		e->op.status = -EIO;
		tp_read_done(&e->op);
		return NULL;
	}
	return NULL;
}

struct ftl_cmt *ftl_cmt_resident(struct ftl *f, uint32_t tp)
{
	struct ftl_cmt *e = f->cmt_index[tp];

	return e && e->state == CMT_READY ? e : NULL;
}

void ftl_cmt_demote(struct ftl *f, struct ftl_cmt *e)
{
	TAILQ_REMOVE(&f->cmt_lru, e, lru);
	TAILQ_INSERT_HEAD(&f->cmt_lru, e, lru);
}

bool ftl_map_peek(struct ftl *f, uint32_t lba, uint32_t *ppn)
{
	struct ftl_cmt *e = f->cmt_index[lba / FTL_TP_ENTRIES];

	if (e && e->state == CMT_READY) {
		*ppn = e->map[lba % FTL_TP_ENTRIES];
		return true;
	}
	return f->cfg.mdc_enabled && ftl_mdc_lookup(f->mdc, lba, ppn);
}

void ftl_map_set(struct ftl *f, struct ftl_cmt *e, uint32_t lba, uint32_t ppn)
{
	uint32_t *slot = &e->map[lba % FTL_TP_ENTRIES];

	if (*slot == ppn)
		return;
	ftl_valid_clear(f, *slot);
	*slot = ppn;
	if (ppn < FTL_LOST)
		ftl_valid_set(f, ppn);
	e->dirty = true;
	if (f->cfg.mdc_enabled)
		ftl_mdc_invalidate(f->mdc, lba, 1);
}

bool ftl_cmt_any_dirty(const struct ftl *f)
{
	for (uint32_t i = 0; i < f->cmt_used; i++)
		if (f->cmt_pool[i].tp != FTL_UNMAPPED && f->cmt_pool[i].dirty)
			return true;
	return false;
}

int ftl_cmt_writeback_all(struct ftl *f)
{
	for (uint32_t i = 0; i < f->cmt_used; i++) {
		struct ftl_cmt *e = &f->cmt_pool[i];

		if (e->tp != FTL_UNMAPPED && e->state == CMT_READY && e->dirty &&
		    !writeback(f, e))
			return -EAGAIN;
	}
	return 0;
}

/* ---- idle prefetch of hot regions into the MDC ---- */

/*
 * The next translation page of a hot region that is neither resident nor
 * already prefetched in this idle period; FTL_UNMAPPED when none.
 */
static uint32_t prefetch_next(struct ftl *f)
{
	uint32_t regions[64], n = ftl_hot_top(f->hot, regions, 64);

	for (uint32_t r = 0; r < n; r++) {
		uint32_t first, nr;

		ftl_hot_region_range(f->hot, regions[r], &first, &nr);
		for (uint32_t tp = first / FTL_TP_ENTRIES;
		     nr && tp <= (first + nr - 1) / FTL_TP_ENTRIES && tp < f->nr_tp;
		     tp++) {
			if (f->cmt_index[tp] || f->gtd[tp] >= FTL_LOST ||
			    (f->pf.done[tp / 64] & (1ull << (tp % 64))))
				continue;
			return tp;
		}
	}
	return FTL_UNMAPPED;
}

static void prefetch_done(struct nand_op *op)
{
	struct ftl *f = op->cb_arg;
	uint32_t tp = f->pf.tp, ppn = f->gtd[tp];

	f->pf.busy = false;
	f->pf.done[tp / 64] |= 1ull << (tp % 64);
	/*
	 * Scan what was read unless the page moved or became resident meanwhile
	 * (a resident page may hold newer mappings; it was scanned on load).
	 */
	ftl_note_read(f, op);
	if (!op->status && ppn < FTL_LOST && ppn / f->slots == f->pf.fpid &&
	    !f->cmt_index[tp]) {
		ftl_mdc_scan(f->mdc, tp * FTL_TP_ENTRIES,
			     (const uint32_t *)(f->pf.page +
						(size_t)(ppn % f->slots) * FTL_UNIT),
			     FTL_TP_ENTRIES, hot_pred, f);
		f->st.prefetched_tps++;
	}
	ftl_progress(f);
}

void ftl_idle_prefetch(struct ftl *f)
{
	uint32_t tp, ppn;

	if (!f->cfg.mdc_enabled || f->pf.busy || f->outstanding || f->sync_io)
		return;
	ftl_hot_refresh(f->hot);
	tp = prefetch_next(f);
	if (tp == FTL_UNMAPPED)
		return;
	ppn = f->gtd[tp];
	if (ftl_buffered(f, ppn)) {
		f->pf.done[tp / 64] |= 1ull << (tp % 64);
		return;
	}
	memset(&f->pf.op, 0, sizeof(f->pf.op));
	f->pf.busy = true;
	f->pf.tp = tp;
	f->pf.fpid = ppn / f->slots;
	f->pf.op.kind = NAND_OP_READ;
	f->pf.op.prio = NAND_PRIO_GC_READ; /* below every host read */
	ftl_fpid_addr(f, f->pf.fpid, &f->pf.op.addr);
	f->pf.op.nplanes = 1;
	f->pf.op.xfer_bytes = FTL_UNIT;
	f->pf.op.data = f->pf.page;
	f->pf.op.cb = prefetch_done;
	f->pf.op.cb_arg = f;
	f->pf.op.tenant = f->cfg.tenant;
	if (f->env.ops->submit(f->env.ctx, &f->pf.op))
		f->pf.busy = false;
}

/* Host I/O arrived: the next idle period prefetches afresh. */
void ftl_prefetch_reset(struct ftl *f)
{
	if (f->pf.done)
		memset(f->pf.done, 0, ((size_t)f->nr_tp + 63) / 64 * sizeof(uint64_t));
}
