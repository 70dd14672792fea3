/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for asynchronous events in the target core (admin.c AER,
 * ctrl.c aen_kick, subsys.c nvmf_subsys_ns_changed, log page 04h in
 * logpage.c): the AER limit, namespace attribute notices and their
 * masking until the Changed Namespace List is read, and its overflow.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_nvmf.h"

struct fixture {
	struct fake_tgt ft;
	struct nvmf_subsys *subsys;
	struct fake_q *q; /* enabled admin queue */
	struct fake_cmd *c; /* scratch command */
};

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);

	f->subsys = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	fake_ns(&f->ft, f->subsys, 1, "null", 1 << 20, 512);
	fake_ns(&f->ft, f->subsys, 3, "null", 1 << 20, 512);
	fake_ns(&f->ft, f->subsys, 7, "null", 1 << 20, 512);
	f->q = fake_admin_q(&f->ft, NULL, FAKE_SUBNQN, NULL);
	f->c = fake_cmd_new(&f->ft);
	*state = f;
	return 0;
}

/* Queue one AER; it must stay parked. */
static struct fake_cmd *aer(struct fixture *f)
{
	struct fake_cmd *c = fake_cmd_new(&f->ft);

	fake_prep(&f->ft, c, nvme_admin_async_event, 0);
	fake_submit(&f->ft, f->q, c);
	return c;
}

static uint32_t changed_ns_log(struct fixture *f, bool rae, uint32_t *out,
			       size_t n)
{
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_CHANGED_NS,
				      4096, 0, 0, rae),
			 0);
	memcpy(out, f->c->buf, n * 4);
	for (size_t i = n; i < 1024; i++)
		assert_int_equal(((uint32_t *)f->c->buf)[i], 0);
	return out[0];
}

/* 1. AERs: four park, the fifth is over the limit (SCT 1 / 0x05). */
static void test_aer_limit(void **state)
{
	struct fixture *f = *state;
	struct fake_cmd *a[5];

	for (int i = 0; i < 4; i++) {
		a[i] = aer(f);
		assert_int_equal(a[i]->done, 0);
	}
	a[4] = aer(f);
	assert_int_equal(a[4]->done, 1);
	assert_int_equal(fake_status(a[4]), ST_ASYNC_LIMIT);
	assert_int_equal(f->q->sq.ctrl->nr_aer, 4);

	/* Queue teardown completes the parked ones: aborted, SQ deleted. */
	nvmf_sq_quiesce(&f->q->sq);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(a[i]->done, 1);
		assert_int_equal(fake_status(a[i]), ST_ABORT_SQ_DELETION);
		assert_int_equal(a[i]->cqe.cid, a[i]->req.cmd.cid);
	}
	assert_int_equal(f->q->sq.ctrl->nr_aer, 0);
}

/* 2. Namespace change: one AER completes with 0x040002, log 04h lists
 * the nsid; further notices wait until the log is read; reading clears.
 */
static void test_aer_ns_changed(void **state)
{
	struct fixture *f = *state;
	struct fake_cmd *a[3];
	uint32_t list[4];

	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_ASYNC_EVENT,
				       0x100),
			 0);
	for (int i = 0; i < 3; i++)
		a[i] = aer(f);
	nvmf_subsys_ns_changed(f->subsys, 3);
	assert_int_equal(a[0]->done, 1);
	assert_int_equal(fake_status(a[0]), 0);
	assert_int_equal(a[0]->cqe.result, 0x040002);
	assert_int_equal(a[1]->done, 0);
	assert_int_equal(a[2]->done, 0);

	/* Masked until the host reads log 04h. */
	nvmf_subsys_ns_changed(f->subsys, 7);
	nvmf_subsys_ns_changed(f->subsys, 3); /* listed once */
	assert_int_equal(a[1]->done, 0);

	/* RAE=1 reads without clearing. */
	changed_ns_log(f, true, list, 2);
	assert_int_equal(list[0], 3);
	assert_int_equal(list[1], 7);
	assert_int_equal(a[1]->done, 0);

	/* A clearing read re-arms: the pending notice goes out at once. */
	changed_ns_log(f, false, list, 2);
	assert_int_equal(list[0], 3);
	assert_int_equal(list[1], 7);
	assert_int_equal(a[1]->done, 1);
	assert_int_equal(a[1]->cqe.result, 0x040002);
	assert_int_equal(changed_ns_log(f, false, list, 1), 0);
	assert_int_equal(a[2]->done, 0);

	/* A namespace added while connected is a change too. */
	fake_ns(&f->ft, f->subsys, 9, "null", 1 << 20, 512);
	assert_int_equal(a[2]->done, 1);
	assert_int_equal(a[2]->cqe.result, 0x040002);
	changed_ns_log(f, false, list, 2);
	assert_int_equal(list[0], 9);
	assert_int_equal(list[1], 0);
}

/* 3. With notices disabled nothing completes; enabling sends it. */
static void test_aer_disabled_then_enabled(void **state)
{
	struct fixture *f = *state;
	struct fake_cmd *a = aer(f);
	uint32_t list[2];

	nvmf_subsys_ns_changed(f->subsys, 1);
	assert_int_equal(a->done, 0);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_ASYNC_EVENT,
				       0x100),
			 0);
	assert_int_equal(a->done, 1);
	assert_int_equal(a->cqe.result, 0x040002);
	changed_ns_log(f, false, list, 2);
	assert_int_equal(list[0], 1);
	assert_int_equal(list[1], 0);
}

/* 4. More than 1024 changed namespaces: the log says FFFFFFFFh. */
static void test_changed_ns_overflow(void **state)
{
	struct fixture *f = *state;
	const uint32_t *log = (const void *)f->c->buf;
	uint32_t list[1];

	for (uint32_t nsid = 1; nsid <= 1024; nsid++)
		nvmf_subsys_ns_changed(f->subsys, nsid);
	nvmf_subsys_ns_changed(f->subsys, 5); /* a repeat is not new */
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_CHANGED_NS,
				      4096, 0, 0, true),
			 0);
	for (uint32_t i = 0; i < 1024; i++)
		assert_int_equal(log[i], i + 1);

	nvmf_subsys_ns_changed(f->subsys, 1025);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_CHANGED_NS,
				      4096, 0, 0, false),
			 0);
	assert_int_equal(log[0], 0xffffffff);
	for (int i = 1; i < 1024; i++)
		assert_int_equal(log[i], 0);
	/* Reading cleared it. */
	assert_int_equal(changed_ns_log(f, false, list, 1), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fake_fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_aer_limit),
		T(test_aer_ns_changed),
		T(test_aer_disabled_then_enabled),
		T(test_changed_ns_overflow),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
