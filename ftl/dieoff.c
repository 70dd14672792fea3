/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die that goes offline: every op that starts on it fails with -ENODEV
 * (nand_die_set_offline(), a die-offline fault). The FTL learns it from the
 * first such completion (or from ftl_die_offline()) and goes on without the
 * die, as a drive does:
 *
 *   - it never allocates there again: the streams skip the die's pages of
 *     every superblock (its blocks are retired, the rest of each superblock
 *     stays in use), and GC reckons a superblock's room without them;
 *   - what was on flash there is gone: every valid unit of the die loses
 *     its validity bit, and every mapping that points there becomes
 *     FTL_LOST (an LBA that reads as Unrecovered Read Error until written or
 *     deallocated): at once in the resident translation pages, as each other
 *     one is loaded later (ftl_dieoff_fix_map(), from the load path);
 *   - what it can it moves: a resident translation page whose flash copy was
 *     on the die is rewritten from memory (dirty), and the write buffer's
 *     pages meant for the die keep their data when their programs fail (the
 *     program-failure path, pfail.c: GC moves their superblock's data out);
 *     a translation page that was only on the die is lost with its LBAs
 *     (FTL_LOST in the GTD), as GC's lost ones are;
 *   - the spare shrinks: a superblock holds fewer units, so more of them
 *     are needed for the capacity; too few turns the FTL read-only as
 *     retired superblocks do.
 *
 * A restart finds the die as the store has it: the die's state is not
 * kept by the checkpoint.
 */
#include "ftl_internal.h"

#include <errno.h>

bool ftl_fpid_dead(const struct ftl *f, uint32_t fpid)
{
	return f->ndead && f->slot_dead[(fpid % f->stripe) % f->ndies];
}

/* @ppn's page is in the write buffer (its data is there, whatever the flash does). */
static bool ppn_buffered(const struct ftl *f, uint32_t ppn)
{
	return ftl_buffered(f, ppn) != NULL;
}

static bool ppn_lost_with_die(const struct ftl *f, uint32_t ppn)
{
	return ppn < FTL_LOST && ftl_fpid_dead(f, ppn / f->slots) && !ppn_buffered(f, ppn);
}

void ftl_dieoff_fix_map(struct ftl *f, struct ftl_cmt *e)
{
	if (!f->ndead)
		return;
	for (uint32_t i = 0; i < FTL_TP_ENTRIES; i++) {
		if (!ppn_lost_with_die(f, e->map[i]))
			continue;
		e->map[i] = FTL_LOST;
		e->dirty = true;
		f->st.units_lost++;
	}
}

static void die_gone(struct ftl *f, uint32_t slot)
{
	uint32_t pages_per_sb = f->pages_per_block * f->stripe;
	uint64_t live;

	if (f->slot_dead[slot])
		return;
	f->slot_dead[slot] = true;
	f->ndead++;
	live = (uint64_t)f->units_per_sb * (f->ndies - f->ndead) / f->ndies;
	f->units_live = (uint32_t)live;

	/* The die's units on flash are gone (those still in the buffer are not). */
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		for (uint32_t pg = 0; pg < f->pages_per_block; pg++) {
			for (uint32_t pl = 0; pl < f->planes; pl++) {
				uint32_t fpid = sb * pages_per_sb + pg * f->stripe + pl * f->ndies + slot;

				for (uint32_t k = 0; k < f->slots; k++) {
					uint32_t ppn = fpid * f->slots + k;

					if (!ftl_valid_get(f, ppn) || ppn_buffered(f, ppn))
						continue;
					ftl_valid_clear(f, ppn);
					f->st.offline_units++;
				}
			}
		}
	}
	/* Mappings: resident translation pages now, the others as they load. */
	for (uint32_t tp = 0; tp < f->nr_tp; tp++) {
		struct ftl_cmt *e = f->cmt_index[tp];
		bool on_die = ppn_lost_with_die(f, f->gtd[tp]);

		if (e && e->state == CMT_READY) {
			ftl_dieoff_fix_map(f, e);
			if (on_die) {
				e->dirty = true; /* written back elsewhere from memory */
				f->st.offline_tps_moved++;
			}
		} else if (!e && on_die) {
			f->gtd[tp] = FTL_LOST; /* its only copy was there */
			f->st.tp_lost++;
		}
		/* One loading from the die fails (all its LBAs lost); from another, it is fixed as it lands. */
	}
	if (f->mdc)
		ftl_mdc_clear(f->mdc); /* runs may cross the die */
	ftl_sb_check_spare(f);
	ftl_kick(f);
}

void ftl_die_op_failed(struct ftl *f, const struct nand_op *op)
{
	uint32_t die;

	if (op->status != -ENODEV)
		return;
	die = nand_die_index(f->geo, &op->addr);
	for (uint32_t s = 0; s < f->ndies; s++)
		if (f->res.dies[s] == die)
			die_gone(f, s);
}

int ftl_die_offline(struct ftl *f, uint32_t die)
{
	for (uint32_t s = 0; s < f->ndies; s++) {
		if (f->res.dies[s] == die) {
			die_gone(f, s);
			return 0;
		}
	}
	return -ENOENT;
}
