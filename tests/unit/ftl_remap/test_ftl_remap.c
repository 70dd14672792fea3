/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad blocks remapped to a spare block of their plane (ftl/remap.c):
 * factory bad blocks (nand_config.factory_bad_ppm) take spares when the
 * FTL starts and are never written, a block whose program failed takes one
 * once GC emptied it, the superblock keeps its full width, the spares come
 * out of the over-provisioning's superblocks (donors, retired), a plane
 * whose spares ran out has its superblock retired as before, and the remap
 * survives a clean restart and a crash.
 */
#include "engine_internal.h"
#include "ftl_fixture.h"
#include "ftl_internal.h"

#include <errno.h>

/* 4 dies of 2 planes, 64 blocks each, 30% over-provisioning; @ppm factory bad. */
static struct fx *rm_new(uint32_t ppm)
{
	struct ftl_config cfg;
	struct fx_geo g;

	fx_geo_small(&g);
	g.planes = 2;
	g.blocks = 64;
	g.factory_bad_ppm = ppm;
	fx_cfg_default(&cfg);
	cfg.op_permille = 300;
	return fx_new(&g, &cfg, true);
}

/* Stripe position (plane * ndies + slot) of block @b of the store. */
static uint32_t blk_pos(const struct fx *x, uint64_t b, uint32_t *block)
{
	const struct nand_geometry *g = &x->nc.geo;
	uint32_t plane = (uint32_t)(b / g->blocks_per_plane % g->planes_per_die);
	uint32_t die = (uint32_t)(b / g->blocks_per_plane / g->planes_per_die);

	*block = (uint32_t)(b % g->blocks_per_plane);
	return plane * x->f->ndies + die;
}

static uint32_t factory_blocks(const struct fx *x)
{
	uint32_t n = 0;

	for (uint64_t b = 0; b < nand_blocks(&x->nc.geo); b++)
		n += (x->store->blocks[b].flags & NAND_BLOCK_FACTORY_BAD) != 0;
	return n;
}

static uint32_t *remap_copy(struct fx *x)
{
	size_t n = (size_t)x->f->nr_sb * x->f->stripe;
	uint32_t *c = fx_tmp_alloc(n * sizeof(*c));

	memcpy(c, x->f->remap, n * sizeof(*c));
	return c;
}

static void remap_same(const struct fx *x, const uint32_t *c)
{
	assert_memory_equal(c, x->f->remap, (size_t)x->f->nr_sb * x->f->stripe * sizeof(*c));
}

/* No superblock in use but a donor has a bad block, and no bad block holds anything. */
static void check_no_bad_in_use(const struct fx *x)
{
	for (uint32_t sb = 0; sb < x->f->nr_sb; sb++)
		if (!x->f->donor[sb] && x->f->sbs[sb].state != SB_BAD)
			assert_false(ftl_sb_has_bad_block(x->f, sb));
	for (uint64_t b = 0; b < nand_blocks(&x->nc.geo); b++)
		if (x->store->blocks[b].flags & NAND_BLOCK_FACTORY_BAD) {
			assert_int_equal(x->store->blocks[b].write_ptr, 0);
			assert_int_equal(x->store->blocks[b].erase_count, 0);
		}
}

/*
 * Factory bad blocks: each one of a superblock in use stands in a spare of
 * its plane from the start, fewer superblocks are retired than there are
 * bad blocks, the spare pool shrinks by about one block for each, nothing
 * is ever written to them, and a restart finds the same remap.
 */
static void test_factory_never_written(void **state)
{
	struct ftl_stats st;
	uint32_t nbad, *before;
	struct fx *x;

	(void)state;
	x = rm_new(30000); /* 3%, above the ~2% datasheets allow: the worst case */
	nbad = factory_blocks(x);
	assert_true(nbad > 2);
	assert_int_equal(nand_dev_stats(x->dev)->factory_bad_blocks, nbad);
	st = fx_stats(x);
	assert_int_equal(st.factory_bad_blocks, nbad);
	for (uint64_t b = 0; b < nand_blocks(&x->nc.geo); b++) {
		uint32_t k, s;

		if (!(x->store->blocks[b].flags & NAND_BLOCK_FACTORY_BAD))
			continue;
		assert_true(b % x->nc.geo.blocks_per_plane); /* block 0 of a plane is good */
		s = blk_pos(x, b, &k);
		if (!x->f->donor[k])
			assert_true(x->f->remap[(size_t)k * x->f->stripe + s] != 0);
	}
	assert_true(st.remapped_blocks >= 1);
	assert_true(st.superblocks_retired < nbad);
	assert_true(st.spare_blocks_used >= st.remapped_blocks);
	assert_true(st.spare_blocks_used < st.spare_blocks);
	assert_int_equal(st.read_only, false);
	check_no_bad_in_use(x);

	/* Three times the capacity written: GC erases and reopens everything. */
	fx_random_writes(x, x->cap, 8, (uint64_t)x->cap * 3);
	fx_flush(x);
	fx_verify_all(x);
	st = fx_stats(x);
	assert_int_equal(st.program_failures, 0);
	assert_int_equal(nand_dev_stats(x->dev)->rel.program_failures, 0);
	assert_int_equal(nand_dev_stats(x->dev)->rel.erase_failures, 0);
	assert_true(st.gc_runs > 0);
	check_no_bad_in_use(x);

	before = remap_copy(x);
	clean_restart(x);
	remap_same(x, before);
	assert_int_equal(factory_blocks(x), nbad); /* the store keeps the table */
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_tmp_free(before);
	fx_free(x);
}

/* The same seed, the same factory bad blocks; another seed, others. */
static void test_factory_seeded(void **state)
{
	struct nand_geometry g;
	uint32_t a = 0, b = 0, same = 0;

	(void)state;
	nand_geometry_default(&g);
	for (uint64_t i = 0; i < nand_blocks(&g); i++) {
		bool x1 = nand_factory_bad(&g, i, 20000, 7), x2 = nand_factory_bad(&g, i, 20000, 8);

		assert_int_equal(x1, nand_factory_bad(&g, i, 20000, 7));
		a += x1;
		b += x2;
		same += x1 && x2;
		assert_false(nand_factory_bad(&g, i, 0, 7));
	}
	/* About 2% of the blocks (binomial: well within 20% of it), not the same ones. */
	assert_true(a > nand_blocks(&g) * 16 / 1000 && a < nand_blocks(&g) * 24 / 1000);
	assert_true(b > nand_blocks(&g) * 16 / 1000 && b < nand_blocks(&g) * 24 / 1000);
	assert_true(same < a / 4);
}

/*
 * A program failure (a grown bad block): once GC emptied the superblock
 * the block stands in a spare of its plane and the superblock is used again
 * at full width; a crash after that finds the remap, and the flushed data.
 */
static void test_grown_then_crash(void **state)
{
	struct fx_crash_log l;
	struct ftl_stats st0, st;
	uint32_t *before;
	struct fx *x;

	(void)state;
	x = rm_new(10000);
	fx_log_init(&l, x);
	st0 = fx_stats(x);
	fx_seq_fill(x, 0, x->cap / 2);
	fx_flush(x);
	fx_log_flushed(&l);
	assert_int_equal(nand_fail_programs(x->dev, 1, 1), 0);
	for (int i = 0; i < 64; i++)
		fx_log_write(&l, fx_below(x, x->cap - 8), 8);
	fx_flush(x); /* waits for GC to move the failed page's data */
	fx_log_flushed(&l);
	fx_random_writes(x, x->cap / 2, 8, 2000); /* GC collects what it flagged */
	fx_drain(x);
	fx_flush(x);
	fx_log_flushed(&l);
	st = fx_stats(x);
	assert_int_equal(nand_dev_stats(x->dev)->rel.program_failures, 1);
	assert_int_equal(st.remapped_grown, 1);
	assert_int_equal(st.remapped_blocks, st0.remapped_blocks + 1);
	assert_true(st.spare_blocks_used > st0.spare_blocks_used);
	check_no_bad_in_use(x);
	before = remap_copy(x);

	for (int i = 0; i < 32; i++)
		fx_log_write(&l, fx_below(x, x->cap - 8), 8);
	fx_crash(x);
	assert_int_equal(fx_ftl_create(x), 0);
	remap_same(x, before);
	assert_int_equal(fx_stats(x).remapped_blocks, st.remapped_blocks);
	fx_log_check(&l);
	check_no_bad_in_use(x);
	fx_random_writes(x, x->cap, 8, 2000);
	fx_flush(x);
	fx_verify_all(x);
	fx_tmp_free(before);
	fx_free(x);
}

/*
 * A plane whose spares ran out: no donor or free superblock has a good
 * erased block at that (die, plane) any more; the remap says no there (and
 * yes elsewhere), and a block that goes bad there retires its superblock.
 */
static void test_spares_run_out(void **state)
{
	struct fx *x;
	int32_t z = -1;
	uint32_t fallback = 0;

	(void)state;
	x = rm_new(0);
	fx_seq_fill(x, 0, x->cap / 2);
	fx_flush(x);
	/*
	 * Position 0 (die 0, plane 0): the spare of every free superblock but
	 * z there is taken (as if earlier bad blocks there had used them).
	 */
	for (uint32_t sb = FTL_CKPT_SBS; sb < x->f->nr_sb; sb++) {
		if (x->f->sbs[sb].state != SB_FREE)
			continue;
		if (z < 0)
			z = (int32_t)sb;
		else
			x->f->given[(size_t)sb * x->f->stripe] = 1;
	}
	assert_true(z >= 0);
	assert_false(ftl_remap_block(x->f, (uint32_t)z, 0));
	assert_int_equal(fx_stats(x).remapped_blocks, 0);
	assert_true(ftl_remap_block(x->f, (uint32_t)z, 1)); /* die 1, plane 0: a donor has one */
	assert_int_equal(fx_stats(x).remapped_blocks, 1);
	assert_int_equal(fx_stats(x).superblocks_retired, 1);
	assert_false(ftl_remap_block(x->f, (uint32_t)z, 0)); /* the donor's is taken too */
	/* GC's erase of a superblock with a bad block at position 0: retired. */
	for (uint32_t sb = FTL_CKPT_SBS; sb < x->f->nr_sb; sb++) {
		struct nand_addr a;

		if (x->f->sbs[sb].state != SB_FULL || !x->f->sbs[sb].valid)
			continue;
		ftl_fpid_addr(x->f, ftl_ppn(x->f, sb, 0) / x->f->slots, &a);
		x->store->blocks[nand_block_index(&x->nc.geo, &a)].flags |= NAND_BLOCK_BAD;
		x->f->sbs[sb].refresh = true; /* as recovery flags it: GC empties it first */
		x->f->refresh_pending++;
		z = (int32_t)sb;
		break;
	}
	fx_random_writes(x, x->cap / 2, 8, 400);
	fx_drain(x);
	for (uint32_t sb = FTL_CKPT_SBS; sb < x->f->nr_sb; sb++)
		fallback += x->f->sbs[sb].state == SB_BAD && !x->f->donor[sb];
	assert_true(fallback >= 1);
	assert_int_equal(x->f->sbs[z].state, SB_BAD);
	fx_verify_all(x);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_factory_never_written),
		FX_TEST(test_factory_seeded),
		FX_TEST(test_grown_then_crash),
		FX_TEST(test_spares_run_out),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
