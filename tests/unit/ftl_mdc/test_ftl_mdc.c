/*
 * Unit tests for the mapping descriptor cache (ftl/mdc.c), through mdc.h
 * only: lookups at run edges, admission (min_run, clamping, overlap, full
 * cache), merging of runs that continue a descriptor (both directions,
 * bridging two, partial overlaps, PPNs that do not continue, min_run and a
 * full cache judged on the merged result, the 16-bit length limit, scans
 * of neighbouring translation pages), splits of merged descriptors,
 * invalidation (trim, split, drop, ranges over several descriptors, a
 * full cache), scans of mapping entries, exact counters in scripted cases,
 * and randomized runs against a shadow mapping that check every
 * descriptor after every step.
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
 * when they are equal), unless another descriptor is shorter than both
 * pieces: that one is evicted. */
static void test_invalidate_split_full(void **state)
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
	/* Scanning again: each run is held by its descriptor already. */
	assert_int_equal(ftl_mdc_scan(m, 1000, scan_entries, ARRAY_SIZE(scan_entries), NULL, NULL),
			 6);
	expect_descs(m, want, ARRAY_SIZE(want));
	assert_int_equal(ftl_mdc_stats(m)->merged, 6);
	assert_int_equal(ftl_mdc_stats(m)->superseded, 0);
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
	assert_true(ftl_mdc_offer(m, 38, 298, 9)); /* merges [40,46): same diagonal */
	w.offered = 8;
	w.admitted = 5;
	w.rejected_short = 1;
	w.rejected_overlap = 1;
	w.rejected_full = 1;
	w.replaced = 1;
	w.merged = 1;
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
	assert_int_equal(w.count, w.admitted - w.replaced - w.superseded - w.merged -
					  w.invalidated + w.split);
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

/*
 * Sorted, disjoint, within limits, consistent with the shadow, counted,
 * and merged: no descriptor continues the previous one (the LBA space is
 * below FTL_MDC_MAX_RUN, so every merge fits).
 */
static void shadow_check(const struct ftl_mdc *m, const struct shadow *s)
{
	const struct ftl_mdc_stats *st = ftl_mdc_stats(m);
	struct ftl_mdc_desc d, prev = { 0 };
	uint64_t prev_end = 0, covered = 0;

	assert_true(st->count <= st->capacity);
	for (uint32_t i = 0; i < st->count; i++) {
		assert_int_equal(ftl_mdc_desc_at(m, i, &d), 0);
		if (d.lba < prev_end)
			fail_msg("desc %u at %u overlaps the previous (end %llu)", i, d.lba,
				 (unsigned long long)prev_end);
		if (i > 0 && d.lba == prev_end && d.ppn == prev.ppn + prev.len)
			fail_msg("desc %u (%u, %u, %u) continues the previous (%u, %u, %u)", i,
				 d.lba, d.ppn, d.len, prev.lba, prev.ppn, prev.len);
		assert_true(d.len >= s->min_run && d.len <= FTL_MDC_MAX_RUN);
		assert_true((uint64_t)d.lba + d.len <= SH_LBAS);
		for (uint32_t k = 0; k < d.len; k++)
			if (s->map[d.lba + k] != d.ppn + k)
				fail_msg("desc (%u, %u, %u): lba %u maps to %u, cache says %u",
					 d.lba, d.ppn, d.len, d.lba + k, s->map[d.lba + k],
					 d.ppn + k);
		prev_end = (uint64_t)d.lba + d.len;
		prev = d;
		covered += d.len;
	}
	assert_int_equal(covered, st->covered_lbas);
	assert_int_equal(st->offered, st->admitted + st->rejected_short + st->rejected_overlap +
					      st->rejected_full);
	assert_int_equal((uint64_t)st->count + s->cleared,
			 st->admitted - st->replaced - st->superseded - st->merged -
				 st->invalidated + st->split);
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
				      "replaced %llu superseded %llu merged %llu invalidated %llu "
				      "split %llu\n",
				      budget, min_run, (unsigned long long)st->lookups,
				      (unsigned long long)st->hits, (unsigned long long)st->offered,
				      (unsigned long long)st->admitted,
				      (unsigned long long)st->rejected_short,
				      (unsigned long long)st->rejected_overlap,
				      (unsigned long long)st->rejected_full,
				      (unsigned long long)st->replaced,
				      (unsigned long long)st->superseded,
				      (unsigned long long)st->merged,
				      (unsigned long long)st->invalidated,
				      (unsigned long long)st->split);
		/* Offers match the mapping: overlaps merge, nothing is superseded. */
		assert_true(st->hits > 0 && st->admitted > 0 && st->merged > 0);
		assert_int_equal(st->superseded, 0);
		assert_int_equal(st->rejected_overlap, 0);
		assert_true(st->invalidated > 0);
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

/* ---- merging ---- */

/* 16. A run starting where a descriptor ends, PPNs going on, extends it;
 * so does one ending where a descriptor starts; a run between two joins
 * them; the cache stays one descriptor. */
static void test_merge_both_directions(void **state)
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
static void test_merge_needs_continuing_ppns(void **state)
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
static void test_merge_admission(void **state)
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
static void test_merge_max_run(void **state)
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

/* Mapping entries of @n LBAs from @first: PPN = LBA + @off. */
static uint32_t *seq_entries(uint32_t first, uint32_t n, uint32_t off)
{
	uint32_t *e = malloc((size_t)n * sizeof(*e));

	assert_non_null(e);
	for (uint32_t i = 0; i < n; i++)
		e[i] = first + i + off;
	return e;
}

#define TP_N 1024u

/* 20. Scans of neighbouring translation pages of a sequentially written
 * range merge into one descriptor, in any order; a page whose first LBA is
 * not hot is not offered and leaves a gap. */
static void test_merge_scans(void **state)
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
static void test_merge_split(void **state)
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

/* Every descriptor of @m maps as @map says, in order, disjoint, merged. */
static void map_check(const struct ftl_mdc *m, const uint32_t *map, uint32_t n)
{
	const struct ftl_mdc_stats *st = ftl_mdc_stats(m);
	struct ftl_mdc_desc d, prev = { 0 };
	uint64_t covered = 0;

	for (uint32_t i = 0; i < st->count; i++) {
		assert_int_equal(ftl_mdc_desc_at(m, i, &d), 0);
		assert_true((uint64_t)d.lba + d.len <= n);
		if (i > 0 && d.lba < prev.lba + prev.len)
			fail_msg("desc %u at %u overlaps the previous", i, d.lba);
		if (i > 0 && d.lba == prev.lba + prev.len && d.ppn == prev.ppn + prev.len)
			fail_msg("desc %u (%u, %u, %u) continues the previous (%u, %u, %u)", i,
				 d.lba, d.ppn, d.len, prev.lba, prev.ppn, prev.len);
		for (uint32_t k = 0; k < d.len; k++)
			if (map[d.lba + k] != d.ppn + k)
				fail_msg("desc (%u, %u, %u): lba %u maps to %u", d.lba, d.ppn, d.len,
					 d.lba + k, map[d.lba + k]);
		covered += d.len;
		prev = d;
	}
	assert_int_equal(covered, st->covered_lbas);
	assert_int_equal(st->count, st->admitted - st->replaced - st->superseded - st->merged -
					    st->invalidated + st->split);
}

/*
 * 22. A sequentially written range of 16 translation pages, every page
 * scanned in a random order: one descriptor spans it all. Then random
 * overwrites (one unit, or a short sequential write at new PPNs), trims,
 * rescans of random pages and lookups, each lookup checked against the
 * shadow mapping, and every descriptor every 50 steps.
 */
static void test_merge_random_overwrite(void **state)
{
	static const uint32_t budgets[] = { 60, 2048 };
	static const uint64_t min_hits[] = { 300, 3000 };
	const uint32_t tps = 16, n = tps * TP_N;

	(void)state;
	for (size_t b = 0; b < ARRAY_SIZE(budgets); b++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct shadow rs = { .rng = seed * 104729 + b };
			struct ftl_mdc *m = mdc_new(budgets[b], 8);
			uint32_t *map = seq_entries(0, n, 50000), perm[16], next_ppn = 1000000;
			uint64_t hits = 0;
			struct ftl_mdc_desc d;

			for (uint32_t i = 0; i < tps; i++)
				perm[i] = i;
			for (uint32_t i = tps - 1; i > 0; i--) {
				uint32_t j = rnd(&rs, i + 1), t = perm[i];

				perm[i] = perm[j];
				perm[j] = t;
			}
			for (uint32_t i = 0; i < tps; i++)
				ftl_mdc_scan(m, perm[i] * TP_N, map + perm[i] * TP_N, TP_N, NULL, NULL);
			assert_int_equal(ftl_mdc_stats(m)->count, 1);
			assert_int_equal(ftl_mdc_desc_at(m, 0, &d), 0);
			assert_true(d.lba == 0 && d.ppn == 50000 && d.len == n);

			for (uint32_t step = 0; step < 20000; step++) {
				uint32_t op = rnd(&rs, 100), lba = rnd(&rs, n), ppn;

				if (op < 8) {
					uint32_t len = rnd(&rs, 2) ? 1 : 1 + rnd(&rs, 16);

					len = len > n - lba ? n - lba : len;
					ftl_mdc_invalidate(m, lba, len);
					for (uint32_t k = 0; k < len; k++)
						map[lba + k] = next_ppn++;
				} else if (op < 10) {
					uint32_t len = 1 + rnd(&rs, 32);

					len = len > n - lba ? n - lba : len;
					ftl_mdc_invalidate(m, lba, len);
					for (uint32_t k = 0; k < len; k++)
						map[lba + k] = FTL_UNMAPPED;
				} else if (op < 35) {
					uint32_t first = lba / TP_N * TP_N;

					ftl_mdc_scan(m, first, map + first, TP_N, NULL, NULL);
				} else if (ftl_mdc_lookup(m, lba, &ppn)) {
					if (ppn != map[lba])
						fail_msg("seed %llu step %u: lba %u hit ppn %u, true %u",
							 (unsigned long long)seed, step, lba, ppn,
							 map[lba]);
					hits++;
				}
				if (step % 50 == 0 || step == 19999)
					map_check(m, map, n);
			}
			if (getenv("MDC_SHADOW_STATS"))
				print_message("budget %u seed %llu: hits %llu, %u descriptors\n",
					      budgets[b], (unsigned long long)seed,
					      (unsigned long long)hits, ftl_mdc_stats(m)->count);
			assert_true(hits > min_hits[b]);
			assert_true(ftl_mdc_stats(m)->split > 0);
			assert_true(ftl_mdc_stats(m)->merged > 0);
			assert_int_equal(ftl_mdc_stats(m)->superseded, 0);
			free(map);
			ftl_mdc_destroy(m);
		}
	}
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
