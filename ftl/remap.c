/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad blocks remapped to spares of their plane, as a drive does, instead of
 * retiring the whole superblock (one bad block would take its row on every
 * die):
 *
 *   - the spare pool is the over-provisioning's superblocks: when a block
 *     goes bad (an erase fails, a program failed and GC emptied the block,
 *     or it is bad from the factory) the FTL takes the block at the same
 *     (die slot, plane) of a donor superblock, which is retired (SB_BAD)
 *     and gives each of its stripe's blocks, one per (die slot, plane), to
 *     the superblocks whose block there goes bad. The superblock keeps its
 *     full width, and the block is in the same plane of the same die, so
 *     the timing is unchanged;
 *   - a donor is a free superblock, all of its blocks erased; donors taken
 *     already give their unused blocks first. When no donor has a good
 *     block left at that (die slot, plane) and no superblock is free, the
 *     superblock is retired as before;
 *   - the remap is kept in the store with the spare block's meta
 *     (NAND_BLOCK_SPARE_OF(): the block it stands in for), written at once,
 *     so that a restart, a crash or a power cut finds it before anything
 *     is read (ftl_remap_load(), first thing of the recovery).
 *
 * During a die migration the slot it moves has a remap on each die
 * (remap_mig.c); the other slots' blocks are remapped here as at any time.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>

int ftl_remap_init(struct ftl *f)
{
	size_t n = (size_t)f->nr_sb * f->stripe;

	f->remap = calloc(n, sizeof(*f->remap));
	f->given = calloc(n, 1);
	f->donor = calloc(f->nr_sb, 1);
	return f->remap && f->given && f->donor ? 0 : -ENOMEM;
}

void ftl_remap_fini(struct ftl *f)
{
	free(f->remap);
	free(f->given);
	free(f->donor);
}

/* Block (die slot, plane) position @s of superblock @sb is on, as the FTL addresses it now. */
static struct nand_block_meta *pos_meta(const struct ftl *f, uint32_t sb, uint32_t s,
					struct nand_addr *a)
{
	ftl_fpid_addr(f, ftl_ppn(f, sb, s * f->slots) / f->slots, a);
	a->page = 0;
	return &f->env.store->blocks[nand_block_index(f->geo, a)];
}

/* Superblock @sb's own block at position @s (no remap). */
static struct nand_block_meta *home_meta(const struct ftl *f, uint32_t sb, uint32_t s)
{
	uint32_t plane = s / f->ndies, slot = s % f->ndies, die = f->res.dies[slot];
	struct nand_addr a = {
		.ch = die / f->geo->dies_per_channel,
		.die = die % f->geo->dies_per_channel,
		.plane = plane,
		.block = f->res.first_block + sb,
	};

	return &f->env.store->blocks[nand_block_index(f->geo, &a)];
}

void ftl_remap_load(struct ftl *f)
{
	const struct nand_store *st = f->env.store;
	uint32_t lo = f->res.first_block, hi = lo + f->nr_sb;

	f->st.remapped_blocks = 0;
	f->st.factory_bad_blocks = 0;
	if (!st)
		return;
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		for (uint32_t s = 0; s < f->stripe; s++) {
			const struct nand_block_meta *m = home_meta(f, sb, s);
			uint32_t of;

			if (f->mig.active && s % f->ndies == f->mig.slot)
				continue; /* the slot being moved: each die's below */
			of = NAND_BLOCK_SPARE_OF(m->flags);

			f->st.factory_bad_blocks += !!(m->flags & NAND_BLOCK_FACTORY_BAD);
			if (!of || of - 1 < lo || of - 1 >= hi || of - 1 == lo + sb)
				continue;
			f->remap[(size_t)(of - 1 - lo) * f->stripe + s] = lo + sb + 1;
			f->given[(size_t)sb * f->stripe + s] = 1;
			f->donor[sb] = 1;
			f->st.remapped_blocks++;
		}
	}
	if (f->mig.active)
		ftl_remap_mig_load(f);
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		if (f->donor[sb])
			f->sbs[sb].state = SB_BAD; /* before the scan: its blocks are others' */
}

bool ftl_remap_sb_blank(const struct ftl *f, uint32_t sb)
{
	for (uint32_t s = 0; s < f->stripe; s++) {
		struct nand_addr a;

		if (!ftl_fpid_dead(f, ftl_ppn(f, sb, s * f->slots) / f->slots) &&
		    pos_meta(f, sb, s, &a)->write_ptr)
			return false;
	}
	return true;
}

/* Donor @y's block at @s may stand in for another: not given, good, erased. */
static bool donor_block_ok(const struct ftl *f, uint32_t y, uint32_t s)
{
	struct nand_addr a;
	const struct nand_block_meta *m;

	if (f->given[(size_t)y * f->stripe + s])
		return false;
	m = pos_meta(f, y, s, &a);
	return !(m->flags & NAND_BLOCK_BAD) && m->write_ptr == 0;
}

/* A donor with a block for position @s: one taken already, else a free superblock (-1: none). */
static int32_t pick_donor(struct ftl *f, uint32_t sb, uint32_t s)
{
	for (uint32_t y = FTL_CKPT_SBS; y < f->nr_sb; y++)
		if (f->donor[y] && donor_block_ok(f, y, s))
			return (int32_t)y;
	/* The highest free superblock: the least likely to be the next one opened. */
	for (uint32_t y = f->nr_sb; y-- > FTL_CKPT_SBS;) {
		if (y == sb || f->sbs[y].state != SB_FREE || !ftl_remap_sb_blank(f, y) ||
		    !donor_block_ok(f, y, s))
			continue;
		f->donor[y] = 1;
		ftl_sb_retire(f, y); /* free no more: counted as retired */
		return (int32_t)y;
	}
	return -1;
}

bool ftl_remap_block(struct ftl *f, uint32_t sb, uint32_t s)
{
	struct nand_store *st = f->env.store;
	struct nand_block_meta *old, *sp;
	struct nand_addr a, ga;
	int32_t y;

	if (!st || s >= f->stripe || f->donor[sb] ||
	    ftl_fpid_dead(f, ftl_ppn(f, sb, s * f->slots) / f->slots))
		return false;
	/* The slot a migration moves: a spare on the die the superblock uses now. */
	if (f->mig.active && s % f->ndies == f->mig.slot)
		return ftl_remap_mig_block(f, sb, s / f->ndies, f->mig.on_dst[sb]);
	y = pick_donor(f, sb, s);
	if (y < 0)
		return false;
	old = pos_meta(f, sb, s, &a);
	sp = pos_meta(f, (uint32_t)y, s, &ga);
	/* The spare names the block it stands in for; a bad spare before it no longer does. */
	sp->flags = (sp->flags & ((1u << NAND_BLOCK_SPARE_SHIFT) - 1)) |
		    ((f->res.first_block + sb + 1) << NAND_BLOCK_SPARE_SHIFT);
	if (NAND_BLOCK_SPARE_OF(old->flags)) {
		old->flags &= (1u << NAND_BLOCK_SPARE_SHIFT) - 1;
		f->st.remapped_blocks--;
	}
	f->remap[(size_t)sb * f->stripe + s] = ga.block + 1;
	f->given[(size_t)y * f->stripe + s] = 1;
	f->st.remapped_blocks++;
	if (st->ops->sync(st))
		ftl_set_fatal(f, -EIO); /* the remap may not survive: stop writing */
	return true;
}

bool ftl_remap_bad_blocks(struct ftl *f, uint32_t sb)
{
	const struct nand_store *st = f->env.store;

	for (uint32_t s = 0; st && s < f->stripe; s++) {
		struct nand_addr a;

		if (ftl_fpid_dead(f, ftl_ppn(f, sb, s * f->slots) / f->slots) ||
		    !(pos_meta(f, sb, s, &a)->flags & NAND_BLOCK_BAD))
			continue;
		if (!ftl_remap_block(f, sb, s))
			return false;
	}
	return true;
}

int ftl_remap_ckpt(struct ftl *f)
{
	for (uint32_t sb = 0; sb < FTL_CKPT_SBS; sb++)
		if (!ftl_remap_bad_blocks(f, sb))
			return -ENOSPC; /* no room for the checkpoint */
	return 0;
}

uint64_t ftl_remap_spare_used(const struct ftl *f)
{
	uint64_t unused = 0;

	if (!f->env.store)
		return (uint64_t)f->bad_sbs * f->stripe;
	for (uint32_t y = 0; y < f->nr_sb; y++)
		for (uint32_t s = 0; f->donor[y] && s < f->stripe; s++)
			unused += donor_block_ok(f, y, s);
	return (uint64_t)f->bad_sbs * f->stripe - unused;
}

struct nand_block_meta *ftl_remap_die_meta(const struct ftl *f, uint32_t die, uint32_t plane,
					   uint32_t block)
{
	struct nand_addr a = {
		.ch = die / f->geo->dies_per_channel,
		.die = die % f->geo->dies_per_channel,
		.plane = plane,
		.block = block,
	};

	return &f->env.store->blocks[nand_block_index(f->geo, &a)];
}

void ftl_remap_mig_tags(struct ftl *f, uint32_t from, int64_t to)
{
	struct nand_store *st = f->env.store;
	const uint32_t low = (1u << NAND_BLOCK_SPARE_SHIFT) - 1;
	bool changed = false;

	if (!st)
		return;
	for (uint32_t p = 0; p < f->planes; p++)
		for (uint32_t b = f->res.first_block; b < f->res.first_block + f->nr_sb; b++) {
			struct nand_block_meta *m = ftl_remap_die_meta(f, from, p, b);

			if (to >= 0) {
				/* Every block's: a mark left on @to from before goes too. */
				struct nand_block_meta *d = ftl_remap_die_meta(f, (uint32_t)to, p, b);
				uint32_t fl = (d->flags & low) | (m->flags & ~low);

				changed |= fl != d->flags;
				d->flags = fl;
			} else if (NAND_BLOCK_SPARE_OF(m->flags)) {
				m->flags &= low;
				changed = true;
			}
		}
	if (changed && st->ops->sync(st))
		ftl_set_fatal(f, -EIO);
}

void ftl_remap_slot_reset(struct ftl *f, uint32_t slot)
{
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		for (uint32_t p = 0; p < f->planes; p++) {
			size_t i = (size_t)sb * f->stripe + p * f->ndies + slot;

			f->st.remapped_blocks -= f->remap[i] != 0;
			f->remap[i] = 0;
			f->given[i] = 0;
		}
}
