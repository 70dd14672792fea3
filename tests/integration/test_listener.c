/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of `bloxctl listener remove` under connected hosts,
 * over loopback with bloxd on two reactors (I/O queues on both): one
 * subsystem served on the fixture's listener and on a second one added
 * with bloxctl; host A connected through the second, host B through the
 * first, both doing I/O.
 *
 * - Without --force the remove is refused (exit 4) and changes nothing; an
 *   unknown listener is exit 2, with --force and --json too.
 * - With --force, while B's I/O runs and A has commands in flight: the
 *   answer comes (exit 0, --json) once A's queues are closed: A sees each
 *   of its connections end (admin and I/O, a connection that never sent an
 *   ICReq too), the port refuses new connections, the listener is gone
 *   from listener list and the state file, a persistent discovery
 *   controller gets the Discovery Log Page Change notice, and B's I/O went
 *   on without an error and goes on after.
 * - The listener can be added again and serves a new controller.
 * - bloxd stops cleanly after (exit 0: no sanitizer report).
 *
 * No timing is asserted: the deadlines only turn a hang into a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:listener"
#define BS 4096u
#define NBLK 4096u /* 16 MiB */
#define NR_IO 2 /* I/O queues per controller: qid 1 on reactor 1, qid 2 on reactor 0 */
#define INFLIGHT 8 /* commands A has outstanding on each I/O queue at the remove */
#define AEN_DISC 0x70f002u /* Notice, Discovery Log Page Change, log 70h */

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"serial\": \"LSN0001\","
	"  \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096}"
	"  ] } ]";

static const char *const bloxd_args[] = { "--reactors", "2", NULL };

/* B's I/O while the listener goes: verified writes and reads in a loop. */
struct worker {
	struct ini_queue *q;
	uint64_t first; /* its LBA range: first .. first + 256 */
	uint64_t seed;
	atomic_bool stop;
	uint64_t ops, errors;
	pthread_t th;
};

struct env {
	struct fx_env e;
	uint16_t port2;
	struct ini_ctrl *a, *b; /* A through port2, B through the fixture's port */
};

static int env_setup(void *p)
{
	struct env *v = p;

	v->port2 = fx_listener_add(&v->e.d, "");
	return v->port2 ? 0 : -1;
}

static void env_teardown(void *p)
{
	struct env *v = p;

	if (v->a)
		ini_ctrl_destroy(v->a);
	if (v->b)
		ini_ctrl_destroy(v->b);
}

/* A controller of @host with NR_IO I/O queues through @port. */
static struct ini_ctrl *ctrl_on(struct env *v, uint16_t port, const char *host)
{
	struct fx_daemon path = v->e.d;
	struct ini_ctrl *c = NULL;

	path.nvm_port = port;
	assert_int_equal(fx_ctrl(&path, SUBNQN, host, NR_IO, NULL, &c), 0);
	assert_int_equal(c->nr_io, NR_IO);
	return c;
}

/* The listener on @port is in bloxctl listener list --json. */
static bool listed(struct env *v, uint16_t port)
{
	char out[8192], want[32];
	const char *at = out;
	size_t n;

	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener list --json"), 0);
	n = (size_t)snprintf(want, sizeof(want), "\"port\":%u", port);
	while ((at = strstr(at, want)))
		if (at[n] < '0' || at[n] > '9')
			return true;
		else
			at += n;
	return false;
}

/* The listener on @port is in the state file. */
static bool in_state_file(struct env *v, uint16_t port)
{
	char path[256];
	struct json_object *root, *ls, *pv;
	bool found = false;

	snprintf(path, sizeof(path), "%s/bloxd-state.json", v->e.d.own_data);
	root = json_object_from_file(path);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "listeners", &ls));
	for (size_t i = 0; i < json_object_array_length(ls); i++)
		if (json_object_object_get_ex(json_object_array_get_idx(ls, i), "port", &pv) &&
		    json_object_get_int(pv) == port)
			found = true;
	json_object_put(root);
	return found;
}

/* 1. Hosts connected through it: refused without --force, nothing changes. */
static void test_refused_without_force(void **state)
{
	struct env *v = *state;
	char out[4096];

	v->a = ctrl_on(v, v->port2, FX_HOST_A);
	v->b = ctrl_on(v, v->e.d.nvm_port, FX_HOST_B);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener remove " FX_ADDR ":%u",
				v->port2),
			 4);
	if (!strstr(out, "connected queues") || !strstr(out, "--force"))
		fail_msg("listener remove: %s", out);
	assert_true(listed(v, v->port2));
	assert_true(in_state_file(v, v->port2));
	for (uint32_t i = 0; i < NR_IO; i++)
		assert_int_equal(fx_rw_check(v->a->io[i], 1, i, BS), 0);
}

/* 2. An unknown listener: exit 2, with --force and --json too. */
static void test_unknown(void **state)
{
	struct env *v = *state;
	uint16_t p;
	char out[4096];

	p = fx_other_port(&v->e.d, v->port2);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener remove " FX_ADDR ":%u", p), 2);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"--json listener remove --force " FX_ADDR ":%u", p),
			 2);
	if (!strstr(out, "not found"))
		fail_msg("listener remove --force of an unknown one: %s", out);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener remove --force"), 64);
}

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint8_t *wbuf = malloc(BS), *rbuf = malloc(BS);

	if (!wbuf || !rbuf) {
		w->errors++;
		goto out;
	}
	while (!atomic_load(&w->stop)) {
		uint64_t lba = w->first + w->ops % 256;

		fx_fill_random(wbuf, BS, &w->seed);
		if (ini_write(w->q, 1, lba, 1, wbuf, BS, false) || ini_read(w->q, 1, lba, 1, rbuf, BS) ||
		    memcmp(wbuf, rbuf, BS)) {
			w->errors++;
			break;
		}
		w->ops++;
	}
out:
	free(wbuf);
	free(rbuf);
	return NULL;
}

/* A persistent discovery controller through the discovery-only port, told of log changes. */
static struct ini_ctrl *disc_ctrl(struct env *v)
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	uint16_t st = 0;

	ini_ctrl_args_init(&a, FX_ADDR, v->e.d.disc_port, INI_DISC_NQN);
	a.nr_io = 0;
	a.kato_ms = 30000;
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	assert_int_equal(ini_set_features(c->admin, NVME_FEAT_FID_ASYNC_EVENT, 1u << 31, NULL), 0);
	return c;
}

/*
 * 3. --force under I/O: A's queues close (on both reactors), the port
 * refuses, the listener is gone everywhere, the discovery controller is
 * told, B's I/O goes on.
 */
static void test_force(void **state)
{
	struct env *v = *state;
	struct worker w[NR_IO];
	struct ini_req reqs[NR_IO][INFLIGHT], aer;
	struct ini_ctrl *pc = disc_ctrl(v);
	struct ini_queue *raw = NULL, *refused = NULL;
	uint8_t *bufs = calloc(NR_IO * INFLIGHT, BS);
	char out[4096];

	assert_non_null(bufs);
	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(pc->admin, &aer), 0);
	/* A connection that never gets as far as its ICReq. */
	assert_int_equal(ini_queue_open(FX_ADDR, v->port2, NULL, &raw), 0);
	for (uint32_t i = 0; i < NR_IO; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].q = v->b->io[i];
		w[i].first = 1024 + 256 * i;
		w[i].seed = v->e.seed + i;
		assert_int_equal(pthread_create(&w[i].th, NULL, worker_fn, &w[i]), 0);
	}
	/* A's writes in flight on each of its I/O queues. */
	for (uint32_t i = 0; i < NR_IO; i++)
		for (uint32_t k = 0; k < INFLIGHT; k++) {
			struct ini_req *r = &reqs[i][k];

			ini_req_rw(r, nvme_cmd_write, 1, 2048 + i * INFLIGHT + k, 1,
				   bufs + (i * INFLIGHT + k) * BS, BS);
			assert_int_equal(ini_submit(v->a->io[i], r), 0);
		}
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener remove " FX_ADDR ":%u --force --json", v->port2),
			 0);
	if (!strchr(out, '{'))
		fail_msg("listener remove --force --json: %s", out);
	/* The answer came once they were gone: every one of A's connections ended. */
	assert_int_equal(ini_wait_closed(v->a->admin, 10000), 0);
	for (uint32_t i = 0; i < NR_IO; i++)
		assert_int_equal(ini_wait_closed(v->a->io[i], 10000), 0);
	assert_int_equal(ini_wait_closed(raw, 10000), 0);
	ini_queue_destroy(raw);
	ini_ctrl_destroy(v->a);
	v->a = NULL;
	free(bufs);
	/* The port takes no one. */
	assert_int_not_equal(ini_queue_open(FX_ADDR, v->port2, NULL, &refused), 0);
	assert_false(listed(v, v->port2));
	assert_true(listed(v, v->e.d.nvm_port));
	assert_false(in_state_file(v, v->port2));
	assert_true(in_state_file(v, v->e.d.nvm_port));
	/* The discovery log lost its entry: the notice. */
	assert_int_equal(ini_wait(pc->admin, &aer), 0);
	assert_int_equal(ini_status(&aer.cqe), 0);
	assert_int_equal(aer.cqe.result, AEN_DISC);
	ini_ctrl_destroy(pc);
	/* B never noticed, and goes on. */
	for (uint32_t i = 0; i < NR_IO; i++) {
		atomic_store(&w[i].stop, true);
		pthread_join(w[i].th, NULL);
		assert_int_equal(w[i].errors, 0);
		assert_true(w[i].ops > 0);
		assert_int_equal(fx_rw_check(v->b->io[i], 1, 3000 + i, BS), 0);
	}
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "ctrl list --json"), 0);
	if (!strstr(out, FX_HOST_B) || strstr(out, FX_HOST_A))
		fail_msg("ctrl list after the remove: %s", out);
}

/* 4. Added again, it serves a new controller; removed without hosts, no --force needed. */
static void test_add_again(void **state)
{
	struct env *v = *state;
	char out[4096];

	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener add " FX_ADDR ":%u",
				v->port2),
			 0);
	v->a = ctrl_on(v, v->port2, FX_HOST_A);
	for (uint32_t i = 0; i < NR_IO; i++)
		assert_int_equal(fx_rw_check(v->a->io[i], 1, 4000 + i, BS), 0);
	ini_ctrl_destroy(v->a);
	v->a = NULL;
	/* Its queues are gone once bloxd saw the connections end; give it the time it takes. */
	for (int i = 0; i < 1000; i++) {
		int rc = fx_ctl(&v->e.d, out, sizeof(out), "listener remove " FX_ADDR ":%u",
				v->port2);

		if (rc == 0)
			break;
		assert_int_equal(rc, 4);
		fx_sleep_ms(10);
	}
	assert_false(listed(v, v->port2));
}

int main(void)
{
	static const struct fx_group g = {
		.who = "test_listener",
		.subsystems = subsystems,
		.extra_args = bloxd_args,
		.size = sizeof(struct env),
		.setup = env_setup,
		.teardown = env_teardown,
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_without_force),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_force),
		cmocka_unit_test(test_add_again),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
