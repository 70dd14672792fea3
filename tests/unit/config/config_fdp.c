/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flexible Data Placement in the configuration (ftl.placement_handles,
 * ftl.ruh_type, ftl.ru_time_limit_s): resolved into the FTL's reclaim unit handles, a device of
 * its own sized with a superblock per extra stream, written back as given;
 * and each refusal naming its field (more than 8, a type unknown or
 * without handles, a ram or zoned namespace).
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

#define GEO "\"nand\":{\"channels\":2,\"dies_per_channel\":2,\"planes_per_die\":1,\"pages_per_block\":48}"

/* Blocks per plane of a 32 MiB nand namespace with @ftl (a JSON object or ""). */
static uint32_t blocks_with(const char *ftl, struct blox_cfg_ns *out)
{
	char json[512], err[512] = "";
	struct blox_config cfg;
	uint32_t b;

	snprintf(json, sizeof(json),
		 NS("{\"nsid\":1,\"backend\":\"nand\",\"size\":\"32M\",%s%s" GEO "}"), ftl,
		 ftl[0] ? "," : "");
	assert_int_equal(blox_config_parse(json, &cfg, err, sizeof(err)), 0);
	b = cfg.subsys[0].ns[0].nand.geo.blocks_per_plane;
	if (out)
		*out = cfg.subsys[0].ns[0];
	blox_config_free(&cfg);
	return b;
}

void test_parse_fdp(void **state)
{
	static const struct err_case cases[] = {
		{ NS("{\"nsid\":1,\"backend\":\"nand\",\"size\":\"32M\",\"ftl\":"
		     "{\"placement_handles\":9}}"),
		  "subsystems[0].namespaces[0].ftl.placement_handles: at most 8" },
		{ NS("{\"nsid\":1,\"backend\":\"nand\",\"size\":\"32M\",\"ftl\":"
		     "{\"placement_handles\":2,\"ruh_type\":\"sometimes\"}}"),
		  "subsystems[0].namespaces[0].ftl.ruh_type: 'sometimes' is not persistent or "
		  "initial*" },
		{ NS("{\"nsid\":1,\"backend\":\"nand\",\"size\":\"32M\",\"ftl\":"
		     "{\"ruh_type\":\"initial\"}}"),
		  "subsystems[0].namespaces[0].ftl.ruh_type: only with placement_handles" },
		{ NS("{\"nsid\":1,\"backend\":\"nand\",\"size\":\"32M\",\"ftl\":"
		     "{\"ru_time_limit_s\":5}}"),
		  "subsystems[0].namespaces[0].ftl.ru_time_limit_s: only with placement_handles" },
		{ NS("{\"nsid\":1,\"backend\":\"nand\",\"size\":\"32M\",\"ftl\":"
		     "{\"placement_handles\":2,\"ru_time_limit_s\":31536001}}"),
		  "subsystems[0].namespaces[0].ftl.ru_time_limit_s: at most 31536000" },
		{ NS("{\"nsid\":1,\"backend\":\"ram\",\"size\":\"32M\",\"ftl\":"
		     "{\"placement_handles\":2}}"),
		  "subsystems[0].namespaces[0].ftl.placement_handles: Flexible Data Placement is "
		  "for backend \"nand\" only (backend ram has no FTL to place data with)" },
		{ NS("{\"nsid\":1,\"backend\":\"zns\",\"size\":\"32M\",\"ftl\":"
		     "{\"placement_handles\":2}}"),
		  "subsystems[0].namespaces[0].ftl.placement_handles: Flexible Data Placement is "
		  "for backend \"nand\" only (a zoned namespace places data by zone)" },
	};
	struct blox_cfg_ns n;
	uint32_t plain, fdp4, fdp4i;

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
	plain = blocks_with("", NULL);
	fdp4 = blocks_with("\"ftl\":{\"placement_handles\":4}", &n);
	assert_int_equal(n.ftl.nr_ruh, 4);
	assert_true(n.ftl.ruh_persistent);
	assert_int_equal(n.ftl.ru_time_limit_ns, 0);
	blocks_with("\"ftl\":{\"placement_handles\":2,\"ru_time_limit_s\":3}", &n);
	assert_int_equal(n.ftl.ru_time_limit_ns, 3000000000ull);
	fdp4i = blocks_with("\"ftl\":{\"placement_handles\":4,\"ruh_type\":\"initial\"}", &n);
	assert_int_equal(n.ftl.nr_ruh, 4);
	assert_false(n.ftl.ruh_persistent);
	/* An open superblock per extra stream: 2 + 2 x 4 and 2 + 4 streams instead of 4. */
	assert_int_equal(fdp4, plain + 6);
	assert_int_equal(fdp4i, plain + 2);
	/* The capacity the FTL gets on those blocks still holds the size. */
	assert_true(ftl_capacity_for(&n.ftl, &n.nand.geo, 4, fdp4i) * FTL_UNIT >= 32u << 20);
}
