/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ini_probe: a small command-line smoke check of an NVMe/TCP target with
 * the blox initiator. Brings a controller up, identifies namespace 1,
 * writes random data at a few sizes and queue depths, reads it back and
 * compares, then shuts the controller down. Not a registered test: a tool
 * to point at bloxd or at a reference target by hand.
 *
 * usage: ini_probe ADDR PORT SUBNQN [hdgst] [ddgst] [r2t] [nosqflow] [big]
 *                  [fill|check] [host=HOSTNQN] [tls=KEY] [readbw=SECONDS]
 * (big: only sizes above 16 KiB; Linux's nvmet waits for in-capsule data
 * for any write that would fit and never sends an R2T for it.)
 * fill and check, for data kept across a restart of the target: fill
 * writes a fixed pseudo-random pattern to the first 4 MiB of namespace 1,
 * flushes and reads it back; check only reads it and compares. Exit 0
 * when the data matched, 1 otherwise. tls=KEY: TLS 1.3 with that PSK
 * (NVMeTLSkey-1:...) as host=HOSTNQN. readbw=SECONDS: only 128 KiB reads
 * at depth 8 for that long, and the MB/s (plain against TLS by hand).
 */
#include "ini.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void fill_random(uint8_t *b, size_t n, uint64_t *seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)ini_xorshift(seed);
}

/* Write @depth commands of @len bytes at once, then read them back. */
static int verify_round(struct ini_queue *q, uint32_t lbads, uint64_t nsze,
			uint32_t len, uint32_t depth, uint64_t *seed)
{
	uint32_t nlb = len >> lbads, i;
	struct ini_req *reqs = calloc(depth, sizeof(*reqs));
	struct ini_req *done[64];
	uint8_t *wbuf = malloc((size_t)len * depth);
	uint8_t *rbuf = malloc((size_t)len * depth);
	int rc = -ENOMEM;

	if (!reqs || !wbuf || !rbuf)
		goto out;
	fill_random(wbuf, (size_t)len * depth, seed);
	memset(rbuf, 0, (size_t)len * depth);
	for (int pass = 0; pass < 2; pass++) {
		uint32_t left = depth;
		for (i = 0; i < depth; i++) {
			/* Disjoint slots: command i writes LBA i * nlb. */
			uint64_t slba = (uint64_t)i * nlb % (nsze - nlb);
			uint8_t *b = (pass ? rbuf : wbuf) + (size_t)i * len;
			ini_req_rw(&reqs[i], pass ? nvme_cmd_read : nvme_cmd_write,
				   1, slba, nlb, b, len);
			rc = ini_submit(q, &reqs[i]);
			if (rc)
				goto out;
		}
		while (left) {
			int n = ini_poll(q, done, 64);
			if (n < 0) {
				rc = n;
				goto out;
			}
			for (int k = 0; k < n; k++) {
				if (ini_status(&done[k]->cqe)) {
					fprintf(stderr, "status 0x%x\n",
						ini_status(&done[k]->cqe));
					rc = -EIO;
					goto out;
				}
			}
			left -= (uint32_t)n;
		}
	}
	rc = memcmp(wbuf, rbuf, (size_t)len * depth) ? -EILSEQ : 0;
out:
	free(rbuf);
	free(wbuf);
	free(reqs);
	return rc;
}

#define PATTERN_BYTES (4u << 20)
#define PATTERN_CHUNK (128u << 10)

/*
 * The pattern pass of fill (@write) and check: PATTERN_BYTES from LBA 0 in
 * PATTERN_CHUNK commands, always the same bytes (a fixed seed).
 */
static int pattern_pass(struct ini_queue *q, uint32_t lbads, uint64_t nsze,
			bool write)
{
	uint64_t seed = 0x6a09e667f3bcc909ull;
	uint32_t nlb = PATTERN_CHUNK >> lbads;
	uint8_t *want = malloc(PATTERN_CHUNK), *got = malloc(PATTERN_CHUNK);
	int rc = -ENOMEM;

	if (!want || !got)
		goto out;
	if (((uint64_t)PATTERN_BYTES >> lbads) > nsze) {
		fprintf(stderr, "namespace 1 is smaller than %u bytes\n", PATTERN_BYTES);
		rc = -ENOSPC;
		goto out;
	}
	for (uint32_t off = 0; off < PATTERN_BYTES; off += PATTERN_CHUNK) {
		uint64_t slba = off >> lbads;

		fill_random(want, PATTERN_CHUNK, &seed);
		if (write) {
			rc = ini_write(q, 1, slba, nlb, want, PATTERN_CHUNK, false);
			if (rc)
				goto out;
			continue;
		}
		rc = ini_read(q, 1, slba, nlb, got, PATTERN_CHUNK);
		if (rc)
			goto out;
		for (uint32_t i = 0; i < PATTERN_CHUNK; i++) {
			if (got[i] != want[i]) {
				fprintf(stderr, "byte %u: read 0x%02x, wrote 0x%02x\n",
					off + i, got[i], want[i]);
				rc = -EILSEQ;
				goto out;
			}
		}
	}
	rc = write ? ini_flush(q, 1) : 0;
out:
	free(got);
	free(want);
	return rc;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 128 KiB reads at depth 8 for @secs seconds: MB/s on stdout. */
static int read_bw(struct ini_queue *q, uint32_t lbads, uint64_t nsze, int secs)
{
	enum { DEPTH = 8, LEN = 128 * 1024 };
	struct ini_req reqs[DEPTH], *done[DEPTH];
	uint8_t *buf = malloc((size_t)DEPTH * LEN);
	uint32_t nlb = LEN >> lbads;
	uint64_t bytes = 0, slot = 0;
	double t0 = now_s(), end = t0 + secs;
	int rc = 0, n;

	if (!buf || nsze < (uint64_t)nlb * DEPTH) {
		free(buf);
		return -ENOMEM;
	}
	for (int i = 0; i < DEPTH && !rc; i++, slot++) {
		ini_req_rw(&reqs[i], nvme_cmd_read, 1, slot * nlb % (nsze - nlb), nlb,
			   buf + (size_t)i * LEN, LEN);
		rc = ini_submit(q, &reqs[i]);
	}
	while (!rc && now_s() < end) {
		n = ini_poll(q, done, DEPTH);
		if (n < 0) {
			rc = n;
			break;
		}
		for (int i = 0; i < n && !rc; i++, slot++) {
			struct ini_req *r = done[i];

			bytes += LEN;
			ini_req_rw(r, nvme_cmd_read, 1, slot * nlb % (nsze - nlb), nlb, r->buf, LEN);
			rc = ini_submit(q, r);
		}
	}
	for (uint32_t left = ini_queue_outstanding(q); !rc && left;) {
		n = ini_poll(q, done, DEPTH);
		if (n < 0)
			rc = n;
		else
			left -= (uint32_t)n;
	}
	printf("readbw %s: %.0f MB/s (%d s, 128 KiB, depth %d)\n",
	       ini_queue_tls_cipher(q) ? ini_queue_tls_cipher(q) : "plain",
	       (double)bytes / 1e6 / (now_s() - t0), secs, DEPTH);
	free(buf);
	return rc;
}

int main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 4096, 16384, 65536, 131072 };
	static const uint32_t depths[] = { 1, 8, 32 };
	struct ini_ctrl_args a;
	struct ini_ctrl *c;
	struct nvme_id_ns *ns;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	uint16_t st = 0;
	bool big = false, fill = false, check = false;
	int rc, bw_secs = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: %s ADDR PORT SUBNQN [hdgst] [ddgst] "
				"[r2t] [nosqflow] [big] [fill|check]\n", argv[0]);
		return 2;
	}
	ini_ctrl_args_init(&a, argv[1], (uint16_t)atoi(argv[2]), argv[3]);
	for (int i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "hdgst"))
			a.qopts.hdgst = true;
		else if (!strcmp(argv[i], "ddgst"))
			a.qopts.ddgst = true;
		else if (!strcmp(argv[i], "r2t"))
			a.qopts.in_capsule = false;
		else if (!strcmp(argv[i], "nosqflow"))
			a.qopts.disable_sqflow = true;
		else if (!strcmp(argv[i], "big"))
			big = true;
		else if (!strcmp(argv[i], "fill"))
			fill = true;
		else if (!strcmp(argv[i], "check"))
			check = true;
		else if (!strncmp(argv[i], "host=", 5))
			a.hostnqn = argv[i] + 5;
		else if (!strncmp(argv[i], "tls=", 4))
			a.qopts.tls_psk = argv[i] + 4;
		else if (!strncmp(argv[i], "readbw=", 7))
			bw_secs = atoi(argv[i] + 7);
		else {
			fprintf(stderr, "%s: unknown option '%s'\n", argv[0], argv[i]);
			return 2;
		}
	}
	a.qopts.tls_hostnqn = a.hostnqn;
	a.qopts.tls_subnqn = a.subnqn;
	rc = ini_ctrl_connect(&a, &c, &st);
	if (rc) {
		fprintf(stderr, "connect: %s (status 0x%x)\n", strerror(-rc), st);
		return 1;
	}
	printf("cntlid %u mdts %u ioccsz %u maxh2cdata %u\n", c->cntlid,
	       c->id.mdts, c->id.ioccsz,
	       ini_queue_icresp(c->io[0])->maxh2cdata);
	ns = aligned_alloc(4096, 4096);
	if (!ns) {
		rc = -ENOMEM;
		goto destroy;
	}
	rc = ini_identify(c->admin, NVME_IDENTIFY_CNS_NS, 1, 0, ns);
	if (rc) {
		fprintf(stderr, "identify ns: %d\n", rc);
		goto free_ns;
	}
	uint32_t lbads = ns->lbaf[ns->flbas & 0xf].ds;
	printf("nsze %llu lbads %u\n", (unsigned long long)ns->nsze, lbads);
	if (bw_secs > 0) {
		rc = read_bw(c->io[0], lbads, ns->nsze, bw_secs);
		goto free_ns;
	}
	if (fill || check) {
		rc = fill ? pattern_pass(c->io[0], lbads, ns->nsze, true) : 0;
		if (!rc)
			rc = pattern_pass(c->io[0], lbads, ns->nsze, false);
		printf("%s %u bytes: %s\n", fill ? "fill" : "check", PATTERN_BYTES,
		       rc ? strerror(-rc) : "ok");
		if (rc)
			goto free_ns;
	}
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		if (fill || check)
			break;
		if (big && sizes[s] <= 16384)
			continue;
		for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
			rc = verify_round(c->io[0], lbads, ns->nsze, sizes[s],
					  depths[d], &seed);
			printf("size %u depth %u: %s\n", sizes[s], depths[d],
			       rc ? strerror(-rc) : "ok");
			if (rc)
				goto free_ns;
		}
	}
	rc = ini_ctrl_shutdown(c);
	printf("shutdown: %s\n", rc ? strerror(-rc) : "ok");
free_ns:
	free(ns);
destroy:
	ini_ctrl_destroy(c);
	return rc ? 1 : 0;
}
