/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_bdev_zns: predictable latency of a zoned namespace
 * (bdev_zns_plm.c). The windows and what a set refuses; a reset in a
 * deterministic window erases nothing (a marker page), its row waits and
 * is erased in the non-deterministic one; the window ends by itself when
 * a reset's erase cannot wait (Deterministic Excursion) or a limit is used
 * up (DTWIN Exceeded), with its event and notice; warnings; a crash, a
 * power cut or a restart with erases waiting (or under way) brings no
 * reset zone's data back; the wear figures of the telemetry and the
 * endurance.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bdev_zns.h"
#include "blox_util.h"
#include "zns_test.h"

#define EV_READS_WARN (1u << 0)
#define EV_EXCEEDED (1u << 14)
#define EV_EXCURSION (1u << 15)

/* 4 zones on 8 rows: 4 spare rows for resets whose erase waits. */
static struct zns_bdev *plm_make(struct ctx *c)
{
	struct blox_bdev_params p = { .backend = "zns", .block_size = LBA, .nand = &c->nand,
				      .store_path = c->path, .clock = &c->clock, .log = &c->log,
				      .base = c->base, .size = 4ull * ZSIZE * LBA };

	assert_int_equal(blox_bdev_create(&p, &c->cq, &c->bdev), 0);
	return container_of(c->bdev, struct zns_bdev, base);
}

static struct zns_bdev *plm_fresh(struct ctx *c)
{
	blox_bdev_destroy(c->bdev);
	unlink(c->path);
	return plm_make(c);
}

static void count_cb(void *arg)
{
	(*(unsigned *)arg)++;
}

static void plm_on(struct ctx *c, unsigned *events, uint16_t ee, uint64_t reads_thresh)
{
	struct blox_bdev_plm_config cfg = { .enable = true, .ee = ee, .reads_thresh = reads_thresh,
					    .event = count_cb, .event_arg = events };

	assert_int_equal(blox_bdev_plm_config(c->bdev, &cfg), 0);
}

static struct blox_bdev_plm_info query(struct ctx *c, bool clear)
{
	struct blox_bdev_plm_info i;

	memset(&i, 0, sizeof(i));
	blox_bdev_plm_query(c->bdev, &i, clear);
	return i;
}

/* The loop runs until @zb has no row waiting for its erase. */
static void erases_done(struct ctx *c, struct zns_bdev *zb)
{
	for (unsigned i = 0; zb->plm.dirty && i < 100000; i++)
		assert_true(event_base_loop(c->base, EVLOOP_ONCE) >= 0);
	assert_int_equal(zb->plm.dirty, 0);
}

static void loop_once(struct ctx *c)
{
	assert_true(event_base_loop(c->base, EVLOOP_NONBLOCK) >= 0);
}

/* 1. Off, then NDWIN, DTWIN and back; a window asked while off is refused. */
void test_plm_windows(void **state)
{
	struct ctx *c = *state;
	struct blox_bdev_plm_config off = { .enable = false };
	unsigned events = 0;
	uint64_t retry = 0;

	assert_true(blox_bdev_has_plm(c->bdev));
	assert_int_equal(query(c, false).window, BLOX_PLM_OFF);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), -EINVAL);
	plm_on(c, &events, 0, 0);
	assert_int_equal(query(c, false).window, BLOX_PLM_NDWIN);
	assert_int_equal(query(c, false).time_max_ms, 10000);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_OFF, &retry), -EINVAL);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	assert_int_equal(query(c, false).window, BLOX_PLM_DTWIN);
	assert_true(query(c, false).time_estimate_ms <= 10000);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_NDWIN, &retry), 0);
	assert_int_equal(query(c, false).window, BLOX_PLM_NDWIN);
	assert_int_equal(query(c, false).events, 0); /* asked for: no event */
	assert_int_equal(blox_bdev_plm_config(c->bdev, &off), 0);
	assert_int_equal(query(c, false).window, BLOX_PLM_OFF);
	loop_once(c);
	assert_int_equal(events, 0);
}

/*
 * 2. A reset in a DTWIN erases nothing: the zone is Empty at once, reads
 * zeroes, is written again on another row; its old row is erased once the
 * set is in NDWIN.
 */
void test_plm_defer(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb = plm_fresh(c);
	struct blox_bdev_telemetry t = { 0 };
	struct blox_bdev_endurance e;
	unsigned events = 0;
	uint64_t erases, retry;
	uint32_t row;
	uint8_t zero[4 * LBA] = { 0 }, b[4 * LBA];

	plm_on(c, &events, 0, 0);
	wr(c, 0, 40, false);
	row = zb->zones[0].row;
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	erases = zb->erases;
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_RESET, false, NULL), 0);
	assert_int_equal(zb->erases, erases);
	assert_int_equal(zone(c, 0).state, ZNS_EMPTY);
	assert_int_equal(zone(c, 0).wp, 0);
	assert_int_equal(run(c, BLOX_IO_READ, 0, 4, b, false, NULL, NULL), 0);
	assert_memory_equal(b, zero, sizeof(b));
	assert_int_equal(zb->plm.rows[row], ZB_ROW_DIRTY);
	assert_int_equal(zb->plm.dirty, 1);
	wr(c, 0, 12, false);
	check(c, 0, 12);
	assert_int_not_equal(zb->zones[0].row, row);
	assert_true(blox_bdev_telemetry(c->bdev, &t));
	assert_true(t.has_zoned);
	assert_int_equal(t.zoned.rows, 8);
	assert_int_equal(t.zoned.rows_dirty, 1);
	assert_int_equal(t.zoned.rows_free, 6);
	assert_int_equal(t.zoned.resets_deferred, 1);
	/* Nothing is erased while the window lasts. */
	for (int i = 0; i < 20; i++)
		loop_once(c);
	assert_int_equal(zb->erases, erases);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_NDWIN, &retry), 0);
	erases_done(c, zb);
	assert_int_equal(zb->erases, erases + 2); /* its block on each die */
	assert_int_equal(zb->plm.rows[row], ZB_ROW_CLEAN);
	check(c, 0, 12);
	memset(&t, 0, sizeof(t));
	assert_true(blox_bdev_telemetry(c->bdev, &t));
	assert_int_equal(t.zoned.rows_dirty, 0);
	assert_int_equal(t.zoned.rows_erased_later, 1);
	assert_int_equal(t.zoned.max_erase, 1);
	assert_int_equal(t.zoned.min_erase, 0);
	assert_float_equal(t.zoned.mean_erase, 2.0 / 16, 1e-9);
	assert_int_equal(events, 0);
	/* Its endurance: a page is the write the log counts; 4 spare rows, none bad. */
	memset(&e, 0, sizeof(e));
	assert_true(blox_bdev_endurance(c->bdev, &e));
	assert_int_equal(e.opt_write_bytes, SLOTS * LBA);
	assert_int_equal(e.avail_spare, 100);
	assert_int_equal(e.spare_threshold, 26);
	assert_int_equal(e.percent_used, 0);
	assert_int_equal(e.host_written_bytes, (40 + 12) * LBA);
	assert_int_equal(e.host_read_bytes, (4 + 12 + 12) * LBA);
	assert_int_equal(e.total_bytes, 4ull * ZSIZE * LBA);
}

/*
 * 3. Resets wait only while every zone without a row still finds a clean
 * one: the reset past that ends the DTWIN (Deterministic Excursion, its
 * event and notice) and erases at once; the rows that waited are erased.
 */
void test_plm_excursion(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb = plm_fresh(c);
	unsigned events = 0;
	uint64_t retry, erases;
	struct blox_bdev_plm_info i;

	plm_on(c, &events, 0, 0);
	for (uint32_t z = 0; z < 4; z++)
		wr(c, (uint64_t)z * ZSIZE, 8, false);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	/* 4 clean rows free: zone 0 reset and written again, then zones 0, 1, 2 reset. */
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_RESET, false, NULL), 0);
	wr(c, 0, 8, false);
	for (uint32_t z = 0; z < 3; z++)
		assert_int_equal(zmgmt(c, (uint64_t)z * ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
	assert_int_equal(zb->plm.dirty, 4);
	assert_int_equal(query(c, false).window, BLOX_PLM_DTWIN);
	/* 3 clean rows for 3 zones without one: zone 3's reset cannot wait. */
	erases = zb->erases;
	assert_int_equal(zmgmt(c, 3 * ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
	assert_true(zb->erases >= erases + 2);
	i = query(c, false);
	assert_int_equal(i.window, BLOX_PLM_NDWIN);
	assert_int_equal(i.events, EV_EXCURSION);
	assert_int_equal(zb->plm.excursions, 1);
	for (int k = 0; k < 20 && !events; k++)
		loop_once(c);
	assert_int_equal(events, 1);
	erases_done(c, zb);
	for (uint32_t z = 0; z < 4; z++)
		assert_int_equal(zone(c, z).state, ZNS_EMPTY);
	/* Read with clear: the events go. */
	assert_int_equal(query(c, true).events, EV_EXCURSION);
	assert_int_equal(query(c, false).events, 0);
	/* Every zone writes again. */
	for (uint32_t z = 0; z < 4; z++)
		wr(c, (uint64_t)z * ZSIZE, 8, false);
	check(c, 2 * ZSIZE, 8);
}

/*
 * 4. The limits: reads counted in 4 KiB, writes in flash pages; a warning
 * below its threshold; the read past the limit ends the window (DTWIN
 * Exceeded); so does its time, from the timer.
 */
void test_plm_limits(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb = plm_fresh(c);
	unsigned events = 0;
	uint64_t retry;
	uint8_t b[8 * LBA];
	struct blox_bdev_plm_info i;

	plm_on(c, &events, 1 /* reads warning */, 5);
	wr(c, 0, 16, false);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	zb->plm.b_reads = 12;
	zb->plm.b_writes = 3;
	assert_int_equal(run(c, BLOX_IO_READ, 0, 4, b, false, NULL, NULL), 0);
	wr(c, 16, 6, false); /* 1.5 pages: 2 */
	i = query(c, false);
	assert_int_equal(i.window, BLOX_PLM_DTWIN);
	assert_int_equal(i.reads_estimate, 8);
	assert_int_equal(i.writes_estimate, 1);
	assert_int_equal(i.events, 0);
	assert_int_equal(run(c, BLOX_IO_READ, 0, 4, b, false, NULL, NULL), 0);
	i = query(c, false);
	assert_int_equal(i.reads_estimate, 4);
	assert_int_equal(i.events, EV_READS_WARN);
	assert_int_equal(run(c, BLOX_IO_READ, 0, 8, b, false, NULL, NULL), 0);
	i = query(c, false);
	assert_int_equal(i.window, BLOX_PLM_NDWIN);
	assert_int_equal(i.events, EV_READS_WARN | EV_EXCEEDED);
	for (int k = 0; k < 50 && events < 2; k++)
		loop_once(c);
	assert_int_equal(events, 2);
	assert_int_equal(zb->plm.exceeded, 1);
	/* The time: the timer ends the window. */
	query(c, true);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	zb->plm.b_time_ns = 20 * 1000 * 1000;
	blox_bdev_plm_query(c->bdev, &i, false); /* re-arms the timer for the new end */
	while (zb->plm.win == BLOX_PLM_DTWIN)
		assert_true(event_base_loop(c->base, EVLOOP_ONCE) >= 0);
	assert_int_equal(query(c, false).events, EV_EXCEEDED);
	assert_int_equal(zb->plm.exceeded, 2);
}

/*
 * 5. A crash and a clean restart with erases waiting: a zone reset in the
 * DTWIN and left Empty stays Empty (its old data never comes back), one
 * written again keeps its new data; the marked rows are erased.
 */
void test_plm_restart(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb = plm_fresh(c);
	unsigned events = 0;
	uint64_t retry;
	char copy[80], cmd[200];

	plm_on(c, &events, 0, 0);
	wr(c, 0, 20, true);
	wr(c, ZSIZE, 20, true);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_RESET, false, NULL), 0);
	assert_int_equal(zmgmt(c, ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
	wr(c, ZSIZE, 9, true);
	assert_int_equal(zb->plm.dirty, 2);
	/* The store as a crash leaves it. */
	snprintf(copy, sizeof(copy), "%s.crash", c->path);
	snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s", c->path, copy);
	assert_int_equal(system(cmd), 0);
	blox_bdev_destroy(c->bdev);
	assert_int_equal(rename(copy, c->path), 0);
	zb = plm_make(c);
	assert_int_equal(zone(c, 0).state, ZNS_EMPTY);
	assert_int_equal(zone(c, 0).wp, 0);
	assert_int_equal(zone(c, 1).wp, ZSIZE + 9);
	check(c, ZSIZE, 9);
	assert_int_equal(zb->plm.dirty, 0);
	assert_int_equal(query(c, false).window, BLOX_PLM_OFF); /* the mode starts disabled */
	/* A clean stop with erases waiting. */
	plm_on(c, &events, 0, 0);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	assert_int_equal(zmgmt(c, ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
	blox_bdev_destroy(c->bdev);
	zb = plm_make(c);
	assert_int_equal(zone(c, 1).state, ZNS_EMPTY);
	wr(c, ZSIZE, 4, false);
	check(c, ZSIZE, 4);
}

/*
 * 6. A power cut while the rows that waited are being erased: the cut
 * drops the erases; the rebuild finds the rows' markers and erases them;
 * the zones reset stay Empty, every zone writes.
 */
void test_plm_power_cut(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb = plm_fresh(c);
	struct blox_bdev_power_cut out;
	unsigned events = 0;
	uint64_t retry;

	plm_on(c, &events, 0, 0);
	for (uint32_t z = 0; z < 3; z++)
		wr(c, (uint64_t)z * ZSIZE, 16, true);
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_RESET, false, NULL), 0);
	assert_int_equal(zmgmt(c, ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
	assert_int_equal(zb->plm.dirty, 2);
	/* NDWIN: the first row's erases are submitted, not done. */
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_NDWIN, &retry), 0);
	assert_int_not_equal(zb->plm.erasing, ZB_NONE);
	memset(&out, 0, sizeof(out));
	assert_int_equal(blox_bdev_power_cut(c->bdev, false, &out), 0);
	assert_int_equal(zb->plm.dirty, 0);
	assert_int_equal(zb->plm.erasing, ZB_NONE);
	assert_int_equal(zone(c, 0).state, ZNS_EMPTY);
	assert_int_equal(zone(c, 1).state, ZNS_EMPTY);
	check(c, 2 * ZSIZE, 16);
	for (uint32_t z = 0; z < 4; z++)
		wr(c, (uint64_t)z * ZSIZE + (z == 2 ? 16 : 0), 8, false);
	check(c, 0, 8);
	check(c, ZSIZE, 8);
	/* The mode is as it was: a DTWIN defers again. */
	assert_int_equal(blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry), 0);
	assert_int_equal(zmgmt(c, 3 * ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
	assert_int_equal(zb->plm.dirty, 1);
}
