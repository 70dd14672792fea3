/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A listener's advertised address in the configuration ("advertise": the
 * address its discovery log entries give hosts): kept in canonical form,
 * written back (the state file) and read again; each refusal naming its
 * field and reason.
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

void test_parse_advertise(void **state)
{
	static const char good[] =
		"{\"listeners\": [{\"address\": \"127.0.0.1\", \"port\": 4420},"
		"{\"address\": \"0.0.0.0\", \"port\": 4421, \"advertise\": \"10.0.2.2\"},"
		"{\"address\": \"::\", \"port\": 4422, \"advertise\": \"fd00:0::0002\"},"
		"{\"address\": \"127.0.0.1\", \"port\": 4423, \"advertise\": \"\"}]}";
	static const struct err_case cases[] = {
		{ LIS("{\"address\":\"127.0.0.1\",\"port\":1,\"advertise\":\"10.0.2\"}"),
		  "listeners[0]: listener 127.0.0.1:1: advertised address '10.0.2': not an IPv4 "
		  "or IPv6 address" },
		{ LIS("{\"address\":\"127.0.0.1\",\"port\":1,\"advertise\":\"host.example\"}"),
		  "listeners[0]: listener 127.0.0.1:1: advertised address 'host.example': not an "
		  "IPv4 or IPv6 address" },
		{ LIS("{\"address\":\"127.0.0.1\",\"port\":1,\"advertise\":\"::1\"}"),
		  "listeners[0]: listener 127.0.0.1:1: advertised address '::1' is IPv6, the "
		  "listener's address 127.0.0.1 is IPv4" },
		{ LIS("{\"address\":\"::\",\"port\":1,\"advertise\":\"10.0.2.2\"}"),
		  "listeners[0]: listener :::1: advertised address '10.0.2.2' is IPv4, the "
		  "listener's address :: is IPv6" },
		{ LIS("{\"address\":\"0.0.0.0\",\"port\":1,\"advertise\":\"0.0.0.0\"}"),
		  "listeners[0]: listener 0.0.0.0:1: advertised address '0.0.0.0': hosts cannot "
		  "connect to it; give the address they reach the listener by" },
		{ LIS("{\"address\":\"127.0.0.1\",\"port\":1,\"advertise\":7}"),
		  "listeners[0].advertise: expected a string" },
		{ LIS("{\"address\":\"127.0.0.1\",\"port\":1,\"discovery_only\":true,"
		      "\"advertise\":\"10.0.2.2\"}"),
		  "listeners[0].advertise: a discovery-only listener is not in the discovery log: "
		  "nothing to advertise" },
		{ LIS("{\"address\":\"127.0.0.1\",\"port\":1,\"advertise\":\"10.0.2.2\"},"
		      "{\"address\":\"127.0.0.1\",\"port\":1,\"advertise\":\"10.0.2.3\"}"),
		  "listeners[1]: listener 127.0.0.1:1: given with two advertised addresses, "
		  "'10.0.2.2' and '10.0.2.3'" },
	};
	char err[256] = "", *text, canon[NVMF_TRADDR_SIZE];
	struct blox_config cfg;

	(void)state;
	assert_int_equal(blox_config_parse(good, &cfg, err, sizeof(err)), 0);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(cfg.nr_listeners, 4);
		assert_string_equal(cfg.listeners[0].advertise, "");
		assert_string_equal(cfg.listeners[1].advertise, "10.0.2.2");
		assert_string_equal(cfg.listeners[2].advertise, "fd00::2");
		assert_string_equal(cfg.listeners[3].advertise, "");
		/* Written back (--print-config, the state file) and read again: the same. */
		text = blox_config_json(&cfg);
		assert_non_null(text);
		assert_non_null(strstr(text, "\"advertise\""));
		assert_non_null(strstr(text, "\"fd00::2\""));
		blox_config_free(&cfg);
		assert_int_equal(blox_config_parse(text, &cfg, err, sizeof(err)), 0);
		free(text);
	}
	blox_config_free(&cfg);
	/* The check the admin API makes too. */
	assert_int_equal(blox_advertise_check("0.0.0.0", "010.0.2.2", canon, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(blox_advertise_check("::", "FD00::2", canon, err, sizeof(err)), 0);
	assert_string_equal(canon, "fd00::2");
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}
