/* SPDX-License-Identifier: BSD-3-Clause */
/* Virtual-time FTL driver (see vdrive.h). */
#include "vdrive.h"

static int vd_submit(void *ctx, struct nand_op *op)
{
	struct ftl_vdrive *vd = ctx;

	return nand_submit(vd->dev, op, blox_clock_now(&vd->clock));
}

static uint64_t vd_now(void *ctx)
{
	struct ftl_vdrive *vd = ctx;

	return blox_clock_now(&vd->clock);
}

static void vd_kick(void *ctx)
{
	struct ftl_vdrive *vd = ctx;

	vd->kicked = true;
}

static int vd_sync(void *ctx)
{
	struct ftl_vdrive *vd = ctx;

	return vd->store ? vd->store->ops->sync(vd->store) : 0;
}

static const struct ftl_env_ops vd_ops = {
	.submit = vd_submit,
	.now = vd_now,
	.kick = vd_kick,
	.sync = vd_sync,
};

void ftl_vdrive_init(struct ftl_vdrive *vd, struct nand_dev *dev,
		     struct nand_store *store)
{
	blox_clock_init_virtual(&vd->clock, 1);
	vd->dev = dev;
	vd->store = store;
	vd->kicked = false;
	vd->env = (struct ftl_env){ .ops = &vd_ops, .ctx = vd, .dev = dev,
				    .store = store };
}

static bool step(struct ftl_vdrive *vd, struct ftl *f, uint64_t until_ns)
{
	uint64_t next;

	if (vd->kicked) {
		vd->kicked = false;
		if (f)
			ftl_process(f);
		return true;
	}
	next = nand_next_event(vd->dev);
	if (next == UINT64_MAX || next > until_ns)
		return false;
	blox_clock_set(&vd->clock, next);
	nand_advance(vd->dev, next);
	return true;
}

void ftl_vdrive_run(struct ftl_vdrive *vd, struct ftl *f, uint64_t until_ns)
{
	while (step(vd, f, until_ns))
		;
	if (until_ns != UINT64_MAX)
		blox_clock_set(&vd->clock, until_ns);
}

void ftl_vdrive_run_until(struct ftl_vdrive *vd, struct ftl *f, const bool *flag)
{
	while (!*flag && step(vd, f, UINT64_MAX))
		;
}
