/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Null backend: accepts every write, reads zeroes, stores nothing. For
 * measuring the network path alone.
 */
#include "bdev.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void null_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	io->status = 0;
	if (io->op != BLOX_IO_FLUSH &&
	    (io->offset > bdev->size || io->len > bdev->size - io->offset))
		io->status = -ERANGE;
	else if (io->op == BLOX_IO_READ)
		for (int i = 0; i < io->iovcnt; i++)
			memset(io->iov[i].iov_base, 0, io->iov[i].iov_len);
	blox_io_cq_post(bdev->cq, io);
}

static void null_destroy(struct blox_bdev *bdev)
{
	free(bdev);
}

static const struct blox_bdev_ops null_ops = {
	.name = "null",
	.submit = null_submit,
	.destroy = null_destroy,
};

int blox_bdev_null_create(const struct blox_bdev_params *p,
			  struct blox_io_cq *cq, struct blox_bdev **out)
{
	struct blox_bdev *b = calloc(1, sizeof(*b));

	if (!b)
		return -ENOMEM;
	b->ops = &null_ops;
	b->size = p->size;
	b->block_size = p->block_size;
	b->cq = cq;
	*out = b;
	return 0;
}
