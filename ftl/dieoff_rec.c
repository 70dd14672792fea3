/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The record of a die's loss: what a crash must not undo.
 *
 * As a die goes (dieoff.c), every LBA whose mapping it makes lost is lost
 * in memory at once, but on flash only once the changed translation pages
 * are programmed. A crash or a power cut before that would leave recovery
 * the older copies of those pages and the OOB of the live dies: an LBA
 * whose newest data was on the die could come back as an older version of
 * itself (one still on a live die, newer than its translation page's copy),
 * and a translation page rebuilt but not yet programmed would be lost.
 *
 * So before the FTL goes on, it writes a record of the loss straight to
 * the store (as a checkpoint is written, synced): the write sequence at
 * the loss (W), the die slot and a bitmap of the LBAs lost. It goes on the
 * live dies' free pages of the superblock of the current checkpoint, after
 * it, units tagged UK_DIEREC (lba: unit index, wseq and dseq: W). A later
 * checkpoint (newer than W) holds the loss itself: its translation pages
 * are written back first.
 *
 * Recovery reads the records of both checkpoint superblocks and keeps
 * those newer than the checkpoint it starts from (every one when none
 * could be read): an LBA of a record is lost unless the scan found data of
 * it written after W, or the copy of its translation page recovery uses
 * was taken after W (then it holds what became of the LBA).
 *
 * A die that comes back (replaced, empty) is written again only once every
 * translation page that mapped what it held is fixed on flash, and then a
 * record says so (back, one unit). Until then a start holds the slot dead,
 * whatever the device says (the newest record of a slot, or the
 * checkpoint's dead slots, decide): a crash while the fixes are under way
 * finds no mapping to what the new die holds. Each record takes a write
 * sequence of its own (W), so records and data are ordered.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define DIEREC_MAGIC 0x31454944584c42ull /* "BLXDIE1" */

struct dierec_hdr {
	uint64_t magic;
	uint64_t w;
	uint32_t slot, die, capacity, units; /* units: the header's and the bitmap's */
	uint32_t back, pad; /* back: the die came back (no bitmap) */
};

static uint32_t bitmap_units(const struct ftl *f)
{
	return (uint32_t)(((uint64_t)f->capacity + 8 * FTL_UNIT - 1) / (8 * FTL_UNIT));
}

/* Flash page @fpid's block, and its page in it. */
static struct nand_block_meta *fpid_block(const struct ftl *f, uint32_t fpid, uint32_t *page)
{
	struct nand_addr a;

	ftl_fpid_addr(f, fpid, &a);
	*page = a.page;
	return &f->env.store->blocks[nand_block_index(f->geo, &a)];
}

/*
 * The pages of checkpoint superblock @sb a record may take, in order, into
 * @out (NULL: only count them): after the last one programmed, on the live
 * dies, each where its block's next page is (a block of a die back,
 * replaced, is erased: not behind the others). How many.
 */
static uint32_t free_pages(const struct ftl *f, uint32_t sb, uint32_t *out)
{
	uint32_t base = ftl_ppn(f, sb, 0) / f->slots, pages = f->pages_per_block * f->stripe;
	uint32_t *wp = malloc(f->stripe * sizeof(*wp)), n = 0, row;
	int64_t last = -1;

	if (!wp)
		return 0;
	for (uint32_t q = 0; q < pages; q++) {
		if (ftl_fpid_dead(f, base + q))
			continue;
		if (fpid_block(f, base + q, &row)->write_ptr > row)
			last = q;
	}
	for (uint32_t s = 0; s < f->stripe; s++)
		wp[s] = fpid_block(f, base + s, &row)->write_ptr;
	for (uint32_t q = (uint32_t)(last + 1); q < pages; q++) {
		if (ftl_fpid_dead(f, base + q) || wp[q % f->stripe] != q / f->stripe)
			continue;
		wp[q % f->stripe]++;
		if (out)
			out[n] = base + q;
		n++;
	}
	free(wp);
	return n;
}

int ftl_dierec_write(struct ftl *f, uint32_t slot, uint64_t w, const uint64_t *lost)
{
	struct nand_store *st = f->env.store;
	uint32_t sb = (uint32_t)(f->ckpt_gen % FTL_CKPT_SBS), n;
	uint32_t total = lost ? 1 + bitmap_units(f) : 1;
	struct dierec_hdr h = { DIEREC_MAGIC, w,  slot, f->res.dies[slot], f->capacity, total,
				!lost, 0 };
	uint8_t *img = NULL, *oob_raw = NULL;
	uint32_t *fpids = NULL;
	int rc = 0;

	if (!st || !f->ckpt_gen)
		return 0; /* nothing survives a restart anyway, or no checkpoint yet */
	n = free_pages(f, sb, NULL);
	if ((uint64_t)n * f->slots < total)
		return -ENOSPC; /* no room left after the checkpoint (or no memory) */
	img = calloc((size_t)total + f->slots, FTL_UNIT);
	oob_raw = calloc(1, f->geo->oob_size);
	fpids = calloc(n, sizeof(*fpids));
	if (!img || !oob_raw || !fpids) {
		rc = -ENOMEM;
		goto out;
	}
	free_pages(f, sb, fpids);
	memcpy(img, &h, sizeof(h));
	if (lost)
		memcpy(img + FTL_UNIT, lost, ((size_t)f->capacity + 63) / 64 * 8);
	for (uint32_t u = 0, i = 0; !rc && u < total; u += f->slots, i++) {
		struct ftl_oob oob = { .magic = FTL_OOB_MAGIC, .nslots = f->slots };
		struct nand_addr a;

		for (uint32_t s = 0; s < f->slots; s++)
			oob.slot[s] = (struct ftl_oob_slot){
				.lba = u + s,
				.kind = u + s < total ? UK_DIEREC : UK_PAD,
				.wseq = w,
				.dseq = w,
			};
		memcpy(oob_raw, &oob, sizeof(oob));
		ftl_fpid_addr(f, fpids[i], &a);
		rc = st->ops->program(st, nand_page_index(f->geo, &a), img + (size_t)u * FTL_UNIT,
				      oob_raw);
	}
	if (!rc)
		rc = st->ops->sync(st);
out:
	free(img);
	free(oob_raw);
	free(fpids);
	return rc;
}

/* Append record @r to @set; false: no memory. */
static bool rec_push(struct ftl_dierecs *set, const struct ftl_dierec *r)
{
	struct ftl_dierec *q = realloc(set->r, (set->n + 1) * sizeof(*q));

	if (!q)
		return false;
	set->r = q;
	set->r[set->n++] = *r;
	return true;
}

/* The records of checkpoint superblock @sb newer than @after into @set. */
static int load_sb(struct ftl *f, uint32_t sb, uint64_t after, struct ftl_dierecs *set)
{
	struct nand_store *st = f->env.store;
	uint32_t pages = f->pages_per_block * f->stripe, base = ftl_ppn(f, sb, 0) / f->slots;
	uint32_t words = (f->capacity + 63) / 64, next = 0;
	uint8_t *page = malloc(f->geo->page_size), *oob_raw = malloc(f->geo->oob_size);
	struct ftl_dierec cur = { 0 };
	int rc = 0;

	if (!page || !oob_raw) {
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t p = 0; p < pages && !rc; p++) {
		struct ftl_oob oob;
		struct nand_addr a;
		uint32_t row;

		if (ftl_fpid_dead(f, base + p) || fpid_block(f, base + p, &row)->write_ptr <= row)
			continue;
		ftl_fpid_addr(f, base + p, &a);
		if (st->ops->read(st, nand_page_index(f->geo, &a), page, oob_raw))
			continue;
		memcpy(&oob, oob_raw, sizeof(oob));
		if (oob.magic != FTL_OOB_MAGIC)
			continue;
		for (uint32_t s = 0; s < f->slots && s < oob.nslots && !rc; s++) {
			const struct ftl_oob_slot *os = &oob.slot[s];
			const uint8_t *unit = page + (size_t)s * FTL_UNIT;
			struct dierec_hdr h;

			if (os->kind != UK_DIEREC)
				continue;
			if (os->lba == 0) {
				memcpy(&h, unit, sizeof(h));
				free(cur.lost); /* one before it was torn */
				cur = (struct ftl_dierec){ 0 };
				next = 0;
				if (h.magic != DIEREC_MAGIC || h.w != os->wseq ||
				    h.capacity != f->capacity || h.slot >= f->ndies || h.w <= after ||
				    h.units != (h.back ? 1 : 1 + bitmap_units(f)))
					continue;
				if (h.back) {
					cur = (struct ftl_dierec){ h.w, h.slot, true, NULL };
					if (!rec_push(set, &cur))
						rc = -ENOMEM;
					cur = (struct ftl_dierec){ 0 };
					continue;
				}
				cur.lost = calloc(words ? words : 1, sizeof(uint64_t));
				if (!cur.lost) {
					rc = -ENOMEM;
					break;
				}
				cur.w = h.w;
				cur.slot = h.slot;
				next = 1;
			} else if (cur.lost && os->lba == next && os->wseq == cur.w) {
				size_t off = (size_t)(next - 1) * FTL_UNIT, len = (size_t)words * 8;

				if (off < len)
					memcpy((uint8_t *)cur.lost + off, unit,
					       len - off < FTL_UNIT ? len - off : FTL_UNIT);
				next++;
			} else {
				continue;
			}
			if (cur.lost && next == 1 + bitmap_units(f)) {
				if (!rec_push(set, &cur)) {
					rc = -ENOMEM;
					break;
				}
				cur = (struct ftl_dierec){ 0 };
				next = 0;
			}
		}
	}
out:
	free(cur.lost);
	free(page);
	free(oob_raw);
	return rc;
}

int ftl_dierec_load(struct ftl *f, uint64_t after, struct ftl_dierecs *set)
{
	int rc = 0;

	*set = (struct ftl_dierecs){ 0 };
	if (!f->env.store)
		return 0;
	for (uint32_t sb = 0; sb < FTL_CKPT_SBS && !rc; sb++)
		rc = load_sb(f, sb, after, set);
	if (rc)
		ftl_dierec_free(set);
	/* Write sequences go on after every record's (each record takes one). */
	for (uint32_t i = 0; i < set->n; i++)
		if (set->r[i].w > f->wseq)
			f->wseq = set->r[i].w;
	return rc;
}

bool ftl_dierec_dead(const struct ftl_dierecs *set, uint32_t slot, bool dead)
{
	uint64_t w = 0;

	for (uint32_t i = 0; i < set->n; i++) {
		if (set->r[i].slot != slot || set->r[i].w < w)
			continue;
		w = set->r[i].w;
		dead = !set->r[i].back;
	}
	return dead;
}

uint64_t ftl_dierec_w(const struct ftl_dierecs *set, uint32_t lba)
{
	uint64_t w = 0;

	for (uint32_t i = 0; i < set->n; i++)
		if (set->r[i].lost && set->r[i].lost[lba / 64] >> (lba % 64) & 1 && set->r[i].w > w)
			w = set->r[i].w;
	return w;
}

void ftl_dierec_free(struct ftl_dierecs *set)
{
	for (uint32_t i = 0; i < set->n; i++)
		free(set->r[i].lost);
	free(set->r);
	*set = (struct ftl_dierecs){ 0 };
}
