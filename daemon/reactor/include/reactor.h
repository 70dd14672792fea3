/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reactors: N event loops, one thread each. Reactor 0 is the daemon's
 * main loop (the caller's thread and event base); reactors 1..N-1 run on
 * threads of their own, each with its own event base. Every object lives
 * on one reactor and is touched only there; work moves between reactors
 * as messages.
 *
 * A message is a struct blox_msg embedded in the object it is about: no
 * allocation per message. blox_reactor_send() puts it on the lock-free
 * single-producer ring from the sender to the receiver (one ring per
 * ordered pair of reactors), and the receiver runs m->fn(m) on its own
 * thread, in the order sent (per pair). Whatever the sender wrote before
 * sending is visible to the receiver when fn runs (release/acquire), so
 * an object handed over by a message needs no lock. A receiver that may
 * be asleep is woken through its eventfd, once per drain: a receiver
 * that is draining its rings is not signalled again.
 *
 * When a ring is full, messages wait in order on the sender's side and
 * go out as room comes (at the next send to that reactor, or from a
 * short timer); nothing is dropped and order is kept.
 */
#ifndef BLOX_REACTOR_H
#define BLOX_REACTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "blox_clock.h"
#include "blox_log.h"
#include "blox_msg.h"

struct event_base;
struct blox_reactor;
struct blox_reactors;

/* Most reactors a daemon runs (--reactors). */
#define BLOX_REACTORS_MAX 16
/* Entries of each ring (per ordered pair of reactors). */
#define BLOX_REACTOR_RING 4096


/*
 * Reactor 0 on @base0 (the caller's loop, which the caller runs), and
 * @n - 1 more, not started yet. @poll_us: how long a reactor thread keeps
 * polling its loop (zero-timeout passes) after a pass that did work,
 * before it sleeps (0: sleep at once; otherwise @clk is required).
 * 0 or -errno.
 */
int blox_reactors_create(struct event_base *base0, unsigned n, unsigned poll_us,
			 const struct blox_clock *clk, struct blox_log *log,
			 struct blox_reactors **out);
/* Start the threads of reactors 1..n-1. 0 or -errno (none left running). */
int blox_reactors_start(struct blox_reactors *rs);
/*
 * From reactor 0: stop the threads (each finishes the messages sent to it
 * before) and join them. Whatever lives on them must be gone already.
 */
void blox_reactors_stop(struct blox_reactors *rs);
void blox_reactors_destroy(struct blox_reactors *rs);

unsigned blox_reactors_count(const struct blox_reactors *rs);
struct blox_reactor *blox_reactor_at(struct blox_reactors *rs, unsigned i);
unsigned blox_reactor_id(const struct blox_reactor *r);
struct event_base *blox_reactor_base(struct blox_reactor *r);
struct blox_reactors *blox_reactor_set(struct blox_reactor *r);

/*
 * On @from's thread: run m->fn(m) on @to's thread. @from == @to: later on
 * the same reactor, never inside this call. @m must not be sent again
 * before its fn has started.
 */
void blox_reactor_send(struct blox_reactor *from, struct blox_reactor *to,
		       struct blox_msg *m);

/*
 * On @from's thread: run fn(arg) on @to's thread and wait until it has
 * run (@from == @to, either NULL, or called on @to's thread: here, at
 * once). Everything either
 * side wrote before is visible to the other after. For work that must be
 * done where an object lives, from a reactor that may wait (the one of
 * the admin API): @to must never wait for @from, or they would deadlock;
 * messages @from sends meanwhile to other reactors wait in order.
 */
void blox_reactor_call(struct blox_reactor *from, struct blox_reactor *to,
		       void (*fn)(void *arg), void *arg);

/*
 * On @r's thread: this pass did work (commands, data): a reactor thread
 * with a poll budget keeps polling. Reactor 0's loop is the caller's.
 */
void blox_reactor_worked(struct blox_reactor *r);

/*
 * On @r's thread (a reactor thread, not reactor 0): when it last began a
 * pass that may sleep in epoll_wait (its clock; 0: never).
 */
uint64_t blox_reactor_idle_since(const struct blox_reactor *r);

/* CPU time its thread has used (ns), from any thread; 0 when unknown. */
uint64_t blox_reactor_cpu_ns(const struct blox_reactor *r);

/* Counters of one reactor, readable from any thread. */
struct blox_reactor_stats {
	uint64_t msgs_in; /* messages run on this reactor */
	uint64_t wakeups; /* eventfd signals it was sent */
	uint64_t deferred; /* messages it sent that waited for room in a full ring */
	uint64_t passes; /* loop passes (threads only) */
};
void blox_reactor_stats(const struct blox_reactor *r, struct blox_reactor_stats *out);

#endif
