/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The initiator's TLS 1.3 client side (OpenSSL, PSK only, TP 8011): the
 * identity and TLS PSK come from the host's configured PSK (nvme_tls.c),
 * the handshake runs right after the TCP connect, then every send and
 * receive of the queue goes through the SSL object.
 */
#include "ini_internal.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <string.h>

#include "nvme_tls.h"

/* The client's half of the PSK: our identity and a session carrying the TLS PSK. */
static int psk_use_cb(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
		      SSL_SESSION **sess)
{
	static const unsigned char suite[3][2] = { { 0 }, { 0x13, 0x01 }, { 0x13, 0x02 } };
	struct ini_queue *q = SSL_get_app_data(ssl);
	const SSL_CIPHER *cipher = SSL_CIPHER_find(ssl, suite[q->tls_psk.hash]);
	SSL_SESSION *s;

	*sess = NULL;
	if (!cipher || (md && md != SSL_CIPHER_get_handshake_digest(cipher)))
		return 1; /* a HelloRetryRequest for another hash: no PSK of ours */
	s = SSL_SESSION_new();
	if (!s || !SSL_SESSION_set1_master_key(s, q->tls_psk.psk, q->tls_psk.len) ||
	    !SSL_SESSION_set_cipher(s, cipher) ||
	    !SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION)) {
		SSL_SESSION_free(s);
		return 0;
	}
	*id = (const unsigned char *)q->tls_psk.identity;
	*idlen = strlen(q->tls_psk.identity);
	*sess = s;
	return 1;
}

static int wait_for(struct ini_queue *q, int ssl_err, int timeout_ms)
{
	struct pollfd p = { .fd = q->fd,
			    .events = ssl_err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN };
	int n;

	do
		n = poll(&p, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	return n > 0 ? 0 : n == 0 ? -ETIMEDOUT : -errno;
}

/* A failed SSL call: wait and go on (0), or the error. */
static int ssl_retry(struct ini_queue *q, int ret, int timeout_ms)
{
	int e = SSL_get_error(q->ssl, ret);

	ERR_clear_error();
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
		return wait_for(q, e, timeout_ms);
	if (e == SSL_ERROR_ZERO_RETURN || e == SSL_ERROR_SYSCALL)
		return -ECONNRESET;
	return -EPROTO;
}

int ini_tls_start(struct ini_queue *q)
{
	const struct ini_opts *o = &q->opts;
	struct nvme_tls_key key;
	int rc, ret;

	if (!o->tls_hostnqn || !o->tls_subnqn)
		return -EINVAL;
	rc = nvme_tls_key_parse(o->tls_psk, &key, NULL, 0);
	if (!rc)
		rc = nvme_tls_psk_make(&key, o->tls_hostnqn, o->tls_subnqn,
				       o->tls_identity_v0 ? 0 : 1, &q->tls_psk);
	nvme_tls_wipe(&key, sizeof(key));
	if (rc)
		return rc;
	q->ssl_ctx = SSL_CTX_new(TLS_client_method());
	if (!q->ssl_ctx)
		return -ENOMEM;
	if (!SSL_CTX_set_min_proto_version(q->ssl_ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_max_proto_version(q->ssl_ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_ciphersuites(q->ssl_ctx,
				      o->tls_ciphers ? o->tls_ciphers
						     : "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384"))
		goto fail;
	SSL_CTX_set_psk_use_session_callback(q->ssl_ctx, psk_use_cb);
	q->ssl = SSL_new(q->ssl_ctx);
	if (!q->ssl || !SSL_set_fd(q->ssl, q->fd))
		goto fail;
	SSL_set_app_data(q->ssl, q);
	SSL_set_connect_state(q->ssl);
	while ((ret = SSL_connect(q->ssl)) != 1) {
		rc = ssl_retry(q, ret, ini_timeout(q));
		if (rc)
			return rc == -EPROTO || rc == -ECONNRESET ? -ECONNREFUSED : rc;
	}
	return 0;
fail:
	ERR_clear_error();
	return -EINVAL;
}

void ini_tls_free(struct ini_queue *q)
{
	if (q->ssl) {
		SSL_shutdown(q->ssl);
		SSL_free(q->ssl);
	}
	SSL_CTX_free(q->ssl_ctx);
	ERR_clear_error();
	q->ssl = NULL;
	q->ssl_ctx = NULL;
	nvme_tls_wipe(&q->tls_psk, sizeof(q->tls_psk));
}

int ini_tls_send(struct ini_queue *q, const struct iovec *iov, int iovcnt)
{
	for (int i = 0; i < iovcnt; i++) {
		size_t off = 0, n;

		while (off < iov[i].iov_len) {
			int ret = SSL_write_ex(q->ssl, (const uint8_t *)iov[i].iov_base + off,
					       iov[i].iov_len - off, &n);

			if (ret > 0) {
				off += n;
				continue;
			}
			ret = ssl_retry(q, ret, ini_timeout(q));
			if (ret)
				return ret;
		}
	}
	return 0;
}

int ini_tls_recv(struct ini_queue *q, void *buf, size_t len, size_t *got, int timeout_ms)
{
	for (;;) {
		int ret = SSL_read_ex(q->ssl, buf, len, got);

		if (ret > 0)
			return 0;
		ret = ssl_retry(q, ret, timeout_ms);
		if (ret)
			return ret;
	}
}

const char *ini_queue_tls_cipher(const struct ini_queue *q)
{
	return q->ssl ? SSL_get_cipher_name(q->ssl) : NULL;
}
