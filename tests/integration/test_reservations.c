/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of NVMe reservations over loopback: two hosts (two
 * host NQNs, two host identifiers), each a controller with an I/O queue
 * on one namespace of a bloxd. Every reservation type against the other
 * host as a registrant and as a non-registrant, for reads and writes;
 * preempt, preempt and abort, release, clear; the report from both
 * hosts; the other host's AEN and log page 80h, and the mask; a host
 * that disconnects keeps its registration and its reservation. bloxd runs
 * three reactors: queues, the namespace's device and the core each on
 * their own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:resv"
#define BS 4096u
#define KEY_A 0xa1a2a3a4a5a6a7a8ull
#define KEY_B 0xb1ull

#define ST_CONFLICT 0x4083
#define ST_INVALID_FIELD 0x4002
#define ST_HOSTID_FORMAT 0x4018

/* RTYPE in CDW10 bits 15:8 over an action in bits 2:0. */
#define CDW(act, rtype) ((uint32_t)(act) | (uint32_t)(rtype) << 8)

/*
 * The reserved namespace is a NAND one: with three reactors its device
 * lives on one of its own, and the I/O queues on reactor 1, while the
 * reservations are the core's, on reactor 0.
 */
static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"nand\", \"size\": \"16M\", \"block_size\": 4096,"
	"   \"nand\": {\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 96}},"
	"  {\"nsid\": 2, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096}"
	"  ] } ]";
static const char *const args[] = { "--reactors", "3", NULL };

static const uint8_t hostid_a[16] = { 0xaa, 1, 2, 3, 4, 5, 0x40, 7, 0x80, 9, 10, 11, 12, 13, 14, 15 };
static const uint8_t hostid_b[16] = { 0xbb, 1, 2, 3, 4, 5, 0x40, 7, 0x80, 9, 10, 11, 12, 13, 14, 15 };

struct env {
	struct fx_env e;
	struct ini_ctrl *a, *b;
	uint8_t *buf;
};

static int env_setup(void *p)
{
	struct env *v = p;

	v->a = fx_ctrl_host(&v->e.d, SUBNQN, FX_HOST_A, hostid_a);
	v->b = fx_ctrl_host(&v->e.d, SUBNQN, FX_HOST_B, hostid_b);
	v->buf = calloc(1, 8192);
	return v->a && v->b && v->buf ? 0 : -1;
}

static void env_teardown(void *p)
{
	struct env *v = p;

	if (v->a)
		ini_ctrl_destroy(v->a);
	if (v->b)
		ini_ctrl_destroy(v->b);
	free(v->buf);
}

static int rd(struct env *v, struct ini_ctrl *c)
{
	return ini_read(c->io[0], 1, 0, 1, v->buf, BS);
}

static int wr(struct env *v, struct ini_ctrl *c)
{
	return ini_write(c->io[0], 1, 0, 1, v->buf, BS, false);
}

/* Nothing registered, nothing reserved: what each test starts and ends with. */
static void reset(struct env *v)
{
	uint8_t r[64];

	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
	assert_int_equal(ini_resv_release(v->a->io[0], 1, 1 /* clear */, KEY_A), 0);
	assert_int_equal(ini_resv_report(v->b->io[0], 1, true, r, sizeof(r)), 0);
	assert_int_equal(r[4], 0);
	assert_int_equal(r[5] | r[6] << 8, 0);
}

/* The next log page 80h entry of @c: its type (0: none). */
static uint8_t resv_log(struct ini_ctrl *c, uint8_t *nalp)
{
	struct nvme_resv_notification_log l;

	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_RESERVATION, 0, 0, &l, sizeof(l)), 0);
	if (nalp)
		*nalp = l.nalp;
	if (l.rnlpt)
		assert_int_equal(l.nsid, 1);
	return l.rnlpt;
}

static void drain_log(struct ini_ctrl *c)
{
	while (resv_log(c, NULL))
		;
}

/* 1. Identify says reservations and all six types. */
static void test_identify(void **state)
{
	struct env *v = *state;
	struct nvme_id_ns *ns = (void *)v->buf;

	assert_true(v->a->id.oncs & NVME_CTRL_ONCS_RESERVATIONS);
	assert_int_equal(ini_identify(v->b->admin, NVME_IDENTIFY_CNS_NS, 1, 0, v->buf), 0);
	assert_int_equal(ns->rescap, 0xff); /* PTPL too: bloxd has a data directory */
	assert_int_equal(ns->nmic & 1, 1);
}

/* What the command-behaviour table says: [type][B registered][write]. */
static const bool allowed[7][2][2] = {
	[1] = { { 1, 0 }, { 1, 0 } }, /* Write Exclusive */
	[2] = { { 0, 0 }, { 0, 0 } }, /* Exclusive Access */
	[3] = { { 1, 0 }, { 1, 1 } }, /* Write Exclusive - Registrants Only */
	[4] = { { 0, 0 }, { 1, 1 } }, /* Exclusive Access - Registrants Only */
	[5] = { { 1, 0 }, { 1, 1 } }, /* Write Exclusive - All Registrants */
	[6] = { { 0, 0 }, { 1, 1 } }, /* Exclusive Access - All Registrants */
};

/* 2. Every type: A holds it, B reads and writes as a registrant and as not. */
static void test_every_type(void **state)
{
	struct env *v = *state;

	for (uint8_t t = 1; t <= 6; t++) {
		for (int breg = 0; breg < 2; breg++) {
			uint8_t r[192];
			int st;

			reset(v);
			assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
			if (breg)
				assert_int_equal(ini_resv_register(v->b->io[0], 1, 0, 0, KEY_B), 0);
			assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, t), KEY_A, 0), 0);
			/* The holder does everything. */
			assert_int_equal(wr(v, v->a), 0);
			assert_int_equal(rd(v, v->a), 0);
			st = rd(v, v->b);
			if (st != (allowed[t][breg][0] ? 0 : ST_CONFLICT))
				fail_msg("type %u, B %sregistered: read 0x%x", t, breg ? "" : "not ", st);
			st = wr(v, v->b);
			if (st != (allowed[t][breg][1] ? 0 : ST_CONFLICT))
				fail_msg("type %u, B %sregistered: write 0x%x", t, breg ? "" : "not ", st);
			/* Flush and Write Zeroes are writes; Compare is a read. */
			st = ini_flush(v->b->io[0], 1);
			assert_int_equal(st, allowed[t][breg][1] ? 0 : ST_CONFLICT);
			st = ini_write_zeroes(v->b->io[0], 1, 8, 1);
			assert_int_equal(st, allowed[t][breg][1] ? 0 : ST_CONFLICT);
			st = ini_compare(v->b->io[0], 1, 8, 1, v->buf + BS, BS);
			if (allowed[t][breg][0])
				assert_int_not_equal(st, ST_CONFLICT);
			else
				assert_int_equal(st, ST_CONFLICT);
			/* The other namespace is not reserved. */
			assert_int_equal(ini_write(v->b->io[0], 2, 0, 1, v->buf, BS, false), 0);
			/* Both hosts see the same report. */
			for (int h = 0; h < 2; h++) {
				struct ini_ctrl *c = h ? v->b : v->a;

				memset(r, 0xee, sizeof(r));
				assert_int_equal(ini_resv_report(c->io[0], 1, true, r, sizeof(r)), 0);
				assert_int_equal(r[4], t);
				assert_int_equal(r[5], 1 + breg);
				assert_int_equal(r[64 + 2], 1); /* A holds it */
				assert_memory_equal(r + 64 + 16, hostid_a, 16);
				if (breg) {
					/* B holds an All Registrants reservation too. */
					assert_int_equal(r[128 + 2], t >= 5);
					assert_memory_equal(r + 128 + 16, hostid_b, 16);
				}
			}
			assert_int_equal(ini_resv_report(v->b->io[0], 1, false, r, sizeof(r)),
					 ST_HOSTID_FORMAT);
			/* B cannot acquire it, nor release it for A (unless All Registrants). */
			if (breg) {
				st = ini_resv_acquire(v->b->io[0], 1, CDW(0, t), KEY_B, 0);
				assert_int_equal(st, t >= 5 ? 0 : ST_CONFLICT);
			}
			assert_int_equal(ini_resv_release(v->a->io[0], 1, CDW(0, t), KEY_A), 0);
			assert_int_equal(wr(v, v->b), 0);
		}
	}
	reset(v);
	drain_log(v->a);
	drain_log(v->b);
}

/* 3. Keys and fields the spec refuses. */
static void test_conflicts(void **state)
{
	struct env *v = *state;

	reset(v);
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
	/* Registering again with another key, replacing with the wrong one. */
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, 5), ST_CONFLICT);
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 2, 5, 6), ST_CONFLICT);
	/* B is not registered: acquire, release, unregister conflict. */
	assert_int_equal(ini_resv_acquire(v->b->io[0], 1, CDW(0, 1), KEY_B, 0), ST_CONFLICT);
	assert_int_equal(ini_resv_release(v->b->io[0], 1, CDW(0, 1), KEY_B), ST_CONFLICT);
	assert_int_equal(ini_resv_register(v->b->io[0], 1, 1, KEY_B, 0), ST_CONFLICT);
	/* Acquire with the wrong key, a bad type, IEKEY. */
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, 1), 5, 0), ST_CONFLICT);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, 7), KEY_A, 0), ST_INVALID_FIELD);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(8, 1), KEY_A, 0), ST_INVALID_FIELD);
	/* CPTPL 01b is reserved (PTPL itself: test_reservations_ptpl.c). */
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 1u << 30, 0, KEY_A), ST_INVALID_FIELD);
	/* Host Identifier: the Connect's; Get Features tells it. */
	assert_int_equal(ini_set_features(v->a->admin, NVME_FEAT_FID_HOST_ID, 1, NULL), 0x400c);
	reset(v);
}

/* 4. Preempt: B takes A's reservation; A is told, and its I/O conflicts. */
static void test_preempt(void **state)
{
	struct env *v = *state;
	struct ini_req aer;
	uint8_t r[192], nalp;
	uint32_t gen;

	reset(v);
	drain_log(v->a);
	assert_int_equal(ini_resv_report(v->a->io[0], 1, true, r, sizeof(r)), 0);
	gen = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 | (uint32_t)r[3] << 24;
	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(v->a->admin, &aer), 0);
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
	assert_int_equal(ini_resv_register(v->b->io[0], 1, 0, 0, KEY_B), 0);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, 1), KEY_A, 0), 0);
	/* PRKEY 0 against a holder: invalid field. */
	assert_int_equal(ini_resv_acquire(v->b->io[0], 1, CDW(1, 2), KEY_B, 0), ST_INVALID_FIELD);
	assert_int_equal(ini_resv_acquire(v->b->io[0], 1, CDW(1, 2), KEY_B, KEY_A), 0);
	assert_int_equal(ini_wait(v->a->admin, &aer), 0);
	assert_int_equal(ini_status(&aer.cqe), 0);
	assert_int_equal(aer.cqe.result & 0x7, 6); /* I/O command specific */
	assert_int_equal((aer.cqe.result >> 8) & 0xff, 0); /* reservation log page */
	assert_int_equal((aer.cqe.result >> 16) & 0xff, NVME_LOG_LID_RESERVATION);
	assert_int_equal(resv_log(v->a, &nalp), NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
	assert_int_equal(nalp, 0);
	assert_int_equal(resv_log(v->a, NULL), 0);
	assert_int_equal(wr(v, v->a), ST_CONFLICT);
	assert_int_equal(rd(v, v->a), ST_CONFLICT);
	assert_int_equal(wr(v, v->b), 0);
	/* A is no registrant any more: its key is refused. */
	assert_int_equal(ini_resv_release(v->a->io[0], 1, CDW(0, 1), KEY_A), ST_CONFLICT);
	assert_int_equal(ini_resv_report(v->a->io[0], 1, true, r, sizeof(r)), 0);
	/* Two registrations and a preempt moved the generation; acquire did not. */
	assert_int_equal((uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 |
				 (uint32_t)r[3] << 24,
			 gen + 3);
	assert_int_equal(r[4], 2);
	assert_int_equal(r[5], 1);
	assert_memory_equal(r + 64 + 16, hostid_b, 16);
	reset(v);
	drain_log(v->b);
}

/* 5. Preempt and Abort while the preempted host has writes in flight. */
static void test_preempt_abort(void **state)
{
	struct env *v = *state;
	enum { N = 32 };
	struct ini_req w[N];
	int ok = 0, conflict = 0;

	reset(v);
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
	assert_int_equal(ini_resv_register(v->b->io[0], 1, 0, 0, KEY_B), 0);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, 1), KEY_A, 0), 0);
	for (int i = 0; i < N; i++) {
		ini_req_rw(&w[i], nvme_cmd_write, 1, (uint64_t)i, 1, v->buf, BS);
		assert_int_equal(ini_submit(v->a->io[0], &w[i]), 0);
	}
	assert_int_equal(ini_resv_acquire(v->b->io[0], 1, CDW(2, 2), KEY_B, KEY_A), 0);
	for (int i = 0; i < N; i++) {
		assert_int_equal(ini_wait(v->a->io[0], &w[i]), 0);
		if (ini_status(&w[i].cqe) == 0)
			ok++;
		else if (ini_status(&w[i].cqe) == ST_CONFLICT)
			conflict++;
	}
	assert_int_equal(ok + conflict, N);
	assert_int_equal(wr(v, v->a), ST_CONFLICT);
	assert_int_equal(wr(v, v->b), 0);
	reset(v);
	drain_log(v->a);
	drain_log(v->b);
}

/* 6. Release and clear tell the other host; the mask keeps it quiet. */
static void test_release_clear_notices(void **state)
{
	struct env *v = *state;

	reset(v);
	drain_log(v->b);
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
	assert_int_equal(ini_resv_register(v->b->io[0], 1, 0, 0, KEY_B), 0);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, 3), KEY_A, 0), 0);
	assert_int_equal(ini_resv_release(v->a->io[0], 1, CDW(0, 3), KEY_A), 0);
	assert_int_equal(resv_log(v->b, NULL), NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED);
	assert_int_equal(resv_log(v->a, NULL), 0);
	/* A clears: B's registration is gone, B is told its reservation was preempted. */
	assert_int_equal(ini_resv_release(v->a->io[0], 1, 1, KEY_A), 0);
	assert_int_equal(resv_log(v->b, NULL), NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED);
	assert_int_equal(ini_resv_release(v->b->io[0], 1, 1, KEY_B), ST_CONFLICT);
	/* B masks reservation-released on every namespace. */
	assert_int_equal(ini_set_features_ns(v->b->admin, NVME_FEAT_FID_RESV_MASK, 0xffffffff,
					     NVME_FEAT_RESV_NOTIFY_RESREL, NULL),
			 0);
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
	assert_int_equal(ini_resv_register(v->b->io[0], 1, 0, 0, KEY_B), 0);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, 4), KEY_A, 0), 0);
	assert_int_equal(ini_resv_release(v->a->io[0], 1, CDW(0, 4), KEY_A), 0);
	assert_int_equal(resv_log(v->b, NULL), 0);
	assert_int_equal(ini_set_features_ns(v->b->admin, NVME_FEAT_FID_RESV_MASK, 0xffffffff, 0,
					     NULL),
			 0);
	reset(v);
	drain_log(v->b);
}

/* 7. A host that disconnects keeps its registration and its reservation. */
static void test_disconnect_keeps(void **state)
{
	struct env *v = *state;
	uint8_t r[192];

	reset(v);
	assert_int_equal(ini_resv_register(v->b->io[0], 1, 0, 0, KEY_B), 0);
	assert_int_equal(ini_resv_acquire(v->b->io[0], 1, CDW(0, 1), KEY_B, 0), 0);
	assert_int_equal(ini_ctrl_shutdown(v->b), 0);
	ini_ctrl_destroy(v->b);
	v->b = NULL;
	assert_int_equal(wr(v, v->a), ST_CONFLICT);
	assert_int_equal(ini_resv_report(v->a->io[0], 1, true, r, sizeof(r)), 0);
	assert_int_equal(r[4], 1);
	assert_memory_equal(r + 64 + 16, hostid_b, 16);
	v->b = fx_ctrl_host(&v->e.d, SUBNQN, FX_HOST_B, hostid_b);
	assert_non_null(v->b);
	assert_int_equal(wr(v, v->b), 0);
	assert_int_equal(ini_resv_release(v->b->io[0], 1, CDW(0, 1), KEY_B), 0);
	assert_int_equal(wr(v, v->a), 0);
	reset(v);
}

/* 8. bloxctl shows the registrants and the holder (text and JSON), and clears them. */
static void test_bloxctl(void **state)
{
	struct env *v = *state;
	static char out[16384];

	reset(v);
	drain_log(v->a);
	drain_log(v->b);
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
	assert_int_equal(ini_resv_register(v->b->io[0], 1, 0, 0, KEY_B), 0);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, 1), KEY_A, 0), 0);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "ns show %s 1", SUBNQN), 0);
	if (!strstr(out, "reservation Write Exclusive, generation ") ||
	    !strstr(out, "PTPL off\nregistrant  aa010203-0405-4007-8009-0a0b0c0d0e0f key "
			 "0xa1a2a3a4a5a6a7a8 holder  " FX_HOST_A "\n") ||
	    !strstr(out, "registrant  bb010203-0405-4007-8009-0a0b0c0d0e0f key "
			 "0x00000000000000b1  " FX_HOST_B "\n"))
		fail_msg("bloxctl ns show:\n%s", out);
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "--json ns show %s 1", SUBNQN), 0);
	if (!strstr(out, "\"type_name\":\"Write Exclusive\"") ||
	    !strstr(out, "\"hostid\":\"bb010203-0405-4007-8009-0a0b0c0d0e0f\"") ||
	    !strstr(out, "\"key\":11647051513882650536,") || !strstr(out, "\"holder\":true") ||
	    !strstr(out, "\"hostnqns\":[\n          \"" FX_HOST_B "\""))
		fail_msg("bloxctl --json ns show:\n%s", out);
	/* An operator's clear: both registrations go, and B (not A's host either) is told. */
	assert_int_equal(fx_ctl(&v->e.d, out, sizeof(out), "ns resv-clear %s 1", SUBNQN), 0);
	if (!strstr(out, "reservation none, generation ") || strstr(out, "registrant"))
		fail_msg("bloxctl ns resv-clear:\n%s", out);
	assert_int_equal(resv_log(v->b, NULL), NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED);
	assert_int_equal(resv_log(v->a, NULL), NVME_RESV_NOTIFY_RNLPT_RESERVATION_PREEMPTED);
	assert_int_equal(wr(v, v->b), 0);
	assert_int_equal(ini_resv_release(v->a->io[0], 1, 1, KEY_A), ST_CONFLICT);
	assert_int_not_equal(fx_ctl(&v->e.d, out, sizeof(out), "ns resv-clear %s 9", SUBNQN), 0);
	reset(v);
	drain_log(v->b);
}

int main(void)
{
	static const struct fx_group g = {
		.who = "test_reservations",
		.subsystems = subsystems,
		.extra_args = args,
		.size = sizeof(struct env),
		.setup = env_setup,
		.teardown = env_teardown,
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identify),
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_conflicts),
		cmocka_unit_test(test_preempt),
		cmocka_unit_test(test_preempt_abort),
		cmocka_unit_test(test_release_clear_notices),
		cmocka_unit_test(test_disconnect_keeps),
		cmocka_unit_test(test_bloxctl),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
