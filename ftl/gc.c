/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Garbage collection and wear leveling. One victim superblock collected at
 * a time: pick it (greedy: fewest valid units; cost-benefit: best
 * (1 - u) * age / (2u)), then move its valid units DFTL-style, in batches
 * grouped by translation page, so that each translation page is loaded
 * and written back once per victim rather than once per unit:
 *
 *   pass 1 (GC_SCAN)  read the OOB of every victim page that holds valid
 *                     units (the write buffer's copy if it is still
 *                     there): one entry per valid unit (LBA, PPN), sorted
 *                     by translation page, then PPN;
 *   pass 2, by rounds of a few translation pages (as many as a quarter of
 *                     the CMT, at least one) and up to gc.nrds pages
 *                     (FTL_GC_READS_PER_DIE per die, so that every die
 *                     has reads queued while another is slow):
 *     GC_READ         read the data pages the round's units sit on and
 *                     start loading the round's translation pages;
 *     GC_MOVE         per translation page, move every unit whose mapping
 *                     still points into the victim (host writes may have
 *                     raced) into the GC stream, keeping its data version,
 *                     and update the mapping; a translation page GC loaded
 *                     is written back when its last unit is moved (its
 *                     content version is that write-back's, as for any
 *                     write-back) and goes to the cold end of the LRU; one
 *                     that was resident stays dirty in the CMT.
 *                     Translation pages in the victim move as before: a
 *                     copy keeping its content version, and the GTD.
 *   erase             every open page is submitted; once those pages
 *                     (everything that made a victim unit stale) are on
 *                     flash, the victim is erased. It waits for that in
 *                     one of FTL_GC_ERASES erase slots. With the pipeline
 *                     (ftl_config.gc_pipeline), GC takes the next victim
 *                     meanwhile: its pass 1 keeps the dies
 *                     busy while the programs and the erase finish (a
 *                     tBERS on every die), and its rounds wait for the
 *                     erases unless there is room above the urgent level
 *                     (gc_may_move()). With every slot taken, a collected
 *                     victim waits in GC_ERASING.
 *
 * Levels (ftl.h) by free superblocks, computed by ftl_gc_init() from the
 * spare superblocks: idle, background, foreground (host writes paced by
 * credits GC earns, see ftl_gc_pace()) and urgent (host writes wait).
 * Static wear leveling picks the least-worn full superblock as the victim
 * when the erase-count spread passes the threshold, so cold data leaves
 * young blocks.
 */
#include "ftl_internal.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void gc_continue(struct ftl *f);

static void grant_to(struct ftl_gc *g, int64_t target)
{
	if (target > g->granted) {
		g->credit += target - g->granted;
		g->granted = target;
	}
}

/*
 * Credit for the host as GC goes: pass 1 earns the gain estimated at the
 * pick for each page it reads (work = pages to read + units to move);
 * pass 2 the rest of the gain pass 1 found, for each unit it moves.
 */
static void gc_grant_scan(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	uint64_t work = (uint64_t)g->scan_pages + f->sbs[g->victim].valid;

	g->scanned++;
	if (work)
		grant_to(g, g->expect * (int64_t)g->scanned / (int64_t)work);
}

static void gc_grant(struct ftl *f, uint32_t processed)
{
	struct ftl_gc *g = &f->gc;

	if (g->nent && g->expect > g->grant_base)
		grant_to(g, g->grant_base + (g->expect - g->grant_base) *
						    (int64_t)processed / (int64_t)g->nent);
}

/* What the victim gained and the host was not granted yet (may be negative). */
static int64_t gc_remainder(const struct ftl *f)
{
	const struct ftl_gc *g = &f->gc;

	return ((int64_t)f->units_live - g->victim_written) * FTL_GC_CREDIT - g->granted;
}

/*
 * Pass 2 is done. The victim's gain is known now: the host may use it
 * while the copies are programmed and the victim erased (free space dips
 * by at most that superblock meanwhile). With no host write or trim
 * meanwhile, a run that gained (nearly) nothing means the victims left
 * are not worth it: stop until the host changes something (urgent GC goes
 * on regardless).
 */
static void gc_victim_done(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	int64_t gain = ((int64_t)f->units_live - g->victim_written) * FTL_GC_CREDIT;
	int64_t rest = gc_remainder(f);

	g->credit += rest;
	g->granted += rest;
	g->last_tp_wb = g->victim_tp_wb;
	/* A handle's superblock whose data moved: Media Reallocated. */
	if (g->victim_moved && f->sbs[g->victim].ruh < f->cfg.nr_ruh)
		ftl_fdp_event(f, FTL_FDP_EV_REALLOC, f->sbs[g->victim].ruh, g->victim_moved,
			      g->victim_lba0);
	if (!g->static_wl && ftl_gc_host_mark(f) == g->host_mark && !ftl_gc_host_waits(f) &&
	    gain < (int64_t)(f->units_live / 16) * FTL_GC_CREDIT) {
		g->futile = true;
		g->futile_mark = g->host_mark;
	}
}

/* ---- reads ---- */

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

static struct ftl_gc_rd *rd_find(struct ftl *f, uint32_t fpid)
{
	for (uint32_t i = 0; i < f->gc.nrds; i++)
		if (f->gc.rds[i].fpid == fpid)
			return &f->gc.rds[i];
	return NULL;
}

static struct ftl_gc_rd *rd_unused(struct ftl *f)
{
	return rd_find(f, FTL_UNMAPPED);
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
		gc_grant_scan(f);
		gc_continue(f);
	} else if (--g->round_reads == 0) {
		g->tp_waiter.stage = GC_MOVE;
		gc_continue(f);
	}
	ftl_progress(f);
}

/* Read victim page rd->fpid: its OOB only, or data and OOB. false: failed. */
static bool gc_read(struct ftl *f, struct ftl_gc_rd *rd, bool oob_only)
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

static bool page_has_valid(const struct ftl *f, uint32_t fpid)
{
	for (uint32_t s = 0; s < f->slots; s++)
		if (ftl_valid_get(f, fpid * f->slots + s))
			return true;
	return false;
}

/* ---- pass 1 ---- */

/* Sort key: translation pages of the victim first, then by the data's. */
static uint32_t ent_key(const struct ftl_gc_ent *e)
{
	return e->kind == UK_TP ? 0 : 1 + e->lba / FTL_TP_ENTRIES;
}

static int ent_cmp(const void *a, const void *b)
{
	const struct ftl_gc_ent *x = a, *y = b;
	uint32_t kx = ent_key(x), ky = ent_key(y);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x->ppn < y->ppn ? -1 : x->ppn > y->ppn;
}

/* Pass 1 done: sort, and what the victim should gain for the host. */
static void gc_sorted(struct ftl *f, bool rescan)
{
	struct ftl_gc *g = &f->gc;
	int64_t tps = 0, gain;

	if (g->nent > 1)
		qsort(g->ents, g->nent, sizeof(*g->ents), ent_cmp);
	for (uint32_t i = 0; i < g->nent; i++) {
		uint32_t k = ent_key(&g->ents[i]);

		if (k && (i == 0 || ent_key(&g->ents[i - 1]) != k) && !f->cmt_index[k - 1])
			tps++; /* to load and write back */
	}
	gain = (int64_t)f->units_live - g->nent - tps;
	g->grant_base = g->granted;
	g->expect = rescan || gain <= 0 ? 0 : gain * FTL_GC_CREDIT;
	g->round_start = g->round_end = 0;
}

/* false: wait for a read to complete. */
static bool gc_scan(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	uint32_t pages = f->pages_per_block * f->stripe;
	uint32_t base = ftl_ppn(f, (uint32_t)g->victim, 0) / f->slots;

	while (g->cursor < pages) {
		uint32_t fpid = base + g->cursor;
		struct ftl_gc_rd *rd;
		struct ftl_oob oob;

		if (!page_has_valid(f, fpid)) {
			g->cursor++;
			continue;
		}
		if (ftl_gc_copy_buffered(f, fpid, NULL, &oob)) {
			/* Still in the write buffer: take it from there. */
			gc_collect(f, fpid, &oob);
			gc_grant_scan(f);
			g->cursor++;
			continue;
		}
		rd = rd_unused(f);
		if (!rd)
			return false;
		g->cursor++;
		rd->fpid = fpid;
		if (gc_read(f, rd, true)) {
			g->scan_reads++;
		} else {
			gc_collect(f, fpid, NULL);
			rd->fpid = FTL_UNMAPPED;
			gc_grant_scan(f);
		}
	}
	return g->scan_reads == 0;
}

/* ---- pass 2 ---- */

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
static bool gc_round(struct ftl *f)
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

		if (ent_key(e) != key) {
			key = ent_key(e);
			if (key && groups == g->groups_max && end > g->round_start)
				break;
			groups += key != 0;
		}
		if (!ftl_valid_get(f, e->ppn) || rd_find(f, fpid))
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
		else if (gc_read(f, rd, false))
			g->round_reads++;
	}
	/* Load the round's translation pages while the data is read. */
	key = UINT32_MAX;
	for (uint32_t i = g->round_start; i < g->round_end; i++) {
		const struct ftl_gc_ent *e = &g->ents[i];

		if (!ent_key(e) || ent_key(e) == key || !ftl_valid_get(f, e->ppn))
			continue;
		key = ent_key(e);
		gc_load_tp(f, key - 1);
	}
	return true;
}

static bool gc_wait_space(struct ftl *f)
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
			return gc_wait_space(f);
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
	rd = rd_find(f, old / f->slots);
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
			return gc_wait_space(f);
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
			return gc_wait_space(f);
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
static bool gc_move(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;

	for (; g->move_idx < g->round_end; g->move_idx++) {
		const struct ftl_gc_ent *e = &g->ents[g->move_idx];
		uint32_t key = ent_key(e);

		if (!gc_move_one(f, e))
			return false;
		gc_grant(f, g->move_idx + 1);
		if (key && (g->move_idx + 1 == g->nent || ent_key(e + 1) != key))
			gc_group_done(f, key - 1);
	}
	return true;
}

/*
 * May pass 2 start a round while collected victims wait for their erase
 * (the pipeline)? Their space is spent (moved units and the host's
 * credits) and comes back only with the erase, and moving spends up to a
 * superblock more before it gains anything: with room for that above the
 * urgent level, or below it, where host writes wait anyway and only GC
 * helps (GC may then take the last free superblocks: host reads that need
 * a translation page may wait for an erase, docs/QOS_RESULTS.md). Pass 1
 * takes no space: it goes on regardless, and earns the host its credit.
 */
static bool gc_may_move(const struct ftl *f)
{
	uint32_t pending = ftl_gc_erases_pending(f);

	return !pending || ftl_gc_urgent(f) || f->free_sbs >= f->gc.lvl_urgent + 1 + pending;
}

static void gc_run(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;

	/* Power is gone: the hold-up is for the write buffer, GC stops where it is. */
	if (f->power_failing)
		return;
	for (;;) {
		switch (g->tp_waiter.stage) {
		case GC_SCAN:
			if (!gc_scan(f))
				return;
			gc_sorted(f, g->rescan);
			g->tp_waiter.stage = GC_READ;
			break;
		case GC_READ:
			if (g->round_reads)
				return;
			if (ftl_plm_deferring(f)) {
				g->plm_paused = true; /* the next round after the window */
				return;
			}
			if (g->round_end < g->nent && !gc_may_move(f)) {
				g->erase_held = true; /* ftl_gc_step() goes on */
				return;
			}
			if (!gc_round(f)) {
				if (f->sbs[g->victim].valid) {
					/* Nothing should be left; scan again to be sure. */
					g->cursor = 0;
					g->nent = 0;
					g->rescan = true;
					g->expect = 0;
					g->tp_waiter.stage = GC_SCAN;
					break;
				}
				/*
				 * Everything moved. Every page that made a victim
				 * unit stale (host streams too) must be on flash
				 * before the erase, or a crash would bring back
				 * mappings into an erased block: the pages
				 * submitted up to now.
				 */
				/*
				 * Lost units leave no copy for recovery to find:
				 * their mappings reach flash before the erase.
				 */
				if (g->lost && ftl_cmt_writeback_all(f) == -EAGAIN) {
					gc_wait_space(f);
					return;
				}
				g->lost = 0;
				gc_victim_done(f);
				ftl_close_pages(f);
				g->victim_ticket = ftl_issued_ticket(f);
				g->tp_waiter.stage = GC_ERASING;
				ftl_gc_hand_over(f);
				return;
			}
			if (g->round_reads)
				return; /* gc_read_done moves on */
			g->tp_waiter.stage = GC_MOVE;
			break;
		case GC_MOVE:
			if (!gc_move(f))
				return;
			g->tp_waiter.stage = GC_READ;
			break;
		default:
			return;
		}
	}
}

/* Run GC's state machine; a call from inside it (a completion) repeats it. */
static void gc_continue(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;

	if (g->running) {
		g->again = true;
		return;
	}
	g->running = true;
	do {
		g->again = false;
		if (!g->waiting)
			gc_run(f);
	} while (g->again);
	g->running = false;
}

void ftl_gc_resume(struct ftl *f)
{
	f->gc.waiting = false;
	if (f->gc.active)
		gc_continue(f);
}

/* Whether a GC storm still runs (its time may be over). */
static bool storm_on(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;

	if (g->storm && g->storm_until && f->env.ops->now(f->env.ctx) >= g->storm_until)
		g->storm = false;
	return g->storm;
}

void ftl_gc_storm(struct ftl *f, uint32_t superblocks, uint64_t duration_ns)
{
	struct ftl_gc *g = &f->gc;

	g->storm = true;
	g->storm_left = superblocks || duration_ns ? superblocks : 1;
	g->storm_until = duration_ns ? f->env.ops->now(f->env.ctx) + duration_ns : 0;
	g->futile = false;
	f->st.gc_storms++;
	ftl_gc_step(f);
}

void ftl_gc_step(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	enum ftl_gc_level lvl;
	bool wl, storm;
	int32_t v, hidden;

	if (f->power_failing)
		return; /* the hold-up programs the write buffer only */
	/* A deterministic window holds it (plm.c), unless space is short. */
	if (ftl_plm_gc_hold(f))
		return;
	for (uint32_t i = 0; i < FTL_GC_ERASES; i++)
		ftl_gc_erase_try(f, &g->erase[i]); /* once their programs are done */
	if (g->active && g->plm_paused) {
		g->plm_paused = false;
		gc_continue(f);
	}
	if (g->active && g->erase_held && gc_may_move(f)) {
		g->erase_held = false;
		gc_continue(f);
	}
	/* Collected and an erase slot free now: on to the next victim. */
	if (g->active && g->tp_waiter.stage == GC_ERASING) {
		/* Its moves programmed, its failed pages go (erases held for them may run). */
		if (f->done_through >= g->victim_ticket)
			ftl_pfail_release(f, (uint32_t)g->victim);
		ftl_gc_hand_over(f);
	}
	if (g->active)
		return;
	/* Stopping, GC takes no new victim but the data of a failed program. */
	if (f->sync_io || (f->shutting_down && !ftl_pfail_pending(f)))
		return;
	/*
	 * Is another victim needed once the collected ones are erased? Their
	 * superblocks count as free here, so GC does not take one more (at a
	 * more pressing level) than it would have after the erases.
	 */
	lvl = ftl_gc_level_at(f, f->free_sbs + ftl_gc_erases_pending(f));
	if (lvl == FTL_GC_NONE && ftl_gc_refresh_due(f))
		lvl = FTL_GC_BG; /* a superblock reads with many retries: move its data now */
	storm = storm_on(f);
	if (storm)
		lvl = FTL_GC_URGENT; /* any victim with something to gain, as GC would score it */
	/*
	 * Without the pipeline, the next victim after the erase; but erases
	 * wait for the data of a failed program, which only the next victim's
	 * collection writes.
	 */
	if (lvl == FTL_GC_NONE ||
	    (!f->cfg.gc_pipeline && ftl_gc_erases_pending(f) && !ftl_pfail_pending(f)))
		return;
	/* A superblock a die migration is copying is not GC's to take. */
	hidden = ftl_mig_hide(f);
	v = ftl_gc_pick_victim(f, lvl, &wl);
	ftl_mig_unhide(f, hidden);
	if (v < 0) {
		if (storm)
			g->storm = false; /* nothing left to collect: the storm is over */
		return;
	}
	if (storm) {
		f->st.gc_storm_victims++;
		if (g->storm_left && !--g->storm_left)
			g->storm = false;
	}
	g->active = true;
	g->static_wl = wl;
	g->victim = v;
	g->level = lvl;
	g->host_mark = ftl_gc_host_mark(f);
	g->futile = false;
	g->cursor = 0;
	g->nent = 0;
	g->scan_reads = g->round_reads = 0;
	g->victim_written = g->victim_tp_wb = 0;
	g->victim_moved = g->victim_lba0 = 0;
	g->rescan = false;
	g->erase_held = false;
	g->granted = 0;
	g->scanned = g->scan_pages = 0;
	for (uint32_t p = 0, base = ftl_ppn(f, (uint32_t)v, 0) / f->slots;
	     p < f->pages_per_block * f->stripe; p++)
		g->scan_pages += page_has_valid(f, base + p);
	/* Until pass 1 knows better: invalid units less last run's write-backs. */
	g->expect = ((int64_t)f->units_live - f->sbs[v].valid - g->last_tp_wb) *
		    FTL_GC_CREDIT;
	if (g->expect < 0 || wl)
		g->expect = 0;
	f->sbs[v].state = SB_GC;
	g->tp_waiter.stage = GC_SCAN;
	gc_continue(f);
}

int ftl_gc_init(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;

	g->victim = -1;
	for (uint32_t i = 0; i < FTL_GC_ERASES; i++) {
		g->erase[i].f = f;
		g->erase[i].sb = -1;
		g->erase[i].ops = calloc(f->ndies * f->planes, sizeof(*g->erase[i].ops));
		if (!g->erase[i].ops)
			return -ENOMEM;
	}
	TAILQ_INIT(&g->pace_wait);
	g->nrds = f->ndies * FTL_GC_READS_PER_DIE;
	if (g->nrds > FTL_GC_READS_MAX)
		g->nrds = FTL_GC_READS_MAX;
	g->ents = calloc(f->units_per_sb, sizeof(*g->ents));
	g->rds = calloc(g->nrds, sizeof(*g->rds));
	g->tp_waiter.op = FTL_IO_READ; /* unused: marks an internal waiter */
	if (!g->ents || !g->rds)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->nrds; i++) {
		struct ftl_gc_rd *rd = &g->rds[i];

		rd->f = f;
		rd->fpid = FTL_UNMAPPED;
		rd->page = blox_page_alloc(f->geo->page_size);
		rd->oob_raw = calloc(1, f->geo->oob_size);
		if (!rd->page || !rd->oob_raw)
			return -ENOMEM;
	}
	/* A quarter of the CMT at most per round, so hosts keep theirs. */
	g->groups_max = f->cmt_cap / 4;
	if (g->groups_max > FTL_GC_READS_PER_DIE)
		g->groups_max = FTL_GC_READS_PER_DIE;
	if (g->groups_max < 1)
		g->groups_max = 1;
	ftl_gc_levels_init(f);
	return 0;
}

void ftl_gc_fini(struct ftl *f)
{
	for (uint32_t i = 0; f->gc.rds && i < f->gc.nrds; i++) {
		free(f->gc.rds[i].page);
		free(f->gc.rds[i].oob_raw);
	}
	free(f->gc.rds);
	free(f->gc.ents);
	for (uint32_t i = 0; i < FTL_GC_ERASES; i++)
		free(f->gc.erase[i].ops);
}

bool ftl_gc_busy(const struct ftl *f)
{
	return f->gc.active || ftl_gc_erases_pending(f);
}

bool ftl_gc_is_waiter(const struct ftl *f, const struct ftl_io *io)
{
	return io == &f->gc.tp_waiter;
}
