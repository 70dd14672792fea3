/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabrics command set: Connect (admin and I/O queues), Property Get/Set
 * and Disconnect.
 */
#include "nvmf.h"

#include <errno.h>
#include <string.h>

/* Byte offsets of Connect fields in the SQE, for Connect Invalid Parameters. */
#define CONNECT_OFS_RECFMT 40
#define CONNECT_OFS_QID 42
#define CONNECT_OFS_SQSIZE 44
#define CONNECT_OFS_CATTR 46
/* ... and in the Connect data. */
#define CONNECT_DATA_OFS_CNTLID 16
#define CONNECT_DATA_OFS_SUBNQN 256
#define CONNECT_DATA_OFS_HOSTNQN 512

#define CONNECT_CATTR_DISABLE_SQFLOW (1u << 2)

static uint8_t fabrics_fctype(const struct nvmf_req *req)
{
	return (uint8_t)(req->cmd.nsid & 0xff);
}

static uint16_t connect_invalid(struct nvmf_req *req, bool in_data,
				uint16_t offset)
{
	/* IPO in bits 15:0, IATTR (1: the field is in the data) at bit 16. */
	req->cqe.result = (uint64_t)offset | ((uint64_t)(in_data ? 1 : 0) << 16);
	req->error_loc = offset;
	return NVMF_SC_CMD(NVME_SC_CONNECT_INVALID_PARAM) | NVME_SC_DNR;
}

static bool nqn_terminated(const char *s)
{
	return memchr(s, '\0', NVME_NQN_LENGTH) != NULL;
}

/* @hostnqn has max_ctrls_per_host controllers already (counted, logged). */
static bool host_ctrls_full(struct nvmf_tgt *tgt, const char *hostnqn)
{
	uint32_t max = tgt->lim.max_ctrls_per_host, n = 0;
	const struct nvmf_subsys *s;
	const struct nvmf_ctrl *c;

	if (!max)
		return false;
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		TAILQ_FOREACH(c, &s->ctrls, link)
			n += !c->dying && !strcmp(c->hostnqn, hostnqn);
	TAILQ_FOREACH(c, &tgt->discovery->ctrls, link)
		n += !c->dying && !strcmp(c->hostnqn, hostnqn);
	if (n < max)
		return false;
	tgt->stats.refused_ctrls_per_host++;
	tgt->stats.connects_rejected++;
	nvmf_limit_log(tgt, "connect from %s refused: %u controllers (--max-ctrls-per-host)",
		       hostnqn, n);
	return true;
}

/*
 * An empty host NQN (spdk_nvme_perf sends one unless told a host NQN) is
 * let in on a subsystem that allows any host, as SPDK's target does, and
 * said in the log: at most once a minute, with the count of those since.
 */
static void warn_empty_hostnqn(struct nvmf_tgt *tgt, const struct nvmf_subsys *s)
{
	uint64_t now = blox_clock_now(tgt->clock);

	tgt->empty_hostnqn.count++;
	if (tgt->empty_hostnqn.logged_ns &&
	    now - tgt->empty_hostnqn.logged_ns < 60ull * 1000000000ull)
		return;
	blox_log(tgt->log, BLOX_LOG_WARN,
		 "connect with an empty host NQN to '%s' (allows any host): let in"
		 " (%llu such connects so far)",
		 s->nqn, (unsigned long long)tgt->empty_hostnqn.count);
	tgt->empty_hostnqn.logged_ns = now;
}

static uint16_t exec_connect(struct nvmf_req *req)
{
	const struct nvmf_connect_data *d = (const void *)req->buf;
	struct nvmf_sq *sq = req->sq;
	struct nvmf_tgt *tgt = sq->tgt;
	uint16_t recfmt = (uint16_t)req->cmd.cdw10;
	uint16_t qid = (uint16_t)(req->cmd.cdw10 >> 16);
	uint16_t sqsize = (uint16_t)req->cmd.cdw11;
	uint8_t cattr = (uint8_t)(req->cmd.cdw11 >> 16);
	uint32_t kato = req->cmd.cdw12;
	struct nvmf_subsys *s;
	const struct nvmf_host *h;
	struct nvmf_ctrl *c;
	int rc;

	if (recfmt != 0) {
		req->error_loc = CONNECT_OFS_RECFMT;
		return NVMF_SC_CMD(NVME_SC_CONNECT_FORMAT) | NVME_SC_DNR;
	}
	if (!nqn_terminated(d->subsysnqn))
		return connect_invalid(req, true, CONNECT_DATA_OFS_SUBNQN);
	if (!nqn_terminated(d->hostnqn))
		return connect_invalid(req, true, CONNECT_DATA_OFS_HOSTNQN);
	s = nvmf_subsys_find(tgt, d->subsysnqn);
	if (!s || (sq->port->discovery_only && s->type != NVMF_SUBSYS_DISCOVERY)) {
		blox_log(tgt->log, BLOX_LOG_INFO, "connect to unknown subsystem '%s'",
			 d->subsysnqn);
		tgt->stats.connects_rejected++;
		return connect_invalid(req, true, CONNECT_DATA_OFS_SUBNQN);
	}
	if (!nvmf_nqn_valid(d->hostnqn) &&
	    !(d->hostnqn[0] == '\0' && s->allow_any_host))
		return connect_invalid(req, true, CONNECT_DATA_OFS_HOSTNQN);
	if (d->hostnqn[0] == '\0' && qid == 0)
		warn_empty_hostnqn(tgt, s);
	if (!nvmf_subsys_host_allowed(s, d->hostnqn)) {
		blox_log(tgt->log, BLOX_LOG_WARN, "host '%s' not allowed on '%s'",
			 d->hostnqn, s->nqn);
		tgt->stats.connects_rejected++;
		req->error_loc = CONNECT_DATA_OFS_HOSTNQN;
		return NVMF_SC_CMD(NVME_SC_CONNECT_INVALID_HOST) | NVME_SC_DNR;
	}
	/* Over TLS, the PSK identity said who the host is and where it goes. */
	if (req->sq->tls_hostnqn[0] && (strcmp(req->sq->tls_hostnqn, d->hostnqn) ||
					strcmp(req->sq->tls_subnqn, d->subsysnqn))) {
		blox_log(tgt->log, BLOX_LOG_WARN,
			 "host '%s' connects to '%s' over TLS as '%s' to '%s'", d->hostnqn,
			 d->subsysnqn, req->sq->tls_hostnqn, req->sq->tls_subnqn);
		tgt->stats.connects_rejected++;
		req->error_loc = CONNECT_DATA_OFS_HOSTNQN;
		return NVMF_SC_CMD(NVME_SC_CONNECT_INVALID_HOST) | NVME_SC_DNR;
	}
	if (sqsize == 0)
		return connect_invalid(req, false, CONNECT_OFS_SQSIZE);

	if (qid == 0) {
		if (d->cntlid != 0xffff)
			return connect_invalid(req, true, CONNECT_DATA_OFS_CNTLID);
		if (sqsize > NVMF_ADMIN_MAX_SQSIZE)
			return connect_invalid(req, false, CONNECT_OFS_SQSIZE);
		if (host_ctrls_full(tgt, d->hostnqn))
			return NVMF_SC_CMD(NVME_SC_CONNECT_CTRL_BUSY) | NVME_SC_DNR;
	} else {
		if (s->type != NVMF_SUBSYS_NVM)
			return connect_invalid(req, false, CONNECT_OFS_QID);
		if ((uint32_t)sqsize + 1 > tgt->lim.max_queue_size) {
			tgt->stats.refused_queue_size++;
			nvmf_limit_log(tgt, "connect of a queue of %u entries from %s refused "
				       "(--max-queue-size %u)", sqsize + 1u, d->hostnqn,
				       tgt->lim.max_queue_size);
			return connect_invalid(req, false, CONNECT_OFS_SQSIZE);
		}
		c = nvmf_ctrl_find(s, d->cntlid);
		if (!c || c->dying)
			return connect_invalid(req, true, CONNECT_DATA_OFS_CNTLID);
		if (strcmp(c->hostnqn, d->hostnqn))
			return connect_invalid(req, true, CONNECT_DATA_OFS_HOSTNQN);
		if (qid > c->nr_io_queues) {
			if (qid > tgt->lim.max_io_queues) {
				tgt->stats.refused_io_queues++;
				nvmf_limit_log(tgt, "ctrl %u of %s: connect of queue %u refused "
					       "(--max-io-queues %u)", c->cntlid, d->hostnqn, qid,
					       tgt->lim.max_io_queues);
			}
			return connect_invalid(req, false, CONNECT_OFS_QID);
		}
		if (c->sqs[qid] || !nvmf_ctrl_ready(c)) {
			req->error_loc = CONNECT_OFS_QID;
			return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		}
	}

	/* A host with a secret authenticates each queue before using it. */
	h = nvmf_subsys_find_host(s, d->hostnqn);
	sq->auth_required = s->type == NVMF_SUBSYS_NVM && h && h->has_key;
	if (sq->auth_required && nvmf_auth_sq_start(sq))
		return NVME_SC_INTERNAL;
	rc = sq->ops->install_queue(sq, (uint32_t)sqsize + 1);
	if (rc)
		return NVME_SC_INTERNAL;
	sq->size = (uint32_t)sqsize + 1;
	sq->sqhd_disabled = cattr & CONNECT_CATTR_DISABLE_SQFLOW;

	if (qid == 0) {
		rc = nvmf_ctrl_create(s, d->hostnqn, d->hostid, kato, &c);
		if (rc)
			return rc == -EBUSY ? (NVMF_SC_CMD(NVME_SC_CONNECT_CTRL_BUSY) | NVME_SC_DNR)
					    : NVME_SC_INTERNAL;
	}
	rc = nvmf_ctrl_attach_sq(c, sq, qid);
	if (rc) {
		req->error_loc = CONNECT_OFS_QID;
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	}
	blox_log(tgt->log, BLOX_LOG_DEBUG, "ctrl %u: queue %u connected, size %u%s%s",
		 c->cntlid, qid, sq->size,
		 sq->sqhd_disabled ? ", sq flow control off" : "",
		 sq->auth_required ? ", must authenticate" : "");
	req->cqe.result = c->cntlid | (sq->auth_required ? NVME_CONNECT_AUTHREQ_ATR : 0);
	return 0;
}

static uint16_t exec_prop_get(struct nvmf_req *req)
{
	bool size8 = req->cmd.cdw10 & 0x7;
	uint64_t val = 0;
	uint16_t st = nvmf_prop_get(req->sq->ctrl, req->cmd.cdw11, size8, &val);

	if (st)
		req->error_loc = 44;
	req->cqe.result = val;
	return st;
}

static uint16_t exec_prop_set(struct nvmf_req *req)
{
	bool size8 = req->cmd.cdw10 & 0x7;
	uint64_t val = (uint64_t)req->cmd.cdw12 | ((uint64_t)req->cmd.cdw13 << 32);
	uint16_t st = nvmf_prop_set(req->sq->ctrl, req->cmd.cdw11, size8, val);

	if (st)
		req->error_loc = 44;
	return st;
}

static uint16_t exec_disconnect(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;

	/* Disconnect deletes the I/O queue it arrives on, never the admin one. */
	if (sq->qid == 0)
		return NVMF_SC_CMD(NVME_SC_DISCONNECT_INVALID_QTYPE) | NVME_SC_DNR;
	/* Answer first; the transport closes after the response is sent. */
	nvmf_req_complete(req, 0);
	if (!sq->closing) {
		sq->closing = true;
		sq->ops->queue_close(sq);
	}
	return NVMF_REQ_ASYNC;
}

uint16_t nvmf_parse_fabrics(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;

	switch (fabrics_fctype(req)) {
	case nvme_fabrics_type_connect:
		if (sq->ctrl || sq->size) {
			req->error_loc = 4;
			return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		}
		req->dir = NVMF_DIR_H2C;
		req->transfer_len = sizeof(struct nvmf_connect_data);
		req->execute = exec_connect;
		return 0;
	case nvme_fabrics_type_property_get:
	case nvme_fabrics_type_property_set:
		if (!sq->ctrl)
			return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		if (sq->qid != 0) {
			req->error_loc = 4;
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		req->execute = fabrics_fctype(req) == nvme_fabrics_type_property_get
				       ? exec_prop_get
				       : exec_prop_set;
		return 0;
	case nvme_fabrics_type_auth_send:
	case nvme_fabrics_type_auth_receive:
		return nvmf_parse_auth(req);
	case nvme_fabrics_type_disconnect:
		if (!sq->ctrl)
			return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
		if ((uint16_t)req->cmd.cdw10 != 0) {
			req->error_loc = CONNECT_OFS_RECFMT;
			return NVMF_SC_CMD(NVME_SC_CONNECT_FORMAT) | NVME_SC_DNR;
		}
		req->execute = exec_disconnect;
		return 0;
	default:
		req->error_loc = 4;
		return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
	}
}
