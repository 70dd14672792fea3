/*
 * Small shared utilities of the daemon: logging through a context, clock
 * access and container_of.
 */
#ifndef BLOX_UTIL_H
#define BLOX_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#include "../nand/blox_queue.h"

#define BLOX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BLOX_MIN(a, b) ((a) < (b) ? (a) : (b))
#define BLOX_MAX(a, b) ((a) > (b) ? (a) : (b))

enum blox_log_level {
	BLOX_LOG_ERR = 0,
	BLOX_LOG_WARN = 1,
	BLOX_LOG_INFO = 2,
	BLOX_LOG_DEBUG = 3,
};

/* Where and how much to log; owned by whoever builds the target. */
struct blox_log {
	int level;
};

void blox_log(const struct blox_log *lg, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Parse sizes like "4096", "64K", "1G" (binary units). -EINVAL on junk. */
int blox_parse_size(const char *s, uint64_t *out);

#endif
