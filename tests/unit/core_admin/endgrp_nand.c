/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVM Sets and Endurance Groups of real "nand" namespaces through the NVMe
 * core: two on a pool of shared dies, one on whole dies, one on another
 * device's pool, one on a device of its own; the figures the backends
 * take from the flash, and the groups the core makes of them. Also the
 * write through a backend that the tests on "nand" namespaces share.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include <cmocka.h>
#include <event2/event.h>

#include "core_admin.h"
#include "endgrp.h"
#include "ftl.h"
#include "nand.h"

struct ca_write {
	struct blox_io io;
	struct iovec iov;
	bool done;
};

static void ca_write_cb(struct blox_io *io)
{
	container_of(io, struct ca_write, io)->done = true;
}

int core_admin_write(struct event_base *base, struct blox_bdev *bd, void *data, uint32_t len)
{
	struct ca_write w = { .iov = { data, len } };

	w.io = (struct blox_io){ .op = BLOX_IO_WRITE, .len = len, .iov = &w.iov, .iovcnt = 1,
				 .cb = ca_write_cb };
	blox_bdev_submit(bd, &w.io);
	while (!w.done)
		assert_true(event_base_loop(base, EVLOOP_ONCE) >= 0);
	return w.io.status;
}

/*
 * 12. "nand" namespaces: two on a pool (dies 0-1 of device d0, each on
 * half the blocks), one on whole dies (2-3 of d0), one on d1's pool (its
 * dies 0-1, a block range), one on a device of its own. The backends say
 * which share a pool; the core groups them (1 and 2: group 1); a pool on
 * another device is another group. Figures from the flash: raw bytes x
 * 3000 TLC cycles, capacity, typical read from the timing, writes counted.
 */
void test_endgrp_nand(void **state)
{
	struct efx *f = *state;
	struct event_base *base = event_base_new();
	struct blox_io_cq cq;
	struct nand_config nand;
	struct ftl_config ftl;
	struct blox_clock clk;
	struct blox_log lg = { .level = -1 };
	struct blox_nand_dev *d0, *d1;
	static const uint32_t pool[] = { 0, 1 }, hw[] = { 2, 3 };
	struct {
		struct blox_nand_dev **dev;
		const uint32_t *dies;
		uint32_t first, nr;
	} spec[6] = {
		[1] = { &d0, pool, 0, 16 }, [2] = { &d0, pool, 16, 16 },
		[3] = { &d0, hw, 0, 0 },    [4] = { &d1, pool, 0, 16 },
		[5] = { NULL, NULL, 0, 0 },
	};
	struct blox_bdev *bd[6];
	struct blox_bdev_endurance e[6];
	struct nvmf_subsys *s;
	struct fake_q *q;
	const struct nvme_id_nvmset_list *l = (const void *)f->c->buf;
	static uint8_t data[32768];
	uint64_t rd = 0, raw_pool;

	assert_non_null(base);
	assert_int_equal(blox_io_cq_init(&cq, base), 0);
	nand_config_default(&nand);
	nand.geo.channels = 2;
	nand.geo.dies_per_channel = 2;
	nand.geo.planes_per_die = 1;
	nand.geo.blocks_per_plane = 32;
	nand.geo.pages_per_block = 96;
	ftl_config_default(&ftl);
	blox_clock_init_real(&clk);
	assert_int_equal(blox_nand_dev_open("d0", &nand, NULL, base, &clk, &d0), 0);
	assert_int_equal(blox_nand_dev_open("d1", &nand, NULL, base, &clk, &d1), 0);
	for (int i = 1; i <= 5; i++) {
		struct blox_bdev_params p = {
			.backend = "nand", .size = 4 * MiB, .block_size = 4096,
			.nand = &nand, .ftl = &ftl, .base = base, .clock = &clk, .log = &lg,
		};

		if (spec[i].dev) {
			p.shared = *spec[i].dev;
			p.dies = spec[i].dies;
			p.nr_dies = 2;
			p.first_block = spec[i].first;
			p.nr_blocks = spec[i].nr;
			p.shared_pool = spec[i].nr != 0;
		}
		assert_int_equal(blox_bdev_create(&p, &cq, &bd[i]), 0);
		assert_non_null(bd[i]->ops->endurance);
		memset(&e[i], 0, sizeof(e[i]));
		bd[i]->ops->endurance(bd[i], &e[i]);
	}
	/* Pools: 1 and 2 share d0's; 4 is d1's; 3 and 5 have dies of their own. */
	assert_true(e[1].shared_pool);
	assert_true(e[2].shared_pool);
	assert_true(e[4].shared_pool);
	assert_false(e[3].shared_pool);
	assert_false(e[5].shared_pool);
	assert_true(e[1].pool_key == e[2].pool_key);
	assert_true(e[1].pool_key != e[4].pool_key);
	/* Fresh flash: no wear, all spare, a threshold below it. */
	raw_pool = 16ull * 2 * 96 * nand.geo.page_size; /* blocks x dies x pages */
	for (int i = 1; i <= 5; i++) {
		assert_int_equal(e[i].percent_used, 0);
		assert_int_equal(e[i].avail_spare, 100);
		assert_in_range(e[i].spare_threshold, 1, 99);
		assert_false(e[i].read_only);
		assert_int_equal(e[i].host_written_bytes, 0);
		assert_true(e[i].total_bytes >= 4 * MiB);
		assert_int_equal(e[i].unalloc_bytes, e[i].total_bytes - 4 * MiB);
		assert_int_equal(e[i].opt_write_bytes, nand.geo.page_size);
		/* Half of two dies' blocks; two whole dies; four whole dies. */
		assert_int_equal(e[i].endurance_bytes,
				 (i == 3 ? 2 : i == 5 ? 4 : 1) * raw_pool * 3000);
	}
	for (int t = 0; t < 3; t++)
		rd += nand.timing.t_read_ns[t];
	rd = rd / 3 + nand.timing.t_cmd_ns + 4096ull * 1000 / nand.timing.bus_mbps;
	assert_int_equal(e[1].read_4k_ns, rd);

	/* Eight units written on namespace 1: its figures, not 2's. */
	assert_int_equal(core_admin_write(base, bd[1], data, sizeof(data)), 0);
	bd[1]->ops->endurance(bd[1], &e[1]);
	bd[2]->ops->endurance(bd[2], &e[2]);
	assert_int_equal(e[1].host_written_bytes, sizeof(data));
	assert_int_equal(e[2].host_written_bytes, 0);

	/* Through the core. */
	s = fake_subsys(&f->ft, "nqn.2026-12.io.blox:unit-nand", true);
	for (uint32_t i = 1; i <= 5; i++)
		assert_int_equal(nvmf_ns_add(s, i, bd[i], NULL, NULL), 0);
	q = fake_admin_q(&f->ft, NULL, "nqn.2026-12.io.blox:unit-nand", NULL);
	assert_int_equal(fake_identify(&f->ft, q, f->c, NVME_IDENTIFY_CNS_NS, 2), 0);
	assert_int_equal(((const struct nvme_id_ns *)f->c->buf)->endgid, 1);
	fake_prep(&f->ft, f->c, nvme_admin_identify, 0)->cdw10 = NVME_IDENTIFY_CNS_NVMSET_LIST;
	fake_data(f->c, 4096, false);
	assert_int_equal(fake_exec(&f->ft, q, f->c), 0);
	assert_int_equal(l->nid, 5);
	{
		static const uint16_t endgid[] = { 1, 1, 3, 4, 5 };

		for (int i = 0; i < 5; i++) {
			assert_int_equal(l->ent[i].nvmsetid, i + 1);
			assert_int_equal(l->ent[i].endgid, endgid[i]);
			assert_int_equal(l->ent[i].rr4kt, (rd + 99) / 100);
			assert_int_equal(l->ent[i].ows, nand.geo.page_size);
		}
	}
	/* Group 1's log: both halves of the pool. */
	{
		struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0);
		const struct nvme_endurance_group_log *lg9 = (const void *)f->c->buf;

		cmd->cdw10 = NVME_LOG_LID_ENDURANCE_GROUP | (127u << 16);
		cmd->cdw11 = 1u << 16;
		fake_data(f->c, 512, false);
		assert_int_equal(fake_exec(&f->ft, q, f->c), 0);
		assert_int_equal(endgrp_get128(lg9->endurance_estimate),
				 (2 * raw_pool * 3000 + 999999999) / 1000000000);
		assert_int_equal(endgrp_get128(lg9->data_units_written), 1);
		assert_true(endgrp_get128(lg9->media_units_written) <= 1);
		assert_int_equal(endgrp_get128(f->c->buf + 160), e[1].total_bytes + e[2].total_bytes);
		assert_int_equal(lg9->avl_spare, 100);
	}

	/* Gone before their devices, loop and completion queue. */
	for (uint32_t i = 1; i <= 5; i++)
		nvmf_ns_detach(nvmf_ns_find(s, i), NULL, NULL);
	blox_nand_dev_put(d0);
	blox_nand_dev_put(d1);
	blox_io_cq_fini(&cq);
	event_base_free(base);
}
