/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests of test_ftl's other files (test_ftl.c runs them all).
 */
#ifndef BLOX_TEST_FTL_TESTS_H
#define BLOX_TEST_FTL_TESTS_H

#include "ftl_fixture.h"

/* ftl_cache.c */
void test_cmt_lru_and_writeback(void **state);
void test_cmt_thrash(void **state);
void test_cmt_miss_with_buffer_full(void **state);
void test_cmt_miss_clean_fallback(void **state);
void test_mdc_hits(void **state);
void test_mdc_disabled(void **state);
void test_mdc_idle_prefetch(void **state);
void test_mdc_prefetch_races_write(void **state);
void test_hot_ranking(void **state);

/* ftl_streams.c */
void test_streams(void **state);
void test_seq_order(void **state);
void test_trim(void **state);
void test_tp_page_waits_for_data(void **state);
void test_tp_held_pages_unstick(void **state);

#endif
