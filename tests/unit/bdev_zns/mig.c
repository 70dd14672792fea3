/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_bdev_zns: die migrations of the zoned backend (bdev_zns_mig.c) on a
 * shared four-die device with the model's timing, the namespace on dies 0
 * and 1: data read and written (a zone reset too) while die 1 moves to
 * die 3, each row routed to the die it is on, the old die erased; a
 * cancel; crash images in the middle of the move and of its cancel,
 * resumed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bdev_zns.h"
#include "blox_util.h"
#include "zns_test.h"

/* The zoned namespace on dies @d0, @d1 of the shared device; @mig: a migration to resume. */
static void mig_make(struct ctx *c, uint32_t d0, uint32_t d1, const struct ftl_resources *mig)
{
	const uint32_t dies[2] = { d0, d1 };
	struct blox_bdev_params p = { .backend = "zns", .block_size = LBA, .shared = c->nd,
				      .dies = dies, .nr_dies = 2, .nr_blocks = 8,
				      .clock = &c->clock, .log = &c->log, .base = c->base,
				      .mig = mig };

	assert_int_equal(blox_bdev_create(&p, &c->cq, &c->bdev), 0);
}

static void mig_open(struct ctx *c)
{
	struct nand_config cfg = c->nand;

	cfg.geo.channels = 2;
	cfg.geo.dies_per_channel = 2;
	cfg.timing.null_timing = false; /* the model's times: the copy takes a while */
	assert_int_equal(blox_nand_dev_open("zmig", &cfg, c->path, c->base, &c->clock, &c->nd), 0);
}

static void mig_setup(struct ctx *c)
{
	blox_bdev_destroy(c->bdev);
	unlink(c->path);
	mig_open(c);
	mig_make(c, 0, 1, NULL);
	wr(c, 0, ZCAP, false); /* Full */
	wr(c, ZSIZE, 45, false); /* a partial page in the buffer */
	wr(c, 2 * ZSIZE, 22, false);
	assert_int_equal(run(c, BLOX_IO_FLUSH, 0, 0, NULL, false, NULL, NULL), 0);
	wr(c, 5 * ZSIZE, 60, true);
}

static void mig_progress(struct ctx *c, struct ftl_migrate_progress *pr, struct ftl_resources *res)
{
	assert_int_equal(blox_bdev_ftl_migrate_progress(c->bdev, pr, res), 0);
}

/* Pages programmed in die @die's blocks of the namespace's rows. */
static uint32_t die_pages(struct ctx *c, uint32_t die)
{
	struct zns_bdev *zb = container_of(c->bdev, struct zns_bdev, base);
	uint32_t n = 0;

	for (uint32_t b = 0; b < zb->geo->blocks_per_plane; b++) {
		struct nand_addr a = { .ch = die / 2, .die = die % 2, .block = b };

		n += zb->store->blocks[nand_block_index(zb->geo, &a)].write_ptr;
	}
	return n;
}

static void mig_wait(struct ctx *c, struct ftl_migrate_progress *pr)
{
	do {
		assert_true(event_base_loop(c->base, EVLOOP_ONCE) >= 0);
		mig_progress(c, pr, NULL);
	} while (pr->state != FTL_MIG_DONE && pr->state != FTL_MIG_PAUSED);
}

static void mig_check_all(struct ctx *c, uint32_t z1_wp)
{
	check(c, 0, ZCAP);
	check(c, ZSIZE, z1_wp);
	check(c, 2 * ZSIZE, 22);
	check(c, 5 * ZSIZE, 60);
}

/*
 * 10. Die 1 moves to die 3 while zone 1 is written and every zone read
 * (each read checked), zone 5 reset and written again: every row routed
 * to the new die once moved, the old one erased, the data there after a
 * restart on the new dies.
 */
void test_mig_io(void **state)
{
	struct ctx *c = *state;
	struct zns_bdev *zb;
	struct ftl_migrate_progress pr;
	struct ftl_resources res;
	uint32_t wp = 45, rounds = 0;
	bool reset = false;

	mig_setup(c);
	zb = container_of(c->bdev, struct zns_bdev, base);
	assert_int_equal(blox_bdev_ftl_migrate(c->bdev, 1, 0, 1000), -EINVAL); /* its own die */
	assert_int_equal(blox_bdev_ftl_migrate(c->bdev, 2, 3, 1000), -ENOENT); /* not its die */
	assert_int_equal(blox_bdev_ftl_migrate(c->bdev, 1, 3, 1000), 0);
	assert_int_equal(blox_bdev_ftl_migrate(c->bdev, 0, 2, 1000), -EBUSY);
	mig_progress(c, &pr, &res);
	assert_int_equal(pr.state, FTL_MIG_RUNNING);
	assert_true(res.mig_active);
	assert_int_equal(res.mig_src, 1);
	assert_int_equal(res.dies[1], 3);
	assert_true(pr.bytes_total > 0);
	while (pr.state == FTL_MIG_RUNNING) {
		/* Rows moved so far are read from die 3, the others from die 1. */
		for (uint32_t r = 0; r < zb->nr_rows; r++)
			assert_int_equal(zb_die_of(zb, r, 1), zb->mig.at_dst[r] ? 3u : 1u);
		assert_int_equal(zb_die_of(zb, 0, 0), 0);
		if (wp + 3 <= ZCAP) {
			wr(c, ZSIZE + wp, 3, (rounds % 4) == 0);
			wp += 3;
		}
		mig_check_all(c, wp);
		if (!reset && pr.sbs_copied >= 2) {
			assert_int_equal(zmgmt(c, 5 * ZSIZE, ZNS_ACT_RESET, false, NULL), 0);
			wr(c, 5 * ZSIZE, 60, false);
			reset = true;
		}
		rounds++;
		mig_progress(c, &pr, NULL);
	}
	mig_progress(c, &pr, &res);
	assert_int_equal(pr.state, FTL_MIG_DONE);
	assert_int_equal(pr.status, 0);
	assert_true(rounds > 1); /* I/O ran during the move */
	assert_true(reset);
	assert_false(res.mig_active);
	assert_int_equal(res.dies[1], 3);
	assert_int_equal(pr.sbs_copied, pr.sbs_total);
	assert_int_equal(pr.bytes_copied, pr.bytes_total);
	assert_int_equal(die_pages(c, 1), 0); /* the old die erased: free to give out */
	assert_true(die_pages(c, 3) > 0);
	mig_check_all(c, wp);
	blox_bdev_destroy(c->bdev);
	mig_make(c, 0, 3, NULL);
	mig_check_all(c, wp);
	assert_int_equal(zone(c, 1).wp, ZSIZE + wp);
}

/*
 * 11. A bad block on the new die refuses the move; a cancel half way: the
 * rows moved go back, the new die erased, the data where it was.
 */
void test_mig_cancel(void **state)
{
	struct ctx *c = *state;
	struct ftl_migrate_progress pr;
	struct ftl_resources res;

	struct zns_bdev *zb;
	struct nand_addr bad = { .ch = 1, .die = 1, .block = 5 };
	uint32_t *flags;

	mig_setup(c);
	/* A bad block on the new die in the namespace's rows: refused, nothing moved. */
	zb = container_of(c->bdev, struct zns_bdev, base);
	flags = &zb->store->blocks[nand_block_index(zb->geo, &bad)].flags;
	*flags |= NAND_BLOCK_BAD;
	assert_int_equal(blox_bdev_ftl_migrate(c->bdev, 1, 3, 1000), -EOPNOTSUPP);
	*flags &= ~(uint32_t)NAND_BLOCK_BAD;
	mig_progress(c, &pr, NULL);
	assert_int_equal(pr.state, FTL_MIG_NONE);
	assert_int_equal(blox_bdev_ftl_migrate(c->bdev, 1, 3, 1000), 0);
	do {
		assert_true(event_base_loop(c->base, EVLOOP_ONCE) >= 0);
		mig_progress(c, &pr, NULL);
	} while (pr.sbs_copied < 2);
	assert_int_equal(pr.state, FTL_MIG_RUNNING);
	assert_int_equal(blox_bdev_ftl_migrate_ctl(c->bdev, BLOX_MIG_CANCEL, 0), 0);
	mig_progress(c, &pr, &res);
	assert_int_equal(pr.state, FTL_MIG_CANCELLING);
	assert_true(res.mig_cancel);
	mig_wait(c, &pr);
	assert_int_equal(pr.state, FTL_MIG_DONE);
	assert_int_equal(pr.status, -ECANCELED);
	mig_progress(c, &pr, &res);
	assert_int_equal(res.dies[1], 1);
	assert_int_equal(die_pages(c, 3), 0);
	mig_check_all(c, 45);
}

/*
 * 12. A crash in the middle (the store file as it was, the backend never
 * stopped), forward and while cancelling: given its migration back, the
 * namespace finds each row on the die that holds it, finishes the move
 * and has all its durable data.
 */
void test_mig_crash(void **state)
{
	struct ctx *c = *state;
	struct ftl_migrate_progress pr;
	struct ftl_resources res;
	char copy[80], cmd[200];

	mig_setup(c);
	assert_int_equal(run(c, BLOX_IO_FLUSH, 0, 0, NULL, false, NULL, NULL), 0);
	assert_int_equal(blox_bdev_ftl_migrate(c->bdev, 1, 3, 1000), 0);
	for (uint32_t cancel = 0; cancel < 2; cancel++) {
		uint32_t d1;

		do {
			assert_true(event_base_loop(c->base, EVLOOP_ONCE) >= 0);
			mig_progress(c, &pr, &res);
		} while (pr.sbs_copied < 2 - cancel);
		assert_true(pr.state == FTL_MIG_RUNNING || pr.state == FTL_MIG_CANCELLING);
		snprintf(copy, sizeof(copy), "%s.crash", c->path);
		snprintf(cmd, sizeof(cmd), "cp --sparse=always %s %s", c->path, copy);
		assert_int_equal(system(cmd), 0);
		blox_bdev_destroy(c->bdev);
		blox_nand_dev_put(c->nd);
		assert_int_equal(rename(copy, c->path), 0);
		mig_open(c);
		d1 = res.dies[1];
		mig_make(c, 0, d1, &res);
		mig_check_all(c, 44); /* the buffered LBA of zone 1 was flushed before */
		if (!cancel)
			assert_int_equal(blox_bdev_ftl_migrate_ctl(c->bdev, BLOX_MIG_CANCEL, 0),
					 0);
	}
	mig_wait(c, &pr);
	assert_int_equal(pr.status, -ECANCELED);
	assert_int_equal(die_pages(c, 3), 0);
	mig_check_all(c, 45);
}

/*
 * 13. A migration reaches a row whose erase waits for the non-deterministic
 * window (a reset in a DTWIN, bdev_zns_plm.c): the row is erased before
 * it moves (the operator's migration is not deferred); the data of the
 * other zones moves, the reset zone stays Empty and writes again.
 */
void test_mig_plm(void **state)
{
	struct ctx *c = *state;
	const uint32_t dies[2] = { 0, 1 };
	struct blox_bdev_params p = { .backend = "zns", .block_size = LBA, .shared = NULL,
				      .dies = dies, .nr_dies = 2, .nr_blocks = 8,
				      .clock = &c->clock, .log = &c->log, .base = c->base,
				      .size = 4ull * ZSIZE * LBA };
	struct blox_bdev_plm_config cfg = { .enable = true };
	struct ftl_migrate_progress pr;
	struct zns_bdev *zb;
	uint64_t retry;
	uint32_t row;

	blox_bdev_destroy(c->bdev);
	unlink(c->path);
	mig_open(c);
	p.shared = c->nd;
	assert_int_equal(blox_bdev_create(&p, &c->cq, &c->bdev), 0);
	zb = container_of(c->bdev, struct zns_bdev, base);
	wr(c, 0, 20, true);
	wr(c, ZSIZE, 24, true);
	row = zb->zones[0].row;
	assert_int_equal(blox_bdev_plm_config(c->bdev, &cfg), 0);
	/* With the model's times a DTWIN waits for NDWIN's minimum (an erase). */
	while (blox_bdev_plm_window(c->bdev, BLOX_PLM_DTWIN, &retry) == -EAGAIN)
		usleep((useconds_t)(retry / 1000 + 1));
	assert_int_equal(zmgmt(c, 0, ZNS_ACT_RESET, false, NULL), 0);
	assert_int_equal(zb->plm.rows[row], ZB_ROW_DIRTY);
	assert_int_equal(blox_bdev_ftl_migrate(c->bdev, 1, 3, 1000), 0);
	mig_wait(c, &pr);
	assert_int_equal(pr.state, FTL_MIG_DONE);
	assert_int_equal(zb->plm.rows[row], ZB_ROW_CLEAN);
	assert_int_equal(zb->plm.dirty, 0);
	assert_int_equal(zb->plm.erased_later, 1);
	assert_int_equal(die_pages(c, 1), 0);
	assert_int_equal(zone(c, 0).state, ZNS_EMPTY);
	check(c, ZSIZE, 24);
	wr(c, 0, 8, false);
	check(c, 0, 8);
}
