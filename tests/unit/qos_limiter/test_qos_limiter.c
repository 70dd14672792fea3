/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qos/limiter.c: token buckets in virtual time. Refill, burst, the
 * earliest-time answer, reads and writes apart and together, bytes,
 * commands larger than a bucket, limits changed live, and a saturating
 * loop that stays within 2% of its limit over 10 s at any depth.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "qos.h"

#define MS 1000000ull
#define S 1000000000ull

static void test_unlimited(void **state)
{
	struct qos_limiter l;
	struct qos_limits lim = { 0 };

	(void)state;
	qos_limiter_init(&l, &lim, 0);
	assert_true(qos_limiter_unlimited(&l));
	for (int i = 0; i < 100000; i++)
		assert_int_equal(qos_limiter_admit(&l, QOS_WRITE, 1 << 20, 5), 0);
	assert_int_equal(l.admitted[QOS_WRITE], 100000);
}

/* 1000 IOPS, 100 ms burst: 100 at once, then one per ms. */
static void test_iops_burst_then_rate(void **state)
{
	struct qos_limiter l;
	struct qos_limits lim = { .iops = 1000, .burst_ms = 100 };
	uint64_t t;

	(void)state;
	qos_limiter_init(&l, &lim, 0);
	assert_false(qos_limiter_unlimited(&l));
	for (int i = 0; i < 100; i++)
		assert_int_equal(qos_limiter_admit(&l, QOS_READ, 4096, 0), 0);
	t = qos_limiter_admit(&l, QOS_READ, 4096, 0);
	assert_int_equal(t, 1 * MS);
	assert_int_equal(l.held[QOS_READ], 1);
	/* Not before its time; at it, yes. */
	assert_int_not_equal(qos_limiter_admit(&l, QOS_READ, 4096, t - 1), 0);
	assert_int_equal(qos_limiter_admit(&l, QOS_READ, 4096, t), 0);
	/* A long idle refills the burst only. */
	for (int i = 0; i < 100; i++)
		assert_int_equal(qos_limiter_admit(&l, QOS_WRITE, 4096, 50 * S), 0);
	assert_int_not_equal(qos_limiter_admit(&l, QOS_WRITE, 4096, 50 * S), 0);
}

/* A caller that asks again exactly when told, with @depth commands always waiting. */
static uint64_t saturate(struct qos_limiter *l, enum qos_dir dir, uint64_t bytes, int depth,
			 uint64_t until)
{
	uint64_t now = 0, done = 0;

	while (now < until) {
		uint64_t next = 0;

		for (int k = 0; k < depth && !next; k++) {
			next = qos_limiter_admit(l, dir, bytes, now);
			if (!next)
				done++;
		}
		/* All @depth went: the next batch comes 10 us later (a fast device). */
		now = next ? next : now + 10000;
	}
	return done;
}

static void test_rate_holds_at_any_depth(void **state)
{
	static const int depths[] = { 1, 4, 32, 256 };
	struct qos_limits lim = { .write_iops = 5000 };

	(void)state;
	for (size_t i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
		struct qos_limiter l;
		uint64_t n;

		qos_limiter_init(&l, &lim, 0);
		n = saturate(&l, QOS_WRITE, 4096, depths[i], 10 * S);
		/* 10 s at 5000/s plus the burst (500). */
		if (n < 50000 * 98 / 100 || n > 50500 * 102 / 100)
			fail_msg("depth %d: %lu commands in 10 s at 5000 IOPS", depths[i],
				 (unsigned long)n);
		/* Always asked: the bucket was never full after the start. */
		assert_int_equal(qos_limiter_full_ns(&l), 0);
	}
}

static void test_bytes_and_directions(void **state)
{
	struct qos_limiter l;
	struct qos_limits lim = { .read_bps = 1000000, .iops = 1000000 };
	uint64_t n;

	(void)state;
	qos_limiter_init(&l, &lim, 0);
	/* 1 MB/s of 100 kB reads: 10 per second (+1 burst of 100 kB). */
	n = saturate(&l, QOS_READ, 100000, 8, 10 * S);
	assert_in_range(n, 100, 102);
	/* Writes are not held by the read limit. */
	assert_int_equal(qos_limiter_admit(&l, QOS_WRITE, 100000, 10 * S), 0);
	/* Flush and trim move no bytes: only the combined IOPS limit counts. */
	assert_int_equal(qos_limiter_admit(&l, QOS_OTHER, 1u << 30, 10 * S), 0);
}

/* The combined limit holds reads and writes together. */
static void test_combined(void **state)
{
	struct qos_limiter l;
	struct qos_limits lim = { .iops = 100, .burst_ms = 10 };
	uint64_t now = 0, got[2] = { 0, 0 };

	(void)state;
	qos_limiter_init(&l, &lim, 0);
	while (now < 10 * S) {
		enum qos_dir d = (got[0] + got[1]) % 2 ? QOS_WRITE : QOS_READ;
		uint64_t next = qos_limiter_admit(&l, d, 4096, now);

		if (next)
			now = next;
		else
			got[d]++;
	}
	assert_in_range(got[0] + got[1], 1000, 1002);
	assert_in_range(got[0], 500, 501);
}

/*
 * The time a bucket spends full is what its limit allowed and nobody used:
 * counted from the moment it fills, whether it is asked then or later, and
 * only for buckets with a limit.
 */
static void test_full_time(void **state)
{
	struct qos_limiter l;
	struct qos_limits lim = { .read_iops = 1000, .burst_ms = 100 }; /* 100 tokens */

	(void)state;
	qos_limiter_init(&l, &lim, 0);
	/* Full from the start. */
	qos_limiter_sync(&l, 50 * MS);
	assert_int_equal(qos_limiter_full_ns(&l), 50 * MS);
	assert_int_equal(l.b[QOS_B_READ_IOPS].full_ns, 50 * MS);
	/* Emptied, then refilled in exactly 100 ms: not full before 150 ms. */
	for (int i = 0; i < 100; i++)
		assert_int_equal(qos_limiter_admit(&l, QOS_READ, 4096, 50 * MS), 0);
	qos_limiter_sync(&l, 149 * MS);
	assert_int_equal(qos_limiter_full_ns(&l), 50 * MS);
	qos_limiter_sync(&l, 150 * MS);
	assert_int_equal(qos_limiter_full_ns(&l), 50 * MS);
	/* One token taken at 200 ms is back at 201 ms; asked next at 250 ms. */
	assert_int_equal(qos_limiter_admit(&l, QOS_READ, 4096, 200 * MS), 0);
	assert_int_equal(qos_limiter_full_ns(&l), 100 * MS);
	assert_int_equal(qos_limiter_admit(&l, QOS_READ, 4096, 250 * MS), 0);
	assert_int_equal(qos_limiter_full_ns(&l), 149 * MS);
	/* Writes have no limit: their bucket never counts. */
	assert_int_equal(l.b[QOS_B_WRITE_IOPS].full_ns, 0);
	/* Asking again at an earlier time changes nothing. */
	qos_limiter_sync(&l, 240 * MS);
	assert_int_equal(qos_limiter_full_ns(&l), 149 * MS);
	/* Kept across a live change; a new limit starts full and counts from then. */
	lim.write_iops = 10;
	qos_limiter_set(&l, &lim, 300 * MS);
	assert_int_equal(qos_limiter_full_ns(&l), 198 * MS);
	qos_limiter_sync(&l, 400 * MS);
	assert_int_equal(l.b[QOS_B_WRITE_IOPS].full_ns, 100 * MS);
	assert_int_equal(qos_limiter_full_ns(&l), 398 * MS);
}

/* A command larger than the bucket waits for a full bucket, then the rate still holds. */
static void test_oversized(void **state)
{
	struct qos_limiter l;
	struct qos_limits lim = { .bps = 1000, .burst_ms = 100 }; /* a 100-byte bucket */
	uint64_t t;

	(void)state;
	qos_limiter_init(&l, &lim, 0);
	assert_int_equal(qos_limiter_admit(&l, QOS_WRITE, 4096, 0), 0);
	/* 4096 bytes taken from a 100-byte bucket: a 1-byte command waits for 3997 bytes of refill. */
	t = qos_limiter_admit(&l, QOS_WRITE, 1, 0);
	assert_in_range(t, 3997 * MS - 1, 3997 * MS + 1);
	/* Another oversized one waits for a full bucket: 4096 - 100 + 100 bytes of refill. */
	t = qos_limiter_admit(&l, QOS_WRITE, 4096, 0);
	assert_in_range(t, 4096 * MS - 1, 4096 * MS + 1);
}

/* Live changes: lower clips the level at once, higher takes effect at once. */
static void test_live_change(void **state)
{
	struct qos_limiter l;
	struct qos_limits lim = { .iops = 1000, .burst_ms = 100 };
	uint64_t n;

	(void)state;
	qos_limiter_init(&l, &lim, 0);
	lim.iops = 10; /* a 1-token bucket now */
	qos_limiter_set(&l, &lim, 0);
	assert_int_equal(qos_limiter_admit(&l, QOS_READ, 4096, 0), 0);
	assert_int_equal(qos_limiter_admit(&l, QOS_READ, 4096, 0), 100 * MS);
	lim.iops = 0; /* unlimited again */
	qos_limiter_set(&l, &lim, 1);
	assert_true(qos_limiter_unlimited(&l));
	assert_int_equal(qos_limiter_admit(&l, QOS_READ, 4096, 1), 0);
	/* A limit added live starts full. */
	lim.read_iops = 2000;
	qos_limiter_set(&l, &lim, 5 * S);
	n = 0;
	while (!qos_limiter_admit(&l, QOS_READ, 4096, 5 * S))
		n++;
	assert_int_equal(n, 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlimited),
		cmocka_unit_test(test_iops_burst_then_rate),
		cmocka_unit_test(test_rate_holds_at_any_depth),
		cmocka_unit_test(test_bytes_and_directions),
		cmocka_unit_test(test_combined),
		cmocka_unit_test(test_oversized),
		cmocka_unit_test(test_full_time),
		cmocka_unit_test(test_live_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
