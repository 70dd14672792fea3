/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bounded lock-free ring of pointers between exactly one producer thread
 * and one consumer thread (Lamport's single-producer/single-consumer queue
 * with C11 acquire/release ordering). The producer owns @tail, the
 * consumer @head; each reads the other's with acquire, so a pointer pushed
 * is seen whole by the consumer that pops it, together with everything
 * the producer wrote before pushing it. No locks, no allocation after
 * blox_ring_init(). The reactors' message hand-off (daemon/reactor/) is
 * built on it.
 */
#ifndef BLOX_RING_H
#define BLOX_RING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct blox_ring {
	uint32_t mask; /* entries - 1, entries a power of two */
	void **slots;
	/* Next slot to pop: written by the consumer only. */
	_Alignas(64) uint32_t head;
	/* Next slot to fill: written by the producer only. */
	_Alignas(64) uint32_t tail;
};

/* @entries: a power of two, 2 .. 2^24. 0, -EINVAL or -ENOMEM. */
int blox_ring_init(struct blox_ring *r, uint32_t entries);
void blox_ring_fini(struct blox_ring *r);

/* Producer: append @p. false when the ring is full (nothing done). */
static inline bool blox_ring_push(struct blox_ring *r, void *p)
{
	uint32_t t = r->tail; /* ours: no other writer */
	uint32_t h = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);

	if (t - h > r->mask)
		return false;
	r->slots[t & r->mask] = p;
	__atomic_store_n(&r->tail, t + 1, __ATOMIC_RELEASE);
	return true;
}

/* Consumer: the oldest pointer, or NULL when the ring is empty. */
static inline void *blox_ring_pop(struct blox_ring *r)
{
	uint32_t h = r->head; /* ours: no other writer */
	void *p;

	if (h == __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE))
		return NULL;
	p = r->slots[h & r->mask];
	__atomic_store_n(&r->head, h + 1, __ATOMIC_RELEASE);
	return p;
}

/* Either side: nothing in the ring as this thread sees it now. */
static inline bool blox_ring_empty(const struct blox_ring *r)
{
	return __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) ==
	       __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
}

/* Entries in the ring (a snapshot). */
static inline uint32_t blox_ring_count(const struct blox_ring *r)
{
	return __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
}

#endif
