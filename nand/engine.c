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

/* ---- device ---- */

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
	nand_reliability_default(&cfg->rel, cfg->geo.cell);
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
	if (nand_reliability_check(&cfg->rel, g) || cfg->factory_bad_ppm > NAND_FACTORY_BAD_PPM_MAX)
		return -EINVAL;
	if (cfg->sched.ntenants > NAND_MAX_TENANTS || cfg->sched.group_from >= NAND_PRIOS ||
	    (!cfg->sched.ntenants && (cfg->sched.pick || cfg->sched.pick_bus)))
		return -EINVAL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	TAILQ_INIT(&dev->ghosts);
	dev->cfg = *cfg;
	dev->store = store;
	dev->nr_dies = nand_dies(g);
	dev->dies = calloc(dev->nr_dies, sizeof(*dev->dies));
	dev->chans = calloc(g->channels, sizeof(*dev->chans));
	dev->erased_page = blox_page_alloc(g->page_size);
	dev->fail_programs = calloc(dev->nr_dies, sizeof(*dev->fail_programs));
	dev->offline = calloc(dev->nr_dies, sizeof(*dev->offline));
	dev->offline_fault = calloc(dev->nr_dies, sizeof(*dev->offline_fault));
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
	if (!dev->dies || !dev->chans || !dev->erased_page || !dev->fail_programs || !dev->offline ||
	    !dev->offline_fault ||
	    heap_init(&dev->heap, dev->nr_dies + g->channels) ||
	    (dev->ntenants && (!dev->ten_mem || !dev->tq_mem || !dev->ts_mem || !dev->cost ||
				!dev->best)) ||
	    nand_rel_init(dev) || nand_factory_mark(dev) || nand_lend_init(dev)) {
		nand_dev_destroy(dev);
		return -ENOMEM;
	}
	for (uint32_t t = 0; t < dev->ntenants; t++)
		dev->cost[t] = UINT64_MAX;
	nand_offline_load(dev);
	memset(dev->erased_page, 0xff, g->page_size);
	for (uint32_t i = 0; i < dev->nr_dies; i++) {
		struct nand_die *d = &dev->dies[i];

		d->idx = i;
		d->ch = i / g->dies_per_channel;
		for (int p = 0; p < NAND_PRIOS; p++)
			TAILQ_INIT(&d->q[p]);
		if (dev->ntenants) {
			struct nand_die_tenants *dt = nand_dten(dev, d);

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

static void dev_destroy(struct nand_dev *dev, struct nand_store *close)
{
	nand_lend_fini(dev, close);
	nand_ghosts_free(dev);
	heap_fini(&dev->heap);
	nand_rel_fini(dev);
	free(dev->ten_mem);
	free(dev->tq_mem);
	free(dev->ts_mem);
	free(dev->cost);
	free(dev->best);
	free(dev->dies);
	free(dev->fail_programs);
	free(dev->offline);
	free(dev->offline_fault);
	free(dev->chans);
	free(dev->erased_page);
	free(dev);
}

void nand_dev_destroy(struct nand_dev *dev)
{
	if (dev)
		dev_destroy(dev, NULL);
}

void nand_dev_destroy_store(struct nand_dev *dev, struct nand_store *store)
{
	if (dev)
		dev_destroy(dev, store);
	else
		nand_store_close(store);
}

const struct nand_config *nand_dev_config(const struct nand_dev *dev)
{
	return &dev->cfg;
}

const struct nand_stats *nand_dev_stats(const struct nand_dev *dev)
{
	return &dev->stats;
}

void nand_note_wakeup(struct nand_dev *dev, uint64_t late_ns, bool past_event,
		      uint64_t window_ns)
{
	blox_hist_add(&dev->stats.rt.wakeup_late, late_ns);
	if (past_event)
		dev->stats.rt.wakeups_past_event++;
	dev->stats.rt.window_ns = window_ns;
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
