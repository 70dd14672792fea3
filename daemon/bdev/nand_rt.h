/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real-time driver of a NAND timing engine on the daemon's event loop: one
 * libevent timer armed for the engine's next event. The timer is set a
 * short spin window early and the last microseconds are spun on the
 * clock, so completions land within microseconds of their modeled time
 * without a core burning while the device is idle.
 */
#ifndef BLOX_NAND_RT_H
#define BLOX_NAND_RT_H

#include <stdint.h>

#include "blox_clock.h"
#include "nand.h"

struct event_base;
struct nand_rt;

/* Default spin window before a deadline. */
#define NAND_RT_SPIN_NS 60000ull

int nand_rt_create(struct event_base *base, const struct blox_clock *clock,
		   struct nand_dev *dev, uint64_t spin_ns, struct nand_rt **out);
void nand_rt_destroy(struct nand_rt *rt);
/* Submit through the driver: stamps the time and re-arms the timer. */
int nand_rt_submit(struct nand_rt *rt, struct nand_op *op);

#endif
