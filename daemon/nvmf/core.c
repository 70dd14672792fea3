/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request life in the target core: parse (per command set), execute,
 * complete. Every request that reaches nvmf_req_init() ends in exactly one
 * nvmf_req_complete(), which fills the CQE and hands it to the transport.
 */
#include "nvmf.h"
#include "fault_hold.h"

#include <stdio.h>
#include <string.h>

/* Command flags: FUSE bits 1:0 must be 0; PSDT bits 7:6 say SGL (01b). */
#define NVME_CMD_FUSE_MASK 0x03
#define NVME_CMD_PSDT_MASK 0xc0
#define NVME_CMD_PSDT_SGL 0x40 /* fabrics carry SGLs only */

uint16_t nvmf_req_init(struct nvmf_req *req, struct nvmf_sq *sq)
{
	uint16_t st;

	req->sq = sq;
	req->ns = NULL;
	req->start_ns = nvmf_tgt_now(sq->tgt);
	req->execute = NULL;
	req->dir = NVMF_DIR_NONE;
	req->transfer_len = 0;
	req->scratch_len = 0;
	req->error_loc = 0xffff;
	req->error_lba = UINT64_MAX;
	req->resv_waiter = NULL;
	req->fault_delay_ns = 0;
	memset(&req->cqe, 0, sizeof(req->cqe));
	sq->cmds++;
	sq->tgt->cmds_received++;
	if (!sq->sqhd_disabled && sq->size)
		sq->sqhd = (uint16_t)((sq->sqhd + 1) % sq->size);
	if (sq->ctrl)
		nvmf_ctrl_touch(sq->ctrl);

	if ((req->cmd.flags & NVME_CMD_FUSE_MASK) ||
	    (req->cmd.flags & NVME_CMD_PSDT_MASK) != NVME_CMD_PSDT_SGL) {
		req->error_loc = offsetof(struct nvme_sqe, flags);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}

	if ((st = nvmf_auth_gate(req)))
		return st;
	if (req->cmd.opcode == nvme_admin_fabrics)
		st = nvmf_parse_fabrics(req);
	else if (!sq->ctrl)
		st = NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	else if (sq->qid == 0 &&
		 sq->ctrl->subsys->type == NVMF_SUBSYS_DISCOVERY)
		st = nvmf_parse_discovery(req);
	else if (sq->qid == 0)
		st = nvmf_parse_admin(req);
	else
		st = nvmf_parse_io(req);
	if (st)
		return st;

	if (req->dir != NVMF_DIR_NONE && req->transfer_len != req->data_len) {
		req->error_loc = offsetof(struct nvme_sqe, dptr);
		return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
	}
	if (req->dir != NVMF_DIR_H2C && req->data_in_capsule) {
		req->error_loc = offsetof(struct nvme_sqe, dptr);
		return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
	}
	return 0;
}

static void req_run(struct nvmf_req *req);
static void req_start(struct nvmf_req *req);

void nvmf_req_execute(struct nvmf_req *req)
{
	/* A latency fault of the Fabrics commands holds one (a Connect too) before it runs. */
	if (nvmf_fault_fabrics_start(req, req_start))
		return;
	req_start(req);
}

static void req_start(struct nvmf_req *req)
{
	/* A fault stalling the host's queues holds it; it runs when the stall ends. */
	if (req->sq->qid && nvmf_fault_io_start(req, req_run))
		return;
	/* A latency fault of the admin queue holds an admin command before it runs. */
	if (!req->sq->qid && nvmf_fault_admin_start(req, req_run))
		return;
	req_run(req);
}

static void req_run(struct nvmf_req *req)
{
	uint16_t st;

	/* Deleted while the command waited for its data. */
	if (req->ns && req->ns->detached) {
		nvmf_req_complete(req, NVME_SC_INVALID_NS | NVME_SC_DNR);
		return;
	}
	/*
	 * Reservations are checked as the command starts, not when it was
	 * parsed: one that waited for its data meets the reservation as it
	 * is now (after a preempt, say); so is the path's ANA state.
	 */
	if (req->ns && req->sq->qid &&
	    ((st = nvmf_ana_check(req, req->ns)) || (st = nvmf_resv_io_check(req, req->ns)))) {
		nvmf_req_complete(req, st);
		return;
	}
	st = req->execute(req);

	/* A latency fault the command matched holds its answer (fault_hold.c). */
	if (st != NVMF_REQ_ASYNC)
		nvmf_req_complete_late(req, st);
}

/* ---- failed admin commands, at debug level ---- */

static const char *admin_opc_name(uint8_t opc)
{
	switch (opc) {
	case nvme_admin_get_log_page:
		return "get log page";
	case nvme_admin_identify:
		return "identify";
	case nvme_admin_abort_cmd:
		return "abort";
	case nvme_admin_set_features:
		return "set features";
	case nvme_admin_get_features:
		return "get features";
	case nvme_admin_async_event:
		return "async event request";
	case nvme_admin_keep_alive:
		return "keep alive";
	case nvme_admin_fabrics:
		return "fabrics";
	default:
		return "unsupported";
	}
}

/* The field at byte @loc of the SQE, as the spec names it. */
static const char *sqe_field_name(uint16_t loc, char *tmp, size_t len)
{
	static const struct {
		uint16_t off;
		const char *name;
	} f[] = {
		{ offsetof(struct nvme_sqe, opcode), "opcode" },
		{ offsetof(struct nvme_sqe, flags), "flags" },
		{ offsetof(struct nvme_sqe, nsid), "NSID" },
		{ offsetof(struct nvme_sqe, dptr), "data pointer" },
		{ offsetof(struct nvme_sqe, cdw10), "CDW10" },
		{ offsetof(struct nvme_sqe, cdw11), "CDW11" },
		{ offsetof(struct nvme_sqe, cdw12), "CDW12" },
		{ offsetof(struct nvme_sqe, cdw13), "CDW13" },
		{ offsetof(struct nvme_sqe, cdw14), "CDW14" },
		{ offsetof(struct nvme_sqe, cdw15), "CDW15" },
	};

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(f); i++)
		if (f[i].off == loc)
			return f[i].name;
	if (loc == 0xffff)
		return "the command";
	snprintf(tmp, len, "byte %u", loc);
	return tmp;
}

static const char *status_name(uint16_t status, char *tmp, size_t len)
{
	switch (status & ~NVME_SC_DNR) {
	case NVME_SC_INVALID_OPCODE:
		return "invalid opcode";
	case NVME_SC_INVALID_FIELD:
		return "invalid field";
	case NVME_SC_CMD_SEQ_ERROR:
		return "command sequence error";
	case NVME_SC_INVALID_NS:
		return "invalid namespace";
	case NVME_SC_SGL_INVALID_DATA:
		return "invalid SGL data length";
	case NVME_SC_INTERNAL:
		return "internal error";
	case NVMF_SC_CMD(NVME_SC_INVALID_LOG_PAGE):
		return "invalid log page";
	case NVMF_SC_CMD(NVME_SC_FEATURE_NOT_SAVEABLE):
		return "feature not saveable";
	default:
		snprintf(tmp, len, "status 0x%03x", status & ~NVME_SC_DNR);
		return tmp;
	}
}

/*
 * "admin cmd 0x0a (get features) fid 0x16: invalid field in CDW10": which
 * command a host sent that failed, and in which field, so that what a
 * host's connect probes for shows at --log-level 3 (the error log page
 * holds only the CID and the field's offset).
 */
static void log_admin_failure(const struct nvmf_req *req, uint16_t status)
{
	const struct nvme_sqe *cmd = &req->cmd;
	char what[24] = "", t1[16], t2[24];

	switch (cmd->opcode) {
	case nvme_admin_identify:
		snprintf(what, sizeof(what), " cns 0x%02x", cmd->cdw10 & 0xff);
		break;
	case nvme_admin_get_log_page:
		snprintf(what, sizeof(what), " lid 0x%02x", cmd->cdw10 & 0xff);
		break;
	case nvme_admin_set_features:
	case nvme_admin_get_features:
		snprintf(what, sizeof(what), " fid 0x%02x", cmd->cdw10 & 0xff);
		break;
	default:
		break;
	}
	blox_log(req->sq->tgt->log, BLOX_LOG_DEBUG,
		 "ctrl %u of %s: admin cmd 0x%02x (%s)%s: %s in %s", req->sq->ctrl->cntlid, req->sq->ctrl->subsys->nqn, cmd->opcode,
		 admin_opc_name(cmd->opcode), what, status_name(status, t2, sizeof(t2)),
		 sqe_field_name(req->error_loc, t1, sizeof(t1)));
}

/* A media or data integrity error (SMART's Media and Data Integrity Errors). */
static bool media_error(uint16_t status)
{
	uint16_t sc = status & 0xff;

	if (((status >> NVME_SCT_SHIFT) & NVME_SCT_MASK) != NVME_SCT_MEDIA)
		return false;
	return sc == NVME_SC_WRITE_FAULT || sc == NVME_SC_READ_ERROR ||
	       sc == NVME_SC_GUARD_CHECK || sc == NVME_SC_APPTAG_CHECK ||
	       sc == NVME_SC_REFTAG_CHECK;
}

void nvmf_req_complete(struct nvmf_req *req, uint16_t status)
{
	struct nvmf_sq *sq = req->sq;

	sq->tgt->cmds_completed++;
	req->cqe.cid = req->cmd.cid;
	req->cqe.sqid = sq->qid;
	req->cqe.sqhd = sq->sqhd_disabled ? 0xffff : sq->sqhd;
	req->cqe.status = (uint16_t)(status << 1);
	if (status) {
		sq->errors++;
		/* AERs ended by the controller's teardown are no failure. */
		if (!sq->qid && sq->ctrl && (status & ~NVME_SC_DNR) != NVME_SC_ABORT_QUEUE)
			log_admin_failure(req, status);
		if (req->ns) {
			req->ns->stats.errors++;
			req->ns->tm.c.errors++;
			if (media_error(status))
				req->ns->stats.media_errors++;
		}
		if (sq->ctrl) {
			nvmf_ctrl_log_error(sq->ctrl, req, status);
			if (sq->qid)
				sq->ctrl->tm.c.errors++;
		}
	}
	/* Reads and writes are counted with their bytes and latency (io_cmd.c). */
	if (!status && sq->qid && req->cmd.opcode != nvme_cmd_read &&
	    req->cmd.opcode != nvme_cmd_write) {
		if (req->ns) {
			req->ns->stats.other_cmds++;
			req->ns->tm.c.other_cmds++;
		}
		if (sq->ctrl)
			sq->ctrl->tm.c.other_cmds++;
	}
	if (req->ns) {
		nvmf_ns_put(req->ns);
		req->ns = NULL;
	}
	sq->ops->queue_response(req);
}

uint16_t nvmf_req_copy_out(struct nvmf_req *req, const void *src, size_t len)
{
	size_t n = BLOX_MIN(len, (size_t)req->transfer_len);

	memcpy(req->buf, src, n);
	if (n < req->transfer_len)
		memset(req->buf + n, 0, req->transfer_len - n);
	return 0;
}

void nvmf_strpad(char *dst, size_t dlen, const char *src)
{
	size_t n = strnlen(src, dlen);

	memcpy(dst, src, n);
	memset(dst + n, ' ', dlen - n);
}
