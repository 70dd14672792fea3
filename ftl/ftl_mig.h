/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An online die migration's state in an FTL instance (struct ftl_mig:
 * its copy step, phase and throttle) and what the rest of the FTL calls
 * of it (migrate.c the copy, migrate_state.c its state, recovery and
 * API). Part of ftl_internal.h, which keeps ftl_mig_die() (it needs
 * struct ftl).
 */
#ifndef BLOX_FTL_MIG_H
#define BLOX_FTL_MIG_H

#include "ftl.h"

/* Pages one copy step of a migration reads and programs. */
#define FTL_MIG_BATCH 16

/* One page of a migration's copy step: read from one die, programmed on the other. */
struct ftl_mig_page {
	struct nand_op rd, pg;
	struct ftl *f;
	uint32_t plane, page;
	bool read_done;
	uint8_t *data; /* page_size bytes */
	uint8_t *oob; /* oob_size bytes */
};

/* Where a migration is (struct ftl_mig.phase). */
enum mig_phase {
	MIG_IDLE, /* between steps: nothing in flight */
	MIG_COPY, /* a batch of page copies in flight */
	MIG_ERASE, /* copied and switched: erasing the blocks left behind */
	MIG_DISCARD, /* dropping a half-made copy: erasing it */
};

struct ftl_mig {
	enum ftl_mig_state state; /* as ftl_migrate_progress() says */
	int status;
	int cause; /* why it goes back by itself (-ENOSPC: no good block left on dst), else 0 */
	/*
	 * active: the per-superblock on_dst bits say which die slot @slot of
	 * each superblock uses (ftl_fpid_addr()); reverse: the superblocks go
	 * back to src (a cancel), else to dst.
	 */
	bool active, reverse;
	uint32_t slot, src, dst, share;
	uint8_t *on_dst; /* per superblock */
	/*
	 * The destination die's remap of the slot, per (superblock, plane):
	 * the block standing in, plus one (remap_mig.c); f->remap's column
	 * of the slot is the source die's.
	 */
	uint32_t *dremap;
	/*
	 * The superblock being copied (-1: none) and its copy; switched: it
	 * uses the copy now, the erase of what it left is not done yet;
	 * redo: the copy went wrong, drop it and start again.
	 */
	int32_t sb;
	bool switched, redo;
	enum mig_phase phase;
	uint32_t *wp; /* per plane: programmed pages of its blocks on the die copied from */
	uint32_t items, items_done; /* pages of the superblock's copy, programmed so far */
	uint32_t cur_page, cur_plane; /* next page to read */
	struct ftl_mig_page pages[FTL_MIG_BATCH];
	uint32_t batch, progs_issued; /* this step's pages, programs submitted */
	uint32_t pending; /* ops in flight */
	bool failed; /* an op of this step failed */
	struct nand_op *erase_ops; /* one per plane */
	/* Throttle: the step's busy time per die (0: read from, 1: programmed). */
	uint64_t step_busy[2], last_end[2];
	uint64_t next_ns; /* the next step starts then */
	uint64_t wake_asked; /* next_ns ops->wake_at() was given */
	uint64_t started_ns, finished_ns, busy_ns;
	uint32_t sbs_copied;
	uint64_t bytes_copied;
	bool notify; /* ops->migrated() is due from ftl_process() */
	bool running, again; /* mig_advance() is on the stack / called from inside */
};


/* migrate.c, migrate_state.c */
int ftl_mig_init(struct ftl *f);
void ftl_mig_fini(struct ftl *f);
/*
 * Recovery, before anything is read: which die holds each superblock's
 * data for the slot being migrated; the other's copy is erased.
 */
int ftl_mig_recover(struct ftl *f);
/* After recovery: free superblocks move at once; the migration goes on. */
void ftl_mig_resume_after_recovery(struct ftl *f);
/* Superblock @sb is free (erased): it goes where the migration goes. */
void ftl_mig_sb_free(struct ftl *f, uint32_t sb);
/* Run the migration (from ftl_progress() and ftl_process()). */
void ftl_mig_step(struct ftl *f);
/* ops->migrated() if an end is due (ftl_process()). */
void ftl_mig_notify(struct ftl *f);
/* Copy ops in flight or a superblock half copied: a clean stop waits. */
bool ftl_mig_busy(const struct ftl *f);
/* The superblock being copied, if GC could take it: hidden from GC's pick. */
int32_t ftl_mig_hide(struct ftl *f);
void ftl_mig_unhide(struct ftl *f, int32_t sb);
/*
 * Between migrate.c (the copy) and migrate_state.c (its state, recovery
 * and API): the bit superblocks go to (dst 1; src 0 while cancelling),
 * the die they leave, superblock @sb's block on @die and its programmed
 * pages there (every plane), free superblocks moved at once, the time.
 */
uint8_t ftl_mig_target(const struct ftl_mig *m);
uint32_t ftl_mig_die_from(const struct ftl_mig *m);
uint32_t ftl_mig_die_to(const struct ftl_mig *m);
void ftl_mig_blk_addr(const struct ftl *f, uint32_t die, uint32_t sb, uint32_t plane,
		      uint32_t page, struct nand_addr *a);
uint32_t ftl_mig_die_pages(const struct ftl *f, uint32_t die, uint32_t sb);
/* The same of its good blocks only (a bad one keeps its pages, no copy goes there). */
uint32_t ftl_mig_die_pages_good(const struct ftl *f, uint32_t die, uint32_t sb);
void ftl_mig_move_free(struct ftl *f);
uint64_t ftl_mig_now(const struct ftl *f);
/* The store synced (0, or its error); an op failed or a sync did: held until a resume or cancel. */
int ftl_mig_sync(struct ftl *f);
void ftl_mig_error(struct ftl *f, int status);

/* migrate_fail.c: flash failing under the copy */
/* Superblock @sb's bad blocks of the slot on @die take spares there; false: none left in a plane. */
bool ftl_mig_remap_bad(struct ftl *f, uint32_t die, uint32_t sb);
/* No good block left where the superblocks go: back to where they were (-ENOSPC). */
void ftl_mig_nospace(struct ftl *f);
/* A copy step with a failed op: programs failed on flash remapped, the copy made again. */
void ftl_mig_copy_failed(struct ftl *f);
/* An erase step on @die ended: failed blocks remapped; true: held (another failure). */
bool ftl_mig_erase_failed(struct ftl *f, uint32_t die);

#endif
