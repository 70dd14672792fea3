/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flash that wears (nand/reliability.c): the error-rate model's shape and
 * defaults, read retries and what they cost in time, uncorrectable pages
 * that stay so until their block is erased, read disturb and retention
 * ageing through the engine, the same errors from the same seed, and the
 * settings a device refuses. On the small geometry (4 KiB pages: four
 * 1 KiB codewords) with a RAM store.
 */
#include "nand_fixture.h"
#include "blox_fault.h"

#include <stdio.h>

static struct nand_reliability rel_on(void)
{
	struct nand_reliability r;

	nand_reliability_default(&r, NAND_TLC);
	r.enabled = true;
	return r;
}

/* ---- the model ---- */

static void test_rber_shape(void **state)
{
	struct nand_reliability r = rel_on();
	double fresh = nand_rber(&r, 0, 0, 0), rated = nand_rber(&r, 3000, 0, 0);
	double cw = r.codeword_bytes * 8.0;

	(void)state;
	assert_true(fresh > 0.9e-4 && fresh < 1.1e-4);
	/* Monotonic in cycles, age and reads. */
	for (uint32_t pe = 0; pe < 10000; pe += 500)
		assert_true(nand_rber(&r, pe + 500, 0, 0) > nand_rber(&r, pe, 0, 0));
	assert_true(nand_rber(&r, 3000, 365, 0) > nand_rber(&r, 3000, 30, 0));
	assert_true(nand_rber(&r, 3000, 0, 100000) > nand_rber(&r, 3000, 0, 1000));
	/* Wear scales retention and disturb: the same age costs more on a worn block. */
	assert_true(nand_rber(&r, 3000, 365, 0) - rated > nand_rber(&r, 0, 365, 0) - fresh);
	/* What the defaults aim at: rated cycles, fresh data: well inside the ECC. */
	assert_true(rated * cw < r.ecc_bits / 2.0);
	/* Rated cycles and a year: near it, under it on average. */
	assert_true(nand_rber(&r, 3000, 365, 0) * cw < r.ecc_bits);
	assert_true(nand_rber(&r, 3000, 365, 0) * cw > r.ecc_bits / 2.0);
	/* A little past twice the rated cycles even the last retry leaves too many. */
	assert_true(nand_rber(&r, 7000, 0, 0) * cw * r.retry_floor > r.ecc_bits);
	/* Cell types: fewer rated cycles wear out sooner. */
	{
		struct nand_reliability q, s;

		nand_reliability_default(&q, NAND_QLC);
		nand_reliability_default(&s, NAND_SLC);
		assert_true(nand_rber(&q, 1000, 0, 0) > nand_rber(&r, 1000, 0, 0));
		assert_true(nand_rber(&s, 3000, 0, 0) < nand_rber(&r, 3000, 0, 0));
		assert_false(q.enabled || s.enabled);
	}
}

static void test_retries_needed(void **state)
{
	struct nand_reliability r = rel_on();

	(void)state;
	assert_int_equal(nand_retries_needed(&r, 0), 0);
	assert_int_equal(nand_retries_needed(&r, 60), 0);
	/* 61 x (0.4 + 0.6 x 0.6) = 46.4 */
	assert_int_equal(nand_retries_needed(&r, 61), 1);
	/* 100 x (0.4 + 0.6 x 0.6^k) <= 60 first at k = 3 (61.0, 52.96...) */
	assert_int_equal(nand_retries_needed(&r, 100), 3);
	/* 150 x (0.4 + 0.6 x 0.6^7) = 62.5: not even the last step. */
	assert_int_equal(nand_retries_needed(&r, 150), UINT32_MAX);
	r.retries = 0;
	assert_int_equal(nand_retries_needed(&r, 61), UINT32_MAX);
}

static void test_bad_settings(void **state)
{
	struct fx f;
	struct nand_dev *dev = NULL;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	f.cfg.rel = rel_on();
	f.cfg.rel.codeword_bytes = 0;
	assert_int_equal(nand_reliability_check(&f.cfg.rel, &f.cfg.geo), -EINVAL);
	assert_int_equal(nand_dev_create(&f.cfg, NULL, &dev), -EINVAL);
	f.cfg.rel = rel_on();
	f.cfg.rel.codeword_bytes = 8192; /* past the 4 KiB page */
	assert_int_equal(nand_dev_create(&f.cfg, NULL, &dev), -EINVAL);
	f.cfg.rel = rel_on();
	f.cfg.rel.retry_keep = 0;
	assert_int_equal(nand_dev_create(&f.cfg, NULL, &dev), -EINVAL);
	f.cfg.rel = rel_on();
	f.cfg.rel.aging = -1;
	assert_int_equal(nand_dev_create(&f.cfg, NULL, &dev), -EINVAL);
	/* Off: nothing is checked. */
	f.cfg.rel.enabled = false;
	assert_int_equal(nand_reliability_check(&f.cfg.rel, &f.cfg.geo), 0);
}

/* ---- through the engine ---- */

static uint8_t page_buf[4096], oob_buf[64], rd_buf[4096], oob_rd[64];

static void rel_dev(struct fx *f, uint64_t seed)
{
	fx_init(f);
	fx_small_geo(&f->cfg.geo);
	nand_timing_default(&f->cfg.timing, NAND_TLC);
	f->cfg.rel = rel_on();
	f->cfg.rel.seed = seed;
	fx_create(f, true);
}

/* Program page 0 of @block (plane 1, die 0 of channel 1) at @t. */
static void program0(struct fx *f, uint32_t block, uint64_t t)
{
	struct nand_op op;

	fx_data_op(f, &op, NAND_OP_PROGRAM, block, 0, page_buf, oob_buf);
	assert_int_equal(fx_submit(f, &op, t), 0);
	fx_run_all(f);
	assert_int_equal(op.status, 0);
}

/* Read page 0 of @block alone on an idle device at @t; its op. */
static struct nand_op read0(struct fx *f, uint32_t block, uint64_t t)
{
	struct nand_op op;

	fx_data_op(f, &op, NAND_OP_READ, block, 0, rd_buf, NULL);
	assert_int_equal(fx_submit(f, &op, t), 0);
	fx_run_all(f);
	return op;
}

/* A fresh block reads clean: no retries, the data, the read's plain time. */
static void test_fresh_reads(void **state)
{
	const struct nand_timing *tm;
	struct fx f;
	uint64_t t = 1000000;

	(void)state;
	rel_dev(&f, 7);
	tm = &f.cfg.timing;
	fx_fill(page_buf, sizeof(page_buf), 3);
	program0(&f, 0, t);
	for (int i = 0; i < 200; i++) {
		struct nand_op op;

		t += 10000000;
		op = read0(&f, 0, t);
		assert_int_equal(op.status, 0);
		assert_int_equal(op.retries, 0);
		assert_false(op.uncorrectable);
		assert_int_equal(op.done_ns - op.start_ns, tm->t_read_ns[0] + 500 + 2048);
	}
	assert_memory_equal(rd_buf, page_buf, sizeof(rd_buf));
	assert_int_equal(nand_dev_stats(f.dev)->rel.reads, 200);
	assert_int_equal(nand_dev_stats(f.dev)->rel.reads_retried, 0);
	assert_int_equal(nand_dev_stats(f.dev)->rel.uncorrectable, 0);
	fx_destroy(&f);
}

/* A worn block: reads take retries, each an array read and a transfer more. */
static void test_retries_cost_time(void **state)
{
	const struct nand_timing *tm;
	struct fx f;
	uint64_t t = 1000000, retried = 0;

	(void)state;
	rel_dev(&f, 11);
	tm = &f.cfg.timing;
	f.store->blocks[fx_blk_idx(&f, 1)].erase_count = 6000;
	program0(&f, 1, t);
	for (int i = 0; i < 100; i++) {
		struct nand_op op;

		t += 100000000;
		op = read0(&f, 1, t);
		if (op.uncorrectable) {
			assert_int_equal(op.status, -EIO);
			break;
		}
		assert_int_equal(op.status, 0);
		retried += op.retries > 0;
		assert_int_equal(op.done_ns - op.start_ns,
				 (1 + op.retries) * (tm->t_read_ns[0] + 500 + 2048));
	}
	/* About 104 errors a codeword at 6000 cycles: the first decode fails. */
	assert_true(retried >= 90);
	assert_true(nand_dev_stats(f.dev)->rel.retries >= 2 * retried);
	fx_destroy(&f);
}

/* Past the last retry: -EIO, every later read of the page too, until the erase. */
static void test_uncorrectable_until_erase(void **state)
{
	const struct nand_timing *tm;
	struct nand_op op, er;
	struct fx f;
	uint64_t t = 1000000;

	(void)state;
	rel_dev(&f, 5);
	tm = &f.cfg.timing;
	f.store->blocks[fx_blk_idx(&f, 2)].erase_count = 9000;
	program0(&f, 2, t);
	op = read0(&f, 2, t += 10000000);
	assert_true(op.uncorrectable);
	assert_int_equal(op.status, -EIO);
	assert_int_equal(op.retries, f.cfg.rel.retries);
	assert_int_equal(op.done_ns - op.start_ns,
			 (1 + f.cfg.rel.retries) * (tm->t_read_ns[0] + 500 + 2048));
	/* Once lost, always lost: even on a block made young again. */
	f.store->blocks[fx_blk_idx(&f, 2)].erase_count = 0;
	op = read0(&f, 2, t += 10000000);
	assert_true(op.uncorrectable);
	assert_int_equal(op.status, -EIO);
	assert_int_equal(nand_dev_stats(f.dev)->rel.uncorrectable, 2);
	/* The erase forgets it; the new data reads clean. */
	fx_data_op(&f, &er, NAND_OP_ERASE, 2, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &er, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(er.status, 0);
	f.store->blocks[fx_blk_idx(&f, 2)].erase_count = 0;
	program0(&f, 2, t += 20000000);
	op = read0(&f, 2, t += 10000000);
	assert_int_equal(op.status, 0);
	assert_int_equal(op.retries, 0);
	fx_destroy(&f);
}

/* The most errors seen in a codeword over @n reads of page 0 of @block, one every @gap ns. */
static uint32_t worst_errors(struct fx *f, uint32_t block, int n, uint64_t *t, uint64_t gap)
{
	struct nand_stats *st = (struct nand_stats *)nand_dev_stats(f->dev);

	st->rel.max_errors = 0;
	for (int i = 0; i < n; i++)
		(void)read0(f, block, *t += gap);
	return st->rel.max_errors;
}

/* Read disturb and retention move the errors up through the engine. */
static void test_disturb_and_retention(void **state)
{
	struct fx f;
	uint64_t t = 1000000;
	uint32_t young, disturbed;

	(void)state;
	rel_dev(&f, 3);
	/* Disturb: a worn block, a million reads later, on the same data. */
	f.store->blocks[fx_blk_idx(&f, 0)].erase_count = 3000;
	program0(&f, 0, t);
	young = worst_errors(&f, 0, 50, &t, 1000000);
	f.dev->rel->reads[fx_blk_idx(&f, 0)] = 1000000; /* as if read that often */
	disturbed = worst_errors(&f, 0, 50, &t, 1000000);
	assert_true(disturbed > young + 10);
	fx_destroy(&f);

	/* Retention: ageing a year a second, the same block read two seconds later. */
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	nand_timing_default(&f.cfg.timing, NAND_TLC);
	f.cfg.rel = rel_on();
	f.cfg.rel.aging = 365.0 * 86400.0;
	fx_create(&f, true);
	f.store->blocks[fx_blk_idx(&f, 0)].erase_count = 3000;
	t = 1000000;
	program0(&f, 0, t);
	young = worst_errors(&f, 0, 20, &t, 10000); /* within 0.2 ms: hours */
	t += 2000000000ull; /* two years on */
	{
		uint32_t old = worst_errors(&f, 0, 20, &t, 10000);

		assert_true(old > young + 10);
	}
	fx_destroy(&f);

	/* The same through nand_reliability_age(): real-time ageing, two years on at once. */
	rel_dev(&f, 3);
	f.store->blocks[fx_blk_idx(&f, 0)].erase_count = 3000;
	t = 1000000;
	program0(&f, 0, t);
	young = worst_errors(&f, 0, 20, &t, 10000);
	nand_reliability_age(f.dev, 2 * 365 * 86400ull * 1000000000ull);
	assert_true(worst_errors(&f, 0, 20, &t, 10000) > young + 10);
	fx_destroy(&f);
}

/* The same seed and the same ops: the same errors; another seed: others. */
static void test_seeded(void **state)
{
	uint32_t seq[3][40];

	(void)state;
	for (int run = 0; run < 3; run++) {
		struct fx f;
		uint64_t t = 1000000;

		rel_dev(&f, run == 2 ? 99 : 42);
		f.store->blocks[fx_blk_idx(&f, 1)].erase_count = 5500;
		program0(&f, 1, t);
		for (int i = 0; i < 40; i++)
			seq[run][i] = read0(&f, 1, t += 10000000).retries;
		fx_destroy(&f);
	}
	assert_memory_equal(seq[0], seq[1], sizeof(seq[0]));
	assert_memory_not_equal(seq[0], seq[2], sizeof(seq[0]));
}

/* Off (the default): a block far past its cycles reads clean and in plain time. */
static void test_off_never_fails(void **state)
{
	struct fx f;
	struct nand_op op;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	assert_false(f.cfg.rel.enabled);
	fx_create(&f, true);
	f.store->blocks[fx_blk_idx(&f, 0)].erase_count = 100000;
	program0(&f, 0, 1000000);
	op = read0(&f, 0, 20000000);
	assert_int_equal(op.status, 0);
	assert_int_equal(op.retries, 0);
	assert_null(f.dev->rel);
	assert_int_equal(nand_dev_stats(f.dev)->rel.reads, 0);
	fx_destroy(&f);
}

/*
 * An erase that fails leaves the block bad: later programs and erases of
 * it fail at submit; what it holds stays readable.
 */
static void test_erase_failure(void **state)
{
	struct nand_op op;
	struct fx f;
	uint64_t t = 1000000;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	f.cfg.rel = rel_on();
	f.cfg.rel.erase_fail = 1.0;
	fx_create(&f, true);
	program0(&f, 3, t);
	fx_data_op(&f, &op, NAND_OP_ERASE, 3, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -EIO);
	assert_true(f.store->blocks[fx_blk_idx(&f, 3)].flags & NAND_BLOCK_BAD);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 3)].write_ptr, 1); /* not erased */
	assert_int_equal(nand_dev_stats(f.dev)->rel.erase_failures, 1);
	fx_data_op(&f, &op, NAND_OP_READ, 3, 0, rd_buf, NULL);
	assert_int_equal(fx_submit(&f, &op, t), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_memory_equal(rd_buf, page_buf, f.cfg.geo.page_size);
	fx_data_op(&f, &op, NAND_OP_ERASE, 3, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, t), -EIO);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 3, 1, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &op, t), -EIO);
	/* Other blocks are not touched by it. */
	program0(&f, 1, t);
	fx_destroy(&f);

	/* No chance: erases of a worn block succeed. */
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	f.cfg.rel = rel_on();
	f.cfg.rel.erase_fail = 0;
	fx_create(&f, true);
	f.store->blocks[fx_blk_idx(&f, 3)].erase_count = 9000;
	program0(&f, 3, t);
	fx_data_op(&f, &op, NAND_OP_ERASE, 3, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_false(f.store->blocks[fx_blk_idx(&f, 3)].flags & NAND_BLOCK_BAD);
	fx_destroy(&f);
}

/*
 * Faults on demand (nand_dev_set_faults(), the model off): an erase-fail
 * fault with a count of 1 on a die fails the next erase there (the block
 * bad, counted as the model's are) and no other; a program-fail one the
 * next program; a die-fail one the next read of data (the page intact);
 * a fault for another device's name touches nothing.
 */
static void test_fault_hook(void **state)
{
	struct blox_fault_spec s = { .kind = BLOX_FAULT_ERASE_FAIL, .count = 1, .probability = 1 };
	struct blox_fault_reg *reg;
	struct nand_op op;
	struct fx f;
	uint64_t t = 1000000;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	assert_int_equal(blox_fault_reg_create(&reg), 0);
	nand_dev_set_faults(f.dev, reg, "d0");
	fx_data_op(&f, &op, NAND_OP_ERASE, 1, 0, NULL, NULL);
	s.die = nand_die_index(&f.cfg.geo, &op.addr);
	snprintf(s.device, sizeof(s.device), "d1"); /* another device's */
	assert_int_equal(blox_fault_add(reg, &s, 0, NULL, NULL, 0), 0);
	program0(&f, 1, t += 10000000);
	fx_data_op(&f, &op, NAND_OP_ERASE, 1, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	snprintf(s.device, sizeof(s.device), "d0");
	assert_int_equal(blox_fault_add(reg, &s, 0, NULL, NULL, 0), 0);
	program0(&f, 2, t += 10000000);
	fx_data_op(&f, &op, NAND_OP_ERASE, 2, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -EIO);
	assert_true(f.store->blocks[fx_blk_idx(&f, 2)].flags & NAND_BLOCK_BAD);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 2)].write_ptr, 1); /* not erased */
	assert_int_equal(nand_dev_stats(f.dev)->rel.erase_failures, 1);
	/* Spent: the next erase on the die succeeds. */
	program0(&f, 3, t += 10000000);
	fx_data_op(&f, &op, NAND_OP_ERASE, 3, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	/* The next program fails, then programs go on. */
	s.kind = BLOX_FAULT_PROGRAM_FAIL;
	assert_int_equal(blox_fault_add(reg, &s, 0, NULL, NULL, 0), 0);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 0, 0, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -EIO);
	assert_true(f.store->blocks[fx_blk_idx(&f, 0)].flags & NAND_BLOCK_BAD);
	assert_int_equal(nand_dev_stats(f.dev)->rel.program_failures, 1);
	program0(&f, 1, t += 10000000);
	/* A failed die: the next read of data fails, nothing handed over; then it reads. */
	s.kind = BLOX_FAULT_DIE_FAIL;
	assert_int_equal(blox_fault_add(reg, &s, 0, NULL, NULL, 0), 0);
	memset(rd_buf, 0xa5, f.cfg.geo.page_size);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, rd_buf, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -EIO);
	assert_int_equal(rd_buf[0], 0xa5);
	assert_int_equal(nand_dev_stats(f.dev)->rel.uncorrectable, 1);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, rd_buf, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_memory_equal(rd_buf, page_buf, f.cfg.geo.page_size);
	fx_destroy(&f);
	blox_fault_reg_destroy(reg);
}

/*
 * A die taken offline (a die-offline fault, or nand_die_set_offline()):
 * every op that starts on it fails with -ENODEV and touches nothing (a read
 * hands nothing over, its OOB neither; a program leaves the page erased; an
 * erase leaves the block as it was, not bad); another device's fault and
 * the device's other dies are not touched; the die stays offline once the
 * fault fired (the store's flags, the stores refusing its pages), also for
 * a device made over the store again, which lists it as a fault; cleared,
 * the die comes back replaced: empty.
 */
static void test_die_offline(void **state)
{
	struct blox_fault_spec s = { .kind = BLOX_FAULT_DIE_OFFLINE, .probability = 1 };
	struct blox_fault_reg *reg;
	struct nand_op op;
	struct fx f;
	uint64_t t = 1000000;
	struct blox_fault fl;
	uint32_t id;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	assert_int_equal(blox_fault_reg_create(&reg), 0);
	nand_dev_set_faults(f.dev, reg, "d0");
	program0(&f, 1, t);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, rd_buf, NULL);
	s.die = nand_die_index(&f.cfg.geo, &op.addr);
	snprintf(s.device, sizeof(s.device), "d1"); /* another device's */
	assert_int_equal(blox_fault_add(reg, &s, 0, NULL, NULL, 0), 0);
	program0(&f, 2, t += 10000000);
	snprintf(s.device, sizeof(s.device), "d0");
	assert_int_equal(blox_fault_add(reg, &s, 0, &id, NULL, 0), 0);

	memset(rd_buf, 0xa5, f.cfg.geo.page_size);
	memset(oob_rd, 0xa5, f.cfg.geo.oob_size);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, rd_buf, oob_rd);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -ENODEV);
	assert_int_equal(rd_buf[0], 0xa5);
	assert_int_equal(oob_rd[0], 0xa5);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, NULL, oob_rd); /* the OOB alone */
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -ENODEV);
	assert_int_equal(oob_rd[0], 0xa5);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 1, 1, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -ENODEV);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 1)].write_ptr, 1);
	fx_data_op(&f, &op, NAND_OP_ERASE, 1, 0, NULL, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -ENODEV);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 1)].write_ptr, 1);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 1)].erase_count, 0);
	assert_false(f.store->blocks[fx_blk_idx(&f, 1)].flags & NAND_BLOCK_BAD);
	assert_int_equal(nand_dev_stats(f.dev)->rel.offline_ops, 4);
	assert_true(blox_fault_get(reg, id, &fl));
	assert_int_equal(fl.fired, 1); /* the die went at the first: offline since, kept by the store */
	assert_int_equal(nand_dev_stats(f.dev)->rel.dies_offline, 1);
	assert_true(f.store->blocks[fx_blk_idx(&f, 1)].flags & NAND_BLOCK_OFFLINE);
	{
		struct nand_addr a;
		uint64_t pg;

		fx_data_op(&f, &op, NAND_OP_READ, 1, 0, NULL, NULL);
		a = op.addr;
		pg = nand_page_index(&f.cfg.geo, &a);
		assert_int_equal(f.store->ops->read(f.store, pg, rd_buf, oob_rd), -ENODEV);
	}
	/* A device made over the store again (a restart) has the die offline, listed as a fault. */
	{
		struct blox_fault all[2];
		struct nand_dev *d2;

		assert_int_equal(nand_dev_create(&f.cfg, f.store, &d2), 0);
		assert_true(nand_die_offline(d2, s.die));
		assert_int_equal(blox_fault_remove(reg, id), 0);
		nand_dev_set_faults(d2, reg, "d0");
		assert_true(nand_die_offline(d2, s.die)); /* listed again: still offline */
		assert_int_equal(blox_fault_count(reg), 2); /* d1's and the one listed again */
		assert_int_equal(blox_fault_list(reg, all, 2), 2);
		assert_string_equal(all[1].spec.device, "d0");
		assert_int_equal(all[1].spec.die, s.die);
		id = all[1].id;
		nand_dev_destroy(d2);
	}

	/* Another die of the device reads, programs and erases. */
	fx_op_init(&f, &op, NAND_OP_READ, NAND_PRIO_HOST_READ, 0, 1, 1, 0);
	op.timing_only = false;
	op.data = rd_buf;
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_true(op.erased);

	/* Cleared, the die comes back replaced: empty, no wear, no flags. */
	assert_int_equal(blox_fault_remove(reg, id), 0);
	assert_false(nand_die_offline(f.dev, s.die));
	assert_int_equal(nand_dev_stats(f.dev)->rel.dies_replaced, 1);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 1)].write_ptr, 0);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 1)].flags, 0);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 1)].erase_count, 0);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, rd_buf, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_true(op.erased);

	/* nand_die_set_offline() does the same without a registry. */
	assert_int_equal(nand_die_set_offline(f.dev, s.die, true), 0);
	assert_int_equal(nand_die_set_offline(f.dev, 99, true), -ERANGE);
	fx_data_op(&f, &op, NAND_OP_READ, 1, 0, rd_buf, NULL);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -ENODEV);
	assert_int_equal(nand_die_set_offline(f.dev, s.die, false), 0);
	fx_destroy(&f);
	blox_fault_reg_destroy(reg);
}

/*
 * Program failures: forced on a die (nand_fail_programs(), the model off)
 * and drawn by the model. The page is not programmed, the block is bad,
 * the programs queued behind on it fail too, other dies and blocks are
 * not touched, the pages before stay readable.
 */
static void test_program_failure(void **state)
{
	struct nand_op op, op2, other;
	struct fx f;
	uint64_t t = 1000000;
	uint64_t blk;
	uint32_t die;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	blk = fx_blk_idx(&f, 3);
	program0(&f, 3, t);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 3, 1, page_buf, oob_buf);
	die = nand_die_index(&f.cfg.geo, &op.addr);
	assert_int_equal(nand_fail_programs(f.dev, nand_dies(&f.cfg.geo), 1), -ERANGE);
	assert_int_equal(nand_fail_programs(f.dev, die, 1), 0);
	assert_int_equal(nand_programs_to_fail(f.dev, die), 1);
	fx_data_op(&f, &op2, NAND_OP_PROGRAM, 3, 2, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &op, t += 10000000), 0);
	assert_int_equal(fx_submit(&f, &op2, t), 0); /* queued behind it */
	fx_run_all(&f);
	assert_int_equal(op.status, -EIO);
	assert_int_equal(op2.status, -EIO);
	assert_int_equal(nand_programs_to_fail(f.dev, die), 0);
	assert_true(f.store->blocks[blk].flags & NAND_BLOCK_BAD);
	assert_int_equal(f.store->blocks[blk].write_ptr, 1); /* nothing programmed */
	assert_int_equal(nand_dev_stats(f.dev)->rel.program_failures, 1);
	fx_data_op(&f, &op, NAND_OP_READ, 3, 0, rd_buf, NULL);
	assert_int_equal(fx_submit(&f, &op, t), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, 0);
	assert_memory_equal(rd_buf, page_buf, f.cfg.geo.page_size);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 3, 1, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &op, t), -EIO);
	/* The count was used up: the next program on the die succeeds. */
	fx_data_op(&f, &other, NAND_OP_PROGRAM, 1, 0, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &other, t), 0);
	fx_run_all(&f);
	assert_int_equal(other.status, 0);
	fx_destroy(&f);

	/* Drawn by the model, its chance 1: the first program fails; 0: none does. */
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	f.cfg.rel = rel_on();
	f.cfg.rel.program_fail = 1.0;
	fx_create(&f, true);
	fx_data_op(&f, &op, NAND_OP_PROGRAM, 3, 0, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &op, t), 0);
	fx_run_all(&f);
	assert_int_equal(op.status, -EIO);
	assert_true(f.store->blocks[fx_blk_idx(&f, 3)].flags & NAND_BLOCK_BAD);
	assert_int_equal(nand_dev_stats(f.dev)->rel.program_failures, 1);
	fx_destroy(&f);
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	f.cfg.rel = rel_on();
	f.cfg.rel.program_fail = 0;
	fx_create(&f, true);
	f.store->blocks[fx_blk_idx(&f, 3)].erase_count = 9000;
	for (uint32_t p = 0; p < 4; p++) {
		fx_data_op(&f, &op, NAND_OP_PROGRAM, 3, p, page_buf, oob_buf);
		assert_int_equal(fx_submit(&f, &op, t), 0);
		fx_run_all(&f);
		assert_int_equal(op.status, 0);
	}
	fx_destroy(&f);
	/* Out of range: refused. */
	{
		struct nand_reliability r = rel_on();
		struct nand_geometry g;

		fx_small_geo(&g);
		r.program_fail = 1.5;
		assert_int_equal(nand_reliability_check(&r, &g), -EINVAL);
	}
}

/*
 * A power cut: the ops in flight are dropped without completing; the
 * program in its array phase is torn (programmed, half its data, its OOB
 * erased), the one queued behind it leaves nothing, and the device takes
 * new ops after.
 */
static void test_power_cut(void **state)
{
	struct nand_op a, b, c, rd;
	struct nand_power_cut_stats st;
	struct fx f;
	uint64_t t = 1000000;
	uint32_t die;

	(void)state;
	fx_init(&f);
	fx_small_geo(&f.cfg.geo);
	fx_create(&f, true);
	for (size_t i = 0; i < sizeof(page_buf); i++)
		page_buf[i] = (uint8_t)(i * 7 + 1);
	memset(oob_buf, 0x5a, sizeof(oob_buf));
	program0(&f, 3, t);
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 3, 1, page_buf, oob_buf);
	fx_data_op(&f, &b, NAND_OP_PROGRAM, 1, 0, page_buf, oob_buf);
	fx_data_op(&f, &c, NAND_OP_ERASE, 2, 0, NULL, NULL);
	die = nand_die_index(&f.cfg.geo, &a.addr);
	assert_int_equal(fx_submit(&f, &a, t += 10000000), 0);
	assert_int_equal(fx_submit(&f, &b, t), 0);
	assert_int_equal(fx_submit(&f, &c, t), 0);
	while (!(f.dev->dies[die].cur == &a && f.dev->dies[die].phase == DIE_ARRAY))
		nand_advance(f.dev, nand_next_event(f.dev));
	assert_int_equal(nand_power_cut(f.dev, true, &st), 0);
	assert_int_equal(st.dropped, 3);
	assert_int_equal(st.torn, 1);
	assert_int_equal(nand_inflight(f.dev), 0);
	assert_int_equal(nand_next_event(f.dev), UINT64_MAX);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 3)].write_ptr, 2); /* torn: programmed */
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 1)].write_ptr, 0); /* never started */
	/* The torn page: half its data, the rest and the OOB erased. */
	fx_data_op(&f, &rd, NAND_OP_READ, 3, 1, rd_buf, oob_rd);
	assert_int_equal(fx_submit(&f, &rd, t), 0);
	fx_run_all(&f);
	assert_int_equal(rd.status, 0);
	assert_memory_equal(rd_buf, page_buf, sizeof(rd_buf) / 2);
	for (size_t i = sizeof(rd_buf) / 2; i < sizeof(rd_buf); i++)
		assert_int_equal(rd_buf[i], 0xff);
	for (size_t i = 0; i < sizeof(oob_rd); i++)
		assert_int_equal(oob_rd[i], 0xff);
	/* The device goes on: the program that never started, now. */
	fx_data_op(&f, &b, NAND_OP_PROGRAM, 1, 0, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &b, t), 0);
	fx_run_all(&f);
	assert_int_equal(b.status, 0);
	/* Untorn: nothing is written for a program cut. */
	fx_data_op(&f, &a, NAND_OP_PROGRAM, 1, 1, page_buf, oob_buf);
	assert_int_equal(fx_submit(&f, &a, t), 0);
	while (!(f.dev->dies[die].cur == &a && f.dev->dies[die].phase == DIE_ARRAY))
		nand_advance(f.dev, nand_next_event(f.dev));
	assert_int_equal(nand_power_cut(f.dev, false, &st), 0);
	assert_int_equal(st.torn, 0);
	assert_int_equal(f.store->blocks[fx_blk_idx(&f, 1)].write_ptr, 1);
	fx_destroy(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rber_shape),
		cmocka_unit_test(test_retries_needed),
		cmocka_unit_test(test_bad_settings),
		cmocka_unit_test_teardown(test_fresh_reads, fx_teardown),
		cmocka_unit_test_teardown(test_retries_cost_time, fx_teardown),
		cmocka_unit_test_teardown(test_uncorrectable_until_erase, fx_teardown),
		cmocka_unit_test_teardown(test_disturb_and_retention, fx_teardown),
		cmocka_unit_test_teardown(test_seeded, fx_teardown),
		cmocka_unit_test_teardown(test_off_never_fails, fx_teardown),
		cmocka_unit_test_teardown(test_erase_failure, fx_teardown),
		cmocka_unit_test_teardown(test_fault_hook, fx_teardown),
		cmocka_unit_test_teardown(test_die_offline, fx_teardown),
		cmocka_unit_test_teardown(test_program_failure, fx_teardown),
		cmocka_unit_test_teardown(test_power_cut, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
