/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The model beside the measurement end to end: namespaces on emulated
 * NAND under load from the project's initiator, then `bloxctl --json
 * stats` carries each one's model (common/include/blox_model.h) with sane
 * figures, from op counts on a device of the namespace's own and from the
 * per-die busy counters on a registered device; a ram namespace has none;
 * `bloxctl stats` prints the model line. The checks on figures that
 * depend on the machine's speed are wide (a busy machine moves them), the
 * ones on the physics exact.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:model"
#define QD 16
#define SPAN 4096u /* LBAs written, then read */
/* TLC literature timing: tR 56/65/74 us, 2000 MB/s, tCMD 0.5 us: 4 KiB out in 2.548 us. */
#define T_READ_NS 65000.0
#define XFER_NS 2548.0

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"} ] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[262144];
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

/*
 * 4 KiB commands at QD 16 on namespaces @nsids[0..@n) in turn, all
 * successful: random LBAs below SPAN for @ms milliseconds, or with @ms 0
 * writes of every LBA below SPAN in order (so that every read after it
 * reads flash). Writes carry random data.
 */
static void drive(struct env *e, struct ini_queue *q, const uint32_t *nsids, int n, bool write,
		  int ms)
{
	static uint8_t bufs[QD][4096];
	struct ini_req reqs[QD], *done[QD];
	bool busy[QD] = { false };
	int64_t end = fx_now_ms() + ms;
	uint64_t k = 0, total = ms ? UINT64_MAX : (uint64_t)SPAN * (uint64_t)n;
	int inflight = 0;

#define MORE() (ms ? fx_now_ms() < end : k < total)
	while (inflight || MORE()) {
		for (int i = 0; i < QD && MORE(); i++) {
			uint64_t lba = ms ? fx_rand(&e->fx.seed) % SPAN : k / (uint64_t)n;

			if (busy[i])
				continue;
			if (write)
				fx_fill_random(bufs[i], sizeof(bufs[i]), &e->fx.seed);
			ini_req_rw(&reqs[i], write ? nvme_cmd_write : nvme_cmd_read,
				   nsids[k++ % (uint64_t)n], lba, 1, bufs[i], 4096);
			assert_int_equal(ini_submit(q, &reqs[i]), 0);
			busy[i] = true;
			inflight++;
		}
		if (!inflight)
			break;
		int got = ini_poll(q, done, QD);

		assert_true(got >= 1);
		for (int i = 0; i < got; i++) {
			assert_int_equal(ini_status(&done[i]->cqe), 0);
			busy[done[i] - reqs] = false;
		}
		inflight -= got;
	}
#undef MORE
}

static double num(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v)) {
		print_error("no \"%s\" in the model\n", key);
		fail();
	}
	return json_object_get_double(v);
}

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	assert_true(json_object_object_get_ex(o, key, &v));
	return json_object_get_string(v);
}

/* `bloxctl --json stats SUBNQN @nsid`: the namespace's model (NULL: none), in *@root. */
static json_object *model_of(struct env *e, uint32_t nsid, json_object **root)
{
	json_object *arr, *ns, *m;

	assert_int_equal(run(e, "--json stats %s %u", SUBNQN, nsid), 0);
	*root = json_tokener_parse(e->out);
	assert_non_null(*root);
	assert_true(json_object_object_get_ex(*root, "namespaces", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	ns = json_object_array_get_idx(arr, 0);
	return json_object_object_get_ex(ns, "model", &m) ? m : NULL;
}

/* What every model under a read load says, whatever the machine's speed. */
static void check_read_model(json_object *m, uint32_t dies, uint32_t channels,
			     const char *busy_from)
{
	double rho = num(m, "rho"), iops = num(m, "read_iops"), es = num(m, "service_ns");
	double bound = num(m, "read_iops_bound"), iv = num(m, "interval_s");

	printf("# model: %u dies, %.0f of %.0f reads/s bound over %.2f s, rho %.3f (%s), "
	       "E[S] %.1f us, P99 %.0f us measured, %.0f us predicted; writes %.0f/s, "
	       "%.0f/s predicted at WAF %.2f (%s)\n",
	       dies, iops, bound, iv, rho, busy_from, es / 1e3, num(m, "p99_read_ns") / 1e3,
	       num(m, "p99_read_pred_ns") / 1e3, num(m, "write_iops"),
	       num(m, "write_iops_pred"), num(m, "waf"), str(m, "waf_from"));
	assert_int_equal((uint32_t)num(m, "dies"), dies);
	assert_int_equal((uint32_t)num(m, "channels"), channels);
	assert_string_equal(str(m, "busy_from"), busy_from);
	/* The sampler's window: 0.5 to 2 s, and more on a slow machine's late timer. */
	assert_true(iv >= 0.5 && iv < 5);
	/* Physics: the dies bound, each holding a read for tR + its transfer. */
	assert_true(fabs(num(m, "t_read_ns") - T_READ_NS) < 1);
	assert_true(fabs(bound - dies * 1e9 / (T_READ_NS + XFER_NS)) < 1);
	/* Measured: reads flowed, below the bound; the dies were busy, not past full. */
	assert_true(iops > 0 && iops < bound);
	assert_true(rho > 0 && rho <= 1.05);
	/* At least the host's reads' share of the dies' time (mapping reads add to it). */
	assert_true(rho >= 0.8 * iops * (T_READ_NS + XFER_NS) / 1e9 / dies);
	/* A read's service: tR of its page type (56..74 us) and its transfer. */
	assert_true(es >= 56000 + XFER_NS - 1 && es <= 74000 + XFER_NS + 1);
	assert_true(num(m, "p99_read_ns") > 0);
	assert_true(num(m, "p99_read_pred_ns") >= es - 1);
	assert_true(num(m, "p99_read_pred_ns") <= es * (1 + 4.6052 * 99) + 1);
	/*
	 * The host holds QD 16 of reads. Where bloxd held them steadily (its
	 * mean depth near its max: a quiet machine) the prediction is the
	 * closed loop's at that depth, else the open queue's (a busy machine's
	 * initiator holds them part of the time); which one is said. Either
	 * way its mean is at least a read's service, and a closed loop's
	 * throughput is below the bound. The floor flag goes with the open one.
	 */
	printf("# read latency model %s at QD %.1f: mean %.0f us measured, %.0f us predicted, "
	       "%.0f reads/s predicted\n",
	       str(m, "latency_model"), num(m, "qd"), num(m, "read_mean_ns") / 1e3,
	       num(m, "read_mean_pred_ns") / 1e3, num(m, "read_iops_pred"));
	assert_true(num(m, "qd") > 0 && num(m, "qd") <= QD + 0.5);
	assert_true(num(m, "read_mean_ns") > 0);
	assert_true(num(m, "read_mean_pred_ns") >= es - 1);
	if (!strcmp(str(m, "latency_model"), "closed")) {
		assert_true(num(m, "read_iops_pred") > 0 && num(m, "read_iops_pred") <= bound + 1);
		assert_false(json_object_get_boolean(json_object_object_get(m, "saturated")));
	} else {
		assert_string_equal(str(m, "latency_model"), "open");
		assert_true(num(m, "read_iops_pred") == 0);
		assert_true(json_object_get_boolean(json_object_object_get(m, "saturated")) ==
			    (rho >= 0.99));
	}
	/* The FTL: a WAF and the writes its dies could take at it. */
	assert_true(num(m, "waf") >= 1 && num(m, "waf") < 100);
	assert_true(num(m, "write_iops_pred") > 0);
}

/*
 * The human stats @out: the block of namespace @nsid (up to the next
 * block) has a line starting @line that holds @then.
 */
static bool block_has(const char *out, uint32_t nsid, const char *line, const char *then)
{
	char head[160];
	const char *b, *end, *l;

	snprintf(head, sizeof(head), "\nnamespace %u of %s", nsid, SUBNQN);
	if (!(b = strstr(out, head)))
		return false;
	end = strstr(b + 1, "\n\n");
	end = end ? end : b + strlen(b);
	l = strstr(b, line);
	if (!l || l > end)
		return false;
	/* @then on that line or its continuations (up to the block's end). */
	l = strstr(l, then);
	return l && l < end;
}

static void test_model_under_load(void **state)
{
	struct env *e = *state;
	const uint32_t both[] = { 2, 3 };
	json_object *root, *m;
	struct ini_ctrl *c;

	/* 2: a device of its own, 2 x 2 dies; 3: two whole dies of a registered device. */
	assert_int_equal(run(e, "ns create %s --nsid 2 --size 32M --backend nand --channels 2 "
				"--dies-per-channel 2 --pages-per-block 96",
			     SUBNQN),
			 0);
	assert_int_equal(run(e, "device create ssd --channels 2 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 96 --blocks-per-plane 64"),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 3 --size 16M --device ssd --isolation chip:2",
			     SUBNQN),
			 0);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	/* Write what will be read, then read it back at QD 16 over both. */
	drive(e, c->io[0], both, 2, true, 0);
	assert_int_equal(ini_flush(c->io[0], 2), 0);
	assert_int_equal(ini_flush(c->io[0], 3), 0);
	drive(e, c->io[0], both, 2, false, 2500);

	m = model_of(e, 2, &root);
	assert_non_null(m);
	check_read_model(m, 4, 2, "dies");
	json_object_put(root);
	m = model_of(e, 3, &root);
	assert_non_null(m);
	/* chip:2 on 2 channels x 2 dies: both dies of one channel. */
	check_read_model(m, 2, 1, "dies");
	json_object_put(root);
	/* RAM: no flash, no model. */
	assert_null(model_of(e, 1, &root));
	json_object_put(root);

	/* Random writes: the interval's own WAF, the writes measured. */
	drive(e, c->io[0], both, 2, true, 2500);
	m = model_of(e, 2, &root);
	assert_non_null(m);
	printf("# writes: %.0f/s measured, %.0f/s predicted at WAF %.2f (%s), rho %.3f\n",
	       num(m, "write_iops"), num(m, "write_iops_pred"), num(m, "waf"),
	       str(m, "waf_from"), num(m, "rho"));
	assert_string_equal(str(m, "waf_from"), "interval");
	assert_true(num(m, "write_iops") > 0);
	assert_true(num(m, "waf") >= 1 && num(m, "waf") < 100);
	assert_true(num(m, "write_iops_pred") > 0);
	assert_true(num(m, "rho") > 0 && num(m, "rho") <= 1.05);
	json_object_put(root);

	/* For people: the model line in the namespace's block, beside the nand line. */
	assert_int_equal(run(e, "stats %s", SUBNQN), 0);
	for (const char *l = strstr(e->out, "\n  model "); l; l = strstr(l + 1, "\n  model "))
		printf("# %.*s\n", (int)strcspn(l + 1, "\n"), l + 1);
	assert_true(block_has(e->out, 2, "\n  model ", ": read IOPS "));
	assert_true(block_has(e->out, 3, "\n  model ", ": read IOPS "));
	assert_false(block_has(e->out, 1, "\n  model ", ""));
	assert_non_null(strstr(e->out, "predicted at WAF"));
	ini_ctrl_destroy(c);
}

/* Nothing happens: the model is there, with no traffic and no NaN. */
static void test_model_idle(void **state)
{
	struct env *e = *state;
	json_object *root, *m;

	fx_sleep_ms(2200); /* both samples of the window without I/O */
	m = model_of(e, 3, &root);
	assert_non_null(m);
	assert_true(num(m, "read_iops") == 0);
	assert_true(num(m, "p99_read_ns") == 0);
	assert_true(num(m, "rho") >= 0 && num(m, "rho") < 0.05);
	assert_true(num(m, "p99_read_pred_ns") >= num(m, "service_ns") - 1);
	assert_true(num(m, "p99_read_pred_ns") < 1.5 * num(m, "service_ns"));
	assert_false(json_object_get_boolean(json_object_object_get(m, "saturated")));
	/* json-c writes NaN and infinities as NaN, Infinity. */
	assert_null(strstr(e->out, "NaN"));
	assert_null(strstr(e->out, "Infinity"));
	json_object_put(root);
}

int main(void)
{
	static const struct fx_group g = {
		.who = "test_model",
		.subsystems = subsystems,
		.size = sizeof(struct env),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_under_load),
		cmocka_unit_test(test_model_idle),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
