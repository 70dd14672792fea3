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
 * handle's own LBAs (persistently isolated). Both logs are what they
 * were after a clean restart and after a power cut of the namespace, and
 * events are still logged after each. The data reads back. The FDP
 * statistics of a 512-byte namespace (nsid 2, a group of its own) agree
 * with what the host wrote and with bloxctl stats.
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "fdp_common.h"

#define SUBNQN "nqn.2026-12.io.blox:fdp-ev-ftl"
#define NRUH 2u
#define CHUNK FDP_CHUNK /* blocks per write (fdp_write_pid) */
#define REGION 3072u /* blocks of each handle: handle h writes [h * REGION, (h + 1) * REGION) */
#define EV_RUTLE 0x01
#define EV_REALLOC 0x80
#define FILL_SALT 0x7e1

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"nand\", \"size\": \"24M\","
	"   \"nand\": {\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 48}, \"ftl\": {\"placement_handles\": 2, "
	"   \"ru_time_limit_s\": 1}},"
	"  {\"nsid\": 2, \"backend\": \"nand\", \"size\": \"16M\", \"block_size\": 512,"
	"   \"nand\": {\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 48}, \"ftl\": {\"placement_handles\": 2}}"
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
	fdp_write_pid(q, lba, n, pid, FILL_SALT);
}

static void check(struct ini_queue *q, uint64_t lba, uint32_t n)
{
	fdp_check(q, lba, n, FILL_SALT);
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

/* Every event of @a but the time equal to @b's; the gaps between them equal too. */
static void same_events(const struct nvme_fdp_events_log *a, const struct nvme_fdp_events_log *b)
{
	assert_int_equal(a->n, b->n);
	for (uint32_t k = 0; k < a->n; k++) {
		struct nvme_fdp_event x = a->events[k], y = b->events[k];
		uint64_t t[4] = { 0 };

		if (k) {
			memcpy(&t[0], a->events[k - 1].ts.timestamp, 6);
			memcpy(&t[1], a->events[k].ts.timestamp, 6);
			memcpy(&t[2], b->events[k - 1].ts.timestamp, 6);
			memcpy(&t[3], b->events[k].ts.timestamp, 6);
			assert_int_equal(t[1] - t[0], t[3] - t[2]);
		}
		memset(&x.ts, 0, sizeof(x.ts));
		memset(&y.ts, 0, sizeof(y.ts));
		assert_memory_equal(&x, &y, sizeof(x));
	}
}

/* A controller whose Timestamp is the host's wall clock: event times far back are not 0. */
static struct ini_ctrl *ctrl_up_ts(struct env *e)
{
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	uint64_t ms = wall_ms();
	uint8_t ts[8] = { 0 };
	struct ini_req r;

	memcpy(ts, &ms, 6);
	ini_req_init(&r, nvme_admin_set_features, 0, ts, sizeof(ts), INI_DIR_H2C);
	r.sqe.cdw10 = NVME_FEAT_FID_TIMESTAMP;
	assert_int_equal(ini_exec(c->admin, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	return c;
}

/* Write to handle 1 at @off and wait for the host events to hold more than @n; their count. */
static uint32_t wait_more(struct env *e, struct ini_ctrl *c, uint32_t n, uint32_t off)
{
	uint8_t log[4096];
	uint32_t now = n;

	write_pid(c->io[0], REGION + off, 4, 1);
	for (int i = 0; i < 600 && now <= n; i++) {
		now = events(e, c->admin, true, log)->n;
		if (now <= n)
			fx_sleep_ms(100);
	}
	assert_true(now > n);
	return now;
}

/*
 * The log through a clean restart and a power cut of the namespace: what
 * it was, the enables too; events go on being logged after each.
 */
static void test_events_kept(void **state)
{
	struct env *e = *state;
	static char out[8192];
	static uint8_t host0[4096], ctrl0[4096], log[4096];
	const struct nvme_fdp_events_log *h0 = (const void *)host0, *c0 = (const void *)ctrl0;
	struct ini_ctrl *c = ctrl_up_ts(e);
	uint32_t n;

	/*
	 * Quiet first: every handle's unit closed by the time limit, and two
	 * looks at the logs a while apart the same (GC may still move data).
	 */
	for (int i = 0; i < 600; i++) {
		uint64_t ruamw[NRUH];

		fdp_ruh_status(c->io[0], NRUH, ruamw);
		if (!ruamw[0] && !ruamw[1])
			break;
		fx_sleep_ms(100);
	}
	for (int i = 0; i < 50; i++) {
		events(e, c->admin, true, host0);
		events(e, c->admin, false, ctrl0);
		fx_sleep_ms(1200);
		if (!memcmp(events(e, c->admin, true, log), host0, sizeof(log)) &&
		    !memcmp(events(e, c->admin, false, log), ctrl0, sizeof(log)))
			break;
	}
	/* The tests before left events of both kinds, and room for two more. */
	assert_true(h0->n >= 1 && c0->n >= 1);
	assert_true(h0->n + 2 < 63);
	fdp_ctrl_down(c);

	assert_int_equal(fx_stop(&e->fx.d), 0);
	assert_int_equal(fx_start_opts(&e->fx.d, subsystems,
				       &(struct fx_start_opts){ .data_dir = e->fx.data_dir }),
			 0);
	c = ctrl_up_ts(e);
	same_events(events(e, c->admin, true, log), h0);
	same_events(events(e, c->admin, false, log), c0);
	/*
	 * Still enabled on handle 1 (kept with the log): a unit left open is
	 * told. The FTL's ring has gone past its last checkpoint (the
	 * restart's), which the power cut below brings back.
	 */
	n = wait_more(e, c, h0->n, 100);
	events(e, c->admin, true, host0);
	events(e, c->admin, false, ctrl0);
	fdp_ctrl_down(c);

	assert_int_equal(fx_ctl(&e->fx.d, out, sizeof(out), "fault power-cut " SUBNQN " 1"), 0);
	c = ctrl_up_ts(e);
	same_events(events(e, c->admin, true, log), h0);
	same_events(events(e, c->admin, false, log), c0);
	/* The next event is logged, though the rebuilt ring numbers it as one seen before. */
	wait_more(e, c, n, 200);
	check(c->io[0], REGION + 100, 4);
	check(c->io[0], REGION + 200, 4);
	fdp_ctrl_down(c);
}

/* Namespace 2's figures in bloxctl stats --json: fdp's, the FTL's and the NAND's. */
struct ns2_stats {
	uint64_t fdp_host, fdp_media, fdp_erased;
	uint64_t ftl_units, ftl_erases, nand_erases;
};

static uint64_t jget(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ? (uint64_t)json_object_get_int64(v) : 0;
}

static void ns2_stats(struct env *e, struct ns2_stats *st)
{
	static char out[1 << 16];
	json_object *o, *nss, *v;
	bool found = false;

	memset(st, 0, sizeof(*st));
	assert_int_equal(fx_ctl(&e->fx.d, out, sizeof(out), "stats " SUBNQN " 2 --json"), 0);
	o = json_tokener_parse(out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &nss));
	for (size_t i = 0; i < json_object_array_length(nss); i++) {
		json_object *ns = json_object_array_get_idx(nss, i), *fdp, *ftl, *nand;

		if (jget(ns, "nsid") != 2)
			continue;
		found = true;
		assert_true(json_object_object_get_ex(ns, "fdp", &fdp));
		assert_true(json_object_object_get_ex(ns, "ftl", &ftl));
		assert_true(json_object_object_get_ex(ns, "nand", &nand));
		st->fdp_host = jget(fdp, "host_bytes");
		st->fdp_media = jget(fdp, "media_bytes");
		st->fdp_erased = jget(fdp, "erased_bytes");
		st->ftl_units = jget(ftl, "units_written_host") + jget(ftl, "units_written_gc") +
				jget(ftl, "units_written_tp") + jget(ftl, "units_padded");
		st->ftl_erases = jget(ftl, "flash_erases");
		st->nand_erases = jget(nand, "erases");
	}
	(void)v;
	assert_true(found);
	json_object_put(o);
}

static uint64_t get128(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/*
 * The FDP Statistics log (22h) of a 512-byte namespace, written in pieces
 * smaller than the FTL's 4 KiB unit and collected by GC: host bytes are
 * what the host wrote (not the units its read-modify-writes programmed),
 * media bytes what the FTL programmed, bytes erased what it erased, each
 * equal to bloxctl stats (the FDP figures, the FTL's counters, the
 * device's erases).
 */
static void test_statistics(void **state)
{
	struct env *e = *state;
	static char out[4096];
	static uint8_t buf[64 * 512];
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin, *q = c->io[0];
	uint8_t log[64], clog[128];
	const struct nvme_fdp_config_log *cl = (const void *)clog;
	struct ns2_stats s1, s2;
	uint64_t wrote = 0, block_bytes;
	struct nvme_id_ns ns;
	uint16_t eg;

	assert_int_equal(ini_identify(a, NVME_IDENTIFY_CNS_NS, 2, 0, &ns), 0);
	eg = ns.endgid;
	assert_int_not_equal(eg, e->endgid);
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_CONFIGS, 0, eg, clog, sizeof(clog)), 0);
	block_bytes = cl->configs[0].runs / 4; /* a superblock: a block on each of 4 dies */
	memset(buf, 0x5a, sizeof(buf));
	/* 12 MiB in writes of 1..63 sectors, at odd places, with both identifiers. */
	for (uint64_t lba = 1, k = 0; wrote < (12ull << 20); k++) {
		uint32_t n = (uint32_t)(k * 37 % 63) + 1;
		uint16_t pid = (uint16_t)(k & 1);

		if (lba + n > 32768)
			lba = k % 7;
		assert_int_equal(ini_write_dir(q, 2, lba, n, buf, n * 512, 2, pid), 0);
		wrote += n * 512ull;
		lba += n + (k % 5);
	}
	assert_int_equal(ini_flush(q, 2), 0);
	assert_int_equal(fx_ctl(&e->fx.d, out, sizeof(out),
				"fault inject gc-storm " SUBNQN " 2 --superblocks 4"),
			 0);
	/* Until nothing moves between two looks (GC may run on). */
	for (int i = 0; i < 300; i++) {
		ns2_stats(e, &s1);
		assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_STATS, 0, eg, log, 64), 0);
		ns2_stats(e, &s2);
		if (!memcmp(&s1, &s2, sizeof(s1)) && s1.ftl_erases)
			break;
		fx_sleep_ms(200);
	}
	/* Host bytes: what the host wrote, to the byte. */
	assert_int_equal(get128(log), wrote);
	assert_int_equal(s1.fdp_host, wrote);
	/* Media bytes: the FTL's programs (host, GC, translation pages, padding). */
	assert_int_equal(get128(log + 16), s1.fdp_media);
	assert_int_equal(get128(log + 16), s1.ftl_units * 4096);
	assert_true(get128(log + 16) > wrote); /* read-modify-writes, GC */
	/* Bytes erased: the blocks the FTL erased, which the device counted too. */
	assert_true(s1.ftl_erases > 0);
	assert_int_equal(get128(log + 32), s1.fdp_erased);
	assert_int_equal(get128(log + 32), s1.ftl_erases * block_bytes);
	assert_int_equal(s1.nand_erases, s1.ftl_erases);
	fdp_ctrl_down(c);
}

int main(void)
{
	static const struct fx_group g = FDP_GROUP("integration_fdp_ev_ftl", subsystems, struct env);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_limit),
		cmocka_unit_test(test_media_reallocated),
		cmocka_unit_test(test_events_kept),
		cmocka_unit_test(test_statistics),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
