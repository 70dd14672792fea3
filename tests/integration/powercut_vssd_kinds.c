/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_powercut_vssd, the cuts of vSSDs of other kinds: one of
 * 512-byte blocks (its read-modify-writes in flight at the cut, the
 * flushed sectors intact) and a zoned one (its write pointers recovered as
 * after kill -9; then its device's cut with its neighbour). See
 * powercut_vssd.h.
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

/* 512-byte sector @lba as written the @gen'th time. */
static void sector(uint8_t *p, uint32_t lba, uint32_t gen)
{
	memset(p, (int)((lba * 31u + gen) & 0xff) | 1, 512);
	memcpy(p, &lba, 4);
	memcpy(p + 4, &gen, 4);
}

/* A host writing 3-sector runs at odd sectors (read-modify-writes) until its connection drops. */
static void load512_until_drop(struct ini_ctrl *c)
{
	static struct ini_req rq[QD];
	static uint8_t bufs[QD][3 * 512];
	uint64_t s = (uint64_t)getpid();
	struct ini_req *done[QD];
	int64_t t0 = fx_now_ms();

	for (uint32_t i = 0; i < QD; i++) {
		uint32_t lba = 8 * LOAD_LBA + 2 * (uint32_t)(ini_xorshift(&s) % (3 * LOAD_LBA)) + 1;

		for (uint32_t k = 0; k < 3; k++)
			sector(bufs[i] + k * 512, lba + k, 9);
		ini_req_rw(&rq[i], nvme_cmd_write, 1, lba, 3, bufs[i], 3 * 512);
		if (ini_submit(c->io[0], &rq[i]))
			_exit(0);
	}
	while (fx_now_ms() - t0 < 60000) {
		int n = ini_poll(c->io[0], done, QD);

		if (n <= 0)
			_exit(0);
		for (int i = 0; i < n; i++) {
			uint32_t lba = 8 * LOAD_LBA + 2 * (uint32_t)(ini_xorshift(&s) % (3 * LOAD_LBA)) + 1;

			for (uint32_t k = 0; k < 3; k++)
				sector((uint8_t *)done[i]->buf + k * 512, lba + k, 9);
			ini_req_rw(done[i], nvme_cmd_write, 1, lba, 3, done[i]->buf, 3 * 512);
			if (ini_submit(c->io[0], done[i]))
				_exit(0);
		}
	}
	_exit(3);
}

/* A vSSD with 512-byte blocks: its read-modify-writes in flight cut, the flushed sectors intact. */
void test_512_cut(void **state)
{
	struct pcv *f = *state;
	static uint32_t gens[NLBA];
	struct ini_ctrl *a, *b;
	struct pcv_nb nb = { 0 };
	const uint32_t n512 = 8 * FLUSHED; /* sectors written and flushed */
	uint8_t want[512];
	uint64_t us_a;

	pcv_make_device(f);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_A " --nsid 1 --size %uM --device flash "
				"--isolation software --block-size 512", NS_MIB), 0);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	a = pcv_connect_to(f, NQN_A);
	b = pcv_connect_to(f, NQN_B);
	us_a = pcv_unsafe_shutdowns(a);
	/* Runs of 13 sectors: most start and end inside a 4 KiB unit. */
	for (uint32_t lba = 0; lba < n512; lba += 13) {
		uint32_t nlb = n512 - lba < 13 ? n512 - lba : 13;

		for (uint32_t k = 0; k < nlb; k++)
			sector(f->buf + k * 512, lba + k, 1);
		assert_int_equal(ini_write(a->io[0], 1, lba, nlb, f->buf, nlb * 512, false), 0);
	}
	assert_int_equal(ini_flush(a->io[0], 1), 0);
	a = pcv_cut_a(f, a, load512_until_drop, b, gens, &nb,
		      "bloxctl fault power-cut " NQN_A " 1 --json (512-byte blocks)");
	for (uint32_t lba = 0; lba < n512; lba += 16) {
		assert_int_equal(ini_read(a->io[0], 1, lba, 16, f->buf, 16 * 512), 0);
		for (uint32_t k = 0; k < 16; k++) {
			sector(want, lba + k, 1);
			if (memcmp(want, f->buf + k * 512, 512))
				fail_msg("sector %u of the cut vSSD is not as flushed", lba + k);
		}
	}
	assert_int_equal(pcv_unsafe_shutdowns(a), us_a + 1);
	/* Writes again, unaligned, and reads them back. */
	for (uint32_t k = 0; k < 5; k++)
		sector(f->buf + k * 512, 3 + k, 4);
	assert_int_equal(ini_write(a->io[0], 1, 3, 5, f->buf, 5 * 512, false), 0);
	assert_int_equal(ini_read(a->io[0], 1, 0, 16, f->buf + 8192, 16 * 512), 0);
	assert_memory_equal(f->buf, f->buf + 8192 + 3 * 512, 5 * 512);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
}

static uint64_t zone_wp_cap(struct ini_ctrl *c, uint64_t zslba, uint64_t *cap)
{
	uint8_t buf[128];
	const struct nvme_zone_report *r = (const void *)buf;

	memset(buf, 0, sizeof(buf));
	assert_int_equal(ini_zone_report(c->io[0], 1, zslba, NVME_ZNS_ZRAS_REPORT_ALL, false, buf,
					 sizeof(buf)),
			 0);
	assert_true(r->nr_zones >= 1);
	if (cap)
		*cap = r->entries[0].zcap;
	return (uint64_t)r->entries[0].wp; /* little-endian host, as test_zoned reads it */
}

static uint64_t zone_wp(struct ini_ctrl *c, uint64_t zslba)
{
	return zone_wp_cap(c, zslba, NULL);
}

/* A host appending to zone 2 of the zoned vSSD until its connection drops (a child process). */
static void append_until_drop(struct ini_ctrl *c)
{
	static uint8_t buf[4 * BLK];
	int64_t t0 = fx_now_ms();
	uint64_t lba;

	memset(buf, 0x5a, sizeof(buf));
	while (fx_now_ms() - t0 < 60000) {
		int st = ini_zone_append(c->io[0], 1, 2048, 4, buf, sizeof(buf), false, &lba);

		if (st < 0)
			_exit(0); /* the drop */
		if (st > 0 && ini_zone_send(c->io[0], 1, 2048, NVME_ZNS_ZSA_RESET, false) < 0)
			_exit(0); /* full: reset it and go on */
	}
	_exit(3);
}

/*
 * A zoned vSSD: its write pointers recovered from flash as after kill -9;
 * then its device's cut takes it and its neighbour together.
 */
void test_zns_cut(void **state)
{
	struct pcv *f = *state;
	static uint32_t gens[NLBA];
	const uint64_t z1 = 1024; /* zone 1's first LBA (4 MiB zones) */
	struct ini_ctrl *a, *b;
	struct pcv_nb nb = { 0 };
	uint64_t us_a, us_b, wp0, wp1, cap;
	uint32_t n0;

	pcv_make_device(f);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_A " --nsid 1 --device flash --zoned "
				"--size 16M --zone-size 4M --max-open 2"), 0);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	a = pcv_connect_to(f, NQN_A);
	b = pcv_connect_to(f, NQN_B);
	us_a = pcv_unsafe_shutdowns(a);
	assert_int_equal(zone_wp_cap(a, 0, &cap), 0);
	n0 = (uint32_t)(cap / 2 / 16 * 16) + 5; /* ends inside a page */
	assert_true(n0 + 37 < cap);
	/* Zone 0: n0 LBAs flushed, 37 more not; zone 1: 100 flushed. */
	pcv_write_range(f, a, 'A', 0, n0, 1);
	pcv_write_range(f, a, 'A', z1, 100, 1);
	assert_int_equal(ini_flush(a->io[0], 1), 0);
	pcv_write_range(f, a, 'A', n0, 37, 1);
	a = pcv_cut_a(f, a, append_until_drop, b, gens, &nb,
		      "bloxctl fault power-cut " NQN_A " 1 --json (zoned)");
	wp0 = zone_wp(a, 0);
	wp1 = zone_wp(a, z1);
	printf("  write pointers after the cut (capacity %llu): zone 0 at %llu (%u flushed, %u "
	       "written), zone 1 at %llu (100 flushed)\n",
	       (unsigned long long)cap, (unsigned long long)wp0, n0, n0 + 37,
	       (unsigned long long)(wp1 - z1));
	assert_true(wp0 >= n0 && wp0 <= n0 + 37);
	assert_true(wp1 >= z1 + 100 && wp1 <= z1 + 100 + 16);
	assert_int_equal(pcv_check_range(f, a, 'A', 0, n0, 1, -1), n0);
	assert_int_equal(pcv_check_range(f, a, 'A', z1, 100, 1, -1), 100);
	assert_int_equal(pcv_unsafe_shutdowns(a), us_a + 1);
	printf("  zone 2, appended to at the cut: write pointer %llu\n",
	       (unsigned long long)(zone_wp(a, 2048) - 2048));
	assert_true(zone_wp(a, 2048) <= 2048 + cap);
	/* Writes go on at the recovered write pointer. */
	pcv_write_range(f, a, 'A', wp0, 16, 2);
	assert_int_equal(pcv_check_range(f, a, 'A', wp0, 16, 2, -1), 16);
	assert_int_equal(zone_wp(a, 0), wp0 + 16);
	/* The whole device: the zoned vSSD and its neighbour lose power together. */
	us_a = pcv_unsafe_shutdowns(a);
	us_b = pcv_unsafe_shutdowns(b);
	assert_int_equal(ini_flush(a->io[0], 1), 0);
	pcv_write_range(f, b, 'B', 0, 64, 5);
	assert_int_equal(ini_flush(b->io[0], 1), 0);
	assert_int_equal(pcv_ctl(f, "--json fault power-cut --device flash"), 0);
	printf("  the device's cut with the zoned vSSD on it: %s", f->out);
	assert_non_null(strstr(f->out, "\"namespaces\""));
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
	a = pcv_connect_to(f, NQN_A);
	b = pcv_connect_to(f, NQN_B);
	assert_int_equal(zone_wp(a, 0), wp0 + 16);
	assert_int_equal(zone_wp(a, z1), wp1);
	assert_int_equal(pcv_check_range(f, a, 'A', 0, n0, 1, -1), n0);
	assert_int_equal(pcv_check_range(f, a, 'A', wp0, 16, 2, -1), 16);
	assert_int_equal(pcv_check_range(f, a, 'A', z1, 100, 1, -1), 100);
	assert_int_equal(pcv_check_range(f, b, 'B', 0, 64, 5, -1), 64);
	assert_int_equal(pcv_unsafe_shutdowns(a), us_a + 1);
	assert_int_equal(pcv_unsafe_shutdowns(b), us_b + 1);
	pcv_write_range(f, a, 'A', wp0 + 16, 16, 3);
	assert_int_equal(pcv_check_range(f, a, 'A', wp0 + 16, 16, 3, -1), 16);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
}
