/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP PDU layouts and a pure codec for them (NVMe TCP Transport
 * Specification 1.0). No I/O happens here: the functions check and build
 * headers in caller-owned buffers so that both the target and the test
 * initiator share one definition of the wire format.
 */
#ifndef BLOX_TCP_PDU_H
#define BLOX_TCP_PDU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvme_spec.h"

enum nvme_tcp_pdu_type {
	NVME_TCP_ICREQ = 0x00,
	NVME_TCP_ICRESP = 0x01,
	NVME_TCP_H2C_TERM = 0x02,
	NVME_TCP_C2H_TERM = 0x03,
	NVME_TCP_CMD = 0x04,
	NVME_TCP_RSP = 0x05,
	NVME_TCP_H2C_DATA = 0x06,
	NVME_TCP_C2H_DATA = 0x07,
	NVME_TCP_R2T = 0x09,
};

enum nvme_tcp_pdu_flags {
	NVME_TCP_F_HDGST = 1 << 0,
	NVME_TCP_F_DDGST = 1 << 1,
	NVME_TCP_F_DATA_LAST = 1 << 2,
	NVME_TCP_F_DATA_SUCCESS = 1 << 3,
};

/* ICReq/ICResp DGST field. */
enum nvme_tcp_digest_option {
	NVME_TCP_HDR_DIGEST_ENABLE = 1 << 0,
	NVME_TCP_DATA_DIGEST_ENABLE = 1 << 1,
};

/* Fatal error status carried by H2CTermReq/C2HTermReq. */
enum nvme_tcp_fatal_error_status {
	NVME_TCP_FES_INVALID_PDU_HDR = 0x01,
	NVME_TCP_FES_PDU_SEQ_ERR = 0x02,
	NVME_TCP_FES_HDR_DIGEST_ERR = 0x03,
	NVME_TCP_FES_DATA_OUT_OF_RANGE = 0x04,
	NVME_TCP_FES_R2T_LIMIT_EXCEEDED = 0x05,
	NVME_TCP_FES_DATA_LIMIT_EXCEEDED = 0x05,
	NVME_TCP_FES_UNSUPPORTED_PARAM = 0x06,
};


#define NVME_TCP_DIGEST_LEN 4
#define NVME_TCP_PFV_1_0 0
/* The largest PDU header of any type (ICReq/ICResp). */
#define NVME_TCP_MAX_HLEN 128
/* A TermReq carries at most this much of the offending PDU's header. */
#define NVME_TCP_TERM_MAX_DATA 152

struct nvme_tcp_hdr {
	uint8_t type;
	uint8_t flags;
	uint8_t hlen;
	uint8_t pdo;
	uint32_t plen; /* little endian on the wire */
};

struct nvme_tcp_icreq {
	struct nvme_tcp_hdr hdr;
	uint16_t pfv;
	uint8_t hpda;
	uint8_t digest;
	uint32_t maxr2t; /* 0's based */
	uint8_t rsvd[112];
};

struct nvme_tcp_icresp {
	struct nvme_tcp_hdr hdr;
	uint16_t pfv;
	uint8_t cpda;
	uint8_t digest;
	uint32_t maxdata;
	uint8_t rsvd[112];
};

struct nvme_tcp_term {
	struct nvme_tcp_hdr hdr;
	uint16_t fes;
	uint8_t fei[4];
	uint8_t rsvd[10];
};


struct nvme_tcp_cmd {
	struct nvme_tcp_hdr hdr;
	struct nvme_sqe sqe;
};

struct nvme_tcp_rsp {
	struct nvme_tcp_hdr hdr;
	struct nvme_cqe cqe;
};

/* H2CData, C2HData and R2T share this 24-byte layout. */
struct nvme_tcp_data {
	struct nvme_tcp_hdr hdr;
	uint16_t cccid;
	uint16_t ttag; /* reserved in C2HData */
	uint32_t datao;
	uint32_t datal;
	uint8_t rsvd[4];
};

_Static_assert(sizeof(struct nvme_tcp_hdr) == 8, "ch");
_Static_assert(sizeof(struct nvme_tcp_icreq) == 128, "icreq");
_Static_assert(sizeof(struct nvme_tcp_icresp) == 128, "icresp");
_Static_assert(sizeof(struct nvme_tcp_term) == 24, "term");
_Static_assert(sizeof(struct nvme_tcp_cmd) == 72, "cmd");
_Static_assert(sizeof(struct nvme_tcp_rsp) == 24, "rsp");
_Static_assert(sizeof(struct nvme_tcp_data) == 24, "data");

/* The fixed header length each PDU type must carry. 0 for unknown types. */
uint8_t nvme_tcp_pdu_hlen(uint8_t type);

/* Negotiated per-connection properties the codec needs to check a header. */
struct nvme_tcp_params {
	bool hdgst;
	bool ddgst;
	uint8_t cpda; /* alignment the peer must use for data it sends us */
	uint32_t max_data; /* largest data payload accepted in one PDU */
};

/* Result of checking a received common header + PDU specific header. */
struct nvme_tcp_hdr_check {
	uint16_t fes; /* 0 if the header is acceptable */
	uint32_t fei; /* byte offset of the offending field */
	uint32_t data_len; /* payload bytes after pdo, without digest */
	uint32_t pad_len; /* bytes between header(+digest) and pdo */
};

/*
 * Check the common header of a PDU the target received, once the ICReq
 * exchange is done. @hdr holds at least 8 bytes. Types a target never
 * receives are rejected. Fills @out; returns 0 or -EPROTO when @out->fes
 * says why.
 */
int nvme_tcp_check_h2c_hdr(const struct nvme_tcp_hdr *hdr,
			   const struct nvme_tcp_params *p,
			   struct nvme_tcp_hdr_check *out);

/* Same for a PDU the host received from the target (test initiator). */
int nvme_tcp_check_c2h_hdr(const struct nvme_tcp_hdr *hdr,
			   const struct nvme_tcp_params *p,
			   struct nvme_tcp_hdr_check *out);

/* Fill a common header. @plen is the whole PDU length. */
void nvme_tcp_hdr_init(struct nvme_tcp_hdr *hdr, uint8_t type, uint8_t flags,
		       uint8_t hlen, uint8_t pdo, uint32_t plen);

/* CRC32C as the NVMe/TCP digests use it (initial ~0, final xor ~0). */
uint32_t nvme_tcp_crc32c(const void *buf, size_t len);
/* Continue a CRC over several pieces: seed with ~0u, finish with ~crc. */
uint32_t nvme_tcp_crc32c_update(uint32_t crc, const void *buf, size_t len);

/* Store/compare a header digest of @hlen header bytes placed at @hdr+hlen. */
void nvme_tcp_hdgst_set(void *hdr, uint8_t hlen);
bool nvme_tcp_hdgst_ok(const void *hdr, uint8_t hlen);


#endif
