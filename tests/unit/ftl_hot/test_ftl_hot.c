/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for hot region tracking (ftl/hot.c), through hot.h only:
 * argument checks, region math (short and empty trailing regions, the top
 * of the LBA space), counting once per region touched, top-N ranking with
 * ties, zero-count regions, when the hot set is recomputed, decay, and the
 * hot set following a change of workload.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "hot.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NEVER (1u << 30) /* a decay interval no test reaches */

static struct ftl_hot *hot_new(uint64_t nr_lbas, uint32_t nr_regions, uint32_t top_n,
			       uint32_t decay_interval)
{
	struct ftl_hot *h = NULL;

	assert_int_equal(ftl_hot_create(nr_lbas, nr_regions, top_n, decay_interval, &h), 0);
	assert_non_null(h);
	return h;
}

/* The hot set is exactly @want, hottest first. */
static void expect_top(const struct ftl_hot *h, const uint32_t *want, uint32_t n)
{
	uint32_t got[64];
	uint32_t k = ftl_hot_top(h, got, ARRAY_SIZE(got));

	assert_int_equal(k, n);
	for (uint32_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail_msg("top[%u] = %u, want %u", i, got[i], want[i]);
}

/* Read region @r (its first LBA) @times times. */
static void read_region(struct ftl_hot *h, uint32_t r, uint32_t times)
{
	uint32_t first;

	ftl_hot_region_range(h, r, &first, NULL);
	for (uint32_t i = 0; i < times; i++)
		ftl_hot_read(h, first, 1);
}

static void expect_range(const struct ftl_hot *h, uint32_t r, uint32_t first, uint32_t nr)
{
	uint32_t f = 0xdead, n = 0xdead;

	ftl_hot_region_range(h, r, &f, &n);
	if (f != first || n != nr)
		fail_msg("region %u: [%u, +%u), want [%u, +%u)", r, f, n, first, nr);
}

/* 1. Argument checks. */
static void test_create(void **state)
{
	struct ftl_hot *h = NULL;

	(void)state;
	assert_int_equal(ftl_hot_create(0, 128, 4, 100, &h), -EINVAL);
	assert_int_equal(ftl_hot_create(1000, 0, 0, 100, &h), -EINVAL);
	assert_int_equal(ftl_hot_create(1000, 128, 0, 100, &h), -EINVAL);
	assert_int_equal(ftl_hot_create(1000, 128, 4, 0, &h), -EINVAL);
	assert_int_equal(ftl_hot_create(1000, 8, 9, 100, &h), -EINVAL);
	assert_int_equal(ftl_hot_create(UINT64_C(1) << 32, 128, 4, 100, &h), -EINVAL);
	assert_null(h);
	h = hot_new(1000, 8, 8, 1);
	ftl_hot_destroy(h);
	ftl_hot_destroy(NULL);
}

/* 2. Region size is ceil(nr_lbas / nr_regions); the last region may be
 * short, trailing ones empty; out of range maps to nr_regions. */
static void test_region_math(void **state)
{
	struct ftl_hot *h;

	(void)state;
	h = hot_new(1003, 4, 1, NEVER); /* 251 per region, last 250 */
	assert_int_equal(ftl_hot_region_of(h, 0), 0);
	assert_int_equal(ftl_hot_region_of(h, 250), 0);
	assert_int_equal(ftl_hot_region_of(h, 251), 1);
	assert_int_equal(ftl_hot_region_of(h, 752), 2);
	assert_int_equal(ftl_hot_region_of(h, 753), 3);
	assert_int_equal(ftl_hot_region_of(h, 1002), 3);
	assert_int_equal(ftl_hot_region_of(h, 1003), 4);
	assert_int_equal(ftl_hot_region_of(h, UINT32_MAX), 4);
	expect_range(h, 0, 0, 251);
	expect_range(h, 1, 251, 251);
	expect_range(h, 2, 502, 251);
	expect_range(h, 3, 753, 250);
	expect_range(h, 4, 1003, 0);
	ftl_hot_region_range(h, 3, NULL, NULL);
	ftl_hot_destroy(h);

	h = hot_new(UINT64_C(1) << 20, FTL_HOT_DEFAULT_REGIONS, 8, NEVER);
	expect_range(h, 127, 127u << 13, 1u << 13);
	assert_int_equal(ftl_hot_region_of(h, (1u << 13) - 1), 0);
	assert_int_equal(ftl_hot_region_of(h, 1u << 13), 1);
	ftl_hot_destroy(h);

	/* 10 LBAs in 7 regions of 2: regions 5 and 6 are empty. */
	h = hot_new(10, 7, 7, NEVER);
	expect_range(h, 4, 8, 2);
	expect_range(h, 5, 10, 0);
	expect_range(h, 6, 10, 0);
	assert_int_equal(ftl_hot_region_of(h, 9), 4);
	ftl_hot_destroy(h);

	/* The whole uint32_t LBA space. */
	h = hot_new(UINT32_MAX, 128, 1, NEVER);
	expect_range(h, 0, 0, 1u << 25);
	expect_range(h, 127, 127u << 25, (1u << 25) - 1);
	assert_int_equal(ftl_hot_region_of(h, UINT32_MAX - 1), 127);
	assert_int_equal(ftl_hot_region_of(h, UINT32_MAX), 128);
	ftl_hot_read(h, UINT32_MAX - 1, UINT32_MAX);
	assert_int_equal(ftl_hot_count(h, 127), 1);
	ftl_hot_destroy(h);
}

/* 3. A read counts once per region it touches; the part out of range is
 * ignored and an empty read is not counted. */
static void test_read_counting(void **state)
{
	struct ftl_hot *h = hot_new(1000, 10, 3, NEVER); /* 100 per region */
	static const uint64_t want[10] = { 4, 4, 1, 1, 1, 1, 1, 1, 1, 2 };

	(void)state;
	ftl_hot_read(h, 0, 100); /* region 0 only */
	ftl_hot_read(h, 50, 100); /* 0 and 1 */
	ftl_hot_read(h, 99, 2); /* 0 and 1 */
	ftl_hot_read(h, 0, 1000); /* all */
	ftl_hot_read(h, 950, 500); /* 9, clamped */
	ftl_hot_read(h, 1000, 5); /* out of range */
	ftl_hot_read(h, 5, 0);
	ftl_hot_read(h, 199, 1); /* 1 */
	for (uint32_t r = 0; r < 10; r++)
		if (ftl_hot_count(h, r) != want[r])
			fail_msg("region %u: count %llu, want %llu", r,
				 (unsigned long long)ftl_hot_count(h, r),
				 (unsigned long long)want[r]);
	assert_int_equal(ftl_hot_count(h, 10), 0);
	assert_int_equal(ftl_hot_stats(h)->reads, 6);
	assert_int_equal(ftl_hot_stats(h)->decays, 0);
	ftl_hot_destroy(h);
}

/* 4. Top-N by counter, lower index first among equals; nothing is hot
 * before the first recomputation; max limits the copy. */
static void test_top_ranking(void **state)
{
	struct ftl_hot *h = hot_new(800, 8, 3, NEVER); /* 100 per region */
	const uint32_t want[] = { 7, 2, 3 };
	uint32_t two[2];

	(void)state;
	read_region(h, 5, 4);
	read_region(h, 2, 4);
	read_region(h, 7, 6);
	read_region(h, 0, 1);
	read_region(h, 3, 4);
	expect_top(h, NULL, 0);
	assert_false(ftl_hot_is_hot(h, 700));
	ftl_hot_refresh(h);
	expect_top(h, want, ARRAY_SIZE(want));
	assert_true(ftl_hot_is_hot(h, 700));
	assert_true(ftl_hot_is_hot(h, 799));
	assert_true(ftl_hot_is_hot(h, 200));
	assert_true(ftl_hot_is_hot(h, 399));
	assert_false(ftl_hot_is_hot(h, 500)); /* tied with 2 and 3, higher index */
	assert_false(ftl_hot_is_hot(h, 0));
	assert_false(ftl_hot_is_hot(h, 800));
	assert_false(ftl_hot_is_hot(h, UINT32_MAX));
	assert_int_equal(ftl_hot_top(h, two, 2), 2);
	assert_int_equal(two[0], 7);
	assert_int_equal(two[1], 2);
	assert_int_equal(ftl_hot_top(h, NULL, 0), 0);
	assert_int_equal(ftl_hot_stats(h)->refreshes, 1);
	ftl_hot_destroy(h);
}

/* 5. A region with counter 0 is never hot, even with top_n to spare. */
static void test_zero_never_hot(void **state)
{
	struct ftl_hot *h = hot_new(800, 8, 8, NEVER);
	const uint32_t want[] = { 6, 1 };

	(void)state;
	ftl_hot_refresh(h);
	expect_top(h, NULL, 0);
	read_region(h, 1, 1);
	read_region(h, 6, 2);
	ftl_hot_refresh(h);
	expect_top(h, want, ARRAY_SIZE(want));
	for (uint32_t r = 0; r < 8; r++)
		assert_int_equal(ftl_hot_is_hot(h, r * 100 + 50), r == 1 || r == 6);
	ftl_hot_destroy(h);
}

/* 6. Between recomputations the hot set stays; one happens every 1024
 * reads and on every decay, once when both fall on the same read. */
static void test_refresh_points(void **state)
{
	struct ftl_hot *h = hot_new(800, 8, 1, NEVER);
	const uint32_t r0[] = { 0 }, r5[] = { 5 };

	(void)state;
	read_region(h, 0, 10);
	ftl_hot_refresh(h);
	expect_top(h, r0, 1);
	read_region(h, 5, FTL_HOT_REFRESH_READS - 11);
	expect_top(h, r0, 1); /* 5 is ahead, not yet recomputed */
	assert_true(ftl_hot_is_hot(h, 0));
	assert_int_equal(ftl_hot_stats(h)->refreshes, 1);
	read_region(h, 5, 1); /* read 1024 */
	expect_top(h, r5, 1);
	assert_false(ftl_hot_is_hot(h, 0));
	assert_int_equal(ftl_hot_stats(h)->refreshes, 2);
	assert_int_equal(ftl_hot_stats(h)->decays, 0);
	ftl_hot_destroy(h);

	h = hot_new(800, 8, 1, 512);
	read_region(h, 0, 1024);
	assert_int_equal(ftl_hot_stats(h)->decays, 2);
	assert_int_equal(ftl_hot_stats(h)->refreshes, 2);
	ftl_hot_destroy(h);

	h = hot_new(800, 8, 1, 1000);
	read_region(h, 0, 1024);
	assert_int_equal(ftl_hot_stats(h)->decays, 1);
	assert_int_equal(ftl_hot_stats(h)->refreshes, 2);
	ftl_hot_destroy(h);
}

/* 7. Every decay_interval reads all counters are halved (rounding down)
 * and the hot set is recomputed. */
static void test_decay_halves(void **state)
{
	struct ftl_hot *h = hot_new(800, 8, 2, 10);
	const uint32_t want1[] = { 0, 1 }, want2[] = { 3, 0 };

	(void)state;
	read_region(h, 0, 7);
	read_region(h, 1, 3);
	assert_int_equal(ftl_hot_count(h, 0), 3);
	assert_int_equal(ftl_hot_count(h, 1), 1);
	assert_int_equal(ftl_hot_stats(h)->decays, 1);
	assert_int_equal(ftl_hot_stats(h)->refreshes, 1);
	expect_top(h, want1, ARRAY_SIZE(want1));

	read_region(h, 3, 9);
	assert_int_equal(ftl_hot_count(h, 3), 9);
	read_region(h, 0, 1); /* read 20: 3 + 1 -> 2, 1 -> 0, 9 -> 4 */
	assert_int_equal(ftl_hot_count(h, 0), 2);
	assert_int_equal(ftl_hot_count(h, 1), 0);
	assert_int_equal(ftl_hot_count(h, 3), 4);
	assert_int_equal(ftl_hot_stats(h)->decays, 2);
	expect_top(h, want2, ARRAY_SIZE(want2));
	assert_false(ftl_hot_is_hot(h, 150));
	ftl_hot_destroy(h);
}

/* 8. After a change of workload the hot set moves to the new regions and
 * the old ones decay to zero. */
static void test_hot_set_moves(void **state)
{
	struct ftl_hot *h = hot_new(16 * 64, 16, 2, 256);
	const uint32_t old_set[] = { 0, 1 }, new_set[] = { 8, 9 };

	(void)state;
	for (uint32_t i = 0; i < 5000; i++)
		ftl_hot_read(h, (i % 2) * 64 + i % 64, 1);
	expect_top(h, old_set, 2);
	/* A read spanning regions 8 and 9 each time. */
	for (uint32_t i = 0; i < 5000; i++)
		ftl_hot_read(h, 8 * 64 + 60, 8);
	expect_top(h, new_set, 2);
	assert_int_equal(ftl_hot_count(h, 0), 0);
	assert_int_equal(ftl_hot_count(h, 1), 0);
	assert_true(ftl_hot_is_hot(h, 8 * 64));
	assert_false(ftl_hot_is_hot(h, 0));
	assert_int_equal(ftl_hot_stats(h)->decays, 10000 / 256);
	ftl_hot_destroy(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_region_math),
		cmocka_unit_test(test_read_counting),
		cmocka_unit_test(test_top_ranking),
		cmocka_unit_test(test_zero_never_hot),
		cmocka_unit_test(test_refresh_points),
		cmocka_unit_test(test_decay_halves),
		cmocka_unit_test(test_hot_set_moves),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
