/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private state of the NVMe/TCP transport, shared by tcp.c (contexts,
 * closing, listening, accepting), tcp_tx.c (the send side) and tcp_rx.c
 * (the receive state machine).
 */
#ifndef BLOX_TCP_INTERNAL_H
#define BLOX_TCP_INTERNAL_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <event2/util.h>

#include "reactor.h"
#include "tcp.h"
#include "tcp_pdu.h"

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
	RX_WAIT_BUF, /* in-capsule data waits for a buffer: nothing is read */
	RX_HOLD, /* a Connect is in the core: nothing is read until it is answered */
	RX_DEAD, /* fatal error or closing: nothing more is read */
};

enum cmd_state {
	CMD_FREE,
	CMD_RECV_INLINE, /* in-capsule data arriving (or its buffer) */
	CMD_WAIT_BUF, /* parsed, waiting for its data buffer */
	CMD_R2T_WAIT, /* waiting for an R2T slot (max_r2t) */
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
struct tcp_sock;
struct evconnlistener;
struct ssl_st;
struct ssl_ctx_st;

/*
 * What rx and tx call to move bytes (tcp_sock.c): plain or TLS, as SPDK's
 * sock modules. Errors as the system calls give them: -1 and errno.
 */
struct tcp_sock_ops {
	const char *name;
	/* Fill @iov in order: bytes read (> 0), 0 at the end of the stream, or -1 (EAGAIN: nothing now). */
	ssize_t (*readv)(struct tcp_sock *s, struct iovec *iov, int cnt);
	/*
	 * Bytes of @iov taken (may be fewer), or -1 (EAGAIN: full now). After
	 * EAGAIN or a short write the caller offers the rest again, in order.
	 */
	ssize_t (*writev)(struct tcp_sock *s, const struct iovec *iov, int cnt);
	/* Bytes already off the socket that no read event will announce. */
	bool (*pending)(const struct tcp_sock *s);
	/* Say goodbye (TLS close_notify); best effort, never blocks. */
	void (*shutdown)(struct tcp_sock *s);
	/* Free it all and close the fd. */
	void (*close)(struct tcp_sock *s);
};

/* Where a connection is before its first PDU. */
enum tcp_hs {
	TCP_HS_DONE, /* PDUs flow through ops */
	TCP_HS_PEEK, /* TLS allowed: the first byte decides */
	TCP_HS_TLS, /* TLS handshake running */
};

struct tcp_sock {
	const struct tcp_sock_ops *ops;
	int fd;
	enum tcp_hs hs;
	bool failed; /* a TLS error: no close_notify */
	bool psk_refused; /* the host's PSK identity was not taken */
	struct ssl_st *ssl;
	uint8_t *wbuf; /* TLS: plaintext of one SSL_write */
	/*
	 * The kernel's receive time (CLOCK_REALTIME, ns) of the last segment
	 * the last read took bytes from: plain sockets only; 0 when unknown.
	 */
	uint64_t rx_ts;
};

/* Which deadline of the start of a connection runs (tcp_limits.c). */
enum tcp_stage {
	STAGE_ICREQ, /* accepted, waiting for the ICReq */
	STAGE_CONNECT, /* ICResp sent, waiting for the Fabrics Connect */
	STAGE_DONE, /* a controller owns the queue */
};

/* Connections open from one source address. */
struct tcp_host {
	uint8_t addr[16];
	uint8_t family;
	uint32_t conns;
	struct tcp_host *next;
};

#define TCP_HOST_BUCKETS 256

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
	bool r2t_slot; /* counted in q->r2t_out */
	bool on_ready; /* on q->buf_ready */
	struct blox_bufpool_wait bw; /* its data (+ scratch) buffer */
	TAILQ_ENTRY(tcp_cmd) link; /* free, send, R2T-wait or buf_ready list */
	/* To the core's reactor and back (a queue on another reactor, tcp_hop.c). */
	struct blox_msg msg;
	uint64_t rx_ns; /* when its capsule reached this host (tcp_rx_time.c): its start */
	uint32_t buf_cap; /* bytes of req.buf, for the core's reactor to check */
};

/*
 * What the transport keeps per reactor: the queues living there, their
 * buffer pool, the deadline sweep, the counters and the log rate limit.
 * Touched on its reactor only; the counters are written with relaxed
 * atomic stores (TCP_STAT) so that reactor 0 may sum them.
 */
struct tcp_reactor {
	struct nvmf_tcp *t;
	unsigned id;
	struct blox_reactor *r; /* NULL: the transport runs on the target's loop alone */
	struct event_base *base;
	TAILQ_HEAD(, tcp_queue) queues; /* living here (rlink) */
	uint32_t nr_queues; /* of them (atomic store: reactor 0 reads it) */
	struct nvmf_tcp_stats stats;
	struct blox_ratelimit rl; /* log lines about limits */
	struct blox_bufpool pool; /* data buffers of its queues */
	struct event *sweep_ev; /* checks the deadlines */
	struct blox_msg start_msg; /* reactor k: make the sweep timer there */
	struct blox_msg stop_msg; /* reactor k: free it there */
	int stop_state; /* 1: sent, 2: done (atomic) */
};

/* One counter of @tr's, by its own reactor. */
#define TCP_STAT_ADD(tr, field, n) \
	__atomic_store_n(&(tr)->stats.field, (tr)->stats.field + (n), __ATOMIC_RELAXED)
#define TCP_STAT(tr, field) TCP_STAT_ADD(tr, field, 1)

struct tcp_queue {
	struct nvmf_sq sq;
	struct nvmf_tcp *t;
	/*
	 * The reactor the connection lives on. Every queue starts on reactor
	 * 0 (accept, ICReq, TLS, Connect, authentication); an I/O queue moves
	 * to reactor qid % N after its Connect (tcp_hop.c), where its socket,
	 * PDUs, data and buffers are handled. Its commands run in the core on
	 * reactor 0, reached by messages.
	 */
	struct tcp_reactor *tr;
	bool closing; /* the transport's own "going": set on tr's reactor */
	unsigned move_to; /* reactor to move to after the Connect; 0: stay */
	bool close_sent, close_hard; /* reactor 0: a close message went to tr */
	bool fini_sent; /* tr: the queue's end went to reactor 0 */
	struct blox_msg adopt_msg, close_msg, fini_msg, free_msg;
	char local[INET6_ADDRSTRLEN]; /* the address the host reached */
	TAILQ_ENTRY(tcp_queue) rlink; /* tr->queues */
	int fd;
	struct tcp_sock sock;
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
	/*
	 * When the bytes in rbuf arrived (tcp_rx_time.c), in the target's
	 * clock: spread over [rx_ts0, rx_ts1] (0: not known, the commands
	 * start when read), rx_pre bytes of the read before rbuf's (data
	 * read straight into a command's buffer); rx_drained: the start of
	 * the last read that emptied the socket, so nothing read since
	 * arrived earlier.
	 */
	uint64_t rx_ts0, rx_ts1, rx_drained;
	uint32_t rx_pre;

	/* Negotiated at ICReq. */
	struct nvme_tcp_params params;
	uint8_t hpda;
	uint32_t maxr2t;

	/* Commands. */
	struct tcp_cmd *cmds;
	uint32_t nr_cmds;
	struct tcp_cmd *connect_cmd;
	TAILQ_HEAD(, tcp_cmd) free_cmds;
	/* Data buffers (tcp_buf.c). */
	struct blox_bufpool_user pu; /* its share of the pool */
	TAILQ_HEAD(, tcp_cmd) buf_ready; /* served after waiting: go on from buf_ev */
	struct event *buf_ev;
	uint8_t *reserve; /* in-capsule data when the pool is full (made then) */
	struct tcp_cmd *reserve_user;
	uint32_t r2t_out; /* R2Ts outstanding */
	TAILQ_HEAD(, tcp_cmd) r2t_wait; /* commands waiting for an R2T slot */
	TAILQ_HEAD(, tcp_cmd) send_list;
	uint32_t inflight; /* contexts not on the free list */

	/* A PDU outside any command: ICResp or C2HTermReq. */
	uint8_t oob[sizeof(struct nvme_tcp_icresp) + NVME_TCP_TERM_MAX_DATA] __attribute__((aligned(8)));
	uint32_t oob_len, oob_off;
	bool close_after_send; /* close once everything queued is written */
	bool fd_closed;
	TAILQ_ENTRY(tcp_queue) link; /* t->queues, reactor 0 */

	/* Limits (tcp_limits.c). */
	struct tcp_host *host;
	enum tcp_stage stage;
	uint64_t stage_deadline_ns; /* 0: none */
	uint64_t pdu_seq; /* PDUs begun (rx_expect_header) */
	uint64_t pdu_seq_timed; /* the PDU pdu_deadline_ns is for */
	uint64_t pdu_deadline_ns; /* 0: between PDUs */
};

struct tcp_listener {
	struct nvmf_port *port;
	struct evconnlistener *lev;
	struct nvmf_tcp *t;
	struct tcp_accept_pause pause; /* after an accept error */
};

struct nvmf_tcp {
	struct nvmf_tgt *tgt;
	/* Every queue, on any reactor: kept by reactor 0. */
	TAILQ_HEAD(, tcp_queue) queues;
	uint32_t nr_queues;
	struct nvmf_tcp_limits lim;
	struct tcp_host *hosts[TCP_HOST_BUCKETS]; /* reactor 0 */
	struct ssl_ctx_st *ssl_ctx; /* TLS 1.3 PSK server side (tcp_sock.c) */
	unsigned nr_tr;
	struct tcp_reactor tr[BLOX_REACTORS_MAX];
};

/* Reactor 0's transport state: accepting, the core, the admin API. */
static inline struct tcp_reactor *tcp_tr0(struct nvmf_tcp *t)
{
	return &t->tr[0];
}

/* @q lives on a reactor other than the core's (0). */
static inline bool tcp_q_remote(const struct tcp_queue *q)
{
	return q->tr->id != 0;
}

static inline struct tcp_queue *sq_to_q(struct nvmf_sq *sq)
{
	return container_of(sq, struct tcp_queue, sq);
}

/* tcp.c: contexts and closing. */
int tcp_cmds_alloc(struct tcp_queue *q, uint32_t n, struct tcp_cmd **cmds);
struct tcp_cmd *tcp_cmd_get(struct tcp_queue *q);
/* Return a context; may schedule the queue's free when it was the last. */
void tcp_cmd_put(struct tcp_cmd *c);
void tcp_q_maybe_free(struct tcp_queue *q);
void tcp_q_finish_close(struct tcp_queue *q);
/* The peer is gone or broke the socket: close now, drop what is queued. */
void tcp_q_hard_close(struct tcp_queue *q);
/* Going: send what is queued, then close. */
void tcp_q_soft_close(struct tcp_queue *q);
/* Reactor 0: the core and the accounting let @q go. */
void tcp_q_forget(struct tcp_queue *q);
/* Memory only: its events are gone, the core forgot it. */
void tcp_q_free(struct tcp_queue *q);
/* Fatal transport error: C2HTermReq with @fes/@fei, then close. */
void tcp_q_fatal(struct tcp_queue *q, uint16_t fes, uint32_t fei);

/* tcp_limits.c: caps, deadlines, accept back-off, rate-limited log. */
void tcp_limits_init(struct nvmf_tcp *t, const struct nvmf_tcp_limits *lim);
void tcp_limits_fini(struct nvmf_tcp *t);
/* The deadline sweep of @tr, on its reactor. 0 or -ENOMEM. */
int tcp_sweep_start(struct tcp_reactor *tr);
void tcp_sweep_stop(struct tcp_reactor *tr);
/* A log line about a limit (WARN), at most a few per second. */
void tcp_limit_log(struct tcp_reactor *tr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* May a connection from @sa come in? 0 and its host in *@h, or -EBUSY (counted). */
int tcp_admit(struct nvmf_tcp *t, const struct sockaddr *sa, struct tcp_host **h);
void tcp_host_put(struct nvmf_tcp *t, struct tcp_host *h);
/* Deadlines of a new queue: the ICReq's. */
void tcp_q_limits_start(struct tcp_queue *q);
/* The ICResp is queued: the Connect's deadline. */
void tcp_q_icreq_done(struct tcp_queue *q);
/* End of a read: start or stop the deadline of a PDU begun and not complete. */
void tcp_q_rx_mark(struct tcp_queue *q);
/* The listener's error callback: pause and accept again later. */
void tcp_listener_error_cb(struct evconnlistener *lev, void *arg);

/* tcp_buf.c: data buffers from the pool, R2T slots. */
int tcp_buf_check(struct nvmf_tcp *t);
int tcp_buf_pool_init(struct tcp_reactor *tr);
/* @q's buffers from its reactor's pool, its buffer event on that loop. 0 or -ENOMEM. */
int tcp_q_buf_init(struct tcp_queue *q);
/* Before @q moves: it holds nothing; its event goes. */
void tcp_q_buf_fini(struct tcp_queue *q);
/*
 * In-capsule data of @len bytes arrives for @c: 0 with c->req.buf set, or
 * -EAGAIN (the queue stops reading until the buffer comes, then reads
 * the data into it), or -errno (the connection must go).
 */
int tcp_cmd_inline_buf(struct tcp_cmd *c, uint32_t len);
/* @c passed nvmf_req_init(): get what it needs, then R2T or execute. */
void tcp_cmd_buf_go(struct tcp_cmd *c);
/* Back to the pool (and its R2T slot); from tcp_cmd_put(). */
void tcp_cmd_buf_put(struct tcp_cmd *c);
/* The R2T sequence of @c is done (all its data in, or failed). */
void tcp_cmd_r2t_done(struct tcp_cmd *c);
/* On @c's queue's reactor: the bytes its buffer holds. */
uint32_t tcp_cmd_buf_cap(const struct tcp_cmd *c);
/* Reactor 0, a remote queue's command parsed: its buffer fits (scratch placed). */
bool tcp_cmd_buf_fits(struct tcp_cmd *c);
/* A parsed command of a closing queue that will never run: completed, dropped. */
void tcp_cmd_drop(struct tcp_cmd *c);
/* The queue stops receiving: contexts waiting here are released. */
void tcp_q_buf_stop(struct tcp_queue *q);
/* The buffer of the command @q's receiver waits for came: go on reading. */
void tcp_q_rx_resume(struct tcp_queue *q);

/* tcp_sock.c: the socket seam. */
void tcp_sock_init(struct tcp_sock *s, int fd, enum nvmf_tls_mode mode);
int tcp_tls_init(struct nvmf_tcp *t);
void tcp_tls_fini(struct nvmf_tcp *t);
/*
 * Before the first PDU: the first byte (TLS allowed) and the handshake.
 * 1: PDUs may flow; 0: wait for the socket; -1: the queue was closed.
 */
int tcp_sock_start(struct tcp_queue *q);

/* tcp_tx.c: the send side. */
void tcp_queue_response(struct nvmf_req *req);
/* On @c's queue's reactor: its response (and data) onto the send list. */
void tcp_q_respond(struct tcp_cmd *c);
/* Ask for the next R2T of @c (up to MAXH2CDATA). */
void tcp_queue_r2t(struct tcp_cmd *c);
/* Write as much of the send list as the socket takes. */
void tcp_q_flush(struct tcp_queue *q);
void tcp_q_write_cb(evutil_socket_t fd, short what, void *arg);

/* tcp_rx.c: the receive side. */
void tcp_q_read_cb(evutil_socket_t fd, short what, void *arg);

/* ---- when commands arrived (tcp_rx_time.c) ---- */

/*
 * A read that started at @before brought @pre bytes straight into a
 * command's buffer and the rest into rbuf, the newest of them received by
 * the kernel at @rx_ts (CLOCK_REALTIME; 0: not known); @drained: it
 * emptied the socket.
 */
void tcp_rx_stamp(struct tcp_queue *q, uint32_t pre, uint64_t rx_ts, uint64_t before,
		  bool drained);
/* A read at @before found the socket empty. */
static inline void tcp_rx_drained(struct tcp_queue *q, uint64_t before)
{
	q->rx_drained = before;
}
/* When the capsule that ends at q->rbuf_off arrived, in the target's clock. */
uint64_t tcp_rx_arrival(const struct tcp_queue *q);
/* The receiver held for a Connect goes on (on the queue's reactor). */
void tcp_q_rx_release(struct tcp_queue *q);

/* tcp.c: a queue's events on its reactor's loop. 0 or -ENOMEM. */
int tcp_q_events(struct tcp_queue *q);
void tcp_q_events_free(struct tcp_queue *q);
/* Set the queue going (its reactor); the core's sq too on reactor 0. */
void tcp_q_set_closing(struct tcp_queue *q);

/*
 * tcp_hop.c: queues on reactors other than 0. A command of such a queue
 * is received there, gets its buffer and data there, then goes to
 * reactor 0 for the core (tcp_cmd_to_core) and comes back with its
 * response (tcp_queue_response sends it home).
 */
void tcp_cmd_to_core(struct tcp_cmd *c);
/* On reactor 0: @c's response goes to its queue's reactor. */
void tcp_cmd_to_home(struct tcp_cmd *c);
/* On reactor 0, the Connect answered and written: move @q to q->move_to. */
void tcp_q_move(struct tcp_queue *q);
/* On reactor 0: close @q on its reactor (hard: drop what is queued). */
void tcp_q_close_remote(struct tcp_queue *q, bool hard);
/* On @q's reactor, nothing of it in flight: end it in the core (reactor 0). */
void tcp_q_fini_remote(struct tcp_queue *q);
/* The reactor an I/O queue @qid is served on. */
unsigned tcp_pick_reactor(const struct nvmf_tcp *t, uint16_t qid);

#endif
