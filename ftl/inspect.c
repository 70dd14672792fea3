/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Read-only inspection of an instance (ftl.h): what tests and the
 * simulator look at, copied out of the private state.
 */
#include "ftl_internal.h"

_Static_assert((int)FTL_STREAMS == (int)ST_COUNT, "ftl.h's streams are enum ftl_stream's");

void ftl_inspect_layout(const struct ftl *f, struct ftl_layout *out)
{
	*out = (struct ftl_layout){
		.ndies = f->ndies,
		.planes = f->planes,
		.slots = f->slots,
		.stripe = f->stripe,
		.pages_per_block = f->pages_per_block,
		.units_per_sb = f->units_per_sb,
		.nr_sb = f->nr_sb,
		.ckpt_sbs = FTL_CKPT_SBS,
		.capacity = f->capacity,
		.nr_tp = f->nr_tp,
		.tp_entries = FTL_TP_ENTRIES,
		.cmt_pages = f->cmt_cap,
		.nr_wbufs = f->nr_wbufs,
	};
}

/* The private superblock states and GC stages, as ftl.h names them. */
static const enum ftl_sb_status sb_status[] = {
	[SB_FREE] = FTL_SB_FREE,	[SB_OPEN] = FTL_SB_OPEN,
	[SB_FULL] = FTL_SB_FULL,	[SB_GC] = FTL_SB_GC,
	[SB_ERASING] = FTL_SB_ERASING,	[SB_CKPT] = FTL_SB_CKPT,
	[SB_BAD] = FTL_SB_BAD,
};

static const enum ftl_gc_phase gc_phase[] = {
	[GC_IDLE] = FTL_GC_PHASE_IDLE,	[GC_SCAN] = FTL_GC_PHASE_SCAN,
	[GC_READ] = FTL_GC_PHASE_READ,	[GC_MOVE] = FTL_GC_PHASE_MOVE,
	[GC_ERASING] = FTL_GC_PHASE_ERASING,
};

void ftl_inspect_sb(const struct ftl *f, uint32_t sb, struct ftl_sb_info *out)
{
	const struct ftl_sb *s = &f->sbs[sb];

	*out = (struct ftl_sb_info){ .state = sb_status[s->state], .valid = s->valid,
				     .erase_count = s->erase_count };
}

void ftl_inspect_stream(const struct ftl *f, enum ftl_stream_id s, struct ftl_stream_info *out)
{
	/* Both enums list the streams in the same order (the assert above). */
	const struct ftl_streamstate *st = &f->streams[s];

	*out = (struct ftl_stream_info){ .sb = st->sb, .next = st->next,
					 .filling = st->wb != NULL };
}

void ftl_inspect_tp(const struct ftl *f, uint32_t tp, struct ftl_tp_info *out)
{
	const struct ftl_cmt *e = f->cmt_index[tp];

	*out = (struct ftl_tp_info){ .ppn = f->gtd[tp], .cached = e != NULL,
				     .ready = e && e->state == CMT_READY,
				     .dirty = e && e->state == CMT_READY && e->dirty };
}

bool ftl_inspect_lba(const struct ftl *f, uint32_t lba, uint32_t *ppn)
{
	const struct ftl_cmt *e = f->cmt_index[lba / FTL_TP_ENTRIES];

	if (!e || e->state != CMT_READY)
		return false;
	*ppn = e->map[lba % FTL_TP_ENTRIES];
	return true;
}

void ftl_inspect_page_addr(const struct ftl *f, uint32_t fpid, struct nand_addr *out)
{
	ftl_fpid_addr(f, fpid, out);
}

const uint8_t *ftl_inspect_buffered(const struct ftl *f, uint32_t ppn)
{
	return ftl_buffered(f, ppn);
}

bool ftl_inspect_valid(const struct ftl *f, uint32_t ppn)
{
	return ftl_valid_get(f, ppn);
}

/* Requests on a wait list from @first on, GC's own waiter left out. */
static uint32_t io_count(const struct ftl *f, const struct ftl_io *first)
{
	uint32_t n = 0;

	for (const struct ftl_io *io = first; io; io = TAILQ_NEXT(io, link))
		n += !ftl_gc_is_waiter(f, io);
	return n;
}

void ftl_inspect_activity(const struct ftl *f, struct ftl_activity *out)
{
	const struct ftl_wbuf *wb;

	*out = (struct ftl_activity){
		.outstanding = f->outstanding,
		.free_sbs = f->free_sbs,
		.next_ticket = f->next_ticket,
		.done_through = f->done_through,
		.write_waiting = io_count(f, TAILQ_FIRST(&f->write_wait)),
		.paced = io_count(f, TAILQ_FIRST(&f->gc.pace_wait)),
		.read_waiting = io_count(f, TAILQ_FIRST(&f->read_wait)),
		.seq_blocker = f->seq_blocker,
		.seq_waiting = io_count(f, TAILQ_FIRST(&f->seq_wait)),
		.prefetch_busy = f->pf.busy,
		.prefetch_tp = f->pf.tp,
		.ckpt_gen = f->ckpt_gen,
		.wseq = f->wseq,
		.fatal = f->fatal != 0,
	};
	for (uint32_t i = 0; i < f->nr_wbufs; i++)
		out->wbufs_busy += f->wbufs[i].state != WB_FREE;
	TAILQ_FOREACH(wb, &f->inflight, link)
		out->pages_in_flight++;
}

void ftl_inspect_gc(const struct ftl *f, struct ftl_gc_info *out)
{
	const struct ftl_gc *g = &f->gc;

	*out = (struct ftl_gc_info){
		.active = g->active,
		.busy = ftl_gc_busy(f),
		.erases_pending = ftl_gc_erases_pending(f),
		.urgent = ftl_gc_urgent(f),
		.victim = g->victim,
		.phase = gc_phase[g->tp_waiter.stage],
		.victim_units = g->nent,
		.groups_max = g->groups_max,
		.spare = g->spare,
		.lvl_idle = g->lvl_idle,
		.lvl_bg = g->lvl_bg,
		.lvl_fg = g->lvl_fg,
		.lvl_urgent = g->lvl_urgent,
	};
}

uint8_t ftl_space_level(const struct ftl *f)
{
	switch (ftl_gc_level(f)) {
	case FTL_GC_URGENT:
		return 3;
	case FTL_GC_FG:
		return 2;
	case FTL_GC_BG:
		return 1;
	default:
		return 0;
	}
}

void ftl_inspect_mdc(const struct ftl *f, struct ftl_mdc_info *out)
{
	const struct ftl_mdc_stats *st = ftl_mdc_stats(f->mdc);

	*out = (struct ftl_mdc_info){ .count = st->count, .covered = st->covered_lbas };
}
