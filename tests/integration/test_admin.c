/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin plane end to end: a running bloxd driven through bloxctl
 * (path in $BLOXCTL). Namespaces created and deleted while a controller
 * of the project's initiator is connected (AEN, Changed Namespace List,
 * Identify, I/O), refusals with their exit codes, JSON output, stats,
 * then a restart of bloxd from its state file with a nand namespace's
 * data still there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:adm"
#define NVME_LOG_CHANGED_NS 0x04
#define NVME_FEAT_ASYNC_EVENT 0x0b
#define AEN_NS_ATTR (1u << 8)

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"} ] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[65536]; /* bloxctl's output */
};

static const char *bloxctl(void)
{
	const char *p = getenv("BLOXCTL");

	return p ? p : "bloxctl";
}

/* Run "bloxctl -s SOCK <args>", output (stdout+stderr) in e->out; exit code. */
#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

static void test_status_and_errors(void **state)
{
	struct env *e = *state;

	assert_int_equal(run(e, "status"), 0);
	assert_non_null(strstr(e->out, BLOX_VERSION));
	/* NOT_FOUND = 2, with a one-line reason. */
	assert_int_equal(run(e, "ns show %s 9", SUBNQN), 2);
	assert_non_null(strstr(e->out, "namespace 9 not found in " SUBNQN));
	assert_int_equal(run(e, "subsys show nqn.2026-12.io.blox:none"), 2);
	/* INVALID_ARGUMENT = 1: the config parser's own checks. */
	assert_int_equal(run(e, "ns create %s --size 4097 --backend ram", SUBNQN), 1);
	assert_int_equal(run(e, "ns create %s --size 1M --backend tape", SUBNQN), 1);
	/* ALREADY_EXISTS = 3. */
	assert_int_equal(run(e, "ns create %s --nsid 1 --size 1M --backend ram", SUBNQN), 3);
	assert_int_equal(run(e, "subsys create %s", SUBNQN), 3);
	/* A daemon that is not there: UNAVAILABLE = 7. */
	{
		char cmd[512];
		int st;

		snprintf(cmd, sizeof(cmd), "%s -s /tmp/no-such-bloxd.sock status >/dev/null 2>&1",
			 bloxctl());
		st = system(cmd);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), 7);
	}
}

static uint32_t changed_ns_has(struct ini_queue *admin, uint32_t nsid)
{
	uint32_t list[1024] = { 0 };

	assert_int_equal(ini_get_log(admin, NVME_LOG_CHANGED_NS, 0xffffffff, 0, list,
				     sizeof(list)),
			 0);
	for (int i = 0; i < 1024 && list[i]; i++)
		if (list[i] == nsid || list[i] == 0xffffffff)
			return 1;
	return 0;
}

/* Create while connected: the host hears of it and can use it; delete. */
static void test_ns_create_delete_live(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	struct ini_req aer;
	static struct nvme_id_ns id;
	struct ini_req rd;
	uint8_t buf[4096];

	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	assert_int_equal(ini_set_features(c->admin, NVME_FEAT_ASYNC_EVENT, AEN_NS_ATTR,
					  NULL),
			 0);
	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(c->admin, &aer), 0);

	assert_int_equal(run(e, "ns create %s --nsid 2 --size 64M --backend ram", SUBNQN), 0);
	assert_int_equal(ini_wait(c->admin, &aer), 0);
	assert_int_equal(ini_status(&aer.cqe), 0);
	/* Notice (2), Namespace Attribute Changed (0), log page 04h. */
	assert_int_equal(aer.cqe.result & 0x7, 2);
	assert_int_equal((aer.cqe.result >> 8) & 0xff, 0);
	assert_int_equal((aer.cqe.result >> 16) & 0xff, NVME_LOG_CHANGED_NS);
	assert_true(changed_ns_has(c->admin, 2));
	assert_int_equal(ini_identify(c->admin, 0, 2, 0, &id), 0);
	assert_int_equal(id.nsze, (64u << 20) / 4096);
	assert_int_equal(fx_rw_check(c->io[0], 2, 7, 4096), 0);

	/* In use: FAILED_PRECONDITION (4) unless forced. */
	assert_int_equal(run(e, "ns delete %s 2", SUBNQN), 4);
	assert_non_null(strstr(e->out, "in use"));
	assert_int_equal(fx_rw_check(c->io[0], 2, 8, 4096), 0);
	assert_int_equal(run(e, "ns delete %s 2 --force", SUBNQN), 0);
	ini_req_rw(&rd, nvme_cmd_read, 2, 0, 1, buf, sizeof(buf));
	assert_int_equal(ini_exec(c->io[0], &rd), 0);
	assert_int_equal(INI_SC_CODE(ini_status(&rd.cqe)), NVME_SC_INVALID_NS);
	/* Namespace 1 carries on. */
	assert_int_equal(fx_rw_check(c->io[0], 1, 9, 4096), 0);
	assert_int_equal(run(e, "ctrl list"), 0);
	assert_non_null(strstr(e->out, SUBNQN));
	ini_ctrl_destroy(c);
}

static void test_json_and_stats(void **state)
{
	struct env *e = *state;
	json_object *o, *arr;
	int lines = 0;

	assert_int_equal(run(e, "ns create %s --nsid 3 --size 8M --backend ram", SUBNQN), 0);
	assert_int_equal(run(e, "--json ns list %s", SUBNQN), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &arr));
	assert_int_equal(json_object_array_length(arr), 2);
	json_object_put(o);

	assert_int_equal(run(e, "--json stats %s 1", SUBNQN), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	json_object_put(o);
	assert_int_equal(run(e, "stats --watch --interval 100 --count 3"), 0);
	for (const char *p = e->out; (p = strstr(p, SUBNQN)); p++)
		lines++;
	assert_true(lines >= 3);
	assert_int_equal(run(e, "stats %s 77", SUBNQN), 2);
}

/* The "uuid" of namespace @nsid of @nqn, as bloxctl --json ns show gives it. */
static void ns_uuid(struct env *e, const char *nqn, uint32_t nsid, char out[37])
{
	json_object *o, *v;

	assert_int_equal(run(e, "--json ns show %s %u", nqn, nsid), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "uuid", &v));
	snprintf(out, 37, "%s", json_object_get_string(v));
	json_object_put(o);
}

/*
 * A UUID another namespace of the target has already, given or derived
 * (when none is given, from the NQN and nsid), is refused with
 * INVALID_ARGUMENT (1) naming that namespace, and nothing is made: Linux
 * would drop the new namespace ("duplicate IDs in subsystem").
 */
static void test_ns_duplicate_uuid(void **state)
{
	struct env *e = *state;
	static const char u[] = "6d0c8d7e-4a1b-4c2d-8e3f-9a0b1c2d3e4f";
	char other[37], u12[37];

	assert_int_equal(run(e, "ns create %s --nsid 10 --size 1M --backend ram --uuid %s", SUBNQN,
			     u),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 11 --size 1M --backend ram --uuid %s", SUBNQN,
			     "6D0C8D7E-4A1B-4C2D-8E3F-9A0B1C2D3E4F"),
			 1);
	assert_non_null(strstr(e->out, "is already the UUID of namespace 10 of " SUBNQN));
	assert_int_equal(run(e, "ns show %s 11", SUBNQN), 2);
	/* The one namespace 1 got without asking. */
	ns_uuid(e, SUBNQN, 1, other);
	assert_int_equal(run(e, "ns create %s --nsid 11 --size 1M --backend ram --uuid %s", SUBNQN,
			     other),
			 1);
	assert_non_null(strstr(e->out, "is already the UUID of namespace 1 of " SUBNQN));
	/* The other way: a new namespace's own UUID, given to another before it. */
	assert_int_equal(run(e, "ns create %s --nsid 12 --size 1M --backend ram", SUBNQN), 0);
	ns_uuid(e, SUBNQN, 12, u12);
	assert_int_equal(run(e, "ns delete %s 12", SUBNQN), 0);
	assert_int_equal(run(e, "ns create %s --nsid 11 --size 1M --backend ram --uuid %s", SUBNQN,
			     u12),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 12 --size 1M --backend ram", SUBNQN), 1);
	assert_non_null(strstr(e->out, "is already the UUID of namespace 11 of " SUBNQN));
	assert_int_equal(run(e, "ns show %s 12", SUBNQN), 2);
	/* Another subsystem of the target: hosts that see both would drop it too. */
	assert_int_equal(run(e, "subsys create nqn.2026-12.io.blox:adm3"), 0);
	assert_int_equal(run(e, "ns create nqn.2026-12.io.blox:adm3 --nsid 1 --size 1M --backend ram "
				"--uuid %s",
			     u),
			 1);
	assert_non_null(strstr(e->out, "is already the UUID of namespace 10 of " SUBNQN));
	/* Free again once its namespace is gone. */
	assert_int_equal(run(e, "ns delete %s 10", SUBNQN), 0);
	assert_int_equal(run(e, "ns create nqn.2026-12.io.blox:adm3 --nsid 1 --size 1M --backend ram "
				"--uuid %s",
			     u),
			 0);
	assert_int_equal(run(e, "subsys delete nqn.2026-12.io.blox:adm3 --force"), 0);
	assert_int_equal(run(e, "ns delete %s 11", SUBNQN), 0);
}

/* A nand namespace made through the API, and the state, survive a restart. */
static void test_restart_keeps_state(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	uint8_t wbuf[8192], rbuf[8192];
	struct ini_req r;

	assert_int_equal(run(e, "ns create %s --nsid 4 --size 32M --backend nand "
				"--channels 2 --dies-per-channel 1 --pages-per-block 96 "
				"--multi-plane off",
			     SUBNQN),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 5 --size 32M --backend nand "
				"--multi-plane maybe",
			     SUBNQN),
			 64);
	assert_int_equal(run(e, "subsys create nqn.2026-12.io.blox:adm2 --serial ADM2"), 0);
	assert_int_equal(run(e, "host allow nqn.2026-12.io.blox:adm2 %s", FX_HOST_A), 0);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	fx_fill_random(wbuf, sizeof(wbuf), &e->fx.seed);
	assert_int_equal(ini_write(c->io[0], 4, 100, 2, wbuf, sizeof(wbuf), false), 0);
	assert_int_equal(ini_flush(c->io[0], 4), 0);
	ini_ctrl_destroy(c);
	/* The FTL's and the device's counters, new ones included. */
	assert_int_equal(run(e, "--json stats %s 4", SUBNQN), 0);
	assert_non_null(strstr(e->out, "\"gc_paced\""));
	assert_non_null(strstr(e->out, "\"mp_program_groups\""));

	/* No config at all now: the state file (with its listeners) wins. */
	fx_restart(&e->fx, false);
	assert_int_equal(run(e, "ns show %s 4", SUBNQN), 0);
	assert_non_null(strstr(e->out, "multi_plane"));
	assert_int_equal(run(e, "ns show %s 3", SUBNQN), 0);
	assert_int_equal(run(e, "ns show %s 2", SUBNQN), 2);
	assert_int_equal(run(e, "subsys show nqn.2026-12.io.blox:adm2"), 0);
	assert_non_null(strstr(e->out, FX_HOST_A));
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	ini_req_rw(&r, nvme_cmd_read, 4, 100, 2, rbuf, sizeof(rbuf));
	assert_int_equal(ini_exec(c->io[0], &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	assert_memory_equal(wbuf, rbuf, sizeof(wbuf));
	ini_ctrl_destroy(c);
	/* Deleting it removes its flash; the state follows. */
	assert_int_equal(run(e, "ns delete %s 4", SUBNQN), 0);
	assert_int_equal(run(e, "subsys delete nqn.2026-12.io.blox:adm2"), 0);
	assert_int_equal(run(e, "config save"), 0);
}

/* Run bloxctl over TLS to @host:@port with the client pair @cli; its exit code. */
static int tls_run(const char *dir, const char *host, uint16_t port, const char *cli)
{
	char cmd[4096];
	int st;

	snprintf(cmd, sizeof(cmd),
		 "%s --connect %s:%u --cert %s/%s.pem --key %s/%s.key --ca %s/ca.pem status"
		 " >/dev/null 2>&1",
		 bloxctl(), host, port, dir, cli, dir, cli, dir);
	st = system(cmd);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* bloxd with the admin API on TLS, presenting the server pair @srv. */
static void tls_start(struct fx_daemon *d, const char *dir, const char *srv,
		      uint16_t port, uint16_t tport)
{
	char lis[32], tls[32], cert[128], key[128], ca[128];
	const char *argv[] = { "-l", lis, "--admin-tls", tls, "--admin-tls-cert", cert,
			       "--admin-tls-key", key, "--admin-tls-ca", ca,
			       "--log-level", "1", NULL };

	snprintf(lis, sizeof(lis), "%s:%u", FX_ADDR, port);
	snprintf(tls, sizeof(tls), "%s:%u", FX_ADDR, tport);
	snprintf(cert, sizeof(cert), "%s/%s.pem", dir, srv);
	snprintf(key, sizeof(key), "%s/%s.key", dir, srv);
	snprintf(ca, sizeof(ca), "%s/ca.pem", dir);
	assert_int_equal(fx_start_argv(d, argv, FX_ADDR, port, 0), 0);
}

/*
 * The admin API over TLS: a client certificate of the CA gets in, others
 * do not; bloxctl takes bloxd's certificate only when it names the host
 * it connected to (IP address or DNS name).
 */
static void test_tls(void **state)
{
	struct fx_daemon d2;
	char dir[64], cmd[4096];
	uint16_t port = fx_free_port(FX_ADDR), tport;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/bloxd-tls-XXXXXX");
	assert_non_null(mkdtemp(dir));
	/* srv names 127.0.0.1 and localhost; wrong names another host. */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && (printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\n' > srv.ext &&"
		 " printf 'subjectAltName=DNS:elsewhere.invalid\\n' > wrong.ext &&"
		 " printf 'basicConstraints=CA:FALSE\\n' > cli.ext &&"
		 " openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
		 " -keyout ca.key -out ca.pem -days 2 -subj /CN=blox-test-ca &&"
		 " for n in srv wrong cli; do openssl req -newkey ec"
		 " -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout $n.key -out $n.csr"
		 " -subj /CN=$n && openssl x509 -req -in $n.csr -CA ca.pem -CAkey ca.key"
		 " -CAcreateserial -out $n.pem -days 2 -extfile $n.ext || exit 1; done &&"
		 " openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes"
		 " -keyout rogue.key -out rogue.pem -days 2 -subj /CN=rogue) >/dev/null 2>&1",
		 dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "test_admin: openssl could not make certificates\n");
		fail();
	}
	do {
		tport = fx_free_port(FX_ADDR);
	} while (tport == port);

	tls_start(&d2, dir, "srv", port, tport);
	assert_int_equal(tls_run(dir, FX_ADDR, tport, "cli"), 0);
	assert_int_equal(tls_run(dir, "localhost", tport, "cli"), 0);
	/* Our certificate is not of the CA: bloxd refuses us. */
	assert_int_not_equal(tls_run(dir, FX_ADDR, tport, "rogue"), 0);
	assert_int_equal(fx_stop(&d2), 0);

	/* bloxd's certificate is of the CA but for another host: we refuse it. */
	tls_start(&d2, dir, "wrong", port, tport);
	assert_int_equal(tls_run(dir, FX_ADDR, tport, "cli"), 7);
	assert_int_equal(tls_run(dir, "localhost", tport, "cli"), 7);
	assert_int_equal(fx_stop(&d2), 0);

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	static const struct fx_group g = { .who = "test_admin",
					   .subsystems = subsystems,
					   .own_data_dir = true,
					   .size = sizeof(struct env) };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_and_errors),
		cmocka_unit_test(test_ns_create_delete_live),
		cmocka_unit_test(test_json_and_stats),
		cmocka_unit_test(test_ns_duplicate_uuid),
		cmocka_unit_test(test_restart_keeps_state),
		cmocka_unit_test(test_tls),
	};

	return FX_MAIN(&g, tests);
}
