/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue priorities, a closed loop from completion callbacks, null timing,
 * telemetry after a scripted mix, die phases.
 */
#include "engine_tests.h"

void test_priorities(void **state)
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
void test_closed_loop(void **state)
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
void test_null_timing(void **state)
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
void test_null_timing_not_early(void **state)
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
void test_null_timing_rules(void **state)
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
void test_telemetry(void **state)
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
void test_die_phases(void **state)
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
