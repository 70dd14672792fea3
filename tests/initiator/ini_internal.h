/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The initiator's queue layout and the helpers its .c files share. Not
 * for users of the library: they see struct ini_queue as opaque.
 */
#ifndef BLOX_INI_INTERNAL_H
#define BLOX_INI_INTERNAL_H

#include <sys/uio.h>

#include "ini.h"
#include "nvme_tls.h"

struct ssl_st;
struct ssl_ctx_st;

#define INI_RXBUF_SIZE 65536
/* Anything larger is not a PDU this initiator accepts (raw mode). */
#define INI_MAX_PDU (8u << 20)

struct ini_queue {
	int fd;
	struct ini_opts opts;
	struct ini_icresp_info ic;
	bool ic_done;
	/* What we accept from the target once ICResp is in. */
	struct nvme_tcp_params rx;
	uint16_t qid;
	uint16_t sqhd;
	bool sqflow_disabled; /* Connect with CATTR 0x04 succeeded */
	uint32_t inline_max;
	/* cid -> outstanding request; cids are slot indexes. */
	struct ini_req **slots;
	uint16_t *free_cids; /* stack of free cids */
	uint32_t nr_free;
	TAILQ_HEAD(, ini_req) done; /* completed, not yet handed out */
	struct ini_term term;
	bool got_term;
	int error; /* sticky transport error, 0 while healthy */
	/* Buffered receive: bytes [rx_head, rx_tail) of rxbuf are unread. */
	uint8_t *rxbuf;
	size_t rx_head, rx_tail;
	/* TLS (ini_tls.c): NULL for plain TCP. */
	struct ssl_st *ssl;
	struct ssl_ctx_st *ssl_ctx;
	struct nvme_tls_psk tls_psk;
};

/* ini_sock.c */
int ini_sock_connect(const char *addr, uint16_t port, int timeout_ms);
/* Send everything, waiting up to @timeout_ms for the socket each time. */
int ini_sock_send(struct ini_queue *q, const struct iovec *iov, int iovcnt);
/*
 * Receive exactly @len bytes into @dst (NULL: discard). -ECONNRESET on
 * EOF, -ETIMEDOUT when nothing arrives for @timeout_ms.
 */
int ini_sock_recv(struct ini_queue *q, void *dst, size_t len, int timeout_ms);
int ini_timeout(const struct ini_queue *q);

/* ini_tls.c: the handshake on q->fd, then sends and receives through it. */
int ini_tls_start(struct ini_queue *q);
void ini_tls_free(struct ini_queue *q);
int ini_tls_send(struct ini_queue *q, const struct iovec *iov, int iovcnt);
/* Up to @len bytes into @buf (at least one), waiting as needed. */
int ini_tls_recv(struct ini_queue *q, void *buf, size_t len, size_t *got, int timeout_ms);

/* ini_queue.c: header + digest + pad of a PDU; returns its length (PDO). */
uint32_t ini_pdu_cmd_hdr(const struct ini_queue *q, const struct nvme_sqe *sqe,
			 uint32_t dlen, uint8_t *out);
uint32_t ini_pdu_h2c_hdr(const struct ini_queue *q, uint16_t cccid,
			 uint16_t ttag, uint32_t datao, uint32_t dlen,
			 bool last, uint8_t *out);

#endif
