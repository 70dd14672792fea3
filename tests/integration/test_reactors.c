/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxd with several reactors (--reactors 2, then 4): I/O queues move to
 * reactor qid % N after their Connect, everything else stays on reactor
 * 0. Over loopback, with a thread per initiator I/O queue:
 *
 * - the queues land where they should (bloxctl ctrl list --json, status
 *   --json) and verified I/O (write a pattern, read it back, compare) runs
 *   on every namespace (ram of two block sizes, nand-timing, two nand on
 *   two devices) from queues on every reactor at once;
 * - namespaces created and deleted through bloxctl while I/O runs: I/O to
 *   the deleted one ends with an NVMe status, the rest goes on;
 * - a controller whose I/O queues live on reactors 1..N-1 loses its admin
 *   connection, or its keep-alive timeout expires: bloxd closes its
 *   queues, and the host gets a new one; a client (bloxperf) killed with
 *   SIGKILL mid-I/O leaves nothing behind;
 * - SIGTERM with I/O on every reactor: exit 0, and bloxd starts again;
 * - NAND devices live on reactors of their own (the two own-device nand
 *   namespaces above are spread over them, the core's reactor last): a
 *   registered device made with bloxctl lands off reactor 0, one pinned
 *   with --reactor lands there, one past --reactors is refused; vSSDs on
 *   it serve verified I/O from queues on every reactor while other vSSDs
 *   are created, written and deleted on it and it is migrated online to
 *   another channel.
 *
 * No timing is asserted: the deadlines only turn a hang into a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:reactors"
#define FX_HOST_C "nqn.2014-08.org.nvmexpress:uuid:cccccccc-2222-3333-4444-555555555555"
#define Q_TIMEOUT_MS 30000 /* every initiator wait: a hang fails, no more */
#define WAIT_MS 60000 /* deadline of the waits for bloxd to do something */
#define DEPTH 8 /* commands of a worker outstanding at once */
#define MAX_LEN 65536 /* largest transfer */
#define REGIONS 16 /* LBA regions of a namespace: one per worker */
#define MAX_WORKERS REGIONS
#define DOOMED_NSID 10 /* created and deleted under I/O: 10, 11, 12 */
#define CHURN_NSID 20 /* created and deleted with no I/O on it */
#define VSSD_NSID 30 /* a vSSD under I/O the whole test */
#define VSSD_TMP_NSID 31 /* vSSDs made, written and deleted meanwhile */

struct nsg {
	uint32_t nsid;
	uint32_t bs;
	uint64_t nblocks;
};

/*
 * ram 4 KiB, ram 512 B, nand-timing, nand twice: every namespace backend
 * with data, and two NAND devices (each nand namespace has its own) serving
 * at once.
 */
static const struct nsg nss[] = {
	{ 1, 4096, (32u << 20) / 4096 },
	{ 2, 512, (16u << 20) / 512 },
	{ 3, 4096, (32u << 20) / 4096 },
	{ 4, 4096, (16u << 20) / 4096 },
	{ 5, 4096, (16u << 20) / 4096 },
};
#define NR_NS (sizeof(nss) / sizeof(nss[0]))

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"32M\", \"block_size\": 4096},"
	"  {\"nsid\": 2, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 512},"
	"  {\"nsid\": 3, \"backend\": \"nand-timing\", \"size\": \"32M\", \"nand\": {"
	"   \"channels\": 2, \"dies_per_channel\": 1, \"planes_per_die\": 1,"
	"   \"blocks_per_plane\": 64, \"pages_per_block\": 96, \"t_read_us\": 50}},"
	"  {\"nsid\": 4, \"backend\": \"nand\", \"size\": \"16M\", \"nand\": {"
	"   \"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 96}},"
	"  {\"nsid\": 5, \"backend\": \"nand\", \"size\": \"16M\", \"nand\": {"
	"   \"channels\": 1, \"dies_per_channel\": 4, \"planes_per_die\": 2,"
	"   \"pages_per_block\": 96}}"
	"] } ]";

static const char *const args2[] = { "--reactors", "2", NULL };
static const char *const args4[] = { "--reactors", "4", NULL };

/* One initiator I/O queue driven by a thread of its own. */
struct worker {
	pthread_t th;
	bool running;
	struct ini_queue *q;
	unsigned id; /* its LBA region of every namespace */
	const struct nsg *only; /* NULL: every namespace in turn */
	unsigned rounds; /* 0: until stop */
	atomic_bool stop;
	uint64_t seed;
	/* Results. */
	atomic_uint done_rounds;
	atomic_bool finished;
	int rc; /* 0, -EIO (an NVMe status), -EILSEQ (data differ), transport -errno */
	uint16_t status; /* the first status not success */
	char why[200];
};

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	unsigned n; /* --reactors */
	/* What a test runs, here so that a failed one leaves nothing behind
	 * (cleanup()): the workers of two hosts and three controllers. */
	struct worker wa[MAX_WORKERS], wb[MAX_WORKERS];
	struct ini_ctrl *ca, *cb, *cc;
	struct nsg doomed; /* what host B's workers write while it is deleted */
	char out[1 << 16];
};


static int env_setup(void *p)
{
	struct env *e = p;

	e->n = (unsigned)atoi(e->fx.group->extra_args[1]);
	return e->n >= 2 ? 0 : -1;
}

/* bloxctl @fmt into e->out; its exit code. */
static int ctl(struct env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ctl(struct env *e, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = fx_ctl(&e->fx.d, e->out, sizeof(e->out), "%s", cmd);
	if (rc)
		fprintf(stderr, "bloxctl %s: exit %d: %s\n", cmd, rc, e->out);
	return rc;
}

static struct ini_ctrl *ctrl_up(struct env *e, const char *host, uint32_t nr_io)
{
	struct ini_ctrl *c = NULL;
	struct ini_opts o;

	ini_opts_init(&o);
	o.timeout_ms = Q_TIMEOUT_MS;
	o.depth = 64;
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, host, nr_io, &o, &c), 0);
	return c;
}

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

static void worker_start(struct worker *w, struct ini_queue *q, unsigned id,
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
static unsigned workers_on(struct worker *w, struct ini_ctrl *c, unsigned id0,
			   const struct nsg *only, unsigned rounds)
{
	for (uint32_t i = 0; i < c->nr_io; i++)
		worker_start(&w[i], c->io[i], id0 + i, only, rounds);
	return c->nr_io;
}

/* Wait until each of @n workers did @min rounds (or ended); false at the deadline. */
static bool workers_wait_rounds(struct worker *w, unsigned n, unsigned min)
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
static bool workers_wait_finished(struct worker *w, unsigned n)
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
static void workers_join(struct worker *w, unsigned n, bool stop)
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
static void workers_check_ok(struct worker *w, unsigned n, const char *what)
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

/* ---- What bloxctl says ---- */

static json_object *ctl_json(struct env *e, const char *cmd)
{
	json_object *o;

	assert_int_equal(ctl(e, "--json %s", cmd), 0);
	o = json_tokener_parse(e->out);
	if (!o)
		fprintf(stderr, "not JSON: %s\n", e->out);
	assert_non_null(o);
	return o;
}

static uint64_t jnum(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no %s in %s", key, json_object_to_json_string(o));
	return (uint64_t)json_object_get_int64(v);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v))
		fail_msg("no %s in %s", key, json_object_to_json_string(o));
	return json_object_get_string(v);
}

/* The controllers of SUBNQN (a reference the caller puts). */
static json_object *ctrls(struct env *e, json_object **root)
{
	json_object *arr;

	*root = ctl_json(e, "ctrl list " SUBNQN);
	if (!json_object_object_get_ex(*root, "controllers", &arr))
		return NULL; /* none: an empty repeated field is left out */
	return arr;
}

/*
 * Every queue of every controller of SUBNQN is on reactor qid % N (the
 * admin queue on 0), the I/O queues of controller @cntlid (0: of all)
 * cover the reactors in @want (a bit each); bloxctl status says N reactors,
 * each with its queues.
 */
static void check_placement(struct env *e, uint16_t cntlid, uint32_t want)
{
	json_object *root, *arr = ctrls(e, &root), *st, *rq;
	uint32_t seen = 0;
	size_t n;

	assert_non_null(arr);
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *c = json_object_array_get_idx(arr, i), *qs;
		bool mine = !cntlid || jnum(c, "cntlid") == cntlid;

		assert_true(json_object_object_get_ex(c, "queues", &qs));
		for (size_t k = 0; k < json_object_array_length(qs); k++) {
			json_object *q = json_object_array_get_idx(qs, k);
			uint32_t qid = (uint32_t)jnum(q, "qid"), r = (uint32_t)jnum(q, "reactor");

			if (r != (qid ? qid % e->n : 0))
				fail_msg("controller %llu queue %u on reactor %u, not %u",
					 (unsigned long long)jnum(c, "cntlid"), qid, r,
					 qid ? qid % e->n : 0);
			if (mine && qid)
				seen |= 1u << r;
		}
	}
	json_object_put(root);
	if ((seen & want) != want)
		fail_msg("I/O queues on reactors 0x%x, wanted 0x%x", seen, want);

	st = ctl_json(e, "status");
	assert_int_equal(jnum(st, "reactors"), e->n);
	assert_true(json_object_object_get_ex(st, "reactor_queues", &rq));
	n = json_object_array_length(rq);
	assert_int_equal(n, e->n);
	for (size_t i = 0; i < n; i++)
		if ((want >> i & 1) && !json_object_get_int64(json_object_array_get_idx(rq, i)))
			fail_msg("status: no queue on reactor %zu: %s", i, json_object_to_json_string(st));
	json_object_put(st);
	/* The table says it too. */
	assert_int_equal(ctl(e, "ctrl list " SUBNQN), 0);
	assert_non_null(strstr(e->out, "@r1"));
}

/* Controllers of SUBNQN from @host now. */
static unsigned host_ctrls(struct env *e, const char *host)
{
	json_object *root, *arr = ctrls(e, &root);
	unsigned n = 0;

	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		n += !strcmp(jstr(json_object_array_get_idx(arr, i), "host_nqn"), host);
	json_object_put(root);
	return n;
}

/* Wait until @host has no controller left on SUBNQN. */
static void wait_host_gone(struct env *e, const char *host)
{
	int64_t end = fx_now_ms() + WAIT_MS;

	while (host_ctrls(e, host)) {
		if (fx_now_ms() > end)
			fail_msg("%s still has a controller %d s on: %s", host, WAIT_MS / 1000,
				 e->out);
		fx_sleep_ms(50);
	}
}

/* Shut controller *@c down and free it. */
static void ctrl_down(struct ini_ctrl **c)
{
	int rc = ini_ctrl_shutdown(*c);

	ini_ctrl_destroy(*c);
	*c = NULL;
	assert_int_equal(rc, 0);
}

/* After each test, passed or not: no worker runs, no controller is left. */
static int cleanup(void **state)
{
	struct env *e = *state;

	workers_join(e->wa, MAX_WORKERS, true);
	workers_join(e->wb, MAX_WORKERS, true);
	ini_ctrl_destroy(e->ca);
	ini_ctrl_destroy(e->cb);
	ini_ctrl_destroy(e->cc);
	e->ca = e->cb = e->cc = NULL;
	return 0;
}

/*
 * A new controller of @host, N+1 queues, two verified rounds on every
 * namespace each, in the LBA regions from @id0 (workers e->wb).
 */
static void fresh_ctrl_works(struct env *e, const char *host, unsigned id0)
{
	unsigned n;

	e->cc = ctrl_up(e, host, e->n + 1);
	n = workers_on(e->wb, e->cc, id0, NULL, 2 * NR_NS);
	workers_join(e->wb, n, false);
	workers_check_ok(e->wb, n, host);
	ctrl_down(&e->cc);
}

static uint32_t all_reactors(const struct env *e)
{
	return (1u << e->n) - 1;
}

/* ---- Tests ---- */

/* Two hosts, N+1 I/O queues each (qid % N covers every reactor), verified I/O. */
static void test_io_every_reactor(void **state)
{
	struct env *e = *state;
	unsigned na, nb;

	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n + 1);
	check_placement(e, e->ca->cntlid, all_reactors(e));
	check_placement(e, e->cb->cntlid, all_reactors(e));
	na = workers_on(e->wa, e->ca, 0, NULL, 3 * NR_NS);
	nb = workers_on(e->wb, e->cb, na, NULL, 3 * NR_NS);
	workers_join(e->wa, na, false);
	workers_join(e->wb, nb, false);
	workers_check_ok(e->wa, na, "io A");
	workers_check_ok(e->wb, nb, "io B");
	ctrl_down(&e->ca);
	ctrl_down(&e->cb);
	assert_int_equal(host_ctrls(e, FX_HOST_A) + host_ctrls(e, FX_HOST_B), 0);
}

/*
 * I/O on every namespace from host A's queues (every reactor) while
 * bloxctl creates a namespace, host B's queues (every reactor) write and
 * read it, and bloxctl deletes it: B's I/O ends with an NVMe status, A's
 * goes on without error. A second namespace comes and goes with no I/O.
 */
static void test_ns_create_delete_under_io(void **state)
{
	struct env *e = *state;
	struct worker *wa = e->wa, *wb = e->wb;
	unsigned na;

	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n);
	check_placement(e, e->cb->cntlid, all_reactors(e));
	na = workers_on(wa, e->ca, 0, NULL, 0);
	assert_true(workers_wait_rounds(wa, na, 1));
	for (unsigned it = 0; it < 3; it++) {
		const struct nsg doomed = { DOOMED_NSID + it, 4096, (16u << 20) / 4096 };
		struct ini_ctrl *b = e->cb;
		struct ini_req rd;
		uint8_t buf[4096];
		unsigned nb;

		assert_int_equal(ctl(e, "ns create %s --nsid %u --size 16M --backend ram", SUBNQN,
				     doomed.nsid), 0);
		assert_int_equal(ctl(e, "ns create %s --nsid %u --size 16M --backend %s", SUBNQN,
				     CHURN_NSID, it & 1 ? "nand-timing" : "ram"), 0);
		e->doomed = doomed;
		nb = workers_on(wb, b, na, &e->doomed, 0);
		assert_true(workers_wait_rounds(wb, nb, 1));
		assert_int_equal(ctl(e, "ns delete %s %u --force", SUBNQN, CHURN_NSID), 0);
		assert_int_equal(ctl(e, "ns delete %s %u --force", SUBNQN, doomed.nsid), 0);
		/* B's workers stop at their first error: an NVMe status, no hang. */
		if (!workers_wait_finished(wb, nb))
			fail_msg("I/O to deleted namespace %u still running", doomed.nsid);
		workers_join(wb, nb, false);
		for (unsigned i = 0; i < nb; i++) {
			if (wb[i].rc != -EIO)
				fail_msg("worker on qid %u after the delete of %u: %s",
					 ini_queue_qid(wb[i].q), doomed.nsid, wb[i].why);
			fprintf(stderr, "qid %u: nsid %u deleted: status 0x%x\n",
				ini_queue_qid(wb[i].q), doomed.nsid, wb[i].status);
		}
		/* Its queues are fine: the namespace is just gone. */
		for (uint32_t q = 0; q < b->nr_io; q++) {
			ini_req_rw(&rd, nvme_cmd_read, doomed.nsid, 0, 1, buf, sizeof(buf));
			assert_int_equal(ini_exec(b->io[q], &rd), 0);
			assert_int_equal(INI_SC_CODE(ini_status(&rd.cqe)), NVME_SC_INVALID_NS);
			assert_int_equal(fx_rw_check(b->io[q], 1, nss[0].nblocks - 1 - q, 4096), 0);
		}
		for (unsigned i = 0; i < na; i++)
			if (atomic_load(&wa[i].finished))
				fail_msg("worker on qid %u stopped: %s", ini_queue_qid(wa[i].q),
					 wa[i].why);
	}
	workers_join(wa, na, true);
	workers_check_ok(wa, na, "namespaces under I/O");
	ctrl_down(&e->ca);
	ctrl_down(&e->cb);
}

/*
 * Host B's controller with N-1 I/O queues (qids 1..N-1: reactors 1..N-1)
 * loses its admin connection mid-I/O: bloxd ends the controller and
 * closes those queues (the workers see the connection go or an NVMe
 * status, never a timeout or bad data), host A's I/O goes on, and B gets
 * a new controller that works.
 */
static void test_admin_drop_under_io(void **state)
{
	struct env *e = *state;
	struct worker *wa = e->wa, *wb = e->wb;
	unsigned na, nb;

	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n - 1);
	check_placement(e, e->cb->cntlid, all_reactors(e) & ~1u);
	na = workers_on(wa, e->ca, 0, NULL, 0);
	nb = workers_on(wb, e->cb, na, NULL, 0);
	assert_true(workers_wait_rounds(wb, nb, 1));
	ini_queue_destroy(e->cb->admin);
	e->cb->admin = NULL;
	if (!workers_wait_finished(wb, nb))
		fail_msg("bloxd did not close the I/O queues of a controller whose admin "
			 "connection went");
	workers_join(wb, nb, false);
	for (unsigned i = 0; i < nb; i++) {
		fprintf(stderr, "qid %u after the admin connection went: %s\n",
			ini_queue_qid(wb[i].q), wb[i].why);
		assert_int_not_equal(wb[i].rc, 0);
		assert_int_not_equal(wb[i].rc, -ETIMEDOUT);
		assert_int_not_equal(wb[i].rc, -EILSEQ);
	}
	ini_ctrl_destroy(e->cb);
	e->cb = NULL;
	wait_host_gone(e, FX_HOST_B);
	fresh_ctrl_works(e, FX_HOST_B, na); /* the regions B's first workers had */
	for (unsigned i = 0; i < na; i++)
		if (atomic_load(&wa[i].finished))
			fail_msg("worker on qid %u stopped: %s", ini_queue_qid(wa[i].q), wa[i].why);
	workers_join(wa, na, true);
	workers_check_ok(wa, na, "bystander");
	ctrl_down(&e->ca);
}

/*
 * Host C's controller with a 1 s keep-alive timeout and N-1 I/O queues
 * (reactors 1..N-1) does verified I/O on them, then stays silent: bloxd
 * ends it when the timeout expires and closes every one of its
 * connections, the I/O queues on the other reactors too; C connects again.
 */
static void test_kato_expiry_closes_queues(void **state)
{
	struct env *e = *state;
	struct ini_ctrl_args a;
	uint16_t st = 0;
	unsigned n;

	ini_ctrl_args_init(&a, FX_ADDR, e->fx.d.nvm_port, SUBNQN);
	a.hostnqn = FX_HOST_C;
	a.kato_ms = 1000;
	a.nr_io = e->n - 1;
	a.qopts.timeout_ms = Q_TIMEOUT_MS;
	assert_int_equal(ini_ctrl_connect(&a, &e->cc, &st), 0);
	check_placement(e, e->cc->cntlid, all_reactors(e) & ~1u);
	n = workers_on(e->wb, e->cc, 0, NULL, NR_NS);
	workers_join(e->wb, n, false);
	workers_check_ok(e->wb, n, "before the keep-alive timeout");
	for (uint32_t i = 0; i < e->cc->nr_io; i++)
		if (ini_wait_closed(e->cc->io[i], WAIT_MS))
			fail_msg("I/O queue %u on reactor %u still open %d s after the keep-alive "
				 "timeout", i + 1, (i + 1) % e->n, WAIT_MS / 1000);
	assert_int_equal(ini_wait_closed(e->cc->admin, WAIT_MS), 0);
	ini_ctrl_destroy(e->cc);
	e->cc = NULL;
	wait_host_gone(e, FX_HOST_C);
	fresh_ctrl_works(e, FX_HOST_C, 0);
}

/*
 * bloxperf (two controllers of host C, N+1 queues each: every reactor)
 * killed with SIGKILL mid-I/O: bloxd drops its controllers, host C
 * connects again and its verified I/O works.
 */
static void test_client_killed_under_io(void **state)
{
	struct env *e = *state;
	const char *bin = getenv("BLOXPERF");
	char port[8], queues[8];
	int64_t end = fx_now_ms() + WAIT_MS;
	bool busy = false;
	pid_t pid;
	int st;

	snprintf(port, sizeof(port), "%u", e->fx.d.nvm_port);
	snprintf(queues, sizeof(queues), "%u", e->n + 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execlp(bin && *bin ? bin : "bloxperf", "bloxperf", "-a", FX_ADDR, "-p", port,
		       "-n", SUBNQN, "--hostnqn", FX_HOST_C, "-N", "1", "-q", "16", "-o",
		       "16384", "-w", "randrw", "-Q", queues, "-C", "2", "-t", "120",
		       (char *)NULL);
		_exit(127);
	}
	/* Until every I/O queue of its two controllers has run commands. */
	while (!busy && fx_now_ms() < end && !waitpid(pid, &st, WNOHANG)) {
		json_object *root, *arr = ctrls(e, &root);
		unsigned active = 0;

		for (size_t i = 0; arr && i < json_object_array_length(arr); i++) {
			json_object *c = json_object_array_get_idx(arr, i), *qs;

			if (strcmp(jstr(c, "host_nqn"), FX_HOST_C) ||
			    !json_object_object_get_ex(c, "queues", &qs))
				continue;
			for (size_t k = 0; k < json_object_array_length(qs); k++) {
				json_object *q = json_object_array_get_idx(qs, k);

				active += jnum(q, "qid") && jnum(q, "commands") > 1;
			}
		}
		json_object_put(root);
		busy = active == 2 * (e->n + 1);
		if (!busy)
			fx_sleep_ms(50);
	}
	if (!busy) {
		kill(pid, SIGKILL);
		fx_wait_child(pid, WAIT_MS);
		fail_msg("bloxperf's queues never all ran I/O (or it ended by itself)");
	}
	assert_int_equal(kill(pid, SIGKILL), 0);
	st = fx_wait_child(pid, WAIT_MS);
	assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	wait_host_gone(e, FX_HOST_C);
	assert_true(fx_alive(&e->fx.d));
	fresh_ctrl_works(e, FX_HOST_C, 0);
}

/*
 * SIGTERM with verified I/O running on every reactor: bloxd exits 0
 * (the workers see their connections close, never bad data), and starts
 * again with its reactors.
 */
static void test_sigterm_under_io(void **state)
{
	struct env *e = *state;
	struct fx_start_opts o = { .extra_args = e->fx.group->extra_args };
	struct worker *w = e->wa;
	unsigned n;

	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n + 1);
	n = workers_on(w, e->ca, 0, NULL, 0);
	n += workers_on(w + n, e->cb, n, NULL, 0);
	assert_true(workers_wait_rounds(w, n, 1));
	assert_int_equal(fx_stop(&e->fx.d), 0);
	if (!workers_wait_finished(w, n))
		fail_msg("I/O still running after bloxd stopped");
	workers_join(w, n, false);
	for (unsigned i = 0; i < n; i++) {
		assert_int_not_equal(w[i].rc, 0);
		assert_int_not_equal(w[i].rc, -ETIMEDOUT);
		assert_int_not_equal(w[i].rc, -EILSEQ);
	}
	ini_ctrl_destroy(e->ca);
	ini_ctrl_destroy(e->cb);
	e->ca = e->cb = NULL;
	assert_int_equal(fx_start_opts(&e->fx.d, subsystems, &o), 0);
	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	check_placement(e, e->ca->cntlid, all_reactors(e));
	n = workers_on(w, e->ca, 0, NULL, NR_NS);
	workers_join(w, n, false);
	workers_check_ok(w, n, "after the restart");
	ctrl_down(&e->ca);
}

/* A number of an object bloxctl printed, 0 when absent (proto3 leaves zeroes out). */
static uint64_t jnum0(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

/* The reactor device @name lives on, as device show says. */
static unsigned device_reactor(struct env *e, const char *name)
{
	char cmd[64];
	json_object *o;
	unsigned r;

	snprintf(cmd, sizeof(cmd), "device show %s", name);
	o = ctl_json(e, cmd);
	r = (unsigned)jnum0(o, "reactor");
	json_object_put(o);
	return r;
}

#define RDEV_GEO "--store ram --channels 4 --dies-per-channel 2 --planes 1 --pages-per-block 96 " \
		 "--blocks-per-plane 64 --spare-channel off"

/* Migration @id's state and percent, from migrate status. */
static void mig_state(struct env *e, unsigned id, char *st, size_t len, double *pct)
{
	json_object *o, *arr, *m, *v;
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "migrate status %u", id);
	o = ctl_json(e, cmd);
	assert_true(json_object_object_get_ex(o, "migrations", &arr));
	m = json_object_array_get_idx(arr, 0);
	assert_non_null(m);
	assert_true(json_object_object_get_ex(m, "state", &v));
	snprintf(st, len, "%s", json_object_get_string(v));
	*pct = json_object_object_get_ex(m, "percent", &v) ? json_object_get_double(v) : 0;
	json_object_put(o);
}

/*
 * VSSD_ROUNDS verified rounds per queue on the vSSD while it migrates:
 * the migration starts under them and, written to all along, ends after.
 */
#define VSSD_ROUNDS 12

static void test_vssds_on_device_reactor(void **state)
{
	struct env *e = *state;
	struct worker *wa = e->wa, *wb = e->wb;
	char st[32] = "";
	json_object *o;
	unsigned na, nb, id;
	uint64_t t0;
	double pct = 0;

	/* Placement: the fewest devices, reactor 0 last; pinned; refused. */
	assert_int_equal(ctl(e, "device create rdev " RDEV_GEO), 0);
	assert_int_not_equal(device_reactor(e, "rdev"), 0);
	assert_true(device_reactor(e, "rdev") < e->n);
	assert_int_equal(ctl(e, "device create rpin " RDEV_GEO " --reactor %u", e->n - 1), 0);
	assert_int_equal(device_reactor(e, "rpin"), e->n - 1);
	assert_int_equal(ctl(e, "device delete rpin"), 0);
	assert_int_not_equal(ctl(e, "device create rbad " RDEV_GEO " --reactor %u", e->n), 0);
	assert_non_null(strstr(e->out, "reactor"));

	/* A vSSD under verified I/O from every reactor; every namespace too. */
	assert_int_equal(ctl(e, "ns create %s --nsid %u --size 16M --device rdev --isolation "
			     "channel:1", SUBNQN, VSSD_NSID), 0);
	e->doomed = (struct nsg){ VSSD_NSID, 4096, (16u << 20) / 4096 };
	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n + 1);
	na = workers_on(wa, e->ca, 0, NULL, 0);
	nb = workers_on(wb, e->cb, na, &e->doomed, VSSD_ROUNDS);
	assert_true(workers_wait_rounds(wa, na, 1));
	assert_true(workers_wait_rounds(wb, nb, 1));

	/* It moves to channel 3 online, under that I/O. */
	o = ctl_json(e, "migrate start " SUBNQN " 30 --to-channels 3 --share 1000");
	id = (unsigned)jnum(o, "id");
	json_object_put(o);
	t0 = (uint64_t)fx_now_ms();

	/* Meanwhile other vSSDs on the same device come and go, written and read back. */
	e->cc = ctrl_up(e, FX_HOST_C, e->n + 1);
	for (unsigned it = 0; it < 3; it++) {
		assert_int_equal(ctl(e, "ns create %s --nsid %u --size 8M --device rdev "
				     "--isolation %s", SUBNQN, VSSD_TMP_NSID,
				     it & 1 ? "channel:1" : "chip:1"), 0);
		for (uint32_t q = 0; q < e->cc->nr_io; q++)
			assert_int_equal(fx_rw_check(e->cc->io[q], VSSD_TMP_NSID, 64 * q, 4096), 0);
		assert_int_equal(ctl(e, "ns delete %s %u --force", SUBNQN, VSSD_TMP_NSID), 0);
	}
	ctrl_down(&e->cc);
	mig_state(e, id, st, sizeof(st), &pct);
	fprintf(stderr, "vSSD churn done; the migration: %s at %.1f%%\n", st, pct);
	while (strcmp(st, "done") && (uint64_t)fx_now_ms() - t0 < 3 * WAIT_MS) {
		usleep(100 * 1000);
		mig_state(e, id, st, sizeof(st), &pct);
	}
	fprintf(stderr, "migration of the vSSD under I/O: %s at %.1f%% after %llu ms\n", st, pct,
		(unsigned long long)((uint64_t)fx_now_ms() - t0));
	assert_string_equal(st, "done");
	if (!workers_wait_finished(wb, nb))
		fail_msg("vSSD workers still running");
	for (unsigned i = 0; i < na; i++)
		if (atomic_load(&wa[i].finished))
			fail_msg("worker on qid %u stopped: %s", ini_queue_qid(wa[i].q), wa[i].why);
	workers_join(wa, na, true);
	workers_join(wb, nb, false);
	workers_check_ok(wa, na, "namespaces beside the vSSDs");
	workers_check_ok(wb, nb, "the vSSD migrated under I/O");
	/* It serves from its new channel. */
	e->cc = ctrl_up(e, FX_HOST_C, 1);
	assert_int_equal(fx_rw_check(e->cc->io[0], VSSD_NSID, 7, 4096), 0);
	ctrl_down(&e->cc);
	ctrl_down(&e->ca);
	ctrl_down(&e->cb);
	assert_int_equal(ctl(e, "ns delete %s %u --force", SUBNQN, VSSD_NSID), 0);
	assert_int_equal(ctl(e, "device delete rdev"), 0);
}

/*
 * A device pinned to the last reactor, in the state file, and bloxd
 * started again with one reactor: it starts (the device placed on reactor
 * 0, a warning logged) rather than refusing the state it wrote itself.
 */
static void test_pinned_past_reactors(void **state)
{
	struct env *e = *state;
	char dir[] = "/tmp/bloxd-reactors-XXXXXX", log[sizeof(dir) + 8], sock[sizeof(dir) + 8];
	char nvm[32], disc[32], nr[8], line[512];
	uint16_t pn = fx_free_port(FX_ADDR), pd;
	const char *argv[] = { "-l", nvm, "-D", disc, "--data-dir", dir, "--admin-socket", sock,
			       "--reactors", nr, NULL };
	struct fx_start_opts o = { .extra_args = e->fx.group->extra_args };
	bool warned = false;
	FILE *f;

	do
		pd = fx_free_port(FX_ADDR);
	while (pd == pn);
	assert_non_null(mkdtemp(dir));
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(nvm, sizeof(nvm), "%s:%u", FX_ADDR, pn);
	snprintf(disc, sizeof(disc), "%s:%u", FX_ADDR, pd);
	snprintf(nr, sizeof(nr), "%u", e->n);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	assert_int_equal(fx_start_argv_log(&e->fx.d, argv, log, FX_ADDR, pn, pd), 0);
	assert_int_equal(ctl(e, "device create rpin " RDEV_GEO " --reactor %u", e->n - 1), 0);
	assert_int_equal(device_reactor(e, "rpin"), e->n - 1);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	/* The same command line but --reactors 1. */
	snprintf(nr, sizeof(nr), "1");
	assert_int_equal(fx_start_argv_log(&e->fx.d, argv, log, FX_ADDR, pn, pd), 0);
	assert_int_equal(device_reactor(e, "rpin"), 0);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	f = fopen(log, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		warned |= strstr(line, "pinned to reactor") != NULL;
	fclose(f);
	assert_true(warned);
	snprintf(line, sizeof(line), "rm -rf %s", dir);
	assert_int_equal(system(line), 0);
	/* The group's bloxd again, as the next test expects it. */
	assert_int_equal(fx_start_opts(&e->fx.d, subsystems, &o), 0);
}

static const struct CMUnitTest tests[] = {
	cmocka_unit_test_teardown(test_io_every_reactor, cleanup),
	cmocka_unit_test_teardown(test_ns_create_delete_under_io, cleanup),
	cmocka_unit_test_teardown(test_admin_drop_under_io, cleanup),
	cmocka_unit_test_teardown(test_kato_expiry_closes_queues, cleanup),
	cmocka_unit_test_teardown(test_client_killed_under_io, cleanup),
	cmocka_unit_test_teardown(test_vssds_on_device_reactor, cleanup),
	cmocka_unit_test_teardown(test_sigterm_under_io, cleanup),
	cmocka_unit_test_teardown(test_pinned_past_reactors, cleanup),
	FX_TEST_DAEMON_STOPS_CLEANLY,
};

int main(void)
{
	struct fx_group g = { .who = "test_reactors", .subsystems = subsystems,
			      .size = sizeof(struct env), .setup = env_setup };
	int rc;

	g.extra_args = args2;
	rc = FX_MAIN(&g, tests);
	if (rc)
		return rc;
	g.extra_args = args4;
	return FX_MAIN(&g, tests);
}
