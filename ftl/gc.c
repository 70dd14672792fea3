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
 *
 * The files: gc.c (this one) is the driver: a victim taken, the state
 * machine over the passes, GC storms, set-up; gc_read.c the victim's reads
 * and pass 1; gc_move.c pass 2; gc_erase.c the erase; gc_policy.c the
 * levels, victims and credits; gc_internal.h what they share.
 */
#include "gc_internal.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>

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
			if (!ftl_gc_scan(f))
				return;
			ftl_gc_sorted(f, g->rescan);
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
			if (!ftl_gc_round(f)) {
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
					ftl_gc_wait_space(f);
					return;
				}
				g->lost = 0;
				ftl_gc_victim_done(f);
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
			if (!ftl_gc_move(f))
				return;
			g->tp_waiter.stage = GC_READ;
			break;
		default:
			return;
		}
	}
}

/* Run GC's state machine; a call from inside it (a completion) repeats it. */
void ftl_gc_continue(struct ftl *f)
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
		ftl_gc_continue(f);
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
		ftl_gc_continue(f);
	}
	if (g->active && g->erase_held && gc_may_move(f)) {
		g->erase_held = false;
		ftl_gc_continue(f);
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
		g->scan_pages += ftl_gc_page_has_valid(f, base + p);
	/* Until pass 1 knows better: invalid units less last run's write-backs. */
	g->expect = ((int64_t)f->units_live - f->sbs[v].valid - g->last_tp_wb) *
		    FTL_GC_CREDIT;
	if (g->expect < 0 || wl)
		g->expect = 0;
	f->sbs[v].state = SB_GC;
	g->tp_waiter.stage = GC_SCAN;
	ftl_gc_continue(f);
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

