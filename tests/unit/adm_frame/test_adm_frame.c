/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The admin frame codec (proto/adm_frame.c) and the bloxctl helpers that
 * need no daemon (cli/cli_util.c): header round trips, every decode
 * error, status names against the proto's enum, sizes, addresses and the
 * protobuf-to-JSON conversion.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "adm_frame.h"
#include "blox_admin.pb-c.h"
#include "blox_parse.h"
#include "cli.h"

static void test_roundtrip(void **state)
{
	struct adm_hdr h = { .version = ADM_VERSION, .flags = ADM_F_MORE, .method = 513,
			     .request_id = 0xdeadbeef, .status = ADM_S_NOT_FOUND,
			     .msg_len = 17, .payload_len = 70000 }, g;
	uint8_t b[ADM_HDR_LEN];

	(void)state;
	adm_hdr_encode(&h, b);
	/* Little-endian "BLXA" first. */
	assert_memory_equal(b, "BLXA", 4);
	assert_int_equal(b[8], 0xef);
	assert_int_equal(adm_hdr_decode(b, sizeof(b), &g), ADM_OK);
	assert_int_equal(g.flags, h.flags);
	assert_int_equal(g.method, 513);
	assert_int_equal(g.request_id, 0xdeadbeef);
	assert_int_equal(g.status, ADM_S_NOT_FOUND);
	assert_int_equal(g.msg_len, 17);
	assert_int_equal(g.payload_len, 70000);
	assert_int_equal(adm_frame_len(&g), ADM_HDR_LEN + 17 + 70000);
}

static void test_decode_errors(void **state)
{
	struct adm_hdr h = { .version = ADM_VERSION }, g;
	uint8_t b[ADM_HDR_LEN];

	(void)state;
	adm_hdr_encode(&h, b);
	for (size_t n = 0; n < ADM_HDR_LEN; n++)
		assert_int_equal(adm_hdr_decode(b, n, &g), ADM_NEED_MORE);
	b[0] ^= 1;
	assert_int_equal(adm_hdr_decode(b, sizeof(b), &g), ADM_BAD_MAGIC);
	h.version = 2;
	adm_hdr_encode(&h, b);
	assert_int_equal(adm_hdr_decode(b, sizeof(b), &g), ADM_BAD_VERSION);
	h.version = ADM_VERSION;
	h.flags = 0x80;
	adm_hdr_encode(&h, b);
	assert_int_equal(adm_hdr_decode(b, sizeof(b), &g), ADM_BAD_FLAGS);
	h.flags = 0;
	h.payload_len = ADM_MAX_PAYLOAD;
	adm_hdr_encode(&h, b);
	assert_int_equal(adm_hdr_decode(b, sizeof(b), &g), ADM_OK);
	h.payload_len = ADM_MAX_PAYLOAD + 1;
	adm_hdr_encode(&h, b);
	assert_int_equal(adm_hdr_decode(b, sizeof(b), &g), ADM_TOO_LONG);
	/* The request id is still readable for the error answer. */
	h.request_id = 42;
	adm_hdr_encode(&h, b);
	adm_hdr_decode(b, sizeof(b), &g);
	assert_int_equal(g.request_id, 42);
	h.payload_len = 0;
	h.msg_len = ADM_MAX_MSG + 1;
	adm_hdr_encode(&h, b);
	assert_int_equal(adm_hdr_decode(b, sizeof(b), &g), ADM_TOO_LONG);
	for (int d = ADM_OK; d <= ADM_TOO_LONG; d++)
		assert_string_not_equal(adm_decode_str((enum adm_decode)d), "?");
}

static void test_status_names(void **state)
{
	const ProtobufCEnumDescriptor *e = &blox__admin__status__descriptor;

	(void)state;
	assert_int_equal(e->n_values, ADM_S_COUNT);
	for (unsigned i = 0; i < e->n_values; i++) {
		assert_int_equal(e->values[i].value, (int)i);
		assert_string_equal(adm_status_name(i), e->values[i].name);
	}
	assert_string_equal(adm_status_name(ADM_S_COUNT), "UNKNOWN");
	assert_int_equal(adm_status_from_errno(0), ADM_S_OK);
	assert_int_equal(adm_status_from_errno(-ENOENT), ADM_S_NOT_FOUND);
	assert_int_equal(adm_status_from_errno(-EEXIST), ADM_S_ALREADY_EXISTS);
	assert_int_equal(adm_status_from_errno(-EBUSY), ADM_S_FAILED_PRECONDITION);
	assert_int_equal(adm_status_from_errno(-EIO), ADM_S_INTERNAL);
}

static void test_cli_parse(void **state)
{
	uint64_t v;
	uint32_t u, port;
	char a[64];

	(void)state;
	assert_int_equal(blox_parse_size("4096", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(blox_parse_size("512M", &v), 0);
	assert_int_equal(v, 512ull << 20);
	assert_int_equal(blox_parse_size("1GiB", &v), 0);
	assert_int_equal(v, 1ull << 30);
	assert_int_equal(blox_parse_size("10t", &v), 0);
	assert_int_equal(v, 10ull << 40);
	assert_int_not_equal(blox_parse_size("", &v), 0);
	assert_int_not_equal(blox_parse_size("-1", &v), 0);
	assert_int_not_equal(blox_parse_size("12Q", &v), 0);
	assert_int_not_equal(blox_parse_size("1Gx", &v), 0);
	assert_int_not_equal(blox_parse_size("99999999999999999999", &v), 0);
	assert_int_not_equal(blox_parse_size("20000000T", &v), 0);
	assert_int_equal(cli_parse_u32("4294967295", &u), 0);
	assert_int_not_equal(cli_parse_u32("4294967296", &u), 0);
	assert_int_not_equal(cli_parse_u32("1x", &u), 0);
	assert_int_equal(cli_parse_addr("127.0.0.1:4420", a, sizeof(a), &port), 0);
	assert_string_equal(a, "127.0.0.1");
	assert_int_equal(port, 4420);
	assert_int_equal(cli_parse_addr("[::1]:8009", a, sizeof(a), &port), 0);
	assert_string_equal(a, "::1");
	assert_int_equal(port, 8009);
	assert_int_not_equal(cli_parse_addr("::1:8009", a, sizeof(a), &port), 0);
	assert_int_not_equal(cli_parse_addr("127.0.0.1", a, sizeof(a), &port), 0);
	assert_int_not_equal(cli_parse_addr("127.0.0.1:0", a, sizeof(a), &port), 0);
	assert_int_not_equal(cli_parse_addr("127.0.0.1:70000", a, sizeof(a), &port), 0);
	assert_int_not_equal(cli_parse_addr(":4420", a, sizeof(a), &port), 0);
}

static void test_cli_json(void **state)
{
	Blox__Admin__Subsystem s = BLOX__ADMIN__SUBSYSTEM__INIT;
	Blox__Admin__Namespace n1 = BLOX__ADMIN__NAMESPACE__INIT, *nss[1] = { &n1 };
	char *hosts[2] = { "nqn.a", "nqn.b" };
	json_object *o, *v, *arr;

	(void)state;
	s.nqn = "nqn.x";
	s.allow_any_host = true;
	s.hosts = hosts;
	s.n_hosts = 2;
	n1.nsid = 7;
	n1.size = 1ull << 40; /* beyond 32 bits */
	s.namespaces = nss;
	s.n_namespaces = 1;
	o = cli_msg_to_json(&s.base);
	assert_true(json_object_object_get_ex(o, "nqn", &v));
	assert_string_equal(json_object_get_string(v), "nqn.x");
	assert_true(json_object_object_get_ex(o, "allow_any_host", &v));
	assert_true(json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(o, "hosts", &arr));
	assert_int_equal(json_object_array_length(arr), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(arr, 1)), "nqn.b");
	assert_true(json_object_object_get_ex(o, "namespaces", &arr));
	v = json_object_array_get_idx(arr, 0);
	assert_true(json_object_object_get_ex(v, "size", &v));
	assert_int_equal(json_object_get_uint64(v), 1ull << 40);
	json_object_put(o);
	{
		Blox__Admin__NandParams p = BLOX__ADMIN__NAND_PARAMS__INIT;

		p.null_timing = BLOX__ADMIN__TOGGLE__TOGGLE_ON;
		o = cli_msg_to_json(&p.base);
		assert_true(json_object_object_get_ex(o, "null_timing", &v));
		assert_string_equal(json_object_get_string(v), "TOGGLE_ON");
		json_object_put(o);
	}
}

static void test_cli_table(void **state)
{
	struct cli_table t;
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	cli_table_init(&t, "A", "LONGER", NULL);
	cli_table_cell(&t, "%s", "wide cell");
	cli_table_cell(&t, "%u", 5u);
	cli_table_end_row(&t);
	cli_table_cell(&t, "%s", "x");
	cli_table_end_row(&t); /* a missing cell is blank */
	cli_table_print(&t, f);
	fclose(f);
	assert_string_equal(buf, "A          LONGER\nwide cell  5\nx          \n");
}

/* Wrapped at spaces within the width, continuations under the text; a longer word whole. */
static void test_cli_wrap(void **state)
{
	char buf[512] = "";
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	assert_non_null(f);
	cli_wrap(f, 6, 20, "  ftl", "CMT hit %d%%, WAF %.1f, free superblocks 62/62", 25, 1.5);
	cli_wrap(f, 6, 20, "  x", "%s tail", "a-word-longer-than-twenty");
	fclose(f);
	assert_string_equal(buf, "  ftl CMT hit 25%,\n"
				 "      WAF 1.5, free\n"
				 "      superblocks\n"
				 "      62/62\n"
				 "  x   a-word-longer-than-twenty\n"
				 "      tail\n");
}

/* A "_json" string field nests as the object it holds; empty: left out. */
static void test_cli_json_text(void **state)
{
	Blox__Admin__Namespace n = BLOX__ADMIN__NAMESPACE__INIT;
	json_object *o, *p, *v;

	(void)state;
	n.params_json = (char *)"{\"backend\": \"ram\", \"size\": 4096}";
	o = cli_msg_to_json(&n.base);
	assert_true(json_object_object_get_ex(o, "params_json", &p));
	assert_true(json_object_is_type(p, json_type_object));
	assert_true(json_object_object_get_ex(p, "size", &v));
	assert_int_equal(json_object_get_int64(v), 4096);
	json_object_put(o);
	n.params_json = (char *)"";
	o = cli_msg_to_json(&n.base);
	assert_false(json_object_object_get_ex(o, "params_json", &p));
	json_object_put(o);
	n.params_json = (char *)"not json";
	o = cli_msg_to_json(&n.base);
	assert_true(json_object_object_get_ex(o, "params_json", &p));
	assert_string_equal(json_object_get_string(p), "not json");
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip),     cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_status_names),  cmocka_unit_test(test_cli_parse),
		cmocka_unit_test(test_cli_json),      cmocka_unit_test(test_cli_table),
		cmocka_unit_test(test_cli_wrap),      cmocka_unit_test(test_cli_json_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
