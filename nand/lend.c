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

/*
 * A device's pins, apart from the device: a lent read may come back after
 * the device went (a namespace deleted in the pass its last read's answer
 * waits to be sent), so the table counts a reference for the device and one
 * per pin, and the last one frees it (and closes the store handed to it).
 */
struct nand_lend_tab {
	_Atomic uint64_t refs;
	struct nand_store *store; /* closed with the last reference; NULL: not ours */
	_Atomic uint32_t pins[]; /* per block */
};

int nand_lend_init(struct nand_dev *dev)
{
	struct nand_lend_tab *t;

	if (!dev->store || !dev->store->ops->peek)
		return 0;
	t = calloc(1, sizeof(*t) + nand_blocks(&dev->cfg.geo) * sizeof(t->pins[0]));
	if (!t)
		return -ENOMEM;
	atomic_init(&t->refs, 1);
	dev->lend = t;
	return 0;
}

static void tab_put(struct nand_lend_tab *t)
{
	/* Acquire too: the last one sees the store handed over and every use of the pins. */
	if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) != 1)
		return;
	if (t->store)
		nand_store_close(t->store);
	free(t);
}

static bool pinned(const struct nand_lend_tab *t, uint64_t block)
{
	if (block == UINT64_MAX)
		return atomic_load_explicit(&t->refs, memory_order_acquire) > 1;
	return atomic_load_explicit(&t->pins[block], memory_order_acquire) != 0;
}

/*
 * Lent reads come back within a pass of their loop (another reactor's):
 * what is about to drop the store's bytes without an erase waits for them,
 * up to a second. @block, or every block (UINT64_MAX).
 */
static void wait_unpinned(const struct nand_lend_tab *t, uint64_t block)
{
	struct timespec ts = { 0, 100000 };

	for (int i = 0; i < 10000 && pinned(t, block); i++)
		nanosleep(&ts, NULL);
}

void nand_lend_wait(struct nand_dev *dev, uint64_t block)
{
	if (dev->lend)
		wait_unpinned(dev->lend, block);
}

void nand_lend_fini(struct nand_dev *dev, struct nand_store *close)
{
	struct nand_lend_tab *t = dev->lend;

	if (!t) {
		if (close)
			nand_store_close(close);
		return;
	}
	dev->lend = NULL;
	if (close)
		t->store = close; /* closed by whoever gives the last read back */
	else
		wait_unpinned(t, UINT64_MAX); /* the caller closes the store next */
	tab_put(t);
}

bool nand_lend(struct nand_dev *dev, struct nand_op *op, uint64_t page, uint64_t block)
{
	const struct nand_store *s = dev->store;
	struct nand_lend_tab *t = dev->lend;
	const void *p;

	if (!op->lend || op->nsegs != 1 || op->data || op->oob || !t ||
	    dev->cfg.timing.null_timing)
		return false;
	p = s->ops->peek(dev->store, page, op->segs[0].off);
	if (!p)
		return false;
	atomic_fetch_add_explicit(&t->pins[block], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
	op->lent = p;
	op->lent_tab = t;
	op->lent_block = block;
	dev->stats.lent_reads++;
	return true;
}

void nand_unpin(struct nand_lend_tab *t, uint64_t block)
{
	/* Release: the reader's last use of the bytes comes before the erase that waits on it. */
	atomic_fetch_sub_explicit(&t->pins[block], 1, memory_order_release);
	tab_put(t);
}

uint64_t nand_pins(const struct nand_dev *dev)
{
	return dev->lend ? atomic_load_explicit(&dev->lend->refs, memory_order_relaxed) - 1 : 0;
}

bool nand_erase_pinned(struct nand_dev *dev, const struct nand_op *op)
{
	const struct nand_geometry *g = &dev->cfg.geo;
	const struct nand_lend_tab *t = dev->lend;

	if (!t || op->timing_only || !pinned(t, UINT64_MAX))
		return false;
	for (; op; op = op->mp_next) {
		for (uint32_t p = 0; p < op->nplanes; p++) {
			struct nand_addr a = nand_plane_addr(op, p);

			if (pinned(t, nand_block_index(g, &a)))
				return true;
		}
	}
	return false;
}
