/* SPDX-License-Identifier: BSD-3-Clause */
/* MDC invalidation: trims, splits, short pieces, several descriptors, a full cache. */
#include "mdc_tests.h"

/* ---- invalidation ---- */

/* 6. A range in the middle splits a descriptor; both pieces map right. */
void test_invalidate_split(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 2);
	const struct ftl_mdc_desc want[] = { { 100, 1000, 8 }, { 112, 1012, 8 } };
	const struct ftl_mdc_desc want_gc[] = { { 100, 1000, 3 }, { 104, 1004, 4 },
						{ 112, 1012, 8 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 100, 1000, 20));
	ftl_mdc_invalidate(m, 108, 4);
	expect_descs(m, want, ARRAY_SIZE(want));
	expect_hit(m, 100, 1000);
	expect_hit(m, 107, 1007);
	expect_miss(m, 108);
	expect_miss(m, 111);
	expect_hit(m, 112, 1012);
	expect_hit(m, 119, 1019);
	expect_miss(m, 120);
	/* A GC move of one mapping is invalidate(lba, 1). */
	ftl_mdc_invalidate(m, 103, 1);
	expect_descs(m, want_gc, ARRAY_SIZE(want_gc));
	expect_hit(m, 104, 1004);
	assert_int_equal(ftl_mdc_stats(m)->split, 2);
	assert_int_equal(ftl_mdc_stats(m)->invalidated, 0);
	assert_int_equal(ftl_mdc_stats(m)->covered_lbas, 15);
	ftl_mdc_destroy(m);
}

/* 7. Ranges over an edge trim; a range missing everything changes nothing;
 * a range covering the whole descriptor removes it. */
void test_invalidate_edges(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 1);
	const struct ftl_mdc_desc want[] = { { 103, 1003, 15 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 100, 1000, 20));
	ftl_mdc_invalidate(m, 98, 5); /* [98, 103) */
	ftl_mdc_invalidate(m, 118, 5); /* [118, 123) */
	ftl_mdc_invalidate(m, 0, 103); /* ends where it starts */
	ftl_mdc_invalidate(m, 118, 1000);
	ftl_mdc_invalidate(m, 110, 0);
	expect_descs(m, want, ARRAY_SIZE(want));
	expect_miss(m, 102);
	expect_hit(m, 103, 1003);
	expect_hit(m, 117, 1017);
	expect_miss(m, 118);
	assert_int_equal(ftl_mdc_stats(m)->split, 0);
	assert_int_equal(ftl_mdc_stats(m)->invalidated, 0);
	ftl_mdc_invalidate(m, 103, 15);
	expect_descs(m, NULL, 0);
	assert_int_equal(ftl_mdc_stats(m)->invalidated, 1);
	/* Up to the top of the LBA space. */
	assert_true(ftl_mdc_offer(m, 0xfffffff0u, 0, 16));
	ftl_mdc_invalidate(m, 0xfffffff8u, UINT32_MAX);
	expect_hit(m, 0xfffffff7u, 7);
	expect_miss(m, 0xfffffff8u);
	expect_miss(m, UINT32_MAX);
	ftl_mdc_destroy(m);
}

/* 8. Pieces shorter than min_run are dropped. */
void test_invalidate_short_pieces(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 4);
	const struct ftl_mdc_desc want1[] = { { 105, 1005, 15 } };
	const struct ftl_mdc_desc want2[] = { { 105, 1005, 11 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 100, 1000, 20));
	ftl_mdc_invalidate(m, 103, 2); /* left piece of 3 dropped */
	expect_descs(m, want1, ARRAY_SIZE(want1));
	ftl_mdc_invalidate(m, 116, 1); /* right piece of 3 dropped */
	expect_descs(m, want2, ARRAY_SIZE(want2));
	assert_int_equal(ftl_mdc_stats(m)->split, 0);
	assert_int_equal(ftl_mdc_stats(m)->invalidated, 0);
	ftl_mdc_invalidate(m, 108, 5); /* 3 + 3: both dropped */
	expect_descs(m, NULL, 0);
	assert_int_equal(ftl_mdc_stats(m)->invalidated, 1);
	assert_int_equal(ftl_mdc_stats(m)->covered_lbas, 0);
	ftl_mdc_destroy(m);
}

/* 9. A range over several descriptors: the first and last are trimmed, the
 * ones inside removed, and pieces below min_run dropped. */
void test_invalidate_several(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 2);
	const struct ftl_mdc_desc want1[] = { { 0, 500, 5 }, { 65, 805, 5 }, { 80, 980, 10 } };
	const struct ftl_mdc_desc want2[] = { { 0, 500, 5 } };

	(void)state;
	for (uint32_t i = 0; i < 5; i++)
		assert_true(ftl_mdc_offer(m, i * 20, 500 + i * 100, 10));
	assert_true(ftl_mdc_offer(m, 80, 980, 10));
	ftl_mdc_invalidate(m, 5, 60); /* [5, 65) */
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_hit(m, 4, 504);
	expect_miss(m, 5);
	expect_miss(m, 25);
	expect_miss(m, 64);
	expect_hit(m, 65, 805);
	assert_int_equal(ftl_mdc_stats(m)->invalidated, 2);
	ftl_mdc_invalidate(m, 66, 23); /* [66, 89): 1 and 1 left, both dropped */
	expect_descs(m, want2, ARRAY_SIZE(want2));
	assert_int_equal(ftl_mdc_stats(m)->invalidated, 4);
	assert_int_equal(ftl_mdc_stats(m)->split, 0);
	ftl_mdc_destroy(m);
}

/* 10. A split in a full cache keeps only the longer piece (the lower one
 * when they are equal), unless another descriptor is shorter than both
 * pieces: that one is evicted. */
void test_invalidate_split_full(void **state)
{
	struct ftl_mdc *m = mdc_new(10, 1);
	const struct ftl_mdc_desc want1[] = { { 107, 1007, 13 } };
	const struct ftl_mdc_desc want2[] = { { 107, 1007, 6 } };
	const struct ftl_mdc_desc want3[] = { { 0, 0, 2 }, { 8, 8, 2 } };
	const struct ftl_mdc_desc want4[] = { { 0, 0, 50 }, { 51, 51, 49 } };
	const struct ftl_mdc_desc want5[] = { { 11, 11, 39 }, { 51, 51, 49 } };
	const struct ftl_mdc_desc want6[] = { { 100, 1100, 10 }, { 112, 1112, 8 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 100, 1000, 20));
	ftl_mdc_invalidate(m, 105, 2);
	expect_descs(m, want1, ARRAY_SIZE(want1));
	ftl_mdc_invalidate(m, 113, 1); /* 6 and 6 */
	expect_descs(m, want2, ARRAY_SIZE(want2));
	assert_int_equal(ftl_mdc_stats(m)->split, 0);
	assert_int_equal(ftl_mdc_stats(m)->invalidated, 0);
	ftl_mdc_destroy(m);

	/* With a free slot the same split keeps both. */
	m = mdc_new(20, 1);
	assert_true(ftl_mdc_offer(m, 0, 0, 10));
	ftl_mdc_invalidate(m, 2, 6);
	expect_descs(m, want3, ARRAY_SIZE(want3));
	assert_int_equal(ftl_mdc_stats(m)->split, 1);
	ftl_mdc_destroy(m);

	/* Full, and another descriptor shorter than both pieces: it goes. */
	m = mdc_new(20, 1);
	assert_true(ftl_mdc_offer(m, 0, 0, 100));
	assert_true(ftl_mdc_offer(m, 500, 5000, 10));
	ftl_mdc_invalidate(m, 50, 1);
	expect_descs(m, want4, ARRAY_SIZE(want4));
	assert_int_equal(ftl_mdc_stats(m)->split, 1);
	assert_int_equal(ftl_mdc_stats(m)->replaced, 1);
	/* Not shorter than the shorter piece: only the longer piece stays. */
	ftl_mdc_invalidate(m, 10, 1);
	expect_descs(m, want5, ARRAY_SIZE(want5));
	assert_int_equal(ftl_mdc_stats(m)->split, 1);
	assert_int_equal(ftl_mdc_stats(m)->replaced, 1);
	/* Before the split one: indexes shift right. */
	ftl_mdc_clear(m);
	assert_true(ftl_mdc_offer(m, 0, 7000, 3));
	assert_true(ftl_mdc_offer(m, 100, 1100, 20));
	ftl_mdc_invalidate(m, 110, 2);
	expect_descs(m, want6, ARRAY_SIZE(want6));
	expect_hit(m, 109, 1109);
	expect_hit(m, 112, 1112);
	expect_miss(m, 0);
	ftl_mdc_destroy(m);
}
