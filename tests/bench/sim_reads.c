/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiments 1 and 2: a sequential fill (exp 2: with one random
 * 4 KiB write after every 1 MiB, uniform or ahead of the fill, with and
 * without stream separation), then closed-loop 4 KiB random reads over
 * growing LBA ranges, plain DFTL (MDC off) vs DFTL+MDC. Each point
 * restarts the FTL so that it starts with cold caches, lets GC settle,
 * warms up, idles (idle prefetch) and measures: mapping hit rate, IOPS,
 * latency, MDC descriptors and coverage.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/* One measured point of a sweep. */
struct point {
	uint64_t settle_ms;
	double hit, cmt, mdc, tp_per_read, kiops, mean_us, p99_us;
	uint64_t prefetched, gc_runs, mdc_count, mdc_cover;
};

/* GC runs so far. */
static uint64_t gc_runs(const struct sim *s)
{
	struct ftl_stats st;

	ftl_get_stats(s->f, &st);
	return st.gc_runs;
}

/*
 * After a restart the streams' last superblocks (padded at shutdown) come
 * back as full, partly valid superblocks, which background GC collects:
 * let that finish while idle, so that no GC runs during the reads.
 * Returns the virtual ms it took.
 */
static uint64_t settle_gc(struct sim *s)
{
	uint64_t t0 = blox_clock_now(&s->vd.clock);
	uint64_t runs = gc_runs(s);

	for (int i = 0; i < 600; i++) {
		struct ftl_gc_info g;

		sim_run_idle(s, 100000000ull); /* 100 ms */
		ftl_inspect_gc(s->f, &g);
		if (!g.busy && gc_runs(s) == runs)
			break;
		runs = gc_runs(s);
	}
	return (blox_clock_now(&s->vd.clock) - t0) / 1000000;
}

static void measure_range(struct sim *s, const struct ftl_config *fc, uint32_t range,
			  struct point *p)
{
	const struct sim_opts *o = s->o;
	struct ftl_stats a, b;
	struct ftl_mdc_info mi;
	uint64_t t0, t1;

	memset(p, 0, sizeof(*p));
	sim_restart(s, fc);
	p->settle_ms = settle_gc(s);
	s->range = range;
	sim_run_job(s, SIM_JOB_READ, o->warmup);
	if (o->prefetch) {
		ftl_get_stats(s->f, &a);
		sim_run_idle(s, o->idle_ms * 1000000ull);
		ftl_get_stats(s->f, &b);
		p->prefetched = b.prefetched_tps - a.prefetched_tps;
	}
	ftl_get_stats(s->f, &a);
	t0 = blox_clock_now(&s->vd.clock);
	sim_run_job(s, SIM_JOB_READ, o->reads);
	t1 = blox_clock_now(&s->vd.clock);
	ftl_get_stats(s->f, &b);
	{
		/* Counted here: ftl_stats.host_reads was never counted at 550bb7a. */
		double reads = (double)s->completed;
		double miss = (double)(b.cmt_misses - a.cmt_misses);
		double mdc = (double)(b.mdc_hits - a.mdc_hits);

		p->hit = 100.0 * (1.0 - miss / reads);
		p->mdc = 100.0 * mdc / reads;
		p->cmt = p->hit - p->mdc;
		p->tp_per_read = (double)(b.flash_tp_reads - a.flash_tp_reads) / reads;
		p->kiops = (double)s->completed / ((double)(t1 - t0) * 1e-9) / 1000.0;
		p->mean_us = blox_hist_mean(&s->lat) / 1000.0;
		p->p99_us = (double)blox_hist_quantile(&s->lat, 0.99) / 1000.0;
		p->gc_runs = b.gc_runs - a.gc_runs;
	}
	if (o->debug)
		fprintf(stderr, "measured: reads %llu cmt_hits +%llu cmt_misses +%llu mdc_lookups +%llu mdc_hits +%llu\n",
			(unsigned long long)s->completed, (unsigned long long)(b.cmt_hits - a.cmt_hits),
			(unsigned long long)(b.cmt_misses - a.cmt_misses),
			(unsigned long long)(b.mdc_lookups - a.mdc_lookups),
			(unsigned long long)(b.mdc_hits - a.mdc_hits));
	if (o->debug)
		fprintf(stderr, "measured: tp units +%llu writebacks +%llu gc moved +%llu gc runs +%llu programs +%llu erases +%llu\n",
			(unsigned long long)(b.units_written_tp - a.units_written_tp),
			(unsigned long long)(b.cmt_writebacks - a.cmt_writebacks),
			(unsigned long long)(b.gc_units_moved - a.gc_units_moved),
			(unsigned long long)(b.gc_runs - a.gc_runs),
			(unsigned long long)(b.flash_programs - a.flash_programs),
			(unsigned long long)(b.flash_erases - a.flash_erases));
	ftl_inspect_mdc(s->f, &mi);
	p->mdc_count = mi.count;
	p->mdc_cover = mi.covered;
}

/* --ranges in units of @s's capacity, ascending, no repeats. */
static void range_list(const struct sim *s, uint32_t *ranges, uint32_t *n)
{
	const struct sim_opts *o = s->o;

	*n = 0;
	for (uint32_t i = 0; i < o->nranges; i++) {
		uint64_t r = o->range_den[i] ? (uint64_t)s->cap * o->range_num[i] / o->range_den[i]
					    : (uint64_t)o->range_num[i] * 256; /* MiB */

		if (r < 1)
			r = 1;
		if (r > s->cap)
			r = s->cap;
		ranges[(*n)++] = (uint32_t)r;
	}
	/* Ascending, no repeats. */
	for (uint32_t i = 1; i < *n; i++)
		for (uint32_t j = i; j > 0 && ranges[j] < ranges[j - 1]; j--) {
			uint32_t t = ranges[j];

			ranges[j] = ranges[j - 1];
			ranges[j - 1] = t;
		}
	for (uint32_t i = 1; i < *n;)
		if (ranges[i] == ranges[i - 1]) {
			memmove(&ranges[i], &ranges[i + 1], (*n - i - 1) * sizeof(*ranges));
			(*n)--;
		} else {
			i++;
		}
}

static void sweep_header(struct sim_out *out, const struct sim_opts *o)
{
	sim_outf(out, "# per point: restart the FTL (cold CMT/MDC/hot counters), idle until background GC of the superblocks\n"
		"#   the restart left partly written is done (settle), %llu warm-up reads, %s, then %llu"
		" measured reads; closed loop QD %u, 4 KiB, uniform over [0, range)\n",
	     (unsigned long long)o->warmup,
	     o->prefetch ? "an idle period with idle prefetch (cfg.idle_ns 50 ms, then ftl_process every"
			  " 100 us)"
			: "no idle period (prefetch not used)",
	     (unsigned long long)o->reads, o->qd);
	if (o->prefetch)
		sim_outf(out, "#   idle period %llu ms of virtual time; pf = translation pages prefetched into the MDC\n",
		     (unsigned long long)o->idle_ms);
	sim_outf(out, "# hit%% = mapping hit rate = 1 - dCMT_misses / reads over the measured 4 KiB reads: the share"
		" of 4 KiB read lookups\n"
		"#   resolved in SRAM (CMT or MDC) without a translation-page flash read. A read that finds its"
		" translation page\n"
		"#   already being loaded for another read counts as a hit here (it issues no flash read of its"
		" own), though\n"
		"#   the FTL's cmt_hits does not count it (nor a read resumed after its own load).\n");
	sim_outf(out, "# mdc%% = dmdc_hits / reads; cmt%% = hit%% - mdc%%; tp/rd = translation-page flash reads"
		" per host read;\n"
		"# kIOPS = measured reads / virtual time; lat = submit->completion (mean, p99); desc/cov = MDC"
		" descriptors and MiB covered at the end;\n"
		"# gc = GC runs during the measured reads; every read was verified against the written data\n");
}

static void sweep_row_header(struct sim_out *out, const char *label)
{
	sim_outf(out, "%-22s %9s %6s %5s %7s %7s %7s %6s %8s %8s %8s %4s %7s %5s %3s\n", label, "range_MiB",
	     "frac", "TPs", "hit%", "cmt%", "mdc%", "tp/rd", "kIOPS", "lat_us", "p99_us", "desc",
	     "cov_MiB", "pf", "gc");
}

static void sweep(struct sim_out *out, struct sim *s, const char *label, bool mdc)
{
	uint32_t ranges[SIM_MAX_RANGES], n;
	struct ftl_config fc = s->fc;

	fc.mdc_enabled = mdc;
	range_list(s, ranges, &n);
	for (uint32_t i = 0; i < n; i++) {
		struct point p;
		double w0 = sim_wall_now();

		measure_range(s, &fc, ranges[i], &p);
		sim_outf(out, "%-22s %9.0f %6.4f %5u %7.2f %7.2f %7.2f %6.3f %8.2f %8.1f %8.1f %4llu %7.0f %5llu %3llu\n",
		     label, ranges[i] * 4096.0 / MiB, (double)ranges[i] / s->cap,
		     (ranges[i] + s->lay.tp_entries - 1) / s->lay.tp_entries, p.hit, p.cmt, p.mdc,
		     p.tp_per_read, p.kiops, p.mean_us, p.p99_us, (unsigned long long)p.mdc_count,
		     p.mdc_cover * 4096.0 / MiB, (unsigned long long)p.prefetched,
		     (unsigned long long)p.gc_runs);
		fprintf(stderr, "  [%.1f s wall, GC settle %llu ms virtual]\n", sim_wall_now() - w0,
			(unsigned long long)p.settle_ms);
	}
}

/* @vs: the fill's virtual seconds (not the idle after it); @wall: its wall seconds. */
static void fill_report(struct sim_out *out, const struct sim *s, const char *what, double vs,
			double wall)
{
	struct ftl_stats st;

	const struct nand_stats *ns = nand_dev_stats(s->dev);

	ftl_get_stats(s->f, &st);
	sim_outf(out, "# fill (%s): %llu units host, %llu translation-page units, %llu padded, %llu GC"
		" moved; %.1f s virtual (%.1f MiB/s), %.1f s wall; free superblocks after: %llu of %llu;"
		" multi-plane program groups %llu\n",
	     what, (unsigned long long)st.units_written_host,
	     (unsigned long long)st.units_written_tp, (unsigned long long)st.units_padded,
	     (unsigned long long)st.gc_units_moved, vs,
	     vs > 0 ? st.units_written_host * 4096.0 / MiB / vs : 0.0, wall,
	     (unsigned long long)st.free_superblocks, (unsigned long long)st.superblocks,
	     (unsigned long long)ns->mp_groups[NAND_OP_PROGRAM]);
}

/* A device for exp 1/2 with stream separation @sep. */
static struct sim *read_device(const struct sim_opts *o, bool sep)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct ftl_config fc;

	if (!s)
		sim_die("out of memory");
	sim_base_config(&fc, o);
	fc.stream_separation = sep;
	sim_gc_levels(&fc, o);
	sim_open(s, o, &fc);
	return s;
}

/* The sweeps --mdc asks for: MDC off as @dftl, on as @mdc. */
static void sweeps(struct sim_out *out, struct sim *s, const char *dftl, const char *mdc)
{
	if (s->o->mdc != 1)
		sweep(out, s, dftl, false);
	if (s->o->mdc != 0)
		sweep(out, s, mdc, true);
}

void sim_exp1(const struct sim_opts *o)
{
	struct sim_out out;
	double w0 = sim_wall_now(), w, fv;
	struct sim *s = read_device(o, o->sep != 0);

	sim_out_open(&out, o, "ftl_exp1.txt");
	sim_out_header(&out, s, "experiment 1: sequential fill, then 4 KiB random reads over growing LBA ranges");
	sim_out_budgets(&out, s);
	sim_outf(&out, "# fill: the whole capacity in 128 KiB sequential writes, QD %u; stream separation %s\n",
	     o->qd, s->fc.stream_separation ? "on" : "off");
	sim_fill(s, 0, 0);
	w = sim_wall_now() - w0;
	fv = blox_clock_now(&s->vd.clock) * 1e-9;
	/* Let background/idle GC settle before the first restart. */
	sim_run_idle(s, 2000000000ull);
	fill_report(&out, s, "sequential", fv, w);
	sweep_header(&out, o);
	sweep_row_header(&out, "# config");
	sweeps(&out, s, "DFTL", "DFTL+MDC");
	sim_outf(&out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
	sim_close(s);
	free(s);
}

void sim_exp2(const struct sim_opts *o)
{
	struct sim_out out;
	double w0 = sim_wall_now();
	bool first = true;

	sim_out_open(&out, o, "ftl_exp2.txt");
	for (int mode = 0; mode < 2; mode++) {
		if (o->rand_lba != 2 && o->rand_lba != mode)
			continue;
		for (int sep = 1; sep >= 0; sep--) {
			struct sim *s;
			char label[64], mdc_label[64];
			double w1 = sim_wall_now(), fv;

			if (o->sep != 2 && o->sep != sep)
				continue;
			s = read_device(o, sep);
			if (first) {
				sim_out_header(&out, s, "experiment 2: sequential fill with one random 4 KiB write"
					      " after every 1 MiB, then random reads over growing ranges");
				sim_out_budgets(&out, s);
				sim_outf(&out, "# fill: 128 KiB sequential writes over the whole capacity, and after"
					 " every 1 MiB (256 units) of them one 4 KiB write to a random LBA, QD %u\n",
				     o->qd);
				sim_outf(&out, "#   rand=uniform: the random LBA is uniform over the capacity (it also"
					 " overwrites, and so splits, LBA runs already filled)\n");
				sim_outf(&out, "#   rand=ahead: uniform over the LBAs the fill has not reached yet (the fill"
					 " overwrites them later: only the physical interleaving remains)\n");
				sim_outf(&out, "#   sep=on: stream separation (a 4 KiB write goes to the random stream);"
					 " sep=off: every host write into one open superblock\n");
				sweep_header(&out, o);
				sweep_row_header(&out, "# config");
				first = false;
			}
			sim_fill(s, 256, mode);
			fv = blox_clock_now(&s->vd.clock) * 1e-9;
			sim_run_idle(s, 2000000000ull);
			snprintf(label, sizeof(label), "%s sep=%s", mode ? "ahead" : "uniform",
				 sep ? "on" : "off");
			fill_report(&out, s, label, fv, sim_wall_now() - w1);
			snprintf(label, sizeof(label), "%s,%s,DFTL", mode ? "ahead" : "unif",
				 sep ? "sep" : "nosep");
			snprintf(mdc_label, sizeof(mdc_label), "%s,%s,MDC", mode ? "ahead" : "unif",
				 sep ? "sep" : "nosep");
			sweeps(&out, s, label, mdc_label);
			sim_close(s);
			free(s);
		}
	}
	sim_outf(&out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
}
