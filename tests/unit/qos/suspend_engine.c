/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The smart suspension policy driving a real NAND device (nand/engine.c)
 * in virtual time: a long erase (or a program) runs, host reads arrive at
 * chosen points, and the completion times, the engine's suspension
 * counters and the policy's decisions by reason say what happened.
 *
 * Timings (nand_config_default(): TLC, 16 KiB pages, 2000 MB/s):
 *   tR 56 us (page 3 is an LSB page), data out 8692 ns: a read holds the
 *   die RD = 64692 ns; tPROG 1.2 ms (page 0), its data in 8692 ns first;
 *   tBERS 10 ms; tSUSPEND = tRESUME = 20 us; the engine lets an op run
 *   100 us (min_progress_ns) between suspensions, caps it at 8.
 */
#include <stdlib.h>
#include <string.h>

#include "qos_tests.h"

#define US 1000ull
#define MS 1000000ull
#define RD (56 * US + 8692) /* LSB read of a 16 KiB page: tR + data out */
#define XFER 8692ull
#define TPROG0 (1200 * US)
#define TBERS (10 * MS)
#define TSUS (20 * US)
#define TRES (20 * US)
#define SUSP (TSUS + RD + TRES) /* what one suspension serving one read adds to the op */

struct sx {
	struct nand_config cfg;
	struct nand_store *store;
	struct nand_dev *dev;
	struct qos_suspend_inputs in;
	struct qos_suspend_state st;
	uint32_t done;
	uint8_t data[16384], oob[1024];
};

int sx_setup(void **state)
{
	struct sx *x = calloc(1, sizeof(*x));

	if (!x)
		return -1;
	nand_config_default(&x->cfg);
	qos_suspend_cfg_default(&x->st.cfg);
	x->st.in = &x->in;
	qos_suspend_policy(&x->cfg.policy, &x->st);
	*state = x;
	return 0;
}

int sx_teardown(void **state)
{
	struct sx *x = *state;

	nand_dev_destroy(x->dev);
	nand_store_close(x->store);
	free(x);
	return 0;
}

/* The device of x->cfg (its policy the smart one over x->st unless changed). */
static void sx_create(struct sx *x, bool with_store)
{
	if (with_store)
		assert_int_equal(nand_store_ram_open(&x->cfg.geo, &x->store), 0);
	assert_int_equal(nand_dev_create(&x->cfg, x->store, &x->dev), 0);
}

static void done_cb(struct nand_op *op)
{
	struct sx *x = op->cb_arg;

	assert_int_equal(op->status, 0);
	x->done++;
}

static void sx_op(struct sx *x, struct nand_op *op, enum nand_op_kind kind, enum nand_prio prio,
		  uint32_t ch, uint32_t die, uint32_t block, uint32_t page)
{
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->prio = prio;
	op->addr = (struct nand_addr){ ch, die, 0, block, page };
	op->nplanes = 1;
	op->timing_only = true;
	op->cb = done_cb;
	op->cb_arg = x;
}

/* Deliver every event up to @t, then submit @op at @t. */
static void sx_submit_at(struct sx *x, struct nand_op *op, uint64_t t)
{
	uint64_t e;

	while ((e = nand_next_event(x->dev)) <= t)
		nand_advance(x->dev, e);
	assert_int_equal(nand_submit(x->dev, op, t), 0);
}

static void sx_run_all(struct sx *x)
{
	uint64_t e;

	while ((e = nand_next_event(x->dev)) != UINT64_MAX)
		nand_advance(x->dev, e);
	assert_int_equal(nand_inflight(x->dev), 0);
}

static void expect_done(const struct nand_op *op, uint64_t t)
{
	if (op->done_ns != t)
		fail_msg("op kind %d die %u: done at %llu, want %llu", op->kind, op->addr.die,
			 (unsigned long long)op->done_ns, (unsigned long long)t);
}

static void expect_decisions(const struct sx *x, uint64_t granted, uint64_t nearly, uint64_t capped,
			     uint64_t pressure, uint64_t urgent)
{
	const uint64_t *d = x->st.decisions;

	if (d[QOS_SUSP_GRANTED] != granted || d[QOS_SUSP_NEARLY_DONE] != nearly ||
	    d[QOS_SUSP_CAPPED] != capped || d[QOS_SUSP_PRESSURE] != pressure ||
	    d[QOS_SUSP_GC_URGENT] != urgent || d[QOS_SUSP_NOT_HOST_READ] != 0)
		fail_msg("decisions granted %llu nearly_done %llu capped %llu pressure %llu "
			 "gc_urgent %llu not_host_read %llu; want %llu %llu %llu %llu %llu 0",
			 (unsigned long long)d[QOS_SUSP_GRANTED],
			 (unsigned long long)d[QOS_SUSP_NEARLY_DONE],
			 (unsigned long long)d[QOS_SUSP_CAPPED],
			 (unsigned long long)d[QOS_SUSP_PRESSURE],
			 (unsigned long long)d[QOS_SUSP_GC_URGENT],
			 (unsigned long long)d[QOS_SUSP_NOT_HOST_READ], (unsigned long long)granted,
			 (unsigned long long)nearly, (unsigned long long)capped,
			 (unsigned long long)pressure, (unsigned long long)urgent);
}

/* Policy and engine agree: what the policy declined, the engine counts as declined. */
static void expect_engine(const struct sx *x, uint64_t erase_susp, uint64_t prog_susp)
{
	const struct nand_suspend_stats *ss = &nand_dev_stats(x->dev)->suspend;
	uint64_t no = 0;

	for (int r = 0; r < QOS_SUSP_REASONS; r++)
		if (r != QOS_SUSP_GRANTED)
			no += x->st.decisions[r];
	assert_int_equal(ss->suspends[NAND_OP_ERASE], erase_susp);
	assert_int_equal(ss->suspends[NAND_OP_PROGRAM], prog_susp);
	assert_int_equal(ss->declined, no);
	assert_int_equal(ss->suspends[NAND_OP_ERASE] + ss->suspends[NAND_OP_PROGRAM],
			 x->st.decisions[QOS_SUSP_GRANTED]);
}

struct cap {
	struct nand_suspend_policy inner;
	uint32_t calls;
	struct nand_suspend_query q;
};

static bool cap_cb(void *ctx, const struct nand_suspend_query *q)
{
	struct cap *c = ctx;

	c->calls++;
	c->q = *q;
	return c->inner.should_suspend(c->inner.ctx, q);
}

/* 1. The engine tells the policy which die (global index) and what class the op is. */
void test_susp_engine_query(void **state)
{
	struct sx *x = *state;
	struct cap c = { 0 };
	struct nand_op e, w, r1, r2;

	qos_suspend_policy(&c.inner, &x->st);
	x->cfg.policy = (struct nand_suspend_policy){ "cap", cap_cb, &c };
	sx_create(x, false);
	/* An erase on channel 2, die 1: die 2 x 4 + 1 = 9. */
	sx_op(x, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 2, 1, 9, 0);
	sx_op(x, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 2, 1, 1, 3);
	sx_submit_at(x, &e, 0);
	sx_submit_at(x, &r1, 2 * MS);
	assert_int_equal(c.calls, 1);
	assert_int_equal(c.q.die, 9);
	assert_int_equal(c.q.running, NAND_OP_ERASE);
	assert_int_equal(c.q.running_prio, NAND_PRIO_ERASE);
	assert_int_equal(c.q.elapsed_ns, 2 * MS);
	assert_int_equal(c.q.total_ns, TBERS);
	/* A GC program on channel 7, die 3 (the last die, 31). */
	sx_op(x, &w, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 7, 3, 0, 0);
	sx_op(x, &r2, NAND_OP_READ, NAND_PRIO_HOST_READ, 7, 3, 1, 3);
	sx_submit_at(x, &w, 2 * MS);
	sx_submit_at(x, &r2, 2 * MS + XFER + 300 * US);
	assert_int_equal(c.calls, 2);
	assert_int_equal(c.q.die, 31);
	assert_int_equal(c.q.running, NAND_OP_PROGRAM);
	assert_int_equal(c.q.running_prio, NAND_PRIO_GC_WRITE);
	assert_int_equal(c.q.elapsed_ns, 300 * US);
	sx_run_all(x);
	expect_decisions(x, 2, 0, 0, 0, 0);
	expect_engine(x, 1, 1);
}

/* 2. A read 1 ms into an erase suspends it; the erase ends one suspension later. */
void test_susp_engine_granted(void **state)
{
	struct sx *x = *state;
	struct nand_op e, r;

	sx_create(x, false);
	sx_op(x, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	sx_op(x, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 3);
	sx_submit_at(x, &e, 0);
	sx_submit_at(x, &r, 1 * MS);
	sx_run_all(x);
	expect_done(&r, 1 * MS + TSUS + RD);
	expect_done(&e, TBERS + SUSP);
	assert_int_equal(e.suspends, 1);
	expect_decisions(x, 1, 0, 0, 0, 0);
	expect_engine(x, 1, 0);
	/* Timing-only ops: no block to wear, so no erase-suspend wear recorded. */
	assert_int_equal(nand_dev_stats(x->dev)->suspend.erase_suspend_wear, 0);
}

/* One erase at 0 on die 0 and one read at @t_read; returns the read's completion. */
static uint64_t erase_read(struct sx *x, uint64_t t_read)
{
	struct nand_op e, r;

	sx_op(x, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	sx_op(x, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 3);
	sx_submit_at(x, &e, 0);
	sx_submit_at(x, &r, t_read);
	sx_run_all(x);
	return r.done_ns;
}

/* 3. Nearly done: under 200 us left, or past 900 permille; exactly 900 permille is granted. */
void test_susp_engine_nearly_done(void **state)
{
	struct sx *x = *state;

	/* 150 us left: the read waits for the erase. */
	sx_create(x, false);
	assert_int_equal(erase_read(x, TBERS - 150 * US), TBERS + RD);
	expect_decisions(x, 0, 1, 0, 0, 0);
	expect_engine(x, 0, 0);
	nand_dev_destroy(x->dev);
	x->dev = NULL;

	/* 950 permille (500 us left): the same. */
	sx_create(x, false);
	assert_int_equal(erase_read(x, 9500 * US), TBERS + RD);
	expect_decisions(x, 0, 2, 0, 0, 0);
	nand_dev_destroy(x->dev);
	x->dev = NULL;

	/* 900 permille exactly: granted. */
	sx_create(x, false);
	assert_int_equal(erase_read(x, 9 * MS), 9 * MS + TSUS + RD);
	expect_decisions(x, 1, 2, 0, 0, 0);
}

/* 4. A program: suspended early in tPROG, not with under 200 us of it left. */
void test_susp_engine_program(void **state)
{
	struct sx *x = *state;
	struct nand_op w, r1, r2;
	/* tPROG runs XFER .. XFER + 1.2 ms. */
	const uint64_t t1 = XFER + 500 * US;

	sx_create(x, false);
	sx_op(x, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 0);
	sx_op(x, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 3);
	sx_op(x, &r2, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 2, 3);
	sx_submit_at(x, &w, 0);
	sx_submit_at(x, &r1, t1);
	/* After the resume, 700 us of tPROG are left; a read with 199 us left waits. */
	sx_submit_at(x, &r2, XFER + TPROG0 + SUSP - 199 * US);
	sx_run_all(x);
	expect_done(&r1, t1 + TSUS + RD);
	expect_done(&w, XFER + TPROG0 + SUSP);
	expect_done(&r2, XFER + TPROG0 + SUSP + RD);
	assert_int_equal(w.suspends, 1);
	expect_decisions(x, 1, 1, 0, 0, 0);
	expect_engine(x, 0, 1);
}

/* Reads on die 0 at @at[0..n-1] during one erase from 0; completions into @done. */
static void erase_reads(struct sx *x, const uint64_t *at, uint32_t n, uint64_t *done,
			uint64_t *erase_done)
{
	struct nand_op e, r[8];

	assert_true(n <= 8);
	sx_op(x, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	sx_submit_at(x, &e, 0);
	for (uint32_t i = 0; i < n; i++) {
		sx_op(x, &r[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 3);
		sx_submit_at(x, &r[i], at[i]);
	}
	sx_run_all(x);
	for (uint32_t i = 0; i < n; i++)
		done[i] = r[i].done_ns;
	*erase_done = e.done_ns;
}

/* 5. The policy's own cap (2 here, under the engine's 8): the third read waits. */
void test_susp_engine_capped(void **state)
{
	struct sx *x = *state;
	const uint64_t at[3] = { 1 * MS, 3 * MS, 5 * MS };
	uint64_t done[3], end;

	x->st.cfg.max_suspends = 2;
	x->st.cfg.pace = false; /* spent on the first reads: test_susp_engine_paced paces */
	sx_create(x, false);
	erase_reads(x, at, 3, done, &end);
	assert_int_equal(end, TBERS + 2 * SUSP);
	assert_int_equal(done[0], at[0] + TSUS + RD);
	assert_int_equal(done[1], at[1] + TSUS + RD);
	assert_int_equal(done[2], end + RD);
	expect_decisions(x, 2, 0, 1, 0, 0);
	expect_engine(x, 2, 0);
	/* The engine's mechanism cap is not what stopped it. */
	assert_int_equal(nand_dev_stats(x->dev)->suspend.capped, 0);
}

/* 6. Heavy host pressure: 2 per op; the inputs are read at each decision. */
void test_susp_engine_pressure(void **state)
{
	struct sx *x = *state;
	struct nand_op e, r[4];
	const uint64_t at[4] = { 1 * MS, 3 * MS, 5 * MS, 7 * MS };

	x->in.host_inflight = 65;
	x->st.cfg.pace = false;
	sx_create(x, false);
	sx_op(x, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	sx_submit_at(x, &e, 0);
	for (int i = 0; i < 3; i++) {
		sx_op(x, &r[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 3);
		sx_submit_at(x, &r[i], at[i]);
	}
	/* Read 3 waits (pressure). The host calms down; read 4 asks again and both go. */
	sx_op(x, &r[3], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 2, 3);
	{
		uint64_t ev;

		while ((ev = nand_next_event(x->dev)) <= at[3])
			nand_advance(x->dev, ev);
	}
	assert_int_equal(x->done, 2);
	x->in.host_inflight = 10;
	assert_int_equal(nand_submit(x->dev, &r[3], at[3]), 0);
	sx_run_all(x);
	expect_done(&r[0], at[0] + TSUS + RD);
	expect_done(&r[1], at[1] + TSUS + RD);
	expect_done(&r[2], at[3] + TSUS + RD); /* served first in the third suspension */
	expect_done(&r[3], at[3] + TSUS + 2 * RD);
	expect_done(&e, TBERS + 3 * SUSP + RD);
	expect_decisions(x, 3, 0, 0, 1, 0);
	expect_engine(x, 3, 0);
}

/* 7. Urgent GC on the die: no erase suspension, one program suspension; other dies as usual. */
void test_susp_engine_gc_urgent(void **state)
{
	struct sx *x = *state;
	struct nand_op e0, e1, r0, r1, w, rw1, rw2;
	const uint64_t p0 = 12 * MS; /* the program's start (after the erases) */
	const uint64_t t1 = p0 + XFER + 300 * US, t2 = t1 + 500 * US;

	x->in.gc_level[0] = 3; /* die 0 (channel 0, die 0) urgent */
	x->in.gc_level[1] = 2; /* die 1 (channel 0, die 1) foreground */
	sx_create(x, false);
	sx_op(x, &e0, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	sx_op(x, &e1, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 1, 9, 0);
	sx_op(x, &r0, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 3);
	sx_op(x, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 1, 1, 3);
	sx_submit_at(x, &e0, 0);
	sx_submit_at(x, &e1, 0);
	sx_submit_at(x, &r0, 1 * MS);
	sx_submit_at(x, &r1, 1 * MS);
	sx_run_all(x);
	expect_done(&e0, TBERS);
	expect_done(&r0, TBERS + RD);
	expect_done(&r1, 1 * MS + TSUS + RD);
	expect_done(&e1, TBERS + SUSP);
	expect_decisions(x, 1, 0, 0, 0, 1);

	/* A GC program on the urgent die: the first read suspends it, the second waits. */
	sx_op(x, &w, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 0, 0, 0, 0);
	sx_op(x, &rw1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 3);
	sx_op(x, &rw2, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 2, 3);
	sx_submit_at(x, &w, p0);
	sx_submit_at(x, &rw1, t1);
	sx_submit_at(x, &rw2, t2);
	sx_run_all(x);
	expect_done(&rw1, t1 + TSUS + RD);
	expect_done(&w, p0 + XFER + TPROG0 + SUSP);
	expect_done(&rw2, w.done_ns + RD);
	expect_decisions(x, 2, 0, 0, 0, 2);
	expect_engine(x, 1, 1);
}

/* A data op on plane 0 of die 0 of the small store. */
static void sx_data_op(struct sx *x, struct nand_op *op, enum nand_op_kind kind, uint32_t block,
		       uint32_t page)
{
	sx_op(x, op, kind,
	      kind == NAND_OP_READ ? NAND_PRIO_HOST_READ :
	      kind == NAND_OP_ERASE ? NAND_PRIO_ERASE : NAND_PRIO_HOST_WRITE,
	      0, 0, block, page);
	op->timing_only = false;
	op->data = x->data;
	op->oob = x->oob;
}

/* 8. Erase-suspend wear is still recorded (per block and in the device's counter). */
void test_susp_engine_wear(void **state)
{
	struct sx *x = *state;
	struct nand_op e, r;
	struct nand_addr a = { 0, 0, 0, 3, 0 };
	uint64_t blk;
	const uint64_t rd4k = 56 * US + 500 + 2048; /* tR + 4 KiB out */

	x->cfg.geo = (struct nand_geometry){
		.channels = 2, .dies_per_channel = 2, .planes_per_die = 2, .blocks_per_plane = 4,
		.pages_per_block = 6, .page_size = 4096, .oob_size = 64, .cell = NAND_TLC,
	};
	sx_create(x, true);
	blk = nand_block_index(&x->cfg.geo, &a);
	/* Granted: one suspension of the erase of block 3, one unit of wear on it. */
	sx_data_op(x, &e, NAND_OP_ERASE, 3, 0);
	sx_data_op(x, &r, NAND_OP_READ, 0, 0);
	sx_submit_at(x, &e, 0);
	sx_submit_at(x, &r, 2 * MS);
	sx_run_all(x);
	assert_true(r.erased);
	expect_done(&r, 2 * MS + TSUS + rd4k);
	assert_int_equal(e.suspends, 1);
	assert_int_equal(nand_block_meta(x->dev, blk)->erase_suspends, 1);
	assert_int_equal(nand_block_meta(x->dev, blk)->erase_count, 1);
	assert_int_equal(nand_dev_stats(x->dev)->suspend.erase_suspend_wear, 1);
	/* Declined (urgent GC): erased without suspension, no wear added. */
	x->in.gc_level[0] = 3;
	sx_data_op(x, &e, NAND_OP_ERASE, 3, 0);
	sx_data_op(x, &r, NAND_OP_READ, 0, 0);
	sx_submit_at(x, &e, 20 * MS);
	sx_submit_at(x, &r, 22 * MS);
	sx_run_all(x);
	expect_done(&r, 20 * MS + TBERS + rd4k);
	assert_int_equal(nand_block_meta(x->dev, blk)->erase_suspends, 1);
	assert_int_equal(nand_block_meta(x->dev, blk)->erase_count, 2);
	assert_int_equal(nand_dev_stats(x->dev)->suspend.erase_suspend_wear, 1);
	expect_decisions(x, 1, 0, 0, 0, 1);
}

/*
 * 9. Paced, a budget of 4 on a 10 ms erase and five reads in its first
 * millisecond: the first suspends it at once; the other four are told "not
 * yet" and the engine asks again when the erase is 1/4 done (2.5 ms of
 * array time), without a new read: they are served together then. Not
 * paced, the four suspensions go to the first four reads and the fifth
 * waits for the whole erase.
 */
void test_susp_engine_paced(void **state)
{
	struct sx *x = *state;
	const uint64_t at[5] = { 100 * US, 300 * US, 500 * US, 700 * US, 900 * US };
	struct nand_op e, r[5];
	uint64_t t2 = 2500 * US + SUSP; /* the erase 2.5 ms done: one suspension in */

	for (int paced = 1; paced >= 0; paced--) {
		memset(x->st.decisions, 0, sizeof(x->st.decisions));
		x->st.cfg.max_suspends = 4;
		x->st.cfg.pace = paced;
		sx_create(x, false);
		sx_op(x, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
		sx_submit_at(x, &e, 0);
		for (uint32_t i = 0; i < 5; i++) {
			sx_op(x, &r[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1 + i, 3);
			sx_submit_at(x, &r[i], at[i]);
		}
		sx_run_all(x);
		expect_done(&r[0], at[0] + TSUS + RD);
		if (paced) {
			for (uint32_t i = 1; i < 5; i++)
				expect_done(&r[i], t2 + TSUS + i * RD);
			expect_done(&e, TBERS + SUSP + TSUS + 4 * RD + TRES);
			assert_int_equal(x->st.decisions[QOS_SUSP_PACED], 4);
			assert_int_equal(nand_dev_stats(x->dev)->suspend.asked_again, 4);
			expect_engine(x, 2, 0);
		} else {
			/* Each in its own suspension (after the engine's 100 us between two). */
			for (uint32_t i = 1; i < 4; i++)
				assert_true(r[i].done_ns <= at[i] + 100 * US + TSUS + RD);
			expect_done(&e, TBERS + 4 * SUSP);
			expect_done(&r[4], TBERS + 4 * SUSP + RD); /* the whole erase */
			expect_decisions(x, 4, 0, 1, 0, 0);
			expect_engine(x, 4, 0);
		}
		nand_dev_destroy(x->dev);
		x->dev = NULL;
	}
}
