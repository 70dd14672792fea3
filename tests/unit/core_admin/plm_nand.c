/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predictable Latency Mode of a real "nand" namespace through the NVMe
 * core: the log's figures from its FTL, a DTWIN held until the NDWIN
 * minimum passed, writes counted against the window.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <event2/event.h>

#include "core_admin.h"
#include "ftl.h"
#include "nand.h"
#include "plm.h"

/*
 * 11. A real "nand" namespace: enable, the log's figures from its FTL, a
 * DTWIN held until the NDWIN minimum passed, writes counted against the
 * window, back to NDWIN, disable.
 */
void test_plm_nand(void **state)
{
	struct pfx *f = *state;
	const struct nvme_nvmset_predictable_lat_log *l = (const void *)f->c->buf;
	/* The backend keeps it: it logs its clean stop at the fixture's teardown. */
	static struct blox_log lg = { .level = -1 };
	struct nand_config nand;
	struct ftl_config ftl;
	struct blox_bdev *bd;
	struct fake_cmd *c = fake_cmd_new(&f->ft);
	uint64_t t0, lo_ms, wt;

	nand_config_default(&nand);
	nand.geo.channels = 2;
	nand.geo.dies_per_channel = 1;
	nand.geo.planes_per_die = 1;
	nand.geo.blocks_per_plane = 32;
	nand.geo.pages_per_block = 96; /* 16 KiB pages: a write of the OWS is 4 units */
	ftl_config_default(&ftl);
	ftl.op_permille = 300;
	{
		struct blox_bdev_params p = {
			.backend = "nand", .size = 1 * MiB, .block_size = 4096, .nand = &nand,
			.ftl = &ftl, .base = f->base, .clock = &f->ft.clock, .log = &lg,
		};

		assert_int_equal(blox_bdev_create(&p, &f->ft.tgt.io_cq, &bd), 0);
	}
	assert_non_null(bd->ops->plm_query);
	assert_int_equal(nvmf_ns_add(f->s, 3, bd, NULL, NULL), 0);

	assert_int_equal(plm_set_log(f, 3, false), 0);
	assert_int_equal(l->status, 0);
	t0 = blox_clock_now(&f->ft.clock);
	assert_int_equal(plm_enable(f, 3, true, NULL), 0);
	assert_int_equal(plm_set_log(f, 3, false), 0);
	assert_int_equal(l->status, NVME_NVMSET_PL_STATUS_NDWIN);
	assert_int_equal(l->event_type, 0);
	assert_int_equal(l->dtwin_tmax, FTL_PLM_DTWIN_MAX_NS / 1000000);
	assert_true(l->dtwin_rt > 0);
	assert_true(l->dtwin_wt > 0);
	assert_true(l->ndwin_tmin_lo > 0);
	assert_true(l->ndwin_tmin_hi >= l->ndwin_tmin_lo);
	assert_int_equal(l->dtwin_we, l->dtwin_wt); /* an empty instance has the room */
	assert_int_equal(l->dtwin_te, l->dtwin_tmax);
	lo_ms = l->ndwin_tmin_lo;
	wt = l->dtwin_wt;
	assert_true(lo_ms < 2000);

	/* DTWIN: held until the NDWIN minimum passed. */
	fake_prep(&f->ft, c, nvme_admin_set_features, 0)->cdw10 = NVME_FEAT_FID_PLM_WINDOW;
	c->req.cmd.cdw11 = 3;
	c->req.cmd.cdw12 = NVME_FEATURE_PLM_DTWIN;
	fake_submit(&f->ft, f->q, c);
	if (!c->done)
		plm_loop_until(f, c, lo_ms + 2000);
	assert_int_equal(fake_status(c), 0);
	assert_true(blox_clock_now(&f->ft.clock) - t0 >= (lo_ms - 1) * MS);
	assert_int_equal(plm_set_log(f, 3, false), 0);
	assert_int_equal(l->status, NVME_NVMSET_PL_STATUS_DTWIN);
	assert_true(l->dtwin_te <= l->dtwin_tmax);
	assert_int_equal(l->dtwin_we, wt);

	/* 64 KiB written through the backend: four writes of the OWS fewer at least. */
	{
		static uint8_t data[16 * 4096];

		assert_int_equal(core_admin_write(f->base, bd, data, sizeof(data)), 0);
	}
	assert_int_equal(plm_set_log(f, 3, false), 0);
	assert_int_equal(l->status, NVME_NVMSET_PL_STATUS_DTWIN);
	assert_true(l->dtwin_we <= wt - 4);
	assert_int_equal(l->event_type, 0);
	assert_int_equal(plm_set_window(f, 3, NVME_FEATURE_PLM_NDWIN), 0);
	assert_int_equal(plm_set_log(f, 3, false), 0);
	assert_int_equal(l->status, NVME_NVMSET_PL_STATUS_NDWIN);
	assert_int_equal(plm_enable(f, 3, false, NULL), 0);
	assert_int_equal(plm_set_log(f, 3, false), 0);
	assert_int_equal(l->status, 0);
	nvmf_ns_detach(nvmf_ns_find(f->s, 3), NULL, NULL);
}
