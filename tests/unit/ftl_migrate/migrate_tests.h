/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_ftl_migrate share: an FTL instance over some of
 * the dies of a device (the others are where its dies may move), a driver
 * that also honours the instance's wake-up requests (ops->wake_at) and
 * records ops->migrated(), the resources a caller would persist, a
 * concurrent load of writes, trims, reads and flushes checked against the
 * shadow, and the tests each file holds (test_ftl_migrate.c runs them).
 */
#ifndef BLOX_TEST_MIGRATE_TESTS_H
#define BLOX_TEST_MIGRATE_TESTS_H

#include "ftl_fixture.h"
/* The migration's phase, to crash at chosen points of it. */
#include "ftl_internal.h"

#define MT_QD 8

struct mt {
	struct fx *x;
	uint64_t wake; /* the earliest ops->wake_at() asked; UINT64_MAX: none */
	uint32_t wakes; /* ops->wake_at() calls */
	int migrated_calls, migrated_status;
	/* What the caller keeps across a crash (ftl_get_resources()). */
	struct ftl_resources saved;
	uint64_t steps; /* driver steps so far */
};

/* A concurrent load: MT_QD requests at a time over [0, span). */
struct mt_load {
	struct mt *t;
	struct fx_crash_log *log; /* writes and trims logged, flushes marked (NULL: none) */
	uint32_t span;
	uint32_t write_pct, trim_pct; /* the rest are reads */
	uint32_t flush_every; /* ops between flushes (0: none) */
	bool stopped; /* no new requests */
	struct fx_req req[MT_QD];
	uint32_t lba[MT_QD], nr[MT_QD];
	bool busy[MT_QD];
	uint8_t *buf; /* MT_QD * FX_MAX_IO units */
	uint32_t since_flush;
	bool draining, flushing; /* waiting for the requests in flight, then a flush */
	uint64_t reads, writes, trims, flushes, units_read;
};

/* ---- set-up (mig_harness.c) ---- */

/*
 * 4 channels x 2 dies x 2 planes x @blocks x @pages on a RAM (or file)
 * store; the instance on dies 0, 2, 4, 6 (die 0 of each channel), blocks
 * [@first, @first + @nr). @cfg NULL: fx_cfg_default().
 */
struct mt *mt_new(uint32_t blocks, uint32_t pages, uint32_t first, uint32_t nr, bool file,
		  const struct ftl_config *cfg);
/* The same with @planes planes per die. */
struct mt *mt_new_planes(uint32_t planes, uint32_t blocks, uint32_t pages, uint32_t first,
			 uint32_t nr, bool file, const struct ftl_config *cfg);
/* The instance's dies as a caller would persist them now. */
void mt_persist(struct mt *t);
/* Drop the instance (no clean stop) and make it again from t->saved. */
void mt_crash(struct mt *t);
/* A clean stop, then made again from t->saved. */
void mt_clean_restart(struct mt *t);
/* ftl_create() from @res: its code (the instance is made on 0). */
int mt_create(struct mt *t, const struct ftl_resources *res);

/* ---- driving ---- */

/* One step of the driver: a kick, a wake-up or a NAND event. false: idle. */
bool mt_step(struct mt *t);
struct ftl_migrate_progress mt_prog(const struct mt *t);
/* Start moving slot @slot to @dst at @share; must succeed; persisted. */
void mt_start(struct mt *t, uint32_t slot, uint32_t dst, uint32_t share);
/* Drive (with @ld's requests, if any) until the migration is DONE. */
void mt_run_done(struct mt *t, struct mt_load *ld);
/* Drive until @pred(t) holds (bounded). */
void mt_run_until(struct mt *t, struct mt_load *ld, bool (*pred)(struct mt *t), const char *what);
/* Drive for @ns of virtual time. */
void mt_run_for(struct mt *t, struct mt_load *ld, uint64_t ns);

/* ---- checks ---- */

/* Every good block of die @die in the instance's range is erased. */
void mt_expect_erased(const struct mt *t, uint32_t die);
/* Programmed pages of die @die's good blocks in the instance's range. */
uint64_t mt_die_pages(const struct mt *t, uint32_t die);
/* Programmed pages of superblock @sb's blocks on die @die. */
uint32_t mt_sb_pages(const struct mt *t, uint32_t die, uint32_t sb);
/* Flash reads die @die served (the engine's counters). */
uint64_t mt_die_reads(const struct mt *t, uint32_t die);

/* ---- the load ---- */

void mt_load_init(struct mt_load *ld, struct mt *t, uint32_t span);
/* Issue requests into free slots, check the reads that completed. */
void mt_load_pump(struct mt_load *ld);
/* Stop issuing and wait for every request in flight. */
void mt_load_drain(struct mt_load *ld);
/* After a crash: nothing is in flight any more. */
void mt_load_reset(struct mt_load *ld);

/* ---- the tests, by file ---- */

/* mig_basic.c */
void test_mig_idle(void **state);
void test_mig_idle_range(void **state);
void test_mig_concurrent(void **state);
void test_mig_full_device(void **state);
void test_mig_refused(void **state);
void test_mig_clean_restart(void **state);
void test_mig_planes(void **state);
void test_mig_no_wl_while_moving(void **state);
void test_mig_under_host_writes(void **state);

/* mig_control.c */
void test_mig_pause_resume(void **state);
void test_mig_cancel(void **state);
void test_mig_cancel_paused(void **state);
void test_mig_throttle(void **state);
void test_mig_chain(void **state);

/* mig_crash.c */
void test_mig_crash_points(void **state);
void test_mig_crash_cycles(void **state);
void test_mig_crash_cancel(void **state);
void test_mig_crash_lagging_caller(void **state);
/* mig_remap.c */
void test_mig_remap(void **state);

/* mig_faults.c */
void test_mig_pfail_copy(void **state);
void test_mig_dst_bad_known(void **state);
void test_mig_erase_fail(void **state);
void test_mig_dst_no_room(void **state);
void test_mig_faults_under_load(void **state);

#endif
