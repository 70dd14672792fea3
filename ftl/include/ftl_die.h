/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An FTL instance's dies (part of ftl.h): a die gone offline and back
 * (dieoff.c), and the online migration of one die to another (migrate.c).
 */
#ifndef BLOX_FTL_DIE_H
#define BLOX_FTL_DIE_H

#include "ftl_core.h"

/*
 * Die @die (global index) is gone: every op on it fails (-ENODEV). The FTL
 * finds that out itself from the first op that fails so; this tells it at
 * once. It stops allocating there, drops the units the die held (their
 * LBAs read as errors, FTL_LOST, until written or deallocated), rewrites
 * resident translation pages whose flash copy was there, and reckons its
 * spare without the die (dieoff.c). 0, or -ENOENT: not a die of the
 * instance. The device keeps the die offline (nand_die_set_offline()), so
 * a restart or a power cut finds it gone too.
 */
int ftl_die_offline(struct ftl *f, uint32_t die);
/*
 * Die @die is back, replaced and empty (nand_die_offline() false: its
 * fault was cleared, nand_die_set_offline(false)). The FTL finds that out
 * itself (it asks the device now and then while a die is gone); this asks
 * at once. Once every translation page that mapped what the die held has
 * made those mappings lost (one not resident is loaded first), the FTL
 * writes there again: in each superblock once it is erased (at once in
 * the free ones). What was lost stays lost: those LBAs read as errors
 * until written or deallocated. 0 (back, or was not gone), -EBUSY (the
 * device still has it offline), -EAGAIN (translation pages loading: ask
 * again, or let ftl_process() finish it), -ENOENT (not a die of it).
 */
int ftl_die_back(struct ftl *f, uint32_t die);

/*
 * Online migration of one die of an instance to another die (FlashBlox,
 * FAST 2017), ftl/migrate.c.
 *
 * Die slot @slot (its index in ftl_resources.dies[]) moves from its die
 * (src) to @dst_die, a die of the same device outside the instance whose
 * blocks in the instance's range are erased, while the host goes on:
 * free superblocks, and every superblock opened from then on, use dst at
 * once; closed ones (and the checkpoint superblocks) are copied one at a
 * time, every programmed page of the slot's blocks read (data and OOB)
 * and programmed verbatim at the same block, page and plane of dst (so
 * PPNs, OOB and mapping stay as they are), at GC priority; then the
 * superblock switches to dst and its src blocks are erased. Superblocks
 * open at the start are copied once they close; when only those are left,
 * their streams are closed (padding the open pages as a flush does).
 *
 * Throttle: after each copy step (a batch of pages, or an erase) the
 * migration waits so that its ops take about @share permille of the time
 * of the busier of its two dies (1000: no waiting).
 *
 * Crash safety: while a migration runs the caller keeps what
 * ftl_get_resources() says (dies[@slot] = dst, mig_active, mig_slot,
 * mig_src, mig_cancel, mig_share) where it survives a crash, updated
 * right after ftl_migrate_start() and ftl_migrate_cancel() return (before
 * the next call into the instance) and once ops->migrated() ran, and
 * hands it back to ftl_create(). Recovery then decides per superblock
 * which die holds its data (the one with more programmed pages in its
 * blocks; dst on a tie), erases the other's copy and resumes.
 */
enum ftl_mig_state {
	FTL_MIG_NONE, /* none since the instance was made */
	FTL_MIG_RUNNING,
	FTL_MIG_PAUSED, /* by ftl_migrate_pause(), or after an error (status) */
	FTL_MIG_CANCELLING, /* moving the superblocks moved so far back */
	FTL_MIG_DONE, /* ended: status 0 (moved) or -ECANCELED (back) */
};

struct ftl_migrate_cfg {
	uint32_t share; /* permille of its dies' time the migration may take, 1..1000 */
};

struct ftl_migrate_progress {
	enum ftl_mig_state state;
	int status; /* DONE: 0 or -ECANCELED; PAUSED: 0, or the error that paused it */
	uint32_t slot, src, dst; /* the die slot, the die it leaves, the die it goes to */
	uint32_t share;
	/*
	 * Superblocks copied so far in the current direction and what the
	 * total comes to (copied + those left to copy now: free ones need no
	 * copy, and GC may free some before they are reached); the same in
	 * bytes of page data.
	 */
	uint32_t sbs_copied, sbs_total;
	uint64_t bytes_copied, bytes_total;
	uint64_t started_ns, finished_ns; /* now() at the start (or resumption by ftl_create()) and end */
	uint64_t busy_ns; /* NAND time its ops took, on the busier of its two dies per step */
	uint64_t wake_ns; /* throttled: the next step starts at this time; 0: not waiting */
	bool reverse; /* a cancel moves it back: the bytes above count what went back */
};

/*
 * Start moving die slot @slot to die @dst_die. 0; -EINVAL for a bad slot,
 * a die off the device or in the instance, or a share out of 1..1000;
 * -EBUSY when a migration is under way (not DONE), the instance is
 * stopping, or @dst_die's blocks in the instance's range are not erased;
 * -EOPNOTSUPP on a device without a store (nothing to copy from); -ENOMEM
 * (its buffers, 16 pages, are made at the first start).
 */
int ftl_migrate_start(struct ftl *f, uint32_t slot, uint32_t dst_die,
		      const struct ftl_migrate_cfg *cfg);
/*
 * Pause a running migration: no new copy starts; a superblock half
 * copied is dropped (its copy erased) and copied again after
 * ftl_migrate_resume(). 0, or -EINVAL when not running.
 */
int ftl_migrate_pause(struct ftl *f);
/* Resume a paused migration (also after an error). 0, or -EINVAL when not paused. */
int ftl_migrate_resume(struct ftl *f);
/* A new throttle for the migration under way. 0, or -EINVAL. */
int ftl_migrate_set_share(struct ftl *f, uint32_t share);
/*
 * Cancel a running or paused migration: the superblocks moved so far move
 * back (the same copies the other way), then the instance is on its old
 * die again and the new one is erased; ops->migrated(-ECANCELED). 0, or
 * -EINVAL when there is none to cancel (or it is cancelling already).
 */
int ftl_migrate_cancel(struct ftl *f);
void ftl_migrate_progress(const struct ftl *f, struct ftl_migrate_progress *out);

#endif
