/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the secret and identity parsers an operator or a host
 * hands bloxd (pure functions). The first byte chooses, the rest is the
 * text:
 *   0 a DHHC-1 secret (daemon/auth dhchap_key_parse): one it takes
 *     formats and parses back to the same secret, and formats the same
 *     again; a refusal says why
 *   1 a TLS PSK in the interchange format (daemon/tls nvme_tls_key_parse):
 *     the same round trip; a refusal's reason is a terminated string
 *   2 a TLS PSK identity (nvme_tls_ident_parse, the bytes as the
 *     ClientHello carries them): one it takes is exactly the identity
 *     made from what it names (version, hash, NQNs, digest)
 *   3 two NQNs (NUL between) and a version: the identity
 *     nvme_tls_psk_make computes for the unit tests' key, when it takes
 *     them, parses back to those NQNs
 */
#include "fuzz_util.h"

#include "dhchap.h"
#include "nvme_tls.h"

#define TLS_KEY "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"

static void dhchap(const char *text)
{
	struct dhchap_key k, k2;
	char out[DHCHAP_KEY_STR_MAX], out2[DHCHAP_KEY_STR_MAX];
	const char *why = NULL;

	if (dhchap_key_parse(text, &k, &why)) {
		FUZZ_CHECK(why && *why, "a refusal without a reason");
		return;
	}
	FUZZ_CHECK(dhchap_key_format(&k, out, sizeof(out)) == 0, "format");
	FUZZ_CHECK(dhchap_key_parse(out, &k2, &why) == 0, "%s does not parse: %s", out, why);
	FUZZ_CHECK(memcmp(&k, &k2, sizeof(k)) == 0, "%s parses to another secret", out);
	FUZZ_CHECK(dhchap_key_format(&k2, out2, sizeof(out2)) == 0 && !strcmp(out, out2),
		   "%s formats as %s", out, out2);
}

static void tls_key(const char *text)
{
	struct nvme_tls_key k, k2;
	char out[NVME_TLS_KEY_TEXT_MAX], out2[NVME_TLS_KEY_TEXT_MAX], err[128];

	memset(err, 'x', sizeof(err));
	if (nvme_tls_key_parse(text, &k, err, sizeof(err))) {
		FUZZ_CHECK(memchr(err, '\0', sizeof(err)) && err[0], "a refusal without a reason");
		return;
	}
	FUZZ_CHECK(nvme_tls_key_format(&k, out, sizeof(out)) == 0, "format");
	FUZZ_CHECK(nvme_tls_key_parse(out, &k2, err, sizeof(err)) == 0, "%s: %s", out, err);
	FUZZ_CHECK(memcmp(&k, &k2, sizeof(k)) == 0, "%s parses to another key", out);
	FUZZ_CHECK(nvme_tls_key_format(&k2, out2, sizeof(out2)) == 0 && !strcmp(out, out2),
		   "%s formats as %s", out, out2);
}

static void ident(const char *id, size_t len)
{
	struct nvme_tls_ident in;
	char back[NVME_TLS_IDENTITY_MAX + 8];
	int n;

	if (nvme_tls_ident_parse(id, len, &in))
		return;
	FUZZ_CHECK((in.version == 0 || in.version == 1) && (in.hash == 1 || in.hash == 2),
		   "version %d hash %u", in.version, in.hash);
	if (in.version == 1)
		n = snprintf(back, sizeof(back), "NVMe1R%02u %s %s %s", in.hash, in.hostnqn,
			     in.subnqn, in.digest);
	else
		n = snprintf(back, sizeof(back), "NVMe0R%02u %s %s", in.hash, in.hostnqn,
			     in.subnqn);
	FUZZ_CHECK((size_t)n == len && !memcmp(back, id, len), "%.*s is taken as %s", (int)len,
		   id, back);
}

static void make(const uint8_t *data, size_t size)
{
	struct nvme_tls_key k;
	struct nvme_tls_psk psk;
	struct nvme_tls_ident in;
	char host[NVME_TLS_NQN_MAX + 16] = "", sub[NVME_TLS_NQN_MAX + 16] = "";
	const uint8_t *nul;
	int version = size ? data[0] & 1 : 0;

	if (size) {
		data++;
		size--;
	}
	nul = memchr(data, 0, size);
	if (!nul)
		return;
	snprintf(host, sizeof(host), "%s", (const char *)data);
	snprintf(sub, sizeof(sub), "%.*s", (int)(size - (size_t)(nul - data) - 1), nul + 1);
	FUZZ_CHECK(nvme_tls_key_parse(TLS_KEY, &k, NULL, 0) == 0, "the key");
	if (nvme_tls_psk_make(&k, host, sub, version, &psk))
		return;
	FUZZ_CHECK(nvme_tls_ident_parse(psk.identity, strlen(psk.identity), &in) == 0,
		   "identity %s does not parse", psk.identity);
	FUZZ_CHECK(in.version == version && !strcmp(in.hostnqn, host) && !strcmp(in.subnqn, sub),
		   "identity %s names other NQNs than %s, %s", psk.identity, host, sub);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;

	if (size < 1)
		return 0;
	text = malloc(size);
	FUZZ_CHECK(text, "out of memory");
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] & 3) {
	case 0:
		dhchap(text);
		break;
	case 1:
		tls_key(text);
		break;
	case 2:
		ident(text, size - 1);
		break;
	default:
		make(data + 1, size - 1);
		break;
	}
	free(text);
	return 0;
}
