/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of the metrics text writer (daemon/telemetry/metrics_text.c):
 * content negotiation, the comment lines of both formats, label escaping,
 * exact seconds, histograms from struct blox_hist, families without
 * samples, the OpenMetrics terminator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <event2/buffer.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

/* Everything written, as a string (caller frees). */
static char *text(struct evbuffer *b)
{
	size_t n = evbuffer_get_length(b);
	char *s = malloc(n + 1);

	assert_non_null(s);
	evbuffer_remove(b, s, n);
	s[n] = '\0';
	return s;
}

static void test_negotiate(void **state)
{
	(void)state;
	assert_int_equal(mx_negotiate(NULL), MX_PROMETHEUS);
	assert_int_equal(mx_negotiate("*/*"), MX_PROMETHEUS);
	assert_int_equal(mx_negotiate("text/plain;version=0.0.4"), MX_PROMETHEUS);
	assert_int_equal(mx_negotiate("application/openmetrics-text"), MX_OPENMETRICS);
	/* What Prometheus 2.x sends. */
	assert_int_equal(mx_negotiate("application/openmetrics-text;version=1.0.0,application/"
				      "openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;"
				      "q=0.5,*/*;q=0.1"),
			 MX_OPENMETRICS);
	assert_int_equal(mx_negotiate("text/plain, application/openmetrics-text; q=0"),
			 MX_PROMETHEUS);
	assert_int_equal(mx_negotiate("application/openmetrics-text; version=0.0.1"), MX_PROMETHEUS);
	assert_int_equal(mx_negotiate("application/openmetrics-textx"), MX_PROMETHEUS);
}

static void write_sample_doc(enum mx_format fmt, struct evbuffer *b)
{
	struct mx_writer w;
	struct mx_labels l = { 0 };

	mx_label(&l, "subnqn", "a\"b\\c\nd");
	mx_begin(&w, b, fmt);
	mx_family(&w, &(struct mx_family){ "x_empty", MX_GAUGE, NULL, "never written" });
	mx_family(&w, &(struct mx_family){ "x_read_bytes", MX_COUNTER, "bytes", "Bytes \"read\"" });
	mx_u64(&w, &l, 42);
	mx_family(&w, &(struct mx_family){ "x_build", MX_INFO, NULL, "v" });
	mx_u64(&w, NULL, 1);
	mx_family(&w, &(struct mx_family){ "x_up_seconds", MX_GAUGE, "seconds", "up" });
	mx_ns(&w, NULL, 1500000000);
	mx_ns(&w, &l, 1024);
	assert_int_equal(mx_end(&w), 0);
}

/* The sample document in @fmt is exactly @want. */
static void check_doc(enum mx_format fmt, const char *want)
{
	struct evbuffer *b = evbuffer_new();
	char *s;

	assert_non_null(b);
	write_sample_doc(fmt, b);
	s = text(b);
	assert_string_equal(s, want);
	free(s);
	evbuffer_free(b);
}

static void test_prometheus_format(void **state)
{
	(void)state;
	check_doc(MX_PROMETHEUS, "# HELP x_read_bytes_total Bytes \"read\"\n"
				 "# TYPE x_read_bytes_total counter\n"
				 "x_read_bytes_total{subnqn=\"a\\\"b\\\\c\\nd\"} 42\n"
				 "# HELP x_build_info v\n"
				 "# TYPE x_build_info gauge\n"
				 "x_build_info 1\n"
				 "# HELP x_up_seconds up\n"
				 "# TYPE x_up_seconds gauge\n"
				 "x_up_seconds 1.5\n"
				 "x_up_seconds{subnqn=\"a\\\"b\\\\c\\nd\"} 0.000001024\n");
}

static void test_openmetrics_format(void **state)
{
	(void)state;
	check_doc(MX_OPENMETRICS, "# HELP x_read_bytes Bytes \\\"read\\\"\n"
				  "# TYPE x_read_bytes counter\n"
				  "# UNIT x_read_bytes bytes\n"
				  "x_read_bytes_total{subnqn=\"a\\\"b\\\\c\\nd\"} 42\n"
				  "# HELP x_build v\n"
				  "# TYPE x_build info\n"
				  "x_build_info 1\n"
				  "# HELP x_up_seconds up\n"
				  "# TYPE x_up_seconds gauge\n"
				  "# UNIT x_up_seconds seconds\n"
				  "x_up_seconds 1.5\n"
				  "x_up_seconds{subnqn=\"a\\\"b\\\\c\\nd\"} 0.000001024\n"
				  "# EOF\n");
}

/* Bucket counts are exact: below 2^k ns, cumulative, +Inf and _count the total. */
static void test_histogram(void **state)
{
	static const uint64_t v[] = { 5, 1023, 1024, 2047, 2048, 3000000000ull, 1ull << 40 };
	struct blox_hist *h = calloc(1, sizeof(*h));
	struct evbuffer *b = evbuffer_new();
	struct mx_writer w;
	char *s;

	(void)state;
	assert_non_null(h);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		blox_hist_add(h, v[i]);
	mx_begin(&w, b, MX_PROMETHEUS);
	mx_family(&w, &(struct mx_family){ "x_lat_seconds", MX_HISTOGRAM, "seconds", "lat" });
	mx_hist(&w, NULL, h);
	assert_int_equal(mx_end(&w), 0);
	s = text(b);
	assert_non_null(strstr(s, "# TYPE x_lat_seconds histogram\n"));
	assert_non_null(strstr(s, "x_lat_seconds_bucket{le=\"0.000001024\"} 2\n"));
	assert_non_null(strstr(s, "x_lat_seconds_bucket{le=\"0.000002048\"} 4\n"));
	assert_non_null(strstr(s, "x_lat_seconds_bucket{le=\"0.000004096\"} 5\n"));
	assert_non_null(strstr(s, "x_lat_seconds_bucket{le=\"2.147483648\"} 5\n"));
	assert_non_null(strstr(s, "x_lat_seconds_bucket{le=\"4.294967296\"} 6\n"));
	assert_non_null(strstr(s, "x_lat_seconds_bucket{le=\"17.179869184\"} 6\n"));
	assert_non_null(strstr(s, "x_lat_seconds_bucket{le=\"+Inf\"} 7\n"));
	assert_non_null(strstr(s, "x_lat_seconds_count 7\n"));
	assert_non_null(strstr(s, "x_lat_seconds_sum 1102.511633923\n"));
	free(s);
	free(h);
	evbuffer_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_negotiate),
		cmocka_unit_test(test_prometheus_format),
		cmocka_unit_test(test_openmetrics_format),
		cmocka_unit_test(test_histogram),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
