/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queue-depth write/read/verify rounds for the integration tests; see
 * rw.h. Everything the target returns is checked, and a mismatch is
 * printed with enough context (op, cid, LBA, offset) to reproduce it.
 */
#include "rw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

struct rw_ctx {
	struct ini_req *reqs;
	uint64_t *lbas;
	uint8_t *wbuf, *rbuf;
};

/* @depth distinct slot-aligned LBAs of @nlb blocks each, at random. */
static int pick_lbas(const struct rw_geom *g, uint32_t nlb, uint32_t depth,
		     uint64_t *seed, uint64_t *lbas)
{
	uint64_t nslots = g->nblocks / nlb;
	uint32_t i, j;

	if (nslots < depth)
		return -ENOSPC;
	for (i = 0; i < depth; i++) {
		uint64_t s;
again:
		s = fx_rand(seed) % nslots;
		for (j = 0; j < i; j++)
			if (lbas[j] == s * nlb)
				goto again;
		lbas[i] = s * nlb;
	}
	return 0;
}

static int check_cqe(const struct ini_queue *q, const struct ini_req *r,
		     bool sqflow_off, uint16_t sqsize, const char *op)
{
	uint16_t st = ini_status(&r->cqe);

	if (st) {
		fprintf(stderr, "rw: %s cid %u lba %u len %u: status 0x%x\n",
			op, r->sqe.cid, r->sqe.cdw10, r->len, st);
		return -EIO;
	}
	if (r->cqe.cid != r->sqe.cid) {
		fprintf(stderr, "rw: %s cqe cid %u != %u\n", op, r->cqe.cid,
			r->sqe.cid);
		return -EPROTO;
	}
	if (!r->success_flag && r->cqe.sqid != ini_queue_qid(q)) {
		fprintf(stderr, "rw: %s cqe sqid %u on qid %u\n", op,
			r->cqe.sqid, ini_queue_qid(q));
		return -EPROTO;
	}
	if (sqflow_off && r->cqe.sqhd != 0xffff) {
		fprintf(stderr, "rw: %s sqhd 0x%x with SQ flow control off\n",
			op, r->cqe.sqhd);
		return -EPROTO;
	}
	if (!sqflow_off && r->cqe.sqhd > sqsize) {
		fprintf(stderr, "rw: %s sqhd %u > sqsize %u\n", op,
			r->cqe.sqhd, sqsize);
		return -EPROTO;
	}
	return 0;
}

/* Submit all @depth requests, then collect and check every completion. */
static int run_all(struct ini_queue *q, struct rw_ctx *c, uint32_t depth,
		   bool sqflow_off, uint16_t sqsize, const char *op)
{
	struct ini_req *done[64];
	uint32_t left = depth, i;
	int rc;

	for (i = 0; i < depth; i++) {
		rc = ini_submit(q, &c->reqs[i]);
		if (rc) {
			fprintf(stderr, "rw: submit %s %u: %d\n", op, i, rc);
			return rc;
		}
	}
	while (left) {
		int n = ini_poll(q, done, 64);
		if (n < 0) {
			fprintf(stderr, "rw: poll %s (%u left): %d\n", op, left,
				n);
			return n;
		}
		for (int k = 0; k < n; k++) {
			rc = check_cqe(q, done[k], sqflow_off, sqsize, op);
			if (rc)
				return rc;
		}
		left -= (uint32_t)n;
	}
	return 0;
}

static int check_writes(const struct ini_queue *q, const struct rw_ctx *c,
			uint32_t depth, uint32_t len, struct rw_stats *st)
{
	uint32_t inl = ini_queue_inline(q);

	for (uint32_t i = 0; i < depth; i++) {
		const struct ini_req *r = &c->reqs[i];
		bool want_inline = inl && len <= inl;

		if (r->in_capsule != want_inline || r->h2c_bytes != len ||
		    (!r->in_capsule && r->nr_r2t == 0)) {
			fprintf(stderr,
				"rw: write %u: in_capsule %d (want %d), "
				"%u bytes sent of %u, %u R2Ts\n",
				i, r->in_capsule, want_inline, r->h2c_bytes,
				len, r->nr_r2t);
			return -EPROTO;
		}
		if (r->in_capsule)
			st->writes_in_capsule++;
		else
			st->writes_r2t++;
	}
	return 0;
}

static int check_reads(const struct rw_ctx *c, uint32_t depth, uint32_t len,
		       struct rw_stats *st)
{
	for (uint32_t i = 0; i < depth; i++) {
		const struct ini_req *r = &c->reqs[i];
		const uint8_t *w = c->wbuf + (size_t)i * len;
		const uint8_t *d = c->rbuf + (size_t)i * len;

		if (r->c2h_bytes != len) {
			fprintf(stderr, "rw: read %u: %u bytes of %u\n", i,
				r->c2h_bytes, len);
			return -EPROTO;
		}
		if (r->success_flag)
			st->reads_success_flag++;
		if (memcmp(w, d, len)) {
			uint32_t off = 0;
			while (w[off] == d[off])
				off++;
			fprintf(stderr,
				"rw: data mismatch: read %u lba %llu len %u at "
				"byte %u: 0x%02x != 0x%02x\n",
				i, (unsigned long long)c->lbas[i], len, off,
				d[off], w[off]);
			return -EILSEQ;
		}
	}
	return 0;
}

int rw_round(struct ini_queue *q, const struct rw_geom *g, uint32_t len,
	     uint32_t depth, bool sqflow_off, uint16_t sqsize,
	     uint64_t *seed, struct rw_stats *st)
{
	uint32_t nlb = len / g->block_size, i;
	struct rw_ctx c = { 0 };
	int rc = -ENOMEM;

	c.reqs = calloc(depth, sizeof(*c.reqs));
	c.lbas = calloc(depth, sizeof(*c.lbas));
	c.wbuf = malloc((size_t)len * depth);
	c.rbuf = malloc((size_t)len * depth);
	if (!c.reqs || !c.lbas || !c.wbuf || !c.rbuf)
		goto out;
	rc = pick_lbas(g, nlb, depth, seed, c.lbas);
	if (rc)
		goto out;
	fx_fill_random(c.wbuf, (size_t)len * depth, seed);
	memset(c.rbuf, 0xa5, (size_t)len * depth);

	for (i = 0; i < depth; i++)
		ini_req_rw(&c.reqs[i], nvme_cmd_write, g->nsid, c.lbas[i], nlb,
			   c.wbuf + (size_t)i * len, len);
	rc = run_all(q, &c, depth, sqflow_off, sqsize, "write");
	if (rc)
		goto out;
	rc = check_writes(q, &c, depth, len, st);
	if (rc)
		goto out;

	for (i = 0; i < depth; i++)
		ini_req_rw(&c.reqs[i], nvme_cmd_read, g->nsid, c.lbas[i], nlb,
			   c.rbuf + (size_t)i * len, len);
	rc = run_all(q, &c, depth, sqflow_off, sqsize, "read");
	if (rc)
		goto out;
	rc = check_reads(&c, depth, len, st);
out:
	if (rc)
		fprintf(stderr, "rw: round nsid %u len %u depth %u qid %u: %d\n",
			g->nsid, len, depth, ini_queue_qid(q), rc);
	free(c.rbuf);
	free(c.wbuf);
	free(c.lbas);
	free(c.reqs);
	return rc;
}
