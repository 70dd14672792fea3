/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP receive side: one state machine per queue (ICReq, header and
 * digest, padding, payload, data digest), fed from a receive buffer or,
 * for large payloads, by readv() straight into the command's buffer.
 * Every header is checked by the PDU codec before anything acts on it.
 */
#include "tcp_internal.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- receiving ---- */

static void rx_expect_header(struct tcp_queue *q)
{
	q->rx = RX_HDR;
	q->pdu_seq++;
	q->hdr_have = 0;
	q->hdr_need = sizeof(struct nvme_tcp_hdr);
}

/* After a header: pad, then payload into @dst, or straight to the next. */
static void rx_expect_data(struct tcp_queue *q, struct tcp_cmd *c,
			   uint8_t *dst, uint32_t len)
{
	q->rx_cmd = c;
	q->rx_dst = dst;
	q->rx_left = q->rx_len = len;
	q->rx_crc = ~0u;
	q->rx_ddgst_have = 0;
	q->pad_left = q->chk.pad_len;
	q->rx = q->pad_left ? RX_PAD : RX_DATA;
}

static uint16_t sgl_parse(struct tcp_queue *q, struct tcp_cmd *c,
			  uint32_t inline_len)
{
	uint32_t max_inline = q->sq.qid ? nvmf_io_inline(q->t->tgt) : NVMF_ADMIN_INLINE;
	struct nvme_sgl_desc d;
	const struct nvme_sgl_desc *sgl = &d;

	/*
	 * Copied out, not read through a cast: dptr is bytes stored by a
	 * struct nvme_sqe assignment, and an optimizer may assume another
	 * struct type never reads them (it did: every length read as 0).
	 */
	memcpy(&d, c->req.cmd.dptr, sizeof(d));

	c->req.data_len = sgl->length;
	if (inline_len) {
		c->req.data_in_capsule = true;
		if (sgl->type != (NVME_SGL_DATA_BLOCK << 4 | NVME_SGL_SUB_OFFSET))
			return NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR;
		if (sgl->addr != 0)
			return NVME_SC_SGL_INVALID_OFFSET | NVME_SC_DNR;
		if (sgl->length != inline_len || inline_len > max_inline)
			return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
		return 0;
	}
	if (sgl->type == (NVME_SGL_TRANSPORT_DATA_BLOCK << 4 | NVME_SGL_SUB_TRANSPORT))
		return 0;
	if (sgl->type == (NVME_SGL_DATA_BLOCK << 4 | NVME_SGL_SUB_OFFSET))
		return sgl->length ? (NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR) : 0;
	return NVME_SC_SGL_INVALID_TYPE | NVME_SC_DNR;
}

/*
 * The direction of a command's data as its opcode says (NVMe: bits 1:0
 * of the opcode, of the fctype for a Fabrics command). A remote queue
 * gets its buffer and data on its own reactor before the core parses the
 * command; the core then checks the parse agrees (tcp_cmd_buf_fits).
 */
static enum nvmf_data_dir opcode_dir(const struct nvme_sqe *cmd)
{
	uint8_t op = cmd->opcode == nvme_admin_fabrics ? ((const uint8_t *)cmd)[4] : cmd->opcode;

	switch (op & 3) {
	case 1:
		return NVMF_DIR_H2C;
	case 2:
		return NVMF_DIR_C2H;
	default:
		return NVMF_DIR_NONE;
	}
}

/* Capsule (and its in-capsule data) complete: into the core. */
static void cmd_ready(struct tcp_cmd *c)
{
	struct nvmf_req *req = &c->req;
	struct tcp_queue *q = c->q;
	uint16_t st;

	/* Its start: when the capsule's last byte reached this host (tcp_rx_time.c). */
	c->rx_ns = tcp_rx_arrival(q);
	if (tcp_q_remote(q)) {
		/* Buffer and data here first, then the core (tcp_hop.c). */
		c->state = CMD_EXEC;
		/*
		 * No data described, or more than MDTS: nothing fetched or
		 * sent, whatever the opcode; the core's parse says what is wrong.
		 */
		req->dir = req->data_len && req->data_len <= nvmf_max_xfer(q->t->tgt)
				   ? opcode_dir(&req->cmd)
				   : NVMF_DIR_NONE;
		/* A Compare reads the media into a scratch half as long. */
		req->scratch_len = req->cmd.opcode == nvme_cmd_compare ? req->data_len : 0;
		if (c->early_status)
			tcp_cmd_to_core(c);
		else
			tcp_cmd_buf_go(c);
		return;
	}
	/*
	 * A Connect may move the queue to another reactor: read nothing
	 * behind it until it is answered (tcp_q_rx_release or tcp_q_move).
	 */
	if (c == q->connect_cmd && q->t->nr_tr > 1 && q->rx == RX_HDR) {
		q->rx = RX_HOLD;
		event_del(q->rev);
	}
	st = nvmf_req_init(req, &q->sq);
	if (c->rx_ns < req->start_ns)
		req->start_ns = c->rx_ns;

	c->state = CMD_EXEC;
	if (c->early_status)
		st = c->early_status;
	if (st) {
		nvmf_req_complete(req, st);
		return;
	}
	tcp_cmd_buf_go(c);
}

static void rx_cmd_hdr(struct tcp_queue *q)
{
	struct nvme_tcp_cmd *pdu = (void *)q->hdr;
	struct tcp_cmd *c;

	/* Before Connect, the free list holds only the pre-Connect context. */
	c = tcp_cmd_get(q);
	if (!c) {
		tcp_q_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0);
		return;
	}
	c->req.cmd = pdu->sqe;
	c->early_status = sgl_parse(q, c, q->chk.data_len);
	if (q->chk.data_len) {
		uint32_t max_inline = q->sq.qid ? nvmf_io_inline(q->t->tgt) : NVMF_ADMIN_INLINE;
		int rc;

		if (q->chk.data_len > max_inline) {
			tcp_cmd_put(c);
			tcp_q_fatal(q, NVME_TCP_FES_DATA_LIMIT_EXCEEDED, 4);
			return;
		}
		c->state = CMD_RECV_INLINE;
		rc = tcp_cmd_inline_buf(c, q->chk.data_len);
		if (rc == -EAGAIN) {
			/* Read nothing more until the buffer comes (tcp_q_rx_resume). */
			q->rx_cmd = c;
			q->rx = RX_WAIT_BUF;
			event_del(q->rev);
			return;
		}
		if (rc) {
			tcp_cmd_put(c);
			tcp_q_hard_close(q);
			return;
		}
		rx_expect_data(q, c, c->req.buf, q->chk.data_len);
		return;
	}
	rx_expect_header(q);
	cmd_ready(c);
}

static struct tcp_cmd *cmd_by_ttag(struct tcp_queue *q, uint16_t ttag)
{
	if (ttag == CONNECT_TTAG)
		return q->connect_cmd;
	if (ttag < q->nr_cmds)
		return &q->cmds[ttag];
	return NULL;
}

static void rx_h2c_hdr(struct tcp_queue *q)
{
	struct nvme_tcp_data *d = (void *)q->hdr;
	struct tcp_cmd *c = cmd_by_ttag(q, d->ttag);

	if (!c || c->state != CMD_H2C) {
		tcp_q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR,
			offsetof(struct nvme_tcp_data, ttag));
		return;
	}
	if (d->cccid != c->req.cmd.cid) {
		tcp_q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR,
			offsetof(struct nvme_tcp_data, cccid));
		return;
	}
	if (d->datal != q->chk.data_len || d->datal == 0) {
		tcp_q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR,
			offsetof(struct nvme_tcp_data, datal));
		return;
	}
	if (d->datal > NVMF_TCP_MAXH2CDATA) {
		tcp_q_fatal(q, NVME_TCP_FES_DATA_LIMIT_EXCEEDED,
			offsetof(struct nvme_tcp_data, datal));
		return;
	}
	if (d->datao != c->rcv_off || d->datal > c->r2t_end - c->rcv_off) {
		tcp_q_fatal(q, NVME_TCP_FES_DATA_OUT_OF_RANGE,
			offsetof(struct nvme_tcp_data, datao));
		return;
	}
	rx_expect_data(q, c, c->req.buf + d->datao, d->datal);
}

static void rx_icreq(struct tcp_queue *q)
{
	struct nvme_tcp_icreq *req = (void *)q->hdr;
	struct nvme_tcp_icresp *rsp = (void *)q->oob;

	if (req->hdr.type != NVME_TCP_ICREQ || req->hdr.hlen != sizeof(*req) ||
	    req->hdr.plen != sizeof(*req) || req->hdr.pdo != 0) {
		tcp_q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 0);
		return;
	}
	if (req->pfv != NVME_TCP_PFV_1_0) {
		tcp_q_fatal(q, NVME_TCP_FES_UNSUPPORTED_PARAM,
			offsetof(struct nvme_tcp_icreq, pfv));
		return;
	}
	if (req->hpda > 31) {
		tcp_q_fatal(q, NVME_TCP_FES_UNSUPPORTED_PARAM,
			offsetof(struct nvme_tcp_icreq, hpda));
		return;
	}
	q->hpda = req->hpda;
	q->maxr2t = req->maxr2t;
	q->params.hdgst = req->digest & NVME_TCP_HDR_DIGEST_ENABLE;
	q->params.ddgst = req->digest & NVME_TCP_DATA_DIGEST_ENABLE;
	q->params.cpda = 0;
	q->params.max_data = BLOX_MAX(NVMF_TCP_MAXH2CDATA, nvmf_io_inline(q->t->tgt));

	memset(rsp, 0, sizeof(*rsp));
	nvme_tcp_hdr_init(&rsp->hdr, NVME_TCP_ICRESP, 0, sizeof(*rsp), 0,
			  sizeof(*rsp));
	rsp->pfv = NVME_TCP_PFV_1_0;
	rsp->cpda = 0;
	rsp->digest = req->digest & (NVME_TCP_HDR_DIGEST_ENABLE |
				     NVME_TCP_DATA_DIGEST_ENABLE);
	rsp->maxdata = NVMF_TCP_MAXH2CDATA;
	q->oob_len = sizeof(*rsp);
	q->oob_off = 0;
	rx_expect_header(q);
	tcp_q_icreq_done(q);
	tcp_q_flush(q);
}

/* The header in q->hdr is complete (with its digest, if any). */
static void rx_header_done(struct tcp_queue *q)
{
	struct nvme_tcp_hdr *h = (void *)q->hdr;

	TCP_STAT(q->tr, pdus_rx);
	if (q->rx == RX_ICREQ) {
		rx_icreq(q);
		return;
	}
	if (q->hdr_need > h->hlen && !nvme_tcp_hdgst_ok(q->hdr, h->hlen)) {
		TCP_STAT(q->tr, hdgst_errors);
		tcp_q_fatal(q, NVME_TCP_FES_HDR_DIGEST_ERR, 0);
		return;
	}
	/* A remote queue's commands touch it in the core (nvmf_req_init). */
	if (!tcp_q_remote(q) && q->sq.ctrl)
		nvmf_ctrl_touch(q->sq.ctrl);
	switch (h->type) {
	case NVME_TCP_CMD:
		rx_cmd_hdr(q);
		break;
	case NVME_TCP_H2C_DATA:
		rx_h2c_hdr(q);
		break;
	case NVME_TCP_H2C_TERM: {
		const struct nvme_tcp_term *t = (const void *)q->hdr;

		TCP_STAT(q->tr, term_received);
		blox_log(q->t->tgt->log, BLOX_LOG_INFO,
			 "%s: host terminated the connection (fes %u)", q->peer,
			 t->fes);
		tcp_q_hard_close(q);
		break;
	}
	default:
		tcp_q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 0);
	}
}

/* The common header arrived: learn the full header length. */
static void rx_common_done(struct tcp_queue *q)
{
	struct nvme_tcp_hdr *h = (void *)q->hdr;

	if (q->rx == RX_ICREQ) {
		if (h->type != NVME_TCP_ICREQ || h->hlen != sizeof(struct nvme_tcp_icreq)) {
			tcp_q_fatal(q, h->type != NVME_TCP_ICREQ ? NVME_TCP_FES_PDU_SEQ_ERR
							     : NVME_TCP_FES_INVALID_PDU_HDR,
				h->type != NVME_TCP_ICREQ ? 0 : 2);
			return;
		}
		q->hdr_need = h->hlen;
		return;
	}
	if (nvme_tcp_check_h2c_hdr(h, &q->params, &q->chk)) {
		tcp_q_fatal(q, q->chk.fes, q->chk.fei);
		return;
	}
	q->hdr_need = h->hlen;
	if (h->flags & NVME_TCP_F_HDGST)
		q->hdr_need += NVME_TCP_DIGEST_LEN;
}

static void rx_data_done(struct tcp_queue *q)
{
	struct tcp_cmd *c = q->rx_cmd;
	bool bad = false;

	if (q->params.ddgst) {
		uint32_t got;

		memcpy(&got, q->rx_ddgst, sizeof(got));
		bad = got != ~q->rx_crc;
		if (bad)
			TCP_STAT(q->tr, ddgst_errors);
	}
	q->rx_cmd = NULL;
	rx_expect_header(q);
	if (bad && !c->early_status)
		c->early_status = NVMF_SC_TRANSIENT_TRANSPORT;

	if (c->state == CMD_RECV_INLINE) {
		cmd_ready(c);
		return;
	}
	c->rcv_off += q->rx_len;
	if (c->rcv_off < c->r2t_end)
		return; /* more H2CData for this R2T */
	if (c->early_status || c->rcv_off == c->req.data_len)
		tcp_cmd_r2t_done(c);
	if (c->early_status || c->rcv_off == c->req.data_len) {
		c->state = CMD_EXEC;
		if (tcp_q_remote(q))
			tcp_cmd_to_core(c);
		else if (c->early_status)
			nvmf_req_complete(&c->req, c->early_status);
		else
			nvmf_req_execute(&c->req);
	} else {
		tcp_queue_r2t(c);
	}
}

/* Consume bytes from the receive buffer through the state machine. */
static void rx_process(struct tcp_queue *q)
{
	while (q->rbuf_off < q->rbuf_len && q->rx != RX_DEAD) {
		uint8_t *p = q->rbuf + q->rbuf_off;
		uint32_t avail = q->rbuf_len - q->rbuf_off, n;

		switch (q->rx) {
		case RX_ICREQ:
		case RX_HDR:
			n = BLOX_MIN(avail, q->hdr_need - q->hdr_have);
			memcpy(q->hdr + q->hdr_have, p, n);
			q->hdr_have += n;
			q->rbuf_off += n;
			if (q->hdr_have == sizeof(struct nvme_tcp_hdr) &&
			    q->hdr_need == sizeof(struct nvme_tcp_hdr))
				rx_common_done(q);
			if (q->rx != RX_DEAD && q->hdr_have == q->hdr_need &&
			    q->hdr_need > sizeof(struct nvme_tcp_hdr))
				rx_header_done(q);
			break;
		case RX_PAD:
			n = BLOX_MIN(avail, q->pad_left);
			q->pad_left -= n;
			q->rbuf_off += n;
			if (!q->pad_left)
				q->rx = RX_DATA;
			break;
		case RX_DATA:
			n = BLOX_MIN(avail, q->rx_left);
			memcpy(q->rx_dst, p, n);
			if (q->params.ddgst)
				q->rx_crc = nvme_tcp_crc32c_update(q->rx_crc, p, n);
			q->rx_dst += n;
			q->rx_left -= n;
			q->rbuf_off += n;
			if (!q->rx_left) {
				if (q->params.ddgst)
					q->rx = RX_DDGST;
				else
					rx_data_done(q);
			}
			break;
		case RX_DDGST:
			n = BLOX_MIN(avail, NVME_TCP_DIGEST_LEN - q->rx_ddgst_have);
			memcpy(q->rx_ddgst + q->rx_ddgst_have, p, n);
			q->rx_ddgst_have += n;
			q->rbuf_off += n;
			if (q->rx_ddgst_have == NVME_TCP_DIGEST_LEN)
				rx_data_done(q);
			break;
		case RX_WAIT_BUF:
		case RX_HOLD:
		case RX_DEAD:
			return;
		}
	}
}

/* Stopped: for a buffer, for the core, or for good. */
static bool rx_stopped(const struct tcp_queue *q)
{
	return q->rx == RX_DEAD || q->rx == RX_WAIT_BUF || q->rx == RX_HOLD;
}

void tcp_q_rx_release(struct tcp_queue *q)
{
	if (q->rx != RX_HOLD)
		return;
	q->rx = RX_HDR;
	event_add(q->rev, NULL);
	/* What came behind the Connect may be in rbuf already. */
	event_active(q->rev, EV_READ, 0);
}

void tcp_q_rx_resume(struct tcp_queue *q)
{
	struct tcp_cmd *c = q->rx_cmd;

	if (q->rx != RX_WAIT_BUF)
		return;
	rx_expect_data(q, c, c->req.buf, q->chk.data_len);
	event_add(q->rev, NULL);
	/* What was read behind the capsule is in rbuf: the read event goes on from it. */
	event_active(q->rev, EV_READ, 0);
}

void tcp_q_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_queue *q = arg;
	int budget;

	(void)what;
	(void)fd;
	if (q->sock.hs != TCP_HS_DONE && tcp_sock_start(q) <= 0)
		return;
	/* Bytes left in rbuf when the receiver stopped for a buffer. */
	if (q->rbuf_off < q->rbuf_len)
		rx_process(q);
	for (budget = RX_BUDGET; budget > 0 && !rx_stopped(q); budget--) {
		uint64_t before;
		size_t want;
		ssize_t n;

		/*
		 * One clock read per read: the bound of when what it brings
		 * arrived (tcp_rx_time.c) and, on reactor 0, the target's time
		 * of the pass again. A libevent pass does not end while
		 * callbacks keep making events active (a queue out of budget
		 * does), so under load one pass can last seconds and its time
		 * would be that old.
		 */
		before = blox_clock_now(q->t->tgt->clock);
		if (!tcp_q_remote(q))
			nvmf_tgt_pass_restart(q->t->tgt, before);

		if (q->rx == RX_DATA && q->rx_left >= 4096) {
			/* Large payload: straight into the command's buffer. */
			struct iovec iov[2] = {
				{ q->rx_dst, q->rx_left },
				{ q->rbuf, RBUF_SIZE },
			};

			want = q->rx_left + RBUF_SIZE;
			n = q->sock.ops->readv(&q->sock, iov, 2);
			if (n > 0) {
				uint32_t direct = (uint32_t)BLOX_MIN((size_t)n, q->rx_left);

				tcp_rx_stamp(q, direct, q->sock.rx_ts, before, (size_t)n < want);

				if (q->params.ddgst)
					q->rx_crc = nvme_tcp_crc32c_update(
						q->rx_crc, q->rx_dst, direct);
				q->rx_dst += direct;
				q->rx_left -= direct;
				q->rbuf_off = 0;
				q->rbuf_len = (uint32_t)n - direct;
				if (!q->rx_left) {
					if (q->params.ddgst)
						q->rx = RX_DDGST;
					else
						rx_data_done(q);
				}
			}
		} else {
			struct iovec iov = { q->rbuf, RBUF_SIZE };

			want = RBUF_SIZE;
			n = q->sock.ops->readv(&q->sock, &iov, 1);
			if (n > 0) {
				tcp_rx_stamp(q, 0, q->sock.rx_ts, before, (size_t)n < want);
				q->rbuf_off = 0;
				q->rbuf_len = (uint32_t)n;
			}
		}
		if (n == 0) {
			blox_log(q->t->tgt->log, BLOX_LOG_DEBUG, "%s: closed by peer",
				 q->peer);
			tcp_q_hard_close(q);
			return;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				tcp_rx_drained(q, before);
				break;
			}
			if (errno == EINTR)
				continue;
			blox_log(q->t->tgt->log, BLOX_LOG_INFO, "%s: read: %s",
				 q->peer, strerror(errno));
			tcp_q_hard_close(q);
			return;
		}
		rx_process(q);
		/* A short read emptied the socket: another would only say EAGAIN. */
		if ((size_t)n < want)
			break;
	}
	tcp_q_rx_mark(q);
	/*
	 * Records already read from the socket (TLS) raise no event: out of
	 * budget, or stopped after a short read, come back for them.
	 */
	if (!rx_stopped(q) && q->sock.ops->pending(&q->sock))
		event_active(q->rev, EV_READ, 0);
	if (!q->fd_closed && !TAILQ_EMPTY(&q->send_list))
		tcp_q_flush(q);
}

