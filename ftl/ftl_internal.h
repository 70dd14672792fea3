/*
 * Private state of an FTL instance, shared by its files:
 *   layout.c    unit addresses, superblocks, allocation, validity
 *   map.c       GTD and CMT (DFTL), MDC and hot-region glue, lookups
 *   write.c     streams, write buffer, programs, flush and durability
 *   read.c      the read path
 *   gc.c        garbage collection and wear leveling
 *   recovery.c  checkpoints and the OOB scan
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
#include "hot.h"
#include "mdc.h"

#define FTL_TP_ENTRIES (FTL_UNIT / 4) /* mappings per translation page */
#define FTL_CKPT_SBS 2 /* superblocks reserved for checkpoints */
#define FTL_OOB_MAGIC 0x424c4f58u /* "BLOX" */
#define FTL_MAX_SLOTS 16

enum ftl_unit_kind {
	UK_NONE = 0,
	UK_DATA = 1,
	UK_TP = 2, /* lba field: translation page index */
	UK_CKPT = 3, /* lba field: checkpoint unit index */
	UK_PAD = 4,
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
};

enum sb_state {
	SB_FREE,
	SB_OPEN, /* a stream writes into it */
	SB_FULL,
	SB_GC, /* victim being collected */
	SB_ERASING,
	SB_CKPT, /* reserved for checkpoints */
};

struct ftl_sb {
	uint8_t state;
	uint32_t valid; /* valid units */
	uint32_t erase_count;
	uint64_t closed_ns; /* for cost-benefit ages */
};

enum ftl_stream {
	ST_SEQ,
	ST_RAND,
	ST_GC,
	ST_TP,
	ST_COUNT,
};

enum wbuf_state {
	WB_FREE,
	WB_FILLING,
	WB_PROGRAMMING,
};

/* A flash page being assembled in the write buffer, then programmed. */
struct ftl_wbuf {
	enum wbuf_state state;
	uint32_t fpid; /* flash page: ppn / slots */
	uint32_t used; /* slots filled */
	uint64_t ticket; /* program order, once submitted */
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
};

enum cmt_state {
	CMT_LOADING,
	CMT_READY,
};

struct ftl_cmt {
	uint32_t tp, load_ppn;
	enum cmt_state state;
	bool dirty;
	uint32_t *map; /* FTL_TP_ENTRIES PPNs */
	uint8_t *page; /* flash page bounce buffer while loading */
	struct nand_op op;
	struct ftl *f;
	TAILQ_HEAD(, ftl_io) waiters;
	TAILQ_ENTRY(ftl_cmt) lru;
};

/* A flash read on behalf of a host read (one flash page, some slots). */
struct ftl_rd {
	struct nand_op op;
	struct ftl *f;
	struct ftl_io *io;
	uint8_t *page;
	uint8_t oob[FTL_MAX_SLOTS * 32 + 64];
	uint32_t nslots;
	struct {
		uint32_t slot, unit; /* slot in the page -> unit of the io */
	} want[FTL_MAX_SLOTS];
	TAILQ_ENTRY(ftl_rd) link;
};

struct ftl_gc {
	bool active;
	int32_t victim;
	uint32_t cursor; /* next flash page of the victim to look at */
	bool reading;
	uint8_t *page;
	uint8_t *oob_raw;
	struct nand_op op;
	uint32_t pending_moves; /* valid slots of the page read, to move */
	uint32_t move_idx;
	uint64_t last_ticket; /* program ticket of the last moved unit */
	uint32_t erases_pending;
	struct nand_op *erase_ops;
	bool static_wl;
	bool waiting; /* tp_waiter sits on a wait list */
	struct ftl_io tp_waiter; /* GC waits for translation pages like a host */
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
	uint32_t outstanding; /* host ios in the FTL */

	/*
	 * Start-up (format, recovery, checkpoint) runs with sync_io: pages
	 * go straight to the store, no engine timing, nothing waits.
	 */
	bool sync_io;
	uint64_t ckpt_gen;
	bool fatal; /* a program failed: refuse writes */

	/* Shutdown. */
	void (*shutdown_cb)(void *arg, int status);
	void *shutdown_arg;
	bool shutting_down;

	struct ftl_stats st;
};

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
bool ftl_cmt_any_dirty(const struct ftl *f);
void ftl_idle_prefetch(struct ftl *f);
void ftl_prefetch_reset(struct ftl *f);

/* write.c */
int ftl_write_init(struct ftl *f);
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
/* Program ticket covering everything buffered so far. */
uint64_t ftl_issued_ticket(const struct ftl *f);
/* GC: copy flash page @fpid (data and OOB) from the write buffer if there. */
bool ftl_gc_copy_buffered(struct ftl *f, uint32_t fpid);
void ftl_host_write_step(struct ftl *f, struct ftl_io *io);
void ftl_flush_step(struct ftl *f, struct ftl_io *io);
void ftl_trim_step(struct ftl *f, struct ftl_io *io);


/* read.c */
int ftl_read_init(struct ftl *f);
void ftl_read_fini(struct ftl *f);
void ftl_read_step(struct ftl *f, struct ftl_io *io);

/* gc.c */
/* Start or continue garbage collection if space is short. */
void ftl_gc_step(struct ftl *f);
/* Host writes must wait for GC (urgent level). */
bool ftl_gc_urgent(const struct ftl *f);
int ftl_gc_init(struct ftl *f);
void ftl_gc_fini(struct ftl *f);
/* Continue GC after a wait (translation page, buffer space). */
void ftl_gc_resume(struct ftl *f);
bool ftl_gc_is_waiter(const struct ftl *f, const struct ftl_io *io);

/* recovery.c */
int ftl_recover(struct ftl *f, bool *formatted);
int ftl_checkpoint_write(struct ftl *f);

/* ftl.c */
void ftl_io_resume(struct ftl *f, struct ftl_io *io);
void ftl_io_complete(struct ftl *f, struct ftl_io *io, int status);
void ftl_kick(struct ftl *f);
/* Something finished (program, read, erase): wake whoever waits. */
void ftl_progress(struct ftl *f);

#endif
