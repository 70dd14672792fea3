/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nand/: an emulated NAND flash device. Real geometry (channels, dies,
 * planes, blocks, pages), a backing store for page data and OOB behind an
 * ops table, flash rules enforced (program erased pages in order, erase
 * whole blocks), and a discrete-event timing engine: per-die priority
 * queues, a shared bus per channel, program/erase suspension, and
 * completions delivered by nand_advance() at their modeled time.
 *
 * The engine knows no clock: the caller says what time it is. The daemon
 * drives it from a real-time loop; tests and simulators from a virtual
 * clock, event to event (nand_next_event() / nand_advance()).
 */
#ifndef BLOX_NAND_H
#define BLOX_NAND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "blox_hist.h"

/* ---- geometry ---- */

enum nand_cell {
	NAND_SLC = 1,
	NAND_MLC = 2,
	NAND_TLC = 3,
	NAND_QLC = 4,
};

struct nand_geometry {
	uint32_t channels;
	uint32_t dies_per_channel; /* chips (one die each) per channel */
	uint32_t planes_per_die;
	uint32_t blocks_per_plane;
	uint32_t pages_per_block;
	uint32_t page_size; /* bytes of data per page */
	uint32_t oob_size; /* bytes of out-of-band area per page */
	enum nand_cell cell;
};

/* A physical page address. Blocks are numbered per plane. */
struct nand_addr {
	uint32_t ch, die, plane, block, page;
};

/* Fill @g with defaults: 8 ch x 4 dies x 2 planes x 64 blocks x 384 pages, 16 KiB + 1 KiB, TLC. */
void nand_geometry_default(struct nand_geometry *g);
/* 0, or -EINVAL with a reason in @why when a field is zero or too large. */
int nand_geometry_check(const struct nand_geometry *g, const char **why);
uint32_t nand_dies(const struct nand_geometry *g);
uint64_t nand_blocks(const struct nand_geometry *g); /* whole device */
uint64_t nand_pages(const struct nand_geometry *g); /* whole device */
uint64_t nand_capacity(const struct nand_geometry *g); /* bytes of data */

/* Bounds check. */
bool nand_addr_valid(const struct nand_geometry *g, const struct nand_addr *a);
/*
 * Dense integer forms (mixed radix, page fastest): a page index in
 * [0, nand_pages) and a block index in [0, nand_blocks). Inverse of each
 * other for valid input.
 */
uint64_t nand_page_index(const struct nand_geometry *g, const struct nand_addr *a);
void nand_page_addr(const struct nand_geometry *g, uint64_t idx, struct nand_addr *a);
uint64_t nand_block_index(const struct nand_geometry *g, const struct nand_addr *a);
uint32_t nand_die_index(const struct nand_geometry *g, const struct nand_addr *a);
/* Page type within its block (0 = LSB, 1 = CSB, 2 = MSB, 3 = TSB). */
uint32_t nand_page_type(const struct nand_geometry *g, uint32_t page);

/* ---- timing ---- */

struct nand_timing {
	uint64_t t_read_ns[4]; /* array read per page type */
	uint64_t t_prog_ns[4]; /* array program per page type */
	uint64_t t_erase_ns;
	uint64_t bus_mbps; /* channel bandwidth, MB/s (10^6 bytes) */
	uint64_t t_cmd_ns; /* bus time for a command/address cycle */
	uint64_t t_suspend_ns, t_resume_ns;
	bool null_timing; /* every op completes at its submit time */
};

/* Literature defaults per cell type (TLC: tR 56/65/74 us, tPROG 1.2/2/3 ms, tBERS 10 ms by page type). */
void nand_timing_default(struct nand_timing *t, enum nand_cell cell);

/* ---- backing store ---- */

struct nand_store;

/* Per-block state kept with the data. */
struct nand_block_meta {
	uint32_t erase_count;
	uint32_t write_ptr; /* next page to program; pages_per_block when full */
	uint32_t erase_suspends; /* extra wear: erase suspensions seen */
	uint32_t flags; /* NAND_BLOCK_* */
};

/*
 * A grown bad block: an erase or a program of it failed (reliability on, or
 * a program failure forced by nand_fail_programs()). Programs and erases of
 * it fail at submit; its pages programmed before stay readable, so that
 * their data can be moved out.
 */
#define NAND_BLOCK_BAD 0x1u
/*
 * Its die is offline (nand_die_set_offline(), a die-offline fault): kept
 * by the store so that the die stays gone across a restart; the stores
 * refuse to read or program such a block (-ENODEV).
 */
#define NAND_BLOCK_OFFLINE 0x2u
/*
 * Bad from the factory (nand_config.factory_bad_ppm): NAND_BLOCK_BAD too.
 * Kept by the store as a drive keeps its factory bad-block table.
 */
#define NAND_BLOCK_FACTORY_BAD 0x4u
/*
 * A spare block standing in for a bad one of its plane (the FTL's remap,
 * ftl/remap.c): bits 8..31 of flags hold the block number (within the
 * plane) it stands in for, plus one; 0: none. Kept by the store with the
 * block's meta, so that a restart or a power cut finds the remap.
 */
#define NAND_BLOCK_SPARE_SHIFT 8
#define NAND_BLOCK_SPARE_OF(flags) ((flags) >> NAND_BLOCK_SPARE_SHIFT)

/* Counters that persist with the store, per die. */
struct nand_die_counters {
	uint64_t reads, programs, erases;
};

struct nand_store_ops {
	const char *name;
	/* Page data and OOB of a programmed page into @data/@oob (either NULL). */
	int (*read)(struct nand_store *s, uint64_t page, void *data, void *oob);
	/*
	 * @len bytes of a programmed page's data, from byte @off of it, into
	 * @dst (the caller keeps off + len <= page_size): what a read with
	 * segments (nand_op.segs) asks of each segment, so that only the
	 * bytes wanted are moved, straight to where they go.
	 */
	int (*read_part)(struct nand_store *s, uint64_t page, uint32_t off, uint32_t len,
			 void *dst);
	/*
	 * Where the store keeps byte @off of a programmed page's data, readable
	 * in place until the page's block is erased or the store closed; NULL
	 * when it has no such place (a file store without its mapping, an
	 * offline die). Optional (NULL: never).
	 */
	const void *(*peek)(struct nand_store *s, uint64_t page, uint32_t off);
	/*
	 * Store a page's data and OOB (NULL: zeroes) and advance its block's
	 * write pointer (kept durable with the page by the file store).
	 */
	int (*program)(struct nand_store *s, uint64_t page, const void *data,
		       const void *oob);
	/*
	 * Forget every page of a block (freeing its memory or disk space),
	 * count the erase and rewind the write pointer.
	 */
	int (*erase)(struct nand_store *s, uint64_t block);
	/* Persist block meta and counters (file store); 0 for RAM. */
	int (*sync)(struct nand_store *s);
	void (*close)(struct nand_store *s);
};

struct nand_store {
	const struct nand_store_ops *ops;
	struct nand_geometry geo;
	struct nand_block_meta *blocks; /* nand_blocks() entries */
	struct nand_die_counters *dies; /* nand_dies() entries */
	uint64_t pages_stored; /* pages holding data now */
};

/* A store in memory: only programmed pages cost memory. */
int nand_store_ram_open(const struct nand_geometry *g, struct nand_store **out);
/*
 * A sparse file keeping data, OOB, block meta and counters across
 * restarts. Created with @g if missing; if present its geometry must match
 * @g (-EINVAL otherwise). Erased blocks are punched out of the file.
 */
int nand_store_file_open(const char *path, const struct nand_geometry *g,
			 struct nand_store **out);
/*
 * A file store opened just now (nothing programmed through it yet) maps its
 * pages in 2 MiB pages where the kernel keeps the file's page cache in
 * 2 MiB folios (ext4 since Linux 6.16, xfs, a tmpfs mounted huge=): reads
 * skip the TLB misses of a 4 KiB-mapped file of gigabytes; the first write
 * of each 2 MiB region (again after an erase) faults the whole region in.
 * false, and nothing changes, for a RAM store or without a mapping.
 * nand_config.huge_pages.
 */
bool nand_store_file_huge_pages(struct nand_store *s);
/*
 * The most a store of @g takes when every page holds data: the file
 * store's file size (its header, block meta and counters included), and
 * the RAM store's page data and OOB.
 */
uint64_t nand_store_file_bytes(const struct nand_geometry *g);
uint64_t nand_store_ram_bytes(const struct nand_geometry *g);
void nand_store_close(struct nand_store *s);

/* ---- operations ---- */

enum nand_op_kind {
	NAND_OP_READ,
	NAND_OP_PROGRAM,
	NAND_OP_ERASE,
	NAND_OP_KINDS,
};

/* Queue classes on a die, highest priority first. */
enum nand_prio {
	NAND_PRIO_HOST_READ,
	NAND_PRIO_GC_READ,
	NAND_PRIO_HOST_WRITE,
	NAND_PRIO_GC_WRITE,
	NAND_PRIO_ERASE,
	NAND_PRIOS,
};

struct nand_op;
typedef void (*nand_op_cb)(struct nand_op *op);
/* A device's pins on its blocks for reads lent in place (nand/lend.c). */
struct nand_lend_tab;

/* A byte range of a page's data and where it goes (nand_op.segs). */
struct nand_seg {
	uint32_t off, len; /* len > 0, off + len <= page_size */
	void *dst;
};

/* Segments one read may carry at most. */
#define NAND_MAX_SEGS 64u

struct nand_op {
	/* Set by the submitter. */
	enum nand_op_kind kind;
	enum nand_prio prio;
	/*
	 * Whose op it is (0: the default tenant): the FTL instance, i.e. the
	 * vSSD, that submitted it. Ignored unless nand_config.sched has
	 * tenants; then below sched.ntenants (else -EINVAL from submit).
	 */
	uint32_t tenant;
	struct nand_addr addr; /* plane ignored for multi-plane ops */
	uint32_t nplanes; /* 1, or planes_per_die for a multi-plane op */
	uint32_t xfer_bytes; /* bus bytes per plane; 0 = whole page */
	/*
	 * Data and OOB per plane, laid out plane after plane
	 * (page_size / oob_size apart). NULL for timing-only ops, which
	 * touch neither the store nor the flash rules.
	 */
	void *data;
	void *oob;
	/*
	 * READ of one plane, not timing-only: byte ranges of the page's data
	 * copied to their dst when the op completes, besides @data if that is
	 * set too (usually it is NULL: only the segments move, and the OOB only
	 * if @oob is set). An erased page fills each with 0xff. Up to
	 * NAND_MAX_SEGS; anything else is -EINVAL from nand_submit(). The
	 * array is read at completion, so it lives as long as the op.
	 */
	const struct nand_seg *segs;
	uint32_t nsegs;
	/*
	 * READ with one segment: the engine may lend the bytes where the store
	 * keeps them instead of copying them to the segment's dst (which is
	 * then left untouched): @lent points at them and their block is pinned
	 * (@lent_block) until nand_unpin(); an erase of a pinned block is held
	 * until its pins are gone. Done only when the read succeeded and the
	 * store can (nand_store_ops.peek), never with null timing.
	 */
	bool lend;
	bool timing_only;
	nand_op_cb cb;
	void *cb_arg;
	/* Results. */
	int status; /* 0 or -errno */
	bool erased; /* READ: the page was never programmed (data is 0xff) */
	uint64_t submit_ns, start_ns, done_ns;
	uint32_t suspends; /* times this op was suspended */
	uint32_t retries; /* READ, reliability on: read retries it took */
	bool uncorrectable; /* READ: past the last retry (status -EIO) */
	const void *lent; /* READ with @lend: the segment's bytes, lent; NULL: copied */
	struct nand_lend_tab *lent_tab; /* and what to give them back to (nand_unpin()) */
	uint64_t lent_block;
	/* Engine private. */
	uint32_t phase;
	uint64_t phase_end, remaining_ns, last_resume_ns, array_ns;
	struct nand_op *mp_next; /* next op of a multi-plane group it leads */
	TAILQ_ENTRY(nand_op) link;
	TAILQ_ENTRY(nand_op) tlink; /* in its tenant's queue (tenants on) */
};

/* ---- suspension policy ---- */

struct nand_suspend_query {
	enum nand_op_kind running; /* PROGRAM or ERASE */
	enum nand_prio running_prio; /* its queue class (host write, GC write, erase) */
	uint32_t die; /* global die index (nand_die_index()), for per-die policy inputs */
	uint64_t elapsed_ns, total_ns; /* of the running op's array time */
	uint32_t suspends; /* of the running op so far */
	enum nand_prio waiting; /* best priority waiting */
	uint32_t reads_waiting;
	uint64_t now_ns;
	/*
	 * A policy that says no may set *ask_again_ns to a later time of the
	 * op's array phase: the engine asks again then, without a new read
	 * arriving (a policy that paces suspensions over the op). Left 0:
	 * asked again only when a read comes or the op resumes.
	 */
	uint64_t *ask_again_ns;
};

struct nand_suspend_policy {
	const char *name;
	/* Suspend the running op to serve waiting reads? Called often: cheap. */
	bool (*should_suspend)(void *ctx, const struct nand_suspend_query *q);
	void *ctx;
};

/* Suspend for host reads unless the op is more than @ctx fraction done. */
struct nand_suspend_default_cfg {
	double max_progress; /* e.g. 0.9 */
};
extern const struct nand_suspend_policy nand_suspend_never;
extern const struct nand_suspend_policy nand_suspend_always;
void nand_suspend_default(struct nand_suspend_policy *p,
			  const struct nand_suspend_default_cfg *cfg);

/* ---- sharing a die among tenants ---- */

#define NAND_MAX_TENANTS 64

/*
 * A pluggable scheduler among tenants (nand_op.tenant). Priority classes
 * stay strict: the engine takes the best class with anything queued on a
 * die and, inside it, asks pick() whose op starts next; each tenant's ops
 * keep their order (FIFO per tenant and class). Multi-plane partners join
 * their lead's op only from the same tenant and are not asked about (the
 * group takes one array time, the lead's, which is what was charged).
 *
 * pick(): @cost_ns[t] is the array time (ns, by kind and page type) of
 * tenant t's oldest op of class @cls on die @die (global index), or
 * UINT64_MAX when t has none there (@ntenants entries); returns the tenant
 * whose op starts now (the engine starts it at once, so the scheduler may
 * charge it). An answer that names no waiting tenant falls back to the
 * oldest op of the class (counted in nand_stats.sched_fallbacks).
 * pick_bus(): the same for a channel @ch: among the dies waiting for the
 * bus with an op of class @cls (the best class waiting), whose transfer
 * goes next; @cost_ns[t] is the bus time of the oldest waiting of tenant t.
 * Either may be NULL: first come, first served (today's order).
 *
 * ntenants 0 (the default): no tenant bookkeeping at all, nand_op.tenant
 * ignored, pick and pick_bus must be NULL. ntenants > 0 with both NULL:
 * the order of ntenants 0, with per-tenant telemetry (nand_tenant_stats()).
 * Called from nand_advance() (never from nand_submit()); must not submit.
 *
 * group_from (0, the default: every class strict across tenants, as
 * above): classes group_from..NAND_PRIOS-1 form one group. When the best
 * class waiting is in it, every tenant with anything queued in the group
 * is a candidate, with the cost of its best op there (its best class,
 * oldest first), and pick()/pick_bus() are asked with cls = group_from:
 * strict order inside each tenant, weights across tenants. Classes above
 * the group stay strict before it. With NAND_PRIO_GC_READ, host reads
 * still go first, and the rest (GC, host writes, erases) is shared by
 * weight: otherwise one tenant's host writes always pass another's GC
 * writes, so a tenant whose GC lags cannot have its share.
 */
struct nand_sched {
	const char *name;
	uint32_t ntenants; /* tenant ids 0..ntenants-1; at most NAND_MAX_TENANTS */
	uint32_t group_from; /* 0, or the first class of the weighted group (< NAND_PRIOS) */
	int (*pick)(void *ctx, uint32_t die, enum nand_prio cls, const uint64_t *cost_ns,
		    uint32_t ntenants);
	int (*pick_bus)(void *ctx, uint32_t ch, enum nand_prio cls, const uint64_t *cost_ns,
			uint32_t ntenants);
	void *ctx;
};

/* ---- device ---- */

/* ---- reliability (reliability.c) ---- */

/*
 * Flash that wears: a raw bit error rate from the block's P/E cycles, the
 * data's age and the block's reads since its erase (reliability.c says
 * where the model comes from), sampled per ECC codeword on each read; a
 * read whose errors the ECC cannot correct is retried with shifted
 * reference voltages (each retry one more array read and transfer), and
 * past the last retry the page is uncorrectable (the read fails with
 * -EIO, and so does every read of that page until its block is erased;
 * a read of the OOB alone, metadata under a stronger code, never fails).
 * Off by default: flash then never fails. Reads of each block since its
 * erase and the time its first page was programmed live in memory: a new
 * device (a restart) starts them again.
 */
struct nand_reliability {
	bool enabled;
	uint64_t seed; /* of the error samples: the same seed and ops, the same errors */
	uint32_t codeword_bytes; /* data per ECC codeword (1024) */
	uint32_t ecc_bits; /* bit errors a codeword's first decode corrects (60) */
	uint32_t retries; /* read-retry steps before a page is uncorrectable (7) */
	double retry_keep; /* of the errors left at each step (0.6) ... */
	double retry_floor; /* ... never below this share of them (0.4) */
	double aging; /* the data's age runs this much faster than the clock (1) */
	/*
	 * Chance an erase of a fresh block fails (1e-6), growing with wear as
	 * the RBER's wear term does; a block that fails is bad from then on
	 * (NAND_BLOCK_BAD, kept by the store).
	 */
	double erase_fail;
	/*
	 * Chance a program fails (1e-7 on a fresh block), growing with wear as
	 * erase_fail does: the page is not programmed, the block is bad from
	 * then on (NAND_BLOCK_BAD).
	 */
	double program_fail;
	/* RBER = e0 (1 + (C/pe_scale)^pe_exp) + (1 + C/pe_scale)(ret_coef A^ret_exp + rd_coef R^rd_exp) */
	double pe_scale, e0, pe_exp, ret_coef, ret_exp, rd_coef, rd_exp;
};

/* The defaults for @cell (enabled false); reliability.c says what they aim at. */
void nand_reliability_default(struct nand_reliability *r, enum nand_cell cell);
/* 0, or -EINVAL when an enabled model has a setting out of range for @g. */
int nand_reliability_check(const struct nand_reliability *r, const struct nand_geometry *g);
/* The raw bit error rate after @pe cycles, @age_days of retention and @reads reads of the block. */
double nand_rber(const struct nand_reliability *r, uint32_t pe, double age_days, uint64_t reads);
/* Read retries a codeword with @errors bit errors needs; UINT32_MAX: uncorrectable. */
uint32_t nand_retries_needed(const struct nand_reliability *r, uint32_t errors);
struct nand_dev;
/* Reliability on: the data on the device now is @ns older (a bake, a shelf); else nothing. */
void nand_reliability_age(struct nand_dev *dev, uint64_t ns);

struct nand_config {
	struct nand_geometry geo;
	struct nand_timing timing;
	struct nand_suspend_policy policy;
	uint32_t max_suspends_per_op; /* mechanism cap */
	uint32_t max_reads_per_suspend; /* then resume, so writes are not starved */
	uint64_t min_progress_ns; /* array time an op runs between suspensions */
	/*
	 * When a single-plane program (or erase) starts on a die, programs
	 * (erases) already queued there for its other planes at the same
	 * block and page join it as one multi-plane op: one array time, the
	 * planes' data one after the other on the bus. Nothing waits for a
	 * partner: queues hold them when the die is busy, as on a real
	 * controller. Each op still completes on its own callback.
	 */
	bool multiplane;
	/* The file store on 2 MiB pages (nand_store_file_huge_pages()); off by default. */
	bool huge_pages;
	struct nand_sched sched; /* zero: one tenant, FIFO in each class */
	struct nand_reliability rel; /* off by default; needs a store */
	/*
	 * Blocks bad from the factory, in parts per million of the blocks
	 * (0: none): each block is bad with this chance, drawn from a hash
	 * of rel.seed and its index, so the same seed gives the same blocks;
	 * block 0 of every plane is always good, as datasheets guarantee.
	 * Marked in the store (NAND_BLOCK_BAD | NAND_BLOCK_FACTORY_BAD) when
	 * the device is made; the store keeps them. Needs a store.
	 */
	uint32_t factory_bad_ppm;
};

/* Most factory bad blocks a device may ask for: 10% (datasheets: about 2%). */
#define NAND_FACTORY_BAD_PPM_MAX 100000u

/* Is block @block of @g (nand_block_index()) bad from the factory with @ppm and @seed? */
bool nand_factory_bad(const struct nand_geometry *g, uint64_t block, uint32_t ppm,
		      uint64_t seed);

void nand_config_default(struct nand_config *cfg);

struct nand_dev;

/* @store may be NULL for a timing-only device. The device does not own it. */
int nand_dev_create(const struct nand_config *cfg, struct nand_store *store,
		    struct nand_dev **out);
void nand_dev_destroy(struct nand_dev *dev);
/*
 * Destroy @dev and close @store, the store it was made over: at once, or,
 * while reads it lent are still out (nand_op.lend), when the last of them is
 * given back (nand_unpin(), maybe on another thread), so that no send of
 * one points at a closed store. nand_dev_destroy() instead waits for them
 * (up to a second) and leaves the store to its caller.
 */
void nand_dev_destroy_store(struct nand_dev *dev, struct nand_store *store);
const struct nand_config *nand_dev_config(const struct nand_dev *dev);

/*
 * Queue @op at time @now_ns. Bad addresses and broken flash rules are
 * returned here (-EINVAL, -ERANGE, -EPERM) and no completion follows; on 0
 * the completion comes from a later nand_advance(), never from here.
 */
int nand_submit(struct nand_dev *dev, struct nand_op *op, uint64_t now_ns);
/* Time of the next event, or UINT64_MAX when idle. */
uint64_t nand_next_event(const struct nand_dev *dev);
/*
 * Complete everything due at or before @now_ns and start what can start.
 * Completion callbacks run from here and may submit new ops.
 * Returns the number of ops completed.
 */
uint32_t nand_advance(struct nand_dev *dev, uint64_t now_ns);
/* Ops submitted and not yet completed. */
uint64_t nand_inflight(const struct nand_dev *dev);
/*
 * A fault: the next @n programs that complete on die @die (its index,
 * nand_die_index()) fail with -EIO, as a program failure drawn by the
 * reliability model does: nothing is programmed and the block is bad from
 * then on. Needs a store; the model need not be on. 0 clears the count.
 * -ERANGE for a die out of range, -EINVAL without a store.
 */
int nand_fail_programs(struct nand_dev *dev, uint32_t die, uint32_t n);
/*
 * Faults on demand (blox_fault.h): erases and programs of a die fail when
 * a fault of kind erase-fail or program-fail in @reg for device @name and
 * that die fires (the block is bad then, as when the model fails it), and
 * reads of data (not of the OOB alone) on a die with a die-fail fault
 * that fires fail with -EIO (counted as uncorrectable; the page stays as
 * it was). A die with a die-offline fault is gone: every op that starts
 * on it (a read, the OOB alone too, a program, an erase) fails with
 * -ENODEV at once, touching nothing, as does every op on a die set offline
 * by nand_die_set_offline(); it stays offline (kept by the store) until
 * the fault is cleared (nand_die_offline()). A die the store holds offline
 * is listed in @reg as a die-offline fault (unless one is) so that
 * clearing it brings the die back. Set before the device takes ops; @reg
 * outlives it. NULL: none.
 */
struct blox_fault_reg;
void nand_dev_set_faults(struct nand_dev *dev, struct blox_fault_reg *reg, const char *name);
/*
 * Die @die (its index) offline, or back (die_offline.c): while offline
 * every op that starts on it fails with -ENODEV (nothing read, programmed
 * or erased), and the store keeps it offline (NAND_BLOCK_OFFLINE on each
 * of its blocks, synced), so a device made over the store again starts
 * with it offline. Back, it is a replaced die: every block erased, erase
 * counts and bad blocks reset. -ERANGE for a die out of range, or the
 * store's -errno.
 */
int nand_die_set_offline(struct nand_dev *dev, uint32_t die, bool offline);
/*
 * Whether die @die is offline now. A die a die-offline fault took (or found
 * offline by nand_dev_set_faults()) comes back here, replaced as above,
 * once no die-offline fault for it is listed in the registry: the check
 * a user of the die (an FTL) makes to learn it is back.
 */
bool nand_die_offline(struct nand_dev *dev, uint32_t die);
/* Programs still to fail on die @die (nand_fail_programs()). */
uint32_t nand_programs_to_fail(const struct nand_dev *dev, uint32_t die);

/*
 * Power-loss protection's flush (the hold-up after a power cut): while
 * on, a program queued on a die whose erase is in its array phase
 * suspends that erase at once (tSUSPEND; neither the policy nor the caps
 * are asked: this is the drive's last act), and the suspension serves
 * every read and program queued on the die, in priority order, before
 * the erase resumes (tRESUME). A die already suspended for host reads
 * serves the programs too. A running program is not suspended for
 * another program: a part's program suspension takes reads only (its
 * page register holds the suspended program's data). Off by default;
 * nand_power_cut() turns it off. Turning it on at @now_ns suspends
 * running erases with programs already waiting behind them.
 */
void nand_set_plp_flush(struct nand_dev *dev, bool on, uint64_t now_ns);

/* What a power cut (nand_power_cut()) did. */
struct nand_power_cut_stats {
	uint64_t dropped; /* ops in flight, never completed */
	uint32_t torn; /* programs in their array phase, left torn */
};
/*
 * Power loss (power.c): every op in flight is dropped without a
 * completion (their memory is the caller's again); the device is idle
 * after, and takes new ops as before. @torn: a program in its array phase
 * (running or suspended) leaves its page programmed and torn: half its
 * data, the rest and the OOB erased. An erase cut short leaves its block
 * as it was. 0, or the store's -errno writing a torn page.
 */
int nand_power_cut(struct nand_dev *dev, bool torn, struct nand_power_cut_stats *out);
/*
 * Power loss of one tenant of a shared device (sched.ntenants > 0), the
 * others keeping theirs: its queued ops are dropped without a completion;
 * its ops running on a die (or suspended there) are dropped too, @torn
 * tearing a program in its array phase as nand_power_cut() does, but the
 * die and channel stay busy for the time they had left (a timing-only
 * copy the engine owns runs on and completes into nothing), so the other
 * tenants' ops see the device as before. The tenant's memory is its
 * submitter's again at return. -EINVAL without tenants or for a tenant out
 * of range, -ENOMEM, or the store's -errno writing a torn page.
 */
int nand_power_cut_tenant(struct nand_dev *dev, uint32_t tenant, bool torn,
			  struct nand_power_cut_stats *out);

/* ---- telemetry ---- */

struct nand_die_stats {
	uint64_t busy_ns[NAND_OP_KINDS]; /* array time by kind */
	uint64_t suspend_overhead_ns; /* tSUSPEND + tRESUME paid */
	uint64_t ops[NAND_OP_KINDS];
	uint32_t queued, max_queued;
};

struct nand_channel_stats {
	uint64_t busy_ns;
	uint64_t transfers;
	uint32_t waiting, max_waiting;
};

struct nand_suspend_stats {
	uint64_t suspends[NAND_OP_KINDS]; /* PROGRAM and ERASE used */
	uint64_t resumes[NAND_OP_KINDS];
	uint64_t declined; /* policy said no */
	uint64_t asked_again; /* of those, asked again at the policy's time */
	uint64_t capped; /* mechanism cap said no */
	uint64_t suspended_ns; /* time ops spent suspended */
	uint64_t reads_overtaken; /* reads served during a suspension */
	uint64_t erase_suspend_wear; /* extra wear recorded on blocks */
	/* Power-loss flush (nand_set_plp_flush()): erases it suspended, programs served in them. */
	uint64_t plp_suspends, plp_programs;
};

struct nand_stats {
	struct nand_suspend_stats suspend;
	/* Multi-plane groups formed (by kind) and single-plane ops that joined one. */
	uint64_t mp_groups[NAND_OP_KINDS], mp_joined;
	/* Scheduler calls (die and bus) and answers that named no waiting tenant. */
	uint64_t sched_picks, sched_bus_picks, sched_fallbacks;
	struct blox_hist latency[NAND_OP_KINDS]; /* submit -> completion */
	struct blox_hist lateness; /* delivered minus modeled time */
	uint64_t completed;
	/* Reliability on: reads decoded, those that took retries, retries, uncorrectable ones. */
	struct {
		uint64_t reads, reads_retried, retries, uncorrectable, erase_failures;
		uint64_t program_failures; /* drawn by the model or forced (nand_fail_programs()) */
		uint64_t offline_ops; /* ops failed because their die was offline (-ENODEV) */
		/* Dies gone offline (found so in the store at start too), dies back replaced. */
		uint32_t dies_offline, dies_replaced;
		uint32_t max_errors; /* most bit errors seen in one codeword */
	} rel;
	/* Blocks the store marks bad from the factory (NAND_BLOCK_FACTORY_BAD). */
	uint64_t factory_bad_blocks;
	/*
	 * Reads whose data was lent rather than copied (nand_op.lend), and the
	 * times an erase's end found a read of its block still lent (the erase
	 * held NAND_PIN_RECHECK_NS more each time).
	 */
	uint64_t lent_reads, erases_held;
	/*
	 * The real-time driver's timer, as the driver reports it
	 * (nand_note_wakeup()): how late each of its sleeps ended after the
	 * time it was set for (the host's wake-up latency, or a busy loop),
	 * the wake-ups that came after the event they were set for (that
	 * event's completion then delivered late), and the window the driver
	 * now wakes early by to cover them.
	 */
	struct {
		struct blox_hist wakeup_late;
		uint64_t wakeups_past_event;
		uint64_t window_ns;
	} rt;
};

const struct nand_stats *nand_dev_stats(const struct nand_dev *dev);
/*
 * A lent read's bytes are no longer used (nand_op.lend): its block's pin
 * goes (@t and @block: the op's lent_tab and lent_block). Callable from any
 * thread, also after the device was destroyed (nand_dev_destroy_store()); an
 * erase held on the block goes on at the engine's next look (within
 * NAND_PIN_RECHECK_NS).
 */
void nand_unpin(struct nand_lend_tab *t, uint64_t block);
/* Pins on the device's blocks now (reads lent and not yet unpinned). */
uint64_t nand_pins(const struct nand_dev *dev);
#define NAND_PIN_RECHECK_NS 5000u
/*
 * The real-time driver's report of one wake-up of its timer (nand_stats.rt):
 * @late_ns after the time it was set for, @past_event when that was after
 * the event it was set for, @window_ns the window it wakes early by now.
 */
void nand_note_wakeup(struct nand_dev *dev, uint64_t late_ns, bool past_event,
		      uint64_t window_ns);
const struct nand_die_stats *nand_die_stats(const struct nand_dev *dev,
					    uint32_t die);
const struct nand_channel_stats *nand_channel_stats(const struct nand_dev *dev,
						    uint32_t ch);
const struct nand_block_meta *nand_block_meta(const struct nand_dev *dev,
					      uint64_t block);

/* A tenant's use of one die (nand_config.sched.ntenants > 0). */
struct nand_tenant_stats {
	/*
	 * Array time of its ops started on the die, by kind: what a scheduler
	 * was told they cost (a multi-plane group once, on its lead; an op
	 * suspended and resumed once, whole).
	 */
	uint64_t served_ns[NAND_OP_KINDS];
	uint64_t started[NAND_OP_KINDS]; /* ops started (each op of a group) */
	uint64_t bus_ns; /* channel time of its transfers from or to this die */
	uint32_t queued, max_queued; /* its ops waiting on the die */
};

/* NULL when tenants are off, or @die or @tenant is out of range. */
const struct nand_tenant_stats *nand_tenant_stats(const struct nand_dev *dev, uint32_t die,
						  uint32_t tenant);

#endif
