/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TLS 1.3 pre-shared keys of NVMe/TCP (NVMe TCP Transport Specification
 * 1.0 section 3.6, TP 8011 and TP 8018):
 *
 *   configured PSK   "NVMeTLSkey-1:HH:<base64(key || crc32(key))>:" where
 *                    HH is 00 (no transform), 01 (SHA-256, 32-byte key) or
 *                    02 (SHA-384, 48-byte key)
 *   retained PSK     HKDF-Expand-Label(HKDF-Extract(0, configured),
 *                    "HostNQN", hostnqn, len) (HH 00: the configured PSK)
 *   PSK digest       base64(HMAC-hash(retained, hostnqn " " subnqn
 *                    " NVMe-over-Fabrics"))
 *   PSK identity     "NVMe1R<hh> <hostnqn> <subnqn> <digest>" (version 1)
 *                    or "NVMe0R<hh> <hostnqn> <subnqn>" (version 0)
 *   TLS PSK          HKDF-Expand-Label(HKDF-Extract(0, retained),
 *                    "nvme-tls-psk", context, hash length), the context
 *                    "<hh> <digest>" (version 1) or the identity (version 0)
 *
 * hh is the hash of the cipher suite: 01 SHA-256 (TLS_AES_128_GCM_SHA256)
 * for a 32-byte key, 02 SHA-384 (TLS_AES_256_GCM_SHA384) for a 48-byte one.
 * HKDF-Expand-Label is RFC 8446's (length-prefixed label and context).
 * Every function returns 0 or -EINVAL (a reason in @err where it takes one).
 */
#ifndef BLOX_NVME_TLS_H
#define BLOX_NVME_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NVME_TLS_KEY_MAX 48
#define NVME_TLS_NQN_MAX 224
/* "NVMe1Rhh " + two NQNs + spaces + base64 of a 48-byte digest + NUL. */
#define NVME_TLS_IDENTITY_MAX (9 + 2 * NVME_TLS_NQN_MAX + 2 + 66)
/* The longest interchange text: 48 + 4 bytes in base64 and the frame. */
#define NVME_TLS_KEY_TEXT_MAX 96

enum nvme_tls_hash {
	NVME_TLS_HASH_NONE = 0, /* interchange: configured PSK kept as is */
	NVME_TLS_HASH_SHA256 = 1,
	NVME_TLS_HASH_SHA384 = 2,
};

/* A configured PSK, as the interchange format carries it. */
struct nvme_tls_key {
	uint8_t hash; /* enum nvme_tls_hash: how the retained PSK is made */
	uint8_t len; /* 32 or 48 */
	uint8_t key[NVME_TLS_KEY_MAX];
};

/* What a PSK identity names. */
struct nvme_tls_ident {
	int version; /* 0 or 1 */
	uint8_t hash; /* 1 or 2: the cipher suite's */
	char hostnqn[NVME_TLS_NQN_MAX];
	char subnqn[NVME_TLS_NQN_MAX];
	char digest[68]; /* version 1 only */
};

/* An identity and its TLS PSK, ready for the handshake. */
struct nvme_tls_psk {
	char identity[NVME_TLS_IDENTITY_MAX];
	uint8_t hash; /* 1 or 2 */
	uint8_t len; /* 32 or 48 */
	uint8_t psk[NVME_TLS_KEY_MAX];
};

int nvme_tls_key_parse(const char *text, struct nvme_tls_key *k, char *err, size_t errlen);
/* @k as interchange text into @out (NVME_TLS_KEY_TEXT_MAX bytes is enough). */
int nvme_tls_key_format(const struct nvme_tls_key *k, char *out, size_t outlen);
/* The cipher suite's hash for @k: from its length. */
uint8_t nvme_tls_key_cipher_hash(const struct nvme_tls_key *k);
/* The retained PSK of @k for @hostnqn (k->len bytes). */
int nvme_tls_retained(const struct nvme_tls_key *k, const char *hostnqn, uint8_t *out);
/* The PSK digest (base64) of a retained PSK under @hash. */
int nvme_tls_digest(uint8_t hash, const uint8_t *retained, size_t len, const char *hostnqn,
		    const char *subnqn, char *out, size_t outlen);
/* HKDF-Expand-Label(HKDF-Extract(0, @ikm), @label, @ctx, @outlen) under @hash. */
int nvme_tls_hkdf_label(uint8_t hash, const uint8_t *ikm, size_t ikmlen, const char *label,
			const uint8_t *ctx, size_t ctxlen, uint8_t *out, size_t outlen);
/*
 * The identity (@version 0 or 1) and TLS PSK of @k between @hostnqn and
 * @subnqn: what both ends compute.
 */
int nvme_tls_psk_make(const struct nvme_tls_key *k, const char *hostnqn, const char *subnqn,
		      int version, struct nvme_tls_psk *out);
/* Parse an identity of @len bytes (not NUL-terminated on the wire). */
int nvme_tls_ident_parse(const char *id, size_t len, struct nvme_tls_ident *out);
/* "TLS_AES_128_GCM_SHA256" (1) or "TLS_AES_256_GCM_SHA384" (2); NULL otherwise. */
const char *nvme_tls_cipher_name(uint8_t hash);
/* Overwrite @p (secrets) so that the compiler keeps the stores. */
void nvme_tls_wipe(void *p, size_t len);

#endif
