/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FTL's core API (part of ftl.h): its configuration, the resources and
 * environment an instance runs on, the I/O it takes, and the instance's
 * life (create, submit, process, shutdown, destroy).
 *
 * Asynchronous: ftl_submit() returns at once; completions come later from
 * NAND completions or from ftl_process(), which the driver calls when the
 * FTL asks for it through ops->kick(). Never from inside ftl_submit().
 */
#ifndef BLOX_FTL_CORE_H
#define BLOX_FTL_CORE_H

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
	/*
	 * Caller's: a READ of one unit may have its data lent where the flash
	 * keeps it instead of copied into @buf (nand_op.lend): then @lent
	 * points at the unit's bytes, @buf is left as it was, and the caller
	 * gives them back with nand_unpin(@lent_tab, @lent_block) (soon: an
	 * erase of the block waits for it).
	 */
	bool lend;
	const void *lent;
	struct nand_lend_tab *lent_tab;
	uint64_t lent_block;
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

#endif
