/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predictable latency in the FTL (part of ftl.h, plm.c): deterministic
 * and non-deterministic windows, their budgets, estimates and events.
 */
#ifndef BLOX_FTL_PLM_H
#define BLOX_FTL_PLM_H

#include "ftl_core.h"

/*
 * Predictable latency (NVMe Predictable Latency Mode; the instance is one
 * NVM Set), ftl/plm.c.
 *
 * Off by default. Enabled, the instance is in one of two windows:
 *   deterministic (DTWIN): background work is deferred: GC starts no
 *     victim and no new round of the one it is collecting (a round under
 *     way finishes: at most FTL_GC_READS pages), erases no collected
 *     victim, does no static wear leveling; idle prefetch waits; host
 *     writes are not paced by GC credits. Host I/O meets only host I/O on
 *     the dies. A die migration (ftl_migrate_*) is not deferred: it is the
 *     operator's, with its own throttle;
 *   non-deterministic (NDWIN): GC catches up: besides the usual levels it
 *     runs whenever free space is below the idle level (ftl_config), host
 *     busy or not, so that the next DTWIN starts with that much room (at
 *     the price of a higher write amplification: less spare is left to let
 *     victims age; blox-sim plm measures it).
 * A DTWIN has a budget: host units read and written (4 KiB; trims and
 * flushes are free) and time (ops->now()). It ends by itself, into NDWIN,
 * when a budget is overrun (the read or write that overruns it runs in
 * NDWIN; FTL_PLM_EV_EXCEEDED) or when free space reaches the urgent GC
 * level, where host writes would wait for GC (a Deterministic Excursion,
 * FTL_PLM_EV_EXCURSION); either way GC goes on at once.
 *
 * The figures (ftl_plm_info()):
 *   writes_typical: in a DTWIN its write budget; out of one, what a DTWIN
 *     begun now would get: half the units free space holds above the
 *     urgent level less one superblock (the other half is left for the
 *     translation pages and padding those writes bring), and at least
 *     half of what the idle level holds (what NDWIN catches up to);
 * fixed when the instance is made:
 *   time_max_ns: FTL_PLM_DTWIN_MAX_NS;
 *   reads_typical: the random 4 KiB reads the dies serve in time_max_ns
 *     (reads take nothing else from a window);
 *   ndwin_min_low_ns: the NAND time one GC victim takes on a die (its
 *     valid pages read and programmed, then erased), the victim as full as
 *     the average superblock of a full instance; a DTWIN may start only
 *     that long after the NDWIN began (ftl_set_deterministic() -EAGAIN);
 *   ndwin_min_high_ns: as many victims as it takes to win back the room
 *     between the idle and the urgent level.
 * Estimates (what is left): in a DTWIN of the current window, never rising
 * (the budget less what was taken, writes also at most what free space
 * allows now); in NDWIN what a DTWIN started now would have.
 */
#define FTL_PLM_DTWIN_MAX_NS (10ull * 1000 * 1000 * 1000)

enum ftl_plm_window {
	FTL_PLM_OFF,
	FTL_PLM_DTWIN,
	FTL_PLM_NDWIN,
};

/* Events, the bits of NVMe's Predictable Latency Per NVM Set Event Type. */
#define FTL_PLM_EV_READS_WARN (1u << 0) /* reads estimate below its threshold */
#define FTL_PLM_EV_WRITES_WARN (1u << 1)
#define FTL_PLM_EV_TIME_WARN (1u << 2)
#define FTL_PLM_EV_EXCEEDED (1u << 14) /* DTWIN -> NDWIN: a budget ran out */
#define FTL_PLM_EV_EXCURSION (1u << 15) /* DTWIN -> NDWIN: free space at the urgent level */
#define FTL_PLM_EV_WARNS (FTL_PLM_EV_READS_WARN | FTL_PLM_EV_WRITES_WARN | FTL_PLM_EV_TIME_WARN)

/* What one DTWIN may take; 0 in a field: the typical figure. */
struct ftl_plm_budget {
	uint64_t reads, writes; /* host units */
	uint64_t time_ns;
};

/*
 * Warnings: with its bit in @enable (FTL_PLM_EV_*_WARN), an event once per
 * DTWIN when that estimate falls below the threshold.
 */
struct ftl_plm_warn {
	uint32_t enable;
	uint64_t reads, writes, time_ns;
};

struct ftl_plm_stats {
	uint64_t dtwins; /* deterministic windows begun */
	uint64_t exceeded, excursions; /* of them, ended by themselves */
	uint64_t dtwin_ns; /* time spent in ended ones */
	uint64_t gc_runs_in_dtwin; /* victims erased while in one (begun before it) */
};

struct ftl_plm_info {
	enum ftl_plm_window window;
	uint32_t events; /* FTL_PLM_EV_*, since ftl_plm_clear_events() */
	uint64_t reads_typical, writes_typical, time_max_ns; /* host units, ns */
	uint64_t ndwin_min_low_ns, ndwin_min_high_ns;
	uint64_t reads_left, writes_left, time_left_ns; /* the estimates */
	uint64_t window_ns; /* time in the current window */
	uint64_t reads, writes; /* host units the current DTWIN took */
	uint64_t dtwin_ready_ns; /* NDWIN: a DTWIN may start at this time (now()) */
	struct ftl_plm_budget budget; /* of the current DTWIN */
	/*
	 * Latency of one 4 KiB host op from the NAND timing (command, array
	 * time averaged over the page types, bus), for the host and the
	 * simulator: a read alone on its die; a read behind one longest
	 * program on its die (what a DTWIN's reads meet: host programs only);
	 * behind an erase (what NDWIN adds, without suspension); a page
	 * program, typical and longest. Single ops: a read queued behind
	 * several waits for each.
	 */
	uint64_t read_typ_ns, read_max_dtwin_ns, read_max_ndwin_ns;
	uint64_t prog_typ_ns, prog_max_ns;
	struct ftl_plm_stats st;
};

/*
 * Enable (the instance goes to NDWIN, its events cleared, unless it was
 * enabled already) or disable (background work as always) predictable
 * latency; @warn (NULL: none) the warnings. 0, or -ESHUTDOWN.
 */
int ftl_plm_config(struct ftl *f, bool enable, const struct ftl_plm_warn *warn);
/*
 * Enter a deterministic window (@on) with @budget (NULL: the typical
 * figures), or leave it for NDWIN (@off; GC catches up). Asking for the
 * window the instance is in changes nothing. 0; -EINVAL when predictable
 * latency is off; -EAGAIN (@on) while the NDWIN is younger than
 * ndwin_min_low_ns (ftl_plm_info()'s dtwin_ready_ns says until when);
 * -ESHUTDOWN while stopping.
 */
int ftl_set_deterministic(struct ftl *f, bool on, const struct ftl_plm_budget *budget);
/* The window, figures, estimates and events now (ends a DTWIN whose time is up). */
void ftl_plm_info(struct ftl *f, struct ftl_plm_info *out);
void ftl_plm_clear_events(struct ftl *f);
/*
 * When the current DTWIN changes by time alone (its time warning, then its
 * end), as ops->now() counts; UINT64_MAX: never. A driver without
 * ops->wake_at calls ftl_process() then.
 */
uint64_t ftl_plm_deadline(const struct ftl *f);

#endif
