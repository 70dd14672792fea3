/* SPDX-License-Identifier: BSD-3-Clause */
/* Real-time driver of the NAND engine (see nand_rt.h). */
#include "nand_rt.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>

struct nand_rt {
	struct event_base *base;
	const struct blox_clock *clock;
	struct nand_dev *dev;
	struct event *timer;
	uint64_t armed_for; /* event time the timer is set for; 0: none */
	uint64_t spin_ns;
	bool in_advance;
};

static void rt_arm(struct nand_rt *rt)
{
	uint64_t next = nand_next_event(rt->dev), now, wake;
	struct timeval tv;

	if (next == UINT64_MAX) {
		evtimer_del(rt->timer);
		rt->armed_for = 0;
		return;
	}
	if (rt->armed_for && rt->armed_for <= next)
		return; /* already set early enough */
	now = blox_clock_now(rt->clock);
	wake = next > now + rt->spin_ns ? next - rt->spin_ns - now : 0;
	tv.tv_sec = (time_t)(wake / 1000000000ull);
	tv.tv_usec = (suseconds_t)(wake % 1000000000ull / 1000);
	evtimer_add(rt->timer, &tv);
	rt->armed_for = next;
}

static void rt_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct nand_rt *rt = arg;
	uint64_t next = nand_next_event(rt->dev), now;

	(void)fd;
	(void)what;
	rt->armed_for = 0;
	if (next == UINT64_MAX)
		return;
	/*
	 * A deadline further off than the window re-arms; inside it, one
	 * further off than the spin budget gives the loop a pass first (a
	 * zero-timeout timer), and only the last stretch is spun.
	 */
	now = blox_clock_now(rt->clock);
	if (next > now + rt->spin_ns) {
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
	rt->spin_ns = spin_ns;
	*out = rt;
	return 0;
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
