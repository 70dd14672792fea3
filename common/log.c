/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging through a context (struct blox_log): one line per message on stderr or syslog. */
#include "blox_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

void blox_vlog(const struct blox_log *lg, int level, const char *fmt, va_list ap)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

	if (lg && lg->errors && level == BLOX_LOG_ERR)
		__atomic_fetch_add(lg->errors, 1, __ATOMIC_RELAXED);
	if (lg && level > lg->level)
		return;
	if (level < 0 || level > BLOX_LOG_DEBUG)
		level = BLOX_LOG_DEBUG;
	if (lg && lg->syslog) {
		vsyslog(prio[level], fmt, ap);
		return;
	}
	fprintf(stderr, "bloxd: %s: ", names[level]);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void blox_log(const struct blox_log *lg, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	blox_vlog(lg, level, fmt, ap);
	va_end(ap);
}

#define NS_PER_MS 1000000ull

void blox_ratelimit_tick(struct blox_ratelimit *r, const struct blox_log *lg, uint64_t now_ns)
{
	if (now_ns - r->window_ns < 1000 * NS_PER_MS)
		return;
	if (r->left_out)
		blox_log(lg, BLOX_LOG_WARN, "limits: %lu more such lines suppressed",
			 (unsigned long)r->left_out);
	r->window_ns = now_ns;
	r->lines = 0;
	r->left_out = 0;
}

void blox_ratelimit_log(struct blox_ratelimit *r, const struct blox_log *lg, uint64_t now_ns,
			const char *fmt, va_list ap)
{
	blox_ratelimit_tick(r, lg, now_ns);
	if (r->lines >= BLOX_RATELIMIT_PER_SEC) {
		r->left_out++;
		r->suppressed++;
		return;
	}
	r->lines++;
	blox_vlog(lg, BLOX_LOG_WARN, fmt, ap);
}

uint32_t blox_backoff_next(struct blox_backoff *b, uint64_t now_ns)
{
	bool quiet = !b->ms || now_ns >= b->until_ns + BLOX_BACKOFF_QUIET_MS * NS_PER_MS;

	if (quiet)
		b->ms = BLOX_BACKOFF_MIN_MS;
	else if (b->ms < BLOX_BACKOFF_MAX_MS)
		b->ms = b->ms * 2 < BLOX_BACKOFF_MAX_MS ? b->ms * 2 : BLOX_BACKOFF_MAX_MS;
	b->until_ns = now_ns + b->ms * NS_PER_MS;
	return b->ms;
}
