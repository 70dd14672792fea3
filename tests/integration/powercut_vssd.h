/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_powercut_vssd (tests/integration/CMakeLists.txt,
 * powercut_vssd_sources):
 *   test_powercut_vssd.c   a vSSD's cut beside a neighbour at work, the
 *                          refused cuts, the whole device's cut
 *   powercut_vssd_kinds.c  the cut of a vSSD of 512-byte blocks and of a
 *                          zoned vSSD (then its device's)
 *   powercut_vssd_plp.c    the cut of a device with vSSDs with power-loss
 *                          protection and one without
 *   powercut_vssd_load.c   what they share: bloxd with the two subsystems,
 *                          the data each block holds, the hosts' loads
 *                          around a cut, the checks after it
 */
#ifndef BLOX_ITEST_POWERCUT_VSSD_H
#define BLOX_ITEST_POWERCUT_VSSD_H

#include <stdint.h>
#include <sys/types.h>

#include "fixture.h"

#define NQN_A "nqn.2026-12.io.blox:pcut-a"
#define NQN_B "nqn.2026-12.io.blox:pcut-b"
#define BLK 4096u
#define NS_MIB 16u
#define NLBA (NS_MIB * 1024u * 1024u / BLK)
#define FLUSHED 1024u /* LBAs [0, FLUSHED): written, then a Flush */
#define LOOSE 512u /* LBAs [FLUSHED, FLUSHED + LOOSE): written after it, no Flush */
#define OVER 256u /* of the flushed ones, [0, OVER) written again, no Flush */
#define LOAD_LBA 2048u /* the writes in flight at the cut, [LOAD_LBA, NLBA) */
#define QD 8u

/* What a test has: its bloxd (a fresh one per test), bloxctl's last output, a buffer. */
struct pcv {
	struct fx_daemon d;
	char out[8192];
	uint8_t *buf;
};

/* What the neighbour did during a cut. */
struct pcv_nb {
	uint64_t writes, reads, failed;
};

/* cmocka set-up and teardown of each test: bloxd with subsystems NQN_A and NQN_B, no namespace. */
int pcv_setup(void **state);
int pcv_teardown(void **state);

/* bloxctl @fmt... against the test's bloxd, its output in f->out: its exit code. */
int pcv_ctl(struct pcv *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The device the tests' vSSDs live on: 2 channels x 2 dies of RAM-backed flash. */
void pcv_make_device(struct pcv *f);
/* A controller of @nqn with one I/O queue (power comes back at once; a busy machine gets 20 s). */
struct ini_ctrl *pcv_connect_to(struct pcv *f, const char *nqn);
/* The SMART log's Unsafe Shutdowns of namespace 1's controller @c. */
uint64_t pcv_unsafe_shutdowns(struct ini_ctrl *c);

/* Block @lba of namespace @who ('A', 'B') as written the @gen'th time. */
void pcv_pattern(uint8_t *p, char who, uint32_t lba, uint32_t gen);
/* Which generation @p holds of @lba: 0 zeroes, -1 none (garbage or another LBA's). */
int64_t pcv_gen_of(const uint8_t *p, char who, uint32_t lba);
/* [from, from + n) of namespace 1 written with generation @gen of @who's blocks, no Flush. */
void pcv_write_range(struct pcv *f, struct ini_ctrl *c, char who, uint32_t from, uint32_t n,
		     uint32_t gen);
/* The same on namespace @nsid. */
void pcv_write_ns(struct pcv *f, struct ini_ctrl *c, uint32_t nsid, char who, uint32_t from,
		  uint32_t n, uint32_t gen);
/*
 * Read [from, from + n): each LBA must hold generation @want, or (with
 * @alt) @alt, or zeroes when @alt is 0 and @zero_ok. Returns how many held
 * @want.
 */
uint32_t pcv_check_range(struct pcv *f, struct ini_ctrl *c, char who, uint32_t from, uint32_t n,
			 uint32_t want, int64_t alt);
/* The same on namespace @nsid. */
uint32_t pcv_check_ns(struct pcv *f, struct ini_ctrl *c, uint32_t nsid, char who, uint32_t from,
		      uint32_t n, uint32_t want, int64_t alt);
/* The first FLUSHED LBAs of both vSSDs written (generation 1) and flushed. */
void pcv_write_flushed(struct pcv *f, struct ini_ctrl *a, struct ini_ctrl *b);

/* A host writing to the cut vSSD until its connection drops (a child process). */
void pcv_load_until_drop(struct ini_ctrl *c);
/* Start the cut in a child process after @delay_ms: bloxctl's output to @path. */
pid_t pcv_cut_later(struct pcv *f, int delay_ms, const char *path, const char *args);
/*
 * The neighbour's load while @cut runs and @after_ms more: each of QD
 * slots writes a new generation of its own LBAs [LOAD_LBA + slot, ...)
 * and reads it back, every command must succeed, every read match. gens[]
 * keeps each LBA's last generation. Returns @cut's exit code.
 */
int pcv_neighbour_load(struct pcv *f, struct ini_ctrl *c, pid_t cut, int after_ms,
		       uint32_t *gens, struct pcv_nb *st);
/* The cut's answer (bloxctl --json, in @path) printed as @what; it counts unsafe shutdowns. */
void pcv_print_cut(const char *what, const char *path);
/*
 * NQN_A's namespace 1 loses power 300 ms from now while @load (in a child
 * process) writes to it through @a until the connection drops, and its
 * neighbour @b serves pcv_neighbour_load() (@gens, @nb) through the cut
 * and 300 ms after; the cut's answer printed as @what. A new controller
 * of NQN_A, which replaces @a.
 */
struct ini_ctrl *pcv_cut_a(struct pcv *f, struct ini_ctrl *a, void (*load)(struct ini_ctrl *c),
			   struct ini_ctrl *b, uint32_t *gens, struct pcv_nb *nb, const char *what);

/* powercut_vssd_kinds.c */
void test_512_cut(void **state);
void test_zns_cut(void **state);

/* powercut_vssd_plp.c */
void test_device_cut_plp(void **state);

#endif
