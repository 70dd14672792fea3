/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MDC against a shadow mapping: random offers, scans, writes, trims,
 * GC moves and lookups; then random overwrites of one merged descriptor.
 */
#include "mdc_tests.h"

/* ---- randomized against a shadow mapping ---- */

#define SH_LBAS 2048u
#define SH_TP 256u /* entries per "translation page" for scans */

struct shadow {
	uint32_t map[SH_LBAS]; /* true mapping */
	uint32_t next_ppn;
	uint64_t rng;
	uint64_t cleared; /* descriptors dropped by ftl_mdc_clear() */
	uint32_t min_run;
	uint32_t hot_salt;
};

static uint32_t rnd(struct shadow *s, uint32_t n)
{
	/* splitmix64 */
	uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return (uint32_t)(z % n);
}

static bool shadow_hot_cb(void *ctx, uint32_t lba)
{
	const struct shadow *s = ctx;

	return ((lba / 64) * 2654435761u ^ s->hot_salt) & 1;
}

/*
 * Sorted, disjoint, within limits, consistent with the shadow, counted,
 * and merged: no descriptor continues the previous one (the LBA space is
 * below FTL_MDC_MAX_RUN, so every merge fits).
 */
static void shadow_check(const struct ftl_mdc *m, const struct shadow *s)
{
	const struct ftl_mdc_stats *st = ftl_mdc_stats(m);
	struct ftl_mdc_desc d, prev = { 0 };
	uint64_t prev_end = 0, covered = 0;

	assert_true(st->count <= st->capacity);
	for (uint32_t i = 0; i < st->count; i++) {
		assert_int_equal(ftl_mdc_desc_at(m, i, &d), 0);
		if (d.lba < prev_end)
			fail_msg("desc %u at %u overlaps the previous (end %llu)", i, d.lba,
				 (unsigned long long)prev_end);
		if (i > 0 && d.lba == prev_end && d.ppn == prev.ppn + prev.len)
			fail_msg("desc %u (%u, %u, %u) continues the previous (%u, %u, %u)", i,
				 d.lba, d.ppn, d.len, prev.lba, prev.ppn, prev.len);
		assert_true(d.len >= s->min_run && d.len <= FTL_MDC_MAX_RUN);
		assert_true((uint64_t)d.lba + d.len <= SH_LBAS);
		for (uint32_t k = 0; k < d.len; k++)
			if (s->map[d.lba + k] != d.ppn + k)
				fail_msg("desc (%u, %u, %u): lba %u maps to %u, cache says %u",
					 d.lba, d.ppn, d.len, d.lba + k, s->map[d.lba + k],
					 d.ppn + k);
		prev_end = (uint64_t)d.lba + d.len;
		prev = d;
		covered += d.len;
	}
	assert_int_equal(covered, st->covered_lbas);
	assert_int_equal(st->offered, st->admitted + st->rejected_short + st->rejected_overlap +
					      st->rejected_full);
	assert_int_equal((uint64_t)st->count + s->cleared,
			 st->admitted - st->replaced - st->superseded - st->merged -
				 st->invalidated + st->split);
	assert_true(st->hits <= st->lookups);
}

/* Host write of [lba, lba + len): mostly sequential new PPNs. */
static void shadow_write(struct ftl_mdc *m, struct shadow *s, uint32_t lba, uint32_t len,
			 bool trim)
{
	bool scatter = rnd(s, 4) == 0;

	if (len > SH_LBAS - lba)
		len = SH_LBAS - lba;
	ftl_mdc_invalidate(m, lba, len);
	for (uint32_t k = 0; k < len; k++) {
		if (trim) {
			s->map[lba + k] = FTL_UNMAPPED;
			continue;
		}
		s->map[lba + k] = s->next_ppn++;
		if (scatter)
			s->next_ppn += 1 + rnd(s, 3);
	}
}

/* Offer a random valid piece of the true run through @lba. */
static void shadow_offer(struct ftl_mdc *m, struct shadow *s, uint32_t lba)
{
	uint32_t end = lba + 1, len;

	if (s->map[lba] == FTL_UNMAPPED)
		return;
	while (end < SH_LBAS && s->map[end] != FTL_UNMAPPED && s->map[end] == s->map[end - 1] + 1)
		end++;
	len = 1 + rnd(s, end - lba);
	ftl_mdc_offer(m, lba, s->map[lba], len);
}

static void shadow_run(uint64_t seed, uint32_t budget, uint32_t min_run, uint32_t steps)
{
	struct shadow *s = calloc(1, sizeof(*s));
	struct ftl_mdc *m;
	uint32_t ppn;

	assert_non_null(s);
	s->rng = seed;
	s->min_run = min_run;
	s->next_ppn = 1;
	for (uint32_t i = 0; i < SH_LBAS; i++)
		s->map[i] = FTL_UNMAPPED;
	m = mdc_new(budget, min_run);

	for (uint32_t step = 0; step < steps; step++) {
		uint32_t op = rnd(s, 100), lba = rnd(s, SH_LBAS);

		if (op < 15) {
			uint32_t len = rnd(s, 8) ? 1 + rnd(s, 64) : 1 + rnd(s, 600);

			shadow_write(m, s, lba, len, false);
		} else if (op < 18) {
			shadow_write(m, s, lba, 1 + rnd(s, 100), true);
		} else if (op < 25) {
			/* GC moves one mapping. */
			if (s->map[lba] != FTL_UNMAPPED) {
				ftl_mdc_invalidate(m, lba, 1);
				s->map[lba] = s->next_ppn++;
			}
		} else if (op < 35) {
			uint32_t first = lba / SH_TP * SH_TP;

			s->hot_salt = rnd(s, 1u << 30);
			ftl_mdc_scan(m, first, &s->map[first], SH_TP,
				     rnd(s, 2) ? shadow_hot_cb : NULL, s);
		} else if (op < 55) {
			shadow_offer(m, s, lba);
		} else if (op == 55 && rnd(s, 20) == 0) {
			s->cleared += ftl_mdc_stats(m)->count;
			ftl_mdc_clear(m);
		} else {
			if (ftl_mdc_lookup(m, lba, &ppn)) {
				if (s->map[lba] == FTL_UNMAPPED || ppn != s->map[lba])
					fail_msg("seed %llu step %u: lba %u hit ppn %u, true %u",
						 (unsigned long long)seed, step, lba, ppn,
						 s->map[lba]);
			}
		}
		shadow_check(m, s);
	}
	/* The run must have exercised the interesting paths. */
	{
		const struct ftl_mdc_stats *st = ftl_mdc_stats(m);

		if (getenv("MDC_SHADOW_STATS"))
			print_message("budget %u min_run %u: lookups %llu hits %llu offered %llu "
				      "admitted %llu short %llu overlap %llu full %llu "
				      "replaced %llu superseded %llu merged %llu invalidated %llu "
				      "split %llu\n",
				      budget, min_run, (unsigned long long)st->lookups,
				      (unsigned long long)st->hits, (unsigned long long)st->offered,
				      (unsigned long long)st->admitted,
				      (unsigned long long)st->rejected_short,
				      (unsigned long long)st->rejected_overlap,
				      (unsigned long long)st->rejected_full,
				      (unsigned long long)st->replaced,
				      (unsigned long long)st->superseded,
				      (unsigned long long)st->merged,
				      (unsigned long long)st->invalidated,
				      (unsigned long long)st->split);
		/* Offers match the mapping: overlaps merge, nothing is superseded. */
		assert_true(st->hits > 0 && st->admitted > 0 && st->merged > 0);
		assert_int_equal(st->superseded, 0);
		assert_int_equal(st->rejected_overlap, 0);
		assert_true(st->invalidated > 0);
		if (st->capacity > 1) /* a split needs a free slot */
			assert_true(st->split > 0);
		if (min_run > 1)
			assert_true(st->rejected_short > 0);
		if (st->capacity < 50) {
			assert_true(st->replaced > 0);
			assert_true(st->rejected_full > 0);
		}
	}
	ftl_mdc_destroy(m);
	free(s);
}

/* 15. Random offers, scans, writes, trims, GC moves and lookups. */
void test_random_shadow(void **state)
{
	static const struct {
		uint32_t budget, min_run;
	} cfg[] = { { 10, 1 }, { 50, 2 }, { 200, 4 }, { 2048, 1 }, { 2048, 8 }, { 300, 3 } };

	(void)state;
	for (size_t c = 0; c < ARRAY_SIZE(cfg); c++)
		for (uint64_t seed = 1; seed <= 4; seed++)
			shadow_run(seed * 7919 + c, cfg[c].budget, cfg[c].min_run, 20000);
}

/* Every descriptor of @m maps as @map says, in order, disjoint, merged. */
static void map_check(const struct ftl_mdc *m, const uint32_t *map, uint32_t n)
{
	const struct ftl_mdc_stats *st = ftl_mdc_stats(m);
	struct ftl_mdc_desc d, prev = { 0 };
	uint64_t covered = 0;

	for (uint32_t i = 0; i < st->count; i++) {
		assert_int_equal(ftl_mdc_desc_at(m, i, &d), 0);
		assert_true((uint64_t)d.lba + d.len <= n);
		if (i > 0 && d.lba < prev.lba + prev.len)
			fail_msg("desc %u at %u overlaps the previous", i, d.lba);
		if (i > 0 && d.lba == prev.lba + prev.len && d.ppn == prev.ppn + prev.len)
			fail_msg("desc %u (%u, %u, %u) continues the previous (%u, %u, %u)", i,
				 d.lba, d.ppn, d.len, prev.lba, prev.ppn, prev.len);
		for (uint32_t k = 0; k < d.len; k++)
			if (map[d.lba + k] != d.ppn + k)
				fail_msg("desc (%u, %u, %u): lba %u maps to %u", d.lba, d.ppn, d.len,
					 d.lba + k, map[d.lba + k]);
		covered += d.len;
		prev = d;
	}
	assert_int_equal(covered, st->covered_lbas);
	assert_int_equal(st->count, st->admitted - st->replaced - st->superseded - st->merged -
					    st->invalidated + st->split);
}

/*
 * 22. A sequentially written range of 16 translation pages, every page
 * scanned in a random order: one descriptor spans it all. Then random
 * overwrites (one unit, or a short sequential write at new PPNs), trims,
 * rescans of random pages and lookups, each lookup checked against the
 * shadow mapping, and every descriptor every 50 steps.
 */
void test_merge_random_overwrite(void **state)
{
	static const uint32_t budgets[] = { 60, 2048 };
	static const uint64_t min_hits[] = { 300, 3000 };
	const uint32_t tps = 16, n = tps * TP_N;

	(void)state;
	for (size_t b = 0; b < ARRAY_SIZE(budgets); b++) {
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct shadow rs = { .rng = seed * 104729 + b };
			struct ftl_mdc *m = mdc_new(budgets[b], 8);
			uint32_t *map = seq_entries(0, n, 50000), perm[16], next_ppn = 1000000;
			uint64_t hits = 0;
			struct ftl_mdc_desc d;

			for (uint32_t i = 0; i < tps; i++)
				perm[i] = i;
			for (uint32_t i = tps - 1; i > 0; i--) {
				uint32_t j = rnd(&rs, i + 1), t = perm[i];

				perm[i] = perm[j];
				perm[j] = t;
			}
			for (uint32_t i = 0; i < tps; i++)
				ftl_mdc_scan(m, perm[i] * TP_N, map + perm[i] * TP_N, TP_N, NULL, NULL);
			assert_int_equal(ftl_mdc_stats(m)->count, 1);
			assert_int_equal(ftl_mdc_desc_at(m, 0, &d), 0);
			assert_true(d.lba == 0 && d.ppn == 50000 && d.len == n);

			for (uint32_t step = 0; step < 20000; step++) {
				uint32_t op = rnd(&rs, 100), lba = rnd(&rs, n), ppn;

				if (op < 8) {
					uint32_t len = rnd(&rs, 2) ? 1 : 1 + rnd(&rs, 16);

					len = len > n - lba ? n - lba : len;
					ftl_mdc_invalidate(m, lba, len);
					for (uint32_t k = 0; k < len; k++)
						map[lba + k] = next_ppn++;
				} else if (op < 10) {
					uint32_t len = 1 + rnd(&rs, 32);

					len = len > n - lba ? n - lba : len;
					ftl_mdc_invalidate(m, lba, len);
					for (uint32_t k = 0; k < len; k++)
						map[lba + k] = FTL_UNMAPPED;
				} else if (op < 35) {
					uint32_t first = lba / TP_N * TP_N;

					ftl_mdc_scan(m, first, map + first, TP_N, NULL, NULL);
				} else if (ftl_mdc_lookup(m, lba, &ppn)) {
					if (ppn != map[lba])
						fail_msg("seed %llu step %u: lba %u hit ppn %u, true %u",
							 (unsigned long long)seed, step, lba, ppn,
							 map[lba]);
					hits++;
				}
				if (step % 50 == 0 || step == 19999)
					map_check(m, map, n);
			}
			if (getenv("MDC_SHADOW_STATS"))
				print_message("budget %u seed %llu: hits %llu, %u descriptors\n",
					      budgets[b], (unsigned long long)seed,
					      (unsigned long long)hits, ftl_mdc_stats(m)->count);
			assert_true(hits > min_hits[b]);
			assert_true(ftl_mdc_stats(m)->split > 0);
			assert_true(ftl_mdc_stats(m)->merged > 0);
			assert_int_equal(ftl_mdc_stats(m)->superseded, 0);
			free(map);
			ftl_mdc_destroy(m);
		}
	}
}
