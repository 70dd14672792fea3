/* SPDX-License-Identifier: BSD-3-Clause */
/* MDC merging of runs that continue a descriptor, and splits of merged ones. */
#include "mdc_tests.h"

/* ---- merging ---- */

/* 16. A run starting where a descriptor ends, PPNs going on, extends it;
 * so does one ending where a descriptor starts; a run between two joins
 * them; the cache stays one descriptor. */
void test_merge_both_directions(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 32);
	const struct ftl_mdc_desc want1[] = { { 100, 1000, 64 } };
	const struct ftl_mdc_desc want2[] = { { 68, 968, 96 } };
	const struct ftl_mdc_desc want3[] = { { 68, 968, 96 }, { 200, 1100, 40 } };
	const struct ftl_mdc_desc want4[] = { { 68, 968, 172 } };
	struct ftl_mdc_stats w = { .capacity = 204 };

	(void)state;
	/* Forward: [100,132) then [132,164). */
	assert_true(ftl_mdc_offer(m, 100, 1000, 32));
	assert_true(ftl_mdc_offer(m, 132, 1032, 32));
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_hit(m, 131, 1031);
	expect_hit(m, 132, 1032);
	expect_hit(m, 163, 1063);
	expect_miss(m, 164);
	/* Backward: [68,100) ends where the descriptor starts. */
	assert_true(ftl_mdc_offer(m, 68, 968, 32));
	expect_descs(m, want2, ARRAY_SIZE(want2));
	expect_hit(m, 68, 968);
	expect_hit(m, 99, 999);
	expect_hit(m, 100, 1000);
	expect_miss(m, 67);
	/* Bridge: [164,200) joins [68,164) and [200,240). */
	assert_true(ftl_mdc_offer(m, 200, 1100, 40));
	expect_descs(m, want3, ARRAY_SIZE(want3));
	assert_true(ftl_mdc_offer(m, 164, 1064, 36));
	expect_descs(m, want4, ARRAY_SIZE(want4));
	expect_hit(m, 199, 1099);
	expect_hit(m, 200, 1100);
	expect_hit(m, 239, 1139);
	w.offered = 5;
	w.admitted = 5;
	w.merged = 1 + 1 + 2;
	w.count = 1;
	w.covered_lbas = 172;
	w.lookups = 11;
	w.hits = 9;
	expect_stats(m, &w);
	ftl_mdc_destroy(m);
}

/* 17. No merge when the PPNs do not continue (a jump, one off either way,
 * backward too); an overlap on the same diagonal merges, on another one it
 * follows the overlap rule. */
void test_merge_needs_continuing_ppns(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 4);
	const struct ftl_mdc_desc want1[] = {
		{ 60, 9000, 10 }, { 70, 999, 30 }, { 100, 1000, 32 }, { 132, 2000, 32 },
		{ 164, 2033, 8 },
	};
	const struct ftl_mdc_desc want2[] = { { 300, 5000, 120 } };
	const struct ftl_mdc_desc want3[] = { { 300, 5000, 120 }, { 420, 7000, 10 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 100, 1000, 32));
	assert_true(ftl_mdc_offer(m, 132, 2000, 32)); /* a jump */
	assert_true(ftl_mdc_offer(m, 164, 2033, 8)); /* one too far */
	assert_true(ftl_mdc_offer(m, 70, 999, 30)); /* ends at 1029, not 999 */
	assert_true(ftl_mdc_offer(m, 60, 9000, 10)); /* touches [70,100) */
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_hit(m, 131, 1031);
	expect_hit(m, 132, 2000);
	expect_hit(m, 99, 1028);
	assert_int_equal(ftl_mdc_stats(m)->merged, 0);
	ftl_mdc_clear(m);

	/* Same diagonal, partly overlapping on both sides: one descriptor. */
	assert_true(ftl_mdc_offer(m, 300, 5000, 50));
	assert_true(ftl_mdc_offer(m, 380, 5080, 40));
	assert_true(ftl_mdc_offer(m, 340, 5040, 50)); /* [340,390) */
	expect_descs(m, want2, ARRAY_SIZE(want2));
	assert_int_equal(ftl_mdc_stats(m)->merged, 2);
	/* Held already: admitted, nothing changes. */
	assert_true(ftl_mdc_offer(m, 310, 5010, 5));
	expect_descs(m, want2, ARRAY_SIZE(want2));
	assert_int_equal(ftl_mdc_stats(m)->merged, 3);
	/* Another diagonal overlapping: shorter is rejected, not merged. */
	assert_false(ftl_mdc_offer(m, 410, 7000, 20));
	assert_int_equal(ftl_mdc_stats(m)->rejected_overlap, 1);
	/* Touching on another diagonal: both stay. */
	assert_true(ftl_mdc_offer(m, 420, 7000, 10));
	expect_descs(m, want3, ARRAY_SIZE(want3));
	assert_int_equal(ftl_mdc_stats(m)->merged, 3);
	assert_int_equal(ftl_mdc_stats(m)->superseded, 0);
	ftl_mdc_destroy(m);
}

/* 18. min_run and a full cache judge the merged result. */
void test_merge_admission(void **state)
{
	struct ftl_mdc *m = mdc_new(20, 32);
	const struct ftl_mdc_desc want1[] = { { 0, 0, 40 }, { 1000, 5000, 36 } };
	const struct ftl_mdc_desc want2[] = { { 0, 0, 40 }, { 1000, 5000, 100 } };
	const struct ftl_mdc_desc want3[] = { { 0, 0, 40 }, { 996, 4996, 104 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 0, 0, 40));
	assert_true(ftl_mdc_offer(m, 1000, 5000, 32));
	/* Full. A run of 4 is short alone but merges into 36. */
	assert_true(ftl_mdc_offer(m, 1032, 5032, 4));
	expect_descs(m, want1, ARRAY_SIZE(want1));
	/* A run of 4 elsewhere is short. */
	assert_false(ftl_mdc_offer(m, 2000, 9000, 4));
	assert_int_equal(ftl_mdc_stats(m)->rejected_short, 1);
	/* Full: a run not longer than the shortest is rejected alone ... */
	assert_false(ftl_mdc_offer(m, 3000, 9000, 36));
	assert_int_equal(ftl_mdc_stats(m)->rejected_full, 1);
	/* ... but merging needs no slot, whatever the length. */
	assert_true(ftl_mdc_offer(m, 1036, 5036, 64));
	expect_descs(m, want2, ARRAY_SIZE(want2));
	assert_true(ftl_mdc_offer(m, 996, 4996, 4)); /* backward, short alone */
	expect_descs(m, want3, ARRAY_SIZE(want3));
	/* A new run still needs to be longer than the shortest to get a slot. */
	assert_false(ftl_mdc_offer(m, 3000, 9000, 40));
	assert_true(ftl_mdc_offer(m, 3000, 9000, 41)); /* evicts [0,40) */
	expect_miss(m, 0);
	expect_hit(m, 996, 4996);
	assert_int_equal(ftl_mdc_stats(m)->replaced, 1);
	assert_int_equal(ftl_mdc_stats(m)->rejected_full, 2);
	ftl_mdc_destroy(m);
}

/* 19. A merged descriptor never exceeds 16 bits: the lower side first,
 * then the upper, else the run stays a descriptor of its own. */
void test_merge_max_run(void **state)
{
	const uint32_t max = FTL_MDC_MAX_RUN;
	struct ftl_mdc *m = mdc_new(2048, 1);
	const struct ftl_mdc_desc want1[] = { { 0, 0, max }, { max, max, 10 } };
	const struct ftl_mdc_desc want2[] = { { 0, 0, 65100 }, { 65100, 65100, 1000 } };
	const struct ftl_mdc_desc want3[] = { { 0, 0, 65500 }, { 65500, 65500, 200 } };
	const struct ftl_mdc_desc want4[] = { { 0, 0, max }, { max, max, 1 }, { max + 1, max + 1, max } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 0, 0, max));
	assert_true(ftl_mdc_offer(m, max, max, 10)); /* would be max + 10 */
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_hit(m, max - 1, max - 1);
	expect_hit(m, max, max);
	ftl_mdc_clear(m);

	/* Both sides too long, the lower one fits. */
	assert_true(ftl_mdc_offer(m, 0, 0, 65000));
	assert_true(ftl_mdc_offer(m, 65100, 65100, 1000));
	assert_true(ftl_mdc_offer(m, 65000, 65000, 100));
	expect_descs(m, want2, ARRAY_SIZE(want2));
	ftl_mdc_clear(m);

	/* Both and the lower too long: the upper one. */
	assert_true(ftl_mdc_offer(m, 0, 0, 65500));
	assert_true(ftl_mdc_offer(m, 65600, 65600, 100));
	assert_true(ftl_mdc_offer(m, 65500, 65500, 100));
	expect_descs(m, want3, ARRAY_SIZE(want3));
	ftl_mdc_clear(m);

	/* Neither: a run of 1 between two full descriptors. */
	assert_true(ftl_mdc_offer(m, 0, 0, max));
	assert_true(ftl_mdc_offer(m, max + 1, max + 1, max));
	assert_true(ftl_mdc_offer(m, max, max, 1));
	expect_descs(m, want4, ARRAY_SIZE(want4));
	expect_hit(m, max, max);
	expect_hit(m, 2 * max, 2 * max);
	ftl_mdc_destroy(m);
}

uint32_t *seq_entries(uint32_t first, uint32_t n, uint32_t off)
{
	uint32_t *e = malloc((size_t)n * sizeof(*e));

	assert_non_null(e);
	for (uint32_t i = 0; i < n; i++)
		e[i] = first + i + off;
	return e;
}

/* 20. Scans of neighbouring translation pages of a sequentially written
 * range merge into one descriptor, in any order; a page whose first LBA is
 * not hot is not offered and leaves a gap. */
void test_merge_scans(void **state)
{
	static const uint32_t order[] = { 2, 0, 3, 1, 5 };
	struct ftl_mdc *m = mdc_new(2048, 32);
	uint32_t *e = seq_entries(0, 6 * TP_N, 7000);
	struct hot_ctx h = { .from = 0 };
	const struct ftl_mdc_desc want1[] = { { 0, 7000, 4 * TP_N }, { 5 * TP_N, 7000 + 5 * TP_N, TP_N } };
	const struct ftl_mdc_desc want2[] = { { 0, 7000, 6 * TP_N } };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(order); i++) {
		uint32_t tp = order[i];

		assert_int_equal(ftl_mdc_scan(m, tp * TP_N, e + tp * TP_N, TP_N, hot_from_cb, &h), 1);
	}
	expect_descs(m, want1, ARRAY_SIZE(want1));
	assert_int_equal(ftl_mdc_stats(m)->merged, 3); /* 0 into 2, 3, then 1 bridging */
	/* TP 4 not hot: nothing offered. */
	h.from = 5 * TP_N;
	assert_int_equal(ftl_mdc_scan(m, 4 * TP_N, e + 4 * TP_N, TP_N, hot_from_cb, &h), 0);
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_miss(m, 4 * TP_N);
	h.from = 0;
	assert_int_equal(ftl_mdc_scan(m, 4 * TP_N, e + 4 * TP_N, TP_N, hot_from_cb, &h), 1);
	expect_descs(m, want2, ARRAY_SIZE(want2));
	for (uint32_t lba = 0; lba < 6 * TP_N; lba += 97)
		expect_hit(m, lba, lba + 7000);
	expect_hit(m, 6 * TP_N - 1, 6 * TP_N - 1 + 7000);
	expect_miss(m, 6 * TP_N);
	free(e);
	ftl_mdc_destroy(m);
}

/* 21. Overwrites cut a merged descriptor: in the middle (two pieces), at
 * the first and at the last LBA; a rescan of the page puts back what still
 * maps in sequence, around the new mapping. */
void test_merge_split(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 8);
	uint32_t *e = seq_entries(0, 4 * TP_N, 100);
	const uint32_t mid = 2000;
	const struct ftl_mdc_desc want1[] = { { 0, 100, mid }, { mid + 1, mid + 101, 4 * TP_N - mid - 1 } };
	const struct ftl_mdc_desc want2[] = { { 1, 101, mid - 1 }, { mid + 1, mid + 101, 4 * TP_N - mid - 2 } };
	const struct ftl_mdc_desc want3[] = { { 1, 101, mid - 1 }, { mid, 800000, 16 },
					      { mid + 16, mid + 116, 4 * TP_N - mid - 17 } };

	(void)state;
	for (uint32_t tp = 4; tp-- > 0;)
		ftl_mdc_scan(m, tp * TP_N, e + tp * TP_N, TP_N, NULL, NULL);
	assert_int_equal(ftl_mdc_stats(m)->count, 1);
	/* Middle: LBA 2000 rewritten elsewhere. */
	ftl_mdc_invalidate(m, mid, 1);
	e[mid] = 900000;
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_hit(m, mid - 1, mid + 99);
	expect_miss(m, mid);
	expect_hit(m, mid + 1, mid + 101);
	assert_int_equal(ftl_mdc_stats(m)->split, 1);
	/* Both ends. */
	ftl_mdc_invalidate(m, 0, 1);
	e[0] = 900001;
	ftl_mdc_invalidate(m, 4 * TP_N - 1, 1);
	e[4 * TP_N - 1] = 900002;
	expect_descs(m, want2, ARRAY_SIZE(want2));
	expect_miss(m, 0);
	expect_hit(m, 1, 101);
	expect_hit(m, 4 * TP_N - 2, 4 * TP_N - 2 + 100);
	expect_miss(m, 4 * TP_N - 1);
	/* Rescanning every page: the pieces hold their runs; the new mappings
	 * are runs of 1, too short; nothing joins across LBA 2000. */
	for (uint32_t tp = 0; tp < 4; tp++)
		ftl_mdc_scan(m, tp * TP_N, e + tp * TP_N, TP_N, NULL, NULL);
	expect_descs(m, want2, ARRAY_SIZE(want2));
	/* 16 units written at 2000, elsewhere: a run of their own between the
	 * pieces (another diagonal), which the rescan keeps. */
	ftl_mdc_invalidate(m, mid, 16);
	for (uint32_t k = 0; k < 16; k++)
		e[mid + k] = 800000 + k;
	ftl_mdc_scan(m, TP_N, e + TP_N, TP_N, NULL, NULL);
	expect_descs(m, want3, ARRAY_SIZE(want3));
	expect_hit(m, mid - 1, mid + 99);
	expect_hit(m, mid, 800000);
	expect_hit(m, mid + 15, 800015);
	expect_hit(m, mid + 16, mid + 116);
	free(e);
	ftl_mdc_destroy(m);
}
