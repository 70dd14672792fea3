/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What integration_faults and integration_faults_path share: their
 * fixture (bloxd with one host connected, bloxctl's output), bloxctl
 * run through it, the faults it lists, a host's drop, the bad-input table.
 */
#ifndef FAULTS_COMMON_H
#define FAULTS_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "fixture.h"

#define BLK 4096u

struct faults_fx {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	const char *nqn; /* the subsystem the default host is connected to */
	struct ini_ctrl *c; /* the initiator's default host */
	uint8_t buf[64 * BLK];
	char out[65536];
};

/* The group's set-up: the default host connected to @subnqn with one I/O queue. */
int faults_fx_setup(struct faults_fx *f, const char *subnqn);
void faults_fx_teardown(void *arg);

/* The cmocka group of a program whose set-up is @setup (it calls faults_fx_setup()). */
#define FAULTS_GROUP(subs, setup_fn)                                                        \
	{ .subsystems = (subs), .own_data_dir = true, .size = sizeof(struct faults_fx),   \
	  .setup = (setup_fn), .teardown = faults_fx_teardown }

/* bloxctl with these arguments; its output in f->out, its exit code returned. */
int ctl(struct faults_fx *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The id in "fault N: ..." (f->out). */
uint32_t injected(struct faults_fx *f);

/* Member @key (a number or a boolean) of fault @id in fault list --json; fails when not listed. */
uint64_t fault_num(struct faults_fx *f, uint32_t id, const char *key);

/* Namespace @nsid's (of f->nqn) member @part.@key (a number) in stats --json; 0 when left out. */
uint64_t ns_stat(struct faults_fx *f, uint32_t nsid, const char *part, const char *key);

/*
 * bloxd stopped and started again on its data directory with @subs, the
 * default host connected again (@setup); then f->out is bloxctl fault list.
 */
void faults_restart(struct faults_fx *f, const char *subs, int (*setup)(void *arg));

/* Read on @c's first I/O queue until its connection is gone (2 s at most); fails if it stays. */
void faults_wait_dropped(struct faults_fx *f, struct ini_ctrl *c);

/* Wait (10 s at most) until fault @id holds @n commands; fails if it does not. */
void faults_wait_held(struct faults_fx *f, uint32_t id, uint64_t n);

/* Whether the target sent anything on @q within @ms. */
bool faults_answers_within(struct ini_queue *q, int ms);

/*
 * After a gc-storm of @victims superblocks on namespace @nsid (of f->nqn),
 * the first in its life, injected when its FTL counted @runs GC runs: wait
 * (10 s at most) until it took them all and they are erased (gc_runs grew
 * by them); fails if it does not.
 */
void faults_wait_storm(struct faults_fx *f, uint32_t nsid, uint64_t victims, uint64_t runs);

/*
 * Device gflash (one channel of two dies, 48 pages a block, 32 blocks a
 * plane) and on it namespace 2 of f->nqn, 4 MiB, isolation chip:2,
 * blocks of @bs bytes (--block-size); written in chunks of
 * 128 KiB, every chunk, then every other one again (the even ones):
 * chunk k written in pass p holds the byte p * 64 + k. Its superblocks
 * are half invalid, ready for a gc-storm.
 */
void faults_gc_prepare(struct faults_fx *f, uint32_t bs);

/*
 * Namespace 2 of f->nqn flushed, then its first gc-storm, of two
 * superblocks: fired at once, its victims taken and erased
 * (faults_wait_storm()); fails the test otherwise.
 */
void faults_gc_storm(struct faults_fx *f);

/* bloxctl arguments that must be refused: the exit code and what it says. */
struct faults_bad {
	const char *args;
	int rc;
	const char *says;
};

/* Each of @bad refused as it says, and no fault added. */
void faults_expect_refused(struct faults_fx *f, const struct faults_bad *bad, size_t n);

/* Block @lba as written in round @r (its LBA and round in every 8 bytes). */
void faults_lba_fill(uint8_t *b, uint32_t lba, uint32_t r);
/* Every LBA of [0, @n) of namespace @nsid holds round @r's data. */
void faults_verify(struct faults_fx *f, uint32_t nsid, uint32_t n, uint32_t r);
/* Round @r written to [0, @n) of namespace @nsid, 32 blocks at a time, then a Flush. */
void faults_write_round(struct faults_fx *f, uint32_t nsid, uint32_t n, uint32_t r);

#endif
