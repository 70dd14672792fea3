/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The host side of DH-HMAC-CHAP (NVMe 2.0 in-band authentication) on a
 * connected queue: NEGOTIATE, CHALLENGE, REPLY, SUCCESS1 and, when the
 * controller was asked to authenticate too, SUCCESS2 or FAILURE2. The
 * computations are daemon/auth's (OpenSSL), as the target's are; the
 * tests reach the protocol's edges through the options and the raw
 * AUTH_Send / AUTH_Receive helpers.
 */
#include "ini_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dhchap.h"
#include "nvme_spec.h"

#define AUTH_BUF 4096

static void auth_req(struct ini_req *r, uint8_t fctype, void *buf, uint32_t len,
		     enum ini_dir dir)
{
	ini_req_init(r, nvme_admin_fabrics, fctype, buf, len, dir);
	r->sqe.cdw10 = (uint32_t)NVME_AUTH_SECP_DHCHAP << 24 |
		       (uint32_t)NVME_AUTH_SPSP_DHCHAP << 16 |
		       (uint32_t)NVME_AUTH_SPSP_DHCHAP << 8;
	r->sqe.cdw11 = len;
}

int ini_auth_send(struct ini_queue *q, const void *msg, uint32_t len)
{
	struct ini_req r;
	int rc;

	auth_req(&r, nvme_fabrics_type_auth_send, (void *)msg, len, INI_DIR_H2C);
	rc = ini_exec(q, &r);
	return rc ? rc : ini_status(&r.cqe);
}

int ini_auth_recv(struct ini_queue *q, void *buf, uint32_t al)
{
	struct ini_req r;
	int rc;

	auth_req(&r, nvme_fabrics_type_auth_receive, buf, al, INI_DIR_C2H);
	rc = ini_exec(q, &r);
	return rc ? rc : ini_status(&r.cqe);
}

/* A FAILURE1 from the controller: its explanation in @res. */
static bool failure1(const uint8_t *buf, struct ini_auth_result *res)
{
	const struct nvme_auth_failure *f = (const void *)buf;

	if (f->auth_type != NVME_AUTH_COMMON_MESSAGES || f->auth_id != NVME_AUTH_MSG_FAILURE1)
		return false;
	res->failure = f->rescode_exp ? f->rescode_exp : 0xff;
	return true;
}

static int negotiate(struct ini_queue *q, const struct ini_auth_opts *o, uint16_t tid)
{
	uint8_t msg[sizeof(struct nvme_auth_negotiate) + sizeof(struct nvme_auth_protocol_desc)];
	struct nvme_auth_negotiate *n = (void *)msg;
	struct nvme_auth_protocol_desc *d = n->proto;

	memset(msg, 0, sizeof(msg));
	n->auth_type = NVME_AUTH_COMMON_MESSAGES;
	n->auth_id = NVME_AUTH_MSG_NEGOTIATE;
	le16_put(&n->t_id, tid);
	n->napd = 1;
	d->authid = NVME_AUTH_DHCHAP_AUTH_ID;
	if (o->hash) {
		d->idlist[d->halen++] = o->hash;
	} else {
		for (uint8_t h = DHCHAP_SHA256; h <= DHCHAP_SHA512; h++)
			d->idlist[d->halen++] = h;
	}
	if (o->dhgroup >= 0) {
		d->idlist[NVME_AUTH_MAX_HASH_IDS + d->dhlen++] = (uint8_t)o->dhgroup;
	} else {
		for (uint8_t g = DHCHAP_DH_NULL; g <= DHCHAP_FFDHE8192; g++)
			d->idlist[NVME_AUTH_MAX_HASH_IDS + d->dhlen++] = g;
	}
	return ini_auth_send(q, msg, sizeof(msg));
}

/* Everything one transaction holds. */
struct host_txn {
	struct dhchap_key key, ctrl_key;
	bool bidir;
	uint16_t tid;
	uint8_t hash, dhgid;
	size_t hl;
	uint32_t s1, s2;
	uint8_t c1[DHCHAP_MAX_HASH_LEN], c2[DHCHAP_MAX_HASH_LEN];
	uint8_t pub[DHCHAP_MAX_DH_LEN], skey[DHCHAP_MAX_DH_LEN];
	size_t pub_len, skey_len;
	struct dhchap_dh *dh;
	uint8_t buf[AUTH_BUF];
};

/* The CHALLENGE: check it against what we offered, and do our DH half. */
static int take_challenge(struct host_txn *t, const struct ini_auth_opts *o,
			  struct ini_auth_result *res)
{
	const struct nvme_auth_challenge *ch = (const void *)t->buf;
	uint16_t dhvlen = le16_get(&ch->dhvlen);
	int glen;

	if (failure1(t->buf, res))
		return -EACCES;
	if (ch->auth_type != NVME_AUTH_DHCHAP_MESSAGES || ch->auth_id != NVME_AUTH_MSG_CHALLENGE ||
	    le16_get(&ch->t_id) != t->tid)
		return -EPROTO;
	t->hash = ch->hashid;
	t->dhgid = ch->dhgid;
	t->hl = dhchap_hash_len(t->hash);
	glen = dhchap_dh_len(t->dhgid);
	res->hash = t->hash;
	res->dhgid = t->dhgid;
	if (!t->hl || ch->hl != t->hl || (o->hash && o->hash != t->hash) || glen < 0 ||
	    (o->dhgroup >= 0 && o->dhgroup != t->dhgid) || dhvlen != glen ||
	    sizeof(*ch) + t->hl + dhvlen > AUTH_BUF)
		return -EPROTO;
	t->s1 = le32_get(&ch->seqnum);
	memcpy(t->c1, ch->cval, t->hl);
	if (glen > 0) {
		if (dhchap_dh_new(t->dhgid, &t->dh, t->pub, &t->pub_len) ||
		    dhchap_dh_derive(t->dh, ch->cval + t->hl, dhvlen, t->skey, &t->skey_len))
			return -EPROTO;
	}
	return 0;
}

static int send_reply(struct ini_queue *q, struct host_txn *t, const char *subnqn,
		      const char *hostnqn)
{
	struct nvme_auth_reply *r = (void *)t->buf;
	size_t len = sizeof(*r) + 2 * t->hl + t->pub_len;
	struct dhchap_resp_in in = {
		.hash = t->hash, .key = &t->key, .chal = t->c1, .seq = t->s1, .tid = t->tid,
		.hostnqn = hostnqn, .subnqn = subnqn,
		.skey = t->skey_len ? t->skey : NULL, .skey_len = t->skey_len,
	};

	memset(t->buf, 0, len);
	r->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	r->auth_id = NVME_AUTH_MSG_REPLY;
	le16_put(&r->t_id, t->tid);
	r->hl = (uint8_t)t->hl;
	if (dhchap_host_response(&in, r->rval))
		return -EPROTO;
	if (t->bidir) {
		do {
			if (dhchap_random(&t->s2, sizeof(t->s2)))
				return -EIO;
		} while (!t->s2);
		if (dhchap_random(t->c2, t->hl))
			return -EIO;
		r->cvalid = 1;
		le32_put(&r->seqnum, t->s2);
		memcpy(r->rval + t->hl, t->c2, t->hl);
	}
	le16_put(&r->dhvlen, (uint16_t)t->pub_len);
	memcpy(r->rval + 2 * t->hl, t->pub, t->pub_len);
	return ini_auth_send(q, t->buf, (uint32_t)len);
}

/* SUCCESS1: check R2 when we asked for it; SUCCESS2 or FAILURE2. */
static int take_success1(struct ini_queue *q, struct host_txn *t, const char *subnqn,
			 const char *hostnqn, struct ini_auth_result *res)
{
	const struct nvme_auth_success1 *s = (const void *)t->buf;
	uint8_t want[DHCHAP_MAX_HASH_LEN];
	struct dhchap_resp_in in = {
		.hash = t->hash, .key = &t->ctrl_key, .chal = t->c2, .seq = t->s2, .tid = t->tid,
		.hostnqn = hostnqn, .subnqn = subnqn,
		.skey = t->skey_len ? t->skey : NULL, .skey_len = t->skey_len,
	};
	struct nvme_auth_success2 s2 = { 0 };
	struct nvme_auth_failure f2 = { 0 };
	int rc;

	if (failure1(t->buf, res))
		return -EACCES;
	if (s->auth_type != NVME_AUTH_DHCHAP_MESSAGES || s->auth_id != NVME_AUTH_MSG_SUCCESS1 ||
	    le16_get(&s->t_id) != t->tid || s->hl != t->hl)
		return -EPROTO;
	if (!t->bidir)
		return 0;
	if (s->rvalid && !dhchap_ctrl_response(&in, want) &&
	    dhchap_equal(want, s->rval, t->hl)) {
		s2.auth_type = NVME_AUTH_DHCHAP_MESSAGES;
		s2.auth_id = NVME_AUTH_MSG_SUCCESS2;
		le16_put(&s2.t_id, t->tid);
		rc = ini_auth_send(q, &s2, sizeof(s2));
		return rc < 0 ? rc : rc ? -EIO : 0;
	}
	res->ctrl_rejected = true;
	f2.auth_type = NVME_AUTH_COMMON_MESSAGES;
	f2.auth_id = NVME_AUTH_MSG_FAILURE2;
	le16_put(&f2.t_id, t->tid);
	f2.rescode = NVME_AUTH_RESCODE_FAILED;
	f2.rescode_exp = NVME_AUTH_FAIL_FAILED;
	rc = ini_auth_send(q, &f2, sizeof(f2));
	return rc < 0 ? rc : -EKEYREJECTED;
}

int ini_auth(struct ini_queue *q, const char *subnqn, const char *hostnqn,
	     const struct ini_auth_opts *o, struct ini_auth_result *res)
{
	struct host_txn *t;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!o->key)
		return -ENOKEY;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	rc = -EINVAL;
	if (dhchap_key_parse(o->key, &t->key, NULL) ||
	    (o->ctrl_key && dhchap_key_parse(o->ctrl_key, &t->ctrl_key, NULL)))
		goto out;
	t->bidir = o->ctrl_key != NULL;
	res->bidir = t->bidir;
	if (dhchap_random(&t->tid, sizeof(t->tid))) {
		rc = -EIO;
		goto out;
	}
	/* A command refused is an NVMe status (> 0), as elsewhere here. */
	if ((rc = negotiate(q, o, t->tid)) ||
	    (rc = ini_auth_recv(q, t->buf, AUTH_BUF)) ||
	    (rc = take_challenge(t, o, res)) ||
	    (rc = send_reply(q, t, subnqn, hostnqn)) ||
	    (rc = ini_auth_recv(q, t->buf, AUTH_BUF)))
		goto out;
	rc = take_success1(q, t, subnqn, hostnqn, res);
out:
	dhchap_dh_free(t->dh);
	dhchap_wipe(t, sizeof(*t));
	free(t);
	return rc;
}
