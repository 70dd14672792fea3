/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment suspend (sim_suspend.c): its options, the device and
 * a measured point, shared by its two files:
 *   sim_suspend.c      the policy's inputs, the FTL's environment, the device,
 *                      the closed loop, preconditioning and a window
 *   sim_suspend_out.c  the command line, the results file and the run's order
 */
#ifndef BLOX_BENCH_SIM_SUSPEND_H
#define BLOX_BENCH_SIM_SUSPEND_H

#include "qos.h"
#include "sim.h"

#define SP_MAX_QDS 4
#define SP_POLICIES 4
#define SP_VERIFY_READS 8192u
#define SP_NRD 4096u /* host-priority NAND reads in flight at most */

/* smart-unpaced: the smart policy with its pacing off (qos_suspend_cfg.pace). */
enum sp_policy { SP_NEVER, SP_ALWAYS, SP_SMART, SP_SMART_UNPACED };


struct sp_opts {
	uint32_t qds[SP_MAX_QDS], nqds;
	uint32_t policies; /* bit per enum sp_policy */
	uint32_t reads_pct;
	double seconds, warmup_s, precond_x;
	uint32_t channels, dies, planes, blocks, ppb, page_size;
	int op_permille, cmt_kib; /* -1: the FTL's default */
	int engine_cap; /* nand_config.max_suspends_per_op; -1: the engine's default */
	int smart_max; /* the smart policy's max_suspends; -1: qos_suspend_cfg_default()'s */
	bool gc_pipeline; /* ftl_config.gc_pipeline */
	uint64_t seed;
	const char *out;
	char cmdline[1024];
};

enum sp_job { SP_JOB_FILL, SP_JOB_RANDW, SP_JOB_MIX, SP_JOB_VERIFY };

struct sp_dev;

struct sp_slot {
	struct ftl_io io;
	struct sp_dev *d;
	uint8_t *buf;
	uint64_t t_sub;
	uint32_t lba, nr;
	uint32_t ver[SIM_SEQ_UNITS];
	bool busy, in_win;
};

/* Counters at a point in time, for the window's deltas. */
struct sp_snap {
	uint64_t t;
	struct ftl_stats fs;
	struct nand_suspend_stats ss;
	uint64_t ops[NAND_OP_KINDS];
	uint64_t blk_erases, blk_erase_susp; /* summed over every block's meta */
	uint64_t decisions[QOS_SUSP_REASONS];
	uint64_t asked[NAND_OP_KINDS];
};

/* One measured window. */
struct sp_point {
	uint32_t qd;
	enum sp_policy pol;
	double secs;
	struct blox_hist rlat, wlat;
	struct blox_hist nand_rlat; /* host-priority NAND reads submitted in the window */
	uint64_t reads_done, writes_done; /* completed inside the window */
	uint64_t lvl[4]; /* GC level seen at host completions in the window */
	struct sp_snap a, b;
};

struct sp_dev {
	const struct sp_opts *o;
	enum sp_policy pol;
	/* The policy under test, behind a wrapper that counts what it is asked about. */
	struct nand_suspend_policy inner;
	bool pol_on; /* off (never suspend, nothing counted) during the precondition */
	uint64_t asked[NAND_OP_KINDS]; /* queries by the kind of op in the way */
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct ftl_vdrive vd;
	/*
	 * The FTL's environment: the virtual-time driver's, with host-read-
	 * priority NAND reads (data and translation pages of host reads)
	 * timed on their way through: the flash's part of a read's latency.
	 */
	struct ftl_env env;
	struct sp_nrd {
		nand_op_cb cb;
		void *cb_arg;
		struct sp_dev *d;
	} nrd[SP_NRD];
	uint32_t nrd_free[SP_NRD], nnrd_free;
	uint64_t win_t0, win_t1; /* the window, for those reads' submission times */
	struct ftl_config fc;
	struct ftl_resources res;
	struct ftl *f;
	struct ftl_gc_info gci;
	struct ftl_layout lay;
	/* The smart policy's state and the inputs it reads at each decision. */
	struct qos_suspend_inputs in;
	struct qos_suspend_state st;

	uint32_t cap;
	uint32_t *shadow; /* version per LBA, 0: never written */
	uint8_t *lba_busy; /* an op on this LBA is in flight */
	uint32_t next_ver;
	uint64_t rng;
	struct sp_slot slots[SIM_MAX_QD];

	/* The running job (closed loop). */
	enum sp_job job;
	uint32_t qd;
	bool stop;
	uint64_t to_submit, submitted, inflight;
	uint32_t fill_ptr;

	/* The window: ops submitted while win is on are measured. */
	bool win;
	uint64_t win_inflight;
	struct sp_point *pt;
	uint64_t bad, io_errors;
};

/* ---- sim_suspend.c ---- */

/* @pol as the engine's suspension policy of @d from now on. */
void sp_set_policy(struct sp_dev *d, enum sp_policy pol);
void sp_open(struct sp_dev *d, const struct sp_opts *o);
void sp_close(struct sp_dev *d);
/* Filled, then overwritten --precond-x times at random; the WAF over that. */
double sp_precondition(struct sp_dev *d);
/* One window at queue depth @qd under the policy set: warm-up, measured, drained. */
void sp_window(struct sp_dev *d, uint32_t qd, struct sp_point *p);
/* Random reads checked against what was written. */
void sp_verify(struct sp_dev *d);

#endif
