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

size_t fuzz_exchange(struct event_base *base, int fd, const uint8_t *data, size_t size,
		     size_t chunk, bool (*idle)(void *arg), void *arg, unsigned limit_ms)
{
	uint64_t end = now_ms() + limit_ms;
	size_t sent = 0, got = 0;
	bool shut = false, eof = false;
	uint8_t buf[65536];
	/* One timer for the whole exchange: what a run allocates, it frees. */
	struct event *tick = evtimer_new(base, nothing, NULL);

	FUZZ_CHECK(tick, "evtimer_new");
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	for (;;) {
		bool progress = false;
		ssize_t n;

		if (!shut && sent < size) {
			n = send(fd, data + sent, BLOX_MIN(size - sent, chunk), MSG_NOSIGNAL);
			if (n > 0) {
				sent += (size_t)n;
				progress = true;
			} else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
				sent = size; /* the server closed already */
			}
		}
		if (!shut && sent == size) {
			shutdown(fd, SHUT_WR);
			shut = true;
		}
		while (!eof) {
			n = recv(fd, buf, sizeof(buf), 0);
			if (n > 0) {
				got += (size_t)n;
				progress = true;
				continue;
			}
			if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
				eof = true;
			break;
		}
		event_base_loop(base, EVLOOP_NONBLOCK);
		if (eof && idle(arg))
			break;
		FUZZ_CHECK(now_ms() < end,
			   "server still busy %u ms after the client's end (sent %zu of %zu, "
			   "closed %d)", limit_ms, sent, size, eof);
		if (!progress) {
			/* Let the server run until it has something to do, 1 ms at most. */
			struct timeval ms = { 0, 1000 };

			evtimer_add(tick, &ms);
			event_base_loop(base, EVLOOP_ONCE);
		}
	}
	event_free(tick);
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &(struct linger){ 1, 0 }, sizeof(struct linger));
	close(fd);
	return got;
}
