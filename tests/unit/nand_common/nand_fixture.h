/*
 * Shared harness for the NAND unit tests (test_nand: geometry, rules and
 * store access; test_nand_engine: timing, suspension, priorities,
 * multi-plane groups, null timing, telemetry): a device with or without a
 * RAM store, a completion recorder that checks completions never come from
 * inside nand_submit() nor nest, op set-up, virtual-time stepping, and the
 * literal timings the expected completion times are worked out from:
 *   tR 56/65/74 us, tPROG 1.2/2/3 ms, tBERS 10 ms, tSUSPEND = tRESUME = 20 us,
 *   xfer(16 KiB) = 500 + 16384 * 1000 / 2000 = 8692 ns,
 *   xfer(4 KiB) = 500 + 2048 = 2548 ns, xfer(2 x 16 KiB) = 500 + 16384 = 16884 ns.
 *
 * Header-only (static inline functions): each test program includes it once.
 */
#ifndef BLOX_TEST_NAND_FIXTURE_H
#define BLOX_TEST_NAND_FIXTURE_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine_internal.h"
#include "nand.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_REC 64

/* Literal timings (see the top comment). */
#define TR0 56000ull
#define XFER 8692ull /* one 16 KiB page */
#define RD0 (TR0 + XFER) /* 64692: die time of an LSB page read */
#define TPROG0 1200000ull
#define TBERS 10000000ull
#define TSUS 20000ull

/* ---- harness ---- */

struct fx {
	struct nand_config cfg;
	struct nand_store *store;
	struct nand_dev *dev;
	uint32_t n; /* completions seen */
	struct nand_op *order[MAX_REC];
	uint64_t when[MAX_REC];
	bool in_submit; /* set around nand_submit() */
	bool in_cb;
	uint32_t nested; /* callbacks entered while inside one */
	/* Closed-loop chain: the callback resubmits while chain > 0. */
	uint32_t chain;
};

static inline void rec_cb(struct nand_op *op)
{
	struct fx *f = op->cb_arg;

	if (f->in_submit)
		fail_msg("completion callback inside nand_submit()");
	if (f->in_cb)
		f->nested++;
	f->in_cb = true;
	if (f->n < MAX_REC) {
		f->order[f->n] = op;
		f->when[f->n] = op->done_ns;
	}
	f->n++;
	if (f->chain) {
		f->chain--;
		f->in_submit = true;
		assert_int_equal(nand_submit(f->dev, op, op->done_ns), 0);
		f->in_submit = false;
	}
	f->in_cb = false;
}

static inline void fx_init(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	nand_config_default(&f->cfg);
}

/* A small geometry for tests that touch the store. */
static inline void small_geo(struct nand_geometry *g)
{
	*g = (struct nand_geometry){
		.channels = 2,
		.dies_per_channel = 2,
		.planes_per_die = 2,
		.blocks_per_plane = 4,
		.pages_per_block = 6,
		.page_size = 4096,
		.oob_size = 64,
		.cell = NAND_TLC,
	};
}

/*
 * Devices and stores alive in the running test; the teardown frees what a
 * failed assertion (a longjmp out of the test) left behind, so ASan stays
 * quiet about failures.
 */
static struct {
	struct nand_dev *dev;
	struct nand_store *store;
} live[4];

static inline void fx_create(struct fx *f, bool with_store)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(live) && (live[i].dev || live[i].store); i++)
		;
	assert_true(i < ARRAY_SIZE(live));
	if (with_store)
		assert_int_equal(nand_store_ram_open(&f->cfg.geo, &f->store), 0);
	live[i].store = f->store;
	assert_int_equal(nand_dev_create(&f->cfg, f->store, &f->dev), 0);
	live[i].dev = f->dev;
}

static inline void fx_destroy(struct fx *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (live[i].dev == f->dev && live[i].store == f->store)
			live[i].dev = NULL, live[i].store = NULL;
	nand_dev_destroy(f->dev);
	nand_store_close(f->store);
	f->dev = NULL;
	f->store = NULL;
}

static inline int teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(live); i++) {
		nand_dev_destroy(live[i].dev);
		nand_store_close(live[i].store);
		live[i].dev = NULL;
		live[i].store = NULL;
	}
	return 0;
}

static inline void op_init(struct fx *f, struct nand_op *op, enum nand_op_kind kind,
		    enum nand_prio prio, uint32_t ch, uint32_t die, uint32_t block,
		    uint32_t page)
{
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->prio = prio;
	op->addr = (struct nand_addr){ ch, die, 0, block, page };
	op->timing_only = true;
	op->cb = rec_cb;
	op->cb_arg = f;
}

static inline int submit(struct fx *f, struct nand_op *op, uint64_t now)
{
	int rc;

	f->in_submit = true;
	rc = nand_submit(f->dev, op, now);
	f->in_submit = false;
	return rc;
}

/* Deliver every event up to and including @t (virtual time). */
static inline void run_to(struct fx *f, uint64_t t)
{
	uint64_t e;

	while ((e = nand_next_event(f->dev)) <= t)
		nand_advance(f->dev, e);
}

static inline void run_all(struct fx *f)
{
	run_to(f, UINT64_MAX - 1);
	assert_int_equal(nand_next_event(f->dev), UINT64_MAX);
	assert_int_equal(nand_inflight(f->dev), 0);
}

static inline void expect_done(const struct nand_op *op, int status, uint64_t done)
{
	if (op->status != status || op->done_ns != done)
		fail_msg("op kind %d prio %d ch %u die %u page %u: status %d done %llu, "
			 "want status %d done %llu",
			 op->kind, op->prio, op->addr.ch, op->addr.die, op->addr.page,
			 op->status, (unsigned long long)op->done_ns, status,
			 (unsigned long long)done);
}

static inline void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

/* A data op on the small geometry's RAM store. */
static inline void data_op(struct fx *f, struct nand_op *op, enum nand_op_kind kind,
		    uint32_t block, uint32_t page, void *data, void *oob)
{
	op_init(f, op, kind,
		kind == NAND_OP_READ ? NAND_PRIO_HOST_READ :
		kind == NAND_OP_PROGRAM ? NAND_PRIO_HOST_WRITE : NAND_PRIO_ERASE,
		1, 0, block, page);
	op->addr.plane = 1;
	op->timing_only = false;
	op->data = data;
	op->oob = oob;
}

static inline uint64_t blk_idx(const struct fx *f, uint32_t block)
{
	struct nand_addr a = { 1, 0, 1, block, 0 };

	return nand_block_index(&f->cfg.geo, &a);
}

#endif
