/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to daemon/bdev: logical blocks smaller than the FTL's unit (a
 * 512-byte "512e" namespace on the 4 KiB-mapped FTL, bdev_ftl_sub.c).
 *
 * A command is cut into a head unit it covers in part, whole units, and
 * a tail unit it covers in part. Reads read the partial units into
 * buffers of their own and copy out. Writes, Write Zeroes and
 * deallocates read the partial units first, merge (or zero) the sectors
 * and write the units whole; whole units go straight to the FTL (a trim
 * for the zeroing ones). Every command that stores data holds the units
 * it covers from start to completion: one that overlaps a command
 * holding or waiting for one of its units waits, so overlapping commands
 * take effect in arrival order and a read-modify-write never loses a
 * write that raced it. Reads hold nothing: the FTL writes a unit whole,
 * so a read sees it before or after, never torn.
 *
 * Single-threaded: everything runs on the backend's reactor.
 */
#ifndef BLOX_BDEV_FTL_SUB_H
#define BLOX_BDEV_FTL_SUB_H

#include <stdbool.h>
#include <stdint.h>

#include "bdev.h"
#include "ftl.h"

struct fb_sub;

struct fb_sub_ops {
	/*
	 * Start @fio on the FTL (fio->cb and cb_arg are set): 0, its
	 * completion through fio->cb later, never from inside this call; or
	 * -errno and no completion.
	 */
	int (*submit)(void *ctx, struct ftl_io *fio);
	/*
	 * @io is done, io->status set. @now false: called from inside
	 * fb_sub_submit(), so the callee must defer the completion (the
	 * backend contract); true: from an FTL completion, call it at once.
	 */
	void (*done)(void *ctx, struct blox_io *io, bool now);
};

/* The layer over units [0, @units) with logical blocks of @block_size bytes. 0 or -errno. */
int fb_sub_create(const struct fb_sub_ops *ops, void *ctx, uint32_t block_size,
		  uint64_t units, struct fb_sub **out);
/* No command is in flight. */
void fb_sub_destroy(struct fb_sub *s);
/*
 * Start @io: READ, WRITE (one iovec), WRITE_ZEROES or TRIM, its range
 * checked by the caller (a multiple of the block size, inside the
 * units, not empty). Its completion comes through ops->done.
 */
void fb_sub_submit(struct fb_sub *s, struct blox_io *io);

/*
 * Power was cut: every command with FTL requests in flight (gone with the
 * FTL instance, never to complete) ends now with -EIO, its units let go;
 * commands waiting for units go on, on the FTL the backend has now.
 * Returns how many ended.
 */
uint32_t fb_sub_power_cut(struct fb_sub *s);

/* What the layer did, for tests and statistics. */
struct fb_sub_stats {
	uint64_t rmw_reads; /* partial units read to merge a write or zeroing */
	uint64_t waits; /* commands that waited for an overlapping one */
	uint64_t queued; /* commands that waited for a free context */
};
void fb_sub_get_stats(const struct fb_sub *s, struct fb_sub_stats *st);

#endif
