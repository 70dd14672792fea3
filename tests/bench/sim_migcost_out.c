/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment migcost (sim_migcost.c says what it measures): the
 * command line, the results file's header and tables, and the run: the
 * device preconditioned, then per tenant moved and share one point.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_migcost.h"

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%s x %ld online, %s, Linux %s; the simulator is single-threaded", m.model,
		 m.cpus, m.os, m.release);
}

/* Raw bytes of one channel of @g. */
static double channel_raw(const struct nand_geometry *g)
{
	return (double)g->dies_per_channel * g->planes_per_die * g->blocks_per_plane *
	       g->pages_per_block * g->page_size;
}

static void mc_header(struct sim_out *out, const struct mc_dev *d, double waf_pre)
{
	const struct mc_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	const struct nand_timing *tm = &d->nc.timing;
	const struct mc_tenant *r = &d->t[0], *w = &d->t[1];
	struct nand_geometry dg;
	struct ftl_layout lay;
	struct ftl_gc_info gc;
	char m[768];

	nand_geometry_default(&dg);
	machine(m, sizeof(m));
	ftl_inspect_layout(r->b.f, &lay);
	ftl_inspect_gc(w->b.f, &gc);
	sim_outf(out, "# blox-sim: experiment migcost (FlashBlox, FAST 2017): the cost of moving a"
		 " channel vSSD to another channel online\n");
	sim_outf(out, "# command: %s\n", o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (FTL CPU time is not modeled)\n", m);
	sim_outf(out, "# device: %u ch x %u die/ch x %u planes x %u blocks x %u pages x %u KiB (+%u B"
		 " OOB), TLC: nand_config_default() but pages per block (default %u) and blocks per"
		 " plane (default %u)\n",
		 g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
		 g->pages_per_block, g->page_size / 1024, g->oob_size, dg.pages_per_block,
		 dg.blocks_per_plane);
	sim_outf(out, "#   a channel is %.0f MiB raw here (%.0f MiB with the default geometry)\n",
		 channel_raw(g) / MiB, channel_raw(&dg) / MiB);
	sim_outf(out, "# timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, bus %llu"
		 " MB/s, command %llu ns; multi-plane groups %s; default suspension policy (host reads"
		 " suspend programs/erases)\n",
		 (unsigned long long)tm->t_read_ns[0] / 1000, (unsigned long long)tm->t_read_ns[1] / 1000,
		 (unsigned long long)tm->t_read_ns[2] / 1000, (unsigned long long)tm->t_prog_ns[0] / 1000,
		 (unsigned long long)tm->t_prog_ns[1] / 1000, (unsigned long long)tm->t_prog_ns[2] / 1000,
		 (unsigned long long)tm->t_erase_ns / 1000, (unsigned long long)tm->bus_mbps,
		 (unsigned long long)tm->t_cmd_ns, d->nc.multiplane ? "on" : "off");
	sim_outf(out, "# tenants (channel isolation), each its own FTL instance over the %u dies of one"
		 " channel, all blocks: %u superblocks of %.1f MiB,\n"
		 "#   capacity %u units (%.1f MiB) each; FTL defaults (op_permille %u, CMT %u KiB, MDC %u"
		 " B, greedy GC, levels %u/%u/%u/%u free superblocks),\n"
		 "#   static wear leveling when the superblocks' erase counts spread more than %u%s\n",
		 g->dies_per_channel, lay.nr_sb, lay.units_per_sb * 4096.0 / MiB, r->b.cap,
		 r->b.cap * 4096.0 / MiB, d->fc.op_permille, d->fc.cmt_bytes / 1024,
		 d->fc.mdc_enabled ? d->fc.mdc_bytes : 0, gc.lvl_idle, gc.lvl_bg, gc.lvl_fg,
		 gc.lvl_urgent, d->fc.wl_threshold,
		 o->wl_threshold >= 0 ? " (--wl-threshold; 0: off)" : " (the FTL's default)");
	sim_outf(out, "#   R (reader) on channel 0: open loop, Poisson arrivals at %.1f kIOPS of 4 KiB"
		 " reads, LBAs scrambled zipfian (theta %.2f, YCSB C); filled sequentially\n"
		 "#     (128 KiB writes, QD %u) first\n",
		 o->r_kiops, MC_ZIPF_THETA, o->fill_qd);
	sim_outf(out, "#   W (writer) on channel 1: closed loop, uniform random 4 KiB writes at QD %u;"
		 " filled, then overwritten %.1f x its capacity (WAF %.2f over that),\n"
		 "#     so its GC runs in steady state\n",
		 o->w_qd, o->precond_x, waf_pre);
	sim_outf(out, "# a channel move, as daemon/prov/prov_mig.c makes one: die d of the channel to"
		 " die d of a free channel (the next free one after it), one\n"
		 "#   ftl_migrate_start() after the other, each started when ops->migrated() of the one"
		 " before ran (the daemon polls at 100 ms); the tenant moved\n"
		 "#   stays there (its next move starts from there); moves in the order of --move, each"
		 " at every share in turn. Both tenants run all along; per"
		 " share and tenant moved: the move as a window (m), then a window\n"
		 "#   without migration as long as the move (at least %.1f s; b). A window's ops are"
		 " those arriving in it (R) or submitted in it (W), each to its completion.\n",
		 o->base_s);
	sim_outf(out, "# every read checked against the data written; at the end %u random LBAs of"
		 " each tenant read back and checked; seed %llu; %.1f s of both running before the"
		 " first window\n",
		 MC_VERIFY_READS, (unsigned long long)o->seed, o->warmup_s);
}

static const char *tname(int ti)
{
	return ti ? "W" : "R";
}

static void table_moves(struct sim_out *out, const struct mc_dev *d, const struct mc_point *pts,
			uint32_t n)
{
	struct nand_geometry dg;
	double scale;

	nand_geometry_default(&dg);
	scale = channel_raw(&dg) / channel_raw(&d->nc.geo);
	sim_outf(out, "## A: the channel move (all %u dies, one after the other)\n",
		 d->nc.geo.dies_per_channel);
	sim_outf(out, "# time: first ftl_migrate_start() to the last ops->migrated(), virtual s;"
		 " copied: page data the FTL copied (progress.bytes_copied, summed over the dies),\n"
		 "#   planned: what it had to copy right after each start (progress.bytes_total);"
		 " sbs: superblock copies; MB/s: copied / time;\n"
		 "#   busy%%: the FTL's busy_ns (its ops' NAND time on the busier of the two dies, per"
		 " step) / time, summed over the dies: the share the migration took;\n"
		 "#   die/min..max: the shortest and longest die migration, s; full_ch_min: time x %.2f,"
		 " a channel of the default geometry (%.0f MiB raw) as full as this one,\n"
		 "#   at the same rate (an estimate, not simulated); GiB/15min: what this rate copies in"
		 " 15 minutes; %%of19d: full_ch_min as a share of 19 days;\n"
		 "#   wall: seconds for the point (both windows)\n",
		 scale, channel_raw(&dg) / MiB);
	sim_outf(out, "%-6s %5s %-7s %8s %9s %9s %5s %7s %6s %8s %8s %11s %9s %7s %6s\n", "moved",
		 "share", "ch", "time_s", "copiedMiB", "plannedMiB", "sbs", "MB/s", "busy%",
		 "die_min", "die_max", "full_ch_min", "GiB/15min", "%of19d", "wall");
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_point *p = &pts[i];
		uint64_t bytes = 0, plan = 0, busy = 0;
		uint32_t sbs = 0;
		double dmin = 1e30, dmax = 0;
		char ch[32];

		for (uint32_t k = 0; k < p->nmv; k++) {
			const struct mc_move *mv = &p->mv[k];
			double s = (double)(mv->t1 - mv->t0) * 1e-9;

			bytes += mv->bytes;
			plan += mv->bytes_plan;
			busy += mv->busy_ns;
			sbs += mv->sbs;
			dmin = s < dmin ? s : dmin;
			dmax = s > dmax ? s : dmax;
		}
		snprintf(ch, sizeof(ch), "%u->%u", p->from_ch, p->to_ch);
		sim_outf(out, "%-6s %5u %-7s %8.2f %9.1f %10.1f %5u %7.2f %6.1f %8.2f %8.2f %11.2f %9.2f"
			 " %7.4f %6.1f\n",
			 tname(p->target), p->share, ch, p->secs, (double)bytes / MiB,
			 (double)plan / MiB, sbs, (double)bytes / 1e6 / p->secs,
			 100.0 * (double)busy * 1e-9 / p->secs, dmin, dmax, p->secs * scale / 60.0,
			 (double)bytes / p->secs * 900.0 / (MiB * 1024.0),
			 100.0 * p->secs * scale / (19.0 * 86400.0), p->wall_s);
	}
}

static void lat_cols(struct sim_out *out, const struct mc_lat *b, const struct mc_lat *m)
{
	sim_outf(out, " %7.2f %7.2f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %9.1f %9.1f %6.2f %6.2f"
		 " %6.2f",
		 b->kiops, m->kiops, b->mean, m->mean, b->p50, m->p50, b->p99, m->p99, b->p999,
		 m->p999, b->mean > 0 ? m->mean / b->mean : 0, b->p99 > 0 ? m->p99 / b->p99 : 0,
		 b->p999 > 0 ? m->p999 / b->p999 : 0);
}

static void table_lat(struct sim_out *out, const struct mc_point *pts, uint32_t n, bool moved)
{
	if (moved)
		sim_outf(out, "## B: the moved tenant's latency during the move (m) and in the window"
			 " after it without migration (b)\n");
	else
		sim_outf(out, "## C: the other tenant's latency (its own channel, untouched), the same"
			 " windows\n");
	sim_outf(out, "# R: its reads, from arrival to completion; W: its writes, from submission"
		 " to completion (closed loop: latency = QD / throughput); us;\n"
		 "# kIOPS: ops of the window per second; x_mean, x_p99, x_p99.9: m / b\n");
	sim_outf(out, "%-6s %5s %-6s %7s %7s %8s %8s %8s %8s %8s %8s %9s %9s %6s %6s %6s\n", "moved",
		 "share", "tenant", "kIOPS_b", "kIOPS_m", "mean_b", "mean_m", "p50_b", "p50_m", "p99_b",
		 "p99_m", "p99.9_b", "p99.9_m", "x_mean", "x_p99", "x_p999");
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_point *p = &pts[i];
		int ti = moved ? p->target : !p->target;

		sim_outf(out, "%-6s %5u %-6s", tname(p->target), p->share, tname(ti));
		lat_cols(out, &p->base.lat[ti], &p->mig.lat[ti]);
		sim_outf(out, "\n");
	}
}

static void table_windows(struct sim_out *out, const struct mc_point *pts, uint32_t n)
{
	sim_outf(out, "## D: the windows: length (s), ops and the longest latency (us) of both tenants,"
		 " W's WAF and GC runs\n");
	sim_outf(out, "%-6s %5s %6s %6s %8s %8s %9s %9s %8s %8s %9s %9s %6s %6s %5s %5s\n", "moved",
		 "share", "base_s", "mig_s", "R_n_b", "R_n_m", "R_max_b", "R_max_m", "W_n_b",
		 "W_n_m", "W_max_b", "W_max_m", "Wwaf_b", "Wwaf_m", "gc_b", "gc_m");
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_point *p = &pts[i];
		const struct mc_lat *rb = &p->base.lat[0], *rm = &p->mig.lat[0];
		const struct mc_lat *wb = &p->base.lat[1], *wm = &p->mig.lat[1];

		sim_outf(out, "%-6s %5u %6.2f %6.2f %8llu %8llu %9.1f %9.1f %8llu %8llu %9.1f %9.1f"
			 " %6.2f %6.2f %5llu %5llu\n",
			 tname(p->target), p->share, p->base.secs, p->mig.secs,
			 (unsigned long long)rb->n, (unsigned long long)rm->n, rb->max, rm->max,
			 (unsigned long long)wb->n, (unsigned long long)wm->n, wb->max, wm->max, wb->waf,
			 wm->waf, (unsigned long long)wb->gc_runs, (unsigned long long)wm->gc_runs);
	}
}

static void table_dies(struct sim_out *out, const struct mc_dev *d, const struct mc_point *pts,
		       uint32_t n)
{
	uint32_t dpc = d->nc.geo.dies_per_channel;

	sim_outf(out, "## E: each die migration\n");
	sim_outf(out, "# die: global index (channel x %u + die); start: s after the channel move"
		 " began; time: s; MiB/plan: copied/planned; ftl_busy%%: progress.busy_ns / time\n"
		 "#   (what the throttle holds to share/10 %%); src%%, dst%%: the NAND's array time of"
		 " the two dies (all kinds and tenants, suspend overhead included) / time;\n"
		 "#   dst_prog%%: the destination's program array time / time; gc, wl: the moved"
		 " tenant's GC runs and static wear-leveling runs (ftl_stats) during it;\n"
		 "#   gcMiB: units GC moved, MiB; ec: its superblocks' erase counts min-max (ftl_stats)"
		 " at the start and at the end\n",
		 dpc);
	sim_outf(out, "%-6s %5s %4s %4s %4s %8s %8s %8s %8s %4s %9s %6s %6s %9s %5s %4s %7s %9s %9s\n",
		 "moved", "share", "slot", "src", "dst", "start_s", "time_s", "MiB", "planMiB", "sbs",
		 "ftl_busy%", "src%", "dst%", "dst_prog%", "gc", "wl", "gcMiB", "ec_start", "ec_end");
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_point *p = &pts[i];

		for (uint32_t k = 0; k < p->nmv; k++) {
			const struct mc_move *mv = &p->mv[k];
			double ns = (double)(mv->t1 - mv->t0);
			char e0[32], e1[32];

			snprintf(e0, sizeof(e0), "%u-%u", mv->ec_min0, mv->ec_max0);
			snprintf(e1, sizeof(e1), "%u-%u", mv->ec_min1, mv->ec_max1);
			sim_outf(out, "%-6s %5u %4u %4u %4u %8.2f %8.2f %8.1f %8.1f %4u %9.1f %6.1f"
				 " %6.1f %9.1f %5llu %4llu %7.1f %9s %9s\n",
				 tname(p->target), p->share, mv->slot, mv->src, mv->dst,
				 (double)(mv->t0 - p->mv[0].t0) * 1e-9, ns * 1e-9,
				 (double)mv->bytes / MiB, (double)mv->bytes_plan / MiB, mv->sbs,
				 100.0 * (double)mv->busy_ns / ns, 100.0 * (double)mv->src_ns / ns,
				 100.0 * (double)mv->dst_ns / ns, 100.0 * (double)mv->dst_prog / ns,
				 (unsigned long long)mv->gc_runs, (unsigned long long)mv->wl_runs,
				 (double)mv->gc_units * FTL_UNIT / MiB, e0, e1);
		}
	}
}

/* ---- options ---- */

static void usage(void)
{
	printf("usage: blox-sim migcost [options]   (FlashBlox: the cost of a channel migration)\n"
	       "  --shares a,b,...       throttle shares, permille (default 1000,500,250,100)\n"
	       "  --move a,b             whose channel moves, in this order: writer and/or reader\n"
	       "                         (default writer,reader)\n"
	       "  --base-s S             window without migration after each move: as long as\n"
	       "                         the move, at least S (default 5)\n"
	       "  --warmup-s S           both running before the first window (default 1)\n"
	       "  --r-kiops X            R's Poisson read rate, kIOPS (default 10)\n"
	       "  --w-qd N               W's closed-loop queue depth (default 32)\n"
	       "  --precond-x X          W's random overwrite before measuring, x capacity (default 2)\n"
	       "  --ppb N --blocks N     pages per block and blocks per plane (default 48, 64;\n"
	       "                         the NAND default is 384, 64)\n"
	       "  --wl-threshold N       the FTL's static wear-leveling threshold (erase-count\n"
	       "                         spread; 0: off; default the FTL's, 64)\n"
	       "  --qd N                 fill and verify queue depth (default 32)\n"
	       "  --seed N               RNG seed (default 1)\n"
	       "  --out FILE             output (default docs/results/flashblox_migcost.txt)\n"
	       "  --outdir DIR           output directory (default docs/results)\n");
}

static void parse_move(void *ctx, const char *k, const char *v)
{
	struct mc_opts *o = ctx;
	char *copy = strdup(v), *tok, *save = NULL;

	if (!copy)
		sim_die("out of memory");
	o->norder = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int ti;

		if (!strcmp(tok, "reader"))
			ti = 0;
		else if (!strcmp(tok, "writer"))
			ti = 1;
		else
			sim_die("%s: reader and/or writer, got %s", k, tok);
		for (int i = 0; i < o->norder; i++)
			if (o->order[i] == ti)
				sim_die("%s: %s twice", k, tok);
		o->order[o->norder++] = ti;
	}
	free(copy);
	if (!o->norder)
		sim_die("%s needs a value", k);
}

static bool parse(struct mc_opts *o, int argc, char **argv)
{
	const struct sim_opt opts[] = {
		SIM_OPT_U32S("--shares", o->shares, &o->nshares, MC_MAX_SHARES, 1, 1000),
		SIM_OPT_FN("--move", parse_move, o),
		SIM_OPT_POS("--base-s", &o->base_s),
		SIM_OPT_POS("--warmup-s", &o->warmup_s),
		SIM_OPT_POS("--r-kiops", &o->r_kiops),
		SIM_OPT_U32("--w-qd", &o->w_qd, 1, 1024),
		SIM_OPT_POS("--precond-x", &o->precond_x),
		SIM_OPT_U32("--ppb", &o->ppb, 3, 4096),
		SIM_OPT_U32("--blocks", &o->blocks, 8, 65536),
		SIM_OPT_INT("--wl-threshold", &o->wl_threshold, 0, 1000000),
		SIM_OPT_U32("--qd", &o->fill_qd, 1, 1024),
		SIM_OPT_SEED(&o->seed),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_STR("--outdir", &o->outdir),
		SIM_OPT_END,
	};

	*o = (struct mc_opts){ .shares = { 1000, 500, 250, 100 }, .nshares = 4, .order = { 1, 0 },
			       .norder = 2, .base_s = 5, .warmup_s = 1, .r_kiops = 10, .precond_x = 2,
			       .w_qd = 32, .wl_threshold = -1, .fill_qd = 32, .ppb = 48, .blocks = 64,
			       .seed = 1, .outdir = "docs/results",
			       .debug = getenv("BLOX_SIM_DEBUG") != NULL };
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	if (!sim_opts_parse("migcost", usage, opts, argc, argv))
		return false;
	o->seed |= 1;
	if (o->ppb % 3)
		sim_die("--ppb must be a multiple of 3 (TLC)");
	return true;
}

int sim_migcost_main(int argc, char **argv)
{
	struct mc_opts o;
	struct sim_out out;
	struct mc_dev *d;
	struct mc_point *pts;
	uint32_t n = 0;
	double w0 = sim_wall_now(), waf_pre;

	if (!parse(&o, argc, argv))
		return 0;
	sim_out_create(&out, o.out, o.outdir, "flashblox_migcost.txt");
	d = calloc(1, sizeof(*d));
	pts = calloc(2 * MC_MAX_SHARES, sizeof(*pts));
	if (!d || !pts)
		sim_die("out of memory");
	mc_open(d, &o);
	waf_pre = mc_precondition(d);
	fprintf(stderr, "  [preconditioned, %.1f s wall]\n", sim_wall_now() - w0);
	mc_header(&out, d, waf_pre);
	/* From here R reads and W writes without a pause until the end. */
	sim_tenant_job_closed(&d->t[1].b, SIM_TJOB_RANDW, UINT64_MAX, o.w_qd);
	mc_job_reads(&d->t[0], o.r_kiops);
	sim_loop_run(&d->loop, blox_clock_now(&d->clock) + (uint64_t)(o.warmup_s * 1e9), NULL);
	for (int i = 0; i < o.norder; i++) {
		int ti = o.order[i];

		for (uint32_t k = 0; k < o.nshares; k++) {
			struct mc_point *p = &pts[n++];

			mc_point(d, ti, o.shares[k], p);
			fprintf(stderr, "  [%s share %u: ch %u -> %u in %.2f s virtual, %.1f s wall]\n",
				tname(ti), p->share, p->from_ch, p->to_ch, p->secs, p->wall_s);
		}
	}
	mc_verify(d);
	table_moves(&out, d, pts, n);
	table_lat(&out, pts, n, true);
	table_lat(&out, pts, n, false);
	table_windows(&out, pts, n);
	table_dies(&out, d, pts, n);
	sim_outf(&out, "# virtual time at the end: %.1f s; wall time: %.1f s\n",
		 (double)blox_clock_now(&d->clock) * 1e-9, sim_wall_now() - w0);
	sim_out_close(&out);
	mc_close(d);
	free(d);
	free(pts);
	return 0;
}
