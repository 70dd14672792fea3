/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die migration on an idle instance, on part of a block range, with a
 * concurrent load, across a clean restart, and the starts it refuses.
 */
#include "migrate_tests.h"

/* Data in every kind of superblock: full ones, the streams' open ones, trims. */
static void mt_fill(struct mt *t)
{
	struct fx *x = t->x;

	fx_seq_fill(x, 0, x->cap / 2);
	fx_random_writes(x, x->cap / 2, 8, x->cap / 4);
	fx_trim(x, 100, 300);
	fx_seq_fill(x, x->cap / 2 + 10, 200);
}

/* After the end: where everything is, and what is left of the old die. */
static void expect_moved(struct mt *t, uint32_t slot, uint32_t src, uint32_t dst)
{
	struct ftl_migrate_progress p = mt_prog(t);
	struct ftl_resources r;
	uint64_t reads;

	assert_int_equal(p.state, FTL_MIG_DONE);
	assert_int_equal(p.status, 0);
	assert_int_equal(p.src, src);
	assert_int_equal(p.dst, dst);
	assert_int_equal(p.sbs_copied, p.sbs_total);
	assert_int_equal(p.bytes_copied, p.bytes_total);
	assert_int_equal(t->migrated_calls, 1);
	assert_int_equal(t->migrated_status, 0);
	ftl_get_resources(t->x->f, &r);
	assert_false(r.mig_active);
	assert_int_equal(r.dies[slot], dst);
	assert_int_equal(t->saved.dies[slot], dst);
	mt_expect_erased(t, src);
	assert_true(mt_die_pages(t, dst) > 0);
	/* No read reaches the old die any more. */
	reads = mt_die_reads(t, src);
	fx_verify_all(t->x);
	assert_int_equal(mt_die_reads(t, src), reads);
	fx_check_invariants(t->x, false);
}

/* An idle instance moves a die and every LBA reads back. */
void test_mig_idle(void **state)
{
	struct ftl_migrate_progress p;
	struct mt *t;
	uint64_t t0, src_reads;

	(void)state;
	t = mt_new(20, 30, 0, 20, false, NULL);
	mt_fill(t);
	/* Nothing flushed: open pages, open superblocks of every host stream. */
	assert_true(fx_stream(t->x, FTL_STREAM_SEQ).sb >= 0);
	src_reads = mt_die_reads(t, 2);
	t0 = t->x->vd.clock.virt_ns;
	mt_start(t, 1, 3, 1000);
	p = mt_prog(t);
	assert_int_equal(p.state, FTL_MIG_RUNNING);
	assert_int_equal(p.slot, 1);
	assert_int_equal(p.src, 2);
	assert_int_equal(p.dst, 3);
	assert_int_equal(p.started_ns, t0);
	assert_true(p.sbs_total > 2); /* the checkpoint superblocks and data */
	assert_true(p.bytes_total > 0);
	mt_run_done(t, NULL);
	p = mt_prog(t);
	/* Every programmed page of the old die was read once for its copy. */
	assert_int_equal(mt_die_reads(t, 2) - src_reads, p.bytes_copied / t->x->nc.geo.page_size);
	fprintf(stderr, "idle: %u superblocks, %.1f MiB in %.1f ms of virtual time (busy %.1f ms)\n",
		p.sbs_copied, (double)p.bytes_copied / (1 << 20),
		(double)(p.finished_ns - p.started_ns) / 1e6, (double)p.busy_ns / 1e6);
	assert_int_equal(p.finished_ns, t->x->vd.clock.virt_ns);
	expect_moved(t, 1, 2, 3);
	/* Writes go on, on the new die. */
	fx_random_writes(t->x, t->x->cap, 8, 2000);
	fx_flush(t->x);
	fx_verify_all(t->x);
	mt_expect_erased(t, 2);
	fx_free(t->x);
}

/* An instance on part of the blocks: only its range is checked, copied, erased. */
void test_mig_idle_range(void **state)
{
	const struct nand_geometry *g;
	struct fx *x;
	struct mt *t;
	struct nand_addr a;
	uint8_t *page, *oob;

	(void)state;
	t = mt_new(32, 30, 8, 18, false, NULL);
	x = t->x;
	g = &x->nc.geo;
	/* Someone else's data on the new die, outside the range: not in the way. */
	page = fx_tmp_alloc(g->page_size);
	oob = fx_tmp_alloc(g->oob_size);
	a = (struct nand_addr){ .ch = 1, .die = 1, .plane = 1, .block = 3, .page = 0 };
	assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a), page, oob), 0);
	a.block = 26;
	assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a), page, oob), 0);
	mt_fill(t);
	fx_flush(x);
	mt_start(t, 2, 3, 1000);
	mt_run_done(t, NULL);
	expect_moved(t, 2, 4, 3);
	/* The blocks outside the range are as they were, on both dies. */
	a = (struct nand_addr){ .ch = 1, .die = 1, .plane = 1, .block = 3 };
	assert_int_equal(x->store->blocks[nand_block_index(g, &a)].write_ptr, 1);
	a.block = 26;
	assert_int_equal(x->store->blocks[nand_block_index(g, &a)].write_ptr, 1);
	for (uint32_t b = 0; b < g->blocks_per_plane; b++) {
		if (b >= 8 && b < 26)
			continue;
		for (uint32_t p = 0; p < g->planes_per_die; p++) {
			a = (struct nand_addr){ .ch = 2, .die = 0, .plane = p, .block = b };
			assert_int_equal(x->store->blocks[nand_block_index(g, &a)].write_ptr, 0);
			assert_int_equal(x->store->blocks[nand_block_index(g, &a)].erase_count, 0);
		}
	}
	fx_tmp_free(page);
	fx_tmp_free(oob);
	fx_free(x);
}

/* Random writes, trims and reads all along; reads checked as they complete. */
void test_mig_concurrent(void **state)
{
	struct ftl_migrate_progress p;
	struct mt_load ld;
	struct mt *t;
	struct fx *x;
	struct ftl_stats st;

	(void)state;
	t = mt_new(20, 30, 0, 20, false, NULL);
	x = t->x;
	fx_seq_fill(x, 0, x->cap * 3 / 4);
	mt_load_init(&ld, t, x->cap);
	ld.write_pct = 45;
	ld.trim_pct = 5;
	mt_start(t, 0, 1, 700);
	mt_run_done(t, &ld);
	p = mt_prog(t);
	mt_load_drain(&ld);
	st = fx_stats(x);
	fprintf(stderr,
		"concurrent: %u superblocks in %.1f ms; %lu writes, %lu trims, %lu reads (%lu units "
		"checked); GC runs %lu\n",
		p.sbs_copied, (double)(p.finished_ns - p.started_ns) / 1e6,
		(unsigned long)ld.writes, (unsigned long)ld.trims, (unsigned long)ld.reads,
		(unsigned long)ld.units_read, (unsigned long)st.gc_runs);
	assert_true(ld.reads > 100 && ld.writes > 100 && ld.trims > 10);
	/* The host overwrote enough for GC to collect while the die moved. */
	assert_true(st.gc_runs > 0);
	expect_moved(t, 0, 0, 1);
	fx_free(x);
}

/* A full device overwritten all along: GC at its urgent level beside the copies. */
void test_mig_full_device(void **state)
{
	struct ftl_migrate_progress p;
	struct mt_load ld;
	struct mt *t;
	struct fx *x;
	struct ftl_stats st;

	(void)state;
	t = mt_new(16, 24, 0, 16, false, NULL);
	x = t->x;
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 8, x->cap / 2);
	mt_load_init(&ld, t, x->cap);
	ld.write_pct = 85;
	ld.trim_pct = 0;
	mt_start(t, 2, 7, 150); /* long enough for GC to run often beside it */
	mt_run_done(t, &ld);
	p = mt_prog(t);
	mt_load_drain(&ld);
	st = fx_stats(x);
	fprintf(stderr, "full device: %u superblocks in %.1f ms; %lu writes; GC runs %lu, paced %lu\n",
		p.sbs_copied, (double)(p.finished_ns - p.started_ns) / 1e6,
		(unsigned long)ld.writes, (unsigned long)st.gc_runs, (unsigned long)st.gc_paced);
	assert_true(st.gc_runs > 20);
	expect_moved(t, 2, 4, 7);
	fx_check_invariants(x, false);
	fx_free(x);
}

/* Clean stop in the middle; the migration resumes from the persisted resources. */
void test_mig_clean_restart(void **state)
{
	struct mt *t;

	(void)state;
	t = mt_new(20, 30, 0, 20, true, NULL);
	mt_fill(t);
	mt_start(t, 3, 7, 1000);
	while (mt_prog(t).sbs_copied < 3)
		assert_true(mt_step(t));
	mt_clean_restart(t);
	assert_int_equal(mt_prog(t).state, FTL_MIG_RUNNING);
	assert_int_equal(mt_prog(t).dst, 7);
	assert_int_equal(mt_prog(t).src, 6);
	fx_verify_all(t->x);
	mt_run_done(t, NULL);
	expect_moved(t, 3, 6, 7);
	/* And once more, after the end. */
	mt_clean_restart(t);
	assert_int_equal(mt_prog(t).state, FTL_MIG_NONE);
	fx_verify_all(t->x);
	mt_expect_erased(t, 6);
	fx_free(t->x);
}

/* One plane, and four (whose last rows are partly written: planes end apart). */
void test_mig_planes(void **state)
{
	static const uint32_t planes[] = { 1, 4 };
	struct mt_load ld;

	(void)state;
	for (size_t i = 0; i < sizeof(planes) / sizeof(planes[0]); i++) {
		struct mt *t = mt_new_planes(planes[i], 16, 24, 0, 16, true, NULL);
		struct fx *x = t->x;

		fx_seq_fill(x, 0, x->cap / 2);
		fx_random_writes(x, x->cap, 5, x->cap / 4);
		mt_load_init(&ld, t, x->cap);
		mt_start(t, 3, 5, 1000);
		mt_run_done(t, &ld);
		mt_load_drain(&ld);
		expect_moved(t, 3, 6, 5);
		mt_clean_restart(t);
		fx_verify_all(x);
		fx_tmp_free(ld.buf);
		fx_free(x);
		fx_tmp_free(t);
	}
}

/* Bad destinations, a second start, control calls out of place, bad mig_* fields. */
void test_mig_refused(void **state)
{
	struct ftl_migrate_cfg c = { .share = 1000 };
	struct ftl_resources r;
	const struct nand_geometry *g;
	struct mt *t;
	struct fx *x;
	struct ftl *f;
	struct nand_addr a;
	uint8_t *page, *oob;

	(void)state;
	t = mt_new(20, 30, 2, 16, false, NULL);
	x = t->x;
	f = x->f;
	g = &x->nc.geo;
	fx_seq_fill(x, 0, 2000);
	/* A die of the instance, off the device, a slot too far, a bad share. */
	assert_int_equal(ftl_migrate_start(f, 0, 2, &c), -EINVAL);
	assert_int_equal(ftl_migrate_start(f, 0, 0, &c), -EINVAL);
	assert_int_equal(ftl_migrate_start(f, 0, 8, &c), -EINVAL);
	assert_int_equal(ftl_migrate_start(f, 4, 1, &c), -EINVAL);
	c.share = 0;
	assert_int_equal(ftl_migrate_start(f, 0, 1, &c), -EINVAL);
	c.share = 1001;
	assert_int_equal(ftl_migrate_start(f, 0, 1, &c), -EINVAL);
	assert_int_equal(ftl_migrate_start(f, 0, 1, NULL), -EINVAL);
	c.share = 1000;
	/* Not erased in the range: someone's data. */
	page = fx_tmp_alloc(g->page_size);
	oob = fx_tmp_alloc(g->oob_size);
	a = (struct nand_addr){ .ch = 0, .die = 1, .plane = 1, .block = 17, .page = 0 };
	assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a), page, oob), 0);
	assert_int_equal(ftl_migrate_start(f, 0, 1, &c), -EBUSY);
	/* Outside the range [2, 18) it is not in the way. */
	a.block = 18;
	assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a), page, oob), 0);
	a.ch = 1;
	a.block = 1;
	assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a), page, oob), 0);
	assert_int_equal(mt_prog(t).state, FTL_MIG_NONE);
	/* Nothing to control yet. */
	assert_int_equal(ftl_migrate_pause(f), -EINVAL);
	assert_int_equal(ftl_migrate_resume(f), -EINVAL);
	assert_int_equal(ftl_migrate_cancel(f), -EINVAL);
	assert_int_equal(ftl_migrate_set_share(f, 500), -EINVAL);
	mt_start(t, 1, 3, 1000);
	/* One at a time. */
	assert_int_equal(ftl_migrate_start(f, 0, 5, &c), -EBUSY);
	assert_int_equal(ftl_migrate_resume(f), -EINVAL);
	assert_int_equal(ftl_migrate_set_share(f, 0), -EINVAL);
	assert_int_equal(ftl_migrate_set_share(f, 1000), 0);
	/* ftl_create() checks what it is given back. */
	fx_flush(x);
	ftl_get_resources(f, &r);
	fx_crash(x);
	r.mig_src = 0; /* a die of the instance */
	assert_int_equal(mt_create(t, &r), -EINVAL);
	r.mig_src = 8; /* off the device */
	assert_int_equal(mt_create(t, &r), -EINVAL);
	r.mig_src = 2;
	r.mig_slot = 4;
	assert_int_equal(mt_create(t, &r), -EINVAL);
	r.mig_slot = 1;
	r.mig_share = 1001;
	assert_int_equal(mt_create(t, &r), -EINVAL);
	r.mig_share = 0; /* 1000 */
	assert_int_equal(mt_create(t, &r), 0);
	assert_int_equal(mt_prog(t).share, 1000);
	mt_run_done(t, NULL);
	expect_moved(t, 1, 2, 3);
	/* Done: a new one may start; the old die is erased, fit to come back. */
	assert_int_equal(ftl_migrate_start(x->f, 1, 2, &c), 0);
	mt_persist(t);
	t->migrated_calls = 0;
	mt_run_done(t, NULL);
	expect_moved(t, 1, 3, 2);
	fx_tmp_free(page);
	fx_tmp_free(oob);
	fx_free(x);
}

/*
 * A worn die moving onto a fresh one: static wear leveling stays out of
 * the way while the die moves (the superblocks not moved yet still count
 * the old die's erases; levelling them against the ones just moved would
 * only rewrite data onto the same fresh die), and works again after.
 */
void test_mig_no_wl_while_moving(void **state)
{
	struct ftl_config cfg;
	struct mt_load ld;
	struct ftl_stats before, after;
	struct mt *t;
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.wl_threshold = 3;
	t = mt_new(20, 30, 0, 20, false, &cfg);
	x = t->x;
	/* Wear the instance's dies: many overwrites, so its superblocks count erases. */
	fx_seq_fill(x, 0, x->cap * 3 / 4);
	fx_random_writes(x, x->cap * 3 / 4, 8, (uint64_t)x->cap * 8);
	mt_load_init(&ld, t, x->cap * 3 / 4);
	ld.write_pct = 60;
	before = fx_stats(x);
	assert_true(before.max_erase > 2 * cfg.wl_threshold);
	mt_start(t, 0, 1, 1000);
	mt_run_done(t, &ld);
	mt_load_drain(&ld);
	after = fx_stats(x);
	if (after.wl_runs != before.wl_runs)
		fail_msg("static WL ran %lu times while die 0 moved onto fresh die 1",
			 (unsigned long)(after.wl_runs - before.wl_runs));
	expect_moved(t, 0, 0, 1);
	fx_free(x);
}

/*
 * A host that writes all the time: the copy goes on beside its writes
 * (in their class, at the migration's share), long before free space
 * runs low enough for GC to pace the host; it used to wait behind them.
 */
void test_mig_under_host_writes(void **state)
{
	struct ftl_migrate_progress p;
	struct mt_load ld;
	struct mt *t;
	struct fx *x;

	(void)state;
	t = mt_new(20, 30, 0, 20, false, NULL);
	x = t->x;
	fx_seq_fill(x, 0, x->cap * 3 / 4);
	mt_load_init(&ld, t, x->cap);
	ld.write_pct = 100;
	ld.trim_pct = 0;
	mt_start(t, 0, 1, 1000);
	mt_run_for(t, &ld, 100 * 1000 * 1000ull);
	p = mt_prog(t);
	fprintf(stderr, "under writes: %lu of %lu bytes copied in 100 ms, %lu writes, %u free "
		"superblocks\n", (unsigned long)p.bytes_copied, (unsigned long)p.bytes_total,
		(unsigned long)ld.writes, x->f->free_sbs);
	/* The host wrote all along, with room to spare: GC did not hold it. */
	assert_true(ld.writes > 100);
	assert_true(x->f->free_sbs > 2);
	assert_false(ftl_gc_busy(x->f));
	/* A superblock's copy takes about 60 ms here: at least 2 of its 60 pages. */
	assert_true(p.bytes_copied >= 2ull * x->nc.geo.page_size);
	mt_run_done(t, &ld);
	mt_load_drain(&ld);
	expect_moved(t, 0, 0, 1);
	fx_check_invariants(x, false);
	fx_free(x);
}
