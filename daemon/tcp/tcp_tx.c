/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP send side: per-command send state (R2T, C2HData + data +
 * digest, CapsuleResp) on the queue's send list, written with writev() in
 * batches of whole PDUs; partial writes resume where they stopped.
 */
#include "tcp_internal.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const uint8_t zero_pad[128];

/* ---- sending ---- */

static uint32_t hd_len(const struct tcp_queue *q)
{
	return q->params.hdgst ? NVME_TCP_DIGEST_LEN : 0;
}

static uint32_t dd_len(const struct tcp_queue *q)
{
	return q->params.ddgst ? NVME_TCP_DIGEST_LEN : 0;
}

static uint8_t digest_flags(const struct tcp_queue *q, bool data)
{
	return (uint8_t)((q->params.hdgst ? NVME_TCP_F_HDGST : 0) |
			 (data && q->params.ddgst ? NVME_TCP_F_DDGST : 0));
}

static void send_enqueue(struct tcp_queue *q, struct tcp_cmd *c)
{
	c->state = CMD_SEND;
	c->snd_off = 0;
	TAILQ_INSERT_TAIL(&q->send_list, c, link);
	/* Flush from the loop so that completions of one pass batch up. */
	event_active(q->wev, EV_WRITE, 0);
}

void tcp_queue_r2t(struct tcp_cmd *c)
{
	struct tcp_queue *q = c->q;
	struct nvme_tcp_data *r2t = (void *)c->pdu;
	uint32_t len = BLOX_MIN(c->req.data_len - c->r2t_off, NVMF_TCP_MAXH2CDATA);

	memset(r2t, 0, sizeof(*r2t));
	nvme_tcp_hdr_init(&r2t->hdr, NVME_TCP_R2T, digest_flags(q, false),
			  sizeof(*r2t), 0, sizeof(*r2t) + hd_len(q));
	r2t->cccid = c->req.cmd.cid;
	r2t->ttag = c->ttag;
	r2t->datao = c->r2t_off;
	r2t->datal = len;
	if (q->params.hdgst)
		nvme_tcp_hdgst_set(r2t, sizeof(*r2t));
	c->r2t_end = c->r2t_off + len;
	c->r2t_off += len;
	c->snd = SEND_R2T;
	send_enqueue(q, c);
}

/* The Connect of a queue on reactor 0 is answered: stay, or move after it is written. */
static void connect_answered(struct tcp_queue *q, bool ok)
{
	unsigned k;

	if (q->rx != RX_HOLD)
		return;
	k = ok && q->sq.ctrl && q->sq.qid ? tcp_pick_reactor(q->t, q->sq.qid) : 0;
	if (k)
		q->move_to = k; /* once idle (tcp_q_maybe_free) */
	else
		tcp_q_rx_release(q);
}

/* A read's data: where the backend lent it (blox_io.lent), else the command's buffer. */
static void *c2h_data(struct tcp_cmd *c)
{
	return c->req.io.lent ? (void *)c->req.io.lent : c->req.buf;
}

/* On @c's queue's reactor: its response (and data) onto the send list. */
void tcp_q_respond(struct tcp_cmd *c)
{
	struct nvmf_req *req = &c->req;
	struct tcp_queue *q = c->q;
	struct nvme_tcp_rsp *rsp = (void *)c->rsp;
	bool ok = (req->cqe.status >> 1) == 0;

	if ((tcp_q_remote(q) ? q->closing : q->sq.closing) || q->rx == RX_DEAD) {
		tcp_cmd_put(c); /* the connection is going: nothing to send */
		return;
	}
	if (c == q->connect_cmd)
		connect_answered(q, ok);
	nvme_tcp_hdr_init(&rsp->hdr, NVME_TCP_RSP, digest_flags(q, false),
			  sizeof(*rsp), 0, sizeof(*rsp) + hd_len(q));
	rsp->cqe = req->cqe;
	if (q->params.hdgst)
		nvme_tcp_hdgst_set(rsp, sizeof(*rsp));

	if (ok && req->dir == NVMF_DIR_C2H && req->data_len) {
		struct nvme_tcp_data *d = (void *)c->pdu;
		uint32_t align = ((uint32_t)q->hpda + 1) * 4;
		uint32_t hl = sizeof(*d) + hd_len(q);
		uint32_t pdo = (hl + align - 1) / align * align;
		uint8_t flags = digest_flags(q, true) | NVME_TCP_F_DATA_LAST;

		/* SUCCESS (no CapsuleResp) only without SQ flow control. */
		c->skip_rsp = q->sq.sqhd_disabled;
		if (c->skip_rsp)
			flags |= NVME_TCP_F_DATA_SUCCESS;
		memset(d, 0, sizeof(*d));
		nvme_tcp_hdr_init(&d->hdr, NVME_TCP_C2H_DATA, flags, sizeof(*d),
				  (uint8_t)pdo, pdo + req->data_len + dd_len(q));
		d->cccid = req->cmd.cid;
		d->datao = 0;
		d->datal = req->data_len;
		if (q->params.hdgst)
			nvme_tcp_hdgst_set(d, sizeof(*d));
		c->pdu_pad = pdo - hl;
		if (q->params.ddgst)
			c->ddgst = nvme_tcp_crc32c(c2h_data(c), req->data_len);
		c->snd = SEND_C2H;
	} else {
		c->snd = SEND_RSP;
	}
	send_enqueue(q, c);
}

void tcp_queue_response(struct nvmf_req *req)
{
	struct tcp_cmd *c = container_of(req, struct tcp_cmd, req);

	if (tcp_q_remote(c->q))
		tcp_cmd_to_home(c);
	else
		tcp_q_respond(c);
}

/* The iovecs of @c's current PDU; returns their count. */
static int cmd_iov(struct tcp_cmd *c, struct iovec *iov, uint32_t *total)
{
	struct tcp_queue *q = c->q;
	int n = 0;

	switch (c->snd) {
	case SEND_R2T:
		iov[n++] = (struct iovec){ c->pdu, sizeof(struct nvme_tcp_data) +
							   hd_len(q) };
		break;
	case SEND_C2H:
		iov[n++] = (struct iovec){ c->pdu, sizeof(struct nvme_tcp_data) +
							   hd_len(q) };
		if (c->pdu_pad)
			iov[n++] = (struct iovec){ (void *)zero_pad, c->pdu_pad };
		iov[n++] = (struct iovec){ c2h_data(c), c->req.data_len };
		if (q->params.ddgst)
			iov[n++] = (struct iovec){ &c->ddgst, NVME_TCP_DIGEST_LEN };
		break;
	case SEND_RSP:
		iov[n++] = (struct iovec){ c->rsp, sizeof(struct nvme_tcp_rsp) +
							   hd_len(q) };
		break;
	}
	*total = 0;
	for (int i = 0; i < n; i++)
		*total += (uint32_t)iov[i].iov_len;
	return n;
}

/* @c's current PDU is fully written: move it on. */
static void cmd_sent(struct tcp_queue *q, struct tcp_cmd *c)
{
	TCP_STAT(q->tr, pdus_tx);
	c->snd_off = 0;
	switch (c->snd) {
	case SEND_R2T:
		TAILQ_REMOVE(&q->send_list, c, link);
		c->state = CMD_H2C;
		if (q->rx == RX_DEAD)
			tcp_cmd_drop(c); /* closing: its data will never be read */
		break;
	case SEND_C2H:
		blox_io_lend_end(&c->req.io); /* written: the kernel has its copy */
		if (!c->skip_rsp) {
			c->snd = SEND_RSP;
			break;
		}
		/* fall through */
	case SEND_RSP:
		TAILQ_REMOVE(&q->send_list, c, link);
		tcp_cmd_put(c);
		break;
	}
}

/*
 * Gather what goes out next into @iov, one entry of @parts per PDU in the
 * order written: the head's rest when it was cut short (only the head may
 * be), the CapsuleResps of reads whose data went out earlier, the other
 * PDUs (R2T, C2HData) in list order as far as TX_IOV goes. A read of
 * TX_RSP_BIG bytes or more has its CapsuleResp right behind its data (the
 * held responses of smaller reads go before that data); a smaller read's is
 * held back until the data of the reads waiting for theirs reaches
 * TX_RSP_HOLD bytes, or the call ends, and then they go together. A host
 * that completes commands on their CapsuleResps (and resubmits in batches
 * of what it found) then finds those of small reads together, while a
 * large read's comes at once: made to take in megabytes of data before it
 * sees a completion, a host resubmits late and leaves the target idle. At
 * queue depth 1 it is one call with data and response. What a short write
 * left is simply not sent: the kernel took a prefix.
 */
#define TX_RSP_BIG (64u * 1024)
#define TX_RSP_HOLD (256u * 1024)

struct tx_gather {
	struct iovec iov[TX_IOV];
	struct tcp_cmd *parts[TX_IOV];
	int cnt, nparts;
	int held;	/* first part whose read's response is held back; -1: none */
	uint32_t held_bytes;
};

static bool gather_pdu(struct tx_gather *g, struct tcp_cmd *c)
{
	struct iovec piece[4];
	uint32_t total, skip = c->snd_off;
	int pn;

	if (g->cnt + 4 > TX_IOV)
		return false;
	pn = cmd_iov(c, piece, &total);
	for (int i = 0; i < pn; i++) {
		if (skip >= piece[i].iov_len) {
			skip -= (uint32_t)piece[i].iov_len;
			continue;
		}
		g->iov[g->cnt].iov_base = (uint8_t *)piece[i].iov_base + skip;
		g->iov[g->cnt].iov_len = piece[i].iov_len - skip;
		skip = 0;
		g->cnt++;
	}
	g->parts[g->nparts++] = c;
	return true;
}

/* @c is a read whose data goes now and whose CapsuleResp follows it. */
static bool rsp_due(const struct tcp_cmd *c)
{
	return c->snd == SEND_C2H && !c->skip_rsp;
}

/* Its CapsuleResp right behind its data, when a read's is due and there is room. */
static void gather_rsp(struct tcp_queue *q, struct tx_gather *g, struct tcp_cmd *c)
{
	if (!rsp_due(c) || g->cnt + 1 > TX_IOV)
		return;
	g->iov[g->cnt++] = (struct iovec){ c->rsp, sizeof(struct nvme_tcp_rsp) + hd_len(q) };
	g->parts[g->nparts++] = c;
}

/* The held-back responses, behind the data gathered so far. */
static void gather_held(struct tcp_queue *q, struct tx_gather *g)
{
	for (int i = g->held, n = g->nparts; g->held >= 0 && i < n; i++)
		gather_rsp(q, g, g->parts[i]);
	g->held = -1;
	g->held_bytes = 0;
}

/* @c's data PDU (or R2T) and its CapsuleResp now or held back. */
static bool gather_data(struct tcp_queue *q, struct tx_gather *g, struct tcp_cmd *c)
{
	bool due = rsp_due(c), big = due && c->req.data_len >= TX_RSP_BIG;

	if (big)
		gather_held(q, g);
	if (!gather_pdu(g, c))
		return false;
	if (!due)
		return true;
	if (big) {
		gather_rsp(q, g, c);
		return true;
	}
	if (g->held < 0)
		g->held = g->nparts - 1;
	g->held_bytes += c->req.data_len;
	if (g->held_bytes >= TX_RSP_HOLD)
		gather_held(q, g);
	return true;
}

static void gather(struct tcp_queue *q, struct tx_gather *g)
{
	struct tcp_cmd *head = TAILQ_FIRST(&q->send_list), *c;
	bool cut = head && head->snd_off > 0;

	g->cnt = g->nparts = 0;
	g->held = -1;
	g->held_bytes = 0;
	if (q->sock.ssl) {
		/*
		 * TLS: a record cut short must be offered again with the same
		 * bytes (OpenSSL resends what it encrypted), so what follows a
		 * short write may not be reordered: list order, each response
		 * behind its data.
		 */
		TAILQ_FOREACH(c, &q->send_list, link) {
			if (!gather_pdu(g, c))
				return;
			gather_rsp(q, g, c);
		}
		return;
	}
	if (cut && !gather_data(q, g, head))
		return;
	TAILQ_FOREACH(c, &q->send_list, link)
		if (!(cut && c == head) && c->snd == SEND_RSP && !gather_pdu(g, c))
			return;
	TAILQ_FOREACH(c, &q->send_list, link) {
		if ((cut && c == head) || c->snd == SEND_RSP)
			continue;
		if (!gather_data(q, g, c))
			break;
	}
	gather_held(q, g);
}

/*
 * The socket is full: reads whose data was lent (blox_io.lent) and waits
 * to go take a copy into their own buffers now, so that no flash erase
 * waits on a slow host.
 */
static void unlend_all(struct tcp_queue *q)
{
	struct tcp_cmd *c;

	TAILQ_FOREACH(c, &q->send_list, link)
		if (c->snd == SEND_C2H)
			blox_io_unlend(&c->req.io);
}

void tcp_q_flush(struct tcp_queue *q)
{
	struct tx_gather g;

	if (q->sock.hs != TCP_HS_DONE) {
		/* Nothing goes out before the first PDU may (a deadline's close). */
		if (q->close_after_send)
			tcp_q_finish_close(q);
		return;
	}
	while (!q->fd_closed) {
		ssize_t n;
		int i;

		gather(q, &g);
		if (g.cnt == 0 && q->oob_off < q->oob_len) {
			g.iov[0].iov_base = q->oob + q->oob_off;
			g.iov[0].iov_len = q->oob_len - q->oob_off;
			g.cnt = 1;
		}
		if (g.cnt == 0)
			break;

		n = q->sock.ops->writev(&q->sock, g.iov, g.cnt);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				unlend_all(q);
				event_add(q->wev, NULL);
				return;
			}
			if (errno == EINTR)
				continue;
			blox_log(q->t->tgt->log, BLOX_LOG_INFO, "%s: write: %s",
				 q->peer, strerror(errno));
			tcp_q_hard_close(q);
			return;
		}
		/*
		 * Account written bytes against the PDUs in the order written
		 * (a read's response part is its current PDU by then). One cut
		 * short goes to the head: it is the first to go on.
		 */
		for (i = 0; i < g.nparts && n > 0; i++) {
			struct tcp_cmd *c = g.parts[i];
			struct iovec piece[4];
			uint32_t total, left;

			cmd_iov(c, piece, &total);
			left = total - c->snd_off;
			if ((size_t)n < left) {
				c->snd_off += (uint32_t)n;
				n = 0;
				if (c != TAILQ_FIRST(&q->send_list)) {
					TAILQ_REMOVE(&q->send_list, c, link);
					TAILQ_INSERT_HEAD(&q->send_list, c, link);
				}
				break;
			}
			n -= left;
			cmd_sent(q, c);
		}
		if (n > 0) {
			q->oob_off += (uint32_t)n;
			if (q->oob_off == q->oob_len)
				TCP_STAT(q->tr, pdus_tx);
		}
	}
	if (TAILQ_EMPTY(&q->send_list) && q->oob_off == q->oob_len &&
	    q->close_after_send)
		tcp_q_finish_close(q);
}

void tcp_q_write_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_queue *q = arg;

	(void)fd;
	(void)what;
	/* The handshake wanted to write: go on with it, then read. */
	if (q->sock.hs != TCP_HS_DONE) {
		if (tcp_sock_start(q) > 0)
			event_active(q->rev, EV_READ, 0);
		return;
	}
	tcp_q_flush(q);
}

