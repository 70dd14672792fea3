/* SPDX-License-Identifier: BSD-3-Clause */
/* Log-linear latency histograms (see hist.h). */
#include "blox_hist.h"

#include <string.h>

uint32_t blox_hist_bucket(uint64_t v)
{
	uint32_t e;

	if (v < 2 * BLOX_HIST_SUB)
		return (uint32_t)v;
	e = 63u - (uint32_t)__builtin_clzll(v);
	return (e - BLOX_HIST_SUB_BITS) * BLOX_HIST_SUB +
	       (uint32_t)(v >> (e - BLOX_HIST_SUB_BITS));
}

uint64_t blox_hist_bucket_low(uint32_t i)
{
	uint32_t e, m;

	if (i < 2 * BLOX_HIST_SUB)
		return i;
	e = i / BLOX_HIST_SUB + BLOX_HIST_SUB_BITS - 1;
	m = i % BLOX_HIST_SUB + BLOX_HIST_SUB;
	return (uint64_t)m << (e - BLOX_HIST_SUB_BITS);
}

void blox_hist_reset(struct blox_hist *h)
{
	memset(h, 0, sizeof(*h));
}

void blox_hist_add(struct blox_hist *h, uint64_t v)
{
	if (h->count == 0 || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->buckets[blox_hist_bucket(v)]++;
}

void blox_hist_merge(struct blox_hist *dst, const struct blox_hist *src)
{
	if (!src->count)
		return;
	if (dst->count == 0 || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (uint32_t i = 0; i < BLOX_HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

uint64_t blox_hist_quantile(const struct blox_hist *h, double q)
{
	uint64_t rank, seen = 0;

	if (!h->count)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	rank = (uint64_t)(q * (double)h->count);
	if (rank >= h->count)
		rank = h->count - 1;
	for (uint32_t i = 0; i < BLOX_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen > rank) {
			uint64_t lo = blox_hist_bucket_low(i);
			uint64_t hi = i + 1 < BLOX_HIST_BUCKETS
					      ? blox_hist_bucket_low(i + 1)
					      : UINT64_MAX;
			uint64_t mid = lo + (hi - lo) / 2;

			if (mid < h->min)
				mid = h->min;
			if (mid > h->max)
				mid = h->max;
			return mid;
		}
	}
	return h->max;
}

double blox_hist_mean(const struct blox_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}
