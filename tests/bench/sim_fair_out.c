/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment fairness (sim_fair.c says what it measures): the
 * command line, the results file's header and tables, and the run: per
 * pool and scheduler a device, preconditioned, then one point per mix.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qos.h"
#include "sim_fair.h"
/* FTL_GC_READS_PER_DIE: what the header says of the FTL. */
#include "ftl_internal.h"

const char *const fa_sched_name[FA_SCHEDS] = { "fifo", "drr", "drr-g" };
static const char *const fa_dry_gc_name[DRY_GC_KINDS] = { "scan", "round", "move",
							  "slot", "erase", "noGC" };
static const char *const fa_dry_host_name[DRY_HOST_KINDS] = { "paced", "space", "free" };

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%.120s x %ld online, %.80s, Linux %.64s; the simulator is single-threaded",
		 m.model, m.cpus, m.os, m.release);
}

static void fa_header(struct sim_out *out, const struct fa_dev *d)
{
	const struct fa_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	const struct nand_timing *tm = &d->nc.timing;
	char m[512], pools[256];
	size_t len = 0;

	machine(m, sizeof(m));
	pools[0] = 0;
	for (uint32_t i = 0; i < o->npools; i++) {
		int k = snprintf(pools + len, sizeof(pools) - len, "%s%ux%u (%u dies)", i ? ", " : "",
				 o->pool_ch[i], o->pool_dies[i], o->pool_ch[i] * o->pool_dies[i]);

		if (k < 0 || (size_t)k >= sizeof(pools) - len)
			break;
		len += (size_t)k;
	}
	sim_outf(out, "# blox-sim: experiment fairness (qos bench 3): two software vSSDs on the same"
		 " dies, weighted %u:%u\n", o->weight[0], o->weight[1]);
	sim_outf(out, "# command: %s\n", o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (FTL and scheduler CPU time not modeled)\n", m);
	sim_outf(out, "# devices (one per pool and scheduler): channels x dies per channel %s; each die"
		 " %u planes x %u blocks x %u pages x %u KiB, TLC: tR %llu/%llu/%llu us, tPROG"
		 " %llu/%llu/%llu us, tBERS %llu us, bus %llu MB/s; multi-plane groups on; default"
		 " suspension policy\n",
		 pools, g->planes_per_die, g->blocks_per_plane, g->pages_per_block, g->page_size / 1024,
		 (unsigned long long)tm->t_read_ns[0] / 1000, (unsigned long long)tm->t_read_ns[1] / 1000,
		 (unsigned long long)tm->t_read_ns[2] / 1000, (unsigned long long)tm->t_prog_ns[0] / 1000,
		 (unsigned long long)tm->t_prog_ns[1] / 1000, (unsigned long long)tm->t_prog_ns[2] / 1000,
		 (unsigned long long)tm->t_erase_ns / 1000, (unsigned long long)tm->bus_mbps);
	sim_outf(out, "# tenants: A (tenant 0, weight %u) and B (tenant 1, weight %u), each an FTL"
		 " instance over every die of the pool, A on blocks 0..%u and B on %u..%u of every"
		 " plane\n"
		 "#   (%u superblocks each; FTL defaults but --wbuf and --op: volatile write cache, %u"
		 " write-buffer pages, op_permille %u, greedy GC, GC reads in flight: %u per die; GC"
		 " pipeline %s)\n",
		 o->weight[0], o->weight[1], o->blocks - 1, o->blocks, 2 * o->blocks - 1, o->blocks,
		 d->fc.write_buffer_pages, d->fc.op_permille, FTL_GC_READS_PER_DIE,
		 d->fc.gc_pipeline ? "on: the next victim while the last waits for its erase" : "off");
	sim_outf(out, "# load: per tenant a closed loop of random 4 KiB ops over its LBA space at QD"
		 " %u, R%% of them reads (the rest writes); per pool and scheduler a fresh device, both"
		 " filled then overwritten %.1fx at random (GC in steady state); per mix %.1f s"
		 " warm-up, %.1f s measured, then both drain\n",
		 o->qd, o->precond_x, o->warmup_s, o->seconds);
	sim_outf(out, "# schedulers (nand_config.sched, 2 tenants):\n"
		 "#   fifo   no pick(): first come first served in each class, the order before tenants\n"
		 "#   drr    qos_drr_pick() per die and class, weights %u:%u, quantum %u us x weight, cost ="
		 " array time; every class strict across tenants (host reads > GC reads > host writes >"
		 " GC writes > erases), weights inside a class\n"
		 "#   drr-g  the same with group_from = GC reads: host reads strict first, then one DRR over"
		 " each tenant's best op of the other classes (strict inside a tenant)\n"
		 "#   %s\n",
		 o->weight[0], o->weight[1], QOS_DRR_QUANTUM_NS / 1000,
		 o->bus_drr ? "drr and drr-g also weigh the channels (qos_drr per channel and class, cost ="
			      " bus time)" : "channels first come first served");
	sim_outf(out, "# die time = array time of each tenant's ops started on the pool's dies in the"
		 " window (host reads and writes, GC reads and programs, erases, translation pages),"
		 " as charged (nand_tenant_stats().served_ns)\n");
}

static double fa_total(const struct fa_point *p, int t)
{
	double x = 0;

	for (int k = 0; k < NAND_OP_KINDS; k++)
		x += (double)p->served[t][k];
	return x;
}

static double fa_ratio(const struct fa_point *p)
{
	double a = fa_total(p, 0);

	return a > 0 ? fa_total(p, 1) / a : INFINITY;
}

static void fa_table(struct sim_out *out, const struct fa_opts *o, const struct fa_point *pts,
		     uint32_t n)
{
	double target = (double)o->weight[1] / (double)o->weight[0];

	sim_outf(out, "\n# die time per tenant over the window, all dies of the pool (ms); B/A (target"
		 " %.3f with drr and drr-g) and its error; per-die B/A range; the dies' busy time (%%"
		 " of the window)\n", target);
	sim_outf(out, "# contended: %% of the die time given by picks with both tenants waiting;"
		 " A_alone, B_alone: die time given to one while the other had nothing queued (ms)\n");
	sim_outf(out, "%-4s %-5s %4s %9s %9s %7s %7s %11s %6s %4s %6s %8s %8s\n", "pool", "sched",
		 "R%", "A_ms", "B_ms", "B/A", "err%", "die_B/A", "busy%", "5%", "cont%", "A_alone",
		 "B_alone");
	for (uint32_t i = 0; i < n; i++) {
		const struct fa_point *p = &pts[i];
		double r = fa_ratio(p), err = 100.0 * (r / target - 1.0);
		char pool[16];

		snprintf(pool, sizeof(pool), "%ux%u", p->channels, p->dies);
		sim_outf(out, "%-4s %-5s %4u %9.1f %9.1f %7.3f %+7.1f %5.2f-%-5.2f %6.1f %4s", pool,
			 fa_sched_name[p->sched], p->reads_pct, fa_total(p, 0) / 1e6,
			 fa_total(p, 1) / 1e6, r, err, p->die_ratio_min, p->die_ratio_max, p->busy_pct,
			 p->sched != FA_FIFO ? (fabs(err) <= 5.0 ? "yes" : "NO") : "-");
		if (p->sched != FA_FIFO) {
			double c = (double)(p->contended_ns[0] + p->contended_ns[1]);
			double all = c + (double)(p->alone_ns[0] + p->alone_ns[1]);

			sim_outf(out, " %6.1f %8.1f %8.1f\n", all > 0 ? 100.0 * c / all : 0,
				 p->alone_ns[0] / 1e6, p->alone_ns[1] / 1e6);
		} else {
			sim_outf(out, " %6s %8s %8s\n", "-", "-", "-");
		}
	}
	sim_outf(out, "\n# where the die time given alone went (drr, drr-g): die time a tenant went"
		 " without while it had nothing queued on the die and the other was served (ms),"
		 " by what its FTL was doing then: GC scan (pass 1, OOB reads), round (pass 2, a"
		 " round's data reads or held back for an erase), move (pass 2 moving, waiting for"
		 " a translation page or space), slot (collected, waiting for an erase slot), erase"
		 " (no victim, collected ones waiting for their programs and erase), noGC; and its"
		 " host writes: paced (waiting for a GC credit), space (waiting for buffer or"
		 " superblock space), free\n");
	sim_outf(out, "%-4s %-5s %4s %2s", "pool", "sched", "R%", "t");
	for (int k = 0; k < DRY_GC_KINDS; k++)
		sim_outf(out, " %7s", fa_dry_gc_name[k]);
	sim_outf(out, "  ");
	for (int k = 0; k < DRY_HOST_KINDS; k++)
		sim_outf(out, " %7s", fa_dry_host_name[k]);
	sim_outf(out, "\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct fa_point *p = &pts[i];
		char pool[16];

		if (p->sched == FA_FIFO)
			continue;
		snprintf(pool, sizeof(pool), "%ux%u", p->channels, p->dies);
		for (int t = 0; t < FA_TENANTS; t++) {
			sim_outf(out, "%-4s %-5s %4u %2c", pool, fa_sched_name[p->sched], p->reads_pct,
				 'A' + t);
			for (int k = 0; k < DRY_GC_KINDS; k++)
				sim_outf(out, " %7.1f", p->dry_gc_ns[t][k] / 1e6);
			sim_outf(out, "  ");
			for (int k = 0; k < DRY_HOST_KINDS; k++)
				sim_outf(out, " %7.1f", p->dry_host_ns[t][k] / 1e6);
			sim_outf(out, "\n");
		}
	}
	sim_outf(out, "\n# die time by kind (ms): reads, programs, erases per tenant\n");
	sim_outf(out, "%-4s %-5s %4s %8s %8s %8s   %8s %8s %8s\n", "pool", "sched", "R%", "A_read",
		 "A_prog", "A_erase", "B_read", "B_prog", "B_erase");
	for (uint32_t i = 0; i < n; i++) {
		const struct fa_point *p = &pts[i];
		char pool[16];

		snprintf(pool, sizeof(pool), "%ux%u", p->channels, p->dies);
		sim_outf(out, "%-4s %-5s %4u %8.1f %8.1f %8.1f   %8.1f %8.1f %8.1f\n", pool,
			 fa_sched_name[p->sched], p->reads_pct, p->served[0][0] / 1e6,
			 p->served[0][1] / 1e6, p->served[0][2] / 1e6, p->served[1][0] / 1e6,
			 p->served[1][1] / 1e6, p->served[1][2] / 1e6);
	}
	sim_outf(out, "\n# host I/O per tenant: kIOPS (reads, writes), mean and P99 latency (us), WAF"
		 " in the window; scheduler calls (die, bus), fallbacks, wall seconds of the point\n");
	sim_outf(out, "%-4s %-5s %4s %6s %6s %8s %8s %8s %9s %5s  %6s %6s %8s %8s %8s %9s %5s  %8s %7s"
		 " %3s %5s\n",
		 "pool", "sched", "R%", "A_rk", "A_wk", "A_rmean", "A_rp99", "A_wmean", "A_wp99",
		 "A_waf", "B_rk", "B_wk", "B_rmean", "B_rp99", "B_wmean", "B_wp99", "B_waf", "picks",
		 "bus", "fb", "wall");
	for (uint32_t i = 0; i < n; i++) {
		const struct fa_point *p = &pts[i];
		char pool[16];

		snprintf(pool, sizeof(pool), "%ux%u", p->channels, p->dies);
		sim_outf(out, "%-4s %-5s %4u", pool, fa_sched_name[p->sched], p->reads_pct);
		for (int t = 0; t < FA_TENANTS; t++)
			sim_outf(out, " %6.2f %6.2f %8.1f %8.1f %8.1f %9.1f %5.2f ", p->kiops_r[t],
				 p->kiops_w[t], p->rmean[t], p->rp99[t], p->wmean[t], p->wp99[t],
				 p->waf[t]);
		sim_outf(out, " %8llu %7llu %3llu %5.1f\n", (unsigned long long)p->picks,
			 (unsigned long long)p->bus_picks, (unsigned long long)p->fallbacks, p->wall_s);
	}
}

/* ---- options ---- */

static void usage(void)
{
	printf("usage: blox-sim fairness [options]   (qos bench 3, docs/QOS_RESULTS.md)\n"
	       "two software vSSDs (FTL instances on the same dies, own block ranges) saturating\n"
	       "them; the die time each gets with no scheduler and with qos/'s DRR:\n"
	       "  --weights A:B          tenant weights (default 1:3)\n"
	       "  --mixes a,b,...        read percentages of the closed loops (default 100,50,0)\n"
	       "  --sched fifo,drr       schedulers to run (default both)\n"
	       "  --bus-drr on|off       DRR on the channels too (default on)\n"
	       "  --qd N                 queue depth per tenant (default 256)\n"
	       "  --seconds S            measured virtual seconds per mix (default 5)\n"
	       "  --warmup-s S           before each window (default 1)\n"
	       "  --precond-x X          random overwrite before, x capacity (default 1)\n"
	       "  --pools CxD,...        the shared dies: channels x dies per channel, one device\n"
	       "                         per pool (default 1x1,2x1,2x2)\n"
	       "  --planes N --ppb N     planes per die, pages per block (default 2, 48)\n"
	       "  --blocks N             blocks per plane per tenant (default 32)\n"
	       "  --wbuf N               FTL write buffer pages (default: the FTL's, 64)\n"
	       "  --op N                 FTL op_permille (default: the FTL's, 70)\n"
	       "  --gc-pipeline on|off   ftl_config.gc_pipeline (default on, as bloxd sets it for\n"
	       "                         software vSSDs; off: the FTL's default)\n"
	       "  --seed N               (default 1)\n"
	       "  --out FILE             (default --outdir/qos_fairness.txt)\n"
	       "  --outdir DIR           (default docs/results)\n");
}

static void parse_weights(void *ctx, const char *k, const char *v)
{
	struct fa_opts *o = ctx;
	unsigned a, b;

	if (sscanf(v, "%u:%u", &a, &b) != 2 || !a || !b || a > 1000 || b > 1000)
		sim_die("%s: A:B, each 1..1000, got %s", k, v);
	o->weight[0] = a;
	o->weight[1] = b;
}

static void parse_pools(void *ctx, const char *k, const char *v)
{
	struct fa_opts *o = ctx;
	char *copy = strdup(v), *tok, *save = NULL;

	if (!copy)
		sim_die("out of memory");
	o->npools = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned c, dd;

		if (o->npools == FA_MAX_POOLS)
			sim_die("%s: at most %d", k, FA_MAX_POOLS);
		if (sscanf(tok, "%ux%u", &c, &dd) != 2 || !c || !dd || c * dd > FA_MAX_DIES)
			sim_die("%s: CxD (channels x dies per channel, at most %u dies), got %s", k,
				FA_MAX_DIES, tok);
		o->pool_ch[o->npools] = c;
		o->pool_dies[o->npools++] = dd;
	}
	free(copy);
	if (!o->npools)
		sim_die("%s needs a value", k);
}

static bool parse(struct fa_opts *o, int argc, char **argv)
{
	static const struct sim_choice scheds[] = {
		{ "fifo", 1 << FA_FIFO }, { "drr", 1 << FA_DRR }, { "drr-g", 1 << FA_DRRG }, { NULL, 0 }
	};
	const struct sim_opt opts[] = {
		SIM_OPT_FN("--weights", parse_weights, o),
		SIM_OPT_U32S("--mixes", o->mixes, &o->nmixes, FA_MAX_MIXES, 0, 100),
		SIM_OPT_FLAGS("--sched", &o->scheds, scheds),
		SIM_OPT_ONOFF("--bus-drr", &o->bus_drr),
		SIM_OPT_ONOFF("--gc-pipeline", &o->gc_pipeline),
		SIM_OPT_U32("--qd", &o->qd, 1, FA_MAX_QD),
		SIM_OPT_NONNEG("--seconds", &o->seconds),
		SIM_OPT_NONNEG("--warmup-s", &o->warmup_s),
		SIM_OPT_NONNEG("--precond-x", &o->precond_x),
		SIM_OPT_FN("--pools", parse_pools, o),
		SIM_OPT_U32("--planes", &o->planes, 1, 4),
		SIM_OPT_U32("--ppb", &o->ppb, 3, 4096),
		SIM_OPT_U32("--op", &o->op_permille, 1, 999),
		SIM_OPT_U32("--wbuf", &o->wbuf, 1, 65536),
		SIM_OPT_U32("--blocks", &o->blocks, 8, 65536),
		SIM_OPT_SEED(&o->seed),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_STR("--outdir", &o->outdir),
		SIM_OPT_END,
	};

	*o = (struct fa_opts){ .weight = { 1, 3 }, .mixes = { 100, 50, 0 }, .nmixes = 3,
			       .scheds = (1u << FA_FIFO) | (1u << FA_DRR) | (1u << FA_DRRG), .bus_drr = true,
			       .gc_pipeline = true, .qd = 256,
			       .seconds = 5, .warmup_s = 1, .precond_x = 1,
			       .planes = 2, .ppb = 48, .blocks = 32, .seed = 1,
			       .outdir = "docs/results" };
	parse_pools(o, "--pools", "1x1,2x1,2x2");
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	if (!sim_opts_parse("fairness", usage, opts, argc, argv))
		return false;
	o->seed |= 1;
	if (o->ppb % 3)
		sim_die("--ppb must be a multiple of 3 (TLC)");
	if (!(o->seconds > 0))
		sim_die("--seconds must be positive");
	return true;
}

int sim_fairness_main(int argc, char **argv)
{
	struct fa_opts o;
	struct sim_out out;
	struct fa_dev *d;
	struct fa_point *pts;
	uint32_t n = 0;
	double w0 = sim_wall_now();
	bool header = false;

	if (!parse(&o, argc, argv))
		return 0;
	sim_out_create(&out, o.out, o.outdir, "qos_fairness.txt");
	d = calloc(1, sizeof(*d));
	pts = calloc(FA_MAX_POOLS * FA_SCHEDS * FA_MAX_MIXES, sizeof(*pts));
	if (!d || !pts)
		sim_die("out of memory");
	for (uint32_t pool = 0; pool < o.npools; pool++) {
		for (int s = 0; s < FA_SCHEDS; s++) {
			double ws = sim_wall_now();

			if (!(o.scheds & (1u << s)))
				continue;
			fa_open(d, &o, pool, (enum fa_sched)s);
			if (!header) {
				fa_header(&out, d);
				header = true;
			}
			fa_precondition(d);
			fprintf(stderr, "  [%ux%u %s: preconditioned, %.1f s wall]\n", o.pool_ch[pool],
				o.pool_dies[pool], fa_sched_name[s], sim_wall_now() - ws);
			for (uint32_t m = 0; m < o.nmixes; m++) {
				struct fa_point *p = &pts[n++];

				fa_point(d, o.mixes[m], p);
				fprintf(stderr, "  [%ux%u %s R%u%%: B/A %.3f, %.1f s wall]\n",
					o.pool_ch[pool], o.pool_dies[pool], fa_sched_name[s],
					o.mixes[m], fa_ratio(p), p->wall_s);
			}
			fa_verify(d);
			fa_close(d);
		}
	}
	fa_table(&out, &o, pts, n);
	sim_outf(&out, "# every read checked against what was written, and %u random reads per tenant"
		 " after each device's last mix: no errors; every nand op carried its instance's"
		 " tenant id\n", FA_VERIFY_READS);
	sim_outf(&out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
	free(d);
	free(pts);
	return 0;
}
