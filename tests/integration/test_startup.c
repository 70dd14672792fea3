/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a new user meets at bloxd's start and stop, with a real bloxd and
 * bloxctl (paths in $BLOXD, $BLOXCTL, $BLOXPERF):
 *   1. a full data directory (a 30 MiB tmpfs, as root; skipped otherwise):
 *      the serving bloxd says so in the log, `bloxctl status` and the
 *      metrics; a stop that could not checkpoint exits 1 saying why; the
 *      next start exits 5 naming the directory and the space it needs;
 *      with space again it starts and stops cleanly;
 *   2. --admin-socket in a missing directory: exit 2, nothing made;
 *   3. --admin-group of no group, a missing --admin-tls-key: exit 2 with
 *      the reason (never "(null)"); a config with a JSON syntax error: its
 *      line and column;
 *   4. bloxctl on a socket it may not use: exit 6 (PERMISSION_DENIED),
 *      not 7; `host allow` of a host allowed already: exit 0;
 *   5. a config without listeners and no -l: exit 2 "no listener"; a state
 *      file whose listeners were all removed starts with none;
 *   6. the shipped image and unit start without -l/-D (their listeners
 *      come from a config file), so a listener added with bloxctl, a TLS
 *      one too, is served again after a restart with the same command line.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

#define DEF_NQN "nqn.2026-12.io.blox:default"

static char text[1 << 20]; /* a file or an output, read back */

static const char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	size_t n = 0;

	if (f) {
		n = fread(text, 1, sizeof(text) - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	return text;
}

static void write_file(const char *path, const char *s)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

/* Run bloxd with @args to its end (at most 60 s): its stderr in @err. Its exit code. */
static int run_bloxd(const char *const *args, char *err, size_t errlen)
{
	return fx_run_bloxd(args, NULL, 0, err, errlen, 60000);
}

static void assert_has(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("no '%s' in:\n%s", needle, hay);
}

/* Wait up to @ms for @needle in the file @path. */
static bool wait_for(const char *path, const char *needle, int ms)
{
	for (int t = 0; t < ms; t += 100) {
		if (strstr(slurp(path), needle))
			return true;
		fx_sleep_ms(100);
	}
	return false;
}

/* GET /metrics from 127.0.0.1:@port into text. */
static const char *scrape(uint16_t port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	static const char req[] = "GET /metrics HTTP/1.0\r\n\r\n";
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	size_t n = 0;
	ssize_t k;

	assert_true(fd >= 0);
	inet_pton(AF_INET, FX_ADDR, &a.sin_addr);
	assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(write(fd, req, sizeof(req) - 1), (ssize_t)sizeof(req) - 1);
	while (n < sizeof(text) - 1 && (k = read(fd, text + n, sizeof(text) - 1 - n)) > 0)
		n += (size_t)k;
	close(fd);
	text[n] = '\0';
	return text;
}

/* ---- 1. A full data directory ---- */

struct full {
	struct fx_daemon d;
	char mnt[64], dir[96], sock[128], log[128], nvm[32], disc[32], met[32];
	uint16_t nvm_port, disc_port, met_port;
	const char *argv[16];
};

static void full_start(struct full *f)
{
	int rc;

	unlink(f->log);
	rc = fx_start_argv_log(&f->d, f->argv, f->log, FX_ADDR, f->nvm_port, f->disc_port);
	if (rc)
		fail_msg("bloxd did not start (%s): %s", strerror(-rc), slurp(f->log));
}

static void test_full_data_dir(void **state)
{
	const char *perf = getenv("BLOXPERF");
	char cmd[1024], err[16384], out[8192];
	struct full f;
	size_t n = 0;
	int rc;

	(void)state;
	memset(&f, 0, sizeof(f));
	fx_make_tmp(f.mnt, sizeof(f.mnt), "full");
	if (geteuid() != 0 || !perf ||
	    mount("tmpfs", f.mnt, "tmpfs", 0, "size=30m")) {
		rmdir(f.mnt);
		skip(); /* needs root for a small filesystem of its own */
	}
	snprintf(f.dir, sizeof(f.dir), "%s/d", f.mnt);
	snprintf(f.sock, sizeof(f.sock), "%s/adm.sock", f.mnt);
	snprintf(f.log, sizeof(f.log), "/tmp/bloxd-full-%d.log", (int)getpid());
	f.nvm_port = fx_free_port(FX_ADDR);
	do
		f.disc_port = fx_free_port(FX_ADDR);
	while (f.disc_port == f.nvm_port);
	do
		f.met_port = fx_free_port(FX_ADDR);
	while (f.met_port == f.nvm_port || f.met_port == f.disc_port);
	snprintf(f.nvm, sizeof(f.nvm), "%s:%u", FX_ADDR, f.nvm_port);
	snprintf(f.disc, sizeof(f.disc), "%s:%u", FX_ADDR, f.disc_port);
	snprintf(f.met, sizeof(f.met), "%s:%u", FX_ADDR, f.met_port);
	f.argv[n++] = "-l";
	f.argv[n++] = f.nvm;
	f.argv[n++] = "-D";
	f.argv[n++] = f.disc;
	f.argv[n++] = "--data-dir";
	f.argv[n++] = f.dir;
	f.argv[n++] = "--admin-socket";
	f.argv[n++] = f.sock;
	f.argv[n++] = "--metrics";
	f.argv[n++] = f.met;
	f.argv[n++] = "--log-level";
	f.argv[n++] = "2";
	f.argv[n] = NULL;

	/* The embedded default (a 1 GiB vSSD, overcommitted here), filled from a host. */
	full_start(&f);
	assert_int_equal(fx_ctl(&f.d, out, sizeof(out), "status"), 0);
	assert_has(out, "data dir space");
	assert_null(strstr(out, "FULL"));
	snprintf(cmd, sizeof(cmd),
		 "'%s' -a %s -p %u -n %s -w write -o 131072 -q 8 -r 100000000 -t 3 "
		 ">/dev/null 2>&1",
		 perf, FX_ADDR, f.nvm_port, DEF_NQN);
	rc = system(cmd);
	(void)rc; /* its writes fail once the filesystem is full */
	if (!wait_for(f.log, "is full", 5000))
		fail_msg("no 'is full' in the log: %s", slurp(f.log));
	assert_has(slurp(f.log), f.dir);
	assert_int_equal(fx_ctl(&f.d, out, sizeof(out), "status"), 0);
	assert_has(out, "FULL");
	assert_int_equal(fx_ctl(&f.d, out, sizeof(out), "--json status"), 0);
	if (!strstr(out, "\"data_dir_full\":true") && !strstr(out, "\"data_dir_full\": true"))
		fail_msg("no data_dir_full true in: %s", out);
	assert_has(scrape(f.met_port), "bloxd_data_dir_full 1");
	assert_has(text, "bloxd_data_dir_free_bytes ");

	/* The stop cannot checkpoint: exit 1, and why. */
	assert_int_equal(fx_stop(&f.d), 1);
	assert_has(slurp(f.log), "stop: data directory");
	assert_has(text, "is full");

	/* The next start: exit 5, the directory and the space it needs. */
	assert_int_equal(run_bloxd(f.argv, err, sizeof(err)), 5);
	assert_has(err, "data directory ");
	assert_has(err, f.dir);
	assert_has(err, "need about");

	/* Space again: it starts, the data served, and stops cleanly. */
	assert_int_equal(mount("tmpfs", f.mnt, "tmpfs", MS_REMOUNT, "size=96m"), 0);
	full_start(&f);
	assert_int_equal(fx_ctl(&f.d, out, sizeof(out), "status"), 0);
	assert_null(strstr(out, "FULL"));
	assert_int_equal(fx_stop(&f.d), 0);
	assert_int_equal(umount(f.mnt), 0);
	rmdir(f.mnt);
	unlink(f.log);
}

/* ---- 2, 3. The command line and the config, checked before anything is made ---- */

static void test_admin_socket_dir(void **state)
{
	char dir[64], sock[128], data[128], err[8192];

	(void)state;
	fx_make_tmp(dir, sizeof(dir), "sockdir");
	snprintf(sock, sizeof(sock), "%s/no/such/dir/s.sock", dir);
	snprintf(data, sizeof(data), "%s/data", dir);
	{
		const char *argv[] = { "-l", "127.0.0.1:1", "--data-dir", data, "--admin-socket",
				       sock, NULL };

		assert_int_equal(run_bloxd(argv, err, sizeof(err)), 2);
	}
	assert_has(err, "--admin-socket");
	assert_has(err, "create it first");
	snprintf(sock, sizeof(sock), "%s/no", dir);
	assert_int_not_equal(access(sock, F_OK), 0); /* nothing made */
	assert_int_not_equal(access(data, F_OK), 0);
	fx_rm_tree(dir);
}

static void test_admin_opts_and_config(void **state)
{
	char dir[64], sock[128], data[128], cfg[128], key[128], err[8192];

	(void)state;
	fx_make_tmp(dir, sizeof(dir), "adminopts");
	snprintf(sock, sizeof(sock), "%s/s.sock", dir);
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(key, sizeof(key), "%s/missing-key.pem", dir);
	{
		const char *argv[] = { "-l",	     "127.0.0.1:1",	     "--data-dir",
				       data,	     "--admin-socket",	     sock,
				       "--admin-group", "no-such-group-blox", NULL };

		assert_int_equal(run_bloxd(argv, err, sizeof(err)), 2);
		assert_has(err, "--admin-group no-such-group-blox: no such group");
	}
	{
		const char *argv[] = { "-l",
				       "127.0.0.1:1",
				       "--data-dir",
				       data,
				       "--admin-socket",
				       sock,
				       "--admin-tls",
				       "127.0.0.1:1",
				       "--admin-tls-cert",
				       "/etc/hostname",
				       "--admin-tls-key",
				       key,
				       "--admin-tls-ca",
				       "/etc/hostname",
				       NULL };

		assert_int_equal(run_bloxd(argv, err, sizeof(err)), 2);
		assert_has(err, key);
		assert_has(err, "No such file or directory");
		assert_null(strstr(err, "(null)"));
	}
	/* A syntax error on line 3: its line and column. */
	snprintf(cfg, sizeof(cfg), "%s/bad.json", dir);
	write_file(cfg, "{\n  \"listeners\": [\n    { \"address\": 127.0.0.1 }\n  ]\n}\n");
	{
		const char *argv[] = { "-c", cfg, "--data-dir", data, "--admin-socket", sock, NULL };

		assert_int_equal(run_bloxd(argv, err, sizeof(err)), 2);
		assert_has(err, "line 3, column");
	}
	assert_int_not_equal(access(data, F_OK), 0);
	fx_rm_tree(dir);
}

/* ---- 4. bloxctl's exit codes ---- */

/* bloxctl as user nobody on @sock: its exit code, its output in @out. */
static int ctl_as_nobody(const char *sock, char *out, size_t len)
{
	const char *ctl = getenv("BLOXCTL");
	int fds[2], st;
	size_t n = 0;
	ssize_t k;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(126);
		execl(ctl, ctl, "-s", sock, "status", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (n < len - 1 && (k = read(fds[0], out + n, len - 1 - n)) > 0)
		n += (size_t)k;
	out[n] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_ctl_exit_codes(void **state)
{
	char out[8192];
	struct fx_daemon d = { 0 };

	(void)state;
	assert_int_equal(fx_start(&d, "[{\"nqn\": \"nqn.2026-12.io.blox:ex\", \"namespaces\": "
				      "[{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"}]}]"),
			 0);
	/* A host allowed again without secrets: nothing to do, and said OK. */
	assert_int_equal(fx_ctl(&d, out, sizeof(out), "host allow nqn.2026-12.io.blox:ex %s",
				FX_HOST_A),
			 0);
	assert_int_equal(fx_ctl(&d, out, sizeof(out), "host allow nqn.2026-12.io.blox:ex %s",
				FX_HOST_A),
			 0);
	if (geteuid() == 0) {
		/* The socket (0660, root's group) is there, bloxd runs: not "is bloxd running?". */
		assert_int_equal(ctl_as_nobody(d.admin_sock, out, sizeof(out)), 6);
		assert_has(out, "Permission denied");
		assert_null(strstr(out, "is bloxd running"));
	}
	assert_int_equal(fx_stop(&d), 0);
}

/* ---- 5. No listener ---- */

/* bloxd with @args in the background, as @d (no port to wait for); its output dropped. */
static void spawn_bg(struct fx_daemon *d, const char *const *args, const char *sock)
{
	memset(d, 0, sizeof(*d));
	assert_true(strlen(sock) < sizeof(d->admin_sock));
	memcpy(d->admin_sock, sock, strlen(sock) + 1);
	d->pid = fx_spawn_bloxd(args, NULL, NULL);
	assert_true(d->pid > 0);
}

static void test_no_listener(void **state)
{
	char dir[64], sock[128], data[128], cfg[128], err[8192], out[8192], nvm[32];
	struct fx_daemon d = { 0 };
	uint16_t port = fx_free_port(FX_ADDR);

	(void)state;
	fx_make_tmp(dir, sizeof(dir), "nolis");
	snprintf(sock, sizeof(sock), "%s/s.sock", dir);
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(cfg, sizeof(cfg), "%s/cfg.json", dir);
	snprintf(nvm, sizeof(nvm), "%s:%u", FX_ADDR, port);
	write_file(cfg, "{\"subsystems\": [{\"nqn\": \"nqn.2026-12.io.blox:nl\", "
			"\"allow_any_host\": true}]}");
	{
		const char *argv[] = { "-c", cfg, "--data-dir", data, "--admin-socket", sock, NULL };

		assert_int_equal(run_bloxd(argv, err, sizeof(err)), 2);
		assert_has(err, "no listener");
		assert_has(err, cfg);
	}
	/* With -l it serves; bloxctl removes that listener; the same start without -l. */
	{
		const char *argv[] = { "-c",	 cfg,	   "--data-dir", data, "--admin-socket",
				       sock,	 "-l",	   nvm,		 NULL };
		const char *again[] = { "-c", cfg, "--data-dir", data, "--admin-socket", sock, NULL };

		int rc = 1;

		assert_int_equal(fx_start_argv(&d, argv, FX_ADDR, port, 0), 0);
		/*
		 * A listener with a connection is not removed: the fixture's
		 * readiness probe may still be open at bloxd for a moment.
		 */
		for (int i = 0; i < 50 && rc; i++) {
			rc = fx_ctl(&d, out, sizeof(out), "listener remove %s", nvm);
			if (rc)
				fx_sleep_ms(100);
		}
		assert_int_equal(rc, 0);
		assert_int_equal(fx_stop(&d), 0);
		spawn_bg(&d, again, sock);
		for (int i = 0; i < 100 && fx_ctl(&d, out, sizeof(out), "status"); i++)
			fx_sleep_ms(100);
		assert_true(fx_alive(&d));
		assert_int_equal(fx_ctl(&d, out, sizeof(out), "listener list"), 0);
		assert_null(strstr(out, nvm));
		assert_int_equal(fx_stop(&d), 0);
	}
	fx_rm_tree(dir);
}

/* ---- 6. The shipped image and unit keep bloxctl's listeners ---- */

/* The line of @path starting with @prefix, into @line; false when none. */
static bool find_line(const char *path, const char *prefix, char *line, size_t len)
{
	FILE *f = fopen(path, "r");
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, (int)len, f))
		found = !strncmp(line, prefix, strlen(prefix));
	fclose(f);
	return found;
}

static void test_shipped_keeps_listeners(void **state)
{
	char line[1024], dir[64], sock[128], data[128], cfg[128], err[65536], out[8192];
	char nvm[32], disc[32], tls[32];
	uint16_t p1 = fx_free_port(FX_ADDR), p2, p3;
	struct fx_daemon d = { 0 };

	(void)state;
	/* The image's command and the unit's start line give no -l/-D. */
	assert_true(find_line(BLOX_SOURCE_DIR "/docker/Dockerfile", "CMD ", line, sizeof(line)));
	assert_null(strstr(line, "\"-l\""));
	assert_null(strstr(line, "\"-D\""));
	assert_has(line, "--config");
	assert_true(find_line(BLOX_SOURCE_DIR "/systemd/bloxd.service.in", "ExecStart=", line,
			      sizeof(line)));
	assert_null(strstr(line, " -l "));
	assert_null(strstr(line, " -D "));
	assert_true(find_line(BLOX_SOURCE_DIR "/docker/Dockerfile", "RUN bloxd --print-config",
			      line, sizeof(line)));

	/* What the image does, on free ports: its config from --print-config, then --config. */
	do
		p2 = fx_free_port(FX_ADDR);
	while (p2 == p1);
	do
		p3 = fx_free_port(FX_ADDR);
	while (p3 == p1 || p3 == p2);
	snprintf(nvm, sizeof(nvm), "%s:%u", FX_ADDR, p1);
	snprintf(disc, sizeof(disc), "%s:%u", FX_ADDR, p2);
	snprintf(tls, sizeof(tls), "%s:%u", FX_ADDR, p3);
	fx_make_tmp(dir, sizeof(dir), "shipped");
	snprintf(sock, sizeof(sock), "%s/s.sock", dir);
	snprintf(data, sizeof(data), "%s/data", dir);
	snprintf(cfg, sizeof(cfg), "%s/bloxd.json", dir);
	{
		const char *argv[] = { "--print-config", "-l", nvm, "-D", disc, "--data-dir", data,
				       NULL };
		char cmd[1024];

		snprintf(cmd, sizeof(cmd), "'%s' --print-config -l %s -D %s --data-dir %s > %s 2>/dev/null",
			 fx_bloxd_path(), nvm, disc, data, cfg);
		(void)argv;
		assert_int_equal(system(cmd), 0);
	}
	{
		const char *argv[] = { "--config", cfg, "--data-dir", data, "--admin-socket", sock,
				       NULL };

		assert_int_equal(fx_start_argv(&d, argv, FX_ADDR, p1, p2), 0);
		assert_int_equal(fx_ctl(&d, out, sizeof(out), "listener add %s --tls required", tls),
				 0);
		assert_int_equal(fx_stop(&d), 0);
		/* The same command line: the TLS listener is served again. */
		assert_int_equal(fx_start_argv(&d, argv, FX_ADDR, p1, p3), 0);
		assert_int_equal(fx_ctl(&d, out, sizeof(out), "listener list"), 0);
		snprintf(tls, sizeof(tls), " %u ", p3);
		assert_has(out, tls);
		assert_has(out, "required");
		assert_int_equal(fx_stop(&d), 0);
	}
	(void)err;
	fx_rm_tree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_data_dir),
		cmocka_unit_test(test_admin_socket_dir),
		cmocka_unit_test(test_admin_opts_and_config),
		cmocka_unit_test(test_ctl_exit_codes),
		cmocka_unit_test(test_no_listener),
		cmocka_unit_test(test_shipped_keeps_listeners),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
