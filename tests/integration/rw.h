/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Write/read/verify rounds at a given queue depth and transfer size over
 * one initiator queue, checking every completion (status, SQID, SQHD,
 * in-capsule vs R2T path, byte counts) and every byte read back.
 */
#ifndef BLOX_RW_H
#define BLOX_RW_H

#include <stdbool.h>
#include <stdint.h>

#include "ini.h"

struct rw_geom {
	uint32_t nsid;
	uint32_t block_size;
	uint64_t nblocks;
};

struct rw_stats {
	uint32_t writes_in_capsule; /* data went in the command capsule */
	uint32_t writes_r2t; /* data went by R2T -> H2CData */
	uint32_t reads_success_flag; /* ended by C2HData SUCCESS, no CQE */
};

/*
 * @depth writes of @len bytes of random data to distinct random LBAs,
 * all outstanding at once, then @depth reads of the same ranges, then a
 * byte compare. @sqflow_off: expect SQHD 0xFFFF, else SQHD <= @sqsize.
 * Returns 0, or -errno after printing what went wrong.
 */
int rw_round(struct ini_queue *q, const struct rw_geom *g, uint32_t len,
	     uint32_t depth, bool sqflow_off, uint16_t sqsize,
	     uint64_t *seed, struct rw_stats *st);

#endif
