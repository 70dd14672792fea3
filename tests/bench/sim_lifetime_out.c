/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment lifetime (sim_lifetime.c says what it models): the
 * command line, the results file's header and tables, and the runs: the
 * FTL's WAF, one pair of runs (without and with swaps), then the sweeps.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_lifetime.h"

/* ---- options ---- */

static void usage(void)
{
	printf("usage: blox-sim lifetime [options]\n"
	       "  FlashBlox wear balance across channel vSSDs over a device lifetime: the\n"
	       "  resource manager (ftl/rm.c) driven by an erase-level model in virtual time\n"
	       "  --channels N          channels of the device (default 8; 4 dies each, nand defaults)\n"
	       "  --free N              channels left free (default a quarter); one 1-channel\n"
	       "                        vSSD per other channel\n"
	       "  --mix mixed|one-hot   the vSSDs' profiles: A..F in turn, or A once then C..F\n"
	       "                        (default mixed; A rand 1 DWPD, B rand 0.3, C seq 1,\n"
	       "                        D rand 0.1, E rand 0.03, F rand 0.01)\n"
	       "  --bound-permille X    x of the bound 1 + x (default 100)\n"
	       "  --rated-pe N          rated P/E cycles (default the cell's: TLC 3000)\n"
	       "  --years Y             at most Y years of virtual time (default 10); a run\n"
	       "                        ends when the average wear reaches rated_pe\n"
	       "  --waf-ppb N           pages per block of the FTL run measuring WAF (default 96)\n"
	       "  --sweep on|off        the x and N sweep and the free-channel table (default on)\n"
	       "  --out FILE            output file (default DIR/flashblox_lifetime.txt)\n"
	       "  --outdir DIR          (default docs/results)\n");
}

static bool parse(struct lt_opts *o, int argc, char **argv)
{
	static const struct sim_choice mixes[] = { { "mixed", LT_MIXED }, { "one-hot", LT_ONE_HOT },
						   { NULL, 0 } };
	const struct sim_opt opts[] = {
		SIM_OPT_U32("--channels", &o->channels, 2, LT_MAX_CH),
		SIM_OPT_INT("--free", &o->free_ch, 0, LT_MAX_CH),
		SIM_OPT_CHOICE("--mix", &o->mix, mixes),
		SIM_OPT_U32("--bound-permille", &o->bound_permille, 1, 10000),
		SIM_OPT_U32("--rated-pe", &o->rated_pe, 1, 1000000),
		SIM_OPT_POS("--years", &o->years),
		SIM_OPT_U32("--waf-ppb", &o->waf_ppb, 3, 384),
		SIM_OPT_ONOFF("--sweep", &o->sweep),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_STR("--outdir", &o->outdir),
		SIM_OPT_END,
	};

	*o = (struct lt_opts){ .channels = 8, .bound_permille = 100, .free_ch = -1, .years = 10,
			       .waf_ppb = 96, .sweep = true, .outdir = "docs/results" };
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	if (!sim_opts_parse("lifetime", usage, opts, argc, argv))
		return false;
	if (o->years > 100)
		sim_die("--years: expected 0..100, got %g", o->years);
	if (o->free_ch >= (int)o->channels)
		sim_die("--free must leave a channel for a vSSD");
	if (o->waf_ppb % 3)
		sim_die("--waf-ppb must be a multiple of 3 (TLC)");
	return true;
}

/* ---- output ---- */

static void machine_line(struct sim_out *out)
{
	struct sim_machine m;

	sim_machine_get(&m);
	sim_outf(out, "# machine: %s, %ld cores, %s; single-threaded, virtual time\n", m.model, m.cpus,
		 m.os);
}

static double paper_bound(uint32_t n, double avg, double round_len)
{
	double j = floor(avg / round_len + 1e-9);

	return j >= 1 ? n * (j + 1) / (j * n + 1) : NAN;
}

static void print_header(struct sim_out *out, const struct lt_ctx *c)
{
	const struct lt_opts *o = c->o;
	struct nand_geometry g;
	struct nand_config nc;
	double tprog = 0;

	lt_geometry(&g, o->channels);
	nand_config_default(&nc);
	for (uint32_t i = 0; i < 3; i++)
		tprog += nc.timing.t_prog_ns[i] / 3.0;
	sim_outf(out, "# blox-sim lifetime: FlashBlox wear balance across channel vSSDs over a device lifetime\n");
	sim_outf(out, "# command: %s\n", o->cmdline);
	machine_line(out);
	sim_outf(out, "# device: N ch x %u die/ch x %u plane x %u blocks x %u pages x %u KiB, TLC"
		 " (the NAND defaults, N channels); rated_pe %.0f; a channel is %.0f MiB raw\n",
		 g.dies_per_channel, g.planes_per_die, g.blocks_per_plane, g.pages_per_block,
		 g.page_size / 1024, lt_rated(o),
		 (double)nand_capacity(&g) / g.channels / MiB);
	sim_outf(out, "# resource manager: ftl/rm.c through flashblox.h: fbx_rm_create, fbx_plan + fbx_take"
		 " (one channel per vSSD), fbx_wear_update every step,\n"
		 "#   fbx_check_due / fbx_swap_check / fbx_move_done; imbalance and checks from fbx_wear_get"
		 " (MaxWear / AvgWear over all channels, free ones too)\n");
	sim_outf(out, "# model: a step is 1 hour; a tenant erases DWPD x capacity x WAF_e / units per block"
		 " blocks a day, spread evenly over the dies it owns now;\n"
		 "#   a move of one die: +1 erase on every block of the destination die (the copy's"
		 " P/E cycle) and of the source die (erased before reuse): an upper bound;\n"
		 "#   moves take no time here (estimate below); the run without swaps makes no checks\n");
	sim_outf(out, "# tenants: one 1-channel vSSD per used channel (fbx_plan order, least-worn first);"
		 " profiles A: rand 1.0 DWPD, B: rand 0.3, C: seq 1.0, D: rand 0.1, E: rand 0.03,"
		 " F: rand 0.01;\n"
		 "#   mix \"mixed\": A..F in turn (more than 6 vSSDs: two A); \"one-hot\": A once, then"
		 " C..F in turn (only A above the average rate: the paper's analysed case)\n");
	sim_outf(out, "# estimated time of one channel move (not simulated): copy %.0f MiB of capacity at"
		 " the destination's program rate (%u dies x %u planes x %u KiB / mean tPROG %.0f us"
		 " = %.1f MB/s) + erase (%u blocks x tBERS %.0f ms): %.0f s\n",
		 ftl_capacity_for(&c->fc, &g, g.dies_per_channel, g.blocks_per_plane) * 4096.0 / MiB,
		 g.dies_per_channel, g.planes_per_die, g.page_size / 1024, tprog / 1000,
		 g.dies_per_channel * g.planes_per_die * g.page_size / (tprog / 1e9) / 1e6,
		 g.blocks_per_plane, nc.timing.t_erase_ns / 1e6,
		 ftl_capacity_for(&c->fc, &g, g.dies_per_channel, g.blocks_per_plane) * 4096.0 /
				 (g.dies_per_channel * g.planes_per_die * g.page_size / (tprog / 1e9)) +
			 g.blocks_per_plane * nc.timing.t_erase_ns / 1e9);
}

static void print_waf(struct sim_out *out, const struct lt_ctx *c)
{
	const struct lt_waf *w = &c->waf;

	sim_outf(out, "## WAF of the real FTL (ftl/ on the emulated NAND, virtual time), one tenant's FTL\n");
	sim_outf(out, "# 1 ch x 4 dies x 2 planes x 64 blocks (a lifetime channel) x %u pages (not 384:"
		 " time) = %.0f MiB raw, capacity %u units, %u TPs,\n"
		 "#   CMT %u TPs (256 KiB x %u/384: the share of TPs a 384-page channel's CMT covers),"
		 " op_permille %u, greedy GC, other settings the FTL's defaults\n",
		 c->o->waf_ppb, w->raw_mib, w->cap_units, w->nr_tp, w->cmt_pages, c->o->waf_ppb,
		 c->fc.op_permille);
	sim_outf(out, "# sequential fill, 2 x capacity of the pattern, measured over the next 1 x capacity"
		 " (rand: uniform 4 KiB, QD 32; seq: 128 KiB in order); %.1f s wall\n", w->wall);
	sim_outf(out, "# WAF_e = block erases x units per block / host units (drives the model);"
		 " WAF_p = units programmed (host, GC, TPs, padding) / host units\n");
	sim_outf(out, "%-6s %10s %9s %7s %7s\n", "kind", "host_units", "erases", "WAF_e", "WAF_p");
	for (int k = 0; k < LT_KINDS; k++)
		sim_outf(out, "%-6s %10llu %9llu %7.3f %7.3f\n", lt_kind_name[k],
			 (unsigned long long)w->host_units[k], (unsigned long long)w->erases[k],
			 w->erase[k], w->prog[k]);
}

static void print_tenants(struct sim_out *out, const struct lt_run *r, const struct lt_opts *o)
{
	struct nand_geometry g;
	double total = 0, bpc;
	char lab[16];

	lt_geometry(&g, r->cfg.channels);
	bpc = (double)g.dies_per_channel * g.planes_per_die * g.blocks_per_plane;
	for (uint32_t i = 0; i < r->ntenants; i++)
		total += r->t[i].erases_per_step;
	sim_outf(out, "## tenants (%u channels, %u free): erase rate per block of the tenant's channel;"
		 " x_avg = that over the device's average rate (all channels)\n",
		 r->cfg.channels, r->cfg.free_ch);
	sim_outf(out, "%-6s %-5s %6s %10s %7s %12s %7s %12s\n", "vssd", "kind", "DWPD", "cap_units",
		 "ch@0", "erases/blk/d", "x_avg", "days_to_pe");
	for (uint32_t i = 0; i < r->ntenants; i++) {
		const struct lt_tenant *t = &r->t[i];
		double rate = t->erases_per_step * LT_DAY_STEPS / (bpc * t->a.res.nr_dies / g.dies_per_channel);
		double avg = total * LT_DAY_STEPS / (bpc * r->cfg.channels);

		lt_tenant_label(t, lab, sizeof(lab));
		sim_outf(out, "%-6s %-5s %6.2f %10llu %7u %12.3f %7.2f %12.0f\n", lab,
			 lt_kind_name[t->p->kind], t->p->dwpd, (unsigned long long)t->a.units,
			 t->ch0, rate, rate / avg, lt_rated(o) / rate);
	}
	sim_outf(out, "# device average %.3f erases per block per day: %.0f days (%.2f years) to rated_pe"
		 " with perfect balance and free moves\n",
		 total * LT_DAY_STEPS / (bpc * r->cfg.channels),
		 lt_rated(o) / (total * LT_DAY_STEPS / (bpc * r->cfg.channels)),
		 lt_rated(o) / (total * LT_DAY_STEPS / (bpc * r->cfg.channels)) / 365.25);
}

static void print_series(struct sim_out *out, const struct lt_run *ns, const struct lt_run *sw)
{
	double round_len = sw->check_step * sw->cfg.channels;

	sim_outf(out, "## imbalance over time (MaxWear / AvgWear over channels, erases per block),"
		 " every quarter year; bound_rr = N(j+1)/(jN+1) after j full rounds of N checks\n"
		 "#   (the paper's analysis: one hot tenant moved round-robin; at j = K it is <= 1 + x)\n");
	sim_outf(out, "%7s %6s | %8s %8s %6s | %8s %8s %6s %6s %6s %8s\n", "day", "years",
		 "avg_none", "max_none", "imb", "avg_swap", "max_swap", "imb", "checks", "swaps",
		 "bound_rr");
	for (size_t i = 0; i < sw->nrows && i < ns->nrows; i++) {
		const struct lt_row *a = &ns->rows[i], *b = &sw->rows[i];
		double pb = paper_bound(sw->cfg.channels, b->avg, round_len);

		sim_outf(out, "%7.1f %6.2f | %8.1f %8.1f %6.3f | %8.1f %8.1f %6.3f %6llu %6llu ", b->day,
			 b->day / 365.25, a->avg, a->max, a->imb, b->avg, b->max, b->imb,
			 (unsigned long long)b->checks, (unsigned long long)b->swaps);
		if (isnan(pb))
			sim_outf(out, "%8s\n", "-");
		else
			sim_outf(out, "%8.3f\n", pb);
	}
}

static void print_life(struct sim_out *out, const char *what, double day)
{
	if (day < 0)
		sim_outf(out, "%s: not within the run\n", what);
	else
		sim_outf(out, "%s: day %.1f (%.2f years)\n", what, day, day / 365.25);
}

static void print_summary(struct sim_out *out, const struct lt_run *ns, const struct lt_run *sw)
{
	double x = sw->cfg.bound_permille / 1000.0, n = sw->cfg.channels;
	double kf = (n - 1 - x) / (n * x);
	struct nand_geometry g;
	char lab[16];

	lt_geometry(&g, sw->cfg.channels);
	sim_outf(out, "## summary (%u channels, x = %.3f)\n", sw->cfg.channels, x);
	sim_outf(out, "formula: K >= (N - 1 - x) / (N x) = %.2f -> K = %u rounds, K x N = %.1f (%u checks"
		 " with K rounded up); a check every %.2f erases per block of average wear\n",
		 kf, sw->rounds, kf * n, sw->rounds * sw->cfg.channels, sw->check_step);
	sim_outf(out, "run with swaps: %llu checks, %llu swaps (%llu channel moves of %u dies each),"
		 " %llu checks found wear even enough, %llu needed a swap and found none\n",
		 (unsigned long long)sw->checks, (unsigned long long)sw->swaps,
		 (unsigned long long)(sw->moves / g.dies_per_channel), g.dies_per_channel,
		 (unsigned long long)sw->idle_checks, (unsigned long long)sw->refused);
	if (sw->refused)
		sim_outf(out, "  last reason none was found: %s\n", sw->refusal);
	sim_outf(out, "  over %.1f days: a check every %.1f days, a swap every %.1f days\n",
		 sw->end_day, sw->checks ? sw->end_day / sw->checks : 0,
		 sw->swaps ? sw->end_day / sw->swaps : 0);
	sim_outf(out, "migration cost: %.0f block erases = %.2f erases per block of the device,"
		 " %.2f%% of the %.0f the tenants' writes made\n",
		 sw->mig_erases, sw->mig_erases / (double)nand_blocks(&g),
		 100.0 * sw->mig_erases / sw->host_erases,
		 sw->host_erases);
	sim_outf(out, "imbalance with swaps: final %.3f (day %.1f, average wear %.1f), worst after the"
		 " first round %.3f (day %.1f), ",
		 sw->end.imbalance, sw->end_day, sw->end.avg, sw->worst1, sw->worst1_day);
	if (sw->worst_last > 0)
		sim_outf(out, "worst in the last round %.3f (day %.1f)", sw->worst_last,
			 sw->worst_last_day);
	else
		sim_outf(out, "the run ended (--years) before the last round");
	sim_outf(out, "; bound 1 + x = %.3f: %s%s\n", 1 + x,
		 sw->end.imbalance <= 1 + x + 1e-9 ? "HELD at the end" : "NOT HELD at the end",
		 sw->worst_last > 0 ? "" : " of the run, before the end of the lifetime");
	sim_outf(out, "imbalance without swaps: final %.3f (day %.1f, average wear %.1f)\n",
		 ns->end.imbalance, ns->end_day, ns->end.avg);
	print_life(out, "first channel at rated_pe without swaps", ns->first_dead);
	print_life(out, "first channel at rated_pe with swaps   ", sw->first_dead);
	if (ns->first_dead > 0 && sw->first_dead > 0)
		sim_outf(out, "lifetime gained: x %.2f (%.0f more days)\n",
			 sw->first_dead / ns->first_dead, sw->first_dead - ns->first_dead);
	sim_outf(out, "## channels at the end of the run with swaps (wear = erases per block; owner now;"
		 " swaps that moved the owner)\n");
	sim_outf(out, "%4s %9s %6s %7s %6s\n", "ch", "wear", "x_avg", "owner", "moved");
	for (uint32_t ch = 0; ch < sw->cfg.channels; ch++) {
		uint32_t ow = sw->fin[ch].owner;

		sim_outf(out, "%4u %9.1f %6.3f %7s %6u\n", ch, sw->fin[ch].wear,
			 sw->fin[ch].wear / sw->end.avg, lt_owner_label(sw, ow, lab, sizeof(lab)),
			 ow != FBX_FREE && ow <= sw->ntenants ? sw->t[ow - 1].moved : 0);
	}
}

/* The rm's inputs and choice at the last check of the run with swaps. */
static void print_last_check(struct sim_out *out, const struct lt_run *sw)
{
	struct nand_geometry g;
	double bpc;
	char lab[16];

	lt_geometry(&g, sw->cfg.channels);
	bpc = (double)g.dies_per_channel * g.planes_per_die * g.blocks_per_plane;
	sim_outf(out, "## the last check (day %.1f): what fbx_swap_check saw (wear = erases per block;"
		 " since = erases of the channel since the check before; rate = since per block)\n",
		 sw->last_day);
	sim_outf(out, "%4s %7s %9s %9s %7s\n", "ch", "owner", "wear", "since", "rate");
	for (uint32_t ch = 0; ch < sw->cfg.channels; ch++)
		sim_outf(out, "%4u %7s %9.1f %9llu %7.2f\n", ch,
			 lt_owner_label(sw, sw->last[ch].owner, lab, sizeof(lab)), sw->last[ch].wear,
			 (unsigned long long)sw->last[ch].since, sw->last[ch].since / bpc);
	sim_outf(out, "choice: %s\n", sw->last_why);
}

static void print_log(struct sim_out *out, const struct lt_run *sw)
{
	sim_outf(out, "## swaps made (run with swaps): day, average wear and imbalance before it, the"
		 " rm's reason\n");
	for (size_t i = 0; i < sw->nlog; i++)
		sim_outf(out, "%7.1f %8.1f %6.3f  %s\n", sw->log[i].day, sw->log[i].avg, sw->log[i].imb,
			 sw->log[i].why);
}

/* Both runs of @cfg: with swaps first (it sets the length), then without, as long. */
static void run_pair(const struct lt_ctx *c, struct lt_cfg cfg, struct lt_run *ns,
		     struct lt_run *sw)
{
	cfg.swaps = true;
	lt_simulate(c, &cfg, 0, sw);
	cfg.swaps = false;
	lt_simulate(c, &cfg, sw->steps, ns);
}

static void sweep_head(struct sim_out *out)
{
	sim_outf(out, "%-7s %3s %5s %4s %7s %3s %6s %6s %5s %4s %7s %7s %7s %6s %6s %8s %8s %8s %6s\n",
		 "mix", "N", "x", "free", "K_form", "K", "KxN", "checks", "swaps", "none", "d/swap", "imb_end",
		 "worst_L", "held", "mig%", "life_no", "life_sw", "imb_none", "gain");
}

static void sweep_row(struct sim_out *out, const struct lt_run *ns, const struct lt_run *sw)
{
	double x = sw->cfg.bound_permille / 1000.0, n = sw->cfg.channels;
	double kf = (n - 1 - x) / (n * x);

	sim_outf(out, "%-7s %3u %5.3f %4u %7.2f %3u %6.1f %6llu %5llu %4llu %7.1f %7.3f %7.3f %6s %6.2f %8.0f"
		 " %8.0f %8.3f %6.2f\n",
		 lt_mix_name[sw->cfg.mix], sw->cfg.channels, x, sw->cfg.free_ch, kf, sw->rounds, kf * n,
		 (unsigned long long)sw->checks, (unsigned long long)sw->swaps,
		 (unsigned long long)sw->refused, sw->swaps ? sw->end_day / sw->swaps : 0,
		 sw->end.imbalance, sw->worst_last,
		 sw->end.imbalance <= 1 + x + 1e-9 ? "yes" : "NO", 100.0 * sw->mig_erases / sw->host_erases,
		 ns->first_dead, sw->first_dead, ns->end.imbalance,
		 ns->first_dead > 0 ? sw->first_dead / ns->first_dead : 0);
	if (sw->refused)
		sim_outf(out, "#   none: the last reason: %s\n", sw->refusal);
}

static void print_sweep_notes(struct sim_out *out)
{
	sim_outf(out, "# K_form = (N - 1 - x) / (N x), K = the rm's rounds (rounded up), KxN = K_form x N"
		 " (the paper's swap count); checks and swaps made; none = checks that needed a swap\n"
		 "#   and found none (the rm's last reason in the line below the row); d/swap = days per swap;\n"
		 "# imb_end = MaxWear / AvgWear when the average reaches rated_pe; worst_L = worst in the"
		 " last round; held: imb_end <= 1 + x; mig%% = migration erases / the tenants' erases;\n"
		 "# life_no / life_sw = days until the first channel reaches rated_pe without / with swaps;"
		 " imb_none = the final imbalance without swaps; gain = life_sw / life_no\n");
}

int sim_lifetime_main(int argc, char **argv)
{
	struct lt_opts o;
	struct lt_ctx c;
	struct sim_out out;
	struct lt_run ns, sw;
	struct lt_cfg cfg;
	double w0 = sim_wall_now();

	if (!parse(&o, argc, argv))
		return 0;
	memset(&c, 0, sizeof(c));
	c.o = &o;
	ftl_config_default(&c.fc);
	sim_out_create(&out, o.out, o.outdir, "flashblox_lifetime.txt");
	/* The WAF of the tenants' FTL at the lifetime device's geometry, scaled CMT. */
	c.fc.cmt_bytes = (uint32_t)((uint64_t)c.fc.cmt_bytes * o.waf_ppb / 384);
	lt_measure_waf(&c, LT_RAND);
	lt_measure_waf(&c, LT_SEQ);
	ftl_config_default(&c.fc); /* the vSSDs' FTL, as the rm sizes them */
	print_header(&out, &c);
	print_waf(&out, &c);

	cfg = (struct lt_cfg){ .channels = o.channels, .bound_permille = o.bound_permille,
			       .free_ch = o.free_ch >= 0 ? (uint32_t)o.free_ch
							 : lt_free_default(o.channels),
			       .mix = o.mix };
	run_pair(&c, cfg, &ns, &sw);
	sim_outf(&out, "# ==== %u channels, %u free, x = %.3f, mix %s ====\n", cfg.channels,
		 cfg.free_ch, cfg.bound_permille / 1000.0, lt_mix_name[cfg.mix]);
	print_tenants(&out, &sw, &o);
	print_series(&out, &ns, &sw);
	print_summary(&out, &ns, &sw);
	print_last_check(&out, &sw);
	print_log(&out, &sw);
	lt_run_free(&ns);
	lt_run_free(&sw);

	if (o.sweep) {
		static const uint32_t chans[] = { 8, 16 }, xs[] = { 50, 100, 200 };

		sim_outf(&out, "## sweep: x and N, both mixes, a quarter of the channels free\n");
		print_sweep_notes(&out);
		sweep_head(&out);
		for (int m = 0; m < LT_MIXES; m++)
			for (size_t i = 0; i < sizeof(chans) / sizeof(chans[0]); i++)
				for (size_t k = 0; k < sizeof(xs) / sizeof(xs[0]); k++) {
					cfg = (struct lt_cfg){ .channels = chans[i],
							       .bound_permille = xs[k],
							       .free_ch = lt_free_default(chans[i]),
							       .mix = (enum lt_mix)m };
					run_pair(&c, cfg, &ns, &sw);
					sweep_row(&out, &ns, &sw);
					lt_run_free(&ns);
					lt_run_free(&sw);
				}
		sim_outf(&out, "## free channels: %u channels, x = %.3f, 0..2 free (one vSSD more per"
			 " channel less free)\n", o.channels, o.bound_permille / 1000.0);
		sweep_head(&out);
		for (int m = 0; m < LT_MIXES; m++)
			for (uint32_t f = 0; f <= 2 && f < o.channels; f++) {
				cfg = (struct lt_cfg){ .channels = o.channels,
						       .bound_permille = o.bound_permille, .free_ch = f,
						       .mix = (enum lt_mix)m };
				run_pair(&c, cfg, &ns, &sw);
				sweep_row(&out, &ns, &sw);
				lt_run_free(&ns);
				lt_run_free(&sw);
			}
	}
	sim_outf(&out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
	return 0;
}
