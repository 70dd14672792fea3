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
	/* Reads sent from where the flash keeps them; TLS re-offers a cut record's own bytes. */
	c->req.lend_ok = !q->sock.ssl;
	return c;
}

void tcp_q_maybe_free(struct tcp_queue *q)
{
	/* Closed and idle: free it; answered its Connect and idle: move it. */
	if (q->inflight == 0 && (q->fd_closed || q->move_to))
		event_active(q->free_ev, 0, 0);
}

void tcp_cmd_put(struct tcp_cmd *c)
{
	struct tcp_queue *q = c->q;

	blox_io_lend_end(&c->req.io); /* a read's data never sent (the connection went) */
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

void tcp_q_set_closing(struct tcp_queue *q)
{
	q->closing = true;
	q->move_to = 0;
	if (!tcp_q_remote(q))
		q->sq.closing = true;
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
	/* An I/O queue (all a remote queue can be) has nothing parked there. */
	if (!tcp_q_remote(q))
		nvmf_sq_quiesce(&q->sq);
}

void tcp_q_hard_close(struct tcp_queue *q)
{
	tcp_q_set_closing(q);
	q_stop_rx(q);
	drop_send_list(q, false);
	q->oob_len = q->oob_off = 0;
	tcp_q_finish_close(q);
	if (!tcp_q_remote(q) && q->sq.ctrl && q->sq.qid == 0)
		nvmf_ctrl_fatal(q->sq.ctrl, "admin connection lost");
}

/* Going: send what is queued, then close (on the queue's reactor). */
void tcp_q_soft_close(struct tcp_queue *q)
{
	tcp_q_set_closing(q);
	q_stop_rx(q);
	q->close_after_send = true;
	tcp_q_flush(q);
}

/* Core asks us to go away (on reactor 0). */
static void tcp_queue_close(struct nvmf_sq *sq)
{
	struct tcp_queue *q = sq_to_q(sq);

	sq->closing = true;
	if (tcp_q_remote(q))
		tcp_q_close_remote(q, false);
	else
		tcp_q_soft_close(q);
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
	TCP_STAT(q->tr, term_sent);
	tcp_q_set_closing(q);
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
	if (!tcp_q_remote(q) && q->sq.ctrl && q->sq.qid == 0)
		nvmf_ctrl_fatal(q->sq.ctrl, "transport error on admin queue");
	tcp_q_flush(q);
}

static void q_free_cb(evutil_socket_t fd, short what, void *arg);

void tcp_q_events_free(struct tcp_queue *q)
{
	if (q->rev)
		event_free(q->rev);
	if (q->wev)
		event_free(q->wev);
	if (q->free_ev)
		event_free(q->free_ev);
	q->rev = q->wev = q->free_ev = NULL;
	tcp_q_buf_fini(q);
}

int tcp_q_events(struct tcp_queue *q)
{
	struct event_base *base = q->tr->base;

	q->rev = event_new(base, q->fd, EV_READ | EV_PERSIST, tcp_q_read_cb, q);
	q->wev = event_new(base, q->fd, EV_WRITE, tcp_q_write_cb, q);
	q->free_ev = event_new(base, -1, 0, q_free_cb, q);
	if (!q->rev || !q->wev || !q->free_ev || tcp_q_buf_init(q)) {
		tcp_q_events_free(q);
		return -ENOMEM;
	}
	return 0;
}

/* Memory only: the queue's events are gone, the core forgot it. */
void tcp_q_free(struct tcp_queue *q)
{
	free(q->reserve);
	free(q->connect_cmd);
	free(q->cmds);
	free(q->rbuf);
	free(q);
}

/* Reactor 0: the core and the accounting let @q go. */
void tcp_q_forget(struct tcp_queue *q)
{
	struct nvmf_tcp *t = q->t;

	nvmf_sq_fini(&q->sq);
	TAILQ_REMOVE(&t->queues, q, link);
	t->nr_queues--;
	TCP_STAT(tcp_tr0(t), queues_closed);
	tcp_host_put(t, q->host);
}

static void q_free_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_queue *q = arg;
	struct tcp_reactor *tr = q->tr;

	(void)fd;
	(void)what;
	if (q->inflight)
		return;
	if (!q->fd_closed) {
		/* Its Connect answered: on to its reactor, unless it goes. */
		if (q->move_to && !q->closing && TAILQ_EMPTY(&q->send_list))
			tcp_q_move(q);
		return;
	}
	TAILQ_REMOVE(&tr->queues, q, rlink);
	__atomic_store_n(&tr->nr_queues, tr->nr_queues - 1, __ATOMIC_RELAXED);
	tcp_q_events_free(q);
	if (tcp_q_remote(q)) {
		tcp_q_fini_remote(q);
		return;
	}
	tcp_q_forget(q);
	tcp_q_free(q);
}

/* ---- transport ops ---- */

/* The address the host reached, read once at accept (any reactor may ask). */
static void local_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	buf[0] = '\0';
	if (getsockname(fd, (struct sockaddr *)&ss, &sl))
		return;
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, buf,
			  (socklen_t)len);
	else if (ss.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, buf,
			  (socklen_t)len);
}

static void tcp_local_addr(struct nvmf_sq *sq, char *buf, size_t len)
{
	snprintf(buf, len, "%s", sq_to_q(sq)->local);
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
	q->tr = tcp_tr0(t);
	q->fd = fd;
	if (tcp_q_events(q))
		goto free_cmd;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	nvmf_sq_init(&q->sq, t->tgt, port, &tcp_ops);
	local_name(fd, q->local, sizeof(q->local));
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
	TAILQ_INSERT_TAIL(&q->tr->queues, q, rlink);
	__atomic_store_n(&q->tr->nr_queues, q->tr->nr_queues + 1, __ATOMIC_RELAXED);
	TCP_STAT(q->tr, queues_accepted);
	event_add(q->rev, NULL);
	blox_log(t->tgt->log, BLOX_LOG_DEBUG, "%s: connection on port %u",
		 q->peer, port->id);
	return 0;

free_cmd:
	free(q->connect_cmd);
free_rbuf:
	free(q->rbuf);
free_q:
	free(q);
	return -ENOMEM;
}

/*
 * A listener-stop fault on @port (bloxctl fault inject listener-stop): the
 * connection just accepted is closed at once, as by a port that takes no
 * one; those already made go on.
 */
static bool listener_stopped(struct nvmf_tcp *t, const struct nvmf_port *port)
{
	struct nvmf_tgt *tgt = t->tgt;
	char name[NVMF_TRADDR_SIZE + NVMF_TRSVCID_SIZE + 2];
	struct blox_fault_site site = { .kind = BLOX_FAULT_LISTENER_STOP };
	struct blox_fault f;

	if (!blox_fault_armed(tgt->faults, BLOX_FAULT_LISTENER_STOP))
		return false;
	snprintf(name, sizeof(name), "%s:%s", port->addr, port->svcid);
	site.listener = name;
	site.now = blox_clock_now(tgt->clock);
	if (!blox_fault_match(tgt->faults, &site, &f))
		return false;
	tcp_limit_log(tcp_tr0(t), "%s: connection refused (fault %u: listener-stop)", name, f.id);
	return true;
}

static void accept_cb(struct evconnlistener *lev, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct tcp_listener *l = arg;
	struct tcp_host *host;

	(void)lev;
	(void)salen;
	if (listener_stopped(l->t, l->port)) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 }; /* a reset, not a goodbye */

		setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(fd);
		return;
	}
	if (tcp_admit(l->t, sa, &host)) {
		close(fd);
		return;
	}
	if (q_create(l->t, l->port, fd, sa, host)) {
		tcp_limit_log(tcp_tr0(l->t), "out of memory accepting a connection");
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

static void tr_start_fn(struct blox_msg *m)
{
	struct tcp_reactor *tr = container_of(m, struct tcp_reactor, start_msg);

	if (tcp_sweep_start(tr))
		blox_log(tr->t->tgt->log, BLOX_LOG_ERR,
			 "reactor %u: no memory for the deadline sweep; deadlines there are not checked",
			 tr->id);
}

static void tr_stop_fn(struct blox_msg *m)
{
	struct tcp_reactor *tr = container_of(m, struct tcp_reactor, stop_msg);

	tcp_sweep_stop(tr);
	__atomic_store_n(&tr->stop_state, 2, __ATOMIC_RELEASE);
}

static void tcp_free(struct nvmf_tcp *t)
{
	struct blox_reactor *r0 = tcp_tr0(t)->r;

	/* Each reactor drops its sweep on its own loop; the pools go here. */
	for (unsigned i = 1; i < t->nr_tr; i++) {
		struct tcp_reactor *tr = &t->tr[i];

		if (!tr->stop_state) {
			tr->stop_state = 1;
			tr->stop_msg.fn = tr_stop_fn;
			blox_reactor_send(r0, tr->r, &tr->stop_msg);
		}
	}
	for (unsigned i = 1; i < t->nr_tr; i++)
		while (__atomic_load_n(&t->tr[i].stop_state, __ATOMIC_ACQUIRE) != 2)
			usleep(100);
	tcp_sweep_stop(tcp_tr0(t));
	for (unsigned i = 0; i < t->nr_tr; i++)
		blox_bufpool_fini(&t->tr[i].pool);
	tcp_limits_fini(t);
	tcp_tls_fini(t);
	free(t);
}

int nvmf_tcp_create(struct nvmf_tgt *tgt, const struct nvmf_tcp_limits *limits,
		    struct blox_reactors *rs, struct nvmf_tcp **out)
{
	struct nvmf_tcp *t = calloc(1, sizeof(*t));
	int rc;

	if (!t)
		return -ENOMEM;
	t->tgt = tgt;
	TAILQ_INIT(&t->queues);
	tcp_limits_init(t, limits ? limits : &NVMF_TCP_LIMITS_DEFAULT);
	rc = tcp_buf_check(t);
	if (rc) {
		free(t);
		return rc;
	}
	t->nr_tr = rs ? blox_reactors_count(rs) : 1;
	for (unsigned i = 0; i < t->nr_tr; i++) {
		struct tcp_reactor *tr = &t->tr[i];

		tr->t = t;
		tr->id = i;
		tr->r = rs ? blox_reactor_at(rs, i) : NULL;
		tr->base = tr->r ? blox_reactor_base(tr->r) : tgt->base;
		TAILQ_INIT(&tr->queues);
		if ((rc = tcp_buf_pool_init(tr))) {
			t->nr_tr = i;
			goto fail;
		}
	}
	rc = -ENOMEM;
	if (tcp_sweep_start(tcp_tr0(t)) || tcp_tls_init(t))
		goto fail;
	for (unsigned i = 1; i < t->nr_tr; i++) {
		t->tr[i].start_msg.fn = tr_start_fn;
		blox_reactor_send(tcp_tr0(t)->r, t->tr[i].r, &t->tr[i].start_msg);
	}
	*out = t;
	return 0;
fail:
	tcp_free(t);
	return rc;
}

void nvmf_tcp_close_all(struct nvmf_tcp *t)
{
	struct tcp_queue *q, *tmp;

	TAILQ_FOREACH_SAFE(q, &t->queues, link, tmp) {
		if (tcp_q_remote(q))
			tcp_q_close_remote(q, true);
		else if (!q->fd_closed)
			tcp_q_hard_close(q);
	}
}

void nvmf_tcp_port_close(struct nvmf_tcp *t, const struct nvmf_port *port, const char *why)
{
	struct tcp_queue *q, *tmp;

	/* Nothing here frees a queue at once (that is q_free_cb's, later). */
	TAILQ_FOREACH_SAFE(q, &t->queues, link, tmp) {
		if (q->sq.port != port)
			continue;
		if (q->sq.ctrl)
			nvmf_ctrl_fatal(q->sq.ctrl, why);
		else if (tcp_q_remote(q))
			tcp_q_close_remote(q, true);
		else if (!q->fd_closed)
			tcp_q_hard_close(q);
	}
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

uint32_t nvmf_tcp_reactor_queues(const struct nvmf_tcp *t, unsigned id)
{
	return id < t->nr_tr ? __atomic_load_n(&t->tr[id].nr_queues, __ATOMIC_RELAXED) : 0;
}

unsigned nvmf_tcp_nr_reactors(const struct nvmf_tcp *t)
{
	return t->nr_tr;
}

_Static_assert(sizeof(struct nvmf_tcp_stats) % sizeof(uint64_t) == 0,
	       "struct nvmf_tcp_stats: counters only");

void nvmf_tcp_stats(const struct nvmf_tcp *t, struct nvmf_tcp_stats *out)
{
	uint64_t *o = (uint64_t *)out;

	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < t->nr_tr; i++) {
		const uint64_t *c = (const uint64_t *)&t->tr[i].stats;

		for (size_t k = 0; k < sizeof(*out) / sizeof(uint64_t); k++)
			o[k] += __atomic_load_n(&c[k], __ATOMIC_RELAXED);
	}
}

void nvmf_tcp_destroy(struct nvmf_tcp *t)
{
	if (t)
		tcp_free(t);
}
