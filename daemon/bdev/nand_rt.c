/* SPDX-License-Identifier: BSD-3-Clause */
/* Real-time driver of the NAND engine (see nand_rt.h). */
#include "nand_rt.h"
#include "blox_util.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>

struct nand_rt {
	struct event_base *base;
	const struct blox_clock *clock;
	struct nand_dev *dev;
	struct event *timer;
	uint64_t armed_for; /* event time the timer is set for; 0: none */
	uint64_t wake_at; /* when the timer is set to go off; 0: at once, or none */
	uint64_t floor_ns; /* the window's least (nand_rt_create()'s spin_ns) */
	uint64_t window_ns; /* how early the timer is set before an event, now */
	bool fixed; /* nand_rt_fix_window(): the window stays at floor_ns */
	bool in_advance;
};

uint64_t nand_rt_window_next(uint64_t window_ns, uint64_t late_ns, uint64_t floor_ns)
{
	uint64_t want = late_ns + NAND_RT_WINDOW_MARGIN_NS;

	if (want > window_ns)
		window_ns = want;
	else
		window_ns -= (window_ns - want) / NAND_RT_WINDOW_DECAY;
	return BLOX_MIN(BLOX_MAX(window_ns, floor_ns), NAND_RT_WINDOW_MAX_NS);
}

static void rt_arm(struct nand_rt *rt)
{
	uint64_t next = nand_next_event(rt->dev), now, wake;
	struct timeval tv;

	if (next == UINT64_MAX) {
		evtimer_del(rt->timer);
		rt->armed_for = 0;
		rt->wake_at = 0;
		return;
	}
	if (rt->armed_for && rt->armed_for <= next)
		return; /* already set early enough */
	now = blox_clock_now(rt->clock);
	wake = next > now + rt->window_ns ? next - rt->window_ns - now : 0;
	tv.tv_sec = (time_t)(wake / 1000000000ull);
	tv.tv_usec = (suseconds_t)(wake % 1000000000ull / 1000);
	evtimer_add(rt->timer, &tv);
	rt->armed_for = next;
	rt->wake_at = wake ? now + wake : 0;
}

/*
 * A sleep of the timer ended at @now: how late after the time it was set
 * for, reported to the device, and the window follows it (up at once to
 * what this one took, down slowly), so that on a host whose wake-ups come
 * late (a virtual machine's idle vCPU, a busy loop) the timer is set early
 * enough that the event's own time still finds the loop polling.
 */
static void rt_woke(struct nand_rt *rt, uint64_t event, uint64_t now)
{
	uint64_t late = now > rt->wake_at ? now - rt->wake_at : 0;

	if (!rt->fixed)
		rt->window_ns = nand_rt_window_next(rt->window_ns, late, rt->floor_ns);
	nand_note_wakeup(rt->dev, late, now > event, rt->window_ns);
	rt->wake_at = 0;
}

static void rt_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct nand_rt *rt = arg;
	uint64_t next = nand_next_event(rt->dev), now;

	(void)fd;
	(void)what;
	now = blox_clock_now(rt->clock);
	if (rt->wake_at && rt->armed_for)
		rt_woke(rt, rt->armed_for, now);
	rt->armed_for = 0;
	rt->wake_at = 0;
	if (next == UINT64_MAX)
		return;
	/*
	 * A deadline further off than the window re-arms; inside it, one
	 * further off than the spin budget gives the loop a pass first (a
	 * zero-timeout timer), and only the last stretch is spun.
	 */
	if (next > now + rt->window_ns) {
		rt_arm(rt);
		return;
	}
	if (next > now + NAND_RT_SPIN_MAX_NS) {
		static const struct timeval zero = { 0, 0 };

		evtimer_add(rt->timer, &zero);
		rt->armed_for = next;
		return;
	}
	while (now < next)
		now = blox_clock_now(rt->clock);
	rt->in_advance = true;
	nand_advance(rt->dev, now);
	rt->in_advance = false;
	rt_arm(rt);
}

int nand_rt_create(struct event_base *base, const struct blox_clock *clock,
		   struct nand_dev *dev, uint64_t spin_ns, struct nand_rt **out)
{
	struct nand_rt *rt = calloc(1, sizeof(*rt));

	if (!rt)
		return -ENOMEM;
	rt->timer = evtimer_new(base, rt_timer_cb, rt);
	if (!rt->timer) {
		free(rt);
		return -ENOMEM;
	}
	rt->base = base;
	rt->clock = clock;
	rt->dev = dev;
	rt->floor_ns = spin_ns;
	rt->window_ns = spin_ns;
	*out = rt;
	return 0;
}

void nand_rt_fix_window(struct nand_rt *rt)
{
	rt->fixed = true;
	rt->window_ns = rt->floor_ns;
}

void nand_rt_destroy(struct nand_rt *rt)
{
	if (!rt)
		return;
	event_free(rt->timer);
	free(rt);
}

int nand_rt_submit(struct nand_rt *rt, struct nand_op *op)
{
	int rc = nand_submit(rt->dev, op, blox_clock_now(rt->clock));

	/* Inside advance the timer is re-armed once it returns. */
	if (!rc && !rt->in_advance)
		rt_arm(rt);
	return rc;
}
