/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for sharing a die among tenants in the NAND engine
 * (nand_config.sched, nand_op.tenant, nand_tenant_stats()) and for the
 * FTL's tenant stamp (ftl_config.tenant), in virtual time on the default
 * geometry (TLC: tR 56/65/74 us, tPROG 1.2/2/3 ms, tBERS 10 ms by page type
 * page % 3; 16 KiB over 2000 MB/s plus 500 ns of command = 8692 ns).
 *
 * The scheduler here is a fake: weighted fair queueing by "pass" (each
 * tenant's charged time over its weight, the lowest waiting first, a
 * tenant coming back not below the last pass served), one state per die
 * and class and per channel and class, as the daemon keeps one qos_drr
 * per die and class. It also records what the engine asked. This file:
 * the scheduler's configuration and the shares, classes, groups and order
 * it gives; sched_order.c the rest; sched_harness.c the fake and the device.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nand.h"
#include "qos.h"
#include "sched_tests.h"

/* ---- configuration ---- */

static void test_config(void **state)
{
	struct tx x;
	struct nand_dev *dev;
	struct nand_op op;

	(void)state;
	/* A scheduler needs tenants; at most NAND_MAX_TENANTS. */
	tx_init(&x, 0, true, false);
	assert_int_equal(nand_dev_create(&x.cfg, NULL, &dev), -EINVAL);
	tx_init(&x, 0, false, true);
	assert_int_equal(nand_dev_create(&x.cfg, NULL, &dev), -EINVAL);
	tx_init(&x, NAND_MAX_TENANTS + 1, true, true);
	assert_int_equal(nand_dev_create(&x.cfg, NULL, &dev), -EINVAL);
	tx_init(&x, 2, true, true);
	x.cfg.sched.group_from = NAND_PRIOS;
	assert_int_equal(nand_dev_create(&x.cfg, NULL, &dev), -EINVAL);
	tx_init(&x, NAND_MAX_TENANTS, true, true);
	assert_int_equal(nand_dev_create(&x.cfg, NULL, &dev), 0);
	assert_non_null(nand_tenant_stats(dev, 0, NAND_MAX_TENANTS - 1));
	assert_null(nand_tenant_stats(dev, 0, NAND_MAX_TENANTS));
	assert_null(nand_tenant_stats(dev, nand_dies(&x.cfg.geo), 0));
	nand_dev_destroy(dev);

	/* Tenants off: ids are not looked at, no tenant telemetry. */
	tx_init(&x, 0, false, false);
	tx_create(&x);
	assert_null(nand_tenant_stats(x.dev, 0, 0));
	tx_op(&x, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 99, 0, 0, 0, 0);
	assert_int_equal(nand_submit(x.dev, &op, 0), 0);
	tx_run_all(&x);
	assert_int_equal(x.n, 1);
	tx_destroy(&x);

	/* Tenants on: an id out of range is refused at submit. */
	tx_init(&x, 3, true, false);
	tx_create(&x);
	tx_op(&x, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 3, 0, 0, 0, 0);
	assert_int_equal(nand_submit(x.dev, &op, 0), -EINVAL);
	assert_int_equal(nand_inflight(x.dev), 0);
	op.tenant = 2;
	assert_int_equal(nand_submit(x.dev, &op, 0), 0);
	assert_int_equal(nand_tenant_stats(x.dev, 0, 2)->queued, 1);
	tx_run_all(&x);
	assert_int_equal(nand_tenant_stats(x.dev, 0, 2)->queued, 0);
	assert_int_equal(nand_tenant_stats(x.dev, 0, 2)->started[NAND_OP_READ], 1);
	assert_int_equal(nand_tenant_stats(x.dev, 0, 2)->served_ns[NAND_OP_READ], 56000);
	assert_int_equal(nand_tenant_stats(x.dev, 0, 2)->bus_ns, 8692);
	assert_int_equal(nand_tenant_stats(x.dev, 0, 0)->started[NAND_OP_READ], 0);
	tx_destroy(&x);
}

/* ---- weighted shares ---- */

/*
 * Two tenants saturate die 0 with programs of one class: 1:3 weights give
 * 1:3 of the die's array time, whatever their ops cost (tenant 0 programs
 * LSB pages, 1.2 ms; tenant 1 MSB pages, 3 ms), measured from the
 * completions and from the engine's telemetry over a window.
 */
static void share_case(enum nand_op_kind kind, enum nand_prio prio, uint32_t page0,
		       uint32_t page1)
{
	const uint64_t t0 = 200000000, t1 = 2200000000; /* 0.2 s warm-up, 2 s window */
	struct tx x;
	struct loop *a, *b;
	uint64_t a0, b0, sa0, sb0;
	double by_done, by_stats;

	tx_init(&x, 2, true, false);
	x.fk.w[0] = 1;
	x.fk.w[1] = 3;
	tx_create(&x);
	a = tx_loop(&x, 0, kind, prio, 0, 0, 1, page0);
	b = tx_loop(&x, 1, kind, prio, 0, 0, 2, page1);
	tx_start(&x, 0);
	tx_run_to(&x, t0);
	a0 = a->array_ns;
	b0 = b->array_ns;
	sa0 = served(&x, 0, 0);
	sb0 = served(&x, 0, 1);
	tx_run_to(&x, t1);
	by_done = (double)(b->array_ns - b0) / (double)(a->array_ns - a0);
	by_stats = (double)(served(&x, 0, 1) - sb0) / (double)(served(&x, 0, 0) - sa0);
	expect_ratio(by_done, 3.0, 0.05, "die time by completions");
	expect_ratio(by_stats, 3.0, 0.05, "die time by nand_tenant_stats");
	/*
	 * The die was never idle: the two shares fill the window (but for the
	 * transfers a die waits out: a read's data out, a program's data in).
	 */
	{
		double filled = (double)(served(&x, 0, 0) - sa0 + served(&x, 0, 1) - sb0) /
				(double)(t1 - t0);

		if (filled < 0.85)
			fail_msg("array time filled %.3f of the window", filled);
	}
	tx_stop(&x);
	assert_int_equal(a->fifo_broken + b->fifo_broken, 0);
	assert_true(x.fk.calls > 0);
	assert_int_equal(x.fk.calls, x.fk.calls_cls[prio]);
	assert_int_equal(nand_dev_stats(x.dev)->sched_fallbacks, 0);
	assert_int_equal(nand_dev_stats(x.dev)->sched_picks, x.fk.calls);
	tx_destroy(&x);
}

static void test_share_programs(void **state)
{
	(void)state;
	share_case(NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 2); /* 1.2 ms vs 3 ms */
	share_case(NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 1, 1);
}

static void test_share_reads(void **state)
{
	(void)state;
	share_case(NAND_OP_READ, NAND_PRIO_HOST_READ, 2, 0); /* 74 us vs 56 us */
	share_case(NAND_OP_READ, NAND_PRIO_GC_READ, 1, 1);
}

/* Three tenants 1:2:5 on one die, erases against programs: shares 1/8, 2/8, 5/8. */
static void test_share_three(void **state)
{
	const uint64_t t0 = 100000000, t1 = 4100000000;
	struct tx x;
	struct loop *l[3];
	uint64_t s0[3];
	double tot = 0, got[3];
	static const uint32_t w[3] = { 1, 2, 5 };

	(void)state;
	tx_init(&x, 3, true, false);
	for (int i = 0; i < 3; i++)
		x.fk.w[i] = w[i];
	tx_create(&x);
	l[0] = tx_loop(&x, 0, NAND_OP_ERASE, NAND_PRIO_ERASE, 3, 2, 10, 0);
	l[1] = tx_loop(&x, 1, NAND_OP_PROGRAM, NAND_PRIO_ERASE, 3, 2, 20, 1);
	l[2] = tx_loop(&x, 2, NAND_OP_READ, NAND_PRIO_ERASE, 3, 2, 30, 2);
	tx_start(&x, 0);
	tx_run_to(&x, t0);
	for (int i = 0; i < 3; i++)
		s0[i] = l[i]->array_ns;
	tx_run_to(&x, t1);
	for (int i = 0; i < 3; i++)
		tot += (double)(l[i]->array_ns - s0[i]);
	for (int i = 0; i < 3; i++) {
		got[i] = (double)(l[i]->array_ns - s0[i]) / tot;
		expect_ratio(got[i], w[i] / 8.0, 0.05, "share of three");
	}
	assert_int_equal(x.fk.last_die, 3 * 4 + 2);
	tx_stop(&x);
	tx_destroy(&x);
}

/* ---- classes stay strict ---- */

static void test_classes_strict(void **state)
{
	struct tx x;
	struct nand_op busy, hr[2], gr, hw, gw, er;
	struct nand_op *want[] = { &busy, &hr[0], &hr[1], &gr, &hw, &gw, &er };

	(void)state;
	tx_init(&x, 2, true, false);
	x.fk.w[0] = 1;
	x.fk.w[1] = 1000; /* tenant 1 weighs much more, yet waits for tenant 0's class */
	tx_create(&x);
	tx_op(&x, &busy, NAND_OP_READ, NAND_PRIO_HOST_READ, 1, 4, 1, 0, 0);
	tx_op(&x, &hr[0], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 4, 1, 5, 0);
	tx_op(&x, &hr[1], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 4, 1, 5, 1);
	tx_op(&x, &gr, NAND_OP_READ, NAND_PRIO_GC_READ, 1, 4, 1, 4, 0);
	tx_op(&x, &hw, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 4, 1, 2, 0);
	tx_op(&x, &gw, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 1, 4, 1, 1, 0);
	tx_op(&x, &er, NAND_OP_ERASE, NAND_PRIO_ERASE, 1, 4, 1, 3, 0);
	assert_int_equal(nand_submit(x.dev, &busy, 0), 0);
	tx_run_to(&x, 1000);
	assert_int_equal(nand_submit(x.dev, &er, 1000), 0);
	assert_int_equal(nand_submit(x.dev, &gw, 1000), 0);
	assert_int_equal(nand_submit(x.dev, &hw, 1000), 0);
	assert_int_equal(nand_submit(x.dev, &gr, 1000), 0);
	assert_int_equal(nand_submit(x.dev, &hr[0], 1000), 0);
	assert_int_equal(nand_submit(x.dev, &hr[1], 1000), 0);
	tx_run_all(&x);
	assert_int_equal(x.n, 7);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (x.order[i] != want[i])
			fail_msg("completion %zu: prio %d tenant %u", i, x.order[i]->prio,
				 x.order[i]->tenant);
	/* Asked once per op started, about its class only. */
	assert_int_equal(x.fk.calls, 7);
	assert_int_equal(x.fk.calls_cls[NAND_PRIO_HOST_READ], 3);
	assert_int_equal(x.fk.calls_cls[NAND_PRIO_ERASE], 1);
	assert_int_equal(x.fk.last_cls, NAND_PRIO_ERASE);
	assert_int_equal(x.fk.last_die, 17);
	assert_true(x.fk.last_cost[0] == UINT64_MAX);
	assert_int_equal(x.fk.last_cost[1], 10000000);
	tx_destroy(&x);

	/* Saturated: tenant 1's host writes (weight 1000) get nothing while tenant 0's reads wait. */
	tx_init(&x, 2, true, false);
	x.fk.w[1] = 1000;
	tx_create(&x);
	tx_loop(&x, 0, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
	tx_loop(&x, 1, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 2, 0);
	tx_start(&x, 0);
	tx_run_to(&x, 100000000);
	assert_int_equal(served(&x, 0, 1), 0);
	assert_true(x.lp[0].done > 1000);
	assert_int_equal(x.lp[1].done, 0);
	tx_stop(&x); /* the reads stop: the writes run */
	assert_int_equal(x.lp[1].done, QD);
	assert_int_equal(x.fk.calls_cls[NAND_PRIO_HOST_WRITE], QD);
	tx_destroy(&x);
}

/* ---- a weighted group of classes (sched.group_from) ---- */

/*
 * Tenant 0 keeps host writes queued, tenant 1 GC writes (weights 1:3).
 * Strict classes: tenant 1 gets nothing while tenant 0's host writes wait.
 * With group_from = GC reads: 1:3 of the die time, the scheduler asked
 * with the group's first class; host reads still go first.
 */
static void test_group(void **state)
{
	const uint64_t t0 = 100000000, t1 = 2100000000;
	struct tx x;
	uint64_t a0, b0;

	(void)state;
	tx_init(&x, 2, true, false);
	x.fk.w[1] = 3;
	tx_create(&x);
	tx_loop(&x, 0, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 1, 0);
	tx_loop(&x, 1, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 0, 0, 2, 2);
	tx_start(&x, 0);
	tx_run_to(&x, t0);
	assert_int_equal(served(&x, 0, 1), 0);
	tx_stop(&x);
	tx_destroy(&x);

	tx_init(&x, 2, true, false);
	x.cfg.sched.group_from = NAND_PRIO_GC_READ;
	x.fk.w[1] = 3;
	tx_create(&x);
	tx_loop(&x, 0, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 1, 0);
	tx_loop(&x, 1, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 0, 0, 2, 2);
	tx_loop(&x, 1, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 3, 0); /* behind its own GC writes */
	tx_start(&x, 0);
	tx_run_to(&x, t0);
	a0 = served(&x, 0, 0);
	b0 = served(&x, 0, 1);
	tx_run_to(&x, t1);
	expect_ratio((double)(served(&x, 0, 1) - b0) / (double)(served(&x, 0, 0) - a0), 3.0, 0.05,
		     "group: die time");
	/* Strict inside tenant 1: no erase while its GC writes are queued. */
	assert_int_equal(x.lp[2].done, 0);
	assert_int_equal(nand_tenant_stats(x.dev, 0, 1)->started[NAND_OP_ERASE], 0);
	/* One scheduler state for the group: asked with its first class only. */
	assert_int_equal(x.fk.calls, x.fk.calls_cls[NAND_PRIO_GC_READ]);
	tx_stop(&x); /* drains: the erases run last */
	assert_int_equal(x.lp[2].done, QD);
	assert_int_equal(x.fk.calls, x.fk.calls_cls[NAND_PRIO_GC_READ]);
	tx_destroy(&x);

	/* Host reads stay strict before the group: tenant 1's GC (weight 1000) waits. */
	tx_init(&x, 2, true, false);
	x.cfg.sched.group_from = NAND_PRIO_GC_READ;
	x.fk.w[1] = 1000;
	tx_create(&x);
	tx_loop(&x, 0, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
	tx_loop(&x, 1, NAND_OP_READ, NAND_PRIO_GC_READ, 0, 0, 2, 0);
	tx_start(&x, 0);
	tx_run_to(&x, t0);
	assert_int_equal(served(&x, 0, 1), 0);
	assert_true(x.lp[0].done > 1000);
	tx_stop(&x);
	assert_int_equal(x.fk.calls_cls[NAND_PRIO_HOST_READ] + x.fk.calls_cls[NAND_PRIO_GC_READ],
			 x.fk.calls);
	tx_destroy(&x);
}

/* The channel with a group: among every waiting die of the group, by tenant. */
static void test_group_bus(void **state)
{
	struct tx x;
	struct nand_op r, a, b, c;

	(void)state;
	/*
	 * A read holds channel 0 from 56000 to 64692; programs of tenant 0
	 * (host write, die 0) and tenant 1 (GC writes, dies 1 and 2) ask for
	 * it at 56001. Strict classes give the host write the bus first; the
	 * group gives it to the tenant the scheduler names (here the highest).
	 */
	tx_init(&x, 2, false, true);
	x.cfg.sched.group_from = NAND_PRIO_GC_READ;
	x.fk.mode = FAKE_HIGHEST;
	tx_create(&x);
	tx_op(&x, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0, 0);
	tx_op(&x, &a, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 0, 0);
	tx_op(&x, &b, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 1, 0, 1, 0, 0);
	tx_op(&x, &c, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 1, 0, 2, 0, 0);
	assert_int_equal(nand_submit(x.dev, &r, 0), 0);
	tx_run_to(&x, 56000);
	assert_int_equal(nand_submit(x.dev, &a, 56001), 0);
	assert_int_equal(nand_submit(x.dev, &b, 56001), 0);
	assert_int_equal(nand_submit(x.dev, &c, 56001), 0);
	tx_run_all(&x);
	assert_int_equal(r.done_ns, 56000 + 8692);
	assert_int_equal(b.done_ns, 64692 + 8692 + 1200000);
	assert_int_equal(c.done_ns, 64692 + 2 * 8692 + 1200000);
	assert_int_equal(a.done_ns, 64692 + 3 * 8692 + 1200000);
	tx_destroy(&x);

	/* The same without the group: the host write first, then the GC writes by tenant. */
	tx_init(&x, 2, false, true);
	x.fk.mode = FAKE_HIGHEST;
	tx_create(&x);
	assert_int_equal(nand_submit(x.dev, &r, 0), 0);
	tx_run_to(&x, 56000);
	assert_int_equal(nand_submit(x.dev, &a, 56001), 0);
	assert_int_equal(nand_submit(x.dev, &b, 56001), 0);
	assert_int_equal(nand_submit(x.dev, &c, 56001), 0);
	tx_run_all(&x);
	assert_int_equal(a.done_ns, 64692 + 8692 + 1200000);
	assert_int_equal(b.done_ns, 64692 + 2 * 8692 + 1200000);
	assert_int_equal(c.done_ns, 64692 + 3 * 8692 + 1200000);
	tx_destroy(&x);
}

/* ---- qos/'s deficit round robin as the scheduler ---- */

static int drr_pick(void *ctx, uint32_t die, enum nand_prio cls, const uint64_t *cost,
		    uint32_t n)
{
	struct qos_drr *s = ctx;

	return qos_drr_pick(&s[die * NAND_PRIOS + cls], cost, n);
}

/*
 * qos_drr_pick() plugged in through the ops table (one per die and class,
 * as the daemon and blox-sim do): 1:3 of die 0 for programs of unequal
 * costs, strict classes and in a group; 1:2:5 with erases.
 */
static void test_qos_drr(void **state)
{
	const uint64_t t0 = 100000000, t1 = 4100000000;
	uint32_t n = 32 * NAND_PRIOS;
	struct qos_drr *s = calloc(n, sizeof(*s));
	struct tx x;

	(void)state;
	assert_non_null(s);
	for (int round = 0; round < 3; round++) {
		static const uint32_t w[3] = { 1, 2, 5 };
		uint32_t nt = round == 2 ? 3 : 2;
		struct loop *l[3];
		uint64_t a[3];
		double tot = 0;

		for (uint32_t i = 0; i < n; i++) {
			qos_drr_init(&s[i]);
			for (uint32_t t = 0; t < nt; t++)
				assert_int_equal(qos_drr_set_weight(&s[i], t, nt == 3 ? w[t] : 1 + 2 * t), 0);
		}
		tx_init(&x, nt, true, false);
		x.cfg.sched.name = "qos_drr";
		x.cfg.sched.ctx = s;
		x.cfg.sched.pick = drr_pick;
		if (round == 1)
			x.cfg.sched.group_from = NAND_PRIO_GC_READ;
		tx_create(&x);
		if (round == 0) {
			l[0] = tx_loop(&x, 0, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 1, 0);
			l[1] = tx_loop(&x, 1, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 2, 2);
		} else if (round == 1) {
			l[0] = tx_loop(&x, 0, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 1, 1);
			l[1] = tx_loop(&x, 1, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 0, 0, 2, 0);
		} else {
			l[0] = tx_loop(&x, 0, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 1, 0);
			l[1] = tx_loop(&x, 1, NAND_OP_PROGRAM, NAND_PRIO_ERASE, 0, 0, 2, 1);
			l[2] = tx_loop(&x, 2, NAND_OP_READ, NAND_PRIO_ERASE, 0, 0, 3, 2);
		}
		tx_start(&x, 0);
		tx_run_to(&x, t0);
		for (uint32_t t = 0; t < nt; t++)
			a[t] = l[t]->array_ns;
		tx_run_to(&x, t1);
		for (uint32_t t = 0; t < nt; t++)
			tot += (double)(l[t]->array_ns - a[t]);
		if (nt == 2) {
			expect_ratio((double)(l[1]->array_ns - a[1]) / (double)(l[0]->array_ns - a[0]),
				     3.0, 0.05, "qos_drr: die time");
		} else {
			for (uint32_t t = 0; t < 3; t++)
				expect_ratio((double)(l[t]->array_ns - a[t]) / tot, w[t] / 8.0, 0.05,
					     "qos_drr: share of three");
		}
		tx_stop(&x);
		for (uint32_t t = 0; t < nt; t++)
			assert_int_equal(l[t]->fifo_broken, 0);
		assert_int_equal(nand_dev_stats(x.dev)->sched_fallbacks, 0);
		tx_destroy(&x);
	}
	free(s);
}

/* ---- FIFO within a tenant ---- */

static void test_fifo_per_tenant(void **state)
{
	struct tx x;
	struct nand_op ops[3][6], busy;
	uint32_t next[3] = { 0 };

	(void)state;
	/* Highest tenant first: 2's, then 1's, then 0's, each in submission order. */
	tx_init(&x, 3, true, false);
	x.fk.mode = FAKE_HIGHEST;
	tx_create(&x);
	tx_op(&x, &busy, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 1, 0, 0, 0);
	assert_int_equal(nand_submit(x.dev, &busy, 0), 0);
	tx_run_to(&x, 0);
	for (uint32_t i = 0; i < 6; i++)
		for (uint32_t t = 0; t < 3; t++) {
			tx_op(&x, &ops[t][i], NAND_OP_READ, NAND_PRIO_HOST_READ, t, 1, 0, 10 + t, i);
			assert_int_equal(nand_submit(x.dev, &ops[t][i], 10), 0);
		}
	tx_run_all(&x);
	assert_int_equal(x.n, 19);
	for (uint32_t k = 0; k < 18; k++) {
		uint32_t t = 2 - k / 6;

		assert_ptr_equal(x.order[1 + k], &ops[t][k % 6]);
	}
	tx_destroy(&x);

	/* Any tenant at random: each tenant's ops still come in its order. */
	tx_init(&x, 3, true, false);
	x.fk.mode = FAKE_RANDOM;
	tx_create(&x);
	assert_int_equal(nand_submit(x.dev, &busy, 0), 0);
	tx_run_to(&x, 0);
	for (uint32_t i = 0; i < 6; i++)
		for (uint32_t t = 0; t < 3; t++) {
			tx_op(&x, &ops[t][i], NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, t, 1, 0, 10 + t, i);
			assert_int_equal(nand_submit(x.dev, &ops[t][i], 10), 0);
		}
	tx_run_all(&x);
	assert_int_equal(x.n, 19);
	for (uint32_t k = 1; k < 19; k++) {
		uint32_t t = x.order[k]->tenant;

		assert_ptr_equal(x.order[k], &ops[t][next[t]++]);
	}
	tx_destroy(&x);

	/* And in saturated closed loops (checked by every loop's completion order). */
	tx_init(&x, 2, true, false);
	x.fk.mode = FAKE_RANDOM;
	tx_create(&x);
	tx_loop(&x, 0, NAND_OP_READ, NAND_PRIO_HOST_READ, 2, 3, 1, 0);
	tx_loop(&x, 1, NAND_OP_READ, NAND_PRIO_HOST_READ, 2, 3, 2, 0);
	tx_loop(&x, 0, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 2, 3, 3, 0);
	tx_start(&x, 0);
	tx_run_to(&x, 50000000);
	tx_stop(&x);
	for (uint32_t i = 0; i < x.nloops; i++)
		assert_int_equal(x.lp[i].fifo_broken, 0);
	tx_destroy(&x);
}

/* ---- one tenant's power cut ---- */

static void test_power_cut_tenant(void **state)
{
	struct tx x;
	struct nand_op p1, p1b, r0, w0, other;
	struct nand_power_cut_stats st;
	uint64_t tprog;

	(void)state;
	tx_init(&x, 2, true, false);
	x.cfg.policy = nand_suspend_never; /* else the read suspends the program's rest */
	tx_create(&x);
	tprog = nand_dev_config(x.dev)->timing.t_prog_ns[nand_page_type(&x.cfg.geo, 0)];
	/* Tenant 1's program runs on die 0; both tenants' ops wait behind it. */
	tx_op(&x, &p1, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 0, 1, 0);
	assert_int_equal(nand_submit(x.dev, &p1, 0), 0);
	tx_run_to(&x, 1000);
	tx_op(&x, &r0, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 2, 0);
	tx_op(&x, &p1b, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 0, 1, 1);
	tx_op(&x, &w0, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 2, 1);
	tx_op(&x, &other, NAND_OP_READ, NAND_PRIO_HOST_READ, 1, 1, 0, 3, 0); /* another die */
	assert_int_equal(nand_submit(x.dev, &r0, 1000), 0);
	assert_int_equal(nand_submit(x.dev, &p1b, 1000), 0);
	assert_int_equal(nand_submit(x.dev, &w0, 1000), 0);
	assert_int_equal(nand_submit(x.dev, &other, 1000), 0);
	assert_int_equal(nand_power_cut_tenant(x.dev, 2, false, &st), -EINVAL);
	assert_int_equal(nand_power_cut_tenant(x.dev, 1, false, &st), 0);
	assert_int_equal(st.dropped, 3);
	assert_int_equal(nand_inflight(x.dev), 3); /* 0's two, and the running program's rest */
	tx_run_all(&x);
	/* Only tenant 0's ops complete, after the cut program's time on the die. */
	assert_int_equal(x.n, 2);
	assert_ptr_equal(x.order[0], &r0);
	assert_ptr_equal(x.order[1], &w0);
	assert_int_equal(r0.status, 0);
	assert_int_equal(w0.status, 0);
	assert_true(r0.start_ns >= tprog);
	/* The device takes the cut tenant's ops again. */
	tx_op(&x, &p1, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 0, 1, 0);
	assert_int_equal(nand_submit(x.dev, &p1, r0.done_ns + tprog * 4), 0);
	tx_run_all(&x);
	assert_int_equal(x.n, 3);
	/* A device destroyed with a cut op still running frees it. */
	tx_op(&x, &p1b, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 0, 1, 1);
	assert_int_equal(nand_submit(x.dev, &p1b, p1.done_ns), 0);
	tx_run_to(&x, p1.done_ns + 1000);
	assert_int_equal(nand_power_cut_tenant(x.dev, 1, false, &st), 0);
	assert_int_equal(st.dropped, 1);
	tx_destroy(&x);
	assert_int_equal(x.n, 3);

	/* Without tenants there is no tenant to cut. */
	tx_init(&x, 0, false, false);
	tx_create(&x);
	assert_int_equal(nand_power_cut_tenant(x.dev, 0, false, &st), -EINVAL);
	tx_destroy(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_share_programs),
		cmocka_unit_test(test_share_reads),
		cmocka_unit_test(test_share_three),
		cmocka_unit_test(test_classes_strict),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_group_bus),
		cmocka_unit_test(test_qos_drr),
		cmocka_unit_test(test_fifo_per_tenant),
		cmocka_unit_test(test_power_cut_tenant),
		cmocka_unit_test(test_no_sched_same_order),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_multiplane),
		cmocka_unit_test(test_suspend),
		cmocka_unit_test(test_bus_pick),
		cmocka_unit_test(test_ftl_stamps_tenant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
