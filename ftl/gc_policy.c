/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GC policy: the levels (in free superblocks, from the spare the
 * over-provisioning leaves), which level the instance is at, when a victim
 * is worth collecting, the victim itself (greedy, cost-benefit, or the
 * least-worn superblock for static wear leveling), the pacing of host
 * writes by GC credits below the foreground level, and those credits as
 * GC earns them while it collects (and at a victim's end, whether the run
 * was futile). gc.c does the collecting.
 */
#include "gc_internal.h"

uint64_t ftl_gc_host_mark(const struct ftl *f)
{
	return f->st.host_writes + f->st.host_trims;
}

bool ftl_gc_host_waits(const struct ftl *f)
{
	const struct ftl_io *io;

	if (!TAILQ_EMPTY(&f->gc.pace_wait))
		return true;
	TAILQ_FOREACH(io, &f->write_wait, link)
		if (io != &f->gc.tp_waiter)
			return true;
	return false;
}

enum ftl_gc_level ftl_gc_level(const struct ftl *f)
{
	return ftl_gc_level_at(f, f->free_sbs);
}

enum ftl_gc_level ftl_gc_level_at(const struct ftl *f, uint32_t fr)
{
	const struct ftl_gc *g = &f->gc;
	bool idle, waits = ftl_gc_host_waits(f);

	/* At the host streams' reserve a waiting write needs GC, any victim. */
	if (fr < g->lvl_urgent || fr <= 1 || (waits && fr <= FTL_HOST_RESERVE_SBS))
		return FTL_GC_URGENT;
	/* GC that gained nothing waits for the host to change something. */
	if (g->futile && g->futile_mark == ftl_gc_host_mark(f) && !waits)
		return FTL_GC_NONE;
	if (fr < g->lvl_fg)
		return FTL_GC_FG;
	if (fr < g->lvl_bg)
		return FTL_GC_BG;
	/* A non-deterministic window catches up to the idle level, host busy or not. */
	idle = f->plm.win == FTL_PLM_NDWIN ||
	       (f->outstanding == 0 &&
		f->env.ops->now(f->env.ctx) - f->last_host_ns >= f->cfg.idle_ns);
	return idle && fr < g->lvl_idle ? FTL_GC_IDLE : FTL_GC_NONE;
}

bool ftl_gc_urgent(const struct ftl *f)
{
	return f->free_sbs < f->gc.lvl_urgent || f->free_sbs <= 1;
}

bool ftl_gc_pace(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;

	if (f->free_sbs >= g->lvl_fg || ftl_plm_deferring(f)) {
		g->credit = 0; /* credit is earned and spent below the level only */
		return true; /* nor in a deterministic window: GC waits */
	}
	if (!g->active)
		ftl_gc_step(f);
	if (!ftl_gc_busy(f)) {
		g->credit = 0; /* nothing to collect: nothing to pace with */
		return true;
	}
	return g->credit >= FTL_GC_CREDIT;
}

bool ftl_gc_pace_ready(const struct ftl *f)
{
	const struct ftl_gc *g = &f->gc;

	return f->free_sbs >= g->lvl_fg || !ftl_gc_busy(f) || g->credit >= FTL_GC_CREDIT ||
	       ftl_plm_deferring(f);
}

static void erase_counts(const struct ftl *f, uint32_t *min, uint32_t *max)
{
	*min = UINT32_MAX;
	*max = 0;
	for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb; i++) {
		if (f->sbs[i].state == SB_BAD)
			continue; /* retired: its count no longer moves */
		*min = f->sbs[i].erase_count < *min ? f->sbs[i].erase_count : *min;
		*max = f->sbs[i].erase_count > *max ? f->sbs[i].erase_count : *max;
	}
}

void ftl_note_read(struct ftl *f, const struct nand_op *op)
{
	uint32_t sb;

	ftl_die_op_failed(f, op); /* -ENODEV: its die is gone */
	if (!op->retries && !op->uncorrectable)
		return;
	f->st.read_retries += op->retries;
	f->st.uncorrectable_reads += op->uncorrectable;
	if (!f->cfg.refresh_retries ||
	    (op->retries < f->cfg.refresh_retries && !op->uncorrectable))
		return;
	/* A superblock is block first_block + sb on each die and plane. */
	sb = op->addr.block - f->res.first_block;
	if (op->addr.block < f->res.first_block || sb >= f->nr_sb || sb < FTL_CKPT_SBS ||
	    f->sbs[sb].refresh || (f->sbs[sb].state != SB_FULL && f->sbs[sb].state != SB_OPEN))
		return; /* one being collected or erased is moved already */
	f->sbs[sb].refresh = true;
	f->refresh_pending++;
}

/* A full superblock flagged for a refresh, or -1. */
static int32_t refresh_victim(const struct ftl *f)
{
	if (!f->refresh_pending)
		return -1;
	for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb; i++)
		if (f->sbs[i].refresh && f->sbs[i].state == SB_FULL)
			return (int32_t)i;
	return -1;
}

bool ftl_gc_refresh_due(const struct ftl *f)
{
	return refresh_victim(f) >= 0;
}

int32_t ftl_gc_pick_victim(struct ftl *f, enum ftl_gc_level lvl, bool *wl)
{
	uint32_t min_invalid = lvl == FTL_GC_URGENT ? 1
			       : lvl == FTL_GC_FG ? f->gc.min_invalid_fg
						   : f->gc.min_invalid_bg;
	uint64_t now = f->env.ops->now(f->env.ctx);
	uint32_t emin, emax;
	int32_t best = -1;
	double best_score = -1;

	*wl = false;
	best = refresh_victim(f);
	if (best >= 0) {
		/* Its data decays: moved first, whatever it gains. */
		f->sbs[best].refresh = false;
		f->refresh_pending--;
		f->st.refreshes++;
		return best;
	}
	erase_counts(f, &emin, &emax);
	/*
	 * Not while a die moves: the superblocks not moved yet keep the old
	 * die's (higher) erase counts, and static WL would rewrite the ones
	 * just moved onto the same fresh dies, levelling nothing.
	 */
	if (f->cfg.wl_threshold && !f->mig.active && emax - emin > f->cfg.wl_threshold) {
		int open_stream = -1;

		for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb; i++) {
			int os = -1;

			if (f->sbs[i].state == SB_OPEN) {
				for (int s = 0; s < ST_COUNT; s++)
					if (ftl_host_stream((uint32_t)s) &&
					    f->streams[s].sb == (int32_t)i)
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
		/* What erasing it gains: a die gone offline's share is never room again. */
		uint32_t invalid = f->units_live > sb->valid ? f->units_live - sb->valid : 0;
		double score;

		if (sb->state != SB_FULL || invalid < min_invalid)
			continue;
		if (f->cfg.gc_policy == FTL_GC_GREEDY) {
			score = (double)invalid;
		} else {
			double u = (double)sb->valid / f->units_live;
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

/* Free superblocks at @permille of the spare ones, all of them at most. */
static uint32_t level_sbs(const struct ftl *f, uint32_t permille, uint32_t least)
{
	uint32_t usable = f->nr_sb - FTL_CKPT_SBS;
	uint64_t n = ((uint64_t)f->gc.spare * permille + 500) / 1000;

	if (n < least)
		n = least;
	return n > usable ? usable : (uint32_t)n;
}

void ftl_gc_levels_init(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	uint32_t usable = f->nr_sb - FTL_CKPT_SBS;
	uint64_t need = ((uint64_t)f->capacity + f->nr_tp + f->units_per_sb - 1) /
			f->units_per_sb;

	/* Spare: what is left once the data and one victim in flight are placed. */
	g->spare = usable > need + 1 ? usable - (uint32_t)need - 1 : 0;
	g->lvl_urgent = level_sbs(f, f->cfg.gc_urgent_permille, FTL_HOST_RESERVE_SBS);
	/* Pacing needs room above urgent; a small spare cannot hold much. */
	g->lvl_fg = level_sbs(f, f->cfg.gc_fg_permille,
			      g->lvl_urgent + (g->spare >= 8 ? 2 : 1));
	g->lvl_bg = level_sbs(f, f->cfg.gc_bg_permille, g->lvl_fg);
	g->lvl_idle = level_sbs(f, f->cfg.gc_idle_permille, g->lvl_bg);
	g->min_invalid_bg = (uint32_t)((uint64_t)f->units_per_sb *
				       f->cfg.gc_min_invalid_permille / 1000);
	if (g->min_invalid_bg < 1)
		g->min_invalid_bg = 1;
	g->min_invalid_fg = f->units_per_sb / 32 ? f->units_per_sb / 32 : 1;
}

/* ---- credits GC earns for the host ---- */

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
void ftl_gc_grant_scan(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	uint64_t work = (uint64_t)g->scan_pages + f->sbs[g->victim].valid;

	g->scanned++;
	if (work)
		grant_to(g, g->expect * (int64_t)g->scanned / (int64_t)work);
}

void ftl_gc_grant(struct ftl *f, uint32_t processed)
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
void ftl_gc_victim_done(struct ftl *f)
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
