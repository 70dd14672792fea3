/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_badinput share: queues and controllers on the
 * fixture's bloxd, raw command PDUs, and the checks that a connection was
 * terminated (C2HTermReq) or closed; the tests each file holds
 * (test_badinput.c runs them all).
 */
#ifndef BLOX_TEST_BADINPUT_H
#define BLOX_TEST_BADINPUT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:bad"
#define NS_BLOCKS (16u << 20 >> 12)
#define ANY_FEI (-1)

/* ---- helpers (test_badinput.c) ---- */

/* The daemon is alive and a new controller does I/O. */
void check_daemon(struct fx_env *e);
/* A connection after ICResp, not Connected. */
struct ini_queue *ic_queue(struct fx_env *e, bool hdgst, bool ddgst);
/* A controller with one I/O queue, with the given digests. */
struct ini_ctrl *ctrl_up(struct fx_env *e, bool hdgst, bool ddgst);
/*
 * The next PDU is a C2HTermReq with @fes (and @fei unless ANY_FEI; @fes2
 * is an accepted alternative if not 0) echoing the start of @sent, and
 * then the target closes the connection.
 */
void expect_term2(struct ini_queue *q, uint16_t fes, uint16_t fes2,
		  int64_t fei, const void *sent, size_t sent_len);
/* expect_term2() with no alternative FES. */
void expect_term(struct ini_queue *q, uint16_t fes, int64_t fei,
		 const void *sent, size_t sent_len);
/* Garbage: the target closes; anything it says first is a C2HTermReq. */
void expect_closed(struct ini_queue *q);
/* A command capsule PDU of @s (with in-capsule @data); malloc'd, *@len bytes. */
uint8_t *build_cmd(struct ini_queue *q, const struct nvme_sqe *s,
		   const void *data, uint32_t dlen, int *len);
/* A valid ICReq, to spoil. */
void icreq_bytes(struct nvme_tcp_icreq *r);
/* A TCP connection to the NVM port, no ICReq sent yet. */
struct ini_queue *bare_queue(struct fx_env *e);

/* ---- the tests of badinput_data.c ---- */

void test_ddgst_wrong_in_capsule(void **state);
void test_ddgst_wrong_h2c(void **state);
void test_h2c_wrong_ttag(void **state);
void test_h2c_out_of_range(void **state);
void test_h2c_over_maxh2cdata(void **state);
void test_h2c_without_r2t(void **state);
void test_fragmented_pdus(void **state);
void test_coalesced_pdus(void **state);
void test_read_rsp_order(void **state);
void test_close_mid_pdu(void **state);
void test_truncated_header_close(void **state);
void test_garbage(void **state);

#endif
