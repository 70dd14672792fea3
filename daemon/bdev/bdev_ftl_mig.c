/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Die migrations of a "nand" backend (ftl_migrate_*) or a "zns" one
 * (bdev_zns_mig.c): started, steered and watched from the core, run at
 * the backend's home.
 */
#include "bdev_ftl.h"
#include "bdev_zns.h"
#include "blox_util.h"

#include <errno.h>

static struct ftl_bdev *ftl_of(struct blox_bdev *bdev)
{
	return bdev->ops == &ftl_bdev_ops ? container_of(bdev, struct ftl_bdev, base) : NULL;
}

static int migrate_here(struct blox_bdev *bdev, uint32_t from_die, uint32_t to_die,
			  uint32_t share)
{
	struct ftl_bdev *fb = ftl_of(bdev);
	struct ftl_migrate_cfg cfg = { .share = share };
	struct ftl_resources res;

	if (!fb)
		return zb_migrate_start(bdev, from_die, to_die, share);
	if (!fb->ftl)
		return -EOPNOTSUPP;
	ftl_get_resources(fb->ftl, &res);
	for (uint32_t slot = 0; slot < res.nr_dies; slot++)
		if (res.dies[slot] == from_die) {
			int rc = ftl_migrate_start(fb->ftl, slot, to_die, &cfg);

			/* Its dies from now on (the slot's is @to_die); the policy hears of it. */
			if (!rc) {
				ftl_get_resources(fb->ftl, &fb->res);
				fb->space_level = 0;
			}
			return rc;
		}
	return -ENOENT;
}

static int migrate_ctl_here(struct blox_bdev *bdev, enum blox_mig_ctl what, uint32_t share)
{
	struct ftl_bdev *fb = ftl_of(bdev);

	if (!fb)
		return zb_migrate_ctl(bdev, what, share);
	if (!fb->ftl)
		return -EOPNOTSUPP;
	switch (what) {
	case BLOX_MIG_PAUSE:
		return ftl_migrate_pause(fb->ftl);
	case BLOX_MIG_RESUME:
		return ftl_migrate_resume(fb->ftl);
	case BLOX_MIG_CANCEL:
		return ftl_migrate_cancel(fb->ftl);
	case BLOX_MIG_SHARE:
		return ftl_migrate_set_share(fb->ftl, share);
	}
	return -EINVAL;
}

static int migrate_progress_here(struct blox_bdev *bdev, struct ftl_migrate_progress *out,
				   struct ftl_resources *res)
{
	struct ftl_bdev *fb = ftl_of(bdev);

	if (!fb)
		return zb_migrate_progress(bdev, out, res);
	if (!fb->ftl)
		return -EOPNOTSUPP;
	if (out)
		ftl_migrate_progress(fb->ftl, out);
	if (res)
		ftl_get_resources(fb->ftl, res);
	return 0;
}

/* A migration call at the backend's home. */
struct mig_call {
	struct blox_bdev *bdev;
	uint32_t a, b, c;
	enum blox_mig_ctl what;
	struct ftl_migrate_progress *out;
	struct ftl_resources *res;
	int rc;
};

static void migrate_fn(void *arg)
{
	struct mig_call *m = arg;

	m->rc = migrate_here(m->bdev, m->a, m->b, m->c);
}

int blox_bdev_ftl_migrate(struct blox_bdev *bdev, uint32_t from_die, uint32_t to_die,
			  uint32_t share)
{
	struct mig_call m = { .bdev = bdev, .a = from_die, .b = to_die, .c = share };

	blox_bdev_home_call(bdev->home, migrate_fn, &m);
	return m.rc;
}

static void migrate_ctl_fn(void *arg)
{
	struct mig_call *m = arg;

	m->rc = migrate_ctl_here(m->bdev, m->what, m->a);
}

int blox_bdev_ftl_migrate_ctl(struct blox_bdev *bdev, enum blox_mig_ctl what, uint32_t share)
{
	struct mig_call m = { .bdev = bdev, .what = what, .a = share };

	blox_bdev_home_call(bdev->home, migrate_ctl_fn, &m);
	return m.rc;
}

static void migrate_progress_fn(void *arg)
{
	struct mig_call *m = arg;

	m->rc = migrate_progress_here(m->bdev, m->out, m->res);
}

int blox_bdev_ftl_migrate_progress(struct blox_bdev *bdev, struct ftl_migrate_progress *out,
				   struct ftl_resources *res)
{
	struct mig_call m = { .bdev = bdev, .out = out, .res = res };

	blox_bdev_home_call(bdev->home, migrate_progress_fn, &m);
	return m.rc;
}
