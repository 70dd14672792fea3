/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin server under load and odd clients: floods, silent clients,
 * streams whose client vanishes or cancels, peer credentials; then the
 * NVMe/TCP side still works and bloxd stops cleanly.
 */
#include "admin_badinput.h"

static unsigned collect(int fd, uint32_t first, unsigned n, uint16_t method)
{
	bool *seen = calloc(n, sizeof(*seen));
	unsigned busy = 0;

	assert_non_null(seen);
	for (unsigned i = 0; i < n; i++) {
		struct answer a;

		recv_answer(fd, &a);
		assert_true(a.h.request_id >= first && a.h.request_id < first + n);
		if (seen[a.h.request_id - first])
			fail_msg("request %u answered twice", a.h.request_id);
		seen[a.h.request_id - first] = true;
		assert_int_equal(a.h.method, method);
		assert_int_equal(a.h.flags, 0);
		if (a.h.status == ADM_S_RESOURCE_EXHAUSTED)
			busy++;
		else if (a.h.status != ADM_S_OK)
			fail_msg("request %u: %s (\"%s\")", a.h.request_id,
				 adm_status_name(a.h.status), a.msg);
		answer_free(&a);
	}
	free(seen);
	return busy;
}

/* 8. Floods. */
void test_flood(void **state)
{
	struct fx_env *e = *state;
	Blox__Admin__StatsRequest sr = BLOX__ADMIN__STATS_REQUEST__INIT;
	const unsigned n = 200;
	uint8_t *buf = malloc(n * 64);
	size_t len = 0;
	unsigned busy;
	int fd;

	assert_non_null(buf);

	/* 200 GetVersion pipelined, read afterwards: all answered. */
	fd = adm_connect(e);
	for (unsigned i = 0; i < n; i++)
		len += build_req(buf + len, n * 64 - len, midx("GetVersion"),
				 10000 + i, 0, NULL);
	assert_int_equal(send_all(fd, buf, len), 0);
	busy = collect(fd, 10000, n, midx("GetVersion"));
	print_message("flood: %u of %u RESOURCE_EXHAUSTED\n", busy, n);
	assert_true(busy <= n - MAX_INFLIGHT);
	expect_quiet(fd, 100);
	close(fd);
	check_admin(e);

	/* 70 streams that never end: 64 start (a first answer with MORE),
	 * the 6 over the limit get RESOURCE_EXHAUSTED; then the client
	 * vanishes with 64 streams running. */
	fd = adm_connect(e);
	sr.interval_ms = 3600000;
	len = 0;
	for (unsigned i = 0; i < 70; i++)
		len += build_req(buf + len, n * 64 - len, midx("WatchStats"),
				 20000 + i, 0, &sr.base);
	assert_int_equal(send_all(fd, buf, len), 0);
	{
		unsigned more = 0, refused = 0;

		for (unsigned i = 0; i < 70; i++) {
			struct answer a;

			recv_answer(fd, &a);
			assert_int_equal(a.h.request_id, 20000 + i); /* in order */
			assert_int_equal(a.h.method, midx("WatchStats"));
			if (a.h.status == ADM_S_OK && a.h.flags == ADM_F_MORE)
				more++;
			else if (a.h.status == ADM_S_RESOURCE_EXHAUSTED && !a.h.flags)
				refused++;
			else
				fail_msg("stream %u: %s flags 0x%x (\"%s\")", i,
					 adm_status_name(a.h.status), a.h.flags, a.msg);
			answer_free(&a);
		}
		assert_int_equal(more, MAX_INFLIGHT);
		assert_int_equal(refused, 70 - MAX_INFLIGHT);
	}
	/* Past the idle timeout: the streams keep the connection open. */
	expect_quiet(fd, IDLE_MS * 2);
	/* One more GetVersion still over the limit; cancel one, then room. */
	send_version_req(fd, 20100);
	expect_status(fd, 20100, midx("GetVersion"), ADM_S_RESOURCE_EXHAUSTED);
	send_req(fd, midx("WatchStats"), 20000, ADM_F_CANCEL, NULL);
	expect_status(fd, 20000, midx("WatchStats"), ADM_S_CANCELLED);
	send_version_req(fd, 20101);
	expect_version(fd, 20101);
	close(fd);
	check_admin(e);
	free(buf);

	/* Thousands of GetStatus, answers not read for a while, closed. */
	{
		const unsigned many = 60000;
		uint8_t *fl = malloc((size_t)many * ADM_HDR_LEN);
		size_t off = 0, total = (size_t)many * ADM_HDR_LEN;

		assert_non_null(fl);
		for (unsigned i = 0; i < many; i++)
			build_req(fl + (size_t)i * ADM_HDR_LEN, ADM_HDR_LEN,
				  midx("GetStatus"), i, 0, NULL);

		/* (a) Never read, close: as much as goes in within 1 s of
		 * no progress. */
		fd = adm_connect(e);
		while (off < total && wait_fd(fd, POLLOUT, 1000) == 1) {
			ssize_t s = send(fd, fl + off, total - off,
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (s < 0 && errno != EAGAIN && errno != EINTR)
				fail_msg("send: %s", strerror(errno));
			if (s > 0)
				off += (size_t)s;
		}
		print_message("flood: %zu GetStatus sent unread\n", off / ADM_HDR_LEN);
		assert_true(off / ADM_HDR_LEN >= 1000);
		fx_sleep_ms(300);
		close(fd);
		check_admin(e);

		/* (b) Same, then not read for twice the idle timeout, then
		 * read: every request answered, in order. The answers owed
		 * keep the connection open (the client is not idle, the
		 * server is waiting for it); the server stops reading a
		 * client that does not read, and resumes once it does. */
		fd = adm_connect(e);
		off = 0;
		while (off < total && wait_fd(fd, POLLOUT, 1000) == 1) {
			ssize_t s = send(fd, fl + off, total - off,
					 MSG_NOSIGNAL | MSG_DONTWAIT);

			if (s < 0 && errno != EAGAIN && errno != EINTR)
				fail_msg("send: %s", strerror(errno));
			if (s > 0)
				off += (size_t)s;
		}
		print_message("flood: %zu GetStatus sent before reading\n",
			      off / ADM_HDR_LEN);
		fx_sleep_ms(IDLE_MS * 2);
		{
			const size_t cap = 1u << 20;
			unsigned next = 0;
			uint8_t *rb = malloc(cap);
			size_t have = 0, pos = 0;
			int64_t end = fx_now_ms() + 60000;

			assert_non_null(rb);
			/* Read answers and send the rest, both by poll. */
			while (next < many && fx_now_ms() < end) {
				struct pollfd p = { .fd = fd, .events = POLLIN };
				ssize_t r;

				if (off < total)
					p.events |= POLLOUT;
				if (poll(&p, 1, IO_TIMEOUT_MS) <= 0)
					fail_msg("flood: stuck at answer %u", next);
				if ((p.revents & POLLOUT) && off < total) {
					ssize_t s = send(fd, fl + off, total - off,
							 MSG_NOSIGNAL | MSG_DONTWAIT);

					if (s > 0)
						off += (size_t)s;
				}
				if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
					continue;
				/* Keep the unparsed tail at the start. */
				memmove(rb, rb + pos, have - pos);
				have -= pos;
				pos = 0;
				r = recv(fd, rb + have, cap - have, MSG_DONTWAIT);
				if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
					fail_msg("flood: connection closed after %u of %u "
						 "answers (%zu requests sent)", next, many,
						 off / ADM_HDR_LEN);
				if (r < 0)
					continue;
				have += (size_t)r;
				/* Whole frames. */
				for (;;) {
					struct adm_hdr ah;
					size_t flen;

					if (have - pos < ADM_HDR_LEN)
						break;
					assert_int_equal(adm_hdr_decode(rb + pos, have - pos, &ah),
							 ADM_OK);
					flen = adm_frame_len(&ah);
					assert_true(flen < cap);
					if (have - pos < flen)
						break;
					if (ah.status != ADM_S_OK)
						fail_msg("flood: answer %u: %s", ah.request_id,
							 adm_status_name(ah.status));
					assert_int_equal(ah.request_id, next);
					assert_int_equal(ah.method, midx("GetStatus"));
					next++;
					pos += flen;
				}
			}
			assert_int_equal(next, many);
			assert_int_equal(have - pos, 0);
			free(rb);
		}
		/* All answered and nothing more: now it is idle. */
		expect_closed_ms(fd, 5000);
		close(fd);
		free(fl);
	}
	check_admin(e);
}

/* 9. A silent client is closed after about the idle timeout. */
void test_silent_client(void **state)
{
	struct fx_env *e = *state;
	int fd = adm_connect(e);
	int64_t ms = expect_closed_ms(fd, 5000);

	print_message("silent client closed after %lld ms\n", (long long)ms);
	assert_true(ms >= IDLE_MS / 2);
	close(fd);

	/* Idle again after a request: the timer restarts, then closes. */
	fd = adm_connect(e);
	send_version_req(fd, 901);
	expect_version(fd, 901);
	ms = expect_closed_ms(fd, 5000);
	assert_true(ms >= IDLE_MS / 2);
	close(fd);
	check_admin(e);
}

/* The next answer is a WatchStats answer for @id with @flags, status OK,
 * and a payload that decodes as StatsReply. */
static void expect_watch(int fd, uint32_t id, uint8_t flags)
{
	Blox__Admin__StatsReply *s;
	struct answer a;

	recv_answer(fd, &a);
	if (a.h.status != ADM_S_OK)
		fail_msg("WatchStats: %s (\"%s\")", adm_status_name(a.h.status), a.msg);
	assert_int_equal(a.h.request_id, id);
	assert_int_equal(a.h.method, midx("WatchStats"));
	assert_int_equal(a.h.flags, flags);
	s = blox__admin__stats_reply__unpack(NULL, a.h.payload_len, a.payload);
	assert_non_null(s);
	assert_true(s->n_namespaces >= 1);
	blox__admin__stats_reply__free_unpacked(s, NULL);
	answer_free(&a);
}

/* 10. Streams: the client vanishes mid-stream; CANCEL; count. */
void test_streams(void **state)
{
	struct fx_env *e = *state;
	Blox__Admin__StatsRequest sr = BLOX__ADMIN__STATS_REQUEST__INIT;
	unsigned extra = 0;
	int fd;

	sr.interval_ms = 100;

	/* Vanishes after 2 answers. */
	fd = adm_connect(e);
	send_req(fd, midx("WatchStats"), 1100, 0, &sr.base);
	expect_watch(fd, 1100, ADM_F_MORE);
	expect_watch(fd, 1100, ADM_F_MORE);
	close(fd);
	fx_sleep_ms(300); /* a few more timer ticks without a client */
	check_admin(e);

	/* CANCEL: the last answer is CANCELLED without MORE. */
	fd = adm_connect(e);
	send_req(fd, midx("WatchStats"), 1200, 0, &sr.base);
	expect_watch(fd, 1200, ADM_F_MORE);
	send_req(fd, midx("WatchStats"), 1200, ADM_F_CANCEL, NULL);
	for (;;) {
		struct answer a;

		recv_answer(fd, &a);
		assert_int_equal(a.h.request_id, 1200);
		assert_int_equal(a.h.method, midx("WatchStats"));
		if (a.h.flags & ADM_F_MORE) {
			/* A sample sent before the CANCEL arrived. */
			assert_int_equal(a.h.status, ADM_S_OK);
			assert_true(++extra < 3);
			answer_free(&a);
			continue;
		}
		if (a.h.status != ADM_S_CANCELLED)
			fail_msg("cancelled stream ended with %s (\"%s\")",
				 adm_status_name(a.h.status), a.msg);
		assert_int_equal(a.h.flags, 0);
		assert_int_equal(a.h.payload_len, 0);
		answer_free(&a);
		break;
	}
	expect_quiet(fd, 300); /* nothing after the last answer */
	/* A second CANCEL of the finished stream: ignored, no answer. */
	send_req(fd, midx("WatchStats"), 1200, ADM_F_CANCEL, NULL);
	/* CANCEL of an id never used: ignored. */
	send_req(fd, midx("WatchStats"), 4242, ADM_F_CANCEL, NULL);
	send_version_req(fd, 1201);
	expect_version(fd, 1201);
	close(fd);
	check_admin(e);

	/* count 3: two answers with MORE, the last one OK without. */
	fd = adm_connect(e);
	sr.count = 3;
	send_req(fd, midx("WatchStats"), 1300, 0, &sr.base);
	expect_watch(fd, 1300, ADM_F_MORE);
	expect_watch(fd, 1300, ADM_F_MORE);
	expect_watch(fd, 1300, 0);
	expect_quiet(fd, 100); /* the idle timeout runs since the request */
	send_version_req(fd, 1301);
	expect_version(fd, 1301);
	close(fd);

	/* count 1: one answer, the last. */
	fd = adm_connect(e);
	sr.count = 1;
	send_req(fd, midx("WatchStats"), 1400, 0, &sr.base);
	expect_watch(fd, 1400, 0);
	expect_quiet(fd, 150);
	close(fd);

	/* A stream slower than the idle timeout keeps the connection open;
	 * once it ends, the idle timeout applies again. */
	fd = adm_connect(e);
	sr.count = 3;
	sr.interval_ms = IDLE_MS * 2;
	send_req(fd, midx("WatchStats"), 1500, 0, &sr.base);
	expect_watch(fd, 1500, ADM_F_MORE);
	expect_watch(fd, 1500, ADM_F_MORE);
	expect_watch(fd, 1500, 0);
	expect_closed_ms(fd, 5000);
	close(fd);

	/* A bad interval: INVALID_ARGUMENT, no stream. */
	fd = adm_connect(e);
	sr.count = 0;
	sr.interval_ms = 1;
	send_req(fd, midx("WatchStats"), 1600, 0, &sr.base);
	expect_status(fd, 1600, midx("WatchStats"), ADM_S_INVALID_ARGUMENT);
	close(fd);
	check_admin(e);
}

/* Child: connect as nobody and send GetVersion. Exit codes: 0 the
 * expected PERMISSION_DENIED then close; 10+ what went wrong. */
static int nobody_child(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	uint8_t buf[ADM_HDR_LEN];
	struct adm_hdr h = { .version = ADM_VERSION, .request_id = 0x1234,
			     .method = 0 };
	int fd, rc;

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return 10;
	if (getuid() != NOBODY || geteuid() != NOBODY)
		return 11;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 12;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)))
		return 13;
	adm_hdr_encode(&h, buf);
	if (send_all(fd, buf, sizeof(buf)))
		return 14;
	rc = recv_exact(fd, buf, sizeof(buf), IO_TIMEOUT_MS);
	if (rc)
		return 15;
	if (adm_hdr_decode(buf, sizeof(buf), &h) != ADM_OK)
		return 16;
	if (h.request_id != 0x1234)
		return 17;
	if (h.status != ADM_S_PERMISSION_DENIED)
		return 20 + h.status;
	if (h.payload_len)
		return 18;
	/* The message, then the close. */
	{
		char msg[ADM_MAX_MSG];

		if (h.msg_len > sizeof(msg) ||
		    recv_exact(fd, msg, h.msg_len, IO_TIMEOUT_MS))
			return 19;
		if (recv_exact(fd, msg, 1, IO_TIMEOUT_MS) != 1)
			return 40;
	}
	close(fd);
	return 0;
}

/* 11. Peer credentials: a user outside the socket's group is refused. */
void test_permission(void **state)
{
	struct fx_env *e = *state;
	pid_t pid;
	int st = 0;

	if (geteuid() != 0) {
		print_message("not root: permission case skipped\n");
		skip();
	}
	assert_int_equal(chmod(e->d.admin_sock, 0666), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(nobody_child(e->d.admin_sock));
	st = fx_wait_child(pid, 15000);
	chmod(e->d.admin_sock, 0660);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("nobody's connection: child %s %d (see nobody_child)",
			 WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	check_admin(e);
}

/* 12. The NVMe/TCP side still works and bloxd stops cleanly. */
void test_daemon_stops_cleanly(void **state)
{
	struct fx_env *e = *state;

	check_admin(e);
	assert_int_equal(fx_check_daemon(&e->d, SUBNQN, NS_BLOCKS, &e->seed), 0);
	fx_test_daemon_stops_cleanly(state);
}
