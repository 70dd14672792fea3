/* SPDX-License-Identifier: BSD-3-Clause */
/* MDC scans of mapping entries, and every counter in a scripted sequence. */
#include "mdc_tests.h"

/* ---- scan ---- */

bool hot_from_cb(void *ctx, uint32_t lba)
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
void test_scan_runs(void **state)
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
void test_scan_hot_and_min_run(void **state)
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
 * top of the LBA space; a run whose PPN reaches FTL_LOST (then
 * FTL_UNMAPPED: neither is on flash) ends there. */
void test_scan_long_and_top(void **state)
{
	struct ftl_mdc *m = mdc_new(2048, 1);
	const uint32_t n = 70000;
	uint32_t *e = calloc(n, sizeof(*e));
	const struct ftl_mdc_desc want1[] = { { 5, 100, 65535 }, { 5 + 65535, 100 + 65535, 4465 } };
	const struct ftl_mdc_desc want2[] = { { 0xfffffff0u, 0xfffffffau, 4 },
					      { 0xfffffff6u, 0, 10 } };

	(void)state;
	assert_non_null(e);
	for (uint32_t i = 0; i < n; i++)
		e[i] = 100 + i;
	assert_int_equal(ftl_mdc_scan(m, 5, e, n, NULL, NULL), 2);
	expect_descs(m, want1, ARRAY_SIZE(want1));
	expect_hit(m, 5 + 65535, 100 + 65535);
	ftl_mdc_clear(m);

	/* 0xfffffffa..0xfffffffd, then FTL_LOST and FTL_UNMAPPED, then 0.. */
	for (uint32_t i = 0; i < 32; i++)
		e[i] = 0xfffffffau + i;
	assert_int_equal(ftl_mdc_scan(m, 0xfffffff0u, e, 32, NULL, NULL), 2);
	expect_descs(m, want2, ARRAY_SIZE(want2));
	free(e);
	ftl_mdc_destroy(m);
}

/* ---- counters and clear ---- */

/* 14. Every counter after a scripted sequence; clear keeps them. */
void test_stats_script(void **state)
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
