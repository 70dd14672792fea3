/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The options of blox-sim's experiments (blox-sim NAME [options]): each
 * declares a table of struct sim_opt, what each option sets and how its
 * value is read, and sim_opts_parse() walks argv against it. What an
 * experiment checks across options stays with the experiment.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/*
 * Option argv[*@i] takes the value *@v and *@i moves onto it; false for
 * --help or -h, after @usage(); dies without a value ("... needs a value"
 * and @hint).
 */
static bool opt_value(int argc, char **argv, int *i, void (*usage)(void), const char *hint,
		      const char **v)
{
	const char *k = argv[*i];

	*v = *i + 1 < argc ? argv[*i + 1] : NULL;
	if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
		usage();
		return false;
	}
	if (!*v)
		sim_die("%s needs a value%s", k, hint);
	(*i)++;
	return true;
}

static double opt_double(const struct sim_opt *o, const char *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(v, &end);
	if (errno || *end || end == v)
		sim_die("%s: %s is not a number", o->name, v);
	if (o->type == SIM_OT_POS && !(x > 0))
		sim_die("%s must be positive, got %s", o->name, v);
	if (o->type == SIM_OT_DBL && isinf(o->hi) && !(x >= o->lo))
		sim_die("%s must be >= %g, got %s", o->name, o->lo, v);
	if (o->type == SIM_OT_DBL && !(x >= o->lo && x <= o->hi))
		sim_die("%s: expected %g..%g, got %s", o->name, o->lo, o->hi, v);
	return x;
}

/* An integer of @o's range, whole, in C's notation (0x.. too). */
static unsigned long long opt_uint(const char *name, const char *v, double lo, double hi)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || *end || end == v || v[0] == '-' || (double)x < lo || (double)x > hi)
		sim_die("%s: expected %.0f..%.0f, got %s", name, lo, hi, v);
	return x;
}

static int opt_choice(const struct sim_opt *o, const char *v)
{
	char names[256];
	size_t len = 0;

	for (const struct sim_choice *c = o->choices; c->name; c++)
		if (!strcmp(c->name, v))
			return c->value;
	names[0] = 0;
	for (const struct sim_choice *c = o->choices; c->name && len < sizeof(names); c++)
		len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s",
					c == o->choices ? "" : ", ", c->name);
	sim_die("%s: one of %s, got %s", o->name, names, v);
	return 0;
}

/* A comma-separated list: numbers (SIM_OT_U32S) or choices (SIM_OT_FLAGS); dies if empty. */
static void opt_list(const struct sim_opt *o, const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	if (!copy)
		sim_die("out of memory");
	if (o->type == SIM_OT_U32S)
		*o->n = 0;
	else
		*o->u32 = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->type == SIM_OT_FLAGS) {
			*o->u32 |= (uint32_t)opt_choice(o, tok);
			continue;
		}
		if (*o->n == o->max)
			sim_die("%s: at most %u values", o->name, o->max);
		o->u32[(*o->n)++] = (uint32_t)opt_uint(o->name, tok, o->lo, o->hi);
	}
	free(copy);
	if (o->type == SIM_OT_U32S ? !*o->n : !*o->u32)
		sim_die("%s needs a value", o->name);
}

static void opt_set(const struct sim_opt *o, const char *v)
{
	switch (o->type) {
	case SIM_OT_U32:
		*o->u32 = (uint32_t)opt_uint(o->name, v, o->lo, o->hi);
		break;
	case SIM_OT_INT:
		*o->i = (int)opt_uint(o->name, v, o->lo, o->hi);
		break;
	case SIM_OT_U64:
		*o->u64 = opt_uint(o->name, v, o->lo, o->hi);
		break;
	case SIM_OT_POS:
	case SIM_OT_DBL:
		*o->dbl = opt_double(o, v);
		break;
	case SIM_OT_STR:
		*o->str = v;
		break;
	case SIM_OT_ONOFF:
		if (strcmp(v, "on") && strcmp(v, "off"))
			sim_die("%s: on or off, got %s", o->name, v);
		*o->flag = !strcmp(v, "on");
		break;
	case SIM_OT_CHOICE:
		*o->i = opt_choice(o, v);
		break;
	case SIM_OT_U32S:
	case SIM_OT_FLAGS:
		opt_list(o, v);
		break;
	case SIM_OT_FN:
		o->fn(o->ctx, o->name, v);
		break;
	}
}

bool sim_opts_parse(const char *exp, void (*usage)(void), const struct sim_opt *opts, int argc,
		    char **argv)
{
	char hint[64];

	snprintf(hint, sizeof(hint), " (%s%s--help)", exp ? exp : "", exp ? " " : "");
	/* argv[1] is the experiment's name, when it is not an option. */
	for (int i = argc > 1 && argv[1][0] != '-' ? 2 : 1; i < argc; i++) {
		const char *k = argv[i], *v;
		const struct sim_opt *o;

		if (!opt_value(argc, argv, &i, usage, hint, &v))
			return false;
		for (o = opts; o->name && strcmp(o->name, k); o++)
			;
		if (!o->name)
			sim_die("unknown option %s%s", k, hint);
		opt_set(o, v);
	}
	return true;
}
