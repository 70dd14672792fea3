/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die migration of a slot holding a remapped bad block (ftl/remap.c): the
 * spare's data moves with the slot to the same block of the new die, the
 * spare's mark goes with it (and leaves the old die), and a crash after
 * the move finds the same remap and every LBA.
 */
#include "migrate_tests.h"

/* The mark on die @die of plane 0, block @block: the block it stands in for, plus one. */
static uint32_t mark(const struct mt *t, uint32_t die, uint32_t block)
{
	const struct nand_geometry *g = &t->x->nc.geo;
	struct nand_addr a = { .ch = die / g->dies_per_channel, .die = die % g->dies_per_channel,
			       .block = block };

	return NAND_BLOCK_SPARE_OF(t->x->store->blocks[nand_block_index(g, &a)].flags);
}

void test_mig_remap(void **state)
{
	struct mt *t;
	struct ftl *f;
	struct nand_addr a;
	size_t n;
	uint32_t *before, spare;
	int32_t sb = -1;

	(void)state;
	t = mt_new(32, 30, 0, 32, true, NULL);
	f = t->x->f;
	for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb && sb < 0; i++)
		if (f->sbs[i].state == SB_FREE)
			sb = (int32_t)i;
	assert_true(sb >= 0);
	/* Its block of slot 0 (die 0), plane 0 goes bad: a spare of that plane stands in. */
	ftl_fpid_addr(f, ftl_ppn(f, (uint32_t)sb, 0) / f->slots, &a);
	t->x->store->blocks[nand_block_index(&t->x->nc.geo, &a)].flags |= NAND_BLOCK_BAD;
	assert_true(ftl_remap_bad_blocks(f, (uint32_t)sb));
	spare = f->remap[(size_t)sb * f->stripe] - 1;
	assert_true(spare != (uint32_t)sb);
	assert_int_equal(mark(t, 0, spare), (uint32_t)sb + 1);
	n = (size_t)f->nr_sb * f->stripe;
	before = fx_tmp_alloc(n * sizeof(*before));
	memcpy(before, f->remap, n * sizeof(*before));

	/* Half the capacity: the lowest free superblocks, the remapped one first. */
	fx_seq_fill(t->x, 0, t->x->cap / 2);
	fx_flush(t->x);
	assert_true(f->sbs[sb].valid > 0);
	assert_int_equal(fx_stats(t->x).program_failures, 0);
	mt_start(t, 0, 1, 1000);
	mt_run_done(t, NULL);
	assert_int_equal(mt_prog(t).status, 0);
	f = t->x->f;
	assert_memory_equal(before, f->remap, n * sizeof(*before));
	assert_int_equal(mark(t, 1, spare), (uint32_t)sb + 1);
	assert_int_equal(mark(t, 0, spare), 0);
	fx_verify_all(t->x);

	mt_crash(t);
	f = t->x->f;
	assert_memory_equal(before, f->remap, n * sizeof(*before));
	assert_int_equal(fx_stats(t->x).remapped_blocks, 1);
	fx_verify_all(t->x);
	fx_check_invariants(t->x, false);
	fx_tmp_free(before);
}
