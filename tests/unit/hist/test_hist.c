/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the log-linear latency histogram (nand/hist.c): bucket
 * and bucket_low agree with each other for many values, buckets are
 * exact below 64 and at most 1/32 wide above, quantiles of known
 * distributions stay within 3.2% of the exact order statistic, merging
 * equals adding, and an empty histogram answers zeroes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "blox_hist.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, good enough for test data. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static double rnd01(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0; /* [0, 1) */
}

/*
 * ln and exp by series, so the test needs no libm (the unit-test link line
 * is shared by every module).
 */
static double ln(double x)
{
	const double ln2 = 0.69314718055994530942;
	double s, s2, term, sum = 0;
	int e = 0;

	while (x >= 2) {
		x /= 2;
		e++;
	}
	while (x < 1) {
		x *= 2;
		e--;
	}
	s = (x - 1) / (x + 1); /* ln x = 2 atanh(s), s <= 1/3 */
	s2 = s * s;
	term = s;
	for (int k = 1; k < 60; k += 2) {
		sum += term / k;
		term *= s2;
	}
	return e * ln2 + 2 * sum;
}

static double ex(double x)
{
	const double ln2 = 0.69314718055994530942;
	int k = (int)(x / ln2);
	double r = x - k * ln2, term = 1, sum = 1;

	for (int i = 1; i < 30; i++) {
		term *= r / i;
		sum += term;
	}
	for (; k > 0; k--)
		sum *= 2;
	for (; k < 0; k++)
		sum /= 2;
	return sum;
}

static double dabs(double x)
{
	return x < 0 ? -x : x;
}

/* Bucket of @v holds @v, and its neighbours do not. */
static void check_value(uint64_t v)
{
	uint32_t b = blox_hist_bucket(v);
	uint64_t lo = blox_hist_bucket_low(b);

	if (b >= BLOX_HIST_BUCKETS)
		fail_msg("bucket(%llu) = %u out of range", (unsigned long long)v, b);
	if (lo > v)
		fail_msg("low(bucket(%llu)) = %llu > v", (unsigned long long)v,
			 (unsigned long long)lo);
	if (b + 1 < BLOX_HIST_BUCKETS && blox_hist_bucket_low(b + 1) <= v)
		fail_msg("low(bucket(%llu) + 1) = %llu <= v", (unsigned long long)v,
			 (unsigned long long)blox_hist_bucket_low(b + 1));
}

/* 1. Exact below 64; bucket/low consistent everywhere. */
static void test_bucket_low(void **state)
{
	uint64_t prev_low = 0;

	(void)state;
	for (uint64_t v = 0; v < 64; v++) {
		assert_int_equal(blox_hist_bucket(v), v);
		assert_int_equal(blox_hist_bucket_low((uint32_t)v), v);
	}
	for (uint32_t i = 0; i < BLOX_HIST_BUCKETS; i++) {
		uint64_t lo = blox_hist_bucket_low(i);

		assert_int_equal(blox_hist_bucket(lo), i);
		if (i > 0 && lo <= prev_low)
			fail_msg("low(%u) = %llu not increasing", i, (unsigned long long)lo);
		if (i + 1 < BLOX_HIST_BUCKETS && lo >= 64) {
			uint64_t w = blox_hist_bucket_low(i + 1) - lo;

			/* At most 1/32 of the bucket's low edge wide. */
			if (w * 32 > lo)
				fail_msg("bucket %u [%llu, +%llu) too wide", i,
					 (unsigned long long)lo, (unsigned long long)w);
			assert_int_equal(blox_hist_bucket(lo + w - 1), i);
		}
		prev_low = lo;
	}
	for (uint64_t v = 0; v < (1u << 17); v++)
		check_value(v);
	for (int e = 0; e < 64; e++) {
		uint64_t p = 1ull << e;

		check_value(p);
		check_value(p - 1);
		check_value(p + 1);
		check_value(p | (p >> 1));
	}
	check_value(UINT64_MAX);
	assert_int_equal(blox_hist_bucket(UINT64_MAX), BLOX_HIST_BUCKETS - 1);
	for (int i = 0; i < 200000; i++)
		check_value(rnd() >> (rnd() & 63));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

#define NSAMP 200000

static uint64_t samples[NSAMP];
static struct blox_hist h, h2, h3;

/* Quantiles of @samples (sorted here) from a histogram within 3.2%. */
static void check_quantiles(const char *name)
{
	static const double qs[] = { 0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999 };
	uint64_t sum = 0;

	blox_hist_reset(&h);
	for (int i = 0; i < NSAMP; i++) {
		blox_hist_add(&h, samples[i]);
		sum += samples[i];
	}
	qsort(samples, NSAMP, sizeof(samples[0]), cmp_u64);
	assert_int_equal(h.count, NSAMP);
	assert_int_equal(h.sum, sum);
	assert_int_equal(h.min, samples[0]);
	assert_int_equal(h.max, samples[NSAMP - 1]);
	assert_true(dabs(blox_hist_mean(&h) - (double)sum / NSAMP) < 1e-6 * (double)sum / NSAMP);
	for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++) {
		uint64_t exact = samples[(size_t)(qs[i] * NSAMP)];
		uint64_t est = blox_hist_quantile(&h, qs[i]);
		double err = dabs((double)est - (double)exact) / (double)exact;

		if (err > 0.032)
			fail_msg("%s q%.3f: %llu, exact %llu (%.2f%%)", name, qs[i],
				 (unsigned long long)est, (unsigned long long)exact,
				 100 * err);
	}
	assert_int_equal(blox_hist_quantile(&h, 0), samples[0]);
	assert_int_equal(blox_hist_quantile(&h, 1), samples[NSAMP - 1]);
}

/* 2. Quantiles of uniform, exponential and log-normal samples. */
static void test_quantiles(void **state)
{
	(void)state;
	for (int i = 0; i < NSAMP; i++)
		samples[i] = 1000 + rnd() % 999001; /* uniform 1 us .. 1 ms */
	check_quantiles("uniform");
	for (int i = 0; i < NSAMP; i++)
		samples[i] = 1 + (uint64_t)(-100000.0 * ln(1.0 - rnd01()));
	check_quantiles("exponential");
	for (int i = 0; i < NSAMP; i++) {
		/* Median 65 us, sigma 1.5 in log space (z: sum of 12 uniforms). */
		double z = -6;

		for (int k = 0; k < 12; k++)
			z += rnd01();
		samples[i] = 1 + (uint64_t)(65000.0 * ex(1.5 * z));
	}
	check_quantiles("lognormal");
	for (int i = 0; i < NSAMP; i++)
		samples[i] = 64692 + (rnd() % 4) * 8692; /* a few discrete latencies */
	check_quantiles("discrete");
	for (int i = 0; i < NSAMP; i++)
		samples[i] = rnd() % 200; /* small values, some exact */
	for (int i = 0; i < NSAMP; i++)
		samples[i] += 1;
	check_quantiles("small");
}

/* 3. Small values are exact; one value answers every quantile. */
static void test_exact_small(void **state)
{
	(void)state;
	/* The series helpers themselves. */
	assert_true(dabs(ln(1e6) - 13.815510557964274) < 1e-9);
	assert_true(dabs(ln(0.5) + 0.69314718055994530942) < 1e-12);
	assert_true(dabs(ex(2.5) - 12.182493960703473) < 1e-9);
	assert_true(dabs(ex(-3) - 0.049787068367863944) < 1e-12);
	blox_hist_reset(&h);
	for (uint64_t v = 0; v < 50; v++)
		blox_hist_add(&h, v);
	assert_int_equal(blox_hist_quantile(&h, 0.5), 25);
	assert_int_equal(blox_hist_quantile(&h, 0.1), 5);
	assert_int_equal(blox_hist_quantile(&h, 0.98), 49);
	assert_int_equal(h.min, 0);
	assert_int_equal(h.max, 49);
	assert_true(blox_hist_mean(&h) == 24.5);

	blox_hist_reset(&h);
	blox_hist_add(&h, 123456789);
	assert_int_equal(blox_hist_quantile(&h, 0.001), 123456789);
	assert_int_equal(blox_hist_quantile(&h, 0.5), 123456789);
	assert_int_equal(blox_hist_quantile(&h, 0.999), 123456789);
	/* The top bucket stays clamped to max. */
	blox_hist_reset(&h);
	blox_hist_add(&h, UINT64_MAX - 5);
	assert_int_equal(blox_hist_quantile(&h, 0.5), UINT64_MAX - 5);
}

/* 4. Merging two halves equals adding everything to one. */
static void test_merge(void **state)
{
	(void)state;
	blox_hist_reset(&h);
	blox_hist_reset(&h2);
	blox_hist_reset(&h3);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = (rnd() >> (rnd() & 63)) + 10;

		blox_hist_add(&h, v);
		blox_hist_add(i & 1 ? &h2 : &h3, v);
	}
	blox_hist_merge(&h2, &h3);
	assert_int_equal(h2.count, h.count);
	assert_int_equal(h2.sum, h.sum);
	assert_int_equal(h2.min, h.min);
	assert_int_equal(h2.max, h.max);
	assert_memory_equal(h2.buckets, h.buckets, sizeof(h.buckets));
	assert_int_equal(blox_hist_quantile(&h2, 0.99), blox_hist_quantile(&h, 0.99));

	/* Into an empty histogram: min comes from the source, not 0. */
	blox_hist_reset(&h2);
	blox_hist_merge(&h2, &h);
	assert_memory_equal(&h2, &h, sizeof(h));
	/* An empty source changes nothing. */
	blox_hist_reset(&h3);
	blox_hist_merge(&h2, &h3);
	assert_memory_equal(&h2, &h, sizeof(h));
	/* A smaller minimum and a larger maximum come across. */
	blox_hist_reset(&h3);
	blox_hist_add(&h3, 3);
	blox_hist_add(&h3, UINT64_MAX);
	blox_hist_merge(&h2, &h3);
	assert_int_equal(h2.min, 3);
	assert_int_equal(h2.max, UINT64_MAX);
	assert_int_equal(h2.count, h.count + 2);
}

/* 5. Empty: zeroes everywhere. */
static void test_empty(void **state)
{
	(void)state;
	memset(&h, 0xab, sizeof(h));
	blox_hist_reset(&h);
	assert_int_equal(h.count, 0);
	assert_int_equal(blox_hist_quantile(&h, 0), 0);
	assert_int_equal(blox_hist_quantile(&h, 0.5), 0);
	assert_int_equal(blox_hist_quantile(&h, 1), 0);
	assert_true(blox_hist_mean(&h) == 0.0);
	for (uint32_t i = 0; i < BLOX_HIST_BUCKETS; i++)
		assert_int_equal(h.buckets[i], 0);
	/* The first value sets min even when larger than the reset 0. */
	blox_hist_add(&h, 1000);
	assert_int_equal(h.min, 1000);
	assert_int_equal(h.max, 1000);
	blox_hist_add(&h, 0);
	assert_int_equal(h.min, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket_low),
		cmocka_unit_test(test_quantiles),
		cmocka_unit_test(test_exact_small),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
