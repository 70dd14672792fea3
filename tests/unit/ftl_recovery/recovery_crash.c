/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Recovery after unclean stops: unflushed writes and trims, torn and
 * missing checkpoints, GC before the crash, crash cycles with I/O in
 * flight.
 */
#include "recovery_tests.h"

/* ---- unclean stops ---- */

/* The only checkpoint is the one written when the store was formatted. */
void test_unclean_format_checkpoint_only(void **state)
{
	struct fx_crash_log l;
	struct fx *x;

	(void)state;
	x = rec_new(NULL);
	assert_int_equal(fx_activity(x).ckpt_gen, 1);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, 3000);
	fx_random_writes(x, 3000, 8, 2000);
	fx_flush(x);
	fx_log_flushed(&l);
	fx_crash(x);
	fx_restart(x);
	assert_true(fx_stats(x).recovered_from_checkpoint);
	assert_true(fx_stats(x).recovered_units >= 3000);
	assert_int_equal(fx_log_check(&l), 0);
	fx_check_invariants(x, false);
	/* The recovery checkpointed: a second crash at once needs no scan. */
	assert_int_equal(fx_activity(x).ckpt_gen, 2);
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	assert_int_equal(fx_log_check(&l), 0);
	fx_free(x);
}

/* Flushed data survives; unflushed writes are old or new, never garbage. */
void test_unclean_unflushed(void **state)
{
	struct fx_crash_log l;
	struct fx *x;
	uint32_t newer;

	(void)state;
	x = rec_new(NULL);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, 2000);
	clean_restart(x); /* a checkpoint newer than the format */
	assert_int_equal(fx_activity(x).ckpt_gen, 3);
	fx_log_flushed(&l);
	fx_random_writes(x, 6000, 8, 3000);
	fx_flush(x);
	fx_log_flushed(&l);
	/* Unflushed: overwrites of flushed LBAs and new ones, enough to fill pages. */
	for (int i = 0; i < 300; i++) {
		uint32_t nr = 1 + fx_below(x, 4);

		fx_log_write(&l, fx_below(x, 8000 - nr), nr);
	}
	fx_crash(x);
	fx_restart(x);
	assert_true(fx_stats(x).recovered_from_checkpoint);
	assert_true(fx_stats(x).recovered_units > 0);
	newer = fx_log_check(&l);
	/* Whole pages were programmed before the crash: some writes made it. */
	assert_true(newer > 0);
	fx_check_invariants(x, false);
	fx_free(x);
}

/* A flushed trim survives a crash; so does a write after it. */
void test_unclean_trims(void **state)
{
	struct fx_crash_log l;
	struct fx *x;

	(void)state;
	x = rec_new(NULL);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, 4096);
	clean_restart(x); /* the data is in the checkpoint's mapping */
	fx_trim(x, 1000, 100);
	fx_seq_fill(x, 5000, 64); /* written after the checkpoint ... */
	fx_trim(x, 5010, 20); /* ... and trimmed */
	fx_trim(x, 1050, 10);
	fx_write(x, 1055, 2); /* trimmed, then written again */
	fx_flush(x);
	fx_log_flushed(&l);
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(fx_log_check(&l), 0);
	fx_check_invariants(x, false);
	/* Unflushed trims: old data or zeroes. */
	fx_log_trim(&l, 200, 30);
	fx_log_trim(&l, 5040, 8);
	fx_crash(x);
	fx_restart(x);
	fx_log_check(&l);
	fx_free(x);
}

/* ---- torn and missing checkpoints ---- */

/* The last programmed flash page of checkpoint superblock @sb. */
static uint32_t ckpt_last_fpid(const struct fx *x, uint32_t sb)
{
	uint32_t pages = x->lay.pages_per_block * x->lay.stripe, last = UINT32_MAX;

	for (uint32_t p = 0; p < pages; p++) {
		uint32_t fpid = sb * pages + p;
		struct nand_addr a;

		ftl_inspect_page_addr(x->f, fpid, &a);
		if (x->store->blocks[nand_block_index(&x->nc.geo, &a)].write_ptr > a.page)
			last = fpid;
	}
	assert_int_not_equal(last, UINT32_MAX);
	return last;
}

enum tear {
	TEAR_GARBAGE, /* the last page rewritten with garbage */
	TEAR_ERASE, /* the block holding the last page erased */
	TEAR_BOTH, /* both checkpoints' superblocks erased */
};

static void torn(enum tear how)
{
	struct fx *x;
	struct nand_addr a;
	uint32_t newest, fpid;
	uint64_t gen;
	uint8_t *page, *oob;

	x = rec_new(NULL);
	fx_seq_fill(x, 0, 3000);
	fx_random_writes(x, 3000, 8, 2000);
	fx_trim(x, 10, 20);
	fx_shutdown(x);
	gen = fx_activity(x).ckpt_gen;
	assert_int_equal(gen, 2);
	newest = (uint32_t)(gen % x->lay.ckpt_sbs);
	fpid = ckpt_last_fpid(x, newest);
	ftl_inspect_page_addr(x->f, fpid, &a);
	page = fx_tmp_alloc(x->nc.geo.page_size);
	oob = fx_tmp_alloc(x->nc.geo.oob_size);
	memset(page, 0x5a, x->nc.geo.page_size);
	memset(oob, 0x5a, x->nc.geo.oob_size);
	switch (how) {
	case TEAR_GARBAGE:
		assert_int_equal(x->store->ops->program(x->store,
							nand_page_index(&x->nc.geo, &a), page,
							oob),
				 0);
		break;
	case TEAR_ERASE:
		assert_int_equal(x->store->ops->erase(x->store,
						      nand_block_index(&x->nc.geo, &a)),
				 0);
		break;
	case TEAR_BOTH:
		for (uint32_t sb = 0; sb < x->lay.ckpt_sbs; sb++)
			for (uint32_t s = 0; s < x->lay.stripe; s++) {
				ftl_inspect_page_addr(x->f,
						      sb * x->lay.pages_per_block * x->lay.stripe + s,
						      &a);
				assert_int_equal(x->store->ops->erase(x->store,
								      nand_block_index(&x->nc.geo, &a)),
						 0);
			}
		break;
	}
	fx_tmp_free(page);
	fx_tmp_free(oob);
	fx_crash(x);
	fx_restart(x);
	if (how == TEAR_BOTH) {
		assert_false(fx_stats(x).recovered_from_checkpoint);
	} else {
		/* The format checkpoint (generation 1), then the scan. */
		assert_true(fx_stats(x).recovered_from_checkpoint);
		assert_int_equal(fx_activity(x).ckpt_gen, 2);
	}
	assert_true(fx_stats(x).recovered_units > 0);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	/* And the new checkpoint is good. */
	clean_restart(x);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	fx_verify_all(x);
	fx_free(x);
}

void test_torn_checkpoint_garbage(void **state)
{
	(void)state;
	torn(TEAR_GARBAGE);
}

void test_torn_checkpoint_erased(void **state)
{
	(void)state;
	torn(TEAR_ERASE);
}

void test_no_checkpoint_full_scan(void **state)
{
	(void)state;
	torn(TEAR_BOTH);
}

/* ---- GC before the crash ---- */

/*
 * Overwrite [0, 4096) (four translation pages, all resident) @units
 * times; every 256 writes read a unit of another translation page, which
 * evicts a dirty one and writes it back. (Write-backs on every write, from
 * a CMT smaller than the working set, can exhaust the free superblocks:
 * that is test_gc_concurrent_small_cmt's business, not this file's.)
 */
static void hot_overwrite(struct fx_crash_log *l, struct fx *x, uint64_t units)
{
	uint64_t done = 0;

	for (uint32_t i = 0; done < units; i++) {
		uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, 4096 - nr);

		if (l)
			fx_log_write(l, lba, nr);
		else
			fx_write(x, lba, nr);
		done += nr;
		if (i % 256 == 255)
			fx_verify(x, 4096 + fx_below(x, x->cap - 4096), 1);
	}
}

void test_gc_heavy_crash(void **state)
{
	struct ftl_config cfg;
	struct fx_crash_log l;
	struct fx *x;
	struct ftl_stats a;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 4 * FTL_UNIT; /* translation pages come and go */
	x = rec_new(&cfg);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, x->cap);
	a = fx_stats(x);
	hot_overwrite(NULL, x, 3ull * x->cap);
	assert_true(fx_stats(x).gc_runs - a.gc_runs > 40);
	assert_true(fx_stats(x).cmt_writebacks - a.cmt_writebacks > 40);
	fx_flush(x);
	fx_log_flushed(&l);
	hot_overwrite(&l, x, 1000);
	fx_log_trim(&l, 100, 50);
	fx_log_trim(&l, 9000, 50);
	fx_crash(x);
	fx_restart(x);
	fx_log_check(&l);
	/* Every mapped unit kept its validity bit, or GC would drop it. */
	fx_check_invariants(x, false);
	/* GC through everything again: nothing recovered may get lost. */
	hot_overwrite(NULL, x, 2ull * x->cap);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_flush(x);
	fx_log_flushed(&l);
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(fx_log_check(&l), 0);
	fx_free(x);
}

/*
 * Recovery replays data into more translation pages than the CMT holds,
 * so it evicts (and writes back) some of them while it replays: those
 * written-back copies sit in a write buffer page, not yet in the store.
 */
void test_recovery_replay_evicts(void **state)
{
	struct ftl_config cfg;
	struct fx_crash_log l;
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 2 * FTL_UNIT;
	x = rec_new(&cfg);
	fx_log_init(&l, x);
	/* A: one full page in each of ten translation pages, all on flash. */
	for (uint32_t tp = 0; tp < 10; tp++)
		fx_write(x, tp * 1024, 4);
	fx_flush(x);
	fx_log_flushed(&l);
	/*
	 * B: a page more in tp 0..4. Evicting tp 0..2 writes their copies into
	 * a translation page that stays in the buffer (3 of 4 slots); tp 3 and
	 * 4 stay dirty in the CMT. The data pages are full: programmed.
	 */
	for (uint32_t tp = 0; tp < 5; tp++)
		fx_log_write(&l, tp * 1024 + 4, 4);
	fx_drain(x);
	assert_true(fx_stream(x, FTL_STREAM_TP).filling);
	fx_crash(x);
	fx_restart(x);
	/* Five translation pages to replay through a two-entry CMT. */
	fx_check_invariants(x, false);
	assert_int_equal(fx_log_check(&l), 20); /* every B unit was on flash */
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_verify_all(x);
	fx_free(x);
}

/* ---- repeated crashes with I/O in flight ---- */

struct fx *rec_cycles_new(struct fx_crash_log *l)
{
	struct ftl_config cfg;
	struct fx *x;

	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 8 * FTL_UNIT;
	x = rec_new(&cfg);
	fx_log_init(l, x);
	fx_seq_fill(x, 0, x->cap / 2);
	fx_flush(x);
	fx_log_flushed(l);
	return x;
}

void rec_crash_inflight(struct fx *x, struct fx_crash_log *l, struct rec_inflight *q, bool fua)
{
	int count = 0;

	for (int i = 0; i < CYCLE_QD; i++) {
		uint32_t lba = (uint32_t)i * (x->cap / CYCLE_QD) + fx_below(x, 1000);

		for (uint32_t u = 0; u < 8; u++) {
			x->shadow[lba + u] = (uint32_t)++x->ver;
			fx_fill(q[i].buf + (size_t)u * FTL_UNIT, lba + u, x->shadow[lba + u]);
		}
		fx_log_add(l, lba, 8);
		q[i].r.count = &count;
		assert_int_equal(fx_submit(x, &q[i].r, FTL_IO_WRITE, lba, 8, q[i].buf,
					   fua && fx_below(x, 2)),
				 0);
	}
	ftl_vdrive_run(&x->vd, x->f, x->vd.clock.virt_ns + fx_below(x, 4000000));
	fx_crash(x);
	fx_restart(x);
}

void test_crash_cycles(void **state)
{
	static struct rec_inflight q[CYCLE_QD];
	struct fx_crash_log l;
	struct fx *x;
	uint32_t newer = 0;

	(void)state;
	x = rec_cycles_new(&l);
	for (int cycle = 0; cycle < 10; cycle++) {
		uint32_t ops = 200 + fx_below(x, 800);

		for (uint32_t i = 0; i < ops; i++) {
			uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap - nr), k;

			k = fx_below(x, 100);
			if (k < 3) {
				fx_flush(x);
				fx_log_flushed(&l);
			} else if (k < 8) {
				fx_log_trim(&l, lba, nr);
			} else {
				fx_log_write(&l, lba, nr);
			}
		}
		/* A last batch in flight, then the power goes at a random time. */
		rec_crash_inflight(x, &l, q, true);
		newer += fx_log_check(&l);
	}
	assert_true(newer > 0);
	assert_true(fx_stats(x).recovered_from_checkpoint);
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_free(x);
}
