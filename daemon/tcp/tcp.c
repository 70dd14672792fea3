/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP transport. Each accepted connection is one queue (struct
 * tcp_queue, embedding the core's struct nvmf_sq). Receiving is one state
 * machine per queue (rx_state); sending is one state per command
 * (send_state) on a per-queue send list that is written with writev() in
 * batches. Command contexts are allocated when the Connect installs the
 * queue and recycled through a free list; their data buffers come from
 * the transport's bounded pool when a command needs one (tcp_buf.c).
 */
#include "tcp_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- command contexts ---- */

int tcp_cmds_alloc(struct tcp_queue *q, uint32_t n, struct tcp_cmd **cmds)
{
	*cmds = calloc(n, sizeof(**cmds));
	if (!*cmds)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		(*cmds)[i].q = q;
	return 0;
}

struct tcp_cmd *tcp_cmd_get(struct tcp_queue *q)
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
	c->req.buf = c->req.scratch = NULL;
	c->req.scratch_len = 0;
	return c;
}

void tcp_q_maybe_free(struct tcp_queue *q)
{
	if (q->fd_closed && q->inflight == 0)
		event_active(q->free_ev, 0, 0);
}

void tcp_cmd_put(struct tcp_cmd *c)
{
	struct tcp_queue *q = c->q;

	tcp_cmd_buf_put(c);
	c->state = CMD_FREE;
	q->inflight--;
	/* The pre-Connect context retires once the pool exists. */
	if (c != q->connect_cmd || !q->cmds)
		TAILQ_INSERT_TAIL(&q->free_cmds, c, link);
	tcp_q_maybe_free(q);
}

static int tcp_install_queue(struct nvmf_sq *sq, uint32_t size)
{
	struct tcp_queue *q = sq_to_q(sq);
	uint32_t n = size + CMD_SLACK;
	int rc;

	if (q->cmds)
		return -EALREADY;
	rc = tcp_cmds_alloc(q, n, &q->cmds);
	if (rc)
		return rc;
	q->nr_cmds = n;
	/* The Connect context is in use now; it is dropped when done. */
	TAILQ_INIT(&q->free_cmds);
	for (uint32_t i = 0; i < n; i++) {
		q->cmds[i].ttag = (uint16_t)i;
		TAILQ_INSERT_TAIL(&q->free_cmds, &q->cmds[i], link);
	}
	return 0;
}

void tcp_q_finish_close(struct tcp_queue *q)
{
	if (q->fd_closed)
		return;
	event_del(q->rev);
	event_del(q->wev);
	/* Everything queued went out: say goodbye (TLS close_notify, FIN). */
	if (q->close_after_send)
		q->sock.ops->shutdown(&q->sock);
	q->sock.ops->close(&q->sock);
	q->fd = -1;
	q->fd_closed = true;
	tcp_q_maybe_free(q);
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
		tcp_cmd_put(c);
	}
}

/* Stop taking PDUs: AERs parked in the core come back and are dropped. */
static void q_stop_rx(struct tcp_queue *q)
{
	if (q->rx == RX_DEAD)
		return;
	q->rx = RX_DEAD;
	event_del(q->rev);
	tcp_q_buf_stop(q);
	/* A context receiving data belongs to nobody else: release it. */
	if (q->rx_cmd && (q->rx_cmd->state == CMD_RECV_INLINE))
		tcp_cmd_put(q->rx_cmd);
	q->rx_cmd = NULL;
	for (uint32_t i = 0; i < q->nr_cmds; i++)
		if (q->cmds[i].state == CMD_H2C)
			tcp_cmd_drop(&q->cmds[i]);
	if (q->connect_cmd && q->connect_cmd->state == CMD_H2C)
		tcp_cmd_drop(q->connect_cmd);
	nvmf_sq_quiesce(&q->sq);
}

void tcp_q_hard_close(struct tcp_queue *q)
{
	q->sq.closing = true;
	q_stop_rx(q);
	drop_send_list(q, false);
	q->oob_len = q->oob_off = 0;
	tcp_q_finish_close(q);
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
	tcp_q_flush(q);
}

/*
 * Fatal transport error: a C2HTermReq carrying the offending header, then
 * the connection closes. The controller's other queues carry on (the host
 * decides what to do with them); an admin queue takes its controller down.
 */
void tcp_q_fatal(struct tcp_queue *q, uint16_t fes, uint32_t fei)
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
	tcp_q_flush(q);
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
	tcp_host_put(t, q->host);
	event_free(q->rev);
	event_free(q->wev);
	event_free(q->free_ev);
	event_free(q->buf_ev);
	free(q->reserve);
	free(q->connect_cmd);
	free(q->cmds);
	free(q->rbuf);
	free(q);
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
		    const struct sockaddr *sa, struct tcp_host *host)
{
	struct event_base *base = t->tgt->base;
	struct tcp_queue *q = calloc(1, sizeof(*q));
	int one = 1;

	if (!q)
		return -ENOMEM;
	q->rbuf = malloc(RBUF_SIZE);
	if (!q->rbuf)
		goto free_q;
	if (tcp_cmds_alloc(q, 1, &q->connect_cmd))
		goto free_rbuf;
	q->connect_cmd->ttag = CONNECT_TTAG;
	q->t = t;
	tcp_q_buf_init(q);
	q->rev = event_new(base, fd, EV_READ | EV_PERSIST, tcp_q_read_cb, q);
	q->wev = event_new(base, fd, EV_WRITE, tcp_q_write_cb, q);
	q->free_ev = event_new(base, -1, 0, q_free_cb, q);
	if (!q->rev || !q->wev || !q->free_ev || !q->buf_ev)
		goto free_events;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	nvmf_sq_init(&q->sq, t->tgt, port, &tcp_ops);
	q->fd = fd;
	tcp_sock_init(&q->sock, fd, port->tls);
	peer_name(sa, q->peer, sizeof(q->peer));
	q->host = host;
	q->rx = RX_ICREQ;
	tcp_q_limits_start(q);
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
	if (q->buf_ev)
		event_free(q->buf_ev);
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
	struct tcp_host *host;

	(void)lev;
	(void)salen;
	if (tcp_admit(l->t, sa, &host)) {
		close(fd);
		return;
	}
	if (q_create(l->t, l->port, fd, sa, host)) {
		tcp_limit_log(l->t, "out of memory accepting a connection");
		tcp_host_put(l->t, host);
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
	l->pause.lev = l->lev;
	evconnlistener_set_error_cb(l->lev, tcp_listener_error_cb);
	port->transport_priv = l;
	blox_log(t->tgt->log, BLOX_LOG_INFO, "listening on %s%s%s:%s%s%s",
		 port->family == AF_INET6 ? "[" : "", port->addr,
		 port->family == AF_INET6 ? "]" : "", port->svcid,
		 port->discovery_only ? " (discovery)" : "",
		 port->tls == NVMF_TLS_REQUIRED  ? " (TLS required)"
		 : port->tls == NVMF_TLS_ALLOWED ? " (TLS allowed)"
						 : "");
	return 0;
}

void nvmf_tcp_unlisten(struct nvmf_tcp *t, struct nvmf_port *port)
{
	struct tcp_listener *l = port->transport_priv;

	(void)t;
	if (!l)
		return;
	evconnlistener_free(l->lev);
	tcp_accept_pause_fini(&l->pause);
	free(l);
	port->transport_priv = NULL;
}

int nvmf_tcp_create(struct nvmf_tgt *tgt, const struct nvmf_tcp_limits *limits,
		    struct nvmf_tcp **out)
{
	struct nvmf_tcp *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return -ENOMEM;
	t->tgt = tgt;
	TAILQ_INIT(&t->queues);
	if (tcp_limits_init(t, limits ? limits : &NVMF_TCP_LIMITS_DEFAULT)) {
		free(t);
		return -ENOMEM;
	}
	rc = tcp_buf_init(t);
	if (rc) {
		tcp_limits_fini(t);
		free(t);
		return rc;
	}
	if (tcp_tls_init(t)) {
		blox_bufpool_fini(&t->pool);
		tcp_limits_fini(t);
		free(t);
		return -ENOMEM;
	}
	*out = t;
	return 0;
}

void nvmf_tcp_close_all(struct nvmf_tcp *t)
{
	struct tcp_queue *q, *tmp;

	TAILQ_FOREACH_SAFE(q, &t->queues, link, tmp)
		if (!q->fd_closed)
			tcp_q_hard_close(q);
}

uint32_t nvmf_tcp_nr_queues(const struct nvmf_tcp *t)
{
	return t->nr_queues;
}

uint32_t nvmf_tcp_port_queues(const struct nvmf_tcp *t,
			      const struct nvmf_port *port)
{
	const struct tcp_queue *q;
	uint32_t n = 0;

	TAILQ_FOREACH(q, &t->queues, link)
		n += q->sq.port == port;
	return n;
}

const struct nvmf_tcp_stats *nvmf_tcp_stats(const struct nvmf_tcp *t)
{
	return &t->stats;
}

void nvmf_tcp_destroy(struct nvmf_tcp *t)
{
	if (!t)
		return;
	tcp_limits_fini(t);
	blox_bufpool_fini(&t->pool);
	tcp_tls_fini(t);
	free(t);
}

