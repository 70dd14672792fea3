/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state of an instance's die migration (migrate.c says how a slot
 * moves and copies): the copy's buffers; the state at start-up, from the
 * resources the caller persisted (ftl_mig_init()), and after a stop, from
 * the dies' write pointers (ftl_mig_recover()); what GC and a clean stop
 * ask of it; and the API of ftl.h: start, pause, resume, share, cancel,
 * progress, and the resources to persist (ftl_get_resources()).
 */
#include "ftl_internal.h"
#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- life cycle ---- */

static void mig_free_bufs(struct ftl_mig *m)
{
	for (uint32_t i = 0; i < FTL_MIG_BATCH; i++) {
		free(m->pages[i].data);
		free(m->pages[i].oob);
		m->pages[i].data = m->pages[i].oob = NULL;
	}
	free(m->wp);
	free(m->erase_ops);
	free(m->dremap);
	m->wp = NULL;
	m->erase_ops = NULL;
	m->dremap = NULL;
}

/* The copy's buffers, made for the first migration (an instance may never move). */
static int mig_alloc(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (m->wp)
		return 0;
	m->wp = calloc(f->planes, sizeof(*m->wp));
	m->erase_ops = calloc(f->planes, sizeof(*m->erase_ops));
	m->dremap = calloc((size_t)f->nr_sb * f->planes, sizeof(*m->dremap));
	if (!m->wp || !m->erase_ops || !m->dremap)
		goto fail;
	for (uint32_t i = 0; i < FTL_MIG_BATCH; i++) {
		m->pages[i].f = f;
		m->pages[i].data = blox_page_alloc(f->geo->page_size);
		m->pages[i].oob = calloc(1, f->geo->oob_size);
		if (!m->pages[i].data || !m->pages[i].oob)
			goto fail;
	}
	return 0;
fail:
	mig_free_bufs(m);
	return -ENOMEM;
}

int ftl_mig_init(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	const struct ftl_resources *r = &f->res;

	m->sb = -1;
	m->phase = MIG_IDLE;
	m->state = FTL_MIG_NONE;
	m->on_dst = calloc(f->nr_sb, 1);
	if (!m->on_dst)
		return -ENOMEM;
	if (r->mig_active) {
		if (mig_alloc(f))
			return -ENOMEM;
		/* Resumed after a stop: recovery (ftl_mig_recover()) sets the bits. */
		m->active = true;
		m->reverse = r->mig_cancel;
		m->slot = r->mig_slot;
		m->src = r->mig_src;
		m->dst = r->dies[r->mig_slot];
		m->share = r->mig_share ? r->mig_share : 1000;
		m->state = m->reverse ? FTL_MIG_CANCELLING : FTL_MIG_RUNNING;
		memset(m->on_dst, ftl_mig_target(m), f->nr_sb);
	}
	/* The migration's own state is kept here from now on. */
	f->res.mig_active = f->res.mig_cancel = false;
	f->res.mig_slot = f->res.mig_src = f->res.mig_share = 0;
	return 0;
}

void ftl_mig_fini(struct ftl *f)
{
	mig_free_bufs(&f->mig);
	free(f->mig.on_dst);
	f->mig.on_dst = NULL;
}

int ftl_mig_recover(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;
	struct nand_store *st = f->env.store;
	bool erased = false;

	if (!m->active)
		return 0;
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		uint32_t ps = ftl_mig_die_pages(f, m->src, sb), pd = ftl_mig_die_pages(f, m->dst, sb);
		/* src keeps it only over a copy with fewer pages (a partial one). */
		bool on_dst = !(ps > 0 && pd < ps);
		uint32_t lose = on_dst ? m->src : m->dst;

		m->on_dst[sb] = on_dst;
		for (uint32_t p = 0; p < f->planes; p++) {
			struct nand_addr a;
			int rc;

			ftl_mig_blk_addr(f, lose, sb, p, 0, &a);
			if (st->blocks[nand_block_index(f->geo, &a)].write_ptr == 0)
				continue;
			rc = st->ops->erase(st, nand_block_index(f->geo, &a));
			if (rc)
				return rc;
			erased = true;
		}
	}
	return erased ? st->ops->sync(st) : 0;
}

void ftl_mig_resume_after_recovery(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (!m->active)
		return;
	ftl_mig_move_free(f);
	m->started_ns = ftl_mig_now(f);
	m->next_ns = 0;
	ftl_kick(f);
}

bool ftl_mig_busy(const struct ftl *f)
{
	const struct ftl_mig *m = &f->mig;

	/* A copy held after an error waits for a resume: a stop need not. */
	if (m->phase == MIG_IDLE && m->sb >= 0 && m->state == FTL_MIG_PAUSED && m->status)
		return false;
	return m->phase != MIG_IDLE || m->sb >= 0;
}

int32_t ftl_mig_hide(struct ftl *f)
{
	int32_t sb = f->mig.sb;

	if (sb < 0 || f->sbs[sb].state != SB_FULL)
		return -1;
	f->sbs[sb].state = SB_GC; /* not SB_FULL: no victim */
	return sb;
}

void ftl_mig_unhide(struct ftl *f, int32_t sb)
{
	if (sb >= 0)
		f->sbs[sb].state = SB_FULL;
}

void ftl_mig_notify(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (!m->notify)
		return;
	m->notify = false;
	if (f->env.ops->migrated)
		f->env.ops->migrated(f->env.ctx, m->status);
}

/* ---- the API (ftl.h) ---- */

int ftl_migrate_start(struct ftl *f, uint32_t slot, uint32_t dst_die,
		      const struct ftl_migrate_cfg *cfg)
{
	struct ftl_mig *m = &f->mig;

	if (!cfg || cfg->share < 1 || cfg->share > 1000 || slot >= f->ndies ||
	    dst_die >= nand_dies(f->geo))
		return -EINVAL;
	for (uint32_t i = 0; i < f->ndies; i++)
		if (f->res.dies[i] == dst_die)
			return -EINVAL;
	if (m->active || f->shutting_down || f->sync_io)
		return -EBUSY;
	if (!nand_block_meta(f->env.dev, 0))
		return -EOPNOTSUPP;
	/* Not erased: not ours to write (a bad block, which keeps its pages, takes a spare). */
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		if (ftl_mig_die_pages_good(f, dst_die, sb))
			return -EBUSY;
	if (mig_alloc(f))
		return -ENOMEM;
	memset(m->on_dst, 0, f->nr_sb);
	m->slot = slot;
	/* The remap of the slot's bad blocks holds on the new die too (remap.c, remap_mig.c). */
	ftl_remap_mig_tags(f, f->res.dies[slot], dst_die);
	ftl_remap_mig_begin(f);
	m->active = true;
	m->reverse = false;
	m->src = f->res.dies[slot];
	m->dst = dst_die;
	m->share = cfg->share;
	m->state = FTL_MIG_RUNNING;
	m->status = m->cause = 0;
	m->sb = -1;
	m->switched = false;
	m->sbs_copied = 0;
	m->bytes_copied = 0;
	m->busy_ns = 0;
	m->started_ns = ftl_mig_now(f);
	m->finished_ns = 0;
	m->next_ns = 0;
	m->notify = false;
	/* What the caller persists (ftl_get_resources()): the slot's new die. */
	f->res.dies[slot] = dst_die;
	ftl_mig_move_free(f);
	ftl_kick(f);
	return 0;
}

int ftl_migrate_pause(struct ftl *f)
{
	if (f->mig.state != FTL_MIG_RUNNING)
		return -EINVAL;
	f->mig.state = FTL_MIG_PAUSED;
	ftl_kick(f); /* a copy half made is dropped from ftl_process() */
	return 0;
}

int ftl_migrate_resume(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (m->state != FTL_MIG_PAUSED)
		return -EINVAL;
	m->state = m->reverse ? FTL_MIG_CANCELLING : FTL_MIG_RUNNING;
	m->status = 0;
	m->next_ns = 0;
	ftl_kick(f);
	return 0;
}

int ftl_migrate_set_share(struct ftl *f, uint32_t share)
{
	struct ftl_mig *m = &f->mig;

	if (!m->active || share < 1 || share > 1000)
		return -EINVAL;
	m->share = share;
	m->next_ns = 0;
	ftl_kick(f);
	return 0;
}

int ftl_migrate_cancel(struct ftl *f)
{
	struct ftl_mig *m = &f->mig;

	if (m->state != FTL_MIG_RUNNING && m->state != FTL_MIG_PAUSED)
		return -EINVAL;
	m->state = FTL_MIG_CANCELLING;
	m->status = 0;
	m->next_ns = 0;
	ftl_kick(f);
	return 0;
}

void ftl_migrate_progress(const struct ftl *f, struct ftl_migrate_progress *out)
{
	const struct ftl_mig *m = &f->mig;
	uint64_t ps = f->geo->page_size, bytes_done = m->bytes_copied, bytes_left = 0;
	uint32_t sbs_done = m->sbs_copied, sbs_left = 0;

	*out = (struct ftl_migrate_progress){
		.state = m->state,
		.status = m->status,
		.slot = m->slot,
		.src = m->src,
		.dst = m->dst,
		.share = m->share,
		.started_ns = m->started_ns,
		.finished_ns = m->finished_ns,
		.busy_ns = m->busy_ns,
		.reverse = m->reverse,
	};
	if (!m->active) {
		out->sbs_copied = out->sbs_total = sbs_done;
		out->bytes_copied = out->bytes_total = bytes_done;
		return;
	}
	for (uint32_t sb = 0; sb < f->nr_sb; sb++) {
		if ((int32_t)sb == m->sb || m->on_dst[sb] == ftl_mig_target(m) ||
		    f->sbs[sb].state == SB_FREE)
			continue;
		sbs_left++;
		bytes_left += ftl_mig_die_pages(f, ftl_mig_die_from(m), sb) * ps;
	}
	if (m->sb >= 0 && m->switched) {
		sbs_done++;
		bytes_done += m->items * ps;
	} else if (m->sb >= 0) {
		sbs_left++;
		bytes_done += m->items_done * ps;
		bytes_left += (uint64_t)(m->items - m->items_done) * ps;
	}
	out->sbs_copied = sbs_done;
	out->sbs_total = sbs_done + sbs_left;
	out->bytes_copied = bytes_done;
	out->bytes_total = bytes_done + bytes_left;
	if (m->phase == MIG_IDLE && m->next_ns > ftl_mig_now(f))
		out->wake_ns = m->next_ns;
}

void ftl_get_resources(const struct ftl *f, struct ftl_resources *out)
{
	const struct ftl_mig *m = &f->mig;

	*out = f->res;
	if (!m->active)
		return;
	out->dies[m->slot] = m->dst;
	out->mig_active = true;
	out->mig_cancel = m->reverse || m->state == FTL_MIG_CANCELLING;
	out->mig_slot = m->slot;
	out->mig_src = m->src;
	out->mig_share = m->share;
}
