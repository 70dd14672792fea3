/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DH-HMAC-CHAP in-band authentication against a real bloxd over loopback,
 * with the project's initiator as the host: a queue of a host with a
 * secret is refused every command until it authenticated, and a host
 * without the secret cannot connect; with it (unidirectional and
 * bidirectional) it connects and does I/O on authenticated I/O queues;
 * a wrong host secret gets FAILURE1 (failed), a wrong controller secret
 * is caught by the host; every hash with every DH group; the failure
 * reasons for an unusable hash, DH group or controller secret, for
 * messages out of order, of another transaction, asking for secure
 * channel concatenation, and Invalid Field for a bad SECP/SPSP/length;
 * a queue that never authenticates closed after 10 s; re-authentication
 * on a live admin queue; rotation through bloxctl
 * (old secret refused at the next connect, live queues kept), host show
 * never printing a secret (text or JSON), the state file 0600.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "fixture.h"
#include "nvme_spec.h"

#define AUTH_NQN "nqn.2026-12.io.blox:auth"
#define HOST_R "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000001"
#define HOST_N "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000002"
/* nvme gen-dhchap-key -m 1, -m 2, -m 3, -m 0 (twice) */
#define KEY_A "DHHC-1:01:hkvLJezZUgf7679DpCWaKKHhPxoohyzMRldaJ4yQXuJa3ylC:"
#define KEY_B "DHHC-1:02:6qfee0KJqpAkzrBxqnnM5Fd+JVXJXPhjKUvJNzntzzqASsFAhh1Gp1QP/KRVrbTynqn1Iw==:"
#define CKEY_B                                                                      \
	"DHHC-1:03:WOOKtsa9OMp7KHcNNOy2/hLNhq7ugbGiEbQ7n5NsQm8Xo5l4aotZeG5JKv/uH4GqzmGRRCR7a" \
	"kF1KV9Geq6Lfblwbk4=:"
#define KEY_R1 "DHHC-1:00:EzrV37kZ2MrTcnnOazt8QU+eaO4ClakD0dCUkLPXQarqn0jB:"
#define KEY_R2 "DHHC-1:00:iXsOOEI6dPzvHhIkA4+ugha9+u1nNrK25FmB1JZqplDMNrvV:"
#define SC_AUTH_REQUIRED INI_SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_AUTH_REQUIRED)

static const char subsystems[] =
	"[ { \"nqn\": \"" AUTH_NQN "\", \"allow_any_host\": false,"
	"    \"hosts\": [ { \"nqn\": \"" FX_HOST_A "\", \"dhchap_key\": \"" KEY_A "\" },"
	"                 { \"nqn\": \"" FX_HOST_B "\", \"dhchap_key\": \"" KEY_B "\","
	"                   \"dhchap_ctrl_key\": \"" CKEY_B "\" },"
	"                 { \"nqn\": \"" HOST_R "\", \"dhchap_key\": \"" KEY_R1 "\" },"
	"                 \"" HOST_N "\" ],"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\","
	"                       \"block_size\": 4096} ] } ]";

struct auth_env {
	struct fx_env fx;
	char out[8192];
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

/* Bring up a controller of @host with @key (and @ctrl_key); its -errno. */
static int up(struct auth_env *e, const char *host, const char *key, const char *ctrl_key,
	      uint32_t nr_io, struct ini_auth_result *res, struct ini_ctrl **out)
{
	struct ini_ctrl_args a;
	uint16_t st = 0;

	ini_ctrl_args_init(&a, FX_ADDR, e->fx.d.nvm_port, AUTH_NQN);
	a.hostnqn = host;
	a.nr_io = nr_io;
	a.auth.key = key;
	a.auth.ctrl_key = ctrl_key;
	a.auth_res = res;
	memset(res, 0, sizeof(*res));
	*out = NULL;
	return ini_ctrl_connect(&a, out, &st);
}

/* A controller that must come up, and does I/O on its (authenticated) I/O queues. */
static struct ini_ctrl *up_ok(struct auth_env *e, const char *host, const char *key,
			      const char *ctrl_key, struct ini_auth_result *res)
{
	struct ini_ctrl *c;

	assert_int_equal(up(e, host, key, ctrl_key, 2, res, &c), 0);
	assert_true(c->auth_required);
	assert_int_equal(fx_rw_check(c->io[0], 1, 3, 4096), 0);
	assert_int_equal(fx_rw_check(c->io[1], 1, 5, 4096), 0);
	return c;
}

static void test_refused_without_secret(void **state)
{
	struct auth_env *e = *state;
	struct ini_connect_args ca = { .qid = 0, .sqsize = 31, .subnqn = AUTH_NQN,
				       .hostnqn = FX_HOST_A, .cntlid = 0xffff };
	struct ini_auth_result res;
	struct nvme_id_ctrl id;
	struct ini_ctrl *c;
	struct ini_queue *q;
	struct nvme_cqe cqe;
	uint64_t v;

	assert_int_equal(up(e, FX_HOST_A, NULL, NULL, 1, &res, &c), -ENOKEY);
	/* By hand: the Connect says ATR; nothing else is served. */
	assert_int_equal(ini_queue_connect(FX_ADDR, e->fx.d.nvm_port, NULL, &q), 0);
	assert_int_equal(ini_connect(q, &ca, &cqe), 0);
	assert_int_equal(ini_status(&cqe), 0);
	assert_true(cqe.result & NVME_CONNECT_AUTHREQ_ATR);
	assert_false(cqe.result & NVME_CONNECT_AUTHREQ_ASCR);
	assert_int_equal(INI_SC_CODE(ini_prop_get(q, NVME_REG_CAP, true, &v)), SC_AUTH_REQUIRED);
	assert_int_equal(INI_SC_CODE(ini_identify(q, NVME_IDENTIFY_CNS_CTRL, 0, 0, &id)),
			 SC_AUTH_REQUIRED);
	/* An AUTH_Receive before any NEGOTIATE is out of sequence. */
	assert_int_equal(INI_SC_CODE(ini_auth_recv(q, &id, 4096)), NVME_SC_CMD_SEQ_ERROR);
	ini_queue_destroy(q);
	/* A host without a secret on the list connects without authenticating. */
	assert_int_equal(up(e, HOST_N, NULL, NULL, 1, &res, &c), 0);
	assert_false(c->auth_required);
	ini_ctrl_destroy(c);
}

/* A queue that never authenticates is closed after NVMF_AUTH_DEADLINE_MS (10 s). */
static void test_deadline(void **state)
{
	struct auth_env *e = *state;
	struct ini_connect_args ca = { .qid = 0, .sqsize = 31, .subnqn = AUTH_NQN,
				       .hostnqn = FX_HOST_A, .cntlid = 0xffff };
	struct ini_queue *q;
	struct nvme_cqe cqe;
	struct timespec ts = { 10, 800 * 1000000 };
	uint64_t v;

	assert_int_equal(ini_queue_connect(FX_ADDR, e->fx.d.nvm_port, NULL, &q), 0);
	assert_int_equal(ini_connect(q, &ca, &cqe), 0);
	assert_true(cqe.result & NVME_CONNECT_AUTHREQ_ATR);
	nanosleep(&ts, NULL);
	assert_true(ini_prop_get(q, NVME_REG_CAP, true, &v) < 0);
	ini_queue_destroy(q);
}

static void test_accepted_with_secret(void **state)
{
	struct auth_env *e = *state;
	struct ini_auth_result res;
	struct ini_ctrl *c = up_ok(e, FX_HOST_A, KEY_A, NULL, &res);

	/* The target takes the host's first hash and its first real DH group. */
	assert_int_equal(res.hash, 1);
	assert_int_equal(res.dhgid, 1);
	assert_false(res.bidir);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

static void test_bidirectional(void **state)
{
	struct auth_env *e = *state;
	struct ini_auth_result res;
	struct ini_ctrl *c = up_ok(e, FX_HOST_B, KEY_B, CKEY_B, &res);

	assert_true(res.bidir);
	assert_false(res.ctrl_rejected);
	ini_ctrl_destroy(c);
}

static void test_wrong_host_secret(void **state)
{
	struct auth_env *e = *state;
	struct ini_auth_result res;
	struct ini_ctrl *c;

	assert_int_equal(up(e, FX_HOST_A, KEY_B, NULL, 1, &res, &c), -EACCES);
	assert_int_equal(res.failure, NVME_AUTH_FAIL_FAILED);
	/* A well-formed secret of another host: the same. */
	assert_int_equal(up(e, FX_HOST_B, KEY_A, NULL, 1, &res, &c), -EACCES);
	assert_int_equal(res.failure, NVME_AUTH_FAIL_FAILED);
}

static void test_wrong_ctrl_secret(void **state)
{
	struct auth_env *e = *state;
	struct ini_auth_result res;
	struct ini_ctrl *c;

	/* The controller answers with CKEY_B; the host expects KEY_R1's. */
	assert_int_equal(up(e, FX_HOST_B, KEY_B, KEY_R1, 1, &res, &c), -EKEYREJECTED);
	assert_true(res.ctrl_rejected);
	/* A host asking a controller that has no secret for it. */
	assert_int_equal(up(e, FX_HOST_A, KEY_A, KEY_R1, 1, &res, &c), -EACCES);
	assert_int_equal(res.failure, NVME_AUTH_FAIL_NOT_USABLE);
	/* The target is still fine for the right ones. */
	c = up_ok(e, FX_HOST_B, KEY_B, CKEY_B, &res);
	ini_ctrl_destroy(c);
}

/* Only a hash or DH group the controller does not know: the reasons. */
static void test_unusable_hash_and_group(void **state)
{
	struct auth_env *e = *state;
	struct ini_connect_args ca = { .qid = 0, .sqsize = 31, .subnqn = AUTH_NQN,
				       .hostnqn = FX_HOST_A, .cntlid = 0xffff };
	struct ini_auth_opts o = { .key = KEY_A, .hash = 9, .dhgroup = -1 };
	struct ini_auth_result res;
	struct ini_queue *q;
	struct nvme_cqe cqe;

	for (int i = 0; i < 2; i++) {
		assert_int_equal(ini_queue_connect(FX_ADDR, e->fx.d.nvm_port, NULL, &q), 0);
		assert_int_equal(ini_connect(q, &ca, &cqe), 0);
		assert_int_equal(ini_auth(q, AUTH_NQN, FX_HOST_A, &o, &res), -EACCES);
		assert_int_equal(res.failure, i ? NVME_AUTH_FAIL_DHGROUP_UNUSABLE
						: NVME_AUTH_FAIL_HASH_UNUSABLE);
		ini_queue_destroy(q);
		o.hash = 0;
		o.dhgroup = 9;
	}
}

/* An admin queue of FX_HOST_A just connected (ATR), not authenticated. */
static struct ini_queue *fresh_queue(struct auth_env *e)
{
	struct ini_connect_args ca = { .qid = 0, .sqsize = 31, .subnqn = AUTH_NQN,
				       .hostnqn = FX_HOST_A, .cntlid = 0xffff };
	struct ini_queue *q;
	struct nvme_cqe cqe;

	assert_int_equal(ini_queue_connect(FX_ADDR, e->fx.d.nvm_port, NULL, &q), 0);
	assert_int_equal(ini_connect(q, &ca, &cqe), 0);
	assert_true(cqe.result & NVME_CONNECT_AUTHREQ_ATR);
	return q;
}

/* What the controller answers an AUTH_Receive with: FAILURE1's explanation. */
static uint8_t failure1_reason(struct ini_queue *q)
{
	uint8_t buf[4096];
	const struct nvme_auth_failure *f = (const void *)buf;

	assert_int_equal(ini_auth_recv(q, buf, sizeof(buf)), 0);
	assert_int_equal(f->auth_type, NVME_AUTH_COMMON_MESSAGES);
	assert_int_equal(f->auth_id, NVME_AUTH_MSG_FAILURE1);
	assert_int_equal(f->rescode, NVME_AUTH_RESCODE_FAILED);
	return f->rescode_exp;
}

/* Messages out of order or malformed: the status or FAILURE1 reason the spec gives. */
static void test_protocol_errors(void **state)
{
	struct auth_env *e = *state;
	uint8_t msg[sizeof(struct nvme_auth_negotiate) + sizeof(struct nvme_auth_protocol_desc)];
	struct nvme_auth_negotiate *n = (void *)msg;
	struct nvme_auth_reply rep = { .auth_type = NVME_AUTH_DHCHAP_MESSAGES,
				       .auth_id = NVME_AUTH_MSG_REPLY };
	struct ini_queue *q;
	struct ini_req r;

	/* Another security protocol, another SPSP, no length: Invalid Field. */
	q = fresh_queue(e);
	for (int i = 0; i < 3; i++) {
		ini_req_init(&r, nvme_admin_fabrics, nvme_fabrics_type_auth_send, msg, 8,
			     INI_DIR_H2C);
		r.sqe.cdw10 = i == 0 ? 0xea010100u : i == 1 ? 0xe9010200u : 0xe9010100u;
		r.sqe.cdw11 = i == 2 ? 0 : 8;
		if (i == 2)
			r.len = 0, r.dir = INI_DIR_NONE, r.buf = NULL;
		assert_int_equal(ini_exec(q, &r), 0);
		assert_int_equal(INI_SC_CODE(ini_status(&r.cqe)), NVME_SC_INVALID_FIELD);
	}
	/* A REPLY before any NEGOTIATE: incorrect message; the controller goes. */
	assert_int_equal(ini_auth_send(q, &rep, sizeof(rep)), 0);
	assert_int_equal(failure1_reason(q), NVME_AUTH_FAIL_INCORRECT_MESSAGE);
	ini_queue_destroy(q);

	/* A REPLY in another transaction (T_ID): incorrect payload. */
	q = fresh_queue(e);
	memset(msg, 0, sizeof(msg));
	n->napd = 1;
	le16_put(&n->t_id, 7);
	n->proto[0].authid = NVME_AUTH_DHCHAP_AUTH_ID;
	n->proto[0].halen = 1;
	n->proto[0].dhlen = 1;
	n->proto[0].idlist[0] = 1;
	assert_int_equal(ini_auth_send(q, msg, sizeof(msg)), 0);
	{
		uint8_t buf[4096];

		assert_int_equal(ini_auth_recv(q, buf, sizeof(buf)), 0);
		assert_int_equal(buf[1], NVME_AUTH_MSG_CHALLENGE);
	}
	le16_put(&rep.t_id, 8);
	assert_int_equal(ini_auth_send(q, &rep, sizeof(rep)), 0);
	assert_int_equal(failure1_reason(q), NVME_AUTH_FAIL_INCORRECT_PAYLOAD);
	ini_queue_destroy(q);

	/* Secure channel concatenation asked for: not offered. Two protocols: unusable. */
	for (int i = 0; i < 2; i++) {
		q = fresh_queue(e);
		n->sc_c = i == 0 ? 1 : 0;
		n->napd = i == 0 ? 1 : 2;
		assert_int_equal(ini_auth_send(q, msg, sizeof(msg)), 0);
		assert_int_equal(failure1_reason(q), i == 0 ? NVME_AUTH_FAIL_CONCAT_MISMATCH
							    : NVME_AUTH_FAIL_HASH_UNUSABLE);
		ini_queue_destroy(q);
	}
}

static void test_every_hash_and_group(void **state)
{
	struct auth_env *e = *state;

	for (uint8_t h = 1; h <= 3; h++) {
		for (int g = 0; g <= 5; g++) {
			struct ini_ctrl_args a;
			struct ini_auth_result res;
			struct ini_ctrl *c = NULL;
			uint16_t st = 0;

			ini_ctrl_args_init(&a, FX_ADDR, e->fx.d.nvm_port, AUTH_NQN);
			a.hostnqn = FX_HOST_B;
			a.auth = (struct ini_auth_opts){ .key = KEY_B, .ctrl_key = CKEY_B,
							 .hash = h, .dhgroup = g };
			a.auth_res = &res;
			if (ini_ctrl_connect(&a, &c, &st))
				fail_msg("hash %u group %d: refused", h, g);
			assert_int_equal(res.hash, h);
			assert_int_equal(res.dhgid, g);
			assert_int_equal(fx_rw_check(c->io[0], 1, (uint64_t)(h * 8 + g), 4096), 0);
			ini_ctrl_destroy(c);
		}
	}
}

static void test_reauth_live_queue(void **state)
{
	struct auth_env *e = *state;
	struct ini_auth_opts o = { .key = KEY_A, .dhgroup = -1 };
	struct ini_auth_result res;
	struct nvme_id_ctrl id;
	struct ini_ctrl *c = up_ok(e, FX_HOST_A, KEY_A, NULL, &res);

	for (int i = 0; i < 3; i++) {
		o.dhgroup = i == 0 ? -1 : i == 1 ? 0 : 5;
		assert_int_equal(ini_auth(c->admin, AUTH_NQN, FX_HOST_A, &o, &res), 0);
		assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_CTRL, 0, 0, &id), 0);
		assert_int_equal(fx_rw_check(c->io[0], 1, 7, 4096), 0);
	}
	/* A failed re-authentication ends the controller. */
	o.key = KEY_B;
	assert_int_equal(ini_auth(c->admin, AUTH_NQN, FX_HOST_A, &o, &res), -EACCES);
	assert_int_equal(res.failure, NVME_AUTH_FAIL_FAILED);
	assert_true(ini_identify(c->admin, NVME_IDENTIFY_CNS_CTRL, 0, 0, &id) < 0);
	ini_ctrl_destroy(c);
}

static void test_rotation_with_bloxctl(void **state)
{
	struct auth_env *e = *state;
	struct ini_auth_opts o = { .key = KEY_R1, .dhgroup = -1 };
	struct ini_auth_result res;
	struct ini_ctrl *live, *c;
	char path[PATH_MAX];
	struct stat st;
	FILE *f;
	size_t n;

	live = up_ok(e, HOST_R, KEY_R1, NULL, &res);
	assert_int_equal(run(e, "host show %s %s", AUTH_NQN, HOST_R), 0);
	assert_non_null(strstr(e->out, "dhchap key       set"));
	assert_non_null(strstr(e->out, "dhchap ctrl key  none"));
	assert_int_equal(run(e, "host allow %s %s --dhchap-key %s --dhchap-ctrl-key %s", AUTH_NQN,
			     HOST_R, KEY_R2, CKEY_B),
			 0);
	assert_int_equal(run(e, "--json host show %s %s", AUTH_NQN, HOST_R), 0);
	assert_non_null(strstr(e->out, "\"dhchap_key_set\":true"));
	assert_non_null(strstr(e->out, "\"dhchap_ctrl_key_set\":true"));
	assert_null(strstr(e->out, "DHHC-1"));
	assert_int_equal(run(e, "host show %s %s", AUTH_NQN, HOST_R), 0);
	assert_null(strstr(e->out, "DHHC-1"));
	/* A TLS PSK given alone leaves the DH-HMAC-CHAP secrets as they are. */
	assert_int_equal(run(e, "host allow %s %s --tls-psk %s", AUTH_NQN, HOST_R,
			     "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"),
			 0);
	assert_int_equal(run(e, "--json host show %s %s", AUTH_NQN, HOST_R), 0);
	assert_non_null(strstr(e->out, "\"dhchap_key_set\":true"));
	assert_non_null(strstr(e->out, "\"dhchap_ctrl_key_set\":true"));
	assert_non_null(strstr(e->out, "\"tls_psk_set\":true"));
	assert_non_null(strstr(e->out, "\"tls_psk_identity\":\"NVMe1R01 "));
	assert_null(strstr(e->out, "NVMeTLSkey-1"));
	/* The next connect needs the new secret; the live controller goes on. */
	assert_int_equal(up(e, HOST_R, KEY_R1, NULL, 1, &res, &c), -EACCES);
	c = up_ok(e, HOST_R, KEY_R2, CKEY_B, &res);
	ini_ctrl_destroy(c);
	assert_int_equal(fx_rw_check(live->io[0], 1, 9, 4096), 0);
	/* ... until it re-authenticates, which takes the new one too. */
	assert_int_equal(ini_auth(live->admin, AUTH_NQN, HOST_R, &o, &res), -EACCES);
	ini_ctrl_destroy(live);

	/* Persisted, owner only. */
	snprintf(path, sizeof(path), "%s/bloxd-state.json", e->fx.d.own_data);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(e->out, 1, sizeof(e->out) - 1, f);
	e->out[n] = '\0';
	fclose(f);
	assert_non_null(strstr(e->out, KEY_R2));
	assert_null(strstr(e->out, KEY_R1));
}

static void test_bloxctl_bad_secrets(void **state)
{
	struct auth_env *e = *state;
	/* KEY_R1 with one character changed: the CRC-32 catches it. */
	static const char typo[] = "DHHC-1:00:EzrV37kZ2MrTcnnOazt8QU+eaO4ClakD0dCUkLPXQarqn0jC:";

	assert_int_not_equal(run(e, "host allow %s %s --dhchap-key %s", AUTH_NQN, FX_HOST_A, typo),
			     0);
	assert_non_null(strstr(e->out, "CRC-32"));
	assert_null(strstr(e->out, "EzrV37"));
	assert_int_not_equal(run(e, "host allow %s %s --dhchap-key nope", AUTH_NQN,
				 "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000003"),
			     0);
	assert_non_null(strstr(e->out, "DHHC-1"));
	assert_int_not_equal(run(e, "host allow %s %s --dhchap-ctrl-key %s", AUTH_NQN, FX_HOST_A,
				 KEY_R1),
			     0);
	/* Nothing changed: the old secret still works; no new host. */
	assert_int_not_equal(run(e, "host show %s nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-4000-8000-000000000003", AUTH_NQN),
			     0);
	{
		struct ini_auth_result res;
		struct ini_ctrl *c = up_ok(e, FX_HOST_A, KEY_A, NULL, &res);

		ini_ctrl_destroy(c);
	}
}

int main(void)
{
	static const struct fx_group g = {
		.who = "test_auth",
		.subsystems = subsystems,
		.size = sizeof(struct auth_env),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_without_secret),
		cmocka_unit_test(test_deadline),
		cmocka_unit_test(test_accepted_with_secret),
		cmocka_unit_test(test_bidirectional),
		cmocka_unit_test(test_wrong_host_secret),
		cmocka_unit_test(test_wrong_ctrl_secret),
		cmocka_unit_test(test_unusable_hash_and_group),
		cmocka_unit_test(test_protocol_errors),
		cmocka_unit_test(test_every_hash_and_group),
		cmocka_unit_test(test_reauth_live_queue),
		cmocka_unit_test(test_rotation_with_bloxctl),
		cmocka_unit_test(test_bloxctl_bad_secrets),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};
	return FX_MAIN(&g, tests);
}
