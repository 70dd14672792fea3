/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the FTL's mapping paths (ftl/), through ftl.h (its
 * read-only ftl_inspect_*() functions where the I/O surface says too
 * little) and the virtual-time driver. This file: submit-time checks,
 * round trips of 1..32 units, unmapped and write-buffer reads, reads of
 * units laid out in every order on flash (straight into the host's
 * buffer, nothing around it written), superblock
 * striping across dies and planes (down to the NAND address and the page
 * in the store); main(). The others:
 *   ftl_cache.c    CMT hits, misses, LRU eviction and write-back, the MDC
 *                  and hot regions (including idle prefetch)
 *   ftl_streams.c  stream detection and trim, translation pages programmed
 *                  only after the data they map
 * GC and wear leveling live in test_ftl_gc, flush, FUA and recovery in
 * test_ftl_recovery.
 */
#include "ftl_tests.h"

/* ---- submission ---- */

/* Capacity follows the layout rule; bad requests fail at submit, silently. */
static void test_capacity_and_bounds(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct fx_req r = { 0 };
	uint64_t units;
	uint8_t one[FTL_UNIT];

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	/* 32 superblocks of 48 pages x 4 dies x 4 slots; 2 checkpoint, 4 open, 1 GC. */
	assert_int_equal(x->lay.units_per_sb, 48 * 4 * 4);
	units = (uint64_t)(32 - 2 - 4 - 1) * 768 * (1000 - 70) / 1000;
	units -= (units + 1023) / 1024;
	assert_int_equal(x->cap, units);
	assert_int_equal(x->lay.nr_tp, (x->cap + 1023) / 1024);

	assert_int_equal(fx_submit(x, &r, FTL_IO_READ, x->cap, 1, one, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, x->cap - 1, 2, one, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 1, UINT32_MAX, one, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_READ, 0, 0, one, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_TRIM, x->cap, 1, NULL, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_TRIM, 0, 0, NULL, false), -ERANGE);
	assert_int_equal(fx_submit(x, &r, FTL_IO_READ, 0, 1, NULL, false), -EINVAL);
	assert_int_equal(fx_submit(x, &r, FTL_IO_WRITE, 0, 1, NULL, false), -EINVAL);
	assert_int_equal(fx_submit(x, &r, (enum ftl_io_op)17, 0, 1, one, false), -EINVAL);
	assert_int_equal(fx_activity(x).outstanding, 0);
	fx_drain(x);
	assert_false(r.done);
	assert_int_equal(fx_stats(x).host_writes, 0);

	/* The edges are addressable. */
	fx_write(x, x->cap - 1, 1);
	fx_write(x, 0, 1);
	fx_verify(x, x->cap - 1, 1);
	fx_verify(x, 0, 1);
	fx_trim(x, x->cap - 1, 1);
	fx_verify(x, x->cap - 1, 1);
	fx_free(x);
}

/* Completions come from ftl_process(), after ftl_submit() returned. */
static void test_completions_deferred(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct fx_req w[8], rd, fl, tr;
	static uint8_t bufs[8 * 4 * FTL_UNIT], rbuf[4 * FTL_UNIT];
	int count = 0;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	for (int i = 0; i < 8; i++) {
		for (uint32_t u = 0; u < 4; u++) {
			x->shadow[i * 100 + u] = (uint32_t)++x->ver;
			fx_fill(bufs + (size_t)(i * 4 + u) * FTL_UNIT, i * 100 + u,
				x->shadow[i * 100 + u]);
		}
		w[i].count = &count;
		assert_int_equal(fx_submit(x, &w[i], FTL_IO_WRITE, i * 100, 4,
					   bufs + (size_t)i * 4 * FTL_UNIT, false),
				 0);
		assert_false(w[i].done);
	}
	rd.count = fl.count = tr.count = &count;
	assert_int_equal(fx_submit(x, &rd, FTL_IO_READ, 5000, 4, rbuf, false), 0);
	assert_int_equal(fx_submit(x, &fl, FTL_IO_FLUSH, 0, 0, NULL, false), 0);
	assert_int_equal(fx_submit(x, &tr, FTL_IO_TRIM, 9000, 4, NULL, false), 0);
	assert_false(rd.done || fl.done || tr.done);
	assert_int_equal(fx_activity(x).outstanding, 11);
	fx_wait_count(x, &count, 11);
	for (int i = 0; i < 8; i++)
		assert_int_equal(w[i].io.status, 0);
	assert_int_equal(fl.io.status, 0);
	assert_int_equal(fx_activity(x).outstanding, 0);
	for (int i = 0; i < 8; i++)
		fx_verify(x, i * 100, 4);
	fx_free(x);
}

/* ---- round trips ---- */

static void test_round_trips(void **state)
{
	static const struct { uint32_t lba, nr; } w[] = {
		{ 0, 1 }, { 1, 32 }, { 40, 7 }, { 1020, 8 }, { 2047, 2 }, { 3000, 32 },
		{ 3010, 5 }, { 5000, 3 }, { 5001, 1 }, { 17000, 32 },
	};
	struct fx_geo g;
	struct fx *x;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		fx_write(x, w[i].lba, w[i].nr);
		fx_verify(x, w[i].lba, w[i].nr);
	}
	/* Reads spanning several writes and unmapped holes, from the buffer. */
	fx_verify(x, 0, 32);
	fx_verify(x, 30, 32);
	fx_verify(x, 1016, 32);
	fx_verify(x, 2040, 16);
	fx_verify(x, 2990, 32);
	fx_flush(x);
	/* And from flash. */
	for (uint32_t lba = 0; lba < 6000; lba += 29)
		fx_verify(x, lba, 32);
	fx_verify(x, 17000, 32);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* A 32-unit read of a page-aligned sequential write takes 8 flash reads. */
static void test_read_shares_pages(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 64, 32);
	fx_flush(x);
	a = fx_stats(x);
	fx_verify(x, 64, 32);
	b = fx_stats(x);
	assert_int_equal(b.flash_data_reads - a.flash_data_reads, 32 / x->lay.slots);
	assert_int_equal(b.buffer_reads, a.buffer_reads);
	/* Unaligned: 2 + 3 units over two pages. */
	fx_verify(x, 66, 5);
	assert_int_equal(fx_stats(x).flash_data_reads - b.flash_data_reads, 2);
	fx_free(x);
}

/* Unmapped units read as zeroes and touch no flash. */
static void test_unmapped_reads(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a, b;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 10, 4);
	fx_flush(x);
	a = fx_stats(x);
	memset(x->rbuf, 0xa5, (size_t)FX_MAX_IO * FTL_UNIT);
	fx_verify(x, 100, 32); /* shadow 0: all zeroes */
	fx_verify(x, 8000, 3);
	b = fx_stats(x);
	assert_int_equal(b.unmapped_reads - a.unmapped_reads, 35);
	assert_int_equal(b.flash_data_reads, a.flash_data_reads);
	assert_int_equal(b.flash_tp_reads, a.flash_tp_reads);
	/* Mixed: 2 unmapped, 4 mapped on one page, 2 unmapped. */
	fx_verify(x, 8, 8);
	assert_int_equal(fx_stats(x).unmapped_reads - b.unmapped_reads, 4);
	assert_int_equal(fx_stats(x).flash_data_reads - b.flash_data_reads, 1);
	fx_free(x);
}

/* host_reads counts read units, like host_writes counts written ones. */
static void test_read_stats(void **state)
{
	struct fx_geo g;
	struct fx *x;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 0, 8);
	assert_int_equal(fx_stats(x).host_writes, 8);
	fx_verify(x, 0, 8);
	fx_verify(x, 100, 2);
	assert_int_equal(fx_stats(x).host_reads, 10);
	fx_free(x);
}

/* Units not yet programmed are read from the write buffer. */
static void test_buffer_reads(void **state)
{
	struct fx_geo g;
	struct fx *x;
	struct ftl_stats a;
	uint32_t ppn;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write(x, 0, 1);
	ppn = fx_ppn_resident(x, 0);
	assert_non_null(ftl_inspect_buffered(x->f, ppn));
	assert_true(fx_stream(x, FTL_STREAM_SEQ).filling);
	a = fx_stats(x);
	fx_verify(x, 0, 1);
	assert_int_equal(fx_stats(x).buffer_reads - a.buffer_reads, 1);
	assert_int_equal(fx_stats(x).flash_data_reads, a.flash_data_reads);
	/* Fill the page: it is programming, and still read from the buffer. */
	fx_write(x, 1, 3);
	assert_true(fx_activity(x).pages_in_flight > 0);
	assert_non_null(ftl_inspect_buffered(x->f, ppn));
	fx_verify(x, 0, 4);
	assert_int_equal(fx_stats(x).buffer_reads - a.buffer_reads, 5);
	assert_int_equal(fx_stats(x).flash_data_reads, a.flash_data_reads);
	/* Once programmed, from flash. */
	fx_drain(x);
	assert_null(ftl_inspect_buffered(x->f, ppn));
	fx_verify(x, 0, 4);
	assert_int_equal(fx_stats(x).flash_data_reads - a.flash_data_reads, 1);
	fx_free(x);
}

/*
 * Units on flash in every order: written one by one backwards (each page's
 * slots in descending LBA order), even LBAs then odd ones (neighbours on
 * different pages), a sequential run starting mid-page (reads crossing two
 * pages), some rewritten since the flush (in the write buffer) and a tail
 * never written. Every read of 1..13 units from every LBA of the window
 * gets the data, and the buffer around it stays as it was.
 */
static void test_read_orders(void **state)
{
	static const uint32_t lens[] = { 1, 2, 3, 4, 5, 8, 13 };
	const uint32_t first = 196, last = 444, guard = 2 * FTL_UNIT;
	struct fx_geo g;
	struct fx *x;
	uint8_t *buf;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	for (uint32_t lba = 263; lba >= 200; lba--)
		fx_write(x, lba, 1);
	for (uint32_t lba = 300; lba < 364; lba += 2)
		fx_write(x, lba, 1);
	for (uint32_t lba = 301; lba < 364; lba += 2)
		fx_write(x, lba, 1);
	fx_write(x, 398, 2);
	fx_write(x, 400, 32);
	fx_flush(x);
	fx_write(x, 202, 1);
	fx_write(x, 305, 1);
	fx_write(x, 410, 2);
	buf = fx_tmp_alloc(guard + 13 * FTL_UNIT + guard);
	for (uint32_t lba = first; lba < last; lba++)
		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			uint32_t nr = lens[i];
			uint8_t *data = buf + guard;

			memset(buf, 0x5a, guard + (size_t)nr * FTL_UNIT + guard);
			assert_int_equal(fx_io(x, FTL_IO_READ, lba, nr, data, false), 0);
			for (uint32_t u = 0; u < nr; u++) {
				uint32_t got = fx_decode(data + (size_t)u * FTL_UNIT, lba + u);

				if (got != x->shadow[lba + u])
					fail_msg("read %u+%u: lba %u version %d, want %u", lba,
						 nr, lba + u, (int)got, x->shadow[lba + u]);
			}
			for (uint32_t b = 0; b < guard; b++)
				if (buf[b] != 0x5a || data[(size_t)nr * FTL_UNIT + b] != 0x5a)
					fail_msg("read %u+%u wrote outside its buffer", lba, nr);
		}
	assert_true(fx_stats(x).flash_data_reads > 0);
	assert_true(fx_stats(x).buffer_reads > 0);
	assert_true(fx_stats(x).unmapped_reads > 0);
	fx_tmp_free(buf);
	fx_check_invariants(x, true);
	fx_free(x);
}

/* ---- striping ---- */

/*
 * A sequential write of 32 units from a fresh FTL: slots units per flash
 * page, consecutive pages on consecutive (plane, die) of the instance in
 * resource order, rows of stripe pages, all in block first_block + sb; the
 * page in the store at that address holds the units.
 */
static void check_striping(const struct fx_geo *g, const uint32_t *dies, uint32_t first_block,
			   uint32_t nr_blocks)
{
	struct ftl_config cfg;
	struct fx *x;
	struct fx_geo gg = *g;
	const struct ftl_layout *l;
	uint8_t *page;
	uint32_t seen = 0, sb;

	fx_cfg_default(&cfg);
	gg.blocks = first_block + nr_blocks;
	x = fx_new(&gg, &cfg, false);
	/* Re-create on the requested resources. */
	ftl_destroy(x->f);
	x->res.first_block = first_block;
	x->res.nr_blocks = nr_blocks;
	memcpy(x->res.dies, dies, x->res.nr_dies * sizeof(*dies));
	assert_int_equal(fx_ftl_create(x), 0);
	l = &x->lay;
	fx_write(x, 0, 32);
	fx_flush(x);
	page = fx_tmp_alloc(x->nc.geo.page_size);
	sb = fx_ppn_resident(x, 0) / l->units_per_sb;
	for (uint32_t u = 0; u < 32; u++) {
		uint32_t ppn = fx_ppn_resident(x, u), fp = u / l->slots, s = fp % l->stripe;
		uint32_t plane = s / l->ndies, die = dies[s % l->ndies];
		struct nand_addr a;

		/* The layout formula (ftl_internal.h). */
		assert_int_equal(ppn, sb * l->units_per_sb + u);
		ftl_inspect_page_addr(x->f, ppn / l->slots, &a);
		assert_int_equal(a.ch, die / g->dies_per_channel);
		assert_int_equal(a.die, die % g->dies_per_channel);
		assert_int_equal(a.plane, plane);
		assert_int_equal(a.block, first_block + sb);
		assert_int_equal(a.page, fp / l->stripe);
		seen |= 1u << (die * g->planes + plane);
		assert_int_equal(x->store->ops->read(x->store, nand_page_index(&x->nc.geo, &a),
						     page, NULL),
				 0);
		assert_int_equal(fx_decode(page + (size_t)(ppn % l->slots) * FTL_UNIT, u),
				 x->shadow[u]);
	}
	/* 8 pages covered every (die, plane) at least once. */
	assert_int_equal(__builtin_popcount(seen), l->stripe < 8 ? l->stripe : 8);
	fx_tmp_free(page);
	fx_free(x);
}

static void test_striping(void **state)
{
	static const uint32_t id[] = { 0, 1, 2, 3 }, perm[] = { 2, 0, 3, 1 };
	struct fx_geo g;

	(void)state;
	fx_geo_small(&g);
	check_striping(&g, id, 0, 32);
	check_striping(&g, perm, 3, 24);
	g.planes = 2;
	g.channels = 2;
	g.dies_per_channel = 2;
	check_striping(&g, perm, 0, 24);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_capacity_and_bounds),
		FX_TEST(test_completions_deferred),
		FX_TEST(test_round_trips),
		FX_TEST(test_read_shares_pages),
		FX_TEST(test_unmapped_reads),
		FX_TEST(test_read_stats),
		FX_TEST(test_buffer_reads),
		FX_TEST(test_read_orders),
		FX_TEST(test_striping),
		FX_TEST(test_cmt_lru_and_writeback),
		FX_TEST(test_cmt_thrash),
		FX_TEST(test_cmt_miss_with_buffer_full),
		FX_TEST(test_cmt_miss_clean_fallback),
		FX_TEST(test_mdc_hits),
		FX_TEST(test_mdc_disabled),
		FX_TEST(test_mdc_idle_prefetch),
		FX_TEST(test_mdc_prefetch_races_write),
		FX_TEST(test_hot_ranking),
		FX_TEST(test_streams),
		FX_TEST(test_seq_order),
		FX_TEST(test_trim),
		FX_TEST(test_tp_page_waits_for_data),
		FX_TEST(test_tp_held_pages_unstick),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
