/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A power cut of a "nand" namespace on a device of its own, in process: the
 * device loses power and comes back, as a drive does.
 *
 * At the cut every flash op in flight is dropped (nand_power_cut()): a
 * program cut in its array phase leaves its page torn, an erase cut short
 * leaves its block as it was, ops not started leave nothing. The FTL
 * instance goes with everything only it held: its write buffer (the
 * volatile write cache: acknowledged writes not flushed), its dirty
 * mappings, its queues. Then power comes back: a fresh instance is made
 * over the same store with the same configuration and resources and
 * rebuilds itself from flash exactly as after kill -9 (ftl_create(): the
 * newest checkpoint and the OOB scan, torn pages read as no one's). The
 * commands the namespace held fail (their hosts' connections are gone;
 * the caller drops them first), and new ones go to the new instance.
 *
 * Power-loss protection (ftl_config.plp_ms): at the cut the FTL submits
 * every page its write buffer holds and GC stops where it is, and the
 * flash runs on, in the NAND timing model (the device driven in virtual
 * time, nothing else on this reactor runs meanwhile), until it is idle
 * or the hold-up is over: what completed is on flash, the rest is
 * cut like the rest. With plp_suspend (the default) an erase running on a
 * die where the buffer's programs wait is suspended for them
 * (nand_set_plp_flush(); nand_power_cut() ends it); a running program is
 * not. Without protection the buffer is lost at once. Either way the acknowledged data lost is counted.
 *
 * A vSSD on a registered device loses power alone: its dies (or its share
 * of dies a software pool shares) keep serving the device's other vSSDs.
 * Only its tenant's ops are cut (nand_power_cut_tenant()): those queued
 * dropped, those running torn as above, the die staying busy for the rest
 * of their time so that the neighbours' ops run as they would have. Its
 * rebuild runs on this reactor straight on the store, as a vSSD made on
 * a running device does. While one of its dies migrates the rebuild takes
 * the migration back as a restart does (ftl_resources.mig_*, kept from the
 * instance cut: ftl_create() finds per superblock which die holds its data
 * and resumes). Refused alone with power-loss protection (-EOPNOTSUPP): a
 * drive's capacitors hold the whole drive, and the hold-up, driving the
 * shared device in virtual time, would run the neighbours' ops ahead of
 * their clock. Its whole device's cut (blox_nand_dev_power_cut()) takes
 * it: one hold-up for the device, as long as the longest plp_ms on it,
 * drives every protected vSSD's FTL at once (dev_power_cut()).
 *
 * 512-byte blocks: the sub-unit layer's commands whose FTL requests were
 * lost with the instance end with -EIO after the rebuild (a read-modify-
 * write cut between its read and its write writes nothing).
 */
#include "bdev_ftl.h"
#include "bdev_zns.h"
#include "bdev_ftl_sub.h"
#include "blox_clock.h"
#include "blox_log.h"
#include "blox_util.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

/*
 * The hold-up: every buffer of @fbs (@n FTLs on device @dev) to flash, the
 * device run for @ms of its time, each FTL's completions processed as they
 * come. Returns the time used (ns of the NAND timing model).
 */
static uint64_t hold_up(struct nand_dev *dev, struct ftl_bdev *const *fbs, uint32_t n, uint32_t ms)
{
	uint64_t t0 = blox_clock_now(fbs[0]->clock), end = t0 + (uint64_t)ms * 1000000ull;
	uint64_t used = 0;

	for (uint32_t i = 0; i < n; i++)
		ftl_power_fail(fbs[i]->ftl);
	for (;;) {
		bool ran = false;
		uint64_t next;

		for (uint32_t i = 0; i < n; i++) {
			if (!fbs[i]->kicked)
				continue;
			fbs[i]->kicked = false;
			ftl_process(fbs[i]->ftl);
			ran = true;
		}
		if (ran)
			continue;
		next = nand_next_event(dev);
		for (uint32_t i = 0; i < n && next == UINT64_MAX; i++) {
			if (!ftl_volatile_units(fbs[i]->ftl))
				continue;
			/* Writes that waited for room filled pages meanwhile: those too. */
			ftl_power_fail(fbs[i]->ftl);
			next = nand_next_event(dev);
		}
		if (next == UINT64_MAX || next > end)
			break;
		/*
		 * On until the flash is idle, not only until the buffers are
		 * on it: a program of GC's or of a translation page cut now
		 * would leave a torn page, and the rebuild would not reopen
		 * its superblock (repeated cuts then used up the free ones).
		 */
		nand_advance(dev, next);
		used = next > t0 ? next - t0 : 0;
	}
	return used;
}

/* What a cut keeps of an instance for its rebuild. */
struct fb_cut {
	struct ftl_config fc;
	struct ftl_resources res;
};

/* May @fb lose power now? 0, or -errno with out->refused; fills @k. */
static int cut_check(struct ftl_bdev *fb, struct fb_cut *k, struct blox_bdev_power_cut *out)
{
	out->shared = fb->nd->registered || fb->nd->refs > 1;
	if (!fb->ftl || !fb->rt)
		return -ENODEV; /* not serving (unbound, or a rebuild failed) */
	ftl_get_config(fb->ftl, &k->fc);
	ftl_get_resources(fb->ftl, &k->res);
	if (out->shared && !nand_dev_config(fb->dev)->sched.ntenants) {
		out->refused = "its device is shared without tenants";
		return -EOPNOTSUPP;
	}
	if (out->shared && k->fc.plp_ms && !out->device) {
		out->refused = "a vSSD with power-loss protection (plp_ms) on a registered device "
			       "loses power only with its device, as a drive's capacitors hold the "
			       "whole drive: cut the device instead (fault power-cut --device)";
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Power off, after any hold-up: the flash stops where it is (on a shared
 * device only this vSSD's ops), the FTL's memory is gone. 0, a torn
 * page's store error (logged, the cut goes on), or -ENOMEM with nothing
 * cut.
 */
static int cut_off(struct ftl_bdev *fb, struct fb_cut *k, struct blox_bdev_power_cut *out)
{
	struct nand_power_cut_stats cut;
	int rc;

	out->bytes_lost = ftl_volatile_units(fb->ftl) * FTL_UNIT;
	rc = out->shared ? nand_power_cut_tenant(fb->dev, k->fc.tenant, true, &cut)
			 : nand_power_cut(fb->dev, true, &cut);
	if (rc == -ENOMEM)
		return rc; /* nothing was cut: it serves on */
	if (rc)
		blox_log(fb->log, BLOX_LOG_ERR, "power cut: a torn page not written: %s",
			 strerror(-rc));
	ftl_destroy(fb->ftl);
	fb->ftl = NULL;
	fb->kicked = false;
	if (fb->wake_ev)
		evtimer_del(fb->wake_ev);
	fb->wake_ns = 0;
	if (fb->plm_ev)
		evtimer_del(fb->plm_ev);
	fb->plm_armed = 0;
	out->ops_dropped = cut.dropped;
	out->programs_torn = cut.torn;
	return 0;
}

/* Power on: the same store, rebuilt from flash as after a crash; what the old instance held fails. */
static int cut_on(struct ftl_bdev *fb, struct fb_cut *k, struct blox_bdev_power_cut *out)
{
	struct ftl_stats st;
	struct ftl_env env;
	uint64_t t0 = blox_clock_now(fb->clock);
	int rc;

	env = (struct ftl_env){ .ops = &fb_env_ops, .ctx = fb, .dev = fb->dev,
				.store = fb->store };
	rc = ftl_create(&k->fc, &env, &k->res, &fb->ftl);
	out->rebuild_ns = blox_clock_now(fb->clock) - t0;
	if (rc) {
		fb->ftl = NULL;
		blox_log(fb->log, BLOX_LOG_ERR,
			 "power cut: the rebuild from flash failed: %s; the namespace fails "
			 "every command",
			 strerror(-rc));
	} else {
		ftl_get_stats(fb->ftl, &st);
		out->recovered_units = st.recovered_units;
		out->superblocks_retired = (uint32_t)st.superblocks_retired;
	}

	/* What the old instance held fails; io_done() starts waiting ones anew. */
	for (uint32_t i = 0; i < FTL_BDEV_IOS; i++) {
		struct fb_io *r = &fb->ios[i];

		if (!r->busy)
			continue;
		r->fio.status = -EIO;
		out->cmds_failed++;
		r->fio.cb(&r->fio);
	}
	/* 512-byte blocks: the sub-unit layer's commands whose FTL requests were lost. */
	if (fb->sub)
		out->cmds_failed += fb_sub_power_cut(fb->sub);
	blox_log(fb->log, rc ? BLOX_LOG_ERR : BLOX_LOG_INFO,
		 "power cut%s: %lu of %lu bytes acknowledged and buffered lost (hold-up %u ms, "
		 "%.2f ms used); %lu flash ops dropped, %u programs torn, %u commands failed; "
		 "rebuilt from flash in %.1f ms (%lu units from the OOB scan)",
		 out->shared ? " of a vSSD" : "", (unsigned long)out->bytes_lost,
		 (unsigned long)out->bytes_buffered, out->holdup_ms, out->holdup_used_ns / 1e6,
		 (unsigned long)out->ops_dropped, out->programs_torn, out->cmds_failed,
		 out->rebuild_ns / 1e6, (unsigned long)out->recovered_units);
	return rc;
}

int fb_power_cut(struct blox_bdev *bdev, struct blox_bdev_power_cut *out)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	bool check_only = out->check_only, device = out->device;
	struct fb_cut k;
	int rc;

	memset(out, 0, sizeof(*out));
	out->check_only = check_only;
	/* Only a check may be as part of the device's cut: the cut itself is dev_power_cut()'s. */
	out->device = device && check_only;
	rc = cut_check(fb, &k, out);
	if (rc || check_only)
		return rc;
	out->bytes_buffered = ftl_volatile_units(fb->ftl) * FTL_UNIT;
	if (k.fc.plp_ms) {
		out->holdup_ms = k.fc.plp_ms;
		out->holdup_used_ns = hold_up(fb->dev, &fb, 1, k.fc.plp_ms);
	}
	rc = cut_off(fb, &k, out);
	if (rc == -ENOMEM)
		return rc;
	return cut_on(fb, &k, out);
}

/* A vSSD of a device being cut: its zoned backend, or its FTL's and what the rebuild keeps. */
struct dev_cut {
	struct zns_bdev *zb;
	struct ftl_bdev *fb;
	struct fb_cut k;
	bool off; /* its power is off: it is rebuilt */
};

/* May every one of @dc lose power with device @nd? 0, or the first refusal. */
static int dev_cut_check(struct blox_nand_dev *nd, struct blox_bdev *const *bdevs, uint32_t n,
			 struct dev_cut *dc, struct blox_bdev_power_cut *outs)
{
	int rc = 0;

	for (uint32_t i = 0; i < n && !rc; i++) {
		memset(&outs[i], 0, sizeof(outs[i]));
		outs[i].device = true;
		dc[i].zb = zb_of(bdevs[i], nd);
		dc[i].fb = container_of(bdevs[i], struct ftl_bdev, base);
		if (dc[i].zb)
			rc = zb_cut_check(dc[i].zb, &outs[i]);
		else if (bdevs[i]->ops != &ftl_bdev_ops || dc[i].fb->nd != nd)
			rc = -EINVAL;
		else
			rc = cut_check(dc[i].fb, &dc[i].k, &outs[i]);
	}
	return rc;
}

/* A vSSD's power off (its hold-up, if any, run); -ENOMEM with it not cut. */
static int dev_cut_off(struct dev_cut *d, struct blox_bdev_power_cut *out)
{
	int rc = d->zb ? zb_cut_off(d->zb, out) : cut_off(d->fb, &d->k, out);

	d->off = rc != -ENOMEM;
	return rc;
}

/*
 * The whole device: one drive losing power. The vSSDs without power-loss
 * protection (zoned ones too) lose it at the cut: their flash ops cut,
 * their buffers lost. Then, if any has plp_ms, the device's one hold-up,
 * as long as the longest plp_ms: every protected vSSD's buffer submitted
 * at once, the device run in its time with each FTL's completions
 * processed, until it is idle or the hold-up is over. Then the protected
 * ones' power goes as well, the device is left idle, and only then is
 * each rebuilt from flash. At the device's home.
 */
static int dev_power_cut(struct blox_nand_dev *nd, struct blox_bdev *const *bdevs, uint32_t n,
			 struct blox_bdev_power_cut *outs)
{
	struct dev_cut *dc = calloc(n ? n : 1, sizeof(*dc));
	struct ftl_bdev **plp = calloc(n ? n : 1, sizeof(*plp));
	uint32_t np = 0, hold = 0, cut = 0;
	uint64_t used = 0;
	int rc;

	if (!dc || !plp) {
		free(dc);
		free(plp);
		return -ENOMEM;
	}
	rc = dev_cut_check(nd, bdevs, n, dc, outs);
	for (uint32_t i = 0; i < n && !rc; i++) {
		if (dc[i].zb)
			continue;
		outs[i].bytes_buffered = ftl_volatile_units(dc[i].fb->ftl) * FTL_UNIT;
		if (!dc[i].k.fc.plp_ms)
			continue;
		plp[np++] = dc[i].fb;
		hold = dc[i].k.fc.plp_ms > hold ? dc[i].k.fc.plp_ms : hold;
	}
	/* Off at the cut: the unprotected. -ENOMEM: those cut come back, the rest serve on. */
	for (uint32_t i = 0; i < n && !rc; i++)
		if (dc[i].zb || !dc[i].k.fc.plp_ms)
			rc = dev_cut_off(&dc[i], &outs[i]);
	if (!rc && np) {
		used = hold_up(nd->dev, plp, np, hold);
		for (uint32_t i = 0; i < n; i++) {
			if (dc[i].zb || !dc[i].k.fc.plp_ms)
				continue;
			outs[i].holdup_ms = hold;
			outs[i].holdup_used_ns = used;
		}
	}
	/* Off at the hold-up's end: the protected. */
	for (uint32_t i = 0; i < n && !rc; i++)
		if (!dc[i].zb && dc[i].k.fc.plp_ms)
			rc = dev_cut_off(&dc[i], &outs[i]);
	for (uint32_t i = 0; i < n; i++)
		cut += dc[i].off;
	/* The device idle: what the cut ops had left of their time is gone with the power. */
	if (cut)
		nand_power_cut(nd->dev, false, NULL);
	for (uint32_t i = 0; i < n; i++) {
		int r;

		if (!dc[i].off)
			continue;
		r = dc[i].zb ? zb_cut_on(dc[i].zb, &outs[i]) : cut_on(dc[i].fb, &dc[i].k, &outs[i]);
		if (!rc)
			rc = r;
	}
	free(plp);
	free(dc);
	return rc;
}

struct dev_power_op {
	struct blox_nand_dev *nd;
	struct blox_bdev *const *bdevs;
	uint32_t n;
	struct blox_bdev_power_cut *outs;
	int rc;
};

static void dev_power_fn(void *arg)
{
	struct dev_power_op *o = arg;

	o->rc = dev_power_cut(o->nd, o->bdevs, o->n, o->outs);
}

int blox_nand_dev_power_cut(struct blox_nand_dev *nd, struct blox_bdev *const *bdevs, uint32_t n,
			    struct blox_bdev_power_cut *outs)
{
	struct dev_power_op o = { .nd = nd, .bdevs = bdevs, .n = n, .outs = outs };

	blox_bdev_home_call(nd->home, dev_power_fn, &o);
	return o.rc;
}

struct power_op {
	struct blox_bdev *bdev;
	struct blox_bdev_power_cut *out;
	int rc;
};

static void power_fn(void *arg)
{
	struct power_op *o = arg;

	o->rc = o->bdev->ops->power_cut(o->bdev, o->out);
}

static int power_cut(struct blox_bdev *bdev, bool check_only, bool device,
		     struct blox_bdev_power_cut *out)
{
	struct power_op o = { .bdev = bdev, .out = out };

	memset(out, 0, sizeof(*out));
	out->check_only = check_only;
	out->device = device;
	if (!bdev->ops->power_cut)
		return -EOPNOTSUPP;
	blox_bdev_home_call(bdev->home, power_fn, &o);
	return o.rc;
}

int blox_bdev_power_cut(struct blox_bdev *bdev, bool check_only, struct blox_bdev_power_cut *out)
{
	return power_cut(bdev, check_only, false, out);
}

int blox_bdev_power_cut_check(struct blox_bdev *bdev, bool with_device,
			      struct blox_bdev_power_cut *out)
{
	return power_cut(bdev, true, with_device, out);
}
