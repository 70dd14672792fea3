/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NAND tests' harness (see nand_fixture.h): devices, the completion
 * recorder, op set-up and virtual-time stepping.
 */
#include "nand_fixture.h"

static void fx_rec_cb(struct nand_op *op)
{
	struct fx *f = op->cb_arg;

	if (f->in_submit)
		fail_msg("completion callback inside nand_submit()");
	if (f->in_cb)
		f->nested++;
	f->in_cb = true;
	if (f->n < MAX_REC) {
		f->order[f->n] = op;
		f->when[f->n] = op->done_ns;
	}
	f->n++;
	if (f->chain) {
		f->chain--;
		f->in_submit = true;
		assert_int_equal(nand_submit(f->dev, op, op->done_ns), 0);
		f->in_submit = false;
	}
	f->in_cb = false;
}

void fx_init(struct fx *f)
{
	memset(f, 0, sizeof(*f));
	nand_config_default(&f->cfg);
}

void fx_small_geo(struct nand_geometry *g)
{
	*g = (struct nand_geometry){
		.channels = 2,
		.dies_per_channel = 2,
		.planes_per_die = 2,
		.blocks_per_plane = 4,
		.pages_per_block = 6,
		.page_size = 4096,
		.oob_size = 64,
		.cell = NAND_TLC,
	};
}

/* Devices and stores alive in the running test (see fx_create()). */
static struct {
	struct nand_dev *dev;
	struct nand_store *store;
} live[4];

void fx_create(struct fx *f, bool with_store)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(live) && (live[i].dev || live[i].store); i++)
		;
	assert_true(i < ARRAY_SIZE(live));
	if (with_store)
		assert_int_equal(nand_store_ram_open(&f->cfg.geo, &f->store), 0);
	live[i].store = f->store;
	assert_int_equal(nand_dev_create(&f->cfg, f->store, &f->dev), 0);
	live[i].dev = f->dev;
}

void fx_destroy(struct fx *f)
{
	for (size_t i = 0; i < ARRAY_SIZE(live); i++)
		if (live[i].dev == f->dev && live[i].store == f->store)
			live[i].dev = NULL, live[i].store = NULL;
	nand_dev_destroy(f->dev);
	nand_store_close(f->store);
	f->dev = NULL;
	f->store = NULL;
}

int fx_teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(live); i++) {
		nand_dev_destroy(live[i].dev);
		nand_store_close(live[i].store);
		live[i].dev = NULL;
		live[i].store = NULL;
	}
	return 0;
}

void fx_op_init(struct fx *f, struct nand_op *op, enum nand_op_kind kind,
		enum nand_prio prio, uint32_t ch, uint32_t die, uint32_t block,
		uint32_t page)
{
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->prio = prio;
	op->addr = (struct nand_addr){ ch, die, 0, block, page };
	op->timing_only = true;
	op->cb = fx_rec_cb;
	op->cb_arg = f;
}

int fx_submit(struct fx *f, struct nand_op *op, uint64_t now)
{
	int rc;

	f->in_submit = true;
	rc = nand_submit(f->dev, op, now);
	f->in_submit = false;
	return rc;
}

void fx_run_to(struct fx *f, uint64_t t)
{
	uint64_t e;

	while ((e = nand_next_event(f->dev)) <= t)
		nand_advance(f->dev, e);
}

void fx_run_all(struct fx *f)
{
	fx_run_to(f, UINT64_MAX - 1);
	assert_int_equal(nand_next_event(f->dev), UINT64_MAX);
	assert_int_equal(nand_inflight(f->dev), 0);
}

void fx_expect_done(const struct nand_op *op, int status, uint64_t done)
{
	if (op->status != status || op->done_ns != done)
		fail_msg("op kind %d prio %d ch %u die %u page %u: status %d done %llu, "
			 "want status %d done %llu",
			 op->kind, op->prio, op->addr.ch, op->addr.die, op->addr.page,
			 op->status, (unsigned long long)op->done_ns, status,
			 (unsigned long long)done);
}

void fx_fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 131 + i * 7 + (i >> 8));
}

void fx_data_op(struct fx *f, struct nand_op *op, enum nand_op_kind kind,
		uint32_t block, uint32_t page, void *data, void *oob)
{
	fx_op_init(f, op, kind,
		kind == NAND_OP_READ ? NAND_PRIO_HOST_READ :
		kind == NAND_OP_PROGRAM ? NAND_PRIO_HOST_WRITE : NAND_PRIO_ERASE,
		1, 0, block, page);
	op->addr.plane = 1;
	op->timing_only = false;
	op->data = data;
	op->oob = oob;
}

uint64_t fx_blk_idx(const struct fx *f, uint32_t block)
{
	struct nand_addr a = { 1, 0, 1, block, 0 };

	return nand_block_index(&f->cfg.geo, &a);
}
