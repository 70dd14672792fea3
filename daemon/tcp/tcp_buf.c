/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Data buffers of commands, from the transport's bounded pool
 * (blox_bufpool): a command gets one when it needs it (in-capsule data
 * as it arrives, else once parsed), sized to its transfer and 4 KiB
 * aligned, with the scratch half its command may need after the data;
 * it gives it back when its context is freed. Over the pool's cap or its
 * connection's, a command waits: a parsed one aside (the queue goes on
 * reading), in-capsule data with the queue's receiver stopped. Served
 * waiters go on from an event of their queue, never inside the put that
 * served them. R2Ts outstanding per connection are capped the same way.
 *
 * Progress: a parsed command's wait never stops the connection, and what
 * holds buffers (data in flight both ways, commands in the backend) ends
 * without anything more from the pool. In-capsule data is the one wait
 * that stops a connection's receiving, and the H2CData that would free
 * its own buffers may be behind it: so in-capsule data the pool cannot
 * give at once goes into the queue's reserve (two in-capsule sizes, made
 * the first time it is needed); only when that is taken too (by a command
 * that has all its data and so finishes) does the receiver stop.
 */
#include "tcp_internal.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

static uint32_t round4k(uint32_t n)
{
	return (n + BLOX_BUF_ALIGN - 1) / BLOX_BUF_ALIGN * BLOX_BUF_ALIGN;
}

/*
 * Bytes of @c's data part: its transfer (the core checked it against
 * MDTS), or, for a command that moves no data, a page on the admin queue
 * (handlers may build a page there) and nothing on an I/O queue.
 */
static uint32_t data_part(const struct tcp_cmd *c)
{
	if (c->req.dir != NVMF_DIR_NONE && c->req.data_len)
		return round4k(c->req.data_len);
	return c->q->sq.qid == 0 ? BLOX_BUF_ALIGN : 0;
}

/* Bytes of @c's buffer: its data part and, after it, its scratch. */
static uint32_t buf_need(const struct tcp_cmd *c)
{
	return data_part(c) + round4k(c->req.scratch_len);
}

static void buf_assign(struct tcp_cmd *c, uint8_t *base, uint32_t data)
{
	c->req.buf = base;
	c->req.scratch = c->req.scratch_len ? c->req.buf + data : NULL;
}

/* Bytes of a queue's reserve: in-capsule data and a Compare's scratch. */
static uint32_t reserve_len(const struct tcp_queue *q)
{
	return 2 * round4k(BLOX_MAX(nvmf_io_inline(q->t->tgt), (uint32_t)NVMF_ADMIN_INLINE));
}

/* On @c's queue's reactor: the bytes its buffer holds (the reserve's or the pool's). */
uint32_t tcp_cmd_buf_cap(const struct tcp_cmd *c)
{
	if (!c->req.buf)
		return 0;
	return c == c->q->reserve_user ? reserve_len(c->q) : (uint32_t)c->bw.len;
}

/* The reserve is free again: to the in-capsule data the receiver waits for. */
static void reserve_handoff(struct tcp_queue *q)
{
	struct tcp_cmd *c = q->rx_cmd;

	if (q->rx != RX_WAIT_BUF || !c || !c->bw.where || c->on_ready)
		return;
	blox_bufpool_cancel(&c->bw);
	q->reserve_user = c;
	c->req.buf = q->reserve;
	c->on_ready = true;
	TAILQ_INSERT_TAIL(&q->buf_ready, c, link);
	event_active(q->buf_ev, 0, 0);
}

static void log_wait(struct tcp_queue *q, uint32_t len)
{
	const struct blox_bufpool *p = &q->tr->pool;

	tcp_limit_log(q->tr,
		      "%s: a command waits for %u KiB of buffer: pool %lu of %lu KiB in use, "
		      "connection %lu KiB (--buffer-pool-mb, --max-conn-buffer-kb)",
		      q->peer, len / 1024, (unsigned long)(p->used / 1024),
		      (unsigned long)(p->cap / 1024), (unsigned long)(q->pu.held / 1024));
}

/* Served after waiting (inside a put): go on from the queue's event. */
static void buf_ready(struct blox_bufpool_wait *w)
{
	struct tcp_cmd *c = container_of(w, struct tcp_cmd, bw);
	struct tcp_queue *q = c->q;

	if (q->rx == RX_DEAD)
		return; /* tcp_q_buf_stop() or the close gives it back */
	c->on_ready = true;
	TAILQ_INSERT_TAIL(&q->buf_ready, c, link);
	event_active(q->buf_ev, 0, 0);
}

static int buf_get(struct tcp_cmd *c, uint32_t len)
{
	struct tcp_queue *q = c->q;
	int rc;

	c->bw.len = len;
	c->bw.ready = buf_ready;
	rc = blox_bufpool_get(&q->pu, &c->bw);
	if (rc == -EAGAIN)
		log_wait(q, len);
	else if (rc && rc != -EAGAIN)
		tcp_limit_log(q->tr, "%s: no buffer of %u KiB: %s", q->peer, len / 1024,
			      rc == -ENOMEM ? "out of memory" : "over the pool");
	return rc;
}

int tcp_cmd_inline_buf(struct tcp_cmd *c, uint32_t len)
{
	uint32_t data = round4k(len), need = data;
	int rc;

	/* A Compare's scratch, known before parsing: no second wait later. */
	if (c->q->sq.qid && c->req.cmd.opcode == nvme_cmd_compare)
		need += data;
	c->bw.len = need;
	c->bw.ready = buf_ready;
	c->bw.no_wait = true;
	rc = blox_bufpool_get(&c->q->pu, &c->bw);
	c->bw.no_wait = false;
	if (!rc) {
		c->req.buf = c->bw.buf;
		return 0;
	}
	if (rc != -EAGAIN)
		return rc;
	if (!c->q->reserve_user && need <= reserve_len(c->q)) {
		if (!c->q->reserve)
			c->q->reserve = aligned_alloc(BLOX_BUF_ALIGN, reserve_len(c->q));
		if (c->q->reserve) {
			c->q->reserve_user = c;
			c->req.buf = c->q->reserve;
			return 0;
		}
	}
	rc = buf_get(c, need);
	if (!rc)
		c->req.buf = c->bw.buf;
	return rc;
}

/* ---- R2T slots ---- */

static void r2t_start(struct tcp_cmd *c)
{
	struct tcp_queue *q = c->q;
	uint32_t max = q->t->lim.max_r2t;

	if (max && q->r2t_out >= max) {
		c->state = CMD_R2T_WAIT;
		TAILQ_INSERT_TAIL(&q->r2t_wait, c, link);
		TCP_STAT(q->tr, r2t_waits);
		tcp_limit_log(q->tr, "%s: a command waits for an R2T: %u outstanding (--max-r2t)",
			      q->peer, q->r2t_out);
		return;
	}
	q->r2t_out++;
	c->r2t_slot = true;
	tcp_queue_r2t(c);
}

void tcp_cmd_r2t_done(struct tcp_cmd *c)
{
	struct tcp_queue *q = c->q;
	struct tcp_cmd *w;

	if (!c->r2t_slot)
		return;
	c->r2t_slot = false;
	q->r2t_out--;
	if (q->rx == RX_DEAD || !(w = TAILQ_FIRST(&q->r2t_wait)))
		return;
	TAILQ_REMOVE(&q->r2t_wait, w, link);
	w->state = CMD_EXEC;
	q->r2t_out++;
	w->r2t_slot = true;
	tcp_queue_r2t(w);
}

/* ---- commands ---- */

static void cmd_go(struct tcp_cmd *c)
{
	c->state = CMD_EXEC;
	if (c->req.dir == NVMF_DIR_H2C && !c->req.data_in_capsule)
		r2t_start(c);
	else if (tcp_q_remote(c->q))
		tcp_cmd_to_core(c);
	else
		nvmf_req_execute(&c->req);
}

/* A command that cannot have its buffer: failed (remote: in the core). */
static void cmd_fail(struct tcp_cmd *c)
{
	if (tcp_q_remote(c->q)) {
		c->early_status = NVME_SC_INTERNAL;
		tcp_cmd_to_core(c);
		return;
	}
	nvmf_req_complete(&c->req, NVME_SC_INTERNAL);
}


/*
 * A command of a remote queue, on reactor 0 after nvmf_req_init(): the
 * buffer its queue's reactor got from what the opcode said must hold what
 * the parser asked for; the scratch half is placed. false: fail it.
 */
bool tcp_cmd_buf_fits(struct tcp_cmd *c)
{
	if (buf_need(c) > c->buf_cap)
		return false;
	if (c->req.buf)
		buf_assign(c, c->req.buf, data_part(c));
	return true;
}

void tcp_cmd_buf_go(struct tcp_cmd *c)
{
	uint32_t data = data_part(c), need = buf_need(c);
	int rc;

	if (c->req.data_in_capsule) {
		/* Its buffer came with the capsule (the pool's or the reserve). */
		if (tcp_cmd_buf_cap(c) < round4k(c->req.data_len) + round4k(c->req.scratch_len)) {
			cmd_fail(c);
			return;
		}
		buf_assign(c, c->req.buf, round4k(c->req.data_len));
		cmd_go(c);
		return;
	}
	if (!need) {
		cmd_go(c);
		return;
	}
	rc = buf_get(c, need);
	if (rc == -EAGAIN) {
		c->state = CMD_WAIT_BUF;
		return;
	}
	if (rc) {
		cmd_fail(c);
		return;
	}
	buf_assign(c, c->bw.buf, data);
	cmd_go(c);
}

void tcp_cmd_buf_put(struct tcp_cmd *c)
{
	struct tcp_queue *q = c->q;

	if (c->bw.where)
		blox_bufpool_cancel(&c->bw);
	if (c->bw.buf)
		blox_bufpool_put(&q->pu, &c->bw);
	c->req.buf = c->req.scratch = NULL;
	if (c == q->reserve_user) {
		q->reserve_user = NULL;
		reserve_handoff(q);
	}
	tcp_cmd_r2t_done(c);
}

static void buf_ev_cb(evutil_socket_t fd, short what, void *arg)
{
	struct tcp_queue *q = arg;
	struct tcp_cmd *c;

	(void)fd;
	(void)what;
	while ((c = TAILQ_FIRST(&q->buf_ready))) {
		TAILQ_REMOVE(&q->buf_ready, c, link);
		c->on_ready = false;
		if (c->state == CMD_RECV_INLINE) {
			if (c != q->reserve_user)
				c->req.buf = c->bw.buf;
			tcp_q_rx_resume(q);
		} else {
			buf_assign(c, c->bw.buf, data_part(c));
			cmd_go(c);
		}
	}
}

/*
 * A parsed command that will never run: completed (the response is
 * dropped on a closing queue), so that what the core took for it (a
 * namespace reference) is given back.
 */
void tcp_cmd_drop(struct tcp_cmd *c)
{
	/* A remote queue's command reaches the core only with all its data. */
	if (tcp_q_remote(c->q)) {
		tcp_cmd_put(c);
		return;
	}
	c->state = CMD_EXEC;
	nvmf_req_complete(&c->req, NVME_SC_ABORT_QUEUE);
}

void tcp_q_buf_stop(struct tcp_queue *q)
{
	struct tcp_cmd *c;

	while ((c = TAILQ_FIRST(&q->buf_ready))) {
		TAILQ_REMOVE(&q->buf_ready, c, link);
		c->on_ready = false;
		if (c->state == CMD_WAIT_BUF)
			tcp_cmd_drop(c);
		/* CMD_RECV_INLINE: q_stop_rx releases q->rx_cmd. */
	}
	while ((c = TAILQ_FIRST(&q->r2t_wait))) {
		TAILQ_REMOVE(&q->r2t_wait, c, link);
		tcp_cmd_drop(c);
	}
	for (uint32_t i = 0; i < q->nr_cmds; i++)
		if (q->cmds[i].state == CMD_WAIT_BUF)
			tcp_cmd_drop(&q->cmds[i]);
	if (q->connect_cmd && q->connect_cmd->state == CMD_WAIT_BUF)
		tcp_cmd_drop(q->connect_cmd);
}

/* ---- set-up ---- */

int tcp_q_buf_init(struct tcp_queue *q)
{
	blox_bufpool_user_init(&q->pu, &q->tr->pool,
			       (uint64_t)q->t->lim.max_conn_buffer_kb * 1024);
	TAILQ_INIT(&q->buf_ready);
	TAILQ_INIT(&q->r2t_wait);
	q->buf_ev = event_new(q->tr->base, -1, 0, buf_ev_cb, q);
	return q->buf_ev ? 0 : -ENOMEM;
}

void tcp_q_buf_fini(struct tcp_queue *q)
{
	if (q->buf_ev)
		event_free(q->buf_ev);
	q->buf_ev = NULL;
}

int tcp_buf_check(struct nvmf_tcp *t)
{
	uint64_t cap = (uint64_t)t->lim.buffer_pool_mb << 20;
	uint32_t xfer = nvmf_max_xfer(t->tgt);

	/* A Compare of the largest size holds two transfers at once. */
	if (cap < 2ull * xfer) {
		blox_log(t->tgt->log, BLOX_LOG_ERR,
			 "--buffer-pool-mb %u: must hold two transfers of --mdts-kb %u (%u MiB)",
			 t->lim.buffer_pool_mb, xfer / 1024, (2 * xfer + (1u << 20) - 1) >> 20);
		return -EINVAL;
	}
	return 0;
}

/*
 * A reactor's pool: an equal share of --buffer-pool-mb, so that the bound
 * on memory is the one configured whatever the number of reactors, but
 * never less than two of the largest transfers (what one command may
 * hold at once).
 */
int tcp_buf_pool_init(struct tcp_reactor *tr)
{
	uint64_t xfer2 = 2ull * nvmf_max_xfer(tr->t->tgt);
	uint64_t cap = ((uint64_t)tr->t->lim.buffer_pool_mb << 20) / tr->t->nr_tr;

	cap = (cap + BLOX_BUF_ALIGN - 1) / BLOX_BUF_ALIGN * BLOX_BUF_ALIGN;
	return blox_bufpool_init(&tr->pool, BLOX_MAX(cap, xfer2), (size_t)xfer2);
}

void nvmf_tcp_buffers(const struct nvmf_tcp *t, struct nvmf_tcp_buffers *out)
{
	memset(out, 0, sizeof(*out));
	for (unsigned i = 0; i < t->nr_tr; i++) {
		struct blox_bufpool_counts n;

		blox_bufpool_counts(&t->tr[i].pool, &n);
		out->cap += n.cap;
		out->used += n.used;
		out->cached += n.cached;
		out->peak += n.peak;
		out->pool_waits += n.pool_waits;
		out->conn_waits += n.user_waits;
	}
}
