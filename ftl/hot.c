/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hot region tracking (see hot.h): one decaying read counter per region
 * and the top-N set recomputed by sorting the non-zero counters, which is
 * cheap at the hundred-odd regions it is meant for.
 */
#include "hot.h"

#include <errno.h>
#include <stdlib.h>

struct hot_rank {
	uint64_t count;
	uint32_t region;
};

struct ftl_hot {
	uint32_t nr_lbas, nr_regions, region_size, top_n, decay_interval;
	uint64_t *count; /* per region */
	bool *hot; /* per region, as of the last recomputation */
	uint32_t *top; /* nr_top regions, hottest first */
	uint32_t nr_top;
	struct hot_rank *rank; /* scratch for the recomputation */
	struct ftl_hot_stats st;
};

int ftl_hot_create(uint64_t nr_lbas, uint32_t nr_regions, uint32_t top_n,
		   uint32_t decay_interval, struct ftl_hot **out)
{
	struct ftl_hot *h;

	if (!nr_lbas || nr_lbas > UINT32_MAX || !nr_regions || !top_n ||
	    !decay_interval || top_n > nr_regions)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->nr_lbas = (uint32_t)nr_lbas;
	h->nr_regions = nr_regions;
	h->region_size = (uint32_t)((nr_lbas + nr_regions - 1) / nr_regions);
	h->top_n = top_n;
	h->decay_interval = decay_interval;
	h->count = calloc(nr_regions, sizeof(*h->count));
	if (!h->count)
		goto free_hot;
	h->hot = calloc(nr_regions, sizeof(*h->hot));
	if (!h->hot)
		goto free_count;
	h->top = calloc(top_n, sizeof(*h->top));
	if (!h->top)
		goto free_flags;
	h->rank = calloc(nr_regions, sizeof(*h->rank));
	if (!h->rank)
		goto free_top;
	*out = h;
	return 0;

free_top:
	free(h->top);
free_flags:
	free(h->hot);
free_count:
	free(h->count);
free_hot:
	free(h);
	return -ENOMEM;
}

void ftl_hot_destroy(struct ftl_hot *h)
{
	if (!h)
		return;
	free(h->rank);
	free(h->top);
	free(h->hot);
	free(h->count);
	free(h);
}

/* Higher count first, then lower region index. */
static int rank_cmp(const void *a, const void *b)
{
	const struct hot_rank *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->region < y->region ? -1 : x->region > y->region;
}

void ftl_hot_refresh(struct ftl_hot *h)
{
	uint32_t n = 0;

	for (uint32_t r = 0; r < h->nr_regions; r++) {
		h->hot[r] = false;
		if (h->count[r])
			h->rank[n++] = (struct hot_rank){ .count = h->count[r], .region = r };
	}
	qsort(h->rank, n, sizeof(*h->rank), rank_cmp);
	h->nr_top = n < h->top_n ? n : h->top_n;
	for (uint32_t i = 0; i < h->nr_top; i++) {
		h->top[i] = h->rank[i].region;
		h->hot[h->top[i]] = true;
	}
	h->st.refreshes++;
}

void ftl_hot_read(struct ftl_hot *h, uint32_t lba, uint32_t nr)
{
	uint64_t end = (uint64_t)lba + nr;
	uint32_t first, last;

	if (end > h->nr_lbas)
		end = h->nr_lbas;
	if (lba >= end)
		return;
	first = lba / h->region_size;
	last = (uint32_t)((end - 1) / h->region_size);
	for (uint32_t r = first; r <= last; r++)
		h->count[r]++;

	h->st.reads++;
	if (h->st.reads % h->decay_interval == 0) {
		for (uint32_t r = 0; r < h->nr_regions; r++)
			h->count[r] >>= 1;
		h->st.decays++;
		ftl_hot_refresh(h);
	} else if (h->st.reads % FTL_HOT_REFRESH_READS == 0) {
		ftl_hot_refresh(h);
	}
}

bool ftl_hot_is_hot(const struct ftl_hot *h, uint32_t lba)
{
	return lba < h->nr_lbas && h->hot[lba / h->region_size];
}

uint32_t ftl_hot_top(const struct ftl_hot *h, uint32_t *out, uint32_t max)
{
	uint32_t n = h->nr_top < max ? h->nr_top : max;

	for (uint32_t i = 0; i < n; i++)
		out[i] = h->top[i];
	return n;
}

uint32_t ftl_hot_region_of(const struct ftl_hot *h, uint32_t lba)
{
	return lba < h->nr_lbas ? lba / h->region_size : h->nr_regions;
}

void ftl_hot_region_range(const struct ftl_hot *h, uint32_t region, uint32_t *first_lba,
			  uint32_t *nr)
{
	uint64_t first = h->nr_lbas, end = h->nr_lbas;

	if (region < h->nr_regions) {
		first = (uint64_t)region * h->region_size;
		end = first + h->region_size;
		/* Trailing regions may be short or empty. */
		if (first > h->nr_lbas)
			first = h->nr_lbas;
		if (end > h->nr_lbas)
			end = h->nr_lbas;
	}
	if (first_lba)
		*first_lba = (uint32_t)first;
	if (nr)
		*nr = (uint32_t)(end - first);
}

uint64_t ftl_hot_count(const struct ftl_hot *h, uint32_t region)
{
	return region < h->nr_regions ? h->count[region] : 0;
}

const struct ftl_hot_stats *ftl_hot_stats(const struct ftl_hot *h)
{
	return &h->st;
}
