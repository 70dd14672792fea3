/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Queues on reactors other than 0. The core (controllers, namespaces,
 * backends) lives on reactor 0; an I/O queue moves to reactor qid % N once
 * its Connect is answered, and from then on its socket, PDUs, digests,
 * buffers and R2Ts are handled there. A command goes to the core only
 * with all its data (its buffer sized from the opcode's direction), and
 * its completion comes back the same way: two messages per command, each
 * carrying the command context, which belongs to one reactor at a time.
 *
 * A queue's end takes two more: its reactor, when the connection is
 * closed and nothing of it is in flight, sends it to reactor 0 (the core
 * lets the queue go), and reactor 0 sends it back to be freed, behind any
 * close request it sent before: nothing arrives for a freed queue.
 */
#include "tcp_internal.h"

#include <event2/event.h>
#include <stdlib.h>

unsigned tcp_pick_reactor(const struct nvmf_tcp *t, uint16_t qid)
{
	return t->nr_tr > 1 ? qid % t->nr_tr : 0;
}

/* ---- commands ---- */

/* Reactor 0: parse, then run (or fail) the command. */
static void core_fn(struct blox_msg *m)
{
	struct tcp_cmd *c = container_of(m, struct tcp_cmd, msg);
	struct nvmf_req *req = &c->req;
	uint16_t st = nvmf_req_init(req, &c->q->sq);

	/* Its life began when its capsule came in, on its queue's reactor. */
	req->start_ns = c->rx_ns;
	if (c->early_status)
		st = c->early_status;
	else if (!st && c->q->sq.closing)
		st = NVME_SC_ABORT_QUEUE;
	else if (!st && !tcp_cmd_buf_fits(c))
		st = NVME_SC_INTERNAL;
	if (st) {
		nvmf_req_complete(req, st);
		return;
	}
	nvmf_req_execute(req);
}

void tcp_cmd_to_core(struct tcp_cmd *c)
{
	c->state = CMD_EXEC;
	c->buf_cap = tcp_cmd_buf_cap(c);
	c->msg.fn = core_fn;
	blox_reactor_worked(c->q->tr->r);
	blox_reactor_send(c->q->tr->r, tcp_tr0(c->q->t)->r, &c->msg);
}

/* The queue's reactor: the completion goes out. */
static void home_fn(struct blox_msg *m)
{
	tcp_q_respond(container_of(m, struct tcp_cmd, msg));
}

void tcp_cmd_to_home(struct tcp_cmd *c)
{
	c->msg.fn = home_fn;
	blox_reactor_send(tcp_tr0(c->q->t)->r, c->q->tr->r, &c->msg);
}

/* ---- a queue moves ---- */

static void adopt_fn(struct blox_msg *m)
{
	struct tcp_queue *q = container_of(m, struct tcp_queue, adopt_msg);
	struct tcp_reactor *tr = q->tr;

	TAILQ_INSERT_TAIL(&tr->queues, q, rlink);
	__atomic_store_n(&tr->nr_queues, tr->nr_queues + 1, __ATOMIC_RELAXED);
	if (tcp_q_events(q)) {
		tcp_limit_log(tr, "%s: no memory to serve the queue on reactor %u: closed",
			      q->peer, tr->id);
		q->closing = true;
		q->rx = RX_DEAD;
		q->sock.ops->close(&q->sock);
		q->fd = -1;
		q->fd_closed = true;
		TAILQ_REMOVE(&tr->queues, q, rlink);
		__atomic_store_n(&tr->nr_queues, tr->nr_queues - 1, __ATOMIC_RELAXED);
		tcp_q_fini_remote(q);
		return;
	}
	blox_log(q->t->tgt->log, BLOX_LOG_DEBUG, "%s: qid %u on reactor %u", q->peer,
		 q->sq.qid, tr->id);
	tcp_q_rx_release(q);
}

void tcp_q_move(struct tcp_queue *q)
{
	struct tcp_reactor *tr0 = q->tr;
	unsigned k = q->move_to;

	q->move_to = 0;
	TAILQ_REMOVE(&tr0->queues, q, rlink);
	__atomic_store_n(&tr0->nr_queues, tr0->nr_queues - 1, __ATOMIC_RELAXED);
	/* Idle: no buffer held or waited for, nothing to send. */
	tcp_q_events_free(q);
	q->stage = STAGE_DONE;
	q->stage_deadline_ns = 0;
	q->tr = &q->t->tr[k];
	q->sq.reactor = (uint16_t)k;
	q->adopt_msg.fn = adopt_fn;
	blox_reactor_send(tr0->r, q->tr->r, &q->adopt_msg);
}

/* ---- a queue ends ---- */

static void close_fn(struct blox_msg *m)
{
	struct tcp_queue *q = container_of(m, struct tcp_queue, close_msg);

	if (q->fini_sent || q->fd_closed)
		return;
	if (q->close_hard)
		tcp_q_hard_close(q);
	else if (!q->closing)
		tcp_q_soft_close(q);
}

void tcp_q_close_remote(struct tcp_queue *q, bool hard)
{
	if (q->close_sent)
		return;
	q->close_sent = true;
	q->close_hard = hard;
	q->close_msg.fn = close_fn;
	blox_reactor_send(tcp_tr0(q->t)->r, q->tr->r, &q->close_msg);
}

static void free_fn(struct blox_msg *m)
{
	tcp_q_free(container_of(m, struct tcp_queue, free_msg));
}

static void fini_fn(struct blox_msg *m)
{
	struct tcp_queue *q = container_of(m, struct tcp_queue, fini_msg);

	tcp_q_forget(q);
	q->free_msg.fn = free_fn;
	blox_reactor_send(tcp_tr0(q->t)->r, q->tr->r, &q->free_msg);
}

void tcp_q_fini_remote(struct tcp_queue *q)
{
	q->fini_sent = true;
	q->fini_msg.fn = fini_fn;
	blox_reactor_send(q->tr->r, tcp_tr0(q->t)->r, &q->fini_msg);
}
