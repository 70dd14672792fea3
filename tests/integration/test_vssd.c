/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FlashBlox vSSDs end to end: a running bloxd driven through bloxctl and
 * the project's initiator. A device made through the admin API, vSSDs on
 * it by isolation level, refusals (RESOURCE_EXHAUSTED with the reason),
 * isolation seen in the NAND engine's per-die counters while each vSSD is
 * driven alone over NVMe/TCP, a delete giving its dies back, and a
 * restart from the state file giving every vSSD exactly its dies and
 * data again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:vssd"
#define NDIES 8

static const char subsystems[] = "[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[262144];
	uint32_t dies1[NDIES], n1; /* namespace 1's dies, as first given */
	uint8_t data1[8 * 4096]; /* written to namespace 1 at LBA 1000 */
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

/* The engine's array ops on every die of device ssd, from device show --json. */
static void die_ops(struct env *e, uint64_t ops[NDIES])
{
	json_object *o, *dies;

	assert_int_equal(run(e, "device show ssd --json"), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "dies", &dies));
	assert_int_equal(json_object_array_length(dies), NDIES);
	for (size_t i = 0; i < NDIES; i++) {
		json_object *d = json_object_array_get_idx(dies, i), *v;

		ops[i] = 0;
		if (json_object_object_get_ex(d, "reads", &v))
			ops[i] += (uint64_t)json_object_get_int64(v);
		if (json_object_object_get_ex(d, "programs", &v))
			ops[i] += (uint64_t)json_object_get_int64(v);
		if (json_object_object_get_ex(d, "erase_ops", &v))
			ops[i] += (uint64_t)json_object_get_int64(v);
	}
	json_object_put(o);
}

/* The dies of namespace @nsid, from ns show --json; their count. */
static uint32_t ns_dies(struct env *e, uint32_t nsid, uint32_t *out, char *iso, size_t isolen)
{
	json_object *o, *alloc, *dies, *v;
	uint32_t n;

	assert_int_equal(run(e, "--json ns show %s %u", SUBNQN, nsid), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "alloc", &alloc));
	assert_true(json_object_object_get_ex(alloc, "dies", &dies));
	if (iso && json_object_object_get_ex(alloc, "isolation", &v))
		snprintf(iso, isolen, "%s", json_object_get_string(v));
	n = (uint32_t)json_object_array_length(dies);
	for (uint32_t i = 0; i < n; i++)
		out[i] = (uint32_t)json_object_get_int64(json_object_array_get_idx(dies, i));
	json_object_put(o);
	return n;
}

static bool has_die(const uint32_t *dies, uint32_t n, uint32_t die)
{
	for (uint32_t i = 0; i < n; i++)
		if (dies[i] == die)
			return true;
	return false;
}

/* 1. A device through the admin API: made, listed, shown, refused twice. */
static void test_device(void **state)
{
	struct env *e = *state;

	assert_int_equal(run(e, "device create ssd --channels 4 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 96 --blocks-per-plane 64"),
			 0);
	assert_non_null(strstr(e->out, "4 channels x 2 dies"));
	assert_int_equal(run(e, "device create ssd"), 3);
	assert_int_equal(run(e, "device create 'a b'"), 1);
	assert_int_equal(run(e, "device create x --channels 0"), 64);
	assert_int_equal(run(e, "device create x --channels 65"), 1);
	assert_non_null(strstr(e->out, "device.nand.channels: at most 64"));
	assert_int_equal(run(e, "device list"), 0);
	assert_non_null(strstr(e->out, "ssd"));
	assert_int_equal(run(e, "device show nope"), 2);
	assert_int_equal(run(e, "device show ssd"), 0);
	assert_non_null(strstr(e->out, "8 dies, 4 whole channels"));
}

/* 2. vSSDs by isolation level; what does not fit is refused with the reason. */
static void test_vssds_and_refusals(void **state)
{
	struct env *e = *state;
	uint32_t dies[NDIES];
	char iso[16];

	assert_int_equal(run(e, "ns create %s --nsid 1 --size 48M --device ssd "
				"--isolation channel:2",
			     SUBNQN),
			 0);
	e->n1 = ns_dies(e, 1, e->dies1, iso, sizeof(iso));
	assert_string_equal(iso, "channel");
	assert_int_equal(e->n1, 4);
	assert_int_equal(run(e, "ns create %s --nsid 2 --size 16M --device ssd --isolation chip:2",
			     SUBNQN),
			 0);
	assert_int_equal(ns_dies(e, 2, dies, iso, sizeof(iso)), 2);
	assert_string_equal(iso, "chip");
	for (uint32_t i = 0; i < 2; i++)
		assert_false(has_die(e->dies1, e->n1, dies[i]));
	/* One whole channel is left (the chips took one), kept spare: two are refused. */
	assert_int_equal(run(e, "ns create %s --nsid 3 --size 16M --device ssd "
				"--isolation channel:2",
			     SUBNQN),
			 5);
	assert_non_null(strstr(e->out, "need 2 free channels, 0 left (and 1 kept spare for wear "
				       "swaps)"));
	assert_int_equal(run(e, "ns create %s --nsid 3 --size 16M --device ssd --isolation chip:9",
			     SUBNQN),
			 1);
	assert_int_equal(run(e, "ns create %s --nsid 3 --size 16M --isolation chip:1", SUBNQN), 1);
	assert_non_null(strstr(e->out, "only for a namespace on a device"));
	assert_int_equal(run(e, "ns create %s --nsid 3 --size 16M --device nope", SUBNQN), 2);
	assert_non_null(strstr(e->out, "no device 'nope'"));
	/* The device is in use. */
	assert_int_equal(run(e, "device delete ssd"), 4);
	assert_non_null(strstr(e->out, "delete them first"));
}

/* 3. Each vSSD driven alone over NVMe/TCP touches only its own dies. */
static void test_isolation_counters(void **state)
{
	struct env *e = *state;
	uint64_t before[NDIES], after[NDIES];
	uint32_t dies2[NDIES], n2 = ns_dies(e, 2, dies2, NULL, 0);
	struct ini_ctrl *c;

	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		const uint32_t *mine = nsid == 1 ? e->dies1 : dies2;
		uint32_t nmine = nsid == 1 ? e->n1 : n2;

		die_ops(e, before);
		for (uint64_t lba = 0; lba < 256; lba += 8)
			assert_int_equal(fx_rw_check(c->io[0], nsid, lba, 4096), 0);
		assert_int_equal(ini_flush(c->io[0], nsid), 0);
		die_ops(e, after);
		for (uint32_t d = 0; d < NDIES; d++) {
			if (has_die(mine, nmine, d))
				continue;
			if (after[d] != before[d])
				fail_msg("namespace %u was driven, yet die %u (not its own) ran %lu ops",
					 nsid, d, (unsigned long)(after[d] - before[d]));
		}
		{
			uint64_t sum = 0;

			for (uint32_t i = 0; i < nmine; i++)
				sum += after[mine[i]] - before[mine[i]];
			assert_true(sum > 0);
		}
	}
	fx_fill_random(e->data1, sizeof(e->data1), &e->fx.seed);
	assert_int_equal(ini_write(c->io[0], 1, 1000, 8, e->data1, sizeof(e->data1), false), 0);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	ini_ctrl_destroy(c);
}

/*
 * 3b. Reads of one 4 KiB block go to the host straight from the store
 * (nand.lent_reads counts them), with data digests on and off, and bring
 * back what was written; reads of several blocks are copied as before and
 * bring back theirs too.
 */
static void test_reads_sent_in_place(void **state)
{
	struct env *e = *state;
	enum { N = 48, BASE = 2000 };
	static uint8_t data[N * 4096], got[N * 4096];
	int64_t before = fx_ns_stat(&e->fx.d, SUBNQN, 1, "nand", "lent_reads"), after;

	fx_fill_random(data, sizeof(data), &e->fx.seed);
	for (int dg = 0; dg < 2; dg++) {
		struct ini_opts o;
		struct ini_ctrl *c;

		ini_opts_init(&o);
		o.ddgst = o.hdgst = dg;
		assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, &o, &c), 0);
		if (!dg) {
			assert_int_equal(ini_write(c->io[0], 1, BASE, N, data, sizeof(data), false), 0);
			assert_int_equal(ini_flush(c->io[0], 1), 0);
		}
		memset(got, 0, sizeof(got));
		for (uint32_t i = 0; i < N; i++)
			assert_int_equal(ini_read(c->io[0], 1, BASE + i, 1, got + i * 4096, 4096), 0);
		assert_memory_equal(got, data, sizeof(data));
		memset(got, 0, sizeof(got));
		assert_int_equal(ini_read(c->io[0], 1, BASE, N, got, sizeof(got)), 0);
		assert_memory_equal(got, data, sizeof(data));
		ini_ctrl_destroy(c);
	}
	after = fx_ns_stat(&e->fx.d, SUBNQN, 1, "nand", "lent_reads");
	if (after - before < 2 * N)
		fail_msg("%d one-block reads from flash, %ld sent in place", 2 * N,
			 (long)(after - before));
}

/*
 * 3c. A host that takes its data slowly: it sends BIG reads of 128 KiB
 * (never written: zeroes, answered at once; 12.5 MiB, more than both
 * sockets' buffers hold) and then N one-block reads of flash, and waits
 * before it reads any answer. bloxd's socket fills with the big ones, and
 * the one-block reads waiting behind them are copied out of the store
 * rather than keep an erase waiting on this host; every block still
 * arrives whole, in whatever pieces the socket took.
 */
static void test_reads_slow_host(void **state)
{
	struct env *e = *state;
	enum { N = 24, BASE = 3000, BIG = 100, BIG_NLB = 32, BIG_BASE = 8000 };
	static uint8_t data[N * 4096], got[N * 4096], big[BIG][BIG_NLB * 4096];
	static struct ini_req rq[N + BIG];
	struct ini_ctrl *c;
	uint32_t done = 0;

	fx_fill_random(data, sizeof(data), &e->fx.seed);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	assert_int_equal(ini_write(c->io[0], 1, BASE, N, data, sizeof(data), false), 0);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	memset(got, 0, sizeof(got));
	memset(big, 0x77, sizeof(big));
	for (uint32_t i = 0; i < BIG; i++) {
		ini_req_rw(&rq[i], nvme_cmd_read, 1, BIG_BASE + i * BIG_NLB, BIG_NLB, big[i],
			   sizeof(big[i]));
		assert_int_equal(ini_submit(c->io[0], &rq[i]), 0);
	}
	for (uint32_t i = 0; i < N; i++) {
		ini_req_rw(&rq[BIG + i], nvme_cmd_read, 1, BASE + i, 1, got + i * 4096, 4096);
		assert_int_equal(ini_submit(c->io[0], &rq[BIG + i]), 0);
	}
	fx_sleep_ms(300);
	while (done < N + BIG) {
		struct ini_req *d[N + BIG];
		int n = ini_poll(c->io[0], d, N + BIG);

		assert_true(n > 0);
		for (int i = 0; i < n; i++)
			assert_int_equal(d[i]->cqe.status >> 1, 0);
		done += (uint32_t)n;
	}
	assert_memory_equal(got, data, sizeof(data));
	for (uint32_t i = 0; i < BIG; i++)
		for (size_t b = 0; b < sizeof(big[i]); b++)
			if (big[i][b])
				fail_msg("big read %u: byte %zu is %#x, not 0", i, b, big[i][b]);
	ini_ctrl_destroy(c);
}

/* 4. A delete gives the dies back; the next vSSD can have them. */
static void test_delete_returns_dies(void **state)
{
	struct env *e = *state;
	uint32_t old[NDIES], n = ns_dies(e, 2, old, NULL, 0), dies[NDIES];
	json_object *o, *v;

	assert_int_equal(run(e, "ns delete %s 2", SUBNQN), 0);
	assert_int_equal(run(e, "--json device show ssd"), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "free_dies", &v));
	assert_int_equal(json_object_get_int(v), NDIES - 4);
	json_object_put(o);
	/* chip:2 again: a split channel first, else the least worn: its old dies are free. */
	assert_int_equal(run(e, "ns create %s --nsid 2 --size 16M --device ssd --isolation chip:2",
			     SUBNQN),
			 0);
	assert_int_equal(ns_dies(e, 2, dies, NULL, 0), n);
	/* A new vSSD reads zeroes, not its predecessor's data (the dies were erased). */
	{
		struct ini_ctrl *c;
		static uint8_t buf[4096], zero[4096];
		struct ini_req r;

		assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
		ini_req_rw(&r, nvme_cmd_read, 2, 0, 1, buf, sizeof(buf));
		assert_int_equal(ini_exec(c->io[0], &r), 0);
		assert_int_equal(ini_status(&r.cqe), 0);
		assert_memory_equal(buf, zero, sizeof(buf));
		ini_ctrl_destroy(c);
	}
}

/* 5. A restart from the state file: every vSSD gets exactly its dies, and its data. */
static void test_restart_same_dies(void **state)
{
	struct env *e = *state;
	uint32_t dies2[NDIES], n2 = ns_dies(e, 2, dies2, NULL, 0), now[NDIES];
	uint8_t back[sizeof(e->data1)];
	uint16_t p1 = e->fx.d.nvm_port, p2 = e->fx.d.disc_port;
	const char *argv[] = { "--data-dir", e->fx.data_dir, "--log-level", "1", NULL };
	struct ini_ctrl *c;
	struct ini_req r;

	assert_int_equal(fx_stop(&e->fx.d), 0);
	assert_int_equal(fx_start_argv(&e->fx.d, argv, FX_ADDR, p1, p2), 0);
	assert_int_equal(ns_dies(e, 1, now, NULL, 0), e->n1);
	assert_memory_equal(now, e->dies1, e->n1 * sizeof(now[0]));
	assert_int_equal(ns_dies(e, 2, now, NULL, 0), n2);
	assert_memory_equal(now, dies2, n2 * sizeof(now[0]));
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	ini_req_rw(&r, nvme_cmd_read, 1, 1000, 8, back, sizeof(back));
	assert_int_equal(ini_exec(c->io[0], &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	assert_memory_equal(back, e->data1, sizeof(back));
	ini_ctrl_destroy(c);
	/* All gone: the device can go too. */
	assert_int_equal(run(e, "ns delete %s 1", SUBNQN), 0);
	assert_int_equal(run(e, "ns delete %s 2", SUBNQN), 0);
	assert_int_equal(run(e, "device delete ssd"), 0);
	assert_int_equal(run(e, "device list --json"), 0);
	assert_null(strstr(e->out, "\"ssd\""));
}

/*
 * 6. Swaps by themselves: a device checking every few erases, one vSSD
 * written hard and one left alone; the resource manager moves the hot one
 * to a less-worn channel, online, and its data is all there after.
 */
static void test_auto_swap(void **state)
{
	struct env *e = *state;
	static uint8_t buf[128 * 1024], back[128 * 1024];
	uint32_t dies[NDIES], before, after;
	struct ini_ctrl *c;
	uint64_t rnd = e->fx.seed;
	bool swapped = false;

	assert_int_equal(run(e, "device create hot --channels 4 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 96 --blocks-per-plane 32 --null-timing on "
				"--swap-check-erases 16 --swap-share 1000"),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 7 --size 24M --device hot --isolation "
				"channel:1",
			     SUBNQN),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 8 --size 24M --device hot --isolation "
				"channel:1",
			     SUBNQN),
			 0);
	assert_int_equal(ns_dies(e, 7, dies, NULL, 0), 2);
	before = dies[0] / 2;
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	/* Overwrite namespace 7 many times (GC erases), in 128 KiB writes at random places. */
	for (int round = 0; round < 120 && !swapped; round++) {
		for (int k = 0; k < 40; k++) {
			uint64_t lba;

			rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
			lba = (rnd >> 33) % ((24u << 20) / sizeof(buf)) * (sizeof(buf) / 4096);
			memset(buf, (int)(lba & 0xff) ^ round, sizeof(buf));
			assert_int_equal(ini_write(c->io[0], 7, lba, sizeof(buf) / 4096, buf,
						   sizeof(buf), false),
					 0);
		}
		assert_int_equal(run(e, "--json migrate status"), 0);
		swapped = strstr(e->out, "\"nsid\":7") && strstr(e->out, "channel ");
		if (!swapped && round % 10 == 9)
			usleep(200000);
	}
	/* The device looks at its wear every few seconds: give it time to. */
	for (int i = 0; i < 200 && !swapped; i++) {
		usleep(100000);
		assert_int_equal(run(e, "--json migrate status"), 0);
		swapped = strstr(e->out, "\"nsid\":7") && strstr(e->out, "channel ");
	}
	if (!swapped)
		fail_msg("no swap: %s", e->out);
	/* Wait for it to end, then namespace 7 is on another channel and reads back. */
	for (int i = 0; i < 300; i++) {
		assert_int_equal(run(e, "--json migrate status"), 0);
		if (!strstr(e->out, "\"running\"") && !strstr(e->out, "\"queued\""))
			break;
		usleep(100000);
	}
	assert_non_null(strstr(e->out, "\"done\""));
	assert_int_equal(ns_dies(e, 7, dies, NULL, 0), 2);
	after = dies[0] / 2;
	assert_int_not_equal(after, before);
	memset(buf, 0xa5, sizeof(buf));
	assert_int_equal(ini_write(c->io[0], 7, 0, sizeof(buf) / 4096, buf, sizeof(buf), true), 0);
	assert_int_equal(ini_read(c->io[0], 7, 0, sizeof(back) / 4096, back, sizeof(back)), 0);
	assert_memory_equal(buf, back, sizeof(buf));
	ini_ctrl_destroy(c);
	assert_int_equal(run(e, "device show hot"), 0);
	assert_non_null(strstr(e->out, "swaps"));
	assert_int_equal(run(e, "ns delete %s 7", SUBNQN), 0);
	assert_int_equal(run(e, "ns delete %s 8", SUBNQN), 0);
	assert_int_equal(run(e, "device delete hot"), 0);
}

int main(void)
{
	static const struct fx_group g = { .who = "test_vssd",
					   .subsystems = subsystems,
					   .own_data_dir = true,
					   .size = sizeof(struct env) };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device),
		cmocka_unit_test(test_vssds_and_refusals),
		cmocka_unit_test(test_isolation_counters),
		cmocka_unit_test(test_reads_sent_in_place),
		cmocka_unit_test(test_reads_slow_host),
		cmocka_unit_test(test_delete_returns_dies),
		cmocka_unit_test(test_restart_same_dies),
		cmocka_unit_test(test_auto_swap),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
