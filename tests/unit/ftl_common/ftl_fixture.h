/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared fixture for the FTL unit tests (test_ftl, test_ftl_gc,
 * test_ftl_recovery): a small NAND device on a RAM or file store, the
 * virtual-time driver, one FTL instance, synchronous I/O helpers that
 * check completions never come from inside ftl_submit(), a data pattern
 * that names its LBA and version in every word, a shadow of what each LBA
 * should hold, an invariant check of the mapping against the validity
 * bitmap and the superblock table, and a log of the versions a crash may
 * leave (flushed, or written since).
 *
 * Built once (ftl_fixture.c) as a library the FTL test programs link.
 * Tests see the FTL through ftl.h, its inspection functions included;
 * those that poke its private state include ftl_internal.h themselves.
 */
#ifndef BLOX_TEST_FTL_FIXTURE_H
#define BLOX_TEST_FTL_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ftl.h"
#include "vdrive.h"

#define FX_MAX_IO 32u

struct fx_geo {
	uint32_t channels, dies_per_channel, planes, blocks, pages;
	const struct nand_reliability *rel; /* NULL: flash that never fails */
	uint32_t factory_bad_ppm; /* nand_config.factory_bad_ppm (seeded by rel's seed) */
};

struct fx {
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct ftl_vdrive vd;
	struct ftl_config cfg;
	struct ftl_resources res;
	struct ftl *f;
	struct ftl_layout lay; /* of f, from fx_ftl_create() */
	bool file;
	char dir[64], path[128];
	uint32_t cap;
	uint32_t *shadow; /* version each LBA holds; 0: zeroes */
	uint64_t ver; /* last version handed out */
	uint64_t rng;
	uint8_t *wbuf, *rbuf;
	void *aux[2]; /* a test's own allocations, freed by fx_free() */
	uint16_t ruh; /* the reclaim unit handle writes carry (ftl_io.ruh) */
};

/* Helper scratch memory, freed by fx_teardown() after a failure too. */
void *fx_tmp_alloc(size_t size);
void fx_tmp_free(void *p);

/* A pseudo-random number below @n (the fixture's xorshift). */
uint32_t fx_below(struct fx *x, uint32_t n);

/* ---- data pattern: word 0 the LBA, word 1 the version, then a mix ---- */

/* Unit @unit holds version @ver of @lba. */
void fx_fill(uint8_t *unit, uint32_t lba, uint32_t ver);

/*
 * The version @unit holds for @lba: 0 for zeroes, the version for an
 * intact pattern of @lba, UINT32_MAX for anything else (garbage).
 */
uint32_t fx_decode(const uint8_t *unit, uint32_t lba);

/* ---- set-up ---- */

/* 4 channels x 1 die x 1 plane x 32 blocks x 48 pages. */
void fx_geo_small(struct fx_geo *g);

/* Config defaults for the tests: no idle work unless a test asks. */
void fx_cfg_default(struct ftl_config *c);

/* Create the FTL on the current device; returns ftl_create()'s code. */
int fx_ftl_create(struct fx *x);

/*
 * Device, store (file in a fresh temporary directory when @file) and an
 * FTL over every die and block. @cfg NULL: fx_cfg_default().
 */
struct fx *fx_new(const struct fx_geo *g, const struct ftl_config *cfg, bool file);
void fx_free(struct fx *x);

/* cmocka teardown: free what a failed test left behind. */
int fx_teardown(void **state);

#define FX_TEST(t) cmocka_unit_test_teardown(t, fx_teardown)

/* FX_FILTER=pattern runs only the matching tests (cmocka's filter). */
int fx_run(const struct CMUnitTest *tests, size_t n);

/*
 * Power loss: drop the FTL and the device with whatever is in flight (the
 * store only holds what completed), close and reopen a file store, and
 * build a new device. The FTL is not recreated.
 */
void fx_crash(struct fx *x);

/* A clean stop (ftl_shutdown()) that must succeed; the FTL is not destroyed. */
void fx_shutdown(struct fx *x);
/* Recreate the FTL on the (reopened) store; the capacity is the same. */
void fx_restart(struct fx *x);
/* Clean stop, close and reopen the store, recreate the FTL. */
void clean_restart(struct fx *x);

/* ---- I/O ---- */

struct fx_req {
	struct ftl_io io;
	bool done;
	int *count; /* bumped on completion, if set */
};

/* ftl_submit() of @r; its code. Completion marks r->done (once). */
int fx_submit(struct fx *x, struct fx_req *r, enum ftl_io_op op, uint32_t lba,
	      uint32_t nr, uint8_t *buf, bool fua);

/* What a stuck FTL waits for, on stderr. */
void fx_dump(const struct fx *x);

/* Virtual time one wait may take before it counts as a livelock. */
#define FX_WATCHDOG_NS (5ull * 1000 * 1000 * 1000)

/* One step of the virtual-time driver (as vdrive.c's): false when idle. */
bool fx_step(struct fx *x);

/* Drive until *@done; fail when nothing is left to run or time runs away. */
void fx_run_until(struct fx *x, const bool *done, const char *what);

/* Run until nothing is left to do (bounded like a wait). */
void fx_drain(struct fx *x);

/* Drive until @r completes. */
void fx_wait(struct fx *x, struct fx_req *r);

/* Drive until @n completions counted in *@count. */
void fx_wait_count(struct fx *x, int *count, int n);

/* Submit and wait; the completion status. */
int fx_io(struct fx *x, enum ftl_io_op op, uint32_t lba, uint32_t nr, uint8_t *buf,
	  bool fua);

/* Fill x->wbuf with new versions of [lba, lba + nr) and record them. */
void fx_prepare(struct fx *x, uint32_t lba, uint32_t nr);

/* Synchronous writes (new versions), trims and flushes; each must succeed. */
void fx_write(struct fx *x, uint32_t lba, uint32_t nr);
void fx_write_fua(struct fx *x, uint32_t lba, uint32_t nr);
void fx_trim(struct fx *x, uint32_t lba, uint32_t nr);
void fx_flush(struct fx *x);

/* Read [lba, lba + nr) and compare with the shadow. */
void fx_verify(struct fx *x, uint32_t lba, uint32_t nr);
void fx_verify_all(struct fx *x);

/* Random writes of 1..@maxnr units over [0, span). */
void fx_random_writes(struct fx *x, uint32_t span, uint32_t maxnr, uint64_t units);

/* Sequential writes of FX_MAX_IO units over [first, first + n). */
void fx_seq_fill(struct fx *x, uint32_t first, uint32_t n);
struct ftl_stats fx_stats(const struct fx *x);

/* ---- what the FTL shows (ftl_inspect_*()) ---- */

/* PPN of @lba, when its translation page is resident (else FTL_UNMAPPED - 1). */
uint32_t fx_ppn_resident(const struct fx *x, uint32_t lba);
struct ftl_sb_info fx_sb(const struct fx *x, uint32_t sb);
struct ftl_stream_info fx_stream(const struct fx *x, enum ftl_stream_id s);
struct ftl_tp_info fx_tp(const struct fx *x, uint32_t tp);
struct ftl_activity fx_activity(const struct fx *x);
struct ftl_gc_info fx_gc(const struct fx *x);

/* ---- internals ---- */

/* Translation page @tp as the FTL would load it now, into @map. */
void fx_tp_contents(const struct fx *x, uint32_t tp, uint32_t *map);

/*
 * With the FTL quiet: every mapped LBA and every translation page has its
 * validity bit, no two share a PPN, each superblock's valid count is its
 * number of bits, free_sbs counts the free ones. @exact: no other bit is
 * set either (not guaranteed right after recovery, which may keep stale
 * bits that GC drops).
 */
void fx_check_invariants(const struct fx *x, bool exact);

/* ---- what may be read after a crash ---- */

/*
 * The versions a crash may leave: each LBA's version as of the last
 * flush, and every version written (or trimmed: version 0) since.
 */
struct fx_crash_log {
	struct fx *x; /* owns the arrays (aux), so a failed test leaks nothing */
	uint32_t *durable; /* version per LBA as of the last flush */
	struct {
		uint32_t lba, ver; /* ver 0: a trim */
	} *ent;
	size_t n, cap;
};

/* Nothing durable yet but zeroes. */
void fx_log_init(struct fx_crash_log *l, struct fx *x);

/* Everything in the shadow is now durable (a flush completed). */
void fx_log_flushed(struct fx_crash_log *l);

/* [lba, lba + nr) now hold their shadow versions, not flushed yet. */
void fx_log_add(struct fx_crash_log *l, uint32_t lba, uint32_t nr);

/* fx_write() / fx_trim(), logged. */
void fx_log_write(struct fx_crash_log *l, uint32_t lba, uint32_t nr);
void fx_log_trim(struct fx_crash_log *l, uint32_t lba, uint32_t nr);

/*
 * After recovery: each LBA holds its durable version or one written
 * since; that is what it holds from now on (recovery checkpointed it).
 * Returns how many LBAs hold something newer than their durable version.
 */
uint32_t fx_log_check(struct fx_crash_log *l);

#endif
