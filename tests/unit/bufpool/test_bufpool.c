/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for common/bufpool.c and the back-off of common/log.c:
 * buffers sized to the request and 4 KiB-aligned, the pool's cap on bytes
 * handed out plus kept (kept buffers given back to make room), a user's
 * cap (and the one buffer a user holding nothing always gets), waiters
 * served in FIFO order and never by a user over its cap, cancel, a
 * request that must not wait; the
 * accept back-off doubling to 1 s and reset only after a quiet second.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "blox_bufpool.h"
#include "blox_log.h"

#define KB 1024u
#define MS 1000000ull

struct waiter {
	struct blox_bufpool_wait w;
	int served; /* order of service, 0: not yet */
};

static int served_seq;

static void ready(struct blox_bufpool_wait *w)
{
	((struct waiter *)(void *)w)->served = ++served_seq;
}

static int get(struct blox_bufpool_user *u, struct waiter *x, size_t len)
{
	memset(x, 0, sizeof(*x));
	x->w.len = len;
	x->w.ready = ready;
	return blox_bufpool_get(u, &x->w);
}

static void put(struct blox_bufpool_user *u, struct waiter *x)
{
	blox_bufpool_put(u, &x->w);
}

static void sized_and_aligned(void **state)
{
	struct blox_bufpool p;
	struct blox_bufpool_user u;
	struct waiter a, b;

	(void)state;
	assert_int_equal(blox_bufpool_init(&p, 4096 * KB, 1024 * KB), 0);
	blox_bufpool_user_init(&u, &p, 0);
	assert_int_equal(get(&u, &a, 1), 0);
	assert_int_equal(a.w.len, 4 * KB);
	assert_int_equal((uintptr_t)a.w.buf % 4096, 0);
	assert_int_equal(get(&u, &b, 129 * KB), 0);
	assert_int_equal(b.w.len, 132 * KB);
	assert_int_equal((uintptr_t)b.w.buf % 4096, 0);
	memset(b.w.buf, 0xab, b.w.len);
	assert_int_equal(p.used, 136 * KB);
	assert_int_equal(u.held, 136 * KB);
	put(&u, &b);
	/* Kept for reuse: the same size comes back without a new allocation. */
	assert_int_equal(p.cached, 132 * KB);
	assert_int_equal(get(&u, &b, 130 * KB), 0);
	assert_int_equal(p.st.allocs, 2);
	put(&u, &a);
	put(&u, &b);
	assert_int_equal(p.used, 0);
	assert_int_equal(get(&u, &a, 8192 * KB), -E2BIG);
	blox_bufpool_fini(&p);
}

static void pool_cap_and_fifo(void **state)
{
	struct blox_bufpool p;
	struct blox_bufpool_user u1, u2;
	struct waiter a, b, c, d;

	(void)state;
	served_seq = 0;
	assert_int_equal(blox_bufpool_init(&p, 256 * KB, 256 * KB), 0);
	blox_bufpool_user_init(&u1, &p, 0);
	blox_bufpool_user_init(&u2, &p, 0);
	assert_int_equal(get(&u1, &a, 128 * KB), 0);
	assert_int_equal(get(&u1, &b, 128 * KB), 0);
	/* Full: both wait, in order; a small one behind a large one waits too. */
	assert_int_equal(get(&u2, &c, 192 * KB), -EAGAIN);
	assert_int_equal(get(&u2, &d, 4 * KB), -EAGAIN);
	assert_int_equal(p.st.pool_waits, 2);
	put(&u1, &a);
	assert_int_equal(c.served, 0); /* 128 KiB free, 192 needed */
	put(&u1, &b);
	/* Kept buffers are given back to make room: never over the cap. */
	assert_int_equal(c.served, 1);
	assert_int_equal(d.served, 2);
	assert_true(p.used + p.cached <= p.cap);
	assert_int_equal(u2.held, 196 * KB);
	put(&u2, &c);
	put(&u2, &d);
	assert_int_equal(p.used, 0);
	blox_bufpool_fini(&p);
}

static void user_cap(void **state)
{
	struct blox_bufpool p;
	struct blox_bufpool_user slow, other;
	struct waiter a, b, c, o;

	(void)state;
	served_seq = 0;
	assert_int_equal(blox_bufpool_init(&p, 1024 * KB, 256 * KB), 0);
	blox_bufpool_user_init(&slow, &p, 64 * KB);
	blox_bufpool_user_init(&other, &p, 64 * KB);
	/* Holding nothing, a user gets one buffer larger than its cap. */
	assert_int_equal(get(&slow, &a, 128 * KB), 0);
	/* Then it waits for its own cap, not the pool's... */
	assert_int_equal(get(&slow, &b, 4 * KB), -EAGAIN);
	assert_int_equal(get(&slow, &c, 4 * KB), -EAGAIN);
	assert_int_equal(p.st.user_waits, 2);
	/* ...and another user is not held up behind it. */
	assert_int_equal(get(&other, &o, 64 * KB), 0);
	assert_int_equal(slow.held, 128 * KB);
	put(&other, &o);
	assert_int_equal(b.served, 0);
	put(&slow, &a);
	assert_int_equal(b.served, 1);
	assert_int_equal(c.served, 2);
	assert_int_equal(slow.held, 8 * KB);
	put(&slow, &b);
	put(&slow, &c);
	blox_bufpool_fini(&p);
}

static void user_cap_counts_queued(void **state)
{
	struct blox_bufpool p;
	struct blox_bufpool_user u0, u;
	struct waiter z, a, b;

	(void)state;
	served_seq = 0;
	assert_int_equal(blox_bufpool_init(&p, 128 * KB, 128 * KB), 0);
	blox_bufpool_user_init(&u0, &p, 0);
	blox_bufpool_user_init(&u, &p, 64 * KB);
	assert_int_equal(get(&u0, &z, 128 * KB), 0);
	/* Both wait for the pool; the second also for the first's bytes. */
	assert_int_equal(get(&u, &a, 64 * KB), -EAGAIN);
	assert_int_equal(a.w.where, 2);
	assert_int_equal(get(&u, &b, 64 * KB), -EAGAIN);
	assert_int_equal(b.w.where, 1);
	put(&u0, &z);
	assert_int_equal(a.served, 1);
	assert_int_equal(b.served, 0); /* never over its cap */
	put(&u, &a);
	assert_int_equal(b.served, 2);
	put(&u, &b);
	blox_bufpool_fini(&p);
}

static void cancel(void **state)
{
	struct blox_bufpool p;
	struct blox_bufpool_user u1, u2;
	struct waiter a, b, c;

	(void)state;
	served_seq = 0;
	assert_int_equal(blox_bufpool_init(&p, 128 * KB, 128 * KB), 0);
	blox_bufpool_user_init(&u1, &p, 0);
	blox_bufpool_user_init(&u2, &p, 0);
	assert_int_equal(get(&u1, &a, 64 * KB), 0);
	assert_int_equal(get(&u1, &b, 128 * KB), -EAGAIN);
	assert_int_equal(get(&u2, &c, 64 * KB), -EAGAIN);
	/* The connection of the head goes: the one behind it fits now. */
	blox_bufpool_cancel(&b.w);
	assert_int_equal(b.served, 0);
	assert_int_equal(c.served, 1);
	assert_int_equal(u1.waiting, 0);
	put(&u1, &a);
	put(&u2, &c);
	assert_int_equal(p.used, 0);
	blox_bufpool_fini(&p);
}

static void no_wait(void **state)
{
	struct blox_bufpool p;
	struct blox_bufpool_user u;
	struct waiter a, b;

	(void)state;
	assert_int_equal(blox_bufpool_init(&p, 64 * KB, 64 * KB), 0);
	blox_bufpool_user_init(&u, &p, 0);
	assert_int_equal(get(&u, &a, 64 * KB), 0);
	memset(&b, 0, sizeof(b));
	b.w.len = 4 * KB;
	b.w.ready = ready;
	b.w.no_wait = true;
	/* Full: told so, and nothing waits. */
	assert_int_equal(blox_bufpool_get(&u, &b.w), -EAGAIN);
	assert_int_equal(b.w.where, 0);
	assert_int_equal(u.waiting, 0);
	put(&u, &a);
	assert_int_equal(b.served, 0);
	blox_bufpool_fini(&p);
}

static void backoff(void **state)
{
	struct blox_backoff b = { 0 };
	uint64_t t = 1000 * MS;
	const uint32_t want[] = { 100, 200, 400, 800, 1000, 1000 };

	(void)state;
	/* Errors right after each pause: 100 ms doubling to 1 s. */
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t ms = blox_backoff_next(&b, t);

		assert_int_equal(ms, want[i]);
		t += ms * MS + 5 * MS;
	}
	/* Half a second of quiet is not enough to start again... */
	t += 500 * MS;
	assert_int_equal(blox_backoff_next(&b, t), 1000);
	/* ...a second is. */
	t += 1000 * MS + 1000 * MS;
	assert_int_equal(blox_backoff_next(&b, t), 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(sized_and_aligned),
		cmocka_unit_test(pool_cap_and_fifo),
		cmocka_unit_test(user_cap),
		cmocka_unit_test(user_cap_counts_queued),
		cmocka_unit_test(cancel),
		cmocka_unit_test(no_wait),
		cmocka_unit_test(backoff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
