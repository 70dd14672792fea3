/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Bad input in the data phase and on the byte stream: data digests,
 * H2CData that does not match its R2T, PDUs split and coalesced,
 * connections closed mid-PDU, garbage.
 */
#include "badinput.h"

static void expect_rsp(struct ini_queue *q, uint16_t cid, uint16_t status)
{
	struct ini_raw_pdu p;
	const struct nvme_tcp_rsp *r = (const struct nvme_tcp_rsp *)p.hdr;

	assert_int_equal(ini_raw_recv(q, &p, 5000), 0);
	assert_int_equal(r->hdr.type, NVME_TCP_RSP);
	assert_int_equal(p.data_len, 0);
	assert_int_equal(r->cqe.cid, cid);
	assert_int_equal(INI_SC_CODE(r->cqe.status >> 1), status);
	ini_raw_pdu_free(&p);
}

void test_ddgst_wrong_in_capsule(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, false, true);
	uint8_t data[4096];
	struct nvme_sqe s;
	int len;

	fx_fill_random(data, sizeof(data), &e->seed);
	fx_make_sqe(&s, nvme_cmd_write, 0x100, 1, 10, 1, sizeof(data), true);
	uint8_t *pdu = build_cmd(c->io[0], &s, data, sizeof(data), &len);
	pdu[len - 1] ^= 0x5a; /* inside DDGST */
	assert_int_equal(ini_raw_send(c->io[0], pdu, (size_t)len), 0);
	expect_rsp(c->io[0], 0x100,
		   INI_SC(NVME_SCT_GENERIC, NVME_SC_TRAN_TPORT_ERROR));
	/* The connection carries on. */
	assert_int_equal(fx_rw_check(c->io[0], 1, 10, 4096), 0);
	free(pdu);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

/* Send a 64 KiB write that waits for R2T; return the R2T. */
static void write_until_r2t(struct ini_queue *q, uint16_t cid,
			    struct nvme_tcp_data *r2t)
{
	struct ini_raw_pdu p;
	struct nvme_sqe s;
	int len;

	fx_make_sqe(&s, nvme_cmd_write, cid, 1, 64, 16, 65536, false);
	uint8_t *pdu = build_cmd(q, &s, NULL, 0, &len);
	assert_int_equal(ini_raw_send(q, pdu, (size_t)len), 0);
	free(pdu);
	assert_int_equal(ini_raw_recv(q, &p, 5000), 0);
	memcpy(r2t, p.hdr, sizeof(*r2t));
	assert_int_equal(r2t->hdr.type, NVME_TCP_R2T);
	assert_int_equal(p.data_len, 0);
	assert_int_equal(r2t->cccid, cid);
	assert_int_equal(r2t->datao, 0);
	assert_true(r2t->datal > 0 && r2t->datal <= 65536);
	assert_true(r2t->datal <= ini_queue_icresp(q)->maxh2cdata);
	ini_raw_pdu_free(&p);
}

/* Send one H2CData PDU; @corrupt flips a byte of the data digest. */
static uint8_t *send_h2c(struct ini_queue *q, uint16_t cccid, uint16_t ttag,
			 uint32_t datao, uint32_t datal, bool last,
			 bool corrupt, uint64_t *seed)
{
	uint8_t *data = malloc(datal), *pdu = malloc(datal + 256);
	int len;

	assert_non_null(data);
	assert_non_null(pdu);
	fx_fill_random(data, datal, seed);
	len = ini_pdu_build_h2c(q, cccid, ttag, datao, data, datal, last, pdu,
				datal + 256);
	assert_true(len > 0);
	if (corrupt)
		pdu[len - 2] ^= 0x01;
	assert_int_equal(ini_raw_send(q, pdu, (size_t)len), 0);
	free(data);
	return pdu;
}

void test_ddgst_wrong_h2c(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, false, true);
	struct nvme_tcp_data r2t;
	uint32_t off = 0;

	write_until_r2t(c->io[0], 0x101, &r2t);
	/* Answer every R2T; the first PDU carries a bad digest. */
	for (;;) {
		free(send_h2c(c->io[0], 0x101, r2t.ttag, r2t.datao, r2t.datal,
			      true, off == 0, &e->seed));
		off = r2t.datao + r2t.datal;
		if (off >= 65536)
			break;
		struct ini_raw_pdu p;
		assert_int_equal(ini_raw_recv(c->io[0], &p, 5000), 0);
		memcpy(&r2t, p.hdr, sizeof(r2t));
		ini_raw_pdu_free(&p);
		if (r2t.hdr.type == NVME_TCP_RSP) {
			/* Completed early because of the digest error. */
			const struct nvme_tcp_rsp *r = (const void *)&r2t;
			assert_int_equal(INI_SC_CODE(r->cqe.status >> 1),
					 NVME_SC_TRAN_TPORT_ERROR);
			goto done;
		}
		assert_int_equal(r2t.hdr.type, NVME_TCP_R2T);
	}
	expect_rsp(c->io[0], 0x101,
		   INI_SC(NVME_SCT_GENERIC, NVME_SC_TRAN_TPORT_ERROR));
done:
	assert_int_equal(fx_rw_check(c->io[0], 1, 64, 4096), 0);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

void test_h2c_wrong_ttag(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, false, false);
	struct nvme_tcp_data r2t;

	write_until_r2t(c->io[0], 0x102, &r2t);
	uint8_t *pdu = send_h2c(c->io[0], 0x102, (uint16_t)(r2t.ttag + 1),
				r2t.datao, r2t.datal, true, false, &e->seed);
	expect_term(c->io[0], NVME_TCP_FES_INVALID_PDU_HDR, 10, pdu, 24);
	free(pdu);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

void test_h2c_out_of_range(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, false, false);
	struct nvme_tcp_data r2t;

	write_until_r2t(c->io[0], 0x103, &r2t);
	/* Just past what the R2T asked for. */
	uint8_t *pdu = send_h2c(c->io[0], 0x103, r2t.ttag, r2t.datao + r2t.datal,
				4096, true, false, &e->seed);
	expect_term(c->io[0], NVME_TCP_FES_DATA_OUT_OF_RANGE, ANY_FEI, pdu, 24);
	free(pdu);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

void test_h2c_over_maxh2cdata(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, false, false);
	uint32_t max = ini_queue_icresp(c->io[0])->maxh2cdata;
	struct nvme_tcp_data r2t;

	write_until_r2t(c->io[0], 0x104, &r2t);
	uint8_t *pdu = send_h2c(c->io[0], 0x104, r2t.ttag, r2t.datao, max + 4096,
				true, false, &e->seed);
	expect_term(c->io[0], NVME_TCP_FES_DATA_LIMIT_EXCEEDED, ANY_FEI, pdu, 24);
	free(pdu);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

void test_h2c_without_r2t(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, false, false);

	/* No command 0x105 is outstanding. */
	uint8_t *pdu = send_h2c(c->io[0], 0x105, 0, 0, 4096, true, false,
				&e->seed);
	expect_term2(c->io[0], NVME_TCP_FES_INVALID_PDU_HDR,
		     NVME_TCP_FES_PDU_SEQ_ERR, ANY_FEI, pdu, 24);
	free(pdu);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

/* --- valid but awkward byte streams ------------------------------ */

/* Send @len bytes in pieces of @step (1: byte by byte). */
static void send_pieces(struct ini_queue *q, const uint8_t *b, size_t len,
			size_t step)
{
	for (size_t off = 0; off < len; off += step) {
		size_t n = len - off < step ? len - off : step;
		assert_int_equal(ini_raw_send(q, b + off, n), 0);
	}
}

void test_fragmented_pdus(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, true, true);
	struct ini_queue *q = c->io[0];
	uint8_t *w = malloc(65536), *r = malloc(65536);
	struct nvme_tcp_data r2t;
	struct nvme_sqe s;
	int len;

	assert_non_null(w);
	assert_non_null(r);
	fx_fill_random(w, 65536, &e->seed);
	/* An in-capsule write, the header byte by byte, data in 7s. */
	fx_make_sqe(&s, nvme_cmd_write, 0x400, 1, 300, 2, 8192, true);
	uint8_t *pdu = build_cmd(q, &s, w, 8192, &len);
	send_pieces(q, pdu, 100, 1);
	send_pieces(q, pdu + 100, (size_t)len - 100, 7);
	free(pdu);
	expect_rsp(q, 0x400, 0);
	/* An R2T write answered with 16 H2CData PDUs sent in 13s. */
	fx_make_sqe(&s, nvme_cmd_write, 0x401, 1, 302, 16, 65536, false);
	pdu = build_cmd(q, &s, NULL, 0, &len);
	send_pieces(q, pdu, (size_t)len, 13);
	free(pdu);
	struct ini_raw_pdu p;
	assert_int_equal(ini_raw_recv(q, &p, 5000), 0);
	memcpy(&r2t, p.hdr, sizeof(r2t));
	ini_raw_pdu_free(&p);
	assert_int_equal(r2t.hdr.type, NVME_TCP_R2T);
	assert_int_equal(r2t.datal, 65536);
	pdu = malloc(4096 + 256);
	assert_non_null(pdu);
	for (uint32_t off = 0; off < 65536; off += 4096) {
		len = ini_pdu_build_h2c(q, 0x401, r2t.ttag, off, w + off, 4096,
					off + 4096 == 65536, pdu, 4096 + 256);
		assert_true(len > 0);
		send_pieces(q, pdu, (size_t)len, 13);
	}
	free(pdu);
	expect_rsp(q, 0x401, 0);
	/* Both landed. */
	assert_int_equal(ini_read(q, 1, 300, 2, r, 8192), 0);
	assert_memory_equal(r, w, 8192);
	assert_int_equal(ini_read(q, 1, 302, 16, r, 65536), 0);
	assert_memory_equal(r, w, 65536);
	free(r);
	free(w);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

/* 32 commands in one send; every answer must come back. */
void test_coalesced_pdus(void **state)
{
	enum { N = 32, BS = 4096 };
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, false, false);
	struct ini_queue *q = c->io[0];
	uint8_t *w = malloc(N * BS), *all = malloc(N * (BS + 128));
	uint32_t got[N] = { 0 }, rsps = 0, off = 0;
	struct nvme_sqe s;

	assert_non_null(w);
	assert_non_null(all);
	fx_fill_random(w, N * BS, &e->seed);
	/* Eight in-capsule writes in one go... */
	for (int i = 0; i < 8; i++) {
		fx_make_sqe(&s, nvme_cmd_write, (uint16_t)(0x500 + i), 1,
			    400 + (uint64_t)i * 4, 4, 4 * BS, true);
		int n = ini_pdu_build_cmd(q, &s, w + (size_t)i * 4 * BS, 4 * BS,
					  all + off, N * (BS + 128) - off);
		assert_true(n > 0);
		off += (uint32_t)n;
	}
	assert_int_equal(ini_raw_send(q, all, off), 0);
	for (int i = 0; i < 8; i++) {
		struct ini_raw_pdu p;
		const struct nvme_tcp_rsp *rsp = (const void *)p.hdr;
		assert_int_equal(ini_raw_recv(q, &p, 5000), 0);
		assert_int_equal(rsp->hdr.type, NVME_TCP_RSP);
		assert_int_equal(rsp->cqe.status >> 1, 0);
		assert_true(rsp->cqe.cid >= 0x500 && rsp->cqe.cid < 0x508);
		ini_raw_pdu_free(&p);
	}
	/* ...then 32 one-block reads of them in one go. */
	off = 0;
	for (int i = 0; i < N; i++) {
		fx_make_sqe(&s, nvme_cmd_read, (uint16_t)(0x600 + i), 1,
			    400 + (uint64_t)i, 1, BS, false);
		off += (uint32_t)ini_pdu_build_cmd(q, &s, NULL, 0, all + off, 72);
	}
	assert_int_equal(ini_raw_send(q, all, off), 0);
	while (rsps < N) {
		struct ini_raw_pdu p;
		const struct nvme_tcp_data *d = (const void *)p.hdr;
		assert_int_equal(ini_raw_recv(q, &p, 5000), 0);
		if (d->hdr.type == NVME_TCP_C2H_DATA) {
			int i = d->cccid - 0x600;
			assert_true(i >= 0 && i < N);
			assert_int_equal(d->hdr.pdo, 24);
			assert_int_equal(d->datao, got[i]);
			assert_int_equal(p.data_len, d->datal);
			assert_true(got[i] + d->datal <= BS);
			assert_memory_equal(p.data, w + (size_t)i * BS + got[i],
					    d->datal);
			got[i] += d->datal;
		} else {
			const struct nvme_tcp_rsp *rsp = (const void *)p.hdr;
			assert_int_equal(rsp->hdr.type, NVME_TCP_RSP);
			assert_int_equal(rsp->cqe.status >> 1, 0);
			int i = rsp->cqe.cid - 0x600;
			assert_true(i >= 0 && i < N);
			assert_int_equal(got[i], BS); /* data before the CQE */
			rsps++;
		}
		ini_raw_pdu_free(&p);
	}
	free(all);
	free(w);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

/*
 * Reads of 4 KiB and 128 KiB mixed, all in one send: each CapsuleResp comes
 * after all of its read's data, and no data PDU of another read comes
 * between a large read's data and its CapsuleResp (responses of small reads
 * may be held back behind later data, a large read's may not: tcp_tx.c).
 */
void test_read_rsp_order(void **state)
{
	enum { N = 24, BIG = 131072, SMALL = 4096 };
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, false, false);
	struct ini_queue *q = c->io[0];
	uint8_t *all = malloc(N * 72);
	uint32_t len[N], got[N] = { 0 }, rsps = 0, off = 0;
	int big_waiting = -1; /* a large read whose data is in, its response not */
	struct nvme_sqe s;

	assert_non_null(all);
	for (int i = 0; i < N; i++) {
		len[i] = i % 3 == 0 ? BIG : SMALL;
		fx_make_sqe(&s, nvme_cmd_read, (uint16_t)(0x700 + i), 1,
			    (uint64_t)i * (BIG / 4096), len[i] / 4096, len[i], false);
		off += (uint32_t)ini_pdu_build_cmd(q, &s, NULL, 0, all + off, 72);
	}
	assert_int_equal(ini_raw_send(q, all, off), 0);
	while (rsps < N) {
		struct ini_raw_pdu p;
		const struct nvme_tcp_data *d = (const void *)p.hdr;
		int i;

		assert_int_equal(ini_raw_recv(q, &p, 5000), 0);
		if (d->hdr.type == NVME_TCP_C2H_DATA) {
			i = d->cccid - 0x700;
			assert_true(i >= 0 && i < N);
			/* Not another read's data while a large one's response is due. */
			assert_true(big_waiting < 0 || big_waiting == i);
			assert_int_equal(d->datao, got[i]);
			assert_int_equal(p.data_len, d->datal);
			got[i] += d->datal;
			assert_true(got[i] <= len[i]);
			if (got[i] == len[i] && len[i] == BIG)
				big_waiting = i;
		} else {
			const struct nvme_tcp_rsp *rsp = (const void *)p.hdr;

			assert_int_equal(rsp->hdr.type, NVME_TCP_RSP);
			assert_int_equal(rsp->cqe.status >> 1, 0);
			i = rsp->cqe.cid - 0x700;
			assert_true(i >= 0 && i < N);
			assert_int_equal(got[i], len[i]); /* data before the CQE */
			if (i == big_waiting)
				big_waiting = -1;
			rsps++;
		}
		ini_raw_pdu_free(&p);
	}
	assert_int_equal(big_waiting, -1);
	free(all);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

/* --- broken connections -------------------------------------------- */

void test_close_mid_pdu(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q;
	struct ini_ctrl *c;
	struct nvme_tcp_data r2t;
	uint8_t data[8192] = { 0 };
	struct nvme_sqe s;
	int len;

	/* Half a CapsuleCmd header. */
	q = ic_queue(e, false, false);
	fx_make_sqe(&s, nvme_admin_keep_alive, 1, 0, 0, 1, 0, false);
	uint8_t *pdu = build_cmd(q, &s, NULL, 0, &len);
	assert_int_equal(ini_raw_send(q, pdu, 40), 0);
	free(pdu);
	ini_queue_destroy(q);
	check_daemon(e);

	/* A write's in-capsule data cut short, on a live controller. */
	c = ctrl_up(e, false, false);
	fx_make_sqe(&s, nvme_cmd_write, 0x200, 1, 0, 2, sizeof(data), true);
	pdu = build_cmd(c->io[0], &s, data, sizeof(data), &len);
	assert_int_equal(ini_raw_send(c->io[0], pdu, (size_t)len / 2), 0);
	free(pdu);
	ini_ctrl_destroy(c);
	check_daemon(e);

	/* H2CData cut short after an R2T. */
	c = ctrl_up(e, false, false);
	write_until_r2t(c->io[0], 0x201, &r2t);
	pdu = malloc(r2t.datal + 256);
	assert_non_null(pdu);
	uint8_t *payload = calloc(1, r2t.datal);
	assert_non_null(payload);
	len = ini_pdu_build_h2c(c->io[0], 0x201, r2t.ttag, 0, payload, r2t.datal,
				true, pdu, r2t.datal + 256);
	assert_int_equal(ini_raw_send(c->io[0], pdu, (size_t)len - 100), 0);
	free(payload);
	free(pdu);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

void test_truncated_header_close(void **state)
{
	struct fx_env *e = *state;
	struct nvme_tcp_icreq r;
	struct ini_queue *q;

	icreq_bytes(&r);
	q = bare_queue(e);
	assert_int_equal(ini_raw_send(q, &r, 5), 0);
	ini_queue_destroy(q);
	check_daemon(e);

	q = ic_queue(e, false, false);
	assert_int_equal(ini_raw_send(q, "\x04\x00\x48", 3), 0);
	ini_queue_destroy(q);
	check_daemon(e);

	/* Connect and close at once, several times, with no bytes at all. */
	for (int i = 0; i < 20; i++)
		ini_queue_destroy(bare_queue(e));
	check_daemon(e);
}

void test_garbage(void **state)
{
	struct fx_env *e = *state;
	uint8_t junk[512];
	struct ini_queue *q;

	/* Instead of an ICReq. */
	for (int i = 0; i < 10; i++) {
		fx_fill_random(junk, sizeof(junk), &e->seed);
		junk[0] = (uint8_t)(0x10 + i); /* never a valid PDU type */
		q = bare_queue(e);
		assert_int_equal(ini_raw_send(q, junk, sizeof(junk)), 0);
		expect_closed(q);
		ini_queue_destroy(q);
	}
	check_daemon(e);

	/* After a good ICReq. */
	for (int i = 0; i < 10; i++) {
		fx_fill_random(junk, sizeof(junk), &e->seed);
		junk[0] = (uint8_t)(0x10 + i);
		q = ic_queue(e, i & 1, i & 2);
		assert_int_equal(ini_raw_send(q, junk, sizeof(junk)), 0);
		expect_closed(q);
		ini_queue_destroy(q);
	}
	check_daemon(e);
}
