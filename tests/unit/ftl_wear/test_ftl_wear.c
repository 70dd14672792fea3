/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FTL on flash that wears (nand_config.rel): reads through read
 * retries return the data; a read that took many retries has GC refresh
 * its superblock; an uncorrectable page fails the host's read with -EIO
 * (the NVMe layer's Unrecovered Read Error), again on every read, until
 * the LBA is written or deallocated; GC of a superblock with uncorrectable
 * pages maps their LBAs lost (FTL_LOST), which read as errors after the
 * erase too and across a clean restart, and a write or a trim ends it.
 * Wear is set straight in the store's block meta (the erase counts the
 * model reads) and in the FTL's own count (so allocation avoids it).
 */
#include "engine_internal.h"
#include "ftl_fixture.h"
#include "ftl_internal.h"

static struct nand_reliability rel;

static struct fx *wear_new(uint32_t refresh_retries)
{
	struct ftl_config cfg;
	struct fx_geo g;

	nand_reliability_default(&rel, NAND_TLC);
	rel.enabled = true;
	rel.seed = 17;
	fx_cfg_default(&cfg);
	cfg.refresh_retries = refresh_retries;
	fx_geo_small(&g);
	g.rel = &rel;
	return fx_new(&g, &cfg, true);
}

/* Wear every block of superblock @sb to @pe cycles, in the store and the FTL. */
static void wear_sb(struct fx *x, uint32_t sb, uint32_t pe)
{
	const struct nand_geometry *g = &x->nc.geo;

	for (uint32_t d = 0; d < x->res.nr_dies; d++)
		for (uint32_t p = 0; p < g->planes_per_die; p++) {
			uint32_t die = x->res.dies[d];
			struct nand_addr a = { die / g->dies_per_channel, die % g->dies_per_channel, p,
					       x->res.first_block + sb, 0 };

			x->store->blocks[nand_block_index(g, &a)].erase_count = pe;
		}
	x->f->sbs[sb].erase_count = pe;
}

/* fx_verify() of [lba, lba + n), FX_MAX_IO units at a time. */
static void verify_range(struct fx *x, uint32_t lba, uint32_t n)
{
	for (uint32_t i = 0; i < n; i += FX_MAX_IO)
		fx_verify(x, lba + i, n - i < FX_MAX_IO ? n - i : FX_MAX_IO);
}

static uint32_t sb_of(const struct fx *x, uint32_t lba)
{
	uint32_t ppn = fx_ppn_resident(x, lba);

	assert_true(ppn < FTL_LOST);
	return ppn / x->lay.units_per_sb;
}

/* Worn but readable: retries, the data intact, refreshes by GC. */
static void test_retries_and_refresh(void **state)
{
	struct fx *x;
	struct ftl_stats st;

	(void)state;
	x = wear_new(2);
	for (uint32_t sb = FTL_CKPT_SBS; sb < x->lay.nr_sb; sb++)
		wear_sb(x, sb, 5000);
	fx_seq_fill(x, 0, 3000);
	fx_flush(x);
	verify_range(x, 0, 3000);
	fx_drain(x); /* GC refreshes what read with retries */
	st = fx_stats(x);
	assert_true(st.read_retries > 0);
	assert_int_equal(st.uncorrectable_reads, 0);
	assert_true(st.refreshes > 0);
	assert_true(nand_dev_stats(x->dev)->rel.reads_retried > 0);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_free(x);
}

struct stopped {
	bool done;
	int status;
};

static void on_stopped(void *arg, int status)
{
	struct stopped *s = arg;

	s->done = true;
	s->status = status;
}

/* A read of @lba: its status. */
static int read1(struct fx *x, uint32_t lba)
{
	return fx_io(x, FTL_IO_READ, lba, 1, x->rbuf, false);
}

/*
 * Uncorrectable pages: the host's reads fail until written or trimmed; GC
 * maps what it could not move lost; lost stays lost after the erase and a
 * clean restart; writes and trims end it.
 */
static void test_uncorrectable_and_lost(void **state)
{
	struct stopped stop = { 0 };
	struct ftl_stats st;
	struct fx *x;
	uint32_t sb, per_sb;

	(void)state;
	x = wear_new(4);
	per_sb = x->lay.units_per_sb;
	/* LBAs 0.. fill a superblock and more: the stream moves on past it. */
	fx_seq_fill(x, 0, per_sb + 256);
	fx_flush(x);
	sb = sb_of(x, 0);
	assert_int_equal(sb_of(x, 100), sb);
	wear_sb(x, sb, 12000);
	assert_int_equal(read1(x, 0), -EIO);
	assert_int_equal(read1(x, 0), -EIO); /* and again */
	assert_int_equal(read1(x, 5), -EIO);
	assert_true(fx_stats(x).uncorrectable_reads >= 3);
	verify_range(x, per_sb, 256); /* the next superblock reads fine */
	/* A write moves LBA 1 to fresh flash; a trim makes LBA 2 read zeroes. */
	fx_write(x, 1, 1);
	fx_flush(x);
	fx_verify(x, 1, 1);
	fx_trim(x, 2, 1);
	fx_verify(x, 2, 1);
	/* The uncorrectable read flagged the superblock: GC takes it and loses its units. */
	fx_drain(x);
	st = fx_stats(x);
	assert_true(st.refreshes >= 1);
	assert_true(st.units_lost >= per_sb - 16);
	assert_int_equal(fx_sb(x, sb).valid, 0);
	assert_int_equal(read1(x, 3), -EIO);
	assert_true(fx_stats(x).lost_reads >= 1);
	fx_verify(x, 1, 2);
	fx_check_invariants(x, false);
	/* Lost survives a clean restart. */
	assert_int_equal(ftl_shutdown(x->f, on_stopped, &stop), 0);
	fx_run_until(x, &stop.done, "clean stop");
	assert_int_equal(stop.status, 0);
	fx_crash(x); /* nothing in flight: a close and reopen */
	assert_int_equal(fx_ftl_create(x), 0);
	assert_int_equal(read1(x, 3), -EIO);
	assert_int_equal(read1(x, 200), -EIO);
	/* A write or a trim ends it. */
	fx_write(x, 3, 1);
	fx_trim(x, 200, 1);
	fx_verify(x, 3, 1);
	fx_verify(x, 200, 1);
	fx_check_invariants(x, false);
	fx_free(x);
}

/*
 * Grown bad blocks: once erases fail, each GC victim's failed erase
 * retires its superblock (never allocated again); when too few are left
 * for the capacity the FTL turns read-only: writes fail with -ENOSPC, every
 * LBA still reads what it last held.
 */
static void test_erase_failures_retire(void **state)
{
	struct fx *x;
	uint32_t *saved, bad = 0;
	int rc = 0;

	(void)state;
	x = wear_new(0);
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 8, x->cap);
	assert_int_equal(fx_stats(x).superblocks_retired, 0);
	x->dev->cfg.rel.erase_fail = 1.0; /* every erase from now on */
	saved = fx_tmp_alloc(8 * sizeof(*saved));
	for (uint64_t i = 0; i < 4ull * x->cap && !rc; i++) {
		uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap - nr);

		memcpy(saved, x->shadow + lba, nr * sizeof(*saved));
		fx_prepare(x, lba, nr);
		rc = fx_io(x, FTL_IO_WRITE, lba, nr, x->wbuf, false);
		if (rc)
			memcpy(x->shadow + lba, saved, nr * sizeof(*saved)); /* not written */
	}
	assert_int_equal(rc, -ENOSPC);
	assert_true(fx_stats(x).superblocks_retired >= 1);
	for (uint32_t sb = 0; sb < x->lay.nr_sb; sb++)
		bad += fx_sb(x, sb).state == FTL_SB_BAD;
	assert_int_equal(bad, fx_stats(x).superblocks_retired);
	assert_true(nand_dev_stats(x->dev)->rel.erase_failures >= x->res.nr_dies);
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 0, 1, x->wbuf, false), -ENOSPC);
	fx_verify_all(x);
	fx_tmp_free(saved);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_retries_and_refresh),
		FX_TEST(test_uncorrectable_and_lost),
		FX_TEST(test_erase_failures_retire),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
