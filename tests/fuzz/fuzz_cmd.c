/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the command parsers and handlers of the NVMe core
 * (daemon/nvmf: fabrics, admin, I/O, discovery) on a target with RAM
 * namespaces (fuzz_nvmf.h). Each input is a run of commands, each:
 *   u8 how: bits 0-1 the queue (enum fn_queue); 0x10 data in the capsule;
 *           0x20 the SGL made a transport data block (its length kept);
 *           0x40 that length cut to the data given
 *   64 bytes: the SQE
 *   u16 n, then n bytes: the data the host sends (zero-filled beyond)
 * Checked: the core's invariants of fuzz_nvmf.h, for every command.
 */
#include "fuzz_nvmf.h"

#define MAX_CMDS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct fn_env *e = fn_env_new();

	for (int i = 0; i < MAX_CMDS && f.n > 0; i++) {
		uint8_t how = fz_u8(&f);
		struct nvme_sqe sqe;
		struct nvme_sgl_desc sgl;
		uint16_t n;
		const uint8_t *d;

		fz_bytes(&f, &sqe, sizeof(sqe));
		n = fz_u16(&f);
		n = (uint16_t)BLOX_MIN((size_t)n, f.n);
		d = f.p;
		f.p += n;
		f.n -= n;
		if (how & 0x20) {
			struct nvme_sqe fixed;

			memcpy(&sgl, sqe.dptr, sizeof(sgl));
			/* The SGL as hosts send it; the command's dwords as given. */
			fn_sqe(&fixed, sqe.opcode, sqe.nsid, (how & 0x40) ? n : sgl.length);
			memcpy(sqe.dptr, fixed.dptr, sizeof(sqe.dptr));
			sqe.flags = fixed.flags;
		}
		fn_submit(e, (enum fn_queue)(how & 3), &sqe, how & 0x10, d, n, NULL, NULL);
	}
	fn_env_free(e);
	return 0;
}
