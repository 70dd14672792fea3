/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What recovery.c (checkpoints, the start-up scan) and recovery_reopen.c
 * (the streams' superblocks given back after it) share.
 */
#ifndef BLOX_FTL_RECOVERY_H
#define BLOX_FTL_RECOVERY_H
#include "ftl_internal.h"

/*
 * Where a stream was writing: superblock (-1: none) and next unit offset.
 * CKPT_SB_UNKNOWN: no checkpoint said (recovery looks in the scan).
 */
#define CKPT_SB_UNKNOWN (-2)
struct ckpt_stream {
	int32_t sb;
	uint32_t next;
};

/* What the scan saw of one superblock's pages. */
struct sb_seen {
	uint64_t top_wseq; /* newest unit */
	uint32_t stream; /* OOB stream tag of its pages (FTL_OOB_STREAM_TAG) */
	bool mixed; /* pages of more than one tag */
	bool bad; /* a programmed page unreadable or without our magic */
	bool any; /* a page is programmed */
	bool closed; /* a Reclaim Unit Handle Update closed it (FTL_PAD_RU_CLOSED) */
	bool tagged; /* a page of ours is programmed (stream is its tag) */
	/*
	 * Pages programmed with their OOB erased: torn by a power cut in their
	 * array phase (nand_power_cut()). Their units are never mapped, and
	 * the stream goes on after them as after any programmed page.
	 */
	uint32_t torn;
};

/* Flash page @fpid (its address into @a) is programmed in the store. */
static inline bool page_programmed(const struct ftl *f, uint32_t fpid, struct nand_addr *a)
{
	ftl_fpid_addr(f, fpid, a);
	return f->env.store->blocks[nand_block_index(f->geo, a)].write_ptr > a->page;
}

/*
 * Give each stream back the superblock it was writing (recovery_reopen.c).
 * @clean: nothing on flash is newer than the checkpoint, so its positions
 * @cs hold.
 */
void ftl_reopen_streams(struct ftl *f, const struct sb_seen *seen,
			const struct ckpt_stream cs[ST_COUNT], bool clean);
#endif
