/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim fdp: device write amplification of a flash cache's two engines
 * on one vSSD, with and without Flexible Data Placement (ftl/fdp.c), the
 * shape of the FDP paper on CacheLib (Allison et al., arXiv 2503.11665):
 * a large-object engine that writes a log (LOC: 128 KiB writes going
 * round a region, so its data dies in the order it was written) and a
 * small-object engine that overwrites 4 KiB buckets at random (SOC), the
 * whole capacity in use.
 *
 * Each configuration is a fresh device: both regions filled, then
 * --warm-x x capacity of the mix, then --write-x x capacity measured. Per
 * write the SOC takes a 4 KiB unit with probability such that --soc-share
 * percent of the units written are the SOC's. Configurations:
 *   plain     no placement handles, one host stream (stream separation off:
 *             a conventional SSD that mixes the engines' writes);
 *   sep       no placement handles, the FTL's own sequential/random stream
 *             separation (the default of a nand namespace without FDP);
 *   fdp       two persistently isolated handles: LOC writes handle 0, SOC
 *             handle 1 (GC keeps them apart too);
 *   fdp-init  the same with initially isolated handles (GC mixes what it moves).
 * WAF = flash units programmed (host, GC, translation pages, padding) /
 * host units, over the measured writes; waf_gc = (host + GC moves) / host;
 * per handle (fdp): media bytes / host bytes of the handle, ftl_fdp_stats().
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define FDP_QD_MAX 64

struct fdp_opts {
	uint32_t channels, dies, planes, ppb, blocks, qd, soc_pct, soc_share, op;
	double write_x, warm_x;
	uint64_t seed;
	const char *out;
};

struct fdp_run {
	const struct fdp_opts *o;
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct ftl_vdrive vd;
	struct ftl *f;
	uint32_t cap, loc_end; /* LOC: [0, loc_end); SOC: [loc_end, cap) */
	uint32_t loc_ptr; /* the log's next LBA */
	bool fdp;
	double p_soc; /* chance an op is the SOC's */
	uint64_t rng, units_left, inflight, errors;
	struct ftl_io io[FDP_QD_MAX];
	uint8_t *buf;
	bool done;
};

static void fdp_usage(void)
{
	printf("usage: blox-sim fdp [options]\n"
	       "  --channels N --dies N --planes N --ppb N --blocks N  geometry (default 4, 2, 1, 96, 64; pages a multiple of the cell's bits)\n"
	       "  --op N          op_permille of the FTL (default 70)\n"
	       "  --soc-pct N     the SOC's share of the LBA space, percent (default 10)\n"
	       "  --soc-share N   the SOC's share of the units written, percent (default 50)\n"
	       "  --warm-x X      mixed writes before measuring, x capacity (default 2)\n"
	       "  --write-x X     mixed writes measured, x capacity (default 3)\n"
	       "  --qd N          queue depth (default 8)\n"
	       "  --seed N        LBAs and the mix (default 1)\n"
	       "  --out FILE      results (default stdout)\n");
}

static void submit_one(struct fdp_run *r, uint32_t i);

static void write_done(struct ftl_io *io)
{
	struct fdp_run *r = io->cb_arg;

	r->errors += io->status != 0;
	r->inflight--;
	if (r->units_left)
		submit_one(r, (uint32_t)(io - r->io));
	else if (!r->inflight)
		r->done = true;
}

static void submit_one(struct fdp_run *r, uint32_t i)
{
	struct ftl_io *io = &r->io[i];
	bool soc = sim_rnd_unit(&r->rng) <= r->p_soc;

	memset(io, 0, sizeof(*io));
	io->op = FTL_IO_WRITE;
	if (soc) {
		io->lba = r->loc_end + (uint32_t)(sim_rnd(&r->rng) % (r->cap - r->loc_end));
		io->nr = 1;
	} else {
		io->lba = r->loc_ptr;
		io->nr = r->loc_end - r->loc_ptr < SIM_SEQ_UNITS ? r->loc_end - r->loc_ptr
								 : SIM_SEQ_UNITS;
		r->loc_ptr = io->lba + io->nr == r->loc_end ? 0 : io->lba + io->nr;
	}
	io->ruh = r->fdp && soc ? 1 : 0;
	io->buf = r->buf + (size_t)i * SIM_SEQ_UNITS * FTL_UNIT;
	io->cb = write_done;
	io->cb_arg = r;
	r->units_left = io->nr < r->units_left ? r->units_left - io->nr : 0;
	r->inflight++;
	if (ftl_submit(r->f, io))
		sim_die("write submit failed");
}

/* @units of the mix at the queue depth. */
static void run_mix(struct fdp_run *r, uint64_t units)
{
	r->units_left = units;
	r->done = units == 0;
	for (uint32_t i = 0; i < r->o->qd && r->units_left; i++)
		submit_one(r, i);
	ftl_vdrive_run_until(&r->vd, r->f, &r->done);
	if (!r->done || r->errors)
		sim_die("mix: %s (%" PRIu64 " errors)", r->done ? "write errors" : "hang",
			r->errors);
}

static void fill_done(struct ftl_io *io)
{
	*(bool *)io->cb_arg = true;
}

/* [lo, hi) in 128 KiB sequential writes of handle @ruh, one at a time. */
static void fill(struct fdp_run *r, uint32_t lo, uint32_t hi, uint16_t ruh)
{
	for (uint32_t lba = lo; lba < hi; lba += SIM_SEQ_UNITS) {
		bool done = false;
		struct ftl_io io = { .op = FTL_IO_WRITE, .lba = lba, .buf = r->buf,
				     .cb = fill_done, .cb_arg = &done };

		io.nr = hi - lba < SIM_SEQ_UNITS ? hi - lba : SIM_SEQ_UNITS;
		io.ruh = r->fdp ? ruh : 0;
		if (ftl_submit(r->f, &io))
			sim_die("fill submit failed");
		ftl_vdrive_run_until(&r->vd, r->f, &done);
		if (!done || io.status)
			sim_die("fill write failed: %d", io.status);
	}
}

struct fdp_row {
	const char *name;
	double waf, waf_gc, tp_w, ruh_waf[2];
	uint64_t gc_runs;
	double wall_s;
};

static uint64_t programmed(const struct ftl_stats *s)
{
	return s->units_written_host + s->units_written_gc + s->units_written_tp + s->units_padded;
}

static void run_config(const struct fdp_opts *o, int mode, struct fdp_row *row)
{
	static const char *const names[] = { "plain", "sep", "fdp", "fdp-init" };
	struct fdp_run r = { .o = o, .rng = o->seed };
	struct ftl_resources res = { 0 };
	struct ftl_fdp_stats f0, f1;
	struct ftl_stats a, b;
	struct ftl_config fc;
	double f_soc = o->soc_share / 100.0, w0 = sim_wall_now();

	nand_config_default(&r.nc);
	r.nc.geo.channels = o->channels;
	r.nc.geo.dies_per_channel = o->dies;
	r.nc.geo.planes_per_die = o->planes;
	r.nc.geo.pages_per_block = o->ppb;
	r.nc.geo.blocks_per_plane = o->blocks;
	sim_nand_open(&r.nc, &r.store, &r.dev);
	ftl_vdrive_init(&r.vd, r.dev, r.store);
	ftl_config_default(&fc);
	fc.op_permille = o->op;
	fc.idle_ns = UINT64_MAX / 4; /* no idle work: the host never pauses */
	fc.stream_separation = mode != 0;
	r.fdp = mode >= 2;
	if (r.fdp) {
		fc.nr_ruh = 2;
		fc.ruh_persistent = mode == 2;
	}
	res.nr_dies = o->channels * o->dies;
	for (uint32_t i = 0; i < res.nr_dies; i++)
		res.dies[i] = i;
	res.nr_blocks = o->blocks;
	if (ftl_create(&fc, &r.vd.env, &res, &r.f))
		sim_die("ftl_create failed");
	r.cap = ftl_capacity(r.f);
	r.loc_end = (uint32_t)((uint64_t)r.cap * (100 - o->soc_pct) / 100);
	/* Per op: the SOC's chance so that f_soc of the units are its (an LOC op is 32). */
	r.p_soc = f_soc / (f_soc + (1.0 - f_soc) / SIM_SEQ_UNITS);
	r.buf = calloc((size_t)FDP_QD_MAX * SIM_SEQ_UNITS, FTL_UNIT);
	if (!r.buf)
		sim_die("out of memory");
	fill(&r, 0, r.loc_end, 0);
	fill(&r, r.loc_end, r.cap, 1);
	run_mix(&r, (uint64_t)(o->warm_x * r.cap));
	ftl_get_stats(r.f, &a);
	if (r.fdp)
		ftl_fdp_stats(r.f, &f0);
	run_mix(&r, (uint64_t)(o->write_x * r.cap));
	ftl_get_stats(r.f, &b);
	*row = (struct fdp_row){
		.name = names[mode],
		.waf = (double)(programmed(&b) - programmed(&a)) /
		       (double)(b.units_written_host - a.units_written_host),
		.waf_gc = (double)(b.units_written_host + b.units_written_gc -
				   a.units_written_host - a.units_written_gc) /
			  (double)(b.units_written_host - a.units_written_host),
		.tp_w = (double)(b.units_written_tp - a.units_written_tp) /
			(double)(b.units_written_host - a.units_written_host),
		.gc_runs = b.gc_runs - a.gc_runs,
	};
	if (r.fdp) {
		ftl_fdp_stats(r.f, &f1);
		for (int h = 0; h < 2; h++)
			row->ruh_waf[h] = (double)(f1.ruh[h].media_bytes - f0.ruh[h].media_bytes) /
					  (double)(f1.ruh[h].host_bytes - f0.ruh[h].host_bytes);
	}
	row->wall_s = sim_wall_now() - w0;
	ftl_destroy(r.f);
	nand_dev_destroy(r.dev);
	nand_store_close(r.store);
	free(r.buf);
}

int sim_fdp_main(int argc, char **argv)
{
	struct fdp_opts o = {
		.channels = 4, .dies = 2, .planes = 1, .ppb = 96, .blocks = 64, .qd = 8,
		.soc_pct = 10, .soc_share = 50, .op = 70, .write_x = 3, .warm_x = 2, .seed = 1,
	};
	const struct sim_opt opts[] = {
		SIM_OPT_U32("--channels", &o.channels, 1, 16), SIM_OPT_U32("--dies", &o.dies, 1, 8),
		SIM_OPT_U32("--planes", &o.planes, 1, 4), SIM_OPT_U32("--ppb", &o.ppb, 16, 4096),
		SIM_OPT_U32("--blocks", &o.blocks, 32, 4096),
		SIM_OPT_U32("--qd", &o.qd, 1, FDP_QD_MAX), SIM_OPT_U32("--op", &o.op, 10, 500),
		SIM_OPT_U32("--soc-pct", &o.soc_pct, 1, 90),
		SIM_OPT_U32("--soc-share", &o.soc_share, 0, 100),
		SIM_OPT_DBL("--write-x", &o.write_x, 0.1, 100),
		SIM_OPT_DBL("--warm-x", &o.warm_x, 0, 100), SIM_OPT_SEED(&o.seed),
		SIM_OPT_STR("--out", &o.out), SIM_OPT_END,
	};
	struct fdp_row rows[4];
	struct sim_machine m;
	char cmd[1024];
	FILE *out = stdout;
	double w0 = sim_wall_now();

	if (!sim_opts_parse("fdp", fdp_usage, opts, argc, argv))
		return 0;
	if (o.out && !(out = fopen(o.out, "w")))
		sim_die("%s: cannot write", o.out);
	sim_machine_get(&m);
	sim_cmdline(cmd, sizeof(cmd), argc, argv);
	fprintf(out, "# blox-sim fdp: device WAF of a flash cache's log engine (LOC) and small-object"
		     " engine (SOC) on one vSSD, with and without FDP (virtual time)\n"
		     "# command: %s\n# machine: %s, %ld CPUs, %s %s (wall time only)\n",
		cmd, m.model, m.cpus, m.os, m.release);
	fprintf(out, "# device: %u ch x %u dies x %u planes x %u blocks x %u pages of 16 KiB;"
		     " op_permille %u; the whole capacity in use\n"
		     "# LOC: 128 KiB writes round the first %u%% of the LBAs; SOC: 4 KiB random"
		     " writes over the last %u%%, %u%% of the units written; QD %u\n"
		     "# per configuration: both regions filled, %.1f x capacity of the mix, then"
		     " %.1f x capacity measured\n"
		     "# waf = flash units programmed (host, GC, translation pages, padding) / host"
		     " units; waf_gc = (host + GC moves) / host; tp/w = translation-page units per"
		     " host unit\n# waf_loc, waf_soc: media / host bytes of handle 0 (LOC) and 1"
		     " (SOC), ftl_fdp_stats() (FDP rows)\n",
		o.channels, o.dies, o.planes, o.blocks, o.ppb, o.op, 100 - o.soc_pct, o.soc_pct,
		o.soc_share, o.qd, o.warm_x, o.write_x);
	fprintf(out, "%-9s %7s %7s %6s %8s %8s %8s %7s\n", "config", "waf", "waf_gc", "tp/w",
		"waf_loc", "waf_soc", "gc_runs", "wall_s");
	for (int mode = 0; mode < 4; mode++) {
		struct fdp_row *w = &rows[mode];

		run_config(&o, mode, w);
		if (mode >= 2)
			fprintf(out, "%-9s %7.3f %7.3f %6.3f %8.3f %8.3f %8" PRIu64 " %7.1f\n",
				w->name, w->waf, w->waf_gc, w->tp_w, w->ruh_waf[0], w->ruh_waf[1],
				w->gc_runs, w->wall_s);
		else
			fprintf(out, "%-9s %7.3f %7.3f %6.3f %8s %8s %8" PRIu64 " %7.1f\n", w->name,
				w->waf, w->waf_gc, w->tp_w, "-", "-", w->gc_runs, w->wall_s);
		fflush(out);
	}
	fprintf(out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	if (out != stdout)
		fclose(out);
	return 0;
}
