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
