/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the fabrics command set and command sequencing in the
 * target core (fabrics.c, core.c): Connect of admin and I/O queues with
 * every rejection and its Connect Invalid Parameters result, commands
 * before Connect or before CC.EN, Disconnect, SQHD and FUSE checks.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_nvmf.h"

/* Connect Invalid Parameters result: IPO in bits 15:0, IATTR (1: the
 * offset is in the Connect data, 0: in the SQE) in bit 16.
 */
#define IPO_DATA(ofs) (1ull << 16 | (uint64_t)(ofs))
#define IPO_SQE(ofs) ((uint64_t)(ofs))

struct fixture {
	struct fake_tgt ft;
	struct nvmf_subsys *subsys;
};

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);

	f->subsys = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	fake_ns(&f->ft, f->subsys, 1, "ram", 1 << 20, 512);
	*state = f;
	return 0;
}

static struct fake_connect_args admin_args(void)
{
	return (struct fake_connect_args){ .qid = 0, .sqsize = 31,
					   .cntlid = 0xffff, .kato = 0,
					   .subnqn = FAKE_SUBNQN,
					   .hostnqn = FAKE_HOSTNQN };
}

/* A simple admin command (Keep Alive) on @q; its status. */
static uint16_t keep_alive(struct fake_tgt *ft, struct fake_q *q)
{
	struct fake_cmd *c = fake_cmd_new(ft);

	fake_prep(ft, c, nvme_admin_keep_alive, 0);
	return fake_exec(ft, q, c);
}

/* 1. Admin Connect: queue installed, cntlid returned, ids increase. */
static void test_connect_admin(void **state)
{
	struct fixture *f = *state;
	struct fake_connect_args a = admin_args();
	uint8_t hostid[16] = { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4,
			       5, 6, 7, 8, 9, 10, 11, 12 };
	uint64_t res;

	memcpy(a.hostid, hostid, 16);
	a.kato = 15000;
	for (uint16_t i = 1; i <= 3; i++) {
		struct fake_q *q = fake_q_new(&f->ft);

		res = 0;
		assert_int_equal(fake_connect(&f->ft, q, &a, &res), 0);
		assert_int_equal(res, i);
		assert_int_equal(q->installs, 1);
		assert_int_equal(q->installed_size, 32);
		assert_int_equal(q->sq.size, 32);
		assert_int_equal(q->sq.qid, 0);
		assert_non_null(q->sq.ctrl);
		assert_int_equal(q->sq.ctrl->cntlid, i);
		assert_string_equal(q->sq.ctrl->hostnqn, FAKE_HOSTNQN);
		assert_memory_equal(q->sq.ctrl->hostid, hostid, 16);
		assert_int_equal(q->sq.ctrl->kato_ms, 15000);
		assert_ptr_equal(q->sq.ctrl->subsys, f->subsys);
		assert_false(nvmf_ctrl_ready(q->sq.ctrl)); /* CC.EN still 0 */
	}
	assert_int_equal(f->ft.tgt.stats.ctrls_created, 3);
}

/* 2. Unknown subsystem: SCT 1 / 0x82, IATTR=1, IPO=256 (SUBNQN). */
static void test_connect_unknown_subsys(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	uint64_t res = 0;

	a.subnqn = "nqn.2026-12.io.blox:nope";
	assert_int_equal(fake_connect(&f->ft, q, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_DATA(256));
	assert_int_equal(res, 0x00010100);
	assert_null(q->sq.ctrl);
	assert_int_equal(q->installs, 0);
	assert_int_equal(q->sq.size, 0);
	assert_int_equal(f->ft.tgt.stats.connects_rejected, 1);

	/* The queue may try again and succeed. */
	a = admin_args();
	assert_int_equal(fake_connect(&f->ft, q, &a, &res), 0);
	assert_int_equal(res, 1);
}

/* 3. Host not on the allow list: SCT 1 / 0x84; a listed host connects. */
static void test_connect_host_not_allowed(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	uint64_t res = 0;

	f->subsys->allow_any_host = false;
	assert_int_equal(nvmf_subsys_add_host(f->subsys, FAKE_HOSTNQN2), 0);
	assert_int_equal(fake_connect(&f->ft, q, &a, &res),
			 ST_CONNECT_INVALID_HOST);
	assert_null(q->sq.ctrl);
	assert_int_equal(q->installs, 0);

	a.hostnqn = FAKE_HOSTNQN2;
	assert_int_equal(fake_connect(&f->ft, q, &a, &res), 0);
	assert_string_equal(q->sq.ctrl->hostnqn, FAKE_HOSTNQN2);
}

/* 4. RECFMT other than 0: Incompatible Format (SCT 1 / 0x80). */
static void test_connect_recfmt(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();

	a.recfmt = 1;
	assert_int_equal(fake_connect(&f->ft, q, &a, NULL), ST_CONNECT_FORMAT);
	assert_null(q->sq.ctrl);
}

/* 5. SQSIZE 0, or over the admin (31) / I/O (MQES 1023) limits. */
static void test_connect_sqsize(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft), *io = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	uint64_t res = 0;
	uint16_t cntlid;

	a.sqsize = 0;
	assert_int_equal(fake_connect(&f->ft, q, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_SQE(44));
	a.sqsize = 32;
	assert_int_equal(fake_connect(&f->ft, q, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_SQE(44));
	assert_null(q->sq.ctrl);

	cntlid = fake_admin_up(&f->ft, q, FAKE_SUBNQN);
	assert_int_equal(fake_io_connect(&f->ft, io, FAKE_SUBNQN, cntlid, 1, 0),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(fake_io_connect(&f->ft, io, FAKE_SUBNQN, cntlid, 1, 1024),
			 ST_CONNECT_INVALID_PARAM);
	a = (struct fake_connect_args){ .qid = 1, .sqsize = 1024, .cntlid = cntlid,
					.subnqn = FAKE_SUBNQN,
					.hostnqn = FAKE_HOSTNQN };
	assert_int_equal(fake_connect(&f->ft, io, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_SQE(44));
	assert_null(io->sq.ctrl);
	assert_int_equal(fake_io_connect(&f->ft, io, FAKE_SUBNQN, cntlid, 1, 1023),
			 0);
	assert_int_equal(io->installed_size, 1024);
	assert_int_equal(io->sq.qid, 1);
	assert_ptr_equal(io->sq.ctrl, q->sq.ctrl);
}

/* 6. Admin Connect must ask for a dynamic controller (CNTLID FFFFh). */
static void test_connect_admin_static_cntlid(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	uint64_t res = 0;

	a.cntlid = 1;
	assert_int_equal(fake_connect(&f->ft, q, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_DATA(16));
	assert_null(q->sq.ctrl);
}

/* 7. I/O Connect naming a controller that does not exist. */
static void test_io_connect_unknown_cntlid(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft), *io = fake_q_new(&f->ft);
	struct fake_connect_args a;
	uint64_t res = 0;
	uint16_t cntlid = fake_admin_up(&f->ft, q, FAKE_SUBNQN);

	a = (struct fake_connect_args){ .qid = 1, .sqsize = 127,
					.cntlid = (uint16_t)(cntlid + 1),
					.subnqn = FAKE_SUBNQN,
					.hostnqn = FAKE_HOSTNQN };
	assert_int_equal(fake_connect(&f->ft, io, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_DATA(16));
	assert_null(io->sq.ctrl);
	assert_int_equal(io->installs, 0);

	/* Right cntlid, another host: IPO points at HOSTNQN. */
	a.cntlid = cntlid;
	a.hostnqn = FAKE_HOSTNQN2;
	assert_int_equal(fake_connect(&f->ft, io, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_DATA(512));
	assert_null(io->sq.ctrl);
}

/* 8. A qid already connected: Command Sequence Error; a connected queue
 * cannot Connect again either.
 */
static void test_io_connect_duplicate_qid(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_q *io1 = fake_q_new(&f->ft), *io2 = fake_q_new(&f->ft);
	uint16_t cntlid = fake_admin_up(&f->ft, q, FAKE_SUBNQN);
	struct fake_connect_args a = admin_args();

	assert_int_equal(fake_io_connect(&f->ft, io1, FAKE_SUBNQN, cntlid, 1, 127),
			 0);
	assert_int_equal(fake_io_connect(&f->ft, io2, FAKE_SUBNQN, cntlid, 1, 127),
			 ST_CMD_SEQ);
	assert_null(io2->sq.ctrl);
	assert_int_equal(io2->installs, 0);
	assert_int_equal(q->sq.ctrl->nr_sqs, 2);
	assert_int_equal(fake_io_connect(&f->ft, io2, FAKE_SUBNQN, cntlid, 2, 127),
			 0);
	assert_int_equal(q->sq.ctrl->nr_sqs, 3);

	/* Connect again on queues that already are connected. */
	assert_int_equal(fake_io_connect(&f->ft, io1, FAKE_SUBNQN, cntlid, 3, 127),
			 ST_CMD_SEQ);
	assert_int_equal(fake_connect(&f->ft, q, &a, NULL), ST_CMD_SEQ);
	assert_int_equal(q->sq.ctrl->cntlid, cntlid);
	assert_int_equal(f->ft.tgt.stats.ctrls_created, 1);
}

/* 9. I/O Connect before CC.EN=1: Command Sequence Error. */
static void test_io_connect_before_enable(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft), *io = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	uint64_t res = 0;

	assert_int_equal(fake_connect(&f->ft, q, &a, &res), 0);
	assert_int_equal(fake_io_connect(&f->ft, io, FAKE_SUBNQN, (uint16_t)res, 1,
					 127),
			 ST_CMD_SEQ);
	assert_null(io->sq.ctrl);
	assert_int_equal(io->installs, 0);
}

/* 10. A qid beyond the number of queues granted by Set Features. */
static void test_io_connect_qid_over_granted(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft), *io = fake_q_new(&f->ft);
	uint16_t cntlid = fake_admin_up(&f->ft, q, FAKE_SUBNQN);
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	struct fake_connect_args a = { .qid = 3, .sqsize = 15, .cntlid = cntlid,
				       .subnqn = FAKE_SUBNQN,
				       .hostnqn = FAKE_HOSTNQN };
	uint64_t res = 0;

	/* By default 64 I/O queues: qid 65 and FFFFh are out. */
	a.qid = 65;
	assert_int_equal(fake_connect(&f->ft, io, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_SQE(42));
	a.qid = 0xffff;
	assert_int_equal(fake_connect(&f->ft, io, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	a.qid = 3;

	fake_prep(&f->ft, c, nvme_admin_set_features, 0)->cdw10 =
		NVME_FEAT_FID_NUM_QUEUES;
	c->req.cmd.cdw11 = 1 | 1u << 16; /* 2 SQs, 2 CQs */
	assert_int_equal(fake_exec(&f->ft, q, c), 0);
	assert_int_equal(c->cqe.result, 0x00010001);

	assert_int_equal(fake_connect(&f->ft, io, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_SQE(42));
	a.qid = 2;
	assert_int_equal(fake_connect(&f->ft, io, &a, &res), 0);
	assert_int_equal(res, cntlid);
	assert_int_equal(io->sq.qid, 2);
}

/* 11. Unterminated SUBNQN, bad HOSTNQN, short Connect data. */
static void test_connect_bad_data(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	struct nvmf_connect_data *d = (void *)c->buf;

	fake_prep_connect(&f->ft, c, &a);
	memset(d->subsysnqn, 'a', sizeof(d->subsysnqn));
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CONNECT_INVALID_PARAM);
	assert_int_equal(c->cqe.result, IPO_DATA(256));

	a.hostnqn = "host\tnqn"; /* a control character */
	fake_prep_connect(&f->ft, c, &a);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CONNECT_INVALID_PARAM);
	assert_int_equal(c->cqe.result, IPO_DATA(512));

	a = admin_args();
	fake_prep_connect(&f->ft, c, &a);
	memset(d->hostnqn, 'h', sizeof(d->hostnqn));
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CONNECT_INVALID_PARAM);
	assert_int_equal(c->cqe.result, IPO_DATA(512));

	/* Connect data is 1024 bytes; a 512-byte SGL does not match. */
	fake_prep_connect(&f->ft, c, &a);
	fake_data(c, 512, true);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_SGL_DATA_LEN);
	assert_null(q->sq.ctrl);
	assert_int_equal(q->installs, 0);
}

/*
 * 11b. An empty host NQN (spdk_nvme_perf's default) is let in where any
 * host is allowed, and counted; refused (IPO 512) where a list decides.
 */
static void test_connect_empty_hostnqn(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	uint64_t res = 0;

	a.hostnqn = "";
	assert_int_equal(fake_connect(&f->ft, q, &a, &res), 0);
	assert_non_null(q->sq.ctrl);
	assert_string_equal(q->sq.ctrl->hostnqn, "");
	q = fake_q_new(&f->ft);
	assert_int_equal(fake_connect(&f->ft, q, &a, &res), 0);
	assert_int_equal(f->ft.tgt.empty_hostnqn.count, 2);

	f->subsys->allow_any_host = false;
	assert_int_equal(nvmf_subsys_add_host(f->subsys, FAKE_HOSTNQN), 0);
	q = fake_q_new(&f->ft);
	assert_int_equal(fake_connect(&f->ft, q, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_DATA(512));
	assert_null(q->sq.ctrl);
	assert_int_equal(f->ft.tgt.empty_hostnqn.count, 2);
}

/*
 * 11c. The time of a loop pass: without passes every read follows the
 * clock; with them, the first read of a pass is kept until the pass ends,
 * and a keep-alive touch and a command's start time take it.
 */
static void test_pass_time(void **state)
{
	struct fixture *f = *state;
	struct nvmf_tgt *tgt = &f->ft.tgt;
	struct fake_connect_args a = admin_args();
	struct fake_q *q = fake_q_new(&f->ft);

	assert_int_equal(nvmf_tgt_now(tgt), FAKE_START_NS);
	blox_clock_set(&f->ft.clock, FAKE_START_NS + 10);
	assert_int_equal(nvmf_tgt_now(tgt), FAKE_START_NS + 10);

	tgt->pass.cached = true;
	assert_int_equal(nvmf_tgt_now(tgt), FAKE_START_NS + 10);
	blox_clock_set(&f->ft.clock, FAKE_START_NS + 20);
	assert_int_equal(nvmf_tgt_now(tgt), FAKE_START_NS + 10);
	assert_int_equal(fake_connect(&f->ft, q, &a, NULL), 0);
	assert_int_equal(fake_prop_set(&f->ft, q, NVME_REG_CC, false, 0), 0);
	assert_int_equal(q->sq.ctrl->last_activity_ns, FAKE_START_NS + 10);
	assert_int_equal(tgt->cmds_received, 2);

	nvmf_tgt_pass_end(tgt);
	assert_int_equal(nvmf_tgt_now(tgt), FAKE_START_NS + 20);
	assert_int_equal(fake_prop_set(&f->ft, q, NVME_REG_CC, false, 0), 0);
	assert_int_equal(q->sq.ctrl->last_activity_ns, FAKE_START_NS + 20);
	assert_int_equal(tgt->cmds_received, 3);
	tgt->pass.cached = false;
}

/* 12. The transport cannot allocate the queue: Internal Error, no ctrl. */
static void test_connect_install_fails(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();

	q->install_rc = -ENOMEM;
	assert_int_equal(fake_connect(&f->ft, q, &a, NULL), NVME_SC_INTERNAL);
	assert_int_equal(q->installs, 1);
	assert_null(q->sq.ctrl);
	assert_true(TAILQ_EMPTY(&f->subsys->ctrls));
}

/* 13. Discovery subsystem: admin only; discovery-only ports hide NVM. */
static void test_connect_discovery(void **state)
{
	struct fixture *f = *state;
	struct nvmf_port *dport;
	struct fake_q *q, *dq, *io;
	struct fake_connect_args a = admin_args();
	uint64_t res = 0;
	uint16_t cntlid;

	assert_int_equal(nvmf_port_add(&f->ft.tgt, "127.0.0.1", "8009", true,
				       &dport),
			 0);
	dq = fake_q_new_on(&f->ft, dport);
	assert_int_equal(fake_connect(&f->ft, dq, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_DATA(256));
	a.subnqn = FAKE_DISCNQN;
	assert_int_equal(fake_connect(&f->ft, dq, &a, &res), 0);
	assert_ptr_equal(dq->sq.ctrl->subsys, f->ft.tgt.discovery);

	q = fake_q_new(&f->ft);
	io = fake_q_new(&f->ft);
	cntlid = fake_admin_up(&f->ft, q, FAKE_DISCNQN);
	a = (struct fake_connect_args){ .qid = 1, .sqsize = 31, .cntlid = cntlid,
					.subnqn = FAKE_DISCNQN,
					.hostnqn = FAKE_HOSTNQN };
	assert_int_equal(fake_connect(&f->ft, io, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_SQE(42));
	assert_null(io->sq.ctrl);
}

/* 14. Any command but Connect on a fresh queue: Command Sequence Error. */
static void test_commands_before_connect(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	static const uint8_t fctypes[] = { nvme_fabrics_type_property_get,
					   nvme_fabrics_type_property_set,
					   nvme_fabrics_type_disconnect };

	fake_prep(&f->ft, c, nvme_admin_identify, 0)->cdw10 = 1;
	fake_data(c, 4096, false);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CMD_SEQ);
	assert_int_equal(keep_alive(&f->ft, q), ST_CMD_SEQ);
	fake_prep(&f->ft, c, nvme_cmd_read, 1);
	fake_data(c, 512, false);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CMD_SEQ);
	for (size_t i = 0; i < sizeof(fctypes); i++) {
		fake_prep(&f->ft, c, nvme_admin_fabrics, fctypes[i]);
		assert_int_equal(fake_exec(&f->ft, q, c), ST_CMD_SEQ);
	}
	assert_int_equal(q->sq.errors, 6);
	assert_int_equal(q->closes, 0);
}

/* 15. Admin commands need CC.EN=1; properties and Disconnect do not. */
static void test_admin_before_enable(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	uint64_t v = 0;

	assert_int_equal(fake_connect(&f->ft, q, &a, NULL), 0);
	fake_prep(&f->ft, c, nvme_admin_identify, 0)->cdw10 = 1;
	fake_data(c, 4096, false);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CMD_SEQ);
	fake_prep(&f->ft, c, nvme_admin_get_log_page, 0)->cdw10 =
		NVME_LOG_LID_SMART | (127u << 16);
	fake_data(c, 512, false);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CMD_SEQ);
	fake_prep(&f->ft, c, nvme_admin_get_features, 0)->cdw10 =
		NVME_FEAT_FID_KATO;
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CMD_SEQ);
	fake_prep(&f->ft, c, nvme_admin_async_event, 0);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CMD_SEQ);
	assert_int_equal(keep_alive(&f->ft, q), ST_CMD_SEQ);

	assert_int_equal(fake_prop_get(&f->ft, q, NVME_REG_CSTS, false, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(fake_prop_set(&f->ft, q, NVME_REG_CC, false,
				       FAKE_CC_ENABLE),
			 0);
	assert_int_equal(keep_alive(&f->ft, q), 0);
}

/* 16. FUSE bits set: Invalid Field; unknown fabrics type: Invalid Opcode. */
static void test_fused_and_bad_fctype(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_cmd *c = fake_cmd_new(&f->ft);

	fake_admin_up(&f->ft, q, FAKE_SUBNQN);
	fake_prep(&f->ft, c, nvme_admin_keep_alive, 0)->flags |= 0x01;
	assert_int_equal(fake_exec(&f->ft, q, c), ST_INVALID_FIELD);
	fake_prep(&f->ft, c, nvme_admin_keep_alive, 0)->flags |= 0x02;
	assert_int_equal(fake_exec(&f->ft, q, c), ST_INVALID_FIELD);
	fake_prep(&f->ft, c, nvme_admin_fabrics, 0x7e);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_INVALID_OPCODE);
	assert_int_equal(keep_alive(&f->ft, q), 0); /* still usable */
}

/* 17. Disconnect: answered first, then only that I/O queue closes; on the
 * admin queue it is refused (SCT 1 / 0x85, Invalid Queue Type).
 */
static void test_disconnect(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_q *io1 = fake_q_new(&f->ft), *io2 = fake_q_new(&f->ft);
	uint16_t cntlid = fake_admin_up(&f->ft, q, FAKE_SUBNQN);
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	uint64_t v;

	assert_int_equal(fake_io_connect(&f->ft, io1, FAKE_SUBNQN, cntlid, 1, 31),
			 0);
	assert_int_equal(fake_io_connect(&f->ft, io2, FAKE_SUBNQN, cntlid, 2, 31),
			 0);
	/* Property access is admin-queue only. */
	assert_int_equal(fake_prop_get(&f->ft, io1, NVME_REG_CSTS, false, &v),
			 ST_INVALID_FIELD);

	fake_prep(&f->ft, c, nvme_admin_fabrics, nvme_fabrics_type_disconnect)
		->cdw10 = 1; /* RECFMT 1 */
	assert_int_equal(fake_exec(&f->ft, io1, c), ST_CONNECT_FORMAT);
	assert_int_equal(io1->closes, 0);

	fake_prep(&f->ft, c, nvme_admin_fabrics, nvme_fabrics_type_disconnect);
	assert_int_equal(fake_exec(&f->ft, io1, c), 0);
	assert_int_equal(io1->responses, 4); /* connect, 2 errors, this */
	assert_int_equal(io1->closes, 1);
	assert_int_equal(io2->closes, 0);
	assert_int_equal(q->closes, 0);
	fake_q_fini(io1);
	assert_int_equal(q->sq.ctrl->nr_sqs, 2);

	fake_prep(&f->ft, c, nvme_admin_fabrics, nvme_fabrics_type_disconnect);
	assert_int_equal(fake_exec(&f->ft, q, c), ST_DNR | 0x185);
	assert_int_equal(q->closes, 0);
	assert_int_equal(io2->closes, 0);
	assert_true(nvmf_ctrl_ready(q->sq.ctrl));

	/* The transport losing the admin queue tears the controller down. */
	fake_q_fini(q);
	assert_int_equal(io2->closes, 1);
	assert_false(TAILQ_EMPTY(&f->subsys->ctrls));
	fake_q_fini(io2);
	assert_true(TAILQ_EMPTY(&f->subsys->ctrls));
	assert_int_equal(f->ft.tgt.stats.ctrls_destroyed, 1);
}

/* 18. SQHD advances once per command and wraps at the queue size; with
 * SQ flow control disabled (CATTR bit 2) it reads FFFFh.
 */
static void test_sqhd(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft), *q2 = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args();
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	uint16_t first;

	a.sqsize = 3; /* 4 entries */
	assert_int_equal(fake_connect(&f->ft, q, &a, NULL), 0);
	assert_int_equal(fake_prop_set(&f->ft, q, NVME_REG_CC, false,
				       FAKE_CC_ENABLE),
			 0);
	fake_prep(&f->ft, c, nvme_admin_keep_alive, 0);
	assert_int_equal(fake_exec(&f->ft, q, c), 0);
	first = c->cqe.sqhd;
	assert_true(first < 4);
	for (unsigned i = 1; i <= 9; i++) {
		fake_prep(&f->ft, c, nvme_admin_keep_alive, 0);
		assert_int_equal(fake_exec(&f->ft, q, c), 0);
		assert_int_equal(c->cqe.sqhd, (first + i) % 4);
	}

	a.sqsize = 31;
	a.cattr = 1u << 2;
	assert_int_equal(fake_connect(&f->ft, q2, &a, NULL), 0);
	assert_true(q2->sq.sqhd_disabled);
	for (int i = 0; i < 3; i++) {
		fake_prep(&f->ft, c, nvme_admin_fabrics,
			  nvme_fabrics_type_property_get)
			->cdw11 = NVME_REG_VS;
		assert_int_equal(fake_exec(&f->ft, q2, c), 0);
		assert_int_equal(c->cqe.sqhd, 0xffff);
	}
}

/* 19. PSDT must say SGL (01b) on fabrics; PRP (00b) or an SGL segment in
 * MPTR (10b) are Invalid Field, as in the Linux target.
 */
static void test_psdt_must_be_sgl(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft);
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	static const uint8_t psdt[] = { 0x00, 0x80, 0xc0 };

	fake_admin_up(&f->ft, q, FAKE_SUBNQN);
	for (size_t i = 0; i < sizeof(psdt); i++) {
		fake_prep(&f->ft, c, nvme_admin_keep_alive, 0)->flags = psdt[i];
		if (fake_exec(&f->ft, q, c) != ST_INVALID_FIELD)
			fail_msg("PSDT %u accepted (status 0x%x)", psdt[i] >> 6,
				 fake_status(c));
	}
}

/* 20. Controller ids wrap from FFEFh to 1 and skip ids still in use. */
static void test_cntlid_wrap(void **state)
{
	struct fixture *f = *state;
	struct fake_connect_args a = admin_args();
	uint64_t res[4];

	for (int i = 0; i < 4; i++) {
		if (i == 1)
			f->subsys->next_cntlid = NVMF_CNTLID_MAX;
		assert_int_equal(fake_connect(&f->ft, fake_q_new(&f->ft), &a, &res[i]),
				 0);
	}
	assert_int_equal(res[0], 1);
	assert_int_equal(res[1], 0xffef);
	assert_int_equal(res[2], 2); /* 1 is taken */
	assert_int_equal(res[3], 3);
}

/* 21. An I/O queue cannot join a controller that is being torn down. */
static void test_io_connect_dying_ctrl(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q = fake_q_new(&f->ft), *io = fake_q_new(&f->ft);
	uint16_t cntlid = fake_admin_up(&f->ft, q, FAKE_SUBNQN);
	struct fake_connect_args a = { .qid = 1, .sqsize = 31, .cntlid = cntlid,
				       .subnqn = FAKE_SUBNQN,
				       .hostnqn = FAKE_HOSTNQN };
	uint64_t res = 0;

	nvmf_ctrl_fatal(q->sq.ctrl, "test");
	assert_int_equal(q->closes, 1);
	assert_int_equal(fake_connect(&f->ft, io, &a, &res),
			 ST_CONNECT_INVALID_PARAM);
	assert_int_equal(res, IPO_DATA(16));
	assert_null(io->sq.ctrl);
}

/* 22. Shutdown: every queue of every controller (discovery too) is asked
 * to close; subsystems with controllers cannot be destroyed meanwhile.
 */
static void test_tgt_close_ctrls(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q1 = fake_q_new(&f->ft), *io1 = fake_q_new(&f->ft);
	struct fake_q *q2 = fake_q_new(&f->ft), *dq = fake_q_new(&f->ft);
	uint16_t id1 = fake_admin_up(&f->ft, q1, FAKE_SUBNQN);

	fake_admin_up(&f->ft, q2, FAKE_SUBNQN);
	fake_admin_up(&f->ft, dq, FAKE_DISCNQN);
	assert_int_equal(fake_io_connect(&f->ft, io1, FAKE_SUBNQN, id1, 1, 31), 0);
	assert_int_equal(nvmf_subsys_destroy(f->subsys), -EBUSY);

	nvmf_tgt_close_ctrls(&f->ft.tgt);
	assert_int_equal(q1->closes, 1);
	assert_int_equal(io1->closes, 1);
	assert_int_equal(q2->closes, 1);
	assert_int_equal(dq->closes, 1);
	nvmf_tgt_close_ctrls(&f->ft.tgt); /* idempotent */
	assert_int_equal(q1->closes, 1);

	fake_q_fini(q1);
	fake_q_fini(io1);
	fake_q_fini(q2);
	fake_q_fini(dq);
	assert_true(TAILQ_EMPTY(&f->subsys->ctrls));
	assert_true(TAILQ_EMPTY(&f->ft.tgt.discovery->ctrls));
	assert_int_equal(f->ft.tgt.stats.ctrls_destroyed, 3);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fake_fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_connect_admin),
		T(test_connect_unknown_subsys),
		T(test_connect_host_not_allowed),
		T(test_connect_recfmt),
		T(test_connect_sqsize),
		T(test_connect_admin_static_cntlid),
		T(test_io_connect_unknown_cntlid),
		T(test_io_connect_duplicate_qid),
		T(test_io_connect_before_enable),
		T(test_io_connect_qid_over_granted),
		T(test_connect_bad_data),
		T(test_connect_empty_hostnqn),
		T(test_pass_time),
		T(test_connect_install_fails),
		T(test_connect_discovery),
		T(test_commands_before_connect),
		T(test_admin_before_enable),
		T(test_fused_and_bad_fctype),
		T(test_disconnect),
		T(test_sqhd),
		T(test_psdt_must_be_sgl),
		T(test_cntlid_wrap),
		T(test_io_connect_dying_ctrl),
		T(test_tgt_close_ctrls),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
