/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of the limits on NVMe/TCP clients (bloxd --help):
 * a flood of idle connections over the per-host and total caps is
 * refused while a normal client from another address connects and does
 * I/O; connections that never send the ICReq, never Connect, or stop in
 * the middle of a PDU are closed after their (short, test-set) deadline
 * while an idle connected queue is not; and at the fd limit (a low
 * RLIMIT_NOFILE) a flood costs bloxd little CPU and few log lines, and
 * a normal client is served once the flood ends. What one host holds:
 * I/O queues, queue size and controllers per host refused as the spec
 * says, a small KATO raised, a KATO-0 controller without I/O queues
 * closed; memory bounded by the buffer pool (one controller, 4 queues of
 * 1024 entries, 128 KiB and 1 MiB reads: RSS measured before and after),
 * a connection that does not read its data held to its own cap while
 * another's I/O goes on, R2Ts per connection capped, admin requests in
 * flight capped, and a configured MDTS (Identify, a transfer of exactly
 * MDTS, one above refused). Each starts its own bloxd; timings are
 * checked only against generous bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/un.h>
#include <unistd.h>

#include "fixture.h"

#define NQN "nqn.2026-12.io.blox:limits"
#define NBLOCKS 4096 /* 16 MiB of 4 KiB blocks */

static const char subsystems[] =
	"[ { \"nqn\": \"" NQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\","
	"                       \"block_size\": 4096} ] } ]";

/* ---- helpers ---- */

/* Open @n TCP connections from @src to FX_ADDR:@port (not waiting for them). */
static void flood(const char *src, uint16_t port, int *fds, int n)
{
	struct sockaddr_in from = { .sin_family = AF_INET }, to = { .sin_family = AF_INET };

	inet_pton(AF_INET, src, &from.sin_addr);
	inet_pton(AF_INET, FX_ADDR, &to.sin_addr);
	to.sin_port = htons(port);
	for (int i = 0; i < n; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		assert_true(fds[i] >= 0);
		assert_int_equal(bind(fds[i], (struct sockaddr *)&from, sizeof(from)), 0);
		if (connect(fds[i], (struct sockaddr *)&to, sizeof(to)))
			assert_int_equal(errno, EINPROGRESS);
	}
}

static void close_all(int *fds, int n)
{
	for (int i = 0; i < n; i++)
		close(fds[i]);
}

/* Connections of @fds the target has not closed (nothing to read, no EOF). */
static int count_open(const int *fds, int n)
{
	int open = 0;
	char b;

	for (int i = 0; i < n; i++) {
		ssize_t r = recv(fds[i], &b, 1, MSG_PEEK | MSG_DONTWAIT);

		open += r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
	}
	return open;
}

/* The @idx-th number (0-based) on the line of `bloxctl status` starting with @label. */
static uint64_t status_num(const struct fx_daemon *d, const char *label, int idx)
{
	char out[4096], *p;

	assert_int_equal(fx_ctl(d, out, sizeof(out), "status"), 0);
	p = strstr(out, label);
	assert_non_null(p);
	for (p += strlen(label);; p++) {
		assert_true(*p && *p != '\n');
		if (*p >= '0' && *p <= '9') {
			char *end;
			uint64_t v = strtoull(p, &end, 10);

			if (idx-- == 0)
				return v;
			p = end;
		}
	}
}

/* Wait (up to 10 s) until status_num(@label, @idx) is @want. */
static void wait_status(const struct fx_daemon *d, const char *label, int idx, uint64_t want)
{
	int64_t end = fx_now_ms() + 10000;
	uint64_t v;

	while ((v = status_num(d, label, idx)) != want && fx_now_ms() < end)
		fx_sleep_ms(50);
	if (v != want)
		fprintf(stderr, "status '%s' #%d: %lu, expected %lu\n", label, idx,
			(unsigned long)v, (unsigned long)want);
	assert_int_equal(v, want);
}

static void start(struct fx_daemon *d, const char *const *args, const char *log,
		  unsigned nofile)
{
	struct fx_start_opts o = { .extra_args = args, .log_path = log, .nofile = nofile };

	assert_int_equal(fx_start_opts(d, subsystems, &o), 0);
}

/* ---- caps ---- */

static void test_connection_caps(void **state)
{
	const char *args[] = { "--max-connections", "48", "--max-connections-per-host", "32",
			       NULL };
	struct fx_daemon d;
	uint64_t seed = 14;
	int a[100], b[20];
	struct ini_ctrl *c;

	(void)state;
	start(&d, args, NULL, 0);
	/* 100 idle connections from one address: 32 stay, 68 are closed at once. */
	flood("127.0.0.2", d.nvm_port, a, 100);
	wait_status(&d, "refused", 1, 68);
	assert_int_equal(count_open(a, 100), 32);
	/* A host from another address is served meanwhile. */
	assert_int_equal(fx_check_daemon(&d, NQN, NBLOCKS, &seed), 0);
	wait_status(&d, "NVMe/TCP queues", 0, 32);

	/* 20 more from a third address: the total cap (48) lets 16 in. */
	flood("127.0.0.3", d.nvm_port, b, 20);
	wait_status(&d, "refused", 0, 4);
	assert_int_equal(count_open(b, 20), 16);
	/* Full: a normal host is refused too... */
	assert_int_not_equal(fx_ctrl(&d, NQN, NULL, 1, NULL, &c), 0);
	/* ...until connections go. */
	close_all(b, 20);
	wait_status(&d, "NVMe/TCP queues", 0, 32);
	assert_int_equal(fx_check_daemon(&d, NQN, NBLOCKS, &seed), 0);
	close_all(a, 100);
	wait_status(&d, "NVMe/TCP queues", 0, 0);
	assert_int_equal(fx_stop(&d), 0);
}

/* ---- deadlines ---- */

/* @q is closed by the target within 10 s, and not before 400 ms. */
static void expect_closed_late(struct ini_queue *q, int64_t since_ms)
{
	assert_int_equal(ini_wait_closed(q, 10000), 0);
	assert_true(fx_now_ms() - since_ms >= 400);
}

static void test_deadlines(void **state)
{
	const char *args[] = { "--icreq-timeout-ms", "500", "--connect-timeout-ms", "500",
			       "--pdu-timeout-ms", "500", NULL };
	struct fx_daemon d;
	struct ini_queue *q;
	struct ini_ctrl *c;
	struct nvme_tcp_cmd pdu;
	uint64_t seed = 41;
	int64_t t0;

	(void)state;
	start(&d, args, NULL, 0);

	/* No ICReq. */
	t0 = fx_now_ms();
	assert_int_equal(ini_queue_open(FX_ADDR, d.nvm_port, NULL, &q), 0);
	expect_closed_late(q, t0);
	ini_queue_destroy(q);
	wait_status(&d, "timeouts", 0, 1);

	/* ICReq, no Connect. */
	t0 = fx_now_ms();
	assert_int_equal(ini_queue_connect(FX_ADDR, d.nvm_port, NULL, &q), 0);
	expect_closed_late(q, t0);
	ini_queue_destroy(q);
	wait_status(&d, "timeouts", 1, 1);

	/* A connected queue idle between PDUs for 3 deadlines is not closed. */
	assert_int_equal(fx_ctrl(&d, NQN, NULL, 1, NULL, &c), 0);
	assert_int_equal(fx_rw_check(c->io[0], 1, 7, 4096), 0);
	fx_sleep_ms(1500);
	assert_int_equal(fx_rw_check(c->io[0], 1, 8, 4096), 0);

	/* Half a command capsule, then nothing: closed. */
	memset(&pdu, 0, sizeof(pdu));
	nvme_tcp_hdr_init(&pdu.hdr, NVME_TCP_CMD, 0, sizeof(pdu), 0, sizeof(pdu));
	fx_make_sqe(&pdu.sqe, nvme_cmd_read, 1, 1, 0, 0, 4096, false);
	t0 = fx_now_ms();
	assert_int_equal(ini_raw_send(c->io[0], &pdu, sizeof(pdu) / 2), 0);
	expect_closed_late(c->io[0], t0);
	wait_status(&d, "timeouts", 2, 1);
	ini_ctrl_destroy(c);

	/* None of this touched other hosts. */
	assert_int_equal(fx_check_daemon(&d, NQN, NBLOCKS, &seed), 0);
	assert_int_equal(status_num(&d, "timeouts", 0), 1);
	assert_int_equal(status_num(&d, "timeouts", 1), 1);
	assert_int_equal(status_num(&d, "timeouts", 2), 1);
	assert_int_equal(fx_stop(&d), 0);
}

/* ---- fd exhaustion ---- */

/* bloxd's CPU time so far (utime + stime), in clock ticks. */
static uint64_t cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')'); /* the name may hold spaces */
	assert_non_null(p);
	/* After ")": state(3) ... utime is field 14, stime 15. */
	assert_int_equal(sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
				&ut, &st),
			 2);
	return (uint64_t)ut + st;
}

static int count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, ch;

	assert_non_null(f);
	while ((ch = fgetc(f)) != EOF)
		n += ch == '\n';
	fclose(f);
	return n;
}

#define FLOOD 300
#define FLOOD_MS 4000

static void test_fd_exhaustion(void **state)
{
	const char *args[] = { "--icreq-timeout-ms", "60000", NULL };
	char log[64];
	struct fx_daemon d;
	struct rlimit rl;
	uint64_t seed = 64, cpu0, cpu1;
	int64_t t0, wall, end;
	int fds[FLOOD], adm[8], lines, rc, fd;

	(void)state;
	/* This program holds the flood: its own limit up to the hard one. */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_cur < FLOOD + 64 && rl.rlim_max >= FLOOD + 64) {
		rl.rlim_cur = FLOOD + 64;
		assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	if (rl.rlim_cur < FLOOD + 64)
		skip();
	snprintf(log, sizeof(log), "/tmp/bloxd-limits-%d.log", (int)getpid());
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	close(fd);
	start(&d, args, log, 64);

	cpu0 = cpu_ticks(d.pid);
	t0 = fx_now_ms();
	flood("127.0.0.2", d.nvm_port, fds, FLOOD);
	/* The admin API's socket too: its accept() fails alike. */
	for (size_t i = 0; i < sizeof(adm) / sizeof(adm[0]); i++) {
		struct sockaddr_un un = { .sun_family = AF_UNIX };

		snprintf(un.sun_path, sizeof(un.sun_path), "%s", d.admin_sock);
		adm[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		assert_true(adm[i] >= 0);
		assert_int_equal(connect(adm[i], (struct sockaddr *)&un, sizeof(un)), 0);
	}
	fx_sleep_ms(FLOOD_MS);
	cpu1 = cpu_ticks(d.pid);
	wall = fx_now_ms() - t0;
	lines = count_lines(log);
	fprintf(stderr, "fd exhaustion: bloxd used %lu ms of CPU in %ld ms, %d log lines\n",
		(unsigned long)((cpu1 - cpu0) * 1000 / (uint64_t)sysconf(_SC_CLK_TCK)),
		(long)wall, lines);
	/* Spinning on accept() was ~90% of a core; backing off is near 0. */
	assert_true((cpu1 - cpu0) * 1000 / (uint64_t)sysconf(_SC_CLK_TCK) < (uint64_t)wall / 2);
	assert_true(lines < 100);
	close_all(fds, FLOOD);
	close_all(adm, (int)(sizeof(adm) / sizeof(adm[0])));

	/* Once the flood is gone a host is served (the back-off is at most 1 s). */
	end = fx_now_ms() + 15000;
	while ((rc = fx_check_daemon(&d, NQN, NBLOCKS, &seed)) && fx_now_ms() < end)
		fx_sleep_ms(200);
	assert_int_equal(rc, 0);
	assert_true(status_num(&d, "accept errors", 0) > 0);
	assert_true(status_num(&d, "accept errors", 1) > 0);
	assert_true(status_num(&d, "admin accept errs", 0) > 0);
	assert_int_equal(fx_stop(&d), 0);
	unlink(log);
}

/* ---- what one host holds ---- */

#define SC_CONNECT_INVALID INI_SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_PARAM)
#define SC_CTRL_BUSY INI_SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_CTRL_BUSY)

/* A controller with @nr_io queues of @sqsize (0's based) and @kato_ms: 0 or -errno, status in *@st. */
static int ctrl_with(const struct fx_daemon *d, const char *host, uint32_t nr_io,
		     uint16_t sqsize, uint32_t kato_ms, struct ini_ctrl **c, uint16_t *st)
{
	struct ini_ctrl_args a;

	ini_ctrl_args_init(&a, FX_ADDR, d->nvm_port, NQN);
	if (host)
		a.hostnqn = host;
	a.nr_io = nr_io;
	a.io_sqsize = sqsize;
	a.kato_ms = kato_ms;
	*st = 0;
	return ini_ctrl_connect(&a, c, st);
}

static void test_host_limits(void **state)
{
	const char *args[] = { "--max-io-queues", "2", "--max-ctrls-per-host", "2",
			       "--max-queue-size", "64", "--min-kato-ms", "5000",
			       "--kato0-timeout-ms", "1000", NULL };
	const char *other = "nqn.2014-08.org.nvmexpress:uuid:00000000-0000-0000-0000-0000000000b2";
	struct fx_daemon d;
	struct ini_ctrl *c1, *c2, *c3;
	uint32_t v = 0;
	uint16_t st;
	int64_t t0;

	(void)state;
	start(&d, args, NULL, 0);
	/* Three I/O queues asked: two granted, so the host's bring-up fails. */
	assert_int_not_equal(ctrl_with(&d, NULL, 3, 31, 0, &c1, &st), 0);
	wait_status(&d, "I/O queues", 0, 1);
	/* 65 entries: over --max-queue-size. */
	assert_int_not_equal(ctrl_with(&d, NULL, 1, 64, 0, &c1, &st), 0);
	assert_int_equal(INI_SC_CODE(st), SC_CONNECT_INVALID);
	wait_status(&d, "I/O queues", 2, 1);
	/* CAP.MQES says so; a KATO of 1 s is raised to the minimum. */
	assert_int_equal(ctrl_with(&d, NULL, 2, 63, 1000, &c1, &st), 0);
	assert_int_equal(c1->cap & 0xffff, 63);
	assert_int_equal(ini_get_features(c1->admin, NVME_FEAT_FID_KATO, 0, &v), 0);
	assert_int_equal(v, 5000);
	wait_status(&d, "keep-alive", 0, 1);
	/* A queue beyond the grant, on a raw queue: Connect Invalid Parameters. */
	{
		struct ini_connect_args ca;
		struct nvme_cqe cqe;
		struct ini_queue *q;

		assert_int_equal(ini_queue_connect(FX_ADDR, d.nvm_port, NULL, &q), 0);
		memset(&ca, 0, sizeof(ca));
		ca.qid = 3;
		ca.sqsize = 31;
		ca.cntlid = c1->cntlid;
		ca.subnqn = NQN;
		ca.hostnqn = c1->args.hostnqn;
		memcpy(ca.hostid, c1->args.hostid, 16);
		memset(&cqe, 0, sizeof(cqe));
		ini_connect(q, &ca, &cqe);
		assert_int_equal(INI_SC_CODE(ini_status(&cqe)), SC_CONNECT_INVALID);
		ini_queue_destroy(q);
		wait_status(&d, "I/O queues", 1, 1);
	}

	/* A second controller of the host, KATO 0, no I/O queue: closed after 1 s idle. */
	t0 = fx_now_ms();
	assert_int_equal(ctrl_with(&d, NULL, 0, 31, 0, &c2, &st), 0);
	/* A third of the same host: Controller Busy; another host is served. */
	assert_int_not_equal(ctrl_with(&d, NULL, 1, 31, 0, &c3, &st), 0);
	assert_int_equal(INI_SC_CODE(st), SC_CTRL_BUSY);
	wait_status(&d, "host controllers", 0, 1);
	assert_int_equal(ctrl_with(&d, other, 1, 31, 0, &c3, &st), 0);
	assert_int_equal(fx_rw_check(c3->io[0], 1, 3, 4096), 0);
	assert_int_equal(ini_wait_closed(c2->admin, 10000), 0);
	assert_true(fx_now_ms() - t0 >= 800);
	wait_status(&d, "keep-alive", 1, 1);
	ini_ctrl_destroy(c2);
	/* A KATO-0 controller with an I/O queue stays. */
	fx_sleep_ms(2000);
	assert_int_equal(fx_rw_check(c3->io[0], 1, 4, 4096), 0);
	assert_int_equal(fx_rw_check(c1->io[1], 1, 5, 4096), 0);
	ini_ctrl_destroy(c3);
	ini_ctrl_destroy(c1);
	assert_int_equal(fx_stop(&d), 0);
}

/* ---- buffer memory ---- */

/* A number (kB) of /proc/@pid/status's line @key (VmRSS, VmHWM). */
static uint64_t proc_kb(pid_t pid, const char *key)
{
	char path[64], line[256];
	uint64_t v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)) && line[strlen(key)] == ':')
			v = strtoull(line + strlen(key) + 1, NULL, 10);
	fclose(f);
	return v;
}

/* On each of @c's queues, @n reads of @len bytes at once (into one sink); all succeed. */
static void read_storm(struct ini_ctrl *c, int n, uint32_t len, uint8_t *sink)
{
	struct ini_req *r = calloc((size_t)n * c->nr_io, sizeof(*r));
	uint32_t nlb = len / 4096;

	assert_non_null(r);
	for (uint32_t q = 0; q < c->nr_io; q++)
		for (int i = 0; i < n; i++) {
			struct ini_req *x = &r[q * (uint32_t)n + (uint32_t)i];

			ini_req_rw(x, nvme_cmd_read, 1, (uint64_t)(i * 7 % (NBLOCKS / nlb)) * nlb,
				   nlb, sink, len);
			assert_int_equal(ini_submit(c->io[q], x), 0);
		}
	for (uint32_t q = 0; q < c->nr_io; q++)
		for (int i = 0; i < n; i++) {
			struct ini_req *x = &r[q * (uint32_t)n + (uint32_t)i];

			assert_int_equal(ini_wait(c->io[q], x), 0);
			assert_int_equal(ini_status(&x->cqe), 0);
			assert_int_equal(x->c2h_bytes, len);
		}
	free(r);
}

static void test_memory_bounded(void **state)
{
	const char *args[] = { "--buffer-pool-mb", "64", NULL };
	struct fx_daemon d;
	struct ini_ctrl *c;
	uint8_t *sink = malloc(1 << 20);
	uint64_t rss0, rss_idle, hwm;
	uint16_t st;

	(void)state;
	assert_non_null(sink);
	start(&d, args, NULL, 0);
	rss0 = proc_kb(d.pid, "VmRSS");
	/* One controller, 4 queues of 1024 entries: idle, they cost little. */
	assert_int_equal(ctrl_with(&d, NULL, 4, 1023, 0, &c, &st), 0);
	rss_idle = proc_kb(d.pid, "VmRSS");
	/* 1000 reads of 128 KiB on each queue (500 MiB asked), then 100 of 1 MiB. */
	read_storm(c, 1000, 128 << 10, sink);
	read_storm(c, 100, 1 << 20, sink);
	hwm = proc_kb(d.pid, "VmHWM");
	fprintf(stderr, "RSS: %lu kB at start, %lu with 4 idle queues of 1024, peak %lu "
		"(+%lu kB) after 128 KiB and 1 MiB reads at depth 1000/100 x 4; pool peak %lu KiB\n",
		(unsigned long)rss0, (unsigned long)rss_idle, (unsigned long)hwm,
		(unsigned long)(hwm - rss0), (unsigned long)status_num(&d, "buffers", 2));
	assert_true(rss_idle - rss0 < 16 * 1024);
	/* The pool's 64 MiB, and room for the rest (allocator, sanitizer). */
	assert_true(hwm - rss0 < (64 + 48) * 1024);
	assert_true(status_num(&d, "buffers", 2) <= 64 * 1024);
	assert_true(status_num(&d, "waits", 0) + status_num(&d, "waits", 1) > 0);
	ini_ctrl_destroy(c);
	free(sink);
	assert_int_equal(fx_stop(&d), 0);
}

static void test_slow_reader(void **state)
{
	const char *args[] = { "--buffer-pool-mb", "64", "--max-conn-buffer-kb", "4096", NULL };
	struct fx_daemon d;
	struct ini_ctrl *slow;
	struct ini_req r[64];
	uint8_t *sink = malloc(1 << 20);
	uint64_t seed = 15;
	uint16_t st;

	(void)state;
	assert_non_null(sink);
	start(&d, args, NULL, 0);
	assert_int_equal(ctrl_with(&d, NULL, 1, 127, 0, &slow, &st), 0);
	/* 64 MiB of reads asked and nothing read back. */
	for (int i = 0; i < 64; i++) {
		ini_req_rw(&r[i], nvme_cmd_read, 1, (uint64_t)(i % 16) * 256, 256, sink, 1 << 20);
		assert_int_equal(ini_submit(slow->io[0], &r[i]), 0);
	}
	fx_sleep_ms(500);
	/* It holds its cap at most; another host's I/O goes on meanwhile. */
	assert_true(status_num(&d, "buffers", 0) <= 4096);
	assert_true(status_num(&d, "waits", 1) > 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(fx_check_daemon(&d, NQN, NBLOCKS, &seed), 0);
	assert_true(status_num(&d, "buffers", 2) <= 4096 + 1024 * 2);
	/* Reading at last: everything comes. */
	for (int i = 0; i < 64; i++) {
		assert_int_equal(ini_wait(slow->io[0], &r[i]), 0);
		assert_int_equal(ini_status(&r[i].cqe), 0);
	}
	ini_ctrl_destroy(slow);
	free(sink);
	assert_int_equal(fx_stop(&d), 0);
}

static void test_r2t_cap(void **state)
{
	const char *args[] = { "--max-r2t", "2", NULL };
	struct fx_daemon d;
	struct ini_ctrl *c;
	struct ini_req r[16];
	uint8_t *buf = malloc(16 * 65536), *back = malloc(65536);
	uint16_t st;

	(void)state;
	assert_non_null(buf);
	assert_non_null(back);
	for (size_t i = 0; i < 16 * 65536; i++)
		buf[i] = (uint8_t)(i * 13 + i / 65536);
	start(&d, args, NULL, 0);
	assert_int_equal(ctrl_with(&d, NULL, 1, 127, 0, &c, &st), 0);
	for (int i = 0; i < 16; i++) {
		ini_req_rw(&r[i], nvme_cmd_write, 1, (uint64_t)i * 16, 16, buf + i * 65536, 65536);
		r[i].flags = INI_REQ_NO_INLINE;
		assert_int_equal(ini_submit(c->io[0], &r[i]), 0);
	}
	for (int i = 0; i < 16; i++) {
		assert_int_equal(ini_wait(c->io[0], &r[i]), 0);
		assert_int_equal(ini_status(&r[i].cqe), 0);
	}
	for (int i = 0; i < 16; i++) {
		assert_int_equal(ini_read(c->io[0], 1, (uint64_t)i * 16, 16, back, 65536), 0);
		assert_memory_equal(back, buf + i * 65536, 65536);
	}
	assert_true(status_num(&d, "waits", 2) > 0);
	ini_ctrl_destroy(c);
	free(buf);
	free(back);
	assert_int_equal(fx_stop(&d), 0);
}

static void test_mdts(void **state)
{
	const char *args[] = { "--mdts-kb", "4096", NULL };
	struct fx_daemon d;
	struct ini_ctrl *c;
	struct ini_req r;
	uint8_t *buf = malloc((4 << 20) + 4096), *back = malloc(4 << 20);
	uint16_t st;

	(void)state;
	assert_non_null(buf);
	assert_non_null(back);
	for (size_t i = 0; i < (4u << 20) + 4096; i++)
		buf[i] = (uint8_t)(i * 7 + i / 4096);
	start(&d, args, NULL, 0);
	assert_int_equal(ctrl_with(&d, NULL, 1, 127, 0, &c, &st), 0);
	assert_int_equal(c->id.mdts, 10); /* 2^10 x 4 KiB */
	/* Exactly MDTS: written and read back. */
	assert_int_equal(ini_write(c->io[0], 1, 0, 1024, buf, 4 << 20, false), 0);
	assert_int_equal(ini_read(c->io[0], 1, 0, 1024, back, 4 << 20), 0);
	assert_memory_equal(back, buf, 4 << 20);
	/* One block more: Invalid Field. */
	ini_req_rw(&r, nvme_cmd_write, 1, 0, 1025, buf, (4 << 20) + 4096);
	r.flags = INI_REQ_NO_INLINE;
	assert_int_equal(ini_exec(c->io[0], &r), 0);
	assert_int_equal(INI_SC_CODE(ini_status(&r.cqe)), NVME_SC_INVALID_FIELD);
	ini_req_rw(&r, nvme_cmd_read, 1, 0, 1025, buf, (4 << 20) + 4096);
	assert_int_equal(ini_exec(c->io[0], &r), 0);
	assert_int_equal(INI_SC_CODE(ini_status(&r.cqe)), NVME_SC_INVALID_FIELD);
	ini_ctrl_destroy(c);
	free(buf);
	free(back);
	assert_int_equal(fx_stop(&d), 0);
}

/*
 * Writes through R2Ts fill the connection's cap, then in-capsule writes
 * come behind them: their data may not wait for buffers that only the
 * H2CData behind them frees (the queue's reserve takes them).
 */
static void test_inline_progress(void **state)
{
	const char *args[] = { "--max-conn-buffer-kb", "256", NULL };
	struct fx_daemon d;
	struct ini_ctrl *c;
	struct ini_req r[40];
	uint8_t *buf = malloc(40 * 65536), *back = malloc(65536);
	uint16_t st;

	(void)state;
	assert_non_null(buf);
	assert_non_null(back);
	for (size_t i = 0; i < 40 * 65536; i++)
		buf[i] = (uint8_t)(i * 31 + i / 65536);
	start(&d, args, NULL, 0);
	assert_int_equal(ctrl_with(&d, NULL, 1, 127, 0, &c, &st), 0);
	for (int i = 0; i < 40; i++) {
		bool small = i % 5 == 4;

		ini_req_rw(&r[i], nvme_cmd_write, 1, (uint64_t)i * 16, small ? 1 : 16,
			   buf + i * 65536, small ? 4096 : 65536);
		r[i].flags = small ? INI_REQ_INLINE : INI_REQ_NO_INLINE;
		assert_int_equal(ini_submit(c->io[0], &r[i]), 0);
	}
	for (int i = 0; i < 40; i++) {
		assert_int_equal(ini_wait(c->io[0], &r[i]), 0);
		assert_int_equal(ini_status(&r[i].cqe), 0);
	}
	for (int i = 0; i < 40; i++) {
		uint32_t len = i % 5 == 4 ? 4096 : 65536;

		assert_int_equal(ini_read(c->io[0], 1, (uint64_t)i * 16, len / 4096, back, len), 0);
		assert_memory_equal(back, buf + i * 65536, len);
	}
	assert_true(status_num(&d, "waits", 1) > 0);
	ini_ctrl_destroy(c);
	free(buf);
	free(back);
	assert_int_equal(fx_stop(&d), 0);
}

/* ---- admin requests in flight ---- */

/* `bloxctl stats --watch` in the background: a stream that stays in flight. */
static pid_t watcher(const struct fx_daemon *d)
{
	const char *ctl = getenv("BLOXCTL");
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		dup2(null, 2);
		execl(ctl && *ctl ? ctl : "bloxctl", "bloxctl", "-s", d->admin_sock, "stats",
		      "--watch", "--interval", "200", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void test_admin_inflight(void **state)
{
	const char *args[] = { "--max-admin-inflight", "2", NULL };
	struct fx_daemon d;
	char out[4096];
	pid_t w[2];
	int64_t end;

	(void)state;
	start(&d, args, NULL, 0);
	w[0] = watcher(&d);
	w[1] = watcher(&d);
	/* Both streams in flight: one more request is refused, clearly. */
	end = fx_now_ms() + 10000;
	while (fx_ctl(&d, out, sizeof(out), "status") == 0 && fx_now_ms() < end)
		fx_sleep_ms(100);
	assert_non_null(strstr(out, "--max-admin-inflight"));
	for (int i = 0; i < 2; i++) {
		kill(w[i], SIGINT);
		assert_true(fx_wait_child(w[i], 10000) >= 0);
	}
	/* The streams ended: served again, the refusals counted. */
	end = fx_now_ms() + 10000;
	while (fx_ctl(&d, out, sizeof(out), "status") != 0 && fx_now_ms() < end)
		fx_sleep_ms(100);
	assert_true(status_num(&d, "admin refused", 0) >= 1);
	assert_int_equal(fx_stop(&d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connection_caps),
		cmocka_unit_test(test_deadlines),
		cmocka_unit_test(test_fd_exhaustion),
		cmocka_unit_test(test_host_limits),
		cmocka_unit_test(test_memory_bounded),
		cmocka_unit_test(test_slow_reader),
		cmocka_unit_test(test_r2t_cap),
		cmocka_unit_test(test_mdts),
		cmocka_unit_test(test_inline_progress),
		cmocka_unit_test(test_admin_inflight),
	};

	return FX_MAIN(NULL, tests);
}
