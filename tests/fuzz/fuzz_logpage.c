/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the log page builders (daemon/nvmf logpage.c,
 * discovery, endgrp.c, plm.c) through Get Log Page on an NVM controller
 * and a discovery controller (fuzz_nvmf.h), any log page id, LSP, RAE,
 * length, offset, NSID, LSI, CSI and OT. Each input is a run of requests:
 *   u8 queue (0: NVM admin queue, else the discovery one), u8 LID,
 *   u8 LSP, u8 RAE, u32 NUMD (0's based dwords), u64 offset, u32 NSID,
 *   u16 LSI, u8 CSI, u8 OT
 * A command with data runs first when the queue byte has 0x80 (an I/O
 * write, a failing command) so that the pages have something to tell.
 * Checked, with the core's invariants: a page is never longer than asked
 * for, and the discovery log read from an offset is the same bytes as
 * read whole.
 */
#include "fuzz_nvmf.h"

#define MAX_REQS 32
#define LID_DISCOVERY 0x70

static int get_log(struct fn_env *e, enum fn_queue q, uint8_t lid, uint8_t lsp, bool rae,
		   uint32_t numd, uint64_t off, uint32_t nsid, uint16_t lsi, uint8_t csi,
		   uint8_t ot, const uint8_t **out, uint32_t *out_len)
{
	uint64_t len = ((uint64_t)numd + 1) * 4;
	struct nvme_sqe sqe;

	fn_sqe(&sqe, nvme_admin_get_log_page, nsid, (uint32_t)len);
	sqe.cdw10 = lid | (uint32_t)(lsp & 0x7f) << 8 | (uint32_t)rae << 15 |
		    (numd & 0xffff) << 16;
	sqe.cdw11 = numd >> 16 | (uint32_t)lsi << 16;
	sqe.cdw12 = (uint32_t)off;
	sqe.cdw13 = (uint32_t)(off >> 32);
	sqe.cdw14 = (uint32_t)(ot & 1) << 23 | (uint32_t)csi << 24;
	return fn_submit(e, q, &sqe, false, NULL, 0, out, out_len);
}

/* Some state for the pages: a write, a read past the end (an error entry). */
static void stir(struct fn_env *e)
{
	static const uint8_t block[512] = { 0xa5 };
	struct nvme_sqe sqe;

	fn_sqe(&sqe, nvme_cmd_write, 1, sizeof(block));
	fn_submit(e, FN_IO, &sqe, true, block, sizeof(block), NULL, NULL);
	fn_sqe(&sqe, nvme_cmd_read, 1, 512);
	sqe.cdw10 = 0xffffff; /* SLBA past the end */
	fn_submit(e, FN_IO, &sqe, false, NULL, 0, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct fn_env *e = fn_env_new();

	for (int i = 0; i < MAX_REQS && f.n > 0; i++) {
		uint8_t qb = fz_u8(&f), lid = fz_u8(&f), lsp = fz_u8(&f), rae = fz_u8(&f);
		uint32_t numd = fz_u32(&f);
		uint64_t off = fz_u64(&f);
		uint32_t nsid = fz_u32(&f);
		uint16_t lsi = fz_u16(&f);
		uint8_t csi = fz_u8(&f), ot = fz_u8(&f);
		enum fn_queue q = (qb & 0x7f) ? FN_DISC : FN_ADMIN;
		uint64_t want = ((uint64_t)numd + 1) * 4;
		const uint8_t *out;
		uint32_t len;
		int st;

		if (qb & 0x80)
			stir(e);
		st = get_log(e, q, lid, lsp, rae & 1, numd, off, nsid, lsi, csi, ot, &out, &len);
		if (st != 0)
			continue;
		FUZZ_CHECK(len <= want, "log 0x%02x: %u bytes for %llu asked", lid, len,
			   (unsigned long long)want);
		if (lid == LID_DISCOVERY && q == FN_DISC && len > 0 && off % 4 == 0 && off < 8192 &&
		    off + len <= NVMF_MAX_XFER) {
			/* The same bytes from the start of the page. */
			uint8_t part[NVMF_MAX_XFER];
			const uint8_t *whole;
			uint32_t wlen;

			memcpy(part, out, len);
			st = get_log(e, q, lid, lsp, rae & 1, (uint32_t)((off + len) / 4) - 1, 0,
				     nsid, lsi, csi, ot, &whole, &wlen);
			FUZZ_CHECK(st == 0 && wlen == off + len && !memcmp(whole + off, part, len),
				   "discovery log at %llu (%u bytes) differs from the whole "
				   "page (status 0x%x, %u bytes)",
				   (unsigned long long)off, len, st, wlen);
		}
	}
	fn_env_free(e);
	return 0;
}
