/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the NAND device's geometry (geometry.c), submission and
 * flash rules (ops.c) and store access: address packing over a whole small
 * odd geometry, bounds and geometry checks, the rules (program once, in
 * order, erase before reprogram), erased reads, multi-plane data layout,
 * timing-only ops and reads with segments (byte ranges straight to their
 * destinations). Timing is in test_nand_engine.
 */
#include "nand_fixture.h"

/* ---- geometry and addresses ---- */

/* 1. Defaults are the documented ones. */
static void test_defaults(void **state)
{
	struct nand_config c;
	const struct nand_timing *t = &c.timing;

	(void)state;
	nand_config_default(&c);
	assert_int_equal(c.geo.channels, 8);
	assert_int_equal(c.geo.dies_per_channel, 4);
	assert_int_equal(c.geo.planes_per_die, 2);
	assert_int_equal(c.geo.page_size, 16384);
	assert_int_equal(c.geo.oob_size, 1024);
	assert_int_equal(c.geo.cell, NAND_TLC);
	assert_int_equal(nand_geometry_check(&c.geo, NULL), 0);
	assert_int_equal(t->t_read_ns[0], 56000);
	assert_int_equal(t->t_read_ns[1], 65000);
	assert_int_equal(t->t_read_ns[2], 74000);
	assert_int_equal(t->t_prog_ns[0], 1200000);
	assert_int_equal(t->t_prog_ns[1], 2000000);
	assert_int_equal(t->t_prog_ns[2], 3000000);
	assert_int_equal(t->t_erase_ns, 10000000);
	assert_int_equal(t->bus_mbps, 2000);
	assert_int_equal(t->t_cmd_ns, 500);
	assert_int_equal(t->t_suspend_ns, 20000);
	assert_int_equal(t->t_resume_ns, 20000);
	assert_false(t->null_timing);
	assert_string_equal(c.policy.name, "default");
	assert_non_null(c.policy.should_suspend);
	assert_true(c.max_suspends_per_op > 0);
}

/* 2. geometry_check names each broken field; sizes multiply out. */
static void test_geometry_check(void **state)
{
	struct nand_geometry ok, g;
	const char *why;
	struct {
		size_t off;
		uint32_t value;
	} bad[] = {
		{ offsetof(struct nand_geometry, channels), 0 },
		{ offsetof(struct nand_geometry, channels), 65 },
		{ offsetof(struct nand_geometry, dies_per_channel), 0 },
		{ offsetof(struct nand_geometry, dies_per_channel), 65 },
		{ offsetof(struct nand_geometry, planes_per_die), 0 },
		{ offsetof(struct nand_geometry, planes_per_die), 9 },
		{ offsetof(struct nand_geometry, blocks_per_plane), 0 },
		{ offsetof(struct nand_geometry, blocks_per_plane), (1u << 20) + 1 },
		{ offsetof(struct nand_geometry, pages_per_block), 0 },
		{ offsetof(struct nand_geometry, pages_per_block), 4097 },
		{ offsetof(struct nand_geometry, pages_per_block), 7 }, /* not % 3 */
		{ offsetof(struct nand_geometry, page_size), 0 },
		{ offsetof(struct nand_geometry, page_size), 256 },
		{ offsetof(struct nand_geometry, page_size), 4096 + 512 },
		{ offsetof(struct nand_geometry, page_size), 131072 },
		{ offsetof(struct nand_geometry, oob_size), 8193 },
		{ offsetof(struct nand_geometry, cell), 0 },
		{ offsetof(struct nand_geometry, cell), 5 },
	};

	(void)state;
	fx_small_geo(&ok);
	why = "stale";
	assert_int_equal(nand_geometry_check(&ok, &why), 0);
	assert_null(why);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		g = ok;
		memcpy((char *)&g + bad[i].off, &bad[i].value, sizeof(uint32_t));
		why = NULL;
		if (nand_geometry_check(&g, &why) != -EINVAL || !why)
			fail_msg("case %zu (offset %zu = %u) accepted", i, bad[i].off,
				 bad[i].value);
		assert_int_equal(nand_geometry_check(&g, NULL), -EINVAL);
	}
	/* Limits themselves are fine. */
	g = ok;
	g.channels = 64;
	g.dies_per_channel = 64;
	g.planes_per_die = 8;
	g.pages_per_block = 4095; /* multiple of 3 */
	g.page_size = 65536;
	g.oob_size = 8192;
	assert_int_equal(nand_geometry_check(&g, NULL), 0);
	g = ok;
	g.cell = NAND_SLC;
	g.pages_per_block = 7;
	g.oob_size = 0;
	g.page_size = 512;
	assert_int_equal(nand_geometry_check(&g, NULL), 0);

	assert_int_equal(nand_dies(&ok), 4);
	assert_int_equal(nand_blocks(&ok), 4 * 2 * 4);
	assert_int_equal(nand_pages(&ok), 4 * 2 * 4 * 6);
	assert_int_equal(nand_capacity(&ok), 4ull * 2 * 4 * 6 * 4096);
}

/* 3. Packing round-trips over every address of 3 x 2 x 2 x 5 x 6. */
static void test_addr_roundtrip(void **state)
{
	struct nand_geometry g = {
		.channels = 3, .dies_per_channel = 2, .planes_per_die = 2,
		.blocks_per_plane = 5, .pages_per_block = 6, .page_size = 4096,
		.oob_size = 64, .cell = NAND_TLC,
	};
	uint64_t idx = 0;
	struct nand_addr a, b;

	(void)state;
	assert_int_equal(nand_geometry_check(&g, NULL), 0);
	assert_int_equal(nand_pages(&g), 360);
	/* Nested loops in radix order: page fastest, channel slowest. */
	for (a.ch = 0; a.ch < 3; a.ch++)
		for (a.die = 0; a.die < 2; a.die++)
			for (a.plane = 0; a.plane < 2; a.plane++)
				for (a.block = 0; a.block < 5; a.block++)
					for (a.page = 0; a.page < 6; a.page++, idx++) {
						assert_true(nand_addr_valid(&g, &a));
						assert_int_equal(nand_page_index(&g, &a), idx);
						assert_int_equal(nand_block_index(&g, &a), idx / 6);
						assert_int_equal(nand_die_index(&g, &a),
								 a.ch * 2 + a.die);
						assert_int_equal(nand_page_type(&g, a.page),
								 a.page % 3);
						memset(&b, 0xa5, sizeof(b));
						nand_page_addr(&g, idx, &b);
						assert_memory_equal(&a, &b, sizeof(a));
					}
	assert_int_equal(idx, nand_pages(&g));
	for (idx = 0; idx < nand_pages(&g); idx++) {
		nand_page_addr(&g, idx, &b);
		assert_true(nand_addr_valid(&g, &b));
		assert_int_equal(nand_page_index(&g, &b), idx);
	}
	g.cell = NAND_QLC;
	g.pages_per_block = 8;
	assert_int_equal(nand_page_type(&g, 7), 3);
	g.cell = NAND_SLC;
	assert_int_equal(nand_page_type(&g, 7), 0);
}

/* 4. Every field is checked against its own bound. */
static void test_addr_bounds(void **state)
{
	struct nand_geometry g = {
		.channels = 3, .dies_per_channel = 2, .planes_per_die = 2,
		.blocks_per_plane = 5, .pages_per_block = 6, .page_size = 4096,
		.oob_size = 64, .cell = NAND_TLC,
	};
	const struct nand_addr last = { 2, 1, 1, 4, 5 };
	struct nand_addr a;
	uint32_t *f;

	(void)state;
	assert_true(nand_addr_valid(&g, &last));
	assert_int_equal(nand_page_index(&g, &last), 359);
	for (int i = 0; i < 5; i++) {
		a = last;
		f = (uint32_t *)&a + i;
		(*f)++;
		assert_false(nand_addr_valid(&g, &a));
		*f = UINT32_MAX;
		assert_false(nand_addr_valid(&g, &a));
	}
}

/* ---- submission errors and flash rules ---- */

/* 5. Bad input is refused at submit, with no completion and no event. */
static void test_submit_errors(void **state)
{
	struct fx f;
	struct nand_op op;
	struct nand_config c;
	struct nand_store *s;
	struct nand_dev *d;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, false);
	for (int i = 0; i < 5; i++) {
		fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 1, 1, 3, 5);
		op.addr.plane = 1;
		((uint32_t *)&op.addr)[i]++;
		assert_int_equal(fx_submit(&f, &op, 0), -ERANGE);
	}
	fx_op_init(&f, &op, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 4, 0);
	assert_int_equal(fx_submit(&f, &op, 0), -ERANGE);
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.cb = NULL;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_op_init(&f, &op, NAND_OP_KINDS, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIOS, 0, 0, 0, 0);
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.nplanes = 3;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.xfer_bytes = 4097;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	/* Data ops need a store. */
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.timing_only = false;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	assert_int_equal(nand_inflight(f.dev), 0);
	assert_int_equal(nand_next_event(f.dev), UINT64_MAX);
	assert_int_equal(nand_advance(f.dev, UINT64_MAX - 1), 0);
	assert_int_equal(f.n, 0);
	fx_destroy(&f);

	/* Device creation checks. */
	nand_config_default(&c);
	c.geo.channels = 0;
	assert_int_equal(nand_dev_create(&c, NULL, &d), -EINVAL);
	nand_config_default(&c);
	c.timing.bus_mbps = 0;
	assert_int_equal(nand_dev_create(&c, NULL, &d), -EINVAL);
	nand_config_default(&c);
	fx_small_geo(&c.geo);
	assert_int_equal(nand_store_ram_open(&c.geo, &s), 0);
	c.geo.blocks_per_plane = 5;
	assert_int_equal(nand_dev_create(&c, s, &d), -EINVAL);
	nand_store_close(s);
}

/* 6. Programming a programmed page fails at submit. */
static void test_rules_program_twice(void **state)
{
	struct fx f;
	struct nand_op op, mp;
	static uint8_t data[4096], oob[64];

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 2, 0, data, oob);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_int_equal(nand_block_meta(f.dev, fx_blk_idx(&f, 2))->write_ptr, 1);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 2, 0, data, oob);
	assert_int_equal(fx_submit(&f, &op, 1000), -EPERM);
	/* A multi-plane program covering that page is refused too. */
	fx_data_op(&f, &mp, NAND_OP_PROGRAM, 2, 0, NULL, NULL);
	mp.nplanes = 2;
	assert_int_equal(fx_submit(&f, &mp, 1000), -EPERM);
	fx_run_all(&f);
	assert_int_equal(f.n, 1);
	assert_int_equal(nand_block_meta(f.dev, fx_blk_idx(&f, 2))->write_ptr, 1);
	fx_destroy(&f);
}

/* 7. Out-of-order programs fail when they execute, with -EPERM. */
static void test_rules_out_of_order(void **state)
{
	struct fx f;
	struct nand_op a, b, c, d;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	/* Page 1 of an erased block: accepted, fails at its start (t = 0). */
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 1, 1, NULL, NULL);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&a, -EPERM, 0);
	assert_int_equal(nand_block_meta(f.dev, fx_blk_idx(&f, 1))->write_ptr, 0);
	/* Page 0, page 0 again and page 2 queued together. */
	fx_data_op(&f, &b, NAND_OP_PROGRAM, 1, 0, NULL, NULL);
	fx_data_op(&f, &c, NAND_OP_PROGRAM, 1, 0, NULL, NULL);
	fx_data_op(&f, &d, NAND_OP_PROGRAM, 1, 2, NULL, NULL);
	assert_int_equal(fx_submit(&f, &b, 100), 0);
	assert_int_equal(fx_submit(&f, &c, 100), 0);
	assert_int_equal(fx_submit(&f, &d, 100), 0);
	fx_run_all(&f);
	/* 4 KiB pages: xfer = 500 + 2048 = 2548 ns. */
	fx_expect_done(&b, 0, 100 + 2548 + TPROG0);
	fx_expect_done(&c, -EPERM, 100 + 2548 + TPROG0);
	fx_expect_done(&d, -EPERM, 100 + 2548 + TPROG0);
	assert_int_equal(nand_block_meta(f.dev, fx_blk_idx(&f, 1))->write_ptr, 1);
	assert_int_equal(f.store->pages_stored, 1);
	fx_destroy(&f);
}

/* 8. A full block refuses programs; erased, it takes page 0 again. */
static void test_rules_erase_reprogram(void **state)
{
	struct fx f;
	struct nand_op op;
	static uint8_t data[4096], oob[64], back[4096], oback[64];

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	for (uint32_t p = 0; p < 6; p++) {
		fx_fill(data, sizeof(data), p);
		fx_data_op(&f, &op, NAND_OP_PROGRAM, 3, p, data, oob);
		assert_int_equal(fx_submit(&f, &op, 0), 0);
		fx_run_all(&f);
		assert_int_equal(op.status, 0);
	}
	assert_int_equal(nand_block_meta(f.dev, fx_blk_idx(&f, 3))->write_ptr, 6);
	assert_int_equal(f.store->pages_stored, 6);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 3, 5, data, oob);
	assert_int_equal(fx_submit(&f, &op, 0), -EPERM);
	fx_data_op(&f, &op, NAND_OP_ERASE, 3, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_int_equal(nand_block_meta(f.dev, fx_blk_idx(&f, 3))->write_ptr, 0);
	assert_int_equal(nand_block_meta(f.dev, fx_blk_idx(&f, 3))->erase_count, 1);
	assert_int_equal(f.store->pages_stored, 0);
	fx_fill(data, sizeof(data), 99);
	fx_fill(oob, sizeof(oob), 98);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 3, 0, data, oob);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	fx_data_op(&f, &op, NAND_OP_READ, 3, 0, back, oback);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_false(op.erased);
	assert_memory_equal(back, data, sizeof(data));
	assert_memory_equal(oback, oob, sizeof(oob));
	/* Old page 1 is gone with the erase. */
	fx_data_op(&f, &op, NAND_OP_READ, 3, 1, back, oback);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_true(op.erased);
	fx_destroy(&f);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

/* 9. Erased pages read as 0xff with erased = true; programmed ones back. */
static void test_read_erased(void **state)
{
	struct fx f;
	struct nand_op op;
	static uint8_t data[4096], oob[64], back[4096], oback[64];

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	memset(back, 0, sizeof(back));
	memset(oback, 0, sizeof(oback));
	fx_data_op(&f, &op, NAND_OP_READ, 0, 0, back, oback);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_true(op.erased);
	assert_true(all_bytes(back, sizeof(back), 0xff));
	assert_true(all_bytes(oback, sizeof(oback), 0xff));

	fx_fill(data, sizeof(data), 5);
	fx_fill(oob, sizeof(oob), 6);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 0, 0, data, oob);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	fx_data_op(&f, &op, NAND_OP_READ, 0, 0, back, oback);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_false(op.erased);
	assert_memory_equal(back, data, sizeof(data));
	assert_memory_equal(oback, oob, sizeof(oob));
	/* Beyond the write pointer of a partly written block. */
	fx_data_op(&f, &op, NAND_OP_READ, 0, 4, back, NULL);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_true(op.erased);
	assert_true(all_bytes(back, sizeof(back), 0xff));
	/* A NULL-data program stores zeroes. */
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 0, 1, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	fx_data_op(&f, &op, NAND_OP_READ, 0, 1, back, oback);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_false(op.erased);
	assert_true(all_bytes(back, sizeof(back), 0));
	assert_true(all_bytes(oback, sizeof(oback), 0));
	/* Per-die counters in the store. */
	assert_int_equal(f.store->dies[2].reads, 4);
	assert_int_equal(f.store->dies[2].programs, 2);
	fx_destroy(&f);
}

/* 10. Multi-plane data lays planes out one after the other. */
static void test_multiplane_data(void **state)
{
	struct fx f;
	struct nand_op op;
	static uint8_t data[2 * 4096], oob[2 * 64], back[2 * 4096], oback[2 * 64];
	struct nand_addr a = { 1, 0, 0, 2, 0 };

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_fill(data, sizeof(data), 11);
	fx_fill(oob, sizeof(oob), 12);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 2, 0, data, oob);
	op.nplanes = 2;
	op.addr.plane = 1; /* ignored */
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &a))->write_ptr, 1);
	a.plane = 1;
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &a))->write_ptr, 1);
	/* Plane 1 alone. */
	fx_data_op(&f, &op, NAND_OP_READ, 2, 0, back, oback);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_memory_equal(back, data + 4096, 4096);
	assert_memory_equal(oback, oob + 64, 64);
	/* Both planes. */
	memset(back, 0, sizeof(back));
	fx_data_op(&f, &op, NAND_OP_READ, 2, 0, back, oback);
	op.nplanes = 2;
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_memory_equal(back, data, sizeof(data));
	assert_memory_equal(oback, oob, sizeof(oob));
	fx_destroy(&f);
}

/* 11. Timing-only ops touch neither the store nor the rules. */
static void test_timing_only(void **state)
{
	struct fx f;
	struct nand_op a, b;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_op_init(&f, &a, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 2, 4);
	fx_op_init(&f, &b, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 2, 4);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_int_equal(f.store->pages_stored, 0);
	assert_int_equal(f.store->dies[2].programs, 0);
	for (uint64_t i = 0; i < nand_blocks(&f.cfg.geo); i++)
		assert_int_equal(nand_block_meta(f.dev, i)->write_ptr, 0);
	assert_null(nand_block_meta(f.dev, nand_blocks(&f.cfg.geo)));
	fx_destroy(&f);
}

/* ---- reads with segments ---- */

#define GUARD 32u
#define GUARD_BYTE 0xa5

/* Each segment's dst sits in a buffer of its own with GUARD bytes around it. */
struct seg_bufs {
	struct nand_seg segs[4];
	uint8_t buf[4][GUARD + 4096 + GUARD];
};

static void segs_init(struct seg_bufs *b, const uint32_t (*ranges)[2], uint32_t n)
{
	memset(b->buf, GUARD_BYTE, sizeof(b->buf));
	for (uint32_t i = 0; i < n; i++)
		b->segs[i] = (struct nand_seg){ ranges[i][0], ranges[i][1], b->buf[i] + GUARD };
}

/* Segment i holds @want's bytes at its range; every other byte is a guard. */
static void segs_check_bytes(const struct seg_bufs *b, uint32_t n, const uint8_t *want)
{
	for (uint32_t i = 0; i < n; i++) {
		const struct nand_seg *sg = &b->segs[i];
		const uint8_t *dst = sg->dst;

		assert_memory_equal(dst, want + sg->off, sg->len);
		assert_true(all_bytes(b->buf[i], GUARD, GUARD_BYTE));
		assert_true(all_bytes(dst + sg->len, sizeof(b->buf[i]) - GUARD - sg->len,
				      GUARD_BYTE));
	}
}

/* 12. A read with segments fills exactly them; the OOB only when asked. */
static void test_read_segments(void **state)
{
	static const uint32_t ranges[][2] = { { 0, 1 }, { 1000, 2048 }, { 4095, 1 }, { 5, 4091 } };
	static uint8_t data[4096], oob[64], oback[64], whole[4096];
	static struct seg_bufs b;
	struct fx f;
	struct nand_op op;
	uint64_t t;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_fill(data, sizeof(data), 21);
	fx_fill(oob, sizeof(oob), 22);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 1, 0, data, oob);
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	t = op.done_ns;

	/* Segments alone: no data buffer, no OOB. */
	segs_init(&b, ranges, 4);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, NULL, NULL);
	op.segs = b.segs;
	op.nsegs = 4;
	op.xfer_bytes = 1024;
	assert_int_equal(fx_submit(&f, &op, t), 0);
	fx_run_all(&f);
	/* The bus time is the xfer_bytes asked for, as before. */
	fx_expect_done(&op, 0, t + TR0 + 500 + 512);
	assert_false(op.erased);
	segs_check_bytes(&b, 4, data);
	assert_int_equal(f.store->dies[2].reads, 1);

	/* With the OOB, and with the whole page besides. */
	segs_init(&b, ranges, 2);
	memset(oback, 0, sizeof(oback));
	memset(whole, 0, sizeof(whole));
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, whole, oback);
	op.segs = b.segs;
	op.nsegs = 2;
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	segs_check_bytes(&b, 2, data);
	assert_true(all_bytes(b.buf[2], sizeof(b.buf[2]), GUARD_BYTE));
	assert_memory_equal(oback, oob, sizeof(oob));
	assert_memory_equal(whole, data, sizeof(data));
	segs_init(&b, ranges, 1);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, NULL, oback);
	memset(oback, 0, sizeof(oback));
	op.segs = b.segs;
	op.nsegs = 1;
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	segs_check_bytes(&b, 1, data);
	assert_memory_equal(oback, oob, sizeof(oob));
	assert_int_equal(f.store->dies[2].reads, 3);
	fx_destroy(&f);
}

/* 13. An erased page fills the segments with 0xff and says so. */
static void test_read_segments_erased(void **state)
{
	static const uint32_t ranges[][2] = { { 0, 4096 }, { 17, 3 }, { 4000, 96 } };
	static uint8_t ff[4096], oback[64];
	static struct seg_bufs b;
	struct fx f;
	struct nand_op op;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	memset(ff, 0xff, sizeof(ff));
	segs_init(&b, ranges, 3);
	fx_data_op(&f, &op, NAND_OP_READ, 2, 3, NULL, NULL);
	op.segs = b.segs;
	op.nsegs = 3;
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_true(op.erased);
	segs_check_bytes(&b, 3, ff);
	/* And its OOB when asked for. */
	segs_init(&b, ranges, 1);
	memset(oback, 0, sizeof(oback));
	fx_data_op(&f, &op, NAND_OP_READ, 2, 3, NULL, oback);
	op.segs = b.segs;
	op.nsegs = 1;
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_true(op.erased);
	segs_check_bytes(&b, 1, ff);
	assert_true(all_bytes(oback, sizeof(oback), 0xff));
	fx_destroy(&f);
}

/* 14. Segments out of the page, empty, too many or on the wrong op: -EINVAL at submit. */
static void test_read_segments_refused(void **state)
{
	static struct nand_seg many[NAND_MAX_SEGS + 1];
	static uint8_t dst[4096], data[2 * 4096];
	struct nand_seg bad[][1] = {
		{ { 0, 4097, dst } }, { { 4096, 1, dst } }, { { 1, 4096, dst } },
		{ { 0, 0, dst } }, { { 0, 1, NULL } }, { { UINT32_MAX, 2, dst } },
		{ { 2, UINT32_MAX, dst } },
	};
	struct nand_seg ok = { 0, 4096, dst };
	struct fx f;
	struct nand_op op;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		fx_data_op(&f, &op, NAND_OP_READ, 0, 0, NULL, NULL);
		op.segs = bad[i];
		op.nsegs = 1;
		assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	}
	/* A bad one behind a good one. */
	{
		struct nand_seg two[2] = { ok, { 4000, 97, dst } };

		fx_data_op(&f, &op, NAND_OP_READ, 0, 0, NULL, NULL);
		op.segs = two;
		op.nsegs = 2;
		assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	}
	for (uint32_t i = 0; i < ARRAY_SIZE(many); i++)
		many[i] = (struct nand_seg){ i, 1, dst + i };
	fx_data_op(&f, &op, NAND_OP_READ, 0, 0, NULL, NULL);
	op.segs = many;
	op.nsegs = NAND_MAX_SEGS + 1;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_data_op(&f, &op, NAND_OP_READ, 0, 0, NULL, NULL);
	op.segs = many;
	op.nsegs = 0;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_data_op(&f, &op, NAND_OP_READ, 0, 0, NULL, NULL);
	op.nsegs = 1; /* and no array */
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	/* Only on single-plane data reads. */
	fx_data_op(&f, &op, NAND_OP_READ, 0, 0, data, NULL);
	op.nplanes = 2;
	op.segs = &ok;
	op.nsegs = 1;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 0, 0, data, NULL);
	op.segs = &ok;
	op.nsegs = 1;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_data_op(&f, &op, NAND_OP_ERASE, 0, 0, NULL, NULL);
	op.segs = &ok;
	op.nsegs = 1;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 1, 0, 0, 0);
	op.segs = &ok;
	op.nsegs = 1;
	assert_int_equal(fx_submit(&f, &op, 0), -EINVAL);
	/* Nothing was queued or done; NAND_MAX_SEGS is allowed. */
	assert_int_equal(nand_inflight(f.dev), 0);
	assert_int_equal(nand_next_event(f.dev), UINT64_MAX);
	assert_int_equal(f.n, 0);
	fx_data_op(&f, &op, NAND_OP_READ, 0, 0, NULL, NULL);
	op.segs = many;
	op.nsegs = NAND_MAX_SEGS;
	assert_int_equal(fx_submit(&f, &op, 0), 0);
	fx_run_all(&f);
	assert_true(op.erased);
	assert_true(all_bytes(dst, NAND_MAX_SEGS, 0xff));
	assert_int_equal(f.store->pages_stored, 0);
	fx_destroy(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_defaults, fx_teardown),
		cmocka_unit_test_teardown(test_geometry_check, fx_teardown),
		cmocka_unit_test_teardown(test_addr_roundtrip, fx_teardown),
		cmocka_unit_test_teardown(test_addr_bounds, fx_teardown),
		cmocka_unit_test_teardown(test_submit_errors, fx_teardown),
		cmocka_unit_test_teardown(test_rules_program_twice, fx_teardown),
		cmocka_unit_test_teardown(test_rules_out_of_order, fx_teardown),
		cmocka_unit_test_teardown(test_rules_erase_reprogram, fx_teardown),
		cmocka_unit_test_teardown(test_read_erased, fx_teardown),
		cmocka_unit_test_teardown(test_multiplane_data, fx_teardown),
		cmocka_unit_test_teardown(test_timing_only, fx_teardown),
		cmocka_unit_test_teardown(test_read_segments, fx_teardown),
		cmocka_unit_test_teardown(test_read_segments_erased, fx_teardown),
		cmocka_unit_test_teardown(test_read_segments_refused, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
