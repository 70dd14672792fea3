/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_bdev: the power cut of a whole registered device with vSSDs with
 * power-loss protection (bdev_ftl_power.c, blox_nand_dev_power_cut()). Two
 * protected vSSDs (plp_ms 10 and 2) and one without, on a four-die device
 * with TLC timing, each with acknowledged writes in its volatile buffer.
 * Alone a protected vSSD is refused (its device is what loses power); the
 * device's cut runs one hold-up of 10 ms for both protected ones, so their
 * buffers reach flash and read back after the rebuild, while the
 * unprotected vSSD loses its buffer at once.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "bdev.h"
#include "bdev_test.h"
#include "blox_clock.h"
#include "blox_log.h"
#include "blox_util.h"
#include "conf.h"
#include "ftl.h"
#include "nand.h"

#define DC_UNITS 6u /* a page of four units programmed, two units left in the buffer */

struct dc_io {
	struct blox_io io;
	struct iovec iov;
	bool done;
};

static void dc_cb(struct blox_io *io)
{
	container_of(io, struct dc_io, io)->done = true;
}

/* One 4 KiB I/O at unit @u through the loop until it completes; its status. */
static int dc_rw(struct event_base *base, struct blox_bdev *bd, enum blox_io_op op, uint32_t u,
		 uint8_t *buf)
{
	struct dc_io t;

	memset(&t, 0, sizeof(t));
	t.io.op = op;
	t.io.offset = (uint64_t)u * 4096;
	t.io.len = 4096;
	t.iov = (struct iovec){ buf, 4096 };
	t.io.iov = &t.iov;
	t.io.iovcnt = 1;
	t.io.cb = dc_cb;
	blox_bdev_submit(bd, &t.io);
	while (!t.done)
		assert_true(event_base_loop(base, EVLOOP_ONCE) >= 0);
	return t.io.status;
}

static void dc_fill(uint8_t *buf, uint32_t who, uint32_t u)
{
	for (uint32_t i = 0; i < 4096; i++)
		buf[i] = (uint8_t)(who * 31 + u * 7 + i);
}

void test_device_cut_plp(void **state)
{
	static const uint32_t dies[3][2] = { { 0, 1 }, { 2, 0 }, { 3, 0 } };
	static const uint32_t nr_dies[3] = { 2, 1, 1 }, plp[3] = { 10, 2, 0 };
	struct event_base *base = event_base_new();
	struct blox_log lg = { .level = -1 };
	struct blox_bdev_power_cut outs[3], one;
	struct blox_bdev *bd[3];
	struct blox_nand_dev *nd;
	struct nand_config nand;
	struct ftl_config ftl[3];
	struct blox_clock clk;
	struct blox_io_cq cq;
	uint8_t w[4096], r[4096];

	(void)state;
	assert_non_null(base);
	assert_int_equal(blox_io_cq_init(&cq, base), 0);
	nand_config_default(&nand); /* TLC timing: a program takes milliseconds */
	nand.geo.channels = 2;
	nand.geo.dies_per_channel = 2;
	nand.geo.planes_per_die = 1;
	nand.geo.blocks_per_plane = 32;
	nand.geo.pages_per_block = 96;
	blox_clock_init_real(&clk);
	assert_int_equal(blox_nand_dev_open("pd", &nand, NULL, base, &clk, &nd), 0);
	for (uint32_t i = 0; i < 3; i++) {
		struct blox_bdev_params p = {
			.backend = "nand", .size = 4ull << 20, .block_size = 4096, .nand = &nand,
			.ftl = &ftl[i], .shared = nd, .dies = dies[i], .nr_dies = nr_dies[i],
			.tenant = i + 1, .base = base, .clock = &clk, .log = &lg,
		};

		ftl_config_default(&ftl[i]);
		ftl[i].plp_ms = plp[i];
		assert_int_equal(blox_bdev_create(&p, &cq, &bd[i]), 0);
		blox_bdev_set_write_cache(bd[i], true);
		for (uint32_t u = 0; u < DC_UNITS; u++) {
			dc_fill(w, i, u);
			assert_int_equal(dc_rw(base, bd[i], BLOX_IO_WRITE, u, w), 0);
		}
	}

	/* 1. Alone, a protected vSSD of a shared device is refused, naming the way. */
	assert_int_equal(blox_bdev_power_cut(bd[1], false, &one), -EOPNOTSUPP);
	assert_non_null(one.refused);
	assert_non_null(strstr(one.refused, "cut the device instead"));
	assert_int_equal(blox_bdev_power_cut_check(bd[1], true, &one), 0);
	assert_int_equal(blox_bdev_power_cut_check(bd[2], false, &one), 0);

	/* 2. The device: one hold-up, the longest plp_ms, for both protected vSSDs. */
	assert_int_equal(blox_nand_dev_power_cut(nd, bd, 3, outs), 0);
	for (uint32_t i = 0; i < 2; i++) {
		assert_true(outs[i].bytes_buffered > 0);
		assert_int_equal(outs[i].bytes_lost, 0);
		assert_int_equal(outs[i].holdup_ms, 10);
		assert_true(outs[i].holdup_used_ns > 0);
		assert_true(outs[i].holdup_used_ns <= 10ull * 1000000);
		assert_int_equal(outs[i].holdup_used_ns, outs[0].holdup_used_ns);
	}
	/* 3. Without protection its buffer is lost at once: no hold-up. */
	assert_true(outs[2].bytes_buffered > 0);
	assert_int_equal(outs[2].bytes_lost, outs[2].bytes_buffered);
	assert_int_equal(outs[2].holdup_ms, 0);
	assert_int_equal(outs[2].holdup_used_ns, 0);

	/* 4. Rebuilt: the protected vSSDs hold every acknowledged write. */
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t there = 0;

		for (uint32_t u = 0; u < DC_UNITS; u++) {
			dc_fill(w, i, u);
			assert_int_equal(dc_rw(base, bd[i], BLOX_IO_READ, u, r), 0);
			if (!memcmp(w, r, sizeof(w))) {
				there++;
				continue;
			}
			/* The unprotected one: what it lost reads as zeroes, never garbage. */
			assert_int_equal(i, 2);
			memset(w, 0, sizeof(w));
			assert_memory_equal(w, r, sizeof(w));
		}
		if (i < 2)
			assert_int_equal(there, DC_UNITS);
		else
			assert_int_equal(there * 4096ull, DC_UNITS * 4096ull - outs[2].bytes_lost);
	}
	for (uint32_t i = 0; i < 3; i++)
		blox_bdev_destroy(bd[i]);
	blox_nand_dev_put(nd);
	blox_io_cq_fini(&cq);
	event_base_free(base);
}
