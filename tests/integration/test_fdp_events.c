/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flexible Data Placement (issue 27) over loopback, the events and a
 * crash: a nand namespace of its own device with four reclaim unit
 * handles. Feature 1Eh lists the event types bloxd reports per placement
 * handle (Controller Level Reset Modified RUHs, 02h, is not one: refused)
 * and enables them one handle at a time; a handle's reclaim unit
 * that fills makes the FTL open another for its next write, an
 * Implicitly Modified Reclaim Unit Handle controller event (log 23h, LSP
 * 0) where it is enabled and nowhere else, none once disabled, none among
 * the host events. A Reclaim Unit Handle Update of a partly written
 * reclaim unit survives kill -9: after the restart the handle has no
 * reclaim unit (its next write opens a fresh one) where a handle not
 * updated goes on in its own, and the data reads back. Software vSSDs
 * of one device (one Endurance Group) are all on placement handles or
 * none: the mix is refused either way.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "fdp_common.h"

#define SUBNQN "nqn.2026-12.io.blox:fdp-events"
#define NRUH 4u
#define CHUNK FDP_CHUNK /* blocks per write (fdp_write_pid) */
#define SC_GENERIC(x) (0x4000 | (x)) /* DNR, generic */
#define EV_MODIFY 0x81
#define EV_RUNFW 0x00
#define EV_PID 0x03
#define EV_RUTLE 0x01
#define EV_REALLOC 0x80

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"nand\", \"size\": \"32M\","
	"   \"nand\": {\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 48}, \"ftl\": {\"placement_handles\": 4}}"
	"] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	uint16_t endgid;
	uint64_t runs_blocks; /* a reclaim unit, in blocks */
};

#define FILL_SALT 0xe7e /* this program's data pattern */

static int set_events(struct ini_queue *q, uint16_t ph, bool enable, const uint8_t *types,
		      uint32_t n)
{
	uint8_t buf[16];
	struct ini_req r;

	memcpy(buf, types, n);
	ini_req_init(&r, nvme_admin_set_features, 1, buf, n, INI_DIR_H2C);
	r.sqe.cdw10 = NVME_FEAT_FID_FDP_EVENTS;
	r.sqe.cdw11 = ph | n << 16;
	r.sqe.cdw12 = enable;
	return ini_exec(q, &r) ? -1 : ini_status(&r.cqe);
}

/* Feature 1Eh of @ph: the descriptors (type, enabled) and their count. */
static uint32_t get_events(struct ini_queue *q, uint16_t ph, uint8_t d[16][2])
{
	struct ini_req r;

	memset(d, 0xee, 16 * 2);
	ini_req_init(&r, nvme_admin_get_features, 1, d, 16 * 2, INI_DIR_C2H);
	r.sqe.cdw10 = NVME_FEAT_FID_FDP_EVENTS;
	r.sqe.cdw11 = ph | 16u << 16;
	assert_int_equal(ini_exec(q, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	return (uint32_t)r.cqe.result;
}

/* Log 23h, host events (@host) or the controller's. */
static const struct nvme_fdp_events_log *events(struct env *e, struct ini_queue *a, bool host,
						uint8_t *log)
{
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_EVENTS, host, e->endgid, log, 4096),
			 0);
	return (const void *)log;
}

/* @n blocks from @lba with placement identifier @pid, this program's data. */
static void write_pid(struct ini_queue *q, uint64_t lba, uint64_t n, uint16_t pid)
{
	fdp_write_pid(q, lba, n, pid, FILL_SALT);
}

static void check(struct ini_queue *q, uint64_t lba, uint32_t n)
{
	fdp_check(q, lba, n, FILL_SALT);
}

static void test_feature_lists(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin;
	struct nvme_id_ns ns;
	uint8_t d[16][2], log[4096], t[2] = { EV_MODIFY, EV_RUNFW }, bad = 0x02;
	const struct nvme_fdp_config_log *cl = (const void *)log;

	assert_int_equal(ini_identify(a, NVME_IDENTIFY_CNS_NS, 1, 0, &ns), 0);
	e->endgid = ns.endgid;
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_CONFIGS, 0, e->endgid, log, 128), 0);
	e->runs_blocks = cl->configs[0].runs / LBA;
	assert_true(e->runs_blocks > 0 && e->runs_blocks % CHUNK == 0);

	/* Five types supported, none enabled at first. */
	assert_int_equal(get_events(a, 3, d), 5);
	assert_int_equal(d[0][0], EV_RUNFW);
	assert_int_equal(d[1][0], EV_RUTLE);
	assert_int_equal(d[2][0], EV_PID);
	assert_int_equal(d[3][0], EV_REALLOC);
	assert_int_equal(d[4][0], EV_MODIFY);
	for (int i = 0; i < 5; i++)
		assert_int_equal(d[i][1], 0);
	assert_int_equal(d[5][0], 0); /* zeroes past the count */
	/* Enabled on handle 3 only; a type it does not report is refused. */
	assert_int_equal(set_events(a, 3, true, t, 2), 0);
	assert_int_equal(get_events(a, 3, d), 5);
	assert_int_equal(d[0][1], 1);
	assert_int_equal(d[1][1], 0);
	assert_int_equal(d[2][1], 0);
	assert_int_equal(d[3][1], 0);
	assert_int_equal(d[4][1], 1);
	assert_int_equal(get_events(a, 2, d), 5);
	assert_int_equal(d[4][1], 0);
	assert_int_equal(set_events(a, 3, true, &bad, 1), SC_GENERIC(NVME_SC_INVALID_FIELD));
	assert_int_equal(set_events(a, NRUH, true, t, 1), SC_GENERIC(NVME_SC_INVALID_FIELD));
	fdp_ctrl_down(c);
}

/* A reclaim unit that fills: an event where enabled, none elsewhere or once disabled. */
static void test_implicit_modify(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin, *q = c->io[0];
	const struct nvme_fdp_events_log *l;
	uint8_t log[4096], t = EV_MODIFY;
	uint64_t ruamw[NRUH], ms = 0, runs = e->runs_blocks;

	assert_int_equal(events(e, a, false, log)->n, 0);
	/* Handle 2 (not enabled) and handle 3 (enabled): a whole unit and 8 blocks more. */
	write_pid(q, 2048, runs, 2);
	write_pid(q, 2048 + runs, 8, 2);
	write_pid(q, 0, runs, 3);
	l = events(e, a, false, log);
	assert_int_equal(l->n, 0); /* full, but nothing written after it yet */
	write_pid(q, runs, 8, 3);
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[2], runs - 8);
	assert_int_equal(ruamw[3], runs - 8);
	l = events(e, a, false, log);
	assert_int_equal(l->n, 1);
	assert_int_equal(l->events[0].type, EV_MODIFY);
	assert_int_equal(l->events[0].flags,
			 NVME_FDP_EVENT_F_PIV | NVME_FDP_EVENT_F_NSIDV | NVME_FDP_EVENT_F_LV);
	assert_int_equal(l->events[0].pid, 3);
	assert_int_equal(l->events[0].nsid, 1);
	assert_int_equal(l->events[0].ruhid, 3);
	assert_int_equal(l->events[0].rgid, 0);
	/* In this controller's Timestamp, which its host set below (origin 1). */
	memcpy(&ms, l->events[0].ts.timestamp, 6);
	assert_true(ms > 0);
	assert_int_equal(l->events[0].ts.attr, 0); /* not set: since the controller was made */
	{
		uint64_t host_ms = 1765000000000ull; /* December 2025 */
		uint8_t ts[8] = { 0 };
		struct ini_req r;

		memcpy(ts, &host_ms, 6);
		ini_req_init(&r, nvme_admin_set_features, 0, ts, sizeof(ts), INI_DIR_H2C);
		r.sqe.cdw10 = NVME_FEAT_FID_TIMESTAMP;
		assert_int_equal(ini_exec(a, &r), 0);
		assert_int_equal(ini_status(&r.cqe), 0);
		l = events(e, a, false, log);
		memcpy(&ms, l->events[0].ts.timestamp, 6);
		/* Before the set, by less than the test has run (no tighter bound: a busy machine). */
		assert_true(ms <= host_ms && ms > host_ms - 600000);
		assert_int_equal(l->events[0].ts.attr, 1u << 1);
	}
	/* A controller event only: the host events hold none. */
	assert_int_equal(events(e, a, true, log)->n, 0);

	/* Disabled: the next unit that fills tells nothing. */
	assert_int_equal(set_events(a, 3, false, &t, 1), 0);
	write_pid(q, 0, runs - 8, 3);
	write_pid(q, runs + 8, 8, 3);
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[3], runs - 8);
	assert_int_equal(events(e, a, false, log)->n, 1);
	/* Enabled again; only what happens from now on counts. */
	assert_int_equal(set_events(a, 3, true, &t, 1), 0);
	assert_int_equal(events(e, a, false, log)->n, 1);
	check(q, 0, CHUNK);
	check(q, 2048 + runs, 8);
	fdp_ctrl_down(c);
}

static void restart_after_kill(struct env *e)
{
	assert_int_equal(fx_kill(&e->fx.d, SIGKILL), 128 + SIGKILL);
	assert_int_equal(fx_start_opts(&e->fx.d, subsystems,
				       &(struct fx_start_opts){ .data_dir = e->fx.data_dir }),
			 0);
}

/* Handle 1 updated mid-page, handle 0 not: kill -9, and each as the host left it. */
static void test_update_survives_kill(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin, *q = c->io[0];
	uint64_t ruamw[NRUH], runs = e->runs_blocks;
	uint8_t log[4096], t = EV_RUNFW;
	const struct nvme_fdp_events_log *l;
	uint16_t pid = 1;

	/* Fresh units for both (what the tests before left behind does not matter). */
	write_pid(q, 4096, 4, 0);
	write_pid(q, 6144, 4, 1);
	pid = 0;
	assert_int_equal(ini_io_mgmt_send(q, 1, NVME_IO_MGMT_SEND_RUH_UPDATE, &pid, 1), 0);
	pid = 1;
	assert_int_equal(ini_io_mgmt_send(q, 1, NVME_IO_MGMT_SEND_RUH_UPDATE, &pid, 1), 0);
	assert_int_equal(set_events(a, 1, true, &t, 1), 0);
	write_pid(q, 4096, 16, 0); /* four pages */
	write_pid(q, 6144, 10, 1); /* two pages and a half */
	assert_int_equal(ini_flush(q, 1), 0);
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[0], runs - 16);
	assert_int_equal(ruamw[1], runs - 12); /* the flush padded its page */
	/* Handle 2 mid-page: the update makes handle 1's mark durable, not this page. */
	write_pid(q, 7168, 4, 2);
	pid = 2;
	assert_int_equal(ini_io_mgmt_send(q, 1, NVME_IO_MGMT_SEND_RUH_UPDATE, &pid, 1), 0);
	pid = 1;
	write_pid(q, 7168, 10, 2);
	/* The update, and at once the crash: no flush from the host. */
	assert_int_equal(ini_io_mgmt_send(q, 1, NVME_IO_MGMT_SEND_RUH_UPDATE, &pid, 1), 0);
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[1], 0);
	assert_int_equal(ruamw[2], runs - 10); /* not padded */
	l = events(e, a, true, log);
	assert_int_equal(l->events[l->n - 1].type, EV_RUNFW);
	assert_int_equal(l->events[l->n - 1].pid, 1);
	ini_ctrl_destroy(c); /* the host goes with it */
	restart_after_kill(e);

	c = fdp_ctrl_up(&e->fx, SUBNQN);
	q = c->io[0];
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[0], runs - 16); /* goes on where it was */
	assert_int_equal(ruamw[1], 0); /* still closed: no unit until it writes */
	check(q, 4096, 16);
	check(q, 6144, 10);
	write_pid(q, 6144 + 10, 8, 1);
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[1], runs - 8); /* a fresh reclaim unit */
	check(q, 6144, 18);
	/* After kill -9 the log is the last clean stop's: there was none. */
	assert_int_equal(events(e, c->admin, true, log)->n, 0);
	fdp_ctrl_down(c);
}

#define run(e, ...) fx_ctl(&(e)->fx.d, out, sizeof(out), __VA_ARGS__)

/*
 * Software vSSDs of one device share an Endurance Group: all of them with
 * placement handles or none, whichever comes first; a vSSD of whole dies
 * has a group of its own.
 */
static void test_group_mix_refused(void **state)
{
	struct env *e = *state;
	static char out[8192];
	struct ini_ctrl *c;
	struct nvme_id_ns ns;
	uint8_t log[4096];
	const struct nvme_fdp_config_log *cl = (const void *)log;
	uint16_t g5, g6;

	assert_int_equal(run(e, "device create mix --channels 2 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 48 --blocks-per-plane 64"), 0);
	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 5 --size 8M --device mix "
				"--isolation software --placement-handles 2"), 0);
	assert_int_not_equal(run(e, "ns create " SUBNQN " --nsid 6 --size 8M --device mix "
				    "--isolation software"), 0);
	assert_non_null(strstr(out, "Endurance Group"));
	assert_non_null(strstr(out, "namespace 5 there has placement handles"));
	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 6 --size 8M --device mix "
				"--isolation software --placement-handles 3"), 0);
	/* Whole dies: a group of its own, with or without handles. */
	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 7 --size 4M --device mix "
				"--isolation chip:1"), 0);

	c = fdp_ctrl_up(&e->fx, SUBNQN);
	assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS, 5, 0, &ns), 0);
	g5 = ns.endgid;
	assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS, 6, 0, &ns), 0);
	g6 = ns.endgid;
	assert_int_equal(g5, g6);
	assert_int_equal(ini_get_log_lsi(c->admin, NVME_LOG_LID_FDP_CONFIGS, 0, g5, log, 256), 0);
	assert_int_equal(cl->configs[0].nnss, 2);
	assert_int_equal(cl->configs[0].nruh, 5);
	fdp_ctrl_down(c);
	assert_int_equal(run(e, "ns delete " SUBNQN " 5"), 0);
	assert_int_equal(run(e, "ns delete " SUBNQN " 6"), 0);
	assert_int_equal(run(e, "ns delete " SUBNQN " 7"), 0);

	/* The other way round: a group without FDP refuses a vSSD with handles. */
	assert_int_equal(run(e, "ns create " SUBNQN " --nsid 5 --size 8M --device mix "
				"--isolation software"), 0);
	assert_int_not_equal(run(e, "ns create " SUBNQN " --nsid 6 --size 8M --device mix "
				    "--isolation software --placement-handles 2"), 0);
	assert_non_null(strstr(out, "namespace 5 there has no placement handles"));
	assert_int_equal(run(e, "ns delete " SUBNQN " 5"), 0);
	assert_int_equal(run(e, "device delete mix"), 0);
}

int main(void)
{
	static const struct fx_group g = FDP_GROUP("integration_fdp_events", subsystems, struct env);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_feature_lists),
		cmocka_unit_test(test_implicit_modify),
		cmocka_unit_test(test_update_survives_kill),
		cmocka_unit_test(test_group_mix_refused),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
