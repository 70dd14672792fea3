/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Namespace backends. A backend is a block device behind an ops table
 * (ram, null, later nand); the I/O command set talks to it through
 * struct blox_io and never knows which one it has.
 *
 * Contract for every backend: submit() returns at once; the completion
 * callback is always called later from the event loop (through the
 * completion queue the backend was given), never from inside submit().
 */
#ifndef BLOX_BDEV_H
#define BLOX_BDEV_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/uio.h>

#include "blox_msg.h"

struct event_base;
struct event;

enum blox_io_op {
	BLOX_IO_READ,
	BLOX_IO_WRITE,
	BLOX_IO_FLUSH,
	BLOX_IO_WRITE_ZEROES, /* data reads back as zeroes; may unmap */
	BLOX_IO_TRIM, /* deallocate; reads of the range return zeroes */
	/*
	 * Zoned backends only (blox_bdev_zone_info() says true): Zone Append
	 * to the zone starting at offset (the LBA written comes back in
	 * result), and a Zone Management Send action (zone_action, on the zone
	 * starting at offset, or every zone it applies to with zone_all).
	 */
	BLOX_IO_ZONE_APPEND,
	BLOX_IO_ZONE_MGMT,
};

struct blox_io;
typedef void (*blox_io_cb)(struct blox_io *io);

struct blox_io {
	enum blox_io_op op;
	uint64_t offset; /* bytes */
	uint64_t len; /* bytes; 0 for FLUSH */
	struct iovec *iov; /* READ/WRITE data, covering len */
	int iovcnt;
	bool fua;
	int status; /* 0 or -errno, set by the backend before the callback */
	/*
	 * A failed READ's first byte that failed, when the backend knows it
	 * (the nand backend: the first unit the flash could not read); else
	 * UINT64_MAX (the submitter sets it so before submit).
	 */
	uint64_t err_offset;
	/*
	 * Zoned backends: the NVMe status ((SCT << 8) | SC) of a command the
	 * zone rules refused (status is then -EINVAL), else 0; the LBA a Zone
	 * Append wrote; the Zone Send Action and Select All of a ZONE_MGMT.
	 */
	uint16_t nvme_status;
	uint64_t result;
	uint8_t zone_action;
	bool zone_all;
	/*
	 * A WRITE's reclaim unit handle (Flexible Data Placement), below
	 * blox_bdev_fdp.nr_ruh; 0 for a backend without handles.
	 */
	uint16_t ruh;
	/*
	 * A FLUSH of only what the backend has handed to its media so far
	 * (the nand backend: pages being filled stay in its buffer, nothing
	 * padded); a backend without such a buffer flushes as ever.
	 */
	bool flush_issued;
	/* Zoned backends: their count of zone changes they made by themselves, at completion. */
	uint64_t zone_changes;
	/*
	 * A READ's data lent instead of copied. The submitter sets @lend_ok
	 * when it can take it so; a backend that can (the nand backend, a read
	 * of one 4 KiB unit from flash) then leaves iov as it was and points
	 * @lent at the len bytes where its flash keeps them, valid until
	 * blox_io_lend_end(), which the submitter calls soon (an erase of that
	 * flash waits for it): within its loop pass, else it copies them into
	 * iov first (blox_io_unlend()). @lent is NULL again after either.
	 */
	bool lend_ok;
	const void *lent;
	void (*lend_end)(void *ctx, uint64_t tok);
	void *lend_ctx;
	uint64_t lend_tok;
	blox_io_cb cb;
	void *cb_arg;
	TAILQ_ENTRY(blox_io) link; /* owned by the backend while in flight */
	/* Its way to a backend on another reactor and back (bdev_hop.c). */
	struct blox_msg hop;
	blox_io_cb hop_cb;
	void *hop_arg;
	struct blox_bdev *hop_bdev;
};

/* @io's lent data (blox_io.lent) is no longer used: given back. Nothing when none. */
void blox_io_lend_end(struct blox_io *io);
/* @io's lent data copied into its iov, then given back. Nothing when none. */
void blox_io_unlend(struct blox_io *io);
/*
 * Completions that must not run inside submit() are parked here and
 * delivered from the event loop. One per target; shared by its backends.
 */
struct blox_io_cq {
	TAILQ_HEAD(, blox_io) done;
	struct event *ev;
};

int blox_io_cq_init(struct blox_io_cq *cq, struct event_base *base);
void blox_io_cq_fini(struct blox_io_cq *cq);
/* Queue @io's completion (status already set) for the next loop pass. */
void blox_io_cq_post(struct blox_io_cq *cq, struct blox_io *io);
/* Deliver everything queued now (used by the loop event and by tests). */
void blox_io_cq_drain(struct blox_io_cq *cq);

struct blox_bdev;
struct nand_stats;
struct nand_die_stats;
struct nand_dev;
struct ftl_stats;
struct ftl_resources;
struct ftl_migrate_progress;

/*
 * What a backend on emulated NAND can tell (admin telemetry). The caller
 * zeroes it and points @ftl at a buffer of its own; the layers below stay
 * out of this header so that the NVMe core does not compile against them.
 */
struct blox_bdev_telemetry {
	struct ftl_stats *ftl; /* in: the caller's; filled when has_ftl is set */
	bool has_ftl;
	double waf;
	const struct nand_stats *nand; /* NULL: not on emulated NAND */
	/* Its NAND device (a shared one's, when on one): per-die counters (nand_die_stats()). */
	const struct nand_dev *nand_dev;
	/*
	 * Its device's per-die counters, nand_dies() of them, as they were
	 * when this was filled (a copy: the device may run on another
	 * reactor), or NULL.
	 */
	const struct nand_die_stats *die_stats;
	uint32_t dies, channels;
	const char *suspend_policy; /* its device's; NULL: not on emulated NAND */
	/* The smart policy's decisions by reason (qos.h QOS_SUSP_*), or NULL. */
	const uint64_t *susp_decisions;
	/*
	 * A zoned backend (the zns one): the erase counts of the blocks of its
	 * rows (least, most, mean: the spread its wear leveling keeps), its
	 * rows, and the zone resets whose erases waited for a
	 * non-deterministic window (predictable latency).
	 */
	bool has_zoned;
	struct blox_bdev_zoned_wear {
		uint32_t min_erase, max_erase;
		double mean_erase;
		uint32_t rows, rows_free, rows_dirty; /* dirty: reset, its erase waits */
		uint64_t resets_deferred, rows_erased_later;
	} zoned;
};

/*
 * How a backend's flash is isolated and how worn it is: what the NVMe core
 * reports as the namespace's NVM Set and its Endurance Group (Identify NVM
 * Set List, Endurance Group Information log). The caller zeroes it. Byte
 * counts are bytes: the core turns them into the units of each page.
 */
struct blox_bdev_endurance {
	/*
	 * The dies are a pool other namespaces share, each on its own block
	 * range, so they wear together: namespaces whose @pool_key is the
	 * same are one Endurance Group. false: the flash is this backend's
	 * alone (its own device, or dies of a device no one else uses).
	 */
	bool shared_pool;
	uint64_t pool_key; /* shared_pool: derived from the device and the pool, never an address */
	/* Mean erase count of its blocks against the cell type's rated P/E cycles; 255 past 254. */
	uint8_t percent_used;
	/* Spare blocks left to replace bad ones, in percent of those at the start, 0..100. */
	uint8_t avail_spare;
	uint8_t spare_threshold; /* avail_spare below this: nearly out of spare */
	bool read_only; /* writes are refused: a program failed, or no spare is left */
	uint64_t host_read_bytes, host_written_bytes; /* host data (written: over the flash's life) */
	uint64_t media_written_bytes; /* programmed: host data, GC moves, mapping, padding */
	uint64_t endurance_bytes; /* host bytes its flash takes over its life at a WAF of 1 */
	uint64_t total_bytes; /* capacity the backend offers on its flash */
	uint64_t unalloc_bytes; /* of it, what the namespace does not use */
	uint32_t read_4k_ns; /* a random 4 KiB read alone on the device, typical; 0: unknown */
	uint32_t opt_write_bytes; /* write size placed without padding; 0: unknown */
};

/*
 * Predictable latency (NVMe Predictable Latency Mode) of the NVM Set a
 * backend is, in the units of the Predictable Latency Per NVM Set log: 4 KiB
 * reads, writes of opt_write_bytes (blox_bdev_endurance), milliseconds.
 * What the windows do is the backend's: the nand backend's FTL defers its
 * background work in a deterministic window (ftl.h, ftl_plm_*); the zns
 * backend the erases of its zone resets (bdev_zns.h; its writes are in
 * flash pages).
 */
enum blox_plm_window {
	BLOX_PLM_OFF, /* predictable latency not enabled */
	BLOX_PLM_DTWIN,
	BLOX_PLM_NDWIN,
};

struct blox_bdev_plm_config {
	bool enable;
	/* Warnings (the Enable Event bits 2:0) when an estimate falls below its threshold. */
	uint16_t ee;
	uint64_t reads_thresh, writes_thresh, time_thresh_ms;
	/*
	 * Called from the loop when an event is recorded (a warning, or a
	 * deterministic window ended by itself); NULL: nobody is told. Not
	 * called once the set is disabled.
	 */
	void (*event)(void *arg);
	void *event_arg;
};

struct blox_bdev_plm_info {
	enum blox_plm_window window;
	uint16_t events; /* the log's Event Type bits, until cleared */
	uint64_t reads_typical, writes_typical, time_max_ms;
	uint64_t ndwin_min_high_ms, ndwin_min_low_ms;
	uint64_t reads_estimate, writes_estimate, time_estimate_ms;
};

/*
 * Flexible Data Placement (NVMe TP4146) of a backend whose writes carry a
 * reclaim unit handle (the nand backend's FTL, ftl.h ftl_fdp_stats()):
 * per handle and in all, bytes the host wrote, bytes programmed (host,
 * GC, padding) and bytes erased, as the FDP Statistics log counts them.
 */
#define BLOX_FDP_MAX_RUH 8

struct blox_bdev_fdp_ruh {
	uint64_t host_bytes, media_bytes, erased_bytes;
	uint64_t ru_left_bytes; /* what its reclaim unit can still take; 0: none open */
	uint64_t updates; /* Reclaim Unit Handle Updates that moved it */
	uint64_t implicit; /* reclaim units it left because they filled */
	uint64_t expired; /* reclaim units closed by the time limit */
};

/*
 * What the backend did to a handle by itself, the newest BLOX_FDP_EVENTS
 * kept: BLOX_FDP_EV_RU_FILLED, the handle's reclaim unit filled and its
 * next write opened another; BLOX_FDP_EV_RU_TIMEOUT, its reclaim unit was
 * open longer than the time limit (blox_bdev_fdp.ru_time_limit_s) and the
 * backend closed it; BLOX_FDP_EV_REALLOC, GC moved @moved_bytes of valid
 * data of a reclaim unit of the handle, the first at byte @offset.
 */
#define BLOX_FDP_EVENTS 64
#define BLOX_FDP_LOG_BYTES 12288u /* the NVMe layer's saved event log, at most */
#define BLOX_FDP_EV_RU_FILLED 1
#define BLOX_FDP_EV_RU_TIMEOUT 2
#define BLOX_FDP_EV_REALLOC 3

struct blox_bdev_fdp_event {
	uint64_t seq; /* 1, 2, ...: event seq s is ev[(s - 1) % BLOX_FDP_EVENTS] */
	uint64_t ns; /* when (blox_clock) */
	uint32_t type, ruh;
	uint64_t moved_bytes, offset; /* BLOX_FDP_EV_REALLOC */
};

struct blox_bdev_fdp {
	uint32_t nr_ruh;
	bool persistent; /* persistently isolated, else initially isolated */
	uint64_t ru_bytes; /* a reclaim unit's size */
	uint32_t ru_time_limit_s; /* a reclaim unit's time limit (ERUTL); 0: none */
	struct blox_bdev_fdp_ruh ruh[BLOX_FDP_MAX_RUH];
	uint64_t host_bytes, media_bytes, erased_bytes; /* the totals */
	uint64_t ev_seq; /* the newest event's seq, 0: none */
	struct blox_bdev_fdp_event ev[BLOX_FDP_EVENTS];
};

/* What a power cut did (blox_bdev_power_cut()). */
struct blox_bdev_power_cut {
	uint64_t ops_dropped; /* flash ops in flight, never completed */
	uint32_t programs_torn; /* programs cut in their array phase */
	uint32_t cmds_failed; /* commands at the backend, failed (their hosts are gone) */
	uint64_t recovered_units; /* units the rebuild's OOB scan applied */
	uint64_t rebuild_ns; /* the rebuild from flash, wall time */
	uint32_t superblocks_retired; /* after the rebuild */
	/*
	 * Acknowledged host data (bytes) only in the volatile write buffer
	 * when power was gone: lost. With power-loss protection, what its
	 * hold-up could not program.
	 */
	uint64_t bytes_lost;
	uint64_t bytes_buffered; /* such data at the cut, before any hold-up */
	/*
	 * Power-loss protection's budget (0: none): its plp_ms, or in a
	 * device's cut the device's hold-up (the longest plp_ms on it).
	 */
	uint32_t holdup_ms;
	uint64_t holdup_used_ns; /* of it, used (the NAND timing model's time) */
	/* In: only say whether it could be cut (refused and its reason), cut nothing. */
	bool check_only;
	/* In: as one vSSD of its whole device's cut (blox_nand_dev_power_cut()). */
	bool device;
	bool shared; /* a vSSD of a registered device: only its own ops were cut */
	/* -EOPNOTSUPP or -EBUSY: why not, for the operator (a static string). */
	const char *refused;
};

struct blox_bdev_ops {
	const char *name;
	/* Start @io. Returns nothing: errors come back through io->status. */
	void (*submit)(struct blox_bdev *bdev, struct blox_io *io);
	/* Free the device. No I/O is in flight when this is called. */
	void (*destroy)(struct blox_bdev *bdev);
	/* Optional: the host turned the volatile write cache on or off. */
	void (*set_write_cache)(struct blox_bdev *bdev, bool on);
	/* Optional: fill what the backend counts (zeroed by the caller). */
	void (*telemetry)(struct blox_bdev *bdev, struct blox_bdev_telemetry *t);
	/*
	 * Optional (flash backends): fill @e (zeroed by the caller). Without
	 * it the namespace is its own Endurance Group with no wear to tell.
	 */
	void (*endurance)(struct blox_bdev *bdev, struct blox_bdev_endurance *e);
	/*
	 * Optional, all three or none (flash backends): predictable latency.
	 * Without them the namespace's NVM Set has none.
	 * plm_config: enable (into NDWIN; the thresholds only, if enabled
	 * already) or disable it. 0 or -errno.
	 * plm_window: enter @w (DTWIN or NDWIN). 0; -EINVAL when not enabled;
	 * -EAGAIN when a DTWIN may not start yet: *@retry_in_ns says how long
	 * until it may.
	 * plm_query: fill @info (zeroed by the caller); @clear_events: the
	 * events are cleared once read.
	 */
	int (*plm_config)(struct blox_bdev *bdev, const struct blox_bdev_plm_config *cfg);
	int (*plm_window)(struct blox_bdev *bdev, enum blox_plm_window w, uint64_t *retry_in_ns);
	void (*plm_query)(struct blox_bdev *bdev, struct blox_bdev_plm_info *info,
			  bool clear_events);
	/*
	 * Optional: bytes of host memory its data takes now (a RAM backend's
	 * chunks, the pages of a flash store of its own in RAM); none without
	 * it. The capacity checks count what is still to come (prov_cap.c).
	 */
	uint64_t (*mem_bytes)(struct blox_bdev *bdev);
	/*
	 * Optional, both or none: Flexible Data Placement. fdp_info fills @f
	 * (zeroed by the caller) and returns false when the backend has no
	 * handles; fdp_update moves handle @ruh to a fresh reclaim unit: 0,
	 * -EINVAL (no such handle), -ESHUTDOWN.
	 */
	bool (*fdp_info)(struct blox_bdev *bdev, struct blox_bdev_fdp *f);
	int (*fdp_update)(struct blox_bdev *bdev, uint32_t ruh);
	/*
	 * Optional: the NVMe layer's FDP event log, kept with the backend's
	 * metadata (the FTL's checkpoint) so that it is there after a restart.
	 * @save: take @len bytes of @buf (at most BLOX_FDP_LOG_BYTES): 0 or
	 * -errno. Else: copy what it keeps into @buf (@len bytes of room) and
	 * return its length, 0 when it keeps none.
	 */
	int (*fdp_log)(struct blox_bdev *bdev, void *buf, uint32_t len, bool save);
	/* Optional: the backend is zoned (reads, writes and the zone I/O ops keep its zone rules). */
	const struct blox_bdev_zoned_ops *zoned;
	/*
	 * Optional (flash backends): the device loses power and comes back
	 * (blox_bdev_power_cut()). 0 or -errno; -EOPNOTSUPP when it cannot.
	 */
	int (*power_cut)(struct blox_bdev *bdev, struct blox_bdev_power_cut *out);
};

/* A zoned backend's zones (the NVMe Zoned Namespace Command Set), in LBAs. */
struct blox_bdev_zone_info {
	uint64_t zone_size, zone_cap;
	uint32_t nr_zones;
	uint32_t max_open, max_active; /* 0: no limit */
	uint32_t max_append_bytes; /* the most one Zone Append writes */
};

/* One zone, as a Zone Descriptor tells it. */
struct blox_bdev_zone {
	uint8_t state; /* the descriptor's Zone State value (zns.h enum zns_state) */
	uint8_t attrs;
	uint64_t zslba, wp, cap;
};

/* The zoned ops of a backend that has zones: all of them, or none. */
struct blox_bdev_zoned_ops {
	void (*info)(struct blox_bdev *bdev, struct blox_bdev_zone_info *info);
	/*
	 * The zones from the one holding LBA @slba on that @filter (a Zone
	 * Receive Action Specific value) selects: up to @max of them into
	 * @out; returns how many it selects in all. A filter it does not
	 * know selects none.
	 */
	uint32_t (*report)(struct blox_bdev *bdev, uint64_t slba, uint8_t filter,
			   struct blox_bdev_zone *out, uint32_t max);
	/*
	 * The zones it changed by itself (finished, made read only or
	 * offline) after its change count @since: up to @max of their ZSLBAs
	 * into @out, its change count now into *@now; returns how many in all.
	 */
	uint32_t (*changed)(struct blox_bdev *bdev, uint64_t since, uint64_t *now, uint64_t *out,
			    uint32_t max);
};

struct blox_bdev_qos;
struct blox_bdev_home;
struct bdev_hop;

struct blox_bdev {
	const struct blox_bdev_ops *ops;
	uint64_t size; /* bytes, a multiple of block_size */
	uint32_t block_size;
	/*
	 * The unit it writes whole (the nand backend's FTL unit), a multiple
	 * of block_size: a smaller write is a read-modify-write of it, and a
	 * write inside one is atomic. 0: block_size. Zeroed by every backend.
	 */
	uint32_t phys_block_size;
	struct blox_io_cq *cq;
	/* Limits of its namespace (bdev_qos.c), or NULL: none. Zeroed by every backend. */
	struct blox_bdev_qos *qos;
	/*
	 * The reactor it lives on when that is not the NVMe core's (its
	 * device's, bdev_hop.c), or NULL. Set by the create or bind that put
	 * it there; zeroed by every backend.
	 */
	struct blox_bdev_home *home;
	struct bdev_hop *hop;
	/*
	 * Its write cache is protected against power loss (the nand backend
	 * with plp_ms): Identify tells the host there is no volatile write
	 * cache. Zeroed by every backend.
	 */
	bool power_protected;
};

/*
 * Homes: a reactor other than the NVMe core's (reactor 0), where NAND
 * devices and the backends on them live (device, real-time driver, FTLs,
 * their events and completions). The core hands a backend at home there
 * its commands over the reactors' rings and gets the completions back the
 * same way (two messages each); whatever else it asks of it (telemetry,
 * features, migrations, create and destroy) runs there while the core's
 * reactor waits (blox_reactor_call()): all of it from the core's reactor.
 */
struct blox_reactor;

/* A home on @r for backends the core on @core uses. 0 or -errno. */
int blox_bdev_home_create(struct blox_reactor *r, struct blox_reactor *core,
			  struct blox_bdev_home **out);
/* No backend lives there any more. */
void blox_bdev_home_destroy(struct blox_bdev_home *h);
/* Its reactor's index. */
unsigned blox_bdev_home_reactor(const struct blox_bdev_home *h);
/* Run fn(arg) there, from the core's reactor, and wait for it (@h NULL: here, at once). */
void blox_bdev_home_call(struct blox_bdev_home *h, void (*fn)(void *arg), void *arg);

/* From the core: @io to @bdev's home, its completion back here (bdev_hop.c). */
void blox_bdev_hop_submit(struct blox_bdev *bdev, struct blox_io *io);

/* @io to the backend itself, past any limits: at home, or over there. */
static inline void blox_bdev_pass(struct blox_bdev *bdev, struct blox_io *io)
{
	if (bdev->home)
		blox_bdev_hop_submit(bdev, io);
	else
		bdev->ops->submit(bdev, io);
}

/*
 * The optional ops, from the core, wherever the backend lives (at its
 * home, waiting for it): what the op says, or, without the op, nothing
 * done (telemetry and endurance: false; the plm calls: -EOPNOTSUPP;
 * mem_bytes: 0). Telemetry's pointers then point at copies that stay
 * until the next telemetry call on @bdev.
 */
void blox_bdev_set_write_cache(struct blox_bdev *bdev, bool on);
bool blox_bdev_telemetry(struct blox_bdev *bdev, struct blox_bdev_telemetry *t);
bool blox_bdev_endurance(struct blox_bdev *bdev, struct blox_bdev_endurance *e);
bool blox_bdev_has_plm(const struct blox_bdev *bdev);
/* The backend's fdp_log op (at its home): -EOPNOTSUPP without one. */
int blox_bdev_fdp_log(struct blox_bdev *bdev, void *buf, uint32_t len, bool save);
int blox_bdev_plm_config(struct blox_bdev *bdev, const struct blox_bdev_plm_config *cfg);
int blox_bdev_plm_window(struct blox_bdev *bdev, enum blox_plm_window w, uint64_t *retry_in_ns);
void blox_bdev_plm_query(struct blox_bdev *bdev, struct blox_bdev_plm_info *info,
			 bool clear_events);
uint64_t blox_bdev_mem_bytes(struct blox_bdev *bdev);
/* Flexible Data Placement: false (nothing filled) / -EOPNOTSUPP without handles. */
bool blox_bdev_fdp_info(struct blox_bdev *bdev, struct blox_bdev_fdp *f);
int blox_bdev_fdp_update(struct blox_bdev *bdev, uint32_t ruh);
/*
 * Power loss and power-up, at @bdev's home: whatever the backend was told
 * is durable stays; its volatile write cache and the flash ops in flight
 * are lost (programs cut in their array phase are torn); then it is built
 * again from flash, as after a crash, and takes commands again. Commands
 * it held fail. -EOPNOTSUPP for a backend without it.
 */
int blox_bdev_power_cut(struct blox_bdev *bdev, bool check_only, struct blox_bdev_power_cut *out);
/*
 * Whether @bdev could lose power (0, or -errno with out->refused), cutting
 * nothing: alone, or (@with_device) with its whole device. A vSSD with
 * power-loss protection on a registered device is cut only with it.
 */
int blox_bdev_power_cut_check(struct blox_bdev *bdev, bool with_device,
			      struct blox_bdev_power_cut *out);
/* Zoned backends: false (and nothing filled) for a backend without zones. */
bool blox_bdev_zone_info(struct blox_bdev *bdev, struct blox_bdev_zone_info *info);
/* Its report (blox_bdev_zoned_ops.report), wherever it lives; 0 without zones. */
uint32_t blox_bdev_zone_report(struct blox_bdev *bdev, uint64_t slba, uint8_t filter,
			       struct blox_bdev_zone *out, uint32_t max);
/* Its zones it changed by itself (blox_bdev_zoned_ops.changed), wherever it lives; 0 without zones. */
uint32_t blox_bdev_zone_changed(struct blox_bdev *bdev, uint64_t since, uint64_t *now,
				uint64_t *out, uint32_t max);

struct nand_config;
struct ftl_config;
struct blox_nand_dev;
struct blox_clock;
struct blox_log;

/* Parameters common to the backends built into the daemon. */
struct blox_bdev_params {
	const char *backend; /* "ram", "null", "nand", "nand-timing" or "zns" */
	uint64_t size;
	uint32_t block_size;
	/* nand, nand-timing: the device model, and the loop and clock that drive it. */
	const struct nand_config *nand;
	/* nand: the FTL's settings and the store file (NULL: RAM store). */
	const struct ftl_config *ftl;
	const char *store_path;
	/*
	 * nand on a device of its own: faults on demand for its dies (erase,
	 * program, die fail, die offline: nand_dev_set_faults()) are those of
	 * @faults for device name @fault_name; NULL: none.
	 */
	struct blox_fault_reg *faults;
	const char *fault_name;
	/*
	 * nand on a registered device: exactly the dies @dies[0..@nr_dies)
	 * of it (global die indexes, at most the FTL's BLOX_FTL_MAX_DIES), blocks [@first_block, @first_block + @nr_blocks) of each
	 * plane (@nr_blocks 0: every block). @nand and @store_path are then
	 * the device's, not used here.
	 */
	struct blox_nand_dev *shared;
	const uint32_t *dies;
	uint32_t nr_dies;
	uint32_t first_block, nr_blocks;
	/*
	 * nand on a registered device: its dies are a pool shared with other
	 * namespaces (each on its own block range), so their wear is shared
	 * too; false: the dies are this namespace's alone.
	 */
	bool shared_pool;
	/*
	 * nand on a registered device: a die migration to resume, as it was
	 * persisted (its mig_* fields; dies above are as ftl_get_resources()
	 * gave them), or NULL.
	 */
	const struct ftl_resources *mig;
	/* nand on a registered device: its tenant there (1..63), for the dies' fair sharing. */
	uint32_t tenant;
	/*
	 * zns (a zoned namespace on NAND, no FTL: the same device and store
	 * parameters as nand, @ftl unused): the zone size in bytes (0: the
	 * smallest power of two that holds a zone), Max Open and Max Active
	 * Resources (0: no limit). Its size: @size, rounded down to whole
	 * zones, at most one zone per block of its block range (0: that many).
	 */
	uint64_t zone_size;
	uint32_t max_open, max_active;
	/*
	 * nand on a device of its own: the home it is made on and lives on
	 * (@base and the cq given are then the home's), or NULL: the core's.
	 * On a registered device: the device's home, whatever this says.
	 */
	struct blox_bdev_home *home;
	struct event_base *base;
	const struct blox_clock *clock;
	const struct blox_log *log;
};

/* Create a backend by name. -EINVAL for unknown names or bad geometry. */
int blox_bdev_create(const struct blox_bdev_params *p, struct blox_io_cq *cq,
		     struct blox_bdev **out);
void blox_bdev_destroy(struct blox_bdev *bdev);

/* A command held to its namespace's limits, passed on when they allow (bdev_qos.c). */
void blox_bdev_qos_submit(struct blox_bdev *bdev, struct blox_io *io);

static inline void blox_bdev_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	if (bdev->qos)
		blox_bdev_qos_submit(bdev, io);
	else
		blox_bdev_pass(bdev, io);
}

struct qos_limits;
struct blox_clock;

/* What a backend's limits have done since they were set. */
struct blox_bdev_qos_stats {
	uint64_t admitted[3], held[3]; /* by direction: read, write, other */
	uint32_t waiting, max_waiting; /* commands held now, and at most */
	uint64_t wait_ns; /* summed time commands spent held */
	/*
	 * Per bucket (enum qos_bucket_id), the time it was full: what its limit
	 * allowed went unused. full_held_ns: of that (summed over the buckets),
	 * the time while commands were held, i.e. the timer came later than
	 * the burst lasts (bloxd off its CPU); the rest is time the namespace
	 * did not ask for as much as its limit.
	 */
	uint64_t full_ns[6];
	uint64_t full_held_ns;
};

/*
 * Limits for @bdev's commands (IOPS and bytes/s, reads, writes, both, a
 * burst: qos.h), at once: a command over a limit waits, in arrival order,
 * and is passed on by a timer on @base when the limits allow; it is never
 * failed for it. All zero: no limits (commands held go at once). 0 or
 * -ENOMEM.
 */
int blox_bdev_qos_set(struct blox_bdev *bdev, const struct qos_limits *lim,
		      struct event_base *base, const struct blox_clock *clock);
/* The limits now (zero when none) and what they did; false when none were ever set. */
bool blox_bdev_qos_get(const struct blox_bdev *bdev, struct qos_limits *lim,
		       struct blox_bdev_qos_stats *st);

int blox_bdev_ram_create(const struct blox_bdev_params *p,
			 struct blox_io_cq *cq, struct blox_bdev **out);
int blox_bdev_null_create(const struct blox_bdev_params *p,
			  struct blox_io_cq *cq, struct blox_bdev **out);
/*
 * Timing-only NAND backend: data lives in RAM as with "ram", and every
 * read and write is delayed by the NAND engine as the flash pages it
 * touches would be (a fixed striping of pages across dies, no FTL).
 */
int blox_bdev_nand_create(const struct blox_bdev_params *p,
			  struct blox_io_cq *cq, struct blox_bdev **out);
/*
 * NAND backend with an FTL: every LBA goes through the FTL onto emulated
 * flash kept in a sparse file (or RAM). 4096-byte blocks, or 512-byte
 * ones on its 4 KiB units (read-modify-write of partial units); the size
 * a multiple of 4096 either way.
 */
int blox_bdev_ftl_create(const struct blox_bdev_params *p,
			 struct blox_io_cq *cq, struct blox_bdev **out);
/*
 * Zoned namespace straight on NAND (no FTL; bdev_zns.h): zones of blocks
 * striped over its dies, 4096-byte blocks, the zone parameters of @p.
 * Its size is whole zones (blox_bdev.size may differ from @p->size).
 * Recovers the write pointers from the pages' OOB at once (store I/O).
 */
int blox_bdev_zns_create(const struct blox_bdev_params *p, struct blox_io_cq *cq,
			 struct blox_bdev **out);
/*
 * The same in two steps, so that its slow start (store file, FTL format
 * or recovery: synchronous store I/O) can run off the loop:
 * blox_bdev_ftl_prepare() touches neither the loop nor anything shared
 * (a device of its own only, not p->shared; p->base unused) and may run
 * on any thread; blox_bdev_ftl_bind() then binds the backend to @base,
 * on the loop's thread. Until bound it takes no I/O; it may be destroyed.
 */
int blox_bdev_ftl_prepare(const struct blox_bdev_params *p, struct blox_bdev **out);
int blox_bdev_ftl_bind(struct blox_bdev *bdev, struct event_base *base,
		       struct blox_io_cq *cq);
/* The same onto @home (NULL: onto @base and @cq, the core's), from the core. */
int blox_bdev_ftl_bind_home(struct blox_bdev *bdev, struct blox_bdev_home *home,
			    struct event_base *base, struct blox_io_cq *cq);
/*
 * Unbind a "nand" backend on a device of its own from the loop (on the
 * loop's thread, with no I/O in flight), so that blox_bdev_destroy() may
 * run on any thread: the destroy then drives the device to the end of the
 * FTL's clean stop by itself. false (nothing done) for any other backend.
 */
bool blox_bdev_ftl_unbind(struct blox_bdev *bdev);
/*
 * Die migrations of a "nand" backend (ftl.h, ftl_migrate_*), on the loop:
 * move its die @from_die to @to_die (of the same device, erased in its
 * block range) while it serves I/O, at @share permille of the dies' time.
 * 0, -ENOENT (not its die), -EOPNOTSUPP (not a nand backend), or what
 * ftl_migrate_start() says.
 */
int blox_bdev_ftl_migrate(struct blox_bdev *bdev, uint32_t from_die, uint32_t to_die,
			  uint32_t share);
enum blox_mig_ctl {
	BLOX_MIG_PAUSE,
	BLOX_MIG_RESUME,
	BLOX_MIG_CANCEL,
	BLOX_MIG_SHARE, /* a new throttle, @share */
};
int blox_bdev_ftl_migrate_ctl(struct blox_bdev *bdev, enum blox_mig_ctl what, uint32_t share);
/*
 * A GC storm on a "nand" backend (ftl_gc_storm(), at its home): GC takes
 * @superblocks victims now, or runs for @duration_ns. 0 or -EOPNOTSUPP
 * (another backend, or 512-byte blocks over the FTL).
 */
int blox_bdev_ftl_gc_storm(struct blox_bdev *bdev, uint32_t superblocks, uint64_t duration_ns);
/* Its migration's progress and its resources now (either may be NULL). */
int blox_bdev_ftl_migrate_progress(struct blox_bdev *bdev, struct ftl_migrate_progress *out,
				   struct ftl_resources *res);
/*
 * A NAND device (store, engine, real-time driver) that several "nand"
 * namespaces share, each on its own dies. Named, so that it can be
 * registered and looked up. Reference counted: every namespace on it
 * holds a reference, and so does a registry that lists it.
 */
int blox_nand_dev_open(const char *name, const struct nand_config *nand,
		       const char *store_path, struct event_base *base,
		       const struct blox_clock *clock, struct blox_nand_dev **out);
/*
 * The same, made on @home and living there (NULL: on @base, the core's);
 * the namespaces on it live there too. Every blox_nand_dev_*() call below
 * and the last put are made from the core and run there.
 */
int blox_nand_dev_open_home(const char *name, const struct nand_config *nand,
			    const char *store_path, struct blox_bdev_home *home,
			    struct event_base *base, const struct blox_clock *clock,
			    struct blox_nand_dev **out);
/* Its home, or NULL: the core's reactor. */
struct blox_bdev_home *blox_nand_dev_home(const struct blox_nand_dev *d);
void blox_nand_dev_get(struct blox_nand_dev *d);
void blox_nand_dev_put(struct blox_nand_dev *d);
/*
 * Power loss of a whole registered device @nd and power-up, at its home:
 * @bdevs (@n "nand" and "zns" vSSDs on it, each checked first as by
 * blox_bdev_power_cut(): nothing is cut if one is refused, -EOPNOTSUPP or
 * -EBUSY with that one's outs[i].refused) all lose power before any is
 * rebuilt; outs[i] says what each lost. With vSSDs with power-loss
 * protection on it one hold-up for the device, the longest plp_ms: the
 * unprotected lose power at once, every protected one's buffer goes to
 * flash in it, then they lose power too. -EINVAL for a backend not on @nd.
 */
int blox_nand_dev_power_cut(struct blox_nand_dev *nd, struct blox_bdev *const *bdevs, uint32_t n,
			    struct blox_bdev_power_cut *outs);
const char *blox_nand_dev_name(const struct blox_nand_dev *d);
/* References held: 1 + the namespaces on it, when registered. */
uint32_t blox_nand_dev_refs(const struct blox_nand_dev *d);
/* Its NAND configuration. */
const struct nand_config *blox_nand_dev_nand_config(const struct blox_nand_dev *d);
/* Its erases and programs fail as faults in @reg for its name say (nand_dev_set_faults()). */
struct blox_fault_reg;
void blox_nand_dev_set_faults(struct blox_nand_dev *d, struct blox_fault_reg *reg);
/* Bytes of host memory its pages take now: 0 for a store file. */
uint64_t blox_nand_dev_mem_bytes(const struct blox_nand_dev *d);
/*
 * Its dies held offline whose die-offline fault is no longer listed come
 * back now (replaced, empty: nand_die_offline()), on its home, whether or
 * not a namespace uses them; one in use is found back by its user as
 * before. Else a cleared die nobody asks about stays offline, and is
 * listed again at the next start.
 */
void blox_nand_dev_offline_check(struct blox_nand_dev *d);
/*
 * Erase, on the store at once (not timed), every programmed block of
 * blocks [@first_block, @first_block + @nr_blocks) of every plane of dies
 * @dies[0..@nr), then make it durable: flash given back or handed to a new
 * owner holds nothing of the old one. Only while no namespace uses those
 * blocks. 0 or -errno.
 */
int blox_nand_dev_erase(struct blox_nand_dev *d, const uint32_t *dies, uint32_t nr,
			uint32_t first_block, uint32_t nr_blocks);
/*
 * A registered device shares its dies and channels among the tenants of
 * its namespaces by weight (deficit round robin per die and class, qos/):
 * set tenant @tenant's weight (1..1000), at once. -EINVAL, -EOPNOTSUPP (a
 * device of one namespace).
 */
int blox_nand_dev_set_weight(struct blox_nand_dev *d, uint32_t tenant, uint32_t weight);
/* Array time the device's dies gave tenant @tenant so far (ns). */
uint64_t blox_nand_dev_tenant_ns(const struct blox_nand_dev *d, uint32_t tenant);
/* Every die's erases (the sum of its blocks' erase counts), nand_dies() entries. */
void blox_nand_dev_die_erases(const struct blox_nand_dev *d, uint64_t *out);
/* Its engine's per-die statistics (host and internal ops served) now, into @out. */
void blox_nand_dev_die_stats(const struct blox_nand_dev *d, uint32_t die,
			     struct nand_die_stats *out);

/*
 * Devices by name. The registry holds a reference to each device it
 * lists; a device is in at most one registry.
 */
struct blox_dev_registry {
	TAILQ_HEAD(, blox_nand_dev) devs;
};

void blox_dev_registry_init(struct blox_dev_registry *r);
/* Drop every device (the registry's references). */
void blox_dev_registry_fini(struct blox_dev_registry *r);
/* List @d under its name, taking a reference. -EEXIST if the name is taken. */
int blox_dev_register(struct blox_dev_registry *r, struct blox_nand_dev *d);
/* Take @d off the list, dropping the registry's reference. */
void blox_dev_unregister(struct blox_dev_registry *r, struct blox_nand_dev *d);
struct blox_nand_dev *blox_dev_find(const struct blox_dev_registry *r, const char *name);

#endif
