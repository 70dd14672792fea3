/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The real-time NAND driver's timer window (nand_rt.c): how it follows the
 * wake-ups' lateness, and what it reports to the device's stats on a real
 * event loop.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "nand_rt.h"

#define US 1000ull

static void test_window_up_at_once(void **state)
{
	(void)state;
	/* A wake-up 200 us late: the window covers it, with the margin, at once. */
	assert_int_equal(nand_rt_window_next(NAND_RT_SPIN_NS, 200 * US, NAND_RT_SPIN_NS),
			 200 * US + NAND_RT_WINDOW_MARGIN_NS);
	/* Never past the cap, however late. */
	assert_int_equal(nand_rt_window_next(NAND_RT_SPIN_NS, 50000 * US, NAND_RT_SPIN_NS),
			 NAND_RT_WINDOW_MAX_NS);
}

static void test_window_down_slowly(void **state)
{
	uint64_t w = 500 * US, prev;
	int steps = 0;

	(void)state;
	/* On time from now on: a step of 1/DECAY of the way down each wake-up. */
	prev = w;
	w = nand_rt_window_next(w, 0, NAND_RT_SPIN_NS);
	assert_int_equal(w, prev - (prev - NAND_RT_WINDOW_MARGIN_NS) / NAND_RT_WINDOW_DECAY);
	while (w > NAND_RT_SPIN_NS && steps < 100000) {
		prev = w;
		w = nand_rt_window_next(w, 0, NAND_RT_SPIN_NS);
		assert_true(w < prev || w == NAND_RT_SPIN_NS);
		steps++;
	}
	/* Down to the floor, never under it, in a few hundred wake-ups. */
	assert_int_equal(w, NAND_RT_SPIN_NS);
	assert_in_range(steps, 100, 2000);
	assert_int_equal(nand_rt_window_next(NAND_RT_SPIN_NS, 0, NAND_RT_SPIN_NS),
			 NAND_RT_SPIN_NS);
	/* A lateness inside the window keeps it where the lateness needs it. */
	w = nand_rt_window_next(300 * US, 295 * US, NAND_RT_SPIN_NS);
	assert_int_equal(w, 305 * US);
}

struct run {
	struct nand_op op;
	int done;
};

static void op_done(struct nand_op *op)
{
	struct run *r = op->cb_arg;

	r->done++;
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopexit(arg, NULL);
}

/* Erases on a real loop: each one a sleep of the timer, reported to the device. */
static void run_erases(bool fixed, const struct nand_stats **out, struct nand_dev **devp,
		       struct nand_rt **rtp, struct event_base **basep)
{
	struct event_config *ec = event_config_new();
	static struct blox_clock clk;
	struct nand_config cfg;
	struct event_base *base;
	struct nand_dev *dev;
	struct nand_rt *rt;
	struct run r = { 0 };

	event_config_set_flag(ec, EVENT_BASE_FLAG_PRECISE_TIMER);
	base = event_base_new_with_config(ec);
	event_config_free(ec);
	assert_non_null(base);
	blox_clock_init_real(&clk);
	nand_config_default(&cfg);
	assert_int_equal(nand_dev_create(&cfg, NULL, &dev), 0);
	assert_int_equal(nand_rt_create(base, &clk, dev, NAND_RT_SPIN_NS, &rt), 0);
	if (fixed)
		nand_rt_fix_window(rt);
	for (int i = 0; i < 3; i++) {
		struct timeval tv = { 1, 0 };
		struct event *stop = evtimer_new(base, stop_cb, base);

		memset(&r.op, 0, sizeof(r.op));
		r.op.kind = NAND_OP_ERASE;
		r.op.prio = NAND_PRIO_ERASE;
		r.op.addr.block = (uint32_t)i;
		r.op.nplanes = 1;
		r.op.timing_only = true;
		r.op.cb = op_done;
		r.op.cb_arg = &r;
		assert_int_equal(nand_rt_submit(rt, &r.op), 0);
		/* Until it completes (the stop timer only bounds a hang). */
		evtimer_add(stop, &tv);
		while (r.done == i && !event_base_got_exit(base))
			event_base_loop(base, EVLOOP_ONCE);
		event_free(stop);
		assert_int_equal(r.done, i + 1);
	}
	*out = nand_dev_stats(dev);
	*devp = dev;
	*rtp = rt;
	*basep = base;
}

static void test_reported(void **state)
{
	const struct nand_stats *st;
	struct event_base *base;
	struct nand_dev *dev;
	struct nand_rt *rt;

	(void)state;
	run_erases(false, &st, &dev, &rt, &base);
	/* Each erase (milliseconds) slept once at least; the window is what the driver holds. */
	assert_true(st->rt.wakeup_late.count >= 3);
	assert_in_range(st->rt.window_ns, NAND_RT_SPIN_NS, NAND_RT_WINDOW_MAX_NS);
	assert_true(st->rt.wakeups_past_event <= st->rt.wakeup_late.count);
	assert_int_equal(st->lateness.count, 3);
	nand_rt_destroy(rt);
	nand_dev_destroy(dev);
	event_base_free(base);

	/* Fixed: reported the same, the window stays at its floor whatever came late. */
	run_erases(true, &st, &dev, &rt, &base);
	assert_true(st->rt.wakeup_late.count >= 3);
	assert_int_equal(st->rt.window_ns, NAND_RT_SPIN_NS);
	nand_rt_destroy(rt);
	nand_dev_destroy(dev);
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_window_up_at_once),
		cmocka_unit_test(test_window_down_slowly),
		cmocka_unit_test(test_reported),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
