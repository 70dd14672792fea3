/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flexible Data Placement (issue 27) over loopback: the FDP events the
 * FTL causes by itself, on a nand namespace of its own device with two
 * persistently isolated reclaim unit handles and a reclaim unit time
 * limit of 1 s (ftl.ru_time_limit_s). Log 20h says the limit (ERUTL); a
 * reclaim unit written to and left open is closed by the controller (the
 * handle has no reclaim unit until it writes again) and, where the host
 * enabled it, a Reclaim Unit Time Limit Exceeded host event (01h) says
 * so, stamped no earlier than the limit after the write; a handle that
 * did not enable it gets none. A GC storm moves valid data of the
 * handles' reclaim units: Media Reallocated controller events (80h) with
 * the number of LBAs moved and the first of them, which belongs to the
 * handle's own LBAs (persistently isolated). The data reads back.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "fdp_common.h"

#define SUBNQN "nqn.2026-12.io.blox:fdp-ev-ftl"
#define NRUH 2u
#define CHUNK 64u /* blocks per write */
#define REGION 3072u /* blocks of each handle: handle h writes [h * REGION, (h + 1) * REGION) */
#define EV_RUTLE 0x01
#define EV_REALLOC 0x80
#define FILL_SALT 0x7e1

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"nand\", \"size\": \"24M\","
	"   \"nand\": {\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 48}, \"ftl\": {\"placement_handles\": 2, "
	"   \"ru_time_limit_s\": 1}}"
	"] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	uint16_t endgid;
};

static int set_event(struct ini_queue *q, uint16_t ph, uint8_t type)
{
	struct ini_req r;

	ini_req_init(&r, nvme_admin_set_features, 1, &type, 1, INI_DIR_H2C);
	r.sqe.cdw10 = NVME_FEAT_FID_FDP_EVENTS;
	r.sqe.cdw11 = ph | 1u << 16;
	r.sqe.cdw12 = 1;
	return ini_exec(q, &r) ? -1 : ini_status(&r.cqe);
}

static const struct nvme_fdp_events_log *events(struct env *e, struct ini_queue *a, bool host,
						uint8_t *log)
{
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_EVENTS, host, e->endgid, log, 4096),
			 0);
	return (const void *)log;
}

/* Poll log 23h (@host events or the controller's) until it holds one of @type; its count. */
static uint32_t wait_event(struct env *e, struct ini_queue *a, bool host, uint8_t type,
			   uint8_t *log)
{
	/* Up to 60 s: the deadline is the test's end, not a measurement. */
	for (int i = 0; i < 600; i++) {
		const struct nvme_fdp_events_log *l = events(e, a, host, log);
		uint32_t n = 0;

		for (uint32_t k = 0; k < l->n; k++)
			n += l->events[k].type == type;
		if (n)
			return n;
		fx_sleep_ms(100);
	}
	fail_msg("no event %#x in the %s events", type, host ? "host" : "controller");
	return 0;
}

static void write_pid(struct ini_queue *q, uint64_t lba, uint64_t n, uint16_t pid)
{
	uint8_t *buf = malloc(CHUNK * LBA);

	assert_non_null(buf);
	for (uint64_t done = 0; done < n;) {
		uint32_t k = (uint32_t)(n - done < CHUNK ? n - done : CHUNK);

		fdp_fill(buf, lba + done, k, FILL_SALT);
		assert_int_equal(ini_write_dir(q, 1, lba + done, k, buf, k * LBA, 2, pid), 0);
		done += k;
	}
	free(buf);
}

static void check(struct ini_queue *q, uint64_t lba, uint32_t n)
{
	uint8_t *buf = malloc((size_t)n * LBA), *want = malloc((size_t)n * LBA);

	assert_non_null(buf);
	assert_non_null(want);
	for (uint32_t done = 0; done < n; done += CHUNK) {
		uint32_t k = n - done < CHUNK ? n - done : CHUNK;

		fdp_fill(want, lba + done, k, FILL_SALT);
		assert_int_equal(ini_read(q, 1, lba + done, k, buf, k * LBA), 0);
		assert_memory_equal(buf, want, (size_t)k * LBA);
	}
	free(buf);
	free(want);
}

static uint64_t wall_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return (uint64_t)tv.tv_sec * 1000 + (uint64_t)tv.tv_usec / 1000;
}

/* 01h: a reclaim unit left open past the limit is closed, and said so where enabled. */
static void test_time_limit(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin, *q = c->io[0];
	const struct nvme_fdp_config_log *cl;
	const struct nvme_fdp_events_log *l;
	uint8_t log[4096], ts[8] = { 0 };
	uint64_t ruamw[NRUH], before, ms = 0;
	struct nvme_id_ns ns;
	struct ini_req r;

	assert_int_equal(ini_identify(a, NVME_IDENTIFY_CNS_NS, 1, 0, &ns), 0);
	e->endgid = ns.endgid;
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_CONFIGS, 0, e->endgid, log, 128), 0);
	cl = (const void *)log;
	assert_int_equal(cl->configs[0].erutl, 1);
	/* The controller's Timestamp is the host's wall clock from here on. */
	before = wall_ms();
	memcpy(ts, &before, 6);
	ini_req_init(&r, nvme_admin_set_features, 0, ts, sizeof(ts), INI_DIR_H2C);
	r.sqe.cdw10 = NVME_FEAT_FID_TIMESTAMP;
	assert_int_equal(ini_exec(a, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);

	assert_int_equal(set_event(a, 1, EV_RUTLE), 0); /* handle 1 only */
	before = wall_ms();
	write_pid(q, REGION, 8, 1);
	write_pid(q, 0, 8, 0);
	assert_int_equal(wait_event(e, a, true, EV_RUTLE, log), 1);
	l = (const void *)log;
	assert_int_equal(l->n, 1); /* handle 0's unit closed too, unreported */
	assert_int_equal(l->events[0].type, EV_RUTLE);
	assert_int_equal(l->events[0].flags,
			 NVME_FDP_EVENT_F_PIV | NVME_FDP_EVENT_F_NSIDV | NVME_FDP_EVENT_F_LV);
	assert_int_equal(l->events[0].pid, 1);
	assert_int_equal(l->events[0].ruhid, 1);
	assert_int_equal(l->events[0].nsid, 1);
	memcpy(&ms, l->events[0].ts.timestamp, 6);
	/* Not before the limit had passed since the write (a few ms of rounding aside). */
	assert_true(ms + 5 >= before + 1000);
	/* Nothing among the controller's events. */
	assert_int_equal(events(e, a, false, log)->n, 0);
	/* Both closed: no reclaim unit until the next write, which opens a fresh one. */
	for (int i = 0; i < 600; i++) {
		fdp_ruh_status(q, NRUH, ruamw);
		if (!ruamw[0])
			break;
		fx_sleep_ms(100);
	}
	assert_int_equal(ruamw[0], 0);
	assert_int_equal(ruamw[1], 0);
	check(q, REGION, 8);
	check(q, 0, 8);
	fdp_ctrl_down(c);
}

/* 80h: GC moves the handles' data; each event names the LBAs moved, of its own handle. */
static void test_media_reallocated(void **state)
{
	struct env *e = *state;
	static char out[4096];
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin, *q = c->io[0];
	const struct nvme_fdp_events_log *l;
	uint8_t log[4096];
	uint32_t n;

	assert_int_equal(set_event(a, 0, EV_REALLOC), 0);
	assert_int_equal(set_event(a, 1, EV_REALLOC), 0);
	/* Both regions written, then a third of each again: superblocks part valid. */
	for (uint16_t h = 0; h < NRUH; h++)
		write_pid(q, h * REGION, REGION, h);
	for (uint16_t h = 0; h < NRUH; h++)
		for (uint32_t b = 0; b < REGION; b += 3 * CHUNK)
			write_pid(q, h * REGION + b, CHUNK, h);
	assert_int_equal(ini_flush(q, 1), 0);
	assert_int_equal(fx_ctl(&e->fx.d, out, sizeof(out),
				"fault inject gc-storm " SUBNQN " 1 --superblocks 6"),
			 0);
	n = wait_event(e, a, false, EV_REALLOC, log);
	l = (const void *)log;
	assert_true(n >= 1);
	for (uint32_t k = 0; k < l->n; k++) {
		struct nvme_fdp_event_realloc re;

		if (l->events[k].type != EV_REALLOC)
			continue;
		memcpy(&re, l->events[k].type_specific, sizeof(re));
		assert_int_equal(l->events[k].flags,
				 NVME_FDP_EVENT_F_PIV | NVME_FDP_EVENT_F_NSIDV |
					 NVME_FDP_EVENT_F_LV);
		assert_true(l->events[k].pid < NRUH);
		assert_int_equal(l->events[k].ruhid, l->events[k].pid);
		assert_int_equal(re.flags, NVME_FDP_EVENT_REALLOC_F_LBAV);
		assert_true(re.nlbam > 0);
		/* Persistently isolated: the data moved is its handle's own. */
		assert_int_equal(re.lba / REGION, l->events[k].pid);
	}
	/* None among the host events but the time limit's. */
	l = events(e, a, true, log);
	for (uint32_t k = 0; k < l->n; k++)
		assert_int_equal(l->events[k].type, EV_RUTLE);
	for (uint16_t h = 0; h < NRUH; h++)
		check(q, h * REGION, REGION);
	fdp_ctrl_down(c);
}

int main(void)
{
	static const struct fx_group g = FDP_GROUP("integration_fdp_ev_ftl", subsystems, struct env);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_media_reallocated),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
