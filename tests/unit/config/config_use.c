/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_config: what a configuration makes: namespaces on NAND and on shared
 * devices, their default and duplicate UUIDs, the JSON written back and read
 * again, listener specs from the command line, a key over its budget, the
 * embedded default, loading from a file, and applying subsystems/namespaces
 * to a target (no listeners, so no sockets are needed).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config_internal.h"
#include "prov.h"
#include "config_tests.h"

/* --print-config's JSON reads back as the same configuration. */
void test_config_json_roundtrip(void **state)
{
	struct blox_config a, b;
	char err[256], *text, *again;

	(void)state;
	assert_int_equal(blox_config_default(&a), 0);
	assert_int_equal(blox_config_add_listener(&a, "[::1]:4430", true, err, sizeof(err)),
			 0);
	text = blox_config_json(&a);
	assert_non_null(text);
	if (blox_config_parse(text, &b, err, sizeof(err)))
		fail_msg("%s: %s", text, err);
	assert_int_equal(b.nr_listeners, 3);
	assert_string_equal(b.listeners[2].addr, "::1");
	assert_string_equal(b.listeners[2].port, "4430");
	assert_true(b.listeners[2].discovery_only);
	assert_int_equal(b.nr_devices, 1);
	assert_int_equal(b.nr_subsys, 1);
	assert_int_equal(b.subsys[0].nr_ns, 1);
	assert_int_equal(b.subsys[0].ns[0].nsid, 1);
	assert_true(b.subsys[0].allow_any_host);
	again = blox_config_json(&b);
	assert_string_equal(text, again);
	free(text);
	free(again);
	blox_config_free(&a);
	blox_config_free(&b);
}

void test_add_listener(void **state)
{
	struct blox_config cfg;
	char err[256];
	static const char *const bad[] = { "nocolon",	  ":4420",	 "1.2.3.4:",
					   "1.2.3.4:123456", "[::1]",	 "[::1]:",
					   "[::1]4420",	  "[::1:4420", "[]:4420" };

	(void)state;
	memset(&cfg, 0, sizeof(cfg));
	assert_int_equal(blox_config_add_listener(&cfg, "127.0.0.1:4420", false, err,
						  sizeof(err)),
			 0);
	assert_int_equal(blox_config_add_listener(&cfg, "[::1]:4421", true, err,
						  sizeof(err)),
			 0);
	assert_int_equal(blox_config_add_listener(&cfg, "0.0.0.0:8009", true, err,
						  sizeof(err)),
			 0);
	assert_int_equal(cfg.nr_listeners, 3);
	assert_string_equal(cfg.listeners[0].addr, "127.0.0.1");
	assert_string_equal(cfg.listeners[0].port, "4420");
	assert_false(cfg.listeners[0].discovery_only);
	assert_string_equal(cfg.listeners[1].addr, "::1");
	assert_string_equal(cfg.listeners[1].port, "4421");
	assert_true(cfg.listeners[1].discovery_only);
	assert_string_equal(cfg.listeners[2].addr, "0.0.0.0");

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(bad); i++) {
		char want[128];

		err[0] = '\0';
		if (blox_config_add_listener(&cfg, bad[i], false, err, sizeof(err)) !=
		    -EINVAL)
			fail_msg("'%s' accepted", bad[i]);
		snprintf(want, sizeof(want), "listener '%s': ", bad[i]);
		if (strncmp(err, want, strlen(want)))
			fail_msg("'%s': message '%s'", bad[i], err);
	}
	assert_int_equal(cfg.nr_listeners, 3);

	/* Given again (as the state file and -l may): still one listener each. */
	assert_int_equal(blox_config_add_listener(&cfg, "127.0.0.1:4420", false, err,
						  sizeof(err)),
			 0);
	assert_int_equal(blox_config_add_listener(&cfg, "[0::1]:04421", true, err,
						  sizeof(err)),
			 0);
	assert_int_equal(cfg.nr_listeners, 3);
	/* The same address and port as the other kind cannot be both. */
	assert_int_equal(blox_config_add_listener(&cfg, "127.0.0.1:4420", true, err,
						  sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "both"));
	/* Not an address: refused before anything is bound. */
	assert_int_equal(blox_config_add_listener(&cfg, "localhost:4420", false, err,
						  sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "not an IPv4 or IPv6 address"));
	assert_int_equal(cfg.nr_listeners, 3);

	blox_config_clear_listeners(&cfg);
	assert_int_equal(cfg.nr_listeners, 0);
	assert_null(cfg.listeners);
	blox_config_free(&cfg);
}

/* 12. The embedded default configuration. */
/* "overcommit" is read, kept as asked and written back for the state file. */
void test_overcommit_key(void **state)
{
	struct blox_config cfg;
	char err[256];
	json_object *o;

	(void)state;
	assert_int_equal(blox_config_parse("{\"devices\":[{\"name\":\"d\",\"overcommit\":true}],"
					   "\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:y\","
					   "\"namespaces\":[{\"nsid\":1,\"size\":4096,"
					   "\"overcommit\":true},{\"nsid\":2,\"size\":4096}]}]}",
					   &cfg, err, sizeof(err)),
			 0);
	assert_true(cfg.devices[0].params.overcommit);
	assert_true(cfg.subsys[0].ns[0].params.overcommit);
	assert_false(cfg.subsys[0].ns[1].params.overcommit);
	o = cfg_ns_json(&cfg.subsys[0].ns[0].params);
	assert_non_null(strstr(json_object_to_json_string(o), "\"overcommit\": true"));
	json_object_put(o);
	o = cfg_ns_json(&cfg.subsys[0].ns[1].params);
	assert_null(strstr(json_object_to_json_string(o), "overcommit"));
	json_object_put(o);
	o = cfg_device_json(&cfg.devices[0].params);
	assert_non_null(strstr(json_object_to_json_string(o), "\"overcommit\": true"));
	json_object_put(o);
	blox_config_free(&cfg);
}

void test_default(void **state)
{
	struct blox_config cfg;

	(void)state;
	assert_int_equal(blox_config_default(&cfg), 0);
	assert_int_equal(cfg.nr_subsys, 1);
	assert_string_equal(cfg.subsys[0].nqn, BLOX_DEFAULT_NQN);
	assert_true(cfg.subsys[0].allow_any_host);
	assert_int_equal(cfg.subsys[0].nr_hosts, 0);
	assert_int_equal(cfg.subsys[0].nr_ns, 1);
	assert_int_equal(cfg.subsys[0].ns[0].nsid, 1);
	assert_string_equal(cfg.subsys[0].ns[0].backend, "nand");
	assert_int_equal(cfg.subsys[0].ns[0].size, 1ull << 30);
	assert_int_equal(cfg.subsys[0].ns[0].block_size, 4096);
	assert_false(cfg.subsys[0].ns[0].has_uuid);
	/* A vSSD on one channel of an 8-channel device, so that isolation means something. */
	assert_int_equal(cfg.nr_devices, 1);
	assert_string_equal(cfg.devices[0].name, "nand0");
	assert_true(cfg.devices[0].nand.geo.channels >= 8);
	assert_false(cfg.devices[0].store_ram);
	/* A sparse demo device: a small disk does not keep bloxd from starting. */
	assert_true(cfg.devices[0].params.overcommit);
	assert_false(cfg.subsys[0].ns[0].params.overcommit);
	assert_string_equal(cfg.subsys[0].ns[0].device, "nand0");
	assert_int_equal(cfg.subsys[0].ns[0].iso, FBX_CHANNEL);
	assert_int_equal(cfg.subsys[0].ns[0].iso_count, 1);
	assert_int_equal(cfg.nr_listeners, 2);
	assert_string_equal(cfg.listeners[0].addr, "127.0.0.1");
	assert_string_equal(cfg.listeners[0].port, "4420");
	assert_false(cfg.listeners[0].discovery_only);
	assert_string_equal(cfg.listeners[1].addr, "127.0.0.1");
	assert_string_equal(cfg.listeners[1].port, "8009");
	assert_true(cfg.listeners[1].discovery_only);
	blox_config_free(&cfg);
}

/* 13. blox_config_load(): a file, a missing file, a bad file. */
void test_load(void **state)
{
	char path[] = "/tmp/blox_test_config_XXXXXX";
	struct blox_config cfg;
	char err[512], want[600];
	int fd = mkstemp(path);
	FILE *fp;

	(void)state;
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	assert_non_null(fp);
	fputs(full_json, fp);
	fclose(fp);
	assert_int_equal(blox_config_load(path, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.nr_subsys, 2);
	assert_int_equal(cfg.subsys[0].nr_ns, 3);
	blox_config_free(&cfg);

	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs("{\"listeners\": 3}", fp);
	fclose(fp);
	assert_int_equal(blox_config_load(path, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: top level.listeners: expected an array",
		 path);
	assert_string_equal(err, want);

	/* A NUL byte: the parser would see only the text before it. */
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fwrite("{}\0{\"listeners\": 3}", 1, 20, fp), 20);
	fclose(fp);
	assert_int_equal(blox_config_load(path, &cfg, err, sizeof(err)), -EINVAL);
	snprintf(want, sizeof(want), "%s: not a text file (a NUL byte at offset 2)", path);
	assert_string_equal(err, want);
	unlink(path);

	assert_int_equal(blox_config_load(path, &cfg, err, sizeof(err)), -ENOENT);
	snprintf(want, sizeof(want), "%s: No such file or directory", path);
	assert_string_equal(err, want);
}

/* 14. Applying subsystems, hosts and namespaces to a target. */
void test_apply(void **state)
{
	struct blox_clock clock;
	struct blox_log log = { .level = -1 };
	struct nvmf_tgt tgt;
	struct blox_config cfg;
	struct nvmf_subsys *a, *b;
	struct blox_prov *prov;
	struct nvmf_ns *ns;
	char err[256];

	(void)state;
	blox_clock_init_virtual(&clock, 1);
	assert_int_equal(nvmf_tgt_init(&tgt, NULL, &clock, &log), 0);
	assert_int_equal(blox_prov_create(&tgt, NULL, NULL, &prov), 0);
	assert_int_equal(blox_config_parse(full_json, &cfg, err, sizeof(err)), 0);
	blox_config_clear_listeners(&cfg); /* no sockets in a unit test */
	assert_int_equal(blox_prov_apply(prov, &cfg, err, sizeof(err)), 0);

	a = nvmf_subsys_find(&tgt, "nqn.2026-12.io.blox:a");
	b = nvmf_subsys_find(&tgt, "nqn.2026-12.io.blox:b");
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a->serial, "SN0123456789");
	assert_string_equal(a->model, "Model X");
	assert_false(a->allow_any_host);
	assert_true(nvmf_subsys_host_allowed(a, HOST1));
	assert_true(nvmf_subsys_host_allowed(a, HOST2));
	assert_false(nvmf_subsys_host_allowed(a, "nqn.2014-08.org.nvmexpress:x"));
	assert_true(nvmf_subsys_host_allowed(b, "nqn.2014-08.org.nvmexpress:x"));

	ns = nvmf_ns_find(a, 1);
	assert_non_null(ns);
	assert_int_equal(ns->nblocks, (64u << 20) / 512);
	assert_int_equal(ns->lba_shift, 9);
	assert_int_equal(ns->uuid[0], 0x01);
	assert_int_equal(ns->uuid[15], 0xef);
	ns = nvmf_ns_find(a, 2); /* nsid 0 took the lowest free */
	assert_non_null(ns);
	assert_int_equal(ns->nblocks, (1u << 30) / 4096);
	assert_non_null(nvmf_ns_find(a, 7));
	assert_null(nvmf_ns_find(a, 3));

	/* Applying again: the subsystem exists, and the error says which. */
	assert_int_equal(blox_prov_apply(prov, &cfg, err, sizeof(err)), -EEXIST);
	assert_string_equal(err, "subsystem nqn.2026-12.io.blox:a: File exists");
	blox_config_free(&cfg);
	blox_prov_clear(prov);
	blox_prov_destroy(prov);
	nvmf_tgt_fini(&tgt);
}

/* The UUID namespace @nsid of @nqn gets when none is given: made on a target and read back. */
static void default_uuid(const char *nqn, uint32_t nsid, char out[37])
{
	struct blox_clock clock;
	struct blox_log log = { .level = -1 };
	struct nvmf_tgt tgt;
	struct blox_config cfg;
	struct blox_prov *prov;
	struct nvmf_ns *ns;
	char json[512], err[256];

	snprintf(json, sizeof(json),
		 "{\"subsystems\":[{\"nqn\":\"%s\",\"namespaces\":[{\"nsid\":%u,"
		 "\"backend\":\"null\",\"size\":4096}]}]}",
		 nqn, nsid);
	blox_clock_init_virtual(&clock, 1);
	assert_int_equal(nvmf_tgt_init(&tgt, NULL, &clock, &log), 0);
	assert_int_equal(blox_prov_create(&tgt, NULL, NULL, &prov), 0);
	assert_int_equal(blox_config_parse(json, &cfg, err, sizeof(err)), 0);
	assert_int_equal(blox_prov_apply(prov, &cfg, err, sizeof(err)), 0);
	ns = nvmf_ns_find(nvmf_subsys_find(&tgt, nqn), nsid);
	assert_non_null(ns);
	blox_uuid_str(ns->uuid, out);
	blox_config_free(&cfg);
	blox_prov_clear(prov);
	blox_prov_destroy(prov);
	nvmf_tgt_fini(&tgt);
}

#define U1 "6d0c8d7e-4a1b-4c2d-8e3f-9a0b1c2d3e4f"
#define U1_UPPER "6D0C8D7E-4A1B-4C2D-8E3F-9A0B1C2D3E4F"
#define NULL_NS(nsid, extra) "{\"backend\":\"null\",\"size\":4096,\"nsid\":" #nsid extra "}"

/*
 * 14b. A UUID another namespace of the target has already (given, or the
 * one derived from the NQN and nsid when none is given) is refused with the
 * field and the other namespace: Linux drops a namespace whose UUID another
 * it sees has ("duplicate IDs"), within a subsystem and across them.
 */
void test_parse_ns_duplicate_uuid(void **state)
{
	static const struct err_case cases[] = {
		{ NS(NULL_NS(1, ",\"uuid\":\"" U1 "\"") "," NULL_NS(2, ",\"uuid\":\"" U1_UPPER "\"")),
		  "subsystems[0].namespaces[1].uuid: " U1 " is already the UUID of namespace 1 of "
		  "nqn.2026-12.x:y (subsystems[0].namespaces[0].uuid)" },
		{ NS(NULL_NS(3, ",\"uuid\":\"" U1 "\"") "," NULL_NS(1, "") ","
		     "{\"backend\":\"null\",\"size\":4096,\"uuid\":\"" U1 "\"}"),
		  "subsystems[0].namespaces[2].uuid: " U1 " is already the UUID of namespace 3 of "
		  "nqn.2026-12.x:y (subsystems[0].namespaces[0].uuid)" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:a\",\"namespaces\":[" NULL_NS(1, ",\"uuid\":\"" U1 "\"")
		      "]},{\"nqn\":\"nqn.2026-12.x:b\",\"namespaces\":["
		      NULL_NS(1, ",\"uuid\":\"" U1 "\"") "]}"),
		  "subsystems[1].namespaces[0].uuid: " U1 " is already the UUID of namespace 1 of "
		  "nqn.2026-12.x:a (subsystems[0].namespaces[0].uuid)" },
	};
	struct blox_config cfg;
	char derived[37], json[512], msg[512], err[512];

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));

	/* Given the UUID another namespace gets by default, after it or before it. */
	default_uuid("nqn.2026-12.x:y", 1, derived);
	snprintf(json, sizeof(json), NS(NULL_NS(1, "") "," NULL_NS(2, ",\"uuid\":\"%s\"")), derived);
	snprintf(msg, sizeof(msg),
		 "subsystems[0].namespaces[1].uuid: %s is already the UUID of namespace 1 of "
		 "nqn.2026-12.x:y (subsystems[0].namespaces[0], derived from its NQN and nsid as it "
		 "has none given)",
		 derived);
	check_errors(&(struct err_case){ json, msg }, 1);
	snprintf(json, sizeof(json), NS(NULL_NS(2, ",\"uuid\":\"%s\"") "," NULL_NS(1, "")), derived);
	snprintf(msg, sizeof(msg),
		 "subsystems[0].namespaces[1]: %s, the UUID it gets with none given (derived from "
		 "its NQN and nsid), is already the UUID of namespace 2 of nqn.2026-12.x:y "
		 "(subsystems[0].namespaces[0].uuid)",
		 derived);
	check_errors(&(struct err_case){ json, msg }, 1);

	/* Distinct ones are fine, and so is the same nsid in another subsystem. */
	assert_int_equal(blox_config_parse(
				 SUB("{\"nqn\":\"nqn.2026-12.x:a\",\"namespaces\":[" NULL_NS(1, "")
				     "," NULL_NS(2, ",\"uuid\":\"" U1 "\"") "]},"
				     "{\"nqn\":\"nqn.2026-12.x:b\",\"namespaces\":[" NULL_NS(1, "")
				     "]}"),
				 &cfg, err, sizeof(err)),
			 0);
	blox_config_free(&cfg);
}

#define NAND_NS(x) NS("{\"backend\":\"nand-timing\",\"size\":\"16M\",\"nand\":{" x "}}")
#define NAND_SMALL "\"channels\":2,\"dies_per_channel\":1,\"planes_per_die\":1," \
		   "\"blocks_per_plane\":64,\"pages_per_block\":64,\"page_size\":4096"

/* 15. Options of the "nand-timing" backend (the same "nand" object as "nand"): values land in the config (times in
 * microseconds become nanoseconds), and each bad value names its field.
 */
void test_parse_nand_options(void **state)
{
	static const char json[] = NAND_NS(NAND_SMALL ",\"cell\":\"slc\","
					   "\"t_read_us\":25,\"t_prog_us\":200,"
					   "\"t_erase_us\":1500,\"bus_mbps\":800,"
					   "\"null_timing\":true,\"multi_plane\":false,"
					   "\"suspend_policy\":\"never\"");
	static const struct err_case cases[] = {
		{ NS("{\"size\":4096,\"nand\":{}}"),
		  "subsystems[0].namespaces[0].nand: only for backends \"nand\", \"nand-timing\" and \"zns\"" },
		{ NS("{\"backend\":\"nand-timing\",\"size\":4096,\"nand\":[]}"),
		  "subsystems[0].namespaces[0].nand: expected an object" },
		{ NAND_NS("\"dies\":1"),
		  "subsystems[0].namespaces[0].nand: unknown key 'dies'" },
		{ NAND_NS("\"channels\":65"),
		  "subsystems[0].namespaces[0].nand.channels: at most 64" },
		/* Backend nand: its FTL maps 4 KiB units (a 2 KiB page divided by zero). */
		{ NS("{\"nsid\":1,\"backend\":\"nand\",\"size\":\"16M\",\"nand\":{\"page_size\":2048}}"),
		  "subsystems[0].namespaces[0].nand.page_size: backend nand needs pages of at "
		  "least 4096 bytes (its FTL's unit)" },
		{ NAND_NS("\"channels\":\"8\""),
		  "subsystems[0].namespaces[0].nand.channels: expected an integer" },
		{ NAND_NS("\"cell\":\"plc\""),
		  "subsystems[0].namespaces[0].nand.cell: 'plc' is not slc, mlc, tlc or qlc" },
		{ NAND_NS("\"t_read_us\":10000001"),
		  "subsystems[0].namespaces[0].nand.t_read_us: at most 10 s" },
		{ NAND_NS("\"bus_mbps\":0"),
		  "subsystems[0].namespaces[0].nand.bus_mbps: must be 1..100000" },
		{ NAND_NS("\"suspend_policy\":\"sometimes\""),
		  "subsystems[0].namespaces[0].nand.suspend_policy: 'sometimes' is not default, never, always or smart" },
		{ NAND_NS("\"null_timing\":1"),
		  "subsystems[0].namespaces[0].nand.null_timing: expected true or false" },
		{ NAND_NS("\"multi_plane\":\"yes\""),
		  "subsystems[0].namespaces[0].nand.multi_plane: expected true or false" },
		{ NAND_NS(NAND_SMALL), /* TLC: 3 pages per word line */
		  "subsystems[0].namespaces[0].nand: pages_per_block must be a multiple of the bits per cell" },
		{ NS("{\"backend\":\"nand-timing\",\"size\":\"64M\",\"nand\":{" NAND_SMALL
		     ",\"cell\":\"slc\"}}"),
		  "subsystems[0].namespaces[0].size: larger than the NAND geometry's 33554432 bytes" },
	};
	struct blox_config cfg;
	const struct blox_cfg_ns *ns;
	char err[256];

	(void)state;
	if (blox_config_parse(json, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	ns = &cfg.subsys[0].ns[0];
	assert_string_equal(ns->backend, "nand-timing");
	assert_int_equal(ns->size, 16u << 20);
	assert_int_equal(ns->nand.geo.channels, 2);
	assert_int_equal(ns->nand.geo.dies_per_channel, 1);
	assert_int_equal(ns->nand.geo.page_size, 4096);
	assert_int_equal(ns->nand.geo.cell, NAND_SLC);
	assert_int_equal(nand_capacity(&ns->nand.geo), 32u << 20);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(ns->nand.timing.t_read_ns[i], 25000);
		assert_int_equal(ns->nand.timing.t_prog_ns[i], 200000);
	}
	assert_int_equal(ns->nand.timing.t_erase_ns, 1500000);
	assert_int_equal(ns->nand.timing.bus_mbps, 800);
	assert_true(ns->nand.timing.null_timing);
	assert_false(ns->nand.multiplane);
	blox_config_free(&cfg);

	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}

/*
 * 16. Shared devices: the provisioning service's plan (made when the file
 * is parsed, so that a file it cannot place is refused) splits a device's
 * dies evenly over its namespaces, in order.
 */
void test_parse_devices(void **state)
{
	static const char *json =
		"{\"devices\":[{\"name\":\"ssd0\",\"store\":\"ram\",\"nand\":"
		"{\"channels\":4,\"dies_per_channel\":2,\"planes_per_die\":1,"
		"\"pages_per_block\":96}}],"
		"\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:a\",\"namespaces\":["
		"{\"nsid\":1,\"backend\":\"nand\",\"size\":\"128M\",\"device\":\"ssd0\"},"
		"{\"nsid\":2,\"backend\":\"nand\",\"size\":\"64M\",\"device\":\"ssd0\"}]},"
		"{\"nqn\":\"nqn.2026-12.x:b\",\"namespaces\":["
		"{\"nsid\":1,\"backend\":\"nand\",\"size\":\"64M\",\"device\":\"ssd0\","
		"\"isolation\":\"channel:1\"}]}]}";
	static const struct err_case cases[] = {
		{ "{\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:a\",\"namespaces\":[{\"nsid\":1,"
		  "\"backend\":\"nand\",\"size\":\"1M\",\"device\":\"nope\"}]}]}",
		  "nqn.2026-12.x:a namespace 1: no device 'nope'" },
		{ "{\"devices\":[{\"name\":\"d\"},{\"name\":\"d\"}]}",
		  "devices[1].name: 'd' used twice" },
		{ "{\"devices\":[{\"name\":\"a b\"}]}",
		  "devices[0].name: letters, digits, - and _ only" },
		{ "{\"devices\":[{\"name\":\"d\",\"nand\":{\"channels\":1,"
		  "\"dies_per_channel\":1}}],\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:a\","
		  "\"namespaces\":[{\"nsid\":1,\"backend\":\"nand\",\"size\":\"1M\","
		  "\"device\":\"d\"},{\"nsid\":2,\"backend\":\"nand\",\"size\":\"1M\","
		  "\"device\":\"d\"}]}]}",
		  "nqn.2026-12.x:a namespace 2: device d: need 1 free dies, 0 left" },
		{ "{\"devices\":[{\"name\":\"d\",\"nand\":{\"channels\":4,"
		  "\"dies_per_channel\":1}}],\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:a\","
		  "\"namespaces\":[{\"nsid\":1,\"backend\":\"nand\",\"size\":\"1M\","
		  "\"device\":\"d\",\"isolation\":\"channel:5\"}]}]}",
		  "nqn.2026-12.x:a namespace 1: device d: need 5 channels, the device has 4" },
		{ "{\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:a\",\"namespaces\":[{\"nsid\":1,"
		  "\"backend\":\"nand\",\"size\":\"1M\",\"isolation\":\"chip:1\"}]}]}",
		  "subsystems[0].namespaces[0].isolation: only for a namespace on a device (give "
		  "'device')" },
		{ "{\"devices\":[{\"name\":\"d\"}],\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:a\","
		  "\"namespaces\":[{\"nsid\":1,\"backend\":\"nand\",\"size\":\"1M\","
		  "\"device\":\"d\",\"isolation\":\"chips:2\"}]}]}",
		  "subsystems[0].namespaces[0].isolation: 'chips:2' is not channel:N, chip:N, "
		  "channel, chip or software" },
		{ "{\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:a\",\"namespaces\":[{\"nsid\":1,"
		  "\"backend\":\"ram\",\"size\":\"1M\",\"device\":\"d\"}]}]}",
		  "subsystems[0].namespaces[0].device: only for backends \"nand\" and \"zns\"" },
	};
	struct blox_config cfg;
	char err[256];

	(void)state;
	if (blox_config_parse(json, &cfg, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(cfg.nr_devices, 1);
	assert_true(cfg.devices[0].store_ram);
	/* Isolation by default: chip, by size; the device's geometry as given (64 blocks). */
	assert_int_equal(cfg.subsys[0].ns[0].iso, FBX_CHIP);
	assert_int_equal(cfg.subsys[0].ns[0].iso_count, 0);
	assert_int_equal(cfg.subsys[1].ns[0].iso, FBX_CHANNEL);
	assert_int_equal(cfg.subsys[1].ns[0].iso_count, 1);
	assert_int_equal(cfg.devices[0].nand.geo.blocks_per_plane, 64);
	assert_int_equal(cfg.subsys[1].ns[0].nand.geo.blocks_per_plane,
			 cfg.devices[0].nand.geo.blocks_per_plane);
	assert_int_equal(cfg.subsys[1].ns[0].nand.geo.pages_per_block, 96);
	blox_config_free(&cfg);
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}
