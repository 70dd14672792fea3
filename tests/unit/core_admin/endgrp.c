/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVM Sets and Endurance Groups through the NVMe core (endgrp.c,
 * admin_cmd.c, logpage.c): Identify Controller and Namespace fields, the
 * NVM Set List (CNS 04h) and Endurance Group List (CNS 19h) from a
 * starting id, the Endurance Group Information log (LID 09h) of each group
 * and the error for a group no namespace is in, the SMART log's summary of
 * group warnings, SMART's spare, wear and critical warnings from the flash and
 * their events, and the id rule: namespaces on one pool of shared dies
 * share a group, any other is a group of its own, ids stay while the
 * namespaces do. The namespaces are fake flash backends whose figures the
 * test sets (endgrp_nand.c puts real "nand" namespaces on shared and own
 * dies).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core_admin.h"
#include "endgrp.h"

#define POOL_A 0xa11ceull
#define POOL_B 0xb0bull

static void ffl_submit(struct blox_bdev *b, struct blox_io *io)
{
	io->status = 0;
	blox_io_cq_post(b->cq, io);
}

static void ffl_destroy(struct blox_bdev *b)
{
	free(container_of(b, struct ffl, base));
}

static void ffl_endurance(struct blox_bdev *b, struct blox_bdev_endurance *e)
{
	*e = container_of(b, struct ffl, base)->e;
}

static const struct blox_bdev_ops ffl_ops = {
	.name = "fake-flash",
	.submit = ffl_submit,
	.destroy = ffl_destroy,
	.endurance = ffl_endurance,
};

static struct ffl *ffl_add(struct efx *f, uint32_t nsid, const struct blox_bdev_endurance *e)
{
	struct ffl *b = calloc(1, sizeof(*b));

	assert_non_null(b);
	b->base.ops = &ffl_ops;
	b->base.size = 64 * MiB;
	b->base.block_size = 4096;
	b->base.cq = &f->ft.tgt.io_cq;
	b->e = *e;
	assert_int_equal(nvmf_ns_add(f->s, nsid, &b->base, NULL, &f->ns[nsid]), 0);
	f->fl[nsid] = b;
	return b;
}

/*
 * Added in this order: 4 and 2 on pool A (group 4: the first added), 1 a
 * ram namespace (group 1), 3 fake flash of its own although its key is
 * A's (group 3), 5 and 6 on pool B (group 5), 7 a null namespace (7).
 */
int endgrp_setup(void **state)
{
	struct efx *f = FAKE_FIXTURE_NEW(struct efx);
	struct blox_bdev_endurance e4 = {
		.shared_pool = true, .pool_key = POOL_A, .percent_used = 7,
		.avail_spare = 40, .spare_threshold = 5,
		.host_read_bytes = 1500000000ull, .host_written_bytes = 2000000000ull,
		.media_written_bytes = 5000000001ull, .endurance_bytes = 3000000000000ull,
		.total_bytes = 80ull * MiB, .unalloc_bytes = 16ull * MiB,
		.read_4k_ns = 75000, .opt_write_bytes = 16384,
	};
	struct blox_bdev_endurance e2 = {
		.shared_pool = true, .pool_key = POOL_A, .percent_used = 9,
		.avail_spare = 12, .spare_threshold = 10,
		.host_read_bytes = 1, .media_written_bytes = 4096,
		.endurance_bytes = 1000000000000ull,
		.total_bytes = 70ull * MiB, .unalloc_bytes = 6ull * MiB,
		.read_4k_ns = 75001, .opt_write_bytes = 16384,
	};
	struct blox_bdev_endurance e3 = {
		.shared_pool = false, .pool_key = POOL_A, .percent_used = 200,
		.avail_spare = 3, .spare_threshold = 5, .read_only = true,
		.total_bytes = 64ull * MiB, .read_4k_ns = 99, .opt_write_bytes = 4096,
	};
	struct blox_bdev_endurance e5 = {
		.shared_pool = true, .pool_key = POOL_B, .percent_used = 1,
		.avail_spare = 100, .spare_threshold = 5, .total_bytes = 64ull * MiB,
	};

	f->s = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	ffl_add(f, 4, &e4);
	ffl_add(f, 2, &e2);
	f->ns[1] = fake_ns(&f->ft, f->s, 1, "ram", 1 * MiB, 512);
	ffl_add(f, 3, &e3);
	ffl_add(f, 5, &e5);
	ffl_add(f, 6, &e5);
	f->ns[7] = fake_ns(&f->ft, f->s, 7, "null", 8 * MiB, 512);
	f->q = fake_admin_q(&f->ft, NULL, FAKE_SUBNQN, NULL);
	f->c = fake_cmd_new(&f->ft);
	*state = f;
	return 0;
}

int endgrp_teardown(void **state)
{
	return fake_fixture_teardown(state);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

uint64_t endgrp_get128(const uint8_t *p)
{
	for (int i = 8; i < 16; i++)
		assert_int_equal(p[i], 0);
	return get64(p);
}

static void assert_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			fail_msg("byte %zu is 0x%02x, want 0", i, p[i]);
}

/* Identify with CDW11 (the CNS specific identifier). */
static uint16_t identify11(struct efx *f, uint8_t cns, uint32_t cdw11)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_admin_identify, 0);

	cmd->cdw10 = cns;
	cmd->cdw11 = cdw11;
	fake_data(f->c, 4096, false);
	memset(f->c->buf, 0xaa, 4096);
	return fake_exec(&f->ft, f->q, f->c);
}

/* Endurance Group Information log of @endgid, @len bytes from @offset. */
static uint16_t endgrp_log(struct efx *f, uint32_t endgid, uint32_t len, uint64_t offset)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0);
	uint32_t numd = len / 4 - 1;

	cmd->cdw10 = NVME_LOG_LID_ENDURANCE_GROUP | (numd & 0xffff) << 16;
	cmd->cdw11 = numd >> 16 | endgid << 16;
	cmd->cdw12 = (uint32_t)offset;
	cmd->cdw13 = (uint32_t)(offset >> 32);
	fake_data(f->c, len, false);
	memset(f->c->buf, 0xaa, len);
	return fake_exec(&f->ft, f->q, f->c);
}

/* 1. Identify Controller: NVM Sets and Endurance Groups supported, ids up to 1024. */
void test_endgrp_identify_ctrl(void **state)
{
	struct efx *f = *state;
	const struct nvme_id_ctrl *id = (const void *)f->c->buf;

	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_CTRL, 0), 0);
	assert_int_equal(id->ctratt, NVME_CTRL_CTRATT_128_ID | NVME_CTRL_CTRATT_NVM_SETS |
					     NVME_CTRL_CTRATT_READ_RECV_LVLS |
					     NVME_CTRL_CTRATT_ENDURANCE_GROUPS |
					     NVME_CTRL_CTRATT_PREDICTABLE_LAT | NVME_CTRL_CTRATT_TBKAS |
					     NVME_CTRL_CTRATT_FDPS);
	/* + read recovery levels, predictable latency (plm.c), FDP (fdp.c) */
	assert_int_equal(id->ctratt, 0x8007d);
	assert_true(id->oacs & NVME_CTRL_OACS_DIRECTIVES);
	assert_int_equal(id->nsetidmax, 1024);
	assert_int_equal(id->endgidmax, 1024);
	/* No Endurance Group event notices are sent. */
	assert_int_equal(id->oaes & (1u << 14), 0);
}

/* 2. Identify Namespace: NVMSETID is the NSID, ENDGID as the rule gives. */
void test_endgrp_identify_ns(void **state)
{
	struct efx *f = *state;
	const struct nvme_id_ns *id = (const void *)f->c->buf;
	static const uint16_t endgid[8] = { 0, 1, 4, 3, 4, 5, 5, 7 };

	for (uint32_t nsid = 1; nsid <= 7; nsid++) {
		assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_NS, nsid),
				 0);
		assert_int_equal(id->nvmsetid, nsid);
		assert_int_equal(id->endgid, endgid[nsid]);
	}
	/* Inactive: all zeroes, no set, no group. */
	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_NS, 9), 0);
	assert_int_equal(id->nvmsetid, 0);
	assert_int_equal(id->endgid, 0);
}

/* 3. NVM Set List from a starting id: one set per namespace, its figures. */
void test_endgrp_nvmset_list(void **state)
{
	struct efx *f = *state;
	const struct nvme_id_nvmset_list *l = (const void *)f->c->buf;
	static const struct {
		uint32_t first;
		uint32_t ids[8]; /* 0-terminated */
	} cases[] = {
		{ 0, { 1, 2, 3, 4, 5, 6, 7, 0 } },
		{ 1, { 1, 2, 3, 4, 5, 6, 7, 0 } },
		{ 3, { 3, 4, 5, 6, 7, 0 } },
		{ 7, { 7, 0 } },
		{ 8, { 0 } },
		{ 0xffff, { 0 } },
		{ 0x00050004, { 4, 5, 6, 7, 0 } }, /* bits 31:16 are not the id */
	};
	static const uint16_t endgid[8] = { 0, 1, 4, 3, 4, 5, 5, 7 };

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(cases); i++) {
		size_t n = 0;

		assert_int_equal(identify11(f, NVME_IDENTIFY_CNS_NVMSET_LIST, cases[i].first), 0);
		for (; cases[i].ids[n]; n++) {
			assert_int_equal(l->ent[n].nvmsetid, cases[i].ids[n]);
			assert_int_equal(l->ent[n].endgid, endgid[cases[i].ids[n]]);
		}
		assert_int_equal(l->nid, n);
		assert_zero(l->rsvd1, sizeof(l->rsvd1));
		assert_zero((const uint8_t *)&l->ent[n], sizeof(l->ent[0]) * (31 - n));
	}

	/* What the backends tell, per set. */
	assert_int_equal(identify11(f, NVME_IDENTIFY_CNS_NVMSET_LIST, 0), 0);
	/* 1: ram, no flash figures; capacity its size, all of it used. */
	assert_int_equal(l->ent[0].rr4kt, 0);
	assert_int_equal(l->ent[0].ows, 0);
	assert_int_equal(endgrp_get128(l->ent[0].tnvmsetcap), 1 * MiB);
	assert_int_equal(endgrp_get128(l->ent[0].unvmsetcap), 0);
	/* 2: 75001 ns is 751 in 100 ns units, rounded up. */
	assert_int_equal(l->ent[1].rr4kt, 751);
	assert_int_equal(l->ent[1].ows, 16384);
	assert_int_equal(endgrp_get128(l->ent[1].tnvmsetcap), 70ull * MiB);
	assert_int_equal(endgrp_get128(l->ent[1].unvmsetcap), 6ull * MiB);
	/* 3: 99 ns rounds up to 1. */
	assert_int_equal(l->ent[2].rr4kt, 1);
	assert_int_equal(l->ent[2].ows, 4096);
	/* 4 */
	assert_int_equal(l->ent[3].rr4kt, 750);
	assert_int_equal(endgrp_get128(l->ent[3].tnvmsetcap), 80ull * MiB);
	assert_int_equal(endgrp_get128(l->ent[3].unvmsetcap), 16ull * MiB);
	/* 7: null */
	assert_int_equal(endgrp_get128(l->ent[6].tnvmsetcap), 8 * MiB);
	assert_zero(l->ent[0].rsvd4, sizeof(l->ent[0].rsvd4));
	assert_zero(l->ent[0].rsvd48, sizeof(l->ent[0].rsvd48));
}

/* 4. More sets than one list holds: 31 at a time, ascending. */
void test_endgrp_nvmset_list_full(void **state)
{
	struct efx *f = *state;
	const struct nvme_id_nvmset_list *l = (const void *)f->c->buf;
	uint32_t want = 1, seen = 0, first = 0;

	for (uint32_t nsid = 10; nsid < 50; nsid++)
		f->ns[nsid] = fake_ns(&f->ft, f->s, nsid, "ram", 1 * MiB, 512);
	/* 47 sets: 1..7, 10..49; read them as a host would, 31 at a time. */
	for (int round = 0; round < 2; round++) {
		assert_int_equal(identify11(f, NVME_IDENTIFY_CNS_NVMSET_LIST, first), 0);
		assert_int_equal(l->nid, round == 0 ? 31 : 47 - 31);
		for (uint32_t i = 0; i < l->nid; i++) {
			if (want == 8)
				want = 10;
			assert_int_equal(l->ent[i].nvmsetid, want);
			/* Each ram namespace is a group of its own, its NSID. */
			if (want >= 10)
				assert_int_equal(l->ent[i].endgid, want);
			want++;
			seen++;
		}
		first = l->ent[l->nid - 1].nvmsetid + 1u;
	}
	assert_int_equal(seen, 47);
	assert_int_equal(identify11(f, NVME_IDENTIFY_CNS_NVMSET_LIST, first), 0);
	assert_int_equal(l->nid, 0);
}

/* 5. Endurance Group List (CNS 19h): the groups from an id on, ascending. */
void test_endgrp_list(void **state)
{
	struct efx *f = *state;
	const struct nvme_id_endurance_group_list *l = (const void *)f->c->buf;
	static const struct {
		uint32_t first;
		uint16_t ids[6]; /* 0-terminated */
	} cases[] = {
		{ 0, { 1, 3, 4, 5, 7, 0 } }, { 1, { 1, 3, 4, 5, 7, 0 } },
		{ 2, { 3, 4, 5, 7, 0 } },    { 4, { 4, 5, 7, 0 } },
		{ 6, { 7, 0 } },	     { 8, { 0 } },
		{ 0xffff, { 0 } },
	};

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(cases); i++) {
		size_t n = 0;

		assert_int_equal(identify11(f, NVME_IDENTIFY_CNS_ENDURANCE_GROUP_ID,
					    cases[i].first),
				 0);
		for (; cases[i].ids[n]; n++)
			assert_int_equal(l->identifier[n], cases[i].ids[n]);
		assert_int_equal(l->num, n);
		assert_zero((const uint8_t *)&l->identifier[n], 4096 - 2 - 2 * n);
	}
}

/* 6. Endurance Group Information: each group over its namespaces. */
void test_endgrp_log(void **state)
{
	struct efx *f = *state;
	const struct nvme_endurance_group_log *l = (const void *)f->c->buf;
	const uint8_t *b = f->c->buf;

	f->ns[2]->stats.read_cmds = 3;
	f->ns[2]->stats.write_cmds = 4;
	f->ns[4]->stats.read_cmds = 10;
	f->ns[4]->stats.write_cmds = 20;
	f->ns[4]->stats.errors = 2;
	f->ns[1]->stats.read_bytes = 1000000001;
	f->ns[1]->stats.write_bytes = 999999999;
	f->ns[1]->stats.read_cmds = 5;

	/* Group 4: namespaces 2 and 4 on pool A. */
	assert_int_equal(endgrp_log(f, 4, 512, 0), 0);
	assert_int_equal(l->critical_warning, 0);
	/* The spare closest to its threshold: 2's 12 over 10 (4 has 40 over 5). */
	assert_int_equal(l->avl_spare, 12);
	assert_int_equal(l->avl_spare_threshold, 10);
	assert_int_equal(l->percent_used, 9); /* the most worn */
	/* Billions of bytes, rounded up. */
	assert_int_equal(endgrp_get128(l->endurance_estimate), 4000);
	assert_int_equal(endgrp_get128(l->data_units_read), 2); /* 1.5e9 + 1 */
	assert_int_equal(endgrp_get128(l->data_units_written), 2); /* 2e9 exactly */
	assert_int_equal(endgrp_get128(l->media_units_written), 6); /* 5e9 + 4097 */
	assert_int_equal(endgrp_get128(l->host_read_cmds), 13);
	assert_int_equal(endgrp_get128(l->host_write_cmds), 24);
	assert_int_equal(endgrp_get128(l->media_data_integrity_err), 0);
	assert_int_equal(endgrp_get128(l->num_err_info_log_entries), 2);
	assert_int_equal(endgrp_get128(b + 160), 150ull * MiB); /* TEGCAP */
	assert_int_equal(endgrp_get128(b + 176), 22ull * MiB); /* UEGCAP */
	assert_zero(b + 1, 2);
	assert_zero(b + 6, 26);
	assert_zero(b + 192, 512 - 192);

	/* Group 3: of its own, below its spare threshold and read-only. */
	assert_int_equal(endgrp_log(f, 3, 512, 0), 0);
	assert_int_equal(l->critical_warning,
			 NVME_EG_CRITICAL_WARNING_SPARE | NVME_EG_CRITICAL_WARNING_READ_ONLY);
	assert_int_equal(l->avl_spare, 3);
	assert_int_equal(l->avl_spare_threshold, 5);
	assert_int_equal(l->percent_used, 200);
	assert_int_equal(endgrp_get128(l->endurance_estimate), 0); /* not reported */
	assert_int_equal(endgrp_get128(b + 160), 64ull * MiB);

	/* Group 5: both pool B namespaces; capacity summed. */
	assert_int_equal(endgrp_log(f, 5, 512, 0), 0);
	assert_int_equal(l->critical_warning, 0);
	assert_int_equal(l->avl_spare, 100);
	assert_int_equal(l->percent_used, 1);
	assert_int_equal(endgrp_get128(b + 160), 128ull * MiB);

	/* Group 1: a ram namespace: the core's own counts, no wear. */
	assert_int_equal(endgrp_log(f, 1, 512, 0), 0);
	assert_int_equal(l->critical_warning, 0);
	assert_int_equal(l->avl_spare, 100);
	assert_int_equal(l->avl_spare_threshold, 10);
	assert_int_equal(l->percent_used, 0);
	assert_int_equal(endgrp_get128(l->data_units_read), 2);
	assert_int_equal(endgrp_get128(l->data_units_written), 1);
	assert_int_equal(endgrp_get128(l->media_units_written), 0);
	assert_int_equal(endgrp_get128(l->host_read_cmds), 5);
	assert_int_equal(endgrp_get128(b + 160), 1 * MiB);
	assert_int_equal(endgrp_get128(b + 176), 0);

	/* Group 7: a null namespace. */
	assert_int_equal(endgrp_log(f, 7, 512, 0), 0);
	assert_int_equal(endgrp_get128(b + 160), 8 * MiB);

	/* A figure that changes is read anew. */
	f->fl[2]->e.avail_spare = 9;
	assert_int_equal(endgrp_log(f, 4, 512, 0), 0);
	assert_int_equal(l->critical_warning, NVME_EG_CRITICAL_WARNING_SPARE);
	assert_int_equal(l->avl_spare, 9);
}

/* 7. A group no namespace is in: Invalid Field in Command, at CDW11. */
void test_endgrp_log_unknown(void **state)
{
	struct efx *f = *state;
	static const uint32_t ids[] = { 0, 2, 6, 8, 1024, 1025, 0xffff };
	const struct nvme_error_log_page *e = (const void *)f->c->buf;

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(ids); i++)
		assert_int_equal(endgrp_log(f, ids[i], 512, 0), ST_INVALID_FIELD);
	/* The error log says where. */
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_ERROR, 64, 0, 0, false),
			 0);
	assert_int_equal(e->status_field >> 1, ST_INVALID_FIELD);
	assert_int_equal(e->parm_error_location, offsetof(struct nvme_sqe, cdw11));
	/* The NSID is not the group: group 2 does not exist even with NSID 2. */
	fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 2)->cdw10 =
		NVME_LOG_LID_ENDURANCE_GROUP | (127u << 16);
	f->c->req.cmd.cdw11 = 2u << 16;
	fake_data(f->c, 512, false);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_INVALID_FIELD);
}

/* 8. The log read in pieces; the event aggregate log; both listed as supported. */
void test_endgrp_log_offsets_and_events(void **state)
{
	struct efx *f = *state;
	const uint32_t *sup = (const void *)f->c->buf;
	uint8_t whole[512];

	assert_int_equal(endgrp_log(f, 4, 512, 0), 0);
	memcpy(whole, f->c->buf, sizeof(whole));
	assert_int_equal(endgrp_log(f, 4, 32, 160), 0);
	assert_memory_equal(f->c->buf, whole + 160, 32);
	/* Past the end of the page: zeroes. */
	assert_int_equal(endgrp_log(f, 4, 1024, 0), 0);
	assert_memory_equal(f->c->buf, whole, 512);
	assert_zero(f->c->buf + 512, 512);
	assert_int_equal(endgrp_log(f, 4, 4, 516), ST_INVALID_FIELD);

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_ENDURANCE_GRP_EVT,
				      8 + 2 * 1024, 0, 0, false),
			 0);
	assert_zero(f->c->buf, 8 + 2 * 1024);

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SUPPORTED_LOG_PAGES,
				      1024, 0, 0, false),
			 0);
	assert_int_equal(sup[NVME_LOG_LID_ENDURANCE_GROUP], 1);
	assert_int_equal(sup[NVME_LOG_LID_ENDURANCE_GRP_EVT], 1);
	assert_int_equal(sup[NVME_LOG_LID_PREDICTABLE_LAT_NVMSET], 1); /* plm.c */
}

/* 9. SMART: the Endurance Group Critical Warning Summary. */
void test_endgrp_smart_summary(void **state)
{
	struct efx *f = *state;
	const struct nvme_smart_log *sl = (const void *)f->c->buf;

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0,
				      0xffffffff, false),
			 0);
	assert_int_equal(sl->endu_grp_crit_warn_sumry,
			 NVME_EG_CRITICAL_WARNING_SPARE | NVME_EG_CRITICAL_WARNING_READ_ONLY);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0, 1,
				      false),
			 0);
	assert_int_equal(sl->endu_grp_crit_warn_sumry, 0);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0, 3,
				      false),
			 0);
	assert_int_equal(sl->endu_grp_crit_warn_sumry, 0x09);
	f->fl[3]->e.avail_spare = 50;
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0,
				      0xffffffff, false),
			 0);
	assert_int_equal(sl->endu_grp_crit_warn_sumry, NVME_EG_CRITICAL_WARNING_READ_ONLY);
}

static uint16_t ns_endgid(struct efx *f, uint32_t nsid)
{
	const struct nvme_id_ns *id = (const void *)f->c->buf;

	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_NS, nsid), 0);
	return id->endgid;
}

/*
 * 10. Ids stay while the namespaces do: the pool's first namespace goes,
 * its group keeps its id; a new namespace whose NSID is that id gets the
 * lowest free one; a new pool namespace joins its pool's group.
 */
void test_endgrp_ids_stable(void **state)
{
	struct efx *f = *state;
	struct blox_bdev_endurance a = { .shared_pool = true, .pool_key = POOL_A,
					 .avail_spare = 100 };
	const struct nvme_id_endurance_group_list *l = (const void *)f->c->buf;

	nvmf_ns_detach(f->ns[4], NULL, NULL);
	f->ns[4] = NULL;
	assert_int_equal(ns_endgid(f, 2), 4);
	assert_int_equal(endgrp_log(f, 4, 512, 0), 0);
	assert_int_equal(endgrp_get128(f->c->buf + 160), 70ull * MiB); /* 2 alone now */

	/* NSID 4 again, a ram namespace: group 4 is taken, 2 is the lowest free. */
	f->ns[4] = fake_ns(&f->ft, f->s, 4, "ram", 1 * MiB, 512);
	assert_int_equal(ns_endgid(f, 4), 2);
	assert_int_equal(ns_endgid(f, 2), 4);
	ffl_add(f, 8, &a);
	assert_int_equal(ns_endgid(f, 8), 4);
	assert_int_equal(identify11(f, NVME_IDENTIFY_CNS_ENDURANCE_GROUP_ID, 0), 0);
	assert_int_equal(l->num, 6);
	assert_int_equal(l->identifier[0], 1);
	assert_int_equal(l->identifier[1], 2);
	assert_int_equal(l->identifier[2], 3);
	assert_int_equal(l->identifier[3], 4);
	assert_int_equal(l->identifier[4], 5);
	assert_int_equal(l->identifier[5], 7);

	/*
	 * The whole pool gone, its group is gone: a new namespace on pool A
	 * is the first of it again and starts a group under its own NSID.
	 */
	nvmf_ns_detach(f->ns[2], NULL, NULL);
	nvmf_ns_detach(f->ns[8], NULL, NULL);
	assert_int_equal(endgrp_log(f, 4, 512, 0), ST_INVALID_FIELD);
	ffl_add(f, 10, &a);
	assert_int_equal(ns_endgid(f, 10), 10);
	ffl_add(f, 2, &a);
	assert_int_equal(ns_endgid(f, 2), 10);
}

/* 11. A discovery controller has neither. */
void test_endgrp_discovery(void **state)
{
	struct efx *f = *state;
	struct fake_q *dq = fake_admin_q(&f->ft, NULL, FAKE_DISCNQN, NULL);
	const struct nvme_id_ctrl *id = (const void *)f->c->buf;
	struct nvme_sqe *cmd;

	assert_int_equal(fake_identify(&f->ft, dq, f->c, NVME_IDENTIFY_CNS_CTRL, 0), 0);
	assert_int_equal(id->ctratt & (NVME_CTRL_CTRATT_NVM_SETS |
				       NVME_CTRL_CTRATT_ENDURANCE_GROUPS),
			 0);
	assert_int_equal(id->nsetidmax, 0);
	assert_int_equal(id->endgidmax, 0);
	assert_int_equal(fake_identify(&f->ft, dq, f->c, NVME_IDENTIFY_CNS_NVMSET_LIST, 0),
			 ST_INVALID_FIELD);
	cmd = fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0);
	cmd->cdw10 = NVME_LOG_LID_ENDURANCE_GROUP | (127u << 16);
	cmd->cdw11 = 1u << 16;
	fake_data(f->c, 512, false);
	assert_int_equal(fake_exec(&f->ft, dq, f->c), ST_INVALID_LOG_PAGE);
}

/* ---- real nand namespaces ---- */

/* An AER parked on the admin queue. */
static struct fake_cmd *park_aer(struct efx *f)
{
	struct fake_cmd *c = fake_cmd_new(&f->ft);

	fake_prep(&f->ft, c, nvme_admin_async_event, 0);
	fake_submit(&f->ft, f->q, c);
	assert_int_equal(c->done, 0);
	return c;
}

/*
 * 10. SMART from the flash: spare, threshold, percentage used and critical
 * warnings (the worst namespace for the controller); the events when a
 * warning turns on, each only if enabled, the next after the log is read.
 */
void test_endgrp_smart_warnings(void **state)
{
	struct efx *f = *state;
	const struct nvme_smart_log *sl = (const void *)f->c->buf;
	struct fake_cmd *a;

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0, 3, false), 0);
	assert_int_equal(sl->critical_warning, NVME_SMART_CRIT_SPARE | NVME_SMART_CRIT_MEDIA);
	assert_int_equal(sl->avail_spare, 3);
	assert_int_equal(sl->spare_thresh, 5);
	assert_int_equal(sl->percent_used, 200);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0, 2, false), 0);
	assert_int_equal(sl->critical_warning, 0);
	assert_int_equal(sl->avail_spare, 12);
	assert_int_equal(sl->spare_thresh, 10);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0, 0xffffffff,
				      false),
			 0);
	assert_int_equal(sl->critical_warning, NVME_SMART_CRIT_SPARE | NVME_SMART_CRIT_MEDIA);
	assert_int_equal(sl->avail_spare, 3); /* the closest to its threshold */
	assert_int_equal(sl->percent_used, 200); /* the most worn */

	/* Only the spare's event enabled: it is told, read-only is not. */
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_ASYNC_EVENT,
				       NVME_SMART_CRIT_SPARE),
			 0);
	a = park_aer(f);
	assert_int_equal(nvmf_ns_health_check(f->ns[3]),
			 NVME_SMART_CRIT_SPARE | NVME_SMART_CRIT_MEDIA);
	assert_int_equal(a->done, 1);
	assert_int_equal(a->cqe.result, NVME_AER_SMART | (NVME_AER_SMART_SPARE_THRESHOLD << 8) |
						 (NVME_LOG_LID_SMART << 16));
	a = park_aer(f);
	nvmf_ns_health_check(f->ns[3]); /* nothing new */
	nvmf_ns_health_check(f->ns[2]);
	assert_int_equal(a->done, 0);
	/* Namespace 2 turns read-only: not enabled, not told, now or later. */
	f->fl[2]->e.read_only = true;
	nvmf_ns_health_check(f->ns[2]);
	assert_int_equal(a->done, 0);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_ASYNC_EVENT,
				       NVME_SMART_CRIT_SPARE | NVME_SMART_CRIT_MEDIA),
			 0);
	assert_int_equal(a->done, 0);
	/* Namespace 3 writable again, then read-only again: told once the log was read. */
	f->fl[3]->e.read_only = false;
	nvmf_ns_health_check(f->ns[3]);
	f->fl[3]->e.read_only = true;
	nvmf_ns_health_check(f->ns[3]);
	assert_int_equal(a->done, 0); /* the spare's event not acknowledged yet */
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0, 3, true), 0);
	assert_int_equal(a->done, 0); /* RAE: still masked */
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512, 0, 3, false), 0);
	assert_int_equal(a->done, 1);
	assert_int_equal(a->cqe.result, NVME_AER_SMART |
						 (NVME_AER_SMART_SUBSYSTEM_RELIABILITY << 8) |
						 (NVME_LOG_LID_SMART << 16));
}
