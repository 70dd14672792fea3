/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hot region tracking: which parts of the LBA space are read most, so
 * that only their mappings compete for the mapping descriptor cache.
 *
 * [0, nr_lbas) is cut into nr_regions regions of ceil(nr_lbas / nr_regions)
 * LBAs; the last used region may be shorter, and when nr_regions does not
 * divide evenly some trailing regions may be empty (they are never read,
 * so never hot). A read adds one to each region it touches. The hot set is
 * the top_n regions by counter (lower index first among equals; a region
 * at 0 never is). Every decay_interval reads all counters are halved, so
 * the hot set follows the workload. The hot set is recomputed on every
 * decay, every FTL_HOT_REFRESH_READS reads and by ftl_hot_refresh(); in
 * between it stays as computed, while the counters move.
 *
 * Not thread-safe: one FTL instance owns one tracker.
 */
#ifndef BLOX_FTL_HOT_H
#define BLOX_FTL_HOT_H

#include <stdbool.h>
#include <stdint.h>

#define FTL_HOT_DEFAULT_REGIONS 128u
#define FTL_HOT_REFRESH_READS 1024u /* reads between hot-set recomputations */

struct ftl_hot;

struct ftl_hot_stats {
	uint64_t reads; /* ftl_hot_read() calls that touched an LBA */
	uint64_t decays; /* times all counters were halved */
	uint64_t refreshes; /* hot-set recomputations, whatever the cause */
};

/*
 * Create a tracker. -EINVAL if @nr_lbas, @nr_regions, @top_n or
 * @decay_interval is 0, if @top_n > @nr_regions or if @nr_lbas exceeds
 * what a uint32_t LBA can count (UINT32_MAX); -ENOMEM. Nothing is hot
 * until the first recomputation.
 */
int ftl_hot_create(uint64_t nr_lbas, uint32_t nr_regions, uint32_t top_n,
		   uint32_t decay_interval, struct ftl_hot **out);

/* Free the tracker (NULL is fine). */
void ftl_hot_destroy(struct ftl_hot *h);

/*
 * Count a read of @nr units from @lba: once per region touched, and one
 * read towards the decay and refresh periods. The part beyond nr_lbas is
 * ignored; a read with nothing left (@nr == 0, or all out of range) is not
 * counted at all.
 */
void ftl_hot_read(struct ftl_hot *h, uint32_t lba, uint32_t nr);

/* Whether @lba is in the hot set as last computed (false out of range). */
bool ftl_hot_is_hot(const struct ftl_hot *h, uint32_t lba);

/* Recompute the hot set from the counters now. */
void ftl_hot_refresh(struct ftl_hot *h);

/*
 * The hot regions, hottest first: up to @max region indexes into @out
 * (NULL is fine when @max is 0). Returns how many were stored.
 */
uint32_t ftl_hot_top(const struct ftl_hot *h, uint32_t *out, uint32_t max);

/* Region holding @lba, or nr_regions when @lba >= nr_lbas. */
uint32_t ftl_hot_region_of(const struct ftl_hot *h, uint32_t lba);

/*
 * First LBA and length of @region into *@first_lba and *@nr (either may be
 * NULL). An empty or out-of-range region gives nr 0 and first_lba nr_lbas.
 */
void ftl_hot_region_range(const struct ftl_hot *h, uint32_t region, uint32_t *first_lba,
			  uint32_t *nr);

/* Current (decayed) counter of @region; 0 out of range. */
uint64_t ftl_hot_count(const struct ftl_hot *h, uint32_t region);

/* Live counters (valid until ftl_hot_destroy()). */
const struct ftl_hot_stats *ftl_hot_stats(const struct ftl_hot *h);

#endif
