/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Power-loss protection as the FTL drives it (ftl/power.c): at a power cut
 * ftl_power_fail() programs the write buffer while the hold-up lasts. With
 * plp_suspend the device suspends an erase running on the die the buffer's
 * page goes to (nand_set_plp_flush()), so the page is on flash within a
 * hold-up shorter than the erase; without it the page waits for the erase,
 * the hold-up ends first and the acknowledged data is lost. Either way the
 * rebuilt FTL reads what the flash holds: the data, or zeroes. Repeated
 * cuts with torn programs leave the rebuilt FTL its free superblocks.
 */
#include "ftl_fixture.h"

static void noop_cb(struct nand_op *op)
{
	(void)op;
}

/* Three units acknowledged in the buffer, an erase on every die, a cut with a 5 ms hold-up. */
static void plp_cut(bool suspend)
{
	struct ftl_config c;
	struct fx_geo g;
	struct fx *x;
	struct nand_op er[4];
	struct nand_power_cut_stats cut;
	uint64_t t0;

	fx_cfg_default(&c);
	c.plp_suspend = suspend;
	fx_geo_small(&g);
	x = fx_new(&g, &c, false);
	fx_write(x, 0, 3);
	assert_int_equal(ftl_volatile_units(x->f), 3);

	/* A 10 ms erase starts on every die (timing only: no block is touched). */
	t0 = blox_clock_now(&x->vd.clock);
	for (uint32_t d = 0; d < 4; d++) {
		memset(&er[d], 0, sizeof(er[d]));
		er[d].kind = NAND_OP_ERASE;
		er[d].prio = NAND_PRIO_ERASE;
		er[d].addr.ch = d;
		er[d].addr.block = g.blocks - 1;
		er[d].timing_only = true;
		er[d].cb = noop_cb;
		assert_int_equal(nand_submit(x->dev, &er[d], t0), 0);
	}
	ftl_vdrive_run(&x->vd, x->f, t0 + 100000);
	assert_int_equal(nand_inflight(x->dev), 4);

	/* Power goes; the hold-up lasts 5 ms. */
	ftl_power_fail(x->f);
	ftl_vdrive_run(&x->vd, x->f, t0 + 5000000);
	assert_int_equal(ftl_volatile_units(x->f), suspend ? 0 : 3);
	assert_int_equal(nand_dev_stats(x->dev)->suspend.plp_suspends, suspend ? 1 : 0);
	assert_int_equal(nand_dev_stats(x->dev)->suspend.plp_programs, suspend ? 1 : 0);
	assert_int_equal(nand_dev_stats(x->dev)->suspend.suspends[NAND_OP_ERASE], suspend ? 1 : 0);

	/* Power off: the erases (and without suspension the page) are cut; rebuilt from flash. */
	assert_int_equal(nand_power_cut(x->dev, true, &cut), 0);
	assert_int_equal(cut.torn, 0);
	ftl_destroy(x->f);
	x->f = NULL;
	fx_restart(x);
	if (!suspend)
		memset(x->shadow, 0, 3 * sizeof(*x->shadow)); /* lost: never on flash */
	fx_verify(x, 0, 8);

	/* The device takes writes again, and nothing suspends its erases now. */
	fx_write(x, 0, 3);
	fx_flush(x);
	fx_verify(x, 0, 8);
	assert_int_equal(nand_dev_stats(x->dev)->suspend.plp_suspends, suspend ? 1 : 0);
	fx_free(x);
}

static void test_plp_suspends_erase(void **state)
{
	(void)state;
	plp_cut(true);
}

static void test_plp_no_suspend(void **state)
{
	(void)state;
	plp_cut(false);
}

/* ---- repeated cuts with a short hold-up under a saturating load ---- */

#define CUT_QD 32
#define CUT_CYCLES 40

struct cut_slot {
	_Alignas(8) uint8_t buf[FTL_UNIT];
	struct fx_req r;
	bool busy;
};

/* Retire the completed writes of @q; the LBAs they held are free again. */
static void cut_reap(struct cut_slot *q, uint8_t *busy)
{
	for (int i = 0; i < CUT_QD; i++) {
		if (!q[i].busy || !q[i].r.done)
			continue;
		assert_int_equal(q[i].r.io.status, 0);
		busy[q[i].r.io.lba] = 0;
		q[i].busy = false;
	}
}

/*
 * A closed loop of 4 KiB random writes at QD 32 until virtual time @until,
 * each version logged as written; failing if the FTL stops with writes
 * waiting and nothing on the flash.
 */
static void cut_load(struct fx *x, struct fx_crash_log *l, struct cut_slot *q, uint8_t *busy,
		     uint64_t until, uint32_t low)
{
	uint64_t limit = until + 200000000ull;

	while (x->vd.clock.virt_ns < until ||
	       (fx_activity(x).free_sbs > low && x->vd.clock.virt_ns < limit)) {
		cut_reap(q, busy);
		for (int i = 0; i < CUT_QD; i++) {
			uint32_t lba = fx_below(x, x->cap);

			if (q[i].busy || busy[lba])
				continue;
			busy[lba] = 1;
			x->shadow[lba] = (uint32_t)++x->ver;
			fx_fill(q[i].buf, lba, x->shadow[lba]);
			memset(&q[i].r, 0, sizeof(q[i].r));
			assert_int_equal(fx_submit(x, &q[i].r, FTL_IO_WRITE, lba, 1, q[i].buf, false),
					 0);
			fx_log_add(l, lba, 1);
			q[i].busy = true;
		}
		if (!fx_step(x)) {
			fx_dump(x);
			fail_msg("writes wait with nothing in flight (free superblocks %u)",
				 fx_activity(x).free_sbs);
		}
	}
}

/*
 * Power cuts at random moments of a saturating write load, at 7%
 * over-provisioning, with a hold-up (0.5 ms) far shorter than the flash's
 * work: the programs of host, GC and translation pages running at the
 * cut are torn. Two cuts of three wait (200 ms at most) until free
 * superblocks are down to one, GC and the translation pages writing from
 * the host streams' reserve. The rebuild goes on writing after a torn
 * page as after any other, so a cut does not cost the streams their
 * superblocks; before, it kept each one with a torn page closed, the free
 * superblocks ran out within a few cuts and the writes after the rebuild
 * waited for ever.
 * Every LBA reads back as flushed or as written since, and at the end
 * every write completes and reads back.
 */
static void test_cuts_keep_gc_reserve(void **state)
{
	struct ftl_config c;
	struct fx_crash_log l;
	struct cut_slot *q;
	struct fx_geo g;
	struct fx *x;
	uint8_t *busy;
	uint32_t torn = 0, min_free = UINT32_MAX;

	(void)state;
	fx_cfg_default(&c);
	c.op_permille = 70;
	c.cmt_bytes = 3 * FTL_UNIT; /* translation pages written all the time */
	c.plp_ms = 1;
	c.volatile_cache = true;
	fx_geo_small(&g);
	x = fx_new(&g, &c, false);
	q = fx_tmp_alloc(CUT_QD * sizeof(*q));
	busy = fx_tmp_alloc(x->cap);
	memset(q, 0, CUT_QD * sizeof(*q));
	memset(busy, 0, x->cap);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, x->cap);
	fx_flush(x);
	fx_log_flushed(&l);
	for (int cycle = 0; cycle < CUT_CYCLES; cycle++) {
		struct nand_power_cut_stats cut;
		uint64_t t0 = x->vd.clock.virt_ns;

		/* Half the cycles flush on the way: that much must survive the cut. */
		if (cycle % 2) {
			cut_load(x, &l, q, busy, t0 + 5000000ull + fx_below(x, 20000) * 1000ull,
				 UINT32_MAX);
			for (int i = 0; i < CUT_QD; i++)
				if (q[i].busy)
					fx_wait(x, &q[i].r);
			cut_reap(q, busy);
			fx_flush(x);
			fx_log_flushed(&l);
			t0 = x->vd.clock.virt_ns;
		}
		cut_load(x, &l, q, busy, t0 + 2000000ull + fx_below(x, 60000) * 1000ull,
			 cycle % 3 ? 1 : UINT32_MAX);

		/* Power goes: the buffer's programs for 0.5 ms, then everything stops. */
		t0 = x->vd.clock.virt_ns;
		ftl_power_fail(x->f);
		ftl_vdrive_run(&x->vd, x->f, t0 + 500000);
		assert_int_equal(nand_power_cut(x->dev, true, &cut), 0);
		torn += cut.torn;
		ftl_destroy(x->f);
		x->f = NULL;
		for (int i = 0; i < CUT_QD; i++)
			q[i].busy = false;
		memset(busy, 0, x->cap);
		fx_restart(x);
		fx_log_check(&l);
		fx_check_invariants(x, false);
		if (fx_activity(x).free_sbs < min_free)
			min_free = fx_activity(x).free_sbs;
	}
	/* The cuts did tear programs (else this proves nothing). */
	if (torn < CUT_CYCLES / 2)
		fail_msg("only %u pages torn in %d cuts", torn, CUT_CYCLES);
	/* The device goes on: the whole capacity written again, all of it read back. */
	fx_random_writes(x, x->cap, 8, 2ull * x->cap);
	fx_flush(x);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	print_message("%d cuts, %u pages torn, fewest free superblocks after a rebuild %u\n",
		      CUT_CYCLES, torn, min_free);
	fx_tmp_free(busy);
	fx_tmp_free(q);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_plp_suspends_erase),
		FX_TEST(test_plp_no_suspend),
		FX_TEST(test_cuts_keep_gc_reserve),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
