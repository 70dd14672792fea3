/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What one client may hold of the transport: connections in total and
 * per source address (refused at accept), deadlines for the ICReq, the
 * Connect and the rest of a PDU (one sweep timer checks every queue, so
 * the data path only stores a time when a read ends inside a PDU; a
 * Connect a fault holds is the core's time, and its host closing the
 * connection ends it), and a
 * listener that pauses with a growing back-off when accept() fails (at
 * the fd limit it would otherwise be woken for the same backlog forever).
 * Every trip is counted in nvmf_tcp_stats; the log lines about them are
 * rate-limited.
 */
#include "tcp_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/listener.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_MS 1000000ull

static uint64_t now_ns(const struct nvmf_tcp *t)
{
	return blox_clock_now(t->tgt->clock);
}

void tcp_limit_log(struct tcp_reactor *tr, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	blox_ratelimit_log(&tr->rl, tr->t->tgt->log, now_ns(tr->t), fmt, ap);
	va_end(ap);
	__atomic_store_n(&tr->stats.log_suppressed, tr->rl.suppressed, __ATOMIC_RELAXED);
}

/* ---- connections per source address ---- */

static void host_key(const struct sockaddr *sa, uint8_t addr[16], uint8_t *family)
{
	memset(addr, 0, 16);
	*family = (uint8_t)sa->sa_family;
	if (sa->sa_family == AF_INET)
		memcpy(addr, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, 4);
	else if (sa->sa_family == AF_INET6)
		memcpy(addr, &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr, 16);
}

static struct tcp_host **host_slot(struct nvmf_tcp *t, const uint8_t addr[16], uint8_t family)
{
	uint32_t h = 2166136261u ^ family; /* FNV-1a */
	struct tcp_host **pp;

	for (int i = 0; i < 16; i++)
		h = (h ^ addr[i]) * 16777619u;
	for (pp = &t->hosts[h % TCP_HOST_BUCKETS]; *pp; pp = &(*pp)->next)
		if ((*pp)->family == family && !memcmp((*pp)->addr, addr, 16))
			break;
	return pp;
}

int tcp_admit(struct nvmf_tcp *t, const struct sockaddr *sa, struct tcp_host **out)
{
	const struct nvmf_tcp_limits *lim = &t->lim;
	struct tcp_host **pp, *h;
	uint8_t addr[16], family;
	char name[INET6_ADDRSTRLEN] = "?";

	if (lim->max_conns && t->nr_queues >= lim->max_conns) {
		TCP_STAT(tcp_tr0(t), refused_total);
		tcp_limit_log(tcp_tr0(t), "connection refused: %u connections open (--max-connections)",
			      t->nr_queues);
		return -EBUSY;
	}
	host_key(sa, addr, &family);
	pp = host_slot(t, addr, family);
	h = *pp;
	if (h && lim->max_conns_per_host && h->conns >= lim->max_conns_per_host) {
		TCP_STAT(tcp_tr0(t), refused_per_host);
		inet_ntop(family, addr, name, sizeof(name));
		tcp_limit_log(tcp_tr0(t),
			      "connection from %s refused: %u open from it "
			      "(--max-connections-per-host)",
			      name, h->conns);
		return -EBUSY;
	}
	if (!h) {
		h = calloc(1, sizeof(*h));
		if (!h)
			return -ENOMEM;
		memcpy(h->addr, addr, 16);
		h->family = family;
		*pp = h;
	}
	h->conns++;
	*out = h;
	return 0;
}

void tcp_host_put(struct nvmf_tcp *t, struct tcp_host *h)
{
	struct tcp_host **pp;

	if (!h || --h->conns)
		return;
	pp = host_slot(t, h->addr, h->family);
	*pp = h->next;
	free(h);
}

/* ---- deadlines ---- */

static uint64_t deadline(const struct nvmf_tcp *t, uint32_t ms)
{
	return ms ? now_ns(t) + ms * NS_PER_MS : 0;
}

void tcp_q_limits_start(struct tcp_queue *q)
{
	q->stage = STAGE_ICREQ;
	q->stage_deadline_ns = deadline(q->t, q->t->lim.icreq_timeout_ms);
}

void tcp_q_icreq_done(struct tcp_queue *q)
{
	q->stage = STAGE_CONNECT;
	q->stage_deadline_ns = deadline(q->t, q->t->lim.connect_timeout_ms);
}

void tcp_q_rx_mark(struct tcp_queue *q)
{
	bool between = (q->rx == RX_HDR || q->rx == RX_ICREQ) && q->hdr_have == 0;

	/* Waiting for our buffer, or for the core, is no fault of the host's. */
	if (between || q->rx == RX_DEAD || q->rx == RX_WAIT_BUF || q->rx == RX_HOLD ||
	    !q->t->lim.pdu_timeout_ms) {
		q->pdu_deadline_ns = 0;
		return;
	}
	if (q->pdu_deadline_ns && q->pdu_seq_timed == q->pdu_seq)
		return; /* the same PDU is still arriving */
	q->pdu_seq_timed = q->pdu_seq;
	q->pdu_deadline_ns = deadline(q->t, q->t->lim.pdu_timeout_ms);
}

/* Whether @q's peer closed its side (or the connection failed): what a read would find. */
static bool peer_gone(const struct tcp_queue *q)
{
	struct pollfd p = { .fd = q->fd, .events = POLLRDHUP };

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* @q is past a deadline: which one, counted, or NULL. */
static const char *q_expired(struct tcp_queue *q, uint64_t now)
{
	struct tcp_reactor *tr = q->tr;
	bool held;

	/* A queue on another reactor is connected: it moved after its Connect. */
	if (q->stage != STAGE_DONE && !tcp_q_remote(q) && q->sq.ctrl) {
		q->stage = STAGE_DONE;
		q->stage_deadline_ns = 0;
	}
	/*
	 * A Connect that a latency fault of the Fabrics commands holds came
	 * in time: the wait is the core's (the queue is still on reactor 0).
	 */
	held = q->stage == STAGE_CONNECT && !tcp_q_remote(q) && q->sq.held;
	/*
	 * Nothing is read behind a Connect until it is answered, so a host
	 * that went away meanwhile is seen here: its held Connect ends now.
	 */
	if (held && peer_gone(q))
		return "the host closed the connection while its Connect was held";
	if (q->stage_deadline_ns && now >= q->stage_deadline_ns && !held) {
		if (q->stage == STAGE_ICREQ) {
			TCP_STAT(tr, icreq_timeouts);
			return "no ICReq in time (--icreq-timeout-ms)";
		}
		TCP_STAT(tr, connect_timeouts);
		return "no Fabrics Connect in time (--connect-timeout-ms)";
	}
	if (q->pdu_deadline_ns && now >= q->pdu_deadline_ns) {
		TCP_STAT(tr, pdu_timeouts);
		return "PDU not complete in time (--pdu-timeout-ms)";
	}
	return NULL;
}

static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_reactor *tr = arg;
	uint64_t now = now_ns(tr->t);
	struct tcp_queue *q, *tmp;
	const char *why;

	(void)fd;
	(void)what;
	TAILQ_FOREACH_SAFE(q, &tr->queues, rlink, tmp) {
		if (q->fd_closed || q->rx == RX_DEAD)
			continue;
		why = q_expired(q, now);
		if (!why)
			continue;
		tcp_limit_log(tr, "%s: closed: %s", q->peer, why);
		tcp_q_hard_close(q);
	}
	blox_ratelimit_tick(&tr->rl, tr->t->tgt->log, now);
}

/* ---- accept errors ---- */

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_accept_pause *p = arg;

	(void)fd;
	(void)what;
	evconnlistener_enable(p->lev);
}

uint32_t tcp_accept_pause(struct tcp_accept_pause *p, struct event_base *base, uint64_t now)
{
	uint32_t ms = blox_backoff_next(&p->b, now);
	struct timeval tv;

	/* Without a timer the pause would be for good: better to spin. */
	if (!p->retry && !(p->retry = evtimer_new(base, retry_cb, p)))
		return 0;
	evconnlistener_disable(p->lev);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(p->retry, &tv);
	return ms;
}

void tcp_accept_pause_fini(struct tcp_accept_pause *p)
{
	if (p->retry)
		event_free(p->retry);
	p->retry = NULL;
}

void tcp_listener_error_cb(struct evconnlistener *lev, void *arg)
{
	struct tcp_listener *l = arg;
	struct nvmf_tcp *t = l->t;
	int err = EVUTIL_SOCKET_ERROR();
	uint32_t ms;

	(void)lev;
	TCP_STAT(tcp_tr0(t), accept_errors);
	ms = tcp_accept_pause(&l->pause, t->tgt->base, now_ns(t));
	if (ms)
		TCP_STAT(tcp_tr0(t), accept_pauses);
	tcp_limit_log(tcp_tr0(t), "accept on port %u: %s: pausing %u ms", l->port->id,
		      evutil_socket_error_to_string(err), ms);
}

/* ---- set-up ---- */

void tcp_limits_init(struct nvmf_tcp *t, const struct nvmf_tcp_limits *lim)
{
	t->lim = *lim;
}

int tcp_sweep_start(struct tcp_reactor *tr)
{
	const struct nvmf_tcp_limits *lim = &tr->t->lim;
	uint32_t min_ms = 0;
	const uint32_t ms[] = { lim->icreq_timeout_ms, lim->connect_timeout_ms,
				lim->pdu_timeout_ms };
	struct timeval tv;

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(ms); i++)
		if (ms[i] && (!min_ms || ms[i] < min_ms))
			min_ms = ms[i];
	/* A deadline is met within an eighth of the shortest, 10 ms..1 s. */
	min_ms = min_ms ? BLOX_MAX(10u, BLOX_MIN(min_ms / 8, 1000u)) : 1000u;
	tr->sweep_ev = event_new(tr->base, -1, EV_PERSIST, sweep_cb, tr);
	if (!tr->sweep_ev)
		return -ENOMEM;
	tv.tv_sec = min_ms / 1000;
	tv.tv_usec = (min_ms % 1000) * 1000;
	event_add(tr->sweep_ev, &tv);
	return 0;
}

void tcp_sweep_stop(struct tcp_reactor *tr)
{
	if (tr->sweep_ev)
		event_free(tr->sweep_ev);
	tr->sweep_ev = NULL;
}

void tcp_limits_fini(struct nvmf_tcp *t)
{
	for (size_t i = 0; i < TCP_HOST_BUCKETS; i++) {
		while (t->hosts[i]) {
			struct tcp_host *h = t->hosts[i];

			t->hosts[i] = h->next;
			free(h);
		}
	}
}
