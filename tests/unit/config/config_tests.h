/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What test_config's files share, and the tests of config_use.c
 * (test_config.c runs them all).
 */
#ifndef BLOX_TEST_CONFIG_TESTS_H
#define BLOX_TEST_CONFIG_TESTS_H

#include <stddef.h>

#define HOST1 "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-0000-0000-000000000001"
#define HOST2 "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-0000-0000-000000000002"

/* A valid configuration with every field (test_config.c). */
extern const char full_json[];

/* A configuration blox_config_parse() must refuse, and the message it must give. */
struct err_case {
	const char *json;
	const char *msg; /* exact, or a prefix when it ends in '*' */
};

#define SUB(x) "{\"subsystems\":[" x "]}"
#define NS(x) SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"namespaces\":[" x "]}")

/* Each case refused with its message, nothing half-parsed left behind (test_config.c). */
void check_errors(const struct err_case *cases, size_t n);

/* config_use.c */
void test_config_json_roundtrip(void **state);
void test_add_listener(void **state);
void test_overcommit_key(void **state);
void test_default(void **state);
void test_load(void **state);
void test_apply(void **state);
void test_parse_ns_duplicate_uuid(void **state);
void test_parse_nand_options(void **state);
void test_parse_devices(void **state);
/* config_zns.c */
void test_parse_zns(void **state);
/* config_fdp.c */
void test_parse_fdp(void **state);
/* config_ana.c */
void test_parse_ana(void **state);
/* config_advertise.c */
void test_parse_advertise(void **state);

#endif
