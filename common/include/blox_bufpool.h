/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bounded pool of data buffers, 4 KiB-aligned and sized to the request
 * (rounded up to 4 KiB). Bytes handed out plus bytes kept for reuse never
 * exceed the pool's cap; each user (a connection) may also hold at most
 * its own cap, except that a user holding nothing may always take one
 * buffer (so one request larger than that cap still goes through).
 *
 * A request that cannot be served waits, never fails: on its user's list
 * while the user is at its cap, else in the pool's FIFO. Every buffer put
 * back serves the waiters in order, so as long as every buffer handed out
 * comes back, every waiter is served (no deadlock, no starvation of one
 * connection by another's backlog). The ready() callback runs inside
 * blox_bufpool_put(): it should only note the buffer and schedule work.
 */
#ifndef BLOX_BUFPOOL_H
#define BLOX_BUFPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#define BLOX_BUF_ALIGN 4096u

struct blox_bufpool_user;

struct blox_bufpool_wait {
	size_t len; /* rounded up to BLOX_BUF_ALIGN by blox_bufpool_get */
	void *buf; /* the buffer, once served */
	void (*ready)(struct blox_bufpool_wait *w); /* served after waiting */
	struct blox_bufpool_user *user;
	int where; /* 0: not waiting, 1: user's list, 2: pool's FIFO */
	bool no_wait; /* -EAGAIN instead of waiting */
	TAILQ_ENTRY(blox_bufpool_wait) link;
};

TAILQ_HEAD(blox_bufpool_waitq, blox_bufpool_wait);

struct blox_bufpool_stats {
	uint64_t gets; /* buffers handed out */
	uint64_t pool_waits; /* requests that waited for the pool's cap */
	uint64_t user_waits; /* requests that waited for their user's cap */
	uint64_t allocs, frees; /* memory taken from and given back to the system */
	uint64_t peak; /* most bytes handed out at once */
};

struct blox_bufpool {
	uint64_t cap; /* bytes handed out + kept */
	uint64_t used; /* bytes handed out */
	uint64_t cached; /* bytes kept for reuse */
	uint32_t nr_classes; /* free lists for 1..nr_classes pages */
	void **free; /* [pages - 1]: a list through each buffer's first word */
	struct blox_bufpool_waitq waiters;
	struct blox_bufpool_stats st;
};

struct blox_bufpool_user {
	struct blox_bufpool *pool;
	uint64_t cap; /* 0: only the pool's */
	uint64_t held;
	uint64_t queued; /* bytes of its requests in the pool's FIFO */
	uint32_t waiting; /* its requests waiting, on either list */
	struct blox_bufpool_waitq waiters; /* over its cap */
};

/* What blox_bufpool_counts() reads, from any thread. */
struct blox_bufpool_counts {
	uint64_t cap, used, cached, peak, pool_waits, user_waits;
};
void blox_bufpool_counts(const struct blox_bufpool *p, struct blox_bufpool_counts *out);

/* @cap bytes in all; buffers up to @max_cached bytes are kept for reuse. */
int blox_bufpool_init(struct blox_bufpool *p, uint64_t cap, size_t max_cached);
/* Every buffer must be back and no request waiting. */
void blox_bufpool_fini(struct blox_bufpool *p);
void blox_bufpool_user_init(struct blox_bufpool_user *u, struct blox_bufpool *p, uint64_t cap);
/*
 * A buffer of @w->len bytes for @u: 0 and @w->buf now, -EAGAIN when @w
 * waits (@w->ready called once it is served), -E2BIG when @w->len is over
 * the pool's cap, -ENOMEM when the system has no memory (nothing waits).
 * With @w->no_wait, -EAGAIN without waiting.
 */
int blox_bufpool_get(struct blox_bufpool_user *u, struct blox_bufpool_wait *w);
/* Give back what @w got; serves waiters. */
void blox_bufpool_put(struct blox_bufpool_user *u, struct blox_bufpool_wait *w);
/* Serve what @u's cap and the pool's allow now (after a cancel). */
void blox_bufpool_kick(struct blox_bufpool_user *u);
/* Stop waiting (the connection goes); serves those it held up. */
void blox_bufpool_cancel(struct blox_bufpool_wait *w);
/* Give the kept buffers back to the system. */
void blox_bufpool_trim(struct blox_bufpool *p);

#endif
