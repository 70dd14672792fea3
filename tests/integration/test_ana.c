/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of Asymmetric Namespace Access over loopback: one
 * subsystem served on two listeners, the second added through bloxctl with
 * an ANA state from the start; one host with a controller through each (two
 * paths). The two controllers are of the same subsystem with their own
 * cntlids; each path's ANA log page tells its own states; bloxctl listener
 * ana-state turns group 2 through the second port to each state in turn:
 * its controller gets the ANA change notice and I/O on the group's
 * namespace the path status (Inaccessible, Persistent Loss, Transition)
 * while the other path and the other group go on; bad input is refused
 * with the reason and changes nothing; the states are in the state file.
 * A transition (--transition-ms) holds the group in the change state for
 * that long, then moves it to its target, the host told at each step.
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

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:ana"
#define BS 4096u
#define AEN_ANA 0x0c0302u /* Notice, ANA change, log 0Ch */

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"serial\": \"ANA0001\","
	"  \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096},"
	"  {\"nsid\": 2, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096,"
	"   \"ana_group\": 2}"
	"  ] } ]";

struct env {
	struct fx_env e;
	uint16_t port2;
	struct ini_ctrl *a, *b; /* through the fixture's port, through port2 */
	uint8_t *buf;
};

/* A controller of host A with one I/O queue through @port (one path). */
static struct ini_ctrl *ctrl_on(struct env *v, uint16_t port)
{
	static const uint8_t hostid[16] = { 0xaa, 1, 2, 3, 4, 5, 0x40, 7, 0x80, 9 };
	struct fx_daemon path = v->e.d;

	path.nvm_port = port;
	return fx_ctrl_host(&path, SUBNQN, FX_HOST_A, hostid);
}

static int env_setup(void *p)
{
	struct env *v = p;

	v->buf = calloc(1, 8192);
	if (!v->buf)
		return -1;
	v->port2 = fx_listener_add(&v->e.d, "--ana-state 2=non-optimized");
	if (!v->port2)
		return -1;
	v->a = ctrl_on(v, v->e.d.nvm_port);
	v->b = ctrl_on(v, v->port2);
	return v->a && v->b ? 0 : -1;
}

static void env_teardown(void *p)
{
	struct env *v = p;

	if (v->a)
		ini_ctrl_destroy(v->a);
	if (v->b)
		ini_ctrl_destroy(v->b);
	free(v->buf);
}

static int rd(struct env *v, struct ini_ctrl *c, uint32_t nsid)
{
	return ini_read(c->io[0], nsid, 0, 1, v->buf, BS);
}

/* The state of group @grp in @c's ANA log (0: not listed); its change count in *@chg. */
static uint8_t log_state(struct ini_ctrl *c, uint32_t grp, uint64_t *chg)
{
	uint8_t log[4096];
	const struct nvme_ana_log *h = (const void *)log;
	size_t off = sizeof(*h);

	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_ANA, 0xffffffff, 0, log, sizeof(log)),
			 0);
	if (chg)
		*chg = h->chgcnt;
	for (uint16_t i = 0; i < h->ngrps; i++) {
		struct nvme_ana_group_desc d;

		memcpy(&d, log + off, sizeof(d));
		if (d.grpid == grp)
			return d.state;
		off += sizeof(d) + 4 * d.nnsids;
	}
	return 0;
}

/* The ANA state bloxctl listener list --json gives for @port and @grp ("" none). */
static void ctl_state(struct env *v, uint16_t port, uint32_t grp, char *st, size_t len)
{
	static char out[65536];
	json_object *root, *ls, *ana;

	st[0] = '\0';
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener list --json"), 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "listeners", &ls));
	for (size_t i = 0; i < json_object_array_length(ls); i++) {
		json_object *l = json_object_array_get_idx(ls, i), *p;

		if (!json_object_object_get_ex(l, "port", &p) || json_object_get_int(p) != port ||
		    !json_object_object_get_ex(l, "ana", &ana))
			continue;
		for (size_t k = 0; k < json_object_array_length(ana); k++) {
			json_object *g = json_object_array_get_idx(ana, k), *x, *s;

			if (json_object_object_get_ex(g, "group", &x) &&
			    (uint32_t)json_object_get_int(x) == grp &&
			    json_object_object_get_ex(g, "state", &s))
				snprintf(st, len, "%s", json_object_get_string(s));
		}
	}
	json_object_put(root);
}

/* Post an AER on @c's admin queue. */
static void aer_post(struct ini_ctrl *c, struct ini_req *aer)
{
	ini_req_init(aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(c->admin, aer), 0);
}

/* Wait for the AER: the ANA change notice. */
static void aer_ana(struct ini_ctrl *c, struct ini_req *aer)
{
	assert_int_equal(ini_wait(c->admin, aer), 0);
	assert_int_equal(ini_status(&aer->cqe), 0);
	assert_int_equal(aer->cqe.result, AEN_ANA);
}

/* bloxctl listener ana-state for group 2 through port2 with @opts: it must succeed. */
static void set_group2(struct env *v, char *out, size_t len, const char *opts)
{
	int rc = fx_ctl(&v->e.d, out, len, "listener ana-state " FX_ADDR ":%u --group 2 %s",
			v->port2, opts);

	if (rc)
		fail_msg("listener ana-state ... %s: exit %d:\n%s", opts, rc, out);
}

/* The state file's text (malloc'd). */
static char *state_file(struct env *v)
{
	char path[256], *text;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/bloxd-state.json", v->e.d.own_data);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return text;
}

/* 1. Two paths: one subsystem (NQN, serial), two cntlids, ANA reported. */
static void test_two_paths(void **state)
{
	struct env *v = *state;
	struct nvme_id_ns ns;

	assert_int_not_equal(v->a->cntlid, v->b->cntlid);
	assert_string_equal(v->a->id.subnqn, SUBNQN);
	assert_string_equal(v->b->id.subnqn, SUBNQN);
	assert_memory_equal(v->a->id.sn, v->b->id.sn, sizeof(v->a->id.sn));
	/* CMIC: several ports, several controllers, ANA reporting. */
	assert_int_equal(v->a->id.cmic & 0xb, 0xb);
	assert_int_equal(v->b->id.anacap, 0x1f);
	assert_int_equal(v->b->id.anagrpmax, 128);
	assert_int_equal(v->b->id.nanagrpid, 128);
	assert_int_not_equal(v->b->id.mnan, 0);
	assert_true(v->b->id.mnan <= v->b->id.nn);
	assert_int_equal(ini_identify(v->b->admin, NVME_IDENTIFY_CNS_NS, 2, 0, &ns), 0);
	assert_int_equal(ns.anagrpid, 2);
	assert_true(ns.nmic & NVME_NS_NMIC_SHARED);
	assert_int_equal(ini_identify(v->b->admin, NVME_IDENTIFY_CNS_NS, 1, 0, &ns), 0);
	assert_int_equal(ns.anagrpid, 1);
}

/* 2. Each path's log: the state of its own port; bloxctl shows the same. */
static void test_log_per_path(void **state)
{
	struct env *v = *state;
	char st[32];

	assert_int_equal(log_state(v->a, 1, NULL), NVME_ANA_STATE_OPTIMIZED);
	assert_int_equal(log_state(v->a, 2, NULL), NVME_ANA_STATE_OPTIMIZED);
	assert_int_equal(log_state(v->b, 1, NULL), NVME_ANA_STATE_OPTIMIZED);
	assert_int_equal(log_state(v->b, 2, NULL), NVME_ANA_STATE_NONOPTIMIZED);
	assert_int_equal(log_state(v->b, 3, NULL), 0); /* no namespace in it */
	ctl_state(v, v->port2, 2, st, sizeof(st));
	assert_string_equal(st, "non-optimized");
	ctl_state(v, v->e.d.nvm_port, 2, st, sizeof(st));
	assert_string_equal(st, "optimized");
	/* Non-optimized still serves I/O. */
	assert_int_equal(rd(v, v->b, 2), 0);
}

/*
 * 3. Group 2 through port2 to each state: the notice, the log, the
 * status of I/O on namespace 2 through it; the other path and namespace 1
 * go on. Back to optimized: what was written through one path reads back
 * through the other.
 */
static void test_states(void **state)
{
	struct env *v = *state;
	static const struct {
		const char *name;
		uint8_t st;
		int status;
	} cases[] = {
		{ "inaccessible", NVME_ANA_STATE_INACCESSIBLE, 0x302 },
		{ "persistent-loss", NVME_ANA_STATE_PERSISTENT_LOSS, 0x301 },
		{ "change", NVME_ANA_STATE_CHANGE, 0x303 },
		{ "non-optimized", NVME_ANA_STATE_NONOPTIMIZED, 0 },
		{ "optimized", NVME_ANA_STATE_OPTIMIZED, 0 },
	};
	uint64_t seed = v->e.seed, chg, chg_was;
	uint8_t wbuf[BS];
	char out[4096];

	assert_int_equal(ini_set_features(v->b->admin, NVME_FEAT_FID_ASYNC_EVENT, 1u << 11, NULL),
			 0);
	log_state(v->b, 2, &chg_was);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ini_req aer;

		ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
		assert_int_equal(ini_submit(v->b->admin, &aer), 0);
		assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
					"listener ana-state " FX_ADDR ":%u --group 2 --state %s",
					v->port2, cases[i].name),
				 0);
		assert_non_null(strstr(out, cases[i].name));
		assert_int_equal(ini_wait(v->b->admin, &aer), 0);
		assert_int_equal(ini_status(&aer.cqe), 0);
		assert_int_equal(aer.cqe.result, AEN_ANA);
		/* Read without RAE: the next change may be told. */
		assert_int_equal(log_state(v->b, 2, &chg), cases[i].st);
		assert_true(chg > chg_was);
		chg_was = chg;
		assert_int_equal(log_state(v->a, 2, NULL), NVME_ANA_STATE_OPTIMIZED);
		assert_int_equal(rd(v, v->b, 2), cases[i].status);
		assert_int_equal(ini_write(v->b->io[0], 2, 1, 1, v->buf, BS, false),
				 cases[i].status);
		assert_int_equal(rd(v, v->a, 2), 0);
		assert_int_equal(rd(v, v->b, 1), 0);
	}
	fx_fill_random(wbuf, sizeof(wbuf), &seed);
	assert_int_equal(ini_write(v->a->io[0], 2, 7, 1, wbuf, BS, false), 0);
	assert_int_equal(ini_read(v->b->io[0], 2, 7, 1, v->buf, BS), 0);
	assert_memory_equal(v->buf, wbuf, BS);
}

/* 4. Bad input: refused with the reason, nothing changed. */
static void test_bad_input(void **state)
{
	struct env *v = *state;
	uint16_t p3 = fx_free_port(FX_ADDR);
	char out[4096], st[32];

	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener ana-state " FX_ADDR ":%u --group 2 --state broken", v->port2),
			 1);
	assert_non_null(strstr(out, "ANA state 'broken'"));
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener ana-state " FX_ADDR ":%u --group 129 --state change", v->port2),
			 64);
	assert_non_null(strstr(out, "must be 1..128"));
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener ana-state " FX_ADDR ":%u --state change", v->port2),
			 64);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener ana-state " FX_ADDR ":%u --group 2 --state change", p3),
			 2);
	assert_non_null(strstr(out, "not found"));
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener ana-state " FX_ADDR ":%u --group 2 --state change",
				v->e.d.disc_port),
			 1);
	assert_non_null(strstr(out, "discovery-only"));
	/* A listener with a bad ANA state is not made. */
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener add " FX_ADDR ":%u --ana-state 2=sideways", p3),
			 1);
	assert_non_null(strstr(out, "the state must be"));
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener add " FX_ADDR ":%u --ana-state 0=change", p3),
			 1);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener list"), 0);
	snprintf(st, sizeof(st), ":%u", p3);
	assert_null(strstr(out, st));
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"ns create " SUBNQN " --size 1M --backend ram --ana-group 200"),
			 64);
	ctl_state(v, v->port2, 2, st, sizeof(st));
	assert_string_equal(st, "optimized");
	assert_int_equal(rd(v, v->b, 2), 0);
}

/* 5. A namespace made with --ana-group; the states and groups in the state file. */
static void test_persisted(void **state)
{
	struct env *v = *state;
	char out[4096], *text;
	json_object *root;

	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"ns create " SUBNQN " --size 1M --backend ram --nsid 3 --ana-group 7"),
			 0);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "ns show " SUBNQN " 3 --json"), 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_int_equal(json_object_get_int(json_object_object_get(root, "ana_group")), 7);
	json_object_put(root);
	assert_int_equal(log_state(v->b, 7, NULL), NVME_ANA_STATE_OPTIMIZED);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out),
				"listener ana-state " FX_ADDR ":%u --group 7 --state inaccessible",
				v->port2),
			 0);
	text = state_file(v);
	assert_non_null(strstr(text, "\"7=inaccessible\""));
	assert_non_null(strstr(text, "\"ana_group\": 7"));
	assert_non_null(strstr(text, "\"ana_group\": 2"));
	free(text);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "ns delete " SUBNQN " 3 --force"), 0);
}

/*
 * 6. A transition (--transition-ms): group 2 through port2 in change at
 * once (the notice, the log, I/O gets Transition), shown by bloxctl as
 * change->TARGET and kept in the state file as its target; an explicit
 * state ends it; a short one reaches its target by itself, no sooner than
 * asked, told again; past ANATT (10 s, Identify) or to change is refused.
 * The only timing checked is a lower bound; the checks that need the
 * change state to last are made while it does (a 10 s transition).
 */
static void test_transition(void **state)
{
	static const struct {
		const char *opts, *why;
		int code;
	} bad[] = {
		{ "--state optimized --transition-ms 10001", "longer than ANATT (10 s)", 1 },
		{ "--state change --transition-ms 100",
		  "a transition goes through change to another state", 1 },
		{ "--state optimized --transition-ms soon", "milliseconds expected", 64 },
	};
	struct env *v = *state;
	struct ini_req aer;
	char out[4096], st[32], *text;
	int64_t t0, t1;
	int status;

	assert_int_equal(v->b->id.anatt, 10);
	assert_int_equal(ini_set_features(v->b->admin, NVME_FEAT_FID_ASYNC_EVENT, 1u << 11, NULL),
			 0);
	assert_int_equal(log_state(v->b, 2, NULL), NVME_ANA_STATE_OPTIMIZED);
	aer_post(v->b, &aer);
	t0 = fx_now_ms();
	set_group2(v, out, sizeof(out), "--state inaccessible --transition-ms 10000");
	if (!strstr(out, "2=change->inaccessible"))
		fail_msg("listener ana-state --transition-ms:\n%s", out);
	aer_ana(v->b, &aer);
	assert_int_equal(log_state(v->b, 2, NULL), NVME_ANA_STATE_CHANGE);
	status = rd(v, v->b, 2);
	if (fx_now_ms() - t0 < 9000) /* surely still in change */
		assert_int_equal(status, 0x303);
	assert_int_equal(rd(v, v->a, 2), 0);
	ctl_state(v, v->port2, 2, st, sizeof(st));
	assert_true(!strcmp(st, "change") || fx_now_ms() - t0 >= 9000);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener list --json"), 0);
	assert_true(strstr(out, "\"target\":\"inaccessible\"") || fx_now_ms() - t0 >= 9000);
	text = state_file(v);
	assert_non_null(strstr(text, "\"2=inaccessible\""));
	assert_null(strstr(text, "2=change"));
	free(text);

	/* An explicit state ends it. */
	aer_post(v->b, &aer);
	set_group2(v, out, sizeof(out), "--state optimized");
	aer_ana(v->b, &aer);
	assert_int_equal(log_state(v->b, 2, NULL), NVME_ANA_STATE_OPTIMIZED);
	assert_int_equal(rd(v, v->b, 2), 0);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "listener list --json"), 0);
	assert_null(strstr(out, "\"target\":\"inaccessible\""));

	/* A short one: change, then non-optimized by itself, told each time. */
	aer_post(v->b, &aer);
	t1 = fx_now_ms();
	set_group2(v, out, sizeof(out), "--state non-optimized --transition-ms 500");
	aer_ana(v->b, &aer);
	if (log_state(v->b, 2, NULL) == NVME_ANA_STATE_CHANGE) {
		aer_post(v->b, &aer);
		aer_ana(v->b, &aer);
	}
	assert_true(fx_now_ms() - t1 >= 500);
	assert_int_equal(log_state(v->b, 2, NULL), NVME_ANA_STATE_NONOPTIMIZED);
	assert_int_equal(rd(v, v->b, 2), 0);
	ctl_state(v, v->port2, 2, st, sizeof(st));
	assert_string_equal(st, "non-optimized");

	/* Refused, nothing changed. */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = fx_ctl(&v->e.d, out, sizeof(out),
				"listener ana-state " FX_ADDR ":%u --group 2 %s", v->port2,
				bad[i].opts);

		if (rc != bad[i].code || !strstr(out, bad[i].why))
			fail_msg("%s: exit %d, want %d with '%s':\n%s", bad[i].opts, rc,
				 bad[i].code, bad[i].why, out);
	}
	ctl_state(v, v->port2, 2, st, sizeof(st));
	assert_string_equal(st, "non-optimized");
	/* Back as the tests after it expect it. */
	set_group2(v, out, sizeof(out), "--state optimized");
}

static const struct fx_group group = {
	.who = "test_ana",
	.subsystems = subsystems,
	.size = sizeof(struct env),
	.setup = env_setup,
	.teardown = env_teardown,
};

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_paths),
		cmocka_unit_test(test_log_per_path),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_transition),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_persisted),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&group, tests);
}
