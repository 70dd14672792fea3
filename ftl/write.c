/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The write side: streams, the write buffer, programs and durability.
 *
 * Each stream (sequential host data, random host data, GC moves,
 * translation pages) fills one flash page of its open superblock at a
 * time in a buffer page; a full page is programmed. A host write
 * completes once its units are buffered (volatile cache on) or once the
 * pages holding them are programmed and the store synced (FUA, or the
 * cache off). Programs carry tickets in submission order; done_through
 * is the highest ticket below which every program has finished. A full
 * translation-stream page takes its ticket but is held back until the
 * data pages holding units it maps are programmed, so no translation
 * page on flash maps an LBA to a page that is not. Below
 * GC's foreground level each host unit waits for a GC credit
 * (gc_policy.c); every unit written outside the GC stream uses one up.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blox_util.h"

int ftl_write_init(struct ftl *f)
{
	const struct nand_geometry *g = f->geo;

	f->nr_wbufs = f->cfg.write_buffer_pages + ftl_streams_used(&f->cfg);
	if (f->cfg.plane_groups && f->planes > 1)
		f->nr_wbufs += (f->planes - 1) * f->ndies; /* room to gather plane groups */
	f->wbufs = calloc(f->nr_wbufs, sizeof(*f->wbufs));
	if (!f->wbufs)
		return -ENOMEM;
	TAILQ_INIT(&f->free_wbufs);
	TAILQ_INIT(&f->inflight);
	for (uint32_t i = 0; i < f->nr_wbufs; i++) {
		struct ftl_wbuf *wb = &f->wbufs[i];

		wb->data = malloc(g->page_size);
		wb->oob_raw = calloc(1, g->oob_size);
		if (!wb->data || !wb->oob_raw)
			return -ENOMEM;
		wb->f = f;
		TAILQ_INSERT_TAIL(&f->free_wbufs, wb, link);
	}
	for (int s = 0; s < ST_COUNT; s++)
		f->streams[s].sb = -1;
	return 0;
}

void ftl_write_fini(struct ftl *f)
{
	for (uint32_t i = 0; f->wbufs && i < f->nr_wbufs; i++) {
		free(f->wbufs[i].data);
		free(f->wbufs[i].oob_raw);
	}
	free(f->wbufs);
}

static void update_done_through(struct ftl *f)
{
	struct ftl_wbuf *first = TAILQ_FIRST(&f->inflight);

	f->done_through = first ? first->ticket - 1 : f->next_ticket;
}

static void release_held(struct ftl *f);

void ftl_wb_free(struct ftl *f, struct ftl_wbuf *wb)
{
	f->sbs[ftl_ppn_sb(f, wb->fpid * f->slots)].buffered--;
	wb->state = WB_FREE;
	TAILQ_INSERT_TAIL(&f->free_wbufs, wb, link);
}

static void program_done(struct nand_op *op)
{
	struct ftl_wbuf *wb = op->cb_arg;
	struct ftl *f = wb->f;

	TAILQ_REMOVE(&f->inflight, wb, link);
	update_done_through(f);
	ftl_die_op_failed(f, op); /* -ENODEV: its die is gone */
	if (op->status && ftl_pfail_take(f, wb, op->status)) {
		release_held(f);
		ftl_progress(f);
		return;
	}
	if (op->status) {
		/*
		 * The data of this page is lost to the host: stop writing, and
		 * keep why (a full disk under the store is -ENOSPC, a medium
		 * error -EIO) for the host's writes and flushes from now on.
		 */
		ftl_set_fatal(f, op->status);
	}
	ftl_wb_free(f, wb);
	release_held(f);
	ftl_progress(f);
}

static void submit(struct ftl *f, struct ftl_wbuf *wb)
{
	int rc;

	wb->op.tenant = f->cfg.tenant;
	rc = f->env.ops->submit(f->env.ctx, &wb->op);
	if (rc) {
		wb->op.status = rc;
		program_done(&wb->op);
	}
}

/* Does data page @d hold a unit that translation page @tpw maps? */
static bool maps_into(const struct ftl *f, const struct ftl_wbuf *tpw,
		      const struct ftl_wbuf *d)
{
	for (uint32_t i = 0; i < d->used && i < f->slots; i++) {
		const struct ftl_oob_slot *ds = &d->oob.slot[i];

		if (ds->kind != UK_DATA)
			continue;
		for (uint32_t j = 0; j < tpw->used && j < f->slots; j++)
			if (tpw->oob.slot[j].kind == UK_TP &&
			    tpw->oob.slot[j].lba == ds->lba / FTL_TP_ENTRIES)
				return true;
	}
	return false;
}

static bool data_stream(uint32_t s)
{
	return s != ST_TP;
}

/* Translation page @wb may be programmed: what it maps is on flash. */
static bool tp_page_ready(const struct ftl *f, const struct ftl_wbuf *wb)
{
	const struct ftl_wbuf *p;

	/*
	 * A data page whose program failed does not hold it: its data reaches
	 * flash when GC moves it, under a newer write sequence (pfail.c).
	 */
	for (uint32_t i = 0; i < wb->ndeps; i++)
		if (wb->dep[i].wb->gen == wb->dep[i].gen && wb->dep[i].wb->state != WB_FREE &&
		    wb->dep[i].wb->state != WB_FAILED)
			return false;
	TAILQ_FOREACH(p, &f->inflight, link) {
		if (p->ticket >= wb->ticket)
			break;
		if (data_stream(p->stream) && maps_into(f, wb, p))
			return false;
	}
	return true;
}

/*
 * Submit held translation pages whose data is on flash now, in ticket
 * order: pages of a block are programmed in order, so one still held
 * holds back those after it.
 */
static void release_held(struct ftl *f)
{
	struct ftl_wbuf *wb;

	for (bool again = true; again;) {
		again = false;
		TAILQ_FOREACH(wb, &f->inflight, link) {
			if (!wb->held)
				continue;
			if (!tp_page_ready(f, wb))
				return;
			wb->held = false;
			submit(f, wb); /* may complete (fail) at once: look again */
			again = true;
			break;
		}
	}
}

static bool any_held(const struct ftl *f)
{
	const struct ftl_wbuf *wb;

	TAILQ_FOREACH(wb, &f->inflight, link)
		if (wb->held)
			return true;
	return false;
}

/*
 * Pages of the write buffer that only the translation stream may take: a
 * lookup that misses with every CMT entry dirty writes one back, and
 * must not wait for host and GC programs to free a page (map.c).
 */
#define FTL_TP_RESERVE_WBUFS 2

/* A free write buffer page for stream @s: beyond the reserve unless the translation stream. */
static bool wbuf_free(const struct ftl *f, enum ftl_stream s)
{
	const struct ftl_wbuf *wb = TAILQ_FIRST(&f->free_wbufs);
	uint32_t n = 0;

	if (s == ST_TP)
		return wb != NULL;
	for (; wb && n <= FTL_TP_RESERVE_WBUFS; wb = TAILQ_NEXT(wb, link))
		n++;
	return n > FTL_TP_RESERVE_WBUFS;
}

/*
 * The write buffer is out of pages for the data streams (the translation
 * stream's reserve aside) and nothing submitted is in flight
 * (every page in flight is a held translation page): nothing would ever
 * complete, so pad and program the filling data pages they wait for (a
 * data page that fills slowly, of an idle host stream, say). Otherwise
 * the data pages fill (GC's soon) and nothing is padded.
 */
static void unstick_held(struct ftl *f)
{
	const struct ftl_wbuf *wb;
	bool grouping = false;

	if (wbuf_free(f, ST_RAND) || TAILQ_EMPTY(&f->inflight))
		return;
	TAILQ_FOREACH(wb, &f->inflight, link) {
		if (!wb->held && !wb->grouping)
			return;
		grouping |= wb->grouping;
	}
	if (grouping) {
		/* Pages waiting for plane partners hold the buffer: program them alone. */
		for (int s = 0; s < ST_COUNT; s++)
			if (data_stream((uint32_t)s))
				ftl_program_waiting(f, (enum ftl_stream)s);
		return;
	}
	for (int s = 0; s < ST_COUNT; s++) {
		const struct ftl_wbuf *d = data_stream((uint32_t)s) ? f->streams[s].wb : NULL;
		bool dep = false;

		TAILQ_FOREACH(wb, &f->inflight, link)
			for (uint32_t i = 0; d && i < wb->ndeps; i++)
				dep |= wb->dep[i].wb == d && wb->dep[i].gen == d->gen;
		if (dep)
			ftl_close_stream(f, (enum ftl_stream)s);
	}
}

/* The plane of the flash page @fpid (superblocks stripe dies first, then planes). */
static uint32_t fpid_plane(const struct ftl *f, uint32_t fpid)
{
	return fpid % (f->pages_per_block * f->stripe) % f->stripe / f->ndies;
}

/* Does data page @wb wait for its partners on the die's other planes? */
static bool waits_for_group(const struct ftl *f, const struct ftl_wbuf *wb, enum ftl_stream s)
{
	return f->cfg.plane_groups && f->planes > 1 && data_stream(s) &&
	       fpid_plane(f, wb->fpid) + 1 < f->planes;
}

/*
 * @wb, the last plane's page of its row on its die, is full: submit the
 * pages of the row on the die's other planes that wait for it, then it,
 * one after the other. The engine starts nothing inside submit, so the
 * die's next start takes them as one multi-plane program.
 */
static void submit_group(struct ftl *f, struct ftl_wbuf *wb)
{
	uint32_t first = wb->fpid - fpid_plane(f, wb->fpid) * f->ndies;
	bool grouped = false;

	/* A submit that fails completes at once and may change the list: look again. */
	for (struct ftl_wbuf *p = TAILQ_FIRST(&f->inflight); p;) {
		if (!p->grouping || p->fpid < first || p->fpid >= wb->fpid ||
		    (p->fpid - first) % f->ndies) {
			p = TAILQ_NEXT(p, link);
			continue;
		}
		p->grouping = false;
		f->st.pages_grouped++;
		grouped = true;
		submit(f, p);
		p = TAILQ_FIRST(&f->inflight);
	}
	f->st.pages_grouped += grouped;
	submit(f, wb);
}

void ftl_program_waiting(struct ftl *f, enum ftl_stream s)
{
	for (struct ftl_wbuf *p = TAILQ_FIRST(&f->inflight); p;) {
		if (!p->grouping || p->stream != (uint32_t)s) {
			p = TAILQ_NEXT(p, link);
			continue;
		}
		p->grouping = false;
		f->st.pages_ungrouped++;
		submit(f, p);
		p = TAILQ_FIRST(&f->inflight);
	}
}

static void program(struct ftl *f, struct ftl_wbuf *wb, enum ftl_stream s)
{
	struct nand_op *op = &wb->op;
	int rc;

	wb->oob.magic = FTL_OOB_MAGIC;
	wb->oob.nslots = f->slots;
	wb->oob.stream = FTL_OOB_STREAM_TAG(s); /* recovery reopens by stream */
	memcpy(wb->oob_raw, &wb->oob, sizeof(wb->oob));
	wb->state = WB_PROGRAMMING;
	wb->ticket = ++f->next_ticket;
	f->st.flash_programs++;
	memset(op, 0, sizeof(*op));
	op->kind = NAND_OP_PROGRAM;
	op->prio = ftl_host_stream(s) ? NAND_PRIO_HOST_WRITE : NAND_PRIO_GC_WRITE;
	ftl_fpid_addr(f, wb->fpid, &op->addr);
	op->nplanes = 1;
	op->data = wb->data;
	op->oob = wb->oob_raw;
	op->cb = program_done;
	op->cb_arg = wb;
	if (f->sync_io) {
		struct nand_store *st = f->env.store;
		uint64_t page = nand_page_index(f->geo, &op->addr);

		rc = st->ops->program(st, page, op->data, op->oob);
		ftl_wb_free(f, wb);
		update_done_through(f);
		if (rc)
			ftl_set_fatal(f, rc);
		return;
	}
	TAILQ_INSERT_TAIL(&f->inflight, wb, link);
	wb->held = false;
	wb->grouping = false;
	wb->ndeps = 0;
	if (waits_for_group(f, wb, s)) {
		wb->grouping = true;
		return;
	}
	if (data_stream(s) && f->cfg.plane_groups && f->planes > 1) {
		submit_group(f, wb);
		return;
	}
	if (s == ST_TP) {
		/*
		 * Translation pages reach flash only after the data they map,
		 * or a crash in between would map LBAs to pages never
		 * programmed (recovery trusts a translation page's content).
		 */
		for (int d = 0; d < ST_COUNT; d++) {
			struct ftl_wbuf *dw = f->streams[d].wb;

			if (dw && data_stream((uint32_t)d) && maps_into(f, wb, dw)) {
				wb->dep[wb->ndeps].wb = dw;
				wb->dep[wb->ndeps++].gen = dw->gen;
			}
		}
		if (any_held(f) || !tp_page_ready(f, wb)) {
			wb->held = true;
			f->st.tp_pages_held++;
			return;
		}
	}
	submit(f, wb);
}

/* Open the stream's next page; false when no buffer or space is free. */
static bool stream_page(struct ftl *f, enum ftl_stream s)
{
	struct ftl_streamstate *st = &f->streams[s];
	struct ftl_wbuf *wb = TAILQ_FIRST(&f->free_wbufs);

	if (!wbuf_free(f, s)) {
		unstick_held(f);
		return false;
	}
	/* Pages on a die gone offline are skipped (dieoff.c). */
	while (st->sb >= 0 && st->next < f->units_per_sb &&
	       ftl_fpid_dead(f, ftl_ppn(f, (uint32_t)st->sb, st->next) / f->slots))
		st->next += f->slots;
	if (st->sb < 0 || st->next >= f->units_per_sb) {
		/*
		 * Host streams leave the last two free superblocks to GC and to
		 * translation pages, which GC itself may need to write.
		 */
		uint32_t reserve = ftl_host_stream(s) ? FTL_HOST_RESERVE_SBS : 0;
		int32_t sb;

		if (f->free_sbs <= reserve)
			return false;
		sb = ftl_sb_alloc(f);
		if (sb < 0)
			return false;
		if (st->sb >= 0) {
			f->sbs[st->sb].state = SB_FULL;
			f->sbs[st->sb].closed_ns = f->env.ops->now(f->env.ctx);
			/* A handle's reclaim unit filled: it moves on by itself. */
			if (ftl_host_stream(s) && ftl_stream_ruh(s) != FTL_RUH_NONE)
				ftl_fdp_event(f, FTL_FDP_EV_RU_FILLED, ftl_stream_ruh(s), 0, 0);
		}
		st->sb = sb;
		st->next = 0;
		st->opened_ns = f->env.ops->now(f->env.ctx);
		f->sbs[sb].ruh = ftl_stream_ruh(s); /* its reclaim unit handle's */
		while (ftl_fpid_dead(f, ftl_ppn(f, (uint32_t)sb, st->next) / f->slots))
			st->next += f->slots; /* a live die has the first page */
	}
	TAILQ_REMOVE(&f->free_wbufs, wb, link);
	wb->state = WB_FILLING;
	wb->stream = s;
	wb->gen++;
	wb->fpid = ftl_ppn(f, (uint32_t)st->sb, st->next) / f->slots;
	f->sbs[st->sb].buffered++;
	wb->used = 0;
	memset(&wb->oob, 0, sizeof(wb->oob));
	st->wb = wb;
	return true;
}

uint32_t ftl_put_unit(struct ftl *f, enum ftl_stream s, uint32_t lba,
		      enum ftl_unit_kind kind, uint64_t dseq, const void *data)
{
	struct ftl_streamstate *st = &f->streams[s];
	struct ftl_wbuf *wb;
	uint32_t slot, ppn;

	if (!st->wb && !stream_page(f, s))
		return FTL_UNMAPPED;
	wb = st->wb;
	slot = wb->used++;
	ppn = wb->fpid * f->slots + slot;
	st->next++;
	if (data)
		memcpy(wb->data + (size_t)slot * FTL_UNIT, data, FTL_UNIT);
	else
		memset(wb->data + (size_t)slot * FTL_UNIT, 0, FTL_UNIT);
	wb->oob.slot[slot] = (struct ftl_oob_slot){
		.lba = lba, .kind = kind, .wseq = ++f->wseq, .dseq = dseq,
	};
	ftl_fdp_of(f, st->sb)->media_bytes += FTL_UNIT;
	if (ftl_gc_stream(s)) {
		f->st.units_written_gc++; /* GC accounts for its own writes */
	} else if (s == ST_TP) {
		f->st.units_written_tp++;
		ftl_gc_spend(f, 1);
	} else {
		if (kind == UK_DATA) {
			f->st.units_written_host++; /* its host bytes: ftl_host_write_step() */
		} else if (kind == UK_TP) {
			f->st.units_written_tp++;
		}
		ftl_gc_spend(f, 1);
	}
	if (wb->used == f->slots) {
		st->wb = NULL;
		program(f, wb, s);
	}
	return ppn;
}

const uint8_t *ftl_buffered(const struct ftl *f, uint32_t ppn)
{
	uint32_t fpid = ppn / f->slots;

	if (ppn / f->units_per_sb >= f->nr_sb || !f->sbs[ppn / f->units_per_sb].buffered)
		return NULL; /* the common case: a read of a superblock long written */
	for (uint32_t i = 0; i < f->nr_wbufs; i++) {
		const struct ftl_wbuf *wb = &f->wbufs[i];

		if (wb->state != WB_FREE && wb->fpid == fpid)
			return wb->data + (size_t)(ppn % f->slots) * FTL_UNIT;
	}
	return NULL;
}

bool ftl_gc_copy_buffered(const struct ftl *f, uint32_t fpid, uint8_t *page,
			  struct ftl_oob *oob)
{
	for (uint32_t i = 0; i < f->nr_wbufs; i++) {
		const struct ftl_wbuf *wb = &f->wbufs[i];

		if (wb->state == WB_FREE || wb->fpid != fpid)
			continue;
		if (page)
			memcpy(page, wb->data, f->geo->page_size);
		*oob = wb->oob;
		/* A page still filling has its magic set only when programmed. */
		oob->magic = FTL_OOB_MAGIC;
		oob->nslots = f->slots;
		return true;
	}
	return false;
}

/* Pad stream @s's page being filled (the padding's lba field @mark) and program it. */
static void close_page(struct ftl *f, enum ftl_stream s, uint32_t mark)
{
	struct ftl_streamstate *st = &f->streams[s];
	struct ftl_wbuf *wb = st->wb;

	if (!wb) {
		ftl_program_waiting(f, s);
		return;
	}
	while (wb->used < f->slots) {
		uint32_t slot = wb->used++;

		memset(wb->data + (size_t)slot * FTL_UNIT, 0, FTL_UNIT);
		wb->oob.slot[slot] = (struct ftl_oob_slot){ .lba = mark, .kind = UK_PAD,
							   .wseq = ++f->wseq };
		st->next++;
		f->st.units_padded++;
		ftl_fdp_of(f, st->sb)->media_bytes += FTL_UNIT;
		ftl_gc_spend(f, 1);
	}
	st->wb = NULL;
	program(f, wb, s);
	ftl_program_waiting(f, s); /* nothing waits past a close */
}

void ftl_close_stream(struct ftl *f, enum ftl_stream s)
{
	close_page(f, s, 0);
}

int ftl_close_stream_marked(struct ftl *f, enum ftl_stream s)
{
	struct ftl_streamstate *st = &f->streams[s];

	if (st->sb < 0 || st->next >= f->units_per_sb) {
		ftl_program_waiting(f, s);
		return 0; /* none open, or full: recovery never reopens it */
	}
	/* On a page boundary: a page of its own carries the mark. */
	if (!st->wb && !stream_page(f, s))
		return -EAGAIN;
	close_page(f, s, FTL_PAD_RU_CLOSED);
	return 0;
}

void ftl_close_pages(struct ftl *f)
{
	for (int s = 0; s < ST_COUNT; s++)
		ftl_close_stream(f, (enum ftl_stream)s);
}

uint64_t ftl_issued_ticket(const struct ftl *f)
{
	return f->next_ticket;
}

/* Wait until every page submitted so far is programmed, then sync. */
static void wait_durable(struct ftl *f, struct ftl_io *io)
{
	const struct ftl_wbuf *wb;
	bool waiting = false;

	/*
	 * Only what is handed to the flash (ftl_io.issued_only): unless a page
	 * ticketed already waits for one being filled (a translation page
	 * held for its data, a plane partner), which only a close moves on.
	 */
	TAILQ_FOREACH(wb, &f->inflight, link)
		waiting |= wb->held || wb->grouping;
	if (!io->issued_only || waiting)
		ftl_close_pages(f);
	io->ticket = ftl_issued_ticket(f);
	io->stage = 2;
	if (f->done_through >= io->ticket && !ftl_pfail_pending(f)) {
		int rc = f->env.ops->sync ? f->env.ops->sync(f->env.ctx) : 0;

		ftl_io_complete(f, io, f->fatal ? f->fatal : rc);
		return;
	}
	TAILQ_INSERT_TAIL(&f->durable_wait, io, link);
}

static bool stream_has_room(const struct ftl *f, int s)
{
	const struct ftl_streamstate *st = &f->streams[s];

	if (st->wb)
		return true;
	if (!wbuf_free(f, (enum ftl_stream)s))
		return false;
	if (st->sb < 0 || st->next >= f->units_per_sb)
		return f->free_sbs > FTL_HOST_RESERVE_SBS;
	return true;
}

/* The sequential write that held the others back has its units placed. */
static void seq_unblock(struct ftl *f)
{
	TAILQ_HEAD(, ftl_io) batch = TAILQ_HEAD_INITIALIZER(batch);
	struct ftl_io *io;

	f->seq_blocker = NULL;
	TAILQ_CONCAT(&batch, &f->seq_wait, link);
	/* In order; one that blocks in turn sends the rest back to seq_wait. */
	while ((io = TAILQ_FIRST(&batch))) {
		TAILQ_REMOVE(&batch, io, link);
		ftl_host_write_step(f, io);
	}
}

void ftl_host_write_step(struct ftl *f, struct ftl_io *io)
{
	/*
	 * Power is gone (ftl_power_fail()): the hold-up is for what was
	 * acknowledged; a write not in the buffer yet waits, and goes with the
	 * instance, never acknowledged.
	 */
	if (f->power_failing) {
		TAILQ_INSERT_TAIL(&f->write_wait, io, link);
		return;
	}
	if (io->stage == 0) {
		bool seq = io->lba == f->last_write_end || io->nr >= f->cfg.seq_min_units;

		if (f->fatal) {
			ftl_io_complete(f, io, f->fatal);
			return;
		}
		if (ftl_gc_urgent(f)) {
			TAILQ_INSERT_TAIL(&f->write_wait, io, link);
			ftl_gc_step(f);
			return;
		}
		/* Without separation every host write shares one stream. */
		io->stream = f->cfg.stream_separation && !seq ? ST_RAND : ST_SEQ;
		if (f->cfg.nr_ruh)
			io->stream = ST_RUH0 + io->ruh; /* its reclaim unit handle's */
		io->ordered = seq;
		f->last_write_end = io->lba + io->nr;
		io->stage = 1;
	}
	/*
	 * A sequential write waiting for a translation page would otherwise
	 * be overtaken by the ones after it, and its units would land after
	 * theirs: the run on flash breaks (and the MDC sees short runs).
	 */
	if (io->ordered && f->seq_blocker && f->seq_blocker != io) {
		TAILQ_INSERT_TAIL(&f->seq_wait, io, link);
		return;
	}
	for (; io->next < io->nr; io->next++) {
		uint32_t lba = io->lba + io->next, ppn;
		struct ftl_cmt *e;

		/* Writes stopped while it waited (read-only): it fails, as the ones after it will. */
		if (f->fatal) {
			if (f->seq_blocker == io)
				seq_unblock(f);
			ftl_io_complete(f, io, f->fatal);
			return;
		}
		if (!stream_has_room(f, (int)io->stream)) {
			TAILQ_INSERT_TAIL(&f->write_wait, io, link);
			unstick_held(f);
			ftl_gc_step(f);
			return;
		}
		/* Below the foreground level each unit waits for a GC credit. */
		if (!ftl_gc_pace(f)) {
			f->st.gc_paced++;
			TAILQ_INSERT_TAIL(&f->gc.pace_wait, io, link);
			return;
		}
		e = ftl_cmt_get(f, lba / FTL_TP_ENTRIES, io);
		if (!e) {
			if (io->ordered)
				f->seq_blocker = io;
			return; /* resumed when the translation page is in */
		}
		ppn = ftl_put_unit(f, (enum ftl_stream)io->stream, lba, UK_DATA,
				   ++f->dseq, io->buf + (size_t)io->next * FTL_UNIT);
		if (ppn == FTL_UNMAPPED) {
			TAILQ_INSERT_TAIL(&f->write_wait, io, link);
			ftl_gc_step(f);
			return;
		}
		ftl_map_set(f, e, lba, ppn);
		f->st.host_writes++;
	}
	if (f->seq_blocker == io)
		seq_unblock(f);
	/* Every unit placed: the host's bytes of it, to its handle (as its superblocks are). */
	f->fdp[f->cfg.nr_ruh ? io->ruh : FTL_MAX_RUH].host_bytes +=
		(uint64_t)io->nr * FTL_UNIT - BLOX_MIN(io->not_host_bytes, io->nr * FTL_UNIT);
	if (io->fua || !f->cfg.volatile_cache)
		wait_durable(f, io);
	else
		ftl_io_complete(f, io, 0);
}

void ftl_flush_step(struct ftl *f, struct ftl_io *io)
{
	f->st.flushes++;
	wait_durable(f, io);
}

/*
 * Trim: unmap every unit, then write back the translation pages covering
 * the range, so that once they are programmed (a Flush) the trim is on
 * flash like any other mapping change and survives a crash.
 */
void ftl_trim_step(struct ftl *f, struct ftl_io *io)
{
	if (io->stage == 0) {
		for (; io->next < io->nr; io->next++) {
			uint32_t lba = io->lba + io->next;
			struct ftl_cmt *e = ftl_cmt_get(f, lba / FTL_TP_ENTRIES, io);

			if (!e)
				return;
			ftl_map_set(f, e, lba, FTL_UNMAPPED);
			f->st.host_trims++;
		}
		io->stage = 1;
		io->next = io->lba / FTL_TP_ENTRIES; /* now: next page to write back */
	}
	for (; io->next <= (io->lba + io->nr - 1) / FTL_TP_ENTRIES; io->next++) {
		if (!ftl_cmt_writeback_tp(f, io->next)) {
			TAILQ_INSERT_TAIL(&f->write_wait, io, link);
			ftl_gc_step(f);
			return;
		}
	}
	ftl_io_complete(f, io, 0);
}
