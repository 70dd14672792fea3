/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_ftl_recovery share: restarting the FTL on its
 * file store, crash cycles with writes in flight, the streams' positions
 * and what their superblocks hold, and the tests each file holds
 * (test_ftl_recovery.c runs them all).
 */
#ifndef BLOX_TEST_RECOVERY_TESTS_H
#define BLOX_TEST_RECOVERY_TESTS_H

#include "ftl_fixture.h"
/* The OOB records of flash pages (struct ftl_oob), read back and faked. */
#include "ftl_internal.h"

/* Writes in flight at each crash of the crash-cycle tests. */
#define CYCLE_QD 4

/* Where a stream writes: its superblock (-1: none) and next unit in it. */
struct stream_pos {
	int32_t sb;
	uint32_t next;
};

/* ---- life cycle (test_ftl_recovery.c) ---- */

/* The small geometry on a file store. @cfg NULL: fx_cfg_default(). */
struct fx *rec_new(const struct ftl_config *cfg);

/* ---- the streams' superblocks (recovery_reopen.c) ---- */

/* Superblock @sb's flash page @p (in write order) is programmed. */
bool sb_page_programmed(const struct fx *x, uint32_t sb, uint32_t p);
/* Superblocks closed (full, or being collected) with pages never written. */
uint32_t partly_written_closed(const struct fx *x);
/* The OOB of flash page @p of superblock @sb. */
struct ftl_oob sb_page_oob(const struct fx *x, uint32_t sb, uint32_t p);
/* Every stream's position, by enum ftl_stream. */
void streams_get(const struct fx *x, struct stream_pos *p);
/*
 * Every stream with a superblock has it open, at a page boundary, with
 * every page before its position programmed by that stream (its OOB says
 * so) and none after.
 */
void expect_streams_sane(const struct fx *x);
/* Host writes that make every stream open a superblock (TP via evictions). */
void touch_all_streams(struct fx *x, struct fx_crash_log *l);

/* ---- crash cycles (recovery_crash.c) ---- */

/* A write in flight at a crash: its request and its data. */
struct rec_inflight {
	struct fx_req r;
	uint8_t buf[8 * FTL_UNIT];
};
/*
 * The start of a crash-cycle test: a CMT of 8 units, the first half of
 * the capacity written and flushed, and so in @l.
 */
struct fx *rec_cycles_new(struct fx_crash_log *l);
/*
 * CYCLE_QD writes of 8 units in flight, the i-th in the i-th CYCLE_QD-th
 * of the capacity, in @l (FUA at random when @fua, else none); the drive
 * run for a random time below 4 ms, then the power goes and the FTL
 * starts again.
 */
void rec_crash_inflight(struct fx *x, struct fx_crash_log *l, struct rec_inflight *q, bool fua);

/* ---- the tests, by file ---- */

/* recovery_crash.c */
void test_unclean_format_checkpoint_only(void **state);
void test_unclean_unflushed(void **state);
void test_unclean_trims(void **state);
void test_torn_checkpoint_garbage(void **state);
void test_torn_checkpoint_erased(void **state);
void test_no_checkpoint_full_scan(void **state);
void test_gc_heavy_crash(void **state);
void test_recovery_replay_evicts(void **state);
void test_crash_cycles(void **state);

/* recovery_reopen.c */
void test_reopen_after_clean_shutdown(void **state);
void test_reopen_after_crash(void **state);

/* recovery_holes.c */
void test_reopen_hole_padded(void **state);
void test_reopen_hole_wide_closed(void **state);
void test_reopen_garbage_closed(void **state);
void test_checkpoint_v1_loads(void **state);
void test_reopen_crash_cycles(void **state);

#endif
