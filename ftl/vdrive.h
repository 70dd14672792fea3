/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A virtual-time driver for an FTL instance over a NAND device: the same
 * FTL and engine code as the daemon, with time moved event to event. For
 * tests, the simulator and benches.
 */
#ifndef BLOX_FTL_VDRIVE_H
#define BLOX_FTL_VDRIVE_H

#include "blox_clock.h"
#include "ftl.h"

struct ftl_vdrive {
	struct blox_clock clock;
	struct nand_dev *dev;
	struct nand_store *store;
	struct ftl_env env;
	bool kicked;
};

/* Wire @vd to @dev and @store (store may be NULL); fills vd->env. */
void ftl_vdrive_init(struct ftl_vdrive *vd, struct nand_dev *dev,
		     struct nand_store *store);
/* Run until nothing is pending or the clock passes @until_ns. */
void ftl_vdrive_run(struct ftl_vdrive *vd, struct ftl *f, uint64_t until_ns);
/* Run until @flag becomes true (or nothing is left to do). */
void ftl_vdrive_run_until(struct ftl_vdrive *vd, struct ftl *f, const bool *flag);

#endif
