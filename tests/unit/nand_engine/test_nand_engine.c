/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the NAND timing engine (engine.c): exact completion times
 * in virtual time for scripted sequences, plus the telemetry those
 * sequences must leave behind. Expected times are literal numbers worked
 * out from the TLC defaults (see nand_fixture.h). This file: reads,
 * programs, shared channels, multi-plane ops, bus priority; main(). The
 * others:
 *   engine_suspend.c     erase and program suspension, its caps and policy
 *   engine_sched.c       queue priorities, closed loops from callbacks, null
 *                        timing, telemetry and die phases
 *   engine_multiplane.c  multi-plane groups
 */
#include "engine_tests.h"

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

/*
 * 2b. A driver that runs late: the die went idle at RD0 (the first read's
 * end), but the second read was submitted only at 500 us and the engine
 * hears of the first's end only then. The second starts at its submit
 * time, never before it (its latency would be negative).
 */
static void test_late_driver_no_start_before_submit(void **state)
{
	struct fx f;
	struct nand_op a, b;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	fx_op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	fx_op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 1);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(nand_advance(f.dev, 1000), 0);
	/* Late: A ended at RD0 < 500 us, nobody advanced the engine meanwhile. */
	assert_int_equal(fx_submit(&f, &b, 500000), 0);
	assert_int_equal(nand_advance(f.dev, 600000), 2);
	fx_expect_done(&a, 0, RD0);
	assert_int_equal(b.start_ns, 500000);
	fx_expect_done(&b, 0, 500000 + 65000 + XFER);
	assert_true(b.done_ns >= b.submit_ns);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_read_alone, fx_teardown),
		cmocka_unit_test_teardown(test_lend_read, fx_teardown),
		cmocka_unit_test_teardown(test_lend_erase_held, fx_teardown),
		cmocka_unit_test_teardown(test_lend_not_lent, fx_teardown),
		cmocka_unit_test(test_lend_outlives_device),
		cmocka_unit_test(test_late_driver_no_start_before_submit),
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
		cmocka_unit_test_teardown(test_suspend_plp_flush, fx_teardown),
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
		cmocka_unit_test_teardown(test_mp_group_late_driver, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
