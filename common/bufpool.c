/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The bounded buffer pool (blox_bufpool.h): free lists per size in pages,
 * a cap on bytes handed out plus kept, FIFO waiters per user and for the
 * pool. Buffers of 128 KiB and more are their own mappings (given back
 * whole when trimmed); smaller ones come from the allocator, aligned.
 */
#include "blox_bufpool.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MMAP_MIN (128u * 1024)

static size_t pages(size_t len)
{
	return len / BLOX_BUF_ALIGN;
}

static void *mem_alloc(size_t len)
{
	void *m;

	if (len < MMAP_MIN)
		return aligned_alloc(BLOX_BUF_ALIGN, len);
	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return m == MAP_FAILED ? NULL : m;
}

static void mem_free(void *m, size_t len)
{
	if (len < MMAP_MIN)
		free(m);
	else
		munmap(m, len);
}

/*
 * The counters another thread may read (blox_bufpool_counts) are written
 * with relaxed atomic stores by the pool's own thread.
 */
#define SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELAXED)

void blox_bufpool_counts(const struct blox_bufpool *p, struct blox_bufpool_counts *out)
{
	out->cap = p->cap;
	out->used = __atomic_load_n(&p->used, __ATOMIC_RELAXED);
	out->cached = __atomic_load_n(&p->cached, __ATOMIC_RELAXED);
	out->peak = __atomic_load_n(&p->st.peak, __ATOMIC_RELAXED);
	out->pool_waits = __atomic_load_n(&p->st.pool_waits, __ATOMIC_RELAXED);
	out->user_waits = __atomic_load_n(&p->st.user_waits, __ATOMIC_RELAXED);
}

int blox_bufpool_init(struct blox_bufpool *p, uint64_t cap, size_t max_cached)
{
	memset(p, 0, sizeof(*p));
	p->cap = cap;
	p->nr_classes = (uint32_t)pages(max_cached);
	if (p->nr_classes) {
		p->free = calloc(p->nr_classes, sizeof(*p->free));
		if (!p->free)
			return -ENOMEM;
	}
	TAILQ_INIT(&p->waiters);
	return 0;
}

/* Give the first kept buffer of class @i back to the system. */
static void drop_kept(struct blox_bufpool *p, uint32_t i)
{
	void *b = p->free[i];
	size_t len = (size_t)(i + 1) * BLOX_BUF_ALIGN;

	memcpy(&p->free[i], b, sizeof(void *));
	mem_free(b, len);
	SET(p->cached, p->cached - len);
	p->st.frees++;
}

void blox_bufpool_trim(struct blox_bufpool *p)
{
	for (uint32_t i = 0; i < p->nr_classes; i++)
		while (p->free[i])
			drop_kept(p, i);
}

void blox_bufpool_fini(struct blox_bufpool *p)
{
	if (p->free)
		blox_bufpool_trim(p);
	free(p->free);
	p->free = NULL;
}

void blox_bufpool_user_init(struct blox_bufpool_user *u, struct blox_bufpool *p, uint64_t cap)
{
	memset(u, 0, sizeof(*u));
	u->pool = p;
	u->cap = cap;
	TAILQ_INIT(&u->waiters);
}

/* Make room for @len new bytes by giving kept buffers back, largest first. */
static void evict(struct blox_bufpool *p, size_t len)
{
	for (uint32_t i = p->nr_classes; i-- > 0 && p->used + p->cached + len > p->cap;)
		while (p->free[i] && p->used + p->cached + len > p->cap)
			drop_kept(p, i);
}

/* Take @len bytes from the pool if the cap allows: the buffer or NULL (*@oom on no memory). */
static void *take(struct blox_bufpool *p, size_t len, bool *oom)
{
	size_t pg = pages(len);
	void *b;

	*oom = false;
	if (p->used + len > p->cap)
		return NULL;
	if (pg <= p->nr_classes && p->free[pg - 1]) {
		b = p->free[pg - 1];
		memcpy(&p->free[pg - 1], b, sizeof(void *));
		SET(p->cached, p->cached - len);
	} else {
		evict(p, len);
		b = mem_alloc(len);
		if (!b) {
			*oom = true;
			return NULL;
		}
		p->st.allocs++;
	}
	SET(p->used, p->used + len);
	p->st.gets++;
	if (p->used > p->st.peak)
		SET(p->st.peak, p->used);
	return b;
}

/* Bytes @u holds or will hold once the pool's FIFO serves it. */
static bool over_user_cap(const struct blox_bufpool_user *u, size_t len)
{
	uint64_t committed = u->held + u->queued;

	return u->cap && committed && committed + len > u->cap;
}

static void to_pool_fifo(struct blox_bufpool_wait *w)
{
	TAILQ_INSERT_TAIL(&w->user->pool->waiters, w, link);
	w->where = 2;
	w->user->queued += w->len;
}

int blox_bufpool_get(struct blox_bufpool_user *u, struct blox_bufpool_wait *w)
{
	struct blox_bufpool *p = u->pool;
	bool oom;

	w->len = (w->len + BLOX_BUF_ALIGN - 1) / BLOX_BUF_ALIGN * BLOX_BUF_ALIGN;
	if (!w->len)
		w->len = BLOX_BUF_ALIGN;
	w->user = u;
	w->buf = NULL;
	w->where = 0;
	if (w->len > p->cap)
		return -E2BIG;
	/* Behind what this user already waits for, in order. */
	if (!TAILQ_EMPTY(&u->waiters) || over_user_cap(u, w->len)) {
		if (w->no_wait)
			return -EAGAIN;
		TAILQ_INSERT_TAIL(&u->waiters, w, link);
		w->where = 1;
		u->waiting++;
		SET(p->st.user_waits, p->st.user_waits + 1);
		return -EAGAIN;
	}
	if (TAILQ_EMPTY(&p->waiters)) {
		w->buf = take(p, w->len, &oom);
		if (oom)
			return -ENOMEM;
		if (w->buf) {
			u->held += w->len;
			return 0;
		}
	}
	if (w->no_wait)
		return -EAGAIN;
	to_pool_fifo(w);
	u->waiting++;
	SET(p->st.pool_waits, p->st.pool_waits + 1);
	return -EAGAIN;
}

void blox_bufpool_cancel(struct blox_bufpool_wait *w)
{
	struct blox_bufpool_user *u = w->user;

	if (w->where == 1)
		TAILQ_REMOVE(&u->waiters, w, link);
	else if (w->where == 2) {
		TAILQ_REMOVE(&u->pool->waiters, w, link);
		u->queued -= w->len;
	} else {
		return;
	}
	w->where = 0;
	u->waiting--;
	/* Those behind it may fit now. */
	if (u->pool)
		blox_bufpool_kick(u);
}

/* Move @u's waiters its cap now allows to the pool's FIFO. */
static void user_release(struct blox_bufpool_user *u)
{
	struct blox_bufpool_wait *w;

	while ((w = TAILQ_FIRST(&u->waiters)) && !over_user_cap(u, w->len)) {
		TAILQ_REMOVE(&u->waiters, w, link);
		to_pool_fifo(w);
	}
}

/* Serve the pool's FIFO from its head while the cap allows. */
static void serve(struct blox_bufpool *p)
{
	struct blox_bufpool_wait *w;
	bool oom;

	while ((w = TAILQ_FIRST(&p->waiters))) {
		void *b = take(p, w->len, &oom);

		if (!b)
			return; /* out of memory too: the next put tries again */
		TAILQ_REMOVE(&p->waiters, w, link);
		w->where = 0;
		w->buf = b;
		w->user->queued -= w->len;
		w->user->held += w->len;
		w->user->waiting--;
		w->ready(w);
	}
}

void blox_bufpool_put(struct blox_bufpool_user *u, struct blox_bufpool_wait *w)
{
	struct blox_bufpool *p = u->pool;
	size_t pg = pages(w->len);

	if (!w->buf)
		return;
	if (pg <= p->nr_classes) {
		memcpy(w->buf, &p->free[pg - 1], sizeof(void *));
		p->free[pg - 1] = w->buf;
		SET(p->cached, p->cached + w->len);
	} else {
		mem_free(w->buf, w->len);
		p->st.frees++;
	}
	SET(p->used, p->used - w->len);
	u->held -= w->len;
	w->buf = NULL;
	blox_bufpool_kick(u);
}

void blox_bufpool_kick(struct blox_bufpool_user *u)
{
	user_release(u);
	serve(u->pool);
}
