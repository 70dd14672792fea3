/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read-only inspection of an FTL instance (part of ftl.h, inspect.c),
 * for tests and the simulator.
 */
#ifndef BLOX_FTL_INSPECT_H
#define BLOX_FTL_INSPECT_H

#include "ftl_core.h"

/*
 * Read-only inspection of an instance, for tests and the simulator
 * (inspect.c): its layout, superblocks, streams, translation pages and
 * the work in progress, as they are now. Nothing here changes the
 * instance (nor the CMT's LRU order).
 */
struct ftl_layout {
	uint32_t ndies, planes; /* of the instance */
	uint32_t slots; /* units per flash page */
	uint32_t stripe; /* flash pages per superblock row: planes * dies */
	uint32_t pages_per_block;
	uint32_t units_per_sb, nr_sb; /* superblocks, checkpoint ones included */
	uint32_t ckpt_sbs; /* superblocks 0..ckpt_sbs-1 hold checkpoints */
	uint32_t capacity; /* host units, as ftl_capacity() */
	uint32_t nr_tp, tp_entries; /* translation pages, mappings in each */
	uint32_t cmt_pages; /* translation pages the CMT holds at most */
	uint32_t nr_wbufs; /* write buffer pages */
};

void ftl_inspect_layout(const struct ftl *f, struct ftl_layout *out);

enum ftl_sb_status {
	FTL_SB_FREE,
	FTL_SB_OPEN, /* a stream writes into it */
	FTL_SB_FULL,
	FTL_SB_GC, /* the victim GC is collecting */
	FTL_SB_ERASING,
	FTL_SB_CKPT, /* reserved for checkpoints */
	FTL_SB_BAD, /* retired: an erase or a program of one of its blocks failed */
};

struct ftl_sb_info {
	enum ftl_sb_status state;
	uint32_t valid; /* valid units */
	uint32_t erase_count;
};

/* Superblock @sb (below nr_sb). */
void ftl_inspect_sb(const struct ftl *f, uint32_t sb, struct ftl_sb_info *out);

enum ftl_stream_id {
	FTL_STREAM_SEQ,
	FTL_STREAM_RAND,
	FTL_STREAM_GC,
	FTL_STREAM_TP, /* translation pages */
	FTL_STREAM_RUH0, /* host writes of handle h: FTL_STREAM_RUH0 + h */
	FTL_STREAM_RUHGC0 = FTL_STREAM_RUH0 + FTL_MAX_RUH, /* GC of handle h (persistent) */
	FTL_STREAMS = FTL_STREAM_RUHGC0 + FTL_MAX_RUH,
};

struct ftl_stream_info {
	int32_t sb; /* its open superblock, -1: none */
	uint32_t next; /* next unit offset inside it */
	bool filling; /* it has a write buffer page being filled */
};

void ftl_inspect_stream(const struct ftl *f, enum ftl_stream_id s, struct ftl_stream_info *out);

struct ftl_tp_info {
	uint32_t ppn; /* where it is on flash (the GTD); FTL_UNMAPPED: nowhere yet */
	bool cached; /* in the CMT, loading or loaded */
	bool ready; /* in the CMT and loaded */
	bool dirty; /* loaded, and changed since it was written */
};

/* Translation page @tp (below nr_tp). */
void ftl_inspect_tp(const struct ftl *f, uint32_t tp, struct ftl_tp_info *out);
/*
 * The PPN @lba maps to in its translation page when that page is loaded
 * in the CMT (FTL_UNMAPPED: never written, or trimmed); false when it is
 * not loaded (the MDC is not consulted).
 */
bool ftl_inspect_lba(const struct ftl *f, uint32_t lba, uint32_t *ppn);
/*
 * The NAND address of the instance's flash page @fpid: the page holding
 * units fpid * slots onwards; superblock sb's pages are, in write order,
 * sb * pages_per_block * stripe onwards.
 */
void ftl_inspect_page_addr(const struct ftl *f, uint32_t fpid, struct nand_addr *out);
/*
 * Unit @ppn's FTL_UNIT bytes while they are in a write buffer page
 * (filling or programming); NULL once programmed.
 */
const uint8_t *ftl_inspect_buffered(const struct ftl *f, uint32_t ppn);
/* Unit @ppn's validity bit: it holds data or a translation page in use. */
bool ftl_inspect_valid(const struct ftl *f, uint32_t ppn);

struct ftl_activity {
	uint32_t outstanding; /* host requests inside the FTL */
	uint32_t free_sbs; /* free superblocks */
	uint32_t wbufs_busy; /* write buffer pages not free */
	uint32_t pages_in_flight; /* buffer pages ticketed, not programmed yet */
	uint64_t next_ticket, done_through; /* programs ticketed; done, in order */
	uint32_t write_waiting; /* host writes waiting for buffer space or GC */
	uint32_t paced; /* host writes waiting for a GC credit (foreground level) */
	uint32_t read_waiting; /* host reads waiting for a read context */
	/* The sequential write later ones wait behind (NULL: none), and them. */
	const struct ftl_io *seq_blocker;
	uint32_t seq_waiting;
	bool prefetch_busy; /* idle prefetch is loading translation page */
	uint32_t prefetch_tp;
	uint64_t ckpt_gen; /* generation of the newest checkpoint */
	uint64_t wseq; /* write sequence: units written so far */
	bool fatal; /* a program failed: writes are refused */
};

void ftl_inspect_activity(const struct ftl *f, struct ftl_activity *out);

enum ftl_gc_phase {
	FTL_GC_PHASE_IDLE,
	FTL_GC_PHASE_SCAN, /* reading the OOB of the victim's pages */
	FTL_GC_PHASE_READ, /* reading the data of a round */
	FTL_GC_PHASE_MOVE, /* moving the round's units */
	FTL_GC_PHASE_ERASING, /* collected, waiting for an erase slot (busy says more) */
};

struct ftl_gc_info {
	bool active; /* a victim is being collected */
	bool busy; /* active, or a collected victim's erase is pending */
	uint32_t erases_pending; /* collected victims waiting for their erase */
	bool urgent; /* below the urgent level: host writes wait for GC */
	int32_t victim; /* -1: none */
	enum ftl_gc_phase phase;
	uint32_t victim_units; /* valid units the scan found in the victim */
	uint32_t groups_max; /* translation pages one round may load */
	/* The levels (ftl_config), in free superblocks, and the spare they are of. */
	uint32_t spare, lvl_idle, lvl_bg, lvl_fg, lvl_urgent;
};

void ftl_inspect_gc(const struct ftl *f, struct ftl_gc_info *out);

struct ftl_mdc_info {
	uint32_t count; /* descriptors held */
	uint64_t covered; /* LBAs they cover */
};

void ftl_inspect_mdc(const struct ftl *f, struct ftl_mdc_info *out);

#endif
