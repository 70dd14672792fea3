/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GC's reads of its victim and pass 1 (gc.c has the whole picture): the
 * read contexts (gc.rds), a victim page read (its OOB only, or data and
 * OOB) at GC priority, and the scan: the OOB of every page with valid
 * units (or the write buffer's copy) gives one entry per valid unit,
 * sorted by translation page, then PPN, and what the victim should gain
 * for the host.
 */
#include "gc_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ftl_gc_rd *ftl_gc_rd_find(struct ftl *f, uint32_t fpid)
{
	for (uint32_t i = 0; i < f->gc.nrds; i++)
		if (f->gc.rds[i].fpid == fpid)
			return &f->gc.rds[i];
	return NULL;
}

static struct ftl_gc_rd *rd_unused(struct ftl *f)
{
	return ftl_gc_rd_find(f, FTL_UNMAPPED);
}

/*
 * Entries for the valid units of victim page @fpid from its OOB (NULL:
 * unreadable, so its units are lost). Units no mapping points at lose
 * their validity bit here.
 */
static void gc_collect(struct ftl *f, uint32_t fpid, const struct ftl_oob *oob)
{
	for (uint32_t s = 0; s < f->slots; s++) {
		uint32_t ppn = fpid * f->slots + s;
		const struct ftl_oob_slot *os = oob ? &oob->slot[s] : NULL;
		bool keep = false;

		if (!ftl_valid_get(f, ppn))
			continue;
		if (!os || oob->magic != FTL_OOB_MAGIC)
			keep = false;
		else if (os->kind == UK_DATA)
			keep = os->lba < f->capacity;
		else if (os->kind == UK_TP)
			keep = os->lba < f->nr_tp && f->gtd[os->lba] == ppn;
		if (!keep) {
			ftl_valid_clear(f, ppn);
			continue;
		}
		f->gc.ents[f->gc.nent++] = (struct ftl_gc_ent){ os->lba, ppn, os->kind };
	}
}

static void gc_read_done(struct nand_op *op)
{
	struct ftl_gc_rd *rd = op->cb_arg;
	struct ftl *f = rd->f;
	struct ftl_gc *g = &f->gc;

	rd->busy = false;
	rd->status = op->status;
	ftl_note_read(f, op);
	if (g->tp_waiter.stage == GC_SCAN) {
		struct ftl_oob oob;

		memcpy(&oob, rd->oob_raw, sizeof(oob));
		gc_collect(f, rd->fpid, op->status ? NULL : &oob);
		rd->fpid = FTL_UNMAPPED;
		g->scan_reads--;
		ftl_gc_grant_scan(f);
		ftl_gc_continue(f);
	} else if (--g->round_reads == 0) {
		g->tp_waiter.stage = GC_MOVE;
		ftl_gc_continue(f);
	}
	ftl_progress(f);
}

/* Read victim page rd->fpid: its OOB only, or data and OOB. false: failed. */
bool ftl_gc_read(struct ftl *f, struct ftl_gc_rd *rd, bool oob_only)
{
	struct nand_op *op = &rd->op;

	memset(op, 0, sizeof(*op));
	op->kind = NAND_OP_READ;
	op->prio = NAND_PRIO_GC_READ;
	ftl_fpid_addr(f, rd->fpid, &op->addr);
	op->nplanes = 1;
	op->xfer_bytes = oob_only ? f->geo->oob_size : 0;
	op->data = oob_only ? NULL : rd->page;
	op->oob = rd->oob_raw;
	op->cb = gc_read_done;
	op->cb_arg = rd;
	rd->busy = true;
	rd->status = 0;
	op->tenant = f->cfg.tenant;
	if (f->env.ops->submit(f->env.ctx, op)) {
		rd->busy = false;
		rd->status = -EIO;
		return false;
	}
	return true;
}

bool ftl_gc_page_has_valid(const struct ftl *f, uint32_t fpid)
{
	for (uint32_t s = 0; s < f->slots; s++)
		if (ftl_valid_get(f, fpid * f->slots + s))
			return true;
	return false;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ftl_gc_ent *x = a, *y = b;
	uint32_t kx = ftl_gc_ent_key(x), ky = ftl_gc_ent_key(y);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->ppn < y->ppn ? -1 : x->ppn > y->ppn;
}

/* Pass 1 done: sort, and what the victim should gain for the host. */
void ftl_gc_sorted(struct ftl *f, bool rescan)
{
	struct ftl_gc *g = &f->gc;
	int64_t tps = 0, gain;

	if (g->nent > 1)
		qsort(g->ents, g->nent, sizeof(*g->ents), ent_cmp);
	for (uint32_t i = 0; i < g->nent; i++) {
		uint32_t k = ftl_gc_ent_key(&g->ents[i]);

		if (k && (i == 0 || ftl_gc_ent_key(&g->ents[i - 1]) != k) && !f->cmt_index[k - 1])
			tps++; /* to load and write back */
	}
	gain = (int64_t)f->units_live - g->nent - tps;
	g->grant_base = g->granted;
	g->expect = rescan || gain <= 0 ? 0 : gain * FTL_GC_CREDIT;
	g->round_start = g->round_end = 0;
}

/* false: wait for a read to complete. */
bool ftl_gc_scan(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	uint32_t pages = f->pages_per_block * f->stripe;
	uint32_t base = ftl_ppn(f, (uint32_t)g->victim, 0) / f->slots;

	while (g->cursor < pages) {
		uint32_t fpid = base + g->cursor;
		struct ftl_gc_rd *rd;
		struct ftl_oob oob;

		if (!ftl_gc_page_has_valid(f, fpid)) {
			g->cursor++;
			continue;
		}
		if (ftl_gc_copy_buffered(f, fpid, NULL, &oob)) {
			/* Still in the write buffer: take it from there. */
			gc_collect(f, fpid, &oob);
			ftl_gc_grant_scan(f);
			g->cursor++;
			continue;
		}
		rd = rd_unused(f);
		if (!rd)
			return false;
		g->cursor++;
		rd->fpid = fpid;
		if (ftl_gc_read(f, rd, true)) {
			g->scan_reads++;
		} else {
			gc_collect(f, fpid, NULL);
			rd->fpid = FTL_UNMAPPED;
			ftl_gc_grant_scan(f);
		}
	}
	return g->scan_reads == 0;
}
