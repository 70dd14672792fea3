/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim's internal header: the parsed options, one simulated device
 * (struct sim: NAND, FTL and the closed loop driving it in virtual time),
 * the output file, and the functions the simulator's files share:
 *
 *   sim_core.c   one device: open/restart/close, the closed loop, fill, idle
 *   sim_out.c    output files and the header lines the experiments share
 *   sim_harness.c  what else they share: random numbers and zipfian LBAs,
 *                several FTLs on one device and clock, WAF, machine and command
 *   sim_opt.c    an experiment's options: a table of them, parsed
 *   sim_tenant.c a tenant of the two-tenant experiments: its ops, checked reads,
 *                closed-loop jobs and open-loop arrivals, its measured window
 *   sim_reads.c  experiments 1 and 2 (read sweeps, DFTL vs MDC)
 *   sim_waf.c    experiment 3 (write amplification vs over-provisioning)
 *   sim_iso.c    experiment isolation (FlashBlox: two tenants, three isolation levels)
 *   sim_plm.c    experiment plm (qos bench 5: predictable latency windows, read tails in and out)
 *   sim_lifetime.c  experiment lifetime (FlashBlox: wear balance by channel swaps over years);
 *                with sim_lifetime_out.c (command line, results file) and sim_lifetime.h
 *   sim_migcost.c  experiment migcost (FlashBlox: the cost of an online channel migration);
 *                with sim_migcost_out.c and sim_migcost.h
 *   sim_fair.c   experiment fairness (qos bench 3: two software vSSDs weighted on shared dies);
 *                with sim_fair_out.c and sim_fair.h
 *   sim_model.c  experiment model (qos bench 4: bloxctl stats' model against virtual time)
 *   sim_suspend.c  experiment suspend (qos/: program/erase suspension policies, database-like load);
 *                with sim_suspend_out.c and sim_suspend.h
 *   sim_wear.c   experiment wear (read latency as the flash wears, refresh off and on)
 *   sim_fdp.c    experiment fdp (a flash cache's two engines, WAF with and without FDP)
 *   sim_powercut.c  experiment powercut (data lost at a power cut against PLP's hold-up)
 *   blox_sim.c   command line and main
 *
 * Nothing here is global: the options are parsed into a struct sim_opts
 * that main passes down (const), and each device keeps a pointer to them.
 */
#ifndef BLOX_BENCH_SIM_H
#define BLOX_BENCH_SIM_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ftl.h"
#include "blox_hist.h"
#include "nand.h"
#include "vdrive.h"

#define MiB (1024.0 * 1024.0)
#define SIM_MAGIC 0x534c4258u /* "XBLS" */
#define SIM_MAX_QD 256u
#define SIM_SEQ_UNITS 32u /* 128 KiB */
#define SIM_MAX_RANGES 32
#define SIM_MAX_OPS 16
#define SIM_EXP_ISOLATION 4 /* --exp isolation */
#define SIM_ISO_MAX_PCTS 8

/* The command line, parsed (see usage() in blox_sim.c for the meanings). */
struct sim_opts {
	int exp; /* 1, 2, 3, SIM_EXP_ISOLATION; 0: all (1, 2 and 3) */
	uint64_t raw_mib, waf_raw_mib;
	uint32_t waf_ppb, waf_control_kib;
	bool waf_control;
	uint32_t channels, dies, planes, ppb, page_size;
	uint32_t cmt_kib, mdc_bytes, mdc_min_run, hot_regions, hot_top;
	int mdc; /* 0 off, 1 on, 2 both */
	int sep; /* 0 off, 1 on, 2 both */
	bool sep_set; /* --sep given (else exp 1 runs with it on) */
	int rand_lba; /* exp 2: 0 uniform, 1 ahead, 2 both */
	uint32_t op_permille; /* exp 1/2 */
	uint32_t qd;
	uint64_t reads, warmup;
	bool prefetch;
	bool multiplane; /* NAND engine groups programs/erases across planes */
	bool plane_groups; /* exp 1/2/3: ftl_config.plane_groups */
	uint64_t idle_ms;
	double write_x; /* exp 3: random writes, times the capacity */
	uint32_t ops[SIM_MAX_OPS], nops; /* exp 3 op_permille list */
	int gc; /* 0 greedy, 1 cb, 2 both */
	uint32_t nranges;
	uint32_t range_num[SIM_MAX_RANGES], range_den[SIM_MAX_RANGES];
	int gc_bg, gc_idle; /* permille of the spare superblocks; -1: the FTL's */
	uint64_t seed;
	/* Experiment isolation (sim_iso.c). */
	uint32_t iso_pcts[SIM_ISO_MAX_PCTS], iso_npcts; /* --reads-pct: R's read mixes */
	double iso_seconds, iso_warmup_s; /* measured and warm-up virtual seconds per point */
	double iso_r_kiops; /* R's open-loop arrival rate */
	double iso_precond_x; /* W's random overwrite before measuring, x its capacity */
	uint32_t iso_w_qd; /* W's closed-loop queue depth */
	double iso_w_rates[SIM_ISO_MAX_PCTS]; /* --w-kiops: W open loop, after the closed-loop points */
	uint32_t iso_nw_rates;
	uint32_t iso_ppb, iso_blocks; /* pages per block; blocks per plane per tenant */
	uint32_t iso_channels; /* channels per tenant at the channel level */
	int iso_suspend; /* 0 never, 1 the default policy, 2 both */
	uint32_t iso_levels; /* bit per level: software, chip, channel */
	bool debug; /* BLOX_SIM_DEBUG set: counter deltas to stderr */
	const char *out, *outdir;
	char cmdline[2048];
};

/* ---- one simulated device (sim_core.c) ---- */

enum sim_job { SIM_JOB_READ, SIM_JOB_FILL, SIM_JOB_RANDW };

struct sim;

/* One queue slot of the closed loop: an I/O and its buffer. */
struct sim_slot {
	struct ftl_io io;
	struct sim *s;
	uint8_t *buf;
	uint64_t t_sub;
	bool busy, parked;
	uint32_t lba, nr; /* in flight */
	uint32_t ver[SIM_SEQ_UNITS]; /* versions written */
};

struct sim {
	const struct sim_opts *o;
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct ftl_vdrive vd;
	struct ftl_config fc;
	struct ftl_resources res;
	struct ftl *f;
	struct ftl_layout lay; /* f's (ftl_inspect_layout()), set at open and restart */
	uint32_t cap;
	uint32_t *shadow; /* version per LBA, 0: never written */
	uint32_t next_ver;
	uint64_t rng;
	struct sim_slot slots[SIM_MAX_QD];
	uint32_t qd;

	/* The running job. */
	enum sim_job kind;
	uint64_t to_submit, submitted, completed, inflight;
	bool done;
	bool cut; /* power is gone (sim_run_for()): completions are no longer the host's */
	uint32_t range; /* reads: [0, range) */
	uint32_t fill_ptr; /* fill: next sequential LBA */
	uint32_t since_rand; /* fill: units since the last random write */
	uint32_t rand_every; /* fill: 0 none, else units between random writes */
	int rand_mode; /* 0 uniform, 1 ahead of the fill pointer */
	bool pending_rand;
	uint64_t bad, io_errors;
	struct blox_hist lat;
	/* exp 3 sampling */
	double free_sum, open_sum;
	uint64_t samples;
};

/* Print "blox-sim: <message>" to stderr and exit(1). */
__attribute__((noreturn, format(printf, 1, 2))) void sim_die(const char *fmt, ...);
/* Monotonic wall-clock seconds (for the "wall" figures only). */
double sim_wall_now(void);

/* The FTL configuration of exp 1/2 from @o (budgets, op_permille). */
void sim_base_config(struct ftl_config *fc, const struct sim_opts *o);
/* GC levels: the FTL's defaults unless --gc-bg / --gc-idle say otherwise. */
void sim_gc_levels(struct ftl_config *fc, const struct sim_opts *o);

/*
 * Zero @s, create the NAND device of @o's geometry (raw_mib, ppb, ...) in
 * RAM and an FTL with @fc on it. @o must outlive @s.
 */
void sim_open(struct sim *s, const struct sim_opts *o, const struct ftl_config *fc);
/* Clean stop, then start again with @fc (recovery from the checkpoint). */
void sim_restart(struct sim *s, const struct ftl_config *fc);
void sim_close(struct sim *s);

/*
 * Run @n ops of @kind in a closed loop at the options' queue depth until
 * all completed; dies on a hang, a failed I/O or a read that does not
 * match what was written.
 */
void sim_run_job(struct sim *s, enum sim_job kind, uint64_t n);
/*
 * @kind in a closed loop for @ns of virtual time, stopped there with its
 * I/O in flight: the moment of a power cut. sim_cut() then ends the job
 * (no more submissions, completions are not counted); once the FTL is gone,
 * sim_drop_inflight() forgets what it held.
 */
void sim_run_for(struct sim *s, enum sim_job kind, uint64_t ns);
void sim_cut(struct sim *s);
void sim_drop_inflight(struct sim *s);
/* Let the FTL sit idle for @ns of virtual time, calling ftl_process. */
void sim_run_idle(struct sim *s, uint64_t ns);
/*
 * Write the whole capacity sequentially in 128 KiB writes; with
 * @rand_every, one 4 KiB write after every @rand_every units, to a random
 * LBA (@rand_mode 0) or one the fill has not reached yet (1).
 */
void sim_fill(struct sim *s, uint32_t rand_every, int rand_mode);

/* ---- shared by the experiments (sim_harness.c) ---- */

/* xorshift64*: the next number of the sequence in @state (not 0). */
uint64_t sim_rnd(uint64_t *state);
/* Uniform in (0, 1], from sim_rnd(). */
double sim_rnd_unit(uint64_t *state);

/* YCSB's zipfian generator (Gray et al. 1994) over [0, n). */
struct sim_zipf {
	uint64_t n;
	double theta, alpha, zetan, eta, half_pow;
};

void sim_zipf_init(struct sim_zipf *z, uint64_t n, double theta);
/* The rank drawn by @u, uniform in (0, 1]. */
uint64_t sim_zipf_next(const struct sim_zipf *z, double u);
/* FNV-1a over the 8 bytes of @v, as YCSB's ScrambledZipfianGenerator. */
uint64_t sim_fnv1a64(uint64_t v);
/* A scrambled zipfian LBA of [0, @cap): @z's rank, hashed. */
uint32_t sim_zipf_lba(const struct sim_zipf *z, uint64_t *state, uint32_t cap);

/* A NAND device of @nc on a store in RAM (dies if either cannot be made). */
void sim_nand_open(const struct nand_config *nc, struct nand_store **store, struct nand_dev **dev);

/*
 * Every unit written carries SIM_MAGIC, its LBA, a version (counting from
 * 1) and the LBA inverted in its last word; a unit never written reads as
 * zeroes.
 */
void sim_stamp_unit(uint8_t *unit, uint32_t lba, uint32_t ver);
/* The unit read from @lba holds version @want (0: never written). */
bool sim_unit_is(const uint8_t *unit, uint32_t lba, uint32_t want);
/* It holds a version in [@lo, @hi], or zeroes if @lo is 0 (writes in flight meanwhile). */
bool sim_unit_between(const uint8_t *unit, uint32_t lba, uint32_t lo, uint32_t hi);

/*
 * The environment of one of several FTLs on one NAND device and one virtual
 * clock (the ftl_env's ctx): it submits at the clock's time and notes the
 * FTL's kicks for the run loop to process it.
 */
struct sim_tenv {
	struct nand_dev *dev;
	struct nand_store *store;
	struct blox_clock *clock;
	struct ftl *f; /* the FTL it serves (set once created), processed on a kick */
	uint32_t id; /* the tenant id its FTL's NAND ops should carry */
	bool kicked; /* the FTL asked to be processed; the run loop clears it */
	uint64_t sub_ops; /* NAND ops submitted, and those with another tenant's id */
	uint64_t wrong_tenant;
};

/*
 * @e and the ftl_env @env that goes with it: @ops, or NULL for the four
 * below. An FTL that needs more callbacks (migrations) has a table of its
 * own naming these four; its other callbacks get @e as their ctx.
 */
void sim_tenv_init(struct sim_tenv *e, struct ftl_env *env, const struct ftl_env_ops *ops,
		   struct nand_dev *dev, struct nand_store *store, struct blox_clock *clock,
		   uint32_t id);
int sim_tenv_submit(void *ctx, struct nand_op *op);
uint64_t sim_tenv_now(void *ctx);
void sim_tenv_kick(void *ctx);
int sim_tenv_sync(void *ctx);

/* What an experiment adds to sim_loop_run(); each member may be NULL but hang. */
struct sim_loop_ops {
	/* Anything to process now besides the FTLs' kicks (true: something was). */
	bool (*events)(void *ctx);
	/* The time of the experiment's next event (arrival, wake-up); UINT64_MAX: none. */
	uint64_t (*next)(void *ctx);
	/* Run the experiment's event due at @now (next() named it). */
	void (*fire)(void *ctx, uint64_t now);
	/* Nothing pending anywhere and no time limit: die saying what was left. */
	void (*hang)(void *ctx);
};

#define SIM_LOOP_MAX 4

/* Several FTLs (their sim_tenv, with f set) on one device and clock. */
struct sim_loop {
	struct nand_dev *dev;
	struct blox_clock *clock;
	struct sim_tenv *env[SIM_LOOP_MAX];
	uint32_t n;
	const struct sim_loop_ops *ops;
	void *ctx; /* the experiment's, to its ops and done */
};

/*
 * Run the device, the FTLs and the experiment's events, event by event in
 * virtual time, until @until (the clock then set to it), or until @done
 * (if given) says so; kicked FTLs are processed before time moves, and an
 * experiment's event goes before the device's at the same time.
 */
void sim_loop_run(const struct sim_loop *l, uint64_t until, bool (*done)(const void *ctx));

/* Nanoseconds in microseconds. */
double sim_us(uint64_t ns);
/* Units an FTL wrote to flash: host, GC, translation pages and padding. */
double sim_flash_units(const struct ftl_stats *a);
/* Flash units per host unit written between @a and @b (0 without host writes). */
double sim_waf_between(const struct ftl_stats *a, const struct ftl_stats *b);

/* The machine a results file was made on. */
struct sim_machine {
	char model[256]; /* CPU model, "unknown CPU" */
	char os[256]; /* os-release's PRETTY_NAME, "unknown OS" */
	char release[65]; /* kernel */
	long cpus; /* online */
};

void sim_machine_get(struct sim_machine *m);
/* argv joined by spaces into @buf (cut at the last argument that fits). */
void sim_cmdline(char *buf, size_t size, int argc, char **argv);

/* ---- an experiment's options (sim_opt.c) ---- */

enum sim_opt_type {
	SIM_OT_U32, /* uint32_t: an integer in lo..hi (C notation, 0x.. too) */
	SIM_OT_INT, /* int: an integer in lo..hi, lo >= 0 */
	SIM_OT_U64, /* uint64_t: an integer in lo..hi */
	SIM_OT_POS, /* double > 0 */
	SIM_OT_DBL, /* double in lo..hi */
	SIM_OT_STR, /* const char *: the argument itself */
	SIM_OT_ONOFF, /* bool: on or off */
	SIM_OT_CHOICE, /* int: the value of the choice named */
	SIM_OT_U32S, /* uint32_t[max]: a,b,... each in lo..hi, how many in *n */
	SIM_OT_FLAGS, /* uint32_t: a,b,... choices, their values or'ed */
	SIM_OT_FN, /* fn(ctx, name, value) reads it */
};

/* A named value of an option; a table of them ends with a NULL name. */
struct sim_choice {
	const char *name;
	int value;
};

/* One option of an experiment: a table of them ends with a NULL name. */
struct sim_opt {
	const char *name; /* "--qd" */
	enum sim_opt_type type;
	union {
		uint32_t *u32;
		int *i;
		uint64_t *u64;
		double *dbl;
		const char **str;
		bool *flag;
	};
	double lo, hi;
	uint32_t *n, max; /* SIM_OT_U32S */
	const struct sim_choice *choices; /* SIM_OT_CHOICE, SIM_OT_FLAGS */
	void (*fn)(void *ctx, const char *name, const char *v);
	void *ctx;
};

#define SIM_OPT_U32(nm, p, l, h) { .name = (nm), .type = SIM_OT_U32, .u32 = (p), .lo = (l), .hi = (h) }
#define SIM_OPT_INT(nm, p, l, h) { .name = (nm), .type = SIM_OT_INT, .i = (p), .lo = (l), .hi = (h) }
#define SIM_OPT_U64(nm, p, l, h) { .name = (nm), .type = SIM_OT_U64, .u64 = (p), .lo = (l), .hi = (h) }
/* A seed: any 64-bit integer. */
#define SIM_OPT_SEED(p) SIM_OPT_U64("--seed", p, 0, 18446744073709551615.0)
#define SIM_OPT_POS(nm, p) { .name = (nm), .type = SIM_OT_POS, .dbl = (p) }
#define SIM_OPT_DBL(nm, p, l, h) { .name = (nm), .type = SIM_OT_DBL, .dbl = (p), .lo = (l), .hi = (h) }
/* A double >= 0. */
#define SIM_OPT_NONNEG(nm, p) SIM_OPT_DBL(nm, p, 0, HUGE_VAL)
#define SIM_OPT_STR(nm, p) { .name = (nm), .type = SIM_OT_STR, .str = (p) }
#define SIM_OPT_ONOFF(nm, p) { .name = (nm), .type = SIM_OT_ONOFF, .flag = (p) }
#define SIM_OPT_CHOICE(nm, p, c) { .name = (nm), .type = SIM_OT_CHOICE, .i = (p), .choices = (c) }
#define SIM_OPT_U32S(nm, p, np, mx, l, h)                                                      \
	{ .name = (nm), .type = SIM_OT_U32S, .u32 = (p), .n = (np), .max = (mx), .lo = (l), .hi = (h) }
#define SIM_OPT_FLAGS(nm, p, c) { .name = (nm), .type = SIM_OT_FLAGS, .u32 = (p), .choices = (c) }
#define SIM_OPT_FN(nm, f, c) { .name = (nm), .type = SIM_OT_FN, .fn = (f), .ctx = (c) }
#define SIM_OPT_END { .name = NULL }

/*
 * The options of "blox-sim [@exp] [options]" into what @opts point at
 * (argv[1] is skipped when it is not an option: the experiment's name):
 * each option takes a value; dies on an unknown option, a missing or bad
 * value (saying "(@exp --help)", "(--help)" for a NULL @exp). False after
 * --help or -h, once @usage() ran.
 */
bool sim_opts_parse(const char *exp, void (*usage)(void), const struct sim_opt *opts, int argc,
		    char **argv);


/*
 * @fn(@arg) in a child process, a copy-on-write snapshot of this one (so
 * every point starts from the same device), which then sends the @size
 * bytes at @out back to the same place here. 0, or -1 if the child failed
 * or sent less (*@got bytes came, *@status is its wait status).
 */
int sim_in_child(void (*fn)(void *arg), void *arg, void *out, size_t size, size_t *got,
		 int *status);

/* ---- a tenant of the two-tenant experiments (sim_tenant.c) ---- */

struct sim_tenant;

/* One op of a tenant and its buffer. */
struct sim_tslot {
	struct ftl_io io;
	struct sim_tenant *t;
	uint8_t *buf;
	uint32_t buf_units;
	uint64_t t_arr; /* arrival (open loop) or submission (closed loop) */
	uint32_t lba, nr;
	uint32_t lo; /* read: the LBA's committed version at submission */
	bool in_win; /* submitted inside the measured window */
	uint32_t ver[SIM_SEQ_UNITS]; /* write: versions written */
};

enum sim_tjob {
	SIM_TJOB_NONE,
	SIM_TJOB_FILL, /* closed loop: the capacity in 128 KiB sequential writes */
	SIM_TJOB_RANDW, /* closed loop: uniform random 4 KiB writes */
	SIM_TJOB_VERIFY, /* closed loop: uniform random 4 KiB reads */
	SIM_TJOB_OPEN, /* open loop: Poisson arrivals, the experiment submits them */
};

/*
 * One FTL on a device it shares with others, embedded in the experiment's
 * tenant. The experiment creates the FTL (f, on res, in env) and calls
 * sim_tenant_start(); what it submits is checked: every write stamps its
 * units with the LBA and a version, every read must see the version
 * committed when it was submitted or a newer one.
 */
struct sim_tenant {
	const char *exp; /* the experiment's name, in messages */
	char name; /* 'R', 'W', ... */
	struct ftl_env env;
	struct ftl_resources res;
	struct ftl *f;
	struct sim_tenv se; /* its FTL's environment */
	uint32_t cap;
	uint32_t *shadow; /* committed version per LBA, 0: never written */
	uint32_t *pend; /* version of the write in flight per LBA, 0: none */
	uint32_t next_ver;
	uint64_t rng;
	struct sim_tslot *slots;
	uint32_t *free_idx, nfree, pool;

	/* The running job. */
	enum sim_tjob job;
	uint32_t qd;
	uint64_t to_submit, submitted, inflight;
	bool stop; /* closed loop: submit no more */
	uint32_t fill_ptr;
	bool arrivals; /* open loop: arrivals on */
	uint64_t next_arr;
	double mean_gap_ns;
	struct sim_zipf z;

	/* Measurement: ops arriving in [m0, m1) while m_on; those in flight. */
	bool m_on;
	uint64_t m0, m1, win_inflight;
	struct blox_hist rlat, wlat;
	uint64_t bad, io_errors;
};

/*
 * @t's FTL is created: its capacity, @pool slots, its random sequence
 * (tenant @ti of --seed @seed).
 */
void sim_tenant_start(struct sim_tenant *t, const char *exp, uint32_t pool, uint64_t seed,
		      uint32_t ti);
/* Destroy the FTL, free the rest. */
void sim_tenant_close(struct sim_tenant *t);
/* Submit @nr units at @lba arrived at @t_arr (dies if no slot is free or the FTL refuses). */
void sim_tenant_submit(struct sim_tenant *t, enum ftl_io_op op, uint32_t lba, uint32_t nr,
		       uint64_t t_arr);
/* A uniform LBA no write of ours is in flight to. */
uint32_t sim_tenant_free_lba(struct sim_tenant *t);
/* Start closed-loop @job: @n ops, @qd of them in flight. */
void sim_tenant_job_closed(struct sim_tenant *t, enum sim_tjob job, uint64_t n, uint32_t qd);
/* Start the open loop at @kiops (zipfian LBAs of @theta prepared unless 0); the first arrival. */
void sim_tenant_job_open(struct sim_tenant *t, double kiops, double theta);
/* The gap to the next arrival: exponential of mean mean_gap_ns, at least 1 ns. */
uint64_t sim_tenant_next_gap(struct sim_tenant *t);
/* Work in flight or left to submit. */
bool sim_tenant_busy(const struct sim_tenant *t);
/* Measure the ops arriving in [@m0, @m1): the histograms start empty. */
void sim_tenant_window(struct sim_tenant *t, uint64_t m0, uint64_t m1);

/* ---- output (sim_out.c) ---- */

/* An experiment's output file; every line also goes to stdout. */
struct sim_out {
	FILE *fp;
};

/* @file if not NULL, else @name in @dir: created, said on stderr; dies if it cannot be. */
void sim_out_create(struct sim_out *out, const char *file, const char *dir, const char *name);
/* --out with a single --exp, else @name in --outdir. */
void sim_out_open(struct sim_out *out, const struct sim_opts *o, const char *name);
void sim_out_close(struct sim_out *out);
__attribute__((format(printf, 2, 3))) void sim_outf(struct sim_out *out, const char *fmt, ...);
/* The header every experiment starts with: command, machine, device, FTL. */
void sim_out_header(struct sim_out *out, const struct sim *s, const char *title);
/* The CMT/MDC/hot-region budgets (exp 1/2). */
void sim_out_budgets(struct sim_out *out, const struct sim *s);

/* ---- the experiments ---- */

void sim_exp1(const struct sim_opts *o); /* sim_reads.c */
void sim_exp2(const struct sim_opts *o); /* sim_reads.c */
void sim_exp3(const struct sim_opts *o); /* sim_waf.c */
void sim_exp_isolation(const struct sim_opts *o); /* sim_iso.c */
/* "blox-sim lifetime [options]": its own options, argv[1] "lifetime"; exit status. */
int sim_fdp_main(int argc, char **argv); /* sim_fdp.c */
int sim_lifetime_main(int argc, char **argv); /* sim_lifetime.c */
/* "blox-sim plm [options]": its own options, argv[1] "plm"; exit status. */
int sim_plm_main(int argc, char **argv); /* sim_plm.c */
/* "blox-sim migcost [options]": its own options, argv[1] "migcost"; exit status. */
int sim_migcost_main(int argc, char **argv); /* sim_migcost.c */
/* "blox-sim fairness [options]": its own options, argv[1] "fairness"; exit status. */
int sim_fairness_main(int argc, char **argv); /* sim_fair.c */
/* "blox-sim model [options]": its own options, argv[1] "model"; exit status. */
int sim_model_main(int argc, char **argv); /* sim_model.c */
/* "blox-sim suspend [options]": its own options, argv[1] "suspend"; exit status. */
int sim_suspend_main(int argc, char **argv); /* sim_suspend.c */
/* "blox-sim wear [options]": its own options, argv[1] "wear"; exit status. */
int sim_wear_main(int argc, char **argv); /* sim_wear.c */
int sim_powercut_main(int argc, char **argv); /* sim_powercut.c */

#endif
