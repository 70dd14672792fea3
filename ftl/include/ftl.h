/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ftl/: a DRAM-less page-mapping FTL, one instance per namespace, over
 * the dies (and block range) it is given on an emulated NAND device.
 *
 * Mapping is DFTL: the whole L2P table lives in 4 KiB translation pages
 * on flash; the GTD (translation page -> flash address) is in memory; the
 * CMT caches whole translation pages (LRU) within a byte budget. A mapping
 * descriptor cache (MDC) of run-length-compressed runs of hot regions is
 * consulted before the GTD. Writes are buffered into flash pages per
 * stream (sequential, random, GC, translation), superblocks stripe across
 * the instance's dies, greedy or cost-benefit GC reclaims them, wear
 * leveling evens erase counts, and a checkpoint plus an OOB scan recovers
 * the mapping after any stop.
 *
 * Asynchronous: ftl_submit() returns at once; completions come later from
 * NAND completions or from ftl_process(), which the driver calls when the
 * FTL asks for it through ops->kick(). Never from inside ftl_submit().
 */
#ifndef BLOX_FTL_H
#define BLOX_FTL_H

#include <stdbool.h>
#include <stdint.h>
#include "blox_queue.h"
#include "nand.h"

#define FTL_UNIT 4096u /* mapping unit and LBA size */
#define BLOX_FTL_MAX_DIES 256
#ifndef FTL_UNMAPPED
#define FTL_UNMAPPED 0xffffffffu
#endif
/*
 * PPN of an LBA whose data was lost (an uncorrectable page GC could not
 * move, a translation page that could not be read): it reads as an error
 * until written or deallocated. Neither it nor FTL_UNMAPPED is on flash.
 */
#ifndef FTL_LOST
#define FTL_LOST 0xfffffffeu
#endif

enum ftl_gc_policy {
	FTL_GC_GREEDY,
	FTL_GC_COST_BENEFIT,
};

struct ftl_config {
	uint32_t cmt_bytes; /* translation pages cached: budget / 4 KiB */
	bool mdc_enabled;
	uint32_t mdc_bytes; /* 10 bytes per descriptor */
	uint32_t mdc_min_run;
	uint32_t hot_regions; /* LBA space / hot_regions per region */
	uint32_t hot_top; /* regions counted hot */
	uint32_t hot_decay_reads;
	bool stream_separation;
	uint32_t seq_min_units; /* a write this long is sequential by itself */
	uint32_t op_permille; /* over-provisioning, of the raw capacity */
	uint32_t write_buffer_pages; /* flash pages the write buffer holds */
	/*
	 * Program a die's planes together: a full data page (host or GC
	 * stream) for plane p < planes - 1 waits in the write buffer for the
	 * pages of the same row on the die's other planes, and the group is
	 * submitted at once so the NAND engine starts it as one multi-plane
	 * program (one tPROG for all planes). A flush, a stop or a buffer
	 * running short programs what waits alone. The buffer gets one more
	 * page per die and extra plane to gather in.
	 */
	bool plane_groups;
	/*
	 * A read that took this many read retries (or found its page
	 * uncorrectable) has GC move its superblock's data soon (a refresh),
	 * before more of it decays. 0: never.
	 */
	uint32_t refresh_retries;
	/*
	 * Power-loss protection's hold-up in ms (0: off): not the FTL's to
	 * use; its backend programs the write buffer within it at a power cut
	 * (ftl_power_fail()).
	 */
	uint32_t plp_ms;
	/*
	 * At a power cut (ftl_power_fail()), have the device suspend a running
	 * erase on a die where the buffer's programs wait (nand_set_plp_flush()),
	 * as enterprise drives do, rather than wait for its end (on by default).
	 */
	bool plp_suspend;
	bool volatile_cache; /* writes complete once buffered */
	enum ftl_gc_policy gc_policy;
	/*
	 * GC levels by free superblocks, in permille of the spare superblocks:
	 * those left once the host capacity and its translation pages are
	 * stored and one superblock is being collected. Defaults (ftl.c):
	 * idle 500, background 200, foreground 100, urgent 50. Each is rounded
	 * to whole superblocks when the instance is created, so a full device
	 * reaches them on any op_permille. Values above 1000 are allowed (GC
	 * then runs whenever a victim is worth it); no level exceeds the
	 * number of superblocks. Floors keep them workable on a small spare:
	 * urgent at least 2 superblocks (host streams leave the last 2 to GC
	 * and wait there anyway), foreground at least urgent + 2 (urgent + 1
	 * with fewer than 8 spare superblocks), background at least
	 * foreground, idle at least background.
	 *   idle:       below it, GC runs while the host is idle (idle_ns);
	 *   background: below it, GC runs; host writes are not held back;
	 *   foreground: below it, host writes are paced by GC: each unit
	 *               written outside GC (host data, translation-page
	 *               write-backs, padding) uses up a credit, which GC earns
	 *               as it collects: the victim's expected net gain (its
	 *               invalid units less the translation pages it will write
	 *               back) spread over its work, the actual gain once its
	 *               units are moved. So writes and GC interleave and free
	 *               space holds instead of falling to urgent;
	 *   urgent:     below it, host writes wait for GC.
	 * Worth collecting: idle and background GC take a victim with at least
	 * gc_min_invalid_permille of its units invalid, foreground GC one with
	 * 1/32, urgent GC (or a host write waiting at the streams' reserve) any
	 * with an invalid unit. A run that gains less than 1/16 of a
	 * superblock with no host write or trim meanwhile stops GC (but for
	 * urgent) until the host writes or trims again.
	 */
	uint32_t gc_idle_permille, gc_bg_permille, gc_fg_permille, gc_urgent_permille;
	uint32_t gc_min_invalid_permille;
	uint32_t wl_threshold; /* erase-count spread that starts static WL */
	/*
	 * GC pipeline (off by default): a collected victim waits for its
	 * programs and its erase while GC takes the next one (its pass 1 runs
	 * at once, its rounds when free space allows). Keeps the dies busier
	 * under saturation, so that a tenant sharing dies gets its weighted
	 * share (bloxd turns it on for software vSSDs); costs write tail, WAF
	 * and erase suspensions on an instance with its dies alone
	 * (docs/QOS_RESULTS.md, fair sharing).
	 */
	bool gc_pipeline;
	uint64_t idle_ns; /* idle time before hot-region prefetch */
	/*
	 * The instance's tenant on its NAND device (0: the default), stamped
	 * on every nand_op it submits (nand_op.tenant): host reads and
	 * programs, translation pages, prefetch, GC, wear leveling, erases,
	 * migration copies. With a scheduler on the device
	 * (nand_config.sched) it must be below sched.ntenants, else every
	 * submit fails (-EINVAL).
	 */
	uint32_t tenant;
	/*
	 * Flexible Data Placement (NVMe TP4146): reclaim unit handles, 0:
	 * none (host writes go to the sequential and random streams). With N
	 * (1..FTL_MAX_RUH) every host write names a handle (ftl_io.ruh, 0 the
	 * default) and goes to that handle's own stream: its reclaim unit is
	 * the superblock the stream has open. ruh_persistent ("persistently
	 * isolated"): GC moves a victim's data into a GC stream of the
	 * victim's handle, so a superblock never holds data of two handles;
	 * else ("initially isolated") GC moves everything into the one GC
	 * stream. Each stream holds an open superblock, so the capacity
	 * leaves one more superblock per extra stream (ftl_capacity_for()).
	 */
	uint32_t nr_ruh;
	bool ruh_persistent;
	/*
	 * Reclaim unit time limit (FDP's ERUTL), in ns of now(); 0: none. A
	 * handle's reclaim unit written to and still open this long after its
	 * first write is closed by the FTL, as a Reclaim Unit Handle Update
	 * closes it (its page padded with the mark recovery reads), and
	 * FTL_FDP_EV_RU_TIMEOUT is recorded. ftl_fdp_deadline() says when the
	 * next one is due; ftl_process() closes the ones whose time came.
	 */
	uint64_t ru_time_limit_ns;
};

#define FTL_MAX_RUH 8

void ftl_config_default(struct ftl_config *cfg);

/* What an instance owns: whole dies, and a block range on each plane. */
struct ftl_resources {
	uint32_t nr_dies;
	uint32_t dies[BLOX_FTL_MAX_DIES]; /* global die indexes (ch * dies_per_channel + die) */
	uint32_t first_block, nr_blocks; /* per plane; superblock b = block b everywhere */
	/*
	 * A die migration under way (ftl_migrate_start()), as the caller
	 * persisted it from ftl_get_resources(): die slot mig_slot is moving
	 * from die mig_src to dies[mig_slot]; mig_cancel: it was being
	 * cancelled (moving back to mig_src); mig_share: its throttle (0:
	 * 1000). ftl_create() then works out per superblock which die holds
	 * its data and resumes the migration. All zero: none.
	 */
	bool mig_active, mig_cancel;
	uint32_t mig_slot, mig_src, mig_share;
};

/* How the FTL reaches its NAND device and its driver. */
struct ftl_env_ops {
	/* Submit a NAND op now (the driver stamps the time). 0 or -errno. */
	int (*submit)(void *ctx, struct nand_op *op);
	/* Current time, for idle detection and cost-benefit ages. */
	uint64_t (*now)(void *ctx);
	/* Please call ftl_process() soon, from the loop (not from here). */
	void (*kick)(void *ctx);
	/* Make programmed pages durable (the store's sync). 0 or -errno. */
	int (*sync)(void *ctx);
	/*
	 * Optional (NULL: not used). A die migration ended (ftl_migrate_*()):
	 * @status 0 (the slot's new die holds everything, the old one is
	 * erased and may be given out), or -ECANCELED (back on the old die,
	 * the new one erased). Called from ftl_process().
	 */
	void (*migrated)(void *ctx, int status);
	/*
	 * Optional. Please call ftl_process() once the time (now()) is @ns or
	 * later: a throttled migration waits until then. It asks once per
	 * wait, so a call made before @ns (a timer that fired early) must be
	 * followed by another at or after @ns. Without it the driver calls
	 * ftl_process() now and then, as for idle work.
	 */
	void (*wake_at)(void *ctx, uint64_t ns);
	/*
	 * Optional. A predictable-latency event was recorded (ftl_plm_*():
	 * a warning, or a deterministic window that ended by itself); read
	 * them with ftl_plm_info(). Called from ftl_process().
	 */
	void (*plm_event)(void *ctx);
};

struct ftl_env {
	const struct ftl_env_ops *ops;
	void *ctx;
	struct nand_dev *dev; /* geometry and store access */
	struct nand_store *store; /* NULL: no recovery possible */
};

enum ftl_io_op {
	FTL_IO_READ,
	FTL_IO_WRITE,
	FTL_IO_TRIM,
	FTL_IO_FLUSH,
};

struct ftl_io;
typedef void (*ftl_io_cb)(struct ftl_io *io);

struct ftl_io {
	enum ftl_io_op op;
	uint32_t lba; /* in FTL_UNIT */
	uint32_t nr; /* units; 0 for FLUSH */
	uint8_t *buf; /* nr * FTL_UNIT bytes for READ/WRITE */
	bool fua;
	int status;
	uint32_t err_unit; /* out: a failed READ's first unit that failed (from lba); UINT32_MAX: none known */
	ftl_io_cb cb;
	void *cb_arg;
	/* FTL private. */
	uint32_t next, pending;
	uint32_t stage, stream;
	uint64_t ticket;
	bool cmt_waited; /* waited for a translation page load: its next lookup is no hit */
	bool ordered; /* a sequential write: placed in arrival order */
	TAILQ_ENTRY(ftl_io) link;
	/*
	 * Caller's: a WRITE's reclaim unit handle, below ftl_config.nr_ruh
	 * (0 when it has none); ftl_submit() refuses another (-EINVAL).
	 */
	uint16_t ruh;
	/*
	 * Caller's: of a WRITE's nr * FTL_UNIT bytes, those that are not the
	 * host's data (a smaller block's read-modify-write of its unit, the
	 * zeroes of a Write Zeroes); FDP's host bytes count the rest.
	 */
	uint32_t not_host_bytes;
	/*
	 * Caller's: a FLUSH that makes durable only the pages handed to the
	 * flash so far, leaving pages being filled in the buffer (nothing
	 * padded): after ftl_ruh_update(), its mark without the other
	 * handles' pages.
	 */
	bool issued_only;
};

struct ftl;

/*
 * Create an instance: formats the resources if they hold nothing of
 * ours, else recovers from the newest checkpoint plus an OOB scan.
 */
int ftl_create(const struct ftl_config *cfg, const struct ftl_env *env,
	       const struct ftl_resources *res, struct ftl **out);
/*
 * Start a clean stop: flush everything, write a checkpoint. @done runs
 * when it is on flash (then ftl_destroy()).
 */
int ftl_shutdown(struct ftl *f, void (*done)(void *arg, int status), void *arg);
void ftl_destroy(struct ftl *f);

/* Units the host may address. */
uint32_t ftl_capacity(const struct ftl *f);
/*
 * What ftl_capacity() of an instance with @cfg over @nr_dies dies of a
 * device shaped @g and @nr_blocks blocks per plane would be, without
 * making one; 0 when that is too small for an instance.
 */
uint64_t ftl_capacity_for(const struct ftl_config *cfg, const struct nand_geometry *g,
			  uint32_t nr_dies, uint32_t nr_blocks);
/* 0, or -ERANGE / -EINVAL with no completion. */
int ftl_submit(struct ftl *f, struct ftl_io *io);
/* Deliver deferred completions and run background work. */
void ftl_process(struct ftl *f);
void ftl_set_volatile_cache(struct ftl *f, bool on);

struct ftl_stats {
	uint64_t host_reads, host_writes, host_trims, flushes; /* units */
	/*
	 * cmt_hits: lookups that found their translation page resident (a
	 * request resumed after waiting for a load counts none); cmt_misses:
	 * loads started.
	 */
	uint64_t cmt_hits, cmt_misses, cmt_evictions, cmt_writebacks;
	uint64_t mdc_lookups, mdc_hits, prefetched_tps;
	uint64_t unmapped_reads, buffer_reads;
	/*
	 * Flash that wears (nand_config.rel): read retries the device took,
	 * reads it found uncorrectable, units GC lost to them, translation
	 * pages lost (each load that failed, each one GC could not move),
	 * host reads of lost units (errors), superblocks refreshed.
	 */
	uint64_t read_retries, uncorrectable_reads, units_lost, tp_lost, lost_reads, refreshes;
	uint64_t superblocks_retired; /* retired now (SB_BAD): an erase or a program of a block failed */
	bool read_only; /* writes are refused: a program failed, or too little spare is left */
	/*
	 * Superblocks that may be retired before the instance turns read-only
	 * (retired ones included): those beyond the capacity, its translation
	 * pages, an open one per stream and one to collect into.
	 */
	uint64_t spare_superblocks;
	/*
	 * Bad blocks remapped to a spare block of their plane (ftl/remap.c):
	 * standing in now, and those remapped for a failed erase (or program)
	 * since the start; the instance's blocks bad from the factory; the
	 * spare pool in blocks (spare_superblocks of the stripe's width) and
	 * what of it is used (retired superblocks, less the donors' blocks
	 * still free to stand in).
	 */
	uint64_t remapped_blocks, remapped_grown, factory_bad_blocks;
	uint64_t spare_blocks, spare_blocks_used;
	/*
	 * Programs that failed on a grown bad block (the FTL survives them:
	 * GC moves the data from the write buffer), and the valid units
	 * those pages held then (GC writes them elsewhere).
	 */
	uint64_t program_failures, pfail_units;
	/*
	 * Dies gone offline (ftl_die_offline()): how many, the valid units
	 * that were on them (lost, but for those the buffer still held), the
	 * translation pages rewritten from memory because their flash copy
	 * was there, and the spare superblocks they took (a superblock holds
	 * less without them: more are needed for the capacity).
	 */
	uint32_t dies_offline;
	uint64_t offline_units, offline_tps_moved, offline_spare_sbs;
	uint64_t offline_programs; /* programs that failed there (their pages kept, GC moves them) */
	uint64_t dies_back; /* dies that came back, replaced (ftl_die_back()) */
	uint64_t tp_rebuilt; /* translation pages only on a die gone, rebuilt from the others' OOB */
	uint64_t flash_data_reads, flash_tp_reads;
	uint64_t flash_programs, flash_erases;
	uint64_t units_written_host, units_written_gc, units_written_tp, units_padded;
	uint64_t gc_runs, gc_units_moved, wl_runs;
	/* Translation pages GC read (CMT misses) and wrote back (batches). */
	uint64_t gc_tp_reads, gc_tp_writebacks;
	uint64_t gc_paced; /* times a host write waited for a GC credit */
	uint64_t tp_pages_held; /* translation pages held for the data they map */
	uint64_t pages_grouped; /* data pages programmed with their plane partners */
	uint64_t pages_ungrouped; /* data pages that waited for partners, programmed alone */
	uint64_t free_superblocks, superblocks;
	uint32_t max_erase, min_erase;
	uint64_t recovered_units; /* applied from the OOB scan */
	bool recovered_from_checkpoint;
	bool gc_pipeline; /* its configuration's (ftl_config.gc_pipeline) */
	/* GC storms (ftl_gc_storm): how many were asked, the victims they took, one running now. */
	uint64_t gc_storms, gc_storm_victims;
	bool gc_storm_active;
};

void ftl_get_stats(const struct ftl *f, struct ftl_stats *st);

/*
 * A GC storm (bloxctl fault inject gc-storm): GC takes victims now, one
 * after the other, chosen as at its urgent level (the superblock GC's
 * policy scores best among those with any invalid unit), whatever the
 * free space: @superblocks of them (0: no count), for @duration_ns on the
 * FTL's clock (0: no time), whichever ends first; both 0: one victim. A
 * storm asked while one runs replaces it. It ends early when no full
 * superblock has an invalid unit left.
 */
void ftl_gc_storm(struct ftl *f, uint32_t superblocks, uint64_t duration_ns);
/*
 * Power loss (power.c): ftl_power_fail() submits every page the write
 * buffer holds (padded), for the hold-up of power-loss protection, and
 * GC stops where it is (no new read, move or erase) and host writes not
 * yet in the buffer wait (they are never acknowledged); with plp_suspend a
 * running erase on a die those programs need is suspended for them
 * (nand_set_plp_flush(), which nand_power_cut() ends); the caller then drives the flash
 * as long as it has power (and calls it again if writes that waited
 * filled new pages meanwhile).
 * ftl_volatile_units(): host data units whose only copy is the write
 * buffer now (acknowledged, not on flash): what a power cut now loses.
 */
void ftl_power_fail(struct ftl *f);
uint64_t ftl_volatile_units(const struct ftl *f);
/* The configuration it runs with now (the volatile cache as last set), to make it again. */
void ftl_get_config(const struct ftl *f, struct ftl_config *out);
/*
 * The instance's resources as they are now, to persist and give back to
 * ftl_create() after a stop: dies[] with each slot's die (during a
 * migration the die it is moving to), the block range, and the
 * migration's mig_* fields (mig_active false once it has ended).
 */
void ftl_get_resources(const struct ftl *f, struct ftl_resources *out);
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
/* Write amplification: flash units programmed / host units written. */
double ftl_waf(const struct ftl *f);

/*
 * Flexible Data Placement: what one reclaim unit handle wrote and erased,
 * in bytes (units of FTL_UNIT), as NVMe's FDP statistics count them: host
 * bytes its writes brought; media bytes programmed into superblocks of
 * the handle (its host data, GC moves into them, padding); bytes erased
 * of its superblocks (a superblock's units when it is erased). A
 * superblock belongs to the handle whose stream opened it; one the
 * common GC stream or the translation stream opened belongs to none, and
 * counts in ftl_fdp_stats.other. Kept by the checkpoint; after a crash
 * they are the checkpoint's (as ftl_stats are).
 */
struct ftl_fdp_ctr {
	uint64_t host_bytes, media_bytes, erased_bytes;
};

/*
 * An event of a reclaim unit handle the FTL caused by itself (NVMe's FDP
 * events not caused by a host command):
 *   FTL_FDP_EV_RU_FILLED    the handle's reclaim unit was fully written
 *                           and its next host write opened another
 *                           (Implicitly Modified Reclaim Unit Handle);
 *   FTL_FDP_EV_RU_TIMEOUT   its reclaim unit stayed open past
 *                           ftl_config.ru_time_limit_ns and the FTL closed
 *                           it (Reclaim Unit Time Limit Exceeded);
 *   FTL_FDP_EV_REALLOC      GC (collection, refresh of a failing block, a
 *                           failed program's superblock) moved @moved
 *                           valid units of a superblock of the handle
 *                           elsewhere, the first of them LBA unit @lba
 *                           (Media Reallocated).
 */
#define FTL_FDP_EVENTS 64
enum ftl_fdp_event_type {
	FTL_FDP_EV_RU_FILLED = 1,
	FTL_FDP_EV_RU_TIMEOUT = 2,
	FTL_FDP_EV_REALLOC = 3,
};

struct ftl_fdp_event {
	uint64_t seq; /* 1, 2, ... */
	uint64_t ns; /* when (the instance's clock) */
	uint32_t type; /* enum ftl_fdp_event_type */
	uint32_t ruh;
	uint32_t moved; /* FTL_FDP_EV_REALLOC: units moved */
	uint32_t lba; /* FTL_FDP_EV_REALLOC: the first unit moved (an FTL LBA, in units) */
};

struct ftl_fdp_stats {
	uint32_t nr_ruh;
	bool persistent;
	uint64_t ru_bytes; /* a reclaim unit's size: a superblock's data */
	uint64_t ru_time_limit_ns; /* ftl_config.ru_time_limit_ns */
	struct ftl_fdp_ctr ruh[FTL_MAX_RUH];
	struct ftl_fdp_ctr other; /* superblocks of no handle */
	struct ftl_fdp_ctr total; /* the sums: the endurance group's figures */
	/* Per handle: bytes its reclaim unit can still take (0: none open). */
	uint64_t ru_left[FTL_MAX_RUH];
	uint64_t ru_updates[FTL_MAX_RUH]; /* ftl_ruh_update() calls that moved it */
	uint64_t ru_implicit[FTL_MAX_RUH]; /* reclaim units it left because they filled */
	uint64_t ru_expired[FTL_MAX_RUH]; /* reclaim units closed by the time limit */
	/*
	 * What the FTL did to the handles on its own, newest FTL_FDP_EVENTS
	 * kept: event seq s is ev[(s - 1) % FTL_FDP_EVENTS], ev_seq the newest
	 * (0: none yet). Kept by the checkpoint (a clean stop takes one); after
	 * a crash they are the last checkpoint's.
	 */
	uint64_t ev_seq;
	struct ftl_fdp_event ev[FTL_FDP_EVENTS];
};

/* -EINVAL without placement handles. */
int ftl_fdp_stats(const struct ftl *f, struct ftl_fdp_stats *out);
/*
 * Reclaim Unit Handle Update: handle @ruh's next write goes to a fresh
 * reclaim unit. The page being filled is padded and programmed, the
 * superblock closes (what is left of it is never written; GC reclaims it
 * as any other). The padding carries a mark that recovery reads: after a
 * crash the superblock stays closed, where a partly written one of a
 * stream is otherwise reopened. When the reclaim unit ends on a page
 * boundary, a page of marked padding is programmed. The mark is durable
 * once a flush (FTL_IO_FLUSH, issued_only is enough) after it completed. 0; -EINVAL for a
 * handle out of range; -ESHUTDOWN; -EAGAIN when no write buffer is free
 * for the marked page (nothing changed: try again). A handle with
 * nothing written in its reclaim unit stays where it is.
 */
int ftl_ruh_update(struct ftl *f, uint32_t ruh);
/*
 * The FDP event log of the layer above (bloxd's NVMe layer: what log 23h
 * shows and how it was enabled), an opaque block of at most
 * FTL_FDP_LOG_BYTES the FTL keeps with its own event ring in every
 * checkpoint: after a clean restart ftl_fdp_log_get() gives back what the
 * last ftl_fdp_log_set() before the stop gave. set: 0, -EINVAL without
 * handles, -E2BIG. get: its length (0: none), copied into @buf (@cap).
 */
#define FTL_FDP_LOG_BYTES 12288u
int ftl_fdp_log_set(struct ftl *f, const void *buf, uint32_t len);
uint32_t ftl_fdp_log_get(const struct ftl *f, void *buf, uint32_t cap);
/*
 * When the next reclaim unit reaches ftl_config.ru_time_limit_ns (now()'s
 * time): call ftl_process() then. UINT64_MAX: none open, or no limit.
 */
uint64_t ftl_fdp_deadline(const struct ftl *f);

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

/*
 * Read-only inspection of an instance, for tests and the simulator
 * (inspect.c): its layout, superblocks, streams, translation pages and
 * the work in progress, as they are now. Nothing here changes the
 * instance (nor the CMT's LRU order).
 */
struct ftl_layout {
	uint32_t ndies, planes; /* of the instance */
	uint32_t slots; /* units per flash page */
	uint32_t stripe; /* flash pages per superblock row: planes * dies */
	uint32_t pages_per_block;
	uint32_t units_per_sb, nr_sb; /* superblocks, checkpoint ones included */
	uint32_t ckpt_sbs; /* superblocks 0..ckpt_sbs-1 hold checkpoints */
	uint32_t capacity; /* host units, as ftl_capacity() */
	uint32_t nr_tp, tp_entries; /* translation pages, mappings in each */
	uint32_t cmt_pages; /* translation pages the CMT holds at most */
	uint32_t nr_wbufs; /* write buffer pages */
};

void ftl_inspect_layout(const struct ftl *f, struct ftl_layout *out);

enum ftl_sb_status {
	FTL_SB_FREE,
	FTL_SB_OPEN, /* a stream writes into it */
	FTL_SB_FULL,
	FTL_SB_GC, /* the victim GC is collecting */
	FTL_SB_ERASING,
	FTL_SB_CKPT, /* reserved for checkpoints */
	FTL_SB_BAD, /* retired: an erase or a program of one of its blocks failed */
};

struct ftl_sb_info {
	enum ftl_sb_status state;
	uint32_t valid; /* valid units */
	uint32_t erase_count;
};

/* Superblock @sb (below nr_sb). */
void ftl_inspect_sb(const struct ftl *f, uint32_t sb, struct ftl_sb_info *out);

enum ftl_stream_id {
	FTL_STREAM_SEQ,
	FTL_STREAM_RAND,
	FTL_STREAM_GC,
	FTL_STREAM_TP, /* translation pages */
	FTL_STREAM_RUH0, /* host writes of handle h: FTL_STREAM_RUH0 + h */
	FTL_STREAM_RUHGC0 = FTL_STREAM_RUH0 + FTL_MAX_RUH, /* GC of handle h (persistent) */
	FTL_STREAMS = FTL_STREAM_RUHGC0 + FTL_MAX_RUH,
};

struct ftl_stream_info {
	int32_t sb; /* its open superblock, -1: none */
	uint32_t next; /* next unit offset inside it */
	bool filling; /* it has a write buffer page being filled */
};

void ftl_inspect_stream(const struct ftl *f, enum ftl_stream_id s, struct ftl_stream_info *out);

struct ftl_tp_info {
	uint32_t ppn; /* where it is on flash (the GTD); FTL_UNMAPPED: nowhere yet */
	bool cached; /* in the CMT, loading or loaded */
	bool ready; /* in the CMT and loaded */
	bool dirty; /* loaded, and changed since it was written */
};

/* Translation page @tp (below nr_tp). */
void ftl_inspect_tp(const struct ftl *f, uint32_t tp, struct ftl_tp_info *out);
/*
 * The PPN @lba maps to in its translation page when that page is loaded
 * in the CMT (FTL_UNMAPPED: never written, or trimmed); false when it is
 * not loaded (the MDC is not consulted).
 */
bool ftl_inspect_lba(const struct ftl *f, uint32_t lba, uint32_t *ppn);
/*
 * The NAND address of the instance's flash page @fpid: the page holding
 * units fpid * slots onwards; superblock sb's pages are, in write order,
 * sb * pages_per_block * stripe onwards.
 */
void ftl_inspect_page_addr(const struct ftl *f, uint32_t fpid, struct nand_addr *out);
/*
 * Unit @ppn's FTL_UNIT bytes while they are in a write buffer page
 * (filling or programming); NULL once programmed.
 */
const uint8_t *ftl_inspect_buffered(const struct ftl *f, uint32_t ppn);
/* Unit @ppn's validity bit: it holds data or a translation page in use. */
bool ftl_inspect_valid(const struct ftl *f, uint32_t ppn);

struct ftl_activity {
	uint32_t outstanding; /* host requests inside the FTL */
	uint32_t free_sbs; /* free superblocks */
	uint32_t wbufs_busy; /* write buffer pages not free */
	uint32_t pages_in_flight; /* buffer pages ticketed, not programmed yet */
	uint64_t next_ticket, done_through; /* programs ticketed; done, in order */
	uint32_t write_waiting; /* host writes waiting for buffer space or GC */
	uint32_t paced; /* host writes waiting for a GC credit (foreground level) */
	uint32_t read_waiting; /* host reads waiting for a read context */
	/* The sequential write later ones wait behind (NULL: none), and them. */
	const struct ftl_io *seq_blocker;
	uint32_t seq_waiting;
	bool prefetch_busy; /* idle prefetch is loading translation page */
	uint32_t prefetch_tp;
	uint64_t ckpt_gen; /* generation of the newest checkpoint */
	uint64_t wseq; /* write sequence: units written so far */
	bool fatal; /* a program failed: writes are refused */
};

void ftl_inspect_activity(const struct ftl *f, struct ftl_activity *out);

enum ftl_gc_phase {
	FTL_GC_PHASE_IDLE,
	FTL_GC_PHASE_SCAN, /* reading the OOB of the victim's pages */
	FTL_GC_PHASE_READ, /* reading the data of a round */
	FTL_GC_PHASE_MOVE, /* moving the round's units */
	FTL_GC_PHASE_ERASING, /* collected, waiting for an erase slot (busy says more) */
};

struct ftl_gc_info {
	bool active; /* a victim is being collected */
	bool busy; /* active, or a collected victim's erase is pending */
	uint32_t erases_pending; /* collected victims waiting for their erase */
	bool urgent; /* below the urgent level: host writes wait for GC */
	int32_t victim; /* -1: none */
	enum ftl_gc_phase phase;
	uint32_t victim_units; /* valid units the scan found in the victim */
	uint32_t groups_max; /* translation pages one round may load */
	/* The levels (ftl_config), in free superblocks, and the spare they are of. */
	uint32_t spare, lvl_idle, lvl_bg, lvl_fg, lvl_urgent;
};

void ftl_inspect_gc(const struct ftl *f, struct ftl_gc_info *out);
/*
 * How short of free space the instance is now, by its GC levels: 0 above
 * background, 1 background, 2 foreground, 3 urgent (host writes wait).
 * Cheap: for a suspension policy's inputs.
 */
uint8_t ftl_space_level(const struct ftl *f);

struct ftl_mdc_info {
	uint32_t count; /* descriptors held */
	uint64_t covered; /* LBAs they cover */
};

void ftl_inspect_mdc(const struct ftl *f, struct ftl_mdc_info *out);

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
