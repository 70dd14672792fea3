/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for common/parse.c: blox_parse_size() (bare K/M/G/T and KiB..TiB
 * powers of 1024, kB..TB powers of 1000, bits and unknown units refused with
 * the reason, junk and overflow rejected).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* 2. IEC units (KiB..TiB, Ki..Ti) are powers of 1024 as the bare letters are. */
static void test_parse_size_suffixes(void **state)
{
	static const struct size_case cases[] = {
		{ "1GiB", 0, 1ull << 30 },
		{ "1Gi", 0, 1ull << 30 },
		{ "1giB", 0, 1ull << 30 },
		{ "512KiB", 0, 512ull << 10 },
		{ "512kiB", 0, 512ull << 10 },
		{ "3MiB", 0, 3ull << 20 },
		{ "2TiB", 0, 2ull << 40 },
		{ "4096B", 0, 4096 },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases));
}

/* 3. SI units with B (kB, MB, GB, TB; K for k too) are powers of 1000. */
static void test_parse_size_si(void **state)
{
	static const struct size_case cases[] = {
		{ "10GB", 0, 10000000000ull },
		{ "1GB", 0, 1000000000ull },
		{ "3MB", 0, 3000000ull },
		{ "4kB", 0, 4000 },
		{ "4KB", 0, 4000 },
		{ "2TB", 0, 2000000000000ull },
		{ "18446744TB", 0, 18446744000000000000ull },
		{ "18446745TB", -ERANGE, 0 },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases));
}

/* 4. Bits ("Gb"), lower-case SI prefixes other than k, and odd units are refused. */
static void test_parse_size_refused(void **state)
{
	static const struct {
		const char *text;
		const char *why; /* a word the reason must hold */
	} cases[] = {
		{ "1Gb", "bits" },     { "10gb", "bits" },   { "1Gib", "bits" },
		{ "2tb", "bits" },     { "8kb", "bits" },    { "1b", "bits" },
		{ "1mB", "unit" },     { "1gB", "unit" },    { "1iB", "unit" },
		{ "1KB2", "unit" },    { "1Q", "unit" },     { "1GIB", "unit" },
		{ "1.5G", "whole" },   { "-1", "whole" },    { "", "whole" },
		{ "99999999999999999999", "large" },         { "17179869184G", "large" },
	};
	uint64_t v = 7;

	(void)state;
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(cases); i++) {
		const char *why = NULL;
		int rc = blox_parse_size_why(cases[i].text, &v, &why);

		if (!rc)
			fail_msg("\"%s\" was taken as %llu", cases[i].text, (unsigned long long)v);
		if (!why || !strstr(why, cases[i].why))
			fail_msg("\"%s\": reason \"%s\", want one naming %s", cases[i].text,
				 why ? why : "(none)", cases[i].why);
		assert_int_equal(v, 7);
	}
	/* The reason for bits names both byte units it could have meant. */
	{
		const char *why = NULL;

		assert_int_equal(blox_parse_size_why("1Gb", &v, &why), -EINVAL);
		assert_non_null(strstr(why, "GB"));
		assert_non_null(strstr(why, "GiB"));
	}
}

/* 5. Junk is -EINVAL. */
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
		{ "4Gb", -EINVAL, 0 },
		{ "1.5G", -EINVAL, 0 },
		{ "4096 ", -EINVAL, 0 },
	};

	(void)state;
	check_cases(cases, BLOX_ARRAY_SIZE(cases));
	assert_int_equal(blox_parse_size(NULL, &(uint64_t){ 0 }), -EINVAL);
}

/* 6. Values that do not fit in 64 bits are rejected (-ERANGE), not wrapped. */
static void test_parse_size_overflow(void **state)
{
	static const struct size_case cases[] = {
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "18446744073709551616", -ERANGE, 0 }, /* 2^64 */
		{ "99999999999999999999999", -ERANGE, 0 },
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
		cmocka_unit_test(test_parse_size_si),
		cmocka_unit_test(test_parse_size_refused),
		cmocka_unit_test(test_parse_size_junk),
		cmocka_unit_test(test_parse_size_overflow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
