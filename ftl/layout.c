/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit addresses, superblocks and validity. A superblock is block b on
 * every (die, plane) of the instance; PPNs inside it stripe across dies
 * first (see ftl_internal.h). Allocation takes the least-worn free
 * superblock (dynamic wear leveling).
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
 * Host units of an instance over @nr_dies dies and @nr_blocks blocks per
 * plane: room for the checkpoint superblocks, one open superblock per
 * stream and one to collect into, then over-provisioning on top; the
 * translation pages live in the same space. 0 when too small.
 */
static uint64_t layout_capacity(const struct ftl_config *cfg, uint64_t units_per_sb,
			       uint32_t nr_sb)
{
	uint32_t op_permille = cfg->op_permille, nst = ftl_streams_used(cfg);
	uint64_t data_units, cap;

	if (nr_sb < FTL_CKPT_SBS + nst + 4 || op_permille >= 1000 || cfg->nr_ruh > FTL_MAX_RUH)
		return 0;
	data_units = (uint64_t)(nr_sb - FTL_CKPT_SBS - nst - 1) * units_per_sb;
	cap = data_units * (1000 - op_permille) / 1000;
	return cap - (cap + FTL_TP_ENTRIES - 1) / FTL_TP_ENTRIES;
}

uint64_t ftl_capacity_for(const struct ftl_config *cfg, const struct nand_geometry *g,
			  uint32_t nr_dies, uint32_t nr_blocks)
{
	uint32_t slots = g->page_size / FTL_UNIT;
	uint64_t units = (uint64_t)g->pages_per_block * nr_dies * g->planes_per_die * slots;
	uint64_t cap;

	if (slots == 0 || slots > FTL_MAX_SLOTS || nr_dies == 0 || units > UINT32_MAX / 2 ||
	    units * nr_blocks >= UINT32_MAX)
		return 0;
	cap = layout_capacity(cfg, units, nr_blocks);
	return cap <= UINT32_MAX ? cap : 0;
}

int ftl_layout_init(struct ftl *f)
{
	const struct nand_geometry *g = f->geo;
	uint64_t units;

	f->ndies = f->res.nr_dies;
	f->planes = g->planes_per_die;
	f->slots = g->page_size / FTL_UNIT;
	f->stripe = f->ndies * f->planes;
	f->pages_per_block = g->pages_per_block;
	f->nr_sb = f->res.nr_blocks;
	if (f->slots == 0 || f->slots > FTL_MAX_SLOTS || f->ndies == 0 ||
	    f->res.first_block + f->res.nr_blocks > g->blocks_per_plane ||
	    g->oob_size < sizeof(struct ftl_oob))
		return -EINVAL;
	units = (uint64_t)f->pages_per_block * f->stripe * f->slots;
	if (units > UINT32_MAX / 2 || units * f->nr_sb >= UINT32_MAX)
		return -E2BIG;
	f->units_per_sb = (uint32_t)units;
	f->units_live = f->units_per_sb;
	if (f->cfg.nr_ruh > FTL_MAX_RUH)
		return -EINVAL;
	if (f->nr_sb < FTL_CKPT_SBS + ftl_streams_used(&f->cfg) + 4)
		return -ENOSPC;
	f->capacity = (uint32_t)layout_capacity(&f->cfg, units, f->nr_sb);
	f->nr_tp = (f->capacity + FTL_TP_ENTRIES - 1) / FTL_TP_ENTRIES;

	f->sbs = calloc(f->nr_sb, sizeof(*f->sbs));
	f->valid = calloc(((uint64_t)f->nr_sb * units + 63) / 64, sizeof(uint64_t));
	if (!f->sbs || !f->valid)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->nr_sb; i++)
		f->sbs[i].ruh = FTL_RUH_NONE;
	for (uint32_t i = 0; i < FTL_CKPT_SBS; i++)
		f->sbs[i].state = SB_CKPT;
	f->free_sbs = f->nr_sb - FTL_CKPT_SBS;
	return 0;
}

void ftl_layout_fini(struct ftl *f)
{
	free(f->sbs);
	free(f->valid);
}

uint32_t ftl_ppn(const struct ftl *f, uint32_t sb, uint32_t off)
{
	return sb * f->units_per_sb + off;
}

uint32_t ftl_ppn_sb(const struct ftl *f, uint32_t ppn)
{
	return ppn / f->units_per_sb;
}

void ftl_fpid_addr(const struct ftl *f, uint32_t fpid, struct nand_addr *a)
{
	uint32_t pages_per_sb = f->pages_per_block * f->stripe;
	uint32_t sb = fpid / pages_per_sb, in = fpid % pages_per_sb;
	uint32_t page = in / f->stripe, s = in % f->stripe;
	uint32_t plane = s / f->ndies, slot = s % f->ndies;
	/* A die being migrated: the superblock's own die for that slot. */
	uint32_t die = ftl_mig_die(f, slot, sb, f->res.dies[slot]);

	a->ch = die / f->geo->dies_per_channel;
	a->die = die % f->geo->dies_per_channel;
	a->plane = plane;
	a->block = f->res.first_block + sb;
	a->page = page;
	/* A bad block of it remapped to a spare of the same plane (remap.c). */
	if (ftl_remap_of(f, sb, s))
		a->block = ftl_remap_of(f, sb, s) - 1;
}

bool ftl_valid_get(const struct ftl *f, uint32_t ppn)
{
	return f->valid[ppn / 64] & (1ull << (ppn % 64));
}

void ftl_valid_set(struct ftl *f, uint32_t ppn)
{
	if (ftl_valid_get(f, ppn))
		return;
	f->valid[ppn / 64] |= 1ull << (ppn % 64);
	f->sbs[ftl_ppn_sb(f, ppn)].valid++;
}

void ftl_valid_clear(struct ftl *f, uint32_t ppn)
{
	if (ppn >= FTL_LOST || !ftl_valid_get(f, ppn))
		return;
	f->valid[ppn / 64] &= ~(1ull << (ppn % 64));
	f->sbs[ftl_ppn_sb(f, ppn)].valid--;
}

int32_t ftl_sb_alloc(struct ftl *f)
{
	int32_t best = -1;

	for (uint32_t i = 0; i < f->nr_sb; i++) {
		if (f->sbs[i].state != SB_FREE)
			continue;
		if (best < 0 || f->sbs[i].erase_count < f->sbs[best].erase_count)
			best = (int32_t)i;
	}
	if (best >= 0) {
		ftl_mig_sb_free(f, (uint32_t)best); /* opened now: where a migration goes */
		f->sbs[best].state = SB_OPEN;
		f->sbs[best].valid = 0;
		if (f->sbs[best].refresh) { /* erased since: nothing left to refresh */
			f->sbs[best].refresh = false;
			f->refresh_pending--;
		}
		f->free_sbs--;
	}
	return best;
}

void ftl_sb_freed(struct ftl *f, uint32_t sb)
{
	f->sbs[sb].state = SB_FREE;
	f->sbs[sb].valid = 0;
	f->sbs[sb].ruh = FTL_RUH_NONE;
	f->sbs[sb].erase_count++;
	f->sbs[sb].freed_gen = f->revivals; /* a die back: its block erased with the rest */
	f->free_sbs++;
	ftl_mig_sb_free(f, sb);
}

/*
 * Superblocks the instance cannot do without, each holding @units: the
 * data, one per stream, one to collect into.
 */
static uint64_t sb_needed(const struct ftl *f, uint32_t units)
{
	uint64_t need = ((uint64_t)f->capacity + f->nr_tp + units - 1) / units;

	return need + ftl_streams_used(&f->cfg) + 1;
}

uint64_t ftl_sb_spare(const struct ftl *f)
{
	uint64_t usable = f->nr_sb - FTL_CKPT_SBS, need = sb_needed(f, f->units_per_sb);

	return usable > need ? usable - need : 0;
}

uint64_t ftl_sb_spare_offline(const struct ftl *f)
{
	/* A superblock holds less once a die is gone: more of them hold the data. */
	return sb_needed(f, f->units_live) - sb_needed(f, f->units_per_sb);
}

/*
 * The superblocks left can no longer hold the data, one per stream and
 * one to collect into: writes fail from now on.
 */
void ftl_sb_check_spare(struct ftl *f)
{
	if (f->nr_sb - FTL_CKPT_SBS - f->bad_sbs < sb_needed(f, f->units_live))
		ftl_set_fatal(f, -ENOSPC);
}

void ftl_sb_retire(struct ftl *f, uint32_t sb)
{
	if (f->sbs[sb].state == SB_FREE)
		f->free_sbs--;
	if (f->sbs[sb].refresh) {
		f->sbs[sb].refresh = false;
		f->refresh_pending--;
	}
	f->sbs[sb].state = SB_BAD;
	f->sbs[sb].valid = 0;
	f->bad_sbs++;
	ftl_sb_check_spare(f);
}

void ftl_sb_mark_bad(struct ftl *f)
{
	const struct nand_store *st = f->env.store;

	f->bad_sbs = 0;
	for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb; sb++)
		f->bad_sbs += f->sbs[sb].state == SB_BAD; /* kept by the checkpoint */
	ftl_sb_check_spare(f);
	if (!st)
		return;
	for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb; sb++) {
		bool bad = ftl_sb_has_bad_block(f, sb);

		if (!bad || f->sbs[sb].state == SB_BAD)
			continue;
		if (f->sbs[sb].state == SB_FREE) {
			/* Erased: its bad blocks take spares of their planes, or it is retired. */
			if (!ftl_remap_bad_blocks(f, sb))
				ftl_sb_retire(f, sb);
		} else if (!f->sbs[sb].refresh) {
			/* Its data moves out first; the erase then fails and retires it. */
			f->sbs[sb].refresh = true;
			f->refresh_pending++;
		}
	}
}
