/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zoned namespaces in the configuration (backend zns, its "zns" object):
 * a device of its own sized in rows of blocks for its zones and spares,
 * the zone parameters kept and written back, and each refusal naming its
 * field (size not whole zones, a zone size not a power of two, Max Open
 * above Max Active, 512-byte blocks, the object on another backend, no
 * nsid, an FTL).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "config_internal.h"
#include "conf.h"
#include "config_tests.h"

/* 2 ch x 2 dies x 1 plane x 48 pages of 16 KiB: 3 MiB a row, 12 pages kept. */
#define ZGEO "\"nand\":{\"channels\":2,\"dies_per_channel\":2,\"planes_per_die\":1,\"pages_per_block\":48}"

void test_parse_zns(void **state)
{
	static const struct err_case cases[] = {
		{ NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"10M\"," ZGEO "}"),
		  "subsystems[0].namespaces[0].size: a zoned namespace is whole zones, of 4194304 "
		  "bytes here (2949120 writable)" },
		{ NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"16M\",\"zns\":{\"zone_size\":"
		     "\"3M\"}," ZGEO "}"),
		  "subsystems[0].namespaces[0].zns.zone_size: must be a power of two of at least "
		  "4096 bytes" },
		{ NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"16M\",\"zns\":{\"max_open\":3,"
		     "\"max_active\":2}," ZGEO "}"),
		  "subsystems[0].namespaces[0].zns.max_open: more than max_active (2)" },
		{ NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"16M\",\"zns\":{\"max_open\":5}," ZGEO
		     "}"),
		  "subsystems[0].namespaces[0].zns: Max Open or Active above its 4 zones" },
		{ NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"16M\",\"block_size\":512," ZGEO "}"),
		  "subsystems[0].namespaces[0].block_size: a zoned namespace has 4096-byte blocks" },
		{ NS("{\"nsid\":1,\"backend\":\"nand\",\"size\":\"16M\",\"zns\":{}}"),
		  "subsystems[0].namespaces[0].zns: only for backend \"zns\"" },
		{ NS("{\"backend\":\"zns\",\"size\":\"16M\"}"),
		  "subsystems[0].namespaces[0].nsid: required for backend zns (it names the store "
		  "file)" },
		{ NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"16M\",\"ftl\":{}}"),
		  "subsystems[0].namespaces[0].ftl: only for backend \"nand\"" },
		{ NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"16M\",\"zns\":{\"zones\":4}}"),
		  "subsystems[0].namespaces[0].zns: unknown key 'zones'*" },
	};
	struct blox_config cfg;
	const struct blox_cfg_ns *n;
	char err[512] = "";
	json_object *o;

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
	/* 16 MiB of 4 MiB zones: 4 rows and a spare; the zones as asked, and back to JSON. */
	assert_int_equal(blox_config_parse(NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"16M\","
					      "\"zns\":{\"max_open\":2,\"max_active\":3}," ZGEO
					      "}"),
					   &cfg, err, sizeof(err)),
			 0);
	n = &cfg.subsys[0].ns[0];
	assert_true(n->zoned);
	assert_int_equal(n->nand.geo.blocks_per_plane, 5);
	assert_int_equal(n->params.zns.max_open, 2);
	assert_int_equal(n->params.zns.max_active, 3);
	o = cfg_ns_json(&n->params);
	assert_non_null(strstr(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			       "\"zns\":{\"max_open\":2,\"max_active\":3}"));
	json_object_put(o);
	blox_config_free(&cfg);
	/* A zone size asked: 8 MiB zones hold the 3 MiB rows; 32 MiB is four of them. */
	assert_int_equal(blox_config_parse(NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"32M\","
					      "\"zns\":{\"zone_size\":\"8M\"}," ZGEO "}"),
					   &cfg, err, sizeof(err)),
			 0);
	assert_int_equal(cfg.subsys[0].ns[0].nand.geo.blocks_per_plane, 5);
	assert_int_equal(cfg.subsys[0].ns[0].params.zns.zone_size, 8 << 20);
	blox_config_free(&cfg);
}
