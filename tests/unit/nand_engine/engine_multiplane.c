/* SPDX-License-Identifier: BSD-3-Clause */
/* Multi-plane groups: programs and erases across planes, and their rules. */
#include "engine_tests.h"

/* ---- multi-plane groups ---- */

/* Two single-plane ops for planes 0 and 1 of die 0, block @block, pages @p0 / @p1. */
static void plane_pair(struct fx *f, struct nand_op *a, struct nand_op *b,
		       enum nand_op_kind kind, uint32_t block, uint32_t p0, uint32_t p1)
{
	enum nand_prio prio = kind == NAND_OP_ERASE ? NAND_PRIO_ERASE : NAND_PRIO_HOST_WRITE;

	fx_op_init(f, a, kind, prio, 0, 0, block, p0);
	fx_op_init(f, b, kind, prio, 0, 0, block, p1);
	b->addr.plane = 1;
}

/* 26. Programs queued for both planes at one block and page run as one. */
void test_mp_group_program(void **state)
{
	struct fx f;
	struct nand_op a, b;
	const struct nand_stats *st;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	plane_pair(&f, &a, &b, NAND_OP_PROGRAM, 3, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	/* One command cycle, both pages on the bus, one tPROG. */
	fx_expect_done(&a, 0, 16884 + TPROG0);
	fx_expect_done(&b, 0, 16884 + TPROG0);
	assert_int_equal(a.start_ns, 0);
	assert_int_equal(b.start_ns, 0);
	assert_int_equal(f.n, 2);
	assert_ptr_equal(f.order[0], &a); /* the group completes in its order */
	assert_int_equal(f.nested, 0);
	st = nand_dev_stats(f.dev);
	assert_int_equal(st->mp_groups[NAND_OP_PROGRAM], 1);
	assert_int_equal(st->mp_joined, 1);
	assert_int_equal(nand_channel_stats(f.dev, 0)->busy_ns, 16884);
	assert_int_equal(nand_die_stats(f.dev, 0)->busy_ns[NAND_OP_PROGRAM], TPROG0);
	assert_int_equal(nand_die_stats(f.dev, 0)->ops[NAND_OP_PROGRAM], 2);
	fx_destroy(&f);

	/* Switched off: one after the other. */
	fx_init(&f);
	f.cfg.multiplane = false;
	fx_create(&f, false);
	plane_pair(&f, &a, &b, NAND_OP_PROGRAM, 3, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	fx_expect_done(&a, 0, XFER + TPROG0);
	fx_expect_done(&b, 0, 2 * (XFER + TPROG0));
	assert_int_equal(nand_dev_stats(f.dev)->mp_groups[NAND_OP_PROGRAM], 0);
	assert_int_equal(nand_dev_stats(f.dev)->mp_joined, 0);
	fx_destroy(&f);
}

/* 27. Only ops that may run together join: same kind, block and page, another plane. */
void test_mp_group_mismatch(void **state)
{
	struct fx f;
	struct nand_op a, b, c, d;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	plane_pair(&f, &a, &b, NAND_OP_PROGRAM, 3, 0, 1); /* another page */
	fx_op_init(&f, &c, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 4, 0); /* block 4 */
	c.addr.plane = 1;
	fx_op_init(&f, &d, NAND_OP_PROGRAM, NAND_PRIO_HOST_WRITE, 0, 0, 3, 0); /* plane 0 again */
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	assert_int_equal(fx_submit(&f, &d, 0), 0);
	fx_run_all(&f);
	/* Page 1 is a CSB page: tPROG 2 ms. */
	fx_expect_done(&a, 0, XFER + TPROG0);
	fx_expect_done(&b, 0, 2 * XFER + TPROG0 + 2000000);
	fx_expect_done(&c, 0, 3 * XFER + 2 * TPROG0 + 2000000);
	fx_expect_done(&d, 0, 4 * XFER + 3 * TPROG0 + 2000000);
	assert_int_equal(nand_dev_stats(f.dev)->mp_joined, 0);
	fx_destroy(&f);
}

/*
 * 28. On a store: a partner out of order for its block stays queued and
 * fails on its own; the group's data lands on both planes.
 */
void test_mp_group_rules(void **state)
{
	struct fx f;
	struct nand_op a, b, c, r;
	static uint8_t d0[4096], d1[4096], back[2 * 4096], oob[64], oback[2 * 64];

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_fill(d0, sizeof(d0), 1);
	fx_fill(d1, sizeof(d1), 2);
	/* Plane 1's page 1 before its page 0: not a partner, -EPERM. */
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 2, 0, d0, oob);
	a.addr.plane = 0;
	fx_data_op(&f, &c, NAND_OP_PROGRAM, 2, 1, d1, oob);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	fx_run_all(&f);
	assert_int_equal(a.status, 0);
	assert_int_equal(c.status, -EPERM);
	assert_int_equal(nand_dev_stats(f.dev)->mp_joined, 0);
	/* Plane 1's page 0 then joins plane 0's page 1. */
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 2, 1, d0, oob);
	a.addr.plane = 0;
	fx_data_op(&f, &b, NAND_OP_PROGRAM, 2, 0, d1, oob);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_all(&f);
	assert_int_equal(a.status, 0);
	assert_int_equal(b.status, 0);
	assert_int_equal(nand_dev_stats(f.dev)->mp_joined, 0); /* pages differ */
	fx_data_op(&f, &b, NAND_OP_PROGRAM, 2, 1, d1, oob);
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 2, 2, d0, oob);
	a.addr.plane = 0;
	fx_data_op(&f, &c, NAND_OP_PROGRAM, 2, 2, d1, oob);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &c, 0), 0);
	fx_run_all(&f);
	assert_int_equal(b.status, 0);
	assert_int_equal(a.status, 0);
	assert_int_equal(c.status, 0);
	/* b (plane 1, page 1) ran alone; a and c (page 2) as a group. */
	assert_int_equal(nand_dev_stats(f.dev)->mp_groups[NAND_OP_PROGRAM], 1);
	fx_data_op(&f, &r, NAND_OP_READ, 2, 2, back, oback);
	r.nplanes = 2;
	assert_int_equal(fx_submit(&f, &r, 0), 0);
	fx_run_all(&f);
	assert_int_equal(r.status, 0);
	assert_memory_equal(back, d0, sizeof(d0));
	assert_memory_equal(back + 4096, d1, sizeof(d1));
	fx_destroy(&f);
}

/* 29. Erases of both planes' blocks run as one; a suspension wears both. */
void test_mp_group_erase(void **state)
{
	struct fx f;
	struct nand_op a, b, r;
	struct nand_addr p0 = { 1, 0, 0, 3, 0 }, p1 = { 1, 0, 1, 3, 0 };

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	fx_data_op(&f, &a, NAND_OP_ERASE, 3, 0, NULL, NULL);
	a.addr.plane = 0;
	fx_data_op(&f, &b, NAND_OP_ERASE, 3, 0, NULL, NULL);
	fx_data_op(&f, &r, NAND_OP_READ, 0, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, 0), 0);
	fx_run_to(&f, 2000000);
	assert_int_equal(fx_submit(&f, &r, 2000000), 0);
	fx_run_all(&f);
	fx_expect_done(&r, 0, 2000000 + TSUS + 56000 + 2548);
	fx_expect_done(&a, 0, TBERS + TSUS + 56000 + 2548 + 20000);
	fx_expect_done(&b, 0, TBERS + TSUS + 56000 + 2548 + 20000);
	assert_int_equal(nand_dev_stats(f.dev)->mp_groups[NAND_OP_ERASE], 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &p0))->erase_count, 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &p1))->erase_count, 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &p0))->erase_suspends, 1);
	assert_int_equal(nand_block_meta(f.dev, nand_block_index(&f.cfg.geo, &p1))->erase_suspends, 1);
	assert_int_equal(nand_die_stats(f.dev, 2)->busy_ns[NAND_OP_ERASE], TBERS);
	fx_destroy(&f);
}

/*
 * A driver that runs late: the lead's start event (at 0) is handled after
 * a program for the other plane came in, later than the lead would have
 * finished. That program was not there when the lead started: it does
 * not join (else it would finish before it was submitted), it runs after.
 */
void test_mp_group_late_driver(void **state)
{
	struct fx f;
	struct nand_op a, b;
	uint64_t late = XFER + TPROG0 + 1000;

	(void)state;
	fx_init(&f);
	fx_create(&f, false);
	plane_pair(&f, &a, &b, NAND_OP_PROGRAM, 3, 0, 0);
	assert_int_equal(fx_submit(&f, &a, 0), 0);
	assert_int_equal(fx_submit(&f, &b, late), 0);
	fx_run_all(&f);
	fx_expect_done(&a, 0, XFER + TPROG0);
	assert_int_equal(b.start_ns, late);
	fx_expect_done(&b, 0, late + XFER + TPROG0);
	assert_true(b.done_ns > b.submit_ns);
	assert_int_equal(nand_dev_stats(f.dev)->mp_groups[NAND_OP_PROGRAM], 0);
	assert_true(nand_dev_stats(f.dev)->latency[NAND_OP_PROGRAM].max < 10 * TPROG0);
	fx_destroy(&f);
}
