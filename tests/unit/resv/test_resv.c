/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the reservation state machine (daemon/nvmf/resv.c):
 * Register (register, unregister, replace; IEKEY, CPTPL), Acquire
 * (acquire, preempt, preempt and abort), Release (release, clear), the
 * generation, the report (extended; the normal one refused), the
 * notifications to other hosts, and the access check against the NVM
 * command set's command-behaviour table: every type x {holder,
 * registrant, non-registrant} x {read, write}.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nvme_spec.h"
#include "resv.h"

#define CONFLICT (NVME_SC_RESERVATION_CONFLICT | NVME_SC_DNR)
#define INVALID (NVME_SC_INVALID_FIELD | NVME_SC_DNR)

/* Hosts A, B, C, D: identifiers 16 bytes of 0xA0.., 0xB0.., ... */
static uint8_t H[4][16];

struct ev {
	uint8_t host;
	enum nvmf_resv_event ev;
};

struct rec {
	struct ev evs[16];
	int n;
};

static void on_event(void *arg, const uint8_t hostid[16], enum nvmf_resv_event ev)
{
	struct rec *r = arg;
	int h = -1;

	for (int i = 0; i < 4; i++)
		if (!memcmp(H[i], hostid, 16))
			h = i;
	assert_true(h >= 0);
	assert_true(r->n < 16);
	r->evs[r->n++] = (struct ev){ (uint8_t)h, ev };
}

struct fixture {
	struct nvmf_resv r;
	struct rec rec;
	struct nvmf_resv_cb cb;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 16; j++)
			H[i][j] = (uint8_t)(0xa0 + 0x10 * i + j);
	nvmf_resv_init(&f->r);
	f->cb.event = on_event;
	f->cb.arg = &f->rec;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	nvmf_resv_fini(&f->r);
	free(f);
	return 0;
}

static uint32_t cdw(uint32_t act, uint8_t rtype)
{
	return act | ((uint32_t)rtype << 8);
}

static uint16_t reg(struct fixture *f, int h, uint64_t key)
{
	return nvmf_resv_register(&f->r, H[h], NVMF_RESV_REGISTER, 0, key, &f->cb);
}

static uint16_t acq(struct fixture *f, int h, uint32_t act, uint8_t rtype, uint64_t crkey,
		    uint64_t prkey)
{
	return nvmf_resv_acquire(&f->r, H[h], cdw(act, rtype), crkey, prkey, &f->cb);
}

static uint16_t rel(struct fixture *f, int h, uint32_t act, uint8_t rtype, uint64_t crkey)
{
	return nvmf_resv_release(&f->r, H[h], cdw(act, rtype), crkey, &f->cb);
}

static void expect_events(struct fixture *f, int n, const struct ev *want)
{
	assert_int_equal(f->rec.n, n);
	for (int i = 0; i < n; i++) {
		assert_int_equal(f->rec.evs[i].host, want[i].host);
		assert_int_equal(f->rec.evs[i].ev, want[i].ev);
	}
	f->rec.n = 0;
}

/* ---- Register ---- */

static void test_register(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(reg(f, 0, 0x1111), 0);
	assert_int_equal(f->r.gen, 1);
	assert_non_null(nvmf_resv_find(&f->r, H[0]));
	/* Again with the same key: success (and a new generation); another key: conflict. */
	assert_int_equal(reg(f, 0, 0x1111), 0);
	assert_int_equal(f->r.gen, 2);
	assert_int_equal(reg(f, 0, 0x2222), CONFLICT);
	assert_int_equal(f->r.gen, 2);
	assert_int_equal(f->r.nr, 1);
	/* Reserved action values. */
	assert_int_equal(nvmf_resv_register(&f->r, H[0], 3, 0, 1, &f->cb), INVALID);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], 7, 0, 1, &f->cb), INVALID);
	/* Replace: wrong key conflicts, IEKEY ignores it, unregistered host conflicts. */
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_REPLACE, 0x9, 0x3333, &f->cb),
			 CONFLICT);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_REPLACE, 0x1111, 0x3333, &f->cb),
			 0);
	assert_int_equal(nvmf_resv_find(&f->r, H[0])->key, 0x3333);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_REPLACE | NVMF_RESV_IEKEY, 0x9,
					    0x4444, &f->cb),
			 0);
	assert_int_equal(nvmf_resv_find(&f->r, H[0])->key, 0x4444);
	assert_int_equal(nvmf_resv_register(&f->r, H[1], NVMF_RESV_REPLACE | NVMF_RESV_IEKEY, 0,
					    0x4444, &f->cb),
			 CONFLICT);
	/* Unregister: wrong key, not registered, IEKEY. */
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_UNREGISTER, 0x1, 0, &f->cb),
			 CONFLICT);
	assert_int_equal(nvmf_resv_register(&f->r, H[1], NVMF_RESV_UNREGISTER, 0x4444, 0, &f->cb),
			 CONFLICT);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_UNREGISTER | NVMF_RESV_IEKEY, 0x1,
					    0, &f->cb),
			 0);
	assert_int_equal(f->r.nr, 0);
	assert_null(nvmf_resv_find(&f->r, H[0]));
	assert_int_equal(f->r.gen, 5);
	expect_events(f, 0, NULL);
}

static void test_register_cptpl(void **state)
{
	struct fixture *f = *state;

	/* 01b reserved; 11b (set PTPL) refused without persistence. */
	assert_int_equal(nvmf_resv_register(&f->r, H[0], 1u << 30, 0, 1, &f->cb), INVALID);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], 3u << 30, 0, 1, &f->cb), INVALID);
	assert_int_equal(f->r.nr, 0);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], 2u << 30, 0, 1, &f->cb), 0);
	assert_false(f->r.ptpl);
	f->r.ptpl_capable = true;
	assert_int_equal(nvmf_resv_register(&f->r, H[0], 3u << 30, 0, 1, &f->cb), 0);
	assert_true(f->r.ptpl);
	/* A failed command changes nothing of PTPL. */
	assert_int_equal(nvmf_resv_register(&f->r, H[0], (2u << 30) | NVMF_RESV_REPLACE, 7, 2,
					    &f->cb),
			 CONFLICT);
	assert_true(f->r.ptpl);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], 2u << 30, 0, 1, &f->cb), 0);
	assert_false(f->r.ptpl);
}

static void test_register_many(void **state)
{
	struct fixture *f = *state;
	uint8_t h[16] = { 0 };

	for (uint32_t i = 0; i < NVMF_RESV_MAX_REGS; i++) {
		memcpy(h, &i, sizeof(i));
		assert_int_equal(nvmf_resv_register(&f->r, h, 0, 0, i + 1, NULL), 0);
	}
	h[15] = 1;
	assert_int_equal(nvmf_resv_register(&f->r, h, 0, 0, 1, NULL), NVME_SC_INTERNAL);
	assert_int_equal(f->r.nr, NVMF_RESV_MAX_REGS);
}

/* ---- Acquire ---- */

static void test_acquire(void **state)
{
	struct fixture *f = *state;

	/* Not registered, or the wrong key: conflict. */
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE, 1, 0), CONFLICT);
	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE, 2, 0), CONFLICT);
	/* Bad fields: reserved action, type 0 or 7, IEKEY. */
	assert_int_equal(acq(f, 0, 3, NVMF_RESV_WE, 1, 0), INVALID);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, 0, 1, 0), INVALID);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, 7, 1, 0), INVALID);
	assert_int_equal(nvmf_resv_acquire(&f->r, H[0], cdw(0, 1) | NVMF_RESV_IEKEY, 1, 0, &f->cb),
			 INVALID);
	assert_int_equal(f->r.rtype, NVMF_RESV_NONE);
	/* Acquire; again with the same type: success; another type: conflict. */
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE, 1, 0), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_WE);
	assert_true(nvmf_resv_is_holder(&f->r, H[0]));
	assert_false(nvmf_resv_is_holder(&f->r, H[1]));
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE, 1, 0), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_EA, 1, 0), CONFLICT);
	/* Another registrant cannot acquire it. */
	assert_int_equal(acq(f, 1, NVMF_RESV_ACQUIRE, NVMF_RESV_WE, 2, 0), CONFLICT);
	/* Acquire does not move the generation (two registrations did). */
	assert_int_equal(f->r.gen, 2);
	expect_events(f, 0, NULL);
}

static void test_acquire_all_registrants(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_EA_AR, 1, 0), 0);
	/* Every registrant holds it, and may acquire it again, but not as another type. */
	assert_true(nvmf_resv_is_holder(&f->r, H[1]));
	assert_int_equal(acq(f, 1, NVMF_RESV_ACQUIRE, NVMF_RESV_EA_AR, 2, 0), 0);
	assert_int_equal(acq(f, 1, NVMF_RESV_ACQUIRE, NVMF_RESV_WE_AR, 2, 0), CONFLICT);
	/* The one that acquired it leaves: the others keep it; the last one ends it. */
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_UNREGISTER, 1, 0, &f->cb), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_EA_AR);
	assert_true(nvmf_resv_is_holder(&f->r, H[1]));
	assert_int_equal(nvmf_resv_register(&f->r, H[1], NVMF_RESV_UNREGISTER, 2, 0, &f->cb), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_NONE);
	expect_events(f, 0, NULL);
}

static void test_unregister_holder(void **state)
{
	struct fixture *f = *state;
	static const struct ev rel_b[] = { { 1, NVMF_RESV_EV_RELEASED } };

	/* Registrants Only: the others learn of the release. */
	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE_RO, 1, 0), 0);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_UNREGISTER, 1, 0, &f->cb), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_NONE);
	expect_events(f, 1, rel_b);
	/* Write Exclusive: released without a notification. */
	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE, 1, 0), 0);
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_UNREGISTER, 1, 0, &f->cb), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_NONE);
	expect_events(f, 0, NULL);
	/* A non-holder leaving changes nothing of the reservation. */
	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_EA_RO, 1, 0), 0);
	assert_int_equal(nvmf_resv_register(&f->r, H[1], NVMF_RESV_UNREGISTER, 2, 0, &f->cb), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_EA_RO);
	assert_true(nvmf_resv_is_holder(&f->r, H[0]));
	/* The holder replacing its key stays the holder. */
	assert_int_equal(nvmf_resv_register(&f->r, H[0], NVMF_RESV_REPLACE, 1, 5, &f->cb), 0);
	assert_true(nvmf_resv_is_holder(&f->r, H[0]));
	expect_events(f, 0, NULL);
}

/* ---- Preempt ---- */

static void test_preempt_holder(void **state)
{
	struct fixture *f = *state;
	static const struct ev want[] = { { 0, NVMF_RESV_EV_REG_PREEMPTED },
					  { 2, NVMF_RESV_EV_REG_PREEMPTED },
					  { 3, NVMF_RESV_EV_RELEASED } };

	/* A holds WE with key 1; C shares key 1; D has key 4. */
	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(reg(f, 2, 1), 0);
	assert_int_equal(reg(f, 3, 4), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE, 1, 0), 0);
	/* B preempts the holder's key as EA: A and C go, B holds EA, D learns of the release. */
	assert_int_equal(acq(f, 1, NVMF_RESV_PREEMPT, NVMF_RESV_EA, 2, 1), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_EA);
	assert_true(nvmf_resv_is_holder(&f->r, H[1]));
	assert_null(nvmf_resv_find(&f->r, H[0]));
	assert_null(nvmf_resv_find(&f->r, H[2]));
	assert_non_null(nvmf_resv_find(&f->r, H[3]));
	assert_int_equal(f->r.gen, 5);
	expect_events(f, 3, want);
}

static void test_preempt_others(void **state)
{
	struct fixture *f = *state;
	static const struct ev c_gone[] = { { 2, NVMF_RESV_EV_REG_PREEMPTED } };

	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(reg(f, 2, 3), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE_RO, 1, 0), 0);
	/* PRKEY not the holder's: registrants with that key go, the reservation stays. */
	assert_int_equal(acq(f, 1, NVMF_RESV_PREEMPT, NVMF_RESV_WE, 2, 3), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_WE_RO);
	assert_true(nvmf_resv_is_holder(&f->r, H[0]));
	expect_events(f, 1, c_gone);
	/* No registrant with that key: conflict; PRKEY 0: invalid field. */
	assert_int_equal(acq(f, 1, NVMF_RESV_PREEMPT, NVMF_RESV_WE, 2, 9), CONFLICT);
	assert_int_equal(acq(f, 1, NVMF_RESV_PREEMPT, NVMF_RESV_WE, 2, 0), INVALID);
	assert_int_equal(f->r.gen, 4);
	/* The holder preempting itself changes the type; the others learn of the release. */
	static const struct ev b_rel[] = { { 1, NVMF_RESV_EV_RELEASED } };

	assert_int_equal(acq(f, 0, NVMF_RESV_PREEMPT_ABORT, NVMF_RESV_EA_RO, 1, 1), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_EA_RO);
	assert_true(nvmf_resv_is_holder(&f->r, H[0]));
	assert_int_equal(f->r.nr, 2);
	expect_events(f, 1, b_rel);
	/* The same type again: nothing to tell. */
	assert_int_equal(acq(f, 0, NVMF_RESV_PREEMPT, NVMF_RESV_EA_RO, 1, 1), 0);
	expect_events(f, 0, NULL);
}

static void test_preempt_no_reservation(void **state)
{
	struct fixture *f = *state;
	static const struct ev b_gone[] = { { 1, NVMF_RESV_EV_REG_PREEMPTED } };

	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_PREEMPT, NVMF_RESV_WE, 1, 7), CONFLICT);
	assert_int_equal(acq(f, 0, NVMF_RESV_PREEMPT, NVMF_RESV_WE, 1, 2), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_NONE);
	assert_int_equal(f->r.nr, 1);
	expect_events(f, 1, b_gone);
	/* A host may preempt its own key: it is unregistered, nobody told. */
	assert_int_equal(acq(f, 0, NVMF_RESV_PREEMPT, NVMF_RESV_WE, 1, 1), 0);
	assert_int_equal(f->r.nr, 0);
	expect_events(f, 0, NULL);
}

static void test_preempt_all_registrants(void **state)
{
	struct fixture *f = *state;
	static const struct ev c_gone[] = { { 2, NVMF_RESV_EV_REG_PREEMPTED } };
	static const struct ev b_gone[] = { { 1, NVMF_RESV_EV_REG_PREEMPTED } };

	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(reg(f, 2, 3), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE_AR, 1, 0), 0);
	/* A key: its registrants go, the reservation stays with the rest. */
	assert_int_equal(acq(f, 1, NVMF_RESV_PREEMPT, NVMF_RESV_WE_AR, 2, 3), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_WE_AR);
	expect_events(f, 1, c_gone);
	assert_int_equal(acq(f, 1, NVMF_RESV_PREEMPT, NVMF_RESV_WE_AR, 2, 9), CONFLICT);
	/* PRKEY 0: the host alone holds a reservation of the new type. */
	assert_int_equal(acq(f, 0, NVMF_RESV_PREEMPT, NVMF_RESV_EA, 1, 0), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_EA);
	assert_int_equal(f->r.nr, 1);
	assert_true(nvmf_resv_is_holder(&f->r, H[0]));
	expect_events(f, 1, b_gone);
}

/* ---- Release and clear ---- */

static void test_release(void **state)
{
	struct fixture *f = *state;
	static const struct ev b_rel[] = { { 1, NVMF_RESV_EV_RELEASED } };

	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	/* Nothing held: success. Bad fields and keys first. */
	assert_int_equal(rel(f, 0, NVMF_RESV_RELEASE, NVMF_RESV_WE, 1), 0);
	assert_int_equal(rel(f, 0, 2, NVMF_RESV_WE, 1), INVALID);
	assert_int_equal(nvmf_resv_release(&f->r, H[0], NVMF_RESV_IEKEY, 9, &f->cb), INVALID);
	assert_int_equal(rel(f, 0, NVMF_RESV_RELEASE, NVMF_RESV_WE, 9), CONFLICT);
	assert_int_equal(rel(f, 2, NVMF_RESV_RELEASE, NVMF_RESV_WE, 1), CONFLICT);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_EA_RO, 1, 0), 0);
	/* A registrant that is not the holder: success, no effect. */
	assert_int_equal(rel(f, 1, NVMF_RESV_RELEASE, NVMF_RESV_EA_RO, 2), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_EA_RO);
	/* The holder with the wrong type: invalid field. */
	assert_int_equal(rel(f, 0, NVMF_RESV_RELEASE, NVMF_RESV_EA, 1), INVALID);
	assert_int_equal(rel(f, 0, NVMF_RESV_RELEASE, NVMF_RESV_EA_RO, 1), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_NONE);
	assert_int_equal(f->r.nr, 2);
	expect_events(f, 1, b_rel);
	/* Release moves no generation. */
	assert_int_equal(f->r.gen, 2);
	/* Exclusive Access released: nobody told. */
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_EA, 1, 0), 0);
	assert_int_equal(rel(f, 0, NVMF_RESV_RELEASE, NVMF_RESV_EA, 1), 0);
	expect_events(f, 0, NULL);
	/* All Registrants: any registrant releases it for all. */
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE_AR, 1, 0), 0);
	assert_int_equal(rel(f, 1, NVMF_RESV_RELEASE, NVMF_RESV_WE_AR, 2), 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_NONE);
	static const struct ev a_rel[] = { { 0, NVMF_RESV_EV_RELEASED } };

	expect_events(f, 1, a_rel);
}

static void test_clear(void **state)
{
	struct fixture *f = *state;
	static const struct ev want[] = { { 0, NVMF_RESV_EV_RESV_PREEMPTED },
					  { 2, NVMF_RESV_EV_RESV_PREEMPTED } };

	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(reg(f, 2, 3), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_EA, 1, 0), 0);
	assert_int_equal(rel(f, 1, NVMF_RESV_CLEAR, 0, 9), CONFLICT);
	assert_int_equal(rel(f, 3, NVMF_RESV_CLEAR, 0, 0), CONFLICT);
	/* Any registrant clears, with its own key; the type does not matter. */
	assert_int_equal(rel(f, 1, NVMF_RESV_CLEAR, 0, 2), 0);
	assert_int_equal(f->r.nr, 0);
	assert_int_equal(f->r.rtype, NVMF_RESV_NONE);
	assert_int_equal(f->r.gen, 4);
	expect_events(f, 2, want);
	nvmf_resv_clear_all(&f->r);
	assert_int_equal(f->r.gen, 5);
}

/* ---- Report ---- */

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void test_report(void **state)
{
	struct fixture *f = *state;
	uint8_t buf[64 * 4];

	assert_int_equal(nvmf_resv_report(&f->r, false, buf, sizeof(buf)),
			 NVME_SC_HOSTID_FORMAT | NVME_SC_DNR);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(nvmf_resv_report(&f->r, true, buf, sizeof(buf)), 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);

	assert_int_equal(reg(f, 0, 0x0102030405060708ull), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(acq(f, 1, NVMF_RESV_ACQUIRE, NVMF_RESV_WE_RO, 2, 0), 0);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(nvmf_resv_report(&f->r, true, buf, sizeof(buf)), 0);
	assert_int_equal(buf[0], 2); /* generation */
	assert_int_equal(buf[4], NVMF_RESV_WE_RO);
	assert_int_equal(buf[5] | buf[6] << 8, 2); /* REGCTL */
	assert_int_equal(buf[9], 0); /* PTPLS */
	for (int i = 10; i < 64; i++)
		assert_int_equal(buf[i], 0);
	/* A: not holding. */
	assert_int_equal(buf[64] | buf[65] << 8, 0xffff);
	assert_int_equal(buf[66], 0);
	assert_int_equal(le64(buf + 72), 0x0102030405060708ull);
	assert_memory_equal(buf + 80, H[0], 16);
	/* B: the holder. */
	assert_int_equal(buf[128 + 2], 1);
	assert_int_equal(le64(buf + 128 + 8), 2);
	assert_memory_equal(buf + 128 + 16, H[1], 16);
	for (size_t i = 192; i < sizeof(buf); i++)
		assert_int_equal(buf[i], 0);

	/* All Registrants: every entry holds. A short buffer takes what fits. */
	assert_int_equal(rel(f, 1, NVMF_RESV_RELEASE, NVMF_RESV_WE_RO, 2), 0);
	assert_int_equal(acq(f, 1, NVMF_RESV_ACQUIRE, NVMF_RESV_EA_AR, 2, 0), 0);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(nvmf_resv_report(&f->r, true, buf, 100), 0);
	assert_int_equal(buf[5], 2);
	assert_int_equal(buf[66], 1);
	assert_int_equal(buf[95], H[0][15]);
	assert_int_equal(buf[99], 0);
	assert_int_equal(buf[100], 0xee);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(nvmf_resv_report(&f->r, true, buf, 8), 0);
	assert_int_equal(buf[4], NVMF_RESV_EA_AR);
	assert_int_equal(buf[8], 0xee);
}

/* ---- access: the command-behaviour table ---- */

enum role { HOLDER, REGISTRANT, OTHER };

/* 1: allowed, 0: Reservation Conflict, per type, role and {read, write}. */
static const bool table[7][3][2] = {
	[NVMF_RESV_WE] = { { 1, 1 }, { 1, 0 }, { 1, 0 } },
	[NVMF_RESV_EA] = { { 1, 1 }, { 0, 0 }, { 0, 0 } },
	[NVMF_RESV_WE_RO] = { { 1, 1 }, { 1, 1 }, { 1, 0 } },
	[NVMF_RESV_EA_RO] = { { 1, 1 }, { 1, 1 }, { 0, 0 } },
	[NVMF_RESV_WE_AR] = { { 1, 1 }, { 1, 1 }, { 1, 0 } },
	[NVMF_RESV_EA_AR] = { { 1, 1 }, { 1, 1 }, { 0, 0 } },
};

static const uint8_t reads[] = { nvme_cmd_read, nvme_cmd_compare, nvme_cmd_verify };
static const uint8_t writes[] = { nvme_cmd_write,	nvme_cmd_write_zeroes, nvme_cmd_dsm,
				  nvme_cmd_flush,	nvme_cmd_write_uncor,  nvme_cmd_copy };

static void test_access_table(void **state)
{
	struct fixture *f = *state;

	for (uint8_t t = NVMF_RESV_WE; t <= NVMF_RESV_EA_AR; t++) {
		nvmf_resv_clear_all(&f->r);
		assert_int_equal(reg(f, 0, 1), 0);
		assert_int_equal(reg(f, 1, 2), 0);
		assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, t, 1, 0), 0);
		for (int role = HOLDER; role <= OTHER; role++) {
			for (int w = 0; w < 2; w++) {
				const uint8_t *ops = w ? writes : reads;
				size_t n = w ? sizeof(writes) : sizeof(reads);

				for (size_t i = 0; i < n; i++) {
					uint16_t st = nvmf_resv_access(&f->r, H[role], ops[i]);

					if (table[t][role][w] != (st == 0))
						fail_msg("type %u role %d opc 0x%02x: status 0x%x", t,
							 role, ops[i], st);
					assert_true(st == 0 || st == CONFLICT);
				}
			}
			/* The reservation commands themselves are never refused here. */
			assert_int_equal(nvmf_resv_access(&f->r, H[role], nvme_cmd_resv_report), 0);
			assert_int_equal(nvmf_resv_access(&f->r, H[role], nvme_cmd_resv_release), 0);
		}
	}
	/* No reservation: everyone does everything. */
	nvmf_resv_clear_all(&f->r);
	for (int role = HOLDER; role <= OTHER; role++)
		assert_int_equal(nvmf_resv_access(&f->r, H[role], nvme_cmd_write), 0);
	expect_events(f, 0, NULL);
}

/* ---- the persisted form ---- */

static void test_encode_decode(void **state)
{
	struct fixture *f = *state;
	struct nvmf_resv back;
	char *text;

	assert_int_equal(reg(f, 0, 0xfedcba9876543210ull), 0);
	assert_int_equal(reg(f, 1, 2), 0);
	assert_int_equal(acq(f, 1, NVMF_RESV_ACQUIRE, NVMF_RESV_EA_RO, 2, 0), 0);
	f->r.ptpl = true;
	text = nvmf_resv_encode(&f->r);
	assert_non_null(text);
	nvmf_resv_init(&back);
	assert_int_equal(nvmf_resv_decode(&back, text), 0);
	assert_int_equal(back.gen, 2);
	assert_int_equal(back.rtype, NVMF_RESV_EA_RO);
	assert_true(back.ptpl);
	assert_int_equal(back.nr, 2);
	assert_memory_equal(back.regs[0].hostid, H[0], 16);
	assert_int_equal(back.regs[0].key, 0xfedcba9876543210ull);
	assert_true(nvmf_resv_is_holder(&back, H[1]));
	assert_false(nvmf_resv_is_holder(&back, H[0]));
	nvmf_resv_fini(&back);
	free(text);

	/* Not that form: refused. */
	static const char *const bad[] = {
		"",
		"blox-resv 2\n",
		"blox-resv 1\nrtype 9\n",
		"blox-resv 1\nrtype 1\nholder 00000000000000000000000000000000\n",
		"blox-resv 1\nreg 0011 5\n",
		"blox-resv 1\nreg 000102030405060708090a0b0c0d0e0f 5\n"
		"reg 000102030405060708090a0b0c0d0e0f 6\n",
		"blox-resv 1\nwhat 1\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		nvmf_resv_init(&back);
		if (nvmf_resv_decode(&back, bad[i]) != -EINVAL)
			fail_msg("decoded: %s", bad[i]);
		nvmf_resv_fini(&back);
	}
	/* An All Registrants reservation needs no holder line of a registrant. */
	nvmf_resv_init(&back);
	assert_int_equal(nvmf_resv_decode(&back, "blox-resv 1\nptpl 1\nrtype 6\n"
						 "reg 000102030405060708090a0b0c0d0e0f 5\n"),
			 0);
	assert_int_equal(back.rtype, NVMF_RESV_EA_AR);
	nvmf_resv_fini(&back);
}

static void test_copy(void **state)
{
	struct fixture *f = *state;
	struct nvmf_resv c;

	assert_int_equal(reg(f, 0, 1), 0);
	assert_int_equal(acq(f, 0, NVMF_RESV_ACQUIRE, NVMF_RESV_WE, 1, 0), 0);
	nvmf_resv_init(&c);
	assert_int_equal(nvmf_resv_copy(&c, &f->r), 0);
	assert_int_equal(rel(f, 0, NVMF_RESV_CLEAR, 0, 1), 0);
	assert_int_equal(c.nr, 1);
	assert_true(nvmf_resv_is_holder(&c, H[0]));
	assert_int_equal(c.gen, 1);
	nvmf_resv_fini(&c);
}

static void test_opc_class(void **state)
{
	(void)state;
	assert_int_equal(nvmf_resv_opc_class(nvme_cmd_read), NVMF_RESV_CLASS_READ);
	assert_int_equal(nvmf_resv_opc_class(nvme_cmd_flush), NVMF_RESV_CLASS_WRITE);
	assert_int_equal(nvmf_resv_opc_class(nvme_cmd_resv_register), NVMF_RESV_CLASS_OTHER);
	assert_int_equal(nvmf_resv_opc_class(nvme_cmd_resv_acquire), NVMF_RESV_CLASS_OTHER);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_register),
		T(test_register_cptpl),
		T(test_register_many),
		T(test_acquire),
		T(test_acquire_all_registrants),
		T(test_unregister_holder),
		T(test_preempt_holder),
		T(test_preempt_others),
		T(test_preempt_no_reservation),
		T(test_preempt_all_registrants),
		T(test_release),
		T(test_clear),
		T(test_report),
		T(test_access_table),
		T(test_opc_class),
		T(test_encode_decode),
		T(test_copy),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
