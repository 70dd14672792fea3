/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Restarts give the streams back their superblocks: after a clean stop at
 * the checkpoint's positions, after a crash past the last programmed page.
 */
#include "recovery_tests.h"

/* ---- reopening the streams' superblocks ---- */

bool sb_page_programmed(const struct fx *x, uint32_t sb, uint32_t p)
{
	struct nand_addr a;

	ftl_inspect_page_addr(x->f, sb * x->lay.pages_per_block * x->lay.stripe + p, &a);
	return x->store->blocks[nand_block_index(&x->nc.geo, &a)].write_ptr > a.page;
}

uint32_t partly_written_closed(const struct fx *x)
{
	uint32_t n = 0;

	for (uint32_t sb = x->lay.ckpt_sbs; sb < x->lay.nr_sb; sb++)
		if ((fx_sb(x, sb).state == FTL_SB_FULL || fx_sb(x, sb).state == FTL_SB_GC) &&
		    !sb_page_programmed(x, sb, x->lay.pages_per_block * x->lay.stripe - 1))
			n++;
	return n;
}

struct ftl_oob sb_page_oob(const struct fx *x, uint32_t sb, uint32_t p)
{
	uint8_t *raw = fx_tmp_alloc(x->nc.geo.oob_size);
	struct ftl_oob oob;
	struct nand_addr a;

	ftl_inspect_page_addr(x->f, sb * x->lay.pages_per_block * x->lay.stripe + p, &a);
	assert_int_equal(x->store->ops->read(x->store, nand_page_index(&x->nc.geo, &a), NULL, raw),
			 0);
	memcpy(&oob, raw, sizeof(oob));
	fx_tmp_free(raw);
	return oob;
}

void streams_get(const struct fx *x, struct stream_pos *p)
{
	for (int s = 0; s < FTL_STREAMS; s++)
		p[s] = (struct stream_pos){ fx_stream(x, s).sb, fx_stream(x, s).next };
}

void expect_streams_sane(const struct fx *x)
{
	uint32_t pages = x->lay.pages_per_block * x->lay.stripe;

	for (int s = 0; s < FTL_STREAMS; s++) {
		struct ftl_stream_info st = fx_stream(x, s);
		uint32_t at;

		if (st.sb < 0)
			continue;
		assert_int_equal(fx_sb(x, (uint32_t)st.sb).state, FTL_SB_OPEN);
		for (int t = 0; t < s; t++)
			assert_int_not_equal(fx_stream(x, t).sb, st.sb);
		if (st.filling)
			continue; /* a page filling: its place is taken */
		assert_int_equal(st.next % x->lay.slots, 0);
		at = st.next / x->lay.slots;
		for (uint32_t p = 0; p < pages; p++)
			if (sb_page_programmed(x, (uint32_t)st.sb, p) != (p < at))
				fail_msg("stream %d sb %d next page %u: page %u %s", s, st.sb, at, p,
					 p < at ? "not programmed" : "programmed");
		if (at)
			assert_int_equal(sb_page_oob(x, (uint32_t)st.sb, at - 1).stream,
					 FTL_OOB_STREAM_TAG(s));
	}
}

void touch_all_streams(struct fx *x, struct fx_crash_log *l)
{
	for (uint32_t i = 0; i < 40; i++) {
		uint32_t lba = fx_below(x, x->cap - 64);

		if (l) {
			fx_log_write(l, lba, 1); /* random stream */
			fx_log_write(l, (lba * 7) % (x->cap - 64), 32); /* sequential */
		} else {
			fx_write(x, lba, 1);
			fx_write(x, (lba * 7) % (x->cap - 64), 32);
		}
	}
}

/*
 * A clean stop and restart gives every stream back its superblock at the
 * exact unit it had reached: no partly written superblock is left behind,
 * however many restarts, and writes go on where they were (by stream).
 */
void test_reopen_after_clean_shutdown(void **state)
{
	struct ftl_config cfg;
	struct stream_pos before[FTL_STREAMS], after[FTL_STREAMS];
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 4 * FTL_UNIT; /* translation pages written back as we go */
	x = rec_new(&cfg);
	fx_seq_fill(x, 0, x->cap / 2);
	touch_all_streams(x, NULL);
	assert_int_equal(partly_written_closed(x), 0);
	for (int cycle = 0; cycle < 8; cycle++) {
		uint64_t padded;
		uint32_t lba;

		fx_shutdown(x);
		streams_get(x, before);
		padded = fx_stats(x).units_padded;
		fx_crash(x);
		fx_restart(x);
		assert_true(fx_stats(x).recovered_from_checkpoint);
		assert_int_equal(fx_stats(x).recovered_units, 0);
		/* Nothing was padded to come back. */
		assert_int_equal(fx_stats(x).units_padded, padded);
		streams_get(x, after);
		for (int s = 0; s < FTL_STREAMS; s++) {
			if (before[s].sb < 0 || before[s].next >= x->lay.units_per_sb) {
				assert_int_equal(after[s].sb, -1);
				continue;
			}
			assert_int_equal(after[s].sb, before[s].sb);
			assert_int_equal(after[s].next, before[s].next);
		}
		expect_streams_sane(x);
		assert_int_equal(partly_written_closed(x), 0);
		fx_check_invariants(x, true);
		/* A random write lands in the random stream's superblock. */
		lba = fx_below(x, x->cap);
		fx_write(x, lba, 1);
		if (after[FTL_STREAM_RAND].sb >= 0)
			assert_int_equal(fx_ppn_resident(x, lba) / x->lay.units_per_sb,
					 (uint32_t)after[FTL_STREAM_RAND].sb);
		touch_all_streams(x, NULL);
	}
	fx_verify_all(x);
	fx_free(x);
}

/*
 * A crash after a flush: every page is on flash, no holes. The scan finds
 * each stream's newest superblock by the stream tag in the OOB and resumes
 * after its last page; a second crash (right after the recovery's own
 * checkpoint) resumes from the checkpoint's positions.
 */
void test_reopen_after_crash(void **state)
{
	struct ftl_config cfg;
	struct stream_pos before[FTL_STREAMS], after[FTL_STREAMS];
	struct fx_crash_log l;
	struct fx *x;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 4 * FTL_UNIT;
	x = rec_new(&cfg);
	fx_log_init(&l, x);
	fx_seq_fill(x, 0, x->cap / 2);
	clean_restart(x);
	fx_log_flushed(&l);
	touch_all_streams(x, &l);
	fx_flush(x);
	fx_log_flushed(&l);
	streams_get(x, before);
	assert_true(before[FTL_STREAM_SEQ].sb >= 0 && before[FTL_STREAM_RAND].sb >= 0 && before[FTL_STREAM_TP].sb >= 0);
	fx_crash(x);
	fx_restart(x);
	assert_true(fx_stats(x).recovered_units > 0);
	streams_get(x, after);
	for (int s = 0; s < FTL_STREAMS; s++) {
		assert_int_equal(after[s].sb, before[s].sb);
		if (before[s].sb < 0)
			continue;
		/* Recovery writes translation pages back: that stream moved on. */
		if (s == FTL_STREAM_TP)
			assert_true(after[s].next >= before[s].next);
		else
			assert_int_equal(after[s].next, before[s].next);
	}
	expect_streams_sane(x);
	assert_int_equal(partly_written_closed(x), 0);
	assert_int_equal(fx_log_check(&l), 0);
	fx_check_invariants(x, false);

	/* At once again: the checkpoint's positions. */
	streams_get(x, before);
	fx_crash(x);
	fx_restart(x);
	assert_int_equal(fx_stats(x).recovered_units, 0);
	streams_get(x, after);
	for (int s = 0; s < FTL_STREAMS; s++) {
		assert_int_equal(after[s].sb, before[s].sb);
		assert_int_equal(after[s].next, before[s].next);
	}
	/* Separation holds: new writes land in their own stream's superblock. */
	fx_write(x, 5, 1);
	fx_log_add(&l, 5, 1);
	assert_int_equal(fx_ppn_resident(x, 5) / x->lay.units_per_sb, (uint32_t)after[FTL_STREAM_RAND].sb);
	fx_write(x, 1000, 32);
	fx_log_add(&l, 1000, 32);
	assert_int_equal(fx_ppn_resident(x, 1000) / x->lay.units_per_sb, (uint32_t)after[FTL_STREAM_SEQ].sb);
	fx_verify_all(x);
	fx_free(x);
}

/*
 * Program flash page @p of superblock @sb straight in the store as stream
 * @s would have: data units of @lba.. with new versions (recorded in the
 * shadow and the log), OOB write sequences from @wseq; or garbage.
 */
