/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim wear: a vSSD's 4 KiB random read latency as its flash wears,
 * with the NAND reliability model on (nand_config.rel, nand/reliability.c:
 * bit errors from P/E cycles, data age and read disturb; read retries;
 * uncorrectable pages), and what refresh (ftl_config.refresh_retries) does.
 *
 * Each point: a fresh device (RAM store, TLC timing), filled once with
 * 128 KiB sequential writes; then every block's erase count is set to the
 * point's share of the rated cycles (TLC 3000: the device as it would be
 * after that much writing, without simulating it) and the data is aged
 * by the point's days (nand_reliability_age(): a shelf or a bake); then a
 * closed loop of 4 KiB random reads over the whole capacity, in phases of
 * --reads each, virtual time running on, so a refresh's effect (the data
 * moved to freshly written pages, its age back to zero) shows in the next
 * phase; between phases the host is away for --idle-ms (GC's reads wait
 * behind a saturating host's: refreshes run when it pauses). Per phase:
 * IOPS, mean / p50 / p99 / p99.9 / max latency, read retries per NAND data
 * read, host reads that failed (an uncorrectable page, or an LBA lost),
 * superblocks refreshed so far, units lost by GC and translation pages it
 * could not read (their LBAs lost). Refresh off: refresh_retries 0; on:
 * the FTL's default.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define WEAR_MAX_PTS 16

struct wear_opts {
	uint32_t channels, dies, planes, ppb, blocks, qd, phases, idle_ms;
	uint64_t reads, seed;
	uint32_t wear[WEAR_MAX_PTS], nwear; /* percent of the rated cycles */
	uint32_t days[WEAR_MAX_PTS], ndays;
	int refresh; /* 0 off, 1 on, 2 both */
	const char *out;
};

struct wear_run {
	const struct wear_opts *o;
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct ftl_vdrive vd;
	struct ftl *f;
	uint32_t cap;
	uint64_t rng;
	struct ftl_io io[SIM_MAX_QD];
	uint8_t *buf;
	uint64_t t_sub[SIM_MAX_QD];
	uint64_t left, inflight, errors;
	bool done;
	struct blox_hist lat;
};

static void wear_usage(void)
{
	printf("usage: blox-sim wear [options]\n"
	       "  --channels N --dies N --planes N --ppb N --blocks N  geometry (default 4, 1, 2, 384, 64)\n"
	       "  --wear a,b,...     erase counts in percent of the rated cycles (default 0,50,100,150,200,225)\n"
	       "  --days a,b,...     data age in days (default 0,365)\n"
	       "  --refresh on|off|both  (default both)\n"
	       "  --qd N             queue depth (default 16)\n"
	       "  --reads N          reads per phase (default 20000)   --phases N (default 3)\n"
	       "  --idle-ms N        the host away between phases, virtual ms (default 5000)\n"
	       "  --seed N           error samples and LBAs (default 1)\n"
	       "  --out FILE         results (default stdout)\n");
}

static void submit_one(struct wear_run *w, uint32_t i);

static void read_done(struct ftl_io *io)
{
	struct wear_run *w = io->cb_arg;
	uint32_t i = (uint32_t)(io - w->io);

	blox_hist_add(&w->lat, blox_clock_now(&w->vd.clock) - w->t_sub[i]);
	w->errors += io->status != 0; /* -EIO: an uncorrectable page, or a lost LBA */
	w->inflight--;
	if (w->left)
		submit_one(w, i);
	else if (!w->inflight)
		w->done = true;
}

static void submit_one(struct wear_run *w, uint32_t i)
{
	struct ftl_io *io = &w->io[i];

	memset(io, 0, sizeof(*io));
	io->op = FTL_IO_READ;
	io->lba = (uint32_t)(sim_rnd(&w->rng) % w->cap);
	io->nr = 1;
	io->buf = w->buf + (size_t)i * FTL_UNIT;
	io->cb = read_done;
	io->cb_arg = w;
	w->t_sub[i] = blox_clock_now(&w->vd.clock);
	w->left--;
	w->inflight++;
	if (ftl_submit(w->f, io))
		sim_die("read submit failed");
}

static void fill_done(struct ftl_io *io)
{
	*(bool *)io->cb_arg = true;
}

/* The whole capacity in 128 KiB sequential writes, one at a time. */
static void fill(struct wear_run *w)
{
	uint8_t *b = calloc(SIM_SEQ_UNITS, FTL_UNIT);

	if (!b)
		sim_die("out of memory");
	for (uint32_t lba = 0; lba < w->cap; lba += SIM_SEQ_UNITS) {
		bool done = false;
		struct ftl_io io = { .op = FTL_IO_WRITE, .lba = lba, .buf = b, .cb = fill_done,
				     .cb_arg = &done };

		io.nr = w->cap - lba < SIM_SEQ_UNITS ? w->cap - lba : SIM_SEQ_UNITS;
		for (uint32_t u = 0; u < io.nr; u++)
			sim_stamp_unit(b + (size_t)u * FTL_UNIT, lba + u, 1);
		if (ftl_submit(w->f, &io))
			sim_die("fill submit failed");
		ftl_vdrive_run_until(&w->vd, w->f, &done);
		if (!done || io.status)
			sim_die("fill write failed: %d", io.status);
	}
	free(b);
}

struct wear_point {
	uint32_t wear, days;
	bool refresh;
	uint32_t phase;
	double kiops, mean_us, p50_us, p99_us, p999_us, max_us, retries_per_read;
	uint64_t errors, refreshes, units_lost, tp_lost;
};

static void run_point(const struct wear_opts *o, uint32_t wear, uint32_t days, bool refresh,
		      struct wear_point *pts)
{
	struct wear_run w = { .o = o, .rng = o->seed };
	struct ftl_resources res = { 0 };
	struct ftl_config fc;
	uint64_t pe = (uint64_t)wear * 3000 / 100;

	nand_config_default(&w.nc);
	w.nc.geo.channels = o->channels;
	w.nc.geo.dies_per_channel = o->dies;
	w.nc.geo.planes_per_die = o->planes;
	w.nc.geo.pages_per_block = o->ppb;
	w.nc.geo.blocks_per_plane = o->blocks;
	nand_timing_default(&w.nc.timing, w.nc.geo.cell);
	nand_reliability_default(&w.nc.rel, w.nc.geo.cell);
	w.nc.rel.enabled = true;
	w.nc.rel.seed = o->seed;
	sim_nand_open(&w.nc, &w.store, &w.dev);
	ftl_vdrive_init(&w.vd, w.dev, w.store);
	ftl_config_default(&fc);
	fc.refresh_retries = refresh ? fc.refresh_retries : 0;
	res.nr_dies = o->channels * o->dies;
	for (uint32_t i = 0; i < res.nr_dies; i++)
		res.dies[i] = i;
	res.nr_blocks = o->blocks;
	if (ftl_create(&fc, &w.vd.env, &res, &w.f))
		sim_die("ftl_create failed");
	w.cap = (uint32_t)ftl_capacity(w.f);
	w.buf = calloc(o->qd, FTL_UNIT);
	if (!w.buf)
		sim_die("out of memory");
	fill(&w);
	for (uint64_t b = 0; b < nand_blocks(&w.nc.geo); b++)
		w.store->blocks[b].erase_count = (uint32_t)pe;
	nand_reliability_age(w.dev, (uint64_t)days * 86400ull * 1000000000ull);
	for (uint32_t ph = 0; ph < o->phases; ph++) {
		struct wear_point *p = &pts[ph];
		const struct nand_stats *ns = nand_dev_stats(w.dev);
		uint64_t r0 = ns->rel.reads, rt0 = ns->rel.retries, t0;
		struct ftl_stats st;

		blox_hist_reset(&w.lat);
		w.left = o->reads;
		w.errors = 0;
		w.done = false;
		t0 = blox_clock_now(&w.vd.clock);
		for (uint32_t i = 0; i < o->qd && w.left; i++)
			submit_one(&w, i);
		ftl_vdrive_run_until(&w.vd, w.f, &w.done);
		if (!w.done)
			sim_die("reads hang");
		ftl_get_stats(w.f, &st);
		*p = (struct wear_point){
			.wear = wear, .days = days, .refresh = refresh, .phase = ph + 1,
			.kiops = o->reads / sim_us(blox_clock_now(&w.vd.clock) - t0) * 1e3,
			.mean_us = blox_hist_mean(&w.lat) / 1000.0,
			.p50_us = sim_us(blox_hist_quantile(&w.lat, 0.5)),
			.p99_us = sim_us(blox_hist_quantile(&w.lat, 0.99)),
			.p999_us = sim_us(blox_hist_quantile(&w.lat, 0.999)),
			.max_us = sim_us(w.lat.max),
			.retries_per_read = ns->rel.reads > r0 ? (double)(ns->rel.retries - rt0) /
								 (ns->rel.reads - r0) : 0,
			.errors = w.errors, .refreshes = st.refreshes, .units_lost = st.units_lost,
			.tp_lost = st.tp_lost,
		};
		/*
		 * Between phases the host is away for --idle-ms: GC's refreshes,
		 * whose reads wait behind the host's while it reads, run then.
		 */
		ftl_vdrive_run(&w.vd, w.f, blox_clock_now(&w.vd.clock) + o->idle_ms * 1000000ull);
	}
	ftl_destroy(w.f);
	nand_dev_destroy(w.dev);
	nand_store_close(w.store);
	free(w.buf);
}

int sim_wear_main(int argc, char **argv)
{
	static const struct sim_choice both[] = { { "off", 0 }, { "on", 1 }, { "both", 2 }, { 0 } };
	struct wear_opts o = {
		.channels = 4, .dies = 1, .planes = 2, .ppb = 384, .blocks = 64, .qd = 16,
		.phases = 3, .idle_ms = 5000, .reads = 20000, .seed = 1, .refresh = 2,
		.wear = { 0, 50, 100, 150, 200, 225 }, .nwear = 6, .days = { 0, 365 }, .ndays = 2,
	};
	const struct sim_opt opts[] = {
		SIM_OPT_U32("--channels", &o.channels, 1, 16), SIM_OPT_U32("--dies", &o.dies, 1, 8),
		SIM_OPT_U32("--planes", &o.planes, 1, 4), SIM_OPT_U32("--ppb", &o.ppb, 16, 4096),
		SIM_OPT_U32("--blocks", &o.blocks, 16, 4096), SIM_OPT_U32("--qd", &o.qd, 1, SIM_MAX_QD),
		SIM_OPT_U32("--phases", &o.phases, 1, 8), SIM_OPT_U32("--idle-ms", &o.idle_ms, 0, 3600000), SIM_OPT_U64("--reads", &o.reads, 1, 1e9),
		SIM_OPT_SEED(&o.seed),
		SIM_OPT_U32S("--wear", o.wear, &o.nwear, WEAR_MAX_PTS, 0, 1000),
		SIM_OPT_U32S("--days", o.days, &o.ndays, WEAR_MAX_PTS, 0, 36500),
		SIM_OPT_CHOICE("--refresh", &o.refresh, both), SIM_OPT_STR("--out", &o.out),
		SIM_OPT_END,
	};
	struct wear_point pts[8];
	struct sim_machine m;
	char cmd[1024];
	FILE *out = stdout;
	double w0 = sim_wall_now();

	if (!sim_opts_parse("wear", wear_usage, opts, argc, argv))
		return 0;
	if (o.out && !(out = fopen(o.out, "w")))
		sim_die("%s: cannot write", o.out);
	sim_machine_get(&m);
	sim_cmdline(cmd, sizeof(cmd), argc, argv);
	fprintf(out, "# blox-sim wear: 4 KiB random reads as the flash wears, refresh off and on (virtual time)\n"
		     "# command: %s\n# machine: %s, %ld CPUs, %s %s (wall time only)\n",
		cmd, m.model, m.cpus, m.os, m.release);
	fprintf(out, "# device: %u ch x %u dies x %u planes x %u blocks x %u pages of 16 KiB, TLC timing; "
		     "QD %u over the whole capacity, %" PRIu64 " reads per phase, %u ms idle between\n",
		o.channels, o.dies, o.planes, o.blocks, o.ppb, o.qd, o.reads, o.idle_ms);
	{
		struct nand_reliability r;

		nand_reliability_default(&r, NAND_TLC);
		fprintf(out, "# model (nand/reliability.c): RBER = e0 (1 + (C/Cs)^d) + (1 + C/Cs)(r A^k + q R^g), "
			     "e0 %g, Cs %g, d %g, r %g, k %g, q %g, g %g; codeword %u B, ECC %u bits, "
			     "%u retries keeping %g (floor %g); wear in %% of 3000 rated cycles, A in days\n",
			r.e0, r.pe_scale, r.pe_exp, r.ret_coef, r.ret_exp, r.rd_coef, r.rd_exp,
			r.codeword_bytes, r.ecc_bits, r.retries, r.retry_keep, r.retry_floor);
	}
	fprintf(out, "wear%% days refresh phase  kIOPS  mean_us   p50_us   p99_us p99.9_us   max_us "
		     "retries/read errors refreshed lost tp_lost\n");
	for (uint32_t d = 0; d < o.ndays; d++)
		for (uint32_t i = 0; i < o.nwear; i++)
			for (int r = 0; r < 2; r++) {
				if (o.refresh != 2 && o.refresh != r)
					continue;
				run_point(&o, o.wear[i], o.days[d], r, pts);
				for (uint32_t ph = 0; ph < o.phases; ph++) {
					const struct wear_point *p = &pts[ph];

					fprintf(out, "%5u %4u %-7s %5u %6.1f %8.1f %8.1f %8.1f %8.1f %8.1f %12.3f %6" PRIu64
						     " %9" PRIu64 " %4" PRIu64 " %7" PRIu64 "\n",
						p->wear, p->days, p->refresh ? "on" : "off", p->phase, p->kiops,
						p->mean_us, p->p50_us, p->p99_us, p->p999_us, p->max_us,
						p->retries_per_read, p->errors, p->refreshes, p->units_lost,
						p->tp_lost);
				}
				fflush(out);
			}
	fprintf(out, "# wall %.1f s\n", sim_wall_now() - w0);
	if (out != stdout)
		fclose(out);
	return 0;
}
