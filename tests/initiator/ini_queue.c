/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Initiator queues: one TCP connection each. Opening, the ICReq/ICResp
 * exchange, accessors, and the PDU header builders that the command core
 * and the raw-mode tests share.
 */
#include "ini_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ini_opts_init(struct ini_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->in_capsule = true;
	o->timeout_ms = INI_DEFAULT_TIMEOUT_MS;
	o->depth = INI_DEFAULT_DEPTH;
}

int ini_queue_open(const char *addr, uint16_t port, const struct ini_opts *o,
		   struct ini_queue **out)
{
	struct ini_queue *q;
	uint32_t i;
	int rc = -ENOMEM;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	if (o)
		q->opts = *o;
	else
		ini_opts_init(&q->opts);
	if (q->opts.depth == 0)
		q->opts.depth = INI_DEFAULT_DEPTH;
	if (q->opts.depth > 65535)
		q->opts.depth = 65535; /* cid 0xFFFF stays unused */
	q->fd = -1;
	TAILQ_INIT(&q->done);

	q->rxbuf = malloc(INI_RXBUF_SIZE);
	if (!q->rxbuf)
		goto free_q;
	q->slots = calloc(q->opts.depth, sizeof(*q->slots));
	if (!q->slots)
		goto free_rxbuf;
	q->free_cids = calloc(q->opts.depth, sizeof(*q->free_cids));
	if (!q->free_cids)
		goto free_slots;
	/* Pop order hands out cid 0, 1, 2, ... first. */
	for (i = 0; i < q->opts.depth; i++)
		q->free_cids[i] = (uint16_t)(q->opts.depth - 1 - i);
	q->nr_free = q->opts.depth;
	q->inline_max = q->opts.in_capsule ? INI_ADMIN_INLINE : 0;

	rc = ini_sock_connect(addr, port, ini_timeout(q));
	if (rc < 0)
		goto free_cids;
	q->fd = rc;
	if (q->opts.tls_psk) {
		rc = ini_tls_start(q);
		if (rc) {
			ini_queue_destroy(q);
			return rc;
		}
	}
	*out = q;
	return 0;

free_cids:
	free(q->free_cids);
free_slots:
	free(q->slots);
free_rxbuf:
	free(q->rxbuf);
free_q:
	free(q);
	return rc;
}

int ini_queue_icreq(struct ini_queue *q)
{
	struct nvme_tcp_icreq req;
	struct nvme_tcp_icresp rsp;
	int rc;

	memset(&req, 0, sizeof(req));
	nvme_tcp_hdr_init(&req.hdr, NVME_TCP_ICREQ, 0, sizeof(req), 0,
			  sizeof(req));
	req.pfv = q->opts.pfv;
	req.hpda = q->opts.hpda;
	req.digest = (q->opts.hdgst ? NVME_TCP_HDR_DIGEST_ENABLE : 0) |
		     (q->opts.ddgst ? NVME_TCP_DATA_DIGEST_ENABLE : 0);
	req.maxr2t = q->opts.maxr2t;
	rc = ini_raw_send(q, &req, sizeof(req));
	if (rc)
		return rc;

	rc = ini_sock_recv(q, &rsp.hdr, sizeof(rsp.hdr), ini_timeout(q));
	if (rc)
		return rc;
	if (rsp.hdr.type == NVME_TCP_C2H_TERM &&
	    rsp.hdr.hlen == sizeof(struct nvme_tcp_term) &&
	    rsp.hdr.plen >= rsp.hdr.hlen &&
	    rsp.hdr.plen <= rsp.hdr.hlen + (uint32_t)NVME_TCP_TERM_MAX_DATA) {
		struct nvme_tcp_term t;
		memcpy(&t.hdr, &rsp.hdr, sizeof(t.hdr));
		rc = ini_sock_recv(q, (uint8_t *)&t + sizeof(t.hdr),
				   sizeof(t) - sizeof(t.hdr), ini_timeout(q));
		if (rc)
			return rc;
		q->term.fes = t.fes;
		q->term.fei = le32_get(t.fei);
		q->term.data_len = t.hdr.plen - t.hdr.hlen;
		rc = ini_sock_recv(q, q->term.data, q->term.data_len,
				   ini_timeout(q));
		q->got_term = true;
		return rc ? rc : -EPROTO;
	}
	if (rsp.hdr.type != NVME_TCP_ICRESP || rsp.hdr.hlen != sizeof(rsp) ||
	    rsp.hdr.plen != sizeof(rsp) || rsp.hdr.pdo != 0 ||
	    rsp.hdr.flags != 0)
		return -EPROTO;
	rc = ini_sock_recv(q, (uint8_t *)&rsp + sizeof(rsp.hdr),
			   sizeof(rsp) - sizeof(rsp.hdr), ini_timeout(q));
	if (rc)
		return rc;

	q->ic.pfv = rsp.pfv;
	q->ic.cpda = rsp.cpda;
	q->ic.hdgst = rsp.digest & NVME_TCP_HDR_DIGEST_ENABLE;
	q->ic.ddgst = rsp.digest & NVME_TCP_DATA_DIGEST_ENABLE;
	q->ic.maxh2cdata = rsp.maxdata;
	/* The target may refuse a digest but never impose one. */
	if (rsp.pfv != NVME_TCP_PFV_1_0 || (q->ic.hdgst && !q->opts.hdgst) ||
	    (q->ic.ddgst && !q->opts.ddgst) || rsp.cpda > 31 ||
	    rsp.maxdata < 4096 || rsp.maxdata % 4 != 0)
		return -EPROTO;

	q->rx.hdgst = q->ic.hdgst;
	q->rx.ddgst = q->ic.ddgst;
	q->rx.cpda = q->opts.hpda; /* the alignment we asked the target for */
	q->rx.max_data = INI_MAX_PDU;
	q->ic_done = true;
	return 0;
}

int ini_queue_connect(const char *addr, uint16_t port,
		      const struct ini_opts *o, struct ini_queue **out)
{
	struct ini_queue *q;
	int rc;

	rc = ini_queue_open(addr, port, o, &q);
	if (rc)
		return rc;
	rc = ini_queue_icreq(q);
	if (rc) {
		ini_queue_destroy(q);
		return rc;
	}
	*out = q;
	return 0;
}

void ini_queue_destroy(struct ini_queue *q)
{
	if (!q)
		return;
	ini_tls_free(q);
	if (q->fd >= 0)
		close(q->fd);
	free(q->free_cids);
	free(q->slots);
	free(q->rxbuf);
	free(q);
}

const struct ini_icresp_info *ini_queue_icresp(const struct ini_queue *q)
{
	return &q->ic;
}

const struct ini_opts *ini_queue_opts(const struct ini_queue *q)
{
	return &q->opts;
}

const struct ini_term *ini_queue_term(const struct ini_queue *q)
{
	return q->got_term ? &q->term : NULL;
}

uint16_t ini_queue_sqhd(const struct ini_queue *q)
{
	return q->sqhd;
}

void ini_queue_set_inline(struct ini_queue *q, uint32_t bytes)
{
	q->inline_max = q->opts.in_capsule ? bytes : 0;
}

uint32_t ini_queue_inline(const struct ini_queue *q)
{
	return q->inline_max;
}

uint32_t ini_queue_outstanding(const struct ini_queue *q)
{
	return q->opts.depth - q->nr_free;
}

int ini_queue_fd(const struct ini_queue *q)
{
	return q->fd;
}

void ini_queue_set_qid(struct ini_queue *q, uint16_t qid)
{
	q->qid = qid;
}

uint16_t ini_queue_qid(const struct ini_queue *q)
{
	return q->qid;
}

/*
 * Header part of a data-carrying PDU: common + specific header (@psh,
 * @hlen bytes), header digest, pad up to the target's CPDA. Returns the
 * bytes written to @out (at least 256 bytes), which is the PDO when
 * @dlen > 0.
 */
static uint32_t build_hdr(const struct ini_queue *q, const void *psh,
			  uint8_t hlen, uint32_t dlen, uint8_t *out)
{
	struct nvme_tcp_hdr *h = (struct nvme_tcp_hdr *)out;
	uint32_t hd = q->ic.hdgst ? NVME_TCP_DIGEST_LEN : 0;
	uint32_t dd = (q->ic.ddgst && dlen) ? NVME_TCP_DIGEST_LEN : 0;
	uint32_t align = ((uint32_t)q->ic.cpda + 1) * 4;
	uint32_t pdo = 0, len = hlen + hd;

	memcpy(out, psh, hlen);
	if (dlen) {
		pdo = (len + align - 1) / align * align;
		memset(out + len, 0, pdo - len);
	}
	h->flags = (uint8_t)((hd ? NVME_TCP_F_HDGST : 0) |
			     (dd ? NVME_TCP_F_DDGST : 0) |
			     (h->flags & ~(NVME_TCP_F_HDGST | NVME_TCP_F_DDGST)));
	h->hlen = hlen;
	h->pdo = (uint8_t)pdo;
	h->plen = dlen ? pdo + dlen + dd : len;
	if (hd)
		nvme_tcp_hdgst_set(out, hlen);
	return dlen ? pdo : len;
}

uint32_t ini_pdu_cmd_hdr(const struct ini_queue *q, const struct nvme_sqe *sqe,
			 uint32_t dlen, uint8_t *out)
{
	struct nvme_tcp_cmd c;

	memset(&c, 0, sizeof(c));
	c.hdr.type = NVME_TCP_CMD;
	c.sqe = *sqe;
	return build_hdr(q, &c, sizeof(c), dlen, out);
}

uint32_t ini_pdu_h2c_hdr(const struct ini_queue *q, uint16_t cccid,
			 uint16_t ttag, uint32_t datao, uint32_t dlen,
			 bool last, uint8_t *out)
{
	struct nvme_tcp_data d;

	memset(&d, 0, sizeof(d));
	d.hdr.type = NVME_TCP_H2C_DATA;
	d.hdr.flags = last ? NVME_TCP_F_DATA_LAST : 0;
	d.cccid = cccid;
	d.ttag = ttag;
	d.datao = datao;
	d.datal = dlen;
	return build_hdr(q, &d, sizeof(d), dlen, out);
}

/* Header, data and data digest laid end to end in @out. */
static int flatten(const struct ini_queue *q, const uint8_t *hdr,
		   uint32_t hlen, const void *data, uint32_t dlen,
		   uint8_t *out, size_t cap)
{
	uint32_t dd = (q->ic.ddgst && dlen) ? NVME_TCP_DIGEST_LEN : 0;
	size_t total = (size_t)hlen + dlen + dd;

	if (total > cap || total > INT32_MAX)
		return -ENOSPC;
	memcpy(out, hdr, hlen);
	if (dlen)
		memcpy(out + hlen, data, dlen);
	if (dd) {
		uint32_t crc = nvme_tcp_crc32c(data, dlen);
		memcpy(out + hlen + dlen, &crc, sizeof(crc));
	}
	return (int)total;
}

int ini_pdu_build_cmd(const struct ini_queue *q, const struct nvme_sqe *sqe,
		      const void *data, uint32_t dlen, uint8_t *out,
		      size_t cap)
{
	uint8_t hdr[256];
	uint32_t hl = ini_pdu_cmd_hdr(q, sqe, dlen, hdr);
	return flatten(q, hdr, hl, data, dlen, out, cap);
}

int ini_pdu_build_h2c(const struct ini_queue *q, uint16_t cccid,
		      uint16_t ttag, uint32_t datao, const void *data,
		      uint32_t dlen, bool last, uint8_t *out, size_t cap)
{
	uint8_t hdr[256];
	uint32_t hl = ini_pdu_h2c_hdr(q, cccid, ttag, datao, dlen, last, hdr);
	return flatten(q, hdr, hl, data, dlen, out, cap);
}
