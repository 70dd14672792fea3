/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the state file as bloxd reads it at start-up
 * (blox_config_load on DIR/bloxd-state.json, written by state.c), on any
 * file content. The loader must take exactly what the parser takes of
 * the same text, refuse a file with a NUL byte in it (it is not text: the
 * parser would see only what comes before), and a state it takes must
 * print back the same (fuzz_config_common.h).
 */
#include <unistd.h>

#include "fuzz_config_common.h"

/* The fuzzing process's scratch file (a harness has no other home for it). */
static char state_path[64];

static void remove_state(void)
{
	unlink(state_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd;

	(void)argc;
	(void)argv;
	snprintf(state_path, sizeof(state_path), "%s/blox-fuzz-state-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	fd = mkstemp(state_path);
	FUZZ_CHECK(fd >= 0, "mkstemp %s", state_path);
	close(fd);
	atexit(remove_state);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct blox_config cfg, direct;
	char err[512] = "", err2[512] = "";
	FILE *f = fopen(state_path, "w");
	char *text;
	int rc, rc2;

	FUZZ_CHECK(f && fwrite(data, 1, size, f) == size && fclose(f) == 0, "write %s",
		   state_path);
	rc = blox_config_load(state_path, &cfg, err, sizeof(err));
	if (memchr(data, '\0', size)) {
		FUZZ_CHECK(rc < 0 && err[0], "a file with a NUL byte was taken (%d)", rc);
		if (rc == 0)
			blox_config_free(&cfg);
		return 0;
	}
	text = malloc(size + 1);
	FUZZ_CHECK(text, "out of memory");
	memcpy(text, data, size);
	text[size] = '\0';
	rc2 = blox_config_parse(text, &direct, err2, sizeof(err2));
	free(text);
	FUZZ_CHECK(rc == rc2, "load %d (%s), parse %d (%s)", rc, err, rc2, err2);
	if (rc) {
		FUZZ_CHECK(rc < 0 && err[0], "refused (%d) without a reason", rc);
		return 0;
	}
	fuzz_config_roundtrip(&cfg);
	blox_config_free(&cfg);
	blox_config_free(&direct);
	return 0;
}
