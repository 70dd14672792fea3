/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Power-loss protection as the FTL drives it (ftl/power.c): at a power cut
 * ftl_power_fail() programs the write buffer while the hold-up lasts. With
 * plp_suspend the device suspends an erase running on the die the buffer's
 * page goes to (nand_set_plp_flush()), so the page is on flash within a
 * hold-up shorter than the erase; without it the page waits for the erase,
 * the hold-up ends first and the acknowledged data is lost. Either way the
 * rebuilt FTL reads what the flash holds: the data, or zeroes.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_plp_suspends_erase),
		FX_TEST(test_plp_no_suspend),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
