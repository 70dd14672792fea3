/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Power cuts of a "nand" namespace, seen from a host over loopback
 * (bloxctl fault power-cut; docs/FAULTS.md). bloxd stays up: each cycle
 * puts test_durability's random write load on the namespace (4 KiB and
 * 64 KiB writes of seeded patterns over two I/O queues, a Flush now and
 * then) and cuts its power at a random moment, mostly with writes in
 * flight; the host's connection drops, it connects again, and every LBA
 * must read back what the last completed Flush made durable or a write
 * after it (the same model as test_durability's kill -9 cycles). The
 * SMART log's Unsafe Shutdowns counts every cut. The run ends with a
 * drained load, a Flush and a last cut, after which every LBA holds
 * exactly its last write.
 */
#include "durability.h"

#include <nvme/types.h>

static uint64_t unsafe_shutdowns(struct run *r)
{
	struct nvme_smart_log sl;
	uint64_t n = 0;

	assert_int_equal(ini_get_log(r->c->admin, NVME_LOG_LID_SMART, 0xffffffff, 0, &sl,
				     sizeof(sl)),
			 0);
	for (int i = 7; i >= 0; i--)
		n = n << 8 | sl.unsafe_shutdowns[i];
	return n;
}

static void cut(struct run *r)
{
	char out[2048];
	int rc = fx_ctl(&r->d, out, sizeof(out), "fault power-cut %s 1 --json", SUBNQN);

	if (rc)
		fail_msg("bloxctl fault power-cut exited %d: %s", rc, out);
	if (!strstr(out, "\"unsafe_shutdowns\""))
		fail_msg("bloxctl fault power-cut --json: %s", out);
	printf("  bloxctl fault power-cut --json: %s", out);
}

/* Bad input costs nothing: each refused with its exit code and reason. */
static void refusals(struct run *r)
{
	char out[2048];

	assert_int_equal(fx_ctl(&r->d, out, sizeof(out), "fault power-cut %s 7", SUBNQN), 2);
	assert_non_null(strstr(out, "namespace 7 not found"));
	assert_int_equal(fx_ctl(&r->d, out, sizeof(out), "fault power-cut nqn.2026-12.io.blox:none 1"),
			 2);
	assert_int_equal(fx_ctl(&r->d, out, sizeof(out), "fault power-cut %s", SUBNQN), 64);
	assert_int_equal(fx_ctl(&r->d, out, sizeof(out), "fault power-cut %s x", SUBNQN), 64);
	/* A RAM namespace has no flash to lose power. */
	assert_int_equal(fx_ctl(&r->d, out, sizeof(out),
				"ns create %s --nsid 2 --backend ram --size 16M", SUBNQN),
			 0);
	assert_int_equal(fx_ctl(&r->d, out, sizeof(out), "fault power-cut %s 2", SUBNQN), 4);
	assert_non_null(strstr(out, "no power to cut"));
	assert_int_equal(fx_ctl(&r->d, out, sizeof(out), "ns delete %s 2 --force", SUBNQN), 0);
	assert_int_equal(unsafe_shutdowns(r), 0);
}

/* Identify's VWC: no volatile write cache with power-loss protection. */
static void check_vwc(struct run *r)
{
	assert_int_equal(r->c->id.vwc, r->rd->plp_ms ? 0 : NVME_CTRL_VWC_PRESENT | NVME_CTRL_VWC_FLUSH);
}

static void test_power_cuts(void **state)
{
	struct run *r = *state;
	uint32_t cycles = dur_cycles(r->rd);
	struct verify_stats vs;
	struct load_stats ls;
	uint64_t base;
	int64_t t0 = fx_now_ms(), ms;

	printf("%s: up to %u power cuts in %d s, cut after %d..%d ms of load; store in %s\n",
	       r->rd->name, cycles, dur_budget_ms(r->rd) / 1000, r->rd->load_min_ms,
	       r->rd->load_max_ms, r->dir);
	start_daemon(r);
	check_vwc(r);
	refusals(r);
	verify(r, false, &vs);
	assert_int_equal(vs.zero, NLBA);
	base = unsafe_shutdowns(r);
	for (r->cycle = 1; r->cycle <= cycles; r->cycle++) {
		if (fx_now_ms() - t0 > dur_budget_ms(r->rd))
			break;
		load(r, true, &ls);
		assert_true(fx_alive(&r->d)); /* no restart: the namespace came back */
		ms = reconnect(r);
		verify(r, false, &vs);
		assert_int_equal(vs.bad, 0);
		assert_int_equal(unsafe_shutdowns(r), base + r->cycle);
		assert_int_equal(ini_flush(r->c->io[0], 1), 0);
		model_rebase(r);
		printf("  cycle %2u: load %4d ms: %5llu writes, %3llu flushes, cut %s %2llu "
		       "writes in flight; reconnect %lld ms; %u durable, %u newer, %u zero\n",
		       r->cycle, ls.ms, (unsigned long long)ls.writes,
		       (unsigned long long)ls.flushes, ls.idle_kill ? "idle," : "with",
		       (unsigned long long)ls.at_kill, (long long)ms, vs.durable, vs.later,
		       vs.zero);
	}
	assert_true(r->cycle > 2);
	/* Drained and flushed: a cut loses nothing. */
	load(r, false, &ls);
	assert_int_equal(ini_flush(r->c->io[0], 1), 0);
	ini_ctrl_destroy(r->c);
	r->c = NULL;
	cut(r);
	reconnect(r);
	verify(r, true, &vs);
	printf("  final: drained load and a Flush, cut, every LBA exactly as last written "
	       "(%u with data, %u zero); unsafe shutdowns %llu\n",
	       vs.durable, vs.zero, (unsigned long long)unsafe_shutdowns(r));
	assert_int_equal(ini_ctrl_shutdown(r->c), 0);
	ini_ctrl_destroy(r->c);
	r->c = NULL;
	assert_int_equal(fx_stop(&r->d), 0);
	r->started = false;
	r->ok = true;
}

static const struct round power_cut_real_timing = {
	.name = "power_cut_real_timing", .cycles = 8, .qd = 16, .load_min_ms = 150,
	.load_max_ms = 1200, .budget_ms = 25000, .power_cut = true,
};
/* Power-loss protection with a hold-up of 100 ms: no completed write is lost. */
static const struct round power_cut_plp = {
	.name = "power_cut_plp", .cycles = 6, .qd = 16, .load_min_ms = 150,
	.load_max_ms = 1200, .budget_ms = 20000, .power_cut = true, .plp_ms = 100,
};

int main(void)
{
	const struct CMUnitTest tests[] = {
		{ "power_cut_real_timing", test_power_cuts, dur_setup, dur_teardown,
		  (void *)&power_cut_real_timing },
		{ "power_cut_plp", test_power_cuts, dur_setup, dur_teardown,
		  (void *)&power_cut_plp },
	};

	setvbuf(stdout, NULL, _IOLBF, 0);
	return FX_MAIN(NULL, tests);
}
