/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP transport: listeners, one connection per queue, the receive
 * state machine per queue and the send state per command.
 */
#ifndef BLOX_TCP_H
#define BLOX_TCP_H

#include "blox_bufpool.h"
#include "nvmf.h"

/* Largest data payload of one H2CData PDU we accept (ICResp MAXH2CDATA). */
#define NVMF_TCP_MAXH2CDATA (128u * 1024)

struct nvmf_tcp;
struct evconnlistener;
struct event;
struct event_base;

/*
 * A listener that pauses when accept() fails (EMFILE, ENFILE, ENOBUFS)
 * instead of being woken for the same backlog forever: the NVMe/TCP
 * listeners and the admin API's. The pause grows as blox_backoff says.
 */
struct tcp_accept_pause {
	struct evconnlistener *lev;
	struct event *retry; /* made at the first pause */
	struct blox_backoff b;
};

/* accept() failed on @p->lev at @now_ns: pause it; the pause in ms (0: no timer, no pause). */
uint32_t tcp_accept_pause(struct tcp_accept_pause *p, struct event_base *base, uint64_t now_ns);
void tcp_accept_pause_fini(struct tcp_accept_pause *p);

/*
 * What one client may hold of the transport. 0 in any member: no limit
 * (no deadline). A connection past a deadline is closed; one over a cap
 * is closed as soon as it is accepted.
 */
struct nvmf_tcp_limits {
	uint32_t max_conns; /* connections open at once */
	uint32_t max_conns_per_host; /* of them from one source address */
	uint32_t icreq_timeout_ms; /* ICReq after accept */
	uint32_t connect_timeout_ms; /* Fabrics Connect after the ICResp */
	uint32_t pdu_timeout_ms; /* rest of a PDU once its header began */
	/*
	 * Data buffers come from one pool when a command needs them: its cap
	 * (never 0), a cap per connection (a connection holding nothing still
	 * gets one buffer), R2Ts outstanding per connection. A command over a
	 * cap waits for buffers to come back; it does not fail.
	 */
	uint32_t buffer_pool_mb;
	uint32_t max_conn_buffer_kb;
	uint32_t max_r2t;
};

#define NVMF_TCP_LIMITS_DEFAULT                                                            \
	((struct nvmf_tcp_limits){ .max_conns = 4096,                                      \
				   .max_conns_per_host = 256,                              \
				   .icreq_timeout_ms = 10000,                              \
				   .connect_timeout_ms = 10000,                            \
				   .pdu_timeout_ms = 30000,                                \
				   .buffer_pool_mb = 256,                                  \
				   .max_conn_buffer_kb = 16384,                            \
				   .max_r2t = 128 })

struct nvmf_tcp_stats {
	uint64_t queues_accepted, queues_closed;
	uint64_t pdus_rx, pdus_tx;
	uint64_t term_sent, term_received;
	uint64_t hdgst_errors, ddgst_errors;
	/* Limits that tripped (struct nvmf_tcp_limits). */
	uint64_t accept_errors; /* accept() failed (EMFILE, ENFILE, ENOBUFS...) */
	uint64_t accept_pauses; /* listener paused for a back-off */
	uint64_t refused_total; /* over max_conns */
	uint64_t refused_per_host; /* over max_conns_per_host */
	uint64_t icreq_timeouts, connect_timeouts, pdu_timeouts;
	uint64_t log_suppressed; /* limit log lines left out (rate limit) */
	uint64_t r2t_waits; /* commands that waited for an R2T slot (max_r2t) */
	uint64_t tls_handshakes, tls_failures; /* TLS 1.3 handshakes done, refused */
};

/* The data buffer pool: bytes now, and the waits its caps caused. */
struct nvmf_tcp_buffers {
	uint64_t cap, used, cached, peak;
	uint64_t pool_waits; /* commands that waited for the pool's cap */
	uint64_t conn_waits; /* commands that waited for their connection's cap */
};

/* Summed over the reactors (each has its share of --buffer-pool-mb). */
void nvmf_tcp_buffers(const struct nvmf_tcp *t, struct nvmf_tcp_buffers *out);

struct blox_reactors;

/*
 * @limits NULL: NVMF_TCP_LIMITS_DEFAULT. The target's limits (MDTS,
 * in-capsule size) must be set already; -EINVAL (and why in the log) when
 * the pool cannot hold two transfers of the largest size.
 *
 * @rs: the reactors (reactor 0 on the target's loop, started). I/O
 * queues move to reactor qid % N after their Connect; everything else,
 * and the core, stays on reactor 0. NULL: one loop, the target's.
 */
int nvmf_tcp_create(struct nvmf_tgt *tgt, const struct nvmf_tcp_limits *limits,
		    struct blox_reactors *rs, struct nvmf_tcp **out);
/*
 * Free the transport; every queue must be gone (nvmf_tcp_nr_queues() 0).
 * With reactors, call it before stopping them: it waits for each to drop
 * its part.
 */
void nvmf_tcp_destroy(struct nvmf_tcp *t);
/* Bind and listen on @port's address. -errno (e.g. -EADDRINUSE). */
int nvmf_tcp_listen(struct nvmf_tcp *t, struct nvmf_port *port);
void nvmf_tcp_unlisten(struct nvmf_tcp *t, struct nvmf_port *port);
/* Start closing every connection (shutdown). */
void nvmf_tcp_close_all(struct nvmf_tcp *t);
/*
 * Start closing every queue that came in through @port (a listener
 * removed under its hosts): the controller of each connected one is torn
 * down (nvmf_ctrl_fatal(), saying @why: its queues through other ports
 * go too), one not connected yet is closed. The queues end as they do at
 * any controller teardown, on their own reactors; nvmf_tcp_port_queues()
 * counts them down to 0. Call nvmf_tcp_unlisten() first so that none
 * comes in meanwhile.
 */
void nvmf_tcp_port_close(struct nvmf_tcp *t, const struct nvmf_port *port, const char *why);
uint32_t nvmf_tcp_nr_queues(const struct nvmf_tcp *t);
/* Queues (connected or connecting) that came in through @port. */
uint32_t nvmf_tcp_port_queues(const struct nvmf_tcp *t,
			      const struct nvmf_port *port);
/* Summed over the reactors. */
void nvmf_tcp_stats(const struct nvmf_tcp *t, struct nvmf_tcp_stats *out);
/* Queues living on reactor @id now (connected I/O queues move there). */
uint32_t nvmf_tcp_reactor_queues(const struct nvmf_tcp *t, unsigned id);
/* The reactors it runs on (1 without any). */
unsigned nvmf_tcp_nr_reactors(const struct nvmf_tcp *t);

#endif
