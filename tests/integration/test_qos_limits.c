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
#include <pthread.h>
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

/* @n 4 KiB reads (or writes) over [0, @span) blocks of @nsid at QD 16, all successful; seconds. */
static double drive_span(struct ini_queue *q, uint32_t nsid, int n, bool write, uint64_t span)
{
	static uint8_t bufs[QD][4096];
	struct ini_req reqs[QD], *done[QD];
	int sent = 0, got = 0, inflight = 0;
	double t0 = mono();

	while (got < n) {
		while (inflight < QD && sent < n) {
			struct ini_req *r = &reqs[sent % QD];

			ini_req_rw(r, write ? nvme_cmd_write : nvme_cmd_read, nsid,
				   (uint64_t)(sent * 7) % span, 1, bufs[sent % QD], 4096);
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

static double drive(struct ini_queue *q, uint32_t nsid, int n, bool write)
{
	return drive_span(q, nsid, n, write, 16384);
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
	assert_non_null(strstr(e->out, "'lots' is not a number"));
	/* Too large for any limit (and for the wire): said so, with the limit. */
	assert_int_equal(run(e, "qos set %s 1 --read-iops 100000000000", SUBNQN), 64);
	assert_non_null(strstr(e->out, "--read-iops 100000000000 is over the limit: "
				       "at most 100000000 IOPS"));
	assert_int_equal(run(e, "ns create %s --size 4M --backend ram --weight 4294967296", SUBNQN),
			 64);
	assert_non_null(strstr(e->out, "--weight 4294967296 is over the limit: at most 1000"));
	/* Over the limit but a number the request holds: bloxd says the same. */
	assert_int_equal(run(e, "qos set %s 1 --write-mbps 1000001", SUBNQN), 1);
	assert_non_null(strstr(e->out, "qos.write_mbps: at most 1000000"));
	assert_int_equal(run(e, "qos set %s 1 --iops 100000000 --iops off", SUBNQN), 0);
	assert_int_equal(run(e, "qos set %s 1", SUBNQN), 64);
	assert_int_equal(run(e, "qos set %s 9 --iops 5", SUBNQN), 2);
	ini_ctrl_destroy(c);
}

/* Kept: the limits come back after a restart from the state file. */
static void test_restart_keeps_limits(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	double secs;

	assert_int_equal(run(e, "qos set %s 2 --iops 300 --burst-ms 10 --weight 3", SUBNQN), 0);
	fx_restart(&e->fx, false);
	assert_int_equal(run(e, "qos show %s 2", SUBNQN), 0);
	assert_non_null(strstr(e->out, "iops        300"));
	assert_non_null(strstr(e->out, "weight      3"));
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	secs = drive(c->io[0], 2, 600, false);
	if (secs < (600 - 3) / 300.0 * 0.99)
		fail_msg("600 reads at 300 IOPS took %.2f s after the restart", secs);
	ini_ctrl_destroy(c);
}

static uint64_t die_time(struct env *e, uint32_t nsid)
{
	json_object *o, *arr, *v;
	uint64_t ns = 0;

	assert_int_equal(run(e, "--json qos show %s %u", SUBNQN, nsid), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &arr));
	if (json_object_object_get_ex(json_object_array_get_idx(arr, 0), "die_time_ns", &v))
		ns = (uint64_t)json_object_get_int64(v);
	json_object_put(o);
	return ns;
}

/* One writer of the weights test: 32 KiB writes at QD 16 until told to stop. */
struct writer {
	struct ini_queue *q;
	uint32_t nsid;
	volatile bool stop;
	int errors;
	uint64_t done;
};

static void *writer_run(void *arg)
{
	struct writer *w = arg;
	static __thread uint8_t buf[QD][32768];
	struct ini_req reqs[QD], *done[QD];
	int out = 0;
	uint64_t sent = 0;

	for (int i = 0; i < QD; i++) {
		ini_req_rw(&reqs[i], nvme_cmd_write, w->nsid, (uint64_t)i * 8, 8, buf[i],
			   sizeof(buf[i]));
		if (ini_submit(w->q, &reqs[i]))
			w->errors++;
		out++;
		sent++;
	}
	while (out) {
		int got = ini_poll(w->q, done, QD);

		if (got < 1) {
			w->errors++;
			break;
		}
		out -= got;
		for (int j = 0; j < got; j++) {
			if (ini_status(&done[j]->cqe))
				w->errors++;
			w->done++;
			if (__atomic_load_n(&w->stop, __ATOMIC_RELAXED))
				continue;
			ini_req_rw(done[j], nvme_cmd_write, w->nsid, sent * 37 % 1000 * 8, 8,
				   done[j]->buf, 32768);
			if (ini_submit(w->q, done[j]))
				w->errors++;
			out++;
			sent++;
		}
	}
	return NULL;
}

/*
 * Weights: two software vSSDs on the same dies, weighted 1:3 and both
 * writing as fast as they can (a thread each), get their dies' time
 * about 1:3, read while both are backlogged (a share is a rate, whatever
 * the machine's speed).
 */
static void test_weights_share_dies(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c[2];
	struct writer w[2];
	pthread_t th[2];
	uint64_t t0[2], t1[2];
	double ratio;

	assert_int_equal(run(e, "device create shared --channels 1 --dies-per-channel 2 "
				"--planes 1 --pages-per-block 96 --blocks-per-plane 64"),
			 0);
	for (int k = 0; k < 2; k++)
		assert_int_equal(run(e, "ns create %s --nsid %d --size 32M --device shared "
					"--isolation software --weight %d",
				     SUBNQN, 5 + k, k ? 3 : 1),
				 0);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c[k]), 0);
		w[k] = (struct writer){ .q = c[k]->io[0], .nsid = 5 + k };
	}
	t0[0] = die_time(e, 5);
	t0[1] = die_time(e, 6);
	for (int k = 0; k < 2; k++)
		assert_int_equal(pthread_create(&th[k], NULL, writer_run, &w[k]), 0);
	fx_sleep_ms(4000);
	t1[0] = die_time(e, 5);
	t1[1] = die_time(e, 6);
	for (int k = 0; k < 2; k++)
		__atomic_store_n(&w[k].stop, true, __ATOMIC_RELAXED);
	for (int k = 0; k < 2; k++) {
		pthread_join(th[k], NULL);
		assert_int_equal(w[k].errors, 0);
		ini_ctrl_destroy(c[k]);
	}
	ratio = (double)(t1[1] - t0[1]) / (double)(t1[0] - t0[0] ? t1[0] - t0[0] : 1);
	fprintf(stderr, "test_qos_limits: die time 1:%.2f for weights 1:3 (%lu and %lu writes)\n",
		ratio, (unsigned long)w[0].done, (unsigned long)w[1].done);
	if (ratio < 2.2 || ratio > 4.0)
		fail_msg("weights 1:3 gave die time 1:%.2f", ratio);
}

/*
 * The smart suspension policy on a running device: reads among programs
 * and erases on one die; `bloxctl stats` shows its decisions by reason.
 */
static void test_smart_suspension_visible(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	json_object *o, *arr, *n, *nand, *v;
	uint64_t decided = 0;
	static const char *const reasons[] = { "susp_granted", "susp_nearly_done", "susp_capped",
					       "susp_pressure", "susp_gc_urgent",
					       "susp_not_host_read" };

	assert_int_equal(run(e, "device create smart --channels 1 --dies-per-channel 1 --planes 1 "
				"--pages-per-block 96 --blocks-per-plane 32 --suspend-policy smart"),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 9 --size 16M --device smart --isolation chip:1",
			     SUBNQN),
			 0);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	/* Fill, then overwrite and read together so reads meet programs and erases. */
	drive_span(c->io[0], 9, 4096, true, 4096);
	for (int round = 0; round < 6; round++) {
		drive_span(c->io[0], 9, 1500, true, 4096);
		drive_span(c->io[0], 9, 500, false, 4096);
	}
	ini_ctrl_destroy(c);
	assert_int_equal(run(e, "--json stats %s 9", SUBNQN), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &arr));
	n = json_object_array_get_idx(arr, 0);
	assert_true(json_object_object_get_ex(n, "nand", &nand));
	assert_true(json_object_object_get_ex(nand, "suspend_policy", &v));
	assert_string_equal(json_object_get_string(v), "smart");
	for (size_t i = 0; i < sizeof(reasons) / sizeof(reasons[0]); i++) {
		assert_true(json_object_object_get_ex(nand, reasons[i], &v));
		decided += (uint64_t)json_object_get_int64(v);
	}
	json_object_put(o);
	fprintf(stderr, "test_qos_limits: the smart policy made %lu decisions\n",
		(unsigned long)decided);
	assert_true(decided > 0);
	assert_int_equal(run(e, "stats %s 9", SUBNQN), 0);
	assert_non_null(strstr(e->out, "(smart): granted"));
}

/* Whether the FTL of namespace @nsid runs its GC pipelined (bloxctl --json stats). */
static bool gc_pipelined(struct env *e, uint32_t nsid)
{
	json_object *o, *arr, *ftl, *v;
	bool on = false;

	assert_int_equal(run(e, "--json stats %s %u", SUBNQN, nsid), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &arr));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "ftl", &ftl));
	if (json_object_object_get_ex(ftl, "gc_pipeline", &v))
		on = json_object_get_boolean(v);
	json_object_put(o);
	return on;
}

/*
 * The GC pipeline: on by default for a software vSSD (its weight holds
 * under write load), off for one with dies of its own, and what the
 * namespace asks for either way; kept across a restart.
 */
static void test_gc_pipeline_default(void **state)
{
	struct env *e = *state;

	assert_int_equal(run(e, "device create pipe --channels 4 --dies-per-channel 1 "
				"--planes 1 --pages-per-block 96 --blocks-per-plane 64"),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 11 --size 8M --device pipe "
				"--isolation software", SUBNQN),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 12 --size 8M --device pipe "
				"--isolation software --gc-pipeline off", SUBNQN),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 13 --size 8M --device pipe "
				"--isolation chip:1", SUBNQN),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 14 --size 8M --device pipe "
				"--isolation chip:1 --gc-pipeline on", SUBNQN),
			 0);
	for (int pass = 0; pass < 2; pass++) {
		assert_true(gc_pipelined(e, 11));
		assert_false(gc_pipelined(e, 12));
		assert_false(gc_pipelined(e, 13));
		assert_true(gc_pipelined(e, 14));
		if (!pass)
			fx_restart(&e->fx, false);
	}
	assert_int_equal(run(e, "stats %s 11", SUBNQN), 0);
	assert_non_null(strstr(e->out, "GC pipelined"));
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
		cmocka_unit_test(test_weights_share_dies),
		cmocka_unit_test(test_smart_suspension_visible),
		cmocka_unit_test(test_gc_pipeline_default),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
