/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of bloxd against bad NVMe commands and rough host
 * behaviour: invalid opcodes, LBAs out of range, transfers above MDTS or
 * not matching NLB, unknown namespaces, invalid fields in admin commands,
 * too much in-capsule data, the AER limit, connections dropped with
 * commands in flight and many idle connections. After each case a fresh
 * controller must still do I/O; at the end the daemon must exit 0 (so
 * nothing leaked under ASan).
 */
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

#define SUBNQN "nqn.2026-12.io.blox:badcmd"
#define NS_BLOCKS (16u << 20 >> 12)

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096} ] } ]";

static void check_daemon(struct fx_env *e)
{
	assert_int_equal(fx_check_daemon(&e->d, SUBNQN, NS_BLOCKS, &e->seed), 0);
}

static struct ini_ctrl *ctrl_up(struct fx_env *e, uint32_t nr_io)
{
	struct ini_ctrl *c = NULL;

	assert_int_equal(fx_ctrl(&e->d, SUBNQN, NULL, nr_io, NULL, &c), 0);
	return c;
}

static void ctrl_down(struct ini_ctrl *c)
{
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

/* --- NVMe command errors ------------------------------------------ */

static int run_cmd(struct ini_queue *q, uint8_t opcode, uint32_t nsid,
		   uint64_t slba, uint32_t nlb, void *buf, uint32_t len,
		   unsigned flags)
{
	struct ini_req r;

	ini_req_rw(&r, opcode, nsid, slba, nlb, buf, len);
	r.flags = flags;
	assert_int_equal(ini_exec(q, &r), 0);
	return INI_SC_CODE(ini_status(&r.cqe));
}

static void test_invalid_opcode(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1);

	assert_int_equal(run_cmd(c->io[0], 0x18, 1, 0, 1, NULL, 0, 0),
			 NVME_SC_INVALID_OPCODE);
	assert_int_equal(run_cmd(c->io[0], 0x7c, 1, 0, 1, NULL, 0, 0),
			 NVME_SC_INVALID_OPCODE);
	/* Admin: 03h is reserved, and PCIe queue creation does not exist. */
	assert_int_equal(run_cmd(c->admin, 0x03, 0, 0, 1, NULL, 0, 0),
			 NVME_SC_INVALID_OPCODE);
	assert_int_equal(run_cmd(c->admin, nvme_admin_create_sq, 0, 0, 1, NULL,
				 0, 0),
			 NVME_SC_INVALID_OPCODE);
	assert_int_equal(fx_rw_check(c->io[0], 1, 1, 4096), 0);
	ctrl_down(c);
	check_daemon(e);
}

static void test_lba_out_of_range(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1);
	uint8_t *buf = calloc(1, 65536);

	assert_non_null(buf);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_read, 1, NS_BLOCKS - 1, 2,
				 buf, 8192, 0),
			 NVME_SC_LBA_RANGE);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_write, 1, NS_BLOCKS, 1, buf,
				 4096, 0),
			 NVME_SC_LBA_RANGE);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_write, 1, NS_BLOCKS - 8, 16,
				 buf, 65536, INI_REQ_NO_INLINE),
			 NVME_SC_LBA_RANGE);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_write_zeroes, 1,
				 NS_BLOCKS - 1, 2, NULL, 0, 0),
			 NVME_SC_LBA_RANGE);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_read, 1, ~0ull - 1, 4, buf,
				 16384, 0),
			 NVME_SC_LBA_RANGE);
	/* The last block itself is fine. */
	assert_int_equal(fx_rw_check(c->io[0], 1, NS_BLOCKS - 1, 4096), 0);
	free(buf);
	ctrl_down(c);
	check_daemon(e);
}

static void test_bad_transfer_size(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1);
	uint8_t *buf = calloc(1, 16 << 20);

	assert_non_null(buf);
	/* Above MDTS (the default, 8 MiB). */
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_read, 1, 0, 4096, buf, 16 << 20,
				 0),
			 NVME_SC_INVALID_FIELD);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_write, 1, 0, 4096, buf, 16 << 20,
				 INI_REQ_NO_INLINE),
			 NVME_SC_INVALID_FIELD);
	/* The SGL describes less than NLB blocks. */
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_read, 1, 0, 2, buf, 4096, 0),
			 NVME_SC_SGL_INVALID_DATA);
	/* Far above MDTS and above the buffer pool: refused, nothing fetched. */
	{
		uint8_t *big = calloc(1, 64u << 20);

		assert_non_null(big);
		assert_int_equal(run_cmd(c->io[0], nvme_cmd_write, 1, 0, 4096, big,
					 64u << 20, INI_REQ_NO_INLINE),
				 NVME_SC_INVALID_FIELD);
		assert_int_equal(run_cmd(c->io[0], nvme_cmd_read, 1, 0, 4096, big,
					 64u << 20, 0),
				 NVME_SC_INVALID_FIELD);
		free(big);
	}
	/* A Write that describes no data: no R2T for nothing, an SGL error. */
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_write, 1, 0, 1, NULL, 0, 0),
			 NVME_SC_SGL_INVALID_DATA);
	/* MDTS exactly is fine. */
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_read, 1, 0, 2048, buf, 8 << 20,
				 0),
			 0);
	free(buf);
	ctrl_down(c);
	check_daemon(e);
}

static void test_unknown_nsid(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1);
	uint8_t *buf = calloc(1, 65536);

	assert_non_null(buf);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_read, 99, 0, 1, buf, 4096, 0),
			 NVME_SC_INVALID_NS);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_read, 0, 0, 1, buf, 4096, 0),
			 NVME_SC_INVALID_NS);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_write, 99, 0, 1, buf, 4096,
				 0),
			 NVME_SC_INVALID_NS);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_write, 99, 0, 16, buf, 65536,
				 INI_REQ_NO_INLINE),
			 NVME_SC_INVALID_NS);
	assert_int_equal(run_cmd(c->io[0], nvme_cmd_flush, 99, 0, 1, NULL, 0, 0),
			 NVME_SC_INVALID_NS);
	free(buf);
	assert_int_equal(fx_rw_check(c->io[0], 1, 2, 4096), 0);
	ctrl_down(c);
	check_daemon(e);
}

/* Admin commands with reserved or invalid field values. */
static void test_invalid_admin_fields(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1);
	uint8_t *buf = calloc(1, 4096);
	struct ini_req r;
	uint32_t res;

	assert_non_null(buf);
	assert_int_equal(INI_SC_CODE(ini_identify(c->admin, 0xff, 0, 0, buf)),
			 NVME_SC_INVALID_FIELD);
	/* A reserved log page identifier. */
	assert_int_equal(INI_SC_CODE(ini_get_log(c->admin, 0x30, 0xffffffff, 0,
						 buf, 512)),
			 INI_SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_INVALID_LOG_PAGE));
	/* The log page offset must be dword aligned. */
	assert_int_equal(INI_SC_CODE(ini_get_log(c->admin, NVME_LOG_LID_SMART,
						 0xffffffff, 2, buf, 512)),
			 NVME_SC_INVALID_FIELD);
	/* 65535 queues is not a valid request. */
	assert_int_equal(INI_SC_CODE(ini_set_features(c->admin,
						      NVME_FEAT_FID_NUM_QUEUES,
						      0xffff, &res)),
			 NVME_SC_INVALID_FIELD);
	/* Nothing is saveable. */
	ini_req_init(&r, nvme_admin_set_features, 0, NULL, 0, INI_DIR_NONE);
	r.sqe.cdw10 = NVME_FEAT_FID_ARBITRATION | 1u << 31;
	assert_int_equal(ini_exec(c->admin, &r), 0);
	assert_int_equal(INI_SC_CODE(ini_status(&r.cqe)),
			 INI_SC(NVME_SCT_CMD_SPECIFIC,
				NVME_SC_FEATURE_NOT_SAVEABLE));
	/* SEL 4..7 are reserved. */
	assert_int_equal(INI_SC_CODE(ini_get_features(c->admin,
						      NVME_FEAT_FID_ARBITRATION,
						      4, &res)),
			 NVME_SC_INVALID_FIELD);
	free(buf);
	ctrl_down(c);
	check_daemon(e);
}

/*
 * In-capsule data beyond IOCCSZ (16 KiB): the target either fails the
 * command (and the queue carries on) or ends the connection with a
 * C2HTermReq; it must not take the data nor hang.
 */
static void test_in_capsule_too_big(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1);
	const uint32_t len = 32768;
	uint8_t *data = calloc(1, len), *pdu = malloc(len + 256);
	struct ini_raw_pdu p;
	struct nvme_sqe s;
	int n;

	assert_non_null(data);
	assert_non_null(pdu);
	fx_make_sqe(&s, nvme_cmd_write, 0x300, 1, 0, 8, len, true);
	n = ini_pdu_build_cmd(c->io[0], &s, data, len, pdu, len + 256);
	assert_true(n > 0);
	assert_int_equal(ini_raw_send(c->io[0], pdu, (size_t)n), 0);
	assert_int_equal(ini_raw_recv(c->io[0], &p, 5000), 0);
	if (p.hdr[0] == NVME_TCP_RSP) {
		const struct nvme_tcp_rsp *rsp = (const void *)p.hdr;
		fprintf(stderr, "in-capsule 32 KiB: status 0x%x\n",
			rsp->cqe.status >> 1);
		assert_int_equal(rsp->cqe.cid, 0x300);
		assert_int_not_equal(rsp->cqe.status >> 1, 0);
		assert_int_equal(fx_rw_check(c->io[0], 1, 0, 4096), 0);
	} else {
		assert_int_equal(p.hdr[0], NVME_TCP_C2H_TERM);
		assert_int_equal(ini_wait_closed(c->io[0], 5000), 0);
	}
	ini_raw_pdu_free(&p);
	free(pdu);
	free(data);
	ini_ctrl_destroy(c);
	check_daemon(e);
}

/* AERs stay outstanding; one more than AERL+1 is refused. */
static void test_aer_limit_and_teardown(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1);
	uint32_t n = c->id.aerl + 1u;
	struct ini_req *aer = calloc(n + 1, sizeof(*aer));

	assert_non_null(aer);
	assert_true(n <= 16);
	for (uint32_t i = 0; i <= n; i++) {
		ini_req_init(&aer[i], nvme_admin_async_event, 0, NULL, 0,
			     INI_DIR_NONE);
		assert_int_equal(ini_submit(c->admin, &aer[i]), 0);
	}
	assert_int_equal(ini_wait(c->admin, &aer[n]), 0);
	assert_int_equal(INI_SC_CODE(ini_status(&aer[n].cqe)),
			 INI_SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_ASYNC_LIMIT));
	for (uint32_t i = 0; i < n; i++)
		assert_false(aer[i].done);
	/* Other admin commands still complete meanwhile. */
	assert_int_equal(ini_keep_alive(c->admin), 0);
	assert_int_equal(fx_rw_check(c->io[0], 1, 11, 4096), 0);
	/* Tear down with the AERs outstanding (the daemon must free them). */
	ini_ctrl_destroy(c);
	free(aer);
	check_daemon(e);
}

/* Hosts that vanish with reads, R2T writes and in-capsule writes queued. */
static void test_close_with_inflight(void **state)
{
	enum { NR = 32, NW = 16, NI = 8 };
	struct fx_env *e = *state;
	struct ini_req *reqs = calloc(NR + NW + NI, sizeof(*reqs));
	uint8_t *buf = calloc(1, 131072);

	assert_non_null(reqs);
	assert_non_null(buf);
	for (int round = 0; round < 5; round++) {
		struct ini_ctrl *c = ctrl_up(e, 2);
		int k = 0;

		for (int i = 0; i < NR; i++, k++) {
			ini_req_rw(&reqs[k], nvme_cmd_read, 1, (uint64_t)i * 32,
				   32, buf, 131072);
			assert_int_equal(ini_submit(c->io[0], &reqs[k]), 0);
		}
		for (int i = 0; i < NW; i++, k++) {
			ini_req_rw(&reqs[k], nvme_cmd_write, 1, (uint64_t)i * 16,
				   16, buf, 65536);
			assert_int_equal(ini_submit(c->io[1], &reqs[k]), 0);
		}
		for (int i = 0; i < NI; i++, k++) {
			ini_req_rw(&reqs[k], nvme_cmd_write, 1, 2048 + (uint64_t)i,
				   1, buf, 4096);
			assert_int_equal(ini_submit(c->io[1], &reqs[k]), 0);
		}
		/* Drop the admin queue first on odd rounds. */
		if (round & 1)
			ini_raw_shutdown(c->admin);
		ini_ctrl_destroy(c);
		check_daemon(e);
	}
	free(buf);
	free(reqs);
}

/* Many connections that never speak, and some that stop after ICResp. */
static void test_many_idle_connections(void **state)
{
	enum { NBARE = 200, NIC = 50 };
	struct fx_env *e = *state;
	struct ini_queue **q = calloc(NBARE + NIC, sizeof(*q));

	assert_non_null(q);
	for (int i = 0; i < NBARE; i++)
		assert_int_equal(ini_queue_open(FX_ADDR, e->d.nvm_port, NULL, &q[i]),
				 0);
	for (int i = NBARE; i < NBARE + NIC; i++)
		assert_int_equal(ini_queue_connect(FX_ADDR, e->d.nvm_port, NULL,
						   &q[i]),
				 0);
	check_daemon(e);
	for (int i = 0; i < NBARE + NIC; i++)
		ini_queue_destroy(q[i]);
	free(q);
	check_daemon(e);
}

int main(void)
{
	/* Two reactors: the I/O queue (qid 1) lives on reactor 1, the core on 0. */
	static const char *const args[] = { "--reactors", "2", NULL };
	static const struct fx_group g = { .who = "test_badcmd",
					   .subsystems = subsystems,
					   .extra_args = args };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invalid_opcode),
		cmocka_unit_test(test_lba_out_of_range),
		cmocka_unit_test(test_bad_transfer_size),
		cmocka_unit_test(test_unknown_nsid),
		cmocka_unit_test(test_invalid_admin_fields),
		cmocka_unit_test(test_in_capsule_too_big),
		cmocka_unit_test(test_aer_limit_and_teardown),
		cmocka_unit_test(test_close_with_inflight),
		cmocka_unit_test(test_many_idle_connections),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};
	return FX_MAIN(&g, tests);
}
