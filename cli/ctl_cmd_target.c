/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl commands about the daemon and what runs in it: status,
 * version, config save, listener (add, remove, list, ana-state), ctrl list,
 * stats.
 */
#include "ctl.h"

#include <errno.h>
#include <string.h>

/* A command without arguments that sends an Empty. */
static int no_args(struct ctl *c, int argc, const char *what, const char *method,
		   ctl_print_fn print)
{
	Blox__Admin__Empty e = BLOX__ADMIN__EMPTY__INIT;

	if (argc)
		return ctl_usage_err("%s: no arguments", what);
	return ctl_call(c, method, &e.base, print);
}

static int status(struct ctl *c, int argc, char **argv)
{
	(void)argv;
	return no_args(c, argc, "status", "GetStatus", ctl_print_status);
}

static int version(struct ctl *c, int argc, char **argv)
{
	(void)argv;
	return no_args(c, argc, "version", "GetVersion", ctl_print_version);
}

static int config_save(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__SaveConfigRequest r = BLOX__ADMIN__SAVE_CONFIG_REQUEST__INIT;

	if (argc > 1)
		return ctl_usage_err("config: save [PATH]");
	if (argc == 1)
		r.path = argv[0];
	return ctl_call(c, "SaveConfig", &r.base, ctl_print_saved);
}

static const struct ctl_cmd status_cmds[] = {
	{ NULL, "", "daemon state", status },
	{ NULL, NULL, NULL, NULL },
};
static const struct ctl_cmd version_cmds[] = {
	{ NULL, "", "bloxd's and bloxctl's versions", version },
	{ NULL, NULL, NULL, NULL },
};
static const struct ctl_cmd config_cmds[] = {
	{ "save", "[PATH]", "write the state file (and PATH)", config_save },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_status = { "status", status_cmds };
const struct ctl_object ctl_obj_version = { "version", version_cmds };
const struct ctl_object ctl_obj_config = { "config", config_cmds };

/* ADDR:PORT or [V6ADDR]:PORT of command @obj @verb into @addr and *@port. */
static int addr_arg(const char *obj, const char *verb, const char *spec, char *addr,
		    size_t len, uint32_t *port)
{
	int rc = cli_parse_addr(spec, addr, len, port);

	if (rc == -ERANGE)
		return ctl_usage_err("%s %s: '%s': the port must be 1..65535", obj, verb, spec);
	if (rc)
		return ctl_usage_err("%s %s: '%s' is not ADDR:PORT or [V6ADDR]:PORT", obj, verb,
				     spec);
	return 0;
}

/* How long bloxctl waits for a forced listener remove (bloxd's bound is 30 s). */
#define CTL_LISTENER_FORCE_MS 35000

/* A word of a listener command that is none of its options: its ADDR:PORT, once. */
static int listener_word(char *w, char **pos)
{
	if (w[0] == '-' && w[1])
		return ctl_usage_err("unknown option '%s'", w);
	if (*pos)
		return ctl_usage_err("unexpected argument '%s'", w);
	*pos = w;
	return 0;
}

/*
 * add: ADDR:PORT [--discovery] [--tls MODE] [--ana-state GROUP=STATE]...
 * [--advertise ADDR];
 * remove: ADDR:PORT [--force]. Options anywhere on the line.
 */
static int listener_change(struct ctl *c, int argc, char **argv, bool add)
{
	const char *verb = add ? "add" : "remove";
	Blox__Admin__ListenerRequest r = BLOX__ADMIN__LISTENER_REQUEST__INIT;
	char addr[64], *pos = NULL, *ana[CTL_ANAGRPMAX];
	int rc;

	for (int i = 0; i < argc; i++) {
		const char *o = argv[i];

		if (!add && !strcmp(o, "--force")) {
			r.force = true;
		} else if (add && !strcmp(o, "--discovery")) {
			r.discovery_only = true;
		} else if (add && !strcmp(o, "--tls")) {
			if (i + 1 >= argc ||
			    (strcmp(argv[i + 1], "required") && strcmp(argv[i + 1], "allowed") &&
			     strcmp(argv[i + 1], "none")))
				return ctl_usage_err("listener add: --tls required|allowed|none");
			r.tls = argv[++i];
		} else if (add && !strcmp(o, "--ana-state")) {
			if (i + 1 >= argc || !strchr(argv[i + 1], '='))
				return ctl_usage_err("listener add: --ana-state GROUP=STATE "
						     "(e.g. 2=inaccessible)");
			if (r.n_ana_state == CTL_ANAGRPMAX)
				return ctl_usage_err("listener add: at most %u --ana-state",
						     CTL_ANAGRPMAX);
			ana[r.n_ana_state++] = argv[++i];
		} else if (add && !strcmp(o, "--advertise")) {
			if (i + 1 >= argc || !argv[i + 1][0])
				return ctl_usage_err("listener add: --advertise ADDR (the IPv4 or "
						     "IPv6 address hosts reach the listener by)");
			r.advertise = argv[++i];
		} else if ((rc = listener_word(argv[i], &pos))) {
			return rc;
		}
	}
	if (!pos)
		return ctl_usage_err("listener %s: ADDR:PORT or [V6ADDR]:PORT is required", verb);
	if ((rc = addr_arg("listener", verb, pos, addr, sizeof(addr), &r.port)))
		return rc;
	r.address = addr;
	r.ana_state = ana;
	/* bloxd waits up to 30 s for the queues to close: wait for its answer. */
	if (r.force && !c->timeout_given && c->timeout_ms < CTL_LISTENER_FORCE_MS)
		c->timeout_ms = CTL_LISTENER_FORCE_MS;
	return add ? ctl_call(c, "AddListener", &r.base, ctl_print_listener)
		   : ctl_call(c, "RemoveListener", &r.base, ctl_print_ok);
}

/* ana-state ADDR:PORT --group N --state STATE [--transition-ms N] */
static int listener_ana_state(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__AnaStateRequest r = BLOX__ADMIN__ANA_STATE_REQUEST__INIT;
	char addr[64], *pos = NULL;
	int rc;

	for (int i = 0; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--group") || !strcmp(o, "--state") || !strcmp(o, "--transition-ms")) {
			if (i + 1 >= argc)
				return ctl_usage_err("listener ana-state: %s needs a value", o);
			if (!strcmp(o, "--state")) {
				r.state = argv[++i];
			} else if (!strcmp(o, "--transition-ms")) {
				if (cli_parse_u32(argv[++i], &r.transition_ms))
					return ctl_usage_err("listener ana-state: --transition-ms '%s': "
							     "milliseconds expected",
							     argv[i]);
			} else if (cli_parse_u32(argv[++i], &r.group) || r.group == 0 ||
				   r.group > CTL_ANAGRPMAX) {
				return ctl_usage_err("listener ana-state: --group '%s': must be 1..%u",
						     argv[i], CTL_ANAGRPMAX);
			}
		} else if ((rc = listener_word(argv[i], &pos))) {
			return rc;
		}
	}
	if (!pos || !r.group || !r.state[0])
		return ctl_usage_err("listener ana-state: ADDR:PORT --group N --state STATE");
	if ((rc = addr_arg("listener", "ana-state", pos, addr, sizeof(addr), &r.port)))
		return rc;
	r.address = addr;
	return ctl_call(c, "SetAnaState", &r.base, ctl_print_listener);
}

static int listener_add(struct ctl *c, int argc, char **argv)
{
	return listener_change(c, argc, argv, true);
}

static int listener_remove(struct ctl *c, int argc, char **argv)
{
	return listener_change(c, argc, argv, false);
}

static int listener_list(struct ctl *c, int argc, char **argv)
{
	(void)argv;
	return no_args(c, argc, "listener list", "ListListeners", ctl_print_listeners);
}

static const struct ctl_cmd listener_cmds[] = {
	{ "add",
	  "ADDR:PORT [--discovery] [--tls required|allowed] [--ana-state GROUP=STATE]... "
	  "[--advertise ADDR]",
	  "([V6ADDR]:PORT for IPv6) TLS 1.3 with a PSK: only, or beside plain; ANA states "
	  "of groups from the start (others optimized); the address the discovery log gives "
	  "hosts (behind NAT, in a container or VM) instead of ADDR",
	  listener_add },
	{ "remove", "ADDR:PORT [--force]",
	  "--force: with hosts connected, stop accepting, close every queue that came in "
	  "through it (their controllers too) and answer once they are gone (at most 30 s)",
	  listener_remove },
	{ "list", "", "with the ANA state of each group and the advertised address",
	  listener_list },
	{ "ana-state", "ADDR:PORT --group N --state STATE [--transition-ms N]",
	  "STATE: optimized, non-optimized, inaccessible, persistent-loss, change; hosts told; "
	  "--transition-ms: through change first for N ms (at most ANATT, 10 s)",
	  listener_ana_state },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_listener = { "listener", listener_cmds };

/* referral add|remove ADDR:PORT */
static int referral_change(struct ctl *c, int argc, char **argv, bool add)
{
	const char *verb = add ? "add" : "remove";
	Blox__Admin__ReferralRequest r = BLOX__ADMIN__REFERRAL_REQUEST__INIT;
	char addr[64], *pos = NULL;
	int rc;

	for (int i = 0; i < argc; i++)
		if ((rc = listener_word(argv[i], &pos)))
			return rc;
	if (!pos)
		return ctl_usage_err("referral %s: ADDR:PORT or [V6ADDR]:PORT is required", verb);
	if ((rc = addr_arg("referral", verb, pos, addr, sizeof(addr), &r.port)))
		return rc;
	r.address = addr;
	return add ? ctl_call(c, "AddReferral", &r.base, ctl_print_referral)
		   : ctl_call(c, "RemoveReferral", &r.base, ctl_print_ok);
}

static int referral_add(struct ctl *c, int argc, char **argv)
{
	return referral_change(c, argc, argv, true);
}

static int referral_remove(struct ctl *c, int argc, char **argv)
{
	return referral_change(c, argc, argv, false);
}

static int referral_list(struct ctl *c, int argc, char **argv)
{
	(void)argv;
	return no_args(c, argc, "referral list", "ListReferrals", ctl_print_referrals);
}

static const struct ctl_cmd referral_cmds[] = {
	{ "add", "ADDR:PORT",
	  "refer hosts to the discovery service there: the discovery log lists it (subtype 1)",
	  referral_add },
	{ "remove", "ADDR:PORT", "", referral_remove },
	{ "list", "", "the referrals and the discovery log's generation counter", referral_list },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_referral = { "referral", referral_cmds };

static int ctrl_list(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__ControllerListRequest r = BLOX__ADMIN__CONTROLLER_LIST_REQUEST__INIT;

	if (argc > 1)
		return ctl_usage_err("ctrl: list [NQN]");
	r.nqn = argc == 1 ? argv[0] : (char *)"";
	return ctl_call(c, "ListControllers", &r.base, ctl_print_ctrls);
}

static const struct ctl_cmd ctrl_cmds[] = {
	{ "list", "[NQN]", "connected controllers and queues", ctrl_list },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_ctrl = { "ctrl", ctrl_cmds };

static int stats(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__StatsRequest r = BLOX__ADMIN__STATS_REQUEST__INIT;
	bool do_watch = false;
	char *pos[2];
	int n = 0;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--watch")) {
			do_watch = true;
		} else if (!strcmp(argv[i], "--interval") || !strcmp(argv[i], "--count")) {
			uint32_t v;

			if (i + 1 >= argc || cli_parse_u32(argv[i + 1], &v))
				return ctl_usage_err("stats: %s needs a number", argv[i]);
			if (argv[i][2] == 'i')
				r.interval_ms = v;
			else
				r.count = v;
			i++;
		} else if (argv[i][0] == '-') {
			return ctl_usage_err("stats: unknown option '%s'", argv[i]);
		} else if (n < 2) {
			pos[n++] = argv[i];
		} else {
			return ctl_usage_err("stats: unexpected '%s'", argv[i]);
		}
	}
	r.nqn = n ? pos[0] : (char *)"";
	if (n == 2 && ctl_parse_nsid(pos[1], &r.nsid))
		return CTL_EX_USAGE;
	return do_watch ? ctl_watch(c, &r) : ctl_call(c, "GetStats", &r.base, ctl_print_stats);
}

static const struct ctl_cmd stats_cmds[] = {
	{ NULL, "[NQN [NSID]] [--watch] [--interval MS] [--count N]", "", stats },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_stats = { "stats", stats_cmds };
