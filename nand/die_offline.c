/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die gone offline, kept by the device itself.
 *
 * A die goes offline when nand_die_set_offline() says so or a die-offline
 * fault fires at an op on it. From then on every op that starts on it
 * fails with -ENODEV, touching nothing, and the store keeps it so: every
 * block of the die carries NAND_BLOCK_OFFLINE in its meta (synced at
 * once), the stores refuse to read or program it (-ENODEV, so that what
 * reads the store straight, an FTL's checkpoint and start-up scan, finds
 * it gone too), and a device made over the store later (a restart, a
 * power cut) starts with the die offline. A real drive whose die died
 * does not get it back after a power cycle.
 *
 * It comes back replaced: nand_die_set_offline(false), or, for a die a
 * fault took (or that was found offline when the fault registry was set),
 * once no die-offline fault for it is listed (nand_die_offline(): the
 * check a user of the die makes). A replaced die is empty: every block
 * erased, its erase count and its flags (bad blocks) reset, as a new part
 * soldered in.
 */
#include "engine_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t block_die(const struct nand_geometry *g, uint64_t blk)
{
	struct nand_addr a;

	nand_page_addr(g, blk * g->pages_per_block, &a);
	return nand_die_index(g, &a);
}

/* Every block of @die flagged offline (or not) in the store, synced. */
static int store_mark(struct nand_dev *dev, uint32_t die, bool offline)
{
	struct nand_store *s = dev->store;
	const struct nand_geometry *g = &dev->cfg.geo;

	if (!s)
		return 0;
	for (uint64_t b = 0; b < nand_blocks(g); b++) {
		if (block_die(g, b) != die)
			continue;
		if (offline)
			s->blocks[b].flags |= NAND_BLOCK_OFFLINE;
		else
			s->blocks[b].flags &= ~NAND_BLOCK_OFFLINE;
	}
	return s->ops->sync(s);
}

/* The die is new: every block erased, no wear, no bad block. */
static int replace(struct nand_dev *dev, uint32_t die)
{
	struct nand_store *s = dev->store;
	const struct nand_geometry *g = &dev->cfg.geo;
	int rc = 0;

	if (!s)
		return 0;
	for (uint64_t b = 0; b < nand_blocks(g) && !rc; b++) {
		if (block_die(g, b) != die)
			continue;
		s->blocks[b].flags = 0;
		if (s->blocks[b].write_ptr) {
			nand_lend_wait(dev, b);
			rc = s->ops->erase(s, b);
		}
		s->blocks[b].erase_count = 0;
		s->blocks[b].erase_suspends = 0;
		if (dev->rel) {
			dev->rel->reads[b] = 0;
			dev->rel->prog_ns[b] = INT64_MIN;
			free(dev->rel->bad[b]);
			dev->rel->bad[b] = NULL;
		}
	}
	return rc ? rc : s->ops->sync(s);
}

void nand_offline_load(struct nand_dev *dev)
{
	const struct nand_geometry *g = &dev->cfg.geo;

	if (!dev->store)
		return;
	for (uint64_t b = 0; b < nand_blocks(g); b++)
		if (dev->store->blocks[b].flags & NAND_BLOCK_OFFLINE &&
		    !dev->offline[block_die(g, b)]) {
			dev->offline[block_die(g, b)] = true;
			dev->stats.rel.dies_offline++; /* gone, as far as this device knows */
		}
}

static int go_offline(struct nand_dev *dev, uint32_t die, bool by_fault)
{
	dev->offline_fault[die] = by_fault;
	if (dev->offline[die])
		return 0;
	dev->offline[die] = true;
	dev->stats.rel.dies_offline++;
	return store_mark(dev, die, true);
}

static int come_back(struct nand_dev *dev, uint32_t die)
{
	int rc;

	if (!dev->offline[die])
		return 0;
	rc = replace(dev, die);
	if (rc)
		return rc;
	dev->offline[die] = false;
	dev->offline_fault[die] = false;
	dev->stats.rel.dies_replaced++;
	return 0;
}

bool nand_op_die_offline(struct nand_dev *dev, const struct nand_op *op)
{
	uint32_t die = nand_die_index(&dev->cfg.geo, &op->addr);

	if (!dev->offline[die] && dev->faults &&
	    nand_fault_fires(dev, op, BLOX_FAULT_DIE_OFFLINE))
		go_offline(dev, die, true); /* a store that cannot sync: offline now all the same */
	if (dev->offline[die]) {
		dev->stats.rel.offline_ops++;
		return true;
	}
	return false;
}

int nand_die_set_offline(struct nand_dev *dev, uint32_t die, bool offline)
{
	if (die >= dev->nr_dies)
		return -ERANGE;
	return offline ? go_offline(dev, die, false) : come_back(dev, die);
}

static bool fault_listed(struct nand_dev *dev, uint32_t die)
{
	struct blox_fault_site site = {
		.kind = BLOX_FAULT_DIE_OFFLINE,
		.device = dev->fault_name,
		.die = die,
	};

	return blox_fault_listed(dev->faults, &site);
}

bool nand_die_offline(struct nand_dev *dev, uint32_t die)
{
	if (die >= dev->nr_dies || !dev->offline[die])
		return false;
	if (dev->faults && dev->offline_fault[die] && !fault_listed(dev, die))
		return come_back(dev, die) != 0; /* its fault was cleared: a new die */
	return true;
}

void nand_dev_set_faults(struct nand_dev *dev, struct blox_fault_reg *reg, const char *name)
{
	dev->faults = reg;
	snprintf(dev->fault_name, sizeof(dev->fault_name), "%s", name ? name : "");
	if (!reg)
		return;
	/*
	 * A die the store keeps offline is listed as a die-offline fault (one
	 * kept with --persist is there already), so that `fault clear` brings
	 * it back.
	 */
	for (uint32_t die = 0; die < dev->nr_dies; die++) {
		struct blox_fault_spec s = {
			.kind = BLOX_FAULT_DIE_OFFLINE,
			.die = die,
			.probability = 1.0,
		};
		char err[128];

		if (!dev->offline[die])
			continue;
		dev->offline_fault[die] = true;
		if (fault_listed(dev, die))
			continue;
		snprintf(s.device, sizeof(s.device), "%s", dev->fault_name);
		blox_fault_add(reg, &s, 0, NULL, err, sizeof(err)); /* full: it stays offline */
	}
}
