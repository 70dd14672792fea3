/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_reactors (tests/integration/CMakeLists.txt): what its files
 * share.
 *   test_reactors.c     the namespaces, bloxctl and controllers, the tests
 *                       of queues, namespaces and controllers under I/O
 *   reactors_workers.c  verified I/O from a thread per initiator queue
 *   reactors_device.c   NAND devices on reactors of their own
 */
#ifndef BLOX_ITEST_REACTORS_H
#define BLOX_ITEST_REACTORS_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

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

/* The namespaces of the group's bloxd: every backend with data (test_reactors.c). */
#define NR_NS 5
extern const struct nsg nss[NR_NS];
/* Its config's "subsystems". */
extern const char subsystems[];

/* ---- test_reactors.c ---- */

/* bloxctl with @fmt on the group's bloxd, its output in e->out; its exit code. */
int ctl(struct env *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* bloxctl --json @cmd, parsed (json_object_put() it); fails the test if not JSON. */
json_object *ctl_json(struct env *e, const char *cmd);
/* Number @key of @o; fails the test when absent. */
uint64_t jnum(json_object *o, const char *key);
/* A controller of SUBNQN for @host with @nr_io I/O queues; ctrl_down() ends it. */
struct ini_ctrl *ctrl_up(struct env *e, const char *host, uint32_t nr_io);
void ctrl_down(struct ini_ctrl **c);

/* ---- reactors_workers.c ---- */

/* Worker @w started on @q: LBA region @id of @only (NULL: every namespace), @rounds (0: until stopped). */
void worker_start(struct worker *w, struct ini_queue *q, unsigned id, const struct nsg *only,
		  unsigned rounds);
/* One worker per I/O queue of @c, regions from @id0: how many. */
unsigned workers_on(struct worker *w, struct ini_ctrl *c, unsigned id0, const struct nsg *only,
		    unsigned rounds);
/* Wait until each of @n workers did @min rounds (or ended); false at the deadline. */
bool workers_wait_rounds(struct worker *w, unsigned n, unsigned min);
/* Wait until each of @n workers ended by itself; false at the deadline. */
bool workers_wait_finished(struct worker *w, unsigned n);
/* Wait for @n workers to end: @stop them first, or let them do their rounds. */
void workers_join(struct worker *w, unsigned n, bool stop);
/* Every worker ended without an error after doing some rounds. */
void workers_check_ok(struct worker *w, unsigned n, const char *what);

/* ---- reactors_device.c ---- */

void test_vssds_on_device_reactor(void **state);
void test_pinned_past_reactors(void **state);

#endif
