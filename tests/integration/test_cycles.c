/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * 1,000 connect/disconnect cycles against one bloxd, most of them ended
 * by a reset (RST) in the middle of something: an ICReq, a PDU header, a
 * Connect capsule (its header or its data), an I/O command's in-capsule
 * data, a write waiting for its R2T data, with and without digests; the
 * rest are whole controllers that do I/O and go away cleanly. Then bloxd
 * must be alive, serve I/O, and be back near where it started: the same
 * number of open descriptors and an RSS within a few MB (after a warm-up,
 * with ASan's quarantine kept small so that freed memory does not count);
 * and it must stop cleanly, which under ASan means LeakSanitizer found
 * nothing at exit. Under ASan it takes well under a minute.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "tcp_pdu.h"

#define SUBNQN "nqn.2026-12.io.blox:cycles"
#define BLOCK 4096
#define NS_BLOCKS 4096 /* 16 MiB */
#define CYCLES 1000
#define WARMUP 50
#define RSS_SLACK_KB (8 * 1024)

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096} ] } ]";

/* ---- what bloxd holds ---- */

static long fd_count(pid_t pid)
{
	char path[64];
	struct dirent *de;
	long n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static long rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* Descriptors settle once bloxd has seen every reset: wait up to 5 s for @want. */
static long fd_count_settled(pid_t pid, long want)
{
	long n = fd_count(pid);

	for (int i = 0; i < 500 && n > want; i++) {
		fx_sleep_ms(10);
		n = fd_count(pid);
	}
	return n;
}

/* ---- one cycle ---- */

/* Close with a reset (RST): SO_LINGER 0, as a host that crashed or was cut off. */
static void rst_on_close(struct ini_queue *q)
{
	int fd = q ? ini_queue_fd(q) : -1;

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_LINGER, &(struct linger){ 1, 0 },
			   sizeof(struct linger));
}

static void reset(struct ini_queue *q)
{
	rst_on_close(q);
	ini_queue_destroy(q);
}

static void reset_ctrl(struct ini_ctrl *c)
{
	for (uint32_t i = 0; i < c->nr_io; i++)
		rst_on_close(c->io[i]);
	rst_on_close(c->admin);
	ini_ctrl_destroy(c);
}

static struct ini_queue *queue(const struct fx_daemon *d, bool digests, bool icreq)
{
	struct ini_queue *q = NULL;
	struct ini_opts o;

	ini_opts_init(&o);
	o.hdgst = o.ddgst = digests;
	if (icreq)
		assert_int_equal(ini_queue_connect(FX_ADDR, d->nvm_port, &o, &q), 0);
	else
		assert_int_equal(ini_queue_open(FX_ADDR, d->nvm_port, &o, &q), 0);
	return q;
}

/* A Connect capsule for a new admin queue, as ini_connect() sends it. */
static int connect_pdu(struct ini_queue *q, uint8_t *out, size_t cap)
{
	struct nvmf_connect_data data = { .cntlid = 0xffff };
	struct nvme_sqe s;
	struct nvme_sgl_desc sgl = { .length = sizeof(data),
				     .type = NVME_SGL_DATA_BLOCK << 4 | NVME_SGL_SUB_OFFSET };

	memset(&s, 0, sizeof(s));
	s.opcode = nvme_admin_fabrics;
	s.flags = 0x40;
	s.cid = 1;
	s.nsid = nvme_fabrics_type_connect;
	s.cdw11 = 31;
	memcpy(s.dptr, &sgl, sizeof(sgl));
	snprintf(data.subsysnqn, sizeof(data.subsysnqn), "%s", SUBNQN);
	snprintf(data.hostnqn, sizeof(data.hostnqn), "%s", FX_HOST_A);
	return ini_pdu_build_cmd(q, &s, &data, sizeof(data), out, cap);
}

enum cycle {
	MID_ICREQ, /* part of the ICReq */
	MID_CONNECT_HDR, /* ICReq done, part of the Connect's header */
	MID_CONNECT_DATA, /* the Connect's header and part of its data */
	MID_ADMIN_PDU, /* a live controller, part of an admin command's header */
	MID_IO_DATA, /* I/O done, part of a write's in-capsule data */
	MID_R2T, /* a write waiting for the R2T's data */
	CLEAN, /* a controller does I/O and closes normally */
	NR_CYCLE_KINDS,
};

static void one_cycle(struct fx_env *e, unsigned i)
{
	enum cycle kind = (enum cycle)(i % NR_CYCLE_KINDS);
	bool digests = (i / NR_CYCLE_KINDS) % 2;
	static uint8_t pdu[2 * BLOCK + 256], block[BLOCK];
	struct ini_queue *q;
	struct ini_ctrl *c;
	struct nvme_sqe s;
	size_t cut;
	int len;

	switch (kind) {
	case MID_ICREQ:
		q = queue(&e->d, digests, false);
		memset(pdu, 0, 128);
		nvme_tcp_hdr_init((struct nvme_tcp_hdr *)pdu, NVME_TCP_ICREQ, 0, 128, 0, 128);
		assert_int_equal(ini_raw_send(q, pdu, 1 + i % 100), 0);
		reset(q);
		return;
	case MID_CONNECT_HDR:
	case MID_CONNECT_DATA:
		q = queue(&e->d, digests, true);
		len = connect_pdu(q, pdu, sizeof(pdu));
		assert_true(len > 100);
		cut = kind == MID_CONNECT_HDR ? 1 + i % 70 : 80 + i % ((size_t)len - 81);
		assert_int_equal(ini_raw_send(q, pdu, cut), 0);
		reset(q);
		return;
	case MID_ADMIN_PDU:
	case MID_IO_DATA:
	case MID_R2T:
	case CLEAN: {
		struct ini_opts o;

		ini_opts_init(&o);
		o.hdgst = o.ddgst = digests;
		assert_int_equal(fx_ctrl(&e->d, SUBNQN, NULL, 1, &o, &c), 0);
		break;
	}
	default:
		fail();
	}
	/* A controller is up: one write and read back first. */
	assert_int_equal(fx_rw_check(c->io[0], 1, i % NS_BLOCKS, BLOCK), 0);
	switch (kind) {
	case MID_ADMIN_PDU:
		fx_make_sqe(&s, nvme_admin_identify, 7, 0, 0, 1, 4096, false);
		s.cdw10 = NVME_IDENTIFY_CNS_CTRL;
		len = ini_pdu_build_cmd(c->admin, &s, NULL, 0, pdu, sizeof(pdu));
		assert_true(len > 0);
		assert_int_equal(ini_raw_send(c->admin, pdu, 1 + i % ((size_t)len - 1)), 0);
		reset_ctrl(c);
		return;
	case MID_IO_DATA:
		fx_fill_random(block, sizeof(block), &e->seed);
		fx_make_sqe(&s, nvme_cmd_write, 9, 1, i % NS_BLOCKS, 1, BLOCK, true);
		len = ini_pdu_build_cmd(c->io[0], &s, block, BLOCK, pdu, sizeof(pdu));
		assert_true(len > BLOCK);
		assert_int_equal(ini_raw_send(c->io[0], pdu, 73 + i % ((size_t)len - 74)), 0);
		reset_ctrl(c);
		return;
	case MID_R2T: {
		static uint8_t big[8 * BLOCK];
		struct ini_req r;

		ini_req_rw(&r, nvme_cmd_write, 1, 0, 8, big, sizeof(big));
		r.flags |= INI_REQ_NO_INLINE;
		assert_int_equal(ini_submit(c->io[0], &r), 0);
		/* bloxd answers with an R2T and waits for the data: gone. */
		fx_sleep_ms(i % 3);
		reset_ctrl(c);
		return;
	}
	case CLEAN:
		ini_ctrl_destroy(c);
		return;
	default:
		fail();
	}
}

static void test_cycles(void **state)
{
	struct fx_env *e = *state;
	long fd0, rss0, fd1, rss1;
	int64_t t0 = fx_now_ms();

	for (unsigned i = 0; i < WARMUP; i++)
		one_cycle(e, i);
	fd0 = fd_count_settled(e->d.pid, 0);
	fx_sleep_ms(100);
	fd0 = fd_count(e->d.pid);
	rss0 = rss_kb(e->d.pid);
	assert_true(fd0 > 0 && rss0 > 0);
	for (unsigned i = 0; i < CYCLES; i++) {
		one_cycle(e, WARMUP + i);
		if (!fx_alive(&e->d))
			fail_msg("bloxd died in cycle %u", i);
	}
	fd1 = fd_count_settled(e->d.pid, fd0);
	rss1 = rss_kb(e->d.pid);
	printf("test_cycles: %u cycles in %lld ms; bloxd fds %ld -> %ld, RSS %ld -> %ld kB\n",
	       CYCLES, (long long)(fx_now_ms() - t0), fd0, fd1, rss0, rss1);
	assert_int_equal(fd1, fd0);
	if (rss1 > rss0 + RSS_SLACK_KB)
		fail_msg("RSS grew from %ld to %ld kB over %u cycles", rss0, rss1, CYCLES);
	/* It still serves: a new controller writes and reads back. */
	assert_int_equal(fx_check_daemon(&e->d, SUBNQN, NS_BLOCKS, &e->seed), 0);
}

/* ASan's quarantine holds freed memory back (256 MB by default): keep it small here. */
static int small_quarantine(void)
{
	const char *cur = getenv("ASAN_OPTIONS");
	char opts[1024];

	snprintf(opts, sizeof(opts), "%s%squarantine_size_mb=4", cur ? cur : "",
		 cur && *cur ? ":" : "");
	return setenv("ASAN_OPTIONS", opts, 1);
}

int main(void)
{
	static const struct fx_group g = { .who = "test_cycles", .subsystems = subsystems };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cycles),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	if (small_quarantine())
		return 1;
	return FX_MAIN(&g, tests);
}
