/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NAND timing engine: per-die state machines with priority queues,
 * a shared bus per channel, program/erase suspension, and one min-heap of
 * next events (at most one per die and per channel, so the heap stays as
 * small as the device). nand_advance(now) completes what is due and starts
 * what can start; time only ever comes from the caller.
 *
 * A read holds its die for tR, then the channel for the data out; a
 * program holds the die while its data crosses the channel, then for
 * tPROG; an erase holds the die for tBERS. Programs and erases queued
 * for the other planes of a die at the same block and page join the one
 * starting as a multi-plane op (one array time, the data of every plane
 * on the bus). While a program or erase is in its array phase, queued
 * host reads may suspend it (policy permitting): tSUSPEND, the reads,
 * tRESUME, then the remaining array time.
 *
 * Tenants (nand_config.sched): each op also sits in its tenant's queue of
 * its class; the best class with anything queued is still served first,
 * and inside it the scheduler names the tenant whose oldest op goes next,
 * told each waiting tenant's cost (array time); or, for the classes of
 * sched.group_from on, the tenant whose best op there goes next. The
 * channel asks the same among the dies waiting for it (bus time).
 * Without a scheduler nothing of this runs.
 */
#include "engine_internal.h"
#include "blox_util.h"
#include "blox_queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- indexed heap ---- */

static bool heap_less(const struct nand_heap *h, uint32_t a, uint32_t b)
{
	/* Ties by id keep the order of events deterministic. */
	return h->key[a] < h->key[b] || (h->key[a] == h->key[b] && a < b);
}

static void heap_swap(struct nand_heap *h, uint32_t i, uint32_t j)
{
	uint32_t a = h->ids[i], b = h->ids[j];

	h->ids[i] = b;
	h->ids[j] = a;
	h->pos[b] = (int32_t)i;
	h->pos[a] = (int32_t)j;
}

static void heap_up(struct nand_heap *h, uint32_t i)
{
	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!heap_less(h, h->ids[i], h->ids[p]))
			break;
		heap_swap(h, i, p);
		i = p;
	}
}

static void heap_down(struct nand_heap *h, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && heap_less(h, h->ids[l], h->ids[m]))
			m = l;
		if (r < h->n && heap_less(h, h->ids[r], h->ids[m]))
			m = r;
		if (m == i)
			return;
		heap_swap(h, i, m);
		i = m;
	}
}

void nand_heap_set(struct nand_heap *h, uint32_t id, uint64_t key)
{
	int32_t p = h->pos[id];

	h->key[id] = key;
	if (p < 0) {
		h->ids[h->n] = id;
		h->pos[id] = (int32_t)h->n;
		heap_up(h, h->n++);
		return;
	}
	heap_up(h, (uint32_t)p);
	heap_down(h, (uint32_t)h->pos[id]);
}

void nand_heap_del(struct nand_heap *h, uint32_t id)
{
	int32_t p = h->pos[id];

	if (p < 0)
		return;
	h->pos[id] = -1;
	if ((uint32_t)p == --h->n)
		return;
	h->ids[p] = h->ids[h->n];
	h->pos[h->ids[p]] = p;
	heap_up(h, (uint32_t)p);
	heap_down(h, (uint32_t)h->pos[h->ids[p]]);
}

static int heap_init(struct nand_heap *h, uint32_t n)
{
	h->n = 0;
	h->ids = calloc(n, sizeof(*h->ids));
	h->key = calloc(n, sizeof(*h->key));
	h->pos = malloc(n * sizeof(*h->pos));
	if (!h->ids || !h->key || !h->pos)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		h->pos[i] = -1;
	return 0;
}

static void heap_fini(struct nand_heap *h)
{
	free(h->ids);
	free(h->key);
	free(h->pos);
}

/* ---- timing helpers ---- */

static const struct nand_timing *timing(const struct nand_dev *dev)
{
	return &dev->cfg.timing;
}

static uint64_t array_time(const struct nand_dev *dev, const struct nand_op *op)
{
	const struct nand_timing *t = timing(dev);
	uint32_t type = nand_page_type(&dev->cfg.geo, op->addr.page);

	switch (op->kind) {
	case NAND_OP_READ:
		return t->t_read_ns[type];
	case NAND_OP_PROGRAM:
		return t->t_prog_ns[type];
	default:
		return t->t_erase_ns;
	}
}

static uint64_t bus_time(const struct nand_dev *dev, const struct nand_op *op)
{
	const struct nand_timing *t = timing(dev);
	uint64_t bytes = 0;

	/* One command cycle for a multi-plane group, every plane's data. */
	for (; op; op = op->mp_next)
		bytes += (uint64_t)(op->xfer_bytes ? op->xfer_bytes : dev->cfg.geo.page_size) *
			 op->nplanes;
	/* MB/s is bytes per microsecond: ns = bytes * 1000 / MBps, rounded up. */
	return t->t_cmd_ns + (bytes * 1000 + t->bus_mbps - 1) / t->bus_mbps;
}

/* ---- tenants ---- */

/* @d's tenants (kept beside the dies, not in them: a die stays 256 bytes). */
static struct nand_die_tenants *dten(struct nand_dev *dev, const struct nand_die *d)
{
	return &dev->ten_mem[d->idx];
}

static struct nand_opq *tq(struct nand_die_tenants *dt, uint32_t t, uint32_t p)
{
	return &dt->q[t * NAND_PRIOS + p];
}

void nand_tenant_enqueue(struct nand_dev *dev, struct nand_die *d, struct nand_op *op)
{
	struct nand_die_tenants *dt = dten(dev, d);
	struct nand_tenant_stats *ts = &dt->ts[op->tenant];

	TAILQ_INSERT_TAIL(tq(dt, op->tenant, op->prio), op, tlink);
	dt->mask[op->prio] |= 1ull << op->tenant;
	if (++ts->queued > ts->max_queued)
		ts->max_queued = ts->queued;
}

static __attribute__((noinline)) void tenant_dequeue(struct nand_dev *dev, struct nand_die *d,
						    struct nand_op *op)
{
	struct nand_die_tenants *dt = dten(dev, d);
	struct nand_opq *q = tq(dt, op->tenant, op->prio);

	TAILQ_REMOVE(q, op, tlink);
	if (TAILQ_EMPTY(q))
		dt->mask[op->prio] &= ~(1ull << op->tenant);
	dt->ts[op->tenant].queued--;
}

/* @op (not a multi-plane partner) starts on @d: what it costs its tenant. */
static __attribute__((noinline)) void tenant_started(struct nand_dev *dev, struct nand_die *d,
						    const struct nand_op *op)
{
	struct nand_tenant_stats *ts = &dten(dev, d)->ts[op->tenant];

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
static struct nand_op *class_pick(struct nand_dev *dev, struct nand_die *d, uint32_t p)
{
	const struct nand_sched *s = &dev->cfg.sched;
	struct nand_die_tenants *dt = dten(dev, d);
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

			dev->cost[i] = array_time(dev, TAILQ_FIRST(tq(dt, i, q)));
			dev->best[i] = (uint8_t)q;
		}
		all |= dt->mask[q];
	}
	t = s->pick(s->ctx, d->idx, (enum nand_prio)(group ? g : p), dev->cost, dev->ntenants);
	dev->stats.sched_picks++;
	if (picked(dev, t))
		op = TAILQ_FIRST(tq(dt, (uint32_t)t, dev->best[t]));
	for (m = all; m; m &= m - 1)
		dev->cost[__builtin_ctzll(m)] = UINT64_MAX;
	if (!op) {
		dev->stats.sched_fallbacks++;
		op = TAILQ_FIRST(&d->q[p]);
	}
	return op;
}

static uint32_t die_event_id(const struct nand_die *d)
{
	return d->idx;
}

static uint32_t chan_event_id(const struct nand_dev *dev, uint32_t ch)
{
	return dev->nr_dies + ch;
}

static void die_event_at(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	nand_heap_set(&dev->heap, die_event_id(d), t);
}

/* ---- channel ---- */

/*
 * The die to take channel @ch next: of those waiting with an op of the
 * best class (@first's; or of the group, when that class is in it), the
 * first in the queue (best class, then oldest) of the tenant the
 * scheduler names.
 */
static struct nand_die *bus_pick(struct nand_dev *dev, uint32_t ch, struct nand_die *first)
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
			dev->cost[pos->cur->tenant] = bus_time(dev, pos->cur);
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

/* Channel @ch (free) takes @d, waiting for it, at @t. */
static inline __attribute__((always_inline)) void bus_start(struct nand_dev *dev, uint32_t ch,
							     struct nand_die *d, uint64_t t)
{
	struct nand_channel *c = &dev->chans[ch];
	uint64_t xfer;

	TAILQ_REMOVE(&c->waitq, d, bus_link);
	c->st.waiting--;
	c->owner = d;
	xfer = bus_time(dev, d->cur);
	d->phase = d->phase == DIE_WAIT_BUS_IN ? DIE_XFER_IN : DIE_XFER_OUT;
	d->phase_start = t;
	c->st.busy_ns += xfer;
	c->st.transfers++;
	if (dev->ntenants)
		dten(dev, d)->ts[d->cur->tenant].bus_ns += xfer;
	nand_heap_set(&dev->heap, chan_event_id(dev, ch), t + xfer);
}

/* bus_start() the die bus_pick() names (out of line: the common path stays a leaf). */
static __attribute__((noinline)) void bus_start_picked(struct nand_dev *dev, uint32_t ch,
						       struct nand_die *first, uint64_t t)
{
	bus_start(dev, ch, bus_pick(dev, ch, first), t);
}

static void bus_grant(struct nand_dev *dev, uint32_t ch, uint64_t t)
{
	struct nand_channel *c = &dev->chans[ch];
	struct nand_die *d = TAILQ_FIRST(&c->waitq);

	if (c->owner || !d)
		return;
	if (dev->bus_sched) {
		bus_start_picked(dev, ch, d, t);
		return;
	}
	bus_start(dev, ch, d, t);
}

/* Queue @d for its channel, ordered by the priority of its op. */
static void bus_request(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	struct nand_channel *c = &dev->chans[d->ch];
	struct nand_die *pos;

	TAILQ_FOREACH(pos, &c->waitq, bus_link)
		if (pos->cur->prio > d->cur->prio)
			break;
	if (pos)
		TAILQ_INSERT_BEFORE(pos, d, bus_link);
	else
		TAILQ_INSERT_TAIL(&c->waitq, d, bus_link);
	if (++c->st.waiting > c->st.max_waiting)
		c->st.max_waiting = c->st.waiting;
	bus_grant(dev, d->ch, t);
}

/* ---- die ---- */

static void array_start(struct nand_dev *dev, struct nand_die *d, uint64_t len,
			uint64_t t)
{
	d->phase = DIE_ARRAY;
	d->phase_start = t;
	d->array_end = t + len;
	d->suspend_pending = false;
	d->cur->last_resume_ns = t;
	die_event_at(dev, d, d->array_end);
}

static inline __attribute__((always_inline)) void dequeue(struct nand_dev *dev,
							   struct nand_die *d,
							   struct nand_op *op)
{
	TAILQ_REMOVE(&d->q[op->prio], op, link);
	d->nq--;
	d->nq_prio[op->prio]--;
	d->st.queued = d->nq;
	if (dev->ntenants)
		tenant_dequeue(dev, d, op);
}

/* Queued ops looked at for partners, per queue: bounds the cost of a start. */
#define MP_SCAN 32

/* Queued @op may join @lead's group (@have: the planes it covers) now. */
static inline __attribute__((always_inline)) bool
mp_partner(struct nand_dev *dev, const struct nand_op *lead, struct nand_op *op, uint32_t have)
{
	return op->kind == lead->kind && op->nplanes == 1 &&
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
	dequeue(dev, d, op);
	op->start_ns = t;
	op->array_ns = g->lead->array_ns;
	op->mp_next = NULL;
	*g->tail = op;
	g->tail = &op->mp_next;
	g->have |= 1u << op->addr.plane;
	dev->stats.mp_joined++;
	if (dev->ntenants)
		dten(dev, d)->ts[op->tenant].started[op->kind]++;
}

/* With a scheduler: partners from the lead's own queue of class @p. */
static __attribute__((noinline)) void mp_gather_tenant(struct nand_dev *dev, struct nand_die *d,
						       struct mp_group *g, uint32_t p,
						       uint32_t all, uint64_t t)
{
	struct nand_op *op, *tmp;
	uint32_t seen = 0;

	TAILQ_FOREACH_SAFE(op, tq(dten(dev, d), g->lead->tenant, p), tlink, tmp) {
		if (++seen > MP_SCAN || g->have == all)
			break;
		if (mp_partner(dev, g->lead, op, g->have))
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
static void mp_gather(struct nand_dev *dev, struct nand_die *d, struct nand_op *lead,
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
			if (mp_partner(dev, lead, op, g.have))
				mp_join(dev, d, &g, op, t);
		}
	}
	if (lead->mp_next)
		dev->stats.mp_groups[lead->kind]++;
}

/* Complete @op and the ops of its multi-plane group, in order. */
static void group_complete(struct nand_dev *dev, struct nand_op *op, uint64_t t)
{
	while (op) {
		struct nand_op *next = op->mp_next;

		op->mp_next = NULL;
		nand_op_complete(dev, op, t); /* its callback may reuse it */
		op = next;
	}
}

static void op_start(struct nand_dev *dev, struct nand_die *d,
		     struct nand_op *op, uint64_t t)
{
	int rc = nand_op_start_check(dev, op);

	/*
	 * Never before it was submitted: a driver that runs late hands the
	 * engine a die that went idle (at t) before this op came.
	 */
	if (op->submit_ns > t)
		t = op->submit_ns;

	dequeue(dev, d, op);
	op->mp_next = NULL;
	if (rc) {
		op->status = rc;
		op->start_ns = t;
		nand_op_complete(dev, op, t);
		return;
	}
	op->start_ns = t;
	op->array_ns = array_time(dev, op);
	op->remaining_ns = op->array_ns;
	if (dev->ntenants)
		tenant_started(dev, d, op);
	mp_gather(dev, d, op, t);
	d->cur = op;
	if (op->kind == NAND_OP_PROGRAM) {
		d->phase = DIE_WAIT_BUS_IN;
		d->phase_start = t;
		bus_request(dev, d, t);
	} else {
		array_start(dev, d, op->array_ns, t);
	}
}

static struct nand_op *best_queued(struct nand_die *d, enum nand_prio max)
{
	for (int p = 0; p <= (int)max; p++) {
		struct nand_op *op = TAILQ_FIRST(&d->q[p]);

		if (op)
			return op;
	}
	return NULL;
}

/* A host read waits behind the program/erase in its array phase. */
static void consider_suspend(struct nand_dev *dev, struct nand_die *d,
			     uint64_t t)
{
	const struct nand_config *cfg = &dev->cfg;
	struct nand_suspend_stats *ss = &dev->stats.suspend;
	struct nand_op *op = d->cur;
	struct nand_suspend_query q;
	uint64_t at, again = 0;

	if (d->suspend_pending || d->suspended || TAILQ_EMPTY(&d->q[NAND_PRIO_HOST_READ]))
		return;
	if (op->suspends >= cfg->max_suspends_per_op) {
		ss->capped++;
		return;
	}
	q = (struct nand_suspend_query){
		.running = op->kind,
		.running_prio = op->prio,
		.die = d->idx,
		.elapsed_ns = op->array_ns - (d->array_end - t),
		.total_ns = op->array_ns,
		.suspends = op->suspends,
		.waiting = NAND_PRIO_HOST_READ,
		.reads_waiting = d->nq_prio[NAND_PRIO_HOST_READ],
		.now_ns = t,
		.ask_again_ns = &again,
	};
	if (!cfg->policy.should_suspend ||
	    !cfg->policy.should_suspend(cfg->policy.ctx, &q)) {
		ss->declined++;
		/* "Not yet": a die event in the array phase, before its end. */
		if (again > t && again + timing(dev)->t_suspend_ns < d->array_end) {
			ss->asked_again++;
			die_event_at(dev, d, again);
		}
		return;
	}
	/* The mechanism lets an op progress a minimum between suspensions. */
	at = op->last_resume_ns + cfg->min_progress_ns;
	if (at < t)
		at = t;
	if (at + timing(dev)->t_suspend_ns >= d->array_end) {
		ss->capped++;
		return; /* it would finish before the suspension took effect */
	}
	d->suspend_pending = true;
	die_event_at(dev, d, at);
}

static void suspend_now(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	struct nand_op *op = d->cur;
	struct nand_suspend_stats *ss = &dev->stats.suspend;

	d->st.busy_ns[op->kind] += t - d->phase_start;
	op->remaining_ns = d->array_end - t;
	op->suspends++;
	ss->suspends[op->kind]++;
	if (op->kind == NAND_OP_ERASE && !op->timing_only && dev->store) {
		/* Erase suspension stresses the cells: count it on each block. */
		for (const struct nand_op *o = op; o; o = o->mp_next) {
			for (uint32_t p = 0; p < o->nplanes; p++) {
				struct nand_addr a = o->addr;

				if (o->nplanes > 1)
					a.plane = p;
				dev->store->blocks[nand_block_index(&dev->cfg.geo, &a)]
					.erase_suspends++;
			}
		}
		ss->erase_suspend_wear++;
	}
	d->suspended = op;
	d->cur = NULL;
	d->susp_reads = 0;
	d->suspend_pending = false;
	d->suspend_start = t;
	d->phase = DIE_SUSPENDING;
	d->phase_start = t;
	d->st.suspend_overhead_ns += timing(dev)->t_suspend_ns;
	die_event_at(dev, d, t + timing(dev)->t_suspend_ns);
}

void nand_die_kick(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	struct nand_op *op;

	if (d->phase == DIE_ARRAY) {
		if (d->cur->kind != NAND_OP_READ)
			consider_suspend(dev, d, t);
		return;
	}
	if (d->phase != DIE_IDLE)
		return;
	if (d->suspended) {
		/* Inside a suspension: serve host reads, then resume. */
		op = TAILQ_FIRST(&d->q[NAND_PRIO_HOST_READ]);
		if (op && (!dev->cfg.max_reads_per_suspend ||
			   d->susp_reads < dev->cfg.max_reads_per_suspend)) {
			if (dev->die_sched)
				op = class_pick(dev, d, NAND_PRIO_HOST_READ);
			d->susp_reads++;
			dev->stats.suspend.reads_overtaken++;
			op_start(dev, d, op, t);
			return;
		}
		d->phase = DIE_RESUMING;
		d->phase_start = t;
		d->st.suspend_overhead_ns += timing(dev)->t_resume_ns;
		die_event_at(dev, d, t + timing(dev)->t_resume_ns);
		return;
	}
	while (d->phase == DIE_IDLE && (op = best_queued(d, NAND_PRIOS - 1))) {
		if (dev->die_sched)
			op = class_pick(dev, d, op->prio);
		op_start(dev, d, op, t);
	}
}

static void die_event(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	struct nand_op *op = d->cur;

	switch (d->phase) {
	case DIE_ARRAY:
		if (d->suspend_pending && t < d->array_end) {
			suspend_now(dev, d, t);
			return;
		}
		if (t < d->array_end) {
			/* The time a policy asked to be asked again at. */
			die_event_at(dev, d, d->array_end);
			consider_suspend(dev, d, t);
			return;
		}
		d->st.busy_ns[op->kind] += t - d->phase_start;
		if (op->kind == NAND_OP_READ) {
			d->phase = DIE_WAIT_BUS_OUT;
			d->phase_start = t;
			bus_request(dev, d, t);
			return;
		}
		d->cur = NULL;
		d->phase = DIE_IDLE;
		group_complete(dev, op, t);
		nand_die_kick(dev, d, t);
		return;
	case DIE_SUSPENDING:
		d->phase = DIE_IDLE;
		nand_die_kick(dev, d, t);
		return;
	case DIE_RESUMING: {
		struct nand_suspend_stats *ss = &dev->stats.suspend;

		op = d->suspended;
		d->suspended = NULL;
		ss->resumes[op->kind]++;
		ss->suspended_ns += t - d->suspend_start;
		d->cur = op;
		array_start(dev, d, op->remaining_ns, t);
		consider_suspend(dev, d, t);
		return;
	}
	case DIE_IDLE:
		/* An op was queued on an idle die at this time: start it. */
		nand_die_kick(dev, d, t);
		return;
	default:
		return;
	}
}

static void chan_event(struct nand_dev *dev, uint32_t ch, uint64_t t)
{
	struct nand_channel *c = &dev->chans[ch];
	struct nand_die *d = c->owner;
	struct nand_op *op = d->cur;

	c->owner = NULL;
	if (d->phase == DIE_XFER_IN) {
		array_start(dev, d, op->array_ns, t);
		nand_die_kick(dev, d, t); /* a read may already be waiting */
	} else {
		d->cur = NULL;
		d->phase = DIE_IDLE;
		nand_op_complete(dev, op, t);
		nand_die_kick(dev, d, t);
	}
	bus_grant(dev, ch, t);
}

/* ---- device ---- */

uint64_t nand_next_event(const struct nand_dev *dev)
{
	if (!TAILQ_EMPTY(&dev->null_done))
		return TAILQ_FIRST(&dev->null_done)->submit_ns;
	return dev->heap.n ? dev->heap.key[dev->heap.ids[0]] : UINT64_MAX;
}

uint32_t nand_advance(struct nand_dev *dev, uint64_t now)
{
	uint64_t before = dev->stats.completed;
	TAILQ_HEAD(, nand_op) batch = TAILQ_HEAD_INITIALIZER(batch);
	struct nand_op *op;

	dev->now = now;
	/*
	 * Null timing: complete what was queued before this call; ops that
	 * callbacks submit now wait for the next call, so a closed loop at
	 * zero latency cannot spin forever inside one advance.
	 */
	while ((op = TAILQ_FIRST(&dev->null_done)) && op->submit_ns <= now) {
		TAILQ_REMOVE(&dev->null_done, op, link);
		TAILQ_INSERT_TAIL(&batch, op, link);
	}
	while ((op = TAILQ_FIRST(&batch))) {
		TAILQ_REMOVE(&batch, op, link);
		/* The flash rules hold at zero latency too. */
		op->status = nand_op_start_check(dev, op);
		nand_op_complete(dev, op, op->submit_ns);
	}
	while (dev->heap.n) {
		uint32_t id = dev->heap.ids[0];
		uint64_t t = dev->heap.key[id];

		if (t > now)
			break;
		nand_heap_del(&dev->heap, id);
		if (id < dev->nr_dies)
			die_event(dev, &dev->dies[id], t);
		else
			chan_event(dev, id - dev->nr_dies, t);
	}
	return (uint32_t)(dev->stats.completed - before);
}

uint64_t nand_inflight(const struct nand_dev *dev)
{
	return dev->inflight;
}

void nand_config_default(struct nand_config *cfg)
{
	static const struct nand_suspend_default_cfg dflt = { .max_progress = 0.9 };

	memset(cfg, 0, sizeof(*cfg));
	nand_geometry_default(&cfg->geo);
	nand_timing_default(&cfg->timing, cfg->geo.cell);
	nand_suspend_default(&cfg->policy, &dflt);
	cfg->max_suspends_per_op = 8;
	cfg->max_reads_per_suspend = 16;
	cfg->min_progress_ns = 100000; /* 100 us of array time */
	cfg->multiplane = true;
}

int nand_dev_create(const struct nand_config *cfg, struct nand_store *store,
		    struct nand_dev **out)
{
	const struct nand_geometry *g = &cfg->geo;
	struct nand_dev *dev;
	int rc;

	rc = nand_geometry_check(g, NULL);
	if (rc)
		return rc;
	if (!cfg->timing.null_timing && cfg->timing.bus_mbps == 0)
		return -EINVAL;
	if (store && memcmp(&store->geo, g, sizeof(*g)))
		return -EINVAL;
	if (cfg->sched.ntenants > NAND_MAX_TENANTS || cfg->sched.group_from >= NAND_PRIOS ||
	    (!cfg->sched.ntenants && (cfg->sched.pick || cfg->sched.pick_bus)))
		return -EINVAL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->cfg = *cfg;
	dev->store = store;
	dev->nr_dies = nand_dies(g);
	dev->dies = calloc(dev->nr_dies, sizeof(*dev->dies));
	dev->chans = calloc(g->channels, sizeof(*dev->chans));
	dev->erased_page = blox_page_alloc(g->page_size);
	dev->ntenants = (uint16_t)cfg->sched.ntenants;
	dev->die_sched = cfg->sched.pick != NULL;
	dev->bus_sched = cfg->sched.pick_bus != NULL;
	if (dev->ntenants) {
		size_t nt = (size_t)dev->nr_dies * dev->ntenants;

		dev->ten_mem = calloc(dev->nr_dies, sizeof(*dev->ten_mem));
		dev->tq_mem = calloc(nt * NAND_PRIOS, sizeof(*dev->tq_mem));
		dev->ts_mem = calloc(nt, sizeof(*dev->ts_mem));
		dev->cost = malloc(dev->ntenants * sizeof(*dev->cost));
		dev->best = calloc(dev->ntenants, sizeof(*dev->best));
	}
	if (!dev->dies || !dev->chans || !dev->erased_page ||
	    heap_init(&dev->heap, dev->nr_dies + g->channels) ||
	    (dev->ntenants && (!dev->ten_mem || !dev->tq_mem || !dev->ts_mem || !dev->cost ||
				!dev->best))) {
		nand_dev_destroy(dev);
		return -ENOMEM;
	}
	for (uint32_t t = 0; t < dev->ntenants; t++)
		dev->cost[t] = UINT64_MAX;
	memset(dev->erased_page, 0xff, g->page_size);
	for (uint32_t i = 0; i < dev->nr_dies; i++) {
		struct nand_die *d = &dev->dies[i];

		d->idx = i;
		d->ch = i / g->dies_per_channel;
		for (int p = 0; p < NAND_PRIOS; p++)
			TAILQ_INIT(&d->q[p]);
		if (dev->ntenants) {
			struct nand_die_tenants *dt = dten(dev, d);

			dt->q = dev->tq_mem + (size_t)i * dev->ntenants * NAND_PRIOS;
			dt->ts = dev->ts_mem + (size_t)i * dev->ntenants;
			for (uint32_t q = 0; q < dev->ntenants * NAND_PRIOS; q++)
				TAILQ_INIT(&dt->q[q]);
		}
	}
	for (uint32_t c = 0; c < g->channels; c++)
		TAILQ_INIT(&dev->chans[c].waitq);
	TAILQ_INIT(&dev->null_done);
	*out = dev;
	return 0;
}

void nand_dev_destroy(struct nand_dev *dev)
{
	if (!dev)
		return;
	heap_fini(&dev->heap);
	free(dev->ten_mem);
	free(dev->tq_mem);
	free(dev->ts_mem);
	free(dev->cost);
	free(dev->best);
	free(dev->dies);
	free(dev->chans);
	free(dev->erased_page);
	free(dev);
}

const struct nand_config *nand_dev_config(const struct nand_dev *dev)
{
	return &dev->cfg;
}

const struct nand_stats *nand_dev_stats(const struct nand_dev *dev)
{
	return &dev->stats;
}

const struct nand_die_stats *nand_die_stats(const struct nand_dev *dev,
					    uint32_t die)
{
	return die < dev->nr_dies ? &dev->dies[die].st : NULL;
}

const struct nand_channel_stats *nand_channel_stats(const struct nand_dev *dev,
						    uint32_t ch)
{
	return ch < dev->cfg.geo.channels ? &dev->chans[ch].st : NULL;
}

const struct nand_tenant_stats *nand_tenant_stats(const struct nand_dev *dev, uint32_t die,
						  uint32_t tenant)
{
	if (die >= dev->nr_dies || tenant >= dev->ntenants)
		return NULL;
	return &dev->ten_mem[die].ts[tenant];
}

const struct nand_block_meta *nand_block_meta(const struct nand_dev *dev,
					      uint64_t block)
{
	if (!dev->store || block >= nand_blocks(&dev->cfg.geo))
		return NULL;
	return &dev->store->blocks[block];
}
