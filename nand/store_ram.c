/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * RAM backing store: per block, a table of page buffers allocated when a
 * page is programmed and freed when its block is erased.
 */
#include "nand.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct ram_store {
	struct nand_store base;
	uint8_t ***blocks; /* [block][page] -> data followed by OOB */
	size_t stride;
};

static struct ram_store *to_ram(struct nand_store *s)
{
	return (struct ram_store *)s;
}

/* A page's buffer: data then OOB; NULL when it was never programmed. */
static uint8_t *ram_page(struct nand_store *s, uint64_t page)
{
	struct ram_store *r = to_ram(s);
	uint32_t ppb = s->geo.pages_per_block;
	uint8_t **blk = r->blocks[page / ppb];

	return blk ? blk[page % ppb] : NULL;
}

static int ram_read(struct nand_store *s, uint64_t page, void *data, void *oob)
{
	uint8_t *p = ram_page(s, page);

	if (s->blocks[page / s->geo.pages_per_block].flags & NAND_BLOCK_OFFLINE)
		return -ENODEV; /* its die is offline */
	if (!p)
		return -EIO; /* the engine only reads programmed pages */
	if (data)
		memcpy(data, p, s->geo.page_size);
	if (oob)
		memcpy(oob, p + s->geo.page_size, s->geo.oob_size);
	return 0;
}

static int ram_read_part(struct nand_store *s, uint64_t page, uint32_t off, uint32_t len,
			 void *dst)
{
	uint8_t *p = ram_page(s, page);

	if (s->blocks[page / s->geo.pages_per_block].flags & NAND_BLOCK_OFFLINE)
		return -ENODEV; /* its die is offline */
	if (!p)
		return -EIO;
	memcpy(dst, p + off, len);
	return 0;
}

static const void *ram_peek(struct nand_store *s, uint64_t page, uint32_t off)
{
	uint8_t *p = ram_page(s, page);

	if (!p || (s->blocks[page / s->geo.pages_per_block].flags & NAND_BLOCK_OFFLINE))
		return NULL;
	return p + off;
}

static int ram_program(struct nand_store *s, uint64_t page, const void *data,
		       const void *oob)
{
	struct ram_store *r = to_ram(s);
	uint32_t ppb = s->geo.pages_per_block;
	uint64_t b = page / ppb;
	uint8_t *p;

	if (s->blocks[page / s->geo.pages_per_block].flags & NAND_BLOCK_OFFLINE)
		return -ENODEV; /* its die is offline */
	if (!r->blocks[b]) {
		r->blocks[b] = calloc(ppb, sizeof(*r->blocks[b]));
		if (!r->blocks[b])
			return -ENOMEM;
	}
	p = blox_page_alloc(r->stride);
	if (!p)
		return -ENOMEM;
	if (data)
		memcpy(p, data, s->geo.page_size);
	else
		memset(p, 0, s->geo.page_size);
	if (oob)
		memcpy(p + s->geo.page_size, oob, s->geo.oob_size);
	else
		memset(p + s->geo.page_size, 0, s->geo.oob_size);
	free(r->blocks[b][page % ppb]);
	r->blocks[b][page % ppb] = p;
	s->blocks[b].write_ptr = (uint32_t)(page % ppb) + 1;
	s->pages_stored++;
	return 0;
}

static int ram_erase(struct nand_store *s, uint64_t block)
{
	struct ram_store *r = to_ram(s);
	uint8_t **blk = r->blocks[block];

	if (blk) {
		for (uint32_t i = 0; i < s->geo.pages_per_block; i++) {
			if (blk[i])
				s->pages_stored--;
			free(blk[i]);
		}
		free(blk);
		r->blocks[block] = NULL;
	}
	s->blocks[block].erase_count++;
	s->blocks[block].write_ptr = 0;
	return 0;
}

static int ram_sync(struct nand_store *s)
{
	(void)s;
	return 0;
}

static void ram_close(struct nand_store *s)
{
	struct ram_store *r = to_ram(s);
	uint64_t n = nand_blocks(&s->geo);

	for (uint64_t b = 0; b < n; b++) {
		if (!r->blocks[b])
			continue;
		for (uint32_t i = 0; i < s->geo.pages_per_block; i++)
			free(r->blocks[b][i]);
		free(r->blocks[b]);
	}
	free(r->blocks);
	free(s->blocks);
	free(s->dies);
	free(r);
}

static const struct nand_store_ops ram_ops = {
	.name = "ram",
	.read = ram_read,
	.read_part = ram_read_part,
	.peek = ram_peek,
	.program = ram_program,
	.erase = ram_erase,
	.sync = ram_sync,
	.close = ram_close,
};

uint64_t nand_store_ram_bytes(const struct nand_geometry *g)
{
	return nand_pages(g) * ((uint64_t)g->page_size + g->oob_size);
}

int nand_store_ram_open(const struct nand_geometry *g, struct nand_store **out)
{
	struct ram_store *r;
	int rc = nand_geometry_check(g, NULL);

	if (rc)
		return rc;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->base.ops = &ram_ops;
	r->base.geo = *g;
	r->stride = (size_t)g->page_size + g->oob_size;
	r->blocks = calloc(nand_blocks(g), sizeof(*r->blocks));
	r->base.blocks = calloc(nand_blocks(g), sizeof(*r->base.blocks));
	r->base.dies = calloc(nand_dies(g), sizeof(*r->base.dies));
	if (!r->blocks || !r->base.blocks || !r->base.dies) {
		free(r->blocks);
		free(r->base.blocks);
		free(r->base.dies);
		free(r);
		return -ENOMEM;
	}
	*out = &r->base;
	return 0;
}

void nand_store_close(struct nand_store *s)
{
	if (s)
		s->ops->close(s);
}
