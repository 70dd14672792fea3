/*
 * Unit tests for durability and recovery (ftl/write.c's flush and FUA,
 * ftl/recovery.c), mostly on a file store in a temporary directory: after
 * a flush or a FUA write every page is programmed and in the store; a
 * clean shutdown comes back from its checkpoint alone; an unclean stop
 * comes back from the newest complete checkpoint plus the OOB scan, with
 * every flushed LBA intact and every unflushed one holding its flushed
 * data or one of its later writes, never garbage; trims survive a crash
 * once flushed; a torn or missing checkpoint falls back to the older one
 * (or to a full scan); a GC-heavy run with translation-page write-backs
 * recovers with a mapping whose every unit has its validity bit; ten
 * crash/recover cycles with I/O in flight at the crash. Restarts reopen
 * the streams' superblocks: after a clean stop at the checkpoint's exact
 * positions, after a crash at the newest superblock of each stream past
 * its last programmed page (a lost page before it padded), none left
 * partly written; in doubt (holes too wide, a garbage page) the superblock
 * stays closed; a version 1 checkpoint still loads.
 */
#include "ftl_fixture.h"

/* ---- flush and FUA ---- */

static void expect_all_programmed(const struct fx *x)
{
	const struct ftl *f = x->f;

	assert_true(TAILQ_EMPTY(&f->inflight));
	assert_int_equal(f->done_through, f->next_ticket);
	for (int s = 0; s < ST_COUNT; s++)
		assert_null(f->streams[s].wb);
	for (uint32_t i = 0; i < f->nr_wbufs; i++)
		assert_int_equal(f->wbufs[i].state, WB_FREE);
}

/* The store holds @lba's current data at its PPN. */
static void expect_in_store(const struct fx *x, uint32_t lba)
{
	const struct ftl *f = x->f;
	uint32_t ppn = fx_ppn_resident(x, lba);
	uint8_t *page = fx_tmp_alloc(f->geo->page_size);
	struct nand_addr a;

	ftl_fpid_addr(f, ppn / f->slots, &a);
	assert_int_equal(x->store->ops->read(x->store, nand_page_index(f->geo, &a), page, NULL),
			 0);
	assert_int_equal(fx_decode(page + (size_t)(ppn % f->slots) * FTL_UNIT, lba),
			 x->shadow[lba]);
	fx_tmp_free(page);
}

static void test_flush_and_fua(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	/* Volatile cache: a write completes while its page is still filling. */
	fx_write(x, 0, 5);
	fx_write(x, 3000, 2);
	assert_non_null(ftl_buffered(x->f, fx_ppn_resident(x, 4)));
	assert_non_null(x->f->streams[ST_RAND].wb);
	a = fx_stats(x);
	fx_flush(x);
	expect_all_programmed(x);
	assert_int_equal(fx_stats(x).flushes, a.flushes + 1);
	assert_int_equal(fx_stats(x).units_padded - a.units_padded, 3 + 2);
	for (uint32_t u = 0; u < 5; u++)
		expect_in_store(x, u);
	expect_in_store(x, 3001);
	/* Nothing buffered: a flush pads nothing. */
	a = fx_stats(x);
	fx_flush(x);
	expect_all_programmed(x);
	assert_int_equal(fx_stats(x).units_padded, a.units_padded);
	assert_int_equal(fx_stats(x).flash_programs, a.flash_programs);

	/* FUA: complete only once on flash. */
	fx_write_fua(x, 200, 1);
	expect_all_programmed(x);
	expect_in_store(x, 200);
	/* Volatile cache off: every write is durable at completion. */
	ftl_set_volatile_cache(x->f, false);
	fx_write(x, 300, 3);
	expect_all_programmed(x);
	expect_in_store(x, 302);
	ftl_set_volatile_cache(x->f, true);
	fx_write(x, 400, 1);
	assert_non_null(ftl_buffered(x->f, fx_ppn_resident(x, 400)));
	fx_verify(x, 0, 5);
	fx_verify(x, 200, 1);
	fx_verify(x, 300, 3);
	fx_verify(x, 400, 1);
	fx_free(x);
}

/* ---- life cycle ---- */

struct sd {
	bool done;
	int status;
};

static void sd_cb(void *arg, int status)
{
	struct sd *s = arg;

	s->done = true;
	s->status = status;
}

static void fx_shutdown(struct fx *x)
{
	struct sd s = { 0 };

	assert_int_equal(ftl_shutdown(x->f, sd_cb, &s), 0);
	fx_run_until(x, &s.done, "shutdown never completed");
	assert_true(s.done);
	assert_int_equal(s.status, 0);
}

/* Recreate the FTL on the (reopened) store; the capacity is the same. */
static void fx_restart(struct fx *x)
{
	uint32_t cap = x->cap;

	assert_int_equal(fx_ftl_create(x), 0);
	assert_int_equal(x->cap, cap);
}

static void clean_restart(struct fx *x)
{
	fx_shutdown(x);
	fx_crash(x); /* nothing is in flight: just a close and reopen */
	fx_restart(x);
}

static struct fx *rec_new(const struct ftl_config *cfg)
{
	struct fx_geo g;

	fx_geo_small(&g);
	return fx_new(&g, cfg, true);
}

/* ---- clean shutdown ---- */

static void test_clean_shutdown(void **state)
{
	struct fx *x;
	struct ftl_stats before, after;
	struct sd s = { 0 };
	struct fx_req r = { 0 };

	(void)state;
	x = rec_new(NULL);
	fx_seq_fill(x, 0, 4000);
	fx_random_writes(x, x->cap, 8, 6000);
	fx_trim(x, 100, 50);
	fx_write(x, 120, 3); /* unflushed: the shutdown flushes it */
	before = fx_stats(x);

	assert_int_equal(ftl_shutdown(x->f, sd_cb, &s), 0);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 0, 1, x->wbuf, false), -ESHUTDOWN);
	assert_int_equal(ftl_shutdown(x->f, sd_cb, &s), -EALREADY);
	fx_run_until(x, &s.done, "shutdown never completed");
	assert_true(s.done);
	assert_int_equal(s.status, 0);
	assert_false(r.done);
	fx_crash(x);
	fx_restart(x);

	after = fx_stats(x);
	assert_true(after.recovered_from_checkpoint);
	assert_int_equal(after.recovered_units, 0);
	assert_int_equal(after.host_writes, before.host_writes);
	assert_int_equal(after.units_written_host, before.units_written_host);
	fx_check_invariants(x, true);
	fx_verify_all(x);
	/* It keeps working, and comes back again. */
	fx_random_writes(x, x->cap, 8, 3000);
	fx_trim(x, 2000, 10);
	clean_restart(x);
	assert_true(fx_stats(x).recovered_from_checkpoint);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* ---- unclean stops ---- */

/* The only checkpoint is the one written when the store was formatted. */
static void test_unclean_format_checkpoint_only(void **state)
{
	struct fx_crash_log l;
	struct fx *x;

	(void)state;
	x = rec_new(NULL);
	assert_int_equal(x->f->ckpt_gen, 1);
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
	assert_int_equal(x->f->ckpt_gen, 2);
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	assert_int_equal(fx_log_check(&l), 0);
	fx_free(x);
}

/* Flushed data survives; unflushed writes are old or new, never garbage. */
static void test_unclean_unflushed(void **state)
{
	struct fx_crash_log l;
	struct fx *x;
	uint32_t newer;

	(void)state;
	x = rec_new(NULL);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, 2000);
	clean_restart(x); /* a checkpoint newer than the format */
	assert_int_equal(x->f->ckpt_gen, 3);
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
static void test_unclean_trims(void **state)
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
	const struct ftl *f = x->f;
	uint32_t pages = f->pages_per_block * f->stripe, last = UINT32_MAX;

	for (uint32_t p = 0; p < pages; p++) {
		uint32_t fpid = sb * pages + p;
		struct nand_addr a;

		ftl_fpid_addr(f, fpid, &a);
		if (x->store->blocks[nand_block_index(f->geo, &a)].write_ptr > a.page)
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
	gen = x->f->ckpt_gen;
	assert_int_equal(gen, 2);
	newest = (uint32_t)(gen % FTL_CKPT_SBS);
	fpid = ckpt_last_fpid(x, newest);
	ftl_fpid_addr(x->f, fpid, &a);
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
		for (uint32_t sb = 0; sb < FTL_CKPT_SBS; sb++)
			for (uint32_t s = 0; s < x->f->stripe; s++) {
				ftl_fpid_addr(x->f, sb * x->f->pages_per_block * x->f->stripe + s, &a);
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
		assert_int_equal(x->f->ckpt_gen, 2);
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

static void test_torn_checkpoint_garbage(void **state)
{
	(void)state;
	torn(TEAR_GARBAGE);
}

static void test_torn_checkpoint_erased(void **state)
{
	(void)state;
	torn(TEAR_ERASE);
}

static void test_no_checkpoint_full_scan(void **state)
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

static void test_gc_heavy_crash(void **state)
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
static void test_recovery_replay_evicts(void **state)
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
	assert_non_null(x->f->streams[ST_TP].wb);
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

#define CYCLE_QD 4

static void test_crash_cycles(void **state)
{
	static struct {
		struct fx_req r;
		uint8_t buf[8 * FTL_UNIT];
	} q[CYCLE_QD];
	struct ftl_config cfg;
	struct fx_crash_log l;
	struct fx *x;
	uint32_t newer = 0;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 8 * FTL_UNIT;
	x = rec_new(&cfg);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, x->cap / 2);
	fx_flush(x);
	fx_log_flushed(&l);
	for (int cycle = 0; cycle < 10; cycle++) {
		uint32_t ops = 200 + fx_below(x, 800);
		int count = 0, sent = 0;

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
		for (int i = 0; i < CYCLE_QD; i++) {
			uint32_t lba = (uint32_t)i * (x->cap / CYCLE_QD) + fx_below(x, 1000);

			for (uint32_t u = 0; u < 8; u++) {
				x->shadow[lba + u] = (uint32_t)++x->ver;
				fx_fill(q[i].buf + (size_t)u * FTL_UNIT, lba + u, x->shadow[lba + u]);
			}
			fx_log_add(&l, lba, 8);
			q[i].r.count = &count;
			assert_int_equal(fx_submit(x, &q[i].r, FTL_IO_WRITE, lba, 8, q[i].buf,
						   fx_below(x, 2)),
					 0);
			sent++;
		}
		ftl_vdrive_run(&x->vd, x->f, x->vd.clock.virt_ns + fx_below(x, 4000000));
		fx_crash(x);
		fx_restart(x);
		newer += fx_log_check(&l);
		(void)sent;
	}
	assert_true(newer > 0);
	assert_true(fx_stats(x).recovered_from_checkpoint);
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_free(x);
}

/* ---- reopening the streams' superblocks ---- */

/* Superblock @sb's flash page @p (in write order) is programmed. */
static bool sb_page_programmed(const struct fx *x, uint32_t sb, uint32_t p)
{
	const struct ftl *f = x->f;
	struct nand_addr a;

	ftl_fpid_addr(f, sb * f->pages_per_block * f->stripe + p, &a);
	return x->store->blocks[nand_block_index(f->geo, &a)].write_ptr > a.page;
}

/* Superblocks closed (full, or being collected) with pages never written. */
static uint32_t partly_written_closed(const struct fx *x)
{
	const struct ftl *f = x->f;
	uint32_t n = 0;

	for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb; sb++)
		if ((f->sbs[sb].state == SB_FULL || f->sbs[sb].state == SB_GC) &&
		    !sb_page_programmed(x, sb, f->pages_per_block * f->stripe - 1))
			n++;
	return n;
}

/* The OOB of flash page @p of superblock @sb. */
static struct ftl_oob sb_page_oob(const struct fx *x, uint32_t sb, uint32_t p)
{
	const struct ftl *f = x->f;
	uint8_t *raw = fx_tmp_alloc(f->geo->oob_size);
	struct ftl_oob oob;
	struct nand_addr a;

	ftl_fpid_addr(f, sb * f->pages_per_block * f->stripe + p, &a);
	assert_int_equal(x->store->ops->read(x->store, nand_page_index(f->geo, &a), NULL, raw), 0);
	memcpy(&oob, raw, sizeof(oob));
	fx_tmp_free(raw);
	return oob;
}

struct stream_pos {
	int32_t sb;
	uint32_t next;
};

static void streams_get(const struct fx *x, struct stream_pos *p)
{
	for (int s = 0; s < ST_COUNT; s++)
		p[s] = (struct stream_pos){ x->f->streams[s].sb, x->f->streams[s].next };
}

/*
 * Every stream with a superblock has it open, at a page boundary, with
 * every page before its position programmed by that stream (its OOB says
 * so) and none after.
 */
static void expect_streams_sane(const struct fx *x)
{
	const struct ftl *f = x->f;
	uint32_t pages = f->pages_per_block * f->stripe;

	for (int s = 0; s < ST_COUNT; s++) {
		const struct ftl_streamstate *st = &f->streams[s];
		uint32_t at;

		if (st->sb < 0)
			continue;
		assert_int_equal(f->sbs[st->sb].state, SB_OPEN);
		for (int t = 0; t < s; t++)
			assert_int_not_equal(f->streams[t].sb, st->sb);
		if (st->wb)
			continue; /* a page filling: its place is taken */
		assert_int_equal(st->next % f->slots, 0);
		at = st->next / f->slots;
		for (uint32_t p = 0; p < pages; p++)
			if (sb_page_programmed(x, (uint32_t)st->sb, p) != (p < at))
				fail_msg("stream %d sb %d next page %u: page %u %s", s, st->sb, at, p,
					 p < at ? "not programmed" : "programmed");
		if (at)
			assert_int_equal(sb_page_oob(x, (uint32_t)st->sb, at - 1).stream,
					 FTL_OOB_STREAM_TAG(s));
	}
}

/* Host writes that make every stream open a superblock (TP via evictions). */
static void touch_all_streams(struct fx *x, struct fx_crash_log *l)
{
	for (uint32_t i = 0; i < 40; i++) {
		uint32_t lba = fx_below(x, x->cap - 64);

		if (l) {
			fx_log_write(l, lba, 1); /* random stream */
			fx_log_write(l, (lba * 7) % (x->cap - 64), 32); /* sequential */
		} else {
			fx_write(x, lba, 1);
			fx_write(x, (lba * 7) % (x->cap - 64), 32);
		}
	}
}

/*
 * A clean stop and restart gives every stream back its superblock at the
 * exact unit it had reached: no partly written superblock is left behind,
 * however many restarts, and writes go on where they were (by stream).
 */
static void test_reopen_after_clean_shutdown(void **state)
{
	struct ftl_config cfg;
	struct stream_pos before[ST_COUNT], after[ST_COUNT];
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 4 * FTL_UNIT; /* translation pages written back as we go */
	x = rec_new(&cfg);
	fx_seq_fill(x, 0, x->cap / 2);
	touch_all_streams(x, NULL);
	assert_int_equal(partly_written_closed(x), 0);
	for (int cycle = 0; cycle < 8; cycle++) {
		uint64_t padded;
		uint32_t lba;

		fx_shutdown(x);
		streams_get(x, before);
		padded = fx_stats(x).units_padded;
		fx_crash(x);
		fx_restart(x);
		assert_true(fx_stats(x).recovered_from_checkpoint);
		assert_int_equal(fx_stats(x).recovered_units, 0);
		/* Nothing was padded to come back. */
		assert_int_equal(fx_stats(x).units_padded, padded);
		streams_get(x, after);
		for (int s = 0; s < ST_COUNT; s++) {
			if (before[s].sb < 0 || before[s].next >= x->f->units_per_sb) {
				assert_int_equal(after[s].sb, -1);
				continue;
			}
			assert_int_equal(after[s].sb, before[s].sb);
			assert_int_equal(after[s].next, before[s].next);
		}
		expect_streams_sane(x);
		assert_int_equal(partly_written_closed(x), 0);
		fx_check_invariants(x, true);
		/* A random write lands in the random stream's superblock. */
		lba = fx_below(x, x->cap);
		fx_write(x, lba, 1);
		if (after[ST_RAND].sb >= 0)
			assert_int_equal(ftl_ppn_sb(x->f, fx_ppn_resident(x, lba)),
					 (uint32_t)after[ST_RAND].sb);
		touch_all_streams(x, NULL);
	}
	fx_verify_all(x);
	fx_free(x);
}

/*
 * A crash after a flush: every page is on flash, no holes. The scan finds
 * each stream's newest superblock by the stream tag in the OOB and resumes
 * after its last page; a second crash (right after the recovery's own
 * checkpoint) resumes from the checkpoint's positions.
 */
static void test_reopen_after_crash(void **state)
{
	struct ftl_config cfg;
	struct stream_pos before[ST_COUNT], after[ST_COUNT];
	struct fx_crash_log l;
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 4 * FTL_UNIT;
	x = rec_new(&cfg);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, x->cap / 2);
	clean_restart(x);
	fx_log_flushed(&l);
	touch_all_streams(x, &l);
	fx_flush(x);
	fx_log_flushed(&l);
	streams_get(x, before);
	assert_true(before[ST_SEQ].sb >= 0 && before[ST_RAND].sb >= 0 && before[ST_TP].sb >= 0);
	fx_crash(x);
	fx_restart(x);
	assert_true(fx_stats(x).recovered_units > 0);
	streams_get(x, after);
	for (int s = 0; s < ST_COUNT; s++) {
		assert_int_equal(after[s].sb, before[s].sb);
		if (before[s].sb < 0)
			continue;
		/* Recovery writes translation pages back: that stream moved on. */
		if (s == ST_TP)
			assert_true(after[s].next >= before[s].next);
		else
			assert_int_equal(after[s].next, before[s].next);
	}
	expect_streams_sane(x);
	assert_int_equal(partly_written_closed(x), 0);
	assert_int_equal(fx_log_check(&l), 0);
	fx_check_invariants(x, false);

	/* At once again: the checkpoint's positions. */
	streams_get(x, before);
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	streams_get(x, after);
	for (int s = 0; s < ST_COUNT; s++) {
		assert_int_equal(after[s].sb, before[s].sb);
		assert_int_equal(after[s].next, before[s].next);
	}
	/* Separation holds: new writes land in their own stream's superblock. */
	fx_write(x, 5, 1);
	fx_log_add(&l, 5, 1);
	assert_int_equal(ftl_ppn_sb(x->f, fx_ppn_resident(x, 5)), (uint32_t)after[ST_RAND].sb);
	fx_write(x, 1000, 32);
	fx_log_add(&l, 1000, 32);
	assert_int_equal(ftl_ppn_sb(x->f, fx_ppn_resident(x, 1000)), (uint32_t)after[ST_SEQ].sb);
	fx_verify_all(x);
	fx_free(x);
}

/*
 * Program flash page @p of superblock @sb straight in the store as stream
 * @s would have: data units of @lba.. with new versions (recorded in the
 * shadow and the log), OOB write sequences from @wseq; or garbage.
 */
static void fake_program(struct fx *x, struct fx_crash_log *l, uint32_t sb, uint32_t p,
			 enum ftl_stream s, uint32_t lba, uint64_t *wseq, bool garbage)
{
	const struct nand_geometry *g = &x->nc.geo;
	uint32_t slots = g->page_size / FTL_UNIT, pages = g->pages_per_block * x->f->stripe;
	uint8_t *page = fx_tmp_alloc(g->page_size), *raw = fx_tmp_alloc(g->oob_size);
	struct ftl_oob oob = { .magic = FTL_OOB_MAGIC, .nslots = slots,
			       .stream = FTL_OOB_STREAM_TAG(s) };
	struct nand_addr a;

	for (uint32_t k = 0; k < slots; k++) {
		x->shadow[lba + k] = (uint32_t)++x->ver;
		fx_fill(page + (size_t)k * FTL_UNIT, lba + k, x->shadow[lba + k]);
		oob.slot[k] = (struct ftl_oob_slot){ .lba = lba + k, .kind = UK_DATA,
						     .wseq = ++*wseq, .dseq = *wseq };
	}
	if (l)
		fx_log_add(l, lba, slots);
	memcpy(raw, &oob, sizeof(oob));
	if (garbage)
		memset(raw, 0x5a, g->oob_size);
	ftl_fpid_addr(x->f, sb * pages + p, &a);
	assert_int_equal(x->store->blocks[nand_block_index(g, &a)].write_ptr, a.page);
	assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a), page, raw), 0);
	fx_tmp_free(page);
	fx_tmp_free(raw);
}

enum hole {
	HOLE_ONE, /* one page lost, the next made it: padded, resumed after */
	HOLE_WIDE, /* one die far ahead of the others: closed */
	HOLE_GARBAGE, /* the page after the position reads as garbage: closed */
};

/*
 * A crash with programs in flight: fake what the store may hold after it
 * (the FTL is gone; @x->f is the old instance until the restart, only for
 * its geometry), on the random stream's superblock.
 */
static void hole(enum hole how)
{
	struct stream_pos before[ST_COUNT];
	struct fx_crash_log l;
	struct fx *x;
	uint64_t wseq;
	uint32_t sb, at, pages, last, fake_ver;

	x = rec_new(NULL);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, 4000);
	touch_all_streams(x, &l);
	fx_flush(x);
	fx_log_flushed(&l);
	streams_get(x, before);
	sb = (uint32_t)before[ST_RAND].sb;
	at = before[ST_RAND].next / x->f->slots;
	pages = x->f->pages_per_block * x->f->stripe;
	assert_true(at + 2 + x->f->nr_wbufs / x->f->stripe * x->f->stripe + 2 * x->f->stripe < pages);
	wseq = x->f->wseq;
	/* Page @at was in flight and is lost; what follows made it. */
	switch (how) {
	case HOLE_ONE:
		fake_program(x, &l, sb, at + 1, ST_RAND, 8000, &wseq, false);
		last = at + 1;
		break;
	case HOLE_WIDE:
		/* The die of page at + 1 ran more than a write buffer ahead. */
		last = at + 1;
		for (uint32_t i = 0;; i++, last += x->f->stripe) {
			fake_program(x, &l, sb, last, ST_RAND, 8000 + i * x->f->slots, &wseq,
				     false);
			if (last - at >= x->f->nr_wbufs)
				break;
		}
		break;
	case HOLE_GARBAGE:
		fake_program(x, &l, sb, at + 1, ST_RAND, 8000, &wseq, true);
		last = at + 1;
		break;
	}
	fake_ver = x->shadow[8000];
	fx_crash(x);
	fx_restart(x);
	if (how == HOLE_ONE) {
		/* The lost page is padding now; the stream goes on after the last. */
		assert_int_equal(x->f->streams[ST_RAND].sb, (int32_t)sb);
		assert_int_equal(x->f->streams[ST_RAND].next, (last + 1) * x->f->slots);
		assert_true(sb_page_programmed(x, sb, at));
		assert_int_equal(sb_page_oob(x, sb, at).slot[0].kind, UK_PAD);
		assert_int_equal(sb_page_oob(x, sb, at).stream, FTL_OOB_STREAM_TAG(ST_RAND));
		assert_int_equal(partly_written_closed(x), 0);
	} else {
		/* In doubt: closed, full; the stream takes a new superblock. */
		assert_int_not_equal(x->f->streams[ST_RAND].sb, (int32_t)sb);
		assert_int_equal(x->f->sbs[sb].state, SB_FULL);
		assert_false(sb_page_programmed(x, sb, at));
		assert_int_equal(partly_written_closed(x), 1);
	}
	/* The other streams are unaffected. */
	assert_true(before[ST_SEQ].sb >= 0 && before[ST_SEQ].next < x->f->units_per_sb);
	assert_int_equal(x->f->streams[ST_SEQ].sb, before[ST_SEQ].sb);
	assert_int_equal(x->f->streams[ST_SEQ].next, before[ST_SEQ].next);
	expect_streams_sane(x);
	/* What made it to flash is read back (but a garbage page). */
	fx_log_check(&l);
	if (how != HOLE_GARBAGE)
		assert_int_equal(x->shadow[8000], fake_ver); /* recovered */
	fx_verify(x, 8000, x->f->slots);
	fx_check_invariants(x, false);
	/* Writing on fills the superblock without breaking a flash rule. */
	fx_random_writes(x, x->cap, 8, 3 * x->f->units_per_sb);
	assert_false(x->f->fatal);
	fx_verify_all(x);
	clean_restart(x);
	fx_verify_all(x);
	fx_free(x);
}

static void test_reopen_hole_padded(void **state)
{
	(void)state;
	hole(HOLE_ONE);
}

static void test_reopen_hole_wide_closed(void **state)
{
	(void)state;
	hole(HOLE_WIDE);
}

static void test_reopen_garbage_closed(void **state)
{
	(void)state;
	hole(HOLE_GARBAGE);
}

/*
 * A version 1 checkpoint (no stream positions; as written before them)
 * still loads; the streams are found by the scan.
 */
static void test_checkpoint_v1_loads(void **state)
{
	const uint64_t magic_v1 = 0x31504b43584c42ull; /* "BLXCKP1" */
	const size_t v1_hdr = 120; /* bytes of a version 1 header */
	struct stream_pos before[ST_COUNT];
	struct fx *x;
	const struct nand_geometry *g;
	uint32_t sb, pages, used = 0;
	uint8_t *img, *oobs;
	uint64_t gen;

	(void)state;
	x = rec_new(NULL);
	g = &x->nc.geo;
	fx_seq_fill(x, 0, 3000);
	touch_all_streams(x, NULL);
	fx_shutdown(x);
	streams_get(x, before);
	/* Rewrite the newest checkpoint as version 1: read, erase, program. */
	gen = x->f->ckpt_gen;
	sb = (uint32_t)(gen % FTL_CKPT_SBS);
	pages = x->f->pages_per_block * x->f->stripe;
	img = x->aux[1] = calloc(pages, g->page_size);
	oobs = x->aux[0] = calloc(pages, g->oob_size);
	assert_non_null(img);
	assert_non_null(oobs);
	while (used < pages && sb_page_programmed(x, sb, used)) {
		struct nand_addr a;

		ftl_fpid_addr(x->f, sb * pages + used, &a);
		assert_int_equal(x->store->ops->read(x->store, nand_page_index(g, &a),
						     img + (size_t)used * g->page_size,
						     oobs + (size_t)used * g->oob_size),
				 0);
		used++;
	}
	assert_true(used > 0);
	memcpy(img, &magic_v1, sizeof(magic_v1));
	memset(img + v1_hdr, 0, FTL_UNIT - v1_hdr);
	for (uint32_t s = 0; s < x->f->stripe; s++) {
		struct nand_addr a;

		ftl_fpid_addr(x->f, sb * pages + s, &a);
		assert_int_equal(x->store->ops->erase(x->store, nand_block_index(g, &a)), 0);
	}
	for (uint32_t p = 0; p < used; p++) {
		struct nand_addr a;

		ftl_fpid_addr(x->f, sb * pages + p, &a);
		assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a),
							img + (size_t)p * g->page_size,
							oobs + (size_t)p * g->oob_size),
				 0);
	}
	fx_crash(x);
	fx_restart(x);
	assert_true(fx_stats(x).recovered_from_checkpoint);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	/* It loaded the rewritten one (else the older and a scan), then wrote one. */
	assert_int_equal(x->f->ckpt_gen, gen + 1);
	for (int s = 0; s < ST_COUNT; s++) {
		if (before[s].sb < 0)
			continue;
		assert_int_equal(x->f->streams[s].sb, before[s].sb);
		assert_int_equal(x->f->streams[s].next, before[s].next);
	}
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/*
 * Crash cycles with writes in flight: each restart gives the streams back
 * their superblocks (padding what was lost), so partly written closed
 * superblocks do not pile up, and the data is what the log allows.
 */
static void test_reopen_crash_cycles(void **state)
{
	static struct {
		struct fx_req r;
		uint8_t buf[8 * FTL_UNIT];
	} q[CYCLE_QD];
	struct ftl_config cfg;
	struct fx_crash_log l;
	struct fx *x;
	uint32_t reopened = 0;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 8 * FTL_UNIT;
	x = rec_new(&cfg);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, x->cap / 2);
	fx_flush(x);
	fx_log_flushed(&l);
	for (int cycle = 0; cycle < 12; cycle++) {
		int count = 0;

		for (uint32_t i = 0; i < 300; i++) {
			uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap - 64);

			fx_log_write(&l, lba, nr);
			if (i % 20 == 0)
				fx_log_write(&l, lba, 32);
		}
		for (int i = 0; i < CYCLE_QD; i++) {
			uint32_t lba = (uint32_t)i * (x->cap / CYCLE_QD) + fx_below(x, 1000);

			for (uint32_t u = 0; u < 8; u++) {
				x->shadow[lba + u] = (uint32_t)++x->ver;
				fx_fill(q[i].buf + (size_t)u * FTL_UNIT, lba + u, x->shadow[lba + u]);
			}
			fx_log_add(&l, lba, 8);
			q[i].r.count = &count;
			assert_int_equal(fx_submit(x, &q[i].r, FTL_IO_WRITE, lba, 8, q[i].buf, false),
					 0);
		}
		ftl_vdrive_run(&x->vd, x->f, x->vd.clock.virt_ns + fx_below(x, 4000000));
		fx_crash(x);
		fx_restart(x);
		for (int s = 0; s < ST_COUNT; s++)
			reopened += x->f->streams[s].sb >= 0;
		expect_streams_sane(x);
		fx_log_check(&l);
		fx_check_invariants(x, false);
		/* GC collects the closed ones; the reopened never pile up. */
		assert_true(partly_written_closed(x) <= 2);
	}
	assert_true(reopened >= 12 * 2);
	fx_verify_all(x);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_flush_and_fua),
		FX_TEST(test_clean_shutdown),
		FX_TEST(test_unclean_format_checkpoint_only),
		FX_TEST(test_unclean_unflushed),
		FX_TEST(test_unclean_trims),
		FX_TEST(test_torn_checkpoint_garbage),
		FX_TEST(test_torn_checkpoint_erased),
		FX_TEST(test_no_checkpoint_full_scan),
		FX_TEST(test_gc_heavy_crash),
		FX_TEST(test_recovery_replay_evicts),
		FX_TEST(test_crash_cycles),
		FX_TEST(test_reopen_after_clean_shutdown),
		FX_TEST(test_reopen_after_crash),
		FX_TEST(test_reopen_hole_padded),
		FX_TEST(test_reopen_hole_wide_closed),
		FX_TEST(test_reopen_garbage_closed),
		FX_TEST(test_checkpoint_v1_loads),
		FX_TEST(test_reopen_crash_cycles),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
