/*
 * Garbage collection and wear leveling. One victim superblock at a time:
 * pick it (greedy: fewest valid units; cost-benefit: best
 * (1 - u) * age / (2u)), read each flash page that still holds valid
 * units (at GC priority), rewrite those units into the GC stream keeping
 * their data version, update the mapping (data) or the GTD (translation
 * pages), wait until the copies are programmed, then erase the victim's
 * blocks. Levels by free superblocks: idle (only when the host is away),
 * background, foreground (host writes go on while GC runs) and urgent
 * (host writes wait for GC). Static wear leveling picks the least-worn
 * full superblock as the victim when the erase-count spread passes the
 * threshold, so cold data leaves young blocks.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum gc_state {
	GC_IDLE,
	GC_SCAN, /* find the next page of the victim with valid units */
	GC_READING,
	GC_MOVING,
	GC_WAIT_PROGRAMS,
	GC_ERASING,
};

static uint32_t free_permille(const struct ftl *f)
{
	uint32_t usable = f->nr_sb - FTL_CKPT_SBS;

	return (uint32_t)((uint64_t)f->free_sbs * 1000 / usable);
}

bool ftl_gc_urgent(const struct ftl *f)
{
	return free_permille(f) < f->cfg.gc_urgent_permille || f->free_sbs <= 1;
}

static void erase_counts(const struct ftl *f, uint32_t *min, uint32_t *max)
{
	*min = UINT32_MAX;
	*max = 0;
	for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb; i++) {
		*min = f->sbs[i].erase_count < *min ? f->sbs[i].erase_count : *min;
		*max = f->sbs[i].erase_count > *max ? f->sbs[i].erase_count : *max;
	}
}

static int32_t pick_victim(struct ftl *f, bool *wl)
{
	uint64_t now = f->env.ops->now(f->env.ctx);
	uint32_t emin, emax;
	int32_t best = -1;
	double best_score = -1;

	*wl = false;
	erase_counts(f, &emin, &emax);
	if (f->cfg.wl_threshold && emax - emin > f->cfg.wl_threshold) {
		int open_stream = -1;

		for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb; i++) {
			int os = -1;

			if (f->sbs[i].state == SB_OPEN) {
				for (int s = ST_SEQ; s <= ST_RAND; s++)
					if (f->streams[s].sb == (int32_t)i)
						os = s;
				if (os < 0)
					continue;
			} else if (f->sbs[i].state != SB_FULL) {
				continue;
			}
			if (best < 0 || f->sbs[i].erase_count < f->sbs[best].erase_count) {
				best = (int32_t)i;
				open_stream = os;
			}
		}
		if (best >= 0 && f->sbs[best].erase_count + f->cfg.wl_threshold < emax) {
			if (open_stream >= 0) {
				ftl_close_stream(f, (enum ftl_stream)open_stream);
				f->streams[open_stream].sb = -1;
				f->sbs[best].state = SB_FULL;
				f->sbs[best].closed_ns = now;
			}
			*wl = true;
			return best;
		}
		best = -1;
	}
	for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb; i++) {
		const struct ftl_sb *sb = &f->sbs[i];
		double score;

		if (sb->state != SB_FULL || sb->valid >= f->units_per_sb)
			continue;
		if (f->cfg.gc_policy == FTL_GC_GREEDY) {
			score = (double)(f->units_per_sb - sb->valid);
		} else {
			double u = (double)sb->valid / f->units_per_sb;
			double age = (double)(now - sb->closed_ns) + 1.0;

			score = u == 0 ? 1e300 : (1.0 - u) * age / (2.0 * u);
		}
		if (score > best_score) {
			best_score = score;
			best = (int32_t)i;
		}
	}
	return best;
}

static bool gc_wanted(const struct ftl *f)
{
	uint32_t fp = free_permille(f);
	bool idle = f->outstanding == 0 &&
		    f->env.ops->now(f->env.ctx) - f->last_host_ns >= f->cfg.idle_ns;

	return fp < f->cfg.gc_bg_permille || (idle && fp < f->cfg.gc_idle_permille);
}

static void gc_continue(struct ftl *f);

static void gc_read_done(struct nand_op *op)
{
	struct ftl *f = op->cb_arg;

	f->gc.reading = false;
	f->gc.move_idx = 0;
	/* An unreadable page's units cannot be moved: they are lost. */
	f->gc.pending_moves = op->status ? 0 : f->slots;
	if (op->status) {
		uint32_t base = ftl_ppn(f, (uint32_t)f->gc.victim, 0) +
				f->gc.cursor * f->slots;

		for (uint32_t s = 0; s < f->slots; s++)
			ftl_valid_clear(f, base + s);
	}
	f->gc.cursor++;
	f->gc.tp_waiter.stage = GC_MOVING;
	gc_continue(f);
	ftl_progress(f);
}

static void erase_done(struct nand_op *op)
{
	struct ftl *f = op->cb_arg;

	if (--f->gc.erases_pending)
		return;
	ftl_sb_freed(f, (uint32_t)f->gc.victim);
	f->st.gc_runs++;
	if (f->gc.static_wl)
		f->st.wl_runs++;
	f->gc.active = false;
	f->gc.victim = -1;
	f->gc.tp_waiter.stage = GC_IDLE;
	ftl_progress(f);
}

static void gc_erase(struct ftl *f)
{
	uint32_t n = f->ndies * f->planes;

	f->gc.tp_waiter.stage = GC_ERASING;
	f->sbs[f->gc.victim].state = SB_ERASING;
	f->gc.erases_pending = n;
	for (uint32_t s = 0; s < n; s++) {
		struct nand_op *op = &f->gc.erase_ops[s];

		memset(op, 0, sizeof(*op));
		op->kind = NAND_OP_ERASE;
		op->prio = NAND_PRIO_ERASE;
		/* Flash page s of row 0 sits on (plane, die) number s. */
		ftl_fpid_addr(f, ftl_ppn(f, (uint32_t)f->gc.victim, s * f->slots) /
					 f->slots,
			      &op->addr);
		op->addr.page = 0;
		op->nplanes = 1;
		op->cb = erase_done;
		op->cb_arg = f;
		f->st.flash_erases++;
		if (f->env.ops->submit(f->env.ctx, op)) {
			op->status = -EIO;
			erase_done(op);
		}
	}
}

/* Move the valid units of the page just read. false: wait and resume. */
static bool gc_move(struct ftl *f)
{
	const struct ftl_oob *oob = (const void *)f->gc.oob_raw;
	uint32_t fpid = ftl_ppn(f, (uint32_t)f->gc.victim, 0) / f->slots +
			f->gc.cursor - 1;

	for (; f->gc.move_idx < f->gc.pending_moves; f->gc.move_idx++) {
		uint32_t slot = f->gc.move_idx, old = fpid * f->slots + slot, ppn;
		const struct ftl_oob_slot *os = &oob->slot[slot];
		const uint8_t *data = f->gc.page + (size_t)slot * FTL_UNIT;

		if (!ftl_valid_get(f, old))
			continue;
		if (os->kind == UK_TP) {
			if (os->lba >= f->nr_tp || f->gtd[os->lba] != old) {
				ftl_valid_clear(f, old);
				continue;
			}
			ppn = ftl_put_unit(f, ST_GC, os->lba, UK_TP, os->dseq, data);
			if (ppn == FTL_UNMAPPED) {
				f->gc.waiting = true;
				TAILQ_INSERT_TAIL(&f->write_wait, &f->gc.tp_waiter, link);
				return false;
			}
			ftl_valid_clear(f, old);
			f->gtd[os->lba] = ppn;
			ftl_valid_set(f, ppn);
		} else if (os->kind == UK_DATA) {
			struct ftl_cmt *e;

			if (os->lba >= f->capacity) {
				ftl_valid_clear(f, old);
				continue;
			}
			e = ftl_cmt_get(f, os->lba / FTL_TP_ENTRIES, &f->gc.tp_waiter);
			if (!e) {
				f->gc.waiting = true; /* on a page load or buffer space */
				return false;
			}
			if (e->map[os->lba % FTL_TP_ENTRIES] != old) {
				ftl_valid_clear(f, old); /* stale bit */
				continue;
			}
			ppn = ftl_put_unit(f, ST_GC, os->lba, UK_DATA, os->dseq, data);
			if (ppn == FTL_UNMAPPED) {
				f->gc.waiting = true;
				TAILQ_INSERT_TAIL(&f->write_wait, &f->gc.tp_waiter, link);
				return false;
			}
			ftl_map_set(f, e, os->lba, ppn);
		} else {
			ftl_valid_clear(f, old);
			continue;
		}
		f->st.gc_units_moved++;
	}
	return true;
}

static void gc_continue(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;

	for (;;) {
		switch (g->tp_waiter.stage) {
		case GC_MOVING:
			if (!gc_move(f))
				return;
			g->tp_waiter.stage = GC_SCAN;
			break;
		case GC_SCAN: {
			uint32_t pages = f->pages_per_block * f->stripe;
			uint32_t base = ftl_ppn(f, (uint32_t)g->victim, 0);

			while (g->cursor < pages) {
				bool any = false;

				for (uint32_t s = 0; s < f->slots && !any; s++)
					any = ftl_valid_get(f, base + g->cursor * f->slots + s);
				if (any)
					break;
				g->cursor++;
			}
			if (g->cursor == pages) {
				/* Everything moved: the copies must be on flash first. */
				/*
				 * Every page that made a victim unit stale (host streams
				 * too) must be on flash before the erase, or a crash
				 * would bring back mappings into an erased block.
				 */
				ftl_close_pages(f);
				g->last_ticket = ftl_issued_ticket(f);
				g->tp_waiter.stage = GC_WAIT_PROGRAMS;
				break;
			}
			if (ftl_gc_copy_buffered(f, base / f->slots + g->cursor)) {
				/* Still in the write buffer: take it from there. */
				g->move_idx = 0;
				g->pending_moves = f->slots;
				g->cursor++;
				g->tp_waiter.stage = GC_MOVING;
				break;
			}
			memset(&g->op, 0, sizeof(g->op));
			g->op.kind = NAND_OP_READ;
			g->op.prio = NAND_PRIO_GC_READ;
			ftl_fpid_addr(f, base / f->slots + g->cursor, &g->op.addr);
			g->op.nplanes = 1;
			g->op.data = g->page;
			g->op.oob = g->oob_raw;
			g->op.cb = gc_read_done;
			g->op.cb_arg = f;
			g->reading = true;
			g->tp_waiter.stage = GC_READING;
			if (f->env.ops->submit(f->env.ctx, &g->op)) {
				g->op.status = -EIO;
				gc_read_done(&g->op);
			}
			return;
		}
		case GC_WAIT_PROGRAMS:
			if (f->done_through < g->last_ticket)
				return;
			if (f->sbs[g->victim].valid) {
				/* Host writes raced in nothing here; re-scan to be sure. */
				g->cursor = 0;
				g->tp_waiter.stage = GC_SCAN;
				break;
			}
			gc_erase(f);
			return;
		default:
			return;
		}
	}
}

void ftl_gc_resume(struct ftl *f)
{
	f->gc.waiting = false;
	if (f->gc.active)
		gc_continue(f);
}

void ftl_gc_step(struct ftl *f)
{
	bool wl;
	int32_t v;

	if (f->gc.active) {
		/* A GC parked on a list is resumed from that list only. */
		if (f->gc.tp_waiter.stage == GC_WAIT_PROGRAMS && !f->gc.waiting)
			gc_continue(f);
		return;
	}
	if (f->sync_io || f->shutting_down || !gc_wanted(f))
		return;
	v = pick_victim(f, &wl);
	if (v < 0)
		return;
	f->gc.active = true;
	f->gc.static_wl = wl;
	f->gc.victim = v;
	f->gc.cursor = 0;
	f->sbs[v].state = SB_GC;
	f->gc.tp_waiter.stage = GC_SCAN;
	gc_continue(f);
}

int ftl_gc_init(struct ftl *f)
{
	f->gc.victim = -1;
	f->gc.page = malloc(f->geo->page_size);
	f->gc.oob_raw = calloc(1, f->geo->oob_size);
	f->gc.erase_ops = calloc(f->ndies * f->planes, sizeof(*f->gc.erase_ops));
	f->gc.tp_waiter.op = FTL_IO_READ; /* unused: marks an internal waiter */
	if (!f->gc.page || !f->gc.oob_raw || !f->gc.erase_ops)
		return -ENOMEM;
	return 0;
}

void ftl_gc_fini(struct ftl *f)
{
	free(f->gc.page);
	free(f->gc.oob_raw);
	free(f->gc.erase_ops);
}

bool ftl_gc_is_waiter(const struct ftl *f, const struct ftl_io *io)
{
	return io == &f->gc.tp_waiter;
}
