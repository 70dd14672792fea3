/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to daemon/telemetry: the parts of the metrics endpoint. metrics.c
 * serves HTTP, metrics_collect.c walks the target for the figures, and
 * metrics_text.c writes them in the Prometheus text format (0.0.4) or in
 * OpenMetrics 1.0.0. The writer is pure (into an evbuffer) and keeps the
 * rules of both formats: a family's samples together under one HELP and
 * TYPE (and UNIT in OpenMetrics), counters' samples named _total,
 * histograms as cumulative _bucket{le} with +Inf, _sum and _count, label
 * values escaped, "# EOF" at the end of OpenMetrics.
 */
#ifndef BLOX_METRICS_H
#define BLOX_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blox_hist.h"

struct evbuffer;
struct blox_prov;

enum mx_format {
	MX_PROMETHEUS, /* text/plain; version=0.0.4 */
	MX_OPENMETRICS, /* application/openmetrics-text; version=1.0.0 */
};

enum mx_type {
	MX_COUNTER, /* samples NAME_total */
	MX_GAUGE,
	MX_HISTOGRAM, /* samples NAME_bucket, NAME_sum, NAME_count */
	MX_INFO, /* samples NAME_info, value 1 (a gauge in the Prometheus format) */
};

/*
 * A metric family. @name is the family's name without the _total or
 * _info suffix; with a @unit (base units: "seconds", "bytes") it ends in
 * "_<unit>". @help is one line.
 */
struct mx_family {
	const char *name;
	enum mx_type type;
	const char *unit; /* NULL: none */
	const char *help;
};

#define MX_MAX_LABELS 8

/* Label pairs of one sample; names are [a-zA-Z_][a-zA-Z0-9_]*, values any text. */
struct mx_labels {
	size_t n;
	const char *name[MX_MAX_LABELS];
	const char *value[MX_MAX_LABELS];
};

/* Add a pair to @l (@l with MX_MAX_LABELS pairs already: a bug, ignored). */
void mx_label(struct mx_labels *l, const char *name, const char *value);

struct mx_writer {
	struct evbuffer *out;
	enum mx_format fmt;
	struct mx_family fam; /* the family being written */
	char name[128]; /* its name, copied */
	bool fam_written; /* its HELP/TYPE lines are out */
	int err; /* -ENOMEM once an append failed */
};

void mx_begin(struct mx_writer *w, struct evbuffer *out, enum mx_format fmt);
/*
 * The family of the samples that follow. Its comment lines are written
 * with its first sample: a family without samples leaves no trace.
 */
void mx_family(struct mx_writer *w, const struct mx_family *f);
void mx_u64(struct mx_writer *w, const struct mx_labels *l, uint64_t v);
void mx_double(struct mx_writer *w, const struct mx_labels *l, double v);
/* @ns nanoseconds as seconds, exactly (a counter or gauge in seconds). */
void mx_ns(struct mx_writer *w, const struct mx_labels *l, uint64_t ns);
/*
 * A latency histogram of nanoseconds as a histogram in seconds. Bounds
 * are powers of two from 2^10 ns (1.024 us) to 2^34 ns (17.2 s), which
 * are bucket boundaries of struct blox_hist, so every count is exact: a
 * bucket counts the values below its bound (a value of exactly 2^k ns
 * counts in the next one).
 */
void mx_hist(struct mx_writer *w, const struct mx_labels *l, const struct blox_hist *h);
/* End the exposition ("# EOF" in OpenMetrics). 0 or -ENOMEM. */
int mx_end(struct mx_writer *w);

/* Which format the request's Accept header (NULL: none) asks for. */
enum mx_format mx_negotiate(const char *accept);
const char *mx_content_type(enum mx_format fmt);

/* The endpoint's own figures. */
struct mx_self {
	uint64_t requests; /* answered, any path */
	uint64_t pauses; /* times the listener stopped accepting: too many open */
	uint32_t conns; /* open now */
};

/* The text of every metric of @p's target and devices into @out. 0 or -ENOMEM. */
int mx_collect(struct blox_prov *p, const struct mx_self *self, struct evbuffer *out,
	       enum mx_format fmt);

#endif
