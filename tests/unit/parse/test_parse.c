/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for common/parse.c: blox_parse_size() (binary units, optional "iB"/"B"
 * suffix, junk and overflow rejected).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "blox_parse.h"
#include "blox_util.h"

struct size_case {
	const char *text;
	int rc;
	uint64_t value; /* checked when rc == 0 */
};

static void check_cases(const struct size_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct size_case *c = &cases[i];
		uint64_t v = 0xdeadbeefull;
		int rc = blox_parse_size(c->text, &v);

		if (rc != c->rc)
			fail_msg("\"%s\": rc %d, want %d", c->text, rc, c->rc);
		if (rc == 0 && v != c->value)
			fail_msg("\"%s\": %llu, want %llu", c->text,
				 (unsigned long long)v,
				 (unsigned long long)c->value);
		if (rc != 0 && v != 0xdeadbeefull)
			fail_msg("\"%s\": output written on error", c->text);
	}
}

/* 1. Plain numbers and each binary unit. */
static void test_parse_size_units(void **state)
{
	static const struct size_case cases[] = {
		{ "0", 0, 0 },
		{ "4096", 0, 4096 },
		{ "4K", 0, 4096 },
		{ "4k", 0, 4096 },
		{ "64M", 0, 64ull << 20 },
		{ "1G", 0, 1ull << 30 },
		{ "2T", 0, 2ull << 40 },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases));
}

/* 2. "iB" and "B" suffixes mean the same binary unit. */
static void test_parse_size_suffixes(void **state)
{
	static const struct size_case cases[] = {
		{ "1GiB", 0, 1ull << 30 },
		{ "1GB", 0, 1ull << 30 },
		{ "1gib", 0, 1ull << 30 },
		{ "512KiB", 0, 512ull << 10 },
		{ "3MB", 0, 3ull << 20 },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases));
}

/* 3. Junk is -EINVAL. */
static void test_parse_size_junk(void **state)
{
	static const struct size_case cases[] = {
		{ "", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "K", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ " 4K", -EINVAL, 0 },
		{ "4 K", -EINVAL, 0 },
		{ "4X", -EINVAL, 0 },
		{ "4KBs", -EINVAL, 0 },
		{ "4KiBB", -EINVAL, 0 },
		{ "1.5G", -EINVAL, 0 },
		{ "4096 ", -EINVAL, 0 },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases));
	assert_int_equal(blox_parse_size(NULL, &(uint64_t){ 0 }), -EINVAL);
}

/* 4. Values that do not fit in 64 bits are rejected, not wrapped. */
static void test_parse_size_overflow(void **state)
{
	static const struct size_case cases[] = {
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -EINVAL, 0 }, /* strtoull ERANGE */
		{ "99999999999999999999999", -EINVAL, 0 },
		{ "17179869183G", 0, 17179869183ull << 30 }, /* 2^34 - 1 */
		{ "17179869184G", -ERANGE, 0 }, /* 2^64 */
		{ "16777216T", -ERANGE, 0 }, /* 2^64 */
		{ "18014398509481984K", -ERANGE, 0 }, /* 2^64 */
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size_units),
		cmocka_unit_test(test_parse_size_suffixes),
		cmocka_unit_test(test_parse_size_junk),
		cmocka_unit_test(test_parse_size_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
