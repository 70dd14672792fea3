/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * When a command arrived. A command's latency, as bloxd counts it, starts
 * when its capsule reached this host, not when the receiver got round to
 * reading it: under load, capsules wait in the socket's receive queue for
 * up to a whole loop pass, time the host waits too.
 *
 * The kernel stamps segments as it receives them (SO_TIMESTAMPING,
 * software), and a read tells one time: that of the last segment it took
 * bytes from (segments queued behind one another are merged, the merged
 * one keeping the newest time). So what a read brought arrived between
 * the start of the last read that emptied the socket (nothing read since
 * came before it) and that newest time. While the loop keeps running
 * (under load, polling) capsules come spread over that span, and each is
 * placed in it by where it ends in what was read; when the loop may have
 * slept since the socket was emptied (nvmf_tgt.pass.idle_since on reactor
 * 0, blox_reactor_idle_since() on the others), what woke it came as one
 * burst: all of it at the newest time (the host's batch of commands in one
 * write, mostly). A capsule that
 * is alone in its read gets the newest time either way. Every time lies
 * within [that start, now]. TLS reads (through OpenSSL) carry no times:
 * their commands start when read, as before.
 */
#include "tcp_internal.h"

#include <time.h>

static uint64_t real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tcp_rx_stamp(struct tcp_queue *q, uint32_t pre, uint64_t rx_ts, uint64_t before,
		  bool drained)
{
	const struct blox_clock *clk = q->t->tgt->clock;
	uint64_t lo = q->rx_drained, now, age, real, idle;

	if (drained)
		q->rx_drained = before;
	q->rx_pre = pre;
	q->rx_ts0 = q->rx_ts1 = 0;
	if (!rx_ts || !blox_clock_is_real(clk))
		return;
	now = blox_clock_now(clk);
	real = real_ns();
	age = real > rx_ts ? real - rx_ts : 0;
	lo = BLOX_MIN(lo, now);
	q->rx_ts1 = BLOX_MAX(now > age ? now - age : 0, lo);
	idle = tcp_q_remote(q) ? blox_reactor_idle_since(q->tr->r) : q->t->tgt->pass.idle_since;
	if (!lo || idle >= lo)
		q->rx_ts0 = q->rx_ts1;
	else
		q->rx_ts0 = lo;
}

uint64_t tcp_rx_arrival(const struct tcp_queue *q)
{
	uint64_t at, span;

	if (!q->rx_ts1)
		return blox_clock_now(q->t->tgt->clock);
	span = (uint64_t)q->rx_pre + q->rbuf_len;
	if (!span || q->rx_ts0 >= q->rx_ts1)
		return q->rx_ts1;
	at = q->rx_pre + BLOX_MIN(q->rbuf_off, q->rbuf_len);
	return q->rx_ts0 + (q->rx_ts1 - q->rx_ts0) * at / span;
}
