/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zns/zns.c: the layout of zones on NAND (sizes, capacity, addresses) and
 * the zone state machine: every transition of writes, appends and the
 * management actions, the resource limits with implicit closes, and each
 * status a violation returns.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>

#include "zns.h"

/* 2 dies x 2 planes x 8 pages x 16 KiB pages: 32 pages, 128 LBAs a zone. */
static struct nand_geometry geo(void)
{
	struct nand_geometry g;

	nand_geometry_default(&g);
	g.channels = 1;
	g.dies_per_channel = 2;
	g.planes_per_die = 2;
	g.blocks_per_plane = 16;
	g.pages_per_block = 8;
	g.page_size = 16384;
	return g;
}

/* 8 zones over blocks 4..11, one reserve page: capacity 124 of a 128 size. */
static struct zns *mk(uint32_t max_open, uint32_t max_active)
{
	struct nand_geometry g = geo();
	struct zns_layout l;
	const char *why;
	struct zns *z;

	assert_int_equal(zns_layout(&g, 2, 4, 8, 0, 1, &l, &why), 0);
	assert_int_equal(zns_create(&l, max_open, max_active, &z), 0);
	return z;
}

static enum zns_state st(const struct zns *z, uint32_t zone)
{
	return zns_zone(z, zone)->state;
}

static void test_layout(void **state)
{
	struct nand_geometry g = geo();
	struct zns_layout l;
	const char *why;

	(void)state;
	assert_int_equal(zns_layout(&g, 2, 4, 8, 0, 0, &l, &why), 0);
	assert_int_equal(l.zone_pages, 32);
	assert_int_equal(l.slots, 4);
	assert_int_equal(l.zone_cap, 128);
	assert_int_equal(l.zone_size, 128);
	/* A reserve: capacity below the size, the size still a power of two. */
	assert_int_equal(zns_layout(&g, 2, 4, 8, 0, 2, &l, &why), 0);
	assert_int_equal(l.zone_cap, 120);
	assert_int_equal(l.zone_size, 128);
	/* Three dies: 48 pages, 192 LBAs in a 256 zone. */
	g.dies_per_channel = 3;
	assert_int_equal(zns_layout(&g, 3, 0, 16, 0, 0, &l, &why), 0);
	assert_int_equal(l.zone_cap, 192);
	assert_int_equal(l.zone_size, 256);
	/* A size asked for: larger keeps the capacity, smaller caps it. */
	assert_int_equal(zns_layout(&g, 3, 0, 16, 1024, 0, &l, &why), 0);
	assert_int_equal(l.zone_cap, 192);
	assert_int_equal(l.zone_size, 1024);
	assert_int_equal(zns_layout(&g, 3, 0, 16, 64, 0, &l, &why), 0);
	assert_int_equal(l.zone_cap, 64);
	/* Refusals, each with its reason. */
	assert_int_equal(zns_layout(&g, 3, 0, 16, 100, 0, &l, &why), -EINVAL);
	assert_non_null(why);
	assert_int_equal(zns_layout(&g, 3, 0, 16, 2, 0, &l, &why), -EINVAL);
	assert_int_equal(zns_layout(&g, 3, 8, 16, 0, 0, &l, &why), -EINVAL);
	assert_int_equal(zns_layout(&g, 0, 0, 16, 0, 0, &l, &why), -EINVAL);
	assert_int_equal(zns_layout(&g, 3, 0, 16, 0, 48, &l, &why), -EINVAL);
	g.page_size = 6000;
	assert_int_equal(zns_layout(&g, 3, 0, 16, 0, 0, &l, &why), -EINVAL);
	/* The reserve: a row (3 dies x 2 planes) at least, else a sixteenth in rows. */
	assert_int_equal(zns_reserve_pages(&g, 3), 6);
	g.pages_per_block = 384;
	assert_int_equal(zns_reserve_pages(&g, 3), 144);
	g.pages_per_block = 100; /* 37.5 pages: 7 rows */
	assert_int_equal(zns_reserve_pages(&g, 3), 42);
}

/* Pages stripe across dies, then planes, then pages of the block. */
static void test_page_addr(void **state)
{
	struct nand_geometry g = geo();
	struct zns_layout l;
	const char *why;
	uint32_t slot, plane, block, page;

	(void)state;
	assert_int_equal(zns_layout(&g, 2, 4, 8, 0, 0, &l, &why), 0);
	zns_page_addr(&l, 3, 0, &slot, &plane, &block, &page);
	assert_int_equal(slot, 0);
	assert_int_equal(plane, 0);
	assert_int_equal(block, 7);
	assert_int_equal(page, 0);
	zns_page_addr(&l, 3, 1, &slot, &plane, &block, &page);
	assert_int_equal(slot, 1);
	assert_int_equal(plane, 0);
	zns_page_addr(&l, 3, 2, &slot, &plane, &block, &page);
	assert_int_equal(slot, 0);
	assert_int_equal(plane, 1);
	zns_page_addr(&l, 3, 31, &slot, &plane, &block, &page);
	assert_int_equal(slot, 1);
	assert_int_equal(plane, 1);
	assert_int_equal(page, 7);
}

static void test_create_limits(void **state)
{
	struct nand_geometry g = geo();
	struct zns_layout l;
	const char *why;
	struct zns *z;

	(void)state;
	assert_int_equal(zns_layout(&g, 2, 4, 8, 0, 1, &l, &why), 0);
	assert_int_equal(zns_create(&l, 9, 0, &z), -EINVAL);
	assert_int_equal(zns_create(&l, 0, 9, &z), -EINVAL);
	assert_int_equal(zns_create(&l, 4, 3, &z), -EINVAL);
	assert_int_equal(zns_create(&l, 3, 4, &z), 0);
	assert_int_equal(zns_nlbas(z), 8 * 128);
	assert_int_equal(zns_max_open(z), 3);
	assert_int_equal(zns_max_active(z), 4);
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(st(z, i), ZNS_EMPTY);
		assert_int_equal(zns_zone(z, i)->wp, i * 128);
	}
	zns_destroy(z);
}

/* Empty -> Implicitly Opened -> Full by writes at the write pointer. */
static void test_write_sequence(void **state)
{
	struct zns *z = mk(0, 0);
	struct zns_counts c;
	uint32_t closed;

	(void)state;
	assert_int_equal(zns_write(z, 128, 8, &closed), ZNS_OK);
	assert_int_equal(closed, UINT32_MAX);
	assert_int_equal(st(z, 1), ZNS_IOPEN);
	assert_int_equal(zns_zone(z, 1)->wp, 136);
	zns_counts(z, &c);
	assert_int_equal(c.open, 1);
	assert_int_equal(c.active, 1);
	assert_int_equal(c.by_state[ZNS_EMPTY], 7);
	assert_int_equal(zns_write(z, 136, 116, NULL), ZNS_OK);
	assert_int_equal(st(z, 1), ZNS_FULL);
	assert_int_equal(zns_zone(z, 1)->wp, 128 + 124);
	zns_counts(z, &c);
	assert_int_equal(c.open, 0);
	assert_int_equal(c.active, 0);
	zns_destroy(z);
}

/* Every refusal of a write, and that a refused write changes nothing. */
static void test_write_errors(void **state)
{
	struct zns *z = mk(0, 0);
	struct zns_counts c;

	(void)state;
	assert_int_equal(zns_write(z, 8 * 128, 1, NULL), ZNS_LBA_RANGE);
	assert_int_equal(zns_write(z, 8 * 128 - 1, 2, NULL), ZNS_LBA_RANGE);
	assert_int_equal(zns_write(z, 0, 0, NULL), ZNS_LBA_RANGE);
	/* Not at the write pointer. */
	assert_int_equal(zns_write(z, 4, 1, NULL), ZNS_INVALID_WRITE);
	assert_int_equal(st(z, 0), ZNS_EMPTY);
	/* Past the capacity, and across the zone's end. */
	assert_int_equal(zns_write(z, 0, 125, NULL), ZNS_BOUNDARY);
	assert_int_equal(zns_write(z, 0, 200, NULL), ZNS_BOUNDARY);
	assert_int_equal(st(z, 0), ZNS_EMPTY);
	zns_counts(z, &c);
	assert_int_equal(c.active, 0);
	assert_int_equal(zns_write(z, 0, 124, NULL), ZNS_OK);
	assert_int_equal(zns_write(z, 124, 1, NULL), ZNS_ZONE_FULL);
	/* Read only and offline zones. */
	zns_zone_fail(z, 2, ZNS_RONLY);
	assert_int_equal(zns_write(z, 256, 1, NULL), ZNS_ZONE_RONLY);
	zns_zone_fail(z, 3, ZNS_OFFLINE);
	assert_int_equal(zns_write(z, 384, 1, NULL), ZNS_ZONE_OFFLINE);
	assert_int_equal(zns_read_check(z, 380, 8), ZNS_ZONE_OFFLINE);
	assert_int_equal(zns_read_check(z, 250, 10), ZNS_OK); /* across zones, read only */
	assert_int_equal(zns_read_check(z, 1020, 8), ZNS_LBA_RANGE);
	/* The controller's own changes, counted, and the zones each one touched last. */
	{
		uint64_t zslba[2];

		assert_int_equal(zns_changes(z), 2);
		assert_int_equal(zns_changed_since(z, 0, zslba, 2), 2);
		assert_int_equal(zslba[0], 256);
		assert_int_equal(zslba[1], 384);
		assert_int_equal(zns_changed_since(z, 1, zslba, 2), 1);
		assert_int_equal(zslba[0], 384);
		zns_zone_finish_by_ctrl(z, 2);
		assert_int_equal(zns_changes(z), 3);
		assert_int_equal(zns_changed_since(z, 0, zslba, 1), 2); /* all counted, one listed */
		assert_int_equal(zslba[0], 256);
		assert_int_equal(zns_changed_since(z, 3, zslba, 2), 0);
	}
	zns_destroy(z);
}

static void test_append(void **state)
{
	struct zns *z = mk(0, 0);
	uint64_t lba = 0;

	(void)state;
	assert_int_equal(zns_append(z, 256, 4, &lba, NULL), ZNS_OK);
	assert_int_equal(lba, 256);
	assert_int_equal(zns_append(z, 256, 16, &lba, NULL), ZNS_OK);
	assert_int_equal(lba, 260);
	assert_int_equal(st(z, 2), ZNS_IOPEN);
	/* Not a zone's start; past the end; over the capacity. */
	assert_int_equal(zns_append(z, 257, 1, &lba, NULL), ZNS_INVALID_FIELD);
	assert_int_equal(zns_append(z, 8 * 128, 1, &lba, NULL), ZNS_LBA_RANGE);
	assert_int_equal(zns_append(z, 256, 105, &lba, NULL), ZNS_BOUNDARY);
	assert_int_equal(zns_zone(z, 2)->wp, 276);
	assert_int_equal(zns_append(z, 256, 104, &lba, NULL), ZNS_OK);
	assert_int_equal(st(z, 2), ZNS_FULL);
	assert_int_equal(zns_append(z, 256, 1, &lba, NULL), ZNS_ZONE_FULL);
	zns_zone_fail(z, 4, ZNS_RONLY);
	assert_int_equal(zns_append(z, 512, 1, &lba, NULL), ZNS_ZONE_RONLY);
	zns_destroy(z);
}

/* Open, close, finish, reset from each state they accept, and back. */
static void test_actions(void **state)
{
	struct zns *z = mk(0, 0);
	struct zns_counts c;

	(void)state;
	/* Empty: open -> Explicitly Opened; close with nothing written -> Empty. */
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 0), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_EOPEN);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 0), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 0), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_EMPTY);
	zns_counts(z, &c);
	assert_int_equal(c.active, 0);
	/* Written: close -> Closed, open -> Explicitly, write keeps it explicit. */
	assert_int_equal(zns_write(z, 0, 4, NULL), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 0), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_CLOSED);
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 0), ZNS_OK);
	zns_counts(z, &c);
	assert_int_equal(c.open, 0);
	assert_int_equal(c.active, 1);
	assert_int_equal(zns_write(z, 4, 4, NULL), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_IOPEN);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 0), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_EOPEN);
	assert_int_equal(zns_write(z, 8, 4, NULL), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_EOPEN);
	/* Finish: Full with the write pointer at the capacity. */
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 0), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_FULL);
	assert_int_equal(zns_zone(z, 0)->wp, 124);
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 0), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 0), ZNS_INVALID_TRANSITION);
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 0), ZNS_INVALID_TRANSITION);
	/* Reset: Empty again. */
	assert_int_equal(zns_action(z, ZNS_ACT_RESET, 0), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_EMPTY);
	assert_int_equal(zns_zone(z, 0)->wp, 0);
	assert_int_equal(zns_action(z, ZNS_ACT_RESET, 0), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 0), ZNS_INVALID_TRANSITION);
	/* Finish of Empty, of Closed; reset of Closed, of Implicitly Opened. */
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 1), ZNS_OK);
	assert_int_equal(st(z, 1), ZNS_FULL);
	assert_int_equal(zns_write(z, 256, 1, NULL), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 2), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 2), ZNS_OK);
	assert_int_equal(st(z, 2), ZNS_FULL);
	assert_int_equal(zns_write(z, 384, 1, NULL), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_RESET, 3), ZNS_OK);
	assert_int_equal(st(z, 3), ZNS_EMPTY);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 8), ZNS_LBA_RANGE);
	zns_counts(z, &c);
	assert_int_equal(c.open, 0);
	assert_int_equal(c.active, 0);
	zns_destroy(z);
}

/* Read Only and Offline: only Offline leaves Read Only; nothing leaves Offline. */
static void test_ronly_offline(void **state)
{
	struct zns *z = mk(0, 0);
	struct zns_counts c;

	(void)state;
	assert_int_equal(zns_write(z, 0, 4, NULL), ZNS_OK);
	zns_zone_fail(z, 0, ZNS_RONLY);
	zns_counts(z, &c);
	assert_int_equal(c.active, 0);
	assert_int_equal(c.by_state[ZNS_RONLY], 1);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 0), ZNS_ZONE_RONLY);
	assert_int_equal(zns_action(z, ZNS_ACT_RESET, 0), ZNS_ZONE_RONLY);
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 0), ZNS_ZONE_RONLY);
	assert_int_equal(zns_action(z, ZNS_ACT_OFFLINE, 1), ZNS_INVALID_TRANSITION);
	assert_true(zns_action_selects(z, ZNS_ACT_OFFLINE, 0));
	assert_int_equal(zns_action(z, ZNS_ACT_OFFLINE, 0), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_OFFLINE);
	assert_int_equal(zns_action(z, ZNS_ACT_OFFLINE, 0), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_RESET, 0), ZNS_ZONE_OFFLINE);
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 0), ZNS_ZONE_OFFLINE);
	zns_destroy(z);
}

/* Max Open: an implicitly opened zone is closed to make room, an explicit one never. */
static void test_max_open(void **state)
{
	struct zns *z = mk(2, 0);
	uint32_t closed;

	(void)state;
	assert_int_equal(zns_write(z, 0, 1, NULL), ZNS_OK);
	assert_int_equal(zns_write(z, 128, 1, NULL), ZNS_OK);
	/* A third: zone 0, opened first, is implicitly closed. */
	assert_int_equal(zns_write(z, 256, 1, &closed), ZNS_OK);
	assert_int_equal(closed, 0);
	assert_int_equal(st(z, 0), ZNS_CLOSED);
	assert_int_equal(st(z, 2), ZNS_IOPEN);
	/* Both open zones explicit now: no room. */
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 1), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 2), ZNS_OK);
	assert_int_equal(zns_write(z, 1, 1, &closed), ZNS_TOO_MANY_OPEN);
	assert_int_equal(closed, UINT32_MAX);
	assert_int_equal(st(z, 0), ZNS_CLOSED);
	assert_int_equal(zns_write(z, 384, 1, NULL), ZNS_TOO_MANY_OPEN);
	assert_int_equal(st(z, 3), ZNS_EMPTY);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 3), ZNS_TOO_MANY_OPEN);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 0), ZNS_TOO_MANY_OPEN);
	/* An open zone that ends Full gives its resource back. */
	assert_int_equal(zns_write(z, 129, 123, NULL), ZNS_OK);
	assert_int_equal(st(z, 1), ZNS_FULL);
	assert_int_equal(zns_write(z, 1, 1, NULL), ZNS_OK);
	assert_int_equal(st(z, 0), ZNS_IOPEN);
	zns_destroy(z);
}

/* Max Active: Empty zones cannot start while the active ones are at the limit. */
static void test_max_active(void **state)
{
	struct zns *z = mk(0, 2);

	(void)state;
	assert_int_equal(zns_write(z, 0, 1, NULL), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 1), ZNS_OK);
	assert_int_equal(zns_write(z, 256, 1, NULL), ZNS_TOO_MANY_ACTIVE);
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 2), ZNS_TOO_MANY_ACTIVE);
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 2), ZNS_TOO_MANY_ACTIVE);
	assert_int_equal(st(z, 2), ZNS_EMPTY);
	/* Closing keeps the resource; finishing or resetting frees it. */
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 0), ZNS_OK);
	assert_int_equal(zns_write(z, 256, 1, NULL), ZNS_TOO_MANY_ACTIVE);
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 0), ZNS_OK);
	assert_int_equal(zns_write(z, 256, 1, NULL), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_RESET, 1), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 3), ZNS_OK);
	assert_int_equal(st(z, 3), ZNS_FULL);
	zns_destroy(z);
}

static void test_select_all(void **state)
{
	struct zns *z = mk(0, 0);

	(void)state;
	assert_int_equal(zns_write(z, 0, 1, NULL), ZNS_OK); /* 0 IOPEN */
	assert_int_equal(zns_action(z, ZNS_ACT_OPEN, 1), ZNS_OK); /* 1 EOPEN */
	assert_int_equal(zns_write(z, 256, 1, NULL), ZNS_OK);
	assert_int_equal(zns_action(z, ZNS_ACT_CLOSE, 2), ZNS_OK); /* 2 CLOSED */
	assert_int_equal(zns_action(z, ZNS_ACT_FINISH, 3), ZNS_OK); /* 3 FULL */
	zns_zone_fail(z, 4, ZNS_RONLY);
	assert_true(zns_action_selects(z, ZNS_ACT_CLOSE, 0));
	assert_true(zns_action_selects(z, ZNS_ACT_CLOSE, 1));
	assert_false(zns_action_selects(z, ZNS_ACT_CLOSE, 2));
	assert_true(zns_action_selects(z, ZNS_ACT_OPEN, 2));
	assert_false(zns_action_selects(z, ZNS_ACT_OPEN, 5));
	assert_true(zns_action_selects(z, ZNS_ACT_FINISH, 2));
	assert_false(zns_action_selects(z, ZNS_ACT_FINISH, 3));
	assert_true(zns_action_selects(z, ZNS_ACT_RESET, 3));
	assert_false(zns_action_selects(z, ZNS_ACT_RESET, 5));
	assert_false(zns_action_selects(z, ZNS_ACT_RESET, 4));
	assert_true(zns_action_selects(z, ZNS_ACT_OFFLINE, 4));
	assert_true(zns_report_matches(z, ZNS_REP_ALL, 7));
	assert_true(zns_report_matches(z, ZNS_REP_IOPEN, 0));
	assert_true(zns_report_matches(z, ZNS_REP_EOPEN, 1));
	assert_true(zns_report_matches(z, ZNS_REP_CLOSED, 2));
	assert_true(zns_report_matches(z, ZNS_REP_FULL, 3));
	assert_true(zns_report_matches(z, ZNS_REP_RONLY, 4));
	assert_true(zns_report_matches(z, ZNS_REP_EMPTY, 5));
	assert_false(zns_report_matches(z, ZNS_REP_EMPTY, 0));
	assert_false(zns_report_matches(z, (enum zns_report)9, 0));
	zns_destroy(z);
}

/* After a restart: Empty, Closed or Full by the write pointer; the controller's finish. */
static void test_restore(void **state)
{
	struct zns *z = mk(0, 4);
	struct zns_counts c;

	(void)state;
	zns_zone_restore(z, 0, 0, false);
	zns_zone_restore(z, 1, 128 + 40, false);
	zns_zone_restore(z, 2, 256 + 124, false);
	zns_zone_restore(z, 3, 384 + 8, true);
	assert_int_equal(st(z, 0), ZNS_EMPTY);
	assert_int_equal(st(z, 1), ZNS_CLOSED);
	assert_int_equal(zns_zone(z, 1)->wp, 168);
	assert_int_equal(st(z, 2), ZNS_FULL);
	assert_int_equal(st(z, 3), ZNS_FULL);
	zns_counts(z, &c);
	assert_int_equal(c.active, 1);
	assert_int_equal(zns_write(z, 168, 4, NULL), ZNS_OK);
	assert_int_equal(st(z, 1), ZNS_IOPEN);
	zns_zone_finish_by_ctrl(z, 1);
	assert_int_equal(st(z, 1), ZNS_FULL);
	assert_int_equal(zns_zone(z, 1)->attrs, ZNS_ATTR_ZFC);
	assert_int_equal(zns_action(z, ZNS_ACT_RESET, 1), ZNS_OK);
	assert_int_equal(zns_zone(z, 1)->attrs, 0);
	zns_counts(z, &c);
	assert_int_equal(c.active, 0);
	assert_string_equal(zns_state_name(ZNS_EOPEN), "explicitly-open");
	zns_destroy(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),	    cmocka_unit_test(test_page_addr),
		cmocka_unit_test(test_create_limits), cmocka_unit_test(test_write_sequence),
		cmocka_unit_test(test_write_errors),  cmocka_unit_test(test_append),
		cmocka_unit_test(test_actions),	    cmocka_unit_test(test_ronly_offline),
		cmocka_unit_test(test_max_open),	    cmocka_unit_test(test_max_active),
		cmocka_unit_test(test_select_all),    cmocka_unit_test(test_restore),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
