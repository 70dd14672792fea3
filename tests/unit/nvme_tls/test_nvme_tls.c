/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP TLS PSKs: the interchange format (good keys from the spec and
 * the field, bad CRC, length, hash indicator, framing), the retained PSK,
 * digest, identity and TLS PSK against values computed apart (Python's
 * hmac/hashlib from the formulas in nvme_tls.h) and against OpenSSL's
 * TLS13-KDF, and the identity parser.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <openssl/core_names.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include "nvme_tls.h"

#define HOST "nqn.2014-08.org.nvmexpress:uuid:f81d4fae-7dec-11d0-a765-00a0c91e6bf6"
#define SUB "nqn.2019-07.io.blox:test"
/* The example of the NVMe TCP transport spec and nvme-cli's manual. */
#define KEY_SPEC "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"
/* Bytes 0..47 under SHA-384. */
#define KEY_48                                                                             \
	"NVMeTLSkey-1:02:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vcSEg" \
	"BQ==:"

static void hex(const char *s, uint8_t *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sscanf(s + 2 * i, "%2hhx", &out[i]);
}

static void good_keys(void **state)
{
	static const char *const field[] = {
		KEY_SPEC,
		/* nvme gen-tls-key output, SPDK's and Ceph's test keys. */
		"NVMeTLSkey-1:01:LFKHx3GLh/WxQ3Qix/hiXhgJO/Ixkvwbye6I1Ys3uH5JBiAx:",
		"NVMeTLSkey-1:01:MDAxMTIyMzM0NDU1NjY3Nzg4OTlhYWJiY2NkZGVlZmZwJEiQ:",
		"NVMeTLSkey-1:01:YzrPElk4OYy1uUERriPwiiyEJE/+J5ckYpLB+5NHMsR2iBuT:",
	};
	struct nvme_tls_key k;
	char err[160], text[NVME_TLS_KEY_TEXT_MAX];

	(void)state;
	for (size_t i = 0; i < sizeof(field) / sizeof(field[0]); i++) {
		assert_int_equal(nvme_tls_key_parse(field[i], &k, err, sizeof(err)), 0);
		assert_int_equal(k.hash, 1);
		assert_int_equal(k.len, 32);
		assert_int_equal(nvme_tls_key_cipher_hash(&k), 1);
		/* Formatting gives the same text back. */
		assert_int_equal(nvme_tls_key_format(&k, text, sizeof(text)), 0);
		assert_string_equal(text, field[i]);
	}
	assert_int_equal(nvme_tls_key_parse(
				 "NVMeTLSkey-1:01:MDAxMTIyMzM0NDU1NjY3Nzg4OTlhYWJiY2NkZGVlZmZwJEiQ:",
				 &k, err, sizeof(err)),
			 0);
	assert_memory_equal(k.key, "00112233445566778899aabbccddeeff", 32);
	assert_int_equal(nvme_tls_key_parse(KEY_48, &k, err, sizeof(err)), 0);
	assert_int_equal(k.hash, 2);
	assert_int_equal(k.len, 48);
	for (int i = 0; i < 48; i++)
		assert_int_equal(k.key[i], i);
	assert_int_equal(nvme_tls_key_cipher_hash(&k), 2);
	assert_string_equal(nvme_tls_cipher_name(2), "TLS_AES_256_GCM_SHA384");
	assert_string_equal(nvme_tls_cipher_name(1), "TLS_AES_128_GCM_SHA256");
	assert_null(nvme_tls_cipher_name(3));
	/* 00: no transform, either length. */
	k.hash = 0;
	assert_int_equal(nvme_tls_key_format(&k, text, sizeof(text)), 0);
	assert_int_equal(strncmp(text, "NVMeTLSkey-1:00:", 16), 0);
	assert_int_equal(nvme_tls_key_parse(text, &k, err, sizeof(err)), 0);
	assert_int_equal(k.len, 48);
}

static void bad(const char *text, const char *why)
{
	struct nvme_tls_key k;
	char err[160] = "";

	assert_int_equal(nvme_tls_key_parse(text, &k, err, sizeof(err)), -22);
	if (!strstr(err, why))
		fail_msg("'%s': error '%s' does not say '%s'", text, err, why);
	assert_int_equal(k.len, 0);
}

static void bad_keys(void **state)
{
	(void)state;
	/* One character of the key changed: the CRC catches it. */
	bad("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrA:", "CRC-32");
	bad("NVMeTLSkey-1:01:WRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:", "CRC-32");
	/* Lengths: short, long, 48 bytes under 01, 32 under 02. */
	bad("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWw:", "32 or 48 bytes");
	bad("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZAAAA:", "32 or 48");
	bad("NVMeTLSkey-1:01:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vcSEgBQ==:",
	    "wants a 32-byte key");
	bad("NVMeTLSkey-1:02:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:", "wants a 48-byte");
	/* Hash indicators: 03 (SHA-512 is DH-HMAC-CHAP's, not TLS's), 99, none. */
	bad("NVMeTLSkey-1:03:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:", "hash indicator 03");
	bad("NVMeTLSkey-1:99:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:", "hash indicator");
	bad("NVMeTLSkey-1:1:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:", "two-digit");
	/* Framing. */
	bad("DHHC-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:", "not a TLS PSK");
	bad("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ", "expected ':'");
	bad("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:x", "expected ':'");
	bad("NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9L*Z:", "not base64");
	bad("", "not a TLS PSK");
}

/* Values from an independent computation (Python hmac/hashlib). */
static void derive_known(void **state)
{
	struct nvme_tls_key k;
	struct nvme_tls_psk p;
	uint8_t want[48], retained[48];
	char digest[68];

	(void)state;
	assert_int_equal(nvme_tls_key_parse(KEY_SPEC, &k, NULL, 0), 0);
	assert_int_equal(nvme_tls_retained(&k, HOST, retained), 0);
	hex("f0af1bc718d4f23bdd7c1683a3d79bd953ea789d106a0f5207bb574bbe5446ce", want, 32);
	assert_memory_equal(retained, want, 32);
	assert_int_equal(nvme_tls_digest(1, retained, 32, HOST, SUB, digest, sizeof(digest)), 0);
	assert_string_equal(digest, "QnAQ8MKJv9sB6RVBpDU0tX2Q76dZmwSsgk3P1mscwLc=");

	assert_int_equal(nvme_tls_psk_make(&k, HOST, SUB, 1, &p), 0);
	assert_string_equal(p.identity,
			    "NVMe1R01 " HOST " " SUB " QnAQ8MKJv9sB6RVBpDU0tX2Q76dZmwSsgk3P1mscwLc=");
	assert_int_equal(p.len, 32);
	assert_int_equal(p.hash, 1);
	hex("90c5ddfafeeed7934ac41ddf02a150f1ef0c6ac386032ca7873eed20d0609942", want, 32);
	assert_memory_equal(p.psk, want, 32);

	assert_int_equal(nvme_tls_psk_make(&k, HOST, SUB, 0, &p), 0);
	assert_string_equal(p.identity, "NVMe0R01 " HOST " " SUB);
	hex("a535d107d2b0e9090f1a86414ef2c8bdec5ed6ce116317f547e3177b0ad43cc3", want, 32);
	assert_memory_equal(p.psk, want, 32);

	assert_int_equal(nvme_tls_key_parse(KEY_48, &k, NULL, 0), 0);
	assert_int_equal(nvme_tls_psk_make(&k, HOST, SUB, 1, &p), 0);
	assert_string_equal(p.identity, "NVMe1R02 " HOST " " SUB
					" 3/hjjn3XDPlhtmZtmJFM/u6tjWA1v6srMOvHfymTfKi2jAjgBnIEhNgiwKMCZ8nQ");
	assert_int_equal(p.len, 48);
	hex("9ba14fa6d2458a585154d631bbc57a2faf06defba20da8497bfc14f4f5ad8e69749b8e266c43fc9f"
	    "726a3cf7ccfa655a",
	    want, 48);
	assert_memory_equal(p.psk, want, 48);
	assert_int_equal(nvme_tls_psk_make(&k, HOST, SUB, 0, &p), 0);
	hex("af9efb1db7c2fd2cf554bc3e23a3429be2df2e83cd192354bc463cca388bb5af2a86c2282d5e5ee3"
	    "4225e7a7d011de1b",
	    want, 48);
	assert_memory_equal(p.psk, want, 48);

	/* A different host or subsystem: a different PSK; a bad NQN: refused. */
	{
		struct nvme_tls_psk q;

		assert_int_equal(nvme_tls_psk_make(&k, HOST "x", SUB, 1, &q), 0);
		assert_memory_not_equal(p.psk, q.psk, 48);
		assert_int_equal(nvme_tls_psk_make(&k, "a b", SUB, 1, &q), -22);
		assert_int_equal(nvme_tls_psk_make(&k, HOST, "", 1, &q), -22);
		assert_int_equal(nvme_tls_psk_make(&k, HOST, SUB, 2, &q), -22);
	}
}

/* HKDF-Expand-Label against OpenSSL's own TLS 1.3 KDF (a second path). */
static void hkdf_label_vs_tls13_kdf(void **state)
{
	static const uint8_t ikm[48] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	static const char *const md[] = { NULL, "SHA256", "SHA384" };

	(void)state;
	for (uint8_t h = 1; h <= 2; h++) {
		size_t len = h == 1 ? 32 : 48;
		uint8_t ours[48], prk[48], theirs[48];
		EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
		EVP_KDF_CTX *c = EVP_KDF_CTX_new(kdf);
		OSSL_PARAM p[7];
		int mode = EVP_KDF_HKDF_MODE_EXTRACT_ONLY;

		/* PRK by plain HKDF-Extract (no salt: hash-length zeros)... */
		assert_non_null(c);
		p[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)md[h], 0);
		p[1] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
		p[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, len);
		p[3] = OSSL_PARAM_construct_end();
		assert_int_equal(EVP_KDF_derive(c, prk, len, p), 1);
		EVP_KDF_CTX_free(c);
		EVP_KDF_free(kdf);
		/* ...then the label by the TLS 1.3 KDF's own HkdfLabel. */
		kdf = EVP_KDF_fetch(NULL, "TLS13-KDF", NULL);
		c = EVP_KDF_CTX_new(kdf);
		mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
		p[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)md[h], 0);
		p[1] = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
		p[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, prk, len);
		p[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_PREFIX, "tls13 ", 6);
		p[4] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_LABEL, "HostNQN", 7);
		p[5] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_DATA, HOST, strlen(HOST));
		p[6] = OSSL_PARAM_construct_end();
		assert_int_equal(EVP_KDF_derive(c, theirs, len, p), 1);
		EVP_KDF_CTX_free(c);
		EVP_KDF_free(kdf);
		assert_int_equal(nvme_tls_hkdf_label(h, ikm, len, "HostNQN", (const uint8_t *)HOST,
						     strlen(HOST), ours, len),
				 0);
		assert_memory_equal(ours, theirs, len);
	}
	{
		uint8_t out[32];

		assert_int_equal(nvme_tls_hkdf_label(3, ikm, 32, "x", NULL, 0, out, 32), -22);
	}
}

static void ident(const char *s, int want_rc)
{
	struct nvme_tls_ident id;

	assert_int_equal(nvme_tls_ident_parse(s, strlen(s), &id), want_rc);
}

static void identity_parse(void **state)
{
	struct nvme_tls_ident id;
	const char *s = "NVMe1R02 " HOST " " SUB " abc=";

	(void)state;
	assert_int_equal(nvme_tls_ident_parse(s, strlen(s), &id), 0);
	assert_int_equal(id.version, 1);
	assert_int_equal(id.hash, 2);
	assert_string_equal(id.hostnqn, HOST);
	assert_string_equal(id.subnqn, SUB);
	assert_string_equal(id.digest, "abc=");
	s = "NVMe0R01 " HOST " " SUB;
	assert_int_equal(nvme_tls_ident_parse(s, strlen(s), &id), 0);
	assert_int_equal(id.version, 0);
	assert_int_equal(id.hash, 1);
	assert_string_equal(id.subnqn, SUB);
	/* Length counts, not a NUL: a prefix of a longer identity is not it. */
	assert_int_equal(nvme_tls_ident_parse(s, 20, &id), -22);
	ident("NVMe0R01 " HOST " " SUB " extra", -22);
	ident("NVMe1R01 " HOST " " SUB, -22); /* no digest */
	ident("NVMe1R01 " HOST " " SUB " d ", -22);
	ident("NVMe1G01 " HOST " " SUB " d", -22); /* generated PSKs: not here */
	ident("NVMe1R03 " HOST " " SUB " d", -22);
	ident("NVMe2R01 " HOST " " SUB " d", -22);
	ident("NVMeR01 " HOST " " SUB, -22);
	ident("NVMe0R01  " SUB, -22);
	ident("", -22);
	{
		char big[600];

		memset(big, 'a', sizeof(big));
		memcpy(big, "NVMe0R01 ", 9);
		big[300] = ' ';
		assert_int_equal(nvme_tls_ident_parse(big, sizeof(big), &id), -22);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(good_keys),
		cmocka_unit_test(bad_keys),
		cmocka_unit_test(derive_known),
		cmocka_unit_test(hkdf_label_vs_tls13_kdf),
		cmocka_unit_test(identity_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
