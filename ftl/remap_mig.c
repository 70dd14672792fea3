/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad blocks of the slot a die migration moves (migrate.c), remapped on
 * each die for itself: during a migration the slot has two remaps, the
 * source die's (f->remap's column of the slot, as before the migration)
 * and the destination's (struct ftl_mig.dremap, a copy of it at the start,
 * remap.c's marks copied with it). A superblock's blocks on the slot are
 * addressed through the remap of the die it uses now (ftl_remap_of()), the
 * copy's through the remap of the die it programs. So a bad block of the
 * destination (bad from the factory, or grown: a program of the copy or
 * an erase failed) takes a spare of its plane on the destination alone,
 * and the data left on the source is read where it was.
 *
 * A spare on a die is a block at the same plane of a donor superblock
 * (remap.c) that no superblock's remap on that die uses, good and erased;
 * with none left the highest free superblock becomes a donor, as remap.c
 * does, but never the instance's last spare superblock. Each die's marks (NAND_BLOCK_SPARE_OF() on the spare) are written
 * at once, so that a restart in the middle of the migration loads both
 * remaps (ftl_remap_mig_load()); at the end the destination's remap is the
 * slot's (ftl_remap_mig_end()) and the die left keeps no marks of ours.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <string.h>

/* The remap entry of superblock @sb, plane @plane of the slot on side @side (0: src, 1: dst). */
static uint32_t *col(struct ftl *f, int side, uint32_t sb, uint32_t plane)
{
	if (side)
		return &f->mig.dremap[(size_t)sb * f->planes + plane];
	return &f->remap[(size_t)sb * f->stripe + plane * f->ndies + f->mig.slot];
}

static uint32_t side_die(const struct ftl *f, int side)
{
	return side ? f->mig.dst : f->mig.src;
}

/* Is block @block (absolute) of plane @plane used by a superblock's remap on side @side? */
static bool col_uses(struct ftl *f, int side, uint32_t plane, uint32_t block)
{
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		if (*col(f, side, sb, plane) == block + 1)
			return true;
	return false;
}

/* Donor @y's block of plane @plane on side @side may stand in for another. */
static bool spare_ok(struct ftl *f, int side, uint32_t y, uint32_t plane)
{
	uint32_t b = f->res.first_block + y;
	const struct nand_block_meta *m = ftl_remap_die_meta(f, side_die(f, side), plane, b);

	return !(m->flags & NAND_BLOCK_BAD) && m->write_ptr == 0 && !col_uses(f, side, plane, b);
}

/* A spare for superblock @sb's plane @plane on side @side (-1: none left). */
static int32_t pick_spare(struct ftl *f, int side, uint32_t sb, uint32_t plane)
{
	uint64_t spare;

	for (uint32_t y = FTL_CKPT_SBS; y < f->nr_sb; y++)
		if (f->donor[y] && spare_ok(f, side, y, plane))
			return (int32_t)y;
	/*
	 * A new donor is retired: not the last spare superblock of the
	 * instance (a die failing every program would take them all and stop
	 * the writes); the migration goes back instead (-ENOSPC).
	 */
	spare = ftl_sb_spare(f) > ftl_sb_spare_offline(f) ? ftl_sb_spare(f) - ftl_sb_spare_offline(f) : 0;
	if ((uint64_t)f->bad_sbs + 1 >= spare)
		return -1;
	for (uint32_t y = f->nr_sb; y-- > FTL_CKPT_SBS;) {
		if (y == sb || f->sbs[y].state != SB_FREE || !ftl_remap_sb_blank(f, y) ||
		    !spare_ok(f, side, y, plane))
			continue;
		f->donor[y] = 1;
		ftl_sb_retire(f, y); /* free no more: counted as retired */
		return (int32_t)y;
	}
	return -1;
}

bool ftl_remap_mig_block(struct ftl *f, uint32_t sb, uint32_t plane, int side)
{
	struct nand_store *st = f->env.store;
	uint32_t *e, die, lo = f->res.first_block, low = (1u << NAND_BLOCK_SPARE_SHIFT) - 1;
	struct nand_block_meta *old, *sp;
	int32_t y;

	if (!st || !f->mig.active || f->donor[sb])
		return false;
	y = pick_spare(f, side, sb, plane);
	if (y < 0)
		return false;
	die = side_die(f, side);
	e = col(f, side, sb, plane);
	old = ftl_remap_die_meta(f, die, plane, *e ? *e - 1 : lo + sb);
	sp = ftl_remap_die_meta(f, die, plane, lo + (uint32_t)y);
	/* The spare names the block it stands in for; a spare before it no longer does. */
	sp->flags = (sp->flags & low) | ((lo + sb + 1) << NAND_BLOCK_SPARE_SHIFT);
	if (*e)
		old->flags &= low;
	if (!side) {
		size_t s = (size_t)plane * f->ndies + f->mig.slot;

		if (*e)
			f->given[(size_t)(*e - 1 - lo) * f->stripe + s] = 0;
		f->given[(size_t)y * f->stripe + s] = 1;
	}
	if (side)
		f->st.remapped_blocks += !*e; /* counted: the destination's (see ftl_remap_mig_end()) */
	*e = lo + (uint32_t)y + 1;
	if (st->ops->sync(st))
		ftl_set_fatal(f, -EIO); /* the remap may not survive: stop writing */
	return true;
}

void ftl_remap_mig_begin(struct ftl *f)
{
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		for (uint32_t p = 0; p < f->planes; p++)
			*col(f, 1, sb, p) = *col(f, 0, sb, p);
}

void ftl_remap_mig_load(struct ftl *f)
{
	uint32_t lo = f->res.first_block, hi = lo + f->nr_sb;

	for (int side = 0; side < 2; side++)
		for (uint32_t sb = 0; sb < f->nr_sb; sb++)
			for (uint32_t p = 0; p < f->planes; p++)
				*col(f, side, sb, p) = 0;
	for (int side = 0; side < 2; side++) {
		for (uint32_t y = 0; y < f->nr_sb; y++) {
			for (uint32_t p = 0; p < f->planes; p++) {
				const struct nand_block_meta *m =
					ftl_remap_die_meta(f, side_die(f, side), p, lo + y);
				uint32_t of = NAND_BLOCK_SPARE_OF(m->flags);

				if (!of || of - 1 < lo || of - 1 >= hi || of - 1 == lo + y)
					continue;
				*col(f, side, of - 1 - lo, p) = lo + y + 1;
				if (!side)
					f->given[(size_t)y * f->stripe + p * f->ndies + f->mig.slot] = 1;
				f->donor[y] = 1;
				f->st.remapped_blocks += side;
			}
		}
	}
}

void ftl_remap_mig_end(struct ftl *f)
{
	uint32_t lo = f->res.first_block;

	/*
	 * remapped_blocks counted the destination's remap of the slot while it
	 * moved: back on the source, the source's counts, which stays.
	 */
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		for (uint32_t p = 0; p < f->planes; p++)
			f->st.remapped_blocks += (uint64_t)!!*col(f, 0, sb, p) - !!*col(f, 1, sb, p);
	if (f->mig.reverse)
		return;
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		for (uint32_t p = 0; p < f->planes; p++)
			f->given[(size_t)sb * f->stripe + p * f->ndies + f->mig.slot] = 0;
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		for (uint32_t p = 0; p < f->planes; p++) {
			uint32_t *e = col(f, 0, sb, p), d = *col(f, 1, sb, p);

			f->st.remapped_blocks += (uint64_t)!!d - !!*e;
			*e = d;
			if (d)
				f->given[(size_t)(d - 1 - lo) * f->stripe + p * f->ndies +
					 f->mig.slot] = 1;
		}
	}
}
