/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one parser of sizes and counts, used by the config loader, bloxd's
 * flags and bloxctl alike, so that "1GiB" means the same everywhere.
 *
 * Units: the bare letters K, M, G, T (either case) are powers of 1024, as
 * the docs have always said, and so are the IEC units KiB..TiB (and Ki..Ti);
 * with a B after the letter (kB or KB, MB, GB, TB) they are SI units, powers
 * of 1000, as disks and most tools count them. A lower-case b is a bit, so
 * "1Gb" is refused rather than read as bytes; so is any other unit.
 */
#include "blox_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#define WHY_NUMBER "is not a whole number of bytes (digits, then a unit if any)"
#define WHY_BITS                                                                          \
	"is in bits (b); a size is in bytes (B): GB for 10^9 bytes, GiB or G for 2^30"
#define WHY_UNIT                                                                          \
	"has an unknown unit: K, M, G, T or KiB, MiB, GiB, TiB are powers of 1024; "      \
	"kB, MB, GB, TB powers of 1000"
#define WHY_LARGE "is too large (at most 2^64 - 1 bytes)"

/* Exponent of K, M, G, T (1..4), 0 for anything else. */
static unsigned prefix_power(char c)
{
	switch (toupper((unsigned char)c)) {
	case 'K':
		return 1;
	case 'M':
		return 2;
	case 'G':
		return 3;
	case 'T':
		return 4;
	default:
		return 0;
	}
}

static int fail(const char **why, const char *reason, int rc)
{
	if (why)
		*why = reason;
	return rc;
}

int blox_parse_size_why(const char *s, uint64_t *out, const char **why)
{
	unsigned long long v;
	uint64_t base = 1024, mult = 1;
	unsigned power = 0;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return fail(why, WHY_NUMBER, -EINVAL);
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return fail(why, WHY_LARGE, -ERANGE);
	if (*end == '.' || *end == ',' || isspace((unsigned char)*end) || *end == '-')
		return fail(why, WHY_NUMBER, -EINVAL);
	if (*end) {
		power = prefix_power(*end);
		if (power)
			end++;
		if (power && *end == 'i') {
			/* IEC: Ki, KiB, ... */
			end++;
			if (*end == 'B')
				end++;
		} else if (*end == 'B') {
			/* SI with a prefix (k or K, M, G, T; no milli-bytes), or bytes. */
			if (power && (islower((unsigned char)end[-1]) && end[-1] != 'k'))
				return fail(why, WHY_UNIT, -EINVAL);
			base = 1000;
			end++;
		}
		/* A lower-case b where the B would be: a bit (Gb, Gib, kb, b). */
		if (*end == 'b' && !end[1])
			return fail(why, WHY_BITS, -EINVAL);
		if (*end)
			return fail(why, WHY_UNIT, -EINVAL);
	}
	while (power--)
		mult *= base;
	if (v > UINT64_MAX / mult)
		return fail(why, WHY_LARGE, -ERANGE);
	*out = (uint64_t)v * mult;
	return 0;
}

int blox_parse_size(const char *s, uint64_t *out)
{
	return blox_parse_size_why(s, out, NULL);
}

int blox_parse_count(const char *s, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v > max)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}
