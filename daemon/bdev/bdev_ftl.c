/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "nand" backend: every LBA goes through an FTL instance onto the
 * emulated NAND device, whose pages live in a backing store (a sparse
 * file in the data directory, or RAM). The device runs in real time on
 * the event loop (nand_rt); the FTL asks to be processed through a
 * libevent event. A clean destroy shuts the FTL down (flush, checkpoint)
 * before the store is closed, so a restart finds its data at once; after
 * an unclean stop the FTL recovers from its checkpoint plus an OOB scan.
 *
 * Off the loop: a backend on a device of its own is "unbound" while it
 * is being made (store, device, FTL format or recovery) and while it is
 * being destroyed (clean stop, checkpoint, store close). Unbound, it has
 * no event and no real-time driver: the FTL cannot kick (its start-up
 * runs in sync_io) and the destroy drives the device itself in virtual
 * time, so both may run on a thread of their own while nothing else
 * holds the backend.
 */
#include "bdev.h"
#include "bdev_ftl_sub.h"
#include "bdev_hop.h"
#include "blox_log.h"
#include "blox_util.h"
#include "nand_rt.h"
#include "qos.h"

#include "ftl.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fb_io;

struct blox_nand_dev {
	char name[32];
	uint32_t refs;
	TAILQ_ENTRY(blox_nand_dev) link; /* in a registry */
	bool registered;
	struct nand_store *store;
	struct nand_dev *dev;
	struct nand_rt *rt;
	/* The "smart" suspension policy's state and inputs (qos/), when it has it. */
	struct qos_suspend_state susp;
	struct qos_suspend_inputs susp_in;
	bool smart;
	/*
	 * A registered device shares its dies (and channels) among its
	 * namespaces' tenants by weight: one deficit round robin per die
	 * (channel) and class.
	 */
	struct qos_drr *drr, *drr_bus;
	uint32_t ndies, nch;
	/* Where it lives and runs (NULL: the core's reactor); set once, at its open. */
	struct blox_bdev_home *home;
};

struct ftl_bdev {
	struct blox_bdev base;
	struct blox_nand_dev *nd;
	struct nand_store *store; /* nd's, for quick access */
	struct nand_dev *dev;
	struct nand_rt *rt; /* nd's driver; NULL while unbound */
	struct ftl *ftl;
	struct event *kick_ev; /* NULL while unbound */
	struct event *wake_ev; /* a throttled migration's next step; NULL while unbound */
	uint64_t wake_ns; /* the time wake_ev is for (the FTL's wait); 0: none */
	/* Predictable latency: the timer for the window's deadline, who hears of events. */
	struct event *plm_ev; /* NULL while unbound */
	uint64_t plm_armed; /* the deadline plm_ev is set for; 0: none */
	void (*plm_cb)(void *arg);
	void *plm_cb_arg;
	bool kicked;
	uint64_t vnow; /* unbound: the device's time, advanced by the destroy */
	struct ftl_resources res; /* what the FTL owns of the device */
	bool shared_pool; /* its dies are a pool others share (a software vSSD) */
	uint8_t space_level; /* the free-space level last told to the device's policy, +1 (0: never) */
	const struct blox_clock *clock;
	const struct blox_log *log;
	struct fb_io *ios;
	TAILQ_HEAD(, fb_io) free_ios;
	TAILQ_HEAD(, blox_io) waiting;
	/* Blocks smaller than the FTL's unit: every command but Flush goes through it; else NULL. */
	struct fb_sub *sub;
};

#define FTL_BDEV_IOS 4096

/* A request to the FTL on behalf of a blox_io; pooled. */
struct fb_io {
	struct ftl_io fio;
	struct blox_io *io;
	struct ftl_bdev *fb;
	TAILQ_ENTRY(fb_io) link;
};

static int env_submit(void *ctx, struct nand_op *op)
{
	struct ftl_bdev *fb = ctx;

	if (!fb->rt)
		return nand_submit(fb->dev, op, fb->vnow);
	return nand_rt_submit(fb->rt, op);
}

static uint64_t env_now(void *ctx)
{
	struct ftl_bdev *fb = ctx;

	return blox_clock_now(fb->clock);
}

static void env_kick(void *ctx)
{
	struct ftl_bdev *fb = ctx;

	fb->kicked = true;
	if (fb->kick_ev)
		event_active(fb->kick_ev, 0, 0);
}

static int env_sync(void *ctx)
{
	struct ftl_bdev *fb = ctx;

	return fb->store->ops->sync(fb->store);
}

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
static int nand_dev_open_unbound(const char *name, const struct nand_config *nand,
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
	nand_dev_destroy(d->dev);
	nand_store_close(d->store);
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

/* wake_ev, for the rest of the FTL's wait (rounded up to the microsecond). */
static void wake_arm(struct ftl_bdev *fb)
{
	uint64_t now = blox_clock_now(fb->clock), d = fb->wake_ns > now ? fb->wake_ns - now : 0;
	struct timeval tv = { .tv_sec = (time_t)(d / 1000000000u),
			      .tv_usec = (suseconds_t)((d % 1000000000u + 999u) / 1000u) };

	evtimer_add(fb->wake_ev, &tv);
}

/* A throttled migration waits until @ns: ftl_process() then, not before (wake_cb). */
static void env_wake_at(void *ctx, uint64_t ns)
{
	struct ftl_bdev *fb = ctx;

	if (!fb->wake_ev) {
		fb->kicked = true; /* unbound: the destroy's loop runs it */
		return;
	}
	fb->wake_ns = ns;
	wake_arm(fb);
}

/* A predictable-latency event (from ftl_process()): the NVMe core is told. */
static void env_plm_event(void *ctx)
{
	struct ftl_bdev *fb = ctx;

	if (fb->plm_cb)
		fb->plm_cb(fb->plm_cb_arg);
}

/* A deterministic window ends or warns at a time: ftl_process() then. */
static void fb_plm_arm(struct ftl_bdev *fb)
{
	uint64_t at = ftl_plm_deadline(fb->ftl), now, us;
	struct timeval tv;

	if (!fb->plm_ev)
		return;
	if (at == UINT64_MAX) {
		if (fb->plm_armed)
			evtimer_del(fb->plm_ev);
		fb->plm_armed = 0;
		return;
	}
	/* Set for it and not fired yet (a timer that fired is set again). */
	if (at == fb->plm_armed && evtimer_pending(fb->plm_ev, NULL))
		return;
	fb->plm_armed = at;
	now = blox_clock_now(fb->clock);
	/* Rounded up to the microsecond: never early. */
	us = ((at > now ? at - now : 0) + 999) / 1000;
	tv = (struct timeval){ .tv_sec = (time_t)(us / 1000000u),
			       .tv_usec = (suseconds_t)(us % 1000000u) };
	evtimer_add(fb->plm_ev, &tv);
}

static const struct ftl_env_ops env_ops = {
	.submit = env_submit,
	.now = env_now,
	.kick = env_kick,
	.sync = env_sync,
	.wake_at = env_wake_at,
	.plm_event = env_plm_event,
};

static void susp_levels(struct ftl_bdev *fb);
static bool fb_unbind(struct blox_bdev *bdev);
static void kick_cb(evutil_socket_t fd, short what, void *arg);

/*
 * A throttled migration's wake-up. The FTL asks once per wait and takes
 * this call as its time come, so it must not come early, and libevent's
 * timer can: a timer added during a loop pass counts from the time the
 * pass began (libevent's cached time), so it fires as much before the time
 * asked as the pass had run when it was added (the NAND driver's spin and
 * the completions it ran, more under ASan). event_base_dispatch hid it,
 * reckoning its next sleep from that same cached time; the pass-at-a-time
 * loop of --poll-us reckons it afresh. Early, the timer is set again for the
 * rest. One reading of the clock decides: the FTL reads it after this one,
 * so past @wake_ns here, it finds its time come (judged on a second reading
 * after ftl_process(), a wake-up that came early could see the time pass in
 * between and set nothing again: the migration stalled).
 */
static void wake_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ftl_bdev *fb = arg;

	if (blox_clock_now(fb->clock) < fb->wake_ns) {
		wake_arm(fb);
		return;
	}
	fb->wake_ns = 0;
	kick_cb(fd, what, arg);
}

static void kick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ftl_bdev *fb = arg;

	(void)fd;
	(void)what;
	fb->kicked = false;
	ftl_process(fb->ftl);
	if (fb->nd->smart)
		susp_levels(fb);
	fb_plm_arm(fb);
}

static void fb_start(struct ftl_bdev *fb, struct blox_io *io);

/* Its dies' GC levels, for the device's suspension policy. */
static void susp_levels(struct ftl_bdev *fb)
{
	uint8_t lvl = ftl_space_level(fb->ftl);

	/* Completions are the hot path: the dies only when the level moved. */
	if (fb->space_level == lvl + 1)
		return;
	fb->space_level = lvl + 1;
	for (uint32_t i = 0; i < fb->res.nr_dies; i++)
		if (fb->res.dies[i] < sizeof(fb->nd->susp_in.gc_level))
			fb->nd->susp_in.gc_level[fb->res.dies[i]] = lvl;
}

static void io_done(struct ftl_io *fio)
{
	struct fb_io *r = container_of(fio, struct fb_io, fio);
	struct ftl_bdev *fb = r->fb;
	struct blox_io *io = r->io;

	io->status = fio->status;
	TAILQ_INSERT_TAIL(&fb->free_ios, r, link);
	if (fb->nd->smart) {
		fb->nd->susp_in.host_inflight--;
		susp_levels(fb);
	}
	io->cb(io);
	while ((io = TAILQ_FIRST(&fb->waiting)) && !TAILQ_EMPTY(&fb->free_ios)) {
		TAILQ_REMOVE(&fb->waiting, io, link);
		fb_start(fb, io);
	}
}

static void fb_start(struct ftl_bdev *fb, struct blox_io *io)
{
	struct fb_io *r = TAILQ_FIRST(&fb->free_ios);
	struct ftl_io *fio = &r->fio;
	int rc;

	TAILQ_REMOVE(&fb->free_ios, r, link);
	memset(fio, 0, sizeof(*fio));
	r->io = io;
	fio->lba = (uint32_t)(io->offset / FTL_UNIT);
	fio->nr = (uint32_t)(io->len / FTL_UNIT);
	fio->fua = io->fua;
	fio->cb = io_done;
	switch (io->op) {
	case BLOX_IO_READ:
		fio->op = FTL_IO_READ;
		fio->buf = io->iov[0].iov_base;
		break;
	case BLOX_IO_WRITE:
		fio->op = FTL_IO_WRITE;
		fio->buf = io->iov[0].iov_base;
		break;
	case BLOX_IO_WRITE_ZEROES:
	case BLOX_IO_TRIM:
		/* Unmapped units read as zeroes: both are a deallocate. */
		fio->op = FTL_IO_TRIM;
		break;
	case BLOX_IO_FLUSH:
		fio->op = FTL_IO_FLUSH;
		break;
	}
	rc = ftl_submit(fb->ftl, fio);
	if (rc) {
		TAILQ_INSERT_TAIL(&fb->free_ios, r, link);
		if (fb->nd->smart)
			fb->nd->susp_in.host_inflight--;
		io->status = rc;
		blox_io_cq_post(fb->base.cq, io);
	}
}

/* The sub-unit layer's requests go to the FTL as they are. */
static int sub_submit(void *ctx, struct ftl_io *fio)
{
	struct ftl_bdev *fb = ctx;

	return ftl_submit(fb->ftl, fio);
}

static void sub_done(void *ctx, struct blox_io *io, bool now)
{
	struct ftl_bdev *fb = ctx;

	if (fb->nd->smart) {
		fb->nd->susp_in.host_inflight--;
		susp_levels(fb);
	}
	if (now)
		io->cb(io);
	else
		blox_io_cq_post(fb->base.cq, io);
}

static const struct fb_sub_ops sub_ops = {
	.submit = sub_submit,
	.done = sub_done,
};

static void fb_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	uint32_t bs = bdev->block_size;

	if (io->op != BLOX_IO_FLUSH &&
	    (io->offset % bs || io->len % bs || io->offset > bdev->size ||
	     io->len > bdev->size - io->offset ||
	     (io->op <= BLOX_IO_WRITE && (io->iovcnt != 1 || io->len == 0)))) {
		io->status = io->offset % bs || io->len % bs ? -EINVAL : -ERANGE;
		blox_io_cq_post(bdev->cq, io);
		return;
	}
	if (io->op != BLOX_IO_FLUSH && io->len == 0) {
		io->status = 0;
		blox_io_cq_post(bdev->cq, io);
		return;
	}
	if (fb->nd->smart)
		fb->nd->susp_in.host_inflight++;
	if (fb->sub && io->op != BLOX_IO_FLUSH) {
		fb_sub_submit(fb->sub, io);
		return;
	}
	if (TAILQ_EMPTY(&fb->free_ios) || !TAILQ_EMPTY(&fb->waiting)) {
		TAILQ_INSERT_TAIL(&fb->waiting, io, link);
		return;
	}
	fb_start(fb, io);
}

static void fb_set_cache(struct blox_bdev *bdev, bool on)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);

	ftl_set_volatile_cache(fb->ftl, on);
}

static void shutdown_done(void *arg, int status)
{
	int *st = arg;

	*st = status;
}

/*
 * Drive the device to the end of the FTL's clean shutdown without the
 * loop: nobody waits for these last programs, so time jumps from one
 * device event to the next instead of passing.
 */
static int fb_quiesce(struct ftl_bdev *fb)
{
	int status = 1;

	if (ftl_shutdown(fb->ftl, shutdown_done, &status))
		return -EALREADY;
	while (status == 1) {
		uint64_t next = nand_next_event(fb->dev);

		if (fb->kicked) {
			fb->kicked = false;
			ftl_process(fb->ftl);
			continue;
		}
		if (next == UINT64_MAX)
			break;
		fb->vnow = BLOX_MAX(fb->vnow, next);
		nand_advance(fb->dev, next);
	}
	return status == 1 ? -EIO : status;
}

static void fb_destroy(struct blox_bdev *bdev)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);

	/* Nobody hears of predictable-latency events any more. */
	fb->plm_cb = NULL;
	/* Still bound: on the loop, where unbinding is allowed. */
	if (fb->rt)
		fb_unbind(bdev);
	if (fb->ftl) {
		struct ftl_stats st;
		int rc = fb_quiesce(fb);

		ftl_get_stats(fb->ftl, &st);
		blox_log(fb->log, rc ? BLOX_LOG_ERR : BLOX_LOG_INFO,
			 "ftl: clean stop %s; %lu host units written, WAF %.3f, "
			 "CMT hits %lu misses %lu, MDC hits %lu/%lu, GC runs %lu",
			 rc ? "FAILED" : "done", (unsigned long)st.units_written_host,
			 ftl_waf(fb->ftl), (unsigned long)st.cmt_hits,
			 (unsigned long)st.cmt_misses, (unsigned long)st.mdc_hits,
			 (unsigned long)st.mdc_lookups, (unsigned long)st.gc_runs);
		ftl_destroy(fb->ftl);
	}
	if (fb->kick_ev)
		event_free(fb->kick_ev);
	if (fb->wake_ev)
		event_free(fb->wake_ev);
	if (fb->plm_ev)
		event_free(fb->plm_ev);
	fb_sub_destroy(fb->sub);
	blox_nand_dev_put(fb->nd);
	free(fb->ios);
	free(fb);
}

static void fb_telemetry(struct blox_bdev *bdev, struct blox_bdev_telemetry *t)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	const struct nand_geometry *g = &nand_dev_config(fb->dev)->geo;

	if (t->ftl) {
		t->has_ftl = true;
		ftl_get_stats(fb->ftl, t->ftl);
	}
	t->waf = ftl_waf(fb->ftl);
	t->nand = nand_dev_stats(fb->dev);
	t->nand_dev = fb->dev;
	t->dies = nand_dies(g);
	t->channels = g->channels;
	t->suspend_policy = nand_dev_config(fb->dev)->policy.name;
	if (fb->nd->smart)
		t->susp_decisions = fb->nd->susp.decisions;
}

/*
 * Isolation and wear of the instance's flash (NVM Set, Endurance Group).
 * A namespace holding only a block range of its dies shares them with
 * the pool's other namespaces (software isolation): the pool is named by
 * its device's name and its lowest die (pools hold disjoint dies), hashed
 * (FNV-1a). Whole dies, of a device of its own or not, are its alone.
 * Wear: the mean erase count of its superblocks (a superblock's blocks are
 * erased together) against the cell type's rated P/E cycles, the usual
 * figures (and FlashBlox's, fbx_params_default()): SLC 100k, MLC 10k,
 * TLC 3k, QLC 1k. Spare: the free superblocks in percent of the spare ones
 * (those beyond the capacity and its mapping, ftl_inspect_gc()), the
 * threshold the urgent GC level.
 */
static void fb_endurance(struct blox_bdev *bdev, struct blox_bdev_endurance *e)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	const struct nand_config *cfg = nand_dev_config(fb->dev);
	const struct nand_geometry *g = &cfg->geo;
	const struct nand_timing *tm = &cfg->timing;
	uint32_t bits = g->cell >= NAND_SLC && g->cell <= NAND_QLC ? (uint32_t)g->cell : 3;
	static const uint64_t rated_pe[] = { 0, 100000, 10000, 3000, 1000 };
	uint64_t rated = rated_pe[bits], erases = 0, pct, rd = 0;
	struct ftl_activity act;
	struct ftl_layout lay;
	struct ftl_gc_info gc;
	struct ftl_stats st;

	if (fb->shared_pool) {
		const char *name = fb->nd->name;
		uint32_t low = fb->res.dies[0];
		uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */

		for (uint32_t i = 1; i < fb->res.nr_dies; i++)
			low = BLOX_MIN(low, fb->res.dies[i]);
		for (size_t i = 0; name[i]; i++)
			h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
		for (int i = 0; i < 4; i++)
			h = (h ^ (uint8_t)(low >> (8 * i))) * 0x100000001b3ull;
		e->shared_pool = true;
		e->pool_key = h;
	}
	ftl_get_stats(fb->ftl, &st);
	ftl_inspect_layout(fb->ftl, &lay);
	ftl_inspect_gc(fb->ftl, &gc);
	ftl_inspect_activity(fb->ftl, &act);
	for (uint32_t sb = 0; sb < lay.nr_sb; sb++) {
		struct ftl_sb_info si;

		ftl_inspect_sb(fb->ftl, sb, &si);
		erases += si.erase_count;
	}
	pct = lay.nr_sb ? erases * 100 / ((uint64_t)lay.nr_sb * rated) : 0;
	e->percent_used = (uint8_t)BLOX_MIN(pct, 255u);
	e->avail_spare = gc.spare ? (uint8_t)BLOX_MIN(st.free_superblocks * 100 / gc.spare, 100u) : 0;
	e->spare_threshold = gc.spare ? (uint8_t)BLOX_MIN(
						(gc.lvl_urgent * 100u + gc.spare - 1) / gc.spare, 100u)
				      : 0;
	e->read_only = act.fatal;
	e->host_read_bytes = st.host_reads * FTL_UNIT;
	e->host_written_bytes = st.host_writes * FTL_UNIT;
	e->media_written_bytes = (st.units_written_host + st.units_written_gc +
				  st.units_written_tp + st.units_padded) * FTL_UNIT;
	e->endurance_bytes = (uint64_t)lay.nr_sb * lay.units_per_sb * FTL_UNIT * rated;
	e->total_bytes = (uint64_t)ftl_capacity(fb->ftl) * FTL_UNIT;
	e->unalloc_bytes = e->total_bytes > bdev->size ? e->total_bytes - bdev->size : 0;
	/* A flash read of the page type on average, then 4 KiB over the bus. */
	if (!tm->null_timing) {
		for (uint32_t i = 0; i < bits; i++)
			rd += tm->t_read_ns[i];
		rd = rd / bits + tm->t_cmd_ns + (tm->bus_mbps ? 4096ull * 1000 / tm->bus_mbps : 0);
	}
	e->read_4k_ns = (uint32_t)BLOX_MIN(rd, (uint64_t)UINT32_MAX);
	e->opt_write_bytes = g->page_size; /* the page a stream fills, then programs */
}

/*
 * Predictable latency: the FTL's windows (ftl_plm_*) in the log page's
 * units. A write of the Optimal Write Size is one flash page (what
 * fb_endurance() says), so many FTL units; times in whole milliseconds,
 * estimates rounded down.
 */
static uint32_t units_per_ows(const struct ftl_bdev *fb)
{
	uint32_t n = nand_dev_config(fb->dev)->geo.page_size / FTL_UNIT;

	return n ? n : 1;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static int fb_plm_config(struct blox_bdev *bdev, const struct blox_bdev_plm_config *cfg)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	struct ftl_plm_warn w = {
		.enable = cfg->ee & FTL_PLM_EV_WARNS,
		.reads = cfg->reads_thresh,
		.writes = sat_mul(cfg->writes_thresh, units_per_ows(fb)),
		.time_ns = sat_mul(cfg->time_thresh_ms, 1000000),
	};
	int rc = ftl_plm_config(fb->ftl, cfg->enable, &w);

	if (!rc) {
		fb->plm_cb = cfg->enable ? cfg->event : NULL;
		fb->plm_cb_arg = cfg->enable ? cfg->event_arg : NULL;
	}
	fb_plm_arm(fb);
	return rc;
}

static int fb_plm_window(struct blox_bdev *bdev, enum blox_plm_window win, uint64_t *retry_in_ns)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	int rc;

	if (win != BLOX_PLM_DTWIN && win != BLOX_PLM_NDWIN)
		return -EINVAL;
	rc = ftl_set_deterministic(fb->ftl, win == BLOX_PLM_DTWIN, NULL);
	if (rc == -EAGAIN && retry_in_ns) {
		struct ftl_plm_info i;
		uint64_t now = blox_clock_now(fb->clock);

		ftl_plm_info(fb->ftl, &i);
		*retry_in_ns = i.dtwin_ready_ns > now ? i.dtwin_ready_ns - now : 0;
	}
	fb_plm_arm(fb);
	return rc;
}

static void fb_plm_query(struct blox_bdev *bdev, struct blox_bdev_plm_info *out, bool clear)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	uint32_t ows = units_per_ows(fb);
	struct ftl_plm_info i;

	ftl_plm_info(fb->ftl, &i);
	out->window = i.window == FTL_PLM_DTWIN	  ? BLOX_PLM_DTWIN
		      : i.window == FTL_PLM_NDWIN ? BLOX_PLM_NDWIN
						  : BLOX_PLM_OFF;
	out->events = (uint16_t)i.events;
	out->reads_typical = i.reads_typical;
	out->writes_typical = i.writes_typical / ows;
	out->time_max_ms = i.time_max_ns / 1000000;
	out->ndwin_min_high_ms = (i.ndwin_min_high_ns + 999999) / 1000000;
	out->ndwin_min_low_ms = (i.ndwin_min_low_ns + 999999) / 1000000;
	out->reads_estimate = i.reads_left;
	out->writes_estimate = i.writes_left / ows;
	out->time_estimate_ms = i.time_left_ns / 1000000;
	if (clear)
		ftl_plm_clear_events(fb->ftl);
	fb_plm_arm(fb); /* the query may have ended a window */
}

/* A namespace on a registered device: the device's memory is the device's. */
static uint64_t fb_mem_bytes(struct blox_bdev *bdev)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);

	return fb->nd->registered ? 0 : blox_nand_dev_mem_bytes(fb->nd);
}

static const struct blox_bdev_ops ftl_bdev_ops = {
	.name = "nand",
	.submit = fb_submit,
	.destroy = fb_destroy,
	.set_write_cache = fb_set_cache,
	.telemetry = fb_telemetry,
	.endurance = fb_endurance,
	.plm_config = fb_plm_config,
	.plm_window = fb_plm_window,
	.plm_query = fb_plm_query,
	.mem_bytes = fb_mem_bytes,
};

/* Dies in range and each once, blocks in range. */
static int check_share(const struct ftl_resources *res, const struct nand_geometry *g)
{
	uint32_t dies = nand_dies(g);

	if (res->nr_dies == 0 || res->nr_dies > BLOX_FTL_MAX_DIES ||
	    res->first_block >= g->blocks_per_plane || res->nr_blocks == 0 ||
	    res->nr_blocks > g->blocks_per_plane - res->first_block)
		return -EINVAL;
	for (uint32_t i = 0; i < res->nr_dies; i++) {
		if (res->dies[i] >= dies)
			return -EINVAL;
		for (uint32_t j = 0; j < i; j++)
			if (res->dies[j] == res->dies[i])
				return -EINVAL;
	}
	return 0;
}

/*
 * The backend up to a running FTL (format or recovery done), on @p's own
 * device or its dies of @shared. Unbound: no event, no driver of its own.
 */
static int fb_prepare(const struct blox_bdev_params *p, struct ftl_bdev **out)
{
	const struct nand_geometry *g;
	struct ftl_bdev *fb;
	struct ftl_env env;
	struct ftl_resources res = { 0 };
	int rc;

	if ((!p->nand && !p->shared) || !p->ftl || !p->clock)
		return -EINVAL;
	/*
	 * 4096, or 512 on the 4 KiB units (bdev_ftl_sub.c). Whole units: the
	 * FTL is sized to size / FTL_UNIT.
	 */
	if ((p->block_size != FTL_UNIT && p->block_size != 512) || p->size % FTL_UNIT)
		return -EINVAL;
	fb = calloc(1, sizeof(*fb));
	if (!fb)
		return -ENOMEM;
	fb->clock = p->clock;
	fb->log = p->log;
	fb->vnow = blox_clock_now(p->clock);
	TAILQ_INIT(&fb->free_ios);
	TAILQ_INIT(&fb->waiting);
	fb->ios = calloc(FTL_BDEV_IOS, sizeof(*fb->ios));
	if (!fb->ios) {
		rc = -ENOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < FTL_BDEV_IOS; i++) {
		fb->ios[i].fb = fb;
		TAILQ_INSERT_TAIL(&fb->free_ios, &fb->ios[i], link);
	}
	if (p->shared) {
		/* The device runs for its other namespaces: use its driver. */
		fb->nd = p->shared;
		blox_nand_dev_get(fb->nd);
		fb->rt = fb->nd->rt;
	} else {
		rc = nand_dev_open_unbound(NULL, p->nand, p->store_path, false, &fb->nd);
		if (rc)
			goto fail;
	}
	fb->store = fb->nd->store;
	fb->dev = fb->nd->dev;
	g = &nand_dev_config(fb->dev)->geo;
	/* The instance owns exactly these dies and blocks, nothing else. */
	if (p->shared) {
		res.nr_dies = p->nr_dies;
		for (uint32_t i = 0; i < p->nr_dies && i < BLOX_FTL_MAX_DIES; i++)
			res.dies[i] = p->dies[i];
	} else {
		res.nr_dies = nand_dies(g);
		for (uint32_t i = 0; i < res.nr_dies && i < BLOX_FTL_MAX_DIES; i++)
			res.dies[i] = i;
	}
	res.first_block = p->shared ? p->first_block : 0;
	res.nr_blocks = p->shared && p->nr_blocks ? p->nr_blocks
						   : g->blocks_per_plane - res.first_block;
	if (p->shared && p->mig && p->mig->mig_active) {
		/* A die migration to resume, as it was persisted. */
		res.mig_active = true;
		res.mig_cancel = p->mig->mig_cancel;
		res.mig_slot = p->mig->mig_slot;
		res.mig_src = p->mig->mig_src;
		res.mig_share = p->mig->mig_share;
	}
	rc = check_share(&res, g);
	if (rc)
		goto fail;
	fb->res = res;
	fb->shared_pool = p->shared && p->shared_pool;
	env = (struct ftl_env){ .ops = &env_ops, .ctx = fb, .dev = fb->dev,
				.store = fb->store };
	/* Synchronous store I/O (sync_io): no kick, no submit, no loop. */
	{
		struct ftl_config fc = *p->ftl;

		/* On a shared device: its tenant, for the device's fair sharing. */
		fc.tenant = p->shared ? p->tenant : 0;
		rc = ftl_create(&fc, &env, &res, &fb->ftl);
	}
	if (rc)
		goto fail;
	if ((uint64_t)ftl_capacity(fb->ftl) * FTL_UNIT < p->size) {
		blox_log(p->log, BLOX_LOG_ERR,
			 "nand: %lu bytes asked, the FTL offers %lu on this geometry",
			 (unsigned long)p->size,
			 (unsigned long)ftl_capacity(fb->ftl) * FTL_UNIT);
		rc = -ENOSPC;
		goto fail;
	}
	if (p->block_size < FTL_UNIT) {
		rc = fb_sub_create(&sub_ops, fb, p->block_size, p->size / FTL_UNIT, &fb->sub);
		if (rc)
			goto fail;
	}
	fb->base.ops = &ftl_bdev_ops;
	fb->base.size = p->size;
	fb->base.block_size = p->block_size;
	fb->base.phys_block_size = FTL_UNIT;
	*out = fb;
	return 0;
fail:
	fb_destroy(&fb->base);
	return rc;
}

int blox_bdev_ftl_prepare(const struct blox_bdev_params *p, struct blox_bdev **out)
{
	struct ftl_bdev *fb;
	int rc;

	if (p->shared)
		return -EINVAL; /* shared state: only on the loop */
	rc = fb_prepare(p, &fb);
	if (rc)
		return rc;
	*out = &fb->base;
	return 0;
}

int blox_bdev_ftl_bind(struct blox_bdev *bdev, struct event_base *base,
		       struct blox_io_cq *cq)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	struct ftl_stats st;
	int rc;

	if (!fb->nd->rt) {
		rc = nand_rt_create(base, fb->clock, fb->dev, NAND_RT_SPIN_NS, &fb->nd->rt);
		if (rc)
			return rc;
	}
	fb->rt = fb->nd->rt;
	fb->kick_ev = event_new(base, -1, 0, kick_cb, fb);
	fb->wake_ev = evtimer_new(base, wake_cb, fb);
	fb->plm_ev = evtimer_new(base, kick_cb, fb);
	if (!fb->kick_ev || !fb->wake_ev || !fb->plm_ev)
		return -ENOMEM;
	/* Work the FTL asked for before it had a loop (a migration it resumed). */
	if (fb->kicked)
		event_active(fb->kick_ev, 0, 0);
	fb->base.cq = cq;
	ftl_get_stats(fb->ftl, &st);
	blox_log(fb->log, BLOX_LOG_INFO,
		 "nand: %u dies (%u..%u) of a %s device, %s, %lu units recovered",
		 fb->res.nr_dies, fb->res.dies[0], fb->res.dies[fb->res.nr_dies - 1],
		 fb->store->ops->name,
		 st.recovered_from_checkpoint ? "checkpoint found" : "no checkpoint",
		 (unsigned long)st.recovered_units);
	return 0;
}

struct bind_call {
	struct blox_bdev *bdev;
	struct blox_bdev_home *home;
	const struct blox_bdev_params *p;
	int rc;
};

static void bind_fn(void *arg)
{
	struct bind_call *b = arg;

	b->rc = blox_bdev_ftl_bind(b->bdev, bdev_home_base(b->home), bdev_home_cq(b->home));
}

int blox_bdev_ftl_bind_home(struct blox_bdev *bdev, struct blox_bdev_home *home,
			    struct event_base *base, struct blox_io_cq *cq)
{
	struct bind_call b = { .bdev = bdev, .home = home };

	if (!home)
		return blox_bdev_ftl_bind(bdev, base, cq);
	blox_bdev_home_call(home, bind_fn, &b);
	if (!b.rc)
		bdev->home = home;
	return b.rc;
}

static void create_fn(void *arg)
{
	struct bind_call *b = arg;
	struct blox_bdev_params p = *b->p;

	p.base = bdev_home_base(b->home);
	b->rc = blox_bdev_ftl_create(&p, bdev_home_cq(b->home), &b->bdev);
}

int bdev_ftl_create_home(const struct blox_bdev_params *p, struct blox_io_cq *cq,
			 struct blox_bdev **out)
{
	struct bind_call b = { .home = p->shared ? p->shared->home : p->home, .p = p };

	if (!b.home)
		return blox_bdev_ftl_create(p, cq, out);
	blox_bdev_home_call(b.home, create_fn, &b);
	if (b.rc)
		return b.rc;
	b.bdev->home = b.home;
	*out = b.bdev;
	return 0;
}

bool blox_bdev_ftl_unbind(struct blox_bdev *bdev)
{
	return bdev_hop_leave(bdev, fb_unbind);
}

/* Where it lives. */
static bool fb_unbind(struct blox_bdev *bdev)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);

	/* A shared device keeps running for the others. */
	if (bdev->ops != &ftl_bdev_ops || fb->nd->refs > 1)
		return false;
	if (fb->kick_ev)
		event_free(fb->kick_ev);
	fb->kick_ev = NULL;
	if (fb->wake_ev)
		event_free(fb->wake_ev);
	fb->wake_ev = NULL;
	fb->wake_ns = 0;
	if (fb->plm_ev)
		event_free(fb->plm_ev);
	fb->plm_ev = NULL;
	fb->plm_armed = 0;
	/* Operations in flight stay in the device; the destroy drives them. */
	nand_rt_destroy(fb->nd->rt);
	fb->nd->rt = NULL;
	fb->rt = NULL;
	fb->vnow = blox_clock_now(fb->clock);
	return true;
}

int blox_bdev_ftl_create(const struct blox_bdev_params *p, struct blox_io_cq *cq,
			 struct blox_bdev **out)
{
	struct ftl_bdev *fb;
	int rc;

	if (!p->base)
		return -EINVAL;
	rc = fb_prepare(p, &fb);
	if (rc)
		return rc;
	rc = blox_bdev_ftl_bind(&fb->base, p->base, cq);
	if (rc) {
		fb_destroy(&fb->base);
		return rc;
	}
	*out = &fb->base;
	return 0;
}

/* ---- A device's flash, for the resource manager above ---- */

const struct nand_config *blox_nand_dev_nand_config(const struct blox_nand_dev *d)
{
	return nand_dev_config(d->dev);
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

/* ---- Die migrations of a "nand" backend (ftl_migrate_*) ---- */

static struct ftl_bdev *ftl_of(struct blox_bdev *bdev)
{
	return bdev->ops == &ftl_bdev_ops ? container_of(bdev, struct ftl_bdev, base) : NULL;
}

static int migrate_here(struct blox_bdev *bdev, uint32_t from_die, uint32_t to_die,
			  uint32_t share)
{
	struct ftl_bdev *fb = ftl_of(bdev);
	struct ftl_migrate_cfg cfg = { .share = share };
	struct ftl_resources res;

	if (!fb || !fb->ftl)
		return -EOPNOTSUPP;
	ftl_get_resources(fb->ftl, &res);
	for (uint32_t slot = 0; slot < res.nr_dies; slot++)
		if (res.dies[slot] == from_die) {
			int rc = ftl_migrate_start(fb->ftl, slot, to_die, &cfg);

			/* Its dies from now on (the slot's is @to_die); the policy hears of it. */
			if (!rc) {
				ftl_get_resources(fb->ftl, &fb->res);
				fb->space_level = 0;
			}
			return rc;
		}
	return -ENOENT;
}

static int migrate_ctl_here(struct blox_bdev *bdev, enum blox_mig_ctl what, uint32_t share)
{
	struct ftl_bdev *fb = ftl_of(bdev);

	if (!fb || !fb->ftl)
		return -EOPNOTSUPP;
	switch (what) {
	case BLOX_MIG_PAUSE:
		return ftl_migrate_pause(fb->ftl);
	case BLOX_MIG_RESUME:
		return ftl_migrate_resume(fb->ftl);
	case BLOX_MIG_CANCEL:
		return ftl_migrate_cancel(fb->ftl);
	case BLOX_MIG_SHARE:
		return ftl_migrate_set_share(fb->ftl, share);
	}
	return -EINVAL;
}

static int migrate_progress_here(struct blox_bdev *bdev, struct ftl_migrate_progress *out,
				   struct ftl_resources *res)
{
	struct ftl_bdev *fb = ftl_of(bdev);

	if (!fb || !fb->ftl)
		return -EOPNOTSUPP;
	if (out)
		ftl_migrate_progress(fb->ftl, out);
	if (res)
		ftl_get_resources(fb->ftl, res);
	return 0;
}

/* A migration call at the backend's home. */
struct mig_call {
	struct blox_bdev *bdev;
	uint32_t a, b, c;
	enum blox_mig_ctl what;
	struct ftl_migrate_progress *out;
	struct ftl_resources *res;
	int rc;
};

static void migrate_fn(void *arg)
{
	struct mig_call *m = arg;

	m->rc = migrate_here(m->bdev, m->a, m->b, m->c);
}

int blox_bdev_ftl_migrate(struct blox_bdev *bdev, uint32_t from_die, uint32_t to_die,
			  uint32_t share)
{
	struct mig_call m = { .bdev = bdev, .a = from_die, .b = to_die, .c = share };

	blox_bdev_home_call(bdev->home, migrate_fn, &m);
	return m.rc;
}

static void migrate_ctl_fn(void *arg)
{
	struct mig_call *m = arg;

	m->rc = migrate_ctl_here(m->bdev, m->what, m->a);
}

int blox_bdev_ftl_migrate_ctl(struct blox_bdev *bdev, enum blox_mig_ctl what, uint32_t share)
{
	struct mig_call m = { .bdev = bdev, .what = what, .a = share };

	blox_bdev_home_call(bdev->home, migrate_ctl_fn, &m);
	return m.rc;
}

static void migrate_progress_fn(void *arg)
{
	struct mig_call *m = arg;

	m->rc = migrate_progress_here(m->bdev, m->out, m->res);
}

int blox_bdev_ftl_migrate_progress(struct blox_bdev *bdev, struct ftl_migrate_progress *out,
				   struct ftl_resources *res)
{
	struct mig_call m = { .bdev = bdev, .out = out, .res = res };

	blox_bdev_home_call(bdev->home, migrate_progress_fn, &m);
	return m.rc;
}
