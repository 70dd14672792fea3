/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Zoned Namespace Command Set (NVMe ZNS, CSI 2) on a zoned backend
 * (bdev.h: blox_bdev_zoned_ops; the "zns" backend): Zone Management Send
 * (close, finish, open, reset, offline, one zone or Select All), Zone
 * Management Receive (Report Zones with its filters and Partial Report),
 * Zone Append (the LBA written in DW0-DW1 of the completion); the ZNS
 * Identify Namespace (zone size, MOR/MAR, reads across zone boundaries)
 * and Identify Controller (ZASL) data, the I/O Command Set vector of CNS
 * 1Ch, and the zoned commands in the Commands Supported and Effects log of
 * CSI 2. Reads and writes of a zoned namespace are the NVM command set's
 * (io_cmd.c); the backend keeps the zone rules and says which status a
 * command it refuses gets. The zones the backend changed by itself (a
 * zone finished when its reserve of pages for flushes is gone, made read
 * only by a failed program, offline by a failed erase): the Zone
 * Descriptor Changed notice and the Changed Zone List log (BFh). Not
 * done: Zone Descriptor Extensions, the Extended Report.
 */
#include "fault_hold.h"
#include "nvmf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IDENTIFY_LEN 4096
#define ZRA_REPORT 0x00
#define ZRAS_MAX 0x07 /* Report Offline, the last filter */
#define ZSA_MAX 0x05 /* Offline Zone; Set Zone Descriptor Extension (10h) is not supported */
#define CDW13_SELECT_ALL (1u << 8)
#define CDW13_PARTIAL (1u << 16)
#define ZONE_TYPE_SEQ_WRITE 0x2
#define OZCS_RAZB 0x1 /* reads across zone boundaries */
#define IOCS_NVM (1ull << 0)
#define IOCS_ZNS (1ull << 2)

_Static_assert(sizeof(struct nvme_zns_id_ns) == IDENTIFY_LEN, "ZNS Identify Namespace size");
_Static_assert(sizeof(struct nvme_zns_desc) == 64, "Zone Descriptor size");

bool nvmf_ns_zoned(const struct nvmf_ns *ns)
{
	return ns->bdev && ns->bdev->ops->zoned;
}

static uint64_t cmd_slba(const struct nvmf_req *req)
{
	return (uint64_t)req->cmd.cdw10 | ((uint64_t)req->cmd.cdw11 << 32);
}

/* ---- Identify ---- */

uint16_t nvmf_zns_id_ns(struct nvmf_req *req)
{
	struct nvmf_ns *ns = nvmf_ns_find(req->sq->ctrl->subsys, req->cmd.nsid);
	struct nvme_zns_id_ns *id = (void *)req->buf;
	struct blox_bdev_zone_info zi;

	if (!ns) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	}
	if (!nvmf_ns_zoned(ns) || !blox_bdev_zone_info(ns->bdev, &zi)) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	memset(req->buf, 0, IDENTIFY_LEN);
	/* No variable capacity, no zone active excursions: what Linux takes. */
	id->zoc = 0;
	id->ozcs = OZCS_RAZB;
	/* 0's based; all ones: no limit. */
	id->mar = zi.max_active ? zi.max_active - 1 : 0xffffffffu;
	id->mor = zi.max_open ? zi.max_open - 1 : 0xffffffffu;
	id->lbafe[0].zsze = zi.zone_size << 12 >> ns->lba_shift;
	return 0;
}

/*
 * ZASL: the Zone Append size limit, 2^n units of 4 KiB: the smallest of
 * what the subsystem's zoned backends take, within MDTS.
 */
uint16_t nvmf_zns_id_ctrl(struct nvmf_req *req)
{
	struct nvme_zns_id_ctrl *id = (void *)req->buf;
	uint64_t limit = (uint64_t)req->sq->tgt->lim.mdts_kb * 1024;
	struct nvmf_ns *ns;

	TAILQ_FOREACH(ns, &req->sq->ctrl->subsys->namespaces, link) {
		struct blox_bdev_zone_info zi;

		if (nvmf_ns_zoned(ns) && blox_bdev_zone_info(ns->bdev, &zi) &&
		    zi.max_append_bytes < limit)
			limit = zi.max_append_bytes;
	}
	memset(req->buf, 0, IDENTIFY_LEN);
	id->zasl = (uint8_t)(63 - __builtin_clzll(BLOX_MAX(limit / 4096, 1ull)));
	return 0;
}

/* The one I/O Command Set combination: NVM and Zoned Namespace. */
uint16_t nvmf_zns_id_iocs(struct nvmf_req *req)
{
	uint64_t v = IOCS_NVM | IOCS_ZNS;

	memset(req->buf, 0, IDENTIFY_LEN);
	memcpy(req->buf, &v, sizeof(v));
	return 0;
}

void nvmf_zns_effects(struct nvme_cmd_effects_log *l)
{
	l->iocs[nvme_zns_cmd_mgmt_send] = NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC;
	l->iocs[nvme_zns_cmd_append] = NVME_CMD_EFFECTS_CSUPP | NVME_CMD_EFFECTS_LBCC;
	l->iocs[nvme_zns_cmd_mgmt_recv] = NVME_CMD_EFFECTS_CSUPP;
}

/* ---- Zone Management Receive ---- */

static uint16_t exec_recv(struct nvmf_req *req)
{
	struct nvme_zone_report *r = (void *)req->buf;
	uint32_t max = (req->transfer_len - (uint32_t)sizeof(*r)) / sizeof(r->entries[0]);
	uint8_t filter = (uint8_t)(req->cmd.cdw13 >> 8);
	struct blox_bdev_zone *z = NULL;
	uint32_t n;

	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER);
	if (max && !(z = calloc(max, sizeof(*z))))
		return NVME_SC_INTERNAL;
	n = blox_bdev_zone_report(req->ns->bdev, cmd_slba(req), filter, z, max);
	memset(req->buf, 0, req->transfer_len);
	/* Partial Report: the descriptors returned; else every zone that matches. */
	r->nr_zones = (req->cmd.cdw13 & CDW13_PARTIAL) ? BLOX_MIN(n, max) : n;
	for (uint32_t i = 0; i < BLOX_MIN(n, max); i++) {
		struct nvme_zns_desc *d = &r->entries[i];

		d->zt = ZONE_TYPE_SEQ_WRITE;
		d->zs = (uint8_t)(z[i].state << 4);
		d->za = z[i].attrs;
		d->zcap = z[i].cap;
		d->zslba = z[i].zslba;
		d->wp = z[i].wp;
	}
	free(z);
	return 0;
}

/* ---- Zone Management Send and Zone Append ---- */

static void send_done(struct blox_io *io)
{
	struct nvmf_req *req = nvmf_io_done(io);

	nvmf_req_complete_late(req, nvmf_io_status(req, io->status));
}

static uint16_t exec_send(struct nvmf_req *req)
{
	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER);
	nvmf_io_prep(req, BLOX_IO_ZONE_MGMT, cmd_slba(req), 0, NULL, send_done);
	req->io.zone_action = (uint8_t)(req->cmd.cdw13 & 0xff);
	req->io.zone_all = req->cmd.cdw13 & CDW13_SELECT_ALL;
	nvmf_io_go(req);
	return NVMF_REQ_ASYNC;
}

static void append_done(struct blox_io *io)
{
	struct nvmf_req *req = nvmf_io_done(io);
	uint16_t st = nvmf_io_status(req, io->status);

	if (!st) {
		req->cqe.result = io->result;
		req->ns->stats.write_cmds++;
		req->ns->stats.write_bytes += io->len;
	}
	nvmf_req_complete_late(req, st);
}

static uint16_t exec_append(struct nvmf_req *req)
{
	nvmf_fault_latency(req, BLOX_FAULT_OP_WRITE); /* a write, placed by the drive */
	nvmf_io_prep(req, BLOX_IO_ZONE_APPEND, cmd_slba(req), (req->cmd.cdw12 & 0xffff) + 1u,
		     req->buf, append_done);
	nvmf_io_go(req);
	return NVMF_REQ_ASYNC;
}

/* ---- zones the controller changed ---- */

#define CHANGED_ZONES_MAX 511 /* a log of more says 0xFFFF */

void nvmf_zns_changed(struct nvmf_ns *ns, uint64_t changes)
{
	struct nvmf_ctrl *c;

	ns->zone_changes = changes;
	if (ns->detached)
		return;
	TAILQ_FOREACH(c, &ns->subsys->ctrls, link)
		nvmf_ctrl_aen_raise(c, NVMF_AEN_ZONE_CHANGED);
}

static uint64_t zones_read(const struct nvmf_ctrl *c, uint32_t nsid)
{
	return c->zones_read && nsid <= NVMF_MAX_NS ? c->zones_read[nsid] : 0;
}

/* The first zoned namespace with changes @c has not read; 0: none. */
uint32_t nvmf_zns_changed_nsid(struct nvmf_ctrl *c)
{
	struct nvmf_ns *ns;

	TAILQ_FOREACH(ns, &c->subsys->namespaces, link)
		if (nvmf_ns_zoned(ns) && ns->zone_changes > zones_read(c, ns->nsid))
			return ns->nsid;
	return 0;
}

uint16_t nvmf_log_changed_zones(struct nvmf_req *req, uint8_t *out, size_t *len, bool rae)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	struct nvmf_ns *ns = nvmf_ns_find(c->subsys, req->cmd.nsid);
	struct nvme_zns_changed_zone_log *l = (void *)out;
	uint64_t zslba[CHANGED_ZONES_MAX], now;
	uint32_t n;

	if (!ns || !nvmf_ns_zoned(ns)) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	n = blox_bdev_zone_changed(ns->bdev, zones_read(c, ns->nsid), &now, zslba,
				   CHANGED_ZONES_MAX);
	memset(l, 0, sizeof(*l));
	le16_put(&l->nrzid, (uint16_t)(n > CHANGED_ZONES_MAX ? 0xffff : n));
	for (uint32_t i = 0; i < n && i < CHANGED_ZONES_MAX; i++)
		le64_put(&l->zid[i], zslba[i]);
	*len = sizeof(*l);
	if (now > ns->zone_changes) {
		/* Read before a completion told it: the other controllers are told now. */
		struct nvmf_ctrl *o;

		ns->zone_changes = now;
		TAILQ_FOREACH(o, &c->subsys->ctrls, link)
			if (o != c)
				nvmf_ctrl_aen_raise(o, NVMF_AEN_ZONE_CHANGED);
	}
	if (rae)
		return 0;
	if (!c->zones_read && !(c->zones_read = calloc(NVMF_MAX_NS + 1, sizeof(uint64_t))))
		return NVME_SC_INTERNAL;
	c->zones_read[ns->nsid] = now;
	nvmf_ctrl_aen_log_read(c, NVMF_AEN_ZONE_CHANGED, nvmf_zns_changed_nsid(c) != 0);
	return 0;
}

/* ---- parse ---- */

static uint16_t bad_field(struct nvmf_req *req, size_t loc)
{
	req->error_loc = (uint16_t)loc;
	return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
}

uint16_t nvmf_parse_zns(struct nvmf_req *req)
{
	struct nvmf_ns *ns = req->ns;
	uint64_t slba = cmd_slba(req), len;

	if (!nvmf_ns_zoned(ns)) {
		req->error_loc = offsetof(struct nvme_sqe, opcode);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
	if (slba >= ns->nblocks && !(req->cmd.opcode == nvme_zns_cmd_mgmt_send &&
				     (req->cmd.cdw13 & CDW13_SELECT_ALL))) {
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_LBA_RANGE | NVME_SC_DNR;
	}
	switch (req->cmd.opcode) {
	case nvme_zns_cmd_mgmt_send: {
		uint8_t zsa = req->cmd.cdw13 & 0xff;

		if (zsa == 0 || zsa > ZSA_MAX)
			return bad_field(req, offsetof(struct nvme_sqe, cdw13));
		req->dir = NVMF_DIR_NONE;
		req->execute = exec_send;
		return 0;
	}
	case nvme_zns_cmd_mgmt_recv:
		len = ((uint64_t)req->cmd.cdw12 + 1) * 4;
		if ((req->cmd.cdw13 & 0xff) != ZRA_REPORT || ((req->cmd.cdw13 >> 8) & 0xff) > ZRAS_MAX)
			return bad_field(req, offsetof(struct nvme_sqe, cdw13));
		if (len < sizeof(struct nvme_zone_report) || len > nvmf_max_xfer(req->sq->tgt))
			return bad_field(req, offsetof(struct nvme_sqe, cdw12));
		req->dir = NVMF_DIR_C2H;
		req->transfer_len = (uint32_t)len;
		req->execute = exec_recv;
		return 0;
	case nvme_zns_cmd_append:
		len = (uint64_t)((req->cmd.cdw12 & 0xffff) + 1) << ns->lba_shift;
		if (len > nvmf_max_xfer(req->sq->tgt))
			return bad_field(req, offsetof(struct nvme_sqe, cdw12));
		req->dir = NVMF_DIR_H2C;
		req->transfer_len = (uint32_t)len;
		req->execute = exec_append;
		return 0;
	default:
		req->error_loc = offsetof(struct nvme_sqe, opcode);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}
