/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stream detection and sequential order, trim, and translation pages
 * programmed only after the data they map.
 */
#include "ftl_tests.h"

/* ---- streams ---- */

static uint32_t sb_of(const struct fx *x, uint32_t lba)
{
	return fx_ppn_resident(x, lba) / x->lay.units_per_sb;
}

void test_streams(void **state)
{
	struct fx_geo g;
	struct fx *x;
	int32_t seq, rnd;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 4000, 32); /* long: sequential by itself */
	seq = fx_stream(x, FTL_STREAM_SEQ).sb;
	assert_true(seq >= (int32_t)x->lay.ckpt_sbs);
	assert_int_equal(fx_stream(x, FTL_STREAM_RAND).sb, -1);
	for (uint32_t u = 0; u < 32; u++)
		assert_int_equal(sb_of(x, 4000 + u), (uint32_t)seq);
	fx_write(x, 4032, 2); /* continues the last write */
	fx_write(x, 4034, 1);
	assert_int_equal(sb_of(x, 4033), (uint32_t)seq);
	assert_int_equal(sb_of(x, 4034), (uint32_t)seq);

	fx_write(x, 9000, 1); /* small, elsewhere: random */
	fx_write(x, 12, 4);
	fx_write(x, 700, 31);
	rnd = fx_stream(x, FTL_STREAM_RAND).sb;
	assert_true(rnd >= (int32_t)x->lay.ckpt_sbs);
	assert_int_not_equal(rnd, seq);
	assert_int_equal(sb_of(x, 9000), (uint32_t)rnd);
	assert_int_equal(sb_of(x, 13), (uint32_t)rnd);
	assert_int_equal(sb_of(x, 730), (uint32_t)rnd);
	fx_write(x, 731, 1); /* follows the random write: sequential again */
	assert_int_equal(sb_of(x, 731), (uint32_t)seq);
	assert_int_equal(fx_sb(x, seq).state, FTL_SB_OPEN);
	assert_int_equal(fx_sb(x, rnd).state, FTL_SB_OPEN);
	fx_verify(x, 4000, 32);
	fx_verify(x, 700, 32);
	fx_free(x);

	/* Without separation one stream takes everything. */
	{
		struct ftl_config cfg;

		fx_cfg_default(&cfg);
		cfg.stream_separation = false;
		x = fx_new(&g, &cfg, false);
		fx_write(x, 4000, 32);
		fx_write(x, 9000, 1);
		fx_write(x, 12, 4);
		seq = fx_stream(x, FTL_STREAM_SEQ).sb;
		assert_int_equal(fx_stream(x, FTL_STREAM_RAND).sb, -1);
		assert_int_equal(sb_of(x, 9000), (uint32_t)seq);
		assert_int_equal(sb_of(x, 12), (uint32_t)seq);
		assert_int_equal(fx_ppn_resident(x, 9000) + 1, fx_ppn_resident(x, 12));
		fx_free(x);
	}
}

/*
 * Sequential writes are placed in arrival order: one that waits for its
 * translation page holds back the next sequential write (whose page is
 * resident) instead of letting it take the flash pages first; a random
 * write is not held back.
 */
void test_seq_order(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct fx_req a = { 0 }, b = { 0 }, r = { 0 };
	static uint8_t ba[32 * FTL_UNIT], bb[32 * FTL_UNIT], br[FTL_UNIT];
	uint32_t la, lb; /* translation pages 3 and 4 */

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 2 * FTL_UNIT;
	cfg.mdc_enabled = false;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	la = 3 * x->lay.tp_entries;
	lb = 4 * x->lay.tp_entries;
	assert_true(lb + 64 <= x->cap);
	/* Translation page 3 on flash (evicted, then a flush) and out of the CMT; 4 resident. */
	fx_write(x, la + 100, 1);
	fx_write(x, 0, 1);
	fx_write(x, lb + 100, 1);
	fx_flush(x);
	assert_false(fx_tp(x, 3).cached);
	assert_true(fx_tp(x, 4).cached);
	for (uint32_t u = 0; u < 32; u++) {
		fx_fill(ba + (size_t)u * FTL_UNIT, la + u, 1000 + u);
		fx_fill(bb + (size_t)u * FTL_UNIT, lb + u, 2000 + u);
		x->shadow[la + u] = 1000 + u;
		x->shadow[lb + u] = 2000 + u;
	}
	fx_fill(br, lb + 500, 3000);
	x->shadow[lb + 500] = 3000;
	assert_int_equal(fx_submit(x, &a, FTL_IO_WRITE, la, 32, ba, false), 0);
	assert_int_equal(fx_submit(x, &b, FTL_IO_WRITE, lb, 32, bb, false), 0);
	/* A small write elsewhere is random: it goes on at once. */
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, lb + 500, 1, br, false), 0);
	assert_ptr_equal(fx_activity(x).seq_blocker, &a.io);
	assert_true(fx_activity(x).seq_waiting > 0);
	fx_wait(x, &a);
	fx_wait(x, &b);
	fx_wait(x, &r);
	assert_null(fx_activity(x).seq_blocker);
	assert_int_equal(fx_activity(x).seq_waiting, 0);
	fx_verify(x, la, 32);
	fx_verify(x, lb, 32);
	fx_verify(x, lb + 500, 1);
	/* One run on flash: b's units follow a's. */
	assert_int_equal(fx_ppn_resident(x, la + 31) + 1, fx_ppn_resident(x, lb));
	fx_free(x);
}

/* ---- trim ---- */

/* Valid data units: all valid bits but the translation pages'. */
static uint64_t valid_data(const struct fx *x)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < x->lay.nr_sb; i++)
		v += fx_sb(x, i).valid;
	for (uint32_t tp = 0; tp < x->lay.nr_tp; tp++)
		v -= fx_tp(x, tp).ppn != FTL_UNMAPPED;
	return v;
}

void test_trim(void **state)
{
	struct fx_geo g;
	struct fx *x;
	uint32_t ppn;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 1000, 32);
	fx_write(x, 1032, 32);
	fx_flush(x);
	assert_int_equal(valid_data(x), 64);
	ppn = fx_ppn_resident(x, 1010);
	assert_true(ftl_inspect_valid(x->f, ppn));
	fx_trim(x, 1010, 30); /* across the tp0/tp1 boundary */
	assert_int_equal(valid_data(x), 64 - 30);
	assert_false(ftl_inspect_valid(x->f, ppn));
	assert_int_equal(fx_ppn_resident(x, 1010), FTL_UNMAPPED);
	assert_int_equal(fx_ppn_resident(x, 1039), FTL_UNMAPPED);
	assert_int_not_equal(fx_ppn_resident(x, 1040), FTL_UNMAPPED);
	assert_int_equal(fx_stats(x).host_trims, 30);
	fx_verify(x, 1000, 32);
	fx_verify(x, 1032, 32);
	/* Unmapped ranges: no data changes. */
	fx_trim(x, 5000, 32);
	fx_trim(x, 1015, 5);
	assert_int_equal(valid_data(x), 64 - 30);
	fx_check_invariants(x, true);
	/* Written again after the trim. */
	fx_write(x, 1020, 4);
	fx_verify(x, 1000, 32);
	assert_int_equal(valid_data(x), 64 - 30 + 4);
	fx_flush(x);
	fx_verify(x, 1000, 32);
	fx_verify(x, 1032, 32);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* ---- write ordering: translation pages after the data they map ---- */

/*
 * A translation page written back while a unit it maps is still in a
 * filling buffer page must not reach flash first: a power loss in
 * between would leave the mapping pointing at a page never programmed.
 * Here trims write back translation page 0 (mapping LBA 5 to its new,
 * still buffered copy) and three others, filling a translation page; the
 * device then goes idle and the power goes.
 */
void test_tp_page_waits_for_data(void **state)
{
	static const uint32_t others[] = { 1024, 2048, 3072 };
	struct fx_geo g;
	struct fx *x;
	uint32_t v1;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	assert_int_equal(x->lay.slots, 4);
	fx_write(x, 5, 1);
	fx_write(x, 6, 1);
	for (int i = 0; i < 3; i++)
		fx_write(x, others[i], 1);
	fx_flush(x);
	v1 = x->shadow[5];
	fx_write(x, 5, 1); /* in a filling page of the random stream */
	assert_true(fx_stream(x, FTL_STREAM_RAND).filling);
	fx_trim(x, 6, 1); /* translation page 0 written back: LBA 5 -> buffer */
	for (int i = 0; i < 3; i++)
		fx_trim(x, others[i], 1);
	assert_false(fx_stream(x, FTL_STREAM_TP).filling); /* that page is full */
	assert_true(fx_stream(x, FTL_STREAM_RAND).filling); /* LBA 5's page is not */
	fx_drain(x);
	fx_crash(x);
	assert_int_equal(fx_ftl_create(x), 0);
	assert_int_equal(fx_io(x, FTL_IO_READ, 5, 1, x->rbuf, false), 0);
	if (fx_decode(x->rbuf, 5) != v1 && fx_decode(x->rbuf, 5) != x->shadow[5])
		fail_msg("lba 5 after the crash: version %d, flushed %u, last %u",
			 (int)fx_decode(x->rbuf, 5), v1, x->shadow[5]);
	fx_free(x);
}

/*
 * Held translation pages must not deadlock a small write buffer: with
 * five buffer pages, a filling data page that every translation page
 * waits for (LBA 5's, the host idle otherwise) and write-backs of every
 * translation page, the buffer runs out; the data page is then padded
 * and programmed, and everything completes.
 */
void test_tp_held_pages_unstick(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.write_buffer_pages = 1;
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	for (uint32_t tp = 0; tp < x->lay.nr_tp; tp++)
		fx_write(x, tp * x->lay.tp_entries + 7, 1);
	fx_flush(x);
	a = fx_stats(x);
	for (int round = 0; round < 3; round++) {
		/* One unit of every translation page, then trim them all. */
		for (uint32_t tp = 0; tp < x->lay.nr_tp; tp++)
			fx_write(x, tp * x->lay.tp_entries + 5, 1);
		for (uint32_t tp = 0; tp < x->lay.nr_tp; tp++)
			fx_trim(x, tp * x->lay.tp_entries + 7, 1);
		for (uint32_t tp = 0; tp < x->lay.nr_tp; tp++)
			fx_write(x, tp * x->lay.tp_entries + 7, 1);
	}
	b = fx_stats(x);
	assert_true(b.tp_pages_held > a.tp_pages_held);
	fx_flush(x);
	fx_crash(x);
	assert_int_equal(fx_ftl_create(x), 0);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_free(x);
}
