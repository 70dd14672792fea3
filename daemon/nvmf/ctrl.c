/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Controllers: creation at admin Connect, queue attach/detach, teardown,
 * keep-alive expiry, the property state machine (CAP/VS/CC/CSTS), the error
 * information log and asynchronous event delivery.
 */
#include "nvmf.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define CC_EN(cc) ((cc) & 1u)
#define CC_CSS(cc) (((cc) >> 4) & 0x7u)
#define CC_MPS(cc) (((cc) >> 7) & 0xfu)
#define CC_AMS(cc) (((cc) >> 11) & 0x7u)
#define CC_SHN(cc) (((cc) >> 14) & 0x3u)
#define CC_IOSQES(cc) (((cc) >> 16) & 0xfu)
#define CC_IOCQES(cc) (((cc) >> 20) & 0xfu)
#define CSTS_RDY 0x1u
#define CSTS_CFS 0x2u
#define CSTS_SHST_CMPLT (0x2u << 2)
#define CSTS_SHST_MASK (0x3u << 2)

#define NVMF_VS 0x00010300u /* NVMe 1.3 */
/* CAP.TO in 500 ms units: how long a host waits for CSTS.RDY. */
#define NVMF_CAP_TO 15ull

static void kato_cb(evutil_socket_t fd, short what, void *arg);

static bool cntlid_in_use(const struct nvmf_subsys *s, uint16_t id)
{
	const struct nvmf_ctrl *c;

	TAILQ_FOREACH(c, &s->ctrls, link)
		if (c->cntlid == id)
			return true;
	return false;
}

int nvmf_ctrl_create(struct nvmf_subsys *s, const char *hostnqn,
		     const uint8_t hostid[16], uint32_t kato_ms,
		     struct nvmf_ctrl **out)
{
	struct nvmf_tgt *tgt = s->tgt;
	struct nvmf_ctrl *c;
	uint32_t tries = 0;
	uint16_t id = s->next_cntlid;

	while (cntlid_in_use(s, id)) {
		if (++tries > NVMF_CNTLID_MAX)
			return -EBUSY;
		id = id >= NVMF_CNTLID_MAX ? NVMF_CNTLID_MIN : (uint16_t)(id + 1);
	}
	s->next_cntlid = id >= NVMF_CNTLID_MAX ? NVMF_CNTLID_MIN
					       : (uint16_t)(id + 1);

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->sqs = calloc(NVMF_MAX_IO_QUEUES + 1, sizeof(*c->sqs));
	if (!c->sqs)
		goto free_ctrl;
	if (tgt->base) {
		c->kato_ev = evtimer_new(tgt->base, kato_cb, c);
		if (!c->kato_ev)
			goto free_sqs;
	}
	c->cntlid = id;
	c->subsys = s;
	c->tgt = tgt;
	snprintf(c->hostnqn, sizeof(c->hostnqn), "%s", hostnqn);
	memcpy(c->hostid, hostid, 16);
	c->nr_io_queues = (uint16_t)tgt->lim.max_io_queues;
	c->vwc_enabled = true;
	c->created_ns = blox_clock_now(tgt->clock);
	c->last_activity_ns = c->created_ns;
	TAILQ_INIT(&c->aer_reqs);
	TAILQ_INIT(&c->plm_wait);
	TAILQ_INSERT_TAIL(&s->ctrls, c, link);
	kato_ms = nvmf_ctrl_kato_min(c, kato_ms);
	nvmf_ctrl_set_kato(c, kato_ms);
	tgt->stats.ctrls_created++;
	blox_log(tgt->log, BLOX_LOG_INFO, "ctrl %u created on %s for %s (kato %u ms)",
		 id, s->nqn, hostnqn, kato_ms);
	*out = c;
	return 0;

free_sqs:
	free(c->sqs);
free_ctrl:
	free(c);
	return -ENOMEM;
}

static void ctrl_free(struct nvmf_ctrl *c)
{
	struct nvmf_subsys *s = c->subsys;

	blox_log(c->tgt->log, BLOX_LOG_INFO, "ctrl %u of %s freed", c->cntlid,
		 s->nqn);
	c->tgt->stats.ctrls_destroyed++;
	TAILQ_REMOVE(&s->ctrls, c, link);
	if (c->kato_ev)
		event_free(c->kato_ev);
	nvmf_plm_ctrl_free(c);
	free(c->zones_read);
	free(c->sqs);
	free(c);
}

struct nvmf_ctrl *nvmf_ctrl_find(struct nvmf_subsys *s, uint16_t cntlid)
{
	struct nvmf_ctrl *c;

	TAILQ_FOREACH(c, &s->ctrls, link)
		if (c->cntlid == cntlid)
			return c;
	return NULL;
}

int nvmf_ctrl_attach_sq(struct nvmf_ctrl *c, struct nvmf_sq *sq, uint16_t qid)
{
	if (qid > NVMF_MAX_IO_QUEUES || c->sqs[qid])
		return -EEXIST;
	c->sqs[qid] = sq;
	c->nr_sqs++;
	sq->ctrl = c;
	sq->qid = qid;
	return 0;
}

void nvmf_sq_init(struct nvmf_sq *sq, struct nvmf_tgt *tgt,
		  struct nvmf_port *port, const struct nvmf_transport_ops *ops)
{
	memset(sq, 0, sizeof(*sq));
	sq->tgt = tgt;
	sq->port = port;
	sq->ops = ops;
}

void nvmf_sq_quiesce(struct nvmf_sq *sq)
{
	struct nvmf_ctrl *c = sq->ctrl;
	struct nvmf_req *req;

	nvmf_holds_abort(sq->tgt, sq); /* a held Keep Alive, a stalled command */
	if (!c || sq->qid != 0)
		return;
	while ((req = TAILQ_FIRST(&c->aer_reqs))) {
		TAILQ_REMOVE(&c->aer_reqs, req, link);
		c->nr_aer--;
		nvmf_req_complete(req, NVME_SC_ABORT_QUEUE);
	}
	nvmf_plm_ctrl_quiesce(c);
}

void nvmf_sq_fini(struct nvmf_sq *sq)
{
	struct nvmf_ctrl *c = sq->ctrl;

	nvmf_auth_sq_fini(sq);
	if (!c)
		return;
	nvmf_sq_quiesce(sq);
	sq->ctrl = NULL;
	c->sqs[sq->qid] = NULL;
	c->nr_sqs--;
	if (sq->qid == 0)
		nvmf_ctrl_fatal(c, "admin queue closed");
	if (c->nr_sqs == 0)
		ctrl_free(c);
}

void nvmf_ctrl_fatal(struct nvmf_ctrl *c, const char *why)
{
	if (c->dying)
		return;
	c->dying = true;
	blox_log(c->tgt->log, BLOX_LOG_INFO, "ctrl %u of %s: teardown (%s)",
		 c->cntlid, c->subsys->nqn, why);
	if (c->kato_ev)
		evtimer_del(c->kato_ev);
	nvmf_holds_abort_ctrl(c); /* nothing waits for a stall or a delay to end */
	for (uint32_t q = 0; q <= NVMF_MAX_IO_QUEUES; q++) {
		struct nvmf_sq *sq = c->sqs[q];

		if (sq && !sq->closing) {
			sq->closing = true;
			sq->ops->queue_close(sq);
		}
	}
}

/* ---- keep alive ---- */

static void kato_arm(struct nvmf_ctrl *c, uint64_t delay_ns)
{
	struct timeval tv = {
		.tv_sec = (time_t)(delay_ns / 1000000000ull),
		.tv_usec = (suseconds_t)((delay_ns % 1000000000ull) / 1000),
	};

	if (c->kato_ev && !c->dying)
		evtimer_add(c->kato_ev, &tv);
}

uint32_t nvmf_ctrl_kato_min(struct nvmf_ctrl *c, uint32_t kato_ms)
{
	uint32_t min = c->tgt->lim.min_kato_ms;

	/*
	 * Raised, not refused: the spec lets a controller round KATO up, and
	 * a Linux host keeps sending keep-alives at its own (shorter) period.
	 */
	if (!kato_ms || kato_ms >= min || c->subsys->type != NVMF_SUBSYS_NVM)
		return kato_ms;
	c->tgt->stats.kato_raised++;
	nvmf_limit_log(c->tgt, "ctrl %u of %s: KATO %u ms raised to %u ms (--min-kato-ms)",
		       c->cntlid, c->hostnqn, kato_ms, min);
	return min;
}

void nvmf_ctrl_set_kato(struct nvmf_ctrl *c, uint32_t kato_ms)
{
	uint32_t k0 = c->tgt->lim.kato0_timeout_ms;

	c->kato_ms = kato_ms;
	if (!c->kato_ev)
		return;
	evtimer_del(c->kato_ev);
	if (kato_ms || k0)
		kato_arm(c, (uint64_t)(kato_ms ? kato_ms : k0) * 1000000ull);
}

/* I/O queues @c has now. */
static uint32_t io_queues(const struct nvmf_ctrl *c)
{
	return c->nr_sqs - (c->sqs[0] ? 1 : 0);
}

/* KATO 0: the timer checks for a controller idle without any I/O queue. */
static void kato0_check(struct nvmf_ctrl *c, uint64_t now)
{
	uint64_t k0_ns = (uint64_t)c->tgt->lim.kato0_timeout_ms * 1000000ull;
	uint64_t idle = now - c->last_activity_ns;

	if (io_queues(c)) {
		kato_arm(c, k0_ns);
		return;
	}
	if (idle < k0_ns) {
		kato_arm(c, k0_ns - idle);
		return;
	}
	c->tgt->stats.kato0_expired++;
	nvmf_limit_log(c->tgt,
		       "ctrl %u of %s: KATO 0, no I/O queue and idle %u ms: closed "
		       "(--kato0-timeout-ms) from %s",
		       c->cntlid, c->subsys->nqn, c->tgt->lim.kato0_timeout_ms, c->hostnqn);
	nvmf_ctrl_fatal(c, "KATO 0 and no I/O queue");
}

void nvmf_ctrl_touch(struct nvmf_ctrl *c)
{
	c->last_activity_ns = nvmf_tgt_now(c->tgt);
}

bool nvmf_ctrl_kato_check(struct nvmf_ctrl *c, uint64_t now_ns)
{
	uint64_t kato_ns = (uint64_t)c->kato_ms * 1000000ull;

	if (!c->kato_ms || c->dying)
		return false;
	return now_ns - c->last_activity_ns >= kato_ns;
}

static void kato_cb(evutil_socket_t fd, short what, void *arg)
{
	struct nvmf_ctrl *c = arg;
	uint64_t now = blox_clock_now(c->tgt->clock);
	uint64_t kato_ns = (uint64_t)c->kato_ms * 1000000ull;

	(void)fd;
	(void)what;
	if (!c->kato_ms) {
		kato0_check(c, now);
		return;
	}
	if (nvmf_ctrl_kato_check(c, now)) {
		c->tgt->stats.kato_expired++;
		blox_log(c->tgt->log, BLOX_LOG_WARN,
			 "ctrl %u of %s: keep alive timeout (%u ms) from %s",
			 c->cntlid, c->subsys->nqn, c->kato_ms, c->hostnqn);
		nvmf_ctrl_fatal(c, "keep alive expired");
		return;
	}
	/* Traffic re-armed it: wait the rest of the period from then. */
	kato_arm(c, kato_ns - (now - c->last_activity_ns));
}

/* ---- properties ---- */

uint64_t nvmf_ctrl_cap(const struct nvmf_ctrl *c)
{
	return (uint64_t)(c->tgt->lim.max_queue_size - 1) | (1ull << 16) /* CQR */ |
	       (NVMF_CAP_TO << 24) | (1ull << 37) /* CSS: NVM command set */ |
	       (1ull << 43) /* CSS: I/O command sets (the zoned one, zns_cmd.c) */;
}

static bool cc_valid_for_enable(uint32_t cc)
{
	return CC_IOSQES(cc) == 6 && CC_IOCQES(cc) == 4 && CC_MPS(cc) == 0 &&
	       CC_AMS(cc) == 0 && (CC_CSS(cc) == 0 || CC_CSS(cc) == 6 || CC_CSS(cc) == 7);
}

static void ctrl_shutdown(struct nvmf_ctrl *c)
{
	/* Namespaces without a volatile cache have nothing to flush. */
	c->csts &= ~CSTS_RDY;
	c->csts |= CSTS_SHST_CMPLT;
}

uint16_t nvmf_prop_set(struct nvmf_ctrl *c, uint32_t ofst, bool size8,
		       uint64_t val)
{
	uint32_t old = c->cc, cc = (uint32_t)val;

	if (ofst != NVME_REG_CC || size8)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;

	c->cc = cc;
	if (CC_EN(cc) && !CC_EN(old)) {
		if (cc_valid_for_enable(cc)) {
			c->csts = CSTS_RDY;
		} else {
			c->csts |= CSTS_CFS;
			blox_log(c->tgt->log, BLOX_LOG_WARN,
				 "ctrl %u: bad CC 0x%x at enable", c->cntlid, cc);
		}
	} else if (!CC_EN(cc) && CC_EN(old)) {
		/* Controller reset: the host will build a new association. */
		c->csts = 0;
		c->cc = 0;
	}
	if (CC_SHN(cc) && !CC_SHN(old))
		ctrl_shutdown(c);
	else if (!CC_SHN(cc) && CC_SHN(old))
		c->csts &= ~CSTS_SHST_MASK;
	return 0;
}

uint16_t nvmf_prop_get(struct nvmf_ctrl *c, uint32_t ofst, bool size8,
		       uint64_t *val)
{
	switch (ofst) {
	case NVME_REG_CAP:
		if (!size8)
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		*val = nvmf_ctrl_cap(c);
		return 0;
	case NVME_REG_VS:
		*val = NVMF_VS;
		break;
	case NVME_REG_CC:
		*val = c->cc;
		break;
	case NVME_REG_CSTS:
		*val = c->csts;
		break;
	default:
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	return size8 ? (NVME_SC_INVALID_FIELD | NVME_SC_DNR) : 0;
}

bool nvmf_ctrl_ready(const struct nvmf_ctrl *c)
{
	return (c->csts & CSTS_RDY) && !c->dying;
}

/* ---- error log and async events ---- */

void nvmf_ctrl_log_error(struct nvmf_ctrl *c, const struct nvmf_req *req,
			 uint16_t status)
{
	struct nvme_error_log_page *e =
		&c->errors[c->err_count % NVMF_ERR_LOG_ENTRIES];

	memset(e, 0, sizeof(*e));
	e->error_count = ++c->err_count;
	e->sqid = req->sq->qid;
	e->cmdid = req->cmd.cid;
	e->status_field = (uint16_t)(status << 1);
	e->parm_error_location = req->error_loc;
	/* The namespace it concerns: for a Flush of all of them, the one that failed. */
	e->nsid = req->ns ? req->ns->nsid : req->cmd.nsid;
	e->trtype = NVMF_TRTYPE_TCP;
	if (req->error_lba != UINT64_MAX)
		e->lba = req->error_lba;
	else if (req->sq->qid &&
		 (req->cmd.opcode == nvme_cmd_read || req->cmd.opcode == nvme_cmd_write ||
		  req->cmd.opcode == nvme_cmd_compare ||
		  req->cmd.opcode == nvme_cmd_write_zeroes))
		e->lba = (uint64_t)req->cmd.cdw10 | ((uint64_t)req->cmd.cdw11 << 32);
}

#define AEN_INFO_ZONE_CHANGED 0xef /* Zone Descriptor Changed */
#define AE_ZONE_CHANGED (1u << 27) /* feature 0Bh: Zone Descriptor Changed Notices */

/*
 * What each kind of event says in the completion (DW0, and DW1 where the
 * event names something), and the bits of feature 0Bh that enable it.
 */
static const struct {
	uint8_t type, info, lid;
	uint32_t enable; /* 0: always (reservations: Set Features 82h masks them per namespace) */
	uint32_t (*dw1)(struct nvmf_ctrl *c);
} aen_kinds[NVMF_AEN_KINDS] = {
	[NVMF_AEN_NS_CHANGED] = { NVME_AER_NOTICE, NVME_AER_NOTICE_NS_CHANGED,
				  NVME_LOG_LID_CHANGED_NS,
				  NVME_FEAT_AE_NAN_MASK << NVME_FEAT_AE_NAN_SHIFT },
	[NVMF_AEN_PLM] = { NVME_AER_NOTICE, NVME_AER_NOTICE_PL_EVENT,
			   NVME_LOG_LID_PREDICTABLE_LAT_AGG,
			   NVME_FEAT_AE_PLA_MASK << NVME_FEAT_AE_PLA_SHIFT },
	[NVMF_AEN_RESV] = { NVME_AER_CSS, NVME_AER_CSS_NVM_RESERVATION,
			    NVME_LOG_LID_RESERVATION, 0 },
	[NVMF_AEN_ANA] = { NVME_AER_NOTICE, NVME_AER_NOTICE_ANA, NVME_LOG_LID_ANA,
			   NVME_FEAT_AE_ANA_MASK << NVME_FEAT_AE_ANA_SHIFT },
	[NVMF_AEN_SMART_SPARE] = { NVME_AER_SMART, NVME_AER_SMART_SPARE_THRESHOLD,
				   NVME_LOG_LID_SMART, NVME_SMART_CRIT_SPARE },
	[NVMF_AEN_SMART_RO] = { NVME_AER_SMART, NVME_AER_SMART_SUBSYSTEM_RELIABILITY,
				NVME_LOG_LID_SMART, NVME_SMART_CRIT_MEDIA },
	[NVMF_AEN_DISC] = { NVME_AER_NOTICE, NVME_AER_NOTICE_DISC_CHANGED, NVME_LOG_LID_DISCOVER,
			    NVME_FEATURE_AENCFG_NOTICE_DISCOVERY_CHANGE },
	[NVMF_AEN_ZONE_CHANGED] = { NVME_AER_NOTICE, AEN_INFO_ZONE_CHANGED,
				    NVME_LOG_LID_ZNS_CHANGED_ZONES, AE_ZONE_CHANGED,
				    nvmf_zns_changed_nsid },
};

void nvmf_ctrl_aen_kick(struct nvmf_ctrl *c)
{
	for (;;) {
		struct nvmf_req *req = TAILQ_FIRST(&c->aer_reqs);
		uint32_t due = c->aen_pending & ~c->aen_masked;
		int k;

		for (k = 0; k < NVMF_AEN_KINDS; k++)
			if ((due >> k & 1) &&
			    (!aen_kinds[k].enable || (c->aen_enabled & aen_kinds[k].enable)))
				break;
		if (!req || k == NVMF_AEN_KINDS)
			return;
		TAILQ_REMOVE(&c->aer_reqs, req, link);
		c->nr_aer--;
		c->aen_pending &= ~(1u << k);
		c->aen_masked |= 1u << k; /* until the host reads the log page */
		/* An event type is masked as a whole: SMART / Health's two kinds share log 02h. */
		for (int j = 0; j < NVMF_AEN_KINDS; j++)
			if (aen_kinds[j].type == NVME_AER_SMART && aen_kinds[k].type == NVME_AER_SMART)
				c->aen_masked |= 1u << j;
		req->cqe.result = aen_kinds[k].type | (uint32_t)aen_kinds[k].info << 8 |
				  (uint32_t)aen_kinds[k].lid << 16;
		if (aen_kinds[k].dw1)
			req->cqe.result |= (uint64_t)aen_kinds[k].dw1(c) << 32;
		nvmf_req_complete(req, 0);
	}
}

void nvmf_ctrl_aen_raise(struct nvmf_ctrl *c, enum nvmf_aen k)
{
	c->aen_pending |= 1u << k;
	nvmf_ctrl_aen_kick(c);
}

void nvmf_ctrl_aen_log_read(struct nvmf_ctrl *c, enum nvmf_aen k, int still)
{
	c->aen_masked &= ~(1u << k);
	if (still > 0)
		c->aen_pending |= 1u << k;
	else if (still == 0)
		c->aen_pending &= ~(1u << k);
	nvmf_ctrl_aen_kick(c);
}
