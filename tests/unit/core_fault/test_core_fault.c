/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the latency of the Fabrics commands (fault_hold.c, core.c)
 * on a virtual clock (only the test moves it; a timer that fires before it
 * got there waits for the rest): a Connect held before it runs (no
 * controller until then), the queue counting it as held; a Property Set
 * and Get held; admin commands and another host's Connect not seen; a
 * Connect naming no terminated NQN not matched; a held Connect ended by
 * its queue going, or let go by the fault cleared.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>

#include "fake_nvmf.h"

#define MS 1000000ull

struct fixture {
	struct fake_tgt ft;
	struct nvmf_subsys *subsys;
	struct event_base *base;
};

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);

	f->subsys = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	fake_ns(&f->ft, f->subsys, 1, "ram", 1 << 20, 512);
	f->base = event_base_new();
	assert_non_null(f->base);
	f->ft.tgt.base = f->base; /* the hold timer's loop; the clock stays virtual */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct event_base *base = f->base;

	f->ft.tgt.base = NULL;
	if (f->ft.tgt.hold_ev)
		event_free(f->ft.tgt.hold_ev);
	f->ft.tgt.hold_ev = NULL;
	fake_fixture_teardown(state);
	event_base_free(base);
	return 0;
}

/* A latency fault of the Fabrics commands of @host ("": every host's), @delay_ns; its id. */
static uint32_t fabrics_fault(struct fixture *f, const char *host, uint64_t delay_ns)
{
	struct blox_fault_spec s = { .kind = BLOX_FAULT_DELAY, .ops = BLOX_FAULT_OP_FABRICS,
				     .probability = 1, .delay_ns = delay_ns };
	uint32_t id;

	snprintf(s.subsys, sizeof(s.subsys), "%s", FAKE_SUBNQN);
	snprintf(s.host, sizeof(s.host), "%s", host);
	assert_int_equal(blox_fault_add(f->ft.tgt.faults, &s, 0, &id, NULL, 0), 0);
	return id;
}

static struct fake_connect_args admin_args(const char *host)
{
	return (struct fake_connect_args){ .qid = 0, .sqsize = 31, .cntlid = 0xffff,
					   .subnqn = FAKE_SUBNQN, .hostnqn = host };
}

/* The clock moved to @t, the loop run once: what is due by then completes. */
static void at(struct fixture *f, uint64_t t)
{
	blox_clock_set(&f->ft.clock, t);
	event_base_loop(f->base, EVLOOP_ONCE);
}

/*
 * 1. A Connect, a Property Set and a Property Get of the host each wait
 * the delay before they run; a Keep Alive and another host's Connect do
 * not; the controller exists only once its Connect ran.
 */
static void test_fabrics_held(void **state)
{
	struct fixture *f = *state;
	struct nvmf_tgt *tgt = &f->ft.tgt;
	struct fake_q *q = fake_q_new(&f->ft), *q2 = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args(FAKE_HOSTNQN);
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	uint64_t t0 = blox_clock_now(&f->ft.clock), v = 0;
	uint32_t id = fabrics_fault(f, FAKE_HOSTNQN, 5 * MS);

	fake_prep_connect(&f->ft, c, &a);
	fake_submit(&f->ft, q, c);
	assert_int_equal(c->done, 0);
	assert_null(q->sq.ctrl); /* not run yet */
	assert_int_equal(q->sq.held, 1);
	assert_int_equal(nvmf_holds_of(tgt, id), 1);
	event_base_loop(f->base, EVLOOP_ONCE); /* the timer, the clock not moved */
	assert_int_equal(c->done, 0);
	at(f, t0 + 5 * MS);
	assert_int_equal(c->done, 1);
	assert_int_equal(fake_status(c), 0);
	assert_non_null(q->sq.ctrl);
	assert_int_equal(q->sq.held, 0);
	assert_int_equal(nvmf_holds_count(tgt), 0);

	/* Property Set CC.EN: held; run when due. */
	c = fake_cmd_new(&f->ft);
	fake_prep(&f->ft, c, nvme_admin_fabrics, nvme_fabrics_type_property_set);
	c->req.cmd.cdw11 = NVME_REG_CC;
	c->req.cmd.cdw12 = FAKE_CC_ENABLE;
	fake_submit(&f->ft, q, c);
	assert_int_equal(c->done, 0);
	assert_false(nvmf_ctrl_ready(q->sq.ctrl));
	at(f, t0 + 10 * MS);
	assert_int_equal(c->done, 1);
	assert_true(nvmf_ctrl_ready(q->sq.ctrl));
	/* Property Get CSTS: held, answers RDY. */
	c = fake_cmd_new(&f->ft);
	fake_prep(&f->ft, c, nvme_admin_fabrics, nvme_fabrics_type_property_get);
	c->req.cmd.cdw11 = NVME_REG_CSTS;
	fake_submit(&f->ft, q, c);
	assert_int_equal(c->done, 0);
	at(f, t0 + 15 * MS);
	assert_int_equal(c->done, 1);
	assert_int_equal(c->cqe.result & 1, 1);

	/* A Keep Alive is an admin command: not seen. */
	c = fake_cmd_new(&f->ft);
	fake_prep(&f->ft, c, nvme_admin_keep_alive, 0);
	assert_int_equal(fake_exec(&f->ft, q, c), 0);
	/* Another host's Connect: not seen. */
	a = admin_args(FAKE_HOSTNQN2);
	assert_int_equal(fake_connect(&f->ft, q2, &a, &v), 0);
	assert_non_null(q2->sq.ctrl);
	v = 0;
	assert_int_equal(fake_prop_get(&f->ft, q2, NVME_REG_VS, false, &v), 0);
	assert_int_not_equal(v, 0);
	assert_int_equal(nvmf_holds_count(tgt), 0);
}

/*
 * 2. Every host's: a Connect whose host NQN is not terminated is not
 * matched (it fails at once, as it would); a held Connect whose queue
 * goes ends with Command Aborted due to SQ Deletion; one held when the
 * fault is cleared runs at once.
 */
static void test_fabrics_ends(void **state)
{
	struct fixture *f = *state;
	struct nvmf_tgt *tgt = &f->ft.tgt;
	struct fake_q *q = fake_q_new(&f->ft), *q2 = fake_q_new(&f->ft);
	struct fake_connect_args a = admin_args(FAKE_HOSTNQN);
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	struct nvmf_connect_data *d;

	fabrics_fault(f, "", 60000 * MS);
	fake_prep_connect(&f->ft, c, &a);
	d = (void *)c->buf;
	memset(d->hostnqn, 'x', sizeof(d->hostnqn));
	assert_int_equal(fake_exec(&f->ft, q, c), ST_CONNECT_INVALID_PARAM);
	assert_int_equal(nvmf_holds_count(tgt), 0);

	/* Held, then its queue goes. */
	c = fake_cmd_new(&f->ft);
	fake_prep_connect(&f->ft, c, &a);
	fake_submit(&f->ft, q, c);
	assert_int_equal(c->done, 0);
	assert_int_equal(q->sq.held, 1);
	nvmf_sq_quiesce(&q->sq);
	assert_int_equal(c->done, 1);
	assert_int_equal(fake_status(c), ST_ABORT_SQ_DELETION);
	assert_int_equal(q->sq.held, 0);
	assert_null(q->sq.ctrl);

	/* Held, then the fault is cleared: it runs now. */
	c = fake_cmd_new(&f->ft);
	fake_prep_connect(&f->ft, c, &a);
	fake_submit(&f->ft, q2, c);
	assert_int_equal(c->done, 0);
	blox_fault_clear(tgt->faults);
	nvmf_faults_cleared(tgt);
	assert_int_equal(c->done, 1);
	assert_int_equal(fake_status(c), 0);
	assert_non_null(q2->sq.ctrl);
	assert_int_equal(nvmf_holds_count(tgt), 0);
	assert_false(evtimer_pending(tgt->hold_ev, NULL)); /* no hold timer left */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fabrics_held, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fabrics_ends, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
