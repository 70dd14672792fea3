/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The text formats of the metrics endpoint (metrics.h): the Prometheus
 * exposition format 0.0.4 and OpenMetrics 1.0.0. They differ in the
 * comment lines: OpenMetrics names a counter's family without _total and
 * an info family without _info, has UNIT lines and the info type, escapes
 * quotes in HELP and ends with "# EOF"; samples are written alike.
 */
#include "metrics.h"

#include <errno.h>
#include <event2/buffer.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

#include "blox_util.h"

#define HIST_FIRST_EXP 10 /* 2^10 ns */
#define HIST_LAST_EXP 34 /* 2^34 ns */

void mx_label(struct mx_labels *l, const char *name, const char *value)
{
	if (l->n < MX_MAX_LABELS) {
		l->name[l->n] = name;
		l->value[l->n++] = value;
	}
}

static void put(struct mx_writer *w, const char *s, size_t len)
{
	if (len && evbuffer_add(w->out, s, len))
		w->err = -ENOMEM;
}

static void puts_(struct mx_writer *w, const char *s)
{
	put(w, s, strlen(s));
}

/* @s with \ and newline escaped, and " when @quote. */
static void put_escaped(struct mx_writer *w, const char *s, bool quote)
{
	const char *run = s;

	for (; *s; s++) {
		const char *e = *s == '\\' ? "\\\\" : *s == '\n' ? "\\n" : quote && *s == '"' ? "\\\"" : NULL;

		if (!e)
			continue;
		put(w, run, (size_t)(s - run));
		puts_(w, e);
		run = s + 1;
	}
	put(w, run, (size_t)(s - run));
}

void mx_begin(struct mx_writer *w, struct evbuffer *out, enum mx_format fmt)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->fmt = fmt;
}

void mx_family(struct mx_writer *w, const struct mx_family *f)
{
	w->fam = *f;
	snprintf(w->name, sizeof(w->name), "%s", f->name);
	w->fam.name = w->name;
	w->fam_written = false;
}

static const char *type_name(const struct mx_writer *w)
{
	switch (w->fam.type) {
	case MX_COUNTER:
		return "counter";
	case MX_HISTOGRAM:
		return "histogram";
	case MX_INFO:
		return w->fmt == MX_OPENMETRICS ? "info" : "gauge";
	case MX_GAUGE:
	default:
		return "gauge";
	}
}

/* The name in HELP and TYPE lines: the Prometheus format names the samples'. */
static void put_family_name(struct mx_writer *w)
{
	puts_(w, w->fam.name);
	if (w->fmt == MX_PROMETHEUS && w->fam.type == MX_COUNTER)
		puts_(w, "_total");
	else if (w->fmt == MX_PROMETHEUS && w->fam.type == MX_INFO)
		puts_(w, "_info");
}

static void family_lines(struct mx_writer *w)
{
	if (w->fam_written)
		return;
	w->fam_written = true;
	puts_(w, "# HELP ");
	put_family_name(w);
	puts_(w, " ");
	put_escaped(w, w->fam.help, w->fmt == MX_OPENMETRICS);
	puts_(w, "\n# TYPE ");
	put_family_name(w);
	puts_(w, " ");
	puts_(w, type_name(w));
	puts_(w, "\n");
	if (w->fmt == MX_OPENMETRICS && w->fam.unit) {
		puts_(w, "# UNIT ");
		puts_(w, w->fam.name);
		puts_(w, " ");
		puts_(w, w->fam.unit);
		puts_(w, "\n");
	}
}

/* NAME<suffix>{labels[,le="@le"]} followed by a space. */
static void sample_start(struct mx_writer *w, const char *suffix, const struct mx_labels *l,
			 const char *le)
{
	family_lines(w);
	puts_(w, w->fam.name);
	puts_(w, suffix);
	if ((l && l->n) || le) {
		const char *sep = "{";

		for (size_t i = 0; l && i < l->n; i++) {
			puts_(w, sep);
			puts_(w, l->name[i]);
			puts_(w, "=\"");
			put_escaped(w, l->value[i], true);
			puts_(w, "\"");
			sep = ",";
		}
		if (le) {
			puts_(w, sep);
			puts_(w, "le=\"");
			puts_(w, le);
			puts_(w, "\"");
		}
		puts_(w, "}");
	}
	puts_(w, " ");
}

static const char *plain_suffix(const struct mx_writer *w)
{
	return w->fam.type == MX_COUNTER ? "_total" : w->fam.type == MX_INFO ? "_info" : "";
}

static void put_u64(struct mx_writer *w, uint64_t v)
{
	char b[24];

	snprintf(b, sizeof(b), "%" PRIu64, v);
	puts_(w, b);
}

/* Seconds of @ns nanoseconds, exact: "1.5", "0.000001024", "17". */
static void fmt_ns(char *b, size_t len, uint64_t ns)
{
	uint64_t frac = ns % 1000000000u;
	int n = snprintf(b, len, "%" PRIu64, ns / 1000000000u);

	if (frac && n > 0 && (size_t)n + 11 <= len) {
		snprintf(b + n, len - (size_t)n, ".%09" PRIu64, frac);
		for (char *e = b + strlen(b) - 1; *e == '0'; e--)
			*e = '\0';
	}
}

void mx_u64(struct mx_writer *w, const struct mx_labels *l, uint64_t v)
{
	sample_start(w, plain_suffix(w), l, NULL);
	put_u64(w, v);
	puts_(w, "\n");
}

void mx_double(struct mx_writer *w, const struct mx_labels *l, double v)
{
	char b[40];

	if (isnan(v))
		snprintf(b, sizeof(b), "NaN");
	else if (isinf(v))
		snprintf(b, sizeof(b), "%sInf", v > 0 ? "+" : "-");
	else
		snprintf(b, sizeof(b), "%.15g", v);
	sample_start(w, plain_suffix(w), l, NULL);
	puts_(w, b);
	puts_(w, "\n");
}

void mx_ns(struct mx_writer *w, const struct mx_labels *l, uint64_t ns)
{
	char b[40];

	fmt_ns(b, sizeof(b), ns);
	sample_start(w, plain_suffix(w), l, NULL);
	puts_(w, b);
	puts_(w, "\n");
}

void mx_hist(struct mx_writer *w, const struct mx_labels *l, const struct blox_hist *h)
{
	uint64_t cum = 0;
	uint32_t i = 0;
	char le[40];

	for (uint32_t e = HIST_FIRST_EXP; e <= HIST_LAST_EXP; e++) {
		uint32_t end = blox_hist_bucket(1ull << e); /* the first bucket at or past 2^e */

		for (; i < end; i++)
			cum += h->buckets[i];
		fmt_ns(le, sizeof(le), 1ull << e);
		sample_start(w, "_bucket", l, le);
		put_u64(w, cum);
		puts_(w, "\n");
	}
	sample_start(w, "_bucket", l, "+Inf");
	put_u64(w, h->count);
	puts_(w, "\n");
	fmt_ns(le, sizeof(le), h->sum);
	sample_start(w, "_sum", l, NULL);
	puts_(w, le);
	puts_(w, "\n");
	sample_start(w, "_count", l, NULL);
	put_u64(w, h->count);
	puts_(w, "\n");
}

int mx_end(struct mx_writer *w)
{
	if (w->fmt == MX_OPENMETRICS)
		puts_(w, "# EOF\n");
	return w->err;
}

/* ---- Content negotiation ---- */

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Parameter @key of the media range [@s, @end) ("; key=value"), into @v. */
static bool range_param(const char *s, const char *end, const char *key, char *v, size_t vlen)
{
	size_t klen = strlen(key);

	while ((s = memchr(s, ';', (size_t)(end - s)))) {
		const char *p = skip_ws(s + 1), *q;
		size_t n;

		s++;
		if ((size_t)(end - p) <= klen || strncasecmp(p, key, klen))
			continue;
		p = skip_ws(p + klen);
		if (p >= end || *p != '=')
			continue;
		p = skip_ws(p + 1);
		for (q = p; q < end && *q != ';' && *q != ' ' && *q != '\t'; q++)
			;
		n = BLOX_MIN((size_t)(q - p), vlen - 1);
		memcpy(v, p, n);
		v[n] = '\0';
		return true;
	}
	return false;
}

enum mx_format mx_negotiate(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	const char *s = accept;

	/* A media range of OpenMetrics, of version 1.0.0 or none, with q > 0. */
	while (s && *s) {
		const char *end = strchr(s, ',');
		char v[32];

		if (!end)
			end = s + strlen(s);
		s = skip_ws(s);
		if ((size_t)(end - s) >= sizeof(om) - 1 && !strncasecmp(s, om, sizeof(om) - 1) &&
		    (s[sizeof(om) - 1] == ';' || s[sizeof(om) - 1] == ' ' ||
		     s + sizeof(om) - 1 == end) &&
		    (!range_param(s, end, "version", v, sizeof(v)) || !strcmp(v, "1.0.0")) &&
		    (!range_param(s, end, "q", v, sizeof(v)) || strtod(v, NULL) > 0))
			return MX_OPENMETRICS;
		s = *end ? end + 1 : end;
	}
	return MX_PROMETHEUS;
}

const char *mx_content_type(enum mx_format fmt)
{
	return fmt == MX_OPENMETRICS ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
				     : "text/plain; version=0.0.4; charset=utf-8";
}
