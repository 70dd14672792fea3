/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What one host may hold of the target (struct nvmf_tgt_limits): their
 * check at start-up and the rate-limited log line of a limit that trips.
 * The limits themselves act where the host asks: Connect (fabrics_cmd.c),
 * Set Features (admin_cmd.c), the keep-alive timer (ctrl.c).
 */
#include "nvmf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int nvmf_tgt_limits_check(const struct nvmf_tgt_limits *l, char *err, size_t len)
{
	if (l->max_io_queues < 1 || l->max_io_queues > NVMF_MAX_IO_QUEUES) {
		snprintf(err, len, "--max-io-queues %u: 1 to %u", l->max_io_queues,
			 NVMF_MAX_IO_QUEUES);
		return -EINVAL;
	}
	if (l->mdts_kb < 4 || l->mdts_kb > NVMF_MAX_MDTS_KB || (l->mdts_kb & (l->mdts_kb - 1))) {
		snprintf(err, len, "--mdts-kb %u: a power of two from 4 to %u", l->mdts_kb,
			 NVMF_MAX_MDTS_KB);
		return -EINVAL;
	}
	if (l->in_capsule_kb > NVMF_MAX_IO_INLINE / 1024) {
		snprintf(err, len, "--in-capsule-kb %u: at most %u", l->in_capsule_kb,
			 NVMF_MAX_IO_INLINE / 1024);
		return -EINVAL;
	}
	if (l->max_queue_size < 2 || l->max_queue_size > NVMF_MAX_QUEUE_SIZE) {
		snprintf(err, len, "--max-queue-size %u: 2 to %u", l->max_queue_size,
			 NVMF_MAX_QUEUE_SIZE);
		return -EINVAL;
	}
	return 0;
}

void nvmf_limit_log(struct nvmf_tgt *tgt, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	blox_ratelimit_log(&tgt->rl, tgt->log, blox_clock_now(tgt->clock), fmt, ap);
	va_end(ap);
	tgt->stats.log_suppressed = tgt->rl.suppressed;
}
