/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Submission, flash rules, store access and completion of NAND ops, and
 * the built-in suspension policies.
 */
#include "engine_internal.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

static bool block_programmed_at(const struct nand_dev *dev,
				const struct nand_addr *a)
{
	const struct nand_block_meta *m =
		&dev->store->blocks[nand_block_index(&dev->cfg.geo, a)];

	return a->page < m->write_ptr;
}

/* Segments only on a single-plane data read, each inside the page. */
static int segs_check(const struct nand_geometry *g, const struct nand_op *op)
{
	if (!op->segs && !op->nsegs)
		return 0;
	if (!op->segs || op->nsegs == 0 || op->nsegs > NAND_MAX_SEGS ||
	    op->kind != NAND_OP_READ || op->nplanes != 1 || op->timing_only)
		return -EINVAL;
	for (uint32_t i = 0; i < op->nsegs; i++) {
		const struct nand_seg *sg = &op->segs[i];

		if (!sg->dst || sg->len == 0 || (uint64_t)sg->off + sg->len > g->page_size)
			return -EINVAL;
	}
	return 0;
}

/* A bad block fails programs and erases; what it holds stays readable. */
static bool op_block_bad(const struct nand_dev *dev, const struct nand_op *op)
{
	for (uint32_t p = 0; op->kind != NAND_OP_READ && p < op->nplanes; p++) {
		struct nand_addr pa = nand_plane_addr(op, p);

		if (dev->store->blocks[nand_block_index(&dev->cfg.geo, &pa)].flags & NAND_BLOCK_BAD)
			return true;
	}
	return false;
}

int nand_submit(struct nand_dev *dev, struct nand_op *op, uint64_t now)
{
	const struct nand_geometry *g = &dev->cfg.geo;
	struct nand_addr a = op->addr;
	struct nand_die *d;

	if (op->kind >= NAND_OP_KINDS || op->prio >= NAND_PRIOS || !op->cb)
		return -EINVAL;
	if (op->nplanes == 0)
		op->nplanes = 1;
	if (op->nplanes != 1 && op->nplanes != g->planes_per_die)
		return -EINVAL;
	if (op->xfer_bytes > g->page_size)
		return -EINVAL;
	if (dev->ntenants && op->tenant >= dev->ntenants)
		return -EINVAL;
	if (segs_check(g, op))
		return -EINVAL;
	if (op->kind == NAND_OP_ERASE)
		a.page = 0;
	if (op->nplanes > 1)
		a.plane = 0;
	if (!nand_addr_valid(g, &a))
		return -ERANGE;
	if (!op->timing_only) {
		if (!dev->store)
			return -EINVAL;
		if (op_block_bad(dev, op))
			return -EIO;
		/* Programming a page already written breaks the rules now. */
		for (uint32_t p = 0; op->kind == NAND_OP_PROGRAM && p < op->nplanes; p++) {
			struct nand_addr pa = nand_plane_addr(op, p);

			if (block_programmed_at(dev, &pa))
				return -EPERM;
		}
	}
	op->status = 0;
	op->erased = false;
	op->suspends = 0;
	op->retries = 0;
	op->uncorrectable = false;
	op->submit_ns = now;
	op->start_ns = op->done_ns = 0;
	dev->inflight++;
	if (dev->cfg.timing.null_timing) {
		TAILQ_INSERT_TAIL(&dev->null_done, op, link);
		return 0;
	}
	d = &dev->dies[nand_die_index(g, &a)];
	TAILQ_INSERT_TAIL(&d->q[op->prio], op, link);
	d->nq++;
	d->nq_prio[op->prio]++;
	d->st.queued = d->nq;
	if (d->nq > d->st.max_queued)
		d->st.max_queued = d->nq;
	if (dev->ntenants)
		nand_tenant_enqueue(dev, d, op);
	/*
	 * Never start (or fail) inside submit: an idle die starts its next op
	 * from an event at @now, so completions only come from advance().
	 */
	if (d->phase == DIE_IDLE && dev->heap.pos[d->idx] < 0)
		nand_heap_set(&dev->heap, d->idx, now);
	else if (d->phase == DIE_ARRAY && d->cur->kind != NAND_OP_READ)
		nand_die_kick(dev, d, now);
	return 0;
}

int nand_op_start_check(struct nand_dev *dev, struct nand_op *op)
{
	if (op->timing_only || op->kind != NAND_OP_PROGRAM)
		return 0;
	if (op_block_bad(dev, op))
		return -EIO; /* it went bad while this program was queued */
	/* Pages of a block are programmed in order, each once. */
	for (uint32_t p = 0; p < op->nplanes; p++) {
		struct nand_addr a = nand_plane_addr(op, p);
		const struct nand_block_meta *m =
			&dev->store->blocks[nand_block_index(&dev->cfg.geo, &a)];

		if (a.page != m->write_ptr)
			return -EPERM;
	}
	return 0;
}

static int store_access(struct nand_dev *dev, struct nand_op *op)
{
	const struct nand_geometry *g = &dev->cfg.geo;
	struct nand_store *s = dev->store;
	uint32_t die = nand_die_index(g, &op->addr);
	int rc = 0;

	for (uint32_t p = 0; p < op->nplanes && !rc; p++) {
		struct nand_addr a = nand_plane_addr(op, p);
		uint64_t blk = nand_block_index(g, &a);
		struct nand_block_meta *m = &s->blocks[blk];
		uint8_t *data = op->data ? (uint8_t *)op->data + (size_t)p * g->page_size
					 : NULL;
		uint8_t *oob = op->oob ? (uint8_t *)op->oob + (size_t)p * g->oob_size
				       : NULL;
		uint64_t pg;

		switch (op->kind) {
		case NAND_OP_READ:
			op->lent = NULL;
			s->dies[die].reads++;
			if (a.page >= m->write_ptr) {
				op->erased = true;
				if (data)
					memset(data, 0xff, g->page_size);
				if (oob)
					memset(oob, 0xff, g->oob_size);
				for (uint32_t i = 0; i < op->nsegs; i++)
					memset(op->segs[i].dst, 0xff, op->segs[i].len);
				break;
			}
			pg = blk * g->pages_per_block + a.page;
			if (nand_lend(dev, op, pg, blk))
				break; /* its one segment lent where it lies (lend.c) */
			/* With segments, the whole page is read only if asked for. */
			if (!op->nsegs || data || oob)
				rc = s->ops->read(s, pg, data, oob);
			for (uint32_t i = 0; i < op->nsegs && !rc; i++)
				rc = s->ops->read_part(s, pg, op->segs[i].off, op->segs[i].len,
						       op->segs[i].dst);
			break;
		case NAND_OP_PROGRAM:
			/* The store advances the block's write pointer. */
			rc = s->ops->program(s, blk * g->pages_per_block + a.page, data,
					     oob);
			if (!rc)
				s->dies[die].programs++;
			break;
		case NAND_OP_ERASE:
			rc = s->ops->erase(s, blk);
			if (!rc)
				s->dies[die].erases++;
			break;
		default:
			rc = -EINVAL;
		}
	}
	return rc;
}

void nand_op_complete(struct nand_dev *dev, struct nand_op *op, uint64_t t)
{
	uint32_t die = nand_die_index(&dev->cfg.geo, &op->addr);

	op->done_ns = t;
	if (!op->start_ns)
		op->start_ns = op->submit_ns;
	dev->inflight--;
	dev->stats.completed++;
	blox_hist_add(&dev->stats.latency[op->kind], t - op->submit_ns);
	blox_hist_add(&dev->stats.lateness, dev->now > t ? dev->now - t : 0);
	dev->dies[die].st.ops[op->kind]++;
	if (op->uncorrectable && !op->status)
		op->status = -EIO; /* nothing to hand over */
	if (!op->status && !op->timing_only && op->kind == NAND_OP_READ && dev->store &&
	    nand_fault_read_fails(dev, op))
		op->status = -EIO; /* a failed die: nothing to hand over, the page as it was */
	if (!op->status && !op->timing_only && dev->store && op_block_bad(dev, op))
		op->status = -EIO; /* its block went bad while it was queued */
	if (!op->status && !op->timing_only && op->kind == NAND_OP_ERASE && dev->store &&
	    ((dev->rel && nand_rel_erase_fails(dev, op)) || nand_fault_erase_fails(dev, op)))
		op->status = -EIO; /* the block is bad now: its pages stay as they were */
	if (!op->status && !op->timing_only && op->kind == NAND_OP_PROGRAM && dev->store &&
	    nand_program_fails(dev, op))
		op->status = -EIO; /* not programmed; the block is bad now */
	if (!op->status && !op->timing_only)
		op->status = store_access(dev, op);
	if (dev->rel && !op->timing_only && (!op->status || op->uncorrectable))
		nand_rel_complete(dev, op, t);
	if (op->lent && op->status) {
		nand_unpin(op->lent_tab, op->lent_block); /* nothing to hand over */
		op->lent = NULL;
	}
	op->cb(op);
}

/* ---- suspension policies ---- */

static bool never_cb(void *ctx, const struct nand_suspend_query *q)
{
	(void)ctx;
	(void)q;
	return false;
}

static bool always_cb(void *ctx, const struct nand_suspend_query *q)
{
	(void)ctx;
	(void)q;
	return true;
}

static bool default_cb(void *ctx, const struct nand_suspend_query *q)
{
	const struct nand_suspend_default_cfg *cfg = ctx;

	if (q->waiting != NAND_PRIO_HOST_READ || q->total_ns == 0)
		return false;
	return (double)q->elapsed_ns <= cfg->max_progress * (double)q->total_ns;
}

const struct nand_suspend_policy nand_suspend_never = { "never", never_cb, NULL };
const struct nand_suspend_policy nand_suspend_always = { "always", always_cb, NULL };

void nand_suspend_default(struct nand_suspend_policy *p,
			  const struct nand_suspend_default_cfg *cfg)
{
	p->name = "default";
	p->should_suspend = default_cb;
	p->ctx = (void *)(uintptr_t)cfg; /* only ever read */
}
