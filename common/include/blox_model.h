/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flash's model beside its measurement: what a namespace's dies can
 * do (a random-read IOPS bound, steady random-write IOPS at a WAF) and the
 * read tail its measured utilisation predicts, from figures measured over
 * an interval. It tells an operator whether a tail is the flash's physics
 * or a scheduling problem.
 *
 * Pure arithmetic on plain numbers, no type of any layer, so the daemon's
 * admin API (daemon/telemetry/tm_snap.c: bloxctl stats) and blox-sim's model
 * check (tests/bench/sim_model.c) compute it with the same functions.
 *
 * The formulas, as implemented (times in ns; "4 KiB" is the FTL's unit):
 *
 *   tR, tPROG      the mean array read and program times over the page
 *                  types (random reads and in-order programs hit each type
 *                  equally often)
 *   xr, xp         bus time a read and a program hold their die for, as the
 *                  engine charges it: tCMD + ceil(bytes * 1000 / MBps), for
 *                  4 KiB out (a read) and one page in (a program)
 *   bound          min(D * 1e9 / (tR + xr), C * 1e9 / xr) reads/s: each of
 *                  the D dies serves one read at a time (array, then its
 *                  transfer: the die is held until the data is out), and
 *                  each of the C channels the dies are on moves one
 *                  transfer at a time. Planes do not multiply reads: the
 *                  FTL reads single-plane and the engine groups only
 *                  programs and erases across planes.
 *   rho            (busy + reads * xr + programs * xp) / (interval * D):
 *                  the dies' occupancy; busy is their array time (reads,
 *                  programs, erases) plus tSUSPEND + tRESUME paid, from
 *                  the engine's per-die busy counters
 *   E[S]           read_busy / reads + xr: a read's measured mean array
 *                  time and its transfer (tR + xr without reads)
 *   P99            E[S] * (1 + ln(100) * r / (1 - r)), r = rho clamped to
 *                  [0, BLOX_MODEL_RHO_MAX]; rho at or past the cap is
 *                  "saturated": the formula's value at the cap is then a
 *                  floor, since an open queue past saturation grows with
 *                  the time it has been overloaded, not with rho
 *   WAF            units programmed (host, GC, translation, padding) /
 *                  host units programmed, over the interval; the WAF since
 *                  the start when the interval programmed no host unit;
 *                  1 when there is neither
 *   write IOPS     D * U * P * 1e9 / (WAF * tPROG) 4 KiB writes/s, U the
 *                  4 KiB units in a page and P the pages one program
 *                  takes (the die's planes with multi-plane on, else 1):
 *                  the FTL fills a page per stream and programs it, its
 *                  superblock rows stripe dies first, so a die's queue
 *                  holds the pages of its planes and the engine programs
 *                  them in one tPROG. Divided by the interval's mean
 *                  write size in 4 KiB units (when it had writes), it is
 *                  in commands like the measured IOPS. Erases, GC's reads
 *                  and transfers are left out: an upper bound by a few %.
 *
 * The P99 above is an open queue's: reads arriving whatever the flash does.
 * A host that keeps a depth N is a closed loop, whose queues cannot grow
 * past N (at rho 0.99 the open formula said 22.7 ms where 3.0 ms was
 * measured). The closed loop (blox_model_closed), for N 4 KiB random reads
 * outstanding, each also spending Z outside the flash (the daemon's and the
 * network's part: X = N / (R + Z)), on the D dies, c = D / C of them a
 * channel; approximate MVA over the populations n = 1..N from X(0) = 0:
 *
 *   B(n)           a read's wait for its channel after tR, its die held:
 *                  (c - 1) / D * X(n-1) * xr * (B(n-1) + xr / 2), the other
 *                  dies of its channel on the bus or waiting for it; at
 *                  most D / X(n-1) - tR - xr (a saturated channel)
 *   S, sres        a die's service S = tR + B + xr; sres = E[S^2] / 2S, the
 *                  mean residual of a service caught at random
 *   U, Q           what an arriving read finds at its die (from the n - 1
 *                  others): busy U = X(n-1) S / D, Q = X(n-1) R(n-1) / D
 *                  reads
 *   R(n)           S + S (Q - U) + U r, r = S / D + (1 - 1/D) sres: 1/D of
 *                  arrivals come to the die whose completion sent them,
 *                  whose next read has just started
 *   X(n)           n / (R(n) + Z), at most the bound, never below X(n-1)
 *                  (R(n) is then n / X(n) - Z)
 *   P99            the 99th percentile of the response own + [busy] (res +
 *                  K S): own the read's tR by page type + B + xr; its die
 *                  busy with probability U; res a fresh S by page type
 *                  (1/D) or U(0, 2 sres); K the reads queued behind the one
 *                  in service, P(K >= j) = prod_{i=1..D-1} (M - j + i) /
 *                  (M + i), M = D (Q / U - 1) so E[K] = Q / U - 1. Why:
 *                  with exponential service the arrival theorem makes this
 *                  exact (the n - 1 others spread evenly over the
 *                  compositions of D parts, the n - 2 beyond a busy die's
 *                  first too: M = n - 2). Near-constant service keeps dies
 *                  busier (U, from the MVA's residual) but the queues still
 *                  drift freely between dies, so the shape is kept with its
 *                  scale M fitted to the MVA's Q. With Z the reads at the
 *                  flash vary: M is taken at its mean +- one binomial
 *                  deviation, half each.
 *   depths         between two whole depths X and the P99 are linear and
 *                  R = N / X - Z; past BLOX_MODEL_CLOSED_QD_MAX X is held
 *                  and the P99 continues on its last slope
 *
 * tests/bench/nand_model.c --closed checks X, R and the P99 against the
 * NAND engine (docs/results/nand_model_closed.txt): X and R within 1%, the
 * P99 within 5%, at depths 1..256 on 4 and 24 dies; with a think time of
 * exponential length, R within 3% and the P99 within 12%. A constant think
 * time phase-locks a few reads, which then seldom meet: at depths 2..4 the
 * P99 is over by up to 48% (4 dies) and 19% (24), on the safe side.
 *
 * Which to show: the closed loop when the host held its depth over the
 * interval (blox_model_closed_applies: mean depth at least 3/4 of its
 * max), the open queue's P99 otherwise.
 */
#ifndef BLOX_MODEL_H
#define BLOX_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#define BLOX_MODEL_UNIT 4096u /* bytes: a host read the bound counts, a write unit */
#define BLOX_MODEL_RHO_MAX 0.99 /* the P99 formula's utilisation cap */
#define BLOX_MODEL_LN100 4.60517018598809136804 /* ln(100): the 99th percentile */
#define BLOX_MODEL_TYPES 4 /* page types at most (QLC) */

/* The flash a namespace runs on: its dies and its device's timing. */
struct blox_model_flash {
	uint32_t dies; /* the namespace's dies (its own on a shared device) */
	uint32_t channels; /* channels those dies are on; 0: no bus bound */
	uint32_t planes; /* pages one program takes: planes per die with multi-plane on, else 1 */
	uint32_t page_size; /* bytes of data per page */
	uint32_t page_types; /* bits per cell, 1..4 */
	uint64_t t_read_ns[BLOX_MODEL_TYPES], t_prog_ns[BLOX_MODEL_TYPES]; /* by page type */
	uint64_t t_erase_ns, t_suspend_ns, t_resume_ns;
	uint64_t t_cmd_ns; /* bus: a command cycle */
	uint64_t bus_mbps; /* bus: MB/s, bytes per microsecond */
};

/* What was measured over an interval: differences of counters. */
struct blox_model_meas {
	double interval_ns;
	uint64_t host_reads, host_writes; /* commands completed */
	uint64_t host_write_bytes; /* what those writes carried */
	uint64_t p99_read_ns; /* the host reads' P99 (0: none) */
	/* On the namespace's dies. */
	uint64_t busy_ns; /* array time (reads, programs, erases) + tSUSPEND/tRESUME paid */
	uint64_t read_busy_ns; /* the reads' array time */
	uint64_t flash_reads, flash_programs; /* ops (each op of a multi-plane group) */
	/* The FTL: units programmed for the host, and all (host, GC, translation, padding). */
	uint64_t units_host, units_all;
	double waf_life; /* the WAF since the start; 0: none */
	bool has_ftl; /* no FTL (nand-timing): no WAF, no write prediction */
};

enum blox_model_waf_src {
	BLOX_MODEL_WAF_NONE, /* nothing programmed yet: 1 assumed */
	BLOX_MODEL_WAF_INTERVAL,
	BLOX_MODEL_WAF_LIFE, /* the interval programmed no host unit */
};

struct blox_model {
	/* The physics. */
	double t_read_ns, t_prog_ns; /* means over the page types */
	double xfer_read_ns, xfer_prog_ns;
	double read_iops_bound; /* 4 KiB reads/s */
	/* Measured. */
	double read_iops, write_iops; /* commands/s */
	double rho; /* the dies' occupancy, not clamped */
	double service_ns; /* E[S] of a read */
	uint64_t p99_read_ns;
	double waf;
	enum blox_model_waf_src waf_src;
	/* Predicted. */
	double p99_read_pred_ns;
	bool saturated; /* rho >= BLOX_MODEL_RHO_MAX */
	double write_iops_pred; /* commands/s; 0: no FTL */
};

/* The mean of @t[0..@n) (0 for n 0). */
double blox_model_mean_ns(const uint64_t *t, uint32_t n);
/* Bus time of @bytes as the engine charges it: tCMD + ceil(bytes * 1000 / MBps). */
double blox_model_xfer_ns(uint64_t bytes, uint64_t t_cmd_ns, uint64_t bus_mbps);
/* min(dies * 1e9 / (t_read + xfer), channels * 1e9 / xfer); 0 when nothing bounds it. */
double blox_model_read_bound(uint32_t dies, uint32_t channels, double t_read_ns,
			     double xfer_ns);
/* @occupied_ns / (@interval_ns * @dies); 0 for an empty interval or no dies. */
double blox_model_rho(double occupied_ns, double interval_ns, uint32_t dies);
/*
 * E[S] (1 + ln(100) r / (1 - r)), r = @rho clamped to [0, RHO_MAX];
 * *@saturated (may be NULL): @rho was at or past the cap.
 */
double blox_model_p99_ns(double service_ns, double rho, bool *saturated);
/* dies * units_per_program * 1e9 / (waf * t_prog) 4 KiB writes/s; 0 without a time or a WAF. */
double blox_model_write_bound(uint32_t dies, uint32_t units_per_program, double waf,
			      double t_prog_ns);

/*
 * The ops a device of the namespace's own ran in an interval, for when its
 * per-die busy counters are out of reach: counts from the device's
 * statistics.
 */
struct blox_model_ops {
	uint64_t reads, programs, erases; /* completed */
	uint64_t program_groups, erase_groups; /* multi-plane groups formed */
	uint64_t joined; /* ops that joined a group (both kinds) */
	uint64_t suspends, resumes;
};

/*
 * Array time of @o on @f's timing: reads * tR + program runs * tPROG +
 * erase runs * tBERS + suspends * tSUSPEND + resumes * tRESUME, a run
 * being an op that did not join another's multi-plane group (erases
 * joined: erase_groups * (planes - 1) at most, the rest of @o->joined are
 * programs). The reads' part in *@read_busy_ns (may be NULL).
 */
uint64_t blox_model_busy_from_ops(const struct blox_model_flash *f, const struct blox_model_ops *o,
				  uint64_t *read_busy_ns);

/* Everything above for @f and @m (see the top of this header). */
void blox_model_eval(const struct blox_model_flash *f, const struct blox_model_meas *m,
		     struct blox_model *out);

/* The closed loop: a host keeping @qd 4 KiB random reads outstanding. */
#define BLOX_MODEL_CLOSED_QD_MAX 65536.0 /* populations stepped; past it X is held */
#define BLOX_MODEL_STEADY_QD 0.75 /* mean/max depth at or above which it is a closed loop */
#define BLOX_MODEL_P99 0.99

struct blox_model_closed {
	double x; /* reads/s: qd / (r_ns + think_ns) */
	double r_ns; /* mean flash response: die queue, tR, channel wait, transfer */
	double p99_ns; /* the flash response's 99th percentile */
	double die_busy; /* fraction of time a die is held */
	double bus_wait_ns; /* a read's mean wait for its channel (its die held) */
};

/*
 * The closed loop on @f at mean depth @qd (fractional is fine; below 1 a
 * share of one read: R the service, X qd / (R + Z)) with @think_ns of each
 * read spent outside the flash (NaN or negative: 0). All zeros when @f has
 * no dies or no read time, or @qd is not a positive finite number. At
 * depth 1, R = tR + xr. Cost: min(qd, QD_MAX) MVA steps, then two
 * bisections of some 60 steps, each O(page types * D).
 */
void blox_model_closed(const struct blox_model_flash *f, double qd, double think_ns,
		       struct blox_model_closed *out);
/*
 * Which model fits a window whose host depth had mean @mean_qd and max
 * @max_qd: true (the closed loop) when the depth was steady, mean >=
 * BLOX_MODEL_STEADY_QD * max; false (blox_model_p99_ns) otherwise. A
 * caller that knows the depth is held uses the closed loop without asking.
 */
bool blox_model_closed_applies(double mean_qd, double max_qd);

#endif
