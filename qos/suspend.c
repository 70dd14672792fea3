/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "smart" program/erase suspension policy for the NAND engine
 * (nand_config.policy). The engine asks it, whenever a host read waits on
 * a die whose program or erase is in its array phase (and the engine's own
 * mechanism cap, max_suspends_per_op, is not reached), whether to suspend
 * that op now. The answer weighs what the read gains against what the
 * suspension costs:
 *
 *   - only host reads are worth it (GC reads wait like GC writes do);
 *   - an op nearly done is let finish: the read would gain less than the
 *     tSUSPEND + tRESUME the die pays (and the op is pushed back);
 *   - each op is suspended at most max_suspends times, and under heavy
 *     host pressure (more than busy_inflight host commands in flight) at
 *     most busy_max_suspends: a stream of reads would otherwise keep the
 *     die's programs and erases (GC's among them) parked, writes back up
 *     behind them and free space shrinks, for reads that queue behind one
 *     another anyway;
 *   - when the die's FTL is at its urgent GC level (free space is
 *     critical: host writes wait for GC), an erase is not suspended at all
 *     (it is what frees the space, and erase suspension wears the block)
 *     and a program at most once;
 *   - paced: an op's budget of suspensions is spread over it (the next one
 *     is due when the op is k / budget done), and a read that comes early
 *     is told "not yet" with the time to ask again (nand's ask_again_ns).
 *
 * Every decision is counted by reason in the state's decisions[]. The
 * policy reads its inputs (host commands in flight, GC level per die) from
 * the caller's struct qos_suspend_inputs at each decision; it keeps no
 * other state and reads no clock.
 */
#include <stddef.h>

#include "qos.h"

/* GC level at which free space is critical (ftl.h's urgent level). */
#define QOS_GC_URGENT 3

void qos_suspend_cfg_default(struct qos_suspend_cfg *c)
{
	/*
	 * From TLC timing as the engine models it (nand_timing_default():
	 * tR 56-74 us, tPROG 1.2-3 ms, tBERS 10 ms, tSUSPEND = tRESUME =
	 * 20 us); the mechanism is the one of Wu and He, "Reducing SSD read
	 * latency via NAND flash program and erase suspension" (FAST 2012).
	 *
	 * min_remaining 200 us: with L left, suspending saves the read
	 * L - tSUSPEND and costs the op (and whatever is queued behind it on
	 * the die) tSUSPEND + tR + tRESUME, about 100-115 us. Under 200 us
	 * left the read's gain (< 180 us) is of the order of what the others
	 * lose; above, the gain grows to milliseconds and the cost does not.
	 *
	 * 900 permille: the last 10% of an erase (1 ms) or of an MSB program
	 * (300 us) is still worth suspending by the rule above, but the
	 * closer to its end, the more an op has been stretched already (it
	 * was suspended on the way), and a late suspension also delays the
	 * next op on the die, often a program the write buffer waits for.
	 * min_remaining is the one that matters for short programs (10% of
	 * an LSB program is 120 us < 200 us).
	 *
	 * max 8 per op: bounds how far one op can be stretched (8 x (40 us +
	 * at least one tR) ~ 1 ms on a 10 ms erase) and the extra wear of
	 * erase suspension per block erase; the engine's own default cap
	 * (nand_config_default(): max_suspends_per_op) is 8 as well.
	 *
	 * busy: above 64 host commands in flight (several per die on a
	 * typical 8-32 die device), reads queue behind reads anyway and
	 * suspension mostly adds tSUSPEND + tRESUME of die time in a device
	 * that has none to spare; 2 suspensions per op keep the first reads
	 * quick without parking GC's programs and erases for long.
	 */
	c->min_remaining_ns = 200000;
	c->max_progress_permille = 900;
	c->max_suspends = 8;
	c->busy_inflight = 64;
	c->busy_max_suspends = 2;
	c->erase_only_when_urgent_gc = true;
	/*
	 * Paced: 8 suspensions spent on the first reads of a 10 ms erase (the
	 * engine lets an op run 100 us between two) leave the reads of its
	 * last 9 ms waiting for all of it (docs/QOS_RESULTS.md); spread over
	 * it, a read waits at most about 1/8 of the op plus the overheads.
	 */
	c->pace = true;
}

/* The op's budget of suspensions now: fewer under heavy host pressure. */
static uint32_t budget(const struct qos_suspend_state *st)
{
	const struct qos_suspend_cfg *c = &st->cfg;
	const struct qos_suspend_inputs *in = st->in;

	if (in && in->host_inflight > c->busy_inflight && c->busy_max_suspends < c->max_suspends)
		return c->busy_max_suspends;
	return c->max_suspends;
}

/*
 * Paced: suspension k + 1 is due once the op is k / @b done; the time it
 * is due, or 0 when it is due now.
 */
static uint64_t due_at(const struct nand_suspend_query *q, uint32_t b)
{
	uint64_t at_ns;

	if (!b || !q->suspends)
		return 0;
	at_ns = q->total_ns / b * q->suspends;
	return at_ns > q->elapsed_ns ? q->now_ns + (at_ns - q->elapsed_ns) : 0;
}

/* The decision on @q; a paced refusal puts the time it is due in *@due_ns. */
static enum qos_suspend_reason decide(const struct qos_suspend_state *st,
				      const struct nand_suspend_query *q, uint64_t *due_ns)
{
	const struct qos_suspend_cfg *c = &st->cfg;
	const struct qos_suspend_inputs *in = st->in;
	uint64_t left = q->total_ns > q->elapsed_ns ? q->total_ns - q->elapsed_ns : 0;

	if (q->waiting != NAND_PRIO_HOST_READ)
		return QOS_SUSP_NOT_HOST_READ;
	/* elapsed / total > permille / 1000, without a division. */
	if (q->total_ns == 0 || left < c->min_remaining_ns ||
	    q->elapsed_ns * 1000 > (uint64_t)c->max_progress_permille * q->total_ns)
		return QOS_SUSP_NEARLY_DONE;
	if (q->suspends >= c->max_suspends)
		return QOS_SUSP_CAPPED;
	if (c->erase_only_when_urgent_gc && in &&
	    q->die < sizeof(in->gc_level) / sizeof(in->gc_level[0]) &&
	    in->gc_level[q->die] >= QOS_GC_URGENT &&
	    (q->running == NAND_OP_ERASE || q->suspends >= 1))
		return QOS_SUSP_GC_URGENT;
	if (in && in->host_inflight > c->busy_inflight && q->suspends >= c->busy_max_suspends)
		return QOS_SUSP_PRESSURE;
	if (c->pace && (*due_ns = due_at(q, budget(st))))
		return QOS_SUSP_PACED;
	return QOS_SUSP_GRANTED;
}

static bool smart_cb(void *ctx, const struct nand_suspend_query *q)
{
	struct qos_suspend_state *st = ctx;
	uint64_t due_ns = 0;
	enum qos_suspend_reason r = decide(st, q, &due_ns);

	st->decisions[r]++;
	if (r == QOS_SUSP_PACED && q->ask_again_ns)
		*q->ask_again_ns = due_ns;
	return r == QOS_SUSP_GRANTED;
}

void qos_suspend_policy(struct nand_suspend_policy *p, struct qos_suspend_state *st)
{
	p->name = "smart";
	p->should_suspend = smart_cb;
	p->ctx = st;
}

const char *qos_suspend_reason_name(enum qos_suspend_reason r)
{
	static const char *const names[QOS_SUSP_REASONS] = {
		[QOS_SUSP_GRANTED] = "granted",
		[QOS_SUSP_NOT_HOST_READ] = "not_host_read",
		[QOS_SUSP_NEARLY_DONE] = "nearly_done",
		[QOS_SUSP_CAPPED] = "capped",
		[QOS_SUSP_PRESSURE] = "pressure",
		[QOS_SUSP_GC_URGENT] = "gc_urgent",
		[QOS_SUSP_PACED] = "paced",
	};

	return (unsigned)r < QOS_SUSP_REASONS ? names[r] : "unknown";
}
