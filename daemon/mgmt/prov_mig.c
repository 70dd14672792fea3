/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Migrations of vSSDs between dies (FlashBlox): an operator's move (to
 * other channels or dies) or a wear-balancing swap the device's resource
 * manager chose. A job is the die moves of one vSSD, made one after the
 * other by its FTL while it serves I/O (ftl_migrate_*, through the
 * backend); one job runs per device at a time, the rest wait.
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
#include "prov_mig.h"

#include <errno.h>
#include <event2/event.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIG_POLL_MS 100
#define WEAR_POLL_MS 5000
#define RATE_SAMPLES 64 /* > PROV_MIG_RATE_WINDOW_S seconds of polls */
#define RATE_MIN_NS 500000000ull /* a recent rate needs half a second of samples */

/*
 * A job and what its progress view keeps (prov_mig_new() makes both;
 * container_of() finds this from the job).
 */
struct mig_ext {
	struct prov_mig m;
	/* Forward progress as shown: the most reached. */
	double pct;
	uint64_t fwd_shown, fwd_total;
	/* Moving back: by the moves ended, the move under way, as shown. */
	uint64_t back_done, back_shown, back_total;
	bool cur_reverse; /* the FTL's move under way goes back (its last sample) */
	uint64_t move_fwd[FBX_MAX_MOVES]; /* forward bytes each move made */
	/* Bytes moved either way, never less (the recent rate's counter). */
	uint64_t moved, raw;
	struct {
		uint64_t ns, bytes;
	} ring[RATE_SAMPLES];
	unsigned head, n; /* samples in ring[], the newest at head - 1 */
	uint64_t elapsed_saved; /* an ended job read back from a device's record */
};

static struct mig_ext *ext_of(struct prov_mig *m)
{
	return (struct mig_ext *)((char *)m - offsetof(struct mig_ext, m));
}

static const struct mig_ext *ext_of_c(const struct prov_mig *m)
{
	return (const struct mig_ext *)((const char *)m - offsetof(struct mig_ext, m));
}

const char *prov_mig_state_name(enum prov_mig_state s)
{
	static const char *const names[] = { "queued", "running", "paused", "cancelling",
					     "done", "cancelled", "failed" };

	return (unsigned)s < sizeof(names) / sizeof(names[0]) ? names[s] : "?";
}

static bool mig_ended(const struct prov_mig *m)
{
	return m->state == PM_DONE || m->state == PM_CANCELLED || m->state == PM_FAILED;
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
		if (!mig_ended(m) && m->owner == owner && !strcmp(m->dev, dev))
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

/* ---- Progress as shown (prov_mig.h) ---- */

/* The job moves back now: cancelling, or its FTL's move under way goes back. */
static bool mig_back(const struct prov_mig *m)
{
	return m->reverse || m->state == PM_CANCELLING || (m->ftl_active && ext_of_c(m)->cur_reverse);
}

/* What move @k copied forward (an average of the moves made when it is not known). */
static uint64_t move_bytes(const struct mig_ext *x, uint32_t k)
{
	const struct prov_mig *m = &x->m;

	if (x->move_fwd[k])
		return x->move_fwd[k];
	return m->cur ? m->bytes_done / m->cur : 0;
}

/* The rate's samples start again (a pause, a resume, a cancel, a new share). */
static void rate_reset(struct prov_mig *m)
{
	ext_of(m)->n = 0;
}

/*
 * The view's figures from the job and its FTL's last sample (cur_bytes,
 * cur_total, cur_reverse): the most reached, and one more sample of the
 * bytes moved for the recent rate.
 */
static void mig_sample(struct blox_prov *p, struct prov_mig *m)
{
	struct mig_ext *x = ext_of(m);
	uint64_t cur = m->ftl_active ? m->cur_bytes : 0, raw;

	if (!mig_back(m)) {
		uint64_t per = m->cur_total ? m->cur_total : m->cur ? m->bytes_done / m->cur : 0;
		double frac = m->nr ? ((double)m->cur + (m->ftl_active && m->cur_total
							 ? (double)m->cur_bytes / (double)m->cur_total
							 : 0)) / m->nr
				    : 1.0;

		if (frac > 1.0)
			frac = 1.0;
		if (frac * 100.0 > x->pct)
			x->pct = frac * 100.0;
		if (m->bytes_done + cur > x->fwd_shown)
			x->fwd_shown = m->bytes_done + cur;
		x->fwd_total = m->bytes_done + per * (m->nr - m->cur);
	} else {
		bool going = m->ftl_active && x->cur_reverse;
		/* The move under way: what it moved back, or (not turned yet) what it copied. */
		uint64_t back = x->back_done + (going ? cur : 0);
		uint64_t total = x->back_done + (m->ftl_active ? (going ? m->cur_total : cur) : 0);
		/* The moves still to go back: those before the one under way. */
		uint32_t left = m->reverse && m->ftl_active ? m->cur - 1 : m->cur;

		for (uint32_t k = 0; k < left && k < FBX_MAX_MOVES; k++)
			total += move_bytes(x, k);
		if (back > x->back_shown)
			x->back_shown = back;
		x->back_total = total > x->back_shown ? total : x->back_shown;
	}
	/* Bytes moved either way; a copy dropped (pause, cancel) is not counted back off. */
	raw = m->bytes_done + x->back_done + cur;
	if (raw > x->raw)
		x->moved += raw - x->raw;
	x->raw = raw;
	if (m->ftl_active && (m->state == PM_RUNNING || m->state == PM_CANCELLING)) {
		x->ring[x->head].ns = blox_clock_now(p->tgt->clock);
		x->ring[x->head].bytes = x->moved;
		x->head = (x->head + 1) % RATE_SAMPLES;
		if (x->n < RATE_SAMPLES)
			x->n++;
	}
}

/* MB/s over the samples of the last PROV_MIG_RATE_WINDOW_S seconds (0: too few); @span. */
static double ring_rate(const struct mig_ext *x, uint64_t *span)
{
	unsigned last = (x->head + RATE_SAMPLES - 1) % RATE_SAMPLES, first = last;

	*span = 0;
	if (x->n < 2)
		return 0;
	for (unsigned i = 1; i < x->n; i++) {
		unsigned k = (last + RATE_SAMPLES - i) % RATE_SAMPLES;

		if (x->ring[last].ns - x->ring[k].ns > PROV_MIG_RATE_WINDOW_S * 1000000000ull)
			break;
		first = k;
	}
	*span = x->ring[last].ns - x->ring[first].ns;
	if (*span < RATE_MIN_NS)
		return 0;
	return (double)(x->ring[last].bytes - x->ring[first].bytes) * 1000.0 / (double)*span;
}

void prov_mig_view(const struct blox_prov *p, const struct prov_mig *m,
		   struct prov_mig_view *v)
{
	const struct mig_ext *x = ext_of_c(m);
	bool ended = mig_ended(m);
	uint64_t span = 0;

	memset(v, 0, sizeof(*v));
	v->percent = m->state == PM_DONE ? 100.0 : x->pct;
	v->bytes_copied = x->fwd_shown;
	v->bytes_total = m->state == PM_DONE || x->fwd_total < x->fwd_shown ? x->fwd_shown
									 : x->fwd_total;
	v->moving_back = mig_back(m) || x->back_shown;
	if (v->moving_back) {
		v->bytes_back = x->back_shown;
		v->back_total = x->back_total > x->back_shown ? x->back_total : x->back_shown;
		/* All of it went back: the cancel's end. */
		if (ended && m->reverse && m->cur == 0)
			v->back_total = v->bytes_back;
		v->back_percent = v->back_total ? 100.0 * (double)v->bytes_back / (double)v->back_total
						: ended && m->cur == 0 ? 100.0 : 0;
	}
	if (m->started_ns) {
		uint64_t end = m->finished_ns ? m->finished_ns : blox_clock_now(p->tgt->clock);

		v->elapsed_ns = end > m->started_ns ? end - m->started_ns : 0;
	} else {
		v->elapsed_ns = x->elapsed_saved;
	}
	if (v->elapsed_ns)
		v->avg_rate_mbps = (double)x->moved * 1000.0 / (double)v->elapsed_ns;
	if (ended || (m->state != PM_RUNNING && m->state != PM_CANCELLING))
		return;
	v->rate_mbps = ring_rate(x, &span);
	v->rate_window_ns = span;
	if (v->rate_mbps > 0) {
		uint64_t left = v->moving_back ? v->back_total - v->bytes_back
					       : v->bytes_total - v->bytes_copied;

		v->eta_ns = (uint64_t)((double)left * 1000.0 / v->rate_mbps);
	}
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

/* A move's FTL migration ended (status 0: moved; -ECANCELED: back on its source). */
static void mig_move_ended(struct blox_prov *p, struct prov_mig *m,
			   const struct ftl_migrate_progress *pr)
{
	struct prov_device *d = prov_device_find(p, m->dev);
	struct fbx_move mv = mig_move(m);
	struct mig_ext *x = ext_of(m);

	/* Its last figures, then the bytes it moved go to their direction. */
	m->cur_bytes = pr->bytes_copied;
	m->cur_total = pr->bytes_total;
	x->cur_reverse = pr->reverse;
	mig_sample(p, m);
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
		/* Cancelled in the FTL: the slot is on the source again. */
		struct fbx_move back = { .owner = mv.owner, .from_die = mv.to_die,
					 .to_die = mv.from_die };

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
			rate_reset(m);
			blox_log(p->log, BLOX_LOG_ERR,
				 "migration %u: die %u to die %u paused by an error: %s; resume or "
				 "cancel it",
				 m->id, pr.src, pr.dst, strerror(-pr.status));
			mig_save(p, m);
		} else {
			m->cur_bytes = pr.bytes_copied;
			m->cur_total = pr.bytes_total;
			ext_of(m)->cur_reverse = pr.reverse;
			mig_sample(p, m);
		}
	}
}

static bool dev_busy(const struct blox_prov *p, const struct prov_device *d)
{
	const struct prov_mig *m;

	TAILQ_FOREACH(m, &p->migs, link)
		if (!mig_ended(m) && !strcmp(m->dev, d->cfg.name))
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

static void mig_prune(struct blox_prov *p);

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_prov *p = arg;
	uint64_t now = blox_clock_now(p->tgt->clock);
	struct prov_device *d;

	(void)fd;
	(void)what;
	mig_prune(p);
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
		free(ext_of(m));
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
		rate_reset(m);
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
		rate_reset(m);
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

	if (mig_ended(m) || m->state == PM_CANCELLING)
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
		rate_reset(m);
		m->state = PM_CANCELLING;
		mig_save(p, m);
	} else {
		rate_reset(m);
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
		rate_reset(m);
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

/* ---- Ended jobs across a restart (prov_mig.h) ---- */

/* Ended jobs beyond the newest PROV_MIG_KEEP of their device go. */
static void mig_prune(struct blox_prov *p)
{
	struct prov_mig *m, *next, *o;

	for (m = TAILQ_FIRST(&p->migs); m; m = next) {
		uint32_t newer = 0;

		next = TAILQ_NEXT(m, link);
		if (!mig_ended(m))
			continue;
		TAILQ_FOREACH(o, &p->migs, link)
			newer += o != m && mig_ended(o) && o->id > m->id && !strcmp(o->dev, m->dev);
		if (newer >= PROV_MIG_KEEP) {
			TAILQ_REMOVE(&p->migs, m, link);
			free(ext_of(m));
		}
	}
}

static void jint(json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

json_object *prov_mig_ended_json(const struct blox_prov *p, const char *dev)
{
	json_object *arr = json_object_new_array();
	const struct prov_mig *m, *o;

	TAILQ_FOREACH(m, &p->migs, link) {
		const struct mig_ext *x = ext_of_c(m);
		struct prov_mig_view v;
		json_object *j, *moves;
		uint32_t newer = 0;

		if (!mig_ended(m) || strcmp(m->dev, dev))
			continue;
		TAILQ_FOREACH(o, &p->migs, link)
			newer += o != m && mig_ended(o) && o->id > m->id && !strcmp(o->dev, dev);
		if (newer >= PROV_MIG_KEEP)
			continue;
		prov_mig_view(p, m, &v);
		j = json_object_new_object();
		jint(j, "id", m->id);
		json_object_object_add(j, "subsystem", json_object_new_string(m->nqn));
		jint(j, "nsid", m->nsid);
		json_object_object_add(j, "why", json_object_new_string(m->why));
		json_object_object_add(j, "state",
				       json_object_new_string(prov_mig_state_name(m->state)));
		moves = json_object_new_array();
		for (uint32_t i = 0; i < m->nr; i++) {
			json_object *mv = json_object_new_array();

			json_object_array_add(mv, json_object_new_int64(m->moves[i].from_die));
			json_object_array_add(mv, json_object_new_int64(m->moves[i].to_die));
			json_object_array_add(moves, mv);
		}
		json_object_object_add(j, "moves", moves);
		jint(j, "cur", m->cur);
		json_object_object_add(j, "reverse", json_object_new_boolean(m->reverse));
		jint(j, "share", m->share);
		jint(j, "error", m->error);
		jint(j, "bytes_done", (int64_t)m->bytes_done);
		jint(j, "bytes_total", (int64_t)v.bytes_total);
		json_object_object_add(j, "percent", json_object_new_double(v.percent));
		jint(j, "bytes_back", (int64_t)x->back_shown);
		jint(j, "back_total", (int64_t)v.back_total);
		jint(j, "bytes_moved", (int64_t)x->moved);
		jint(j, "elapsed_ns", (int64_t)v.elapsed_ns);
		json_object_array_add(arr, j);
	}
	return arr;
}

static int64_t jget(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : "";
}

void prov_mig_ended_load(struct blox_prov *p, const char *dev, json_object *arr)
{
	if (!json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *j = json_object_array_get_idx(arr, i), *moves, *v;
		int64_t id = jget(j, "id");
		struct mig_ext *x;
		struct prov_mig *m, *o;
		int st;

		for (st = PM_DONE; st <= PM_FAILED; st++)
			if (!strcmp(jstr(j, "state"), prov_mig_state_name((enum prov_mig_state)st)))
				break;
		/* Not an ended job, or its id taken (a device made again with its record). */
		if (st > PM_FAILED || id <= 0 || id > UINT32_MAX || prov_mig_find(p, (uint32_t)id) ||
		    !(x = calloc(1, sizeof(*x))))
			continue;
		m = &x->m;
		m->id = (uint32_t)id;
		m->state = (enum prov_mig_state)st;
		snprintf(m->dev, sizeof(m->dev), "%s", dev);
		snprintf(m->nqn, sizeof(m->nqn), "%s", jstr(j, "subsystem"));
		snprintf(m->why, sizeof(m->why), "%s", jstr(j, "why"));
		m->nsid = (uint32_t)jget(j, "nsid");
		if (json_object_object_get_ex(j, "moves", &moves) &&
		    json_object_is_type(moves, json_type_array))
			for (size_t k = 0; k < json_object_array_length(moves) && m->nr < FBX_MAX_MOVES;
			     k++) {
				json_object *mv = json_object_array_get_idx(moves, k);

				m->moves[m->nr++] = (struct fbx_move){
					.from_die = (uint32_t)json_object_get_int64(
						json_object_array_get_idx(mv, 0)),
					.to_die = (uint32_t)json_object_get_int64(
						json_object_array_get_idx(mv, 1)),
				};
			}
		m->cur = (uint32_t)jget(j, "cur") <= m->nr ? (uint32_t)jget(j, "cur") : m->nr;
		m->reverse = json_object_object_get_ex(j, "reverse", &v) && json_object_get_boolean(v);
		m->share = (uint32_t)jget(j, "share");
		m->error = (int)jget(j, "error");
		m->bytes_done = (uint64_t)jget(j, "bytes_done");
		x->fwd_shown = m->bytes_done;
		x->fwd_total = (uint64_t)jget(j, "bytes_total");
		x->pct = json_object_object_get_ex(j, "percent", &v) ? json_object_get_double(v) : 0;
		x->back_shown = x->back_done = (uint64_t)jget(j, "bytes_back");
		x->back_total = (uint64_t)jget(j, "back_total");
		x->moved = (uint64_t)jget(j, "bytes_moved");
		x->elapsed_saved = (uint64_t)jget(j, "elapsed_ns");
		if (m->id > p->next_mig_id)
			p->next_mig_id = m->id;
		/* In the order of their ids, among the others. */
		TAILQ_FOREACH(o, &p->migs, link)
			if (o->id > m->id)
				break;
		if (o)
			TAILQ_INSERT_BEFORE(o, m, link);
		else
			TAILQ_INSERT_TAIL(&p->migs, m, link);
	}
}
