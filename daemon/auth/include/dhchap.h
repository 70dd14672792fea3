/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DH-HMAC-CHAP (NVMe 2.0 in-band authentication, TP 8006), the parts both
 * ends compute: secrets in the DHHC-1 representation, the key transform,
 * the host's and the controller's responses, the augmented challenge and
 * the FFDHE exchange. Every primitive is OpenSSL's (EVP_MAC HMAC,
 * EVP_Digest, EVP_PKEY DH with the named ffdhe groups).
 *
 * Functions returning int return 0 or -errno (-EINVAL: bad input,
 * -EIO: the crypto library failed).
 */
#ifndef BLOX_DHCHAP_H
#define BLOX_DHCHAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Hash function ids (HMAC) and DH group ids as the protocol numbers them. */
enum dhchap_hash {
	DHCHAP_HASH_NONE = 0, /* in a secret: use the key as it is */
	DHCHAP_SHA256 = 1,
	DHCHAP_SHA384 = 2,
	DHCHAP_SHA512 = 3,
};
enum dhchap_dhgroup {
	DHCHAP_DH_NULL = 0,
	DHCHAP_FFDHE2048 = 1,
	DHCHAP_FFDHE3072 = 2,
	DHCHAP_FFDHE4096 = 3,
	DHCHAP_FFDHE6144 = 4,
	DHCHAP_FFDHE8192 = 5,
};
#define DHCHAP_MAX_HASH_LEN 64
#define DHCHAP_MAX_DH_LEN 1024 /* ffdhe8192 */
/* "DHHC-1:03:" + base64 of 68 bytes + ":" and a NUL. */
#define DHCHAP_KEY_STR_MAX 112

/* A secret as DHHC-1 carries it: 32, 48 or 64 bytes and its transform hash. */
struct dhchap_key {
	uint8_t hash; /* enum dhchap_hash */
	uint8_t len;
	uint8_t key[64];
};

/* Digest length of @hash (0: unknown) and its name ("sha256"; NULL: unknown). */
size_t dhchap_hash_len(uint8_t hash);
const char *dhchap_hash_name(uint8_t hash);
/* Public value length of @dhgid (0 for the null group), -1 if unknown. */
int dhchap_dh_len(uint8_t dhgid);
const char *dhchap_dh_name(uint8_t dhgid);

/*
 * Parse "DHHC-1:XX:<base64 of key and its CRC-32>:". On error @why (if
 * not NULL) says what is wrong; the secret never appears in it.
 */
int dhchap_key_parse(const char *s, struct dhchap_key *k, const char **why);
/* Format @k as DHHC-1 into @out (DHCHAP_KEY_STR_MAX bytes). */
int dhchap_key_format(const struct dhchap_key *k, char *out, size_t cap);
/*
 * The transformed key: the secret itself for hash 0, else
 * HMAC-<hash>(secret, @nqn || "NVMe-over-Fabrics"). @out holds
 * DHCHAP_MAX_HASH_LEN bytes; its length in *@len.
 */
int dhchap_key_transform(const struct dhchap_key *k, const char *nqn,
			 uint8_t *out, size_t *len);
/* HMAC-@hash(H(@skey), @chal) into @aug: the challenge with a DH session key. */
int dhchap_augment(uint8_t hash, const uint8_t *skey, size_t skey_len,
		   const uint8_t *chal, uint8_t *aug);

/* What a response is computed over. */
struct dhchap_resp_in {
	uint8_t hash; /* negotiated */
	const struct dhchap_key *key;
	const uint8_t *chal; /* hash-length challenge (C1 or C2) */
	uint32_t seq; /* S1 or S2 */
	uint16_t tid;
	const char *hostnqn, *subnqn;
	const uint8_t *skey; /* DH session key; NULL with the null group */
	size_t skey_len;
};
/* The host's response R1 to C1 (host key, "HostHost") into @out (hash length). */
int dhchap_host_response(const struct dhchap_resp_in *in, uint8_t *out);
/* The controller's response R2 to C2 (controller key, "Controller"). */
int dhchap_ctrl_response(const struct dhchap_resp_in *in, uint8_t *out);

/* An ephemeral FFDHE key pair. */
struct dhchap_dh;
/* New key pair of @dhgid (not the null group); its public value in @pub. */
int dhchap_dh_new(uint8_t dhgid, struct dhchap_dh **out, uint8_t *pub, size_t *pub_len);
/*
 * The shared secret with the peer's public value @peer (which must be as
 * long as the group and in range), zero-padded to the group length.
 */
int dhchap_dh_derive(struct dhchap_dh *dh, const uint8_t *peer, size_t peer_len,
		     uint8_t *skey, size_t *skey_len);
void dhchap_dh_free(struct dhchap_dh *dh);

/* Random bytes (challenges) from the crypto library's generator. */
int dhchap_random(void *buf, size_t len);
/* Constant-time comparison. */
bool dhchap_equal(const void *a, const void *b, size_t len);
/* Wipe @len bytes of @p. */
void dhchap_wipe(void *p, size_t len);

#endif
