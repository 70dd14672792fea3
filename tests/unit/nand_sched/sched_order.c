/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nand_sched: what the engine does around the scheduler: its order
 * without one, answers naming nobody, multi-plane groups, suspension, the
 * channel's picks, and the FTL stamping its tenant on its ops.
 */
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
#include "sched_tests.h"

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

void test_no_sched_same_order(void **state)
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

void test_fallback(void **state)
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

void test_multiplane(void **state)
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

void test_suspend(void **state)
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

void test_bus_pick(void **state)
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

void test_ftl_stamps_tenant(void **state)
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
