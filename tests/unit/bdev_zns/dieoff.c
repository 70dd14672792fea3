/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_bdev_zns: a die of the zoned namespace gone offline
 * (bdev_zns_offline.c). Every zone goes Offline (the Changed Zone List
 * lists them), reads, writes, appends and resets get Zone Is Offline; a write whose program was on the die as
 * it went fails (-EIO); a clean restart and a crash image find the zones
 * Offline again; the die back (replaced, empty): every zone Empty, written
 * and read back, also after a restart. A die of the device the namespace
 * does not have changes nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bdev_zns.h"
#include "blox_util.h"
#include "zns_test.h"

struct dio {
	struct blox_io io;
	struct iovec iov;
	bool done;
};

static void dio_cb(struct blox_io *io)
{
	((struct dio *)io->cb_arg)->done = true;
}

static uint32_t nr_zones(struct ctx *c)
{
	struct blox_bdev_zone_info info;

	assert_true(blox_bdev_zone_info(c->bdev, &info));
	return info.nr_zones;
}

/* Every zone in state @st. */
static void all_zones(struct ctx *c, enum zns_state st)
{
	for (uint32_t z = 0; z < nr_zones(c); z++)
		assert_int_equal(zone(c, z).state, st);
}

/* What a host gets for each kind of command on an Offline zone. */
static void refused(struct ctx *c, uint64_t zslba)
{
	uint8_t b[LBA] = { 0 };
	uint16_t sc = 0;

	assert_int_equal(run(c, BLOX_IO_READ, zslba, 1, b, false, &sc, NULL), -EINVAL);
	assert_int_equal(sc, ZNS_ZONE_OFFLINE);
	assert_int_equal(run(c, BLOX_IO_WRITE, zslba, 1, b, false, &sc, NULL), -EINVAL);
	assert_int_equal(sc, ZNS_ZONE_OFFLINE);
	assert_int_equal(run(c, BLOX_IO_ZONE_APPEND, zslba, 1, b, false, &sc, NULL), -EINVAL);
	assert_int_equal(sc, ZNS_ZONE_OFFLINE);
	assert_int_equal(zmgmt(c, zslba, ZNS_ACT_RESET, false, &sc), -EINVAL);
	assert_int_equal(sc, ZNS_ZONE_OFFLINE);
}

/* 1. The die goes under a write; Offline across a restart and a crash; back, Empty. */
void test_dieoff(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb = container_of(c->bdev, struct zns_bdev, base);
	uint64_t now = 0, seen, zslba[16];
	uint8_t *b = calloc(8, LBA);
	struct dio d = { 0 };
	uint32_t die;

	assert_non_null(b);
	wr(c, 0, 40, true); /* 10 pages: the 11th is on die slot 0, the 12th on slot 1 */
	wr(c, ZSIZE, ZCAP, false); /* Full */
	wr(c, 2 * ZSIZE, 6, false); /* a partial page in the buffer */
	assert_int_equal(blox_bdev_zone_changed(c->bdev, 0, &now, zslba, 16), 0);
	seen = now;
	die = zb->dies[1];

	/* The die goes as the write's programs are queued: its page there fails. */
	d.io.op = BLOX_IO_WRITE;
	d.io.offset = 40 * LBA;
	d.io.len = 8 * LBA;
	d.iov = (struct iovec){ b, d.io.len };
	d.io.iov = &d.iov;
	d.io.iovcnt = 1;
	d.io.cb = dio_cb;
	d.io.cb_arg = &d;
	blox_bdev_submit(c->bdev, &d.io);
	assert_int_equal(nand_die_set_offline(zb->dev, die, true), 0);
	while (!d.done)
		assert_true(event_base_loop(c->base, EVLOOP_ONCE) >= 0);
	assert_int_equal(d.io.status, -EIO);
	assert_true(d.io.zone_changes > seen);
	all_zones(c, ZNS_OFFLINE);
	assert_int_equal(blox_bdev_zone_changed(c->bdev, seen, &now, zslba, 16), nr_zones(c));
	assert_int_equal(nand_dev_stats(zb->dev)->rel.dies_offline, 1);
	refused(c, 0);
	refused(c, ZSIZE);
	refused(c, 3 * ZSIZE);
	/* A host may take an Offline zone Offline: nothing changes. */
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_OFFLINE, false, NULL), 0);

	/* Restarted, and from a crash image: the device keeps the die gone, the zones Offline. */
	blox_bdev_destroy(c->bdev);
	make(c, c->path, 0);
	zb = container_of(c->bdev, struct zns_bdev, base);
	all_zones(c, ZNS_OFFLINE);
	refused(c, 0);
	assert_int_equal(nand_dev_stats(zb->dev)->rel.dies_offline, 1);
	crash(c);
	zb = container_of(c->bdev, struct zns_bdev, base);
	all_zones(c, ZNS_OFFLINE);
	refused(c, ZSIZE);

	/* Back, replaced: every zone Empty (and listed as changed), written and read back. */
	blox_bdev_zone_changed(c->bdev, 0, &now, zslba, 16);
	seen = now;
	assert_int_equal(nand_die_set_offline(zb->dev, die, false), 0);
	all_zones(c, ZNS_EMPTY);
	assert_int_equal(blox_bdev_zone_changed(c->bdev, seen, &now, zslba, 16), nr_zones(c));
	assert_int_equal(nand_dev_stats(zb->dev)->rel.dies_replaced, 1);
	for (uint32_t r = 0; r < zb->nr_rows; r++)
		assert_int_equal(zb->row_zone[r], ZB_NONE);
	wr(c, 0, ZCAP, false);
	wr(c, ZSIZE, 10, true);
	check(c, 0, ZCAP);
	check(c, ZSIZE, 10);
	blox_bdev_destroy(c->bdev);
	make(c, c->path, 0);
	assert_int_equal(zone(c, 0).state, ZNS_FULL);
	assert_int_equal(zone(c, 1).state, ZNS_CLOSED);
	assert_int_equal(zone(c, 1).wp, ZSIZE + 10);
	assert_int_equal(zone(c, 2).state, ZNS_EMPTY);
	check(c, 0, ZCAP);
	check(c, ZSIZE, 10);
	free(b);
}

/* 2. On a shared device: a die the namespace does not have goes; it serves on. */
void test_dieoff_other(void **state)
{
	struct ctx *c = *state;
	const uint32_t dies[2] = { 0, 2 };
	struct nand_config cfg = c->nand;
	struct zns_bdev *zb;
	struct blox_bdev_params p = { .backend = "zns", .block_size = LBA, .dies = dies,
				      .nr_dies = 2, .nr_blocks = 8, .clock = &c->clock,
				      .log = &c->log, .base = c->base };

	blox_bdev_destroy(c->bdev);
	unlink(c->path);
	cfg.geo.channels = 2;
	cfg.geo.dies_per_channel = 2;
	assert_int_equal(blox_nand_dev_open("zoff", &cfg, c->path, c->base, &c->clock, &c->nd), 0);
	p.shared = c->nd;
	assert_int_equal(blox_bdev_create(&p, &c->cq, &c->bdev), 0);
	zb = container_of(c->bdev, struct zns_bdev, base);
	wr(c, 0, 30, true);
	assert_int_equal(nand_die_set_offline(zb->dev, 1, true), 0);
	assert_int_equal(nand_die_set_offline(zb->dev, 3, true), 0);
	assert_int_equal(zone(c, 0).state, ZNS_IOPEN);
	wr(c, 30, 20, true);
	wr(c, ZSIZE, ZCAP, false);
	check(c, 0, 50);
	check(c, ZSIZE, ZCAP);
	/* Die 2 is its own: now it goes. */
	assert_int_equal(nand_die_set_offline(zb->dev, 2, true), 0);
	all_zones(c, ZNS_OFFLINE);
	refused(c, 0);
	assert_int_equal(nand_dev_stats(zb->dev)->rel.dies_offline, 3);
}
