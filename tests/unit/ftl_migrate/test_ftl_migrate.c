/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the online migration of one die of an FTL instance to
 * another die (ftl/migrate.c, ftl_migrate_*() in ftl.h). The files:
 *   mig_harness.c  the instance over half the dies of a device, a driver
 *                  with wake-ups, the persisted resources, a concurrent
 *                  load of writes, trims, reads and flushes
 *   mig_basic.c    an idle instance moves a die (every LBA reads back, the
 *                  old die ends erased and serves no read after); a block
 *                  range only; a concurrent load with reads checked as
 *                  they complete; a clean stop in the middle; refusals
 *   mig_control.c  pause and resume, cancel (running or paused), the
 *                  throttle's share, several migrations in a row
 *   mig_crash.c    crashes at chosen points of a superblock's move, at
 *                  random points over and over, while cancelling, and with
 *                  a caller that had not persisted the end
 *   mig_remap.c    a slot with a remapped bad block moves with its remap
 *   mig_faults.c   failing flash: programs and erases of the copy that
 *                  fail, the new die's known bad blocks, no room left there,
 *                  all of it under a load
 */
#include "migrate_tests.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_mig_idle),
		FX_TEST(test_mig_idle_range),
		FX_TEST(test_mig_concurrent),
		FX_TEST(test_mig_full_device),
		FX_TEST(test_mig_clean_restart),
		FX_TEST(test_mig_planes),
		FX_TEST(test_mig_refused),
		FX_TEST(test_mig_no_wl_while_moving),
		FX_TEST(test_mig_pause_resume),
		FX_TEST(test_mig_cancel),
		FX_TEST(test_mig_cancel_paused),
		FX_TEST(test_mig_throttle),
		FX_TEST(test_mig_chain),
		FX_TEST(test_mig_under_host_writes),
		FX_TEST(test_mig_crash_points),
		FX_TEST(test_mig_crash_cycles),
		FX_TEST(test_mig_crash_cancel),
		FX_TEST(test_mig_crash_lagging_caller),
		FX_TEST(test_mig_remap),
		FX_TEST(test_mig_pfail_copy),
		FX_TEST(test_mig_dst_bad_known),
		FX_TEST(test_mig_erase_fail),
		FX_TEST(test_mig_dst_no_room),
		FX_TEST(test_mig_faults_under_load),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
