/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_durability share: a round's settings, the run
 * (the daemon, the queues and the model of every LBA), the block pattern,
 * and the steps of a cycle: start bloxd, load it, verify what it kept.
 */
#ifndef BLOX_TEST_DURABILITY_H
#define BLOX_TEST_DURABILITY_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:durability"
#define BLK 4096u
#define NLBA (64u * 1024 * 1024 / BLK)
#define HOT_LBAS (NLBA / 8) /* half the writes go here: many versions */
#define MAX_NLB 16u /* 64 KiB */
#define MAX_QD 32
#define NR_QUEUES 2
#define VERIFY_QD 16
#define MAGIC 0xb10cd0a7u
#define Q_TIMEOUT_MS 30000 /* longer than any sane latency: a hang */
#define AT_KILL UINT64_MAX /* hist entry of a write in flight at a kill */
#define MAX_REPORT 16

struct round {
	const char *name;
	bool null_timing;
	bool fua_only; /* no Flush; every write is FUA */
	uint32_t cycles;
	uint32_t qd; /* per I/O queue */
	int load_min_ms, load_max_ms; /* the kill comes in this window */
	int budget_ms; /* no new cycle after this much time */
	/*
	 * The crash is a power cut of the namespace (bloxctl fault
	 * power-cut) instead of kill -9: bloxd stays up, the host reconnects.
	 */
	bool power_cut;
	/*
	 * The namespace's power-loss protection hold-up (ftl.plp_ms; 0: off):
	 * with it every completed write is durable, as a FUA write is.
	 */
	uint32_t plp_ms;
};

/* A write that completed after the last durable point, or was in flight
 * at a kill: it may be what an LBA holds. */
struct hent {
	uint32_t id;
	uint64_t cseq; /* completion number, AT_KILL if none */
};

struct hist {
	uint32_t n, cap;
	struct hent *e;
};

/* What the test knows of each write (diagnostics). */
struct wrec {
	uint32_t slba;
	uint16_t nlb;
	uint16_t cycle;
	bool fua, done, at_kill;
	uint64_t cseq;
};

struct slot {
	struct ini_req r;
	uint8_t *buf;
	bool busy, flush;
	uint32_t id; /* write id */
	uint64_t mark; /* flush: write completions before it was sent */
};

struct run {
	const struct round *rd;
	uint64_t seed, pat_seed;
	char dir[64], log[96];
	char subsystems[1024]; /* the config's "subsystems" */
	struct fx_daemon d;
	bool started;
	struct ini_ctrl *c;
	struct slot slots[NR_QUEUES][MAX_QD];
	/* The model. */
	uint32_t dur[NLBA]; /* durable write id; 0: zeroes */
	uint32_t cur[NLBA]; /* latest content as far as known */
	uint8_t busy[NLBA]; /* a write in flight covers it */
	struct hist hist[NLBA];
	struct wrec *w;
	uint32_t nr_w, cap_w; /* write ids are 1..nr_w */
	uint64_t cseq; /* write completions so far */
	uint64_t flushed_mark; /* mark of the last completed flush */
	uint32_t cycle;
	uint32_t idle_kills; /* crashes after the load drained, so far */
	bool ok;
	/* Totals. */
	uint64_t t_writes, t_bytes, t_flushes, t_fua, t_at_kill;
	uint64_t t_verified_durable, t_verified_later, t_restart_ms;
};

struct load_stats {
	uint64_t writes, bytes, flushes, at_kill;
	int ms;
	bool idle_kill; /* drained, then a pause, then the kill */
};

struct verify_stats {
	uint32_t durable; /* non-zero durable data read back */
	uint32_t later; /* a write newer than the durable one */
	uint32_t zero; /* zeroes, and nothing was ever durable */
	uint32_t bad;
};

/* The header of every block written, before its seeded pattern. */
struct blk_hdr {
	uint32_t magic;
	uint32_t id;
	uint64_t lba;
};

/* ---- the model (durability_model.c) ---- */

/* Block @lba of write @id: its header, then the pattern of (@id, @lba). */
void fill_block(const struct run *r, uint8_t *b, uint32_t id,
		uint64_t lba);
/* Write @id (completed as number @cseq, or AT_KILL) may be what is held. */
void hist_add(struct hist *h, uint32_t id, uint64_t cseq);
/* A Flush sent after @mark write completions has completed: the last of
 * those to each LBA is durable. */
void model_flushed(struct run *r, uint64_t mark);
/* Write @id completed: its LBAs hold it now, durable or not yet. */
void model_write_done(struct run *r, uint32_t id);
/* After a verify in flush mode, and a Flush: what was read is durable. */
void model_rebase(struct run *r);
/* A new write id over [@slba, @slba + @nlb), recorded. */
uint32_t new_write(struct run *r, uint32_t slba, uint32_t nlb, bool fua);
/*
 * Read every LBA and check it against the model: @exact, the latest
 * completed write (after a clean stop); else the durable one or one of
 * the later ones that may have survived. What was read becomes cur[].
 */
void verify(struct run *r, bool exact, struct verify_stats *vs);
/* ---- the daemon and the load (durability_load.c) ---- */

/* The last @lines of bloxd.log, on stderr. */
void print_log_tail(const struct run *r, int lines);
/* The config's subsystems: one nand namespace of the round's timing. */
void make_config(struct run *r);
/* A line of the test's own in bloxd.log, to find a cycle in it. */
void log_mark(const struct run *r, const char *what);
/* Start bloxd on the round's data dir and connect; returns ms taken. */
int64_t start_daemon(struct run *r);
/*
 * cmocka set-up and teardown of a round (*state: its struct round): the
 * run, its data dir in /tmp (kept, with bloxd.log, when the round failed)
 * and its seeds ($BLOX_TEST_SEED repeats a run).
 */
int dur_setup(void **state);
int dur_teardown(void **state);
/*
 * The round's cycles, or $BLOX_DURABILITY_CYCLES; either times
 * $BLOX_DURABILITY_SCALE (a factor, 1 when unset: the long form of a
 * round sets a larger one).
 */
uint32_t dur_cycles(const struct round *rd);
/* The round's time budget times $BLOX_DURABILITY_SCALE. */
int dur_budget_ms(const struct round *rd);
/* Connect again to the running bloxd (after a power cut); returns ms taken. */
int64_t reconnect(struct run *r);
/* bloxd failed us at @what (@rc): say so with its log, fail the test. */
void daemon_gone(struct run *r, const char *what, int rc);
/*
 * Random load for a random time in the round's window. @crash: kill -9
 * bloxd (or cut the namespace's power: round.power_cut) at the end, mostly with whatever is in flight, one time in five
 * after draining and a random idle pause (background GC may run then);
 * else stop submitting and drain.
 */
void load(struct run *r, bool crash, struct load_stats *ls);

#endif
