/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging through a context: whoever builds a part hands it a struct
 * blox_log saying how much to log; there is no global log level.
 */
#ifndef BLOX_LOG_H
#define BLOX_LOG_H

#include <stdbool.h>

enum blox_log_level {
	BLOX_LOG_ERR = 0,
	BLOX_LOG_WARN = 1,
	BLOX_LOG_INFO = 2,
	BLOX_LOG_DEBUG = 3,
};

/* Where and how much to log; owned by whoever builds the target. */
struct blox_log {
	int level;
	/* To syslog(3) (opened by the program: openlog()) instead of stderr. */
	bool syslog;
};

/*
 * One line "bloxd: LEVEL: text" on stderr when @level is enabled (@lg
 * NULL: all), or the text to syslog at the matching priority.
 */
void blox_log(const struct blox_log *lg, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
