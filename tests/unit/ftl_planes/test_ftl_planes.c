/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Plane groups (ftl_config.plane_groups): a full data page for a die's
 * first plane waits in the write buffer for the page of the same row on
 * the die's other plane, and the two are submitted together, so the NAND
 * engine programs them as one multi-plane op (one tPROG). On a device of
 * 2 channels x 2 dies x 2 planes (a stripe of 8 pages, dies first):
 * groups formed on small and large writes, against the same workload
 * with plane groups off; reads of pages that wait; a flush, a crash and
 * a recovery with pages waiting; a write buffer of one page (pages then
 * go alone, and nothing stalls) through GC.
 */
#include "ftl_fixture.h"

static void geo_planes(struct fx_geo *g)
{
	fx_geo_small(g);
	g->channels = 2;
	g->dies_per_channel = 2;
	g->planes = 2;
}

static struct fx *planes_new(bool groups, bool file)
{
	struct ftl_config cfg;
	struct fx_geo g;

	fx_cfg_default(&cfg);
	cfg.plane_groups = groups;
	geo_planes(&g);
	return fx_new(&g, &cfg, file);
}

static uint64_t mp_program_groups(const struct fx *x)
{
	return nand_dev_stats(x->dev)->mp_groups[NAND_OP_PROGRAM];
}

/* Page-sized writes, one at a time: each die programs its planes together. */
static void test_groups_small_writes(void **state)
{
	uint64_t groups[2], programs[2], grouped = 0;

	(void)state;
	for (int on = 0; on < 2; on++) {
		struct fx *x = planes_new(on, false);
		struct ftl_stats st;

		/*
		 * 64 rows of 8 pages, a page per write (random stream, no GC
		 * yet), a host that sends one a millisecond (virtual): each die idle when its next page comes.
		 */
		for (uint32_t i = 0; i < 64 * 8; i++) {
			fx_write(x, (i * 37) % 4096 * 4, 4);
			ftl_vdrive_run(&x->vd, x->f, blox_clock_now(&x->vd.clock) + 1000000);
		}
		fx_flush(x);
		st = fx_stats(x);
		groups[on] = mp_program_groups(x);
		programs[on] = st.flash_programs;
		if (on)
			grouped = st.pages_grouped;
		else
			assert_int_equal(st.pages_grouped + st.pages_ungrouped, 0);
		fx_verify_all(x);
		fx_check_invariants(x, true);
		fx_free(x);
	}
	/* Off: each page starts alone on an idle die. On: all but a flush's leftovers pair. */
	assert_true(groups[0] * 10 < programs[0]);
	assert_true(grouped * 10 >= programs[1] * 9);
	assert_true(groups[1] * 2 * 10 >= programs[1] * 9);
}

/* Many large writes in flight: grouped, and the data reads back. */
static void test_groups_deep_writes(void **state)
{
	static uint8_t bufs[16][FX_MAX_IO * FTL_UNIT];
	struct fx_req r[16];
	struct ftl_stats st;
	struct fx *x;
	int count = 0;

	(void)state;
	x = planes_new(true, false);
	for (int round = 0; round < 8; round++) {
		for (uint32_t i = 0; i < 16; i++) {
			uint32_t lba = (round * 16 + i) * FX_MAX_IO;

			memset(&r[i], 0, sizeof(r[i]));
			r[i].count = &count;
			fx_prepare(x, lba, FX_MAX_IO);
			memcpy(bufs[i], x->wbuf, sizeof(bufs[i]));
			assert_int_equal(fx_submit(x, &r[i], FTL_IO_WRITE, lba, FX_MAX_IO, bufs[i],
						   false),
					 0);
		}
		fx_wait_count(x, &count, (round + 1) * 16);
	}
	fx_flush(x);
	st = fx_stats(x);
	assert_true(st.pages_grouped * 10 >= st.flash_programs * 9);
	assert_true(mp_program_groups(x) * 2 * 10 >= st.flash_programs * 9);
	fx_verify_all(x);
	fx_free(x);
}

/* A page waiting for its partner is read from the buffer; a flush programs it alone. */
static void test_waiting_page_flush(void **state)
{
	struct ftl_stats a, b;
	struct fx *x;

	(void)state;
	x = planes_new(true, true);
	fx_write(x, 0, 4); /* die 0, plane 0: waits for die 0's plane 1 page */
	fx_write(x, 4, 4); /* die 1, plane 0 */
	a = fx_stats(x);
	assert_int_equal(a.flash_programs, 2);
	assert_int_equal(a.pages_ungrouped + a.pages_grouped, 0);
	fx_drain(x);
	/* Still ticketed and not programmed: nothing went to the device. */
	assert_int_equal(fx_activity(x).pages_in_flight, 2);
	assert_int_equal(nand_dev_stats(x->dev)->latency[NAND_OP_PROGRAM].count, 0);
	fx_verify(x, 0, 8);
	fx_flush(x);
	b = fx_stats(x);
	assert_int_equal(b.pages_ungrouped, 2);
	fx_crash(x);
	assert_int_equal(fx_ftl_create(x), 0);
	fx_verify_all(x);
	fx_free(x);
}

/* Crashes with pages waiting for partners: flushed data stays, the rest is old or new. */
static void test_crash_with_waiting_pages(void **state)
{
	struct fx_crash_log l;
	struct fx *x;

	(void)state;
	x = planes_new(true, true);
	fx_log_init(&l, x);
	for (int cycle = 0; cycle < 4; cycle++) {
		for (int i = 0; i < 400; i++) {
			uint32_t nr = 1 + fx_below(x, 8);

			fx_log_write(&l, fx_below(x, 6000 - nr), nr);
			if (fx_below(x, 100) == 0) {
				fx_flush(x);
				fx_log_flushed(&l);
			}
		}
		fx_crash(x);
		assert_int_equal(fx_ftl_create(x), 0);
		fx_log_check(&l);
		fx_check_invariants(x, false);
	}
	fx_free(x);
}

/* A one-page write buffer: pages cannot wait for partners, nothing stalls through GC. */
static void test_one_page_buffer(void **state)
{
	struct ftl_config cfg;
	struct fx_geo g;
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.write_buffer_pages = 1;
	geo_planes(&g);
	x = fx_new(&g, &cfg, false);
	fx_seq_fill(x, 0, x->cap);
	fx_random_writes(x, x->cap, 8, x->cap);
	fx_flush(x);
	assert_true(fx_stats(x).gc_runs > 0);
	fx_verify_all(x);
	fx_check_invariants(x, false);
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_groups_small_writes),
		FX_TEST(test_groups_deep_writes),
		FX_TEST(test_waiting_page_flush),
		FX_TEST(test_crash_with_waiting_pages),
		FX_TEST(test_one_page_buffer),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
