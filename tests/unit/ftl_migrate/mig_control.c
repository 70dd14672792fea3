/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Controlling a migration: pause and resume, cancel (running and
 * paused), the throttle's share, several migrations one after another.
 */
#include "migrate_tests.h"

static bool two_copied(struct mt *t)
{
	return mt_prog(t).sbs_copied >= 2;
}

/* In the middle of a superblock's copy: some of its pages programmed. */
static bool mid_copy(struct mt *t)
{
	const struct ftl_mig *m = &t->x->f->mig;

	return m->sb >= 0 && !m->switched && m->items_done > 0 && m->items_done < m->items &&
	       t->x->f->sbs[m->sb].state == SB_FULL;
}

static bool half_copied(struct mt *t)
{
	struct ftl_migrate_progress p = mt_prog(t);

	return p.sbs_copied * 2 >= p.sbs_total && mid_copy(t);
}

void test_mig_pause_resume(void **state)
{
	struct ftl_migrate_progress p, q;
	struct mt_load ld;
	struct mt *t;
	struct fx *x;
	uint64_t dst_pages;
	uint32_t half;

	(void)state;
	t = mt_new(20, 30, 0, 20, false, NULL);
	x = t->x;
	fx_seq_fill(x, 0, x->cap * 2 / 3);
	fx_flush(x);
	mt_start(t, 2, 5, 1000);
	mt_run_until(t, NULL, two_copied, "two superblocks copied");
	mt_run_until(t, NULL, mid_copy, "a copy half made");
	/* GC does not take the superblock being copied. */
	{
		int32_t sb = x->f->mig.sb, hidden = ftl_mig_hide(x->f);

		assert_int_equal(hidden, sb);
		assert_int_equal(x->f->sbs[sb].state, SB_GC);
		ftl_mig_unhide(x->f, hidden);
		assert_int_equal(x->f->sbs[sb].state, SB_FULL);
	}
	half = (uint32_t)x->f->mig.sb;
	assert_true(mt_sb_pages(t, 5, half) > 0);
	assert_int_equal(ftl_migrate_pause(x->f), 0);
	assert_int_equal(ftl_migrate_pause(x->f), -EINVAL);
	assert_int_equal(mt_prog(t).state, FTL_MIG_PAUSED);
	/* The copy in flight ends, the half-made one is dropped. */
	mt_run_for(t, NULL, 50ull * 1000 * 1000);
	assert_false(ftl_mig_busy(x->f));
	assert_int_equal(x->f->mig.sb, -1);
	assert_int_equal(mt_sb_pages(t, 5, half), 0);
	assert_true(mt_sb_pages(t, 4, half) > 0);
	p = mt_prog(t);
	assert_true(p.sbs_copied >= 2 && p.sbs_copied < p.sbs_total);
	/* Paused: host I/O goes on, the migration stands still. */
	dst_pages = mt_die_pages(t, 5);
	mt_load_init(&ld, t, x->cap);
	ld.write_pct = 0;
	ld.trim_pct = 0;
	mt_run_for(t, &ld, 300ull * 1000 * 1000);
	mt_load_drain(&ld);
	q = mt_prog(t);
	assert_int_equal(q.state, FTL_MIG_PAUSED);
	assert_int_equal(q.sbs_copied, p.sbs_copied);
	assert_int_equal(q.bytes_copied, p.bytes_copied);
	assert_int_equal(mt_die_pages(t, 5), dst_pages);
	assert_true(ld.units_read > 1000);
	/* Writes while paused go to the new die (free superblocks moved at once). */
	fx_random_writes(x, x->cap, 8, 3000);
	fx_flush(x);
	assert_true(mt_die_pages(t, 5) > dst_pages);
	assert_int_equal(mt_prog(t).sbs_copied, p.sbs_copied);
	fx_verify_all(x);
	assert_int_equal(ftl_migrate_resume(x->f), 0);
	assert_int_equal(ftl_migrate_resume(x->f), -EINVAL);
	mt_run_done(t, NULL);
	assert_int_equal(mt_prog(t).status, 0);
	assert_int_equal(t->migrated_status, 0);
	mt_expect_erased(t, 4);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_free(x);
}

/* Everything moved so far moves back; the new die ends erased. */
static void cancel_run(bool paused_first)
{
	struct ftl_migrate_progress p;
	struct ftl_resources r;
	struct mt_load ld;
	struct mt *t;
	struct fx *x;
	uint64_t src_reads;

	t = mt_new(20, 30, 0, 20, false, NULL);
	x = t->x;
	fx_seq_fill(x, 0, x->cap * 2 / 3);
	fx_random_writes(x, x->cap, 4, 2000);
	mt_load_init(&ld, t, x->cap);
	mt_start(t, 1, 3, 1000);
	mt_run_until(t, &ld, half_copied, "half the superblocks copied");
	mt_load_drain(&ld);
	fx_verify_all(x);
	assert_true(mt_die_pages(t, 3) > 0);
	if (paused_first) {
		assert_int_equal(ftl_migrate_pause(x->f), 0);
		mt_run_for(t, NULL, 20ull * 1000 * 1000);
		assert_int_equal(mt_prog(t).state, FTL_MIG_PAUSED);
	}
	assert_int_equal(ftl_migrate_cancel(x->f), 0);
	assert_int_equal(ftl_migrate_cancel(x->f), -EINVAL);
	assert_int_equal(ftl_migrate_pause(x->f), -EINVAL);
	mt_persist(t);
	assert_true(t->saved.mig_cancel);
	assert_int_equal(mt_prog(t).state, FTL_MIG_CANCELLING);
	ld.stopped = false;
	mt_run_done(t, &ld);
	mt_load_drain(&ld);
	p = mt_prog(t);
	assert_int_equal(p.state, FTL_MIG_DONE);
	assert_int_equal(p.status, -ECANCELED);
	assert_int_equal(t->migrated_calls, 1);
	assert_int_equal(t->migrated_status, -ECANCELED);
	ftl_get_resources(x->f, &r);
	assert_false(r.mig_active);
	assert_int_equal(r.dies[1], 2);
	assert_int_equal(t->saved.dies[1], 2);
	mt_expect_erased(t, 3);
	src_reads = mt_die_reads(t, 3);
	fx_verify_all(x);
	assert_int_equal(mt_die_reads(t, 3), src_reads);
	fx_check_invariants(x, false);
	fx_free(x);
}

void test_mig_cancel(void **state)
{
	(void)state;
	cancel_run(false);
}

void test_mig_cancel_paused(void **state)
{
	(void)state;
	cancel_run(true);
}

/* Virtual time to migrate the same instance at @share; its progress in @out. */
static uint64_t timed_run(uint32_t share, struct ftl_migrate_progress *out)
{
	struct mt *t = mt_new(20, 30, 0, 20, false, NULL);
	struct fx *x = t->x;
	uint64_t ns;

	fx_seq_fill(x, 0, x->cap * 3 / 4);
	fx_flush(x);
	mt_start(t, 0, 1, share);
	mt_run_done(t, NULL);
	*out = mt_prog(t);
	ns = out->finished_ns - out->started_ns;
	if (share < 1000)
		assert_true(t->wakes > 0); /* it asked to be woken, not kicked */
	fx_verify_all(x);
	mt_expect_erased(t, 0);
	fx_free(x);
	return ns;
}

void test_mig_throttle(void **state)
{
	struct ftl_migrate_progress p1000, p250, p100;
	uint64_t t1000, t250, t100;
	double s1000, s250, s100;

	(void)state;
	t1000 = timed_run(1000, &p1000);
	t250 = timed_run(250, &p250);
	t100 = timed_run(100, &p100);
	s1000 = (double)p1000.busy_ns / (double)t1000;
	s250 = (double)p250.busy_ns / (double)t250;
	s100 = (double)p100.busy_ns / (double)t100;
	fprintf(stderr,
		"throttle: %u superblocks, %.1f MiB: share 1000 %.1f ms (busy %.2f), 250 %.1f ms "
		"(busy %.2f), 100 %.1f ms (busy %.2f)\n",
		p1000.sbs_copied, (double)p1000.bytes_copied / (1 << 20), (double)t1000 / 1e6,
		s1000, (double)t250 / 1e6, s250, (double)t100 / 1e6, s100);
	assert_int_equal(p1000.bytes_copied, p100.bytes_copied);
	assert_true(t250 > 3 * t1000);
	assert_true(t100 > 8 * t1000);
	/* The busier die's time taken is about the share. */
	assert_true(s1000 > 0.85);
	assert_true(s250 > 0.22 && s250 < 0.28);
	assert_true(s100 > 0.085 && s100 < 0.115);
}

/* Moves one after another, a slot moved twice, back to where it began. */
void test_mig_chain(void **state)
{
	static const struct {
		uint32_t slot, dst, src;
	} moves[] = { { 0, 1, 0 }, { 1, 0, 2 }, { 0, 3, 1 }, { 0, 2, 3 }, { 1, 1, 0 } };
	struct mt_load ld;
	struct mt *t;
	struct fx *x;

	(void)state;
	t = mt_new(20, 30, 0, 20, true, NULL);
	x = t->x;
	fx_seq_fill(x, 0, x->cap / 2);
	mt_load_init(&ld, t, x->cap);
	for (size_t i = 0; i < sizeof(moves) / sizeof(moves[0]); i++) {
		t->migrated_calls = 0;
		ld.stopped = false;
		mt_start(t, moves[i].slot, moves[i].dst, 1000);
		assert_int_equal(mt_prog(t).src, moves[i].src);
		mt_run_done(t, &ld);
		mt_load_drain(&ld);
		mt_expect_erased(t, moves[i].src);
		fx_verify_all(x);
		fx_check_invariants(x, false);
		mt_clean_restart(t);
		fx_verify_all(x);
	}
	assert_int_equal(t->saved.dies[0], 2);
	assert_int_equal(t->saved.dies[1], 1);
	fx_free(x);
}
