/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private state of the NAND timing engine, shared by engine.c (scheduling)
 * and ops.c (submission, rules, store access, completion). Tests include
 * it to look at die and channel state.
 */
#ifndef BLOX_NAND_ENGINE_INTERNAL_H
#define BLOX_NAND_ENGINE_INTERNAL_H

#include "nand.h"

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
};

/* engine.c */
void nand_heap_set(struct nand_heap *h, uint32_t id, uint64_t key);
void nand_heap_del(struct nand_heap *h, uint32_t id);
void nand_die_kick(struct nand_dev *dev, struct nand_die *d, uint64_t t);
/* Tenants on: @op, just queued on @d's class queue, joins its tenant's. */
void nand_tenant_enqueue(struct nand_dev *dev, struct nand_die *d, struct nand_op *op);

/* ops.c */
/* Check the flash rules at the moment @op starts on its die. */
int nand_op_start_check(struct nand_dev *dev, struct nand_op *op);
/* Finish @op at modeled time @t: store access, stats, callback. */
void nand_op_complete(struct nand_dev *dev, struct nand_op *op, uint64_t t);

#endif
