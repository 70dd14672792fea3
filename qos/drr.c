/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Weighted fair sharing of a die among tenants: deficit round robin
 * (Shreedhar and Varghese, SIGCOMM 1995) with costs in nanoseconds of
 * array time, so tenants share die time rather than op counts.
 *
 * The caller keeps each tenant's queue and asks, whenever the die can take
 * an op, whose head op goes next (qos_drr_pick()). The rounds are the
 * classic ones, one pick at a time:
 *
 *   - tenants take turns in id order, from the cursor on; a tenant whose
 *     turn starts earns QOS_DRR_QUANTUM_NS x its weight of deficit;
 *   - during its turn a tenant is picked while its deficit covers the cost
 *     of its head op, which is then charged; when it does not, the turn
 *     passes on (the deficit left over is kept for its next turn);
 *   - a tenant with nothing waiting forfeits its deficit (it would
 *     otherwise save up credit while idle and then burst), and is skipped.
 *
 * When a whole round passes without anyone able to pay (a cost above a
 * quantum, such as an erase for a weight of 1), the rounds that would serve
 * nobody are granted at once, arithmetically, so one pick costs at most two
 * passes over the tenants whatever the costs.
 *
 * cursor == QOS_MAX_TENANTS: no turn in progress (after init, or when
 * nobody waited); the next turn then starts at tenant 0.
 */
#include <errno.h>
#include <string.h>

#include "qos.h"

/* Costs are clipped here (about 18 minutes) so deficits cannot overflow. */
#define DRR_MAX_COST (1ull << 40)

#define DRR_NO_TURN QOS_MAX_TENANTS

void qos_drr_init(struct qos_drr *s)
{
	memset(s, 0, sizeof(*s));
	s->cursor = DRR_NO_TURN;
}

int qos_drr_set_weight(struct qos_drr *s, uint32_t t, uint32_t weight)
{
	if (t >= QOS_MAX_TENANTS || weight < 1 || weight > 1000)
		return -EINVAL;
	s->weight[t] = weight;
	if (s->nr <= t)
		s->nr = t + 1;
	return 0;
}

static int64_t quantum(const struct qos_drr *s, uint32_t t)
{
	uint32_t w = s->weight[t];

	if (w == 0)
		w = 1;
	else if (w > 1000)
		w = 1000;
	return (int64_t)QOS_DRR_QUANTUM_NS * w;
}

static int64_t cost_of(const uint64_t *cost_ns, uint32_t t)
{
	return (int64_t)(cost_ns[t] < DRR_MAX_COST ? cost_ns[t] : DRR_MAX_COST);
}

static int serve(struct qos_drr *s, uint32_t t, int64_t cost)
{
	s->deficit[t] -= cost;
	s->served_ns[t] += (uint64_t)cost;
	return (int)t;
}

/* The next tenant of @waiting (not empty) after @from, or the first with no turn. */
static uint32_t next_waiting(uint64_t waiting, uint32_t from)
{
	uint64_t after = from >= QOS_MAX_TENANTS - 1 ? 0 : waiting & ~((2ull << from) - 1);

	return (uint32_t)__builtin_ctzll(after ? after : waiting);
}

/*
 * The tenants waiting are a mask, so a pick costs one pass over the cost
 * array and then work per waiting tenant only (a device has 64 tenant
 * slots, a die's queue usually one or two of them).
 */
int qos_drr_pick(struct qos_drr *s, const uint64_t *cost_ns, uint32_t n)
{
	uint64_t waiting = 0, m;
	uint32_t t;

	if (n > QOS_MAX_TENANTS)
		n = QOS_MAX_TENANTS;
	if (s->nr < n)
		s->nr = n;
	for (t = 0; t < n; t++)
		if (cost_ns[t] != UINT64_MAX)
			waiting |= 1ull << t;
	/* Standard DRR: an empty queue forfeits its deficit. */
	for (m = s->credit & ~waiting; m; m &= m - 1)
		s->deficit[__builtin_ctzll(m)] = 0;
	s->credit &= waiting;
	if (!waiting) {
		s->cursor = DRR_NO_TURN;
		return -1;
	}
	s->credit |= waiting; /* every waiting tenant's deficit moves below */
	/* The turn in progress goes on while it can pay. */
	t = s->cursor;
	if (t < n && (waiting >> t & 1) && s->deficit[t] >= cost_of(cost_ns, t))
		return serve(s, t, cost_of(cost_ns, t));

	uint32_t nwait = (uint32_t)__builtin_popcountll(waiting);

	for (int pass = 0; pass < 2; pass++) {
		/* One round: each waiting tenant's turn, from the one after the cursor. */
		for (uint32_t i = 0; i < nwait; i++) {
			t = next_waiting(waiting, s->cursor);
			s->cursor = t;
			s->deficit[t] += quantum(s, t);
			if (s->deficit[t] >= cost_of(cost_ns, t))
				return serve(s, t, cost_of(cost_ns, t));
		}
		/*
		 * Nobody could pay in a whole round: grant at once the rounds
		 * that would serve nobody (every waiting tenant earns its
		 * quantum in each); the next round serves someone.
		 */
		uint64_t rounds = UINT64_MAX;

		for (m = waiting; m; m &= m - 1) {
			t = (uint32_t)__builtin_ctzll(m);
			int64_t q = quantum(s, t), need = cost_of(cost_ns, t) - s->deficit[t];
			uint64_t r = (uint64_t)((need + q - 1) / q);

			if (r < rounds)
				rounds = r;
		}
		for (m = waiting; m; m &= m - 1) {
			t = (uint32_t)__builtin_ctzll(m);
			s->deficit[t] += (int64_t)(rounds - 1) * quantum(s, t);
		}
	}
	return -1; /* not reached */
}
