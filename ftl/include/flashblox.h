/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FlashBlox resource manager (Huang et al., FAST 2017), one per NAND
 * device: it owns the device's channel x die grid, knows the owner of
 * every die, gives virtual SSDs whole channels, whole dies or a share of a
 * common pool, and keeps wear even across them by choosing channel (and
 * die) swaps as the device wears.
 *
 * Pure bookkeeping like the FTL it serves: no clock reads, no I/O. The
 * caller feeds it the dies' erase counts (the NAND store keeps them) and
 * carries out the moves it chooses (ftl_migrate_*). Owners are nonzero
 * ids of the caller's choosing.
 */
#ifndef BLOX_FLASHBLOX_H
#define BLOX_FLASHBLOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ftl_core.h"

enum fbx_isolation {
	FBX_CHANNEL, /* whole channels: no shared bus, no shared die */
	FBX_CHIP, /* whole dies, on channels others may use too */
	FBX_SOFTWARE, /* a block range on every die of a pool shared with other software vSSDs */
};

#define FBX_FREE 0u /* fbx_die_owner(): nobody */
#define FBX_POOL UINT32_MAX /* fbx_die_owner(): the software pool */

/* "channel", "chip", "software". */
const char *fbx_isolation_name(enum fbx_isolation iso);
/*
 * "channel:N", "chip:N" (N whole channels or dies), "channel" or "chip"
 * (as few as the capacity asked needs: *count 0), "software". 0 or
 * -EINVAL.
 */
int fbx_isolation_parse(const char *s, enum fbx_isolation *iso, uint32_t *count);

struct fbx_params {
	/* Whole channels the software pool takes when its first vSSD comes; 0: 1. */
	uint32_t pool_channels;
	/* x of the bound 1 + x on MaxWear / AvgWear over channels, in permille. */
	uint32_t bound_permille;
	/* Rated program/erase cycles of a block: the lifetime swaps spread over. */
	uint32_t rated_pe;
	/*
	 * Erases of the whole device between swap checks; 0: rated_pe / (K N)
	 * per block, the FlashBlox pacing.
	 */
	uint32_t check_erases;
	/*
	 * Keep one whole channel free on a device of FBX_SPARE_MIN_CHANNELS or
	 * more: allocations may not take it, so a channel swap always has
	 * somewhere to go (without it, a device whose channels are all given
	 * out cannot keep its wear bound). A swap uses it and frees another.
	 */
	bool spare_channel;
};

#define FBX_SPARE_MIN_CHANNELS 4

/*
 * pool_channels 1, bound 100 (1.1), rated_pe by cell: SLC 100k, MLC 10k,
 * TLC 3k, QLC 1k; a spare channel.
 */
void fbx_params_default(struct fbx_params *p, enum nand_cell cell);

struct fbx_rm;

int fbx_rm_create(const struct nand_geometry *g, const struct fbx_params *p, struct fbx_rm **out);
void fbx_rm_destroy(struct fbx_rm *rm);
const struct fbx_params *fbx_rm_params(const struct fbx_rm *rm);

/* What a vSSD asks for. */
struct fbx_ask {
	enum fbx_isolation iso;
	uint32_t count; /* channels (channel) or dies (chip); 0: by capacity */
	uint64_t units; /* host units (FTL_UNIT) wanted; 0: what the count holds */
};

/* What a vSSD has: exactly the FTL's resources, and what they hold. */
struct fbx_alloc {
	enum fbx_isolation iso;
	struct ftl_resources res;
	uint64_t units; /* ftl_capacity_for() of res */
};

/*
 * Choose what @ask gets now, without taking it: channels and fully free
 * dies least worn first; dies for `chip` from channels already split
 * before whole free ones (so whole channels stay for `channel` asks); the
 * first block range that fits in the pool for `software` (forming the
 * pool from the least-worn free channels if it has no vSSD yet).
 * 0; -ENOSPC when it does not fit now, -EINVAL when it never could on this
 * device (or the ask is bad); @why says which ("need 2 free channels, 1
 * left").
 */
int fbx_plan(const struct fbx_rm *rm, const struct fbx_ask *ask, const struct ftl_config *fc,
	     struct fbx_alloc *out, char *why, size_t whylen);
/*
 * Give @a to @owner, as planned or as read back from a saved state.
 * -EBUSY (with @why) when any of it is taken, -EEXIST when @owner has an
 * allocation, -EINVAL for dies or blocks off the device.
 */
int fbx_take(struct fbx_rm *rm, uint32_t owner, const struct fbx_alloc *a, char *why,
	     size_t whylen);
/*
 * fbx_take() of a saved state in the middle of a migration: @held[0..@nheld)
 * are dies the owner holds outside its allocation (fbx_reserve); a
 * `channel` vSSD's channels then only need to be whole counting them.
 */
int fbx_take_held(struct fbx_rm *rm, uint32_t owner, const struct fbx_alloc *a,
		  const uint32_t *held, uint32_t nheld, char *why, size_t whylen);
/* Give back all that @owner has (its dies free again, or its pool range). */
void fbx_release(struct fbx_rm *rm, uint32_t owner);
/* @owner's allocation; false if it has none. */
bool fbx_owner_alloc(const struct fbx_rm *rm, uint32_t owner, struct fbx_alloc *out);

/* FBX_FREE, FBX_POOL or the owner of @die (global die index). */
uint32_t fbx_die_owner(const struct fbx_rm *rm, uint32_t die);
uint32_t fbx_free_dies(const struct fbx_rm *rm);
uint32_t fbx_free_channels(const struct fbx_rm *rm);
/* Dies of the pool (0: no pool now), and its blocks per plane not given out. */
uint32_t fbx_pool_dies(const struct fbx_rm *rm);
uint32_t fbx_pool_free_blocks(const struct fbx_rm *rm);

/* ---- wear balance ---- */

/*
 * The wear now: every die's erases (the sum of its blocks' erase counts,
 * as the NAND store keeps them), nand_dies() entries.
 */
void fbx_wear_update(struct fbx_rm *rm, const uint64_t *die_erases);

struct fbx_wear {
	/* Average erases per block: of the whole device, and of its most-worn channel. */
	double avg, max;
	uint32_t max_channel;
	double imbalance; /* max / avg over channels; 1 when nothing is worn */
	uint32_t rounds; /* K >= (N - 1 - x) / (N x) over the lifetime */
	double check_step; /* average erases per block between swap checks: rated_pe / (K N) */
	double next_check; /* the average at which the next check is due */
	uint64_t checks, swaps; /* made so far */
};

void fbx_wear_get(const struct fbx_rm *rm, struct fbx_wear *w);
/* Average erases per block of channel @ch and of die @die, and their erases since the last check. */
double fbx_channel_wear(const struct fbx_rm *rm, uint32_t ch, uint64_t *since_check);
double fbx_die_wear(const struct fbx_rm *rm, uint32_t die, uint64_t *since_check);

/* One die's data and ownership moving to another die. */
struct fbx_move {
	uint32_t owner;
	uint32_t from_die, to_die;
};

#define FBX_MAX_MOVES 64

struct fbx_swap {
	uint32_t nr; /* moves, to be made in order */
	struct fbx_move moves[FBX_MAX_MOVES];
	char why[160];
};

/*
 * Is a swap check due (the device's average wear reached next_check)?
 * Checks follow the erases, not a clock: a device that is not written is
 * never checked.
 */
bool fbx_check_due(const struct fbx_rm *rm);
/*
 * Make the check that is due: each channel's (and die's) erase rate is its
 * erases since the last check. If MaxWear / AvgWear over channels would
 * pass 1 + x by the next check at those rates (or has passed 1 + x / 2),
 * a `channel` vSSD written at least as fast as the average moves, the one
 * whose channel will be the most worn first: to the least-worn channel
 * less worn than its own, a free one directly, another vSSD's (written
 * slower) through a free channel, that vSSD moving to the free channel
 * first. Otherwise, in a channel split among `chip` vSSDs whose most worn
 * die will pass 1 + x times the channel's average, that die's vSSD moves
 * to the least-worn free die of the channel. Returns 1 with the moves in
 * @out, 0 when no swap is needed or none is possible (@out->why says
 * which). The check is counted and the next one set either way.
 */
int fbx_swap_check(struct fbx_rm *rm, struct fbx_swap *out);
/* What fbx_swap_check() would choose now, without making the check. */
int fbx_swap_preview(const struct fbx_rm *rm, struct fbx_swap *out);
/*
 * A move was made: @m->to_die (free, or held by the owner) is now
 * @m->owner's in place of @m->from_die, which is free. -EINVAL when @m
 * does not match the ownership (or the owner is a software vSSD).
 */
int fbx_move_done(struct fbx_rm *rm, const struct fbx_move *m);
/*
 * A move begins: @m->to_die takes @m->from_die's place in the owner's
 * allocation (the FTL's die slot points there from now on), and
 * @m->from_die stays the owner's, held outside its allocation, until
 * fbx_unreserve(): the data is on both until the migration ends, and a
 * cancel moves it back.
 */
int fbx_move_switch(struct fbx_rm *rm, const struct fbx_move *m);
/*
 * Hold free @die for @owner outside its allocation (a migration's
 * destination), or let go of one held (fbx_unreserve). fbx_release()
 * frees held dies too. 0, -EBUSY (taken by another), -EINVAL.
 */
int fbx_reserve(struct fbx_rm *rm, uint32_t owner, uint32_t die);
int fbx_unreserve(struct fbx_rm *rm, uint32_t owner, uint32_t die);
/* The dies @owner holds outside its allocation, into @dies (at most @max); their count. */
uint32_t fbx_reserved(const struct fbx_rm *rm, uint32_t owner, uint32_t *dies, uint32_t max);

/*
 * What must survive a restart beside the allocations (which the caller
 * keeps per vSSD): the erase counts at the last check and the checks and
 * swaps made. The caller saves them and gives them back after
 * fbx_wear_update() on the next start.
 */
struct fbx_wear_state {
	double next_check;
	uint64_t checks, swaps;
	const uint64_t *snapshot; /* nand_dies() entries, the rm's own */
};

void fbx_wear_state_get(const struct fbx_rm *rm, struct fbx_wear_state *st);
/* @snapshot: nand_dies() entries. */
void fbx_wear_state_set(struct fbx_rm *rm, double next_check, uint64_t checks, uint64_t swaps,
			const uint64_t *snapshot);

#endif
