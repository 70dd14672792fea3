/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the NVM admin command set (admin.c, logpage.c): Identify
 * (controller, namespace, active list, descriptors), Get Log Page, Get/Set
 * Features, Abort, and invalid opcodes (AERs are in core_aer). Runs on a target with a virtual clock and a
 * fake transport (../common/fake_nvmf.h). NVM Sets and Endurance Groups
 * are in endgrp.c, predictable latency in plm.c, run from main() here.
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core_admin.h"
#include "fake_nvmf.h"

/* Namespaces of the fixture: added out of order on purpose. */
#define NS1_SIZE (1u << 20) /* 512-byte blocks: 2048 */
#define NS3_SIZE (4u << 20) /* 4096-byte blocks: 1024 */
#define NS7_SIZE (8u << 20) /* null backend, 512: 16384 */

struct fixture {
	struct fake_tgt ft;
	struct nvmf_subsys *subsys;
	struct nvmf_ns *ns1, *ns3, *ns7;
	struct fake_q *q; /* enabled admin queue */
	uint16_t cntlid;
	struct fake_cmd *c; /* scratch command */
};

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);

	f->subsys = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	f->ns7 = fake_ns(&f->ft, f->subsys, 7, "null", NS7_SIZE, 512);
	f->ns1 = fake_ns(&f->ft, f->subsys, 1, "ram", NS1_SIZE, 512);
	f->ns3 = fake_ns(&f->ft, f->subsys, 3, "ram", NS3_SIZE, 4096);
	f->q = fake_admin_q(&f->ft, NULL, FAKE_SUBNQN, &f->cntlid);
	f->c = fake_cmd_new(&f->ft);
	*state = f;
	return 0;
}

static void assert_all(const uint8_t *p, size_t len, uint8_t v)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != v)
			fail_msg("byte %zu is 0x%02x, want 0x%02x", i, p[i], v);
}

/* A fixed-size, space padded ASCII field equals @s. */
static void assert_padded(const char *field, size_t len, const char *s)
{
	size_t n = strlen(s);

	assert_true(n <= len);
	assert_memory_equal(field, s, n);
	for (size_t i = n; i < len; i++)
		if (field[i] != ' ')
			fail_msg("pad byte %zu is 0x%02x", i, (uint8_t)field[i]);
}

/* 1. Identify Controller: the fields a fabrics host depends on. */
static void test_identify_ctrl(void **state)
{
	struct fixture *f = *state;
	const struct nvme_id_ctrl *id = (const void *)f->c->buf;

	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_CTRL,
				       0),
			 0);
	assert_int_equal(id->cntlid, f->cntlid);
	assert_int_equal(id->ioccsz, (64 + 16384) / 16); /* 1028 */
	assert_int_equal(id->iorcsz, 1);
	assert_int_equal(id->icdoff, 0);
	assert_int_equal(id->msdbd, 1);
	assert_int_equal(id->sgls, 0x00100001); /* SGLs, offset in-capsule */
	assert_int_equal(id->kas, 1);
	assert_int_equal(id->mdts, 5);
	assert_int_equal(id->cntrltype, 1); /* I/O controller */
	assert_string_equal(id->subnqn, FAKE_SUBNQN);
	assert_int_equal(id->ver, 0x00010300);
	assert_int_equal(id->maxcmd, 1024);
	assert_int_equal(id->nn, 1024);
	assert_int_equal(id->sqes, 0x66);
	assert_int_equal(id->cqes, 0x44);
	assert_int_equal(id->aerl, 3);
	assert_int_equal(id->acl, 3);
	assert_int_equal(id->elpe, 63);
	/* namespace, ANA change, PLM events, zone descriptor changed */
	assert_int_equal(id->oaes, (1u << 8) | (1u << 11) | (1u << 12) | (1u << 27));
	assert_int_equal(id->oncs, 0x6d); /* compare, DSM, write zeroes, reservations, ts */
	assert_int_equal(id->vwc & 1, 1);
	assert_int_equal(id->ofcs, 1);
	assert_int_equal(id->fcatt, 0);
	assert_padded(id->mn, sizeof(id->mn), "blox NAND SSD");
	assert_padded(id->fr, sizeof(id->fr), "0.1");
	for (size_t i = 0; i < sizeof(id->sn); i++)
		assert_true(isxdigit((unsigned char)id->sn[i]));
	assert_memory_equal(id->sn, f->subsys->serial, sizeof(id->sn));
	assert_int_equal(f->c->rsp_len, 4096);

	/* Identify with a data length other than 4096: SGL length invalid. */
	fake_prep(&f->ft, f->c, nvme_admin_identify, 0)->cdw10 = 1;
	fake_data(f->c, 512, false);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_SGL_DATA_LEN);
	/* An unsupported CNS. */
	assert_int_equal(fake_identify(&f->ft, f->q, f->c, 0x10, 0),
			 ST_INVALID_FIELD);
}

/* 2. Identify Namespace: size and LBA format of each namespace. */
static void test_identify_ns(void **state)
{
	struct fixture *f = *state;
	const struct nvme_id_ns *id = (const void *)f->c->buf;
	static const struct {
		uint32_t nsid;
		uint64_t nsze;
		uint8_t ds;
	} want[] = { { 1, NS1_SIZE / 512, 9 },
		     { 3, NS3_SIZE / 4096, 12 },
		     { 7, NS7_SIZE / 512, 9 } };

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(want); i++) {
		assert_int_equal(fake_identify(&f->ft, f->q, f->c,
					       NVME_IDENTIFY_CNS_NS, want[i].nsid),
				 0);
		assert_int_equal(id->nsze, want[i].nsze);
		assert_int_equal(id->ncap, want[i].nsze);
		assert_int_equal(id->nuse, want[i].nsze);
		assert_int_equal(id->nlbaf, 0);
		assert_int_equal(id->flbas, 0);
		assert_int_equal(id->lbaf[0].ds, want[i].ds);
		assert_int_equal(id->lbaf[0].ms, 0);
		assert_int_equal(id->dlfeat & 0x7, 1); /* deallocated reads 0 */
		assert_memory_equal(id->nguid,
				    nvmf_ns_find(f->subsys, want[i].nsid)->nguid, 16);
	}
}

/* 3. A valid but inactive NSID reads as zeroes; invalid NSIDs fail. */
static void test_identify_ns_inactive_and_invalid(void **state)
{
	struct fixture *f = *state;
	static const uint32_t invalid[] = { 0, 1025, 0xfffffffe, 0xffffffff };

	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_NS, 2),
			 0);
	assert_all(f->c->buf, 4096, 0);
	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_NS,
				       1024),
			 0);
	assert_all(f->c->buf, 4096, 0);
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(invalid); i++)
		assert_int_equal(fake_identify(&f->ft, f->q, f->c,
					       NVME_IDENTIFY_CNS_NS, invalid[i]),
				 ST_INVALID_NS);
}

/* 4. Active namespace list: ascending, strictly above the NSID cursor. */
static void test_identify_active_list(void **state)
{
	struct fixture *f = *state;
	const uint32_t *list = (const void *)f->c->buf;
	static const struct {
		uint32_t cursor;
		uint32_t ids[4]; /* 0-terminated */
	} cases[] = {
		{ 0, { 1, 3, 7, 0 } },
		{ 1, { 3, 7, 0 } },
		{ 2, { 3, 7, 0 } },
		{ 6, { 7, 0 } },
		{ 7, { 0 } },
		{ 1000, { 0 } },
	};

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(cases); i++) {
		size_t n = 0;

		assert_int_equal(fake_identify(&f->ft, f->q, f->c,
					       NVME_IDENTIFY_CNS_NS_ACTIVE_LIST,
					       cases[i].cursor),
				 0);
		for (; cases[i].ids[n]; n++)
			assert_int_equal(list[n], cases[i].ids[n]);
		assert_all(f->c->buf + 4 * n, 4096 - 4 * n, 0);
	}
	assert_int_equal(fake_identify(&f->ft, f->q, f->c,
				       NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0xfffffffe),
			 ST_INVALID_NS);
	assert_int_equal(fake_identify(&f->ft, f->q, f->c,
				       NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0xffffffff),
			 ST_INVALID_NS);
}

/* Check the descriptor list in @b for @ns; copy out its NGUID and UUID. */
static void check_descs(const uint8_t *b, uint8_t nguid[16], uint8_t uuid[16])
{
	assert_int_equal(b[0], NVME_NIDT_NGUID);
	assert_int_equal(b[1], 16);
	assert_int_equal(b[2] | b[3], 0);
	memcpy(nguid, b + 4, 16);
	assert_int_equal(b[20], NVME_NIDT_UUID);
	assert_int_equal(b[21], 16);
	assert_int_equal(b[22] | b[23], 0);
	memcpy(uuid, b + 24, 16);
	assert_int_equal(b[40], NVME_NIDT_CSI);
	assert_int_equal(b[41], 1);
	assert_int_equal(b[44], 0); /* NVM command set */
	assert_all(b + 45, 4096 - 45, 0);
	assert_int_equal(uuid[6] >> 4, 5); /* name-based UUID version */
	assert_int_equal(uuid[8] >> 6, 2); /* RFC 4122 variant */
}

/* 5. Namespace descriptors: unique per namespace, stable across targets. */
static void test_identify_ns_descs(void **state)
{
	struct fixture *f = *state;
	uint8_t g1[16], u1[16], g3[16], u3[16], g1b[16], u1b[16];
	struct fake_tgt ft2;
	struct nvmf_subsys *s2;
	struct fake_q *q2;
	struct fake_cmd *c2;

	assert_int_equal(fake_identify(&f->ft, f->q, f->c,
				       NVME_IDENTIFY_CNS_NS_DESC_LIST, 1),
			 0);
	check_descs(f->c->buf, g1, u1);
	assert_memory_equal(g1, f->ns1->nguid, 16);
	assert_memory_equal(u1, f->ns1->uuid, 16);
	assert_int_equal(fake_identify(&f->ft, f->q, f->c,
				       NVME_IDENTIFY_CNS_NS_DESC_LIST, 3),
			 0);
	check_descs(f->c->buf, g3, u3);
	assert_memory_not_equal(g1, g3, 16);
	assert_memory_not_equal(u1, u3, 16);
	assert_memory_not_equal(g1, u1, 16);
	assert_int_equal(fake_identify(&f->ft, f->q, f->c,
				       NVME_IDENTIFY_CNS_NS_DESC_LIST, 2),
			 ST_INVALID_NS);

	/* Same NQN and nsid on another target: the same identifiers. */
	fake_tgt_init(&ft2);
	s2 = fake_subsys(&ft2, FAKE_SUBNQN, true);
	fake_ns(&ft2, s2, 1, "null", 2 << 20, 4096);
	q2 = fake_q_new(&ft2);
	fake_admin_up(&ft2, q2, FAKE_SUBNQN);
	c2 = fake_cmd_new(&ft2);
	assert_int_equal(fake_identify(&ft2, q2, c2, NVME_IDENTIFY_CNS_NS_DESC_LIST,
				       1),
			 0);
	check_descs(c2->buf, g1b, u1b);
	assert_memory_equal(g1, g1b, 16);
	assert_memory_equal(u1, u1b, 16);
	fake_tgt_fini(&ft2);
}

/* 6. Opcodes the admin set does not implement. */
static void test_invalid_admin_opcode(void **state)
{
	struct fixture *f = *state;
	static const uint8_t ops[] = { 0x00 /* delete sq */, 0x01 /* create sq */,
				       0x10 /* fw commit */, 0x80 /* format */,
				       0xc0, 0xff };

	for (size_t i = 0; i < sizeof(ops); i++) {
		fake_prep(&f->ft, f->c, ops[i], 0);
		if (fake_exec(&f->ft, f->q, f->c) != ST_INVALID_OPCODE)
			fail_msg("opcode 0x%02x: status 0x%x", ops[i],
				 fake_status(f->c));
	}
}

/* 7. Log pages 00h, 03h, 05h: fixed contents. */
static void test_log_static_pages(void **state)
{
	struct fixture *f = *state;
	const uint32_t *sup = (const void *)f->c->buf;
	const struct nvme_firmware_slot *fw = (const void *)f->c->buf;
	const struct nvme_cmd_effects_log *fx = (const void *)f->c->buf;

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c,
				      NVME_LOG_LID_SUPPORTED_LOG_PAGES, 1024, 0, 0,
				      false),
			 0);
	for (unsigned lid = 0; lid < 256; lid++)
		assert_int_equal(sup[lid], lid <= 5 || lid == NVME_LOG_LID_ENDURANCE_GROUP ||
						   lid == NVME_LOG_LID_ENDURANCE_GRP_EVT ||
						   lid == NVME_LOG_LID_PREDICTABLE_LAT_NVMSET ||
						   lid == NVME_LOG_LID_PREDICTABLE_LAT_AGG ||
						   lid == NVME_LOG_LID_ZNS_CHANGED_ZONES ||
						   lid == NVME_LOG_LID_RESERVATION || lid == NVME_LOG_LID_ANA ||
						   (lid >= NVME_LOG_LID_FDP_CONFIGS &&
						    lid <= NVME_LOG_LID_FDP_EVENTS)
					   ? 1
					   : 0);

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_FW_SLOT, 512,
				      0, 0, false),
			 0);
	assert_int_equal(fw->afi, 1);
	assert_padded(fw->frs[0], 8, "0.1");
	assert_all((const uint8_t *)fw->frs[1], 6 * 8, 0);

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_CMD_EFFECTS,
				      4096, 0, 0, false),
			 0);
	assert_int_equal(fx->acs[nvme_admin_identify], 1);
	assert_int_equal(fx->acs[nvme_admin_get_log_page], 1);
	assert_int_equal(fx->acs[nvme_admin_keep_alive], 1);
	assert_int_equal(fx->acs[nvme_admin_format_nvm], 0);
	assert_int_equal(fx->iocs[nvme_cmd_read], 1);
	assert_int_equal(fx->iocs[nvme_cmd_write], 3); /* CSUPP | LBCC */
	assert_int_equal(fx->iocs[nvme_cmd_dsm], 3);
	assert_int_equal(fx->iocs[nvme_cmd_write_zeroes], 3);
	assert_int_equal(fx->iocs[nvme_cmd_compare], 1);
	assert_int_equal(fx->iocs[nvme_cmd_flush], 1);
	assert_int_equal(fx->iocs[nvme_cmd_resv_register], 1);
	assert_int_equal(fx->iocs[nvme_cmd_resv_release], 1);
	assert_int_equal(fx->iocs[nvme_cmd_verify], 0);
}

/* 8. SMART / health: per namespace and for all, counts from the I/O. */
static void test_log_smart(void **state)
{
	struct fixture *f = *state;
	const struct nvme_smart_log *sl = (const void *)f->c->buf;

	f->ns1->stats.read_cmds = 3;
	f->ns1->stats.read_bytes = 3 * 4096;
	f->ns1->stats.write_cmds = 2;
	f->ns1->stats.write_bytes = 512 * 1000 * 2 + 512; /* 2001 units */
	f->ns3->stats.read_cmds = 10;
	f->ns3->stats.read_bytes = 10 * 512;

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512,
				      0, 0xffffffff, false),
			 0);
	assert_int_equal(le16_get(sl->temperature), 308);
	assert_int_equal(sl->avail_spare, 100);
	assert_int_equal(sl->spare_thresh, 10);
	assert_int_equal(sl->critical_warning, 0);
	assert_int_equal(le64_get(sl->host_reads), 13);
	assert_int_equal(le64_get(sl->host_writes), 2);
	assert_int_equal(le64_get(sl->data_units_read), 1); /* 34 -> 1 */
	assert_int_equal(le64_get(sl->data_units_written), 3); /* 2001 -> 3 */
	assert_int_equal(le64_get(sl->power_cycles), 1);

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512,
				      0, 3, false),
			 0);
	assert_int_equal(le64_get(sl->host_reads), 10);
	assert_int_equal(le64_get(sl->host_writes), 0);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512,
				      0, 2, false),
			 ST_INVALID_NS);
}

/* 9. Log page errors: unknown id, unaligned or past-the-end offset, too
 * long; a slice at an offset equals the same bytes of the whole page.
 */
static void test_log_errors_and_offsets(void **state)
{
	struct fixture *f = *state;
	uint8_t whole[512];

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, 0x0d, 512, 0, 0, false),
			 ST_INVALID_LOG_PAGE);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_DISCOVER,
				      1024, 0, 0, false),
			 ST_INVALID_LOG_PAGE);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512,
				      2, 0, false),
			 ST_INVALID_FIELD);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512,
				      1ull << 32, 0, false),
			 ST_INVALID_FIELD);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512,
				      516, 0, false),
			 ST_INVALID_FIELD);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART,
				      NVMF_MAX_XFER + 4, 0, 0, false),
			 ST_INVALID_FIELD);

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_FW_SLOT, 512,
				      0, 0, false),
			 0);
	memcpy(whole, f->c->buf, sizeof(whole));
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_FW_SLOT, 16,
				      8, 0, false),
			 0);
	assert_memory_equal(f->c->buf, whole + 8, 16);
	/* Reading past the end of the page zero-fills the rest. */
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_FW_SLOT, 64,
				      480, 0, false),
			 0);
	assert_memory_equal(f->c->buf, whole + 480, 32);
	assert_all(f->c->buf + 32, 32, 0);
	assert_int_equal(f->c->rsp_len, 64);
}

/* 10. The error log records failed commands, newest first. */
static void test_log_error(void **state)
{
	struct fixture *f = *state;
	const struct nvme_error_log_page *e = (const void *)f->c->buf;
	uint16_t cid1, cid2;

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_ERROR, 4096,
				      0, 0, false),
			 0);
	assert_all(f->c->buf, 4096, 0);

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, 0x0d, 4, 0, 9, false),
			 ST_INVALID_LOG_PAGE);
	cid1 = f->c->req.cmd.cid;
	fake_prep(&f->ft, f->c, 0x80, 5);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_INVALID_OPCODE);
	cid2 = f->c->req.cmd.cid;

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_ERROR, 4096,
				      0, 0, false),
			 0);
	assert_int_equal(e[0].error_count, 2);
	assert_int_equal(e[0].sqid, 0);
	assert_int_equal(e[0].cmdid, cid2);
	assert_int_equal(e[0].status_field, ST_INVALID_OPCODE << 1);
	assert_int_equal(e[0].parm_error_location, 0); /* opcode byte */
	assert_int_equal(e[0].nsid, 5);
	assert_int_equal(e[0].trtype, NVMF_TRTYPE_TCP);
	assert_int_equal(e[1].error_count, 1);
	assert_int_equal(e[1].cmdid, cid1);
	assert_int_equal(e[1].status_field, ST_INVALID_LOG_PAGE << 1);
	assert_int_equal(e[1].parm_error_location, 40); /* CDW10 */
	assert_int_equal(e[1].nsid, 9);
	assert_all((const uint8_t *)&e[2], 4096 - 2 * sizeof(*e), 0);

	/* SMART counts the error log entries. */
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512,
				      0, 0, false),
			 0);
	assert_int_equal(le64_get(((const struct nvme_smart_log *)f->c->buf)
					  ->num_err_log_entries),
			 2);

	/* The ring keeps the newest 64 entries. */
	for (int i = 0; i < 70; i++) {
		fake_prep(&f->ft, f->c, 0x80, 0);
		assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_INVALID_OPCODE);
	}
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_ERROR, 4096,
				      0, 0, false),
			 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(e[i].error_count, 72 - i);
}

/* 11. Number of Queues: capped at 64, 0's based result; FFFFh invalid. */
static void test_features_num_queues(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_NUM_QUEUES,
				       0),
			 0);
	assert_int_equal(f->c->cqe.result, 0x003f003f);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_NUM_QUEUES,
				       3 | 5u << 16),
			 0);
	assert_int_equal(f->c->cqe.result, 0x00050003);
	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_NUM_QUEUES,
				       0),
			 0);
	assert_int_equal(f->c->cqe.result, 0x00030003); /* min(4, 6) - 1 */
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_NUM_QUEUES,
				       200 | 300u << 16),
			 0);
	assert_int_equal(f->c->cqe.result, 0x003f003f);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_NUM_QUEUES,
				       0xffff),
			 ST_INVALID_FIELD);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_NUM_QUEUES,
				       0xffffu << 16),
			 ST_INVALID_FIELD);
}

/* 12. KATO, Async Event Configuration, Volatile WC, Arbitration, SEL. */
static void test_features_simple(void **state)
{
	struct fixture *f = *state;
	static const uint8_t fids[] = { NVME_FEAT_FID_KATO,
					NVME_FEAT_FID_ASYNC_EVENT,
					NVME_FEAT_FID_ARBITRATION };
	static const uint32_t vals[] = { 5000, 0x100, 0x03020107 };

	for (size_t i = 0; i < sizeof(fids); i++) {
		assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, fids[i], vals[i]),
				 0);
		assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, fids[i], 0), 0);
		assert_int_equal(f->c->cqe.result, vals[i]);
	}
	assert_int_equal(f->q->sq.ctrl->kato_ms, 5000);
	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_ASYNC_EVENT,
				       NVME_GET_FEATURES_SEL_DEFAULT),
			 0);
	assert_int_equal(f->c->cqe.result, 0);

	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_VOLATILE_WC,
				       0),
			 0);
	assert_int_equal(f->c->cqe.result, 1);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_VOLATILE_WC,
				       0),
			 0);
	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_VOLATILE_WC,
				       0),
			 0);
	assert_int_equal(f->c->cqe.result, 0);
	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_VOLATILE_WC,
				       NVME_GET_FEATURES_SEL_DEFAULT),
			 0);
	assert_int_equal(f->c->cqe.result, 1);

	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_KATO,
				       NVME_GET_FEATURES_SEL_SUPPORTED),
			 0);
	assert_int_equal(f->c->cqe.result, 1u << 2); /* changeable only */
	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_KATO, 4),
			 ST_INVALID_FIELD);

	/* Save bit: Feature Identifier Not Saveable (SCT 1 / 0x0d). */
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 0)->cdw10 =
		NVME_FEAT_FID_KATO | 1u << 31;
	f->c->req.cmd.cdw11 = 1234;
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_NOT_SAVEABLE);
	assert_int_equal(f->q->sq.ctrl->kato_ms, 5000);

	/* Unknown features. */
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, 0x7f, 0),
			 ST_INVALID_FIELD);
	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, 0x7f, 0),
			 ST_INVALID_FIELD);
}

/* Get Features Timestamp: the 48-bit value and the attribute byte. */
static uint64_t get_timestamp(struct fixture *f, uint8_t *attr)
{
	uint64_t ms = 0;

	fake_prep(&f->ft, f->c, nvme_admin_get_features, 0)->cdw10 =
		NVME_FEAT_FID_TIMESTAMP;
	fake_data(f->c, 8, false);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
	memcpy(&ms, f->c->buf, 6);
	*attr = f->c->buf[6];
	return ms;
}

/* 13. Timestamp: counts from controller creation, then from the host's
 * value; advances with the (virtual) clock in milliseconds.
 */
static void test_features_timestamp(void **state)
{
	struct fixture *f = *state;
	const uint64_t host_ms = 0x0123456789abull;
	uint8_t attr;

	blox_clock_set(&f->ft.clock, FAKE_START_NS + 1500 * 1000000ull);
	assert_int_equal(get_timestamp(f, &attr), 1500);
	assert_int_equal(attr & 0x0e, 0); /* origin: reset */

	fake_prep(&f->ft, f->c, nvme_admin_set_features, 0)->cdw10 =
		NVME_FEAT_FID_TIMESTAMP;
	fake_data(f->c, 8, true);
	memset(f->c->buf, 0, 8);
	memcpy(f->c->buf, &host_ms, 6);
	f->c->buf[6] = 0xff; /* attribute byte is not part of the value */
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
	assert_int_equal(get_timestamp(f, &attr), host_ms);
	assert_int_equal(attr & 0x0e, 0x02); /* origin: set by host */

	blox_clock_set(&f->ft.clock, FAKE_START_NS + 1500 * 1000000ull +
					    2345 * 1000000ull + 999999);
	assert_int_equal(get_timestamp(f, &attr), host_ms + 2345);

	/* Timestamp carries 8 bytes of data; 4 is a length mismatch. */
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 0)->cdw10 =
		NVME_FEAT_FID_TIMESTAMP;
	fake_data(f->c, 4, true);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_SGL_DATA_LEN);
}

/* 14. Host Identifier: the 128-bit form returns the Connect HOSTID. */
static void test_features_host_id(void **state)
{
	struct fixture *f = *state;
	uint8_t want[16];

	memcpy(want, f->q->sq.ctrl->hostid, 16);
	fake_prep(&f->ft, f->c, nvme_admin_get_features, 0)->cdw10 =
		NVME_FEAT_FID_HOST_ID;
	f->c->req.cmd.cdw11 = 1; /* EXHID */
	fake_data(f->c, 16, false);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
	assert_memory_equal(f->c->buf, want, 16);

	fake_prep(&f->ft, f->c, nvme_admin_get_features, 0)->cdw10 =
		NVME_FEAT_FID_HOST_ID;
	fake_data(f->c, 8, false);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_INVALID_FIELD);
	/* Set Host Identifier is a Connect matter on fabrics. */
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_HOST_ID, 1),
			 ST_CMD_SEQ);
}

/* 15. Abort: result bit 0 set (command not aborted); Keep Alive works. */
static void test_abort_and_keep_alive(void **state)
{
	struct fixture *f = *state;

	fake_prep(&f->ft, f->c, nvme_admin_abort_cmd, 0)->cdw10 = 0 | 77u << 16;
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
	assert_int_equal(f->c->cqe.result, 1);
	fake_prep(&f->ft, f->c, nvme_admin_keep_alive, 0);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
	assert_int_equal(f->c->cqe.result, 0);
}

/* 16. NUMDU counts too: 65537 dwords is over MDTS. */
static void test_log_numdu(void **state)
{
	struct fixture *f = *state;

	fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0)->cdw10 =
		NVME_LOG_LID_ERROR | 0u << 16;
	f->c->req.cmd.cdw11 = 1; /* NUMDU: + 65536 dwords */
	fake_data(f->c, 4, false);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_INVALID_FIELD);
}

/* Identify @cns with CSI @csi (CDW11 bits 31:24) for @nsid; the status. */
static uint16_t identify_csi(struct fixture *f, uint8_t cns, uint8_t csi, uint32_t nsid)
{
	fake_prep(&f->ft, f->c, nvme_admin_identify, nsid)->cdw10 = cns;
	f->c->req.cmd.cdw11 = (uint32_t)csi << 24;
	fake_data(f->c, 4096, false);
	memset(f->c->buf, 0xaa, 4096);
	return fake_exec(&f->ft, f->q, f->c);
}

/*
 * 17. I/O Command Set specific Identify Controller (CNS 06h) and
 * Namespace (05h) of the NVM command set: all zeroes, as nvmet answers,
 * and no error log entry (Linux 6.1 asks for 06h at every connect); a
 * command set other than NVM and zoned is an invalid field in CDW11.
 */
static void test_identify_cs(void **state)
{
	struct fixture *f = *state;
	uint64_t errs = f->q->sq.ctrl->err_count;

	assert_int_equal(identify_csi(f, NVME_IDENTIFY_CNS_CSI_CTRL, NVME_CSI_NVM, 0), 0);
	assert_all(f->c->buf, 4096, 0);
	assert_int_equal(identify_csi(f, NVME_IDENTIFY_CNS_CSI_NS, NVME_CSI_NVM, 3), 0);
	assert_all(f->c->buf, 4096, 0);
	assert_int_equal(f->q->sq.ctrl->err_count, errs);

	assert_int_equal(identify_csi(f, NVME_IDENTIFY_CNS_CSI_NS, NVME_CSI_NVM, 2),
			 ST_INVALID_NS);
	/* The zoned command set answers (zns_cmd.c, unit_core_zns); key value does not. */
	assert_int_equal(identify_csi(f, NVME_IDENTIFY_CNS_CSI_CTRL, NVME_CSI_KV, 0),
			 ST_INVALID_FIELD);
	assert_int_equal(f->q->sq.ctrl->err_count, errs + 2);
	assert_int_equal(f->q->sq.ctrl->errors[(errs + 1) % NVMF_ERR_LOG_ENTRIES]
				 .parm_error_location,
			 offsetof(struct nvme_sqe, cdw11));
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fake_fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_identify_ctrl),
		T(test_identify_ns),
		T(test_identify_ns_inactive_and_invalid),
		T(test_identify_active_list),
		T(test_identify_ns_descs),
		T(test_invalid_admin_opcode),
		T(test_log_static_pages),
		T(test_log_smart),
		T(test_log_errors_and_offsets),
		T(test_log_error),
		T(test_features_num_queues),
		T(test_features_simple),
		T(test_features_timestamp),
		T(test_features_host_id),
		T(test_abort_and_keep_alive),
		T(test_log_numdu),
		T(test_identify_cs),
#define F(fn) cmocka_unit_test_setup_teardown(fn, fdp_setup, fake_fixture_teardown)
		F(test_fdp_events_enabled),
		F(test_fdp_events_overflow),
		F(test_fdp_events_kinds),
		F(test_fdp_group_mix),
#define E(fn) cmocka_unit_test_setup_teardown(fn, endgrp_setup, endgrp_teardown)
		E(test_endgrp_identify_ctrl),
		E(test_endgrp_identify_ns),
		E(test_endgrp_nvmset_list),
		E(test_endgrp_nvmset_list_full),
		E(test_endgrp_list),
		E(test_endgrp_log),
		E(test_endgrp_log_unknown),
		E(test_endgrp_log_offsets_and_events),
		E(test_endgrp_smart_summary),
		E(test_endgrp_smart_warnings),
		E(test_endgrp_ids_stable),
		E(test_endgrp_discovery),
		E(test_endgrp_nand),
#undef E
#define P(fn) cmocka_unit_test_setup_teardown(fn, plm_setup, plm_teardown)
#define PL(fn) cmocka_unit_test_setup_teardown(fn, plm_setup_loop, plm_teardown)
		P(test_plm_identify),
		P(test_plm_config),
		P(test_plm_config_refused),
		P(test_plm_window),
		PL(test_plm_window_held),
		P(test_plm_log_set),
		P(test_plm_events),
		P(test_plm_rrl),
		P(test_plm_ns_gone),
		P(test_plm_ns_gone_disables),
		PL(test_plm_nand),
#undef P
#undef PL
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
