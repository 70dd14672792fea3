/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * In-band authentication (NVMe 2.0, TP 8006): DH-HMAC-CHAP on a queue,
 * carried by the fabrics AUTH_Send and AUTH_Receive commands.
 *
 * A queue whose host has a secret is told so by the Connect response
 * (AUTHREQ.ATR) and takes nothing but these two commands until a
 * transaction succeeded. A transaction, as the controller sees it:
 *   Send NEGOTIATE   host's hash and DH group lists; we choose
 *   Recv CHALLENGE   C1, S1, and our DH public value
 *   Send REPLY       R1 (checked), the host's DH value, C2/S2 if it wants
 *                    the controller to authenticate too
 *   Recv SUCCESS1    R2 when asked (bidirectional)
 *   Send SUCCESS2    bidirectional only: the host accepted R2
 * or, when something is wrong, Recv FAILURE1 with the reason (and the
 * controller goes), or Send FAILURE2 from a host that rejected R2. A
 * NEGOTIATE on a queue that is already authenticated re-authenticates it
 * with the host's secrets as they are now (rotated ones included); the
 * queue serves commands meanwhile. The secrets are never logged.
 */
#include "nvmf.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

/* The largest message either way: a REPLY with ffdhe8192 is 1,168 bytes. */
#define AUTH_MAX_MSG 4096
/* Byte offsets in the SQE for error locations. */
#define AUTH_OFS_SPSP0 41
#define AUTH_OFS_SPSP1 42
#define AUTH_OFS_SECP 43
#define AUTH_OFS_LEN 44

struct nvmf_auth {
	uint8_t step; /* the message expected next (enum nvme_auth_msg) */
	uint8_t reason; /* failure explanation when step is FAILURE1 */
	uint16_t tid;
	uint8_t hash, dhgid;
	size_t hl;
	uint32_t s1, s2;
	uint8_t c1[DHCHAP_MAX_HASH_LEN], c2[DHCHAP_MAX_HASH_LEN];
	bool bidir;
	/* The host's secrets as they were when the transaction began. */
	struct dhchap_key key, ctrl_key;
	bool has_ctrl_key;
	struct dhchap_dh *dh;
	uint8_t pub[DHCHAP_MAX_DH_LEN];
	size_t pub_len;
	uint8_t skey[DHCHAP_MAX_DH_LEN];
	size_t skey_len;
};

/* The failure explanations' names, for the log. */
static const char *reason_name(uint8_t r)
{
	static const char *const names[] = {
		[NVME_AUTH_FAIL_FAILED] = "failed",
		[NVME_AUTH_FAIL_NOT_USABLE] = "not usable",
		[NVME_AUTH_FAIL_CONCAT_MISMATCH] = "secure channel concatenation mismatch",
		[NVME_AUTH_FAIL_HASH_UNUSABLE] = "hash function not usable",
		[NVME_AUTH_FAIL_DHGROUP_UNUSABLE] = "DH group not usable",
		[NVME_AUTH_FAIL_INCORRECT_PAYLOAD] = "incorrect payload",
		[NVME_AUTH_FAIL_INCORRECT_MESSAGE] = "incorrect protocol message",
	};

	return r < sizeof(names) / sizeof(names[0]) && names[r] ? names[r] : "unknown";
}

static uint8_t cmd_secp(const struct nvmf_req *req)
{
	return (uint8_t)(req->cmd.cdw10 >> 24);
}

static void auth_sq_free(struct nvmf_sq *sq)
{
	struct nvmf_auth *a = sq->auth;

	if (!a)
		return;
	dhchap_dh_free(a->dh);
	dhchap_wipe(a, sizeof(*a));
	free(a);
	sq->auth = NULL;
}

static void auth_deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct nvmf_sq *sq = arg;
	struct nvmf_ctrl *c = sq->ctrl;

	(void)fd;
	(void)what;
	if (sq->authenticated || !c || sq->closing)
		return;
	if (sq->held) {
		/* An AUTH_Send a latency fault holds: the wait is the target's; look again later. */
		struct timeval again = { 1, 0 };

		evtimer_add(sq->auth_deadline, &again);
		return;
	}
	blox_log(sq->tgt->log, BLOX_LOG_WARN,
		 "ctrl %u qid %u: host %s did not authenticate within %u ms; closing",
		 c->cntlid, sq->qid, c->hostnqn, NVMF_AUTH_DEADLINE_MS);
	sq->tgt->stats.auth_failed++;
	if (sq->qid == 0) {
		nvmf_ctrl_fatal(c, "no authentication in time");
		return;
	}
	sq->closing = true;
	sq->ops->queue_close(sq);
}

int nvmf_auth_sq_start(struct nvmf_sq *sq)
{
	struct timeval tv = { NVMF_AUTH_DEADLINE_MS / 1000, (NVMF_AUTH_DEADLINE_MS % 1000) * 1000 };

	if (!sq->tgt->base)
		return 0;
	if (!sq->auth_deadline)
		sq->auth_deadline = evtimer_new(sq->tgt->base, auth_deadline_cb, sq);
	if (!sq->auth_deadline || evtimer_add(sq->auth_deadline, &tv))
		return -ENOMEM;
	return 0;
}

void nvmf_auth_sq_fini(struct nvmf_sq *sq)
{
	auth_sq_free(sq);
	if (sq->auth_deadline) {
		event_free(sq->auth_deadline);
		sq->auth_deadline = NULL;
	}
}

static void auth_fail(struct nvmf_auth *a, uint8_t reason)
{
	a->step = NVME_AUTH_MSG_FAILURE1;
	a->reason = reason;
}

uint16_t nvmf_auth_gate(const struct nvmf_req *req)
{
	uint8_t fctype = (uint8_t)req->cmd.nsid;

	if (!req->sq->auth_required || req->sq->authenticated)
		return 0;
	if (req->cmd.opcode == nvme_admin_fabrics &&
	    (fctype == nvme_fabrics_type_auth_send ||
	     fctype == nvme_fabrics_type_auth_receive ||
	     fctype == nvme_fabrics_type_connect))
		return 0;
	return NVMF_SC_CMD(NVME_SC_AUTH_REQUIRED) | NVME_SC_DNR;
}

/* Start a transaction: the host's secrets as they are now. */
static uint8_t auth_begin(struct nvmf_sq *sq, struct nvmf_auth *a)
{
	struct nvmf_ctrl *c = sq->ctrl;
	const struct nvmf_host *h = nvmf_subsys_find_host(c->subsys, c->hostnqn);

	dhchap_dh_free(a->dh);
	dhchap_wipe(a, sizeof(*a));
	a->step = NVME_AUTH_MSG_NEGOTIATE;
	if (!h || !h->has_key)
		return NVME_AUTH_FAIL_NOT_USABLE;
	a->key = h->key;
	a->ctrl_key = h->ctrl_key;
	a->has_ctrl_key = h->has_ctrl_key;
	return 0;
}

/*
 * Choose the host's first hash we know, and its first DH group that is
 * not the null group if it offers one (so that a Linux host, which lists
 * null first, gets an ephemeral DH exchange), else the null group.
 */
static uint8_t auth_negotiate(struct nvmf_auth *a, const uint8_t *buf, uint32_t len)
{
	const struct nvme_auth_negotiate *n = (const void *)buf;
	const struct nvme_auth_protocol_desc *d;
	int dhgid = -1;

	if (len < sizeof(*n) + sizeof(*d))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	a->tid = le16_get(&n->t_id);
	if (n->sc_c != 0)
		return NVME_AUTH_FAIL_CONCAT_MISMATCH;
	if (n->napd != 1)
		return NVME_AUTH_FAIL_HASH_UNUSABLE;
	d = &n->proto[0];
	if (d->authid != NVME_AUTH_DHCHAP_AUTH_ID)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	if (d->halen > NVME_AUTH_MAX_HASH_IDS || d->dhlen > NVME_AUTH_MAX_DH_IDS)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	for (unsigned i = 0; i < d->halen && !a->hash; i++)
		if (dhchap_hash_len(d->idlist[i]))
			a->hash = d->idlist[i];
	if (!a->hash)
		return NVME_AUTH_FAIL_HASH_UNUSABLE;
	a->hl = dhchap_hash_len(a->hash);
	for (unsigned i = 0; i < d->dhlen; i++) {
		uint8_t g = d->idlist[NVME_AUTH_MAX_HASH_IDS + i];

		if (dhchap_dh_len(g) < 0)
			continue;
		if (dhgid < 0 || (dhgid == DHCHAP_DH_NULL && g != DHCHAP_DH_NULL))
			dhgid = g;
		if (dhgid != DHCHAP_DH_NULL)
			break;
	}
	if (dhgid < 0)
		return NVME_AUTH_FAIL_DHGROUP_UNUSABLE;
	a->dhgid = (uint8_t)dhgid;
	return 0;
}

static uint8_t auth_reply(struct nvmf_sq *sq, struct nvmf_auth *a, const uint8_t *buf,
			  uint32_t len)
{
	const struct nvme_auth_reply *r = (const void *)buf;
	struct nvmf_ctrl *c = sq->ctrl;
	uint8_t want[DHCHAP_MAX_HASH_LEN];
	uint16_t dhvlen;
	struct dhchap_resp_in in;
	bool ok;

	if (len < sizeof(*r))
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	dhvlen = le16_get(&r->dhvlen);
	if (r->hl != a->hl || sizeof(*r) + 2 * (size_t)r->hl + dhvlen > len)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	if (a->dhgid == DHCHAP_DH_NULL ? dhvlen != 0 : dhvlen != a->pub_len)
		return NVME_AUTH_FAIL_INCORRECT_PAYLOAD;
	if (dhvlen && dhchap_dh_derive(a->dh, r->rval + 2 * a->hl, dhvlen, a->skey,
				       &a->skey_len))
		return NVME_AUTH_FAIL_DHGROUP_UNUSABLE;
	in = (struct dhchap_resp_in){
		.hash = a->hash, .key = &a->key, .chal = a->c1, .seq = a->s1,
		.tid = a->tid, .hostnqn = c->hostnqn, .subnqn = c->subsys->nqn,
		.skey = dhvlen ? a->skey : NULL, .skey_len = a->skey_len,
	};
	if (dhchap_host_response(&in, want))
		return NVME_AUTH_FAIL_FAILED;
	ok = dhchap_equal(want, r->rval, a->hl);
	dhchap_wipe(want, sizeof(want));
	if (!ok) {
		blox_log(sq->tgt->log, BLOX_LOG_WARN,
			 "ctrl %u qid %u: host %s failed authentication (wrong secret)",
			 c->cntlid, sq->qid, c->hostnqn);
		return NVME_AUTH_FAIL_FAILED;
	}
	a->s2 = le32_get(&r->seqnum);
	/* A C2 with S2 = 0 asks for no controller authentication. */
	a->bidir = r->cvalid && a->s2 != 0;
	if (a->bidir) {
		if (!a->has_ctrl_key) {
			blox_log(sq->tgt->log, BLOX_LOG_WARN,
				 "ctrl %u qid %u: host %s asks the controller to authenticate; "
				 "it has no controller secret",
				 c->cntlid, sq->qid, c->hostnqn);
			return NVME_AUTH_FAIL_NOT_USABLE;
		}
		memcpy(a->c2, r->rval + a->hl, a->hl);
	} else {
		sq->authenticated = true;
	}
	return 0;
}

static void auth_done(struct nvmf_sq *sq, bool ok)
{
	struct nvmf_ctrl *c = sq->ctrl;

	if (ok) {
		sq->tgt->stats.auth_ok++;
		blox_log(sq->tgt->log, BLOX_LOG_DEBUG, "ctrl %u qid %u: authenticated (%s%s)",
			 c->cntlid, sq->qid, dhchap_hash_name(sq->auth->hash),
			 sq->auth->bidir ? ", bidirectional" : "");
	} else {
		sq->tgt->stats.auth_failed++;
	}
	auth_sq_free(sq);
}

/*
 * The transaction failed for good: answer @req (its message, if any, is
 * in req->buf), then the controller goes, as Linux's target does.
 */
static uint16_t auth_abort(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	struct nvmf_ctrl *c = sq->ctrl;

	sq->authenticated = false;
	auth_done(sq, false);
	nvmf_req_complete(req, 0);
	nvmf_ctrl_fatal(c, "authentication failed");
	return NVMF_REQ_ASYNC;
}

static uint16_t exec_auth_send(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	struct nvmf_auth *a = sq->auth;
	const uint8_t *buf = req->buf;
	uint32_t len = req->transfer_len;
	uint8_t type = buf[0], id = len > 1 ? buf[1] : 0xff, st;

	if (!a) {
		a = sq->auth = calloc(1, sizeof(*a));
		if (!a)
			return NVME_SC_INTERNAL;
		a->step = NVME_AUTH_MSG_NEGOTIATE;
	}
	if (type == NVME_AUTH_COMMON_MESSAGES && id == NVME_AUTH_MSG_NEGOTIATE) {
		/* Always (re)starts a transaction. */
		st = auth_begin(sq, a);
		if (!st)
			st = auth_negotiate(a, buf, len);
		if (st)
			auth_fail(a, st);
		else
			a->step = NVME_AUTH_MSG_CHALLENGE;
		return 0;
	}
	if (type == NVME_AUTH_COMMON_MESSAGES && id == NVME_AUTH_MSG_FAILURE2 &&
	    a->step == NVME_AUTH_MSG_SUCCESS2) {
		/* The host rejected our R2: nothing more on this controller. */
		blox_log(sq->tgt->log, BLOX_LOG_WARN,
			 "ctrl %u qid %u: host %s rejected the controller's response",
			 sq->ctrl->cntlid, sq->qid, sq->ctrl->hostnqn);
		return auth_abort(req);
	}
	if (type != NVME_AUTH_DHCHAP_MESSAGES || id != a->step || len < 6) {
		auth_fail(a, NVME_AUTH_FAIL_INCORRECT_MESSAGE);
		return 0;
	}
	if (le16_get(buf + 4) != a->tid) {
		auth_fail(a, NVME_AUTH_FAIL_INCORRECT_PAYLOAD);
		return 0;
	}
	if (id == NVME_AUTH_MSG_REPLY) {
		st = auth_reply(sq, a, buf, len);
		if (st)
			auth_fail(a, st);
		else
			a->step = NVME_AUTH_MSG_SUCCESS1;
		return 0;
	}
	/* SUCCESS2: the host accepted R2. */
	sq->authenticated = true;
	auth_done(sq, true);
	return 0;
}

static uint16_t auth_challenge(struct nvmf_sq *sq, struct nvmf_auth *a, uint8_t *buf,
			       uint32_t al)
{
	struct nvme_auth_challenge *ch = (void *)buf;
	int dhlen = dhchap_dh_len(a->dhgid);

	if (al < sizeof(*ch) + a->hl + (size_t)dhlen)
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	do {
		if (dhchap_random(&a->s1, sizeof(a->s1)))
			return NVME_SC_INTERNAL;
	} while (a->s1 == 0);
	if (dhchap_random(a->c1, a->hl))
		return NVME_SC_INTERNAL;
	if (dhlen > 0 && dhchap_dh_new(a->dhgid, &a->dh, a->pub, &a->pub_len)) {
		blox_log(sq->tgt->log, BLOX_LOG_ERR, "ctrl %u qid %u: %s key generation failed",
			 sq->ctrl->cntlid, sq->qid, dhchap_dh_name(a->dhgid));
		return NVME_SC_INTERNAL;
	}
	ch->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	ch->auth_id = NVME_AUTH_MSG_CHALLENGE;
	le16_put(&ch->t_id, a->tid);
	ch->hl = (uint8_t)a->hl;
	ch->hashid = a->hash;
	ch->dhgid = a->dhgid;
	le16_put(&ch->dhvlen, (uint16_t)a->pub_len);
	le32_put(&ch->seqnum, a->s1);
	memcpy(ch->cval, a->c1, a->hl);
	memcpy(ch->cval + a->hl, a->pub, a->pub_len);
	a->step = NVME_AUTH_MSG_REPLY;
	return 0;
}

static void auth_success1(struct nvmf_sq *sq, struct nvmf_auth *a, uint8_t *buf,
			  uint32_t al)
{
	struct nvme_auth_success1 *s = (void *)buf;
	struct nvmf_ctrl *c = sq->ctrl;
	struct dhchap_resp_in in = {
		.hash = a->hash, .key = &a->ctrl_key, .chal = a->c2, .seq = a->s2,
		.tid = a->tid, .hostnqn = c->hostnqn, .subnqn = c->subsys->nqn,
		.skey = a->skey_len ? a->skey : NULL, .skey_len = a->skey_len,
	};

	if (al < sizeof(*s) + a->hl ||
	    (a->bidir && dhchap_ctrl_response(&in, s->rval))) {
		auth_fail(a, NVME_AUTH_FAIL_FAILED);
		return;
	}
	s->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	s->auth_id = NVME_AUTH_MSG_SUCCESS1;
	le16_put(&s->t_id, a->tid);
	s->hl = (uint8_t)a->hl;
	s->rvalid = a->bidir;
	a->step = NVME_AUTH_MSG_SUCCESS2;
}

static void auth_failure1(struct nvmf_auth *a, uint8_t *buf)
{
	struct nvme_auth_failure *f = (void *)buf;

	f->auth_type = NVME_AUTH_COMMON_MESSAGES;
	f->auth_id = NVME_AUTH_MSG_FAILURE1;
	le16_put(&f->t_id, a->tid);
	f->rescode = NVME_AUTH_RESCODE_FAILED;
	f->rescode_exp = a->reason;
}

static uint16_t exec_auth_receive(struct nvmf_req *req)
{
	struct nvmf_sq *sq = req->sq;
	struct nvmf_auth *a = sq->auth;
	struct nvmf_ctrl *c = sq->ctrl;
	uint32_t al = req->transfer_len;
	uint16_t st = 0;

	memset(req->buf, 0, al);
	if (!a)
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	if (al < sizeof(struct nvme_auth_failure))
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	if (a->step == NVME_AUTH_MSG_CHALLENGE) {
		st = auth_challenge(sq, a, req->buf, al);
		if (!st)
			return 0;
		if ((st & 0xff) == NVME_SC_INVALID_FIELD)
			return st;
		auth_fail(a, NVME_AUTH_FAIL_FAILED);
	} else if (a->step == NVME_AUTH_MSG_SUCCESS1) {
		auth_success1(sq, a, req->buf, al);
		if (a->step == NVME_AUTH_MSG_SUCCESS2) {
			if (!a->bidir)
				auth_done(sq, true);
			return 0;
		}
	} else if (a->step != NVME_AUTH_MSG_FAILURE1) {
		auth_fail(a, NVME_AUTH_FAIL_INCORRECT_MESSAGE);
	}
	/* FAILURE1: tell the host why, then the controller goes. */
	memset(req->buf, 0, al);
	auth_failure1(a, req->buf);
	blox_log(sq->tgt->log, BLOX_LOG_WARN,
		 "ctrl %u qid %u: authentication of host %s failed (%s)",
		 c->cntlid, sq->qid, c->hostnqn, reason_name(a->reason));
	return auth_abort(req);
}

uint16_t nvmf_parse_auth(struct nvmf_req *req)
{
	bool send = (uint8_t)req->cmd.nsid == nvme_fabrics_type_auth_send;
	uint32_t len = req->cmd.cdw11; /* TL or AL */

	if (!req->sq->ctrl)
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	if (cmd_secp(req) != NVME_AUTH_SECP_DHCHAP) {
		req->error_loc = AUTH_OFS_SECP;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if ((uint8_t)(req->cmd.cdw10 >> 8) != NVME_AUTH_SPSP_DHCHAP) {
		req->error_loc = AUTH_OFS_SPSP0;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if ((uint8_t)(req->cmd.cdw10 >> 16) != NVME_AUTH_SPSP_DHCHAP) {
		req->error_loc = AUTH_OFS_SPSP1;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (len == 0 || len > AUTH_MAX_MSG) {
		req->error_loc = AUTH_OFS_LEN;
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	req->transfer_len = len;
	req->dir = send ? NVMF_DIR_H2C : NVMF_DIR_C2H;
	req->execute = send ? exec_auth_send : exec_auth_receive;
	return 0;
}
