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
#include "bdev_ftl.h"
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

/*
 * A deterministic window ends or warns at a time, or a reclaim unit reaches
 * its time limit: ftl_process() then.
 */
void fb_plm_arm(struct ftl_bdev *fb)
{
	/* Also a reclaim unit's time limit (FDP). */
	uint64_t at = fb->ftl ? BLOX_MIN(ftl_plm_deadline(fb->ftl), ftl_fdp_deadline(fb->ftl))
			      : UINT64_MAX,
		 now, us;
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

const struct ftl_env_ops fb_env_ops = {
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
	if (!fb->ftl)
		return; /* a rebuild after a power cut failed */
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

/* A read's data lent by the flash (blox_io.lent) is given back: its block's pin goes. */
static void lend_end(void *ctx, uint64_t block)
{
	nand_unpin(ctx, block);
}

static void io_done(struct ftl_io *fio)
{
	struct fb_io *r = container_of(fio, struct fb_io, fio);
	struct ftl_bdev *fb = r->fb;
	struct blox_io *io = r->io;

	io->status = fio->status;
	if (fio->lent) {
		io->lent = fio->lent;
		io->lend_end = lend_end;
		io->lend_ctx = fio->lent_tab;
		io->lend_tok = fio->lent_block;
	}
	if (fio->status && fio->err_unit != UINT32_MAX)
		io->err_offset = BLOX_MAX(io->offset, ((uint64_t)fio->lba + fio->err_unit) * FTL_UNIT);
	r->busy = false;
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
		fio->lend = io->lend_ok;
		break;
	case BLOX_IO_WRITE:
		fio->op = FTL_IO_WRITE;
		fio->buf = io->iov[0].iov_base;
		fio->ruh = io->ruh;
		break;
	case BLOX_IO_WRITE_ZEROES:
	case BLOX_IO_TRIM:
		/* Unmapped units read as zeroes: both are a deallocate. */
		fio->op = FTL_IO_TRIM;
		break;
	case BLOX_IO_FLUSH:
		fio->op = FTL_IO_FLUSH;
		fio->issued_only = io->flush_issued;
		break;
	case BLOX_IO_ZONE_APPEND:
	case BLOX_IO_ZONE_MGMT:
		fio->op = FTL_IO_READ; /* not zoned: refused below */
		break;
	}
	/* No FTL: a rebuild after a power cut failed (logged); the namespace fails commands. */
	rc = io->op >= BLOX_IO_ZONE_APPEND ? -EOPNOTSUPP : fb->ftl ? ftl_submit(fb->ftl, fio) : -EIO;
	r->busy = !rc;
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

	if (!fb->ftl)
		return -ENODEV; /* a power cut's rebuild failed */
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

	if (fb->ftl)
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

const struct blox_bdev_ops ftl_bdev_ops = {
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
	.fdp_info = fb_fdp_info,
	.fdp_update = fb_fdp_update,
	.fdp_log = fb_fdp_log,
	.power_cut = fb_power_cut,
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
		if (p->faults) /* before it takes any op */
			nand_dev_set_faults(fb->nd->dev, p->faults, p->fault_name);
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
	env = (struct ftl_env){ .ops = &fb_env_ops, .ctx = fb, .dev = fb->dev,
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
	fb->base.power_protected = p->ftl->plp_ms > 0;
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
