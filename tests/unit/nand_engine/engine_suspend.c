/* SPDX-License-Identifier: BSD-3-Clause */
/* Suspension of erases and programs by reads: when, how often, at what cost. */
#include "engine_tests.h"

/* What an op of these tests is: all on die 0 of channel 0, page 0 of @block. */
struct opdesc {
	enum nand_op_kind kind;
	enum nand_prio prio;
	uint32_t block;
};

#define ERASE9 ((struct opdesc){ NAND_OP_ERASE, NAND_PRIO_ERASE, 9 })
#define HREAD(b) ((struct opdesc){ NAND_OP_READ, NAND_PRIO_HOST_READ, (b) })
#define HPROG(b) ((struct opdesc){ NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, (b) })
#define GCPROG(b) ((struct opdesc){ NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, (b) })

static void op_init(struct fx *f, struct nand_op *op, struct opdesc d)
{
	fx_op_init(f, op, d.kind, d.prio, 0, 0, d.block, 0);
}

/* The clock run to @at, then @op submitted. */
static void submit_at(struct fx *f, struct nand_op *op, uint64_t at)
{
	fx_run_to(f, at);
	assert_int_equal(fx_submit(f, op, at), 0);
}

/* The device made (f->cfg), @a submitted at 0 and @b at @t_b; nothing run after. */
static void start_two(struct fx *f, struct nand_op *a, struct opdesc da, struct nand_op *b,
		      struct opdesc db, uint64_t t_b)
{
	fx_create(f, false);
	op_init(f, a, da);
	op_init(f, b, db);
	assert_int_equal(fx_submit(f, a, 0), 0);
	submit_at(f, b, t_b);
}

static void erase_then_read(struct fx *f, struct nand_op *e, struct nand_op *r,
			    uint64_t t_read)
{
	start_two(f, e, ERASE9, r, HREAD(3), t_read);
	fx_run_all(f);
}

/* 8. Policy never: the read waits for the whole tBERS. */
void test_suspend_never(void **state)
{
	struct fx f;
	struct nand_op e, r;
	const struct nand_stats *st;

	(void)state;
	fx_init(&f);
	f.cfg.policy = nand_suspend_never;
	erase_then_read(&f, &e, &r, 1000000);
	fx_expect_done(&e, 0, TBERS);
	fx_expect_done(&r, 0, TBERS + RD0);
	assert_int_equal(r.start_ns, TBERS);
	st = nand_dev_stats(f.dev);
	assert_int_equal(st->suspend.suspends[NAND_OP_ERASE], 0);
	assert_int_equal(st->suspend.declined, 1);
	assert_int_equal(e.suspends, 0);
	assert_ptr_equal(f.order[0], &e);
	fx_destroy(&f);
}

static void check_one_erase_suspend(struct fx *f, struct nand_op *e,
				    struct nand_op *r, uint64_t t_sus)
{
	const struct nand_stats *st = nand_dev_stats(f->dev);
	const struct nand_die_stats *ds = nand_die_stats(f->dev, 0);

	fx_expect_done(r, 0, t_sus + TSUS + RD0);
	fx_expect_done(e, 0, TBERS + TSUS + RD0 + 20000);
	assert_int_equal(r->start_ns, t_sus + TSUS);
	assert_int_equal(e->suspends, 1);
	assert_int_equal(r->suspends, 0);
	assert_ptr_equal(f->order[0], r);
	assert_int_equal(st->suspend.suspends[NAND_OP_ERASE], 1);
	assert_int_equal(st->suspend.resumes[NAND_OP_ERASE], 1);
	assert_int_equal(st->suspend.suspends[NAND_OP_PROGRAM], 0);
	assert_int_equal(st->suspend.reads_overtaken, 1);
	assert_int_equal(st->suspend.suspended_ns, TSUS + RD0 + 20000);
	assert_int_equal(st->suspend.declined, 0);
	assert_int_equal(ds->suspend_overhead_ns, 40000);
	assert_int_equal(ds->busy_ns[NAND_OP_ERASE], TBERS);
	assert_int_equal(ds->busy_ns[NAND_OP_READ], TR0);
	assert_int_equal(ds->ops[NAND_OP_ERASE], 1);
	assert_int_equal(ds->ops[NAND_OP_READ], 1);
}

/* 9. Policy always / default: the read overtakes the erase. */
void test_suspend_erase(void **state)
{
	struct fx f;
	struct nand_op e, r;

	static const struct {
		bool always; /* else the default policy */
		uint64_t at;
	} c[] = { { true, 1000000 }, { false, 4321000 } };

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fx_init(&f);
		if (c[i].always)
			f.cfg.policy = nand_suspend_always;
		erase_then_read(&f, &e, &r, c[i].at);
		check_one_erase_suspend(&f, &e, &r, c[i].at);
		fx_destroy(&f);
	}
}

/* 10. A program is suspended in its array phase only. */
void test_suspend_program(void **state)
{
	static const struct {
		uint64_t at, read_done;
	} c[] = {
		/* Read at 500 us: tPROG runs 8692..1208692. */
		{ 500000, 500000 + TSUS + RD0 },
		/*
		 * Read queued during the data transfer: the array phase starts at
		 * 8692 and must run min_progress (100 us) before it can be suspended.
		 */
		{ 1000, XFER + 100000 + TSUS + RD0 },
	};
	struct fx f;
	struct nand_op w, r;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fx_init(&f);
		start_two(&f, &w, HPROG(0), &r, HREAD(1), c[i].at);
		fx_run_all(&f);
		fx_expect_done(&r, 0, c[i].read_done);
		fx_expect_done(&w, 0, XFER + TPROG0 + TSUS + RD0 + 20000);
		assert_int_equal(w.suspends, 1);
		assert_int_equal(nand_dev_stats(f.dev)->suspend.suspends[NAND_OP_PROGRAM], 1);
		assert_int_equal(nand_die_stats(f.dev, 0)->busy_ns[NAND_OP_PROGRAM], TPROG0);
		fx_destroy(&f);
	}
}

/* 11. min_progress_ns: no suspension before the op has run that long. */
void test_suspend_min_progress(void **state)
{
	/* The default (100 us), then none: a read at 10 us suspends when it may. */
	static const struct {
		uint64_t min_progress, t_sus;
	} c[] = { { 100000, 100000 }, { 0, 10000 } };
	const uint64_t resumed = 500000 + TSUS + RD0 + 20000;
	struct fx f;
	struct nand_op e, r, r2;

	(void)state;
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		fx_init(&f);
		if (c[i].min_progress == 100000)
			assert_int_equal(f.cfg.min_progress_ns, 100000);
		f.cfg.min_progress_ns = c[i].min_progress;
		erase_then_read(&f, &e, &r, 10000);
		check_one_erase_suspend(&f, &e, &r, c[i].t_sus);
		fx_destroy(&f);
	}

	/* Counted again from the resume: a 2nd read 30 us after it waits. */
	fx_init(&f);
	f.cfg.min_progress_ns = 500000;
	start_two(&f, &e, ERASE9, &r, HREAD(3), 10000);
	op_init(&f, &r2, HREAD(4));
	fx_run_to(&f, resumed + 30000);
	assert_int_equal(f.n, 1);
	submit_at(&f, &r2, resumed + 30000);
	fx_run_all(&f);
	fx_expect_done(&r, 0, 500000 + TSUS + RD0);
	fx_expect_done(&r2, 0, resumed + 500000 + TSUS + RD0);
	fx_expect_done(&e, 0, TBERS + 2 * (TSUS + RD0 + 20000));
	assert_int_equal(e.suspends, 2);
	fx_destroy(&f);
}

/* 12. A read landing during tRESUME waits for the resume, then min_progress. */
void test_suspend_during_resume(void **state)
{
	struct fx f;
	struct nand_op e, r1, r2;
	const uint64_t resumed = 1000000 + TSUS + RD0 + 20000; /* 1104692 */

	(void)state;
	fx_init(&f);
	start_two(&f, &e, ERASE9, &r1, HREAD(3), 1000000);
	op_init(&f, &r2, HREAD(4));
	fx_run_to(&f, resumed - 10000);
	assert_int_equal(f.dev->dies[0].phase, DIE_RESUMING);
	submit_at(&f, &r2, resumed - 10000);
	fx_run_all(&f);
	fx_expect_done(&r1, 0, 1000000 + TSUS + RD0);
	fx_expect_done(&r2, 0, resumed + 100000 + TSUS + RD0);
	fx_expect_done(&e, 0, TBERS + 2 * (TSUS + RD0 + 20000));
	assert_int_equal(e.suspends, 2);
	fx_destroy(&f);
}

/* 13. max_suspends_per_op: the third read waits for the end. */
void test_suspend_cap(void **state)
{
	struct fx f;
	struct nand_op e, r[3];
	const uint64_t at[3] = { 1000000, 3000000, 5000000 };
	const uint64_t end = TBERS + 2 * (TSUS + RD0 + 20000);

	(void)state;
	fx_init(&f);
	f.cfg.policy = nand_suspend_always;
	f.cfg.max_suspends_per_op = 2;
	fx_create(&f, false);
	op_init(&f, &e, ERASE9);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	for (int i = 0; i < 3; i++) {
		op_init(&f, &r[i], HREAD(1));
		submit_at(&f, &r[i], at[i]);
	}
	fx_run_all(&f);
	fx_expect_done(&r[0], 0, at[0] + TSUS + RD0);
	fx_expect_done(&r[1], 0, at[1] + TSUS + RD0);
	fx_expect_done(&e, 0, end);
	fx_expect_done(&r[2], 0, end + RD0);
	assert_int_equal(e.suspends, 2);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.suspends[NAND_OP_ERASE], 2);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.capped, 1);
	fx_destroy(&f);
}

/* 14. No suspension that would end after the op itself. */
void test_suspend_too_late(void **state)
{
	struct fx f;
	struct nand_op e, r;

	(void)state;
	fx_init(&f);
	f.cfg.policy = nand_suspend_always;
	erase_then_read(&f, &e, &r, TBERS - 10000);
	fx_expect_done(&e, 0, TBERS);
	fx_expect_done(&r, 0, TBERS + RD0);
	assert_int_equal(e.suspends, 0);
	fx_destroy(&f);
}

/* 15. The default policy declines past 90% of the array time. */
void test_suspend_default_90(void **state)
{
	struct fx f;
	struct nand_op e, r;

	(void)state;
	fx_init(&f);
	erase_then_read(&f, &e, &r, 9010000);
	fx_expect_done(&e, 0, TBERS);
	fx_expect_done(&r, 0, TBERS + RD0);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.declined, 1);
	fx_destroy(&f);

	fx_init(&f);
	erase_then_read(&f, &e, &r, 8990000);
	check_one_erase_suspend(&f, &e, &r, 8990000);
	fx_destroy(&f);
}

struct qcap {
	uint32_t calls;
	struct nand_suspend_query q;
};

static bool qcap_cb(void *ctx, const struct nand_suspend_query *q)
{
	struct qcap *c = ctx;

	c->calls++;
	c->q = *q;
	return false;
}

/* 16. The policy is told what runs, how far along, and what waits. */
void test_suspend_query(void **state)
{
	struct fx f;
	struct nand_op e, w, r;
	struct qcap cap = { 0 };

	(void)state;
	fx_init(&f);
	f.cfg.policy = (struct nand_suspend_policy){ "cap", qcap_cb, &cap };
	fx_create(&f, false);
	op_init(&f, &e, ERASE9);
	op_init(&f, &w, HPROG(1));
	op_init(&f, &r, HREAD(3));
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	submit_at(&f, &w, 1000000);
	assert_int_equal(cap.calls, 0); /* a write does not ask */
	submit_at(&f, &r, 2000000);
	assert_int_equal(cap.calls, 1);
	assert_int_equal(cap.q.running, NAND_OP_ERASE);
	assert_int_equal(cap.q.elapsed_ns, 2000000);
	assert_int_equal(cap.q.total_ns, TBERS);
	assert_int_equal(cap.q.suspends, 0);
	assert_int_equal(cap.q.waiting, NAND_PRIO_HOST_READ);
	assert_int_equal(cap.q.now_ns, 2000000);
	/* One read waits; the queued program is not a read. */
	assert_int_equal(cap.q.reads_waiting, 1);
	fx_run_all(&f);
	fx_destroy(&f);
}

/* 17. One suspension serves every queued host read, GC reads do not suspend. */
void test_suspend_batch(void **state)
{
	struct fx f;
	struct nand_op e, r[3], late, gc;
	uint64_t s = 1000000 + TSUS;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &e, ERASE9);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	fx_run_to(&f, 1000000);
	for (int i = 0; i < 3; i++) {
		op_init(&f, &r[i], HREAD(1));
		assert_int_equal(fx_submit(&f, &r[i], 1000000), 0);
	}
	/* Arrives while the suspended die serves the first read. */
	op_init(&f, &late, HREAD(2));
	submit_at(&f, &late, s + 1000);
	fx_run_all(&f);
	for (int i = 0; i < 3; i++)
		fx_expect_done(&r[i], 0, s + (uint64_t)(i + 1) * RD0);
	fx_expect_done(&late, 0, s + 4 * RD0);
	fx_expect_done(&e, 0, TBERS + TSUS + 4 * RD0 + 20000);
	assert_int_equal(e.suspends, 1);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.reads_overtaken, 4);
	fx_destroy(&f);

	fx_init(&f);
	f.cfg.policy = nand_suspend_always;
	fx_create(&f, false);
	op_init(&f, &e, ERASE9);
	fx_op_init(&f, &gc, NAND_OP_READ, NAND_PRIO_GC_READ, 0, 0, 1, 0);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	submit_at(&f, &gc, 1000000);
	fx_run_all(&f);
	fx_expect_done(&e, 0, TBERS);
	fx_expect_done(&gc, 0, TBERS + RD0);
	fx_destroy(&f);
}

/* 18. Erase suspension is recorded as wear on the block. */
void test_suspend_wear(void **state)
{
	struct fx f;
	struct nand_op e, r;
	struct nand_addr a = { 1, 0, 1, 3, 0 };

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_data_op(&f, &e, NAND_OP_ERASE, 3, 0, NULL, NULL);
	fx_data_op(&f, &r, NAND_OP_READ, 0, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	submit_at(&f, &r, 2000000);
	fx_run_all(&f);
	assert_int_equal(e.status, 0);
	assert_true(r.erased);
	/* 4 KiB pages on this geometry: read die time 56000 + 2548. */
	fx_expect_done(&r, 0, 2000000 + TSUS + 56000 + 2548);
	fx_expect_done(&e, 0, TBERS + TSUS + 56000 + 2548 + 20000);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &a))->erase_suspends, 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &a))->erase_count, 1);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.erase_suspend_wear, 1);
	fx_destroy(&f);
}

/* 19. Queued host reads go first, then GC reads, host writes, GC writes, erases. */

/*
 * 30. The power-loss flush (nand_set_plp_flush()): a program waiting behind a
 * running erase suspends it at once, whatever the policy and the caps say;
 * every program queued there runs in that one suspension, then the erase
 * resumes. Without it the program waits for the whole tBERS. A running
 * program is not suspended for a program, and a power cut ends the flush.
 */
void test_suspend_plp_flush(void **state)
{
	struct fx f;
	struct nand_op e, w, g, w2;
	const struct nand_stats *st;
	const uint64_t at = 1000000, prog = XFER + TPROG0;

	(void)state;
	/* Off: the program starts when the erase ends. */
	fx_init(&f);
	f.cfg.policy = nand_suspend_never;
	start_two(&f, &e, ERASE9, &w, HPROG(3), at);
	fx_run_all(&f);
	fx_expect_done(&e, 0, TBERS);
	fx_expect_done(&w, 0, TBERS + prog);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.plp_suspends, 0);
	fx_destroy(&f);

	/*
	 * On, policy never and no suspension allowed per op: the host's and
	 * GC's programs both run in the one suspension, host first.
	 */
	fx_init(&f);
	f.cfg.policy = nand_suspend_never;
	f.cfg.max_suspends_per_op = 0;
	fx_create(&f, false);
	op_init(&f, &e, ERASE9);
	op_init(&f, &g, GCPROG(4));
	op_init(&f, &w, HPROG(3));
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	fx_run_to(&f, at);
	nand_set_plp_flush(f.dev, true, at);
	assert_int_equal(fx_submit(&f, &g, at), 0);
	assert_int_equal(fx_submit(&f, &w, at), 0);
	fx_run_all(&f);
	fx_expect_done(&w, 0, at + TSUS + prog);
	fx_expect_done(&g, 0, at + TSUS + 2 * prog);
	fx_expect_done(&e, 0, TBERS + TSUS + 2 * prog + 20000);
	assert_ptr_equal(f.order[0], &w);
	assert_ptr_equal(f.order[1], &g);
	assert_int_equal(e.suspends, 1);
	st = nand_dev_stats(f.dev);
	assert_int_equal(st->suspend.plp_suspends, 1);
	assert_int_equal(st->suspend.plp_programs, 2);
	assert_int_equal(st->suspend.suspends[NAND_OP_ERASE], 1);
	assert_int_equal(st->suspend.resumes[NAND_OP_ERASE], 1);
	assert_int_equal(nand_die_stats(f.dev, 0)->busy_ns[NAND_OP_ERASE], TBERS);

	/* A power cut ends it: the next erase makes a program wait again. */
	assert_int_equal(nand_power_cut(f.dev, false, NULL), 0);
	op_init(&f, &e, ERASE9);
	op_init(&f, &w, HPROG(5));
	assert_int_equal(fx_submit(&f, &e, 20000000), 0);
	submit_at(&f, &w, 20000000 + at);
	fx_run_all(&f);
	fx_expect_done(&w, 0, 20000000 + TBERS + prog);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.plp_suspends, 1);
	fx_destroy(&f);

	/* Turned on with a program already waiting: the erase is suspended then. */
	fx_init(&f);
	start_two(&f, &e, ERASE9, &w, HPROG(3), at);
	fx_run_to(&f, 2 * at);
	assert_int_equal(f.n, 0);
	nand_set_plp_flush(f.dev, true, 2 * at);
	fx_run_all(&f);
	fx_expect_done(&w, 0, 2 * at + TSUS + prog);
	fx_expect_done(&e, 0, TBERS + TSUS + prog + 20000);
	fx_destroy(&f);

	/* A running program is not suspended for another (the page register is taken). */
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &w, GCPROG(3));
	op_init(&f, &w2, HPROG(4));
	assert_int_equal(fx_submit(&f, &w, 0), 0);
	fx_run_to(&f, 100000);
	nand_set_plp_flush(f.dev, true, 100000);
	assert_int_equal(fx_submit(&f, &w2, 100000), 0);
	fx_run_all(&f);
	fx_expect_done(&w, 0, prog);
	fx_expect_done(&w2, 0, 2 * prog);
	assert_int_equal(w.suspends, 0);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.plp_suspends, 0);
	fx_destroy(&f);
}
