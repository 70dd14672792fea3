/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The timing-only NAND backend seen from a host over loopback: a 4 KiB
 * read at queue depth 1 costs about tR + channel transfer on top of the
 * network path (measured on a null namespace in the same run), and
 * throughput at depth is what the dies allow: never above the model (one
 * read per tR + transfer per busy die), and on 8 dies several times what
 * one die does. tR is set to 1 ms so the modeled time dominates the noise
 * of a busy machine; the lower bounds are wide for the same reason. The measured table goes to nand_timing.txt in the
 * working directory.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

#include <cmocka.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:nand-timing"
#define NS_BLOCKS (64u * 1024 * 1024 / 4096)
#define T_READ_NS 1000000ull
/* 4 KiB over a 2000 MB/s bus plus the 500 ns command cycle. */
#define XFER_4K_NS (500ull + 4096ull * 1000 / 2000)
#define MAX_QD 64

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"nand-timing\", \"size\": \"64M\", \"nand\": {"
	"\"channels\": 4, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"\"blocks_per_plane\": 64, \"pages_per_block\": 96, \"t_read_us\": 1000}},"
	"{\"nsid\": 2, \"backend\": \"nand-timing\", \"size\": \"64M\", \"nand\": {"
	"\"channels\": 1, \"dies_per_channel\": 1, \"planes_per_die\": 1,"
	"\"blocks_per_plane\": 64, \"pages_per_block\": 96, \"t_read_us\": 1000}},"
	"{\"nsid\": 3, \"backend\": \"null\", \"size\": \"64M\"}]}]";

struct run {
	double iops;
	double p50_us;
};

struct fixture {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	struct ini_ctrl *c;
	FILE *out;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Closed loop of @total random 4 KiB reads at depth @qd on @nsid. */
static struct run read_loop(struct fixture *f, uint32_t nsid, uint32_t qd,
			    uint32_t total)
{
	struct ini_queue *q = f->c->io[0];
	struct ini_req reqs[MAX_QD];
	uint64_t start[MAX_QD];
	uint64_t *lat = calloc(total, sizeof(*lat));
	uint8_t *bufs = malloc((size_t)MAX_QD * 4096);
	uint32_t issued = 0, done = 0;
	uint64_t t0, t1;
	struct run r;

	assert_non_null(lat);
	assert_non_null(bufs);
	assert_true(qd <= MAX_QD);
	t0 = now_ns();
	for (; issued < qd && issued < total; issued++) {
		ini_req_rw(&reqs[issued], nvme_cmd_read, nsid,
			   fx_rand(&f->fx.seed) % NS_BLOCKS, 1, bufs + issued * 4096,
			   4096);
		reqs[issued].ctx = (void *)(uintptr_t)issued;
		start[issued] = now_ns();
		assert_int_equal(ini_submit(q, &reqs[issued]), 0);
	}
	while (done < total) {
		struct ini_req *got[MAX_QD];
		int n = ini_poll(q, got, MAX_QD);

		assert_true(n > 0);
		for (int i = 0; i < n; i++) {
			uint32_t slot = (uint32_t)(uintptr_t)got[i]->ctx;

			assert_int_equal(ini_status(&got[i]->cqe), 0);
			lat[done++] = now_ns() - start[slot];
			if (issued < total) {
				ini_req_rw(&reqs[slot], nvme_cmd_read, nsid,
					   fx_rand(&f->fx.seed) % NS_BLOCKS, 1,
					   bufs + slot * 4096, 4096);
				reqs[slot].ctx = (void *)(uintptr_t)slot;
				start[slot] = now_ns();
				assert_int_equal(ini_submit(q, &reqs[slot]), 0);
				issued++;
			}
		}
	}
	t1 = now_ns();
	qsort(lat, total, sizeof(*lat), cmp_u64);
	r.iops = (double)total * 1e9 / (double)(t1 - t0);
	r.p50_us = (double)lat[total / 2] / 1000.0;
	free(lat);
	free(bufs);
	return r;
}

/* The group's own set-up and clean-up (fx_group.setup, .teardown). */
static int fixture_setup(void *arg)
{
	struct fixture *f = arg;

	f->fx.seed = 0x7e57; /* the same reads every run */
	if (fx_ctrl(&f->fx.d, SUBNQN, NULL, 1, NULL, &f->c))
		return -1;
	f->out = fopen("nand_timing.txt", "w");
	if (!f->out)
		return -1;
	fprintf(f->out, "# bloxd nand timing-only backend over loopback; "
			"tR %.0f us, 4 KiB transfer %.3f us\n",
		T_READ_NS / 1e3, XFER_4K_NS / 1e3);
	fprintf(f->out, "%-28s %6s %10s %10s\n", "namespace", "qd", "iops",
		"p50_us");
	return 0;
}

static void fixture_teardown(void *arg)
{
	struct fixture *f = arg;

	if (f->c) {
		ini_ctrl_shutdown(f->c);
		ini_ctrl_destroy(f->c);
	}
	if (f->out)
		fclose(f->out);
}

static void report(struct fixture *f, const char *what, uint32_t qd,
		   struct run r)
{
	fprintf(f->out, "%-28s %6u %10.0f %10.1f\n", what, qd, r.iops, r.p50_us);
	print_message("%-28s qd %3u: %8.0f IOPS, p50 %8.1f us\n", what, qd,
		      r.iops, r.p50_us);
}

/* QD1 on a nand namespace costs about tR + transfer more than null. */
static void test_qd1_latency(void **state)
{
	struct fixture *f = *state;
	struct run null1, nand1;
	double extra_us, model_us = (T_READ_NS + XFER_4K_NS) / 1e3;

	read_loop(f, 3, 1, 50); /* warm up */
	null1 = read_loop(f, 3, 1, 400);
	nand1 = read_loop(f, 1, 1, 400);
	report(f, "null", 1, null1);
	report(f, "nand 8 dies", 1, nand1);
	extra_us = nand1.p50_us - null1.p50_us;
	fprintf(f->out, "# qd1 extra over null: %.1f us, model %.1f us (ratio %.3f)\n",
		extra_us, model_us, extra_us / model_us);
	assert_true(extra_us > 0.9 * model_us);
	assert_true(extra_us < 1.5 * model_us);
}

/* Throughput follows the dies: 8 dies scale with depth, 1 die does not. */
static void test_qd_scaling(void **state)
{
	struct fixture *f = *state;
	struct run d8_1 = read_loop(f, 1, 1, 300);
	struct run d8_32 = read_loop(f, 1, 32, 3000);
	struct run d1_1 = read_loop(f, 2, 1, 300);
	struct run d1_8 = read_loop(f, 2, 8, 600);
	double r8 = d8_32.iops / d8_1.iops, r1 = d1_8.iops / d1_1.iops;
	/* Uniform random reads over D dies: busy = D * (1 - (1 - 1/D)^N). */
	double busy8 = 8.0 * (1.0 - pow(7.0 / 8.0, 32));
	double die_iops = 1e9 / (double)(T_READ_NS + XFER_4K_NS); /* one die's reads per second */

	report(f, "nand 8 dies", 32, d8_32);
	report(f, "nand 1 die", 1, d1_1);
	report(f, "nand 1 die", 8, d1_8);
	fprintf(f->out,
		"# 8 dies qd32/qd1 = %.2f (model %.2f); 1 die qd8/qd1 = %.2f (model 1.00)\n",
		r8, busy8, r1);
	/*
	 * Against what the dies can do, not against QD 1 (a busy machine slows
	 * QD 1 by its own overheads, which inflated the ratios: 1 die qd8/qd1
	 * was 1.38 in CI with the dies exact). Above the model is impossible
	 * for an engine that keeps the timing; below half of it would be a
	 * device that does not overlap its dies.
	 */
	assert_true(d8_32.iops < 1.1 * busy8 * die_iops);
	assert_true(d8_32.iops > 0.5 * busy8 * die_iops);
	/* One die serves one read per tR + transfer at most, whatever the depth. */
	assert_true(d1_8.iops < 1.1 * die_iops);
	assert_true(d1_1.iops < 1.1 * die_iops);
	/* The 8-die device at depth does what one die cannot. */
	assert_true(d8_32.iops > 3 * d1_8.iops);
}

int main(void)
{
	static const struct fx_group g = { .subsystems = subsystems,
					   .size = sizeof(struct fixture),
					   .setup = fixture_setup,
					   .teardown = fixture_teardown };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_qd1_latency),
		cmocka_unit_test(test_qd_scaling),
	};

	return FX_MAIN(&g, tests);
}
