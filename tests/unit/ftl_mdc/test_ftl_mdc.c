/*
 * Unit tests for the mapping descriptor cache (ftl/mdc.c), through mdc.h
 * only: lookups at run edges, admission (min_run, clamping, overlap, full
 * cache), invalidation (trim, split, drop, ranges over several
 * descriptors, a full cache), scans of mapping entries, exact counters in
 * scripted cases, and a randomized run against a shadow mapping that
 * checks every descriptor after every step.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mdc.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- helpers ---- */

static struct ftl_mdc *mdc_new(uint32_t budget, uint32_t min_run)
{
	struct ftl_mdc *m = NULL;

	assert_int_equal(ftl_mdc_create(budget, min_run, &m), 0);
	assert_non_null(m);
	return m;
}

/* The cache holds exactly @want, in LBA order. */
static void expect_descs(const struct ftl_mdc *m, const struct ftl_mdc_desc *want, uint32_t n)
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

/* @lba hits and maps to @ppn. */
static void expect_hit(struct ftl_mdc *m, uint32_t lba, uint32_t ppn)
{
	uint32_t got = 0;

	if (!ftl_mdc_lookup(m, lba, &got))
		fail_msg("lba %u: miss, want ppn %u", lba, ppn);
	if (got != ppn)
		fail_msg("lba %u: ppn %u, want %u", lba, got, ppn);
}

static void expect_miss(struct ftl_mdc *m, uint32_t lba)
{
	uint32_t got = 0x12345678u;

	if (ftl_mdc_lookup(m, lba, &got))
		fail_msg("lba %u: hit (ppn %u), want miss", lba, got);
	assert_int_equal(got, 0x12345678u);
}

/* Every counter of @m equals @w's. */
static void expect_stats(const struct ftl_mdc *m, const struct ftl_mdc_stats *w)
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

/* 5. Overlapping offers: replace all overlapped descriptors when at least as
 * long as the longest of them, else rejected; no eviction needed when full. */
static void test_offer_overlap(void **state)
{
	struct ftl_mdc *m = mdc_new(30, 1);
	const struct ftl_mdc_desc want1[] = { { 95, 2095, 10 } };
	const struct ftl_mdc_desc want2[] = { { 0, 3000, 20 }, { 95, 2095, 10 } };
	const struct ftl_mdc_desc want3[] = { { 0, 3000, 20 }, { 95, 2095, 10 }, { 200, 5, 2 } };
	const struct ftl_mdc_desc want4[] = { { 0, 3000, 20 }, { 90, 2090, 114 } };

	(void)state;
	assert_true(ftl_mdc_offer(m, 100, 2100, 10));
	assert_false(ftl_mdc_offer(m, 105, 2105, 8)); /* shorter */
	assert_false(ftl_mdc_offer(m, 109, 7, 9)); /* overlaps one LBA */
	assert_int_equal(ftl_mdc_stats(m)->rejected_overlap, 2);
	assert_true(ftl_mdc_offer(m, 95, 2095, 10)); /* equal: replaces */
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
	ftl_mdc_destroy(m);
}

/* ---- invalidation ---- */

/* 6. A range in the middle splits a descriptor; both pieces map right. */
static void test_invalidate_split(void **state)
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
static void test_invalidate_edges(void **state)
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
static void test_invalidate_short_pieces(void **state)
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
static void test_invalidate_several(void **state)
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
 * when they are equal). */
static void test_invalidate_split_full(void **state)
{
	struct ftl_mdc *m = mdc_new(10, 1);
	const struct ftl_mdc_desc want1[] = { { 107, 1007, 13 } };
	const struct ftl_mdc_desc want2[] = { { 107, 1007, 6 } };
	const struct ftl_mdc_desc want3[] = { { 0, 0, 2 }, { 8, 8, 2 } };

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
}

/* ---- scan ---- */

struct hot_ctx {
	uint32_t from; /* LBAs >= from are hot */
	uint32_t calls;
};

static bool hot_from_cb(void *ctx, uint32_t lba)
{
	struct hot_ctx *h = ctx;

	h->calls++;
	return lba >= h->from;
}

static const uint32_t scan_entries[] = {
	10, 11, 12, /* run of 3 */
	50, 51, /* PPN jump */
	FTL_UNMAPPED,
	60, 61, 62, 63,
	5, 4, /* going down: two runs of 1 */
	FTL_UNMAPPED, FTL_UNMAPPED,
	7, 8, /* ends at the end */
};

/* 11. Maximal runs, broken by PPN jumps and FTL_UNMAPPED, up to the end. */
static void test_scan_runs(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 1);
	const struct ftl_mdc_desc want[] = {
		{ 1000, 10, 3 }, { 1003, 50, 2 }, { 1006, 60, 4 },
		{ 1010, 5, 1 }, { 1011, 4, 1 }, { 1014, 7, 2 },
	};

	(void)state;
	assert_int_equal(ftl_mdc_scan(m, 1000, scan_entries, ARRAY_SIZE(scan_entries), NULL, NULL),
			 6);
	expect_descs(m, want, ARRAY_SIZE(want));
	expect_miss(m, 1005);
	expect_hit(m, 1015, 8);
	expect_miss(m, 1016);
	assert_int_equal(ftl_mdc_stats(m)->offered, 6);
	/* Scanning again replaces each run by itself. */
	assert_int_equal(ftl_mdc_scan(m, 1000, scan_entries, ARRAY_SIZE(scan_entries), NULL, NULL),
			 6);
	expect_descs(m, want, ARRAY_SIZE(want));
	assert_int_equal(ftl_mdc_stats(m)->superseded, 6);
	assert_int_equal(ftl_mdc_scan(m, 0, scan_entries, 0, NULL, NULL), 0);
	ftl_mdc_destroy(m);
}

/* 12. Only runs whose first LBA is hot are offered; min_run still applies. */
static void test_scan_hot_and_min_run(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 2);
	struct hot_ctx h = { .from = 1007 };
	const struct ftl_mdc_desc want[] = { { 1014, 7, 2 } };

	(void)state;
	/* Hot run starts: 1010, 1011, 1014 (1006 starts before 1007). */
	assert_int_equal(ftl_mdc_scan(m, 1000, scan_entries, ARRAY_SIZE(scan_entries),
				      hot_from_cb, &h),
			 1);
	assert_int_equal(h.calls, 6);
	expect_descs(m, want, ARRAY_SIZE(want));
	assert_int_equal(ftl_mdc_stats(m)->offered, 3);
	assert_int_equal(ftl_mdc_stats(m)->rejected_short, 2);
	ftl_mdc_destroy(m);
}

/* 13. A run longer than 16 bits is offered in pieces; a scan stops at the
 * top of the LBA space; a run whose PPN reaches FTL_UNMAPPED ends there. */
static void test_scan_long_and_top(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 1);
	const uint32_t n = 70000;
	uint32_t *e = calloc(n, sizeof(*e));
	const struct ftl_mdc_desc want1[] = { { 5, 100, 65535 }, { 5 + 65535, 100 + 65535, 4465 } };
	const struct ftl_mdc_desc want2[] = { { 0xfffffff0u, 0xfffffffau, 5 },
					      { 0xfffffff6u, 0, 10 } };

	(void)state;
	assert_non_null(e);
	for (uint32_t i = 0; i < n; i++)
		e[i] = 100 + i;
	assert_int_equal(ftl_mdc_scan(m, 5, e, n, NULL, NULL), 2);
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_hit(m, 5 + 65535, 100 + 65535);
	ftl_mdc_clear(m);

	/* 0xfffffffa..0xfffffffe, then FTL_UNMAPPED, then 0.. */
	for (uint32_t i = 0; i < 32; i++)
		e[i] = 0xfffffffau + i;
	assert_int_equal(ftl_mdc_scan(m, 0xfffffff0u, e, 32, NULL, NULL), 2);
	expect_descs(m, want2, ARRAY_SIZE(want2));
	free(e);
	ftl_mdc_destroy(m);
}

/* ---- counters and clear ---- */

/* 14. Every counter after a scripted sequence; clear keeps them. */
static void test_stats_script(void **state)
{
	struct ftl_mdc *m = mdc_new(30, 2);
	uint32_t ppn;
	struct ftl_mdc_stats w = { .capacity = 3 };

	(void)state;
	expect_stats(m, &w);
	assert_true(ftl_mdc_offer(m, 0, 100, 10)); /* [0,10) */
	assert_true(ftl_mdc_offer(m, 20, 200, 4)); /* [20,24) */
	assert_false(ftl_mdc_offer(m, 40, 300, 1)); /* short */
	assert_false(ftl_mdc_offer(m, 5, 900, 3)); /* overlap */
	assert_true(ftl_mdc_offer(m, 40, 300, 6)); /* [40,46): full now */
	assert_false(ftl_mdc_offer(m, 60, 400, 4)); /* full, equal to shortest */
	assert_true(ftl_mdc_offer(m, 60, 400, 5)); /* replaces [20,24) */
	assert_true(ftl_mdc_offer(m, 38, 298, 9)); /* supersedes [40,46) */
	w.offered = 8;
	w.admitted = 5;
	w.rejected_short = 1;
	w.rejected_overlap = 1;
	w.rejected_full = 1;
	w.replaced = 1;
	w.superseded = 1;
	w.count = 3;
	w.covered_lbas = 10 + 9 + 5;
	expect_stats(m, &w);

	ftl_mdc_invalidate(m, 3, 2); /* full: keeps [5,10), the longer */
	ftl_mdc_invalidate(m, 39, 1); /* left piece of 1 dropped */
	ftl_mdc_invalidate(m, 60, 5); /* [60,65) gone */
	ftl_mdc_invalidate(m, 42, 1); /* splits [40,47) into 2 + 4 */
	w.invalidated = 1;
	w.split = 1;
	w.count = 3;
	w.covered_lbas = 5 + 2 + 4;
	expect_stats(m, &w);

	assert_true(ftl_mdc_lookup(m, 6, &ppn));
	assert_int_equal(ppn, 106);
	assert_false(ftl_mdc_lookup(m, 4, &ppn));
	assert_true(ftl_mdc_lookup(m, 46, &ppn));
	assert_int_equal(ppn, 306);
	w.lookups = 3;
	w.hits = 2;
	assert_int_equal(w.count, w.admitted - w.replaced - w.superseded - w.invalidated + w.split);
	expect_stats(m, &w);

	ftl_mdc_clear(m);
	w.count = 0;
	w.covered_lbas = 0;
	expect_stats(m, &w);
	expect_miss(m, 6);
	assert_true(ftl_mdc_offer(m, 6, 106, 4));
	expect_hit(m, 6, 106);
	ftl_mdc_destroy(m);
}

/* ---- randomized against a shadow mapping ---- */

#define SH_LBAS 2048u
#define SH_TP 256u /* entries per "translation page" for scans */

struct shadow {
	uint32_t map[SH_LBAS]; /* true mapping */
	uint32_t next_ppn;
	uint64_t rng;
	uint64_t cleared; /* descriptors dropped by ftl_mdc_clear() */
	uint32_t min_run;
	uint32_t hot_salt;
};

static uint32_t rnd(struct shadow *s, uint32_t n)
{
	/* splitmix64 */
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint32_t)(z % n);
}

static bool shadow_hot_cb(void *ctx, uint32_t lba)
{
	const struct shadow *s = ctx;

	return ((lba / 64) * 2654435761u ^ s->hot_salt) & 1;
}

/* Sorted, disjoint, within limits, consistent with the shadow, counted. */
static void shadow_check(const struct ftl_mdc *m, const struct shadow *s)
{
	const struct ftl_mdc_stats *st = ftl_mdc_stats(m);
	struct ftl_mdc_desc d;
	uint64_t prev_end = 0, covered = 0;

	assert_true(st->count <= st->capacity);
	for (uint32_t i = 0; i < st->count; i++) {
		assert_int_equal(ftl_mdc_desc_at(m, i, &d), 0);
		if (d.lba < prev_end)
			fail_msg("desc %u at %u overlaps the previous (end %llu)", i, d.lba,
				 (unsigned long long)prev_end);
		assert_true(d.len >= s->min_run && d.len <= FTL_MDC_MAX_RUN);
		assert_true((uint64_t)d.lba + d.len <= SH_LBAS);
		for (uint32_t k = 0; k < d.len; k++)
			if (s->map[d.lba + k] != d.ppn + k)
				fail_msg("desc (%u, %u, %u): lba %u maps to %u, cache says %u",
					 d.lba, d.ppn, d.len, d.lba + k, s->map[d.lba + k],
					 d.ppn + k);
		prev_end = (uint64_t)d.lba + d.len;
		covered += d.len;
	}
	assert_int_equal(covered, st->covered_lbas);
	assert_int_equal(st->offered, st->admitted + st->rejected_short + st->rejected_overlap +
					      st->rejected_full);
	assert_int_equal((uint64_t)st->count + s->cleared,
			 st->admitted - st->replaced - st->superseded - st->invalidated + st->split);
	assert_true(st->hits <= st->lookups);
}

/* Host write of [lba, lba + len): mostly sequential new PPNs. */
static void shadow_write(struct ftl_mdc *m, struct shadow *s, uint32_t lba, uint32_t len,
			 bool trim)
{
	bool scatter = rnd(s, 4) == 0;

	if (len > SH_LBAS - lba)
		len = SH_LBAS - lba;
	ftl_mdc_invalidate(m, lba, len);
	for (uint32_t k = 0; k < len; k++) {
		if (trim) {
			s->map[lba + k] = FTL_UNMAPPED;
			continue;
		}
		s->map[lba + k] = s->next_ppn++;
		if (scatter)
			s->next_ppn += 1 + rnd(s, 3);
	}
}

/* Offer a random valid piece of the true run through @lba. */
static void shadow_offer(struct ftl_mdc *m, struct shadow *s, uint32_t lba)
{
	uint32_t end = lba + 1, len;

	if (s->map[lba] == FTL_UNMAPPED)
		return;
	while (end < SH_LBAS && s->map[end] != FTL_UNMAPPED && s->map[end] == s->map[end - 1] + 1)
		end++;
	len = 1 + rnd(s, end - lba);
	ftl_mdc_offer(m, lba, s->map[lba], len);
}

static void shadow_run(uint64_t seed, uint32_t budget, uint32_t min_run, uint32_t steps)
{
	struct shadow *s = calloc(1, sizeof(*s));
	struct ftl_mdc *m;
	uint32_t ppn;

	assert_non_null(s);
	s->rng = seed;
	s->min_run = min_run;
	s->next_ppn = 1;
	for (uint32_t i = 0; i < SH_LBAS; i++)
		s->map[i] = FTL_UNMAPPED;
	m = mdc_new(budget, min_run);

	for (uint32_t step = 0; step < steps; step++) {
		uint32_t op = rnd(s, 100), lba = rnd(s, SH_LBAS);

		if (op < 15) {
			uint32_t len = rnd(s, 8) ? 1 + rnd(s, 64) : 1 + rnd(s, 600);

			shadow_write(m, s, lba, len, false);
		} else if (op < 18) {
			shadow_write(m, s, lba, 1 + rnd(s, 100), true);
		} else if (op < 25) {
			/* GC moves one mapping. */
			if (s->map[lba] != FTL_UNMAPPED) {
				ftl_mdc_invalidate(m, lba, 1);
				s->map[lba] = s->next_ppn++;
			}
		} else if (op < 35) {
			uint32_t first = lba / SH_TP * SH_TP;

			s->hot_salt = rnd(s, 1u << 30);
			ftl_mdc_scan(m, first, &s->map[first], SH_TP,
				     rnd(s, 2) ? shadow_hot_cb : NULL, s);
		} else if (op < 55) {
			shadow_offer(m, s, lba);
		} else if (op == 55 && rnd(s, 20) == 0) {
			s->cleared += ftl_mdc_stats(m)->count;
			ftl_mdc_clear(m);
		} else {
			if (ftl_mdc_lookup(m, lba, &ppn)) {
				if (s->map[lba] == FTL_UNMAPPED || ppn != s->map[lba])
					fail_msg("seed %llu step %u: lba %u hit ppn %u, true %u",
						 (unsigned long long)seed, step, lba, ppn,
						 s->map[lba]);
			}
		}
		shadow_check(m, s);
	}
	/* The run must have exercised the interesting paths. */
	{
		const struct ftl_mdc_stats *st = ftl_mdc_stats(m);

		if (getenv("MDC_SHADOW_STATS"))
			print_message("budget %u min_run %u: lookups %llu hits %llu offered %llu "
				      "admitted %llu short %llu overlap %llu full %llu "
				      "replaced %llu superseded %llu invalidated %llu split %llu\n",
				      budget, min_run, (unsigned long long)st->lookups,
				      (unsigned long long)st->hits, (unsigned long long)st->offered,
				      (unsigned long long)st->admitted,
				      (unsigned long long)st->rejected_short,
				      (unsigned long long)st->rejected_overlap,
				      (unsigned long long)st->rejected_full,
				      (unsigned long long)st->replaced,
				      (unsigned long long)st->superseded,
				      (unsigned long long)st->invalidated,
				      (unsigned long long)st->split);
		assert_true(st->hits > 0 && st->admitted > 0 && st->superseded > 0);
		assert_true(st->invalidated > 0 && st->rejected_overlap > 0);
		if (st->capacity > 1) /* a split needs a free slot */
			assert_true(st->split > 0);
		if (min_run > 1)
			assert_true(st->rejected_short > 0);
		if (st->capacity < 50) {
			assert_true(st->replaced > 0);
			assert_true(st->rejected_full > 0);
		}
	}
	ftl_mdc_destroy(m);
	free(s);
}

/* 15. Random offers, scans, writes, trims, GC moves and lookups. */
static void test_random_shadow(void **state)
{
	static const struct {
		uint32_t budget, min_run;
	} cfg[] = { { 10, 1 }, { 50, 2 }, { 200, 4 }, { 2048, 1 }, { 2048, 8 }, { 300, 3 } };

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cfg); c++)
		for (uint64_t seed = 1; seed <= 4; seed++)
			shadow_run(seed * 7919 + c, cfg[c].budget, cfg[c].min_run, 20000);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
