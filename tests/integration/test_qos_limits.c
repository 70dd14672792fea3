/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * QoS limits end to end: set with bloxctl on a running bloxd, honoured by
 * it (commands over the limit wait, none fails), shown with what they
 * held back, changed and lifted at once, and kept across a restart. The
 * checks on time are lower bounds only (a limit can make I/O slower than
 * the machine, never faster), so a busy machine cannot make them fail.
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
#include <time.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:qos"
#define QD 16

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"64M\"},"
	"                      {\"nsid\": 2, \"backend\": \"ram\", \"size\": \"64M\"} ] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[65536];
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* @n 4 KiB reads (or writes) of namespace @nsid at QD 16, all successful; the seconds taken. */
static double drive(struct ini_queue *q, uint32_t nsid, int n, bool write)
{
	static uint8_t bufs[QD][4096];
	struct ini_req reqs[QD], *done[QD];
	int sent = 0, got = 0, inflight = 0;
	double t0 = mono();

	while (got < n) {
		while (inflight < QD && sent < n) {
			struct ini_req *r = &reqs[sent % QD];

			ini_req_rw(r, write ? nvme_cmd_write : nvme_cmd_read, nsid,
				   (uint64_t)(sent * 7) % 16384, 1, bufs[sent % QD], 4096);
			assert_int_equal(ini_submit(q, r), 0);
			sent++;
			inflight++;
		}
		int k = ini_poll(q, done, QD);

		assert_true(k >= 1);
		for (int i = 0; i < k; i++)
			assert_int_equal(ini_status(&done[i]->cqe), 0);
		got += k;
		inflight -= k;
	}
	return mono() - t0;
}

/* A limit is honoured: 1000 reads at 400 IOPS (burst 50 ms: 20) take at least 2.4 s. */
static void test_read_limit(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	double secs;

	assert_int_equal(run(e, "qos set %s 1 --read-iops 400 --burst-ms 50", SUBNQN), 0);
	assert_non_null(strstr(e->out, "read iops   400"));
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	secs = drive(c->io[0], 1, 1000, false);
	if (secs < (1000 - 20) / 400.0 * 0.99)
		fail_msg("1000 reads at 400 IOPS took %.2f s", secs);
	/* Writes are not held by a read limit; the neighbour is not held at all. */
	drive(c->io[0], 1, 200, true);
	drive(c->io[0], 2, 2000, false);
	assert_int_equal(run(e, "--json qos show %s 1", SUBNQN), 0);
	{
		json_object *o = json_tokener_parse(e->out), *arr, *i, *v;

		assert_non_null(o);
		assert_true(json_object_object_get_ex(o, "namespaces", &arr));
		i = json_object_array_get_idx(arr, 0);
		assert_true(json_object_object_get_ex(i, "reads_held", &v));
		assert_true(json_object_get_int64(v) > 0);
		assert_true(json_object_object_get_ex(i, "writes_held", &v));
		assert_int_equal(json_object_get_int64(v), 0);
		json_object_put(o);
	}
	assert_int_equal(run(e, "qos show %s 2", SUBNQN), 0);
	assert_non_null(strstr(e->out, "held back: 0 reads"));
	ini_ctrl_destroy(c);
}

/* Changed live: a bytes limit; then lifted ("off") and the namespace is free again. */
static void test_live_change_and_lift(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	double secs;

	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	/* 1 MB/s of writes: 500 x 4 KiB (2.048 MB) take at least ~1.9 s. */
	assert_int_equal(run(e, "qos set %s 1 --write-mbps 1 --read-iops off", SUBNQN), 0);
	secs = drive(c->io[0], 1, 500, true);
	if (secs < (2048000 - 50000) / 1e6 * 0.99)
		fail_msg("2 MB of writes at 1 MB/s took %.2f s", secs);
	assert_int_equal(run(e, "qos set %s 1 --write-mbps 0", SUBNQN), 0);
	assert_int_equal(run(e, "--json qos show %s 1", SUBNQN), 0);
	assert_null(strstr(e->out, "\"write_mbps\":1,"));
	/* Bad input: a clear error, nothing changed. */
	assert_int_equal(run(e, "qos set %s 1 --weight 5000", SUBNQN), 1);
	assert_non_null(strstr(e->out, "qos.weight: must be 1..1000"));
	assert_int_equal(run(e, "qos set %s 1 --iops lots", SUBNQN), 64);
	assert_int_equal(run(e, "qos set %s 1", SUBNQN), 64);
	assert_int_equal(run(e, "qos set %s 9 --iops 5", SUBNQN), 2);
	ini_ctrl_destroy(c);
}

/* Kept: the limits come back after a restart from the state file. */
static void test_restart_keeps_limits(void **state)
{
	struct env *e = *state;
	uint16_t p1 = e->fx.d.nvm_port, p2 = e->fx.d.disc_port;
	const char *argv[] = { "--data-dir", e->fx.data_dir, "--log-level", "1", NULL };
	struct ini_ctrl *c;
	double secs;

	assert_int_equal(run(e, "qos set %s 2 --iops 300 --burst-ms 10 --weight 3", SUBNQN), 0);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	assert_int_equal(fx_start_argv(&e->fx.d, argv, FX_ADDR, p1, p2), 0);
	assert_int_equal(run(e, "qos show %s 2", SUBNQN), 0);
	assert_non_null(strstr(e->out, "iops        300"));
	assert_non_null(strstr(e->out, "weight      3"));
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	secs = drive(c->io[0], 2, 600, false);
	if (secs < (600 - 3) / 300.0 * 0.99)
		fail_msg("600 reads at 300 IOPS took %.2f s after the restart", secs);
	ini_ctrl_destroy(c);
}

int main(void)
{
	static const struct fx_group g = { .who = "test_qos_limits",
					   .subsystems = subsystems,
					   .own_data_dir = true,
					   .size = sizeof(struct env) };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_limit),
		cmocka_unit_test(test_live_change_and_lift),
		cmocka_unit_test(test_restart_keeps_limits),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
