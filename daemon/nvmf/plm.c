/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predictable Latency Mode over the NVM Sets (NVMe base specification 2.0,
 * 8.16; 2.1 8.1.18), and the Read Recovery Level the specification ties to
 * it. Every namespace is an NVM Set of its own, NVMSETID = NSID
 * (endgrp.c); what a window does is its backend's (bdev.h, plm_*: the nand
 * backend's FTL defers GC and other background work in a deterministic
 * window, the zns backend the erases of its zone resets). A backend without those ops has no predictable latency: its set
 * refuses both features with Invalid Field in Command and its Predictable
 * Latency Per NVM Set log reads "not used".
 *
 *   Feature 12h Read Recovery Level Config: CDW11 15:0 the set, CDW12 3:0
 *     the level; levels 4 (the default) and 15 (Fast Fail) are supported
 *     (the two the specification requires). The emulated flash has no
 *     read retries to trade: the level is kept and reported, nothing more.
 *   Feature 13h Predictable Latency Mode Config: CDW11 15:0 the set, CDW12
 *     bit 0 Predictable Latency Enable, and the Deterministic Threshold
 *     Configuration (512 bytes, struct nvme_plm_config: Enable Event bits
 *     2:0, DTWIN Reads / Writes / Time Thresholds). Enabling puts the set
 *     in NDWIN; Get Features returns the enable bit in Dword 0 and the
 *     structure as it was set.
 *   Feature 14h Predictable Latency Mode Window: CDW11 15:0 the set, CDW12
 *     2:0 Window Select, 001b DTWIN, 010b NDWIN, anything else Invalid
 *     Field; on a set where the mode is not enabled, Invalid Field (Set
 *     and Get). A DTWIN asked for before the set's NDWIN Time Minimum Low
 *     has passed is held, its completion delayed until then (the
 *     specification's choice); on a target without an event loop (unit
 *     tests) it is refused with Command Sequence Error instead.
 *   Log 0Ah Predictable Latency Per NVM Set: the set in the Log Specific
 *     Identifier (CDW11 31:16); no such set: Invalid Field. A set with the
 *     mode disabled reads Status 0 with its typical and maximum figures
 *     and no estimates; a set without it, all zero. Read with RAE cleared,
 *     it clears the set's events.
 *   Log 0Bh Predictable Latency Event Aggregate: the sets with an event
 *     not cleared, ascending, as many entries as NSETIDMAX allows. Read
 *     with RAE cleared, it re-arms the notice.
 *   Asynchronous event: Notice, Predictable Latency Event Aggregate Log
 *     Change (04h), log 0Bh, when a set records an event, if the host
 *     enabled it (Asynchronous Event Configuration bit 12); one until the
 *     host reads log 0Bh with RAE cleared.
 * Nothing is saveable; every setting is lost with the namespace (and when
 * bloxd stops: the mode starts disabled, as the specification says).
 */
#include "nvmf.h"

#include <errno.h>
#include <event2/event.h>
#include <string.h>

#define RRL_DEFAULT 4
#define RRL_FAST_FAIL 15

#define DW11_LOC offsetof(struct nvme_sqe, cdw11)
#define DW12_LOC offsetof(struct nvme_sqe, cdw12)

static bool has_plm(const struct nvmf_ns *ns)
{
	return blox_bdev_has_plm(ns->bdev);
}

/* The set of CDW11 15:0 (NVMSETID = NSID); NULL with *st set when there is none. */
static struct nvmf_ns *set_of(struct nvmf_req *req, uint16_t *st)
{
	uint32_t id = req->cmd.cdw11 & 0xffff;
	struct nvmf_ns *ns = id ? nvmf_ns_find(req->sq->ctrl->subsys, id) : NULL;

	if (!ns) {
		req->error_loc = DW11_LOC;
		*st = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	return ns;
}

/* A set with predictable latency, or NULL with *st set. */
static struct nvmf_ns *plm_set_of(struct nvmf_req *req, uint16_t *st)
{
	struct nvmf_ns *ns = set_of(req, st);

	if (ns && !has_plm(ns)) {
		req->error_loc = DW11_LOC;
		*st = NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		return NULL;
	}
	return ns;
}

/* ---- Read Recovery Level (12h) ---- */

uint16_t nvmf_feat_rrl(struct nvmf_req *req, bool set, bool dflt)
{
	uint16_t st = 0;
	struct nvmf_ns *ns = set_of(req, &st);
	uint32_t rrl;

	if (!ns)
		return st;
	if (!set) {
		req->cqe.result = dflt || !ns->rrl ? RRL_DEFAULT : ns->rrl;
		return 0;
	}
	rrl = req->cmd.cdw12 & 0xf;
	if (!(NVMF_RRLS & (1u << rrl))) {
		req->error_loc = DW12_LOC;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	ns->rrl = (uint8_t)rrl;
	return 0;
}

/* ---- events ---- */

/* A set recorded an event: every controller of the subsystem gets the notice. */
static void plm_event(void *arg)
{
	struct nvmf_ns *ns = arg;
	struct nvmf_ctrl *c;

	if (ns->detached)
		return;
	TAILQ_FOREACH(c, &ns->subsys->ctrls, link) {
		nvmf_ctrl_aen_raise(c, NVMF_AEN_PLM);
	}
}

void nvmf_plm_ns_release(struct nvmf_ns *ns)
{
	struct blox_bdev_plm_config cfg = { .enable = false };

	if (ns->plm_enabled && ns->bdev && has_plm(ns))
		blox_bdev_plm_config(ns->bdev, &cfg);
	ns->plm_enabled = false;
}

/* ---- Predictable Latency Mode Config (13h) ---- */

uint16_t nvmf_feat_plm_config(struct nvmf_req *req, bool set, bool dflt)
{
	uint16_t st = 0;
	struct nvmf_ns *ns = plm_set_of(req, &st);
	struct nvme_plm_config d;
	struct blox_bdev_plm_config cfg;
	int rc;

	if (!ns)
		return st;
	if (!set) {
		if (dflt) {
			req->cqe.result = 0;
			memset(&d, 0, sizeof(d));
			return nvmf_req_copy_out(req, &d, sizeof(d));
		}
		req->cqe.result = ns->plm_enabled;
		return nvmf_req_copy_out(req, &ns->plm_cfg, sizeof(ns->plm_cfg));
	}
	memcpy(&d, req->buf, sizeof(d));
	cfg = (struct blox_bdev_plm_config){
		.enable = req->cmd.cdw12 & 1,
		.ee = d.ee & (NVME_NVMSET_PL_EVENT_DTWIN_READ_WARN |
			      NVME_NVMSET_PL_EVENT_DTWIN_WRITE_WARN |
			      NVME_NVMSET_PL_EVENT_DTWIN_TIME_WARN),
		.reads_thresh = d.dtwinrt,
		.writes_thresh = d.dtwinwt,
		.time_thresh_ms = d.dtwintt,
		.event = plm_event,
		.event_arg = ns,
	};
	rc = blox_bdev_plm_config(ns->bdev, &cfg);
	if (rc)
		return NVME_SC_INTERNAL | NVME_SC_DNR;
	ns->plm_enabled = cfg.enable;
	ns->plm_cfg = d;
	return 0;
}

/* ---- Predictable Latency Mode Window (14h) ---- */

static void plm_wait_cb(evutil_socket_t fd, short what, void *arg);

/* The held requests of @c are tried again in @in_ns, or sooner if due sooner. */
static void plm_wake(struct nvmf_ctrl *c, uint64_t in_ns)
{
	uint64_t at = blox_clock_now(c->tgt->clock) + in_ns, us = (in_ns + 999) / 1000;
	struct timeval tv = { .tv_sec = (time_t)(us / 1000000u),
			      .tv_usec = (suseconds_t)(us % 1000000u) };

	if (evtimer_pending(c->plm_ev, NULL) && c->plm_wake_ns <= at)
		return;
	c->plm_wake_ns = at;
	evtimer_add(c->plm_ev, &tv);
}

/*
 * Try the window again for every held request of @c (from the timer);
 * those still too early wait for the soonest of their retry times.
 */
static void plm_wait_retry(struct nvmf_ctrl *c)
{
	TAILQ_HEAD(, nvmf_req) again = TAILQ_HEAD_INITIALIZER(again);
	uint64_t soonest = UINT64_MAX;
	struct nvmf_req *req;

	TAILQ_CONCAT(&again, &c->plm_wait, link);
	while ((req = TAILQ_FIRST(&again))) {
		struct nvmf_ns *ns = nvmf_ns_find(c->subsys, req->cmd.cdw11 & 0xffff);
		uint64_t retry = 0;
		int rc;

		TAILQ_REMOVE(&again, req, link);
		if (!ns || !has_plm(ns) || !ns->plm_enabled) {
			req->error_loc = DW11_LOC;
			nvmf_req_complete(req, NVME_SC_INVALID_FIELD | NVME_SC_DNR);
			continue;
		}
		rc = blox_bdev_plm_window(ns->bdev, BLOX_PLM_DTWIN, &retry);
		if (rc == -EAGAIN) {
			TAILQ_INSERT_TAIL(&c->plm_wait, req, link);
			soonest = BLOX_MIN(soonest, retry);
			continue;
		}
		nvmf_req_complete(req, rc ? (NVME_SC_INTERNAL | NVME_SC_DNR) : 0);
	}
	if (soonest != UINT64_MAX)
		plm_wake(c, soonest);
}

static void plm_wait_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	plm_wait_retry(arg);
}

/* Hold @req until its set may enter DTWIN, @retry_ns from now. */
static uint16_t plm_hold(struct nvmf_req *req, uint64_t retry_ns)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	struct event_base *base = c->tgt->base;

	if (!base)
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	if (!c->plm_ev) {
		c->plm_ev = evtimer_new(base, plm_wait_cb, c);
		if (!c->plm_ev)
			return NVME_SC_INTERNAL;
	}
	TAILQ_INSERT_TAIL(&c->plm_wait, req, link);
	plm_wake(c, retry_ns);
	return NVMF_REQ_ASYNC;
}

uint16_t nvmf_feat_plm_window(struct nvmf_req *req, bool set, bool dflt)
{
	uint16_t st = 0;
	struct nvmf_ns *ns = plm_set_of(req, &st);
	struct blox_bdev_plm_info info;
	uint32_t ws = req->cmd.cdw12 & 0x7;
	uint64_t retry = 0;
	int rc;

	if (!ns)
		return st;
	if (!ns->plm_enabled) {
		req->error_loc = DW11_LOC;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (!set) {
		memset(&info, 0, sizeof(info));
		blox_bdev_plm_query(ns->bdev, &info, false);
		/* Default: a set enabled starts in NDWIN. */
		req->cqe.result = dflt || info.window != BLOX_PLM_DTWIN ? NVME_FEATURE_PLM_NDWIN
									  : NVME_FEATURE_PLM_DTWIN;
		return 0;
	}
	if (ws != NVME_FEATURE_PLM_DTWIN && ws != NVME_FEATURE_PLM_NDWIN) {
		req->error_loc = DW12_LOC;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	rc = blox_bdev_plm_window(ns->bdev,
				       ws == NVME_FEATURE_PLM_DTWIN ? BLOX_PLM_DTWIN : BLOX_PLM_NDWIN,
				       &retry);
	if (rc == -EAGAIN)
		return plm_hold(req, retry);
	if (rc == -EINVAL) {
		req->error_loc = DW11_LOC;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	return rc ? (NVME_SC_INTERNAL | NVME_SC_DNR) : 0;
}

void nvmf_plm_ctrl_quiesce(struct nvmf_ctrl *c)
{
	struct nvmf_req *req;

	if (c->plm_ev)
		evtimer_del(c->plm_ev);
	while ((req = TAILQ_FIRST(&c->plm_wait))) {
		TAILQ_REMOVE(&c->plm_wait, req, link);
		nvmf_req_complete(req, NVME_SC_ABORT_QUEUE);
	}
}

void nvmf_plm_ctrl_free(struct nvmf_ctrl *c)
{
	if (c->plm_ev)
		event_free(c->plm_ev);
	c->plm_ev = NULL;
}

/* ---- log pages ---- */

uint16_t nvmf_log_plm_set(struct nvmf_req *req, uint8_t *out, size_t *len, bool rae)
{
	struct nvme_nvmset_predictable_lat_log *l = (void *)out;
	uint32_t id = req->cmd.cdw11 >> 16;
	struct nvmf_ns *ns = id ? nvmf_ns_find(req->sq->ctrl->subsys, id) : NULL;
	struct blox_bdev_plm_info i;

	_Static_assert(sizeof(*l) == 512, "Predictable Latency Per NVM Set log is 512 bytes");
	if (!ns) {
		req->error_loc = DW11_LOC;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	memset(l, 0, sizeof(*l));
	*len = sizeof(*l);
	if (!has_plm(ns))
		return 0; /* Status 0: the mode is not used */
	memset(&i, 0, sizeof(i));
	blox_bdev_plm_query(ns->bdev, &i, !rae);
	l->status = i.window == BLOX_PLM_DTWIN	 ? NVME_NVMSET_PL_STATUS_DTWIN
		    : i.window == BLOX_PLM_NDWIN ? NVME_NVMSET_PL_STATUS_NDWIN
						 : NVME_NVMSET_PL_STATUS_DISABLED;
	l->event_type = i.events;
	l->dtwin_rt = i.reads_typical;
	l->dtwin_wt = i.writes_typical;
	l->dtwin_tmax = i.time_max_ms;
	l->ndwin_tmin_hi = i.ndwin_min_high_ms;
	l->ndwin_tmin_lo = i.ndwin_min_low_ms;
	if (i.window != BLOX_PLM_OFF) {
		l->dtwin_re = i.reads_estimate;
		l->dtwin_we = i.writes_estimate;
		l->dtwin_te = i.time_estimate_ms;
	}
	return 0;
}

size_t nvmf_log_plm_agg(struct nvmf_req *req, uint8_t *out, bool rae)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	uint64_t n = 0;
	uint16_t *ent = (uint16_t *)(out + 8);
	size_t len = 8 + 2 * (size_t)NVMF_NSETIDMAX;
	struct nvmf_ns *ns;

	memset(out, 0, len);
	TAILQ_FOREACH(ns, &c->subsys->namespaces, link) {
		struct blox_bdev_plm_info i;

		if (!has_plm(ns) || !ns->plm_enabled)
			continue;
		memset(&i, 0, sizeof(i));
		blox_bdev_plm_query(ns->bdev, &i, false);
		if (i.events && n < NVMF_NSETIDMAX)
			ent[n++] = (uint16_t)ns->nsid; /* the list is sorted by NSID */
	}
	memcpy(out, &n, 8);
	if (!rae) {
		nvmf_ctrl_aen_log_read(c, NVMF_AEN_PLM, -1);
	}
	return len;
}
