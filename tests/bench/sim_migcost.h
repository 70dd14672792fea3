/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment migcost (sim_migcost.c): its options, the device of
 * two channel vSSDs and a measured point, shared by its two files:
 *   sim_migcost.c      the FTLs' environment, the device, channel moves, a point
 *   sim_migcost_out.c  the command line, the results file and the run's order
 */
#ifndef BLOX_BENCH_SIM_MIGCOST_H
#define BLOX_BENCH_SIM_MIGCOST_H

#include "sim.h"

#define MC_TENANTS 2
#define MC_POOL 4096u /* ops of one tenant in flight at most */
#define MC_ZIPF_THETA 0.99
#define MC_VERIFY_READS 8192u
#define MC_MAX_SHARES 8
#define MC_MAX_DPC 16 /* dies per channel */
#define MC_MAX_CH 64
#define MC_STALL_S 60u /* virtual seconds without migration progress: stalled */

struct mc_opts {
	uint32_t shares[MC_MAX_SHARES], nshares;
	int order[MC_TENANTS], norder; /* whose channel moves (0: R, 1: W), in this order */
	double base_s, warmup_s, r_kiops, precond_x;
	uint32_t w_qd, fill_qd, ppb, blocks;
	int wl_threshold; /* the FTL's static wear-leveling threshold; -1: its default */
	uint64_t seed;
	bool debug; /* BLOX_SIM_DEBUG set: the migration's progress to stderr */
	const char *out, *outdir;
	char cmdline[2048];
};

struct mc_dev;
struct mc_tenant;

/* One die migration of a channel move. */
struct mc_move {
	uint32_t slot, src, dst; /* global die indexes */
	int status;
	uint64_t t0, t1; /* virtual ns: ftl_migrate_start() and ops->migrated() */
	uint64_t ftl_t0, ftl_t1; /* the FTL's started_ns / finished_ns */
	uint64_t busy_ns; /* the FTL's progress.busy_ns at the end */
	uint64_t bytes, bytes_plan; /* copied; what was to copy right after the start */
	uint32_t sbs, sbs_plan;
	/* NAND array time (all kinds, suspend overhead included) of the two dies. */
	uint64_t src_ns0, dst_ns0, src_ns, dst_ns;
	uint64_t dst_prog0, dst_prog; /* the destination's program array time */
	/* The moved tenant's FTL: at the start, and the changes until the end. */
	struct ftl_stats st0;
	uint64_t gc_runs, wl_runs, gc_units; /* GC and static-WL runs, units GC moved */
	uint32_t ec_min0, ec_max0, ec_min1, ec_max1; /* superblock erase counts (ftl_stats) */
};

struct mc_tenant {
	struct sim_tenant b; /* its FTL, ops, jobs and window */
	struct mc_dev *d;
	uint64_t wake_ns; /* ops->wake_at() asked for this time; 0: nothing */
	bool mig_ended; /* ops->migrated() ran */
	int mig_status;
	uint32_t ch; /* the channel its dies are on */
};

/* A channel move under way: @t's dies, die by die, to channel @to_ch. */
struct mc_job_state {
	struct mc_tenant *t;
	bool on;
	uint32_t share, from_ch, to_ch, cur;
	struct mc_move mv[MC_MAX_DPC];
	uint64_t t0, t1;
	int error; /* a refused start: -errno */
};

struct mc_dev {
	const struct mc_opts *o;
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct blox_clock clock;
	struct ftl_config fc;
	struct mc_tenant t[MC_TENANTS];
	int owner[MC_MAX_CH]; /* tenant index on each channel, -1: free */
	struct mc_job_state job;
	struct sim_loop loop; /* the run loop over both */
};

/* One tenant's figures over a window. */
struct mc_lat {
	uint64_t n;
	double kiops, mean, p50, p99, p999, max; /* its main op: R's reads, W's writes; us */
	double waf; /* flash units / host units written in the window (W) */
	uint64_t gc_runs;
};

struct mc_win {
	double secs;
	struct mc_lat lat[MC_TENANTS];
};

struct mc_point {
	int target; /* tenant index moved */
	uint32_t share, from_ch, to_ch;
	struct mc_win base, mig;
	struct mc_move mv[MC_MAX_DPC];
	uint32_t nmv;
	double secs; /* the channel's migration, first start to last end */
	double wall_s;
};


/* ---- sim_migcost.c ---- */

/* The device: both tenants open and filled-to-be, R on channel 0, W on 1. */
void mc_open(struct mc_dev *d, const struct mc_opts *o);
void mc_close(struct mc_dev *d);
/* R's Poisson reads at @kiops, from now on. */
void mc_job_reads(struct mc_tenant *t, double kiops);
/*
 * One point: tenant @ti's channel moved at @share (a window), then a
 * window without migration as long as the move (at least --base-s).
 */
void mc_point(struct mc_dev *d, int ti, uint32_t share, struct mc_point *p);
/* Both filled; W overwritten --precond-x times its capacity; W's WAF over that. */
double mc_precondition(struct mc_dev *d);
/* W stops, R's arrivals stop; both read a random sample back. */
void mc_verify(struct mc_dev *d);

#endif
