/*
 * Integration tests of bloxd's admin API server (daemon/adm_server.c)
 * against bad input, with frames built by hand on a raw unix socket:
 * truncated frames, oversized and malformed headers, unknown methods,
 * payloads that do not decode, requests carrying a status or a message,
 * floods of pipelined requests, clients that never read, silent clients,
 * clients that vanish mid-stream, stream cancellation and the peer
 * credential check. Each case checks the exact answer (status, echoed
 * request id and method) or that the server closes the connection, then
 * that bloxd still answers GetVersion on a new connection; at the end a
 * controller on the NVMe/TCP side must still do I/O and bloxd must stop
 * cleanly (no leaks).
 *
 * bloxd runs with --admin-idle-ms 500. Every read is bounded by poll().
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adm_frame.h"
#include "blox_admin.pb-c.h"
#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:admbad"
#define NS_BLOCKS (16u << 20 >> 12)
#define IDLE_MS 500
#define IO_TIMEOUT_MS 5000
#define MAX_INFLIGHT 64 /* ADM_MAX_INFLIGHT in daemon/adm_internal.h */
#define NOBODY 65534

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096} ] } ]";

static const ProtobufCServiceDescriptor *svc(void)
{
	return &blox__admin__blox_admin__descriptor;
}

/* The method index of rpc @name (its position in service BloxAdmin). */
static uint16_t midx(const char *name)
{
	for (unsigned i = 0; i < svc()->n_methods; i++)
		if (!strcmp(svc()->methods[i].name, name))
			return (uint16_t)i;
	fail_msg("no method %s in BloxAdmin", name);
	return 0;
}

static int group_setup(void **state)
{
	static const char *const extra[] = { "--admin-idle-ms", "500", NULL };
	static const struct fx_group g = { .who = "test_admin_badinput",
					   .subsystems = subsystems,
					   .extra_args = extra };

	return fx_group_setup(state, &g);
}

/* ---- Raw socket helpers ---- */

static int adm_connect(const struct fx_env *e)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", e->d.admin_sock);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)))
		fail_msg("connect %s: %s", e->d.admin_sock, strerror(errno));
	return fd;
}

/* Wait up to @ms for @events on @fd: 1 ready, 0 timeout, -errno. */
static int wait_fd(int fd, short events, int ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int64_t end = fx_now_ms() + ms;

	for (;;) {
		int64_t left = end - fx_now_ms();
		int rc = poll(&p, 1, left > 0 ? (int)left : 0);

		if (rc > 0)
			return 1;
		if (rc == 0)
			return 0;
		if (errno != EINTR)
			return -errno;
	}
}

/* Send all of @buf, each wait bounded by IO_TIMEOUT_MS. 0 or -errno. */
static int send_all(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n;
		int rc = wait_fd(fd, POLLOUT, IO_TIMEOUT_MS);

		if (rc <= 0)
			return rc ? rc : -ETIMEDOUT;
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read exactly @len bytes, each wait bounded by @ms. 0; 1 when the peer
 * closed first (EOF, or ECONNRESET: a unix socket closed while it still
 * held data we sent); -ETIMEDOUT; -errno.
 */
static int recv_exact(int fd, void *buf, size_t len, int ms)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n;
		int rc = wait_fd(fd, POLLIN, ms);

		if (rc <= 0)
			return rc ? rc : -ETIMEDOUT;
		n = recv(fd, p, len, MSG_DONTWAIT);
		if (n == 0)
			return 1;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			if (errno == ECONNRESET)
				return 1;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Frame a request: header (with @h's fields), @msg, @payload. */
static size_t build(uint8_t *out, size_t cap, const struct adm_hdr *h,
		    const void *msg, const void *payload)
{
	size_t len = ADM_HDR_LEN + h->msg_len + h->payload_len;

	assert_true(len <= cap);
	adm_hdr_encode(h, out);
	if (h->msg_len)
		memcpy(out + ADM_HDR_LEN, msg, h->msg_len);
	if (h->payload_len)
		memcpy(out + ADM_HDR_LEN + h->msg_len, payload, h->payload_len);
	return len;
}

/* A well-formed request of @method with message @m (NULL: no payload). */
static size_t build_req(uint8_t *out, size_t cap, uint16_t method,
			uint32_t id, uint8_t flags, const ProtobufCMessage *m)
{
	struct adm_hdr h = { .version = ADM_VERSION, .flags = flags,
			     .method = method, .request_id = id };
	size_t plen = m ? protobuf_c_message_get_packed_size(m) : 0;

	assert_true(ADM_HDR_LEN + plen <= cap);
	h.payload_len = (uint32_t)plen;
	adm_hdr_encode(&h, out);
	if (plen)
		protobuf_c_message_pack(m, out + ADM_HDR_LEN);
	return ADM_HDR_LEN + plen;
}

static void send_req(int fd, uint16_t method, uint32_t id, uint8_t flags,
		     const ProtobufCMessage *m)
{
	uint8_t buf[4096];
	size_t n = build_req(buf, sizeof(buf), method, id, flags, m);

	assert_int_equal(send_all(fd, buf, n), 0);
}

static void send_version_req(int fd, uint32_t id)
{
	Blox__Admin__Empty in = BLOX__ADMIN__EMPTY__INIT;

	send_req(fd, midx("GetVersion"), id, 0, &in.base);
}

struct answer {
	struct adm_hdr h;
	char msg[ADM_MAX_MSG + 1];
	uint8_t *payload; /* payload_len bytes, malloc'd */
};

static void answer_free(struct answer *a)
{
	free(a->payload);
	a->payload = NULL;
}

/* Read one answer frame: 0, 1 when the server closed before a header
 * byte... or mid-frame (a failure for the caller), -ETIMEDOUT, -errno. */
static int recv_answer_ms(int fd, struct answer *a, int ms)
{
	uint8_t raw[ADM_HDR_LEN];
	enum adm_decode d;
	int rc;

	memset(a, 0, sizeof(*a));
	rc = recv_exact(fd, raw, sizeof(raw), ms);
	if (rc)
		return rc;
	d = adm_hdr_decode(raw, sizeof(raw), &a->h);
	if (d != ADM_OK)
		fail_msg("answer header does not decode: %s", adm_decode_str(d));
	if (a->h.flags & ~ADM_F_MORE)
		fail_msg("answer with flags 0x%x", a->h.flags);
	if (a->h.status >= ADM_S_COUNT)
		fail_msg("answer with status %u", a->h.status);
	if (a->h.msg_len) {
		rc = recv_exact(fd, a->msg, a->h.msg_len, ms);
		if (rc)
			fail_msg("answer message cut short (%d)", rc);
	}
	if (a->h.payload_len) {
		a->payload = malloc(a->h.payload_len);
		assert_non_null(a->payload);
		rc = recv_exact(fd, a->payload, a->h.payload_len, ms);
		if (rc)
			fail_msg("answer payload cut short (%d)", rc);
	}
	return 0;
}

/* The next frame is an answer (not EOF, not a timeout). */
static void recv_answer(int fd, struct answer *a)
{
	int rc = recv_answer_ms(fd, a, IO_TIMEOUT_MS);

	if (rc == 1)
		fail_msg("server closed the connection instead of answering");
	if (rc)
		fail_msg("no answer: %s", strerror(-rc));
}

/* The next answer is @status for @id/@method, without MORE and payload
 * (errors carry a message and no payload). */
static void expect_status(int fd, uint32_t id, uint16_t method,
			  uint16_t status)
{
	struct answer a;

	recv_answer(fd, &a);
	if (a.h.status != status)
		fail_msg("status %s (\"%s\"), want %s", adm_status_name(a.h.status),
			 a.msg, adm_status_name(status));
	assert_int_equal(a.h.request_id, id);
	assert_int_equal(a.h.method, method);
	assert_int_equal(a.h.flags, 0);
	assert_int_equal(a.h.version, ADM_VERSION);
	if (status != ADM_S_OK) {
		assert_true(a.h.msg_len > 0); /* says why */
		assert_int_equal(a.h.payload_len, 0);
	}
	answer_free(&a);
}

/* The server closes the connection within @ms without sending a byte.
 * Returns the milliseconds it took. */
static int64_t expect_closed_ms(int fd, int ms)
{
	int64_t t0 = fx_now_ms();
	uint8_t b;
	int rc = recv_exact(fd, &b, 1, ms);

	if (rc == 0)
		fail_msg("server sent data (0x%02x) instead of closing", b);
	if (rc != 1)
		fail_msg("connection not closed after %d ms: %s", ms, strerror(-rc));
	return fx_now_ms() - t0;
}

static void expect_closed(int fd)
{
	expect_closed_ms(fd, IO_TIMEOUT_MS);
}

/* Nothing arrives within @ms (and the connection stays open). */
static void expect_quiet(int fd, int ms)
{
	uint8_t b;
	ssize_t n;

	if (wait_fd(fd, POLLIN, ms) == 0)
		return;
	n = recv(fd, &b, 1, MSG_DONTWAIT | MSG_PEEK);
	if (n == 1)
		fail_msg("unexpected data (0x%02x) within %d ms", b, ms);
	fail_msg("connection closed within %d ms (%s)", ms,
		 n == 0 ? "EOF" : strerror(errno));
}

/* A GetVersion answer on @fd for @id: OK, non-empty version. */
static void expect_version(int fd, uint32_t id)
{
	Blox__Admin__VersionReply *v;
	struct answer a;

	recv_answer(fd, &a);
	if (a.h.status != ADM_S_OK)
		fail_msg("GetVersion: %s (\"%s\")", adm_status_name(a.h.status), a.msg);
	assert_int_equal(a.h.request_id, id);
	assert_int_equal(a.h.method, midx("GetVersion"));
	assert_int_equal(a.h.flags, 0);
	assert_int_equal(a.h.msg_len, 0);
	v = blox__admin__version_reply__unpack(NULL, a.h.payload_len, a.payload);
	assert_non_null(v);
	assert_non_null(v->version);
	assert_true(strlen(v->version) > 0);
	assert_int_equal(v->api_version, ADM_VERSION);
	blox__admin__version_reply__free_unpacked(v, NULL);
	answer_free(&a);
}

/* bloxd is alive and answers GetVersion on a new connection. */
static void check_admin(struct fx_env *e)
{
	int fd;

	assert_true(fx_alive(&e->d));
	fd = adm_connect(e);
	send_version_req(fd, 0xabcdef01u);
	expect_version(fd, 0xabcdef01u);
	close(fd);
}

/* A header with our fields (magic is always ADM_MAGIC from encode). */
static struct adm_hdr hdr(uint16_t method, uint32_t id, uint32_t plen)
{
	return (struct adm_hdr){ .version = ADM_VERSION, .method = method,
				 .request_id = id, .payload_len = plen };
}

/* ---- Cases ---- */

/* 1. A valid GetVersion, then 10 pipelined on one connection. */
static void test_version_pipelined(void **state)
{
	struct fx_env *e = *state;
	uint8_t buf[10 * ADM_HDR_LEN];
	bool seen[10] = { false };
	size_t n = 0;
	int fd = adm_connect(e);

	send_version_req(fd, 1);
	expect_version(fd, 1);

	for (uint32_t i = 0; i < 10; i++)
		n += build_req(buf + n, sizeof(buf) - n, midx("GetVersion"),
			       1000 + i, 0, NULL);
	assert_int_equal(send_all(fd, buf, n), 0);
	for (int i = 0; i < 10; i++) {
		struct answer a;

		recv_answer(fd, &a);
		assert_int_equal(a.h.status, ADM_S_OK);
		assert_true(a.h.request_id >= 1000 && a.h.request_id < 1010);
		assert_false(seen[a.h.request_id - 1000]);
		seen[a.h.request_id - 1000] = true;
		assert_int_equal(a.h.method, midx("GetVersion"));
		answer_free(&a);
	}
	expect_quiet(fd, 100); /* exactly 10 */
	close(fd);
	check_admin(e);
}

/* 2. Truncated frames: closed mid-frame; left mid-frame past the idle
 * timeout; a truncated header left past the idle timeout. */
static void test_truncated(void **state)
{
	struct fx_env *e = *state;
	struct adm_hdr h = hdr(midx("GetVersion"), 2, 100);
	static const uint8_t zeros[100];
	uint8_t buf[ADM_HDR_LEN + 100];
	int64_t ms;
	int fd;

	build(buf, sizeof(buf), &h, NULL, zeros);

	/* Header announcing 100 bytes, 10 sent, closed. */
	fd = adm_connect(e);
	assert_int_equal(send_all(fd, buf, ADM_HDR_LEN + 10), 0);
	fx_sleep_ms(50);
	close(fd);
	check_admin(e);

	/* Same, then silence: closed by the idle timeout, no answer. */
	fd = adm_connect(e);
	assert_int_equal(send_all(fd, buf, ADM_HDR_LEN + 10), 0);
	ms = expect_closed_ms(fd, 5000);
	assert_true(ms >= IDLE_MS / 2);
	close(fd);
	check_admin(e);

	/* Half a header, then silence. */
	fd = adm_connect(e);
	assert_int_equal(send_all(fd, buf, ADM_HDR_LEN / 2), 0);
	ms = expect_closed_ms(fd, 5000);
	assert_true(ms >= IDLE_MS / 2);
	close(fd);
	check_admin(e);
}

/* 3. Over the size limits: RESOURCE_EXHAUSTED with the id, then closed. */
static void test_too_long(void **state)
{
	struct fx_env *e = *state;
	struct adm_hdr h = hdr(midx("GetVersion"), 3, ADM_MAX_PAYLOAD + 1);
	uint8_t buf[ADM_HDR_LEN];
	int fd;

	fd = adm_connect(e);
	adm_hdr_encode(&h, buf); /* the header only */
	assert_int_equal(send_all(fd, buf, sizeof(buf)), 0);
	expect_status(fd, 3, h.method, ADM_S_RESOURCE_EXHAUSTED);
	expect_closed(fd);
	close(fd);
	check_admin(e);

	/* The largest payload_len there is. */
	fd = adm_connect(e);
	h = hdr(midx("CreateNamespace"), 0xfffffffeu, UINT32_MAX);
	adm_hdr_encode(&h, buf);
	assert_int_equal(send_all(fd, buf, sizeof(buf)), 0);
	expect_status(fd, 0xfffffffeu, h.method, ADM_S_RESOURCE_EXHAUSTED);
	expect_closed(fd);
	close(fd);
	check_admin(e);

	/* A message over ADM_MAX_MSG (requests carry none anyway). */
	fd = adm_connect(e);
	h = hdr(midx("GetVersion"), 33, 0);
	h.msg_len = ADM_MAX_MSG + 1;
	adm_hdr_encode(&h, buf);
	assert_int_equal(send_all(fd, buf, sizeof(buf)), 0);
	expect_status(fd, 33, h.method, ADM_S_RESOURCE_EXHAUSTED);
	expect_closed(fd);
	close(fd);
	check_admin(e);

	/* Exactly ADM_MAX_PAYLOAD is allowed: a full 1 MiB frame that does
	 * not decode gets INVALID_ARGUMENT and the connection stays. */
	{
		size_t len = ADM_HDR_LEN + ADM_MAX_PAYLOAD;
		uint8_t *big = malloc(len);

		assert_non_null(big);
		memset(big, 0xff, len);
		h = hdr(midx("CreateNamespace"), 34, ADM_MAX_PAYLOAD);
		adm_hdr_encode(&h, big);
		fd = adm_connect(e);
		assert_int_equal(send_all(fd, big, len), 0);
		free(big);
		expect_status(fd, 34, h.method, ADM_S_INVALID_ARGUMENT);
		send_version_req(fd, 35);
		expect_version(fd, 35);
		close(fd);
	}
	check_admin(e);
}

/* 4. Bad magic: closed, no answer. Bad version, unknown flags:
 * INVALID_ARGUMENT, then closed. */
static void test_bad_header(void **state)
{
	struct fx_env *e = *state;
	struct adm_hdr h = hdr(midx("GetVersion"), 4, 0);
	uint8_t buf[ADM_HDR_LEN];
	int fd;

	/* Bad magic. */
	build(buf, sizeof(buf), &h, NULL, NULL);
	buf[0] ^= 0x20;
	fd = adm_connect(e);
	assert_int_equal(send_all(fd, buf, sizeof(buf)), 0);
	expect_closed(fd);
	close(fd);
	check_admin(e);

	/* Garbage that is not a frame at all (HTTP). */
	fd = adm_connect(e);
	assert_int_equal(send_all(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27), 0);
	expect_closed(fd);
	close(fd);
	check_admin(e);

	/* Bad version: 0, 2 and 255. */
	for (int i = 0; i < 3; i++) {
		static const uint8_t vers[] = { 0, 2, 255 };

		h = hdr(midx("GetVersion"), 40 + (uint32_t)i, 0);
		h.version = vers[i];
		build(buf, sizeof(buf), &h, NULL, NULL);
		fd = adm_connect(e);
		assert_int_equal(send_all(fd, buf, sizeof(buf)), 0);
		expect_status(fd, 40 + (uint32_t)i, h.method, ADM_S_INVALID_ARGUMENT);
		expect_closed(fd);
		close(fd);
	}
	check_admin(e);

	/* Unknown flags: each bit outside ADM_F_ALL. */
	for (int bit = 2; bit < 8; bit++) {
		h = hdr(midx("GetVersion"), 50 + (uint32_t)bit, 0);
		h.flags = (uint8_t)(1u << bit);
		build(buf, sizeof(buf), &h, NULL, NULL);
		fd = adm_connect(e);
		assert_int_equal(send_all(fd, buf, sizeof(buf)), 0);
		expect_status(fd, 50 + (uint32_t)bit, h.method,
			      ADM_S_INVALID_ARGUMENT);
		expect_closed(fd);
		close(fd);
	}
	check_admin(e);

	/* A bad header after good requests on the same connection: the
	 * good ones are answered first, then the error, then the close. */
	{
		uint8_t two[3 * ADM_HDR_LEN];
		size_t n = 0;

		n += build_req(two, sizeof(two), midx("GetVersion"), 60, 0, NULL);
		n += build_req(two + n, sizeof(two) - n, midx("GetVersion"), 61, 0,
			       NULL);
		h = hdr(midx("GetVersion"), 62, 0);
		h.version = 9;
		n += build(two + n, sizeof(two) - n, &h, NULL, NULL);
		fd = adm_connect(e);
		assert_int_equal(send_all(fd, two, n), 0);
		expect_version(fd, 60);
		expect_version(fd, 61);
		expect_status(fd, 62, h.method, ADM_S_INVALID_ARGUMENT);
		expect_closed(fd);
		close(fd);
	}
	check_admin(e);
}

/* 5. Unknown method index: INVALID_ARGUMENT, the connection stays. */
static void test_unknown_method(void **state)
{
	struct fx_env *e = *state;
	const uint16_t bad[] = { 999, (uint16_t)svc()->n_methods, UINT16_MAX };
	uint8_t buf[ADM_HDR_LEN];
	int fd = adm_connect(e);

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct adm_hdr h = hdr(bad[i], 500 + i, 0);

		build(buf, sizeof(buf), &h, NULL, NULL);
		assert_int_equal(send_all(fd, buf, sizeof(buf)), 0);
		expect_status(fd, 500 + i, bad[i], ADM_S_INVALID_ARGUMENT);
		send_version_req(fd, 600 + i);
		expect_version(fd, 600 + i);
	}
	/* With a payload, which must be skipped whole. */
	{
		uint8_t p[ADM_HDR_LEN + 7];
		struct adm_hdr h = hdr(999, 700, 7);

		build(p, sizeof(p), &h, NULL, "\x0a\x05hello");
		assert_int_equal(send_all(fd, p, sizeof(p)), 0);
		expect_status(fd, 700, 999, ADM_S_INVALID_ARGUMENT);
		send_version_req(fd, 701);
		expect_version(fd, 701);
	}
	close(fd);
	check_admin(e);
}

/* 6. A payload that does not decode: INVALID_ARGUMENT, the connection
 * stays. */
static void test_bad_payload(void **state)
{
	struct fx_env *e = *state;
	static const uint8_t junk[][4] = {
		{ 0xff, 0xff, 0xff }, /* truncated varint */
		{ 0x0a, 0x7f, 'x' }, /* string field 1, length past the end */
		{ 0x3a, 0x02, 0xff, 0xff }, /* nand: sub-message that does not decode */
	};
	static const size_t junk_len[] = { 3, 3, 4 };
	uint8_t buf[ADM_HDR_LEN + 4];
	int fd = adm_connect(e);

	for (unsigned i = 0; i < 3; i++) {
		struct adm_hdr h = hdr(midx("CreateNamespace"), 800 + i,
				       (uint32_t)junk_len[i]);
		size_t n = build(buf, sizeof(buf), &h, NULL, junk[i]);

		assert_int_equal(send_all(fd, buf, n), 0);
		expect_status(fd, 800 + i, h.method, ADM_S_INVALID_ARGUMENT);
		send_version_req(fd, 810 + i);
		expect_version(fd, 810 + i);
	}
	/* Empty (GetVersion's input) with junk. */
	{
		struct adm_hdr h = hdr(midx("GetVersion"), 820, 3);
		size_t n = build(buf, sizeof(buf), &h, NULL, junk[0]);

		assert_int_equal(send_all(fd, buf, n), 0);
		expect_status(fd, 820, h.method, ADM_S_INVALID_ARGUMENT);
		send_version_req(fd, 821);
		expect_version(fd, 821);
	}
	close(fd);
	check_admin(e);
}

/* 7. Requests carrying a status or a message: INVALID_ARGUMENT. */
static void test_status_or_msg(void **state)
{
	struct fx_env *e = *state;
	uint8_t buf[ADM_HDR_LEN + 16];
	struct adm_hdr h;
	size_t n;
	int fd = adm_connect(e);

	h = hdr(midx("GetVersion"), 900, 0);
	h.status = ADM_S_NOT_FOUND;
	n = build(buf, sizeof(buf), &h, NULL, NULL);
	assert_int_equal(send_all(fd, buf, n), 0);
	expect_status(fd, 900, h.method, ADM_S_INVALID_ARGUMENT);

	h = hdr(midx("GetVersion"), 901, 0);
	h.status = 0xffff;
	n = build(buf, sizeof(buf), &h, NULL, NULL);
	assert_int_equal(send_all(fd, buf, n), 0);
	expect_status(fd, 901, h.method, ADM_S_INVALID_ARGUMENT);

	h = hdr(midx("GetVersion"), 902, 0);
	h.msg_len = 5;
	n = build(buf, sizeof(buf), &h, "hello", NULL);
	assert_int_equal(send_all(fd, buf, n), 0);
	expect_status(fd, 902, h.method, ADM_S_INVALID_ARGUMENT);

	/* Message and payload: both skipped. */
	h = hdr(midx("GetStatus"), 903, 2);
	h.msg_len = 3;
	n = build(buf, sizeof(buf), &h, "abc", "\x08\x01");
	assert_int_equal(send_all(fd, buf, n), 0);
	expect_status(fd, 903, h.method, ADM_S_INVALID_ARGUMENT);

	/* The connection stays in sync. */
	send_version_req(fd, 904);
	expect_version(fd, 904);
	close(fd);
	check_admin(e);
}

/* Answers to requests @first.. @first+@n-1 on @fd: each exactly once.
 * Returns how many were RESOURCE_EXHAUSTED (the others are OK). */
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
static void test_flood(void **state)
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
static void test_silent_client(void **state)
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
static void test_streams(void **state)
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
static void test_permission(void **state)
{
	struct fx_env *e = *state;
	int64_t end;
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
	end = fx_now_ms() + 15000;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		if (fx_now_ms() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
			break;
		}
		fx_sleep_ms(20);
	}
	chmod(e->d.admin_sock, 0660);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("nobody's connection: child %s %d (see nobody_child)",
			 WIFEXITED(st) ? "exit" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	check_admin(e);
}

/* 12. The NVMe/TCP side still works and bloxd stops cleanly. */
static void test_daemon_stops_cleanly(void **state)
{
	struct fx_env *e = *state;

	check_admin(e);
	assert_int_equal(fx_check_daemon(&e->d, SUBNQN, NS_BLOCKS, &e->seed), 0);
	assert_true(fx_alive(&e->d));
	assert_int_equal(fx_stop(&e->d), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_pipelined),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_unknown_method),
		cmocka_unit_test(test_bad_payload),
		cmocka_unit_test(test_status_or_msg),
		cmocka_unit_test(test_flood),
		cmocka_unit_test(test_silent_client),
		cmocka_unit_test(test_streams),
		cmocka_unit_test(test_permission),
		cmocka_unit_test(test_daemon_stops_cleanly),
	};

	signal(SIGPIPE, SIG_IGN);
	return fx_finish(cmocka_run_group_tests(tests, group_setup, fx_group_teardown));
}
