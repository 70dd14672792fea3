/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sizes and counts from text, one grammar for the config loader, bloxd's
 * flags and bloxctl.
 */
#ifndef BLOX_PARSE_H
#define BLOX_PARSE_H

#include <stdint.h>

/*
 * A size: decimal digits, then optionally a binary unit K, M, G or T
 * (case-insensitive), itself optionally followed by "i" and/or "B"
 * ("64K", "1Gi", "512MiB", "2tb"). -EINVAL on anything else (and for a
 * number past 2^64 - 1), -ERANGE when the unit takes it past 2^64 - 1.
 * Nothing is written to @out on error.
 */
int blox_parse_size(const char *s, uint64_t *out);
/* A count: decimal digits only, no sign, up to @max. -EINVAL or -ERANGE. */
int blox_parse_count(const char *s, uint64_t max, uint64_t *out);

#endif
