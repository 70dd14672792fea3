/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Token buckets per namespace (qos.h): IOPS and bytes per second, for
 * reads, writes and both, each with a burst. Pure arithmetic on `now`.
 */
#include "qos.h"

#include <string.h>

#define UNIT 1000000000ll /* units per token */

static void bucket_refill(struct qos_bucket *b, uint64_t now)
{
	uint64_t dt, room;

	if (now <= b->last_ns)
		return;
	dt = now - b->last_ns;
	b->last_ns = now;
	if (!b->rate)
		return;
	if (b->level >= b->depth) {
		b->full_ns += dt;
		return;
	}
	room = (uint64_t)(b->depth - b->level);
	/* Full within dt: no more than what fills it (and no overflow). */
	if (room / b->rate < dt) {
		uint64_t fill = (room + b->rate - 1) / b->rate;

		if (dt > fill)
			b->full_ns += dt - fill;
		b->level = b->depth;
	} else {
		b->level += (int64_t)(dt * b->rate);
		if (b->level > b->depth)
			b->level = b->depth;
	}
}

/* Set @b to @rate with a burst of @burst_ms; keep its level (clipped), or full when new. */
static void bucket_set(struct qos_bucket *b, uint64_t rate, uint32_t burst_ms, uint64_t now,
		       bool keep)
{
	bool was = b->rate != 0;

	if (keep && was)
		bucket_refill(b, now);
	b->rate = rate;
	b->last_ns = now;
	if (!rate) {
		b->depth = b->level = 0;
		return;
	}
	/* rate x burst, at least one token; capped so that arithmetic stays in range. */
	if (rate > (uint64_t)INT64_MAX / 1000000u / (burst_ms ? burst_ms : 1))
		b->depth = INT64_MAX / 4;
	else
		b->depth = (int64_t)(rate * burst_ms * 1000000u);
	if (b->depth < UNIT)
		b->depth = UNIT;
	if (!keep || !was || b->level > b->depth)
		b->level = b->depth;
}

static const uint64_t *limit_of(const struct qos_limits *lim, enum qos_bucket_id id)
{
	switch (id) {
	case QOS_B_READ_IOPS:
		return &lim->read_iops;
	case QOS_B_WRITE_IOPS:
		return &lim->write_iops;
	case QOS_B_IOPS:
		return &lim->iops;
	case QOS_B_READ_BPS:
		return &lim->read_bps;
	case QOS_B_WRITE_BPS:
		return &lim->write_bps;
	default:
		return &lim->bps;
	}
}

static void limiter_apply(struct qos_limiter *l, const struct qos_limits *lim, uint64_t now,
			  bool keep)
{
	uint32_t burst = lim->burst_ms ? lim->burst_ms : QOS_BURST_MS;

	l->lim = *lim;
	for (int i = 0; i < QOS_B_COUNT; i++)
		bucket_set(&l->b[i], *limit_of(lim, (enum qos_bucket_id)i), burst, now, keep);
}

void qos_limiter_init(struct qos_limiter *l, const struct qos_limits *lim, uint64_t now)
{
	memset(l, 0, sizeof(*l));
	limiter_apply(l, lim, now, false);
}

void qos_limiter_set(struct qos_limiter *l, const struct qos_limits *lim, uint64_t now)
{
	limiter_apply(l, lim, now, true);
}

bool qos_limiter_unlimited(const struct qos_limiter *l)
{
	for (int i = 0; i < QOS_B_COUNT; i++)
		if (l->b[i].rate)
			return false;
	return true;
}

uint64_t qos_limiter_admit(struct qos_limiter *l, enum qos_dir dir, uint64_t bytes,
			   uint64_t now)
{
	enum qos_bucket_id ids[4];
	int64_t cost[4];
	uint64_t wait = 0;
	int n = 0;

	if (dir == QOS_READ) {
		ids[n] = QOS_B_READ_IOPS, cost[n++] = UNIT;
		ids[n] = QOS_B_READ_BPS, cost[n++] = (int64_t)bytes * UNIT;
	} else if (dir == QOS_WRITE) {
		ids[n] = QOS_B_WRITE_IOPS, cost[n++] = UNIT;
		ids[n] = QOS_B_WRITE_BPS, cost[n++] = (int64_t)bytes * UNIT;
	}
	ids[n] = QOS_B_IOPS, cost[n++] = UNIT;
	/* Flush, trim and write zeroes move no data over the bytes limits. */
	ids[n] = QOS_B_BPS, cost[n++] = dir == QOS_OTHER ? 0 : (int64_t)bytes * UNIT;
	for (int i = 0; i < n; i++) {
		struct qos_bucket *b = &l->b[ids[i]];
		int64_t need;

		if (!b->rate || !cost[i])
			continue;
		bucket_refill(b, now);
		/* A command larger than the bucket goes once the bucket is full. */
		need = cost[i] < b->depth ? cost[i] : b->depth;
		if (b->level < need) {
			uint64_t w = ((uint64_t)(need - b->level) + b->rate - 1) / b->rate;

			if (w > wait)
				wait = w;
		}
	}
	if (wait) {
		l->held[dir]++;
		return now + wait;
	}
	for (int i = 0; i < n; i++)
		if (l->b[ids[i]].rate)
			l->b[ids[i]].level -= cost[i];
	l->admitted[dir]++;
	return 0;
}

void qos_limiter_sync(struct qos_limiter *l, uint64_t now)
{
	for (int i = 0; i < QOS_B_COUNT; i++)
		bucket_refill(&l->b[i], now);
}

uint64_t qos_limiter_full_ns(const struct qos_limiter *l)
{
	uint64_t s = 0;

	for (int i = 0; i < QOS_B_COUNT; i++)
		if (l->b[i].rate)
			s += l->b[i].full_ns;
	return s;
}
