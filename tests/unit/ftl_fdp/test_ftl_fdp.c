/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for Flexible Data Placement in the FTL (ftl/fdp.c, the
 * reclaim unit handle streams of write.c and gc.c): writes of each handle
 * land in that handle's superblocks; GC keeps handles apart when they are
 * persistently isolated and mixes only its own superblocks when they are
 * initially isolated; the per-handle counters add up to the FTL's own
 * unit counts; all eight handles at high utilization never run out of
 * reclaim units; the Reclaim Unit Handle Update; handles out of range; a
 * superblock's handle after a crash and a clean restart; an update that
 * survives a crash; the event of a reclaim unit that filled; a reclaim
 * unit closed by its time limit (and only then), and GC's moves of a
 * handle's data as Media Reallocated events; the events and the saved log
 * of the layer above through a clean restart and a crash.
 */
#include "ftl_fixture.h"
#include "ftl_internal.h"

/* The handle owning @lba: the LBA space in @nr equal regions. */
static uint16_t lba_ruh(const struct fx *x, uint32_t lba, uint32_t nr)
{
	return (uint16_t)((uint64_t)lba * nr / x->cap);
}

/* The first LBA of handle @r's region (lba_ruh()'s inverse). */
static uint32_t region_lo(const struct fx *x, uint32_t r, uint32_t nr)
{
	return (uint32_t)(((uint64_t)x->cap * r + nr - 1) / nr);
}

static struct fx *fdp_new(uint32_t nr_ruh, bool persistent, uint32_t blocks, bool file)
{
	struct ftl_config cfg;
	struct fx_geo g;

	fx_cfg_default(&cfg);
	cfg.nr_ruh = nr_ruh;
	cfg.ruh_persistent = persistent;
	fx_geo_small(&g);
	g.blocks = blocks;
	return fx_new(&g, &cfg, file);
}

/* Host units written per handle by the helpers below. */
struct fdp_track {
	uint64_t host[FTL_MAX_RUH];
};

/* Write [lba, lba + nr) with the handle owning it. */
static void fdp_write(struct fx *x, struct fdp_track *t, uint32_t lba, uint32_t nr)
{
	x->ruh = lba_ruh(x, lba, x->f->cfg.nr_ruh);
	fx_write(x, lba, nr);
	t->host[x->ruh] += nr;
}

/* Every region written once, in runs of up to FX_MAX_IO units. */
static void fdp_fill(struct fx *x, struct fdp_track *t)
{
	uint32_t nr_ruh = x->f->cfg.nr_ruh;

	for (uint32_t r = 0; r < nr_ruh; r++) {
		uint32_t lo = region_lo(x, r, nr_ruh), hi = region_lo(x, r + 1, nr_ruh);

		for (uint32_t lba = lo; lba < hi; lba += FX_MAX_IO)
			fdp_write(x, t, lba, hi - lba < FX_MAX_IO ? hi - lba : FX_MAX_IO);
	}
}

/*
 * Random overwrites of 1..8 units inside one region, @units in all; half
 * of them go to region 0 (a hot handle), the rest anywhere. Logged in @l
 * unless NULL.
 */
static void fdp_overwrite(struct fx *x, struct fdp_track *t, uint64_t units,
			  struct fx_crash_log *l)
{
	uint32_t nr_ruh = x->f->cfg.nr_ruh;

	for (uint64_t done = 0; done < units;) {
		uint32_t r = fx_below(x, 2) ? 0 : fx_below(x, nr_ruh);
		uint32_t lo = region_lo(x, r, nr_ruh), hi = region_lo(x, r + 1, nr_ruh);
		uint32_t nr = 1 + fx_below(x, 8);

		if (nr > hi - lo)
			nr = hi - lo;
		lo += fx_below(x, hi - lo - nr + 1);
		fdp_write(x, t, lo, nr);
		if (l)
			fx_log_add(l, lo, nr);
		done += nr;
	}
}

/*
 * Where every mapped LBA is: a superblock of its own handle, or (initially
 * isolated only) one of no handle (GC's). Returns the superblocks of no
 * handle holding data of more than one handle.
 */
static uint32_t check_placement(const struct fx *x, bool persistent)
{
	const struct ftl *f = x->f;
	uint32_t *map = fx_tmp_alloc(FTL_UNIT);
	int *owner = fx_tmp_alloc(sizeof(int) * f->nr_sb);
	uint32_t mixed = 0;

	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		owner[sb] = -1;
	for (uint32_t tp = 0; tp < f->nr_tp; tp++) {
		fx_tp_contents(x, tp, map);
		for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++) {
			uint32_t lba = tp * FTL_TP_ENTRIES + i, sb;
			uint16_t h;

			if (lba >= x->cap || map[i] >= FTL_LOST)
				continue;
			sb = map[i] / f->units_per_sb;
			h = lba_ruh(x, lba, f->cfg.nr_ruh);
			if (f->sbs[sb].ruh != FTL_RUH_NONE) {
				if (f->sbs[sb].ruh != h)
					fail_msg("lba %u of handle %u in superblock %u of handle %u",
						 lba, h, sb, f->sbs[sb].ruh);
				continue;
			}
			if (persistent)
				fail_msg("lba %u of handle %u in superblock %u of no handle", lba,
					 h, sb);
			if (owner[sb] >= 0 && owner[sb] != h && owner[sb] != FTL_MAX_RUH) {
				mixed++;
				owner[sb] = FTL_MAX_RUH; /* counted */
			} else if (owner[sb] < 0) {
				owner[sb] = h;
			}
		}
	}
	fx_tmp_free(owner);
	fx_tmp_free(map);
	return mixed;
}

/* The handles' counters against the FTL's own unit counts and the writes made. */
static void check_counters(const struct fx *x, const struct fdp_track *t)
{
	struct ftl_stats st = fx_stats(x);
	struct ftl_fdp_stats fs;
	struct ftl_fdp_ctr sum = { 0 };
	uint64_t block_bytes = (uint64_t)x->lay.units_per_sb / x->lay.stripe * FTL_UNIT;

	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.nr_ruh, x->f->cfg.nr_ruh);
	assert_int_equal(fs.ru_bytes, (uint64_t)x->lay.units_per_sb * FTL_UNIT);
	for (uint32_t r = 0; r < FTL_MAX_RUH; r++) {
		assert_int_equal(fs.ruh[r].host_bytes, t->host[r] * FTL_UNIT);
		/* A handle's media writes are its host writes and more. */
		assert_true(fs.ruh[r].media_bytes >= fs.ruh[r].host_bytes);
		sum.host_bytes += fs.ruh[r].host_bytes;
		sum.media_bytes += fs.ruh[r].media_bytes;
		sum.erased_bytes += fs.ruh[r].erased_bytes;
	}
	assert_int_equal(fs.other.host_bytes, 0);
	assert_int_equal(fs.total.host_bytes, sum.host_bytes);
	assert_int_equal(fs.total.media_bytes, sum.media_bytes + fs.other.media_bytes);
	assert_int_equal(fs.total.erased_bytes, sum.erased_bytes + fs.other.erased_bytes);
	assert_int_equal(fs.total.host_bytes, st.units_written_host * FTL_UNIT);
	assert_int_equal(fs.total.media_bytes, (st.units_written_host + st.units_written_gc +
						st.units_written_tp + st.units_padded) *
						       FTL_UNIT);
	assert_int_equal(fs.total.erased_bytes, st.flash_erases * block_bytes);
}

/* 1. Writes of each handle go to that handle's own reclaim unit. */
static void test_fdp_placement(void **state)
{
	struct fdp_track t = { 0 };
	struct fx *x;
	int32_t sbs[4];

	(void)state;
	x = fdp_new(4, true, 32, false);
	for (uint32_t r = 0; r < 4; r++) {
		uint32_t lba = region_lo(x, r, 4);

		fdp_write(x, &t, lba, 20);
		sbs[r] = x->f->streams[ST_RUH0 + r].sb;
		assert_true(sbs[r] >= 0);
		assert_int_equal(x->f->sbs[sbs[r]].ruh, r);
		for (uint32_t q = 0; q < r; q++)
			assert_int_not_equal(sbs[q], sbs[r]);
	}
	/* Neither the sequential nor the random stream took any. */
	assert_int_equal(x->f->streams[ST_SEQ].sb, -1);
	assert_int_equal(x->f->streams[ST_RAND].sb, -1);
	fx_flush(x);
	assert_int_equal(check_placement(x, true), 0);
	check_counters(x, &t);
	fx_verify_all(x);
	fx_free(x);
}

/*
 * Four handles filled and overwritten twice over, half the writes on one
 * hot handle: GC runs and every LBA is where its isolation puts it.
 */
static struct fx *gc_run(bool persistent, struct fdp_track *t)
{
	struct fx *x = fdp_new(4, persistent, 32, false);

	fdp_fill(x, t);
	fdp_overwrite(x, t, 2ull * x->cap, NULL);
	assert_true(fx_stats(x).gc_runs > 0);
	assert_true(fx_stats(x).gc_units_moved > 0);
	fx_flush(x);
	fx_drain(x);
	check_counters(x, t);
	fx_verify_all(x);
	fx_check_invariants(x, true);
	return x;
}

/* 2. Persistently isolated: GC never mixes handles, whatever it collects. */
static void test_fdp_gc_persistent(void **state)
{
	struct fdp_track t = { 0 };
	struct fx *x;

	(void)state;
	x = gc_run(true, &t);
	assert_int_equal(check_placement(x, true), 0);
	/* GC moved data into its handles' own GC streams, never the common one. */
	assert_int_equal(x->f->streams[ST_GC].sb, -1);
	fx_free(x);
}

/* 3. Initially isolated: host reclaim units stay apart, GC's own mix. */
static void test_fdp_gc_initial(void **state)
{
	struct fdp_track t = { 0 };
	struct fx *x;

	(void)state;
	x = gc_run(false, &t);
	assert_true(check_placement(x, false) > 0);
	for (uint32_t s = ST_RUHGC0; s < ST_COUNT; s++)
		assert_int_equal(x->f->streams[s].sb, -1);
	fx_free(x);
}

/*
 * 4. Every handle there is, persistently isolated, a small device filled
 * to its capacity and overwritten three times over: GC always finds a free
 * reclaim unit (the capacity leaves one superblock per extra stream) and
 * no write fails.
 */
static void test_fdp_no_free_ru(void **state)
{
	struct fdp_track t = { 0 };
	struct fx *x;

	(void)state;
	x = fdp_new(FTL_MAX_RUH, true, 40, false);
	{
		struct ftl_config plain = x->cfg;
		uint64_t per_sb = x->lay.units_per_sb;

		plain.nr_ruh = 0;
		/* Each stream's open superblock is kept out of the capacity:
		 * 2 + 2 * 8 streams instead of 4, 14 superblocks fewer before OP. */
		assert_true(ftl_capacity_for(&plain, &x->nc.geo, 4, 40) >
			    x->cap + 13 * per_sb * (1000 - x->cfg.op_permille) / 1000);
	}
	fdp_fill(x, &t);
	fdp_overwrite(x, &t, 3ull * x->cap, NULL);
	assert_false(fx_activity(x).fatal);
	assert_true(fx_stats(x).gc_runs > 0);
	fx_flush(x);
	fx_drain(x);
	assert_int_equal(check_placement(x, true), 0);
	check_counters(x, &t);
	fx_verify_all(x);
	fx_free(x);
}

/*
 * 4b. The same at full utilization with initially isolated handles, and
 * persistently isolated ones on two planes (a die's planes programmed
 * together: the handles' streams wait for plane partners as the others do).
 */
static void test_fdp_initial_and_planes(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct fdp_track t = { 0 };
		struct fx *x;

		fx_cfg_default(&cfg);
		fx_geo_small(&g);
		cfg.nr_ruh = k ? 4 : FTL_MAX_RUH;
		cfg.ruh_persistent = k == 1;
		g.blocks = 40;
		g.planes = k ? 2 : 1;
		x = fx_new(&g, &cfg, false);
		fdp_fill(x, &t);
		fdp_overwrite(x, &t, 2ull * x->cap, NULL);
		assert_false(fx_activity(x).fatal);
		assert_true(fx_stats(x).gc_runs > 0);
		if (k)
			assert_true(fx_stats(x).pages_grouped > 0);
		fx_flush(x);
		fx_drain(x);
		check_placement(x, k == 1);
		check_counters(x, &t);
		fx_verify_all(x);
		fx_check_invariants(x, true);
		fx_free(x);
	}
}

/* 5. Reclaim Unit Handle Update, and handles out of range. */
static void test_fdp_ruh_update(void **state)
{
	struct fdp_track t = { 0 };
	struct ftl_fdp_stats fs;
	struct fx_req r = { 0 };
	struct fx *x;
	int32_t old;

	(void)state;
	x = fdp_new(2, true, 32, false);
	fdp_write(x, &t, x->cap - 40, 10); /* handle 1 */
	old = x->f->streams[ST_RUH0 + 1].sb;
	assert_true(old >= 0);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ru_left[1], fs.ru_bytes - 10ull * FTL_UNIT);
	/* Handle 0 has no reclaim unit yet: nothing moves. */
	assert_int_equal(ftl_ruh_update(x->f, 0), 0);
	assert_int_equal(ftl_ruh_update(x->f, 1), 0);
	assert_int_equal(x->f->streams[ST_RUH0 + 1].sb, -1);
	assert_int_equal(x->f->sbs[old].state, SB_FULL);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ru_updates[0], 0);
	assert_int_equal(fs.ru_updates[1], 1);
	assert_int_equal(fs.ru_left[1], 0);
	/* The page it was filling was padded and programmed. */
	assert_int_equal(fx_stats(x).units_padded, x->lay.slots - 10 % x->lay.slots);
	fdp_write(x, &t, x->cap - 30, 5);
	assert_true(x->f->streams[ST_RUH0 + 1].sb >= 0);
	assert_int_not_equal(x->f->streams[ST_RUH0 + 1].sb, old);
	assert_int_equal(ftl_ruh_update(x->f, 2), -EINVAL);
	x->ruh = 2;
	fx_prepare(x, 0, 1);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 0, 1, x->wbuf, false), -EINVAL);
	x->ruh = 0;
	fx_flush(x);
	check_counters(x, &t);
	fx_free(x);

	/* Without handles: no statistics, no update, no handle on a write. */
	x = fdp_new(0, false, 32, false);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), -EINVAL);
	assert_int_equal(ftl_ruh_update(x->f, 0), -EINVAL);
	x->ruh = 1;
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 0, 1, x->wbuf, false), -EINVAL);
	x->ruh = 0;
	fx_free(x);
}

/*
 * 6. A superblock's handle after a crash (from its pages' OOB) and after a
 * clean restart; the counters come back from the checkpoint.
 */
static void test_fdp_recovery(void **state)
{
	struct fdp_track t = { 0 };
	struct ftl_fdp_stats before, after;
	struct fx_crash_log l;
	uint8_t *ruh;
	struct fx *x;

	(void)state;
	x = fdp_new(3, true, 32, true);
	ruh = fx_tmp_alloc(x->lay.nr_sb);
	fx_log_init(&l, x);
	fdp_fill(x, &t);
	fdp_overwrite(x, &t, x->cap, NULL);
	fx_flush(x);
	fx_log_flushed(&l);
	fdp_overwrite(x, &t, 300, &l); /* not flushed: old or new after the crash */
	for (uint32_t sb = 0; sb < x->lay.nr_sb; sb++)
		ruh[sb] = x->f->sbs[sb].state == SB_FREE ? FTL_RUH_NONE : x->f->sbs[sb].ruh;
	fx_crash(x);
	fx_restart(x);
	/*
	 * Before anything runs (GC may collect and reuse them once driven);
	 * recovery's own translation pages may have opened a free one.
	 */
	for (uint32_t sb = FTL_CKPT_SBS; sb < x->lay.nr_sb; sb++)
		if (x->f->sbs[sb].state != SB_FREE && ruh[sb] != FTL_RUH_NONE)
			assert_int_equal(x->f->sbs[sb].ruh, ruh[sb]);
	fx_log_check(&l);
	assert_int_equal(check_placement(x, true), 0);
	fx_check_invariants(x, false);

	/* Go on writing, then a clean stop: the counters are kept as they were. */
	fdp_overwrite(x, &t, x->cap / 2, NULL);
	fx_shutdown(x);
	assert_int_equal(ftl_fdp_stats(x->f, &before), 0);
	fx_crash(x); /* nothing in flight: a close and reopen */
	fx_restart(x);
	assert_int_equal(ftl_fdp_stats(x->f, &after), 0);
	assert_memory_equal(&before.ruh, &after.ruh, sizeof(before.ruh));
	assert_memory_equal(&before.other, &after.other, sizeof(before.other));
	assert_int_equal(check_placement(x, true), 0);
	fx_verify_all(x);
	fx_tmp_free(ruh);
	fx_free(x);
}

/*
 * 7. A Reclaim Unit Handle Update survives a crash: the superblock it
 * closed stays closed (its padding carries the mark), whether the update
 * padded a page being filled or programmed a page of marked padding on a
 * page boundary; a handle the host did not update gets its superblock
 * back. And the FTL's own events: a handle's reclaim unit that filled.
 */
static void test_fdp_update_crash(void **state)
{
	struct fdp_track t = { 0 };
	struct ftl_fdp_stats fs;
	uint32_t slots, upsb;
	int32_t sb0, sb1, sb2;
	uint64_t padded;
	struct fx *x;

	(void)state;
	x = fdp_new(3, true, 32, true);
	slots = x->lay.slots;
	upsb = x->f->units_per_sb;
	fdp_write(x, &t, region_lo(x, 0, 3), 10); /* handle 0: not updated */
	fdp_write(x, &t, region_lo(x, 1, 3), 10); /* handle 1: a page being filled */
	fdp_write(x, &t, region_lo(x, 2, 3), 2 * slots); /* handle 2: on a page boundary */
	sb0 = x->f->streams[ST_RUH0].sb;
	sb1 = x->f->streams[ST_RUH0 + 1].sb;
	sb2 = x->f->streams[ST_RUH0 + 2].sb;
	assert_true(sb0 >= 0 && sb1 >= 0 && sb2 >= 0);
	assert_null(x->f->streams[ST_RUH0 + 2].wb);
	padded = fx_stats(x).units_padded;
	assert_int_equal(ftl_ruh_update(x->f, 1), 0);
	assert_int_equal(fx_stats(x).units_padded, padded + slots - 10 % slots);
	assert_int_equal(ftl_ruh_update(x->f, 2), 0);
	/* A page of marked padding: the whole page. */
	assert_int_equal(fx_stats(x).units_padded, padded + slots - 10 % slots + slots);
	fx_flush(x);
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(x->f->streams[ST_RUH0].sb, sb0); /* reopened where it was */
	assert_int_equal(x->f->streams[ST_RUH0 + 1].sb, -1);
	assert_int_equal(x->f->streams[ST_RUH0 + 2].sb, -1);
	assert_int_equal(x->f->sbs[sb1].state, SB_FULL);
	assert_int_equal(x->f->sbs[sb2].state, SB_FULL);
	/* The next writes of handles 1 and 2 open fresh reclaim units. */
	fdp_write(x, &t, region_lo(x, 1, 3) + 10, 4);
	fdp_write(x, &t, region_lo(x, 2, 3) + 2 * slots, 4);
	assert_int_not_equal(x->f->streams[ST_RUH0 + 1].sb, sb1);
	assert_int_not_equal(x->f->streams[ST_RUH0 + 2].sb, sb2);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ru_left[1], fs.ru_bytes - 4ull * FTL_UNIT);
	assert_int_equal(fs.ev_seq, 0); /* nothing filled */

	/* Handle 0's reclaim unit fills: its next write opens another, an event. */
	/* (The flush before the crash padded its page: it resumed on the next.) */
	assert_int_equal(fs.ru_left[0] % ((uint64_t)slots * FTL_UNIT), 0);
	assert_true(fs.ru_left[0] < (uint64_t)upsb * FTL_UNIT);
	upsb = (uint32_t)(fs.ru_left[0] / FTL_UNIT);
	for (uint32_t done = 0, lo = region_lo(x, 0, 3), size = region_lo(x, 1, 3) - lo;
	     done < upsb;) {
		uint32_t off = done % size, n = upsb - done < FX_MAX_IO ? upsb - done : FX_MAX_IO;

		n = n < size - off ? n : size - off;
		fdp_write(x, &t, lo + off, n);
		done += n;
	}
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 0);
	fdp_write(x, &t, region_lo(x, 0, 3), 1);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 1);
	assert_int_equal(fs.ev[0].seq, 1);
	assert_int_equal(fs.ev[0].type, FTL_FDP_EV_RU_FILLED);
	assert_int_equal(fs.ev[0].ruh, 0);
	assert_int_equal(fs.ru_implicit[0], 1);
	assert_int_equal(fs.ru_implicit[1], 0);
	fx_flush(x);
	fx_verify_all(x); /* (counters after a crash are the checkpoint's: not checked) */
	fx_free(x);
}

/* Two persistently isolated handles whose reclaim units close after @limit ns open. */
static struct fx *fx_ru_limit(uint64_t limit)
{
	struct ftl_config cfg;
	struct fx_geo g;

	fx_cfg_default(&cfg);
	cfg.nr_ruh = 2;
	cfg.ruh_persistent = true;
	cfg.ru_time_limit_ns = limit;
	fx_geo_small(&g);
	g.blocks = 32;
	return fx_new(&g, &cfg, true);
}

/*
 * 9. The reclaim unit time limit: a handle's reclaim unit written to and
 * left open is closed at the limit (not a nanosecond before), its page
 * padded with the mark that keeps it closed after a crash, and the event
 * recorded; a fresh or full one is not; no limit, no deadline.
 */
static void test_fdp_time_limit(void **state)
{
	const uint64_t limit = 2000000000ull; /* 2 s of the virtual clock */
	struct fdp_track t = { 0 };
	struct ftl_fdp_stats fs;
	uint64_t opened, padded;
	struct fx *x;
	int32_t sb;

	(void)state;
	x = fx_ru_limit(limit);
	assert_int_equal(ftl_fdp_deadline(x->f), UINT64_MAX); /* nothing written */
	fdp_write(x, &t, x->cap - 40, 10); /* handle 1 */
	sb = x->f->streams[ST_RUH0 + 1].sb;
	assert_true(sb >= 0);
	opened = x->f->streams[ST_RUH0 + 1].opened_ns;
	assert_int_equal(ftl_fdp_deadline(x->f), opened + limit);
	/* Handle 0 written later: the deadline is still handle 1's. */
	blox_clock_set(&x->vd.clock, opened + limit / 2);
	fdp_write(x, &t, 0, 3);
	assert_int_equal(ftl_fdp_deadline(x->f), opened + limit);
	/* Just before: nothing happens. */
	blox_clock_set(&x->vd.clock, opened + limit - 1);
	ftl_process(x->f);
	fx_drain(x);
	assert_int_equal(x->f->streams[ST_RUH0 + 1].sb, sb);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 0);
	/* At the limit: closed, its page padded, the event. */
	padded = fx_stats(x).units_padded;
	blox_clock_set(&x->vd.clock, opened + limit);
	ftl_process(x->f);
	fx_drain(x);
	assert_int_equal(x->f->streams[ST_RUH0 + 1].sb, -1);
	assert_int_equal(x->f->sbs[sb].state, SB_FULL);
	assert_int_equal(fx_stats(x).units_padded, padded + x->lay.slots - 10 % x->lay.slots);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 1);
	assert_int_equal(fs.ev[0].type, FTL_FDP_EV_RU_TIMEOUT);
	assert_int_equal(fs.ev[0].ruh, 1);
	assert_int_equal(fs.ev[0].ns, opened + limit);
	assert_int_equal(fs.ru_expired[1], 1);
	assert_int_equal(fs.ru_expired[0], 0);
	assert_int_equal(fs.ru_updates[1], 0); /* not a host's update */
	assert_int_equal(fs.ru_left[1], 0);
	/* Handle 0's is due next, then nothing once it closed too. */
	assert_int_equal(ftl_fdp_deadline(x->f), opened + limit / 2 + limit);
	blox_clock_set(&x->vd.clock, opened + 2 * limit);
	ftl_process(x->f);
	fx_drain(x);
	assert_int_equal(ftl_fdp_deadline(x->f), UINT64_MAX);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 2);
	assert_int_equal(fs.ev[1].type, FTL_FDP_EV_RU_TIMEOUT);
	assert_int_equal(fs.ev[1].ruh, 0);
	/* The next write of handle 1 opens a fresh reclaim unit; the data is there. */
	fdp_write(x, &t, x->cap - 30, 5);
	assert_true(x->f->streams[ST_RUH0 + 1].sb >= 0);
	assert_int_not_equal(x->f->streams[ST_RUH0 + 1].sb, sb);
	fx_flush(x);
	fx_verify_all(x);
	check_counters(x, &t);
	/* After a crash the closed reclaim unit stays closed. */
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(x->f->sbs[sb].state, SB_FULL);
	fx_verify_all(x);
	fx_free(x);

	/* Without a limit: no deadline, no close, however long it waits. */
	x = fdp_new(2, true, 32, false);
	fdp_write(x, &t, 0, 3);
	sb = x->f->streams[ST_RUH0].sb;
	assert_int_equal(ftl_fdp_deadline(x->f), UINT64_MAX);
	blox_clock_set(&x->vd.clock, x->vd.clock.virt_ns + 1000 * limit);
	ftl_process(x->f);
	fx_drain(x);
	assert_int_equal(x->f->streams[ST_RUH0].sb, sb);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 0);
	fx_free(x);
}

/*
 * 10. Media Reallocated: each superblock of a handle that GC collects with
 * valid data in it is an event of that handle, with the units moved (the
 * victim's valid units when it was taken) and the first one's LBA, which
 * is the handle's (persistently isolated: its superblocks hold its LBAs
 * only); their sum is what GC moved of data.
 */
static void test_fdp_realloc(void **state)
{
	struct fdp_track t = { 0 };
	struct ftl_fdp_stats fs;
	uint64_t seq0, moved0, moved = 0, n = 0;
	struct fx *x;

	(void)state;
	x = fdp_new(4, true, 32, false);
	fdp_fill(x, &t);
	fdp_overwrite(x, &t, x->cap / 2, NULL);
	fx_flush(x);
	fx_drain(x);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	seq0 = fs.ev_seq;
	moved0 = fx_stats(x).gc_units_moved;
	/* A storm of 8 victims, each a full superblock of a handle. */
	ftl_gc_storm(x->f, 8, 0);
	ftl_kick(x->f);
	fx_drain(x);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_true(fs.ev_seq - seq0 < FTL_FDP_EVENTS); /* none lost to the ring */
	for (uint64_t q = seq0 + 1; q <= fs.ev_seq; q++) {
		const struct ftl_fdp_event *e = &fs.ev[(q - 1) % FTL_FDP_EVENTS];

		assert_int_equal(e->seq, q);
		if (e->type != FTL_FDP_EV_REALLOC)
			continue;
		assert_true(e->ruh < 4);
		assert_true(e->moved > 0);
		assert_int_equal(lba_ruh(x, e->lba, 4), e->ruh);
		moved += e->moved;
		n++;
	}
	assert_true(n > 0);
	/* Every data unit GC moved was a handle's (translation pages move without one). */
	assert_true(moved > 0 && moved <= fx_stats(x).gc_units_moved - moved0);
	fx_verify_all(x);
	fx_free(x);
}

/*
 * 11. The event ring, the counters of reclaim units left and the log the
 * layer above saves (ftl_fdp_log_set()) come back after a clean restart;
 * after a crash they are the last checkpoint's (the one the restart
 * before took). Bounded: a log larger than FTL_FDP_LOG_BYTES is refused.
 */
static void test_fdp_events_kept(void **state)
{
	const uint64_t limit = 1000000000ull;
	static uint8_t log[FTL_FDP_LOG_BYTES + 1], back[FTL_FDP_LOG_BYTES];
	struct fdp_track t = { 0 };
	struct ftl_fdp_stats fs, fs2;
	struct fx *x;

	(void)state;
	x = fx_ru_limit(limit);
	assert_int_equal(ftl_fdp_log_get(x->f, back, sizeof(back)), 0); /* none yet */
	for (uint32_t i = 0; i < sizeof(log); i++)
		log[i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(ftl_fdp_log_set(x->f, log, sizeof(log)), -E2BIG);
	assert_int_equal(ftl_fdp_log_set(x->f, log, 5000), 0);
	/* Three events: two time limits and a unit filled. */
	fdp_write(x, &t, 0, 3);
	blox_clock_set(&x->vd.clock, x->vd.clock.virt_ns + limit);
	ftl_process(x->f);
	fdp_write(x, &t, x->cap - 9, 9);
	blox_clock_set(&x->vd.clock, x->vd.clock.virt_ns + limit);
	ftl_process(x->f);
	fx_drain(x);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 2);
	assert_int_equal(fs.ru_expired[0], 1);
	assert_int_equal(fs.ru_expired[1], 1);

	clean_restart(x);
	assert_int_equal(ftl_fdp_stats(x->f, &fs2), 0);
	assert_int_equal(fs2.ev_seq, 2);
	assert_memory_equal(fs2.ev, fs.ev, sizeof(fs.ev));
	assert_memory_equal(fs2.ru_expired, fs.ru_expired, sizeof(fs.ru_expired));
	assert_int_equal(ftl_fdp_log_get(x->f, back, sizeof(back)), 5000);
	assert_memory_equal(back, log, 5000);
	/* Too small a buffer gets nothing. */
	assert_int_equal(ftl_fdp_log_get(x->f, back, 4999), 0);

	/* Changed after that restart's checkpoint, then a crash: the checkpoint's. */
	assert_int_equal(ftl_fdp_log_set(x->f, log + 1, 100), 0);
	fdp_write(x, &t, 0, 3);
	blox_clock_set(&x->vd.clock, x->vd.clock.virt_ns + limit);
	ftl_process(x->f);
	fx_drain(x);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 3);
	fx_flush(x);
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	assert_int_equal(fs.ev_seq, 2);
	assert_memory_equal(fs.ev, fs2.ev, sizeof(fs.ev));
	assert_int_equal(ftl_fdp_log_get(x->f, back, sizeof(back)), 5000);
	assert_memory_equal(back, log, 5000);
	fx_verify_all(x);
	fx_free(x);

	/* Without handles there is nothing to keep. */
	x = fdp_new(0, false, 32, false);
	assert_int_equal(ftl_fdp_log_set(x->f, log, 10), -EINVAL);
	fx_free(x);
}

/*
 * 12. Bytes erased count the blocks erased: after a die goes offline, GC's
 * erases skip its blocks, and the statistics count what flash_erases does.
 */
static void test_fdp_erased_dieoff(void **state)
{
	struct fdp_track t = { 0 };
	struct ftl_fdp_stats fs;
	uint64_t erases0, erased0, block_bytes;
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.nr_ruh = 2;
	cfg.ruh_persistent = true;
	cfg.op_permille = 400; /* a quarter of the flash can go and the capacity still fits */
	fx_geo_small(&g);
	x = fx_new(&g, &cfg, false);
	block_bytes = (uint64_t)x->lay.units_per_sb / x->lay.stripe * FTL_UNIT;
	/* A third of each handle's LBAs: room left with a die gone. */
	for (uint32_t r = 0; r < 2; r++)
		for (uint32_t lba = region_lo(x, r, 2); lba < region_lo(x, r, 2) + x->cap / 6;
		     lba += 8)
			fdp_write(x, &t, lba, 8);
	fx_flush(x);
	fx_drain(x);
	assert_int_equal(nand_die_set_offline(x->dev, 1, true), 0);
	assert_int_equal(ftl_die_offline(x->f, 1), 0);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	erases0 = fx_stats(x).flash_erases;
	erased0 = fs.total.erased_bytes;
	/* Writes over the live part until GC has erased superblocks with the die off. */
	for (uint32_t round = 0; round < 8 && fx_stats(x).flash_erases - erases0 < 8; round++) {
		for (uint32_t r = 0; r < 2; r++)
			for (uint32_t lba = region_lo(x, r, 2); lba < region_lo(x, r, 2) + x->cap / 6;
			     lba += 8)
				fdp_write(x, &t, lba, 8);
		fx_flush(x);
		fx_drain(x);
	}
	assert_true(fx_stats(x).flash_erases - erases0 >= 8);
	assert_int_equal(ftl_fdp_stats(x->f, &fs), 0);
	/* A superblock's erase is one block less than its stripe: the dead die's is not erased. */
	assert_int_equal(fs.total.erased_bytes - erased0,
			 (fx_stats(x).flash_erases - erases0) * block_bytes);
	assert_int_equal(fs.total.erased_bytes, fx_stats(x).flash_erases * block_bytes);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_fdp_placement),   FX_TEST(test_fdp_gc_persistent),
		FX_TEST(test_fdp_gc_initial),  FX_TEST(test_fdp_no_free_ru),
		FX_TEST(test_fdp_initial_and_planes),
		FX_TEST(test_fdp_ruh_update),  FX_TEST(test_fdp_recovery),
		FX_TEST(test_fdp_update_crash), FX_TEST(test_fdp_time_limit),
		FX_TEST(test_fdp_realloc),    FX_TEST(test_fdp_events_kept),
		FX_TEST(test_fdp_erased_dieoff),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
