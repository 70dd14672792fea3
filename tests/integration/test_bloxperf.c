/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxperf against a running bloxd: short runs (by count and by time,
 * several queues and connections, digests, a read/write mix, sequential
 * 128 KiB) whose JSON must say no errors and whose read and write counts
 * and bytes must be what bloxd's own namespace statistics counted in the
 * same run; bad usage is refused with exit code 2. No timing is checked.
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

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:perf"

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	" { \"nsid\": 1, \"backend\": \"ram\", \"size\": \"64M\", \"block_size\": 4096 } ] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[65536];
};

struct counts {
	int64_t reads, writes, bytes_read, bytes_written, errors;
};

static int64_t get_i64(json_object *o, const char *key)
{
	json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_int64(v);
}

/* bloxd's counts for namespace 1 (bloxctl --json stats). */
static struct counts ns_counts(struct env *e)
{
	json_object *o, *nss, *io;
	struct counts c;

	assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out),
				"--json stats " SUBNQN " 1"),
			 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &nss));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(nss, 0), "io", &io));
	c = (struct counts){ get_i64(io, "read_cmds"), get_i64(io, "write_cmds"),
			     get_i64(io, "read_bytes"), get_i64(io, "write_bytes"),
			     get_i64(io, "errors") };
	json_object_put(o);
	return c;
}

/* Run bloxperf with @args and JSON on stdout: its exit code, the JSON in e->out. */
static int perf(struct env *e, const char *args)
{
	const char *bin = getenv("BLOXPERF");
	char cmd[1024];
	size_t n = 0;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "%s -a " FX_ADDR " -p %u -n " SUBNQN " -j - %s",
		 bin && *bin ? bin : "bloxperf", e->fx.d.nvm_port, args);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (n + 1 < sizeof(e->out)) {
		size_t got = fread(e->out + n, 1, sizeof(e->out) - 1 - n, p);

		if (!got)
			break;
		n += got;
	}
	e->out[n] = '\0';
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* A run of bloxperf whose counts bloxd must have seen exactly. */
static json_object *perf_checked(struct env *e, const char *args)
{
	struct counts before = ns_counts(e), after;
	json_object *o;

	assert_int_equal(perf(e, args), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	after = ns_counts(e);
	assert_int_equal(get_i64(o, "errors"), 0);
	assert_int_equal(after.errors, before.errors);
	assert_int_equal(get_i64(o, "reads"), after.reads - before.reads);
	assert_int_equal(get_i64(o, "writes"), after.writes - before.writes);
	assert_int_equal(get_i64(o, "bytes_read"), after.bytes_read - before.bytes_read);
	assert_int_equal(get_i64(o, "bytes_written"),
			 after.bytes_written - before.bytes_written);
	assert_int_equal(get_i64(o, "ios"), get_i64(o, "reads") + get_i64(o, "writes"));
	return o;
}

static void check_latency(json_object *o)
{
	json_object *lat, *v;
	double p50, p99, p999, max;

	assert_true(json_object_object_get_ex(o, "latency_us", &lat));
	assert_true(json_object_object_get_ex(lat, "p50", &v));
	p50 = json_object_get_double(v);
	assert_true(json_object_object_get_ex(lat, "p99", &v));
	p99 = json_object_get_double(v);
	assert_true(json_object_object_get_ex(lat, "p99_9", &v));
	p999 = json_object_get_double(v);
	assert_true(json_object_object_get_ex(lat, "max", &v));
	max = json_object_get_double(v);
	assert_true(p50 > 0 && p50 <= p99 && p99 <= p999 && p999 <= max);
}

/* By count: exactly that many I/Os, a read/write mix on 2 x 2 queues. */
static void test_count_mix(void **state)
{
	struct env *e = *state;
	json_object *o = perf_checked(e, "-c 5000 -q 8 -w randrw -M 30 -Q 2 -C 2");

	assert_int_equal(get_i64(o, "ios"), 5000);
	assert_true(get_i64(o, "reads") > 0 && get_i64(o, "writes") > 0);
	check_latency(o);
	json_object_put(o);
}

/* By time, with header and data digests. */
static void test_time_digests(void **state)
{
	struct env *e = *state;
	json_object *o = perf_checked(e, "-t 1 -q 4 -w randread -H -D");
	json_object *cfg, *v;

	assert_true(get_i64(o, "ios") > 0);
	assert_int_equal(get_i64(o, "writes"), 0);
	assert_true(json_object_object_get_ex(o, "config", &cfg));
	assert_true(json_object_object_get_ex(cfg, "hdgst", &v) && json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(cfg, "ddgst", &v) && json_object_get_boolean(v));
	check_latency(o);
	json_object_put(o);
}

/* Sequential 128 KiB writes, then reads of what they wrote. */
static void test_sequential_large(void **state)
{
	struct env *e = *state;
	json_object *o = perf_checked(e, "-c 512 -q 4 -o 131072 -w write");

	assert_int_equal(get_i64(o, "bytes_written"), 512 * 131072);
	json_object_put(o);
	o = perf_checked(e, "-c 512 -q 4 -o 131072 -w read");
	assert_int_equal(get_i64(o, "bytes_read"), 512 * 131072);
	json_object_put(o);
}

/* Bad usage: exit code 2, no I/O. */
static void test_bad_usage(void **state)
{
	struct env *e = *state;

	assert_int_equal(perf(e, "-q 0"), 2);
	assert_int_equal(perf(e, "-w sideways"), 2);
	assert_int_equal(perf(e, "-o 1000"), 2); /* not a multiple of 4096 */
	assert_int_equal(perf(e, "-N 9"), 2); /* no such namespace */
}

int main(void)
{
	static const struct fx_group g = {
		.who = "bloxperf",
		.subsystems = subsystems,
		.size = sizeof(struct env),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count_mix),
		cmocka_unit_test(test_time_digests),
		cmocka_unit_test(test_sequential_large),
		cmocka_unit_test(test_bad_usage),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
