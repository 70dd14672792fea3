/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NAND engine's scheduling: tenants' queues beside the dies' (nand_config.sched),
 * the op a die starts next and the die a channel takes next as the scheduler names
 * them, and the multi-plane groups a starting program or erase gathers.
 */
#include "engine_internal.h"
#include "blox_queue.h"

/* ---- tenants ---- */

void nand_tenant_enqueue(struct nand_dev *dev, struct nand_die *d, struct nand_op *op)
{
	struct nand_die_tenants *dt = nand_dten(dev, d);
	struct nand_tenant_stats *ts = &dt->ts[op->tenant];

	TAILQ_INSERT_TAIL(nand_tq(dt, op->tenant, op->prio), op, tlink);
	dt->mask[op->prio] |= 1ull << op->tenant;
	if (++ts->queued > ts->max_queued)
		ts->max_queued = ts->queued;
}

__attribute__((noinline)) void nand_tenant_dequeue(struct nand_dev *dev, struct nand_die *d,
						    struct nand_op *op)
{
	struct nand_die_tenants *dt = nand_dten(dev, d);
	struct nand_opq *q = nand_tq(dt, op->tenant, op->prio);

	TAILQ_REMOVE(q, op, tlink);
	if (TAILQ_EMPTY(q))
		dt->mask[op->prio] &= ~(1ull << op->tenant);
	dt->ts[op->tenant].queued--;
}

/* @op (not a multi-plane partner) starts on @d: what it costs its tenant. */
__attribute__((noinline)) void nand_tenant_started(struct nand_dev *dev, struct nand_die *d,
						    const struct nand_op *op)
{
	struct nand_tenant_stats *ts = &nand_dten(dev, d)->ts[op->tenant];

	ts->served_ns[op->kind] += op->array_ns;
	ts->started[op->kind]++;
}

/* Tenant @t named by a scheduler, if it has a cost (something waiting). */
static bool picked(const struct nand_dev *dev, int t)
{
	return t >= 0 && (uint32_t)t < dev->ntenants && dev->cost[t] != UINT64_MAX;
}

/*
 * The op to start now on @d, whose best class waiting is @p: the oldest
 * of class @p of the tenant the scheduler names, told every waiting
 * tenant's head-op cost. When @p is in the group (sched.group_from), each
 * tenant with anything queued in the group is a candidate with its best
 * op there (its best class, oldest first), and the scheduler is asked
 * with the group's first class.
 */
struct nand_op *nand_class_pick(struct nand_dev *dev, struct nand_die *d, uint32_t p)
{
	const struct nand_sched *s = &dev->cfg.sched;
	struct nand_die_tenants *dt = nand_dten(dev, d);
	uint32_t g = s->group_from;
	bool group = g && p >= g;
	uint32_t last = group ? NAND_PRIOS - 1 : p;
	struct nand_op *op = NULL;
	uint64_t m, all = 0;
	int t;

	/* Classes above @p are empty: the scan of the group may start at @p. */
	for (uint32_t q = p; q <= last; q++) {
		for (m = dt->mask[q] & ~all; m; m &= m - 1) {
			uint32_t i = (uint32_t)__builtin_ctzll(m);

			dev->cost[i] = nand_array_time(dev, TAILQ_FIRST(nand_tq(dt, i, q)));
			dev->best[i] = (uint8_t)q;
		}
		all |= dt->mask[q];
	}
	t = s->pick(s->ctx, d->idx, (enum nand_prio)(group ? g : p), dev->cost, dev->ntenants);
	dev->stats.sched_picks++;
	if (picked(dev, t))
		op = TAILQ_FIRST(nand_tq(dt, (uint32_t)t, dev->best[t]));
	for (m = all; m; m &= m - 1)
		dev->cost[__builtin_ctzll(m)] = UINT64_MAX;
	if (!op) {
		dev->stats.sched_fallbacks++;
		op = TAILQ_FIRST(&d->q[p]);
	}
	return op;
}

/* ---- channel ---- */

/*
 * The die to take channel @ch next: of those waiting with an op of the
 * best class (@first's; or of the group, when that class is in it), the
 * first in the queue (best class, then oldest) of the tenant the
 * scheduler names.
 */
struct nand_die *nand_bus_pick(struct nand_dev *dev, uint32_t ch, struct nand_die *first)
{
	const struct nand_sched *s = &dev->cfg.sched;
	struct nand_channel *c = &dev->chans[ch];
	enum nand_prio cls = first->cur->prio;
	bool group = s->group_from && cls >= s->group_from; /* the queue is in class order */
	struct nand_die *pos, *d = NULL;
	int t;

	TAILQ_FOREACH(pos, &c->waitq, bus_link) {
		if (!group && pos->cur->prio != cls)
			break;
		if (dev->cost[pos->cur->tenant] == UINT64_MAX)
			dev->cost[pos->cur->tenant] = nand_bus_time(dev, pos->cur);
	}
	t = s->pick_bus(s->ctx, ch, group ? (enum nand_prio)s->group_from : cls, dev->cost,
			dev->ntenants);
	dev->stats.sched_bus_picks++;
	if (!picked(dev, t))
		t = -1;
	TAILQ_FOREACH(pos, &c->waitq, bus_link) {
		if (!group && pos->cur->prio != cls)
			break;
		if (!d && (int)pos->cur->tenant == t)
			d = pos;
		dev->cost[pos->cur->tenant] = UINT64_MAX;
	}
	if (!d) {
		dev->stats.sched_fallbacks++;
		d = first;
	}
	return d;
}

/* Queued ops looked at for partners, per queue: bounds the cost of a start. */
#define MP_SCAN 32

/*
 * Queued @op may join @lead's group (@have: the planes it covers), which
 * starts at @t. Not an op submitted after @t: a driver that runs late
 * starts the lead at its modeled time, after later ops came in.
 */
static inline __attribute__((always_inline)) bool
mp_partner(struct nand_dev *dev, const struct nand_op *lead, struct nand_op *op, uint32_t have,
	   uint64_t t)
{
	return op->kind == lead->kind && op->nplanes == 1 && op->submit_ns <= t &&
	       op->timing_only == lead->timing_only && op->addr.block == lead->addr.block &&
	       (op->kind != NAND_OP_PROGRAM || op->addr.page == lead->addr.page) &&
	       !(have & (1u << op->addr.plane)) &&
	       (!dev->ntenants || op->tenant == lead->tenant) && !nand_op_start_check(dev, op);
}

/* A multi-plane group being gathered: its lead, the planes it covers, its last op's link. */
struct mp_group {
	struct nand_op *lead;
	uint32_t have;
	struct nand_op **tail;
};

/* @op (a partner) joins @g at @t. */
static inline __attribute__((always_inline)) void
mp_join(struct nand_dev *dev, struct nand_die *d, struct mp_group *g, struct nand_op *op,
	uint64_t t)
{
	nand_dequeue(dev, d, op);
	op->start_ns = t;
	op->array_ns = g->lead->array_ns;
	op->mp_next = NULL;
	*g->tail = op;
	g->tail = &op->mp_next;
	g->have |= 1u << op->addr.plane;
	dev->stats.mp_joined++;
	if (dev->ntenants)
		nand_dten(dev, d)->ts[op->tenant].started[op->kind]++;
}

/* With a scheduler: partners from the lead's own queue of class @p. */
static __attribute__((noinline)) void mp_gather_tenant(struct nand_dev *dev, struct nand_die *d,
						       struct mp_group *g, uint32_t p,
						       uint32_t all, uint64_t t)
{
	struct nand_op *op, *tmp;
	uint32_t seen = 0;

	TAILQ_FOREACH_SAFE(op, nand_tq(nand_dten(dev, d), g->lead->tenant, p), tlink, tmp) {
		if (++seen > MP_SCAN || g->have == all)
			break;
		if (mp_partner(dev, g->lead, op, g->have, t))
			mp_join(dev, d, g, op, t);
	}
}

/*
 * @lead (a single-plane program or erase, starting at @t) takes queued ops
 * of the same kind for its die's other planes at the same block (and page)
 * that may start now, as one multi-plane op. With tenants on, only ops of
 * the lead's tenant join (with a scheduler they are looked for in its own
 * queues).
 */
void nand_mp_gather(struct nand_dev *dev, struct nand_die *d, struct nand_op *lead,
		      uint64_t t)
{
	uint32_t planes = dev->cfg.geo.planes_per_die, all = (1u << planes) - 1;
	struct mp_group g = { lead, 1u << lead->addr.plane, &lead->mp_next };
	struct nand_op *op, *tmp;

	lead->mp_next = NULL;
	if (!dev->cfg.multiplane || planes == 1 || lead->nplanes != 1 ||
	    lead->kind == NAND_OP_READ)
		return;
	for (uint32_t p = 0; p < NAND_PRIOS && g.have != all; p++) {
		uint32_t seen = 0;

		if (dev->die_sched) {
			mp_gather_tenant(dev, d, &g, p, all, t);
			continue;
		}
		TAILQ_FOREACH_SAFE(op, &d->q[p], link, tmp) {
			if (++seen > MP_SCAN || g.have == all)
				break;
			if (mp_partner(dev, lead, op, g.have, t))
				mp_join(dev, d, &g, op, t);
		}
	}
	if (lead->mp_next)
		dev->stats.mp_groups[lead->kind]++;
}
