/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Input validation and capacity checks of a real bloxd, through bloxctl
 * (path in $BLOXCTL) and config files:
 *   - NQNs the NVMe spec refuses ('db', a space, 'NQN.', month 13, 224
 *     bytes, a broken UUID form, 'badhost' as a host): INVALID_ARGUMENT
 *     (bloxctl exit 1) with a reason naming the NQN, nothing persisted;
 *     in a config file bloxd exits 2 with the reason;
 *   - capacity: a nand namespace larger than the data directory's free
 *     space (free + 1 TiB) and a RAM one larger than the host's memory
 *     (MemTotal + 1 TiB) are refused with RESOURCE_EXHAUSTED (exit 5),
 *     logged, no flash file left; with --overcommit they are made, with a
 *     warning in bloxctl's output and the log; the flag survives a
 *     restart from the state file; in a config file bloxd exits 5 before
 *     making anything, and starts with "overcommit": true;
 *   - 100 TiB of nand: a clear refusal, never INTERNAL;
 *   - typical bloxctl mistakes: each its exit code and a reason.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:valid"
#define TIB (1ull << 40)
#define GIB (1ull << 30)
/*
 * Past the free space by this much when the namespace is made
 * (overcommitted): enough that nothing else frees as much meanwhile, small
 * enough for its FTL's format (1 TiB takes 23 s in the ASan build).
 */
#define OVER (64 * GIB)

/* bloxctl's exit codes (its status codes) and bloxd's. */
#define EX_INVALID 1
#define EX_NOT_FOUND 2
#define EX_EXHAUSTED 5
#define EX_INTERNAL 8
#define EX_USAGE 64
#define BLOXD_EX_CONFIG 2
#define BLOXD_EX_CAPACITY 5

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"} ] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char log[96]; /* bloxd's stdout and stderr */
	char side_log[96]; /* those of a second bloxd (start_fails()) */
	char side_sock[96]; /* its admin socket, not the first one's */
	char out[65536]; /* bloxctl's */
	char text[1 << 20]; /* a file read back */
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

/* @path's text into e->text ("" when missing). */
static const char *slurp(struct env *e, const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(e->text, 1, sizeof(e->text) - 1, f);
		fclose(f);
	}
	e->text[n] = '\0';
	return e->text;
}

static bool log_has(struct env *e, const char *log, const char *s)
{
	return strstr(slurp(e, log), s) != NULL;
}

/*
 * Start bloxd on @subsys in @data_dir with its output in @log (emptied
 * first), on admin socket @sock (NULL: the fixture's).
 */
static int start(struct env *e, const char *subsys, const char *data_dir, const char *log,
		 const char *sock)
{
	const char *extra[] = { "--admin-socket", sock, NULL };
	struct fx_start_opts o = { .data_dir = data_dir, .log_path = log, .log_level = "2",
				   .extra_args = sock ? extra : NULL };

	unlink(log);
	return fx_start_opts(&e->fx.d, subsys, &o);
}

/* Restart the group's bloxd with a log (the group starts it without one). */
static int setup(void *arg)
{
	struct env *e = arg;

	snprintf(e->log, sizeof(e->log), "/tmp/bloxd-validate-%d.log", (int)getpid());
	snprintf(e->side_log, sizeof(e->side_log), "/tmp/bloxd-validate-%d-2.log", (int)getpid());
	snprintf(e->side_sock, sizeof(e->side_sock), "/tmp/bloxd-validate-%d-2.sock",
		 (int)getpid());
	if (fx_stop(&e->fx.d))
		return -1;
	return start(e, subsystems, e->fx.data_dir, e->log, NULL);
}

static void teardown(void *arg)
{
	struct env *e = arg;

	unlink(e->log);
	unlink(e->side_log);
}

/* Free bytes on the filesystem of @dir. */
static uint64_t fs_free(const char *dir)
{
	struct statvfs v;

	assert_int_equal(statvfs(dir, &v), 0);
	return (uint64_t)v.f_bavail * v.f_frsize;
}

static uint64_t mem_total(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	unsigned long long kb = 0;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "MemTotal: %llu kB", &kb), 1);
	fclose(f);
	return kb * 1024;
}

/* Flash files of namespaces in @dir. */
static int ns_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		n += !strncmp(de->d_name, "ns-", 3);
	closedir(d);
	return n;
}

/* 1. Bad NQNs through the admin API: INVALID_ARGUMENT with the reason, nothing made. */
static void test_nqn_api(void **state)
{
	struct env *e = *state;
	char long_nqn[300], path[128];
	static const struct {
		const char *nqn, *why;
	} bad[] = {
		{ "db", "NQN 'db': must start with 'nqn.'" },
		{ "nqn.2026-12.io.blox:has space",
		  "NQN 'nqn.2026-12.io.blox:has space': white space at byte 23" },
		{ "NQN.2026-12.io.blox:upper", "must start with 'nqn.' (in lowercase)" },
		{ "nqn.2026-13.io.blox:x", "month 13 of the date is not 01..12" },
		{ "nqn.2026-12.io.blox", "no ':' and name after the reverse domain" },
		{ "nqn.2026-12.IO.blox:x", "has uppercase letters" },
		{ "nqn.2014-08.org.nvmexpress:uuid:1234", "the UUID form" },
		{ "nqn.2014-08.org.nvmexpress.discovery", "the discovery subsystem's NQN" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(run(e, "subsys create '%s'", bad[i].nqn), EX_INVALID);
		if (!strstr(e->out, bad[i].why))
			fail_msg("'%s': \"%s\" does not say \"%s\"", bad[i].nqn, e->out,
				 bad[i].why);
	}
	/* 224 bytes are refused, 223 made. */
	snprintf(long_nqn, sizeof(long_nqn), "nqn.2026-12.io.blox:");
	memset(long_nqn + 20, 'n', 204);
	long_nqn[224] = '\0';
	assert_int_equal(run(e, "subsys create %s", long_nqn), EX_INVALID);
	assert_non_null(strstr(e->out, "224 bytes, more than the 223"));
	long_nqn[223] = '\0';
	assert_int_equal(run(e, "subsys create %s", long_nqn), 0);
	assert_int_equal(run(e, "subsys delete %s", long_nqn), 0);

	/* Hosts: at create and allow; a UUID host NQN is fine. */
	assert_int_equal(run(e, "subsys create nqn.2026-12.io.blox:h --host badhost"), EX_INVALID);
	assert_non_null(strstr(e->out, "NQN 'badhost': must start with 'nqn.'"));
	assert_int_equal(run(e, "subsys show nqn.2026-12.io.blox:h"), EX_NOT_FOUND);
	assert_int_equal(run(e, "host allow " SUBNQN " badhost"), EX_INVALID);
	assert_non_null(strstr(e->out, "NQN 'badhost'"));
	assert_int_equal(run(e, "host allow " SUBNQN " '" FX_HOST_A " '"), EX_INVALID);
	assert_int_equal(run(e, "host allow " SUBNQN " " FX_HOST_A), 0);

	/* Nothing of them is served or in the state file. */
	assert_int_equal(run(e, "subsys list"), 0);
	assert_null(strstr(e->out, "has space"));
	assert_null(strstr(e->out, "NQN."));
	assert_null(strstr(e->out, "badhost"));
	snprintf(path, sizeof(path), "%s/bloxd-state.json", e->fx.data_dir);
	slurp(e, path);
	assert_non_null(strstr(e->text, FX_HOST_A));
	assert_null(strstr(e->text, "badhost"));
	assert_null(strstr(e->text, "has space"));
	assert_null(strstr(e->text, "\"db\""));
}

/* Start a second bloxd on @subsys in a data directory of its own: its exit code. */
static int start_fails(struct env *e, const char *subsys, char *dir, size_t dlen)
{
	struct fx_daemon keep = e->fx.d;
	int rc, code;

	snprintf(dir, dlen, "/tmp/bloxd-validate-data-XXXXXX");
	assert_non_null(mkdtemp(dir));
	rc = start(e, subsys, dir, e->side_log, e->side_sock);
	code = rc ? e->fx.d.exit_code : 0;
	if (!rc)
		fx_stop(&e->fx.d);
	e->fx.d = keep;
	return code;
}

static void remove_dir(const char *dir)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* 2. Bad NQNs in a config file: bloxd exits 2 with the reason, makes nothing. */
static void test_nqn_config(void **state)
{
	struct env *e = *state;
	static const struct {
		const char *subsys, *why;
	} bad[] = {
		{ "[{\"nqn\": \"db\"}]", "subsystems[0].nqn: NQN 'db': must start with 'nqn.'" },
		{ "[{\"nqn\": \"nqn.2026-12.io.blox:has space\"}]", "white space at byte 23" },
		{ "[{\"nqn\": \"NQN.2026-12.io.blox:x\"}]", "(in lowercase)" },
		{ "[{\"nqn\": \"nqn.2026-12.io.blox:a\", \"hosts\": [\"badhost\"]}]",
		  "subsystems[0].hosts[0]: NQN 'badhost': must start with 'nqn.'" },
	};
	char dir[64], path[128];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(start_fails(e, bad[i].subsys, dir, sizeof(dir)),
				 BLOXD_EX_CONFIG);
		if (!log_has(e, e->side_log, bad[i].why))
			fail_msg("config %s: log \"%s\" does not say \"%s\"", bad[i].subsys,
				 e->text, bad[i].why);
		snprintf(path, sizeof(path), "%s/bloxd-state.json", dir);
		assert_int_not_equal(access(path, F_OK), 0);
		remove_dir(dir);
	}
}

/* 3. More than the data directory's filesystem or the host's memory: refused. */
static void test_capacity_refused(void **state)
{
	struct env *e = *state;
	uint64_t file = (fs_free(e->fx.data_dir) + TIB) / GIB;
	uint64_t ram = (mem_total() + TIB) / GIB;

	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 2 --size %luG", (unsigned long)file),
			 EX_EXHAUSTED);
	assert_non_null(strstr(e->out, "namespace 2 of " SUBNQN " needs "));
	assert_non_null(strstr(e->out, e->fx.data_dir));
	assert_non_null(strstr(e->out, " free"));
	assert_non_null(strstr(e->out, "with overcommit it is made anyway"));
	assert_true(log_has(e, e->log, "namespace 2 of " SUBNQN " needs "));
	assert_int_equal(ns_files(e->fx.data_dir), 0);

	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 3 --size %luG --backend ram",
			     (unsigned long)ram),
			 EX_EXHAUSTED);
	assert_non_null(strstr(e->out, "RAM namespace 3 of " SUBNQN " needs "));
	assert_non_null(strstr(e->out, "available"));
	assert_true(log_has(e, e->log, "RAM namespace 3 of " SUBNQN " needs "));
	assert_int_equal(run(e, "ns show " SUBNQN " 2"), EX_NOT_FOUND);
	assert_int_equal(run(e, "ns show " SUBNQN " 3"), EX_NOT_FOUND);
}

/* 4. The same with --overcommit: made, with a warning in bloxctl's output and the log. */
static void test_capacity_overcommit(void **state)
{
	struct env *e = *state;
	uint64_t file = (fs_free(e->fx.data_dir) + OVER) / GIB;
	uint64_t ram = (mem_total() + TIB) / GIB;

	assert_int_equal(run(e, "--timeout 120 ns create " SUBNQN " --nsid 2 --size %luG "
				"--overcommit",
			     (unsigned long)file),
			 0);
	assert_non_null(strstr(e->out, "bloxctl: warning: namespace 2 of " SUBNQN
					" is overcommitted"));
	assert_true(log_has(e, e->log, "namespace 2 of " SUBNQN " is overcommitted"));
	assert_int_equal(ns_files(e->fx.data_dir), 1);
	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 3 --size %luG --backend ram "
				"--overcommit",
			     (unsigned long)ram),
			 0);
	assert_non_null(strstr(e->out, "bloxctl: warning: RAM namespace 3 of " SUBNQN
					" is overcommitted"));
	assert_int_equal(run(e, "ns show " SUBNQN " 2"), 0);
	assert_non_null(strstr(e->out, "\"overcommit\":true"));
	/* Nothing overcommitted is promised: a small namespace still fits. */
	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 4 --size 64M"), 0);
	assert_null(strstr(e->out, "warning"));
}

/* 5. 100 TiB of nand: refused, and with overcommit a clear reason (or made), never INTERNAL. */
static void test_huge_nand(void **state)
{
	struct env *e = *state;
	int rc;

	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 5 --size 100T"), EX_EXHAUSTED);
	assert_non_null(strstr(e->out, "needs 114 TiB on"));
	rc = run(e, "ns create " SUBNQN " --nsid 5 --size 100T --overcommit");
	assert_int_not_equal(rc, EX_INTERNAL);
	if (rc == 0) {
		/* A filesystem that takes such a file (XFS, btrfs). */
		assert_int_equal(run(e, "ns delete " SUBNQN " 5"), 0);
		return;
	}
	assert_int_equal(rc, EX_INVALID);
	assert_non_null(strstr(e->out, "its flash file of 114 TiB is larger than the filesystem"));
	assert_non_null(strstr(e->out, "File too large"));
	assert_true(log_has(e, e->log, "File too large"));
	assert_int_equal(ns_files(e->fx.data_dir), 2); /* namespaces 2 and 4 */
}

/*
 * 6. The overcommitted namespaces come back after a restart from the state
 * file (its listeners, no config): not refused (exit 5) by the check.
 */
static void test_overcommit_restart(void **state)
{
	struct env *e = *state;
	uint16_t p1 = e->fx.d.nvm_port, p2 = e->fx.d.disc_port;
	const char *argv[] = { "--data-dir", e->fx.data_dir, "--log-level", "1", NULL };

	assert_int_equal(fx_stop(&e->fx.d), 0);
	assert_int_equal(fx_start_argv(&e->fx.d, argv, FX_ADDR, p1, p2), 0);
	assert_int_equal(run(e, "ns show " SUBNQN " 2"), 0);
	assert_non_null(strstr(e->out, "\"overcommit\":true"));
	assert_int_equal(run(e, "ns show " SUBNQN " 3"), 0);
	assert_non_null(strstr(e->out, "\"overcommit\":true"));
	assert_int_equal(run(e, "ns show " SUBNQN " 4"), 0);
	assert_int_equal(run(e, "ns delete " SUBNQN " 2"), 0);
	assert_int_equal(run(e, "ns delete " SUBNQN " 3"), 0);
}

/* 7. A config asking too much: exit 5 before anything is made; overcommitted it starts. */
static void test_capacity_config(void **state)
{
	struct env *e = *state;
	char subsys[512], dir[64];
	uint64_t file = (fs_free("/tmp") + OVER) / GIB;
	int code;
	const char *fmt = "[{\"nqn\": \"" SUBNQN "\", \"namespaces\": ["
			  "{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"},"
			  "{\"nsid\": 2, \"backend\": \"nand\", \"size\": \"%luG\"%s}]}]";

	snprintf(subsys, sizeof(subsys), fmt, (unsigned long)file, "");
	assert_int_equal(start_fails(e, subsys, dir, sizeof(dir)), BLOXD_EX_CAPACITY);
	assert_true(log_has(e, e->side_log, "namespace 2 of " SUBNQN " needs "));
	assert_int_equal(ns_files(dir), 0);
	remove_dir(dir);

	snprintf(subsys, sizeof(subsys), fmt, (unsigned long)file, ", \"overcommit\": true");
	code = start_fails(e, subsys, dir, sizeof(dir));
	if (code)
		fail_msg("overcommitted: exit %d: %s", code, slurp(e, e->side_log));
	assert_true(log_has(e, e->side_log, "namespace 2 of " SUBNQN " is overcommitted"));
	assert_int_equal(ns_files(dir), 1);
	remove_dir(dir);
}

/* 8. Typical mistakes on bloxctl's command line: each its exit code and reason. */
static void test_mistakes(void **state)
{
	struct env *e = *state;
	static const struct {
		const char *args;
		int code;
		const char *why;
	} cases[] = {
		{ "ns create " SUBNQN, EX_USAGE, "--size is required" },
		{ "ns create", EX_USAGE, "NQN and --size are required" },
		{ "ns create " SUBNQN " --size 1X", EX_USAGE, "--size '1X' has an unknown unit" },
		{ "ns create " SUBNQN " --size -5", EX_USAGE,
		  "--size '-5' is not a whole number of bytes" },
		{ "ns create " SUBNQN " --size 1Gb", EX_USAGE, "--size '1Gb' is in bits (b)" },
		{ "ns create " SUBNQN " --size 1G --nsid -1", EX_USAGE, "'-1' is not a namespace id" },
		{ "ns create " SUBNQN " --size 1G --nsid", EX_USAGE, "--nsid needs a value" },
		{ "ns create " SUBNQN " --size 0 --backend ram", EX_INVALID,
		  "size: must be a non-zero multiple" },
		{ "ns create " SUBNQN " --size 1G --backend tape", EX_INVALID,
		  "'tape' is not one of ram, null, nand, nand-timing, zns" },
		{ "ns create " SUBNQN " --size 1G --nsid 9 --isolation bogus", EX_INVALID,
		  "isolation: only for a namespace on a device" },
		{ "ns create " SUBNQN " --size 1G --nsid 9 --device nope", EX_NOT_FOUND,
		  "no device 'nope'" },
		{ "ns create nqn.2026-12.io.blox:none --size 1G", EX_NOT_FOUND,
		  "subsystem nqn.2026-12.io.blox:none not found" },
		{ "ns delete " SUBNQN " 99", EX_NOT_FOUND, "namespace 99 not found" },
		{ "ns delete " SUBNQN, EX_USAGE, "NQN and NSID are required" },
		{ "device create bad/name", EX_INVALID, "letters, digits, - and _ only" },
		{ "device show nope", EX_NOT_FOUND, "device nope not found" },
		{ "listener add 127.0.0.1:99999", EX_USAGE, "the port must be 1..65535" },
		{ "listener add foo", EX_USAGE, "'foo' is not ADDR:PORT" },
		{ "frobnicate", EX_USAGE, "unknown command 'frobnicate'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc = run(e, "%s", cases[i].args);

		if (rc != cases[i].code || !strstr(e->out, cases[i].why))
			fail_msg("bloxctl %s: exit %d \"%s\", want %d \"%s\"", cases[i].args, rc,
				 e->out, cases[i].code, cases[i].why);
	}
}

int main(void)
{
	static const struct fx_group g = { .who = "test_validate",
					   .subsystems = subsystems,
					   .own_data_dir = true,
					   .size = sizeof(struct env),
					   .setup = setup,
					   .teardown = teardown };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nqn_api),
		cmocka_unit_test(test_nqn_config),
		cmocka_unit_test(test_capacity_refused),
		cmocka_unit_test(test_capacity_overcommit),
		cmocka_unit_test(test_huge_nand),
		cmocka_unit_test(test_overcommit_restart),
		cmocka_unit_test(test_capacity_config),
		cmocka_unit_test(test_mistakes),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
