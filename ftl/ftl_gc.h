/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GC's state in an FTL instance (struct ftl_gc: its reads, the victim's
 * entries, the erase slots, the credits) and what the rest of the FTL
 * calls of it (gc.c, gc_erase.c, gc_policy.c). Part of ftl_internal.h;
 * gc_internal.h has what only GC's own files share.
 */
#ifndef BLOX_FTL_GC_H
#define BLOX_FTL_GC_H

#include "ftl.h"

/*
 * GC's own flash reads (the OOB of a victim page, or a page's data) in
 * flight at once: FTL_GC_READS_PER_DIE per die of the instance, so that
 * every die keeps some queued while others are slow, FTL_GC_READS_MAX
 * at most (gc.nrds).
 */
#define FTL_GC_READS_PER_DIE 16
#define FTL_GC_READS_MAX 256

struct ftl_gc_rd {
	struct nand_op op;
	struct ftl *f;
	uint32_t fpid;
	bool busy;
	int status;
	uint8_t *page; /* page_size bytes */
	uint8_t *oob_raw; /* oob_size bytes */
};

/* A valid unit of the victim, from its OOB: moved in translation-page order. */
struct ftl_gc_ent {
	uint32_t lba; /* UK_TP: translation page index */
	uint32_t ppn; /* where it is in the victim */
	uint32_t kind; /* UK_DATA or UK_TP */
};

/* Where GC is (gc.tp_waiter.stage). */
enum gc_state {
	GC_IDLE,
	GC_SCAN, /* pass 1: the OOB of every victim page with valid units */
	GC_READ, /* pass 2: the data pages of a round */
	GC_MOVE, /* pass 2: moving the round's units */
	GC_ERASING, /* collected: waiting for an erase slot (gc.erase[]) */
};

/*
 * A collected victim waiting for its programs, then erased. Once a victim
 * is in one, GC is free to take the next one and collect it meanwhile: up
 * to FTL_GC_ERASES victims collected and not erased yet, plus the one being
 * collected. A collected victim with no slot free waits in GC_ERASING.
 */
#define FTL_GC_ERASES 2

struct ftl_gc_erase {
	struct ftl *f;
	int32_t sb; /* -1: free */
	uint64_t ticket; /* programs up to this ticket first */
	bool issued, wl;
	bool failed; /* an erase of it failed: retired, not freed */
	uint32_t pending; /* erases in flight */
	struct nand_op *ops; /* one per (plane, die) */
};

/* Credits are kept in 1/FTL_GC_CREDIT of a unit. */
#define FTL_GC_CREDIT 65536

struct ftl_gc {
	bool active;
	/* A GC storm (ftl_gc_storm): victims left (0: no count), its end (0: no time). */
	bool storm;
	uint32_t storm_left;
	uint64_t storm_until;
	int32_t victim;
	uint32_t cursor; /* pass 1: next flash page of the victim to look at */
	uint32_t scan_reads; /* pass 1: OOB reads in flight */
	struct ftl_gc_rd *rds;
	uint32_t nrds; /* reads in flight at most (FTL_GC_READS_PER_DIE) */
	struct ftl_gc_ent *ents; /* the victim's valid units, units_per_sb at most */
	uint32_t nent;
	uint32_t lost; /* units of the victim found lost: their mappings written back before the erase */
	uint32_t round_start, round_end; /* pass 2: entries of this round */
	uint32_t move_idx; /* next entry of the round to move */
	uint32_t round_reads; /* pass 2: data reads in flight */
	uint32_t groups_max; /* translation pages one round may load */
	bool rescan; /* units were left after pass 2: a second pass 1 */
	uint64_t victim_ticket; /* collected: programs to wait for before its erase */
	struct ftl_gc_erase erase[FTL_GC_ERASES]; /* in the order they were collected */
	bool static_wl;
	bool waiting; /* tp_waiter sits on a wait list */
	bool running, again; /* ftl_gc_continue() is on the stack / called from inside */
	struct ftl_io tp_waiter; /* GC waits for translation pages like a host */

	/* Levels in free superblocks (ftl_gc_init) and victim thresholds. */
	uint32_t spare, lvl_idle, lvl_bg, lvl_fg, lvl_urgent;
	uint32_t min_invalid_bg, min_invalid_fg;
	uint32_t level; /* enum ftl_gc_level the victim was taken at */
	uint64_t host_mark; /* host writes + trims when this victim was taken */
	uint64_t futile_mark; /* GC gained nothing at this mark: wait for the host */
	bool futile;

	/*
	 * Pacing (foreground level): credit is what host writes may still
	 * consume. Every unit written outside the GC stream costs
	 * FTL_GC_CREDIT; GC earns the victim's expected net gain as it reads
	 * its OOB and moves its units, and the rest of the actual gain (which
	 * may be less) when it is erased.
	 */
	int64_t credit;
	TAILQ_HEAD(, ftl_io) pace_wait; /* host writes waiting for a credit */
	int64_t granted; /* earned so far for this victim */
	int64_t expect; /* expected net gain of this victim, credit scale */
	int64_t grant_base; /* granted when pass 2 began */
	uint32_t scan_pages, scanned; /* pass 1: pages to read, read */
	uint32_t last_tp_wb; /* translation pages the last victim wrote back */
	uint32_t victim_written; /* units GC wrote for this victim */
	uint32_t victim_moved, victim_lba0; /* its data units moved, the first one's LBA (FDP) */
	uint32_t victim_tp_wb; /* of which translation-page write-backs */
	/* A deterministic window stopped it between two rounds (plm.c). */
	bool plm_paused;
	/* Pass 2 waits for earlier victims' erases (gc_may_move()). */
	bool erase_held;
};


/* gc.c */
/* Start or continue garbage collection if space is short. */
void ftl_gc_step(struct ftl *f);
int ftl_gc_init(struct ftl *f);
void ftl_gc_fini(struct ftl *f);
/* Continue GC after a wait (translation page, buffer space). */
void ftl_gc_resume(struct ftl *f);
bool ftl_gc_is_waiter(const struct ftl *f, const struct ftl_io *io);
/* A victim is being collected or erased. */
bool ftl_gc_busy(const struct ftl *f);
/* Collected victims waiting for their erase (in the erase slots). */
uint32_t ftl_gc_erases_pending(const struct ftl *f);
/* gc_erase.c: the collected victim (f->gc.victim) takes an erase slot; false: none free. */
bool ftl_gc_hand_over(struct ftl *f);
/* Erase slot @e's superblock once its programs are done (and no window holds it). */
void ftl_gc_erase_try(struct ftl *f, struct ftl_gc_erase *e);

/* gc_policy.c */
enum ftl_gc_level {
	FTL_GC_NONE, /* no GC wanted */
	FTL_GC_IDLE,
	FTL_GC_BG,
	FTL_GC_FG, /* host writes paced */
	FTL_GC_URGENT, /* host writes wait */
};

/* Levels in superblocks from the config and the spare (at creation). */
void ftl_gc_levels_init(struct ftl *f);
enum ftl_gc_level ftl_gc_level(const struct ftl *f);
/* The level with @fr superblocks free. */
enum ftl_gc_level ftl_gc_level_at(const struct ftl *f, uint32_t fr);
/*
 * The next victim for GC at @lvl: one worth collecting at that level, or
 * for static wear leveling (*@wl); -1 when none.
 */
int32_t ftl_gc_pick_victim(struct ftl *f, enum ftl_gc_level lvl, bool *wl);
/* Host writes must wait for GC (urgent level). */
bool ftl_gc_urgent(const struct ftl *f);
/*
 * May the host write one more unit now? false below the foreground level
 * when GC has not earned a credit for it yet (the write then waits on
 * gc.pace_wait).
 */
bool ftl_gc_pace(struct ftl *f);
/* Host writes waiting for a credit may go on (ftl_progress). */
bool ftl_gc_pace_ready(const struct ftl *f);
/* Host writes and trims so far: GC that gained nothing waits for a change. */
uint64_t ftl_gc_host_mark(const struct ftl *f);
/* A host request waits for space (stream room, buffer, credit). */
bool ftl_gc_host_waits(const struct ftl *f);

#endif
