/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl ns: create (every namespace parameter of the config file as an
 * option), delete, list, show.
 */
#include "ctl.h"
#include "blox_parse.h"

#include <string.h>

int ctl_nand_option(const char *cmd, const char *o, const char *v, Blox__Admin__NandParams *nand,
		    bool *matched)
{
	const struct {
		const char *opt;
		uint32_t *u;
	} nums[] = {
		{ "--channels", &nand->channels },
		{ "--dies-per-channel", &nand->dies_per_channel },
		{ "--planes", &nand->planes_per_die },
		{ "--blocks-per-plane", &nand->blocks_per_plane },
		{ "--pages-per-block", &nand->pages_per_block },
		{ "--page-size", &nand->page_size },
		{ "--oob-size", &nand->oob_size },
		{ "--t-read-us", &nand->t_read_us },
		{ "--t-prog-us", &nand->t_prog_us },
		{ "--t-erase-us", &nand->t_erase_us },
		{ "--bus-mbps", &nand->bus_mbps },
		{ "--t-suspend-us", &nand->t_suspend_us },
		{ "--t-resume-us", &nand->t_resume_us },
		{ "--ecc-bits", &nand->ecc_bits },
		{ "--read-retries", &nand->read_retries },
		{ "--aging", &nand->aging },
		{ "--erase-fail-ppb", &nand->erase_fail_ppb },
		{ "--reliability-seed", &nand->reliability_seed },
		{ "--program-fail-ppb", &nand->program_fail_ppb },
		{ "--factory-bad-ppm", &nand->factory_bad_ppm },
	};
	const struct {
		const char *opt;
		char **s;
	} strs[] = { { "--cell", &nand->cell }, { "--suspend-policy", &nand->suspend_policy } };
	const struct {
		const char *opt;
		Blox__Admin__Toggle *t;
	} togs[] = { { "--null-timing", &nand->null_timing },
		     { "--multi-plane", &nand->multi_plane },
		     { "--reliability", &nand->reliability },
		     { "--huge-pages", &nand->huge_pages } };

	*matched = true;
	for (size_t k = 0; k < sizeof(nums) / sizeof(nums[0]); k++)
		if (!strcmp(o, nums[k].opt)) {
			if (cli_parse_u32(v, nums[k].u))
				return ctl_usage_err("%s: %s '%s' is not a number", cmd, o, v);
			/* 0 would read as "the default" in the API. */
			if (!*nums[k].u)
				return ctl_usage_err("%s: %s must be at least 1", cmd, o);
			return 0;
		}
	for (size_t k = 0; k < sizeof(strs) / sizeof(strs[0]); k++)
		if (!strcmp(o, strs[k].opt)) {
			*strs[k].s = (char *)v;
			return 0;
		}
	for (size_t k = 0; k < sizeof(togs) / sizeof(togs[0]); k++)
		if (!strcmp(o, togs[k].opt)) {
			if (strcmp(v, "on") && strcmp(v, "off"))
				return ctl_usage_err("%s: %s takes on or off", cmd, o);
			*togs[k].t = !strcmp(v, "on") ? BLOX__ADMIN__TOGGLE__TOGGLE_ON
						      : BLOX__ADMIN__TOGGLE__TOGGLE_OFF;
			return 0;
		}
	*matched = false;
	return 0;
}

static int ns_create(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__NamespaceCreateRequest r = BLOX__ADMIN__NAMESPACE_CREATE_REQUEST__INIT;
	Blox__Admin__NandParams nand = BLOX__ADMIN__NAND_PARAMS__INIT;
	Blox__Admin__FtlParams ftl = BLOX__ADMIN__FTL_PARAMS__INIT;
	Blox__Admin__QosParams qos = BLOX__ADMIN__QOS_PARAMS__INIT;
	Blox__Admin__ZnsParams zns = BLOX__ADMIN__ZNS_PARAMS__INIT;
	bool has_nand = false, has_ftl = false, has_size = false, has_qos = false, zoned = false;
	const struct {
		const char *opt;
		uint32_t *u;
	} qnums[] = {
		{ "--read-iops", &qos.read_iops },   { "--write-iops", &qos.write_iops },
		{ "--iops", &qos.iops },	     { "--read-mbps", &qos.read_mbps },
		{ "--write-mbps", &qos.write_mbps }, { "--mbps", &qos.mbps },
		{ "--burst-ms", &qos.burst_ms },     { "--weight", &qos.weight },
	};
	struct {
		const char *opt;
		uint32_t *u;
		bool ftl;
	} nums[] = {
		{ "--cmt-kib", &ftl.cmt_kib, true },
		{ "--mdc-bytes", &ftl.mdc_bytes, true },
		{ "--mdc-min-run", &ftl.mdc_min_run, true },
		{ "--op-percent", &ftl.op_percent, true },
		{ "--write-buffer-pages", &ftl.write_buffer_pages, true },
		{ "--wl-threshold", &ftl.wl_threshold, true },
		{ "--placement-handles", &ftl.placement_handles, true },
		{ "--plp-ms", &ftl.plp_ms, true },
		{ "--ru-time-limit-s", &ftl.ru_time_limit_s, true },
		{ "--block-size", &r.block_size, false },
	};
	struct {
		const char *opt;
		char **s;
		int kind; /* 0 ns, 1 nand, 2 ftl */
	} strs[] = {
		{ "--backend", &r.backend, 0 },	  { "--uuid", &r.uuid, 0 },
		{ "--device", &r.device, 0 },	  { "--isolation", &r.isolation, 0 },
		{ "--store", &ftl.store, 2 },	  { "--gc-policy", &ftl.gc_policy, 2 },
		{ "--ruh-type", &ftl.ruh_type, 2 },
	};
	struct {
		const char *opt;
		Blox__Admin__Toggle *t;
		bool ftl;
	} togs[] = {
		{ "--mdc", &ftl.mdc, true },
		{ "--stream-separation", &ftl.stream_separation, true },
		{ "--gc-pipeline", &ftl.gc_pipeline, true },
		{ "--plp-suspend", &ftl.plp_suspend, true },
	};

	if (argc < 1)
		return ctl_usage_err("ns create: NQN and --size are required");
	r.nqn = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool done = false;

		if (!strcmp(o, "--overcommit")) {
			r.overcommit = true;
			continue;
		}
		if (!strcmp(o, "--zoned")) {
			zoned = true;
			continue;
		}
		if (!v)
			return ctl_usage_err("ns create: %s needs a value", o);
		if (!strcmp(o, "--zone-size")) {
			const char *why;

			if (blox_parse_size_why(v, &zns.zone_size, &why))
				return ctl_usage_err("ns create: --zone-size '%s' %s", v, why);
			if (!zns.zone_size || (zns.zone_size & (zns.zone_size - 1)))
				return ctl_usage_err("ns create: --zone-size '%s' is not a power of two",
						     v);
			zoned = true;
			i++;
			continue;
		}
		if (!strcmp(o, "--max-open") || !strcmp(o, "--max-active")) {
			uint32_t *u = !strcmp(o, "--max-open") ? &zns.max_open : &zns.max_active;

			if (cli_parse_u32(v, u) || !*u)
				return ctl_usage_err("ns create: %s takes a number from 1", o);
			zoned = true;
			i++;
			continue;
		}
		if (!strcmp(o, "--ana-group")) {
			if (cli_parse_u32(v, &r.ana_group) || !r.ana_group ||
			    r.ana_group > CTL_ANAGRPMAX)
				return ctl_usage_err("ns create: --ana-group '%s': must be 1..%u", v,
						     CTL_ANAGRPMAX);
			i++;
			continue;
		}
		if (!strcmp(o, "--nsid")) {
			/* 0 on the wire means "the lowest free": never from the user. */
			if (cli_parse_u32(v, &r.nsid) || !r.nsid)
				return ctl_usage_err("ns create: --nsid '%s' is not a namespace "
						     "id (1 and up; leave --nsid out for the "
						     "lowest free one)",
						     v);
			done = true;
		} else if (!strcmp(o, "--size")) {
			const char *why;

			if (blox_parse_size_why(v, &r.size, &why))
				return ctl_usage_err("ns create: --size '%s' %s", v, why);
			has_size = done = true;
		}
		for (size_t k = 0; !done && k < sizeof(qnums) / sizeof(qnums[0]); k++)
			if (!strcmp(o, qnums[k].opt)) {
				if (ctl_qos_value("ns create", o, v, qnums[k].u))
					return CTL_EX_USAGE;
				if (!*qnums[k].u)
					return ctl_usage_err("ns create: %s takes a number from 1", o);
				has_qos = done = true;
			}
		if (!done) {
			int rc = ctl_nand_option("ns create", o, v, &nand, &done);

			if (rc)
				return rc;
			has_nand |= done;
		}
		for (size_t k = 0; !done && k < sizeof(nums) / sizeof(nums[0]); k++)
			if (!strcmp(o, nums[k].opt)) {
				if (cli_parse_u32(v, nums[k].u))
					return ctl_usage_err("ns create: %s '%s' is not a number", o, v);
				has_ftl |= nums[k].ftl;
				done = true;
			}
		for (size_t k = 0; !done && k < sizeof(strs) / sizeof(strs[0]); k++)
			if (!strcmp(o, strs[k].opt)) {
				*strs[k].s = (char *)v;
				has_ftl |= strs[k].kind == 2;
				done = true;
			}
		for (size_t k = 0; !done && k < sizeof(togs) / sizeof(togs[0]); k++)
			if (!strcmp(o, togs[k].opt)) {
				if (strcmp(v, "on") && strcmp(v, "off"))
					return ctl_usage_err("ns create: %s takes on or off", o);
				*togs[k].t = !strcmp(v, "on") ? BLOX__ADMIN__TOGGLE__TOGGLE_ON
							      : BLOX__ADMIN__TOGGLE__TOGGLE_OFF;
				has_ftl |= togs[k].ftl;
				done = true;
			}
		if (!done)
			return ctl_usage_err("ns create: unknown option '%s'", o);
		i++;
	}
	if (!has_size)
		return ctl_usage_err("ns create: --size is required");
	if (has_nand)
		r.nand = &nand;
	if (has_ftl)
		r.ftl = &ftl;
	if (has_qos)
		r.qos = &qos;
	if (zoned) {
		/* A zoned namespace: on NAND, without an FTL. */
		if (r.backend && r.backend[0] && strcmp(r.backend, "zns"))
			return ctl_usage_err("ns create: --zoned is backend zns, not '%s'", r.backend);
		if (has_ftl)
			return ctl_usage_err("ns create: a zoned namespace has no FTL options");
		r.backend = (char *)"zns";
		r.zns = &zns;
	}
	return ctl_call(c, "CreateNamespace", &r.base, ctl_print_ns);
}

/* delete, show and resv-clear: NQN NSID, and --force for delete. */
static int ns_ref(struct ctl *c, int argc, char **argv, const char *verb)
{
	static const char *const force[] = { "--force", NULL };
	Blox__Admin__NamespaceRef r = BLOX__ADMIN__NAMESPACE_REF__INIT;
	bool del = !strcmp(verb, "delete");
	char *pos[2];
	int n = ctl_positional(argc, argv, del ? force : NULL, pos, 2);

	if (n < 0)
		return CTL_EX_USAGE;
	if (n != 2)
		return ctl_usage_err("ns %s: NQN and NSID are required", verb);
	if (ctl_parse_nsid(pos[1], &r.nsid))
		return CTL_EX_USAGE;
	r.nqn = pos[0];
	r.force = del && ctl_has_flag(argc, argv, "--force");
	if (del)
		return ctl_call(c, "DeleteNamespace", &r.base, ctl_print_ok);
	if (!strcmp(verb, "resv-clear"))
		return ctl_call(c, "ClearReservations", &r.base, ctl_print_ns);
	return ctl_call(c, "ShowNamespace", &r.base, ctl_print_ns);
}

static int ns_delete(struct ctl *c, int argc, char **argv)
{
	return ns_ref(c, argc, argv, "delete");
}

static int ns_show(struct ctl *c, int argc, char **argv)
{
	return ns_ref(c, argc, argv, "show");
}

static int ns_resv_clear(struct ctl *c, int argc, char **argv)
{
	return ns_ref(c, argc, argv, "resv-clear");
}

static int ns_list(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__NamespaceListRequest r = BLOX__ADMIN__NAMESPACE_LIST_REQUEST__INIT;
	char *pos[1];
	int n = ctl_positional(argc, argv, NULL, pos, 1);

	if (n < 0)
		return CTL_EX_USAGE;
	r.nqn = n ? pos[0] : (char *)"";
	return ctl_call(c, "ListNamespaces", &r.base, ctl_print_ns_list);
}

static const struct ctl_cmd ns_cmds[] = {
	{ "create",
	  "NQN --size SIZE [--nsid N] [--backend nand|ram|null|nand-timing|zns]\n"
	  "[--block-size 512|4096] [--uuid U] [--ana-group N]  (1..128, default 1)\n"
	  "[--device NAME --isolation channel:N|chip:N|channel|chip|software]\n"
	  "[--overcommit]  make it even when its flash file does not fit the data\n"
	  "                directory's free space, or its RAM the host's (sparse)\n"
	  "QoS:  --read-iops --write-iops --iops --read-mbps --write-mbps --mbps\n"
	  "      --burst-ms --weight (as qos set)\n"
	  "NAND: --channels --dies-per-channel --planes --blocks-per-plane\n"
	  "      --pages-per-block --page-size --oob-size --cell --t-read-us\n"
	  "      --t-prog-us --t-erase-us --bus-mbps --t-suspend-us --t-resume-us\n"
	  "      --null-timing on|off --multi-plane on|off\n"
	  "      --suspend-policy default|never|always|smart\n"
	  "      --reliability on|off --ecc-bits --read-retries --aging --erase-fail-ppb\n"
	  "      --program-fail-ppb --reliability-seed (flash that wears, docs/FAULTS.md)\n"
	  "      --factory-bad-ppm N (blocks bad from the factory, per million; 0: none)\n"
	  "      --huge-pages on|off (the file store on 2 MiB pages: faster reads,\n"
	  "      slower first writes; docs/PERFORMANCE.md)\n"
	  "FTL:  --store file|ram --cmt-kib --mdc on|off --mdc-bytes --mdc-min-run\n"
	  "      --stream-separation on|off --op-percent --gc-policy greedy|cost-benefit\n"
	  "      --write-buffer-pages --wl-threshold --gc-pipeline on|off --plp-ms\n"
	  "      --plp-suspend on|off\n"
	  "FDP:  --placement-handles N --ruh-type persistent|initial --ru-time-limit-s S\n"
	  "Zoned (backend zns: NAND without an FTL, NVMe Zoned Namespace):\n"
	  "      --zoned [--zone-size SIZE (a power of two)] [--max-open N] [--max-active N]",
	  "", ns_create },
	{ "delete", "NQN NSID [--force]", "--force while hosts are connected", ns_delete },
	{ "list", "[NQN]", "", ns_list },
	{ "show", "NQN NSID", "", ns_show },
	{ "resv-clear", "NQN NSID",
	  "drop every reservation registration of the namespace (hosts are told)",
	  ns_resv_clear },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_ns = { "ns", ns_cmds };
