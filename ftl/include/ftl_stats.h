/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FTL's counters and GC's figures (part of ftl.h): what an instance
 * did (ftl_stats), its write amplification, how short of free space it
 * is, and the GC storm a fault injects.
 */
#ifndef BLOX_FTL_STATS_H
#define BLOX_FTL_STATS_H

#include "ftl_core.h"

struct ftl_stats {
	uint64_t host_reads, host_writes, host_trims, flushes; /* units */
	/*
	 * cmt_hits: lookups that found their translation page resident (a
	 * request resumed after waiting for a load counts none); cmt_misses:
	 * loads started.
	 */
	uint64_t cmt_hits, cmt_misses, cmt_evictions, cmt_writebacks;
	uint64_t mdc_lookups, mdc_hits, prefetched_tps;
	uint64_t unmapped_reads, buffer_reads;
	/*
	 * Flash that wears (nand_config.rel): read retries the device took,
	 * reads it found uncorrectable, units GC lost to them, translation
	 * pages lost (each load that failed, each one GC could not move),
	 * host reads of lost units (errors), superblocks refreshed.
	 */
	uint64_t read_retries, uncorrectable_reads, units_lost, tp_lost, lost_reads, refreshes;
	uint64_t superblocks_retired; /* retired now (SB_BAD): an erase or a program of a block failed */
	bool read_only; /* writes are refused: a program failed, or too little spare is left */
	/*
	 * Superblocks that may be retired before the instance turns read-only
	 * (retired ones included): those beyond the capacity, its translation
	 * pages, an open one per stream and one to collect into.
	 */
	uint64_t spare_superblocks;
	/*
	 * Bad blocks remapped to a spare block of their plane (ftl/remap.c):
	 * standing in now, and those remapped for a failed erase (or program)
	 * since the start; the instance's blocks bad from the factory; the
	 * spare pool in blocks (spare_superblocks of the stripe's width) and
	 * what of it is used (retired superblocks, less the donors' blocks
	 * still free to stand in).
	 */
	uint64_t remapped_blocks, remapped_grown, factory_bad_blocks;
	uint64_t spare_blocks, spare_blocks_used;
	/*
	 * Programs that failed on a grown bad block (the FTL survives them:
	 * GC moves the data from the write buffer), and the valid units
	 * those pages held then (GC writes them elsewhere).
	 */
	uint64_t program_failures, pfail_units;
	/*
	 * Dies gone offline (ftl_die_offline()): how many, the valid units
	 * that were on them (lost, but for those the buffer still held), the
	 * translation pages rewritten from memory because their flash copy
	 * was there, and the spare superblocks they took (a superblock holds
	 * less without them: more are needed for the capacity).
	 */
	uint32_t dies_offline;
	uint64_t offline_units, offline_tps_moved, offline_spare_sbs;
	uint64_t offline_programs; /* programs that failed there (their pages kept, GC moves them) */
	uint64_t dies_back; /* dies that came back, replaced (ftl_die_back()) */
	uint64_t tp_rebuilt; /* translation pages only on a die gone, rebuilt from the others' OOB */
	/* Dies gone whose record (LBAs lost) found no room on flash: a crash could bring older data back. */
	uint64_t dierec_failed;
	uint64_t flash_data_reads, flash_tp_reads;
	uint64_t flash_programs, flash_erases;
	uint64_t units_written_host, units_written_gc, units_written_tp, units_padded;
	uint64_t gc_runs, gc_units_moved, wl_runs;
	/* Translation pages GC read (CMT misses) and wrote back (batches). */
	uint64_t gc_tp_reads, gc_tp_writebacks;
	uint64_t gc_paced; /* times a host write waited for a GC credit */
	uint64_t tp_pages_held; /* translation pages held for the data they map */
	uint64_t pages_grouped; /* data pages programmed with their plane partners */
	uint64_t pages_ungrouped; /* data pages that waited for partners, programmed alone */
	uint64_t free_superblocks, superblocks;
	uint32_t max_erase, min_erase;
	uint64_t recovered_units; /* applied from the OOB scan */
	bool recovered_from_checkpoint;
	bool gc_pipeline; /* its configuration's (ftl_config.gc_pipeline) */
	/* GC storms (ftl_gc_storm): how many were asked, the victims they took, one running now. */
	uint64_t gc_storms, gc_storm_victims;
	bool gc_storm_active;
};

void ftl_get_stats(const struct ftl *f, struct ftl_stats *st);

/*
 * A GC storm (bloxctl fault inject gc-storm): GC takes victims now, one
 * after the other, chosen as at its urgent level (the superblock GC's
 * policy scores best among those with any invalid unit), whatever the
 * free space: @superblocks of them (0: no count), for @duration_ns on the
 * FTL's clock (0: no time), whichever ends first; both 0: one victim. A
 * storm asked while one runs replaces it. It ends early when no full
 * superblock has an invalid unit left.
 */
void ftl_gc_storm(struct ftl *f, uint32_t superblocks, uint64_t duration_ns);
/* Write amplification: flash units programmed / host units written. */
double ftl_waf(const struct ftl *f);
/*
 * How short of free space the instance is now, by its GC levels: 0 above
 * background, 1 background, 2 foreground, 3 urgent (host writes wait).
 * Cheap: for a suspension policy's inputs.
 */
uint8_t ftl_space_level(const struct ftl *f);

#endif
