/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * <sys/queue.h> plus the BSD _SAFE iterator glibc lacks. The lowest layer
 * holds it so that every layer above can use it.
 */
#ifndef BLOX_QUEUE_H
#define BLOX_QUEUE_H

#include <sys/queue.h>

#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)           \
	for ((var) = TAILQ_FIRST((head));                    \
	     (var) && ((tvar) = TAILQ_NEXT((var), field), 1); \
	     (var) = (tvar))
#endif

#endif
