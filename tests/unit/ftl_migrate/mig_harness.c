/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The migration tests' harness (migrate_tests.h): an instance over half
 * the dies of a device, its driver with wake-ups, the persisted
 * resources, and a concurrent load checked against the shadow.
 */
#include "migrate_tests.h"

/* Virtual time a migration may take before the test calls it stuck. */
#define MT_WATCHDOG_NS (600ull * 1000 * 1000 * 1000)

/* ---- the environment: the virtual-time driver's, plus wake-ups and the end ---- */

static int mt_submit(void *ctx, struct nand_op *op)
{
	struct mt *t = ctx;

	return nand_submit(t->x->dev, op, blox_clock_now(&t->x->vd.clock));
}

static uint64_t mt_now(void *ctx)
{
	struct mt *t = ctx;

	return blox_clock_now(&t->x->vd.clock);
}

static void mt_kick(void *ctx)
{
	struct mt *t = ctx;

	t->x->vd.kicked = true; /* the fixture's own loop (fx_io()) sees it too */
}

static int mt_sync(void *ctx)
{
	struct mt *t = ctx;

	return t->x->store->ops->sync(t->x->store);
}

static void mt_migrated(void *ctx, int status)
{
	struct mt *t = ctx;

	t->migrated_calls++;
	t->migrated_status = status;
	/* As a resource manager would: persist where the instance is now. */
	ftl_get_resources(t->x->f, &t->saved);
	assert_false(t->saved.mig_active);
}

static void mt_wake_at(void *ctx, uint64_t ns)
{
	struct mt *t = ctx;

	t->wakes++;
	if (ns < t->wake)
		t->wake = ns;
}

static const struct ftl_env_ops mt_ops = {
	.submit = mt_submit,
	.now = mt_now,
	.kick = mt_kick,
	.sync = mt_sync,
	.migrated = mt_migrated,
	.wake_at = mt_wake_at,
};

static void mt_install(struct mt *t)
{
	t->x->vd.env.ops = &mt_ops;
	t->x->vd.env.ctx = t;
	t->wake = UINT64_MAX;
}

int mt_create(struct mt *t, const struct ftl_resources *res)
{
	struct fx *x = t->x;

	x->res = *res;
	mt_install(t);
	return fx_ftl_create(x);
}

struct mt *mt_new(uint32_t blocks, uint32_t pages, uint32_t first, uint32_t nr, bool file,
		  const struct ftl_config *cfg)
{
	return mt_new_planes(2, blocks, pages, first, nr, file, cfg);
}

struct mt *mt_new_planes(uint32_t planes, uint32_t blocks, uint32_t pages, uint32_t first,
			 uint32_t nr, bool file, const struct ftl_config *cfg)
{
	struct fx_geo g = { .channels = 4, .dies_per_channel = 2, .planes = planes,
			    .blocks = blocks, .pages = pages };
	struct mt *t = fx_tmp_alloc(sizeof(*t));
	struct ftl_resources res = { 0 };
	struct fx *x;

	x = t->x = fx_new(&g, cfg, file);
	/* fx_new() formatted every die: start again on a clean device. */
	ftl_destroy(x->f);
	x->f = NULL;
	for (uint64_t b = 0; b < nand_blocks(&x->nc.geo); b++)
		if (x->store->blocks[b].write_ptr)
			assert_int_equal(x->store->ops->erase(x->store, b), 0);
	res.nr_dies = 4;
	for (uint32_t i = 0; i < 4; i++)
		res.dies[i] = i * 2;
	res.first_block = first;
	res.nr_blocks = nr;
	assert_int_equal(mt_create(t, &res), 0);
	memset(x->shadow, 0, (size_t)x->cap * sizeof(*x->shadow));
	mt_persist(t);
	return t;
}

void mt_persist(struct mt *t)
{
	ftl_get_resources(t->x->f, &t->saved);
}

void mt_crash(struct mt *t)
{
	fx_crash(t->x);
	assert_int_equal(mt_create(t, &t->saved), 0);
}

static void mt_shutdown_done(void *arg, int status)
{
	int *st = arg;

	*st = status;
}

void mt_clean_restart(struct mt *t)
{
	struct fx *x = t->x;
	int st = 1;

	assert_int_equal(ftl_shutdown(x->f, mt_shutdown_done, &st), 0);
	while (st == 1)
		assert_true(mt_step(t));
	assert_int_equal(st, 0);
	mt_persist(t);
	ftl_destroy(x->f);
	x->f = NULL;
	if (x->file) {
		nand_store_close(x->store);
		assert_int_equal(nand_store_file_open(x->path, &x->nc.geo, &x->store), 0);
	}
	nand_dev_destroy(x->dev);
	assert_int_equal(nand_dev_create(&x->nc, x->store, &x->dev), 0);
	ftl_vdrive_init(&x->vd, x->dev, x->store);
	assert_int_equal(mt_create(t, &t->saved), 0);
}

/* ---- driving ---- */

/* The migration's private state, on stderr. */
static void mt_dump(const struct mt *t)
{
	const struct ftl *f = t->x->f;
	const struct ftl_mig *m = &f->mig;

	fprintf(stderr, "mig: state %d status %d active %d reverse %d sb %d switched %d phase %d "
		"items %u/%u pending %u next_ns %lu now %lu wake %lu\n  on_dst:",
		m->state, m->status, m->active, m->reverse, m->sb, m->switched, m->phase,
		m->items_done, m->items, m->pending, (unsigned long)m->next_ns,
		(unsigned long)t->x->vd.clock.virt_ns, (unsigned long)t->wake);
	for (uint32_t sb = 0; sb < f->nr_sb; sb++)
		fprintf(stderr, " %u", m->on_dst[sb]);
	fprintf(stderr, "\n");
}

bool mt_step(struct mt *t)
{
	struct fx *x = t->x;
	uint64_t next, now = blox_clock_now(&x->vd.clock);

	t->steps++;
	if (x->vd.kicked) {
		x->vd.kicked = false;
		ftl_process(x->f);
		return true;
	}
	next = nand_next_event(x->dev);
	if (t->wake != UINT64_MAX && t->wake <= next) {
		uint64_t w = t->wake;

		t->wake = UINT64_MAX;
		if (w > now)
			blox_clock_set(&x->vd.clock, w);
		ftl_process(x->f);
		return true;
	}
	if (next == UINT64_MAX)
		return false;
	blox_clock_set(&x->vd.clock, next);
	nand_advance(x->dev, next);
	return true;
}

struct ftl_migrate_progress mt_prog(const struct mt *t)
{
	struct ftl_migrate_progress p;

	ftl_migrate_progress(t->x->f, &p);
	return p;
}

void mt_start(struct mt *t, uint32_t slot, uint32_t dst, uint32_t share)
{
	struct ftl_migrate_cfg c = { .share = share };

	assert_int_equal(ftl_migrate_start(t->x->f, slot, dst, &c), 0);
	mt_persist(t); /* before anything else runs */
	assert_true(t->saved.mig_active);
	assert_int_equal(t->saved.dies[slot], dst);
}

void mt_run_until(struct mt *t, struct mt_load *ld, bool (*pred)(struct mt *t), const char *what)
{
	struct fx *x = t->x;
	uint64_t start = x->vd.clock.virt_ns, last = start, same = 0;

	while (!pred(t)) {
		if (ld)
			mt_load_pump(ld);
		if (!mt_step(t)) {
			if (ld && !ld->stopped)
				continue; /* the load issues more */
			fx_dump(x);
			mt_dump(t);
			fail_msg("stuck: %s (state %d)", what, mt_prog(t).state);
		}
		same = x->vd.clock.virt_ns == last ? same + 1 : 0;
		last = x->vd.clock.virt_ns;
		if (last - start > MT_WATCHDOG_NS || same > 10000000) {
			fx_dump(x);
			mt_dump(t);
			fail_msg("livelock: %s after %.1f s of virtual time", what,
				 (double)(last - start) / 1e9);
		}
	}
}

static bool mig_done(struct mt *t)
{
	return mt_prog(t).state == FTL_MIG_DONE && t->migrated_calls > 0;
}

void mt_run_done(struct mt *t, struct mt_load *ld)
{
	mt_run_until(t, ld, mig_done, "migration to end");
}

void mt_run_for(struct mt *t, struct mt_load *ld, uint64_t ns)
{
	struct fx *x = t->x;
	uint64_t end = x->vd.clock.virt_ns + ns;

	while (x->vd.clock.virt_ns < end) {
		if (ld)
			mt_load_pump(ld);
		if (!mt_step(t)) {
			if (ld && !ld->stopped)
				continue;
			blox_clock_set(&x->vd.clock, end);
			ftl_process(x->f);
		}
	}
}

/* ---- checks ---- */

uint64_t mt_die_pages(const struct mt *t, uint32_t die)
{
	const struct fx *x = t->x;
	const struct nand_geometry *g = &x->nc.geo;
	uint64_t n = 0;

	for (uint32_t p = 0; p < g->planes_per_die; p++)
		for (uint32_t b = x->res.first_block; b < x->res.first_block + x->res.nr_blocks;
		     b++) {
			struct nand_addr a = { .ch = die / g->dies_per_channel,
					       .die = die % g->dies_per_channel,
					       .plane = p,
					       .block = b };

			const struct nand_block_meta *m = &x->store->blocks[nand_block_index(g, &a)];

			/* A bad block keeps what it held (it cannot be erased): no one's any more. */
			n += m->flags & NAND_BLOCK_BAD ? 0 : m->write_ptr;
		}
	return n;
}

uint32_t mt_sb_pages(const struct mt *t, uint32_t die, uint32_t sb)
{
	const struct nand_geometry *g = &t->x->nc.geo;
	uint32_t n = 0;

	for (uint32_t p = 0; p < g->planes_per_die; p++) {
		struct nand_addr a = { .ch = die / g->dies_per_channel,
				       .die = die % g->dies_per_channel,
				       .plane = p,
				       .block = t->x->res.first_block + sb };

		n += t->x->store->blocks[nand_block_index(g, &a)].write_ptr;
	}
	return n;
}

void mt_expect_erased(const struct mt *t, uint32_t die)
{
	uint64_t n = mt_die_pages(t, die);

	if (n)
		fail_msg("die %u: %lu pages left in the instance's range", die, (unsigned long)n);
}

uint64_t mt_die_reads(const struct mt *t, uint32_t die)
{
	return nand_die_stats(t->x->dev, die)->ops[NAND_OP_READ];
}

/* ---- the load ---- */

void mt_load_init(struct mt_load *ld, struct mt *t, uint32_t span)
{
	memset(ld, 0, sizeof(*ld));
	ld->t = t;
	ld->span = span;
	ld->write_pct = 50;
	ld->trim_pct = 10;
	ld->buf = fx_tmp_alloc((size_t)MT_QD * FX_MAX_IO * FTL_UNIT);
}

static bool overlaps(const struct mt_load *ld, uint32_t lba, uint32_t nr)
{
	for (int i = 0; i < MT_QD; i++)
		if (ld->busy[i] && lba < ld->lba[i] + ld->nr[i] && ld->lba[i] < lba + nr)
			return true;
	return false;
}

static void complete(struct mt_load *ld, int i)
{
	struct fx *x = ld->t->x;
	struct fx_req *r = &ld->req[i];

	if (r->io.status)
		fail_msg("op %d lba %u nr %u: status %d", r->io.op, r->io.lba, r->io.nr,
			 r->io.status);
	if (r->io.op == FTL_IO_READ) {
		/* Nothing wrote these LBAs meanwhile: the shadow holds. */
		for (uint32_t u = 0; u < r->io.nr; u++) {
			uint32_t lba = r->io.lba + u;
			uint32_t got = fx_decode(r->io.buf + (size_t)u * FTL_UNIT, lba);

			if (got != x->shadow[lba])
				fail_msg("read during the migration: lba %u version %d, want %u", lba,
					 (int)got, x->shadow[lba]);
		}
		ld->units_read += r->io.nr;
	}
	if (r->io.op == FTL_IO_FLUSH) {
		/* Alone in flight: everything in the shadow is durable now. */
		if (ld->log)
			fx_log_flushed(ld->log);
		ld->flushing = false;
		ld->draining = false;
		ld->since_flush = 0;
	}
	ld->busy[i] = false;
}

static void issue(struct mt_load *ld, int i)
{
	struct fx *x = ld->t->x;
	uint8_t *buf = ld->buf + (size_t)i * FX_MAX_IO * FTL_UNIT;
	uint32_t dice = fx_below(x, 100), nr, lba;
	enum ftl_io_op op;

	for (int tries = 0;; tries++) {
		nr = 1 + fx_below(x, 8);
		lba = fx_below(x, ld->span - nr + 1);
		if (!overlaps(ld, lba, nr))
			break;
		if (tries > 20)
			return;
	}
	op = dice < ld->write_pct ? FTL_IO_WRITE
	     : dice < ld->write_pct + ld->trim_pct ? FTL_IO_TRIM
						    : FTL_IO_READ;
	if (op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < nr; u++) {
			uint32_t v = (uint32_t)++x->ver;

			fx_fill(buf + (size_t)u * FTL_UNIT, lba + u, v);
			x->shadow[lba + u] = v;
		}
		ld->writes++;
	} else if (op == FTL_IO_TRIM) {
		for (uint32_t u = 0; u < nr; u++)
			x->shadow[lba + u] = 0;
		ld->trims++;
	} else {
		ld->reads++;
	}
	if (ld->log && op != FTL_IO_READ)
		fx_log_add(ld->log, lba, nr);
	ld->lba[i] = lba;
	ld->nr[i] = nr;
	ld->busy[i] = true;
	assert_int_equal(fx_submit(x, &ld->req[i], op, lba, nr, op == FTL_IO_TRIM ? NULL : buf,
				   false),
			 0);
	ld->since_flush++;
}

void mt_load_pump(struct mt_load *ld)
{
	bool any = false;

	for (int i = 0; i < MT_QD; i++)
		if (ld->busy[i] && ld->req[i].done)
			complete(ld, i);
	if (ld->flush_every && ld->since_flush >= ld->flush_every)
		ld->draining = true;
	for (int i = 0; i < MT_QD; i++)
		any |= ld->busy[i];
	if (ld->draining) {
		if (!any && !ld->flushing && !ld->stopped) {
			ld->flushing = true;
			ld->lba[0] = ld->nr[0] = 0;
			ld->busy[0] = true;
			ld->flushes++;
			assert_int_equal(fx_submit(ld->t->x, &ld->req[0], FTL_IO_FLUSH, 0, 0, NULL,
						   false),
					 0);
		}
		return;
	}
	if (ld->stopped)
		return;
	for (int i = 0; i < MT_QD; i++)
		if (!ld->busy[i])
			issue(ld, i);
}

void mt_load_drain(struct mt_load *ld)
{
	struct fx *x = ld->t->x;
	uint64_t start = x->vd.clock.virt_ns;
	bool any;

	ld->stopped = true;
	for (;;) {
		mt_load_pump(ld);
		any = false;
		for (int i = 0; i < MT_QD; i++)
			any |= ld->busy[i];
		if (!any)
			return;
		if (!mt_step(ld->t) || x->vd.clock.virt_ns - start > FX_WATCHDOG_NS) {
			fx_dump(x);
			fail_msg("the load's requests never completed");
		}
	}
}

void mt_load_reset(struct mt_load *ld)
{
	for (int i = 0; i < MT_QD; i++)
		ld->busy[i] = false;
	ld->draining = ld->flushing = false;
	ld->since_flush = 0;
}
