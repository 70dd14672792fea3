/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The one check of NVMe Qualified Names (blox_nqn.h): the spec's two
 * forms and the discovery NQN, length, UTF-8, no white space or control
 * characters, with a reason a person can act on.
 */
#include "blox_nqn.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SHOWN_MAX 64 /* bytes of an NQN quoted in full in a message */
#define SHOWN_CUT 48 /* of a longer one, followed by "..." */

/* @nqn for a message: printable ASCII as is, other bytes as \xNN, a long one cut. */
static void quote(const char *nqn, char *out, size_t outlen)
{
	size_t len = strlen(nqn), n = len > SHOWN_MAX ? SHOWN_CUT : len, o = 0;

	for (size_t i = 0; i < n && o + 5 < outlen; i++) {
		unsigned char c = (unsigned char)nqn[i];

		if (c >= 0x20 && c < 0x7f)
			out[o++] = (char)c;
		else
			o += (size_t)snprintf(out + o, outlen - o, "\\x%02x", c);
	}
	if (n < len && o + 4 < outlen)
		o += (size_t)snprintf(out + o, outlen - o, "...");
	out[o < outlen ? o : outlen - 1] = '\0';
}

__attribute__((format(printf, 4, 5))) static int refuse(const char *nqn, char *err,
							 size_t errlen, const char *fmt, ...)
{
	char shown[SHOWN_MAX * 4 + 8], why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	quote(nqn, shown, sizeof(shown));
	if (err && errlen)
		snprintf(err, errlen, "NQN '%s': %s", shown, why);
	return -EINVAL;
}

/*
 * The code point at @s (of @left bytes) into *@cp; the sequence's length,
 * or 0 when it is not well-formed UTF-8 (overlong, a surrogate, past
 * U+10FFFF, cut short).
 */
static size_t utf8_next(const unsigned char *s, size_t left, uint32_t *cp)
{
	static const uint32_t min[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	size_t n;
	uint32_t v;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		v = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		v = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		v = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if (v < min[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* White space of Unicode (Zs, the line and paragraph separators) and the BOM. */
static bool is_space(uint32_t cp)
{
	return cp == 0x20 || cp == 0xa0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) ||
	       cp == 0x2028 || cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000 ||
	       cp == 0xfeff;
}

static bool is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

/* Bytes: UTF-8, no white space, no control characters. */
static int check_chars(const char *nqn, size_t len, char *err, size_t errlen)
{
	const unsigned char *s = (const unsigned char *)nqn;

	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = utf8_next(s + i, len - i, &cp);

		if (!n)
			return refuse(nqn, err, errlen, "not valid UTF-8 at byte %zu", i);
		if (is_space(cp))
			return refuse(nqn, err, errlen,
				      "white space at byte %zu (an NQN has none)", i);
		if (is_control(cp))
			return refuse(nqn, err, errlen, "control character at byte %zu", i);
		i += n;
	}
	return 0;
}

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* 8-4-4-4-12 hex digits and nothing after them. */
static bool is_uuid(const char *s)
{
	for (size_t i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !is_hex(s[i]))
			return false;
	}
	return s[36] == '\0';
}

/* The labels of the reverse domain @d (of @len bytes, before the ':'). */
static int check_domain(const char *nqn, const char *d, size_t len, char *err, size_t errlen)
{
	if (len == 0)
		return refuse(nqn, err, errlen,
			      "no reverse domain name after the date (nqn.yyyy-mm.com.example:name)");
	for (size_t start = 0, label = 0; start <= len; label++) {
		const char *end = memchr(d + start, '.', len - start);
		size_t n = (end ? (size_t)(end - d) : len) - start;
		const char *l = d + start;

		if (n == 0)
			return refuse(nqn, err, errlen,
				      "reverse domain '%.*s' has an empty label", (int)len, d);
		if (n > 63)
			return refuse(nqn, err, errlen,
				      "reverse domain: label '%.*s...' is longer than 63 characters",
				      16, l);
		for (size_t i = 0; i < n; i++) {
			char c = l[i];

			if (c >= 'A' && c <= 'Z')
				return refuse(nqn, err, errlen,
					      "reverse domain '%.*s' has uppercase letters (domain "
					      "names are written in lowercase; NQNs compare byte "
					      "for byte)",
					      (int)len, d);
			if (!(c >= 'a' && c <= 'z') && !is_digit(c) && c != '-')
				return refuse(nqn, err, errlen,
					      "reverse domain '%.*s': only letters, digits, '-' and "
					      "'.' (the name goes after a ':')",
					      (int)len, d);
		}
		if (l[0] == '-' || l[n - 1] == '-')
			return refuse(nqn, err, errlen,
				      "reverse domain: label '%.*s' starts or ends with '-'", (int)n,
				      l);
		if (label == 0 && is_digit(l[0]))
			return refuse(nqn, err, errlen,
				      "reverse domain '%.*s' must start with its top-level domain "
				      "(com, org, io, ...)",
				      (int)len, d);
		start += n + 1;
	}
	return 0;
}

int blox_nqn_check(const char *nqn, bool discovery_ok, char *err, size_t errlen)
{
	size_t len = strlen(nqn), plen = strlen(BLOX_NQN_UUID_PREFIX);
	const char *colon;
	int month, rc;

	if (len == 0)
		return refuse(nqn, err, errlen, "empty");
	if (len > BLOX_NQN_MAX_LEN)
		return refuse(nqn, err, errlen, "%zu bytes, more than the %d an NQN may have",
			      len, BLOX_NQN_MAX_LEN);
	if ((rc = check_chars(nqn, len, err, errlen)))
		return rc;
	if (!strcmp(nqn, BLOX_NQN_DISCOVERY))
		return discovery_ok ? 0
				    : refuse(nqn, err, errlen,
					     "the discovery subsystem's NQN, not usable here");
	if (strncmp(nqn, "nqn.", 4))
		return refuse(nqn, err, errlen, "must start with 'nqn.'%s",
			      !strncmp(nqn, "NQN.", 4) || !strncmp(nqn, "Nqn.", 4)
				      ? " (in lowercase)"
				      : "");
	if (!strncmp(nqn, BLOX_NQN_UUID_PREFIX, plen))
		return is_uuid(nqn + plen)
			       ? 0
			       : refuse(nqn, err, errlen,
					"the UUID form is '%s' and a UUID "
					"(xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx), nothing after it",
					BLOX_NQN_UUID_PREFIX);
	if (len < 12 || !is_digit(nqn[4]) || !is_digit(nqn[5]) || !is_digit(nqn[6]) ||
	    !is_digit(nqn[7]) || nqn[8] != '-' || !is_digit(nqn[9]) || !is_digit(nqn[10]) ||
	    nqn[11] != '.')
		return refuse(nqn, err, errlen,
			      "expected a date 'yyyy-mm.' after 'nqn.' (nqn.yyyy-mm.com.example:name)");
	month = (nqn[9] - '0') * 10 + (nqn[10] - '0');
	if (month < 1 || month > 12)
		return refuse(nqn, err, errlen, "month %02d of the date is not 01..12", month);
	colon = strchr(nqn + 12, ':');
	if (!colon)
		return refuse(nqn, err, errlen,
			      "no ':' and name after the reverse domain (nqn.yyyy-mm.com.example:name)");
	if ((rc = check_domain(nqn, nqn + 12, (size_t)(colon - nqn) - 12, err, errlen)))
		return rc;
	if (!colon[1])
		return refuse(nqn, err, errlen, "nothing after the ':'");
	return 0;
}
