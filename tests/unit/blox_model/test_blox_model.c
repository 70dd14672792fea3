/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flash's model beside its measurement (common/blox_model.h): each
 * formula on known inputs and outputs, worked out by hand (TLC literature
 * timing: tR 56/65/74 us, tPROG 1.2/2/3 ms, 2000 MB/s, tCMD 0.5 us), the
 * utilisation cap as rho goes to 1, intervals without traffic; the closed
 * loop's properties (depth 1 exact, under the bound and towards it, Little,
 * monotone and continuous in the depth, think time, bad input) and which
 * model applies. Its accuracy is the bench's: tests/bench/nand_model.c
 * --closed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "blox_model.h"

#define US 1000ull
#define MS 1000000ull

/* 8 dies on 4 channels, 2 planes, 16 KiB pages, TLC. */
static struct blox_model_flash tlc(void)
{
	return (struct blox_model_flash){
		.dies = 8,
		.channels = 4,
		.planes = 2,
		.page_size = 16384,
		.page_types = 3,
		.t_read_ns = { 56 * US, 65 * US, 74 * US },
		.t_prog_ns = { 1200 * US, 2000 * US, 3000 * US },
		.t_erase_ns = 10 * MS,
		.t_suspend_ns = 20 * US,
		.t_resume_ns = 10 * US,
		.t_cmd_ns = 500,
		.bus_mbps = 2000,
	};
}

/* Relative difference within @rel. */
static void near(double got, double want, double rel)
{
	if (fabs(got - want) > rel * fabs(want) + 1e-9) {
		print_error("got %.6f, want %.6f\n", got, want);
		fail();
	}
}

static void test_physics(void **state)
{
	uint64_t tr[] = { 56 * US, 65 * US, 74 * US };

	(void)state;
	near(blox_model_mean_ns(tr, 3), 65000, 1e-12);
	assert_true(blox_model_mean_ns(tr, 0) == 0);
	/* As the engine: 500 + ceil(4096 * 1000 / 2000) = 2548; a page 500 + 8192. */
	near(blox_model_xfer_ns(4096, 500, 2000), 2548, 1e-12);
	near(blox_model_xfer_ns(16384, 500, 2000), 8692, 1e-12);
	near(blox_model_xfer_ns(4096, 500, 3000), 500 + 1366, 1e-12); /* rounded up */
	near(blox_model_xfer_ns(4096, 500, 0), 500, 1e-12);
	/* Dies bound: 8 / 67.548 us = 118434.3/s; the buses (4 / 2.548 us) do not. */
	near(blox_model_read_bound(8, 4, 65000, 2548), 118434.2985728667, 1e-9);
	/* One slow channel under many fast dies: the bus bounds, 1 / 500 ns. */
	near(blox_model_read_bound(16, 1, 1000, 500), 2e6, 1e-12);
	near(blox_model_read_bound(16, 0, 1000, 500), 16e9 / 1500, 1e-12);
	assert_true(blox_model_read_bound(0, 4, 65000, 2548) == 0);
	assert_true(blox_model_read_bound(8, 4, 0, 0) == 0); /* null timing: no bound */
	/* 8 dies x 4 units x 2 planes / (WAF 2 x 2.0667 ms). */
	near(blox_model_write_bound(8, 8, 2, (1200 + 2000 + 3000) * US / 3.0), 15483.870967741936,
	     1e-9);
	assert_true(blox_model_write_bound(8, 8, 0, 2 * MS) == 0);
	assert_true(blox_model_write_bound(8, 8, 2, 0) == 0);
}

static void test_rho_and_p99(void **state)
{
	bool sat = true;
	double prev = 0;

	(void)state;
	near(blox_model_rho(5e8, 1e9, 2), 0.25, 1e-12);
	assert_true(blox_model_rho(5e8, 0, 2) == 0);
	assert_true(blox_model_rho(5e8, 1e9, 0) == 0);
	assert_true(blox_model_rho(0, 1e9, 2) == 0);
	/* rho 0: the service time itself. */
	near(blox_model_p99_ns(100000, 0, &sat), 100000, 1e-12);
	assert_false(sat);
	/* rho 0.5: 1 + ln(100). */
	near(blox_model_p99_ns(100000, 0.5, &sat), 560517.0185988091, 1e-12);
	assert_false(sat);
	/* Towards 1: grows without a jump up to the cap, then stays there. */
	for (double r = 0.05; r < 0.99; r += 0.01) {
		double p = blox_model_p99_ns(100000, r, &sat);

		assert_true(p > prev);
		assert_false(sat);
		prev = p;
	}
	near(blox_model_p99_ns(100000, 0.99, &sat), 45691184.84128211, 1e-12);
	assert_true(sat);
	near(blox_model_p99_ns(100000, 0.999999, &sat), 45691184.84128211, 1e-12);
	assert_true(sat);
	near(blox_model_p99_ns(100000, 1.0, &sat), 45691184.84128211, 1e-12);
	assert_true(sat);
	near(blox_model_p99_ns(100000, 7.5, NULL), 45691184.84128211, 1e-12);
	/* Nonsense in: the service time, never NaN or infinity. */
	near(blox_model_p99_ns(100000, -0.2, &sat), 100000, 1e-12);
	assert_false(sat);
	near(blox_model_p99_ns(100000, NAN, &sat), 100000, 1e-12);
	assert_false(sat);
}

static void test_busy_from_ops(void **state)
{
	struct blox_model_flash f = tlc();
	/* 4 program groups and 2 erase groups of 2 planes: 4 + 2 joined. */
	struct blox_model_ops o = { .reads = 100, .programs = 10, .erases = 4,
				    .program_groups = 4, .erase_groups = 2, .joined = 6,
				    .suspends = 1, .resumes = 1 };
	uint64_t rd = 0;

	(void)state;
	/* 100 x 65 us + 6 runs x 2.0667 ms + 2 runs x 10 ms + 20 us + 10 us. */
	assert_int_equal(blox_model_busy_from_ops(&f, &o, &rd), 38930000);
	assert_int_equal(rd, 6500000);
	/* Multi-plane off: every op runs alone. */
	f.planes = 1;
	o = (struct blox_model_ops){ .reads = 1, .programs = 3, .erases = 1 };
	assert_int_equal(blox_model_busy_from_ops(&f, &o, NULL), 65000 + 6200000 + 10000000);
	/* Nothing: nothing. */
	o = (struct blox_model_ops){ 0 };
	assert_int_equal(blox_model_busy_from_ops(&f, &o, &rd), 0);
	assert_int_equal(rd, 0);
}

/* An interval with reads and writes, everything worked out. */
static void test_eval_loaded(void **state)
{
	struct blox_model_flash f = tlc();
	struct blox_model_meas m = {
		.interval_ns = 1e9,
		.host_reads = 50000,
		.host_writes = 500,
		.host_write_bytes = 500 * 8192, /* 8 KiB writes: 2 units each */
		.p99_read_ns = 400 * US,
		.busy_ns = 4250 * MS, /* 3.25 s of reads, 1 s of programs */
		.read_busy_ns = 3250 * MS,
		.flash_reads = 50000,
		.flash_programs = 1000,
		.units_host = 4000,
		.units_all = 12400,
		.waf_life = 2.0,
		.has_ftl = true,
	};
	struct blox_model r;

	(void)state;
	blox_model_eval(&f, &m, &r);
	near(r.t_read_ns, 65000, 1e-12);
	near(r.t_prog_ns, 6200000 / 3.0, 1e-12);
	near(r.xfer_read_ns, 2548, 1e-12);
	near(r.xfer_prog_ns, 8692, 1e-12);
	near(r.read_iops_bound, 118434.2985728667, 1e-9);
	near(r.read_iops, 50000, 1e-12);
	near(r.write_iops, 500, 1e-12);
	assert_int_equal(r.p99_read_ns, 400 * US);
	/* (4.25e9 + 50000 x 2548 + 1000 x 8692) / (1e9 x 8). */
	near(r.rho, 0.5482615, 1e-12);
	near(r.service_ns, 67548, 1e-12);
	near(r.p99_read_pred_ns, 445084.39415416954, 1e-9);
	assert_false(r.saturated);
	/* The interval's WAF, 12400 / 4000, not the lifetime's. */
	near(r.waf, 3.1, 1e-12);
	assert_int_equal(r.waf_src, BLOX_MODEL_WAF_INTERVAL);
	/* 8 x 8 / (3.1 x 2.0667 ms) = 9989.6 4 KiB writes/s, 4994.8 8 KiB commands. */
	near(r.write_iops_pred, 4994.797086368366, 1e-9);
}

/* Nothing happened: no NaN, the service time, WAF 1 assumed. */
static void test_eval_zero_traffic(void **state)
{
	struct blox_model_flash f = tlc();
	struct blox_model_meas m = { .interval_ns = 1e9, .has_ftl = true };
	struct blox_model r;

	(void)state;
	blox_model_eval(&f, &m, &r);
	assert_true(r.read_iops == 0 && r.write_iops == 0 && r.rho == 0);
	assert_int_equal(r.p99_read_ns, 0);
	near(r.service_ns, 67548, 1e-12);
	near(r.p99_read_pred_ns, 67548, 1e-12);
	assert_false(r.saturated);
	near(r.waf, 1, 1e-12);
	assert_int_equal(r.waf_src, BLOX_MODEL_WAF_NONE);
	near(r.write_iops_pred, 30967.74193548387, 1e-9);
	/* The lifetime's WAF when the interval programmed no host unit (GC only). */
	m.units_all = 300;
	m.waf_life = 2;
	blox_model_eval(&f, &m, &r);
	near(r.waf, 2, 1e-12);
	assert_int_equal(r.waf_src, BLOX_MODEL_WAF_LIFE);
	near(r.write_iops_pred, 15483.870967741936, 1e-9);
	/* No interval at all (a first reading): rates 0, nothing divides by 0. */
	m = (struct blox_model_meas){ .host_reads = 10, .busy_ns = 5, .has_ftl = true };
	blox_model_eval(&f, &m, &r);
	assert_true(r.read_iops == 0 && r.rho == 0);
	near(r.p99_read_pred_ns, 67548, 1e-12);
	/* No FTL (nand-timing): no WAF, no write prediction. */
	m = (struct blox_model_meas){ .interval_ns = 1e9, .host_writes = 100 };
	blox_model_eval(&f, &m, &r);
	assert_true(r.waf == 0 && r.write_iops_pred == 0);
	near(r.write_iops, 100, 1e-12);
}

/* The dies held all the time and more: saturated, the capped prediction. */
static void test_eval_saturated(void **state)
{
	struct blox_model_flash f = tlc();
	struct blox_model_meas m = {
		.interval_ns = 1e9,
		.host_reads = 118000,
		.flash_reads = 118000,
		.read_busy_ns = 118000ull * 65000,
		.busy_ns = 118000ull * 65000,
		.has_ftl = true,
	};
	struct blox_model r;

	(void)state;
	blox_model_eval(&f, &m, &r);
	/* (118000 x 67548) / 8e9 = 0.996. */
	near(r.rho, 0.996333, 1e-6);
	assert_true(r.saturated);
	near(r.p99_read_pred_ns, 67548 * (1 + BLOX_MODEL_LN100 * 99), 1e-12);
	/* Page types out of range are clamped, single plane and small pages work. */
	f.page_types = 9;
	f.t_read_ns[3] = 65 * US;
	f.planes = 0;
	f.page_size = 2048;
	blox_model_eval(&f, &m, &r);
	near(r.t_read_ns, 65000, 1e-12);
	near(r.write_iops_pred, 8 * 1e9 / (6200000 / 4.0), 1e-9);
}

/* The closed loop at @qd on @f, think time @z. */
static struct blox_model_closed closed(const struct blox_model_flash *f, double qd, double z)
{
	struct blox_model_closed m;

	blox_model_closed(f, qd, z, &m);
	assert_true(isfinite(m.x) && isfinite(m.r_ns) && isfinite(m.p99_ns));
	return m;
}

/* One read: no queue, its own service; the P99 the slowest page type. */
static void test_closed_depth1(void **state)
{
	struct blox_model_flash f = tlc();
	struct blox_model_closed m = closed(&f, 1, 0);

	(void)state;
	assert_true(m.r_ns == 65000.0 + 2548.0); /* exactly tR + xfer */
	near(m.x, 1e9 / 67548, 1e-12);
	near(m.p99_ns, 74000 + 2548, 1e-9);
	near(m.die_busy, 1.0 / 8, 1e-12);
	assert_true(m.bus_wait_ns == 0);
	/* A think time adds to the loop, not to the flash. */
	m = closed(&f, 1, 32452);
	assert_true(m.r_ns == 67548.0);
	near(m.x, 1e4, 1e-12);
	/* Half a read outstanding on average: half the throughput, the same response. */
	m = closed(&f, 0.5, 0);
	assert_true(m.r_ns == 67548.0);
	near(m.x, 0.5e9 / 67548, 1e-12);
	/* One die, one page type: a FIFO of N reads, R = N S exactly (D = 1, no bus wait). */
	f.dies = f.channels = 1;
	f.page_types = 1;
	for (double n = 1; n <= 64; n *= 2) {
		m = closed(&f, n, 0);
		near(m.r_ns, n * 58548, 1e-12);
		near(m.x, 1e9 / 58548, 1e-12);
	}
}

/* Never past the open model's bound; towards it with depth; Little. */
static void test_closed_bound(void **state)
{
	static const uint32_t geo[][2] = { { 8, 4 }, { 4, 1 }, { 24, 6 }, { 64, 1 }, { 2, 0 } };
	struct blox_model_flash f = tlc();

	(void)state;
	for (uint32_t g = 0; g < sizeof(geo) / sizeof(geo[0]); g++) {
		double bound;
		struct blox_model_closed m;

		f.dies = geo[g][0];
		f.channels = geo[g][1];
		bound = blox_model_read_bound(f.dies, f.channels, 65000, 2548);
		for (double n = 1; n <= 100000; n *= 1.7) {
			m = closed(&f, n, 0);
			assert_true(m.x <= bound * (1 + 1e-12));
			assert_true(m.die_busy <= 1 + 1e-12);
			near(m.r_ns, n / m.x * 1e9, 1e-9); /* Little, Z = 0 */
		}
		/* Far out: within 1% of the bound (64 dies on one channel: the bus). */
		m = closed(&f, 4096, 0);
		assert_true(m.x > 0.99 * bound);
		m = closed(&f, 1e7, 0); /* past the stepped depths: X held, R = N / X */
		assert_true(m.x > 0.99 * bound && m.x <= bound * (1 + 1e-12));
		near(m.r_ns, 1e7 / m.x * 1e9, 1e-9);
		assert_true(m.p99_ns > m.r_ns);
	}
	/* At depth 8 * D the 8 dies are not yet saturated: the closed loop is not the bound. */
	f = tlc();
	assert_true(closed(&f, 64, 0).x < 0.95 * blox_model_read_bound(8, 4, 65000, 2548));
}

/* X, R and the P99 never fall as the depth grows, and never jump; P99 >= mean. */
static void test_closed_monotone(void **state)
{
	static const uint32_t geo[][2] = { { 4, 1 }, { 24, 6 }, { 1, 1 }, { 2, 1 } };
	struct blox_model_flash f = tlc();

	(void)state;
	for (uint32_t g = 0; g < sizeof(geo) / sizeof(geo[0]); g++) {
		struct blox_model_closed prev = { 0 }, m;
		double h = 1.0 / 64, step_max = 0;

		f.dies = geo[g][0];
		f.channels = geo[g][1];
		for (double n = h; n <= 40; n += h) {
			m = closed(&f, n, 50000);
			assert_true(m.p99_ns >= m.r_ns);
			assert_true(m.x >= prev.x * (1 - 1e-12));
			assert_true(m.r_ns >= prev.r_ns * (1 - 1e-12));
			assert_true(m.p99_ns >= prev.p99_ns * (1 - 1e-12));
			if (prev.p99_ns > 0 && m.p99_ns - prev.p99_ns > step_max)
				step_max = m.p99_ns - prev.p99_ns;
			prev = m;
		}
		/* No jump: 1/64 of a read moves the P99 by 2/64 of a service at most. */
		assert_true(step_max < 2 * 76548.0 / 64);
		/* Across a whole depth, from either side. */
		m = closed(&f, 3 - 1e-9, 0);
		prev = closed(&f, 3, 0);
		near(m.p99_ns, prev.p99_ns, 1e-6);
		near(m.r_ns, prev.r_ns, 1e-6);
		m = closed(&f, 3 + 1e-9, 0);
		near(m.p99_ns, prev.p99_ns, 1e-6);
		near(m.x, prev.x, 1e-6);
	}
}

/* A think time: fewer reads at the flash, X = N / (R + Z). */
static void test_closed_think(void **state)
{
	struct blox_model_flash f = tlc();
	struct blox_model_closed z0, m, prev = { 0 };

	(void)state;
	for (double n = 1; n <= 512; n *= 2) {
		z0 = closed(&f, n, 0);
		prev = z0;
		for (double z = 25000; z <= 400000; z += 25000) {
			m = closed(&f, n, z);
			near(m.x, n / (m.r_ns + z) * 1e9, 1e-9);
			/* Each read away longer: less throughput, shorter queues. */
			assert_true(m.x <= prev.x * (1 + 1e-12));
			assert_true(m.r_ns <= prev.r_ns * (1 + 1e-12));
			assert_true(m.p99_ns <= prev.p99_ns * (1 + 1e-12));
			prev = m;
		}
	}
	/* Far from the flash (Z >> R): nearly no queue, X nearly N / (S + Z). */
	m = closed(&f, 8, 1e9);
	near(m.r_ns, 67548, 1e-3);
	near(m.x, 8 / (67548 + 1e9) * 1e9, 1e-3);
	/* Nonsense think time: none. */
	z0 = closed(&f, 16, 0);
	m = closed(&f, 16, NAN);
	assert_true(m.x == z0.x && m.p99_ns == z0.p99_ns);
	m = closed(&f, 16, -5);
	assert_true(m.x == z0.x && m.r_ns == z0.r_ns);
}

/* No dies, no timing, no depth: zeros, never NaN or infinity. */
static void test_closed_bad(void **state)
{
	static const double bad_qd[] = { 0, -1, NAN, INFINITY, -INFINITY };
	struct blox_model_flash f = tlc();
	struct blox_model_closed m;

	(void)state;
	for (uint32_t i = 0; i < sizeof(bad_qd) / sizeof(bad_qd[0]); i++) {
		m = closed(&f, bad_qd[i], 0);
		assert_true(m.x == 0 && m.r_ns == 0 && m.p99_ns == 0 && m.die_busy == 0);
	}
	f.dies = 0;
	m = closed(&f, 32, 0);
	assert_true(m.x == 0 && m.r_ns == 0 && m.p99_ns == 0 && m.bus_wait_ns == 0);
	/* Null timing: no array time, no bus. */
	f = (struct blox_model_flash){ .dies = 8, .channels = 4, .page_types = 3 };
	m = closed(&f, 32, 1000);
	assert_true(m.x == 0 && m.r_ns == 0 && m.p99_ns == 0);
	/* Page types out of range: clamped as everywhere else. */
	f = tlc();
	f.page_types = 0;
	m = closed(&f, 1, 0);
	near(m.r_ns, 56000 + 2548, 1e-12);
}

static void test_closed_applies(void **state)
{
	(void)state;
	assert_true(blox_model_closed_applies(32, 32));
	assert_true(blox_model_closed_applies(30.5, 32)); /* a completion's gap */
	assert_true(blox_model_closed_applies(1, 1));
	assert_true(blox_model_closed_applies(0.75, 1));
	assert_false(blox_model_closed_applies(10, 32)); /* bursts: an open queue */
	assert_false(blox_model_closed_applies(0, 0));
	assert_false(blox_model_closed_applies(NAN, 32));
	assert_false(blox_model_closed_applies(32, INFINITY));
	assert_false(blox_model_closed_applies(-1, -1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_physics),
		cmocka_unit_test(test_rho_and_p99),
		cmocka_unit_test(test_busy_from_ops),
		cmocka_unit_test(test_eval_loaded),
		cmocka_unit_test(test_eval_zero_traffic),
		cmocka_unit_test(test_eval_saturated),
		cmocka_unit_test(test_closed_depth1),
		cmocka_unit_test(test_closed_bound),
		cmocka_unit_test(test_closed_monotone),
		cmocka_unit_test(test_closed_think),
		cmocka_unit_test(test_closed_bad),
		cmocka_unit_test(test_closed_applies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
