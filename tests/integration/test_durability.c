/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Crash durability of the "nand" backend (the FTL on emulated flash in a
 * file store under --data-dir), seen from a host over loopback.
 *
 * Each round runs cycles on one store: start bloxd, check what it
 * recovered, put a random write load on it (4 KiB and 64 KiB writes of
 * seeded patterns over two I/O queues, Flushes now and then, or only FUA
 * writes), and kill -9 the daemon at a random moment (mostly mid-load,
 * one time in five after the load drained and a short idle pause, when
 * only background work runs). The test keeps a model of every LBA: the
 * write that the last completed Flush (or FUA completion) made durable,
 * and the writes that may or may not have survived (completed after that
 * Flush was sent, or still in flight at the kill). After a restart every LBA must read back the
 * durable write or one of those later ones; zeroes where data was
 * flushed, an older version, data of another LBA or garbage is a failure.
 * A round ends with a drained load, SIGTERM (exit 0) and a final restart
 * that must give back exactly the last completed write of every LBA.
 *
 * Every block carries a header (magic, write id, LBA) before its seeded
 * pattern, so a wrong block tells which write it came from. bloxd logs at
 * level 3 (or $BLOX_TEST_LOG_LEVEL) into bloxd.log in the round's data
 * dir, which is kept when the round fails. $BLOX_DURABILITY_CYCLES sets
 * the cycle count of every round, $BLOX_DURABILITY_SCALE multiplies the
 * cycles and the time budget of every round, $BLOX_DURABILITY_ROUND picks
 * rounds by name (a cmocka filter pattern), $BLOX_TEST_SEED repeats a run.
 *
 * In ctest the rounds are short: 10, 8 and 6 cycles, at most 30, 16 and
 * 14 s (43-46 s in all on the development machine, ASan or optimized).
 * BLOX_DURABILITY_SCALE=2.5 is the long form (25, 20 and 15 cycles, at
 * most 75, 40 and 35 s), a larger factor a longer soak. Every round kills
 * at least once after the load drained (by its second cycle), whatever
 * the seed.
 *
 * This file: the rounds and main(). durability_model.c: block patterns,
 * the model of what each LBA may hold, verification after a restart.
 * durability_load.c: starting and killing bloxd, the write load.
 */
#include "durability.h"

/* --- rounds ---------------------------------------------------------- */

static void test_round(void **state)
{
	struct run *r = *state;
	const struct round *rd = r->rd;
	uint32_t cycles = dur_cycles(rd);
	struct verify_stats vs;
	struct load_stats ls;
	int64_t t0 = fx_now_ms(), ms;
	int rc;

	printf("%s: %s timing, %s, %u I/O queues x QD %u, up to %u cycles in "
	       "%d s, kill after %d..%d ms of load; store in %s\n",
	       rd->name, rd->null_timing ? "null" : "real",
	       rd->fua_only ? "FUA writes only" : "Flush now and then (5% FUA)",
	       NR_QUEUES, rd->qd, cycles, dur_budget_ms(rd) / 1000, rd->load_min_ms,
	       rd->load_max_ms, r->dir);
	/* Cycle 0: a new store reads as zeroes. */
	r->t_restart_ms += (uint64_t)start_daemon(r);
	verify(r, false, &vs);
	assert_int_equal(vs.zero, NLBA);
	for (r->cycle = 1; r->cycle <= cycles; r->cycle++) {
		if (fx_now_ms() - t0 > dur_budget_ms(rd)) {
			printf("  time budget of %d s used up after %u cycles\n",
			       dur_budget_ms(rd) / 1000, r->cycle - 1);
			break;
		}
		load(r, true, &ls);
		r->t_writes += ls.writes;
		r->t_bytes += ls.bytes;
		r->t_flushes += ls.flushes;
		r->t_at_kill += ls.at_kill;
		ms = start_daemon(r);
		r->t_restart_ms += (uint64_t)ms;
		verify(r, false, &vs);
		r->t_verified_durable += vs.durable;
		r->t_verified_later += vs.later;
		if (!rd->fua_only) {
			/* What was read back is now durable, too. */
			rc = ini_flush(r->c->io[0], 1);
			assert_int_equal(rc, 0);
			model_rebase(r);
		}
		printf("  cycle %2u: load %4d ms: %5llu writes (%3llu MiB), %3llu "
		       "flushes, kill -9 %s %2llu writes in flight; restart "
		       "%4lld ms; %u LBAs: %u durable, %u newer, %u zero\n",
		       r->cycle, ls.ms, (unsigned long long)ls.writes,
		       (unsigned long long)(ls.bytes >> 20),
		       (unsigned long long)ls.flushes,
		       ls.idle_kill ? "idle," : "with",
		       (unsigned long long)ls.at_kill, (long long)ms, NLBA,
		       vs.durable, vs.later, vs.zero);
	}
	cycles = r->cycle - 1;
	/* A last drained load, SIGTERM, and an exact check after restart. */
	load(r, false, &ls);
	r->t_writes += ls.writes;
	r->t_bytes += ls.bytes;
	log_mark(r, "SIGTERM");
	rc = fx_stop(&r->d);
	r->started = false;
	ini_ctrl_destroy(r->c);
	r->c = NULL;
	if (rc != 0) {
		print_log_tail(r, 40);
		fail_msg("bloxd exited %d on SIGTERM, not 0", rc);
	}
	ms = start_daemon(r);
	verify(r, true, &vs);
	printf("  final: drained load %d ms (%llu writes), SIGTERM exit 0, "
	       "restart %lld ms, all %u LBAs exactly as last written (%u "
	       "with data, %u zero)\n",
	       ls.ms, (unsigned long long)ls.writes, (long long)ms, NLBA,
	       vs.durable, vs.zero);
	rc = ini_ctrl_shutdown(r->c);
	assert_int_equal(rc, 0);
	ini_ctrl_destroy(r->c);
	r->c = NULL;
	rc = fx_stop(&r->d);
	r->started = false;
	assert_int_equal(rc, 0);
	printf("%s: %u kill -9 cycles in %.1f s: %llu writes (%llu MiB, %llu "
	       "FUA), %llu flushes, %llu writes in flight at kills; "
	       "%llu durable and %llu newer unflushed LBAs verified, mean "
	       "restart %llu ms\n",
	       rd->name, cycles, (double)(fx_now_ms() - t0) / 1000.0,
	       (unsigned long long)r->t_writes,
	       (unsigned long long)(r->t_bytes >> 20),
	       (unsigned long long)r->t_fua, (unsigned long long)r->t_flushes,
	       (unsigned long long)r->t_at_kill,
	       (unsigned long long)r->t_verified_durable,
	       (unsigned long long)r->t_verified_later,
	       (unsigned long long)(r->t_restart_ms / (cycles + 2)));
	fflush(stdout);
	r->ok = true;
}

static const struct round flush_real_timing = {
	"flush_real_timing", false, false, 10, 16, 200, 2500, 30000,
};
static const struct round flush_null_timing = {
	"flush_null_timing", true, false, 8, 32, 100, 1500, 16000,
};
static const struct round fua_real_timing = {
	"fua_real_timing", false, true, 6, 8, 200, 2000, 14000,
};

#define ROUND(r) { #r, test_round, dur_setup, dur_teardown, (void *)&r }

int main(void)
{
	const struct CMUnitTest tests[] = {
		ROUND(flush_real_timing),
		ROUND(flush_null_timing),
		ROUND(fua_real_timing),
	};

	const char *only = getenv("BLOX_DURABILITY_ROUND");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (only && *only)
		cmocka_set_test_filter(only); /* e.g. flush_null_timing or "fua*" */
	return FX_MAIN(NULL, tests);
}
