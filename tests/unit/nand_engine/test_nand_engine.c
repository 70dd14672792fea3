/*
 * Unit tests for the NAND timing engine (engine.c): exact completion times
 * in virtual time for scripted sequences (reads, programs, erases, shared
 * channels, multi-plane ops and groups, suspension and its caps,
 * priorities, null timing), plus the telemetry those sequences must leave
 * behind. Expected times are literal numbers worked out from the TLC
 * defaults (see nand_fixture.h).
 */
#include "nand_fixture.h"

/* ---- timing ---- */

/* 1. A read alone: tR(type) + xfer; starts only from advance(). */
static void test_read_alone(void **state)
{
	static const uint64_t want[] = { 1000 + 56000 + XFER, 1000 + 65000 + XFER,
					 1000 + 74000 + XFER };
	struct fx f;
	struct nand_op op;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	for (uint32_t p = 0; p < 3; p++) {
		fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 3, 2, 7, p);
		assert_int_equal(fx_submit(&f, &op, 1000), 0);
		assert_int_equal(f.n, 0);
		assert_int_equal(nand_inflight(f.dev), 1);
		assert_int_equal(nand_next_event(f.dev), 1000);
		assert_int_equal(nand_advance(f.dev, 999), 0);
		assert_int_equal(nand_advance(f.dev, 1000), 0);
		assert_int_equal(op.start_ns, 1000);
		assert_int_equal(nand_next_event(f.dev), 1000 + f.cfg.timing.t_read_ns[p]);
		fx_run_all(&f);
		assert_int_equal(f.n, 1);
		fx_expect_done(&op, 0, want[p]);
		assert_int_equal(op.submit_ns, 1000);
		assert_int_equal(op.suspends, 0);
		fx_destroy(&f);
		fx_init(&f);
		fx_create(&f, false);
	}
	/* 4 KiB transfer. */
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.xfer_bytes = 4096;
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&op, 0, 56000 + 2548);
	/* Odd sizes round the transfer up: 1001 B at 2000 MB/s = 500.5 ns. */
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.xfer_bytes = 1001;
	assert_int_equal(fx_submit(&f, &op, 100000), 0);
	fx_run_all(&f);
	fx_expect_done(&op, 0, 100000 + 56000 + 500 + 501);
	fx_destroy(&f);
	/* 16384 B at 333 MB/s = 49201.2 ns. */
	fx_init(&f);
	f.cfg.timing.bus_mbps = 333;
	fx_create(&f, false);
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&op, 0, 56000 + 500 + 49202);
	fx_destroy(&f);
}

/* 2. Two reads on one die: the second's tR starts after the first's xfer. */
static void test_read_same_die(void **state)
{
	struct fx f;
	struct nand_op a, b;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	fx_op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 1);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&a, 0, RD0);
	assert_int_equal(b.start_ns, RD0);
	fx_expect_done(&b, 0, RD0 + 65000 + XFER);
	assert_ptr_equal(f.order[0], &a);
	assert_ptr_equal(f.order[1], &b);
	fx_destroy(&f);
}

/* 3. Two dies on a channel: tR overlaps, transfers take turns. */
static void test_read_shared_channel(void **state)
{
	struct fx f;
	struct nand_op a, b, c;
	const struct nand_channel_stats *cs;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 5, 0, 0, 0);
	fx_op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 5, 3, 0, 0);
	fx_op_init(&f, &c, NAND_OP_READ, NAND_PRIO_HOST_READ, 5, 1, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&a, 0, RD0);
	fx_expect_done(&c, 0, RD0 + XFER);
	fx_expect_done(&b, 0, RD0 + 2 * XFER);
	cs = nand_channel_stats(f.dev, 5);
	assert_int_equal(cs->busy_ns, 3 * XFER);
	assert_int_equal(cs->transfers, 3);
	assert_int_equal(cs->max_waiting, 2);
	assert_int_equal(cs->waiting, 0);
	assert_int_equal(nand_channel_stats(f.dev, 4)->transfers, 0);
	assert_null(nand_channel_stats(f.dev, 8));
	fx_destroy(&f);
}

/* 4. Two channels run fully in parallel. */
static void test_read_two_channels(void **state)
{
	struct fx f;
	struct nand_op a, b;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	fx_op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 7, 0, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&a, 0, RD0);
	fx_expect_done(&b, 0, RD0);
	fx_destroy(&f);
}

/* 5. Program: transfer then tPROG(type); transfers serialize per channel. */
static void test_program_timing(void **state)
{
	static const uint64_t tprog[] = { 1200000, 2000000, 3000000 };
	struct fx f;
	struct nand_op a, b, c;

	(void)state;
	for (uint32_t p = 0; p < 3; p++) {
		fx_init(&f);
		fx_create(&f, false);
		fx_op_init(&f, &a, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 1, 1, p);
		assert_int_equal(fx_submit(&f, &a, 500), 0);
		fx_run_all(&f);
		fx_expect_done(&a, 0, 500 + XFER + tprog[p]);
		assert_int_equal(a.start_ns, 500);
		fx_destroy(&f);
	}
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &a, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 2, 0, 0, 0);
	fx_op_init(&f, &b, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 2, 1, 0, 0);
	fx_op_init(&f, &c, NAND_OP_ERASE, NAND_PRIO_ERASE, 2, 2, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&a, 0, XFER + TPROG0);
	fx_expect_done(&b, 0, 2 * XFER + TPROG0);
	fx_expect_done(&c, 0, TBERS);
	fx_destroy(&f);
}

/* 6. Multi-plane: one array time, nplanes pages on the bus. */
static void test_multiplane_timing(void **state)
{
	struct fx f;
	struct nand_op a, b, c;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	a.nplanes = 2;
	fx_op_init(&f, &b, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 0, 0);
	b.nplanes = 2;
	fx_op_init(&f, &c, NAND_OP_READ, NAND_PRIO_HOST_READ, 2, 0, 0, 2);
	c.nplanes = 2;
	c.xfer_bytes = 4096;
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&a, 0, 56000 + 16884);
	fx_expect_done(&b, 0, 16884 + TPROG0);
	fx_expect_done(&c, 0, 74000 + 500 + 4096);
	assert_int_equal(nand_channel_stats(f.dev, 0)->busy_ns, 16884);
	fx_destroy(&f);
}

/* 7. Bus priority: waiting read data goes before waiting program data. */
static void test_bus_priority(void **state)
{
	struct fx f;
	struct nand_op r0, w, r1;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	/* Die 2 holds the bus 56000..64692. */
	fx_op_init(&f, &r0, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 2, 0, 0);
	assert_int_equal(fx_submit(&f, &r0, 0), 0);
	/* Die 1's read: tR 6000..62000, then waits. */
	fx_op_init(&f, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 1, 0, 0);
	fx_run_to(&f, 6000);
	assert_int_equal(fx_submit(&f, &r1, 6000), 0);
	/* Die 0's program asks for the bus at 60000, before die 1's read. */
	fx_op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 0);
	fx_run_to(&f, 60000);
	assert_int_equal(fx_submit(&f, &w, 60000), 0);
	fx_run_all(&f);
	fx_expect_done(&r0, 0, RD0);
	fx_expect_done(&r1, 0, RD0 + XFER);
	fx_expect_done(&w, 0, RD0 + 2 * XFER + TPROG0);
	fx_destroy(&f);
}

/* Erase at 0 on die (0, 0), then a host read at @t_read. */
static void erase_then_read(struct fx *f, struct nand_op *e, struct nand_op *r,
			    uint64_t t_read)
{
	fx_create(f, false);
	fx_op_init(f, e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	fx_op_init(f, r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0);
	assert_int_equal(fx_submit(f, e, 0), 0);
	fx_run_to(f, t_read);
	assert_int_equal(fx_submit(f, r, t_read), 0);
	fx_run_all(f);
}

/* 8. Policy never: the read waits for the whole tBERS. */
static void test_suspend_never(void **state)
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
static void test_suspend_erase(void **state)
{
	struct fx f;
	struct nand_op e, r;

	(void)state;
	fx_init(&f);
	f.cfg.policy = nand_suspend_always;
	erase_then_read(&f, &e, &r, 1000000);
	check_one_erase_suspend(&f, &e, &r, 1000000);
	fx_destroy(&f);

	fx_init(&f); /* default policy */
	erase_then_read(&f, &e, &r, 4321000);
	check_one_erase_suspend(&f, &e, &r, 4321000);
	fx_destroy(&f);
}

/* 10. A program is suspended in its array phase only. */
static void test_suspend_program(void **state)
{
	struct fx f;
	struct nand_op w, r;

	(void)state;
	/* Read at 500 us: tPROG runs 8692..1208692. */
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 0);
	fx_op_init(&f, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
	assert_int_equal(fx_submit(&f, &w, 0), 0);
	fx_run_to(&f, 500000);
	assert_int_equal(fx_submit(&f, &r, 500000), 0);
	fx_run_all(&f);
	fx_expect_done(&r, 0, 500000 + TSUS + RD0);
	fx_expect_done(&w, 0, XFER + TPROG0 + TSUS + RD0 + 20000);
	assert_int_equal(w.suspends, 1);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.suspends[NAND_OP_PROGRAM], 1);
	assert_int_equal(nand_die_stats(f.dev, 0)->busy_ns[NAND_OP_PROGRAM], TPROG0);
	fx_destroy(&f);

	/*
	 * Read queued during the data transfer: the array phase starts at
	 * 8692 and must run min_progress (100 us) before it can be suspended.
	 */
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 0);
	fx_op_init(&f, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
	assert_int_equal(fx_submit(&f, &w, 0), 0);
	fx_run_to(&f, 1000);
	assert_int_equal(fx_submit(&f, &r, 1000), 0);
	fx_run_all(&f);
	fx_expect_done(&r, 0, XFER + 100000 + TSUS + RD0);
	fx_expect_done(&w, 0, XFER + TPROG0 + TSUS + RD0 + 20000);
	fx_destroy(&f);
}

/* 11. min_progress_ns: no suspension before the op has run that long. */
static void test_suspend_min_progress(void **state)
{
	struct fx f;
	struct nand_op e, r;

	(void)state;
	fx_init(&f);
	assert_int_equal(f.cfg.min_progress_ns, 100000);
	erase_then_read(&f, &e, &r, 10000);
	check_one_erase_suspend(&f, &e, &r, 100000);
	fx_destroy(&f);

	fx_init(&f);
	f.cfg.min_progress_ns = 0;
	erase_then_read(&f, &e, &r, 10000);
	check_one_erase_suspend(&f, &e, &r, 10000);
	fx_destroy(&f);

	/* Counted again from the resume: a 2nd read 30 us after it waits. */
	fx_init(&f);
	f.cfg.min_progress_ns = 500000;
	fx_create(&f, false);
	{
		struct nand_op r2;
		const uint64_t resumed = 500000 + TSUS + RD0 + 20000;

		fx_op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
		fx_op_init(&f, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0);
		fx_op_init(&f, &r2, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 4, 0);
		assert_int_equal(fx_submit(&f, &e, 0), 0);
		fx_run_to(&f, 10000);
		assert_int_equal(fx_submit(&f, &r, 10000), 0);
		fx_run_to(&f, resumed + 30000);
		assert_int_equal(f.n, 1);
		assert_int_equal(fx_submit(&f, &r2, resumed + 30000), 0);
		fx_run_all(&f);
		fx_expect_done(&r, 0, 500000 + TSUS + RD0);
		fx_expect_done(&r2, 0, resumed + 500000 + TSUS + RD0);
		fx_expect_done(&e, 0, TBERS + 2 * (TSUS + RD0 + 20000));
		assert_int_equal(e.suspends, 2);
	}
	fx_destroy(&f);
}

/* 12. A read landing during tRESUME waits for the resume, then min_progress. */
static void test_suspend_during_resume(void **state)
{
	struct fx f;
	struct nand_op e, r1, r2;
	const uint64_t resumed = 1000000 + TSUS + RD0 + 20000; /* 1104692 */

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	fx_op_init(&f, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0);
	fx_op_init(&f, &r2, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 4, 0);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	fx_run_to(&f, 1000000);
	assert_int_equal(fx_submit(&f, &r1, 1000000), 0);
	fx_run_to(&f, resumed - 10000);
	assert_int_equal(f.dev->dies[0].phase, DIE_RESUMING);
	assert_int_equal(fx_submit(&f, &r2, resumed - 10000), 0);
	fx_run_all(&f);
	fx_expect_done(&r1, 0, 1000000 + TSUS + RD0);
	fx_expect_done(&r2, 0, resumed + 100000 + TSUS + RD0);
	fx_expect_done(&e, 0, TBERS + 2 * (TSUS + RD0 + 20000));
	assert_int_equal(e.suspends, 2);
	fx_destroy(&f);
}

/* 13. max_suspends_per_op: the third read waits for the end. */
static void test_suspend_cap(void **state)
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
	fx_op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	for (int i = 0; i < 3; i++) {
		fx_op_init(&f, &r[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
		fx_run_to(&f, at[i]);
		assert_int_equal(fx_submit(&f, &r[i], at[i]), 0);
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
static void test_suspend_too_late(void **state)
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
static void test_suspend_default_90(void **state)
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
static void test_suspend_query(void **state)
{
	struct fx f;
	struct nand_op e, w, r;
	struct qcap cap = { 0 };

	(void)state;
	fx_init(&f);
	f.cfg.policy = (struct nand_suspend_policy){ "cap", qcap_cb, &cap };
	fx_create(&f, false);
	fx_op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	fx_op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 1, 0);
	fx_op_init(&f, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	fx_run_to(&f, 1000000);
	assert_int_equal(fx_submit(&f, &w, 1000000), 0);
	assert_int_equal(cap.calls, 0); /* a write does not ask */
	fx_run_to(&f, 2000000);
	assert_int_equal(fx_submit(&f, &r, 2000000), 0);
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
static void test_suspend_batch(void **state)
{
	struct fx f;
	struct nand_op e, r[3], late, gc;
	uint64_t s = 1000000 + TSUS;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	fx_run_to(&f, 1000000);
	for (int i = 0; i < 3; i++) {
		fx_op_init(&f, &r[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
		assert_int_equal(fx_submit(&f, &r[i], 1000000), 0);
	}
	/* Arrives while the suspended die serves the first read. */
	fx_op_init(&f, &late, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 2, 0);
	fx_run_to(&f, s + 1000);
	assert_int_equal(fx_submit(&f, &late, s + 1000), 0);
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
	fx_op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	fx_op_init(&f, &gc, NAND_OP_READ, NAND_PRIO_GC_READ, 0, 0, 1, 0);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	fx_run_to(&f, 1000000);
	assert_int_equal(fx_submit(&f, &gc, 1000000), 0);
	fx_run_all(&f);
	fx_expect_done(&e, 0, TBERS);
	fx_expect_done(&gc, 0, TBERS + RD0);
	fx_destroy(&f);
}

/* 18. Erase suspension is recorded as wear on the block. */
static void test_suspend_wear(void **state)
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
	fx_run_to(&f, 2000000);
	assert_int_equal(fx_submit(&f, &r, 2000000), 0);
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
static void test_priorities(void **state)
{
	struct fx f;
	struct nand_op busy, gw, hw, er, gr, hr;
	struct nand_op *want[] = { &busy, &hr, &gr, &hw, &gw, &er };
	uint64_t t;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &busy, NAND_OP_READ, NAND_PRIO_HOST_READ, 4, 1, 0, 0);
	fx_op_init(&f, &gw, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 4, 1, 1, 0);
	fx_op_init(&f, &hw, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 4, 1, 2, 0);
	fx_op_init(&f, &er, NAND_OP_ERASE, NAND_PRIO_ERASE, 4, 1, 3, 0);
	fx_op_init(&f, &gr, NAND_OP_READ, NAND_PRIO_GC_READ, 4, 1, 4, 0);
	fx_op_init(&f, &hr, NAND_OP_READ, NAND_PRIO_HOST_READ, 4, 1, 5, 0);
	assert_int_equal(fx_submit(&f, &busy, 0), 0);
	fx_run_to(&f, 1000);
	assert_int_equal(fx_submit(&f, &er, 1000), 0);
	assert_int_equal(fx_submit(&f, &gw, 1000), 0);
	assert_int_equal(fx_submit(&f, &hw, 1000), 0);
	assert_int_equal(fx_submit(&f, &gr, 1000), 0);
	assert_int_equal(fx_submit(&f, &hr, 1000), 0);
	assert_int_equal(nand_die_stats(f.dev, 17)->max_queued, 5);
	fx_run_all(&f);
	assert_int_equal(f.n, 6);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		if (f.order[i] != want[i])
			fail_msg("completion %zu is prio %d kind %d", i, f.order[i]->prio,
				 f.order[i]->kind);
	t = RD0;
	fx_expect_done(&busy, 0, t);
	fx_expect_done(&hr, 0, t += RD0);
	fx_expect_done(&gr, 0, t += RD0);
	assert_int_equal(hw.start_ns, t);
	fx_expect_done(&hw, 0, t += XFER + TPROG0);
	fx_expect_done(&gw, 0, t += XFER + TPROG0);
	fx_expect_done(&er, 0, t += TBERS);
	assert_int_equal(nand_die_stats(f.dev, 17)->queued, 0);
	fx_destroy(&f);
}

/* 20. A closed loop from callbacks: back to back, never nested. */
static void test_closed_loop(void **state)
{
	struct fx f;
	struct nand_op op;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	f.chain = 9;
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(f.n, 10);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(f.when[i], (uint64_t)(i + 1) * RD0);
	assert_int_equal(f.nested, 0);
	/* One advance far ahead delivers them all at their modeled times. */
	{
		const uint64_t base = 10 * RD0;

		f.n = 0;
		f.chain = 4;
		assert_int_equal(fx_submit(&f, &op, base), 0);
		assert_int_equal(nand_advance(f.dev, base + 10 * RD0), 5);
		for (uint32_t i = 0; i < 5; i++)
			assert_int_equal(f.when[i], base + (uint64_t)(i + 1) * RD0);
		assert_int_equal(nand_dev_stats(f.dev)->lateness.max, 9 * RD0);
		assert_int_equal(nand_dev_stats(f.dev)->lateness.min, 0);
		assert_int_equal(nand_dev_stats(f.dev)->latency[NAND_OP_READ].max, RD0);
	}
	fx_destroy(&f);
}

/* 21. Null timing: done at submit time, but only through advance(). */
static void test_null_timing(void **state)
{
	struct fx f;
	struct nand_op a;

	(void)state;
	fx_init(&f);
	f.cfg.timing.null_timing = true;
	fx_create(&f, false);
	fx_op_init(&f, &a, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 5000), 0);
	assert_int_equal(f.n, 0);
	assert_int_equal(nand_inflight(f.dev), 1);
	assert_int_equal(nand_next_event(f.dev), 5000);
	assert_int_equal(nand_advance(f.dev, 5000), 1);
	fx_expect_done(&a, 0, 5000);
	assert_int_equal(a.start_ns, 5000);
	assert_int_equal(nand_dev_stats(f.dev)->latency[NAND_OP_ERASE].max, 0);
	/* A resubmission from the callback waits for the next advance. */
	f.chain = 1;
	assert_int_equal(fx_submit(&f, &a, 6000), 0);
	assert_int_equal(nand_advance(f.dev, 6000), 1);
	assert_int_equal(nand_inflight(f.dev), 1);
	assert_int_equal(nand_next_event(f.dev), 6000);
	assert_int_equal(nand_advance(f.dev, 6000), 1);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.nested, 0);
	fx_destroy(&f);
}

/* 22. Null timing: an op is not due before its submit time. */
static void test_null_timing_not_early(void **state)
{
	struct fx f;
	struct nand_op b;

	(void)state;
	fx_init(&f);
	f.cfg.timing.null_timing = true;
	fx_create(&f, false);
	fx_op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	assert_int_equal(fx_submit(&f, &b, 9000), 0);
	assert_int_equal(nand_advance(f.dev, 8000), 0);
	assert_int_equal(nand_advance(f.dev, 9000), 1);
	fx_expect_done(&b, 0, 9000);
	fx_destroy(&f);
}

/* 23. Null timing still enforces the flash rules on data ops. */
static void test_null_timing_rules(void **state)
{
	struct fx f;
	struct nand_op a, b;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	f.cfg.timing.null_timing = true;
	fx_create(&f, true);
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 0, 1, NULL, NULL);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(nand_advance(f.dev, 0), 1);
	assert_int_equal(a.status, -EPERM);
	assert_int_equal(nand_block_meta(f.dev, fx_blk_idx(&f, 0))->write_ptr, 0);
	/* The same page twice before either executes. */
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 1, 0, NULL, NULL);
	fx_data_op(&f, &b, NAND_OP_PROGRAM, 1, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	assert_int_equal(nand_advance(f.dev, 0), 2);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, -EPERM);
	assert_int_equal(f.store->pages_stored, 1);
	fx_destroy(&f);
}

/* 24. Telemetry after a scripted mix. */
static void test_telemetry(void **state)
{
	struct fx f;
	struct nand_op r1, r2, w, e, r3;
	const struct nand_die_stats *d0, *d1;
	const struct nand_stats *st;
	const struct blox_hist *lr;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	fx_op_init(&f, &r2, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 1);
	fx_op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 1, 0);
	fx_op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 2, 0);
	fx_op_init(&f, &r3, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 1, 0, 2);
	assert_int_equal(fx_submit(&f, &r1, 0), 0);
	assert_int_equal(fx_submit(&f, &r2, 0), 0);
	assert_int_equal(fx_submit(&f, &w, 0), 0);
	assert_int_equal(fx_submit(&f, &e, 0), 0);
	assert_int_equal(fx_submit(&f, &r3, 0), 0);
	assert_int_equal(nand_inflight(f.dev), 5);
	fx_run_all(&f);
	fx_expect_done(&r1, 0, RD0);
	fx_expect_done(&r3, 0, 74000 + XFER);
	fx_expect_done(&r2, 0, RD0 + 65000 + XFER);
	fx_expect_done(&w, 0, r2.done_ns + XFER + TPROG0);
	fx_expect_done(&e, 0, w.done_ns + TBERS);

	d0 = nand_die_stats(f.dev, 0);
	d1 = nand_die_stats(f.dev, 1);
	assert_int_equal(d0->busy_ns[NAND_OP_READ], 56000 + 65000);
	assert_int_equal(d0->busy_ns[NAND_OP_PROGRAM], TPROG0);
	assert_int_equal(d0->busy_ns[NAND_OP_ERASE], TBERS);
	assert_int_equal(d0->ops[NAND_OP_READ], 2);
	assert_int_equal(d0->ops[NAND_OP_PROGRAM], 1);
	assert_int_equal(d0->ops[NAND_OP_ERASE], 1);
	assert_int_equal(d0->max_queued, 4);
	assert_int_equal(d0->queued, 0);
	assert_int_equal(d0->suspend_overhead_ns, 0);
	assert_int_equal(d1->busy_ns[NAND_OP_READ], 74000);
	assert_int_equal(d1->ops[NAND_OP_READ], 1);
	assert_null(nand_die_stats(f.dev, 32));
	assert_int_equal(nand_channel_stats(f.dev, 0)->transfers, 4);
	assert_int_equal(nand_channel_stats(f.dev, 0)->busy_ns, 4 * XFER);

	st = nand_dev_stats(f.dev);
	assert_int_equal(st->completed, 5);
	lr = &st->latency[NAND_OP_READ];
	assert_int_equal(lr->count, 3);
	assert_int_equal(lr->min, RD0);
	assert_int_equal(lr->max, r2.done_ns);
	assert_int_equal(lr->sum, r1.done_ns + r2.done_ns + r3.done_ns);
	assert_int_equal(lr->buckets[blox_hist_bucket(RD0)], 1);
	assert_int_equal(st->latency[NAND_OP_PROGRAM].count, 1);
	assert_int_equal(st->latency[NAND_OP_PROGRAM].max, w.done_ns);
	assert_int_equal(st->latency[NAND_OP_ERASE].count, 1);
	assert_int_equal(st->lateness.count, 5);
	assert_int_equal(st->lateness.max, 0);
	assert_int_equal(st->suspend.suspends[NAND_OP_ERASE] +
				 st->suspend.suspends[NAND_OP_PROGRAM],
			 0);
	assert_null(nand_block_meta(f.dev, 0)); /* no store */
	fx_destroy(&f);
}

/* 25. The internal view agrees: phases as a read goes through. */
static void test_die_phases(void **state)
{
	struct fx f;
	struct nand_op op;
	struct nand_die *d;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	d = &f.dev->dies[0];
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	assert_int_equal(d->phase, DIE_IDLE);
	nand_advance(f.dev, 0);
	assert_int_equal(d->phase, DIE_ARRAY);
	nand_advance(f.dev, TR0);
	assert_int_equal(d->phase, DIE_XFER_OUT);
	assert_ptr_equal(f.dev->chans[0].owner, d);
	nand_advance(f.dev, RD0);
	assert_int_equal(d->phase, DIE_IDLE);
	assert_null(f.dev->chans[0].owner);
	assert_int_equal(f.n, 1);
	fx_destroy(&f);
}

/* ---- multi-plane groups ---- */

/* Two single-plane ops for planes 0 and 1 of die 0, block @block, pages @p0 / @p1. */
static void plane_pair(struct fx *f, struct nand_op *a, struct nand_op *b,
		       enum nand_op_kind kind, uint32_t block, uint32_t p0, uint32_t p1)
{
	enum nand_prio prio = kind == NAND_OP_ERASE ? NAND_PRIO_ERASE : NAND_PRIO_HOST_WRITE;

	fx_op_init(f, a, kind, prio, 0, 0, block, p0);
	fx_op_init(f, b, kind, prio, 0, 0, block, p1);
	b->addr.plane = 1;
}

/* 26. Programs queued for both planes at one block and page run as one. */
static void test_mp_group_program(void **state)
{
	struct fx f;
	struct nand_op a, b;
	const struct nand_stats *st;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	plane_pair(&f, &a, &b, NAND_OP_PROGRAM, 3, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	/* One command cycle, both pages on the bus, one tPROG. */
	fx_expect_done(&a, 0, 16884 + TPROG0);
	fx_expect_done(&b, 0, 16884 + TPROG0);
	assert_int_equal(a.start_ns, 0);
	assert_int_equal(b.start_ns, 0);
	assert_int_equal(f.n, 2);
	assert_ptr_equal(f.order[0], &a); /* the group completes in its order */
	assert_int_equal(f.nested, 0);
	st = nand_dev_stats(f.dev);
	assert_int_equal(st->mp_groups[NAND_OP_PROGRAM], 1);
	assert_int_equal(st->mp_joined, 1);
	assert_int_equal(nand_channel_stats(f.dev, 0)->busy_ns, 16884);
	assert_int_equal(nand_die_stats(f.dev, 0)->busy_ns[NAND_OP_PROGRAM], TPROG0);
	assert_int_equal(nand_die_stats(f.dev, 0)->ops[NAND_OP_PROGRAM], 2);
	fx_destroy(&f);

	/* Switched off: one after the other. */
	fx_init(&f);
	f.cfg.multiplane = false;
	fx_create(&f, false);
	plane_pair(&f, &a, &b, NAND_OP_PROGRAM, 3, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&a, 0, XFER + TPROG0);
	fx_expect_done(&b, 0, 2 * (XFER + TPROG0));
	assert_int_equal(nand_dev_stats(f.dev)->mp_groups[NAND_OP_PROGRAM], 0);
	assert_int_equal(nand_dev_stats(f.dev)->mp_joined, 0);
	fx_destroy(&f);
}

/* 27. Only ops that may run together join: same kind, block and page, another plane. */
static void test_mp_group_mismatch(void **state)
{
	struct fx f;
	struct nand_op a, b, c, d;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	plane_pair(&f, &a, &b, NAND_OP_PROGRAM, 3, 0, 1); /* another page */
	fx_op_init(&f, &c, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 4, 0); /* block 4 */
	c.addr.plane = 1;
	fx_op_init(&f, &d, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 3, 0); /* plane 0 again */
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	assert_int_equal(fx_submit(&f, &d, 0), 0);
	fx_run_all(&f);
	/* Page 1 is a CSB page: tPROG 2 ms. */
	fx_expect_done(&a, 0, XFER + TPROG0);
	fx_expect_done(&b, 0, 2 * XFER + TPROG0 + 2000000);
	fx_expect_done(&c, 0, 3 * XFER + 2 * TPROG0 + 2000000);
	fx_expect_done(&d, 0, 4 * XFER + 3 * TPROG0 + 2000000);
	assert_int_equal(nand_dev_stats(f.dev)->mp_joined, 0);
	fx_destroy(&f);
}

/*
 * 28. On a store: a partner out of order for its block stays queued and
 * fails on its own; the group's data lands on both planes.
 */
static void test_mp_group_rules(void **state)
{
	struct fx f;
	struct nand_op a, b, c, r;
	static uint8_t d0[4096], d1[4096], back[2 * 4096], oob[64], oback[2 * 64];

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_fill(d0, sizeof(d0), 1);
	fx_fill(d1, sizeof(d1), 2);
	/* Plane 1's page 1 before its page 0: not a partner, -EPERM. */
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 2, 0, d0, oob);
	a.addr.plane = 0;
	fx_data_op(&f, &c, NAND_OP_PROGRAM, 2, 1, d1, oob);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	fx_run_all(&f);
	assert_int_equal(a.status, 0);
	assert_int_equal(c.status, -EPERM);
	assert_int_equal(nand_dev_stats(f.dev)->mp_joined, 0);
	/* Plane 1's page 0 then joins plane 0's page 1. */
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 2, 1, d0, oob);
	a.addr.plane = 0;
	fx_data_op(&f, &b, NAND_OP_PROGRAM, 2, 0, d1, oob);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_int_equal(nand_dev_stats(f.dev)->mp_joined, 0); /* pages differ */
	fx_data_op(&f, &b, NAND_OP_PROGRAM, 2, 1, d1, oob);
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 2, 2, d0, oob);
	a.addr.plane = 0;
	fx_data_op(&f, &c, NAND_OP_PROGRAM, 2, 2, d1, oob);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	fx_run_all(&f);
	assert_int_equal(b.status, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(c.status, 0);
	/* b (plane 1, page 1) ran alone; a and c (page 2) as a group. */
	assert_int_equal(nand_dev_stats(f.dev)->mp_groups[NAND_OP_PROGRAM], 1);
	fx_data_op(&f, &r, NAND_OP_READ, 2, 2, back, oback);
	r.nplanes = 2;
	assert_int_equal(fx_submit(&f, &r, 0), 0);
	fx_run_all(&f);
	assert_int_equal(r.status, 0);
	assert_memory_equal(back, d0, sizeof(d0));
	assert_memory_equal(back + 4096, d1, sizeof(d1));
	fx_destroy(&f);
}

/* 29. Erases of both planes' blocks run as one; a suspension wears both. */
static void test_mp_group_erase(void **state)
{
	struct fx f;
	struct nand_op a, b, r;
	struct nand_addr p0 = { 1, 0, 0, 3, 0 }, p1 = { 1, 0, 1, 3, 0 };

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_data_op(&f, &a, NAND_OP_ERASE, 3, 0, NULL, NULL);
	a.addr.plane = 0;
	fx_data_op(&f, &b, NAND_OP_ERASE, 3, 0, NULL, NULL);
	fx_data_op(&f, &r, NAND_OP_READ, 0, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_to(&f, 2000000);
	assert_int_equal(fx_submit(&f, &r, 2000000), 0);
	fx_run_all(&f);
	fx_expect_done(&r, 0, 2000000 + TSUS + 56000 + 2548);
	fx_expect_done(&a, 0, TBERS + TSUS + 56000 + 2548 + 20000);
	fx_expect_done(&b, 0, TBERS + TSUS + 56000 + 2548 + 20000);
	assert_int_equal(nand_dev_stats(f.dev)->mp_groups[NAND_OP_ERASE], 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &p0))->erase_count, 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &p1))->erase_count, 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &p0))->erase_suspends, 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &p1))->erase_suspends, 1);
	assert_int_equal(nand_die_stats(f.dev, 2)->busy_ns[NAND_OP_ERASE], TBERS);
	fx_destroy(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_read_alone, fx_teardown),
		cmocka_unit_test_teardown(test_read_same_die, fx_teardown),
		cmocka_unit_test_teardown(test_read_shared_channel, fx_teardown),
		cmocka_unit_test_teardown(test_read_two_channels, fx_teardown),
		cmocka_unit_test_teardown(test_program_timing, fx_teardown),
		cmocka_unit_test_teardown(test_multiplane_timing, fx_teardown),
		cmocka_unit_test_teardown(test_bus_priority, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_never, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_erase, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_program, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_min_progress, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_during_resume, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_cap, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_too_late, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_default_90, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_query, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_batch, fx_teardown),
		cmocka_unit_test_teardown(test_suspend_wear, fx_teardown),
		cmocka_unit_test_teardown(test_priorities, fx_teardown),
		cmocka_unit_test_teardown(test_closed_loop, fx_teardown),
		cmocka_unit_test_teardown(test_null_timing, fx_teardown),
		cmocka_unit_test_teardown(test_null_timing_not_early, fx_teardown),
		cmocka_unit_test_teardown(test_null_timing_rules, fx_teardown),
		cmocka_unit_test_teardown(test_telemetry, fx_teardown),
		cmocka_unit_test_teardown(test_die_phases, fx_teardown),
		cmocka_unit_test_teardown(test_mp_group_program, fx_teardown),
		cmocka_unit_test_teardown(test_mp_group_mismatch, fx_teardown),
		cmocka_unit_test_teardown(test_mp_group_rules, fx_teardown),
		cmocka_unit_test_teardown(test_mp_group_erase, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
