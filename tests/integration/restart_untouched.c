/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_restart: starts that must leave the data directory as it
 * was: a second bloxd on it exits 3 naming the first's PID; a start that
 * fails on a busy port leaves it byte-identical (and an empty one empty);
 * --print-config opens, locks and binds nothing.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "restart.h"

/* ---- What a data directory holds, to compare before and after ---- */

#define SNAP_MAX 32

struct snap {
	size_t n;
	struct {
		char name[256];
		off_t size;
		struct timespec mtime;
		uint64_t hash; /* FNV-1a over the file's data extents (sparse files) */
	} f[SNAP_MAX];
};

static uint64_t hash_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	uint64_t h = 1469598103934665603ull;
	static char buf[1 << 16];
	off_t off = 0, end;

	assert_true(fd >= 0);
	end = lseek(fd, 0, SEEK_END);
	while (off < end) {
		off_t data = lseek(fd, off, SEEK_DATA), hole;

		if (data < 0)
			break;
		hole = lseek(fd, data, SEEK_HOLE);
		for (off = data; off < hole;) {
			off_t want = hole - off < (off_t)sizeof(buf) ? hole - off
								     : (off_t)sizeof(buf);
			ssize_t k = pread(fd, buf, (size_t)want, off);

			assert_true(k > 0);
			for (ssize_t i = 0; i < k; i++)
				h = (h ^ (uint8_t)buf[i]) * 1099511628211ull;
			off += k;
		}
		h = (h ^ (uint64_t)data) * 1099511628211ull;
	}
	close(fd);
	return h;
}

static void take_snap(const char *dir, struct snap *s)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	memset(s, 0, sizeof(*s));
	assert_non_null(d);
	while ((e = readdir(d))) {
		char path[512];
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		assert_true(s->n < SNAP_MAX);
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		assert_int_equal(stat(path, &st), 0);
		snprintf(s->f[s->n].name, sizeof(s->f[s->n].name), "%s", e->d_name);
		s->f[s->n].size = st.st_size;
		s->f[s->n].mtime = st.st_mtim;
		s->f[s->n].hash = S_ISREG(st.st_mode) ? hash_file(path) : 0;
		s->n++;
	}
	closedir(d);
}

static void assert_snap_equal(const struct snap *a, const struct snap *b)
{
	if (a->n != b->n)
		fail_msg("%zu files before, %zu after", a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		size_t j;

		for (j = 0; j < b->n; j++)
			if (!strcmp(a->f[i].name, b->f[j].name))
				break;
		if (j == b->n)
			fail_msg("%s is gone", a->f[i].name);
		if (a->f[i].size != b->f[j].size || a->f[i].hash != b->f[j].hash ||
		    a->f[i].mtime.tv_sec != b->f[j].mtime.tv_sec ||
		    a->f[i].mtime.tv_nsec != b->f[j].mtime.tv_nsec)
			fail_msg("%s changed", a->f[i].name);
	}
}

static bool dir_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool empty = true;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			fprintf(stderr, "%s holds %s\n", dir, e->d_name);
			empty = false;
		}
	closedir(d);
	return empty;
}

/* 3. A second bloxd on the same data directory exits 3 naming the first. */
void test_two_daemons_one_dir(void **state)
{
	char out[4096], err[8192], want[128], nvm2[32], disc2[32];
	const char *argv[16];
	struct fx_own r;

	(void)state;
	fx_own_init(&r, "rt2d");
	fx_own_start(&r);
	rt_write(&r, 3);
	snprintf(nvm2, sizeof(nvm2), "%s:%u", FX_ADDR, fx_free_port(FX_ADDR));
	snprintf(disc2, sizeof(disc2), "%s:%u", FX_ADDR, fx_free_port(FX_ADDR));
	memcpy(argv, r.argv, sizeof(r.argv));
	argv[1] = nvm2;
	argv[3] = disc2;
	argv[7] = "/tmp/bloxd-rt2d-second.sock";
	assert_int_equal(fx_run_bloxd(argv, out, sizeof(out), err, sizeof(err), 20000), 3);
	snprintf(want, sizeof(want), "data directory %s is in use by bloxd (pid %d)", r.dir,
		 (int)r.d.pid);
	if (!strstr(err, want))
		fail_msg("no '%s' in: %s", want, err);
	/* The first serves on, its data intact. */
	assert_true(fx_alive(&r.d));
	rt_check(&r, 3);
	fx_own_stop(&r);
	fx_own_fini(&r);
}

/* A listening socket on a free loopback port: a port in use. */
static int busy_port(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	inet_pton(AF_INET, FX_ADDR, &a.sin_addr);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 1), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* 4. A start that fails (busy port, bad config) changes nothing in the data directory. */
void test_failed_start_touches_nothing(void **state)
{
	char out[4096], err[8192], busy[32], empty[64], missing[128], cfgdir[64],
		cfgpath[128];
	struct snap before, after;
	const char *argv[16];
	uint16_t port;
	int fd;
	struct fx_own r;

	(void)state;
	/* A data directory with stores, from a clean run. */
	fx_own_init(&r, "rtfail");
	fx_own_start(&r);
	rt_write(&r, 5);
	fx_own_stop(&r);
	take_snap(r.dir, &before);
	assert_true(before.n >= 2);

	fd = busy_port(&port);
	snprintf(busy, sizeof(busy), "%s:%u", FX_ADDR, port);
	memcpy(argv, r.argv, sizeof(r.argv));
	argv[1] = busy;
	assert_int_equal(fx_run_bloxd(argv, out, sizeof(out), err, sizeof(err), 30000), 4);
	take_snap(r.dir, &after);
	assert_snap_equal(&before, &after);
	/* The admin socket is not left behind either. */
	assert_int_not_equal(access(r.sock, F_OK), 0);

	/* An empty data directory stays empty, a missing one missing. */
	fx_make_tmp(empty, sizeof(empty), "rtempty");
	argv[5] = empty;
	assert_int_equal(fx_run_bloxd(argv, out, sizeof(out), err, sizeof(err), 30000), 4);
	assert_true(dir_empty(empty));
	snprintf(missing, sizeof(missing), "%s/sub", empty);
	argv[5] = missing;
	assert_int_equal(fx_run_bloxd(argv, out, sizeof(out), err, sizeof(err), 30000), 4);
	assert_int_not_equal(access(missing, F_OK), 0);
	close(fd);

	/* A bad config: exit 2, nothing made. */
	fx_make_tmp(cfgdir, sizeof(cfgdir), "rtbadcfg");
	rt_write_file(cfgdir, "cfg.json", "{\"listeners\": [{\"address\": \"127.0.0.1\"}]}",
		   cfgpath, sizeof(cfgpath));
	{
		const char *bad[] = { "-c", cfgpath, "--data-dir", empty, "--admin-socket",
				      r.sock, NULL };

		assert_int_equal(fx_run_bloxd(bad, out, sizeof(out), err, sizeof(err), 30000), 2);
	}
	assert_true(dir_empty(empty));

	/* And the stores still serve their data. */
	fx_own_start(&r);
	rt_check(&r, 5);
	fx_own_stop(&r);
	fx_own_fini(&r);
	fx_rm_tree(empty);
	fx_rm_tree(cfgdir);
}

/* 5. --print-config: JSON that reflects -l, its sources, and nothing touched. */
void test_print_config(void **state)
{
	static char out[65536];
	char err[8192];
	const char *argv[20];
	json_object *root, *ls, *l, *v;
	struct fx_own r;

	(void)state;
	fx_own_init(&r, "rtprint");
	memcpy(argv, r.argv, 10 * sizeof(*argv));
	argv[10] = "-l";
	argv[11] = r.nvm; /* twice: one listener */
	argv[12] = "--print-config";
	argv[13] = NULL;
	assert_int_equal(fx_run_bloxd(argv, out, sizeof(out), err, sizeof(err), 20000), 0);
	root = json_tokener_parse(out);
	if (!root)
		fail_msg("not JSON: %s", out);
	assert_true(json_object_object_get_ex(root, "listeners", &ls));
	assert_int_equal(json_object_array_length(ls), 2);
	l = json_object_array_get_idx(ls, 0);
	assert_true(json_object_object_get_ex(l, "port", &v));
	assert_int_equal(json_object_get_int(v), r.nvm_port);
	assert_true(json_object_object_get_ex(l, "address", &v));
	assert_string_equal(json_object_get_string(v), FX_ADDR);
	l = json_object_array_get_idx(ls, 1);
	assert_true(json_object_object_get_ex(l, "discovery_only", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(root, "subsystems", &v));
	assert_int_equal(json_object_array_length(v), 1);
	json_object_put(root);
	assert_non_null(strstr(err, "listeners: command line"));
	assert_non_null(strstr(err, "embedded default"));
	/* Nothing locked, opened or bound. */
	assert_true(dir_empty(r.dir));

	/* After a bloxctl change it says the state file. */
	fx_own_start(&r);
	assert_int_equal(fx_ctl(&r.d, err, sizeof(err),
				"subsys create nqn.2026-12.io.blox:printed --allow-any-host"),
			 0);
	/* While bloxd runs too: --print-config takes no lock. */
	assert_int_equal(fx_run_bloxd(argv, out, sizeof(out), err, sizeof(err), 20000), 0);
	assert_non_null(strstr(out, "nqn.2026-12.io.blox:printed"));
	assert_non_null(strstr(err, "state file"));
	fx_own_stop(&r);
	fx_own_fini(&r);
}

