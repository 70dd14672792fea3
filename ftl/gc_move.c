/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GC's pass 2 (gc.c has the whole picture): rounds of a few translation
 * pages, each reading its data pages and loading its translation pages,
 * then moving every unit whose mapping still points into the victim into
 * a GC stream, and writing back the translation pages GC loaded once
 * their last unit moved; units and translation pages that could not be
 * read are marked lost.
 */
#include "gc_internal.h"

#include <string.h>

/*
 * Where GC moves data unit @old: with persistently isolated reclaim unit
 * handles into the GC stream of the handle its superblock belongs to, so
 * no superblock ever mixes handles; else the one GC stream.
 */
static enum ftl_stream gc_dest(const struct ftl *f, uint32_t old)
{
	uint8_t r = f->sbs[ftl_ppn_sb(f, old)].ruh;

	if (f->cfg.ruh_persistent && r < f->cfg.nr_ruh)
		return (enum ftl_stream)(ST_RUHGC0 + r);
	return ST_GC;
}

/*
 * ftl_cmt_get() on GC's behalf: its flash reads count as GC's, and a page
 * GC brought into the CMT is marked to be written back when its batch ends.
 */
static struct ftl_cmt *gc_cmt_get(struct ftl *f, uint32_t tp, struct ftl_io *io)
{
	bool absent = !f->cmt_index[tp];
	uint64_t reads = f->st.flash_tp_reads;
	struct ftl_cmt *c = ftl_cmt_get(f, tp, io);

	f->st.gc_tp_reads += f->st.flash_tp_reads - reads;
	if (absent && f->cmt_index[tp])
		f->cmt_index[tp]->gc_loaded = true;
	return c;
}

/* Start a GC load of translation page @tp unless it is resident or loading. */
static void gc_load_tp(struct ftl *f, uint32_t tp)
{
	if (!f->cmt_index[tp])
		gc_cmt_get(f, tp, NULL);
}

/*
 * The next round: entries from round_end on, for at most groups_max
 * translation pages and gc.nrds flash pages. Reads its pages (or
 * copies them from the write buffer) and starts its translation-page
 * loads. false: every entry is done.
 */
bool ftl_gc_round(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	uint32_t end, groups = 0, npages = 0, key = UINT32_MAX;

	for (uint32_t i = 0; i < g->nrds; i++)
		g->rds[i].fpid = FTL_UNMAPPED;
	g->round_start = g->round_end;
	if (g->round_start == g->nent)
		return false;
	for (end = g->round_start; end < g->nent; end++) {
		const struct ftl_gc_ent *e = &g->ents[end];
		uint32_t fpid = e->ppn / f->slots;

		if (ftl_gc_ent_key(e) != key) {
			key = ftl_gc_ent_key(e);
			if (key && groups == g->groups_max && end > g->round_start)
				break;
			groups += key != 0;
		}
		if (!ftl_valid_get(f, e->ppn) || ftl_gc_rd_find(f, fpid))
			continue;
		if (npages == g->nrds)
			break;
		g->rds[npages++].fpid = fpid;
	}
	g->round_end = end;
	g->move_idx = g->round_start;
	g->round_reads = 0;
	for (uint32_t i = 0; i < npages; i++) {
		struct ftl_gc_rd *rd = &g->rds[i];
		struct ftl_oob oob;

		rd->status = 0;
		if (ftl_gc_copy_buffered(f, rd->fpid, rd->page, &oob))
			memcpy(rd->oob_raw, &oob, sizeof(oob));
		else if (ftl_gc_read(f, rd, false))
			g->round_reads++;
	}
	/* Load the round's translation pages while the data is read. */
	key = UINT32_MAX;
	for (uint32_t i = g->round_start; i < g->round_end; i++) {
		const struct ftl_gc_ent *e = &g->ents[i];

		if (!ftl_gc_ent_key(e) || ftl_gc_ent_key(e) == key || !ftl_valid_get(f, e->ppn))
			continue;
		key = ftl_gc_ent_key(e);
		gc_load_tp(f, key - 1);
	}
	return true;
}

bool ftl_gc_wait_space(struct ftl *f)
{
	f->gc.waiting = true;
	TAILQ_INSERT_TAIL(&f->write_wait, &f->gc.tp_waiter, link);
	return false;
}

/*
 * Translation page @tp's unit in the victim could not be read. Resident,
 * the page is written back from memory (nothing is lost); else where its
 * LBAs' data is is lost: they read as errors until written or deallocated.
 * false: no room to write back now, wait.
 */
static bool gc_lose_tp(struct ftl *f, uint32_t tp)
{
	struct ftl_cmt *c = ftl_cmt_resident(f, tp);

	if (c) {
		c->dirty = true;
		if (!ftl_cmt_writeback_tp(f, tp))
			return ftl_gc_wait_space(f);
		return true;
	}
	ftl_valid_clear(f, f->gtd[tp]);
	f->gtd[tp] = FTL_LOST;
	f->st.tp_lost++;
	f->gc.lost++;
	return true;
}

/* Move one entry (or find it stale). false: wait and resume here. */
static bool gc_move_one(struct ftl *f, const struct ftl_gc_ent *e)
{
	uint32_t old = e->ppn, ppn;
	const struct ftl_gc_rd *rd;
	const struct ftl_oob_slot *os;
	const uint8_t *data;

	bool lost;

	if (!ftl_valid_get(f, old))
		return true; /* overwritten or trimmed meanwhile */
	rd = ftl_gc_rd_find(f, old / f->slots);
	/*
	 * Unreadable (an uncorrectable page): the unit's data is lost; what
	 * maps to it (the scan read its OOB) says so from now on.
	 */
	lost = !rd || rd->status;
	os = lost ? NULL
		  : &((const struct ftl_oob *)(const void *)rd->oob_raw)->slot[old % f->slots];
	data = lost ? NULL : rd->page + (size_t)(old % f->slots) * FTL_UNIT;
	if (os && (os->lba != e->lba || os->kind != e->kind)) {
		ftl_valid_clear(f, old);
		return true;
	}
	if (e->kind == UK_TP) {
		if (f->gtd[e->lba] != old) {
			ftl_valid_clear(f, old);
			return true;
		}
		if (lost)
			return gc_lose_tp(f, e->lba);
		ppn = ftl_put_unit(f, ST_GC, e->lba, UK_TP, os->dseq, data);
		if (ppn == FTL_UNMAPPED)
			return ftl_gc_wait_space(f);
		ftl_valid_clear(f, old);
		f->gtd[e->lba] = ppn;
		ftl_valid_set(f, ppn);
	} else {
		uint32_t tp = e->lba / FTL_TP_ENTRIES;
		struct ftl_cmt *c = ftl_cmt_resident(f, tp);

		if (!c) {
			/*
			 * Not loaded yet, or evicted since the round started. A
			 * load that fails at once resumes GC from inside.
			 */
			f->gc.waiting = true;
			c = gc_cmt_get(f, tp, &f->gc.tp_waiter);
			if (!c)
				return false;
			f->gc.waiting = false;
		}
		if (c->map[e->lba % FTL_TP_ENTRIES] != old) {
			ftl_valid_clear(f, old); /* stale bit */
			return true;
		}
		if (lost) {
			ftl_map_set(f, c, e->lba, FTL_LOST);
			f->st.units_lost++;
			f->gc.lost++;
			return true;
		}
		ppn = ftl_put_unit(f, gc_dest(f, old), e->lba, UK_DATA, os->dseq, data);
		if (ppn == FTL_UNMAPPED)
			return ftl_gc_wait_space(f);
		ftl_map_set(f, c, e->lba, ppn);
		if (!f->gc.victim_moved++)
			f->gc.victim_lba0 = e->lba;
	}
	f->gc.victim_written++;
	f->st.gc_units_moved++;
	return true;
}

/* The last unit of translation page @tp's batch is done. */
static void gc_group_done(struct ftl *f, uint32_t tp)
{
	struct ftl_cmt *c = ftl_cmt_resident(f, tp);

	if (!c || !c->gc_loaded)
		return; /* resident before: stays dirty in the CMT */
	c->gc_loaded = false;
	if (c->dirty && ftl_cmt_writeback_tp(f, tp)) {
		/* GC's own write: counted in the victim's gain, not as spent. */
		f->gc.credit += FTL_GC_CREDIT;
		f->gc.victim_written++;
		f->gc.victim_tp_wb++;
		f->st.gc_tp_writebacks++;
	}
	/* No room now: evicted (and written) first instead. */
	ftl_cmt_demote(f, c);
}

/* Move the round's entries. false: wait and resume. */
bool ftl_gc_move(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;

	for (; g->move_idx < g->round_end; g->move_idx++) {
		const struct ftl_gc_ent *e = &g->ents[g->move_idx];
		uint32_t key = ftl_gc_ent_key(e);

		if (!gc_move_one(f, e))
			return false;
		ftl_gc_grant(f, g->move_idx + 1);
		if (key && (g->move_idx + 1 == g->nent || ftl_gc_ent_key(e + 1) != key))
			gc_group_done(f, key - 1);
	}
	return true;
}
