/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * GC's last stage: a collected victim takes one of FTL_GC_ERASES erase
 * slots, is erased once every program up to its ticket is on flash (and
 * outside a deterministic window), and is freed, or retired when an erase
 * of one of its blocks failed (a grown bad block). GC meanwhile takes its
 * next victim (gc.c).
 */
#include "ftl_internal.h"

#include <errno.h>
#include <string.h>

static void erase_done(struct nand_op *op)
{
	struct ftl_gc_erase *e = op->cb_arg;
	struct ftl *f = e->f;

	ftl_die_op_failed(f, op); /* -ENODEV: the die went offline, the block with it */
	if (op->status && op->status != -ENODEV)
		e->failed = true;
	if (--e->pending)
		return;
	/* Each failed block takes a spare of its plane (remap.c); none left: retired. */
	if (e->failed) {
		bool all = true;

		for (uint32_t s = 0; s < f->stripe && all; s++) {
			const struct nand_op *o = &e->ops[s];

			if (ftl_fpid_dead(f, ftl_ppn(f, (uint32_t)e->sb, s * f->slots) / f->slots) ||
			    !o->status || o->status == -ENODEV)
				continue;
			all = ftl_remap_block(f, (uint32_t)e->sb, s);
			f->st.remapped_grown += all;
		}
		e->failed = !all;
	}
	if (e->failed)
		ftl_sb_retire(f, (uint32_t)e->sb);
	else
		ftl_sb_freed(f, (uint32_t)e->sb);
	f->st.gc_runs++;
	if (e->wl)
		f->st.wl_runs++;
	e->sb = -1;
	e->issued = false;
	/* A collected victim waiting for a slot takes it (ftl_gc_step()). */
	ftl_progress(f);
}

/* Erase a collected superblock once everything up to its ticket is on flash. */
void ftl_gc_erase_try(struct ftl *f, struct ftl_gc_erase *e)
{
	uint32_t n = f->ndies * f->planes;

	if (e->sb < 0 || e->issued || f->done_through < e->ticket)
		return;
	ftl_pfail_release(f, (uint32_t)e->sb); /* its data is on flash elsewhere now */
	if (ftl_plm_deferring(f) || f->power_failing)
		return; /* after the deterministic window; none while power is gone */
	/*
	 * A failed program's data (moved out of this victim, or newer than
	 * what it holds) is only in the write buffer until GC moves it again:
	 * not yet, unless GC itself waits for an erase before it can go on
	 * (no free superblock left, a collected victim waiting for a slot,
	 * pass 2 waiting for free space): holding it then would stop GC.
	 */
	if (ftl_pfail_pending(f) && f->free_sbs &&
	    !(f->gc.active && (f->gc.tp_waiter.stage == GC_ERASING || f->gc.erase_held)))
		return;
	e->issued = true;
	e->failed = false;
	f->sbs[e->sb].state = SB_ERASING;
	/* Blocks on a die gone offline are not erased: they are never used again. */
	e->pending = 0;
	for (uint32_t s = 0; s < n; s++)
		e->pending += !ftl_fpid_dead(f, ftl_ppn(f, (uint32_t)e->sb, s * f->slots) / f->slots);
	/* What is erased: a block on each live die and plane (flash_erases counts the same). */
	ftl_fdp_of(f, e->sb)->erased_bytes +=
		(uint64_t)e->pending * (f->units_per_sb / f->stripe) * FTL_UNIT;
	for (uint32_t s = 0; s < n; s++) {
		struct nand_op *op = &e->ops[s];

		if (ftl_fpid_dead(f, ftl_ppn(f, (uint32_t)e->sb, s * f->slots) / f->slots))
			continue;

		memset(op, 0, sizeof(*op));
		op->kind = NAND_OP_ERASE;
		op->prio = NAND_PRIO_ERASE;
		/* Flash page s of row 0 sits on (plane, die) number s. */
		ftl_fpid_addr(f, ftl_ppn(f, (uint32_t)e->sb, s * f->slots) / f->slots,
			      &op->addr);
		op->addr.page = 0;
		op->nplanes = 1;
		op->cb = erase_done;
		op->cb_arg = e;
		f->st.flash_erases++;
		op->tenant = f->cfg.tenant;
		if (f->env.ops->submit(f->env.ctx, op)) {
			op->status = -EIO;
			erase_done(op);
		}
	}
}

/*
 * The collected victim takes a free erase slot: it is erased once its
 * programs are done, and GC is free to take the next victim meanwhile.
 * false: no slot is free, the victim waits in GC_ERASING.
 */
bool ftl_gc_hand_over(struct ftl *f)
{
	struct ftl_gc *g = &f->gc;
	struct ftl_gc_erase *e = NULL;

	for (uint32_t i = 0; i < FTL_GC_ERASES && !e; i++)
		if (g->erase[i].sb < 0)
			e = &g->erase[i];
	if (!e)
		return false;
	e->sb = g->victim;
	e->ticket = g->victim_ticket;
	e->wl = g->static_wl;
	g->active = false;
	g->victim = -1;
	g->tp_waiter.stage = GC_IDLE;
	ftl_gc_erase_try(f, e);
	return true;
}

uint32_t ftl_gc_erases_pending(const struct ftl *f)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < FTL_GC_ERASES; i++)
		n += f->gc.erase[i].sb >= 0;
	return n;
}

