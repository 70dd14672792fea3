/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reactors and their message hand-off (reactor.h).
 *
 * Waking a receiver is a Dekker-style pair of flags: the receiver, done
 * draining, sets @armed and then looks at its rings once more; a sender,
 * having pushed, looks at @armed and, when it takes it (1 -> 0), writes
 * the receiver's eventfd. A full fence on each side between its write and
 * its read means at least one of them sees the other: a message is never
 * left in a ring with its receiver asleep. A receiver that is busy (not
 * armed) costs its senders no system call.
 */
#include "reactor.h"

#include <errno.h>
#include <event2/event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "blox_ring.h"
#include "blox_util.h"

/* Messages run per drain before the loop gets a turn for its sockets. */
#define DRAIN_BATCH 512
/* A full ring is tried again this soon. */
#define RETRY_US 50

struct blox_reactor {
	struct blox_reactors *rs;
	unsigned id;
	struct event_base *base;
	bool own_base;
	int efd;
	struct event *efd_ev; /* the eventfd: messages came */
	struct event *retry_ev; /* messages wait for room in a full ring */
	pthread_t thread;
	pthread_t self; /* its thread, as it knows itself (set before start returns) */
	uint32_t self_set; /* atomic */
	bool started;
	bool stop; /* set by stop_msg, on this reactor */
	bool polling; /* thread in its poll budget: not armed, drains each pass */
	uint32_t armed; /* 1: a sender must signal (atomic) */
	/* Messages to reactor i waiting for room in ring [id][i], in order. */
	struct blox_msg *wait_head[BLOX_REACTORS_MAX];
	struct blox_msg *wait_tail[BLOX_REACTORS_MAX];
	uint64_t work;
	uint64_t idle_since; /* when a pass that may sleep last began */
	struct blox_reactor_stats st; /* atomic adds */
	struct blox_msg stop_msg;
};

struct blox_reactors {
	unsigned n;
	unsigned poll_us;
	const struct blox_clock *clk;
	struct blox_log *log;
	struct blox_reactor r[BLOX_REACTORS_MAX];
	/* rings[from * n + to] */
	struct blox_ring *rings;
};

static inline struct blox_ring *ring_of(struct blox_reactors *rs, unsigned from,
					unsigned to)
{
	return &rs->rings[from * rs->n + to];
}

static void stat_add(uint64_t *c, uint64_t n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static void signal_to(struct blox_reactor *to)
{
	uint64_t one = 1;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&to->armed, __ATOMIC_RELAXED) ||
	    !__atomic_exchange_n(&to->armed, 0, __ATOMIC_SEQ_CST))
		return;
	stat_add(&to->st.wakeups, 1);
	/* Only EAGAIN (counter full) can fail: it is signalled anyway. */
	while (write(to->efd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

/* Move what waits for ring [from][to] into it; true when all went. */
static bool flush_waits(struct blox_reactor *from, unsigned to)
{
	struct blox_ring *ring = ring_of(from->rs, from->id, to);
	struct blox_msg *m;
	bool moved = false;

	while ((m = from->wait_head[to])) {
		/*
		 * Read before the push: once in the ring, @m is the receiver's,
		 * which may run it and send it again (writing m->next) at once.
		 */
		struct blox_msg *next = m->next;

		if (!blox_ring_push(ring, m))
			break;
		from->wait_head[to] = next;
		if (!next)
			from->wait_tail[to] = NULL;
		moved = true;
	}
	if (moved)
		signal_to(&from->rs->r[to]);
	return !from->wait_head[to];
}

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_reactor *r = arg;
	bool all = true;

	(void)fd;
	(void)what;
	for (unsigned i = 0; i < r->rs->n; i++)
		if (r->wait_head[i] && !flush_waits(r, i))
			all = false;
	if (!all) {
		struct timeval tv = { 0, RETRY_US };
		event_add(r->retry_ev, &tv);
	}
}

void blox_reactor_send(struct blox_reactor *from, struct blox_reactor *to,
		       struct blox_msg *m)
{
	unsigned t = to->id;

	m->next = NULL;
	if (!from->wait_head[t] && blox_ring_push(ring_of(from->rs, from->id, t), m)) {
		signal_to(to);
		return;
	}
	/* Full, or older messages wait: keep the order. */
	if (from->wait_tail[t])
		from->wait_tail[t]->next = m;
	else
		from->wait_head[t] = m;
	from->wait_tail[t] = m;
	stat_add(&from->st.deferred, 1);
	if (!flush_waits(from, t) && !event_pending(from->retry_ev, EV_TIMEOUT, NULL)) {
		struct timeval tv = { 0, RETRY_US };
		event_add(from->retry_ev, &tv);
	}
}

/* Run up to @budget messages from every ring into @r; how many ran. */
static unsigned drain_rings(struct blox_reactor *r, unsigned budget)
{
	struct blox_reactors *rs = r->rs;
	unsigned ran = 0;
	bool more = true;

	while (more && ran < budget) {
		more = false;
		for (unsigned i = 0; i < rs->n && ran < budget; i++) {
			struct blox_msg *m = blox_ring_pop(ring_of(rs, i, r->id));

			if (m) {
				m->fn(m);
				ran++;
				more = true;
			}
		}
	}
	if (ran) {
		stat_add(&r->st.msgs_in, ran);
		r->work++;
	}
	return ran;
}

static bool rings_empty(struct blox_reactor *r)
{
	for (unsigned i = 0; i < r->rs->n; i++)
		if (!blox_ring_empty(ring_of(r->rs, i, r->id)))
			return false;
	return true;
}

/*
 * Drain, then arm: after the fence, rings seen empty stay ours to be
 * woken for. With messages left over (the batch ran out) the eventfd
 * event is made active again so sockets get a turn first.
 */
static void drain_and_arm(struct blox_reactor *r)
{
	for (;;) {
		if (drain_rings(r, DRAIN_BATCH) == DRAIN_BATCH && !r->stop) {
			event_active(r->efd_ev, EV_READ, 0);
			return;
		}
		if (r->polling || r->stop)
			return;
		__atomic_store_n(&r->armed, 1, __ATOMIC_SEQ_CST);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (rings_empty(r))
			return;
		/* Something came in between: take the flag back, drain again. */
		__atomic_store_n(&r->armed, 0, __ATOMIC_SEQ_CST);
	}
}

static void efd_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_reactor *r = arg;
	uint64_t v;

	(void)what;
	while (read(fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
	drain_and_arm(r);
}

static void stop_fn(struct blox_msg *m)
{
	struct blox_reactor *r = container_of(m, struct blox_reactor, stop_msg);

	r->stop = true;
	event_base_loopbreak(r->base);
}

/*
 * A reactor thread: libevent passes; after a pass that did work, with a
 * poll budget, zero-timeout passes (rings drained each time, no eventfd
 * signals asked for) until the budget passes without work.
 */
static void *reactor_main(void *arg)
{
	struct blox_reactor *r = arg;
	uint64_t budget_ns = (uint64_t)r->rs->poll_us * 1000;
	char name[16];

	r->self = pthread_self();
	__atomic_store_n(&r->self_set, 1, __ATOMIC_RELEASE);
	snprintf(name, sizeof(name), "bloxd-r%u", r->id);
	pthread_setname_np(pthread_self(), name);
	while (!r->stop) {
		uint64_t w = r->work, until;

		r->idle_since = blox_clock_now(r->rs->clk);
		event_base_loop(r->base, EVLOOP_ONCE);
		stat_add(&r->st.passes, 1);
		if (!budget_ns || r->work == w || r->stop)
			continue;
		r->polling = true;
		__atomic_store_n(&r->armed, 0, __ATOMIC_SEQ_CST);
		until = blox_clock_now(r->rs->clk) + budget_ns;
		while (!r->stop) {
			uint64_t now;

			w = r->work;
			drain_rings(r, DRAIN_BATCH);
			event_base_loop(r->base, EVLOOP_NONBLOCK);
			stat_add(&r->st.passes, 1);
			now = blox_clock_now(r->rs->clk);
			if (r->work != w)
				until = now + budget_ns;
			else if (now >= until)
				break;
		}
		r->polling = false;
		drain_and_arm(r);
	}
	/* Whatever was sent before the stop message has run. */
	return NULL;
}

static int reactor_init(struct blox_reactors *rs, unsigned id, struct event_base *base0)
{
	struct blox_reactor *r = &rs->r[id];

	r->rs = rs;
	r->id = id;
	r->armed = 1;
	r->efd = -1;
	r->stop_msg.fn = stop_fn;
	if (id == 0) {
		r->base = base0;
		r->self = pthread_self();
		r->self_set = 1;
	} else {
		/*
		 * As reactor 0's: timers to the microsecond (timerfd), not the
		 * millisecond of epoll_wait's timeout; the NAND devices' real-time
		 * drivers live on these too.
		 */
		struct event_config *ec = event_config_new();

		if (ec)
			event_config_set_flag(ec, EVENT_BASE_FLAG_PRECISE_TIMER);
		r->base = ec ? event_base_new_with_config(ec) : NULL;
		if (ec)
			event_config_free(ec);
		r->own_base = true;
		if (!r->base)
			return -ENOMEM;
	}
	r->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (r->efd < 0)
		return -errno;
	r->efd_ev = event_new(r->base, r->efd, EV_READ | EV_PERSIST, efd_cb, r);
	r->retry_ev = evtimer_new(r->base, retry_cb, r);
	if (!r->efd_ev || !r->retry_ev || event_add(r->efd_ev, NULL))
		return -ENOMEM;
	return 0;
}

static void reactor_fini(struct blox_reactor *r)
{
	if (r->efd_ev)
		event_free(r->efd_ev);
	if (r->retry_ev)
		event_free(r->retry_ev);
	if (r->efd >= 0)
		close(r->efd);
	if (r->own_base && r->base)
		event_base_free(r->base);
	memset(r, 0, sizeof(*r));
	r->efd = -1;
}

int blox_reactors_create(struct event_base *base0, unsigned n, unsigned poll_us,
			 const struct blox_clock *clk, struct blox_log *log,
			 struct blox_reactors **out)
{
	struct blox_reactors *rs;
	int rc = -ENOMEM;

	if (!base0 || n < 1 || n > BLOX_REACTORS_MAX || (poll_us && !clk))
		return -EINVAL;
	rs = calloc(1, sizeof(*rs));
	if (!rs)
		return -ENOMEM;
	rs->n = n;
	rs->poll_us = poll_us;
	rs->clk = clk;
	rs->log = log;
	for (unsigned i = 0; i < BLOX_REACTORS_MAX; i++)
		rs->r[i].efd = -1;
	rs->rings = calloc((size_t)n * n, sizeof(*rs->rings));
	if (!rs->rings)
		goto fail;
	for (unsigned i = 0; i < n * n; i++)
		if ((rc = blox_ring_init(&rs->rings[i], BLOX_REACTOR_RING)))
			goto fail;
	for (unsigned i = 0; i < n; i++)
		if ((rc = reactor_init(rs, i, base0)))
			goto fail;
	*out = rs;
	return 0;
fail:
	blox_reactors_destroy(rs);
	return rc;
}

int blox_reactors_start(struct blox_reactors *rs)
{
	for (unsigned i = 1; i < rs->n; i++) {
		struct blox_reactor *r = &rs->r[i];
		int rc = pthread_create(&r->thread, NULL, reactor_main, r);

		if (rc) {
			blox_log(rs->log, BLOX_LOG_ERR, "reactor %u: cannot start a thread: %s", i,
				 strerror(rc));
			blox_reactors_stop(rs);
			return -rc;
		}
		r->started = true;
		/* Known before anyone asks (blox_reactor_call() from another thread). */
		while (!__atomic_load_n(&r->self_set, __ATOMIC_ACQUIRE))
			usleep(RETRY_US);
	}
	return 0;
}

void blox_reactors_stop(struct blox_reactors *rs)
{
	struct blox_reactor *r0 = &rs->r[0];

	for (unsigned i = 1; i < rs->n; i++)
		if (rs->r[i].started)
			blox_reactor_send(r0, &rs->r[i], &rs->r[i].stop_msg);
	for (unsigned i = 1; i < rs->n; i++) {
		struct blox_reactor *r = &rs->r[i];

		/* A full ring: the stop message waits on our side; push it. */
		while (r->started && r0->wait_head[i]) {
			flush_waits(r0, i);
			if (r0->wait_head[i])
				usleep(RETRY_US);
		}
		if (r->started) {
			pthread_join(r->thread, NULL);
			r->started = false;
		}
	}
}

void blox_reactors_destroy(struct blox_reactors *rs)
{
	if (!rs)
		return;
	for (unsigned i = 0; i < rs->n; i++)
		if (rs->r[i].started)
			return; /* never free under a running thread */
	for (unsigned i = rs->n; i-- > 0;)
		reactor_fini(&rs->r[i]);
	if (rs->rings)
		for (unsigned i = 0; i < rs->n * rs->n; i++)
			blox_ring_fini(&rs->rings[i]);
	free(rs->rings);
	free(rs);
}

unsigned blox_reactors_count(const struct blox_reactors *rs)
{
	return rs->n;
}

struct blox_reactor *blox_reactor_at(struct blox_reactors *rs, unsigned i)
{
	return i < rs->n ? &rs->r[i] : NULL;
}

unsigned blox_reactor_id(const struct blox_reactor *r)
{
	return r->id;
}

struct event_base *blox_reactor_base(struct blox_reactor *r)
{
	return r->base;
}

struct blox_reactors *blox_reactor_set(struct blox_reactor *r)
{
	return r->rs;
}

/* A call waiting on its caller's stack for its reactor to run it. */
struct call {
	struct blox_msg msg;
	void (*fn)(void *arg);
	void *arg;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool done;
};

static void call_fn(struct blox_msg *m)
{
	struct call *c = container_of(m, struct call, msg);

	c->fn(c->arg);
	pthread_mutex_lock(&c->mu);
	c->done = true;
	pthread_cond_signal(&c->cv);
	pthread_mutex_unlock(&c->mu);
}

void blox_reactor_call(struct blox_reactor *from, struct blox_reactor *to,
		       void (*fn)(void *arg), void *arg)
{
	struct call c = { .msg.fn = call_fn, .fn = fn, .arg = arg };

	if (!from || !to || from == to || pthread_equal(pthread_self(), to->self)) {
		fn(arg);
		return;
	}
	pthread_mutex_init(&c.mu, NULL);
	pthread_cond_init(&c.cv, NULL);
	blox_reactor_send(from, to, &c.msg);
	pthread_mutex_lock(&c.mu);
	while (!c.done) {
		struct timespec ts;

		/*
		 * Our loop is not running: its retry timer cannot push what
		 * waits for a full ring to @to, the call included. Push it here.
		 */
		if (from->wait_head[to->id]) {
			pthread_mutex_unlock(&c.mu);
			flush_waits(from, to->id);
			pthread_mutex_lock(&c.mu);
			if (c.done)
				break;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += RETRY_US * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&c.cv, &c.mu, &ts);
	}
	pthread_mutex_unlock(&c.mu);
	pthread_cond_destroy(&c.cv);
	pthread_mutex_destroy(&c.mu);
}

void blox_reactor_worked(struct blox_reactor *r)
{
	r->work++;
}

uint64_t blox_reactor_idle_since(const struct blox_reactor *r)
{
	return r->idle_since;
}

uint64_t blox_reactor_cpu_ns(const struct blox_reactor *r)
{
	clockid_t id;
	struct timespec ts;

	if (!__atomic_load_n(&r->self_set, __ATOMIC_ACQUIRE) ||
	    pthread_getcpuclockid(r->self, &id) || clock_gettime(id, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void blox_reactor_stats(const struct blox_reactor *r, struct blox_reactor_stats *out)
{
	out->msgs_in = __atomic_load_n(&r->st.msgs_in, __ATOMIC_RELAXED);
	out->wakeups = __atomic_load_n(&r->st.wakeups, __ATOMIC_RELAXED);
	out->deferred = __atomic_load_n(&r->st.deferred, __ATOMIC_RELAXED);
	out->passes = __atomic_load_n(&r->st.passes, __ATOMIC_RELAXED);
}
