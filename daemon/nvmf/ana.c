/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Asymmetric Namespace Access: every namespace is in an ANA group
 * (1..NVMF_ANAGRPMAX, 1 unless asked), every port has a state per group
 * (optimized unless set). A host reaching a namespace through a port sees
 * the port's state for the namespace's group: in the ANA log page (0Ch),
 * told of changes by the ANA change notice, and in the path status a
 * command gets when the state does not let it run (ANA Inaccessible,
 * Persistent Loss, Transition). Linux's native multipath sends its I/O
 * down the optimized paths and retries on another path on those statuses.
 * A state may be reached through the change state, held for a time no
 * longer than ANATT (a transition, told at each step).
 */
#include "nvmf.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

/* The ANA log at its largest: header, every group, every namespace. */
#define NVMF_ANA_LOG_MAX                                                                   \
	(sizeof(struct nvme_ana_log) + NVMF_ANAGRPMAX * sizeof(struct nvme_ana_group_desc) + \
	 NVMF_MAX_NS * sizeof(uint32_t))

static const struct {
	uint8_t st;
	const char *name; /* as nvme-cli's ana-log and list-subsys print it */
} ana_names[] = {
	{ NVME_ANA_STATE_OPTIMIZED, "optimized" },
	{ NVME_ANA_STATE_NONOPTIMIZED, "non-optimized" },
	{ NVME_ANA_STATE_INACCESSIBLE, "inaccessible" },
	{ NVME_ANA_STATE_PERSISTENT_LOSS, "persistent-loss" },
	{ NVME_ANA_STATE_CHANGE, "change" },
};

const char *nvmf_ana_state_name(uint8_t st)
{
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(ana_names); i++)
		if (ana_names[i].st == st)
			return ana_names[i].name;
	return "invalid";
}

int nvmf_ana_state_parse(const char *s, uint8_t *st)
{
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(ana_names); i++)
		if (!strcmp(ana_names[i].name, s)) {
			*st = ana_names[i].st;
			return 0;
		}
	return -EINVAL;
}

static bool state_valid(uint8_t st)
{
	return strcmp(nvmf_ana_state_name(st), "invalid") != 0;
}

uint8_t nvmf_port_ana_state(const struct nvmf_port *p, uint32_t grp)
{
	if (!p || grp == 0 || grp > NVMF_ANAGRPMAX || !p->ana_state[grp])
		return NVME_ANA_STATE_OPTIMIZED;
	return p->ana_state[grp];
}

/* The count moves on every change; past its largest value it starts again at 1. */
static uint64_t chgcnt_next(struct nvmf_tgt *tgt)
{
	if (++tgt->ana_chgcnt == UINT64_MAX || tgt->ana_chgcnt == 0)
		tgt->ana_chgcnt = 1;
	return tgt->ana_chgcnt;
}

void nvmf_tgt_ana_changed(struct nvmf_tgt *tgt)
{
	chgcnt_next(tgt);
}

/* The port a controller's admin queue came in through (NULL: none yet). */
static const struct nvmf_port *ctrl_port(const struct nvmf_ctrl *c)
{
	return c->sqs && c->sqs[0] ? c->sqs[0]->port : NULL;
}

/*
 * A transition under way: @port's group @grp is in the change state until
 * @end_ns on the target's clock, then in @target.
 */
struct nvmf_ana_trans {
	struct nvmf_port *port;
	uint32_t grp;
	uint8_t target;
	uint64_t end_ns;
	struct event *ev;
};

static void trans_drop(struct nvmf_port *p, uint32_t grp)
{
	struct nvmf_ana_trans *t = p->ana_trans[grp];

	if (!t)
		return;
	event_free(t->ev);
	free(t);
	p->ana_trans[grp] = NULL;
}

static int set_state(struct nvmf_port *p, uint32_t grp, uint8_t st);

static void trans_arm(struct nvmf_ana_trans *t, uint64_t delay_ns)
{
	struct timeval tv = {
		.tv_sec = (time_t)(delay_ns / 1000000000ull),
		.tv_usec = (suseconds_t)((delay_ns % 1000000000ull) / 1000),
	};

	evtimer_add(t->ev, &tv);
}

/* The change state's time is up (a timer may fire early: then the rest is waited for). */
static void trans_cb(evutil_socket_t fd, short what, void *arg)
{
	struct nvmf_ana_trans *t = arg;
	struct nvmf_port *p = t->port;
	uint64_t now = blox_clock_now(p->tgt->clock);
	uint32_t grp = t->grp;
	uint8_t target = t->target;

	(void)fd;
	(void)what;
	if (now < t->end_ns) {
		trans_arm(t, t->end_ns - now);
		return;
	}
	trans_drop(p, grp);
	set_state(p, grp, target);
	blox_log(p->tgt->log, BLOX_LOG_INFO, "listener %s:%s ANA group %u: change -> %s", p->addr,
		 p->svcid, grp, nvmf_ana_state_name(target));
}

int nvmf_port_ana_transition(struct nvmf_port *p, uint32_t grp, uint8_t st, uint32_t ms)
{
	struct nvmf_ana_trans *t;

	if (grp == 0 || grp > NVMF_ANAGRPMAX || !state_valid(st) ||
	    (ms && st == NVME_ANA_STATE_CHANGE))
		return -EINVAL;
	if (ms > NVMF_ANATT_S * 1000u)
		return -ERANGE;
	if (!ms || (!p->ana_trans[grp] && nvmf_port_ana_state(p, grp) == st))
		return nvmf_port_set_ana_state(p, grp, st);
	if (!p->tgt->base)
		return -ENOTSUP; /* no event loop to end it */
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	t->ev = evtimer_new(p->tgt->base, trans_cb, t);
	if (!t->ev) {
		free(t);
		return -ENOMEM;
	}
	trans_drop(p, grp);
	t->port = p;
	t->grp = grp;
	t->target = st;
	t->end_ns = blox_clock_now(p->tgt->clock) + (uint64_t)ms * 1000000ull;
	p->ana_trans[grp] = t;
	set_state(p, grp, NVME_ANA_STATE_CHANGE);
	trans_arm(t, (uint64_t)ms * 1000000ull);
	return 0;
}

uint8_t nvmf_port_ana_target(const struct nvmf_port *p, uint32_t grp)
{
	if (p && grp >= 1 && grp <= NVMF_ANAGRPMAX && p->ana_trans[grp])
		return p->ana_trans[grp]->target;
	return nvmf_port_ana_state(p, grp);
}

void nvmf_port_ana_stop(struct nvmf_port *p)
{
	for (uint32_t g = 1; g <= NVMF_ANAGRPMAX; g++)
		trans_drop(p, g);
}

int nvmf_port_set_ana_state(struct nvmf_port *p, uint32_t grp, uint8_t st)
{
	if (grp == 0 || grp > NVMF_ANAGRPMAX || !state_valid(st))
		return -EINVAL;
	trans_drop(p, grp);
	return set_state(p, grp, st);
}

/* @grp through @p in @st: the change count moves, @p's controllers are told. */
static int set_state(struct nvmf_port *p, uint32_t grp, uint8_t st)
{
	struct nvmf_subsys *s;
	struct nvmf_ctrl *c;

	if (nvmf_port_ana_state(p, grp) == st)
		return 0;
	p->ana_state[grp] = st;
	p->ana_chgcnt[grp] = chgcnt_next(p->tgt);
	TAILQ_FOREACH(s, &p->tgt->subsystems, link)
		TAILQ_FOREACH(c, &s->ctrls, link)
			if (ctrl_port(c) == p)
				nvmf_ctrl_aen_raise(c, NVMF_AEN_ANA);
	return 0;
}

int nvmf_ns_set_ana_group(struct nvmf_ns *ns, uint32_t grp)
{
	if (grp == 0 || grp > NVMF_ANAGRPMAX)
		return -EINVAL;
	if (ns->anagrpid != grp) {
		ns->anagrpid = grp;
		nvmf_tgt_ana_changed(ns->subsys->tgt);
	}
	return 0;
}

uint16_t nvmf_ana_check(const struct nvmf_req *req, const struct nvmf_ns *ns)
{
	uint16_t path = NVME_SCT_PATH << NVME_SCT_SHIFT;

	switch (nvmf_port_ana_state(req->sq->port, ns->anagrpid)) {
	case NVME_ANA_STATE_INACCESSIBLE:
		return path | NVME_SC_ANA_INACCESSIBLE;
	case NVME_ANA_STATE_PERSISTENT_LOSS:
		return path | NVME_SC_ANA_PERSISTENT_LOSS;
	case NVME_ANA_STATE_CHANGE:
		return path | NVME_SC_ANA_TRANSITION;
	default:
		return 0;
	}
}

/*
 * Log page 0Ch for the controller of @req: one descriptor per group that
 * holds a namespace of its subsystem, by group id, each with the state of
 * the port the controller came in through and, unless @rgo, its
 * namespaces by nsid. Its size is the largest it can be, what hosts
 * compute from NANAGRPID and MNAN (16 + 128 * 32 + 1024 * 4 bytes, well
 * inside the log's scratch buffer), zeroes after the descriptors: nvme-cli
 * reads it in 4 KiB pieces at increasing offsets. Read without RAE, it
 * lets the next change be told.
 */
size_t nvmf_log_ana(struct nvmf_req *req, uint8_t *out, bool rgo, bool rae)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	struct nvme_ana_log *hdr = (void *)out;
	uint32_t members[NVMF_ANAGRPMAX + 1] = { 0 };
	size_t off = sizeof(*hdr);
	uint16_t ngrps = 0;
	struct nvmf_ns *ns;

	_Static_assert(sizeof(struct nvme_ana_group_desc) == 32, "ANA group descriptor");
	TAILQ_FOREACH(ns, &c->subsys->namespaces, link)
		members[ns->anagrpid]++;
	memset(hdr, 0, sizeof(*hdr));
	for (uint32_t g = 1; g <= NVMF_ANAGRPMAX; g++) {
		/* Descriptors after an odd count of nsids are only dword aligned: built aside. */
		struct nvme_ana_group_desc d = { 0 };
		size_t at = off;
		uint32_t n = 0;

		if (!members[g])
			continue;
		d.grpid = g;
		d.chgcnt = req->sq->port ? req->sq->port->ana_chgcnt[g] : 0;
		d.state = nvmf_port_ana_state(req->sq->port, g);
		off += sizeof(d);
		if (!rgo) {
			TAILQ_FOREACH(ns, &c->subsys->namespaces, link)
				if (ns->anagrpid == g)
					memcpy(out + off + 4 * n++, &ns->nsid, 4);
			off += 4 * n;
		}
		d.nnsids = n;
		memcpy(out + at, &d, sizeof(d));
		ngrps++;
	}
	hdr->chgcnt = c->tgt->ana_chgcnt;
	hdr->ngrps = ngrps;
	memset(out + off, 0, NVMF_ANA_LOG_MAX - off);
	if (!rae)
		nvmf_ctrl_aen_log_read(c, NVMF_AEN_ANA, -1);
	return NVMF_ANA_LOG_MAX;
}
