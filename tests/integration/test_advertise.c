/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of a listener's advertised address over loopback:
 * `bloxctl listener add ADDR:PORT --advertise ADDR` makes the discovery
 * log's entries for that listener carry the advertised address (what
 * hosts behind NAT, in a container or a VM reach it by) while the others
 * keep their own; listener list shows it, in text and --json; bad input
 * (not a literal, the other family, 0.0.0.0, a discovery-only listener, no
 * value) is refused with its reason and changes nothing; the state file
 * keeps it and a restart from it advertises it again; a config file's
 * "advertise" is checked the same way (--print-config).
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

#define NQN "nqn.2026-12.io.blox:adv"
#define BS 4096u
#define SUBSYS                                                                           \
	"[ { \"nqn\": \"" NQN "\", \"allow_any_host\": true, \"namespaces\": ["           \
	"  {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"4M\", \"block_size\": 4096} ] } ]"
#define ADV "10.0.2.2"

struct env {
	struct fx_env e;
	uint16_t adv_port; /* the listener added with --advertise */
};

/* The discovery log read through the discovery-only listener (malloc'd), n entries. */
static struct nvmf_discovery_log *disc_log(const struct fx_daemon *d, uint64_t *n)
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	struct nvmf_discovery_log *h = calloc(1, 1024), *log;
	size_t len;
	uint16_t st = 0;

	ini_ctrl_args_init(&a, FX_ADDR, d->disc_port, INI_DISC_NQN);
	a.nr_io = 0;
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	assert_non_null(h);
	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_DISCOVER, 0, 0, h, 1024), 0);
	*n = h->numrec;
	len = 1024 + *n * sizeof(struct nvmf_disc_log_entry);
	log = calloc(1, len);
	assert_non_null(log);
	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_DISCOVER, 0, 0, log, (uint32_t)len), 0);
	ini_ctrl_destroy(c);
	free(h);
	return log;
}

/* The traddr of the entry for @port ("" when there is none); its family in *@fam. */
static void traddr_of(const struct nvmf_discovery_log *log, uint64_t n, uint16_t port,
		      char *addr, size_t len, uint8_t *fam)
{
	addr[0] = '\0';
	for (uint64_t i = 0; i < n; i++) {
		char svc[40];

		fx_field_str(svc, sizeof(svc), log->entries[i].trsvcid,
			     sizeof(log->entries[i].trsvcid));
		if (atoi(svc) != port)
			continue;
		fx_field_str(addr, len, log->entries[i].traddr, sizeof(log->entries[i].traddr));
		*fam = log->entries[i].adrfam;
	}
}

static void expect_traddr(const struct fx_daemon *d, uint16_t port, const char *want)
{
	struct nvmf_discovery_log *log;
	char addr[300];
	uint8_t fam = 0;
	uint64_t n;

	log = disc_log(d, &n);
	traddr_of(log, n, port, addr, sizeof(addr), &fam);
	free(log);
	if (strcmp(addr, want))
		fail_msg("port %u: traddr '%s', want '%s'", port, addr, want);
	assert_int_equal(fam, NVMF_ADDR_FAMILY_IP4);
}

/* 1. Without --advertise, nothing changes: the listener's own address. */
static void test_default(void **state)
{
	struct env *v = *state;

	expect_traddr(&v->e.d, v->e.d.nvm_port, FX_ADDR);
}

/*
 * 2. A listener added with --advertise: its entries carry that address,
 * the others keep theirs; it is shown (text and --json); it serves I/O.
 */
static void test_add(void **state)
{
	struct env *v = *state;
	struct fx_daemon *d = &v->e.d;
	struct nvmf_discovery_log *log;
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	char out[8192], want[64];
	uint64_t n, g0;
	uint16_t st = 0;

	log = disc_log(d, &n);
	g0 = log->genctr;
	free(log);
	v->adv_port = fx_free_port(FX_ADDR);
	assert_int_equal(fx_ctl(d, out, sizeof(out), "listener add " FX_ADDR ":%u --advertise " ADV,
				v->adv_port),
			 0);
	if (!strstr(out, "advertised as " ADV))
		fail_msg("listener add:\n%s", out);
	log = disc_log(d, &n);
	assert_int_equal(log->genctr, g0 + 1);
	free(log);
	expect_traddr(d, v->adv_port, ADV);
	expect_traddr(d, d->nvm_port, FX_ADDR);
	assert_int_equal(fx_ctl(d, out, sizeof(out), "listener list"), 0);
	if (!strstr(out, "ADVERTISED") || !strstr(out, ADV))
		fail_msg("listener list:\n%s", out);
	assert_int_equal(fx_ctl(d, out, sizeof(out), "listener list --json"), 0);
	snprintf(want, sizeof(want), "\"port\":%u", v->adv_port);
	if (!strstr(out, want) || !strstr(out, "\"advertise\":\"" ADV "\""))
		fail_msg("listener list --json:\n%s", out);
	/* It listens where it was told to; the advertised address is for hosts elsewhere. */
	ini_ctrl_args_init(&a, FX_ADDR, v->adv_port, NQN);
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	assert_int_equal(fx_rw_check(c->io[0], 1, 5, BS), 0);
	ini_ctrl_destroy(c);
}

/* 3. Bad input: refused with its reason and exit code; nothing changed. */
static void test_bad_input(void **state)
{
	static const struct {
		const char *opts, *why;
		int code;
	} bad[] = {
		{ "--advertise ::1", "advertised address '::1' is IPv6, the listener's address "
				     "127.0.0.1 is IPv4", 1 },
		{ "--advertise 10.0.2", "advertised address '10.0.2': not an IPv4 or IPv6 address",
		  1 },
		{ "--advertise host.example", "not an IPv4 or IPv6 address", 1 },
		{ "--advertise 0.0.0.0", "hosts cannot connect to it", 1 },
		{ "--discovery --advertise " ADV, "a discovery-only listener is not in the "
						  "discovery log: nothing to advertise", 1 },
		{ "--advertise", "--advertise ADDR", 64 },
	};
	struct env *v = *state;
	struct fx_daemon *d = &v->e.d;
	struct nvmf_discovery_log *log;
	uint16_t p = fx_free_port(FX_ADDR);
	char out[8192], want[32];
	uint64_t n, g0;

	log = disc_log(d, &n);
	g0 = log->genctr;
	free(log);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = fx_ctl(d, out, sizeof(out), "listener add " FX_ADDR ":%u %s", p,
				bad[i].opts);

		if (rc != bad[i].code || !strstr(out, bad[i].why))
			fail_msg("listener add %s: exit %d, want %d with '%s':\n%s", bad[i].opts, rc,
				 bad[i].code, bad[i].why, out);
	}
	assert_int_equal(fx_ctl(d, out, sizeof(out), "listener list --json"), 0);
	snprintf(want, sizeof(want), "\"port\":%u", p);
	assert_null(strstr(out, want));
	log = disc_log(d, &n);
	assert_int_equal(log->genctr, g0);
	free(log);
	/* Nothing listens there: the port is still free to take. */
	assert_int_equal(fx_ctl(d, out, sizeof(out), "listener add " FX_ADDR ":%u", p), 0);
	assert_int_equal(fx_ctl(d, out, sizeof(out), "listener remove " FX_ADDR ":%u", p), 0);
}

/* 4. Kept in the state file; a restart from it advertises the same. */
static void test_restart(void **state)
{
	struct env *v = *state;
	struct fx_daemon *d = &v->e.d;
	char path[256], text[65536];
	uint16_t pn = d->nvm_port, pd = d->disc_port;
	const char *argv[] = { "--data-dir", v->e.data_dir, NULL };
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/bloxd-state.json", v->e.data_dir);
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	if (!strstr(text, "\"advertise\"") || !strstr(text, "\"" ADV "\""))
		fail_msg("state file:\n%s", text);
	assert_int_equal(fx_stop(d), 0);
	assert_int_equal(fx_start_argv(d, argv, FX_ADDR, pn, pd), 0);
	expect_traddr(d, v->adv_port, ADV);
	expect_traddr(d, pn, FX_ADDR);
}

/* 5. A config file's "advertise": printed back when good, exit 2 with the reason when bad. */
static void test_config_file(void **state)
{
	static const struct {
		const char *listener, *out;
		int code;
	} cases[] = {
		{ "{\"address\": \"0.0.0.0\", \"port\": 4420, \"advertise\": \"10.0.2.2\"}",
		  "\"advertise\"", 0 },
		{ "{\"address\": \"127.0.0.1\", \"port\": 4420, \"advertise\": \"fd00::2\"}",
		  "listeners[0]: listener 127.0.0.1:4420: advertised address 'fd00::2' is IPv6, "
		  "the listener's address 127.0.0.1 is IPv4",
		  2 },
		{ "{\"address\": \"127.0.0.1\", \"port\": 4420, \"advertise\": \"10.0.2.256\"}",
		  "not an IPv4 or IPv6 address", 2 },
	};
	char dir[256], cfg[300], out[16384], err[4096];
	const char *argv[] = { "-c", cfg, "--print-config", NULL };

	(void)state;
	fx_make_tmp(dir, sizeof(dir), "advcfg");
	snprintf(cfg, sizeof(cfg), "%s/cfg.json", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		FILE *f = fopen(cfg, "w");
		int rc;

		assert_non_null(f);
		fprintf(f, "{\"listeners\": [%s]}\n", cases[i].listener);
		fclose(f);
		rc = fx_run_bloxd(argv, out, sizeof(out), err, sizeof(err), 20000);
		if (rc != cases[i].code || !strstr(rc ? err : out, cases[i].out))
			fail_msg("%s: exit %d, want %d with '%s':\n%s%s", cases[i].listener, rc,
				 cases[i].code, cases[i].out, out, err);
	}
	fx_rm_tree(dir);
}

static const struct fx_group group = {
	.who = "test_advertise",
	.subsystems = SUBSYS,
	.size = sizeof(struct env),
	.own_data_dir = true,
};

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_config_file),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&group, tests);
}
