/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_qos: qos/drr.c (deficit round robin) and qos/suspend.c (the smart
 * suspension policy, asked directly and driven by a real NAND device in
 * virtual time). test_qos.c runs them all; the token buckets have their
 * own program (test_qos_limiter).
 */
#ifndef BLOX_TEST_QOS_TESTS_H
#define BLOX_TEST_QOS_TESTS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "qos.h"

/* drr.c */
void test_drr_empty(void **state);
void test_drr_weights_invalid(void **state);
void test_drr_order(void **state);
void test_drr_weights_share(void **state);
void test_drr_large_costs(void **state);
void test_drr_arrive_leave(void **state);
void test_drr_forfeit(void **state);
void test_drr_tenant_count(void **state);

/* suspend_query.c: the policy asked with scripted queries */
void test_susp_defaults(void **state);
void test_susp_names(void **state);
void test_susp_query_branches(void **state);
void test_susp_no_inputs(void **state);
void test_susp_query_paced(void **state);

/* suspend_engine.c: a real NAND device in virtual time */
int sx_setup(void **state);
int sx_teardown(void **state);
void test_susp_engine_query(void **state);
void test_susp_engine_granted(void **state);
void test_susp_engine_nearly_done(void **state);
void test_susp_engine_program(void **state);
void test_susp_engine_capped(void **state);
void test_susp_engine_pressure(void **state);
void test_susp_engine_gc_urgent(void **state);
void test_susp_engine_wear(void **state);
void test_susp_engine_paced(void **state);

#endif
