/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of Persist Through Power Loss: with PTPL set (CPTPL
 * 11b in a Reservation Register, or Set Features 83h), the registrations
 * and the reservation of a namespace survive a stop of bloxd and a kill
 * -9, read back from its data directory; with PTPL cleared they are gone
 * after a restart, and so is the state file; a power cut of a namespace's
 * drive (bloxctl fault power-cut) keeps them with PTPL and clears them
 * without. Two hosts, as in test_reservations.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:resv-ptpl"
#define BS 4096u
#define KEY_A 0xa1ull
#define KEY_B 0xb1ull
#define ST_CONFLICT 0x4083

#define CDW(act, rtype) ((uint32_t)(act) | (uint32_t)(rtype) << 8)
#define CPTPL_SET (3u << 30)
#define CPTPL_CLEAR (2u << 30)

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096},"
	"  {\"nsid\": 2, \"backend\": \"nand\", \"size\": \"32M\", \"block_size\": 4096,"
	"   \"nand\": {\"channels\": 1, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 96, \"null_timing\": true}, \"ftl\": {\"store\": \"file\"}}"
	"  ] } ]";

static const uint8_t hostid_a[16] = { 0xaa, 1, 2, 3, 4, 5, 0x40, 7, 0x80, 9, 10, 11, 12, 13, 14, 15 };
static const uint8_t hostid_b[16] = { 0xbb, 1, 2, 3, 4, 5, 0x40, 7, 0x80, 9, 10, 11, 12, 13, 14, 15 };

struct env {
	struct fx_env e;
	struct ini_ctrl *a, *b;
	uint8_t buf[BS];
	uint8_t r[256]; /* the last report */
};

static int env_setup(void *p)
{
	struct env *v = p;

	v->a = fx_ctrl_host(&v->e.d, SUBNQN, FX_HOST_A, hostid_a);
	v->b = fx_ctrl_host(&v->e.d, SUBNQN, FX_HOST_B, hostid_b);
	return v->a && v->b ? 0 : -1;
}

static void hosts_down(struct env *v)
{
	if (v->a)
		ini_ctrl_destroy(v->a);
	if (v->b)
		ini_ctrl_destroy(v->b);
	v->a = v->b = NULL;
}

static void env_teardown(void *p)
{
	hosts_down(p);
}

/* bloxd stopped (SIGTERM, or @sig), started again on the same data directory; hosts back. */
static void restart(struct env *v, int sig)
{
	struct fx_start_opts o = { .data_dir = v->e.data_dir };

	hosts_down(v);
	if (sig == SIGKILL)
		assert_int_equal(fx_kill(&v->e.d, SIGKILL), 128 + SIGKILL);
	else
		assert_int_equal(fx_stop(&v->e.d), 0);
	assert_int_equal(fx_start_opts(&v->e.d, subsystems, &o), 0);
	assert_int_equal(env_setup(v), 0);
}

static void report(struct env *v, struct ini_ctrl *c)
{
	memset(v->r, 0xee, sizeof(v->r));
	assert_int_equal(ini_resv_report(c->io[0], 1, true, v->r, sizeof(v->r)), 0);
}

static int wr(struct env *v, struct ini_ctrl *c)
{
	return ini_write(c->io[0], 1, 0, 1, v->buf, BS, false);
}

/* State files ("resv-*") in the data directory. */
static int state_files(struct env *v)
{
	DIR *d = opendir(v->e.data_dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "resv-", 5))
			n++;
	closedir(d);
	return n;
}

/* 1. RESCAP offers PTPL; it starts cleared. */
static void test_offered(void **state)
{
	struct env *v = *state;
	uint8_t id[4096];
	const struct nvme_id_ns *ns = (const void *)id;

	assert_int_equal(ini_identify(v->a->admin, NVME_IDENTIFY_CNS_NS, 1, 0, id), 0);
	assert_int_equal(ns->rescap & NVME_NS_RESCAP_PTPL, NVME_NS_RESCAP_PTPL);
	report(v, v->a);
	assert_int_equal(v->r[9], 0);
	assert_int_equal(state_files(v), 0);
}

/* 2. PTPL set: registrations and a reservation survive a clean stop. */
static void test_survives_stop(void **state)
{
	struct env *v = *state;
	uint32_t gen;

	assert_int_equal(ini_resv_register(v->a->io[0], 1, CPTPL_SET, 0, KEY_A), 0);
	assert_int_equal(ini_resv_register(v->b->io[0], 1, 0, 0, KEY_B), 0);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 1, CDW(0, 3), KEY_A, 0), 0);
	assert_int_equal(state_files(v), 1);
	report(v, v->b);
	assert_int_equal(v->r[9], 1); /* PTPLS */
	gen = (uint32_t)v->r[0] | (uint32_t)v->r[1] << 8;
	restart(v, SIGTERM);
	report(v, v->b);
	assert_int_equal((uint32_t)v->r[0] | (uint32_t)v->r[1] << 8, gen);
	assert_int_equal(v->r[4], 3);
	assert_int_equal(v->r[5], 2);
	assert_int_equal(v->r[9], 1);
	assert_int_equal(v->r[64 + 2], 1);
	assert_memory_equal(v->r + 64 + 16, hostid_a, 16);
	assert_int_equal(v->r[64 + 8], KEY_A);
	assert_int_equal(v->r[128 + 2], 0);
	assert_memory_equal(v->r + 128 + 16, hostid_b, 16);
	/* Write Exclusive - Registrants Only: both registrants write. */
	assert_int_equal(wr(v, v->a), 0);
	assert_int_equal(wr(v, v->b), 0);
}

/* 3. A preempt, then kill -9: the new state is what comes back. */
static void test_survives_kill9(void **state)
{
	struct env *v = *state;

	assert_int_equal(ini_resv_acquire(v->b->io[0], 1, CDW(1, 2), KEY_B, KEY_A), 0);
	restart(v, SIGKILL);
	report(v, v->a);
	assert_int_equal(v->r[4], 2);
	assert_int_equal(v->r[5], 1);
	assert_memory_equal(v->r + 64 + 16, hostid_b, 16);
	assert_int_equal(wr(v, v->a), ST_CONFLICT);
	assert_int_equal(ini_read(v->a->io[0], 1, 0, 1, v->buf, BS), ST_CONFLICT);
	assert_int_equal(wr(v, v->b), 0);
}

/* 4. PTPL cleared (CPTPL 10b): the file goes, and a restart forgets everything. */
static void test_cleared(void **state)
{
	struct env *v = *state;

	assert_int_equal(ini_resv_register(v->b->io[0], 1, CPTPL_CLEAR | 2, KEY_B, KEY_B), 0);
	assert_int_equal(state_files(v), 0);
	report(v, v->b);
	assert_int_equal(v->r[9], 0);
	assert_int_equal(v->r[4], 2); /* still held until the restart */
	restart(v, SIGKILL);
	report(v, v->a);
	assert_int_equal(v->r[4], 0);
	assert_int_equal(v->r[5], 0);
	assert_int_equal(wr(v, v->a), 0);
}

/* Namespace 2's drive loses power (bloxctl fault power-cut); the hosts connect again. */
static void power_cut(struct env *v)
{
	char out[4096];
	int rc = fx_ctl(&v->e.d, out, sizeof(out), "fault power-cut " SUBNQN " 2");

	if (rc)
		fail_msg("fault power-cut exited %d: %s", rc, out);
	hosts_down(v);
	assert_int_equal(env_setup(v), 0);
}

static void report2(struct env *v, struct ini_ctrl *c)
{
	memset(v->r, 0xee, sizeof(v->r));
	assert_int_equal(ini_resv_report(c->io[0], 2, true, v->r, sizeof(v->r)), 0);
}

/*
 * 5. A power cut of a namespace's drive: with PTPL its registrations and
 * reservation come back with it (and the generation); without, they are
 * gone as after a restart, and the other namespace's are untouched.
 */
static void test_power_cut(void **state)
{
	struct env *v = *state;
	uint32_t gen;

	assert_int_equal(ini_resv_register(v->a->io[0], 2, CPTPL_SET, 0, KEY_A), 0);
	assert_int_equal(ini_resv_register(v->b->io[0], 2, 0, 0, KEY_B), 0);
	assert_int_equal(ini_resv_acquire(v->a->io[0], 2, CDW(0, 1), KEY_A, 0), 0);
	report2(v, v->b);
	gen = (uint32_t)v->r[0] | (uint32_t)v->r[1] << 8;
	power_cut(v);
	report2(v, v->b);
	assert_int_equal((uint32_t)v->r[0] | (uint32_t)v->r[1] << 8, gen);
	assert_int_equal(v->r[4], 1); /* Write Exclusive, still A's */
	assert_int_equal(v->r[5], 2);
	assert_int_equal(v->r[9], 1);
	assert_int_equal(ini_write(v->b->io[0], 2, 0, 1, v->buf, BS, false), ST_CONFLICT);
	assert_int_equal(ini_write(v->a->io[0], 2, 0, 1, v->buf, BS, false), 0);

	/* PTPL cleared: the next power cut forgets it all. */
	assert_int_equal(ini_resv_register(v->a->io[0], 2, CPTPL_CLEAR | 2, KEY_A, KEY_A), 0);
	report(v, v->a);
	gen = (uint32_t)v->r[4]; /* namespace 1: whatever it holds stays */
	power_cut(v);
	report2(v, v->b);
	assert_int_equal(v->r[4], 0);
	assert_int_equal(v->r[5], 0);
	assert_int_equal(v->r[9], 0);
	assert_int_equal(ini_write(v->b->io[0], 2, 0, 1, v->buf, BS, false), 0);
	report(v, v->a);
	assert_int_equal((uint32_t)v->r[4], gen);
}

/* 6. Set Features 83h sets PTPL of the namespace, and clears it. */
static void test_feature(void **state)
{
	struct env *v = *state;

	assert_int_equal(ini_set_features_ns(v->a->admin, NVME_FEAT_FID_RESV_PERSIST, 1, 1, NULL), 0);
	assert_int_equal(ini_resv_register(v->a->io[0], 1, 0, 0, KEY_A), 0);
	assert_int_equal(state_files(v), 1);
	restart(v, SIGTERM);
	report(v, v->b);
	assert_int_equal(v->r[5], 1);
	assert_int_equal(v->r[9], 1);
	assert_int_equal(ini_set_features_ns(v->a->admin, NVME_FEAT_FID_RESV_PERSIST, 1, 0, NULL), 0);
	assert_int_equal(state_files(v), 0);
	restart(v, SIGTERM);
	report(v, v->b);
	assert_int_equal(v->r[5], 0);
}

int main(void)
{
	static const struct fx_group g = {
		.who = "test_reservations_ptpl",
		.subsystems = subsystems,
		.own_data_dir = true,
		.size = sizeof(struct env),
		.setup = env_setup,
		.teardown = env_teardown,
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_offered),
		cmocka_unit_test(test_survives_stop),
		cmocka_unit_test(test_survives_kill9),
		cmocka_unit_test(test_cleared),
		cmocka_unit_test(test_power_cut),
		cmocka_unit_test(test_feature),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
