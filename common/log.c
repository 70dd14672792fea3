/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging through a context (struct blox_log): one line per message on stderr. */
#include "blox_log.h"

#include <stdarg.h>
#include <stdio.h>

void blox_log(const struct blox_log *lg, int level, const char *fmt, ...)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	va_list ap;

	if (lg && level > lg->level)
		return;
	if (level < 0 || level > BLOX_LOG_DEBUG)
		level = BLOX_LOG_DEBUG;
	fprintf(stderr, "bloxd: %s: ", names[level]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
