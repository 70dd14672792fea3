/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment suspend (sim_suspend.c says what it measures): the
 * command line, the results file's header and table, and the run: the
 * device preconditioned, then per queue depth and policy one window in a
 * child process.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_suspend.h"

static const char *const sp_policy_name[SP_POLICIES] = { "never", "always", "smart",
							       "smart-unpaced" };

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%s, %ld cores, %s, Linux %s; single-threaded", m.model, m.cpus, m.os,
		 m.release);
}

static double per(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

static void header(struct sim_out *out, const struct sp_dev *d, double waf_pre)
{
	const struct sp_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	const struct nand_timing *t = &d->nc.timing;
	struct qos_suspend_cfg sc;
	char m[768];

	machine(m, sizeof(m));
	qos_suspend_cfg_default(&sc);
	if (o->smart_max >= 0)
		sc.max_suspends = (uint32_t)o->smart_max;
	sim_outf(out, "# blox-sim suspend: program/erase suspension on a database-like load\n");
	sim_outf(out, "# command: %s\n", o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (results do not depend on the machine or build)\n", m);
	sim_outf(out, "# device: %u ch x %u die/ch x %u plane x %u blocks x %u pages x %u KiB, TLC: raw %.0f MiB"
		" (the default geometry is 8 x 4 x 2 x 64 x 384, 24 GiB: shrunk to keep the run short)\n",
		 g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
		 g->pages_per_block, g->page_size / 1024, (double)nand_capacity(g) / MiB);
	sim_outf(out, "# timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, tSUSPEND %llu us,"
		" tRESUME %llu us, bus %llu MB/s; engine: at most %u suspensions per op, %llu us of array"
		" time between two, %u reads per suspension; multi-plane groups %s\n",
		 (unsigned long long)t->t_read_ns[0] / 1000, (unsigned long long)t->t_read_ns[1] / 1000,
		 (unsigned long long)t->t_read_ns[2] / 1000, (unsigned long long)t->t_prog_ns[0] / 1000,
		 (unsigned long long)t->t_prog_ns[1] / 1000, (unsigned long long)t->t_prog_ns[2] / 1000,
		 (unsigned long long)t->t_erase_ns / 1000, (unsigned long long)t->t_suspend_ns / 1000,
		 (unsigned long long)t->t_resume_ns / 1000, (unsigned long long)t->bus_mbps,
		 d->nc.max_suspends_per_op, (unsigned long long)d->nc.min_progress_ns / 1000,
		 d->nc.max_reads_per_suspend, d->nc.multiplane ? "on" : "off");
	sim_outf(out, "# ftl: one instance on every die; %u superblocks of %.0f MiB; capacity %.0f MiB; op_permille %u;"
		" CMT %u KiB (%u of %u translation pages); write buffer %u pages, volatile cache %s;"
		" GC levels %u/%u/%u superblocks free (background/foreground/urgent); GC pipeline %s\n",
		 d->lay.nr_sb, d->lay.units_per_sb * 4096.0 / MiB, d->cap * 4096.0 / MiB,
		 d->fc.op_permille, d->fc.cmt_bytes / 1024, d->fc.cmt_bytes / FTL_UNIT, d->lay.nr_tp,
		 d->fc.write_buffer_pages, d->fc.volatile_cache ? "on" : "off", d->gci.lvl_bg,
		 d->gci.lvl_fg, d->gci.lvl_urgent, d->fc.gc_pipeline ? "on" : "off");
	sim_outf(out, "# precondition: sequential fill, then %.1f x capacity of uniform random 4 KiB writes"
		" at QD 32 (WAF %.2f), suspension off; then each QD and policy runs on a copy-on-write"
		" snapshot of that device (fork()), so all start from the same state\n",
		 o->precond_x, waf_pre);
	sim_outf(out, "# load: closed loop, 4 KiB at uniform random LBAs, %u%% reads; per QD %.1f s warm-up,"
		" then %.1f s measured (ops submitted in the window, to their completion)\n",
		 o->reads_pct, o->warmup_s, o->seconds);
	sim_outf(out, "# smart: qos_suspend_cfg_default()%s: no suspension with under %llu us left or past %u"
		" permille; %u per op, %u above %u host commands in flight; urgent GC: erases not"
		" suspended, programs once; paced (suspension k + 1 once the op is k / budget done,"
		" asked again then), smart-unpaced the same without. Inputs: host commands in"
		" flight, FTL GC level (all dies)\n",
		 o->smart_max >= 0 ? " but max_suspends" : "",
		 (unsigned long long)sc.min_remaining_ns / 1000, sc.max_progress_permille,
		 sc.max_suspends, sc.busy_max_suspends, sc.busy_inflight);
}

static void table(struct sim_out *out, const struct sp_point *pts, uint32_t n)
{
	sim_outf(out, "#\n# read latency (us) of the reads submitted in the window; host throughput over the"
		" window; WAF = flash units programmed (data, GC, translation pages, padding) / host units\n");
	sim_outf(out, "%-3s %-13s %8s %8s %8s %8s %9s %9s %8s %8s %8s %8s %6s\n", "qd", "policy",
		 "rd_kiops", "rd_mean", "rd_p50", "rd_p99", "rd_p99.9", "rd_max", "wr_MB/s",
		 "wr_mean", "wr_p99", "wr_max", "waf");
	for (uint32_t i = 0; i < n; i++) {
		const struct sp_point *p = &pts[i];
		const struct ftl_stats *a = &p->a.fs, *b = &p->b.fs;
		uint64_t host = b->units_written_host - a->units_written_host;
		uint64_t flash = (b->units_written_host + b->units_written_gc + b->units_written_tp +
				  b->units_padded) -
				 (a->units_written_host + a->units_written_gc + a->units_written_tp +
				  a->units_padded);

		sim_outf(out, "%-3u %-13s %8.2f %8.1f %8.1f %8.1f %9.1f %9.1f %8.2f %8.1f %8.1f %8.1f %6.2f\n",
			 p->qd, sp_policy_name[p->pol], p->reads_done / p->secs / 1000.0,
			 blox_hist_mean(&p->rlat) / 1000.0, sim_us(blox_hist_quantile(&p->rlat, 0.5)),
			 sim_us(blox_hist_quantile(&p->rlat, 0.99)),
			 sim_us(blox_hist_quantile(&p->rlat, 0.999)), sim_us(p->rlat.max),
			 p->writes_done * 4096.0 / p->secs / 1e6, blox_hist_mean(&p->wlat) / 1000.0,
			 sim_us(blox_hist_quantile(&p->wlat, 0.99)), sim_us(p->wlat.max), per(flash, host));
	}
	sim_outf(out, "#\n# the flash's part: NAND reads at host-read priority (host data and the translation"
		" pages host reads and writes load) submitted in the window, submit to completion at the"
		" engine (us); the rest of a host read's latency is spent in the FTL (waiting for a"
		" translation page to load, for a read context, ...)\n");
	sim_outf(out, "%-3s %-13s %9s %8s %8s %8s %9s %9s\n", "qd", "policy", "nand_rds", "mean", "p50",
		 "p99", "p99.9", "max");
	for (uint32_t i = 0; i < n; i++) {
		const struct sp_point *p = &pts[i];

		sim_outf(out, "%-3u %-13s %9llu %8.1f %8.1f %8.1f %9.1f %9.1f\n", p->qd,
			 sp_policy_name[p->pol], (unsigned long long)p->nand_rlat.count,
			 blox_hist_mean(&p->nand_rlat) / 1000.0, sim_us(blox_hist_quantile(&p->nand_rlat, 0.5)),
			 sim_us(blox_hist_quantile(&p->nand_rlat, 0.99)),
			 sim_us(blox_hist_quantile(&p->nand_rlat, 0.999)), sim_us(p->nand_rlat.max));
	}
	sim_outf(out, "#\n# NAND in the window: erases (block erases) and per GiB written by the host;"
		" asked: host reads that found a program / an erase in their way (the policy asked);"
		" suspensions per program op and per erase op; erase-suspend wear: suspensions"
		" recorded per block erase (block meta), and the device's erase_suspend_wear counter;"
		" declined: the policy said no; capped: the engine's mechanism said no;"
		" rd_overt: reads served inside suspensions;"
		" urgent%%: host completions that saw the FTL at its urgent GC level;"
		" gc/w, tp/w, pad/w: units GC moved, translation-page units and padding per host unit\n");
	sim_outf(out, "%-3s %-13s %7s %8s %8s %8s %9s %8s %8s %8s %8s %7s %8s %7s %6s %6s %6s\n",
		 "qd", "policy", "erases", "er/GiB", "ask_prg", "ask_er", "susp/prg", "susp/er",
		 "wear/er", "wear_cnt", "declined", "capped", "rd_overt", "urgent%", "gc/w", "tp/w",
		 "pad/w");
	for (uint32_t i = 0; i < n; i++) {
		const struct sp_point *p = &pts[i];
		const struct nand_suspend_stats *a = &p->a.ss, *b = &p->b.ss;
		const struct ftl_stats *fa = &p->a.fs, *fb = &p->b.fs;
		uint64_t er = p->b.blk_erases - p->a.blk_erases;
		uint64_t host = fb->units_written_host - fa->units_written_host;
		uint64_t lvls = p->lvl[0] + p->lvl[1] + p->lvl[2] + p->lvl[3];

		sim_outf(out, "%-3u %-13s %7llu %8.1f %8llu %8llu %9.4f %8.4f %8.4f %8llu %8llu %7llu %8llu"
			 " %7.2f %6.2f %6.2f %6.2f\n",
			 p->qd, sp_policy_name[p->pol], (unsigned long long)er,
			 per(er, host) * (1024.0 * 1024 * 1024 / FTL_UNIT),
			 (unsigned long long)(p->b.asked[NAND_OP_PROGRAM] - p->a.asked[NAND_OP_PROGRAM]),
			 (unsigned long long)(p->b.asked[NAND_OP_ERASE] - p->a.asked[NAND_OP_ERASE]),
			 per(b->suspends[NAND_OP_PROGRAM] - a->suspends[NAND_OP_PROGRAM],
			     p->b.ops[NAND_OP_PROGRAM] - p->a.ops[NAND_OP_PROGRAM]),
			 per(b->suspends[NAND_OP_ERASE] - a->suspends[NAND_OP_ERASE],
			     p->b.ops[NAND_OP_ERASE] - p->a.ops[NAND_OP_ERASE]),
			 per(p->b.blk_erase_susp - p->a.blk_erase_susp, er),
			 (unsigned long long)(b->erase_suspend_wear - a->erase_suspend_wear),
			 (unsigned long long)(b->declined - a->declined),
			 (unsigned long long)(b->capped - a->capped),
			 (unsigned long long)(b->reads_overtaken - a->reads_overtaken),
			 100.0 * per(p->lvl[3], lvls),
			 per(fb->units_written_gc - fa->units_written_gc, host),
			 per(fb->units_written_tp - fa->units_written_tp, host),
			 per(fb->units_padded - fa->units_padded, host));
	}
	sim_outf(out, "#\n# the smart policy's decisions in the window, by reason (qos_suspend_reason_name())\n");
	sim_outf(out, "%-3s %-13s", "qd", "policy");
	for (int r = 0; r < QOS_SUSP_REASONS; r++)
		sim_outf(out, " %13s", qos_suspend_reason_name((enum qos_suspend_reason)r));
	sim_outf(out, "\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct sp_point *p = &pts[i];

		if (p->pol < SP_SMART)
			continue;
		sim_outf(out, "%-3u %-13s", p->qd, sp_policy_name[p->pol]);
		for (int r = 0; r < QOS_SUSP_REASONS; r++)
			sim_outf(out, " %13llu",
				 (unsigned long long)(p->b.decisions[r] - p->a.decisions[r]));
		sim_outf(out, "\n");
	}
}

/* ---- options ---- */

static void usage(void)
{
	printf("usage: blox-sim suspend [options]\n"
	       "  program/erase suspension (never, always, smart) on a full device under a mixed\n"
	       "  closed-loop load; results in docs/results/qos_suspend.txt (docs/QOS_RESULTS.md)\n"
	       "  --qd a,b,...           queue depths, in this order (default 4,16)\n"
	       "  --policies a,b,...     of never,always,smart,smart-unpaced\n"
	       "                         (default all four)\n"
	       "  --reads-pct N          reads among the ops (default 70)\n"
	       "  --seconds S            measured virtual seconds per QD (default 20)\n"
	       "  --warmup-s S           virtual seconds before each window (default 2)\n"
	       "  --precond-x X          random 4 KiB overwrite after the fill, x capacity (default 2)\n"
	       "  --channels N --dies N --planes N --blocks N --ppb N --page-kib N\n"
	       "                         geometry (default 4, 2, 2, 64, 96, 16)\n"
	       "  --op N                 FTL over-provisioning, permille (default the FTL's, 70)\n"
	       "  --cmt-kib N            FTL mapping cache (default the FTL's, 256)\n"
	       "  --engine-cap N         the engine's suspensions per op (default the engine's, 8)\n"
	       "  --smart-max N          the smart policy's max_suspends (default its default, 8)\n"
	       "  --gc-pipeline on|off   ftl_config.gc_pipeline (default off, the FTL's)\n"
	       "  --seed N               RNG seed (default 1)\n"
	       "  --out FILE             results file (default docs/results/qos_suspend.txt)\n");
}

static bool parse(struct sp_opts *o, int argc, char **argv)
{
	static const struct sim_choice policies[] = {
		{ "never", 1 << SP_NEVER }, { "always", 1 << SP_ALWAYS }, { "smart", 1 << SP_SMART },
		{ "smart-unpaced", 1 << SP_SMART_UNPACED }, { NULL, 0 }
	};
	uint32_t page_kib = 16;
	const struct sim_opt opts[] = {
		SIM_OPT_U32S("--qd", o->qds, &o->nqds, SP_MAX_QDS, 1, SIM_MAX_QD),
		SIM_OPT_FLAGS("--policies", &o->policies, policies),
		SIM_OPT_U32("--reads-pct", &o->reads_pct, 0, 100),
		SIM_OPT_NONNEG("--seconds", &o->seconds),
		SIM_OPT_NONNEG("--warmup-s", &o->warmup_s),
		SIM_OPT_NONNEG("--precond-x", &o->precond_x),
		SIM_OPT_U32("--channels", &o->channels, 1, 1024),
		SIM_OPT_U32("--dies", &o->dies, 1, 1024),
		SIM_OPT_U32("--planes", &o->planes, 1, 16),
		SIM_OPT_U32("--blocks", &o->blocks, 1, 1u << 20),
		SIM_OPT_U32("--ppb", &o->ppb, 1, 1u << 16),
		SIM_OPT_U32("--page-kib", &page_kib, 1, 1024),
		SIM_OPT_INT("--op", &o->op_permille, 0, 999),
		SIM_OPT_INT("--cmt-kib", &o->cmt_kib, 0, 1 << 24),
		SIM_OPT_INT("--engine-cap", &o->engine_cap, 0, 1 << 16),
		SIM_OPT_INT("--smart-max", &o->smart_max, 0, 1 << 16),
		SIM_OPT_ONOFF("--gc-pipeline", &o->gc_pipeline),
		SIM_OPT_SEED(&o->seed),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_END,
	};

	*o = (struct sp_opts){ .qds = { 4, 16 }, .nqds = 2, .policies = 15, .reads_pct = 70,
			       .seconds = 20, .warmup_s = 2, .precond_x = 2, .channels = 4, .dies = 2,
			       .planes = 2, .blocks = 64, .ppb = 96, .op_permille = -1, .cmt_kib = -1,
			       .engine_cap = -1, .smart_max = -1, .seed = 1 };
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	if (!sim_opts_parse("suspend", usage, opts, argc, argv))
		return false;
	o->page_size = page_kib * 1024;
	o->seed |= 1;
	if (!(o->seconds > 0))
		sim_die("--seconds must be positive");
	return true;
}

/*
 * One window in a child process: a copy-on-write snapshot of the
 * preconditioned device (RAM store, FTL and engine), so every policy and
 * queue depth starts from the very same state; the point comes back
 * through a pipe.
 */
struct sp_child {
	struct sp_dev *d;
	enum sp_policy pol;
	uint32_t qd;
	struct sp_point *p;
};

static void window_in_child(void *arg)
{
	struct sp_child *c = arg;

	sp_set_policy(c->d, c->pol);
	sp_window(c->d, c->qd, c->p);
	sp_verify(c->d);
}

static void run_child(struct sp_dev *d, enum sp_policy pol, uint32_t qd, struct sp_point *p)
{
	struct sp_child c = { d, pol, qd, p };
	size_t got;
	int status;

	if (sim_in_child(window_in_child, &c, p, sizeof(*p), &got, &status))
		sim_die("%s at QD %u failed (status %d)", sp_policy_name[pol], qd, status);
}

int sim_suspend_main(int argc, char **argv)
{
	struct sp_opts o;
	struct sim_out out;
	struct sp_dev *d;
	struct sp_point *pts;
	uint32_t n = 0;
	double w0 = sim_wall_now(), waf_pre;

	if (!parse(&o, argc, argv))
		return 0;
	sim_out_create(&out, o.out, "docs/results", "qos_suspend.txt");
	d = calloc(1, sizeof(*d));
	pts = calloc(SP_POLICIES * SP_MAX_QDS, sizeof(*pts));
	if (!d || !pts)
		sim_die("out of memory");
	sp_open(d, &o);
	waf_pre = sp_precondition(d);
	fprintf(stderr, "  [preconditioned, WAF %.2f, %.1f s wall]\n", waf_pre, sim_wall_now() - w0);
	header(&out, d, waf_pre);
	for (uint32_t q = 0; q < o.nqds; q++) {
		for (int pol = 0; pol < SP_POLICIES; pol++) {
			if (!(o.policies & (1u << pol)))
				continue;
			run_child(d, (enum sp_policy)pol, o.qds[q], &pts[n++]);
			fprintf(stderr, "  [QD %u %s: %.1f s wall]\n", o.qds[q], sp_policy_name[pol],
				sim_wall_now() - w0);
		}
	}
	table(&out, pts, n);
	sp_verify(d);
	sp_close(d);
	sim_out_close(&out);
	fprintf(stderr, "wall time %.1f s\n", sim_wall_now() - w0);
	free(d);
	free(pts);
	return 0;
}
