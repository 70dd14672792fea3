/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A strict parser of the Prometheus text format (0.0.4) and OpenMetrics
 * 1.0.0 for the metrics test: every line is a HELP, TYPE or UNIT comment
 * (UNIT and the final "# EOF" only in OpenMetrics) or a sample
 * `name{labels} value`; names valid, label values escaped as the formats
 * say; a family's TYPE before its samples, its samples together, no
 * series twice; counters non-negative and named _total; histograms with
 * increasing le, cumulative counts that never fall, a +Inf bucket equal
 * to _count, and a _sum.
 */
#ifndef BLOX_METRICS_PARSE_H
#define BLOX_METRICS_PARSE_H

#include <stdbool.h>
#include <stddef.h>

struct mp_sample {
	char name[128];
	char labels[768]; /* as written, without le: a="x",b="y" */
	char le[32]; /* "" when none */
	double v;
};

struct mp_family {
	char name[128];
	char type[16];
	char unit[32];
	bool has_help;
	size_t first, n; /* its samples */
};

struct mp_doc {
	struct mp_sample *s;
	size_t ns, cap;
	struct mp_family *f;
	size_t nf, fcap;
	char err[512]; /* what failed, with its line */
};

/* Parse @text (@om: OpenMetrics) into @d (zeroed by the caller). 0 or -1 (d->err). */
int mp_parse(const char *text, bool om, struct mp_doc *d);
void mp_free(struct mp_doc *d);
const struct mp_family *mp_family(const struct mp_doc *d, const char *name);
/*
 * The value of the first sample named @name whose labels contain every
 * comma-separated pair of @labels (NULL: any), with no le; *@found says
 * whether there was one (0 when not).
 */
double mp_value(const struct mp_doc *d, const char *name, const char *labels, bool *found);
/* Samples named @name (any labels). */
size_t mp_count(const struct mp_doc *d, const char *name);

#endif
