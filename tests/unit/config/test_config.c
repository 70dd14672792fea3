/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for config.c: blox_config_parse() on a full valid file and on
 * every error (each message must name the offending field), listener
 * specs from the command line, the embedded default, loading from a file,
 * and applying subsystems/namespaces to a target (no listeners, so no
 * sockets are needed).
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
#include "mgmt.h"

#define HOST1 "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-0000-0000-000000000001"
#define HOST2 "nqn.2014-08.org.nvmexpress:uuid:aaaaaaaa-0000-0000-0000-000000000002"

static const char full_json[] =
	"{\n"
	"  \"listeners\": [\n"
	"    { \"address\": \"127.0.0.1\", \"port\": 4420 },\n"
	"    { \"address\": \"::1\", \"port\": 8009, \"discovery_only\": true }\n"
	"  ],\n"
	"  \"subsystems\": [\n"
	"    {\n"
	"      \"nqn\": \"nqn.2026-12.io.blox:a\",\n"
	"      \"serial\": \"SN0123456789\",\n"
	"      \"model\": \"Model X\",\n"
	"      \"allow_any_host\": false,\n"
	"      \"hosts\": [ \"" HOST1 "\", \"" HOST2 "\" ],\n"
	"      \"namespaces\": [\n"
	"        { \"nsid\": 1, \"backend\": \"ram\", \"size\": \"64M\",\n"
	"          \"block_size\": 512,\n"
	"          \"uuid\": \"01234567-89ab-cdef-0123-456789ABCDEF\" },\n"
	"        { \"backend\": \"null\", \"size\": 1073741824 },\n"
	"        { \"nsid\": 7, \"size\": \"1GiB\", \"block_size\": 4096 }\n"
	"      ]\n"
	"    },\n"
	"    { \"nqn\": \"nqn.2026-12.io.blox:b\", \"allow_any_host\": true }\n"
	"  ]\n"
	"}\n";

/* 1. Every field of a valid configuration lands where it should. */
/* nvme gen-dhchap-key --secret=000102..1f --hmac=0 */
#define KEY00 "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:"
#define TLS_KEY "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"

/* A host given as an object with its secrets; the JSON written back keeps them. */
static void test_parse_host_secrets(void **state)
{
	static const char json[] =
		"{\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[\"" HOST2 "\","
		"{\"nqn\":\"" HOST1 "\",\"dhchap_key\":\"" KEY00 "\",\"dhchap_ctrl_key\":\"" KEY00 "\","
		"\"tls_psk\":\"" TLS_KEY "\"}]}]}";
	struct blox_config cfg, again;
	char err[256] = "", *text;

	(void)state;
	assert_int_equal(blox_config_parse(json, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.subsys[0].nr_hosts, 2);
	assert_string_equal(cfg.subsys[0].hosts[0].nqn, HOST2);
	assert_string_equal(cfg.subsys[0].hosts[0].dhchap_key, "");
	assert_string_equal(cfg.subsys[0].hosts[1].nqn, HOST1);
	assert_string_equal(cfg.subsys[0].hosts[1].dhchap_key, KEY00);
	assert_string_equal(cfg.subsys[0].hosts[1].dhchap_ctrl_key, KEY00);
	text = blox_config_json(&cfg);
	assert_non_null(text);
	assert_int_equal(blox_config_parse(text, &again, err, sizeof(err)), 0);
	assert_string_equal(again.subsys[0].hosts[1].dhchap_key, KEY00);
	assert_string_equal(again.subsys[0].hosts[1].dhchap_ctrl_key, KEY00);
	assert_string_equal(again.subsys[0].hosts[1].tls_psk, TLS_KEY);
	assert_string_equal(again.subsys[0].hosts[0].nqn, HOST2);
	free(text);
	blox_config_free(&again);
	blox_config_free(&cfg);
}

static void test_parse_full(void **state)
{
	static const uint8_t uuid[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
					  0xcd, 0xef, 0x01, 0x23, 0x45, 0x67,
					  0x89, 0xab, 0xcd, 0xef };
	struct blox_config cfg;
	const struct blox_cfg_subsys *s;
	char err[256] = "";

	(void)state;
	assert_int_equal(blox_config_parse(full_json, &cfg, err, sizeof(err)), 0);
	assert_string_equal(err, "");

	assert_int_equal(cfg.nr_listeners, 2);
	assert_string_equal(cfg.listeners[0].addr, "127.0.0.1");
	assert_string_equal(cfg.listeners[0].port, "4420");
	assert_false(cfg.listeners[0].discovery_only);
	assert_string_equal(cfg.listeners[1].addr, "::1");
	assert_string_equal(cfg.listeners[1].port, "8009");
	assert_true(cfg.listeners[1].discovery_only);

	assert_int_equal(cfg.nr_subsys, 2);
	s = &cfg.subsys[0];
	assert_string_equal(s->nqn, "nqn.2026-12.io.blox:a");
	assert_string_equal(s->serial, "SN0123456789");
	assert_string_equal(s->model, "Model X");
	assert_false(s->allow_any_host);
	assert_int_equal(s->nr_hosts, 2);
	assert_string_equal(s->hosts[0].nqn, HOST1);
	assert_string_equal(s->hosts[1].nqn, HOST2);
	assert_string_equal(s->hosts[0].tls_psk, "");
	assert_int_equal(cfg.listeners[0].tls, NVMF_TLS_NONE);
	assert_int_equal(s->nr_ns, 3);

	assert_int_equal(s->ns[0].nsid, 1);
	assert_string_equal(s->ns[0].backend, "ram");
	assert_int_equal(s->ns[0].size, 64ull << 20);
	assert_int_equal(s->ns[0].block_size, 512);
	assert_true(s->ns[0].has_uuid);
	assert_memory_equal(s->ns[0].uuid, uuid, 16);

	assert_int_equal(s->ns[1].nsid, 0); /* next free at apply time */
	assert_string_equal(s->ns[1].backend, "null");
	assert_int_equal(s->ns[1].size, 1ull << 30);
	assert_int_equal(s->ns[1].block_size, 4096); /* default */
	assert_false(s->ns[1].has_uuid);

	assert_int_equal(s->ns[2].nsid, 7);
	assert_string_equal(s->ns[2].backend, "ram"); /* default */
	assert_int_equal(s->ns[2].size, 1ull << 30);

	s = &cfg.subsys[1];
	assert_string_equal(s->nqn, "nqn.2026-12.io.blox:b");
	assert_true(s->allow_any_host);
	assert_string_equal(s->serial, "");
	assert_int_equal(s->nr_hosts, 0);
	assert_int_equal(s->nr_ns, 0);
	blox_config_free(&cfg);
	assert_int_equal(cfg.nr_subsys, 0);
	assert_null(cfg.subsys);
}

/* 2. Small valid files: empty object, sizes as integers and with units. */
static void test_parse_minimal(void **state)
{
	struct blox_config cfg;
	char err[256];
	static const struct {
		const char *size;
		uint64_t bytes;
	} sizes[] = { { "4096", 4096 }, { "\"4K\"", 4096 }, { "\"64M\"", 64 << 20 },
		      { "\"1G\"", 1 << 30 }, { "\"2GiB\"", 2ull << 30 },
		      { "\"8GB\"", 8000000000ull }, { "\"512kB\"", 512000 },
		      { "1048576", 1 << 20 } };

	(void)state;
	assert_int_equal(blox_config_parse("{}", &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.nr_subsys, 0);
	assert_int_equal(cfg.nr_listeners, 0);
	blox_config_free(&cfg);
	assert_int_equal(blox_config_parse("{\"listeners\":[],\"subsystems\":[]}",
					   &cfg, err, sizeof(err)),
			 0);
	blox_config_free(&cfg);

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(sizes); i++) {
		char json[256];

		snprintf(json, sizeof(json),
			 "{\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:y\",\"namespaces\":"
			 "[{\"size\":%s}]}]}",
			 sizes[i].size);
		if (blox_config_parse(json, &cfg, err, sizeof(err)))
			fail_msg("size %s: %s", sizes[i].size, err);
		assert_int_equal(cfg.subsys[0].ns[0].size, sizes[i].bytes);
		assert_false(cfg.subsys[0].allow_any_host); /* default */
		blox_config_free(&cfg);
	}
}

struct err_case {
	const char *json;
	const char *msg; /* exact, or a prefix when it ends in '*' */
};

#define SUB(x) "{\"subsystems\":[" x "]}"
#define NS(x) SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"namespaces\":[" x "]}")

static void check_errors(const struct err_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct blox_config cfg;
		char err[512] = "";
		size_t len = strlen(cases[i].msg);
		bool prefix = len && cases[i].msg[len - 1] == '*';
		int rc;

		memset(&cfg, 0x5a, sizeof(cfg));
		rc = blox_config_parse(cases[i].json, &cfg, err, sizeof(err));
		if (rc != -EINVAL) {
			if (rc == 0)
				blox_config_free(&cfg);
			fail_msg("%s: rc %d, want -EINVAL", cases[i].json, rc);
		}
		if (prefix ? strncmp(err, cases[i].msg, len - 1)
			   : strcmp(err, cases[i].msg))
			fail_msg("%s:\n  got  '%s'\n  want '%s'", cases[i].json, err,
				 cases[i].msg);
		/* Nothing half-parsed is left behind. */
		assert_null(cfg.subsys);
		assert_null(cfg.listeners);
		assert_int_equal(cfg.nr_subsys, 0);
		assert_int_equal(cfg.nr_listeners, 0);
	}
}

/* 3. Not JSON, or not an object. */
static void test_parse_not_json(void **state)
{
	static const struct err_case cases[] = {
		{ "", "not valid JSON: *" },
		{ "nope", "not valid JSON: *" },
		{ "{", "not valid JSON: *" },
		{ "{\"subsystems\": [}", "not valid JSON: *" },
		{ "[]", "top level: expected an object" },
		{ "42", "top level: expected an object" },
	};

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}

/* 4. Unknown keys at every level. */
static void test_parse_unknown_keys(void **state)
{
	static const struct err_case cases[] = {
		{ "{\"listener\":[]}", "top level: unknown key 'listener'" },
		{ "{\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":1,\"addr\":1}]}",
		  "listeners[0]: unknown key 'addr'" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"namespace\":[]}"),
		  "subsystems[0]: unknown key 'namespace'" },
		{ NS("{\"size\":4096},{\"size\":4096,\"blocksize\":512}"),
		  "subsystems[0].namespaces[1]: unknown key 'blocksize'" },
	};

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}

/* 5. Wrong JSON types. */
static void test_parse_wrong_types(void **state)
{
	static const struct err_case cases[] = {
		{ "{\"listeners\":{}}", "top level.listeners: expected an array" },
		{ "{\"subsystems\":\"x\"}", "top level.subsystems: expected an array" },
		{ "{\"listeners\":[1]}", "listeners[0]: expected an object" },
		{ "{\"listeners\":[{\"address\":1,\"port\":4420}]}",
		  "listeners[0].address: expected a string" },
		{ "{\"listeners\":[{\"address\":\"::\",\"port\":\"4420\"}]}",
		  "listeners[0].port: expected an integer" },
		{ "{\"listeners\":[{\"address\":\"::\",\"port\":1,\"discovery_only\":1}]}",
		  "listeners[0].discovery_only: expected true or false" },
		{ SUB("[]"), "subsystems[0]: expected an object" },
		{ SUB("{\"nqn\":5}"), "subsystems[0].nqn: expected a string" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"allow_any_host\":\"yes\"}"),
		  "subsystems[0].allow_any_host: expected true or false" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":\"" HOST1 "\"}"),
		  "subsystems[0].hosts: expected an array" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[\"" HOST1 "\",7]}"),
		  "subsystems[0].hosts[1]: expected a host NQN or an object" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"namespaces\":{}}"),
		  "subsystems[0].namespaces: expected an array" },
		{ NS("\"ns\""), "subsystems[0].namespaces[0]: expected an object" },
		{ NS("{\"size\":true}"),
		  "subsystems[0].namespaces[0].size: expected a size such as 4096 or \"64M\"" },
		{ NS("{\"size\":\"64Q\"}"),
		  "subsystems[0].namespaces[0].size: '64Q' has an unknown unit: K, M, G, T or "
		  "KiB, MiB, GiB, TiB are powers of 1024; kB, MB, GB, TB powers of 1000" },
		{ NS("{\"size\":\"1Gb\"}"),
		  "subsystems[0].namespaces[0].size: '1Gb' is in bits (b); a size is in bytes (B): "
		  "GB for 10^9 bytes, GiB or G for 2^30" },
		{ NS("{\"size\":4096.5}"),
		  "subsystems[0].namespaces[0].size: expected a size such as 4096 or \"64M\"" },
		{ NS("{\"size\":4096,\"nsid\":\"1\"}"),
		  "subsystems[0].namespaces[0].nsid: expected an integer" },
		{ NS("{\"size\":4096,\"block_size\":\"4K\"}"),
		  "subsystems[0].namespaces[0].block_size: expected an integer" },
		{ NS("{\"size\":4096,\"uuid\":16}"),
		  "subsystems[0].namespaces[0].uuid: expected a string" },
		{ NS("{\"size\":4096,\"backend\":[]}"),
		  "subsystems[0].namespaces[0].backend: expected a string" },
		{ NS("{\"size\":4096,\"overcommit\":\"yes\"}"),
		  "subsystems[0].namespaces[0].overcommit: expected true or false" },
		{ "{\"devices\":[{\"name\":\"d\",\"overcommit\":1}]}",
		  "devices[0].overcommit: expected true or false" },
	};

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}


/* 5b. TLS: a listener's mode, a host's PSK; what is wrong, never the key. */
static void test_parse_tls(void **state)
{
	static const char good[] =
		"{\"listeners\": [{\"address\": \"127.0.0.1\", \"port\": 4420, \"tls\": \"required\"},"
		"{\"address\": \"127.0.0.1\", \"port\": 4421, \"tls\": \"allowed\"},"
		"{\"address\": \"127.0.0.1\", \"port\": 4422, \"tls\": \"none\"}],"
		"\"subsystems\": [{\"nqn\": \"nqn.2026-12.x:y\", \"hosts\": [\"" HOST1 "\","
		"{\"nqn\": \"" HOST2 "\", \"tls_psk\": \"" TLS_KEY "\"}]}]}";
	static const struct err_case cases[] = {
		{ "{\"listeners\":[{\"address\":\"::\",\"port\":1,\"tls\":\"yes\"}]}",
		  "listeners[0].tls: 'yes': expected \"none\", \"required\" or \"allowed\"" },
		{ "{\"listeners\":[{\"address\":\"::\",\"port\":1,\"tls\":true}]}",
		  "listeners[0].tls: expected a string" },
		{ "{\"listeners\":[{\"address\":\"::\",\"port\":1,\"tls\":\"required\"},"
		  "{\"address\":\"::\",\"port\":1}]}",
		  "listeners[1]: listener :::1: given with TLS required and with TLS none" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"tls_psk\":\"" TLS_KEY "\"}]}"),
		  "subsystems[0].hosts[0]: 'nqn' is required" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"nqn\":\"" HOST1 "\",\"psk\":\"x\"}]}"),
		  "subsystems[0].hosts[0]: unknown key 'psk'*" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"nqn\":\"" HOST1 "\",\"tls_psk\":"
		      "\"NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrA:\"}]}"),
		  "subsystems[0].hosts[0].tls_psk: TLS PSK: CRC-32 does not match (a typo in the key?)" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"nqn\":\"" HOST1 "\",\"tls_psk\":"
		      "\"NVMeTLSkey-1:05:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:\"}]}"),
		  "subsystems[0].hosts[0].tls_psk: TLS PSK: hash indicator 05 *" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"nqn\":\"bad\",\"tls_psk\":\"" TLS_KEY "\"}]}"),
		  "subsystems[0].hosts[0]: *" },
	};
	struct blox_config cfg;
	char err[256] = "", *text;

	(void)state;
	assert_int_equal(blox_config_parse(good, &cfg, err, sizeof(err)), 0);
	assert_int_equal(cfg.listeners[0].tls, NVMF_TLS_REQUIRED);
	assert_int_equal(cfg.listeners[1].tls, NVMF_TLS_ALLOWED);
	assert_int_equal(cfg.listeners[2].tls, NVMF_TLS_NONE);
	assert_string_equal(cfg.subsys[0].hosts[0].tls_psk, "");
	assert_string_equal(cfg.subsys[0].hosts[1].nqn, HOST2);
	assert_string_equal(cfg.subsys[0].hosts[1].tls_psk, TLS_KEY);
	/* Written back (--print-config, the state file) and read again: the same. */
	text = blox_config_json(&cfg);
	assert_non_null(text);
	blox_config_free(&cfg);
	assert_int_equal(blox_config_parse(text, &cfg, err, sizeof(err)), 0);
	free(text);
	assert_int_equal(cfg.listeners[0].tls, NVMF_TLS_REQUIRED);
	assert_int_equal(cfg.listeners[1].tls, NVMF_TLS_ALLOWED);
	assert_string_equal(cfg.subsys[0].hosts[1].tls_psk, TLS_KEY);
	assert_string_equal(cfg.subsys[0].hosts[0].nqn, HOST1);
	blox_config_free(&cfg);
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}

/* 6. Namespace values: size, block size, backend, nsid, uuid. */
static void test_parse_ns_values(void **state)
{
	static const struct err_case cases[] = {
		{ NS("{\"backend\":\"ram\"}"),
		  "subsystems[0].namespaces[0]: 'size' is required" },
		{ NS("{\"size\":1000}"),
		  "subsystems[0].namespaces[0].size: must be a non-zero multiple of the block size" },
		{ NS("{\"size\":\"6K\",\"block_size\":4096}"),
		  "subsystems[0].namespaces[0].size: must be a non-zero multiple of the block size" },
		{ NS("{\"size\":0}"),
		  "subsystems[0].namespaces[0].size: must be a non-zero multiple of the block size" },
		{ NS("{\"size\":-4096}"),
		  "subsystems[0].namespaces[0].size: must not be negative" },
		{ NS("{\"size\":\"9149991124997M\"}"),
		  "subsystems[0].namespaces[0].size: too large (at most 9223372036854775807 bytes)" },
		{ NS("{\"size\":4096,\"block_size\":1024}"),
		  "subsystems[0].namespaces[0].block_size: must be 512 or 4096" },
		{ NS("{\"size\":4096,\"block_size\":0}"),
		  "subsystems[0].namespaces[0].block_size: must be 512 or 4096" },
		{ NS("{\"size\":4096,\"backend\":\"disk\"}"),
		  "subsystems[0].namespaces[0].backend: 'disk' is not one of *" },
		{ NS("{\"size\":4096,\"backend\":\"RAM\"}"),
		  "subsystems[0].namespaces[0].backend: 'RAM' is not one of *" },
		{ NS("{\"size\":4096,\"nsid\":0}"),
		  "subsystems[0].namespaces[0].nsid: 0 is not a namespace id *" },
		{ NS("{\"size\":4096,\"nsid\":1025}"),
		  "subsystems[0].namespaces[0].nsid: must be 1..1024" },
		{ NS("{\"size\":4096,\"nsid\":4294967297}"),
		  "subsystems[0].namespaces[0].nsid: must be 1..1024" },
		{ NS("{\"size\":4096,\"nsid\":3},{\"size\":4096},{\"size\":4096,\"nsid\":3}"),
		  "subsystems[0].namespaces[2].nsid: 3 used twice" },
		{ NS("{\"size\":4096,\"uuid\":\"01234567-89ab-cdef-0123-456789abcdeg\"}"),
		  "subsystems[0].namespaces[0].uuid: '01234567-89ab-cdef-0123-456789abcdeg' is not a UUID" },
		{ NS("{\"size\":4096,\"uuid\":\"0123456789abcdef0123456789abcdef\"}"),
		  "subsystems[0].namespaces[0].uuid: '0123456789abcdef0123456789abcdef' is not a UUID" },
		{ NS("{\"size\":4096,\"uuid\":\"01234567-89ab-cdef-0123-456789abcd\"}"),
		  "subsystems[0].namespaces[0].uuid: '01234567-89ab-cdef-0123-456789abcd' is not a UUID" },
	};

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}

/* 7. Subsystem values: NQN, duplicates, string lengths, hosts. */
static void test_parse_subsys_values(void **state)
{
	char long_nqn[300], json[512], msg[160];
	static const struct err_case cases[] = {
		{ SUB("{}"), "subsystems[0]: 'nqn' is required" },
		{ SUB("{\"nqn\":\"\"}"), "subsystems[0].nqn: NQN '': empty" },
		{ SUB("{\"nqn\":\"nqn.2014-08.org.nvmexpress.discovery\"}"),
		  "subsystems[0].nqn: NQN 'nqn.2014-08.org.nvmexpress.discovery': the discovery "
		  "subsystem's NQN, not usable here" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:\\u0001\"}"),
		  "subsystems[0].nqn: NQN 'nqn.2026-12.x:\\x01': control character at byte 14" },
		/* The examples. */
		{ SUB("{\"nqn\":\"db\"}"), "subsystems[0].nqn: NQN 'db': must start with 'nqn.'" },
		{ SUB("{\"nqn\":\"nqn.2026-12.io.blox:has space\"}"),
		  "subsystems[0].nqn: NQN 'nqn.2026-12.io.blox:has space': white space at byte 23 "
		  "(an NQN has none)" },
		{ SUB("{\"nqn\":\"NQN.2026-12.io.blox:x\"}"),
		  "subsystems[0].nqn: NQN 'NQN.2026-12.io.blox:x': must start with 'nqn.' (in "
		  "lowercase)" },
		{ SUB("{\"nqn\":\"nqn.2026-13.io.blox:x\"}"),
		  "subsystems[0].nqn: NQN 'nqn.2026-13.io.blox:x': month 13 of the date is not "
		  "01..12" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[\"" HOST1 "\",\"badhost\"]}"),
		  "subsystems[0].hosts[1]: NQN 'badhost': must start with 'nqn.'" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\"},{\"nqn\":\"nqn.2026-12.x:z\"},{\"nqn\":\"nqn.2026-12.x:y\"}"),
		  "subsystems[2].nqn: 'nqn.2026-12.x:y' used twice" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"serial\":\"123456789012345678901\"}"),
		  "subsystems[0].serial: longer than 20 bytes" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"model\":\"12345678901234567890123456789012345678901\"}"),
		  "subsystems[0].model: longer than 40 bytes" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[\"\"]}"),
		  "subsystems[0].hosts[0]: NQN '': empty" },
		/* DH-HMAC-CHAP secrets on a host: checked, never echoed. */
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"nqn\":\"" HOST1 "\","
		      "\"dhchap_key\":\"DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaS:\"}]}"),
		  "subsystems[0].hosts[0]: DH-HMAC-CHAP secret: its CRC-32 does not match (mistyped?)" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"nqn\":\"" HOST1 "\","
		      "\"dhchap_ctrl_key\":\"" KEY00 "\"}]}"),
		  "subsystems[0].hosts[0]: DH-HMAC-CHAP secret: a controller secret needs a host "
		  "secret" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"dhchap_key\":\"" KEY00 "\"}]}"),
		  "subsystems[0].hosts[0]: 'nqn' is required" },
		{ SUB("{\"nqn\":\"nqn.2026-12.x:y\",\"hosts\":[{\"nqn\":\"" HOST1 "\",\"psk\":1}]}"),
		  "subsystems[0].hosts[0]: unknown key 'psk'" },
	};
	struct err_case c[2];

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));

	/* 230 bytes fits the field but is over the 223-byte NQN limit. */
	memset(long_nqn, 'n', 230);
	long_nqn[230] = '\0';
	snprintf(json, sizeof(json), SUB("{\"nqn\":\"%s\"}"), long_nqn);
	c[0].json = json;
	/* The message quotes its first 48 bytes. */
	snprintf(msg, sizeof(msg),
		 "subsystems[0].nqn: NQN '%.48s...': 230 bytes, more than the 223 an NQN may have",
		 long_nqn);
	c[0].msg = msg;
	check_errors(c, 1);
	memset(long_nqn, 'n', 299);
	long_nqn[299] = '\0';
	snprintf(json, sizeof(json), SUB("{\"nqn\":\"%s\"}"), long_nqn);
	c[1].json = json;
	c[1].msg = "subsystems[0].nqn: longer than 255 bytes";
	check_errors(&c[1], 1);
}

/* 8. Listener values. */
static void test_parse_listener_values(void **state)
{
	static const struct err_case cases[] = {
		{ "{\"listeners\":[{\"address\":\"127.0.0.1\"}]}",
		  "listeners[0].port: must be 1..65535" },
		{ "{\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":0}]}",
		  "listeners[0].port: must be 1..65535" },
		{ "{\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":65536}]}",
		  "listeners[0].port: must be 1..65535" },
		{ "{\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":4294971716}]}",
		  "listeners[0].port: must be 1..65535" },
		{ "{\"listeners\":[{\"address\":\"127.0.0.1\",\"port\":-1}]}",
		  "listeners[0].port: must not be negative" },
		{ "{\"listeners\":[{\"address\":\"::1\",\"port\":1},{\"port\":4420}]}",
		  "listeners[1]: 'address' is required" },
		{ "{\"listeners\":[{\"address\":\"::1\",\"port\":1},"
		  "{\"address\":\"::1\",\"port\":1,\"discovery_only\":true}]}",
		  "listeners[1]: listener ::1:1: given both as *" },
		{ "{\"listeners\":[{\"address\":\"host\",\"port\":1}]}",
		  "listeners[0]: listener host:1: 'host' is not an IPv4 or IPv6 address" },
	};

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}

/* 9. Text after the JSON object is an error, not silently dropped: a
 * stray '}' or a second pasted object would otherwise go unnoticed.
 */
static void test_parse_trailing_garbage(void **state)
{
	static const struct err_case cases[] = {
		{ "{} trailing", "not valid JSON: *" },
		{ "{\"subsystems\":[]}}", "not valid JSON: *" },
		{ "{}{\"subsystems\":[{\"nqn\":\"nqn.2026-12.x:y\"}]}", "not valid JSON: *" },
		/* A comment after a bare value: the tokener takes the NUL too
		 * (the end check read past the text; fuzz_config found it). */
		{ "0//", "top level: expected an object" },
	};

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}

/* 9b. A syntax error says its line and column (1-based, of the byte the tokener stopped at). */
static void test_parse_json_position(void **state)
{
	static const struct err_case cases[] = {
		{ "{\n  \"listeners\": [\n    { \"address\": x }\n  ]\n}",
		  "not valid JSON: line 3, column 18: *" },
		{ "{\n}\n}", "not valid JSON: line 3, column 1: text after the end" },
		{ "{\n  \"subsystems\": [\n", "not valid JSON: line 3, column 1: *" },
		{ "nope", "not valid JSON: line 1, column *" },
	};
	unsigned line, col;

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
	cfg_text_pos("ab\ncd\n\nef", 0, &line, &col);
	assert_int_equal(line, 1);
	assert_int_equal(col, 1);
	cfg_text_pos("ab\ncd\n\nef", 4, &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 2);
	cfg_text_pos("ab\ncd\n\nef", 7, &line, &col);
	assert_int_equal(line, 4);
	assert_int_equal(col, 1);
	/* Past the end: where the text ends. */
	cfg_text_pos("ab\n", 100, &line, &col);
	assert_int_equal(line, 2);
	assert_int_equal(col, 1);
}

/* 10. A UUID must have the 8-4-4-4-12 shape; a typo must not turn into a
 * different identifier.
 */
static void test_parse_uuid_malformed(void **state)
{
	static const struct err_case cases[] = {
		/* 36 characters, dashes in the wrong places. */
		{ NS("{\"size\":4096,\"uuid\":\"0123456789abcdef0123456789abcdef----\"}"),
		  "subsystems[0].namespaces[0].uuid: '0123456789abcdef0123456789abcdef----' is not a UUID" },
		/* A space in place of a digit. */
		{ NS("{\"size\":4096,\"uuid\":\"0 234567-89ab-cdef-0123-456789abcdef\"}"),
		  "subsystems[0].namespaces[0].uuid: '0 234567-89ab-cdef-0123-456789abcdef' is not a UUID" },
	};

	(void)state;
	check_errors(cases, BLOX_ARRAY_SIZE(cases));
}

/* 11. Listener specs from the command line. */
/* --print-config's JSON reads back as the same configuration. */
static void test_config_json_roundtrip(void **state)
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

static void test_add_listener(void **state)
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
static void test_overcommit_key(void **state)
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

static void test_default(void **state)
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
static void test_load(void **state)
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
static void test_apply(void **state)
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
static void test_parse_ns_duplicate_uuid(void **state)
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
static void test_parse_nand_options(void **state)
{
	static const char json[] = NAND_NS(NAND_SMALL ",\"cell\":\"slc\","
					   "\"t_read_us\":25,\"t_prog_us\":200,"
					   "\"t_erase_us\":1500,\"bus_mbps\":800,"
					   "\"null_timing\":true,\"multi_plane\":false,"
					   "\"suspend_policy\":\"never\"");
	static const struct err_case cases[] = {
		{ NS("{\"size\":4096,\"nand\":{}}"),
		  "subsystems[0].namespaces[0].nand: only for backends \"nand\" and \"nand-timing\"" },
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
static void test_parse_devices(void **state)
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
		  "subsystems[0].namespaces[0].device: only for backend \"nand\"" },
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_full),
		cmocka_unit_test(test_parse_host_secrets),
		cmocka_unit_test(test_parse_minimal),
		cmocka_unit_test(test_parse_not_json),
		cmocka_unit_test(test_parse_unknown_keys),
		cmocka_unit_test(test_parse_wrong_types),
		cmocka_unit_test(test_parse_tls),
		cmocka_unit_test(test_parse_ns_values),
		cmocka_unit_test(test_parse_subsys_values),
		cmocka_unit_test(test_parse_listener_values),
		cmocka_unit_test(test_parse_trailing_garbage),
		cmocka_unit_test(test_parse_json_position),
		cmocka_unit_test(test_parse_uuid_malformed),
		cmocka_unit_test(test_add_listener),
		cmocka_unit_test(test_config_json_roundtrip),
		cmocka_unit_test(test_default),
		cmocka_unit_test(test_overcommit_key),
		cmocka_unit_test(test_parse_devices),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_apply),
		cmocka_unit_test(test_parse_ns_duplicate_uuid),
		cmocka_unit_test(test_parse_nand_options),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
