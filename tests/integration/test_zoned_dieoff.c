/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die of a zoned vSSD gone offline (docs/FAULTS.md, "Zoned namespaces on
 * failing flash"), over loopback through bloxctl and the project's
 * initiator. A registered device of two channels carries a zoned vSSD on
 * one and a nand vSSD on the other. Under writes to the zoned one, one of
 * its dies goes (fault inject die-offline --device, not --persist): the
 * write whose program met it fails with Write Fault (or, after it, Zone Is
 * Offline), every zone is Offline in Report Zones and in the Changed Zone
 * List, reads, writes, appends and resets get Zone Is Offline; stats counts the device's die gone (text and
 * --json); the nand vSSD reads and writes on. bloxd stopped and started
 * with the same command line, then killed (-9) and started again: the
 * fault is listed again, every zone still Offline. fault clear: every zone
 * Empty again, in the Changed Zone List, written and read back, the die
 * counted as replaced; and so after another restart. The same, without the
 * restarts, on a zoned namespace's own device (NQN NSID --die N) beside a
 * nand namespace of the subsystem.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture.h"
#include "zoned_common.h"

#define NQN "nqn.2026-12.io.blox:default"
#define ZNS 2 /* the zoned vSSD's nsid */
#define FTL 3 /* the nand vSSD's */
#define NZONES 4u
#define ZSIZE 512u /* 2 MiB zones */
#define BLK 4096u
#define WRITE_FAULT 0x4280 /* DNR, SCT 2h, SC 80h */
#define ZONE_OFFLINE 0x41bb /* DNR, SCT 1h, SC BBh */

struct zd {
	struct fx_own o; /* the same command line at every start */
	struct ini_ctrl *c;
	char out[65536];
	uint8_t buf[64 * BLK], rd[64 * BLK];
};

/* bloxctl @args... against the test's bloxd, its output in t->out: its exit code. */
#define ctl(t, ...) fx_ctl(&(t)->o.d, (t)->out, sizeof((t)->out), __VA_ARGS__)

static void zd_start(struct zd *t)
{
	fx_own_start(&t->o);
	assert_int_equal(fx_ctrl(&t->o.d, NQN, NULL, 1, NULL, &t->c), 0);
}

static void disconnect_host(struct zd *t)
{
	ini_ctrl_shutdown(t->c);
	ini_ctrl_destroy(t->c);
	t->c = NULL;
}

static void fill(uint8_t *b, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n * BLK; i += 4) {
		uint32_t v = seed * 2654435761u + i;

		memcpy(b + i, &v, 4);
	}
}

/* @n LBAs at @lba of @nsid written with @seed's pattern (FUA), and read back. */
static void write_check(struct zd *t, uint32_t nsid, uint64_t lba, uint32_t n, uint32_t seed)
{
	fill(t->buf, n, seed);
	assert_int_equal(ini_write(t->c->io[0], nsid, lba, n, t->buf, n * BLK, true), 0);
	assert_int_equal(ini_read(t->c->io[0], nsid, lba, n, t->rd, n * BLK), 0);
	assert_memory_equal(t->rd, t->buf, n * BLK);
}

/* @n LBAs at @lba of @nsid hold @seed's pattern. */
static void read_check(struct zd *t, uint32_t nsid, uint64_t lba, uint32_t n, uint32_t seed)
{
	fill(t->buf, n, seed);
	assert_int_equal(ini_read(t->c->io[0], nsid, lba, n, t->rd, n * BLK), 0);
	assert_memory_equal(t->rd, t->buf, n * BLK);
}

/* Zone @z's descriptor. */
static struct nvme_zns_desc zdesc(struct zd *t, uint32_t z)
{
	return zfx_zone(t->c->io[0], ZNS, z * ZSIZE);
}

/* Zones reported under @filter. */
static uint64_t zcount(struct zd *t, uint8_t filter)
{
	return zfx_report(t->c->io[0], ZNS, 0, filter, NULL, 0);
}

/* Whether the zoned vSSD's stats text says @what (its lines wrapped where they may). */
static bool stats_says(struct zd *t, const char *what)
{
	size_t n = 0;

	assert_int_equal(ctl(t, "stats %s %u", NQN, ZNS), 0);
	for (size_t i = 0; t->out[i]; i++) {
		bool space = t->out[i] == ' ' || t->out[i] == '\n';

		if (space && n && t->out[n - 1] == ' ')
			continue;
		t->out[n++] = space ? ' ' : t->out[i];
	}
	t->out[n] = '\0';
	return strstr(t->out, what) != NULL;
}

/* Every zone Offline and refusing each kind of command; the nand vSSD serves. */
static void all_offline(struct zd *t)
{
	struct ini_queue *q = t->c->io[0];
	uint64_t lba;

	assert_int_equal(zcount(t, NVME_ZNS_ZRAS_REPORT_OFFLINE), NZONES);
	for (uint32_t z = 0; z < NZONES; z++)
		assert_int_equal(zdesc(t, z).zs >> 4, 0xf);
	assert_int_equal(ini_read(q, ZNS, 0, 8, t->rd, 8 * BLK), ZONE_OFFLINE);
	assert_int_equal(ini_read(q, ZNS, ZSIZE, 1, t->rd, BLK), ZONE_OFFLINE);
	fill(t->buf, 1, 77);
	assert_int_equal(ini_write(q, ZNS, 2 * ZSIZE, 1, t->buf, BLK, false), ZONE_OFFLINE);
	assert_int_equal(ini_zone_append(q, ZNS, 3 * ZSIZE, 1, t->buf, BLK, false, &lba),
			 ZONE_OFFLINE);
	assert_int_equal(ini_zone_send(q, ZNS, 0, NVME_ZNS_ZSA_RESET, false), ZONE_OFFLINE);
	read_check(t, FTL, 0, 64, 5);
	write_check(t, FTL, 64, 32, 6);
	assert_int_equal(zfx_ns_zones(&t->o.d, NQN, ZNS, "offline"), NZONES);
}

static void test_zoned_die_offline(void **state)
{
	static struct zd t;
	struct ini_queue *q;
	uint32_t die;
	int st = 0;

	(void)state;
	fx_own_init(&t.o, "zdieoff");
	zd_start(&t);
	q = t.c->io[0];
	assert_int_equal(ctl(&t, "device create zdev --channels 2 --dies-per-channel 2 "
				 "--planes 1 --pages-per-block 48 --blocks-per-plane 32"), 0);
	assert_int_equal(ctl(&t, "ns create " NQN " --nsid %u --device zdev --zoned --size 8M "
				 "--zone-size 2M --isolation channel:1", ZNS), 0);
	assert_int_equal(ctl(&t, "ns create " NQN " --nsid %u --device zdev --size 2M "
				 "--isolation channel:1", FTL), 0);
	die = fx_ns_die(&t.o.d, NQN, ZNS);
	write_check(&t, ZNS, 0, 32, 1);
	write_check(&t, ZNS, ZSIZE, 16, 2);
	write_check(&t, FTL, 0, 64, 5);
	assert_int_equal(zfx_changed_zones(t.c->admin, ZNS, NULL), 0);
	assert_int_equal(fx_ns_stat(&t.o.d, NQN, ZNS, "nand", "dies_offline"), 0);

	/* Writes go on as the die goes: the one whose program meets it fails. */
	assert_int_equal(ctl(&t, "fault inject die-offline --device zdev --die %u", die), 0);
	for (uint32_t i = 0; i < 8 && !st; i++) {
		fill(t.buf, 32, 10 + i);
		st = ini_write(q, ZNS, 32 + i * 32, 32, t.buf, 32 * BLK, true);
	}
	print_message("zoned die-offline: the write meeting the die got %04xh\n", st);
	assert_true(st == WRITE_FAULT || st == ZONE_OFFLINE);
	assert_int_equal(zfx_changed_zones(t.c->admin, ZNS, NULL), NZONES);
	all_offline(&t);
	assert_int_equal(fx_ns_stat(&t.o.d, NQN, ZNS, "nand", "dies_offline"), 1);
	assert_int_equal(fx_ns_stat(&t.o.d, NQN, ZNS, "nand", "dies_replaced"), 0);
	assert_true(stats_says(&t, "dies gone offline 1, replaced 0"));

	/* The same command line again, then a crash: the device kept the die offline. */
	disconnect_host(&t);
	fx_own_stop(&t.o);
	zd_start(&t);
	assert_int_equal(ctl(&t, "fault list"), 0);
	assert_non_null(strstr(t.out, "die-offline"));
	all_offline(&t);
	assert_int_equal(fx_ns_stat(&t.o.d, NQN, ZNS, "nand", "dies_offline"), 1);
	disconnect_host(&t);
	assert_int_equal(fx_kill(&t.o.d, SIGKILL), 128 + SIGKILL);
	zd_start(&t);
	all_offline(&t);

	/* Cleared: the die is back, new and empty; every zone Empty and changed. */
	assert_int_equal(ctl(&t, "fault clear --all"), 0);
	assert_int_equal(zcount(&t, NVME_ZNS_ZRAS_REPORT_EMPTY), NZONES);
	assert_int_equal(zfx_changed_zones(t.c->admin, ZNS, NULL), NZONES);
	assert_int_equal(fx_ns_stat(&t.o.d, NQN, ZNS, "nand", "dies_replaced"), 1);
	assert_true(stats_says(&t, "dies gone offline 1, replaced 1"));
	write_check(&t, ZNS, 0, 64, 3);
	write_check(&t, ZNS, 3 * ZSIZE, 8, 4);
	read_check(&t, FTL, 0, 64, 5);
	/* And across a restart, with the die back. */
	disconnect_host(&t);
	fx_own_stop(&t.o);
	zd_start(&t);
	assert_int_equal(ctl(&t, "fault list"), 0);
	assert_null(strstr(t.out, "die-offline"));
	assert_int_equal(zdesc(&t, 0).zs >> 4, 0x4); /* Closed */
	assert_int_equal(zcount(&t, NVME_ZNS_ZRAS_REPORT_EMPTY), NZONES - 2);
	read_check(&t, ZNS, 0, 64, 3);
	read_check(&t, ZNS, 3 * ZSIZE, 8, 4);
	read_check(&t, FTL, 0, 64, 5);
	disconnect_host(&t);
	fx_own_stop(&t.o);
	fx_own_fini(&t.o);
}

/* A zoned namespace's own device (NQN NSID --die N): its zones go Offline, and come back. */
static void test_zoned_die_offline_own(void **state)
{
	static struct zd t;
	int st = 0;

	(void)state;
	fx_own_init(&t.o, "zdieoff");
	zd_start(&t);
	assert_int_equal(ctl(&t, "ns create " NQN " --nsid %u --zoned --size 8M --zone-size 2M "
				 "--channels 1 --dies-per-channel 2 --pages-per-block 48 "
				 "--blocks-per-plane 32", ZNS), 0);
	assert_int_equal(ctl(&t, "ns create " NQN " --nsid %u --size 2M", FTL), 0);
	write_check(&t, FTL, 0, 64, 5);
	write_check(&t, ZNS, 0, 32, 1);
	assert_int_equal(ctl(&t, "fault inject die-offline " NQN " %u --die 1", ZNS), 0);
	for (uint32_t i = 0; i < 8 && !st; i++) {
		fill(t.buf, 32, 10 + i);
		st = ini_write(t.c->io[0], ZNS, 32 + i * 32, 32, t.buf, 32 * BLK, true);
	}
	assert_true(st == WRITE_FAULT || st == ZONE_OFFLINE);
	assert_int_equal(zfx_changed_zones(t.c->admin, ZNS, NULL), NZONES);
	all_offline(&t);
	assert_int_equal(fx_ns_stat(&t.o.d, NQN, ZNS, "nand", "dies_offline"), 1);
	assert_int_equal(ctl(&t, "fault clear --all"), 0);
	assert_int_equal(zcount(&t, NVME_ZNS_ZRAS_REPORT_EMPTY), NZONES);
	assert_int_equal(fx_ns_stat(&t.o.d, NQN, ZNS, "nand", "dies_replaced"), 1);
	write_check(&t, ZNS, ZSIZE, 64, 3);
	disconnect_host(&t);
	fx_own_stop(&t.o);
	fx_own_fini(&t.o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zoned_die_offline),
		cmocka_unit_test(test_zoned_die_offline_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
