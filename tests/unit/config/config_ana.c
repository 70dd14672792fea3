/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ANA in the configuration: a listener's "ana_state" ("GROUP=STATE" each)
 * and a namespace's "ana_group", kept and written back (the state file),
 * and each refusal naming its field.
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

#define LIS(x) "{\"listeners\":[" x "]}"

void test_parse_ana(void **state)
{
	static const char good[] =
		"{\"listeners\": [{\"address\": \"127.0.0.1\", \"port\": 4420},"
		"{\"address\": \"127.0.0.1\", \"port\": 4421, \"ana_state\": [\"2=inaccessible\","
		"\"1=non-optimized\", \"128=persistent-loss\", \"3=optimized\", \"4=change\"]}],"
		"\"subsystems\": [{\"nqn\": \"nqn.2026-12.x:y\", \"namespaces\": ["
		"{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"1M\"},"
		"{\"nsid\": 2, \"backend\": \"ram\", \"size\": \"1M\", \"ana_group\": 2}]}]}";
	static const struct err_case cases[] = {
		{ LIS("{\"address\":\"::\",\"port\":1,\"ana_state\":\"2=inaccessible\"}"),
		  "listeners[0].ana_state: expected an array of \"GROUP=STATE\"" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"ana_state\":[2]}"),
		  "listeners[0].ana_state[0]: expected \"GROUP=STATE\"" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"ana_state\":[\"inaccessible\"]}"),
		  "listeners[0].ana_state[0]: ANA state 'inaccessible': expected GROUP=STATE" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"ana_state\":[\"0=inaccessible\"]}"),
		  "listeners[0].ana_state[0]: ANA state '0=inaccessible': the group must be 1..128" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"ana_state\":[\"129=change\"]}"),
		  "listeners[0].ana_state[0]: ANA state '129=change': the group must be 1..128" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"ana_state\":[\"x=change\"]}"),
		  "listeners[0].ana_state[0]: ANA state 'x=change': expected GROUP=STATE" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"ana_state\":[\"1=gone\"]}"),
		  "listeners[0].ana_state[0]: ANA state '1=gone': the state must be optimized, "
		  "non-optimized, inaccessible, persistent-loss or change" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"ana_state\":[\"1=change\",\"1=optimized\"]}"),
		  "listeners[0].ana_state[1]: group 1 given twice" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"discovery_only\":true,"
		      "\"ana_state\":[\"1=change\"]}"),
		  "listeners[0].ana_state: a discovery-only listener serves no namespace" },
		{ NS("{\"nsid\":1,\"backend\":\"ram\",\"size\":\"1M\",\"ana_group\":0}"),
		  "subsystems[0].namespaces[0].ana_group: must be 1..128" },
		{ NS("{\"nsid\":1,\"backend\":\"ram\",\"size\":\"1M\",\"ana_group\":129}"),
		  "subsystems[0].namespaces[0].ana_group: must be 1..128" },
		{ NS("{\"nsid\":1,\"backend\":\"ram\",\"size\":\"1M\",\"ana_group\":\"2\"}"),
		  "subsystems[0].namespaces[0].ana_group: *" },
	};
	struct blox_config cfg;
	char err[256] = "", *text;

	(void)state;
	assert_int_equal(blox_config_parse(good, &cfg, err, sizeof(err)), 0);
	for (int pass = 0; pass < 2; pass++) {
		const uint8_t *a = cfg.listeners[1].ana_state;

		for (uint32_t g = 0; g <= NVMF_ANAGRPMAX; g++)
			assert_int_equal(cfg.listeners[0].ana_state[g], 0);
		assert_int_equal(a[1], NVME_ANA_STATE_NONOPTIMIZED);
		assert_int_equal(a[2], NVME_ANA_STATE_INACCESSIBLE);
		/* Optimized is the default: written back as nothing. */
		assert_int_equal(a[3], pass ? 0 : NVME_ANA_STATE_OPTIMIZED);
		assert_int_equal(a[4], NVME_ANA_STATE_CHANGE);
		assert_int_equal(a[5], 0);
		assert_int_equal(a[128], NVME_ANA_STATE_PERSISTENT_LOSS);
		assert_int_equal(cfg.subsys[0].ns[0].params.ana_group, 0);
		assert_int_equal(cfg.subsys[0].ns[1].params.ana_group, 2);
		/* Written back (--print-config, the state file) and read again: the same. */
		text = blox_config_json(&cfg);
		assert_non_null(text);
		assert_non_null(strstr(text, "\"2=inaccessible\""));
		assert_null(strstr(text, "\"3=optimized\""));
		blox_config_free(&cfg);
		assert_int_equal(blox_config_parse(text, &cfg, err, sizeof(err)), 0);
		free(text);
	}
	blox_config_free(&cfg);
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}
