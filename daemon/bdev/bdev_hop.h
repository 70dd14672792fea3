/* SPDX-License-Identifier: BSD-3-Clause */
/* Private to daemon/bdev: homes, for the backends that live in them (bdev_hop.c). */
#ifndef BLOX_BDEV_HOP_H
#define BLOX_BDEV_HOP_H

#include <stdbool.h>

#include "bdev.h"

struct event_base *bdev_home_base(struct blox_bdev_home *h);
struct blox_io_cq *bdev_home_cq(struct blox_bdev_home *h);
/* The core: destroy @bdev where it lives, and what its hop state holds. */
void bdev_hop_destroy(struct blox_bdev *bdev);
/*
 * The core: run @fn (an unbind) at @bdev's home; when it says true, the
 * backend has left it: it touches no loop any more and may be destroyed
 * on any thread (bdev->home is NULL). At none: @fn here.
 */
bool bdev_hop_leave(struct blox_bdev *bdev, bool (*fn)(struct blox_bdev *bdev));

/* blox_bdev_ftl_create(), at its device's home or @p->home when it has one. */
int bdev_ftl_create_home(const struct blox_bdev_params *p, struct blox_io_cq *cq,
			 struct blox_bdev **out);

/* blox_bdev_zns_create(), at its device's home or @p->home when it has one (bdev_zns.c). */
int bdev_zns_create_home(const struct blox_bdev_params *p, struct blox_io_cq *cq,
			 struct blox_bdev **out);

#endif
