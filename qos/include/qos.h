/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * qos/: quality of service between the daemon and the flash. A pure
 * library like ftl/: driven with `now` (nanoseconds of whatever clock the
 * caller runs: real time in the daemon, virtual time in tests and
 * blox-sim), no clock reads, no I/O, no allocation on the data path.
 *
 * - Token buckets per namespace (struct qos_limiter): IOPS and bytes/s
 *   for reads, writes and both together, each with a burst. A command
 *   over a limit is not failed: the caller holds it (in arrival order) and
 *   asks again at the time qos_limiter_admit() names.
 * - Weighted fair sharing of a die among tenants (struct qos_drr):
 *   deficit round robin over per-tenant queues, weights per tenant.
 * - A suspension policy for the NAND engine (qos_suspend_policy()):
 *   whether a waiting host read may suspend the program or erase in its
 *   way, from the running op's progress, host pressure and GC urgency,
 *   with every decision counted by reason.
 */
#ifndef BLOX_QOS_H
#define BLOX_QOS_H

#include <stdbool.h>
#include <stdint.h>

#include "nand.h"

/* ---- token buckets ---- */

enum qos_dir {
	QOS_READ,
	QOS_WRITE,
	QOS_OTHER, /* flush, trim, write zeroes: counted against the combined limits only */
};

/* What a namespace may do; 0 in a field: no limit on it. */
struct qos_limits {
	uint64_t read_iops, write_iops, iops; /* commands per second */
	uint64_t read_bps, write_bps, bps; /* bytes per second */
	uint32_t burst_ms; /* each bucket holds this many ms at its rate; 0: QOS_BURST_MS */
};

#define QOS_BURST_MS 100u

/*
 * One bucket, in units of 1e-9 token (a nanosecond at the rate of one
 * token per second), so a refill is one multiplication.
 */
struct qos_bucket {
	uint64_t rate; /* tokens per second; 0: unlimited */
	int64_t depth; /* units when full */
	int64_t level; /* units now; below 0 after a command larger than the bucket */
	uint64_t last_ns; /* level as of this time */
	/*
	 * Time spent full, up to last_ns: tokens were there and nothing took
	 * them, so what the rate allowed went unused (a namespace that did not
	 * ask, or a caller that asked late). Kept across limit changes.
	 */
	uint64_t full_ns;
};

enum qos_bucket_id {
	QOS_B_READ_IOPS,
	QOS_B_WRITE_IOPS,
	QOS_B_IOPS,
	QOS_B_READ_BPS,
	QOS_B_WRITE_BPS,
	QOS_B_BPS,
	QOS_B_COUNT,
};

struct qos_limiter {
	struct qos_limits lim;
	struct qos_bucket b[QOS_B_COUNT];
	/* Counters since qos_limiter_init(): admitted and held back (a "not yet" answer). */
	uint64_t admitted[3], held[3];
};

/* Full buckets at @now. */
void qos_limiter_init(struct qos_limiter *l, const struct qos_limits *lim, uint64_t now);
/*
 * New limits at once (live change): each bucket keeps its level, clipped
 * to its new depth; a bucket newly limited starts full.
 */
void qos_limiter_set(struct qos_limiter *l, const struct qos_limits *lim, uint64_t now);
/* No limit at all (admit never waits). */
bool qos_limiter_unlimited(const struct qos_limiter *l);
/*
 * May a command of @dir moving @bytes start at @now? 0: yes, and its
 * tokens are taken from every bucket that applies. Else the earliest time
 * (> @now) at which it may, nothing taken: the caller holds it and asks
 * again then (commands held must be asked for in arrival order, so none
 * overtakes another). A command larger than a bucket's depth is admitted
 * once that bucket is full (the level goes negative, so the rate still
 * holds over time).
 */
uint64_t qos_limiter_admit(struct qos_limiter *l, enum qos_dir dir, uint64_t bytes,
			   uint64_t now);
/* Every bucket refilled to @now (nothing admitted): its level and full_ns as of @now. */
void qos_limiter_sync(struct qos_limiter *l, uint64_t now);
/* The buckets' full_ns summed over those with a limit. */
uint64_t qos_limiter_full_ns(const struct qos_limiter *l);

/* ---- weighted fair sharing (deficit round robin) ---- */

#define QOS_MAX_TENANTS 64
#define QOS_DRR_QUANTUM_NS 200000u /* array time a weight of 1 earns per round */

/*
 * One scheduler per die and priority class: the caller keeps each
 * tenant's queue; the scheduler says whose turn it is. Costs are the
 * array time an op will take (ns), so tenants share die time, not op
 * counts.
 */
struct qos_drr {
	uint32_t nr; /* tenants known (ids 0..nr-1) */
	uint32_t weight[QOS_MAX_TENANTS]; /* 0: 1 */
	int64_t deficit[QOS_MAX_TENANTS];
	uint32_t cursor; /* the tenant whose turn it is */
	uint64_t served_ns[QOS_MAX_TENANTS]; /* array time given, for telemetry */
	uint64_t credit; /* tenants whose deficit may be non-zero */
};

void qos_drr_init(struct qos_drr *s);
/* Weight of tenant @t (1..1000); -EINVAL. */
int qos_drr_set_weight(struct qos_drr *s, uint32_t t, uint32_t weight);
/*
 * Whose op runs next: @cost_ns[t] is the cost of tenant t's head op, or
 * UINT64_MAX when t has nothing waiting (@n entries). Returns the tenant,
 * its deficit charged, or -1 when nobody waits.
 */
int qos_drr_pick(struct qos_drr *s, const uint64_t *cost_ns, uint32_t n);

/* ---- suspension policy ---- */

/* What the policy is told besides the engine's query. */
struct qos_suspend_inputs {
	/* Host commands in flight on the device now (the daemon's, or a simulator's). */
	uint32_t host_inflight;
	/* Free-block level of the FTL owning the die: 0 plenty .. 3 urgent (GC levels). */
	uint8_t gc_level[256]; /* per die */
};

struct qos_suspend_cfg {
	uint64_t min_remaining_ns; /* no suspension when the running op has less left */
	uint32_t max_progress_permille; /* nor when it is more than this done (e.g. 900) */
	uint32_t max_suspends; /* per op */
	uint32_t busy_inflight; /* host pressure above this ... */
	uint32_t busy_max_suspends; /* ... allows only this many per op */
	bool erase_only_when_urgent_gc; /* urgent GC: suspend erases no more (they free space) */
	/*
	 * Spread an op's suspensions over it: with a budget of B, suspension
	 * k + 1 (k done) waits until the op is k / B done, and the engine asks
	 * again then (the reads queued meanwhile are served together), so the
	 * budget is not spent on the first reads, leaving the rest to wait
	 * for the whole op.
	 */
	bool pace;
};

void qos_suspend_cfg_default(struct qos_suspend_cfg *c);

enum qos_suspend_reason {
	QOS_SUSP_GRANTED,
	QOS_SUSP_NOT_HOST_READ, /* the best waiting op is not a host read */
	QOS_SUSP_NEARLY_DONE, /* too little left to be worth it */
	QOS_SUSP_CAPPED, /* suspended enough times already */
	QOS_SUSP_PRESSURE, /* heavy mixed load: fewer suspensions per op */
	QOS_SUSP_GC_URGENT, /* free space is critical: let GC's op finish */
	QOS_SUSP_PACED, /* not yet: the op's next suspension is due later (asked again then) */
	QOS_SUSP_REASONS,
};

struct qos_suspend_state {
	struct qos_suspend_cfg cfg;
	const struct qos_suspend_inputs *in; /* the caller's, read at each decision; may be NULL */
	uint64_t decisions[QOS_SUSP_REASONS]; /* by reason */
};

/* The "smart" policy for the NAND engine (nand_config.policy), over @st. */
void qos_suspend_policy(struct nand_suspend_policy *p, struct qos_suspend_state *st);
const char *qos_suspend_reason_name(enum qos_suspend_reason r);

#endif
