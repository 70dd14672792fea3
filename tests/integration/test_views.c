/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What bloxctl shows of namespaces, devices and controllers (issue 26):
 * a vSSD's flash capacity is the same after a restart as before it; a
 * namespace on a device of its own shows its flash file's size and what
 * it takes on disk (st_blocks), and so does a device; `ns list` and
 * `ns show` name such a namespace's device alike; `device show` calls a
 * wear imbalance "too early" on a device barely worn; `device show`,
 * `ctrl list` and `ns list` of short names fit 80 columns.
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
#include <sys/stat.h>
#include <unistd.h>

#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:views"
#define SMALL_DEV "--channels 4 --dies-per-channel 2 --planes 1 --pages-per-block 96 " \
		  "--blocks-per-plane 64"
#define OWN_GEO "--channels 2 --dies-per-channel 2 --planes 1 --pages-per-block 96"

static const char subsystems[] = "[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[262144];
	uint64_t cap1; /* namespace 1's flash capacity before the restart */
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

/* The JSON answer of a bloxctl command (0 expected); put it. */
static json_object *run_json(struct env *e, const char *cmd)
{
	json_object *o;

	if (run(e, "--json %s", cmd) != 0)
		fail_msg("bloxctl --json %s: %s", cmd, e->out);
	o = json_tokener_parse(e->out);
	if (!o)
		fail_msg("bloxctl --json %s: not JSON: %s", cmd, e->out);
	return o;
}

/* Member @path ("a.b") of @o as an integer; -1 when absent. */
static int64_t json_int(json_object *o, const char *a, const char *b)
{
	json_object *v;

	if (!json_object_object_get_ex(o, a, &v))
		return -1;
	if (b && !json_object_object_get_ex(v, b, &v))
		return -1;
	return json_object_get_int64(v);
}

/* No line of e->out is wider than @cols. */
static void assert_width(const struct env *e, int cols, const char *what)
{
	const char *p = e->out;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > (size_t)cols)
			fail_msg("%s: a line of %zu columns (over %d):\n%.*s", what, len, cols,
				 (int)len, p);
		p += len + (nl ? 1 : 0);
	}
}

/* 1. A vSSD's flash capacity: shown before a restart and the same after it (#5). */
static void test_capacity_after_restart(void **state)
{
	struct env *e = *state;
	uint16_t p1 = e->fx.d.nvm_port, p2 = e->fx.d.disc_port;
	const char *argv[] = { "--data-dir", e->fx.data_dir, "--log-level", "1", NULL };
	json_object *o;

	assert_int_equal(run(e, "device create ssd " SMALL_DEV), 0);
	assert_int_equal(run(e, "ns create %s --nsid 1 --size 16M --device ssd "
				"--isolation chip:2", SUBNQN),
			 0);
	o = run_json(e, "ns show " SUBNQN " 1");
	e->cap1 = (uint64_t)json_int(o, "alloc", "capacity");
	json_object_put(o);
	assert_true(e->cap1 >= 16u << 20);
	assert_int_equal(run(e, "ns show %s 1", SUBNQN), 0);
	assert_null(strstr(e->out, "flash holds 0 B"));

	assert_int_equal(fx_stop(&e->fx.d), 0);
	assert_int_equal(fx_start_argv(&e->fx.d, argv, FX_ADDR, p1, p2), 0);
	o = run_json(e, "ns show " SUBNQN " 1");
	assert_int_equal((uint64_t)json_int(o, "alloc", "capacity"), e->cap1);
	json_object_put(o);
	assert_int_equal(run(e, "ns show %s 1", SUBNQN), 0);
	assert_null(strstr(e->out, "flash holds 0 B"));
}

/*
 * 2. A namespace on a device of its own: ns list says "(own)" as ns show
 * does (#18); its flash file's size and its disk usage are shown (#16),
 * the latter as the file's st_blocks, and it grows with what is written.
 */
static void test_own_device(void **state)
{
	struct env *e = *state;
	static uint8_t buf[64 * 4096];
	uint64_t file, disk, disk2;
	struct ini_ctrl *c;
	json_object *o;
	char *line;

	assert_int_equal(run(e, "ns create %s --nsid 2 --size 8M " OWN_GEO, SUBNQN), 0);
	assert_int_equal(run(e, "ns list"), 0);
	line = strstr(e->out, SUBNQN "  2 ");
	assert_non_null(line);
	*strchrnul(line, '\n') = '\0';
	if (!strstr(line, "(own)"))
		fail_msg("ns list does not say (own) for a namespace of its own: %s", line);
	assert_int_equal(run(e, "ns show %s 2", SUBNQN), 0);
	assert_non_null(strstr(e->out, "(own)"));
	assert_non_null(strstr(e->out, "on disk"));

	o = run_json(e, "ns show " SUBNQN " 2");
	file = (uint64_t)json_int(o, "store_bytes", NULL);
	disk = (uint64_t)json_int(o, "store_disk_bytes", NULL);
	json_object_put(o);
	assert_true(file > 8u << 20);
	assert_true(disk < file);

	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	fx_fill_random(buf, sizeof(buf), &e->fx.seed);
	for (uint64_t lba = 0; lba < 1024; lba += 64)
		assert_int_equal(ini_write(c->io[0], 2, lba, 64, buf, sizeof(buf), false), 0);
	assert_int_equal(ini_flush(c->io[0], 2), 0);
	ini_ctrl_destroy(c);
	o = run_json(e, "ns show " SUBNQN " 2");
	disk2 = (uint64_t)json_int(o, "store_disk_bytes", NULL);
	json_object_put(o);
	if (disk2 < disk + (4u << 20))
		fail_msg("4 MiB written, the store's disk usage went from %lu to %lu bytes",
			 (unsigned long)disk, (unsigned long)disk2);

	/* A device's store too. */
	o = run_json(e, "device show ssd");
	assert_true(json_int(o, "store_bytes", NULL) > 0);
	assert_true(json_int(o, "store_disk_bytes", NULL) > 0);
	json_object_put(o);
	assert_int_equal(run(e, "device show ssd"), 0);
	assert_non_null(strstr(e->out, "on disk"));
}

/* 3. A new device's wear imbalance is "too early" to tell; device show fits 80 columns. */
static void test_device_show(void **state)
{
	struct env *e = *state;

	assert_int_equal(run(e, "device show ssd"), 0);
	if (!strstr(e->out, "too early"))
		fail_msg("a new device's imbalance is not 'too early':\n%s", e->out);
	assert_width(e, 80, "device show");
	/* The grid of a device as wide as the default (8 channels x 4 dies). */
	assert_int_equal(run(e, "device create wide"), 0);
	assert_int_equal(run(e, "ns create %s --nsid 3 --size 16M --device wide "
				"--isolation chip:3", SUBNQN),
			 0);
	assert_int_equal(run(e, "device show wide"), 0);
	assert_width(e, 80, "device show (8x4)");
	assert_int_equal(run(e, "device list"), 0);
	assert_width(e, 80, "device list");
	assert_int_equal(run(e, "ns delete %s 3", SUBNQN), 0);
	assert_int_equal(run(e, "device delete wide"), 0);
}

/* 4. ctrl list of a connected controller fits 80 columns (#18). */
static void test_ctrl_list(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c;

	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 4, NULL, &c), 0);
	assert_int_equal(run(e, "ctrl list"), 0);
	assert_non_null(strstr(e->out, SUBNQN));
	assert_width(e, 80, "ctrl list");
	ini_ctrl_destroy(c);
}

/* 5. Clean up: the namespaces and the device go. */
static void test_cleanup(void **state)
{
	struct env *e = *state;

	assert_int_equal(run(e, "ns delete %s 1", SUBNQN), 0);
	assert_int_equal(run(e, "ns delete %s 2", SUBNQN), 0);
	assert_int_equal(run(e, "device delete ssd"), 0);
}

int main(void)
{
	static const struct fx_group g = { .who = "test_views",
					   .subsystems = subsystems,
					   .own_data_dir = true,
					   .size = sizeof(struct env) };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capacity_after_restart),
		cmocka_unit_test(test_own_device),
		cmocka_unit_test(test_device_show),
		cmocka_unit_test(test_ctrl_list),
		cmocka_unit_test(test_cleanup),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
