/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A zoned namespace's commands across a power cut (bloxctl fault
 * power-cut; bdev_zns.c's zb_power_cut() cuts and rebuilds): the ops in
 * flight freed without completing, the commands they (or a reset, or a
 * durability wait) held failed once the zones are rebuilt. And the
 * device driven until a part's ops in flight end (a destroy's).
 */
#include "bdev_zns.h"

#include <errno.h>

static void req_lost(struct zns_bdev *zb, struct zb_req *req)
{
	if (!req || req->cut)
		return;
	req->cut = true;
	TAILQ_INSERT_TAIL(&zb->cut_reqs, req, link);
}

void zb_power_off(struct zns_bdev *zb)
{
	struct zb_req *req;
	struct zb_op *o;

	while ((req = TAILQ_FIRST(&zb->durable))) {
		TAILQ_REMOVE(&zb->durable, req, link);
		req_lost(zb, req);
	}
	while ((o = TAILQ_FIRST(&zb->ops))) {
		req_lost(zb, o->req);
		zb_op_free(o);
	}
	for (uint32_t i = 0; i < zb->l.nr_zones; i++)
		req_lost(zb, zb->zones[i].reset_req);
}

uint32_t zb_power_on(struct zns_bdev *zb)
{
	struct blox_io *io;
	struct zb_req *req;
	uint32_t n = 0;

	while ((req = TAILQ_FIRST(&zb->cut_reqs))) {
		TAILQ_REMOVE(&zb->cut_reqs, req, link);
		req->status = -EIO;
		zb_req_finish(zb, req);
		n++;
	}
	while ((io = TAILQ_FIRST(&zb->waiting))) {
		TAILQ_REMOVE(&zb->waiting, io, link);
		io->status = -EIO;
		blox_io_cq_post(zb->base.cq, io);
		n++;
	}
	return n;
}

void zb_drive(struct zns_bdev *zb, const uint32_t *inflight)
{
	while (*inflight && zb->dev) {
		uint64_t next = nand_next_event(zb->dev);

		if (next == UINT64_MAX)
			break;
		nand_advance(zb->dev, next);
	}
}
