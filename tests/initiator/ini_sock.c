/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Socket plumbing of the initiator: connect with a timeout, send all,
 * buffered receive with a timeout, and the raw mode the bad-input tests
 * use (send any bytes, read the next PDU as it is, notice a close).
 */
#include "ini_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int ini_timeout(const struct ini_queue *q)
{
	return q->opts.timeout_ms > 0 ? q->opts.timeout_ms
				      : INI_DEFAULT_TIMEOUT_MS;
}

/* Wait for @events on @fd; 0 when ready, -ETIMEDOUT or -errno. */
static int wait_fd(int fd, short events, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t end = now_ms() + timeout_ms;

	for (;;) {
		int left = (int)(end - now_ms());
		if (left < 0)
			left = 0;
		int n = poll(&p, 1, left);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

static int parse_addr(const char *addr, uint16_t port,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
		return 0;
	}
	return -EINVAL;
}

int ini_sock_connect(const char *addr, uint16_t port, int timeout_ms)
{
	struct sockaddr_storage ss;
	socklen_t slen;
	int fd, rc, one = 1, bufsz = 4 << 20;

	rc = parse_addr(addr, port, &ss, &slen);
	if (rc)
		return rc;
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		    0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Large buffers make send/receive deadlocks at high depth unlikely. */
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));

	if (connect(fd, (struct sockaddr *)&ss, slen) < 0) {
		if (errno != EINPROGRESS) {
			rc = -errno;
			goto close_fd;
		}
		rc = wait_fd(fd, POLLOUT, timeout_ms);
		if (rc)
			goto close_fd;
		int err = 0;
		socklen_t elen = sizeof(err);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
			err = errno;
		if (err) {
			rc = -err;
			goto close_fd;
		}
	}
	return fd;

close_fd:
	close(fd);
	return rc;
}

int ini_sock_send(struct ini_queue *q, const struct iovec *iov, int iovcnt)
{
	struct iovec v[16];
	int n = iovcnt, i = 0;

	if (q->fd < 0)
		return -ENOTCONN;
	if (iovcnt > (int)(sizeof(v) / sizeof(v[0])))
		return -EINVAL;
	if (q->ssl)
		return ini_tls_send(q, iov, iovcnt);
	memcpy(v, iov, sizeof(*iov) * (size_t)iovcnt);
	while (i < n) {
		struct msghdr mh = { .msg_iov = &v[i],
				     .msg_iovlen = (size_t)(n - i) };
		ssize_t w = sendmsg(q->fd, &mh, MSG_NOSIGNAL);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				int rc = wait_fd(q->fd, POLLOUT, ini_timeout(q));
				if (rc)
					return rc;
				continue;
			}
			return errno == EPIPE ? -ECONNRESET : -errno;
		}
		/* Skip what went out. */
		size_t left = (size_t)w;
		while (i < n && left >= v[i].iov_len) {
			left -= v[i].iov_len;
			i++;
		}
		if (i < n) {
			v[i].iov_base = (uint8_t *)v[i].iov_base + left;
			v[i].iov_len -= left;
		}
	}
	return 0;
}

/* Read what is available into the buffer, waiting up to @timeout_ms. */
static int fill(struct ini_queue *q, int timeout_ms)
{
	if (q->rx_head == q->rx_tail)
		q->rx_head = q->rx_tail = 0;
	if (q->ssl) {
		size_t got;
		int rc = ini_tls_recv(q, q->rxbuf + q->rx_tail, INI_RXBUF_SIZE - q->rx_tail, &got,
				      timeout_ms);

		if (!rc)
			q->rx_tail += got;
		return rc;
	}
	int64_t spin_end = 0; /* busy_poll: when to give up */

	for (;;) {
		ssize_t r = recv(q->fd, q->rxbuf + q->rx_tail,
				 INI_RXBUF_SIZE - q->rx_tail, 0);
		if (r > 0) {
			q->rx_tail += (size_t)r;
			return 0;
		}
		if (r == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK) {
			int rc;

			if (q->opts.busy_poll) {
				if (!spin_end)
					spin_end = now_ms() + timeout_ms;
				else if (now_ms() > spin_end)
					return -ETIMEDOUT;
				continue;
			}
			rc = wait_fd(q->fd, POLLIN, timeout_ms);
			if (rc)
				return rc;
			continue;
		}
		return errno == ECONNRESET ? -ECONNRESET : -errno;
	}
}

int ini_sock_recv(struct ini_queue *q, void *dst, size_t len, int timeout_ms)
{
	uint8_t *d = dst;

	if (q->fd < 0)
		return -ENOTCONN;
	while (len > 0) {
		if (q->rx_head == q->rx_tail) {
			int rc = fill(q, timeout_ms);
			if (rc)
				return rc;
		}
		size_t n = q->rx_tail - q->rx_head;
		if (n > len)
			n = len;
		if (d) {
			memcpy(d, q->rxbuf + q->rx_head, n);
			d += n;
		}
		q->rx_head += n;
		len -= n;
	}
	return 0;
}

int ini_raw_send(struct ini_queue *q, const void *buf, size_t len)
{
	struct iovec v = { .iov_base = (void *)buf, .iov_len = len };
	return ini_sock_send(q, &v, 1);
}

int ini_raw_recv(struct ini_queue *q, struct ini_raw_pdu *pdu, int timeout_ms)
{
	struct nvme_tcp_hdr *h = (struct nvme_tcp_hdr *)pdu->hdr;
	uint32_t hl;
	int rc;

	memset(pdu, 0, sizeof(*pdu));
	if (timeout_ms < 0)
		timeout_ms = ini_timeout(q);
	rc = ini_sock_recv(q, pdu->hdr, sizeof(*h), timeout_ms);
	if (rc)
		return rc;
	hl = h->hlen;
	if ((h->flags & NVME_TCP_F_HDGST) && h->type != NVME_TCP_C2H_TERM &&
	    h->type != NVME_TCP_ICRESP)
		hl += NVME_TCP_DIGEST_LEN;
	if (hl < sizeof(*h) || hl > sizeof(pdu->hdr) || h->plen < hl ||
	    h->plen > INI_MAX_PDU)
		return -EPROTO;
	rc = ini_sock_recv(q, pdu->hdr + sizeof(*h), hl - sizeof(*h),
			   timeout_ms);
	if (rc)
		return rc;
	pdu->hdr_len = hl;
	pdu->data_len = h->plen - hl;
	if (pdu->data_len == 0)
		return 0;
	pdu->data = malloc(pdu->data_len);
	if (!pdu->data)
		return -ENOMEM;
	rc = ini_sock_recv(q, pdu->data, pdu->data_len, timeout_ms);
	if (rc) {
		ini_raw_pdu_free(pdu);
		return rc;
	}
	return 0;
}

void ini_raw_pdu_free(struct ini_raw_pdu *pdu)
{
	free(pdu->data);
	pdu->data = NULL;
	pdu->data_len = 0;
}

int ini_wait_closed(struct ini_queue *q, int timeout_ms)
{
	int64_t end = now_ms() + timeout_ms;

	if (q->fd < 0)
		return 0;
	for (;;) {
		int left = (int)(end - now_ms());
		if (left <= 0)
			return -ETIMEDOUT;
		q->rx_head = q->rx_tail = 0;
		int rc = fill(q, left);
		if (rc == -ETIMEDOUT)
			return rc;
		if (rc)
			return 0; /* EOF, reset or another error: gone */
	}
}

void ini_raw_shutdown(struct ini_queue *q)
{
	if (q->fd >= 0)
		shutdown(q->fd, SHUT_RDWR);
}
