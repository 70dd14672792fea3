/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVM I/O command set: Read, Write (FUA), Flush, Write Zeroes, Dataset
 * Management (deallocate) and Compare, on the namespace's backend; the
 * reservation commands are resv_cmd.c's.
 * Commands that touch the backend return NVMF_REQ_ASYNC and complete
 * from the backend's completion callback.
 */
#include "nvmf.h"
#include "fault_hold.h"

#include <errno.h>
#include <string.h>

#define CDW12_FUA (1u << 30)
#define DSM_AD (1u << 2)
#define DSM_MAX_RANGES 256

static uint64_t cmd_slba(const struct nvmf_req *req)
{
	return (uint64_t)req->cmd.cdw10 | ((uint64_t)req->cmd.cdw11 << 32);
}

static uint32_t cmd_nlb(const struct nvmf_req *req)
{
	return (req->cmd.cdw12 & 0xffff) + 1;
}

/* Does @req store data (Write, Write Zeroes, DSM deallocate, or Flush, which commits it)? */
static bool stores_data(const struct nvmf_req *req)
{
	return req->cmd.opcode == nvme_cmd_write || req->cmd.opcode == nvme_cmd_write_zeroes ||
	       req->cmd.opcode == nvme_cmd_dsm || req->cmd.opcode == nvme_cmd_flush;
}

/*
 * The NVMe status of a backend's -errno, by what the command does and why
 * it failed (the NVMe base spec's status codes, as the Linux target's
 * blk_to_nvme_status() picks them by opcode):
 *
 * - -EIO, a media failure: Unrecovered Read Error (02/81h) for a read or
 *   Compare, retryable as before; Write Fault (02/80h, "the write data
 *   could not be committed to the media") for a command that stores data,
 *   with DNR: the nand backend's FTL refuses every write once a program
 *   failed, so a retry cannot succeed.
 * - -ENOSPC (its store cannot grow: a full disk under the store file),
 *   -EDQUOT, -ENOMEM (a RAM backend's chunk) for a command that stores
 *   data: Capacity Exceeded (00/81h, "execution of the command has caused
 *   the capacity of the namespace to be exceeded"), with DNR. A namespace
 *   here is provisioned thinly on its store (a sparse file, RAM taken on
 *   first write), so the capacity it really has is what its store can
 *   still take, and that is what ran out: the medium did not fail. Write
 *   Fault would say it did, and a host could not tell a full disk from a
 *   failing device (Linux reports 02/80h as a critical medium error and
 *   00/81h as no space, -ENOSPC, as for a thin pool run dry). DNR: the
 *   space does not come back by itself, and the FTL takes no writes after
 *   a failed program until bloxd restarts.
 * - -ESHUTDOWN, the backend is stopping (its namespace is being deleted,
 *   bloxd stops): Namespace Not Ready (00/82h) without DNR, which the spec
 *   leaves to say whether a retry later may succeed; a retry finds the
 *   namespace gone (Invalid Namespace) or serving again.
 * - -ERANGE: LBA Out of Range; anything else: Internal Error.
 */
static uint16_t errno_to_status(struct nvmf_req *req, int rc)
{
	/* A zoned backend's refusal carries its own status (zns_cmd.c). */
	if (rc == -EINVAL && req->io.nvme_status)
		return req->io.nvme_status | NVME_SC_DNR;
	switch (rc) {
	case 0:
		return 0;
	case -ERANGE:
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_LBA_RANGE | NVME_SC_DNR;
	case -ESHUTDOWN:
		return NVME_SC_NS_NOT_READY;
	case -ENOSPC:
	case -EDQUOT:
	case -ENOMEM:
		if (stores_data(req))
			return NVME_SC_CAP_EXCEEDED | NVME_SC_DNR;
		return NVME_SC_INTERNAL;
	case -EIO:
		if (stores_data(req))
			return NVMF_SC_MEDIA(NVME_SC_WRITE_FAULT) | NVME_SC_DNR;
		return NVMF_SC_MEDIA(NVME_SC_READ_ERROR);
	default:
		return NVME_SC_INTERNAL;
	}
}

static bool range_ok(const struct nvmf_ns *ns, uint64_t slba, uint64_t nlb)
{
	return slba < ns->nblocks && nlb <= ns->nblocks - slba;
}

static void depth_up(struct nvmf_io_telemetry *tm, uint64_t depth)
{
	if (depth > tm->max_inflight)
		tm->max_inflight = depth;
	if (depth > tm->win.inflight)
		tm->win.inflight = depth;
}

/* @req's blox_io for @op on LBAs [@slba, @slba + @nlb), not submitted yet. */
void nvmf_io_prep(struct nvmf_req *req, enum blox_io_op op, uint64_t slba, uint64_t nlb,
		  uint8_t *buf, blox_io_cb cb)
{
	struct nvmf_ns *ns = req->ns;
	struct blox_io *io = &req->io;

	memset(io, 0, sizeof(*io));
	io->err_offset = UINT64_MAX;
	io->op = op;
	io->offset = slba << ns->lba_shift;
	io->len = nlb << ns->lba_shift;
	if (buf) {
		req->iov.iov_base = buf;
		req->iov.iov_len = io->len;
		io->iov = &req->iov;
		io->iovcnt = 1;
	}
	io->fua = req->cmd.cdw12 & CDW12_FUA;
	io->cb = cb;
	io->cb_arg = req;
}

/* The prepared blox_io of @req to its namespace's backend, counted. */
void nvmf_io_go(struct nvmf_req *req)
{
	struct nvmf_ns *ns = req->ns;

	depth_up(&ns->tm, ++ns->inflight);
	depth_up(&req->sq->ctrl->tm, ++req->sq->ctrl->inflight);
	TAILQ_INSERT_TAIL(&ns->at_backend, req, ns_link);
	blox_bdev_submit(ns->bdev, &req->io);
}

static void io_submit(struct nvmf_req *req, enum blox_io_op op, uint64_t slba,
		      uint64_t nlb, uint8_t *buf, blox_io_cb cb)
{
	nvmf_io_prep(req, op, slba, nlb, buf, cb);
	nvmf_io_go(req);
}

struct nvmf_req *nvmf_io_done(struct blox_io *io)
{
	struct nvmf_req *req = io->cb_arg;

	req->ns->inflight--;
	req->sq->ctrl->inflight--;
	nvmf_resv_io_left(req);
	if (io->zone_changes > req->ns->zone_changes)
		nvmf_zns_changed(req->ns, io->zone_changes);
	return req;
}

static struct nvmf_req *io_done(struct blox_io *io)
{
	return nvmf_io_done(io);
}

/* ---- Read / Write ---- */

static void account(struct nvmf_io_telemetry *tm, bool rd, uint64_t len,
		    uint64_t lat)
{
	if (rd) {
		tm->c.read_cmds++;
		tm->c.read_bytes += len;
		blox_hist_add(&tm->read_lat, lat);
		if (lat > tm->win.read_ns)
			tm->win.read_ns = lat;
	} else {
		tm->c.write_cmds++;
		tm->c.write_bytes += len;
		blox_hist_add(&tm->write_lat, lat);
		if (lat > tm->win.write_ns)
			tm->win.write_ns = lat;
	}
}

/* A read or write ends: counted with its latency, completed. */
static void rw_finish(struct nvmf_req *req)
{
	struct blox_io *io = &req->io;
	struct nvmf_ns_stats *st = &req->ns->stats;

	if (!io->status) {
		bool rd = io->op == BLOX_IO_READ;
		uint64_t now = blox_clock_now(req->sq->tgt->clock);
		uint64_t lat = now > req->start_ns ? now - req->start_ns : 0;

		if (rd) {
			st->read_cmds++;
			st->read_bytes += io->len;
		} else {
			st->write_cmds++;
			st->write_bytes += io->len;
		}
		account(&req->ns->tm, rd, io->len, lat);
		account(&req->sq->ctrl->tm, rd, io->len, lat);
	}
	nvmf_req_complete(req, errno_to_status(req, io->status));
}

static void rw_done(struct blox_io *io)
{
	struct nvmf_req *req = io_done(io);

	/* The error log names the first LBA that failed, when the backend knows it. */
	if (io->status && io->err_offset != UINT64_MAX)
		req->error_lba = io->err_offset >> req->ns->lba_shift;
	/*
	 * Lent data goes out with this pass's sends: not when the command
	 * failed, nor after a latency fault's hold (copied in first).
	 */
	if (io->status)
		blox_io_lend_end(io);
	else if (req->fault_delay_ns)
		blox_io_unlend(io);
	/* A latency fault: the host gets it that much later, and the latency counts it. */
	if (req->fault_delay_ns) {
		nvmf_req_hold(req, blox_clock_now(req->sq->tgt->clock) + req->fault_delay_ns,
			      req->hold_fault, rw_finish);
		return;
	}
	rw_finish(req);
}

/*
 * A fault injected on the command's LBAs (bloxctl fault inject read-unc,
 * write-fail): its media error, the first LBA of the fault's range the
 * command touches named in the error log; 0 when none fires.
 */
static uint16_t rw_fault(struct nvmf_req *req, bool write)
{
	struct blox_fault_reg *reg = req->sq->tgt->faults;
	enum blox_fault_kind k = write ? BLOX_FAULT_WRITE_FAIL : BLOX_FAULT_READ_UNC;
	struct blox_fault_site site;
	struct blox_fault f;

	if (!blox_fault_armed(reg, k))
		return 0;
	site = (struct blox_fault_site){
		.kind = k,
		.subsys = req->ns->subsys->nqn,
		.nsid = req->ns->nsid,
		.lba = cmd_slba(req),
		.nlb = cmd_nlb(req),
		.op = write ? BLOX_FAULT_OP_WRITE : BLOX_FAULT_OP_READ,
		.qd = (uint32_t)BLOX_MIN(req->ns->inflight + 1, (uint64_t)UINT32_MAX),
	};
	if (!blox_fault_match(reg, &site, &f))
		return 0;
	req->error_lba = BLOX_MAX(site.lba, f.spec.lba);
	if (write)
		return NVMF_SC_MEDIA(NVME_SC_WRITE_FAULT) | NVME_SC_DNR;
	return NVMF_SC_MEDIA(NVME_SC_READ_ERROR);
}

static uint16_t exec_read(struct nvmf_req *req)
{
	uint16_t st = rw_fault(req, false);

	if (st)
		return st;
	nvmf_fault_latency(req, BLOX_FAULT_OP_READ);
	nvmf_io_prep(req, BLOX_IO_READ, cmd_slba(req), cmd_nlb(req), req->buf, rw_done);
	req->io.lend_ok = req->lend_ok;
	nvmf_io_go(req);
	return NVMF_REQ_ASYNC;
}

static uint16_t exec_write(struct nvmf_req *req)
{
	uint16_t st = rw_fault(req, true);

	if (st)
		return st;
	nvmf_fault_latency(req, BLOX_FAULT_OP_WRITE);
	nvmf_io_prep(req, BLOX_IO_WRITE, cmd_slba(req), cmd_nlb(req), req->buf, rw_done);
	req->io.ruh = nvmf_fdp_write_ruh(req); /* its placement handle (fdp.c) */
	nvmf_io_go(req);
	return NVMF_REQ_ASYNC;
}

/* ---- the other commands: their answers wait out a latency fault too ---- */

/* ---- Compare ---- */

static void compare_done(struct blox_io *io)
{
	struct nvmf_req *req = io_done(io);
	uint16_t st = errno_to_status(req, io->status);

	if (!st && memcmp(req->buf, req->scratch, req->transfer_len))
		st = NVMF_SC_MEDIA(NVME_SC_COMPARE_FAILED) | NVME_SC_DNR;
	nvmf_req_complete_late(req, st);
}

static uint16_t exec_compare(struct nvmf_req *req)
{
	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER | BLOX_FAULT_OP_COMPARE);
	io_submit(req, BLOX_IO_READ, cmd_slba(req), cmd_nlb(req), req->scratch,
		  compare_done);
	return NVMF_REQ_ASYNC;
}

/* ---- Write Zeroes ---- */

static void simple_done(struct blox_io *io)
{
	struct nvmf_req *req = io_done(io);

	nvmf_req_complete_late(req, errno_to_status(req, io->status));
}

static uint16_t exec_write_zeroes(struct nvmf_req *req)
{
	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER | BLOX_FAULT_OP_WRITE_ZEROES);
	io_submit(req, BLOX_IO_WRITE_ZEROES, cmd_slba(req), cmd_nlb(req), NULL,
		  simple_done);
	return NVMF_REQ_ASYNC;
}

/* ---- Flush: one namespace, or all of them for NSID FFFFFFFFh ---- */

static void flush_next(struct nvmf_req *req);

static void flush_done(struct blox_io *io)
{
	struct nvmf_req *req = io_done(io);

	if (io->status || req->cmd.nsid != 0xffffffff) {
		nvmf_req_complete_late(req, errno_to_status(req, io->status));
		return;
	}
	req->next = req->ns->nsid + 1;
	flush_next(req);
}

static void flush_next(struct nvmf_req *req)
{
	struct nvmf_ns *ns;
	uint16_t st;

	TAILQ_FOREACH(ns, &req->sq->ctrl->subsys->namespaces, link)
		if (ns->nsid >= req->next)
			break;
	if (!ns) {
		nvmf_req_complete_late(req, 0);
		return;
	}
	/* A namespace this path or a reservation keeps from the host fails the whole flush. */
	st = nvmf_ana_check(req, ns);
	if (!st)
		st = nvmf_resv_io_check(req, ns);
	if (st) {
		nvmf_req_complete_late(req, st);
		return;
	}
	if (req->ns)
		nvmf_ns_put(req->ns);
	nvmf_ns_get(ns);
	req->ns = ns;
	/* Every namespace's: the first latency fault that fires delays the whole flush. */
	if (!req->fault_delay_ns)
		nvmf_fault_latency(req, BLOX_FAULT_OP_FLUSH);
	io_submit(req, BLOX_IO_FLUSH, 0, 0, NULL, flush_done);
}

static uint16_t exec_flush(struct nvmf_req *req)
{
	if (req->cmd.nsid != 0xffffffff) {
		nvmf_fault_latency(req, BLOX_FAULT_OP_FLUSH);
		io_submit(req, BLOX_IO_FLUSH, 0, 0, NULL, flush_done);
		return NVMF_REQ_ASYNC;
	}
	req->next = 1;
	flush_next(req);
	return NVMF_REQ_ASYNC;
}

/* ---- Dataset Management: deallocate each range in turn ---- */

static void dsm_next(struct nvmf_req *req);

static void dsm_done(struct blox_io *io)
{
	struct nvmf_req *req = io_done(io);

	if (io->status) {
		/* The range that failed, for the error log. */
		req->error_lba = io->offset >> req->ns->lba_shift;
		nvmf_req_complete_late(req, errno_to_status(req, io->status));
		return;
	}
	dsm_next(req);
}

static void dsm_next(struct nvmf_req *req)
{
	const struct nvme_dsm_range *r = (const void *)req->buf;
	uint32_t nr = (req->cmd.cdw10 & 0xff) + 1;

	while (req->next < nr && r[req->next].nlb == 0)
		req->next++;
	if (req->next == nr) {
		nvmf_req_complete_late(req, 0);
		return;
	}
	r += req->next++;
	io_submit(req, BLOX_IO_TRIM, r->slba, r->nlb, NULL, dsm_done);
}

static uint16_t exec_dsm(struct nvmf_req *req)
{
	const struct nvme_dsm_range *r = (const void *)req->buf;
	uint32_t nr = (req->cmd.cdw10 & 0xff) + 1;

	/* A latency fault delays the answers given here too (the core holds them). */
	nvmf_fault_latency(req, BLOX_FAULT_OP_OTHER | BLOX_FAULT_OP_DSM);
	if (!(req->cmd.cdw11 & DSM_AD))
		return 0; /* attributes only: hints we may ignore */
	for (uint32_t i = 0; i < nr; i++)
		if (!range_ok(req->ns, r[i].slba, r[i].nlb))
			return NVME_SC_LBA_RANGE | NVME_SC_DNR;
	req->next = 0;
	dsm_next(req);
	return NVMF_REQ_ASYNC;
}

/* ---- parse ---- */

static uint16_t parse_rw(struct nvmf_req *req, enum nvmf_data_dir dir,
			 uint16_t (*exec)(struct nvmf_req *))
{
	uint64_t slba = cmd_slba(req), nlb = cmd_nlb(req);
	uint64_t len = nlb << req->ns->lba_shift;

	if (!range_ok(req->ns, slba, nlb)) {
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_LBA_RANGE | NVME_SC_DNR;
	}
	if (dir != NVMF_DIR_NONE) {
		if (len > nvmf_max_xfer(req->sq->tgt)) {
			req->error_loc = offsetof(struct nvme_sqe, cdw12);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		req->transfer_len = (uint32_t)len;
	}
	req->dir = dir;
	req->execute = exec;
	return 0;
}

uint16_t nvmf_io_status(struct nvmf_req *req, int rc)
{
	return errno_to_status(req, rc);
}

uint16_t nvmf_parse_io(struct nvmf_req *req)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	uint16_t st;

	if (!nvmf_ctrl_ready(c))
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	if (req->cmd.opcode == nvme_cmd_flush && req->cmd.nsid == 0xffffffff) {
		req->execute = exec_flush;
		return 0;
	}
	req->ns = nvmf_ns_find(c->subsys, req->cmd.nsid);
	if (!req->ns) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	}
	nvmf_ns_get(req->ns);
	/* Refused before any data moves when the path cannot reach its group. */
	st = nvmf_ana_check(req, req->ns);
	if (st)
		return st;
	switch (req->cmd.opcode) {
	case nvme_cmd_read:
		return parse_rw(req, NVMF_DIR_C2H, exec_read);
	case nvme_cmd_write:
		st = nvmf_fdp_write_check(req); /* its directive type */
		return st ? st : parse_rw(req, NVMF_DIR_H2C, exec_write);
	case nvme_cmd_io_mgmt_recv:
	case nvme_cmd_io_mgmt_send:
		return nvmf_parse_io_mgmt(req, req->cmd.opcode == nvme_cmd_io_mgmt_send);
	case nvme_cmd_compare:
		st = parse_rw(req, NVMF_DIR_H2C, exec_compare);
		req->scratch_len = req->transfer_len; /* what the namespace holds */
		return st;
	case nvme_cmd_write_zeroes:
		return parse_rw(req, NVMF_DIR_NONE, exec_write_zeroes);
	case nvme_cmd_flush:
		req->execute = exec_flush;
		return 0;
	case nvme_cmd_resv_register:
	case nvme_cmd_resv_report:
	case nvme_cmd_resv_acquire:
	case nvme_cmd_resv_release:
		return nvmf_parse_resv(req);
	case nvme_zns_cmd_mgmt_send:
	case nvme_zns_cmd_mgmt_recv:
	case nvme_zns_cmd_append:
		return nvmf_parse_zns(req);
	case nvme_cmd_dsm: {
		uint32_t need = ((req->cmd.cdw10 & 0xff) + 1) *
				(uint32_t)sizeof(struct nvme_dsm_range);

		/* Hosts may send a whole page holding fewer ranges (Linux). */
		if (req->data_len < need || req->data_len > nvmf_max_xfer(req->sq->tgt)) {
			req->error_loc = offsetof(struct nvme_sqe, dptr);
			return NVME_SC_SGL_INVALID_DATA | NVME_SC_DNR;
		}
		req->dir = NVMF_DIR_H2C;
		req->transfer_len = req->data_len;
		req->execute = exec_dsm;
		return 0;
	}
	default:
		req->error_loc = offsetof(struct nvme_sqe, opcode);
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}
