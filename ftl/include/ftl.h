/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ftl/: a DRAM-less page-mapping FTL, one instance per namespace, over
 * the dies (and block range) it is given on an emulated NAND device.
 *
 * Mapping is DFTL: the whole L2P table lives in 4 KiB translation pages
 * on flash; the GTD (translation page -> flash address) is in memory; the
 * CMT caches whole translation pages (LRU) within a byte budget. A mapping
 * descriptor cache (MDC) of run-length-compressed runs of hot regions is
 * consulted before the GTD. Writes are buffered into flash pages per
 * stream (sequential, random, GC, translation), superblocks stripe across
 * the instance's dies, greedy or cost-benefit GC reclaims them, wear
 * leveling evens erase counts, and a checkpoint plus an OOB scan recovers
 * the mapping after any stop.
 *
 * This header gathers the FTL's public API; each part has its own:
 *   ftl_core.h     configuration, resources, I/O, an instance's life;
 *   ftl_stats.h    counters, write amplification, free-space level, GC storms;
 *   ftl_persist.h  what survives a stop, power loss;
 *   ftl_die.h      dies gone offline and back, online die migration;
 *   ftl_fdp.h      Flexible Data Placement;
 *   ftl_plm.h      predictable latency;
 *   ftl_inspect.h  read-only inspection for tests and the simulator.
 */
#ifndef BLOX_FTL_H
#define BLOX_FTL_H

#include "ftl_core.h"
#include "ftl_die.h"
#include "ftl_fdp.h"
#include "ftl_inspect.h"
#include "ftl_persist.h"
#include "ftl_plm.h"
#include "ftl_stats.h"

#endif
