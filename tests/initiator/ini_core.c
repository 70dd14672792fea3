/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The initiator's command core: submit commands without waiting, then
 * read PDUs until completions arrive. Handles in-capsule data, R2T ->
 * H2CData (split at MAXH2CDATA, with data digests), C2HData into the
 * command's buffer (including the SUCCESS-flag ending) and CapsuleResp.
 * A request's cid is its slot index, so lookups are O(1).
 */
#include "ini_internal.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>

void ini_req_init(struct ini_req *r, uint8_t opcode, uint32_t nsid,
		  void *buf, uint32_t len, enum ini_dir dir)
{
	memset(r, 0, sizeof(*r));
	r->sqe.opcode = opcode;
	r->sqe.nsid = nsid;
	r->buf = buf;
	r->len = len;
	r->dir = dir;
}

/* A transport error poisons the queue: the byte stream is out of step. */
static int fail(struct ini_queue *q, int rc)
{
	if (!q->error)
		q->error = rc;
	return rc;
}

static void set_sgl(struct ini_req *r, bool in_capsule)
{
	struct nvme_sgl_desc *s = (struct nvme_sgl_desc *)r->sqe.dptr;

	memset(s, 0, sizeof(*s));
	s->length = r->len;
	if (in_capsule)
		s->type = (NVME_SGL_DATA_BLOCK << 4) | NVME_SGL_SUB_OFFSET;
	else
		s->type = (NVME_SGL_TRANSPORT_DATA_BLOCK << 4) |
			  NVME_SGL_SUB_TRANSPORT;
	r->sqe.flags = (uint8_t)((r->sqe.flags & ~0xc0) | 0x40); /* PSDT SGL */
}

int ini_submit(struct ini_queue *q, struct ini_req *r)
{
	uint8_t hdr[256];
	uint32_t crc, hl, dlen = 0;
	struct iovec iov[3];
	int n = 0, rc;
	uint16_t cid;

	if (q->error)
		return q->error;
	if (!q->ic_done)
		return -ENOTCONN;
	if (q->nr_free == 0)
		return -EBUSY;
	if (r->len && !r->buf)
		return -EINVAL;

	r->done = false;
	r->listed = false;
	r->success_flag = false;
	r->c2h_bytes = r->h2c_bytes = r->nr_r2t = 0;
	memset(&r->cqe, 0, sizeof(r->cqe));
	r->in_capsule = r->dir == INI_DIR_H2C && r->len > 0 &&
			!(r->flags & INI_REQ_NO_INLINE) &&
			((r->flags & INI_REQ_INLINE) || r->len <= q->inline_max);
	if (!(r->flags & INI_REQ_KEEP_SGL))
		set_sgl(r, r->in_capsule);

	cid = q->free_cids[--q->nr_free];
	r->sqe.cid = cid;
	q->slots[cid] = r;

	if (r->in_capsule)
		dlen = r->len;
	hl = ini_pdu_cmd_hdr(q, &r->sqe, dlen, hdr);
	iov[n++] = (struct iovec){ hdr, hl };
	if (dlen) {
		iov[n++] = (struct iovec){ r->buf, dlen };
		if (q->ic.ddgst) {
			crc = nvme_tcp_crc32c(r->buf, dlen);
			iov[n++] = (struct iovec){ &crc, sizeof(crc) };
		}
		r->h2c_bytes = dlen;
	}
	rc = ini_sock_send(q, iov, n);
	if (rc) {
		q->slots[cid] = NULL;
		q->free_cids[q->nr_free++] = cid;
		return fail(q, rc);
	}
	return 0;
}

static void complete(struct ini_queue *q, struct ini_req *r)
{
	q->slots[r->sqe.cid] = NULL;
	q->free_cids[q->nr_free++] = r->sqe.cid;
	r->done = true;
	r->listed = true;
	TAILQ_INSERT_TAIL(&q->done, r, link);
}

static struct ini_req *lookup(struct ini_queue *q, uint16_t cid)
{
	return cid < q->opts.depth ? q->slots[cid] : NULL;
}

/* Answer one R2T with H2CData PDUs of at most MAXH2CDATA bytes. */
static int answer_r2t(struct ini_queue *q, const struct nvme_tcp_data *r2t)
{
	struct ini_req *r = lookup(q, r2t->cccid);
	uint32_t off = r2t->datao, end, max = q->ic.maxh2cdata;
	uint8_t hdr[256];

	if (!r || r->dir != INI_DIR_H2C || r->in_capsule || r2t->datal == 0 ||
	    (uint64_t)r2t->datao + r2t->datal > r->len)
		return -EPROTO;
	end = r2t->datao + r2t->datal;
	if (q->opts.h2c_max && q->opts.h2c_max < max)
		max = q->opts.h2c_max;
	r->nr_r2t++;
	while (off < end) {
		uint32_t len = end - off, crc, hl;
		struct iovec iov[3];
		int n = 0, rc;

		if (len > max)
			len = max;
		hl = ini_pdu_h2c_hdr(q, r2t->cccid, r2t->ttag, off, len,
				     off + len == end, hdr);
		iov[n++] = (struct iovec){ hdr, hl };
		iov[n++] = (struct iovec){ (uint8_t *)r->buf + off, len };
		if (q->ic.ddgst) {
			crc = nvme_tcp_crc32c((uint8_t *)r->buf + off, len);
			iov[n++] = (struct iovec){ &crc, sizeof(crc) };
		}
		rc = ini_sock_send(q, iov, n);
		if (rc)
			return rc;
		off += len;
		r->h2c_bytes += len;
	}
	return 0;
}

static int take_c2h(struct ini_queue *q, const struct nvme_tcp_data *d,
		    const struct nvme_tcp_hdr_check *chk)
{
	struct ini_req *r = lookup(q, d->cccid);
	int tmo = ini_timeout(q), rc;
	uint32_t crc;

	if (!r || r->dir != INI_DIR_C2H || d->datal != chk->data_len ||
	    (uint64_t)d->datao + d->datal > r->len)
		return -EPROTO;
	/* C2HData comes in order, without gaps. */
	if (d->datao != r->c2h_bytes)
		return -EPROTO;
	rc = ini_sock_recv(q, NULL, chk->pad_len, tmo);
	if (rc)
		return rc;
	rc = ini_sock_recv(q, (uint8_t *)r->buf + d->datao, d->datal, tmo);
	if (rc)
		return rc;
	if (d->hdr.flags & NVME_TCP_F_DDGST) {
		rc = ini_sock_recv(q, &crc, sizeof(crc), tmo);
		if (rc)
			return rc;
		if (crc != nvme_tcp_crc32c((uint8_t *)r->buf + d->datao,
					   d->datal))
			return -EBADMSG;
	}
	r->c2h_bytes += d->datal;

	if (d->hdr.flags & NVME_TCP_F_DATA_SUCCESS) {
		/* Only allowed on the last PDU, with SQ flow control off. */
		if (!(d->hdr.flags & NVME_TCP_F_DATA_LAST) ||
		    (!q->sqflow_disabled && !q->opts.accept_success) ||
		    r->c2h_bytes != r->len)
			return -EPROTO;
		memset(&r->cqe, 0, sizeof(r->cqe));
		r->cqe.cid = d->cccid;
		r->cqe.sqid = q->qid;
		r->cqe.sqhd = 0xffff;
		r->success_flag = true;
		complete(q, r);
	}
	return 0;
}

static int take_term(struct ini_queue *q, const uint8_t *hdr,
		     const struct nvme_tcp_hdr_check *chk)
{
	const struct nvme_tcp_term *t = (const struct nvme_tcp_term *)hdr;
	int rc;

	q->term.fes = t->fes;
	q->term.fei = le32_get(t->fei);
	q->term.data_len = chk->data_len;
	rc = ini_sock_recv(q, q->term.data, chk->data_len, ini_timeout(q));
	q->got_term = true;
	return rc ? rc : -ECONNABORTED;
}

/* Read and handle exactly one PDU. */
static int process_one(struct ini_queue *q)
{
	uint8_t hdr[NVME_TCP_MAX_HLEN + NVME_TCP_DIGEST_LEN];
	struct nvme_tcp_hdr *h = (struct nvme_tcp_hdr *)hdr;
	struct nvme_tcp_hdr_check chk;
	uint32_t rest;
	int rc;

	rc = ini_sock_recv(q, hdr, sizeof(*h), ini_timeout(q));
	if (rc)
		return rc;
	if (nvme_tcp_check_c2h_hdr(h, &q->rx, &chk))
		return -EPROTO;
	rest = h->hlen - sizeof(*h);
	if (h->type != NVME_TCP_C2H_TERM && q->rx.hdgst)
		rest += NVME_TCP_DIGEST_LEN;
	rc = ini_sock_recv(q, hdr + sizeof(*h), rest, ini_timeout(q));
	if (rc)
		return rc;
	if (h->type != NVME_TCP_C2H_TERM && q->rx.hdgst &&
	    !nvme_tcp_hdgst_ok(hdr, h->hlen))
		return -EBADMSG;

	switch (h->type) {
	case NVME_TCP_RSP: {
		const struct nvme_tcp_rsp *p = (const struct nvme_tcp_rsp *)hdr;
		struct ini_req *r = lookup(q, p->cqe.cid);
		if (!r)
			return -EPROTO;
		r->cqe = p->cqe;
		q->sqhd = p->cqe.sqhd;
		complete(q, r);
		return 0;
	}
	case NVME_TCP_R2T:
		return answer_r2t(q, (const struct nvme_tcp_data *)hdr);
	case NVME_TCP_C2H_DATA:
		return take_c2h(q, (const struct nvme_tcp_data *)hdr, &chk);
	case NVME_TCP_C2H_TERM:
		return take_term(q, hdr, &chk);
	default:
		return -EPROTO;
	}
}

static int process(struct ini_queue *q)
{
	if (q->error)
		return q->error;
	int rc = process_one(q);
	return rc ? fail(q, rc) : 0;
}

int ini_poll(struct ini_queue *q, struct ini_req **done, int max)
{
	int n = 0, rc;

	while (TAILQ_EMPTY(&q->done)) {
		rc = process(q);
		if (rc)
			return rc;
	}
	while (n < max && !TAILQ_EMPTY(&q->done)) {
		struct ini_req *r = TAILQ_FIRST(&q->done);
		TAILQ_REMOVE(&q->done, r, link);
		r->listed = false;
		done[n++] = r;
	}
	return n;
}

int ini_wait(struct ini_queue *q, struct ini_req *r)
{
	int rc;

	while (!r->done) {
		rc = process(q);
		if (rc)
			return rc;
	}
	if (r->listed) {
		TAILQ_REMOVE(&q->done, r, link);
		r->listed = false;
	}
	return 0;
}

int ini_exec(struct ini_queue *q, struct ini_req *r)
{
	int rc = ini_submit(q, r);
	return rc ? rc : ini_wait(q, r);
}
