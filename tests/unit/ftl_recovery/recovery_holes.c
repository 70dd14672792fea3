/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reopening the streams' superblocks after crashes with programs in
 * flight, faked in the store: a lost page (padded), holes too wide and
 * garbage (closed); a version 1 checkpoint; crash cycles.
 */
#include "recovery_tests.h"

static void fake_program(struct fx *x, struct fx_crash_log *l, uint32_t sb, uint32_t p,
			 enum ftl_stream_id s, uint32_t lba, uint64_t *wseq, bool garbage)
{
	const struct nand_geometry *g = &x->nc.geo;
	uint32_t slots = g->page_size / FTL_UNIT, pages = g->pages_per_block * x->lay.stripe;
	uint8_t *page = fx_tmp_alloc(g->page_size), *raw = fx_tmp_alloc(g->oob_size);
	struct ftl_oob oob = { .magic = FTL_OOB_MAGIC, .nslots = slots,
			       .stream = FTL_OOB_STREAM_TAG(s) };
	struct nand_addr a;

	for (uint32_t k = 0; k < slots; k++) {
		x->shadow[lba + k] = (uint32_t)++x->ver;
		fx_fill(page + (size_t)k * FTL_UNIT, lba + k, x->shadow[lba + k]);
		oob.slot[k] = (struct ftl_oob_slot){ .lba = lba + k, .kind = UK_DATA,
						     .wseq = ++*wseq, .dseq = *wseq };
	}
	if (l)
		fx_log_add(l, lba, slots);
	memcpy(raw, &oob, sizeof(oob));
	if (garbage)
		memset(raw, 0x5a, g->oob_size);
	ftl_inspect_page_addr(x->f, sb * pages + p, &a);
	assert_int_equal(x->store->blocks[nand_block_index(g, &a)].write_ptr, a.page);
	assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a), page, raw), 0);
	fx_tmp_free(page);
	fx_tmp_free(raw);
}

enum hole {
	HOLE_ONE, /* one page lost, the next made it: padded, resumed after */
	HOLE_WIDE, /* one die far ahead of the others: closed */
	HOLE_GARBAGE, /* the page after the position reads as garbage: closed */
};

/*
 * A crash with programs in flight: fake what the store may hold after it
 * (the FTL is gone; @x->f is the old instance until the restart, only for
 * its geometry), on the random stream's superblock.
 */
static void hole(enum hole how)
{
	struct stream_pos before[FTL_STREAMS];
	struct fx_crash_log l;
	struct fx *x;
	uint64_t wseq;
	uint32_t sb, at, pages, last, fake_ver;

	x = rec_new(NULL);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, 4000);
	touch_all_streams(x, &l);
	fx_flush(x);
	fx_log_flushed(&l);
	streams_get(x, before);
	sb = (uint32_t)before[FTL_STREAM_RAND].sb;
	at = before[FTL_STREAM_RAND].next / x->lay.slots;
	pages = x->lay.pages_per_block * x->lay.stripe;
	assert_true(at + 2 + x->lay.nr_wbufs / x->lay.stripe * x->lay.stripe + 2 * x->lay.stripe < pages);
	wseq = fx_activity(x).wseq;
	/* Page @at was in flight and is lost; what follows made it. */
	switch (how) {
	case HOLE_ONE:
		fake_program(x, &l, sb, at + 1, FTL_STREAM_RAND, 8000, &wseq, false);
		last = at + 1;
		break;
	case HOLE_WIDE:
		/* The die of page at + 1 ran more than a write buffer ahead. */
		last = at + 1;
		for (uint32_t i = 0;; i++, last += x->lay.stripe) {
			fake_program(x, &l, sb, last, FTL_STREAM_RAND, 8000 + i * x->lay.slots, &wseq,
				     false);
			if (last - at >= x->lay.nr_wbufs)
				break;
		}
		break;
	case HOLE_GARBAGE:
		fake_program(x, &l, sb, at + 1, FTL_STREAM_RAND, 8000, &wseq, true);
		last = at + 1;
		break;
	}
	fake_ver = x->shadow[8000];
	fx_crash(x);
	fx_restart(x);
	if (how == HOLE_ONE) {
		/* The lost page is padding now; the stream goes on after the last. */
		assert_int_equal(fx_stream(x, FTL_STREAM_RAND).sb, (int32_t)sb);
		assert_int_equal(fx_stream(x, FTL_STREAM_RAND).next, (last + 1) * x->lay.slots);
		assert_true(sb_page_programmed(x, sb, at));
		assert_int_equal(sb_page_oob(x, sb, at).slot[0].kind, UK_PAD);
		assert_int_equal(sb_page_oob(x, sb, at).stream, FTL_OOB_STREAM_TAG(FTL_STREAM_RAND));
		assert_int_equal(partly_written_closed(x), 0);
	} else {
		/* In doubt: closed, full; the stream takes a new superblock. */
		assert_int_not_equal(fx_stream(x, FTL_STREAM_RAND).sb, (int32_t)sb);
		assert_int_equal(fx_sb(x, sb).state, FTL_SB_FULL);
		assert_false(sb_page_programmed(x, sb, at));
		assert_int_equal(partly_written_closed(x), 1);
	}
	/* The other streams are unaffected. */
	assert_true(before[FTL_STREAM_SEQ].sb >= 0 &&
		    before[FTL_STREAM_SEQ].next < x->lay.units_per_sb);
	assert_int_equal(fx_stream(x, FTL_STREAM_SEQ).sb, before[FTL_STREAM_SEQ].sb);
	assert_int_equal(fx_stream(x, FTL_STREAM_SEQ).next, before[FTL_STREAM_SEQ].next);
	expect_streams_sane(x);
	/* What made it to flash is read back (but a garbage page). */
	fx_log_check(&l);
	if (how != HOLE_GARBAGE)
		assert_int_equal(x->shadow[8000], fake_ver); /* recovered */
	fx_verify(x, 8000, x->lay.slots);
	fx_check_invariants(x, false);
	/* Writing on fills the superblock without breaking a flash rule. */
	fx_random_writes(x, x->cap, 8, 3 * x->lay.units_per_sb);
	assert_false(fx_activity(x).fatal);
	fx_verify_all(x);
	clean_restart(x);
	fx_verify_all(x);
	fx_free(x);
}

void test_reopen_hole_padded(void **state)
{
	(void)state;
	hole(HOLE_ONE);
}

void test_reopen_hole_wide_closed(void **state)
{
	(void)state;
	hole(HOLE_WIDE);
}

void test_reopen_garbage_closed(void **state)
{
	(void)state;
	hole(HOLE_GARBAGE);
}

/*
 * A version 1 checkpoint (no stream positions; as written before them)
 * still loads; the streams are found by the scan.
 */
void test_checkpoint_v1_loads(void **state)
{
	const uint64_t magic_v1 = 0x31504b43584c42ull; /* "BLXCKP1" */
	const size_t v1_hdr = 120; /* bytes of a version 1 header */
	struct stream_pos before[FTL_STREAMS];
	struct fx *x;
	const struct nand_geometry *g;
	uint32_t sb, pages, used = 0;
	uint8_t *img, *oobs;
	uint64_t gen;

	(void)state;
	x = rec_new(NULL);
	g = &x->nc.geo;
	fx_seq_fill(x, 0, 3000);
	touch_all_streams(x, NULL);
	fx_shutdown(x);
	streams_get(x, before);
	/* Rewrite the newest checkpoint as version 1: read, erase, program. */
	gen = fx_activity(x).ckpt_gen;
	sb = (uint32_t)(gen % x->lay.ckpt_sbs);
	pages = x->lay.pages_per_block * x->lay.stripe;
	img = x->aux[1] = calloc(pages, g->page_size);
	oobs = x->aux[0] = calloc(pages, g->oob_size);
	assert_non_null(img);
	assert_non_null(oobs);
	while (used < pages && sb_page_programmed(x, sb, used)) {
		struct nand_addr a;

		ftl_inspect_page_addr(x->f, sb * pages + used, &a);
		assert_int_equal(x->store->ops->read(x->store, nand_page_index(g, &a),
						     img + (size_t)used * g->page_size,
						     oobs + (size_t)used * g->oob_size),
				 0);
		used++;
	}
	assert_true(used > 0);
	memcpy(img, &magic_v1, sizeof(magic_v1));
	memset(img + v1_hdr, 0, FTL_UNIT - v1_hdr);
	for (uint32_t s = 0; s < x->lay.stripe; s++) {
		struct nand_addr a;

		ftl_inspect_page_addr(x->f, sb * pages + s, &a);
		assert_int_equal(x->store->ops->erase(x->store, nand_block_index(g, &a)), 0);
	}
	for (uint32_t p = 0; p < used; p++) {
		struct nand_addr a;

		ftl_inspect_page_addr(x->f, sb * pages + p, &a);
		assert_int_equal(x->store->ops->program(x->store, nand_page_index(g, &a),
							img + (size_t)p * g->page_size,
							oobs + (size_t)p * g->oob_size),
				 0);
	}
	fx_crash(x);
	fx_restart(x);
	assert_true(fx_stats(x).recovered_from_checkpoint);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	/* It loaded the rewritten one (else the older and a scan), then wrote one. */
	assert_int_equal(fx_activity(x).ckpt_gen, gen + 1);
	for (int s = 0; s < FTL_STREAMS; s++) {
		if (before[s].sb < 0)
			continue;
		assert_int_equal(fx_stream(x, s).sb, before[s].sb);
		assert_int_equal(fx_stream(x, s).next, before[s].next);
	}
	fx_verify_all(x);
	fx_check_invariants(x, true);
	fx_free(x);
}

/*
 * Crash cycles with writes in flight: each restart gives the streams back
 * their superblocks (padding what was lost), so partly written closed
 * superblocks do not pile up, and the data is what the log allows.
 */
void test_reopen_crash_cycles(void **state)
{
	static struct rec_inflight q[CYCLE_QD];
	struct fx_crash_log l;
	struct fx *x;
	uint32_t reopened = 0;

	(void)state;
	x = rec_cycles_new(&l);
	for (int cycle = 0; cycle < 12; cycle++) {
		for (uint32_t i = 0; i < 300; i++) {
			uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap - 64);

			fx_log_write(&l, lba, nr);
			if (i % 20 == 0)
				fx_log_write(&l, lba, 32);
		}
		rec_crash_inflight(x, &l, q, false);
		for (int s = 0; s < FTL_STREAMS; s++)
			reopened += fx_stream(x, s).sb >= 0;
		expect_streams_sane(x);
		fx_log_check(&l);
		fx_check_invariants(x, false);
		/* GC collects the closed ones; the reopened never pile up. */
		assert_true(partly_written_closed(x) <= 2);
	}
	assert_true(reopened >= 12 * 2);
	fx_verify_all(x);
	fx_free(x);
}
