/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small helpers every layer uses: container_of, array size, min/max.
 */
#ifndef BLOX_UTIL_H
#define BLOX_UTIL_H

#include <stddef.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define BLOX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BLOX_MIN(a, b) ((a) < (b) ? (a) : (b))
#define BLOX_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
