/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Power loss as the FTL sees it: at the cut a drive with power-loss
 * protection programs what its write buffer holds within its hold-up time
 * (ftl_power_fail(), then its backend drives the flash), suspending a
 * running erase for the buffer's programs (plp_suspend); whatever host data
 * is still only in the buffer when power is gone is lost
 * (ftl_volatile_units()). Mappings need no programming of their own: the
 * rebuild finds every programmed unit from its OOB.
 */
#include "ftl_internal.h"

void ftl_power_fail(struct ftl *f)
{
	f->power_failing = true;
	/* Before the programs go: each one queued behind an erase suspends it. */
	if (f->cfg.plp_suspend && f->env.dev)
		nand_set_plp_flush(f->env.dev, true, f->env.ops->now(f->env.ctx));
	ftl_close_pages(f);
	for (int s = 0; s < ST_COUNT; s++)
		ftl_program_waiting(f, (enum ftl_stream)s);
}

uint64_t ftl_volatile_units(const struct ftl *f)
{
	uint64_t n = 0;

	for (uint32_t i = 0; i < f->nr_wbufs; i++) {
		const struct ftl_wbuf *wb = &f->wbufs[i];

		if (wb->state == WB_FREE || !ftl_host_stream(wb->stream))
			continue;
		for (uint32_t k = 0; k < wb->used && k < f->slots; k++)
			n += wb->oob.slot[k].kind == UK_DATA &&
			     ftl_valid_get(f, wb->fpid * f->slots + k);
	}
	return n;
}
