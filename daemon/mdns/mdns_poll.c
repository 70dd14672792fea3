/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * AvahiPoll on libevent: avahi's watches are persistent libevent events on
 * their descriptors, its timeouts one-shot timers. avahi gives a timeout
 * as an absolute gettimeofday() time (its API's contract), turned here
 * into the relative delay libevent takes.
 */
#include "mdns_internal.h"

#include <event2/event.h>
#include <stdlib.h>
#include <sys/time.h>

struct AvahiWatch {
	struct event *ev;
	AvahiWatchEvent got; /* what the callback now running was woken for */
	AvahiWatchCallback cb;
	void *ud;
	int fd;
};

struct AvahiTimeout {
	struct event *ev;
	AvahiTimeoutCallback cb;
	void *ud;
};

static struct event_base *base_of(const AvahiPoll *api)
{
	return ((const struct blox_avahi_poll *)api->userdata)->base;
}

static short ev_flags(AvahiWatchEvent e)
{
	return (short)(((e & AVAHI_WATCH_IN) ? EV_READ : 0) |
		       ((e & AVAHI_WATCH_OUT) ? EV_WRITE : 0) | EV_PERSIST);
}

static void watch_cb(evutil_socket_t fd, short what, void *arg)
{
	AvahiWatch *w = arg;

	w->got = (AvahiWatchEvent)(((what & EV_READ) ? AVAHI_WATCH_IN : 0) |
				   ((what & EV_WRITE) ? AVAHI_WATCH_OUT : 0));
	/* The callback may free @w: nothing of it is touched after. */
	w->cb(w, (int)fd, w->got, w->ud);
}

static AvahiWatch *watch_new(const AvahiPoll *api, int fd, AvahiWatchEvent event,
			     AvahiWatchCallback cb, void *ud)
{
	AvahiWatch *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cb = cb;
	w->ud = ud;
	w->fd = fd;
	w->ev = event_new(base_of(api), fd, ev_flags(event), watch_cb, w);
	if (!w->ev || event_add(w->ev, NULL)) {
		if (w->ev)
			event_free(w->ev);
		free(w);
		return NULL;
	}
	return w;
}

static void watch_update(AvahiWatch *w, AvahiWatchEvent event)
{
	struct event_base *b = event_get_base(w->ev);

	event_del(w->ev);
	event_assign(w->ev, b, w->fd, ev_flags(event), watch_cb, w);
	event_add(w->ev, NULL);
}

static AvahiWatchEvent watch_get_events(AvahiWatch *w)
{
	return w->got;
}

static void watch_free(AvahiWatch *w)
{
	event_free(w->ev);
	free(w);
}

static void timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	AvahiTimeout *t = arg;

	(void)fd;
	(void)what;
	t->cb(t, t->ud);
}

/* Arm @t for the absolute time @tv (NULL: disarmed). */
static void timeout_arm(AvahiTimeout *t, const struct timeval *tv)
{
	struct timeval now, rel = { 0, 0 };

	event_del(t->ev);
	if (!tv)
		return;
	gettimeofday(&now, NULL);
	if (timercmp(tv, &now, >))
		timersub(tv, &now, &rel);
	event_add(t->ev, &rel);
}

static AvahiTimeout *timeout_new(const AvahiPoll *api, const struct timeval *tv,
				 AvahiTimeoutCallback cb, void *ud)
{
	AvahiTimeout *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cb = cb;
	t->ud = ud;
	t->ev = evtimer_new(base_of(api), timeout_cb, t);
	if (!t->ev) {
		free(t);
		return NULL;
	}
	timeout_arm(t, tv);
	return t;
}

static void timeout_update(AvahiTimeout *t, const struct timeval *tv)
{
	timeout_arm(t, tv);
}

static void timeout_free(AvahiTimeout *t)
{
	event_free(t->ev);
	free(t);
}

void blox_avahi_poll_init(struct blox_avahi_poll *p, struct event_base *base)
{
	p->base = base;
	p->api = (AvahiPoll){
		.userdata = p,
		.watch_new = watch_new,
		.watch_update = watch_update,
		.watch_get_events = watch_get_events,
		.watch_free = watch_free,
		.timeout_new = timeout_new,
		.timeout_update = timeout_update,
		.timeout_free = timeout_free,
	};
}
