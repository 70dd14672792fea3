/* SPDX-License-Identifier: BSD-3-Clause */
/* Strict parser of the metrics text formats (metrics_parse.h). */
#include "metrics_parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(struct mp_doc *d, size_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct mp_doc *d, size_t line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(d->err, sizeof(d->err), "line %zu: ", line);

	va_start(ap, fmt);
	vsnprintf(d->err + n, sizeof(d->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool name_ok(const char *s, bool colon)
{
	if (!*s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		     (colon && *s == ':')))
		return false;
	for (s++; *s; s++)
		if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || (colon && *s == ':')))
			return false;
	return true;
}

/* A number as the formats write it (no hex, no inf/nan spellings but theirs). */
static bool number(const char *s, double *v)
{
	char *end;

	if (!strcmp(s, "+Inf") || !strcmp(s, "-Inf") || !strcmp(s, "NaN")) {
		*v = !strcmp(s, "NaN") ? NAN : s[0] == '+' ? INFINITY : -INFINITY;
		return true;
	}
	if (!*s || strpbrk(s, "xXiInN"))
		return false;
	*v = strtod(s, &end);
	return *end == '\0';
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && !strcmp(s + a - b, suffix);
}

/* The checks of a histogram family once all its samples are in. */
static int check_hist(struct mp_doc *d, const struct mp_family *f, size_t line)
{
	for (size_t i = f->first; i < f->first + f->n; i++) {
		const struct mp_sample *b = &d->s[i];
		double last_le = -INFINITY, last_v = 0, inf = -1, count = -1;
		bool sum = false;

		if (!ends_with(b->name, "_bucket"))
			continue;
		/* The first bucket of a series: walk the series. */
		bool first = true;

		for (size_t j = f->first; j < i; j++)
			if (ends_with(d->s[j].name, "_bucket") && !strcmp(d->s[j].labels, b->labels))
				first = false;
		if (!first)
			continue;
		for (size_t j = f->first; j < f->first + f->n; j++) {
			const struct mp_sample *x = &d->s[j];
			double le;

			if (strcmp(x->labels, b->labels))
				continue;
			if (ends_with(x->name, "_sum"))
				sum = true;
			else if (ends_with(x->name, "_count"))
				count = x->v;
			if (!ends_with(x->name, "_bucket"))
				continue;
			if (!number(x->le, &le) || isnan(le))
				return fail(d, line, "%s{%s}: bad le \"%s\"", f->name, b->labels, x->le);
			if (le <= last_le)
				return fail(d, line, "%s{%s}: le %s not above the one before", f->name,
					    b->labels, x->le);
			if (x->v < last_v || x->v < 0)
				return fail(d, line, "%s{%s}: bucket le=%s = %g below the one before (%g)",
					    f->name, b->labels, x->le, x->v, last_v);
			last_le = le;
			last_v = x->v;
			if (isinf(le))
				inf = x->v;
		}
		if (inf < 0)
			return fail(d, line, "%s{%s}: no +Inf bucket", f->name, b->labels);
		if (count != inf)
			return fail(d, line, "%s{%s}: _count %g != +Inf bucket %g", f->name, b->labels,
				    count, inf);
		if (!sum)
			return fail(d, line, "%s{%s}: no _sum", f->name, b->labels);
	}
	return 0;
}

/* Double the array *@p of *@cap entries of @size bytes. 0 or -1. */
static int grow(void **p, size_t *cap, size_t size)
{
	size_t n = *cap ? 2 * *cap : 64;
	void *np = realloc(*p, n * size);

	if (!np)
		return -1;
	*p = np;
	*cap = n;
	return 0;
}

static struct mp_family *family_find(struct mp_doc *d, const char *name)
{
	for (size_t i = 0; i < d->nf; i++)
		if (!strcmp(d->f[i].name, name))
			return &d->f[i];
	return NULL;
}

/* The family a sample named @name belongs to, if its type allows the name. */
static bool sample_of(const struct mp_family *f, const char *name, bool om)
{
	size_t n = strlen(f->name);

	if (strncmp(name, f->name, n))
		return false;
	name += n;
	if (!strcmp(f->type, "histogram"))
		return !strcmp(name, "_bucket") || !strcmp(name, "_sum") || !strcmp(name, "_count");
	if (om && !strcmp(f->type, "counter"))
		return !strcmp(name, "_total");
	if (om && !strcmp(f->type, "info"))
		return !strcmp(name, "_info");
	return !*name;
}

static int comment(struct mp_doc *d, char *l, size_t line, bool om, struct mp_family **cur)
{
	char *kw = l + 2, *name, *rest;
	struct mp_family *f;

	if (strncmp(l, "# ", 2))
		return fail(d, line, "a comment starts with \"# \"");
	name = strchr(kw, ' ');
	if (!name)
		return fail(d, line, "comment without a metric name");
	*name++ = '\0';
	rest = strchr(name, ' ');
	if (!rest)
		return fail(d, line, "comment without text");
	*rest++ = '\0';
	if (strcmp(kw, "HELP") && strcmp(kw, "TYPE") && !(om && !strcmp(kw, "UNIT")))
		return fail(d, line, "unknown comment \"%s\"", kw);
	if (!name_ok(name, true))
		return fail(d, line, "bad metric name \"%s\"", name);
	f = family_find(d, name);
	if (!f) {
		if (*cur && !strcmp((*cur)->type, "histogram") && check_hist(d, *cur, line))
			return -1;
		if (d->nf == d->fcap && grow((void **)&d->f, &d->fcap, sizeof(*d->f)))
			return fail(d, line, "out of memory");
		f = &d->f[d->nf++];
		memset(f, 0, sizeof(*f));
		snprintf(f->name, sizeof(f->name), "%s", name);
		*cur = f;
	} else if (f != *cur || f->n) {
		return fail(d, line, "%s: metadata after its samples or away from the rest", name);
	}
	if (!strcmp(kw, "HELP")) {
		if (f->has_help)
			return fail(d, line, "%s: two HELP lines", name);
		f->has_help = true;
		for (char *p = rest; *p; p++)
			if (*p == '\\' && !(p[1] == '\\' || p[1] == 'n' || (om && p[1] == '"')))
				return fail(d, line, "%s: bad escape in HELP", name);
			else if (*p == '\\')
				p++;
	} else if (!strcmp(kw, "TYPE")) {
		static const char *const prom[] = { "counter", "gauge", "histogram", "summary",
						    "untyped", NULL };
		static const char *const omt[] = { "counter", "gauge", "histogram", "gaugehistogram",
						   "stateset", "info", "summary", "unknown", NULL };
		const char *const *t = om ? omt : prom;

		if (f->type[0])
			return fail(d, line, "%s: two TYPE lines", name);
		while (*t && strcmp(*t, rest))
			t++;
		if (!*t)
			return fail(d, line, "%s: unknown type \"%s\"", name, rest);
		snprintf(f->type, sizeof(f->type), "%s", rest);
		if (!om && !strcmp(rest, "counter") && !ends_with(name, "_total"))
			return fail(d, line, "%s: a counter not named _total", name);
		if (om && (ends_with(name, "_total") || ends_with(name, "_info")))
			return fail(d, line, "%s: an OpenMetrics family named with a sample suffix",
				    name);
	} else {
		char want[40];

		snprintf(want, sizeof(want), "_%s", rest);
		if (f->unit[0] || !ends_with(name, want))
			return fail(d, line, "%s: UNIT %s twice or not the name's suffix", name, rest);
		snprintf(f->unit, sizeof(f->unit), "%s", rest);
	}
	return 0;
}

static int sample(struct mp_doc *d, char *l, size_t line, bool om, struct mp_family *cur)
{
	struct mp_sample s = { 0 };
	char *p = l, *val;
	size_t ln = 0;
	char seen[16][64];
	size_t nseen = 0;

	while (*p && *p != '{' && *p != ' ')
		p++;
	if ((size_t)(p - l) >= sizeof(s.name))
		return fail(d, line, "name too long");
	memcpy(s.name, l, (size_t)(p - l));
	if (!name_ok(s.name, true))
		return fail(d, line, "bad metric name \"%s\"", s.name);
	if (*p == '{') {
		p++;
		while (*p != '}') {
			char lname[64], lval[512];
			size_t k = 0, v = 0;

			while (*p && *p != '=' && k < sizeof(lname) - 1)
				lname[k++] = *p++;
			lname[k] = '\0';
			if (*p != '=' || p[1] != '"' || !name_ok(lname, false))
				return fail(d, line, "bad label name \"%s\"", lname);
			for (size_t i = 0; i < nseen; i++)
				if (!strcmp(seen[i], lname))
					return fail(d, line, "label %s twice", lname);
			if (nseen < 16)
				snprintf(seen[nseen++], sizeof(seen[0]), "%s", lname);
			for (p += 2; *p != '"'; p++) {
				if (!*p || *p == '\n' || v >= sizeof(lval) - 2)
					return fail(d, line, "label %s: value not closed", lname);
				if (*p == '\\') {
					if (p[1] != '\\' && p[1] != '"' && p[1] != 'n')
						return fail(d, line, "label %s: bad escape", lname);
					lval[v++] = *p++;
				}
				lval[v++] = *p;
			}
			lval[v] = '\0';
			p++;
			if (!strcmp(lname, "le")) {
				if (v >= sizeof(s.le))
					return fail(d, line, "le too long");
				memcpy(s.le, lval, v + 1);
			} else {
				ln += (size_t)snprintf(s.labels + ln, sizeof(s.labels) - ln, "%s%s=\"%s\"",
						       ln ? "," : "", lname, lval);
				if (ln >= sizeof(s.labels))
					return fail(d, line, "labels too long");
			}
			if (*p == ',' && p[1] != '}')
				p++;
			else if (*p != '}')
				return fail(d, line, "expected , or } after label %s", lname);
		}
		p++;
	}
	if (*p != ' ')
		return fail(d, line, "expected one space before the value");
	val = p + 1;
	if (strchr(val, ' '))
		return fail(d, line, "timestamps or trailing text are not written here");
	if (!number(val, &s.v))
		return fail(d, line, "bad value \"%s\"", val);
	if (!cur || !sample_of(cur, s.name, om)) {
		for (size_t i = 0; i < d->nf; i++)
			if (sample_of(&d->f[i], s.name, om))
				return fail(d, line, "%s: away from the rest of its family", s.name);
		return fail(d, line, "%s: sample before its TYPE", s.name);
	}
	if (!cur->type[0])
		return fail(d, line, "%s: no TYPE", s.name);
	if (!strcmp(cur->type, "counter") && (!ends_with(s.name, "_total") || !(s.v >= 0)))
		return fail(d, line, "%s: a counter must be _total and >= 0", s.name);
	if (!!s.le[0] != (!strcmp(cur->type, "histogram") && ends_with(s.name, "_bucket")))
		return fail(d, line, "%s: le on a sample other than a bucket, or a bucket without",
			    s.name);
	for (size_t i = cur->first; i < cur->first + cur->n; i++)
		if (!strcmp(d->s[i].name, s.name) && !strcmp(d->s[i].labels, s.labels) &&
		    !strcmp(d->s[i].le, s.le))
			return fail(d, line, "%s{%s}: series twice", s.name, s.labels);
	if (d->ns == d->cap && grow((void **)&d->s, &d->cap, sizeof(*d->s)))
		return fail(d, line, "out of memory");
	if (!cur->n)
		cur->first = d->ns;
	cur->n++;
	d->s[d->ns++] = s;
	return 0;
}

int mp_parse(const char *text, bool om, struct mp_doc *d)
{
	struct mp_family *cur = NULL;
	char *buf = strdup(text), *l, *nl;
	size_t line = 0;
	bool eof = false;
	int rc = 0;

	if (!buf)
		return fail(d, 0, "out of memory");
	if (!*text || text[strlen(text) - 1] != '\n') {
		free(buf);
		return fail(d, 0, "the text does not end with a newline");
	}
	for (l = buf; !rc && *l; l = nl + 1) {
		nl = strchr(l, '\n');
		*nl = '\0';
		line++;
		if (eof)
			rc = fail(d, line, "text after # EOF");
		else if (om && !strcmp(l, "# EOF"))
			eof = true;
		else if (!*l)
			rc = fail(d, line, "empty line");
		else if (l[0] == '#')
			rc = comment(d, l, line, om, &cur);
		else
			rc = sample(d, l, line, om, cur);
	}
	if (!rc && cur && !strcmp(cur->type, "histogram"))
		rc = check_hist(d, cur, line);
	if (!rc && om && !eof)
		rc = fail(d, line, "no # EOF at the end");
	free(buf);
	return rc;
}

void mp_free(struct mp_doc *d)
{
	free(d->s);
	free(d->f);
	memset(d, 0, sizeof(*d));
}

const struct mp_family *mp_family(const struct mp_doc *d, const char *name)
{
	return family_find((struct mp_doc *)d, name);
}

static bool has_labels(const char *have, const char *want)
{
	char buf[512], *save = NULL;

	if (!want)
		return true;
	snprintf(buf, sizeof(buf), "%s", want);
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const char *p = strstr(have, t);

		if (!p || (p != have && p[-1] != ','))
			return false;
	}
	return true;
}

double mp_value(const struct mp_doc *d, const char *name, const char *labels, bool *found)
{
	for (size_t i = 0; i < d->ns; i++)
		if (!strcmp(d->s[i].name, name) && !d->s[i].le[0] &&
		    has_labels(d->s[i].labels, labels)) {
			*found = true;
			return d->s[i].v;
		}
	*found = false;
	return 0;
}

size_t mp_count(const struct mp_doc *d, const char *name)
{
	size_t n = 0;

	for (size_t i = 0; i < d->ns; i++)
		n += !strcmp(d->s[i].name, name);
	return n;
}
