/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FTL life cycle, the request entry point, completion delivery, waking of
 * waiters, background work and statistics.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void ftl_config_default(struct ftl_config *cfg)
{
	*cfg = (struct ftl_config){
		.cmt_bytes = 256 * 1024,
		.mdc_enabled = true,
		.mdc_bytes = 2048,
		.mdc_min_run = 32,
		.hot_regions = 128,
		.hot_top = 16,
		.hot_decay_reads = 1u << 16,
		.stream_separation = true,
		.seq_min_units = 32, /* 128 KiB */
		.op_permille = 70,
		.write_buffer_pages = 64,
		.plane_groups = true,
		.refresh_retries = 4,
		.plp_suspend = true,
		.volatile_cache = true,
		.gc_policy = FTL_GC_GREEDY,
		/* Of the spare superblocks (ftl.h), with floors. */
		.gc_idle_permille = 500,
		.gc_bg_permille = 200,
		.gc_fg_permille = 100,
		.gc_urgent_permille = 50,
		.gc_min_invalid_permille = 100,
		.wl_threshold = 64,
		.idle_ns = 50 * 1000 * 1000ull,
	};
}

void ftl_kick(struct ftl *f)
{
	if (f->kicked || f->sync_io)
		return;
	f->kicked = true;
	f->env.ops->kick(f->env.ctx);
}

void ftl_io_complete(struct ftl *f, struct ftl_io *io, int status)
{
	io->status = status;
	TAILQ_INSERT_TAIL(&f->done, io, link);
	ftl_kick(f);
}

void ftl_set_fatal(struct ftl *f, int rc)
{
	if (!f->fatal)
		f->fatal = rc < 0 ? rc : -EIO;
}

void ftl_io_resume(struct ftl *f, struct ftl_io *io)
{
	if (ftl_gc_is_waiter(f, io)) {
		ftl_gc_resume(f);
		return;
	}
	switch (io->op) {
	case FTL_IO_READ:
		ftl_read_step(f, io);
		break;
	case FTL_IO_WRITE:
		ftl_host_write_step(f, io);
		break;
	case FTL_IO_TRIM:
		ftl_trim_step(f, io);
		break;
	case FTL_IO_FLUSH:
		ftl_flush_step(f, io);
		break;
	}
}

static void shutdown_step(struct ftl *f);

void ftl_progress(struct ftl *f)
{
	TAILQ_HEAD(, ftl_io) again = TAILQ_HEAD_INITIALIZER(again);
	struct ftl_io *io, *tmp;
	bool synced = false;
	int rc = 0;

	/* Writers and readers that waited for buffers or contexts. */
	TAILQ_CONCAT(&again, &f->write_wait, link);
	TAILQ_CONCAT(&again, &f->read_wait, link);
	while ((io = TAILQ_FIRST(&again))) {
		TAILQ_REMOVE(&again, io, link);
		ftl_io_resume(f, io);
	}
	/* Writers paced by GC, once it earned them a credit (or to fail, writes stopped). */
	if (ftl_gc_pace_ready(f) || f->fatal) {
		TAILQ_CONCAT(&again, &f->gc.pace_wait, link);
		while ((io = TAILQ_FIRST(&again))) {
			TAILQ_REMOVE(&again, io, link);
			ftl_io_resume(f, io);
		}
	}
	/* Durability waiters whose programs are all done. */
	TAILQ_FOREACH_SAFE(io, &f->durable_wait, link, tmp) {
		if (f->done_through < io->ticket || ftl_pfail_pending(f))
			continue;
		if (!synced) {
			rc = f->env.ops->sync ? f->env.ops->sync(f->env.ctx) : 0;
			synced = true;
		}
		TAILQ_REMOVE(&f->durable_wait, io, link);
		ftl_io_complete(f, io, f->fatal ? f->fatal : rc);
	}
	ftl_gc_step(f);
	ftl_mig_step(f);
	if (f->shutting_down)
		shutdown_step(f);
}

void ftl_process(struct ftl *f)
{
	TAILQ_HEAD(, ftl_io) batch = TAILQ_HEAD_INITIALIZER(batch);
	struct ftl_io *io;

	f->kicked = false;
	TAILQ_CONCAT(&batch, &f->done, link);
	while ((io = TAILQ_FIRST(&batch))) {
		TAILQ_REMOVE(&batch, io, link);
		f->outstanding--;
		io->cb(io);
	}
	ftl_mig_notify(f);
	ftl_plm_tick(f);
	ftl_plm_notify(f);
	ftl_fdp_tick(f);
	ftl_dieoff_step(f);
	ftl_gc_step(f);
	ftl_mig_step(f);
	if (!f->outstanding && !f->shutting_down && !ftl_plm_deferring(f) &&
	    f->env.ops->now(f->env.ctx) - f->last_host_ns >= f->cfg.idle_ns)
		ftl_idle_prefetch(f);
}

int ftl_submit(struct ftl *f, struct ftl_io *io)
{
	if (f->shutting_down)
		return -ESHUTDOWN;
	switch (io->op) {
	case FTL_IO_READ:
	case FTL_IO_WRITE:
	case FTL_IO_TRIM:
		if (io->nr == 0 || io->lba >= f->capacity ||
		    io->nr > f->capacity - io->lba)
			return -ERANGE;
		if (io->op != FTL_IO_TRIM && !io->buf)
			return -EINVAL;
		if (io->op == FTL_IO_WRITE && io->ruh &&
		    io->ruh >= f->cfg.nr_ruh)
			return -EINVAL; /* no such reclaim unit handle */
		break;
	case FTL_IO_FLUSH:
		break;
	default:
		return -EINVAL;
	}
	io->status = 0;
	io->next = io->pending = io->stage = io->stream = 0;
	io->err_unit = UINT32_MAX;
	io->ticket = 0;
	io->cmt_waited = false;
	io->ordered = false;
	f->outstanding++;
	f->last_host_ns = f->env.ops->now(f->env.ctx);
	ftl_plm_host_io(f, io->op, io->nr);
	ftl_prefetch_reset(f);
	if (io->op == FTL_IO_READ) {
		f->st.host_reads += io->nr;
		ftl_hot_read(f->hot, io->lba, io->nr);
	}
	/* Run the first step now; completions still go through the done list. */
	ftl_io_resume(f, io);
	return 0;
}

void ftl_set_volatile_cache(struct ftl *f, bool on)
{
	f->cfg.volatile_cache = on;
}

uint32_t ftl_capacity(const struct ftl *f)
{
	return f->capacity;
}

static void shutdown_step(struct ftl *f)
{
	int rc;

	if (f->outstanding || ftl_gc_busy(f) || f->pf.busy || ftl_mig_busy(f) ||
	    ftl_pfail_pending(f))
		return;
	rc = ftl_cmt_writeback_all(f);
	if (rc == -EAGAIN)
		return; /* buffer full: try again after a program */
	ftl_close_pages(f);
	if (f->done_through < ftl_issued_ticket(f) || !TAILQ_EMPTY(&f->inflight))
		return;
	if (ftl_cmt_any_dirty(f))
		return;
	f->shutting_down = false;
	f->sync_io = true;
	rc = f->fatal ? f->fatal : ftl_checkpoint_write(f);
	f->shutdown_cb(f->shutdown_arg, rc);
}

int ftl_shutdown(struct ftl *f, void (*done)(void *arg, int status), void *arg)
{
	if (f->shutting_down || f->sync_io)
		return -EALREADY;
	f->shutting_down = true;
	f->shutdown_cb = done;
	f->shutdown_arg = arg;
	ftl_mig_step(f); /* a superblock half copied is dropped first */
	if (f->plm.win == FTL_PLM_DTWIN)
		ftl_kick(f); /* GC held by the window goes on (ftl_process()) */
	shutdown_step(f);
	return 0;
}

void ftl_destroy(struct ftl *f)
{
	if (!f)
		return;
	ftl_mig_fini(f);
	ftl_gc_fini(f);
	ftl_read_fini(f);
	ftl_write_fini(f);
	ftl_map_fini(f);
	ftl_remap_fini(f);
	ftl_layout_fini(f);
	free(f);
}

int ftl_create(const struct ftl_config *cfg, const struct ftl_env *env,
	       const struct ftl_resources *res, struct ftl **out)
{
	struct ftl *f = calloc(1, sizeof(*f));
	bool formatted;
	int rc;

	if (!f)
		return -ENOMEM;
	f->cfg = *cfg;
	f->env = *env;
	f->res = *res;
	f->geo = &nand_dev_config(env->dev)->geo;
	TAILQ_INIT(&f->write_wait);
	TAILQ_INIT(&f->seq_wait);
	TAILQ_INIT(&f->durable_wait);
	TAILQ_INIT(&f->read_wait);
	TAILQ_INIT(&f->done);
	rc = -EINVAL;
	if (res->nr_dies == 0 || res->nr_dies > BLOX_FTL_MAX_DIES)
		goto fail;
	for (uint32_t i = 0; i < res->nr_dies; i++)
		if (res->dies[i] >= nand_dies(f->geo))
			goto fail;
	if (res->mig_active) {
		/* Moving slot mig_slot from mig_src (outside the instance) to dies[mig_slot]. */
		if (res->mig_slot >= res->nr_dies || res->mig_src >= nand_dies(f->geo) ||
		    res->mig_share > 1000)
			goto fail;
		for (uint32_t i = 0; i < res->nr_dies; i++)
			if (res->dies[i] == res->mig_src)
				goto fail;
	}
	if ((rc = ftl_layout_init(f)) || (rc = ftl_remap_init(f)) || (rc = ftl_mig_init(f)) || (rc = ftl_map_init(f)) ||
	    (rc = ftl_write_init(f)) || (rc = ftl_read_init(f)) ||
	    (rc = ftl_gc_init(f)))
		goto fail;
	ftl_plm_init(f);
	ftl_dieoff_at_start(f); /* a die the device keeps offline: before recovery reads */
	f->sync_io = true;
	rc = ftl_recover(f, &formatted);
	f->sync_io = false;
	if (rc)
		goto fail;
	ftl_sb_mark_bad(f);
	f->last_host_ns = env->ops->now(env->ctx);
	ftl_mig_resume_after_recovery(f);
	*out = f;
	return 0;
fail:
	ftl_destroy(f);
	return rc;
}

void ftl_get_stats(const struct ftl *f, struct ftl_stats *st)
{
	uint32_t emin = UINT32_MAX, emax = 0;

	*st = f->st;
	st->free_superblocks = f->free_sbs;
	st->superblocks = f->nr_sb - FTL_CKPT_SBS;
	st->superblocks_retired = f->bad_sbs;
	st->read_only = f->fatal != 0;
	st->spare_superblocks = ftl_sb_spare(f);
	st->dies_offline = f->ndead;
	st->offline_spare_sbs = ftl_sb_spare_offline(f);
	st->spare_blocks = ftl_sb_spare(f) * f->stripe;
	st->spare_blocks_used = ftl_remap_spare_used(f);
	for (uint32_t i = FTL_CKPT_SBS; i < f->nr_sb; i++) {
		if (f->sbs[i].state == SB_BAD)
			continue;
		emin = f->sbs[i].erase_count < emin ? f->sbs[i].erase_count : emin;
		emax = f->sbs[i].erase_count > emax ? f->sbs[i].erase_count : emax;
	}
	st->min_erase = emin;
	st->max_erase = emax;
	st->mdc_lookups = f->st.mdc_lookups;
	st->gc_pipeline = f->cfg.gc_pipeline;
	st->gc_storm_active = f->gc.storm;
}

void ftl_get_config(const struct ftl *f, struct ftl_config *out)
{
	*out = f->cfg;
}

double ftl_waf(const struct ftl *f)
{
	uint64_t host = f->st.units_written_host;
	uint64_t all = host + f->st.units_written_gc + f->st.units_written_tp +
		       f->st.units_padded;

	return host ? (double)all / (double)host : 0.0;
}
