/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A translation page whose only copy was on a die gone offline, rebuilt
 * from the OOB of the data on the other dies (dieoff.c calls it as the die
 * goes; recovery, for a copy its checkpoint names on the die), as the
 * start-up scan rebuilds mappings (recovery.c).
 *
 * Every valid unit on the live dies, or in the write buffer, is its LBA's
 * current data (validity follows the mapping exactly); its OOB names the
 * LBA. So the page's LBAs whose data is elsewhere get their mapping back,
 * and every other one of its LBAs is lost (FTL_LOST: Unrecovered Read
 * Error until written or deallocated): its data was on the die, or it was
 * never written or deallocated (nothing on flash tells those apart, so
 * they read as errors too). The rebuilt page is written as a translation
 * unit at once. Without room in the write buffer, the page is lost as
 * before (all of its LBAs).
 *
 * At a start, after a crash before the rebuilt page was programmed (or a
 * die found offline that the last run never saw go), the checkpoint's GTD
 * names the copy on the die. It is rebuilt the same way from the units the
 * checkpoint's validity bitmap holds (written no later than the
 * checkpoint: a page erased and programmed since holds newer units), and
 * the scan's newer units go on top of it as on any translation page. The
 * record of the loss (dieoff_rec.c) then makes the LBAs lost that the
 * die's loss made lost, also those that an older version on a live die
 * would otherwise bring back.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The OOB of flash page @fpid into @oob: from the write buffer, or read from the store. */
static bool page_oob(struct ftl *f, uint32_t fpid, uint8_t *raw, struct ftl_oob *oob)
{
	struct nand_addr a;

	if (ftl_gc_copy_buffered(f, fpid, NULL, oob))
		return true;
	if (ftl_fpid_dead(f, fpid) || !f->env.store)
		return false;
	ftl_fpid_addr(f, fpid, &a);
	if (f->env.store->ops->read(f->env.store, nand_page_index(f->geo, &a), NULL, raw))
		return false;
	memcpy(oob, raw, sizeof(*oob));
	return oob->magic == FTL_OOB_MAGIC;
}

/* Whether a unit of flash page @fpid is valid (worth reading its OOB). */
static bool page_valid(const struct ftl *f, uint32_t fpid)
{
	for (uint32_t k = 0; k < f->slots; k++)
		if (ftl_valid_get(f, fpid * f->slots + k))
			return true;
	return false;
}

/* LBA @lba in bitmap @bits. */
static void bit_set(uint64_t *bits, uint64_t lba)
{
	bits[lba / 64] |= 1ull << (lba % 64);
}

/*
 * The maps of translation pages @tps (@n) from the OOB of the valid units
 * on the live dies or in the buffer written no later than @upto: each LBA
 * with such a unit maps to it, every other one is lost. NULL: no memory.
 */
static uint32_t *collect(struct ftl *f, const uint32_t *tps, uint32_t n, uint64_t upto)
{
	uint32_t pages = f->nr_sb * f->pages_per_block * f->stripe;
	uint32_t first = FTL_CKPT_SBS * f->pages_per_block * f->stripe;
	uint32_t *maps = malloc((size_t)n * FTL_UNIT);
	int32_t *idx = malloc((size_t)f->nr_tp * sizeof(*idx));
	uint8_t *raw = malloc(f->geo->oob_size);

	if (!maps || !idx || !raw) {
		free(maps);
		maps = NULL;
		goto out;
	}
	for (uint32_t t = 0; t < f->nr_tp; t++)
		idx[t] = -1;
	for (uint32_t i = 0; i < n; i++) {
		idx[tps[i]] = (int32_t)i;
		for (uint32_t j = 0; j < FTL_TP_ENTRIES; j++) {
			uint64_t lba = (uint64_t)tps[i] * FTL_TP_ENTRIES + j;

			maps[(size_t)i * FTL_TP_ENTRIES + j] =
				lba < f->capacity ? FTL_LOST : FTL_UNMAPPED;
		}
	}
	for (uint32_t fpid = first; fpid < pages; fpid++) {
		struct ftl_oob oob;

		if (!page_valid(f, fpid) || !page_oob(f, fpid, raw, &oob))
			continue;
		for (uint32_t k = 0; k < f->slots && k < oob.nslots; k++) {
			const struct ftl_oob_slot *os = &oob.slot[k];
			uint32_t ppn = fpid * f->slots + k;
			int32_t i;

			if (os->kind != UK_DATA || os->lba >= f->capacity || os->wseq > upto ||
			    !ftl_valid_get(f, ppn))
				continue;
			i = idx[os->lba / FTL_TP_ENTRIES];
			if (i >= 0)
				maps[(size_t)i * FTL_TP_ENTRIES + os->lba % FTL_TP_ENTRIES] = ppn;
		}
	}
out:
	free(idx);
	free(raw);
	return maps;
}

uint32_t ftl_dieoff_rebuild_tps(struct ftl *f, const uint32_t *tps, uint32_t n,
				uint64_t *lost)
{
	uint32_t *maps, done = 0;

	if (!n)
		return 0;
	maps = collect(f, tps, n, UINT64_MAX);
	for (uint32_t i = 0; maps && i < n; i++) {
		uint32_t *map = maps + (size_t)i * FTL_TP_ENTRIES;
		uint32_t ppn = ftl_put_unit(f, ST_TP, tps[i], UK_TP, f->wseq + 1, map);

		if (ppn == FTL_UNMAPPED)
			break; /* no room: the rest are lost */
		f->gtd[tps[i]] = ppn;
		ftl_valid_set(f, ppn);
		f->tp_fixgen[tps[i]] = f->deaths;
		for (uint32_t j = 0; j < FTL_TP_ENTRIES; j++) {
			f->st.units_lost += map[j] == FTL_LOST;
			if (map[j] == FTL_LOST && lost)
				bit_set(lost, (uint64_t)tps[i] * FTL_TP_ENTRIES + j);
		}
		f->st.tp_rebuilt++;
		done++;
	}
	/* Those not rebuilt are lost with every LBA they map. */
	for (uint32_t i = done; lost && i < n; i++)
		for (uint64_t lba = (uint64_t)tps[i] * FTL_TP_ENTRIES;
		     lba < f->capacity && lba < (uint64_t)(tps[i] + 1) * FTL_TP_ENTRIES; lba++)
			bit_set(lost, lba);
	free(maps);
	return done;
}

int ftl_dieoff_rebuild_at_start(struct ftl *f, uint64_t ckpt_wseq)
{
	uint32_t *tps, n = 0, *maps = NULL;
	int rc = 0;

	if (!f->ndead)
		return 0;
	tps = malloc((size_t)f->nr_tp * sizeof(*tps));
	if (!tps)
		return -ENOMEM;
	for (uint32_t tp = 0; tp < f->nr_tp; tp++)
		if (f->gtd[tp] < FTL_LOST && ftl_fpid_dead(f, f->gtd[tp] / f->slots) &&
		    !ftl_buffered(f, f->gtd[tp]))
			tps[n++] = tp;
	if (n && !(maps = collect(f, tps, n, ckpt_wseq)))
		rc = -ENOMEM;
	for (uint32_t i = 0; !rc && i < n; i++) {
		struct ftl_cmt *e;

		f->gtd[tps[i]] = FTL_LOST; /* its copy is gone: nothing to load */
		e = ftl_cmt_get(f, tps[i], NULL);
		if (!e) {
			rc = -EIO;
			break;
		}
		memcpy(e->map, maps + (size_t)i * FTL_TP_ENTRIES, FTL_UNIT);
		e->dirty = true;
		for (uint32_t j = 0; j < FTL_TP_ENTRIES; j++)
			f->st.units_lost += e->map[j] == FTL_LOST;
		f->st.tp_rebuilt++;
	}
	free(maps);
	free(tps);
	return rc ? rc : (int)n;
}
