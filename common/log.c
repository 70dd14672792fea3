/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging through a context (struct blox_log): one line per message on stderr or syslog. */
#include "blox_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <syslog.h>

void blox_log(const struct blox_log *lg, int level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	va_list ap;

	if (lg && level > lg->level)
		return;
	if (level < 0 || level > BLOX_LOG_DEBUG)
		level = BLOX_LOG_DEBUG;
	if (lg && lg->syslog) {
		va_start(ap, fmt);
		vsyslog(prio[level], fmt, ap);
		va_end(ap);
		return;
	}
	fprintf(stderr, "bloxd: %s: ", names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
