/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim: the blox FTL (ftl/) over the emulated NAND (nand/) on the
 * virtual-time driver (ftl/vdrive.c) -- the same FTL and NAND code as the
 * daemon, with time moved event to event -- reproducing the experiments of
 * "improving read performance of DRAM-less storage devices" on a scaled
 * 4-channel, 1-die-per-channel device:
 *
 *   exp 1  sequential fill (128 KiB writes), then closed-loop 4 KiB random
 *          reads over growing LBA ranges: mapping hit rate, IOPS, latency,
 *          plain DFTL (MDC off) vs DFTL+MDC
 *   exp 2  the same, the fill inserting one random 4 KiB write after every
 *          1 MiB of sequential data, with and without stream separation
 *   exp 3  write amplification vs over-provisioning under uniform random
 *          4 KiB writes, greedy and cost-benefit GC, beside the analytic
 *          estimates for greedy
 *   isolation  (FlashBlox, FAST 2017; sim_iso.c) a read-mostly tenant and a
 *          write-heavy one, each its own FTL instance on one device, with
 *          software (shared dies, separate blocks), chip (separate dies on
 *          shared channels) and channel isolation: the reader's latency
 *
 * Every read is checked against what was written (a header of magic, LBA
 * and version in each 4 KiB unit); exp 3 reads a sample back at the end.
 * The FTL is restarted (clean shutdown, checkpoint, recovery) before each
 * measured point, so each point starts with cold caches.
 *
 * Telemetry beyond ftl_get_stats (MDC descriptor count and coverage, free
 * superblocks, open-superblock fill, layout, GC levels) comes from the
 * FTL's read-only inspection functions (ftl_inspect_*() in ftl.h).
 *
 * Run with --help for the options. BLOX_SIM_DEBUG=1 in the environment
 * prints per-point counter deltas (and the state after each restart) to
 * stderr.
 *
 * This file parses the command line into a struct sim_opts and runs the
 * experiments; sim.h lists the other files.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static void usage(void)
{
	printf(
		"usage: blox-sim [options]\n"
		"       blox-sim isolation [options]   (the same as --exp isolation)\n"
		"       blox-sim plm [options]         (predictable latency windows, qos bench 5; plm --help)\n"
		"       blox-sim lifetime [options]    (FlashBlox wear balance; lifetime --help)\n"
		"       blox-sim migcost [options]     (FlashBlox migration cost; migcost --help)\n"
		"       blox-sim fairness [options]    (weighted die sharing, qos bench 3; fairness --help)\n"
		"       blox-sim model [options]       (the stats model vs measured; model --help)\n"
		"       blox-sim suspend [options]     (suspension policies, mixed load; suspend --help)\n"
		"       blox-sim wear [options]        (read latency as the flash wears; wear --help)\n"
		"  --exp 1|2|3|isolation|all  experiment (default all: 1, 2 and 3)\n"
		"  --raw-mib N            raw flash in MiB (default 4096)\n"
		"  --channels N --dies N --planes N --ppb N --page-kib N\n"
		"                         geometry (default 4, 1, 1, 384, 16); blocks/plane from --raw-mib\n"
		"  --cmt-kib N            CMT budget (default 256)\n"
		"  --mdc-bytes N          MDC budget (default 2048)   --mdc-min-run N (default 32)\n"
		"  --mdc on|off|both      exp 1/2 configurations (default both)\n"
		"  --sep on|off|both      stream separation (exp 1 default on, exp 2 default both)\n"
		"  --rand-lba uniform|ahead|both  exp 2 random-write targets (default both)\n"
		"  --hot-regions N        (default 128)   --hot-top N (default = hot regions)\n"
		"  --op N                 exp 1/2 op_permille (default 70)\n"
		"  --ops a,b,...          exp 3 op_permille list (default 70,100,150,200,280)\n"
		"  --waf-raw-mib N --waf-ppb N  exp 3 device: raw MiB and pages per block (default 1024, 96)\n"
		"  --waf-control on|off   exp 3: also a table with a CMT holding every TP (default on)\n"
		"  --waf-control-kib N    that CMT (default 4096; must hold every translation page)\n"
		"  --gc greedy|cb|both    exp 3 GC policies (default both)\n"
		"  --write-x X            exp 3 random writes, x capacity (default 3)\n"
		"  --qd N                 queue depth (default 32)\n"
		"  --reads N              measured reads per point (default 100000)\n"
		"  --warmup N             warm-up reads per point (default 32768)\n"
		"  --prefetch on|off      idle period with idle prefetch after warm-up (default on)\n"
		"  --multiplane on|off    NAND multi-plane program/erase groups (default on)\n"
		"  --plane-groups on|off  the FTL holds a die's first-plane page for its partner (default on)\n"
		"  --idle-ms N            idle period, virtual ms (default 200)\n"
		"  --ranges a/b|NM,...    read ranges as fractions of capacity or N MiB\n"
		"                         (default 1/64,1/32,1/16,256M,1/8,3/16,1/4,1072M,5/16,3/8,1/2,3/4,1)\n"
		"  --gc-bg N --gc-idle N  GC background/idle levels, permille of the spare superblocks\n"
		"                         (default: the FTL's, ftl.h)\n"
		"  --seed N               RNG seed (default 1)\n"
		"experiment isolation (docs/FLASHBLOX_RESULTS.md): tenant R (open-loop zipfian 4 KiB reads\n"
		"and writes) beside tenant W (closed-loop random 4 KiB writes, GC active) on one device\n"
		"of 8 ch x 4 dies x 2 planes, TLC; software, chip and channel isolation:\n"
		"  --reads-pct a,b,...    R's read percentages (default 100,95: YCSB C and B)\n"
		"  --seconds S            measured virtual seconds per point (default 10)\n"
		"  --iso-warmup-s S       both tenants running before the window (default 1)\n"
		"  --r-kiops X            R's Poisson arrival rate, kIOPS (default 20)\n"
		"  --w-qd N               W's queue depth (default 32)\n"
		"  --w-kiops a,b,...      then W open loop at these kIOPS, R at the first --reads-pct\n"
		"                         (default 0.25,0.5,1; 0: none)\n"
		"  --suspend default|never|both  NAND program/erase suspension policy (default both)\n"
		"  --levels a,b,...       of software,chip,channel (default all three)\n"
		"  --iso-channels N       channels per tenant (default 2: 8 dies per tenant)\n"
		"  --iso-ppb N            pages per block (default 96)\n"
		"  --iso-blocks N         blocks per plane per tenant (default 64)\n"
		"  --iso-precond-x X      W's random overwrite before measuring, x capacity (default 2)\n"
		"  --out FILE             output file (with a single --exp)\n"
		"  --outdir DIR           output directory (default docs/results)\n");
}

static void parse_ranges(void *ctx, const char *k, const char *v)
{
	struct sim_opts *o = ctx;
	char *copy = strdup(v), *tok, *save = NULL;

	if (!copy)
		sim_die("out of memory");
	o->nranges = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned a, b = 1;
		char *end;

		if (o->nranges == SIM_MAX_RANGES)
			sim_die("%s: too many ranges", k);
		a = (unsigned)strtoul(tok, &end, 10);
		if (*end == 'M' && a) {
			b = 0;
		} else if (sscanf(tok, "%u/%u", &a, &b) < 1 || !a || !b || a > b) {
			sim_die("bad range %s", tok);
		}
		o->range_num[o->nranges] = a;
		o->range_den[o->nranges++] = b;
	}
	free(copy);
}

/* W's open-loop rates (kIOPS); 0 in the list is skipped. */
static void parse_rates(void *ctx, const char *k, const char *v)
{
	struct sim_opts *o = ctx;
	char *copy = strdup(v), *tok, *save = NULL;

	if (!copy)
		sim_die("out of memory");
	o->iso_nw_rates = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double r = strtod(tok, &end);

		if (*end || end == tok || r < 0)
			sim_die("bad %s %s", k, tok);
		if (r == 0)
			continue;
		if (o->iso_nw_rates == SIM_ISO_MAX_PCTS)
			sim_die("too many %s", k);
		o->iso_w_rates[o->iso_nw_rates++] = r;
	}
	free(copy);
}

/*
 * Fill @o from the command line (defaults first); dies on a bad option.
 * Returns false when --help was asked for (and printed).
 */
static bool parse_args(struct sim_opts *o, int argc, char **argv)
{
	static const struct sim_choice exps[] = { { "1", 1 }, { "2", 2 }, { "3", 3 },
						  { "isolation", SIM_EXP_ISOLATION }, { "all", 0 },
						  { NULL, 0 } };
	static const struct sim_choice onoffboth[] = { { "off", 0 }, { "on", 1 }, { "both", 2 },
						       { NULL, 0 } };
	static const struct sim_choice rand_lbas[] = { { "uniform", 0 }, { "ahead", 1 },
						       { "both", 2 }, { NULL, 0 } };
	static const struct sim_choice gcs[] = { { "greedy", 0 }, { "cb", 1 }, { "both", 2 },
						 { NULL, 0 } };
	static const struct sim_choice suspends[] = { { "never", 0 }, { "default", 1 },
						      { "both", 2 }, { NULL, 0 } };
	static const struct sim_choice levels[] = { { "software", 1 }, { "chip", 2 },
						    { "channel", 4 }, { NULL, 0 } };
	uint32_t page_kib = 16, hot_top = UINT32_MAX; /* UINT32_MAX: not given */
	const struct sim_opt opts[] = {
		SIM_OPT_CHOICE("--exp", &o->exp, exps),
		SIM_OPT_U32S("--reads-pct", o->iso_pcts, &o->iso_npcts, SIM_ISO_MAX_PCTS, 0, 100),
		SIM_OPT_POS("--seconds", &o->iso_seconds),
		SIM_OPT_NONNEG("--iso-warmup-s", &o->iso_warmup_s),
		SIM_OPT_POS("--r-kiops", &o->iso_r_kiops),
		SIM_OPT_U32("--w-qd", &o->iso_w_qd, 1, SIM_MAX_QD),
		SIM_OPT_FN("--w-kiops", parse_rates, o),
		SIM_OPT_CHOICE("--suspend", &o->iso_suspend, suspends),
		SIM_OPT_FLAGS("--levels", &o->iso_levels, levels),
		SIM_OPT_U32("--iso-channels", &o->iso_channels, 1, 64),
		SIM_OPT_U32("--iso-ppb", &o->iso_ppb, 1, 1u << 16),
		SIM_OPT_U32("--iso-blocks", &o->iso_blocks, 1, 1u << 20),
		SIM_OPT_NONNEG("--iso-precond-x", &o->iso_precond_x),
		SIM_OPT_U64("--raw-mib", &o->raw_mib, 1, 1u << 30),
		SIM_OPT_U64("--waf-raw-mib", &o->waf_raw_mib, 1, 1u << 30),
		SIM_OPT_ONOFF("--waf-control", &o->waf_control),
		SIM_OPT_U32("--waf-control-kib", &o->waf_control_kib, 1, 1u << 24),
		SIM_OPT_U32("--waf-ppb", &o->waf_ppb, 1, 1u << 16),
		SIM_OPT_U32("--channels", &o->channels, 1, 1024),
		SIM_OPT_U32("--dies", &o->dies, 1, 1024),
		SIM_OPT_U32("--planes", &o->planes, 1, 16),
		SIM_OPT_U32("--ppb", &o->ppb, 1, 1u << 16),
		SIM_OPT_U32("--page-kib", &page_kib, 1, 1024),
		SIM_OPT_U32("--cmt-kib", &o->cmt_kib, 0, 1u << 24),
		SIM_OPT_U32("--mdc-bytes", &o->mdc_bytes, 0, 1u << 24),
		SIM_OPT_U32("--mdc-min-run", &o->mdc_min_run, 0, 1u << 24),
		SIM_OPT_CHOICE("--mdc", &o->mdc, onoffboth),
		SIM_OPT_CHOICE("--sep", &o->sep, onoffboth),
		SIM_OPT_CHOICE("--rand-lba", &o->rand_lba, rand_lbas),
		SIM_OPT_U32("--hot-regions", &o->hot_regions, 0, 1u << 24),
		SIM_OPT_U32("--hot-top", &hot_top, 0, 1u << 24),
		SIM_OPT_U32("--op", &o->op_permille, 0, 999),
		SIM_OPT_U32S("--ops", o->ops, &o->nops, SIM_MAX_OPS, 0, 999),
		SIM_OPT_CHOICE("--gc", &o->gc, gcs),
		SIM_OPT_NONNEG("--write-x", &o->write_x),
		SIM_OPT_U32("--qd", &o->qd, 1, SIM_MAX_QD),
		SIM_OPT_U64("--reads", &o->reads, 0, 1e15),
		SIM_OPT_U64("--warmup", &o->warmup, 0, 1e15),
		SIM_OPT_ONOFF("--prefetch", &o->prefetch),
		SIM_OPT_ONOFF("--multiplane", &o->multiplane),
		SIM_OPT_ONOFF("--plane-groups", &o->plane_groups),
		SIM_OPT_U64("--idle-ms", &o->idle_ms, 0, 1e9),
		SIM_OPT_FN("--ranges", parse_ranges, o),
		SIM_OPT_INT("--gc-bg", &o->gc_bg, 0, 1000),
		SIM_OPT_INT("--gc-idle", &o->gc_idle, 0, 1000),
		SIM_OPT_SEED(&o->seed),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_STR("--outdir", &o->outdir),
		SIM_OPT_END,
	};

	*o = (struct sim_opts){ .raw_mib = 4096, .waf_raw_mib = 1024, .waf_ppb = 96,
			   .waf_control = true, .waf_control_kib = 4096, .channels = 4, .dies = 1, .planes = 1, .ppb = 384,
			   .cmt_kib = 256, .mdc_bytes = 2048, .mdc_min_run = 32,
			   .hot_regions = 128, .mdc = 2, .sep = -1, .rand_lba = 2, .op_permille = 70,
			   .qd = 32, .reads = 100000, .warmup = 32768, .prefetch = true, .multiplane = true,
			   .plane_groups = true,
			   .idle_ms = 200, .write_x = 3.0, .gc = 2, .seed = 1, .gc_bg = -1,
			   .gc_idle = -1, .debug = getenv("BLOX_SIM_DEBUG") != NULL,
			   .outdir = "docs/results", .iso_seconds = 10.0, .iso_warmup_s = 1.0,
			   .iso_r_kiops = 20.0, .iso_precond_x = 2.0, .iso_w_qd = 32, .iso_ppb = 96,
			   .iso_blocks = 64, .iso_channels = 2, .iso_suspend = 2, .iso_levels = 7,
			   .iso_pcts = { 100, 95 }, .iso_npcts = 2, .ops = { 70, 100, 150, 200, 280 },
			   .nops = 5 };

	parse_rates(o, "--w-kiops", "0.25,0.5,1");
	parse_ranges(o, "--ranges", "1/64,1/32,1/16,256M,1/8,3/16,1/4,1072M,5/16,3/8,1/2,3/4,1");
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	/* "blox-sim isolation [options]" is "blox-sim --exp isolation [options]". */
	if (argc > 1 && argv[1][0] != '-') {
		if (strcmp(argv[1], "isolation"))
			sim_die("unknown experiment %s (--help)", argv[1]);
		o->exp = SIM_EXP_ISOLATION;
	}
	if (!sim_opts_parse(NULL, usage, opts, argc, argv))
		return false;
	o->seed |= 1;
	o->page_size = page_kib * 1024;
	o->hot_top = hot_top != UINT32_MAX ? hot_top : o->hot_regions;
	o->sep_set = o->sep >= 0;
	if (!o->sep_set)
		o->sep = 2;
	if (o->out && !o->exp)
		sim_die("--out needs a single --exp");
	return true;
}

int main(int argc, char **argv)
{
	struct sim_opts o;

	/* "blox-sim plm [options]": its own options (sim_plm.c). */
	if (argc > 1 && !strcmp(argv[1], "plm"))
		return sim_plm_main(argc, argv);
	/* "blox-sim lifetime [options]" has options of its own (sim_lifetime.c). */
	if (argc > 1 && !strcmp(argv[1], "lifetime"))
		return sim_lifetime_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "migcost"))
		return sim_migcost_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "fairness"))
		return sim_fairness_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "model"))
		return sim_model_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "suspend"))
		return sim_suspend_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "wear"))
		return sim_wear_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "fdp"))
		return sim_fdp_main(argc, argv);
	if (argc > 1 && !strcmp(argv[1], "powercut"))
		return sim_powercut_main(argc, argv);
	if (!parse_args(&o, argc, argv))
		return 0;
	if (o.exp == 0 || o.exp == 1) {
		/* Exp 1 has one separation setting: on unless --sep says. */
		struct sim_opts o1 = o;

		if (!o.sep_set)
			o1.sep = 1;
		if (o1.sep == 2)
			sim_die("exp 1 takes --sep on or off");
		sim_exp1(&o1);
	}
	if (o.exp == 0 || o.exp == 2)
		sim_exp2(&o);
	if (o.exp == 0 || o.exp == 3)
		sim_exp3(&o);
	if (o.exp == SIM_EXP_ISOLATION)
		sim_exp_isolation(&o);
	return 0;
}
