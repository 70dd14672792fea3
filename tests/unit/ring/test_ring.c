/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for common/blox_ring.h, the single-producer/single-consumer
 * ring under the reactors' message hand-off: init's arguments, full and
 * empty, FIFO order, wrap-around of the slots and of the 32-bit indices,
 * and two threads: ten million sequence numbers from a producer to a
 * consumer, strictly in order and none missing, and what the producer
 * wrote before a push seen by the consumer after its pop (the point of
 * the release/acquire pair; the TSan build checks it too).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "blox_ring.h"

/* Ring entries are pointers; a sequence number n travels as (void *)(n + 1), never NULL. */
static void *seq_ptr(uint64_t n)
{
	return (void *)(uintptr_t)(n + 1);
}

static uint64_t ptr_seq(void *p)
{
	return (uint64_t)(uintptr_t)p - 1;
}

static void init_arguments(void **state)
{
	static const uint32_t bad[] = { 0, 1, 3, 6, 100, 4095, 4097, (1u << 24) + 1,
					1u << 25, 3u << 20, UINT32_MAX };
	static const uint32_t good[] = { 2, 4, 4096, 1u << 24 };
	struct blox_ring r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(blox_ring_init(&r, bad[i]), -EINVAL);
		assert_null(r.slots);
		blox_ring_fini(&r); /* harmless after a failed init */
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(blox_ring_init(&r, good[i]), 0);
		assert_non_null(r.slots);
		assert_int_equal(r.mask, good[i] - 1);
		assert_true(blox_ring_empty(&r));
		assert_int_equal(blox_ring_count(&r), 0);
		assert_null(blox_ring_pop(&r));
		blox_ring_fini(&r);
		assert_null(r.slots);
	}
}

static void push_until_full(void **state)
{
	struct blox_ring r;

	(void)state;
	assert_int_equal(blox_ring_init(&r, 8), 0);
	for (uint64_t i = 0; i < 8; i++) {
		assert_int_equal(blox_ring_count(&r), i);
		assert_true(blox_ring_push(&r, seq_ptr(i)));
		assert_false(blox_ring_empty(&r));
	}
	assert_int_equal(blox_ring_count(&r), 8);
	/* Full: refused, nothing changed, again and again. */
	for (int i = 0; i < 3; i++) {
		assert_false(blox_ring_push(&r, seq_ptr(100)));
		assert_int_equal(blox_ring_count(&r), 8);
	}
	/* One popped: room for exactly one. */
	assert_int_equal(ptr_seq(blox_ring_pop(&r)), 0);
	assert_int_equal(blox_ring_count(&r), 7);
	assert_true(blox_ring_push(&r, seq_ptr(8)));
	assert_false(blox_ring_push(&r, seq_ptr(9)));
	for (uint64_t i = 1; i <= 8; i++)
		assert_int_equal(ptr_seq(blox_ring_pop(&r)), i);
	assert_true(blox_ring_empty(&r));
	assert_null(blox_ring_pop(&r));
	blox_ring_fini(&r);
}

static void fifo_order(void **state)
{
	struct blox_ring r;

	(void)state;
	assert_int_equal(blox_ring_init(&r, 1024), 0);
	for (uint64_t i = 0; i < 1024; i++)
		assert_true(blox_ring_push(&r, seq_ptr(i * 7)));
	for (uint64_t i = 0; i < 1024; i++) {
		assert_int_equal(blox_ring_count(&r), 1024 - i);
		assert_int_equal(ptr_seq(blox_ring_pop(&r)), i * 7);
	}
	assert_true(blox_ring_empty(&r));
	assert_int_equal(blox_ring_count(&r), 0);
	assert_null(blox_ring_pop(&r));
	blox_ring_fini(&r);
}

/*
 * Fill and drain by varying amounts, cycle after cycle, from @start (the
 * indices' starting value): order and count hold across every wrap of
 * the slots and, started near UINT32_MAX, across the indices' own wrap.
 */
static void cycles_from(uint32_t start)
{
	struct blox_ring r;
	uint64_t in = 0, out = 0;

	assert_int_equal(blox_ring_init(&r, 16), 0);
	r.head = r.tail = start;
	for (unsigned c = 0; c < 5000; c++) {
		unsigned put = 1 + c % 16, take = 1 + (c * 7) % 16;

		for (unsigned i = 0; i < put; i++) {
			bool ok = blox_ring_push(&r, seq_ptr(in));

			assert_int_equal(ok, in - out < 16);
			if (ok)
				in++;
		}
		assert_int_equal(blox_ring_count(&r), in - out);
		for (unsigned i = 0; i < take; i++) {
			void *p = blox_ring_pop(&r);

			if (out == in) {
				assert_null(p);
				continue;
			}
			assert_int_equal(ptr_seq(p), out);
			out++;
		}
		assert_int_equal(blox_ring_count(&r), in - out);
		assert_int_equal(blox_ring_empty(&r), in == out);
	}
	while (out < in)
		assert_int_equal(ptr_seq(blox_ring_pop(&r)), out++);
	assert_true(blox_ring_empty(&r));
	/* Thousands of items went through 16 slots. */
	assert_true(in > 10000);
	blox_ring_fini(&r);
}

static void wrap_around(void **state)
{
	(void)state;
	cycles_from(0);
	cycles_from(UINT32_MAX - 40);
}

#define SEQ_TOTAL 10000000ull

struct seq_run {
	struct blox_ring r;
	uint64_t total;
	uint64_t full; /* pushes refused: the producer ran ahead */
};

static void *seq_producer(void *arg)
{
	struct seq_run *s = arg;

	for (uint64_t i = 0; i < s->total; i++) {
		while (!blox_ring_push(&s->r, seq_ptr(i))) {
			s->full++;
			sched_yield();
		}
	}
	return NULL;
}

static void two_threads_order(void **state)
{
	struct seq_run s = { .total = SEQ_TOTAL };
	pthread_t th;
	uint64_t next = 0, bad = 0;

	(void)state;
	/* A small ring, so that it is full and empty often. */
	assert_int_equal(blox_ring_init(&s.r, 256), 0);
	assert_int_equal(pthread_create(&th, NULL, seq_producer, &s), 0);
	while (next < s.total) {
		void *p = blox_ring_pop(&s.r);

		if (!p) {
			sched_yield();
			continue;
		}
		/* Count, not assert: the producer must be joined first. */
		if (ptr_seq(p) != next)
			bad++;
		next++;
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(bad, 0);
	assert_int_equal(next, SEQ_TOTAL);
	assert_true(blox_ring_empty(&s.r));
	assert_null(blox_ring_pop(&s.r));
	print_message("%llu pushes found the ring full\n", (unsigned long long)s.full);
	blox_ring_fini(&s.r);
}

/* A payload written by the producer before it pushes a pointer to it. */
struct payload {
	uint64_t seq;
	uint64_t check;
};

#define PAYLOADS 1000000u

struct payload_run {
	struct blox_ring r;
	struct payload *p;
};

static void *payload_producer(void *arg)
{
	struct payload_run *s = arg;

	for (uint64_t i = 0; i < PAYLOADS; i++) {
		s->p[i].seq = i;
		s->p[i].check = i * 2654435761u + 1;
		while (!blox_ring_push(&s->r, &s->p[i]))
			sched_yield();
	}
	return NULL;
}

static void two_threads_payload(void **state)
{
	struct payload_run s;
	pthread_t th;
	uint64_t next = 0, bad = 0;

	(void)state;
	s.p = calloc(PAYLOADS, sizeof(*s.p));
	assert_non_null(s.p);
	assert_int_equal(blox_ring_init(&s.r, 64), 0);
	assert_int_equal(pthread_create(&th, NULL, payload_producer, &s), 0);
	while (next < PAYLOADS) {
		struct payload *p = blox_ring_pop(&s.r);

		if (!p) {
			sched_yield();
			continue;
		}
		if (p != &s.p[next] || p->seq != next || p->check != next * 2654435761u + 1)
			bad++;
		next++;
	}
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(bad, 0);
	blox_ring_fini(&s.r);
	free(s.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(init_arguments),
		cmocka_unit_test(push_until_full),
		cmocka_unit_test(fifo_order),
		cmocka_unit_test(wrap_around),
		cmocka_unit_test(two_threads_order),
		cmocka_unit_test(two_threads_payload),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
