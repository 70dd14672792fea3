/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reads lent in place (nand_op.lend). A host read of one segment may hand
 * its caller the bytes where the store keeps them (the file store's
 * mapping, the RAM store's page) instead of copying them out: the network
 * then sends straight from there, and the data is moved once. The bytes
 * stay valid because their block is pinned until the caller gives them
 * back (nand_unpin(), from any thread): an erase that ends on a pinned
 * block is held, its die kept busy and looked at again every
 * NAND_PIN_RECHECK_NS, until the pins are gone. Callers give a read back
 * within one pass of their event loop (or copy it out first), so a hold is
 * rare and short; it is counted (nand_stats.erases_held).
 */
#include "engine_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

int nand_lend_init(struct nand_dev *dev)
{
	if (!dev->store || !dev->store->ops->peek)
		return 0;
	dev->pins = calloc(nand_blocks(&dev->cfg.geo), sizeof(*dev->pins));
	return dev->pins ? 0 : -ENOMEM;
}

/*
 * Lent reads come back within a pass of their loop (another reactor's):
 * what is about to drop the store's bytes without an erase waits for them,
 * up to a second, rather than leave a send pointing at what is gone.
 */
static bool pinned(struct nand_dev *dev, uint64_t block)
{
	if (block == UINT64_MAX)
		return atomic_load_explicit(&dev->pins_total, memory_order_acquire) != 0;
	return atomic_load_explicit(&dev->pins[block], memory_order_acquire) != 0;
}

/* @block, or every block (UINT64_MAX). */
static void wait_unpinned(struct nand_dev *dev, uint64_t block)
{
	struct timespec ts = { 0, 100000 };

	for (int i = 0; i < 10000 && pinned(dev, block); i++)
		nanosleep(&ts, NULL);
}

void nand_lend_wait(struct nand_dev *dev, uint64_t block)
{
	if (dev->pins)
		wait_unpinned(dev, block);
}

void nand_lend_fini(struct nand_dev *dev)
{
	if (!dev->pins)
		return;
	wait_unpinned(dev, UINT64_MAX);
	free((void *)dev->pins);
	dev->pins = NULL;
}

bool nand_lend(struct nand_dev *dev, struct nand_op *op, uint64_t page, uint64_t block)
{
	const struct nand_store *s = dev->store;
	const void *p;

	if (!op->lend || op->nsegs != 1 || op->data || op->oob || !dev->pins ||
	    dev->cfg.timing.null_timing)
		return false;
	p = s->ops->peek(dev->store, page, op->segs[0].off);
	if (!p)
		return false;
	atomic_fetch_add_explicit(&dev->pins[block], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&dev->pins_total, 1, memory_order_relaxed);
	op->lent = p;
	op->lent_block = block;
	dev->stats.lent_reads++;
	return true;
}

void nand_unpin(struct nand_dev *dev, uint64_t block)
{
	/* Release: the reader's last use of the bytes comes before the erase that waits on it. */
	atomic_fetch_sub_explicit(&dev->pins[block], 1, memory_order_release);
	atomic_fetch_sub_explicit(&dev->pins_total, 1, memory_order_release);
}

uint64_t nand_pins(const struct nand_dev *dev)
{
	return atomic_load_explicit(&dev->pins_total, memory_order_relaxed);
}

bool nand_erase_pinned(struct nand_dev *dev, const struct nand_op *op)
{
	const struct nand_geometry *g = &dev->cfg.geo;

	if (!dev->pins || op->timing_only ||
	    !atomic_load_explicit(&dev->pins_total, memory_order_acquire))
		return false;
	for (; op; op = op->mp_next) {
		for (uint32_t p = 0; p < op->nplanes; p++) {
			struct nand_addr a = op->addr;

			if (op->nplanes > 1)
				a.plane = p;
			if (atomic_load_explicit(&dev->pins[nand_block_index(g, &a)],
						 memory_order_acquire))
				return true;
		}
	}
	return false;
}
