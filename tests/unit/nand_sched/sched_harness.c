/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The harness of test_nand_sched (sched_tests.h): the fake scheduler, weighted
 * fair queueing by "pass" (each tenant's charged time over its weight, the
 * lowest waiting first, a tenant coming back not below the last pass served),
 * one state per die and class and per channel and class, recording what the
 * engine asked; and a device driven by closed loops of timing-only ops.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nand.h"
#include "sched_tests.h"

/* ---- the fake scheduler ---- */

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

int fake_pick(void *ctx, uint32_t die, enum nand_prio cls, const uint64_t *cost,
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

int fake_pick_bus(void *ctx, uint32_t ch, enum nand_prio cls, const uint64_t *cost,
		  uint32_t n)
{
	struct fake *fk = ctx;

	fk->bus_calls++;
	fk->last_ch = ch;
	return fake_choose(fk, &fk->bus_st[ch * NAND_PRIOS + cls], cost, n);
}

/* ---- harness: a device, closed loops of timing-only ops, virtual time ---- */

static uint64_t op_array_ns(const struct nand_config *c, const struct nand_op *op)
{
	uint32_t type = nand_page_type(&c->geo, op->addr.page);

	return op->kind == NAND_OP_READ ? c->timing.t_read_ns[type]
	       : op->kind == NAND_OP_PROGRAM ? c->timing.t_prog_ns[type]
					     : c->timing.t_erase_ns;
}

/* Default config; @ntenants and the fake (pick only with @die, pick_bus with @bus). */
void tx_init(struct tx *x, uint32_t ntenants, bool die, bool bus)
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

void tx_create(struct tx *x)
{
	x->fk.die_st = calloc((size_t)nand_dies(&x->cfg.geo) * NAND_PRIOS, sizeof(struct fair_state));
	x->fk.bus_st = calloc((size_t)x->cfg.geo.channels * NAND_PRIOS, sizeof(struct fair_state));
	assert_non_null(x->fk.die_st);
	assert_non_null(x->fk.bus_st);
	assert_int_equal(nand_dev_create(&x->cfg, NULL, &x->dev), 0);
}

void tx_destroy(struct tx *x)
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
void tx_op(struct tx *x, struct nand_op *op, enum nand_op_kind kind, enum nand_prio prio,
	   uint32_t tenant, uint32_t ch, uint32_t die, uint32_t block, uint32_t page)
{
	*op = (struct nand_op){ .kind = kind, .prio = prio, .tenant = tenant, .timing_only = true,
				.addr = { .ch = ch, .die = die, .block = block, .page = page },
				.cb = rec_cb, .cb_arg = x };
}

void tx_run_to(struct tx *x, uint64_t t)
{
	uint64_t n;

	while ((n = nand_next_event(x->dev)) <= t)
		nand_advance(x->dev, n);
}

void tx_run_all(struct tx *x)
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

struct loop *tx_loop(struct tx *x, uint32_t tenant, enum nand_op_kind kind,
		     enum nand_prio prio, uint32_t ch, uint32_t die, uint32_t block,
		     uint32_t page)
{
	struct loop *l = &x->lp[x->nloops++];

	*l = (struct loop){ .x = x, .tenant = tenant, .kind = kind, .prio = prio, .ch = ch,
			    .die = die, .block = block, .page = page, .on = true };
	return l;
}

void tx_start(struct tx *x, uint64_t now)
{
	for (uint32_t i = 0; i < x->nloops; i++)
		for (uint32_t k = 0; k < QD; k++)
			loop_submit(&x->lp[i], k, now);
}

/* Stop the loops and let what is queued finish. */
void tx_stop(struct tx *x)
{
	for (uint32_t i = 0; i < x->nloops; i++)
		x->lp[i].on = false;
	tx_run_all(x);
}

uint64_t served(const struct tx *x, uint32_t die, uint32_t t)
{
	const struct nand_tenant_stats *ts = nand_tenant_stats(x->dev, die, t);
	uint64_t s = 0;

	assert_non_null(ts);
	for (int k = 0; k < NAND_OP_KINDS; k++)
		s += ts->served_ns[k];
	return s;
}

void expect_ratio(double got, double want, double tol, const char *what)
{
	if (got < want * (1 - tol) || got > want * (1 + tol))
		fail_msg("%s: ratio %.4f, want %.3f within %.0f%%", what, got, want, tol * 100);
}
