/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reads lent in place (nand_op.lend, nand/lend.c) on a RAM store: the
 * bytes handed back are the page's, the segment's dst is untouched and
 * the block pinned until nand_unpin(); an erase ending on a pinned block
 * is held (the bytes stay) and goes on after the unpin; what is never
 * lent (an erased page, two segments, no lend asked, a failed read, null
 * timing) is copied as before and pins nothing.
 */
#include "engine_tests.h"

#define BLK 2u

/* A 4 KiB page of pattern @seed programmed at BLK/@page. */
static void program(struct fx *f, uint32_t page, uint8_t *pat, uint32_t seed)
{
	struct nand_op op;

	fx_fill(pat, f->cfg.geo.page_size, seed);
	fx_data_op(f, &op, NAND_OP_PROGRAM, BLK, page, pat, NULL);
	assert_int_equal(fx_submit(f, &op, f->dev->now), 0);
	fx_run_all(f);
	assert_int_equal(op.status, 0);
}

/* A read of [@off, @off + @len) of BLK/@page into @seg's dst, lent if it may. */
static void read_op(struct fx *f, struct nand_op *op, struct nand_seg *seg, uint32_t page,
		    uint32_t off, uint32_t len, void *dst, bool lend)
{
	fx_data_op(f, op, NAND_OP_READ, BLK, page, NULL, NULL);
	*seg = (struct nand_seg){ off, len, dst };
	op->segs = seg;
	op->nsegs = 1;
	op->lend = lend;
}

static void lend_setup(struct fx *f)
{
	fx_init(f);
	fx_small_geo(&f->cfg.geo);
	fx_create(f, true);
}

void test_lend_read(void **state)
{
	struct fx f;
	struct nand_op op;
	struct nand_seg seg;
	uint8_t pat[4096], dst[4096];

	(void)state;
	lend_setup(&f);
	program(&f, 0, pat, 7);
	memset(dst, 0x5a, sizeof(dst));
	read_op(&f, &op, &seg, 0, 1024, 2048, dst, true);
	assert_int_equal(fx_submit(&f, &op, f.dev->now), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_non_null(op.lent);
	assert_memory_equal(op.lent, pat + 1024, 2048);
	assert_int_equal(op.lent_block, fx_blk_idx(&f, BLK));
	for (size_t i = 0; i < sizeof(dst); i++)
		assert_int_equal(dst[i], 0x5a); /* lent, not copied */
	assert_int_equal(nand_pins(f.dev), 1);
	assert_int_equal(nand_dev_stats(f.dev)->lent_reads, 1);
	nand_unpin(op.lent_tab, op.lent_block);
	assert_int_equal(nand_pins(f.dev), 0);
	fx_destroy(&f);
}

void test_lend_erase_held(void **state)
{
	struct fx f;
	struct nand_op rd, er, rd2;
	struct nand_seg seg, seg2;
	uint8_t pat[4096], dst[4096];
	uint64_t t0, unpin_at;

	(void)state;
	lend_setup(&f);
	program(&f, 0, pat, 11);
	read_op(&f, &rd, &seg, 0, 0, 4096, dst, true);
	assert_int_equal(fx_submit(&f, &rd, f.dev->now), 0);
	fx_run_all(&f);
	assert_non_null(rd.lent);

	/* The erase's array time ends; the read is still lent: held. */
	fx_data_op(&f, &er, NAND_OP_ERASE, BLK, 0, NULL, NULL);
	t0 = f.dev->now;
	assert_int_equal(fx_submit(&f, &er, t0), 0);
	fx_run_to(&f, t0 + TBERS + 50000);
	assert_int_equal(er.done_ns, 0);
	assert_true(nand_dev_stats(f.dev)->erases_held > 0);
	assert_memory_equal(rd.lent, pat, 4096); /* the bytes are still there */

	unpin_at = f.dev->now;
	nand_unpin(rd.lent_tab, rd.lent_block);
	fx_run_all(&f);
	assert_int_equal(er.status, 0);
	assert_true(er.done_ns >= unpin_at);
	assert_true(er.done_ns <= unpin_at + NAND_PIN_RECHECK_NS);

	/* Erased now: a read of the page is not lent and reads 0xff. */
	read_op(&f, &rd2, &seg2, 0, 0, 4096, dst, true);
	assert_int_equal(fx_submit(&f, &rd2, f.dev->now), 0);
	fx_run_all(&f);
	assert_null(rd2.lent);
	assert_true(rd2.erased);
	for (size_t i = 0; i < sizeof(dst); i++)
		assert_int_equal(dst[i], 0xff);
	assert_int_equal(nand_pins(f.dev), 0);
	fx_destroy(&f);
}

void test_lend_not_lent(void **state)
{
	struct fx f;
	struct nand_op op;
	struct nand_seg seg, two[2];
	uint8_t pat[4096], dst[4096];

	(void)state;
	lend_setup(&f);
	program(&f, 0, pat, 13);

	/* Not asked: copied. */
	read_op(&f, &op, &seg, 0, 0, 4096, dst, false);
	assert_int_equal(fx_submit(&f, &op, f.dev->now), 0);
	fx_run_all(&f);
	assert_null(op.lent);
	assert_memory_equal(dst, pat, 4096);

	/* Two segments: copied. */
	read_op(&f, &op, &seg, 0, 0, 4096, dst, true);
	memset(dst, 0, sizeof(dst));
	two[0] = (struct nand_seg){ 0, 2048, dst };
	two[1] = (struct nand_seg){ 2048, 2048, dst + 2048 };
	op.segs = two;
	op.nsegs = 2;
	assert_int_equal(fx_submit(&f, &op, f.dev->now), 0);
	fx_run_all(&f);
	assert_null(op.lent);
	assert_memory_equal(dst, pat, 4096);

	/* A failed read (its die offline): nothing lent, nothing pinned. */
	assert_int_equal(nand_die_set_offline(f.dev, nand_die_index(&f.cfg.geo, &op.addr), true), 0);
	read_op(&f, &op, &seg, 0, 0, 4096, dst, true);
	assert_int_equal(fx_submit(&f, &op, f.dev->now), 0);
	fx_run_all(&f);
	assert_int_not_equal(op.status, 0);
	assert_null(op.lent);
	assert_int_equal(nand_pins(f.dev), 0);
	assert_int_equal(nand_dev_stats(f.dev)->lent_reads, 0);
	fx_destroy(&f);

	/* Null timing: copied (its completions come at once, an erase could not wait). */
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	f.cfg.timing.null_timing = true;
	fx_create(&f, true);
	program(&f, 0, pat, 17);
	read_op(&f, &op, &seg, 0, 0, 4096, dst, true);
	memset(dst, 0, sizeof(dst));
	assert_int_equal(fx_submit(&f, &op, f.dev->now), 0);
	fx_run_all(&f);
	assert_null(op.lent);
	assert_memory_equal(dst, pat, 4096);
	assert_int_equal(nand_pins(f.dev), 0);
	fx_destroy(&f);
}

/*
 * The device goes (nand_dev_destroy_store()) while a read it lent is still
 * out: the store stays open and the lent bytes readable until the read is
 * given back, which then closes the store and frees the pins (ASan sees a
 * use after free or a leak if not). Without a lent read it all goes at once.
 */
void test_lend_outlives_device(void **state)
{
	struct fx f;
	struct nand_op op;
	struct nand_seg seg;
	uint8_t pat[4096], dst[4096];
	uint8_t copy[4096];

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	assert_int_equal(nand_store_ram_open(&f.cfg.geo, &f.store), 0);
	assert_int_equal(nand_dev_create(&f.cfg, f.store, &f.dev), 0);
	program(&f, 0, pat, 19);
	read_op(&f, &op, &seg, 0, 0, 4096, dst, true);
	assert_int_equal(fx_submit(&f, &op, f.dev->now), 0);
	fx_run_all(&f);
	assert_non_null(op.lent);
	nand_dev_destroy_store(f.dev, f.store);
	f.dev = NULL;
	f.store = NULL;
	memcpy(copy, op.lent, sizeof(copy)); /* the RAM store's page: still there */
	assert_memory_equal(copy, pat, sizeof(copy));
	nand_unpin(op.lent_tab, op.lent_block); /* the store closes now */

	/* Nothing lent: the store closes with the device. */
	assert_int_equal(nand_store_ram_open(&f.cfg.geo, &f.store), 0);
	assert_int_equal(nand_dev_create(&f.cfg, f.store, &f.dev), 0);
	nand_dev_destroy_store(f.dev, f.store);
	f.dev = NULL;
	f.store = NULL;
}
