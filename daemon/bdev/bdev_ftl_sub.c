/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logical blocks smaller than the FTL's unit: reads, read-modify-write
 * and ordering of the commands of a 512-byte namespace on the nand
 * backend (see bdev_ftl_sub.h). A command gets a context from a pool;
 * each context runs at most three FTL requests at once (head unit, whole
 * units, tail unit) and goes through three stages: the partial units
 * read (all units, for a read), the units written (commands that store
 * data), the end.
 */
#include "bdev_ftl_sub.h"

#include "blox_util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Contexts per backend; commands beyond wait for one, in arrival order. */
#define SUB_CTXS 1024u

enum sub_stage {
	SUB_NEW, /* nothing issued yet (or waiting for its units) */
	SUB_MERGE, /* the partial units are read: merge and write them */
	SUB_END, /* the last requests are done */
};

enum { PART_HEAD, PART_WHOLE, PART_TAIL };

struct sub_op {
	struct fb_sub *s;
	struct blox_io *io;
	uint32_t u0, u1; /* the units it covers: [u0, u1) */
	uint32_t m0, m1; /* of them, the ones covered whole: [m0, m1) */
	bool head, tail; /* u0 (head) and u1 - 1 (tail) covered in part */
	bool mutates; /* stores data: holds its units */
	bool cut; /* its FTL requests were lost to a power cut (fb_sub_power_cut()) */
	enum sub_stage stage;
	uint32_t pending; /* FTL requests in flight */
	int status;
	uint8_t *part; /* the head unit's data, then the tail unit's; on first need */
	struct ftl_io fio[3]; /* PART_HEAD, PART_WHOLE, PART_TAIL */
	TAILQ_ENTRY(sub_op) link; /* free, holding or waiting */
	TAILQ_ENTRY(sub_op) rlink; /* ready to go, in wake() */
};

TAILQ_HEAD(sub_list, sub_op);

struct fb_sub {
	const struct fb_sub_ops *ops;
	void *ctx;
	uint32_t bs;
	uint64_t units;
	struct sub_op *ctxs;
	struct sub_list free, holding, waiting;
	TAILQ_HEAD(, blox_io) queued; /* no free context */
	uint32_t in_submit; /* inside fb_sub_submit(): completions are deferred */
	struct fb_sub_stats st;
};

int fb_sub_create(const struct fb_sub_ops *ops, void *ctx, uint32_t block_size,
		  uint64_t units, struct fb_sub **out)
{
	struct fb_sub *s;

	if (!block_size || FTL_UNIT % block_size || units > UINT32_MAX)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->ctxs = calloc(SUB_CTXS, sizeof(*s->ctxs));
	if (!s->ctxs) {
		free(s);
		return -ENOMEM;
	}
	s->ops = ops;
	s->ctx = ctx;
	s->bs = block_size;
	s->units = units;
	TAILQ_INIT(&s->free);
	TAILQ_INIT(&s->holding);
	TAILQ_INIT(&s->waiting);
	TAILQ_INIT(&s->queued);
	for (uint32_t i = 0; i < SUB_CTXS; i++) {
		s->ctxs[i].s = s;
		TAILQ_INSERT_TAIL(&s->free, &s->ctxs[i], link);
	}
	*out = s;
	return 0;
}

void fb_sub_destroy(struct fb_sub *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < SUB_CTXS; i++)
		free(s->ctxs[i].part);
	free(s->ctxs);
	free(s);
}

void fb_sub_get_stats(const struct fb_sub *s, struct fb_sub_stats *st)
{
	*st = s->st;
}

static bool overlap(const struct sub_op *a, const struct sub_op *b)
{
	return a->u0 < b->u1 && b->u0 < a->u1;
}

/* @op may not start: a command holding one of its units, or waiting for one (arrived before it). */
static bool blocked(const struct fb_sub *s, const struct sub_op *op, bool waiters)
{
	const struct sub_op *o;

	TAILQ_FOREACH(o, &s->holding, link)
		if (overlap(o, op))
			return true;
	if (!waiters)
		return false;
	TAILQ_FOREACH(o, &s->waiting, link) {
		if (o == op)
			break;
		if (overlap(o, op))
			return true;
	}
	return false;
}

static void advance(struct sub_op *op);
static void start(struct fb_sub *s, struct blox_io *io);

static void fio_cb(struct ftl_io *fio)
{
	struct sub_op *op = fio->cb_arg;

	if (fio->status && !op->status)
		op->status = fio->status;
	if (--op->pending == 0)
		advance(op);
}

/*
 * One FTL request of @op; a refusal is its status. A write's @host: the
 * bytes of it that are the host's data (FDP's host bytes).
 */
static void issue_w(struct sub_op *op, int i, enum ftl_io_op fop, uint32_t lba, uint32_t nr,
		    uint8_t *buf, uint32_t host)
{
	struct ftl_io *fio = &op->fio[i];
	int rc;

	memset(fio, 0, sizeof(*fio));
	fio->op = fop;
	fio->lba = lba;
	fio->nr = nr;
	fio->buf = buf;
	fio->fua = fop == FTL_IO_WRITE && op->io->fua;
	fio->ruh = fop == FTL_IO_WRITE ? op->io->ruh : 0;
	fio->not_host_bytes = fop == FTL_IO_WRITE ? nr * FTL_UNIT - host : 0;
	fio->cb = fio_cb;
	fio->cb_arg = op;
	op->pending++;
	rc = op->s->ops->submit(op->s->ctx, fio);
	if (rc) {
		op->pending--;
		if (!op->status)
			op->status = rc;
	}
}

static void issue(struct sub_op *op, int i, enum ftl_io_op fop, uint32_t lba, uint32_t nr,
		  uint8_t *buf)
{
	issue_w(op, i, fop, lba, nr, buf, nr * FTL_UNIT);
}

/* Where the host's data of the whole units starts in its buffer. */
static uint8_t *whole_data(const struct sub_op *op)
{
	return (uint8_t *)op->io->iov[0].iov_base + ((uint64_t)op->m0 * FTL_UNIT - op->io->offset);
}

/* The head unit's part of the command: its offset in the unit and its length. */
static void head_slice(const struct sub_op *op, uint32_t *off, uint32_t *len)
{
	*off = (uint32_t)(op->io->offset % FTL_UNIT);
	*len = (uint32_t)BLOX_MIN(op->io->len, (uint64_t)(FTL_UNIT - *off));
}

/* The tail unit's: from its start, this long; it ends the command. */
static uint32_t tail_len(const struct sub_op *op)
{
	return (uint32_t)((op->io->offset + op->io->len) % FTL_UNIT);
}

/* Stage 1: the partial units (and for a read, the whole ones into the host's buffer). */
static void issue_reads(struct sub_op *op)
{
	bool rd = op->io->op == BLOX_IO_READ;

	if (op->head)
		issue(op, PART_HEAD, FTL_IO_READ, op->u0, 1, op->part);
	if (rd && op->m1 > op->m0)
		issue(op, PART_WHOLE, FTL_IO_READ, op->m0, op->m1 - op->m0, whole_data(op));
	if (op->tail)
		issue(op, PART_TAIL, FTL_IO_READ, op->u1 - 1, 1, op->part + FTL_UNIT);
	if (!rd)
		op->s->st.rmw_reads += (uint64_t)op->head + op->tail;
}

/* Stage 2 of a command that stores data: the host's sectors into the partial units, all written. */
static void issue_writes(struct sub_op *op)
{
	bool wr = op->io->op == BLOX_IO_WRITE;
	const uint8_t *src = wr ? op->io->iov[0].iov_base : NULL;
	uint32_t off, len;

	if (op->head) {
		head_slice(op, &off, &len);
		if (wr)
			memcpy(op->part + off, src, len);
		else
			memset(op->part + off, 0, len);
		issue_w(op, PART_HEAD, FTL_IO_WRITE, op->u0, 1, op->part, wr ? len : 0);
	}
	if (op->m1 > op->m0) {
		if (wr)
			issue(op, PART_WHOLE, FTL_IO_WRITE, op->m0, op->m1 - op->m0,
			      whole_data(op));
		else /* unmapped units read as zeroes */
			issue(op, PART_WHOLE, FTL_IO_TRIM, op->m0, op->m1 - op->m0, NULL);
	}
	if (op->tail) {
		len = tail_len(op);
		if (wr)
			memcpy(op->part + FTL_UNIT, src + op->io->len - len, len);
		else
			memset(op->part + FTL_UNIT, 0, len);
		issue_w(op, PART_TAIL, FTL_IO_WRITE, op->u1 - 1, 1, op->part + FTL_UNIT,
			wr ? len : 0);
	}
}

static void copy_out(struct sub_op *op)
{
	uint8_t *dst = op->io->iov[0].iov_base;
	uint32_t off, len;

	if (op->head) {
		head_slice(op, &off, &len);
		memcpy(dst, op->part + off, len);
	}
	if (op->tail) {
		len = tail_len(op);
		memcpy(dst + op->io->len - len, op->part + FTL_UNIT, len);
	}
}

/*
 * @done let go of its units: start the commands that waited for them and
 * are free to go now, in arrival order. One that does not overlap @done
 * is still blocked by what blocked it before (a command that held or
 * waited for its units holds them now or still waits), so only those that
 * do are looked at.
 */
static void wake(struct fb_sub *s, const struct sub_op *done)
{
	struct sub_list ready = TAILQ_HEAD_INITIALIZER(ready);
	struct sub_op *op, *next;

	for (op = TAILQ_FIRST(&s->waiting); op; op = next) {
		next = TAILQ_NEXT(op, link);
		if (!overlap(op, done) || blocked(s, op, true))
			continue;
		TAILQ_REMOVE(&s->waiting, op, link);
		TAILQ_INSERT_TAIL(&s->holding, op, link);
		TAILQ_INSERT_TAIL(&ready, op, rlink);
	}
	/* A start may end at once (a refused request) and wake others itself. */
	while ((op = TAILQ_FIRST(&ready))) {
		TAILQ_REMOVE(&ready, op, rlink);
		advance(op);
	}
}

static void finish(struct sub_op *op)
{
	struct fb_sub *s = op->s;
	struct blox_io *io = op->io, *q;

	io->status = op->status;
	if (op->mutates)
		TAILQ_REMOVE(&s->holding, op, link);
	if (op->mutates)
		wake(s, op);
	op->io = NULL;
	/* At the head: the next command reuses its warm buffer. */
	TAILQ_INSERT_HEAD(&s->free, op, link);
	while ((q = TAILQ_FIRST(&s->queued)) && !TAILQ_EMPTY(&s->free)) {
		TAILQ_REMOVE(&s->queued, q, link);
		start(s, q);
	}
	/* Last: the callback may submit again (the core's next DSM range). */
	s->ops->done(s->ctx, io, s->in_submit == 0);
}

static void advance(struct sub_op *op)
{
	while (op->pending == 0) {
		switch (op->stage) {
		case SUB_NEW:
			op->stage = op->mutates ? SUB_MERGE : SUB_END;
			if (!op->status)
				issue_reads(op);
			break;
		case SUB_MERGE:
			op->stage = SUB_END;
			if (!op->status)
				issue_writes(op);
			break;
		case SUB_END:
			if (!op->status && !op->mutates)
				copy_out(op);
			finish(op);
			return;
		}
	}
}

static void start(struct fb_sub *s, struct blox_io *io)
{
	struct sub_op *op = TAILQ_FIRST(&s->free);
	uint64_t end = io->offset + io->len;

	TAILQ_REMOVE(&s->free, op, link);
	op->io = io;
	op->status = 0;
	op->pending = 0;
	op->stage = SUB_NEW;
	op->mutates = io->op != BLOX_IO_READ;
	op->u0 = (uint32_t)(io->offset / FTL_UNIT);
	op->u1 = (uint32_t)((end + FTL_UNIT - 1) / FTL_UNIT);
	if (op->u1 - op->u0 == 1) {
		op->head = io->offset % FTL_UNIT || end % FTL_UNIT;
		op->tail = false;
	} else {
		op->head = io->offset % FTL_UNIT;
		op->tail = end % FTL_UNIT;
	}
	op->m0 = op->u0 + op->head;
	op->m1 = op->u1 - op->tail;
	if (io->len == 0 || end > s->units * FTL_UNIT || io->offset % s->bs || io->len % s->bs ||
	    (io->op <= BLOX_IO_WRITE && io->iovcnt != 1))
		op->status = -EINVAL;
	else if ((op->head || op->tail) && !op->part &&
		 !(op->part = malloc(2 * (size_t)FTL_UNIT)))
		op->status = -ENOMEM;
	if (op->status) {
		op->mutates = false; /* holds nothing */
		op->stage = SUB_END;
	} else if (op->mutates) {
		if (blocked(s, op, true)) {
			TAILQ_INSERT_TAIL(&s->waiting, op, link);
			s->st.waits++;
			return;
		}
		TAILQ_INSERT_TAIL(&s->holding, op, link);
	}
	advance(op);
}

void fb_sub_submit(struct fb_sub *s, struct blox_io *io)
{
	s->in_submit++;
	if (!TAILQ_EMPTY(&s->queued) || TAILQ_EMPTY(&s->free)) {
		TAILQ_INSERT_TAIL(&s->queued, io, link);
		s->st.queued++;
	} else {
		start(s, io);
	}
	s->in_submit--;
}

uint32_t fb_sub_power_cut(struct fb_sub *s)
{
	uint32_t n = 0;

	/* First mark them: ending one starts waiting ones, whose requests are new. */
	for (uint32_t i = 0; i < SUB_CTXS; i++)
		s->ctxs[i].cut = s->ctxs[i].io && s->ctxs[i].pending;
	for (uint32_t i = 0; i < SUB_CTXS; i++) {
		struct sub_op *op = &s->ctxs[i];

		if (!op->cut)
			continue;
		op->cut = false;
		op->pending = 0;
		op->status = -EIO;
		op->stage = SUB_END;
		n++;
		finish(op);
	}
	return n;
}
