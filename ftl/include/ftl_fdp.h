/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flexible Data Placement in the FTL (part of ftl.h, fdp.c): reclaim
 * unit handles' counters and events, Reclaim Unit Handle Update, the
 * event log kept for the layer above, the reclaim unit time limit.
 */
#ifndef BLOX_FTL_FDP_H
#define BLOX_FTL_FDP_H

#include "ftl_core.h"

/*
 * Flexible Data Placement: what one reclaim unit handle wrote and erased,
 * in bytes (units of FTL_UNIT), as NVMe's FDP statistics count them: host
 * bytes its writes brought; media bytes programmed into superblocks of
 * the handle (its host data, GC moves into them, padding); bytes erased
 * of its superblocks (a superblock's units when it is erased). A
 * superblock belongs to the handle whose stream opened it; one the
 * common GC stream or the translation stream opened belongs to none, and
 * counts in ftl_fdp_stats.other. Kept by the checkpoint; after a crash
 * they are the checkpoint's (as ftl_stats are).
 */
struct ftl_fdp_ctr {
	uint64_t host_bytes, media_bytes, erased_bytes;
};

/*
 * An event of a reclaim unit handle the FTL caused by itself (NVMe's FDP
 * events not caused by a host command):
 *   FTL_FDP_EV_RU_FILLED    the handle's reclaim unit was fully written
 *                           and its next host write opened another
 *                           (Implicitly Modified Reclaim Unit Handle);
 *   FTL_FDP_EV_RU_TIMEOUT   its reclaim unit stayed open past
 *                           ftl_config.ru_time_limit_ns and the FTL closed
 *                           it (Reclaim Unit Time Limit Exceeded);
 *   FTL_FDP_EV_REALLOC      GC (collection, refresh of a failing block, a
 *                           failed program's superblock) moved @moved
 *                           valid units of a superblock of the handle
 *                           elsewhere, the first of them LBA unit @lba
 *                           (Media Reallocated).
 */
#define FTL_FDP_EVENTS 64
enum ftl_fdp_event_type {
	FTL_FDP_EV_RU_FILLED = 1,
	FTL_FDP_EV_RU_TIMEOUT = 2,
	FTL_FDP_EV_REALLOC = 3,
};

struct ftl_fdp_event {
	uint64_t seq; /* 1, 2, ... */
	uint64_t ns; /* when (the instance's clock) */
	uint32_t type; /* enum ftl_fdp_event_type */
	uint32_t ruh;
	uint32_t moved; /* FTL_FDP_EV_REALLOC: units moved */
	uint32_t lba; /* FTL_FDP_EV_REALLOC: the first unit moved (an FTL LBA, in units) */
};

struct ftl_fdp_stats {
	uint32_t nr_ruh;
	bool persistent;
	uint64_t ru_bytes; /* a reclaim unit's size: a superblock's data */
	uint64_t ru_time_limit_ns; /* ftl_config.ru_time_limit_ns */
	struct ftl_fdp_ctr ruh[FTL_MAX_RUH];
	struct ftl_fdp_ctr other; /* superblocks of no handle */
	struct ftl_fdp_ctr total; /* the sums: the endurance group's figures */
	/* Per handle: bytes its reclaim unit can still take (0: none open). */
	uint64_t ru_left[FTL_MAX_RUH];
	uint64_t ru_updates[FTL_MAX_RUH]; /* ftl_ruh_update() calls that moved it */
	uint64_t ru_implicit[FTL_MAX_RUH]; /* reclaim units it left because they filled */
	uint64_t ru_expired[FTL_MAX_RUH]; /* reclaim units closed by the time limit */
	/*
	 * What the FTL did to the handles on its own, newest FTL_FDP_EVENTS
	 * kept: event seq s is ev[(s - 1) % FTL_FDP_EVENTS], ev_seq the newest
	 * (0: none yet). Kept by the checkpoint (a clean stop takes one); after
	 * a crash they are the last checkpoint's.
	 */
	uint64_t ev_seq;
	struct ftl_fdp_event ev[FTL_FDP_EVENTS];
};

/* -EINVAL without placement handles. */
int ftl_fdp_stats(const struct ftl *f, struct ftl_fdp_stats *out);
/*
 * Reclaim Unit Handle Update: handle @ruh's next write goes to a fresh
 * reclaim unit. The page being filled is padded and programmed, the
 * superblock closes (what is left of it is never written; GC reclaims it
 * as any other). The padding carries a mark that recovery reads: after a
 * crash the superblock stays closed, where a partly written one of a
 * stream is otherwise reopened. When the reclaim unit ends on a page
 * boundary, a page of marked padding is programmed. The mark is durable
 * once a flush (FTL_IO_FLUSH, issued_only is enough) after it completed. 0; -EINVAL for a
 * handle out of range; -ESHUTDOWN; -EAGAIN when no write buffer is free
 * for the marked page (nothing changed: try again). A handle with
 * nothing written in its reclaim unit stays where it is.
 */
int ftl_ruh_update(struct ftl *f, uint32_t ruh);
/*
 * The FDP event log of the layer above (bloxd's NVMe layer: what log 23h
 * shows and how it was enabled), an opaque block of at most
 * FTL_FDP_LOG_BYTES the FTL keeps with its own event ring in every
 * checkpoint: after a clean restart ftl_fdp_log_get() gives back what the
 * last ftl_fdp_log_set() before the stop gave. set: 0, -EINVAL without
 * handles, -E2BIG. get: its length (0: none), copied into @buf (@cap).
 */
#define FTL_FDP_LOG_BYTES 12288u
int ftl_fdp_log_set(struct ftl *f, const void *buf, uint32_t len);
uint32_t ftl_fdp_log_get(const struct ftl *f, void *buf, uint32_t cap);
/*
 * When the next reclaim unit reaches ftl_config.ru_time_limit_ns (now()'s
 * time): call ftl_process() then. UINT64_MAX: none open, or no limit.
 */
uint64_t ftl_fdp_deadline(const struct ftl *f);

#endif
