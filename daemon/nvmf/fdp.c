/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flexible Data Placement (NVMe TP4146, NVMe 2.1) of a namespace whose
 * backend writes by reclaim unit handle (the nand backend's FTL keeps a
 * stream and an open superblock per handle, ftl/fdp.c):
 *
 *   - an Endurance Group has FDP when a namespace in it has placement
 *     handles. Its one configuration (log 20h): one reclaim group (the
 *     vSSD's superblocks stripe every die it has, so a reclaim unit, a
 *     superblock, spans all of them: per-die groups would not be whole
 *     superblocks), the reclaim unit handles of its namespaces numbered
 *     in NSID order, a reclaim unit's size, no time limit;
 *   - a namespace's placement handle i is its backend's handle i, and
 *     the Placement Identifier of a write (DTYPE 2, DSPEC) is the handle
 *     (RGIF 0: no reclaim group bits). An identifier out of range writes
 *     to handle 0 and records an Invalid Placement Identifier event, as
 *     the specification has it (and QEMU does);
 *   - logs 21h (usage), 22h (statistics: the backend's counters, summed
 *     over the group), 23h (events, fdp_ev.c), features 1Dh (FDP, per
 *     group; changing it while the group has namespaces is a Command
 *     Sequence Error) and 1Eh (events per placement handle, fdp_ev.c),
 *     Directive Receive and
 *     Send (Identify: Data Placement supported, enabled on an FDP
 *     namespace), I/O Management Receive (Reclaim Unit Handle Status) and
 *     Send (Reclaim Unit Handle Update).
 */
#include "fdp.h"

#include <errno.h>
#include <string.h>

#define DTYPE_IDENTIFY 0
#define DTYPE_DATA_PLACEMENT 2
#define SC_FDP_DISABLED 0x29 /* generic: FDP Disabled */

void nvmf_ns_fdp_init(struct nvmf_ns *ns)
{
	struct blox_bdev_fdp f;

	memset(&ns->fdp, 0, sizeof(ns->fdp));
	memset(&f, 0, sizeof(f));
	if (!blox_bdev_fdp_info(ns->bdev, &f) || !f.nr_ruh)
		return;
	ns->fdp.nr_ruh = (uint16_t)BLOX_MIN(f.nr_ruh, (uint32_t)BLOX_FDP_MAX_RUH);
	ns->fdp.persistent = f.persistent;
	ns->fdp.ru_bytes = f.ru_bytes;
	ns->fdp.ru_time_limit_s = f.ru_time_limit_s;
	/* Its log as it was saved at the last stop; else events from before it was added are not its host's. */
	if (!nvmf_fdp_load(ns))
		ns->fdp.bdev_ev_seen = f.ev_seq;
}

uint32_t nvmf_fdp_group_mix(const struct nvmf_subsys *s, struct blox_bdev *bdev)
{
	struct blox_bdev_endurance e;
	struct blox_bdev_fdp f;
	const struct nvmf_ns *o;
	bool fdp;

	memset(&e, 0, sizeof(e));
	memset(&f, 0, sizeof(f));
	blox_bdev_endurance(bdev, &e);
	if (!e.shared_pool)
		return 0; /* a group of its own (endgrp.c) */
	fdp = blox_bdev_fdp_info(bdev, &f) && f.nr_ruh;
	TAILQ_FOREACH(o, &s->namespaces, link)
		if (o->pool && o->pool_key == e.pool_key && nvmf_ns_fdp(o) != fdp)
			return o->nsid;
	return 0;
}

bool nvmf_ns_fdp(const struct nvmf_ns *ns)
{
	return ns->fdp.nr_ruh != 0;
}

/* Does Endurance Group @endgid exist, and has it FDP (a namespace with handles)? */
static bool group(const struct nvmf_subsys *s, uint32_t endgid, bool *fdp)
{
	const struct nvmf_ns *ns;
	bool any = false;

	*fdp = false;
	TAILQ_FOREACH(ns, &s->namespaces, link) {
		if (ns->endgid != endgid)
			continue;
		any = true;
		*fdp |= nvmf_ns_fdp(ns);
	}
	return any;
}

uint16_t nvmf_fdp_ruh_base(const struct nvmf_ns *ns)
{
	const struct nvmf_ns *o;
	uint16_t base = 0;

	TAILQ_FOREACH(o, &ns->subsys->namespaces, link)
		if (o->endgid == ns->endgid && o->nsid < ns->nsid)
			base = (uint16_t)(base + o->fdp.nr_ruh);
	return base;
}

static void put128(uint8_t dst[16], uint64_t v)
{
	memset(dst, 0, 16);
	memcpy(dst, &v, sizeof(v));
}

/* A group with FDP, from the log's LSI (CDW11 31:16), or the status. */
static uint16_t log_group(struct nvmf_req *req, uint32_t *endgid)
{
	bool fdp;

	*endgid = req->cmd.cdw11 >> 16;
	if (!group(req->sq->ctrl->subsys, *endgid, &fdp) || !fdp) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	return 0;
}

/* ---- log pages 20h-23h ---- */

uint16_t nvmf_log_fdp(struct nvmf_req *req, uint8_t lid, uint8_t *out, size_t cap,
		      size_t *len)
{
	const struct nvmf_ns *ns;
	uint32_t endgid, nruh = 0, nns = 0;
	uint16_t st = log_group(req, &endgid);

	if (st)
		return st;
	TAILQ_FOREACH(ns, &req->sq->ctrl->subsys->namespaces, link)
		if (ns->endgid == endgid && nvmf_ns_fdp(ns)) {
			nruh += ns->fdp.nr_ruh;
			nns++;
		}
	memset(out, 0, cap);
	switch (lid) {
	case NVME_LOG_LID_FDP_CONFIGS: {
		struct nvme_fdp_config_log *l = (void *)out;
		struct nvme_fdp_config_desc *d = l->configs;
		uint32_t i = 0;

		*len = sizeof(*l) + sizeof(*d) + nruh * sizeof(d->ruhs[0]);
		if (*len > cap)
			return NVME_SC_INTERNAL;
		l->n = 0; /* 0's based: one configuration */
		l->size = (uint32_t)*len;
		d->size = (uint16_t)(*len - sizeof(*l));
		d->fdpa = (1u << NVME_FDP_CONFIG_FDPA_VALID_SHIFT) |
			  (1u << NVME_FDP_CONFIG_FDPA_FDPVWC_SHIFT);
		d->nrg = 1;
		d->nruh = (uint16_t)nruh;
		d->maxpids = BLOX_FDP_MAX_RUH - 1;
		d->nnss = nns;
		TAILQ_FOREACH(ns, &req->sq->ctrl->subsys->namespaces, link) {
			if (ns->endgid != endgid || !nvmf_ns_fdp(ns))
				continue;
			d->runs = BLOX_MAX(d->runs, ns->fdp.ru_bytes);
			/* The soonest any namespace's reclaim units may be closed. */
			if (ns->fdp.ru_time_limit_s &&
			    (!d->erutl || ns->fdp.ru_time_limit_s < d->erutl))
				d->erutl = ns->fdp.ru_time_limit_s;
			for (uint32_t r = 0; r < ns->fdp.nr_ruh; r++)
				d->ruhs[i++].ruht = ns->fdp.persistent
							    ? NVME_FDP_RUHT_PERSISTENTLY_ISOLATED
							    : NVME_FDP_RUHT_INITIALLY_ISOLATED;
		}
		return 0;
	}
	case NVME_LOG_LID_FDP_RUH_USAGE: {
		struct nvme_fdp_ruhu_log *l = (void *)out;

		*len = sizeof(*l) + nruh * sizeof(l->ruhus[0]);
		if (*len > cap)
			return NVME_SC_INTERNAL;
		l->nruh = (uint16_t)nruh;
		/* Every handle is one a namespace's placement handle names. */
		for (uint32_t r = 0; r < nruh; r++)
			l->ruhus[r].ruha = 1u << NVME_FDP_RUHA_HOST_SHIFT;
		return 0;
	}
	case NVME_LOG_LID_FDP_STATS: {
		struct nvme_fdp_stats_log *l = (void *)out;
		uint64_t h = 0, m = 0, e = 0;

		TAILQ_FOREACH(ns, &req->sq->ctrl->subsys->namespaces, link) {
			struct blox_bdev_fdp f;

			memset(&f, 0, sizeof(f));
			if (ns->endgid != endgid || !blox_bdev_fdp_info(ns->bdev, &f))
				continue;
			h += f.host_bytes;
			m += f.media_bytes;
			e += f.erased_bytes;
		}
		put128(l->hbmw, h);
		put128(l->mbmw, m);
		put128(l->mbe, e);
		*len = sizeof(*l);
		return 0;
	}
	default: /* NVME_LOG_LID_FDP_EVENTS (fdp_ev.c) */
		return nvmf_fdp_events_log(req, endgid, out, cap, len);
	}
}

/* ---- feature 1Dh (per Endurance Group); 1Eh is fdp_ev.c's ---- */

uint16_t nvmf_feat_fdp(struct nvmf_req *req, bool set)
{
	uint32_t endgid = req->cmd.cdw11 & 0xffff;
	bool fdp;

	if (!group(req->sq->ctrl->subsys, endgid, &fdp)) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (!set) {
		req->cqe.result = fdp ? 1 : 0; /* FDPE; FDPCIDX 0 */
		return 0;
	}
	if (((req->cmd.cdw12 >> 8) & 0xff) != 0) {
		req->error_loc = offsetof(struct nvme_sqe, cdw12);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR; /* one configuration */
	}
	/* The group has namespaces (else it would not exist): no change. */
	if ((bool)(req->cmd.cdw12 & 1) != fdp)
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	return 0;
}

/* ---- Directive Send and Receive: the Identify directive ---- */

static uint16_t exec_dir_recv(struct nvmf_req *req)
{
	struct nvmf_ns *ns = nvmf_ns_find(req->sq->ctrl->subsys, req->cmd.nsid);
	struct nvme_id_directives d;

	memset(&d, 0, sizeof(d));
	d.supported[0] = (1u << DTYPE_IDENTIFY) | (1u << DTYPE_DATA_PLACEMENT);
	d.enabled[0] = 1u << DTYPE_IDENTIFY;
	if (ns && nvmf_ns_fdp(ns))
		d.enabled[0] |= 1u << DTYPE_DATA_PLACEMENT;
	return nvmf_req_copy_out(req, &d, sizeof(d));
}

static uint16_t exec_dir_send(struct nvmf_req *req)
{
	struct nvmf_ns *ns = nvmf_ns_find(req->sq->ctrl->subsys, req->cmd.nsid);
	bool enable = req->cmd.cdw12 & 1;
	uint8_t tdtype = (req->cmd.cdw12 >> 8) & 0xff;

	/*
	 * Enable Directive: Data Placement follows the group's FDP (feature
	 * 1Dh), so only what is already so is accepted.
	 */
	if (tdtype == DTYPE_DATA_PLACEMENT && ns && enable == nvmf_ns_fdp(ns))
		return 0;
	req->error_loc = offsetof(struct nvme_sqe, cdw12);
	return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
}

uint16_t nvmf_parse_directive(struct nvmf_req *req, bool send)
{
	uint8_t doper = req->cmd.cdw11 & 0xff, dtype = (req->cmd.cdw11 >> 8) & 0xff;
	uint32_t nsid = req->cmd.nsid;

	if (nsid != 0xffffffff && !nvmf_ns_find(req->sq->ctrl->subsys, nsid)) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	}
	/* Identify: Return Parameters (receive) and Enable Directive (send). */
	if (dtype != DTYPE_IDENTIFY || doper != 1) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (send) {
		req->execute = exec_dir_send;
		return 0;
	}
	req->dir = NVMF_DIR_C2H;
	req->transfer_len = (req->cmd.cdw10 + 1) * 4;
	if (req->transfer_len > sizeof(struct nvme_id_directives))
		req->transfer_len = sizeof(struct nvme_id_directives);
	req->execute = exec_dir_recv;
	return 0;
}

/* ---- writes and I/O Management ---- */

uint16_t nvmf_fdp_write_check(struct nvmf_req *req)
{
	uint8_t dtype = (req->cmd.cdw12 >> 20) & 0xf;

	if (dtype == 0 || (dtype == DTYPE_DATA_PLACEMENT && nvmf_ns_fdp(req->ns)))
		return 0;
	req->error_loc = offsetof(struct nvme_sqe, cdw12);
	return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
}

uint16_t nvmf_fdp_write_ruh(struct nvmf_req *req)
{
	struct nvmf_ns *ns = req->ns;
	uint16_t pid = (uint16_t)(req->cmd.cdw13 >> 16);

	if (((req->cmd.cdw12 >> 20) & 0xf) != DTYPE_DATA_PLACEMENT)
		return 0;
	if (pid < ns->fdp.nr_ruh)
		return pid;
	/* Invalid Placement Identifier: the default handle, and an event. */
	ns->fdp.invalid_pids++;
	nvmf_fdp_host_event(ns, FDP_EV_PID, pid, 0);
	return 0;
}

static uint16_t exec_mgmt_recv(struct nvmf_req *req)
{
	struct nvmf_ns *ns = req->ns;
	/* The I/O queues' buffers are the host's data only: the status is built here. */
	uint64_t raw[(sizeof(struct nvme_fdp_ruh_status) +
		      BLOX_FDP_MAX_RUH * sizeof(struct nvme_fdp_ruh_status_desc)) / 8];
	struct nvme_fdp_ruh_status *s = (void *)raw;
	uint16_t base = nvmf_fdp_ruh_base(ns);
	struct blox_bdev_fdp f;
	size_t len;

	memset(&f, 0, sizeof(f));
	if (!blox_bdev_fdp_info(ns->bdev, &f))
		return SC_FDP_DISABLED | NVME_SC_DNR;
	len = sizeof(*s) + ns->fdp.nr_ruh * sizeof(s->ruhss[0]);
	memset(s, 0, len);
	s->nruhsd = ns->fdp.nr_ruh;
	for (uint16_t i = 0; i < ns->fdp.nr_ruh; i++) {
		s->ruhss[i].pid = i;
		s->ruhss[i].ruhid = (uint16_t)(base + i);
		s->ruhss[i].ruamw = f.ruh[i].ru_left_bytes >> ns->lba_shift;
	}
	return nvmf_req_copy_out(req, s, len);
}

static void mgmt_flush_done(struct blox_io *io)
{
	struct nvmf_req *req = nvmf_io_done(io);

	nvmf_req_complete(req, nvmf_io_status(req, io->status));
}

/*
 * Reclaim Unit Handle Update of every placement identifier in the list. A
 * reclaim unit that moved is closed for good once the command completes:
 * a flush of what the backend has handed to its flash follows (not a
 * Flush: other handles' pages being filled are not padded), so the
 * padding that marks it closed is on flash and a restart after a crash
 * does not reopen it.
 */
static uint16_t exec_mgmt_send(struct nvmf_req *req)
{
	struct nvmf_ns *ns = req->ns;
	uint32_t npid = (req->cmd.cdw10 >> 16) + 1;
	const uint16_t *pids = (const void *)req->buf;
	struct blox_bdev_fdp f;
	bool moved = false;

	for (uint32_t i = 0; i < npid; i++)
		if (pids[i] >= ns->fdp.nr_ruh) {
			req->error_loc = offsetof(struct nvme_sqe, dptr);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
	memset(&f, 0, sizeof(f));
	blox_bdev_fdp_info(ns->bdev, &f);
	for (uint32_t i = 0; i < npid; i++) {
		uint64_t left = f.ruh[pids[i]].ru_left_bytes;
		int rc = blox_bdev_fdp_update(ns->bdev, pids[i]);

		if (rc == -EAGAIN)
			return NVME_SC_CMD_INTERRUPTED; /* no write buffer free: the host retries */
		if (rc)
			return nvmf_io_status(req, rc);
		if (left && left < f.ru_bytes) {
			nvmf_fdp_host_event(ns, FDP_EV_RUNFW, pids[i], pids[i]);
			moved = true;
		}
		f.ruh[pids[i]].ru_left_bytes = 0; /* listed twice: moved once */
	}
	if (!moved)
		return 0;
	nvmf_io_prep(req, BLOX_IO_FLUSH, 0, 0, NULL, mgmt_flush_done);
	req->io.fua = false;
	req->io.flush_issued = true; /* the mark; other handles' pages stay as they are */
	nvmf_io_go(req);
	return NVMF_REQ_ASYNC;
}

uint16_t nvmf_parse_io_mgmt(struct nvmf_req *req, bool send)
{
	uint8_t mo = req->cmd.cdw10 & 0xff;

	if (!nvmf_ns_fdp(req->ns))
		return SC_FDP_DISABLED | NVME_SC_DNR;
	if (mo != NVME_IO_MGMT_RECV_RUH_STATUS) { /* = NVME_IO_MGMT_SEND_RUH_UPDATE */
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (send) {
		req->dir = NVMF_DIR_H2C;
		req->transfer_len = ((req->cmd.cdw10 >> 16) + 1) * 2;
		if (req->data_len < req->transfer_len) {
			req->error_loc = offsetof(struct nvme_sqe, dptr);
			return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
		}
		req->transfer_len = req->data_len;
		req->execute = exec_mgmt_send;
		return 0;
	}
	req->dir = NVMF_DIR_C2H;
	req->transfer_len = (req->cmd.cdw11 + 1) * 4;
	if (req->transfer_len > nvmf_max_xfer(req->sq->tgt)) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	req->execute = exec_mgmt_recv;
	return 0;
}

void nvmf_fdp_effects(struct nvme_cmd_effects_log *l)
{
	l->acs[nvme_admin_directive_send] = NVME_CMD_EFFECTS_CSUPP;
	l->acs[nvme_admin_directive_recv] = NVME_CMD_EFFECTS_CSUPP;
	l->iocs[nvme_cmd_io_mgmt_recv] = NVME_CMD_EFFECTS_CSUPP;
	l->iocs[nvme_cmd_io_mgmt_send] = NVME_CMD_EFFECTS_CSUPP;
}
