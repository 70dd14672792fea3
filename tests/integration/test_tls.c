/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP over TLS 1.3 with PSKs (TP 8011), over loopback with the
 * project's initiator (OpenSSL client side): a listener that requires
 * TLS refuses plain NVMe/TCP and takes TLS with the host's PSK, refuses a
 * wrong PSK, an unknown identity and a Connect that names another host
 * than the identity did; a listener that allows TLS takes both; data
 * written and read back through TLS (in-capsule, R2T/H2C and 128 KiB
 * C2H, digests on and off) under both cipher suites (a 32-byte key:
 * TLS_AES_128_GCM_SHA256, a 48-byte key: TLS_AES_256_GCM_SHA384);
 * `openssl s_client -psk` completes a handshake; the discovery log's
 * TREQ and SECTYPE per port; bytes that only look like TLS, handshakes
 * cut short or stalled (closed at the ICReq deadline) and 40 connect
 * cycles leave bloxd running and without leaks; listeners, modes and PSKs
 * come back after a restart from the state file.
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
#include <unistd.h>

#include "fixture.h"
#include "nvme_tls.h"

#define NQN "nqn.2026-12.io.blox:tls"
#define NBLOCKS 4096
#define HOST_C "nqn.2014-08.org.nvmexpress:uuid:cccccccc-2222-3333-4444-555555555555"
#define HOST_X "nqn.2014-08.org.nvmexpress:uuid:99999999-0000-0000-0000-000000000000"
/* Host A's key (the spec's example), in the config file. */
#define KEY_A "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"
/* Host B's (48 bytes, SHA-384), given with bloxctl. */
#define KEY_B                                                                              \
	"NVMeTLSkey-1:02:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vcSEg" \
	"BQ==:"
/* A valid key that is nobody's. */
#define KEY_OTHER "NVMeTLSkey-1:01:MDAxMTIyMzM0NDU1NjY3Nzg4OTlhYWJiY2NkZGVlZmZwJEiQ:"

static const char subsystems[] =
	"[ { \"nqn\": \"" NQN "\","
	"    \"hosts\": [ {\"nqn\": \"" FX_HOST_A "\", \"tls_psk\": \"" KEY_A "\"}, \"" HOST_C "\" ],"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\","
	"                       \"block_size\": 4096} ] } ]";

struct tls_env {
	struct fx_env fx;
	uint16_t req_port, allow_port;
	char out[8192];
};

static int add_listeners(struct tls_env *e)
{
	e->req_port = fx_free_port(FX_ADDR);
	do
		e->allow_port = fx_free_port(FX_ADDR);
	while (e->allow_port == e->req_port);
	if (fx_ctl(&e->fx.d, e->out, sizeof(e->out), "listener add %s:%u --tls required",
		   FX_ADDR, e->req_port) ||
	    fx_ctl(&e->fx.d, e->out, sizeof(e->out), "listener add %s:%u --tls allowed", FX_ADDR,
		   e->allow_port) ||
	    fx_ctl(&e->fx.d, e->out, sizeof(e->out), "host allow %s %s --tls-psk %s", NQN,
		   FX_HOST_B, KEY_B)) {
		fprintf(stderr, "bloxctl: %s\n", e->out);
		return -1;
	}
	return 0;
}

static int setup(void *env)
{
	return add_listeners(env);
}

/* Queue options for TLS as @host with @key (NULL: plain). */
static struct ini_opts tls_opts(const char *host, const char *key)
{
	struct ini_opts o;

	ini_opts_init(&o);
	o.timeout_ms = 5000;
	o.tls_psk = key;
	o.tls_hostnqn = host;
	o.tls_subnqn = NQN;
	return o;
}

/* A controller on @port as @host through @o; 0 or -errno. */
static int ctrl(uint16_t port, const char *host, const struct ini_opts *o, struct ini_ctrl **c)
{
	struct ini_ctrl_args a;
	uint16_t st = 0;

	ini_ctrl_args_init(&a, FX_ADDR, port, NQN);
	a.hostnqn = host;
	a.nr_io = 1;
	a.qopts = *o;
	return ini_ctrl_connect(&a, c, &st);
}

/*
 * Write and read back: one block in-capsule, 128 KiB by R2T/H2C (more
 * than one TLS record per PDU) and back as one C2HData.
 */
static void rw_through(struct ini_queue *q, uint64_t slba)
{
	const uint32_t big = 128 * 1024;
	uint8_t *w = malloc(big), *r = malloc(big);
	uint64_t seed = slba * 7 + 1;

	assert_non_null(w);
	assert_non_null(r);
	assert_int_equal(fx_rw_check(q, 1, slba, 4096), 0);
	fx_fill_random(w, big, &seed);
	assert_int_equal(ini_write(q, 1, slba + 1, big / 4096, w, big, false), 0);
	memset(r, 0, big);
	assert_int_equal(ini_read(q, 1, slba + 1, big / 4096, r, big), 0);
	assert_memory_equal(w, r, big);
	free(w);
	free(r);
}

/* 1. TLS required: plain NVMe/TCP gets no ICResp, the connection closes. */
static void test_required_refuses_plain(void **state)
{
	struct tls_env *e = *state;
	struct ini_opts o = tls_opts(FX_HOST_A, NULL);
	struct ini_queue *q;

	assert_int_equal(ini_queue_open(FX_ADDR, e->req_port, &o, &q), 0);
	assert_int_not_equal(ini_queue_icreq(q), 0);
	ini_queue_destroy(q);
	assert_true(fx_alive(&e->fx.d));
}

/* 2. TLS required: host A's PSK, SHA-256 suite, data both ways, digests on and off. */
static void test_required_tls_io(void **state)
{
	struct tls_env *e = *state;

	for (int dg = 0; dg < 2; dg++) {
		struct ini_opts o = tls_opts(FX_HOST_A, KEY_A);
		struct ini_ctrl *c;

		o.hdgst = o.ddgst = dg;
		assert_int_equal(ctrl(e->req_port, FX_HOST_A, &o, &c), 0);
		assert_string_equal(ini_queue_tls_cipher(c->admin), "TLS_AES_128_GCM_SHA256");
		assert_string_equal(ini_queue_tls_cipher(c->io[0]), "TLS_AES_128_GCM_SHA256");
		assert_int_equal(ini_queue_icresp(c->io[0])->ddgst, dg);
		rw_through(c->io[0], 100 + 64 * (uint64_t)dg);
		ini_ctrl_destroy(c);
	}
}

/* 3. A 48-byte key: TLS_AES_256_GCM_SHA384; identity version 0 works too. */
static void test_sha384_suite(void **state)
{
	struct tls_env *e = *state;
	struct ini_opts o = tls_opts(FX_HOST_B, KEY_B);
	struct ini_ctrl *c;

	assert_int_equal(ctrl(e->req_port, FX_HOST_B, &o, &c), 0);
	assert_string_equal(ini_queue_tls_cipher(c->io[0]), "TLS_AES_256_GCM_SHA384");
	rw_through(c->io[0], 300);
	ini_ctrl_destroy(c);
	o.tls_identity_v0 = true;
	o.hdgst = o.ddgst = true;
	assert_int_equal(ctrl(e->req_port, FX_HOST_B, &o, &c), 0);
	assert_string_equal(ini_queue_tls_cipher(c->admin), "TLS_AES_256_GCM_SHA384");
	rw_through(c->io[0], 400);
	ini_ctrl_destroy(c);
	/* Host A's SHA-256 PSK with only the SHA-384 suite offered: no common ground. */
	o = tls_opts(FX_HOST_A, KEY_A);
	o.tls_ciphers = "TLS_AES_256_GCM_SHA384";
	assert_int_equal(ctrl(e->req_port, FX_HOST_A, &o, &c), -ECONNREFUSED);
}

/* 4. Refused handshakes: a wrong PSK (both identity forms), unknown hosts. */
static void test_refused(void **state)
{
	struct tls_env *e = *state;
	static const struct {
		const char *host, *key;
		bool v0;
	} bad[] = {
		{ FX_HOST_A, KEY_OTHER, false }, /* the digest in the identity is wrong */
		{ FX_HOST_A, KEY_OTHER, true }, /* the binder is wrong */
		{ HOST_X, KEY_A, false }, /* not allowed at all */
		{ HOST_C, KEY_A, false }, /* allowed, without a PSK */
		{ "nqn.2014-08.org.nvmexpress:uuid:\x1b[2J", KEY_A, false }, /* control characters */
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct ini_opts o = tls_opts(bad[i].host, bad[i].key);
		struct ini_queue *q = NULL;

		o.tls_identity_v0 = bad[i].v0;
		assert_int_equal(ini_queue_open(FX_ADDR, e->req_port, &o, &q), -ECONNREFUSED);
		assert_null(q);
	}
	assert_true(fx_alive(&e->fx.d));
}

/* 5. The Connect must name the host and subsystem of the PSK identity. */
static void test_connect_must_match_identity(void **state)
{
	struct tls_env *e = *state;
	struct ini_opts o = tls_opts(FX_HOST_A, KEY_A);
	struct ini_connect_args a = { .qid = 0, .sqsize = 31, .subnqn = NQN,
				      .hostnqn = FX_HOST_B, .cntlid = 0xffff };
	struct nvme_cqe cqe;
	struct ini_queue *q;

	assert_int_equal(ini_queue_connect(FX_ADDR, e->req_port, &o, &q), 0);
	assert_int_equal(ini_connect(q, &a, &cqe), 0);
	assert_int_equal(ini_status(&cqe) & 0xff, NVME_SC_CONNECT_INVALID_HOST);
	ini_queue_destroy(q);
}

/* 6. TLS allowed: plain and TLS side by side on one port. */
static void test_allowed_takes_both(void **state)
{
	struct tls_env *e = *state;
	struct ini_opts plain = tls_opts(FX_HOST_A, NULL), tls = tls_opts(FX_HOST_A, KEY_A);
	struct ini_ctrl *p, *t;

	assert_int_equal(ctrl(e->allow_port, FX_HOST_A, &plain, &p), 0);
	assert_int_equal(ctrl(e->allow_port, FX_HOST_A, &tls, &t), 0);
	assert_null(ini_queue_tls_cipher(p->io[0]));
	assert_string_equal(ini_queue_tls_cipher(t->io[0]), "TLS_AES_128_GCM_SHA256");
	rw_through(p->io[0], 600);
	rw_through(t->io[0], 700);
	/* What one wrote, the other reads. */
	assert_int_equal(fx_rw_check(t->io[0], 1, 800, 4096), 0);
	ini_ctrl_destroy(p);
	ini_ctrl_destroy(t);
	/* A plain listener knows nothing of TLS: a ClientHello is not a PDU. */
	{
		struct ini_queue *q = NULL;

		assert_int_equal(ini_queue_open(FX_ADDR, e->fx.d.nvm_port, &tls, &q),
				 -ECONNREFUSED);
	}
}

/* 6b. Garbage that starts like a TLS record: the handshake fails, the connection closes. */
static void test_garbage_handshake(void **state)
{
	struct tls_env *e = *state;
	static const uint8_t junk[][12] = {
		{ 0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5 }, /* a short, bogus ClientHello */
		{ 0x16, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0 },
		{ 0x17, 0x03, 0x03, 0x00, 0x01, 0 }, /* application data first */
	};
	struct ini_opts o = tls_opts(FX_HOST_A, NULL);

	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		uint16_t ports[2] = { e->req_port, e->allow_port };

		for (int p = 0; p < 2; p++) {
			struct ini_queue *q;

			assert_int_equal(ini_queue_open(FX_ADDR, ports[p], &o, &q), 0);
			assert_int_equal(ini_raw_send(q, junk[i], sizeof(junk[i])), 0);
			assert_int_equal(ini_wait_closed(q, 5000), 0);
			ini_queue_destroy(q);
		}
	}
	assert_true(fx_alive(&e->fx.d));
}

/* 6c. Cycles: TLS queues up and gone, handshakes cut short; bloxd's leak check at the end. */
static void test_cycles(void **state)
{
	struct tls_env *e = *state;
	static const uint8_t part[] = { 0x16, 0x03, 0x01, 0x02, 0x00, 0x01 };

	for (int i = 0; i < 40; i++) {
		struct ini_opts o = tls_opts(i & 1 ? FX_HOST_A : FX_HOST_B, i & 1 ? KEY_A : KEY_B);
		struct ini_queue *q;

		assert_int_equal(ini_queue_connect(FX_ADDR, i & 2 ? e->req_port : e->allow_port, &o,
						   &q),
				 0);
		ini_queue_destroy(q);
		o.tls_psk = NULL;
		assert_int_equal(ini_queue_open(FX_ADDR, e->req_port, &o, &q), 0);
		assert_int_equal(ini_raw_send(q, part, sizeof(part)), 0);
		ini_queue_destroy(q);
	}
	assert_true(fx_alive(&e->fx.d));
}

/* 6d. A handshake that stalls is closed at the ICReq deadline (1.5 s here). */
static void test_stalled_handshake(void **state)
{
	struct tls_env *e = *state;
	static const uint8_t part[] = { 0x16, 0x03, 0x01, 0x02, 0x00, 0x01 };
	struct ini_opts o = tls_opts(FX_HOST_A, NULL);
	uint16_t ports[2] = { e->req_port, e->allow_port };

	for (int p = 0; p < 2; p++) {
		struct ini_queue *q;

		assert_int_equal(ini_queue_open(FX_ADDR, ports[p], &o, &q), 0);
		assert_int_equal(ini_raw_send(q, part, sizeof(part)), 0);
		assert_int_equal(ini_wait_closed(q, 8000), 0);
		ini_queue_destroy(q);
	}
}

/* 7. Discovery log: TREQ and SECTYPE per port; listener list shows the modes. */
static void test_discovery_and_list(void **state)
{
	struct tls_env *e = *state;
	struct nvmf_discovery_log *log = calloc(1, 8192);
	int seen = 0;
	struct ini_ctrl *c;
	struct ini_opts o = tls_opts(FX_HOST_A, NULL);
	struct ini_ctrl_args a;

	assert_non_null(log);
	ini_ctrl_args_init(&a, FX_ADDR, e->fx.d.disc_port, NVME_DISC_SUBSYS_NAME);
	a.hostnqn = FX_HOST_A;
	a.nr_io = 0;
	a.qopts = o;
	assert_int_equal(ini_ctrl_connect(&a, &c, NULL), 0);
	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_DISCOVER, 0, 0, log, 4096), 0);
	for (uint64_t i = 0; i < log->numrec; i++) {
		const struct nvmf_disc_log_entry *d = &log->entries[i];
		uint16_t port = (uint16_t)atoi(d->trsvcid);

		if (strcmp(d->subnqn, NQN))
			continue;
		if (port == e->req_port) {
			assert_int_equal(d->treq & 3, NVMF_TREQ_REQUIRED);
			assert_int_equal(d->tsas.tcp.sectype, NVMF_TCP_SECTYPE_TLS13);
		} else if (port == e->allow_port) {
			assert_int_equal(d->treq & 3, NVMF_TREQ_NOT_REQUIRED);
			assert_int_equal(d->tsas.tcp.sectype, NVMF_TCP_SECTYPE_TLS13);
		} else {
			/* A plain port: secure channel not specified, as nvmet's. */
			assert_int_equal(d->treq & 3, NVMF_TREQ_NOT_SPECIFIED);
			assert_int_equal(d->tsas.tcp.sectype, NVMF_TCP_SECTYPE_NONE);
		}
		seen++;
	}
	assert_int_equal(seen, 3);
	ini_ctrl_destroy(c);
	free(log);
	assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out), "listener list"), 0);
	assert_non_null(strstr(e->out, "required"));
	assert_non_null(strstr(e->out, "allowed"));
}

/* 8. Bad input through bloxctl: clear errors, nothing changed, no secret echoed. */
static void test_bad_input(void **state)
{
	struct tls_env *e = *state;
	static const char *const bad[] = {
		"NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrA:",
		"NVMeTLSkey-1:03:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:",
		"NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9:",
		"DHHC-1:00:abc:",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_not_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out),
					    "host allow %s %s --tls-psk %s", NQN, HOST_X, bad[i]),
				     0);
		assert_non_null(strstr(e->out, "TLS PSK"));
		if (strlen(bad[i]) > 20) /* the key part is never echoed */
			assert_null(strstr(e->out, bad[i] + 16));
	}
	/* Not allowed by the failed attempts. */
	assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out), "subsys show %s", NQN), 0);
	assert_null(strstr(e->out, HOST_X));
	assert_int_not_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out), "listener add %s:%u --tls maybe",
				    FX_ADDR, fx_free_port(FX_ADDR)),
			     0);
	/* Host A still connects with its key. */
	{
		struct ini_opts o = tls_opts(FX_HOST_A, KEY_A);
		struct ini_ctrl *c;

		assert_int_equal(ctrl(e->req_port, FX_HOST_A, &o, &c), 0);
		ini_ctrl_destroy(c);
	}
}

/* 9. Rotation: a new key on an allowed host replaces the old one. */
static void test_rotate(void **state)
{
	struct tls_env *e = *state;
	struct ini_opts o = tls_opts(HOST_C, KEY_OTHER);
	struct ini_ctrl *c;

	assert_int_equal(ctrl(e->req_port, HOST_C, &o, &c), -ECONNREFUSED);
	assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out), "host allow %s %s --tls-psk %s",
				NQN, HOST_C, KEY_OTHER),
			 0);
	assert_int_equal(ctrl(e->req_port, HOST_C, &o, &c), 0);
	ini_ctrl_destroy(c);
	o.tls_psk = KEY_A;
	assert_int_equal(ctrl(e->req_port, HOST_C, &o, &c), -ECONNREFUSED);
	/* Plain on the port that allows both still works for it. */
	o.tls_psk = NULL;
	assert_int_equal(ctrl(e->allow_port, HOST_C, &o, &c), 0);
	ini_ctrl_destroy(c);
	/* A key from stdin (--tls-psk -), kept off the command line. */
	{
		char path[] = "/tmp/blox-tls-key-XXXXXX";
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, KEY_A "\n", strlen(KEY_A) + 1), (ssize_t)strlen(KEY_A) + 1);
		close(fd);
		assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out),
					"host allow %s %s --tls-psk - < %s", NQN, HOST_C, path),
				 0);
		unlink(path);
		o.tls_psk = KEY_A;
		assert_int_equal(ctrl(e->req_port, HOST_C, &o, &c), 0);
		ini_ctrl_destroy(c);
	}
}

/* 10. openssl s_client with the TLS PSK and identity the spec gives. */
static void test_openssl_s_client(void **state)
{
	struct tls_env *e = *state;
	struct nvme_tls_key k;
	struct nvme_tls_psk p;
	char hex[97], cmd[2048], line[512];
	bool ok = false;
	FILE *f;

	if (system("command -v openssl >/dev/null 2>&1")) {
		skip();
		return;
	}
	assert_int_equal(nvme_tls_key_parse(KEY_A, &k, NULL, 0), 0);
	assert_int_equal(nvme_tls_psk_make(&k, FX_HOST_A, NQN, 1, &p), 0);
	for (int i = 0; i < p.len; i++)
		sprintf(hex + 2 * i, "%02x", p.psk[i]);
	snprintf(cmd, sizeof(cmd),
		 "openssl s_client -connect %s:%u -tls1_3 -ciphersuites TLS_AES_128_GCM_SHA256"
		 " -psk %s -psk_identity '%s' </dev/null 2>&1",
		 FX_ADDR, e->req_port, hex, p.identity);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		ok |= strstr(line, "TLSv1.3, Cipher is TLS_AES_128_GCM_SHA256") != NULL;
	pclose(f);
	assert_true(ok);
}

/* 11. After a restart: the listeners with their modes and the PSKs are back. */
static void test_restart_keeps_tls(void **state)
{
	struct tls_env *e = *state;
	const char *argv[] = { "--data-dir", e->fx.data_dir, NULL };
	uint16_t nvm_port = e->fx.d.nvm_port;
	struct ini_opts oa = tls_opts(FX_HOST_A, KEY_A), ob = tls_opts(FX_HOST_B, KEY_B);
	struct ini_ctrl *c;
	char path[128], *text = malloc(65536);
	FILE *f;
	size_t n;

	assert_non_null(text);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	snprintf(path, sizeof(path), "%s/bloxd-state.json", e->fx.data_dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, 65535, f);
	text[n] = '\0';
	fclose(f);
	assert_non_null(strstr(text, "\"tls\": \"required\""));
	assert_non_null(strstr(text, "\"tls\": \"allowed\""));
	assert_non_null(strstr(text, KEY_B));
	free(text);
	/* No config: everything from the state file. */
	assert_int_equal(fx_start_argv(&e->fx.d, argv, FX_ADDR, nvm_port, e->req_port), 0);
	e->fx.d.nvm_port = nvm_port;
	assert_int_equal(ctrl(e->req_port, FX_HOST_A, &oa, &c), 0);
	ini_ctrl_destroy(c);
	assert_int_equal(ctrl(e->req_port, FX_HOST_B, &ob, &c), 0);
	rw_through(c->io[0], 900);
	ini_ctrl_destroy(c);
	oa.tls_psk = NULL;
	assert_int_not_equal(ctrl(e->req_port, FX_HOST_A, &oa, &c), 0);
}

static int group_setup(void **state)
{
	static const char *const args[] = { "--icreq-timeout-ms", "1500", NULL };
	static const struct fx_group g = {
		.who = "test_tls",
		.extra_args = args,
		.subsystems = subsystems,
		.own_data_dir = true,
		.size = sizeof(struct tls_env),
		.setup = setup,
	};

	return fx_group_setup(state, &g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_required_refuses_plain),
		cmocka_unit_test(test_required_tls_io),
		cmocka_unit_test(test_sha384_suite),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_connect_must_match_identity),
		cmocka_unit_test(test_allowed_takes_both),
		cmocka_unit_test(test_garbage_handshake),
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_stalled_handshake),
		cmocka_unit_test(test_discovery_and_list),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_rotate),
		cmocka_unit_test(test_openssl_s_client),
		cmocka_unit_test(test_restart_keeps_tls),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return cmocka_run_group_tests(tests, group_setup, fx_group_teardown);
}
