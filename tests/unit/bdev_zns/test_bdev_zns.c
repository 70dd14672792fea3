/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * daemon/bdev/bdev_zns*.c: the zoned backend on a small NAND device with a
 * store file, driven on a libevent loop. Writes at the write pointer read
 * back (whole pages, the buffered partial page, past the write pointer
 * zeroes); the zone rules' statuses; Zone Append's LBA; Reset erases the
 * zone's blocks; Finish; a Flush's padded page and the reserve that runs
 * out; recovery after a clean stop and from a crash image (the store file
 * as it was at a point, the backend never stopped): write pointers, data,
 * and what was not flushed gone; a program failure making its zone Read
 * Only (also after a restart), factory bad blocks making zones Offline, a
 * die gone offline (dieoff.c). Die
 * migrations (bdev_zns_mig.c, mig.c) on a shared device: data read and
 * written while a die moves, the rows' routing, a cancel, a crash image in
 * the middle resumed, and one that reaches a row whose erase waits.
 * Predictable latency (plm.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bdev.h"
#include "bdev_zns.h"
#include "blox_clock.h"
#include "blox_log.h"
#include "blox_util.h"
#include "nand.h"
#include "zns.h"

#include "zns_test.h"

static void make_sized(struct ctx *c, const char *path, uint32_t max_open, uint64_t size)
{
	struct blox_bdev_params p = { .backend = "zns", .block_size = LBA, .nand = &c->nand,
				      .store_path = path, .clock = &c->clock, .log = &c->log,
				      .base = c->base, .max_open = max_open, .size = size };

	assert_int_equal(blox_bdev_create(&p, &c->cq, &c->bdev), 0);
}

void make(struct ctx *c, const char *path, uint32_t max_open)
{
	make_sized(c, path, max_open, 0);
}

static int setup(void **state)
{
	struct ctx *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->base = event_base_new();
	assert_int_equal(blox_io_cq_init(&c->cq, c->base), 0);
	nand_config_default(&c->nand);
	c->nand.geo.channels = 2;
	c->nand.geo.dies_per_channel = 1;
	c->nand.geo.planes_per_die = 1;
	c->nand.geo.blocks_per_plane = 8;
	c->nand.geo.pages_per_block = 12;
	c->nand.geo.page_size = SLOTS * LBA;
	c->nand.timing.null_timing = true;
	blox_clock_init_real(&c->clock);
	strcpy(c->dir, "/tmp/blox-zns-XXXXXX");
	assert_non_null(mkdtemp(c->dir));
	snprintf(c->path, sizeof(c->path), "%s/ns.nand", c->dir);
	make(c, c->path, 0);
	*state = c;
	return 0;
}

static int teardown(void **state)
{
	struct ctx *c = *state;
	char copy[80];

	blox_bdev_destroy(c->bdev);
	if (c->nd)
		blox_nand_dev_put(c->nd);
	snprintf(copy, sizeof(copy), "%s.crash", c->path);
	unlink(copy);
	unlink(c->path);
	rmdir(c->dir);
	blox_io_cq_fini(&c->cq);
	event_base_free(c->base);
	free(c);
	return 0;
}

struct zio {
	struct blox_io io;
	struct iovec iov;
	bool done;
};

static void zio_cb(struct blox_io *io)
{
	((struct zio *)io->cb_arg)->done = true;
}

/* @z through the loop until it completes: its status (-EINVAL: *@nvme has why). */
static int go(struct ctx *c, struct zio *z, uint16_t *nvme)
{
	z->io.cb = zio_cb;
	z->io.cb_arg = z;
	blox_bdev_submit(c->bdev, &z->io);
	while (!z->done)
		assert_true(event_base_loop(c->base, EVLOOP_ONCE) >= 0);
	if (nvme)
		*nvme = z->io.nvme_status;
	return z->io.status;
}

int run(struct ctx *c, enum blox_io_op op, uint64_t lba, uint32_t nlb, void *buf,
	       bool fua, uint16_t *nvme, uint64_t *result)
{
	struct zio z = { 0 };

	z.io.op = op;
	z.io.offset = lba * LBA;
	z.io.len = (uint64_t)nlb * LBA;
	z.io.fua = fua;
	if (buf) {
		z.iov = (struct iovec){ buf, z.io.len };
		z.io.iov = &z.iov;
		z.io.iovcnt = 1;
	}
	go(c, &z, nvme);
	if (result)
		*result = z.io.result;
	return z.io.status;
}

int zmgmt(struct ctx *c, uint64_t zslba, enum zns_action act, bool all, uint16_t *nvme)
{
	struct zio z = { 0 };

	z.io.op = BLOX_IO_ZONE_MGMT;
	z.io.offset = zslba * LBA;
	z.io.zone_action = (uint8_t)act;
	z.io.zone_all = all;
	return go(c, &z, nvme);
}

static void fill(uint8_t *p, uint32_t nlb, uint64_t lba)
{
	for (uint64_t i = 0; i < (uint64_t)nlb * LBA; i += 8) {
		uint64_t v = (lba * LBA + i + 1) * 0x9e3779b97f4a7c15ull;

		memcpy(p + i, &v, 8);
	}
}

void wr(struct ctx *c, uint64_t lba, uint32_t nlb, bool fua)
{
	uint8_t *b = malloc((size_t)nlb * LBA);

	fill(b, nlb, lba);
	assert_int_equal(run(c, BLOX_IO_WRITE, lba, nlb, b, fua, NULL, NULL), 0);
	free(b);
}

/* LBAs [lba, lba + nlb) hold what wr() wrote there. */
void check(struct ctx *c, uint64_t lba, uint32_t nlb)
{
	uint8_t *b = malloc((size_t)nlb * LBA), *w = malloc((size_t)nlb * LBA);

	fill(w, nlb, lba);
	assert_int_equal(run(c, BLOX_IO_READ, lba, nlb, b, false, NULL, NULL), 0);
	assert_memory_equal(b, w, (size_t)nlb * LBA);
	free(b);
	free(w);
}

static void check_zero(struct ctx *c, uint64_t lba, uint32_t nlb)
{
	uint8_t *b = malloc((size_t)nlb * LBA);

	memset(b, 0xa5, (size_t)nlb * LBA);
	assert_int_equal(run(c, BLOX_IO_READ, lba, nlb, b, false, NULL, NULL), 0);
	for (size_t i = 0; i < (size_t)nlb * LBA; i++)
		assert_int_equal(b[i], 0);
	free(b);
}

struct blox_bdev_zone zone(struct ctx *c, uint32_t z)
{
	struct blox_bdev_zone d;
	struct blox_bdev_zone_info info;

	assert_true(blox_bdev_zone_info(c->bdev, &info));
	assert_int_equal(blox_bdev_zone_report(c->bdev, (uint64_t)z * ZSIZE, 0, &d, 1),
			 info.nr_zones - z);
	return d;
}

/* The store file as a crash would leave it now, and the backend made from it. */
void crash(struct ctx *c)
{
	char copy[80], cmd[200];

	snprintf(copy, sizeof(copy), "%s.crash", c->path);
	snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s", c->path, copy);
	assert_int_equal(system(cmd), 0);
	/* Its clean stop writes to the file the image replaces. */
	blox_bdev_destroy(c->bdev);
	assert_int_equal(rename(copy, c->path), 0);
	make(c, c->path, 0);
}

/* 1. The layout; writes of whole and partial pages read back; past the write pointer zeroes. */
static void test_write_read(void **state)
{
	struct ctx *c = *state;
	struct blox_bdev_zone_info info;
	struct blox_bdev_zone d;

	assert_true(blox_bdev_zone_info(c->bdev, &info));
	assert_int_equal(info.zone_size, ZSIZE);
	assert_int_equal(info.zone_cap, ZCAP);
	assert_int_equal(info.nr_zones, 8);
	assert_int_equal(c->bdev->size, 8ull * ZSIZE * LBA);
	wr(c, 0, 6, false); /* a page and a half */
	check(c, 0, 6);
	wr(c, 6, 1, false); /* into the buffered page */
	wr(c, 7, 9, false); /* completes it, two pages, one LBA more */
	check(c, 0, 16);
	check(c, 3, 5);
	check_zero(c, 16, 8);
	d = zone(c, 0);
	assert_int_equal(d.state, ZNS_IOPEN);
	assert_int_equal(d.wp, 16);
	assert_int_equal(d.cap, ZCAP);
	/* Write Zeroes is a write at the write pointer. */
	assert_int_equal(run(c, BLOX_IO_WRITE_ZEROES, 16, 4, NULL, false, NULL, NULL), 0);
	check_zero(c, 16, 4);
	assert_int_equal(zone(c, 0).wp, 20);
	/* To the capacity: Full; reads across zones. */
	wr(c, 20, ZCAP - 20, false);
	assert_int_equal(zone(c, 0).state, ZNS_FULL);
	check(c, 20, ZCAP - 20);
	check_zero(c, ZCAP, ZSIZE - ZCAP + 4);
}

/* 2. Each violation's status, and nothing written by it. */
static void test_violations(void **state)
{
	struct ctx *c = *state;
	uint8_t b[2 * LBA] = { 0 };
	uint16_t sc;

	wr(c, ZSIZE, 2, false);
	assert_int_equal(run(c, BLOX_IO_WRITE, ZSIZE + 1, 1, b, false, &sc, NULL), -EINVAL);
	assert_int_equal(sc, ZNS_INVALID_WRITE);
	assert_int_equal(run(c, BLOX_IO_WRITE, ZSIZE + ZCAP - 1, 2, b, false, &sc, NULL),
			 -EINVAL);
	assert_int_equal(sc, ZNS_INVALID_WRITE);
	assert_int_equal(run(c, BLOX_IO_WRITE, 8 * ZSIZE, 1, b, false, &sc, NULL), -ERANGE);
	assert_int_equal(zmgmt(c, ZSIZE, ZNS_ACT_FINISH, false, &sc), 0);
	assert_int_equal(run(c, BLOX_IO_WRITE, ZSIZE + 2, 1, b, false, &sc, NULL), -EINVAL);
	assert_int_equal(sc, ZNS_ZONE_FULL);
	/* Finished: the data stays, the rest reads as zeroes. */
	check(c, ZSIZE, 2);
	check_zero(c, ZSIZE + 2, 4);
	assert_int_equal(zmgmt(c, ZSIZE, ZNS_ACT_CLOSE, false, &sc), -EINVAL);
	assert_int_equal(sc, ZNS_INVALID_TRANSITION);
	assert_int_equal(zmgmt(c, ZSIZE + 1, ZNS_ACT_OPEN, false, &sc), -EINVAL);
	assert_int_equal(sc, ZNS_INVALID_FIELD);
	/* Boundary: a write over the capacity. */
	assert_int_equal(run(c, BLOX_IO_WRITE, 2 * ZSIZE, 1, b, false, &sc, NULL), 0);
	{
		uint8_t *big = calloc(ZCAP, LBA);

		assert_int_equal(run(c, BLOX_IO_WRITE, 2 * ZSIZE + 1, ZCAP, big, false, &sc, NULL),
				 -EINVAL);
		assert_int_equal(sc, ZNS_BOUNDARY);
		free(big);
	}
}

/* 3. Max Open: explicit opens hold their resources; a third zone cannot start. */
static void test_open_limit(void **state)
{
	struct ctx *c = *state;
	uint8_t b[LBA] = { 0 };
	uint16_t sc;

	blox_bdev_destroy(c->bdev);
	make(c, c->path, 2);
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_OPEN, false, NULL), 0);
	assert_int_equal(zmgmt(c, ZSIZE, ZNS_ACT_OPEN, false, NULL), 0);
	assert_int_equal(run(c, BLOX_IO_WRITE, 2 * ZSIZE, 1, b, false, &sc, NULL), -EINVAL);
	assert_int_equal(sc, ZNS_TOO_MANY_OPEN);
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_CLOSE, false, NULL), 0);
	assert_int_equal(zone(c, 0).state, ZNS_EMPTY);
	assert_int_equal(run(c, BLOX_IO_WRITE, 2 * ZSIZE, 1, b, false, &sc, NULL), 0);
	assert_int_equal(zone(c, 2).state, ZNS_IOPEN);
	/* Close all, then reset all. */
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_CLOSE, true, NULL), 0);
	assert_int_equal(zone(c, 1).state, ZNS_EMPTY);
	assert_int_equal(zone(c, 2).state, ZNS_CLOSED);
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_RESET, true, NULL), 0);
	assert_int_equal(zone(c, 2).state, ZNS_EMPTY);
}

/* 4. Zone Append: the LBA each landed at; data there. */
static void test_append(void **state)
{
	struct ctx *c = *state;
	uint8_t b[3 * LBA];
	uint64_t lba;
	uint16_t sc;

	fill(b, 3, 3 * ZSIZE);
	assert_int_equal(run(c, BLOX_IO_ZONE_APPEND, 3 * ZSIZE, 3, b, false, &sc, &lba), 0);
	assert_int_equal(lba, 3 * ZSIZE);
	fill(b, 2, 3 * ZSIZE + 3);
	assert_int_equal(run(c, BLOX_IO_ZONE_APPEND, 3 * ZSIZE, 2, b, false, &sc, &lba), 0);
	assert_int_equal(lba, 3 * ZSIZE + 3);
	check(c, 3 * ZSIZE, 5);
	assert_int_equal(run(c, BLOX_IO_ZONE_APPEND, 3 * ZSIZE + 1, 1, b, false, &sc, &lba),
			 -EINVAL);
	assert_int_equal(sc, ZNS_INVALID_FIELD);
}

/* 5. Reset erases the zone's blocks: zeroes, and the zone written again from its start. */
static void test_reset(void **state)
{
	struct ctx *c = *state;
	struct blox_bdev_telemetry t = { 0 };

	wr(c, 4 * ZSIZE, 40, false);
	assert_int_equal(zmgmt(c, 4 * ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
	assert_int_equal(zone(c, 4).state, ZNS_EMPTY);
	assert_int_equal(zone(c, 4).wp, 4 * ZSIZE);
	check_zero(c, 4 * ZSIZE, 40);
	uint64_t erases = 0;

	assert_true(blox_bdev_telemetry(c->bdev, &t));
	for (uint32_t i = 0; i < t.dies; i++)
		erases += t.die_stats[i].ops[NAND_OP_ERASE];
	assert_int_equal(erases, 2); /* its block on each die */
	wr(c, 4 * ZSIZE, 40, false);
	check(c, 4 * ZSIZE, 40);
	/* Reset from Full too. */
	assert_int_equal(zmgmt(c, 4 * ZSIZE, ZNS_ACT_FINISH, false, NULL), 0);
	assert_int_equal(zmgmt(c, 4 * ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
	wr(c, 4 * ZSIZE, 4, false);
	check(c, 4 * ZSIZE, 4);
}

/* 6. A clean stop keeps everything, the partial page included; zones come back Closed or Full. */
static void test_restart(void **state)
{
	struct ctx *c = *state;

	wr(c, 0, 10, false);
	wr(c, ZSIZE, ZCAP, false);
	wr(c, 2 * ZSIZE, 4, false);
	assert_int_equal(zmgmt(c, 2 * ZSIZE, ZNS_ACT_FINISH, false, NULL), 0);
	blox_bdev_destroy(c->bdev);
	make(c, c->path, 0);
	assert_int_equal(zone(c, 0).state, ZNS_CLOSED);
	assert_int_equal(zone(c, 0).wp, 10);
	assert_int_equal(zone(c, 1).state, ZNS_FULL);
	assert_int_equal(zone(c, 2).state, ZNS_FULL);
	assert_int_equal(zone(c, 3).state, ZNS_EMPTY);
	check(c, 0, 10);
	check(c, ZSIZE, ZCAP);
	check(c, 2 * ZSIZE, 4);
	wr(c, 10, 5, false);
	check(c, 0, 15);
}

/* 7. A crash: what a Flush or FUA made durable is there; the write pointer passes nothing else. */
static void test_crash(void **state)
{
	struct ctx *c = *state;
	uint16_t sc;

	wr(c, 0, 6, false);
	assert_int_equal(run(c, BLOX_IO_FLUSH, 0, 0, NULL, false, NULL, NULL), 0);
	wr(c, 6, 1, false); /* only in the buffer */
	wr(c, ZSIZE, 3, true); /* FUA */
	wr(c, 2 * ZSIZE, 2, false); /* never flushed */
	crash(c);
	assert_int_equal(zone(c, 0).state, ZNS_CLOSED);
	assert_int_equal(zone(c, 0).wp, 6);
	assert_int_equal(zone(c, 1).wp, ZSIZE + 3);
	assert_int_equal(zone(c, 2).state, ZNS_EMPTY);
	check(c, 0, 6);
	check(c, ZSIZE, 3);
	check_zero(c, 2 * ZSIZE, 2);
	/* The lost LBA is written again where the write pointer says; the page moves on. */
	assert_int_equal(run(c, BLOX_IO_WRITE, 7, 1, (uint8_t[LBA]){ 0 }, false, &sc, NULL),
			 -EINVAL);
	assert_int_equal(sc, ZNS_INVALID_WRITE);
	wr(c, 6, 10, true);
	check(c, 0, 16);
	crash(c);
	assert_int_equal(zone(c, 0).wp, 16);
	check(c, 0, 16);
	wr(c, 2 * ZSIZE, 8, false);
	check(c, 2 * ZSIZE, 8);
}

/* 8. Flushed partial pages use the reserve; the one past it finishes the zone (ZFC). */
static void test_reserve(void **state)
{
	struct ctx *c = *state;
	struct blox_bdev_zone d;

	struct zns_bdev *zb = container_of(c->bdev, struct zns_bdev, base);

	for (uint32_t i = 0; i < 3; i++) {
		wr(c, i, 1, false);
		assert_int_equal(run(c, BLOX_IO_FLUSH, 0, 0, NULL, false, NULL, NULL), 0);
		/* A flush with nothing new costs nothing. */
		assert_int_equal(run(c, BLOX_IO_FLUSH, 0, 0, NULL, false, NULL, NULL), 0);
		assert_int_equal(zb->pads, i + 1);
		d = zone(c, 0);
		assert_int_equal(d.state, i < 2 ? ZNS_IOPEN : ZNS_FULL);
	}
	assert_int_equal(d.attrs, ZNS_ATTR_ZFC);
	check(c, 0, 3);
	check_zero(c, 3, 5);
	blox_bdev_destroy(c->bdev);
	make(c, c->path, 0);
	assert_int_equal(zone(c, 0).state, ZNS_FULL);
	check(c, 0, 3);
}

/*
 * 9. Wear leveling across zones: four zones on eight rows of blocks; one
 * zone written and reset over and over takes the least worn free row each
 * time, so every row wears alike; after a restart each zone is found on
 * its row again.
 */
static void test_wear(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb;
	uint64_t lo = UINT64_MAX, hi = 0;

	blox_bdev_destroy(c->bdev);
	unlink(c->path);
	make_sized(c, c->path, 0, 4ull * ZSIZE * LBA);
	zb = container_of(c->bdev, struct zns_bdev, base);
	assert_int_equal(zb->nr_rows, 8);
	assert_int_equal(zb->l.nr_zones, 4);
	wr(c, 3 * ZSIZE, 8, false); /* zone 3 holds one row throughout */
	for (uint32_t i = 0; i < 21; i++) {
		wr(c, 0, 8, false);
		assert_int_equal(zmgmt(c, 0, ZNS_ACT_RESET, false, NULL), 0);
	}
	for (uint32_t r = 0; r < zb->nr_rows; r++) {
		uint64_t w = zb_row_wear(zb, r);

		if (r == zb->zones[3].row)
			continue;
		lo = w < lo ? w : lo;
		hi = w > hi ? w : hi;
	}
	/* 21 resets of 2 blocks over 7 rows: 6 erases each. */
	assert_int_equal(lo, 6);
	assert_int_equal(hi, 6);
	wr(c, 0, 6, false);
	wr(c, ZSIZE, 5, false);
	blox_bdev_destroy(c->bdev);
	make_sized(c, c->path, 0, 4ull * ZSIZE * LBA);
	zb = container_of(c->bdev, struct zns_bdev, base);
	check(c, 0, 6);
	check(c, ZSIZE, 5);
	check(c, 3 * ZSIZE, 8);
	assert_int_equal(zone(c, 0).wp, 6);
	assert_int_equal(zone(c, 3).wp, 3 * ZSIZE + 8);
	assert_int_not_equal(zb->zones[0].row, zb->zones[1].row);
}

/*
 * 10. A program failure (nand_fail_programs()): the write fails (-EIO),
 * the zone is Read Only (writes refused, what was durable reads back,
 * the Changed Zone List's count moves), the other zones go on, and a
 * restart finds it Read Only again; its bad row is never taken by another
 * zone.
 */
static void test_program_fail(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb = container_of(c->bdev, struct zns_bdev, base);
	uint8_t b[8 * LBA];
	uint64_t now = 0, zslba = UINT64_MAX;
	uint32_t row;
	uint16_t sc;

	wr(c, 0, 8, true);
	assert_int_equal(blox_bdev_zone_changed(c->bdev, 0, &now, &zslba, 1), 0);
	assert_int_equal(nand_fail_programs(zb->dev, zb->dies[0], 1), 0);
	fill(b, 8, 8);
	assert_int_equal(run(c, BLOX_IO_WRITE, 8, 8, b, true, NULL, NULL), -EIO);
	assert_int_equal(zone(c, 0).state, ZNS_RONLY);
	assert_int_equal(blox_bdev_zone_changed(c->bdev, now, &now, &zslba, 1), 1);
	assert_int_equal(zslba, 0);
	assert_int_equal(run(c, BLOX_IO_WRITE, zone(c, 0).wp, 1, b, false, &sc, NULL), -EINVAL);
	assert_int_equal(sc, ZNS_ZONE_RONLY);
	check(c, 0, 8);
	row = zb->zones[0].row;
	assert_true(zb_row_bad(zb, row));
	wr(c, ZSIZE, 8, true);
	check(c, ZSIZE, 8);
	/* Restarted: Read Only again, its data there; the others as they were. */
	blox_bdev_destroy(c->bdev);
	make(c, c->path, 0);
	zb = container_of(c->bdev, struct zns_bdev, base);
	assert_int_equal(zone(c, 0).state, ZNS_RONLY);
	assert_int_equal(zb->zones[0].row, row);
	check(c, 0, 8);
	assert_int_equal(zone(c, 1).state, ZNS_CLOSED);
	check(c, ZSIZE, 8);
	/* Every other zone takes a row, none of them the bad one. */
	for (uint32_t z = 2; z < 8; z++) {
		wr(c, z * ZSIZE, 4, false);
		assert_int_not_equal(zb->zones[z].row, row);
	}
	/* The host may take it Offline; then reads end too. */
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_OFFLINE, false, NULL), 0);
	assert_int_equal(run(c, BLOX_IO_READ, 0, 1, b, false, &sc, NULL), -EINVAL);
	assert_int_equal(sc, ZNS_ZONE_OFFLINE);
}

/* Rows of @zb with a bad block. */
static uint32_t bad_rows(const struct zns_bdev *zb)
{
	uint32_t n = 0;

	for (uint32_t r = 0; r < zb->nr_rows; r++)
		n += zb_row_bad(zb, r);
	return n;
}

/*
 * 11. Factory bad blocks: the namespace is made; with spare rows (6 zones
 * on 8 rows) bad rows cost a zone only past the spares; with none (8
 * zones) each bad row puts a zone Offline from the start, its own first.
 * The zones not Offline take writes; a restart finds the same.
 */
static void test_factory_bad(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb;
	uint32_t bad = 0, offline;
	uint64_t seed;

	c->nand.factory_bad_ppm = 100000;
	for (seed = 1; seed < 200 && bad < 3; seed++) {
		blox_bdev_destroy(c->bdev);
		unlink(c->path);
		c->nand.rel.seed = seed;
		make(c, c->path, 0);
		bad = bad_rows(container_of(c->bdev, struct zns_bdev, base));
	}
	assert_true(bad >= 3);
	zb = container_of(c->bdev, struct zns_bdev, base);
	offline = 0;
	for (uint32_t z = 0; z < 8; z++) {
		if (zone(c, z).state != ZNS_OFFLINE)
			continue;
		offline++;
		assert_true(zb_row_bad(zb, z)); /* here every bad row is a zone's own */
	}
	assert_int_equal(offline, bad);
	for (uint32_t z = 0; z < 8; z++) {
		if (zone(c, z).state == ZNS_OFFLINE) {
			uint8_t b[LBA] = { 0 };
			uint16_t sc;

			assert_int_equal(run(c, BLOX_IO_WRITE, z * ZSIZE, 1, b, false, &sc, NULL),
					 -EINVAL);
			assert_int_equal(sc, ZNS_ZONE_OFFLINE);
			continue;
		}
		wr(c, z * ZSIZE, 8, true);
		assert_false(zb_row_bad(zb, zb->zones[z].row));
	}
	blox_bdev_destroy(c->bdev);
	make(c, c->path, 0);
	for (uint32_t z = 0, n = 0; z < 8; z++) {
		n += zone(c, z).state == ZNS_OFFLINE;
		if (zone(c, z).state != ZNS_OFFLINE)
			check(c, z * ZSIZE, 8);
		if (z == 7)
			assert_int_equal(n, offline);
	}
	/* Six zones on the same flash: two spare rows take two of the bad ones. */
	blox_bdev_destroy(c->bdev);
	unlink(c->path);
	make_sized(c, c->path, 0, 6ull * ZSIZE * LBA);
	offline = 0;
	for (uint32_t z = 0; z < 6; z++)
		offline += zone(c, z).state == ZNS_OFFLINE;
	assert_int_equal(offline, bad - 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_violations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reserve, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wear, setup, teardown),
		cmocka_unit_test_setup_teardown(test_program_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_factory_bad, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dieoff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dieoff_other, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mig_io, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mig_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mig_crash, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plm_windows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plm_defer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plm_excursion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plm_limits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plm_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plm_power_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mig_plm, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
