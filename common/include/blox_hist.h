/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Latency histograms with HDR-style log-linear buckets: exact below 64,
 * then 32 buckets per power of two (about 3% resolution) up to 2^64.
 * Adding a value is a few instructions and never allocates.
 */
#ifndef BLOX_HIST_H
#define BLOX_HIST_H

#include <stdint.h>

#define BLOX_HIST_SUB_BITS 5
#define BLOX_HIST_SUB (1u << BLOX_HIST_SUB_BITS)
#define BLOX_HIST_BUCKETS ((64 - BLOX_HIST_SUB_BITS) * BLOX_HIST_SUB + BLOX_HIST_SUB)

struct blox_hist {
	uint64_t count, sum, min, max;
	uint64_t buckets[BLOX_HIST_BUCKETS];
};

void blox_hist_reset(struct blox_hist *h);
void blox_hist_add(struct blox_hist *h, uint64_t v);
/* Merge @src into @dst. */
void blox_hist_merge(struct blox_hist *dst, const struct blox_hist *src);
/*
 * Value at quantile @q in [0, 1] (0.5, 0.99, 0.999): the middle of the
 * bucket holding it, clamped to [min, max]. 0 when empty.
 */
uint64_t blox_hist_quantile(const struct blox_hist *h, double q);
double blox_hist_mean(const struct blox_hist *h);

/* Bucket of @v and the smallest value of bucket @i (for tests). */
uint32_t blox_hist_bucket(uint64_t v);
uint64_t blox_hist_bucket_low(uint32_t i);

#endif
