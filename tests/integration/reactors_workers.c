/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_reactors' workers: one initiator I/O queue each, driven by a
 * thread of its own, writing a pattern to its LBA region of a namespace
 * and reading it back, round after round (reactors.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "reactors.h"

/* ---- Workers ---- */

static int wfail(struct worker *w, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int wfail(struct worker *w, int rc, const char *fmt, ...)
{
	va_list ap;

	if (w->rc)
		return w->rc;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	w->rc = rc;
	return rc;
}

/*
 * Submit @n commands and wait for every one. A transport error ends it at
 * once (the queue is lost); an NVMe status is kept, the rest still waited for.
 */
static int batch(struct worker *w, struct ini_req *r, unsigned n, const char *what)
{
	unsigned left = n;

	for (unsigned k = 0; k < n; k++) {
		int rc = ini_submit(w->q, &r[k]);

		if (rc)
			return wfail(w, rc, "%s submit: %s", what, strerror(-rc));
	}
	while (left) {
		struct ini_req *done[DEPTH];
		int got = ini_poll(w->q, done, DEPTH);

		if (got < 0)
			return wfail(w, got, "%s poll: %s", what, strerror(-got));
		left -= (unsigned)got;
	}
	for (unsigned k = 0; k < n; k++) {
		uint16_t st = ini_status(&r[k].cqe);

		if (st) {
			w->status = st;
			return wfail(w, -EIO, "%s nsid %u: status 0x%x", what, r[k].sqe.nsid, st);
		}
	}
	return 0;
}

/* DEPTH writes of a pattern to @g in the worker's region, DEPTH reads, compare. */
static int round_on(struct worker *w, const struct nsg *g, unsigned round, uint8_t *wb, uint8_t *rb)
{
	static const uint32_t lens[] = { 4096, 16384, MAX_LEN };
	uint32_t len = lens[round % 3], nlb = len / g->bs;
	uint64_t region = g->nblocks / REGIONS;
	uint64_t base = w->id * region + (round & 1) * (region / 2);
	struct ini_req r[DEPTH];
	int rc;

	for (unsigned k = 0; k < DEPTH; k++) {
		uint8_t *p = wb + (size_t)k * MAX_LEN;

		fx_fill_random(p, len, &w->seed);
		memcpy(p, &(uint32_t[3]){ w->id, round, k }, 12);
		ini_req_rw(&r[k], nvme_cmd_write, g->nsid, base + (uint64_t)k * nlb, nlb, p, len);
	}
	if ((rc = batch(w, r, DEPTH, "write")))
		return rc;
	memset(rb, 0, (size_t)DEPTH * MAX_LEN);
	for (unsigned k = 0; k < DEPTH; k++)
		ini_req_rw(&r[k], nvme_cmd_read, g->nsid, base + (uint64_t)k * nlb, nlb,
			   rb + (size_t)k * MAX_LEN, len);
	if ((rc = batch(w, r, DEPTH, "read")))
		return rc;
	for (unsigned k = 0; k < DEPTH; k++)
		if (memcmp(wb + (size_t)k * MAX_LEN, rb + (size_t)k * MAX_LEN, len))
			return wfail(w, -EILSEQ, "nsid %u lba %llu (+%u blocks): data read back differ",
				     g->nsid, (unsigned long long)(base + (uint64_t)k * nlb), nlb);
	return 0;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint8_t *wb = malloc((size_t)DEPTH * MAX_LEN), *rb = malloc((size_t)DEPTH * MAX_LEN);

	if (!wb || !rb)
		wfail(w, -ENOMEM, "out of memory");
	for (unsigned i = 0; !w->rc && !atomic_load(&w->stop) && (!w->rounds || i < w->rounds);
	     i++) {
		const struct nsg *g = w->only ? w->only : &nss[(i + w->id) % NR_NS];

		if (!round_on(w, g, i, wb, rb))
			atomic_fetch_add(&w->done_rounds, 1);
	}
	free(wb);
	free(rb);
	atomic_store(&w->finished, true);
	return NULL;
}

void worker_start(struct worker *w, struct ini_queue *q, unsigned id,
			 const struct nsg *only, unsigned rounds)
{
	memset(w, 0, sizeof(*w));
	w->q = q;
	w->id = id;
	w->only = only;
	w->rounds = rounds;
	w->seed = 0x9e3779b97f4a7c15ull * (id + 1) ^ (uint64_t)fx_now_ms();
	assert_int_equal(pthread_create(&w->th, NULL, worker_main, w), 0);
	w->running = true;
}

/* One worker per I/O queue of @c, regions from @id0. */
unsigned workers_on(struct worker *w, struct ini_ctrl *c, unsigned id0,
			   const struct nsg *only, unsigned rounds)
{
	for (uint32_t i = 0; i < c->nr_io; i++)
		worker_start(&w[i], c->io[i], id0 + i, only, rounds);
	return c->nr_io;
}

/* Wait until each of @n workers did @min rounds (or ended); false at the deadline. */
bool workers_wait_rounds(struct worker *w, unsigned n, unsigned min)
{
	int64_t end = fx_now_ms() + WAIT_MS;

	for (;;) {
		unsigned ok = 0;

		for (unsigned i = 0; i < n; i++)
			ok += atomic_load(&w[i].done_rounds) >= min || atomic_load(&w[i].finished);
		if (ok == n)
			return true;
		if (fx_now_ms() > end)
			return false;
		fx_sleep_ms(20);
	}
}

/* Wait until each of @n workers ended by itself; false at the deadline. */
bool workers_wait_finished(struct worker *w, unsigned n)
{
	int64_t end = fx_now_ms() + WAIT_MS + Q_TIMEOUT_MS;

	for (;;) {
		unsigned ok = 0;

		for (unsigned i = 0; i < n; i++)
			ok += atomic_load(&w[i].finished);
		if (ok == n)
			return true;
		if (fx_now_ms() > end)
			return false;
		fx_sleep_ms(20);
	}
}

/* Wait for @n workers to end: @stop them first, or let them do their rounds. */
void workers_join(struct worker *w, unsigned n, bool stop)
{
	for (unsigned i = 0; i < n; i++) {
		if (stop)
			atomic_store(&w[i].stop, true);
		if (w[i].running)
			pthread_join(w[i].th, NULL);
		w[i].running = false;
	}
}

/* Every worker ended without an error after doing some rounds. */
void workers_check_ok(struct worker *w, unsigned n, const char *what)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < n; i++) {
		if (w[i].rc || !atomic_load(&w[i].done_rounds)) {
			fprintf(stderr, "%s: worker %u (qid %u): %s (%u rounds)\n", what, w[i].id,
				ini_queue_qid(w[i].q), w[i].rc ? w[i].why : "no round done",
				atomic_load(&w[i].done_rounds));
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

