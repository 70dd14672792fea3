/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment 3: write amplification vs over-provisioning. Per
 * op_permille of --ops and GC policy (greedy, cost-benefit), a fresh
 * device is filled sequentially and then written --write-x times its
 * capacity with uniform random 4 KiB writes; WAF is measured over the
 * last capacity's worth (steady state) and printed beside the analytic
 * estimates for greedy (Hu et al. 2009 approximation, Desnoyers 2012
 * mean-field fixed point) at the physical and the effective spare.
 * Table B repeats it with a CMT that holds every translation page.
 */
#include <math.h>
#include <stdlib.h>

#include "sim.h"

/* Principal branch of Lambert W on [-1/e, 0). */
static double lambert_w0(double x)
{
	double w = x < -0.32 ? -1.0 + sqrt(2.0 * (1.0 + M_E * x)) : x; /* start */

	for (int i = 0; i < 100; i++) {
		double e = exp(w), fw = w * e - x;
		double step = fw / (e * (w + 1.0) - (w + 2.0) * fw / (2.0 * w + 2.0));

		w -= step;
		if (fabs(step) < 1e-14)
			break;
	}
	return w;
}

/* Greedy ~ LRW mean field (Desnoyers 2012): alpha = physical / logical. */
static double waf_fixed_point(double alpha)
{
	if (alpha <= 1.0)
		return INFINITY;
	return alpha / (alpha + lambert_w0(-alpha * exp(-alpha)));
}

/* Hu et al. 2009 / Desnoyers 2012 approximation, rho = alpha - 1. */
static double waf_approx(double rho)
{
	return rho <= 0 ? INFINITY : (1.0 + rho) / (2.0 * rho);
}

/* The alpha at which the fixed point gives @waf (bisection). */
static double alpha_implied(double waf)
{
	double lo = 1.0 + 1e-9, hi = 20.0;

	if (!(waf > 1.0))
		return NAN;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);

		if (waf_fixed_point(mid) > waf)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* What the columns of the exp 3 tables mean, after the common header. */
static void waf_explain(struct sim_out *out, const struct sim *s)
{
	const struct sim_opts *o = s->o;

	sim_out_header(out, s, "experiment 3: write amplification vs over-provisioning, uniform"
		     " random 4 KiB writes");
	sim_outf(out, "#   (the header's capacity is for the first row; each row is a fresh device"
		" with its op_permille)\n");
	sim_outf(out, "# per row: sequential fill of the capacity, then %.1f x capacity of uniform"
		" random 4 KiB writes (QD %u, no two in flight to one LBA);\n"
		"#   then %u random LBAs read back and verified\n",
	     o->write_x, o->qd, 65536u);
	sim_outf(out, "# spare: op_permille is taken of the space left after 2 checkpoint + 4"
		" open-stream + 1 GC superblocks, so the flash spare is larger:\n");
	sim_outf(out, "#   a_phys = (superblocks - 2) x units_per_sb / capacity (all non-checkpoint"
		" flash over the host capacity)\n");
	sim_outf(out, "#   a_eff  = a_phys minus what GC cannot use as spare, as time averages over"
		" the measured writes: the free superblocks\n"
		"#            (free; GC keeps them at its levels, host writes are paced"
		" below the foreground one) and the unwritten part of the open superblocks\n"
		"#            (open), and the valid translation pages (TPs)\n");
	sim_outf(out, "# formulas for greedy under uniform random writes, rho = alpha - 1:\n");
	sim_outf(out, "#   apx  = (1 + rho) / (2 rho)  (Hu et al. 2009 / Desnoyers 2012 approximation)\n");
	sim_outf(out, "#   fxp  = alpha / (alpha + W0(-alpha e^-alpha))  (mean-field fixed point of LRW"
		" cleaning, which greedy approaches for large blocks;\n"
		"#          Desnoyers 2012); _ph at a_phys, _ef at a_eff; a_impl = the alpha at"
		" which fxp equals the measured waf_gc\n");
	sim_outf(out, "# measured over the last 1 x capacity of random writes (steady state); waf_all"
		" over all %.1f x:\n", o->write_x);
	sim_outf(out, "#   waf    = flash units programmed (host + GC + translation pages + padding)"
		" / host units (ftl_waf's definition, counter deltas)\n");
	sim_outf(out, "#   waf_gc = (host + GC-moved units, data and translation pages) / host units:"
		" what the formulas model\n");
	sim_outf(out, "#   tp/w   = translation-page units written (CMT write-backs) per host unit;"
		" gctp/w = of which GC batches wrote back\n");
}

static void waf_table_header(struct sim_out *out, const char *title)
{
	sim_outf(out, "## %s\n", title);
	sim_outf(out, "%-5s %-6s %7s %5s %7s %7s %5s %5s %7s %7s %7s %7s %6s %6s %7s %7s %7s %7s %7s %6s %7s\n",
	     "op", "gc", "cap_MiB", "TPs", "rho_nom", "a_phys", "free", "open", "a_eff", "waf_all",
	     "waf", "waf_gc", "tp/w", "gctp/w", "apx_ph", "fxp_ph", "apx_ef", "fxp_ef", "a_impl",
	     "gcruns", "wall_s");
}

/*
 * One row: a fresh device with CMT @cmt_kib, op_permille @op and GC policy
 * @pol (0 greedy, 1 cost-benefit); the experiment's header before the
 * first row (*@first).
 */
static void waf_row(struct sim_out *out, const struct sim_opts *o, uint32_t cmt_kib,
		    uint32_t op, int pol, bool *first)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct ftl_config fc;
	struct ftl_stats a, b, c;
	double w1 = sim_wall_now(), alpha_phys, alpha_eff, rho_nom, free_avg, open_avg;
	uint64_t total, last;
	double waf_all, waf_last, waf_gc_last, tp_last, gctp_last, v0, v1;

	if (!s)
		sim_die("out of memory");
	sim_base_config(&fc, o);
	fc.cmt_bytes = cmt_kib * 1024;
	fc.op_permille = op;
	fc.gc_policy = pol ? FTL_GC_COST_BENEFIT : FTL_GC_GREEDY;
	sim_gc_levels(&fc, o);
	sim_open(s, o, &fc);
	if (*first) {
		waf_explain(out, s);
		*first = false;
	}
	sim_fill(s, 0, 0);
	ftl_get_stats(s->f, &a);
	total = (uint64_t)(o->write_x * s->cap);
	last = s->cap < total ? s->cap : total;
	s->free_sum = s->open_sum = 0;
	s->samples = 0;
	sim_run_job(s, SIM_JOB_RANDW, total - last);
	ftl_get_stats(s->f, &b);
	s->free_sum = s->open_sum = 0;
	s->samples = 0;
	sim_run_job(s, SIM_JOB_RANDW, last);
	ftl_get_stats(s->f, &c);
	free_avg = s->free_sum / (double)(s->samples ? s->samples : 1);
	open_avg = s->open_sum / (double)(s->samples ? s->samples : 1);
	v0 = (double)(c.units_written_host + c.units_written_gc + c.units_written_tp +
		      c.units_padded - a.units_written_host - a.units_written_gc -
		      a.units_written_tp - a.units_padded);
	waf_all = v0 / (double)(c.units_written_host - a.units_written_host);
	v1 = (double)(c.units_written_host + c.units_written_gc + c.units_written_tp +
		      c.units_padded - b.units_written_host - b.units_written_gc -
		      b.units_written_tp - b.units_padded);
	waf_last = v1 / (double)(c.units_written_host - b.units_written_host);
	waf_gc_last = (double)(c.units_written_host + c.units_written_gc -
			       b.units_written_host - b.units_written_gc) /
		      (double)(c.units_written_host - b.units_written_host);
	tp_last = (double)(c.units_written_tp - b.units_written_tp) /
		  (double)(c.units_written_host - b.units_written_host);
	gctp_last = (double)(c.gc_tp_writebacks - b.gc_tp_writebacks) /
		    (double)(c.units_written_host - b.units_written_host);
	rho_nom = op / (1000.0 - op);
	alpha_phys = (double)(s->lay.nr_sb - s->lay.ckpt_sbs) * s->lay.units_per_sb / s->cap;
	alpha_eff = ((double)(s->lay.nr_sb - s->lay.ckpt_sbs) - free_avg - open_avg) *
			    s->lay.units_per_sb / s->cap -
		    (double)s->lay.nr_tp / s->cap;
	if (o->debug)
		fprintf(stderr, "debug: padded %llu (+%llu last), tp pages held %llu, programs %llu, gc moved %llu, gc tp wb %llu, cmt wb %llu\n",
			(unsigned long long)c.units_padded,
			(unsigned long long)(c.units_padded - b.units_padded),
			(unsigned long long)c.tp_pages_held,
			(unsigned long long)c.flash_programs,
			(unsigned long long)c.gc_units_moved,
			(unsigned long long)c.gc_tp_writebacks,
			(unsigned long long)c.cmt_writebacks);
	/* Read a sample back. */
	s->range = s->cap;
	sim_run_job(s, SIM_JOB_READ, 65536);
	sim_outf(out, "%-5u %-6s %7.0f %5u %7.3f %7.3f %5.1f %5.2f %7.3f %7.3f %7.3f %7.3f %6.3f %6.3f %7.3f %7.3f %7.3f %7.3f %7.3f %6llu %7.1f\n",
	     op, pol ? "cb" : "greedy", s->cap * 4096.0 / MiB, s->lay.nr_tp, rho_nom,
	     alpha_phys, free_avg, open_avg, alpha_eff, waf_all, waf_last, waf_gc_last,
	     tp_last, gctp_last, waf_approx(alpha_phys - 1), waf_fixed_point(alpha_phys),
	     waf_approx(alpha_eff - 1), waf_fixed_point(alpha_eff),
	     alpha_implied(waf_gc_last), (unsigned long long)(c.gc_runs - a.gc_runs),
	     sim_wall_now() - w1);
	sim_close(s);
	free(s);
}

static void waf_table(struct sim_out *out, const struct sim_opts *o, uint32_t cmt_kib,
		      const char *title, bool *first)
{
	waf_table_header(out, title);
	for (uint32_t k = 0; k < o->nops; k++)
		for (int pol = 0; pol < 2; pol++)
			if (o->gc == 2 || o->gc == pol)
				waf_row(out, o, cmt_kib, o->ops[k], pol, first);
}

void sim_exp3(const struct sim_opts *opts)
{
	struct sim_out out;
	double w0 = sim_wall_now();
	bool first = true;
	struct sim_opts waf_opts = *opts;
	const struct sim_opts *o = &waf_opts;
	char title[256];

	/* A smaller device than exp 1/2: GC-heavy runs cost CPU per unit moved. */
	waf_opts.raw_mib = opts->waf_raw_mib;
	waf_opts.ppb = opts->waf_ppb;
	sim_out_open(&out, o, "ftl_waf.txt");
	snprintf(title, sizeof(title), "A: DFTL as configured, CMT %u KiB (%u translation pages)",
		 o->cmt_kib, o->cmt_kib / 4);
	waf_table(&out, o, o->cmt_kib, title, &first);
	if (o->waf_control) {
		snprintf(title, sizeof(title),
			 "B: control, CMT %u KiB: every translation page stays cached, so no CMT"
			 " write-backs; GC alone, as the formulas assume", o->waf_control_kib);
		waf_table(&out, o, o->waf_control_kib, title, &first);
	}
	sim_outf(&out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
}

