/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Timing-only NAND backend. Data is kept by an inner RAM backend; timing
 * comes from a NAND engine driven in real time on the event loop. Flash
 * page n of the namespace lives on die n mod D (then planes, pages and
 * blocks in order), so sequential I/O spreads over every die. A read of
 * part of a page transfers only that part over the channel; a write
 * programs every page it touches. An I/O completes when its data copy and
 * all of its flash operations have.
 */
#include "bdev.h"
#include "blox_log.h"
#include "blox_util.h"
#include "nand_rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NAND_BDEV_CTXS 2048
#define NAND_BDEV_OPS 16384

struct nand_bdev;

struct nbd_ctx {
	struct nand_bdev *nb;
	struct blox_io *io; /* the caller's */
	struct blox_io inner; /* to the RAM backend */
	uint32_t pending;
	int status;
	TAILQ_ENTRY(nbd_ctx) link;
};

struct nbd_op {
	struct nand_op op;
	struct nbd_ctx *ctx;
	TAILQ_ENTRY(nbd_op) link;
};

struct nand_bdev {
	struct blox_bdev base;
	struct blox_bdev *ram;
	struct nand_dev *dev;
	struct nand_rt *rt;
	const struct blox_log *log;
	struct nbd_ctx *ctxs;
	struct nbd_op *ops;
	TAILQ_HEAD(, nbd_ctx) free_ctxs;
	TAILQ_HEAD(, nbd_op) free_ops;
	TAILQ_HEAD(, blox_io) waiting; /* out of contexts or ops */
	uint32_t free_op_count;
};

static void nbd_start(struct nand_bdev *nb, struct blox_io *io);

/* Flash pages an I/O touches (only reads and writes touch flash). */
static uint32_t io_flash_ops(const struct nand_geometry *g,
			     const struct blox_io *io)
{
	uint64_t first = io->offset / g->page_size;
	uint64_t last = io->len ? (io->offset + io->len - 1) / g->page_size : first;

	if (io->op != BLOX_IO_READ && io->op != BLOX_IO_WRITE)
		return 0;
	return (uint32_t)(last - first + 1);
}

static void ctx_put_one(struct nbd_ctx *c, int status)
{
	struct nand_bdev *nb = c->nb;
	struct blox_io *io = c->io;

	if (status && !c->status)
		c->status = status;
	if (--c->pending)
		return;
	io->status = c->status;
	TAILQ_INSERT_TAIL(&nb->free_ctxs, c, link);
	io->cb(io);
	/* Resources came back: start I/O that waited for them, in order. */
	while ((io = TAILQ_FIRST(&nb->waiting)) && !TAILQ_EMPTY(&nb->free_ctxs) &&
	       nb->free_op_count >=
		       io_flash_ops(&nand_dev_config(nb->dev)->geo, io)) {
		TAILQ_REMOVE(&nb->waiting, io, link);
		nbd_start(nb, io);
	}
}

static void ram_done(struct blox_io *inner)
{
	struct nbd_ctx *c = inner->cb_arg;

	ctx_put_one(c, inner->status);
}

static void flash_done(struct nand_op *op)
{
	struct nbd_op *o = container_of(op, struct nbd_op, op);
	struct nand_bdev *nb = o->ctx->nb;
	struct nbd_ctx *c = o->ctx;
	int status = op->status;

	TAILQ_INSERT_TAIL(&nb->free_ops, o, link);
	nb->free_op_count++;
	ctx_put_one(c, status);
}

/* Namespace flash page @fp -> physical address (fixed striping). */
static void map_page(const struct nand_geometry *g, uint64_t fp,
		     struct nand_addr *a)
{
	uint32_t dies = nand_dies(g);
	uint32_t die = (uint32_t)(fp % dies);
	uint64_t q = fp / dies;

	a->ch = die / g->dies_per_channel;
	a->die = die % g->dies_per_channel;
	a->plane = (uint32_t)(q % g->planes_per_die);
	q /= g->planes_per_die;
	a->page = (uint32_t)(q % g->pages_per_block);
	a->block = (uint32_t)((q / g->pages_per_block) % g->blocks_per_plane);
}

static void nbd_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	struct nand_bdev *nb = container_of(bdev, struct nand_bdev, base);
	const struct nand_geometry *g = &nand_dev_config(nb->dev)->geo;

	if (io->op != BLOX_IO_FLUSH &&
	    (io->offset > bdev->size || io->len > bdev->size - io->offset)) {
		io->status = -ERANGE;
		blox_io_cq_post(bdev->cq, io);
		return;
	}
	/* Out of contexts or ops: wait, behind whoever already waits. */
	if (TAILQ_EMPTY(&nb->free_ctxs) || !TAILQ_EMPTY(&nb->waiting) ||
	    io_flash_ops(g, io) > nb->free_op_count) {
		TAILQ_INSERT_TAIL(&nb->waiting, io, link);
		return;
	}
	nbd_start(nb, io);
}

/* Start @io; a context and enough ops are free. */
static void nbd_start(struct nand_bdev *nb, struct blox_io *io)
{
	const struct nand_geometry *g = &nand_dev_config(nb->dev)->geo;
	uint64_t first = io->offset / g->page_size;
	uint32_t nops = io_flash_ops(g, io);
	struct nbd_ctx *c = TAILQ_FIRST(&nb->free_ctxs);

	TAILQ_REMOVE(&nb->free_ctxs, c, link);
	c->io = io;
	c->status = 0;
	c->pending = 1 + nops;
	for (uint64_t fp = first; fp < first + nops; fp++) {
		struct nbd_op *o = TAILQ_FIRST(&nb->free_ops);
		uint64_t pstart = fp * g->page_size;
		uint64_t lo = BLOX_MAX(pstart, io->offset);
		uint64_t hi = BLOX_MIN(pstart + g->page_size, io->offset + io->len);
		int rc;

		TAILQ_REMOVE(&nb->free_ops, o, link);
		nb->free_op_count--;
		memset(&o->op, 0, sizeof(o->op));
		o->ctx = c;
		o->op.kind = io->op == BLOX_IO_READ ? NAND_OP_READ : NAND_OP_PROGRAM;
		o->op.prio = io->op == BLOX_IO_READ ? NAND_PRIO_HOST_READ
						    : NAND_PRIO_HOST_WRITE;
		map_page(g, fp, &o->op.addr);
		o->op.nplanes = 1;
		/* A program moves the whole page; a read only what is asked. */
		o->op.xfer_bytes = io->op == BLOX_IO_READ ? (uint32_t)(hi - lo) : 0;
		o->op.timing_only = true;
		o->op.cb = flash_done;
		rc = nand_rt_submit(nb->rt, &o->op);
		if (rc) {
			TAILQ_INSERT_TAIL(&nb->free_ops, o, link);
			nb->free_op_count++;
			c->status = rc;
			c->pending--;
		}
	}
	c->inner = *io;
	c->inner.cb = ram_done;
	c->inner.cb_arg = c;
	blox_bdev_submit(nb->ram, &c->inner);
}

static void nbd_destroy(struct blox_bdev *bdev)
{
	struct nand_bdev *nb = container_of(bdev, struct nand_bdev, base);

	if (nb->dev) {
		const struct nand_stats *st = nand_dev_stats(nb->dev);

		blox_log(nb->log, BLOX_LOG_INFO,
			 "nand: %lu ops; read latency p50 %lu p99 %lu ns; "
			 "lateness p50 %lu p99 %lu max %lu ns; suspends %lu",
			 (unsigned long)st->completed,
			 (unsigned long)blox_hist_quantile(&st->latency[NAND_OP_READ], 0.5),
			 (unsigned long)blox_hist_quantile(&st->latency[NAND_OP_READ], 0.99),
			 (unsigned long)blox_hist_quantile(&st->lateness, 0.5),
			 (unsigned long)blox_hist_quantile(&st->lateness, 0.99),
			 (unsigned long)st->lateness.max,
			 (unsigned long)(st->suspend.suspends[NAND_OP_PROGRAM] +
					 st->suspend.suspends[NAND_OP_ERASE]));
	}
	nand_rt_destroy(nb->rt);
	nand_dev_destroy(nb->dev);
	blox_bdev_destroy(nb->ram);
	free(nb->ctxs);
	free(nb->ops);
	free(nb);
}

static void nbd_telemetry(struct blox_bdev *bdev, struct blox_bdev_telemetry *t)
{
	struct nand_bdev *nb = container_of(bdev, struct nand_bdev, base);
	const struct nand_geometry *g = &nand_dev_config(nb->dev)->geo;

	t->nand = nand_dev_stats(nb->dev);
	t->nand_dev = nb->dev;
	t->dies = nand_dies(g);
	t->channels = g->channels;
}

static const struct blox_bdev_ops nand_bdev_ops = {
	.name = "nand-timing",
	.submit = nbd_submit,
	.destroy = nbd_destroy,
	.telemetry = nbd_telemetry,
};

int blox_bdev_nand_create(const struct blox_bdev_params *p,
			  struct blox_io_cq *cq, struct blox_bdev **out)
{
	struct blox_bdev_params rp = *p;
	struct nand_bdev *nb;
	int rc;

	if (!p->nand || !p->base || !p->clock)
		return -EINVAL;
	if (p->size > nand_capacity(&p->nand->geo))
		return -ENOSPC;
	nb = calloc(1, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	nb->log = p->log;
	TAILQ_INIT(&nb->free_ctxs);
	TAILQ_INIT(&nb->free_ops);
	TAILQ_INIT(&nb->waiting);
	nb->ctxs = calloc(NAND_BDEV_CTXS, sizeof(*nb->ctxs));
	nb->ops = calloc(NAND_BDEV_OPS, sizeof(*nb->ops));
	if (!nb->ctxs || !nb->ops) {
		rc = -ENOMEM;
		goto fail;
	}
	for (uint32_t i = 0; i < NAND_BDEV_CTXS; i++) {
		nb->ctxs[i].nb = nb;
		TAILQ_INSERT_TAIL(&nb->free_ctxs, &nb->ctxs[i], link);
	}
	for (uint32_t i = 0; i < NAND_BDEV_OPS; i++)
		TAILQ_INSERT_TAIL(&nb->free_ops, &nb->ops[i], link);
	nb->free_op_count = NAND_BDEV_OPS;
	rp.backend = "ram";
	rc = blox_bdev_ram_create(&rp, cq, &nb->ram);
	if (rc)
		goto fail;
	rc = nand_dev_create(p->nand, NULL, &nb->dev);
	if (rc)
		goto fail;
	rc = nand_rt_create(p->base, p->clock, nb->dev, NAND_RT_SPIN_NS, &nb->rt);
	if (rc)
		goto fail;
	nb->base.ops = &nand_bdev_ops;
	nb->base.size = p->size;
	nb->base.block_size = p->block_size;
	nb->base.cq = cq;
	*out = &nb->base;
	return 0;
fail:
	nbd_destroy(&nb->base);
	return rc;
}
