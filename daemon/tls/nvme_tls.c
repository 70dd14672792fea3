/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP TLS PSKs: the interchange format with its CRC-32, the retained
 * PSK, the PSK digest and identity, the TLS PSK (see nvme_tls.h). The
 * HKDF and HMAC are OpenSSL's (EVP_KDF "HKDF", EVP_Q_mac); only the
 * framing (RFC 8446 HkdfLabel, the identity text) is ours.
 */
#include "nvme_tls.h"

#include <errno.h>
#include <isa-l/crc.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/params.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY_PREFIX "NVMeTLSkey-1:"

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

void nvme_tls_wipe(void *p, size_t len)
{
	OPENSSL_cleanse(p, len);
}

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32()) the format appends: ISA-L's. */
static uint32_t key_crc32(const uint8_t *p, size_t len)
{
	return crc32_gzip_refl(0, p, len);
}

static const char *md_name(uint8_t hash)
{
	return hash == NVME_TLS_HASH_SHA256 ? "SHA256"
	       : hash == NVME_TLS_HASH_SHA384 ? "SHA384"
					       : NULL;
}

static size_t md_len(uint8_t hash)
{
	return hash == NVME_TLS_HASH_SHA256 ? 32 : hash == NVME_TLS_HASH_SHA384 ? 48 : 0;
}

const char *nvme_tls_cipher_name(uint8_t hash)
{
	return hash == NVME_TLS_HASH_SHA256 ? "TLS_AES_128_GCM_SHA256"
	       : hash == NVME_TLS_HASH_SHA384 ? "TLS_AES_256_GCM_SHA384"
					       : NULL;
}

uint8_t nvme_tls_key_cipher_hash(const struct nvme_tls_key *k)
{
	return k->len == 48 ? NVME_TLS_HASH_SHA384 : NVME_TLS_HASH_SHA256;
}

int nvme_tls_key_parse(const char *text, struct nvme_tls_key *k, char *err, size_t errlen)
{
	uint8_t raw[NVME_TLS_KEY_MAX + 4 + 3];
	const char *b64, *end;
	size_t blen, pad = 0;
	uint32_t crc, want;
	uint8_t len;
	int n;

	memset(k, 0, sizeof(*k));
	if (strncmp(text, KEY_PREFIX, strlen(KEY_PREFIX)))
		return fail(err, errlen, "not a TLS PSK: expected '" KEY_PREFIX "HH:...:'");
	text += strlen(KEY_PREFIX);
	if (text[0] < '0' || text[0] > '9' || text[1] < '0' || text[1] > '9' || text[2] != ':')
		return fail(err, errlen, "TLS PSK: expected a two-digit hash indicator");
	k->hash = (uint8_t)((text[0] - '0') * 10 + (text[1] - '0'));
	if (k->hash > NVME_TLS_HASH_SHA384)
		return fail(err, errlen,
			    "TLS PSK: hash indicator %02u (00 none, 01 SHA-256, 02 SHA-384)",
			    k->hash);
	b64 = text + 3;
	end = strchr(b64, ':');
	if (!end || end[1])
		return fail(err, errlen, "TLS PSK: expected ':' after the key, and nothing more");
	blen = (size_t)(end - b64);
	/* 32 or 48 bytes and the CRC: 48 or 72 characters of base64. */
	if (blen != 48 && blen != 72)
		return fail(err, errlen, "TLS PSK: the key must be 32 or 48 bytes (%zu characters of base64)",
			    blen);
	for (size_t i = 0; i < blen; i++) {
		char c = b64[i];

		if (c == '=' && i + 2 >= blen) {
			pad++;
			continue;
		}
		if (pad || !((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			     (c >= '0' && c <= '9') || c == '+' || c == '/'))
			return fail(err, errlen, "TLS PSK: not base64");
	}
	n = EVP_DecodeBlock(raw, (const unsigned char *)b64, (int)blen);
	if (n < 0 || (size_t)n < pad + 4)
		return fail(err, errlen, "TLS PSK: not base64");
	n -= (int)pad;
	if (n != 36 && n != 52) {
		nvme_tls_wipe(raw, sizeof(raw));
		return fail(err, errlen, "TLS PSK: the key must be 32 or 48 bytes, not %d", n - 4);
	}
	len = (uint8_t)(n - 4);
	if ((k->hash == NVME_TLS_HASH_SHA256 && len != 32) ||
	    (k->hash == NVME_TLS_HASH_SHA384 && len != 48)) {
		nvme_tls_wipe(raw, sizeof(raw));
		return fail(err, errlen, "TLS PSK: hash indicator %02u wants a %u-byte key, not %u",
			    k->hash, k->hash == NVME_TLS_HASH_SHA256 ? 32u : 48u, len);
	}
	want = (uint32_t)raw[len] | (uint32_t)raw[len + 1] << 8 | (uint32_t)raw[len + 2] << 16 |
	       (uint32_t)raw[len + 3] << 24;
	crc = key_crc32(raw, len);
	if (crc != want) {
		nvme_tls_wipe(raw, sizeof(raw));
		return fail(err, errlen, "TLS PSK: CRC-32 does not match (a typo in the key?)");
	}
	k->len = len;
	memcpy(k->key, raw, len);
	nvme_tls_wipe(raw, sizeof(raw));
	return 0;
}

int nvme_tls_key_format(const struct nvme_tls_key *k, char *out, size_t outlen)
{
	uint8_t raw[NVME_TLS_KEY_MAX + 4];
	char b64[80];
	uint32_t crc;
	int n;

	if ((k->len != 32 && k->len != 48) || k->hash > NVME_TLS_HASH_SHA384)
		return -EINVAL;
	memcpy(raw, k->key, k->len);
	crc = key_crc32(k->key, k->len);
	for (int i = 0; i < 4; i++)
		raw[k->len + i] = (uint8_t)(crc >> (8 * i));
	n = EVP_EncodeBlock((unsigned char *)b64, raw, k->len + 4);
	nvme_tls_wipe(raw, sizeof(raw));
	if (n < 0 || snprintf(out, outlen, KEY_PREFIX "%02u:%s:", k->hash, b64) >= (int)outlen) {
		nvme_tls_wipe(b64, sizeof(b64));
		return -EINVAL;
	}
	nvme_tls_wipe(b64, sizeof(b64));
	return 0;
}

int nvme_tls_hkdf_label(uint8_t hash, const uint8_t *ikm, size_t ikmlen, const char *label,
			const uint8_t *ctx, size_t ctxlen, uint8_t *out, size_t outlen)
{
	static const uint8_t zero_salt[NVME_TLS_KEY_MAX];
	uint8_t info[2 + 1 + 255 + 1 + 255];
	size_t llen = 6 + strlen(label), ilen = 0;
	OSSL_PARAM params[6], *p = params;
	EVP_KDF_CTX *kctx;
	EVP_KDF *kdf;
	int mode = EVP_KDF_HKDF_MODE_EXTRACT_AND_EXPAND, ok;

	if (!md_name(hash) || llen > 255 || ctxlen > 255 || outlen > 0xffff)
		return -EINVAL;
	/* RFC 8446 HkdfLabel: length, "tls13 " + label, context. */
	info[ilen++] = (uint8_t)(outlen >> 8);
	info[ilen++] = (uint8_t)outlen;
	info[ilen++] = (uint8_t)llen;
	memcpy(info + ilen, "tls13 ", 6);
	memcpy(info + ilen + 6, label, llen - 6);
	ilen += llen;
	info[ilen++] = (uint8_t)ctxlen;
	memcpy(info + ilen, ctx, ctxlen);
	ilen += ctxlen;

	kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
	kctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
	EVP_KDF_free(kdf);
	if (!kctx)
		return -ENOMEM;
	*p++ = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)md_name(hash), 0);
	*p++ = OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode);
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)ikm, ikmlen);
	/* HKDF-Extract(0, ...): a salt of hash-length zeros. */
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)zero_salt,
						 md_len(hash));
	*p++ = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info, ilen);
	*p = OSSL_PARAM_construct_end();
	ok = EVP_KDF_derive(kctx, out, outlen, params);
	EVP_KDF_CTX_free(kctx);
	return ok > 0 ? 0 : -EINVAL;
}

int nvme_tls_retained(const struct nvme_tls_key *k, const char *hostnqn, uint8_t *out)
{
	if (k->hash == NVME_TLS_HASH_NONE) {
		memcpy(out, k->key, k->len);
		return 0;
	}
	return nvme_tls_hkdf_label(k->hash, k->key, k->len, "HostNQN", (const uint8_t *)hostnqn,
				   strlen(hostnqn), out, k->len);
}

int nvme_tls_digest(uint8_t hash, const uint8_t *retained, size_t len, const char *hostnqn,
		    const char *subnqn, char *out, size_t outlen)
{
	size_t hl = strlen(hostnqn), sl = strlen(subnqn), dlen = 0;
	static const char seed[] = " NVMe-over-Fabrics";
	uint8_t mac[NVME_TLS_KEY_MAX];
	char *msg;
	int rc = -EINVAL;

	if (!md_name(hash) || outlen < 4 * ((md_len(hash) + 2) / 3) + 1)
		return -EINVAL;
	msg = malloc(hl + 1 + sl + sizeof(seed));
	if (!msg)
		return -ENOMEM;
	memcpy(msg, hostnqn, hl);
	msg[hl] = ' ';
	memcpy(msg + hl + 1, subnqn, sl);
	memcpy(msg + hl + 1 + sl, seed, sizeof(seed) - 1);
	if (EVP_Q_mac(NULL, "HMAC", NULL, md_name(hash), NULL, retained, len,
		      (const unsigned char *)msg, hl + 1 + sl + sizeof(seed) - 1, mac,
		      sizeof(mac), &dlen) &&
	    dlen == md_len(hash)) {
		EVP_EncodeBlock((unsigned char *)out, mac, (int)dlen);
		rc = 0;
	}
	free(msg);
	nvme_tls_wipe(mac, sizeof(mac));
	return rc;
}

static bool nqn_ok(const char *nqn)
{
	size_t n = strlen(nqn);

	return n > 0 && n < NVME_TLS_NQN_MAX && !strchr(nqn, ' ');
}

int nvme_tls_psk_make(const struct nvme_tls_key *k, const char *hostnqn, const char *subnqn,
		      int version, struct nvme_tls_psk *out)
{
	uint8_t retained[NVME_TLS_KEY_MAX];
	char digest[68], ctx[72];
	const char *c;
	size_t clen;
	int rc;

	memset(out, 0, sizeof(*out));
	if ((version != 0 && version != 1) || !nqn_ok(hostnqn) || !nqn_ok(subnqn) ||
	    (k->len != 32 && k->len != 48))
		return -EINVAL;
	out->hash = nvme_tls_key_cipher_hash(k);
	out->len = (uint8_t)md_len(out->hash);
	rc = nvme_tls_retained(k, hostnqn, retained);
	if (!rc && version == 1)
		rc = nvme_tls_digest(out->hash, retained, k->len, hostnqn, subnqn, digest,
				     sizeof(digest));
	if (rc)
		goto out;
	if (version == 1) {
		snprintf(out->identity, sizeof(out->identity), "NVMe1R%02u %s %s %s", out->hash,
			 hostnqn, subnqn, digest);
		clen = (size_t)snprintf(ctx, sizeof(ctx), "%02u %s", out->hash, digest);
		c = ctx;
	} else {
		snprintf(out->identity, sizeof(out->identity), "NVMe0R%02u %s %s", out->hash,
			 hostnqn, subnqn);
		c = out->identity;
		clen = strlen(c);
	}
	rc = nvme_tls_hkdf_label(out->hash, retained, k->len, "nvme-tls-psk",
				 (const uint8_t *)c, clen, out->psk, out->len);
out:
	nvme_tls_wipe(retained, sizeof(retained));
	if (rc)
		nvme_tls_wipe(out, sizeof(*out));
	return rc;
}

/* The next space-delimited field of [*p, end) into @dst; -EINVAL if empty or too long. */
static int field(const char **p, const char *end, char *dst, size_t dlen)
{
	const char *s = *p, *e = memchr(s, ' ', (size_t)(end - s));
	size_t n;

	if (!e)
		e = end;
	n = (size_t)(e - s);
	if (n == 0 || n >= dlen || memchr(s, '\0', n))
		return -EINVAL;
	memcpy(dst, s, n);
	dst[n] = '\0';
	*p = e < end ? e + 1 : end;
	return 0;
}

int nvme_tls_ident_parse(const char *id, size_t len, struct nvme_tls_ident *out)
{
	const char *end = id + len, *p = id;

	memset(out, 0, sizeof(out[0]));
	/* "NVMe" version 'R' hh ' ' (retained PSKs only: 'G' is DH-HMAC-CHAP's). */
	if (len < 9 || memcmp(id, "NVMe", 4) || (id[4] != '0' && id[4] != '1') || id[5] != 'R' ||
	    id[6] != '0' || (id[7] != '1' && id[7] != '2') || id[8] != ' ')
		return -EINVAL;
	out->version = id[4] - '0';
	out->hash = (uint8_t)(id[7] - '0');
	p = id + 9;
	if (field(&p, end, out->hostnqn, sizeof(out->hostnqn)) ||
	    field(&p, end, out->subnqn, sizeof(out->subnqn)))
		return -EINVAL;
	if (out->version == 1 && field(&p, end, out->digest, sizeof(out->digest)))
		return -EINVAL;
	return p == end && (p == id + len) && end[-1] != ' ' ? 0 : -EINVAL;
}
