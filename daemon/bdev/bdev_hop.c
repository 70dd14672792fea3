/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Backends at home on another reactor (bdev.h, "Homes").
 *
 * A command: the core saves its callback, sends the command (its hop
 * message is in struct blox_io: no allocation) to the home, which submits
 * it to the backend with the hop's callback; the backend completes it
 * there (its completion queue is the home's), and the hop sends it back,
 * where the saved callback runs. The command belongs to one reactor at a
 * time, so nothing of it needs a lock.
 *
 * Everything else runs at the home while the core waits
 * (blox_reactor_call()). What a backend hands back by pointer (telemetry)
 * is copied there into the backend's hop state, which the core reads
 * after the call. Predictable-latency events come from the home at any
 * time: each is a message to the core (at most one in flight), dropped
 * there once the backend is going. The hop state goes with the backend,
 * unless an event message is still on its way: then that message frees
 * it (after the destroy's call the home sends none any more).
 */
#include "bdev.h"
#include "bdev_hop.h"

#include "blox_util.h"
#include "nand.h"
#include "qos.h"
#include "reactor.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct blox_bdev_home {
	struct blox_reactor *r;
	struct blox_reactor *core;
	struct blox_io_cq cq;
};

struct bdev_hop {
	/* Telemetry's copies. */
	struct nand_stats nand;
	struct nand_die_stats *dies;
	uint32_t ndies;
	uint64_t susp[QOS_SUSP_REASONS];
	/* Predictable-latency events: the core's listener (core only), the message. */
	void (*plm_event)(void *arg);
	void *plm_arg;
	uint32_t plm_pending; /* atomic: plm_msg is on its way */
	struct blox_msg plm_msg;
	bool dead; /* core only: its backend is gone; the event message frees it */
	struct blox_bdev_home *home; /* where its events come from */
};

/* ---- homes ---- */

struct home_init {
	struct blox_bdev_home *h;
	int rc;
};

static void home_init_fn(void *arg)
{
	struct home_init *hi = arg;

	hi->rc = blox_io_cq_init(&hi->h->cq, blox_reactor_base(hi->h->r));
}

int blox_bdev_home_create(struct blox_reactor *r, struct blox_reactor *core,
			  struct blox_bdev_home **out)
{
	struct home_init hi = { .h = calloc(1, sizeof(*hi.h)) };

	if (!hi.h)
		return -ENOMEM;
	hi.h->r = r;
	hi.h->core = core;
	blox_reactor_call(core, r, home_init_fn, &hi);
	if (hi.rc) {
		free(hi.h);
		return hi.rc;
	}
	*out = hi.h;
	return 0;
}

static void home_fini_fn(void *arg)
{
	struct blox_bdev_home *h = arg;

	blox_io_cq_fini(&h->cq);
}

void blox_bdev_home_destroy(struct blox_bdev_home *h)
{
	if (!h)
		return;
	blox_reactor_call(h->core, h->r, home_fini_fn, h);
	free(h);
}

unsigned blox_bdev_home_reactor(const struct blox_bdev_home *h)
{
	return h ? blox_reactor_id(h->r) : 0;
}

void blox_bdev_home_call(struct blox_bdev_home *h, void (*fn)(void *arg), void *arg)
{
	if (h)
		blox_reactor_call(h->core, h->r, fn, arg);
	else
		fn(arg);
}

struct event_base *bdev_home_base(struct blox_bdev_home *h)
{
	return blox_reactor_base(h->r);
}

struct blox_io_cq *bdev_home_cq(struct blox_bdev_home *h)
{
	return &h->cq;
}

/* ---- commands ---- */

/* The core: the command is back with its status. */
static void hop_back_fn(struct blox_msg *m)
{
	struct blox_io *io = container_of(m, struct blox_io, hop);

	io->cb = io->hop_cb;
	io->cb(io);
}

/* The home: the backend completed it. */
static void hop_done(struct blox_io *io)
{
	struct blox_bdev_home *h = io->hop_bdev->home;

	io->hop.fn = hop_back_fn;
	blox_reactor_send(h->r, h->core, &io->hop);
}

/* The home: to the backend. */
static void hop_go_fn(struct blox_msg *m)
{
	struct blox_io *io = container_of(m, struct blox_io, hop);

	blox_reactor_worked(io->hop_bdev->home->r);
	io->hop_bdev->ops->submit(io->hop_bdev, io);
}

void blox_bdev_hop_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	struct blox_bdev_home *h = bdev->home;

	io->hop_cb = io->cb;
	io->cb = hop_done;
	io->hop_bdev = bdev;
	io->hop.fn = hop_go_fn;
	blox_reactor_send(h->core, h->r, &io->hop);
}

/* ---- the hop state ---- */

static struct bdev_hop *hop_of(struct blox_bdev *bdev)
{
	if (!bdev->hop)
		bdev->hop = calloc(1, sizeof(*bdev->hop));
	return bdev->hop;
}

static void hop_free(struct bdev_hop *hs)
{
	if (!hs)
		return;
	free(hs->dies);
	free(hs);
}

/*
 * The core, once the home has let @bdev go (destroyed, or left it): the
 * home sends no event for it any more. Its state is freed now, or by the
 * event message still on its way.
 */
static void hop_retire(struct bdev_hop *hs)
{
	if (!hs)
		return;
	hs->plm_event = NULL;
	hs->dead = true;
	if (!__atomic_load_n(&hs->plm_pending, __ATOMIC_ACQUIRE))
		hop_free(hs);
}

/* ---- create, destroy, leave ---- */

static void destroy_fn(void *arg)
{
	struct blox_bdev *bdev = arg;

	bdev->ops->destroy(bdev);
}

void bdev_hop_destroy(struct blox_bdev *bdev)
{
	struct blox_bdev_home *h = bdev->home;
	struct bdev_hop *hs = bdev->hop;

	/* Read before it goes: its hop state outlives it. */
	if (h)
		blox_reactor_call(h->core, h->r, destroy_fn, bdev);
	else
		bdev->ops->destroy(bdev);
	hop_retire(hs);
}

struct hop_leave {
	bool (*fn)(struct blox_bdev *bdev);
	struct blox_bdev *bdev;
	bool ok;
};

static void leave_fn(void *arg)
{
	struct hop_leave *l = arg;

	l->ok = l->fn(l->bdev);
}

bool bdev_hop_leave(struct blox_bdev *bdev, bool (*fn)(struct blox_bdev *bdev))
{
	struct hop_leave l = { .fn = fn, .bdev = bdev };

	if (!bdev->home)
		return fn(bdev);
	blox_reactor_call(bdev->home->core, bdev->home->r, leave_fn, &l);
	if (!l.ok)
		return false;
	hop_retire(bdev->hop);
	bdev->hop = NULL;
	bdev->home = NULL;
	return true;
}

/* ---- the optional ops ---- */

struct hop_op {
	struct blox_bdev *bdev;
	bool on;
	bool ok;
	int rc;
	uint64_t u64;
	struct blox_bdev_telemetry *t;
	struct bdev_hop *hs;
	struct blox_bdev_endurance *e;
	const struct blox_bdev_plm_config *cfg;
	enum blox_plm_window w;
	uint64_t *retry;
	struct blox_bdev_plm_info *info;
	struct blox_bdev_fdp *fdp;
	uint32_t ruh;
	void *buf;
	uint32_t len;
	bool save;
};

static void call_op(struct blox_bdev *bdev, void (*fn)(void *arg), struct hop_op *o)
{
	o->bdev = bdev;
	blox_bdev_home_call(bdev->home, fn, o);
}

static void cache_fn(void *arg)
{
	struct hop_op *o = arg;

	o->bdev->ops->set_write_cache(o->bdev, o->on);
}

void blox_bdev_set_write_cache(struct blox_bdev *bdev, bool on)
{
	struct hop_op o = { .on = on };

	if (bdev->ops->set_write_cache)
		call_op(bdev, cache_fn, &o);
}

/* There: fill, then copy what it points at into the hop state. */
static void telemetry_fn(void *arg)
{
	struct hop_op *o = arg;
	struct blox_bdev_telemetry *t = o->t;
	struct bdev_hop *hs = o->hs;

	o->bdev->ops->telemetry(o->bdev, t);
	if (t->nand) {
		hs->nand = *t->nand;
		t->nand = &hs->nand;
	}
	if (t->susp_decisions) {
		memcpy(hs->susp, t->susp_decisions, sizeof(hs->susp));
		t->susp_decisions = hs->susp;
	}
	if (t->nand_dev) {
		uint32_t n = nand_dies(&nand_dev_config(t->nand_dev)->geo);

		if (hs->ndies != n) {
			free(hs->dies);
			hs->dies = calloc(n, sizeof(*hs->dies));
			hs->ndies = hs->dies ? n : 0;
		}
		for (uint32_t i = 0; i < hs->ndies; i++)
			hs->dies[i] = *nand_die_stats(t->nand_dev, i);
		t->die_stats = hs->dies;
	}
}

bool blox_bdev_telemetry(struct blox_bdev *bdev, struct blox_bdev_telemetry *t)
{
	struct hop_op o = { .t = t };

	if (!bdev->ops->telemetry || !(o.hs = hop_of(bdev)))
		return false;
	call_op(bdev, telemetry_fn, &o);
	return true;
}

static void endurance_fn(void *arg)
{
	struct hop_op *o = arg;

	o->bdev->ops->endurance(o->bdev, o->e);
}

bool blox_bdev_endurance(struct blox_bdev *bdev, struct blox_bdev_endurance *e)
{
	struct hop_op o = { .e = e };

	if (!bdev->ops->endurance)
		return false;
	call_op(bdev, endurance_fn, &o);
	return true;
}

static void fdp_info_fn(void *arg)
{
	struct hop_op *o = arg;

	o->ok = o->bdev->ops->fdp_info(o->bdev, o->fdp);
}

bool blox_bdev_fdp_info(struct blox_bdev *bdev, struct blox_bdev_fdp *f)
{
	struct hop_op o = { .fdp = f };

	if (!bdev->ops->fdp_info)
		return false;
	call_op(bdev, fdp_info_fn, &o);
	return o.ok;
}

static void fdp_update_fn(void *arg)
{
	struct hop_op *o = arg;

	o->rc = o->bdev->ops->fdp_update(o->bdev, o->ruh);
}

int blox_bdev_fdp_update(struct blox_bdev *bdev, uint32_t ruh)
{
	struct hop_op o = { .ruh = ruh };

	if (!bdev->ops->fdp_update)
		return -EOPNOTSUPP;
	call_op(bdev, fdp_update_fn, &o);
	return o.rc;
}

static void fdp_log_fn(void *arg)
{
	struct hop_op *o = arg;

	o->rc = o->bdev->ops->fdp_log(o->bdev, o->buf, o->len, o->save);
}

int blox_bdev_fdp_log(struct blox_bdev *bdev, void *buf, uint32_t len, bool save)
{
	struct hop_op o = { .buf = buf, .len = len, .save = save };

	if (!bdev->ops->fdp_log)
		return -EOPNOTSUPP;
	call_op(bdev, fdp_log_fn, &o);
	return o.rc;
}

bool blox_bdev_has_plm(const struct blox_bdev *bdev)
{
	return bdev->ops->plm_config && bdev->ops->plm_window && bdev->ops->plm_query;
}

/* The core: an event the home told of. */
static void plm_event_fn(struct blox_msg *m)
{
	struct bdev_hop *hs = container_of(m, struct bdev_hop, plm_msg);

	__atomic_store_n(&hs->plm_pending, 0, __ATOMIC_RELEASE);
	if (hs->dead)
		hop_free(hs);
	else if (hs->plm_event)
		hs->plm_event(hs->plm_arg);
}

/* The home: the backend has an event; the core hears of it (once per batch). */
static void plm_tramp(void *arg)
{
	struct bdev_hop *hs = arg;

	if (__atomic_exchange_n(&hs->plm_pending, 1, __ATOMIC_ACQ_REL))
		return;
	hs->plm_msg.fn = plm_event_fn;
	blox_reactor_send(hs->home->r, hs->home->core, &hs->plm_msg);
}

static void plm_config_fn(void *arg)
{
	struct hop_op *o = arg;

	o->rc = o->bdev->ops->plm_config(o->bdev, o->cfg);
}

int blox_bdev_plm_config(struct blox_bdev *bdev, const struct blox_bdev_plm_config *cfg)
{
	struct blox_bdev_plm_config c = *cfg;
	struct hop_op o = { .cfg = &c };
	struct bdev_hop *hs;

	if (!blox_bdev_has_plm(bdev))
		return -EOPNOTSUPP;
	if (bdev->home && cfg->event) {
		if (!(hs = hop_of(bdev)))
			return -ENOMEM;
		/* Told at the home, heard here. */
		hs->plm_event = cfg->event;
		hs->plm_arg = cfg->event_arg;
		hs->home = bdev->home;
		c.event = plm_tramp;
		c.event_arg = hs;
	}
	call_op(bdev, plm_config_fn, &o);
	if (bdev->hop && (!cfg->enable || !cfg->event))
		bdev->hop->plm_event = NULL;
	return o.rc;
}

static void plm_window_fn(void *arg)
{
	struct hop_op *o = arg;

	o->rc = o->bdev->ops->plm_window(o->bdev, o->w, o->retry);
}

int blox_bdev_plm_window(struct blox_bdev *bdev, enum blox_plm_window w, uint64_t *retry_in_ns)
{
	struct hop_op o = { .w = w, .retry = retry_in_ns };

	if (!blox_bdev_has_plm(bdev))
		return -EOPNOTSUPP;
	call_op(bdev, plm_window_fn, &o);
	return o.rc;
}

static void plm_query_fn(void *arg)
{
	struct hop_op *o = arg;

	o->bdev->ops->plm_query(o->bdev, o->info, o->on);
}

void blox_bdev_plm_query(struct blox_bdev *bdev, struct blox_bdev_plm_info *info,
			 bool clear_events)
{
	struct hop_op o = { .info = info, .on = clear_events };

	if (blox_bdev_has_plm(bdev))
		call_op(bdev, plm_query_fn, &o);
}

static void mem_fn(void *arg)
{
	struct hop_op *o = arg;

	o->u64 = o->bdev->ops->mem_bytes(o->bdev);
}

uint64_t blox_bdev_mem_bytes(struct blox_bdev *bdev)
{
	struct hop_op o = { 0 };

	if (!bdev->ops->mem_bytes)
		return 0;
	call_op(bdev, mem_fn, &o);
	return o.u64;
}
