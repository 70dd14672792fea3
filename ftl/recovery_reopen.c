/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * After the start-up scan (recovery.c): each stream is given back the
 * superblock it was writing, after its last programmed page, once the
 * holes before that page are padded; in doubt the superblock stays closed.
 */
#include "recovery.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Program flash page @fpid with padding of stream @s, straight in the store. */
static int pad_page(struct ftl *f, enum ftl_stream s, uint32_t fpid, const uint8_t *zero,
		    uint8_t *oob_raw)
{
	struct nand_store *st = f->env.store;
	struct ftl_oob oob = { .magic = FTL_OOB_MAGIC, .nslots = f->slots,
			       .stream = FTL_OOB_STREAM_TAG(s) };
	struct nand_addr a;

	ftl_fpid_addr(f, fpid, &a);
	/* Only ever the next page of its block: never one programmed already. */
	if (st->blocks[nand_block_index(f->geo, &a)].write_ptr != a.page)
		return -EPERM;
	for (uint32_t k = 0; k < f->slots; k++)
		oob.slot[k] = (struct ftl_oob_slot){ .kind = UK_PAD, .wseq = ++f->wseq };
	memset(oob_raw, 0, f->geo->oob_size);
	memcpy(oob_raw, &oob, sizeof(oob));
	f->st.units_padded += f->slots;
	return st->ops->program(st, nand_page_index(f->geo, &a), zero, oob_raw);
}

/*
 * Where stream @s can go on writing in superblock @sb: the flash page after
 * the last programmed one, once the holes before it are padded. @want: the
 * page the checkpoint says (UINT32_MAX: no say); then there must be no
 * hole and the page must be that one. Returns the page, or UINT32_MAX when
 * the superblock stays closed (in doubt, or full).
 */
static uint32_t resume_page(struct ftl *f, enum ftl_stream s, uint32_t sb,
			    const struct sb_seen *sn, uint32_t want)
{
	uint32_t pages = f->pages_per_block * f->stripe;
	uint32_t base = ftl_ppn(f, sb, 0) / f->slots;
	uint32_t first_free = pages, resume = 0;
	uint8_t *zero, *oob_raw;
	int rc = 0;

	/* A program failed in it (a bad block): GC empties and retires it instead. */
	/* The host closed it (Reclaim Unit Handle Update): never reopened. */
	if (f->sbs[sb].state != SB_FULL || !sn->any || sn->bad || sn->mixed || sn->closed ||
	    sn->stream != FTL_OOB_STREAM_TAG(s) || ftl_sb_has_bad_block(f, sb))
		return UINT32_MAX;
	for (uint32_t p = 0; p < pages; p++) {
		struct nand_addr a;

		if (ftl_fpid_dead(f, base + p))
			continue; /* a die gone offline: the streams skip it */
		if (page_programmed(f, base + p, &a))
			resume = p + 1;
		else if (first_free == pages)
			first_free = p;
	}
	if (want != UINT32_MAX && (first_free != want || resume != want))
		return UINT32_MAX;
	if (resume >= pages)
		return UINT32_MAX; /* full */
	if (first_free == resume)
		return resume; /* no hole */
	/*
	 * Holes: programs in flight at the crash, at most a write buffer's
	 * worth behind the last one that finished. Anything wider is not what
	 * a stream leaves (a superblock half erased, say): keep it closed.
	 */
	if (resume - first_free > f->nr_wbufs)
		return UINT32_MAX;
	zero = calloc(1, f->geo->page_size);
	oob_raw = malloc(f->geo->oob_size);
	if (!zero || !oob_raw)
		rc = -ENOMEM;
	for (uint32_t p = first_free; !rc && p < resume; p++) {
		struct nand_addr a;

		if (!ftl_fpid_dead(f, base + p) && !page_programmed(f, base + p, &a))
			rc = pad_page(f, s, base + p, zero, oob_raw);
	}
	free(zero);
	free(oob_raw);
	/* A pad that failed leaves the superblock closed: nothing follows it. */
	return rc ? UINT32_MAX : resume;
}

/* The superblock whose pages stream @s programmed last, or -1. */
static int32_t newest_of_stream(const struct ftl *f, enum ftl_stream s,
				const struct sb_seen *seen)
{
	int32_t best = -1;

	for (uint32_t sb = FTL_CKPT_SBS; sb < f->nr_sb; sb++)
		if (seen[sb].any && !seen[sb].mixed &&
		    seen[sb].stream == FTL_OOB_STREAM_TAG(s) &&
		    (best < 0 || seen[sb].top_wseq > seen[best].top_wseq))
			best = (int32_t)sb;
	return best;
}

/*
 * Give each stream back the superblock it was writing. @clean: nothing on
 * flash is newer than the checkpoint, so its positions @cs hold.
 */
void ftl_reopen_streams(struct ftl *f, const struct sb_seen *seen,
			const struct ckpt_stream cs[ST_COUNT], bool clean)
{
	for (int i = 0; i < ST_COUNT; i++) {
		enum ftl_stream s = (enum ftl_stream)i;
		uint32_t page = UINT32_MAX;
		int32_t sb = -1;

		if (f->streams[s].sb >= 0 || f->streams[s].wb)
			continue; /* written already: not ours to move */
		if (clean && cs[s].sb == -1)
			continue; /* it had none open (a reclaim unit handle update, say) */
		if (clean && cs[s].sb >= FTL_CKPT_SBS && (uint32_t)cs[s].sb < f->nr_sb &&
		    !f->donor[cs[s].sb] && cs[s].next % f->slots == 0) {
			sb = cs[s].sb;
			page = resume_page(f, s, (uint32_t)sb, &seen[sb], cs[s].next / f->slots);
		}
		if (page == UINT32_MAX) {
			/* No checkpoint position, or the store disagrees: the scan. */
			sb = newest_of_stream(f, s, seen);
			if (sb >= 0)
				page = resume_page(f, s, (uint32_t)sb, &seen[sb], UINT32_MAX);
		}
		if (page == UINT32_MAX)
			continue;
		f->sbs[sb].state = SB_OPEN;
		f->streams[s].sb = sb;
		f->streams[s].next = page * f->slots;
		/* Its time limit counts from the restart: when it was opened is not on flash. */
		f->streams[s].opened_ns = f->env.ops->now(f->env.ctx);
	}
}

