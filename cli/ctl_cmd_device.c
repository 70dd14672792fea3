/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl device: create (the NAND geometry and timing options of ns
 * create), delete, list, show (the channel x die grid with the owner of
 * every die, wear and swaps).
 */
#include "ctl.h"

#include <stdio.h>

#include <string.h>

static int device_create(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__DeviceCreateRequest r = BLOX__ADMIN__DEVICE_CREATE_REQUEST__INIT;
	Blox__Admin__NandParams nand = BLOX__ADMIN__NAND_PARAMS__INIT;
	Blox__Admin__FlashBloxParams fbx = BLOX__ADMIN__FLASH_BLOX_PARAMS__INIT;
	const struct {
		const char *opt;
		uint32_t *u;
	} fnums[] = { { "--bound-permille", &fbx.bound_permille },
		      { "--rated-pe", &fbx.rated_pe },
		      { "--swap-check-erases", &fbx.swap_check_erases },
		      { "--pool-channels", &fbx.pool_channels },
		      { "--swap-share", &fbx.swap_share } };
	const struct {
		const char *opt;
		Blox__Admin__Toggle *t;
	} toggles[] = { { "--auto-swap", &fbx.auto_swap },
			{ "--spare-channel", &fbx.spare_channel } };
	bool has_nand = false, has_fbx = false;

	if (argc < 1 || argv[0][0] == '-')
		return ctl_usage_err("device create: NAME is required");
	r.name = argv[0];
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		bool done = false;
		int rc;

		if (!strcmp(o, "--overcommit")) {
			r.overcommit = true;
			continue;
		}
		if (!v)
			return ctl_usage_err("device create: %s needs a value", o);
		if (!strcmp(o, "--store")) {
			r.store = (char *)v;
			i++;
			continue;
		}
		if (!strcmp(o, "--reactor")) {
			uint32_t k;

			if (cli_parse_u32(v, &k) || k >= 16)
				return ctl_usage_err("device create: --reactor takes a reactor "
						     "index, 0 to 15 (under bloxd's --reactors)");
			r.reactor = k + 1;
			i++;
			continue;
		}
		for (size_t k = 0; k < sizeof(toggles) / sizeof(toggles[0]) && !done; k++)
			if (!strcmp(o, toggles[k].opt)) {
				if (strcmp(v, "on") && strcmp(v, "off"))
					return ctl_usage_err("device create: %s takes on or off", o);
				*toggles[k].t = !strcmp(v, "on") ? BLOX__ADMIN__TOGGLE__TOGGLE_ON
								 : BLOX__ADMIN__TOGGLE__TOGGLE_OFF;
				has_fbx = done = true;
			}
		if (done) {
			i++;
			continue;
		}
		for (size_t k = 0; k < sizeof(fnums) / sizeof(fnums[0]) && !done; k++)
			if (!strcmp(o, fnums[k].opt)) {
				if (cli_parse_u32(v, fnums[k].u) || !*fnums[k].u)
					return ctl_usage_err("device create: %s takes a number from 1",
							     o);
				has_fbx = done = true;
			}
		if (!done) {
			if ((rc = ctl_nand_option("device create", o, v, &nand, &done)))
				return rc;
			has_nand |= done;
		}
		if (!done)
			return ctl_usage_err("device create: unknown option '%s'", o);
		i++;
	}
	if (has_nand)
		r.nand = &nand;
	if (has_fbx)
		r.flashblox = &fbx;
	return ctl_call(c, "CreateDevice", &r.base, ctl_print_device);
}

static int device_ref(struct ctl *c, int argc, char **argv, bool del)
{
	static const char *const keep[] = { "--keep-store", NULL };
	Blox__Admin__DeviceRef r = BLOX__ADMIN__DEVICE_REF__INIT;
	char *pos[1];
	int n = ctl_positional(argc, argv, del ? keep : NULL, pos, 1), rc;

	if (n < 0)
		return CTL_EX_USAGE;
	if (n != 1)
		return ctl_usage_err("device %s: NAME is required", del ? "delete" : "show");
	r.name = pos[0];
	if (!del)
		return ctl_call(c, "ShowDevice", &r.base, ctl_print_device);
	r.keep_store = ctl_has_flag(argc, argv, "--keep-store");
	rc = ctl_call(c, "DeleteDevice", &r.base, ctl_print_ok);
	/* What became of its flash, as bloxd did it. */
	if (!rc && !c->json && r.keep_store)
		printf("device %s deleted; its store file is kept (dev-%s.nand and dev-%s.vssd.json "
		       "in bloxd's data directory): a device create %s with the same options takes "
		       "its flash back, other options are refused until the file is removed\n",
		       r.name, r.name, r.name, r.name);
	else if (!rc && !c->json)
		printf("device %s deleted with its store file\n", r.name);
	return rc;
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
	  "NAME [--store file|ram] [--overcommit (as ns create)] [--reactor N]\n"
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
	  "wear: --bound-permille X (bound 1 + X/1000) --rated-pe N --swap-check-erases N\n"
	  "      --pool-channels N --auto-swap on|off --swap-share PERMILLE\n"
	  "      --spare-channel on|off (keep a whole channel free for swaps)",
	  "a NAND device that vSSDs (ns create --device) share", device_create },
	{ "delete", "NAME [--keep-store]",
	  "refused while vSSDs live on it; its store file goes too unless --keep-store",
	  device_delete },
	{ "list", "", "", device_list },
	{ "show", "NAME", "the channel x die grid: owners, wear, swaps", device_show },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_device = { "device", device_cmds };

/* ---- bloxctl migrate ---- */

/* "3,4" or "3 4"-style lists of numbers into @out (at most @max). Their count, or -1. */
static int num_list(const char *s, uint32_t *out, size_t max)
{
	char buf[512], *save = NULL, *tok;
	size_t n = 0;

	if (strlen(s) >= sizeof(buf))
		return -1;
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == max || cli_parse_u32(tok, &out[n]))
			return -1;
		n++;
	}
	return n ? (int)n : -1;
}

static int migrate_start(struct ctl *c, int argc, char **argv)
{
	Blox__Admin__MigrateStartRequest r = BLOX__ADMIN__MIGRATE_START_REQUEST__INIT;
	uint32_t ch[64], chips[64];
	char *pos[2];
	int npos = 0;

	for (int i = 0; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int n;

		if (o[0] != '-') {
			if (npos == 2)
				return ctl_usage_err("migrate start: unexpected '%s'", o);
			pos[npos++] = argv[i];
			continue;
		}
		if (!v)
			return ctl_usage_err("migrate start: %s needs a value", o);
		if (!strcmp(o, "--to-channels") || !strcmp(o, "--to-chips")) {
			bool chn = !strcmp(o, "--to-channels");

			n = num_list(v, chn ? ch : chips, 64);
			if (n < 0)
				return ctl_usage_err("migrate start: %s takes numbers like 3,4", o);
			if (chn) {
				r.to_channels = ch;
				r.n_to_channels = (size_t)n;
			} else {
				r.to_chips = chips;
				r.n_to_chips = (size_t)n;
			}
		} else if (!strcmp(o, "--share")) {
			if (cli_parse_u32(v, &r.share) || r.share < 1 || r.share > 1000)
				return ctl_usage_err("migrate start: --share takes 1..1000 (permille)");
		} else {
			return ctl_usage_err("migrate start: unknown option '%s'", o);
		}
		i++;
	}
	if (npos != 2)
		return ctl_usage_err("migrate start: NQN and NSID are required");
	if (!r.n_to_channels == !r.n_to_chips)
		return ctl_usage_err("migrate start: give --to-channels or --to-chips");
	r.nqn = pos[0];
	if (ctl_parse_nsid(pos[1], &r.nsid))
		return CTL_EX_USAGE;
	return ctl_call(c, "MigrationStart", &r.base, ctl_print_migration);
}

static int migrate_status(struct ctl *c, int argc, char **argv)
{
	static const char *const flags[] = { "--watch", "--interval", NULL };
	Blox__Admin__MigrationWatchRequest w = BLOX__ADMIN__MIGRATION_WATCH_REQUEST__INIT;
	Blox__Admin__MigrationRef r = BLOX__ADMIN__MIGRATION_REF__INIT;
	char *pos[1];
	int n;

	for (int i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--interval")) {
			if (i + 1 >= argc || cli_parse_u32(argv[i + 1], &w.interval_ms) ||
			    w.interval_ms < 100)
				return ctl_usage_err("migrate status: --interval takes 100.. ms");
			/* Its value is not a positional argument. */
			argv[i + 1] = (char *)"--watch";
		}
	n = ctl_positional(argc, argv, flags, pos, 1);
	if (n < 0)
		return CTL_EX_USAGE;
	if (n && (cli_parse_u32(pos[0], &r.id) || !r.id))
		return ctl_usage_err("migrate status: '%s' is not a migration id", pos[0]);
	if (ctl_has_flag(argc, argv, "--watch")) {
		w.id = r.id;
		return ctl_stream(c, "WatchMigrations", &w.base, w.interval_ms,
				  ctl_print_migrations);
	}
	return ctl_call(c, "MigrationStatus", &r.base, ctl_print_migrations);
}

static int migrate_ctl(struct ctl *c, int argc, char **argv, const char *verb,
		       const char *method)
{
	Blox__Admin__MigrationRef r = BLOX__ADMIN__MIGRATION_REF__INIT;
	char *pos[2];
	int want = strcmp(verb, "share") ? 1 : 2;
	int n = ctl_positional(argc, argv, NULL, pos, 2);

	if (n < 0)
		return CTL_EX_USAGE;
	if (n != want)
		return ctl_usage_err("migrate %s: %s", verb,
				     want == 1 ? "ID is required" : "ID and PERMILLE are required");
	if (cli_parse_u32(pos[0], &r.id) || !r.id)
		return ctl_usage_err("migrate %s: '%s' is not a migration id", verb, pos[0]);
	if (want == 2 && (cli_parse_u32(pos[1], &r.share) || r.share < 1 || r.share > 1000))
		return ctl_usage_err("migrate share: 1..1000 permille, not '%s'", pos[1]);
	return ctl_call(c, method, &r.base, ctl_print_migration);
}

static int migrate_pause(struct ctl *c, int argc, char **argv)
{
	return migrate_ctl(c, argc, argv, "pause", "MigrationPause");
}

static int migrate_resume(struct ctl *c, int argc, char **argv)
{
	return migrate_ctl(c, argc, argv, "resume", "MigrationResume");
}

static int migrate_cancel(struct ctl *c, int argc, char **argv)
{
	return migrate_ctl(c, argc, argv, "cancel", "MigrationCancel");
}

static int migrate_share(struct ctl *c, int argc, char **argv)
{
	return migrate_ctl(c, argc, argv, "share", "MigrationSetShare");
}

static const struct ctl_cmd migrate_cmds[] = {
	{ "start", "NQN NSID --to-channels LIST | --to-chips LIST [--share PERMILLE]",
	  "move a vSSD to other channels or dies while it serves I/O", migrate_start },
	{ "status", "[ID] [--watch] [--interval MS]",
	  "progress; --watch until it ends (a bar on a terminal)", migrate_status },
	{ "pause", "ID", "", migrate_pause },
	{ "resume", "ID", "", migrate_resume },
	{ "cancel", "ID", "move back what was moved", migrate_cancel },
	{ "share", "ID PERMILLE", "the share of the dies' time it may take", migrate_share },
	{ NULL, NULL, NULL, NULL },
};

const struct ctl_object ctl_obj_migrate = { "migrate", migrate_cmds };
