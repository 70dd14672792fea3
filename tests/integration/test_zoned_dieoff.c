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

#define NQN "nqn.2026-12.io.blox:default"
#define ZNS 2 /* the zoned vSSD's nsid */
#define FTL 3 /* the nand vSSD's */
#define NZONES 4u
#define ZSIZE 512u /* 2 MiB zones */
#define BLK 4096u
#define WRITE_FAULT 0x4280 /* DNR, SCT 2h, SC 80h */
#define ZONE_OFFLINE 0x41bb /* DNR, SCT 1h, SC BBh */

struct zd {
	struct fx_daemon d;
	char dir[64], sock[108], nvm[32], disc[32];
	uint16_t nvm_port, disc_port;
	const char *argv[16];
	struct ini_ctrl *c;
	char out[65536];
	uint8_t buf[64 * BLK], rd[64 * BLK];
};

static int ctl(struct zd *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ctl(struct zd *t, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return fx_ctl(&t->d, t->out, sizeof(t->out), "%s", cmd);
}

/* The same command line at every start. */
static void zd_init(struct zd *t)
{
	size_t n = 0;

	fx_make_tmp(t->dir, sizeof(t->dir), "zdieoff");
	snprintf(t->sock, sizeof(t->sock), "%s/adm.sock", t->dir);
	t->nvm_port = fx_free_port(FX_ADDR);
	do
		t->disc_port = fx_free_port(FX_ADDR);
	while (t->disc_port == t->nvm_port);
	snprintf(t->nvm, sizeof(t->nvm), "%s:%u", FX_ADDR, t->nvm_port);
	snprintf(t->disc, sizeof(t->disc), "%s:%u", FX_ADDR, t->disc_port);
	t->argv[n++] = "-l";
	t->argv[n++] = t->nvm;
	t->argv[n++] = "-D";
	t->argv[n++] = t->disc;
	t->argv[n++] = "--data-dir";
	t->argv[n++] = t->dir;
	t->argv[n++] = "--admin-socket";
	t->argv[n++] = t->sock;
	t->argv[n] = NULL;
}

static void zd_start(struct zd *t)
{
	int rc = fx_start_argv(&t->d, t->argv, FX_ADDR, t->nvm_port, t->disc_port);

	if (rc)
		fail_msg("bloxd did not start (%s, exit %d)", strerror(-rc), t->d.exit_code);
	assert_int_equal(fx_ctrl(&t->d, NQN, NULL, 1, NULL, &t->c), 0);
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
	uint8_t rep[64 + 64];
	struct nvme_zns_desc d;

	assert_int_equal(ini_zone_report(t->c->io[0], ZNS, z * ZSIZE, NVME_ZNS_ZRAS_REPORT_ALL,
					 false, rep, sizeof(rep)),
			 0);
	memcpy(&d, rep + 64, sizeof(d));
	return d;
}

/* Zones reported under @filter. */
static uint64_t zcount(struct zd *t, uint8_t filter)
{
	uint8_t rep[64];
	uint64_t n;

	assert_int_equal(ini_zone_report(t->c->io[0], ZNS, 0, filter, false, rep, sizeof(rep)), 0);
	memcpy(&n, rep, 8);
	return n;
}

/* The Changed Zone List's count (log BFh; reading it clears it for this controller). */
static uint16_t changed_zones(struct zd *t)
{
	uint8_t log[4096];
	struct ini_req r;
	uint16_t n;

	ini_req_init(&r, nvme_admin_get_log_page, ZNS, log, sizeof(log), INI_DIR_C2H);
	r.sqe.cdw10 = 0xbf | ((sizeof(log) / 4 - 1) << 16);
	r.sqe.cdw14 = 2u << 24; /* CSI: Zoned Namespace */
	assert_int_equal(ini_exec(t->c->admin, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	memcpy(&n, log, 2);
	return n;
}

/* Member @key of object @obj of the zoned vSSD's stats --json (0 when left out). */
static int64_t stat_of(struct zd *t, const char *obj, const char *key)
{
	json_object *o, *nss, *n, *sub, *v;
	int64_t r = 0;

	assert_int_equal(ctl(t, "--json stats %s %u", NQN, ZNS), 0);
	o = json_tokener_parse(t->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &nss));
	n = json_object_array_get_idx(nss, 0);
	if (json_object_object_get_ex(n, obj, &sub) && json_object_object_get_ex(sub, key, &v))
		r = json_object_get_int64(v);
	json_object_put(o);
	return r;
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

/* The first die of the zoned vSSD, from ns show. */
static uint32_t zns_die(struct zd *t)
{
	json_object *o, *alloc, *dies;
	uint32_t d;

	assert_int_equal(ctl(t, "--json ns show %s %u", NQN, ZNS), 0);
	o = json_tokener_parse(t->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "alloc", &alloc));
	assert_true(json_object_object_get_ex(alloc, "dies", &dies));
	d = (uint32_t)json_object_get_int(json_object_array_get_idx(dies, 0));
	json_object_put(o);
	return d;
}

/* Member @key of ns show --json's "zones" (0 when left out). */
static int64_t zones_of(struct zd *t, const char *key)
{
	json_object *o, *zs, *v;
	int64_t r = 0;

	assert_int_equal(ctl(t, "--json ns show %s %u", NQN, ZNS), 0);
	o = json_tokener_parse(t->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "zones", &zs));
	if (json_object_object_get_ex(zs, key, &v))
		r = json_object_get_int64(v);
	json_object_put(o);
	return r;
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
	assert_int_equal(zones_of(t, "offline"), NZONES);
}

static void test_zoned_die_offline(void **state)
{
	static struct zd t;
	struct ini_queue *q;
	uint32_t die;
	int st = 0;

	(void)state;
	zd_init(&t);
	zd_start(&t);
	q = t.c->io[0];
	assert_int_equal(ctl(&t, "device create zdev --channels 2 --dies-per-channel 2 "
				 "--planes 1 --pages-per-block 48 --blocks-per-plane 32"), 0);
	assert_int_equal(ctl(&t, "ns create " NQN " --nsid %u --device zdev --zoned --size 8M "
				 "--zone-size 2M --isolation channel:1", ZNS), 0);
	assert_int_equal(ctl(&t, "ns create " NQN " --nsid %u --device zdev --size 2M "
				 "--isolation channel:1", FTL), 0);
	die = zns_die(&t);
	write_check(&t, ZNS, 0, 32, 1);
	write_check(&t, ZNS, ZSIZE, 16, 2);
	write_check(&t, FTL, 0, 64, 5);
	assert_int_equal(changed_zones(&t), 0);
	assert_int_equal(stat_of(&t, "nand", "dies_offline"), 0);

	/* Writes go on as the die goes: the one whose program meets it fails. */
	assert_int_equal(ctl(&t, "fault inject die-offline --device zdev --die %u", die), 0);
	for (uint32_t i = 0; i < 8 && !st; i++) {
		fill(t.buf, 32, 10 + i);
		st = ini_write(q, ZNS, 32 + i * 32, 32, t.buf, 32 * BLK, true);
	}
	print_message("zoned die-offline: the write meeting the die got %04xh\n", st);
	assert_true(st == WRITE_FAULT || st == ZONE_OFFLINE);
	assert_int_equal(changed_zones(&t), NZONES);
	all_offline(&t);
	assert_int_equal(stat_of(&t, "nand", "dies_offline"), 1);
	assert_int_equal(stat_of(&t, "nand", "dies_replaced"), 0);
	assert_true(stats_says(&t, "dies gone offline 1, replaced 0"));

	/* The same command line again, then a crash: the device kept the die offline. */
	disconnect_host(&t);
	assert_int_equal(fx_stop(&t.d), 0);
	zd_start(&t);
	assert_int_equal(ctl(&t, "fault list"), 0);
	assert_non_null(strstr(t.out, "die-offline"));
	all_offline(&t);
	assert_int_equal(stat_of(&t, "nand", "dies_offline"), 1);
	disconnect_host(&t);
	assert_int_equal(fx_kill(&t.d, SIGKILL), 128 + SIGKILL);
	zd_start(&t);
	all_offline(&t);

	/* Cleared: the die is back, new and empty; every zone Empty and changed. */
	assert_int_equal(ctl(&t, "fault clear --all"), 0);
	assert_int_equal(zcount(&t, NVME_ZNS_ZRAS_REPORT_EMPTY), NZONES);
	assert_int_equal(changed_zones(&t), NZONES);
	assert_int_equal(stat_of(&t, "nand", "dies_replaced"), 1);
	assert_true(stats_says(&t, "dies gone offline 1, replaced 1"));
	write_check(&t, ZNS, 0, 64, 3);
	write_check(&t, ZNS, 3 * ZSIZE, 8, 4);
	read_check(&t, FTL, 0, 64, 5);
	/* And across a restart, with the die back. */
	disconnect_host(&t);
	assert_int_equal(fx_stop(&t.d), 0);
	zd_start(&t);
	assert_int_equal(ctl(&t, "fault list"), 0);
	assert_null(strstr(t.out, "die-offline"));
	assert_int_equal(zdesc(&t, 0).zs >> 4, 0x4); /* Closed */
	assert_int_equal(zcount(&t, NVME_ZNS_ZRAS_REPORT_EMPTY), NZONES - 2);
	read_check(&t, ZNS, 0, 64, 3);
	read_check(&t, ZNS, 3 * ZSIZE, 8, 4);
	read_check(&t, FTL, 0, 64, 5);
	disconnect_host(&t);
	assert_int_equal(fx_stop(&t.d), 0);
	fx_rm_tree(t.dir);
}

/* A zoned namespace's own device (NQN NSID --die N): its zones go Offline, and come back. */
static void test_zoned_die_offline_own(void **state)
{
	static struct zd t;
	int st = 0;

	(void)state;
	zd_init(&t);
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
	assert_int_equal(changed_zones(&t), NZONES);
	all_offline(&t);
	assert_int_equal(stat_of(&t, "nand", "dies_offline"), 1);
	assert_int_equal(ctl(&t, "fault clear --all"), 0);
	assert_int_equal(zcount(&t, NVME_ZNS_ZRAS_REPORT_EMPTY), NZONES);
	assert_int_equal(stat_of(&t, "nand", "dies_replaced"), 1);
	write_check(&t, ZNS, ZSIZE, 64, 3);
	disconnect_host(&t);
	assert_int_equal(fx_stop(&t.d), 0);
	fx_rm_tree(t.dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zoned_die_offline),
		cmocka_unit_test(test_zoned_die_offline_own),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
