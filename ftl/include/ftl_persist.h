/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What an FTL instance keeps across stops (part of ftl.h): the
 * configuration and resources to make it again with ftl_create(), which
 * recovers its mapping from them, and power loss: the write buffer
 * programmed within power-loss protection's hold-up.
 */
#ifndef BLOX_FTL_PERSIST_H
#define BLOX_FTL_PERSIST_H

#include "ftl_core.h"

/*
 * Power loss (power.c): ftl_power_fail() submits every page the write
 * buffer holds (padded), for the hold-up of power-loss protection, and
 * GC stops where it is (no new read, move or erase) and host writes not
 * yet in the buffer wait (they are never acknowledged); with plp_suspend a
 * running erase on a die those programs need is suspended for them
 * (nand_set_plp_flush(), which nand_power_cut() ends); the caller then drives the flash
 * as long as it has power (and calls it again if writes that waited
 * filled new pages meanwhile).
 * ftl_volatile_units(): host data units whose only copy is the write
 * buffer now (acknowledged, not on flash): what a power cut now loses.
 */
void ftl_power_fail(struct ftl *f);
uint64_t ftl_volatile_units(const struct ftl *f);
/* The configuration it runs with now (the volatile cache as last set), to make it again. */
void ftl_get_config(const struct ftl *f, struct ftl_config *out);
/*
 * The instance's resources as they are now, to persist and give back to
 * ftl_create() after a stop: dies[] with each slot's die (during a
 * migration the die it is moving to), the block range, and the
 * migration's mig_* fields (mig_active false once it has ended).
 */
void ftl_get_resources(const struct ftl *f, struct ftl_resources *out);

#endif
