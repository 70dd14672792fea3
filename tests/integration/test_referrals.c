/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of discovery referrals over loopback, three bloxd
 * processes (their own ports and data directories): node A refers hosts
 * (bloxctl referral add) to the discovery services of nodes B and C. The
 * project's initiator reads A's discovery log, follows its referrals (as
 * nvme connect-all does) and connects to the subsystem of every node,
 * writing and reading back a block on each. A persistent discovery
 * controller on A (KATO set, Discovery Log Page Change notices enabled) is
 * told when a referral goes and comes back, and the log's generation
 * counter moves each time, also when C's node stops and starts again (A
 * watches the nodes it refers to). Bad input is refused and changes
 * nothing; the referrals are in A's state file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

#define NQN_A "nqn.2026-12.io.blox:node-a"
#define NQN_B "nqn.2026-12.io.blox:node-b"
#define NQN_C "nqn.2026-12.io.blox:node-c"
#define BS 4096u
#define AEN_DISC 0x70f002u /* Notice, Discovery Log Page Change, log 70h */
#define MAX_HOPS 8

#define NODE(nqn)                                                                          \
	"[ { \"nqn\": \"" nqn "\", \"allow_any_host\": true, \"namespaces\": ["           \
	"  {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"4M\", \"block_size\": 4096} ] } ]"

struct env {
	struct fx_env e; /* node A */
	struct fx_daemon b, c;
};

static int env_setup(void *p)
{
	struct env *v = p;

	if (fx_start(&v->b, NODE(NQN_B)) || fx_start(&v->c, NODE(NQN_C)))
		return -1;
	return 0;
}

static void env_teardown(void *p)
{
	struct env *v = p;

	if (v->b.pid)
		fx_stop(&v->b);
	if (v->c.pid)
		fx_stop(&v->c);
}

static struct ini_ctrl *disc_ctrl(uint16_t port, uint32_t kato_ms)
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	uint16_t st = 0;

	ini_ctrl_args_init(&a, FX_ADDR, port, INI_DISC_NQN);
	a.nr_io = 0;
	a.kato_ms = kato_ms;
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	return c;
}

/* The whole discovery log of @q (malloc'd), its record count in *@n. */
static struct nvmf_discovery_log *disc_log(struct ini_queue *q, uint64_t *n)
{
	struct nvmf_discovery_log *h = calloc(1, 1024), *log;
	size_t len;

	assert_non_null(h);
	assert_int_equal(ini_get_log(q, NVME_LOG_LID_DISCOVER, 0, 0, h, 1024), 0);
	*n = h->numrec;
	len = 1024 + *n * sizeof(struct nvmf_disc_log_entry);
	log = calloc(1, len);
	assert_non_null(log);
	assert_int_equal(ini_get_log(q, NVME_LOG_LID_DISCOVER, 0, 0, log, (uint32_t)len), 0);
	assert_int_equal(log->genctr, h->genctr);
	free(h);
	return log;
}

/* How many entries of @subtype for port @port @log has. */
static int count(const struct nvmf_discovery_log *log, uint64_t n, uint8_t subtype, uint16_t port)
{
	char svc[40];
	int k = 0;

	for (uint64_t i = 0; i < n; i++) {
		fx_field_str(svc, sizeof(svc), log->entries[i].trsvcid,
			     sizeof(log->entries[i].trsvcid));
		k += log->entries[i].subtype == subtype && atoi(svc) == port;
	}
	return k;
}

struct walk {
	uint16_t seen_disc[MAX_HOPS];
	int nr_disc;
	char nqns[MAX_HOPS][NVME_NQN_LENGTH];
	int nr_nqns;
	uint64_t seed;
};

/*
 * connect-all from the discovery service at @port: every NVM subsystem
 * entry connected (once per NQN) with a write and read back; every
 * referral followed once.
 */
static void walk_from(struct walk *w, uint16_t port)
{
	struct ini_ctrl *dc;
	struct nvmf_discovery_log *log;
	uint64_t n;

	for (int i = 0; i < w->nr_disc; i++)
		if (w->seen_disc[i] == port)
			return;
	assert_true(w->nr_disc < MAX_HOPS);
	w->seen_disc[w->nr_disc++] = port;
	dc = disc_ctrl(port, 0);
	log = disc_log(dc->admin, &n);
	ini_ctrl_destroy(dc);
	for (uint64_t i = 0; i < n; i++) {
		const struct nvmf_disc_log_entry *e = &log->entries[i];
		char svc[40], addr[300], nqn[NVME_NQN_LENGTH];
		struct ini_ctrl_args a;
		struct ini_ctrl *c = NULL;
		bool dup = false;
		uint16_t st = 0;

		fx_field_str(svc, sizeof(svc), e->trsvcid, sizeof(e->trsvcid));
		fx_field_str(addr, sizeof(addr), e->traddr, sizeof(e->traddr));
		fx_field_str(nqn, sizeof(nqn), e->subnqn, sizeof(e->subnqn));
		assert_string_equal(addr, FX_ADDR);
		if (e->subtype == NVME_NQN_DISC) {
			assert_string_equal(nqn, INI_DISC_NQN);
			walk_from(w, (uint16_t)atoi(svc));
			continue;
		}
		assert_int_equal(e->subtype, NVME_NQN_NVME);
		for (int k = 0; k < w->nr_nqns; k++)
			dup |= !strcmp(w->nqns[k], nqn);
		if (dup)
			continue;
		ini_ctrl_args_init(&a, FX_ADDR, (uint16_t)atoi(svc), nqn);
		assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
		assert_int_equal(fx_rw_check(c->io[0], 1, 3, BS), 0);
		ini_ctrl_destroy(c);
		assert_true(w->nr_nqns < MAX_HOPS);
		snprintf(w->nqns[w->nr_nqns++], NVME_NQN_LENGTH, "%s", nqn);
	}
	free(log);
}

static bool walked(const struct walk *w, const char *nqn)
{
	for (int k = 0; k < w->nr_nqns; k++)
		if (!strcmp(w->nqns[k], nqn))
			return true;
	return false;
}

/* 1. Referrals to B and C: listed by bloxctl and in A's log (subtype 1). */
static void test_referrals_listed(void **state)
{
	struct env *v = *state;
	struct nvmf_discovery_log *log;
	struct ini_ctrl *dc;
	char out[4096], want[64];
	uint64_t n, g0;

	dc = disc_ctrl(v->e.d.disc_port, 0);
	log = disc_log(dc->admin, &n);
	g0 = log->genctr;
	assert_int_equal(count(log, n, NVME_NQN_DISC, v->b.disc_port), 0);
	free(log);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral add " FX_ADDR ":%u",
				v->b.disc_port),
			 0);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral add " FX_ADDR ":%u --json",
				v->c.disc_port),
			 0);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "--json referral list"), 0);
	snprintf(want, sizeof(want), "\"port\":%u", v->b.disc_port);
	if (!strstr(out, want))
		fail_msg("referral list --json:\n%s", out);
	snprintf(want, sizeof(want), "\"port\":%u", v->c.disc_port);
	if (!strstr(out, want) || !strstr(out, "\"genctr\":"))
		fail_msg("referral list --json:\n%s", out);
	log = disc_log(dc->admin, &n);
	assert_int_equal(log->genctr, g0 + 2);
	assert_int_equal(count(log, n, NVME_NQN_DISC, v->b.disc_port), 1);
	assert_int_equal(count(log, n, NVME_NQN_DISC, v->c.disc_port), 1);
	assert_int_equal(count(log, n, NVME_NQN_NVME, v->e.d.nvm_port), 1);
	free(log);
	ini_ctrl_destroy(dc);
}

/* 2. connect-all through A reaches the subsystems of all three nodes. */
static void test_connect_all(void **state)
{
	struct env *v = *state;
	struct walk w = { .seed = v->e.seed };

	walk_from(&w, v->e.d.disc_port);
	assert_int_equal(w.nr_disc, 3);
	assert_int_equal(w.nr_nqns, 3);
	assert_true(walked(&w, NQN_A));
	assert_true(walked(&w, NQN_B));
	assert_true(walked(&w, NQN_C));
}

/*
 * 3. A persistent discovery controller on A is told when C's referral goes
 * and comes back; the generation counter moves each time; a controller
 * without KATO is not told.
 */
static void test_change_notice(void **state)
{
	struct env *v = *state;
	struct ini_ctrl *pc = disc_ctrl(v->e.d.disc_port, 30000);
	struct nvmf_discovery_log *log;
	struct ini_req aer;
	char out[4096];
	uint64_t n, g;

	assert_true(pc->id.oaes & (1u << 31));
	assert_int_equal(ini_set_features(pc->admin, NVME_FEAT_FID_ASYNC_EVENT, 1u << 31, NULL), 0);
	log = disc_log(pc->admin, &n);
	g = log->genctr;
	free(log);
	for (int round = 0; round < 2; round++) {
		ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
		assert_int_equal(ini_submit(pc->admin, &aer), 0);
		assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral %s " FX_ADDR ":%u",
					round ? "add" : "remove", v->c.disc_port),
				 0);
		assert_int_equal(ini_wait(pc->admin, &aer), 0);
		assert_int_equal(ini_status(&aer.cqe), 0);
		assert_int_equal(aer.cqe.result, AEN_DISC);
		/* Read without RAE: the next change may be told. */
		log = disc_log(pc->admin, &n);
		assert_int_equal(log->genctr, g + 1);
		g = log->genctr;
		assert_int_equal(count(log, n, NVME_NQN_DISC, v->c.disc_port), round ? 1 : 0);
		assert_int_equal(count(log, n, NVME_NQN_DISC, v->b.disc_port), 1);
		free(log);
	}
	/* A listener added on A is a change too. */
	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(pc->admin, &aer), 0);
	{
		uint16_t p = fx_free_port(FX_ADDR);

		assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener add " FX_ADDR ":%u", p), 0);
		assert_int_equal(ini_wait(pc->admin, &aer), 0);
		assert_int_equal(aer.cqe.result, AEN_DISC);
		assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener remove " FX_ADDR ":%u", p),
				 0);
	}
	ini_ctrl_destroy(pc);
}

/* "state":"S" of the referral at @port in A's `referral list --json`. */
static bool ref_state_is(struct env *v, uint16_t port, const char *st)
{
	char out[8192], want[64];
	const char *at;

	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral list --json"), 0);
	snprintf(want, sizeof(want), "\"port\":%u", port);
	at = strstr(out, want);
	assert_non_null(at);
	snprintf(want, sizeof(want), "\"state\":\"%s\"", st);
	at = strstr(at, "\"state\":");
	return at && !strncmp(at, want, strlen(want));
}

/* Wait (up to 5 s: A probes every 200 ms) until that referral's state is @st. */
static bool ref_state_wait(struct env *v, uint16_t port, const char *st)
{
	for (int i = 0; i < 100; i++) {
		if (ref_state_is(v, port, st))
			return true;
		usleep(50000);
	}
	return false;
}

/*
 * 4. A node going away and coming back shows in A's log by itself: A's
 * probes (--referral-probe-ms 200) find C's discovery service gone, leave
 * its referral out of the log and tell the persistent discovery controller;
 * C started again on the same ports is listed again, told too. B stays.
 */
static void test_node_liveness(void **state)
{
	struct env *v = *state;
	struct ini_ctrl *pc = disc_ctrl(v->e.d.disc_port, 30000);
	struct nvmf_discovery_log *log;
	struct ini_req aer;
	char nvm[32], disc[32];
	uint16_t c_nvm = v->c.nvm_port, c_disc = v->c.disc_port;
	const char *argv[] = { "-l", nvm, "-D", disc, "--log-level", "1", NULL };
	uint64_t n, g;

	snprintf(nvm, sizeof(nvm), FX_ADDR ":%u", c_nvm);
	snprintf(disc, sizeof(disc), FX_ADDR ":%u", c_disc);
	assert_int_equal(ini_set_features(pc->admin, NVME_FEAT_FID_ASYNC_EVENT, 1u << 31, NULL), 0);
	log = disc_log(pc->admin, &n);
	g = log->genctr;
	assert_int_equal(count(log, n, NVME_NQN_DISC, c_disc), 1);
	free(log);
	/* Re-added by test 3: up once A's next probe got through. */
	assert_true(ref_state_wait(v, c_disc, "up"));

	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(pc->admin, &aer), 0);
	assert_int_equal(fx_stop(&v->c), 0);
	assert_int_equal(ini_wait(pc->admin, &aer), 0);
	assert_int_equal(aer.cqe.result, AEN_DISC);
	log = disc_log(pc->admin, &n);
	assert_int_equal(log->genctr, g + 1);
	g = log->genctr;
	assert_int_equal(count(log, n, NVME_NQN_DISC, c_disc), 0);
	assert_int_equal(count(log, n, NVME_NQN_DISC, v->b.disc_port), 1);
	free(log);
	assert_true(ref_state_is(v, c_disc, "down"));
	assert_true(ref_state_wait(v, v->b.disc_port, "up"));

	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(pc->admin, &aer), 0);
	assert_int_equal(fx_start_argv(&v->c, argv, FX_ADDR, c_nvm, c_disc), 0);
	assert_int_equal(ini_wait(pc->admin, &aer), 0);
	assert_int_equal(aer.cqe.result, AEN_DISC);
	log = disc_log(pc->admin, &n);
	assert_int_equal(log->genctr, g + 1);
	assert_int_equal(count(log, n, NVME_NQN_DISC, c_disc), 1);
	free(log);
	assert_true(ref_state_wait(v, c_disc, "up"));
	ini_ctrl_destroy(pc);
}

/* 5. Bad input: refused with the reason and the exit code, nothing changed. */
static void test_bad_input(void **state)
{
	struct env *v = *state;
	char out[4096];

	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral add " FX_ADDR ":%u",
				v->b.disc_port),
			 3);
	assert_non_null(strstr(out, "already there"));
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral add 10.0.0:8009"), 1);
	assert_non_null(strstr(out, "not an IPv4 or IPv6 address"));
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral add " FX_ADDR ":0"), 64);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral add " FX_ADDR), 64);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral remove 10.9.9.9:8009"), 2);
	assert_non_null(strstr(out, "not found"));
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "referral list"), 0);
	assert_null(strstr(out, "10.0.0"));
	assert_null(strstr(out, "10.9.9.9"));
}

/* 6. The referrals are in A's state file. */
static void test_persisted(void **state)
{
	struct env *v = *state;
	char path[256], text[65536], want[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/bloxd-state.json", v->e.d.own_data);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	assert_non_null(strstr(text, "\"referrals\""));
	snprintf(want, sizeof(want), "\"port\": %u", v->b.disc_port);
	assert_non_null(strstr(text, want));
	snprintf(want, sizeof(want), "\"port\": %u", v->c.disc_port);
	assert_non_null(strstr(text, want));
}

static const char *const a_args[] = { "--referral-probe-ms", "200", NULL };

static const struct fx_group group = {
	.who = "test_referrals",
	.subsystems = NODE(NQN_A),
	.extra_args = a_args,
	.size = sizeof(struct env),
	.setup = env_setup,
	.teardown = env_teardown,
};

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_referrals_listed),
		cmocka_unit_test(test_connect_all),
		cmocka_unit_test(test_change_notice),
		cmocka_unit_test(test_node_liveness),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_persisted),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&group, tests);
}
