/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe wire structures shared by the target core, the TCP transport and
 * the project's own initiator: the 64-byte submission queue entry, the
 * 16-byte completion queue entry, the SGL descriptor and little-endian
 * accessors. Identify data, log pages and status codes come from
 * libnvme's <nvme/types.h>, included here so that one header names the
 * whole wire format.
 */
#ifndef BLOX_NVME_SPEC_H
#define BLOX_NVME_SPEC_H

#include <stdint.h>

#include <nvme/types.h>

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "blox assumes a little-endian host: wire structures are used in place"
#endif

/* 64-byte submission queue entry, generic view. */
struct nvme_sqe {
	uint8_t opcode;
	uint8_t flags;
	uint16_t cid;
	uint32_t nsid;
	uint32_t cdw2;
	uint32_t cdw3;
	uint64_t mptr;
	uint8_t dptr[16]; /* SGL descriptor */
	uint32_t cdw10;
	uint32_t cdw11;
	uint32_t cdw12;
	uint32_t cdw13;
	uint32_t cdw14;
	uint32_t cdw15;
};

/* 16-byte completion queue entry. */
struct nvme_cqe {
	uint64_t result; /* DW0 and DW1 */
	uint16_t sqhd;
	uint16_t sqid;
	uint16_t cid;
	uint16_t status; /* status field << 1 | phase */
};

/* SGL descriptor as found in dptr. */
struct nvme_sgl_desc {
	uint64_t addr;
	uint32_t length;
	uint8_t rsvd[3];
	uint8_t type; /* descriptor type << 4 | subtype */
};

enum nvme_sgl_type {
	NVME_SGL_DATA_BLOCK = 0x0,
	NVME_SGL_TRANSPORT_DATA_BLOCK = 0x5,
};
enum nvme_sgl_subtype {
	NVME_SGL_SUB_ADDRESS = 0x0,
	NVME_SGL_SUB_OFFSET = 0x1,
	NVME_SGL_SUB_TRANSPORT = 0xA,
};

_Static_assert(sizeof(struct nvme_sqe) == 64, "sqe");
_Static_assert(sizeof(struct nvme_cqe) == 16, "cqe");
_Static_assert(sizeof(struct nvme_sgl_desc) == 16, "sgl");

/*
 * In-band authentication (NVMe 2.0, TP 8006: DH-HMAC-CHAP): the messages
 * that AUTH_Send / AUTH_Receive carry. Security protocol E9h, SPSP 0101h.
 */
#define NVME_AUTH_SECP_DHCHAP 0xe9
#define NVME_AUTH_SPSP_DHCHAP 0x01
/* Connect response DW0: authentication required (ATR), secure concat (ASCR). */
#define NVME_CONNECT_AUTHREQ_ATR (1u << 17)
#define NVME_CONNECT_AUTHREQ_ASCR (1u << 18)

enum nvme_auth_type {
	NVME_AUTH_COMMON_MESSAGES = 0x00,
	NVME_AUTH_DHCHAP_MESSAGES = 0x01,
};
enum nvme_auth_msg {
	NVME_AUTH_MSG_NEGOTIATE = 0x00,
	NVME_AUTH_MSG_CHALLENGE = 0x01,
	NVME_AUTH_MSG_REPLY = 0x02,
	NVME_AUTH_MSG_SUCCESS1 = 0x03,
	NVME_AUTH_MSG_SUCCESS2 = 0x04,
	NVME_AUTH_MSG_FAILURE2 = 0xf0,
	NVME_AUTH_MSG_FAILURE1 = 0xf1,
};
/* Reason code (1: failed) and its explanation in failure messages. */
#define NVME_AUTH_RESCODE_FAILED 0x01
enum nvme_auth_fail_reason {
	NVME_AUTH_FAIL_FAILED = 0x01,
	NVME_AUTH_FAIL_NOT_USABLE = 0x02,
	NVME_AUTH_FAIL_CONCAT_MISMATCH = 0x03,
	NVME_AUTH_FAIL_HASH_UNUSABLE = 0x04,
	NVME_AUTH_FAIL_DHGROUP_UNUSABLE = 0x05,
	NVME_AUTH_FAIL_INCORRECT_PAYLOAD = 0x06,
	NVME_AUTH_FAIL_INCORRECT_MESSAGE = 0x07,
};
#define NVME_AUTH_DHCHAP_AUTH_ID 0x01
#define NVME_AUTH_MAX_HASH_IDS 30
#define NVME_AUTH_MAX_DH_IDS 30

struct nvme_auth_protocol_desc {
	uint8_t authid;
	uint8_t rsvd;
	uint8_t halen;
	uint8_t dhlen;
	uint8_t idlist[60]; /* hash ids at 0, DH group ids at 30 */
};
struct nvme_auth_negotiate {
	uint8_t auth_type;
	uint8_t auth_id;
	uint16_t rsvd;
	uint16_t t_id;
	uint8_t sc_c;
	uint8_t napd;
	struct nvme_auth_protocol_desc proto[]; /* napd of them */
};
struct nvme_auth_challenge {
	uint8_t auth_type;
	uint8_t auth_id;
	uint16_t rsvd1;
	uint16_t t_id;
	uint8_t hl;
	uint8_t rsvd2;
	uint8_t hashid;
	uint8_t dhgid;
	uint16_t dhvlen;
	uint32_t seqnum;
	uint8_t cval[]; /* hl bytes of challenge, then dhvlen of DH value */
};
struct nvme_auth_reply {
	uint8_t auth_type;
	uint8_t auth_id;
	uint16_t rsvd1;
	uint16_t t_id;
	uint8_t hl;
	uint8_t rsvd2;
	uint8_t cvalid;
	uint8_t rsvd3;
	uint16_t dhvlen;
	uint32_t seqnum;
	uint8_t rval[]; /* hl response, hl challenge C2, dhvlen DH value */
};
struct nvme_auth_success1 {
	uint8_t auth_type;
	uint8_t auth_id;
	uint16_t rsvd1;
	uint16_t t_id;
	uint8_t hl;
	uint8_t rsvd2;
	uint8_t rvalid;
	uint8_t rsvd3[7];
	uint8_t rval[]; /* hl bytes */
};
struct nvme_auth_success2 {
	uint8_t auth_type;
	uint8_t auth_id;
	uint16_t rsvd1;
	uint16_t t_id;
	uint8_t rsvd2[10];
};
struct nvme_auth_failure {
	uint8_t auth_type;
	uint8_t auth_id;
	uint16_t rsvd1;
	uint16_t t_id;
	uint8_t rescode;
	uint8_t rescode_exp;
};
_Static_assert(sizeof(struct nvme_auth_negotiate) == 8, "negotiate");
_Static_assert(sizeof(struct nvme_auth_protocol_desc) == 64, "protocol desc");
_Static_assert(sizeof(struct nvme_auth_challenge) == 16, "challenge");
_Static_assert(sizeof(struct nvme_auth_reply) == 16, "reply");
_Static_assert(sizeof(struct nvme_auth_success1) == 16, "success1");
_Static_assert(sizeof(struct nvme_auth_success2) == 16, "success2");

/* Little-endian helpers; the wire and NVMe structures are little endian. */
static inline uint16_t le16_get(const void *p)
{
	const uint8_t *b = p;
	return (uint16_t)(b[0] | (b[1] << 8));
}
static inline uint32_t le32_get(const void *p)
{
	const uint8_t *b = p;
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
	       ((uint32_t)b[3] << 24);
}
static inline uint64_t le64_get(const void *p)
{
	const uint8_t *b = p;
	return (uint64_t)le32_get(b) | ((uint64_t)le32_get(b + 4) << 32);
}
static inline void le16_put(void *p, uint16_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}
static inline void le32_put(void *p, uint32_t v)
{
	uint8_t *b = p;
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
	b[2] = (uint8_t)(v >> 16);
	b[3] = (uint8_t)(v >> 24);
}
static inline void le64_put(void *p, uint64_t v)
{
	le32_put(p, (uint32_t)v);
	le32_put((uint8_t *)p + 4, (uint32_t)(v >> 32));
}

#endif
