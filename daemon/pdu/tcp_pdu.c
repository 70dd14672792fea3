/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pure NVMe/TCP PDU codec: header validation and digest helpers. Shared by
 * the target's transport and the project's test initiator.
 */
#include "tcp_pdu.h"

#include <errno.h>
#include <isa-l/crc.h>
#include <string.h>

uint8_t nvme_tcp_pdu_hlen(uint8_t type)
{
	switch (type) {
	case NVME_TCP_ICREQ:
	case NVME_TCP_ICRESP:
		return 128;
	case NVME_TCP_H2C_TERM:
	case NVME_TCP_C2H_TERM:
		return sizeof(struct nvme_tcp_term);
	case NVME_TCP_CMD:
		return sizeof(struct nvme_tcp_cmd);
	case NVME_TCP_RSP:
	case NVME_TCP_H2C_DATA:
	case NVME_TCP_C2H_DATA:
	case NVME_TCP_R2T:
		return sizeof(struct nvme_tcp_data);
	default:
		return 0;
	}
}

static int reject(struct nvme_tcp_hdr_check *out, uint16_t fes, uint32_t fei)
{
	out->fes = fes;
	out->fei = fei;
	return -EPROTO;
}

/*
 * Checks common to both directions once the connection is initialised.
 * @may_carry_data: the type can carry a payload; @digests: the type uses
 * the negotiated digests (TermReqs never do).
 */
static int check_common(const struct nvme_tcp_hdr *hdr,
			const struct nvme_tcp_params *p, bool may_carry_data,
			bool digests, struct nvme_tcp_hdr_check *out)
{
	uint8_t want_hlen = nvme_tcp_pdu_hlen(hdr->type);
	uint32_t hd = 0, dd = 0;
	uint32_t align = ((uint32_t)p->cpda + 1) * 4;

	memset(out, 0, sizeof(*out));
	if (hdr->hlen != want_hlen)
		return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 2);

	if (digests) {
		bool hf = hdr->flags & NVME_TCP_F_HDGST;
		if (hf != p->hdgst)
			return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 1);
		hd = hf ? NVME_TCP_DIGEST_LEN : 0;
	} else if (hdr->flags & (NVME_TCP_F_HDGST | NVME_TCP_F_DDGST)) {
		return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 1);
	}

	if (hdr->plen < (uint32_t)hdr->hlen + hd)
		return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 4);

	if (!may_carry_data) {
		if (hdr->pdo != 0 && hdr->type != NVME_TCP_H2C_TERM &&
		    hdr->type != NVME_TCP_C2H_TERM)
			return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 3);
		if (hdr->type == NVME_TCP_H2C_TERM ||
		    hdr->type == NVME_TCP_C2H_TERM) {
			/* The payload is the offending header, no pdo rules. */
			if (hdr->plen > (uint32_t)hdr->hlen + NVME_TCP_TERM_MAX_DATA)
				return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 4);
			out->data_len = hdr->plen - hdr->hlen;
			return 0;
		}
		if (hdr->plen != (uint32_t)hdr->hlen + hd)
			return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 4);
		if (hdr->flags & NVME_TCP_F_DDGST)
			return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 1);
		return 0;
	}

	if (hdr->plen == (uint32_t)hdr->hlen + hd) {
		/* No payload. */
		if (hdr->flags & NVME_TCP_F_DDGST)
			return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 1);
		if (hdr->pdo != 0 && hdr->pdo != hdr->hlen + hd)
			return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 3);
		return 0;
	}

	bool df = hdr->flags & NVME_TCP_F_DDGST;
	if (df != p->ddgst)
		return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 1);
	dd = df ? NVME_TCP_DIGEST_LEN : 0;

	if (hdr->pdo < hdr->hlen + hd || hdr->pdo % align != 0)
		return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 3);
	if (hdr->plen < (uint32_t)hdr->pdo + dd + 1)
		return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 4);

	out->pad_len = hdr->pdo - (hdr->hlen + hd);
	out->data_len = hdr->plen - hdr->pdo - dd;
	if (out->data_len > p->max_data)
		return reject(out, NVME_TCP_FES_DATA_LIMIT_EXCEEDED, 4);
	return 0;
}

int nvme_tcp_check_h2c_hdr(const struct nvme_tcp_hdr *hdr,
			   const struct nvme_tcp_params *p,
			   struct nvme_tcp_hdr_check *out)
{
	switch (hdr->type) {
	case NVME_TCP_CMD:
	case NVME_TCP_H2C_DATA:
		return check_common(hdr, p, true, true, out);
	case NVME_TCP_H2C_TERM:
		return check_common(hdr, p, false, false, out);
	case NVME_TCP_ICREQ:
		/* Only valid as the first PDU of a connection. */
		memset(out, 0, sizeof(*out));
		return reject(out, NVME_TCP_FES_PDU_SEQ_ERR, 0);
	default:
		memset(out, 0, sizeof(*out));
		return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 0);
	}
}

int nvme_tcp_check_c2h_hdr(const struct nvme_tcp_hdr *hdr,
			   const struct nvme_tcp_params *p,
			   struct nvme_tcp_hdr_check *out)
{
	switch (hdr->type) {
	case NVME_TCP_C2H_DATA:
		return check_common(hdr, p, true, true, out);
	case NVME_TCP_RSP:
	case NVME_TCP_R2T:
		return check_common(hdr, p, false, true, out);
	case NVME_TCP_C2H_TERM:
		return check_common(hdr, p, false, false, out);
	default:
		memset(out, 0, sizeof(*out));
		return reject(out, NVME_TCP_FES_INVALID_PDU_HDR, 0);
	}
}

void nvme_tcp_hdr_init(struct nvme_tcp_hdr *hdr, uint8_t type, uint8_t flags,
		       uint8_t hlen, uint8_t pdo, uint32_t plen)
{
	hdr->type = type;
	hdr->flags = flags;
	hdr->hlen = hlen;
	hdr->pdo = pdo;
	hdr->plen = plen;
}

uint32_t nvme_tcp_crc32c_update(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	/* crc32_iscsi takes an int length; feed huge buffers in slices. */
	while (len > 0) {
		int n = len > (1u << 30) ? (1 << 30) : (int)len;
		crc = crc32_iscsi((unsigned char *)p, n, crc);
		p += n;
		len -= (size_t)n;
	}
	return crc;
}

uint32_t nvme_tcp_crc32c(const void *buf, size_t len)
{
	return ~nvme_tcp_crc32c_update(~0u, buf, len);
}

void nvme_tcp_hdgst_set(void *hdr, uint8_t hlen)
{
	uint32_t crc = nvme_tcp_crc32c(hdr, hlen);
	memcpy((uint8_t *)hdr + hlen, &crc, sizeof(crc));
}

bool nvme_tcp_hdgst_ok(const void *hdr, uint8_t hlen)
{
	uint32_t crc = nvme_tcp_crc32c(hdr, hlen), got;
	memcpy(&got, (const uint8_t *)hdr + hlen, sizeof(got));
	return crc == got;
}
