/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FlashBlox resource manager: isolation parsing, allocation by
 * channel / chip / software and its refusals, taking back saved
 * allocations, release, wear arithmetic and the choice of swaps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "flashblox.h"

struct rmfx {
	struct nand_geometry g;
	struct ftl_config fc;
	struct fbx_params p;
	struct fbx_rm *rm;
};

static int setup(void **state)
{
	struct rmfx *x = calloc(1, sizeof(*x));

	nand_geometry_default(&x->g); /* 8 ch x 4 dies x 2 planes x 64 blocks */
	ftl_config_default(&x->fc);
	fbx_params_default(&x->p, x->g.cell);
	/* The mechanics on every channel; test_spare_channel has the spare. */
	x->p.spare_channel = false;
	assert_int_equal(fbx_rm_create(&x->g, &x->p, &x->rm), 0);
	*state = x;
	return 0;
}

static int setup_spare(void **state)
{
	struct rmfx *x;

	setup(state);
	x = *state;
	fbx_rm_destroy(x->rm);
	fbx_params_default(&x->p, x->g.cell); /* the spare is the default */
	assert_true(x->p.spare_channel);
	assert_int_equal(fbx_rm_create(&x->g, &x->p, &x->rm), 0);
	return 0;
}

static int teardown(void **state)
{
	struct rmfx *x = *state;

	fbx_rm_destroy(x->rm);
	free(x);
	return 0;
}

static int plan_take(struct rmfx *x, uint32_t owner, enum fbx_isolation iso, uint32_t count,
		     uint64_t units, struct fbx_alloc *a, char *why, size_t wl)
{
	struct fbx_ask ask = { .iso = iso, .count = count, .units = units };
	int rc = fbx_plan(x->rm, &ask, &x->fc, a, why, wl);

	if (rc)
		return rc;
	return fbx_take(x->rm, owner, a, why, wl);
}

static void test_parse(void **state)
{
	enum fbx_isolation iso;
	uint32_t n;
	static const char *const bad[] = { "", "channel:", "channel:0", "chip:x", "chip:2x", "soft",
					   "software:1", "channels:2", "chip:-1", "chip:01",
					   "channel:99999" };

	(void)state;
	assert_int_equal(fbx_isolation_parse("channel:2", &iso, &n), 0);
	assert_int_equal(iso, FBX_CHANNEL);
	assert_int_equal(n, 2);
	assert_int_equal(fbx_isolation_parse("chip:3", &iso, &n), 0);
	assert_int_equal(iso, FBX_CHIP);
	assert_int_equal(n, 3);
	assert_int_equal(fbx_isolation_parse("chip", &iso, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(fbx_isolation_parse("software", &iso, &n), 0);
	assert_int_equal(iso, FBX_SOFTWARE);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fbx_isolation_parse(bad[i], &iso, &n), -EINVAL);
	assert_string_equal(fbx_isolation_name(FBX_CHIP), "chip");
}

static void test_channels(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a, b;
	char why[200];

	assert_int_equal(plan_take(x, 1, FBX_CHANNEL, 2, 0, &a, why, sizeof(why)), 0);
	assert_int_equal(a.res.nr_dies, 8);
	assert_int_equal(a.res.first_block, 0);
	assert_int_equal(a.res.nr_blocks, x->g.blocks_per_plane);
	assert_int_equal(a.units, ftl_capacity_for(&x->fc, &x->g, 8, x->g.blocks_per_plane));
	/* Nothing worn: the lowest channels, whole. */
	for (uint32_t i = 0; i < 8; i++) {
		assert_int_equal(a.res.dies[i], i);
		assert_int_equal(fbx_die_owner(x->rm, i), 1);
	}
	assert_int_equal(fbx_free_channels(x->rm), 6);
	assert_int_equal(fbx_free_dies(x->rm), 24);
	assert_int_equal(plan_take(x, 2, FBX_CHANNEL, 7, 0, &b, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "need 7 free channels, 6 left");
	assert_int_equal(plan_take(x, 2, FBX_CHANNEL, 9, 0, &b, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "need 9 channels, the device has 8");
	/* The same again, as from a saved state: taken. */
	assert_int_equal(fbx_take(x->rm, 2, &a, why, sizeof(why)), -EBUSY);
	assert_int_equal(fbx_take(x->rm, 1, &a, why, sizeof(why)), -EEXIST);
	fbx_release(x->rm, 1);
	assert_int_equal(fbx_free_channels(x->rm), 8);
	assert_false(fbx_owner_alloc(x->rm, 1, NULL));
	/* Restored as saved: the same dies come back to it. */
	assert_int_equal(fbx_take(x->rm, 1, &a, why, sizeof(why)), 0);
	assert_true(fbx_owner_alloc(x->rm, 1, &b));
	assert_memory_equal(b.res.dies, a.res.dies, 8 * sizeof(uint32_t));
}

static void test_channel_by_capacity(void **state)
{
	struct rmfx *x = *state;
	uint64_t one = ftl_capacity_for(&x->fc, &x->g, 4, x->g.blocks_per_plane);
	struct fbx_alloc a;
	char why[200];

	assert_true(one > 0);
	/* Just past one channel: two. */
	assert_int_equal(plan_take(x, 1, FBX_CHANNEL, 0, one + 1, &a, why, sizeof(why)), 0);
	assert_int_equal(a.res.nr_dies, 8);
	/* Exactly one channel's worth: one. */
	assert_int_equal(plan_take(x, 2, FBX_CHANNEL, 0, one, &a, why, sizeof(why)), 0);
	assert_int_equal(a.res.nr_dies, 4);
	/* A count too small for the size asked is a bad ask, not a full device. */
	assert_int_equal(plan_take(x, 3, FBX_CHANNEL, 1, one * 3, &a, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "less than the"));
	/* More than the whole device could hold. */
	assert_int_equal(plan_take(x, 3, FBX_CHANNEL, 0, one * 9, &a, why, sizeof(why)), -EINVAL);
}

static void test_chips_pack(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a, b, c;
	char why[200];

	assert_int_equal(plan_take(x, 1, FBX_CHANNEL, 1, 0, &a, why, sizeof(why)), 0); /* ch 0 */
	assert_int_equal(plan_take(x, 2, FBX_CHIP, 3, 0, &b, why, sizeof(why)), 0);
	/* A whole free channel is opened (none is split yet): channel 1's dies. */
	assert_int_equal(b.res.nr_dies, 3);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(b.res.dies[i] / x->g.dies_per_channel, 1);
	/* The next chip vSSD takes the split channel's last die before a new channel. */
	assert_int_equal(plan_take(x, 3, FBX_CHIP, 2, 0, &c, why, sizeof(why)), 0);
	assert_int_equal(c.res.dies[0], 7);
	assert_int_equal(c.res.dies[1] / x->g.dies_per_channel, 2);
	/* So six whole channels less one: 5 left for channel asks. */
	assert_int_equal(fbx_free_channels(x->rm), 5);
	assert_int_equal(plan_take(x, 4, FBX_CHIP, 30, 0, &c, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "need 30 free dies, 23 left");
	/* A chip vSSD on every die of the grid but one channel is refused a channel ask. */
	assert_int_equal(plan_take(x, 5, FBX_CHANNEL, 6, 0, &c, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "need 6 free channels, 5 left");
}

static void test_software_pool(void **state)
{
	struct rmfx *x = *state;
	uint64_t pool_cap = ftl_capacity_for(&x->fc, &x->g, 4, x->g.blocks_per_plane);
	struct fbx_alloc a, b, c;
	char why[200];

	assert_int_equal(plan_take(x, 1, FBX_SOFTWARE, 0, 0, &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(fbx_pool_dies(x->rm), 0);
	/* The first forms the pool: one channel (pool_channels 1). */
	assert_int_equal(plan_take(x, 1, FBX_SOFTWARE, 0, pool_cap / 4, &a, why, sizeof(why)), 0);
	assert_int_equal(fbx_pool_dies(x->rm), 4);
	assert_int_equal(a.res.nr_dies, 4);
	assert_int_equal(a.res.first_block, 0);
	assert_true(a.res.nr_blocks < x->g.blocks_per_plane / 2);
	assert_true(a.units >= pool_cap / 4);
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(fbx_die_owner(x->rm, a.res.dies[i]), FBX_POOL);
	/* The second shares the dies, on the next blocks. */
	assert_int_equal(plan_take(x, 2, FBX_SOFTWARE, 0, pool_cap / 4, &b, why, sizeof(why)), 0);
	assert_memory_equal(b.res.dies, a.res.dies, 4 * sizeof(uint32_t));
	assert_int_equal(b.res.first_block, a.res.nr_blocks);
	/* One that does not fit in what is left of the pool. */
	assert_int_equal(plan_take(x, 3, FBX_SOFTWARE, 0, pool_cap * 3 / 4, &c, why, sizeof(why)),
			 -ENOSPC);
	assert_non_null(strstr(why, "free blocks per plane"));
	/* A hole left by the first is reused. */
	fbx_release(x->rm, 1);
	assert_int_equal(fbx_pool_dies(x->rm), 4);
	assert_int_equal(plan_take(x, 3, FBX_SOFTWARE, 0, pool_cap / 8, &c, why, sizeof(why)), 0);
	assert_int_equal(c.res.first_block, 0);
	assert_true(c.res.nr_blocks <= a.res.nr_blocks);
	/* Overlapping blocks given back from a (bad) saved state are refused. */
	assert_int_equal(fbx_take(x->rm, 4, &b, why, sizeof(why)), -EBUSY);
	/* The last one gone frees the pool's dies. */
	fbx_release(x->rm, 2);
	fbx_release(x->rm, 3);
	assert_int_equal(fbx_pool_dies(x->rm), 0);
	assert_int_equal(fbx_free_dies(x->rm), 32);
	/* A pool bigger than pool_channels when the first ask needs it. */
	assert_int_equal(plan_take(x, 5, FBX_SOFTWARE, 0, pool_cap + 1, &a, why, sizeof(why)), 0);
	assert_int_equal(fbx_pool_dies(x->rm), 8);
}

static void test_take_checks(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a;
	char why[200];

	memset(&a, 0, sizeof(a));
	a.iso = FBX_CHANNEL;
	a.res.nr_dies = 3;
	a.res.dies[0] = 0;
	a.res.dies[1] = 1;
	a.res.dies[2] = 2;
	a.res.nr_blocks = x->g.blocks_per_plane;
	assert_int_equal(fbx_take(x->rm, 1, &a, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "channel 0 is not whole");
	a.iso = FBX_CHIP;
	a.res.dies[2] = 1;
	assert_int_equal(fbx_take(x->rm, 1, &a, why, sizeof(why)), -EINVAL);
	a.res.dies[2] = 32;
	assert_int_equal(fbx_take(x->rm, 1, &a, why, sizeof(why)), -EINVAL);
	a.res.dies[2] = 2;
	a.res.nr_blocks = 3;
	assert_int_equal(fbx_take(x->rm, 1, &a, why, sizeof(why)), -EINVAL);
	a.res.nr_blocks = x->g.blocks_per_plane;
	assert_int_equal(fbx_take(x->rm, FBX_POOL, &a, why, sizeof(why)), -EINVAL);
	assert_int_equal(fbx_take(x->rm, 1, &a, why, sizeof(why)), 0);
	assert_int_equal(fbx_free_dies(x->rm), 29);
}

static void wear(struct rmfx *x, const uint64_t *per_channel_block_erases)
{
	uint32_t nd = nand_dies(&x->g), dpc = x->g.dies_per_channel;
	uint64_t *e = calloc(nd, sizeof(*e));
	uint64_t blocks = (uint64_t)x->g.planes_per_die * x->g.blocks_per_plane;

	for (uint32_t d = 0; d < nd; d++)
		e[d] = per_channel_block_erases[d / dpc] * blocks;
	fbx_wear_update(x->rm, e);
	free(e);
}

static void test_wear_arith(void **state)
{
	struct rmfx *x = *state;
	struct fbx_wear w;
	uint64_t c[8] = { 30, 10, 10, 10, 10, 10, 10, 30 };
	uint64_t since;

	fbx_wear_get(x->rm, &w);
	assert_true(w.imbalance == 1.0);
	/* N = 8, x = 0.1: K = ceil(6.9 / 0.8) = 9; step = 3000 / (9 * 8). */
	assert_int_equal(w.rounds, 9);
	assert_true(w.check_step > 41.6 && w.check_step < 41.7);
	assert_false(fbx_check_due(x->rm));
	wear(x, c);
	fbx_wear_get(x->rm, &w);
	assert_true(w.avg == 15.0);
	assert_true(w.max == 30.0);
	assert_int_equal(w.max_channel, 0);
	assert_true(w.imbalance == 2.0);
	assert_true(fbx_channel_wear(x->rm, 7, &since) == 30.0);
	assert_int_equal(since, 30ull * 4 * 2 * 64);
	assert_false(fbx_check_due(x->rm)); /* 15 < 41.7 */
}

static void test_rounds_16(void **state)
{
	struct nand_geometry g;
	struct fbx_params p;
	struct fbx_rm *rm;
	struct fbx_wear w;

	(void)state;
	nand_geometry_default(&g);
	g.channels = 16;
	fbx_params_default(&p, g.cell);
	assert_int_equal(fbx_rm_create(&g, &p, &rm), 0);
	fbx_wear_get(rm, &w);
	/* (16 - 1 - 0.1) / (16 * 0.1) = 9.3: 10 rounds, 160 checks over the lifetime. */
	assert_int_equal(w.rounds, 10);
	fbx_rm_destroy(rm);
}

static void test_swap_to_free_channel(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a, b;
	struct fbx_swap s;
	struct fbx_wear w;
	char why[200];
	/* Two channel vSSDs: 1 on ch 0 (hot), 2 on ch 1 (cold); ch 3 the least-worn free one. */
	uint64_t c[8] = { 90, 30, 60, 10, 60, 60, 60, 60 };

	assert_int_equal(plan_take(x, 1, FBX_CHANNEL, 1, 0, &a, why, sizeof(why)), 0);
	assert_int_equal(plan_take(x, 2, FBX_CHANNEL, 1, 0, &b, why, sizeof(why)), 0);
	assert_int_equal(a.res.dies[0], 0);
	assert_int_equal(b.res.dies[0], 4);
	wear(x, c);
	assert_true(fbx_check_due(x->rm)); /* avg 53.75 past the first step, 41.7 */
	assert_int_equal(fbx_swap_check(x->rm, &s), 1);
	assert_int_equal(s.nr, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(s.moves[i].owner, 1);
		assert_int_equal(s.moves[i].from_die, i);
		assert_int_equal(s.moves[i].to_die, 12 + i);
	}
	assert_non_null(strstr(s.why, "to free channel 3"));
	for (uint32_t i = 0; i < 4; i++)
		assert_int_equal(fbx_move_done(x->rm, &s.moves[i]), 0);
	assert_int_equal(fbx_die_owner(x->rm, 0), FBX_FREE);
	assert_int_equal(fbx_die_owner(x->rm, 12), 1);
	assert_true(fbx_owner_alloc(x->rm, 1, &a));
	assert_int_equal(a.res.dies[0], 12);
	/* The check is counted and the next one set past the wear now. */
	fbx_wear_get(x->rm, &w);
	assert_int_equal(w.checks, 1);
	assert_int_equal(w.swaps, 1);
	assert_false(fbx_check_due(x->rm));
	assert_true(w.next_check > w.avg);
	/* A move that does not match the ownership is refused. */
	assert_int_equal(fbx_move_done(x->rm, &s.moves[0]), -EINVAL);
}

/*
 * The spare channel: no ask takes the last whole free channel (channel,
 * chip or a forming pool), so a swap of a full device still has a
 * destination, and after the swap a whole channel is free again.
 */
static void test_spare_channel(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a[8], b;
	struct fbx_swap s;
	struct fbx_rm *rm;
	char why[200];
	uint64_t c[8] = { 90, 50, 50, 50, 50, 50, 50, 10 };

	assert_int_equal(plan_take(x, 1, FBX_CHANNEL, 8, 0, &b, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "need 8 free channels, 7 left (and 1 kept spare for wear swaps)");
	for (uint32_t i = 0; i < 7; i++)
		assert_int_equal(plan_take(x, i + 1, FBX_CHANNEL, 1, 0, &a[i], why, sizeof(why)), 0);
	assert_int_equal(fbx_free_channels(x->rm), 1);
	assert_int_equal(plan_take(x, 8, FBX_CHANNEL, 1, 0, &b, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "need 1 free channel, 0 left (and 1 kept spare for wear swaps)");
	assert_int_equal(plan_take(x, 8, FBX_CHIP, 1, 0, &b, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "need 1 free dies, 0 left (and 1 kept spare for wear swaps)");
	assert_int_equal(plan_take(x, 8, FBX_SOFTWARE, 0, 1024, &b, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "the software pool needs 1 free channel, 0 left (and 1 kept "
				 "spare for wear swaps)");
	/* vSSD 1 (ch 0) is worn past the bound: it goes to the spare, ch 7. */
	wear(x, c);
	assert_true(fbx_check_due(x->rm));
	assert_int_equal(fbx_swap_check(x->rm, &s), 1);
	assert_int_equal(s.nr, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(s.moves[i].owner, 1);
		assert_int_equal(s.moves[i].to_die, 28 + i);
		assert_int_equal(fbx_move_done(x->rm, &s.moves[i]), 0);
	}
	/* The worn channel rests as the new spare: still not for asks. */
	assert_int_equal(fbx_free_channels(x->rm), 1);
	assert_int_equal(fbx_die_owner(x->rm, 0), FBX_FREE);
	assert_int_equal(plan_take(x, 8, FBX_CHANNEL, 1, 0, &b, why, sizeof(why)), -ENOSPC);
	/* Dies of split channels are not the spare's: a chip ask takes them. */
	fbx_release(x->rm, 2);
	assert_int_equal(plan_take(x, 8, FBX_CHIP, 2, 0, &b, why, sizeof(why)), 0);
	assert_int_equal(b.res.dies[0] / x->g.dies_per_channel, 1); /* not ch 0, the spare */
	assert_int_equal(plan_take(x, 9, FBX_CHIP, 3, 0, &b, why, sizeof(why)), -ENOSPC);
	assert_string_equal(why, "need 3 free dies, 2 left (and 1 kept spare for wear swaps)");

	/* Without the spare every channel may be taken... */
	x->p.spare_channel = false;
	assert_int_equal(fbx_rm_create(&x->g, &x->p, &rm), 0);
	{
		struct fbx_ask ask = { .iso = FBX_CHANNEL, .count = 8 };

		assert_int_equal(fbx_plan(rm, &ask, &x->fc, &b, why, sizeof(why)), 0);
	}
	fbx_rm_destroy(rm);
	/* ...and a device of fewer than FBX_SPARE_MIN_CHANNELS keeps none. */
	x->g.channels = FBX_SPARE_MIN_CHANNELS - 1;
	x->p.spare_channel = true;
	assert_int_equal(fbx_rm_create(&x->g, &x->p, &rm), 0);
	{
		struct fbx_ask ask = { .iso = FBX_CHANNEL, .count = x->g.channels };

		assert_int_equal(fbx_plan(rm, &ask, &x->fc, &b, why, sizeof(why)), 0);
	}
	fbx_rm_destroy(rm);
}

static void test_swap_trade_and_refusals(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a[8];
	struct fbx_swap s;
	char why[200];
	uint64_t c[8] = { 90, 10, 50, 50, 50, 50, 50, 50 };

	/* Every channel but the last owned; the hot one trades with the coldest through ch 7. */
	for (uint32_t i = 0; i < 7; i++)
		assert_int_equal(plan_take(x, i + 1, FBX_CHANNEL, 1, 0, &a[i], why, sizeof(why)), 0);
	c[7] = 60;
	wear(x, c);
	assert_int_equal(fbx_swap_check(x->rm, &s), 1);
	assert_int_equal(s.nr, 8);
	/* The cold vSSD (2, on ch 1) to the free ch 7 first, then the hot one (1) onto ch 1. */
	assert_int_equal(s.moves[0].owner, 2);
	assert_int_equal(s.moves[0].from_die, 4);
	assert_int_equal(s.moves[0].to_die, 28);
	assert_int_equal(s.moves[4].owner, 1);
	assert_int_equal(s.moves[4].from_die, 0);
	assert_int_equal(s.moves[4].to_die, 4);
	for (uint32_t i = 0; i < s.nr; i++)
		assert_int_equal(fbx_move_done(x->rm, &s.moves[i]), 0);
	assert_int_equal(fbx_free_channels(x->rm), 1);
	assert_int_equal(fbx_die_owner(x->rm, 0), FBX_FREE); /* the worn one rests */
	assert_int_equal(fbx_die_owner(x->rm, 4), 1);
	assert_int_equal(fbx_die_owner(x->rm, 28), 2);
	/* No free channel left: the same kind of trade is refused with the reason. */
	assert_int_equal(plan_take(x, 9, FBX_CHANNEL, 1, 0, &a[7], why, sizeof(why)), 0);
	assert_int_equal(fbx_die_owner(x->rm, 0), 9);
	for (uint32_t i = 0; i < 8; i++)
		c[i] += 50;
	c[1] += 300; /* vSSD 1, on ch 1 now, writes hard */
	c[0] -= 30; /* vSSD 9 on ch 0 writes little */
	wear(x, c);
	assert_int_equal(fbx_swap_check(x->rm, &s), 0);
	assert_non_null(strstr(s.why, "no channel is free"));
}

static void test_no_swap_when_even(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a;
	struct fbx_swap s;
	struct fbx_wear w;
	char why[200];
	uint64_t c[8];

	assert_int_equal(plan_take(x, 1, FBX_CHANNEL, 1, 0, &a, why, sizeof(why)), 0);
	for (uint32_t i = 0; i < 8; i++)
		c[i] = 50;
	wear(x, c);
	assert_true(fbx_check_due(x->rm));
	assert_int_equal(fbx_swap_check(x->rm, &s), 0);
	assert_non_null(strstr(s.why, "even enough"));
	fbx_wear_get(x->rm, &w);
	assert_int_equal(w.checks, 1);
	assert_int_equal(w.swaps, 0);
}

/*
 * Channel vSSDs 1..6 on channels 0..5 (7 and 8 free); per channel its wear
 * and its erases since the last check, in erases per block.
 */
static void six_vssds_worn(struct rmfx *x, const uint64_t wear_[8], const uint64_t since[8])
{
	struct fbx_wear_state st;
	struct fbx_alloc a;
	char why[200];
	uint32_t nd = nand_dies(&x->g);
	uint64_t blocks = (uint64_t)x->g.planes_per_die * x->g.blocks_per_plane;
	uint64_t *e = calloc(nd, sizeof(*e)), *snap = calloc(nd, sizeof(*snap));

	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(plan_take(x, i + 1, FBX_CHANNEL, 1, 0, &a, why, sizeof(why)), 0);
	for (uint32_t d = 0; d < nd; d++) {
		e[d] = wear_[d / x->g.dies_per_channel] * blocks;
		snap[d] = (wear_[d / x->g.dies_per_channel] - since[d / x->g.dies_per_channel]) * blocks;
	}
	fbx_wear_update(x->rm, e);
	fbx_wear_state_get(x->rm, &st);
	fbx_wear_state_set(x->rm, st.next_check, 0, 0, snap);
	free(e);
	free(snap);
}

/*
 * The hot vSSD is the one that will be most worn by the next check, not
 * only the fastest writer: a vSSD already far past the others at a lower
 * rate is moved (the lifetime bench's failing case 1).
 */
static void test_swap_picks_most_worn(void **state)
{
	struct rmfx *x = *state;
	struct fbx_swap s;
	const uint64_t wear_[8] = { 2500, 4600, 2300, 2300, 2300, 2300, 2350, 2350 };
	const uint64_t since[8] = { 214, 64, 23, 21, 6, 4, 0, 0 };

	six_vssds_worn(x, wear_, since);
	assert_int_equal(fbx_swap_check(x->rm, &s), 1);
	/*
	 * Channel 1 (4600, 1.75x the average) is the one moved, onto the least
	 * worn channel (2, vSSD 3), whose vSSD goes to a free one first.
	 */
	assert_int_equal(s.nr, 8);
	assert_int_equal(s.moves[0].owner, 3);
	assert_int_equal(s.moves[0].from_die / x->g.dies_per_channel, 2);
	assert_int_equal(s.moves[4].owner, 2);
	assert_int_equal(s.moves[4].from_die / x->g.dies_per_channel, 1);
	assert_int_equal(s.moves[4].to_die / x->g.dies_per_channel, 2);
}

/*
 * An idle vSSD on the most worn channel does not block the check: the
 * vSSD written hard moves, to a free channel as worn as the least worn
 * owned one (one move, not a trade). The lifetime bench's case.
 */
static void test_swap_skips_idle_hot(void **state)
{
	struct rmfx *x = *state;
	struct fbx_swap s;
	const uint64_t wear_[8] = { 2100, 1800, 1500, 1500, 1500, 1500, 1500, 1500 };
	const uint64_t since[8] = { 0, 214, 21, 21, 6, 2, 0, 0 };

	six_vssds_worn(x, wear_, since);
	assert_int_equal(fbx_swap_check(x->rm, &s), 1);
	assert_int_equal(s.nr, 4);
	assert_int_equal(s.moves[0].owner, 2);
	assert_int_equal(s.moves[0].to_die / x->g.dies_per_channel, 6);
}

static void test_chip_swap(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a;
	struct fbx_swap s;
	char why[200];
	uint32_t nd = nand_dies(&x->g);
	uint64_t *e = calloc(nd, sizeof(*e));
	uint64_t blocks = (uint64_t)x->g.planes_per_die * x->g.blocks_per_plane;

	/* A chip vSSD on dies 0 and 1; die 0 is written hard, die 3 is fresh. */
	assert_int_equal(plan_take(x, 1, FBX_CHIP, 2, 0, &a, why, sizeof(why)), 0);
	assert_int_equal(a.res.dies[0], 0);
	for (uint32_t d = 0; d < nd; d++)
		e[d] = 40 * blocks;
	e[0] = 200 * blocks;
	e[1] = 41 * blocks;
	e[3] = 2 * blocks;
	fbx_wear_update(x->rm, e);
	assert_int_equal(fbx_swap_check(x->rm, &s), 1);
	assert_int_equal(s.nr, 1);
	assert_int_equal(s.moves[0].owner, 1);
	assert_int_equal(s.moves[0].from_die, 0);
	assert_int_equal(s.moves[0].to_die, 3);
	free(e);
}

/* A migration's holds: the destination reserved, the switch, the source held, then freed. */
static void test_move_holds(void **state)
{
	struct rmfx *x = *state;
	struct fbx_alloc a, b;
	struct fbx_move m = { .owner = 1, .from_die = 0, .to_die = 8 };
	uint32_t held[8];
	char why[200];

	assert_int_equal(plan_take(x, 1, FBX_CHANNEL, 1, 0, &a, why, sizeof(why)), 0);
	assert_int_equal(plan_take(x, 2, FBX_CHIP, 1, 0, &b, why, sizeof(why)), 0); /* die 4 */
	assert_int_equal(fbx_reserve(x->rm, 1, 4), -EBUSY);
	assert_int_equal(fbx_reserve(x->rm, 1, 8), 0);
	assert_int_equal(fbx_reserved(x->rm, 1, held, 8), 1);
	assert_int_equal(held[0], 8);
	/* Nobody else gets a held die. */
	assert_int_equal(fbx_die_owner(x->rm, 8), 1);
	assert_int_equal(fbx_move_switch(x->rm, &m), 0);
	assert_true(fbx_owner_alloc(x->rm, 1, &a));
	assert_int_equal(a.res.dies[0], 8);
	/* The source is held now, outside the allocation. */
	assert_int_equal(fbx_reserved(x->rm, 1, held, 8), 1);
	assert_int_equal(held[0], 0);
	assert_int_equal(fbx_unreserve(x->rm, 1, 8), -EINVAL); /* in its allocation */
	assert_int_equal(fbx_unreserve(x->rm, 1, 0), 0);
	assert_int_equal(fbx_die_owner(x->rm, 0), FBX_FREE);
	/* Release frees held dies with the rest. */
	assert_int_equal(fbx_reserve(x->rm, 1, 0), 0);
	fbx_release(x->rm, 1);
	assert_int_equal(fbx_die_owner(x->rm, 0), FBX_FREE);
	assert_int_equal(fbx_die_owner(x->rm, 8), FBX_FREE);
	assert_int_equal(fbx_free_dies(x->rm), 31);
}

static void test_wear_state(void **state)
{
	struct rmfx *x = *state;
	struct fbx_wear_state st;
	struct fbx_wear w;
	uint32_t nd = nand_dies(&x->g);
	uint64_t *snap = calloc(nd, sizeof(*snap));

	for (uint32_t d = 0; d < nd; d++)
		snap[d] = d * 10;
	fbx_wear_state_set(x->rm, 123.5, 7, 3, snap);
	fbx_wear_state_get(x->rm, &st);
	assert_true(st.next_check == 123.5);
	assert_int_equal(st.checks, 7);
	assert_int_equal(st.swaps, 3);
	assert_memory_equal(st.snapshot, snap, nd * sizeof(*snap));
	fbx_wear_get(x->rm, &w);
	assert_int_equal(w.swaps, 3);
	free(snap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_channels, setup, teardown),
		cmocka_unit_test_setup_teardown(test_channel_by_capacity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chips_pack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_software_pool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_take_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wear_arith, setup, teardown),
		cmocka_unit_test(test_rounds_16),
		cmocka_unit_test_setup_teardown(test_swap_to_free_channel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_trade_and_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spare_channel, setup_spare, teardown),
		cmocka_unit_test_setup_teardown(test_no_swap_when_even, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_picks_most_worn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_skips_idle_hot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chip_swap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_move_holds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wear_state, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
