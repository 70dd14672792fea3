/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real-time driver of a NAND timing engine on the daemon's event loop: one
 * libevent timer armed for the engine's next event. The timer is set a
 * short window early (timer wake-ups are late by tens of microseconds);
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

/* Default window before a deadline in which the driver polls. */
#define NAND_RT_SPIN_NS 60000ull
/* The longest the driver spins on the clock without giving the loop back. */
#define NAND_RT_SPIN_MAX_NS 3000ull

int nand_rt_create(struct event_base *base, const struct blox_clock *clock,
		   struct nand_dev *dev, uint64_t spin_ns, struct nand_rt **out);
void nand_rt_destroy(struct nand_rt *rt);
/* Submit through the driver: stamps the time and re-arms the timer. */
int nand_rt_submit(struct nand_rt *rt, struct nand_op *op);

#endif
