/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Migrations of vSSDs between dies (FlashBlox): an operator's move (to
 * other channels or dies) or a wear-balancing swap the device's resource
 * manager chose. A job is the die moves of one vSSD, made one after the
 * other by its FTL while it serves I/O (ftl_migrate_*, through the
 * backend; a zoned vSSD's backend copies its zones' rows itself,
 * bdev_zns_mig.c, behind the same calls); one job runs per device at a
 * time, the rest wait.
 *
 * Holds: at the start every destination die is held for the vSSD
 * (fbx_reserve); a move puts its destination in the source's place
 * (fbx_move_switch) and the source stays held until the job ends, so a
 * cancel can move everything back; the end lets go of the sources (or,
 * cancelled, of the destinations). The job, its moves and the FTL's own
 * migration state are written to the device's vSSD record after every
 * step, so a restart (even after kill -9) gives the FTL its migration
 * back (ftl_resources.mig_*) and the job goes on where it was.
 *
 * A timer polls the running jobs' FTL progress (10 per second) and, every
 * few seconds otherwise, each device's wear: a swap check is due when its
 * average wear grew by a step (fbx_check_due, paced by erases, not by
 * this clock), and the swap it chooses becomes jobs.
 */

#include "prov_mig_internal.h"

#include <errno.h>
#include <event2/event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIG_POLL_MS 100
#define WEAR_POLL_MS 5000

const char *prov_mig_state_name(enum prov_mig_state s)
{
	static const char *const names[] = { "queued", "running", "paused", "cancelling",
					     "done", "cancelled", "failed" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

struct prov_mig *prov_mig_find(const struct blox_prov *p, uint32_t id)
{
	struct prov_mig *m;

	TAILQ_FOREACH(m, &p->migs, link)
		if (m->id == id)
			return m;
	return NULL;
}

/* The live job of a vSSD, if any. */
struct prov_mig *prov_mig_of(const struct blox_prov *p, const char *dev, uint32_t owner)
{
	struct prov_mig *m;

	TAILQ_FOREACH(m, &p->migs, link)
		if (!prov_mig_ended(m) && m->owner == owner && !strcmp(m->dev, dev))
			return m;
	return NULL;
}

static struct blox_bdev *mig_bdev(struct blox_prov *p, const struct prov_mig *m)
{
	struct nvmf_subsys *s = nvmf_subsys_find(p->tgt, m->nqn);
	struct nvmf_ns *ns = s ? nvmf_ns_find(s, m->nsid) : NULL;

	return ns ? ns->bdev : NULL;
}

/* The move the job makes now: forward moves[cur], or back moves[cur - 1]. */
static struct fbx_move mig_move(const struct prov_mig *m)
{
	struct fbx_move mv;

	if (!m->reverse)
		return m->moves[m->cur];
	mv = m->moves[m->cur - 1];
	return (struct fbx_move){ .owner = mv.owner, .from_die = mv.to_die, .to_die = mv.from_die };
}

static void mig_save(struct blox_prov *p, struct prov_mig *m)
{
	struct prov_device *d = prov_device_find(p, m->dev);
	struct blox_bdev *b = mig_bdev(p, m);

	if (!d)
		return;
	/* The FTL's own state of the move under way, as it must be given back. */
	memset(&m->ftl_res, 0, sizeof(m->ftl_res));
	if (b)
		blox_bdev_ftl_migrate_progress(b, NULL, &m->ftl_res);
	prov_device_save(p, d);
}

/* The job is over: let go of what it held and say so. */
static void mig_finish(struct blox_prov *p, struct prov_mig *m, enum prov_mig_state st,
		       int error)
{
	struct prov_device *d = prov_device_find(p, m->dev);

	m->state = st;
	m->error = error;
	m->ftl_active = false;
	m->finished_ns = blox_clock_now(p->tgt->clock);
	if (d) {
		uint32_t held[FBX_MAX_MOVES];
		uint32_t n = fbx_reserved(d->rm, m->owner, held, FBX_MAX_MOVES);

		/* Done: the sources go; otherwise what was held for the destinations. */
		for (uint32_t i = 0; i < n; i++)
			fbx_unreserve(d->rm, m->owner, held[i]);
	}
	blox_log(p->log, error ? BLOX_LOG_ERR : BLOX_LOG_INFO,
		 "migration %u of %s namespace %u: %s%s%s", m->id, m->nqn, m->nsid,
		 prov_mig_state_name(st), error ? ": " : "", error ? strerror(-error) : "");
	mig_save(p, m);
}

/* Start the job's next move in its FTL, or end the job when none is left. */
static void mig_next(struct blox_prov *p, struct prov_mig *m)
{
	struct prov_device *d = prov_device_find(p, m->dev);
	struct blox_bdev *b = mig_bdev(p, m);
	struct fbx_move mv;
	int rc;

	if (m->state != PM_RUNNING && m->state != PM_CANCELLING)
		return;
	if (!m->reverse && m->cur == m->nr) {
		mig_finish(p, m, PM_DONE, 0);
		return;
	}
	if (m->reverse && m->cur == 0) {
		mig_finish(p, m, m->error ? PM_FAILED : PM_CANCELLED, m->error);
		return;
	}
	if (!d || !b) {
		mig_finish(p, m, PM_FAILED, -ENOENT);
		return;
	}
	mv = mig_move(m);
	rc = fbx_move_switch(d->rm, &mv);
	if (!rc) {
		rc = blox_bdev_ftl_migrate(b, mv.from_die, mv.to_die, m->share);
		if (rc) {
			struct fbx_move back = { .owner = mv.owner, .from_die = mv.to_die,
						 .to_die = mv.from_die };

			fbx_move_switch(d->rm, &back);
		}
	}
	if (rc) {
		blox_log(p->log, BLOX_LOG_ERR,
			 "migration %u: die %u to die %u: %s", m->id, mv.from_die, mv.to_die,
			 strerror(-rc));
		if (m->reverse) {
			mig_finish(p, m, PM_FAILED, rc);
		} else {
			/* Undo what was moved so far. */
			m->error = rc;
			m->reverse = true;
			m->state = PM_CANCELLING;
			mig_next(p, m);
		}
		return;
	}
	m->ftl_active = true;
	if (!m->started_ns)
		m->started_ns = blox_clock_now(p->tgt->clock);
	mig_save(p, m);
}

/* A move's FTL migration ended (status 0: moved; else back on its source: -ECANCELED, -ENOSPC). */
static void mig_move_ended(struct blox_prov *p, struct prov_mig *m,
			   const struct ftl_migrate_progress *pr)
{
	struct prov_device *d = prov_device_find(p, m->dev);
	struct fbx_move mv = mig_move(m);
	struct mig_ext *x = mig_ext_of(m);

	/* Its last figures, then the bytes it moved go to their direction. */
	m->cur_bytes = pr->bytes_copied;
	m->cur_total = pr->bytes_total;
	x->cur_reverse = pr->reverse;
	prov_mig_sample(p, m);
	m->ftl_active = false;
	if (pr->reverse) {
		x->back_done += pr->bytes_copied;
	} else {
		if (m->cur < FBX_MAX_MOVES)
			x->move_fwd[m->cur] = pr->bytes_copied;
		m->bytes_done += pr->bytes_copied;
	}
	x->raw = m->bytes_done + x->back_done;
	if (pr->status == 0) {
		if (m->reverse)
			m->cur--;
		else
			m->cur++;
	} else if (d) {
		/*
		 * Cancelled in the FTL, or sent back by it (-ENOSPC: the new die has
		 * no good block left): the slot is on the source again. The job
		 * ends failed with that error once the moves before are undone.
		 */
		struct fbx_move back = { .owner = mv.owner, .from_die = mv.to_die,
					 .to_die = mv.from_die };

		if (pr->status != -ECANCELED && !m->error) {
			m->error = pr->status;
			blox_log(p->log, BLOX_LOG_ERR,
				 "migration %u: die %u to die %u: %s; moving back", m->id,
				 mv.from_die, mv.to_die, strerror(-pr->status));
		}
		fbx_move_switch(d->rm, &back);
		if (!m->reverse) {
			m->reverse = true;
			m->state = PM_CANCELLING;
		}
	}
	mig_save(p, m);
	mig_next(p, m);
}

/* The job that runs next on @dev: its destinations held, its first move started. */
static void mig_start_queued(struct blox_prov *p, const char *dev)
{
	struct prov_mig *m, *busy = NULL;

	TAILQ_FOREACH(m, &p->migs, link)
		if (!strcmp(m->dev, dev) && (m->state == PM_RUNNING || m->state == PM_PAUSED ||
					      m->state == PM_CANCELLING))
			busy = m;
	if (busy)
		return;
	TAILQ_FOREACH(m, &p->migs, link) {
		struct prov_device *d;
		int rc = 0;

		if (strcmp(m->dev, dev) || m->state != PM_QUEUED)
			continue;
		d = prov_device_find(p, dev);
		for (uint32_t i = 0; d && !rc && i < m->nr; i++)
			rc = fbx_reserve(d->rm, m->owner, m->moves[i].to_die);
		if (!d || rc) {
			mig_finish(p, m, PM_FAILED, d ? rc : -ENOENT);
			continue;
		}
		m->state = PM_RUNNING;
		mig_next(p, m);
		return;
	}
}

/* ---- The timer ---- */

static void mig_poll(struct blox_prov *p)
{
	struct prov_mig *m;

	TAILQ_FOREACH(m, &p->migs, link) {
		struct ftl_migrate_progress pr;
		struct blox_bdev *b;

		if (!m->ftl_active || !(b = mig_bdev(p, m)))
			continue;
		if (blox_bdev_ftl_migrate_progress(b, &pr, NULL))
			continue;
		if (pr.state == FTL_MIG_DONE) {
			mig_move_ended(p, m, &pr);
		} else if (pr.state == FTL_MIG_PAUSED && pr.status &&
			   (m->state == PM_RUNNING || m->state == PM_CANCELLING)) {
			/* An I/O error paused it in the FTL: the operator resumes or cancels. */
			m->state = PM_PAUSED;
			m->error = pr.status;
			prov_mig_rate_reset(m);
			blox_log(p->log, BLOX_LOG_ERR,
				 "migration %u: die %u to die %u paused by an error: %s; resume or "
				 "cancel it",
				 m->id, pr.src, pr.dst, strerror(-pr.status));
			mig_save(p, m);
		} else {
			m->cur_bytes = pr.bytes_copied;
			m->cur_total = pr.bytes_total;
			mig_ext_of(m)->cur_reverse = pr.reverse;
			prov_mig_sample(p, m);
		}
	}
}

static bool dev_busy(const struct blox_prov *p, const struct prov_device *d)
{
	const struct prov_mig *m;

	TAILQ_FOREACH(m, &p->migs, link)
		if (!prov_mig_ended(m) && !strcmp(m->dev, d->cfg.name))
			return true;
	return false;
}

/* Each device's wear: a due swap check, and the swap it chooses as jobs. */
static void wear_poll(struct blox_prov *p)
{
	struct prov_device *d;

	TAILQ_FOREACH(d, &p->devices, link) {
		struct fbx_swap sw;

		if (prov_device_wear_update(d))
			return;
		if (!d->cfg.auto_swap || !fbx_check_due(d->rm))
			continue;
		/* A device busy moving data checks again once that is over. */
		if (dev_busy(p, d))
			continue;
		if (fbx_swap_check(d->rm, &sw)) {
			blox_log(p->log, BLOX_LOG_INFO, "device %s: swap: %s", d->cfg.name, sw.why);
			prov_mig_from_moves(p, d, sw.moves, sw.nr, sw.why, d->cfg.swap_share);
		} else {
			blox_log(p->log, BLOX_LOG_DEBUG, "device %s: swap check: %s", d->cfg.name,
				 sw.why);
		}
		prov_device_save(p, d);
	}
}

static bool any_active(const struct blox_prov *p)
{
	const struct prov_mig *m;

	TAILQ_FOREACH(m, &p->migs, link)
		if (m->ftl_active)
			return true;
	return false;
}

static void timer_arm(struct blox_prov *p)
{
	uint32_t ms = any_active(p) ? MIG_POLL_MS : WEAR_POLL_MS;
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };

	if (p->mig_ev && !TAILQ_EMPTY(&p->devices))
		evtimer_add(p->mig_ev, &tv);
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_prov *p = arg;
	uint64_t now = blox_clock_now(p->tgt->clock);
	struct prov_device *d;

	(void)fd;
	(void)what;
	prov_mig_prune(p);
	mig_poll(p);
	if (now - p->wear_polled_ns >= (uint64_t)WEAR_POLL_MS * 1000000u) {
		p->wear_polled_ns = now;
		wear_poll(p);
	}
	TAILQ_FOREACH(d, &p->devices, link)
		mig_start_queued(p, d->cfg.name);
	timer_arm(p);
}

void prov_mig_kick(struct blox_prov *p)
{
	if (!p->mig_ev && p->tgt->base)
		p->mig_ev = evtimer_new(p->tgt->base, timer_cb, p);
	if (p->mig_ev) {
		event_del(p->mig_ev);
		timer_arm(p);
	}
}

void prov_migs_free(struct blox_prov *p)
{
	struct prov_mig *m;

	while ((m = TAILQ_FIRST(&p->migs))) {
		TAILQ_REMOVE(&p->migs, m, link);
		free(mig_ext_of(m));
	}
	if (p->mig_ev)
		event_free(p->mig_ev);
	p->mig_ev = NULL;
}

/* ---- Making jobs ---- */

struct prov_mig *prov_mig_new(struct blox_prov *p, struct prov_device *d, uint32_t owner)
{
	struct mig_ext *x = calloc(1, sizeof(*x));
	struct prov_mig *m = x ? &x->m : NULL;
	struct prov_vssd *v;

	if (!m)
		return NULL;
	v = prov_vssd_by_id(d, owner);
	m->id = ++p->next_mig_id;
	snprintf(m->dev, sizeof(m->dev), "%s", d->cfg.name);
	m->owner = owner;
	if (v) {
		snprintf(m->nqn, sizeof(m->nqn), "%s", v->nqn);
		m->nsid = v->nsid;
	}
	m->share = PROV_MIG_SHARE;
	m->created_ns = blox_clock_now(p->tgt->clock);
	TAILQ_INSERT_TAIL(&p->migs, m, link);
	return m;
}

int prov_mig_from_moves(struct blox_prov *p, struct prov_device *d, const struct fbx_move *mv,
			uint32_t nr, const char *why, uint32_t share)
{
	/* One job per vSSD, in the order the moves come (a trade's second waits for the first). */
	for (uint32_t i = 0; i < nr;) {
		struct prov_mig *m;
		uint32_t j = i;

		if (prov_mig_of(p, d->cfg.name, mv[i].owner))
			return -EBUSY;
		m = prov_mig_new(p, d, mv[i].owner);
		if (!m)
			return -ENOMEM;
		snprintf(m->why, sizeof(m->why), "%s", why);
		if (share)
			m->share = share;
		while (j < nr && mv[j].owner == mv[i].owner && m->nr < FBX_MAX_MOVES)
			m->moves[m->nr++] = mv[j++];
		i = j;
	}
	mig_start_queued(p, d->cfg.name);
	prov_mig_kick(p);
	return 0;
}

/* ---- Operator's controls ---- */

int prov_mig_pause(struct blox_prov *p, struct prov_mig *m)
{
	struct blox_bdev *b = mig_bdev(p, m);
	int rc = 0;

	if (m->state != PM_RUNNING)
		return -EINVAL;
	if (m->ftl_active && b)
		rc = blox_bdev_ftl_migrate_ctl(b, BLOX_MIG_PAUSE, 0);
	if (!rc) {
		prov_mig_rate_reset(m);
		m->state = PM_PAUSED;
		mig_save(p, m);
	}
	return rc;
}

int prov_mig_resume(struct blox_prov *p, struct prov_mig *m)
{
	struct blox_bdev *b = mig_bdev(p, m);
	int rc = 0;

	if (m->state != PM_PAUSED)
		return -EINVAL;
	if (m->ftl_active && b)
		rc = blox_bdev_ftl_migrate_ctl(b, BLOX_MIG_RESUME, 0);
	if (!rc) {
		prov_mig_rate_reset(m);
		m->state = m->reverse ? PM_CANCELLING : PM_RUNNING;
		if (!m->reverse)
			m->error = 0; /* an FTL error it was paused for, retried */
		mig_save(p, m);
		if (!m->ftl_active)
			mig_next(p, m);
		prov_mig_kick(p);
	}
	return rc;
}

int prov_mig_cancel(struct blox_prov *p, struct prov_mig *m)
{
	struct blox_bdev *b = mig_bdev(p, m);
	int rc = 0;

	if (prov_mig_ended(m) || m->state == PM_CANCELLING)
		return -EINVAL;
	if (m->state == PM_QUEUED) {
		mig_finish(p, m, PM_CANCELLED, 0);
		return 0;
	}
	if (m->ftl_active && b) {
		/* The move under way goes back first; then the finished ones, last first. */
		rc = blox_bdev_ftl_migrate_ctl(b, BLOX_MIG_CANCEL, 0);
		if (rc)
			return rc;
		prov_mig_rate_reset(m);
		m->state = PM_CANCELLING;
		mig_save(p, m);
	} else {
		prov_mig_rate_reset(m);
		m->reverse = true;
		m->state = PM_CANCELLING;
		mig_next(p, m);
	}
	prov_mig_kick(p);
	return 0;
}

int prov_mig_set_share(struct blox_prov *p, struct prov_mig *m, uint32_t share)
{
	struct blox_bdev *b = mig_bdev(p, m);

	if (share < 1 || share > 1000)
		return -EINVAL;
	/* The rate at the old share says nothing of the new one. */
	if (share != m->share)
		prov_mig_rate_reset(m);
	m->share = share;
	if (m->ftl_active && b)
		return blox_bdev_ftl_migrate_ctl(b, BLOX_MIG_SHARE, share);
	return 0;
}

/* ---- After a restart ---- */

void prov_mig_resumed(struct blox_prov *p, struct prov_mig *m)
{
	if (!m->started_ns)
		m->started_ns = blox_clock_now(p->tgt->clock);
	/*
	 * The FTL took its migration back when it was made (ftl_resources.mig_*),
	 * and runs it; a paused job pauses it again.
	 */
	if (m->ftl_active && m->state == PM_PAUSED) {
		struct blox_bdev *b = mig_bdev(p, m);

		if (b)
			blox_bdev_ftl_migrate_ctl(b, BLOX_MIG_PAUSE, 0);
	} else if (!m->ftl_active && (m->state == PM_RUNNING || m->state == PM_CANCELLING)) {
		mig_next(p, m);
	}
	prov_mig_kick(p);
}
