/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private state of an FTL instance, shared by its files (GC's state and
 * calls are in ftl_gc.h, a die migration's in ftl_mig.h; both included):
 *   layout.c    unit addresses, superblocks, allocation, validity
 *   map.c       GTD and CMT (DFTL), MDC and hot-region glue, lookups
 *   write.c     streams, write buffer, programs, flush and durability
 *   pfail.c     program failures: the failed page kept, its superblock emptied and retired
 *   dieoff.c    a die gone offline: skipped, its units lost, its mappings marked lost;
 *               kept offline across restarts, back (replaced) when the device says
 *   dieoff_tp.c a translation page only on that die, rebuilt from the others' OOB
 *   dieoff_rec.c the record of a die's loss that recovery applies after a crash
 *   remap.c     bad blocks remapped to a spare block of their plane
 *   read.c      the read path
 *   gc.c        garbage collection's driver (gc_internal.h: what its files share):
 *               gc_read.c its reads and pass 1, gc_move.c pass 2, gc_erase.c the erase
 *   gc_policy.c GC levels, victims (and wear leveling), host pacing and GC's credits
 *   recovery.c  checkpoints and the OOB scan (recovery_reopen.c: the streams reopened)
 *   migrate.c   moving one die slot to another die, online
 *   ftl.c       life cycle, submit/process, stats
 *
 * Physical unit numbers (PPN) are the instance's own: superblock sb, then
 * inside it flash pages row by row where a row is one page on every
 * (plane, die) of the instance, dies fastest, and FTL_UNIT slots per page:
 *   ppn = sb * units_per_sb + ((page * stripe + plane * ndies + die) * slots + slot)
 * so consecutive PPNs of a superblock stripe across the dies.
 */
#ifndef BLOX_FTL_INTERNAL_H
#define BLOX_FTL_INTERNAL_H

#include "ftl.h"
#include "ftl_gc.h"
#include "ftl_mig.h"
#include "hot.h"
#include "mdc.h"

#define FTL_TP_ENTRIES (FTL_UNIT / 4) /* mappings per translation page */
#define FTL_CKPT_SBS 2 /* superblocks reserved for checkpoints */
#define FTL_OOB_MAGIC 0x424c4f58u /* "BLOX" */
#define FTL_MAX_SLOTS 16
/* Free superblocks host streams leave to GC and translation pages. */
#define FTL_HOST_RESERVE_SBS 2

enum ftl_unit_kind {
	UK_NONE = 0,
	UK_DATA = 1,
	UK_TP = 2, /* lba field: translation page index */
	UK_CKPT = 3, /* lba field: checkpoint unit index */
	UK_PAD = 4,
	UK_DIEREC = 5, /* a die's loss recorded (dieoff_rec.c); lba field: unit index */
};

/* Per-slot OOB record; a page's OOB holds one per slot after a magic. */
struct ftl_oob_slot {
	uint32_t lba;
	uint32_t kind;
	uint64_t wseq; /* write order: when the unit was written */
	uint64_t dseq; /* data version: the host write's seq, kept by GC */
};

struct ftl_oob {
	uint32_t magic;
	uint32_t nslots;
	struct ftl_oob_slot slot[FTL_MAX_SLOTS];
	/*
	 * FTL_OOB_STREAM_TAG() of the stream that programmed the page, for
	 * recovery to reopen it; 0: a checkpoint page, or a page written
	 * before this field existed (the bytes past slot[] were zero).
	 */
	uint32_t stream;
};

#define FTL_OOB_STREAM_TAG(s) ((uint32_t)(s) + 1u)

enum sb_state {
	SB_FREE,
	SB_OPEN, /* a stream writes into it */
	SB_FULL,
	SB_GC, /* victim being collected */
	SB_ERASING,
	SB_CKPT, /* reserved for checkpoints */
	SB_BAD, /* retired: a block of it failed an erase (a grown bad block) */
};

struct ftl_sb {
	uint8_t state;
	uint16_t buffered; /* write buffer pages of it not free: none, no lookup */
	bool refresh; /* a read of it took many retries: GC moves its data soon */
	uint32_t valid; /* valid units */
	uint32_t erase_count;
	uint64_t closed_ns; /* for cost-benefit ages */
	/*
	 * The reclaim unit handle whose stream opened it (FTL_RUH_NONE: the
	 * common GC stream's, the translation stream's, or no handles); from
	 * the pages' OOB stream tag after a restart.
	 */
	uint8_t ruh;
	uint32_t freed_gen; /* ftl.revivals when it was last erased (dieoff.c) */
};

#define FTL_RUH_NONE 0xffu

enum ftl_stream {
	ST_SEQ,
	ST_RAND,
	ST_GC,
	ST_TP,
	ST_RUH0, /* host writes of reclaim unit handle h: ST_RUH0 + h */
	ST_RUHGC0 = ST_RUH0 + FTL_MAX_RUH, /* GC of handle h (ruh_persistent) */
	ST_COUNT = ST_RUHGC0 + FTL_MAX_RUH,
};

/* A stream of host writes (paced, host priority, behind the reserve). */
static inline bool ftl_host_stream(uint32_t s)
{
	return s == ST_SEQ || s == ST_RAND || (s >= ST_RUH0 && s < ST_RUHGC0);
}

/* A stream GC writes its moves into. */
static inline bool ftl_gc_stream(uint32_t s)
{
	return s == ST_GC || (s >= ST_RUHGC0 && s < ST_COUNT);
}

/* The reclaim unit handle stream @s writes for, or FTL_RUH_NONE. */
static inline uint8_t ftl_stream_ruh(uint32_t s)
{
	if (s >= ST_RUH0 && s < ST_RUHGC0)
		return (uint8_t)(s - ST_RUH0);
	if (s >= ST_RUHGC0 && s < ST_COUNT)
		return (uint8_t)(s - ST_RUHGC0);
	return FTL_RUH_NONE;
}

/* Streams an instance with @cfg may hold open at once (one superblock each). */
static inline uint32_t ftl_streams_used(const struct ftl_config *cfg)
{
	if (!cfg->nr_ruh)
		return 4; /* sequential, random, GC, translation */
	return 2 + cfg->nr_ruh * (cfg->ruh_persistent ? 2u : 1u);
}

enum wbuf_state {
	WB_FREE,
	WB_FILLING,
	WB_PROGRAMMING,
	/*
	 * Its program failed (a grown bad block, pfail.c): kept, as the one
	 * copy of its data, until GC has moved that data out of its superblock.
	 */
	WB_FAILED,
};

/* A flash page being assembled in the write buffer, then programmed. */
struct ftl_wbuf {
	enum wbuf_state state;
	uint32_t fpid; /* flash page: ppn / slots */
	uint32_t used; /* slots filled */
	uint64_t ticket; /* program order, once submitted */
	uint32_t stream; /* enum ftl_stream filling it */
	uint32_t gen; /* bumped each time it is taken for a page */
	/*
	 * A translation-stream page is held (ticketed and on the in-flight
	 * list, not yet submitted) until the data pages holding units its
	 * translation pages map are programmed: those in flight before it,
	 * and those filling when it was full (dep, by generation).
	 */
	bool held;
	/* A data page waiting for its plane partners (ftl_config.plane_groups). */
	bool grouping;
	uint32_t ndeps;
	struct {
		struct ftl_wbuf *wb;
		uint32_t gen;
	} dep[ST_COUNT];
	uint8_t *data;
	struct ftl_oob oob;
	uint8_t *oob_raw; /* oob_size bytes handed to the NAND op */
	struct nand_op op;
	struct ftl *f;
	TAILQ_ENTRY(ftl_wbuf) link; /* free list or in-flight list */
};

struct ftl_streamstate {
	int32_t sb; /* open superblock, -1: none */
	uint32_t next; /* next unit offset inside it */
	struct ftl_wbuf *wb; /* page being filled */
	uint64_t opened_ns; /* now() when it took its superblock (the reclaim unit's time limit) */
};

enum cmt_state {
	CMT_LOADING,
	CMT_READY,
};

struct ftl_cmt {
	uint32_t tp, load_ppn;
	enum cmt_state state;
	bool dirty;
	bool gc_loaded; /* GC brought it in: written back when its batch ends */
	uint32_t *map; /* FTL_TP_ENTRIES PPNs */
	struct nand_seg seg; /* a load: its unit of the flash page, into map */
	struct nand_op op;
	struct ftl *f;
	TAILQ_HEAD(, ftl_io) waiters;
	TAILQ_ENTRY(ftl_cmt) lru;
};

/*
 * A flash read on behalf of a host read (one flash page, some slots): the
 * slots wanted go straight into the host's buffer, one segment per run of
 * slots that is contiguous both in the page and in the buffer.
 */
struct ftl_rd {
	struct nand_op op;
	struct ftl *f;
	struct ftl_io *io;
	uint32_t nslots; /* units read */
	uint32_t nsegs;
	struct nand_seg segs[FTL_MAX_SLOTS];
	TAILQ_ENTRY(ftl_rd) link;
};

/*
 * Predictable latency (plm.c): the window the instance is in, what the
 * current deterministic window may take and has taken, the host's warning
 * thresholds and the events since they were last cleared.
 */
struct ftl_plm {
	enum ftl_plm_window win;
	struct ftl_plm_budget budget; /* of the current DTWIN */
	struct ftl_plm_warn warn;
	uint64_t start_ns; /* the current window's start */
	uint64_t reads, writes; /* host units in the current DTWIN */
	uint64_t reads_left, writes_left; /* DTWIN: the estimates, never rising */
	uint32_t events; /* FTL_PLM_EV_*, until cleared */
	uint32_t warned; /* warnings raised in the current DTWIN */
	bool notify; /* ops->plm_event() is due from ftl_process() */
	uint64_t gc_runs_at_start; /* st.gc_runs when the DTWIN began */
	struct ftl_plm_stats st;
	/* Static figures, from the layout and the NAND timing (plm_figures()). */
	uint64_t reads_typ, writes_floor, time_max_ns, ndwin_lo_ns, ndwin_hi_ns;
	uint64_t read_typ_ns, read_max_dt_ns, read_max_nd_ns, prog_typ_ns, prog_max_ns;
};

struct ftl {
	struct ftl_config cfg;
	struct ftl_env env;
	struct ftl_resources res;
	const struct nand_geometry *geo;

	/* Layout. */
	uint32_t ndies, planes, slots, stripe, pages_per_block;
	uint32_t units_per_sb, nr_sb;
	uint32_t capacity; /* host units */
	uint32_t nr_tp;
	struct ftl_sb *sbs;
	uint64_t *valid; /* bitmap over every PPN */
	uint32_t free_sbs;
	uint32_t refresh_pending; /* superblocks flagged for a refresh */
	uint32_t bad_sbs; /* retired (SB_BAD) */
	/* Die slots gone offline (dieoff.c): never written again, their units lost. */
	bool slot_dead[BLOX_FTL_MAX_DIES];
	uint32_t ndead;
	uint32_t units_live; /* units a superblock holds without them (units_per_sb when none) */
	bool dieoff_wb; /* translation pages a die's loss changed: to write back (dieoff.c) */
	/*
	 * Dies back (replaced, dieoff.c): deaths counts slots gone, slot_death
	 * the count when each went, tp_fixgen the count when each translation
	 * page last had its mappings to dead slots made lost (a mapping to a
	 * slot that went after that is stale); revivals counts dies back,
	 * slot_back the count when each came back: a superblock freed before
	 * (ftl_sb.freed_gen) keeps skipping that slot's pages (a hole).
	 */
	uint32_t deaths, revivals;
	uint32_t slot_death[BLOX_FTL_MAX_DIES], slot_back[BLOX_FTL_MAX_DIES];
	uint32_t *tp_fixgen;
	uint64_t dieoff_poll_ns; /* when the device was last asked whether a die is back */
	/* A die back: its fixes written back, the FTL waits for their programs (revive_ticket). */
	bool revive_wait;
	uint64_t revive_ticket;
	uint32_t pfail_wbufs; /* write buffer pages WB_FAILED (pfail.c) */
	/*
	 * Remap (remap.c), per (superblock, stripe position plane * ndies +
	 * slot): the block number standing in for its own, plus one (0: its
	 * own); its block serves another superblock (given); per superblock:
	 * a donor (retired, its blocks spares).
	 */
	uint32_t *remap;
	uint8_t *given, *donor;

	/* Mapping. */
	uint32_t *gtd; /* translation page -> PPN */
	struct ftl_cmt **cmt_index; /* translation page -> cached entry */
	struct ftl_cmt *cmt_pool;
	uint32_t cmt_cap, cmt_used;
	TAILQ_HEAD(, ftl_cmt) cmt_lru; /* head: least recently used */
	struct ftl_mdc *mdc;
	struct ftl_hot *hot;
	struct {
		bool busy;
		uint32_t tp, fpid;
		uint8_t *page;
		uint64_t *done; /* translation pages prefetched this idle period */
		struct nand_op op;
	} pf;

	/* Writing. */
	uint64_t wseq, dseq;
	struct ftl_streamstate streams[ST_COUNT];
	uint32_t last_write_end; /* stream detection */
	struct ftl_wbuf *wbufs;
	uint32_t nr_wbufs;
	TAILQ_HEAD(, ftl_wbuf) free_wbufs;
	TAILQ_HEAD(, ftl_wbuf) inflight; /* programming, by ticket */
	uint64_t next_ticket, done_through;
	TAILQ_HEAD(, ftl_io) write_wait; /* waiting for buffer space or GC */
	/*
	 * Sequential writes are placed in arrival order: while one waits for
	 * a translation page (seq_blocker), later ones wait behind it
	 * (seq_wait) instead of taking the flash pages after its units.
	 */
	struct ftl_io *seq_blocker;
	TAILQ_HEAD(, ftl_io) seq_wait;
	TAILQ_HEAD(, ftl_io) durable_wait; /* FUA / flush: waiting for programs */

	/* Reading. */
	struct ftl_rd *rds;
	TAILQ_HEAD(, ftl_rd) free_rds;
	TAILQ_HEAD(, ftl_io) read_wait; /* out of read contexts */

	/* Completion and background work. */
	TAILQ_HEAD(, ftl_io) done;
	bool kicked;
	uint64_t last_host_ns;
	struct ftl_gc gc;
	struct ftl_mig mig;
	struct ftl_plm plm;
	uint32_t outstanding; /* host ios in the FTL */

	/*
	 * Start-up (format, recovery, checkpoint) runs with sync_io: pages
	 * go straight to the store, no engine timing, nothing waits.
	 */
	bool sync_io;
	bool power_failing; /* power is gone: the hold-up programs the buffer, GC stops */
	uint64_t ckpt_gen;
	int fatal; /* a program failed: its -errno (-ENOSPC, -EIO...); writes are refused */

	/* Shutdown. */
	void (*shutdown_cb)(void *arg, int status);
	void *shutdown_arg;
	bool shutting_down;

	struct ftl_stats st;
	/* Flexible Data Placement: per handle, then FTL_RUH_NONE's at [FTL_MAX_RUH]. */
	struct ftl_fdp_ctr fdp[FTL_MAX_RUH + 1];
	uint64_t ru_updates[FTL_MAX_RUH];
	uint64_t ru_implicit[FTL_MAX_RUH];
	uint64_t ru_expired[FTL_MAX_RUH]; /* reclaim units closed by the time limit */
	uint32_t fdp_log_len; /* ftl_fdp_log_set()'s block, kept by the checkpoint */
	uint8_t fdp_log[FTL_FDP_LOG_BYTES];
	uint64_t fdp_ev_seq;
	struct ftl_fdp_event fdp_ev[FTL_FDP_EVENTS];
};

/*
 * The lba field of the padding a Reclaim Unit Handle Update programs
 * (UK_PAD's is otherwise 0): recovery keeps a superblock holding it
 * closed.
 */
#define FTL_PAD_RU_CLOSED 0x52554344u /* "DCUR" */

/* The counters of superblock @sb's handle (or of none). */
static inline struct ftl_fdp_ctr *ftl_fdp_of(struct ftl *f, int32_t sb)
{
	uint8_t r = sb >= 0 ? f->sbs[sb].ruh : FTL_RUH_NONE;

	return &f->fdp[r < FTL_MAX_RUH ? r : FTL_MAX_RUH];
}

/* layout.c */
int ftl_layout_init(struct ftl *f);
void ftl_layout_fini(struct ftl *f);
uint32_t ftl_ppn(const struct ftl *f, uint32_t sb, uint32_t off);
uint32_t ftl_ppn_sb(const struct ftl *f, uint32_t ppn);
void ftl_fpid_addr(const struct ftl *f, uint32_t fpid, struct nand_addr *a);
bool ftl_valid_get(const struct ftl *f, uint32_t ppn);
void ftl_valid_set(struct ftl *f, uint32_t ppn);
void ftl_valid_clear(struct ftl *f, uint32_t ppn);
/* Take a free superblock (least worn) for a stream. -1 when none. */
int32_t ftl_sb_alloc(struct ftl *f);
void ftl_sb_freed(struct ftl *f, uint32_t sb);

/* map.c */
int ftl_map_init(struct ftl *f);
void ftl_map_fini(struct ftl *f);
/*
 * Make translation page @tp resident. Returns the entry when ready;
 * NULL when a load was started (or is running): @io then waits on it
 * and is resumed through ftl_io_resume() once it is.
 */
struct ftl_cmt *ftl_cmt_get(struct ftl *f, uint32_t tp, struct ftl_io *io);
/* Mapping of @lba without loading: CMT, then MDC. true when known. */
bool ftl_map_peek(struct ftl *f, uint32_t lba, uint32_t *ppn);
/* Set the mapping of @lba (its translation page must be resident). */
void ftl_map_set(struct ftl *f, struct ftl_cmt *e, uint32_t lba, uint32_t ppn);
/* Write every dirty translation page (flush, checkpoint). */
int ftl_cmt_writeback_all(struct ftl *f);
/* Write translation page @tp back if resident and dirty; false: no room now. */
bool ftl_cmt_writeback_tp(struct ftl *f, uint32_t tp);
/* The ready entry of @tp without touching the LRU order, or NULL. */
struct ftl_cmt *ftl_cmt_resident(struct ftl *f, uint32_t tp);
/* Make @e the first to be evicted (GC is done with a page it loaded). */
void ftl_cmt_demote(struct ftl *f, struct ftl_cmt *e);
bool ftl_cmt_any_dirty(const struct ftl *f);
void ftl_idle_prefetch(struct ftl *f);
void ftl_prefetch_reset(struct ftl *f);

/* write.c */
int ftl_write_init(struct ftl *f);
/* @wb's page is programmed, failed for good, or its data moved: back to the free list. */
void ftl_wb_free(struct ftl *f, struct ftl_wbuf *wb);
void ftl_write_fini(struct ftl *f);
/*
 * Put one unit into a stream's buffer page. Returns its PPN, or
 * FTL_UNMAPPED when no buffer or superblock is free now.
 */
uint32_t ftl_put_unit(struct ftl *f, enum ftl_stream s, uint32_t lba,
		      enum ftl_unit_kind kind, uint64_t dseq, const void *data);
/* The buffer page holding @ppn's data, or NULL once programmed. */
const uint8_t *ftl_buffered(const struct ftl *f, uint32_t ppn);
/* Submit every partly filled page (padding the rest). */
void ftl_close_pages(struct ftl *f);
void ftl_close_stream(struct ftl *f, enum ftl_stream s);
/*
 * Close stream @s's superblock for good (fdp.c's Reclaim Unit Handle
 * Update): its page being filled padded with FTL_PAD_RU_CLOSED, or a page
 * of it when none is being filled. -EAGAIN: no write buffer free.
 */
int ftl_close_stream_marked(struct ftl *f, enum ftl_stream s);
/* Record FDP event @type of handle @ruh (fdp.c); @moved and @lba: FTL_FDP_EV_REALLOC's. */
void ftl_fdp_event(struct ftl *f, uint32_t type, uint32_t ruh, uint32_t moved, uint32_t lba);
/*
 * The checkpoint's FDP section (fdp.c): its size, and the event ring and
 * ftl_fdp_log_set()'s block written into it / read back from it.
 */
size_t ftl_fdp_ckpt_bytes(void);
void ftl_fdp_ckpt_put(const struct ftl *f, void *dst);
void ftl_fdp_ckpt_get(struct ftl *f, const void *src);
/* Close the handles' reclaim units open past the time limit (fdp.c, from ftl_process()). */
void ftl_fdp_tick(struct ftl *f);
/* A NAND read of the instance completed: its retries (refresh) and errors. */
void ftl_note_read(struct ftl *f, const struct nand_op *op);
/*
 * Retire superblock @sb (an erase of one of its blocks failed): it is
 * never allocated again. Too few left for the capacity: writes fail from
 * now on (-ENOSPC), reads go on.
 */
void ftl_sb_retire(struct ftl *f, uint32_t sb);
/* Superblocks that may be retired before writes stop (ftl_stats.spare_superblocks). */
uint64_t ftl_sb_spare(const struct ftl *f);
/* Of those, what dies gone offline took (ftl_stats.offline_spare_sbs). */
uint64_t ftl_sb_spare_offline(const struct ftl *f);
/* Too few superblocks left for the capacity (retired ones, dead dies): writes fail from now on. */
void ftl_sb_check_spare(struct ftl *f);
/* At creation: superblocks with a block the store says is bad are retired (free) or collected soon. */
void ftl_sb_mark_bad(struct ftl *f);
/* A superblock flagged for a refresh is full and waits for GC. */
bool ftl_gc_refresh_due(const struct ftl *f);
/* Program the pages of stream @s that wait for plane partners, alone. */
void ftl_program_waiting(struct ftl *f, enum ftl_stream s);
/* Program ticket covering everything buffered so far. */
uint64_t ftl_issued_ticket(const struct ftl *f);
/*
 * GC: copy flash page @fpid (data into @page unless NULL, OOB into @oob)
 * from the write buffer if it is there (filling or programming).
 */
bool ftl_gc_copy_buffered(const struct ftl *f, uint32_t fpid, uint8_t *page,
			  struct ftl_oob *oob);
void ftl_host_write_step(struct ftl *f, struct ftl_io *io);
void ftl_flush_step(struct ftl *f, struct ftl_io *io);
void ftl_trim_step(struct ftl *f, struct ftl_io *io);


/* read.c */
int ftl_read_init(struct ftl *f);
void ftl_read_fini(struct ftl *f);
void ftl_read_step(struct ftl *f, struct ftl_io *io);

/* gc_policy.c (ftl_gc.h has the rest of GC) */
/* A unit was written outside the GC stream: it uses up a credit. */
static inline void ftl_gc_spend(struct ftl *f, uint32_t units)
{
	f->gc.credit -= (int64_t)units * FTL_GC_CREDIT;
}

/* pfail.c */
/*
 * @wb's program failed with @status. A program failure of the flash (the
 * block bad now): the page is kept in the buffer (WB_FAILED), the streams
 * leave its superblock and GC moves the superblock's data out first, then
 * its erase fails and retires it. true: taken so; false: not a failure
 * the FTL survives (the caller stops writes, as before).
 */
bool ftl_pfail_take(struct ftl *f, struct ftl_wbuf *wb, int status);
/* dieoff.c */
/* How often a dead slot's die is looked at: is it back (nand_die_offline())? */
#define FTL_DIEOFF_POLL_NS 50000000ull
/* Flash page @fpid is on a die gone offline. */
bool ftl_fpid_dead(const struct ftl *f, uint32_t fpid);
/*
 * dieoff_tp.c: translation pages @tps (@n, each only on a die gone
 * offline, their GTD entries FTL_LOST) rebuilt from the OOB of the valid
 * units elsewhere and written (in order, until the buffer has no room).
 * How many were.
 */
uint32_t ftl_dieoff_rebuild_tps(struct ftl *f, const uint32_t *tps, uint32_t n,
				uint64_t *lost);
/*
 * Recovery: translation pages whose copy (the checkpoint's GTD) is on a
 * die gone offline, rebuilt from the OOB of the units valid at the
 * checkpoint (@ckpt_wseq) on the live dies, and made resident (dirty); the
 * scan's newer units are applied on top of them. How many, or -errno.
 */
int ftl_dieoff_rebuild_at_start(struct ftl *f, uint64_t ckpt_wseq);
/* dieoff_rec.c: a die's loss recorded (LBAs lost), and read back at recovery. */
struct ftl_dierec {
	uint64_t w; /* the record's write sequence: data newer than the loss has a greater one */
	uint32_t slot;
	bool back; /* the die came back (its fixes on flash), no bitmap */
	uint64_t *lost; /* bitmap of the LBAs it made lost */
};

struct ftl_dierecs {
	struct ftl_dierec *r;
	uint32_t n;
};

/*
 * Record that slot @slot's loss at write sequence @w made the LBAs of
 * bitmap @lost lost (NULL: that the slot's die is back, its fixes on
 * flash): programmed straight to the store and synced, after the current
 * checkpoint. -ENOSPC: no room left there.
 */
int ftl_dierec_write(struct ftl *f, uint32_t slot, uint64_t w, const uint64_t *lost);
/* The records newer than @after (a checkpoint's wseq, 0: none) into @set. */
int ftl_dierec_load(struct ftl *f, uint64_t after, struct ftl_dierecs *set);
/* Whether slot @slot is dead by its newest record in @set (@dead: without one). */
bool ftl_dierec_dead(const struct ftl_dierecs *set, uint32_t slot, bool dead);
/* Recovery: slot @slot is held dead (a record or the checkpoint says so). */
void ftl_dieoff_dead_at_start(struct ftl *f, uint32_t slot);
/* The newest W of the records holding @lba, 0 when none. */
uint64_t ftl_dierec_w(const struct ftl_dierecs *set, uint32_t lba);
void ftl_dierec_free(struct ftl_dierecs *set);
/* Before recovery: the slots whose die the device holds offline are dead (not written). */
void ftl_dieoff_at_start(struct ftl *f);
/* From ftl_process(): what a die's loss left to do (its changed mappings written back). */
void ftl_dieoff_step(struct ftl *f);
/* After recovery rebuilt the mapping: what the dead slots held is lost. */
void ftl_dieoff_recovered(struct ftl *f);
/* @op failed with -ENODEV: its die is gone (ftl_die_offline()'s work); else nothing. */
void ftl_die_op_failed(struct ftl *f, const struct nand_op *op);
/* A translation page just in memory: its mappings to a dead die become FTL_LOST (dirty). */
void ftl_dieoff_fix_map(struct ftl *f, struct ftl_cmt *e);
/* Superblock @sb is collected and its moves programmed: its failed pages go. */
void ftl_pfail_release(struct ftl *f, uint32_t sb);
/* A superblock with a bad block (never reopened for writing). */
bool ftl_sb_has_bad_block(const struct ftl *f, uint32_t sb);
/*
 * Data acknowledged is only in failed pages until GC moves it: flushes
 * and a clean stop wait for that (unless writes stopped for good).
 */
static inline bool ftl_pfail_pending(const struct ftl *f)
{
	return f->pfail_wbufs && !f->fatal;
}

/* remap.c */
int ftl_remap_init(struct ftl *f);
void ftl_remap_fini(struct ftl *f);
/* Recovery, first: the remap from the spares' meta in the store; donors retired. */
void ftl_remap_load(struct ftl *f);
/*
 * Position @s (plane * ndies + slot) of superblock @sb takes a spare block
 * of its plane from a donor, the remap kept in the store at once. false:
 * no spare left there (or a migration runs): the caller retires @sb.
 */
bool ftl_remap_block(struct ftl *f, uint32_t sb, uint32_t s);
/* Every block of superblock @sb is erased (it holds nothing). */
bool ftl_remap_sb_blank(const struct ftl *f, uint32_t sb);
/* Every bad block of (erased) superblock @sb remapped; false: one could not be. */
bool ftl_remap_bad_blocks(struct ftl *f, uint32_t sb);
/* The checkpoint superblocks' bad blocks remapped (recovery, before they are read). */
int ftl_remap_ckpt(struct ftl *f);
/*
 * A die migration of a slot: the spares' marks of the instance's blocks on
 * die @from copied to the same blocks of die @to (the remap goes with the
 * slot's data), or, @to < 0, cleared on @from (the die the slot left).
 */
void ftl_remap_mig_tags(struct ftl *f, uint32_t from, int64_t to);
/*
 * Slot @slot's die came back replaced: none of its blocks stands in for
 * another (the new die holds no marks), its donors' blocks there are free.
 */
void ftl_remap_slot_reset(struct ftl *f, uint32_t slot);
/* Blocks of the spare pool used: retired superblocks' but the donors' unused good ones. */
uint64_t ftl_remap_spare_used(const struct ftl *f);

/* Block @block of plane @plane on die @die of the device (its meta in the store). */
struct nand_block_meta *ftl_remap_die_meta(const struct ftl *f, uint32_t die, uint32_t plane,
					   uint32_t block);

/* remap_mig.c: the slot a die migration moves, remapped on each die */
/*
 * Superblock @sb's block of the slot, plane @plane, on side @side (0: the
 * source die, 1: the destination) takes a spare of that plane on that die,
 * kept in the store at once. false: no spare left on that die.
 */
bool ftl_remap_mig_block(struct ftl *f, uint32_t sb, uint32_t plane, int side);
/* The start: the destination's remap is the source's (its marks copied too). */
void ftl_remap_mig_begin(struct ftl *f);
/* Recovery with a migration under way: each die's remap from its own marks. */
void ftl_remap_mig_load(struct ftl *f);
/* The end: the slot's remap is the destination's (none of it if cancelled). */
void ftl_remap_mig_end(struct ftl *f);

/* recovery.c */
int ftl_recover(struct ftl *f, bool *formatted);
int ftl_checkpoint_write(struct ftl *f);

/* migrate.c (ftl_mig.h has the rest of the migration) */
/* Die of slot @slot in superblock @sb while a migration is active. */
static inline uint32_t ftl_mig_die(const struct ftl *f, uint32_t slot, uint32_t sb,
				   uint32_t die)
{
	const struct ftl_mig *m = &f->mig;

	if (!m->active || slot != m->slot)
		return die;
	return m->on_dst[sb] ? m->dst : m->src;
}

/*
 * The remap of position @s (plane * ndies + slot) of superblock @sb on the
 * die it uses now (remap.c, remap_mig.c): the block standing in, plus one;
 * 0: its own.
 */
static inline uint32_t ftl_remap_of(const struct ftl *f, uint32_t sb, uint32_t s)
{
	const struct ftl_mig *m = &f->mig;

	if (m->active && s % f->ndies == m->slot && m->on_dst[sb])
		return m->dremap[(size_t)sb * f->planes + s / f->ndies];
	return f->remap ? f->remap[(size_t)sb * f->stripe + s] : 0;
}

/* plm.c */
void ftl_plm_init(struct ftl *f);
/*
 * A deterministic window holds background work back now: GC does not
 * start a victim or a round, nor erase one, idle prefetch waits, writes
 * are not paced. Not while the instance stops.
 */
static inline bool ftl_plm_deferring(const struct ftl *f)
{
	return f->plm.win == FTL_PLM_DTWIN && !f->shutting_down && !f->sync_io;
}
/*
 * From ftl_gc_step(): true while background work is held back; at the
 * urgent GC level the window ends first (a Deterministic Excursion) and
 * GC goes on.
 */
bool ftl_plm_gc_hold(struct ftl *f);
/* Host units a request takes from the window's budget (ftl_submit()). */
void ftl_plm_host_io(struct ftl *f, enum ftl_io_op op, uint32_t units);
/* Time passes: the window's time budget and warning (ftl_process()). */
void ftl_plm_tick(struct ftl *f);
/* ops->plm_event() if an event is due (ftl_process()). */
void ftl_plm_notify(struct ftl *f);

/* ftl.c */
void ftl_io_resume(struct ftl *f, struct ftl_io *io);
void ftl_io_complete(struct ftl *f, struct ftl_io *io, int status);
/* A program failed with @rc (a -errno, else -EIO): writes stop; the first cause is kept. */
void ftl_set_fatal(struct ftl *f, int rc);
void ftl_kick(struct ftl *f);
/* Something finished (program, read, erase): wake whoever waits. */
void ftl_progress(struct ftl *f);

#endif
