/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_bdev_zns's shared parts: the test context (a zoned backend on a
 * small NAND device with a store file, on a libevent loop) and the I/O
 * helpers of test_bdev_zns.c that mig.c's migration tests use too.
 */
#ifndef BLOX_TEST_ZNS_H
#define BLOX_TEST_ZNS_H

#include <stdbool.h>
#include <stdint.h>

#include "bdev.h"
#include "blox_clock.h"
#include "blox_log.h"
#include "nand.h"
#include "zns.h"

#define LBA 4096u
#define SLOTS 4u /* 16 KiB pages */
#define ZSIZE 128u /* 2 dies x 12 pages = 24 pages, 2 kept: capacity 88 */
#define ZCAP 88u

struct ctx {
	struct event_base *base;
	struct blox_io_cq cq;
	struct nand_config nand;
	struct blox_clock clock;
	struct blox_log log;
	struct blox_bdev *bdev;
	struct blox_nand_dev *nd; /* the migration tests' shared device */
	char dir[32], path[64];
};

/* A command through the loop until it completes: its status (-EINVAL: *@nvme has why). */
int run(struct ctx *c, enum blox_io_op op, uint64_t lba, uint32_t nlb, void *buf, bool fua,
	uint16_t *nvme, uint64_t *result);
int zmgmt(struct ctx *c, uint64_t zslba, enum zns_action act, bool all, uint16_t *nvme);
/* Write @nlb LBAs at @lba with the pattern check() expects there. */
void wr(struct ctx *c, uint64_t lba, uint32_t nlb, bool fua);
void check(struct ctx *c, uint64_t lba, uint32_t nlb);
/* Zone @z's descriptor. */
struct blox_bdev_zone zone(struct ctx *c, uint32_t z);
/* The backend made again over @path (a restart). */
void make(struct ctx *c, const char *path, uint32_t max_open);
/* The store file as a crash would leave it now, and the backend made from it. */
void crash(struct ctx *c);

/* dieoff.c */
void test_dieoff(void **state);
void test_dieoff_other(void **state);

/* mig.c */
void test_mig_io(void **state);
void test_mig_cancel(void **state);
void test_mig_crash(void **state);
void test_mig_plm(void **state);

/* plm.c */
void test_plm_windows(void **state);
void test_plm_defer(void **state);
void test_plm_excursion(void **state);
void test_plm_limits(void **state);
void test_plm_restart(void **state);
void test_plm_power_cut(void **state);

#endif
