/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die gone offline stays gone (docs/FAULTS.md): a vSSD on a registered
 * device loses die 1 (fault inject die-offline, not --persist); the LBAs
 * whose data was there read as Unrecovered Read Error. bloxd is stopped
 * and started again with the same command line: the device keeps the die
 * offline (its store), the die-offline fault is listed again, the same
 * LBAs fail and every other one reads its data; so after a power cut of
 * the vSSD. Then fault clear: the die comes back as a replaced, empty die,
 * the FTL takes it again without a restart, the lost LBAs still fail until
 * written, and every LBA written again reads back.
 */
#include <setjmp.h>
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
#define NSID 7
#define NLBA 1024u
#define BLK 4096u

struct die_t {
	struct fx_own o; /* the same command line at every start */
	struct ini_ctrl *c;
	char out[65536];
	uint8_t buf[32 * BLK];
};

/* bloxctl @args... against the test's bloxd, its output in t->out: its exit code. */
#define ctl(t, ...) fx_ctl(&(t)->o.d, (t)->out, sizeof((t)->out), __VA_ARGS__)

static void connect_host(struct die_t *t)
{
	assert_int_equal(fx_ctrl(&t->o.d, NQN, NULL, 1, NULL, &t->c), 0);
}

static void disconnect_host(struct die_t *t)
{
	if (!t->c)
		return;
	ini_ctrl_shutdown(t->c);
	ini_ctrl_destroy(t->c);
	t->c = NULL;
}

static void die_start(struct die_t *t)
{
	fx_own_start(&t->o);
	connect_host(t);
}

static void die_stop(struct die_t *t)
{
	disconnect_host(t);
	fx_own_stop(&t->o);
}

/* Block @lba as written in round @r: its LBA and round in every word. */
static void lba_fill(uint8_t *b, uint32_t lba, uint32_t r)
{
	for (uint32_t k = 0; k < BLK / 4; k++) {
		uint32_t v = k & 1 ? r : lba;

		memcpy(b + 4 * k, &v, 4);
	}
}

/* Every LBA written in round @r, then a Flush. */
static void write_all(struct die_t *t, uint32_t r)
{
	for (uint32_t lba = 0; lba < NLBA; lba += 32) {
		for (uint32_t k = 0; k < 32; k++)
			lba_fill(t->buf + k * BLK, lba + k, r);
		assert_int_equal(ini_write(t->c->io[0], NSID, lba, 32, t->buf, 32 * BLK, false), 0);
	}
	assert_int_equal(ini_flush(t->c->io[0], NSID), 0);
}

/*
 * Each LBA alone: round @r's data, or Unrecovered Read Error (@lost[lba]
 * set); nothing else. How many failed.
 */
static uint32_t read_all(struct die_t *t, uint32_t r, uint8_t *lost)
{
	uint8_t want[BLK];
	uint32_t n = 0;

	for (uint32_t lba = 0; lba < NLBA; lba++) {
		struct ini_req q;
		uint16_t st;

		ini_req_rw(&q, nvme_cmd_read, NSID, lba, 1, t->buf, BLK);
		assert_int_equal(ini_exec(t->c->io[0], &q), 0);
		st = ini_status(&q.cqe);
		lost[lba] = st != 0;
		if (st) {
			assert_int_equal(INI_SC_CODE(st), INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR));
			n++;
			continue;
		}
		lba_fill(want, lba, r);
		if (memcmp(t->buf, want, BLK))
			fail_msg("LBA %u: not round %u's data", lba, r);
	}
	return n;
}

/* The namespace's ftl.@key in stats --json. */
static uint64_t ftl_stat(struct die_t *t, const char *key)
{
	return (uint64_t)fx_ns_stat(&t->o.d, NQN, NSID, "ftl", key);
}

static void test_die_offline_restart(void **state)
{
	static struct die_t t;
	uint8_t lost0[NLBA], lost[NLBA];
	uint32_t failed;

	(void)state;
	fx_own_init(&t.o, "die");
	die_start(&t);
	assert_int_equal(ctl(&t, "device create dflash --channels 2 --dies-per-channel 2 "
				  "--planes 1 --pages-per-block 48 --blocks-per-plane 32"), 0);
	/* 40% over-provisioning: the capacity still fits on three dies of four. */
	assert_int_equal(ctl(&t, "ns create " NQN " --nsid %u --size 4M --device dflash "
				  "--isolation chip:4 --op-percent 40", NSID), 0);
	write_all(&t, 1);
	assert_int_equal(ctl(&t, "fault inject die-offline --device dflash --die 1"), 0);
	failed = read_all(&t, 1, lost0);
	print_message("die-offline: %u of %u LBAs read as errors\n", failed, NLBA);
	assert_true(failed > NLBA / 8 && failed < NLBA / 2);
	assert_int_equal(ftl_stat(&t, "dies_offline"), 1);

	/* The same command line again: the device kept the die offline. */
	die_stop(&t);
	die_start(&t);
	assert_int_equal(ctl(&t, "fault list"), 0);
	assert_non_null(strstr(t.out, "die-offline"));
	assert_int_equal(ftl_stat(&t, "dies_offline"), 1);
	assert_int_equal(read_all(&t, 1, lost), failed);
	assert_memory_equal(lost, lost0, NLBA);

	/* A power cut of the vSSD: rebuilt from flash without the die. */
	assert_int_equal(ctl(&t, "fault power-cut " NQN " %u", NSID), 0);
	disconnect_host(&t);
	connect_host(&t);
	assert_int_equal(ftl_stat(&t, "dies_offline"), 1);
	assert_int_equal(read_all(&t, 1, lost), failed);
	assert_memory_equal(lost, lost0, NLBA);

	/*
	 * Cleared: a replaced die, empty. The FTL takes it again without a
	 * restart (it asks the device every 50 ms; a busy machine gets up to
	 * 1000 tries here); what was lost stays lost until written.
	 */
	assert_int_equal(ctl(&t, "fault clear --all"), 0);
	for (int i = 0; i < 1000 && ftl_stat(&t, "dies_offline"); i++)
		fx_sleep_ms(20);
	assert_int_equal(ftl_stat(&t, "dies_offline"), 0);
	assert_int_equal(ftl_stat(&t, "dies_back"), 1);
	assert_int_equal(ctl(&t, "stats " NQN " %u", NSID), 0);
	assert_non_null(strstr(t.out, "dies offline 0"));
	assert_non_null(strstr(t.out, "back 1"));
	assert_int_equal(read_all(&t, 1, lost), failed);
	assert_memory_equal(lost, lost0, NLBA);
	write_all(&t, 2);
	assert_int_equal(read_all(&t, 2, lost), 0);
	/* And across a restart, with the die back. */
	die_stop(&t);
	die_start(&t);
	assert_int_equal(ctl(&t, "fault list"), 0);
	assert_non_null(strstr(t.out, "no faults"));
	assert_int_equal(ftl_stat(&t, "dies_offline"), 0);
	assert_int_equal(read_all(&t, 2, lost), 0);
	die_stop(&t);
	fx_own_fini(&t.o);
}

/*
 * A die no namespace uses any more: a vSSD loses die 1, then is deleted.
 * fault clear brings the die back (replaced) all the same, so that a
 * restart lists no die-offline fault and the device holds no die offline.
 */
static void test_die_offline_unused(void **state)
{
	static struct die_t t;
	uint8_t lost[NLBA];

	(void)state;
	fx_own_init(&t.o, "dieun");
	fx_own_start(&t.o);
	assert_int_equal(ctl(&t, "device create dflash --channels 2 --dies-per-channel 2 "
				  "--planes 1 --pages-per-block 48 --blocks-per-plane 32"), 0);
	assert_int_equal(ctl(&t, "ns create " NQN " --nsid %u --size 4M --device dflash "
				  "--isolation chip:4 --op-percent 40", NSID), 0);
	connect_host(&t);
	write_all(&t, 1);
	assert_int_equal(ctl(&t, "fault inject die-offline --device dflash --die 1"), 0);
	assert_true(read_all(&t, 1, lost) > 0);
	disconnect_host(&t);
	assert_int_equal(ctl(&t, "ns delete " NQN " %u", NSID), 0);
	assert_int_equal(ctl(&t, "fault clear --all"), 0);
	fx_own_stop(&t.o);
	fx_own_start(&t.o);
	assert_int_equal(ctl(&t, "fault list"), 0);
	assert_non_null(strstr(t.out, "no faults"));
	fx_own_stop(&t.o);
	fx_own_fini(&t.o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_die_offline_restart),
		cmocka_unit_test(test_die_offline_unused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
