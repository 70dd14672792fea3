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
 * per die and class. It also records what the engine asked.
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

#include "ftl.h"
#include "nand.h"
#include "qos.h"

#define MAXT 4
#define QD 8
#define LOOPS 8
#define MAX_REC 256

/* ---- the fake scheduler ---- */

enum fake_mode {
	FAKE_FAIR, /* weighted fair by pass */
	FAKE_HIGHEST, /* the highest waiting tenant id */
	FAKE_RANDOM, /* any waiting tenant */
	FAKE_BAD, /* answers naming nobody waiting */
};

struct fair_state {
	double pass[MAXT], vt;
};

struct fake {
	enum fake_mode mode;
	uint32_t w[MAXT];
	struct fair_state *die_st; /* dies x NAND_PRIOS */
	struct fair_state *bus_st; /* channels x NAND_PRIOS */
	uint64_t rng;
	uint32_t bad_step;
	/* What the engine asked. */
	uint64_t calls, bus_calls, calls_cls[NAND_PRIOS];
	uint32_t last_die, last_ch;
	enum nand_prio last_cls;
	uint64_t last_cost[MAXT];
	uint32_t wrong_n; /* calls whose ntenants was not the device's */
};

static int fair_pick(struct fake *fk, struct fair_state *st, const uint64_t *cost,
		     uint32_t n)
{
	int best = -1;

	for (uint32_t t = 0; t < n && t < MAXT; t++) {
		if (cost[t] == UINT64_MAX)
			continue;
		if (st->pass[t] < st->vt)
			st->pass[t] = st->vt; /* no credit saved while idle */
		if (best < 0 || st->pass[t] < st->pass[best])
			best = (int)t;
	}
	if (best >= 0) {
		st->vt = st->pass[best];
		st->pass[best] += (double)cost[best] / (double)(fk->w[best] ? fk->w[best] : 1);
	}
	return best;
}

static int fake_choose(struct fake *fk, struct fair_state *st, const uint64_t *cost, uint32_t n)
{
	int t = -1;

	switch (fk->mode) {
	case FAKE_FAIR:
		return fair_pick(fk, st, cost, n);
	case FAKE_HIGHEST:
		for (uint32_t i = 0; i < n; i++)
			if (cost[i] != UINT64_MAX)
				t = (int)i;
		return t;
	case FAKE_RANDOM: {
		uint32_t k;

		fk->rng = fk->rng * 6364136223846793005ull + 1442695040888963407ull;
		k = (uint32_t)(fk->rng >> 33) % n;
		for (uint32_t i = 0; i < n; i++) {
			uint32_t c = (k + i) % n;

			if (cost[c] != UINT64_MAX)
				return (int)c;
		}
		return -1;
	}
	case FAKE_BAD:
		/* -1, out of range, or a tenant with nothing waiting, in turn. */
		switch (fk->bad_step++ % 3) {
		case 0:
			return -1;
		case 1:
			return 1000;
		default:
			for (uint32_t i = 0; i < n; i++)
				if (cost[i] == UINT64_MAX)
					return (int)i;
			return -7;
		}
	}
	return -1;
}

static int fake_pick(void *ctx, uint32_t die, enum nand_prio cls, const uint64_t *cost,
		     uint32_t n)
{
	struct fake *fk = ctx;

	fk->calls++;
	fk->calls_cls[cls]++;
	fk->last_die = die;
	fk->last_cls = cls;
	for (uint32_t t = 0; t < MAXT; t++)
		fk->last_cost[t] = t < n ? cost[t] : 0;
	return fake_choose(fk, &fk->die_st[die * NAND_PRIOS + cls], cost, n);
}

static int fake_pick_bus(void *ctx, uint32_t ch, enum nand_prio cls, const uint64_t *cost,
			 uint32_t n)
{
	struct fake *fk = ctx;

	fk->bus_calls++;
	fk->last_ch = ch;
	return fake_choose(fk, &fk->bus_st[ch * NAND_PRIOS + cls], cost, n);
}

/* ---- harness: a device, closed loops of timing-only ops, virtual time ---- */

struct tx;

/* A closed loop: QD ops of one tenant, kind and class, on one die, resubmitted on completion. */
struct loop {
	struct tx *x;
	uint32_t tenant;
	enum nand_op_kind kind;
	enum nand_prio prio;
	uint32_t ch, die, plane, block, page;
	bool on;
	struct nand_op ops[QD];
	uint64_t seq[QD]; /* submission number of each op */
	uint64_t next_seq, last_done_seq;
	uint64_t done, array_ns; /* completed, and their array time */
	uint32_t fifo_broken;
};

struct tx {
	struct nand_config cfg;
	struct nand_dev *dev;
	struct fake fk;
	struct loop lp[LOOPS];
	uint32_t nloops;
	uint32_t n; /* completions recorded */
	struct nand_op *order[MAX_REC];
};

static uint64_t op_array_ns(const struct nand_config *c, const struct nand_op *op)
{
	uint32_t type = nand_page_type(&c->geo, op->addr.page);

	return op->kind == NAND_OP_READ ? c->timing.t_read_ns[type]
	       : op->kind == NAND_OP_PROGRAM ? c->timing.t_prog_ns[type]
					     : c->timing.t_erase_ns;
}

/* Default config; @ntenants and the fake (pick only with @die, pick_bus with @bus). */
static void tx_init(struct tx *x, uint32_t ntenants, bool die, bool bus)
{
	memset(x, 0, sizeof(*x));
	nand_config_default(&x->cfg);
	x->fk.rng = 12345;
	for (uint32_t t = 0; t < MAXT; t++)
		x->fk.w[t] = 1;
	x->cfg.sched.name = "fake";
	x->cfg.sched.ntenants = ntenants;
	x->cfg.sched.pick = die ? fake_pick : NULL;
	x->cfg.sched.pick_bus = bus ? fake_pick_bus : NULL;
	x->cfg.sched.ctx = &x->fk;
}

static void tx_create(struct tx *x)
{
	x->fk.die_st = calloc((size_t)nand_dies(&x->cfg.geo) * NAND_PRIOS, sizeof(struct fair_state));
	x->fk.bus_st = calloc((size_t)x->cfg.geo.channels * NAND_PRIOS, sizeof(struct fair_state));
	assert_non_null(x->fk.die_st);
	assert_non_null(x->fk.bus_st);
	assert_int_equal(nand_dev_create(&x->cfg, NULL, &x->dev), 0);
}

static void tx_destroy(struct tx *x)
{
	nand_dev_destroy(x->dev);
	free(x->fk.die_st);
	free(x->fk.bus_st);
	x->dev = NULL;
}

static void rec_cb(struct nand_op *op)
{
	struct tx *x = op->cb_arg;

	if (x->n < MAX_REC)
		x->order[x->n] = op;
	x->n++;
}

/* A timing-only op whose completion is recorded in x->order. */
static void tx_op(struct tx *x, struct nand_op *op, enum nand_op_kind kind, enum nand_prio prio,
		  uint32_t tenant, uint32_t ch, uint32_t die, uint32_t block, uint32_t page)
{
	*op = (struct nand_op){ .kind = kind, .prio = prio, .tenant = tenant, .timing_only = true,
				.addr = { .ch = ch, .die = die, .block = block, .page = page },
				.cb = rec_cb, .cb_arg = x };
}

static void tx_run_to(struct tx *x, uint64_t t)
{
	uint64_t n;

	while ((n = nand_next_event(x->dev)) <= t)
		nand_advance(x->dev, n);
}

static void tx_run_all(struct tx *x)
{
	tx_run_to(x, UINT64_MAX - 1);
	assert_int_equal(nand_inflight(x->dev), 0);
}

static void loop_cb(struct nand_op *op);

static void loop_submit(struct loop *l, uint32_t i, uint64_t now)
{
	struct nand_op *op = &l->ops[i];

	*op = (struct nand_op){ .kind = l->kind, .prio = l->prio, .tenant = l->tenant,
				.timing_only = true,
				.addr = { .ch = l->ch, .die = l->die, .plane = l->plane,
					  .block = l->block, .page = l->page },
				.cb = loop_cb, .cb_arg = l };
	l->seq[i] = ++l->next_seq;
	assert_int_equal(nand_submit(l->x->dev, op, now), 0);
}

static void loop_cb(struct nand_op *op)
{
	struct loop *l = op->cb_arg;
	uint32_t i = (uint32_t)(op - l->ops);

	assert_int_equal(op->status, 0);
	/* FIFO within a tenant and class: completions in submission order. */
	if (l->seq[i] < l->last_done_seq)
		l->fifo_broken++;
	l->last_done_seq = l->seq[i];
	l->done++;
	l->array_ns += op_array_ns(&l->x->cfg, op);
	if (l->on)
		loop_submit(l, i, op->done_ns);
}

static struct loop *tx_loop(struct tx *x, uint32_t tenant, enum nand_op_kind kind,
			    enum nand_prio prio, uint32_t ch, uint32_t die, uint32_t block,
			    uint32_t page)
{
	struct loop *l = &x->lp[x->nloops++];

	*l = (struct loop){ .x = x, .tenant = tenant, .kind = kind, .prio = prio, .ch = ch,
			    .die = die, .block = block, .page = page, .on = true };
	return l;
}

static void tx_start(struct tx *x, uint64_t now)
{
	for (uint32_t i = 0; i < x->nloops; i++)
		for (uint32_t k = 0; k < QD; k++)
			loop_submit(&x->lp[i], k, now);
}

/* Stop the loops and let what is queued finish. */
static void tx_stop(struct tx *x)
{
	for (uint32_t i = 0; i < x->nloops; i++)
		x->lp[i].on = false;
	tx_run_all(x);
}

static uint64_t served(const struct tx *x, uint32_t die, uint32_t t)
{
	const struct nand_tenant_stats *ts = nand_tenant_stats(x->dev, die, t);
	uint64_t s = 0;

	assert_non_null(ts);
	for (int k = 0; k < NAND_OP_KINDS; k++)
		s += ts->served_ns[k];
	return s;
}

static void expect_ratio(double got, double want, double tol, const char *what)
{
	if (got < want * (1 - tol) || got > want * (1 + tol))
		fail_msg("%s: ratio %.4f, want %.3f within %.0f%%", what, got, want, tol * 100);
}

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

/* ---- no scheduler: today's order ---- */

struct script_op {
	uint64_t at;
	enum nand_op_kind kind;
	enum nand_prio prio;
	uint32_t tenant, ch, die, plane, block, page;
};

#define SCRIPT_N 400

/* A random mix on 2 channels x 2 dies, run on a device of @cfg; the completion times into @done. */
static void run_script(const struct nand_config *cfg, const struct script_op *s, uint64_t *done,
		       uint64_t *order)
{
	struct nand_op *ops = calloc(SCRIPT_N, sizeof(*ops));
	struct tx x;
	struct fake fk = { .mode = FAKE_FAIR };
	struct fair_state st[32 * NAND_PRIOS];

	assert_non_null(ops);
	memset(&x, 0, sizeof(x));
	memset(st, 0, sizeof(st));
	x.cfg = *cfg;
	if (x.cfg.sched.ctx) {
		fk.w[0] = fk.w[1] = fk.w[2] = 1;
		fk.die_st = fk.bus_st = st;
		x.cfg.sched.ctx = &fk;
	}
	assert_int_equal(nand_dev_create(&x.cfg, NULL, &x.dev), 0);
	for (uint32_t i = 0; i < SCRIPT_N; i++) {
		tx_run_to(&x, s[i].at);
		tx_op(&x, &ops[i], s[i].kind, s[i].prio, s[i].tenant, s[i].ch, s[i].die,
		      s[i].block, s[i].page);
		ops[i].addr.plane = s[i].plane;
		assert_int_equal(nand_submit(x.dev, &ops[i], s[i].at), 0);
	}
	tx_run_all(&x);
	for (uint32_t i = 0; i < SCRIPT_N; i++) {
		done[i] = ops[i].done_ns;
		if (i < MAX_REC)
			order[i] = (uint64_t)(x.order[i] - ops);
	}
	if (!x.cfg.sched.pick && x.cfg.sched.ntenants) {
		/* Telemetry: every op counted once, as a lead or as a group partner. */
		uint64_t started = 0;

		for (uint32_t d = 0; d < nand_dies(&x.cfg.geo); d++)
			for (uint32_t t = 0; t < x.cfg.sched.ntenants; t++)
				for (int k = 0; k < NAND_OP_KINDS; k++)
					started += nand_tenant_stats(x.dev, d, t)->started[k];
		assert_int_equal(started, SCRIPT_N);
	}
	nand_dev_destroy(x.dev);
	free(ops);
}

static void test_no_sched_same_order(void **state)
{
	struct script_op *s = calloc(SCRIPT_N, sizeof(*s));
	uint64_t *d0 = calloc(SCRIPT_N, sizeof(uint64_t)), *d1 = calloc(SCRIPT_N, sizeof(uint64_t));
	uint64_t o0[MAX_REC], o1[MAX_REC];
	uint64_t rng = 7, at = 0;
	struct nand_config c0, c1;

	(void)state;
	assert_non_null(s);
	assert_non_null(d0);
	assert_non_null(d1);
	for (uint32_t i = 0; i < SCRIPT_N; i++) {
		uint32_t r;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		r = (uint32_t)(rng >> 33);
		at += (r % 7) * 20000;
		s[i] = (struct script_op){ .at = at, .tenant = (r >> 3) % 3, .ch = (r >> 5) % 2,
					   .die = (r >> 6) % 2, .plane = (r >> 7) % 2,
					   .block = (r >> 8) % 4, .page = (r >> 10) % 3 };
		switch ((r >> 12) % 10) {
		case 0:
			s[i].kind = NAND_OP_ERASE;
			s[i].prio = NAND_PRIO_ERASE;
			break;
		case 1:
		case 2:
		case 3:
			s[i].kind = NAND_OP_PROGRAM;
			s[i].prio = (r >> 15) % 2 ? NAND_PRIO_HOST_WRITE : NAND_PRIO_GC_WRITE;
			break;
		default:
			s[i].kind = NAND_OP_READ;
			s[i].prio = (r >> 15) % 4 ? NAND_PRIO_HOST_READ : NAND_PRIO_GC_READ;
		}
		/* Tenants on different blocks, as FTL instances are. */
		s[i].block += 4 * s[i].tenant;
	}
	nand_config_default(&c0);
	run_script(&c0, s, d0, o0);
	/* Tenants on, no scheduler: the same, with telemetry. */
	c1 = c0;
	c1.sched.ntenants = 3;
	run_script(&c1, s, d1, o1);
	assert_memory_equal(d0, d1, SCRIPT_N * sizeof(uint64_t));
	assert_memory_equal(o0, o1, sizeof(o0));
	/* Sanity: a scheduler that must change the order does. */
	c1.sched.pick = fake_pick;
	c1.sched.ctx = &c1; /* replaced by run_script's fake */
	run_script(&c1, s, d1, o1);
	assert_true(memcmp(d0, d1, SCRIPT_N * sizeof(uint64_t)) != 0);
	free(s);
	free(d0);
	free(d1);
}

/* ---- answers naming nobody: FIFO ---- */

static void test_fallback(void **state)
{
	struct tx x;
	struct nand_op ops[3][4], busy;

	(void)state;
	tx_init(&x, 4, true, true);
	x.fk.mode = FAKE_BAD;
	tx_create(&x);
	tx_op(&x, &busy, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0, 0);
	assert_int_equal(nand_submit(x.dev, &busy, 0), 0);
	tx_run_to(&x, 0);
	for (uint32_t i = 0; i < 4; i++)
		for (uint32_t t = 0; t < 3; t++) {
			tx_op(&x, &ops[t][i], NAND_OP_READ, NAND_PRIO_HOST_READ, t, 0, 0, 1 + t, i);
			assert_int_equal(nand_submit(x.dev, &ops[t][i], 5), 0);
		}
	tx_run_all(&x);
	assert_int_equal(x.n, 13);
	/* The oldest op every time: submission order. */
	for (uint32_t k = 0; k < 12; k++)
		assert_ptr_equal(x.order[1 + k], &ops[k % 3][k / 3]);
	assert_int_equal(nand_dev_stats(x.dev)->sched_fallbacks,
			 x.fk.calls + x.fk.bus_calls);
	assert_int_equal(nand_dev_stats(x.dev)->sched_bus_picks, x.fk.bus_calls);
	tx_destroy(&x);
}

/* ---- multi-plane groups ---- */

static void test_multiplane(void **state)
{
	struct tx x;
	struct nand_op busy, a0, a1, b1;
	const struct nand_tenant_stats *ta, *tb;

	(void)state;
	tx_init(&x, 2, true, false);
	tx_create(&x);
	/* Tenant 0 programs planes 0 and 1 of block 7 page 2; tenant 1 plane 1 of the same. */
	tx_op(&x, &busy, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 2, 1, 0, 0);
	tx_op(&x, &a0, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 2, 1, 7, 2);
	tx_op(&x, &b1, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 2, 1, 7, 2);
	tx_op(&x, &a1, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 2, 1, 7, 2);
	b1.addr.plane = 1;
	a1.addr.plane = 1;
	x.fk.w[0] = 100; /* tenant 0 first */
	assert_int_equal(nand_submit(x.dev, &busy, 0), 0);
	tx_run_to(&x, 0);
	assert_int_equal(nand_submit(x.dev, &a0, 1), 0);
	assert_int_equal(nand_submit(x.dev, &b1, 1), 0);
	assert_int_equal(nand_submit(x.dev, &a1, 1), 0);
	tx_run_all(&x);
	/* a1 joined a0 (one array time, both planes' data on the bus); b1 ran alone after. */
	assert_int_equal(nand_dev_stats(x.dev)->mp_joined, 1);
	assert_int_equal(a0.start_ns, a1.start_ns);
	assert_int_equal(a0.done_ns, a1.done_ns);
	assert_true(b1.start_ns >= a0.done_ns);
	ta = nand_tenant_stats(x.dev, 2 * 4 + 1, 0);
	tb = nand_tenant_stats(x.dev, 2 * 4 + 1, 1);
	assert_int_equal(ta->started[NAND_OP_PROGRAM], 2);
	assert_int_equal(ta->served_ns[NAND_OP_PROGRAM], 3000000); /* once for the group */
	assert_int_equal(tb->started[NAND_OP_PROGRAM], 1);
	assert_int_equal(tb->served_ns[NAND_OP_PROGRAM], 3000000);
	assert_int_equal(x.fk.calls_cls[NAND_PRIO_HOST_WRITE], 2); /* the partner was not asked about */
	tx_destroy(&x);
}

/* ---- suspension ---- */

static void test_suspend(void **state)
{
	struct tx x;
	struct nand_op er, r0[3], r1[3];

	(void)state;
	tx_init(&x, 2, true, false);
	x.fk.mode = FAKE_HIGHEST;
	tx_create(&x);
	tx_op(&x, &er, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 1, 1, 9, 0);
	assert_int_equal(nand_submit(x.dev, &er, 0), 0);
	tx_run_to(&x, 1000000);
	for (uint32_t i = 0; i < 3; i++) {
		tx_op(&x, &r0[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 1, 1, 1, i);
		tx_op(&x, &r1[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 1, 1, 1, 2, i);
		assert_int_equal(nand_submit(x.dev, &r0[i], 1000000), 0);
		assert_int_equal(nand_submit(x.dev, &r1[i], 1000000), 0);
	}
	tx_run_all(&x);
	assert_int_equal(x.n, 7);
	/* The erase was suspended once; the reads ran inside it, tenant 1's first. */
	assert_int_equal(er.suspends, 1);
	for (uint32_t i = 0; i < 3; i++) {
		assert_ptr_equal(x.order[i], &r1[i]);
		assert_ptr_equal(x.order[3 + i], &r0[i]);
	}
	assert_ptr_equal(x.order[6], &er);
	assert_int_equal(nand_dev_stats(x.dev)->suspend.reads_overtaken, 6);
	tx_destroy(&x);
}

/* ---- the channel ---- */

static void test_bus_pick(void **state)
{
	struct tx x;
	struct nand_op a, b, c;

	(void)state;
	/* Reads ending tR together on dies 0, 1, 2 of channel 0: tenant 1's goes before tenant 0's. */
	tx_init(&x, 2, false, true);
	x.fk.mode = FAKE_HIGHEST;
	tx_create(&x);
	tx_op(&x, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0, 0);
	tx_op(&x, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0, 0);
	tx_op(&x, &c, NAND_OP_READ, NAND_PRIO_HOST_READ, 1, 0, 2, 0, 0);
	assert_int_equal(nand_submit(x.dev, &a, 0), 0);
	assert_int_equal(nand_submit(x.dev, &b, 0), 0);
	assert_int_equal(nand_submit(x.dev, &c, 0), 0);
	tx_run_all(&x);
	/* Die 0's event comes first and finds the bus free; then 2 (tenant 1) before 1. */
	assert_int_equal(a.done_ns, 56000 + 8692);
	assert_int_equal(c.done_ns, 56000 + 2 * 8692);
	assert_int_equal(b.done_ns, 56000 + 3 * 8692);
	assert_int_equal(x.fk.calls, 0);
	assert_true(x.fk.bus_calls >= 2);
	assert_int_equal(x.fk.last_ch, 0);
	tx_destroy(&x);

	/*
	 * A slow bus (100 MB/s: 164 us per page, tR 56 us) saturated by two
	 * tenants on dies of their own, weights 1:3: bus time 1:3.
	 */
	tx_init(&x, 2, false, true);
	x.cfg.timing.bus_mbps = 100;
	x.fk.w[0] = 1;
	x.fk.w[1] = 3;
	tx_create(&x);
	for (uint32_t die = 0; die < 4; die++)
		tx_loop(&x, die / 2, NAND_OP_READ, NAND_PRIO_HOST_READ, 1, die, 1, 0);
	tx_start(&x, 0);
	tx_run_to(&x, 50000000);
	{
		uint64_t a0 = nand_tenant_stats(x.dev, 4, 0)->bus_ns +
			      nand_tenant_stats(x.dev, 5, 0)->bus_ns;
		uint64_t b0 = nand_tenant_stats(x.dev, 6, 1)->bus_ns +
			      nand_tenant_stats(x.dev, 7, 1)->bus_ns;
		uint64_t a1, b1;

		tx_run_to(&x, 1050000000);
		a1 = nand_tenant_stats(x.dev, 4, 0)->bus_ns + nand_tenant_stats(x.dev, 5, 0)->bus_ns;
		b1 = nand_tenant_stats(x.dev, 6, 1)->bus_ns + nand_tenant_stats(x.dev, 7, 1)->bus_ns;
		expect_ratio((double)(b1 - b0) / (double)(a1 - a0), 3.0, 0.05, "bus time");
	}
	tx_stop(&x);
	tx_destroy(&x);
}

/* ---- the FTL stamps its tenant ---- */

struct ftx_inst {
	struct ftx *fx;
	uint32_t tenant;
	struct ftl_env env;
	struct ftl *f;
	bool kicked;
	uint64_t ops, wrong;
};

struct ftx {
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	uint64_t now;
	struct fake fk;
	struct ftx_inst in[2];
	uint32_t pending;
};

static int ftx_submit(void *ctx, struct nand_op *op)
{
	struct ftx_inst *in = ctx;

	in->ops++;
	in->wrong += op->tenant != in->tenant;
	return nand_submit(in->fx->dev, op, in->fx->now);
}

static uint64_t ftx_now(void *ctx)
{
	return ((struct ftx_inst *)ctx)->fx->now;
}

static void ftx_kick(void *ctx)
{
	((struct ftx_inst *)ctx)->kicked = true;
}

static int ftx_sync(void *ctx)
{
	struct ftx_inst *in = ctx;

	return in->fx->store->ops->sync(in->fx->store);
}

static const struct ftx_env_ops_holder {
	struct ftl_env_ops ops;
} ftx_ops = { { .submit = ftx_submit, .now = ftx_now, .kick = ftx_kick, .sync = ftx_sync } };

static void ftx_io_done(struct ftl_io *io)
{
	struct ftx *x = io->cb_arg;

	assert_int_equal(io->status, 0);
	x->pending--;
}

/* Run until nothing is pending in either instance or the device. */
static void ftx_run(struct ftx *x)
{
	for (;;) {
		bool any = false;
		uint64_t n;

		for (int i = 0; i < 2; i++)
			if (x->in[i].kicked) {
				x->in[i].kicked = false;
				ftl_process(x->in[i].f);
				any = true;
			}
		if (any)
			continue;
		n = nand_next_event(x->dev);
		if (n == UINT64_MAX)
			break;
		x->now = n;
		nand_advance(x->dev, n);
	}
	assert_int_equal(x->pending, 0);
}

static void test_ftl_stamps_tenant(void **state)
{
	struct ftx *x = calloc(1, sizeof(*x));
	struct ftl_config fc;
	uint8_t *buf = calloc(8, FTL_UNIT);
	struct ftl_io io[8];
	uint64_t rng = 99;
	uint32_t cap;

	(void)state;
	assert_non_null(x);
	assert_non_null(buf);
	nand_config_default(&x->nc);
	x->nc.geo = (struct nand_geometry){ .channels = 2, .dies_per_channel = 1,
					    .planes_per_die = 2, .blocks_per_plane = 32,
					    .pages_per_block = 24, .page_size = 16384,
					    .oob_size = 1024, .cell = NAND_TLC };
	x->fk.mode = FAKE_FAIR;
	x->fk.w[0] = x->fk.w[1] = x->fk.w[2] = 1;
	x->fk.die_st = calloc(2 * NAND_PRIOS, sizeof(struct fair_state));
	x->fk.bus_st = calloc(2 * NAND_PRIOS, sizeof(struct fair_state));
	x->nc.sched = (struct nand_sched){ .name = "fake", .ntenants = 3, .pick = fake_pick,
					   .pick_bus = fake_pick_bus, .ctx = &x->fk };
	assert_int_equal(nand_store_ram_open(&x->nc.geo, &x->store), 0);
	assert_int_equal(nand_dev_create(&x->nc, x->store, &x->dev), 0);
	ftl_config_default(&fc);
	assert_int_equal(fc.tenant, 0);
	fc.idle_ns = 1000000; /* idle prefetch runs too */
	for (uint32_t i = 0; i < 2; i++) {
		struct ftx_inst *in = &x->in[i];
		struct ftl_resources res = { .nr_dies = 2, .dies = { 0, 1 },
					     .first_block = 16 * i, .nr_blocks = 16 };

		in->fx = x;
		in->tenant = 1 + i;
		in->env = (struct ftl_env){ .ops = &ftx_ops.ops, .ctx = in, .dev = x->dev,
					    .store = x->store };
		fc.tenant = in->tenant;
		assert_int_equal(ftl_create(&fc, &in->env, &res, &in->f), 0);
	}
	cap = ftl_capacity(x->in[0].f);
	/* Random 4 KiB writes, 3 x the capacity each (GC and erases), reads between. */
	for (uint32_t round = 0; round < 3 * cap / 4; round++) {
		for (uint32_t k = 0; k < 8; k++) {
			uint32_t i = k % 2;

			rng = rng * 6364136223846793005ull + 1442695040888963407ull;
			io[k] = (struct ftl_io){ .op = k < 6 ? FTL_IO_WRITE : FTL_IO_READ,
						 .lba = (uint32_t)(rng >> 33) % cap, .nr = 1,
						 .buf = buf + (size_t)k * FTL_UNIT, .cb = ftx_io_done,
						 .cb_arg = x };
			x->pending++;
			assert_int_equal(ftl_submit(x->in[i].f, &io[k]), 0);
		}
		ftx_run(x);
	}
	/* Idle long enough for a prefetch, then a clean stop (checkpoint). */
	x->now += 10000000;
	for (int i = 0; i < 2; i++)
		ftl_process(x->in[i].f);
	ftx_run(x);
	for (uint32_t i = 0; i < 2; i++) {
		struct ftl_stats st;

		assert_true(x->in[i].ops > 0);
		assert_int_equal(x->in[i].wrong, 0);
		ftl_get_stats(x->in[i].f, &st);
		assert_true(st.gc_runs > 0);
		assert_true(st.flash_erases > 0);
	}
	for (uint32_t d = 0; d < 2; d++) {
		const struct nand_tenant_stats *t0 = nand_tenant_stats(x->dev, d, 0);

		for (int k = 0; k < NAND_OP_KINDS; k++)
			assert_int_equal(t0->started[k], 0);
		for (uint32_t t = 1; t < 3; t++)
			for (int k = 0; k < NAND_OP_KINDS; k++)
				assert_true(nand_tenant_stats(x->dev, d, t)->started[k] > 0);
	}
	for (uint32_t i = 0; i < 2; i++)
		ftl_destroy(x->in[i].f);
	nand_dev_destroy(x->dev);
	nand_store_close(x->store);
	free(x->fk.die_st);
	free(x->fk.bus_st);
	free(buf);
	free(x);
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
		cmocka_unit_test(test_no_sched_same_order),
		cmocka_unit_test(test_fallback),
		cmocka_unit_test(test_multiplane),
		cmocka_unit_test(test_suspend),
		cmocka_unit_test(test_bus_pick),
		cmocka_unit_test(test_ftl_stamps_tenant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
