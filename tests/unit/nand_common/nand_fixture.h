/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared harness for the NAND unit tests (test_nand: geometry, rules and
 * store access; test_nand_engine: timing, suspension, priorities,
 * multi-plane groups, null timing, telemetry; test_nand_store: the small
 * geometry): a device with or without a RAM store, a completion recorder
 * that checks completions never come from inside nand_submit() nor nest,
 * op set-up, virtual-time stepping, and the literal timings the expected
 * completion times are worked out from:
 *   tR 56/65/74 us, tPROG 1.2/2/3 ms, tBERS 10 ms, tSUSPEND = tRESUME = 20 us,
 *   xfer(16 KiB) = 500 + 16384 * 1000 / 2000 = 8692 ns,
 *   xfer(4 KiB) = 500 + 2048 = 2548 ns, xfer(2 x 16 KiB) = 500 + 16384 = 16884 ns.
 *
 * Built once (nand_fixture.c) as a library the NAND test programs link.
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

/* Zeroed, with the default NAND config. */
void fx_init(struct fx *f);

/* A small geometry for tests that touch the store. */
void fx_small_geo(struct nand_geometry *g);

/*
 * The device of f->cfg, on a RAM store when @with_store. The teardown
 * frees what a failed assertion (a longjmp out of the test) left behind,
 * so ASan stays quiet about failures.
 */
void fx_create(struct fx *f, bool with_store);
void fx_destroy(struct fx *f);
/* cmocka teardown: destroy the devices and stores a failed test left. */
int fx_teardown(void **state);

/* A timing-only op whose completion fx records. */
void fx_op_init(struct fx *f, struct nand_op *op, enum nand_op_kind kind,
		enum nand_prio prio, uint32_t ch, uint32_t die, uint32_t block,
		uint32_t page);
/* nand_submit() at @now, flagged so that a completion inside is caught. */
int fx_submit(struct fx *f, struct nand_op *op, uint64_t now);

/* Deliver every event up to and including @t (virtual time). */
void fx_run_to(struct fx *f, uint64_t t);
/* Deliver everything; nothing may be left in flight. */
void fx_run_all(struct fx *f);

/* @op completed with @status at @done. */
void fx_expect_done(const struct nand_op *op, int status, uint64_t done);

/* A data pattern of @seed. */
void fx_fill(uint8_t *p, size_t n, uint32_t seed);

/* A data op on the small geometry's RAM store. */
void fx_data_op(struct fx *f, struct nand_op *op, enum nand_op_kind kind,
		uint32_t block, uint32_t page, void *data, void *oob);
/* Store index of @block of the plane fx_data_op() uses. */
uint64_t fx_blk_idx(const struct fx *f, uint32_t block);

#endif
