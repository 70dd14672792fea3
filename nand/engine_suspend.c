/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NAND engine's program/erase suspension: whether a host read waiting
 * behind an op in its array phase suspends it (the policy, the per-op cap, the
 * minimum progress), or a program waiting behind an erase during the
 * power-loss flush (nand_set_plp_flush()), and the suspension itself.
 */
#include "engine_internal.h"
#include "blox_queue.h"

/* A host read waits behind the program/erase in its array phase. */
void nand_consider_suspend(struct nand_dev *dev, struct nand_die *d,
			     uint64_t t)
{
	const struct nand_config *cfg = &dev->cfg;
	struct nand_suspend_stats *ss = &dev->stats.suspend;
	struct nand_op *op = d->cur;
	struct nand_suspend_query q;
	uint64_t at, again = 0;

	if (d->suspended)
		return;
	if (nand_plp_wants_suspend(dev, d)) {
		/* The power-loss flush: now, whatever the policy or the caps say. */
		if (t + nand_dev_timing(dev)->t_suspend_ns < d->array_end) {
			d->suspend_pending = true;
			nand_die_event_at(dev, d, t);
		}
		return;
	}
	if (d->suspend_pending || TAILQ_EMPTY(&d->q[NAND_PRIO_HOST_READ]))
		return;
	if (op->suspends >= cfg->max_suspends_per_op) {
		ss->capped++;
		return;
	}
	q = (struct nand_suspend_query){
		.running = op->kind,
		.running_prio = op->prio,
		.die = d->idx,
		.elapsed_ns = op->array_ns - (d->array_end - t),
		.total_ns = op->array_ns,
		.suspends = op->suspends,
		.waiting = NAND_PRIO_HOST_READ,
		.reads_waiting = d->nq_prio[NAND_PRIO_HOST_READ],
		.now_ns = t,
		.ask_again_ns = &again,
	};
	if (!cfg->policy.should_suspend ||
	    !cfg->policy.should_suspend(cfg->policy.ctx, &q)) {
		ss->declined++;
		/* "Not yet": a die event in the array phase, before its end. */
		if (again > t && again + nand_dev_timing(dev)->t_suspend_ns < d->array_end) {
			ss->asked_again++;
			nand_die_event_at(dev, d, again);
		}
		return;
	}
	/* The mechanism lets an op progress a minimum between suspensions. */
	at = op->last_resume_ns + cfg->min_progress_ns;
	if (at < t)
		at = t;
	if (at + nand_dev_timing(dev)->t_suspend_ns >= d->array_end) {
		ss->capped++;
		return; /* it would finish before the suspension took effect */
	}
	d->suspend_pending = true;
	nand_die_event_at(dev, d, at);
}

void nand_suspend_now(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	struct nand_op *op = d->cur;
	struct nand_suspend_stats *ss = &dev->stats.suspend;

	d->st.busy_ns[op->kind] += t - d->phase_start;
	op->remaining_ns = d->array_end - t;
	op->suspends++;
	ss->suspends[op->kind]++;
	if (nand_plp_wants_suspend(dev, d))
		ss->plp_suspends++;
	if (op->kind == NAND_OP_ERASE && !op->timing_only && dev->store) {
		/* Erase suspension stresses the cells: count it on each block. */
		for (const struct nand_op *o = op; o; o = o->mp_next) {
			for (uint32_t p = 0; p < o->nplanes; p++) {
				struct nand_addr a = nand_plane_addr(o, p);

				dev->store->blocks[nand_block_index(&dev->cfg.geo, &a)]
					.erase_suspends++;
			}
		}
		ss->erase_suspend_wear++;
	}
	d->suspended = op;
	d->cur = NULL;
	d->susp_reads = 0;
	d->suspend_pending = false;
	d->suspend_start = t;
	d->phase = DIE_SUSPENDING;
	d->phase_start = t;
	d->st.suspend_overhead_ns += nand_dev_timing(dev)->t_suspend_ns;
	nand_die_event_at(dev, d, t + nand_dev_timing(dev)->t_suspend_ns);
}

void nand_set_plp_flush(struct nand_dev *dev, bool on, uint64_t now)
{
	dev->plp_flush = on;
	for (uint32_t i = 0; on && i < dev->nr_dies; i++) {
		struct nand_die *d = &dev->dies[i];

		if (d->phase == DIE_ARRAY && d->cur->kind == NAND_OP_ERASE)
			nand_consider_suspend(dev, d, now);
	}
}
