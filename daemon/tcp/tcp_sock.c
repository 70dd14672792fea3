/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The socket under a queue, in the shape of SPDK's sock layer: rx and tx
 * call through struct tcp_sock_ops and never know whether the bytes are
 * plain NVMe/TCP or TLS 1.3 records. The TLS side (OpenSSL) is PSK only
 * (TP 8011): the server finds the PSK by the identity the host offers
 * (psk_find_cb), TLS_AES_128_GCM_SHA256 and TLS_AES_256_GCM_SHA384, no
 * certificates, no session tickets. A listener that allows both tells a
 * ClientHello (a TLS handshake record, 0x16) from an ICReq (PDU type 0)
 * by the first byte, as the Linux target does.
 */
#include "tcp_internal.h"

#include <errno.h>
#include <event2/event.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nvme_tls.h"

#define TLS_RECORD_TYPE_HANDSHAKE 0x16
#define TLS_WBUF (64u * 1024) /* plaintext gathered per SSL_write */

/* ---- plain ---- */

/*
 * A read that also takes the receive time of the last segment it read
 * from (SO_TIMESTAMPING, set up by tcp_sock_init), for the arrival times
 * of the commands in it (tcp_rx.c).
 */
static ssize_t plain_readv(struct tcp_sock *s, struct iovec *iov, int cnt)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct scm_timestamping))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = {
		.msg_iov = iov,
		.msg_iovlen = (size_t)cnt,
		.msg_control = ctl.buf,
		.msg_controllen = sizeof(ctl.buf),
	};
	ssize_t n = recvmsg(s->fd, &mh, 0);

	s->rx_ts = 0;
	if (n <= 0)
		return n;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPING) {
			struct scm_timestamping ts;

			memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
			s->rx_ts = (uint64_t)ts.ts[0].tv_sec * 1000000000ull +
				   (uint64_t)ts.ts[0].tv_nsec;
		}
	}
	return n;
}

static ssize_t plain_writev(struct tcp_sock *s, const struct iovec *iov, int cnt)
{
	return writev(s->fd, iov, cnt);
}

static bool plain_pending(const struct tcp_sock *s)
{
	(void)s;
	return false;
}

static void plain_shutdown(struct tcp_sock *s)
{
	shutdown(s->fd, SHUT_WR);
}

static void plain_close(struct tcp_sock *s)
{
	close(s->fd);
	s->fd = -1;
}

static const struct tcp_sock_ops plain_ops = {
	.name = "tcp",
	.readv = plain_readv,
	.writev = plain_writev,
	.pending = plain_pending,
	.shutdown = plain_shutdown,
	.close = plain_close,
};

/* ---- TLS ---- */

/* An SSL_ERROR_* of a failed call on @s as the -1/errno or 0 the ops return. */
static ssize_t tls_error(struct tcp_sock *s, int ret)
{
	int e = SSL_get_error(s->ssl, ret), saved = errno;

	ERR_clear_error();
	switch (e) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		errno = EAGAIN;
		return -1;
	case SSL_ERROR_ZERO_RETURN: /* close_notify */
		return 0;
	case SSL_ERROR_SYSCALL:
		if (!saved)
			return 0; /* EOF without close_notify */
		errno = saved;
		return -1;
	default:
		s->failed = true;
		errno = EPROTO;
		return -1;
	}
}

static ssize_t tls_readv(struct tcp_sock *s, struct iovec *iov, int cnt)
{
	size_t total = 0;

	for (int i = 0; i < cnt; i++) {
		size_t off = 0, n;

		while (off < iov[i].iov_len) {
			int ret = SSL_read_ex(s->ssl, (uint8_t *)iov[i].iov_base + off,
					      iov[i].iov_len - off, &n);

			if (ret <= 0) {
				if (total) {
					ERR_clear_error();
					return (ssize_t)total;
				}
				return tls_error(s, ret);
			}
			off += n;
			total += n;
		}
	}
	return (ssize_t)total;
}

/*
 * Gather up to TLS_WBUF bytes of @iov into one SSL_write (a few records
 * rather than one per PDU header). After a WANT_WRITE the caller offers
 * the same bytes again, maybe with more after them: OpenSSL (partial
 * writes, moving buffer) takes that as the retry it expects.
 */
static ssize_t tls_writev(struct tcp_sock *s, const struct iovec *iov, int cnt)
{
	size_t done = 0, off = 0;
	int i = 0;

	while (i < cnt) {
		size_t n = 0, w;
		int ret;

		while (i < cnt && n < TLS_WBUF) {
			size_t take = BLOX_MIN(iov[i].iov_len - off, TLS_WBUF - n);

			memcpy(s->wbuf + n, (const uint8_t *)iov[i].iov_base + off, take);
			n += take;
			off += take;
			if (off == iov[i].iov_len) {
				i++;
				off = 0;
			}
		}
		if (!n)
			break;
		/* Partial writes return after each record: go on until it all went. */
		for (size_t put = 0; put < n; put += w, done += w) {
			ret = SSL_write_ex(s->ssl, s->wbuf + put, n - put, &w);
			if (ret <= 0) {
				if (done) {
					ERR_clear_error();
					return (ssize_t)done;
				}
				return tls_error(s, ret);
			}
		}
	}
	return (ssize_t)done;
}

/* Decrypted bytes, or whole records read ahead, that no socket event will announce. */
static bool tls_pending(const struct tcp_sock *s)
{
	return SSL_has_pending(s->ssl);
}

static void tls_shutdown(struct tcp_sock *s)
{
	if (!s->failed && SSL_is_init_finished(s->ssl))
		SSL_shutdown(s->ssl); /* close_notify, best effort */
	ERR_clear_error();
}

static void tls_close(struct tcp_sock *s)
{
	SSL_free(s->ssl);
	s->ssl = NULL;
	free(s->wbuf);
	s->wbuf = NULL;
	plain_close(s);
}

static const struct tcp_sock_ops tls_ops = {
	.name = "tls",
	.readv = tls_readv,
	.writev = tls_writev,
	.pending = tls_pending,
	.shutdown = tls_shutdown,
	.close = tls_close,
};

void tcp_sock_init(struct tcp_sock *s, int fd, enum nvmf_tls_mode mode)
{
	int ts = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;

	memset(s, 0, sizeof(*s));
	s->ops = &plain_ops;
	s->fd = fd;
	/* Receive times of segments, for when commands arrived (plain reads only). */
	(void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &ts, sizeof(ts));
	s->hs = mode == NVMF_TLS_REQUIRED ? TCP_HS_TLS
		: mode == NVMF_TLS_ALLOWED ? TCP_HS_PEEK
					   : TCP_HS_DONE;
}

/* ---- the PSK, by identity ---- */

/* The PSK text of @hostnqn for @subnqn (the discovery NQN: its PSK on any subsystem). */
static const char *host_psk(struct nvmf_tgt *tgt, const char *hostnqn, const char *subnqn)
{
	struct nvmf_subsys *s = nvmf_subsys_find(tgt, subnqn);
	const struct nvmf_host *h;

	if (s && s->type != NVMF_SUBSYS_DISCOVERY) {
		h = nvmf_subsys_find_host(s, hostnqn);
		return h && h->tls_psk[0] ? h->tls_psk : NULL;
	}
	if (!s)
		return NULL;
	TAILQ_FOREACH(s, &tgt->subsystems, link) {
		h = nvmf_subsys_find_host(s, hostnqn);
		if (h && h->tls_psk[0])
			return h->tls_psk;
	}
	return NULL;
}

/*
 * The server's look-up: the identity names the host and subsystem; their
 * PSK must give the very same identity (version 1: its digest proves the
 * key) and the TLS PSK becomes the session's. Unknown: no session, and
 * without a certificate the handshake fails.
 */
static int psk_find_cb(SSL *ssl, const unsigned char *id, size_t idlen, SSL_SESSION **sess)
{
	static const unsigned char suite[3][2] = { { 0 }, { 0x13, 0x01 }, { 0x13, 0x02 } };
	struct tcp_queue *q = SSL_get_app_data(ssl);
	struct nvme_tls_ident ident;
	struct nvme_tls_key key;
	struct nvme_tls_psk psk;
	const SSL_CIPHER *cipher;
	const char *text;
	SSL_SESSION *s = NULL;

	*sess = NULL;
	q->sock.psk_refused = true; /* until a session is made below */
	/* NQNs with control characters go no further (nor into the log). */
	if (nvme_tls_ident_parse((const char *)id, idlen, &ident) ||
	    !nvmf_nqn_valid(ident.hostnqn) || !nvmf_nqn_valid(ident.subnqn)) {
		blox_log(q->t->tgt->log, BLOX_LOG_INFO, "%s: TLS: not an NVMe PSK identity",
			 q->peer);
		return 1;
	}
	text = host_psk(q->t->tgt, ident.hostnqn, ident.subnqn);
	if (!text || nvme_tls_key_parse(text, &key, NULL, 0)) {
		blox_log(q->t->tgt->log, BLOX_LOG_INFO, "%s: TLS: no PSK for host '%s' on '%s'",
			 q->peer, ident.hostnqn, ident.subnqn);
		return 1;
	}
	if (nvme_tls_key_cipher_hash(&key) != ident.hash ||
	    nvme_tls_psk_make(&key, ident.hostnqn, ident.subnqn, ident.version, &psk) ||
	    strlen(psk.identity) != idlen || memcmp(psk.identity, id, idlen)) {
		blox_log(q->t->tgt->log, BLOX_LOG_INFO,
			 "%s: TLS: host '%s' on '%s' offers another PSK than its own", q->peer,
			 ident.hostnqn, ident.subnqn);
		goto out;
	}
	cipher = SSL_CIPHER_find(ssl, suite[psk.hash]);
	s = SSL_SESSION_new();
	if (!cipher || !s || !SSL_SESSION_set1_master_key(s, psk.psk, psk.len) ||
	    !SSL_SESSION_set_cipher(s, cipher) ||
	    !SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION)) {
		SSL_SESSION_free(s);
		s = NULL;
		goto out;
	}
	q->sock.psk_refused = false;
	snprintf(q->sq.tls_hostnqn, sizeof(q->sq.tls_hostnqn), "%s", ident.hostnqn);
	snprintf(q->sq.tls_subnqn, sizeof(q->sq.tls_subnqn), "%s", ident.subnqn);
	*sess = s;
out:
	nvme_tls_wipe(&key, sizeof(key));
	nvme_tls_wipe(&psk, sizeof(psk));
	return 1;
}

/*
 * Before the suite is chosen: the hash of the first PSK identity offered
 * ("NVMe?Rhh ...") picks the one suite its PSK can be used with, whatever
 * order the host lists the suites in (a SHA-384 PSK under the SHA-256
 * suite would be skipped, and without a certificate the handshake fail).
 */
static int client_hello_cb(SSL *ssl, int *al, void *arg)
{
	const unsigned char *p;
	size_t len, idlen;
	const char *suite;

	(void)al;
	(void)arg;
	/* pre_shared_key: identities<7..2^16-1> of { identity<1..2^16-1>, age }. */
	if (!SSL_client_hello_get0_ext(ssl, TLSEXT_TYPE_psk, &p, &len) || len < 4 + 9)
		return SSL_CLIENT_HELLO_SUCCESS;
	idlen = (size_t)p[2] << 8 | p[3];
	if (idlen < 9 || idlen + 4 > len || memcmp(p + 4, "NVMe", 4) || p[4 + 5] != 'R' ||
	    p[4 + 6] != '0')
		return SSL_CLIENT_HELLO_SUCCESS;
	suite = nvme_tls_cipher_name((uint8_t)(p[4 + 7] - '0'));
	if (suite)
		SSL_set_ciphersuites(ssl, suite);
	return SSL_CLIENT_HELLO_SUCCESS;
}

int tcp_tls_init(struct nvmf_tcp *t)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (!ctx)
		return -ENOMEM;
	if (!SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384")) {
		SSL_CTX_free(ctx);
		ERR_clear_error();
		return -EINVAL;
	}
	SSL_CTX_set_num_tickets(ctx, 0);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET | SSL_OP_NO_RENEGOTIATION);
	SSL_CTX_set_client_hello_cb(ctx, client_hello_cb, NULL);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
				      SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				      SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_read_ahead(ctx, 1);
	SSL_CTX_set_psk_find_session_callback(ctx, psk_find_cb);
	t->ssl_ctx = ctx;
	return 0;
}

void tcp_tls_fini(struct nvmf_tcp *t)
{
	SSL_CTX_free(t->ssl_ctx);
	t->ssl_ctx = NULL;
}

static int tls_new(struct tcp_queue *q)
{
	struct tcp_sock *s = &q->sock;

	s->ssl = SSL_new(q->t->ssl_ctx);
	s->wbuf = malloc(TLS_WBUF);
	if (!s->ssl || !s->wbuf || !SSL_set_fd(s->ssl, s->fd)) {
		SSL_free(s->ssl);
		s->ssl = NULL;
		free(s->wbuf);
		s->wbuf = NULL;
		ERR_clear_error();
		return -ENOMEM;
	}
	SSL_set_app_data(s->ssl, q);
	SSL_set_accept_state(s->ssl);
	s->ops = &tls_ops;
	return 0;
}

static void tls_failed(struct tcp_queue *q, const char *why)
{
	TCP_STAT(q->tr, tls_failures);
	blox_log(q->t->tgt->log, BLOX_LOG_INFO, "%s: TLS handshake failed: %s", q->peer, why);
	q->sock.failed = true;
	ERR_clear_error();
	tcp_q_hard_close(q);
}

int tcp_sock_start(struct tcp_queue *q)
{
	struct tcp_sock *s = &q->sock;
	int ret;

	if (s->hs == TCP_HS_PEEK) {
		uint8_t b;
		ssize_t n = recv(s->fd, &b, 1, MSG_PEEK);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		if (n <= 0) {
			tcp_q_hard_close(q);
			return -1;
		}
		if (b != TLS_RECORD_TYPE_HANDSHAKE) {
			s->hs = TCP_HS_DONE; /* plain NVMe/TCP on a listener that allows it */
			return 1;
		}
		s->hs = TCP_HS_TLS;
	}
	if (s->hs != TCP_HS_TLS)
		return 1;
	if (!s->ssl && tls_new(q)) {
		tls_failed(q, "out of memory");
		return -1;
	}
	ret = SSL_do_handshake(s->ssl);
	if (ret == 1) {
		s->hs = TCP_HS_DONE;
		TCP_STAT(q->tr, tls_handshakes);
		blox_log(q->t->tgt->log, BLOX_LOG_DEBUG, "%s: TLS 1.3 %s as '%s'", q->peer,
			 SSL_get_cipher_name(s->ssl), q->sq.tls_hostnqn);
		return 1;
	}
	switch (SSL_get_error(s->ssl, ret)) {
	case SSL_ERROR_WANT_READ:
		ERR_clear_error();
		return 0;
	case SSL_ERROR_WANT_WRITE:
		ERR_clear_error();
		event_add(q->wev, NULL);
		return 0;
	default: {
		unsigned long e = ERR_peek_last_error();

		const char *why = e ? ERR_reason_error_string(e) : NULL;

		/* Without a PSK OpenSSL wants a certificate: say what really failed. */
		if (s->psk_refused)
			why = "no PSK of the host's accepted";
		tls_failed(q, why ? why : "connection closed");
		return -1;
	}
	}
}
