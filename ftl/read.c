/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The read path. Per unit: CMT hit -> PPN; else MDC hit -> PPN; else load
 * the translation page (the read waits and resumes). Unmapped units read
 * as zeroes without touching flash; units still in the write buffer are
 * copied from it; the rest are read from flash, one NAND read per flash
 * page for the units of the request that share it, its data going straight
 * into the request's buffer (NAND read segments): no bounce page, no copy
 * at completion.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "blox_util.h"

#define FTL_READ_CTXS 1024

int ftl_read_init(struct ftl *f)
{
	f->rds = calloc(FTL_READ_CTXS, sizeof(*f->rds));
	if (!f->rds)
		return -ENOMEM;
	TAILQ_INIT(&f->free_rds);
	for (uint32_t i = 0; i < FTL_READ_CTXS; i++) {
		f->rds[i].f = f;
		TAILQ_INSERT_TAIL(&f->free_rds, &f->rds[i], link);
	}
	return 0;
}

void ftl_read_fini(struct ftl *f)
{
	free(f->rds);
}

static void read_finish(struct ftl *f, struct ftl_io *io)
{
	if (io->next == io->nr && io->pending == 0)
		ftl_io_complete(f, io, io->status);
}

static void rd_done(struct nand_op *op)
{
	struct ftl_rd *rd = op->cb_arg;
	struct ftl *f = rd->f;
	struct ftl_io *io = rd->io;

	/* The data is in io->buf already (the op's segments), or lent. */
	if (op->lent) {
		io->lent = op->lent;
		io->lent_tab = op->lent_tab;
		io->lent_block = op->lent_block;
	}
	if (op->status && !io->status)
		io->status = -EIO;
	if (op->status && rd->nsegs) {
		/* Its units are in ascending order: the first segment's is the lowest. */
		uint32_t unit = (uint32_t)(((uint8_t *)rd->segs[0].dst - io->buf) / FTL_UNIT);

		io->err_unit = BLOX_MIN(io->err_unit, unit);
	}
	ftl_note_read(f, op);
	TAILQ_INSERT_TAIL(&f->free_rds, rd, link);
	io->pending--;
	read_finish(f, io);
	ftl_progress(f);
}

/*
 * Slot @slot of the page into unit @unit of the request: one more unit of
 * the last segment when it follows on in both, else a segment of its own.
 */
static void rd_want(struct ftl_rd *rd, uint32_t slot, uint32_t unit)
{
	uint8_t *dst = rd->io->buf + (size_t)unit * FTL_UNIT;
	struct nand_seg *sg = rd->nsegs ? &rd->segs[rd->nsegs - 1] : NULL;

	rd->nslots++;
	if (sg && sg->off + sg->len == slot * FTL_UNIT &&
	    (uint8_t *)sg->dst + sg->len == dst) {
		sg->len += FTL_UNIT;
		return;
	}
	rd->segs[rd->nsegs++] = (struct nand_seg){ slot * FTL_UNIT, FTL_UNIT, dst };
}

/* Mapping of @lba, loading its translation page if needed. */
static bool resolve(struct ftl *f, struct ftl_io *io, uint32_t lba,
		    uint32_t *ppn)
{
	struct ftl_cmt *e = f->cmt_index[lba / FTL_TP_ENTRIES];

	if (e && e->state == CMT_READY) {
		e = ftl_cmt_get(f, lba / FTL_TP_ENTRIES, io); /* LRU + stats */
		*ppn = e->map[lba % FTL_TP_ENTRIES];
		return true;
	}
	if (f->cfg.mdc_enabled) {
		f->st.mdc_lookups++;
		if (ftl_mdc_lookup(f->mdc, lba, ppn)) {
			f->st.mdc_hits++;
			return true;
		}
	}
	e = ftl_cmt_get(f, lba / FTL_TP_ENTRIES, io);
	if (!e)
		return false;
	*ppn = e->map[lba % FTL_TP_ENTRIES];
	return true;
}

void ftl_read_step(struct ftl *f, struct ftl_io *io)
{
	while (io->next < io->nr) {
		uint32_t lba = io->lba + io->next, ppn, fpid;
		const uint8_t *b;
		struct ftl_rd *rd;

		if (!resolve(f, io, lba, &ppn))
			return; /* resumed when the translation page is in */
		if (ppn == FTL_UNMAPPED) {
			memset(io->buf + (size_t)io->next * FTL_UNIT, 0, FTL_UNIT);
			f->st.unmapped_reads++;
			io->next++;
			continue;
		}
		if (ppn == FTL_LOST) {
			/* Its data was lost: an error until written or deallocated. */
			memset(io->buf + (size_t)io->next * FTL_UNIT, 0, FTL_UNIT);
			f->st.lost_reads++;
			if (!io->status)
				io->status = -EIO;
			io->err_unit = BLOX_MIN(io->err_unit, io->next);
			io->next++;
			continue;
		}
		b = ftl_buffered(f, ppn);
		if (b) {
			memcpy(io->buf + (size_t)io->next * FTL_UNIT, b, FTL_UNIT);
			f->st.buffer_reads++;
			io->next++;
			continue;
		}
		rd = TAILQ_FIRST(&f->free_rds);
		if (!rd) {
			TAILQ_INSERT_TAIL(&f->read_wait, io, link);
			return;
		}
		TAILQ_REMOVE(&f->free_rds, rd, link);
		rd->io = io;
		rd->nslots = rd->nsegs = 0;
		fpid = ppn / f->slots;
		rd_want(rd, ppn % f->slots, io->next++);
		/* Following units on the same flash page share the read. */
		while (io->next < io->nr && rd->nslots < f->slots) {
			uint32_t p2;

			if (!ftl_map_peek(f, io->lba + io->next, &p2) ||
			    p2 >= FTL_LOST || p2 / f->slots != fpid ||
			    ftl_buffered(f, p2))
				break;
			rd_want(rd, p2 % f->slots, io->next++);
		}
		memset(&rd->op, 0, sizeof(rd->op));
		rd->op.kind = NAND_OP_READ;
		rd->op.prio = NAND_PRIO_HOST_READ;
		ftl_fpid_addr(f, fpid, &rd->op.addr);
		rd->op.nplanes = 1;
		rd->op.xfer_bytes = rd->nslots * FTL_UNIT;
		rd->op.segs = rd->segs;
		rd->op.nsegs = rd->nsegs;
		rd->op.lend = io->lend && io->nr == 1;
		rd->op.cb = rd_done;
		rd->op.cb_arg = rd;
		io->pending++;
		f->st.flash_data_reads++;
		rd->op.tenant = f->cfg.tenant;
		if (f->env.ops->submit(f->env.ctx, &rd->op)) {
			rd->op.status = -EIO;
			rd_done(&rd->op);
		}
	}
	read_finish(f, io);
}
