/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad blocks through bloxctl and a host over loopback (docs/FAULTS.md):
 * a registered device made with factory bad blocks (device create
 * --factory-bad-ppm), a vSSD on it, and injected program failures
 * (fault inject program-fail). The factory bad blocks are counted by the
 * device and the namespace, take spares from the start (SMART Available
 * Spare below 100), the failed programs' blocks are remapped to spares of
 * their plane and Available Spare drops again, the host sees no error and
 * every LBA reads what it last wrote; a restart of bloxd finds the same
 * bad blocks and remap and the data.
 */
#include "faults_common.h"

#define SUBNQN "nqn.2026-12.io.blox:badblocks"

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"}]}]";

static int fixture_setup(void *arg)
{
	return faults_fx_setup(arg, SUBNQN);
}

static uint8_t avail_spare(struct faults_fx *f, uint32_t nsid, uint8_t *thresh, uint8_t *warn)
{
	struct nvme_smart_log sl;

	assert_int_equal(ini_get_log(f->c->admin, NVME_LOG_LID_SMART, nsid, 0, &sl, sizeof(sl)), 0);
	if (thresh)
		*thresh = sl.spare_thresh;
	if (warn)
		*warn = sl.critical_warning;
	return sl.avail_spare;
}

/* bloxd stopped and started again from its state file on the same ports; the host back. */
static void restart(struct faults_fx *f)
{
	faults_fx_teardown(f);
	fx_restart(&f->fx, false);
	assert_int_equal(faults_fx_setup(f, SUBNQN), 0);
}

static void test_factory_and_grown(void **state)
{
	struct faults_fx *f = *state;
	uint64_t factory, dev_factory, remapped, grown = 0;
	uint32_t n = 1024; /* LBAs of 4 KiB: the 4 MiB namespace */
	uint8_t spare0, spare1, spare2, thresh, warn;

	/* Bad input: past 10%, and not a number. */
	assert_int_equal(ctl(f, "device create nope --factory-bad-ppm 100001"), 1);
	assert_non_null(strstr(f->out, "factory_bad_ppm"));
	assert_int_equal(ctl(f, "device create nope --factory-bad-ppm lots"), 64); /* usage */
	assert_int_not_equal(ctl(f, "device show nope"), 0);

	/* 2% of the blocks bad from the factory, as datasheets allow at most. */
	assert_int_equal(ctl(f, "device create bflash --channels 1 --dies-per-channel 2 --planes 2 "
				"--pages-per-block 48 --blocks-per-plane 64 --factory-bad-ppm 20000 "
				"--reliability-seed 3"), 0);
	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 4 --size 4M --device bflash "
				"--isolation chip:2 --op-percent 30"), 0);
	factory = ns_stat(f, 4, "ftl", "factory_bad_blocks");
	dev_factory = ns_stat(f, 4, "nand", "factory_bad_blocks");
	remapped = ns_stat(f, 4, "ftl", "remapped_blocks");
	print_message("factory bad blocks: %lu of the device, %lu of the vSSD, %lu remapped\n",
		      (unsigned long)dev_factory, (unsigned long)factory, (unsigned long)remapped);
	assert_true(factory > 0);
	assert_true(dev_factory >= factory);
	assert_true(remapped > 0 && remapped <= factory);
	assert_true(ns_stat(f, 4, "ftl", "spare_blocks_used") > 0);
	assert_int_equal(ctl(f, "stats " SUBNQN " 4"), 0);
	assert_non_null(strstr(f->out, "from the factory"));
	spare0 = avail_spare(f, 4, &thresh, &warn);
	print_message("Available Spare %u%% (threshold %u%%) with the factory bad blocks\n", spare0,
		      thresh);
	assert_true(spare0 < 100);
	assert_true(spare0 > thresh);
	assert_int_equal(warn & 1, 0);

	faults_write_round(f, 4, n, 1);
	faults_verify(f, 4, n, 1);

	/* Grown bad blocks: the next two programs on die 0 fail. */
	assert_int_equal(ctl(f, "fault inject program-fail --device bflash --die 0 --count 2"), 0);
	for (uint32_t r = 2; r < 6; r++)
		faults_write_round(f, 4, n, r);
	assert_int_equal(ns_stat(f, 4, "nand", "grown_bad_blocks"), 2);
	/* GC empties the failed blocks' superblocks, then remaps them: no host I/O needed. */
	for (int i = 0; i < 300 && grown < 2; i++) {
		if (i)
			fx_sleep_ms(50);
		grown = ns_stat(f, 4, "ftl", "remapped_grown");
	}
	assert_int_equal(grown, 2);
	assert_int_equal(ns_stat(f, 4, "ftl", "remapped_blocks"), remapped + 2);
	assert_false(ns_stat(f, 4, "ftl", "read_only"));
	faults_verify(f, 4, n, 5);
	spare1 = avail_spare(f, 4, NULL, NULL);
	print_message("Available Spare %u%% after 2 grown bad blocks\n", spare1);
	assert_true(spare1 < spare0);
	assert_int_equal(ctl(f, "fault clear --all"), 0);

	/* A restart finds the same bad blocks and remap in the store, and the data. */
	restart(f);
	assert_int_equal(ns_stat(f, 4, "ftl", "factory_bad_blocks"), factory);
	assert_int_equal(ns_stat(f, 4, "nand", "factory_bad_blocks"), dev_factory);
	assert_int_equal(ns_stat(f, 4, "ftl", "remapped_blocks"), remapped + 2);
	spare2 = avail_spare(f, 4, NULL, NULL);
	assert_int_equal(spare2, spare1);
	faults_verify(f, 4, n, 5);
	faults_write_round(f, 4, n, 6);
	faults_verify(f, 4, n, 6);
}

int main(void)
{
	static const struct fx_group g = FAULTS_GROUP(subsystems, fixture_setup);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_factory_and_grown),
	};

	return FX_MAIN(&g, tests);
}
