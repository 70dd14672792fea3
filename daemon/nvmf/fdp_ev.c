/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * FDP events (NVMe 2.1: FDP Events log page 23h, FDP Events feature 1Eh)
 * of namespaces with placement handles. The host enables or disables
 * event types per placement handle; an event of a handle is recorded only
 * while its type is enabled there. Two kinds, two lists, as the log's
 * LSP bit 0 asks for them:
 *
 *   - host events, caused by what a host did (or did not do): Invalid
 *     Placement Identifier (a write whose DSPEC names no handle of the
 *     namespace: written to handle 0, io_cmd.c/fdp.c), Reclaim Unit Not
 *     Fully Written (a Reclaim Unit Handle Update of a partly written
 *     reclaim unit, fdp.c) and Reclaim Unit Time Limit Exceeded (the
 *     backend closed a reclaim unit the host left open longer than the
 *     time limit, ERUTL in log 20h: ftl.h ru_time_limit_ns);
 *   - controller events, caused by the device itself: Implicitly Modified
 *     Reclaim Unit Handle (the handle's reclaim unit filled and the FTL
 *     opened another for its next write) and Media Reallocated (GC, a
 *     refresh or a failed program's superblock moved valid data of a
 *     reclaim unit of the handle: the number of LBAs moved and the first).
 *
 * The backend's events (time limit, filled, reallocated) sit in a ring
 * with their times (blox_bdev_fdp.ev); they are taken from it when the
 * host reads the log or changes what is enabled, so each is judged
 * against the mask in force when it happened.
 *
 * Not reported, because nothing in blox causes it: Controller Level Reset
 * Modified Reclaim Unit Handles (a controller reset, CC.EN to 0 or a
 * subsystem reset, touches no backend: every handle keeps its reclaim
 * unit and what is written in it).
 *
 * Each namespace keeps the newest NVMF_FDP_EVENTS of each kind (stamped
 * with the target's monotonic clock); the log merges those of the group's
 * namespaces, oldest first, in the asking controller's Timestamp.
 *
 * Kept across restarts with the backend's metadata (blox_bdev_fdp_log():
 * the FTL's checkpoint, which a clean stop takes): when the namespace
 * goes, both lists, the enable masks and the backend events looked at are
 * saved; when it comes back they are loaded, each event as long before
 * the start as it was before the stop (the time the target was down is
 * not counted). A power cut of the namespace rebuilds its backend, not
 * this layer: the backend's events are taken before the cut, and the
 * rebuilt backend's ring (the checkpoint's) is looked at from where it is.
 */
#include "fdp.h"

#include <stdlib.h>
#include <string.h>

static const uint8_t fdp_events[] = { FDP_EV_RUNFW, FDP_EV_RUTLE, FDP_EV_PID, FDP_EV_REALLOC,
				      FDP_EV_MODIFY };

/* The enable bit of event @type (host events 0-31, controller events 80h up at 32-63). */
static uint64_t ev_bit(uint8_t type)
{
	return type < 0x80 ? 1ull << (type & 31) : 1ull << (32 + ((type - 0x80) & 31));
}

static void put_ms(struct nvme_fdp_event *e, uint64_t ns)
{
	uint64_t ms = ns / 1000000ull;

	memcpy(e->ts.timestamp, &ms, 6);
}

static struct nvme_fdp_event *ev_add(struct nvmf_fdp_evlist *l)
{
	struct nvme_fdp_event *e = &l->ev[l->count++ % NVMF_FDP_EVENTS];

	memset(e, 0, sizeof(*e));
	return e;
}

void nvmf_fdp_host_event(struct nvmf_ns *ns, uint8_t type, uint16_t pid, uint16_t ph)
{
	struct nvme_fdp_event *e;

	if (ph >= ns->fdp.nr_ruh || !(ns->fdp.ev_enable[ph] & ev_bit(type)))
		return;
	e = ev_add(&ns->fdp.host);
	e->type = type;
	e->flags = NVME_FDP_EVENT_F_PIV | NVME_FDP_EVENT_F_NSIDV;
	e->pid = pid;
	put_ms(e, blox_clock_now(ns->subsys->tgt->clock));
	e->nsid = ns->nsid;
	if (type == FDP_EV_RUNFW) {
		e->flags |= NVME_FDP_EVENT_F_LV;
		e->ruhid = (uint8_t)(nvmf_fdp_ruh_base(ns) + ph);
	}
}

void nvmf_fdp_sync(struct nvmf_ns *ns)
{
	struct blox_bdev_fdp f;
	uint64_t from;

	if (!nvmf_ns_fdp(ns))
		return;
	memset(&f, 0, sizeof(f));
	if (!blox_bdev_fdp_info(ns->bdev, &f))
		return;
	from = ns->fdp.bdev_ev_seen + 1;
	if (f.ev_seq >= BLOX_FDP_EVENTS && from < f.ev_seq - BLOX_FDP_EVENTS + 1)
		from = f.ev_seq - BLOX_FDP_EVENTS + 1; /* older ones are gone */
	for (uint64_t seq = from; seq <= f.ev_seq; seq++) {
		const struct blox_bdev_fdp_event *b = &f.ev[(seq - 1) % BLOX_FDP_EVENTS];
		struct nvme_fdp_event *e;
		uint8_t type;

		if (b->seq != seq || b->ruh >= ns->fdp.nr_ruh)
			continue;
		switch (b->type) {
		case BLOX_FDP_EV_RU_FILLED:
			type = FDP_EV_MODIFY;
			break;
		case BLOX_FDP_EV_RU_TIMEOUT:
			type = FDP_EV_RUTLE;
			break;
		case BLOX_FDP_EV_REALLOC:
			type = FDP_EV_REALLOC;
			break;
		default:
			continue;
		}
		if (!(ns->fdp.ev_enable[b->ruh] & ev_bit(type)))
			continue;
		e = ev_add(type < 0x80 ? &ns->fdp.host : &ns->fdp.ctrl);
		e->type = type;
		e->flags = NVME_FDP_EVENT_F_PIV | NVME_FDP_EVENT_F_NSIDV | NVME_FDP_EVENT_F_LV;
		e->pid = (uint16_t)b->ruh; /* placement handle i is the backend's handle i */
		put_ms(e, b->ns);
		e->nsid = ns->nsid;
		e->ruhid = (uint8_t)(nvmf_fdp_ruh_base(ns) + b->ruh);
		if (type == FDP_EV_REALLOC) {
			struct nvme_fdp_event_realloc r = { .flags = NVME_FDP_EVENT_REALLOC_F_LBAV };
			uint64_t nlb = b->moved_bytes >> ns->lba_shift;

			r.nlbam = (uint16_t)BLOX_MIN(nlb, (uint64_t)UINT16_MAX);
			r.lba = b->offset >> ns->lba_shift;
			memcpy(e->type_specific, &r, sizeof(r));
		}
	}
	ns->fdp.bdev_ev_seen = f.ev_seq;
}

/* One event of the log being built, with what orders it. */
struct ev_ref {
	uint64_t ms;
	uint32_t nsid, idx;
	const struct nvme_fdp_event *e;
};

static int ev_cmp(const void *a, const void *b)
{
	const struct ev_ref *x = a, *y = b;

	if (x->ms != y->ms)
		return x->ms < y->ms ? -1 : 1;
	if (x->nsid != y->nsid)
		return x->nsid < y->nsid ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

uint16_t nvmf_fdp_events_log(struct nvmf_req *req, uint32_t endgid, uint8_t *out, size_t cap,
			     size_t *len)
{
	struct nvme_fdp_events_log *l = (void *)out;
	bool host = (req->cmd.cdw10 >> 8) & 1; /* LSP bit 0: host events */
	struct ev_ref *refs;
	struct nvmf_ns *ns;
	size_t n = 0, max = 0;

	if (cap < sizeof(*l))
		return NVME_SC_INTERNAL;
	TAILQ_FOREACH(ns, &req->sq->ctrl->subsys->namespaces, link)
		if (ns->endgid == endgid && nvmf_ns_fdp(ns)) {
			nvmf_fdp_sync(ns);
			max += NVMF_FDP_EVENTS;
		}
	refs = calloc(max ? max : 1, sizeof(*refs));
	if (!refs)
		return NVME_SC_INTERNAL;
	TAILQ_FOREACH(ns, &req->sq->ctrl->subsys->namespaces, link) {
		const struct nvmf_fdp_evlist *el = host ? &ns->fdp.host : &ns->fdp.ctrl;
		uint32_t have = BLOX_MIN(el->count, (uint32_t)NVMF_FDP_EVENTS);

		if (ns->endgid != endgid || !nvmf_ns_fdp(ns))
			continue;
		for (uint32_t i = 0; i < have; i++) {
			const struct nvme_fdp_event *e =
				&el->ev[(el->count - have + i) % NVMF_FDP_EVENTS];
			uint64_t ms = 0;

			memcpy(&ms, e->ts.timestamp, 6);
			refs[n++] = (struct ev_ref){ ms, ns->nsid, i, e };
		}
	}
	qsort(refs, n, sizeof(*refs), ev_cmp);
	/*
	 * The newest the log holds, oldest first, each stamped in the asking
	 * controller's Timestamp (feature 0Eh: what its host set, Timestamp
	 * Origin 1, else ms since the controller was made): recorded on the
	 * target's monotonic clock, they are that long before its now.
	 */
	memset(l, 0, sizeof(*l));
	{
		bool host_set;
		uint64_t ts_now = nvmf_ctrl_timestamp_ms(req->sq->ctrl, &host_set);
		uint64_t now_ms = blox_clock_now(req->sq->tgt->clock) / 1000000ull;

		for (size_t i = n > NVMF_FDP_EVENTS ? n - NVMF_FDP_EVENTS : 0; i < n; i++) {
			struct nvme_fdp_event *e = &l->events[l->n++];
			uint64_t ago = now_ms > refs[i].ms ? now_ms - refs[i].ms : 0;
			uint64_t ts = ts_now > ago ? ts_now - ago : 0;

			*e = *refs[i].e;
			memcpy(e->ts.timestamp, &ts, 6);
			e->ts.attr = host_set ? (1u << 1) : 0;
		}
	}
	free(refs);
	*len = sizeof(*l);
	return 0;
}

/* ---- feature 1Eh: the events of one placement handle ---- */

/* The namespace and placement handle of a feature 1Eh command, or NULL. */
static struct nvmf_ns *events_target(struct nvmf_req *req, uint16_t *ph)
{
	struct nvmf_ns *ns = nvmf_ns_find(req->sq->ctrl->subsys, req->cmd.nsid);

	*ph = req->cmd.cdw11 & 0xffff;
	if (!ns || !nvmf_ns_fdp(ns) || *ph >= ns->fdp.nr_ruh) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NULL;
	}
	return ns;
}

uint16_t nvmf_feat_fdp_events(struct nvmf_req *req, bool set)
{
	uint32_t noet = (req->cmd.cdw11 >> 16) & 0xff;
	struct nvmf_ns *ns;
	uint16_t ph;

	ns = events_target(req, &ph);
	if (!ns)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	if (!set) {
		/* Every supported type with its Event Enable bit, NOET at most. */
		struct nvme_fdp_supported_event_desc d[sizeof(fdp_events)];
		uint32_t n = BLOX_MIN(noet, (uint32_t)sizeof(fdp_events));

		for (uint32_t i = 0; i < n; i++) {
			d[i].evt = fdp_events[i];
			d[i].evta = (ns->fdp.ev_enable[ph] & ev_bit(fdp_events[i])) ? 1 : 0;
		}
		req->cqe.result = n;
		return nvmf_req_copy_out(req, d, n * sizeof(d[0]));
	}
	for (uint32_t i = 0; i < noet; i++)
		if (!memchr(fdp_events, req->buf[i], sizeof(fdp_events))) {
			req->error_loc = offsetof(struct nvme_sqe, dptr);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
	/* What the backend did so far was under the mask in force until now. */
	nvmf_fdp_sync(ns);
	for (uint32_t i = 0; i < noet; i++) {
		uint64_t bit = ev_bit(req->buf[i]);

		if (req->cmd.cdw12 & 1)
			ns->fdp.ev_enable[ph] |= bit;
		else
			ns->fdp.ev_enable[ph] &= ~bit;
	}
	return 0;
}

uint32_t nvmf_feat_fdp_events_len(const struct nvmf_req *req, bool set)
{
	uint32_t noet = (req->cmd.cdw11 >> 16) & 0xff;
	uint32_t need = set ? noet : noet * (uint32_t)sizeof(struct nvme_fdp_supported_event_desc);

	/*
	 * The buffer the host described, when it holds what NOET says (nvme-cli
	 * sends 255 bytes whatever the count): the rest is not read, or zeroes.
	 */
	return req->data_len >= need && req->data_len <= 4096 ? req->data_len : need;
}

/* ---- kept across restarts ---- */

#define FDP_SAVED_MAGIC 0x31564546504446ull /* "FDPFEV1" */

/* What a namespace saves with its backend's metadata. */
struct fdp_saved {
	uint64_t magic;
	uint64_t saved_ms; /* the target's clock when saved */
	uint64_t bdev_ev_seen;
	uint64_t ev_enable[BLOX_FDP_MAX_RUH];
	uint32_t nr_ruh, pad;
	struct nvmf_fdp_evlist host, ctrl;
};

_Static_assert(sizeof(struct fdp_saved) <= BLOX_FDP_LOG_BYTES, "saved FDP log too large");

void nvmf_ns_fdp_save(struct nvmf_ns *ns)
{
	struct fdp_saved *sv;

	if (!nvmf_ns_fdp(ns) || !ns->bdev)
		return;
	sv = calloc(1, sizeof(*sv));
	if (!sv)
		return;
	nvmf_fdp_sync(ns);
	sv->magic = FDP_SAVED_MAGIC;
	sv->saved_ms = blox_clock_now(ns->subsys->tgt->clock) / 1000000ull;
	sv->bdev_ev_seen = ns->fdp.bdev_ev_seen;
	memcpy(sv->ev_enable, ns->fdp.ev_enable, sizeof(sv->ev_enable));
	sv->nr_ruh = ns->fdp.nr_ruh;
	sv->host = ns->fdp.host;
	sv->ctrl = ns->fdp.ctrl;
	blox_bdev_fdp_log(ns->bdev, sv, sizeof(*sv), true);
	free(sv);
}

/* Event times of @l moved by the time between the save and now. */
static void shift_times(struct nvmf_fdp_evlist *l, uint64_t saved_ms, uint64_t now_ms)
{
	uint32_t have = BLOX_MIN(l->count, (uint32_t)NVMF_FDP_EVENTS);

	for (uint32_t i = 0; i < have; i++) {
		struct nvme_fdp_event *e = &l->ev[(l->count - have + i) % NVMF_FDP_EVENTS];
		uint64_t ms = 0, ago;

		memcpy(&ms, e->ts.timestamp, 6);
		ago = saved_ms > ms ? saved_ms - ms : 0;
		ms = now_ms > ago ? now_ms - ago : 0;
		memcpy(e->ts.timestamp, &ms, 6);
	}
}

bool nvmf_fdp_load(struct nvmf_ns *ns)
{
	struct fdp_saved *sv = calloc(1, sizeof(*sv));
	bool ok;

	if (!sv)
		return false;
	ok = blox_bdev_fdp_log(ns->bdev, sv, sizeof(*sv), false) == (int)sizeof(*sv) &&
	     sv->magic == FDP_SAVED_MAGIC && sv->nr_ruh == ns->fdp.nr_ruh;
	if (ok) {
		uint64_t now_ms = blox_clock_now(ns->subsys->tgt->clock) / 1000000ull;

		ns->fdp.bdev_ev_seen = sv->bdev_ev_seen;
		memcpy(ns->fdp.ev_enable, sv->ev_enable, sizeof(ns->fdp.ev_enable));
		ns->fdp.host = sv->host;
		ns->fdp.ctrl = sv->ctrl;
		shift_times(&ns->fdp.host, sv->saved_ms, now_ms);
		shift_times(&ns->fdp.ctrl, sv->saved_ms, now_ms);
	}
	free(sv);
	return ok;
}

void nvmf_ns_fdp_power_cut(struct nvmf_ns *ns, bool after)
{
	struct blox_bdev_fdp f;

	if (!nvmf_ns_fdp(ns))
		return;
	if (!after) {
		nvmf_fdp_sync(ns); /* what the backend recorded before the power went */
		return;
	}
	/* The rebuilt backend's ring is its last checkpoint's: go on from there. */
	memset(&f, 0, sizeof(f));
	if (blox_bdev_fdp_info(ns->bdev, &f) && f.ev_seq < ns->fdp.bdev_ev_seen)
		ns->fdp.bdev_ev_seen = f.ev_seq;
}
