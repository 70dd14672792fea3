/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl device: create (the NAND geometry and timing options of ns
 * create), delete, list, show (the channel x die grid with the owner of
 * every die, wear and swaps).
 */
#include "ctl.h"

#include <string.h>

static int device_create(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__DeviceCreateRequest r = BLOX__ADMIN__DEVICE_CREATE_REQUEST__INIT;
	Blox__Admin__NandParams nand = BLOX__ADMIN__NAND_PARAMS__INIT;
	bool has_nand = false;

	if (argc < 1 || argv[0][0] == '-')
		return ctl_usage_err("device create: NAME is required");
	r.name = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool done = false;
		int rc;

		if (!v)
			return ctl_usage_err("device create: %s needs a value", o);
		if (!strcmp(o, "--store")) {
			r.store = (char *)v;
			done = true;
		} else if ((rc = ctl_nand_option("device create", o, v, &nand, &done))) {
			return rc;
		}
		if (!done)
			return ctl_usage_err("device create: unknown option '%s'", o);
		has_nand |= strcmp(o, "--store") != 0;
		i++;
	}
	if (has_nand)
		r.nand = &nand;
	return ctl_call(c, "CreateDevice", &r.base, ctl_print_device);
}

static int device_ref(struct ctl *c, int argc, char **argv, bool del)
{
	Blox__Admin__DeviceRef r = BLOX__ADMIN__DEVICE_REF__INIT;
	char *pos[1];
	int n = ctl_positional(argc, argv, NULL, pos, 1);

	if (n < 0)
		return CTL_EX_USAGE;
	if (n != 1)
		return ctl_usage_err("device %s: NAME is required", del ? "delete" : "show");
	r.name = pos[0];
	return del ? ctl_call(c, "DeleteDevice", &r.base, ctl_print_ok)
		   : ctl_call(c, "ShowDevice", &r.base, ctl_print_device);
}

static int device_delete(struct ctl *c, int argc, char **argv)
{
	return device_ref(c, argc, argv, true);
}

static int device_show(struct ctl *c, int argc, char **argv)
{
	return device_ref(c, argc, argv, false);
}

static int device_list(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__Empty r = BLOX__ADMIN__EMPTY__INIT;

	(void)argv;
	if (argc)
		return ctl_usage_err("device list: takes no arguments");
	return ctl_call(c, "ListDevices", &r.base, ctl_print_device_list);
}

static const struct ctl_cmd device_cmds[] = {
	{ "create",
	  "NAME [--store file|ram]\n"
	  "NAND: --channels --dies-per-channel --planes --blocks-per-plane\n"
	  "      --pages-per-block --page-size --oob-size --cell --t-read-us\n"
	  "      --t-prog-us --t-erase-us --bus-mbps --t-suspend-us --t-resume-us\n"
	  "      --null-timing on|off --multi-plane on|off\n"
	  "      --suspend-policy default|never|always",
	  "a NAND device that vSSDs (ns create --device) share", device_create },
	{ "delete", "NAME", "refused while vSSDs live on it", device_delete },
	{ "list", "", "", device_list },
	{ "show", "NAME", "the channel x die grid: owners, wear, swaps", device_show },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_device = { "device", device_cmds };
