/* SPDX-License-Identifier: BSD-3-Clause */
/* Wear leveling: least-worn allocation, static wear leveling on and off. */
#include "gc_tests.h"
/* Erase counts set by hand. */
#include "ftl_internal.h"

/* ---- wear leveling ---- */

/* Allocation takes the least-worn free superblock. */
void test_dynamic_wl_alloc(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl *f;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	f = x->f;
	for (uint32_t sb = x->lay.ckpt_sbs; sb < x->lay.nr_sb; sb++)
		f->sbs[sb].erase_count = 7;
	f->sbs[17].erase_count = 2;
	f->sbs[9].erase_count = 3;
	f->sbs[25].erase_count = 3;
	fx_write(x, 0, 32);
	assert_int_equal(fx_stream(x, FTL_STREAM_SEQ).sb, 17);
	fx_write(x, 5000, 1);
	assert_int_equal(fx_stream(x, FTL_STREAM_RAND).sb, 9); /* lowest among equals */
	f->sbs[30].erase_count = 0;
	fx_flush(x); /* the translation stream opens on a flush's write-back, */
	fx_trim(x, 5000, 1); /* or on a trim's */
	assert_int_equal(fx_stream(x, FTL_STREAM_TP).sb, 30);
	fx_free(x);
}

static void wl_geo(struct fx_geo *g)
{
	*g = (struct fx_geo){ .channels = 4, .dies_per_channel = 1, .planes = 1,
			      .blocks = 24, .pages = 24 };
}

struct wl_result {
	uint32_t spread; /* max - min erase count, every superblock (ftl_stats) */
	uint32_t full_spread; /* the same over full superblocks only */
	uint64_t wl_runs, gc_runs;
};

/* Cold lower half written once, hot upper half overwritten 16 times. */
static void wl_run(uint32_t threshold, struct wl_result *r)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats s;
	uint32_t half, fmin = UINT32_MAX, fmax = 0;

	fx_cfg_default(&cfg);
	cfg.wl_threshold = threshold;
	wl_geo(&g);
	x = fx_new(&g, &cfg, false);
	half = x->cap / 2;
	fx_seq_fill(x, 0, x->cap);
	for (int i = 0; i < 16; i++) {
		uint64_t done = 0;

		while (done < x->cap) {
			uint32_t nr = 1 + fx_below(x, 4), lba = half + fx_below(x, x->cap - half - nr);

			fx_write(x, lba, nr);
			done += nr;
		}
	}
	fx_verify_all(x);
	fx_check_invariants(x, true);
	s = fx_stats(x);
	assert_true(s.max_erase >= 10); /* the hot half wore blocks out */
	for (uint32_t i = x->lay.ckpt_sbs; i < x->lay.nr_sb; i++) {
		struct ftl_sb_info sb = fx_sb(x, i);

		if (sb.state != FTL_SB_FULL)
			continue;
		fmin = sb.erase_count < fmin ? sb.erase_count : fmin;
		fmax = sb.erase_count > fmax ? sb.erase_count : fmax;
	}
	r->spread = s.max_erase - s.min_erase;
	r->full_spread = fmax - fmin;
	r->wl_runs = s.wl_runs;
	r->gc_runs = s.gc_runs;
	fx_free(x);
}

void test_static_wl(void **state)
{
	struct wl_result on, off;

	(void)state;
	wl_run(3, &on);
	wl_run(0, &off);
	assert_true(on.wl_runs > 0);
	assert_int_equal(off.wl_runs, 0);
	if (on.full_spread > 3 + 2)
		fail_msg("wear leveling on: full superblocks spread %u > threshold 3 + 2",
			 on.full_spread);
	/* Every superblock, the open ones of idle streams included. */
	if (on.spread > 3 + 2)
		fail_msg("wear leveling on: spread %u > threshold 3 + 2 (%lu of %lu GC runs "
			 "were wear leveling)",
			 on.spread, (unsigned long)on.wl_runs, (unsigned long)on.gc_runs);
	if (off.spread <= on.spread + 2)
		fail_msg("wear leveling off: spread %u, on: %u", off.spread, on.spread);
}
