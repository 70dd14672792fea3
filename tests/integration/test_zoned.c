/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zoned namespaces (issue 27) over loopback through the project's
 * initiator: a zns namespace of its own device from the config file.
 * Identify (CSI 2, ZNS Identify Namespace and Controller); writes at the
 * write pointer and every violation's status; Zone Append from four
 * queues at once, each block where its completion says; Report Zones and
 * its filters; open, close, finish, reset (and Select All); Max Open and
 * Max Active; a zoned vSSD made with bloxctl on a shared device, `ns show
 * --json` with its zones, a migration of it; QoS limits on writes and
 * appends, stats; the write pointers and the
 * data through a clean restart and through kill -9 after FUA writes and a
 * Flush.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "zoned_common.h"

#define SUBNQN "nqn.2026-12.io.blox:zns"
/* 4 dies x 48 pages of 4 LBAs = 768, less 12 pages kept for flushes: 720 in a 1024 zone. */
#define ZSIZE 1024u
#define ZCAP 720u
#define NZONES 16u
#define MAX_OPEN 4u
#define MAX_ACTIVE 6u
#define NQ 4
#define SC(x) (0x4000 | 0x100 | (x)) /* DNR, command specific */
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"zns\", \"size\": \"64M\","
	"   \"nand\": {\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 48}, \"zns\": {\"max_open\": 4, \"max_active\": 6}}"
	"] } ]";

struct env {
	struct zfx z; /* first: the zoned programs' struct */
	uint64_t wp[NZONES]; /* what the test knows is durable: flushed or FUA */
};

static int env_setup(void *arg)
{
	struct env *e = arg;

	return zfx_setup(&e->z, (uint64_t)NZONES * ZSIZE);
}

static struct ini_ctrl *ctrl_up(struct env *e)
{
	struct ini_ctrl *c = NULL;

	assert_int_equal(fx_ctrl(&e->z.fx.d, SUBNQN, NULL, NQ, NULL, &c), 0);
	return c;
}

static void ctrl_down(struct ini_ctrl *c)
{
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

/* Report Zones of nsid 1: @n descriptors from @slba under @filter into @d; the count. */
static uint64_t zones(struct ini_queue *q, uint64_t slba, uint8_t filter,
		      struct nvme_zns_desc *d, uint32_t n)
{
	return zfx_report(q, 1, slba, filter, d, n);
}

static struct nvme_zns_desc zone(struct ini_queue *q, uint32_t z)
{
	return zfx_zone(q, 1, (uint64_t)z * ZSIZE);
}

/* 1. What the host reads of a zoned namespace. */
static void test_identify(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	uint8_t buf[4096];
	const struct nvme_zns_id_ns *zid = (const void *)buf;
	struct nvme_id_ns id;
	struct nvme_sqe *s;
	struct ini_req r;

	assert_true((c->cap >> 37) & NVME_CAP_CSS_CSI);
	assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS, 1, 0, &id), 0);
	assert_int_equal(id.nsze, NZONES * ZSIZE);
	assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS_DESC_LIST, 1, 0, buf), 0);
	for (size_t off = 0; off < sizeof(buf) && buf[off]; off += 4 + buf[off + 1])
		if (buf[off] == NVME_NIDT_CSI)
			assert_int_equal(buf[off + 4], NVME_CSI_ZNS);
	ini_req_init(&r, nvme_admin_identify, 1, buf, sizeof(buf), INI_DIR_C2H);
	s = &r.sqe;
	s->cdw10 = NVME_IDENTIFY_CNS_CSI_NS;
	s->cdw11 = (uint32_t)NVME_CSI_ZNS << 24;
	assert_int_equal(ini_exec(c->admin, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	assert_int_equal(zid->lbafe[0].zsze, ZSIZE);
	assert_int_equal(zid->mor, MAX_OPEN - 1);
	assert_int_equal(zid->mar, MAX_ACTIVE - 1);
	assert_int_equal(zid->zoc, 0);
	assert_int_equal(zones(c->io[0], 0, NVME_ZNS_ZRAS_REPORT_EMPTY, NULL, 0), NZONES);
	ctrl_down(c);
}

/* 2. Writes at the write pointer; each violation's status; reads of the zone. */
static void test_write_rules(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	struct ini_queue *q = c->io[0];
	struct nvme_zns_desc d;

	assert_int_equal(zfx_write(&e->z, q, 0, 5, false), 0);
	assert_int_equal(zfx_write(&e->z, q, 5, 27, false), 0);
	assert_int_equal(zfx_write(&e->z, q, 40, 1, false), SC(NVME_SC_ZNS_INVALID_WRITE));
	for (uint32_t lba = 32; lba < ZCAP - 16; lba += 32)
		assert_int_equal(zfx_write(&e->z, q, lba, MIN(32u, ZCAP - 16 - lba), false), 0);
	assert_int_equal(zfx_write(&e->z, q, ZCAP - 16, 17, false), SC(NVME_SC_ZNS_BOUNDARY_ERROR));
	d = zone(q, 0);
	assert_int_equal(d.zs >> 4, NVME_ZNS_ZS_IMPL_OPEN);
	assert_int_equal(d.wp, ZCAP - 16);
	assert_int_equal(d.zcap, ZCAP);
	assert_int_equal(zfx_write(&e->z, q, ZCAP - 16, 16, false), 0);
	assert_int_equal(zone(q, 0).zs >> 4, NVME_ZNS_ZS_FULL);
	assert_int_equal(zfx_write(&e->z, q, ZCAP, 1, false), SC(NVME_SC_ZNS_FULL));
	zfx_check(&e->z, q, 0, 200);
	zfx_check(&e->z, q, 200, ZCAP - 200);
	zfx_check(&e->z, q, ZCAP, ZSIZE - ZCAP); /* past the capacity: zeroes */
	assert_int_equal(ini_zone_send(q, 1, 0, NVME_ZNS_ZSA_OPEN, false),
			 SC(NVME_SC_ZNS_INVAL_TRANSITION));
	assert_int_equal(ini_zone_send(q, 1, 7, NVME_ZNS_ZSA_OPEN, false), 0x4002);
	e->wp[0] = ZCAP;
	ctrl_down(c);
}

/* 3. Appends from four queues at once into one zone: each where its completion says. */
static void test_append(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	const uint64_t zslba = 1 * ZSIZE;
	struct ini_req r[NQ * 8];
	uint8_t *buf = malloc((size_t)NQ * 8 * 3 * LBA);
	bool seen[ZCAP] = { false };

	assert_non_null(buf);
	for (uint32_t i = 0; i < NQ * 8; i++) {
		uint8_t *b = buf + (size_t)i * 3 * LBA;

		zfx_fill(b, 1000 + i, 0, 3);
		ini_req_rw(&r[i], nvme_zns_cmd_append, 1, zslba, 3, b, 3 * LBA);
		assert_int_equal(ini_submit(c->io[i % NQ], &r[i]), 0);
	}
	for (uint32_t i = 0; i < NQ * 8; i++) {
		uint64_t lba;

		assert_int_equal(ini_wait(c->io[i % NQ], &r[i]), 0);
		assert_int_equal(ini_status(&r[i].cqe), 0);
		lba = r[i].cqe.result;
		assert_true(lba >= zslba && lba + 3 <= zslba + NQ * 8 * 3);
		for (uint32_t k = 0; k < 3; k++) {
			assert_false(seen[lba - zslba + k]);
			seen[lba - zslba + k] = true;
		}
		memcpy(e->z.model + lba * LBA, buf + (size_t)i * 3 * LBA, 3 * LBA);
	}
	assert_int_equal(zone(c->io[0], 1).wp, zslba + NQ * 8 * 3);
	zfx_check(&e->z, c->io[1], zslba, NQ * 8 * 3);
	/* Not a zone's start; past the capacity. */
	assert_int_equal(ini_zone_append(c->io[0], 1, zslba + 1, 1, buf, LBA, false, NULL), 0x4002);
	free(buf);
	e->wp[1] = zslba + NQ * 8 * 3;
	ctrl_down(c);
}

/* 4. Open, close, finish, reset; Max Open and Max Active; Select All. */
static void test_zone_actions(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	struct ini_queue *q = c->io[0];

	/* Zone 1 is open (appends); open 2..4 explicitly: four open. */
	for (uint32_t z = 2; z <= 4; z++)
		assert_int_equal(ini_zone_send(q, 1, z * ZSIZE, NVME_ZNS_ZSA_OPEN, false), 0);
	assert_int_equal(zones(q, 0, NVME_ZNS_ZRAS_REPORT_EXPL_OPENED, NULL, 0), 3);
	/* A fifth: zone 1, implicitly opened, is closed to make room. */
	assert_int_equal(zfx_write(&e->z, q, 5 * ZSIZE, 4, false), 0);
	assert_int_equal(zone(q, 1).zs >> 4, NVME_ZNS_ZS_CLOSED);
	/* Every open one explicit now: a sixth cannot open. */
	assert_int_equal(ini_zone_send(q, 1, 5 * ZSIZE, NVME_ZNS_ZSA_OPEN, false), 0);
	assert_int_equal(zfx_write(&e->z, q, 6 * ZSIZE, 1, false), SC(NVME_SC_ZNS_TOO_MANY_OPENS));
	/* Closed zone 2 (nothing written) goes back to Empty; zone 6 opens. */
	assert_int_equal(ini_zone_send(q, 1, 2 * ZSIZE, NVME_ZNS_ZSA_CLOSE, false), 0);
	assert_int_equal(zone(q, 2).zs >> 4, NVME_ZNS_ZS_EMPTY);
	assert_int_equal(zfx_write(&e->z, q, 6 * ZSIZE, 1, false), 0);
	/* Zone 3 (open, empty) closes to Empty too; zone 7 starts: active 1, 4, 5, 6, 7. */
	assert_int_equal(ini_zone_send(q, 1, 3 * ZSIZE, NVME_ZNS_ZSA_CLOSE, false), 0);
	assert_int_equal(zone(q, 3).zs >> 4, NVME_ZNS_ZS_EMPTY);
	assert_int_equal(zfx_write(&e->z, q, 7 * ZSIZE, 1, false), 0);
	/* A sixth active (zone 3 again; zone 6, implicitly opened first, is closed for it). */
	assert_int_equal(zfx_write(&e->z, q, 3 * ZSIZE, 2, false), 0);
	assert_int_equal(zone(q, 6).zs >> 4, NVME_ZNS_ZS_CLOSED);
	/* No seventh: neither by a write nor by a finish of an empty zone. */
	assert_int_equal(ini_zone_send(q, 1, 8 * ZSIZE, NVME_ZNS_ZSA_FINISH, false),
			 SC(NVME_SC_ZNS_TOO_MANY_ACTIVE));
	assert_int_equal(zfx_write(&e->z, q, 8 * ZSIZE, 1, false), SC(NVME_SC_ZNS_TOO_MANY_ACTIVE));
	/* Finish zone 7: Full with its LBA; the rest reads as zeroes. */
	assert_int_equal(ini_zone_send(q, 1, 7 * ZSIZE, NVME_ZNS_ZSA_FINISH, false), 0);
	assert_int_equal(zone(q, 7).zs >> 4, NVME_ZNS_ZS_FULL);
	zfx_check(&e->z, q, 7 * ZSIZE, 8);
	/* Reset zone 7: erased, written again from its start. */
	assert_int_equal(ini_zone_send(q, 1, 7 * ZSIZE, NVME_ZNS_ZSA_RESET, false), 0);
	memset(e->z.model + (size_t)7 * ZSIZE * LBA, 0, LBA);
	zfx_check(&e->z, q, 7 * ZSIZE, 4);
	assert_int_equal(zfx_write(&e->z, q, 7 * ZSIZE, 9, true), 0);
	zfx_check(&e->z, q, 7 * ZSIZE, 9);
	/* Close all: no open zone left; the written ones (1, 3, 5, 6, 7) are closed. */
	assert_int_equal(ini_zone_send(q, 1, 0, NVME_ZNS_ZSA_CLOSE, true), 0);
	assert_int_equal(zones(q, 0, NVME_ZNS_ZRAS_REPORT_IMPL_OPENED, NULL, 0) +
				 zones(q, 0, NVME_ZNS_ZRAS_REPORT_EXPL_OPENED, NULL, 0),
			 0);
	assert_int_equal(zones(q, 0, NVME_ZNS_ZRAS_REPORT_CLOSED, NULL, 0), 5);
	assert_int_equal(zone(q, 4).zs >> 4, NVME_ZNS_ZS_EMPTY);
	/* Make the writes so far durable: zones 5, 6, 7 as they are. */
	assert_int_equal(ini_flush(q, 1), 0);
	for (uint32_t z = 2; z < NZONES; z++)
		e->wp[z] = zone(q, z).wp;
	ctrl_down(c);
}

/* 5. A zoned vSSD through bloxctl on a shared device; ns show --json; a migration. */
static void test_bloxctl(void **state)
{
	struct env *e = *state;
	struct json_object *o, *zs, *v;
	uint32_t id;

	assert_int_equal(zfx_run(&e->z, "device create dz --channels 2 --dies-per-channel 2 "
				"--pages-per-block 48 --blocks-per-plane 32"),
			 0);
	assert_int_equal(zfx_run(&e->z, "ns create %s --nsid 2 --device dz --zoned --size 16M "
				"--zone-size 4M --max-open 2",
			     SUBNQN),
			 0);
	assert_int_equal(zfx_run(&e->z, "--json ns show %s 2", SUBNQN), 0);
	o = json_tokener_parse(e->z.out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "zones", &zs));
	assert_true(json_object_object_get_ex(zs, "zones", &v));
	assert_int_equal(json_object_get_int(v), 4);
	assert_true(json_object_object_get_ex(zs, "empty", &v));
	assert_int_equal(json_object_get_int(v), 4);
	assert_true(json_object_object_get_ex(zs, "max_open", &v));
	assert_int_equal(json_object_get_int(v), 2);
	json_object_put(o);
	assert_int_equal(zfx_run(&e->z, "ns show %s 1", SUBNQN), 0);
	assert_non_null(strstr(e->z.out, "zones"));
	/* Its dies move like an FTL vSSD's (test_zoned_mig.c moves them under I/O). */
	id = fx_mig_start(&e->z.fx.d, SUBNQN, 2, "--to-chips 3 --share 1000");
	fx_mig_wait(&e->z.fx.d, id, "done", 30);
	assert_int_equal(zfx_run(&e->z, "ns delete %s 2", SUBNQN), 0);
	assert_int_equal(zfx_run(&e->z, "device delete dz"), 0);
}

/*
 * 6. QoS and statistics on a zoned namespace: a write IOPS limit holds
 * writes and appends alike (none fails for it); stats --json counts them.
 */
static void test_qos_stats(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	struct ini_queue *q = c->io[0];
	const uint64_t z = 12 * ZSIZE;
	uint8_t buf[LBA];
	int64_t t0;
	uint64_t lba;

	assert_int_equal(zfx_run(&e->z, "qos set %s 1 --write-iops 200 --burst-ms 10", SUBNQN), 0);
	t0 = fx_now_ms();
	for (uint32_t i = 0; i < 50; i++) {
		zfx_fill(buf, 5000 + i, z + i, 1);
		if (i % 2) {
			assert_int_equal(ini_zone_append(q, 1, z, 1, buf, LBA, false, &lba), 0);
			assert_int_equal(lba, z + i);
		} else {
			assert_int_equal(ini_write(q, 1, z + i, 1, buf, LBA, false), 0);
		}
		memcpy(e->z.model + (z + i) * LBA, buf, LBA);
	}
	/* 50 at 200 a second, 2 in the burst: about a quarter of a second. */
	assert_true(fx_now_ms() - t0 >= 200);
	assert_int_equal(zfx_run(&e->z, "qos set %s 1 --write-iops 0 --burst-ms 100", SUBNQN), 0);
	zfx_check(&e->z, q, z, 50);
	e->wp[12] = z + 50;
	assert_int_equal(ini_flush(q, 1), 0);
	assert_int_equal(zfx_run(&e->z, "--json stats %s 1", SUBNQN), 0);
	assert_non_null(strstr(e->z.out, "write_cmds"));
	ctrl_down(c);
}

/* Every zone's data up to its write pointer, and no write pointer behind the durable one. */
static void check_zones(struct env *e, struct ini_ctrl *c, bool exact)
{
	for (uint32_t z = 0; z < NZONES; z++) {
		struct nvme_zns_desc d = zone(c->io[0], z);
		uint64_t start = (uint64_t)z * ZSIZE, wp = d.wp;

		if ((d.zs >> 4) == NVME_ZNS_ZS_FULL)
			wp = start + ZCAP;
		if (exact && wp != e->wp[z])
			fail_msg("zone %u: write pointer %lu, want %lu", z, (unsigned long)wp,
				 (unsigned long)e->wp[z]);
		if (wp < e->wp[z])
			fail_msg("zone %u: write pointer %lu behind %lu", z, (unsigned long)wp,
				 (unsigned long)e->wp[z]);
		for (uint64_t lba = start; lba < e->wp[z]; lba += 64)
			zfx_check(&e->z, c->io[z % NQ], lba, (uint32_t)MIN(64, e->wp[z] - lba));
	}
}

/* 7. A clean restart: the write pointers and the data as they were; zones Closed or Full. */
static void test_restart(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;

	fx_restart(&e->z.fx, false);
	c = ctrl_up(e);
	check_zones(e, c, true);
	assert_int_equal(zones(c->io[0], 0, NVME_ZNS_ZRAS_REPORT_IMPL_OPENED, NULL, 0), 0);
	/* Writing goes on where it was. */
	assert_int_equal(zfx_write(&e->z, c->io[0], e->wp[5], 3, true), 0);
	e->wp[5] += 3;
	ctrl_down(c);
}

/*
 * 8. kill -9 after FUA writes and after plain ones and a Flush: the write
 * pointers are at least where they were made durable, the data is there,
 * and writing goes on at the write pointer.
 */
static void test_kill9(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	uint64_t rng = e->z.fx.seed ^ 0x2a;

	/* Finish all: the active zones (1, 3, 5, 6, 7, 12) are Full, four new ones may start. */
	assert_int_equal(ini_zone_send(c->io[0], 1, 0, NVME_ZNS_ZSA_FINISH, true), 0);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	for (uint32_t z = 0; z < NZONES; z++)
		if ((zone(c->io[0], z).zs >> 4) == NVME_ZNS_ZS_FULL)
			e->wp[z] = (uint64_t)z * ZSIZE + ZCAP;
	assert_int_equal(zones(c->io[0], 0, NVME_ZNS_ZRAS_REPORT_FULL, NULL, 0), 7);
	for (uint32_t z = 8; z < 12; z++) {
		struct ini_queue *q = c->io[z % NQ];
		uint64_t lba = e->wp[z];

		/* Ten FUA writes: each costs at most a page of the zone's twelve kept. */
		for (uint32_t i = 0; i < 10; i++) {
			uint32_t n = 1 + (uint32_t)(fx_rand(&rng) % 9);

			assert_int_equal(zfx_write(&e->z, q, lba, n, z % 2 == 0), 0);
			lba += n;
			if (z % 2 == 0)
				e->wp[z] = lba;
		}
		if (z == 9) {
			assert_int_equal(ini_flush(q, 1), 0);
			e->wp[z] = lba;
		}
		/* Zone 11: written, never flushed; what survives is up to the device. */
	}
	ini_ctrl_destroy(c);
	fx_restart(&e->z.fx, true);
	c = ctrl_up(e);
	check_zones(e, c, false);
	for (uint32_t z = 8; z < 12; z++) {
		uint64_t wp = zone(c->io[0], z).wp;

		assert_int_equal(zfx_write(&e->z, c->io[0], wp, 4, true), 0);
		zfx_check(&e->z, c->io[0], wp, 4);
	}
	ctrl_down(c);
}

int main(void)
{
	static const struct fx_group g = ZFX_GROUP("test_zoned", subsystems, struct env, env_setup);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identify),
		cmocka_unit_test(test_write_rules),
		cmocka_unit_test(test_append),
		cmocka_unit_test(test_zone_actions),
		cmocka_unit_test(test_bloxctl),
		cmocka_unit_test(test_qos_stats),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_kill9),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
