/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die gone offline (ftl/dieoff.c): every op on it fails with -ENODEV.
 * The FTL stops allocating there, the LBAs whose only copy was there read
 * as errors until written or deallocated, every other LBA reads its data,
 * writes go on on the other dies, GC goes on without erasing there, the
 * spare shrinks. Told at once (ftl_die_offline()) or finding it out from
 * an op that failed, with translation pages resident or evicted.
 */
#include "ftl_fixture.h"

#define DEAD 2u /* the die taken offline (global index = slot: every die, in order) */

/*
 * The small geometry (4 dies, one plane), a CMT of @cmt_kib KiB, on a file
 * store when @file. @op_permille 0: 400, so that a quarter of the flash can
 * go and the capacity still fits.
 */
static struct fx *dieoff_fx_new(uint32_t cmt_kib, uint32_t op_permille, bool file)
{
	struct ftl_config c;
	struct fx_geo g;

	fx_cfg_default(&c);
	c.op_permille = op_permille ? op_permille : 400;
	c.cmt_bytes = cmt_kib * 1024;
	fx_geo_small(&g);
	return fx_new(&g, &c, file);
}

static struct fx *dieoff_fx(uint32_t cmt_kib)
{
	return dieoff_fx_new(cmt_kib, 0, false);
}

/* The die slot (= die) flash unit @ppn is on. */
static uint32_t ppn_die(const struct fx *x, uint32_t ppn)
{
	assert_int_equal(x->lay.planes, 1); /* one plane: the stripe is the dies */
	return (ppn / x->lay.slots) % x->lay.ndies;
}

/* The die slot (= die) LBA @lba's data is on, or UINT32_MAX (unmapped, not resident). */
static uint32_t lba_die(const struct fx *x, uint32_t lba)
{
	uint32_t ppn = fx_ppn_resident(x, lba);

	if (ppn >= FTL_UNMAPPED - 1)
		return UINT32_MAX;
	return ppn_die(x, ppn);
}

/* Every LBA written, half of them again at random, flushed. */
static void fill(struct fx *x)
{
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 8, x->cap / 2);
	fx_flush(x);
}

/* Die DEAD goes offline in the device, and the FTL is told at once. */
static void take_offline(struct fx *x)
{
	assert_int_equal(nand_die_set_offline(x->dev, DEAD, true), 0);
	assert_int_equal(ftl_die_offline(x->f, DEAD), 0);
}

/* No LBA's data is on die DEAD (every translation page resident). */
static void assert_none_on_dead(const struct fx *x)
{
	for (uint32_t lba = 0; lba < x->cap; lba++)
		assert_true(lba_die(x, lba) != DEAD);
}

/*
 * Read every LBA alone: each reads its version or fails (-EIO); never
 * anything else. @lost (may be NULL) gets 1 for each that failed.
 * Returns how many failed.
 */
static uint32_t read_all(struct fx *x, uint8_t *lost)
{
	uint32_t n = 0;

	for (uint32_t lba = 0; lba < x->cap; lba++) {
		int rc = fx_io(x, FTL_IO_READ, lba, 1, x->rbuf, false);

		if (lost)
			lost[lba] = rc != 0;
		if (rc) {
			assert_int_equal(rc, -EIO);
			n++;
			continue;
		}
		if (fx_decode(x->rbuf, lba) != x->shadow[lba])
			fail_msg("lba %u: version %d, want %u", lba, (int)fx_decode(x->rbuf, lba),
				 x->shadow[lba]);
	}
	return n;
}

/* Exactly the @n_dead LBAs of @on_dead read as errors, every other one its data. */
static void check_lost(struct fx *x, const uint8_t *on_dead, uint32_t n_dead)
{
	uint8_t *lost = fx_tmp_alloc(x->cap);

	assert_int_equal(read_all(x, lost), n_dead);
	assert_memory_equal(lost, on_dead, x->cap);
	fx_tmp_free(lost);
}

/* Everything written again (GC runs) and flushed: every LBA reads back. */
static void rewrite_all(struct fx *x)
{
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	assert_int_equal(read_all(x, NULL), 0);
}

/*
 * Written, flushed, every translation page resident: which LBAs have their
 * data on the die to be taken offline (into @on_dead); how many.
 */
static uint32_t fill_and_map(struct fx *x, uint8_t *on_dead)
{
	uint32_t n_dead = 0;

	fill(x);
	for (uint32_t lba = 0; lba < x->cap; lba++) {
		uint32_t d = lba_die(x, lba);

		assert_true(d != UINT32_MAX); /* all resident, all written */
		on_dead[lba] = d == DEAD;
		n_dead += on_dead[lba];
	}
	assert_true(n_dead > x->cap / 8);
	return n_dead;
}

/* Told at once, every translation page resident: exactly the die's LBAs are lost. */
static void test_dieoff_told(void **state)
{
	struct fx *x = dieoff_fx(256);
	struct ftl_stats st0, st;
	uint8_t *on_dead = fx_tmp_alloc(x->cap);
	uint32_t n_dead, prog_before;

	(void)state;
	n_dead = fill_and_map(x, on_dead);
	st0 = fx_stats(x);
	assert_int_equal(st0.dies_offline, 0);
	assert_int_equal(st0.offline_spare_sbs, 0);

	take_offline(x);
	assert_int_equal(ftl_die_offline(x->f, 99), -ENOENT);
	st = fx_stats(x);
	assert_int_equal(st.dies_offline, 1);
	/* The die's data units, and translation pages there (rewritten from memory). */
	assert_int_equal(st.offline_units, n_dead + st.offline_tps_moved);
	assert_int_equal(st.units_lost - st0.units_lost, n_dead);
	assert_true(st.offline_spare_sbs > 0);
	assert_false(st.read_only);

	/* Exactly the LBAs whose data was on the die read as errors. */
	check_lost(x, on_dead, n_dead);

	/* A deallocated one reads zeroes; a written one its data. */
	fx_trim(x, 0, 64);
	prog_before = (uint32_t)nand_dev_stats(x->dev)->rel.offline_ops;
	/* Overwrite everything twice: GC runs, nothing touches the dead die. */
	rewrite_all(x);
	st = fx_stats(x);
	assert_true(st.gc_runs > st0.gc_runs);
	assert_int_equal(st.offline_programs, 0);
	assert_int_equal(nand_dev_stats(x->dev)->rel.offline_ops, prog_before);
	assert_none_on_dead(x);
	fx_check_invariants(x, false);
	fx_free(x);
}

/*
 * Found out from the flash: the die just fails, the FTL is not told. A small
 * cache, so that translation pages live on flash (some on the dead die: all
 * their LBAs are lost) and pages being written there fail (kept in the
 * buffer, moved by GC). Every LBA reads its data or an error; written
 * again, everything reads back.
 */
static void test_dieoff_found(void **state)
{
	struct fx *x = dieoff_fx(8);
	struct ftl_stats st;
	uint32_t failed;

	(void)state;
	fill(x);
	/* Some writes buffered, not flushed: their pages may be meant for the dead die. */
	fx_random_writes(x, x->cap, 4, 64);
	assert_int_equal(nand_die_set_offline(x->dev, DEAD, true), 0);
	assert_int_equal(fx_stats(x).dies_offline, 0);

	failed = read_all(x, NULL);
	st = fx_stats(x);
	assert_int_equal(st.dies_offline, 1);
	assert_true(failed > 0);
	assert_true(st.offline_units > 0);
	/*
	 * Pages being written there failed and were kept; a translation page
	 * loading from the die when it went is lost (all its LBAs), one only
	 * there and not loading is rebuilt from the other dies' OOB.
	 */
	assert_true(st.offline_programs > 0);
	assert_true(st.tp_lost + st.tp_rebuilt >= 1);
	assert_true(failed <= st.units_lost + st.tp_lost * 1024);

	/* Writes go on; once written again, every LBA reads back. */
	rewrite_all(x);
	fx_check_invariants(x, false);
	fx_free(x);
}

/* Too little spare for the capacity without the die: read-only, reads go on. */
static void test_dieoff_no_spare(void **state)
{
	struct fx *x = dieoff_fx_new(256, 70, false);
	struct ftl_stats st;

	(void)state;
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	take_offline(x);
	st = fx_stats(x);
	assert_true(st.read_only);
	assert_true(st.offline_spare_sbs > st.spare_superblocks);
	fx_prepare(x, 0, 1);
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 0, 1, x->wbuf, false), -ENOSPC);
	fx_free(x);
}

/* After a restart, the die is still offline and exactly @on_dead's LBAs fail. */
static void check_still_gone(struct fx *x, const uint8_t *on_dead, uint32_t n_dead)
{
	struct ftl_stats st = fx_stats(x);

	assert_int_equal(st.dies_offline, 1);
	assert_true(st.offline_spare_sbs > 0);
	check_lost(x, on_dead, n_dead);
}

/*
 * The device keeps the die offline (its store's block flags): a clean
 * restart and then a power cut (a new device over the same store file)
 * find it gone. The checkpoint and the start-up scan skip it; the same
 * LBAs read as errors, every other one its data; writes go on elsewhere.
 */
static void test_dieoff_restart(void **state)
{
	struct fx *x = dieoff_fx_new(256, 0, true);
	uint8_t *on_dead = fx_tmp_alloc(x->cap);
	uint32_t n_dead;

	(void)state;
	n_dead = fill_and_map(x, on_dead);
	take_offline(x);
	assert_int_equal(nand_dev_stats(x->dev)->rel.dies_offline, 1);

	clean_restart(x); /* a new device over the reopened store file */
	assert_true(nand_die_offline(x->dev, DEAD));
	check_still_gone(x, on_dead, n_dead);

	fx_crash(x); /* nothing in flight: a power cycle */
	fx_restart(x);
	check_still_gone(x, on_dead, n_dead);

	/* Written again, every LBA reads back; nothing goes to the die. */
	rewrite_all(x);
	assert_none_on_dead(x);
	clean_restart(x);
	assert_int_equal(fx_stats(x).dies_offline, 1);
	assert_int_equal(read_all(x, NULL), 0);
	fx_check_invariants(x, false);
	fx_free(x);
}

/*
 * A power cut after the die went, before any clean stop: the checkpoint
 * the start wrote had pages on the die (unreadable now), so recovery
 * rebuilds from the other dies' OOB, and the mappings the die's loss
 * changed were written back at once: the same LBAs fail, the others read
 * their data.
 */
static void test_dieoff_power_cut(void **state)
{
	struct fx *x = dieoff_fx_new(256, 0, true);
	uint8_t *on_dead = fx_tmp_alloc(x->cap);
	uint32_t n_dead;

	(void)state;
	n_dead = fill_and_map(x, on_dead);
	take_offline(x);
	fx_flush(x); /* the changed translation pages are on flash */
	fx_crash(x);
	fx_restart(x);
	check_still_gone(x, on_dead, n_dead);
	fx_check_invariants(x, false);
	fx_free(x);
}

/* Asks the FTL whether the die is back until it is (loads of stale translation pages run between). */
static void wait_back(struct fx *x)
{
	int rc = -EAGAIN;

	for (int i = 0; i < 1000 && rc == -EAGAIN; i++) {
		rc = ftl_die_back(x->f, DEAD);
		if (rc == -EAGAIN)
			fx_drain(x);
	}
	assert_int_equal(rc, 0);
}

/* How many LBAs have their data on the die. */
static uint32_t on_die_count(const struct fx *x)
{
	uint32_t n = 0;

	for (uint32_t lba = 0; lba < x->cap; lba++)
		n += lba_die(x, lba) == DEAD;
	return n;
}

/*
 * Cleared: the die comes back replaced (empty, erase counts reset) and the
 * FTL writes there again without a restart. What was lost stays lost
 * until written; written again, every LBA reads back, some from the new
 * die; and so after a restart.
 */
static void test_dieoff_back(void **state)
{
	struct fx *x = dieoff_fx_new(256, 0, true);
	uint8_t *on_dead = fx_tmp_alloc(x->cap);
	const struct nand_geometry *g = &nand_dev_config(x->dev)->geo;
	struct nand_addr a = { .ch = DEAD / g->dies_per_channel, .die = DEAD % g->dies_per_channel };
	uint32_t n_dead, programmed = 0;
	struct ftl_stats st;

	(void)state;
	n_dead = fill_and_map(x, on_dead);
	take_offline(x);
	assert_int_equal(ftl_die_back(x->f, DEAD), -EBUSY); /* the device still has it offline */
	assert_int_equal(ftl_die_back(x->f, 99), -ENOENT);
	for (a.block = 0; a.block < g->blocks_per_plane; a.block++)
		programmed += nand_block_meta(x->dev, nand_block_index(g, &a))->write_ptr > 0;
	assert_true(programmed > 0); /* what the die held is still in the store */

	assert_int_equal(nand_die_set_offline(x->dev, DEAD, false), 0);
	for (a.block = 0; a.block < g->blocks_per_plane; a.block++) {
		assert_int_equal(nand_block_meta(x->dev, nand_block_index(g, &a))->write_ptr, 0);
		assert_int_equal(nand_block_meta(x->dev, nand_block_index(g, &a))->erase_count, 0);
		assert_int_equal(nand_block_meta(x->dev, nand_block_index(g, &a))->flags, 0);
	}
	assert_int_equal(nand_dev_stats(x->dev)->rel.dies_replaced, 1);
	wait_back(x);
	st = fx_stats(x);
	assert_int_equal(st.dies_offline, 0);
	assert_int_equal(st.dies_back, 1);
	assert_int_equal(st.offline_spare_sbs, 0);
	/* Lost stays lost. */
	check_lost(x, on_dead, n_dead);

	/* Written again (GC runs through the superblocks with holes): all back, some on the new die. */
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_flush(x);
	assert_int_equal(read_all(x, NULL), 0);
	assert_true(on_die_count(x) > x->cap / 8);
	clean_restart(x);
	assert_int_equal(fx_stats(x).dies_offline, 0);
	assert_int_equal(read_all(x, NULL), 0);
	fx_check_invariants(x, false);
	fx_free(x);
}

/*
 * Back with a small mapping cache: translation pages on flash still map
 * what the die held; each is loaded and fixed before the die is written
 * again, so no LBA reads what the new die holds for another one, also
 * after a restart.
 */
static void test_dieoff_back_evicted(void **state)
{
	struct fx *x = dieoff_fx(8);
	uint32_t failed;

	(void)state;
	fill(x);
	take_offline(x);
	assert_int_equal(nand_die_set_offline(x->dev, DEAD, false), 0);
	wait_back(x);
	assert_int_equal(fx_stats(x).dies_offline, 0);
	/*
	 * Restarted (the fixed pages written back by the stop: nothing says
	 * after it which mappings were stale), then half of it written: GC
	 * erases superblocks that had the old die's pages and the new die
	 * fills them; every LBA still reads its data or an error.
	 */
	clean_restart(x);
	fx_random_writes(x, x->cap, 8, x->cap / 2);
	fx_flush(x);
	failed = read_all(x, NULL);
	assert_true(failed > 0);
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	assert_int_equal(read_all(x, NULL), 0);
	fx_check_invariants(x, false);
	fx_free(x);
}

/*
 * Where each LBA's data is, read with a small mapping cache (each read
 * loads its translation page): 1 in @on_dead for those on die DEAD. How
 * many; *@tp_on_dead: translation pages not resident whose copy is there.
 */
static uint32_t map_by_reading(struct fx *x, uint8_t *on_dead, uint32_t *tp_on_dead)
{
	uint32_t n_dead = 0;

	for (uint32_t lba = 0; lba < x->cap; lba++) {
		fx_verify(x, lba, 1);
		on_dead[lba] = lba_die(x, lba) == DEAD;
		n_dead += on_dead[lba];
	}
	*tp_on_dead = 0;
	for (uint32_t tp = 0; tp < (x->cap + 1023) / 1024; tp++) {
		struct ftl_tp_info ti = fx_tp(x, tp);

		*tp_on_dead += !ti.cached && ti.ppn < FTL_UNMAPPED - 1 && ppn_die(x, ti.ppn) == DEAD;
	}
	return n_dead;
}

/*
 * A small mapping cache, told at once: translation pages whose only copy
 * was on the die are rebuilt from the OOB of the data on the other dies,
 * so exactly the LBAs whose data was on the die read as errors, not all
 * 1024 of such a page; and so after a restart.
 */
static void test_dieoff_tp_rebuilt(void **state)
{
	struct fx *x = dieoff_fx_new(8, 0, true);
	uint8_t *on_dead = fx_tmp_alloc(x->cap);
	uint32_t n_dead, tp_on_dead;
	struct ftl_stats st;

	(void)state;
	fill(x);
	n_dead = map_by_reading(x, on_dead, &tp_on_dead);
	assert_true(tp_on_dead >= 1);
	take_offline(x);
	st = fx_stats(x);
	assert_int_equal(st.tp_rebuilt, tp_on_dead);
	assert_int_equal(st.tp_lost, 0);
	check_lost(x, on_dead, n_dead);
	clean_restart(x);
	check_lost(x, on_dead, n_dead);
	fx_check_invariants(x, false);
	fx_free(x);
}

/* A power cut now: after the restart exactly the @n_dead LBAs of @on_dead fail. */
static void crash_check(struct fx *x, const uint8_t *on_dead, uint32_t n_dead)
{
	fx_crash(x);
	fx_restart(x);
	check_lost(x, on_dead, n_dead);
	fx_check_invariants(x, false);
}

/*
 * Crash points after the FTL was told the die went: after @steps steps of
 * the driver (programs of the changed translation pages completing one by
 * one; UINT32_MAX: all of them). Every LBA rewritten at random first, so
 * that older versions of the die's LBAs sit on the live dies, newer than
 * the copies of their translation pages: exactly the die's LBAs read as
 * errors after the restart, never an older version, every other LBA its
 * data; and written again, all of them read back.
 */
static void crash_after_loss(uint32_t cmt_kib, bool ckpt_first, uint32_t steps)
{
	struct fx *x = dieoff_fx_new(cmt_kib, 0, true);
	uint8_t *on_dead = fx_tmp_alloc(x->cap);
	uint32_t n_dead, tp_on_dead;

	if (ckpt_first) {
		fill(x);
		clean_restart(x); /* the checkpoint's GTD names pages on the die */
		n_dead = map_by_reading(x, on_dead, &tp_on_dead);
		assert_true(tp_on_dead >= 1);
	} else if (cmt_kib >= 256) {
		n_dead = fill_and_map(x, on_dead);
	} else {
		fill(x);
		n_dead = map_by_reading(x, on_dead, &tp_on_dead);
	}
	take_offline(x);
	assert_int_equal(fx_stats(x).dierec_failed, 0);
	for (uint32_t i = 0; i < steps && fx_step(x); i++)
		;
	crash_check(x, on_dead, n_dead);
	assert_int_equal(fx_stats(x).tp_lost, 0);
	rewrite_all(x);
	assert_none_on_dead(x);
	fx_tmp_free(on_dead);
	fx_free(x);
}

/*
 * A crash or a power cut in the moment between the die going and the
 * changed translation pages being programmed (every one resident): the
 * record of the loss makes exactly the die's LBAs lost again, at every
 * crash point, never an older version of one.
 */
static void test_dieoff_crash_writeback(void **state)
{
	static const uint32_t steps[] = { 0, 2, 20, UINT32_MAX };

	(void)state;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		crash_after_loss(256, false, steps[i]);
}

/*
 * A small mapping cache: translation pages only on the die rebuilt as it
 * goes, a crash before (or while) they are programmed. Without a
 * checkpoint naming them the scan finds their older copies; with one
 * (a clean restart first) the start rebuilds them from the checkpoint's
 * valid units: none lost with its 1024 LBAs, exactly the die's LBAs fail.
 */
static void test_dieoff_crash_tp_rebuilt(void **state)
{
	static const uint32_t steps[] = { 0, 3, UINT32_MAX };

	(void)state;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		crash_after_loss(8, false, steps[i]);
		crash_after_loss(8, true, steps[i]);
	}
}

/*
 * The die goes and the FTL never sees it (a power cut first): the start
 * finds it offline and the checkpoint's translation pages on it, rebuilds
 * them from the other dies' OOB (none lost) and exactly the LBAs whose
 * data was on the die fail, also after a clean restart.
 */
static void test_dieoff_tp_at_start(void **state)
{
	struct fx *x = dieoff_fx_new(8, 0, true);
	uint8_t *on_dead = fx_tmp_alloc(x->cap);
	uint32_t n_dead, tp_on_dead;
	struct ftl_stats st;

	(void)state;
	fill(x);
	clean_restart(x);
	n_dead = map_by_reading(x, on_dead, &tp_on_dead);
	assert_true(tp_on_dead >= 1);
	assert_int_equal(nand_die_set_offline(x->dev, DEAD, true), 0);
	fx_crash(x);
	fx_restart(x);
	st = fx_stats(x);
	assert_true(st.tp_rebuilt >= tp_on_dead);
	assert_int_equal(st.tp_lost, 0);
	check_lost(x, on_dead, n_dead);
	clean_restart(x);
	check_lost(x, on_dead, n_dead);
	fx_check_invariants(x, false);
	fx_free(x);
}

/*
 * The die back (replaced, empty) and a crash after @steps steps of the
 * driver: while the stale translation pages are loaded and fixed, while
 * they are written back, or (UINT32_MAX) once the FTL has it back.
 * After the restart exactly the die's LBAs fail (none maps to what the new
 * die holds); written again (some on the new die) and flushed, every LBA
 * reads back, also after another power cut.
 */
static void crash_after_back(uint32_t steps)
{
	struct fx *x = dieoff_fx_new(8, 0, true);
	uint8_t *on_dead = fx_tmp_alloc(x->cap);
	uint32_t n_dead, tp_on_dead;

	fill(x);
	n_dead = map_by_reading(x, on_dead, &tp_on_dead);
	take_offline(x);
	fx_drain(x);
	assert_int_equal(nand_die_set_offline(x->dev, DEAD, false), 0);
	if (steps == UINT32_MAX) {
		wait_back(x); /* back for the FTL: it writes there again */
		assert_int_equal(fx_stats(x).dies_back, 1);
	} else {
		(void)ftl_die_back(x->f, DEAD);
		for (uint32_t i = 0; i < steps && fx_step(x); i++)
			;
	}
	crash_check(x, on_dead, n_dead);
	rewrite_all(x);
	if (steps == UINT32_MAX)
		assert_true(on_die_count(x) > 0); /* on the new die at once */
	memset(on_dead, 0, x->cap);
	crash_check(x, on_dead, 0); /* every LBA reads back */
	fx_tmp_free(on_dead);
	fx_free(x);
}

static void test_dieoff_back_crash(void **state)
{
	static const uint32_t steps[] = { 0, 4, 40, UINT32_MAX };

	(void)state;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		crash_after_back(steps[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_dieoff_told),
		FX_TEST(test_dieoff_found),
		FX_TEST(test_dieoff_no_spare),
		FX_TEST(test_dieoff_restart),
		FX_TEST(test_dieoff_power_cut),
		FX_TEST(test_dieoff_back),
		FX_TEST(test_dieoff_back_evicted),
		FX_TEST(test_dieoff_tp_rebuilt),
		FX_TEST(test_dieoff_crash_writeback),
		FX_TEST(test_dieoff_crash_tp_rebuilt),
		FX_TEST(test_dieoff_tp_at_start),
		FX_TEST(test_dieoff_back_crash),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
