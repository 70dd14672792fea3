/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sizes and counts from text, one grammar for the config loader, bloxd's
 * flags and bloxctl.
 */
#ifndef BLOX_PARSE_H
#define BLOX_PARSE_H

#include <stdint.h>

/*
 * A size: decimal digits, then optionally a unit. Powers of 1024: K, M, G,
 * T (either case), and the IEC units Ki, Mi, Gi, Ti with or without B
 * ("64K", "1Gi", "512MiB"). Powers of 1000: kB (or KB), MB, GB, TB ("10GB"
 * is 10^10 bytes). B alone is bytes. Anything else is -EINVAL: a lower-case
 * b (bits: "1Gb"), other units, signs, fractions, blanks; -ERANGE past
 * 2^64 - 1. Nothing is written to @out on error.
 */
int blox_parse_size(const char *s, uint64_t *out);
/*
 * blox_parse_size(), and on error *@why (if @why is not NULL) says why, as
 * a phrase to follow the text quoted: "'1Gb' is in bits (b); ...".
 */
int blox_parse_size_why(const char *s, uint64_t *out, const char **why);
/* A count: decimal digits only, no sign, up to @max. -EINVAL or -ERANGE. */
int blox_parse_count(const char *s, uint64_t max, uint64_t *out);

#endif
