/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment lifetime (sim_lifetime.c): its options, the tenants'
 * profiles and a run of the model, shared by its two files:
 *   sim_lifetime.c      the FTL's WAF measured, the lifetime model in virtual time
 *   sim_lifetime_out.c  the command line, the results file and the runs' order
 */
#ifndef BLOX_BENCH_SIM_LIFETIME_H
#define BLOX_BENCH_SIM_LIFETIME_H

#include "flashblox.h"
#include "sim.h"

#define LT_MAX_CH 64u
#define LT_MAX_DIES BLOX_FTL_MAX_DIES
#define LT_DAY_STEPS 24u /* one step is an hour */
#define LT_QUARTER (365.25 / 4.0)

enum lt_kind { LT_RAND, LT_SEQ, LT_KINDS };

extern const char *const lt_kind_name[LT_KINDS]; /* sim_lifetime.c */

/*
 * The tenants' write profiles, hottest first (a mix below says which
 * tenant takes which). Erase rates differ about 100x between A and F (F
 * nearly idle).
 */
struct lt_profile {
	char name;
	enum lt_kind kind;
	double dwpd; /* drive writes per day of the tenant's capacity */
};

/*
 * Which profile tenant @i takes: "mixed" A..F in turn (so with more than
 * six tenants two are A); "one-hot" A once, then C..F in turn (only A
 * writes faster than the device's average: the case of the paper's
 * analysis).
 */
enum lt_mix { LT_MIXED, LT_ONE_HOT, LT_MIXES };

extern const char *const lt_mix_name[LT_MIXES]; /* sim_lifetime.c */


struct lt_opts {
	uint32_t channels, bound_permille, rated_pe;
	int free_ch; /* -1: a quarter of the channels */
	int mix; /* enum lt_mix */
	double years;
	uint32_t waf_ppb;
	bool sweep;
	const char *out, *outdir;
	char cmdline[1024];
};

/* The write amplification the real FTL showed per write pattern. */
struct lt_waf {
	double erase[LT_KINDS], prog[LT_KINDS]; /* WAF_e and programmed units / host units */
	uint64_t host_units[LT_KINDS], erases[LT_KINDS];
	uint32_t cap_units, nr_tp, cmt_pages;
	double raw_mib, wall;
};

/* What all runs share: the options, the device and the measured WAF. */
struct lt_ctx {
	const struct lt_opts *o;
	struct lt_waf waf;
	struct ftl_config fc;
};

struct lt_cfg {
	uint32_t channels, bound_permille, free_ch;
	enum lt_mix mix;
	bool swaps;
};

struct lt_row {
	double day, avg, max, imb;
	uint64_t checks, swaps;
};

struct lt_log {
	double day, avg, imb;
	char why[160];
};

#define LT_MAX_TENANTS LT_MAX_CH

struct lt_tenant {
	const struct lt_profile *p;
	uint32_t id; /* owner id: its index + 1 */
	uint32_t idx, of; /* its turn among the tenants of its profile, and their number */
	uint32_t ch0; /* its first channel */
	struct fbx_alloc a;
	double erases_per_step; /* block erases per step, over all its dies */
	uint32_t moved; /* swaps that moved it */
};

/* One channel at a check: the rm's inputs and its owner. */
struct lt_chan_state {
	double wear;
	uint64_t since;
	uint32_t owner;
};

struct lt_run {
	struct lt_cfg cfg;
	uint32_t ntenants, rounds;
	double check_step;
	struct lt_tenant t[LT_MAX_TENANTS];
	struct lt_row *rows;
	size_t nrows, caprows;
	struct lt_log *log;
	size_t nlog, caplog;
	uint64_t steps, checks, swaps, idle_checks, refused, moves;
	char refusal[160]; /* the last reason a needed swap was not made */
	double host_erases, mig_erases; /* block erases */
	double first_dead; /* day the first channel reached rated_pe; < 0: not in the run */
	double end_day;
	struct fbx_wear end;
	double worst1, worst1_day; /* after the first round of checks */
	double worst_last, worst_last_day; /* in the last round */
	/* The last check, as the rm saw it. */
	struct lt_chan_state last[LT_MAX_CH];
	char last_why[160];
	double last_day;
	struct lt_chan_state fin[LT_MAX_CH];
};

/* ---- sim_lifetime.c ---- */

/* The device of a run: the NAND defaults (8 ch x 4 dies x 2 planes x 64 blocks, TLC) N ch. */
void lt_geometry(struct nand_geometry *g, uint32_t channels);
/* Channels left free by default: a quarter. */
uint32_t lt_free_default(uint32_t channels);
/* The rated P/E cycles of a run: --rated-pe or the cell's. */
double lt_rated(const struct lt_opts *o);
/* The WAF of @kind writes on one tenant's FTL, into c->waf. */
void lt_measure_waf(struct lt_ctx *c, enum lt_kind kind);
/*
 * A run of @cfg: until the average wear reaches rated_pe or --years, or
 * @steps steps when not 0.
 */
void lt_simulate(const struct lt_ctx *c, const struct lt_cfg *cfg, uint64_t steps,
		 struct lt_run *r);
void lt_run_free(struct lt_run *r);
/* A tenant's label: its profile and, with more than one of a profile, its turn. */
void lt_tenant_label(const struct lt_tenant *t, char *buf, size_t n);
/* Who has channel @owner of @r ("free", a tenant's label...). */
const char *lt_owner_label(const struct lt_run *r, uint32_t owner, char *buf, size_t n);

#endif
