/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_io: ICResp values and Identify (controller, namespace, active
 * list, descriptors) over loopback.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"

void test_icresp(void **state)
{
	struct fx_env *e = *state;

	for (int m = 0; m < 4; m++) {
		struct ini_opts o;
		struct ini_queue *q;
		const struct ini_icresp_info *ic;

		ini_opts_init(&o);
		o.hdgst = m & 1;
		o.ddgst = m & 2;
		assert_int_equal(ini_queue_connect(FX_ADDR, e->d.nvm_port, &o, &q),
				 0);
		ic = ini_queue_icresp(q);
		assert_int_equal(ic->pfv, 0);
		assert_int_equal(ic->cpda, 0);
		assert_int_equal(ic->hdgst, o.hdgst);
		assert_int_equal(ic->ddgst, o.ddgst);
		assert_int_equal(ic->maxh2cdata, 131072);
		ini_queue_destroy(q);
	}
}

void test_identify_ctrl(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c1 = ctrl_up(e, 1, NULL), *c2 = ctrl_up(e, 1, NULL);
	struct nvme_id_ctrl *id = &c1->id;
	char sn[21], mn[41], nqn[257];
	uint64_t vs;

	assert_int_equal(id->cntlid, c1->cntlid);
	assert_int_equal(c2->id.cntlid, c2->cntlid);
	assert_int_not_equal(c1->cntlid, c2->cntlid);
	assert_true(c1->cntlid >= 1 && c1->cntlid <= 0xffef);
	assert_int_equal(id->ioccsz, (16384 + 64) / 16);
	assert_int_equal(id->iorcsz, 1);
	assert_true(id->maxcmd >= 1);
	assert_int_equal(id->msdbd, 1);
	assert_true(id->sgls & 0x1); /* SGLs supported */
	assert_true(id->sgls & (1u << 20)); /* offset (in-capsule) SGLs */
	assert_true(id->kas != 0);
	assert_int_equal(id->mdts, 11); /* 2^11 x 4 KiB: the default 8 MiB */
	assert_true(id->nn >= 3);
	/* SQES/CQES: required 64/16-byte entries. */
	assert_int_equal(id->sqes, 0x66);
	assert_int_equal(id->cqes, 0x44);
	/* Compare, DSM and Write Zeroes are implemented. */
	assert_int_equal(id->oncs & 0xd, 0xd);
	assert_int_equal(ini_prop_get(c1->admin, NVME_REG_VS, false, &vs), 0);
	assert_int_equal(id->ver, (uint32_t)vs);
	assert_true(vs >= 0x10300);

	fx_field_str(sn, sizeof(sn), id->sn, sizeof(id->sn));
	fx_field_str(mn, sizeof(mn), id->mn, sizeof(id->mn));
	fx_field_str(nqn, sizeof(nqn), id->subnqn, sizeof(id->subnqn));
	assert_string_equal(sn, SERIAL);
	assert_true(strlen(mn) > 0);
	assert_string_equal(nqn, SUBNQN);
	/* Same subsystem, same identity, on every controller. */
	assert_memory_equal(id->sn, c2->id.sn, sizeof(id->sn));
	assert_memory_equal(id->mn, c2->id.mn, sizeof(id->mn));
	assert_memory_equal(id->fr, c2->id.fr, sizeof(id->fr));
	assert_memory_equal(id->subnqn, c2->id.subnqn, sizeof(id->subnqn));
	ctrl_down(c2);
	ctrl_down(c1);
}

static void check_ns(struct ini_queue *q, uint32_t nsid, uint64_t nblocks,
		     uint8_t lbads)
{
	struct nvme_id_ns *ns = calloc(1, sizeof(*ns));

	assert_non_null(ns);
	assert_int_equal(ini_identify(q, NVME_IDENTIFY_CNS_NS, nsid, 0, ns), 0);
	assert_int_equal(ns->nsze, nblocks);
	assert_int_equal(ns->ncap, nblocks);
	assert_true(ns->nuse <= nblocks);
	assert_true((ns->flbas & 0xf) <= ns->nlbaf);
	assert_int_equal(ns->lbaf[ns->flbas & 0xf].ds, lbads);
	assert_int_equal(ns->lbaf[ns->flbas & 0xf].ms, 0);
	free(ns);
}

/* Parse a descriptor list; copy NGUID and UUID out; CSI must be NVM. */
static void check_descs(struct ini_queue *q, uint32_t nsid, uint8_t *nguid,
			uint8_t *uuid)
{
	uint8_t *buf = calloc(1, 4096), zero[16] = { 0 };
	bool got_nguid = false, got_uuid = false, got_csi = false;
	size_t off = 0;

	assert_non_null(buf);
	assert_int_equal(ini_identify(q, NVME_IDENTIFY_CNS_NS_DESC_LIST, nsid, 0,
				      buf),
			 0);
	while (off + 4 <= 4096 && buf[off] != 0) {
		uint8_t type = buf[off], len = buf[off + 1];
		const uint8_t *v = buf + off + 4;

		assert_true(off + 4 + len <= 4096);
		switch (type) {
		case NVME_NIDT_NGUID:
			assert_int_equal(len, 16);
			assert_memory_not_equal(v, zero, 16);
			memcpy(nguid, v, 16);
			got_nguid = true;
			break;
		case NVME_NIDT_UUID:
			assert_int_equal(len, 16);
			assert_memory_not_equal(v, zero, 16);
			memcpy(uuid, v, 16);
			got_uuid = true;
			break;
		case NVME_NIDT_CSI:
			assert_int_equal(len, 1);
			assert_int_equal(v[0], 0); /* NVM command set */
			got_csi = true;
			break;
		case NVME_NIDT_EUI64:
			assert_int_equal(len, 8);
			break;
		default:
			fail_msg("unknown descriptor type %u", type);
		}
		off += 4 + len;
	}
	assert_true(got_nguid && got_uuid && got_csi);
	free(buf);
}

void test_identify_ns(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	uint8_t nguid[3][16], uuid[3][16];
	uint32_t *list = calloc(1024, sizeof(uint32_t));
	uint8_t *zero = calloc(1, 4096), *buf = calloc(1, 4096);
	int st;

	assert_non_null(list);
	assert_non_null(zero);
	assert_non_null(buf);
	check_ns(c->admin, 1, NS1_BLOCKS, 12);
	check_ns(c->admin, 2, NS2_BLOCKS, 9);
	check_ns(c->admin, 3, NS3_BLOCKS, 12);

	assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST,
				      0, 0, list),
			 0);
	assert_int_equal(list[0], 1);
	assert_int_equal(list[1], 2);
	assert_int_equal(list[2], 3);
	assert_int_equal(list[3], 0);
	/* The list starts above the given NSID. */
	assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS_ACTIVE_LIST,
				      1, 0, list),
			 0);
	assert_int_equal(list[0], 2);
	assert_int_equal(list[1], 3);
	assert_int_equal(list[2], 0);

	for (int i = 0; i < 3; i++)
		check_descs(c->admin, (uint32_t)i + 1, nguid[i], uuid[i]);
	for (int i = 0; i < 3; i++) {
		for (int j = i + 1; j < 3; j++) {
			assert_memory_not_equal(nguid[i], nguid[j], 16);
			assert_memory_not_equal(uuid[i], uuid[j], 16);
		}
	}

	/* An inactive NSID in range: zero-filled data (NVMe 1.4 5.15.2). */
	st = ini_identify(c->admin, NVME_IDENTIFY_CNS_NS, 7, 0, buf);
	if (c->id.nn >= 7) {
		assert_int_equal(st, 0);
		assert_memory_equal(buf, zero, 4096);
	} else {
		assert_int_equal(INI_SC_CODE(st), NVME_SC_INVALID_NS);
	}
	free(buf);
	free(zero);
	free(list);
	ctrl_down(c);
}

