/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl fault: faults on demand. power-cut: a namespace's drive loses
 * power and comes back (docs/FAULTS.md).
 */
#include "ctl.h"

#include <stdio.h>

static void print_power_cut(const ProtobufCMessage *m)
{
	const Blox__Admin__PowerCutReply *r = (const void *)m;

	printf("%s namespace %u: power cut\n", r->nqn, r->nsid);
	printf("  controllers dropped    %u\n", r->controllers_dropped);
	printf("  flash ops dropped      %lu\n", (unsigned long)r->flash_ops_dropped);
	printf("  programs torn          %u\n", r->programs_torn);
	printf("  commands failed        %u\n", r->commands_failed);
	printf("  rebuilt from flash     %.1f ms, %lu units from the OOB scan\n", r->rebuild_ms,
	       (unsigned long)r->recovered_units);
	printf("  superblocks retired    %u\n", r->superblocks_retired);
	printf("  unsafe shutdowns       %lu\n", (unsigned long)r->unsafe_shutdowns);
}

static int fault_power_cut(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__PowerCutRequest r = BLOX__ADMIN__POWER_CUT_REQUEST__INIT;
	char *pos[2];
	int n = ctl_positional(argc, argv, NULL, pos, 2);

	if (n < 0)
		return CTL_EX_USAGE;
	if (n != 2)
		return ctl_usage_err("fault power-cut: NQN and NSID are required");
	r.nqn = pos[0];
	if (ctl_parse_nsid(pos[1], &r.nsid))
		return CTL_EX_USAGE;
	return ctl_call(c, "PowerCut", &r.base, print_power_cut);
}

static const struct ctl_cmd fault_cmds[] = {
	{ "power-cut", "NQN NSID",
	  "the namespace's drive loses power and comes back: hosts reconnect", fault_power_cut },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_fault = { "fault", fault_cmds };
