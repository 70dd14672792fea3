/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Power cuts of vSSDs on a registered device (bloxctl fault power-cut;
 * docs/FAULTS.md), seen from hosts over loopback. Two subsystems, each with
 * one software vSSD of the same device (so both write to the same dies):
 * the cut one loses power while a host writes to it, the neighbour serves a
 * write-and-read-back load throughout. After the cut every LBA flushed on
 * the cut vSSD reads back as written (an unflushed one as written or as
 * before), the neighbour saw no failed command and holds everything it
 * wrote, flushed or not, and the SMART log's Unsafe Shutdowns counts the
 * cut on the cut vSSD alone. Then the whole device loses power: both
 * vSSDs are cut and come back, the flushed data of each intact; so with a
 * zoned vSSD on it (write pointers and flushed data as before the cut). A
 * vSSD whose die migration is paused half way is cut and carries on. The
 * cuts that stay refused say why, and cost nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <nvme/types.h>

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

struct fx {
	struct fx_daemon d;
	char out[8192];
	uint8_t *buf;
};

/* Block @lba of namespace @who ('A', 'B') as written the @gen'th time. */
static void pattern(uint8_t *p, char who, uint32_t lba, uint32_t gen)
{
	uint64_t s = ((uint64_t)(uint8_t)who << 56) ^ ((uint64_t)lba << 20) ^ gen ^ 0x9e3779b97f4a7c15ull;

	for (uint32_t i = 0; i < BLK; i += 8) {
		uint64_t v = ini_xorshift(&s);

		memcpy(p + i, &v, 8);
	}
	memcpy(p, &lba, 4);
	memcpy(p + 4, &gen, 4);
	p[8] = (uint8_t)who;
}

/* Which generation @p holds of @lba: 0 zeroes, -1 none (garbage or another LBA's). */
static int64_t gen_of(const uint8_t *p, char who, uint32_t lba)
{
	static uint8_t want[BLK];
	uint32_t l, gen;

	for (uint32_t i = 0; i < BLK; i++)
		if (p[i])
			goto data;
	return 0;
data:
	memcpy(&l, p, 4);
	memcpy(&gen, p + 4, 4);
	if (l != lba || p[8] != (uint8_t)who)
		return -1;
	pattern(want, who, lba, gen);
	return memcmp(want, p, BLK) ? -1 : (int64_t)gen;
}

static int ctl(struct fx *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int ctl(struct fx *f, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return fx_ctl(&f->d, f->out, sizeof(f->out), "%s", cmd);
}

static struct ini_ctrl *connect_to(struct fx *f, const char *nqn)
{
	struct ini_ctrl *c = NULL;
	int rc = -1;

	/* Power comes back at once, but give a busy machine 20 s. */
	for (int i = 0; i < 200 && rc; i++) {
		if (i)
			fx_sleep_ms(100);
		rc = fx_ctrl(&f->d, nqn, NULL, 1, NULL, &c);
	}
	if (rc)
		fail_msg("connect to %s: %d", nqn, rc);
	return c;
}

static uint64_t unsafe_shutdowns(struct ini_ctrl *c)
{
	struct nvme_smart_log sl;
	uint64_t n = 0;

	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_SMART, 0xffffffff, 0, &sl, sizeof(sl)),
			 0);
	for (int i = 7; i >= 0; i--)
		n = n << 8 | sl.unsafe_shutdowns[i];
	return n;
}

static void write_range(struct fx *f, struct ini_ctrl *c, char who, uint32_t from, uint32_t n,
			uint32_t gen)
{
	for (uint32_t lba = from; lba < from + n; lba += 16) {
		uint32_t nlb = (from + n - lba < 16u ? from + n - lba : 16u);

		for (uint32_t k = 0; k < nlb; k++)
			pattern(f->buf + (size_t)k * BLK, who, lba + k, gen);
		assert_int_equal(ini_write(c->io[0], 1, lba, nlb, f->buf, nlb * BLK, false), 0);
	}
}

/*
 * Read [from, from + n): each LBA must hold generation @want, or (with
 * @alt) @alt, or zeroes when @alt is 0 and @zero_ok. Returns how many held
 * @want.
 */
static uint32_t check_range(struct fx *f, struct ini_ctrl *c, char who, uint32_t from, uint32_t n,
			    uint32_t want, int64_t alt)
{
	uint32_t exact = 0;

	for (uint32_t lba = from; lba < from + n; lba += 16) {
		uint32_t nlb = (from + n - lba < 16u ? from + n - lba : 16u);

		assert_int_equal(ini_read(c->io[0], 1, lba, nlb, f->buf, nlb * BLK), 0);
		for (uint32_t k = 0; k < nlb; k++) {
			int64_t g = gen_of(f->buf + (size_t)k * BLK, who, lba + k);

			if (g == (int64_t)want)
				exact++;
			else if (alt < 0 || g != alt)
				fail_msg("%c LBA %u: generation %lld, want %u%s", who, lba + k,
					 (long long)g, want, alt >= 0 ? " or the one before" : "");
		}
	}
	return exact;
}

/* A host writing to the cut vSSD until its connection drops (a child process). */
static void load_until_drop(struct ini_ctrl *c)
{
	static struct ini_req rq[QD];
	static uint8_t bufs[QD][BLK];
	uint64_t s = (uint64_t)getpid();
	struct ini_req *done[QD];
	int64_t t0 = fx_now_ms();

	for (uint32_t i = 0; i < QD; i++) {
		uint32_t lba = LOAD_LBA + (uint32_t)(ini_xorshift(&s) % (NLBA - LOAD_LBA));

		pattern(bufs[i], 'A', lba, 7);
		ini_req_rw(&rq[i], nvme_cmd_write, 1, lba, 1, bufs[i], BLK);
		if (ini_submit(c->io[0], &rq[i]))
			_exit(0);
	}
	while (fx_now_ms() - t0 < 60000) {
		int n = ini_poll(c->io[0], done, QD);

		if (n <= 0)
			_exit(0); /* the drop */
		for (int i = 0; i < n; i++) {
			uint32_t lba = LOAD_LBA + (uint32_t)(ini_xorshift(&s) % (NLBA - LOAD_LBA));

			pattern(done[i]->buf, 'A', lba, 7);
			ini_req_rw(done[i], nvme_cmd_write, 1, lba, 1, done[i]->buf, BLK);
			if (ini_submit(c->io[0], done[i]))
				_exit(0);
		}
	}
	_exit(3); /* never dropped */
}

/* Start the cut in a child process after @delay_ms: bloxctl's output to @path. */
static pid_t cut_later(struct fx *f, int delay_ms, const char *path, const char *args)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char out[4096];
		int rc, fd;

		fx_sleep_ms(delay_ms);
		rc = fx_ctl(&f->d, out, sizeof(out), "fault power-cut %s --json", args);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			(void)!write(fd, out, strlen(out));
			close(fd);
		}
		_exit(rc);
	}
	return pid;
}

struct nb_stats {
	uint64_t writes, reads, failed;
};

/*
 * The neighbour's load while @cut runs and @after_ms more: each of QD
 * slots writes a new generation of its own LBAs [LOAD_LBA + slot, ...)
 * and reads it back, every command must succeed, every read match. gens[]
 * keeps each LBA's last generation. Returns @cut's exit code.
 */
static int neighbour_load(struct fx *f, struct ini_ctrl *c, pid_t cut, int after_ms,
			  uint32_t *gens, struct nb_stats *st)
{
	static struct ini_req rq[QD];
	static uint8_t bufs[QD][BLK];
	uint32_t lba[QD], round[QD] = { 0 };
	bool reading[QD] = { false };
	struct ini_req *done[QD];
	int status = -1;
	int64_t ended = 0;

	(void)f;
	for (uint32_t i = 0; i < QD; i++) {
		lba[i] = LOAD_LBA + i;
		pattern(bufs[i], 'B', lba[i], ++gens[lba[i]]);
		ini_req_rw(&rq[i], nvme_cmd_write, 1, lba[i], 1, bufs[i], BLK);
		rq[i].ctx = (void *)(uintptr_t)i;
		assert_int_equal(ini_submit(c->io[0], &rq[i]), 0);
	}
	for (uint32_t inflight = QD; inflight;) {
		int n = ini_poll(c->io[0], done, QD);

		if (n <= 0)
			fail_msg("the neighbour's queue: %d (its connection dropped?)", n);
		if (!ended && waitpid(cut, &status, WNOHANG) == cut)
			ended = fx_now_ms();
		for (int k = 0; k < n; k++) {
			uint32_t i = (uint32_t)(uintptr_t)done[k]->ctx;

			if (ini_status(&done[k]->cqe)) {
				st->failed++;
				fail_msg("the neighbour's %s of LBA %u failed: status %#x",
					 reading[i] ? "read" : "write", lba[i],
					 ini_status(&done[k]->cqe));
			}
			if (reading[i]) {
				st->reads++;
				if (gen_of(bufs[i], 'B', lba[i]) != gens[lba[i]])
					fail_msg("the neighbour's LBA %u: read %lld, wrote %u", lba[i],
						 (long long)gen_of(bufs[i], 'B', lba[i]), gens[lba[i]]);
				if (ended && fx_now_ms() - ended > after_ms) {
					inflight--;
					continue;
				}
				round[i]++;
				lba[i] = LOAD_LBA + i + QD * (round[i] % ((NLBA - LOAD_LBA) / QD));
				pattern(bufs[i], 'B', lba[i], ++gens[lba[i]]);
				ini_req_rw(&rq[i], nvme_cmd_write, 1, lba[i], 1, bufs[i], BLK);
			} else {
				st->writes++;
				memset(bufs[i], 0, BLK);
				ini_req_rw(&rq[i], nvme_cmd_read, 1, lba[i], 1, bufs[i], BLK);
			}
			reading[i] = !reading[i];
			rq[i].ctx = (void *)(uintptr_t)i;
			assert_int_equal(ini_submit(c->io[0], &rq[i]), 0);
		}
	}
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	f->buf = malloc(16 * BLK);
	if (!f->buf || fx_start(&f->d, "[{\"nqn\": \"" NQN_A "\", \"allow_any_host\": true, "
				       "\"namespaces\": []}, {\"nqn\": \"" NQN_B "\", "
				       "\"allow_any_host\": true, \"namespaces\": []}]")) {
		free(f->buf);
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	int rc = fx_stop(&f->d) ? -1 : 0;

	free(f->buf);
	free(f);
	return rc;
}

/* The device the tests' vSSDs live on: 2 channels x 2 dies of RAM-backed flash. */
static void make_device(struct fx *f)
{
	assert_int_equal(ctl(f, "device create flash --store ram --channels 2 --dies-per-channel 2 "
				"--planes 1 --pages-per-block 96 --blocks-per-plane 64"), 0);
}

/* The first FLUSHED LBAs of both vSSDs written (generation 1) and flushed. */
static void write_flushed(struct fx *f, struct ini_ctrl *a, struct ini_ctrl *b)
{
	write_range(f, a, 'A', 0, FLUSHED, 1);
	write_range(f, b, 'B', 0, FLUSHED, 1);
	assert_int_equal(ini_flush(a->io[0], 1), 0);
	assert_int_equal(ini_flush(b->io[0], 1), 0);
}

static void print_cut(const char *what, const char *path)
{
	char buf[4096] = "";
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		buf[n > 0 ? n : 0] = 0;
		close(fd);
	}
	printf("  %s: %s\n", what, buf);
	assert_non_null(strstr(buf, "\"unsafe_shutdowns\""));
}

/* One vSSD of the device loses power, its neighbour on the same dies serves on. */
static void test_vssd_cut(void **state)
{
	struct fx *f = *state;
	static uint32_t gens[NLBA];
	struct ini_ctrl *a, *b;
	struct nb_stats nb = { 0 };
	char path[128];
	uint64_t us_a, us_b;
	uint32_t exact;
	pid_t load, cut;
	int st;

	make_device(f);
	assert_int_equal(ctl(f, "ns create " NQN_A " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	assert_int_equal(ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	a = connect_to(f, NQN_A);
	b = connect_to(f, NQN_B);
	us_a = unsafe_shutdowns(a);
	us_b = unsafe_shutdowns(b);
	/* Flushed, then more without a Flush, on both. */
	write_flushed(f, a, b);
	write_range(f, a, 'A', FLUSHED, LOOSE, 1);
	write_range(f, a, 'A', 0, OVER, 2);
	write_range(f, b, 'B', FLUSHED, LOOSE, 1);
	write_range(f, b, 'B', 0, OVER, 2);

	/* A host writing to A when the power goes, B's load throughout. */
	load = fork();
	assert_true(load >= 0);
	if (load == 0)
		load_until_drop(a);
	snprintf(path, sizeof(path), "%s/cut.json", f->d.dir);
	cut = cut_later(f, 300, path, NQN_A " 1");
	st = neighbour_load(f, b, cut, 300, gens, &nb);
	if (st)
		fail_msg("bloxctl fault power-cut exited %d", st);
	print_cut("bloxctl fault power-cut " NQN_A " 1 --json", path);
	assert_int_equal(fx_wait_child(load, 30000), 0);
	printf("  the neighbour during the cut: %llu writes, %llu reads, %llu failed\n",
	       (unsigned long long)nb.writes, (unsigned long long)nb.reads,
	       (unsigned long long)nb.failed);
	assert_true(nb.writes > 0);

	/* A: flushed intact, the rest old or new; B: everything as written. */
	ini_ctrl_destroy(a);
	a = connect_to(f, NQN_A);
	exact = check_range(f, a, 'A', OVER, FLUSHED - OVER, 1, -1);
	assert_int_equal(exact, FLUSHED - OVER);
	exact = check_range(f, a, 'A', 0, OVER, 2, 1);
	printf("  cut vSSD: %u flushed LBAs intact; of %u rewritten without a Flush %u new", FLUSHED - OVER,
	       OVER, exact);
	exact = check_range(f, a, 'A', FLUSHED, LOOSE, 1, 0);
	printf(", of %u written without a Flush %u there\n", LOOSE, exact);
	assert_int_equal(check_range(f, b, 'B', 0, OVER, 2, -1), OVER);
	assert_int_equal(check_range(f, b, 'B', OVER, FLUSHED + LOOSE - OVER, 1, -1),
			 FLUSHED + LOOSE - OVER);
	for (uint32_t lba = LOAD_LBA; lba < NLBA; lba++)
		if (gens[lba])
			assert_int_equal(check_range(f, b, 'B', lba, 1, gens[lba], -1), 1);
	assert_int_equal(unsafe_shutdowns(a), us_a + 1);
	assert_int_equal(unsafe_shutdowns(b), us_b);
	/* The cut vSSD writes and reads again. */
	write_range(f, a, 'A', 0, 64, 3);
	assert_int_equal(check_range(f, a, 'A', 0, 64, 3, -1), 64);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
}

/* A cut that stays refused says why and costs nothing: the host stays connected. */
static void refused(struct fx *f, struct ini_ctrl *c, uint32_t nsid, const char *why)
{
	assert_int_equal(ctl(f, "fault power-cut " NQN_A " %u", nsid), 4);
	if (!strstr(f->out, why))
		fail_msg("fault power-cut of namespace %u: %s (want '%s')", nsid, f->out, why);
	printf("  namespace %u refused: %s", nsid, f->out);
	assert_int_equal(ini_keep_alive(c->admin), 0);
	assert_int_equal(check_range(f, c, 'A', 0, 16, 1, -1), 16);
}

static void test_refusals(void **state)
{
	struct fx *f = *state;
	struct ini_ctrl *c;
	uint64_t us;
	unsigned id;

	make_device(f);
	assert_int_equal(ctl(f, "ns create " NQN_A " --nsid 1 --size 4M --device flash "
				"--isolation chip:1"), 0);
	assert_int_equal(ctl(f, "ns create " NQN_A " --nsid 2 --size 4M --device flash "
				"--isolation software --plp-ms 50"), 0);
	c = connect_to(f, NQN_A);
	us = unsafe_shutdowns(c);
	write_range(f, c, 'A', 0, 1024, 1);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	refused(f, c, 2, "power-loss protection");
	/* A migration paused half way: refused until it is cancelled. */
	assert_int_equal(ctl(f, "--json migrate start " NQN_A " 1 --to-chips 1 --share 50"), 0);
	assert_int_equal(sscanf(strstr(f->out, "\"id\"") ? strstr(f->out, "\"id\"") : "", "\"id\":%u",
				&id),
			 1);
	assert_int_equal(ctl(f, "migrate pause %u", id), 0);
	/* The whole device: refused as one of its vSSDs is (namespace 2's protection). */
	assert_int_equal(ctl(f, "fault power-cut --device flash"), 4);
	printf("  device refused: %s", f->out);
	assert_non_null(strstr(f->out, "namespace 2 of " NQN_A));
	assert_non_null(strstr(f->out, "power-loss protection"));
	assert_int_equal(ini_keep_alive(c->admin), 0);
	assert_int_equal(unsafe_shutdowns(c), us);
	/*
	 * The vSSD whose die migrates (paused half way) loses power: rebuilt with
	 * its migration as a restart takes it back, the job still paused; resumed,
	 * it ends; every flushed LBA reads back through it all.
	 */
	assert_int_equal(ctl(f, "fault power-cut " NQN_A " 1"), 0);
	ini_ctrl_destroy(c);
	c = connect_to(f, NQN_A);
	assert_int_equal(unsafe_shutdowns(c), us + 1);
	assert_int_equal(check_range(f, c, 'A', 0, 1024, 1, -1), 1024);
	assert_int_equal(ctl(f, "--json migrate status %u", id), 0);
	assert_non_null(strstr(f->out, "\"state\":\"paused\""));
	assert_int_equal(ctl(f, "migrate resume %u", id), 0);
	for (int i = 0; i < 600; i++) {
		assert_int_equal(ctl(f, "--json migrate status %u", id), 0);
		if (strstr(f->out, "\"state\":\"done\""))
			break;
		fx_sleep_ms(100);
	}
	assert_non_null(strstr(f->out, "\"state\":\"done\""));
	assert_int_equal(check_range(f, c, 'A', 0, 1024, 1, -1), 1024);
	us++;
	assert_int_equal(ctl(f, "fault power-cut --device nosuch"), 2);
	assert_non_null(strstr(f->out, "device nosuch not found"));
	assert_int_equal(ctl(f, "fault power-cut --device flash " NQN_A " 1"), 64);
	assert_int_equal(ctl(f, "fault power-cut --device"), 64);
	assert_int_equal(ini_keep_alive(c->admin), 0);
	assert_int_equal(unsafe_shutdowns(c), us);
	ini_ctrl_destroy(c);
}

/* 512-byte sector @lba as written the @gen'th time. */
static void sector(uint8_t *p, uint32_t lba, uint32_t gen)
{
	memset(p, (int)((lba * 31u + gen) & 0xff) | 1, 512);
	memcpy(p, &lba, 4);
	memcpy(p + 4, &gen, 4);
}

/* A host writing 3-sector runs at odd sectors (read-modify-writes) until its connection drops. */
static void load512_until_drop(struct ini_ctrl *c)
{
	static struct ini_req rq[QD];
	static uint8_t bufs[QD][3 * 512];
	uint64_t s = (uint64_t)getpid();
	struct ini_req *done[QD];
	int64_t t0 = fx_now_ms();

	for (uint32_t i = 0; i < QD; i++) {
		uint32_t lba = 8 * LOAD_LBA + 2 * (uint32_t)(ini_xorshift(&s) % (3 * LOAD_LBA)) + 1;

		for (uint32_t k = 0; k < 3; k++)
			sector(bufs[i] + k * 512, lba + k, 9);
		ini_req_rw(&rq[i], nvme_cmd_write, 1, lba, 3, bufs[i], 3 * 512);
		if (ini_submit(c->io[0], &rq[i]))
			_exit(0);
	}
	while (fx_now_ms() - t0 < 60000) {
		int n = ini_poll(c->io[0], done, QD);

		if (n <= 0)
			_exit(0);
		for (int i = 0; i < n; i++) {
			uint32_t lba = 8 * LOAD_LBA + 2 * (uint32_t)(ini_xorshift(&s) % (3 * LOAD_LBA)) + 1;

			for (uint32_t k = 0; k < 3; k++)
				sector((uint8_t *)done[i]->buf + k * 512, lba + k, 9);
			ini_req_rw(done[i], nvme_cmd_write, 1, lba, 3, done[i]->buf, 3 * 512);
			if (ini_submit(c->io[0], done[i]))
				_exit(0);
		}
	}
	_exit(3);
}

/* A vSSD with 512-byte blocks: its read-modify-writes in flight cut, the flushed sectors intact. */
static void test_512_cut(void **state)
{
	struct fx *f = *state;
	static uint32_t gens[NLBA];
	struct ini_ctrl *a, *b;
	struct nb_stats nb = { 0 };
	const uint32_t n512 = 8 * FLUSHED; /* sectors written and flushed */
	uint8_t want[512];
	char path[128];
	uint64_t us_a;
	pid_t load, cut;
	int st;

	make_device(f);
	assert_int_equal(ctl(f, "ns create " NQN_A " --nsid 1 --size %uM --device flash "
				"--isolation software --block-size 512", NS_MIB), 0);
	assert_int_equal(ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	a = connect_to(f, NQN_A);
	b = connect_to(f, NQN_B);
	us_a = unsafe_shutdowns(a);
	/* Runs of 13 sectors: most start and end inside a 4 KiB unit. */
	for (uint32_t lba = 0; lba < n512; lba += 13) {
		uint32_t nlb = n512 - lba < 13 ? n512 - lba : 13;

		for (uint32_t k = 0; k < nlb; k++)
			sector(f->buf + k * 512, lba + k, 1);
		assert_int_equal(ini_write(a->io[0], 1, lba, nlb, f->buf, nlb * 512, false), 0);
	}
	assert_int_equal(ini_flush(a->io[0], 1), 0);
	load = fork();
	assert_true(load >= 0);
	if (load == 0)
		load512_until_drop(a);
	snprintf(path, sizeof(path), "%s/cut.json", f->d.dir);
	cut = cut_later(f, 300, path, NQN_A " 1");
	st = neighbour_load(f, b, cut, 300, gens, &nb);
	if (st)
		fail_msg("bloxctl fault power-cut exited %d", st);
	print_cut("bloxctl fault power-cut " NQN_A " 1 --json (512-byte blocks)", path);
	assert_int_equal(fx_wait_child(load, 30000), 0);
	printf("  the neighbour during the cut: %llu writes, %llu reads, none failed\n",
	       (unsigned long long)nb.writes, (unsigned long long)nb.reads);
	ini_ctrl_destroy(a);
	a = connect_to(f, NQN_A);
	for (uint32_t lba = 0; lba < n512; lba += 16) {
		assert_int_equal(ini_read(a->io[0], 1, lba, 16, f->buf, 16 * 512), 0);
		for (uint32_t k = 0; k < 16; k++) {
			sector(want, lba + k, 1);
			if (memcmp(want, f->buf + k * 512, 512))
				fail_msg("sector %u of the cut vSSD is not as flushed", lba + k);
		}
	}
	assert_int_equal(unsafe_shutdowns(a), us_a + 1);
	/* Writes again, unaligned, and reads them back. */
	for (uint32_t k = 0; k < 5; k++)
		sector(f->buf + k * 512, 3 + k, 4);
	assert_int_equal(ini_write(a->io[0], 1, 3, 5, f->buf, 5 * 512, false), 0);
	assert_int_equal(ini_read(a->io[0], 1, 0, 16, f->buf + 8192, 16 * 512), 0);
	assert_memory_equal(f->buf, f->buf + 8192 + 3 * 512, 5 * 512);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
}

static uint64_t zone_wp_cap(struct ini_ctrl *c, uint64_t zslba, uint64_t *cap)
{
	uint8_t buf[128];
	const struct nvme_zone_report *r = (const void *)buf;

	memset(buf, 0, sizeof(buf));
	assert_int_equal(ini_zone_report(c->io[0], 1, zslba, NVME_ZNS_ZRAS_REPORT_ALL, false, buf,
					 sizeof(buf)),
			 0);
	assert_true(r->nr_zones >= 1);
	if (cap)
		*cap = r->entries[0].zcap;
	return (uint64_t)r->entries[0].wp; /* little-endian host, as test_zoned reads it */
}

static uint64_t zone_wp(struct ini_ctrl *c, uint64_t zslba)
{
	return zone_wp_cap(c, zslba, NULL);
}

/* A host appending to zone 2 of the zoned vSSD until its connection drops (a child process). */
static void append_until_drop(struct ini_ctrl *c)
{
	static uint8_t buf[4 * BLK];
	int64_t t0 = fx_now_ms();
	uint64_t lba;

	memset(buf, 0x5a, sizeof(buf));
	while (fx_now_ms() - t0 < 60000) {
		int st = ini_zone_append(c->io[0], 1, 2048, 4, buf, sizeof(buf), false, &lba);

		if (st < 0)
			_exit(0); /* the drop */
		if (st > 0 && ini_zone_send(c->io[0], 1, 2048, NVME_ZNS_ZSA_RESET, false) < 0)
			_exit(0); /* full: reset it and go on */
	}
	_exit(3);
}

/*
 * A zoned vSSD: its write pointers recovered from flash as after kill -9;
 * then its device's cut takes it and its neighbour together.
 */
static void test_zns_cut(void **state)
{
	struct fx *f = *state;
	static uint32_t gens[NLBA];
	const uint64_t z1 = 1024; /* zone 1's first LBA (4 MiB zones) */
	struct ini_ctrl *a, *b;
	struct nb_stats nb = { 0 };
	uint64_t us_a, us_b, wp0, wp1, cap;
	uint32_t n0;
	char path[128];
	pid_t cut, load;
	int st;

	make_device(f);
	assert_int_equal(ctl(f, "ns create " NQN_A " --nsid 1 --device flash --zoned --size 16M "
				"--zone-size 4M --max-open 2"), 0);
	assert_int_equal(ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	a = connect_to(f, NQN_A);
	b = connect_to(f, NQN_B);
	us_a = unsafe_shutdowns(a);
	assert_int_equal(zone_wp_cap(a, 0, &cap), 0);
	n0 = (uint32_t)(cap / 2 / 16 * 16) + 5; /* ends inside a page */
	assert_true(n0 + 37 < cap);
	/* Zone 0: n0 LBAs flushed, 37 more not; zone 1: 100 flushed. */
	write_range(f, a, 'A', 0, n0, 1);
	write_range(f, a, 'A', z1, 100, 1);
	assert_int_equal(ini_flush(a->io[0], 1), 0);
	write_range(f, a, 'A', n0, 37, 1);
	load = fork();
	assert_true(load >= 0);
	if (load == 0)
		append_until_drop(a);
	snprintf(path, sizeof(path), "%s/cut.json", f->d.dir);
	cut = cut_later(f, 300, path, NQN_A " 1");
	st = neighbour_load(f, b, cut, 300, gens, &nb);
	if (st)
		fail_msg("bloxctl fault power-cut exited %d", st);
	print_cut("bloxctl fault power-cut " NQN_A " 1 --json (zoned)", path);
	assert_int_equal(fx_wait_child(load, 30000), 0);
	printf("  the neighbour during the cut: %llu writes, %llu reads, none failed\n",
	       (unsigned long long)nb.writes, (unsigned long long)nb.reads);
	ini_ctrl_destroy(a);
	a = connect_to(f, NQN_A);
	wp0 = zone_wp(a, 0);
	wp1 = zone_wp(a, z1);
	printf("  write pointers after the cut (capacity %llu): zone 0 at %llu (%u flushed, %u "
	       "written), zone 1 at %llu (100 flushed)\n",
	       (unsigned long long)cap, (unsigned long long)wp0, n0, n0 + 37,
	       (unsigned long long)(wp1 - z1));
	assert_true(wp0 >= n0 && wp0 <= n0 + 37);
	assert_true(wp1 >= z1 + 100 && wp1 <= z1 + 100 + 16);
	assert_int_equal(check_range(f, a, 'A', 0, n0, 1, -1), n0);
	assert_int_equal(check_range(f, a, 'A', z1, 100, 1, -1), 100);
	assert_int_equal(unsafe_shutdowns(a), us_a + 1);
	printf("  zone 2, appended to at the cut: write pointer %llu\n",
	       (unsigned long long)(zone_wp(a, 2048) - 2048));
	assert_true(zone_wp(a, 2048) <= 2048 + cap);
	/* Writes go on at the recovered write pointer. */
	write_range(f, a, 'A', wp0, 16, 2);
	assert_int_equal(check_range(f, a, 'A', wp0, 16, 2, -1), 16);
	assert_int_equal(zone_wp(a, 0), wp0 + 16);
	/* The whole device: the zoned vSSD and its neighbour lose power together. */
	us_a = unsafe_shutdowns(a);
	us_b = unsafe_shutdowns(b);
	assert_int_equal(ini_flush(a->io[0], 1), 0);
	write_range(f, b, 'B', 0, 64, 5);
	assert_int_equal(ini_flush(b->io[0], 1), 0);
	assert_int_equal(ctl(f, "--json fault power-cut --device flash"), 0);
	printf("  the device's cut with the zoned vSSD on it: %s", f->out);
	assert_non_null(strstr(f->out, "\"namespaces\""));
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
	a = connect_to(f, NQN_A);
	b = connect_to(f, NQN_B);
	assert_int_equal(zone_wp(a, 0), wp0 + 16);
	assert_int_equal(zone_wp(a, z1), wp1);
	assert_int_equal(check_range(f, a, 'A', 0, n0, 1, -1), n0);
	assert_int_equal(check_range(f, a, 'A', wp0, 16, 2, -1), 16);
	assert_int_equal(check_range(f, a, 'A', z1, 100, 1, -1), 100);
	assert_int_equal(check_range(f, b, 'B', 0, 64, 5, -1), 64);
	assert_int_equal(unsafe_shutdowns(a), us_a + 1);
	assert_int_equal(unsafe_shutdowns(b), us_b + 1);
	write_range(f, a, 'A', wp0 + 16, 16, 3);
	assert_int_equal(check_range(f, a, 'A', wp0 + 16, 16, 3, -1), 16);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
}

/* Registrants of namespace 1 (Reservation Report's REGCTL). */
static unsigned registrants(struct ini_ctrl *c)
{
	uint8_t buf[4096];

	memset(buf, 0, sizeof(buf));
	assert_int_equal(ini_resv_report(c->io[0], 1, true, buf, sizeof(buf)), 0);
	return (unsigned)buf[5] | (unsigned)buf[6] << 8;
}

/* The whole device loses power: every vSSD on it at once. */
static void test_device_cut(void **state)
{
	struct fx *f = *state;
	struct ini_ctrl *a, *b;
	uint64_t us_a, us_b;
	char path[128];
	pid_t load, cut;
	int st;

	make_device(f);
	assert_int_equal(ctl(f, "ns create " NQN_A " --nsid 1 --size %uM --device flash "
				"--isolation software", NS_MIB), 0);
	assert_int_equal(ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation chip:1", NS_MIB), 0);
	a = connect_to(f, NQN_A);
	b = connect_to(f, NQN_B);
	us_a = unsafe_shutdowns(a);
	us_b = unsafe_shutdowns(b);
	write_flushed(f, a, b);
	write_range(f, a, 'A', 0, OVER, 2);
	write_range(f, b, 'B', 0, OVER, 2);
	/* A reservation key without Persist Through Power Loss: gone with the power. */
	assert_int_equal(ini_resv_register(b->io[0], 1, 0, 0, 0x1234), 0);
	assert_int_equal(registrants(b), 1);
	/* A host writing to A when the power goes. */
	load = fork();
	assert_true(load >= 0);
	if (load == 0)
		load_until_drop(a);
	snprintf(path, sizeof(path), "%s/cut.json", f->d.dir);
	cut = cut_later(f, 300, path, "--device flash");
	assert_int_equal(fx_wait_child(cut, 60000), 0);
	print_cut("bloxctl fault power-cut --device flash --json", path);
	assert_int_equal(fx_wait_child(load, 30000), 0);
	/* B's host lost its connection too. */
	st = ini_keep_alive(b->admin);
	assert_int_not_equal(st, 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
	a = connect_to(f, NQN_A);
	b = connect_to(f, NQN_B);
	assert_int_equal(check_range(f, a, 'A', OVER, FLUSHED - OVER, 1, -1), FLUSHED - OVER);
	assert_int_equal(check_range(f, b, 'B', OVER, FLUSHED - OVER, 1, -1), FLUSHED - OVER);
	printf("  after the device's cut: of %u rewritten without a Flush, %u new on A, %u on B\n",
	       OVER, check_range(f, a, 'A', 0, OVER, 2, 1), check_range(f, b, 'B', 0, OVER, 2, 1));
	assert_int_equal(unsafe_shutdowns(a), us_a + 1);
	assert_int_equal(unsafe_shutdowns(b), us_b + 1);
	assert_int_equal(registrants(b), 0);
	write_range(f, b, 'B', 0, 64, 3);
	assert_int_equal(check_range(f, b, 'B', 0, 64, 3, -1), 64);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_vssd_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_device_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_512_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zns_cut, setup, teardown),
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return FX_MAIN(NULL, tests);
}
