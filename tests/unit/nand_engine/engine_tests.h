/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tests of test_nand_engine's other files (test_nand_engine.c runs
 * them all).
 */
#ifndef BLOX_TEST_ENGINE_TESTS_H
#define BLOX_TEST_ENGINE_TESTS_H

#include "nand_fixture.h"

/* engine_suspend.c */
void test_suspend_never(void **state);
void test_suspend_erase(void **state);
void test_suspend_program(void **state);
void test_suspend_min_progress(void **state);
void test_suspend_during_resume(void **state);
void test_suspend_cap(void **state);
void test_suspend_too_late(void **state);
void test_suspend_default_90(void **state);
void test_suspend_query(void **state);
void test_suspend_batch(void **state);
void test_suspend_wear(void **state);
void test_suspend_plp_flush(void **state);

/* engine_sched.c */
void test_priorities(void **state);
void test_closed_loop(void **state);
void test_null_timing(void **state);
void test_null_timing_not_early(void **state);
void test_null_timing_rules(void **state);
void test_telemetry(void **state);
void test_die_phases(void **state);

/* engine_lend.c */
void test_lend_read(void **state);
void test_lend_erase_held(void **state);
void test_lend_not_lent(void **state);
void test_lend_outlives_device(void **state);

/* engine_multiplane.c */
void test_mp_group_program(void **state);
void test_mp_group_mismatch(void **state);
void test_mp_group_rules(void **state);
void test_mp_group_erase(void **state);
void test_mp_group_late_driver(void **state);

#endif
