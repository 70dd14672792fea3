/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the zoned integration tests share (integration_zoned, _zoned_mig,
 * _zoned_plm, _zoned_dieoff, _zoned_faults): the program's struct with a
 * model of what namespace 1 holds, writes that keep the model, reads
 * checked against it, the data a write carries, Report Zones, the
 * Changed Zone List, the zones ns show counts.
 */
#ifndef ZONED_COMMON_H
#define ZONED_COMMON_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fixture.h"

#define LBA 4096u

/* The zoned program's struct; it puts this first in its own. */
struct zfx {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[65536]; /* the last bloxctl's output */
	uint8_t *model; /* what each LBA of nsid 1 holds (zeroes: nothing) */
	uint32_t wid; /* the last write's id, which its data carries */
};

/* bloxctl @args... against the program's bloxd, its output in z->out: its exit code. */
#define zfx_run(z, ...) fx_ctl(&(z)->fx.d, (z)->out, sizeof((z)->out), __VA_ARGS__)

/* The program's set-up (fx_group.setup) calls this: a zeroed model of @lbas LBAs. 0 or -1. */
int zfx_setup(struct zfx *z, uint64_t lbas);
/* fx_group.teardown of a zoned program: the model freed. */
void zfx_teardown(void *arg);
/*
 * The cmocka group of zoned program @name on @subs, whose struct (struct
 * zfx first) is @type, made by @set_up (which calls zfx_setup()); its own
 * data directory, kept across restarts.
 */
#define ZFX_GROUP(name, subs, type, set_up)                                          \
	{ .who = (name), .subsystems = (subs), .own_data_dir = true, .size = sizeof(type), \
	  .setup = (set_up), .teardown = zfx_teardown }

/* @n LBAs of the data write @id puts at @lba. */
void zfx_fill(uint8_t *buf, uint32_t id, uint64_t lba, uint32_t n);
/* A write of @n LBAs of nsid 1 at @lba with fresh data: its status; the model follows a success. */
int zfx_write(struct zfx *z, struct ini_queue *q, uint64_t lba, uint32_t n, bool fua);
/* @n LBAs of nsid 1 from @lba read back as the model has them (fails the test if not). */
void zfx_check(const struct zfx *z, struct ini_queue *q, uint64_t lba, uint32_t n);

/*
 * Report Zones of @nsid from @slba under @filter: the first @n
 * descriptors into @d (NULL: none); the count its header gives.
 */
uint64_t zfx_report(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint8_t filter,
		    struct nvme_zns_desc *d, uint32_t n);
/* The descriptor of @nsid's zone at @zslba. */
struct nvme_zns_desc zfx_zone(struct ini_queue *q, uint32_t nsid, uint64_t zslba);
/*
 * The Changed Zone List (log BFh) of @nsid over admin queue @adm: its
 * count, its first ZSLBA into *@first (@first NULL: not wanted). Reading
 * it clears it for that controller.
 */
uint16_t zfx_changed_zones(struct ini_queue *adm, uint32_t nsid, uint64_t *first);
/* Member @key of "zones" in bloxctl --json ns show @nqn @nsid against @d (0 when left out). */
int64_t zfx_ns_zones(const struct fx_daemon *d, const char *nqn, uint32_t nsid, const char *key);

#endif
