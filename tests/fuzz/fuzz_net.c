/* SPDX-License-Identifier: BSD-3-Clause */
/* The client side of the socket-fed targets (fuzz_net.h). */
#include "fuzz_net.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "blox_util.h"
#include "fuzz_util.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void nothing(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

void fuzz_conn_init(struct fuzz_conn *c, struct event_base *base, int fd)
{
	c->base = base;
	c->fd = fd;
	c->eof = false;
	c->got = 0;
	/* One timer per connection: what a run allocates, it frees. */
	c->tick = evtimer_new(base, nothing, NULL);
	FUZZ_CHECK(c->tick, "evtimer_new");
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* Read what the server sent, run its loop once; true if anything came. */
static bool pump(struct fuzz_conn *c, bool progress)
{
	uint8_t buf[65536];

	while (!c->eof) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n > 0) {
			c->got += (size_t)n;
			progress = true;
			continue;
		}
		if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
			c->eof = true;
		break;
	}
	event_base_loop(c->base, EVLOOP_NONBLOCK);
	return progress;
}

/* Nothing happened: let the server run until it has something to do, 1 ms at most. */
static void wait_a_little(struct fuzz_conn *c)
{
	struct timeval ms = { 0, 1000 };

	evtimer_add(c->tick, &ms);
	event_base_loop(c->base, EVLOOP_ONCE);
}

void fuzz_conn_send(struct fuzz_conn *c, const uint8_t *data, size_t size, size_t chunk,
		    bool settle)
{
	size_t sent = 0;

	for (int quiet = 0;;) {
		bool progress = false;

		if (sent < size && !c->eof) {
			ssize_t n = send(c->fd, data + sent, BLOX_MIN(size - sent, chunk),
					 MSG_NOSIGNAL);

			if (n > 0) {
				sent += (size_t)n;
				progress = true;
			} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
				sent = size; /* the server closed already */
			}
		}
		progress = pump(c, progress);
		if (sent < size && !c->eof)
			continue;
		quiet = progress ? 0 : quiet + 1;
		if (!settle || quiet == 3)
			break;
		if (!progress)
			wait_a_little(c);
	}
}

void fuzz_conn_end(struct fuzz_conn *c, bool (*idle)(void *arg), void *arg,
		   unsigned limit_ms)
{
	uint64_t end = now_ms() + limit_ms;

	shutdown(c->fd, SHUT_WR);
	for (;;) {
		bool progress = pump(c, false);

		if (c->eof && idle(arg))
			break;
		FUZZ_CHECK(now_ms() < end,
			   "server still busy %u ms after the client's end (closed %d)",
			   limit_ms, c->eof);
		if (!progress)
			wait_a_little(c);
	}
	event_free(c->tick);
	setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &(struct linger){ 1, 0 },
		   sizeof(struct linger));
	close(c->fd);
}

size_t fuzz_exchange(struct event_base *base, int fd, const uint8_t *data, size_t size,
		     size_t chunk, bool (*idle)(void *arg), void *arg, unsigned limit_ms)
{
	struct fuzz_conn c;

	fuzz_conn_init(&c, base, fd);
	fuzz_conn_send(&c, data, size, chunk, false);
	fuzz_conn_end(&c, idle, arg, limit_ms);
	return c.got;
}
