/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Zoned Namespace Command Set through the target core (zns_cmd.c and
 * its hooks) on the real zns backend, a small NAND device in RAM driven by
 * a libevent loop: CAP.CSS and CC.CSS, the CSI descriptor, ZNS Identify
 * Namespace and Controller, the I/O Command Set vector, the Commands
 * Supported and Effects log of CSI 2; writes at the write pointer and the
 * zone statuses as the host sees them; Report Zones with its filters and
 * Partial Report; Zone Append's LBA in the completion; Zone Management
 * Send on one zone and Select All; the refusals of bad fields and of
 * zone commands on a namespace that is not zoned.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <event2/event.h>

#include "fake_nvmf.h"
#include "nand.h"

#define ZSIZE 128u /* LBAs: 2 dies x 12 pages of 4 LBAs, 2 pages kept: capacity 88 */
#define ZCAP 88u
#define NZONES 8u
#define ST_ZNS(sc) (ST_DNR | 0x100 | (sc))

struct fixture {
	struct fake_tgt ft;
	struct event_base *base;
	struct nand_config nand;
	struct nvmf_subsys *subsys;
	struct fake_q *aq, *ioq;
	struct fake_cmd *c;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct blox_bdev_params p = { .backend = "zns", .block_size = 4096 };
	struct blox_bdev *b;
	struct nvmf_ns *ns;
	uint16_t cntlid;

	assert_non_null(f);
	f->base = event_base_new();
	fake_tgt_init_base(&f->ft, f->base);
	nand_config_default(&f->nand);
	f->nand.geo.channels = 2;
	f->nand.geo.dies_per_channel = 1;
	f->nand.geo.planes_per_die = 1;
	f->nand.geo.blocks_per_plane = NZONES;
	f->nand.geo.pages_per_block = 12;
	f->nand.geo.page_size = 16384;
	p.nand = &f->nand;
	p.clock = &f->ft.clock;
	p.log = &f->ft.log;
	p.base = f->base;
	p.max_open = 2;
	f->subsys = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	assert_int_equal(blox_bdev_create(&p, &f->ft.tgt.io_cq, &b), 0);
	assert_int_equal(nvmf_ns_add(f->subsys, 1, b, NULL, &ns), 0);
	fake_ns(&f->ft, f->subsys, 2, "ram", 1 << 20, 4096);
	f->aq = fake_admin_q(&f->ft, NULL, FAKE_SUBNQN, &cntlid);
	f->ioq = fake_q_new(&f->ft);
	assert_int_equal(fake_io_connect(&f->ft, f->ioq, FAKE_SUBNQN, cntlid, 1, 127), 0);
	f->c = fake_cmd_new(&f->ft);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	struct event_base *base = f->base;

	fake_fixture_teardown(state);
	event_base_free(base);
	return 0;
}

/* Run the prepared command; the loop turns until it completes. */
static uint16_t run(struct fixture *f, struct fake_q *q)
{
	f->c->done = 0;
	fake_submit(&f->ft, q, f->c);
	while (!f->c->done)
		assert_true(event_base_loop(f->base, EVLOOP_ONCE) >= 0);
	assert_int_equal(f->c->done, 1);
	return fake_status(f->c);
}

static struct nvme_sqe *prep_lba(struct fixture *f, uint8_t op, uint32_t nsid, uint64_t slba,
				 uint32_t nlb)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, op, nsid);

	cmd->cdw10 = (uint32_t)slba;
	cmd->cdw11 = (uint32_t)(slba >> 32);
	cmd->cdw12 = (nlb - 1) & 0xffff;
	return cmd;
}

static uint16_t write_at(struct fixture *f, uint8_t op, uint64_t slba, uint32_t nlb)
{
	prep_lba(f, op, 1, slba, nlb);
	fake_data(f->c, nlb * 4096, false);
	for (uint32_t i = 0; i < nlb * 4096; i++)
		f->c->buf[i] = (uint8_t)(slba + i / 4096);
	return run(f, f->ioq);
}

static uint16_t zsend(struct fixture *f, uint32_t nsid, uint64_t slba, uint8_t zsa, bool all)
{
	prep_lba(f, nvme_zns_cmd_mgmt_send, nsid, slba, 1)->cdw13 = zsa | (all ? 1u << 8 : 0);
	f->c->req.cmd.cdw12 = 0;
	return run(f, f->ioq);
}

/* Report Zones from @slba, @filter, a buffer of @len bytes: the report in c->buf. */
static uint16_t report(struct fixture *f, uint64_t slba, uint8_t filter, uint32_t len,
		       bool partial)
{
	struct nvme_sqe *cmd = prep_lba(f, nvme_zns_cmd_mgmt_recv, 1, slba, 1);

	cmd->cdw12 = len / 4 - 1;
	cmd->cdw13 = (uint32_t)filter << 8 | (partial ? 1u << 16 : 0);
	fake_data(f->c, len, false);
	return run(f, f->ioq);
}

static const struct nvme_zone_report *rep(struct fixture *f)
{
	return (const void *)f->c->buf;
}

static uint16_t identify(struct fixture *f, uint8_t cns, uint8_t csi, uint32_t nsid)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_admin_identify, nsid);

	cmd->cdw10 = cns;
	cmd->cdw11 = (uint32_t)csi << 24;
	fake_data(f->c, 4096, false);
	return fake_exec(&f->ft, f->aq, f->c);
}

/* 1. What a host reads to find a zoned namespace and its command set. */
static void test_identify(void **state)
{
	struct fixture *f = *state;
	const struct nvme_zns_id_ns *zid = (const void *)f->c->buf;
	const struct nvme_cmd_effects_log *eff = (const void *)f->c->buf;
	uint64_t cap, v;
	const uint8_t *d;

	assert_int_equal(fake_prop_get(&f->ft, f->aq, NVME_REG_CAP, true, &cap), 0);
	assert_true(cap & (1ull << 43)); /* CSS: I/O command sets */
	/* A controller enabled with CC.CSS 110b. */
	{
		struct fake_q *q = fake_q_new(&f->ft);
		struct fake_connect_args a = { .sqsize = 31, .cntlid = 0xffff, .kato = 0,
					       .subnqn = FAKE_SUBNQN, .hostnqn = FAKE_HOSTNQN };
		uint64_t csts = 0;

		assert_int_equal(fake_connect(&f->ft, q, &a, NULL), 0);
		assert_int_equal(fake_prop_set(&f->ft, q, NVME_REG_CC, false,
					       FAKE_CC_ENABLE | (6u << 4)), 0);
		assert_int_equal(fake_prop_get(&f->ft, q, NVME_REG_CSTS, false, &csts), 0);
		assert_true(csts & 1);
	}
	/* The namespace's CSI descriptor (after NGUID and UUID). */
	assert_int_equal(fake_identify(&f->ft, f->aq, f->c, NVME_IDENTIFY_CNS_NS_DESC_LIST, 1), 0);
	d = f->c->buf + 20 + 20;
	assert_int_equal(d[0], NVME_NIDT_CSI);
	assert_int_equal(d[4], NVME_CSI_ZNS);
	assert_int_equal(fake_identify(&f->ft, f->aq, f->c, NVME_IDENTIFY_CNS_NS_DESC_LIST, 2), 0);
	assert_int_equal(d[4], NVME_CSI_NVM);
	/* ZNS Identify Namespace. */
	assert_int_equal(identify(f, NVME_IDENTIFY_CNS_CSI_NS, NVME_CSI_ZNS, 1), 0);
	assert_int_equal(zid->zoc, 0);
	assert_int_equal(zid->ozcs, 1);
	assert_int_equal(zid->mor, 1);
	assert_int_equal(zid->mar, 0xffffffffu);
	assert_int_equal(zid->lbafe[0].zsze, ZSIZE);
	assert_int_equal(identify(f, NVME_IDENTIFY_CNS_CSI_NS, NVME_CSI_ZNS, 2), ST_INVALID_FIELD);
	assert_int_equal(identify(f, NVME_IDENTIFY_CNS_CSI_NS, NVME_CSI_NVM, 1), 0);
	/* ZNS Identify Controller: appends up to MDTS (128 KiB here), below the backend's 256. */
	assert_int_equal(identify(f, NVME_IDENTIFY_CNS_CSI_CTRL, NVME_CSI_ZNS, 0), 0);
	assert_int_equal(f->c->buf[0], 5);
	assert_int_equal(identify(f, NVME_IDENTIFY_CNS_COMMAND_SET_STRUCTURE, 0, 0), 0);
	memcpy(&v, f->c->buf, 8);
	assert_int_equal(v, 0x5);
	/* Effects of CSI 2: the zoned commands; of CSI 0: not. */
	fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0)->cdw10 =
		NVME_LOG_LID_CMD_EFFECTS | ((4096 / 4 - 1) << 16);
	f->c->req.cmd.cdw14 = (uint32_t)NVME_CSI_ZNS << 24;
	fake_data(f->c, 4096, false);
	assert_int_equal(fake_exec(&f->ft, f->aq, f->c), 0);
	assert_true(eff->iocs[nvme_zns_cmd_append] & NVME_CMD_EFFECTS_CSUPP);
	assert_true(eff->iocs[nvme_zns_cmd_mgmt_send] & NVME_CMD_EFFECTS_LBCC);
	assert_true(eff->iocs[nvme_zns_cmd_mgmt_recv] & NVME_CMD_EFFECTS_CSUPP);
	assert_true(eff->iocs[nvme_cmd_write] & NVME_CMD_EFFECTS_CSUPP);
	assert_int_equal(fake_get_log(&f->ft, f->aq, f->c, NVME_LOG_LID_CMD_EFFECTS, 4096, 0, 0,
				      false), 0);
	assert_int_equal(eff->iocs[nvme_zns_cmd_append], 0);
}

/* 2. Writes at the write pointer; each zone status with DNR; reads back. */
static void test_write_statuses(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(write_at(f, nvme_cmd_write, 0, 6), 0);
	assert_int_equal(write_at(f, nvme_cmd_write, 8, 1), ST_ZNS(NVME_SC_ZNS_INVALID_WRITE));
	for (uint32_t lba = 6; lba < ZCAP - 8; lba += 25)
		assert_int_equal(write_at(f, nvme_cmd_write, lba, BLOX_MIN(25u, ZCAP - 8 - lba)), 0);
	assert_int_equal(write_at(f, nvme_cmd_write, ZCAP - 8, 9),
			 ST_ZNS(NVME_SC_ZNS_BOUNDARY_ERROR));
	assert_int_equal(write_at(f, nvme_cmd_write, ZCAP - 8, 8), 0);
	assert_int_equal(write_at(f, nvme_cmd_write, ZCAP, 1), ST_ZNS(NVME_SC_ZNS_FULL));
	/* Max Open 2: zones 1 and 2 opened explicitly, zone 3 cannot start. */
	assert_int_equal(zsend(f, 1, ZSIZE, NVME_ZNS_ZSA_OPEN, false), 0);
	assert_int_equal(zsend(f, 1, 2 * ZSIZE, NVME_ZNS_ZSA_OPEN, false), 0);
	assert_int_equal(write_at(f, nvme_cmd_write, 3 * ZSIZE, 1),
			 ST_ZNS(NVME_SC_ZNS_TOO_MANY_OPENS));
	assert_int_equal(zsend(f, 1, 3 * ZSIZE, NVME_ZNS_ZSA_OPEN, false),
			 ST_ZNS(NVME_SC_ZNS_TOO_MANY_OPENS));
	assert_int_equal(zsend(f, 1, 0, NVME_ZNS_ZSA_CLOSE, false),
			 ST_ZNS(NVME_SC_ZNS_INVAL_TRANSITION));
	/* Read back what zone 0 holds. */
	prep_lba(f, nvme_cmd_read, 1, 4, 4);
	fake_data(f->c, 4 * 4096, false);
	assert_int_equal(run(f, f->ioq), 0);
	for (uint32_t i = 0; i < 4 * 4096; i++)
		assert_int_equal(f->c->buf[i], (uint8_t)(4 + i / 4096));
}

/* 3. Report Zones: every zone, a filter, Partial Report, a short buffer. */
static void test_report(void **state)
{
	struct fixture *f = *state;
	const struct nvme_zns_desc *e = rep(f)->entries;

	assert_int_equal(write_at(f, nvme_cmd_write, ZSIZE, 5), 0);
	assert_int_equal(zsend(f, 1, 2 * ZSIZE, NVME_ZNS_ZSA_FINISH, false), 0);
	assert_int_equal(report(f, 0, NVME_ZNS_ZRAS_REPORT_ALL, 4096, false), 0);
	assert_int_equal(rep(f)->nr_zones, NZONES);
	assert_int_equal(e[0].zt, 2);
	assert_int_equal(e[0].zs >> 4, NVME_ZNS_ZS_EMPTY);
	assert_int_equal(e[1].zs >> 4, NVME_ZNS_ZS_IMPL_OPEN);
	assert_int_equal(e[1].zslba, ZSIZE);
	assert_int_equal(e[1].wp, ZSIZE + 5);
	assert_int_equal(e[1].zcap, ZCAP);
	assert_int_equal(e[2].zs >> 4, NVME_ZNS_ZS_FULL);
	/* From the zone holding LBA 130, full zones only. */
	assert_int_equal(report(f, ZSIZE + 2, NVME_ZNS_ZRAS_REPORT_FULL, 4096, false), 0);
	assert_int_equal(rep(f)->nr_zones, 1);
	assert_int_equal(e[0].zslba, 2 * ZSIZE);
	/* Room for two descriptors: all that match, or (partial) those returned. */
	assert_int_equal(report(f, 0, NVME_ZNS_ZRAS_REPORT_ALL, 64 * 3, false), 0);
	assert_int_equal(rep(f)->nr_zones, NZONES);
	assert_int_equal(report(f, 0, NVME_ZNS_ZRAS_REPORT_ALL, 64 * 3, true), 0);
	assert_int_equal(rep(f)->nr_zones, 2);
	/* Extended report, unknown filter, out of range. */
	prep_lba(f, nvme_zns_cmd_mgmt_recv, 1, 0, 1)->cdw13 = NVME_ZNS_ZRA_EXTENDED_REPORT_ZONES;
	f->c->req.cmd.cdw12 = 4096 / 4 - 1;
	fake_data(f->c, 4096, false);
	assert_int_equal(run(f, f->ioq), ST_INVALID_FIELD);
	assert_int_equal(report(f, 0, 9, 4096, false), ST_INVALID_FIELD);
	assert_int_equal(report(f, NZONES * ZSIZE, 0, 4096, false), ST_LBA_RANGE);
}

/* 4. Zone Append: the LBA in the completion; Select All; bad fields; a namespace not zoned. */
static void test_append_send(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(write_at(f, nvme_zns_cmd_append, 4 * ZSIZE, 3), 0);
	assert_int_equal(f->c->cqe.result, 4 * ZSIZE);
	assert_int_equal(write_at(f, nvme_zns_cmd_append, 4 * ZSIZE, 2), 0);
	assert_int_equal(f->c->cqe.result, 4 * ZSIZE + 3);
	assert_int_equal(write_at(f, nvme_zns_cmd_append, 4 * ZSIZE + 1, 2), ST_INVALID_FIELD);
	assert_int_equal(write_at(f, nvme_cmd_write, 5 * ZSIZE, 2), 0);
	assert_int_equal(zsend(f, 1, 0, NVME_ZNS_ZSA_CLOSE, true), 0);
	assert_int_equal(report(f, 0, NVME_ZNS_ZRAS_REPORT_CLOSED, 4096, false), 0);
	assert_int_equal(rep(f)->nr_zones, 2);
	assert_int_equal(zsend(f, 1, 0, NVME_ZNS_ZSA_RESET, true), 0);
	assert_int_equal(report(f, 0, NVME_ZNS_ZRAS_REPORT_EMPTY, 4096, false), 0);
	assert_int_equal(rep(f)->nr_zones, NZONES);
	assert_int_equal(zsend(f, 1, 0, 0x10, false), ST_INVALID_FIELD);
	assert_int_equal(zsend(f, 1, 0, 0, false), ST_INVALID_FIELD);
	assert_int_equal(zsend(f, 1, 3, NVME_ZNS_ZSA_OPEN, false), ST_INVALID_FIELD);
	assert_int_equal(zsend(f, 2, 0, NVME_ZNS_ZSA_OPEN, false), ST_INVALID_OPCODE);
}

/* The Changed Zone List (log BFh) of @nsid, RAE @rae: its count (NRZID) and first ZSLBA. */
static uint16_t changed_zones(struct fixture *f, uint32_t nsid, bool rae, uint16_t *nrzid,
			      uint64_t *first)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_admin_get_log_page, nsid);
	uint16_t st;

	cmd->cdw10 = NVME_LOG_LID_ZNS_CHANGED_ZONES | ((4096 / 4 - 1) << 16) |
		     (rae ? 1u << 15 : 0);
	cmd->cdw14 = (uint32_t)NVME_CSI_ZNS << 24;
	fake_data(f->c, 4096, false);
	st = fake_exec(&f->ft, f->aq, f->c);
	memcpy(nrzid, f->c->buf, 2);
	memcpy(first, f->c->buf + 8, 8);
	return st;
}

/* 5. A zone the controller finished by itself: the notice, and the Changed Zone List. */
static void test_changed_zones(void **state)
{
	struct fixture *f = *state;
	struct fake_cmd *a1 = fake_cmd_new(&f->ft), *a2 = fake_cmd_new(&f->ft);
	uint16_t n;
	uint64_t zslba;
	uint32_t lba;

	assert_int_equal(changed_zones(f, 1, false, &n, &zslba), 0);
	assert_int_equal(n, 0);
	assert_int_equal(changed_zones(f, 2, false, &n, &zslba), ST_INVALID_FIELD);
	/* Zone Descriptor Changed Notices enabled (bit 27); two requests parked. */
	assert_int_equal(fake_set_feat(&f->ft, f->aq, f->c, NVME_FEAT_FID_ASYNC_EVENT, 1u << 27), 0);
	fake_prep(&f->ft, a1, nvme_admin_async_event, 0);
	fake_submit(&f->ft, f->aq, a1);
	fake_prep(&f->ft, a2, nvme_admin_async_event, 0);
	fake_submit(&f->ft, f->aq, a2);
	/*
	 * One LBA of zone 3 and a Flush, again and again: each Flush programs
	 * the page so far from the reserve kept for flushes, until the reserve
	 * is gone and the controller finishes the zone.
	 */
	for (lba = 0; lba < ZSIZE && !a1->done; lba++) {
		assert_int_equal(write_at(f, nvme_cmd_write, 3 * ZSIZE + lba, 1), 0);
		fake_prep(&f->ft, f->c, nvme_cmd_flush, 1);
		assert_int_equal(run(f, f->ioq), 0);
	}
	assert_int_equal(a1->done, 1);
	assert_int_equal(fake_status(a1), 0);
	assert_int_equal(a1->cqe.result & 0xffffffffu, 0x02 | 0xef << 8 | 0xbf << 16);
	assert_int_equal(a1->cqe.result >> 32, 1); /* the namespace */
	assert_int_equal(report(f, 3 * ZSIZE, NVME_ZNS_ZRAS_REPORT_ALL, 4096, false), 0);
	assert_int_equal(rep(f)->entries[0].zs >> 4, NVME_ZNS_ZS_FULL);
	assert_true(rep(f)->entries[0].za & NVME_ZNS_ZA_ZFC);
	/* Masked until read without RAE; the list names zone 3 once. */
	assert_int_equal(changed_zones(f, 1, true, &n, &zslba), 0);
	assert_int_equal(n, 1);
	assert_int_equal(zslba, 3 * ZSIZE);
	assert_int_equal(changed_zones(f, 1, false, &n, &zslba), 0);
	assert_int_equal(n, 1);
	assert_int_equal(zslba, 3 * ZSIZE);
	assert_int_equal(changed_zones(f, 1, false, &n, &zslba), 0);
	assert_int_equal(n, 0);
	assert_int_equal(a2->done, 0);
	/* Host resets and writes do not count as the controller's changes. */
	assert_int_equal(zsend(f, 1, 3 * ZSIZE, NVME_ZNS_ZSA_RESET, false), 0);
	assert_int_equal(write_at(f, nvme_cmd_write, 3 * ZSIZE, 1), 0);
	assert_int_equal(changed_zones(f, 1, false, &n, &zslba), 0);
	assert_int_equal(n, 0);
	assert_int_equal(a2->done, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_statuses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_send, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_zones, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
