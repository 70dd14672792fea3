/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Small helpers every layer uses: container_of, array size, min/max,
 * page-aligned data buffers.
 */
#ifndef BLOX_UTIL_H
#define BLOX_UTIL_H

#include <stddef.h>
#include <stdlib.h>

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define BLOX_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define BLOX_MIN(a, b) ((a) < (b) ? (a) : (b))
#define BLOX_MAX(a, b) ((a) > (b) ? (a) : (b))

#define BLOX_PAGE 4096u

/*
 * A data buffer that blocks are copied into or out of, aligned to 4 KiB so
 * that no 4 KiB block in it straddles two pages (malloc's 16-byte
 * alignment makes every such copy touch one more page). free() releases it.
 */
static inline void *blox_page_alloc(size_t len)
{
	return aligned_alloc(BLOX_PAGE, (len + BLOX_PAGE - 1) / BLOX_PAGE * BLOX_PAGE);
}

#endif
