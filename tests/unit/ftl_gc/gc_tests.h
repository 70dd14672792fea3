/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_ftl_gc share: the check after a random-overwrite
 * run, and the tests each file holds (test_ftl_gc.c runs them all).
 */
#ifndef BLOX_TEST_GC_TESTS_H
#define BLOX_TEST_GC_TESTS_H

#include "ftl_fixture.h"

/* After a random-overwrite run: everything reads back, GC did the work. */
void expect_gc_worked(struct fx *x);

/* gc_wear.c */
void test_dynamic_wl_alloc(void **state);
void test_static_wl(void **state);

/* gc_batch.c */
void test_gc_tiny_cmt_shadow(void **state);
void test_gc_tp_io_per_run(void **state);
void test_gc_batch_races_host(void **state);
void test_gc_batch_crash(void **state);
void test_gc_two_victims(void **state);
void test_gc_crash_two_victims(void **state);

/* gc_pacing.c */
void test_gc_fg_pacing(void **state);
void test_gc_stops_when_full(void **state);
void test_gc_levels_reachable(void **state);
void test_gc_storm(void **state);

#endif
