/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_admin_badinput's wire: admin frames built by hand, sent on a raw
 * unix socket, and the answers read back and checked, every read bounded
 * by poll().
 */
#include "admin_badinput.h"

const ProtobufCServiceDescriptor *svc(void)
{
	return &blox__admin__blox_admin__descriptor;
}

uint16_t midx(const char *name)
{
	for (unsigned i = 0; i < svc()->n_methods; i++)
		if (!strcmp(svc()->methods[i].name, name))
			return (uint16_t)i;
	fail_msg("no method %s in BloxAdmin", name);
	return 0;
}

/* ---- Raw socket helpers ---- */

int adm_connect(const struct fx_env *e)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", e->d.admin_sock);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)))
		fail_msg("connect %s: %s", e->d.admin_sock, strerror(errno));
	return fd;
}

int wait_fd(int fd, short events, int ms)
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

int send_all(int fd, const void *buf, size_t len)
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

int recv_exact(int fd, void *buf, size_t len, int ms)
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

size_t build(uint8_t *out, size_t cap, const struct adm_hdr *h,
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

size_t build_req(uint8_t *out, size_t cap, uint16_t method,
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

void send_req(int fd, uint16_t method, uint32_t id, uint8_t flags,
	      const ProtobufCMessage *m)
{
	uint8_t buf[4096];
	size_t n = build_req(buf, sizeof(buf), method, id, flags, m);

	assert_int_equal(send_all(fd, buf, n), 0);
}

void send_version_req(int fd, uint32_t id)
{
	Blox__Admin__Empty in = BLOX__ADMIN__EMPTY__INIT;

	send_req(fd, midx("GetVersion"), id, 0, &in.base);
}

void answer_free(struct answer *a)
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

void recv_answer(int fd, struct answer *a)
{
	int rc = recv_answer_ms(fd, a, IO_TIMEOUT_MS);

	if (rc == 1)
		fail_msg("server closed the connection instead of answering");
	if (rc)
		fail_msg("no answer: %s", strerror(-rc));
}

void expect_status(int fd, uint32_t id, uint16_t method,
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

int64_t expect_closed_ms(int fd, int ms)
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

void expect_closed(int fd)
{
	expect_closed_ms(fd, IO_TIMEOUT_MS);
}

void expect_quiet(int fd, int ms)
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

void expect_version(int fd, uint32_t id)
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

void check_admin(struct fx_env *e)
{
	int fd;

	assert_true(fx_alive(&e->d));
	fd = adm_connect(e);
	send_version_req(fd, 0xabcdef01u);
	expect_version(fd, 0xabcdef01u);
	close(fd);
}

struct adm_hdr hdr(uint16_t method, uint32_t id, uint32_t plen)
{
	return (struct adm_hdr){ .version = ADM_VERSION, .method = method,
				 .request_id = id, .payload_len = plen };
}
