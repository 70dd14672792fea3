/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Controller bring-up and teardown the way a fabrics host does it:
 * admin queue + Connect, CC.EN = 1 and wait for CSTS.RDY, Identify
 * Controller, Number of Queues, then one Connect per I/O queue; at the
 * end CC.SHN = normal and wait for CSTS.SHST = complete.
 */
#include "ini_internal.h"
#include "nvme_spec.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CC_EN 0x1u
#define CC_IOSQES_64 (6u << 16)
#define CC_IOCQES_16 (4u << 20)
#define CC_SHN_MASK (3u << 14)
#define CC_SHN_NORMAL (1u << 14)
#define CSTS_RDY 0x1u
#define CSTS_SHST_MASK (3u << 2)
#define CSTS_SHST_DONE (2u << 2)

static const char default_hostnqn[] =
	"nqn.2014-08.org.nvmexpress:uuid:b10cb10c-0000-4000-8000-000000000001";

void ini_ctrl_args_init(struct ini_ctrl_args *a, const char *addr,
			uint16_t port, const char *subnqn)
{
	static const uint8_t hostid[16] = { 0xb1, 0x0c, 0xb1, 0x0c, 0, 0, 0x40,
					    0, 0x80, 0, 0, 0, 0, 0, 0, 1 };

	memset(a, 0, sizeof(*a));
	a->addr = addr;
	a->port = port;
	a->subnqn = subnqn;
	a->hostnqn = default_hostnqn;
	memcpy(a->hostid, hostid, sizeof(hostid));
	a->nr_io = 1;
	a->auth.dhgroup = -1;
	ini_opts_init(&a->qopts);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };
	nanosleep(&ts, NULL);
}

int ini_ctrl_wait_csts(struct ini_queue *admin, uint32_t mask, uint32_t want,
		       int timeout_ms)
{
	int waited = 0, rc;
	uint64_t csts;

	for (;;) {
		rc = ini_prop_get(admin, NVME_REG_CSTS, false, &csts);
		if (rc < 0)
			return rc;
		if (rc > 0)
			return -EIO;
		if ((csts & mask) == want)
			return 0;
		if (waited >= timeout_ms)
			return -ETIMEDOUT;
		sleep_ms(10);
		waited += 10;
	}
}

/* Connect one queue of the controller; -EIO with *@status on refusal. */
static int queue_up(const struct ini_ctrl_args *a, uint16_t qid,
		    uint16_t sqsize, uint16_t cntlid, struct ini_queue **out,
		    struct nvme_cqe *cqe, uint16_t *status)
{
	struct ini_connect_args ca = {
		.qid = qid,
		.sqsize = sqsize,
		.subnqn = a->subnqn,
		.hostnqn = a->hostnqn,
		.cntlid = cntlid,
		.kato_ms = qid ? 0 : a->kato_ms,
	};
	struct ini_queue *q;
	int rc;

	memcpy(ca.hostid, a->hostid, sizeof(ca.hostid));
	rc = ini_queue_connect(a->addr, a->port, &a->qopts, &q);
	if (rc)
		return rc;
	rc = ini_connect(q, &ca, cqe);
	if (rc == 0 && ini_status(cqe)) {
		*status = ini_status(cqe);
		rc = -EIO;
	}
	if (rc == 0 && (cqe->result & NVME_CONNECT_AUTHREQ_ATR)) {
		struct ini_auth_result res;

		rc = ini_auth(q, a->subnqn, a->hostnqn, &a->auth, &res);
		if (a->auth_res)
			*a->auth_res = res;
		if (rc > 0) {
			*status = (uint16_t)rc;
			rc = -EIO;
		}
	}
	if (rc) {
		ini_queue_destroy(q);
		return rc;
	}
	*out = q;
	return 0;
}

/* Admin side: CAP, VS, CC.EN, RDY, Identify, Number of Queues. */
static int enable(struct ini_ctrl *c, uint16_t *status)
{
	uint64_t v;
	uint32_t nq;
	int rc;

	rc = ini_prop_get(c->admin, NVME_REG_CAP, true, &c->cap);
	if (rc)
		goto status;
	rc = ini_prop_get(c->admin, NVME_REG_VS, false, &v);
	if (rc)
		goto status;
	c->vs = (uint32_t)v;
	/* As Linux: every I/O command set the controller has (CC.CSS 110b) when CAP.CSS says so. */
	rc = ini_prop_set(c->admin, NVME_REG_CC, false,
			  CC_EN | CC_IOSQES_64 | CC_IOCQES_16 |
				  ((c->cap >> 37) & NVME_CAP_CSS_CSI ? NVME_CC_CSS_CSI << 4 : 0));
	if (rc)
		goto status;
	rc = ini_ctrl_wait_csts(c->admin, CSTS_RDY, CSTS_RDY,
				ini_timeout(c->admin));
	if (rc)
		return rc;
	rc = ini_identify(c->admin, NVME_IDENTIFY_CNS_CTRL, 0, 0, &c->id);
	if (rc)
		goto status;
	if (c->nr_io == 0)
		return 0;
	nq = (c->nr_io - 1) | (c->nr_io - 1) << 16;
	rc = ini_set_features(c->admin, NVME_FEAT_FID_NUM_QUEUES, nq, &nq);
	if (rc)
		goto status;
	if ((nq & 0xffff) + 1 < c->nr_io || (nq >> 16) + 1 < c->nr_io)
		return -ENOSPC;
	return 0;

status:
	if (rc > 0) {
		*status = (uint16_t)rc;
		rc = -EIO;
	}
	return rc;
}

int ini_ctrl_connect(const struct ini_ctrl_args *a, struct ini_ctrl **out,
		     uint16_t *status)
{
	struct ini_ctrl *c;
	struct nvme_cqe cqe;
	uint16_t st = 0;
	uint32_t i;
	int rc = -ENOMEM;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->args = *a;
	c->nr_io = a->nr_io;
	if (c->nr_io) {
		c->io = calloc(c->nr_io, sizeof(*c->io));
		if (!c->io)
			goto free_c;
	}

	rc = queue_up(a, 0, a->admin_sqsize ? a->admin_sqsize : 31, 0xffff,
		      &c->admin, &cqe, &st);
	if (rc)
		goto free_io;
	c->cntlid = (uint16_t)cqe.result;
	c->auth_required = cqe.result & NVME_CONNECT_AUTHREQ_ATR;
	rc = enable(c, &st);
	if (rc)
		goto destroy_queues;

	for (i = 0; i < c->nr_io; i++) {
		rc = queue_up(a, (uint16_t)(i + 1),
			      a->io_sqsize ? a->io_sqsize : 127, c->cntlid,
			      &c->io[i], &cqe, &st);
		if (rc)
			goto destroy_queues;
		if (c->id.ioccsz >= 4)
			ini_queue_set_inline(c->io[i],
					     c->id.ioccsz * 16u - 64u);
	}
	*out = c;
	return 0;

destroy_queues:
	ini_ctrl_destroy(c);
	if (status)
		*status = st;
	return rc;
free_io:
	free(c->io);
free_c:
	free(c);
	if (status)
		*status = st;
	return rc;
}

int ini_ctrl_shutdown(struct ini_ctrl *c)
{
	uint64_t cc;
	int rc;

	rc = ini_prop_get(c->admin, NVME_REG_CC, false, &cc);
	if (rc)
		return rc < 0 ? rc : -EIO;
	cc = (cc & ~(uint64_t)CC_SHN_MASK) | CC_SHN_NORMAL;
	rc = ini_prop_set(c->admin, NVME_REG_CC, false, cc);
	if (rc)
		return rc < 0 ? rc : -EIO;
	return ini_ctrl_wait_csts(c->admin, CSTS_SHST_MASK, CSTS_SHST_DONE,
				  ini_timeout(c->admin));
}

void ini_ctrl_destroy(struct ini_ctrl *c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < c->nr_io && c->io; i++)
		ini_queue_destroy(c->io[i]);
	ini_queue_destroy(c->admin);
	free(c->io);
	free(c);
}
