/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl: the operator's CLI for bloxd's admin API (proto/blox_admin.proto)
 * over its unix socket (or TLS). One request per run (a stream for stats
 * --watch); human output as aligned tables, --json for scripts; the exit
 * code is the answer's status code.
 *
 * This file: global options, the help text (built from the command
 * tables) and the dispatch of "OBJECT [VERB] ARGS..." to a table entry.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

static const struct ctl_object *const objects[] = {
	&ctl_obj_status, &ctl_obj_version, &ctl_obj_config, &ctl_obj_listener, &ctl_obj_referral,
	&ctl_obj_subsys, &ctl_obj_host,	   &ctl_obj_ns,	    &ctl_obj_stats,
	&ctl_obj_ctrl,	  &ctl_obj_device, &ctl_obj_migrate, &ctl_obj_qos,
	&ctl_obj_fault,
};

#define HELP_COL 40 /* what a command does starts here */

static const char help_head[] =
	"usage: bloxctl [-s SOCKET] [--json] [--timeout SEC] COMMAND ...\n\n";
static const char help_tail[] =
	"\n"
	"SIZE: bytes, or with K/M/G/T (powers of 1024, e.g. 512M, 4G, 1GiB).\n"
	"Options, anywhere on the line: -s/--socket PATH (default $BLOXCTL_SOCKET, else\n"
	"  " CTL_DEFAULT_SOCKET "),\n"
	"  --connect HOST:PORT --cert F --key F --ca F (TLS to bloxd --admin-tls instead;\n"
	"  bloxd's certificate must be of that CA and name HOST),\n"
	"  --json (machine output), --timeout SEC (default 10), -h/--help, -V/--version.\n"
	"Exit codes: 0 OK, 1 INVALID_ARGUMENT, 2 NOT_FOUND, 3 ALREADY_EXISTS,\n"
	"  4 FAILED_PRECONDITION, 5 RESOURCE_EXHAUSTED, 6 PERMISSION_DENIED,\n"
	"  7 UNAVAILABLE (also: bloxd not reachable), 8 INTERNAL, 9 CANCELLED, 64 usage.\n";

int ctl_usage_err(const char *fmt, ...)
{
	va_list ap;

	fputs("bloxctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see bloxctl --help)\n", stderr);
	return CTL_EX_USAGE;
}

bool ctl_has_flag(int argc, char **argv, const char *flag)
{
	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], flag))
			return true;
	return false;
}

int ctl_positional(int argc, char **argv, const char *const *flags, char **pos,
		   int max)
{
	int n = 0;

	for (int i = 0; i < argc; i++) {
		bool flag = false;

		for (const char *const *f = flags; f && *f; f++)
			flag |= !strcmp(argv[i], *f);
		if (flag)
			continue;
		if (argv[i][0] == '-' && argv[i][1])
			return ctl_usage_err("unknown option '%s'", argv[i]), -1;
		if (n == max)
			return ctl_usage_err("unexpected argument '%s'", argv[i]), -1;
		pos[n++] = argv[i];
	}
	return n;
}

int ctl_parse_nsid(const char *s, uint32_t *out)
{
	return cli_parse_u32(s, out) || *out == 0
		       ? ctl_usage_err("'%s' is not a namespace id", s)
		       : 0;
}

/* One command's help: "OBJECT VERB USAGE  HELP", continuation lines under it. */
static void print_cmd(FILE *f, const struct ctl_object *o, const struct ctl_cmd *cmd)
{
	const char *line = cmd->usage, *nl = strchr(line, '\n');
	int len = nl ? (int)(nl - line) : (int)strlen(line);
	int indent = 2 + (int)strlen(o->name) + 1 + (cmd->name ? (int)strlen(cmd->name) + 1 : 0);
	char left[512];

	snprintf(left, sizeof(left), "%s%s%s%s%.*s", o->name, cmd->name ? " " : "",
		 cmd->name ? cmd->name : "", len ? " " : "", len, line);
	if (!cmd->help[0])
		fprintf(f, "  %s\n", left);
	else if (strlen(left) < HELP_COL)
		fprintf(f, "  %-*s %s\n", HELP_COL, left, cmd->help);
	else
		fprintf(f, "  %s\n  %-*s %s\n", left, HELP_COL, "", cmd->help);
	while (nl) {
		line = nl + 1;
		nl = strchr(line, '\n');
		len = nl ? (int)(nl - line) : (int)strlen(line);
		fprintf(f, "%*s%.*s\n", indent, "", len, line);
	}
}

/* The commands of @only (every object when NULL), @verb's alone if given. */
static void print_cmds(FILE *f, const struct ctl_object *only, const struct ctl_cmd *verb)
{
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		if (only && objects[i] != only)
			continue;
		for (const struct ctl_cmd *cmd = objects[i]->cmds; cmd->exec; cmd++)
			if (!verb || cmd == verb)
				print_cmd(f, objects[i], cmd);
	}
}

static int sub_help(const struct ctl_object *o, const struct ctl_cmd *verb)
{
	printf("usage:\n");
	print_cmds(stdout, o, verb);
	return 0;
}

/* --help anywhere in a command's arguments. */
static bool wants_help(int argc, char **argv)
{
	return ctl_has_flag(argc, argv, "--help") || ctl_has_flag(argc, argv, "-h");
}

static const struct ctl_object *find_object(const char *name)
{
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (!strcmp(objects[i]->name, name))
			return objects[i];
	return NULL;
}

static const struct ctl_cmd *find_verb(const struct ctl_object *o, const char *verb)
{
	for (const struct ctl_cmd *cmd = o->cmds; cmd->exec; cmd++)
		if (!strcmp(cmd->name, verb))
			return cmd;
	return NULL;
}

/* "OBJECT: create, delete, list or show" */
static int verbs_err(const struct ctl_object *o)
{
	char list[256] = "";
	size_t off = 0;

	for (const struct ctl_cmd *cmd = o->cmds; cmd->exec; cmd++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
					cmd == o->cmds ? ""
					: cmd[1].exec  ? ", "
						       : " or ",
					cmd->name);
	return ctl_usage_err("%s: %s", o->name, list);
}

static int run_cmd(struct ctl *c, int argc, char **argv)
{
	const struct ctl_object *o = find_object(argv[0]);
	const struct ctl_cmd *cmd;

	if (!o)
		return ctl_usage_err("unknown command '%s'", argv[0]);
	argc--;
	argv++;
	if (!o->cmds[0].name) {
		/* The object alone is the command (status, stats, ...). */
		if (wants_help(argc, argv))
			return sub_help(o, NULL);
		return o->cmds[0].exec(c, argc, argv);
	}
	if (argc < 1)
		return verbs_err(o);
	cmd = find_verb(o, argv[0]);
	if (wants_help(argc, argv))
		return sub_help(o, cmd);
	if (!cmd)
		return ctl_usage_err("%s: unknown command '%s'", o->name, argv[0]);
	return cmd->exec(c, argc - 1, argv + 1);
}

/*
 * A global option at argv[*i] (consumed with its value), wherever it is on
 * the line: 1 if it was one, 0 if not, -1 after a usage error.
 */
const char *const ctl_global_value_opts[] = { "-s",    "--socket", "--connect", "--cert",
					       "--key", "--ca",	    "--timeout", NULL };
const char *const ctl_global_flags[] = { "--json", "-h", "--help", "-V", "--version", NULL };

static int global_opt(struct ctl *c, int argc, char **argv, int *i)
{
	const char *o = argv[*i];
	const char *v;
	size_t k;

	if (!strcmp(o, "--json")) {
		c->json = true;
		return 1;
	}
	for (k = 0; ctl_global_value_opts[k]; k++)
		if (!strcmp(o, ctl_global_value_opts[k]))
			break;
	if (!ctl_global_value_opts[k])
		return 0;
	if (*i + 1 >= argc) {
		ctl_usage_err("%s needs a value", o);
		return -1;
	}
	v = argv[++*i];
	if (!strcmp(o, "-s") || !strcmp(o, "--socket")) {
		c->sock = v;
	} else if (!strcmp(o, "--connect")) {
		c->connect = v;
	} else if (!strcmp(o, "--cert")) {
		c->cert = v;
	} else if (!strcmp(o, "--key")) {
		c->key = v;
	} else if (!strcmp(o, "--ca")) {
		c->ca = v;
	} else {
		uint32_t t;

		if (cli_parse_u32(v, &t) || t == 0 || t > 3600) {
			ctl_usage_err("--timeout: 1..3600 seconds");
			return -1;
		}
		c->timeout_ms = (int)t * 1000;
		c->timeout_given = true;
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct ctl c = { .timeout_ms = 10000, .fd = -1 };
	char **rest = calloc((size_t)argc + 1, sizeof(*rest));
	int n = 0, rc;

	if (argc > 1 && !strcmp(argv[1], "__complete")) {
		free(rest);
		return ctl_complete(objects, sizeof(objects) / sizeof(objects[0]), argc - 2,
				    argv + 2);
	}
	if (!rest)
		return ADM_S_RESOURCE_EXHAUSTED;
	c.sock = getenv("BLOXCTL_SOCKET") ? getenv("BLOXCTL_SOCKET") : CTL_DEFAULT_SOCKET;
	/* The global options anywhere on the line, as nvme-cli and git take theirs. */
	for (int i = 1; i < argc; i++) {
		int g = global_opt(&c, argc, argv, &i);

		if (g < 0) {
			free(rest);
			return CTL_EX_USAGE;
		}
		if (!g)
			rest[n++] = argv[i];
	}
	rc = 0;
	if (n && (!strcmp(rest[0], "-h") || !strcmp(rest[0], "--help"))) {
		fputs(help_head, stdout);
		print_cmds(stdout, NULL, NULL);
		fputs(help_tail, stdout);
	} else if (n && (!strcmp(rest[0], "-V") || !strcmp(rest[0], "--version"))) {
		printf("bloxctl %s\n", BLOX_VERSION);
	} else if (n && rest[0][0] == '-') {
		rc = ctl_usage_err("unknown or incomplete option '%s'", rest[0]);
	} else if (!n) {
		rc = ctl_usage_err("a command is required");
	} else if (!(c.buf = malloc(ADM_HDR_LEN + ADM_MAX_MSG + ADM_MAX_PAYLOAD))) {
		rc = ADM_S_RESOURCE_EXHAUSTED;
	} else {
		rc = run_cmd(&c, n, rest);
		ctl_close(&c);
		free(c.buf);
	}
	free(rest);
	return rc;
}
