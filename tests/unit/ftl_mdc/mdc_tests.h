/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_ftl_mdc share: the helpers that check the
 * cache's descriptors, hits and counters, and the tests each file holds
 * (test_ftl_mdc.c runs them all).
 */
#ifndef BLOX_TEST_MDC_TESTS_H
#define BLOX_TEST_MDC_TESTS_H

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
#define TP_N 1024u /* entries of a translation page in the merge tests */

/* ---- helpers (test_ftl_mdc.c, mdc_scan.c, mdc_merge.c) ---- */

/* A scan's hot-region callback: LBAs from @from on are hot (hot_from_cb). */
struct hot_ctx {
	uint32_t from; /* LBAs >= from are hot */
	uint32_t calls;
};

/* A cache of @budget bytes; must succeed. */
struct ftl_mdc *mdc_new(uint32_t budget, uint32_t min_run);
/* The cache holds exactly @want, in LBA order. */
void expect_descs(const struct ftl_mdc *m, const struct ftl_mdc_desc *want, uint32_t n);
/* @lba hits and maps to @ppn. */
void expect_hit(struct ftl_mdc *m, uint32_t lba, uint32_t ppn);
/* @lba misses and leaves the PPN untouched. */
void expect_miss(struct ftl_mdc *m, uint32_t lba);
/* Every counter of @m equals @w's. */
void expect_stats(const struct ftl_mdc *m, const struct ftl_mdc_stats *w);
/* Counts its calls; @lba is hot from @ctx's from on. */
bool hot_from_cb(void *ctx, uint32_t lba);
/* Mapping entries of @n LBAs from @first: PPN = LBA + @off. */
uint32_t *seq_entries(uint32_t first, uint32_t n, uint32_t off);

/* ---- the tests, by file ---- */

/* mdc_invalidate.c */
void test_invalidate_split(void **state);
void test_invalidate_edges(void **state);
void test_invalidate_short_pieces(void **state);
void test_invalidate_several(void **state);
void test_invalidate_split_full(void **state);

/* mdc_scan.c */
void test_scan_runs(void **state);
void test_scan_hot_and_min_run(void **state);
void test_scan_long_and_top(void **state);
void test_stats_script(void **state);

/* mdc_merge.c */
void test_merge_both_directions(void **state);
void test_merge_needs_continuing_ppns(void **state);
void test_merge_admission(void **state);
void test_merge_max_run(void **state);
void test_merge_scans(void **state);
void test_merge_split(void **state);

/* mdc_random.c */
void test_random_shadow(void **state);
void test_merge_random_overwrite(void **state);

#endif
