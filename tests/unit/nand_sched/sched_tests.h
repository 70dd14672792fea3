/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_nand_sched's harness (sched_harness.c): a fake scheduler and a NAND
 * device driven by closed loops of timing-only ops in virtual time; and the
 * tests of its other files (test_nand_sched.c runs them all).
 */
#ifndef BLOX_TEST_SCHED_TESTS_H
#define BLOX_TEST_SCHED_TESTS_H

#include <stdbool.h>
#include <stdint.h>

#include "nand.h"

#define MAXT 4
#define QD 8
#define LOOPS 8
#define MAX_REC 256

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

/* sched_harness.c */
/* The fake's nand_sched.pick and pick_bus (ctx: its struct fake). */
int fake_pick(void *ctx, uint32_t die, enum nand_prio cls, const uint64_t *cost,
	      uint32_t n);
int fake_pick_bus(void *ctx, uint32_t ch, enum nand_prio cls, const uint64_t *cost,
		  uint32_t n);
/* Default config with @ntenants, the fake's pick with @die, pick_bus with @bus. */
void tx_init(struct tx *x, uint32_t ntenants, bool die, bool bus);
void tx_create(struct tx *x);
void tx_destroy(struct tx *x);
/* A timing-only op whose completion is recorded in x->order. */
void tx_op(struct tx *x, struct nand_op *op, enum nand_op_kind kind, enum nand_prio prio,
	   uint32_t tenant, uint32_t ch, uint32_t die, uint32_t block, uint32_t page);
/* Advance virtual time to @t; to the end, nothing left in flight. */
void tx_run_to(struct tx *x, uint64_t t);
void tx_run_all(struct tx *x);
/* A closed loop of QD ops, started by tx_start(), stopped (and drained) by tx_stop(). */
struct loop *tx_loop(struct tx *x, uint32_t tenant, enum nand_op_kind kind,
		     enum nand_prio prio, uint32_t ch, uint32_t die, uint32_t block,
		     uint32_t page);
void tx_start(struct tx *x, uint64_t now);
void tx_stop(struct tx *x);
/* Array time die @die served tenant @t. */
uint64_t served(const struct tx *x, uint32_t die, uint32_t t);
/* Fail unless @got is @want within a fraction @tol. */
void expect_ratio(double got, double want, double tol, const char *what);

/* sched_order.c */
void test_no_sched_same_order(void **state);
void test_fallback(void **state);
void test_multiplane(void **state);
void test_suspend(void **state);
void test_bus_pick(void **state);
void test_ftl_stamps_tenant(void **state);

#endif
