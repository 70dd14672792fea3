/*
 * Unit tests for the NAND engine (engine.c, ops.c) and geometry
 * (geometry.c): address packing over a whole small odd geometry, bounds and
 * geometry checks, flash rules, and exact completion times in virtual time
 * for scripted sequences (reads, programs, erases, shared channels,
 * multi-plane, suspension and its caps, priorities, null timing), plus the
 * telemetry those sequences must leave behind. Expected times are literal
 * numbers worked out from the TLC defaults:
 *   tR 56/65/74 us, tPROG 1.2/2/3 ms, tBERS 10 ms, tSUSPEND = tRESUME = 20 us,
 *   xfer(16 KiB) = 500 + 16384 * 1000 / 2000 = 8692 ns,
 *   xfer(4 KiB) = 500 + 2048 = 2548 ns, xfer(2 x 16 KiB) = 500 + 16384 = 16884 ns.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_internal.h"
#include "nand.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_REC 64

/* Literal timings (see the top comment). */
#define TR0 56000ull
#define XFER 8692ull /* one 16 KiB page */
#define RD0 (TR0 + XFER) /* 64692: die time of an LSB page read */
#define TPROG0 1200000ull
#define TBERS 10000000ull
#define TSUS 20000ull

/* ---- harness ---- */

struct fx {
	struct nand_config cfg;
	struct nand_store *store;
	struct nand_dev *dev;
	uint32_t n; /* completions seen */
	struct nand_op *order[MAX_REC];
	uint64_t when[MAX_REC];
	bool in_submit; /* set around nand_submit() */
	bool in_cb;
	uint32_t nested; /* callbacks entered while inside one */
	/* Closed-loop chain: the callback resubmits while chain > 0. */
	uint32_t chain;
};

static void rec_cb(struct nand_op *op)
{
	struct fx *f = op->cb_arg;

	if (f->in_submit)
		fail_msg("completion callback inside nand_submit()");
	if (f->in_cb)
		f->nested++;
	f->in_cb = true;
	if (f->n < MAX_REC) {
		f->order[f->n] = op;
		f->when[f->n] = op->done_ns;
	}
	f->n++;
	if (f->chain) {
		f->chain--;
		f->in_submit = true;
		assert_int_equal(nand_submit(f->dev, op, op->done_ns), 0);
		f->in_submit = false;
	}
	f->in_cb = false;
}

static void fx_init(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	nand_config_default(&f->cfg);
}

/* A small geometry for tests that touch the store. */
static void small_geo(struct nand_geometry *g)
{
	*g = (struct nand_geometry){
		.channels = 2,
		.dies_per_channel = 2,
		.planes_per_die = 2,
		.blocks_per_plane = 4,
		.pages_per_block = 6,
		.page_size = 4096,
		.oob_size = 64,
		.cell = NAND_TLC,
	};
}

/*
 * Devices and stores alive in the running test; the teardown frees what a
 * failed assertion (a longjmp out of the test) left behind, so ASan stays
 * quiet about failures.
 */
static struct {
	struct nand_dev *dev;
	struct nand_store *store;
} live[4];

static void fx_create(struct fx *f, bool with_store)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(live) && (live[i].dev || live[i].store); i++)
		;
	assert_true(i < ARRAY_SIZE(live));
	if (with_store)
		assert_int_equal(nand_store_ram_open(&f->cfg.geo, &f->store), 0);
	live[i].store = f->store;
	assert_int_equal(nand_dev_create(&f->cfg, f->store, &f->dev), 0);
	live[i].dev = f->dev;
}

static void fx_destroy(struct fx *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (live[i].dev == f->dev && live[i].store == f->store)
			live[i].dev = NULL, live[i].store = NULL;
	nand_dev_destroy(f->dev);
	nand_store_close(f->store);
	f->dev = NULL;
	f->store = NULL;
}

static int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(live); i++) {
		nand_dev_destroy(live[i].dev);
		nand_store_close(live[i].store);
		live[i].dev = NULL;
		live[i].store = NULL;
	}
	return 0;
}

static void op_init(struct fx *f, struct nand_op *op, enum nand_op_kind kind,
		    enum nand_prio prio, uint32_t ch, uint32_t die, uint32_t block,
		    uint32_t page)
{
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->prio = prio;
	op->addr = (struct nand_addr){ ch, die, 0, block, page };
	op->timing_only = true;
	op->cb = rec_cb;
	op->cb_arg = f;
}

static int submit(struct fx *f, struct nand_op *op, uint64_t now)
{
	int rc;

	f->in_submit = true;
	rc = nand_submit(f->dev, op, now);
	f->in_submit = false;
	return rc;
}

/* Deliver every event up to and including @t (virtual time). */
static void run_to(struct fx *f, uint64_t t)
{
	uint64_t e;

	while ((e = nand_next_event(f->dev)) <= t)
		nand_advance(f->dev, e);
}

static void run_all(struct fx *f)
{
	run_to(f, UINT64_MAX - 1);
	assert_int_equal(nand_next_event(f->dev), UINT64_MAX);
	assert_int_equal(nand_inflight(f->dev), 0);
}

static void expect_done(const struct nand_op *op, int status, uint64_t done)
{
	if (op->status != status || op->done_ns != done)
		fail_msg("op kind %d prio %d ch %u die %u page %u: status %d done %llu, "
			 "want status %d done %llu",
			 op->kind, op->prio, op->addr.ch, op->addr.die, op->addr.page,
			 op->status, (unsigned long long)op->done_ns, status,
			 (unsigned long long)done);
}

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
	small_geo(&ok);
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
	small_geo(&f.cfg.geo);
	fx_create(&f, false);
	for (int i = 0; i < 5; i++) {
		op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 1, 1, 3, 5);
		op.addr.plane = 1;
		((uint32_t *)&op.addr)[i]++;
		assert_int_equal(submit(&f, &op, 0), -ERANGE);
	}
	op_init(&f, &op, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 4, 0);
	assert_int_equal(submit(&f, &op, 0), -ERANGE);
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.cb = NULL;
	assert_int_equal(submit(&f, &op, 0), -EINVAL);
	op_init(&f, &op, NAND_OP_KINDS, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	assert_int_equal(submit(&f, &op, 0), -EINVAL);
	op_init(&f, &op, NAND_OP_READ, NAND_PRIOS, 0, 0, 0, 0);
	assert_int_equal(submit(&f, &op, 0), -EINVAL);
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.nplanes = 3;
	assert_int_equal(submit(&f, &op, 0), -EINVAL);
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.xfer_bytes = 4097;
	assert_int_equal(submit(&f, &op, 0), -EINVAL);
	/* Data ops need a store. */
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.timing_only = false;
	assert_int_equal(submit(&f, &op, 0), -EINVAL);
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
	small_geo(&c.geo);
	assert_int_equal(nand_store_ram_open(&c.geo, &s), 0);
	c.geo.blocks_per_plane = 5;
	assert_int_equal(nand_dev_create(&c, s, &d), -EINVAL);
	nand_store_close(s);
}

static void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

/* A data op on the small geometry's RAM store. */
static void data_op(struct fx *f, struct nand_op *op, enum nand_op_kind kind,
		    uint32_t block, uint32_t page, void *data, void *oob)
{
	op_init(f, op, kind,
		kind == NAND_OP_READ ? NAND_PRIO_HOST_READ :
		kind == NAND_OP_PROGRAM ? NAND_PRIO_HOST_WRITE : NAND_PRIO_ERASE,
		1, 0, block, page);
	op->addr.plane = 1;
	op->timing_only = false;
	op->data = data;
	op->oob = oob;
}

static uint64_t blk_idx(const struct fx *f, uint32_t block)
{
	struct nand_addr a = { 1, 0, 1, block, 0 };

	return nand_block_index(&f->cfg.geo, &a);
}

/* 6. Programming a programmed page fails at submit. */
static void test_rules_program_twice(void **state)
{
	struct fx f;
	struct nand_op op, mp;
	static uint8_t data[4096], oob[64];

	(void)state;
	fx_init(&f);
	small_geo(&f.cfg.geo);
	fx_create(&f, true);
	data_op(&f, &op, NAND_OP_PROGRAM, 2, 0, data, oob);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_int_equal(op.status, 0);
	assert_int_equal(nand_block_meta(f.dev, blk_idx(&f, 2))->write_ptr, 1);
	data_op(&f, &op, NAND_OP_PROGRAM, 2, 0, data, oob);
	assert_int_equal(submit(&f, &op, 1000), -EPERM);
	/* A multi-plane program covering that page is refused too. */
	data_op(&f, &mp, NAND_OP_PROGRAM, 2, 0, NULL, NULL);
	mp.nplanes = 2;
	assert_int_equal(submit(&f, &mp, 1000), -EPERM);
	run_all(&f);
	assert_int_equal(f.n, 1);
	assert_int_equal(nand_block_meta(f.dev, blk_idx(&f, 2))->write_ptr, 1);
	fx_destroy(&f);
}

/* 7. Out-of-order programs fail when they execute, with -EPERM. */
static void test_rules_out_of_order(void **state)
{
	struct fx f;
	struct nand_op a, b, c, d;

	(void)state;
	fx_init(&f);
	small_geo(&f.cfg.geo);
	fx_create(&f, true);
	/* Page 1 of an erased block: accepted, fails at its start (t = 0). */
	data_op(&f, &a, NAND_OP_PROGRAM, 1, 1, NULL, NULL);
	assert_int_equal(submit(&f, &a, 0), 0);
	run_all(&f);
	expect_done(&a, -EPERM, 0);
	assert_int_equal(nand_block_meta(f.dev, blk_idx(&f, 1))->write_ptr, 0);
	/* Page 0, page 0 again and page 2 queued together. */
	data_op(&f, &b, NAND_OP_PROGRAM, 1, 0, NULL, NULL);
	data_op(&f, &c, NAND_OP_PROGRAM, 1, 0, NULL, NULL);
	data_op(&f, &d, NAND_OP_PROGRAM, 1, 2, NULL, NULL);
	assert_int_equal(submit(&f, &b, 100), 0);
	assert_int_equal(submit(&f, &c, 100), 0);
	assert_int_equal(submit(&f, &d, 100), 0);
	run_all(&f);
	/* 4 KiB pages: xfer = 500 + 2048 = 2548 ns. */
	expect_done(&b, 0, 100 + 2548 + TPROG0);
	expect_done(&c, -EPERM, 100 + 2548 + TPROG0);
	expect_done(&d, -EPERM, 100 + 2548 + TPROG0);
	assert_int_equal(nand_block_meta(f.dev, blk_idx(&f, 1))->write_ptr, 1);
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
	small_geo(&f.cfg.geo);
	fx_create(&f, true);
	for (uint32_t p = 0; p < 6; p++) {
		fill(data, sizeof(data), p);
		data_op(&f, &op, NAND_OP_PROGRAM, 3, p, data, oob);
		assert_int_equal(submit(&f, &op, 0), 0);
		run_all(&f);
		assert_int_equal(op.status, 0);
	}
	assert_int_equal(nand_block_meta(f.dev, blk_idx(&f, 3))->write_ptr, 6);
	assert_int_equal(f.store->pages_stored, 6);
	data_op(&f, &op, NAND_OP_PROGRAM, 3, 5, data, oob);
	assert_int_equal(submit(&f, &op, 0), -EPERM);
	data_op(&f, &op, NAND_OP_ERASE, 3, 0, NULL, NULL);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_int_equal(op.status, 0);
	assert_int_equal(nand_block_meta(f.dev, blk_idx(&f, 3))->write_ptr, 0);
	assert_int_equal(nand_block_meta(f.dev, blk_idx(&f, 3))->erase_count, 1);
	assert_int_equal(f.store->pages_stored, 0);
	fill(data, sizeof(data), 99);
	fill(oob, sizeof(oob), 98);
	data_op(&f, &op, NAND_OP_PROGRAM, 3, 0, data, oob);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_int_equal(op.status, 0);
	data_op(&f, &op, NAND_OP_READ, 3, 0, back, oback);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_int_equal(op.status, 0);
	assert_false(op.erased);
	assert_memory_equal(back, data, sizeof(data));
	assert_memory_equal(oback, oob, sizeof(oob));
	/* Old page 1 is gone with the erase. */
	data_op(&f, &op, NAND_OP_READ, 3, 1, back, oback);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
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
	small_geo(&f.cfg.geo);
	fx_create(&f, true);
	memset(back, 0, sizeof(back));
	memset(oback, 0, sizeof(oback));
	data_op(&f, &op, NAND_OP_READ, 0, 0, back, oback);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_int_equal(op.status, 0);
	assert_true(op.erased);
	assert_true(all_bytes(back, sizeof(back), 0xff));
	assert_true(all_bytes(oback, sizeof(oback), 0xff));

	fill(data, sizeof(data), 5);
	fill(oob, sizeof(oob), 6);
	data_op(&f, &op, NAND_OP_PROGRAM, 0, 0, data, oob);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	data_op(&f, &op, NAND_OP_READ, 0, 0, back, oback);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_int_equal(op.status, 0);
	assert_false(op.erased);
	assert_memory_equal(back, data, sizeof(data));
	assert_memory_equal(oback, oob, sizeof(oob));
	/* Beyond the write pointer of a partly written block. */
	data_op(&f, &op, NAND_OP_READ, 0, 4, back, NULL);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_true(op.erased);
	assert_true(all_bytes(back, sizeof(back), 0xff));
	/* A NULL-data program stores zeroes. */
	data_op(&f, &op, NAND_OP_PROGRAM, 0, 1, NULL, NULL);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	data_op(&f, &op, NAND_OP_READ, 0, 1, back, oback);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
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
	small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fill(data, sizeof(data), 11);
	fill(oob, sizeof(oob), 12);
	data_op(&f, &op, NAND_OP_PROGRAM, 2, 0, data, oob);
	op.nplanes = 2;
	op.addr.plane = 1; /* ignored */
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_int_equal(op.status, 0);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &a))->write_ptr, 1);
	a.plane = 1;
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &a))->write_ptr, 1);
	/* Plane 1 alone. */
	data_op(&f, &op, NAND_OP_READ, 2, 0, back, oback);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_memory_equal(back, data + 4096, 4096);
	assert_memory_equal(oback, oob + 64, 64);
	/* Both planes. */
	memset(back, 0, sizeof(back));
	data_op(&f, &op, NAND_OP_READ, 2, 0, back, oback);
	op.nplanes = 2;
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
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
	small_geo(&f.cfg.geo);
	fx_create(&f, true);
	op_init(&f, &a, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 2, 4);
	op_init(&f, &b, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 2, 4);
	assert_int_equal(submit(&f, &a, 0), 0);
	assert_int_equal(submit(&f, &b, 0), 0);
	run_all(&f);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_int_equal(f.store->pages_stored, 0);
	assert_int_equal(f.store->dies[2].programs, 0);
	for (uint64_t i = 0; i < nand_blocks(&f.cfg.geo); i++)
		assert_int_equal(nand_block_meta(f.dev, i)->write_ptr, 0);
	assert_null(nand_block_meta(f.dev, nand_blocks(&f.cfg.geo)));
	fx_destroy(&f);
}

/* ---- timing ---- */

/* 12. A read alone: tR(type) + xfer; starts only from advance(). */
static void test_read_alone(void **state)
{
	static const uint64_t want[] = { 1000 + 56000 + XFER, 1000 + 65000 + XFER,
					 1000 + 74000 + XFER };
	struct fx f;
	struct nand_op op;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	for (uint32_t p = 0; p < 3; p++) {
		op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 3, 2, 7, p);
		assert_int_equal(submit(&f, &op, 1000), 0);
		assert_int_equal(f.n, 0);
		assert_int_equal(nand_inflight(f.dev), 1);
		assert_int_equal(nand_next_event(f.dev), 1000);
		assert_int_equal(nand_advance(f.dev, 999), 0);
		assert_int_equal(nand_advance(f.dev, 1000), 0);
		assert_int_equal(op.start_ns, 1000);
		assert_int_equal(nand_next_event(f.dev), 1000 + f.cfg.timing.t_read_ns[p]);
		run_all(&f);
		assert_int_equal(f.n, 1);
		expect_done(&op, 0, want[p]);
		assert_int_equal(op.submit_ns, 1000);
		assert_int_equal(op.suspends, 0);
		fx_destroy(&f);
		fx_init(&f);
		fx_create(&f, false);
	}
	/* 4 KiB transfer. */
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.xfer_bytes = 4096;
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	expect_done(&op, 0, 56000 + 2548);
	/* Odd sizes round the transfer up: 1001 B at 2000 MB/s = 500.5 ns. */
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op.xfer_bytes = 1001;
	assert_int_equal(submit(&f, &op, 100000), 0);
	run_all(&f);
	expect_done(&op, 0, 100000 + 56000 + 500 + 501);
	fx_destroy(&f);
	/* 16384 B at 333 MB/s = 49201.2 ns. */
	fx_init(&f);
	f.cfg.timing.bus_mbps = 333;
	fx_create(&f, false);
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	expect_done(&op, 0, 56000 + 500 + 49202);
	fx_destroy(&f);
}

/* 13. Two reads on one die: the second's tR starts after the first's xfer. */
static void test_read_same_die(void **state)
{
	struct fx f;
	struct nand_op a, b;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 1);
	assert_int_equal(submit(&f, &a, 0), 0);
	assert_int_equal(submit(&f, &b, 0), 0);
	run_all(&f);
	expect_done(&a, 0, RD0);
	assert_int_equal(b.start_ns, RD0);
	expect_done(&b, 0, RD0 + 65000 + XFER);
	assert_ptr_equal(f.order[0], &a);
	assert_ptr_equal(f.order[1], &b);
	fx_destroy(&f);
}

/* 14. Two dies on a channel: tR overlaps, transfers take turns. */
static void test_read_shared_channel(void **state)
{
	struct fx f;
	struct nand_op a, b, c;
	const struct nand_channel_stats *cs;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 5, 0, 0, 0);
	op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 5, 3, 0, 0);
	op_init(&f, &c, NAND_OP_READ, NAND_PRIO_HOST_READ, 5, 1, 0, 0);
	assert_int_equal(submit(&f, &a, 0), 0);
	assert_int_equal(submit(&f, &b, 0), 0);
	assert_int_equal(submit(&f, &c, 0), 0);
	run_all(&f);
	expect_done(&a, 0, RD0);
	expect_done(&c, 0, RD0 + XFER);
	expect_done(&b, 0, RD0 + 2 * XFER);
	cs = nand_channel_stats(f.dev, 5);
	assert_int_equal(cs->busy_ns, 3 * XFER);
	assert_int_equal(cs->transfers, 3);
	assert_int_equal(cs->max_waiting, 2);
	assert_int_equal(cs->waiting, 0);
	assert_int_equal(nand_channel_stats(f.dev, 4)->transfers, 0);
	assert_null(nand_channel_stats(f.dev, 8));
	fx_destroy(&f);
}

/* 15. Two channels run fully in parallel. */
static void test_read_two_channels(void **state)
{
	struct fx f;
	struct nand_op a, b;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 7, 0, 0, 0);
	assert_int_equal(submit(&f, &a, 0), 0);
	assert_int_equal(submit(&f, &b, 0), 0);
	run_all(&f);
	expect_done(&a, 0, RD0);
	expect_done(&b, 0, RD0);
	fx_destroy(&f);
}

/* 16. Program: transfer then tPROG(type); transfers serialize per channel. */
static void test_program_timing(void **state)
{
	static const uint64_t tprog[] = { 1200000, 2000000, 3000000 };
	struct fx f;
	struct nand_op a, b, c;

	(void)state;
	for (uint32_t p = 0; p < 3; p++) {
		fx_init(&f);
		fx_create(&f, false);
		op_init(&f, &a, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 1, 1, p);
		assert_int_equal(submit(&f, &a, 500), 0);
		run_all(&f);
		expect_done(&a, 0, 500 + XFER + tprog[p]);
		assert_int_equal(a.start_ns, 500);
		fx_destroy(&f);
	}
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &a, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 2, 0, 0, 0);
	op_init(&f, &b, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 2, 1, 0, 0);
	op_init(&f, &c, NAND_OP_ERASE, NAND_PRIO_ERASE, 2, 2, 0, 0);
	assert_int_equal(submit(&f, &a, 0), 0);
	assert_int_equal(submit(&f, &b, 0), 0);
	assert_int_equal(submit(&f, &c, 0), 0);
	run_all(&f);
	expect_done(&a, 0, XFER + TPROG0);
	expect_done(&b, 0, 2 * XFER + TPROG0);
	expect_done(&c, 0, TBERS);
	fx_destroy(&f);
}

/* 17. Multi-plane: one array time, nplanes pages on the bus. */
static void test_multiplane_timing(void **state)
{
	struct fx f;
	struct nand_op a, b, c;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &a, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	a.nplanes = 2;
	op_init(&f, &b, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 1, 0, 0, 0);
	b.nplanes = 2;
	op_init(&f, &c, NAND_OP_READ, NAND_PRIO_HOST_READ, 2, 0, 0, 2);
	c.nplanes = 2;
	c.xfer_bytes = 4096;
	assert_int_equal(submit(&f, &a, 0), 0);
	assert_int_equal(submit(&f, &b, 0), 0);
	assert_int_equal(submit(&f, &c, 0), 0);
	run_all(&f);
	expect_done(&a, 0, 56000 + 16884);
	expect_done(&b, 0, 16884 + TPROG0);
	expect_done(&c, 0, 74000 + 500 + 4096);
	assert_int_equal(nand_channel_stats(f.dev, 0)->busy_ns, 16884);
	fx_destroy(&f);
}

/* 18. Bus priority: waiting read data goes before waiting program data. */
static void test_bus_priority(void **state)
{
	struct fx f;
	struct nand_op r0, w, r1;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	/* Die 2 holds the bus 56000..64692. */
	op_init(&f, &r0, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 2, 0, 0);
	assert_int_equal(submit(&f, &r0, 0), 0);
	/* Die 1's read: tR 6000..62000, then waits. */
	op_init(&f, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 1, 0, 0);
	run_to(&f, 6000);
	assert_int_equal(submit(&f, &r1, 6000), 0);
	/* Die 0's program asks for the bus at 60000, before die 1's read. */
	op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 0);
	run_to(&f, 60000);
	assert_int_equal(submit(&f, &w, 60000), 0);
	run_all(&f);
	expect_done(&r0, 0, RD0);
	expect_done(&r1, 0, RD0 + XFER);
	expect_done(&w, 0, RD0 + 2 * XFER + TPROG0);
	fx_destroy(&f);
}

/* Erase at 0 on die (0, 0), then a host read at @t_read. */
static void erase_then_read(struct fx *f, struct nand_op *e, struct nand_op *r,
			    uint64_t t_read)
{
	fx_create(f, false);
	op_init(f, e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	op_init(f, r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0);
	assert_int_equal(submit(f, e, 0), 0);
	run_to(f, t_read);
	assert_int_equal(submit(f, r, t_read), 0);
	run_all(f);
}

/* 19. Policy never: the read waits for the whole tBERS. */
static void test_suspend_never(void **state)
{
	struct fx f;
	struct nand_op e, r;
	const struct nand_stats *st;

	(void)state;
	fx_init(&f);
	f.cfg.policy = nand_suspend_never;
	erase_then_read(&f, &e, &r, 1000000);
	expect_done(&e, 0, TBERS);
	expect_done(&r, 0, TBERS + RD0);
	assert_int_equal(r.start_ns, TBERS);
	st = nand_dev_stats(f.dev);
	assert_int_equal(st->suspend.suspends[NAND_OP_ERASE], 0);
	assert_int_equal(st->suspend.declined, 1);
	assert_int_equal(e.suspends, 0);
	assert_ptr_equal(f.order[0], &e);
	fx_destroy(&f);
}

static void check_one_erase_suspend(struct fx *f, struct nand_op *e,
				    struct nand_op *r, uint64_t t_sus)
{
	const struct nand_stats *st = nand_dev_stats(f->dev);
	const struct nand_die_stats *ds = nand_die_stats(f->dev, 0);

	expect_done(r, 0, t_sus + TSUS + RD0);
	expect_done(e, 0, TBERS + TSUS + RD0 + 20000);
	assert_int_equal(r->start_ns, t_sus + TSUS);
	assert_int_equal(e->suspends, 1);
	assert_int_equal(r->suspends, 0);
	assert_ptr_equal(f->order[0], r);
	assert_int_equal(st->suspend.suspends[NAND_OP_ERASE], 1);
	assert_int_equal(st->suspend.resumes[NAND_OP_ERASE], 1);
	assert_int_equal(st->suspend.suspends[NAND_OP_PROGRAM], 0);
	assert_int_equal(st->suspend.reads_overtaken, 1);
	assert_int_equal(st->suspend.suspended_ns, TSUS + RD0 + 20000);
	assert_int_equal(st->suspend.declined, 0);
	assert_int_equal(ds->suspend_overhead_ns, 40000);
	assert_int_equal(ds->busy_ns[NAND_OP_ERASE], TBERS);
	assert_int_equal(ds->busy_ns[NAND_OP_READ], TR0);
	assert_int_equal(ds->ops[NAND_OP_ERASE], 1);
	assert_int_equal(ds->ops[NAND_OP_READ], 1);
}

/* 20. Policy always / default: the read overtakes the erase. */
static void test_suspend_erase(void **state)
{
	struct fx f;
	struct nand_op e, r;

	(void)state;
	fx_init(&f);
	f.cfg.policy = nand_suspend_always;
	erase_then_read(&f, &e, &r, 1000000);
	check_one_erase_suspend(&f, &e, &r, 1000000);
	fx_destroy(&f);

	fx_init(&f); /* default policy */
	erase_then_read(&f, &e, &r, 4321000);
	check_one_erase_suspend(&f, &e, &r, 4321000);
	fx_destroy(&f);
}

/* 21. A program is suspended in its array phase only. */
static void test_suspend_program(void **state)
{
	struct fx f;
	struct nand_op w, r;

	(void)state;
	/* Read at 500 us: tPROG runs 8692..1208692. */
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 0);
	op_init(&f, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
	assert_int_equal(submit(&f, &w, 0), 0);
	run_to(&f, 500000);
	assert_int_equal(submit(&f, &r, 500000), 0);
	run_all(&f);
	expect_done(&r, 0, 500000 + TSUS + RD0);
	expect_done(&w, 0, XFER + TPROG0 + TSUS + RD0 + 20000);
	assert_int_equal(w.suspends, 1);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.suspends[NAND_OP_PROGRAM], 1);
	assert_int_equal(nand_die_stats(f.dev, 0)->busy_ns[NAND_OP_PROGRAM], TPROG0);
	fx_destroy(&f);

	/*
	 * Read queued during the data transfer: the array phase starts at
	 * 8692 and must run min_progress (100 us) before it can be suspended.
	 */
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 0, 0);
	op_init(&f, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
	assert_int_equal(submit(&f, &w, 0), 0);
	run_to(&f, 1000);
	assert_int_equal(submit(&f, &r, 1000), 0);
	run_all(&f);
	expect_done(&r, 0, XFER + 100000 + TSUS + RD0);
	expect_done(&w, 0, XFER + TPROG0 + TSUS + RD0 + 20000);
	fx_destroy(&f);
}

/* 22. min_progress_ns: no suspension before the op has run that long. */
static void test_suspend_min_progress(void **state)
{
	struct fx f;
	struct nand_op e, r;

	(void)state;
	fx_init(&f);
	assert_int_equal(f.cfg.min_progress_ns, 100000);
	erase_then_read(&f, &e, &r, 10000);
	check_one_erase_suspend(&f, &e, &r, 100000);
	fx_destroy(&f);

	fx_init(&f);
	f.cfg.min_progress_ns = 0;
	erase_then_read(&f, &e, &r, 10000);
	check_one_erase_suspend(&f, &e, &r, 10000);
	fx_destroy(&f);

	/* Counted again from the resume: a 2nd read 30 us after it waits. */
	fx_init(&f);
	f.cfg.min_progress_ns = 500000;
	fx_create(&f, false);
	{
		struct nand_op r2;
		const uint64_t resumed = 500000 + TSUS + RD0 + 20000;

		op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
		op_init(&f, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0);
		op_init(&f, &r2, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 4, 0);
		assert_int_equal(submit(&f, &e, 0), 0);
		run_to(&f, 10000);
		assert_int_equal(submit(&f, &r, 10000), 0);
		run_to(&f, resumed + 30000);
		assert_int_equal(f.n, 1);
		assert_int_equal(submit(&f, &r2, resumed + 30000), 0);
		run_all(&f);
		expect_done(&r, 0, 500000 + TSUS + RD0);
		expect_done(&r2, 0, resumed + 500000 + TSUS + RD0);
		expect_done(&e, 0, TBERS + 2 * (TSUS + RD0 + 20000));
		assert_int_equal(e.suspends, 2);
	}
	fx_destroy(&f);
}

/* 23. A read landing during tRESUME waits for the resume, then min_progress. */
static void test_suspend_during_resume(void **state)
{
	struct fx f;
	struct nand_op e, r1, r2;
	const uint64_t resumed = 1000000 + TSUS + RD0 + 20000; /* 1104692 */

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	op_init(&f, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0);
	op_init(&f, &r2, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 4, 0);
	assert_int_equal(submit(&f, &e, 0), 0);
	run_to(&f, 1000000);
	assert_int_equal(submit(&f, &r1, 1000000), 0);
	run_to(&f, resumed - 10000);
	assert_int_equal(f.dev->dies[0].phase, DIE_RESUMING);
	assert_int_equal(submit(&f, &r2, resumed - 10000), 0);
	run_all(&f);
	expect_done(&r1, 0, 1000000 + TSUS + RD0);
	expect_done(&r2, 0, resumed + 100000 + TSUS + RD0);
	expect_done(&e, 0, TBERS + 2 * (TSUS + RD0 + 20000));
	assert_int_equal(e.suspends, 2);
	fx_destroy(&f);
}

/* 24. max_suspends_per_op: the third read waits for the end. */
static void test_suspend_cap(void **state)
{
	struct fx f;
	struct nand_op e, r[3];
	const uint64_t at[3] = { 1000000, 3000000, 5000000 };
	const uint64_t end = TBERS + 2 * (TSUS + RD0 + 20000);

	(void)state;
	fx_init(&f);
	f.cfg.policy = nand_suspend_always;
	f.cfg.max_suspends_per_op = 2;
	fx_create(&f, false);
	op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	assert_int_equal(submit(&f, &e, 0), 0);
	for (int i = 0; i < 3; i++) {
		op_init(&f, &r[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
		run_to(&f, at[i]);
		assert_int_equal(submit(&f, &r[i], at[i]), 0);
	}
	run_all(&f);
	expect_done(&r[0], 0, at[0] + TSUS + RD0);
	expect_done(&r[1], 0, at[1] + TSUS + RD0);
	expect_done(&e, 0, end);
	expect_done(&r[2], 0, end + RD0);
	assert_int_equal(e.suspends, 2);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.suspends[NAND_OP_ERASE], 2);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.capped, 1);
	fx_destroy(&f);
}

/* 25. No suspension that would end after the op itself. */
static void test_suspend_too_late(void **state)
{
	struct fx f;
	struct nand_op e, r;

	(void)state;
	fx_init(&f);
	f.cfg.policy = nand_suspend_always;
	erase_then_read(&f, &e, &r, TBERS - 10000);
	expect_done(&e, 0, TBERS);
	expect_done(&r, 0, TBERS + RD0);
	assert_int_equal(e.suspends, 0);
	fx_destroy(&f);
}

/* 26. The default policy declines past 90% of the array time. */
static void test_suspend_default_90(void **state)
{
	struct fx f;
	struct nand_op e, r;

	(void)state;
	fx_init(&f);
	erase_then_read(&f, &e, &r, 9010000);
	expect_done(&e, 0, TBERS);
	expect_done(&r, 0, TBERS + RD0);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.declined, 1);
	fx_destroy(&f);

	fx_init(&f);
	erase_then_read(&f, &e, &r, 8990000);
	check_one_erase_suspend(&f, &e, &r, 8990000);
	fx_destroy(&f);
}

struct qcap {
	uint32_t calls;
	struct nand_suspend_query q;
};

static bool qcap_cb(void *ctx, const struct nand_suspend_query *q)
{
	struct qcap *c = ctx;

	c->calls++;
	c->q = *q;
	return false;
}

/* 27. The policy is told what runs, how far along, and what waits. */
static void test_suspend_query(void **state)
{
	struct fx f;
	struct nand_op e, w, r;
	struct qcap cap = { 0 };

	(void)state;
	fx_init(&f);
	f.cfg.policy = (struct nand_suspend_policy){ "cap", qcap_cb, &cap };
	fx_create(&f, false);
	op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 1, 0);
	op_init(&f, &r, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 3, 0);
	assert_int_equal(submit(&f, &e, 0), 0);
	run_to(&f, 1000000);
	assert_int_equal(submit(&f, &w, 1000000), 0);
	assert_int_equal(cap.calls, 0); /* a write does not ask */
	run_to(&f, 2000000);
	assert_int_equal(submit(&f, &r, 2000000), 0);
	assert_int_equal(cap.calls, 1);
	assert_int_equal(cap.q.running, NAND_OP_ERASE);
	assert_int_equal(cap.q.elapsed_ns, 2000000);
	assert_int_equal(cap.q.total_ns, TBERS);
	assert_int_equal(cap.q.suspends, 0);
	assert_int_equal(cap.q.waiting, NAND_PRIO_HOST_READ);
	assert_int_equal(cap.q.now_ns, 2000000);
	/* One read waits; the queued program is not a read. */
	assert_int_equal(cap.q.reads_waiting, 1);
	run_all(&f);
	fx_destroy(&f);
}

/* 28. One suspension serves every queued host read, GC reads do not suspend. */
static void test_suspend_batch(void **state)
{
	struct fx f;
	struct nand_op e, r[3], late, gc;
	uint64_t s = 1000000 + TSUS;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	assert_int_equal(submit(&f, &e, 0), 0);
	run_to(&f, 1000000);
	for (int i = 0; i < 3; i++) {
		op_init(&f, &r[i], NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 1, 0);
		assert_int_equal(submit(&f, &r[i], 1000000), 0);
	}
	/* Arrives while the suspended die serves the first read. */
	op_init(&f, &late, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 2, 0);
	run_to(&f, s + 1000);
	assert_int_equal(submit(&f, &late, s + 1000), 0);
	run_all(&f);
	for (int i = 0; i < 3; i++)
		expect_done(&r[i], 0, s + (uint64_t)(i + 1) * RD0);
	expect_done(&late, 0, s + 4 * RD0);
	expect_done(&e, 0, TBERS + TSUS + 4 * RD0 + 20000);
	assert_int_equal(e.suspends, 1);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.reads_overtaken, 4);
	fx_destroy(&f);

	fx_init(&f);
	f.cfg.policy = nand_suspend_always;
	fx_create(&f, false);
	op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 9, 0);
	op_init(&f, &gc, NAND_OP_READ, NAND_PRIO_GC_READ, 0, 0, 1, 0);
	assert_int_equal(submit(&f, &e, 0), 0);
	run_to(&f, 1000000);
	assert_int_equal(submit(&f, &gc, 1000000), 0);
	run_all(&f);
	expect_done(&e, 0, TBERS);
	expect_done(&gc, 0, TBERS + RD0);
	fx_destroy(&f);
}

/* 29. Erase suspension is recorded as wear on the block. */
static void test_suspend_wear(void **state)
{
	struct fx f;
	struct nand_op e, r;
	struct nand_addr a = { 1, 0, 1, 3, 0 };

	(void)state;
	fx_init(&f);
	small_geo(&f.cfg.geo);
	fx_create(&f, true);
	data_op(&f, &e, NAND_OP_ERASE, 3, 0, NULL, NULL);
	data_op(&f, &r, NAND_OP_READ, 0, 0, NULL, NULL);
	assert_int_equal(submit(&f, &e, 0), 0);
	run_to(&f, 2000000);
	assert_int_equal(submit(&f, &r, 2000000), 0);
	run_all(&f);
	assert_int_equal(e.status, 0);
	assert_true(r.erased);
	/* 4 KiB pages on this geometry: read die time 56000 + 2548. */
	expect_done(&r, 0, 2000000 + TSUS + 56000 + 2548);
	expect_done(&e, 0, TBERS + TSUS + 56000 + 2548 + 20000);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &a))->erase_suspends, 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &a))->erase_count, 1);
	assert_int_equal(nand_dev_stats(f.dev)->suspend.erase_suspend_wear, 1);
	fx_destroy(&f);
}

/* 30. Queued host reads go first, then GC reads, host writes, GC writes, erases. */
static void test_priorities(void **state)
{
	struct fx f;
	struct nand_op busy, gw, hw, er, gr, hr;
	struct nand_op *want[] = { &busy, &hr, &gr, &hw, &gw, &er };
	uint64_t t;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &busy, NAND_OP_READ, NAND_PRIO_HOST_READ, 4, 1, 0, 0);
	op_init(&f, &gw, NAND_OP_PROGRAM, NAND_PRIO_GC_WRITE, 4, 1, 1, 0);
	op_init(&f, &hw, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 4, 1, 2, 0);
	op_init(&f, &er, NAND_OP_ERASE, NAND_PRIO_ERASE, 4, 1, 3, 0);
	op_init(&f, &gr, NAND_OP_READ, NAND_PRIO_GC_READ, 4, 1, 4, 0);
	op_init(&f, &hr, NAND_OP_READ, NAND_PRIO_HOST_READ, 4, 1, 5, 0);
	assert_int_equal(submit(&f, &busy, 0), 0);
	run_to(&f, 1000);
	assert_int_equal(submit(&f, &er, 1000), 0);
	assert_int_equal(submit(&f, &gw, 1000), 0);
	assert_int_equal(submit(&f, &hw, 1000), 0);
	assert_int_equal(submit(&f, &gr, 1000), 0);
	assert_int_equal(submit(&f, &hr, 1000), 0);
	assert_int_equal(nand_die_stats(f.dev, 17)->max_queued, 5);
	run_all(&f);
	assert_int_equal(f.n, 6);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		if (f.order[i] != want[i])
			fail_msg("completion %zu is prio %d kind %d", i, f.order[i]->prio,
				 f.order[i]->kind);
	t = RD0;
	expect_done(&busy, 0, t);
	expect_done(&hr, 0, t += RD0);
	expect_done(&gr, 0, t += RD0);
	assert_int_equal(hw.start_ns, t);
	expect_done(&hw, 0, t += XFER + TPROG0);
	expect_done(&gw, 0, t += XFER + TPROG0);
	expect_done(&er, 0, t += TBERS);
	assert_int_equal(nand_die_stats(f.dev, 17)->queued, 0);
	fx_destroy(&f);
}

/* 31. A closed loop from callbacks: back to back, never nested. */
static void test_closed_loop(void **state)
{
	struct fx f;
	struct nand_op op;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	f.chain = 9;
	assert_int_equal(submit(&f, &op, 0), 0);
	run_all(&f);
	assert_int_equal(f.n, 10);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(f.when[i], (uint64_t)(i + 1) * RD0);
	assert_int_equal(f.nested, 0);
	/* One advance far ahead delivers them all at their modeled times. */
	{
		const uint64_t base = 10 * RD0;

		f.n = 0;
		f.chain = 4;
		assert_int_equal(submit(&f, &op, base), 0);
		assert_int_equal(nand_advance(f.dev, base + 10 * RD0), 5);
		for (uint32_t i = 0; i < 5; i++)
			assert_int_equal(f.when[i], base + (uint64_t)(i + 1) * RD0);
		assert_int_equal(nand_dev_stats(f.dev)->lateness.max, 9 * RD0);
		assert_int_equal(nand_dev_stats(f.dev)->lateness.min, 0);
		assert_int_equal(nand_dev_stats(f.dev)->latency[NAND_OP_READ].max, RD0);
	}
	fx_destroy(&f);
}

/* 32. Null timing: done at submit time, but only through advance(). */
static void test_null_timing(void **state)
{
	struct fx f;
	struct nand_op a;

	(void)state;
	fx_init(&f);
	f.cfg.timing.null_timing = true;
	fx_create(&f, false);
	op_init(&f, &a, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 0, 0);
	assert_int_equal(submit(&f, &a, 5000), 0);
	assert_int_equal(f.n, 0);
	assert_int_equal(nand_inflight(f.dev), 1);
	assert_int_equal(nand_next_event(f.dev), 5000);
	assert_int_equal(nand_advance(f.dev, 5000), 1);
	expect_done(&a, 0, 5000);
	assert_int_equal(a.start_ns, 5000);
	assert_int_equal(nand_dev_stats(f.dev)->latency[NAND_OP_ERASE].max, 0);
	/* A resubmission from the callback waits for the next advance. */
	f.chain = 1;
	assert_int_equal(submit(&f, &a, 6000), 0);
	assert_int_equal(nand_advance(f.dev, 6000), 1);
	assert_int_equal(nand_inflight(f.dev), 1);
	assert_int_equal(nand_next_event(f.dev), 6000);
	assert_int_equal(nand_advance(f.dev, 6000), 1);
	assert_int_equal(f.n, 3);
	assert_int_equal(f.nested, 0);
	fx_destroy(&f);
}

/* 33. Null timing: an op is not due before its submit time. */
static void test_null_timing_not_early(void **state)
{
	struct fx f;
	struct nand_op b;

	(void)state;
	fx_init(&f);
	f.cfg.timing.null_timing = true;
	fx_create(&f, false);
	op_init(&f, &b, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	assert_int_equal(submit(&f, &b, 9000), 0);
	assert_int_equal(nand_advance(f.dev, 8000), 0);
	assert_int_equal(nand_advance(f.dev, 9000), 1);
	expect_done(&b, 0, 9000);
	fx_destroy(&f);
}

/* 34. Null timing still enforces the flash rules on data ops. */
static void test_null_timing_rules(void **state)
{
	struct fx f;
	struct nand_op a, b;

	(void)state;
	fx_init(&f);
	small_geo(&f.cfg.geo);
	f.cfg.timing.null_timing = true;
	fx_create(&f, true);
	data_op(&f, &a, NAND_OP_PROGRAM, 0, 1, NULL, NULL);
	assert_int_equal(submit(&f, &a, 0), 0);
	assert_int_equal(nand_advance(f.dev, 0), 1);
	assert_int_equal(a.status, -EPERM);
	assert_int_equal(nand_block_meta(f.dev, blk_idx(&f, 0))->write_ptr, 0);
	/* The same page twice before either executes. */
	data_op(&f, &a, NAND_OP_PROGRAM, 1, 0, NULL, NULL);
	data_op(&f, &b, NAND_OP_PROGRAM, 1, 0, NULL, NULL);
	assert_int_equal(submit(&f, &a, 0), 0);
	assert_int_equal(submit(&f, &b, 0), 0);
	assert_int_equal(nand_advance(f.dev, 0), 2);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, -EPERM);
	assert_int_equal(f.store->pages_stored, 1);
	fx_destroy(&f);
}

/* 35. Telemetry after a scripted mix. */
static void test_telemetry(void **state)
{
	struct fx f;
	struct nand_op r1, r2, w, e, r3;
	const struct nand_die_stats *d0, *d1;
	const struct nand_stats *st;
	const struct blox_hist *lr;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	op_init(&f, &r1, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	op_init(&f, &r2, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 1);
	op_init(&f, &w, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 1, 0);
	op_init(&f, &e, NAND_OP_ERASE, NAND_PRIO_ERASE, 0, 0, 2, 0);
	op_init(&f, &r3, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 1, 0, 2);
	assert_int_equal(submit(&f, &r1, 0), 0);
	assert_int_equal(submit(&f, &r2, 0), 0);
	assert_int_equal(submit(&f, &w, 0), 0);
	assert_int_equal(submit(&f, &e, 0), 0);
	assert_int_equal(submit(&f, &r3, 0), 0);
	assert_int_equal(nand_inflight(f.dev), 5);
	run_all(&f);
	expect_done(&r1, 0, RD0);
	expect_done(&r3, 0, 74000 + XFER);
	expect_done(&r2, 0, RD0 + 65000 + XFER);
	expect_done(&w, 0, r2.done_ns + XFER + TPROG0);
	expect_done(&e, 0, w.done_ns + TBERS);

	d0 = nand_die_stats(f.dev, 0);
	d1 = nand_die_stats(f.dev, 1);
	assert_int_equal(d0->busy_ns[NAND_OP_READ], 56000 + 65000);
	assert_int_equal(d0->busy_ns[NAND_OP_PROGRAM], TPROG0);
	assert_int_equal(d0->busy_ns[NAND_OP_ERASE], TBERS);
	assert_int_equal(d0->ops[NAND_OP_READ], 2);
	assert_int_equal(d0->ops[NAND_OP_PROGRAM], 1);
	assert_int_equal(d0->ops[NAND_OP_ERASE], 1);
	assert_int_equal(d0->max_queued, 4);
	assert_int_equal(d0->queued, 0);
	assert_int_equal(d0->suspend_overhead_ns, 0);
	assert_int_equal(d1->busy_ns[NAND_OP_READ], 74000);
	assert_int_equal(d1->ops[NAND_OP_READ], 1);
	assert_null(nand_die_stats(f.dev, 32));
	assert_int_equal(nand_channel_stats(f.dev, 0)->transfers, 4);
	assert_int_equal(nand_channel_stats(f.dev, 0)->busy_ns, 4 * XFER);

	st = nand_dev_stats(f.dev);
	assert_int_equal(st->completed, 5);
	lr = &st->latency[NAND_OP_READ];
	assert_int_equal(lr->count, 3);
	assert_int_equal(lr->min, RD0);
	assert_int_equal(lr->max, r2.done_ns);
	assert_int_equal(lr->sum, r1.done_ns + r2.done_ns + r3.done_ns);
	assert_int_equal(lr->buckets[blox_hist_bucket(RD0)], 1);
	assert_int_equal(st->latency[NAND_OP_PROGRAM].count, 1);
	assert_int_equal(st->latency[NAND_OP_PROGRAM].max, w.done_ns);
	assert_int_equal(st->latency[NAND_OP_ERASE].count, 1);
	assert_int_equal(st->lateness.count, 5);
	assert_int_equal(st->lateness.max, 0);
	assert_int_equal(st->suspend.suspends[NAND_OP_ERASE] +
				 st->suspend.suspends[NAND_OP_PROGRAM],
			 0);
	assert_null(nand_block_meta(f.dev, 0)); /* no store */
	fx_destroy(&f);
}

/* 36. The internal view agrees: phases as a read goes through. */
static void test_die_phases(void **state)
{
	struct fx f;
	struct nand_op op;
	struct nand_die *d;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	d = &f.dev->dies[0];
	op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 0, 0, 0);
	assert_int_equal(submit(&f, &op, 0), 0);
	assert_int_equal(d->phase, DIE_IDLE);
	nand_advance(f.dev, 0);
	assert_int_equal(d->phase, DIE_ARRAY);
	nand_advance(f.dev, TR0);
	assert_int_equal(d->phase, DIE_XFER_OUT);
	assert_ptr_equal(f.dev->chans[0].owner, d);
	nand_advance(f.dev, RD0);
	assert_int_equal(d->phase, DIE_IDLE);
	assert_null(f.dev->chans[0].owner);
	assert_int_equal(f.n, 1);
	fx_destroy(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_defaults, teardown),
		cmocka_unit_test_teardown(test_geometry_check, teardown),
		cmocka_unit_test_teardown(test_addr_roundtrip, teardown),
		cmocka_unit_test_teardown(test_addr_bounds, teardown),
		cmocka_unit_test_teardown(test_submit_errors, teardown),
		cmocka_unit_test_teardown(test_rules_program_twice, teardown),
		cmocka_unit_test_teardown(test_rules_out_of_order, teardown),
		cmocka_unit_test_teardown(test_rules_erase_reprogram, teardown),
		cmocka_unit_test_teardown(test_read_erased, teardown),
		cmocka_unit_test_teardown(test_multiplane_data, teardown),
		cmocka_unit_test_teardown(test_timing_only, teardown),
		cmocka_unit_test_teardown(test_read_alone, teardown),
		cmocka_unit_test_teardown(test_read_same_die, teardown),
		cmocka_unit_test_teardown(test_read_shared_channel, teardown),
		cmocka_unit_test_teardown(test_read_two_channels, teardown),
		cmocka_unit_test_teardown(test_program_timing, teardown),
		cmocka_unit_test_teardown(test_multiplane_timing, teardown),
		cmocka_unit_test_teardown(test_bus_priority, teardown),
		cmocka_unit_test_teardown(test_suspend_never, teardown),
		cmocka_unit_test_teardown(test_suspend_erase, teardown),
		cmocka_unit_test_teardown(test_suspend_program, teardown),
		cmocka_unit_test_teardown(test_suspend_min_progress, teardown),
		cmocka_unit_test_teardown(test_suspend_during_resume, teardown),
		cmocka_unit_test_teardown(test_suspend_cap, teardown),
		cmocka_unit_test_teardown(test_suspend_too_late, teardown),
		cmocka_unit_test_teardown(test_suspend_default_90, teardown),
		cmocka_unit_test_teardown(test_suspend_query, teardown),
		cmocka_unit_test_teardown(test_suspend_batch, teardown),
		cmocka_unit_test_teardown(test_suspend_wear, teardown),
		cmocka_unit_test_teardown(test_priorities, teardown),
		cmocka_unit_test_teardown(test_closed_loop, teardown),
		cmocka_unit_test_teardown(test_null_timing, teardown),
		cmocka_unit_test_teardown(test_null_timing_not_early, teardown),
		cmocka_unit_test_teardown(test_null_timing_rules, teardown),
		cmocka_unit_test_teardown(test_telemetry, teardown),
		cmocka_unit_test_teardown(test_die_phases, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
