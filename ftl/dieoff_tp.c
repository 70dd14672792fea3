/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A translation page whose only copy was on a die gone offline, rebuilt
 * from the OOB of the data on the other dies (dieoff.c calls it as the die
 * goes), as the start-up scan rebuilds mappings (recovery.c).
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

uint32_t ftl_dieoff_rebuild_tps(struct ftl *f, const uint32_t *tps, uint32_t n)
{
	uint32_t pages = f->nr_sb * f->pages_per_block * f->stripe, done = 0;
	uint32_t first = FTL_CKPT_SBS * f->pages_per_block * f->stripe;
	uint32_t *maps = NULL;
	int32_t *idx = NULL;
	uint8_t *raw = NULL;

	if (!n)
		return 0;
	maps = malloc((size_t)n * FTL_UNIT);
	idx = malloc((size_t)f->nr_tp * sizeof(*idx));
	raw = malloc(f->geo->oob_size);
	if (!maps || !idx || !raw)
		goto out;
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

			if (os->kind != UK_DATA || os->lba >= f->capacity || !ftl_valid_get(f, ppn))
				continue;
			i = idx[os->lba / FTL_TP_ENTRIES];
			if (i >= 0)
				maps[(size_t)i * FTL_TP_ENTRIES + os->lba % FTL_TP_ENTRIES] = ppn;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t *map = maps + (size_t)i * FTL_TP_ENTRIES;
		uint32_t ppn = ftl_put_unit(f, ST_TP, tps[i], UK_TP, f->wseq + 1, map);

		if (ppn == FTL_UNMAPPED)
			break; /* no room: the rest are lost */
		f->gtd[tps[i]] = ppn;
		ftl_valid_set(f, ppn);
		f->tp_fixgen[tps[i]] = f->deaths;
		for (uint32_t j = 0; j < FTL_TP_ENTRIES; j++)
			f->st.units_lost += map[j] == FTL_LOST;
		f->st.tp_rebuilt++;
		done++;
	}
out:
	free(maps);
	free(idx);
	free(raw);
	return done;
}
