/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mapping descriptor cache (MDC): a small cache of run-length-compressed
 * hot mappings in front of the DFTL cached mapping table. A descriptor
 * (lba, ppn, len) says that LBA l in [lba, lba + len) lives at PPN
 * ppn + (l - lba). Descriptors are kept sorted by start LBA and never
 * overlap, so a lookup is a binary search. A run that continues a
 * descriptor (it starts where the descriptor ends and its PPNs go on from
 * the descriptor's, or the other way round) is merged into it, so one
 * descriptor may span many translation pages.
 *
 * The budget models the paper's on-controller SRAM: 10 bytes per descriptor
 * (4-byte LBA, 4-byte PPN, 2-byte length), whatever the in-memory layout.
 * Merging keeps that layout: a descriptor, merged or not, holds at most
 * FTL_MDC_MAX_RUN mappings (256 MiB of 4 KiB units); a longer run is kept
 * as adjacent descriptors of at most that length. LBAs and PPNs are in
 * 4 KiB mapping units.
 *
 * Not thread-safe: one FTL instance owns one cache.
 */
#ifndef BLOX_FTL_MDC_H
#define BLOX_FTL_MDC_H

#include <stdbool.h>
#include <stdint.h>

#ifndef FTL_UNMAPPED
#define FTL_UNMAPPED 0xffffffffu /* PPN of an LBA with no mapping */
#endif
#ifndef FTL_LOST
#define FTL_LOST 0xfffffffeu /* PPN of an LBA whose data was lost (ftl.h) */
#endif

#define FTL_MDC_DESC_BYTES 10u /* modeled size of one descriptor */
#define FTL_MDC_DEFAULT_BUDGET 2048u /* bytes: 204 descriptors */
#define FTL_MDC_MAX_RUN 65535u /* a run length fits 16 bits */

struct ftl_mdc;

/* One descriptor, as reported by ftl_mdc_desc_at(). */
struct ftl_mdc_desc {
	uint32_t lba, ppn, len;
};

/*
 * Counters since creation (ftl_mdc_clear() keeps them). Every offer ends in
 * exactly one of admitted / rejected_short / rejected_overlap /
 * rejected_full, and, as long as the cache was never cleared,
 * count == admitted - replaced - superseded - merged - invalidated + split.
 */
struct ftl_mdc_stats {
	uint64_t lookups, hits;
	uint64_t offered, admitted;
	uint64_t rejected_short; /* shorter than min_run after clamping */
	uint64_t rejected_full; /* cache full, not longer than the shortest */
	uint64_t replaced; /* shortest descriptor evicted by a longer run */
	uint64_t invalidated; /* descriptors removed by invalidate */
	uint64_t split; /* descriptors cut in two by invalidate */
	uint32_t count, capacity; /* descriptors held now / at most */
	uint64_t covered_lbas; /* sum of the lengths held now */
	/* Beyond the base set: */
	uint64_t rejected_overlap; /* shorter than the longest it overlaps */
	uint64_t superseded; /* descriptors removed by an overlapping run */
	/* Descriptors absorbed into an admitted run that continues or holds them. */
	uint64_t merged;
};

/*
 * Create a cache of @budget_bytes / 10 descriptors admitting runs of at
 * least @min_run mappings. -EINVAL if @budget_bytes < 10, @min_run == 0 or
 * @min_run > FTL_MDC_MAX_RUN (nothing could ever be admitted); -ENOMEM.
 */
int ftl_mdc_create(uint32_t budget_bytes, uint32_t min_run, struct ftl_mdc **out);

/* Free the cache (NULL is fine). */
void ftl_mdc_destroy(struct ftl_mdc *m);

/*
 * Look @lba up: on a hit store its PPN in *@ppn (if @ppn is not NULL) and
 * return true. Counts lookups and hits. O(log n).
 */
bool ftl_mdc_lookup(struct ftl_mdc *m, uint32_t lba, uint32_t *ppn);

/*
 * Offer the run @lba -> @ppn of @len mappings; true when it is held
 * afterwards (stored, or merged into a descriptor). The run is first
 * clamped to FTL_MDC_MAX_RUN entries and to what neither the LBA nor the
 * PPN space overflows (a @ppn of FTL_UNMAPPED clamps to 0; nothing left:
 * rejected_short).
 *
 * Merge: a descriptor on the run's diagonal (LBA l maps to l + @ppn - @lba
 * in both) that overlaps the run or touches it (ends at @lba, starts at
 * @lba + len) is merged with it; the result spans their union. The
 * descriptor reaching below the run and the one reaching above it are
 * merged if the union fits FTL_MDC_MAX_RUN, else only the lower one if
 * that fits, else only the upper one, else neither. Descriptors on the
 * diagonal inside the run are always merged (merged += every descriptor
 * absorbed). A run held by one descriptor already is admitted with the
 * cache unchanged (merged++).
 *
 * Then the rules apply to the result (the run when nothing merges), in
 * order:
 *  - shorter than min_run: rejected_short;
 *  - it overlaps descriptors it does not merge (another diagonal, or a
 *    side left out for length): it replaces all of them (superseded +=
 *    their number) if it is at least as long as the longest of them, else
 *    rejected_overlap;
 *  - it merged or replaced nothing and the cache is full: it evicts the
 *    shortest descriptor (the lowest LBA among equals; replaced++) if
 *    strictly longer than it, else rejected_full.
 * The caller offers only runs that match the current mapping (so, with
 * descriptors kept right by ftl_mdc_invalidate(), an overlap is always on
 * the same diagonal and merges).
 */
bool ftl_mdc_offer(struct ftl_mdc *m, uint32_t lba, uint32_t ppn, uint32_t len);

/*
 * The host wrote or trimmed [@lba, @lba + @len) (clamped to the LBA space):
 * every descriptor overlapping it is cut. What lies outside the range
 * survives as up to two descriptors (split++ when one becomes two); a
 * piece shorter than min_run is dropped; invalidated++ per descriptor left
 * with no piece. A split needing a slot in a full cache evicts the shortest
 * other descriptor (the lowest LBA among equals; replaced++) if it is
 * shorter than both pieces, else keeps only the longer piece (the lower
 * one among equals): merged descriptors make pieces worth keeping. A GC
 * move of one mapping is invalidate(lba, 1).
 */
void ftl_mdc_invalidate(struct ftl_mdc *m, uint32_t lba, uint32_t len);

/*
 * Scan @n mapping entries (@entries[i] is the PPN of LBA @first_lba + i,
 * FTL_UNMAPPED for none; entries past the end of the LBA space are ignored)
 * for maximal runs where LBA and PPN both advance by one, and offer each
 * run whose first LBA is hot (@hot(@ctx, lba); NULL @hot: all are hot). A
 * run longer than FTL_MDC_MAX_RUN is offered as consecutive pieces of at
 * most that length, each judged by its own first LBA. Each run is
 * offered through ftl_mdc_offer(), so runs continuing descriptors from
 * earlier scans (neighbouring translation pages) merge with them. Returns
 * the number of runs admitted.
 */
uint32_t ftl_mdc_scan(struct ftl_mdc *m, uint32_t first_lba, const uint32_t *entries,
		      uint32_t n, bool (*hot)(void *ctx, uint32_t lba), void *ctx);

/* Drop every descriptor. The counters are kept; count and covered go to 0. */
void ftl_mdc_clear(struct ftl_mdc *m);

/* Live counters (valid until ftl_mdc_destroy()). */
const struct ftl_mdc_stats *ftl_mdc_stats(const struct ftl_mdc *m);

/*
 * The @idx-th descriptor in LBA order into *@out: 0, or -ENOENT when @idx
 * is not below the current count. For tests, dumps and telemetry.
 */
int ftl_mdc_desc_at(const struct ftl_mdc *m, uint32_t idx, struct ftl_mdc_desc *out);

#endif
