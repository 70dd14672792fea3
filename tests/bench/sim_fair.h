/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment fairness (sim_fair.c): its options, the device of two
 * tenants on shared dies and a measured point, shared by its two files:
 *   sim_fair.c      the scheduler, the device, the tenants' ops, a point
 *   sim_fair_out.c  the command line, the results file and the run's order
 */
#ifndef BLOX_BENCH_SIM_FAIR_H
#define BLOX_BENCH_SIM_FAIR_H

#include "sim.h"

#define FA_TENANTS 2
#define FA_MAX_QD 1024u
#define FA_MAX_MIXES 8
#define FA_VERIFY_READS 8192u
#define FA_MAX_DIES 64u
#define FA_MAX_POOLS 8

enum fa_sched { FA_FIFO, FA_DRR, FA_DRRG, FA_SCHEDS };

extern const char *const fa_sched_name[FA_SCHEDS]; /* sim_fair_out.c */

struct fa_opts {
	uint32_t weight[FA_TENANTS];
	uint32_t mixes[FA_MAX_MIXES], nmixes; /* read percentages */
	uint32_t scheds; /* bit per enum fa_sched */
	bool bus_drr;
	uint32_t qd;
	double seconds, warmup_s, precond_x;
	uint32_t pool_ch[FA_MAX_POOLS], pool_dies[FA_MAX_POOLS], npools; /* channels x dies/channel */
	uint32_t planes, ppb, blocks;
	uint32_t wbuf; /* FTL write buffer pages; 0: the FTL's default */
	uint32_t op_permille; /* FTL over-provisioning; 0: the FTL's default */
	bool gc_pipeline; /* ftl_config.gc_pipeline */
	uint64_t seed;
	const char *out, *outdir;
	char cmdline[2048];
};

struct fa_dev;
struct fa_tenant;

struct fa_slot {
	struct ftl_io io;
	struct fa_tenant *t;
	uint8_t buf[FTL_UNIT];
	uint64_t t_sub;
	uint32_t lba;
	uint32_t lo; /* read: the LBA's committed version at submission */
	uint32_t ver; /* write: the version written */
	bool in_win;
};

enum fa_job {
	FA_JOB_NONE,
	FA_JOB_FILL, /* 128 KiB sequential writes over the capacity */
	FA_JOB_MIX, /* random 4 KiB ops, reads_pct of them reads */
	FA_JOB_VERIFY, /* random 4 KiB reads, a fixed number */
};

struct fa_tenant {
	struct fa_dev *d;
	char name;
	uint32_t id; /* tenant id on the device */
	struct ftl_env env;
	struct ftl_resources res;
	struct ftl *f;
	struct sim_tenv se; /* its FTL's environment */
	uint32_t cap;
	uint32_t *shadow, *pend; /* committed version per LBA, version in flight (0: none) */
	uint32_t next_ver;
	uint64_t rng;
	struct fa_slot *slots;
	uint32_t *free_idx, nfree;
	uint8_t *fill_buf;
	struct ftl_io fill_io;
	bool fill_busy;

	enum fa_job job;
	uint32_t reads_pct;
	bool stop;
	uint64_t to_submit, submitted, inflight;
	uint32_t fill_ptr;

	/* The window: ops submitted in [m0, m1). */
	bool m_on;
	uint64_t m0, m1;
	struct blox_hist rlat, wlat;
	uint64_t bad, io_errors;
};

/*
 * What a tenant's FTL was doing while it had nothing queued on a die the
 * other tenant was given (ftl_inspect_gc(), ftl_inspect_activity()): GC by
 * phase, and its host writes.
 */
enum fa_dry_gc {
	DRY_SCAN, /* a victim in pass 1: OOB reads */
	DRY_ROUND, /* a victim in pass 2: a round's data reads (or held back) */
	DRY_MOVE, /* a victim in pass 2: moving (waiting for translation pages or space) */
	DRY_SLOT, /* a victim collected, waiting for an erase slot */
	DRY_ERASE, /* no victim: collected ones waiting for their programs and erase */
	DRY_NOGC, /* no GC at all */
	DRY_GC_KINDS,
};

enum fa_dry_host {
	DRY_PACED, /* host writes waiting for a GC credit */
	DRY_SPACE, /* host writes waiting for buffer or superblock space */
	DRY_FREE, /* neither */
	DRY_HOST_KINDS,
};


/* qos_drr per die and class, per channel and class: the scheduler's state. */
struct fa_drr {
	uint32_t ndies, nch;
	struct qos_drr *die, *bus;
	/*
	 * Die time given per tenant by picks with both tenants waiting, and by
	 * picks with only that one waiting (the other had nothing queued).
	 */
	uint64_t contended_ns[FA_TENANTS], alone_ns[FA_TENANTS];
	/* During the window: the FTLs, and the other's alone_ns by what they did. */
	const struct ftl *ftl[FA_TENANTS];
	uint64_t dry_gc_ns[FA_TENANTS][DRY_GC_KINDS], dry_host_ns[FA_TENANTS][DRY_HOST_KINDS];
};

struct fa_dev {
	const struct fa_opts *o;
	enum fa_sched sched;
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct blox_clock clock;
	struct ftl_config fc;
	struct fa_drr drr;
	struct fa_tenant t[FA_TENANTS];
	struct sim_loop loop; /* the run loop over both */
	uint32_t ndies;
};

/* One measured point. */
struct fa_point {
	enum fa_sched sched;
	uint32_t reads_pct;
	double window_s;
	uint64_t served[FA_TENANTS][NAND_OP_KINDS]; /* ns, all dies */
	double die_ratio_min, die_ratio_max; /* B/A per die */
	double busy_pct; /* the dies' array time, % of the window */
	double kiops_r[FA_TENANTS], kiops_w[FA_TENANTS];
	double rmean[FA_TENANTS], rp99[FA_TENANTS], wmean[FA_TENANTS], wp99[FA_TENANTS];
	double waf[FA_TENANTS];
	uint64_t picks, bus_picks, fallbacks;
	uint64_t contended_ns[FA_TENANTS], alone_ns[FA_TENANTS]; /* drr: see struct fa_drr */
	uint64_t dry_gc_ns[FA_TENANTS][DRY_GC_KINDS], dry_host_ns[FA_TENANTS][DRY_HOST_KINDS];
	uint32_t channels, dies; /* the pool */
	double wall_s;
};


/* ---- sim_fair.c ---- */

/* A fresh device of pool @pool of @o with scheduler @sched, both tenants open. */
void fa_open(struct fa_dev *d, const struct fa_opts *o, uint32_t pool, enum fa_sched sched);
void fa_close(struct fa_dev *d);
/* Both tenants filled, then overwritten --precond-x times at random. */
void fa_precondition(struct fa_dev *d);
/* One mix measured: warm-up, window, drain. */
void fa_point(struct fa_dev *d, uint32_t reads_pct, struct fa_point *p);
/* Random reads of both tenants checked against what was written. */
void fa_verify(struct fa_dev *d);

#endif
