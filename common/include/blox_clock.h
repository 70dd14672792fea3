/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Clocks behind an ops table. Nothing below daemon/ reads the system time
 * itself: every layer is handed a struct blox_clock. The real clock reads
 * CLOCK_MONOTONIC; the virtual clock only moves when its driver says so,
 * which makes tests and simulations exact and repeatable.
 */
#ifndef BLOX_CLOCK_H
#define BLOX_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct blox_clock;

struct blox_clock_ops {
	/* Current time in nanoseconds since an arbitrary, fixed origin. */
	uint64_t (*now_ns)(const struct blox_clock *clk);
};

struct blox_clock {
	const struct blox_clock_ops *ops;
	uint64_t virt_ns; /* only used by the virtual clock */
};

static inline uint64_t blox_clock_now(const struct blox_clock *clk)
{
	return clk->ops->now_ns(clk);
}

/* A clock reading CLOCK_MONOTONIC. */
void blox_clock_init_real(struct blox_clock *clk);
/* True for a clock made by blox_clock_init_real(). */
bool blox_clock_is_real(const struct blox_clock *clk);
/* A clock starting at @start_ns that moves only by blox_clock_set(). */
void blox_clock_init_virtual(struct blox_clock *clk, uint64_t start_ns);
/* Move a virtual clock forward to @ns (never backwards). */
void blox_clock_set(struct blox_clock *clk, uint64_t ns);

#endif
