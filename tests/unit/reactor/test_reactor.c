/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for daemon/reactor (reactor.h) on real threads: reactor 0 is
 * this test's thread and a libevent base it runs until what it waits for
 * has come, reactors 1..n-1 are the module's threads. Checked: create's
 * arguments; create, start, stop and destroy for 1, 2, 4 and 16 reactors;
 * every message runs on its receiver's thread, in the order sent per pair
 * (0 to k and k to 0, 100k each way; all-to-all among 4, every send from
 * the sender's own thread); ping-pong chains; more messages in flight to
 * one reactor than its ring holds, from a sender that does not yield,
 * and each sent on again as it runs; a reactor's messages to itself,
 * which run later, never inside the send; thousands of rounds in which
 * the receiver sleeps in epoll before each message (a lost wake-up hangs
 * one); and a stop that runs every message sent before it.
 *
 * Message functions run on other threads, where cmocka's asserts must not
 * jump: they count failures (struct rt's bad, the first one's text in
 * why) and the test's thread asserts on the count. Waits give up after a
 * minute so that a lost message fails the test instead of hanging it; no
 * check is on how long anything took.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>
#include <event2/event.h>

#include "blox_clock.h"
#include "blox_log.h"
#include "blox_util.h"
#include "reactor.h"

/* A wait on other threads fails after this long instead of hanging. */
#define WAIT_NS (60ull * 1000000000ull)
/* More than a ring holds (BLOX_REACTOR_RING), by a few. */
#define OVER_RING (3u * BLOX_REACTOR_RING + 17u)

/* One test's reactors and what their messages found. */
struct rt {
	struct event_base *base0;
	struct event *tick; /* wakes reactor 0's loop to look at the time */
	struct blox_clock clk;
	struct blox_log log;
	struct blox_reactors *rs;
	unsigned n;
	pthread_t tid[BLOX_REACTORS_MAX]; /* each reactor's thread */
	/* [from][to]: the sequence number @to expects next from @from; on @to's thread only. */
	uint64_t next[BLOX_REACTORS_MAX][BLOX_REACTORS_MAX];
	uint64_t got; /* messages checked (atomic) */
	uint64_t ready; /* reactors that told their thread (atomic) */
	uint64_t gate; /* 1: a receiver held at a gate may go on (atomic) */
	uint32_t bad; /* failed checks (atomic) */
	uint32_t why_set; /* 1: why holds the first failure (atomic) */
	char why[200];
};

/* A message, in an array of them or alone. */
struct tmsg {
	struct blox_msg m;
	struct rt *rt;
	unsigned from, to;
	uint64_t seq;
	unsigned rounds; /* ping-pong */
	unsigned delay_us; /* no lost wake-ups: the receiver sleeps this long first */
	void (*then)(struct blox_msg *m); /* what a gate message runs once open */
	void *ctx; /* what a starting message starts */
};

static struct tmsg *tmsg_of(struct blox_msg *m)
{
	return container_of(m, struct tmsg, m);
}

static struct blox_reactor *reactor(struct rt *rt, unsigned k)
{
	return blox_reactor_at(rt->rs, k);
}

__attribute__((format(printf, 2, 3))) static void note_bad(struct rt *rt, const char *fmt, ...)
{
	va_list ap;

	if (__atomic_fetch_add(&rt->bad, 1, __ATOMIC_RELAXED))
		return;
	va_start(ap, fmt);
	vsnprintf(rt->why, sizeof(rt->why), fmt, ap);
	va_end(ap);
	__atomic_store_n(&rt->why_set, 1, __ATOMIC_RELEASE);
}

static void expect_clean(struct rt *rt)
{
	uint32_t bad = __atomic_load_n(&rt->bad, __ATOMIC_ACQUIRE);

	if (bad)
		fail_msg("%u failed checks, the first: %s", bad,
			 __atomic_load_n(&rt->why_set, __ATOMIC_ACQUIRE) ? rt->why : "(being written)");
}

static bool on_thread(struct rt *rt, unsigned k)
{
	return pthread_equal(pthread_self(), rt->tid[k]);
}

/* From @from's thread: @t to @to, numbered @seq, to run @fn there. */
static void send_msg(struct rt *rt, struct tmsg *t, unsigned from, unsigned to, uint64_t seq,
		     void (*fn)(struct blox_msg *m))
{
	t->rt = rt;
	t->from = from;
	t->to = to;
	t->seq = seq;
	t->m.fn = fn;
	blox_reactor_send(reactor(rt, from), reactor(rt, to), &t->m);
}

/* On the receiver: its own thread, and the next number from its sender. */
static void check(struct tmsg *t)
{
	struct rt *rt = t->rt;
	uint64_t *next = &rt->next[t->from][t->to];

	if (!on_thread(rt, t->to))
		note_bad(rt, "%u->%u #%llu ran on another thread", t->from, t->to,
		     (unsigned long long)t->seq);
	if (t->seq != *next)
		note_bad(rt, "%u->%u: #%llu came where #%llu was next", t->from, t->to,
		     (unsigned long long)t->seq, (unsigned long long)*next);
	*next = t->seq + 1;
	__atomic_fetch_add(&rt->got, 1, __ATOMIC_RELEASE);
}

static void check_fn(struct blox_msg *m)
{
	check(tmsg_of(m));
}

/* Checked on the receiver, then sent straight back with the same number. */
static void echo_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);

	check(t);
	send_msg(t->rt, t, t->to, t->from, t->seq, check_fn);
}

/* Holds its receiver until the sender opens the gate, then runs its then. */
static void gate_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);
	struct rt *rt = t->rt;
	uint64_t end = blox_clock_now(&rt->clk) + WAIT_NS;

	while (!__atomic_load_n(&rt->gate, __ATOMIC_ACQUIRE)) {
		if (blox_clock_now(&rt->clk) > end) {
			note_bad(rt, "the gate stayed shut");
			break;
		}
		sched_yield();
	}
	t->then(m);
}

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

/*
 * Run reactor 0's loop (this thread's) until the atomic counter @ctr
 * reaches @want; false if it has not after WAIT_NS. The tick only makes
 * the loop come back to look at the clock: messages to reactor 0 run
 * when its eventfd is signalled, so a lost wake-up still hangs the wait.
 */
static bool run_until(struct rt *rt, const uint64_t *ctr, uint64_t want)
{
	uint64_t end = blox_clock_now(&rt->clk) + WAIT_NS;

	while (__atomic_load_n(ctr, __ATOMIC_ACQUIRE) < want) {
		if (blox_clock_now(&rt->clk) > end) {
			print_error("waited for %llu, have %llu\n", (unsigned long long)want,
				    (unsigned long long)__atomic_load_n(ctr, __ATOMIC_ACQUIRE));
			return false;
		}
		event_base_loop(rt->base0, EVLOOP_ONCE);
	}
	return true;
}

/* On reactor k: note its thread. */
static void whoami_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);

	t->rt->tid[t->to] = pthread_self();
	__atomic_fetch_add(&t->rt->ready, 1, __ATOMIC_RELEASE);
}

/* @n reactors started, each one's thread known. */
static struct rt *rt_new(unsigned n, unsigned poll_us)
{
	struct rt *rt = calloc(1, sizeof(*rt));
	struct tmsg who[BLOX_REACTORS_MAX];
	struct timeval tv = { 0, 10000 };

	assert_non_null(rt);
	rt->n = n;
	blox_clock_init_real(&rt->clk);
	rt->log.level = BLOX_LOG_ERR;
	rt->base0 = event_base_new();
	assert_non_null(rt->base0);
	rt->tick = event_new(rt->base0, -1, EV_PERSIST, tick_cb, NULL);
	assert_non_null(rt->tick);
	assert_int_equal(event_add(rt->tick, &tv), 0);
	assert_int_equal(blox_reactors_create(rt->base0, n, poll_us, &rt->clk, &rt->log, &rt->rs),
			 0);
	assert_int_equal(blox_reactors_count(rt->rs), n);
	for (unsigned k = 0; k < n; k++) {
		struct blox_reactor *r = reactor(rt, k);

		assert_non_null(r);
		assert_int_equal(blox_reactor_id(r), k);
		assert_ptr_equal(blox_reactor_set(r), rt->rs);
		if (k == 0)
			assert_ptr_equal(blox_reactor_base(r), rt->base0);
		else
			assert_true(blox_reactor_base(r) && blox_reactor_base(r) != rt->base0);
	}
	assert_null(reactor(rt, n));
	assert_int_equal(blox_reactors_start(rt->rs), 0);
	rt->tid[0] = pthread_self();
	for (unsigned k = 1; k < n; k++)
		send_msg(rt, &who[k], 0, k, 0, whoami_fn);
	assert_true(run_until(rt, &rt->ready, n - 1));
	for (unsigned k = 0; k < n; k++)
		for (unsigned j = 0; j < k; j++)
			assert_false(pthread_equal(rt->tid[j], rt->tid[k]));
	return rt;
}

static void rt_free(struct rt *rt)
{
	blox_reactors_stop(rt->rs);
	blox_reactors_destroy(rt->rs);
	event_free(rt->tick);
	event_base_free(rt->base0);
	free(rt);
}

static struct blox_reactor_stats stats_of(struct rt *rt, unsigned k)
{
	struct blox_reactor_stats st;

	blox_reactor_stats(reactor(rt, k), &st);
	return st;
}

/* @count messages from one reactor to @dest, numbered from 0. */
struct burst {
	struct tmsg *msgs;
	uint64_t count;
	unsigned dest;
	void (*fn)(struct blox_msg *m);
	bool gate; /* the first holds @dest until all are sent */
};

/* On reactor @from's thread: the whole burst, without yielding. */
static void burst_run(struct rt *rt, struct burst *b, unsigned from)
{
	if (b->gate)
		b->msgs[0].then = b->fn;
	for (uint64_t i = 0; i < b->count; i++)
		send_msg(rt, &b->msgs[i], from, b->dest, i, b->gate && i == 0 ? gate_fn : b->fn);
	if (b->gate)
		__atomic_store_n(&rt->gate, 1, __ATOMIC_RELEASE);
}

/* A starting message: its receiver sends the burst in ctx. */
static void burst_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);

	burst_run(t->rt, t->ctx, t->to);
}

static struct tmsg *msgs_new(size_t count)
{
	struct tmsg *m = calloc(count, sizeof(*m));

	assert_non_null(m);
	return m;
}

static void create_arguments(void **state)
{
	struct event_base *base = event_base_new();
	struct blox_clock clk;
	struct blox_log log = { .level = BLOX_LOG_ERR };
	struct blox_reactors *rs = NULL;

	(void)state;
	assert_non_null(base);
	blox_clock_init_real(&clk);
	assert_int_equal(blox_reactors_create(base, 0, 0, &clk, &log, &rs), -EINVAL);
	assert_int_equal(blox_reactors_create(base, BLOX_REACTORS_MAX + 1, 0, &clk, &log, &rs),
			 -EINVAL);
	assert_int_equal(blox_reactors_create(NULL, 1, 0, &clk, &log, &rs), -EINVAL);
	assert_null(rs);
	/* Created and never started: destroyed as it is. */
	assert_int_equal(blox_reactors_create(base, BLOX_REACTORS_MAX, 0, &clk, &log, &rs), 0);
	blox_reactors_destroy(rs);
	blox_reactors_destroy(NULL);
	event_base_free(base);
}

/* Started, one message to each reactor and back, stopped (twice), destroyed. */
static void lifecycle(void **state)
{
	static const unsigned ns[] = { 1, 2, 4, BLOX_REACTORS_MAX };

	(void)state;
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(ns); i++) {
		unsigned n = ns[i];
		struct rt *rt = rt_new(n, 0);
		struct tmsg t[BLOX_REACTORS_MAX];

		for (unsigned k = 1; k < n; k++)
			send_msg(rt, &t[k], 0, k, 0, echo_fn);
		assert_true(run_until(rt, &rt->got, 2 * (n - 1)));
		expect_clean(rt);
		blox_reactors_stop(rt->rs);
		for (unsigned k = 1; k < n; k++) {
			/* whoami, the message, the stop. */
			assert_int_equal(stats_of(rt, k).msgs_in, 3);
			assert_int_equal(rt->next[0][k], 1);
			assert_int_equal(rt->next[k][0], 1);
		}
		rt_free(rt);
	}
}

#define ONE_WAY 100000u

/* 100k messages from 0 to each k and from each k to 0, at once. */
static void one_way(void **state)
{
	enum { N = 3 };
	struct rt *rt = rt_new(N, 0);
	struct burst out[N], in[N];
	struct tmsg start[N];

	(void)state;
	for (unsigned k = 1; k < N; k++) {
		in[k] = (struct burst){ msgs_new(ONE_WAY), ONE_WAY, 0, check_fn, false };
		start[k].ctx = &in[k];
		send_msg(rt, &start[k], 0, k, 0, burst_fn);
	}
	for (unsigned k = 1; k < N; k++) {
		out[k] = (struct burst){ msgs_new(ONE_WAY), ONE_WAY, k, check_fn, false };
		burst_run(rt, &out[k], 0);
	}
	assert_true(run_until(rt, &rt->got, 2ull * (N - 1) * ONE_WAY));
	expect_clean(rt);
	/* After the stop (the threads joined), their side is ours to read. */
	blox_reactors_stop(rt->rs);
	for (unsigned k = 1; k < N; k++) {
		assert_int_equal(rt->next[k][0], ONE_WAY);
		assert_int_equal(rt->next[0][k], ONE_WAY);
		free(in[k].msgs);
		free(out[k].msgs);
	}
	rt_free(rt);
}

#define CHAINS 16
#define ROUNDS 1000

static void ping_fn(struct blox_msg *m);

/* On k: straight back to 0. */
static void pong_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);

	if (!on_thread(t->rt, t->to))
		note_bad(t->rt, "pong on another thread than %u's", t->to);
	send_msg(t->rt, t, t->to, 0, 0, ping_fn);
}

/* On 0: another round to the same k, or the chain is done. */
static void ping_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);

	if (!on_thread(t->rt, 0))
		note_bad(t->rt, "ping on another thread than 0's");
	if (++t->rounds < ROUNDS)
		send_msg(t->rt, t, 0, t->from, 0, pong_fn);
	else
		__atomic_fetch_add(&t->rt->got, 1, __ATOMIC_RELEASE);
}

/*
 * CHAINS messages per k, each bounced 0 -> k -> 0 ROUNDS times; the state
 * is the threads' poll budget (with one they poll their rings after work).
 */
static void ping_pong(void **state)
{
	enum { N = 4 };
	struct rt *rt = rt_new(N, *(unsigned *)*state);
	struct tmsg *t = msgs_new((N - 1) * CHAINS);

	for (unsigned k = 1; k < N; k++)
		for (unsigned c = 0; c < CHAINS; c++)
			send_msg(rt, &t[(k - 1) * CHAINS + c], 0, k, 0, pong_fn);
	assert_true(run_until(rt, &rt->got, (N - 1) * CHAINS));
	expect_clean(rt);
	for (unsigned i = 0; i < (N - 1) * CHAINS; i++)
		assert_int_equal(t[i].rounds, ROUNDS);
	rt_free(rt);
	free(t);
}

/* On 1: checked, then sent on to the next reactor (0 again when n = 2). */
static void onward_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);

	check(t);
	send_msg(t->rt, t, 1, 2 % t->rt->n, t->seq, check_fn);
}

/*
 * More than a ring holds, sent by 0 to 1 without yielding, and each one
 * sent on by 1 as it runs (the state: to 0 with 2 reactors, to 2 with 3):
 * a message is sent again while its first sender may still be moving its
 * wait list into the ring. Reactor 1 polls its rings in the odd rounds,
 * and in the last two is held at a gate until all are sent, so that 0
 * moves the last of them into the ring while 1 is busy (not signalled).
 */
static void resend_over_ring(void **state)
{
	unsigned n = *(unsigned *)*state;

	for (unsigned round = 0; round < 4; round++) {
		struct rt *rt = rt_new(n, round % 2 ? 2000 : 0);
		struct burst b = { msgs_new(OVER_RING), OVER_RING, 1, onward_fn, round >= 2 };

		burst_run(rt, &b, 0);
		assert_true(run_until(rt, &rt->got, 2ull * OVER_RING));
		expect_clean(rt);
		blox_reactors_stop(rt->rs);
		assert_int_equal(rt->next[0][1], OVER_RING);
		assert_int_equal(rt->next[1][2 % n], OVER_RING);
		rt_free(rt);
		free(b.msgs);
	}
}

#define A2A 20000u

struct a2a {
	struct tmsg *msgs; /* [from][to][A2A] */
	unsigned n;
};

/* On reactor i: A2A messages to every other reactor, interleaved. */
static void a2a_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);
	struct a2a *a = t->ctx;
	unsigned i = t->to, n = a->n;

	for (uint64_t s = 0; s < A2A; s++)
		for (unsigned j = 0; j < n; j++)
			if (j != i)
				send_msg(t->rt, &a->msgs[((size_t)i * n + j) * A2A + s], i, j, s,
					 check_fn);
}

/* Among 4 reactors, each sends to every other, each from its own thread. */
static void all_to_all(void **state)
{
	enum { N = 4 };
	struct rt *rt = rt_new(N, 0);
	struct a2a a = { msgs_new((size_t)N * N * A2A), N };
	struct tmsg start[N];

	(void)state;
	/* Reactor 0 starts too from a message (to itself), as the others do. */
	for (unsigned i = 0; i < N; i++) {
		start[i].ctx = &a;
		send_msg(rt, &start[i], 0, i, 0, a2a_fn);
	}
	assert_true(run_until(rt, &rt->got, (uint64_t)N * (N - 1) * A2A));
	expect_clean(rt);
	blox_reactors_stop(rt->rs);
	for (unsigned i = 0; i < N; i++)
		for (unsigned j = 0; j < N; j++)
			assert_int_equal(rt->next[i][j], i == j ? 0 : A2A);
	rt_free(rt);
	free(a.msgs);
}

/*
 * A receiver held at a gate while its sender, not yielding, sends more
 * than the ring holds: all but a ring's worth wait on the sender's side
 * (the deferred count), and all run, in order, once the gate opens.
 */
static void overflow(void **state)
{
	(void)state;
	/* 0 -> 1: this thread sends. */
	{
		struct rt *rt = rt_new(2, 0);
		struct burst b = { msgs_new(OVER_RING), OVER_RING, 1, check_fn, true };

		burst_run(rt, &b, 0);
		assert_true(run_until(rt, &rt->got, OVER_RING));
		expect_clean(rt);
		/* At most the gate message and a full ring went straight in. */
		assert_true(stats_of(rt, 0).deferred >= OVER_RING - BLOX_REACTOR_RING - 1);
		blox_reactors_stop(rt->rs);
		assert_int_equal(rt->next[0][1], OVER_RING);
		rt_free(rt);
		free(b.msgs);
	}
	/* 1 -> 0: reactor 1 sends from a message; 0 is held in its loop. */
	{
		struct rt *rt = rt_new(2, 0);
		struct burst b = { msgs_new(OVER_RING), OVER_RING, 0, check_fn, true };
		struct tmsg start = { .ctx = &b };

		send_msg(rt, &start, 0, 1, 0, burst_fn);
		assert_true(run_until(rt, &rt->got, OVER_RING));
		expect_clean(rt);
		assert_int_equal(rt->next[1][0], OVER_RING);
		assert_true(stats_of(rt, 1).deferred >= OVER_RING - BLOX_REACTOR_RING - 1);
		rt_free(rt);
		free(b.msgs);
	}
}

/* What a call found where it ran. */
struct call_probe {
	struct rt *rt;
	unsigned k; /* the reactor it was to run on */
	bool ran_there;
	uint64_t got_before; /* messages checked when it ran */
	unsigned runs;
};

static void probe_fn(void *arg)
{
	struct call_probe *p = arg;

	p->ran_there = on_thread(p->rt, p->k);
	p->got_before = __atomic_load_n(&p->rt->got, __ATOMIC_ACQUIRE);
	p->runs++;
}

/*
 * A call runs on its reactor, after every message sent there before it,
 * and returns once it has run, even behind more messages than the ring
 * holds (reactor 0's loop does not run while it waits, so nothing but the
 * call itself pushes them); a call to its own reactor runs at once.
 */
static void call_waits(void **state)
{
	struct rt *rt = rt_new(3, 0);
	struct tmsg *msgs = msgs_new(OVER_RING);
	struct call_probe p = { .rt = rt, .k = 1 };

	(void)state;
	for (uint64_t i = 0; i < OVER_RING; i++)
		send_msg(rt, &msgs[i], 0, 1, i, check_fn);
	blox_reactor_call(reactor(rt, 0), reactor(rt, 1), probe_fn, &p);
	assert_int_equal(p.runs, 1);
	assert_true(p.ran_there);
	assert_int_equal(p.got_before, OVER_RING);
	/* Written there, read here without another fence: the call ordered it. */
	assert_int_equal(rt->next[0][1], OVER_RING);
	/* Between two reactor threads' reactors, from this one: any pair. */
	p = (struct call_probe){ .rt = rt, .k = 2 };
	blox_reactor_call(reactor(rt, 0), reactor(rt, 2), probe_fn, &p);
	assert_true(p.ran_there && p.runs == 1);
	/* To itself: inline. */
	p = (struct call_probe){ .rt = rt, .k = 0 };
	blox_reactor_call(reactor(rt, 0), reactor(rt, 0), probe_fn, &p);
	assert_true(p.ran_there && p.runs == 1);
	p.runs = 0;
	blox_reactor_call(NULL, reactor(rt, 1), probe_fn, &p);
	assert_true(p.ran_there && p.runs == 1);
	expect_clean(rt);
	rt_free(rt);
	free(msgs);
}

#define SELF_STORM (2u * BLOX_REACTOR_RING + 5u)

/* On reactor k: more messages to itself than its ring holds; none runs inside its send. */
static void self_storm_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);
	struct tmsg *msgs = t->ctx;
	struct rt *rt = t->rt;
	unsigned k = t->to;

	for (uint64_t i = 0; i < SELF_STORM; i++) {
		send_msg(rt, &msgs[i], k, k, i, check_fn);
		if (rt->next[k][k])
			note_bad(rt, "reactor %u ran a message to itself inside the send", k);
	}
}

static void self_send(void **state)
{
	struct rt *rt = rt_new(2, 0);
	struct tmsg one, start[2];
	struct tmsg *storm[2] = { msgs_new(SELF_STORM), msgs_new(SELF_STORM) };

	(void)state;
	/* From reactor 0's thread outside its loop: runs in the loop, later. */
	send_msg(rt, &one, 0, 0, 0, check_fn);
	assert_int_equal(rt->next[0][0], 0);
	assert_true(run_until(rt, &rt->got, 1));
	assert_int_equal(rt->next[0][0], 1);
	/* From inside a message, on 0 and on 1: later, in order, none lost. */
	rt->next[0][0] = 0;
	for (unsigned k = 0; k < 2; k++) {
		start[k].ctx = storm[k];
		send_msg(rt, &start[k], 0, k, 0, self_storm_fn);
	}
	assert_true(run_until(rt, &rt->got, 1 + 2ull * SELF_STORM));
	expect_clean(rt);
	/* The ring filled while its only consumer was sending. */
	assert_true(stats_of(rt, 1).deferred >= SELF_STORM - BLOX_REACTOR_RING);
	blox_reactors_stop(rt->rs);
	assert_int_equal(rt->next[0][0], SELF_STORM);
	assert_int_equal(rt->next[1][1], SELF_STORM);
	rt_free(rt);
	free(storm[0]);
	free(storm[1]);
}

#define WAKE_ROUNDS 3000u

/* On k: sleeps (so that 0 falls asleep in epoll), then answers 0. */
static void wake_fn(struct blox_msg *m)
{
	struct tmsg *t = tmsg_of(m);

	check(t);
	if (t->delay_us)
		usleep(t->delay_us);
	send_msg(t->rt, t, t->to, 0, t->seq, check_fn);
}

/*
 * One message at a time, 0 -> k -> 0, with pauses on both sides so the
 * receiver has gone back to sleep in epoll (its eventfd armed) before the
 * message comes, or is just about to: a wake-up lost hangs the round.
 * The state is the threads' poll budget.
 */
static void no_lost_wakeups(void **state)
{
	enum { N = 4 };
	static const unsigned pause_us[] = { 0, 0, 5, 50, 300 };
	struct rt *rt = rt_new(N, *(unsigned *)*state);
	struct tmsg t[N];
	uint64_t wakeups = 0;

	for (uint64_t r = 0; r < WAKE_ROUNDS; r++) {
		unsigned k = 1 + r % (N - 1);
		unsigned nap = pause_us[(r / 3) % BLOX_ARRAY_SIZE(pause_us)];

		if (nap)
			usleep(nap);
		t[k].delay_us = pause_us[(r / 7) % BLOX_ARRAY_SIZE(pause_us)];
		send_msg(rt, &t[k], 0, k, r / (N - 1), wake_fn);
		assert_true(run_until(rt, &rt->got, 2 * (r + 1)));
	}
	expect_clean(rt);
	for (unsigned k = 0; k < N; k++)
		wakeups += stats_of(rt, k).wakeups;
	assert_true(wakeups > 0);
	rt_free(rt);
}

#define BEFORE_STOP (BLOX_REACTOR_RING + 1904u)

/*
 * Messages sent to every reactor, more than a ring holds, then at once
 * the stop: when it returns, every one of them has run, in order.
 */
static void stop_after_messages_with(unsigned n, unsigned poll_us)
{
	struct rt *rt = rt_new(n, poll_us);
	struct burst b[BLOX_REACTORS_MAX];

	for (unsigned k = 1; k < n; k++) {
		b[k] = (struct burst){ msgs_new(BEFORE_STOP), BEFORE_STOP, k, check_fn, false };
		burst_run(rt, &b[k], 0);
	}
	blox_reactors_stop(rt->rs);
	expect_clean(rt);
	for (unsigned k = 1; k < n; k++) {
		assert_int_equal(rt->next[0][k], BEFORE_STOP);
		/* whoami, the messages, the stop. */
		assert_int_equal(stats_of(rt, k).msgs_in, BEFORE_STOP + 2);
		free(b[k].msgs);
	}
	rt_free(rt);
}

static void stop_after_messages(void **state)
{
	(void)state;
	stop_after_messages_with(4, 0);
	stop_after_messages_with(2, 1000);
}

int main(void)
{
	/* Poll budgets (us) the threads run with; numbers of reactors. */
	static unsigned sleep_at_once = 0, poll_100 = 100, poll_200 = 200, two = 2, three = 3;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(create_arguments),
		cmocka_unit_test(lifecycle),
		cmocka_unit_test(one_way),
		cmocka_unit_test_prestate(ping_pong, &sleep_at_once),
		cmocka_unit_test_prestate(ping_pong, &poll_200),
		cmocka_unit_test_prestate(resend_over_ring, &two),
		cmocka_unit_test_prestate(resend_over_ring, &three),
		cmocka_unit_test(all_to_all),
		cmocka_unit_test(overflow),
		cmocka_unit_test(self_send),
		cmocka_unit_test(call_waits),
		cmocka_unit_test_prestate(no_lost_wakeups, &sleep_at_once),
		cmocka_unit_test_prestate(no_lost_wakeups, &poll_100),
		cmocka_unit_test(stop_after_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
