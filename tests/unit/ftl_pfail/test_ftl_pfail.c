/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Program failures the FTL survives (ftl/pfail.c): a program forced to
 * fail (nand_fail_programs()) on the die a stream programs next, at
 * different pages of its superblock, in the host streams, during GC's
 * relocation and during translation-page writes. The host sees no error,
 * every LBA reads what it last wrote, a flush after the failure makes it
 * durable (a crash then loses none of it), once GC has emptied the
 * superblock its bad block is remapped to a spare of its plane (ftl/remap.c)
 * and the superblock goes on at full width, and a crash before GC moved
 * the data recovers with the flushed data intact and the block remapped
 * after.
 */
#include "engine_internal.h"
#include "ftl_fixture.h"
#include "ftl_internal.h"

/* The die stream @s programs next, or UINT32_MAX when it has no superblock open. */
static uint32_t stream_die(const struct fx *x, enum ftl_stream s)
{
	const struct ftl *f = x->f;
	const struct ftl_streamstate *st = &f->streams[s];
	struct nand_addr a;
	uint32_t fpid;

	if (st->wb)
		fpid = st->wb->fpid;
	else if (st->sb >= 0 && st->next < f->units_per_sb)
		fpid = ftl_ppn(f, (uint32_t)st->sb, st->next) / f->slots;
	else
		return UINT32_MAX;
	ftl_fpid_addr(f, fpid, &a);
	return nand_die_index(f->geo, &a);
}

/* The next @n programs of stream @s's next die fail; the superblock it writes. */
/* A block of superblock @sb stands in a spare (remap.c). */
static bool sb_remapped(const struct fx *x, uint32_t sb)
{
	for (uint32_t s = 0; s < x->f->stripe; s++)
		if (x->f->remap[(size_t)sb * x->f->stripe + s])
			return true;
	return false;
}

static int32_t arm_stream(struct fx *x, enum ftl_stream s, uint32_t n)
{
	uint32_t die = stream_die(x, s);

	assert_true(die != UINT32_MAX);
	assert_int_equal(nand_fail_programs(x->dev, die, n), 0);
	return x->f->streams[s].sb;
}

/*
 * Failing the program of one stream exactly: the FTL's submits pass
 * through here; the first program of stream @target submitted with no
 * other program ahead of it on its die arms the die: it fails.
 */
static struct {
	const struct ftl_env_ops *orig;
	struct ftl_env_ops ops;
	struct fx *x;
	int target; /* enum ftl_stream, -1: armed already */
	int32_t sb; /* the superblock of the page armed */
} pick;

static int pick_submit(void *ctx, struct nand_op *op)
{
	struct ftl *f = pick.x->f;
	struct ftl_wbuf *wb = op->cb_arg;
	uint32_t die = nand_die_index(f->geo, &op->addr);
	const struct nand_die *d = &pick.x->dev->dies[die];
	/* No program ahead of it on the die: it is the next to complete there. */
	bool first = !d->nq_prio[NAND_PRIO_HOST_WRITE] && !d->nq_prio[NAND_PRIO_GC_WRITE] &&
		     !(d->cur && d->cur->kind == NAND_OP_PROGRAM) &&
		     !(d->suspended && d->suspended->kind == NAND_OP_PROGRAM);

	if (pick.target >= 0 && op->kind == NAND_OP_PROGRAM && wb >= f->wbufs &&
	    wb < f->wbufs + f->nr_wbufs && wb->stream == (uint32_t)pick.target && first) {
		pick.target = -1;
		pick.sb = (int32_t)ftl_ppn_sb(f, wb->fpid * f->slots);
		assert_int_equal(nand_fail_programs(pick.x->dev, die, 1), 0);
	}
	return pick.orig->submit(ctx, op);
}

/* Fail a program of stream @s (pick_submit()). */
static void pick_stream(struct fx *x, enum ftl_stream s)
{
	if (x->f->env.ops == &pick.ops)
		x->f->env.ops = pick.orig;
	pick.orig = x->f->env.ops;
	pick.ops = *pick.orig;
	pick.ops.submit = pick_submit;
	pick.x = x;
	pick.target = (int)s;
	pick.sb = -1;
	x->f->env.ops = &pick.ops;
}

/*
 * Run @io until a page of stream @s failed (a program queued on the die
 * meanwhile may take the failure instead: then again); the failures so
 * far, and the superblock in *@sb.
 */
static uint64_t fail_stream(struct fx *x, enum ftl_stream s, void (*io)(struct fx *x),
			    int32_t *sb)
{
	uint64_t failures = 0;

	for (int tries = 0; tries < 8; tries++) {
		pick_stream(x, s);
		for (int i = 0; i < 20000 && pick.sb < 0; i++)
			io(x);
		assert_true(pick.sb >= 0);
		fx_drain(x);
		failures++;
		assert_int_equal(nand_dev_stats(x->dev)->rel.program_failures, failures);
		if (ftl_sb_has_bad_block(x->f, (uint32_t)pick.sb) ||
		    sb_remapped(x, (uint32_t)pick.sb)) {
			*sb = pick.sb;
			return failures;
		}
	}
	fail_msg("no program of stream %d failed", (int)s);
	return 0;
}

/*
 * A few overwrites over the first two thirds (GC runs, and the spare
 * survives a few retirements), then the host waits: GC's programs go on alone.
 */
static void writes_then_quiet(struct fx *x)
{
	fx_random_writes(x, x->cap / 3 * 2, 8, 64);
	fx_drain(x);
}

/* Trims of 8 units anywhere: each writes its translation page back, and no data. */
static void small_trims(struct fx *x)
{
	fx_trim(x, fx_below(x, x->cap - 8), 8);
}


static uint32_t bad_blocks(const struct fx *x)
{
	uint32_t n = 0;

	for (uint64_t b = 0; b < nand_blocks(&x->nc.geo); b++)
		n += (x->store->blocks[b].flags & NAND_BLOCK_BAD) != 0;
	return n;
}

/*
 * Drain, then: the failures are counted, their blocks remapped to spares
 * (a donor superblock retired for them), every LBA intact.
 */
static void check_survived(struct fx *x, uint64_t failures, int32_t sb)
{
	struct ftl_stats st;

	fx_drain(x);
	st = fx_stats(x);
	/* The FTL counts its programs that failed, those queued behind on the bad block too. */
	assert_true(st.program_failures >= failures);
	assert_int_equal(nand_dev_stats(x->dev)->rel.program_failures, failures);
	assert_true(st.superblocks_retired >= 1);
	assert_true(st.remapped_grown >= 1);
	if (sb >= 0) {
		/* Full width again: its bad block stands in a spare, it is not retired. */
		assert_true(sb_remapped(x, (uint32_t)sb));
		assert_false(ftl_sb_has_bad_block(x->f, (uint32_t)sb));
		assert_int_not_equal(fx_sb(x, (uint32_t)sb).state, FTL_SB_BAD);
	}
	assert_int_equal(x->f->pfail_wbufs, 0);
	assert_int_equal(x->f->fatal, 0);
	fx_verify_all(x);
	fx_check_invariants(x, false);
}

/* 64 superblocks, over-provisioning of 30%: room for several retired before read-only. */
static struct fx *pf_new_cfg(struct ftl_config *cfg)
{
	struct fx_geo g;

	fx_geo_small(&g);
	g.blocks = 64;
	cfg->op_permille = 300;
	return fx_new(&g, cfg, true);
}

static struct fx *pf_new(void)
{
	struct ftl_config cfg;

	fx_cfg_default(&cfg);
	return pf_new_cfg(&cfg);
}

/* Failures of host data pages at different pages of the open superblock. */
static void test_host_pages(void **state)
{
	static const uint32_t before[] = { 0, 8, 100, 333 };
	struct fx *x;

	(void)state;
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
		int32_t sb;

		x = pf_new();
		fx_seq_fill(x, 0, 64 + before[i]);
		sb = arm_stream(x, ST_SEQ, 1);
		fx_seq_fill(x, 2000, 256); /* the failure and what follows */
		fx_random_writes(x, 4000, 4, 200);
		fx_flush(x); /* waits for GC to move the failed page's data */
		assert_int_equal(x->f->pfail_wbufs, 0);
		assert_true(fx_stats(x).program_failures >= 1);
		assert_true(fx_stats(x).pfail_units > 0);
		check_survived(x, 1, sb);
		assert_int_equal(bad_blocks(x), 1);
		/* The FTL goes on writing elsewhere. */
		fx_random_writes(x, x->cap, 8, 2000);
		fx_verify_all(x);
		fx_free(x);
	}
}

/*
 * A write that failed (writes stopped) may have placed some of its units:
 * each LBA holds its old version or the new one, no other; the shadow
 * takes what it holds.
 */
static void failed_write(struct fx *x, uint32_t lba, uint32_t nr, const uint32_t *old)
{
	assert_int_equal(fx_io(x, FTL_IO_READ, lba, nr, x->rbuf, false), 0);
	for (uint32_t k = 0; k < nr; k++) {
		uint32_t v = fx_decode(x->rbuf + (size_t)k * FTL_UNIT, lba + k);

		if (v != old[k] && v != x->shadow[lba + k])
			fail_msg("lba %u: version %u after a failed write of %u over %u", lba + k, v,
				 x->shadow[lba + k], old[k]);
		x->shadow[lba + k] = v;
	}
}

/* A failure every few programs on one die, until the spare runs out: read-only, no data lost. */
static void test_until_read_only(void **state)
{
	struct fx *x;
	int rc = 0;

	(void)state;
	x = pf_new();
	fx_seq_fill(x, 0, x->cap / 2);
	for (int round = 0; round < 256 && !rc; round++) {
		uint32_t *saved = fx_tmp_alloc(8 * sizeof(*saved));

		assert_int_equal(nand_fail_programs(x->dev, (uint32_t)round % 4, 1), 0);
		for (int i = 0; i < 200 && !rc; i++) {
			uint32_t nr = 1 + fx_below(x, 8), lba = fx_below(x, x->cap / 2 - nr);

			memcpy(saved, x->shadow + lba, nr * sizeof(*saved));
			fx_prepare(x, lba, nr);
			rc = fx_io(x, FTL_IO_WRITE, lba, nr, x->wbuf, false);
			if (rc)
				failed_write(x, lba, nr, saved);
		}
		fx_tmp_free(saved);
	}
	assert_int_equal(rc, -ENOSPC);
	fx_drain(x);
	assert_true(fx_stats(x).program_failures >= 2);
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 0, 1, x->wbuf, false), -ENOSPC);
	fx_verify_all(x);
	fx_free(x);
}

/* A failure of a page GC relocates into. */
static void test_gc_relocation(void **state)
{
	struct fx *x;
	uint64_t runs, failures;
	int32_t sb = -1;

	(void)state;
	x = pf_new();
	fx_seq_fill(x, 0, x->cap / 3 * 2);
	runs = fx_stats(x).gc_runs;
	failures = fail_stream(x, ST_GC, writes_then_quiet, &sb);
	fx_random_writes(x, x->cap / 3 * 2, 8, 3000);
	fx_flush(x);
	assert_true(fx_stats(x).gc_runs > runs);
	check_survived(x, failures, sb);
	fx_free(x);
}

/* A failure of a translation page's write (the mapping of the LBAs it holds). */
static void test_tp_write(void **state)
{
	struct ftl_config cfg;
	struct fx *x;
	uint64_t failures;
	int32_t sb = -1;

	(void)state;
	fx_cfg_default(&cfg);
	cfg.cmt_bytes = 4 * 4096; /* evictions write translation pages back */
	x = pf_new_cfg(&cfg);
	fx_random_writes(x, x->cap, 8, 4000);
	fx_flush(x); /* no data page left filling */
	failures = fail_stream(x, ST_TP, small_trims, &sb);
	fx_trim(x, 100, 50);
	fx_random_writes(x, x->cap, 8, 2000);
	fx_flush(x);
	check_survived(x, failures, sb);
	fx_free(x);
}

/*
 * A crash after a failure: before the flush, unflushed data may be old or
 * new and the flushed stays; after it, the data of the failed page too.
 * Recovery keeps the bad superblock closed and GC retires it.
 */
static void test_crash_after_failure(void **state)
{
	struct fx_crash_log l;
	struct fx *x;

	(void)state;
	for (int flushed = 0; flushed < 2; flushed++) {
		x = pf_new();
		fx_log_init(&l, x);
		fx_seq_fill(x, 0, 1500);
		fx_flush(x);
		fx_log_flushed(&l);
		arm_stream(x, ST_SEQ, 1);
		for (uint32_t lba = 2000; lba < 2256; lba += 8)
			fx_log_write(&l, lba, 8);
		while (!fx_stats(x).program_failures)
			assert_true(fx_step(x));
		if (flushed) {
			fx_flush(x);
			fx_log_flushed(&l);
		}
		fx_crash(x);
		assert_int_equal(bad_blocks(x), 1);
		assert_int_equal(fx_ftl_create(x), 0);
		fx_log_check(&l);
		fx_drain(x);
		/* The donor of the spare; the block remapped. */
		assert_int_equal(fx_stats(x).superblocks_retired, 1);
		assert_int_equal(fx_stats(x).remapped_blocks, 1);
		fx_log_check(&l);
		fx_check_invariants(x, false);
		/* And writes go on. */
		fx_random_writes(x, 3000, 8, 1000);
		fx_verify(x, 0, FX_MAX_IO);
		fx_free(x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_host_pages),
		FX_TEST(test_until_read_only),
		FX_TEST(test_gc_relocation),
		FX_TEST(test_tp_write),
		FX_TEST(test_crash_after_failure),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
