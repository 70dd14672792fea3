/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A namespace's limits on its backend (qos/ token buckets): blox_bdev_submit()
 * comes here when a backend has limits. A command the limits allow goes
 * to the backend at once; one over a limit waits in the namespace's queue,
 * in arrival order, until a timer at the time the buckets name lets it
 * (and those behind it) go. Nothing is failed for being over a limit.
 */
#include "bdev.h"
#include "bdev_qos.h"
#include "blox_clock.h"
#include "qos.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>

struct blox_bdev_qos {
	struct blox_bdev *bdev;
	struct qos_limiter lim;
	TAILQ_HEAD(, blox_io) held;
	struct event *ev;
	const struct blox_clock *clock;
	struct blox_bdev_qos_stats st;
	uint64_t armed_at; /* the timer's time, 0 when not armed */
	uint64_t waiting_since; /* st.waiting has been what it is since then */
};

_Static_assert(sizeof(((struct blox_bdev_qos_stats *)0)->full_ns) / sizeof(uint64_t) == QOS_B_COUNT,
	       "one full_ns per bucket");

static enum qos_dir dir_of(const struct blox_io *io)
{
	if (io->op == BLOX_IO_READ)
		return QOS_READ;
	return io->op == BLOX_IO_WRITE || io->op == BLOX_IO_ZONE_APPEND ? QOS_WRITE : QOS_OTHER;
}

static uint64_t io_bytes(const struct blox_io *io)
{
	return io->op == BLOX_IO_READ || io->op == BLOX_IO_WRITE || io->op == BLOX_IO_ZONE_APPEND
		       ? io->len
		       : 0;
}

/*
 * The time commands spent held, summed (st.wait_ns), up to @now: the
 * number held times how long it stayed so, added at each change of it,
 * which is every command's held time without a timestamp per command.
 */
static void wait_sync(struct blox_bdev_qos *q, uint64_t now)
{
	if (now > q->waiting_since)
		q->st.wait_ns += (uint64_t)q->st.waiting * (now - q->waiting_since);
	q->waiting_since = now;
}

/* @io joins the end of the line, at @now. */
static void hold(struct blox_bdev_qos *q, struct blox_io *io, uint64_t now)
{
	wait_sync(q, now);
	TAILQ_INSERT_TAIL(&q->held, io, link);
	q->st.held[dir_of(io)]++;
	if (++q->st.waiting > q->st.max_waiting)
		q->st.max_waiting = q->st.waiting;
}

static void arm(struct blox_bdev_qos *q, uint64_t at, uint64_t now)
{
	uint64_t d = at > now ? at - now : 0;
	struct timeval tv = { .tv_sec = (time_t)(d / 1000000000u),
			      .tv_usec = (suseconds_t)((d % 1000000000u + 999) / 1000) };

	if (q->armed_at && q->armed_at <= at)
		return;
	q->armed_at = at;
	evtimer_add(q->ev, &tv);
}

/* Pass on what the limits allow now, in order; arm the timer for the rest. */
static void release(struct blox_bdev_qos *q)
{
	uint64_t now = blox_clock_now(q->clock);
	struct blox_io *io;

	while ((io = TAILQ_FIRST(&q->held))) {
		uint64_t full = qos_limiter_full_ns(&q->lim);
		uint64_t at = qos_limiter_admit(&q->lim, dir_of(io), io_bytes(io), now);

		/* Full while this one waited: the timer came after the burst ran over. */
		q->st.full_held_ns += qos_limiter_full_ns(&q->lim) - full;

		if (at) {
			arm(q, at, now);
			return;
		}
		wait_sync(q, now);
		TAILQ_REMOVE(&q->held, io, link);
		q->st.waiting--;
		blox_bdev_pass(q->bdev, io);
	}
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_bdev_qos *q = arg;

	(void)fd;
	(void)what;
	q->armed_at = 0;
	release(q);
}

void blox_bdev_qos_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	struct blox_bdev_qos *q = bdev->qos;
	uint64_t now, at;

	now = blox_clock_now(q->clock);
	/* Behind others held: wait in line. */
	if (!TAILQ_EMPTY(&q->held)) {
		hold(q, io, now);
		return;
	}
	at = qos_limiter_admit(&q->lim, dir_of(io), io_bytes(io), now);
	if (!at) {
		q->st.admitted[dir_of(io)]++;
		blox_bdev_pass(bdev, io);
		return;
	}
	hold(q, io, now);
	arm(q, at, now);
}

int blox_bdev_qos_set(struct blox_bdev *bdev, const struct qos_limits *lim,
		      struct event_base *base, const struct blox_clock *clock)
{
	struct blox_bdev_qos *q = bdev->qos;
	uint64_t now = blox_clock_now(clock);

	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			return -ENOMEM;
		q->ev = evtimer_new(base, timer_cb, q);
		if (!q->ev) {
			free(q);
			return -ENOMEM;
		}
		q->bdev = bdev;
		q->clock = clock;
		q->waiting_since = now;
		TAILQ_INIT(&q->held);
		qos_limiter_init(&q->lim, lim, now);
		bdev->qos = q;
		return 0;
	}
	qos_limiter_set(&q->lim, lim, now);
	/* Looser limits may let some go at once. */
	if (q->armed_at) {
		event_del(q->ev);
		q->armed_at = 0;
	}
	release(q);
	return 0;
}

bool blox_bdev_qos_get(const struct blox_bdev *bdev, struct qos_limits *lim,
		       struct blox_bdev_qos_stats *st)
{
	const struct blox_bdev_qos *q = bdev->qos;

	if (!q) {
		if (lim)
			*lim = (struct qos_limits){ 0 };
		if (st)
			*st = (struct blox_bdev_qos_stats){ 0 };
		return false;
	}
	if (lim)
		*lim = q->lim.lim;
	if (st) {
		/* The buckets as of now: full time accrues when they are next asked. */
		struct qos_limiter now = q->lim;
		uint64_t full = qos_limiter_full_ns(&now), t = blox_clock_now(q->clock);

		qos_limiter_sync(&now, t);
		*st = q->st;
		/* Held time as of now too: the commands still held count so far. */
		if (t > q->waiting_since)
			st->wait_ns += (uint64_t)q->st.waiting * (t - q->waiting_since);
		if (q->st.waiting)
			st->full_held_ns += qos_limiter_full_ns(&now) - full;
		for (int i = 0; i < QOS_B_COUNT; i++)
			st->full_ns[i] = now.b[i].full_ns;
	}
	return true;
}

void blox_bdev_qos_free(struct blox_bdev *bdev)
{
	struct blox_bdev_qos *q = bdev->qos;
	struct blox_io *io;

	if (!q)
		return;
	bdev->qos = NULL;
	while ((io = TAILQ_FIRST(&q->held))) {
		TAILQ_REMOVE(&q->held, io, link);
		blox_bdev_pass(bdev, io);
	}
	event_free(q->ev);
	free(q);
}
