/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: DH-HMAC-CHAP in-band authentication (daemon/nvmf/auth.c,
 * daemon/auth) on the NVMe core of fuzz_nvmf.h, the host on the
 * subsystem's list with a DHHC-1 secret (and, per input, a controller
 * secret): both Connects said it must authenticate (ATR). The harness
 * plays the host, honestly or not, as the input says. An input:
 *   u8 setup: bits 0-1 the host secret (one of the unit tests' keys,
 *             each hash); 0x04 a controller secret too
 *   then up to 48 steps, each a u8 op: bits 0-2 what, 0x08 on the I/O
 *   queue (else the admin queue), 0x10 a transaction id off the input
 *   (else the one negotiated), 0x80 SECP/SPSP off the input:
 *     0 AUTH_Send of raw bytes: u16 TL, u16 n, n bytes
 *     1 AUTH_Receive: u16 AL
 *     2 NEGOTIATE: u8 SC_C, u8 NAPD, u8 HALEN, u8 DHLEN, the 60 ids
 *     3 REPLY to the last CHALLENGE, R1 computed: u8 how (0x01 R1 wrong,
 *       0x02 HL wrong, 0x04 DH value off the input, 0x08 DH length off
 *       by one, 0x10 ask for R2 (C2 and S2 off the input), 0x20 cut short)
 *     4 SUCCESS2, 5 FAILURE2 (u8 reason)
 *     6 a command that needs the authentication: Property Get CAP on the
 *       admin queue, Flush on the I/O queue
 *     7 Property Set CC.EN on the admin queue; with 0x08, Connect the I/O
 *       queue (its Connect, when taken, says ATR)
 * Checked: the core's invariants of fuzz_nvmf.h (one completion per
 * command); a CHALLENGE is what was negotiated; a SUCCESS1's R2 for an
 * honest REPLY that asked for one is the controller's response under the
 * controller secret; on a connected queue not authenticated, op 6 is
 * refused with AUTH_REQUIRED; no leak (libFuzzer's).
 */
#include "fuzz_nvmf.h"

#include "dhchap.h"

#define MAX_STEPS 48

/* The unit tests' secrets: one per transform hash. */
static const char *const keys[] = {
	"DHHC-1:00:EzrV37kZ2MrTcnnOazt8QU+eaO4ClakD0dCUkLPXQarqn0jB:",
	"DHHC-1:01:hkvLJezZUgf7679DpCWaKKHhPxoohyzMRldaJ4yQXuJa3ylC:",
	"DHHC-1:02:6qfee0KJqpAkzrBxqnnM5Fd+JVXJXPhjKUvJNzntzzqASsFAhh1Gp1QP/KRVrbTynqn1Iw==:",
	"DHHC-1:00:iXsOOEI6dPzvHhIkA4+ugha9+u1nNrK25FmB1JZqplDMNrvV:",
};
#define CTRL_KEY "DHHC-1:00:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh+KfiaR:"

/* The host's side of the transaction under way. */
struct host {
	struct dhchap_key key, ctrl_key;
	uint16_t tid;
	bool have_chal; /* a CHALLENGE came */
	uint8_t hash, dhgid;
	size_t hl;
	uint32_t s1, s2;
	uint8_t c1[DHCHAP_MAX_HASH_LEN], c2[DHCHAP_MAX_HASH_LEN];
	uint8_t ctrl_pub[DHCHAP_MAX_DH_LEN];
	size_t ctrl_pub_len;
	uint8_t skey[DHCHAP_MAX_DH_LEN];
	size_t skey_len;
	bool want_r2; /* an honest REPLY asked for R2 */
	bool neg_known; /* the last NEGOTIATE was ours: its lists below */
	uint8_t neg_hash[NVME_AUTH_MAX_HASH_IDS], neg_dh[NVME_AUTH_MAX_DH_IDS];
	uint8_t neg_halen, neg_dhlen;
};

static uint8_t msg[4096];

static int auth_cmd(struct fn_env *e, enum fn_queue q, bool send, uint32_t cdw10, uint32_t len,
		    const uint8_t *data, size_t n, const uint8_t **out, uint32_t *out_len)
{
	struct nvme_sqe sqe;

	fn_sqe(&sqe, nvme_admin_fabrics,
	       send ? nvme_fabrics_type_auth_send : nvme_fabrics_type_auth_receive, len);
	sqe.cdw10 = cdw10;
	sqe.cdw11 = len;
	return fn_submit(e, q, &sqe, send && len <= NVMF_ADMIN_INLINE, data, n, out, out_len);
}

static uint32_t secp(struct fz *f, uint8_t op)
{
	if (op & 0x80)
		return fz_u32(f);
	return (uint32_t)NVME_AUTH_SECP_DHCHAP << 24 | NVME_AUTH_SPSP_DHCHAP << 16 |
	       NVME_AUTH_SPSP_DHCHAP << 8;
}

/* A CHALLENGE as the controller sent it: checked, kept. */
static void take_challenge(struct host *h, const uint8_t *buf, uint32_t len)
{
	const struct nvme_auth_challenge *ch = (const void *)buf;
	int dhlen;

	if (len < sizeof(*ch) || ch->auth_type != NVME_AUTH_DHCHAP_MESSAGES ||
	    ch->auth_id != NVME_AUTH_MSG_CHALLENGE)
		return;
	h->hl = dhchap_hash_len(ch->hashid);
	dhlen = dhchap_dh_len(ch->dhgid);
	FUZZ_CHECK(h->hl == ch->hl && dhlen >= 0 && le16_get(&ch->dhvlen) == dhlen &&
			   sizeof(*ch) + h->hl + (size_t)dhlen <= len,
		   "challenge hash %u hl %u dh %u dhvlen %u in %u bytes", ch->hashid, ch->hl,
		   ch->dhgid, le16_get(&ch->dhvlen), len);
	/* What was chosen was offered: the first hash we know, a group offered. */
	FUZZ_CHECK(!h->neg_known || (memchr(h->neg_hash, ch->hashid, h->neg_halen) &&
					memchr(h->neg_dh, ch->dhgid, h->neg_dhlen)),
		   "challenge hash %u group %u were not offered", ch->hashid, ch->dhgid);
	FUZZ_CHECK(le32_get(&ch->seqnum) != 0, "S1 is 0");
	h->have_chal = true;
	h->hash = ch->hashid;
	h->dhgid = ch->dhgid;
	h->s1 = le32_get(&ch->seqnum);
	memcpy(h->c1, ch->cval, h->hl);
	h->ctrl_pub_len = (size_t)dhlen;
	memcpy(h->ctrl_pub, ch->cval + h->hl, (size_t)dhlen);
}

/* A SUCCESS1 for an honest REPLY that asked for R2: R2 is right. */
static void take_success1(struct host *h, const uint8_t *buf, uint32_t len)
{
	const struct nvme_auth_success1 *s = (const void *)buf;
	uint8_t want[DHCHAP_MAX_HASH_LEN];
	struct dhchap_resp_in in = {
		.hash = h->hash, .key = &h->ctrl_key, .chal = h->c2, .seq = h->s2,
		.tid = h->tid, .hostnqn = FN_HOSTNQN, .subnqn = FN_SUBNQN,
		.skey = h->skey_len ? h->skey : NULL, .skey_len = h->skey_len,
	};

	if (len < sizeof(*s) + h->hl || s->auth_id != NVME_AUTH_MSG_SUCCESS1)
		return;
	if (!h->want_r2 || !s->rvalid)
		return;
	FUZZ_CHECK(dhchap_ctrl_response(&in, want) == 0, "R2");
	FUZZ_CHECK(memcmp(want, s->rval, h->hl) == 0, "R2 is not the controller secret's");
}

static void negotiate(struct fz *f, struct host *h, uint16_t tid, uint8_t *m)
{
	struct nvme_auth_negotiate *n = (void *)m;
	struct nvme_auth_protocol_desc *d = n->proto;

	n->auth_type = NVME_AUTH_COMMON_MESSAGES;
	n->auth_id = NVME_AUTH_MSG_NEGOTIATE;
	le16_put(&n->t_id, tid);
	n->sc_c = fz_u8(f);
	n->napd = fz_u8(f);
	d->authid = NVME_AUTH_DHCHAP_AUTH_ID;
	d->halen = fz_u8(f);
	d->dhlen = fz_u8(f);
	fz_bytes(f, d->idlist, sizeof(d->idlist));
	h->tid = tid;
	h->have_chal = false;
	h->want_r2 = false;
	h->neg_known = true;
	h->neg_halen = (uint8_t)BLOX_MIN(d->halen, NVME_AUTH_MAX_HASH_IDS);
	h->neg_dhlen = (uint8_t)BLOX_MIN(d->dhlen, NVME_AUTH_MAX_DH_IDS);
	memcpy(h->neg_hash, d->idlist, sizeof(h->neg_hash));
	memcpy(h->neg_dh, d->idlist + NVME_AUTH_MAX_HASH_IDS, sizeof(h->neg_dh));
}

/* A REPLY to the last CHALLENGE into @m; its length. */
static uint32_t reply(struct fz *f, struct host *h, uint16_t tid, uint8_t *m)
{
	struct nvme_auth_reply *r = (void *)m;
	uint8_t how = fz_u8(f), pub[DHCHAP_MAX_DH_LEN];
	size_t pub_len = 0, hl = h->hl;
	struct dhchap_dh *dh = NULL;
	struct dhchap_resp_in in;

	r->auth_type = NVME_AUTH_DHCHAP_MESSAGES;
	r->auth_id = NVME_AUTH_MSG_REPLY;
	le16_put(&r->t_id, tid);
	h->skey_len = 0;
	if (h->ctrl_pub_len) {
		if (how & 0x04) {
			pub_len = h->ctrl_pub_len;
			fz_bytes(f, pub, pub_len);
		} else {
			FUZZ_CHECK(dhchap_dh_new(h->dhgid, &dh, pub, &pub_len) == 0, "host DH");
			FUZZ_CHECK(dhchap_dh_derive(dh, h->ctrl_pub, h->ctrl_pub_len, h->skey,
						    &h->skey_len) == 0,
				   "the controller's DH value does not derive");
			dhchap_dh_free(dh);
		}
	}
	in = (struct dhchap_resp_in){
		.hash = h->hash, .key = &h->key, .chal = h->c1, .seq = h->s1, .tid = h->tid,
		.hostnqn = FN_HOSTNQN, .subnqn = FN_SUBNQN,
		.skey = h->skey_len ? h->skey : NULL, .skey_len = h->skey_len,
	};
	FUZZ_CHECK(dhchap_host_response(&in, r->rval) == 0, "R1");
	if (how & 0x01)
		r->rval[0] ^= 1;
	r->hl = (uint8_t)(hl + !!(how & 0x02));
	h->want_r2 = how & 0x10;
	h->s2 = 0;
	if (h->want_r2) {
		r->cvalid = 1;
		fz_bytes(f, h->c2, hl);
		h->s2 = fz_u32(f) | 1;
		memcpy(r->rval + hl, h->c2, hl);
	}
	le32_put(&r->seqnum, h->s2);
	memcpy(r->rval + 2 * hl, pub, pub_len);
	pub_len += (how & 0x08) ? 1 : 0;
	le16_put(&r->dhvlen, (uint16_t)pub_len);
	/* Only an honest REPLY's R2 is checked. */
	h->want_r2 = h->want_r2 && !(how & 0x2f) && h->tid == tid;
	return (uint32_t)(sizeof(*r) + 2 * hl + pub_len) - ((how & 0x20) ? 8 : 0);
}

static void step(struct fz *f, struct fn_env *e, struct host hosts[2])
{
	uint8_t op = fz_u8(f);
	enum fn_queue q = (op & 0x08) ? FN_IO : FN_ADMIN;
	struct host *h = &hosts[q == FN_IO];
	const struct nvmf_sq *sq = fn_sq(e, q);
	bool gated = sq->ctrl && !sq->closing && sq->auth_required && !sq->authenticated;
	uint16_t tid = (op & 0x10) ? fz_u16(f) : h->tid;
	uint32_t cdw10 = secp(f, op), len = 0;
	const uint8_t *out = NULL;
	uint32_t out_len = 0;
	struct nvme_sqe sqe;
	struct host saved = *h;
	int st;

	memset(msg, 0, sizeof(msg));
	switch (op & 7) {
	case 0: {
		uint16_t tl = fz_u16(f), n = fz_u16(f);

		n = (uint16_t)BLOX_MIN((size_t)n, BLOX_MIN(f->n, sizeof(msg)));
		fz_bytes(f, msg, n);
		h->neg_known = false;
		h->have_chal = false;
		auth_cmd(e, q, true, cdw10, tl, msg, n, NULL, NULL);
		return;
	}
	case 1:
		st = auth_cmd(e, q, false, cdw10, fz_u16(f), NULL, 0, &out, &out_len);
		if (st == 0 && out_len >= 2 && out[0] == NVME_AUTH_DHCHAP_MESSAGES) {
			if (out[1] == NVME_AUTH_MSG_CHALLENGE)
				take_challenge(h, out, out_len);
			else if (out[1] == NVME_AUTH_MSG_SUCCESS1)
				take_success1(h, out, out_len);
		}
		return;
	case 2:
		negotiate(f, h, (op & 0x10) ? tid : (uint16_t)(h->tid + 1), msg);
		len = sizeof(struct nvme_auth_negotiate) + sizeof(struct nvme_auth_protocol_desc);
		break;
	case 3:
		if (!h->have_chal)
			return;
		len = reply(f, h, tid, msg);
		break;
	case 4:
	case 5: {
		struct nvme_auth_failure *m = (void *)msg;

		m->auth_type = (op & 7) == 4 ? NVME_AUTH_DHCHAP_MESSAGES : NVME_AUTH_COMMON_MESSAGES;
		m->auth_id = (op & 7) == 4 ? NVME_AUTH_MSG_SUCCESS2 : NVME_AUTH_MSG_FAILURE2;
		le16_put(&m->t_id, tid);
		m->rescode = NVME_AUTH_RESCODE_FAILED;
		m->rescode_exp = fz_u8(f);
		len = (op & 7) == 4 ? sizeof(struct nvme_auth_success2) : sizeof(*m);
		break;
	}
	case 6:
		if (q == FN_IO) {
			fn_sqe(&sqe, 0x00 /* Flush */, 1, 0);
		} else {
			fn_sqe(&sqe, nvme_admin_fabrics, nvme_fabrics_type_property_get, 0);
			sqe.cdw10 = 1; /* 8 bytes */
			sqe.cdw11 = NVME_REG_CAP;
		}
		st = fn_submit(e, q, &sqe, false, NULL, 0, NULL, NULL);
		FUZZ_CHECK(!gated || st == (NVMF_SC_CMD(NVME_SC_AUTH_REQUIRED) | NVME_SC_DNR),
			   "queue %d served a command (status 0x%x) before authenticating", q, st);
		return;
	default:
		if (q == FN_IO) {
			uint64_t res = 0;

			if (fn_connect(e, FN_IO, FN_SUBNQN, 1, 1, &res) == 0)
				FUZZ_CHECK(res & NVME_CONNECT_AUTHREQ_ATR,
					   "I/O queue Connect result 0x%llx: no ATR",
					   (unsigned long long)res);
			return;
		}
		fn_sqe(&sqe, nvme_admin_fabrics, nvme_fabrics_type_property_set, 0);
		sqe.cdw11 = NVME_REG_CC;
		sqe.cdw12 = 0x00460001u;
		fn_submit(e, FN_ADMIN, &sqe, false, NULL, 0, NULL, NULL);
		return;
	}
	/* A message the controller did not take changes nothing. */
	if (auth_cmd(e, q, true, cdw10, len, msg, len, NULL, NULL) != 0)
		*h = saved;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	uint8_t setup = fz_u8(&f);
	const char *key = keys[setup & 3];
	const char *ctrl_key = (setup & 4) ? CTRL_KEY : NULL;
	struct host h[2] = { 0 };
	struct fn_env *e = fn_env_new_auth(key, ctrl_key);

	for (int i = 0; i < 2; i++) {
		FUZZ_CHECK(dhchap_key_parse(key, &h[i].key, NULL) == 0, "host key");
		if (ctrl_key)
			FUZZ_CHECK(dhchap_key_parse(ctrl_key, &h[i].ctrl_key, NULL) == 0,
				   "ctrl key");
	}
	for (int i = 0; i < MAX_STEPS && f.n > 0; i++)
		step(&f, e, h);
	fn_env_free(e);
	dhchap_wipe(h, sizeof(h));
	return 0;
}
