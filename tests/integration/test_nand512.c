/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 512-byte logical blocks on nand namespaces (issue 26, item 9), over
 * loopback: a namespace of its own device from the config and a vSSD on
 * a shared device made through bloxctl, both with 512-byte blocks on the
 * FTL's 4 KiB units. Identify Namespace says 512-byte LBAs with 4 KiB
 * preferred write granularity and atomic unit; mixed 512-byte, unaligned
 * and 4 KiB writes read back at every alignment; the eight sectors of
 * many units written at once from four queues all survive; Write Zeroes
 * and deallocates of sub-ranges zero exactly their sectors; the data
 * stays through a clean restart and through kill -9 after FUA writes and
 * a Flush. A size that is not whole 4 KiB units is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:nand512"
#define SECT 512u
#define REGION (4u << 20) /* bytes of each namespace the model follows */
#define RSECT (REGION / SECT)
#define NQ 4
#define IO_SQSIZE 127

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"nand\", \"size\": \"32M\", \"block_size\": 512,"
	"   \"nand\": {\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 96}, \"ftl\": {\"store\": \"file\"}}"
	"] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[65536];
	uint8_t model[3][REGION]; /* by nsid (0 unused): what each sector holds */
	uint32_t wid; /* the next write's pattern id */
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

static struct ini_ctrl *ctrl_up(struct env *e)
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	uint16_t st = 0;

	ini_ctrl_args_init(&a, FX_ADDR, e->fx.d.nvm_port, SUBNQN);
	a.nr_io = NQ;
	a.io_sqsize = IO_SQSIZE;
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	return c;
}

static void ctrl_down(struct ini_ctrl *c)
{
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

/* Pattern of write @id at byte @b of a namespace: tells write and place apart. */
static void fill(uint8_t *buf, uint32_t id, uint64_t sect, uint32_t n)
{
	for (uint64_t i = 0; i < (uint64_t)n * SECT; i++) {
		uint64_t b = sect * SECT + i;

		buf[i] = (uint8_t)(id * 151u + b * 13u + (b >> 9) * 3u + 1u);
	}
}

static void wr(struct env *e, struct ini_queue *q, uint32_t nsid, uint64_t sect, uint32_t n,
	       bool fua)
{
	uint8_t *buf = malloc((size_t)n * SECT);

	assert_non_null(buf);
	fill(buf, ++e->wid, sect, n);
	assert_int_equal(ini_write(q, nsid, sect, n, buf, n * SECT, fua), 0);
	memcpy(e->model[nsid] + sect * SECT, buf, (size_t)n * SECT);
	free(buf);
}

static void check(struct env *e, struct ini_queue *q, uint32_t nsid, uint64_t sect, uint32_t n)
{
	uint8_t *buf = malloc((size_t)n * SECT);

	assert_non_null(buf);
	assert_int_equal(ini_read(q, nsid, sect, n, buf, n * SECT), 0);
	if (memcmp(buf, e->model[nsid] + sect * SECT, (size_t)n * SECT)) {
		for (uint32_t i = 0; i < n; i++)
			if (memcmp(buf + i * SECT, e->model[nsid] + (sect + i) * SECT, SECT))
				fail_msg("nsid %u: sector %lu differs", nsid,
					 (unsigned long)(sect + i));
	}
	free(buf);
}

/* The whole region of @nsid, in reads of 125 sectors from sector 3 (no 4 KiB alignment). */
static void check_all(struct env *e, struct ini_queue *q, uint32_t nsid)
{
	check(e, q, nsid, 0, 3);
	for (uint64_t s = 3; s < RSECT; s += 125)
		check(e, q, nsid, s, (uint32_t)(RSECT - s < 125 ? RSECT - s : 125));
}

/*
 * 1. A vSSD with 512-byte blocks on a shared device, through bloxctl;
 * a nand namespace whose size is not whole 4 KiB units is refused.
 */
static void test_setup(void **state)
{
	struct env *e = *state;

	assert_int_equal(run(e, "device create ssd --channels 2 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 96 --blocks-per-plane 64"),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 2 --size 16M --device ssd --isolation chip:2 "
				"--block-size 512",
			     SUBNQN),
			 0);
	assert_int_not_equal(run(e, "ns create %s --nsid 3 --size 8389120 --backend nand "
				    "--block-size 512",
				 SUBNQN),
			     0);
	assert_non_null(strstr(e->out, "multiple of 4096"));
}

/* 2. Identify Namespace: 512-byte LBAs, 4 KiB preferred granularity and atomic unit. */
static void test_identify(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	struct nvme_id_ns *id = calloc(1, sizeof(*id));
	const uint64_t sizes[] = { 0, 32u << 20, 16u << 20 };

	assert_non_null(id);
	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS, nsid, 0, id), 0);
		assert_int_equal(id->lbaf[id->flbas & 0xf].ds, 9);
		assert_int_equal(id->nsze, sizes[nsid] / SECT);
		assert_true(id->nsfeat & NVME_NS_FEAT_IO_OPT);
		assert_true(id->nsfeat & NVME_NS_FEAT_NATOMIC);
		assert_int_equal(id->npwg, 7);
		assert_int_equal(id->npwa, 7);
		assert_int_equal(id->nows, 7);
		assert_int_equal(id->nawupf, 7);
		assert_int_equal(id->nabspf, 7);
		assert_int_equal(id->nabo, 0);
	}
	free(id);
	ctrl_down(c);
}

/*
 * 3. Mixed writes: whole units, single sectors, ranges with partial
 * units at both ends, FUA or not; every alignment reads back right.
 */
static void test_mixed(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	uint64_t rng = e->fx.seed;

	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		struct ini_queue *q = c->io[nsid % NQ];

		for (uint64_t s = 0; s < RSECT / 4; s += 64)
			wr(e, q, nsid, s, 64, false); /* 32 KiB, aligned */
		for (uint32_t i = 0; i < 400; i++) {
			uint32_t n = 1 + (uint32_t)(fx_rand(&rng) % 24);
			uint64_t s = fx_rand(&rng) % (RSECT - n);

			if (i % 5 == 0)
				s &= ~7ull, n = 8; /* a whole unit */
			wr(e, q, nsid, s, n, i % 7 == 0);
			if (i % 16 == 0)
				check(e, q, nsid, s & ~7ull, 16);
		}
		for (uint32_t i = 0; i < 200; i++) {
			uint32_t n = 1 + (uint32_t)(fx_rand(&rng) % 40);

			check(e, q, nsid, fx_rand(&rng) % (RSECT - n), n);
		}
		check_all(e, q, nsid);
	}
	ctrl_down(c);
}

/*
 * 4. The eight sectors of each of 48 units written by eight commands at
 * once, spread over four queues (384 in flight): every sector keeps its
 * write (a read-modify-write that lost a race would put an older sector
 * back).
 */
static void test_concurrent_sectors(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	enum { UNITS = 48, N = UNITS * 8 };
	struct ini_req *r = calloc(N, sizeof(*r));
	uint8_t *bufs = malloc((size_t)N * SECT);

	assert_non_null(r);
	assert_non_null(bufs);
	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		uint64_t base = nsid == 1 ? 1024 : 2048; /* sectors, inside the region */
		uint32_t left[NQ] = { 0 };

		for (uint32_t i = 0; i < N; i++) {
			uint32_t u = i / 8, k = i % 8;
			uint64_t s = base + u * 8 + k;
			uint8_t *b = bufs + (size_t)i * SECT;

			fill(b, ++e->wid, s, 1);
			memcpy(e->model[nsid] + s * SECT, b, SECT);
			ini_req_rw(&r[i], nvme_cmd_write, nsid, s, 1, b, SECT);
			r[i].ctx = (void *)(uintptr_t)((k + u) % NQ);
			assert_int_equal(ini_submit(c->io[(k + u) % NQ], &r[i]), 0);
			left[(k + u) % NQ]++;
		}
		for (uint32_t q = 0; q < NQ; q++) {
			while (left[q]) {
				struct ini_req *done[64];
				int n = ini_poll(c->io[q], done, 64);

				assert_true(n > 0);
				for (int j = 0; j < n; j++)
					assert_int_equal(ini_status(&done[j]->cqe), 0);
				left[q] -= (uint32_t)n;
			}
		}
		check(e, c->io[0], nsid, base, N);
		check_all(e, c->io[1], nsid);
	}
	free(bufs);
	free(r);
	ctrl_down(c);
}

/*
 * 5. Write Zeroes and deallocates of sub-ranges: exactly their sectors
 * read zero, in one unit, across two, and with whole units between.
 */
static void test_zero_subranges(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	const struct {
		uint64_t s;
		uint32_t n;
		bool dsm;
	} z[] = {
		{ 3003, 3, false }, /* inside one unit */
		{ 3100 + 5, 6, false }, /* across two */
		{ 3200 + 1, 30, false }, /* partial, 3 whole, partial */
		{ 3300 + 2, 2, true },
		{ 3400 + 7, 20, true },
		{ 3500, 8, false }, /* one whole unit */
	};
	struct ini_queue *q = c->io[2];

	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		wr(e, q, nsid, 2992, 560, false);
		for (size_t i = 0; i < sizeof(z) / sizeof(z[0]); i++) {
			if (z[i].dsm)
				assert_int_equal(ini_dsm_deallocate(q, nsid, z[i].s, z[i].n), 0);
			else
				assert_int_equal(ini_write_zeroes(q, nsid, z[i].s, z[i].n), 0);
			memset(e->model[nsid] + z[i].s * SECT, 0, (size_t)z[i].n * SECT);
		}
		check(e, q, nsid, 2992, 560);
		for (uint64_t s = 2990; s < 3560; s += 9)
			check(e, q, nsid, s, 5);
	}
	ctrl_down(c);
}

/* 6. A clean restart: every sector of both namespaces as it was. */
static void test_restart(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;

	fx_restart(&e->fx, false);
	c = ctrl_up(e);
	for (uint32_t nsid = 1; nsid <= 2; nsid++)
		check_all(e, c->io[nsid], nsid);
	ctrl_down(c);
}

/*
 * 7. kill -9 after completed FUA sub-unit writes, and after plain ones
 * followed by a Flush: all of them are there after the restart.
 */
static void test_kill9(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = ctrl_up(e);
	uint64_t rng = e->fx.seed ^ 0x5a5a;

	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		struct ini_queue *q = c->io[nsid];

		for (uint32_t i = 0; i < 60; i++) {
			uint32_t n = 1 + (uint32_t)(fx_rand(&rng) % 12);

			wr(e, q, nsid, fx_rand(&rng) % (RSECT - n), n, true);
		}
		for (uint32_t i = 0; i < 60; i++) {
			uint32_t n = 1 + (uint32_t)(fx_rand(&rng) % 12);

			wr(e, q, nsid, fx_rand(&rng) % (RSECT - n), n, false);
		}
		assert_int_equal(ini_write_zeroes(q, nsid, 4001, 5), 0);
		memset(e->model[nsid] + 4001 * SECT, 0, 5 * SECT);
		assert_int_equal(ini_flush(q, nsid), 0);
	}
	ini_ctrl_destroy(c);
	fx_restart(&e->fx, true);
	c = ctrl_up(e);
	for (uint32_t nsid = 1; nsid <= 2; nsid++)
		check_all(e, c->io[nsid], nsid);
	ctrl_down(c);
}

int main(void)
{
	static const struct fx_group g = { .who = "test_nand512",
					   .subsystems = subsystems,
					   .own_data_dir = true,
					   .size = sizeof(struct env) };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_identify),
		cmocka_unit_test(test_mixed),
		cmocka_unit_test(test_concurrent_sectors),
		cmocka_unit_test(test_zero_subranges),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_kill9),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
