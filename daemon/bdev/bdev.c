/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Backend registry and the completion queue that keeps backend
 * completions out of submit() (they are delivered from the event loop).
 */
#include "bdev.h"
#include "bdev_hop.h"
#include "bdev_qos.h"

#include <errno.h>
#include <event2/event.h>
#include <string.h>

static void cq_event_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	blox_io_cq_drain(arg);
}

int blox_io_cq_init(struct blox_io_cq *cq, struct event_base *base)
{
	TAILQ_INIT(&cq->done);
	cq->ev = NULL;
	if (base) {
		cq->ev = event_new(base, -1, 0, cq_event_cb, cq);
		if (!cq->ev)
			return -ENOMEM;
	}
	return 0;
}

void blox_io_cq_fini(struct blox_io_cq *cq)
{
	if (cq->ev)
		event_free(cq->ev);
	cq->ev = NULL;
}

void blox_io_lend_end(struct blox_io *io)
{
	if (!io->lent)
		return;
	io->lent = NULL;
	io->lend_end(io->lend_ctx, io->lend_tok);
}

void blox_io_unlend(struct blox_io *io)
{
	if (!io->lent)
		return;
	memcpy(io->iov[0].iov_base, io->lent, io->len);
	blox_io_lend_end(io);
}

void blox_io_cq_post(struct blox_io_cq *cq, struct blox_io *io)
{
	TAILQ_INSERT_TAIL(&cq->done, io, link);
	if (cq->ev)
		event_active(cq->ev, 0, 0);
}

void blox_io_cq_drain(struct blox_io_cq *cq)
{
	/*
	 * Take the current batch only: completions may submit new I/O whose
	 * completions belong to the next loop pass.
	 */
	TAILQ_HEAD(, blox_io) batch = TAILQ_HEAD_INITIALIZER(batch);
	struct blox_io *io;

	TAILQ_CONCAT(&batch, &cq->done, link);
	while ((io = TAILQ_FIRST(&batch))) {
		TAILQ_REMOVE(&batch, io, link);
		io->cb(io);
	}
}

int blox_bdev_create(const struct blox_bdev_params *p, struct blox_io_cq *cq,
		     struct blox_bdev **out)
{
	if (!p->backend)
		return -EINVAL;
	if (p->block_size != 512 && p->block_size != 4096)
		return -EINVAL;
	/* Zoned: its size is whole zones, of what it asks (0: every block a zone). */
	if (!strcmp(p->backend, "zns"))
		return bdev_zns_create_home(p, cq, out);
	if (p->size == 0 || p->size % p->block_size)
		return -EINVAL;
	if (!strcmp(p->backend, "ram"))
		return blox_bdev_ram_create(p, cq, out);
	if (!strcmp(p->backend, "null"))
		return blox_bdev_null_create(p, cq, out);
	if (!strcmp(p->backend, "nand-timing"))
		return blox_bdev_nand_create(p, cq, out);
	if (!strcmp(p->backend, "nand"))
		return bdev_ftl_create_home(p, cq, out);
	return -EINVAL;
}

void blox_bdev_destroy(struct blox_bdev *bdev)
{
	if (!bdev)
		return;
	blox_bdev_qos_free(bdev);
	bdev_hop_destroy(bdev);
}
