/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What test_io's files share: its subsystem's names and sizes, a
 * controller up and down, and the tests io_identify.c holds.
 */
#ifndef BLOX_ITEST_IO_H
#define BLOX_ITEST_IO_H

#include <stdint.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:io"
#define SERIAL "BLOXTEST0001"
#define NS1_BLOCKS (64u << 20 >> 12) /* 64 MiB of 4 KiB */
#define NS2_BLOCKS (16u << 20 >> 9) /* 16 MiB of 512 B */
#define NS3_BLOCKS (1u << 30 >> 12) /* 1 GiB of 4 KiB, null */
#define IO_SQSIZE 255

/* A controller with @nr_io queues of IO_SQSIZE; fails the test if not. */
struct ini_ctrl *ctrl_up(struct fx_env *e, uint32_t nr_io, const struct ini_opts *o);
void ctrl_down(struct ini_ctrl *c);

/* io_identify.c */
void test_icresp(void **state);
void test_identify_ctrl(void **state);
void test_identify_ns(void **state);

#endif
