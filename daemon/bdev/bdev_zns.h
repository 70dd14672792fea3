/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to daemon/bdev: the "zns" backend, a zoned namespace straight on
 * NAND (no FTL). bdev_zns.c: where data is, create (with the write
 * pointers' recovery), destroy, the zones' report and what it tells;
 * bdev_zns_io.c: reads, writes, appends, flushes and the zone actions on
 * the NAND device; bdev_zns_mig.c: die migrations (struct zb_mig);
 * bdev_zns_fail.c and bdev_zns_offline.c: bad blocks and a die gone.
 *
 * Where data is. A zone's flash is a row: block first_block + r on every
 * (die, plane) of the namespace (zns.h's layout, with the row for the
 * zone). A zone takes a row when its first page is programmed, the least
 * worn free one (dynamic wear leveling across zones: a zone reset often
 * does not wear the same blocks), and gives it back when a reset has
 * erased it; the namespace has a row per block of its range, so rows past
 * its zones are spares. Its NAND pages are programmed in order, physical
 * page pnext next. Logical page j of a zone (its LBAs j * slots ..) is in
 * the physical page l2p[j]. A write fills whole pages straight to flash;
 * the partial page at the write pointer waits in the zone's buffer (the
 * volatile write cache). A Flush, a FUA write or a Finish programs it
 * padded with its OOB saying how many LBAs it holds; when the rest of the
 * page comes, the whole page is programmed again at the next physical
 * page and l2p moves there. So a flushed partial page costs one physical
 * page (a flush with nothing new in the page costs nothing): each zone
 * keeps zns_layout.reserve_pages pages (zns_reserve_pages(): a sixteenth)
 * out of its capacity for that, and a zone whose reserve is gone is
 * finished by the controller
 * (Full, ZFC) at its next flushed partial page, its data durable.
 *
 * Every page's OOB says which zone and logical page it holds and how many
 * LBAs of it are valid (so a row's zone is found again by its pages); a
 * Finish programs a marker page. After a restart
 * (clean or not) each zone's write pointer is the end of the longest run
 * of logical pages from its start found on flash (the last one may be
 * partial: it goes back into the buffer), so it never passes data that is
 * not on flash; pages programmed past a hole are skipped (filler pages
 * keep the blocks' program order), and a zone with no data left is erased.
 */
#ifndef BLOX_BDEV_ZNS_H
#define BLOX_BDEV_ZNS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "bdev.h"
#include "bdev_ftl.h"
#include "nand.h"
#include "zns.h"

#define ZB_NONE UINT32_MAX
#define ZB_OOB_MAGIC 0x314e5a42u /* "BZN1" */
#define ZB_OOB_FINISH 0x1u
#define ZB_OOB_FILLER 0x2u
/* A reset whose erase waits (bdev_zns_plm.c): the row's pages are no zone's any more. */
#define ZB_OOB_RESET 0x4u
/* The most one Zone Append writes (ZASL: 2^6 pages of 4 KiB). */
#define ZB_ZASL 6u
#define ZB_MAX_APPEND (ZNS_LBA_SIZE << ZB_ZASL)

/* What every page of a zone says of itself (the start of its OOB). */
struct zb_oob {
	uint32_t magic;
	uint32_t zone;
	uint32_t lpage; /* its logical page in the zone */
	uint16_t nvalid; /* LBAs of it that hold data (a padded page: fewer than slots) */
	uint16_t flags; /* ZB_OOB_* */
};

struct zb_req;
struct event;

/*
 * Predictable latency of the namespace's NVM Set (bdev_zns_plm.c). In a
 * deterministic window a zone reset erases nothing: a marker page in the
 * zone's row says the row is no zone's (so a restart erases it rather than
 * bring the old data back), the zone is Empty without a row, and the row
 * waits, dirty, for the non-deterministic window, where the rows waiting
 * are erased one at a time in the background (every block but the
 * marker's, then the marker's: a crash in between leaves the marker).
 * Only as many resets wait as the rows free of a zone and clean allow
 * (every zone without a row must still find a clean row); past that, or
 * when the marker has no page left in the row, the window ends by itself
 * (a Deterministic Excursion). Reads (4 KiB) and writes (flash pages) of
 * the host and the time are counted against the window's limits; a limit
 * used up ends it (DTWIN Exceeded).
 */
enum zb_row_state {
	ZB_ROW_CLEAN, /* free rows: erased; others: a zone's */
	ZB_ROW_DIRTY, /* reset in a DTWIN: its erase waits */
	ZB_ROW_ERASING, /* being erased: every block but the marker's */
	ZB_ROW_ERASING_MARK, /* then the marker's */
	ZB_ROW_FAILED, /* an erase of it failed: never taken again */
};

struct zb_plm {
	enum blox_plm_window win;
	uint64_t start_ns; /* of the current window */
	uint64_t reads, write_bytes; /* the host's in this DTWIN */
	uint64_t b_reads, b_writes, b_time_ns; /* this DTWIN's limits */
	uint64_t reads_left, writes_left; /* the estimates, never rising in a DTWIN */
	uint64_t reads_typ, writes_typ, time_max_ns, ndwin_lo_ns, ndwin_hi_ns;
	uint16_t ee; /* warnings enabled (Enable Event bits 2:0) */
	uint64_t th_reads, th_writes, th_time_ns;
	uint16_t warned, events;
	bool notify; /* an event to tell, from the timer */
	void (*event)(void *arg);
	void *event_arg;
	struct event *timer; /* the window's end, its time warning, and the notice */
	uint8_t *rows; /* per row: enum zb_row_state */
	uint32_t *mark; /* per row: its marker's physical page (ZB_ROW_DIRTY on) */
	uint32_t dirty; /* rows reset whose erase waits (or runs) */
	uint32_t erasing; /* the row being erased, or ZB_NONE */
	uint32_t inflight; /* its erases in flight */
	bool stopping;
	/* Counts: resets deferred, rows erased later, windows begun and ended by themselves. */
	uint64_t deferred, erased_later, dtwins, exceeded, excursions;
};

/*
 * A die migration of the namespace (bdev_zns_mig.c): die slot @slot moves
 * from die @src to die @dst a row at a time, rows in order. A row's pages
 * on the slot are copied (reads, then programs at the same place of the
 * new die, with the model's timing), the row switched to the new die
 * (at_dst), then its blocks on the old die erased. While a row is copied
 * the writes and zone actions of its zone and Flushes wait; reads go to
 * the die the row is on. A cancel moves the rows moved so far back the
 * same way. After a crash the row's pages are on the die that holds more
 * of them (the new one on a tie: a finished copy): see bdev_zns_mig.c.
 */
enum zb_mig_phase {
	ZM_IDLE, /* no row under way: the next one is picked */
	ZM_WAIT, /* the row's zone finishes its programs, erases, reads */
	ZM_COPY, /* a page of the row read or programmed */
	ZM_DRAIN, /* switched: reads of the old die's blocks finish */
	ZM_ERASE, /* the old die's blocks of the row erased */
	ZM_UNDO, /* a copy failed: the new die's blocks of the row erased */
	ZM_THROTTLE, /* waiting for the share's time */
};

struct zb_mig {
	bool active; /* a move (or its cancel) under way */
	bool reverse; /* cancelling: rows go back to src */
	bool row_rev; /* the direction of the row under way (reverse when it began) */
	bool paused;
	bool done; /* ended (status 0, moved; -ECANCELED: back) until the next start */
	bool stopping; /* the backend is destroyed: no new step */
	bool stepping, again; /* in mig_step(); called again meanwhile */
	int status;
	uint32_t slot, src, dst, share;
	uint8_t *at_dst; /* per row: its slot's pages are on dst */
	enum zb_mig_phase phase;
	uint32_t row; /* the row under way, or ZB_NONE */
	uint32_t zone; /* its zone when its copy started, or ZB_NONE */
	uint32_t pidx, pend; /* next physical page of the row to look at, and its end */
	uint32_t inflight; /* its NAND ops in flight */
	uint8_t *buf; /* a page and its OOB */
	uint32_t rows_copied;
	uint64_t bytes_copied;
	uint64_t started_ns, finished_ns, busy_ns, step_ns, wake_ns;
	struct event *timer;
};

/* A NAND op of the backend: a page program, a page read or a block erase. */
struct zb_op {
	struct nand_op op;
	struct zns_bdev *zb;
	struct zb_req *req; /* who waits for it, or NULL */
	uint32_t zone, lpage;
	uint64_t seq; /* programs: in submission order */
	/* Reads: where the page's LBAs go (LBA @first of the zone on, @n of them, to io byte @ioff). */
	uint32_t first, n;
	uint64_t ioff;
	struct zb_oob oob;
	TAILQ_ENTRY(zb_op) zlink; /* programs: in its zone's list */
	TAILQ_ENTRY(zb_op) glink; /* programs: in the backend's list, oldest first */
	TAILQ_ENTRY(zb_op) alink; /* submitted: in the backend's list of every op in flight */
	bool listed; /* in it */
	uint8_t *data; /* page_size bytes, or NULL (erase) */
};

/* A blox_io in progress. */
struct zb_req {
	struct blox_io *io;
	uint32_t pending; /* NAND ops (and 1 while being started) */
	int status;
	bool durable; /* Flush or FUA: done when every program up to @seq is done */
	uint64_t seq;
	TAILQ_ENTRY(zb_req) link; /* waiting for durability; or lost to a power cut */
	bool cut; /* lost to a power cut, to fail once the backend is rebuilt */
};

struct zb_zone {
	uint32_t row; /* its flash (block first_block + row everywhere), or ZB_NONE */
	uint32_t pnext; /* next physical page to program */
	uint8_t *buf; /* the partial page at the write pointer, or NULL */
	uint32_t buf_lpage, buf_fill; /* which logical page, LBAs of it held */
	uint32_t buf_durable; /* of those, the LBAs a padded copy on flash holds */
	uint32_t inflight; /* programs and erases in flight */
	bool resetting; /* a reset under way: I/O to it waits */
	bool reset_marked; /* its reset's marker page is being programmed: no erase (DTWIN) */
	struct zb_req *reset_req; /* the reset whose erases wait for the programs in flight */
	TAILQ_HEAD(zb_ops_head, zb_op) progs; /* programs in flight */
};

struct zns_bdev {
	struct blox_bdev base;
	struct blox_nand_dev *nd;
	struct nand_store *store;
	struct nand_dev *dev;
	const struct nand_geometry *geo;
	struct zns *z;
	struct zns_layout l;
	uint32_t lpages; /* logical pages a zone's capacity spans */
	uint32_t *l2p; /* nr_zones * lpages */
	struct zb_zone *zones;
	uint32_t nr_rows; /* rows of blocks it has (at least its zones) */
	uint32_t *row_zone; /* row -> the zone on it, or ZB_NONE: free */
	uint32_t dies[BLOX_FTL_MAX_DIES]; /* die slot -> global die */
	uint32_t tenant;
	bool cache_off; /* the host turned the write cache off: every write is FUA */
	uint64_t seq; /* programs submitted */
	TAILQ_HEAD(, zb_op) progs; /* programs in flight, oldest first (glink) */
	TAILQ_HEAD(, zb_req) durable; /* Flushes and FUA writes waiting */
	TAILQ_HEAD(, blox_io) waiting; /* I/O to a zone being reset */
	TAILQ_HEAD(, zb_op) ops; /* every op submitted, not yet completed (alink) */
	TAILQ_HEAD(, zb_req) cut_reqs; /* commands a power cut lost (zb_power_off()) */
	uint64_t programs, pads, erases, reads; /* NAND ops by kind (pads: padded pages) */
	uint64_t host_read_bytes, host_written_bytes; /* since the start (endurance) */
	bool die_gone; /* a die of it is offline: every zone Offline (bdev_zns_offline.c) */
	struct zb_mig mig;
	struct zb_plm plm;
	struct event_base *evbase; /* its loop (the migration's timer) */
	const struct blox_log *log;
	const struct blox_clock *clock;
};

/* bdev_zns_io.c */
void zb_submit(struct blox_bdev *bdev, struct blox_io *io);
/* The NAND address of physical page @pidx of row @row. */
void zb_addr(const struct zns_bdev *zb, uint32_t row, uint32_t pidx, struct nand_addr *a);
/* The erase counts of its rows' blocks, its rows and deferred resets (telemetry). */
void zb_wear(const struct zns_bdev *zb, struct blox_bdev_zoned_wear *w);
/* @zone (without one) takes the least worn free row. 0, or -ENOSPC: none free. */
int zb_row_take(struct zns_bdev *zb, uint32_t zone);
/* Erases of row @row's blocks, summed: its wear. */
uint64_t zb_row_wear(const struct zns_bdev *zb, uint32_t row);
/* req_finish(), op_new(), op_go() and op_free() of bdev_zns_io.c, for the other files. */
void zb_req_finish(struct zns_bdev *zb, struct zb_req *req);
struct zb_op *zb_op_new(struct zns_bdev *zb, struct zb_req *req, uint32_t zone, bool with_data);
int zb_op_go(struct zns_bdev *zb, struct zb_op *o);
void zb_op_free(struct zb_op *o);
/* Whether @bdev is a zns backend. */
bool zb_is(const struct blox_bdev *bdev);
/* Commands that waited (a reset, a row's copy): submitted again, in order. */
void zb_resubmit_waiting(struct zns_bdev *zb);

/* bdev_zns_mig.c */
/* The die of die slot @slot for row @row: the migration's, when it moves the slot. */
uint32_t zb_die_of(const struct zns_bdev *zb, uint32_t row, uint32_t slot);
/* Whether @io must wait for the row copied now (a write or action of its zone, a Flush). */
bool zb_mig_blocks(const struct zns_bdev *zb, const struct blox_io *io);
/* Something the migration may wait for happened (a zone idle, a read done): go on. */
void zb_mig_kick(struct zns_bdev *zb);
/*
 * At create, before the zones' recovery: a migration to resume (@res as
 * persisted, its dies already in zb->dies): each row's pages found on the
 * die that holds them, the other die's blocks of it erased. 0 or -errno.
 */
int zb_mig_resume(struct zns_bdev *zb, const struct ftl_resources *res);
/* Recovery after a power cut: the rows' dies found again and the migration restarted. */
int zb_mig_rebuild(struct zns_bdev *zb);
/* Destroy: the migration's ops in flight finished (the device driven), its memory freed. */
void zb_mig_fini(struct zns_bdev *zb);
/* blox_bdev_ftl_migrate*() for a zns backend; -EOPNOTSUPP for another one. */
int zb_migrate_start(struct blox_bdev *bdev, uint32_t from_die, uint32_t to_die,
		     uint32_t share);
int zb_migrate_ctl(struct blox_bdev *bdev, enum blox_mig_ctl what, uint32_t share);
int zb_migrate_progress(struct blox_bdev *bdev, struct ftl_migrate_progress *out,
			struct ftl_resources *res);

/* bdev_zns_fail.c */
/* Whether the block of physical page @pidx of row @row is bad (NAND_BLOCK_BAD in the store). */
bool zb_block_bad(const struct zns_bdev *zb, uint32_t row, uint32_t pidx);
/* Whether any block of row @row is bad: no zone takes it. */
bool zb_row_bad(const struct zns_bdev *zb, uint32_t row);
/*
 * After the start's recovery: a zone on a row with a bad block is Read
 * Only; the zones without a row that the good free rows cannot hold are
 * Offline (those whose own row is bad first, then the highest numbered).
 */
void zb_fail_start(struct zns_bdev *zb);
/*
 * A power cut in three steps (bdev_zns.c), so that a whole device's cut
 * (blox_nand_dev_power_cut()) takes every vSSD off before any comes back:
 * zb_cut_check() says whether it may (0, or -errno with out->refused;
 * -ENODEV: not serving); zb_cut_off() cuts its flash ops and keeps what
 * they held to fail (0, or -ENOMEM with nothing cut); zb_cut_on()
 * rebuilds it from flash. zb_of(): @bdev as a zns backend on @nd, or NULL.
 */
int zb_cut_check(struct zns_bdev *zb, struct blox_bdev_power_cut *out);
int zb_cut_off(struct zns_bdev *zb, struct blox_bdev_power_cut *out);
int zb_cut_on(struct zns_bdev *zb, struct blox_bdev_power_cut *out);
struct zns_bdev *zb_of(struct blox_bdev *bdev, const struct blox_nand_dev *nd);
/* bdev_zns_plm.c */
/* At create (after the layout): the windows off, every row clean. 0 or -ENOMEM. */
int zb_plm_init(struct zns_bdev *zb);
/* Destroy: its erases in flight finished (the device driven), its memory freed. */
void zb_plm_fini(struct zns_bdev *zb);
/* A power cut's rebuild: nothing waits (recovery erases the marked rows). */
void zb_plm_rebuild(struct zns_bdev *zb);
/* Whether a zone may take free row @row (clean). */
bool zb_plm_row_clean(const struct zns_bdev *zb, uint32_t row);
/* A host command counted against the window's limits (may end it). */
void zb_plm_host_io(struct zns_bdev *zb, const struct blox_io *io);
/*
 * A reset of @zone (on its row, nothing in flight): true when its erase
 * is deferred (the caller programs the marker page); false: erase now
 * (the window may have ended for it).
 */
bool zb_plm_defer_reset(struct zns_bdev *zb, uint32_t zone);
/* The marker of @zone's reset is on flash (@ok) or failed: its row waits for its erase. */
void zb_plm_reset_marked(struct zns_bdev *zb, uint32_t zone, bool ok);
/* A migration reaches row @row: true when it must wait for the row's erase (started now). */
bool zb_plm_mig_wait(struct zns_bdev *zb, uint32_t row);
/* The ops: bdev.h plm_config, plm_window, plm_query, endurance. */
void zb_endurance(struct blox_bdev *bdev, struct blox_bdev_endurance *e);
int zb_plm_config(struct blox_bdev *bdev, const struct blox_bdev_plm_config *cfg);
int zb_plm_window(struct blox_bdev *bdev, enum blox_plm_window w, uint64_t *retry_in_ns);
void zb_plm_query(struct blox_bdev *bdev, struct blox_bdev_plm_info *info, bool clear);

/* Row @row erased on the store at once (its blocks that hold anything). 0 or -errno. */
int zb_row_erase(struct zns_bdev *zb, uint32_t row);

/* bdev_zns_offline.c */
/*
 * Whether a die of the namespace went offline (every zone goes Offline) or
 * came back replaced (its rows erased, every zone Empty); asked as each
 * command starts, at a report, and when an op fails with -ENODEV.
 */
void zb_dieoff_poll(struct zns_bdev *zb);
/* At the start's recovery: a die offline makes every zone Offline, nothing read (true). */
bool zb_dieoff_start(struct zns_bdev *zb);
/* bdev_zns_power.c */
/*
 * Power was cut (its NAND ops dropped, never to complete): free every op
 * in flight and keep the commands they, a reset or a durable wait held
 * (zb->cut_reqs) to fail once the backend is rebuilt (zb_power_on()).
 */
void zb_power_off(struct zns_bdev *zb);
/* Destroy: the device driven (no loop) until *@inflight, a part's ops in flight, is 0. */
void zb_drive(struct zns_bdev *zb, const uint32_t *inflight);
/* The rebuild is done: fail what zb_power_off() kept and the I/O that waited for a reset; how many. */
uint32_t zb_power_on(struct zns_bdev *zb);

#endif
