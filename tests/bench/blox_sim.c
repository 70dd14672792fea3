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

static int onoff(const char *v)
{
	if (!strcmp(v, "on"))
		return 1;
	if (!strcmp(v, "off"))
		return 0;
	if (!strcmp(v, "both"))
		return 2;
	sim_die("expected on|off|both, got %s", v);
	return 0;
}

static void parse_ranges(struct sim_opts *o, const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	o->nranges = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned a, b = 1;
		char *end;

		if (o->nranges == SIM_MAX_RANGES)
			sim_die("too many ranges");
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

static void parse_ops(struct sim_opts *o, const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	o->nops = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nops == SIM_MAX_OPS)
			sim_die("too many --ops");
		o->ops[o->nops] = (uint32_t)strtoul(tok, NULL, 0);
		if (o->ops[o->nops] >= 1000)
			sim_die("bad op_permille %s", tok);
		o->nops++;
	}
	free(copy);
}

static void parse_pcts(struct sim_opts *o, const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	o->iso_npcts = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		unsigned long p = strtoul(tok, &end, 10);

		if (o->iso_npcts == SIM_ISO_MAX_PCTS)
			sim_die("too many --reads-pct");
		if (*end || end == tok || p > 100)
			sim_die("bad --reads-pct %s", tok);
		o->iso_pcts[o->iso_npcts++] = (uint32_t)p;
	}
	free(copy);
	if (!o->iso_npcts)
		sim_die("--reads-pct needs a value");
}

static void parse_levels(struct sim_opts *o, const char *v)
{
	static const char *const names[] = { "software", "chip", "channel" };
	char *copy = strdup(v), *tok, *save = NULL;

	o->iso_levels = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned i;

		for (i = 0; i < 3 && strcmp(tok, names[i]); i++)
			;
		if (i == 3)
			sim_die("bad --levels %s (software, chip, channel)", tok);
		o->iso_levels |= 1u << i;
	}
	free(copy);
	if (!o->iso_levels)
		sim_die("--levels needs a value");
}

static void parse_rates(struct sim_opts *o, const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	o->iso_nw_rates = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end;
		double r = strtod(tok, &end);

		if (*end || end == tok || r < 0)
			sim_die("bad --w-kiops %s", tok);
		if (r == 0)
			continue;
		if (o->iso_nw_rates == SIM_ISO_MAX_PCTS)
			sim_die("too many --w-kiops");
		o->iso_w_rates[o->iso_nw_rates++] = r;
	}
	free(copy);
}

static double positive(const char *k, const char *v)
{
	double x = atof(v);

	if (!(x > 0))
		sim_die("%s must be positive, got %s", k, v);
	return x;
}

/*
 * Fill @o from the command line (defaults first); dies on a bad option.
 * Returns false when --help was asked for (and printed).
 */
static bool parse_args(struct sim_opts *o, int argc, char **argv)
{
	bool hot_top_set = false;
	size_t len = 0;

	*o = (struct sim_opts){ .raw_mib = 4096, .waf_raw_mib = 1024, .waf_ppb = 96,
			   .waf_control = true, .waf_control_kib = 4096, .channels = 4, .dies = 1, .planes = 1, .ppb = 384,
			   .page_size = 16384, .cmt_kib = 256, .mdc_bytes = 2048, .mdc_min_run = 32,
			   .hot_regions = 128, .mdc = 2, .sep = 2, .rand_lba = 2, .op_permille = 70,
			   .qd = 32, .reads = 100000, .warmup = 32768, .prefetch = true, .multiplane = true,
			   .idle_ms = 200, .write_x = 3.0, .gc = 2, .seed = 1, .gc_bg = -1,
			   .gc_idle = -1, .debug = getenv("BLOX_SIM_DEBUG") != NULL,
			   .outdir = "docs/results", .iso_seconds = 10.0, .iso_warmup_s = 1.0,
			   .iso_r_kiops = 20.0, .iso_precond_x = 2.0, .iso_w_qd = 32, .iso_ppb = 96,
			   .iso_blocks = 64, .iso_channels = 2, .iso_suspend = 2, .iso_levels = 7 };
	int first_opt = 1;

	parse_pcts(o, "100,95");
	parse_rates(o, "0.25,0.5,1");
	parse_ops(o, "70,100,150,200,280");
	parse_ranges(o, "1/64,1/32,1/16,256M,1/8,3/16,1/4,1072M,5/16,3/8,1/2,3/4,1");
	for (int i = 0; i < argc; i++) {
		int n = snprintf(o->cmdline + len, sizeof(o->cmdline) - len, "%s%s", i ? " " : "",
				 argv[i]);

		if (n < 0 || (size_t)n >= sizeof(o->cmdline) - len)
			break;
		len += (size_t)n;
	}
	/* "blox-sim isolation [options]" is "blox-sim --exp isolation [options]". */
	if (argc > 1 && argv[1][0] != '-') {
		if (strcmp(argv[1], "isolation"))
			sim_die("unknown experiment %s (--help)", argv[1]);
		o->exp = SIM_EXP_ISOLATION;
		first_opt = 2;
	}
	for (int i = first_opt; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
			usage();
			return false;
		}
		if (!v)
			sim_die("%s needs a value (--help)", k);
		i++;
		if (!strcmp(k, "--exp")) {
			if (!strcmp(v, "isolation"))
				o->exp = SIM_EXP_ISOLATION;
			else if (!strcmp(v, "all"))
				o->exp = 0;
			else if ((o->exp = atoi(v)) < 1 || o->exp > 3)
				sim_die("bad --exp %s (1, 2, 3, isolation, all)", v);
		} else if (!strcmp(k, "--reads-pct"))
			parse_pcts(o, v);
		else if (!strcmp(k, "--seconds"))
			o->iso_seconds = positive(k, v);
		else if (!strcmp(k, "--iso-warmup-s"))
			o->iso_warmup_s = atof(v);
		else if (!strcmp(k, "--r-kiops"))
			o->iso_r_kiops = positive(k, v);
		else if (!strcmp(k, "--w-qd"))
			o->iso_w_qd = (uint32_t)atoi(v);
		else if (!strcmp(k, "--w-kiops"))
			parse_rates(o, v);
		else if (!strcmp(k, "--suspend"))
			o->iso_suspend = !strcmp(v, "never") ? 0 : !strcmp(v, "default") ? 1
				       : !strcmp(v, "both") ? 2 : (sim_die("bad --suspend %s", v), 0);
		else if (!strcmp(k, "--levels"))
			parse_levels(o, v);
		else if (!strcmp(k, "--iso-channels"))
			o->iso_channels = (uint32_t)atoi(v);
		else if (!strcmp(k, "--iso-ppb"))
			o->iso_ppb = (uint32_t)atoi(v);
		else if (!strcmp(k, "--iso-blocks"))
			o->iso_blocks = (uint32_t)atoi(v);
		else if (!strcmp(k, "--iso-precond-x"))
			o->iso_precond_x = atof(v);
		else if (!strcmp(k, "--raw-mib"))
			o->raw_mib = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--waf-raw-mib"))
			o->waf_raw_mib = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--waf-control"))
			o->waf_control = onoff(v) == 1;
		else if (!strcmp(k, "--waf-control-kib"))
			o->waf_control_kib = (uint32_t)atoi(v);
		else if (!strcmp(k, "--waf-ppb"))
			o->waf_ppb = (uint32_t)atoi(v);
		else if (!strcmp(k, "--channels"))
			o->channels = (uint32_t)atoi(v);
		else if (!strcmp(k, "--dies"))
			o->dies = (uint32_t)atoi(v);
		else if (!strcmp(k, "--planes"))
			o->planes = (uint32_t)atoi(v);
		else if (!strcmp(k, "--ppb"))
			o->ppb = (uint32_t)atoi(v);
		else if (!strcmp(k, "--page-kib"))
			o->page_size = (uint32_t)atoi(v) * 1024;
		else if (!strcmp(k, "--cmt-kib"))
			o->cmt_kib = (uint32_t)atoi(v);
		else if (!strcmp(k, "--mdc-bytes"))
			o->mdc_bytes = (uint32_t)atoi(v);
		else if (!strcmp(k, "--mdc-min-run"))
			o->mdc_min_run = (uint32_t)atoi(v);
		else if (!strcmp(k, "--mdc"))
			o->mdc = onoff(v);
		else if (!strcmp(k, "--sep")) {
			o->sep = onoff(v);
			o->sep_set = true;
		} else if (!strcmp(k, "--rand-lba"))
			o->rand_lba = !strcmp(v, "uniform") ? 0 : !strcmp(v, "ahead") ? 1 : 2;
		else if (!strcmp(k, "--hot-regions"))
			o->hot_regions = (uint32_t)atoi(v);
		else if (!strcmp(k, "--hot-top")) {
			o->hot_top = (uint32_t)atoi(v);
			hot_top_set = true;
		} else if (!strcmp(k, "--op"))
			o->op_permille = (uint32_t)atoi(v);
		else if (!strcmp(k, "--ops"))
			parse_ops(o, v);
		else if (!strcmp(k, "--gc"))
			o->gc = !strcmp(v, "greedy") ? 0 : !strcmp(v, "cb") ? 1 : 2;
		else if (!strcmp(k, "--write-x"))
			o->write_x = atof(v);
		else if (!strcmp(k, "--qd"))
			o->qd = (uint32_t)atoi(v);
		else if (!strcmp(k, "--reads"))
			o->reads = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--warmup"))
			o->warmup = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--prefetch"))
			o->prefetch = onoff(v) == 1;
		else if (!strcmp(k, "--multiplane"))
			o->multiplane = onoff(v) == 1;
		else if (!strcmp(k, "--idle-ms"))
			o->idle_ms = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--ranges"))
			parse_ranges(o, v);
		else if (!strcmp(k, "--gc-bg"))
			o->gc_bg = atoi(v);
		else if (!strcmp(k, "--gc-idle"))
			o->gc_idle = atoi(v);
		else if (!strcmp(k, "--seed"))
			o->seed = strtoull(v, NULL, 0) | 1;
		else if (!strcmp(k, "--out"))
			o->out = v;
		else if (!strcmp(k, "--outdir"))
			o->outdir = v;
		else
			sim_die("unknown option %s (--help)", k);
	}
	if (!hot_top_set)
		o->hot_top = o->hot_regions;
	if (o->qd == 0 || o->qd > SIM_MAX_QD)
		sim_die("--qd must be 1..%u", SIM_MAX_QD);
	if (o->out && !o->exp)
		sim_die("--out needs a single --exp");
	if (o->iso_w_qd == 0 || o->iso_w_qd > SIM_MAX_QD)
		sim_die("--w-qd must be 1..%u", SIM_MAX_QD);
	if (o->iso_channels == 0 || o->iso_blocks == 0 || o->iso_ppb == 0)
		sim_die("--iso-channels, --iso-blocks and --iso-ppb must be positive");
	if (o->iso_warmup_s < 0 || o->iso_precond_x < 0)
		sim_die("--iso-warmup-s and --iso-precond-x must not be negative");
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
