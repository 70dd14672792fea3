/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die migration on failing flash (migrate.c copies; ftl_mig.h): the
 * blocks of the slot that are bad on the die a superblock goes to take
 * spares of their plane on that die (remap_mig.c) before its copy starts;
 * a program of the copy that fails there (its block bad now, a grown bad
 * block) does the same and the copy is dropped and made again from the
 * die left, which holds all of it; an erase that fails (dropping a copy,
 * or erasing what a moved superblock left) retires the block the same way
 * and the migration goes on. A die with no good block left for a plane
 * sends everything back where it was, and the migration ends with -ENOSPC.
 */
#include "ftl_internal.h"

#include <errno.h>

/* Programmed pages of superblock @sb's good blocks on @die (a bad one takes no copy). */
uint32_t ftl_mig_die_pages_good(const struct ftl *f, uint32_t die, uint32_t sb)
{
	uint32_t n = 0;

	for (uint32_t p = 0; p < f->planes; p++) {
		const struct nand_block_meta *bm;
		struct nand_addr a;

		ftl_mig_blk_addr(f, die, sb, p, 0, &a);
		bm = nand_block_meta(f->env.dev, nand_block_index(f->geo, &a));
		n += bm && !(bm->flags & NAND_BLOCK_BAD) ? bm->write_ptr : 0;
	}
	return n;
}

static bool blk_bad(const struct ftl *f, uint32_t die, uint32_t sb, uint32_t plane)
{
	const struct nand_block_meta *bm;
	struct nand_addr a;

	ftl_mig_blk_addr(f, die, sb, plane, 0, &a);
	bm = nand_block_meta(f->env.dev, nand_block_index(f->geo, &a));
	return bm && (bm->flags & NAND_BLOCK_BAD);
}

/*
 * Superblock @sb's bad blocks on @die (of the slot) take spares of their
 * planes there (remap_mig.c). false: a plane has no good block left on @die.
 */
bool ftl_mig_remap_bad(struct ftl *f, uint32_t die, uint32_t sb)
{
	int side = die == f->mig.dst;

	for (uint32_t p = 0; p < f->planes; p++) {
		if (!blk_bad(f, die, sb, p))
			continue;
		if (!ftl_remap_mig_block(f, sb, p, side))
			return false;
	}
	return true;
}

/*
 * The die the superblocks go to has no good block left in a plane: what
 * moved goes back (the source held all of it), and the migration ends
 * with -ENOSPC. Going back already: held, as after an error.
 */
void ftl_mig_nospace(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	m->status = -ENOSPC;
	if (m->reverse) {
		m->state = FTL_MIG_PAUSED;
		return;
	}
	m->cause = -ENOSPC;
	m->state = FTL_MIG_CANCELLING;
	m->next_ns = 0;
}

/* Op @op of the step on @die's block of plane @plane failed on flash (-EIO, the block bad now). */
static bool op_flash_failed(const struct ftl *f, const struct nand_op *op, uint32_t die,
			    uint32_t plane)
{
	return op->status == -EIO && blk_bad(f, die, (uint32_t)f->mig.sb, plane);
}

/*
 * A copy step failed. A program that failed on flash left its block of the
 * die copied to bad (a grown bad block): it takes a spare of its plane
 * there, and the superblock's copy is dropped and made again from the die
 * copied from, which holds all of it. No spare left: mig_nospace(). Any
 * other failure holds the migration (redone on resume).
 */
void ftl_mig_copy_failed(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	uint32_t n = 0;

	m->redo = true;
	/* A block's: the programs queued after the one that failed there fail too. */
	for (uint32_t p = 0; p < f->planes; p++) {
		bool failed = false;

		for (uint32_t i = 0; i < m->progs_issued; i++)
			failed |= m->pages[i].plane == p &&
				  op_flash_failed(f, &m->pages[i].pg, ftl_mig_die_to(m), p);
		n += failed;
	}
	if (!n) {
		ftl_mig_error(f, -EIO);
		return;
	}
	f->st.program_failures += n;
	if (!ftl_mig_remap_bad(f, ftl_mig_die_to(m), (uint32_t)m->sb)) {
		ftl_mig_nospace(f);
		return;
	}
	f->st.remapped_grown += n;
}

/*
 * An erase step on @die is over: its blocks that failed to erase on flash
 * (grown bad blocks) or were bad already take spares of their planes
 * there. Dropping a copy, a plane with no good block left is the end of
 * the die's room (mig_nospace()); erasing what a moved superblock left, its
 * block stays as it is (nothing reads it) and the migration goes on.
 * true: an erase failed otherwise, or the sync did (held, as after an error).
 */
bool ftl_mig_erase_failed(struct ftl *f, uint32_t die)
{
	struct ftl_mig *m = &f->mig;
	uint32_t n = 0, other = 0;

	for (uint32_t p = 0; p < f->planes; p++) {
		const struct nand_op *op = &m->erase_ops[p];

		if (op_flash_failed(f, op, die, p))
			n++;
		else if (op->status)
			other++;
	}
	if (other)
		return true;
	if (ftl_mig_remap_bad(f, die, (uint32_t)m->sb))
		f->st.remapped_grown += n;
	else if (m->phase == MIG_DISCARD)
		ftl_mig_nospace(f);
	return ftl_mig_sync(f) != 0;
}

