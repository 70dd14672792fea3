/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for tcp_pdu.c, the pure NVMe/TCP codec: header checks in both
 * directions (accepted layouts and every rejection with its FES/FEI),
 * CRC32C known vectors and the header digest helpers.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tcp_pdu.h"

#define FES_HDR NVME_TCP_FES_INVALID_PDU_HDR /* 0x01 */
#define FES_SEQ NVME_TCP_FES_PDU_SEQ_ERR /* 0x02 */
#define FES_LIMIT NVME_TCP_FES_DATA_LIMIT_EXCEEDED /* 0x05 */
/* FEI values: byte offsets of the common header fields. */
#define FEI_TYPE 0
#define FEI_FLAGS 1
#define FEI_HLEN 2
#define FEI_PDO 3
#define FEI_PLEN 4

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define F_HD NVME_TCP_F_HDGST
#define F_DD NVME_TCP_F_DDGST

enum dir { H2C, C2H };

struct hdr_case {
	const char *name;
	enum dir dir;
	struct nvme_tcp_params p;
	struct nvme_tcp_hdr h; /* type, flags, hlen, pdo, plen */
	uint16_t fes; /* 0: accepted */
	uint32_t fei;
	uint32_t data_len, pad_len; /* when accepted */
};

/* Negotiated parameter sets used by the tables. */
#define P_PLAIN { .hdgst = false, .ddgst = false, .cpda = 0, .max_data = 8192 }
#define P_HD { .hdgst = true, .ddgst = false, .cpda = 0, .max_data = 8192 }
#define P_DD { .hdgst = false, .ddgst = true, .cpda = 0, .max_data = 8192 }
#define P_BOTH { .hdgst = true, .ddgst = true, .cpda = 0, .max_data = 8192 }
#define P_ALIGN8 { .hdgst = true, .ddgst = false, .cpda = 1, .max_data = 8192 }

static void run_cases(const struct hdr_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct hdr_case *c = &cases[i];
		struct nvme_tcp_hdr_check out;
		int rc;

		memset(&out, 0xa5, sizeof(out));
		rc = c->dir == H2C ? nvme_tcp_check_h2c_hdr(&c->h, &c->p, &out)
				   : nvme_tcp_check_c2h_hdr(&c->h, &c->p, &out);
		if (c->fes == 0) {
			if (rc != 0 || out.fes != 0)
				fail_msg("%s: rejected (rc %d fes %u fei %u)", c->name,
					 rc, out.fes, out.fei);
			if (out.data_len != c->data_len || out.pad_len != c->pad_len)
				fail_msg("%s: data_len %u pad_len %u, want %u %u",
					 c->name, out.data_len, out.pad_len,
					 c->data_len, c->pad_len);
			if (out.fei != 0)
				fail_msg("%s: fei %u on success", c->name, out.fei);
		} else {
			if (rc != -EPROTO)
				fail_msg("%s: rc %d, want -EPROTO", c->name, rc);
			if (out.fes != c->fes || out.fei != c->fei)
				fail_msg("%s: fes %u fei %u, want fes %u fei %u",
					 c->name, out.fes, out.fei, c->fes, c->fei);
		}
	}
}

/* 1. Fixed header lengths per type. */
static void test_pdu_hlen(void **state)
{
	(void)state;
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_ICREQ), 128);
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_ICRESP), 128);
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_H2C_TERM), 24);
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_C2H_TERM), 24);
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_CMD), 72);
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_RSP), 24);
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_H2C_DATA), 24);
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_C2H_DATA), 24);
	assert_int_equal(nvme_tcp_pdu_hlen(NVME_TCP_R2T), 24);
	assert_int_equal(nvme_tcp_pdu_hlen(0x08), 0);
	assert_int_equal(nvme_tcp_pdu_hlen(0xff), 0);
}

/* 2. nvme_tcp_hdr_init() stores every field; plen is little endian. */
static void test_hdr_init(void **state)
{
	struct nvme_tcp_hdr h;
	const uint8_t *b = (const uint8_t *)&h;

	(void)state;
	nvme_tcp_hdr_init(&h, NVME_TCP_C2H_DATA, F_HD | NVME_TCP_F_DATA_LAST, 24,
			  28, 0x01020304);
	assert_int_equal(b[0], NVME_TCP_C2H_DATA);
	assert_int_equal(b[1], F_HD | NVME_TCP_F_DATA_LAST);
	assert_int_equal(b[2], 24);
	assert_int_equal(b[3], 28);
	assert_int_equal(le32_get(b + 4), 0x01020304);
}

/* 3. Headers a target accepts, with and without digests, pad and pdo. */
static void test_h2c_valid(void **state)
{
	static const struct hdr_case cases[] = {
		{ "cmd, no data", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 0, 72 }, 0, 0, 0, 0 },
		{ "cmd, no data, pdo=hlen", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 72, 72 }, 0, 0, 0, 0 },
		{ "cmd, in-capsule 512", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 72, 584 }, 0, 0, 512, 0 },
		{ "cmd, pad 8", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 80, 592 }, 0, 0, 512, 8 },
		{ "cmd, hdgst, no data", H2C, P_HD, { NVME_TCP_CMD, F_HD, 72, 0, 76 }, 0, 0, 0, 0 },
		{ "cmd, hdgst, 512", H2C, P_HD, { NVME_TCP_CMD, F_HD, 72, 76, 588 }, 0, 0, 512, 0 },
		{ "cmd, ddgst, 512", H2C, P_DD, { NVME_TCP_CMD, F_DD, 72, 72, 588 }, 0, 0, 512, 0 },
		{ "cmd, ddgst negotiated, no data", H2C, P_DD, { NVME_TCP_CMD, 0, 72, 0, 72 }, 0, 0, 0, 0 },
		{ "cmd, both, 512", H2C, P_BOTH, { NVME_TCP_CMD, F_HD | F_DD, 72, 76, 592 }, 0, 0, 512, 0 },
		{ "cmd, cpda 1, hdgst, pad 4", H2C, P_ALIGN8, { NVME_TCP_CMD, F_HD, 72, 80, 592 }, 0, 0, 512, 4 },
		{ "cmd, data == max_data", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 72, 72 + 8192 }, 0, 0, 8192, 0 },
		{ "h2cdata, 4096", H2C, P_PLAIN, { NVME_TCP_H2C_DATA, NVME_TCP_F_DATA_LAST, 24, 24, 4120 }, 0, 0, 4096, 0 },
		{ "h2cdata, both", H2C, P_BOTH, { NVME_TCP_H2C_DATA, F_HD | F_DD, 24, 28, 28 + 4096 + 4 }, 0, 0, 4096, 0 },
		{ "h2cdata, 1 byte", H2C, P_PLAIN, { NVME_TCP_H2C_DATA, 0, 24, 24, 25 }, 0, 0, 1, 0 },
		{ "h2c term, bare", H2C, P_PLAIN, { NVME_TCP_H2C_TERM, 0, 24, 0, 24 }, 0, 0, 0, 0 },
		{ "h2c term, 72-byte header copy", H2C, P_BOTH, { NVME_TCP_H2C_TERM, 0, 24, 0, 96 }, 0, 0, 72, 0 },
		{ "h2c term, max data", H2C, P_PLAIN, { NVME_TCP_H2C_TERM, 0, 24, 0, 24 + 152 }, 0, 0, 152, 0 },
		{ "h2c term, pdo ignored", H2C, P_PLAIN, { NVME_TCP_H2C_TERM, 0, 24, 24, 48 }, 0, 0, 24, 0 },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

/* 4. Headers a host accepts. */
static void test_c2h_valid(void **state)
{
	static const struct hdr_case cases[] = {
		{ "rsp", C2H, P_PLAIN, { NVME_TCP_RSP, 0, 24, 0, 24 }, 0, 0, 0, 0 },
		{ "rsp, hdgst", C2H, P_HD, { NVME_TCP_RSP, F_HD, 24, 0, 28 }, 0, 0, 0, 0 },
		{ "rsp, ddgst negotiated", C2H, P_DD, { NVME_TCP_RSP, 0, 24, 0, 24 }, 0, 0, 0, 0 },
		{ "r2t", C2H, P_PLAIN, { NVME_TCP_R2T, 0, 24, 0, 24 }, 0, 0, 0, 0 },
		{ "r2t, hdgst", C2H, P_BOTH, { NVME_TCP_R2T, F_HD, 24, 0, 28 }, 0, 0, 0, 0 },
		{ "c2hdata", C2H, P_PLAIN, { NVME_TCP_C2H_DATA, NVME_TCP_F_DATA_LAST, 24, 24, 24 + 4096 }, 0, 0, 4096, 0 },
		{ "c2hdata, both", C2H, P_BOTH, { NVME_TCP_C2H_DATA, F_HD | F_DD, 24, 28, 28 + 512 + 4 }, 0, 0, 512, 0 },
		{ "c2hdata, cpda 1, pad 4", C2H, P_ALIGN8, { NVME_TCP_C2H_DATA, F_HD, 24, 32, 32 + 100 }, 0, 0, 100, 4 },
		{ "c2h term", C2H, P_PLAIN, { NVME_TCP_C2H_TERM, 0, 24, 0, 24 + 72 }, 0, 0, 72, 0 },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

/* 5. HLEN must be the fixed value of the type (FEI 2). */
static void test_bad_hlen(void **state)
{
	static const struct hdr_case cases[] = {
		{ "cmd hlen 24", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 24, 0, 72 }, FES_HDR, FEI_HLEN },
		{ "cmd hlen 76", H2C, P_HD, { NVME_TCP_CMD, F_HD, 76, 0, 80 }, FES_HDR, FEI_HLEN },
		{ "h2cdata hlen 72", H2C, P_PLAIN, { NVME_TCP_H2C_DATA, 0, 72, 72, 100 }, FES_HDR, FEI_HLEN },
		{ "h2c term hlen 8", H2C, P_PLAIN, { NVME_TCP_H2C_TERM, 0, 8, 0, 24 }, FES_HDR, FEI_HLEN },
		{ "rsp hlen 16", C2H, P_PLAIN, { NVME_TCP_RSP, 0, 16, 0, 24 }, FES_HDR, FEI_HLEN },
		{ "r2t hlen 0", C2H, P_PLAIN, { NVME_TCP_R2T, 0, 0, 0, 24 }, FES_HDR, FEI_HLEN },
		{ "c2hdata hlen 28", C2H, P_PLAIN, { NVME_TCP_C2H_DATA, 0, 28, 28, 60 }, FES_HDR, FEI_HLEN },
		{ "c2h term hlen 128", C2H, P_PLAIN, { NVME_TCP_C2H_TERM, 0, 128, 0, 128 }, FES_HDR, FEI_HLEN },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

/* 6. Digest flags must match what was negotiated (FEI 1). */
static void test_digest_mismatch(void **state)
{
	static const struct hdr_case cases[] = {
		{ "hdgst flag, not negotiated", H2C, P_PLAIN, { NVME_TCP_CMD, F_HD, 72, 0, 76 }, FES_HDR, FEI_FLAGS },
		{ "no hdgst flag, negotiated", H2C, P_HD, { NVME_TCP_CMD, 0, 72, 0, 72 }, FES_HDR, FEI_FLAGS },
		{ "ddgst flag, not negotiated", H2C, P_PLAIN, { NVME_TCP_CMD, F_DD, 72, 72, 588 }, FES_HDR, FEI_FLAGS },
		{ "no ddgst flag on data, negotiated", H2C, P_DD, { NVME_TCP_H2C_DATA, 0, 24, 24, 24 + 512 }, FES_HDR, FEI_FLAGS },
		{ "ddgst flag without data", H2C, P_DD, { NVME_TCP_CMD, F_DD, 72, 0, 72 }, FES_HDR, FEI_FLAGS },
		{ "hdgst flag on h2c term", H2C, P_BOTH, { NVME_TCP_H2C_TERM, F_HD, 24, 0, 28 }, FES_HDR, FEI_FLAGS },
		{ "ddgst flag on h2c term", H2C, P_BOTH, { NVME_TCP_H2C_TERM, F_DD, 24, 0, 24 }, FES_HDR, FEI_FLAGS },
		{ "ddgst flag on rsp", C2H, P_DD, { NVME_TCP_RSP, F_DD, 24, 0, 24 }, FES_HDR, FEI_FLAGS },
		{ "no hdgst on r2t, negotiated", C2H, P_HD, { NVME_TCP_R2T, 0, 24, 0, 24 }, FES_HDR, FEI_FLAGS },
		{ "hdgst on c2hdata, not negotiated", C2H, P_PLAIN, { NVME_TCP_C2H_DATA, F_HD, 24, 28, 60 }, FES_HDR, FEI_FLAGS },
		{ "hdgst flag on c2h term", C2H, P_HD, { NVME_TCP_C2H_TERM, F_HD, 24, 0, 28 }, FES_HDR, FEI_FLAGS },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

/* 7. PLEN too small for the header (+ digest), or inconsistent (FEI 4). */
static void test_bad_plen(void **state)
{
	static const struct hdr_case cases[] = {
		{ "cmd plen < hlen", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 0, 71 }, FES_HDR, FEI_PLEN },
		{ "cmd plen 0", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 0, 0 }, FES_HDR, FEI_PLEN },
		{ "cmd no room for hdgst", H2C, P_HD, { NVME_TCP_CMD, F_HD, 72, 0, 72 }, FES_HDR, FEI_PLEN },
		{ "h2cdata plen < hlen", H2C, P_PLAIN, { NVME_TCP_H2C_DATA, 0, 24, 0, 20 }, FES_HDR, FEI_PLEN },
		{ "h2c term plen < hlen", H2C, P_PLAIN, { NVME_TCP_H2C_TERM, 0, 24, 0, 23 }, FES_HDR, FEI_PLEN },
		{ "data ends before pdo", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 80, 76 }, FES_HDR, FEI_PLEN },
		{ "no room for ddgst", H2C, P_DD, { NVME_TCP_H2C_DATA, F_DD, 24, 24, 27 }, FES_HDR, FEI_PLEN },
		{ "rsp with payload", C2H, P_PLAIN, { NVME_TCP_RSP, 0, 24, 0, 32 }, FES_HDR, FEI_PLEN },
		{ "rsp no room for hdgst", C2H, P_HD, { NVME_TCP_RSP, F_HD, 24, 0, 24 }, FES_HDR, FEI_PLEN },
		{ "r2t with payload", C2H, P_HD, { NVME_TCP_R2T, F_HD, 24, 0, 36 }, FES_HDR, FEI_PLEN },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

/* 8. PDO below the header (+ digest) or not on the CPDA alignment (FEI 3). */
static void test_bad_pdo(void **state)
{
	static const struct hdr_case cases[] = {
		{ "pdo 0 with data", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 0, 584 }, FES_HDR, FEI_PDO },
		{ "pdo inside header", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 64, 584 }, FES_HDR, FEI_PDO },
		{ "pdo over hdgst", H2C, P_HD, { NVME_TCP_CMD, F_HD, 72, 72, 588 }, FES_HDR, FEI_PDO },
		{ "pdo misaligned (4)", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 74, 586 }, FES_HDR, FEI_PDO },
		{ "pdo misaligned (cpda 1)", H2C, P_ALIGN8, { NVME_TCP_CMD, F_HD, 72, 76, 588 }, FES_HDR, FEI_PDO },
		{ "h2cdata pdo over hdgst", H2C, P_BOTH, { NVME_TCP_H2C_DATA, F_HD | F_DD, 24, 24, 32 + 4 }, FES_HDR, FEI_PDO },
		{ "no data, stray pdo", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 80, 72 }, FES_HDR, FEI_PDO },
		{ "rsp pdo", C2H, P_PLAIN, { NVME_TCP_RSP, 0, 24, 24, 24 }, FES_HDR, FEI_PDO },
		{ "c2hdata misaligned", C2H, P_ALIGN8, { NVME_TCP_C2H_DATA, F_HD, 24, 28, 60 }, FES_HDR, FEI_PDO },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

/* 9. More data than max_data in one PDU: FES 5 (Data Transfer Limit). */
static void test_data_limit(void **state)
{
	static const struct hdr_case cases[] = {
		{ "cmd 8193", H2C, P_PLAIN, { NVME_TCP_CMD, 0, 72, 72, 72 + 8193 }, FES_LIMIT, FEI_PLEN },
		{ "h2cdata 64K", H2C, P_BOTH, { NVME_TCP_H2C_DATA, F_HD | F_DD, 24, 28, 28 + 65536 + 4 }, FES_LIMIT, FEI_PLEN },
		{ "c2hdata 8193", C2H, P_PLAIN, { NVME_TCP_C2H_DATA, 0, 24, 24, 24 + 8193 }, FES_LIMIT, FEI_PLEN },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

/* 10. Types a side never receives; ICReq after the exchange; long TermReq. */
static void test_bad_type_and_sequence(void **state)
{
	static const struct hdr_case cases[] = {
		{ "icreq after init", H2C, P_PLAIN, { NVME_TCP_ICREQ, 0, 128, 0, 128 }, FES_SEQ, FEI_TYPE },
		{ "icresp to target", H2C, P_PLAIN, { NVME_TCP_ICRESP, 0, 128, 0, 128 }, FES_HDR, FEI_TYPE },
		{ "rsp to target", H2C, P_PLAIN, { NVME_TCP_RSP, 0, 24, 0, 24 }, FES_HDR, FEI_TYPE },
		{ "r2t to target", H2C, P_PLAIN, { NVME_TCP_R2T, 0, 24, 0, 24 }, FES_HDR, FEI_TYPE },
		{ "c2hdata to target", H2C, P_PLAIN, { NVME_TCP_C2H_DATA, 0, 24, 24, 30 }, FES_HDR, FEI_TYPE },
		{ "c2h term to target", H2C, P_PLAIN, { NVME_TCP_C2H_TERM, 0, 24, 0, 24 }, FES_HDR, FEI_TYPE },
		{ "type 0x08", H2C, P_PLAIN, { 0x08, 0, 24, 0, 24 }, FES_HDR, FEI_TYPE },
		{ "type 0xff", H2C, P_PLAIN, { 0xff, 0, 24, 0, 24 }, FES_HDR, FEI_TYPE },
		{ "cmd to host", C2H, P_PLAIN, { NVME_TCP_CMD, 0, 72, 0, 72 }, FES_HDR, FEI_TYPE },
		{ "h2cdata to host", C2H, P_PLAIN, { NVME_TCP_H2C_DATA, 0, 24, 24, 30 }, FES_HDR, FEI_TYPE },
		{ "icreq to host", C2H, P_PLAIN, { NVME_TCP_ICREQ, 0, 128, 0, 128 }, FES_HDR, FEI_TYPE },
		{ "type 0x0a to host", C2H, P_PLAIN, { 0x0a, 0, 24, 0, 24 }, FES_HDR, FEI_TYPE },
		{ "h2c term too long", H2C, P_PLAIN, { NVME_TCP_H2C_TERM, 0, 24, 0, 24 + 153 }, FES_HDR, FEI_PLEN },
		{ "c2h term too long", C2H, P_PLAIN, { NVME_TCP_C2H_TERM, 0, 24, 0, 4096 }, FES_HDR, FEI_PLEN },
	};

	(void)state;
	run_cases(cases, ARRAY_SIZE(cases));
}

/* 11. CRC32C known answers (RFC 3720 B.4 and the usual check value). */
static void test_crc32c_vectors(void **state)
{
	uint8_t zeros[32] = { 0 }, ones[32];
	uint8_t inc[32];

	(void)state;
	memset(ones, 0xff, sizeof(ones));
	for (int i = 0; i < 32; i++)
		inc[i] = (uint8_t)i;
	assert_int_equal(nvme_tcp_crc32c("123456789", 9), 0xE3069283u);
	assert_int_equal(nvme_tcp_crc32c(zeros, sizeof(zeros)), 0x8A9136AAu);
	assert_int_equal(nvme_tcp_crc32c(ones, sizeof(ones)), 0x62A8AB43u);
	assert_int_equal(nvme_tcp_crc32c(inc, sizeof(inc)), 0x46DD794Eu);
	assert_int_equal(nvme_tcp_crc32c("", 0), 0);
}

/* 12. Feeding the CRC in pieces gives the one-shot value. */
static void test_crc32c_split(void **state)
{
	static uint8_t buf[10007];
	uint32_t whole;

	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 131 + 7);
	whole = nvme_tcp_crc32c(buf, sizeof(buf));
	for (size_t cut = 0; cut <= sizeof(buf); cut += 997) {
		uint32_t crc = ~0u;

		crc = nvme_tcp_crc32c_update(crc, buf, cut);
		crc = nvme_tcp_crc32c_update(crc, buf + cut, sizeof(buf) - cut);
		assert_int_equal(~crc, whole);
	}
	/* Three pieces, one of them empty. */
	uint32_t crc = nvme_tcp_crc32c_update(~0u, "1234", 4);

	crc = nvme_tcp_crc32c_update(crc, "", 0);
	crc = nvme_tcp_crc32c_update(crc, "56789", 5);
	assert_int_equal(~crc, 0xE3069283u);
}

/* 13. Header digest: stored little endian after the header; bit flips fail. */
static void test_hdgst_round_trip(void **state)
{
	uint8_t pdu[72 + 4];
	uint32_t want;

	(void)state;
	for (size_t i = 0; i < sizeof(pdu); i++)
		pdu[i] = (uint8_t)(i * 7);
	nvme_tcp_hdr_init((void *)pdu, NVME_TCP_CMD, F_HD, 72, 0, 76);
	want = nvme_tcp_crc32c(pdu, 72);
	nvme_tcp_hdgst_set(pdu, 72);
	assert_int_equal(le32_get(pdu + 72), want);
	assert_true(nvme_tcp_hdgst_ok(pdu, 72));

	for (int bit = 0; bit < 76 * 8; bit += 37) {
		pdu[bit / 8] ^= (uint8_t)(1u << (bit % 8));
		if (nvme_tcp_hdgst_ok(pdu, 72))
			fail_msg("flipped bit %d not detected", bit);
		pdu[bit / 8] ^= (uint8_t)(1u << (bit % 8));
	}
	assert_true(nvme_tcp_hdgst_ok(pdu, 72));

	/* A 24-byte header (response) works the same way. */
	uint8_t rsp[24 + 4] = { NVME_TCP_RSP, F_HD, 24, 0, 28 };

	nvme_tcp_hdgst_set(rsp, 24);
	assert_int_equal(le32_get(rsp + 24), nvme_tcp_crc32c(rsp, 24));
	assert_true(nvme_tcp_hdgst_ok(rsp, 24));
	rsp[27] ^= 0x80;
	assert_false(nvme_tcp_hdgst_ok(rsp, 24));
}

/* 14. Little-endian helpers. */
static void test_le_helpers(void **state)
{
	uint8_t b[8];

	(void)state;
	le64_put(b, 0x0102030405060708ull);
	assert_int_equal(b[0], 0x08);
	assert_int_equal(b[7], 0x01);
	assert_int_equal(le64_get(b), 0x0102030405060708ull);
	le16_put(b, 0xabcd);
	assert_int_equal(b[0], 0xcd);
	assert_int_equal(le16_get(b), 0xabcd);
	le32_put(b, 0xdeadbeef);
	assert_int_equal(b[0], 0xef);
	assert_int_equal(le32_get(b), 0xdeadbeef);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pdu_hlen),
		cmocka_unit_test(test_hdr_init),
		cmocka_unit_test(test_h2c_valid),
		cmocka_unit_test(test_c2h_valid),
		cmocka_unit_test(test_bad_hlen),
		cmocka_unit_test(test_digest_mismatch),
		cmocka_unit_test(test_bad_plen),
		cmocka_unit_test(test_bad_pdo),
		cmocka_unit_test(test_data_limit),
		cmocka_unit_test(test_bad_type_and_sequence),
		cmocka_unit_test(test_crc32c_vectors),
		cmocka_unit_test(test_crc32c_split),
		cmocka_unit_test(test_hdgst_round_trip),
		cmocka_unit_test(test_le_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
