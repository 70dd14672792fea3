/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Crashes during a migration (the instance dropped with whatever is in
 * flight, as kill -9 leaves it): at chosen points of a superblock's move
 * (copy half made, copy done and switched with the erase in flight, just
 * moved, a copy being dropped, a throttle wait, a checkpoint superblock's
 * copy), at random points again and again, while cancelling, and with a
 * caller that had not persisted the end yet. Each time every flushed LBA
 * reads back as flushed (the others as flushed or as one of the writes
 * since), the migration resumes from the persisted resources and ends
 * with the old die erased.
 */
#include "migrate_tests.h"

/* A crash test's instance: data written and flushed, the crash log, a load. */
struct crash_run {
	struct mt *t;
	struct fx_crash_log log;
	struct mt_load ld;
};

static void crash_setup(struct crash_run *c, uint32_t share)
{
	struct fx *x;

	c->t = mt_new(16, 24, 0, 16, true, NULL);
	x = c->t->x;
	fx_log_init(&c->log, x);
	fx_seq_fill(x, 0, x->cap / 2);
	fx_random_writes(x, x->cap / 2, 8, x->cap / 8);
	fx_trim(x, 200, 50);
	fx_flush(x);
	fx_log_flushed(&c->log);
	/* Unflushed writes in the streams' open pages too. */
	for (int i = 0; i < 40; i++)
		fx_log_write(&c->log, fx_below(x, x->cap - 8), 1 + fx_below(x, 8));
	mt_load_init(&c->ld, c->t, x->cap);
	c->ld.log = &c->log;
	c->ld.flush_every = 48;
	c->ld.write_pct = 60;
	mt_start(c->t, 0, 1, share);
}

/* Free the run's instance and memory (several runs in one test). */
static void crash_free(struct crash_run *c)
{
	fx_tmp_free(c->ld.buf);
	fx_free(c->t->x);
	fx_tmp_free(c->t);
}

/* The crash, then what survived, then the migration goes on from where it was. */
static void crash_check(struct crash_run *c, enum ftl_mig_state want)
{
	struct fx *x = c->t->x;

	mt_crash(c->t);
	mt_load_reset(&c->ld);
	assert_int_equal(mt_prog(c->t).state, want);
	fx_log_check(&c->log);
	fx_check_invariants(x, false);
}

/* To the end with the load; the old die erased, everything as written. */
static void crash_finish(struct crash_run *c, uint32_t old_die)
{
	struct fx *x = c->t->x;

	c->ld.stopped = false;
	mt_run_done(c->t, &c->ld);
	mt_load_drain(&c->ld);
	assert_int_equal(c->t->saved.mig_active, false);
	mt_expect_erased(c->t, old_die);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	/* And once more after the end, from what the caller persisted. */
	fx_flush(x);
	fx_log_flushed(&c->log);
	mt_crash(c->t);
	assert_int_equal(mt_prog(c->t).state, FTL_MIG_NONE);
	assert_int_equal(fx_log_check(&c->log), 0);
	mt_expect_erased(c->t, old_die);
	crash_free(c);
}

/* ---- the points ---- */

static const struct ftl_mig *mig(const struct mt *t)
{
	return &t->x->f->mig;
}

/* A checkpoint superblock's copy programming (its page on slot 0's die). */
static bool ckpt_copying(struct mt *t)
{
	const struct ftl_mig *m = mig(t);

	return m->sb >= 0 && m->sb < 2 && m->phase == MIG_COPY && m->pending &&
	       m->progs_issued > 0;
}

static bool data_half(struct mt *t)
{
	const struct ftl_mig *m = mig(t);

	return m->sb >= 2 && m->phase == MIG_COPY && m->items_done > m->items / 2 &&
	       m->items_done < m->items;
}

/* The last pages of a superblock's copy programming. */
static bool last_batch(struct mt *t)
{
	const struct ftl_mig *m = mig(t);

	return m->sb >= 2 && m->phase == MIG_COPY && m->items_done + m->batch == m->items &&
	       m->items_done < m->items && m->pending;
}

static bool erasing(struct mt *t)
{
	const struct ftl_mig *m = mig(t);

	return m->sb >= 2 && m->switched && m->phase == MIG_ERASE && m->pending;
}

/* A few moved, the next one's first pages reading. */
static bool just_moved(struct mt *t)
{
	const struct ftl_mig *m = mig(t);

	return m->sbs_copied >= 4 && m->phase == MIG_COPY && m->items_done == 0;
}

static bool throttled_half(struct mt *t)
{
	const struct ftl_mig *m = mig(t);

	return m->sb >= 2 && m->phase == MIG_IDLE && m->items_done > 0 &&
	       m->items_done < m->items && m->next_ns > t->x->vd.clock.virt_ns;
}

/* A superblock opened since the start holds host data on the new die. */
static bool dst_written(struct mt *t)
{
	const struct ftl *f = t->x->f;

	for (uint32_t sb = 2; sb < f->nr_sb; sb++)
		if (f->mig.on_dst[sb] && f->sbs[sb].state == SB_OPEN && mt_sb_pages(t, 1, sb))
			return mig(t)->sbs_copied < 4;
	return false;
}

static bool discarding(struct mt *t)
{
	return mig(t)->phase == MIG_DISCARD && mig(t)->pending;
}

static void crash_at(bool (*pred)(struct mt *t), const char *what, uint32_t share)
{
	struct crash_run c;

	crash_setup(&c, share);
	mt_run_until(c.t, &c.ld, pred, what);
	crash_check(&c, FTL_MIG_RUNNING);
	crash_finish(&c, 0);
}

void test_mig_crash_points(void **state)
{
	struct crash_run c;

	(void)state;
	crash_at(ckpt_copying, "a checkpoint superblock's copy programming", 1000);
	crash_at(data_half, "a data superblock half copied", 1000);
	crash_at(last_batch, "a superblock's last pages programming", 1000);
	crash_at(erasing, "a superblock switched, its old blocks erasing", 1000);
	crash_at(just_moved, "a superblock just moved", 1000);
	crash_at(throttled_half, "a throttled copy half made", 300);
	crash_at(dst_written, "host data on the new die before any copy", 1000);
	/* A copy being dropped (by a pause). */
	crash_setup(&c, 1000);
	mt_run_until(c.t, &c.ld, data_half, "a data superblock half copied");
	assert_int_equal(ftl_migrate_pause(c.t->x->f), 0);
	mt_run_until(c.t, &c.ld, discarding, "the half copy erasing");
	/* A pause is not persisted: the migration resumes running. */
	crash_check(&c, FTL_MIG_RUNNING);
	crash_finish(&c, 0);
}

/* Crash after crash at random points, with the load on, until it ends. */
void test_mig_crash_cycles(void **state)
{
	struct crash_run c;
	uint32_t crashes = 0;
	struct fx *x;

	(void)state;
	crash_setup(&c, 300); /* slow enough for 10 crashes before the end */
	x = c.t->x;
	while (mt_prog(c.t).state != FTL_MIG_DONE) {
		uint64_t n = 50 + fx_below(x, 1000);

		for (uint64_t i = 0; i < n && mt_prog(c.t).state != FTL_MIG_DONE; i++) {
			mt_load_pump(&c.ld);
			(void)mt_step(c.t);
		}
		if (mt_prog(c.t).state == FTL_MIG_DONE)
			break;
		crash_check(&c, FTL_MIG_RUNNING);
		crashes++;
		assert_true(crashes < 2000);
	}
	fprintf(stderr, "crash cycles: %u crashes before the end\n", crashes);
	assert_true(crashes >= 10);
	crash_finish(&c, 0);
}

static bool back_half(struct mt *t)
{
	const struct ftl_mig *m = mig(t);

	return m->reverse && m->sb >= 2 && m->phase == MIG_COPY && m->items_done > 0;
}

static bool back_erasing(struct mt *t)
{
	const struct ftl_mig *m = mig(t);

	return m->reverse && m->switched && m->phase == MIG_ERASE && m->pending;
}

static bool half_moved(struct mt *t)
{
	struct ftl_migrate_progress p = mt_prog(t);

	return p.sbs_copied * 2 >= p.sbs_total && mig(t)->phase == MIG_COPY;
}

/* Crashes while moving back; the cancel persisted, or not (then it goes forward again). */
void test_mig_crash_cancel(void **state)
{
	static bool (*const points[])(struct mt *t) = { back_half, back_erasing };
	struct crash_run c;

	(void)state;
	for (int persisted = 1; persisted >= 0; persisted--) {
		for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
			crash_setup(&c, 1000);
			mt_run_until(c.t, &c.ld, half_moved, "half the superblocks moved");
			assert_int_equal(ftl_migrate_cancel(c.t->x->f), 0);
			if (persisted)
				mt_persist(c.t);
			mt_run_until(c.t, &c.ld, points[i], "moving back");
			crash_check(&c, persisted ? FTL_MIG_CANCELLING : FTL_MIG_RUNNING);
			if (persisted) {
				/* Twice: the recovery's own outcome survives a crash too. */
				crash_check(&c, FTL_MIG_CANCELLING);
				c.ld.stopped = false;
				mt_run_done(c.t, &c.ld);
				mt_load_drain(&c.ld);
				assert_int_equal(c.t->migrated_status, -ECANCELED);
				assert_int_equal(c.t->saved.dies[0], 0);
				mt_expect_erased(c.t, 1);
				fx_verify_all(c.t->x);
				fx_flush(c.t->x);
				fx_log_flushed(&c.log);
				mt_crash(c.t);
				assert_int_equal(fx_log_check(&c.log), 0);
				mt_expect_erased(c.t, 1);
				crash_free(&c);
			} else {
				crash_finish(&c, 0);
			}
		}
	}
}

/* The caller had not persisted the end yet: the migration ends again at once. */
void test_mig_crash_lagging_caller(void **state)
{
	struct ftl_resources before;
	struct crash_run c;

	(void)state;
	crash_setup(&c, 1000);
	before = c.t->saved;
	mt_run_done(c.t, &c.ld);
	mt_load_drain(&c.ld);
	assert_false(c.t->saved.mig_active);
	fx_flush(c.t->x);
	fx_log_flushed(&c.log);
	c.t->saved = before; /* lost with the crash */
	c.t->migrated_calls = 0;
	crash_check(&c, FTL_MIG_RUNNING);
	mt_run_done(c.t, NULL);
	assert_int_equal(c.t->migrated_calls, 1);
	assert_int_equal(c.t->migrated_status, 0);
	assert_int_equal(mt_prog(c.t).sbs_copied, 0); /* nothing left to copy */
	assert_false(c.t->saved.mig_active);
	assert_int_equal(c.t->saved.dies[0], 1);
	crash_finish(&c, 0);
}
