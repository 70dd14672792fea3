/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flash's model beside its measurement: what a namespace's dies can
 * do (a random-read IOPS bound, steady random-write IOPS at a WAF) and the
 * read tail its measured utilisation predicts, from figures measured over
 * an interval. It tells an operator whether a tail is the flash's physics
 * or a scheduling problem.
 *
 * Pure arithmetic on plain numbers, no type of any layer, so the daemon's
 * admin API (daemon/mgmt/adm_stats.c: bloxctl stats) and blox-sim's model
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

#endif
