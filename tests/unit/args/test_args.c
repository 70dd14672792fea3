/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of bloxd's command line and the configuration it starts from
 * (daemon/conf/args.c), through conf.h only: the defaults, each kind of
 * flag, the refusals (exit code 2), and the precedence of the state file,
 * --config, the embedded default and -l/-D.
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

#include "conf.h"

/* Parse the NULL-terminated arguments after "bloxd" into @a (defaults first). */
static int parse(struct bloxd_args *a, ...)
{
	char *argv[32] = { (char *)"bloxd" };
	int argc = 1;
	va_list ap;

	va_start(ap, a);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *)))
		argc++;
	va_end(ap);
	bloxd_args_init(a);
	return bloxd_args_parse(argc, argv, a);
}

static void test_defaults(void **state)
{
	struct bloxd_args a;

	(void)state;
	assert_int_equal(parse(&a, NULL), 0);
	assert_false(a.done);
	assert_null(a.config);
	assert_null(a.data_dir);
	assert_int_equal(a.nr_listen, 0);
	assert_int_equal(a.log_level, BLOX_LOG_INFO);
	assert_int_equal(a.shutdown_timeout, 30);
	assert_int_equal(a.poll_us, BLOXD_POLL_US);
	assert_int_equal(a.nr_reactors, 0);
	assert_int_equal(a.admin_opts.max_inflight, 256);
	assert_null(a.metrics_addr);
	assert_int_equal(a.tcp_limits.max_conns, NVMF_TCP_LIMITS_DEFAULT.max_conns);
}

static void test_flags(void **state)
{
	struct bloxd_args a;

	(void)state;
	assert_int_equal(parse(&a, "-c", "f.json", "-l", "10.0.0.1:4420", "-D", "[::1]:8009",
			       "--data-dir", "/srv/blox", "--poll-us", "0", "--reactors", "2",
			       "--max-connections", "5", "--max-admin-inflight", "7", "-v",
			       "--metrics", "127.0.0.1:9100", "--admin-socket", "/tmp/s.sock",
			       "--shutdown-timeout", "9", "--print-config", NULL),
			 0);
	assert_string_equal(a.config, "f.json");
	assert_string_equal(a.data_dir, "/srv/blox");
	assert_int_equal(a.nr_listen, 2);
	assert_string_equal(a.listen[0].spec, "10.0.0.1:4420");
	assert_false(a.listen[0].disc);
	assert_string_equal(a.listen[1].spec, "[::1]:8009");
	assert_true(a.listen[1].disc);
	assert_int_equal(a.poll_us, 0);
	assert_int_equal(a.nr_reactors, 2);
	assert_int_equal(a.tcp_limits.max_conns, 5);
	assert_int_equal(a.admin_opts.max_inflight, 7);
	assert_int_equal(a.log_level, BLOX_LOG_DEBUG);
	assert_string_equal(a.metrics_addr, "127.0.0.1:9100");
	assert_string_equal(a.admin_opts.socket_path, "/tmp/s.sock");
	assert_int_equal(a.shutdown_timeout, 9);
	assert_true(a.print_config);
	/* A second parse starts afresh (getopt's state). */
	assert_int_equal(parse(&a, "--log-level", "1", NULL), 0);
	assert_int_equal(a.log_level, 1);
	assert_int_equal(a.nr_listen, 0);
}

static void test_refused(void **state)
{
	struct bloxd_args a;

	(void)state;
	assert_int_equal(parse(&a, "--reactors", "0", NULL), BLOXD_EX_USAGE);
	assert_int_equal(parse(&a, "--poll-us", "x", NULL), BLOXD_EX_USAGE);
	assert_int_equal(parse(&a, "--metrics", "1.2.3:80", NULL), BLOXD_EX_USAGE);
	assert_int_equal(parse(&a, "--metrics", "127.0.0.1:0", NULL), BLOXD_EX_USAGE);
	assert_int_equal(parse(&a, "--admin-idle-ms", "99", NULL), BLOXD_EX_USAGE);
	assert_int_equal(parse(&a, "stray", NULL), BLOXD_EX_USAGE);
	assert_int_equal(parse(&a, "--no-such-flag", NULL), BLOXD_EX_USAGE);
	/* The pool must hold two transfers. */
	assert_int_equal(parse(&a, "--buffer-pool-mb", "1", "--mdts-kb", "1024", NULL),
			 BLOXD_EX_USAGE);
	assert_int_equal(parse(&a, "--version", NULL), 0);
	assert_true(a.done);
}

static void test_metrics_addr(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(blox_metrics_check_addr("0.0.0.0:9100", err, sizeof(err)), 0);
	assert_int_equal(blox_metrics_check_addr("[::1]:9100", err, sizeof(err)), 0);
	assert_int_not_equal(blox_metrics_check_addr("::1:9100", err, sizeof(err)), 0);
	assert_non_null(strstr(err, "brackets"));
	assert_int_not_equal(blox_metrics_check_addr("127.0.0.1:65536", err, sizeof(err)), 0);
}

/* A data directory of its own for one test. */
static void tmp_dir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/blox-args-XXXXXX");
	assert_non_null(mkdtemp(dir));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

#define ONE_SUBSYS(port)                                                             \
	"{\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":" port "}],"            \
	"\"subsystems\":[{\"nqn\":\"nqn.2026-12.io.blox:t\",\"namespaces\":[]}]}"

static void test_precedence(void **state)
{
	struct blox_log log = { .level = -1 };
	char dir[64], cfgf[128], statef[128];
	struct bloxd_sources src;
	struct blox_config cfg;
	struct bloxd_args a;

	(void)state;
	tmp_dir(dir, sizeof(dir));
	snprintf(cfgf, sizeof(cfgf), "%s/c.json", dir);
	snprintf(statef, sizeof(statef), "%s/%s", dir, BLOX_STATE_FILE);
	write_file(cfgf, ONE_SUBSYS("4421"));
	/* Nothing given: the embedded default. */
	assert_int_equal(parse(&a, "--data-dir", dir, NULL), 0);
	memset(&src, 0, sizeof(src));
	assert_int_equal(bloxd_config_load(&a, &log, &cfg, &src), 0);
	assert_string_equal(src.base, "embedded default");
	assert_string_equal(cfg.data_dir, dir);
	blox_config_free(&cfg);
	/* --config: its listeners; -l replaces them. */
	assert_int_equal(parse(&a, "--data-dir", dir, "-c", cfgf, NULL), 0);
	assert_int_equal(bloxd_config_load(&a, &log, &cfg, &src), 0);
	assert_non_null(strstr(src.base, "config file"));
	assert_int_equal(cfg.nr_listeners, 1);
	assert_string_equal(cfg.listeners[0].port, "4421");
	blox_config_free(&cfg);
	assert_int_equal(parse(&a, "--data-dir", dir, "-c", cfgf, "-l", "127.0.0.1:4500", NULL), 0);
	assert_int_equal(bloxd_config_load(&a, &log, &cfg, &src), 0);
	assert_string_equal(src.listeners, "command line (-l/-D)");
	assert_int_equal(cfg.nr_listeners, 1);
	assert_string_equal(cfg.listeners[0].port, "4500");
	blox_config_free(&cfg);
	/* The state file wins over --config. */
	write_file(statef, ONE_SUBSYS("4422"));
	assert_int_equal(parse(&a, "--data-dir", dir, "-c", cfgf, NULL), 0);
	assert_int_equal(bloxd_config_load(&a, &log, &cfg, &src), 0);
	assert_non_null(strstr(src.base, "the state file wins"));
	assert_string_equal(cfg.listeners[0].port, "4422");
	blox_config_free(&cfg);
	/* A bad config file: exit code 2. */
	unlink(statef);
	write_file(cfgf, "{\"listeners\":");
	assert_int_equal(parse(&a, "--data-dir", dir, "-c", cfgf, NULL), 0);
	assert_int_equal(bloxd_config_load(&a, &log, &cfg, &src), BLOXD_EX_USAGE);
	blox_config_free(&cfg);
	unlink(cfgf);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_metrics_addr),
		cmocka_unit_test(test_precedence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
