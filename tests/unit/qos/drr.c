/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qos/drr.c: deficit round robin over tenants, costs in ns of array time.
 * Order within and across turns, weights under saturation, costs above a
 * quantum, tenants arriving and leaving, the deficit an empty tenant
 * forfeits, nobody waiting.
 */
#include <errno.h>
#include <string.h>

#include "qos_tests.h"

#define US 1000ull
#define MS 1000000ull
#define NONE UINT64_MAX

static uint64_t rnd(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ull;
}

/* A TLC op's array time: reads, programs by page type, now and then an erase. */
static uint64_t op_cost(uint64_t *x)
{
	static const uint64_t c[] = { 56 * US, 65 * US, 74 * US, 56 * US, 65 * US, 74 * US,
				      1200 * US, 2000 * US, 3000 * US, 10 * MS };

	return c[rnd(x) % (sizeof(c) / sizeof(c[0]))];
}

/* 1. Nobody waiting: -1, nothing charged, no turn left in progress. */
void test_drr_empty(void **state)
{
	struct qos_drr s;
	uint64_t cost[4] = { NONE, NONE, NONE, NONE };

	(void)state;
	qos_drr_init(&s);
	assert_int_equal(qos_drr_pick(&s, cost, 4), -1);
	assert_int_equal(qos_drr_pick(&s, cost, 0), -1);
	for (int t = 0; t < 4; t++) {
		assert_int_equal(s.deficit[t], 0);
		assert_int_equal(s.served_ns[t], 0);
	}
	/* After some service, nobody waiting again: deficits are forfeited. */
	cost[2] = 50 * US;
	assert_int_equal(qos_drr_pick(&s, cost, 4), 2);
	assert_int_equal(s.deficit[2], (int64_t)(QOS_DRR_QUANTUM_NS - 50 * US));
	cost[2] = NONE;
	assert_int_equal(qos_drr_pick(&s, cost, 4), -1);
	assert_int_equal(s.deficit[2], 0);
	assert_int_equal(s.served_ns[2], 50 * US);
}

/* 2. Weights 1..1000 and tenants 0..63; anything else -EINVAL. */
void test_drr_weights_invalid(void **state)
{
	struct qos_drr s;

	(void)state;
	qos_drr_init(&s);
	assert_int_equal(qos_drr_set_weight(&s, 0, 0), -EINVAL);
	assert_int_equal(qos_drr_set_weight(&s, 0, 1001), -EINVAL);
	assert_int_equal(qos_drr_set_weight(&s, QOS_MAX_TENANTS, 1), -EINVAL);
	assert_int_equal(s.nr, 0);
	assert_int_equal(qos_drr_set_weight(&s, 0, 1), 0);
	assert_int_equal(qos_drr_set_weight(&s, QOS_MAX_TENANTS - 1, 1000), 0);
	assert_int_equal(s.weight[0], 1);
	assert_int_equal(s.weight[QOS_MAX_TENANTS - 1], 1000);
	assert_int_equal(s.nr, QOS_MAX_TENANTS);
}

/* 3. Turns in id order; a turn lasts while the deficit pays (quantum 200 us x weight). */
void test_drr_order(void **state)
{
	struct qos_drr s;
	uint64_t cost[3] = { 100 * US, 100 * US, 100 * US };
	static const int want1[] = { 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2 };
	/* Weight 2 for tenant 1: four 100 us ops per turn. */
	static const int want2[] = { 0, 0, 1, 1, 1, 1, 2, 2, 0, 0, 1, 1, 1, 1, 2, 2 };

	(void)state;
	qos_drr_init(&s);
	for (size_t i = 0; i < sizeof(want1) / sizeof(want1[0]); i++) {
		assert_int_equal(qos_drr_pick(&s, cost, 3), want1[i]);
		assert_int_equal(s.cursor, (uint32_t)want1[i]);
	}
	qos_drr_init(&s);
	assert_int_equal(qos_drr_set_weight(&s, 1, 2), 0);
	for (size_t i = 0; i < sizeof(want2) / sizeof(want2[0]); i++)
		assert_int_equal(qos_drr_pick(&s, cost, 3), want2[i]);
	/* A leftover deficit is kept while the tenant stays busy: 150 us ops. */
	qos_drr_init(&s);
	cost[0] = cost[1] = cost[2] = 150 * US;
	/* Turn 1: 200 -> 50 left; turn 2: 250 -> 100; turn 3: 300 -> two ops. */
	static const int want3[] = { 0, 1, 2, 0, 1, 2, 0, 0, 1, 1, 2, 2 };

	for (size_t i = 0; i < sizeof(want3) / sizeof(want3[0]); i++)
		assert_int_equal(qos_drr_pick(&s, cost, 3), want3[i]);
	assert_int_equal(s.deficit[0], 0);
}

/* Saturate @n tenants with random TLC op costs until @total ns are served. */
static void saturate(struct qos_drr *s, uint32_t n, uint64_t total, uint64_t seed)
{
	uint64_t cost[QOS_MAX_TENANTS], charged[QOS_MAX_TENANTS] = { 0 }, sum = 0, x = seed;

	for (uint32_t t = 0; t < n; t++)
		cost[t] = op_cost(&x);
	while (sum < total) {
		int t = qos_drr_pick(s, cost, n);

		assert_true(t >= 0 && (uint32_t)t < n);
		charged[t] += cost[t];
		sum += cost[t];
		/* No tenant's deficit runs ahead of one turn's quantum plus an op. */
		assert_true(s->deficit[t] >= 0);
		assert_true(s->deficit[t] < (int64_t)(1000 * QOS_DRR_QUANTUM_NS + 10 * MS));
		cost[t] = op_cost(&x);
	}
	for (uint32_t t = 0; t < n; t++)
		assert_int_equal(s->served_ns[t], charged[t]);
}

static void assert_ratio(uint64_t a, uint64_t b, double want, double tol)
{
	double r = (double)a / (double)b;

	if (r < want * (1 - tol) || r > want * (1 + tol))
		fail_msg("share ratio %.4f, want %.4f within %.0f%%", r, want, tol * 100);
}

/* 4. Under saturation, weights 1:3 give 1:3 of the die time (within 5%), mixed op costs. */
void test_drr_weights_share(void **state)
{
	struct qos_drr s;

	(void)state;
	for (uint64_t seed = 1; seed <= 5; seed++) {
		qos_drr_init(&s);
		assert_int_equal(qos_drr_set_weight(&s, 0, 1), 0);
		assert_int_equal(qos_drr_set_weight(&s, 1, 3), 0);
		saturate(&s, 2, 100ull * 1000 * MS, seed * 7919);
		assert_ratio(s.served_ns[1], s.served_ns[0], 3.0, 0.05);
	}
	/* Three tenants, weights 1, 2, 5. */
	qos_drr_init(&s);
	assert_int_equal(qos_drr_set_weight(&s, 1, 2), 0);
	assert_int_equal(qos_drr_set_weight(&s, 2, 5), 0);
	saturate(&s, 3, 100ull * 1000 * MS, 42);
	assert_ratio(s.served_ns[1], s.served_ns[0], 2.0, 0.05);
	assert_ratio(s.served_ns[2], s.served_ns[0], 5.0, 0.05);
	/* Equal weights (0 in the table is 1). */
	qos_drr_init(&s);
	saturate(&s, 4, 100ull * 1000 * MS, 3);
	for (int t = 1; t < 4; t++)
		assert_ratio(s.served_ns[t], s.served_ns[0], 1.0, 0.05);
}

/* 5. Costs far above a quantum (erases, weight 1): the rounds that serve nobody are skipped. */
void test_drr_large_costs(void **state)
{
	struct qos_drr s;
	uint64_t cost[2] = { 10 * MS, 10 * MS };
	int n[2] = { 0, 0 };

	(void)state;
	qos_drr_init(&s);
	assert_int_equal(qos_drr_set_weight(&s, 1, 2), 0);
	/* Tenant 1 earns 400 us a round, tenant 0 200 us: 1 reaches 10 ms first (round 25). */
	assert_int_equal(qos_drr_pick(&s, cost, 2), 1);
	assert_int_equal(s.deficit[1], 0);
	assert_int_equal(s.deficit[0], (int64_t)(25 * QOS_DRR_QUANTUM_NS));
	for (int i = 0; i < 3000; i++)
		n[qos_drr_pick(&s, cost, 2)]++;
	assert_ratio((uint64_t)n[1], (uint64_t)n[0], 2.0, 0.01);
	/* A cost beyond any sensible op is clipped, not overflowed. */
	qos_drr_init(&s);
	cost[0] = UINT64_MAX - 1;
	cost[1] = NONE;
	assert_int_equal(qos_drr_pick(&s, cost, 2), 0);
	assert_true(s.deficit[0] >= 0);
}

/* 6. Tenants arriving and leaving: no credit saved while away, their share once back. */
void test_drr_arrive_leave(void **state)
{
	struct qos_drr s;
	uint64_t cost[3] = { 100 * US, 100 * US, NONE };
	int n[3] = { 0, 0, 0 };

	(void)state;
	qos_drr_init(&s);
	for (int i = 0; i < 100; i++)
		n[qos_drr_pick(&s, cost, 3)]++;
	assert_int_equal(n[0], 50);
	assert_int_equal(n[1], 50);
	assert_int_equal(s.deficit[2], 0);
	/* Tenant 2 arrives: served within a round, then its share, not a burst. */
	cost[2] = 100 * US;
	memset(n, 0, sizeof(n));
	for (int i = 0; i < 4; i++)
		n[qos_drr_pick(&s, cost, 3)]++;
	assert_true(n[2] >= 1);
	memset(n, 0, sizeof(n));
	for (int i = 0; i < 600; i++)
		n[qos_drr_pick(&s, cost, 3)]++;
	for (int t = 0; t < 3; t++)
		assert_true(n[t] >= 198 && n[t] <= 202);
	/* Tenant 0 leaves (in the middle of its turn or not): never picked, deficit 0. */
	cost[0] = NONE;
	memset(n, 0, sizeof(n));
	for (int i = 0; i < 100; i++)
		n[qos_drr_pick(&s, cost, 3)]++;
	assert_int_equal(n[0], 0);
	assert_int_equal(n[1], 50);
	assert_int_equal(s.deficit[0], 0);
	/* Tenant 1 leaves too: only 2 is left; then nobody. */
	cost[1] = NONE;
	for (int i = 0; i < 10; i++)
		assert_int_equal(qos_drr_pick(&s, cost, 3), 2);
	cost[2] = NONE;
	assert_int_equal(qos_drr_pick(&s, cost, 3), -1);
}

/* 7. Standard DRR: a tenant found empty forfeits its deficit. */
void test_drr_forfeit(void **state)
{
	struct qos_drr s;
	uint64_t cost[2] = { 120 * US, 200 * US };

	(void)state;
	qos_drr_init(&s);
	assert_int_equal(qos_drr_pick(&s, cost, 2), 0); /* 200 - 120 = 80 left */
	assert_int_equal(s.deficit[0], (int64_t)(80 * US));
	assert_int_equal(qos_drr_pick(&s, cost, 2), 1);
	/* Busy, it keeps its 80 us: 280 pays for two ops in its next turn. */
	assert_int_equal(qos_drr_pick(&s, cost, 2), 0);
	assert_int_equal(qos_drr_pick(&s, cost, 2), 0);
	assert_int_equal(s.deficit[0], (int64_t)(40 * US));
	assert_int_equal(qos_drr_pick(&s, cost, 2), 1);
	/* Empty for one pick: the 40 us are gone. */
	cost[0] = NONE;
	assert_int_equal(qos_drr_pick(&s, cost, 2), 1);
	assert_int_equal(s.deficit[0], 0);
	cost[0] = 120 * US;
	assert_int_equal(qos_drr_pick(&s, cost, 2), 0);
	assert_int_equal(s.deficit[0], (int64_t)(80 * US));
	assert_int_equal(qos_drr_pick(&s, cost, 2), 1); /* one op only this turn */
}

/* 8. Tenants known grow with the picks; more than QOS_MAX_TENANTS are not looked at. */
void test_drr_tenant_count(void **state)
{
	struct qos_drr s;
	uint64_t cost[QOS_MAX_TENANTS + 8];

	(void)state;
	qos_drr_init(&s);
	for (size_t i = 0; i < sizeof(cost) / sizeof(cost[0]); i++)
		cost[i] = NONE;
	cost[QOS_MAX_TENANTS + 2] = 100 * US;
	assert_int_equal(qos_drr_pick(&s, cost, QOS_MAX_TENANTS + 8), -1);
	assert_int_equal(s.nr, QOS_MAX_TENANTS);
	/* A tenant beyond @n this time has nothing waiting: it forfeits too. */
	qos_drr_init(&s);
	cost[5] = 150 * US;
	assert_int_equal(qos_drr_pick(&s, cost, 6), 5);
	assert_int_equal(s.nr, 6);
	assert_int_equal(s.deficit[5], (int64_t)(50 * US));
	cost[1] = 100 * US;
	assert_int_equal(qos_drr_pick(&s, cost, 3), 1);
	assert_int_equal(s.deficit[5], 0);
	assert_int_equal(s.nr, 6);
}
