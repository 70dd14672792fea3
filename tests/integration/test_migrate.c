/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Online migration of a vSSD (FlashBlox) end to end: bloxd driven through
 * bloxctl and the project's initiator, on a device with real NAND timing.
 * A channel vSSD moves to another channel while a host writes, trims and
 * reads it (a shadow of every block checks all of it after, and reads
 * during); pause, resume and cancel; and kill -9 in the middle of a
 * migration, after which bloxd starts again with the same command line,
 * the migration goes on to its end and no flushed block is lost.
 * Its progress as bloxctl shows it: never backwards (across a pause, and
 * a cancel counts what it moves back instead), a recent rate whose ETA
 * follows a change of share, and the ended migrations listed after a
 * restart. A deleted device's store file goes with it (or stays when
 * asked), and a device made over a store of another geometry says so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <json-c/json.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:mig"
#define NBLOCKS 8192u /* 32 MiB of 4 KiB blocks, the part of the namespace used */
#define CHUNK 8u
#define UNDER_IO_ROUNDS 40u /* phase 2: rounds of host I/O (8 ops each) during the migration */

static const char subsystems[] = "[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[262144];
	/* Per block: the generation written last (0: never, reads zeroes; ~0: trimmed). */
	uint32_t gen[NBLOCKS];
	uint32_t next_gen;
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

/* Block @lba's content for generation @gen. */
static void pattern(uint8_t *b, uint32_t lba, uint32_t gen)
{
	uint64_t s = ((uint64_t)lba << 32) | gen;

	for (size_t i = 0; i < 4096; i += 8) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		memcpy(b + i, &s, 8);
	}
}

static void write_chunk(struct env *e, struct ini_queue *q, uint32_t lba)
{
	static uint8_t buf[CHUNK * 4096];
	uint32_t g = ++e->next_gen;

	for (uint32_t i = 0; i < CHUNK; i++)
		pattern(buf + i * 4096, lba + i, g);
	assert_int_equal(ini_write(q, 1, lba, CHUNK, buf, sizeof(buf), false), 0);
	for (uint32_t i = 0; i < CHUNK; i++)
		e->gen[lba + i] = g;
}

/* Blocks [@lba, @lba + @n) read back as the shadow says. */
static void check_range(struct env *e, struct ini_queue *q, uint32_t lba, uint32_t n)
{
	static uint8_t buf[CHUNK * 4096], want[4096];

	assert_true(n <= CHUNK);
	assert_int_equal(ini_read(q, 1, lba, n, buf, n * 4096), 0);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t g = e->gen[lba + i];

		if (g == 0 || g == UINT32_MAX)
			memset(want, 0, sizeof(want));
		else
			pattern(want, lba + i, g);
		if (memcmp(buf + i * 4096, want, 4096))
			fail_msg("block %u: not generation %u", lba + i, g);
	}
}

static void check_all(struct env *e, struct ini_queue *q)
{
	for (uint32_t lba = 0; lba < NBLOCKS; lba += CHUNK)
		check_range(e, q, lba, CHUNK);
}

/* migrate status ID --json: the migration's object (json_object_put() the root @root). */
static json_object *mig_json(struct env *e, uint32_t id, json_object **root)
{
	json_object *arr, *m;

	assert_int_equal(run(e, "migrate status %u --json", id), 0);
	*root = json_tokener_parse(e->out);
	assert_non_null(*root);
	assert_true(json_object_object_get_ex(*root, "migrations", &arr));
	m = json_object_array_get_idx(arr, 0);
	assert_non_null(m);
	return m;
}

static double jd(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_double(v) : 0;
}

static const char *js(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : "";
}

static bool jb(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_get_boolean(v);
}

/* One sample of a migration's progress. */
struct prog {
	char state[32];
	double pct, back_pct, eta_s, rate;
	double copied, back;
	bool moving_back;
};

static struct prog prog_of(struct env *e, uint32_t id)
{
	json_object *root, *m = mig_json(e, id, &root);
	struct prog p = { .pct = jd(m, "percent"),
			  .back_pct = jd(m, "back_percent"),
			  .eta_s = jd(m, "eta_ns") / 1e9,
			  .rate = jd(m, "rate_mbps"),
			  .copied = jd(m, "bytes_copied"),
			  .back = jd(m, "bytes_back"),
			  .moving_back = jb(m, "moving_back") };

	snprintf(p.state, sizeof(p.state), "%s", js(m, "state"));
	json_object_put(root);
	return p;
}

/* Neither the percent nor the bytes copied went back since @was. */
static void no_step_back(const struct prog *was, const struct prog *now, const char *when)
{
	if (now->pct + 1e-9 < was->pct || now->copied < was->copied)
		fail_msg("%s: progress went back from %.2f%% (%.0f bytes) to %.2f%% (%.0f bytes), "
			 "%s", when, was->pct, was->copied, now->pct, now->copied, now->state);
}

/* Start a migration of namespace 1; its id. */
static uint32_t start(struct env *e, const char *args)
{
	return fx_mig_start(&e->fx.d, SUBNQN, 1, args);
}

static void wait_state(struct env *e, uint32_t id, const char *want, int seconds)
{
	fx_mig_wait(&e->fx.d, id, want, seconds);
}

/* The channel namespace 1 is on (its first die / dies per channel), from ns show. */
static uint32_t ns_channel(struct env *e)
{
	return fx_ns_die(&e->fx.d, SUBNQN, 1) / 2;
}

/* 1. The device (real TLC timing) and a channel vSSD with 32 MiB written. */
static void test_setup(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;

	assert_int_equal(run(e, "device create ssd --channels 4 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 96 --blocks-per-plane 64"),
			 0);
	assert_int_equal(run(e, "ns create %s --nsid 1 --size 64M --device ssd --isolation "
				"channel:1",
			     SUBNQN),
			 0);
	assert_int_equal(ns_channel(e), 0);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	for (uint32_t lba = 0; lba < NBLOCKS; lba += CHUNK)
		write_chunk(e, c->io[0], lba);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	ini_ctrl_destroy(c);
	/* Refusals: taken or unknown places, a wrong count, a move to where it is. */
	assert_int_equal(run(e, "migrate start %s 1 --to-channels 9", SUBNQN), 1);
	assert_int_equal(run(e, "migrate start %s 1 --to-channels 1,2", SUBNQN), 1);
	assert_int_equal(run(e, "migrate start %s 1 --to-channels 0", SUBNQN), 1);
	assert_int_equal(run(e, "migrate start %s 1 --to-chips 4,5", SUBNQN), 1);
	assert_int_equal(run(e, "migrate start %s 1", SUBNQN), 64);
	assert_int_equal(run(e, "migrate status 77"), 2);
}

/* 2. A move under I/O (UNDER_IO_ROUNDS of writes, trims and reads): every block checks out after. */
static void test_migrate_under_io(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	uint64_t rnd = e->fx.seed;
	char st[32] = "";
	double pct = 0;
	uint32_t id, rounds = 0;

	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	id = start(e, "--to-channels 2 --share 1000");
	for (;;) {
		uint32_t lba;

		fx_mig_status(&e->fx.d, id, st, sizeof(st), &pct);
		if (strcmp(st, "running"))
			break;
		/*
		 * A fixed amount of I/O, then only waiting: the pages it leaves
		 * stale are copied by every later migration of this test, which
		 * would otherwise take longer the faster the build.
		 */
		if (rounds >= UNDER_IO_ROUNDS) {
			usleep(20000);
			continue;
		}
		for (int k = 0; k < 8; k++) {
			rnd = rnd * 6364136223846793005ull + 1;
			lba = (uint32_t)(rnd >> 33) % (NBLOCKS / CHUNK) * CHUNK;
			if (k == 7) {
				assert_int_equal(ini_dsm_deallocate(c->io[0], 1, lba, CHUNK), 0);
				for (uint32_t i = 0; i < CHUNK; i++)
					e->gen[lba + i] = UINT32_MAX;
			} else if (k & 1) {
				write_chunk(e, c->io[0], lba);
			} else {
				check_range(e, c->io[0], lba, CHUNK);
			}
		}
		rounds++;
	}
	assert_string_equal(st, "done");
	assert_true(rounds > 0);
	assert_int_equal(ns_channel(e), 2);
	check_all(e, c->io[0]);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	ini_ctrl_destroy(c);
	/* Channel 0 is free again. */
	assert_int_equal(run(e, "--json device show ssd"), 0);
	assert_non_null(strstr(e->out, "\"free_channels\":3"));
}

/* 3. Pause and resume, then cancel: back where it was, data intact. */
static void test_pause_resume_cancel(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;
	char st[32];
	double pct;
	uint32_t id = start(e, "--to-channels 3 --share 200");

	assert_int_equal(run(e, "migrate pause %u", id), 0);
	fx_mig_status(&e->fx.d, id, st, sizeof(st), &pct);
	assert_string_equal(st, "paused");
	assert_int_equal(run(e, "migrate pause %u", id), 4);
	assert_int_equal(run(e, "migrate resume %u", id), 0);
	assert_int_equal(run(e, "migrate share %u 500", id), 0);
	usleep(300000);
	assert_int_equal(run(e, "migrate cancel %u", id), 0);
	wait_state(e, id, "cancelled", 120);
	assert_int_equal(ns_channel(e), 2);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	check_all(e, c->io[0]);
	ini_ctrl_destroy(c);
	assert_int_equal(run(e, "--json device show ssd"), 0);
	assert_non_null(strstr(e->out, "\"free_channels\":3"));
}

/*
 * 5. Progress never goes back: sampled while it runs (to 5%, dozens of
 * samples), across a pause and a resume (until it moves on again); a
 * cancel leaves the percent as reached and counts what it moves back, to
 * all of it.
 */
static void test_progress_monotonic(void **state)
{
	struct env *e = *state;
	struct prog was, now, paused;
	uint32_t id = start(e, "--to-channels 3 --share 100");

	was = prog_of(e, id);
	for (int i = 0; i < 600 && (was.pct < 5 || !strcmp(was.state, "queued")); i++) {
		usleep(50000);
		now = prog_of(e, id);
		no_step_back(&was, &now, "running");
		was = now;
	}
	assert_string_equal(was.state, "running");
	assert_true(was.pct > 0);
	assert_int_equal(run(e, "migrate pause %u", id), 0);
	for (int i = 0; i < 5; i++) {
		now = prog_of(e, id);
		assert_string_equal(now.state, "paused");
		no_step_back(&was, &now, "paused");
		assert_true(now.rate == 0 && now.eta_s == 0);
		was = now;
		usleep(100000);
	}
	paused = was;
	assert_int_equal(run(e, "migrate resume %u", id), 0);
	/* Sampled until it has moved on by half a percent, five times at least. */
	for (int i = 0; i < 600 && (i < 5 || was.pct < paused.pct + 0.5); i++) {
		now = prog_of(e, id);
		no_step_back(&was, &now, "resumed");
		was = now;
		usleep(50000);
	}
	assert_string_equal(was.state, "running");
	assert_true(was.pct > paused.pct);
	assert_int_equal(run(e, "migrate cancel %u", id), 0);
	for (int i = 0; i < 1200; i++) {
		now = prog_of(e, id);
		no_step_back(&was, &now, "cancelling");
		assert_true(now.moving_back);
		assert_true(now.back_pct + 1e-9 >= was.back_pct || !was.moving_back);
		was = now;
		if (!strcmp(now.state, "cancelled"))
			break;
		assert_string_equal(now.state, "cancelling");
		usleep(100000);
	}
	assert_string_equal(was.state, "cancelled");
	assert_true(was.back > 0);
	assert_true(was.back_pct > 99.9);
	/* Said as a way back, not as a percent gone to 0. */
	assert_int_equal(run(e, "migrate status %u", id), 0);
	assert_non_null(strstr(e->out, "moved back"));
	assert_int_equal(ns_channel(e), 2);
}

/*
 * 6. The rate is a recent one: slow at a small share, then the share goes
 * up; a second later the ETA is about the time it then takes, not what
 * the average since the start says. The slow part runs to 1.5% (7-11 s
 * here): an ETA from the average since the start would then be five to
 * eight times the time it takes, well outside the factor of two allowed.
 */
static void test_eta_after_share(void **state)
{
	struct env *e = *state;
	struct prog p;
	uint64_t t0, t1;
	double eta;
	uint32_t id = start(e, "--to-channels 3 --share 10");

	p = prog_of(e, id);
	for (int i = 0; i < 600 && (p.pct < 1.5 || !strcmp(p.state, "queued")); i++) {
		usleep(50000);
		p = prog_of(e, id);
	}
	assert_string_equal(p.state, "running");
	assert_int_equal(run(e, "migrate share %u 1000", id), 0);
	p = prog_of(e, id);
	assert_true(p.eta_s == 0); /* measured again from the change */
	usleep(1500000);
	p = prog_of(e, id);
	assert_string_equal(p.state, "running");
	assert_true(p.eta_s > 0 && p.rate > 0);
	eta = p.eta_s;
	t0 = (uint64_t)time(NULL);
	wait_state(e, id, "done", 120);
	t1 = (uint64_t)time(NULL);
	fprintf(stderr, "ETA %.1f s at %.1f%%, done in %llu s\n", eta, p.pct,
		(unsigned long long)(t1 - t0));
	/* Within a factor of two or so (the clock here is in whole seconds). */
	assert_true(eta <= 2.0 * (double)(t1 - t0) + 2.0);
	assert_true(eta + 2.0 >= (double)(t1 - t0) / 2.0);
	assert_int_equal(ns_channel(e), 3);
}

/* 4. kill -9 mid-migration: the same command line starts it again; it finishes, nothing lost. */
static void test_kill9_mid_migration(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;

	fx_mig_kill9_resume(&e->fx, start(e, "--to-channels 1 --share 100"));
	assert_int_equal(ns_channel(e), 1);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	check_all(e, c->io[0]);
	ini_ctrl_destroy(c);
	assert_int_equal(run(e, "--json device show ssd"), 0);
	assert_non_null(strstr(e->out, "\"free_channels\":3"));
}

/*
 * 7. The ended migrations stay listed across a restart, with their
 * figures: those before the kill -9 and after, done and cancelled.
 */
static void test_ended_after_restart(void **state)
{
	struct env *e = *state;
	json_object *root, *arr;
	size_t n, done = 0, cancelled = 0;

	fx_restart(&e->fx, false);
	assert_int_equal(run(e, "migrate status --json"), 0);
	root = json_tokener_parse(e->out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "migrations", &arr));
	n = json_object_array_length(arr);
	for (size_t i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(arr, i);

		if (!strcmp(js(m, "state"), "done")) {
			done++;
			assert_true(jd(m, "percent") > 99.9);
			assert_true(jd(m, "bytes_copied") > 0);
			assert_true(jd(m, "elapsed_ns") > 0);
		} else if (!strcmp(js(m, "state"), "cancelled")) {
			cancelled++;
		}
	}
	json_object_put(root);
	/* 2, 4 and 6 done; 3 and 5 cancelled. */
	assert_int_equal(done, 3);
	assert_int_equal(cancelled, 2);
	assert_int_equal(run(e, "migrate status"), 0);
	assert_non_null(strstr(e->out, "done"));
}

static bool file_exists(const char *dir, const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/*
 * 8. A deleted device's store file and record go with it, so the README's
 * delete and create of other options works; --keep-store keeps them, and
 * a device made over a store of another geometry says so and what to do.
 */
static void test_device_delete_store(void **state)
{
	struct env *e = *state;
	const char *dir = e->fx.data_dir;

	assert_int_equal(run(e, "device create scratch --channels 2 --dies-per-channel 2 "
				"--planes 1 --pages-per-block 96 --blocks-per-plane 32"),
			 0);
	assert_true(file_exists(dir, "dev-scratch.nand"));
	assert_int_equal(run(e, "device delete scratch"), 0);
	assert_false(file_exists(dir, "dev-scratch.nand"));
	assert_false(file_exists(dir, "dev-scratch.vssd.json"));
	/* Other options: a new store. */
	assert_int_equal(run(e, "device create scratch --channels 4 --dies-per-channel 2 "
				"--planes 1 --pages-per-block 96 --blocks-per-plane 32"),
			 0);
	assert_int_equal(run(e, "device delete scratch --keep-store"), 0);
	assert_non_null(strstr(e->out, "kept"));
	assert_true(file_exists(dir, "dev-scratch.nand"));
	/* Over the kept store, other options: refused, plainly. */
	assert_int_not_equal(run(e, "device create scratch --channels 2 --dies-per-channel 2 "
				    "--planes 1 --pages-per-block 96 --blocks-per-plane 32"),
			     0);
	assert_non_null(strstr(e->out, "another geometry"));
	assert_non_null(strstr(e->out, "dev-scratch.nand"));
	assert_true(file_exists(dir, "dev-scratch.nand"));
	/* The same options take it back; a delete then removes it. */
	assert_int_equal(run(e, "device create scratch --channels 4 --dies-per-channel 2 "
				"--planes 1 --pages-per-block 96 --blocks-per-plane 32"),
			 0);
	assert_int_equal(run(e, "device delete scratch"), 0);
	assert_false(file_exists(dir, "dev-scratch.nand"));
}

int main(void)
{
	static const struct fx_group g = { .who = "test_migrate",
					   .subsystems = subsystems,
					   .own_data_dir = true,
					   .size = sizeof(struct env) };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setup),
		cmocka_unit_test(test_migrate_under_io),
		cmocka_unit_test(test_pause_resume_cancel),
		cmocka_unit_test(test_progress_monotonic),
		cmocka_unit_test(test_eta_after_share),
		cmocka_unit_test(test_kill9_mid_migration),
		cmocka_unit_test(test_ended_after_restart),
		cmocka_unit_test(test_device_delete_store),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
