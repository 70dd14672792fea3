/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Synchronous helpers for the admin and NVM I/O commands the tests use.
 * Each returns the NVMe status field (>= 0) or -errno for a transport
 * failure. A successful controller-to-host command that delivered fewer
 * bytes than asked counts as a transport failure (-EPROTO).
 */
#include "ini_internal.h"

#include <errno.h>
#include <string.h>

/* Run @r; status, or -errno (short successful reads are -EPROTO). */
static int run(struct ini_queue *q, struct ini_req *r)
{
	int rc = ini_exec(q, r);
	if (rc)
		return rc;
	if (ini_status(&r->cqe) == 0 && r->dir == INI_DIR_C2H &&
	    r->c2h_bytes != r->len)
		return -EPROTO;
	return ini_status(&r->cqe);
}

int ini_identify(struct ini_queue *q, uint8_t cns, uint32_t nsid,
		 uint16_t cntid, void *buf4k)
{
	struct ini_req r;

	ini_req_init(&r, nvme_admin_identify, nsid, buf4k, 4096, INI_DIR_C2H);
	r.sqe.cdw10 = cns | (uint32_t)cntid << 16;
	return run(q, &r);
}

int ini_get_log(struct ini_queue *q, uint8_t lid, uint32_t nsid,
		uint64_t offset, void *buf, uint32_t len)
{
	struct ini_req r;
	uint32_t numd;

	if (len == 0 || len % 4)
		return -EINVAL;
	numd = len / 4 - 1;
	ini_req_init(&r, nvme_admin_get_log_page, nsid, buf, len,
		     INI_DIR_C2H);
	r.sqe.cdw10 = lid | (numd & 0xffff) << 16;
	r.sqe.cdw11 = numd >> 16;
	r.sqe.cdw12 = (uint32_t)offset;
	r.sqe.cdw13 = (uint32_t)(offset >> 32);
	return run(q, &r);
}

int ini_set_features(struct ini_queue *q, uint8_t fid, uint32_t cdw11,
		     uint32_t *result)
{
	struct ini_req r;
	int rc;

	ini_req_init(&r, nvme_admin_set_features, 0, NULL, 0, INI_DIR_NONE);
	r.sqe.cdw10 = fid;
	r.sqe.cdw11 = cdw11;
	rc = run(q, &r);
	if (rc >= 0 && result)
		*result = (uint32_t)r.cqe.result;
	return rc;
}

int ini_get_features(struct ini_queue *q, uint8_t fid, uint8_t sel,
		     uint32_t *result)
{
	struct ini_req r;
	int rc;

	ini_req_init(&r, nvme_admin_get_features, 0, NULL, 0, INI_DIR_NONE);
	r.sqe.cdw10 = fid | (uint32_t)(sel & 7) << 8;
	rc = run(q, &r);
	if (rc >= 0 && result)
		*result = (uint32_t)r.cqe.result;
	return rc;
}

int ini_keep_alive(struct ini_queue *q)
{
	struct ini_req r;

	ini_req_init(&r, nvme_admin_keep_alive, 0, NULL, 0, INI_DIR_NONE);
	return run(q, &r);
}

void ini_req_rw(struct ini_req *r, uint8_t opcode, uint32_t nsid,
		uint64_t slba, uint32_t nlb, void *buf, uint32_t len)
{
	enum ini_dir dir = INI_DIR_NONE;

	if (len)
		dir = opcode == nvme_cmd_read ? INI_DIR_C2H : INI_DIR_H2C;
	ini_req_init(r, opcode, nsid, buf, len, dir);
	r->sqe.cdw10 = (uint32_t)slba;
	r->sqe.cdw11 = (uint32_t)(slba >> 32);
	r->sqe.cdw12 = (nlb - 1) & 0xffff;
}

int ini_read(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
	     void *buf, uint32_t len)
{
	struct ini_req r;

	ini_req_rw(&r, nvme_cmd_read, nsid, slba, nlb, buf, len);
	return run(q, &r);
}

int ini_write(struct ini_queue *q, uint32_t nsid, uint64_t slba,
	      uint32_t nlb, const void *buf, uint32_t len, bool fua)
{
	struct ini_req r;

	ini_req_rw(&r, nvme_cmd_write, nsid, slba, nlb, (void *)buf, len);
	if (fua)
		r.sqe.cdw12 |= 1u << 30;
	return run(q, &r);
}

int ini_flush(struct ini_queue *q, uint32_t nsid)
{
	struct ini_req r;

	ini_req_init(&r, nvme_cmd_flush, nsid, NULL, 0, INI_DIR_NONE);
	return run(q, &r);
}

int ini_write_zeroes(struct ini_queue *q, uint32_t nsid, uint64_t slba,
		     uint32_t nlb)
{
	struct ini_req r;

	ini_req_rw(&r, nvme_cmd_write_zeroes, nsid, slba, nlb, NULL, 0);
	return run(q, &r);
}

int ini_dsm_deallocate(struct ini_queue *q, uint32_t nsid, uint64_t slba,
		       uint32_t nlb)
{
	struct nvme_dsm_range range = { .cattr = 0, .nlb = nlb, .slba = slba };
	struct ini_req r;

	ini_req_init(&r, nvme_cmd_dsm, nsid, &range, sizeof(range),
		     INI_DIR_H2C);
	r.sqe.cdw10 = 0; /* one range, 0's based */
	r.sqe.cdw11 = NVME_DSMGMT_AD;
	return run(q, &r);
}

int ini_compare(struct ini_queue *q, uint32_t nsid, uint64_t slba,
		uint32_t nlb, const void *buf, uint32_t len)
{
	struct ini_req r;

	ini_req_rw(&r, nvme_cmd_compare, nsid, slba, nlb, (void *)buf, len);
	return run(q, &r);
}

int ini_set_features_ns(struct ini_queue *q, uint8_t fid, uint32_t nsid, uint32_t cdw11,
			uint32_t *result)
{
	struct ini_req r;
	int rc;

	ini_req_init(&r, nvme_admin_set_features, nsid, NULL, 0, INI_DIR_NONE);
	r.sqe.cdw10 = fid;
	r.sqe.cdw11 = cdw11;
	rc = run(q, &r);
	if (rc >= 0 && result)
		*result = (uint32_t)r.cqe.result;
	return rc;
}

/* ---- reservations: the keys go little-endian in the data ---- */

static int resv_keys(struct ini_queue *q, uint8_t opcode, uint32_t nsid, uint32_t cdw10,
		     uint64_t k1, uint64_t k2, uint32_t len)
{
	uint8_t data[16];
	struct ini_req r;

	for (int i = 0; i < 8; i++) {
		data[i] = (uint8_t)(k1 >> (8 * i));
		data[8 + i] = (uint8_t)(k2 >> (8 * i));
	}
	ini_req_init(&r, opcode, nsid, data, len, INI_DIR_H2C);
	r.sqe.cdw10 = cdw10;
	return run(q, &r);
}

int ini_resv_register(struct ini_queue *q, uint32_t nsid, uint32_t cdw10, uint64_t crkey,
		      uint64_t nrkey)
{
	return resv_keys(q, nvme_cmd_resv_register, nsid, cdw10, crkey, nrkey, 16);
}

int ini_resv_acquire(struct ini_queue *q, uint32_t nsid, uint32_t cdw10, uint64_t crkey,
		     uint64_t prkey)
{
	return resv_keys(q, nvme_cmd_resv_acquire, nsid, cdw10, crkey, prkey, 16);
}

int ini_resv_release(struct ini_queue *q, uint32_t nsid, uint32_t cdw10, uint64_t crkey)
{
	return resv_keys(q, nvme_cmd_resv_release, nsid, cdw10, crkey, 0, 8);
}

int ini_resv_report(struct ini_queue *q, uint32_t nsid, bool eds, void *buf, uint32_t len)
{
	struct ini_req r;

	if (len == 0 || len % 4)
		return -EINVAL;
	ini_req_init(&r, nvme_cmd_resv_report, nsid, buf, len, INI_DIR_C2H);
	r.sqe.cdw10 = len / 4 - 1;
	r.sqe.cdw11 = eds;
	return run(q, &r);
}

int ini_zone_send(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint8_t zsa, bool all)
{
	struct ini_req r;

	ini_req_init(&r, nvme_zns_cmd_mgmt_send, nsid, NULL, 0, INI_DIR_NONE);
	r.sqe.cdw10 = (uint32_t)slba;
	r.sqe.cdw11 = (uint32_t)(slba >> 32);
	r.sqe.cdw13 = zsa | (all ? 1u << 8 : 0);
	return run(q, &r);
}

int ini_zone_report(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint8_t filter,
		    bool partial, void *buf, uint32_t len)
{
	struct ini_req r;

	if (len < 64 || len % 4)
		return -EINVAL;
	ini_req_init(&r, nvme_zns_cmd_mgmt_recv, nsid, buf, len, INI_DIR_C2H);
	r.sqe.cdw10 = (uint32_t)slba;
	r.sqe.cdw11 = (uint32_t)(slba >> 32);
	r.sqe.cdw12 = len / 4 - 1;
	r.sqe.cdw13 = (uint32_t)filter << 8 | (partial ? 1u << 16 : 0);
	return run(q, &r);
}

int ini_zone_append(struct ini_queue *q, uint32_t nsid, uint64_t zslba, uint32_t nlb,
		    const void *buf, uint32_t len, bool fua, uint64_t *lba)
{
	struct ini_req r;
	int rc;

	ini_req_rw(&r, nvme_zns_cmd_append, nsid, zslba, nlb, (void *)buf, len);
	if (fua)
		r.sqe.cdw12 |= 1u << 30;
	rc = run(q, &r);
	if (rc == 0 && lba)
		*lba = r.cqe.result;
	return rc;
}

int ini_write_dir(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
		  const void *buf, uint32_t len, uint8_t dtype, uint16_t dspec)
{
	struct ini_req r;

	ini_req_rw(&r, nvme_cmd_write, nsid, slba, nlb, (void *)buf, len);
	r.sqe.cdw12 |= (uint32_t)(dtype & 0xf) << 20;
	r.sqe.cdw13 = (uint32_t)dspec << 16;
	return run(q, &r);
}

int ini_get_log_lsi(struct ini_queue *q, uint8_t lid, uint8_t lsp, uint16_t lsi,
		    void *buf, uint32_t len)
{
	struct ini_req r;
	uint32_t numd;

	if (len == 0 || len % 4)
		return -EINVAL;
	numd = len / 4 - 1;
	ini_req_init(&r, nvme_admin_get_log_page, 0xffffffff, buf, len, INI_DIR_C2H);
	r.sqe.cdw10 = lid | (uint32_t)(lsp & 0x7f) << 8 | (numd & 0xffff) << 16;
	r.sqe.cdw11 = numd >> 16 | (uint32_t)lsi << 16;
	return run(q, &r);
}

int ini_io_mgmt_recv(struct ini_queue *q, uint32_t nsid, uint8_t mo, void *buf,
		     uint32_t len)
{
	struct ini_req r;

	if (len == 0 || len % 4)
		return -EINVAL;
	ini_req_init(&r, nvme_cmd_io_mgmt_recv, nsid, buf, len, INI_DIR_C2H);
	r.sqe.cdw10 = mo;
	r.sqe.cdw11 = len / 4 - 1;
	return run(q, &r);
}

int ini_io_mgmt_send(struct ini_queue *q, uint32_t nsid, uint8_t mo, const uint16_t *pids,
		     uint16_t n)
{
	struct ini_req r;

	if (n == 0)
		return -EINVAL;
	ini_req_init(&r, nvme_cmd_io_mgmt_send, nsid, (void *)pids, (uint32_t)n * 2,
		     INI_DIR_H2C);
	r.sqe.cdw10 = mo | (uint32_t)(n - 1) << 16;
	return run(q, &r);
}
