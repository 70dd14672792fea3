/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die migration on failing flash (ftl/migrate.c, ftl/remap_mig.c):
 * programs of the copy that fail on the new die (its block goes bad, takes
 * a spare there, the superblock is copied again), the new die's bad blocks
 * known before (skipped), erases that fail on either die (the block takes
 * a spare, the migration goes on), a crash after such a remap, and a new
 * die with no good block left in a plane (everything goes back, -ENOSPC).
 * Every LBA reads back each time.
 */
#include "migrate_tests.h"

#include "blox_fault.h"

/* Block @block of plane @plane on die @die, as the store keeps it. */
static struct nand_block_meta *blk(const struct mt *t, uint32_t die, uint32_t plane,
				   uint32_t block)
{
	const struct nand_geometry *g = &t->x->nc.geo;
	struct nand_addr a = { .ch = die / g->dies_per_channel, .die = die % g->dies_per_channel,
			       .plane = plane, .block = block };

	return &t->x->store->blocks[nand_block_index(g, &a)];
}

/*
 * No superblock uses a bad block (every block the FTL addresses), but for
 * those GC empties and retires (a restart finds a spare gone bad with the
 * pages it held: its superblock is refreshed, as any with a bad block).
 */
static void expect_no_bad_in_use(const struct mt *t)
{
	const struct ftl *f = t->x->f;

	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		if (f->sbs[sb].state == SB_BAD || f->sbs[sb].refresh)
			continue;
		for (uint32_t s = 0; s < f->stripe; s++) {
			struct nand_addr a;

			ftl_fpid_addr(f, ftl_ppn(f, sb, s * f->slots) / f->slots, &a);
			a.page = 0;
			if (t->x->store->blocks[nand_block_index(&t->x->nc.geo, &a)].flags &
			    NAND_BLOCK_BAD)
				fail_msg("superblock %u (state %d), position %u: die %u.%u plane %u block %u is bad",
					 sb, (int)f->sbs[sb].state, s, a.ch, a.die, a.plane, a.block);
		}
	}
}

/*
 * The instance of these tests: 32 superblocks over dies 0, 2, 4, 6, with
 * over-provisioning enough for a few spares' donors to be retired.
 */
static struct mt *mt_faults(void)
{
	struct ftl_config c;

	fx_cfg_default(&c);
	c.op_permille = 250;
	return mt_new(32, 30, 0, 32, true, &c);
}

/* Half the capacity written and flushed: full superblocks to copy. */
static void fill(struct mt *t)
{
	fx_seq_fill(t->x, 0, t->x->cap / 2);
	fx_random_writes(t->x, t->x->cap / 2, 8, t->x->cap / 8);
	fx_flush(t->x);
}

/* The end of a move of slot 0 (die 0) to die 1 that succeeded. */
static void expect_moved(struct mt *t)
{
	struct ftl_migrate_progress p = mt_prog(t);

	assert_int_equal(p.state, FTL_MIG_DONE);
	assert_int_equal(p.status, 0);
	assert_false(p.reverse);
	assert_int_equal(t->migrated_status, 0);
	assert_int_equal(t->saved.dies[0], 1);
	mt_expect_erased(t, 0);
	expect_no_bad_in_use(t);
	fx_verify_all(t->x);
	fx_check_invariants(t->x, false);
}

static bool grown_and_copied(struct mt *t)
{
	return fx_stats(t->x).remapped_grown > 0 && mt_prog(t).sbs_copied > 0;
}

/*
 * Programs of the copy fail on the new die: each failed block is bad
 * (counted as a program failure and a grown bad block), a spare of its
 * plane on the new die stands in, the superblock is copied again; a crash
 * after that finds the new die's remap; the migration ends as any does.
 */
void test_mig_pfail_copy(void **state)
{
	struct ftl_stats st0, st;
	uint64_t pf;
	struct mt *t;

	(void)state;
	t = mt_faults();
	fill(t);
	st0 = fx_stats(t->x);
	assert_int_equal(nand_fail_programs(t->x->dev, 1, 1), 0);
	mt_start(t, 0, 1, 1000);
	mt_run_until(t, NULL, grown_and_copied, "a failed program of the copy remapped");
	st = fx_stats(t->x);
	pf = nand_dev_stats(t->x->dev)->rel.program_failures;
	assert_int_equal(pf, 1);
	assert_int_equal(st.program_failures - st0.program_failures, pf);
	assert_int_equal(st.remapped_grown - st0.remapped_grown, pf);
	assert_int_equal(mt_prog(t).status, 0);
	fx_verify_all(t->x);

	/* The new die's remap is in its marks: a crash now finds it (the device is new: fail more). */
	mt_crash(t);
	expect_no_bad_in_use(t);
	fx_verify_all(t->x);
	st0 = fx_stats(t->x);
	assert_true(st0.remapped_blocks >= pf);
	assert_int_equal(nand_fail_programs(t->x->dev, 1, 1), 0);
	mt_run_done(t, NULL);
	st = fx_stats(t->x);
	assert_int_equal(nand_programs_to_fail(t->x->dev, 1), 0);
	assert_int_equal(nand_dev_stats(t->x->dev)->rel.program_failures, 1);
	assert_int_equal(st.program_failures - st0.program_failures, 1);
	assert_int_equal(st.remapped_grown - st0.remapped_grown, 1);
	assert_true(st.remapped_blocks >= pf + 1);
	assert_false(st.read_only);
	expect_moved(t);

	/* The remap is the slot's now, on the die it is on: across a crash too. */
	mt_crash(t);
	assert_int_equal(fx_stats(t->x).remapped_blocks, st.remapped_blocks);
	expect_no_bad_in_use(t);
	fx_verify_all(t->x);
	fx_random_writes(t->x, t->x->cap, 8, 2000);
	fx_flush(t->x);
	fx_verify_all(t->x);
	fx_check_invariants(t->x, false);
}

/*
 * Bad blocks of the new die known before the start (from the factory, say):
 * a full superblock's and free ones' take spares there before anything is
 * programmed onto them; no program fails.
 */
void test_mig_dst_bad_known(void **state)
{
	struct ftl_stats st0, st;
	struct mt *t;
	struct ftl *f;
	uint32_t full = 0, nbad = 0;

	(void)state;
	t = mt_faults();
	f = t->x->f;
	fill(t);
	st0 = fx_stats(t->x);
	for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb && !full; sb++)
		if (f->sbs[sb].state == SB_FULL)
			full = sb;
	assert_true(full > 0);
	/* Its block on the new die (both planes), a free one's, a checkpoint superblock's. */
	blk(t, 1, 0, full)->flags |= NAND_BLOCK_BAD;
	blk(t, 1, 1, full)->flags |= NAND_BLOCK_BAD;
	blk(t, 1, 1, f->nr_sb - 2)->flags |= NAND_BLOCK_BAD;
	blk(t, 1, 0, 0)->flags |= NAND_BLOCK_BAD;
	nbad = 4;
	mt_start(t, 0, 1, 1000);
	mt_run_done(t, NULL);
	st = fx_stats(t->x);
	assert_int_equal(st.program_failures, st0.program_failures);
	assert_int_equal(nand_dev_stats(t->x->dev)->rel.program_failures, 0);
	assert_int_equal(st.remapped_grown, st0.remapped_grown); /* known, not grown */
	assert_true(st.remapped_blocks >= st0.remapped_blocks + nbad - 1);
	/* Nothing was programmed onto them. */
	assert_int_equal(blk(t, 1, 0, full)->write_ptr, 0);
	assert_int_equal(blk(t, 1, 1, full)->write_ptr, 0);
	assert_int_equal(blk(t, 1, 0, 0)->write_ptr, 0);
	expect_moved(t);
	mt_crash(t);
	expect_no_bad_in_use(t);
	fx_verify_all(t->x);
}

/* Faults on the device from now on (its registry, to destroy). */
static struct blox_fault_reg *faults_on(struct mt *t)
{
	struct blox_fault_reg *reg;

	assert_int_equal(blox_fault_reg_create(&reg), 0);
	nand_dev_set_faults(t->x->dev, reg, "d0");
	return reg;
}

/* A fault of kind @k on die @die: the @count ops after the first @after there fail. */
static void fault_add(struct blox_fault_reg *reg, enum blox_fault_kind k, uint32_t die,
		      uint32_t count, uint32_t after)
{
	struct blox_fault_spec s = { .kind = k, .count = count, .after = after,
				     .probability = 1, .die = die };
	static uint32_t id;

	snprintf(s.device, sizeof(s.device), "d0");
	assert_int_equal(blox_fault_add(reg, &s, ++id, NULL, NULL, 0), 0);
}

static void faults_off(struct mt *t, struct blox_fault_reg *reg)
{
	nand_dev_set_faults(t->x->dev, NULL, NULL);
	blox_fault_reg_destroy(reg);
}

/*
 * Erases fail: on the die left (what a moved superblock left there: the
 * block takes a spare there, the migration goes on) and, after a program
 * of the copy failed, on the new die (the copy dropped: the block takes a
 * spare there too). Nothing is held, nothing is lost.
 */
void test_mig_erase_fail(void **state)
{
	struct blox_fault_reg *reg;
	struct ftl_stats st0, st;
	const struct nand_stats *ns;
	struct mt *t;

	(void)state;
	t = mt_faults();
	fill(t);
	st0 = fx_stats(t->x);
	reg = faults_on(t);
	fault_add(reg, BLOX_FAULT_ERASE_FAIL, 0, 2, 0);
	mt_start(t, 0, 1, 1000);
	mt_run_done(t, NULL);
	st = fx_stats(t->x);
	ns = nand_dev_stats(t->x->dev);
	assert_int_equal(ns->rel.erase_failures, 2);
	assert_int_equal(st.remapped_grown - st0.remapped_grown, 2);
	assert_int_equal(st.program_failures, st0.program_failures);
	assert_int_equal(t->migrated_calls, 1);
	assert_int_equal(mt_prog(t).status, 0);
	assert_int_equal(t->saved.dies[0], 1);
	mt_expect_erased(t, 0);
	fx_verify_all(t->x);
	fx_check_invariants(t->x, false);
	faults_off(t, reg);

	/*
	 * Back to die 0: its sixth program fails (plane 1, page 2: plane 0's
	 * block holds three pages of the copy), so the copy is dropped, and
	 * that erase fails too.
	 */
	reg = faults_on(t);
	fault_add(reg, BLOX_FAULT_PROGRAM_FAIL, 0, 1, 5);
	fault_add(reg, BLOX_FAULT_ERASE_FAIL, 0, 1, 0);
	t->migrated_calls = 0;
	st0 = fx_stats(t->x);
	mt_start(t, 0, 0, 1000);
	mt_run_done(t, NULL);
	st = fx_stats(t->x);
	assert_int_equal(mt_prog(t).status, 0);
	assert_int_equal(t->saved.dies[0], 0);
	assert_int_equal(st.program_failures - st0.program_failures, 1);
	assert_int_equal(ns->rel.erase_failures, 3);
	assert_int_equal(st.remapped_grown - st0.remapped_grown, 2);
	mt_expect_erased(t, 1);
	expect_no_bad_in_use(t);
	fx_verify_all(t->x);
	faults_off(t, reg);
	mt_crash(t);
	expect_no_bad_in_use(t);
	fx_verify_all(t->x);
	fx_check_invariants(t->x, false);
}

/*
 * The new die has no good block left in a plane: what moved goes back to
 * the old die (which held all of it), and the migration ends with
 * -ENOSPC, the slot where it was, every LBA readable; the same across a
 * crash in the middle of going back.
 */
void test_mig_dst_no_room(void **state)
{
	struct ftl_migrate_progress p;
	struct mt *t;
	struct ftl *f;

	(void)state;
	t = mt_faults();
	f = t->x->f;
	fill(t);
	/* Plane 1 of the new die: every block of the range bad but three. */
	for (uint32_t b = 0; b < f->nr_sb - 3; b++)
		blk(t, 1, 1, b)->flags |= NAND_BLOCK_BAD;
	assert_int_equal(nand_fail_programs(t->x->dev, 1, 4), 0);
	mt_start(t, 0, 1, 1000);
	mt_run_done(t, NULL);
	p = mt_prog(t);
	assert_int_equal(p.state, FTL_MIG_DONE);
	assert_int_equal(p.status, -ENOSPC);
	assert_true(p.reverse);
	assert_int_equal(t->migrated_status, -ENOSPC);
	assert_int_equal(t->saved.dies[0], 0);
	mt_expect_erased(t, 1);
	expect_no_bad_in_use(t);
	fx_verify_all(t->x);
	fx_check_invariants(t->x, false);
	mt_crash(t);
	fx_verify_all(t->x);
	fx_random_writes(t->x, t->x->cap, 8, 1000);
	fx_flush(t->x);
	fx_verify_all(t->x);
}

/*
 * The same failures under a load of writes, trims and reads (checked as
 * they complete): programs fail on the new die, the copy's and the host's
 * into superblocks already there (those GC empties, and its erase remaps
 * the block during the migration too), erases fail on both dies. The
 * migration ends, every LBA reads back, across a crash too.
 */
void test_mig_faults_under_load(void **state)
{
	struct blox_fault_reg *reg;
	struct ftl_stats st0, st;
	struct mt_load ld;
	struct mt *t;

	(void)state;
	t = mt_faults();
	fill(t);
	st0 = fx_stats(t->x);
	reg = faults_on(t);
	fault_add(reg, BLOX_FAULT_PROGRAM_FAIL, 1, 3, 20);
	fault_add(reg, BLOX_FAULT_ERASE_FAIL, 1, 1, 0);
	fault_add(reg, BLOX_FAULT_ERASE_FAIL, 0, 1, 3);
	mt_load_init(&ld, t, t->x->cap);
	ld.write_pct = 45;
	ld.trim_pct = 5;
	ld.flush_every = 64;
	mt_start(t, 0, 1, 700);
	mt_run_done(t, &ld);
	mt_load_drain(&ld);
	st = fx_stats(t->x);
	assert_true(ld.reads > 100 && ld.writes > 100);
	assert_int_equal(nand_dev_stats(t->x->dev)->rel.program_failures, 3);
	assert_true(st.program_failures > st0.program_failures);
	assert_true(st.remapped_grown > st0.remapped_grown);
	assert_false(st.read_only);
	assert_int_equal(mt_prog(t).status, 0);
	assert_int_equal(t->saved.dies[0], 1);
	fx_verify_all(t->x);
	fx_check_invariants(t->x, false);
	faults_off(t, reg);
	fx_flush(t->x);
	mt_crash(t);
	fx_verify_all(t->x);
	fx_random_writes(t->x, t->x->cap, 8, 2000);
	fx_flush(t->x);
	fx_verify_all(t->x);
}
