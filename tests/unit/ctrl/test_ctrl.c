/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for controllers (ctrl.c): the property state machine (CAP,
 * VS, CC, CSTS) and keep-alive, both the pure check on a virtual clock and
 * expiry driven by a real libevent loop.
 */
#include <errno.h>
#include <event2/event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_nvmf.h"

#define MS 1000000ull

#define CSTS_RDY 0x1u
#define CSTS_CFS 0x2u
#define CSTS_SHST_MASK 0xcu
#define CSTS_SHST_DONE 0x8u
#define CC_SHN_NORMAL (1u << 14)
#define CC_SHN_ABRUPT (2u << 14)

struct fixture {
	struct fake_tgt ft;
	struct fake_q *q; /* connected admin queue, CC.EN still 0 */
	struct nvmf_ctrl *ctrl;
};

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);
	struct fake_connect_args a = { .qid = 0, .sqsize = 31, .cntlid = 0xffff,
				       .kato = 1000, .subnqn = FAKE_SUBNQN,
				       .hostnqn = FAKE_HOSTNQN };

	fake_subsys(&f->ft, FAKE_SUBNQN, true);
	f->q = fake_q_new(&f->ft);
	assert_int_equal(fake_connect(&f->ft, f->q, &a, NULL), 0);
	f->ctrl = f->q->sq.ctrl;
	*state = f;
	return 0;
}

static uint64_t prop(struct fixture *f, uint32_t ofst, bool size8)
{
	uint64_t v = 0;

	assert_int_equal(nvmf_prop_get(f->ctrl, ofst, size8, &v), 0);
	return v;
}

/* 1. CAP: MQES 1023, CQR, TO, CSS bits 37 (NVM) and 43 (I/O command sets); only as 8 bytes. */
static void test_cap(void **state)
{
	struct fixture *f = *state;
	uint64_t cap = prop(f, NVME_REG_CAP, true), v;

	assert_int_equal(cap & 0xffff, 1023);
	assert_int_equal((cap >> 16) & 1, 1); /* CQR */
	assert_int_equal((cap >> 24) & 0xff, 15); /* TO: 7.5 s */
	assert_int_equal((cap >> 32) & 0xf, 0); /* DSTRD */
	assert_int_equal((cap >> 37) & 0xff, 0x41); /* CSS: NVM, and the I/O command sets */
	assert_int_equal((cap >> 48) & 0xff, 0); /* MPSMIN, MPSMAX: 4 KiB */
	assert_int_equal(cap, nvmf_ctrl_cap(f->ctrl));
	assert_int_equal(nvmf_prop_get(f->ctrl, NVME_REG_CAP, false, &v),
			 ST_INVALID_FIELD);

	/* The same through a fabrics Property Get. */
	assert_int_equal(fake_prop_get(&f->ft, f->q, NVME_REG_CAP, true, &v), 0);
	assert_int_equal(v, cap);
}

/* 2. VS is 1.3.0; 4-byte registers refuse 8-byte access. */
static void test_vs_and_sizes(void **state)
{
	struct fixture *f = *state;
	uint64_t v;

	assert_int_equal(prop(f, NVME_REG_VS, false), 0x10300);
	assert_int_equal(fake_prop_get(&f->ft, f->q, NVME_REG_VS, false, &v), 0);
	assert_int_equal(v, 0x10300);
	assert_int_equal(nvmf_prop_get(f->ctrl, NVME_REG_VS, true, &v),
			 ST_INVALID_FIELD);
	assert_int_equal(nvmf_prop_get(f->ctrl, NVME_REG_CC, true, &v),
			 ST_INVALID_FIELD);
	assert_int_equal(nvmf_prop_get(f->ctrl, NVME_REG_CSTS, true, &v),
			 ST_INVALID_FIELD);
	assert_int_equal(prop(f, NVME_REG_CC, false), 0);
	assert_int_equal(prop(f, NVME_REG_CSTS, false), 0);
}

/* 3. Unknown offsets and read-only registers: Invalid Field. */
static void test_bad_offsets(void **state)
{
	struct fixture *f = *state;
	static const uint32_t offs[] = { 0x04, 0x0c, 0x10, 0x20, 0x24, 0x28,
					 0x100, 0x1000 };
	uint64_t v;

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(offs); i++) {
		if (nvmf_prop_get(f->ctrl, offs[i], false, &v) != ST_INVALID_FIELD ||
		    nvmf_prop_get(f->ctrl, offs[i], true, &v) != ST_INVALID_FIELD)
			fail_msg("get 0x%x accepted", offs[i]);
	}
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CAP, true, 0),
			 ST_INVALID_FIELD);
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_VS, false, 0),
			 ST_INVALID_FIELD);
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CSTS, false, 1),
			 ST_INVALID_FIELD);
	assert_int_equal(nvmf_prop_set(f->ctrl, 0x100, false, 1),
			 ST_INVALID_FIELD);
	/* 8-byte write of CC: refused and nothing changes. */
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, true, FAKE_CC_ENABLE),
			 ST_INVALID_FIELD);
	assert_int_equal(fake_prop_set(&f->ft, f->q, NVME_REG_CC, true,
				       FAKE_CC_ENABLE),
			 ST_INVALID_FIELD);
	assert_int_equal(prop(f, NVME_REG_CC, false), 0);
	assert_int_equal(prop(f, NVME_REG_CSTS, false), 0);
	assert_false(nvmf_ctrl_ready(f->ctrl));
	/* The fabrics command reports where the bad field is (OFST). */
	assert_int_equal(fake_prop_get(&f->ft, f->q, 0x100, false, &v),
			 ST_INVALID_FIELD);
}

/* 4. Enable with 64/16-byte entries: RDY; CC reads back as written. */
static void test_enable(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
				       FAKE_CC_ENABLE),
			 0);
	assert_int_equal(prop(f, NVME_REG_CSTS, false), CSTS_RDY);
	assert_int_equal(prop(f, NVME_REG_CC, false), FAKE_CC_ENABLE);
	assert_true(nvmf_ctrl_ready(f->ctrl));
	/* Writing the same CC again changes nothing. */
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
				       FAKE_CC_ENABLE),
			 0);
	assert_int_equal(prop(f, NVME_REG_CSTS, false), CSTS_RDY);
}

/* 5. Enable with unsupported settings: CSTS.CFS, not ready. */
static void test_enable_invalid(void **state)
{
	struct fixture *f = *state;
	static const uint32_t bad[] = {
		0x00000001, /* IOSQES/IOCQES 0 */
		0x00450001, /* IOSQES 5 */
		0x00560001, /* IOCQES 5 */
		0x00460001 | 1u << 7, /* MPS 8 KiB */
		0x00460001 | 1u << 11, /* AMS weighted round robin */
		0x00460001 | 1u << 4, /* CSS 1 (reserved) */
	};

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(bad); i++) {
		uint64_t csts;

		assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false, bad[i]),
				 0);
		csts = prop(f, NVME_REG_CSTS, false);
		if (csts != CSTS_CFS)
			fail_msg("CC 0x%08x: CSTS 0x%llx, want CFS", bad[i],
				 (unsigned long long)csts);
		assert_false(nvmf_ctrl_ready(f->ctrl));
		/* Reset (EN=0) clears CFS for the next try. */
		assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false, 0), 0);
		assert_int_equal(prop(f, NVME_REG_CSTS, false), 0);
	}
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
				       FAKE_CC_ENABLE),
			 0);
	assert_int_equal(prop(f, NVME_REG_CSTS, false), CSTS_RDY);
}

/* 6. EN 1 -> 0 is a reset: RDY clears, CC reads 0. */
static void test_disable(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
				       FAKE_CC_ENABLE),
			 0);
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
				       FAKE_CC_ENABLE & ~1u),
			 0);
	assert_int_equal(prop(f, NVME_REG_CSTS, false) & CSTS_RDY, 0);
	assert_int_equal(prop(f, NVME_REG_CC, false), 0);
	assert_false(nvmf_ctrl_ready(f->ctrl));
	/* And it can be enabled again. */
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
				       FAKE_CC_ENABLE),
			 0);
	assert_true(nvmf_ctrl_ready(f->ctrl));
}

/* 7. Shutdown notification: SHST complete (8h); clearing SHN clears it. */
static void test_shutdown(void **state)
{
	struct fixture *f = *state;
	static const uint32_t shn[] = { CC_SHN_NORMAL, CC_SHN_ABRUPT };

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(shn); i++) {
		uint64_t csts;

		assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
					       FAKE_CC_ENABLE),
				 0);
		assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
					       FAKE_CC_ENABLE | shn[i]),
				 0);
		csts = prop(f, NVME_REG_CSTS, false);
		assert_int_equal(csts & CSTS_SHST_MASK, CSTS_SHST_DONE);
		assert_int_equal(csts & CSTS_CFS, 0);
		assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
					       FAKE_CC_ENABLE),
				 0);
		assert_int_equal(prop(f, NVME_REG_CSTS, false) & CSTS_SHST_MASK, 0);
		assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false, 0), 0);
	}
}

/* 8. Keep-alive on the virtual clock: not before KATO, at and after it. */
static void test_kato_check(void **state)
{
	struct fixture *f = *state;
	const uint64_t t0 = f->ctrl->last_activity_ns;

	assert_int_equal(t0, FAKE_START_NS);
	assert_int_equal(f->ctrl->kato_ms, 1000);
	assert_false(nvmf_ctrl_kato_check(f->ctrl, t0));
	assert_false(nvmf_ctrl_kato_check(f->ctrl, t0 + 999 * MS));
	assert_false(nvmf_ctrl_kato_check(f->ctrl, t0 + 1000 * MS - 1));
	assert_true(nvmf_ctrl_kato_check(f->ctrl, t0 + 1000 * MS));
	assert_true(nvmf_ctrl_kato_check(f->ctrl, t0 + 60000 * MS));
	assert_false(f->ctrl->dying); /* checking does not tear down */
}

/* 9. Touching (any command) re-arms from the time of the touch. */
static void test_kato_touch(void **state)
{
	struct fixture *f = *state;
	const uint64_t t0 = FAKE_START_NS;
	struct fake_cmd *c = fake_cmd_new(&f->ft);

	blox_clock_set(&f->ft.clock, t0 + 900 * MS);
	nvmf_ctrl_touch(f->ctrl);
	assert_false(nvmf_ctrl_kato_check(f->ctrl, t0 + 1899 * MS));
	assert_true(nvmf_ctrl_kato_check(f->ctrl, t0 + 1900 * MS));

	/* A command counts as traffic even when it fails. */
	assert_int_equal(nvmf_prop_set(f->ctrl, NVME_REG_CC, false,
				       FAKE_CC_ENABLE),
			 0);
	blox_clock_set(&f->ft.clock, t0 + 1800 * MS);
	fake_prep(&f->ft, c, 0x80, 0);
	assert_int_equal(fake_exec(&f->ft, f->q, c), ST_INVALID_OPCODE);
	assert_false(nvmf_ctrl_kato_check(f->ctrl, t0 + 2799 * MS));
	assert_true(nvmf_ctrl_kato_check(f->ctrl, t0 + 2800 * MS));

	/* Set Features KATO changes the period. */
	assert_int_equal(fake_set_feat(&f->ft, f->q, c, NVME_FEAT_FID_KATO, 5000),
			 0);
	assert_false(nvmf_ctrl_kato_check(f->ctrl, t0 + 6799 * MS));
	assert_true(nvmf_ctrl_kato_check(f->ctrl, t0 + 6800 * MS));
}

/* 10. KATO 0 never expires; a dying controller does not expire again. */
static void test_kato_zero_and_dying(void **state)
{
	struct fixture *f = *state;
	const uint64_t t0 = FAKE_START_NS;

	nvmf_ctrl_set_kato(f->ctrl, 0);
	assert_false(nvmf_ctrl_kato_check(f->ctrl, t0 + 3600000 * MS));
	nvmf_ctrl_set_kato(f->ctrl, 10);
	assert_true(nvmf_ctrl_kato_check(f->ctrl, t0 + 10 * MS));
	nvmf_ctrl_fatal(f->ctrl, "test");
	assert_int_equal(f->q->closes, 1);
	assert_false(nvmf_ctrl_kato_check(f->ctrl, t0 + 10 * MS));
	nvmf_ctrl_fatal(f->ctrl, "again"); /* safe twice */
	assert_int_equal(f->q->closes, 1);
}

/* ---- keep-alive on a real event loop ---- */

struct ka_ctx {
	struct fake_tgt *ft;
	struct fake_q *q;
	struct fake_cmd *c;
	unsigned sent;
};

/* Every 50 ms: a Keep Alive command on the admin queue. */
static void ka_tick_cb(evutil_socket_t fd, short what, void *arg)
{
	struct ka_ctx *k = arg;

	(void)fd;
	(void)what;
	if (k->q->sq.closing)
		return;
	fake_prep(k->ft, k->c, nvme_admin_keep_alive, 0);
	fake_submit(k->ft, k->q, k->c);
	k->sent++;
}

/* 11. KATO 200 ms: an idle controller is torn down within ~300 ms (all
 * its queues closed) while one sending Keep Alive every 50 ms survives.
 */
static void test_kato_event_loop(void **state)
{
	struct event_base *base = event_base_new();
	struct fake_tgt ft;
	struct fake_q *idle_a, *idle_io, *busy_a, *busy_io;
	struct ka_ctx k;
	struct event *tick;
	struct timeval every = { 0, 50 * 1000 }, run = { 0, 350 * 1000 };
	uint16_t idle_id, busy_id;

	(void)state;
	assert_non_null(base);
	fake_tgt_init_base(&ft, base);
	fake_subsys(&ft, FAKE_SUBNQN, true);
	idle_a = fake_q_new(&ft);
	idle_io = fake_q_new(&ft);
	busy_a = fake_q_new(&ft);
	busy_io = fake_q_new(&ft);
	idle_id = fake_admin_up_as(&ft, idle_a, FAKE_SUBNQN, FAKE_HOSTNQN, 200);
	busy_id = fake_admin_up_as(&ft, busy_a, FAKE_SUBNQN, FAKE_HOSTNQN, 200);
	assert_int_equal(fake_io_connect(&ft, idle_io, FAKE_SUBNQN, idle_id, 1, 31),
			 0);
	assert_int_equal(fake_io_connect(&ft, busy_io, FAKE_SUBNQN, busy_id, 1, 31),
			 0);

	k = (struct ka_ctx){ .ft = &ft, .q = busy_a, .c = fake_cmd_new(&ft) };
	tick = event_new(base, -1, EV_PERSIST, ka_tick_cb, &k);
	assert_non_null(tick);
	assert_int_equal(event_add(tick, &every), 0);
	assert_int_equal(event_base_loopexit(base, &run), 0);
	assert_int_equal(event_base_dispatch(base), 0);

	assert_true(k.sent >= 4);
	assert_int_equal(fake_status(k.c), 0);
	assert_int_equal(idle_a->closes, 1);
	assert_int_equal(idle_io->closes, 1);
	assert_true(idle_a->sq.ctrl->dying);
	assert_int_equal(busy_a->closes, 0);
	assert_int_equal(busy_io->closes, 0);
	assert_true(nvmf_ctrl_ready(busy_a->sq.ctrl));
	assert_int_equal(ft.tgt.stats.kato_expired, 1);

	event_free(tick);
	fake_tgt_fini(&ft);
	event_base_free(base);
}

/* 12. The limits on what a host holds: queues, queue size, controllers, KATO. */
static void test_host_limits(void **state)
{
	struct fake_tgt ft;
	struct fake_q *a1, *a2, *a3, *io;
	struct fake_cmd *c;
	struct fake_connect_args ca = { .qid = 0, .sqsize = 31, .cntlid = 0xffff,
					.kato = 300, .subnqn = FAKE_SUBNQN,
					.hostnqn = FAKE_HOSTNQN };
	uint64_t res = 0;
	uint16_t id;

	(void)state;
	fake_tgt_init(&ft);
	ft.tgt.lim.max_io_queues = 2;
	ft.tgt.lim.max_queue_size = 64;
	ft.tgt.lim.max_ctrls_per_host = 2;
	ft.tgt.lim.min_kato_ms = 1000;
	fake_subsys(&ft, FAKE_SUBNQN, true);
	c = fake_cmd_new(&ft);
	a1 = fake_q_new(&ft);
	a2 = fake_q_new(&ft);
	a3 = fake_q_new(&ft);
	io = fake_q_new(&ft);

	/* A KATO below the minimum is raised to it, counted. */
	id = fake_admin_up_as(&ft, a1, FAKE_SUBNQN, FAKE_HOSTNQN, 300);
	assert_int_equal(a1->sq.ctrl->kato_ms, 1000);
	assert_int_equal(ft.tgt.stats.kato_raised, 1);
	assert_int_equal(fake_set_feat(&ft, a1, c, NVME_FEAT_FID_KATO, 10), 0);
	assert_int_equal(a1->sq.ctrl->kato_ms, 1000);
	assert_int_equal(fake_set_feat(&ft, a1, c, NVME_FEAT_FID_KATO, 0), 0);
	assert_int_equal(a1->sq.ctrl->kato_ms, 0); /* 0 stays 0: kato0_timeout_ms */
	assert_int_equal(ft.tgt.stats.kato_raised, 2);

	/* Number of Queues: 8 asked, 2 granted (0's based in the result). */
	assert_int_equal(fake_set_feat(&ft, a1, c, NVME_FEAT_FID_NUM_QUEUES, 7u << 16 | 7u), 0);
	assert_int_equal(c->cqe.result, 1u << 16 | 1u);
	assert_int_equal(ft.tgt.stats.io_queues_clamped, 1);
	/* Queue 3 refused as an invalid parameter, counted; a queue too deep too. */
	assert_int_not_equal(fake_io_connect(&ft, io, FAKE_SUBNQN, id, 3, 31), 0);
	assert_int_equal(ft.tgt.stats.refused_io_queues, 1);
	assert_int_not_equal(fake_io_connect(&ft, io, FAKE_SUBNQN, id, 1, 64), 0);
	assert_int_equal(ft.tgt.stats.refused_queue_size, 1);
	assert_int_equal(fake_io_connect(&ft, io, FAKE_SUBNQN, id, 2, 63), 0);
	/* CAP.MQES and MAXCMD say the same. */
	assert_int_equal(nvmf_ctrl_cap(a1->sq.ctrl) & 0xffff, 63);

	/* A third controller of the host: Controller Busy. */
	fake_admin_up_as(&ft, a2, FAKE_SUBNQN, FAKE_HOSTNQN, 0);
	assert_int_equal(fake_connect(&ft, a3, &ca, &res),
			 (NVME_SCT_CMD_SPECIFIC << NVME_SCT_SHIFT | NVME_SC_CONNECT_CTRL_BUSY) |
				 NVME_SC_DNR);
	assert_int_equal(ft.tgt.stats.refused_ctrls_per_host, 1);
	/* Another host is not counted against it. */
	ca.hostnqn = "nqn.2014-08.org.example:other";
	assert_int_equal(fake_connect(&ft, a3, &ca, &res), 0);
	fake_tgt_fini(&ft);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fake_fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_cap),
		T(test_vs_and_sizes),
		T(test_bad_offsets),
		T(test_enable),
		T(test_enable_invalid),
		T(test_disable),
		T(test_shutdown),
		T(test_kato_check),
		T(test_kato_touch),
		T(test_kato_zero_and_dying),
		cmocka_unit_test(test_kato_event_loop),
		cmocka_unit_test(test_host_limits),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
