/* SPDX-License-Identifier: BSD-3-Clause */
#include "blox_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int blox_ring_init(struct blox_ring *r, uint32_t entries)
{
	memset(r, 0, sizeof(*r));
	if (entries < 2 || entries > (1u << 24) || (entries & (entries - 1)))
		return -EINVAL;
	r->slots = calloc(entries, sizeof(*r->slots));
	if (!r->slots)
		return -ENOMEM;
	r->mask = entries - 1;
	return 0;
}

void blox_ring_fini(struct blox_ring *r)
{
	free(r->slots);
	r->slots = NULL;
}
