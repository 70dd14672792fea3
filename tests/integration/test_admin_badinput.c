/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of bloxd's admin API server (daemon/adm_server.c)
 * against bad input, with frames built by hand on a raw unix socket. Each
 * case checks the exact answer (status, echoed request id and method) or
 * that the server closes the connection, then that bloxd still answers
 * GetVersion on a new connection. This file: truncated frames, oversized
 * and malformed headers, unknown methods, payloads that do not decode,
 * requests carrying a status or a message; main(). The others:
 *   admin_badinput_wire.c  building frames, sending, reading answers
 *   admin_badinput_load.c  floods of pipelined requests, clients that never
 *                          read, silent clients, clients that vanish
 *                          mid-stream, stream cancellation, the peer
 *                          credential check; at the end a controller on the
 *                          NVMe/TCP side must still do I/O and bloxd must
 *                          stop cleanly (no leaks)
 *
 * bloxd runs with --admin-idle-ms 500. Every read is bounded by poll().
 */
#include "admin_badinput.h"

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096} ] } ]";

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

int main(void)
{
	static const char *const extra[] = { "--admin-idle-ms", "500", NULL };
	static const struct fx_group g = { .who = "test_admin_badinput",
					   .subsystems = subsystems,
					   .extra_args = extra };
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

	return FX_MAIN(&g, tests);
}
