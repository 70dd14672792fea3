/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NAND devices: a store, an engine and its real-time driver, and for a
 * registered device the fair sharing of its dies among its namespaces'
 * tenants; their registry; what the resource manager asks of a device's
 * flash. A device at a home (another reactor) is made, asked and freed
 * there (bdev.h, "Homes"): every call below from the core runs there.
 */
#include "bdev_ftl.h"
#include "bdev_hop.h"
#include "blox_util.h"
#include "nand_rt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Store and device, without a driver: touches no loop. */
static int fair_pick(void *ctx, uint32_t die, enum nand_prio cls, const uint64_t *cost_ns,
		     uint32_t n)
{
	struct blox_nand_dev *d = ctx;

	return qos_drr_pick(&d->drr[die * NAND_PRIOS + cls], cost_ns, n);
}

static int fair_pick_bus(void *ctx, uint32_t ch, enum nand_prio cls, const uint64_t *cost_ns,
			 uint32_t n)
{
	struct blox_nand_dev *d = ctx;

	return qos_drr_pick(&d->drr_bus[ch * NAND_PRIOS + cls], cost_ns, n);
}

/* One deficit round robin per die and class, and per channel and class. */
static int fair_init(struct blox_nand_dev *d, const struct nand_geometry *g)
{
	d->ndies = nand_dies(g);
	d->nch = g->channels;
	d->drr = calloc((size_t)d->ndies * NAND_PRIOS, sizeof(*d->drr));
	d->drr_bus = calloc((size_t)d->nch * NAND_PRIOS, sizeof(*d->drr_bus));
	if (!d->drr || !d->drr_bus)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->ndies * NAND_PRIOS; i++)
		qos_drr_init(&d->drr[i]);
	for (uint32_t i = 0; i < d->nch * NAND_PRIOS; i++)
		qos_drr_init(&d->drr_bus[i]);
	return 0;
}

/* Store and device, without a driver: touches no loop. @shared: tenants share it by weight. */
int nand_dev_open_unbound(const char *name, const struct nand_config *nand,
			  const char *store_path, bool shared, struct blox_nand_dev **out)
{
	struct blox_nand_dev *d = calloc(1, sizeof(*d));
	int rc;

	if (!d)
		return -ENOMEM;
	if (shared && fair_init(d, &nand->geo)) {
		free(d->drr);
		free(d->drr_bus);
		free(d);
		return -ENOMEM;
	}
	d->refs = 1;
	snprintf(d->name, sizeof(d->name), "%s", name ? name : "");
	rc = store_path ? nand_store_file_open(store_path, &nand->geo, &d->store)
			: nand_store_ram_open(&nand->geo, &d->store);
	if (!rc && nand->huge_pages)
		(void)nand_store_file_huge_pages(d->store);
	if (!rc) {
		struct nand_config cfg = *nand;

		/* "smart": qos/'s policy, told of this device's host load and GC levels. */
		if (cfg.policy.name && !strcmp(cfg.policy.name, "smart") &&
		    !cfg.policy.should_suspend) {
			qos_suspend_cfg_default(&d->susp.cfg);
			d->susp.in = &d->susp_in;
			qos_suspend_policy(&cfg.policy, &d->susp);
			d->smart = true;
		}
		if (d->drr)
			/*
			 * Host reads stay first; GC, host writes and erases are
			 * shared by weight as one group (with every class strict,
			 * one tenant's host writes would always pass another's GC
			 * and weights could not hold once GC runs).
			 */
			cfg.sched = (struct nand_sched){ .name = "drr",
							 .ntenants = QOS_MAX_TENANTS,
							 .group_from = NAND_PRIO_GC_READ,
							 .pick = fair_pick,
							 .pick_bus = fair_pick_bus,
							 .ctx = d };
		rc = nand_dev_create(&cfg, d->store, &d->dev);
	}
	if (rc) {
		blox_nand_dev_put(d);
		return rc;
	}
	*out = d;
	return 0;
}

int blox_nand_dev_open(const char *name, const struct nand_config *nand,
		       const char *store_path, struct event_base *base,
		       const struct blox_clock *clock, struct blox_nand_dev **out)
{
	struct blox_nand_dev *d;
	/* Namespaces share this device: its dies and channels go to them by weight. */
	int rc = nand_dev_open_unbound(name, nand, store_path, true, &d);

	if (rc)
		return rc;
	rc = nand_rt_create(base, clock, d->dev, NAND_RT_SPIN_NS, &d->rt);
	if (rc) {
		blox_nand_dev_put(d);
		return rc;
	}
	*out = d;
	return 0;
}

struct dev_open {
	const char *name;
	const struct nand_config *nand;
	const char *store_path;
	struct event_base *base;
	const struct blox_clock *clock;
	struct blox_nand_dev *d;
	int rc;
};

static void dev_open_fn(void *arg)
{
	struct dev_open *o = arg;

	o->rc = blox_nand_dev_open(o->name, o->nand, o->store_path, o->base, o->clock, &o->d);
}

int blox_nand_dev_open_home(const char *name, const struct nand_config *nand,
			    const char *store_path, struct blox_bdev_home *home,
			    struct event_base *base, const struct blox_clock *clock,
			    struct blox_nand_dev **out)
{
	struct dev_open o = { name, nand, store_path, home ? bdev_home_base(home) : base, clock };

	blox_bdev_home_call(home, dev_open_fn, &o);
	if (o.rc)
		return o.rc;
	o.d->home = home;
	*out = o.d;
	return 0;
}

struct blox_bdev_home *blox_nand_dev_home(const struct blox_nand_dev *d)
{
	return d->home;
}

void blox_nand_dev_get(struct blox_nand_dev *d)
{
	d->refs++;
}

const char *blox_nand_dev_name(const struct blox_nand_dev *d)
{
	return d->name;
}

/* A call on a device at its home: what it is about and what it gives back. */
struct dev_call {
	const struct blox_nand_dev *d;
	uint32_t a, b, c, nr;
	const uint32_t *dies;
	void *out;
	uint64_t u64;
	int rc;
};

static void dev_call(const struct blox_nand_dev *d, void (*fn)(void *arg), struct dev_call *c)
{
	c->d = d;
	blox_bdev_home_call(d->home, fn, c);
}

static uint64_t mem_bytes_here(const struct blox_nand_dev *d)
{
	const struct nand_geometry *g = &d->store->geo;

	if (strcmp(d->store->ops->name, "ram"))
		return 0;
	return d->store->pages_stored * ((uint64_t)g->page_size + g->oob_size);
}

static void mem_bytes_fn(void *arg)
{
	struct dev_call *c = arg;

	c->u64 = mem_bytes_here(c->d);
}

uint64_t blox_nand_dev_mem_bytes(const struct blox_nand_dev *d)
{
	struct dev_call c = { 0 };

	dev_call(d, mem_bytes_fn, &c);
	return c.u64;
}

uint32_t blox_nand_dev_refs(const struct blox_nand_dev *d)
{
	return d->refs;
}

void blox_dev_registry_init(struct blox_dev_registry *r)
{
	TAILQ_INIT(&r->devs);
}

void blox_dev_registry_fini(struct blox_dev_registry *r)
{
	struct blox_nand_dev *d;

	while ((d = TAILQ_FIRST(&r->devs)))
		blox_dev_unregister(r, d);
}

int blox_dev_register(struct blox_dev_registry *r, struct blox_nand_dev *d)
{
	if (d->registered || !d->name[0])
		return -EINVAL;
	if (blox_dev_find(r, d->name))
		return -EEXIST;
	blox_nand_dev_get(d);
	d->registered = true;
	TAILQ_INSERT_TAIL(&r->devs, d, link);
	return 0;
}

void blox_dev_unregister(struct blox_dev_registry *r, struct blox_nand_dev *d)
{
	TAILQ_REMOVE(&r->devs, d, link);
	d->registered = false;
	blox_nand_dev_put(d);
}

struct blox_nand_dev *blox_dev_find(const struct blox_dev_registry *r, const char *name)
{
	struct blox_nand_dev *d;

	TAILQ_FOREACH(d, &r->devs, link)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

static void dev_free(void *arg)
{
	struct blox_nand_dev *d = arg;

	nand_rt_destroy(d->rt);
	/* The store stays open while a read it lent is still on its way to a host. */
	nand_dev_destroy_store(d->dev, d->store);
	free(d->drr);
	free(d->drr_bus);
	free(d);
}

/* The last reference (from the core, or at its home from a namespace going there) frees it there. */
void blox_nand_dev_put(struct blox_nand_dev *d)
{
	if (!d || --d->refs)
		return;
	blox_bdev_home_call(d->home, dev_free, d);
}

static void set_weight_fn(void *arg)
{
	struct dev_call *c = arg;
	struct blox_nand_dev *d = (struct blox_nand_dev *)c->d;

	for (uint32_t i = 0; i < d->ndies * NAND_PRIOS; i++)
		qos_drr_set_weight(&d->drr[i], c->a, c->b);
	for (uint32_t i = 0; i < d->nch * NAND_PRIOS; i++)
		qos_drr_set_weight(&d->drr_bus[i], c->a, c->b);
}

int blox_nand_dev_set_weight(struct blox_nand_dev *d, uint32_t tenant, uint32_t weight)
{
	struct dev_call c = { .a = tenant, .b = weight };

	if (!d->drr)
		return -EOPNOTSUPP;
	if (tenant >= QOS_MAX_TENANTS || weight < 1 || weight > 1000)
		return -EINVAL;
	dev_call(d, set_weight_fn, &c);
	return 0;
}

static void tenant_ns_fn(void *arg)
{
	struct dev_call *c = arg;

	for (uint32_t die = 0; die < c->d->ndies; die++) {
		const struct nand_tenant_stats *t = nand_tenant_stats(c->d->dev, die, c->a);

		for (int k = 0; t && k < NAND_OP_KINDS; k++)
			c->u64 += t->served_ns[k];
	}
}

uint64_t blox_nand_dev_tenant_ns(const struct blox_nand_dev *d, uint32_t tenant)
{
	struct dev_call c = { .a = tenant };

	if (!d->drr || tenant >= QOS_MAX_TENANTS)
		return 0;
	dev_call(d, tenant_ns_fn, &c);
	return c.u64;
}


/* ---- A device's flash, for the resource manager above ---- */

const struct nand_config *blox_nand_dev_nand_config(const struct blox_nand_dev *d)
{
	return nand_dev_config(d->dev);
}

void blox_nand_dev_set_faults(struct blox_nand_dev *d, struct blox_fault_reg *reg)
{
	nand_dev_set_faults(d->dev, reg, d->name);
}

static void offline_check_fn(void *arg)
{
	struct blox_nand_dev *d = arg;
	uint32_t n = nand_dies(&nand_dev_config(d->dev)->geo);

	for (uint32_t die = 0; die < n; die++)
		(void)nand_die_offline(d->dev, die); /* a die whose fault was cleared comes back */
}

void blox_nand_dev_offline_check(struct blox_nand_dev *d)
{
	blox_bdev_home_call(d->home, offline_check_fn, d);
}

static int erase_here(struct blox_nand_dev *d, const uint32_t *dies, uint32_t nr,
		      uint32_t first_block, uint32_t nr_blocks)
{
	const struct nand_geometry *g = &nand_dev_config(d->dev)->geo;
	bool erased = false;
	int rc;

	if (!d->store)
		return 0;
	for (uint32_t i = 0; i < nr; i++) {
		if (dies[i] >= nand_dies(g) || first_block + nr_blocks > g->blocks_per_plane)
			return -EINVAL;
		for (uint32_t pl = 0; pl < g->planes_per_die; pl++)
			for (uint32_t b = first_block; b < first_block + nr_blocks; b++) {
				struct nand_addr a = { .ch = dies[i] / g->dies_per_channel,
						       .die = dies[i] % g->dies_per_channel,
						       .plane = pl,
						       .block = b };
				uint64_t bi = nand_block_index(g, &a);
				uint32_t *fl = &d->store->blocks[bi].flags;

				/* A spare's mark is its owner's remap: gone with the owner. */
				if (NAND_BLOCK_SPARE_OF(*fl)) {
					*fl &= (1u << NAND_BLOCK_SPARE_SHIFT) - 1;
					erased = true;
				}
				if (!d->store->blocks[bi].write_ptr)
					continue;
				if ((rc = d->store->ops->erase(d->store, bi)))
					return rc;
				erased = true;
			}
	}
	return erased ? d->store->ops->sync(d->store) : 0;
}

static void erase_fn(void *arg)
{
	struct dev_call *c = arg;

	c->rc = erase_here((struct blox_nand_dev *)c->d, c->dies, c->nr, c->a, c->b);
}

int blox_nand_dev_erase(struct blox_nand_dev *d, const uint32_t *dies, uint32_t nr,
			uint32_t first_block, uint32_t nr_blocks)
{
	struct dev_call c = { .dies = dies, .nr = nr, .a = first_block, .b = nr_blocks };

	dev_call(d, erase_fn, &c);
	return c.rc;
}

static void die_erases_fn(void *arg)
{
	struct dev_call *c = arg;
	const struct blox_nand_dev *d = c->d;
	const struct nand_geometry *g = &nand_dev_config(d->dev)->geo;
	uint64_t per_die = (uint64_t)g->planes_per_die * g->blocks_per_plane;
	uint64_t *out = c->out;

	for (uint32_t die = 0; die < nand_dies(g); die++) {
		out[die] = 0;
		if (!d->store)
			continue;
		/* Blocks are numbered die after die (nand_block_index). */
		for (uint64_t b = 0; b < per_die; b++)
			out[die] += d->store->blocks[(uint64_t)die * per_die + b].erase_count;
	}
}

void blox_nand_dev_die_erases(const struct blox_nand_dev *d, uint64_t *out)
{
	struct dev_call c = { .out = out };

	dev_call(d, die_erases_fn, &c);
}

static void die_stats_fn(void *arg)
{
	struct dev_call *c = arg;
	const struct nand_die_stats *st = nand_die_stats(c->d->dev, c->a);
	struct nand_die_stats *out = c->out;

	if (st)
		*out = *st;
	else
		memset(out, 0, sizeof(*out));
}

void blox_nand_dev_die_stats(const struct blox_nand_dev *d, uint32_t die,
			     struct nand_die_stats *out)
{
	struct dev_call c = { .a = die, .out = out };

	dev_call(d, die_stats_fn, &c);
}
