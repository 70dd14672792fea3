/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the NVMe/TCP PDU header checks (daemon/pdu), both
 * directions, under any negotiated parameters. Input: one byte of digest
 * flags, CPDA, MAXH2CDATA (u32), then a PDU header. Beyond memory safety,
 * an accepted header must add up: header, its digest, the padding, the
 * data and its digest are exactly PLEN, the data fits MAXH2CDATA and starts
 * at a CPDA-aligned PDO.
 */
#include <errno.h>

#include "fuzz_util.h"
#include "tcp_pdu.h"

static void check(const uint8_t hdr[NVME_TCP_MAX_HLEN + NVME_TCP_DIGEST_LEN],
		  const struct nvme_tcp_params *p, bool h2c)
{
	const struct nvme_tcp_hdr *h = (const void *)hdr;
	struct nvme_tcp_hdr_check out;
	int rc = h2c ? nvme_tcp_check_h2c_hdr(h, p, &out)
		     : nvme_tcp_check_c2h_hdr(h, p, &out);
	bool term = h->type == NVME_TCP_H2C_TERM || h->type == NVME_TCP_C2H_TERM;
	uint32_t hd, dd;

	FUZZ_CHECK(rc == 0 || rc == -EPROTO, "rc %d", rc);
	FUZZ_CHECK((rc == 0) == (out.fes == 0), "rc %d fes %u", rc, out.fes);
	if (rc)
		return;
	FUZZ_CHECK(h->hlen == nvme_tcp_pdu_hlen(h->type), "type %u hlen %u", h->type,
		   h->hlen);
	if (term) {
		FUZZ_CHECK(out.data_len <= NVME_TCP_TERM_MAX_DATA &&
				   h->plen == h->hlen + out.data_len,
			   "term plen %u data %u", h->plen, out.data_len);
		return;
	}
	hd = (h->flags & NVME_TCP_F_HDGST) ? NVME_TCP_DIGEST_LEN : 0;
	FUZZ_CHECK(!!hd == p->hdgst, "header digest flag");
	if (out.data_len == 0) {
		FUZZ_CHECK(h->plen == h->hlen + hd, "plen %u without data", h->plen);
		FUZZ_CHECK(!(h->flags & NVME_TCP_F_DDGST), "data digest without data");
		return;
	}
	dd = (h->flags & NVME_TCP_F_DDGST) ? NVME_TCP_DIGEST_LEN : 0;
	FUZZ_CHECK(!!dd == p->ddgst, "data digest flag");
	FUZZ_CHECK(out.data_len <= p->max_data, "data %u over %u", out.data_len, p->max_data);
	FUZZ_CHECK(h->pdo % ((p->cpda + 1u) * 4) == 0, "pdo %u cpda %u", h->pdo, p->cpda);
	FUZZ_CHECK((uint64_t)h->hlen + hd + out.pad_len + out.data_len + dd == h->plen,
		   "hlen %u hd %u pad %u data %u dd %u != plen %u", h->hlen, hd,
		   out.pad_len, out.data_len, dd, h->plen);
	FUZZ_CHECK(h->hlen + hd + out.pad_len == h->pdo, "pad %u pdo %u", out.pad_len,
		   h->pdo);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	uint8_t flags = fz_u8(&f);
	struct nvme_tcp_params p = {
		.hdgst = flags & 1,
		.ddgst = flags & 2,
		.cpda = fz_u8(&f) & 31, /* ICReq HPDA: 0-31 */
		.max_data = fz_u32(&f),
	};
	uint8_t hdr[NVME_TCP_MAX_HLEN + NVME_TCP_DIGEST_LEN] __attribute__((aligned(8)));
	uint8_t hlen;

	fz_bytes(&f, hdr, sizeof(hdr));
	check(hdr, &p, true);
	check(hdr, &p, false);
	/* The digest of a header as long as its type says. */
	hlen = nvme_tcp_pdu_hlen(hdr[0]);
	if (hlen) {
		uint8_t copy[sizeof(hdr)] __attribute__((aligned(8)));

		memcpy(copy, hdr, sizeof(copy));
		nvme_tcp_hdgst_set(copy, hlen);
		FUZZ_CHECK(nvme_tcp_hdgst_ok(copy, hlen), "digest just set");
	}
	return 0;
}
