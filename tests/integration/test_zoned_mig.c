/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A zoned vSSD that moves (FlashBlox), end to end: bloxd driven through
 * bloxctl and the project's initiator. Its channel moves to another one
 * (real NAND timing) while the host writes its zones at their write
 * pointers, resets one and reads them all (each read checked against a
 * model); kill -9 in the middle of a move, after which the same command
 * line starts bloxd again, the move goes on to its end and every flushed
 * block is there; and a device's own wear swap trades a hot FTL vSSD's
 * channel with the zoned vSSD's, moving the zoned one online.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zoned_common.h"

#define SUBNQN "nqn.2026-12.io.blox:zmig"
#define ZSIZE 1024u /* 4 MiB zones: a row of two dies x 2 planes x 48 pages holds 3 MiB */
#define NZONES 8u
#define CHUNK 8u

static const char subsystems[] = "[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true } ]";

struct env {
	struct zfx z; /* first: the zoned programs' struct */
	uint64_t wp[NZONES]; /* each zone's write pointer, as the model has it (zone relative) */
	uint64_t zcap;
};

static int env_setup(void *arg)
{
	struct env *e = arg;

	return zfx_setup(&e->z, (uint64_t)NZONES * ZSIZE);
}

/* @n LBAs at zone @z's write pointer; the model follows. */
static void zwr(struct env *e, struct ini_queue *q, uint32_t z, uint32_t n, bool fua)
{
	assert_int_equal(zfx_write(&e->z, q, (uint64_t)z * ZSIZE + e->wp[z], n, fua), 0);
	e->wp[z] += n;
}

static void check_all(struct env *e, struct ini_queue *q)
{
	for (uint32_t z = 0; z < NZONES; z++)
		for (uint64_t off = 0; off < e->wp[z] + CHUNK && off < e->zcap; off += 64)
			zfx_check(&e->z, q, (uint64_t)z * ZSIZE + off,
				  (uint32_t)(e->zcap - off < 64 ? e->zcap - off : 64));
}

/* Zone @z's descriptor. */
static struct nvme_zns_desc zone(struct ini_queue *q, uint32_t z)
{
	return zfx_zone(q, 1, (uint64_t)z * ZSIZE);
}

static void zreset(struct env *e, struct ini_queue *q, uint32_t z)
{
	assert_int_equal(ini_zone_send(q, 1, (uint64_t)z * ZSIZE, NVME_ZNS_ZSA_RESET, false), 0);
	memset(e->z.model + (uint64_t)z * ZSIZE * LBA, 0, (size_t)ZSIZE * LBA);
	e->wp[z] = 0;
}

/* 128 KiB writes at random places of FTL namespace @nsid (24 MiB), @n of them. */
static void hammer(struct env *e, struct ini_queue *q, uint32_t nsid, uint32_t n, uint64_t *rnd)
{
	static uint8_t buf[128 * 1024];

	for (uint32_t k = 0; k < n; k++) {
		uint64_t lba;

		*rnd = *rnd * 6364136223846793005ull + 1442695040888963407ull;
		lba = (*rnd >> 33) % ((24u << 20) / sizeof(buf)) * (sizeof(buf) / LBA);
		memset(buf, (int)(*rnd >> 20), sizeof(buf));
		assert_int_equal(ini_write(q, nsid, lba, sizeof(buf) / LBA, buf, sizeof(buf), false),
				 0);
	}
	(void)e;
}

/* The first die of namespace @nsid, from ns show. */
static uint32_t ns_die(struct env *e, uint32_t nsid)
{
	return fx_ns_die(&e->z.fx.d, SUBNQN, nsid);
}

static uint32_t start(struct env *e, const char *args)
{
	return fx_mig_start(&e->z.fx.d, SUBNQN, 1, args);
}

/* 1. A device with real TLC timing; the zoned vSSD on a channel, its zones written. */
static void test_setup(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;

	assert_int_equal(zfx_run(&e->z, "device create dz --channels 4 --dies-per-channel 2 "
					"--planes 2 --pages-per-block 48 --blocks-per-plane 32"),
			 0);
	assert_int_equal(zfx_run(&e->z, "ns create %s --nsid 1 --device dz --zoned --size 32M "
				"--zone-size 4M --isolation channel:1",
			     SUBNQN),
			 0);
	assert_int_equal(ns_die(e, 1) / 2, 0);
	assert_int_equal(fx_ctrl(&e->z.fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	e->zcap = zone(c->io[0], 0).zcap;
	assert_true(e->zcap > 512 && e->zcap <= ZSIZE);
	/* Zone 0 full, the others part written (zone 6 written during the move). */
	for (uint32_t z = 0; z < NZONES - 2; z++)
		while (e->wp[z] + 64 <= (z == 0 ? e->zcap : e->zcap / (z + 1)))
			zwr(e, c->io[0], z, 64, false);
	zwr(e, c->io[0], 3, 3, false); /* a partial page */
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	check_all(e, c->io[0]);
	ini_ctrl_destroy(c);
	/* Nowhere to go: a taken or unknown channel, or where it is. */
	assert_int_equal(zfx_run(&e->z, "migrate start %s 1 --to-channels 9", SUBNQN), 1);
	assert_int_equal(zfx_run(&e->z, "migrate start %s 1 --to-channels 0", SUBNQN), 1);
}

/* 2. A move under I/O: zones written, one reset, all read and checked while it runs. */
static void test_migrate_under_io(void **state)
{
	struct env *e = *state;
	uint64_t rnd = e->z.fx.seed;
	struct ini_ctrl *c;
	char st[32] = "";
	double pct = 0;
	uint32_t id, rounds = 0;

	assert_int_equal(fx_ctrl(&e->z.fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	id = start(e, "--to-channels 3 --share 1000");
	for (;;) {
		uint32_t z;

		fx_mig_status(&e->z.fx.d, id, st, sizeof(st), &pct);
		if (strcmp(st, "running") && strcmp(st, "queued"))
			break;
		if (e->wp[6] + CHUNK <= e->zcap)
			zwr(e, c->io[0], 6, CHUNK, rounds % 8 == 0);
		if (rounds % 16 == 5) {
			zreset(e, c->io[0], 7);
			zwr(e, c->io[0], 7, 2 * CHUNK, false);
		}
		rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
		z = (uint32_t)(rnd >> 33) % NZONES;
		zfx_check(&e->z, c->io[0],
			  (uint64_t)z * ZSIZE + (e->wp[z] > CHUNK ? e->wp[z] - CHUNK : 0), CHUNK);
		rounds++;
	}
	assert_string_equal(st, "done");
	assert_true(rounds > 1);
	assert_int_equal(ns_die(e, 1) / 2, 3);
	check_all(e, c->io[0]);
	for (uint32_t z = 0; z < NZONES; z++)
		assert_int_equal(zone(c->io[0], z).wp, (uint64_t)z * ZSIZE + e->wp[z]);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	ini_ctrl_destroy(c);
	/* Its bloxctl listing: done, with the bytes it copied. */
	assert_int_equal(zfx_run(&e->z, "--json migrate status %u", id), 0);
	assert_non_null(strstr(e->z.out, "\"done\""));
}

/* 3. kill -9 mid-move: the same command line starts it again; it ends, nothing flushed lost. */
static void test_kill9_mid_migration(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;

	fx_mig_kill9_resume(&e->z.fx, start(e, "--to-channels 0 --share 100"));
	assert_int_equal(ns_die(e, 1) / 2, 0);
	assert_int_equal(fx_ctrl(&e->z.fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	check_all(e, c->io[0]);
	for (uint32_t z = 0; z < NZONES; z++)
		assert_int_equal(zone(c->io[0], z).wp, (uint64_t)z * ZSIZE + e->wp[z]);
	zwr(e, c->io[0], 6, CHUNK, true);
	zfx_check(&e->z, c->io[0], 6 * ZSIZE, (uint32_t)e->wp[6]);
	ini_ctrl_destroy(c);
	assert_int_equal(zfx_run(&e->z, "--json device show dz"), 0);
	assert_non_null(strstr(e->z.out, "\"free_channels\":3"));
}

/*
 * 4. A wear swap trades channels between a hot FTL vSSD and the zoned one:
 * on a device of three channels with no spare kept, a third vSSD wears
 * its channel and goes, then the FTL vSSD is written hard; the device's
 * check moves the cold zoned vSSD to the free channel and the hot one to
 * the zoned one's, both online; the zoned one's data and write pointer
 * are all there after.
 */
static void test_swap(void **state)
{
	struct env *e = *state;
	static uint8_t zdata[256 * LBA], back[256 * LBA];
	uint64_t rnd = e->z.fx.seed;
	uint32_t zch, hch;
	struct ini_ctrl *c;
	bool swapped = false;

	assert_int_equal(zfx_run(&e->z, "device create hot --channels 3 --dies-per-channel 2 "
					"--planes 1 --pages-per-block 96 --blocks-per-plane 32 "
					"--null-timing on --swap-check-erases 16 --swap-share 1000 "
					"--spare-channel off"),
			 0);
	assert_int_equal(zfx_run(&e->z, "ns create %s --nsid 4 --size 24M --device hot --isolation "
				"channel:1", SUBNQN), 0);
	assert_int_equal(zfx_run(&e->z, "ns create %s --nsid 3 --size 16M --device hot --zoned "
				"--isolation channel:1", SUBNQN), 0);
	assert_int_equal(zfx_run(&e->z, "ns create %s --nsid 5 --size 24M --device hot --isolation "
				"channel:1", SUBNQN), 0);
	zch = ns_die(e, 3) / 2;
	hch = ns_die(e, 4) / 2;
	assert_int_equal(fx_ctrl(&e->z.fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	zfx_fill(zdata, 77, 0, 256);
	assert_int_equal(ini_write(c->io[0], 3, 0, 256, zdata, sizeof(zdata), true), 0);
	/* Namespace 5 wears its channel (no swap: no free channel to trade through), then goes. */
	for (int round = 0; round < 30; round++)
		hammer(e, c->io[0], 5, 40, &rnd);
	ini_ctrl_destroy(c);
	assert_int_equal(zfx_run(&e->z, "ns delete %s 5", SUBNQN), 0);
	assert_int_equal(fx_ctrl(&e->z.fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	for (int round = 0; round < 400 && !swapped; round++) {
		hammer(e, c->io[0], 4, 40, &rnd);
		assert_int_equal(zfx_run(&e->z, "--json migrate status"), 0);
		swapped = strstr(e->z.out, "\"nsid\":3") && strstr(e->z.out, "trades");
		if (!swapped && round % 10 == 9)
			usleep(200000);
	}
	if (!swapped)
		fail_msg("no swap: %s", e->z.out);
	for (int i = 0; i < 300; i++) {
		assert_int_equal(zfx_run(&e->z, "--json migrate status"), 0);
		if (!strstr(e->z.out, "\"running\"") && !strstr(e->z.out, "\"queued\""))
			break;
		usleep(100000);
	}
	assert_null(strstr(e->z.out, "\"failed\""));
	assert_null(strstr(e->z.out, "\"cancelled\""));
	assert_int_equal(ns_die(e, 4) / 2, zch);
	assert_int_not_equal(ns_die(e, 3) / 2, zch);
	assert_int_not_equal(ns_die(e, 3) / 2, hch);
	assert_int_equal(ini_read(c->io[0], 3, 0, 256, back, sizeof(back)), 0);
	assert_memory_equal(zdata, back, sizeof(back));
	zfx_fill(zdata, 78, 256, 16);
	assert_int_equal(ini_write(c->io[0], 3, 256, 16, zdata, 16 * LBA, true), 0);
	assert_int_equal(ini_read(c->io[0], 3, 256, 16, back, 16 * LBA), 0);
	assert_memory_equal(zdata, back, 16 * LBA);
	ini_ctrl_destroy(c);
	assert_int_equal(zfx_run(&e->z, "ns delete %s 3", SUBNQN), 0);
	assert_int_equal(zfx_run(&e->z, "ns delete %s 4", SUBNQN), 0);
	assert_int_equal(zfx_run(&e->z, "device delete hot"), 0);
}

int main(void)
{
	static const struct fx_group g =
		ZFX_GROUP("test_zoned_mig", subsystems, struct env, env_setup);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_migrate_under_io),
		cmocka_unit_test(test_kill9_mid_migration),
		cmocka_unit_test(test_swap),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
