/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl subsys (create, delete, list, show) and host (allow, deny,
 * show, allow-any): subsystems and who may connect to them, with the
 * hosts' DH-HMAC-CHAP secrets.
 */
#include "ctl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int subsys_create(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__SubsystemCreateRequest r = BLOX__ADMIN__SUBSYSTEM_CREATE_REQUEST__INIT;
	char **hosts = calloc((size_t)argc + 1, sizeof(*hosts));
	int rc = CTL_EX_USAGE;

	if (!hosts)
		return ADM_S_RESOURCE_EXHAUSTED;
	for (int i = 0; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--allow-any-host")) {
			r.allow_any_host = true;
		} else if (argv[i][0] == '-' && !v) {
			ctl_usage_err("subsys create: %s needs a value", argv[i]);
			goto out;
		} else if (!strcmp(argv[i], "--serial")) {
			r.serial = (char *)v, i++;
		} else if (!strcmp(argv[i], "--model")) {
			r.model = (char *)v, i++;
		} else if (!strcmp(argv[i], "--host")) {
			hosts[r.n_hosts++] = (char *)v, i++;
		} else if (argv[i][0] == '-' || r.nqn[0]) {
			ctl_usage_err("subsys create: unexpected '%s'", argv[i]);
			goto out;
		} else {
			r.nqn = argv[i];
		}
	}
	if (!r.nqn[0]) {
		ctl_usage_err("subsys create: NQN is required");
		goto out;
	}
	r.hosts = hosts;
	rc = ctl_call(c, "CreateSubsystem", &r.base, ctl_print_subsys);
out:
	free(hosts);
	return rc;
}

/* delete and show: NQN, and --force for delete. */
static int subsys_ref(struct ctl *c, int argc, char **argv, bool del)
{
	static const char *const force[] = { "--force", NULL };
	Blox__Admin__SubsystemRef r = BLOX__ADMIN__SUBSYSTEM_REF__INIT;
	char *pos[1];
	int n = ctl_positional(argc, argv, del ? force : NULL, pos, 1);

	if (n < 0)
		return CTL_EX_USAGE;
	if (n != 1)
		return ctl_usage_err("subsys %s: NQN is required", del ? "delete" : "show");
	r.nqn = pos[0];
	r.force = del && ctl_has_flag(argc, argv, "--force");
	return del ? ctl_call(c, "DeleteSubsystem", &r.base, ctl_print_ok)
		   : ctl_call(c, "ShowSubsystem", &r.base, ctl_print_subsys);
}

static int subsys_delete(struct ctl *c, int argc, char **argv)
{
	return subsys_ref(c, argc, argv, true);
}

static int subsys_show(struct ctl *c, int argc, char **argv)
{
	return subsys_ref(c, argc, argv, false);
}

static int subsys_list(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__Empty r = BLOX__ADMIN__EMPTY__INIT;

	(void)argv;
	if (argc)
		return ctl_usage_err("subsys list: no arguments");
	return ctl_call(c, "ListSubsystems", &r.base, ctl_print_subsys_list);
}

static const struct ctl_cmd subsys_cmds[] = {
	{ "create", "NQN [--serial S] [--model M] [--allow-any-host] [--host HOSTNQN]...",
	  "", subsys_create },
	{ "delete", "NQN [--force]", "--force disconnects its controllers", subsys_delete },
	{ "list", "", "", subsys_list },
	{ "show", "NQN", "", subsys_show },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_subsys = { "subsys", subsys_cmds };

/*
 * A secret given as "-": one line from standard input (kept off the
 * command line, where ps shows it) into @buf.
 */
static const char *secret_arg(const char *v, char *buf, size_t len)
{
	size_t n;

	if (strcmp(v, "-"))
		return v;
	if (!fgets(buf, (int)len, stdin))
		return NULL;
	n = strcspn(buf, "\r\n");
	buf[n] = '\0';
	return buf;
}

/*
 * allow: NQN HOSTNQN [--dhchap-key KEY] [--dhchap-ctrl-key KEY]
 * [--tls-psk KEY]; one KEY may be "-" (read from stdin).
 */
static int host_allow(struct ctl *c, int argc, char **argv)
{
	static const char *const opts[] = { "--dhchap-key", "--dhchap-ctrl-key", "--tls-psk" };
	Blox__Admin__HostRequest r = BLOX__ADMIN__HOST_REQUEST__INIT;
	char **field[] = { &r.dhchap_key, &r.dhchap_ctrl_key, &r.tls_psk };
	char line[256] = "";
	bool stdin_used = false;
	char *pos[2];
	int n = 0, rc;

	for (int i = 0; i < argc; i++) {
		size_t o = 0;

		while (o < 3 && strcmp(argv[i], opts[o]))
			o++;
		if (o < 3) {
			if (i + 1 >= argc)
				return ctl_usage_err("host allow: %s needs a key (or - for stdin)",
						     opts[o]);
			if (!strcmp(argv[++i], "-") && stdin_used)
				return ctl_usage_err("host allow: only one key can come from stdin");
			stdin_used |= !strcmp(argv[i], "-");
			*field[o] = (char *)secret_arg(argv[i], line, sizeof(line));
			if (!*field[o])
				return ctl_usage_err("host allow: %s -: no key on stdin", opts[o]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return ctl_usage_err("host allow: unknown option '%s'", argv[i]);
		} else if (n == 2) {
			return ctl_usage_err("host allow: unexpected '%s'", argv[i]);
		} else {
			pos[n++] = argv[i];
		}
	}
	if (n != 2)
		return ctl_usage_err("host allow: NQN and HOSTNQN are required");
	if (r.dhchap_ctrl_key[0] && !r.dhchap_key[0])
		return ctl_usage_err("host allow: --dhchap-ctrl-key needs --dhchap-key");
	r.nqn = pos[0];
	r.host_nqn = pos[1];
	rc = ctl_call(c, "AllowHost", &r.base, ctl_print_subsys);
	memset(line, 0, sizeof(line));
	return rc;
}

/* deny and show: NQN HOSTNQN. */
static int host_ref(struct ctl *c, int argc, char **argv, bool show)
{
	Blox__Admin__HostRequest r = BLOX__ADMIN__HOST_REQUEST__INIT;

	if (argc != 2)
		return ctl_usage_err("host %s: NQN and HOSTNQN are required",
				     show ? "show" : "deny");
	r.nqn = argv[0];
	r.host_nqn = argv[1];
	return show ? ctl_call(c, "ShowHost", &r.base, ctl_print_host)
		    : ctl_call(c, "DenyHost", &r.base, ctl_print_subsys);
}

static int host_deny(struct ctl *c, int argc, char **argv)
{
	return host_ref(c, argc, argv, false);
}

static int host_show(struct ctl *c, int argc, char **argv)
{
	return host_ref(c, argc, argv, true);
}

static int host_allow_any(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__AllowAnyHostRequest r = BLOX__ADMIN__ALLOW_ANY_HOST_REQUEST__INIT;

	if (argc != 2 || (strcmp(argv[1], "on") && strcmp(argv[1], "off")))
		return ctl_usage_err("host allow-any: NQN on|off");
	r.nqn = argv[0];
	r.allow = !strcmp(argv[1], "on");
	return ctl_call(c, "SetAllowAnyHost", &r.base, ctl_print_subsys);
}

static const struct ctl_cmd host_cmds[] = {
	{ "allow", "NQN HOSTNQN [--dhchap-key KEY] [--dhchap-ctrl-key KEY] [--tls-psk KEY]",
	  "DHHC-1 secrets, NVMeTLSkey-1 PSK (one KEY may be - for stdin); on an allowed host: replace them",
	  host_allow },
	{ "deny", "NQN HOSTNQN", "", host_deny },
	{ "show", "NQN HOSTNQN", "an allowed host and which secrets it has (never them)",
	  host_show },
	{ "allow-any", "NQN on|off", "any host, or only those allowed", host_allow_any },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_host = { "host", host_cmds };
