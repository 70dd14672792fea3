/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private state of the NAND timing engine, shared by its files:
 *   engine.c          the device: life cycle, configuration, the event heap, stats
 *   engine_die.c      die and channel state machines: an op's start, phases and
 *                     completion, its multi-plane group's, nand_advance()
 *   engine_sched.c    tenants, the scheduler's picks for dies and channels,
 *                     gathering multi-plane groups
 *   engine_suspend.c  program/erase suspension: whether, and the suspension itself
 *   ops.c             submission, rules, store access, completion
 *   lend.c            reads lent in place: block pins, erases held on them
 * Tests include it to look at die and channel state.
 */
#ifndef BLOX_NAND_ENGINE_INTERNAL_H
#define BLOX_NAND_ENGINE_INTERNAL_H

#include <stdatomic.h>

#include "nand.h"
#include "blox_fault.h"

enum die_phase {
	DIE_IDLE,
	DIE_WAIT_BUS_IN, /* program: waiting for the channel */
	DIE_XFER_IN, /* program data moving over the channel */
	DIE_ARRAY, /* tR / tPROG / tBERS running */
	DIE_WAIT_BUS_OUT, /* read data in the page register, waiting for the bus */
	DIE_XFER_OUT,
	DIE_SUSPENDING, /* paying tSUSPEND */
	DIE_RESUMING, /* paying tRESUME */
};

/* A queue of ops (a tenant's in one class on one die). */
TAILQ_HEAD(nand_opq, nand_op);

struct nand_die {
	uint32_t idx, ch;
	enum die_phase phase;
	struct nand_op *cur; /* op on the die (a read, while one is suspended) */
	struct nand_op *suspended; /* program or erase parked by a suspension */
	uint64_t phase_start;
	uint64_t array_end; /* true end of the running array phase */
	bool suspend_pending; /* the die event is a suspension point */
	uint64_t suspend_start;
	uint32_t susp_reads; /* reads served in the current suspension */
	TAILQ_HEAD(, nand_op) q[NAND_PRIOS];
	uint32_t nq, nq_prio[NAND_PRIOS];
	struct nand_die_stats st;
	TAILQ_ENTRY(nand_die) bus_link;
};

/*
 * A die's tenants (sched.ntenants > 0; nand_dev.ten_mem[die], kept out of
 * struct nand_die so that it stays 256 bytes): every op queued on the die is also
 * in its tenant's queue of its class, q[tenant * NAND_PRIOS + prio] (via
 * tlink, in the same order); mask[p]: the tenants with ops in class p.
 */
struct nand_die_tenants {
	uint64_t mask[NAND_PRIOS];
	struct nand_opq *q;
	struct nand_tenant_stats *ts; /* per tenant */
};

struct nand_channel {
	struct nand_die *owner; /* die whose data is on the bus */
	TAILQ_HEAD(, nand_die) waitq;
	struct nand_channel_stats st;
};

/* An indexed min-heap: one slot per die and one per channel. */
struct nand_heap {
	uint32_t n;
	uint32_t *ids; /* heap order */
	uint64_t *key; /* by id */
	int32_t *pos; /* by id; -1 when absent */
};

struct nand_dev {
	struct nand_config cfg;
	struct nand_store *store;
	uint32_t nr_dies;
	/* cfg.sched: its ntenants (0: tenants off), pick and pick_bus set (beside nr_dies: hot). */
	uint16_t ntenants;
	bool die_sched, bus_sched;
	struct nand_die *dies;
	struct nand_channel *chans;
	struct nand_heap heap;
	TAILQ_HEAD(, nand_op) null_done; /* null timing: complete at next advance */
	uint64_t inflight;
	uint64_t now; /* time of the advance() in progress */
	uint8_t *erased_page; /* 0xff page for reads of erased pages */
	struct nand_stats stats;
	struct nand_die_tenants *ten_mem; /* per die */
	struct nand_opq *tq_mem; /* the dies' tenant queues */
	struct nand_tenant_stats *ts_mem;
	uint64_t *cost; /* ntenants: a scheduler's costs, all UINT64_MAX between picks */
	uint8_t *best; /* ntenants: each one's best class in a group pick */
	struct nand_rel_state *rel; /* cfg.rel enabled (and a store): wear state */
	uint32_t *fail_programs; /* per die: programs still to fail (nand_fail_programs()) */
	bool *offline; /* per die: nand_die_set_offline(), a die-offline fault, the store's flags */
	bool *offline_fault; /* per die: offline by a die-offline fault (back when it is cleared) */
	/* Faults on demand (nand_dev_set_faults()): erases and programs by die; NULL: none. */
	struct blox_fault_reg *faults;
	char fault_name[BLOX_FAULT_NAME_MAX];
	bool plp_flush; /* nand_set_plp_flush(): programs suspend running erases */
	/*
	 * Ops of a tenant whose power was cut (nand_power_cut_tenant()) that
	 * were running on a die: timing-only copies the engine owns, which
	 * keep the die (and channel) as busy as the op did and complete into
	 * nothing; linked through tlink, freed at completion or destroy.
	 */
	TAILQ_HEAD(, nand_op) ghosts;
	/* With a store that can lend (peek): its pins for reads lent (lend.c). */
	struct nand_lend_tab *lend;
};

/* The address of plane @p of @op (a multi-plane op names each plane's block the same way). */
static inline struct nand_addr nand_plane_addr(const struct nand_op *op, uint32_t p)
{
	struct nand_addr a = op->addr;

	if (op->nplanes > 1)
		a.plane = p;
	return a;
}

/* lend.c */
int nand_lend_init(struct nand_dev *dev);
/*
 * The device goes: its pins go with the last read it lent. @close (its
 * store) is closed then too; NULL: the caller closes the store, and the
 * device waits (bounded) for its lent reads first.
 */
void nand_lend_fini(struct nand_dev *dev, struct nand_store *close);
/* Wait (bounded) for the lent reads of @block to come back: its bytes go without an erase. */
void nand_lend_wait(struct nand_dev *dev, uint64_t block);
/* At a read's completion: lend its segment if it may (nand_op.lend); true if lent. */
bool nand_lend(struct nand_dev *dev, struct nand_op *op, uint64_t page, uint64_t block);
/* An erase (and its multi-plane group) ends at @t: is a block of it still pinned? */
bool nand_erase_pinned(struct nand_dev *dev, const struct nand_op *op);

/* power.c: free the ghosts still in flight (a device's power cut, its destroy). */
void nand_ghosts_free(struct nand_dev *dev);

/* reliability.c */
struct nand_rel_state {
	uint64_t rng;
	uint64_t prog_rng; /* program failures' draws */
	uint32_t *reads; /* per block, since its erase */
	/* Per block: when its first page was programmed (INT64_MIN: erased); ageing moves it back. */
	int64_t *prog_ns;
	uint64_t **bad; /* per block, lazily: a bit per page found uncorrectable */
};

int nand_rel_init(struct nand_dev *dev);
void nand_rel_fini(struct nand_dev *dev);
/* Factory bad blocks (nand_config.factory_bad_ppm) marked in the store and counted. */
int nand_factory_mark(struct nand_dev *dev);
/* A read starts at @t: sample its errors; the array time its retries add. */
uint64_t nand_rel_read_start(struct nand_dev *dev, struct nand_op *op, uint64_t t);
/* An erase completes: does it fail (the block then bad)? */
bool nand_rel_erase_fails(struct nand_dev *dev, struct nand_op *op);
/* An erase completes: does an injected fault fail it (the block then bad)? */
bool nand_fault_erase_fails(struct nand_dev *dev, struct nand_op *op);
/* Whether an injected fault of kind @k fails @op (on a die of this device). */
bool nand_fault_fires(struct nand_dev *dev, const struct nand_op *op, enum blox_fault_kind k);

/* die_offline.c */
/* @op starts: is its die offline (nand_die_set_offline(), a die-offline fault)? */
bool nand_op_die_offline(struct nand_dev *dev, const struct nand_op *op);
/* At create: the dies the store keeps offline (NAND_BLOCK_OFFLINE) are offline. */
void nand_offline_load(struct nand_dev *dev);
/* A read of data completes: does an injected die-fail fault fail it (nothing handed over)? */
bool nand_fault_read_fails(struct nand_dev *dev, const struct nand_op *op);
/*
 * A program completes: does it fail (forced by nand_fail_programs(), or
 * drawn by the model when it is on)? The block is bad then.
 */
bool nand_program_fails(struct nand_dev *dev, struct nand_op *op);
/* @op completed at @t: reads, program times, erases, uncorrectable pages. */
void nand_rel_complete(struct nand_dev *dev, struct nand_op *op, uint64_t t);

/* engine.c */
void nand_heap_set(struct nand_heap *h, uint32_t id, uint64_t key);
void nand_heap_del(struct nand_heap *h, uint32_t id);

/* engine_die.c */
/* Start what can start on @d at @t (or consider suspending what runs there). */
void nand_die_kick(struct nand_dev *dev, struct nand_die *d, uint64_t t);

/* engine_sched.c */
/* Tenants on: @op, just queued on @d's class queue, joins its tenant's. */
void nand_tenant_enqueue(struct nand_dev *dev, struct nand_die *d, struct nand_op *op);
/* Tenants on: @op, leaving @d's class queue, leaves its tenant's. */
void nand_tenant_dequeue(struct nand_dev *dev, struct nand_die *d, struct nand_op *op);
/* @op (not a multi-plane partner) starts on @d: what it costs its tenant. */
void nand_tenant_started(struct nand_dev *dev, struct nand_die *d, const struct nand_op *op);
/* With a die scheduler: the op to start now on @d, whose best class waiting is @p. */
struct nand_op *nand_class_pick(struct nand_dev *dev, struct nand_die *d, uint32_t p);
/* With a bus scheduler: the die to take channel @ch next (@first: the queue's head). */
struct nand_die *nand_bus_pick(struct nand_dev *dev, uint32_t ch, struct nand_die *first);
/* @lead, starting at @t, takes queued partners for the die's other planes. */
void nand_mp_gather(struct nand_dev *dev, struct nand_die *d, struct nand_op *lead, uint64_t t);

/* engine_suspend.c */
/* A host read waits behind the program/erase in @d's array phase: suspend it? */
void nand_consider_suspend(struct nand_dev *dev, struct nand_die *d, uint64_t t);
/* The power-loss flush: a program waits behind the erase in @d's array phase? */
static inline bool nand_plp_wants_suspend(const struct nand_dev *dev, const struct nand_die *d)
{
	return dev->plp_flush && d->cur && d->cur->kind == NAND_OP_ERASE &&
	       (d->nq_prio[NAND_PRIO_HOST_WRITE] || d->nq_prio[NAND_PRIO_GC_WRITE]);
}
/* Suspend the program/erase in @d's array phase at @t. */
void nand_suspend_now(struct nand_dev *dev, struct nand_die *d, uint64_t t);

/* ---- helpers of the engine's files ---- */

static inline const struct nand_timing *nand_dev_timing(const struct nand_dev *dev)
{
	return &dev->cfg.timing;
}

static inline uint64_t nand_array_time(const struct nand_dev *dev, const struct nand_op *op)
{
	const struct nand_timing *t = nand_dev_timing(dev);
	uint32_t type = nand_page_type(&dev->cfg.geo, op->addr.page);

	switch (op->kind) {
	case NAND_OP_READ:
		return t->t_read_ns[type];
	case NAND_OP_PROGRAM:
		return t->t_prog_ns[type];
	default:
		return t->t_erase_ns;
	}
}

static inline uint64_t nand_bus_time(const struct nand_dev *dev, const struct nand_op *op)
{
	const struct nand_timing *t = nand_dev_timing(dev);
	uint64_t bytes = 0;

	/* One command cycle for a multi-plane group, every plane's data. */
	for (; op; op = op->mp_next)
		bytes += (uint64_t)(op->xfer_bytes ? op->xfer_bytes : dev->cfg.geo.page_size) *
			 op->nplanes;
	/* MB/s is bytes per microsecond: ns = bytes * 1000 / MBps, rounded up. */
	return t->t_cmd_ns + (bytes * 1000 + t->bus_mbps - 1) / t->bus_mbps;
}

/* @d's tenants (kept beside the dies, not in them: a die stays 256 bytes). */
static inline struct nand_die_tenants *nand_dten(struct nand_dev *dev, const struct nand_die *d)
{
	return &dev->ten_mem[d->idx];
}

static inline struct nand_opq *nand_tq(struct nand_die_tenants *dt, uint32_t t, uint32_t p)
{
	return &dt->q[t * NAND_PRIOS + p];
}

static inline uint32_t nand_die_event_id(const struct nand_die *d)
{
	return d->idx;
}

static inline uint32_t nand_chan_event_id(const struct nand_dev *dev, uint32_t ch)
{
	return dev->nr_dies + ch;
}

static inline void nand_die_event_at(struct nand_dev *dev, struct nand_die *d, uint64_t t)
{
	nand_heap_set(&dev->heap, nand_die_event_id(d), t);
}

static inline __attribute__((always_inline)) void nand_dequeue(struct nand_dev *dev,
							   struct nand_die *d,
							   struct nand_op *op)
{
	TAILQ_REMOVE(&d->q[op->prio], op, link);
	d->nq--;
	d->nq_prio[op->prio]--;
	d->st.queued = d->nq;
	if (dev->ntenants)
		nand_tenant_dequeue(dev, d, op);
}

/* ops.c */
/* Check the flash rules at the moment @op starts on its die. */
int nand_op_start_check(struct nand_dev *dev, struct nand_op *op);
/* Finish @op at modeled time @t: store access, stats, callback. */
void nand_op_complete(struct nand_dev *dev, struct nand_op *op, uint64_t t);

#endif
