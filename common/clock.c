/* SPDX-License-Identifier: BSD-3-Clause */
/* Real (CLOCK_MONOTONIC) and virtual clocks. */
#include "blox_clock.h"

#include <time.h>

static uint64_t real_now(const struct blox_clock *clk)
{
	struct timespec ts;
	(void)clk;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t virt_now(const struct blox_clock *clk)
{
	return clk->virt_ns;
}

static const struct blox_clock_ops real_ops = { .now_ns = real_now };
static const struct blox_clock_ops virt_ops = { .now_ns = virt_now };

void blox_clock_init_real(struct blox_clock *clk)
{
	clk->ops = &real_ops;
	clk->virt_ns = 0;
}

bool blox_clock_is_real(const struct blox_clock *clk)
{
	return clk->ops == &real_ops;
}

void blox_clock_init_virtual(struct blox_clock *clk, uint64_t start_ns)
{
	clk->ops = &virt_ops;
	clk->virt_ns = start_ns;
}

void blox_clock_set(struct blox_clock *clk, uint64_t ns)
{
	if (ns > clk->virt_ns)
		clk->virt_ns = ns;
}
