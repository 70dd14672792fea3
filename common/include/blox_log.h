/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Logging through a context: whoever builds a part hands it a struct
 * blox_log saying how much to log; there is no global log level.
 */
#ifndef BLOX_LOG_H
#define BLOX_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

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
	/*
	 * When set, counts the error lines (whatever @level lets through), from
	 * any thread: bloxd's stop exits 1 when one was logged during it.
	 */
	unsigned long *errors;
};

/*
 * One line "bloxd: LEVEL: text" on stderr when @level is enabled (@lg
 * NULL: all), or the text to syslog at the matching priority.
 */
void blox_log(const struct blox_log *lg, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void blox_vlog(const struct blox_log *lg, int level, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * Log lines about limits that trip, at most BLOX_RATELIMIT_PER_SEC in a
 * one-second window; the next window begins with a line saying how many
 * were left out. One per owner (the transport, the core), no global.
 */
#define BLOX_RATELIMIT_PER_SEC 5

struct blox_ratelimit {
	uint64_t window_ns; /* start of the current window */
	uint32_t lines; /* logged in it */
	uint64_t left_out; /* left out in it */
	uint64_t suppressed; /* left out in all, for telemetry */
};

/* Start a new window if one second passed (saying what the last left out). */
void blox_ratelimit_tick(struct blox_ratelimit *r, const struct blox_log *lg, uint64_t now_ns);
/* One WARN line of @fmt through @r at @now_ns: logged or counted as left out. */
void blox_ratelimit_log(struct blox_ratelimit *r, const struct blox_log *lg, uint64_t now_ns,
			const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));

/*
 * The pause of a listener whose accept() fails: 100 ms, doubling up to
 * 1 s while the errors go on, back to 100 ms only once a quiet second
 * passed after the end of the last pause (an accept that works in
 * between does not reset it: under a flood at the fd limit, one always
 * does).
 */
#define BLOX_BACKOFF_MIN_MS 100u
#define BLOX_BACKOFF_MAX_MS 1000u
#define BLOX_BACKOFF_QUIET_MS 1000u

struct blox_backoff {
	uint32_t ms; /* the last pause; 0: none yet */
	uint64_t until_ns; /* when it ends */
};

/* An error at @now_ns: the pause to take now, in ms. */
uint32_t blox_backoff_next(struct blox_backoff *b, uint64_t now_ns);

#endif
