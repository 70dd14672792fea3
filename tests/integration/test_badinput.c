/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of bloxd against bad input: malformed PDU headers,
 * PDUs out of sequence, bad ICReq fields, header and data digest errors,
 * H2CData that does not match its R2T, connections closed mid-PDU and
 * plain garbage (NVMe command errors are in test_badcmd.c). Each case checks the
 * C2HTermReq (type, FES, FEI, the echoed header) and that the connection
 * is closed, or the command's NVMe status; after each case a fresh
 * controller must still do I/O (the daemon carries on).
 *
 * This file: the helpers, PDU headers, header digests, ICReq; main().
 * badinput_data.c: data digests, H2CData against its R2T, fragmented and
 * coalesced PDUs, connections closed mid-PDU, garbage.
 */
#include "badinput.h"

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096} ] } ]";

void check_daemon(struct fx_env *e)
{
	assert_int_equal(fx_check_daemon(&e->d, SUBNQN, NS_BLOCKS, &e->seed), 0);
}

struct ini_queue *ic_queue(struct fx_env *e, bool hdgst, bool ddgst)
{
	struct ini_queue *q = NULL;
	struct ini_opts o;

	ini_opts_init(&o);
	o.hdgst = hdgst;
	o.ddgst = ddgst;
	assert_int_equal(ini_queue_connect(FX_ADDR, e->d.nvm_port, &o, &q), 0);
	return q;
}

struct ini_ctrl *ctrl_up(struct fx_env *e, bool hdgst, bool ddgst)
{
	struct ini_ctrl *c = NULL;
	struct ini_opts o;

	ini_opts_init(&o);
	o.hdgst = hdgst;
	o.ddgst = ddgst;
	assert_int_equal(fx_ctrl(&e->d, SUBNQN, NULL, 1, &o, &c), 0);
	return c;
}

void expect_term2(struct ini_queue *q, uint16_t fes, uint16_t fes2,
		  int64_t fei, const void *sent, size_t sent_len)
{
	struct ini_raw_pdu p;
	const struct nvme_tcp_term *t = (const struct nvme_tcp_term *)p.hdr;
	size_t n;

	assert_int_equal(ini_raw_recv(q, &p, 5000), 0);
	assert_int_equal(t->hdr.type, NVME_TCP_C2H_TERM);
	assert_int_equal(t->hdr.hlen, sizeof(struct nvme_tcp_term));
	assert_int_equal(t->hdr.flags, 0);
	assert_int_equal(t->hdr.pdo, 0);
	assert_true(p.data_len <= NVME_TCP_TERM_MAX_DATA);
	if (t->fes != fes && (!fes2 || t->fes != fes2))
		fail_msg("C2HTermReq FES %u, want %u%s", t->fes, fes,
			 fes2 ? " (or the alternative)" : "");
	if (fei != ANY_FEI)
		assert_int_equal(le32_get(t->fei), (uint32_t)fei);
	/* The data is the header of the offending PDU. */
	assert_true(p.data_len >= sizeof(struct nvme_tcp_hdr));
	n = p.data_len < sent_len ? p.data_len : sent_len;
	assert_memory_equal(p.data, sent, n);
	ini_raw_pdu_free(&p);
	assert_int_equal(ini_wait_closed(q, 5000), 0);
}

void expect_term(struct ini_queue *q, uint16_t fes, int64_t fei,
		 const void *sent, size_t sent_len)
{
	expect_term2(q, fes, 0, fei, sent, sent_len);
}

void expect_closed(struct ini_queue *q)
{
	struct ini_raw_pdu p;
	int rc = ini_raw_recv(q, &p, 5000);

	if (rc == 0) {
		assert_int_equal(p.hdr[0], NVME_TCP_C2H_TERM);
		ini_raw_pdu_free(&p);
		assert_int_equal(ini_wait_closed(q, 5000), 0);
	} else {
		assert_int_equal(rc, -ECONNRESET);
	}
}

uint8_t *build_cmd(struct ini_queue *q, const struct nvme_sqe *s,
		   const void *data, uint32_t dlen, int *len)
{
	size_t cap = 256 + dlen + 8;
	uint8_t *pdu = malloc(cap);

	assert_non_null(pdu);
	*len = ini_pdu_build_cmd(q, s, data, dlen, pdu, cap);
	assert_true(*len > 0);
	return pdu;
}

/* --- header errors ------------------------------------------------- */

static void test_wrong_hlen(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = ic_queue(e, false, false);
	struct nvme_sqe s;
	int len;

	fx_make_sqe(&s, nvme_admin_keep_alive, 1, 0, 0, 1, 0, false);
	uint8_t *pdu = build_cmd(q, &s, NULL, 0, &len);
	pdu[2] = 64; /* HLEN of a CapsuleCmd is 72 */
	assert_int_equal(ini_raw_send(q, pdu, (size_t)len), 0);
	expect_term(q, NVME_TCP_FES_INVALID_PDU_HDR, 2, pdu, 8);
	free(pdu);
	ini_queue_destroy(q);
	check_daemon(e);
}

static void test_plen_too_small(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = ic_queue(e, false, false);
	struct nvme_sqe s;
	int len;

	fx_make_sqe(&s, nvme_admin_keep_alive, 1, 0, 0, 1, 0, false);
	uint8_t *pdu = build_cmd(q, &s, NULL, 0, &len);
	le32_put(pdu + 4, 40); /* PLEN below HLEN */
	assert_int_equal(ini_raw_send(q, pdu, (size_t)len), 0);
	expect_term(q, NVME_TCP_FES_INVALID_PDU_HDR, 4, pdu, 8);
	free(pdu);
	ini_queue_destroy(q);
	check_daemon(e);
}

static void test_unknown_pdu_type(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = ic_queue(e, false, false);
	uint8_t pdu[24] = { 0x0b, 0, 24, 0, 24, 0, 0, 0 };

	assert_int_equal(ini_raw_send(q, pdu, sizeof(pdu)), 0);
	expect_term(q, NVME_TCP_FES_INVALID_PDU_HDR, 0, pdu, sizeof(pdu));
	ini_queue_destroy(q);
	check_daemon(e);
}

static void test_c2h_type_from_host(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = ic_queue(e, false, false);
	uint8_t pdu[24] = { NVME_TCP_C2H_DATA, 0, 24, 0, 24, 0, 0, 0 };

	assert_int_equal(ini_raw_send(q, pdu, sizeof(pdu)), 0);
	expect_term(q, NVME_TCP_FES_INVALID_PDU_HDR, 0, pdu, sizeof(pdu));
	ini_queue_destroy(q);
	check_daemon(e);
}

static void test_hdgst_wrong(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = ic_queue(e, true, false);
	struct nvme_sqe s;
	int len;

	fx_make_sqe(&s, nvme_admin_keep_alive, 1, 0, 0, 1, 0, false);
	uint8_t *pdu = build_cmd(q, &s, NULL, 0, &len);
	assert_int_equal(len, 72 + 4);
	pdu[73] ^= 0xff; /* inside HDGST */
	assert_int_equal(ini_raw_send(q, pdu, (size_t)len), 0);
	expect_term(q, NVME_TCP_FES_HDR_DIGEST_ERR, ANY_FEI, pdu, 72);
	free(pdu);
	ini_queue_destroy(q);
	check_daemon(e);
}

static void test_hdgst_flag_missing(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = ic_queue(e, true, false);
	struct nvme_sqe s;
	uint8_t pdu[72];
	int len;

	/* Header digests were negotiated; this PDU claims none. */
	fx_make_sqe(&s, nvme_admin_keep_alive, 1, 0, 0, 1, 0, false);
	uint8_t *full = build_cmd(q, &s, NULL, 0, &len);
	memcpy(pdu, full, sizeof(pdu));
	pdu[1] = 0;
	le32_put(pdu + 4, 72);
	assert_int_equal(ini_raw_send(q, pdu, sizeof(pdu)), 0);
	expect_term(q, NVME_TCP_FES_INVALID_PDU_HDR, 1, pdu, 8);
	free(full);
	ini_queue_destroy(q);
	check_daemon(e);
}

/* --- ICReq --------------------------------------------------------- */

void icreq_bytes(struct nvme_tcp_icreq *r)
{
	memset(r, 0, sizeof(*r));
	nvme_tcp_hdr_init(&r->hdr, NVME_TCP_ICREQ, 0, 128, 0, 128);
}

struct ini_queue *bare_queue(struct fx_env *e)
{
	struct ini_queue *q = NULL;

	assert_int_equal(ini_queue_open(FX_ADDR, e->d.nvm_port, NULL, &q), 0);
	return q;
}

static void test_icreq_twice(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = ic_queue(e, false, false);
	struct nvme_tcp_icreq r;

	icreq_bytes(&r);
	assert_int_equal(ini_raw_send(q, &r, sizeof(r)), 0);
	expect_term(q, NVME_TCP_FES_PDU_SEQ_ERR, ANY_FEI, &r, 8);
	ini_queue_destroy(q);
	check_daemon(e);
}

static void test_icreq_bad_fields(void **state)
{
	struct fx_env *e = *state;
	struct nvme_tcp_icreq r;
	struct ini_queue *q;

	/* PFV 1 does not exist: unsupported value of the PFV field. */
	q = bare_queue(e);
	icreq_bytes(&r);
	r.pfv = 1;
	assert_int_equal(ini_raw_send(q, &r, sizeof(r)), 0);
	expect_term2(q, NVME_TCP_FES_UNSUPPORTED_PARAM,
		     NVME_TCP_FES_INVALID_PDU_HDR, 8, &r, 8);
	ini_queue_destroy(q);
	check_daemon(e);

	/* HPDA is at most 31. */
	q = bare_queue(e);
	icreq_bytes(&r);
	r.hpda = 32;
	assert_int_equal(ini_raw_send(q, &r, sizeof(r)), 0);
	expect_term2(q, NVME_TCP_FES_UNSUPPORTED_PARAM,
		     NVME_TCP_FES_INVALID_PDU_HDR, 10, &r, 8);
	ini_queue_destroy(q);
	check_daemon(e);

	/* An ICReq with the wrong HLEN. */
	q = bare_queue(e);
	icreq_bytes(&r);
	r.hdr.hlen = 120;
	r.hdr.plen = 120;
	assert_int_equal(ini_raw_send(q, &r, 120), 0);
	expect_term(q, NVME_TCP_FES_INVALID_PDU_HDR, 2, &r, 8);
	ini_queue_destroy(q);
	check_daemon(e);
}

static void test_cmd_before_icreq(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = bare_queue(e);
	uint8_t pdu[72] = { NVME_TCP_CMD, 0, 72, 0, 72, 0, 0, 0,
			    nvme_admin_keep_alive };

	assert_int_equal(ini_raw_send(q, pdu, sizeof(pdu)), 0);
	expect_term2(q, NVME_TCP_FES_PDU_SEQ_ERR, NVME_TCP_FES_INVALID_PDU_HDR,
		     ANY_FEI, pdu, 8);
	ini_queue_destroy(q);
	check_daemon(e);
}

/* --- data digests and H2CData ------------------------------------- */

int main(void)
{
	static const struct fx_group g = { .who = "test_badinput",
					   .subsystems = subsystems };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrong_hlen),
		cmocka_unit_test(test_plen_too_small),
		cmocka_unit_test(test_unknown_pdu_type),
		cmocka_unit_test(test_c2h_type_from_host),
		cmocka_unit_test(test_hdgst_wrong),
		cmocka_unit_test(test_hdgst_flag_missing),
		cmocka_unit_test(test_icreq_twice),
		cmocka_unit_test(test_icreq_bad_fields),
		cmocka_unit_test(test_cmd_before_icreq),
		cmocka_unit_test(test_ddgst_wrong_in_capsule),
		cmocka_unit_test(test_ddgst_wrong_h2c),
		cmocka_unit_test(test_h2c_wrong_ttag),
		cmocka_unit_test(test_h2c_out_of_range),
		cmocka_unit_test(test_h2c_over_maxh2cdata),
		cmocka_unit_test(test_h2c_without_r2t),
		cmocka_unit_test(test_fragmented_pdus),
		cmocka_unit_test(test_coalesced_pdus),
		cmocka_unit_test(test_read_rsp_order),
		cmocka_unit_test(test_close_mid_pdu),
		cmocka_unit_test(test_truncated_header_close),
		cmocka_unit_test(test_garbage),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};
	return FX_MAIN(&g, tests);
}
