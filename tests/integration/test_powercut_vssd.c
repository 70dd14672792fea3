/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Power cuts of vSSDs on a registered device (bloxctl fault power-cut;
 * docs/FAULTS.md), seen from hosts over loopback. Two subsystems, each with
 * one software vSSD of the same device (so both write to the same dies):
 * the cut one loses power while a host writes to it, the neighbour serves a
 * write-and-read-back load throughout. After the cut every LBA flushed on
 * the cut vSSD reads back as written (an unflushed one as written or as
 * before), the neighbour saw no failed command and holds everything it
 * wrote, flushed or not, and the SMART log's Unsafe Shutdowns counts the
 * cut on the cut vSSD alone. Then the whole device loses power: both
 * vSSDs are cut and come back, the flushed data of each intact; so with a
 * zoned vSSD on it (write pointers and flushed data as before the cut). A
 * vSSD whose die migration is paused half way is cut and carries on. A
 * device with vSSDs with power-loss protection loses power with one
 * hold-up for all (powercut_vssd_plp.c). The cuts that stay refused say
 * why, and cost nothing.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <nvme/types.h>

#include "powercut_vssd.h"

/* One vSSD of the device loses power, its neighbour on the same dies serves on. */
static void test_vssd_cut(void **state)
{
	struct pcv *f = *state;
	static uint32_t gens[NLBA];
	struct ini_ctrl *a, *b;
	struct pcv_nb nb = { 0 };
	uint64_t us_a, us_b;
	uint32_t exact;

	pcv_make_device(f);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_A " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	a = pcv_connect_to(f, NQN_A);
	b = pcv_connect_to(f, NQN_B);
	us_a = pcv_unsafe_shutdowns(a);
	us_b = pcv_unsafe_shutdowns(b);
	/* Flushed, then more without a Flush, on both. */
	pcv_write_flushed(f, a, b);
	pcv_write_range(f, a, 'A', FLUSHED, LOOSE, 1);
	pcv_write_range(f, a, 'A', 0, OVER, 2);
	pcv_write_range(f, b, 'B', FLUSHED, LOOSE, 1);
	pcv_write_range(f, b, 'B', 0, OVER, 2);

	/* A host writing to A when the power goes, B's load throughout. */
	a = pcv_cut_a(f, a, pcv_load_until_drop, b, gens, &nb,
		      "bloxctl fault power-cut " NQN_A " 1 --json");
	assert_true(nb.writes > 0);

	/* A: flushed intact, the rest old or new; B: everything as written. */
	exact = pcv_check_range(f, a, 'A', OVER, FLUSHED - OVER, 1, -1);
	assert_int_equal(exact, FLUSHED - OVER);
	exact = pcv_check_range(f, a, 'A', 0, OVER, 2, 1);
	printf("  cut vSSD: %u flushed LBAs intact; of %u rewritten without a Flush %u new", FLUSHED - OVER,
	       OVER, exact);
	exact = pcv_check_range(f, a, 'A', FLUSHED, LOOSE, 1, 0);
	printf(", of %u written without a Flush %u there\n", LOOSE, exact);
	assert_int_equal(pcv_check_range(f, b, 'B', 0, OVER, 2, -1), OVER);
	assert_int_equal(pcv_check_range(f, b, 'B', OVER, FLUSHED + LOOSE - OVER, 1, -1),
			 FLUSHED + LOOSE - OVER);
	for (uint32_t lba = LOAD_LBA; lba < NLBA; lba++)
		if (gens[lba])
			assert_int_equal(pcv_check_range(f, b, 'B', lba, 1, gens[lba], -1), 1);
	assert_int_equal(pcv_unsafe_shutdowns(a), us_a + 1);
	assert_int_equal(pcv_unsafe_shutdowns(b), us_b);
	/* The cut vSSD writes and reads again. */
	pcv_write_range(f, a, 'A', 0, 64, 3);
	assert_int_equal(pcv_check_range(f, a, 'A', 0, 64, 3, -1), 64);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
}

/* A cut that stays refused says why and costs nothing: the host stays connected. */
static void refused(struct pcv *f, struct ini_ctrl *c, uint32_t nsid, const char *why)
{
	assert_int_equal(pcv_ctl(f, "fault power-cut " NQN_A " %u", nsid), 4);
	if (!strstr(f->out, why))
		fail_msg("fault power-cut of namespace %u: %s (want '%s')", nsid, f->out, why);
	printf("  namespace %u refused: %s", nsid, f->out);
	assert_int_equal(ini_keep_alive(c->admin), 0);
	assert_int_equal(pcv_check_range(f, c, 'A', 0, 16, 1, -1), 16);
}

static void test_refusals(void **state)
{
	struct pcv *f = *state;
	struct ini_ctrl *c;
	uint64_t us;
	unsigned id;

	pcv_make_device(f);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_A " --nsid 1 --size 4M --device flash "
				"--isolation chip:1"), 0);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_A " --nsid 2 --size 4M --device flash "
				"--isolation software --plp-ms 50"), 0);
	c = pcv_connect_to(f, NQN_A);
	us = pcv_unsafe_shutdowns(c);
	pcv_write_range(f, c, 'A', 0, 1024, 1);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	/* With power-loss protection it loses power only with its device. */
	refused(f, c, 2, "cut the device instead");
	/* A migration paused half way: refused until it is cancelled. */
	assert_int_equal(pcv_ctl(f, "--json migrate start " NQN_A " 1 --to-chips 1 --share 50"), 0);
	assert_int_equal(sscanf(strstr(f->out, "\"id\"") ? strstr(f->out, "\"id\"") : "", "\"id\":%u",
				&id),
			 1);
	assert_int_equal(pcv_ctl(f, "migrate pause %u", id), 0);
	/*
	 * The vSSD whose die migrates (paused half way) loses power: rebuilt with
	 * its migration as a restart takes it back, the job still paused; resumed,
	 * it ends; every flushed LBA reads back through it all.
	 */
	assert_int_equal(pcv_ctl(f, "fault power-cut " NQN_A " 1"), 0);
	ini_ctrl_destroy(c);
	c = pcv_connect_to(f, NQN_A);
	assert_int_equal(pcv_unsafe_shutdowns(c), us + 1);
	assert_int_equal(pcv_check_range(f, c, 'A', 0, 1024, 1, -1), 1024);
	assert_int_equal(pcv_ctl(f, "--json migrate status %u", id), 0);
	assert_non_null(strstr(f->out, "\"state\":\"paused\""));
	assert_int_equal(pcv_ctl(f, "migrate resume %u", id), 0);
	for (int i = 0; i < 600; i++) {
		assert_int_equal(pcv_ctl(f, "--json migrate status %u", id), 0);
		if (strstr(f->out, "\"state\":\"done\""))
			break;
		fx_sleep_ms(100);
	}
	assert_non_null(strstr(f->out, "\"state\":\"done\""));
	assert_int_equal(pcv_check_range(f, c, 'A', 0, 1024, 1, -1), 1024);
	us++;
	assert_int_equal(pcv_ctl(f, "fault power-cut --device nosuch"), 2);
	assert_non_null(strstr(f->out, "device nosuch not found"));
	assert_int_equal(pcv_ctl(f, "fault power-cut --device flash " NQN_A " 1"), 64);
	assert_int_equal(pcv_ctl(f, "fault power-cut --device"), 64);
	assert_int_equal(ini_keep_alive(c->admin), 0);
	assert_int_equal(pcv_unsafe_shutdowns(c), us);
	ini_ctrl_destroy(c);
}

/* Registrants of namespace 1 (Reservation Report's REGCTL). */
static unsigned registrants(struct ini_ctrl *c)
{
	uint8_t buf[4096];

	memset(buf, 0, sizeof(buf));
	assert_int_equal(ini_resv_report(c->io[0], 1, true, buf, sizeof(buf)), 0);
	return (unsigned)buf[5] | (unsigned)buf[6] << 8;
}

/* The whole device loses power: every vSSD on it at once. */
static void test_device_cut(void **state)
{
	struct pcv *f = *state;
	struct ini_ctrl *a, *b;
	uint64_t us_a, us_b;
	char path[128];
	pid_t load, cut;
	int st;

	pcv_make_device(f);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_A " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation chip:1", NS_MIB), 0);
	a = pcv_connect_to(f, NQN_A);
	b = pcv_connect_to(f, NQN_B);
	us_a = pcv_unsafe_shutdowns(a);
	us_b = pcv_unsafe_shutdowns(b);
	pcv_write_flushed(f, a, b);
	pcv_write_range(f, a, 'A', 0, OVER, 2);
	pcv_write_range(f, b, 'B', 0, OVER, 2);
	/* A reservation key without Persist Through Power Loss: gone with the power. */
	assert_int_equal(ini_resv_register(b->io[0], 1, 0, 0, 0x1234), 0);
	assert_int_equal(registrants(b), 1);
	/* A host writing to A when the power goes. */
	load = fork();
	assert_true(load >= 0);
	if (load == 0)
		pcv_load_until_drop(a);
	snprintf(path, sizeof(path), "%s/cut.json", f->d.dir);
	cut = pcv_cut_later(f, 300, path, "--device flash");
	assert_int_equal(fx_wait_child(cut, 60000), 0);
	pcv_print_cut("bloxctl fault power-cut --device flash --json", path);
	assert_int_equal(fx_wait_child(load, 30000), 0);
	/* B's host lost its connection too. */
	st = ini_keep_alive(b->admin);
	assert_int_not_equal(st, 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
	a = pcv_connect_to(f, NQN_A);
	b = pcv_connect_to(f, NQN_B);
	assert_int_equal(pcv_check_range(f, a, 'A', OVER, FLUSHED - OVER, 1, -1), FLUSHED - OVER);
	assert_int_equal(pcv_check_range(f, b, 'B', OVER, FLUSHED - OVER, 1, -1), FLUSHED - OVER);
	printf("  after the device's cut: of %u rewritten without a Flush, %u new on A, %u on B\n",
	       OVER, pcv_check_range(f, a, 'A', 0, OVER, 2, 1),
	       pcv_check_range(f, b, 'B', 0, OVER, 2, 1));
	assert_int_equal(pcv_unsafe_shutdowns(a), us_a + 1);
	assert_int_equal(pcv_unsafe_shutdowns(b), us_b + 1);
	assert_int_equal(registrants(b), 0);
	pcv_write_range(f, b, 'B', 0, 64, 3);
	assert_int_equal(pcv_check_range(f, b, 'B', 0, 64, 3, -1), 64);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vssd_cut, pcv_setup, pcv_teardown),
		cmocka_unit_test_setup_teardown(test_refusals, pcv_setup, pcv_teardown),
		cmocka_unit_test_setup_teardown(test_device_cut, pcv_setup, pcv_teardown),
		cmocka_unit_test_setup_teardown(test_512_cut, pcv_setup, pcv_teardown),
		cmocka_unit_test_setup_teardown(test_zns_cut, pcv_setup, pcv_teardown),
		cmocka_unit_test_setup_teardown(test_device_cut_plp, pcv_setup, pcv_teardown),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return FX_MAIN(NULL, tests);
}
