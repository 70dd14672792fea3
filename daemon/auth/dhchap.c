/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DH-HMAC-CHAP's computations on OpenSSL: see dhchap.h.
 */
#include "dhchap.h"

#include <errno.h>
#include <isa-l/crc.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/dh.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DHHC_PREFIX "DHHC-1:"

static const struct {
	const char *name, *ossl;
	size_t len;
} hashes[] = {
	[DHCHAP_SHA256] = { "sha256", "SHA256", 32 },
	[DHCHAP_SHA384] = { "sha384", "SHA384", 48 },
	[DHCHAP_SHA512] = { "sha512", "SHA512", 64 },
};

static const struct {
	const char *name;
	int len;
} groups[] = {
	[DHCHAP_DH_NULL] = { "null", 0 },
	[DHCHAP_FFDHE2048] = { "ffdhe2048", 256 },
	[DHCHAP_FFDHE3072] = { "ffdhe3072", 384 },
	[DHCHAP_FFDHE4096] = { "ffdhe4096", 512 },
	[DHCHAP_FFDHE6144] = { "ffdhe6144", 768 },
	[DHCHAP_FFDHE8192] = { "ffdhe8192", 1024 },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

size_t dhchap_hash_len(uint8_t hash)
{
	return hash < NELEM(hashes) && hashes[hash].name ? hashes[hash].len : 0;
}

const char *dhchap_hash_name(uint8_t hash)
{
	return hash < NELEM(hashes) ? hashes[hash].name : NULL;
}

int dhchap_dh_len(uint8_t dhgid)
{
	return dhgid < NELEM(groups) ? groups[dhgid].len : -1;
}

const char *dhchap_dh_name(uint8_t dhgid)
{
	return dhgid < NELEM(groups) ? groups[dhgid].name : NULL;
}

static uint32_t crc32_le(const uint8_t *p, size_t len)
{
	/* The CRC-32 of zlib and of the Linux key check. */
	return crc32_gzip_refl(0, p, len);
}

static int fail(const char **why, const char *msg)
{
	if (why)
		*why = msg;
	return -EINVAL;
}

int dhchap_key_parse(const char *s, struct dhchap_key *k, const char **why)
{
	uint8_t raw[80]; /* up to 68 bytes decode, 3-byte groups */
	const char *b64, *end;
	size_t n, pad = 0;
	int len;
	uint32_t crc;

	memset(k, 0, sizeof(*k));
	if (strncmp(s, DHHC_PREFIX, strlen(DHHC_PREFIX)))
		return fail(why, "not a DHHC-1 secret (DHHC-1:XX:<base64>:)");
	s += strlen(DHHC_PREFIX);
	if (s[0] != '0' || s[1] < '0' || s[1] > '3' || s[2] != ':')
		return fail(why, "its transform hash must be 00, 01, 02 or 03");
	k->hash = (uint8_t)(s[1] - '0');
	b64 = s + 3;
	end = strchr(b64, ':');
	if (!end || end[1] != '\0')
		return fail(why, "it must end with ':'");
	n = (size_t)(end - b64);
	/* 36, 52 or 68 bytes: 48, 72 or 92 base64 characters. */
	if (n != 48 && n != 72 && n != 92)
		return fail(why, "its key must be 32, 48 or 64 bytes with a CRC-32");
	for (size_t i = 0; i < n; i++) {
		char c = b64[i];

		if (c == '=' && i >= n - 2) {
			pad++;
			continue;
		}
		if (pad || !(('A' <= c && c <= 'Z') || ('a' <= c && c <= 'z') ||
			     ('0' <= c && c <= '9') || c == '+' || c == '/'))
			return fail(why, "its key is not base64");
	}
	len = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)n);
	if (len < 0)
		return fail(why, "its key is not base64");
	len -= (int)pad;
	if (len != 36 && len != 52 && len != 68) {
		dhchap_wipe(raw, sizeof(raw));
		return fail(why, "its key must be 32, 48 or 64 bytes with a CRC-32");
	}
	k->len = (uint8_t)(len - 4);
	crc = crc32_le(raw, k->len);
	if (raw[k->len] != (uint8_t)crc || raw[k->len + 1] != (uint8_t)(crc >> 8) ||
	    raw[k->len + 2] != (uint8_t)(crc >> 16) || raw[k->len + 3] != (uint8_t)(crc >> 24)) {
		dhchap_wipe(raw, sizeof(raw));
		memset(k, 0, sizeof(*k));
		return fail(why, "its CRC-32 does not match (mistyped?)");
	}
	if (k->hash && k->len != dhchap_hash_len(k->hash)) {
		dhchap_wipe(raw, sizeof(raw));
		memset(k, 0, sizeof(*k));
		return fail(why, "its key length does not match its transform hash "
				 "(01: 32, 02: 48, 03: 64 bytes)");
	}
	memcpy(k->key, raw, k->len);
	dhchap_wipe(raw, sizeof(raw));
	return 0;
}

int dhchap_key_format(const struct dhchap_key *k, char *out, size_t cap)
{
	uint8_t raw[68];
	char b64[96];
	uint32_t crc;
	int n;

	if (k->hash > DHCHAP_SHA512 || (k->len != 32 && k->len != 48 && k->len != 64))
		return -EINVAL;
	memcpy(raw, k->key, k->len);
	crc = crc32_le(k->key, k->len);
	for (int i = 0; i < 4; i++)
		raw[k->len + i] = (uint8_t)(crc >> (8 * i));
	n = EVP_EncodeBlock((unsigned char *)b64, raw, k->len + 4);
	dhchap_wipe(raw, sizeof(raw));
	if (n < 0 || snprintf(out, cap, DHHC_PREFIX "%02u:%s:", k->hash, b64) >= (int)cap) {
		dhchap_wipe(b64, sizeof(b64));
		return -EINVAL;
	}
	dhchap_wipe(b64, sizeof(b64));
	return 0;
}

/* HMAC-@hash over the @n pieces of @parts with @key. */
struct piece {
	const void *p;
	size_t len;
};

static int hmac(uint8_t hash, const uint8_t *key, size_t key_len,
		const struct piece *parts, size_t n, uint8_t *out)
{
	OSSL_PARAM params[2];
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx = NULL;
	size_t outl = 0;
	int rc = -EIO;

	if (!dhchap_hash_len(hash))
		return -EINVAL;
	mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!mac)
		return -EIO;
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						     (char *)hashes[hash].ossl, 0);
	params[1] = OSSL_PARAM_construct_end();
	ctx = EVP_MAC_CTX_new(mac);
	if (!ctx || !EVP_MAC_init(ctx, key, key_len, params))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (!EVP_MAC_update(ctx, parts[i].p, parts[i].len))
			goto out;
	if (EVP_MAC_final(ctx, out, &outl, DHCHAP_MAX_HASH_LEN) &&
	    outl == dhchap_hash_len(hash))
		rc = 0;
out:
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return rc;
}

int dhchap_key_transform(const struct dhchap_key *k, const char *nqn,
			 uint8_t *out, size_t *len)
{
	static const char tag[] = "NVMe-over-Fabrics";
	struct piece parts[] = { { nqn, strlen(nqn) }, { tag, sizeof(tag) - 1 } };
	int rc;

	if (k->hash == DHCHAP_HASH_NONE) {
		memcpy(out, k->key, k->len);
		*len = k->len;
		return 0;
	}
	rc = hmac(k->hash, k->key, k->len, parts, 2, out);
	*len = rc ? 0 : dhchap_hash_len(k->hash);
	return rc;
}

int dhchap_augment(uint8_t hash, const uint8_t *skey, size_t skey_len,
		   const uint8_t *chal, uint8_t *aug)
{
	uint8_t hkey[DHCHAP_MAX_HASH_LEN];
	unsigned int hl = 0;
	struct piece part = { chal, dhchap_hash_len(hash) };
	int rc;

	if (!part.len)
		return -EINVAL;
	if (!EVP_Digest(skey, skey_len, hkey, &hl,
			EVP_get_digestbyname(hashes[hash].ossl), NULL) ||
	    hl != part.len)
		return -EIO;
	rc = hmac(hash, hkey, hl, &part, 1, aug);
	dhchap_wipe(hkey, sizeof(hkey));
	return rc;
}

/*
 * HMAC(transformed key, C || S || T || 0 || @tag || @nqn_a || 0 || @nqn_b),
 * C augmented with the session key when there is one; the key is
 * transformed with @key_nqn.
 */
static int response(const struct dhchap_resp_in *in, const char *tag,
		    const char *key_nqn, const char *nqn_a, const char *nqn_b,
		    uint8_t *out)
{
	uint8_t tkey[DHCHAP_MAX_HASH_LEN], aug[DHCHAP_MAX_HASH_LEN];
	uint8_t seq[4], tid[2], zero = 0;
	size_t hl = dhchap_hash_len(in->hash), tlen;
	const uint8_t *chal = in->chal;
	int rc;

	if (!hl)
		return -EINVAL;
	if (in->skey) {
		rc = dhchap_augment(in->hash, in->skey, in->skey_len, in->chal, aug);
		if (rc)
			return rc;
		chal = aug;
	}
	rc = dhchap_key_transform(in->key, key_nqn, tkey, &tlen);
	if (!rc) {
		for (int i = 0; i < 4; i++)
			seq[i] = (uint8_t)(in->seq >> (8 * i));
		tid[0] = (uint8_t)in->tid;
		tid[1] = (uint8_t)(in->tid >> 8);
		struct piece parts[] = {
			{ chal, hl },	    { seq, 4 },	  { tid, 2 },
			{ &zero, 1 },	    { tag, strlen(tag) },
			{ nqn_a, strlen(nqn_a) }, { &zero, 1 },
			{ nqn_b, strlen(nqn_b) },
		};
		rc = hmac(in->hash, tkey, tlen, parts, NELEM(parts), out);
	}
	dhchap_wipe(tkey, sizeof(tkey));
	dhchap_wipe(aug, sizeof(aug));
	return rc;
}

int dhchap_host_response(const struct dhchap_resp_in *in, uint8_t *out)
{
	return response(in, "HostHost", in->hostnqn, in->hostnqn, in->subnqn, out);
}

int dhchap_ctrl_response(const struct dhchap_resp_in *in, uint8_t *out)
{
	return response(in, "Controller", in->subnqn, in->subnqn, in->hostnqn, out);
}

struct dhchap_dh {
	EVP_PKEY *pkey;
	size_t len;
};

int dhchap_dh_new(uint8_t dhgid, struct dhchap_dh **out, uint8_t *pub, size_t *pub_len)
{
	OSSL_PARAM params[2];
	EVP_PKEY_CTX *ctx;
	struct dhchap_dh *dh;
	unsigned char *enc = NULL;
	size_t n;

	*out = NULL;
	if (dhchap_dh_len(dhgid) <= 0)
		return -EINVAL;
	dh = calloc(1, sizeof(*dh));
	if (!dh)
		return -ENOMEM;
	dh->len = (size_t)dhchap_dh_len(dhgid);
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "DH", NULL);
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_PKEY_PARAM_GROUP_NAME,
						     (char *)groups[dhgid].name, 0);
	params[1] = OSSL_PARAM_construct_end();
	if (!ctx || EVP_PKEY_keygen_init(ctx) <= 0 ||
	    !EVP_PKEY_CTX_set_params(ctx, params) || EVP_PKEY_generate(ctx, &dh->pkey) <= 0)
		goto fail;
	EVP_PKEY_CTX_free(ctx);
	ctx = NULL;
	n = EVP_PKEY_get1_encoded_public_key(dh->pkey, &enc);
	if (n == 0 || n > dh->len)
		goto fail;
	/* Left-padded to the group's length, as the wire carries it. */
	memset(pub, 0, dh->len - n);
	memcpy(pub + dh->len - n, enc, n);
	*pub_len = dh->len;
	OPENSSL_free(enc);
	*out = dh;
	return 0;
fail:
	OPENSSL_free(enc);
	EVP_PKEY_CTX_free(ctx);
	dhchap_dh_free(dh);
	return -EIO;
}

int dhchap_dh_derive(struct dhchap_dh *dh, const uint8_t *peer, size_t peer_len,
		     uint8_t *skey, size_t *skey_len)
{
	EVP_PKEY *pk = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	size_t n = dh->len;
	int rc = -EINVAL;

	if (peer_len != dh->len)
		return -EINVAL;
	pk = EVP_PKEY_new();
	if (!pk || !EVP_PKEY_copy_parameters(pk, dh->pkey) ||
	    !EVP_PKEY_set1_encoded_public_key(pk, peer, peer_len))
		goto out;
	ctx = EVP_PKEY_CTX_new_from_pkey(NULL, dh->pkey, NULL);
	/* The peer's value is checked (1 < y < p - 1, in the subgroup). */
	if (!ctx || EVP_PKEY_derive_init(ctx) <= 0 || EVP_PKEY_CTX_set_dh_pad(ctx, 1) <= 0 ||
	    EVP_PKEY_derive_set_peer_ex(ctx, pk, 1) <= 0)
		goto out;
	if (EVP_PKEY_derive(ctx, skey, &n) <= 0 || n != dh->len) {
		rc = -EIO;
		goto out;
	}
	*skey_len = n;
	rc = 0;
out:
	EVP_PKEY_CTX_free(ctx);
	EVP_PKEY_free(pk);
	return rc;
}

void dhchap_dh_free(struct dhchap_dh *dh)
{
	if (!dh)
		return;
	EVP_PKEY_free(dh->pkey);
	free(dh);
}

int dhchap_random(void *buf, size_t len)
{
	return RAND_bytes(buf, (int)len) == 1 ? 0 : -EIO;
}

bool dhchap_equal(const void *a, const void *b, size_t len)
{
	return CRYPTO_memcmp(a, b, len) == 0;
}

void dhchap_wipe(void *p, size_t len)
{
	OPENSSL_cleanse(p, len);
}
