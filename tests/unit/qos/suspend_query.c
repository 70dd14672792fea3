/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qos/suspend.c asked directly, with scripted queries: the defaults, every
 * branch of the decision and its order, the count by reason, and a policy
 * without inputs.
 */
#include <string.h>

#include "qos_tests.h"

#define US 1000ull
#define MS 1000000ull

struct qx {
	struct qos_suspend_inputs in;
	struct qos_suspend_state st;
	struct nand_suspend_policy p;
};

static void qx_init(struct qx *x)
{
	memset(x, 0, sizeof(*x));
	qos_suspend_cfg_default(&x->st.cfg);
	/* The other rules; test_susp_query_paced has the pacing. */
	x->st.cfg.pace = false;
	x->st.in = &x->in;
	qos_suspend_policy(&x->p, &x->st);
}

/* A query: an erase on die 0, @elapsed of 10 ms done, @suspends so far, one host read waiting. */
static struct nand_suspend_query erase_q(uint64_t elapsed, uint32_t suspends)
{
	return (struct nand_suspend_query){
		.running = NAND_OP_ERASE,
		.running_prio = NAND_PRIO_ERASE,
		.die = 0,
		.elapsed_ns = elapsed,
		.total_ns = 10 * MS,
		.suspends = suspends,
		.waiting = NAND_PRIO_HOST_READ,
		.reads_waiting = 1,
		.now_ns = 5 * MS,
	};
}

static bool ask(struct qx *x, const struct nand_suspend_query *q)
{
	return x->p.should_suspend(x->p.ctx, q);
}

static void expect_counts(const struct qx *x, const uint64_t want[QOS_SUSP_REASONS])
{
	for (int r = 0; r < QOS_SUSP_REASONS; r++)
		if (x->st.decisions[r] != want[r])
			fail_msg("decisions[%s] = %llu, want %llu",
				 qos_suspend_reason_name((enum qos_suspend_reason)r),
				 (unsigned long long)x->st.decisions[r], (unsigned long long)want[r]);
}

/* 1. The defaults the policy is documented with. */
void test_susp_defaults(void **state)
{
	struct qos_suspend_cfg c;
	struct qx x;

	(void)state;
	memset(&c, 0xa5, sizeof(c));
	qos_suspend_cfg_default(&c);
	assert_int_equal(c.min_remaining_ns, 200 * US);
	assert_int_equal(c.max_progress_permille, 900);
	assert_int_equal(c.max_suspends, 8);
	assert_int_equal(c.busy_inflight, 64);
	assert_int_equal(c.busy_max_suspends, 2);
	assert_true(c.erase_only_when_urgent_gc);
	qx_init(&x);
	assert_string_equal(x.p.name, "smart");
	assert_ptr_equal(x.p.ctx, &x.st);
	assert_non_null(x.p.should_suspend);
}

/* 2. Reason names (the bench and telemetry print them). */
void test_susp_names(void **state)
{
	(void)state;
	assert_string_equal(qos_suspend_reason_name(QOS_SUSP_GRANTED), "granted");
	assert_string_equal(qos_suspend_reason_name(QOS_SUSP_NOT_HOST_READ), "not_host_read");
	assert_string_equal(qos_suspend_reason_name(QOS_SUSP_NEARLY_DONE), "nearly_done");
	assert_string_equal(qos_suspend_reason_name(QOS_SUSP_CAPPED), "capped");
	assert_string_equal(qos_suspend_reason_name(QOS_SUSP_PRESSURE), "pressure");
	assert_string_equal(qos_suspend_reason_name(QOS_SUSP_GC_URGENT), "gc_urgent");
	assert_string_equal(qos_suspend_reason_name(QOS_SUSP_REASONS), "unknown");
}

/* 3. Every branch, its boundary, and which reason wins when several apply. */
void test_susp_query_branches(void **state)
{
	struct qx x;
	struct nand_suspend_query q;
	uint64_t want[QOS_SUSP_REASONS] = { 0 };

	(void)state;
	qx_init(&x);
	/* Granted: an erase 1 ms in, never suspended. */
	q = erase_q(1 * MS, 0);
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	/* Only host reads: a GC read (or anything else) waiting is no reason. */
	q.waiting = NAND_PRIO_GC_READ;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NOT_HOST_READ]++;
	q.waiting = NAND_PRIO_HOST_WRITE;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NOT_HOST_READ]++;
	/* ... and that comes first, even for an op nearly done. */
	q = erase_q(10 * MS - 1 * US, 0);
	q.waiting = NAND_PRIO_GC_READ;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NOT_HOST_READ]++;
	expect_counts(&x, want);

	/* Progress: 900 permille is still granted, one ns more is not. */
	q = erase_q(9 * MS, 0);
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	q = erase_q(9 * MS + 1, 0);
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NEARLY_DONE]++;
	/* Remaining time: a 1.2 ms program (833 permille done) with 200 us left is granted, less not. */
	q = erase_q(1000 * US, 0);
	q.running = NAND_OP_PROGRAM;
	q.running_prio = NAND_PRIO_HOST_WRITE;
	q.total_ns = 1200 * US;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	q.elapsed_ns = 1000 * US + 1;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NEARLY_DONE]++;
	/* An op of no array time, or elapsed past its total (never from the engine). */
	q = erase_q(0, 0);
	q.total_ns = 0;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NEARLY_DONE]++;
	q = erase_q(11 * MS, 0);
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NEARLY_DONE]++;
	expect_counts(&x, want);

	/* The cap per op: 7 suspensions so far is fine, 8 is not. */
	q = erase_q(1 * MS, 7);
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	q.suspends = 8;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_CAPPED]++;
	/* Nearly done wins over capped. */
	q = erase_q(9500 * US, 8);
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NEARLY_DONE]++;
	expect_counts(&x, want);

	/* Host pressure: above 64 in flight, 2 per op. */
	x.in.host_inflight = 64;
	q = erase_q(1 * MS, 5);
	assert_true(ask(&x, &q)); /* 64 is not above 64 */
	want[QOS_SUSP_GRANTED]++;
	x.in.host_inflight = 65;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_PRESSURE]++;
	q.suspends = 1;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	q.suspends = 2;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_PRESSURE]++;
	/* Capped wins over pressure. */
	q.suspends = 8;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_CAPPED]++;
	x.in.host_inflight = 0;
	expect_counts(&x, want);

	/* GC urgent on the op's die: no erase suspension at all, programs once. */
	x.in.gc_level[3] = 3;
	q = erase_q(1 * MS, 0);
	q.die = 3;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_GC_URGENT]++;
	q.running = NAND_OP_PROGRAM;
	q.running_prio = NAND_PRIO_GC_WRITE;
	q.total_ns = 3 * MS;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	q.suspends = 1;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_GC_URGENT]++;
	/* Only that die: the same op on die 2 (level 2, foreground) goes on as usual. */
	x.in.gc_level[2] = 2;
	q.die = 2;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	/* GC urgency wins over pressure; nearly done and capped over both. */
	q.die = 3;
	x.in.host_inflight = 1000;
	q.suspends = 2;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_GC_URGENT]++;
	q.suspends = 8;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_CAPPED]++;
	q.suspends = 0;
	q.elapsed_ns = q.total_ns - 100 * US;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NEARLY_DONE]++;
	x.in.host_inflight = 0;
	/* Switched off, urgent GC is no reason. */
	x.st.cfg.erase_only_when_urgent_gc = false;
	q = erase_q(1 * MS, 0);
	q.die = 3;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	/* A die beyond the inputs' table has no GC level: 0. */
	x.st.cfg.erase_only_when_urgent_gc = true;
	q.die = 300;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	expect_counts(&x, want);
}

/* 4. No inputs (st.in NULL): neither pressure nor GC urgency, the rest as usual. */
void test_susp_no_inputs(void **state)
{
	struct qx x;
	struct nand_suspend_query q = erase_q(1 * MS, 7);

	(void)state;
	qx_init(&x);
	x.st.in = NULL;
	assert_true(ask(&x, &q));
	q.suspends = 8;
	assert_false(ask(&x, &q));
	q = erase_q(9900 * US, 0);
	assert_false(ask(&x, &q));
	expect_counts(&x, (uint64_t[QOS_SUSP_REASONS]){ [QOS_SUSP_GRANTED] = 1,
							[QOS_SUSP_CAPPED] = 1,
							[QOS_SUSP_NEARLY_DONE] = 1 });
}

/* 5. Paced: a budget of B spread over the op; "not yet" says when to ask again. */
void test_susp_query_paced(void **state)
{
	struct qx x;
	struct nand_suspend_query q;
	uint64_t again = 0, want[QOS_SUSP_REASONS] = { 0 };

	(void)state;
	qx_init(&x);
	x.st.cfg.pace = true;
	assert_true(x.st.cfg.max_suspends == 8);
	/* The first is due at once; the second once the erase is 1/8 (1.25 ms) done. */
	q = erase_q(100 * US, 0);
	q.ask_again_ns = &again;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	q = erase_q(1 * MS, 1);
	q.now_ns = 7 * MS; /* the op's clock is its array time; the answer is in the engine's */
	q.ask_again_ns = &again;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_PACED]++;
	assert_int_equal(again, 7 * MS + 250 * US);
	q.elapsed_ns = 1250 * US;
	again = 0;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	assert_int_equal(again, 0);
	/* Late suspensions catch up at once: the 4th is due at 3/8, asked at 5 ms. */
	q = erase_q(5 * MS, 3);
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	/* Under heavy host load the budget is 2: the 2nd is due at half the op. */
	x.in.host_inflight = 65;
	q = erase_q(4 * MS, 1);
	q.ask_again_ns = &again;
	assert_false(ask(&x, &q));
	want[QOS_SUSP_PACED]++;
	assert_int_equal(again, q.now_ns + 1 * MS);
	q.elapsed_ns = 5 * MS;
	assert_true(ask(&x, &q));
	want[QOS_SUSP_GRANTED]++;
	x.in.host_inflight = 0;
	/* The other rules come first: nearly done is not "not yet". */
	q = erase_q(9500 * US, 7);
	assert_false(ask(&x, &q));
	want[QOS_SUSP_NEARLY_DONE]++;
	/* No place to say when (a caller without ask_again_ns): still "not yet". */
	q = erase_q(1 * MS, 1);
	assert_false(ask(&x, &q));
	want[QOS_SUSP_PACED]++;
	expect_counts(&x, want);
	assert_string_equal(qos_suspend_reason_name(QOS_SUSP_PACED), "paced");
}
