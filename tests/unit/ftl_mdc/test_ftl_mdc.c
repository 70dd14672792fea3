/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the mapping descriptor cache (ftl/mdc.c), through mdc.h
 * only. This file: creation, lookups at run edges, admission (min_run,
 * clamping, overlap, full cache), and main(). The others:
 *   mdc_invalidate.c  trim, split, drop, ranges over several descriptors,
 *                     a full cache
 *   mdc_scan.c        scans of mapping entries, exact counters in
 *                     scripted cases
 *   mdc_merge.c       merging of runs that continue a descriptor (both
 *                     directions, bridging two, partial overlaps, PPNs that
 *                     do not continue, min_run and a full cache judged on
 *                     the merged result, the 16-bit length limit, scans of
 *                     neighbouring translation pages), splits of merged
 *                     descriptors
 *   mdc_random.c      randomized runs against a shadow mapping that check
 *                     every descriptor after every step
 */
#include "mdc_tests.h"

/* ---- helpers ---- */

struct ftl_mdc *mdc_new(uint32_t budget, uint32_t min_run)
{
	struct ftl_mdc *m = NULL;

	assert_int_equal(ftl_mdc_create(budget, min_run, &m), 0);
	assert_non_null(m);
	return m;
}

void expect_descs(const struct ftl_mdc *m, const struct ftl_mdc_desc *want, uint32_t n)
{
	struct ftl_mdc_desc d;

	assert_int_equal(ftl_mdc_stats(m)->count, n);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(ftl_mdc_desc_at(m, i, &d), 0);
		if (d.lba != want[i].lba || d.ppn != want[i].ppn || d.len != want[i].len)
			fail_msg("desc %u: (%u, %u, %u), want (%u, %u, %u)", i, d.lba, d.ppn,
				 d.len, want[i].lba, want[i].ppn, want[i].len);
	}
	assert_int_equal(ftl_mdc_desc_at(m, n, &d), -ENOENT);
}

void expect_hit(struct ftl_mdc *m, uint32_t lba, uint32_t ppn)
{
	uint32_t got = 0;

	if (!ftl_mdc_lookup(m, lba, &got))
		fail_msg("lba %u: miss, want ppn %u", lba, ppn);
	if (got != ppn)
		fail_msg("lba %u: ppn %u, want %u", lba, got, ppn);
}

void expect_miss(struct ftl_mdc *m, uint32_t lba)
{
	uint32_t got = 0x12345678u;

	if (ftl_mdc_lookup(m, lba, &got))
		fail_msg("lba %u: hit (ppn %u), want miss", lba, got);
	assert_int_equal(got, 0x12345678u);
}

void expect_stats(const struct ftl_mdc *m, const struct ftl_mdc_stats *w)
{
	const struct ftl_mdc_stats *s = ftl_mdc_stats(m);

	assert_int_equal(s->lookups, w->lookups);
	assert_int_equal(s->hits, w->hits);
	assert_int_equal(s->offered, w->offered);
	assert_int_equal(s->admitted, w->admitted);
	assert_int_equal(s->rejected_short, w->rejected_short);
	assert_int_equal(s->rejected_overlap, w->rejected_overlap);
	assert_int_equal(s->rejected_full, w->rejected_full);
	assert_int_equal(s->replaced, w->replaced);
	assert_int_equal(s->superseded, w->superseded);
	assert_int_equal(s->merged, w->merged);
	assert_int_equal(s->invalidated, w->invalidated);
	assert_int_equal(s->split, w->split);
	assert_int_equal(s->count, w->count);
	assert_int_equal(s->capacity, w->capacity);
	assert_int_equal(s->covered_lbas, w->covered_lbas);
}

/* ---- creation and lookup ---- */

/* 1. Argument checks; capacity is budget / 10. */
static void test_create(void **state)
{
	static const struct {
		uint32_t budget, capacity;
	} caps[] = { { 10, 1 }, { 19, 1 }, { 20, 2 }, { 2048, 204 }, { 4096, 409 } };
	struct ftl_mdc *m = NULL;

	(void)state;
	assert_int_equal(ftl_mdc_create(0, 1, &m), -EINVAL);
	assert_int_equal(ftl_mdc_create(9, 1, &m), -EINVAL);
	assert_int_equal(ftl_mdc_create(2048, 0, &m), -EINVAL);
	assert_int_equal(ftl_mdc_create(2048, FTL_MDC_MAX_RUN + 1, &m), -EINVAL);
	assert_null(m);
	for (size_t i = 0; i < ARRAY_SIZE(caps); i++) {
		m = mdc_new(caps[i].budget, 1);
		assert_int_equal(ftl_mdc_stats(m)->capacity, caps[i].capacity);
		assert_int_equal(ftl_mdc_stats(m)->count, 0);
		ftl_mdc_destroy(m);
	}
	m = mdc_new(FTL_MDC_DEFAULT_BUDGET, FTL_MDC_MAX_RUN);
	assert_int_equal(ftl_mdc_stats(m)->capacity, 204);
	ftl_mdc_destroy(m);
	ftl_mdc_destroy(NULL);
}

/* 2. Hits and misses at the edges of runs, an empty cache, NULL ppn. */
static void test_lookup_edges(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 1);

	(void)state;
	expect_miss(m, 0);
	assert_true(ftl_mdc_offer(m, 100, 5000, 8));
	assert_true(ftl_mdc_offer(m, 108, 9000, 2)); /* adjacent, not an overlap */
	assert_true(ftl_mdc_offer(m, 0, 7, 1));
	expect_hit(m, 0, 7);
	expect_miss(m, 1);
	expect_miss(m, 99);
	expect_hit(m, 100, 5000);
	expect_hit(m, 103, 5003);
	expect_hit(m, 107, 5007);
	expect_hit(m, 108, 9000);
	expect_hit(m, 109, 9001);
	expect_miss(m, 110);
	expect_miss(m, UINT32_MAX);
	assert_true(ftl_mdc_lookup(m, 105, NULL));
	assert_int_equal(ftl_mdc_stats(m)->lookups, 12);
	assert_int_equal(ftl_mdc_stats(m)->hits, 7);
	ftl_mdc_destroy(m);
}

/* ---- admission ---- */

/* 3. min_run, and clamping to 16 bits and to the LBA and PPN spaces. */
static void test_offer_min_run_and_clamp(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 4);
	const struct ftl_mdc_desc want[] = {
		{ 1000, 0, 4 },
		{ 2000, 100, FTL_MDC_MAX_RUN },
		{ 100000, 0xfffffffbu, 4 }, /* ends just below FTL_UNMAPPED */
		{ 0xfffffffcu, 50, 4 }, /* ends at the top of the LBA space */
	};

	(void)state;
	assert_false(ftl_mdc_offer(m, 10, 0, 0));
	assert_false(ftl_mdc_offer(m, 10, 0, 3));
	assert_false(ftl_mdc_offer(m, 10, FTL_UNMAPPED, 100)); /* clamps to 0 */
	assert_false(ftl_mdc_offer(m, 10, 0xfffffffdu, 100)); /* clamps to 2 */
	assert_false(ftl_mdc_offer(m, 0xfffffffeu, 0, 100)); /* clamps to 2 */
	assert_int_equal(ftl_mdc_stats(m)->rejected_short, 5);
	assert_true(ftl_mdc_offer(m, 1000, 0, 4));
	assert_true(ftl_mdc_offer(m, 2000, 100, 70000));
	assert_true(ftl_mdc_offer(m, 100000, 0xfffffffbu, 100));
	assert_true(ftl_mdc_offer(m, 0xfffffffcu, 50, 100));
	expect_descs(m, want, ARRAY_SIZE(want));
	expect_hit(m, 2000 + 65534, 100 + 65534);
	expect_miss(m, 2000 + 65535);
	expect_hit(m, 100003, 0xfffffffeu);
	expect_hit(m, UINT32_MAX, 53);
	assert_int_equal(ftl_mdc_stats(m)->covered_lbas, 4 + 65535 + 4 + 4);
	ftl_mdc_destroy(m);
}

/* 4. Full cache: a strictly longer run evicts the shortest (lowest LBA among
 * equals); equal and shorter runs are dropped. */
static void test_offer_full(void **state)
{
	struct ftl_mdc *m = mdc_new(30, 1);
	const struct ftl_mdc_desc want1[] = { { 100, 1100, 4 }, { 200, 1200, 7 }, { 300, 1300, 5 } };
	const struct ftl_mdc_desc want2[] = { { 200, 1200, 7 }, { 300, 1300, 5 }, { 400, 1400, 6 } };
	const struct ftl_mdc_desc want3[] = { { 50, 1050, 8 }, { 200, 1200, 7 }, { 400, 1400, 6 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 0, 1000, 4));
	assert_true(ftl_mdc_offer(m, 100, 1100, 4));
	assert_true(ftl_mdc_offer(m, 200, 1200, 7));
	assert_false(ftl_mdc_offer(m, 300, 1300, 4)); /* equal to the shortest */
	assert_false(ftl_mdc_offer(m, 300, 1300, 2));
	assert_int_equal(ftl_mdc_stats(m)->rejected_full, 2);
	assert_true(ftl_mdc_offer(m, 300, 1300, 5)); /* evicts LBA 0, not 100 */
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_miss(m, 0);
	assert_true(ftl_mdc_offer(m, 400, 1400, 6)); /* evicts 100 */
	expect_descs(m, want2, ARRAY_SIZE(want2));
	assert_true(ftl_mdc_offer(m, 50, 1050, 8)); /* evicts 300, inserts before */
	expect_descs(m, want3, ARRAY_SIZE(want3));
	assert_int_equal(ftl_mdc_stats(m)->replaced, 3);
	assert_int_equal(ftl_mdc_stats(m)->count, 3);
	ftl_mdc_destroy(m);
}

/* 5. Overlapping offers on other diagonals: replace all overlapped
 * descriptors when at least as long as the longest of them, else rejected;
 * no eviction needed when full. (Same-diagonal overlaps merge: test 17.) */
static void test_offer_overlap(void **state)
{
	struct ftl_mdc *m = mdc_new(30, 1);
	const struct ftl_mdc_desc want1[] = { { 95, 4095, 10 } };
	const struct ftl_mdc_desc want2[] = { { 0, 3000, 20 }, { 95, 4095, 10 } };
	const struct ftl_mdc_desc want3[] = { { 0, 3000, 20 }, { 95, 4095, 10 }, { 200, 5, 2 } };
	const struct ftl_mdc_desc want4[] = { { 0, 3000, 20 }, { 90, 2090, 114 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 100, 2100, 10));
	assert_false(ftl_mdc_offer(m, 105, 7105, 8)); /* shorter */
	assert_false(ftl_mdc_offer(m, 109, 7, 9)); /* overlaps one LBA */
	assert_int_equal(ftl_mdc_stats(m)->rejected_overlap, 2);
	assert_true(ftl_mdc_offer(m, 95, 4095, 10)); /* equal: replaces */
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_miss(m, 105);

	/* Over two descriptors: longer than one but not the other is not
	 * enough; at least as long as both replaces both. */
	assert_true(ftl_mdc_offer(m, 0, 1000, 10));
	assert_true(ftl_mdc_offer(m, 12, 1012, 5));
	assert_false(ftl_mdc_offer(m, 5, 3005, 9)); /* [5, 14) */
	assert_int_equal(ftl_mdc_stats(m)->rejected_overlap, 3);
	assert_true(ftl_mdc_offer(m, 0, 3000, 20));
	expect_descs(m, want2, ARRAY_SIZE(want2));

	/* Full, and an overlapping run replaces two without any eviction. */
	assert_true(ftl_mdc_offer(m, 200, 5, 2));
	expect_descs(m, want3, ARRAY_SIZE(want3));
	assert_true(ftl_mdc_offer(m, 90, 2090, 114));
	expect_descs(m, want4, ARRAY_SIZE(want4));
	assert_int_equal(ftl_mdc_stats(m)->replaced, 0);
	assert_int_equal(ftl_mdc_stats(m)->superseded, 1 + 2 + 2);
	assert_int_equal(ftl_mdc_stats(m)->rejected_full, 0);
	assert_int_equal(ftl_mdc_stats(m)->merged, 0);
	ftl_mdc_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_lookup_edges),
		cmocka_unit_test(test_offer_min_run_and_clamp),
		cmocka_unit_test(test_offer_full),
		cmocka_unit_test(test_offer_overlap),
		cmocka_unit_test(test_invalidate_split),
		cmocka_unit_test(test_invalidate_edges),
		cmocka_unit_test(test_invalidate_short_pieces),
		cmocka_unit_test(test_invalidate_several),
		cmocka_unit_test(test_invalidate_split_full),
		cmocka_unit_test(test_scan_runs),
		cmocka_unit_test(test_scan_hot_and_min_run),
		cmocka_unit_test(test_scan_long_and_top),
		cmocka_unit_test(test_stats_script),
		cmocka_unit_test(test_random_shadow),
		cmocka_unit_test(test_merge_both_directions),
		cmocka_unit_test(test_merge_needs_continuing_ppns),
		cmocka_unit_test(test_merge_admission),
		cmocka_unit_test(test_merge_max_run),
		cmocka_unit_test(test_merge_scans),
		cmocka_unit_test(test_merge_split),
		cmocka_unit_test(test_merge_random_overwrite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
