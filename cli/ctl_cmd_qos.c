/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl qos: set a namespace's limits and weight (at once, persisted),
 * show them with what they did.
 */
#include "ctl.h"
#include "adm_limits.h"
#include "blox_parse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Each QoS option's most (bloxd's check: adm_limits.h) and its unit. */
static const struct {
	const char *opt;
	uint32_t max;
	const char *unit;
} qos_max[] = {
	{ "--read-iops", ADM_QOS_MAX_IOPS, " IOPS" },
	{ "--write-iops", ADM_QOS_MAX_IOPS, " IOPS" },
	{ "--iops", ADM_QOS_MAX_IOPS, " IOPS" },
	{ "--read-mbps", ADM_QOS_MAX_MBPS, " MB/s" },
	{ "--write-mbps", ADM_QOS_MAX_MBPS, " MB/s" },
	{ "--mbps", ADM_QOS_MAX_MBPS, " MB/s" },
	{ "--burst-ms", ADM_QOS_MAX_BURST_MS, " ms" },
	{ "--weight", ADM_QOS_MAX_WEIGHT, "" },
};

int ctl_qos_value(const char *cmd, const char *opt, const char *v, uint32_t *out)
{
	uint64_t n;
	int rc = blox_parse_count(v, UINT32_MAX, &n);

	/*
	 * A number the request cannot carry is over any limit: say which.
	 * The rest goes to bloxd, which checks the same limits.
	 */
	if (rc == -ERANGE) {
		for (size_t k = 0; k < sizeof(qos_max) / sizeof(qos_max[0]); k++)
			if (!strcmp(opt, qos_max[k].opt))
				return ctl_usage_err("%s: %s %s is over the limit: at most %lu%s",
						     cmd, opt, v, (unsigned long)qos_max[k].max,
						     qos_max[k].unit);
		return ctl_usage_err("%s: %s %s is over the limit", cmd, opt, v);
	}
	if (rc)
		return ctl_usage_err("%s: %s '%s' is not a number", cmd, opt, v);
	*out = (uint32_t)n;
	return 0;
}

static int qos_set(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__QosSetRequest r = BLOX__ADMIN__QOS_SET_REQUEST__INIT;
	Blox__Admin__QosParams q = BLOX__ADMIN__QOS_PARAMS__INIT;
	const struct {
		const char *opt, *field;
		uint32_t *u;
	} opts[] = {
		{ "--read-iops", "read_iops", &q.read_iops },
		{ "--write-iops", "write_iops", &q.write_iops },
		{ "--iops", "iops", &q.iops },
		{ "--read-mbps", "read_mbps", &q.read_mbps },
		{ "--write-mbps", "write_mbps", &q.write_mbps },
		{ "--mbps", "mbps", &q.mbps },
		{ "--burst-ms", "burst_ms", &q.burst_ms },
		{ "--weight", "weight", &q.weight },
	};
	char *unset[8];
	char *pos[2];
	int npos = 0, changes = 0;

	for (int i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		size_t k;

		if (o[0] != '-') {
			if (npos == 2)
				return ctl_usage_err("qos set: unexpected '%s'", o);
			pos[npos++] = argv[i];
			continue;
		}
		for (k = 0; k < sizeof(opts) / sizeof(opts[0]); k++)
			if (!strcmp(o, opts[k].opt))
				break;
		if (k == sizeof(opts) / sizeof(opts[0]))
			return ctl_usage_err("qos set: unknown option '%s'", o);
		if (!v)
			return ctl_usage_err("qos set: %s needs a value", o);
		/* 0, off or none: that limit goes. */
		if (!strcmp(v, "0") || !strcmp(v, "off") || !strcmp(v, "none")) {
			unset[r.n_unset++] = (char *)opts[k].field;
		} else if (ctl_qos_value("qos set", o, v, opts[k].u)) {
			return CTL_EX_USAGE;
		}
		changes++;
		i++;
	}
	if (npos != 2)
		return ctl_usage_err("qos set: NQN and NSID are required");
	if (!changes)
		return ctl_usage_err("qos set: give a limit (--read-iops, --write-iops, --iops, "
				     "--read-mbps, --write-mbps, --mbps), --burst-ms or --weight");
	r.nqn = pos[0];
	if (ctl_parse_nsid(pos[1], &r.nsid))
		return CTL_EX_USAGE;
	r.qos = &q;
	r.unset = unset;
	return ctl_call(c, "QosSet", &r.base, ctl_print_qos);
}

static int qos_show(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__QosRef r = BLOX__ADMIN__QOS_REF__INIT;
	char *pos[2];
	int n = ctl_positional(argc, argv, NULL, pos, 2);

	if (n < 0)
		return CTL_EX_USAGE;
	r.nqn = n ? pos[0] : (char *)"";
	if (n == 2 && ctl_parse_nsid(pos[1], &r.nsid))
		return CTL_EX_USAGE;
	return ctl_call(c, "QosShow", &r.base, ctl_print_qos_list);
}

static const struct ctl_cmd qos_cmds[] = {
	{ "set",
	  "NQN NSID [--read-iops N] [--write-iops N] [--iops N] [--read-mbps N]\n"
	  "[--write-mbps N] [--mbps N] [--burst-ms N] [--weight N]",
	  "limits at once and kept; 0 or off: no limit", qos_set },
	{ "show", "[NQN [NSID]]", "limits and what they held back", qos_show },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_qos = { "qos", qos_cmds };
