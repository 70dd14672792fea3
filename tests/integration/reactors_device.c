/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_reactors: NAND devices on reactors of their own. A device
 * made with bloxctl lands off reactor 0 (the fewest devices first), one
 * pinned with --reactor lands there, one past --reactors is refused; vSSDs
 * on it serve verified I/O from queues on every reactor while others are
 * created, written and deleted on it and it migrates online to another
 * channel; a device pinned past --reactors in the state file is placed on
 * reactor 0 at the next start, with a warning.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "reactors.h"

/* A number of an object bloxctl printed, 0 when absent (proto3 leaves zeroes out). */
static uint64_t jnum0(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

/* The reactor device @name lives on, as device show says. */
static unsigned device_reactor(struct env *e, const char *name)
{
	char cmd[64];
	json_object *o;
	unsigned r;

	snprintf(cmd, sizeof(cmd), "device show %s", name);
	o = ctl_json(e, cmd);
	r = (unsigned)jnum0(o, "reactor");
	json_object_put(o);
	return r;
}

#define RDEV_GEO "--store ram --channels 4 --dies-per-channel 2 --planes 1 --pages-per-block 96 " \
		 "--blocks-per-plane 64 --spare-channel off"

/*
 * VSSD_ROUNDS verified rounds per queue on the vSSD while it migrates:
 * the migration starts under them and, written to all along, ends after.
 */
#define VSSD_ROUNDS 12

void test_vssds_on_device_reactor(void **state)
{
	struct env *e = *state;
	struct worker *wa = e->wa, *wb = e->wb;
	char st[32] = "";
	json_object *o;
	unsigned na, nb, id;
	uint64_t t0;
	int64_t lent;
	double pct = 0;

	/* Placement: the fewest devices, reactor 0 last; pinned; refused. */
	assert_int_equal(ctl(e, "device create rdev " RDEV_GEO), 0);
	assert_int_not_equal(device_reactor(e, "rdev"), 0);
	assert_true(device_reactor(e, "rdev") < e->n);
	assert_int_equal(ctl(e, "device create rpin " RDEV_GEO " --reactor %u", e->n - 1), 0);
	assert_int_equal(device_reactor(e, "rpin"), e->n - 1);
	assert_int_equal(ctl(e, "device delete rpin"), 0);
	assert_int_not_equal(ctl(e, "device create rbad " RDEV_GEO " --reactor %u", e->n), 0);
	assert_non_null(strstr(e->out, "reactor"));

	/* A vSSD under verified I/O from every reactor; every namespace too. */
	assert_int_equal(ctl(e, "ns create %s --nsid %u --size 16M --device rdev --isolation "
			     "channel:1", SUBNQN, VSSD_NSID), 0);
	e->doomed = (struct nsg){ VSSD_NSID, 4096, (16u << 20) / 4096 };
	e->ca = ctrl_up(e, FX_HOST_A, e->n + 1);
	e->cb = ctrl_up(e, FX_HOST_B, e->n + 1);
	na = workers_on(wa, e->ca, 0, NULL, 0);
	nb = workers_on(wb, e->cb, na, &e->doomed, VSSD_ROUNDS);
	assert_true(workers_wait_rounds(wa, na, 1));
	assert_true(workers_wait_rounds(wb, nb, 1));

	/* It moves to channel 3 online, under that I/O. */
	o = ctl_json(e, "migrate start " SUBNQN " 30 --to-channels 3 --share 1000");
	id = (unsigned)jnum(o, "id");
	json_object_put(o);
	t0 = (uint64_t)fx_now_ms();

	/* Meanwhile other vSSDs on the same device come and go, written and read back. */
	e->cc = ctrl_up(e, FX_HOST_C, e->n + 1);
	for (unsigned it = 0; it < 3; it++) {
		assert_int_equal(ctl(e, "ns create %s --nsid %u --size 8M --device rdev "
				     "--isolation %s", SUBNQN, VSSD_TMP_NSID,
				     it & 1 ? "channel:1" : "chip:1"), 0);
		for (uint32_t q = 0; q < e->cc->nr_io; q++)
			assert_int_equal(fx_rw_check(e->cc->io[q], VSSD_TMP_NSID, 64 * q, 4096), 0);
		assert_int_equal(ctl(e, "ns delete %s %u --force", SUBNQN, VSSD_TMP_NSID), 0);
	}
	ctrl_down(&e->cc);
	fx_mig_status(&e->fx.d, id, st, sizeof(st), &pct);
	fprintf(stderr, "vSSD churn done; the migration: %s at %.1f%%\n", st, pct);
	while (strcmp(st, "done") && (uint64_t)fx_now_ms() - t0 < 3 * WAIT_MS) {
		usleep(100 * 1000);
		fx_mig_status(&e->fx.d, id, st, sizeof(st), &pct);
	}
	fprintf(stderr, "migration of the vSSD under I/O: %s at %.1f%% after %llu ms\n", st, pct,
		(unsigned long long)((uint64_t)fx_now_ms() - t0));
	assert_string_equal(st, "done");
	if (!workers_wait_finished(wb, nb))
		fail_msg("vSSD workers still running");
	for (unsigned i = 0; i < na; i++)
		if (atomic_load(&wa[i].finished))
			fail_msg("worker on qid %u stopped: %s", ini_queue_qid(wa[i].q), wa[i].why);
	workers_join(wa, na, true);
	workers_join(wb, nb, false);
	workers_check_ok(wa, na, "namespaces beside the vSSDs");
	workers_check_ok(wb, nb, "the vSSD migrated under I/O");
	/* It serves from its new channel. */
	e->cc = ctrl_up(e, FX_HOST_C, 1);
	assert_int_equal(fx_rw_check(e->cc->io[0], VSSD_NSID, 7, 4096), 0);
	ctrl_down(&e->cc);
	ctrl_down(&e->ca);
	ctrl_down(&e->cb);
	/* Its reads were sent from the device reactor's store in place, given back from others. */
	lent = fx_ns_stat(&e->fx.d, SUBNQN, VSSD_NSID, "nand", "lent_reads");
	fprintf(stderr, "reads of the vSSD sent in place: %lld\n", (long long)lent);
	assert_true(lent > 0);
	assert_int_equal(ctl(e, "ns delete %s %u --force", SUBNQN, VSSD_NSID), 0);
	assert_int_equal(ctl(e, "device delete rdev"), 0);
}

/*
 * A device pinned to the last reactor, in the state file, and bloxd
 * started again with one reactor: it starts (the device placed on reactor
 * 0, a warning logged) rather than refusing the state it wrote itself.
 */
void test_pinned_past_reactors(void **state)
{
	struct env *e = *state;
	char dir[] = "/tmp/bloxd-reactors-XXXXXX", log[sizeof(dir) + 8], sock[sizeof(dir) + 8];
	char nvm[32], disc[32], nr[8], line[512];
	uint16_t pn = fx_free_port(FX_ADDR), pd;
	const char *argv[] = { "-l", nvm, "-D", disc, "--data-dir", dir, "--admin-socket", sock,
			       "--reactors", nr, NULL };
	struct fx_start_opts o = { .extra_args = e->fx.group->extra_args };
	bool warned = false;
	FILE *f;

	do
		pd = fx_free_port(FX_ADDR);
	while (pd == pn);
	assert_non_null(mkdtemp(dir));
	snprintf(log, sizeof(log), "%s/log", dir);
	snprintf(sock, sizeof(sock), "%s/sock", dir);
	snprintf(nvm, sizeof(nvm), "%s:%u", FX_ADDR, pn);
	snprintf(disc, sizeof(disc), "%s:%u", FX_ADDR, pd);
	snprintf(nr, sizeof(nr), "%u", e->n);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	assert_int_equal(fx_start_argv_log(&e->fx.d, argv, log, FX_ADDR, pn, pd), 0);
	assert_int_equal(ctl(e, "device create rpin " RDEV_GEO " --reactor %u", e->n - 1), 0);
	assert_int_equal(device_reactor(e, "rpin"), e->n - 1);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	/* The same command line but --reactors 1. */
	snprintf(nr, sizeof(nr), "1");
	assert_int_equal(fx_start_argv_log(&e->fx.d, argv, log, FX_ADDR, pn, pd), 0);
	assert_int_equal(device_reactor(e, "rpin"), 0);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	f = fopen(log, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		warned |= strstr(line, "pinned to reactor") != NULL;
	fclose(f);
	assert_true(warned);
	snprintf(line, sizeof(line), "rm -rf %s", dir);
	assert_int_equal(system(line), 0);
	/* The group's bloxd again, as the next test expects it. */
	assert_int_equal(fx_start_opts(&e->fx.d, subsystems, &o), 0);
}

