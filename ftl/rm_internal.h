/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FlashBlox resource manager's private state, shared by its files:
 *   rm.c        life cycle, isolation names, the grid of owners and its wear,
 *               owners, moves between dies and reserved dies
 *   rm_alloc.c  planning an ask by isolation level, taking and releasing
 *   rm_wear.c   erase counts, wear checks, channel and chip swaps, check state
 */
#ifndef BLOX_FTL_RM_INTERNAL_H
#define BLOX_FTL_RM_INTERNAL_H

#include "flashblox.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A vSSD and what it was given (its dies change as it moves). */
struct fbx_owner {
	uint32_t id;
	struct fbx_alloc a;
};

struct fbx_rm {
	struct nand_geometry geo;
	struct fbx_params p;
	uint32_t ndies, dpc;
	uint32_t *owner; /* per die */
	struct fbx_owner *owners;
	uint32_t nr_owners, cap_owners;
	uint32_t pool_users; /* software vSSDs on the pool */
	uint64_t *erases; /* per die, as last told */
	uint64_t *snap; /* per die, at the last check */
	double next_check;
	uint64_t checks, swaps;
};

/* Format @fmt into @why (of @len, may be NULL) and return @rc. */
int fbx_rm_why(char *why, size_t len, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Checks per channel over the rated P/E cycles: K >= (N - 1 - x) / (N x), at least 1. */
uint32_t fbx_rm_rounds(const struct fbx_rm *rm);
/* Average wear (erases per block) between two checks. */
double fbx_rm_check_step(const struct fbx_rm *rm);

/* No die of channel @ch has an owner. */
bool fbx_rm_channel_free(const struct fbx_rm *rm, uint32_t ch);
/* Erases per block of die @die, of channel @ch (the average of its dies). */
double fbx_rm_die_wear(const struct fbx_rm *rm, uint32_t die);
double fbx_rm_chan_wear(const struct fbx_rm *rm, uint32_t ch);

/* Owner @id's entry, or NULL. */
struct fbx_owner *fbx_rm_owner_find(const struct fbx_rm *rm, uint32_t id);
/* Is @die one of @o's allocation (not one it only holds)? */
bool fbx_rm_in_alloc(const struct fbx_owner *o, uint32_t die);

#endif
