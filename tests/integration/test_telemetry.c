/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl stats against the client that made the load. bloxperf runs 4 KiB
 * random reads at QD 1, 32 and 256 with a timeline (its completions and
 * their latencies per 10 ms); in the middle of each run `bloxctl --json
 * stats` is read, and its window must agree with what bloxperf measured
 * over the same stretch of time:
 *
 * - always: read IOPS within 5%; no more in flight at once than the host
 *   sent (max QD <= QD), and no more on average; no command in the window
 *   waited longer than the longest the client saw, and the mean is no
 *   longer than the client's (bloxd holds a command for part of the time
 *   the host waits for it);
 * - where bloxd holds the commands for nearly all of that time (a nand
 *   namespace whose reads take 5 ms, so the network's share is a few
 *   percent even in a sanitizer build): mean latency and mean QD within
 *   10% of the client's;
 * - a window's maxima are the window's: after a run at QD 256 whose reads
 *   waited hundreds of milliseconds, a QD 1 run's window shows no such wait.
 *
 * On a RAM namespace at low depth most of a command's time is the host's
 * and the network's (a few microseconds at bloxd against tens at the
 * host), which bloxd cannot see: only the bounds are checked there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:telemetry"
#define NS_RAM 1
#define NS_NAND 2
#define SPAN_BYTES (16u << 20) /* what the nand runs touch, all written first */
#define RUN_MS 4500
#define SAMPLE_MS 3200 /* into a run: bloxd's window (1 to 2 s) lies inside it */
#define SLICE_MS 10 /* bloxperf --timeline-ms */

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	" { \"nsid\": 1, \"backend\": \"ram\", \"size\": \"64M\", \"block_size\": 4096 },"
	" { \"nsid\": 2, \"backend\": \"nand\", \"size\": \"32M\","
	"   \"nand\": { \"channels\": 1, \"dies_per_channel\": 4, \"pages_per_block\": 96,"
	"              \"t_read_us\": 5000 } } ] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[262144];
	char perf_out[65536];
};

/*
 * What bloxperf measured: over bloxd's window (from its timeline), and
 * the longest wait of the whole run.
 */
struct client {
	double iops, mean_us, mean_qd, max_us;
};

/* bloxd's window for one namespace. */
struct server {
	double iops, mean_us, max_us, mean_qd;
	int64_t max_qd;
	double interval_s;
	uint64_t end_ns; /* the window's end, bloxd's CLOCK_MONOTONIC */
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static double get_d(json_object *o, const char *key)
{
	json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_double(v);
}

static FILE *perf_start(struct env *e, uint32_t nsid, const char *args)
{
	const char *bin = getenv("BLOXPERF");
	char cmd[1024];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s -a " FX_ADDR " -p %u -n " SUBNQN " -N %u -j - %s",
		 bin && *bin ? bin : "bloxperf", e->fx.d.nvm_port, nsid, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	return p;
}

/*
 * Wait for bloxperf; its figures over [@from_ns, @to_ns) (CLOCK_MONOTONIC;
 * 0, 0: the whole run), from its timeline. Every I/O must have succeeded.
 */
static struct client perf_end(struct env *e, FILE *p, uint64_t from_ns, uint64_t to_ns)
{
	json_object *o, *lat, *tl, *ios, *lats;
	struct client c;
	size_t n = 0;
	int st;

	for (;;) {
		size_t got = fread(e->perf_out + n, 1, sizeof(e->perf_out) - 1 - n, p);

		if (!got)
			break;
		n += got;
	}
	e->perf_out[n] = '\0';
	st = pclose(p);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	o = json_tokener_parse(e->perf_out);
	assert_non_null(o);
	assert_true(get_d(o, "errors") == 0);
	assert_true(json_object_object_get_ex(o, "latency_us", &lat));
	c = (struct client){ get_d(o, "iops"), get_d(lat, "mean"), (double)get_d(lat, "mean") *
				get_d(o, "iops") / 1e6, get_d(lat, "max") };
	if (from_ns < to_ns) {
		double t0, sum_ios = 0, sum_lat_us = 0, secs = (double)(to_ns - from_ns) / 1e9;

		assert_true(json_object_object_get_ex(o, "timeline", &tl));
		assert_true(json_object_object_get_ex(tl, "ios", &ios));
		assert_true(json_object_object_get_ex(tl, "lat_us", &lats));
		t0 = get_d(tl, "t0_ns");
		for (size_t k = 0; k < json_object_array_length(ios); k++) {
			/* A slice counts when its middle is in the window. */
			double mid = t0 + ((double)k + 0.5) * SLICE_MS * 1e6;

			if (mid < (double)from_ns || mid >= (double)to_ns)
				continue;
			sum_ios += json_object_get_double(json_object_array_get_idx(ios, k));
			sum_lat_us += json_object_get_double(json_object_array_get_idx(lats, k));
		}
		assert_true(sum_ios > 0);
		c.iops = sum_ios / secs;
		c.mean_us = sum_lat_us / sum_ios;
		c.mean_qd = sum_lat_us / 1e6 / secs;
	}
	json_object_put(o);
	return c;
}

static struct server stats(struct env *e, uint32_t nsid)
{
	json_object *o, *nss, *io, *lat;
	struct server s;

	assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out), "--json stats " SUBNQN " %u",
				nsid),
			 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &nss));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(nss, 0), "io", &io));
	assert_true(json_object_object_get_ex(io, "read_lat", &lat));
	s = (struct server){
		.iops = get_d(io, "read_iops"),
		.mean_us = get_d(lat, "mean_ns") / 1e3,
		.max_us = get_d(lat, "max_ns") / 1e3,
		.mean_qd = get_d(io, "mean_queue_depth"),
		.max_qd = (int64_t)get_d(io, "max_queue_depth"),
		.interval_s = get_d(io, "interval_s"),
		.end_ns = (uint64_t)get_d(io, "end_ns"),
	};
	json_object_put(o);
	return s;
}

/* A run of reads at @qd on @nsid with bloxd's window read in its middle. */
static void run_reads(struct env *e, uint32_t nsid, unsigned qd, struct client *c,
		      struct server *s)
{
	char args[256];
	FILE *p;

	uint64_t before, after;

	snprintf(args, sizeof(args), "-q %u -w randread -t %.1f -r %u --timeline-ms %u", qd,
		 RUN_MS / 1e3, nsid == NS_NAND ? SPAN_BYTES : 64u << 20, SLICE_MS);
	p = perf_start(e, nsid, args);
	fx_sleep_ms(SAMPLE_MS);
	/* bloxd's window ends when it answers, at end_ns on the same clock as ours. */
	before = mono_ns();
	*s = stats(e, nsid);
	after = mono_ns();
	assert_in_range(s->end_ns, before, after);
	*c = perf_end(e, p, s->end_ns - (uint64_t)(s->interval_s * 1e9), s->end_ns);
	print_message("ns %u QD %3u over %.2f s: client %8.0f IOPS mean %9.1f us QD %6.1f (max "
		      "%9.1f us) | bloxd %8.0f IOPS mean %9.1f us QD %6.1f, max %9.1f us QD %ld\n",
		      nsid, qd, s->interval_s, c->iops, c->mean_us, c->mean_qd, c->max_us, s->iops,
		      s->mean_us, s->mean_qd, s->max_us, (long)s->max_qd);
}

static void within(double got, double want, double tol, const char *what)
{
	if (got < want * (1 - tol) || got > want * (1 + tol)) {
		print_error("%s: bloxd %.2f, client %.2f (more than %.0f%% apart)\n", what, got,
			    want, tol * 100);
		fail();
	}
}

/* What holds at any depth on any backend. */
static void check_bounds(const struct client *c, const struct server *s, unsigned qd)
{
	within(s->iops, c->iops, 0.05, "read IOPS");
	assert_true(s->max_qd >= 1 && s->max_qd <= (int64_t)qd);
	assert_true(s->mean_qd <= qd * 1.02);
	/* Slack: the two sides read the clock at slightly different points. */
	assert_true(s->max_us <= c->max_us * 1.02 + 20);
	assert_true(s->mean_us <= c->mean_us * 1.05 + 5);
	assert_true(s->mean_qd <= c->mean_qd * 1.05 + 0.05);
}

static int setup(void *arg)
{
	struct env *e = arg;
	char args[128];
	FILE *p;

	/* Every LBA the nand runs read is on flash. */
	snprintf(args, sizeof(args), "-q 16 -w write -o 131072 -c %u", SPAN_BYTES / 131072);
	p = perf_start(e, NS_NAND, args);
	perf_end(e, p, 0, 0);
	return 0;
}

/*
 * Reads at QD 1, 32 and 256 on @nsid: the bounds always, and with @close
 * the mean latency and mean QD within 10% of the client's.
 */
static void sweep(struct env *e, uint32_t nsid, bool close)
{
	static const unsigned qds[] = { 1, 32, 256 };

	for (size_t i = 0; i < sizeof(qds) / sizeof(qds[0]); i++) {
		struct client c;
		struct server s;

		run_reads(e, nsid, qds[i], &c, &s);
		check_bounds(&c, &s, qds[i]);
		if (close) {
			within(s.mean_us, c.mean_us, 0.10, "mean read latency");
			within(s.mean_qd, c.mean_qd, 0.10, "mean queue depth");
		}
	}
}

static void test_ram(void **state)
{
	sweep(*state, NS_RAM, false);
}

static void test_nand(void **state)
{
	sweep(*state, NS_NAND, true);
}

/* After reads that waited hundreds of ms, a QD 1 window holds none of them. */
static void test_window_max(void **state)
{
	struct env *e = *state;
	struct client c;
	struct server s;

	run_reads(e, NS_NAND, 256, &c, &s);
	assert_true(s.max_us > 50000);
	run_reads(e, NS_NAND, 1, &c, &s);
	assert_true(s.max_us <= c.max_us * 1.02 + 20);
	/*
	 * A QD 1 read takes 5 ms; the QD 256 run's reads waited 320 ms and
	 * more (256 reads over 4 dies). A busy machine stretches the former
	 * by tens of ms, never to the latter.
	 */
	assert_true(s.max_us < 150000);
	assert_true(s.max_qd == 1);
}

static const struct fx_group group = {
	.who = "test_telemetry",
	.subsystems = subsystems,
	.size = sizeof(struct env),
	.setup = setup,
};

static int group_setup(void **state)
{
	return fx_group_setup(state, &group);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ram),
		cmocka_unit_test(test_nand),
		cmocka_unit_test(test_window_max),
	};

	return cmocka_run_group_tests(tests, group_setup, fx_group_teardown);
}
