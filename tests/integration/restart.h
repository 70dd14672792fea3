/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_restart (tests/integration/CMakeLists.txt, restart_sources):
 *   test_restart.c       restarts with data read back, listeners, nsid 0,
 *                        SMART across restarts; a bloxd of its own
 *                        (struct fx_own, fixture.h)
 *   restart_untouched.c  starts that leave the data directory as it was
 *   restart_notify.c     systemd notification, a second signal while stopping
 */
#ifndef BLOX_ITEST_RESTART_H
#define BLOX_ITEST_RESTART_H

#include <stddef.h>
#include <stdint.h>

#include "fixture.h"

#define DEF_NQN "nqn.2026-12.io.blox:default"

/* Region @i, a pattern of its own, written and flushed over @c. */
void rt_write_region(struct ini_ctrl *c, uint32_t i);
/* @mib MiB of random data written past the regions, not flushed. */
void rt_write_junk(struct ini_ctrl *c, uint32_t mib);
/* Region @i written (and flushed), or checked, over a controller of its own. */
void rt_write(struct fx_own *r, uint32_t i);
void rt_check(struct fx_own *r, uint32_t i);
/* A controller of the default subsystem, one I/O queue; rt_ctrl_done() ends it. */
struct ini_ctrl *rt_ctrl(struct fx_own *r);
void rt_ctrl_done(struct ini_ctrl *c);
/* The SMART / Health log of every namespace of the default subsystem. */
void rt_smart(struct fx_own *r, struct nvme_smart_log *sl);
/* The low 64 bits of a 128-bit SMART counter. */
uint64_t rt_u128(const uint8_t v[16]);
/* @text written to DIR/NAME; its path into @path. */
void rt_write_file(const char *dir, const char *name, const char *text, char *path, size_t len);

/* restart_untouched.c */
void test_two_daemons_one_dir(void **state);
void test_failed_start_touches_nothing(void **state);
void test_print_config(void **state);
/* restart_notify.c */
void test_notify_ready_stopping(void **state);
void test_second_signal(void **state);

#endif
