/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_powercut_vssd's shared part: bloxd with two subsystems per
 * test, the data each block holds, the hosts' loads around a cut (the cut
 * vSSD's writer, the neighbour's verified writes and reads), the checks
 * after it. See powercut_vssd.h.
 */
#include <fcntl.h>
#include <setjmp.h>
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

#include "powercut_vssd.h"

void pcv_pattern(uint8_t *p, char who, uint32_t lba, uint32_t gen)
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

int64_t pcv_gen_of(const uint8_t *p, char who, uint32_t lba)
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
	pcv_pattern(want, who, lba, gen);
	return memcmp(want, p, BLK) ? -1 : (int64_t)gen;
}

int pcv_ctl(struct pcv *f, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return fx_ctl(&f->d, f->out, sizeof(f->out), "%s", cmd);
}

struct ini_ctrl *pcv_connect_to(struct pcv *f, const char *nqn)
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

uint64_t pcv_unsafe_shutdowns(struct ini_ctrl *c)
{
	struct nvme_smart_log sl;
	uint64_t n = 0;

	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_SMART, 0xffffffff, 0, &sl, sizeof(sl)),
			 0);
	for (int i = 7; i >= 0; i--)
		n = n << 8 | sl.unsafe_shutdowns[i];
	return n;
}

void pcv_write_range(struct pcv *f, struct ini_ctrl *c, char who, uint32_t from, uint32_t n,
		     uint32_t gen)
{
	pcv_write_ns(f, c, 1, who, from, n, gen);
}

void pcv_write_ns(struct pcv *f, struct ini_ctrl *c, uint32_t nsid, char who, uint32_t from,
		  uint32_t n, uint32_t gen)
{
	for (uint32_t lba = from; lba < from + n; lba += 16) {
		uint32_t nlb = (from + n - lba < 16u ? from + n - lba : 16u);

		for (uint32_t k = 0; k < nlb; k++)
			pcv_pattern(f->buf + (size_t)k * BLK, who, lba + k, gen);
		assert_int_equal(ini_write(c->io[0], nsid, lba, nlb, f->buf, nlb * BLK, false), 0);
	}
}

uint32_t pcv_check_range(struct pcv *f, struct ini_ctrl *c, char who, uint32_t from, uint32_t n,
			 uint32_t want, int64_t alt)
{
	return pcv_check_ns(f, c, 1, who, from, n, want, alt);
}

uint32_t pcv_check_ns(struct pcv *f, struct ini_ctrl *c, uint32_t nsid, char who, uint32_t from,
		      uint32_t n, uint32_t want, int64_t alt)
{
	uint32_t exact = 0;

	for (uint32_t lba = from; lba < from + n; lba += 16) {
		uint32_t nlb = (from + n - lba < 16u ? from + n - lba : 16u);

		assert_int_equal(ini_read(c->io[0], nsid, lba, nlb, f->buf, nlb * BLK), 0);
		for (uint32_t k = 0; k < nlb; k++) {
			int64_t g = pcv_gen_of(f->buf + (size_t)k * BLK, who, lba + k);

			if (g == (int64_t)want)
				exact++;
			else if (alt < 0 || g != alt)
				fail_msg("%c LBA %u: generation %lld, want %u%s", who, lba + k,
					 (long long)g, want, alt >= 0 ? " or the one before" : "");
		}
	}
	return exact;
}

void pcv_load_until_drop(struct ini_ctrl *c)
{
	static struct ini_req rq[QD];
	static uint8_t bufs[QD][BLK];
	uint64_t s = (uint64_t)getpid();
	struct ini_req *done[QD];
	int64_t t0 = fx_now_ms();

	for (uint32_t i = 0; i < QD; i++) {
		uint32_t lba = LOAD_LBA + (uint32_t)(ini_xorshift(&s) % (NLBA - LOAD_LBA));

		pcv_pattern(bufs[i], 'A', lba, 7);
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

			pcv_pattern(done[i]->buf, 'A', lba, 7);
			ini_req_rw(done[i], nvme_cmd_write, 1, lba, 1, done[i]->buf, BLK);
			if (ini_submit(c->io[0], done[i]))
				_exit(0);
		}
	}
	_exit(3); /* never dropped */
}

pid_t pcv_cut_later(struct pcv *f, int delay_ms, const char *path, const char *args)
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

int pcv_neighbour_load(struct pcv *f, struct ini_ctrl *c, pid_t cut, int after_ms,
		       uint32_t *gens, struct pcv_nb *st)
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
		pcv_pattern(bufs[i], 'B', lba[i], ++gens[lba[i]]);
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
				if (pcv_gen_of(bufs[i], 'B', lba[i]) != gens[lba[i]])
					fail_msg("the neighbour's LBA %u: read %lld, wrote %u", lba[i],
						 (long long)pcv_gen_of(bufs[i], 'B', lba[i]),
						 gens[lba[i]]);
				if (ended && fx_now_ms() - ended > after_ms) {
					inflight--;
					continue;
				}
				round[i]++;
				lba[i] = LOAD_LBA + i + QD * (round[i] % ((NLBA - LOAD_LBA) / QD));
				pcv_pattern(bufs[i], 'B', lba[i], ++gens[lba[i]]);
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

int pcv_setup(void **state)
{
	struct pcv *f = calloc(1, sizeof(*f));

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

int pcv_teardown(void **state)
{
	struct pcv *f = *state;
	int rc = fx_stop(&f->d) ? -1 : 0;

	free(f->buf);
	free(f);
	return rc;
}

void pcv_make_device(struct pcv *f)
{
	assert_int_equal(pcv_ctl(f, "device create flash --store ram --channels 2 "
				    "--dies-per-channel 2 --planes 1 --pages-per-block 96 "
				    "--blocks-per-plane 64"),
			 0);
}

void pcv_write_flushed(struct pcv *f, struct ini_ctrl *a, struct ini_ctrl *b)
{
	pcv_write_range(f, a, 'A', 0, FLUSHED, 1);
	pcv_write_range(f, b, 'B', 0, FLUSHED, 1);
	assert_int_equal(ini_flush(a->io[0], 1), 0);
	assert_int_equal(ini_flush(b->io[0], 1), 0);
}

void pcv_print_cut(const char *what, const char *path)
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

struct ini_ctrl *pcv_cut_a(struct pcv *f, struct ini_ctrl *a, void (*load)(struct ini_ctrl *c),
			   struct ini_ctrl *b, uint32_t *gens, struct pcv_nb *nb, const char *what)
{
	char path[128];
	pid_t writer, cut;
	int st;

	writer = fork();
	assert_true(writer >= 0);
	if (writer == 0)
		load(a);
	snprintf(path, sizeof(path), "%s/cut.json", f->d.dir);
	cut = pcv_cut_later(f, 300, path, NQN_A " 1");
	st = pcv_neighbour_load(f, b, cut, 300, gens, nb);
	if (st)
		fail_msg("bloxctl fault power-cut exited %d", st);
	pcv_print_cut(what, path);
	assert_int_equal(fx_wait_child(writer, 30000), 0);
	printf("  the neighbour during the cut: %llu writes, %llu reads, %llu failed\n",
	       (unsigned long long)nb->writes, (unsigned long long)nb->reads,
	       (unsigned long long)nb->failed);
	ini_ctrl_destroy(a);
	return pcv_connect_to(f, NQN_A);
}
