/*
 * NVMe/TCP transport. Each accepted connection is one queue (struct
 * tcp_queue, embedding the core's struct nvmf_sq). Receiving is one state
 * machine per queue (rx_state); sending is one state per command
 * (send_state) on a per-queue send list that is written with writev() in
 * batches. Command contexts and their data buffers are allocated when the
 * Connect installs the queue and recycled through a free list: the data
 * path never allocates.
 */
#include "tcp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#define RBUF_SIZE (64u * 1024)
#define RX_BUDGET 16 /* recv() calls per read event */
#define TX_IOV 64
#define CMD_SLACK 16 /* contexts beyond the SQ size */
#define CONNECT_TTAG 0xfffe /* transfer tag of the pre-Connect context */

enum rx_state {
	RX_ICREQ, /* waiting for the ICReq */
	RX_HDR, /* collecting a PDU header (+ header digest) */
	RX_PAD, /* skipping padding up to PDO */
	RX_DATA, /* payload into a command's buffer */
	RX_DDGST, /* data digest */
	RX_DEAD, /* fatal error or closing: nothing more is read */
};

enum cmd_state {
	CMD_FREE,
	CMD_RECV_INLINE, /* in-capsule data arriving */
	CMD_H2C, /* waiting for H2CData answering our R2T */
	CMD_EXEC, /* in the core or the backend */
	CMD_SEND, /* on the send list */
};

enum send_state {
	SEND_R2T,
	SEND_C2H, /* C2HData header, data, data digest */
	SEND_RSP, /* CapsuleResp */
};

struct tcp_queue;

struct tcp_cmd {
	struct nvmf_req req;
	struct tcp_queue *q;
	uint16_t ttag;
	enum cmd_state state;
	enum send_state snd;
	uint16_t early_status; /* error found before execution */
	uint32_t r2t_off; /* bytes requested by R2Ts so far */
	uint32_t r2t_end; /* end of the outstanding R2T */
	uint32_t rcv_off; /* bytes of H2C data received */
	uint32_t snd_off; /* bytes of the current PDU already written */
	uint8_t pdu[sizeof(struct nvme_tcp_data) + NVME_TCP_DIGEST_LEN] __attribute__((aligned(8)));
	uint32_t pdu_pad; /* zero bytes between C2HData header and data */
	uint8_t rsp[sizeof(struct nvme_tcp_rsp) + NVME_TCP_DIGEST_LEN] __attribute__((aligned(8)));
	uint32_t ddgst;
	bool skip_rsp;
	TAILQ_ENTRY(tcp_cmd) link;
};

struct tcp_queue {
	struct nvmf_sq sq;
	struct nvmf_tcp *t;
	int fd;
	struct event *rev, *wev, *free_ev;
	char peer[INET6_ADDRSTRLEN + 8];

	/* Receive side. */
	enum rx_state rx;
	uint8_t hdr[NVME_TCP_MAX_HLEN + NVME_TCP_DIGEST_LEN] __attribute__((aligned(8)));
	uint32_t hdr_have, hdr_need;
	struct nvme_tcp_hdr_check chk;
	uint32_t pad_left;
	struct tcp_cmd *rx_cmd;
	uint8_t *rx_dst;
	uint32_t rx_left, rx_len;
	uint32_t rx_crc;
	uint8_t rx_ddgst[NVME_TCP_DIGEST_LEN];
	uint32_t rx_ddgst_have;
	uint8_t *rbuf;
	uint32_t rbuf_off, rbuf_len;

	/* Negotiated at ICReq. */
	struct nvme_tcp_params params;
	uint8_t hpda;
	uint32_t maxr2t;

	/* Commands. */
	struct tcp_cmd *cmds;
	uint32_t nr_cmds;
	uint8_t *bufs;
	size_t bufs_len;
	struct tcp_cmd *connect_cmd;
	uint8_t *connect_bufs;
	TAILQ_HEAD(, tcp_cmd) free_cmds;
	TAILQ_HEAD(, tcp_cmd) send_list;
	uint32_t inflight; /* contexts not on the free list */

	/* A PDU outside any command: ICResp or C2HTermReq. */
	uint8_t oob[sizeof(struct nvme_tcp_icresp) + NVME_TCP_TERM_MAX_DATA] __attribute__((aligned(8)));
	uint32_t oob_len, oob_off;
	bool close_after_send; /* close once everything queued is written */
	bool fd_closed;
	TAILQ_ENTRY(tcp_queue) link;
};

struct tcp_listener {
	struct nvmf_port *port;
	struct evconnlistener *lev;
	struct nvmf_tcp *t;
};

struct nvmf_tcp {
	struct nvmf_tgt *tgt;
	TAILQ_HEAD(, tcp_queue) queues;
	uint32_t nr_queues;
	struct nvmf_tcp_stats stats;
};

static const uint8_t zero_pad[128];

static void q_flush(struct tcp_queue *q);
static void q_hard_close(struct tcp_queue *q);
static void rx_process(struct tcp_queue *q);

static struct tcp_queue *sq_to_q(struct nvmf_sq *sq)
{
	return container_of(sq, struct tcp_queue, sq);
}

/* ---- command contexts ---- */

static int cmds_alloc(uint32_t n, struct tcp_cmd **cmds, uint8_t **bufs,
		      size_t *bufs_len)
{
	size_t len = (size_t)n * 2 * NVMF_MAX_XFER;
	void *m;

	*cmds = calloc(n, sizeof(**cmds));
	if (!*cmds)
		return -ENOMEM;
	/* Only touched pages cost memory: NORESERVE anonymous mapping. */
	m = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		free(*cmds);
		*cmds = NULL;
		return -ENOMEM;
	}
	*bufs = m;
	*bufs_len = len;
	for (uint32_t i = 0; i < n; i++) {
		(*cmds)[i].req.buf = *bufs + (size_t)i * 2 * NVMF_MAX_XFER;
		(*cmds)[i].req.scratch = (*cmds)[i].req.buf + NVMF_MAX_XFER;
	}
	return 0;
}

static struct tcp_cmd *cmd_get(struct tcp_queue *q)
{
	struct tcp_cmd *c = TAILQ_FIRST(&q->free_cmds);

	if (!c)
		return NULL;
	TAILQ_REMOVE(&q->free_cmds, c, link);
	q->inflight++;
	c->state = CMD_EXEC;
	c->early_status = 0;
	c->r2t_off = c->r2t_end = c->rcv_off = 0;
	c->snd_off = 0;
	c->skip_rsp = false;
	c->req.data_len = 0;
	c->req.data_in_capsule = false;
	return c;
}

static void q_maybe_free(struct tcp_queue *q)
{
	if (q->fd_closed && q->inflight == 0)
		event_active(q->free_ev, 0, 0);
}

static void cmd_put(struct tcp_cmd *c)
{
	struct tcp_queue *q = c->q;

	c->state = CMD_FREE;
	q->inflight--;
	/* The pre-Connect context retires once the pool exists. */
	if (c != q->connect_cmd || !q->cmds)
		TAILQ_INSERT_TAIL(&q->free_cmds, c, link);
	q_maybe_free(q);
}

static int tcp_install_queue(struct nvmf_sq *sq, uint32_t size)
{
	struct tcp_queue *q = sq_to_q(sq);
	uint32_t n = size + CMD_SLACK;
	int rc;

	if (q->cmds)
		return -EALREADY;
	rc = cmds_alloc(n, &q->cmds, &q->bufs, &q->bufs_len);
	if (rc)
		return rc;
	q->nr_cmds = n;
	/* The Connect context is in use now; it is dropped when done. */
	TAILQ_INIT(&q->free_cmds);
	for (uint32_t i = 0; i < n; i++) {
		q->cmds[i].q = q;
		q->cmds[i].ttag = (uint16_t)i;
		TAILQ_INSERT_TAIL(&q->free_cmds, &q->cmds[i], link);
	}
	return 0;
}

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

static void queue_r2t(struct tcp_cmd *c)
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

static void tcp_queue_response(struct nvmf_req *req)
{
	struct tcp_cmd *c = container_of(req, struct tcp_cmd, req);
	struct tcp_queue *q = c->q;
	struct nvme_tcp_rsp *rsp = (void *)c->rsp;
	bool ok = (req->cqe.status >> 1) == 0;

	if (q->sq.closing || q->rx == RX_DEAD) {
		cmd_put(c); /* the connection is going: nothing to send */
		return;
	}
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
			c->ddgst = nvme_tcp_crc32c(req->buf, req->data_len);
		c->snd = SEND_C2H;
	} else {
		c->snd = SEND_RSP;
	}
	send_enqueue(q, c);
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
		iov[n++] = (struct iovec){ c->req.buf, c->req.data_len };
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
	q->t->stats.pdus_tx++;
	c->snd_off = 0;
	switch (c->snd) {
	case SEND_R2T:
		TAILQ_REMOVE(&q->send_list, c, link);
		c->state = CMD_H2C;
		if (q->rx == RX_DEAD)
			cmd_put(c); /* closing: its data will never be read */
		break;
	case SEND_C2H:
		if (!c->skip_rsp) {
			c->snd = SEND_RSP;
			break;
		}
		/* fall through */
	case SEND_RSP:
		TAILQ_REMOVE(&q->send_list, c, link);
		cmd_put(c);
		break;
	}
}

static void q_finish_close(struct tcp_queue *q)
{
	if (q->fd_closed)
		return;
	event_del(q->rev);
	event_del(q->wev);
	close(q->fd);
	q->fd = -1;
	q->fd_closed = true;
	q_maybe_free(q);
}

static void q_flush(struct tcp_queue *q)
{
	struct iovec iov[TX_IOV];

	while (!q->fd_closed) {
		struct tcp_cmd *c;
		int cnt = 0;
		ssize_t n;

		/* Gather whole PDUs from the send list, skipping what's sent. */
		TAILQ_FOREACH(c, &q->send_list, link) {
			struct iovec piece[4];
			uint32_t total, skip = c->snd_off;
			int pn;

			if (cnt + 4 > TX_IOV)
				break;
			pn = cmd_iov(c, piece, &total);
			for (int i = 0; i < pn; i++) {
				if (skip >= piece[i].iov_len) {
					skip -= (uint32_t)piece[i].iov_len;
					continue;
				}
				iov[cnt].iov_base = (uint8_t *)piece[i].iov_base + skip;
				iov[cnt].iov_len = piece[i].iov_len - skip;
				skip = 0;
				cnt++;
			}
			if (c->snd == SEND_C2H && !c->skip_rsp &&
			    cnt + 1 <= TX_IOV) {
				/* The response follows its data in the same call. */
				iov[cnt++] = (struct iovec){
					c->rsp, sizeof(struct nvme_tcp_rsp) + hd_len(q)
				};
			}
		}
		if (cnt == 0 && q->oob_off < q->oob_len) {
			iov[0].iov_base = q->oob + q->oob_off;
			iov[0].iov_len = q->oob_len - q->oob_off;
			cnt = 1;
		}
		if (cnt == 0)
			break;

		n = writev(q->fd, iov, cnt);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				event_add(q->wev, NULL);
				return;
			}
			if (errno == EINTR)
				continue;
			blox_log(q->t->tgt->log, BLOX_LOG_INFO, "%s: write: %s",
				 q->peer, strerror(errno));
			q_hard_close(q);
			return;
		}
		/* Account written bytes against the PDUs in order. */
		while (n > 0 && (c = TAILQ_FIRST(&q->send_list))) {
			struct iovec piece[4];
			uint32_t total, left;

			cmd_iov(c, piece, &total);
			left = total - c->snd_off;
			if ((size_t)n < left) {
				c->snd_off += (uint32_t)n;
				n = 0;
				break;
			}
			n -= left;
			cmd_sent(q, c);
		}
		if (n > 0) {
			q->oob_off += (uint32_t)n;
			if (q->oob_off == q->oob_len)
				q->t->stats.pdus_tx++;
		}
	}
	if (TAILQ_EMPTY(&q->send_list) && q->oob_off == q->oob_len &&
	    q->close_after_send)
		q_finish_close(q);
}

static void q_write_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	q_flush(arg);
}

/* ---- closing ---- */

/* Drop everything unsent; commands in the backend are dropped later. */
static void drop_send_list(struct tcp_queue *q, bool keep_partial_head)
{
	struct tcp_cmd *c, *tmp;

	TAILQ_FOREACH_SAFE(c, &q->send_list, link, tmp) {
		if (keep_partial_head && c == TAILQ_FIRST(&q->send_list) &&
		    c->snd_off > 0)
			continue;
		TAILQ_REMOVE(&q->send_list, c, link);
		cmd_put(c);
	}
}

/* Stop taking PDUs: AERs parked in the core come back and are dropped. */
static void q_stop_rx(struct tcp_queue *q)
{
	if (q->rx == RX_DEAD)
		return;
	q->rx = RX_DEAD;
	event_del(q->rev);
	/* A context receiving data belongs to nobody else: release it. */
	if (q->rx_cmd && (q->rx_cmd->state == CMD_RECV_INLINE))
		cmd_put(q->rx_cmd);
	q->rx_cmd = NULL;
	for (uint32_t i = 0; i < q->nr_cmds; i++)
		if (q->cmds[i].state == CMD_H2C)
			cmd_put(&q->cmds[i]);
	if (q->connect_cmd && q->connect_cmd->state == CMD_H2C)
		cmd_put(q->connect_cmd);
	nvmf_sq_quiesce(&q->sq);
}

static void q_hard_close(struct tcp_queue *q)
{
	q->sq.closing = true;
	q_stop_rx(q);
	drop_send_list(q, false);
	q->oob_len = q->oob_off = 0;
	q_finish_close(q);
	if (q->sq.ctrl && q->sq.qid == 0)
		nvmf_ctrl_fatal(q->sq.ctrl, "admin connection lost");
}

/* Core asks us to go away: send what is queued, then close. */
static void tcp_queue_close(struct nvmf_sq *sq)
{
	struct tcp_queue *q = sq_to_q(sq);

	sq->closing = true;
	q_stop_rx(q);
	q->close_after_send = true;
	q_flush(q);
}

/*
 * Fatal transport error: a C2HTermReq carrying the offending header, then
 * the connection closes. The controller's other queues carry on (the host
 * decides what to do with them); an admin queue takes its controller down.
 */
static void q_fatal(struct tcp_queue *q, uint16_t fes, uint32_t fei)
{
	struct nvme_tcp_term *term = (void *)q->oob;
	uint32_t dlen = BLOX_MIN(q->hdr_have, (uint32_t)NVME_TCP_TERM_MAX_DATA);

	blox_log(q->t->tgt->log, BLOX_LOG_WARN,
		 "%s: fatal transport error fes %u fei %u (pdu type 0x%02x)",
		 q->peer, fes, fei, q->hdr_have ? q->hdr[0] : 0xff);
	q->t->stats.term_sent++;
	q->sq.closing = true;
	q_stop_rx(q);
	drop_send_list(q, true);
	memset(term, 0, sizeof(*term));
	nvme_tcp_hdr_init(&term->hdr, NVME_TCP_C2H_TERM, 0, sizeof(*term), 0,
			  sizeof(*term) + dlen);
	term->fes = fes;
	memcpy(term->fei, &fei, sizeof(fei));
	memcpy(q->oob + sizeof(*term), q->hdr, dlen);
	q->oob_len = sizeof(*term) + dlen;
	q->oob_off = 0;
	q->close_after_send = true;
	if (q->sq.ctrl && q->sq.qid == 0)
		nvmf_ctrl_fatal(q->sq.ctrl, "transport error on admin queue");
	q_flush(q);
}

static void q_free_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_queue *q = arg;
	struct nvmf_tcp *t = q->t;

	(void)fd;
	(void)what;
	if (!q->fd_closed || q->inflight)
		return;
	nvmf_sq_fini(&q->sq);
	TAILQ_REMOVE(&t->queues, q, link);
	t->nr_queues--;
	t->stats.queues_closed++;
	event_free(q->rev);
	event_free(q->wev);
	event_free(q->free_ev);
	if (q->bufs)
		munmap(q->bufs, q->bufs_len);
	munmap(q->connect_bufs, 2 * NVMF_MAX_XFER);
	free(q->connect_cmd);
	free(q->cmds);
	free(q->rbuf);
	free(q);
}

/* ---- receiving ---- */

static void rx_expect_header(struct tcp_queue *q)
{
	q->rx = RX_HDR;
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
	const struct nvme_sgl_desc *sgl = (const void *)c->req.cmd.dptr;
	uint32_t max_inline = q->sq.qid ? NVMF_IO_INLINE : NVMF_ADMIN_INLINE;

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

/* Capsule (and its in-capsule data) complete: into the core. */
static void cmd_ready(struct tcp_cmd *c)
{
	struct nvmf_req *req = &c->req;
	uint16_t st = nvmf_req_init(req, &c->q->sq);

	c->state = CMD_EXEC;
	if (c->early_status)
		st = c->early_status;
	if (st) {
		nvmf_req_complete(req, st);
		return;
	}
	if (req->dir == NVMF_DIR_H2C && !req->data_in_capsule) {
		queue_r2t(c);
		return;
	}
	nvmf_req_execute(req);
}

static void rx_cmd_hdr(struct tcp_queue *q)
{
	struct nvme_tcp_cmd *pdu = (void *)q->hdr;
	struct tcp_cmd *c;

	/* Before Connect, the free list holds only the pre-Connect context. */
	c = cmd_get(q);
	if (!c) {
		q_fatal(q, NVME_TCP_FES_PDU_SEQ_ERR, 0);
		return;
	}
	c->req.cmd = pdu->sqe;
	c->early_status = sgl_parse(q, c, q->chk.data_len);
	if (q->chk.data_len) {
		uint32_t max_inline = q->sq.qid ? NVMF_IO_INLINE : NVMF_ADMIN_INLINE;

		if (q->chk.data_len > max_inline) {
			cmd_put(c);
			q_fatal(q, NVME_TCP_FES_DATA_LIMIT_EXCEEDED, 4);
			return;
		}
		c->state = CMD_RECV_INLINE;
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
		q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR,
			offsetof(struct nvme_tcp_data, ttag));
		return;
	}
	if (d->cccid != c->req.cmd.cid) {
		q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR,
			offsetof(struct nvme_tcp_data, cccid));
		return;
	}
	if (d->datal != q->chk.data_len || d->datal == 0) {
		q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR,
			offsetof(struct nvme_tcp_data, datal));
		return;
	}
	if (d->datal > NVMF_TCP_MAXH2CDATA) {
		q_fatal(q, NVME_TCP_FES_DATA_LIMIT_EXCEEDED,
			offsetof(struct nvme_tcp_data, datal));
		return;
	}
	if (d->datao != c->rcv_off || d->datal > c->r2t_end - c->rcv_off) {
		q_fatal(q, NVME_TCP_FES_DATA_OUT_OF_RANGE,
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
		q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 0);
		return;
	}
	if (req->pfv != NVME_TCP_PFV_1_0) {
		q_fatal(q, NVME_TCP_FES_UNSUPPORTED_PARAM,
			offsetof(struct nvme_tcp_icreq, pfv));
		return;
	}
	if (req->hpda > 31) {
		q_fatal(q, NVME_TCP_FES_UNSUPPORTED_PARAM,
			offsetof(struct nvme_tcp_icreq, hpda));
		return;
	}
	q->hpda = req->hpda;
	q->maxr2t = req->maxr2t;
	q->params.hdgst = req->digest & NVME_TCP_HDR_DIGEST_ENABLE;
	q->params.ddgst = req->digest & NVME_TCP_DATA_DIGEST_ENABLE;
	q->params.cpda = 0;
	q->params.max_data = BLOX_MAX(NVMF_TCP_MAXH2CDATA, (uint32_t)NVMF_IO_INLINE);

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
	q_flush(q);
}

/* The header in q->hdr is complete (with its digest, if any). */
static void rx_header_done(struct tcp_queue *q)
{
	struct nvme_tcp_hdr *h = (void *)q->hdr;

	q->t->stats.pdus_rx++;
	if (q->rx == RX_ICREQ) {
		rx_icreq(q);
		return;
	}
	if (q->hdr_need > h->hlen && !nvme_tcp_hdgst_ok(q->hdr, h->hlen)) {
		q->t->stats.hdgst_errors++;
		q_fatal(q, NVME_TCP_FES_HDR_DIGEST_ERR, 0);
		return;
	}
	if (q->sq.ctrl)
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

		q->t->stats.term_received++;
		blox_log(q->t->tgt->log, BLOX_LOG_INFO,
			 "%s: host terminated the connection (fes %u)", q->peer,
			 t->fes);
		q_hard_close(q);
		break;
	}
	default:
		q_fatal(q, NVME_TCP_FES_INVALID_PDU_HDR, 0);
	}
}

/* The common header arrived: learn the full header length. */
static void rx_common_done(struct tcp_queue *q)
{
	struct nvme_tcp_hdr *h = (void *)q->hdr;

	if (q->rx == RX_ICREQ) {
		if (h->type != NVME_TCP_ICREQ || h->hlen != sizeof(struct nvme_tcp_icreq)) {
			q_fatal(q, h->type != NVME_TCP_ICREQ ? NVME_TCP_FES_PDU_SEQ_ERR
							     : NVME_TCP_FES_INVALID_PDU_HDR,
				h->type != NVME_TCP_ICREQ ? 0 : 2);
			return;
		}
		q->hdr_need = h->hlen;
		return;
	}
	if (nvme_tcp_check_h2c_hdr(h, &q->params, &q->chk)) {
		q_fatal(q, q->chk.fes, q->chk.fei);
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
			q->t->stats.ddgst_errors++;
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
	if (c->early_status) {
		c->state = CMD_EXEC;
		nvmf_req_complete(&c->req, c->early_status);
	} else if (c->rcv_off == c->req.data_len) {
		c->state = CMD_EXEC;
		nvmf_req_execute(&c->req);
	} else {
		queue_r2t(c);
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
		case RX_DEAD:
			break;
		}
	}
}

static void q_read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_queue *q = arg;

	(void)what;
	for (int budget = RX_BUDGET; budget > 0 && q->rx != RX_DEAD; budget--) {
		ssize_t n;

		if (q->rx == RX_DATA && q->rx_left >= 4096) {
			/* Large payload: straight into the command's buffer. */
			struct iovec iov[2] = {
				{ q->rx_dst, q->rx_left },
				{ q->rbuf, RBUF_SIZE },
			};

			n = readv(fd, iov, 2);
			if (n > 0) {
				uint32_t direct = (uint32_t)BLOX_MIN((size_t)n, q->rx_left);

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
			n = recv(fd, q->rbuf, RBUF_SIZE, 0);
			if (n > 0) {
				q->rbuf_off = 0;
				q->rbuf_len = (uint32_t)n;
			}
		}
		if (n == 0) {
			blox_log(q->t->tgt->log, BLOX_LOG_DEBUG, "%s: closed by peer",
				 q->peer);
			q_hard_close(q);
			return;
		}
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			blox_log(q->t->tgt->log, BLOX_LOG_INFO, "%s: read: %s",
				 q->peer, strerror(errno));
			q_hard_close(q);
			return;
		}
		rx_process(q);
	}
	if (!q->fd_closed && !TAILQ_EMPTY(&q->send_list))
		q_flush(q);
}

/* ---- transport ops ---- */

static void tcp_local_addr(struct nvmf_sq *sq, char *buf, size_t len)
{
	struct tcp_queue *q = sq_to_q(sq);
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	buf[0] = '\0';
	if (q->fd < 0 || getsockname(q->fd, (struct sockaddr *)&ss, &sl))
		return;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf,
			  (socklen_t)len);
	else if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf,
			  (socklen_t)len);
}

static const struct nvmf_transport_ops tcp_ops = {
	.name = "tcp",
	.queue_response = tcp_queue_response,
	.install_queue = tcp_install_queue,
	.queue_close = tcp_queue_close,
	.local_addr = tcp_local_addr,
};

/* ---- accepting ---- */

static void peer_name(const struct sockaddr *sa, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;
		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;
		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		port = ntohs(in6->sin6_port);
	}
	snprintf(buf, len, "%s:%u", a, port);
}

static int q_create(struct nvmf_tcp *t, struct nvmf_port *port, int fd,
		    const struct sockaddr *sa)
{
	struct event_base *base = t->tgt->base;
	struct tcp_queue *q = calloc(1, sizeof(*q));
	int one = 1;

	if (!q)
		return -ENOMEM;
	q->rbuf = malloc(RBUF_SIZE);
	if (!q->rbuf)
		goto free_q;
	if (cmds_alloc(1, &q->connect_cmd, &q->connect_bufs, &(size_t){ 0 }))
		goto free_rbuf;
	q->connect_cmd->q = q;
	q->connect_cmd->ttag = CONNECT_TTAG;
	q->rev = event_new(base, fd, EV_READ | EV_PERSIST, q_read_cb, q);
	q->wev = event_new(base, fd, EV_WRITE, q_write_cb, q);
	q->free_ev = event_new(base, -1, 0, q_free_cb, q);
	if (!q->rev || !q->wev || !q->free_ev)
		goto free_events;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	nvmf_sq_init(&q->sq, t->tgt, port, &tcp_ops);
	q->t = t;
	q->fd = fd;
	peer_name(sa, q->peer, sizeof(q->peer));
	q->rx = RX_ICREQ;
	q->hdr_need = sizeof(struct nvme_tcp_hdr);
	TAILQ_INIT(&q->free_cmds);
	TAILQ_INIT(&q->send_list);
	TAILQ_INSERT_TAIL(&q->free_cmds, q->connect_cmd, link);
	TAILQ_INSERT_TAIL(&t->queues, q, link);
	t->nr_queues++;
	t->stats.queues_accepted++;
	event_add(q->rev, NULL);
	blox_log(t->tgt->log, BLOX_LOG_DEBUG, "%s: connection on port %u",
		 q->peer, port->id);
	return 0;

free_events:
	if (q->rev)
		event_free(q->rev);
	if (q->wev)
		event_free(q->wev);
	if (q->free_ev)
		event_free(q->free_ev);
	munmap(q->connect_bufs, 2 * NVMF_MAX_XFER);
	free(q->connect_cmd);
free_rbuf:
	free(q->rbuf);
free_q:
	free(q);
	return -ENOMEM;
}

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct tcp_listener *l = arg;

	(void)lev;
	(void)salen;
	if (q_create(l->t, l->port, fd, sa)) {
		blox_log(l->t->tgt->log, BLOX_LOG_ERR,
			 "out of memory accepting a connection");
		close(fd);
	}
}

int nvmf_tcp_listen(struct nvmf_tcp *t, struct nvmf_port *port)
{
	struct tcp_listener *l = calloc(1, sizeof(*l));
	struct sockaddr_storage ss;
	socklen_t sl;
	unsigned flags = LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE |
			 LEV_OPT_CLOSE_ON_EXEC;
	uint16_t pnum = (uint16_t)atoi(port->svcid);

	if (!l)
		return -ENOMEM;
	memset(&ss, 0, sizeof(ss));
	if (port->family == AF_INET) {
		struct sockaddr_in *in = (void *)&ss;
		in->sin_family = AF_INET;
		in->sin_port = htons(pnum);
		inet_pton(AF_INET, port->addr, &in->sin_addr);
		sl = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (void *)&ss;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(pnum);
		inet_pton(AF_INET6, port->addr, &in6->sin6_addr);
		sl = sizeof(*in6);
		flags |= LEV_OPT_BIND_IPV6ONLY;
	}
	l->port = port;
	l->t = t;
	l->lev = evconnlistener_new_bind(t->tgt->base, accept_cb, l, flags, 128,
					 (struct sockaddr *)&ss, (int)sl);
	if (!l->lev) {
		int err = errno ? errno : EADDRINUSE;

		free(l);
		return -err;
	}
	port->transport_priv = l;
	blox_log(t->tgt->log, BLOX_LOG_INFO, "listening on %s%s%s:%s%s",
		 port->family == AF_INET6 ? "[" : "", port->addr,
		 port->family == AF_INET6 ? "]" : "", port->svcid,
		 port->discovery_only ? " (discovery)" : "");
	return 0;
}

void nvmf_tcp_unlisten(struct nvmf_tcp *t, struct nvmf_port *port)
{
	struct tcp_listener *l = port->transport_priv;

	(void)t;
	if (!l)
		return;
	evconnlistener_free(l->lev);
	free(l);
	port->transport_priv = NULL;
}

int nvmf_tcp_create(struct nvmf_tgt *tgt, struct nvmf_tcp **out)
{
	struct nvmf_tcp *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->tgt = tgt;
	TAILQ_INIT(&t->queues);
	*out = t;
	return 0;
}

void nvmf_tcp_close_all(struct nvmf_tcp *t)
{
	struct tcp_queue *q, *tmp;

	TAILQ_FOREACH_SAFE(q, &t->queues, link, tmp)
		if (!q->fd_closed)
			q_hard_close(q);
}

uint32_t nvmf_tcp_nr_queues(const struct nvmf_tcp *t)
{
	return t->nr_queues;
}

const struct nvmf_tcp_stats *nvmf_tcp_stats(const struct nvmf_tcp *t)
{
	return &t->stats;
}

void nvmf_tcp_destroy(struct nvmf_tcp *t)
{
	free(t);
}
