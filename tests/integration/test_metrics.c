/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration test of bloxd's metrics endpoint (--metrics): a real bloxd
 * with a ram namespace, a nand namespace on a device of its own and one
 * on a registered device, scraped over a plain socket in both formats and
 * parsed strictly (metrics_parse.c); the counters move by exactly the I/O
 * the initiator did; 404, 405, HEAD; idle, slow and oversized clients do
 * not stall the loop and the endpoint serves again once they time out; a
 * bad --metrics exits 2.
 *
 * With --external it instead checks the texts with the tools of the
 * Prometheus project where Debian has them: promtool check metrics (the
 * Prometheus format) and python3-prometheus-client's OpenMetrics parser.
 * Without either it exits 77 (ctest: skipped).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <json-c/json.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "metrics_parse.h"
#include "rw.h"

#define SUBNQN "nqn.2026-12.io.blox:metrics"
#define NS_BLOCKS (16u << 20 >> 12)
#define MAX_CONNS 16 /* daemon/telemetry/metrics.c MX_MAX_CONNS */
#define OM_ACCEPT "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
#define OM_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define PROM_TYPE "text/plain; version=0.0.4; charset=utf-8"

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"},"
	"  {\"nsid\": 2, \"backend\": \"nand\", \"size\": \"16M\", \"nand\": {"
	"   \"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 96}}"
	"] } ]";

struct env {
	struct fx_env fx;
	uint16_t port; /* metrics */
	char out[4096];
};

struct http {
	int status;
	char ctype[128];
	char allow[64];
	char *body; /* malloc'd, NUL-terminated */
	size_t len;
};

static int env_setup(void *arg)
{
	struct env *e = arg;
	const char *spec = e->fx.group->extra_args[1];

	e->port = (uint16_t)atoi(strrchr(spec, ':') + 1);
	/* Namespace 3 on two whole dies of a registered device. */
	if (fx_ctl(&e->fx.d, e->out, sizeof(e->out),
		   "device create ssd --channels 2 --dies-per-channel 2 --planes 1 "
		   "--pages-per-block 96 --blocks-per-plane 64") ||
	    fx_ctl(&e->fx.d, e->out, sizeof(e->out),
		   "ns create %s --nsid 3 --size 16M --device ssd --isolation chip:2", SUBNQN)) {
		fprintf(stderr, "setup: %s\n", e->out);
		return -1;
	}
	return 0;
}

static int connect_to(uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };
	struct timeval tv = { 20, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	inet_pton(AF_INET, FX_ADDR, &sa.sin_addr);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void header(const char *head, const char *name, char *out, size_t len)
{
	size_t n = strlen(name);

	out[0] = '\0';
	for (const char *l = strstr(head, "\r\n"); l; l = strstr(l + 2, "\r\n")) {
		if (!strncasecmp(l + 2, name, n) && l[2 + n] == ':') {
			const char *v = l + 3 + n, *end = strstr(v, "\r\n");

			while (*v == ' ')
				v++;
			snprintf(out, len, "%.*s", (int)(end ? end - v : (long)strlen(v)), v);
			return;
		}
	}
}

/* Send @req raw and read the answer until the server closes. 0 or -1. */
static int http_raw(uint16_t port, const char *req, size_t reqlen, struct http *h)
{
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap), *body;
	int fd = connect_to(port);
	ssize_t n;

	memset(h, 0, sizeof(*h));
	if (fd < 0 || !buf || send(fd, req, reqlen, MSG_NOSIGNAL) != (ssize_t)reqlen) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((n = recv(fd, buf + len, cap - len - 1, 0)) > 0) {
		len += (size_t)n;
		if (cap - len < 2) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb)
				break;
			buf = nb;
		}
	}
	close(fd);
	buf[len] = '\0';
	body = strstr(buf, "\r\n\r\n");
	if (!body || sscanf(buf, "HTTP/1.%*d %d", &h->status) != 1) {
		free(buf);
		return -1;
	}
	*body = '\0';
	header(buf, "Content-Type", h->ctype, sizeof(h->ctype));
	header(buf, "Allow", h->allow, sizeof(h->allow));
	h->len = len - (size_t)(body + 4 - buf);
	h->body = strdup(body + 4);
	free(buf);
	return h->body ? 0 : -1;
}

static int http_req(uint16_t port, const char *method, const char *path, const char *accept,
		    struct http *h)
{
	char req[512];
	int n = snprintf(req, sizeof(req), "%s %s HTTP/1.1\r\nHost: localhost\r\n%s%s%s\r\n",
			 method, path, accept ? "Accept: " : "", accept ? accept : "",
			 accept ? "\r\n" : "");

	return http_raw(port, req, (size_t)n, h);
}

/* Scrape and parse strictly; fails the test on any error. */
static void scrape(struct env *e, bool om, struct mp_doc *d)
{
	struct http h;

	assert_int_equal(http_req(e->port, "GET", "/metrics", om ? OM_ACCEPT : NULL, &h), 0);
	assert_int_equal(h.status, 200);
	assert_string_equal(h.ctype, om ? OM_TYPE : PROM_TYPE);
	memset(d, 0, sizeof(*d));
	if (mp_parse(h.body, om, d)) {
		fprintf(stderr, "%s format: %s\n", om ? "OpenMetrics" : "Prometheus", d->err);
		fail();
	}
	free(h.body);
}

static double val(const struct mp_doc *d, const char *name, const char *labels)
{
	bool found;
	double v = mp_value(d, name, labels, &found);

	if (!found)
		fprintf(stderr, "no sample %s{%s}\n", name, labels ? labels : "");
	assert_true(found);
	return v;
}

#define NS(n) "subnqn=\"" SUBNQN "\",nsid=\"" #n "\""

static void test_formats(void **state)
{
	struct env *e = *state;

	for (int om = 0; om < 2; om++) {
		struct mp_doc d;

		scrape(e, om, &d);
		assert_int_equal(val(&d, "bloxd_build_info", "version=\"" BLOX_VERSION "\""), 1);
		assert_true(val(&d, "bloxd_uptime_seconds", NULL) > 0);
		assert_int_equal(val(&d, "bloxd_namespaces", NULL), 3);
		/* Each namespace, with its backend and device. */
		val(&d, "bloxd_namespace_read_commands_total", NS(1) ",backend=\"ram\"");
		val(&d, "bloxd_namespace_read_commands_total", NS(2) ",backend=\"nand\"");
		val(&d, "bloxd_namespace_read_commands_total",
		    NS(3) ",backend=\"nand\",device=\"ssd\"");
		assert_int_equal(val(&d, "bloxd_namespace_size_bytes", NS(1)), 16 << 20);
		assert_int_equal(mp_count(&d, "bloxd_namespace_read_latency_seconds_count"), 3);
		assert_string_equal(mp_family(&d, "bloxd_namespace_read_latency_seconds")->type,
				    "histogram");
		/* FTL of the nand namespaces only. */
		assert_int_equal(mp_count(&d, "bloxd_ftl_cmt_hits_total"), 2);
		val(&d, "bloxd_ftl_write_amplification", NS(3));
		/* Flash that fails: nothing failed, the reliability model is off. */
		assert_int_equal(mp_count(&d, "bloxd_ftl_uncorrectable_reads_total"), 2);
		assert_int_equal(val(&d, "bloxd_ftl_uncorrectable_reads_total", NS(2)), 0);
		assert_int_equal(val(&d, "bloxd_ftl_read_only", NS(3)), 0);
		assert_int_equal(val(&d, "bloxd_ftl_retired_superblocks", NS(3)), 0);
		assert_int_equal(val(&d, "bloxd_ftl_program_failures_total", NS(3)), 0);
		assert_int_equal(val(&d, "bloxd_ftl_offline_units_lost_total", NS(3)), 0);
		assert_int_equal(val(&d, "bloxd_ftl_remapped_blocks", NS(3)), 0);
		assert_int_equal(val(&d, "bloxd_ftl_factory_bad_blocks", NS(3)), 0);
		assert_int_equal(val(&d, "bloxd_nand_grown_bad_blocks_total", "device=\"ssd\""), 0);
		assert_int_equal(val(&d, "bloxd_nand_read_retries_total", NS(2) ",count=\"steps\""), 0);
		/* NAND: the own device by the namespace, the registered one by name. */
		val(&d, "bloxd_nand_ops_total", NS(2) ",op=\"read\"");
		val(&d, "bloxd_nand_ops_total", "device=\"ssd\",op=\"program\"");
		val(&d, "bloxd_nand_die_busy_seconds_total", "device=\"ssd\",die=\"3\",channel=\"1\"");
		val(&d, "bloxd_nand_die_busy_seconds_total", NS(2) ",die=\"0\",channel=\"0\"");
		val(&d, "bloxd_device_wear_imbalance", "device=\"ssd\"");
		val(&d, "bloxd_device_channel_wear", "device=\"ssd\",channel=\"1\"");
		if (om) {
			assert_string_equal(mp_family(&d, "bloxd_namespace_read_bytes")->unit, "bytes");
			assert_string_equal(mp_family(&d, "bloxd_build")->type, "info");
		} else {
			assert_non_null(mp_family(&d, "bloxd_namespace_read_bytes_total"));
		}
		mp_free(&d);
	}
}

/* @name{@labels} after minus before. */
static double grew(const struct mp_doc *a, const struct mp_doc *b, const char *name,
		   const char *labels)
{
	return val(b, name, labels) - val(a, name, labels);
}

static void test_counters_follow_io(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	struct mp_doc a, b, cd;
	char lbl[160];

	scrape(e, false, &a);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c), 0);
	for (uint32_t nsid = 1; nsid <= 3; nsid++) {
		struct rw_geom g = { nsid, 4096, NS_BLOCKS };
		struct rw_stats st = { 0 };

		assert_int_equal(rw_round(c->io[0], &g, 8192, 8, false, 127, &e->fx.seed, &st), 0);
	}
	/* A flush on each: counted as an other command, and the write buffers reach the flash. */
	for (uint32_t nsid = 1; nsid <= 3; nsid++)
		assert_int_equal(ini_flush(c->io[0], nsid), 0);
	/* While connected: the controller's own counters. */
	scrape(e, true, &cd);
	snprintf(lbl, sizeof(lbl), "subnqn=\"%s\",cntlid=\"%u\",hostnqn=\"%s\"", SUBNQN, c->cntlid,
		 FX_HOST_A);
	assert_int_equal(val(&cd, "bloxd_controller_read_commands_total", lbl), 24);
	assert_int_equal(val(&cd, "bloxd_controller_written_bytes_total", lbl), 24 * 8192);
	assert_int_equal(val(&cd, "bloxd_controller_io_queues", lbl), 1);
	assert_true(val(&cd, "bloxd_controller_other_commands_total", lbl) >= 3);
	assert_int_equal(val(&cd, "bloxd_controllers", NULL), 1);
	mp_free(&cd);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	scrape(e, false, &b);
	for (int n = 1; n <= 3; n++) {
		char ns[80];

		snprintf(ns, sizeof(ns), "subnqn=\"%s\",nsid=\"%d\"", SUBNQN, n);
		assert_int_equal(grew(&a, &b, "bloxd_namespace_read_commands_total", ns), 8);
		assert_int_equal(grew(&a, &b, "bloxd_namespace_write_commands_total", ns), 8);
		assert_int_equal(grew(&a, &b, "bloxd_namespace_read_bytes_total", ns), 8 * 8192);
		assert_int_equal(grew(&a, &b, "bloxd_namespace_written_bytes_total", ns), 8 * 8192);
		assert_int_equal(grew(&a, &b, "bloxd_namespace_read_latency_seconds_count", ns), 8);
		assert_int_equal(grew(&a, &b, "bloxd_namespace_write_latency_seconds_count", ns), 8);
		assert_true(grew(&a, &b, "bloxd_namespace_read_latency_seconds_sum", ns) > 0);
		assert_int_equal(val(&b, "bloxd_namespace_queue_depth", ns), 0);
		assert_true(val(&b, "bloxd_namespace_queue_depth_max", ns) >= 1);
	}
	for (int n = 1; n <= 3; n++) {
		char ns[80];

		snprintf(ns, sizeof(ns), "subnqn=\"%s\",nsid=\"%d\"", SUBNQN, n);
		assert_int_equal(grew(&a, &b, "bloxd_namespace_other_commands_total", ns), 1);
	}
	/* Flash behind the nand namespaces moved too. */
	assert_true(grew(&a, &b, "bloxd_nand_ops_total", NS(2) ",op=\"program\"") > 0);
	assert_true(grew(&a, &b, "bloxd_nand_die_busy_seconds_total",
			 NS(2) ",die=\"0\",channel=\"0\",op=\"program\"") > 0);
	assert_true(grew(&a, &b, "bloxd_nand_ops_total", "device=\"ssd\",op=\"program\"") > 0);
	assert_true(grew(&a, &b, "bloxd_ftl_written_units_total", NS(3) ",source=\"host\"") > 0);
	assert_true(grew(&a, &b, "bloxd_ftl_cmt_hits_total", NS(2)) +
			    grew(&a, &b, "bloxd_ftl_cmt_misses_total", NS(2)) >
		    0);
	assert_true(grew(&a, &b, "bloxd_controllers_created_total", NULL) >= 1);
	mp_free(&a);
	mp_free(&b);
}

/*
 * Time commands spend held by a QoS limit is counted: 300 reads at QD 16
 * under 100 IOPS keep about 15 of them held for 3 s, some 45 s summed.
 * The bound is what a host keeping only one command held would give, so
 * a slow machine cannot fail it; a counter never written fails it.
 */
static void test_qos_held_seconds(void **state)
{
	enum { QD = 16, N = 300, IOPS = 100 };
	struct env *e = *state;
	static uint8_t bufs[QD][4096];
	struct ini_req reqs[QD], *done[QD];
	const double bound = (N - QD) / (double)IOPS * 0.5;
	int sent = 0, got = 0, inflight = 0;
	struct ini_ctrl *c;
	struct mp_doc a, b;
	json_object *o, *arr, *v;
	double held;

	assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out),
				"qos set %s 1 --read-iops %d --burst-ms 10", SUBNQN, IOPS),
			 0);
	scrape(e, false, &a);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c), 0);
	while (got < N) {
		while (inflight < QD && sent < N) {
			struct ini_req *r = &reqs[sent % QD];

			ini_req_rw(r, nvme_cmd_read, 1, (uint64_t)sent * 7 % NS_BLOCKS, 1,
				   bufs[sent % QD], 4096);
			assert_int_equal(ini_submit(c->io[0], r), 0);
			sent++;
			inflight++;
		}
		int k = ini_poll(c->io[0], done, QD);

		assert_true(k >= 1);
		for (int i = 0; i < k; i++)
			assert_int_equal(ini_status(&done[i]->cqe), 0);
		got += k;
		inflight -= k;
	}
	ini_ctrl_destroy(c);
	scrape(e, false, &b);
	held = grew(&a, &b, "bloxd_namespace_qos_throttled_seconds_total", NS(1));
	fprintf(stderr, "test_metrics: %d reads at %d IOPS held %.2f s summed\n", N, IOPS, held);
	if (held < bound)
		fail_msg("throttled seconds grew by %.3f, want at least %.2f", held, bound);
	assert_true(grew(&a, &b, "bloxd_namespace_qos_throttled_commands_total",
			 NS(1) ",op=\"read\"") > 0);
	mp_free(&a);
	mp_free(&b);
	/* bloxctl shows the same time. */
	assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out), "--json qos show %s 1", SUBNQN),
			 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &arr));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(arr, 0), "held_ns", &v));
	assert_true((double)json_object_get_int64(v) >= bound * 1e9);
	json_object_put(o);
	assert_int_equal(fx_ctl(&e->fx.d, e->out, sizeof(e->out), "qos set %s 1 --read-iops off",
				SUBNQN),
			 0);
}

static void test_http_errors(void **state)
{
	struct env *e = *state;
	static const char *const methods[] = { "POST", "PUT", "DELETE", "OPTIONS" };
	struct http h;

	assert_int_equal(http_req(e->port, "GET", "/", NULL, &h), 0);
	assert_int_equal(h.status, 404);
	free(h.body);
	assert_int_equal(http_req(e->port, "GET", "/metricsx", NULL, &h), 0);
	assert_int_equal(h.status, 404);
	free(h.body);
	for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
		assert_int_equal(http_req(e->port, methods[i], "/metrics", NULL, &h), 0);
		assert_int_equal(h.status, 405);
		assert_string_equal(h.allow, "GET, HEAD");
		free(h.body);
	}
	assert_int_equal(http_req(e->port, "HEAD", "/metrics", NULL, &h), 0);
	assert_int_equal(h.status, 200);
	assert_int_equal(h.len, 0);
	free(h.body);
	/* A query string is not part of the path. */
	assert_int_equal(http_req(e->port, "GET", "/metrics?x=1", NULL, &h), 0);
	assert_int_equal(h.status, 200);
	free(h.body);
}

static void test_hostile_clients(void **state)
{
	struct env *e = *state;
	int idle[MAX_CONNS + 4], slow;
	size_t big = 64 << 10;
	char *req = malloc(big);
	struct mp_doc d;
	struct http h;
	int64_t t0;

	/* More silent connections than the endpoint takes, and one that stops mid-line. */
	for (int i = 0; i < MAX_CONNS + 4; i++)
		assert_true((idle[i] = connect_to(e->port)) >= 0);
	assert_true((slow = connect_to(e->port)) >= 0);
	assert_int_equal(send(slow, "GET /metr", 9, MSG_NOSIGNAL), 9);
	/* The loop still serves NVMe I/O at once. */
	t0 = fx_now_ms();
	assert_int_equal(fx_check_daemon(&e->fx.d, SUBNQN, NS_BLOCKS, &e->fx.seed), 0);
	assert_true(fx_now_ms() - t0 < 3000);
	/* Once the silent ones time out, a scrape is answered (it waited in the backlog). */
	t0 = fx_now_ms();
	scrape(e, false, &d);
	fprintf(stderr, "scrape behind %d idle connections: %lld ms\n", MAX_CONNS + 4,
		(long long)(fx_now_ms() - t0));
	assert_true(val(&d, "bloxd_metrics_accept_pauses_total", NULL) >= 1);
	mp_free(&d);
	for (int i = 0; i < MAX_CONNS + 4; i++)
		close(idle[i]);
	close(slow);
	/* Headers past the limit: refused, never a 200. */
	assert_non_null(req);
	memset(req, 'a', big);
	memcpy(req, "GET /metrics HTTP/1.1\r\nX-Big: ", 30);
	memcpy(req + big - 4, "\r\n\r\n", 4);
	if (http_raw(e->port, req, big, &h) == 0) {
		assert_true(h.status >= 400);
		free(h.body);
	}
	free(req);
	/* And the endpoint serves again. */
	scrape(e, true, &d);
	mp_free(&d);
}

/* bloxd with --metrics @spec exits 2 before doing anything. */
static void test_bad_metrics_arg(void **state)
{
	static const char *const bad[] = { "127.0.0.1",	     "127.0.0.1:0",   "127.0.0.1:70000",
					   "localhost:9100", "[::1]9100",     "1.2.3:80",
					   ":9100",	     "127.0.0.1:abc", "[::1:9100" };
	const char *bloxd = getenv("BLOXD");

	(void)state;
	assert_non_null(bloxd);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pid_t pid = fork();
		int st;

		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			dup2(null, 2);
			execl(bloxd, bloxd, "--data-dir", "/nonexistent/metrics-test",
			      "--admin-socket", "/nonexistent/s", "--metrics", bad[i], (char *)NULL);
			_exit(127);
		}
		assert_int_equal(waitpid(pid, &st, 0), pid);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 2)
			fprintf(stderr, "--metrics '%s': status 0x%x\n", bad[i], st);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	}
}

/* ---- --external: the Prometheus project's own parsers ---- */

static bool have_promtool(void)
{
	return system("promtool --version > /dev/null 2>&1") == 0;
}

#define OM_PARSER                                                                          \
	"/usr/bin/python3 -c 'import sys; "                                                \
	"from prometheus_client.openmetrics.parser import text_string_to_metric_families as p; " \
	"print(len(list(p(sys.stdin.read()))), \"families\")'"

static bool have_om_parser(void)
{
	return system("/usr/bin/python3 -c 'import prometheus_client' > /dev/null 2>&1") == 0;
}

/* Run @cmd with the scrape (@om) on its standard input; its exit status. */
static int check_with(struct env *e, bool om, const char *cmd)
{
	char path[] = "/tmp/blox-metrics-XXXXXX", line[1024];
	struct http h;
	int fd, rc;

	assert_int_equal(http_req(e->port, "GET", "/metrics", om ? OM_ACCEPT : NULL, &h), 0);
	assert_int_equal(h.status, 200);
	assert_true((fd = mkstemp(path)) >= 0);
	assert_int_equal(write(fd, h.body, h.len), (ssize_t)h.len);
	close(fd);
	free(h.body);
	snprintf(line, sizeof(line), "%s < %s", cmd, path);
	rc = system(line);
	unlink(path);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_promtool(void **state)
{
	if (!have_promtool())
		skip();
	assert_int_equal(check_with(*state, false, "promtool check metrics"), 0);
}

static void test_openmetrics_parser(void **state)
{
	if (!have_om_parser())
		skip();
	assert_int_equal(check_with(*state, true, OM_PARSER), 0);
}

int main(int argc, char **argv)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_counters_follow_io),
		cmocka_unit_test(test_qos_held_seconds),
		cmocka_unit_test(test_http_errors),
		cmocka_unit_test(test_hostile_clients),
		cmocka_unit_test(test_bad_metrics_arg),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};
	static const struct CMUnitTest external[] = {
		cmocka_unit_test(test_promtool),
		cmocka_unit_test(test_openmetrics_parser),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};
	char spec[32];
	const char *args[] = { "--metrics", spec, NULL };
	struct fx_group g = {
		.who = "test_metrics",
		.subsystems = subsystems,
		.extra_args = args,
		.size = sizeof(struct env),
		.setup = env_setup,
	};

	snprintf(spec, sizeof(spec), "%s:%u", FX_ADDR, fx_free_port(FX_ADDR));
	if (argc > 1 && !strcmp(argv[1], "--external")) {
		if (!have_promtool() && !have_om_parser()) {
			printf("neither promtool (Debian package prometheus) nor "
			       "python3-prometheus-client is installed: skipped\n");
			return 77;
		}
		return FX_MAIN(&g, external);
	}
	return FX_MAIN(&g, tests);
}
