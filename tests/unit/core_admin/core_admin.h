/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The core_admin tests kept apart from test_core_admin.c (whose main()
 * runs them all): NVM Sets and Endurance Groups (endgrp.c, endgrp_nand.c),
 * predictable latency (plm.c, plm_nand.c), FDP events (fdp.c).
 */
#ifndef BLOX_TEST_CORE_ADMIN_H
#define BLOX_TEST_CORE_ADMIN_H

#include <stdint.h>

struct blox_bdev;
struct event_base;

/*
 * Write @len bytes of @data at offset 0 through backend @bd, driving @base
 * until it completes (endgrp_nand.c; the tests on "nand" namespaces).
 * Returns the write's status.
 */
int core_admin_write(struct event_base *base, struct blox_bdev *bd, void *data, uint32_t len);

/* A subsystem of ram, null and fake flash namespaces (endgrp.c). */
int endgrp_setup(void **state);
int endgrp_teardown(void **state);
void test_endgrp_identify_ctrl(void **state);
void test_endgrp_identify_ns(void **state);
void test_endgrp_nvmset_list(void **state);
void test_endgrp_nvmset_list_full(void **state);
void test_endgrp_list(void **state);
void test_endgrp_log(void **state);
void test_endgrp_log_unknown(void **state);
void test_endgrp_log_offsets_and_events(void **state);
void test_endgrp_smart_summary(void **state);
void test_endgrp_smart_warnings(void **state);
void test_endgrp_ids_stable(void **state);
void test_endgrp_discovery(void **state);
/* Namespaces of the nand backend on shared and own dies (endgrp_nand.c, own set-up). */
void test_endgrp_nand(void **state);

/*
 * Predictable latency and read recovery levels (plm.c): ram 1, fake
 * predictable-latency sets 2 and 5, null 7; plm_setup_loop gives the
 * target an event loop (and a real clock).
 */
int plm_setup(void **state);
int plm_setup_loop(void **state);
int plm_teardown(void **state);
void test_plm_identify(void **state);
void test_plm_config(void **state);
void test_plm_config_refused(void **state);
void test_plm_window(void **state);
void test_plm_window_held(void **state);
void test_plm_log_set(void **state);
void test_plm_events(void **state);
void test_plm_rrl(void **state);
void test_plm_ns_gone(void **state);
void test_plm_ns_gone_disables(void **state);
/* A real "nand" namespace (plm_nand.c, on plm_setup_loop). */
void test_plm_nand(void **state);

/*
 * FDP events and the Endurance Group rule (fdp.c): namespaces 1 and 2 on
 * fake backends with 3 and 2 handles, one group.
 */
int fdp_setup(void **state);
void test_fdp_events_enabled(void **state);
void test_fdp_events_overflow(void **state);
void test_fdp_events_kinds(void **state);
void test_fdp_group_mix(void **state);

#endif
