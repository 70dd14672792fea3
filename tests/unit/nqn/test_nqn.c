/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for common/nqn.c: blox_nqn_check() against a table of NQNs
 * the NVMe base spec allows and refuses, edges included (223 and 224
 * bytes, the UUID form, month 13, the ':' and the name after the
 * reverse domain), and the reason each refusal gives.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "blox_nqn.h"
#include "blox_util.h"

struct nqn_case {
	const char *nqn;
	const char *why; /* NULL: valid; else a part of the reason */
};

static void check_cases(const struct nqn_case *cases, size_t n, bool discovery_ok)
{
	for (size_t i = 0; i < n; i++) {
		const struct nqn_case *c = &cases[i];
		char err[512] = "";
		int rc = blox_nqn_check(c->nqn, discovery_ok, err, sizeof(err));

		if (!c->why && rc)
			fail_msg("'%s' refused: %s", c->nqn, err);
		if (c->why && rc != -EINVAL)
			fail_msg("'%s' accepted (want: %s)", c->nqn, c->why);
		if (c->why && !strstr(err, c->why))
			fail_msg("'%s': reason \"%s\" does not say \"%s\"", c->nqn, err, c->why);
		if (c->why && strncmp(err, "NQN '", 5))
			fail_msg("'%s': reason \"%s\" does not name the NQN", c->nqn, err);
	}
}

/* 1. The forms the spec defines, and names found in the field. */
static void test_nqn_valid(void **state)
{
	static const struct nqn_case cases[] = {
		{ "nqn.2026-12.io.blox:default", NULL },
		{ "nqn.2026-12.io.blox:db", NULL },
		{ "nqn.2014-08.com.example:nvme:nvm-subsystem-sn-d78432", NULL },
		{ "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6", NULL },
		{ "nqn.2014-08.org.nvmexpress:uuid:F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6", NULL },
		{ "nqn.1991-05.com.microsoft:host-01", NULL },
		{ "nqn.2016-06.io.spdk:cnode1", NULL },
		{ "nqn.2026-01.io:x", NULL }, /* a top-level domain alone */
		{ "nqn.2026-12.com.3com:x", NULL }, /* a label may start with a digit */
		{ "nqn.2026-12.io.my-org:a:b:c", NULL }, /* more ':' in the name */
		{ "nqn.2026-12.io.blox:Name_With.Any/Chars", NULL },
		{ "nqn.2026-12.io.blox:caf\xc3\xa9-\xe6\x97\xa5\xe6\x9c\xac", NULL }, /* UTF-8 */
		{ "nqn.2014-08.org.nvmexpress:x", NULL }, /* the date form on that domain */
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases), false);
}

/* 2. The examples, and the prefix. */
static void test_nqn_prefix(void **state)
{
	static const struct nqn_case cases[] = {
		{ "db", "must start with 'nqn.'" },
		{ "badhost", "must start with 'nqn.'" },
		{ "NQN.2026-12.io.blox:x", "must start with 'nqn.' (in lowercase)" },
		{ "nqn", "must start with 'nqn.'" },
		{ "iqn.2026-12.io.blox:x", "must start with 'nqn.'" },
		{ "", "empty" },
		{ "nqn.2026-12.io.blox:has space", "white space at byte 23" },
		{ " nqn.2026-12.io.blox:x", "white space at byte 0" },
		{ "nqn.2026-12.io.blox:x\t", "control character at byte 21" },
		{ "nqn.2026-12.io.blox:\x01", "control character" },
		{ "nqn.2026-12.io.blox:\x7f", "control character" },
		{ "nqn.2026-12.io.blox:nb\xc2\xa0sp", "white space" }, /* U+00A0 */
		{ "nqn.2026-12.io.blox:\xc2\x85", "control character" }, /* U+0085 */
		{ "nqn.2026-12.io.blox:\xff", "not valid UTF-8 at byte 20" },
		{ "nqn.2026-12.io.blox:\xc0\xaf", "not valid UTF-8" }, /* overlong '/' */
		{ "nqn.2026-12.io.blox:\xed\xa0\x80", "not valid UTF-8" }, /* a surrogate */
		{ "nqn.2026-12.io.blox:\xe6\x97", "not valid UTF-8" }, /* cut short */
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases), false);
}

/* 3. The date: yyyy-mm, month 01..12, then '.'. */
static void test_nqn_date(void **state)
{
	static const struct nqn_case cases[] = {
		{ "nqn.2026-13.io.blox:x", "month 13 of the date is not 01..12" },
		{ "nqn.2026-00.io.blox:x", "month 00" },
		{ "nqn.2026-1.io.blox:x", "expected a date 'yyyy-mm.'" },
		{ "nqn.26-12.io.blox:x", "expected a date" },
		{ "nqn.2026-12:x", "expected a date" },
		{ "nqn.2026_12.io.blox:x", "expected a date" },
		{ "nqn.x:y", "expected a date" },
		{ "nqn.2026-12", "expected a date" },
		{ "nqn.2026-01.io.blox:x", NULL },
		{ "nqn.2026-12.io.blox:x", NULL },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases), false);
}

/* 4. The reverse domain, the ':' and the name after it. */
static void test_nqn_domain(void **state)
{
	static const struct nqn_case cases[] = {
		{ "nqn.2026-12.io.blox", "no ':' and name after the reverse domain" },
		{ "nqn.2026-12.io.blox:", "nothing after the ':'" },
		{ "nqn.2026-12.:x", "no reverse domain name" },
		{ "nqn.2026-12.IO.blox:x", "has uppercase letters" },
		{ "nqn.2026-12.io.Blox:x", "has uppercase letters" },
		{ "nqn.2026-12.io..blox:x", "has an empty label" },
		{ "nqn.2026-12.io.blox.:x", "has an empty label" },
		{ "nqn.2026-12..io:x", "has an empty label" },
		{ "nqn.2026-12.io.-blox:x", "starts or ends with '-'" },
		{ "nqn.2026-12.io.blox-:x", "starts or ends with '-'" },
		{ "nqn.2026-12.io.bl_ox:x", "only letters, digits, '-' and '.'" },
		{ "nqn.2026-12.io.bl/ox:x", "only letters, digits" },
		{ "nqn.2026-12.123.blox:x", "must start with its top-level domain" },
		{ "nqn.2026-12.io.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:x",
		  "longer than 63 characters" }, /* 64 */
		{ "nqn.2026-12.io.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:x",
		  NULL }, /* 63 */
		{ "nqn.2026-12.io.x-y.z9:a", NULL },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases), false);
}

/* 5. The UUID form: exactly a UUID after the prefix. */
static void test_nqn_uuid(void **state)
{
	static const struct nqn_case cases[] = {
		{ "nqn.2014-08.org.nvmexpress:uuid:", "the UUID form" },
		{ "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf",
		  "the UUID form" }, /* 35 */
		{ "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6a",
		  "nothing after it" }, /* 37 */
		{ "nqn.2014-08.org.nvmexpress:uuid:f81d4fae7dec-11d0-a765-00a0c91e6bf6-",
		  "the UUID form" },
		{ "nqn.2014-08.org.nvmexpress:uuid:g81d4fae-7dec-11d0-a765-00a0c91e6bf6",
		  "the UUID form" },
		{ "nqn.2014-08.org.nvmexpress:uuid:...", "the UUID form" },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases), false);
}

/* 6. 223 bytes are allowed, 224 are not; the message cuts a long NQN. */
static void test_nqn_length(void **state)
{
	char nqn[300], err[512];
	const char *head = "nqn.2026-12.io.blox:";
	size_t hl = strlen(head);

	(void)state;
	memcpy(nqn, head, hl);
	memset(nqn + hl, 'a', BLOX_NQN_MAX_LEN - hl);
	nqn[BLOX_NQN_MAX_LEN] = '\0';
	assert_int_equal(strlen(nqn), 223);
	assert_int_equal(blox_nqn_check(nqn, false, err, sizeof(err)), 0);
	nqn[223] = 'a';
	nqn[224] = '\0';
	assert_int_equal(blox_nqn_check(nqn, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "224 bytes, more than the 223"));
	assert_non_null(strstr(err, "aaa...'"));
	assert_true(strlen(err) < 160);
	/* 223 bytes of which a multi-byte character is the last: still fine. */
	memcpy(nqn + 221, "\xc3\xa9", 3);
	assert_int_equal(strlen(nqn), 223);
	assert_int_equal(blox_nqn_check(nqn, false, err, sizeof(err)), 0);
}

/* 7. The discovery NQN: valid as such, refused where a subsystem or host is named. */
static void test_nqn_discovery(void **state)
{
	char err[256];

	(void)state;
	assert_int_equal(blox_nqn_check(BLOX_NQN_DISCOVERY, true, err, sizeof(err)), 0);
	assert_int_equal(blox_nqn_check(BLOX_NQN_DISCOVERY, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "discovery subsystem's NQN"));
	/* Not a near miss of it. */
	assert_int_equal(blox_nqn_check("nqn.2014-08.org.nvmexpress.discoveryx", true, err,
					sizeof(err)),
			 -EINVAL);
}

/* 8. Bytes outside printable ASCII are shown escaped; a NULL or tiny buffer is fine. */
static void test_nqn_message(void **state)
{
	char err[256], tiny[8];

	(void)state;
	assert_int_equal(blox_nqn_check("nqn.2026-12.io.blox:\x01z", false, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "NQN 'nqn.2026-12.io.blox:\\x01z': control character at byte 20");
	assert_int_equal(blox_nqn_check("db", false, NULL, 0), -EINVAL);
	assert_int_equal(blox_nqn_check("db", false, tiny, sizeof(tiny)), -EINVAL);
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
	assert_int_equal(blox_nqn_check("db", false, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "NQN 'db': must start with 'nqn.'");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nqn_valid),     cmocka_unit_test(test_nqn_prefix),
		cmocka_unit_test(test_nqn_date),      cmocka_unit_test(test_nqn_domain),
		cmocka_unit_test(test_nqn_uuid),      cmocka_unit_test(test_nqn_length),
		cmocka_unit_test(test_nqn_discovery), cmocka_unit_test(test_nqn_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
