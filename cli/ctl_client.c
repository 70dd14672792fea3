/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl's connection to bloxd: the unix socket, or TCP with TLS (our
 * client certificate; bloxd's certificate checked against the CA and the
 * host name or address we connected to), and the frames of one request:
 * send it, read its answer (or a stream of them), print.
 */
#include "ctl.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Set by SIGINT during stats --watch; the only state a handler may touch. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

static int tls_fail(const struct ctl *c, const char *what)
{
	unsigned long e = ERR_get_error();
	long v = c->ssl ? SSL_get_verify_result(c->ssl) : X509_V_OK;

	/* A refused certificate says why (expired, wrong name, ...). */
	if (v != X509_V_OK)
		fprintf(stderr, "bloxctl: TLS %s: bloxd's certificate: %s\n", what,
			X509_verify_cert_error_string(v));
	else
		fprintf(stderr, "bloxctl: TLS %s: %s\n", what,
			e ? ERR_reason_error_string(e) : "failed");
	return ADM_S_UNAVAILABLE;
}

/* TCP to HOST:PORT; c->fd, or an exit code. */
static int tcp_connect(struct ctl *c, const char *host, uint32_t port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL, *ai;
	char ports[8];

	snprintf(ports, sizeof(ports), "%u", port);
	if (getaddrinfo(host, ports, &hints, &res)) {
		fprintf(stderr, "bloxctl: cannot resolve %s\n", host);
		return ADM_S_UNAVAILABLE;
	}
	for (ai = res; ai; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, 0);
		if (c->fd >= 0 && connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		if (c->fd >= 0)
			close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(res);
	if (c->fd < 0) {
		fprintf(stderr, "bloxctl: cannot connect to %s: %s\n", c->connect,
			strerror(errno));
		return ADM_S_UNAVAILABLE;
	}
	return 0;
}

/*
 * Whom bloxd's certificate must name: the host of --connect, an IP
 * address as an IP SAN, a name as a DNS SAN (or CN). Without this any
 * certificate of the CA would do, whatever server presents it.
 */
static int tls_expect_peer(struct ctl *c, const char *host)
{
	unsigned char ip[sizeof(struct in6_addr)];

	if (inet_pton(AF_INET, host, ip) == 1 || inet_pton(AF_INET6, host, ip) == 1)
		return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl), host) == 1
			       ? 0
			       : tls_fail(c, "peer address");
	if (SSL_set1_host(c->ssl, host) != 1 ||
	    SSL_set_tlsext_host_name(c->ssl, host) != 1)
		return tls_fail(c, "peer name");
	return 0;
}

/* TCP to c->connect, then a TLS handshake with our certificate. */
static int tls_connect(struct ctl *c)
{
	char host[256];
	uint32_t port;
	int rc;

	if (!c->cert || !c->key || !c->ca)
		return ctl_usage_err("--connect needs --cert, --key and --ca");
	if (cli_parse_addr(c->connect, host, sizeof(host), &port))
		return ctl_usage_err("--connect: HOST:PORT or [V6ADDR]:PORT");
	if ((rc = tcp_connect(c, host, port)))
		return rc;
	c->ssl_ctx = SSL_CTX_new(TLS_client_method());
	if (!c->ssl_ctx)
		return tls_fail(c, "context");
	SSL_CTX_set_min_proto_version(c->ssl_ctx, TLS1_2_VERSION);
	if (SSL_CTX_use_certificate_chain_file(c->ssl_ctx, c->cert) != 1)
		return tls_fail(c, "certificate");
	if (SSL_CTX_use_PrivateKey_file(c->ssl_ctx, c->key, SSL_FILETYPE_PEM) != 1)
		return tls_fail(c, "key");
	if (SSL_CTX_load_verify_locations(c->ssl_ctx, c->ca, NULL) != 1)
		return tls_fail(c, "CA");
	SSL_CTX_set_verify(c->ssl_ctx, SSL_VERIFY_PEER, NULL);
	c->ssl = SSL_new(c->ssl_ctx);
	if (!c->ssl || !SSL_set_fd(c->ssl, c->fd))
		return tls_fail(c, "session");
	if ((rc = tls_expect_peer(c, host)))
		return rc;
	if (SSL_connect(c->ssl) != 1)
		return tls_fail(c, "handshake");
	return 0;
}

static int ctl_connect(struct ctl *c)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	if (c->connect)
		return tls_connect(c);
	if (strlen(c->sock) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "bloxctl: socket path too long\n");
		return ADM_S_UNAVAILABLE;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", c->sock);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sun, sizeof(sun))) {
		int e = errno;

		/* The socket is there and bloxd may well run: this user may not use it. */
		if (e == EACCES || e == EPERM) {
			fprintf(stderr,
				"bloxctl: cannot connect to %s: %s (root, bloxd's user or "
				"the socket's group only: see bloxd --admin-group)\n",
				c->sock, strerror(e));
			return ADM_S_PERMISSION_DENIED;
		}
		fprintf(stderr, "bloxctl: cannot connect to %s: %s (is bloxd running? see -s)\n",
			c->sock, strerror(e));
		return ADM_S_UNAVAILABLE;
	}
	return 0;
}

void ctl_close(struct ctl *c)
{
	if (c->ssl) {
		SSL_shutdown(c->ssl);
		SSL_free(c->ssl);
		c->ssl = NULL;
	}
	if (c->ssl_ctx)
		SSL_CTX_free(c->ssl_ctx);
	c->ssl_ctx = NULL;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

static ssize_t ctl_write(struct ctl *c, const uint8_t *p, size_t n)
{
	return c->ssl ? SSL_write(c->ssl, p, (int)n) : write(c->fd, p, n);
}

static ssize_t ctl_read(struct ctl *c, uint8_t *p, size_t n)
{
	return c->ssl ? SSL_read(c->ssl, p, (int)n) : read(c->fd, p, n);
}

static int write_all(struct ctl *c, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t k = ctl_write(c, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int send_req(struct ctl *c, unsigned method, uint8_t flags, uint32_t id,
		    const ProtobufCMessage *in)
{
	size_t plen = in ? protobuf_c_message_get_packed_size(in) : 0;
	struct adm_hdr h = { .version = ADM_VERSION, .flags = flags,
			     .method = (uint16_t)method, .request_id = id,
			     .payload_len = (uint32_t)plen };
	uint8_t *f = malloc(ADM_HDR_LEN + plen);
	int rc;

	if (!f)
		return -ENOMEM;
	adm_hdr_encode(&h, f);
	if (plen)
		protobuf_c_message_pack(in, f + ADM_HDR_LEN);
	rc = write_all(c, f, ADM_HDR_LEN + plen);
	free(f);
	return rc;
}

/* Read one whole frame into c->buf. 0, or -ETIMEDOUT / -EPIPE / -EPROTO / -EINTR. */
static int read_frame(struct ctl *c, struct adm_hdr *h, int timeout_ms)
{
	size_t have = 0, need = ADM_HDR_LEN;

	while (have < need) {
		struct pollfd p = { .fd = c->fd, .events = POLLIN };
		int r = c->ssl && SSL_pending(c->ssl) ? 1 : poll(&p, 1, timeout_ms);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			return -EINTR;
		if (r == 0)
			return -ETIMEDOUT;
		n = ctl_read(c, c->buf + have, need - have);
		if (n < 0 && errno == EINTR)
			return -EINTR;
		if (n <= 0)
			return -EPIPE;
		have += (size_t)n;
		if (have == ADM_HDR_LEN && need == ADM_HDR_LEN) {
			if (adm_hdr_decode(c->buf, have, h) != ADM_OK)
				return -EPROTO;
			need = adm_frame_len(h);
		}
	}
	return 0;
}

/* Print the failure of an answer; returns its status as the exit code. */
static int answer_error(const struct ctl *c, const struct adm_hdr *h)
{
	fprintf(stderr, "bloxctl: %.*s\n", (int)h->msg_len, (const char *)c->buf + ADM_HDR_LEN);
	return h->status;
}

static const ProtobufCMethodDescriptor *method(const char *name, unsigned *idx)
{
	const ProtobufCMethodDescriptor *m = protobuf_c_service_descriptor_get_method_by_name(
		&blox__admin__blox_admin__descriptor, name);

	*idx = (unsigned)(m - blox__admin__blox_admin__descriptor.methods);
	return m;
}

/* The answer in c->buf as its message, or NULL. */
static ProtobufCMessage *answer_msg(const struct ctl *c, const struct adm_hdr *h,
				    const ProtobufCMethodDescriptor *md)
{
	return protobuf_c_message_unpack(md->output, NULL, h->payload_len,
					 c->buf + ADM_HDR_LEN + h->msg_len);
}

int ctl_call(struct ctl *c, const char *name, const ProtobufCMessage *in,
	     ctl_print_fn human)
{
	unsigned idx;
	const ProtobufCMethodDescriptor *md = method(name, &idx);
	struct adm_hdr h;
	ProtobufCMessage *out;
	int rc;

	if (!md)
		return fprintf(stderr, "bloxctl: no method %s\n", name), ADM_S_INTERNAL;
	if ((rc = ctl_connect(c)))
		return rc;
	if (send_req(c, idx, 0, ++c->next_id, in))
		return fprintf(stderr, "bloxctl: send: %s\n", strerror(errno)), ADM_S_UNAVAILABLE;
	rc = read_frame(c, &h, c->timeout_ms);
	if (rc)
		return fprintf(stderr, "bloxctl: no answer from bloxd: %s\n", strerror(-rc)),
		       ADM_S_UNAVAILABLE;
	if (h.status)
		return answer_error(c, &h);
	out = answer_msg(c, &h, md);
	if (!out)
		return fprintf(stderr, "bloxctl: answer does not decode\n"), ADM_S_INTERNAL;
	ctl_emit(c, out, human, false);
	protobuf_c_message_free_unpacked(out, NULL);
	return 0;
}

int ctl_watch(struct ctl *c, Blox__Admin__StatsRequest *in)
{
	return ctl_stream(c, "WatchStats", &in->base, in->interval_ms, ctl_print_stats);
}

int ctl_stream(struct ctl *c, const char *name, const ProtobufCMessage *in,
	       uint32_t interval_ms, ctl_print_fn human)
{
	unsigned idx;
	const ProtobufCMethodDescriptor *md = method(name, &idx);
	bool tty = isatty(STDOUT_FILENO) && !c->json;
	uint32_t id;
	int rc;

	signal(SIGINT, on_sigint);
	if ((rc = ctl_connect(c)))
		return rc;
	id = ++c->next_id;
	if (send_req(c, idx, 0, id, in))
		return ADM_S_UNAVAILABLE;
	for (bool cancel_sent = false;;) {
		struct adm_hdr h;
		ProtobufCMessage *out;
		int wait = (int)(interval_ms ? interval_ms : 1000) + c->timeout_ms;

		if (interrupted && !cancel_sent) {
			if (send_req(c, idx, ADM_F_CANCEL, id, NULL))
				return ADM_S_UNAVAILABLE;
			cancel_sent = true;
		}
		rc = read_frame(c, &h, wait);
		if (rc == -EINTR)
			continue;
		if (rc)
			return fprintf(stderr, "bloxctl: stream ended: %s\n", strerror(-rc)),
			       ADM_S_UNAVAILABLE;
		if (h.status == ADM_S_CANCELLED && cancel_sent)
			return 0;
		if (h.status)
			return answer_error(c, &h);
		out = answer_msg(c, &h, md);
		if (!out)
			return ADM_S_INTERNAL;
		if (tty)
			fputs("\033[H\033[2J", stdout);
		ctl_emit(c, out, human, true);
		fflush(stdout);
		protobuf_c_message_free_unpacked(out, NULL);
		if (!(h.flags & ADM_F_MORE))
			return 0;
	}
}
