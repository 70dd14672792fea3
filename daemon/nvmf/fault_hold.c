/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Faults on demand that the NVMe core carries out (docs/FAULTS.md):
 *
 * - latency: an I/O command's completion (a read's or write's, or with
 *   another --op a Flush's, Write Zeroes', Dataset Management's,
 *   Compare's, ...), once the backend gave it, waits for the delay the
 *   fault draws, so the host sees the command that much later and the
 *   namespace's read and write latency counts it; with --op admin an
 *   admin command waits that long before it runs, with --op fabrics a
 *   Fabrics command (a Connect of any queue, a Property Get or Set, ...);
 * - queue-stall: a host's I/O commands that arrive while the stall lasts
 *   are held, not executed, and run in arrival order when it ends (or is
 *   cleared);
 * - ka-ignore: a Keep Alive is held and never answered while the fault is
 *   there, so the host's keep-alive timeout fires; its queue ending, or the
 *   fault cleared, ends it;
 * - host-drop with a start condition or a probability: a host's I/O
 *   commands are the sites; when it fires, the host's controllers drop.
 *
 * Held commands wait in one list on reactor 0, by the time they go on,
 * behind one timer; nothing blocks the loop. The timer checks the clock
 * when it fires (it may fire early: docs/ARCHITECTURE.md, Time).
 */
#include "fault_hold.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

static void hold_cb(evutil_socket_t fd, short what, void *arg);

static void hold_arm(struct nvmf_tgt *tgt)
{
	struct nvmf_req *first = TAILQ_FIRST(&tgt->held);
	uint64_t now, d;
	struct timeval tv;

	if (!tgt->hold_ev)
		return;
	if (!first || !first->hold_until) {
		evtimer_del(tgt->hold_ev);
		return;
	}
	now = blox_clock_now(tgt->clock);
	d = first->hold_until > now ? first->hold_until - now : 0;
	tv.tv_sec = (time_t)(d / 1000000000ull);
	tv.tv_usec = (suseconds_t)(d % 1000000000ull / 1000);
	evtimer_add(tgt->hold_ev, &tv);
}

void nvmf_req_hold(struct nvmf_req *req, uint64_t until_ns, uint32_t fault_id,
		   void (*fn)(struct nvmf_req *req))
{
	struct nvmf_tgt *tgt = req->sq->tgt;
	struct nvmf_req *at;

	if (!tgt->hold_ev && tgt->base)
		tgt->hold_ev = evtimer_new(tgt->base, hold_cb, tgt);
	req->hold_until = until_ns;
	req->hold_fault = fault_id;
	req->hold_fn = fn;
	tgt->nr_held++;
	req->sq->held++;
	if (!until_ns || !tgt->hold_ev) {
		TAILQ_INSERT_TAIL(&tgt->held, req, hold_link);
	} else {
		/* Mostly in order: look from the end for the last one due no later. */
		at = TAILQ_LAST(&tgt->held, nvmf_req_hold_list);
		while (at && (!at->hold_until || at->hold_until > until_ns))
			at = TAILQ_PREV(at, nvmf_req_hold_list, hold_link);
		if (at)
			TAILQ_INSERT_AFTER(&tgt->held, at, req, hold_link);
		else
			TAILQ_INSERT_HEAD(&tgt->held, req, hold_link);
	}
	hold_arm(tgt);
}

static void unhold(struct nvmf_tgt *tgt, struct nvmf_req *req)
{
	TAILQ_REMOVE(&tgt->held, req, hold_link);
	tgt->nr_held--;
	req->sq->held--;
}

static void hold_cb(evutil_socket_t fd, short what, void *arg)
{
	struct nvmf_tgt *tgt = arg;
	uint64_t now = blox_clock_now(tgt->clock);
	struct nvmf_req *req;

	(void)fd;
	(void)what;
	while ((req = TAILQ_FIRST(&tgt->held)) && req->hold_until && req->hold_until <= now) {
		unhold(tgt, req);
		req->hold_fn(req);
	}
	hold_arm(tgt);
}

uint64_t nvmf_holds_count(const struct nvmf_tgt *tgt)
{
	return tgt->nr_held;
}

uint64_t nvmf_holds_of(const struct nvmf_tgt *tgt, uint32_t fault_id)
{
	const struct nvmf_req *req;
	uint64_t n = 0;

	if (!tgt->nr_held)
		return 0;
	TAILQ_FOREACH(req, &tgt->held, hold_link)
		n += req->hold_fault == fault_id;
	return n;
}

void nvmf_faults_cleared(struct nvmf_tgt *tgt)
{
	struct nvmf_req *req, *tmp;
	TAILQ_HEAD(, nvmf_req) go = TAILQ_HEAD_INITIALIZER(go);

	if (!tgt->nr_held)
		return;
	/* Those whose fault is gone go on now, in the order they were held. */
	TAILQ_FOREACH_SAFE(req, &tgt->held, hold_link, tmp) {
		if (blox_fault_get(tgt->faults, req->hold_fault, NULL))
			continue;
		unhold(tgt, req);
		TAILQ_INSERT_TAIL(&go, req, hold_link);
	}
	while ((req = TAILQ_FIRST(&go))) {
		TAILQ_REMOVE(&go, req, hold_link);
		req->hold_fn(req);
	}
	hold_arm(tgt);
}

/* End what is held of queue @sq, or of controller @c, or everything (both NULL). */
static void abort_held(struct nvmf_tgt *tgt, const struct nvmf_sq *sq, const struct nvmf_ctrl *c)
{
	struct nvmf_req *req, *tmp;
	TAILQ_HEAD(, nvmf_req) go = TAILQ_HEAD_INITIALIZER(go);

	if (!tgt->nr_held)
		return;
	TAILQ_FOREACH_SAFE(req, &tgt->held, hold_link, tmp) {
		if ((sq && req->sq != sq) || (c && req->sq->ctrl != c))
			continue;
		unhold(tgt, req);
		TAILQ_INSERT_TAIL(&go, req, hold_link);
	}
	while ((req = TAILQ_FIRST(&go))) {
		TAILQ_REMOVE(&go, req, hold_link);
		nvmf_req_complete(req, NVME_SC_ABORT_QUEUE);
	}
	hold_arm(tgt);
}

void nvmf_holds_abort(struct nvmf_tgt *tgt, struct nvmf_sq *sq)
{
	abort_held(tgt, sq, NULL);
}

void nvmf_holds_abort_ctrl(struct nvmf_ctrl *c)
{
	abort_held(c->tgt, NULL, c);
}

/* ---- the sites ---- */

static uint32_t qd_of(uint64_t n)
{
	return (uint32_t)BLOX_MIN(n, (uint64_t)UINT32_MAX);
}

/*
 * A host dropped by a fault, once the loop comes back to it: on its own
 * timer, in tgt->drops until it fires, so that a stop before that frees it.
 */
struct nvmf_fault_drop {
	struct nvmf_tgt *tgt;
	struct event *ev;
	TAILQ_ENTRY(nvmf_fault_drop) link;
	uint32_t fault;
	char subsys[NVME_NQN_LENGTH];
	char host[NVME_NQN_LENGTH];
};

static void drop_free(struct nvmf_fault_drop *x)
{
	TAILQ_REMOVE(&x->tgt->drops, x, link);
	event_free(x->ev);
	free(x);
}

static void drop_cb(evutil_socket_t fd, short what, void *arg)
{
	struct nvmf_fault_drop *x = arg;
	struct nvmf_subsys *s = nvmf_subsys_find(x->tgt, x->subsys);
	uint32_t n = s ? nvmf_subsys_drop_host(s, x->host, "fault host-drop") : 0;

	(void)fd;
	(void)what;
	blox_log(x->tgt->log, BLOX_LOG_INFO, "fault %u: %u controllers of %s on %s dropped",
		 x->fault, n, x->host, x->subsys);
	drop_free(x);
}

static void drop_later(struct nvmf_tgt *tgt, uint32_t fault, const struct nvmf_ctrl *c)
{
	struct nvmf_fault_drop *x = calloc(1, sizeof(*x));
	struct timeval tv = { 0, 0 };

	if (!x)
		return;
	x->tgt = tgt;
	x->fault = fault;
	snprintf(x->subsys, sizeof(x->subsys), "%s", c->subsys->nqn);
	snprintf(x->host, sizeof(x->host), "%s", c->hostnqn);
	x->ev = tgt->base ? evtimer_new(tgt->base, drop_cb, x) : NULL;
	if (!x->ev) {
		free(x);
		return;
	}
	TAILQ_INSERT_TAIL(&tgt->drops, x, link);
	if (evtimer_add(x->ev, &tv))
		drop_free(x);
}

void nvmf_fault_drops_free(struct nvmf_tgt *tgt)
{
	struct nvmf_fault_drop *x;

	while ((x = TAILQ_FIRST(&tgt->drops)))
		drop_free(x);
}

bool nvmf_fault_io_start(struct nvmf_req *req, void (*run)(struct nvmf_req *req))
{
	struct nvmf_tgt *tgt = req->sq->tgt;
	struct nvmf_ctrl *c = req->sq->ctrl;
	struct blox_fault_site site;
	struct blox_fault f;

	if (!c || !req->sq->qid)
		return false;
	site = (struct blox_fault_site){
		.subsys = c->subsys->nqn,
		.host = c->hostnqn,
		.qid = req->sq->qid,
		.qd = qd_of(c->inflight + 1),
	};
	if (blox_fault_armed(tgt->faults, BLOX_FAULT_HOST_DROP)) {
		site.kind = BLOX_FAULT_HOST_DROP;
		site.now = blox_clock_now(tgt->clock); /* one dropped at once has ended */
		if (blox_fault_match(tgt->faults, &site, &f) && !c->dying)
			drop_later(tgt, f.id, c);
	}
	if (blox_fault_armed(tgt->faults, BLOX_FAULT_QUEUE_STALL)) {
		site.kind = BLOX_FAULT_QUEUE_STALL;
		site.now = blox_clock_now(tgt->clock);
		if (blox_fault_match(tgt->faults, &site, &f)) {
			nvmf_req_hold(req, f.spec.until_ns, f.id, run);
			return true;
		}
	}
	return false;
}

bool nvmf_fault_admin_start(struct nvmf_req *req, void (*run)(struct nvmf_req *req))
{
	struct nvmf_tgt *tgt = req->sq->tgt;
	struct nvmf_ctrl *c = req->sq->ctrl;
	struct blox_fault_site site;
	struct blox_fault f;
	uint64_t now;

	if (!c || req->cmd.opcode == nvme_admin_fabrics ||
	    req->cmd.opcode == nvme_admin_async_event ||
	    !blox_fault_armed(tgt->faults, BLOX_FAULT_DELAY))
		return false;
	now = blox_clock_now(tgt->clock);
	site = (struct blox_fault_site){
		.kind = BLOX_FAULT_DELAY,
		.subsys = c->subsys->nqn,
		.host = c->hostnqn,
		.op = BLOX_FAULT_OP_ADMIN,
		.qd = 1, /* the admin queue has no depth of its own that a fault could ask for */
		.now = now,
	};
	if (!blox_fault_match(tgt->faults, &site, &f))
		return false;
	nvmf_req_hold(req, now + blox_fault_delay_ns(tgt->faults, f.id), f.id, run);
	return true;
}

/*
 * The host and subsystem a Fabrics command is of: its controller's, or,
 * for a Connect (no controller yet), those its data names when they are
 * terminated strings (a Connect that names none is refused as it runs).
 */
static bool fabrics_who(const struct nvmf_req *req, const char **subsys, const char **host)
{
	const struct nvmf_connect_data *d = (const void *)req->buf;

	if (req->sq->ctrl) {
		*subsys = req->sq->ctrl->subsys->nqn;
		*host = req->sq->ctrl->hostnqn;
		return true;
	}
	if ((uint8_t)req->cmd.nsid != nvme_fabrics_type_connect || !d ||
	    req->transfer_len < sizeof(*d) || !memchr(d->subsysnqn, 0, sizeof(d->subsysnqn)) ||
	    !memchr(d->hostnqn, 0, sizeof(d->hostnqn)))
		return false;
	*subsys = d->subsysnqn;
	*host = d->hostnqn;
	return true;
}

bool nvmf_fault_fabrics_start(struct nvmf_req *req, void (*run)(struct nvmf_req *req))
{
	struct nvmf_tgt *tgt = req->sq->tgt;
	struct blox_fault_site site;
	struct blox_fault f;
	uint64_t now;

	if (req->cmd.opcode != nvme_admin_fabrics ||
	    !blox_fault_armed(tgt->faults, BLOX_FAULT_DELAY))
		return false;
	now = blox_clock_now(tgt->clock);
	site = (struct blox_fault_site){
		.kind = BLOX_FAULT_DELAY,
		.op = BLOX_FAULT_OP_FABRICS,
		.qid = req->sq->qid,
		.qd = 1, /* as for the admin queue: no depth a fault could ask for */
		.now = now,
	};
	if (!fabrics_who(req, &site.subsys, &site.host) ||
	    !blox_fault_match(tgt->faults, &site, &f))
		return false;
	nvmf_req_hold(req, now + blox_fault_delay_ns(tgt->faults, f.id), f.id, run);
	return true;
}

void nvmf_fault_latency(struct nvmf_req *req, unsigned op)
{
	struct nvmf_tgt *tgt = req->sq->tgt;
	struct blox_fault_site site;
	struct blox_fault f;

	if (!blox_fault_armed(tgt->faults, BLOX_FAULT_DELAY))
		return;
	site = (struct blox_fault_site){
		.kind = BLOX_FAULT_DELAY,
		.subsys = req->ns->subsys->nqn,
		.host = req->sq->ctrl ? req->sq->ctrl->hostnqn : NULL,
		.nsid = req->ns->nsid,
		.op = op,
		.qd = qd_of(req->ns->inflight + 1),
		.now = blox_clock_now(tgt->clock),
	};
	if (blox_fault_match(tgt->faults, &site, &f)) {
		req->fault_delay_ns = blox_fault_delay_ns(tgt->faults, f.id);
		req->hold_fault = f.id;
	}
}

static void held_complete(struct nvmf_req *req)
{
	nvmf_req_complete(req, req->held_status);
}

void nvmf_req_complete_late(struct nvmf_req *req, uint16_t st)
{
	if (req->fault_delay_ns) {
		req->held_status = st;
		nvmf_req_hold(req, blox_clock_now(req->sq->tgt->clock) + req->fault_delay_ns,
			      req->hold_fault, held_complete);
		return;
	}
	nvmf_req_complete(req, st);
}

static void ka_answer(struct nvmf_req *req)
{
	nvmf_req_complete(req, 0);
}

bool nvmf_fault_keep_alive(struct nvmf_req *req)
{
	struct nvmf_tgt *tgt = req->sq->tgt;
	struct nvmf_ctrl *c = req->sq->ctrl;
	struct blox_fault_site site;
	struct blox_fault f;

	if (!c || !blox_fault_armed(tgt->faults, BLOX_FAULT_KEEPALIVE_DROP))
		return false;
	site = (struct blox_fault_site){
		.kind = BLOX_FAULT_KEEPALIVE_DROP,
		.subsys = c->subsys->nqn,
		.host = c->hostnqn,
		.now = blox_clock_now(tgt->clock),
	};
	if (!blox_fault_match(tgt->faults, &site, &f))
		return false;
	nvmf_req_hold(req, 0, f.id, ka_answer);
	return true;
}
