/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Running bloxd for real (issue 13): restarts with the same command line
 * after bloxctl changes, ten times, with the data read back each time;
 * listeners added with bloxctl kept; nsid 0 refused; SMART counters
 * across restarts (power cycles, unsafe shutdowns). restart.h says what
 * the other files of the program test.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <arpa/inet.h>
#include <unistd.h>

#include <cmocka.h>

#include "fixture.h"
#include "restart.h"

#define REGION_BLOCKS 32 /* 128 KiB written per round */

/* The pattern of round @i: REGION_BLOCKS blocks from its seed. */
static void pattern(uint32_t i, uint8_t *buf)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull * (i + 1);

	fx_fill_random(buf, REGION_BLOCKS * 4096, &seed);
}

struct ini_ctrl *rt_ctrl(struct fx_own *r)
{
	struct ini_ctrl *c = NULL;

	assert_int_equal(fx_ctrl(&r->d, DEF_NQN, NULL, 1, NULL, &c), 0);
	return c;
}

void rt_write_region(struct ini_ctrl *c, uint32_t i)
{
	static uint8_t buf[REGION_BLOCKS * 4096];

	pattern(i, buf);
	assert_int_equal(ini_write(c->io[0], 1, (uint64_t)i * 1024, REGION_BLOCKS, buf,
				   sizeof(buf), false),
			 0);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
}

static void check_region(struct ini_ctrl *c, uint32_t i)
{
	static uint8_t want[REGION_BLOCKS * 4096], got[REGION_BLOCKS * 4096];

	pattern(i, want);
	memset(got, 0, sizeof(got));
	assert_int_equal(ini_read(c->io[0], 1, (uint64_t)i * 1024, REGION_BLOCKS, got,
				  sizeof(got)),
			 0);
	if (memcmp(want, got, sizeof(got)))
		fail_msg("region %u does not read back", i);
}

/* @mib MiB of random data from LBA 65536 on, unflushed (128 KiB commands). */
void rt_write_junk(struct ini_ctrl *c, uint32_t mib)
{
	static uint8_t junk[REGION_BLOCKS * 4096];
	uint64_t seed = 1;

	fx_fill_random(junk, sizeof(junk), &seed);
	for (uint32_t i = 0; i < mib * 8; i++)
		assert_int_equal(ini_write(c->io[0], 1, 65536 + (uint64_t)i * REGION_BLOCKS,
					   REGION_BLOCKS, junk, sizeof(junk), false),
				 0);
}

void rt_ctrl_done(struct ini_ctrl *c)
{
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

/* Region @i written (and flushed), or checked, over a controller of its own. */
void rt_write(struct fx_own *r, uint32_t i)
{
	struct ini_ctrl *c = rt_ctrl(r);

	rt_write_region(c, i);
	rt_ctrl_done(c);
}

void rt_check(struct fx_own *r, uint32_t i)
{
	struct ini_ctrl *c = rt_ctrl(r);

	check_region(c, i);
	rt_ctrl_done(c);
}

/* A latency of @o's @key (ns): present, and not a wrapped difference (2^64 ns). */
static void lat_sane(json_object *o, const char *key, uint32_t start)
{
	json_object *l, *v;

	if (!json_object_object_get_ex(o, key, &l))
		return; /* no such op in the window */
	for (const char *const *k = (const char *const[]){ "p999_ns", "max_ns", NULL }; *k; k++)
		if (json_object_object_get_ex(l, *k, &v) &&
		    (uint64_t)json_object_get_int64(v) > 60ull * 1000000000)
			fail_msg("start %u: %s.%s is %lld ns", start, key, *k,
				 (long long)json_object_get_int64(v));
}

/*
 * bloxctl stats after a restart: the read latency of the host and of the
 * flash were once ~2^64 ns there (an op that started before it was
 * submitted, after the restart's recovery).
 */
static void stats_sane(struct fx_own *r, uint32_t start)
{
	static char out[1 << 16];
	json_object *root, *nss, *ns, *part;

	assert_int_equal(fx_ctl(&r->d, out, sizeof(out), "--json stats"), 0);
	root = json_tokener_parse(out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "namespaces", &nss));
	assert_true(json_object_array_length(nss) > 0);
	for (size_t i = 0; i < json_object_array_length(nss); i++) {
		ns = json_object_array_get_idx(nss, i);
		for (const char *const *k = (const char *const[]){ "io", "nand", NULL }; *k; k++)
			if (json_object_object_get_ex(ns, *k, &part)) {
				lat_sane(part, "read_lat", start);
				lat_sane(part, "write_lat", start);
				lat_sane(part, "program_lat", start);
				lat_sane(part, "erase_lat", start);
			}
	}
	json_object_put(root);
}

/* 1. The same command line after bloxctl changes, ten times, data read back. */
static void test_restart_ten_times(void **state)
{
	char out[8192];
	struct fx_own r;

	(void)state;
	fx_own_init(&r, "rt10");
	for (uint32_t i = 0; i < 10; i++) {
		struct ini_ctrl *c;

		fx_own_start(&r);
		c = rt_ctrl(&r);
		for (uint32_t j = 0; j < i; j++)
			check_region(c, j);
		rt_write_region(c, i);
		rt_ctrl_done(c);
		stats_sane(&r, i);
		/* What bloxctl made before is back. */
		assert_int_equal(fx_ctl(&r.d, out, sizeof(out), "subsys list"), 0);
		for (uint32_t j = 0; j < i; j++) {
			char nqn[64];

			snprintf(nqn, sizeof(nqn), "nqn.2026-12.io.blox:rt%u", j);
			if (!strstr(out, nqn))
				fail_msg("start %u: %s is gone: %s", i, nqn, out);
		}
		/* A change: the state file is written and used from the next start. */
		assert_int_equal(fx_ctl(&r.d, out, sizeof(out),
					"subsys create nqn.2026-12.io.blox:rt%u --allow-any-host",
					i),
				 0);
		fx_own_stop(&r);
	}
	fx_own_fini(&r);
}

/* Write @cfg_json to DIR/cfg.json; its path into @path. */
void rt_write_file(const char *dir, const char *name, const char *text, char *path,
		       size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* 2. Without -l, listeners added with bloxctl come back; -l twice is one listener. */
static void test_listener_add_survives(void **state)
{
	char cfgdir[64], cfgpath[128], json[512], out[4096], extra[32];
	const char *argv[12];
	uint16_t extra_port;
	struct fx_own r;

	(void)state;
	fx_own_init(&r, "rtlis");
	fx_make_tmp(cfgdir, sizeof(cfgdir), "rtcfg");
	do
		extra_port = fx_free_port(FX_ADDR);
	while (extra_port == r.nvm_port || extra_port == r.disc_port);
	snprintf(json, sizeof(json),
		 "{\"listeners\": [{\"address\": \"%s\", \"port\": %u},"
		 "{\"address\": \"%s\", \"port\": %u, \"discovery_only\": true}],"
		 "\"subsystems\": [{\"nqn\": \"%s\", \"allow_any_host\": true,"
		 "\"namespaces\": [{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"}]}]}",
		 FX_ADDR, r.nvm_port, FX_ADDR, r.disc_port, DEF_NQN);
	rt_write_file(cfgdir, "cfg.json", json, cfgpath, sizeof(cfgpath));
	argv[0] = "-c";
	argv[1] = cfgpath;
	memcpy(argv + 2, r.argv + 4, 7 * sizeof(*argv)); /* --data-dir ... */
	argv[8] = NULL;
	assert_int_equal(fx_start_argv(&r.d, argv, FX_ADDR, r.nvm_port, r.disc_port), 0);
	snprintf(extra, sizeof(extra), "%s:%u", FX_ADDR, extra_port);
	assert_int_equal(fx_ctl(&r.d, out, sizeof(out), "listener add %s", extra), 0);
	fx_own_stop(&r);
	for (int i = 0; i < 2; i++) {
		/* The same command line: the state file's three listeners. */
		assert_int_equal(
			fx_start_argv(&r.d, argv, FX_ADDR, r.nvm_port, extra_port), 0);
		assert_int_equal(fx_check_daemon(&r.d, DEF_NQN, 4096, &(uint64_t){ 7 }), 0);
		fx_own_stop(&r);
	}
	/* -l given twice and as in the state file: one listener, it starts. */
	argv[8] = "-l";
	argv[9] = r.nvm;
	argv[10] = "-l";
	argv[11] = r.nvm;
	{
		const char *more[16];

		memcpy(more, argv, 12 * sizeof(*argv));
		more[12] = "-D";
		more[13] = r.disc;
		more[14] = NULL;
		assert_int_equal(fx_start_argv(&r.d, more, FX_ADDR, r.nvm_port, r.disc_port),
				 0);
		assert_int_equal(fx_ctl(&r.d, out, sizeof(out), "listener list"), 0);
		assert_null(strstr(out, extra)); /* -l replaces the state file's */
		fx_own_stop(&r);
	}
	fx_own_fini(&r);
	fx_rm_tree(cfgdir);
}

/* 6. nsid 0 is refused by the config file and by bloxctl, nothing made. */
static void test_nsid_zero_refused(void **state)
{
	char out[8192], err[8192], cfgpath[128];
	struct fx_own r;

	(void)state;
	fx_own_init(&r, "rtnsid");
	rt_write_file(r.dir, "cfg.json",
		   "{\"subsystems\": [{\"nqn\": \"nqn.2026-12.io.blox:z\", "
		   "\"namespaces\": [{\"nsid\": 0, \"backend\": \"ram\", \"size\": \"16M\"}]}]}",
		   cfgpath, sizeof(cfgpath));
	{
		const char *argv[] = { "-c",	     cfgpath, "-l", r.nvm, "--data-dir",
				       r.dir,	     "--admin-socket", r.sock, NULL };

		assert_int_equal(fx_run_bloxd(argv, out, sizeof(out), err, sizeof(err), 20000),
				 2);
		assert_non_null(strstr(err, "nsid: 0 is not a namespace id"));
	}
	unlink(cfgpath);
	fx_own_start(&r);
	assert_int_equal(fx_ctl(&r.d, out, sizeof(out),
				"ns create %s --size 16M --backend ram --nsid 0", DEF_NQN),
			 64);
	assert_non_null(strstr(out, "--nsid"));
	assert_int_equal(fx_ctl(&r.d, out, sizeof(out), "--json ns list %s", DEF_NQN), 0);
	assert_null(strstr(out, "\"nsid\": 2"));
	assert_null(strstr(out, "\"nsid\":2"));
	fx_own_stop(&r);
	fx_own_fini(&r);
}

/* The SMART / Health log of every namespace of the default subsystem. */
void rt_smart(struct fx_own *r, struct nvme_smart_log *sl)
{
	struct ini_ctrl *c = rt_ctrl(r);

	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_SMART, 0xffffffff, 0, sl,
				     sizeof(*sl)),
			 0);
	rt_ctrl_done(c);
}

uint64_t rt_u128(const uint8_t v[16])
{
	uint64_t x;

	memcpy(&x, v, sizeof(x));
	return x;
}

/* 7. SMART counters grow across restarts; power cycles and unsafe shutdowns counted. */
static void test_smart_persists(void **state)
{
	struct nvme_smart_log a, b, k;
	struct ini_ctrl *c;
	struct fx_own r;

	(void)state;
	fx_own_init(&r, "rtsmart");
	fx_own_start(&r);
	c = rt_ctrl(&r);
	rt_write_region(c, 0);
	check_region(c, 0);
	rt_ctrl_done(c);
	rt_smart(&r, &a);
	assert_int_equal(rt_u128(a.power_cycles), 1);
	assert_int_equal(rt_u128(a.unsafe_shutdowns), 0);
	assert_true(rt_u128(a.host_writes) >= 1);
	assert_true(rt_u128(a.data_units_written) >= 1);
	fx_own_stop(&r);

	fx_own_start(&r);
	rt_smart(&r, &b);
	assert_int_equal(rt_u128(b.power_cycles), 2);
	assert_int_equal(rt_u128(b.unsafe_shutdowns), 0);
	assert_true(rt_u128(b.host_writes) >= rt_u128(a.host_writes));
	assert_true(rt_u128(b.host_reads) >= rt_u128(a.host_reads));
	assert_true(rt_u128(b.data_units_written) >= rt_u128(a.data_units_written));
	assert_true(rt_u128(b.data_units_read) >= rt_u128(a.data_units_read));
	c = rt_ctrl(&r);
	rt_write_region(c, 1);
	rt_write_junk(c, 1); /* 2048 units of 512 bytes: two data units */
	rt_ctrl_done(c);
	rt_smart(&r, &b);
	assert_true(rt_u128(b.host_writes) > rt_u128(a.host_writes));
	assert_true(rt_u128(b.data_units_written) > rt_u128(a.data_units_written));
	/* A crash: the next start counts an unsafe shutdown. */
	assert_int_equal(fx_kill(&r.d, SIGKILL), 128 + SIGKILL);
	fx_own_start(&r);
	rt_smart(&r, &k);
	assert_int_equal(rt_u128(k.power_cycles), 3);
	assert_int_equal(rt_u128(k.unsafe_shutdowns), 1);
	/* Counted up to the start itself at least. */
	assert_true(rt_u128(k.host_writes) >= rt_u128(a.host_writes));
	fx_own_stop(&r);
	fx_own_fini(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restart_ten_times),
		cmocka_unit_test(test_listener_add_survives),
		cmocka_unit_test(test_two_daemons_one_dir),
		cmocka_unit_test(test_failed_start_touches_nothing),
		cmocka_unit_test(test_print_config),
		cmocka_unit_test(test_nsid_zero_refused),
		cmocka_unit_test(test_smart_persists),
		cmocka_unit_test(test_notify_ready_stopping),
		cmocka_unit_test(test_second_signal),
	};

	return FX_MAIN(NULL, tests);
}
