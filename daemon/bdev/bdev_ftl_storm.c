/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A GC storm on a "nand" backend (bloxctl fault inject gc-storm): its
 * FTL's GC takes victims now, at the backend's home (ftl_gc_storm()).
 */
#include "bdev_ftl.h"
#include "blox_util.h"

#include <errno.h>

struct storm_call {
	struct blox_bdev *bdev;
	uint32_t superblocks;
	uint64_t duration_ns;
	int rc;
};

static void storm_fn(void *arg)
{
	struct storm_call *c = arg;
	struct ftl_bdev *fb = c->bdev->ops == &ftl_bdev_ops
				      ? container_of(c->bdev, struct ftl_bdev, base)
				      : NULL;

	if (!fb || !fb->ftl) {
		c->rc = -EOPNOTSUPP;
		return;
	}
	ftl_gc_storm(fb->ftl, c->superblocks, c->duration_ns);
	c->rc = 0;
}

int blox_bdev_ftl_gc_storm(struct blox_bdev *bdev, uint32_t superblocks, uint64_t duration_ns)
{
	struct storm_call c = { .bdev = bdev, .superblocks = superblocks,
				.duration_ns = duration_ns };

	if (bdev->ops != &ftl_bdev_ops)
		return -EOPNOTSUPP;
	blox_bdev_home_call(bdev->home, storm_fn, &c);
	return c.rc;
}
