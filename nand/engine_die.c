/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NAND engine's die and channel state machines: an op's life from its
 * start on its die (array phase, the bus in or out) to its completion and that
 * of its multi-plane group, the events that move them on, and nand_advance().
 */
#include "engine_internal.h"
#include "blox_queue.h"

#include <errno.h>

/* ---- channel ---- */

/* Channel @ch (free) takes @d, waiting for it, at @t. */
static inline __attribute__((always_inline)) void bus_start(struct nand_dev *dev, uint32_t ch,
							     struct nand_die *d, uint64_t t)
{
	struct nand_channel *c = &dev->chans[ch];
	uint64_t xfer;

	TAILQ_REMOVE(&c->waitq, d, bus_link);
	c->st.waiting--;
	c->owner = d;
	xfer = nand_bus_time(dev, d->cur);
	d->phase = d->phase == DIE_WAIT_BUS_IN ? DIE_XFER_IN : DIE_XFER_OUT;
	d->phase_start = t;
	c->st.busy_ns += xfer;
	c->st.transfers++;
	if (dev->ntenants)
		nand_dten(dev, d)->ts[d->cur->tenant].bus_ns += xfer;
	nand_heap_set(&dev->heap, nand_chan_event_id(dev, ch), t + xfer);
}

/* bus_start() the die nand_bus_pick() names (out of line: the common path stays a leaf). */
static __attribute__((noinline)) void bus_start_picked(struct nand_dev *dev, uint32_t ch,
						       struct nand_die *first, uint64_t t)
{
	bus_start(dev, ch, nand_bus_pick(dev, ch, first), t);
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
	nand_die_event_at(dev, d, d->array_end);
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
	/* A die that is gone does nothing: the op fails as it starts. */
	int rc = nand_op_die_offline(dev, op) ? -ENODEV : nand_op_start_check(dev, op);

	/*
	 * Never before it was submitted: a driver that runs late hands the
	 * engine a die that went idle (at t) before this op came.
	 */
	if (op->submit_ns > t)
		t = op->submit_ns;

	nand_dequeue(dev, d, op);
	op->mp_next = NULL;
	if (rc) {
		op->status = rc;
		op->start_ns = t;
		nand_op_complete(dev, op, t);
		return;
	}
	op->start_ns = t;
	op->array_ns = nand_array_time(dev, op);
	if (dev->rel && op->kind == NAND_OP_READ)
		op->array_ns += nand_rel_read_start(dev, op, t);
	op->remaining_ns = op->array_ns;
	if (dev->ntenants)
		nand_tenant_started(dev, d, op);
	nand_mp_gather(dev, d, op, t);
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

void nand_die_kick(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	struct nand_op *op;

	if (d->phase == DIE_ARRAY) {
		if (d->cur->kind != NAND_OP_READ)
			nand_consider_suspend(dev, d, t);
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
				op = nand_class_pick(dev, d, NAND_PRIO_HOST_READ);
			d->susp_reads++;
			dev->stats.suspend.reads_overtaken++;
			op_start(dev, d, op, t);
			return;
		}
		/* The power-loss flush: the die's programs, in an erase's suspension. */
		while (dev->plp_flush && d->suspended && d->suspended->kind == NAND_OP_ERASE &&
		       ((op = TAILQ_FIRST(&d->q[NAND_PRIO_HOST_WRITE])) ||
			(op = TAILQ_FIRST(&d->q[NAND_PRIO_GC_WRITE])))) {
			dev->stats.suspend.plp_programs++;
			op_start(dev, d, op, t);
			if (d->phase != DIE_IDLE)
				return; /* else it failed at its start: the next one */
		}
		if (d->phase != DIE_IDLE || !d->suspended)
			return;
		d->phase = DIE_RESUMING;
		d->phase_start = t;
		d->st.suspend_overhead_ns += nand_dev_timing(dev)->t_resume_ns;
		nand_die_event_at(dev, d, t + nand_dev_timing(dev)->t_resume_ns);
		return;
	}
	while (d->phase == DIE_IDLE && (op = best_queued(d, NAND_PRIOS - 1))) {
		if (dev->die_sched)
			op = nand_class_pick(dev, d, op->prio);
		op_start(dev, d, op, t);
	}
}

static void die_event(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	struct nand_op *op = d->cur;

	switch (d->phase) {
	case DIE_ARRAY:
		if (d->suspend_pending && t < d->array_end) {
			nand_suspend_now(dev, d, t);
			return;
		}
		if (t < d->array_end) {
			/* The time a policy asked to be asked again at. */
			nand_die_event_at(dev, d, d->array_end);
			nand_consider_suspend(dev, d, t);
			return;
		}
		if (op->kind == NAND_OP_ERASE && nand_erase_pinned(dev, op)) {
			/* A read of the block is still lent (lend.c): the erase waits for it. */
			dev->stats.erases_held++;
			d->array_end = t + NAND_PIN_RECHECK_NS;
			nand_die_event_at(dev, d, d->array_end);
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
		nand_consider_suspend(dev, d, t);
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
