/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die that goes offline: every op that starts on it fails with -ENODEV
 * (nand_die_set_offline(), a die-offline fault). The FTL learns it from the
 * first such completion (or from ftl_die_offline()) and goes on without the
 * die, as a drive does:
 *
 *   - it never allocates there again: the streams skip the die's pages of
 *     every superblock (its blocks are retired, the rest of each superblock
 *     stays in use), and GC reckons a superblock's room without them;
 *   - what was on flash there is gone: every valid unit of the die loses
 *     its validity bit, and every mapping that points there becomes
 *     FTL_LOST (an LBA that reads as Unrecovered Read Error until written or
 *     deallocated): at once in the resident translation pages, as each other
 *     one is loaded later (ftl_dieoff_fix_map(), from the load path);
 *   - what it can it moves: a resident translation page whose flash copy was
 *     on the die is rewritten from memory (dirty), and the write buffer's
 *     pages meant for the die keep their data when their programs fail (the
 *     program-failure path, pfail.c: GC moves their superblock's data out);
 *     a translation page that was only on the die is rebuilt from the OOB
 *     of the valid data on the other dies (dieoff_tp.c), so only its LBAs
 *     whose data was on the die are lost;
 *   - before it goes on, it records the loss on flash (dieoff_rec.c), so
 *     that a crash before the changed translation pages are programmed
 *     loses the same LBAs, never bringing an older version of one back;
 *   - the spare shrinks: a superblock holds fewer units, so more of them
 *     are needed for the capacity; too few turns the FTL read-only as
 *     retired superblocks do.
 *
 * The die stays gone across a restart or a power cut: the NAND device
 * keeps it offline in its store (nand/die_offline.c). A new instance
 * learns it before it recovers (ftl_dieoff_at_start()): the checkpoint
 * is written and read on the live dies' pages only, the start-up scan
 * skips the die, and once the mapping is rebuilt what pointed there is
 * lost as above (ftl_dieoff_recovered()).
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>

static uint32_t fpid_slot(const struct ftl *f, uint32_t fpid)
{
	return (fpid % f->stripe) % f->ndies;
}

bool ftl_fpid_dead(const struct ftl *f, uint32_t fpid)
{
	uint32_t slot;

	if (!f->ndead && !f->revivals)
		return false;
	slot = fpid_slot(f, fpid);
	if (f->slot_dead[slot])
		return true;
	/* Back, but this superblock was not erased since: a hole until it is. */
	return f->slot_back[slot] &&
	       f->sbs[fpid / (f->pages_per_block * f->stripe)].freed_gen < f->slot_back[slot];
}

/* @ppn's page is in the write buffer (its data is there, whatever the flash does). */
static bool ppn_buffered(const struct ftl *f, uint32_t ppn)
{
	return ftl_buffered(f, ppn) != NULL;
}

static bool ppn_lost_with_die(const struct ftl *f, uint32_t ppn)
{
	return ppn < FTL_LOST && ftl_fpid_dead(f, ppn / f->slots) && !ppn_buffered(f, ppn);
}

/*
 * A mapping of translation page @tp to @ppn is stale: its die is gone, or
 * went after the page was last fixed (then back, replaced: the mapping
 * points at what the die held before, not at anything written since).
 */
static bool ppn_stale(const struct ftl *f, uint32_t tp, uint32_t ppn)
{
	if (ppn >= FTL_LOST || ppn_buffered(f, ppn))
		return false;
	return ftl_fpid_dead(f, ppn / f->slots) ||
	       f->slot_death[fpid_slot(f, ppn / f->slots)] > f->tp_fixgen[tp];
}

void ftl_dieoff_fix_map(struct ftl *f, struct ftl_cmt *e)
{
	if (!f->deaths)
		return;
	for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++) {
		if (!ppn_stale(f, e->tp, e->map[i]))
			continue;
		e->map[i] = FTL_LOST;
		e->dirty = true;
		f->st.units_lost++;
	}
	f->tp_fixgen[e->tp] = f->deaths;
}

/* Slot @slot's die is gone: never written again (no more than that yet). */
static bool slot_mark_dead(struct ftl *f, uint32_t slot)
{
	uint64_t live;

	if (f->slot_dead[slot])
		return false;
	f->slot_dead[slot] = true;
	f->ndead++;
	f->slot_death[slot] = ++f->deaths;
	live = (uint64_t)f->units_per_sb * (f->ndies - f->ndead) / f->ndies;
	f->units_live = (uint32_t)live;
	return true;
}

/* Every LBA of translation page @tp in bitmap @lost. */
static void tp_all_lost(const struct ftl *f, uint32_t tp, uint64_t *lost)
{
	for (uint64_t lba = (uint64_t)tp * FTL_TP_ENTRIES;
	     lba < f->capacity && lba < (uint64_t)(tp + 1) * FTL_TP_ENTRIES; lba++)
		lost[lba / 64] |= 1ull << (lba % 64);
}

/* The LBAs of map @map (translation page @tp) that are lost, or whose data was on the dead die, into @lost. */
static void map_lost(const struct ftl *f, uint32_t tp, const uint32_t *map, uint64_t *lost)
{
	for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++) {
		uint64_t lba = (uint64_t)tp * FTL_TP_ENTRIES + i;

		if (lba < f->capacity && (map[i] == FTL_LOST || ppn_lost_with_die(f, map[i])))
			lost[lba / 64] |= 1ull << (lba % 64);
	}
}

/*
 * What was on flash on dead slot @slot is gone: its valid units, the
 * mappings to it (resident translation pages now, the others as they
 * load), translation pages only it held. @lost (NULL at a start): the
 * LBAs this makes lost, as far as a crash before the changed translation
 * pages are programmed could bring them back (those of resident pages, of
 * pages whose copy is still in the write buffer, of pages rebuilt or
 * lost); a page on flash elsewhere, not resident, maps them to the die
 * itself, and is fixed as it loads.
 */
static void slot_lose(struct ftl *f, uint32_t slot, uint64_t *lost)
{
	uint32_t pages_per_sb = f->pages_per_block * f->stripe;

	/* The die's units on flash are gone (those still in the buffer are not). */
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		for (uint32_t pg = 0; pg < f->pages_per_block; pg++) {
			for (uint32_t pl = 0; pl < f->planes; pl++) {
				uint32_t fpid = sb * pages_per_sb + pg * f->stripe + pl * f->ndies + slot;

				for (uint32_t k = 0; k < f->slots; k++) {
					uint32_t ppn = fpid * f->slots + k;

					if (!ftl_valid_get(f, ppn) || ppn_buffered(f, ppn))
						continue;
					ftl_valid_clear(f, ppn);
					f->st.offline_units++;
				}
			}
		}
	}
	uint32_t *orphans = NULL, norphans = 0, rebuilt;

	/* Translation pages only the die held: rebuilt from the other dies' OOB (dieoff_tp.c). */
	if (!f->sync_io)
		orphans = malloc((size_t)f->nr_tp * sizeof(*orphans));
	/* Mappings: resident translation pages now, the others as they load. */
	for (uint32_t tp = 0; tp < f->nr_tp; tp++) {
		struct ftl_cmt *e = f->cmt_index[tp];
		bool on_die = ppn_lost_with_die(f, f->gtd[tp]);
		const uint32_t *copy;

		if (e && e->state == CMT_READY) {
			ftl_dieoff_fix_map(f, e);
			f->dieoff_wb |= e->dirty;
			if (on_die) {
				e->dirty = true; /* written back elsewhere from memory */
				f->st.offline_tps_moved++;
			}
			if (lost)
				map_lost(f, tp, e->map, lost);
		} else if (!e && on_die) {
			f->gtd[tp] = FTL_LOST; /* its only copy was there */
			if (orphans)
				orphans[norphans++] = tp;
			else
				f->st.tp_lost++;
			if (lost && !orphans)
				tp_all_lost(f, tp, lost);
		} else if (e && lost && ppn_lost_with_die(f, e->load_ppn)) {
			tp_all_lost(f, tp, lost); /* loading from the die: it fails, all lost */
		} else if (!e && lost && f->gtd[tp] < FTL_LOST &&
			   (copy = (const uint32_t *)ftl_buffered(f, f->gtd[tp]))) {
			map_lost(f, tp, copy, lost); /* its copy is not on flash yet */
		}
		/* One loading from the die fails (all its LBAs lost); from another, it is fixed as it lands. */
	}
	rebuilt = ftl_dieoff_rebuild_tps(f, orphans, norphans, lost);
	f->st.tp_lost += norphans - rebuilt; /* no room: lost with all their LBAs */
	free(orphans);
	if (f->mdc)
		ftl_mdc_clear(f->mdc); /* runs may cross the die */
}

/*
 * Slot @slot's die is gone. What it makes lost is recorded on flash
 * (dieoff_rec.c) before the FTL goes on, so that a crash before the
 * changed translation pages are programmed loses those LBAs as this run
 * does, never bringing an older version of one back.
 */
static void die_gone(struct ftl *f, uint32_t slot)
{
	uint64_t w, *lost = NULL;

	if (!slot_mark_dead(f, slot))
		return;
	w = ++f->wseq; /* the record's own: what is written from now on is newer */
	if (f->env.store && !f->sync_io)
		lost = calloc(((size_t)f->capacity + 63) / 64 ? ((size_t)f->capacity + 63) / 64 : 1,
			      sizeof(*lost));
	slot_lose(f, slot, lost);
	if (lost && ftl_dierec_write(f, slot, w, lost))
		f->st.dierec_failed++;
	free(lost);
	ftl_sb_check_spare(f);
	ftl_kick(f);
}

/*
 * After a die went: the resident translation pages it changed are written
 * back at once, so that a crash or a power cut before the next checkpoint
 * finds their lost mappings on flash (newer than the data the scan finds
 * on the other dies) rather than an older copy of an LBA.
 */
static void dieoff_writeback(struct ftl *f)
{
	f->dieoff_wb = false;
	for (uint32_t tp = 0; tp < f->nr_tp; tp++) {
		if (!ftl_cmt_writeback_tp(f, tp)) {
			f->dieoff_wb = true; /* no room in the buffer now: later */
			return;
		}
	}
}

/*
 * Before a slot is written again, every translation page that still maps
 * what it held before it went is fixed: one not resident is loaded (the
 * load fixes it, cmt_loaded()). Then no stale mapping can point at a page
 * of the new die. true when none is left.
 */
static bool stale_tps_fixed(struct ftl *f, uint32_t death)
{
	uint32_t loads = 0;
	bool done = true;

	for (uint32_t tp = 0; tp < f->nr_tp; tp++) {
		struct ftl_cmt *e = f->cmt_index[tp];

		if (f->gtd[tp] >= FTL_LOST || f->tp_fixgen[tp] >= death)
			continue;
		if (e && e->state == CMT_READY) {
			ftl_dieoff_fix_map(f, e);
			continue;
		}
		done = false;
		if (!e && loads < 4) {
			ftl_cmt_get(f, tp, NULL);
			loads++;
		}
	}
	return done;
}

/*
 * The translation pages fixed for a die back are on flash: every dirty one
 * written back, the pages being filled closed, and every program up to
 * then done (what is dirtied later is newer mappings, not stale ones).
 * Before that the die takes no write: a crash finds no mapping to what it
 * held that could point at what it holds next.
 */
static bool fixes_durable(struct ftl *f)
{
	if (!f->revive_wait) {
		if (ftl_cmt_writeback_all(f) == -EAGAIN)
			return false; /* no room in the buffer now: again later */
		ftl_close_pages(f);
		f->revive_ticket = ftl_issued_ticket(f);
		f->revive_wait = true;
	}
	if (f->done_through < f->revive_ticket)
		return false;
	f->revive_wait = false;
	return true;
}

/* Slot @slot's die is back, replaced: written again, its pages in each superblock once erased. */
static void slot_revive(struct ftl *f, uint32_t slot)
{
	uint64_t live;

	f->slot_dead[slot] = false;
	f->ndead--;
	f->slot_back[slot] = ++f->revivals;
	ftl_remap_slot_reset(f, slot); /* a new die: no spare of ours on it */
	live = (uint64_t)f->units_per_sb * (f->ndies - f->ndead) / f->ndies;
	f->units_live = (uint32_t)live;
	/* Free superblocks: the new die's blocks in them are erased (it came so). */
	for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb; sb++)
		if (f->sbs[sb].state == SB_FREE)
			f->sbs[sb].freed_gen = f->revivals;
	f->st.dies_back++;
	if (f->mdc)
		ftl_mdc_clear(f->mdc);
	ftl_kick(f);
}

/* Whether a dead slot's die is back (the device says so); then revive it once safe. */
static void dieoff_poll(struct ftl *f)
{
	uint64_t now = f->env.ops->now(f->env.ctx);
	uint32_t death = 0;
	bool back[BLOX_FTL_MAX_DIES] = { false };

	if (now - f->dieoff_poll_ns < FTL_DIEOFF_POLL_NS && f->dieoff_poll_ns)
		return;
	f->dieoff_poll_ns = now;
	for (uint32_t s = 0; s < f->ndies; s++) {
		if (!f->slot_dead[s] || nand_die_offline(f->env.dev, f->res.dies[s]))
			continue;
		back[s] = true;
		death = f->slot_death[s] > death ? f->slot_death[s] : death;
	}
	if (!death || !stale_tps_fixed(f, death) || !fixes_durable(f)) {
		if (death)
			f->dieoff_poll_ns = 0; /* loads or programs under way: look again at once */
		return;
	}
	for (uint32_t s = 0; s < f->ndies; s++) {
		if (!back[s])
			continue;
		/* Said on flash before it takes writes; without room it stays dead. */
		if (f->env.store && ftl_dierec_write(f, s, ++f->wseq, NULL)) {
			f->st.dierec_failed++;
			continue;
		}
		slot_revive(f, s);
	}
}

/*
 * After a die went: the resident translation pages it changed are written
 * back at once, so that a crash or a power cut before the next checkpoint
 * finds their lost mappings on flash (newer than the data the scan finds
 * on the other dies) rather than an older copy of an LBA. While a die is
 * gone: whether it came back.
 */
void ftl_dieoff_step(struct ftl *f)
{
	if (f->sync_io || f->shutting_down)
		return;
	if (f->dieoff_wb)
		dieoff_writeback(f);
	if (!f->ndead)
		return;
	dieoff_poll(f);
	/*
	 * Come back to look again, idle or not (a migration's wake-up is its
	 * own: the driver keeps one, so none is asked for while one runs).
	 */
	if (f->ndead && f->env.ops->wake_at && !f->mig.active)
		f->env.ops->wake_at(f->env.ctx, f->dieoff_poll_ns + FTL_DIEOFF_POLL_NS);
}

int ftl_die_back(struct ftl *f, uint32_t die)
{
	for (uint32_t s = 0; s < f->ndies; s++) {
		if (f->res.dies[s] != die)
			continue;
		if (!f->slot_dead[s])
			return 0;
		if (nand_die_offline(f->env.dev, die))
			return -EBUSY;
		f->dieoff_poll_ns = 0;
		dieoff_poll(f);
		return f->slot_dead[s] ? -EAGAIN : 0;
	}
	return -ENOENT;
}

void ftl_dieoff_at_start(struct ftl *f)
{
	for (uint32_t s = 0; s < f->ndies; s++)
		if (nand_die_offline(f->env.dev, f->res.dies[s]))
			slot_mark_dead(f, s);
}

void ftl_dieoff_dead_at_start(struct ftl *f, uint32_t slot)
{
	slot_mark_dead(f, slot);
}

void ftl_dieoff_recovered(struct ftl *f)
{
	for (uint32_t s = 0; s < f->ndies; s++)
		if (f->slot_dead[s])
			slot_lose(f, s, NULL);
	if (f->ndead)
		ftl_sb_check_spare(f);
}

void ftl_die_op_failed(struct ftl *f, const struct nand_op *op)
{
	uint32_t die;

	if (op->status != -ENODEV)
		return;
	die = nand_die_index(f->geo, &op->addr);
	for (uint32_t s = 0; s < f->ndies; s++)
		if (f->res.dies[s] == die)
			die_gone(f, s);
}

int ftl_die_offline(struct ftl *f, uint32_t die)
{
	for (uint32_t s = 0; s < f->ndies; s++) {
		if (f->res.dies[s] == die) {
			die_gone(f, s);
			ftl_dieoff_step(f); /* not from a completion: write back now */
			return 0;
		}
	}
	return -ENOENT;
}
