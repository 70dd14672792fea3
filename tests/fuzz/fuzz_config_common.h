/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The check the config and state file targets share: a file that parses
 * prints (blox_config_json, what --print-config and the state file write)
 * as JSON that parses again to the same configuration, printed the same.
 */
#ifndef BLOX_FUZZ_CONFIG_COMMON_H
#define BLOX_FUZZ_CONFIG_COMMON_H

#include "fuzz_util.h"
#include "conf.h"

static inline void fuzz_config_roundtrip(const struct blox_config *cfg)
{
	struct blox_config again;
	char err[512];
	char *text = blox_config_json(cfg), *text2;
	int rc;

	FUZZ_CHECK(text, "blox_config_json: out of memory");
	rc = blox_config_parse(text, &again, err, sizeof(err));
	FUZZ_CHECK(rc == 0, "printed config does not parse again (%s): %s", err, text);
	text2 = blox_config_json(&again);
	FUZZ_CHECK(text2 && !strcmp(text, text2), "printed twice differently:\n%s\n%s",
		   text, text2 ? text2 : "(null)");
	free(text2);
	free(text);
	blox_config_free(&again);
}

#endif
