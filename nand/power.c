/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Power loss of a device: every op in flight is dropped and never
 * completes. What a program in its array phase (running, or suspended) had
 * put in the cells is torn when asked: the page counts as programmed, half
 * its data there and the rest erased, its OOB erased (it decodes as no
 * one's). An erase cut short leaves its block as it was. Ops whose data
 * had not reached the die leave nothing.
 */
#include "engine_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Program @op's page torn: half its data, the rest and its OOB erased. */
static int tear(struct nand_dev *dev, const struct nand_op *op, uint8_t *page, uint8_t *oob)
{
	const struct nand_geometry *g = &dev->cfg.geo;

	for (const struct nand_op *o = op; o; o = o->mp_next) {
		for (uint32_t p = 0; p < o->nplanes; p++) {
			struct nand_addr a = nand_plane_addr(o, p);
			const uint8_t *src = o->data ? (const uint8_t *)o->data + (size_t)p * g->page_size
						     : NULL;
			int rc;

			if (o->timing_only || !src)
				continue;
			if (dev->store->blocks[nand_block_index(g, &a)].write_ptr != a.page)
				continue; /* not the block's next page: it never started */
			memset(page, 0xff, g->page_size);
			memcpy(page, src, g->page_size / 2);
			memset(oob, 0xff, g->oob_size);
			rc = dev->store->ops->program(dev->store, nand_page_index(g, &a), page, oob);
			if (rc)
				return rc;
		}
	}
	return 0;
}

static bool in_array(const struct nand_die *d, const struct nand_op *op)
{
	return op && op->kind == NAND_OP_PROGRAM &&
	       (op == d->suspended || (op == d->cur && d->phase == DIE_ARRAY));
}

int nand_power_cut(struct nand_dev *dev, bool torn, struct nand_power_cut_stats *out)
{
	struct nand_power_cut_stats st = { .dropped = dev->inflight };
	uint8_t *page = NULL, *oob = NULL;
	int rc = 0;

	if (torn && dev->store) {
		page = malloc(dev->cfg.geo.page_size);
		oob = malloc(dev->cfg.geo.oob_size);
		if (!page || !oob) {
			free(page);
			free(oob);
			return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < dev->nr_dies; i++) {
		struct nand_die *d = &dev->dies[i];
		const struct nand_op *arr[2] = { d->cur, d->suspended };

		for (int k = 0; k < 2 && page; k++) {
			if (!in_array(d, arr[k]))
				continue;
			if (!rc)
				rc = tear(dev, arr[k], page, oob);
			st.torn++;
		}
		for (uint32_t p = 0; p < NAND_PRIOS; p++) {
			TAILQ_INIT(&d->q[p]);
			d->nq_prio[p] = 0;
		}
		d->nq = 0;
		d->st.queued = 0;
		d->cur = d->suspended = NULL;
		d->phase = DIE_IDLE;
		d->suspend_pending = false;
		d->susp_reads = 0;
		nand_heap_del(&dev->heap, nand_die_event_id(d));
		if (dev->ntenants) {
			struct nand_die_tenants *dt = nand_dten(dev, d);

			for (uint32_t p = 0; p < NAND_PRIOS; p++) {
				dt->mask[p] = 0;
				for (uint32_t t = 0; t < dev->ntenants; t++)
					TAILQ_INIT(nand_tq(dt, t, p));
			}
			for (uint32_t t = 0; t < dev->ntenants; t++)
				dt->ts[t].queued = 0;
		}
	}
	for (uint32_t c = 0; c < dev->cfg.geo.channels; c++) {
		dev->chans[c].owner = NULL;
		TAILQ_INIT(&dev->chans[c].waitq);
		dev->chans[c].st.waiting = 0;
		nand_heap_del(&dev->heap, nand_chan_event_id(dev, c));
	}
	TAILQ_INIT(&dev->null_done);
	nand_ghosts_free(dev);
	dev->inflight = 0;
	dev->plp_flush = false; /* power comes back without the flush's urgency */
	free(page);
	free(oob);
	if (out)
		*out = st;
	return rc;
}

void nand_ghosts_free(struct nand_dev *dev)
{
	struct nand_op *g;

	while ((g = TAILQ_FIRST(&dev->ghosts))) {
		TAILQ_REMOVE(&dev->ghosts, g, tlink);
		free(g);
	}
}

static void ghost_done(struct nand_op *op)
{
	struct nand_dev *dev = op->cb_arg;

	TAILQ_REMOVE(&dev->ghosts, op, tlink);
	free(op);
}

static bool cut_running(const struct nand_op *op, uint32_t tenant)
{
	return op && op->tenant == tenant && !(op->timing_only && op->cb == ghost_done);
}

/*
 * @op (and its multi-plane partners) ran on a die for a tenant whose
 * power is gone: a timing-only copy of each, taken from @pool, takes its
 * place, owned by the engine, so the die and its channel stay busy for as
 * long as they would have been and nothing of it reaches the store or the
 * tenant's memory.
 */
static struct nand_op *ghost_of(struct nand_dev *dev, const struct nand_op *op,
				struct nand_op **pool, uint64_t *used)
{
	struct nand_op *head = NULL, **tail = &head;

	for (const struct nand_op *o = op; o; o = o->mp_next) {
		struct nand_op *g = pool[(*used)++];

		*g = *o;
		g->data = g->oob = NULL;
		g->segs = NULL;
		g->nsegs = 0;
		g->timing_only = true;
		g->cb = ghost_done;
		g->cb_arg = dev;
		g->mp_next = NULL;
		TAILQ_INSERT_TAIL(&dev->ghosts, g, tlink);
		*tail = g;
		tail = &g->mp_next;
	}
	return head;
}

static uint64_t group_len(const struct nand_op *op)
{
	uint64_t n = 0;

	for (; op; op = op->mp_next)
		n++;
	return n;
}

int nand_power_cut_tenant(struct nand_dev *dev, uint32_t tenant, bool torn,
			  struct nand_power_cut_stats *out)
{
	struct nand_power_cut_stats st = { 0 };
	uint8_t *page = NULL, *oob = NULL;
	struct nand_op *op, *next, **pool = NULL;
	uint64_t need = 0, used = 0;
	bool nomem;
	int rc = 0;

	if (!dev->ntenants || tenant >= dev->ntenants)
		return -EINVAL;
	/* Everything the cut needs first: it either happens whole or not at all. */
	for (uint32_t i = 0; i < dev->nr_dies; i++) {
		if (cut_running(dev->dies[i].cur, tenant))
			need += group_len(dev->dies[i].cur);
		if (cut_running(dev->dies[i].suspended, tenant))
			need += group_len(dev->dies[i].suspended);
	}
	pool = calloc(need ? need : 1, sizeof(*pool));
	nomem = !pool;
	for (uint64_t i = 0; i < need && !nomem; i++)
		nomem = !(pool[i] = malloc(sizeof(**pool)));
	if (torn && dev->store && !nomem) {
		page = malloc(dev->cfg.geo.page_size);
		oob = malloc(dev->cfg.geo.oob_size);
		nomem = !page || !oob;
	}
	if (nomem) {
		for (uint64_t i = 0; pool && i < need; i++)
			free(pool[i]);
		free(pool);
		free(page);
		free(oob);
		return -ENOMEM;
	}
	for (op = TAILQ_FIRST(&dev->null_done); op; op = next) {
		next = TAILQ_NEXT(op, link);
		if (op->tenant != tenant)
			continue;
		TAILQ_REMOVE(&dev->null_done, op, link);
		dev->inflight--;
		st.dropped++;
	}
	for (uint32_t i = 0; i < dev->nr_dies; i++) {
		struct nand_die *d = &dev->dies[i];
		struct nand_op **arr[2] = { &d->cur, &d->suspended };

		/* Queued ops: gone, as if never submitted. */
		for (uint32_t p = 0; p < NAND_PRIOS; p++) {
			for (op = TAILQ_FIRST(&d->q[p]); op; op = next) {
				next = TAILQ_NEXT(op, link);
				if (op->tenant != tenant)
					continue;
				nand_dequeue(dev, d, op);
				dev->inflight--;
				st.dropped++;
			}
		}
		/* Running (or suspended) ones: torn if in the array, then ghosts. */
		for (int k = 0; k < 2; k++) {
			if (!cut_running(*arr[k], tenant))
				continue;
			if (page && in_array(d, *arr[k])) {
				if (!rc)
					rc = tear(dev, *arr[k], page, oob);
				st.torn++;
			}
			st.dropped += group_len(*arr[k]);
			*arr[k] = ghost_of(dev, *arr[k], pool, &used);
		}
	}
	free(pool);
	free(page);
	free(oob);
	if (out)
		*out = st;
	return rc;
}
