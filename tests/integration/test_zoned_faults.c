/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zoned namespaces on failing flash (docs/FAULTS.md), over loopback
 * through bloxctl and the project's initiator:
 * - a program failure in a zone (fault inject program-fail on a die of
 *   the registered device a zoned vSSD is on): the write that met it
 *   fails with Write Fault (SCT 2h, SC 80h, DNR), the zone is Read Only in
 *   Report Zones and in the Changed Zone List (log BFh), later writes get
 *   Zone Is Read Only (SCT 1h, SC BAh), what was written before reads
 *   back, the other zones take writes and reads, ns show counts it; the
 *   host may then take it Offline;
 * - the same on a zoned namespace's own device (fault inject program-fail
 *   NQN NSID --die N) (die-offline: test_zoned_dieoff.c);
 * - factory bad blocks on the device of a zoned vSSD: it is made, the
 *   zones its good rows cannot hold are Offline from the start (Report
 *   Zones, ns show), the others take writes.
 */
#include "faults_common.h"
#include "zoned_common.h"

#define SUBNQN "nqn.2026-12.io.blox:zfaults"
#define WRITE_FAULT 0x4280 /* DNR, SCT 2h, SC 80h */
#define ZONE_RONLY 0x41ba /* DNR, SCT 1h, SC BAh */
#define ZONE_OFFLINE 0x41bb

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"}]}]";

static int fixture_setup(void *arg)
{
	return faults_fx_setup(arg, SUBNQN);
}

/* Zone @z's descriptor (@zsize LBAs a zone). */
static struct nvme_zns_desc zdesc(struct ini_queue *q, uint32_t nsid, uint64_t zsize, uint32_t z)
{
	return zfx_zone(q, nsid, z * zsize);
}

/* Member @key of ns show --json's "zones". */
static int64_t zsum(struct faults_fx *f, uint32_t nsid, const char *key)
{
	return zfx_ns_zones(&f->fx.d, SUBNQN, nsid, key);
}

static void fill(uint8_t *b, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n * BLK; i += 4) {
		uint32_t v = seed * 2654435761u + i;

		memcpy(b + i, &v, 4);
	}
}

/*
 * Zone 0 of namespace @nsid (on @c) meets a program failure @inject sets
 * up: Write Fault, Read Only, the rest as the file's comment says.
 */
static void program_fail_zone(struct faults_fx *f, struct ini_ctrl *c, uint32_t nsid,
			      uint64_t zsize, const char *inject)
{
	struct ini_queue *q = c->io[0];
	uint8_t *w = f->buf, *rd = f->buf + 32 * BLK;
	uint64_t first = UINT64_MAX;
	uint16_t changed;
	int st = 0;

	/* Written and durable before: 32 LBAs of zone 0, 8 of zone 1. */
	fill(w, 32, 1);
	assert_int_equal(ini_write(q, nsid, 0, 32, w, 32 * BLK, true), 0);
	fill(w, 8, 2);
	assert_int_equal(ini_write(q, nsid, zsize, 8, w, 8 * BLK, true), 0);
	assert_int_equal(zfx_changed_zones(c->admin, nsid, &first), 0);
	assert_int_equal(ctl(f, "%s", inject), 0);
	/* The next programs of zone 0 reach the die: the write that meets it fails. */
	for (uint32_t i = 0; i < 8 && !st; i++) {
		fill(w, 32, 10 + i);
		st = ini_write(q, nsid, 32 + i * 32, 32, w, 32 * BLK, true);
	}
	assert_int_equal(st, WRITE_FAULT);
	assert_int_equal(zdesc(q, nsid, zsize, 0).zs >> 4, 0xd); /* Read Only */
	assert_int_equal(zfx_report(q, nsid, 0, NVME_ZNS_ZRAS_REPORT_READ_ONLY, NULL, 0), 1);
	changed = zfx_changed_zones(c->admin, nsid, &first);
	assert_int_equal(changed, 1);
	assert_int_equal(first, 0);
	/* No more writes; what was durable reads back. */
	fill(w, 1, 99);
	assert_int_equal(ini_write(q, nsid, zdesc(q, nsid, zsize, 0).wp, 1, w, BLK, false),
			 ZONE_RONLY);
	assert_int_equal(ini_read(q, nsid, 0, 32, rd, 32 * BLK), 0);
	fill(w, 32, 1);
	assert_memory_equal(rd, w, 32 * BLK);
	/* The other zones go on. */
	fill(w, 8, 3);
	assert_int_equal(ini_write(q, nsid, zsize + 8, 8, w, 8 * BLK, true), 0);
	assert_int_equal(ini_read(q, nsid, zsize + 8, 8, rd, 8 * BLK), 0);
	assert_memory_equal(rd, w, 8 * BLK);
	assert_int_equal(zsum(f, nsid, "read_only"), 1);
	assert_int_equal(ctl(f, "ns show " SUBNQN " %u", nsid), 0);
	assert_non_null(strstr(f->out, "1 read only"));
	/* A reset is refused; the host takes it Offline, and its reads end. */
	assert_int_not_equal(ini_zone_send(q, nsid, 0, NVME_ZNS_ZSA_RESET, false), 0);
	assert_int_equal(ini_zone_send(q, nsid, 0, NVME_ZNS_ZSA_OFFLINE, false), 0);
	assert_int_equal(zdesc(q, nsid, zsize, 0).zs >> 4, 0xf);
	assert_int_equal(ini_read(q, nsid, 0, 1, rd, BLK), ZONE_OFFLINE);
	assert_int_equal(zsum(f, nsid, "offline"), 1);
	assert_int_equal(ctl(f, "fault clear --all"), 0);
}

static void test_program_fail_vssd(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c;

	assert_int_equal(ctl(f, "device create zpf --channels 1 --dies-per-channel 2 "
				"--pages-per-block 48 --blocks-per-plane 32"), 0);
	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 2 --device zpf --zoned --size 8M "
				"--zone-size 2M"), 0);
	assert_int_equal(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c), 0);
	program_fail_zone(f, c, 2, 512,
			  "fault inject program-fail --device zpf --die 0 --count 1");
	ini_ctrl_shutdown(c);
	ini_ctrl_destroy(c);
	assert_int_equal(ctl(f, "ns delete " SUBNQN " 2 --force"), 0);
	assert_int_equal(ctl(f, "device delete zpf"), 0);
}

static void test_program_fail_own(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c;

	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 3 --zoned --size 8M --zone-size 2M "
				"--channels 1 --dies-per-channel 2 --pages-per-block 48 "
				"--blocks-per-plane 32"), 0);
	assert_int_equal(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c), 0);
	program_fail_zone(f, c, 3, 512,
			  "fault inject program-fail " SUBNQN " 3 --die 1 --count 1");
	ini_ctrl_shutdown(c);
	ini_ctrl_destroy(c);
	assert_int_equal(ctl(f, "ns delete " SUBNQN " 3 --force"), 0);
}

/*
 * Factory bad blocks: 3 of the device's 256 blocks at seed 3 (as
 * integration_badblocks finds). A vSSD whose zones take every row of its
 * blocks has no spare row: each bad row costs a zone, Offline from the
 * start; the rest take writes.
 */
static void test_factory_bad(void **state)
{
	struct faults_fx *f = *state;
	struct ini_ctrl *c;
	struct ini_queue *q;
	uint8_t *w = f->buf, *rd = f->buf + 32 * BLK;
	uint32_t nz, off, written = 0;
	uint64_t zsize;
	int64_t dev_bad;

	assert_int_equal(ctl(f, "device create zbad --channels 1 --dies-per-channel 2 --planes 2 "
				"--pages-per-block 48 --blocks-per-plane 64 --factory-bad-ppm 20000 "
				"--reliability-seed 3"), 0);
	if (ctl(f, "ns create " SUBNQN " --nsid 4 --device zbad --zoned --isolation chip:2 --size 128M --zone-size 2M"))
		fail_msg("ns create: %s", f->out);
	nz = (uint32_t)zsum(f, 4, "zones");
	off = (uint32_t)zsum(f, 4, "offline");
	zsize = (uint64_t)zsum(f, 4, "zone_size") / BLK;
	dev_bad = (int64_t)ns_stat(f, 4, "nand", "factory_bad_blocks");
	print_message("%u zones, %u offline from the start; %ld factory bad blocks on the device\n",
		      nz, off, (long)dev_bad);
	assert_true(dev_bad > 0);
	assert_true(off > 0 && off <= (uint32_t)dev_bad);
	assert_int_equal(zsum(f, 4, "empty"), nz - off);
	assert_int_equal(fx_ctrl(&f->fx.d, SUBNQN, FX_HOST_A, 1, NULL, &c), 0);
	q = c->io[0];
	assert_int_equal(zfx_report(q, 4, 0, NVME_ZNS_ZRAS_REPORT_OFFLINE, NULL, 0), off);
	/* Every zone not offline takes a write and reads it back; an offline one refuses. */
	for (uint32_t z = 0; z < nz; z++) {
		struct nvme_zns_desc d = zdesc(q, 4, zsize, z);

		fill(w, 8, 100 + z);
		if (d.zs >> 4 == 0xf) {
			assert_int_equal(ini_write(q, 4, z * zsize, 8, w, 8 * BLK, true),
					 ZONE_OFFLINE);
			assert_int_equal(ini_zone_send(q, 4, z * zsize, NVME_ZNS_ZSA_RESET, false),
					 ZONE_OFFLINE);
			written++;
			continue;
		}
		assert_int_equal(d.zs >> 4, 0x1);
		assert_int_equal(ini_write(q, 4, z * zsize, 8, w, 8 * BLK, true), 0);
		assert_int_equal(ini_read(q, 4, z * zsize, 8, rd, 8 * BLK), 0);
		assert_memory_equal(rd, w, 8 * BLK);
	}
	assert_int_equal(written, off);
	ini_ctrl_shutdown(c);
	ini_ctrl_destroy(c);
	assert_int_equal(ctl(f, "ns delete " SUBNQN " 4 --force"), 0);
	assert_int_equal(ctl(f, "device delete zbad"), 0);
}

int main(void)
{
	static const struct fx_group g = FAULTS_GROUP(subsystems, fixture_setup);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_program_fail_vssd),
		cmocka_unit_test(test_program_fail_own),
		cmocka_unit_test(test_factory_bad),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
