/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real-time driver of a NAND timing engine on the daemon's event loop: one
 * libevent timer armed for the engine's next event. The timer is set a
 * window early (timer wake-ups are late by tens of microseconds, more on a
 * virtual machine whose idle vCPU the host deschedules: the window follows
 * how late the wake-ups come, nand_rt_window_next());
 * inside the window the driver gives the loop back after each look at the
 * clock (a zero-timeout timer: the loop polls its sockets and runs what is
 * ready, then the driver looks again), and only the last NAND_RT_SPIN_MAX_NS
 * are spun. So completions land within microseconds of their modeled time,
 * connections on the same reactor are never held up for long by a spin, and
 * no core burns while the device is idle. How late each completion came is
 * the engine's lateness histogram (bloxctl stats, the metrics).
 */
#ifndef BLOX_NAND_RT_H
#define BLOX_NAND_RT_H

#include <stdint.h>

#include "blox_clock.h"
#include "nand.h"

struct event_base;
struct nand_rt;

/*
 * Default window before a deadline in which the driver polls, and the
 * least it goes to: the window grows to what the timer's wake-ups take
 * on this host (nand_rt_window_next()), up to NAND_RT_WINDOW_MAX_NS.
 */
#define NAND_RT_SPIN_NS 60000ull
#define NAND_RT_WINDOW_MAX_NS 1000000ull
/* Above the latest recent wake-up's lateness; back towards it by 1/DECAY per wake-up. */
#define NAND_RT_WINDOW_MARGIN_NS 10000ull
#define NAND_RT_WINDOW_DECAY 256u
/* The longest the driver spins on the clock without giving the loop back. */
#define NAND_RT_SPIN_MAX_NS 3000ull

int nand_rt_create(struct event_base *base, const struct blox_clock *clock,
		   struct nand_dev *dev, uint64_t spin_ns, struct nand_rt **out);
/*
 * The window after a wake-up @late_ns after its set time, from @window_ns:
 * at once up to @late_ns + NAND_RT_WINDOW_MARGIN_NS, otherwise a 1/DECAY
 * step down towards it; within [@floor_ns, NAND_RT_WINDOW_MAX_NS].
 */
uint64_t nand_rt_window_next(uint64_t window_ns, uint64_t late_ns, uint64_t floor_ns);
/* The window stays at nand_rt_create()'s spin_ns (to compare against). */
void nand_rt_fix_window(struct nand_rt *rt);
void nand_rt_destroy(struct nand_rt *rt);
/* Submit through the driver: stamps the time and re-arms the timer. */
int nand_rt_submit(struct nand_rt *rt, struct nand_op *op);

#endif
