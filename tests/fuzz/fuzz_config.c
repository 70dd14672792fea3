/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the config file parser (daemon/conf config.c,
 * config_json.c, config_ns.c, with the provisioning plan it runs) on any
 * text. A config it takes must print and parse back the same
 * (fuzz_config_common.h); one it refuses must say why.
 */
#include "fuzz_config_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct blox_config cfg;
	char err[512] = "";
	char *text = malloc(size + 1);
	int rc;

	FUZZ_CHECK(text, "out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	rc = blox_config_parse(text, &cfg, err, sizeof(err));
	free(text);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err[0], "refused (%d) without a reason", rc);
		return 0;
	}
	fuzz_config_roundtrip(&cfg);
	blox_config_free(&cfg);
	return 0;
}
