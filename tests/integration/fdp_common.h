/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What integration_fdp and integration_fdp_events share: a controller up
 * and down, the data a block holds (written and read back), Reclaim Unit
 * Handle Status, the group.
 */
#ifndef FDP_COMMON_H
#define FDP_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"

#define LBA 4096u

/* The default host's controller on @subnqn with one I/O queue (fails the test if it cannot). */
struct ini_ctrl *fdp_ctrl_up(struct fx_env *fx, const char *subnqn);
void fdp_ctrl_down(struct ini_ctrl *c);

/* @n blocks of what LBA @lba on holds in the program's pattern (@salt). */
void fdp_fill(uint8_t *buf, uint64_t lba, uint32_t n, uint64_t salt);

/* The Reclaim Unit Available Media Writes of each of namespace 1's @nruh handles, in blocks. */
/*
 * @n blocks of namespace 1 from @lba with placement identifier @pid, in
 * writes of FDP_CHUNK blocks, their data fdp_fill()'s with @salt.
 */
#define FDP_CHUNK 64u
void fdp_write_pid(struct ini_queue *q, uint64_t lba, uint64_t n, uint16_t pid, uint64_t salt);
/*
 * @n blocks of namespace 1 from @lba read back, in reads of FDP_CHUNK
 * blocks, as fdp_fill() makes them with @salt (fails the test if not).
 */
void fdp_check(struct ini_queue *q, uint64_t lba, uint32_t n, uint64_t salt);

void fdp_ruh_status(struct ini_queue *q, uint32_t nruh, uint64_t *ruamw);

/* The cmocka group of a program @who whose struct (fx_env first) is @type. */
#define FDP_GROUP(name, subs, type)                                                   \
	{ .who = (name), .subsystems = (subs), .own_data_dir = true, .size = sizeof(type) }

#endif
