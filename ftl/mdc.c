/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Mapping descriptor cache (see mdc.h): a sorted array of non-overlapping
 * runs. Lookups binary-search it; offers and invalidations shift the tail
 * with memmove, which is cheap at the few hundred entries a 2 KiB budget
 * holds. Eviction picks the shortest descriptor by a linear scan. An
 * offer first finds the descriptors it overlaps or touches (a contiguous
 * slice of the array), merges those on its diagonal within the 16-bit
 * length, and replaces the slice by one descriptor.
 */
#include "mdc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LBA_SPACE (UINT64_C(1) << 32)

struct ftl_mdc {
	struct ftl_mdc_desc *d; /* st.count entries, sorted by lba */
	uint32_t min_run;
	struct ftl_mdc_stats st;
};

static uint64_t desc_end(const struct ftl_mdc_desc *d)
{
	return (uint64_t)d->lba + d->len;
}

int ftl_mdc_create(uint32_t budget_bytes, uint32_t min_run, struct ftl_mdc **out)
{
	struct ftl_mdc *m;

	if (budget_bytes < FTL_MDC_DESC_BYTES || min_run == 0 ||
	    min_run > FTL_MDC_MAX_RUN)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->st.capacity = budget_bytes / FTL_MDC_DESC_BYTES;
	m->d = calloc(m->st.capacity, sizeof(*m->d));
	if (!m->d)
		goto free_mdc;
	m->min_run = min_run;
	*out = m;
	return 0;

free_mdc:
	free(m);
	return -ENOMEM;
}

void ftl_mdc_destroy(struct ftl_mdc *m)
{
	if (!m)
		return;
	free(m->d);
	free(m);
}

/* Index of the first descriptor ending after @lba (count if none). */
static uint32_t first_ending_after(const struct ftl_mdc *m, uint64_t lba)
{
	uint32_t lo = 0, hi = m->st.count;

	/* Ends are sorted too: the descriptors are sorted and disjoint. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (desc_end(&m->d[mid]) > lba)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* Remove descriptors [i, j). */
static void remove_range(struct ftl_mdc *m, uint32_t i, uint32_t j)
{
	for (uint32_t k = i; k < j; k++)
		m->st.covered_lbas -= m->d[k].len;
	memmove(&m->d[i], &m->d[j], (m->st.count - j) * sizeof(*m->d));
	m->st.count -= j - i;
}

/* Insert a descriptor at index @i; the caller made sure of a free slot. */
static void insert_at(struct ftl_mdc *m, uint32_t i, uint32_t lba, uint32_t ppn,
		      uint32_t len)
{
	memmove(&m->d[i + 1], &m->d[i], (m->st.count - i) * sizeof(*m->d));
	m->d[i] = (struct ftl_mdc_desc){ .lba = lba, .ppn = ppn, .len = len };
	m->st.count++;
	m->st.covered_lbas += len;
}

/* Index of the shortest descriptor, the lowest LBA among equals. */
static uint32_t shortest(const struct ftl_mdc *m)
{
	uint32_t best = 0;

	for (uint32_t k = 1; k < m->st.count; k++)
		if (m->d[k].len < m->d[best].len)
			best = k;
	return best;
}

/* The shortest descriptor but @skip (lowest LBA among equals); @skip if alone. */
static uint32_t shortest_other(const struct ftl_mdc *m, uint32_t skip)
{
	uint32_t best = skip;

	for (uint32_t k = 0; k < m->st.count; k++)
		if (k != skip && (best == skip || m->d[k].len < m->d[best].len))
			best = k;
	return best;
}

bool ftl_mdc_lookup(struct ftl_mdc *m, uint32_t lba, uint32_t *ppn)
{
	uint32_t i;

	m->st.lookups++;
	i = first_ending_after(m, lba);
	if (i == m->st.count || m->d[i].lba > lba)
		return false;
	m->st.hits++;
	if (ppn)
		*ppn = m->d[i].ppn + (lba - m->d[i].lba);
	return true;
}

/* Run offset of a descriptor: LBA l maps to l + diag. Never wraps in int64. */
static int64_t diag_of(uint32_t lba, uint32_t ppn)
{
	return (int64_t)ppn - (int64_t)lba;
}

bool ftl_mdc_offer(struct ftl_mdc *m, uint32_t lba, uint32_t ppn, uint32_t len)
{
	uint64_t n = len, end, lo, hi;
	uint32_t i, j, first, last, absorbed = 0, conflicts = 0, longest = 0;
	bool left = false, right = false;
	int64_t diag = diag_of(lba, ppn);

	m->st.offered++;
	/* Clamp so that neither the LBA nor the PPN range wraps (or reaches
	 * FTL_UNMAPPED), then to what 16 bits can say. */
	if (n > LBA_SPACE - lba)
		n = LBA_SPACE - lba;
	if (n > (uint64_t)FTL_UNMAPPED - ppn)
		n = (uint64_t)FTL_UNMAPPED - ppn;
	if (n > FTL_MDC_MAX_RUN)
		n = FTL_MDC_MAX_RUN;
	if (n == 0) {
		m->st.rejected_short++;
		return false;
	}
	end = lba + n;

	/*
	 * [i, j): every descriptor that overlaps the run or touches it (ends
	 * at @lba or starts at @end). Only d[i] can start before the run and
	 * only d[j - 1] end after it.
	 */
	i = first_ending_after(m, lba ? (uint64_t)lba - 1 : 0);
	for (j = i; j < m->st.count && m->d[j].lba <= end; j++)
		;
	/*
	 * A neighbour on the same diagonal continues the run: merge. Both
	 * sides if the result fits 16 bits, else the left one, else the right
	 * one, else neither (a descriptor never exceeds FTL_MDC_MAX_RUN).
	 */
	if (j > i) {
		bool can_l = m->d[i].lba < lba && diag_of(m->d[i].lba, m->d[i].ppn) == diag;
		bool can_r = desc_end(&m->d[j - 1]) > end &&
			     diag_of(m->d[j - 1].lba, m->d[j - 1].ppn) == diag;
		uint64_t l_lo = can_l ? m->d[i].lba : lba;
		uint64_t r_hi = can_r ? desc_end(&m->d[j - 1]) : end;

		if (r_hi - l_lo <= FTL_MDC_MAX_RUN) {
			left = can_l;
			right = can_r;
		} else if (can_l && end - l_lo <= FTL_MDC_MAX_RUN) {
			left = true;
		} else if (can_r && r_hi - lba <= FTL_MDC_MAX_RUN) {
			right = true;
		}
	}
	lo = left ? m->d[i].lba : lba;
	hi = right ? desc_end(&m->d[j - 1]) : end;

	/*
	 * What happens to each of [i, j): merged into the result (a chosen
	 * side, or inside the run on its diagonal), superseded (overlapping,
	 * another diagonal or a side left out), or kept (only touching).
	 */
	first = j;
	last = i;
	for (uint32_t k = i; k < j; k++) {
		const struct ftl_mdc_desc *d = &m->d[k];
		bool overlaps = d->lba < end && desc_end(d) > lba;
		bool inside = d->lba >= lba && desc_end(d) <= end;

		if ((k == i && left) || (k == j - 1 && right) ||
		    (inside && diag_of(d->lba, d->ppn) == diag)) {
			absorbed++;
		} else if (overlaps) {
			conflicts++;
			if (d->len > longest)
				longest = d->len;
		} else {
			continue;
		}
		first = k < first ? k : first;
		last = k + 1;
	}

	if (hi - lo < m->min_run) {
		m->st.rejected_short++;
		return false;
	}
	if (conflicts && hi - lo < longest) {
		m->st.rejected_overlap++;
		return false;
	}
	if (first < last) {
		m->st.merged += absorbed;
		m->st.superseded += conflicts;
		remove_range(m, first, last);
		i = first;
	} else if (m->st.count == m->st.capacity) {
		uint32_t s = shortest(m);

		if (hi - lo <= m->d[s].len) {
			m->st.rejected_full++;
			return false;
		}
		m->st.replaced++;
		remove_range(m, s, s + 1);
		/* Insert before the first descriptor starting after the run. */
		i = first_ending_after(m, lba);
	} else {
		i = first_ending_after(m, lba);
	}
	insert_at(m, i, (uint32_t)lo, (uint32_t)((int64_t)lo + diag), (uint32_t)(hi - lo));
	m->st.admitted++;
	return true;
}

void ftl_mdc_invalidate(struct ftl_mdc *m, uint32_t lba, uint32_t len)
{
	struct ftl_mdc_desc keep[2];
	uint64_t end = (uint64_t)lba + len;
	uint32_t i, j, nkeep = 0;

	if (!len)
		return;
	i = first_ending_after(m, lba);
	for (j = i; j < m->st.count && m->d[j].lba < end; j++)
		;
	if (j == i)
		return;

	/* Only the first overlapped descriptor can keep a part below the
	 * range and only the last a part above it. */
	if (m->d[i].lba < lba) {
		uint32_t n = lba - m->d[i].lba;

		if (n >= m->min_run)
			keep[nkeep++] = (struct ftl_mdc_desc){ .lba = m->d[i].lba,
							       .ppn = m->d[i].ppn,
							       .len = n };
	}
	if (desc_end(&m->d[j - 1]) > end) {
		const struct ftl_mdc_desc *d = &m->d[j - 1];
		uint32_t skip = (uint32_t)(end - d->lba);
		uint32_t n = d->len - skip;

		if (n >= m->min_run)
			keep[nkeep++] = (struct ftl_mdc_desc){ .lba = (uint32_t)end,
							       .ppn = d->ppn + skip,
							       .len = n };
	}

	if (j - i == 1 && nkeep == 2) {
		uint32_t s = shortest_other(m, i);
		uint32_t small = keep[0].len < keep[1].len ? keep[0].len : keep[1].len;

		if (m->st.count < m->st.capacity) {
			m->st.split++;
		} else if (s != i && m->d[s].len < small) {
			/* Full: both pieces beat the shortest other descriptor. */
			m->st.split++;
			m->st.replaced++;
			remove_range(m, s, s + 1);
			if (s < i) {
				i--;
				j--;
			}
		} else {
			/* No slot for a second piece: keep the longer one. */
			if (keep[1].len > keep[0].len)
				keep[0] = keep[1];
			nkeep = 1;
		}
	} else {
		/* Each kept piece is what is left of a distinct descriptor. */
		m->st.invalidated += (j - i) - nkeep;
	}

	remove_range(m, i, j);
	for (uint32_t k = 0; k < nkeep; k++)
		insert_at(m, i + k, keep[k].lba, keep[k].ppn, keep[k].len);
}

uint32_t ftl_mdc_scan(struct ftl_mdc *m, uint32_t first_lba, const uint32_t *entries,
		      uint32_t n, bool (*hot)(void *ctx, uint32_t lba), void *ctx)
{
	uint32_t admitted = 0, i = 0;

	if ((uint64_t)n > LBA_SPACE - first_lba)
		n = (uint32_t)(LBA_SPACE - first_lba);
	while (i < n) {
		uint32_t k;

		if (entries[i] >= FTL_LOST) {
			i++;
			continue;
		}
		/* entries[k - 1] + 1 cannot wrap: entries[k - 1] is mapped. */
		for (k = i + 1; k < n; k++)
			if (entries[k] >= FTL_LOST || entries[k] != entries[k - 1] + 1)
				break;
		for (uint32_t p = i; p < k;) {
			uint32_t piece = k - p;
			uint32_t lba = first_lba + p;

			if (piece > FTL_MDC_MAX_RUN)
				piece = FTL_MDC_MAX_RUN;
			if ((!hot || hot(ctx, lba)) &&
			    ftl_mdc_offer(m, lba, entries[p], piece))
				admitted++;
			p += piece;
		}
		i = k;
	}
	return admitted;
}

void ftl_mdc_clear(struct ftl_mdc *m)
{
	m->st.count = 0;
	m->st.covered_lbas = 0;
}

const struct ftl_mdc_stats *ftl_mdc_stats(const struct ftl_mdc *m)
{
	return &m->st;
}

int ftl_mdc_desc_at(const struct ftl_mdc *m, uint32_t idx,
		    struct ftl_mdc_desc *out)
{
	if (idx >= m->st.count)
		return -ENOENT;
	*out = m->d[idx];
	return 0;
}
