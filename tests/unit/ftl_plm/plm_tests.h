/* SPDX-License-Identifier: BSD-3-Clause */
/* The tests of test_ftl_plm (its main() runs them all). */
#ifndef BLOX_TEST_PLM_TESTS_H
#define BLOX_TEST_PLM_TESTS_H

#include "ftl_fixture.h"

/* plm_windows.c */
void test_plm_windows(void **state);
void test_plm_gc_deferred(void **state);
void test_plm_budgets(void **state);
void test_plm_warnings(void **state);
void test_plm_gc_paused(void **state);

#endif
