/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for daemon/auth/dhchap.c: DHHC-1 secrets (keys nvme-cli's
 * gen-dhchap-key made, bad CRC, length, transform, base64), the key
 * transform, the augmented challenge and both responses against values
 * computed on a second path (Python's hmac/hashlib over the same bytes),
 * and the FFDHE exchange (both ends agree, every group; out-of-range and
 * short peer values refused).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "dhchap.h"

/* nvme gen-dhchap-key --secret=000102..1f --hmac=1 --nqn=HOST */
static const char key_01[] = "DHHC-1:01:/crQYP9rzIYwKOBYXUJm0JW92VUkJNC6UpqB2VyHzkKjM4Zu:";
/* nvme gen-dhchap-key --secret=000102..1f --hmac=0 */
static const char key_00[] = "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:";
/* nvme gen-dhchap-key -m 2 and -m 3 (random secrets) */
static const char key_02[] =
	"DHHC-1:02:dTxt1r/Rv4XCZiiMhWyswh5QZzyqGe+PTWFjRuoTGhSuFjokbjH57i5w9Pyx7LQLyGUZdQ==:";
static const char key_03[] =
	"DHHC-1:03:Dg6lV00NUZ942Soa6gDVXXs1zoOolOC+M2kFTqy1zL8ordzqB/S457Z+EKW07zeEBoLTq9PNgYV+WZ/AOSTyj10SKJ8=:";
static const char host[] = "nqn.2014-08.org.nvmexpress:uuid:host1";
static const char sub[] = "nqn.2024-01.io.blox:test";

static void test_parse_good(void **state)
{
	struct dhchap_key k;
	char out[DHCHAP_KEY_STR_MAX];
	static const uint8_t key01_first[4] = { 0xfd, 0xca, 0xd0, 0x60 };

	(void)state;
	assert_int_equal(dhchap_key_parse(key_01, &k, NULL), 0);
	assert_int_equal(k.hash, DHCHAP_SHA256);
	assert_int_equal(k.len, 32);
	assert_memory_equal(k.key, key01_first, 4);
	assert_int_equal(dhchap_key_parse(key_00, &k, NULL), 0);
	assert_int_equal(k.hash, 0);
	for (int i = 0; i < 32; i++)
		assert_int_equal(k.key[i], i);
	assert_int_equal(dhchap_key_format(&k, out, sizeof(out)), 0);
	assert_string_equal(out, key_00);
	assert_int_equal(dhchap_key_parse(key_02, &k, NULL), 0);
	assert_int_equal(k.len, 48);
	assert_int_equal(dhchap_key_format(&k, out, sizeof(out)), 0);
	assert_string_equal(out, key_02);
	assert_int_equal(dhchap_key_parse(key_03, &k, NULL), 0);
	assert_int_equal(k.len, 64);
	assert_int_equal(k.hash, DHCHAP_SHA512);
}

static void test_parse_bad(void **state)
{
	static const struct {
		const char *s, *why;
	} bad[] = {
		{ "", "not a DHHC-1" },
		{ "DHHC-2:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "not a DHHC-1" },
		{ "DHHC-1:04:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "00, 01, 02 or 03" },
		{ "DHHC-1:0:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "00, 01, 02 or 03" },
		/* CRC: one character of the key changed, then one of the CRC */
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+LfiaR:", "CRC-32" },
		{ "DHHC-1:00:BAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "CRC-32" },
		/* no trailing ':' / something after it */
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR", "end with" },
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:x", "end with" },
		/* 31 and 33 bytes */
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHndteE0=:", "32, 48 or 64" },
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gBYOQ5A==:", "32, 48 or 64" },
		/* not base64 */
		{ "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+Kfi*R:", "base64" },
		/* a 32-byte key with transform 02 (SHA-384 wants 48) */
		{ "DHHC-1:02:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:", "transform hash" },
	};
	struct dhchap_key k;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;

		assert_int_equal(dhchap_key_parse(bad[i].s, &k, &why), -EINVAL);
		assert_non_null(why);
		if (!strstr(why, bad[i].why))
			fail_msg("case %zu: '%s' does not say '%s'", i, why, bad[i].why);
		/* The reason never carries the secret. */
		assert_null(strstr(why, "AAEC"));
		assert_int_equal(k.len, 0);
	}
}

static const uint8_t transform_01[32] = {
	0x82, 0xda, 0x71, 0x9e, 0x4c, 0x89, 0x7f, 0x86, 0x26, 0x42, 0x31,
	0xd1, 0xc4, 0x0e, 0x59, 0x19, 0x3a, 0xc2, 0xb3, 0x62, 0x66, 0xf5,
	0x33, 0xe0, 0xa3, 0x22, 0x85, 0x9a, 0x33, 0xf6, 0x5a, 0xc8,
};

static void test_transform(void **state)
{
	struct dhchap_key k;
	uint8_t out[DHCHAP_MAX_HASH_LEN];
	size_t len;

	(void)state;
	assert_int_equal(dhchap_key_parse(key_01, &k, NULL), 0);
	assert_int_equal(dhchap_key_transform(&k, host, out, &len), 0);
	assert_int_equal(len, 32);
	assert_memory_equal(out, transform_01, 32);
	/* Hash 0: the key as it is. */
	assert_int_equal(dhchap_key_parse(key_00, &k, NULL), 0);
	assert_int_equal(dhchap_key_transform(&k, host, out, &len), 0);
	assert_int_equal(len, 32);
	assert_memory_equal(out, k.key, 32);
}

static uint8_t chal[48];
static const uint32_t seq = 0x12345678;
static const uint16_t tid = 0xabcd;

/* HMAC-SHA384(transform_01, chal || seq || tid || 0 || "HostHost" || host || 0 || sub) */
static const uint8_t r1_sha384[48] = {
	0x7d, 0x9e, 0xa5, 0xca, 0x14, 0xd6, 0x70, 0xf0, 0x32, 0xa4, 0x6d, 0x41,
	0x04, 0x1a, 0x38, 0x05, 0xe8, 0x55, 0x08, 0x66, 0x10, 0xf0, 0x74, 0xc9,
	0x62, 0xfe, 0xf1, 0x8b, 0x8c, 0x3b, 0x0d, 0x89, 0x77, 0xc6, 0x92, 0xe3,
	0xb3, 0xb5, 0x66, 0xd2, 0x20, 0x39, 0xb7, 0x75, 0x2d, 0xd2, 0x48, 0xdc,
};
/* HMAC-SHA384(SHA384(0x5a * 256), chal) */
static const uint8_t aug_sha384[48] = {
	0xf6, 0x38, 0xe7, 0x06, 0xb7, 0x09, 0x64, 0xba, 0xc5, 0x0f, 0xa2, 0xc1,
	0xaf, 0xaa, 0xdd, 0x4f, 0x01, 0x8b, 0x07, 0x95, 0x9e, 0xd7, 0xa7, 0x00,
	0x5e, 0x39, 0xf6, 0x79, 0x17, 0x22, 0xc3, 0xe3, 0x00, 0x16, 0x41, 0xa8,
	0xfb, 0xdf, 0xba, 0x1b, 0xbb, 0x82, 0xad, 0x47, 0x79, 0x2d, 0x60, 0xc4,
};
/* HMAC-SHA384(key_00, aug || seq || tid || 0 || "Controller" || sub || 0 || host) */
static const uint8_t r2_sha384_dh[48] = {
	0xec, 0x4e, 0x39, 0xe3, 0x5d, 0xd6, 0x2d, 0x09, 0xfd, 0xcc, 0x91, 0xbe,
	0x06, 0x4a, 0x24, 0x39, 0xf1, 0xf3, 0x90, 0x2e, 0xb2, 0x35, 0xce, 0x4c,
	0x3e, 0xe6, 0xb8, 0x88, 0x64, 0x8e, 0xba, 0xae, 0xdd, 0xc6, 0x9b, 0xba,
	0xa6, 0x64, 0xfc, 0xf7, 0x4c, 0x8e, 0x34, 0xa1, 0xb3, 0x3f, 0xbe, 0x94,
};

static void test_responses(void **state)
{
	struct dhchap_key hk, ck;
	uint8_t skey[256], out[DHCHAP_MAX_HASH_LEN];
	struct dhchap_resp_in in;

	(void)state;
	for (int i = 0; i < 48; i++)
		chal[i] = (uint8_t)(0x40 + i);
	memset(skey, 0x5a, sizeof(skey));
	assert_int_equal(dhchap_key_parse(key_01, &hk, NULL), 0);
	assert_int_equal(dhchap_key_parse(key_00, &ck, NULL), 0);
	in = (struct dhchap_resp_in){ .hash = DHCHAP_SHA384, .key = &hk, .chal = chal,
				      .seq = seq, .tid = tid, .hostnqn = host, .subnqn = sub };
	assert_int_equal(dhchap_host_response(&in, out), 0);
	assert_memory_equal(out, r1_sha384, 48);
	/* The other end's tag gives another value. */
	assert_int_equal(dhchap_ctrl_response(&in, out), 0);
	assert_memory_not_equal(out, r1_sha384, 48);

	assert_int_equal(dhchap_augment(DHCHAP_SHA384, skey, sizeof(skey), chal, out), 0);
	assert_memory_equal(out, aug_sha384, 48);
	in.key = &ck;
	in.skey = skey;
	in.skey_len = sizeof(skey);
	assert_int_equal(dhchap_ctrl_response(&in, out), 0);
	assert_memory_equal(out, r2_sha384_dh, 48);
	in.hash = 7;
	assert_int_equal(dhchap_ctrl_response(&in, out), -EINVAL);
}

static void test_dh_groups(void **state)
{
	static uint8_t pa[DHCHAP_MAX_DH_LEN], pb[DHCHAP_MAX_DH_LEN], bad[DHCHAP_MAX_DH_LEN];
	static uint8_t sa[DHCHAP_MAX_DH_LEN], sb[DHCHAP_MAX_DH_LEN];

	(void)state;
	assert_int_equal(dhchap_dh_len(DHCHAP_DH_NULL), 0);
	assert_int_equal(dhchap_dh_len(6), -1);
	for (uint8_t g = DHCHAP_FFDHE2048; g <= DHCHAP_FFDHE8192; g++) {
		struct dhchap_dh *a, *b;
		size_t la, lb, ka, kb;
		size_t glen = (size_t)dhchap_dh_len(g);

		assert_int_equal(dhchap_dh_new(g, &a, pa, &la), 0);
		assert_int_equal(dhchap_dh_new(g, &b, pb, &lb), 0);
		assert_int_equal(la, glen);
		assert_int_equal(lb, glen);
		assert_memory_not_equal(pa, pb, glen);
		assert_int_equal(dhchap_dh_derive(a, pb, lb, sa, &ka), 0);
		assert_int_equal(dhchap_dh_derive(b, pa, la, sb, &kb), 0);
		assert_int_equal(ka, glen);
		assert_int_equal(kb, glen);
		assert_memory_equal(sa, sb, glen);
		/* Peer values out of range: 0, 1, >= p; and a short one. */
		memset(bad, 0, glen);
		assert_int_not_equal(dhchap_dh_derive(a, bad, glen, sa, &ka), 0);
		bad[glen - 1] = 1;
		assert_int_not_equal(dhchap_dh_derive(a, bad, glen, sa, &ka), 0);
		memset(bad, 0xff, glen);
		assert_int_not_equal(dhchap_dh_derive(a, bad, glen, sa, &ka), 0);
		assert_int_equal(dhchap_dh_derive(a, pb, glen - 1, sa, &ka), -EINVAL);
		dhchap_dh_free(a);
		dhchap_dh_free(b);
	}
	assert_int_equal(dhchap_dh_new(DHCHAP_DH_NULL, &(struct dhchap_dh *){ NULL }, pa,
				       &(size_t){ 0 }),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good), cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_transform),  cmocka_unit_test(test_responses),
		cmocka_unit_test(test_dh_groups),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
