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

static struct fx *dieoff_fx(uint32_t cmt_kib)
{
	struct ftl_config c;
	struct fx_geo g;

	fx_cfg_default(&c);
	c.op_permille = 400; /* a quarter of the flash can go and the capacity still fits */
	c.cmt_bytes = cmt_kib * 1024;
	fx_geo_small(&g);
	return fx_new(&g, &c, false);
}

/* The die slot (= die) LBA @lba's data is on, or UINT32_MAX (unmapped, not resident). */
static uint32_t lba_die(const struct fx *x, uint32_t lba)
{
	uint32_t ppn = fx_ppn_resident(x, lba), slots = 16384 / FTL_UNIT, ndies = 4;

	if (ppn >= FTL_UNMAPPED - 1)
		return UINT32_MAX;
	return (ppn / slots) % ndies; /* one plane: the stripe is the dies */
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

/* Told at once, every translation page resident: exactly the die's LBAs are lost. */
static void test_dieoff_told(void **state)
{
	struct fx *x = dieoff_fx(256);
	struct ftl_stats st0, st;
	uint8_t *on_dead = fx_tmp_alloc(x->cap), *lost = fx_tmp_alloc(x->cap);
	uint32_t n_dead = 0, prog_before;

	(void)state;
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 8, x->cap / 2);
	fx_flush(x);
	for (uint32_t lba = 0; lba < x->cap; lba++) {
		uint32_t d = lba_die(x, lba);

		assert_true(d != UINT32_MAX); /* all resident, all written */
		on_dead[lba] = d == DEAD;
		n_dead += on_dead[lba];
	}
	assert_true(n_dead > x->cap / 8);
	st0 = fx_stats(x);
	assert_int_equal(st0.dies_offline, 0);
	assert_int_equal(st0.offline_spare_sbs, 0);

	assert_int_equal(nand_die_set_offline(x->dev, DEAD, true), 0);
	assert_int_equal(ftl_die_offline(x->f, DEAD), 0);
	assert_int_equal(ftl_die_offline(x->f, 99), -ENOENT);
	st = fx_stats(x);
	assert_int_equal(st.dies_offline, 1);
	/* The die's data units, and translation pages there (rewritten from memory). */
	assert_int_equal(st.offline_units, n_dead + st.offline_tps_moved);
	assert_int_equal(st.units_lost - st0.units_lost, n_dead);
	assert_true(st.offline_spare_sbs > 0);
	assert_false(st.read_only);

	/* Exactly the LBAs whose data was on the die read as errors. */
	assert_int_equal(read_all(x, lost), n_dead);
	assert_memory_equal(lost, on_dead, x->cap);

	/* A deallocated one reads zeroes; a written one its data. */
	fx_trim(x, 0, 64);
	prog_before = (uint32_t)nand_dev_stats(x->dev)->rel.offline_ops;
	/* Overwrite everything twice: GC runs, nothing touches the dead die. */
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	assert_int_equal(read_all(x, NULL), 0);
	st = fx_stats(x);
	assert_true(st.gc_runs > st0.gc_runs);
	assert_int_equal(st.offline_programs, 0);
	assert_int_equal(nand_dev_stats(x->dev)->rel.offline_ops, prog_before);
	for (uint32_t lba = 0; lba < x->cap; lba++)
		assert_true(lba_die(x, lba) != DEAD);
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
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 8, x->cap / 2);
	fx_flush(x);
	/* Some writes buffered, not flushed: their pages may be meant for the dead die. */
	fx_random_writes(x, x->cap, 4, 64);
	assert_int_equal(nand_die_set_offline(x->dev, DEAD, true), 0);
	assert_int_equal(fx_stats(x).dies_offline, 0);

	failed = read_all(x, NULL);
	st = fx_stats(x);
	assert_int_equal(st.dies_offline, 1);
	assert_true(failed > 0);
	assert_true(st.offline_units > 0);
	/* Pages being written there failed and were kept; a translation page only there is lost. */
	assert_true(st.offline_programs > 0);
	assert_true(st.tp_lost >= 1);
	/* The LBAs found lost, and those of the lost translation page, read as errors. */
	assert_true(failed > st.units_lost);
	assert_true(failed <= st.units_lost + st.tp_lost * 1024);

	/* Writes go on; once written again, every LBA reads back. */
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	assert_int_equal(read_all(x, NULL), 0);
	fx_check_invariants(x, false);
	fx_free(x);
}

/* Too little spare for the capacity without the die: read-only, reads go on. */
static void test_dieoff_no_spare(void **state)
{
	struct ftl_config c;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats st;

	(void)state;
	fx_cfg_default(&c);
	c.op_permille = 70;
	fx_geo_small(&g);
	x = fx_new(&g, &c, false);
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	assert_int_equal(nand_die_set_offline(x->dev, DEAD, true), 0);
	assert_int_equal(ftl_die_offline(x->f, DEAD), 0);
	st = fx_stats(x);
	assert_true(st.read_only);
	assert_true(st.offline_spare_sbs > st.spare_superblocks);
	fx_prepare(x, 0, 1);
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 0, 1, x->wbuf, false), -ENOSPC);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_dieoff_told),
		FX_TEST(test_dieoff_found),
		FX_TEST(test_dieoff_no_spare),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
