/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shell completion: "bloxctl __complete INDEX WORD..." prints the
 * candidates for WORD number INDEX (0: the first word after "bloxctl"),
 * one a line, or "@files" when a file name goes there; the shell filters
 * them by what is typed (cli/bloxctl.bash). They come from the command
 * tables that --help prints, read from each command's usage text:
 *
 *   "--name"            an option; "--name]" (a bracket right after it)
 *                       is a flag, any other takes a value;
 *   "--name a|b|c"      the value is one of a, b, c (words with capitals,
 *                       like "channel:N", are placeholders, left out);
 *   "a|b" alone         a positional argument that is one of a, b, at
 *                       its place among the first line's positionals.
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOK_MAX 256 /* tokens of one usage text (ns create has about 140) */

struct utok {
	char text[64]; /* without brackets and trailing punctuation */
	bool option, flag; /* option: starts with "--"; flag: takes no value */
	bool first_line;
};

/* The usage text as tokens; their count. */
static size_t usage_tokens(const char *usage, struct utok *t, size_t max)
{
	size_t n = 0;
	bool first = true;

	for (const char *p = usage; *p && n < max;) {
		size_t len, end;
		const char *w;

		if (*p == '\n')
			first = false;
		if (*p == ' ' || *p == '\n') {
			p++;
			continue;
		}
		len = strcspn(p, " \n");
		w = p;
		p += len;
		while (len && (*w == '[' || *w == '(')) {
			w++;
			len--;
		}
		end = len;
		while (end && strchr("]),.", w[end - 1]))
			end--;
		if (!end || end >= sizeof(t[n].text))
			continue;
		memcpy(t[n].text, w, end);
		t[n].text[end] = '\0';
		t[n].option = !strncmp(t[n].text, "--", 2);
		t[n].flag = t[n].option && end < len && w[end] == ']';
		t[n].first_line = first;
		n++;
	}
	return n;
}

/* The words of a value list "a|b|c" that are not placeholders. */
static void print_choices(const char *list)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *save = NULL, *v = strtok_r(buf, "|", &save); v; v = strtok_r(NULL, "|", &save)) {
		bool placeholder = false;

		for (const char *c = v; *c; c++)
			placeholder |= *c >= 'A' && *c <= 'Z';
		if (!placeholder)
			printf("%s\n", v);
	}
}

static bool in_list(const char *const *list, const char *w)
{
	for (; *list; list++)
		if (!strcmp(*list, w))
			return true;
	return false;
}

static void print_list(const char *const *list)
{
	for (; *list; list++)
		printf("%s\n", *list);
}

/* The token of the option @w in @t, or NULL. */
static const struct utok *find_opt(const struct utok *t, size_t n, const char *w)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].option && !strcmp(t[i].text, w))
			return &t[i];
	return NULL;
}

/* What follows a command's verb: its options, their values, its positional choices. */
static int complete_args(const struct ctl_cmd *cmd, char **argv, int cur)
{
	struct utok *t = calloc(TOK_MAX, sizeof(*t));
	const char *pos_choices[16];
	size_t n, npos = 0;
	int have = 0; /* positionals typed before @cur */

	if (!t)
		return 1;
	n = usage_tokens(cmd->usage, t, TOK_MAX);
	/* The first line's positionals, in order: words that no option takes. */
	for (size_t i = 0; i < n && npos < 16; i++) {
		if (!t[i].first_line || t[i].option || !strcmp(t[i].text, "|"))
			continue;
		if (i && t[i - 1].option && !t[i - 1].flag)
			continue;
		pos_choices[npos++] = strchr(t[i].text, '|') ? t[i].text : NULL;
	}
	for (int i = 0; i < cur; i++) {
		const struct utok *o;

		if (in_list(ctl_global_value_opts, argv[i])) {
			i++;
		} else if (argv[i][0] == '-') {
			o = find_opt(t, n, argv[i]);
			if (o && !o->flag)
				i++;
		} else {
			have++;
		}
	}
	if (cur > 0) {
		const struct utok *o = find_opt(t, n, argv[cur - 1]);

		if (o && !o->flag) {
			/*
			 * The option's value: the choices the usage lists, at each
			 * place it shows the option ("--op read|write ... | --op
			 * admin"); placeholders (N, NAME) are not offered.
			 */
			for (; o < t + n; o++)
				if (o->option && !strcmp(o->text, argv[cur - 1]) && o + 1 < t + n &&
				    !o[1].option)
					print_choices(o[1].text);
			free(t);
			return 0;
		}
	}
	if (argv[cur][0] == '-') {
		for (size_t i = 0; i < n; i++)
			if (t[i].option)
				printf("%s\n", t[i].text);
		print_list(ctl_global_value_opts);
		print_list(ctl_global_flags);
	} else if ((size_t)have < npos && pos_choices[have]) {
		print_choices(pos_choices[have]);
	}
	free(t);
	return 0;
}

int ctl_complete(const struct ctl_object *const *objs, size_t nobj, int argc, char **argv)
{
	const struct ctl_object *o = NULL;
	const struct ctl_cmd *cmd = NULL;
	uint32_t cur;
	int first = -1; /* where the command's own arguments start */

	if (argc < 1 || cli_parse_u32(argv[0], &cur) || cur >= (uint32_t)argc - 1)
		return CTL_EX_USAGE;
	argc--;
	argv++;
	/* The value of a global option. */
	if (cur > 0 && in_list(ctl_global_value_opts, argv[cur - 1])) {
		const char *p = argv[cur - 1];

		if (strcmp(p, "--connect") && strcmp(p, "--timeout"))
			printf("@files\n");
		return 0;
	}
	/* The object and the verb: the first words that are not global options. */
	for (int i = 0; i < (int)cur && first < 0; i++) {
		if (in_list(ctl_global_value_opts, argv[i])) {
			i++;
		} else if (argv[i][0] == '-') {
			continue;
		} else if (!o) {
			for (size_t k = 0; k < nobj && !o; k++)
				if (!strcmp(objs[k]->name, argv[i]))
					o = objs[k];
			if (!o)
				return 0; /* not a command: nothing to offer */
			if (!o->cmds[0].name) {
				cmd = o->cmds;
				first = i + 1;
			}
		} else {
			for (const struct ctl_cmd *c = o->cmds; c->exec && !cmd; c++)
				if (!strcmp(c->name, argv[i]))
					cmd = c;
			if (!cmd)
				return 0;
			first = i + 1;
		}
	}
	if (cmd)
		return complete_args(cmd, argv + first, (int)cur - first);
	if (argv[cur][0] == '-') {
		print_list(ctl_global_value_opts);
		print_list(ctl_global_flags);
	} else if (!o) {
		for (size_t k = 0; k < nobj; k++)
			printf("%s\n", objs[k]->name);
	} else {
		for (const struct ctl_cmd *c = o->cmds; c->exec; c++)
			printf("%s\n", c->name);
	}
	return 0;
}
