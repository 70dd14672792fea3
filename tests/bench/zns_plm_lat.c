/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * zns_plm_lat ADDR PORT SUBNQN NSID [ROUNDS]: what a deterministic window
 * does to host reads on a zoned namespace while zones are reset (docs/
 * PLACEMENT.md, "Predictable latency on a zoned vSSD"). Zone 0 is written
 * and read at queue depth 1 (random 4 KiB) on one queue while another
 * resets zones 1.. one after the other, each written again (two pages) so
 * that its next reset has a row to erase. ROUNDS resets (default 8) in the
 * non-deterministic window, then as many in a deterministic one; for each:
 * the reads' latency (p50, p99, max) and the resets'. The namespace needs
 * ROUNDS spare rows (a vSSD smaller than its block range), else the
 * deterministic window ends at a reset (it says so). Not a test.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "blox_hist.h"
#include "ini.h"

#define LBA 4096u

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int set_feat(struct ini_queue *adm, uint8_t fid, uint32_t set, uint32_t cdw12, void *buf,
		    uint32_t len)
{
	struct ini_req r;
	int rc;

	ini_req_init(&r, nvme_admin_set_features, 0, buf, len, buf ? INI_DIR_H2C : INI_DIR_NONE);
	r.sqe.cdw10 = fid;
	r.sqe.cdw11 = set;
	r.sqe.cdw12 = cdw12;
	rc = ini_exec(adm, &r);
	return rc ? rc : ini_status(&r.cqe);
}

static int window(struct ini_queue *adm, uint32_t nsid, bool dtwin)
{
	return set_feat(adm, NVME_FEAT_FID_PLM_WINDOW, nsid, dtwin ? 1 : 2, NULL, 0);
}

/* One window's rounds: resets on @rq while @q reads zone 0. */
static int rounds(struct ini_ctrl *c, uint32_t nsid, uint64_t zsize, uint32_t zones,
		  uint32_t n, const char *name)
{
	struct ini_queue *q = c->io[0], *rq = c->io[1];
	struct blox_hist rd, rs;
	uint8_t buf[LBA], wbuf[8 * LBA];
	static uint32_t next = 1;
	struct nvme_nvmset_predictable_lat_log l;

	blox_hist_reset(&rd);
	blox_hist_reset(&rs);
	memset(wbuf, 0x5a, sizeof(wbuf));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t z = next;
		struct ini_req r;
		uint64_t t0 = now_ns(), t1;

		next = next + 1 < zones ? next + 1 : 1;
		ini_req_init(&r, nvme_zns_cmd_mgmt_send, nsid, NULL, 0, INI_DIR_NONE);
		r.sqe.cdw10 = (uint32_t)(z * zsize);
		r.sqe.cdw11 = (uint32_t)((z * zsize) >> 32);
		r.sqe.cdw13 = NVME_ZNS_ZSA_RESET;
		if (ini_submit(rq, &r))
			return -EIO;
		/* Reads until the reset completes, and as long again after it. */
		for (uint64_t until = UINT64_MAX; now_ns() < until;) {
			uint64_t s = now_ns();

			if (ini_read(q, nsid, (uint64_t)(rand() % 256), 1, buf, LBA))
				return -EIO;
			blox_hist_add(&rd, now_ns() - s);
			if (until == UINT64_MAX && r.done) {
				t1 = now_ns();
				blox_hist_add(&rs, t1 - t0);
				until = t1 + (t1 - t0);
			}
			if (!r.done) {
				struct pollfd pf = { .fd = ini_queue_fd(rq), .events = POLLIN };
				struct ini_req *d;

				/* The reset's completion, when it has come: reads go on meanwhile. */
				if (poll(&pf, 1, 0) > 0)
					ini_poll(rq, &d, 1);
			}
		}
		if (ini_status(&r.cqe))
			return -EIO;
		/* The zone written again: two pages, so the next reset erases a row. */
		if (ini_write(rq, nsid, z * zsize, 8, wbuf, sizeof(wbuf), true))
			return -EIO;
	}
	if (ini_get_log_lsi(c->admin, NVME_LOG_LID_PREDICTABLE_LAT_NVMSET, 0, (uint16_t)nsid, &l,
			    sizeof(l)))
		return -EIO;
	printf("%-6s resets %u: reads %lu, p50 %.0f us, p99 %.0f us, max %.0f us; resets p50 "
	       "%.0f us, max %.0f us; log 0Ah status %u events %#x\n",
	       name, n, (unsigned long)rd.count, blox_hist_quantile(&rd, 0.5) / 1e3,
	       blox_hist_quantile(&rd, 0.99) / 1e3, rd.max / 1e3,
	       blox_hist_quantile(&rs, 0.5) / 1e3, rs.max / 1e3, l.status, l.event_type);
	return 0;
}

int main(int argc, char **argv)
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	struct nvme_plm_config cfg;
	uint8_t id[4096], wbuf[8 * LBA];
	uint32_t nsid, n = 8, zones;
	uint64_t zsize, nsze;
	struct nvme_zone_report rep[2];

	if (argc < 5) {
		fprintf(stderr, "usage: zns_plm_lat ADDR PORT SUBNQN NSID [ROUNDS]\n");
		return 64;
	}
	nsid = (uint32_t)atoi(argv[4]);
	if (argc > 5)
		n = (uint32_t)atoi(argv[5]);
	ini_ctrl_args_init(&a, argv[1], (uint16_t)atoi(argv[2]), argv[3]);
	a.nr_io = 2;
	if (ini_ctrl_connect(&a, &c, NULL)) {
		fprintf(stderr, "zns_plm_lat: cannot connect\n");
		return 1;
	}
	if (ini_identify(c->admin, 0, nsid, 0, id)) {
		fprintf(stderr, "zns_plm_lat: no namespace %u\n", nsid);
		return 1;
	}
	memcpy(&nsze, id, 8);
	memset(rep, 0, sizeof(rep));
	if (ini_zone_report(c->io[0], nsid, 0, NVME_ZNS_ZRAS_REPORT_ALL, false, rep, sizeof(rep)) ||
	    !rep[0].nr_zones) {
		fprintf(stderr, "zns_plm_lat: namespace %u is not zoned\n", nsid);
		return 1;
	}
	zones = (uint32_t)rep[0].nr_zones;
	zsize = nsze / zones;
	memset(wbuf, 0xa5, sizeof(wbuf));
	/* Zone 0: 256 LBAs to read; every other zone two pages. */
	for (uint32_t i = 0; i < 256 / 8; i++)
		if (ini_write(c->io[0], nsid, (uint64_t)i * 8, 8, wbuf, sizeof(wbuf), false))
			return 1;
	for (uint32_t z = 1; z < zones; z++)
		if (ini_write(c->io[0], nsid, z * zsize, 8, wbuf, sizeof(wbuf), true))
			return 1;
	memset(&cfg, 0, sizeof(cfg));
	if (set_feat(c->admin, NVME_FEAT_FID_PLM_CONFIG, nsid, 1, &cfg, sizeof(cfg))) {
		fprintf(stderr, "zns_plm_lat: Predictable Latency Mode refused\n");
		return 1;
	}
	if (rounds(c, nsid, zsize, zones, n, "NDWIN"))
		return 1;
	if (window(c->admin, nsid, true) || rounds(c, nsid, zsize, zones, n, "DTWIN"))
		return 1;
	window(c->admin, nsid, false);
	set_feat(c->admin, NVME_FEAT_FID_PLM_CONFIG, nsid, 0, &cfg, sizeof(cfg));
	ini_ctrl_shutdown(c);
	ini_ctrl_destroy(c);
	return 0;
}
