/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reservations on the wire: the I/O commands Reservation Register (0Dh),
 * Report (0Eh), Acquire (11h) and Release (15h) on a namespace's state
 * machine (resv.c), the access check before a command reaches the
 * backend, the notifications (log page 80h and its AEN, masked per
 * namespace by Set Features 82h) and the Reservation Persistence feature
 * (83h; the state files are resv_store.c's). A host is its Host Identifier from the Connect: registrations
 * belong to the host, whichever of its controllers sent the command, and
 * stay when it disconnects.
 *
 * Threads: everything here runs on the core's reactor (reactor 0), as do
 * parsing and completion of every command, whichever reactor its queue or
 * its namespace's backend is on (tcp_hop.c, bdev_hop.c), so the state
 * needs no lock.
 */
#include "fault_hold.h"
#include "nvmf.h"
#include "resv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RESV_MASK_ALL                                                                      \
	(NVME_FEAT_RESV_NOTIFY_REGPRE | NVME_FEAT_RESV_NOTIFY_RESREL |                      \
	 NVME_FEAT_RESV_NOTIFY_RESPRE)
#define NSID_ALL 0xffffffffu

int nvmf_ns_resv_init(struct nvmf_ns *ns)
{
	ns->resv = malloc(sizeof(*ns->resv));
	if (!ns->resv)
		return -ENOMEM;
	nvmf_resv_init(ns->resv);
	TAILQ_INIT(&ns->at_backend);
	return 0;
}

void nvmf_ns_resv_fini(struct nvmf_ns *ns)
{
	if (!ns->resv)
		return;
	nvmf_resv_fini(ns->resv);
	free(ns->resv);
	ns->resv = NULL;
}

uint8_t nvmf_ns_rescap(const struct nvmf_ns *ns)
{
	uint8_t cap = NVME_NS_RESCAP_WE | NVME_NS_RESCAP_EA | NVME_NS_RESCAP_WERO |
		      NVME_NS_RESCAP_EARO | NVME_NS_RESCAP_WEAR | NVME_NS_RESCAP_EAAR |
		      NVME_NS_RESCAP_IEK_13;

	if (ns->resv->ptpl_capable)
		cap |= NVME_NS_RESCAP_PTPL;
	return cap;
}

static bool hostid_set(const struct nvmf_ctrl *c)
{
	static const uint8_t zero[16];

	return memcmp(c->hostid, zero, 16) != 0;
}

/* ---- notifications ---- */

/* Controller @c gets a log page 80h entry for @nsid, and the AEN, unless it masked it. */
static void note(struct nvmf_ctrl *c, uint32_t nsid, enum nvmf_resv_event ev)
{
	struct nvmf_resv_note *n;

	if (c->resv_mask[nsid] & (1u << ev))
		return;
	/* The count rolls over to 1, never to 0 (0: an empty page). */
	if (++c->resv_lpc == 0)
		c->resv_lpc = 1;
	if (c->resv_log_nr == NVMF_RESV_LOG_ENTRIES) {
		c->resv_log_head = (c->resv_log_head + 1) % NVMF_RESV_LOG_ENTRIES;
		c->resv_log_nr--;
	}
	n = &c->resv_log[(c->resv_log_head + c->resv_log_nr++) % NVMF_RESV_LOG_ENTRIES];
	n->lpc = c->resv_lpc;
	n->nsid = nsid;
	n->type = (uint8_t)ev;
	nvmf_ctrl_aen_raise(c, NVMF_AEN_RESV);
}

size_t nvmf_log_resv(struct nvmf_ctrl *c, uint8_t *out, bool rae)
{
	struct nvme_resv_notification_log *l = (void *)out;

	memset(l, 0, sizeof(*l));
	if (c->resv_log_nr) {
		const struct nvmf_resv_note *n = &c->resv_log[c->resv_log_head];

		le64_put(&l->lpc, n->lpc);
		l->rnlpt = n->type;
		l->nalp = (uint8_t)BLOX_MIN(c->resv_log_nr - 1, 255u);
		le32_put(&l->nsid, n->nsid);
		c->resv_log_head = (c->resv_log_head + 1) % NVMF_RESV_LOG_ENTRIES;
		c->resv_log_nr--;
	}
	if (!rae) {
		nvmf_ctrl_aen_log_read(c, NVMF_AEN_RESV, c->resv_log_nr > 0);
	}
	return sizeof(*l);
}

/* A notification the state machine asked for, sent once the command's state is kept. */
struct resv_ev {
	uint8_t hostid[16];
	enum nvmf_resv_event ev;
};

/* A command that changes a namespace's state, from op_begin() to op_end(). */
struct resv_ctx {
	struct nvmf_req *req;
	struct resv_ev *evs;
	uint32_t nr, cap;
	struct nvmf_resv undo; /* the state before, while it may have to come back */
	bool has_undo;
};

static void on_event(void *arg, const uint8_t hostid[16], enum nvmf_resv_event ev)
{
	struct resv_ctx *x = arg;

	/* At most one per registrant (op_begin() made room for them all). */
	if (x->nr < x->cap) {
		memcpy(x->evs[x->nr].hostid, hostid, 16);
		x->evs[x->nr++].ev = ev;
	}
}

static uint16_t op_begin(struct resv_ctx *x, struct nvmf_req *req)
{
	struct nvmf_resv *r = req->ns->resv;

	memset(x, 0, sizeof(*x));
	x->req = req;
	x->cap = r->nr + 1;
	x->evs = malloc(x->cap * sizeof(*x->evs));
	if (!x->evs)
		return NVME_SC_INTERNAL;
	if (r->ptpl_capable) {
		nvmf_resv_init(&x->undo);
		if (nvmf_resv_copy(&x->undo, r)) {
			free(x->evs);
			return NVME_SC_INTERNAL;
		}
		x->has_undo = true;
	}
	return 0;
}

/*
 * Each event to the controllers of its host; for a Preempt and Abort
 * (@abort), the preempted hosts' commands at the namespace's backend are
 * waited for before the Acquire completes (req->next counts them).
 */
static void send_events(struct resv_ctx *x, bool abort)
{
	struct nvmf_req *req = x->req, *r;
	struct nvmf_ctrl *c;

	for (uint32_t i = 0; i < x->nr; i++) {
		const uint8_t *host = x->evs[i].hostid;

		TAILQ_FOREACH(c, &req->ns->subsys->ctrls, link)
			if (!memcmp(c->hostid, host, 16))
				note(c, req->ns->nsid, x->evs[i].ev);
		if (!abort || x->evs[i].ev != NVMF_RESV_EV_REG_PREEMPTED)
			continue;
		TAILQ_FOREACH(r, &req->ns->at_backend, ns_link)
			if (!r->resv_waiter && !memcmp(r->sq->ctrl->hostid, host, 16)) {
				r->resv_waiter = req;
				req->next++;
			}
	}
}

/*
 * The state machine answered @st. With PTPL (before or after), the new
 * state is written before the command completes; if it cannot be, the
 * state before comes back and the command fails (Internal Error, which a
 * host may retry), telling nobody anything. Then the events go out.
 */
static uint16_t op_end(struct resv_ctx *x, uint16_t st, bool abort)
{
	struct nvmf_ns *ns = x->req->ns;

	if (!st && x->has_undo && (x->undo.ptpl || ns->resv->ptpl)) {
		int rc = nvmf_ns_resv_save(ns);

		if (rc) {
			blox_log(ns->subsys->tgt->log, BLOX_LOG_ERR,
				 "%s nsid %u: reservation state not kept (%s): command failed",
				 ns->subsys->nqn, ns->nsid, strerror(-rc));
			nvmf_resv_fini(ns->resv);
			*ns->resv = x->undo;
			x->has_undo = false;
			x->nr = 0;
			st = NVME_SC_INTERNAL;
		}
	}
	if (x->has_undo)
		nvmf_resv_fini(&x->undo);
	if (!st)
		send_events(x, abort);
	free(x->evs);
	return st;
}

/* ---- the commands ---- */

static uint16_t exec_register(struct nvmf_req *req)
{
	struct resv_ctx x;
	struct nvmf_resv_cb cb = { on_event, &x };
	uint16_t st;

	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER);
	if ((st = op_begin(&x, req)))
		return st;
	st = nvmf_resv_register(req->ns->resv, req->sq->ctrl->hostid, req->cmd.cdw10,
				le64_get(req->buf), le64_get(req->buf + 8), &cb);
	return op_end(&x, st, false);
}

static uint16_t exec_acquire(struct nvmf_req *req)
{
	struct resv_ctx x;
	struct nvmf_resv_cb cb = { on_event, &x };
	uint16_t st;

	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER);
	if ((st = op_begin(&x, req)))
		return st;
	req->next = 0;
	st = nvmf_resv_acquire(req->ns->resv, req->sq->ctrl->hostid, req->cmd.cdw10,
			       le64_get(req->buf), le64_get(req->buf + 8), &cb);
	st = op_end(&x, st, NVMF_RESV_ACTION(req->cmd.cdw10) == NVMF_RESV_PREEMPT_ABORT);
	/*
	 * Commands of the preempted hosts that already reached the backend
	 * cannot be taken back from it: the Acquire completes once they have
	 * left it (those not there yet meet the new reservation, see
	 * nvmf_resv_io_check()).
	 */
	if (!st && req->next)
		return NVMF_REQ_ASYNC;
	return st;
}

static uint16_t exec_release(struct nvmf_req *req)
{
	struct resv_ctx x;
	struct nvmf_resv_cb cb = { on_event, &x };
	uint16_t st;

	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER);
	if ((st = op_begin(&x, req)))
		return st;
	st = nvmf_resv_release(req->ns->resv, req->sq->ctrl->hostid, req->cmd.cdw10,
			       le64_get(req->buf), &cb);
	return op_end(&x, st, false);
}

static uint16_t exec_report(struct nvmf_req *req)
{
	uint16_t st;

	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER);
	st = nvmf_resv_report(req->ns->resv, req->cmd.cdw11 & 1, req->buf, req->transfer_len);
	if (st)
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
	return st;
}

/* Data of @need bytes from the host; a larger buffer (Linux sends 16 for a Release) is taken. */
static uint16_t want_data(struct nvmf_req *req, uint32_t need,
			  uint16_t (*exec)(struct nvmf_req *))
{
	if (req->data_len < need || req->data_len > 4096) {
		req->error_loc = offsetof(struct nvme_sqe, dptr);
		return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
	}
	req->dir = NVMF_DIR_H2C;
	req->transfer_len = req->data_len;
	req->execute = exec;
	return 0;
}

uint16_t nvmf_parse_resv(struct nvmf_req *req)
{
	/* The host identifier comes from the Connect; without one a host cannot register. */
	if (!hostid_set(req->sq->ctrl))
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	switch (req->cmd.opcode) {
	case nvme_cmd_resv_register:
		return want_data(req, 16, exec_register);
	case nvme_cmd_resv_acquire:
		return want_data(req, 16, exec_acquire);
	case nvme_cmd_resv_release:
		return want_data(req, 8, exec_release);
	case nvme_cmd_resv_report: {
		uint64_t len = ((uint64_t)req->cmd.cdw10 + 1) * 4;

		if (len > nvmf_max_xfer(req->sq->tgt)) {
			req->error_loc = offsetof(struct nvme_sqe, cdw10);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		req->dir = NVMF_DIR_C2H;
		req->transfer_len = (uint32_t)len;
		req->execute = exec_report;
		return 0;
	}
	default:
		req->error_loc = offsetof(struct nvme_sqe, opcode);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}

uint16_t nvmf_resv_io_check(struct nvmf_req *req, struct nvmf_ns *ns)
{
	uint16_t st = nvmf_resv_access(ns->resv, req->sq->ctrl->hostid, req->cmd.opcode);

	if (st)
		req->error_loc = offsetof(struct nvme_sqe, opcode);
	return st;
}

void nvmf_resv_io_left(struct nvmf_req *req)
{
	struct nvmf_req *waiter = req->resv_waiter;

	TAILQ_REMOVE(&req->ns->at_backend, req, ns_link);
	req->resv_waiter = NULL;
	if (waiter && --waiter->next == 0)
		nvmf_req_complete_late(waiter, 0);
}

/* ---- features ---- */

/* Reservation Notification Mask (82h): per namespace, or all of them with NSID FFFFFFFFh. */
uint16_t nvmf_feat_resv_mask(struct nvmf_req *req, bool set)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	uint32_t nsid = req->cmd.nsid, mask = req->cmd.cdw11;

	if (!(set && nsid == NSID_ALL) && !nvmf_ns_find(c->subsys, nsid)) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	}
	if (!set) {
		req->cqe.result = c->resv_mask[nsid];
		return 0;
	}
	if (mask & ~(uint32_t)RESV_MASK_ALL) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (nsid == NSID_ALL)
		memset(c->resv_mask, (int)mask, sizeof(c->resv_mask));
	else
		c->resv_mask[nsid] = (uint8_t)mask;
	return 0;
}

/* Reservation Persistence (83h): PTPL of a namespace; set only where it can be kept (its file written or removed). */
uint16_t nvmf_feat_resv_persist(struct nvmf_req *req, bool set)
{
	struct nvmf_ns *ns = nvmf_ns_find(req->sq->ctrl->subsys, req->cmd.nsid);
	bool was;

	if (!ns) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	}
	if (!set) {
		req->cqe.result = ns->resv->ptpl;
		return 0;
	}
	if ((req->cmd.cdw11 & 1) && !ns->resv->ptpl_capable) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	was = ns->resv->ptpl;
	ns->resv->ptpl = req->cmd.cdw11 & 1;
	if (was != ns->resv->ptpl && nvmf_ns_resv_save(ns)) {
		ns->resv->ptpl = was;
		return NVME_SC_INTERNAL;
	}
	return 0;
}

/* ---- for operators ---- */

void nvmf_ns_resv_view(const struct nvmf_ns *ns, struct nvmf_resv_view *v)
{
	v->gen = ns->resv->gen;
	v->rtype = ns->resv->rtype;
	v->ptpl = ns->resv->ptpl;
	v->nr = ns->resv->nr;
}

void nvmf_ns_resv_registrant(const struct nvmf_ns *ns, uint32_t i, uint8_t hostid[16],
			     uint64_t *key, bool *holder)
{
	const struct nvmf_resv_reg *g = &ns->resv->regs[i];

	memcpy(hostid, g->hostid, 16);
	*key = g->key;
	*holder = nvmf_resv_is_holder(ns->resv, g->hostid);
}

const char *nvmf_resv_type_name(uint8_t rtype)
{
	static const char *const names[] = {
		"none",
		"Write Exclusive",
		"Exclusive Access",
		"Write Exclusive - Registrants Only",
		"Exclusive Access - Registrants Only",
		"Write Exclusive - All Registrants",
		"Exclusive Access - All Registrants",
	};

	return rtype < BLOX_ARRAY_SIZE(names) ? names[rtype] : "unknown";
}

int nvmf_ns_resv_clear(struct nvmf_ns *ns)
{
	struct nvmf_resv *r = ns->resv, undo;
	struct nvmf_ctrl *c;
	int rc;

	nvmf_resv_init(&undo);
	if (nvmf_resv_copy(&undo, r))
		return -ENOMEM;
	nvmf_resv_clear_all(r);
	rc = nvmf_ns_resv_save(ns);
	if (rc) {
		nvmf_resv_fini(r);
		*r = undo;
		return rc;
	}
	/* The registrants' controllers, as for a clear by another host. */
	TAILQ_FOREACH(c, &ns->subsys->ctrls, link)
		if (nvmf_resv_find(&undo, c->hostid))
			note(c, ns->nsid, NVMF_RESV_EV_RESV_PREEMPTED);
	nvmf_resv_fini(&undo);
	return 0;
}
