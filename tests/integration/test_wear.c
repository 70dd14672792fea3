/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flash that wears, seen from a host over loopback (docs/FAULTS.md). Two
 * nand namespaces with the reliability model on, their data ageing fast:
 * - nsid 1, the default ECC (60 bits per 1 KiB), data ageing 10^8 times
 *   faster than the clock (a second: three years): what was written reads
 *   back, retries or not, for the first half minute or so;
 * - nsid 2, an ECC of 1 bit and no read retry, ageing 10^9 times faster:
 *   a read of data seconds old fails with Unrecovered Read Error (SCT 2h,
 *   SC 81h), and so does the same read again, until the LBA is deallocated
 *   (then it reads zeroes); nsid 1 is untouched by nsid 2's errors.
 * The config keys are the ones docs/bloxd.md lists.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:wear"
#define BLK 4096u
#define NBLK 256u

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"nand\", \"size\": \"32M\", \"nand\": {"
	"\"channels\": 1, \"dies_per_channel\": 4, \"pages_per_block\": 96,"
	"\"reliability\": true, \"aging\": 100000000, \"reliability_seed\": 7}},"
	"{\"nsid\": 2, \"backend\": \"nand\", \"size\": \"32M\", \"nand\": {"
	"\"channels\": 1, \"dies_per_channel\": 4, \"pages_per_block\": 96,"
	"\"reliability\": true, \"aging\": 1000000000, \"ecc_bits\": 1,"
	"\"read_retries\": 0}}]}]";

struct fixture {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	struct ini_ctrl *c;
	uint8_t w[NBLK * BLK], r[NBLK * BLK];
};

static int fixture_setup(void *arg)
{
	struct fixture *f = arg;

	f->fx.seed = 0x3ea7;
	return fx_ctrl(&f->fx.d, SUBNQN, NULL, 1, NULL, &f->c) ? -1 : 0;
}

static void fixture_teardown(void *arg)
{
	struct fixture *f = arg;

	if (f->c) {
		ini_ctrl_shutdown(f->c);
		ini_ctrl_destroy(f->c);
	}
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 12));
}

/* @nsid's first NBLK blocks written (and flushed: on flash), then left to age. */
static void write_all(struct fixture *f, uint32_t nsid, uint32_t seed)
{
	struct ini_queue *q = f->c->io[0];

	fill(f->w, sizeof(f->w), seed);
	for (uint32_t b = 0; b < NBLK; b += 32)
		assert_int_equal(ini_write(q, nsid, b, 32, f->w + (size_t)b * BLK, 32 * BLK, false),
				 0);
	assert_int_equal(ini_flush(q, nsid), 0);
}

/* Years of retention in a second: the default ECC reads them back, with retries. */
static void test_decay_within_ecc(void **state)
{
	struct fixture *f = *state;
	struct ini_queue *q = f->c->io[0];

	write_all(f, 1, 1);
	sleep(1);
	for (uint32_t b = 0; b < NBLK; b += 32)
		assert_int_equal(ini_read(q, 1, b, 32, f->r + (size_t)b * BLK, 32 * BLK), 0);
	assert_memory_equal(f->r, f->w, sizeof(f->w));
}

/* A weak ECC and no retry: Unrecovered Read Error, again and again; a deallocate ends it. */
static void test_uncorrectable(void **state)
{
	struct fixture *f = *state;
	struct ini_queue *q = f->c->io[0];
	uint16_t want = INI_SC(NVME_SCT_MEDIA, NVME_SC_READ_ERROR);
	int st;

	write_all(f, 2, 2);
	sleep(2);
	st = ini_read(q, 2, 0, 1, f->r, BLK);
	assert_true(st > 0);
	assert_int_equal(INI_SC_CODE(st), want);
	st = ini_read(q, 2, 0, 1, f->r, BLK);
	assert_int_equal(INI_SC_CODE(st), want);
	/* Deallocated: nothing on flash to read, zeroes. */
	assert_int_equal(ini_dsm_deallocate(q, 2, 0, 1), 0);
	memset(f->r, 0xa5, BLK);
	assert_int_equal(ini_read(q, 2, 0, 1, f->r, BLK), 0);
	memset(f->w, 0, BLK);
	assert_memory_equal(f->r, f->w, BLK);
	/* The other namespace's device is its own. */
	assert_int_equal(ini_read(q, 1, 0, 1, f->r, BLK), 0);
}

int main(void)
{
	static const struct fx_group g = { .subsystems = subsystems,
					   .size = sizeof(struct fixture),
					   .setup = fixture_setup,
					   .teardown = fixture_teardown };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decay_within_ecc),
		cmocka_unit_test(test_uncorrectable),
	};

	return FX_MAIN(&g, tests);
}
