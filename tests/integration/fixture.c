/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration-test fixture: runs bloxd as a child process on loopback
 * ports with a generated config, and the helpers the test programs
 * share. See fixture.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <ftw.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef BLOXD_DEFAULT_PATH
#define BLOXD_DEFAULT_PATH "bloxd"
#endif

int fx_finish(int failures)
{
	if (failures) {
		fflush(NULL);
		_exit(failures > 125 ? 125 : failures);
	}
	return 0;
}

int64_t fx_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fx_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int fx_wait_child(pid_t pid, int timeout_ms)
{
	int64_t end = fx_now_ms() + timeout_ms;
	int st = 0;

	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (fx_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		fx_sleep_ms(20);
	}
	return st;
}

const char *fx_bloxd_path(void)
{
	const char *p = getenv("BLOXD");
	return p && *p ? p : BLOXD_DEFAULT_PATH;
}

static const char *log_level(void)
{
	const char *p = getenv("BLOX_TEST_LOG_LEVEL");
	return p && *p ? p : "1";
}

static int make_sockaddr(const char *addr, uint16_t port,
			 struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
	return -EINVAL;
}

uint16_t fx_free_port(const char *addr)
{
	struct sockaddr_storage ss;
	socklen_t len;
	uint16_t port = 0;
	int fd;

	if (make_sockaddr(addr, 0, &ss, &len))
		return 0;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (bind(fd, (struct sockaddr *)&ss, len) == 0 &&
	    getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		port = ntohs(ss.ss_family == AF_INET
				     ? ((struct sockaddr_in *)&ss)->sin_port
				     : ((struct sockaddr_in6 *)&ss)->sin6_port);
	close(fd);
	return port;
}

/* A plain TCP connect succeeds (the daemon listens). */
static bool port_open(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t len;
	bool ok;
	int fd;

	if (make_sockaddr(addr, port, &ss, &len))
		return false;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	ok = connect(fd, (struct sockaddr *)&ss, len) == 0;
	close(fd);
	return ok;
}

static int reap(struct fx_daemon *d, int flags)
{
	int st;
	pid_t r = waitpid(d->pid, &st, flags);

	if (r != d->pid)
		return -EAGAIN;
	d->pid = 0;
	if (WIFEXITED(st))
		d->exit_code = WEXITSTATUS(st);
	else if (WIFSIGNALED(st))
		d->exit_code = 128 + WTERMSIG(st);
	else
		d->exit_code = -1;
	return 0;
}

bool fx_alive(struct fx_daemon *d)
{
	if (d->pid <= 0)
		return false;
	return reap(d, WNOHANG) != 0;
}

/*
 * In a child: its stdout appended to @out_path and its stderr to @err_path
 * (NULL: inherited), at most @nofile files open (0: inherited), then
 * @argv executed. Does not return.
 */
static _Noreturn void child_exec(const char *const *argv, const char *out_path,
				 const char *err_path, unsigned nofile)
{
	const char *path[2] = { out_path, err_path };

	/* Never outlive the test program (a ctest timeout kills it). */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	for (int i = 0; i < 2; i++) {
		int fd;

		if (!path[i])
			continue;
		fd = open(path[i], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 || dup2(fd, 1 + i) < 0) {
			fprintf(stderr, "fixture: %s %s: %s\n", i ? "stderr" : "stdout", path[i],
				strerror(errno));
			_exit(127);
		}
	}
	if (nofile && setrlimit(RLIMIT_NOFILE, &(struct rlimit){ nofile, nofile })) {
		fprintf(stderr, "fixture: RLIMIT_NOFILE %u: %s\n", nofile, strerror(errno));
		_exit(127);
	}
	execv(argv[0], (char *const *)argv);
	fprintf(stderr, "fixture: exec %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Fork and exec bloxd with @args; its stdout and stderr are appended to
 * @log_path if not NULL, else inherited. */
static int spawn(struct fx_daemon *d, const char *const *args,
		 const char *log_path, unsigned nofile)
{
	const char *argv[40];
	bool has_sock = false, has_data = false;
	size_t n = 0;
	pid_t pid;

	argv[n++] = fx_bloxd_path();
	for (; *args && n < 31; args++) {
		/* A socket given is the one bloxctl is pointed at (fx_ctl). */
		if (!strcmp(*args, "--admin-socket") && args[1]) {
			has_sock = true;
			snprintf(d->admin_sock, sizeof(d->admin_sock), "%s", args[1]);
		}
		has_data |= !strcmp(*args, "--data-dir");
		argv[n++] = *args;
	}
	/* Never the machine's socket or data directory. */
	if (!has_sock) {
		snprintf(d->admin_sock, sizeof(d->admin_sock),
			 "/tmp/bloxd-adm-%d-%lx.sock", (int)getpid(),
			 (unsigned long)(uintptr_t)d & 0xffffff);
		argv[n++] = "--admin-socket";
		argv[n++] = d->admin_sock;
	}
	if (!has_data) {
		snprintf(d->own_data, sizeof(d->own_data), "/tmp/bloxd-data-XXXXXX");
		if (!mkdtemp(d->own_data))
			return -errno;
		argv[n++] = "--data-dir";
		argv[n++] = d->own_data;
	}
	argv[n] = NULL;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_exec(argv, log_path, log_path, nofile);
	d->pid = pid;
	return 0;
}

static int wait_ready(struct fx_daemon *d, const char *addr, uint16_t p1,
		      uint16_t p2)
{
	int64_t end = fx_now_ms() + 10000;

	while (fx_now_ms() < end) {
		if (!fx_alive(d)) {
			fprintf(stderr, "fixture: bloxd exited early (%d)\n",
				d->exit_code);
			return -ECHILD;
		}
		if (port_open(addr, p1) && (!p2 || port_open(addr, p2)))
			return 0;
		fx_sleep_ms(50);
	}
	fprintf(stderr, "fixture: bloxd not listening after 10 s\n");
	return -ETIMEDOUT;
}

static int make_dir(struct fx_daemon *d)
{
	snprintf(d->dir, sizeof(d->dir), "/tmp/bloxd-test-XXXXXX");
	if (!mkdtemp(d->dir))
		return -errno;
	snprintf(d->cfg, sizeof(d->cfg), "%s/bloxd.json", d->dir);
	return 0;
}

static int write_config(struct fx_daemon *d, const char *subsystems_json)
{
	FILE *f = fopen(d->cfg, "w");

	if (!f)
		return -errno;
	fprintf(f,
		"{\n  \"listeners\": [\n"
		"    {\"address\": \"%s\", \"port\": %u},\n"
		"    {\"address\": \"%s\", \"port\": %u, \"discovery_only\": true}\n"
		"  ],\n  \"subsystems\": %s\n}\n",
		FX_ADDR, d->nvm_port, FX_ADDR, d->disc_port, subsystems_json);
	if (fclose(f))
		return -errno;
	return 0;
}

static void cleanup_dir(struct fx_daemon *d)
{
	if (d->cfg[0])
		unlink(d->cfg);
	if (d->dir[0])
		rmdir(d->dir);
	d->cfg[0] = d->dir[0] = '\0';
}

int fx_start(struct fx_daemon *d, const char *subsystems_json)
{
	return fx_start_opts(d, subsystems_json, NULL);
}

int fx_start_opts(struct fx_daemon *d, const char *subsystems_json,
		  const struct fx_start_opts *o)
{
	const char *args[24] = { "-c", d->cfg, "--log-level", log_level(), NULL };
	size_t n = 4;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = make_dir(d);
	if (rc)
		return rc;
	d->nvm_port = fx_free_port(FX_ADDR);
	do {
		d->disc_port = fx_free_port(FX_ADDR);
	} while (d->disc_port == d->nvm_port);
	if (!d->nvm_port || !d->disc_port) {
		rc = -EADDRNOTAVAIL;
		goto remove_dir;
	}
	rc = write_config(d, subsystems_json);
	if (rc)
		goto remove_dir;
	args[1] = d->cfg;
	if (o && o->log_level)
		args[3] = o->log_level;
	if (o && o->data_dir) {
		args[n++] = "--data-dir";
		args[n++] = o->data_dir;
	}
	for (size_t i = 0; o && o->extra_args && o->extra_args[i] &&
			   n < sizeof(args) / sizeof(args[0]) - 1; i++)
		args[n++] = o->extra_args[i];
	args[n] = NULL;
	rc = spawn(d, args, o ? o->log_path : NULL, o ? o->nofile : 0);
	if (rc)
		goto remove_dir;
	rc = wait_ready(d, FX_ADDR, d->nvm_port, d->disc_port);
	if (rc)
		goto stop;
	/* Read at start-up only; nothing is left behind if we get killed. */
	cleanup_dir(d);
	return 0;

stop:
	fx_stop(d);
remove_dir:
	cleanup_dir(d);
	return rc;
}

int fx_start_argv(struct fx_daemon *d, const char *const *argv,
		  const char *wait_addr, uint16_t wait_port,
		  uint16_t wait_port2)
{
	return fx_start_argv_log(d, argv, NULL, wait_addr, wait_port, wait_port2);
}

int fx_start_argv_log(struct fx_daemon *d, const char *const *argv, const char *log_path,
		      const char *wait_addr, uint16_t wait_port, uint16_t wait_port2)
{
	int rc;

	memset(d, 0, sizeof(*d));
	d->nvm_port = wait_port;
	d->disc_port = wait_port2;
	rc = spawn(d, argv, log_path, 0);
	if (rc)
		return rc;
	rc = wait_ready(d, wait_addr, wait_port, wait_port2);
	if (rc)
		fx_stop(d);
	return rc;
}

pid_t fx_spawn_bloxd(const char *const *args, const char *out_path, const char *log_path)
{
	const char *argv[40];
	size_t n = 0;
	pid_t pid;

	argv[n++] = fx_bloxd_path();
	for (; *args && n < sizeof(argv) / sizeof(argv[0]) - 1; args++)
		argv[n++] = *args;
	argv[n] = NULL;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		child_exec(argv, out_path ? out_path : "/dev/null",
			   log_path ? log_path : "/dev/null", 0);
	return pid;
}

int fx_run_bloxd(const char *const *args, char *out, size_t outlen, char *err, size_t errlen,
		 int timeout_ms)
{
	char file[2][32] = { "/tmp/bloxd-out-XXXXXX", "/tmp/bloxd-err-XXXXXX" };
	char *buf[2] = { out, err };
	size_t len[2] = { outlen, errlen };
	int fd[2], st;
	pid_t pid;

	for (int i = 0; i < 2; i++) {
		fd[i] = mkstemp(file[i]);
		assert_true(fd[i] >= 0);
	}
	pid = fx_spawn_bloxd(args, out ? file[0] : NULL, file[1]);
	assert_true(pid > 0);
	st = fx_wait_child(pid, timeout_ms);
	for (int i = 0; i < 2; i++) {
		if (buf[i]) {
			ssize_t k = pread(fd[i], buf[i], len[i] - 1, 0);

			buf[i][k > 0 ? k : 0] = '\0';
		}
		close(fd[i]);
		unlink(file[i]);
	}
	fprintf(stderr, "bloxd stderr: %s", err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
}

void fx_make_tmp(char *out, size_t len, const char *what)
{
	snprintf(out, len, "/tmp/bloxd-%s-XXXXXX", what);
	assert_non_null(mkdtemp(out));
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fx_rm_tree(const char *dir)
{
	if (nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
		fprintf(stderr, "could not remove %s: %s\n", dir, strerror(errno));
}

/* Remove the data directory made for the daemon, with what is in it. */
static void remove_own_data(struct fx_daemon *d)
{
	if (d->own_data[0])
		fx_rm_tree(d->own_data);
	d->own_data[0] = '\0';
}

int fx_stop(struct fx_daemon *d)
{
	int64_t end;

	if (d->pid > 0 && fx_alive(d)) {
		kill(d->pid, SIGTERM);
		end = fx_now_ms() + 15000;
		while (d->pid > 0 && fx_now_ms() < end) {
			if (reap(d, WNOHANG) == 0)
				break;
			fx_sleep_ms(20);
		}
		if (d->pid > 0) {
			fprintf(stderr, "fixture: bloxd ignored SIGTERM\n");
			kill(d->pid, SIGKILL);
			reap(d, 0);
			d->exit_code = -1;
		}
	}
	cleanup_dir(d);
	remove_own_data(d);
	return d->exit_code;
}

int fx_kill(struct fx_daemon *d, int sig)
{
	if (d->pid > 0) {
		kill(d->pid, sig);
		reap(d, 0);
	}
	cleanup_dir(d);
	remove_own_data(d);
	if (d->admin_sock[0])
		unlink(d->admin_sock);
	return d->exit_code;
}

int fx_group_setup(void **state, const struct fx_group *g)
{
	size_t size = g->size ? g->size : sizeof(struct fx_env);
	struct fx_env *e = calloc(1, size);
	struct fx_start_opts o = { .extra_args = g->extra_args };

	if (!e)
		return -1;
	if (g->who)
		e->seed = fx_seed(g->who);
	if (g->own_data_dir) {
		snprintf(e->data_dir, sizeof(e->data_dir), "/tmp/bloxd-itest-data-XXXXXX");
		if (!mkdtemp(e->data_dir)) {
			free(e);
			return -1;
		}
		o.data_dir = e->data_dir;
	}
	if (fx_start_opts(&e->d, g->subsystems, &o)) {
		if (e->data_dir[0])
			fx_rm_tree(e->data_dir);
		free(e);
		return -1;
	}
	e->group = g;
	*state = e;
	if (g->setup && g->setup(e)) {
		fx_group_teardown(state);
		return -1;
	}
	return 0;
}

int fx_group_teardown(void **state)
{
	struct fx_env *e = *state;
	int rc = 0;

	if (!e)
		return 0;
	if (e->group && e->group->teardown)
		e->group->teardown(e);
	if (e->d.pid && fx_stop(&e->d)) {
		fprintf(stderr, "fixture: bloxd did not stop cleanly (%d)\n",
			e->d.exit_code);
		rc = -1;
	}
	if (e->data_dir[0])
		fx_rm_tree(e->data_dir);
	free(e);
	*state = NULL;
	return rc;
}

/* The group fx_main() runs its tests with. */
static const struct fx_group *main_group;

static int main_group_setup(void **state)
{
	return fx_group_setup(state, main_group);
}

int fx_main(const struct fx_group *g, const struct CMUnitTest *tests, size_t n)
{
	signal(SIGPIPE, SIG_IGN);
	main_group = g;
	/* FX_TEST_FILTER=test_x (cmocka's pattern): run only those tests. */
	if (getenv("FX_TEST_FILTER"))
		cmocka_set_test_filter(getenv("FX_TEST_FILTER"));
	return fx_finish(_cmocka_run_group_tests("tests", tests, n, g ? main_group_setup : NULL,
						 g ? fx_group_teardown : NULL));
}

void fx_test_daemon_stops_cleanly(void **state)
{
	struct fx_env *e = *state;

	assert_true(fx_alive(&e->d));
	assert_int_equal(fx_stop(&e->d), 0);
}

int fx_ctrl(const struct fx_daemon *d, const char *subnqn,
	    const char *hostnqn, uint32_t nr_io,
	    const struct ini_opts *qopts, struct ini_ctrl **out)
{
	struct ini_ctrl_args a;
	uint16_t st = 0;
	int rc;

	ini_ctrl_args_init(&a, FX_ADDR, d->nvm_port, subnqn);
	if (hostnqn)
		a.hostnqn = hostnqn;
	a.nr_io = nr_io;
	if (qopts)
		a.qopts = *qopts;
	rc = ini_ctrl_connect(&a, out, &st);
	if (rc)
		fprintf(stderr, "fixture: controller on %s: %s, status 0x%x\n",
			subnqn, strerror(-rc), st);
	return rc;
}

struct ini_ctrl *fx_ctrl_host(const struct fx_daemon *d, const char *subnqn,
			      const char *hostnqn, const uint8_t hostid[16])
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	uint16_t st = 0;

	ini_ctrl_args_init(&a, FX_ADDR, d->nvm_port, subnqn);
	a.hostnqn = hostnqn;
	memcpy(a.hostid, hostid, 16);
	if (ini_ctrl_connect(&a, &c, &st))
		fprintf(stderr, "fixture: controller on %s as %s: status 0x%x\n", subnqn, hostnqn,
			st);
	return c;
}

int fx_rw_check(struct ini_queue *q, uint32_t nsid, uint64_t slba,
		uint32_t block_size)
{
	uint64_t seed = 0x5eed ^ slba;
	uint8_t *w = malloc(block_size), *r = malloc(block_size);
	int rc = -ENOMEM;

	if (!w || !r)
		goto out;
	fx_fill_random(w, block_size, &seed);
	memset(r, 0, block_size);
	rc = ini_write(q, nsid, slba, 1, w, block_size, false);
	if (rc)
		goto out;
	rc = ini_read(q, nsid, slba, 1, r, block_size);
	if (rc)
		goto out;
	rc = memcmp(w, r, block_size) ? -EILSEQ : 0;
out:
	if (rc)
		fprintf(stderr, "fixture: rw check nsid %u lba %llu: %d\n",
			nsid, (unsigned long long)slba, rc);
	free(r);
	free(w);
	return rc;
}

int fx_check_daemon(struct fx_daemon *d, const char *subnqn,
		    uint64_t nblocks, uint64_t *seed)
{
	struct ini_ctrl *c;
	int rc;

	if (!fx_alive(d)) {
		fprintf(stderr, "fixture: bloxd is gone (exit %d)\n",
			d->exit_code);
		return -ECHILD;
	}
	rc = fx_ctrl(d, subnqn, NULL, 1, NULL, &c);
	if (rc)
		return rc;
	rc = fx_rw_check(c->io[0], 1, fx_rand(seed) % nblocks, 4096);
	if (rc == 0)
		rc = ini_ctrl_shutdown(c);
	ini_ctrl_destroy(c);
	return rc;
}

void fx_make_sqe(struct nvme_sqe *s, uint8_t opcode, uint16_t cid,
		 uint32_t nsid, uint64_t slba, uint32_t nlb, uint32_t len,
		 bool in_capsule)
{
	struct nvme_sgl_desc *g = (struct nvme_sgl_desc *)s->dptr;

	memset(s, 0, sizeof(*s));
	s->opcode = opcode;
	s->flags = 0x40; /* PSDT: SGL */
	s->cid = cid;
	s->nsid = nsid;
	s->cdw10 = (uint32_t)slba;
	s->cdw11 = (uint32_t)(slba >> 32);
	s->cdw12 = nlb - 1;
	g->length = len;
	g->type = in_capsule ? (NVME_SGL_DATA_BLOCK << 4) | NVME_SGL_SUB_OFFSET
			     : (NVME_SGL_TRANSPORT_DATA_BLOCK << 4) |
				       NVME_SGL_SUB_TRANSPORT;
}

uint64_t fx_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}

void fx_fill_random(void *buf, size_t len, uint64_t *state)
{
	uint8_t *b = buf;
	while (len >= 8) {
		uint64_t v = fx_rand(state);
		memcpy(b, &v, 8);
		b += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = fx_rand(state);
		memcpy(b, &v, len);
	}
}

uint64_t fx_seed(const char *who)
{
	const char *e = getenv("BLOX_TEST_SEED");
	uint64_t s;

	if (e && *e) {
		s = strtoull(e, NULL, 0);
	} else {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		s = (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
	}
	fprintf(stderr, "%s: BLOX_TEST_SEED=0x%llx\n", who,
		(unsigned long long)s);
	return s ? s : 1;
}

void fx_field_str(char *dst, size_t dlen, const void *src, size_t slen)
{
	size_t n = slen < dlen - 1 ? slen : dlen - 1;

	n = strnlen(src, n);
	memcpy(dst, src, n);
	dst[n] = '\0';
	while (n > 0 && (dst[n - 1] == ' ' || dst[n - 1] == '\0'))
		dst[--n] = '\0';
}
