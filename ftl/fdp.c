/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flexible Data Placement (NVMe TP4146) on the FTL: reclaim unit handles
 * are streams of their own (write.c puts a write of handle h into stream
 * ST_RUH0 + h; gc.c moves a persistently isolated handle's data into
 * ST_RUHGC0 + h), a reclaim unit is the superblock such a stream has
 * open, and every superblock knows its handle (ftl_sb.ruh, from the OOB
 * stream tag after a restart). Here: the handle's counters as the FDP
 * statistics and usage logs report them, the events the FTL causes by
 * itself (a reclaim unit that filled, one open past the time limit and
 * closed, a superblock's data that GC moved), and the Reclaim Unit Handle
 * Update (whose padding recovery.c reads as "closed by the host"; the
 * time limit's close leaves the same mark).
 */
#include "ftl_internal.h"

#include <errno.h>
#include <string.h>

#include "blox_util.h"

static void ctr_add(struct ftl_fdp_ctr *to, const struct ftl_fdp_ctr *c)
{
	to->host_bytes += c->host_bytes;
	to->media_bytes += c->media_bytes;
	to->erased_bytes += c->erased_bytes;
}

int ftl_fdp_stats(const struct ftl *f, struct ftl_fdp_stats *out)
{
	memset(out, 0, sizeof(*out));
	if (!f->cfg.nr_ruh)
		return -EINVAL;
	out->nr_ruh = f->cfg.nr_ruh;
	out->persistent = f->cfg.ruh_persistent;
	out->ru_bytes = (uint64_t)f->units_per_sb * FTL_UNIT;
	out->ru_time_limit_ns = f->cfg.ru_time_limit_ns;
	for (uint32_t r = 0; r < FTL_MAX_RUH; r++) {
		const struct ftl_streamstate *st = &f->streams[ST_RUH0 + r];

		out->ruh[r] = f->fdp[r];
		ctr_add(&out->total, &f->fdp[r]);
		out->ru_updates[r] = f->ru_updates[r];
		out->ru_implicit[r] = f->ru_implicit[r];
		out->ru_expired[r] = f->ru_expired[r];
		if (r < f->cfg.nr_ruh && st->sb >= 0 && st->next < f->units_per_sb)
			out->ru_left[r] = (uint64_t)(f->units_per_sb - st->next) * FTL_UNIT;
	}
	out->other = f->fdp[FTL_MAX_RUH];
	ctr_add(&out->total, &f->fdp[FTL_MAX_RUH]);
	out->ev_seq = f->fdp_ev_seq;
	memcpy(out->ev, f->fdp_ev, sizeof(out->ev));
	return 0;
}

void ftl_fdp_event(struct ftl *f, uint32_t type, uint32_t ruh, uint32_t moved, uint32_t lba)
{
	struct ftl_fdp_event *e = &f->fdp_ev[f->fdp_ev_seq % FTL_FDP_EVENTS];

	if (type == FTL_FDP_EV_RU_FILLED)
		f->ru_implicit[ruh]++;
	else if (type == FTL_FDP_EV_RU_TIMEOUT)
		f->ru_expired[ruh]++;
	*e = (struct ftl_fdp_event){ .seq = ++f->fdp_ev_seq,
				     .ns = f->env.ops->now(f->env.ctx),
				     .type = type,
				     .ruh = ruh,
				     .moved = moved,
				     .lba = lba };
}

/* The checkpoint's FDP section: the event ring and the layer above's log. */
struct ckpt_fdp {
	uint64_t ev_seq;
	struct ftl_fdp_event ev[FTL_FDP_EVENTS];
	uint32_t log_len, pad;
	uint8_t log[FTL_FDP_LOG_BYTES];
};

size_t ftl_fdp_ckpt_bytes(void)
{
	return sizeof(struct ckpt_fdp);
}

void ftl_fdp_ckpt_put(const struct ftl *f, void *dst)
{
	struct ckpt_fdp *cf = dst;

	cf->ev_seq = f->fdp_ev_seq;
	memcpy(cf->ev, f->fdp_ev, sizeof(cf->ev));
	cf->log_len = f->fdp_log_len;
	memcpy(cf->log, f->fdp_log, f->fdp_log_len);
}

void ftl_fdp_ckpt_get(struct ftl *f, const void *src)
{
	const struct ckpt_fdp *cf = src;

	f->fdp_ev_seq = cf->ev_seq;
	memcpy(f->fdp_ev, cf->ev, sizeof(f->fdp_ev));
	f->fdp_log_len = BLOX_MIN(cf->log_len, FTL_FDP_LOG_BYTES);
	memcpy(f->fdp_log, cf->log, f->fdp_log_len);
}

int ftl_fdp_log_set(struct ftl *f, const void *buf, uint32_t len)
{
	if (!f->cfg.nr_ruh)
		return -EINVAL;
	if (len > FTL_FDP_LOG_BYTES)
		return -E2BIG;
	memcpy(f->fdp_log, buf, len);
	f->fdp_log_len = len;
	return 0;
}

uint32_t ftl_fdp_log_get(const struct ftl *f, void *buf, uint32_t cap)
{
	if (f->fdp_log_len > cap)
		return 0;
	memcpy(buf, f->fdp_log, f->fdp_log_len);
	return f->fdp_log_len;
}

/* Handle @ruh has a reclaim unit written to (not a fresh one). */
static bool ru_written(const struct ftl *f, uint32_t ruh)
{
	const struct ftl_streamstate *st = &f->streams[ST_RUH0 + ruh];

	return st->sb >= 0 && (st->next > 0 || st->wb);
}

/* ... and not fully written: what the time limit applies to. */
static bool ru_partly_written(const struct ftl *f, uint32_t ruh)
{
	return ru_written(f, ruh) && f->streams[ST_RUH0 + ruh].next < f->units_per_sb;
}

/* Close handle @ruh's reclaim unit for good (an update or its time limit). */
static int ru_close(struct ftl *f, uint32_t ruh)
{
	enum ftl_stream s = (enum ftl_stream)(ST_RUH0 + ruh);
	struct ftl_streamstate *st = &f->streams[s];
	int32_t sb;
	int rc;

	/*
	 * The page being filled is padded and programmed, as a flush does,
	 * with the mark that keeps it closed after a crash.
	 */
	rc = ftl_close_stream_marked(f, s);
	if (rc)
		return rc;
	sb = st->sb;
	if (sb >= 0 && f->sbs[sb].state == SB_OPEN) {
		f->sbs[sb].state = SB_FULL;
		f->sbs[sb].closed_ns = f->env.ops->now(f->env.ctx);
	}
	st->sb = -1;
	st->next = 0;
	ftl_kick(f); /* writes waiting on it go on in the next reclaim unit */
	return 0;
}

int ftl_ruh_update(struct ftl *f, uint32_t ruh)
{
	int rc;

	if (ruh >= f->cfg.nr_ruh)
		return -EINVAL;
	if (f->shutting_down)
		return -ESHUTDOWN;
	if (!ru_written(f, ruh))
		return 0; /* no reclaim unit, or a fresh one */
	rc = ru_close(f, ruh);
	if (!rc)
		f->ru_updates[ruh]++;
	return rc;
}

uint64_t ftl_fdp_deadline(const struct ftl *f)
{
	uint64_t at = UINT64_MAX;

	if (!f->cfg.ru_time_limit_ns || f->shutting_down || f->fatal)
		return UINT64_MAX;
	for (uint32_t r = 0; r < f->cfg.nr_ruh; r++)
		if (ru_partly_written(f, r))
			at = BLOX_MIN(at, f->streams[ST_RUH0 + r].opened_ns + f->cfg.ru_time_limit_ns);
	return at;
}

void ftl_fdp_tick(struct ftl *f)
{
	uint64_t now;

	if (!f->cfg.ru_time_limit_ns || f->shutting_down || f->fatal || f->sync_io)
		return;
	now = f->env.ops->now(f->env.ctx);
	for (uint32_t r = 0; r < f->cfg.nr_ruh; r++) {
		const struct ftl_streamstate *st = &f->streams[ST_RUH0 + r];

		if (!ru_partly_written(f, r) || now - st->opened_ns < f->cfg.ru_time_limit_ns)
			continue;
		/* No write buffer free for the marked page: the next call tries again. */
		if (ru_close(f, r) == 0)
			ftl_fdp_event(f, FTL_FDP_EV_RU_TIMEOUT, r, 0, 0);
	}
}
