/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Program failures the FTL survives, as a drive does.
 *
 * A program that fails on the flash leaves its block bad (NAND_BLOCK_BAD:
 * later programs and erases of it fail at submit, its pages programmed
 * before stay readable). The page's data is still in the write buffer:
 * the page is kept there (WB_FAILED) as the one copy of that data, and
 * reads, translation-page loads and GC find it there as they find any
 * buffered page. The streams writing into the superblock leave it (a page
 * being filled is padded and programmed, on its block, which fails again
 * if it is the bad one), and the superblock is flagged for GC to take
 * before anything else, as a refresh is. GC moves every valid unit, those
 * of the failed pages from the buffer and those of the pages programmed
 * before from flash, to the GC stream; the earlier pages of the failed
 * block need no rewrite of their own, since the model keeps them readable
 * and GC moves them with the rest. Once the moves are programmed the
 * failed pages are freed; the erase of the bad block then fails and
 * retires the superblock (SB_BAD) through the grown-bad-block path, and
 * too few superblocks left turns the FTL read-only as before.
 *
 * Retirement is of the whole superblock: a bad block is not remapped to a
 * spare block of its plane. Until GC has moved the data, a Flush or FUA
 * write waits (the data is acknowledged but only in the buffer) and so
 * does a clean stop. A crash meanwhile loses what only the failed pages
 * held, like any data not yet flushed; recovery finds the bad block in the
 * store, keeps the superblock closed and has GC empty and retire it.
 */
#include "ftl_internal.h"

#include <errno.h>

bool ftl_sb_has_bad_block(const struct ftl *f, uint32_t sb)
{
	const struct nand_store *st = f->env.store;

	for (uint32_t s = 0; st && s < f->stripe; s++) {
		struct nand_addr a;

		ftl_fpid_addr(f, ftl_ppn(f, sb, s * f->slots) / f->slots, &a);
		if (st->blocks[nand_block_index(f->geo, &a)].flags & NAND_BLOCK_BAD)
			return true;
	}
	return false;
}

/* Is flash page @fpid on a block the store marks bad? */
static bool fpid_bad(const struct ftl *f, uint32_t fpid)
{
	struct nand_addr a;

	ftl_fpid_addr(f, fpid, &a);
	return f->env.store->blocks[nand_block_index(f->geo, &a)].flags & NAND_BLOCK_BAD;
}

bool ftl_pfail_take(struct ftl *f, struct ftl_wbuf *wb, int status)
{
	uint32_t sb = ftl_ppn_sb(f, wb->fpid * f->slots);
	struct ftl_sb *s = &f->sbs[sb];

	/*
	 * A store that cannot write (-ENOSPC, an I/O error of its file) is not
	 * flash failing. A die gone offline is (dieoff.c): its page keeps its
	 * data here as a failed one's does, until GC has moved it.
	 */
	if (status == -ENODEV && ftl_fpid_dead(f, wb->fpid))
		f->st.offline_programs++;
	else if (status != -EIO || !f->env.store || !fpid_bad(f, wb->fpid))
		return false;
	else
		f->st.program_failures++;
	for (uint32_t k = 0; k < wb->used && k < f->slots; k++)
		f->st.pfail_units += ftl_valid_get(f, wb->fpid * f->slots + k);
	wb->state = WB_FAILED;
	f->pfail_wbufs++;
	if (s->state == SB_OPEN) {
		s->state = SB_FULL;
		s->closed_ns = f->env.ops->now(f->env.ctx);
	}
	if (!s->refresh && s->state == SB_FULL) {
		s->refresh = true;
		f->refresh_pending++;
	}
	/*
	 * Streams writing into it go elsewhere; the page a stream fills is
	 * programmed padded first (its program may fail too and come back
	 * here: the stream has left by then).
	 */
	for (int i = 0; i < ST_COUNT; i++) {
		struct ftl_streamstate *st = &f->streams[i];

		if (st->sb != (int32_t)sb)
			continue;
		st->sb = -1;
		if (st->wb)
			ftl_close_stream(f, (enum ftl_stream)i);
		st->next = 0;
	}
	ftl_kick(f);
	return true;
}

void ftl_pfail_release(struct ftl *f, uint32_t sb)
{
	for (uint32_t i = 0; f->pfail_wbufs && i < f->nr_wbufs; i++) {
		struct ftl_wbuf *wb = &f->wbufs[i];

		if (wb->state != WB_FAILED || ftl_ppn_sb(f, wb->fpid * f->slots) != sb)
			continue;
		f->pfail_wbufs--;
		ftl_wb_free(f, wb);
	}
}
