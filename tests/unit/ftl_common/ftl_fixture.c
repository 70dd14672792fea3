/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FTL tests' fixture (see ftl_fixture.h): device and store set-up,
 * the virtual-time driver loop, synchronous I/O against a shadow, the
 * invariant check and the crash log.
 */
#include <unistd.h>

#include "ftl_fixture.h"
#include "ftl_internal.h"

/* Set while ftl_submit() runs: a completion then is a bug. */
static bool fx_in_submit;

/* Fixtures alive, freed by fx_teardown() when a test fails midway. */
#define FX_LIVE 4
static struct fx *fx_live[FX_LIVE];
/* Helper scratch memory, also freed by fx_teardown() after a failure. */
#define FX_TMP 8
static void *fx_tmp[FX_TMP];

void *fx_tmp_alloc(size_t size)
{
	for (int i = 0; i < FX_TMP; i++)
		if (!fx_tmp[i]) {
			fx_tmp[i] = calloc(1, size);
			assert_non_null(fx_tmp[i]);
			return fx_tmp[i];
		}
	fail_msg("fx_tmp: full");
	return NULL;
}

void fx_tmp_free(void *p)
{
	for (int i = 0; i < FX_TMP; i++)
		if (fx_tmp[i] == p) {
			free(p);
			fx_tmp[i] = NULL;
		}
}

static uint64_t fx_rand(struct fx *x)
{
	x->rng ^= x->rng << 13;
	x->rng ^= x->rng >> 7;
	x->rng ^= x->rng << 17;
	return x->rng;
}

uint32_t fx_below(struct fx *x, uint32_t n)
{
	return (uint32_t)(fx_rand(x) % n);
}

/* ---- data pattern ---- */

static uint32_t fx_word(uint32_t lba, uint32_t ver, uint32_t k)
{
	uint32_t v = lba * 2654435761u ^ ver * 40503u ^ k * 2246822519u;

	return v ^ (v >> 15);
}

void fx_fill(uint8_t *unit, uint32_t lba, uint32_t ver)
{
	uint32_t *w = (uint32_t *)unit;

	w[0] = lba;
	w[1] = ver;
	for (uint32_t k = 2; k < FTL_UNIT / 4; k++)
		w[k] = fx_word(lba, ver, k);
}

uint32_t fx_decode(const uint8_t *unit, uint32_t lba)
{
	const uint32_t *w = (const uint32_t *)unit;
	uint32_t k;

	if (w[0] == 0 && w[1] == 0) {
		for (k = 2; k < FTL_UNIT / 4 && !w[k]; k++)
			;
		return k == FTL_UNIT / 4 ? 0 : UINT32_MAX;
	}
	if (w[0] != lba || w[1] == 0)
		return UINT32_MAX;
	for (k = 2; k < FTL_UNIT / 4; k++)
		if (w[k] != fx_word(lba, w[1], k))
			return UINT32_MAX;
	return w[1];
}

/* ---- set-up ---- */

void fx_geo_small(struct fx_geo *g)
{
	*g = (struct fx_geo){ .channels = 4, .dies_per_channel = 1, .planes = 1,
			      .blocks = 32, .pages = 48 };
}

void fx_cfg_default(struct ftl_config *c)
{
	ftl_config_default(c);
	c->idle_ns = UINT64_MAX / 4;
}

static void fx_dev_open(struct fx *x)
{
	assert_int_equal(nand_dev_create(&x->nc, x->store, &x->dev), 0);
	ftl_vdrive_init(&x->vd, x->dev, x->store);
}

static void fx_store_open(struct fx *x)
{
	if (x->file)
		assert_int_equal(nand_store_file_open(x->path, &x->nc.geo, &x->store), 0);
	else
		assert_int_equal(nand_store_ram_open(&x->nc.geo, &x->store), 0);
}

int fx_ftl_create(struct fx *x)
{
	int rc = ftl_create(&x->cfg, &x->vd.env, &x->res, &x->f);

	if (!rc) {
		x->cap = ftl_capacity(x->f);
		ftl_inspect_layout(x->f, &x->lay);
	}
	return rc;
}

struct fx *fx_new(const struct fx_geo *g, const struct ftl_config *cfg, bool file)
{
	struct fx *x = calloc(1, sizeof(*x));
	uint32_t dies;

	assert_non_null(x);
	nand_config_default(&x->nc);
	x->nc.geo.channels = g->channels;
	x->nc.geo.dies_per_channel = g->dies_per_channel;
	x->nc.geo.planes_per_die = g->planes;
	x->nc.geo.blocks_per_plane = g->blocks;
	x->nc.geo.pages_per_block = g->pages;
	if (g->rel)
		x->nc.rel = *g->rel;
	x->nc.factory_bad_ppm = g->factory_bad_ppm;
	if (cfg)
		x->cfg = *cfg;
	else
		fx_cfg_default(&x->cfg);
	dies = g->channels * g->dies_per_channel;
	x->res.nr_dies = dies;
	for (uint32_t i = 0; i < dies; i++)
		x->res.dies[i] = i;
	x->res.first_block = 0;
	x->res.nr_blocks = g->blocks;
	x->file = file;
	if (file) {
		strcpy(x->dir, "/tmp/blox_ftl_test.XXXXXX");
		assert_non_null(mkdtemp(x->dir));
		snprintf(x->path, sizeof(x->path), "%s/nand.img", x->dir);
	}
	x->rng = 0x9e3779b97f4a7c15ull;
	fx_store_open(x);
	fx_dev_open(x);
	assert_int_equal(fx_ftl_create(x), 0);
	x->shadow = calloc(x->cap, sizeof(*x->shadow));
	x->wbuf = malloc((size_t)FX_MAX_IO * FTL_UNIT);
	x->rbuf = malloc((size_t)FX_MAX_IO * FTL_UNIT);
	assert_non_null(x->shadow);
	assert_non_null(x->wbuf);
	assert_non_null(x->rbuf);
	for (int i = 0; i < FX_LIVE; i++)
		if (!fx_live[i]) {
			fx_live[i] = x;
			break;
		}
	return x;
}

void fx_free(struct fx *x)
{
	if (!x)
		return;
	for (int i = 0; i < FX_LIVE; i++)
		if (fx_live[i] == x)
			fx_live[i] = NULL;
	ftl_destroy(x->f);
	nand_dev_destroy(x->dev);
	nand_store_close(x->store);
	if (x->file) {
		unlink(x->path);
		rmdir(x->dir);
	}
	free(x->aux[0]);
	free(x->aux[1]);
	free(x->shadow);
	free(x->wbuf);
	free(x->rbuf);
	free(x);
}

int fx_teardown(void **state)
{
	(void)state;
	fx_in_submit = false;
	for (int i = 0; i < FX_LIVE; i++)
		fx_free(fx_live[i]);
	for (int i = 0; i < FX_TMP; i++)
		fx_tmp_free(fx_tmp[i]);
	return 0;
}

int fx_run(const struct CMUnitTest *tests, size_t n)
{
	if (getenv("FX_FILTER"))
		cmocka_set_test_filter(getenv("FX_FILTER"));
	return _cmocka_run_group_tests("tests", tests, n, NULL, NULL);
}

void fx_crash(struct fx *x)
{
	ftl_destroy(x->f);
	x->f = NULL;
	nand_dev_destroy(x->dev);
	if (x->file) {
		nand_store_close(x->store);
		fx_store_open(x);
	}
	fx_dev_open(x);
}

/* ---- I/O ---- */

static void fx_cb(struct ftl_io *io)
{
	struct fx_req *r = io->cb_arg;

	if (fx_in_submit)
		fail_msg("completion of op %d lba %u from inside ftl_submit", io->op, io->lba);
	if (r->done)
		fail_msg("op %d lba %u completed twice", io->op, io->lba);
	r->done = true;
	if (r->count)
		++*r->count;
}

int fx_submit(struct fx *x, struct fx_req *r, enum ftl_io_op op, uint32_t lba,
	      uint32_t nr, uint8_t *buf, bool fua)
{
	int rc;

	memset(&r->io, 0, sizeof(r->io));
	r->io.op = op;
	r->io.lba = lba;
	r->io.nr = nr;
	r->io.buf = buf;
	r->io.fua = fua;
	r->io.ruh = op == FTL_IO_WRITE ? x->ruh : 0;
	r->io.cb = fx_cb;
	r->io.cb_arg = r;
	r->done = false;
	fx_in_submit = true;
	rc = ftl_submit(x->f, &r->io);
	fx_in_submit = false;
	if (!rc && r->done)
		fail_msg("op %d lba %u done inside ftl_submit", op, lba);
	return rc;
}

void fx_dump(const struct fx *x)
{
	const struct ftl *f = x->f;
	const struct ftl_io *io;
	uint32_t n;

	fprintf(stderr, "ftl: outstanding %u free_sbs %u free_wbufs %s inflight %s "
		"gc active %d victim %d stage %u waiting %d erase %d fatal %d\n",
		f->outstanding, f->free_sbs, TAILQ_EMPTY(&f->free_wbufs) ? "none" : "some",
		TAILQ_EMPTY(&f->inflight) ? "none" : "some", f->gc.active, f->gc.victim,
		f->gc.tp_waiter.stage, f->gc.waiting, f->gc.erase[0].sb, f->fatal);
	n = 0;
	TAILQ_FOREACH(io, &f->write_wait, link)
		fprintf(stderr, "  write_wait[%u]: op %d lba %u nr %u next %u%s\n", n++, io->op,
			io->lba, io->nr, io->next, ftl_gc_is_waiter(f, io) ? " (gc)" : "");
	TAILQ_FOREACH(io, &f->gc.pace_wait, link)
		fprintf(stderr, "  pace_wait: op %d lba %u next %u (credit %lld)\n", io->op,
			io->lba, io->next, (long long)f->gc.credit);
	TAILQ_FOREACH(io, &f->read_wait, link)
		fprintf(stderr, "  read_wait: op %d lba %u\n", io->op, io->lba);
	TAILQ_FOREACH(io, &f->durable_wait, link)
		fprintf(stderr, "  durable_wait: op %d lba %u\n", io->op, io->lba);
	for (uint32_t i = 0; i < f->cmt_used; i++) {
		const struct ftl_cmt *e = &f->cmt_pool[i];

		fprintf(stderr, "  cmt[%u]: tp %u state %d dirty %d waiters %s\n", i, e->tp,
			e->state, e->dirty, TAILQ_EMPTY(&e->waiters) ? "none" : "some");
		TAILQ_FOREACH(io, &e->waiters, link)
			fprintf(stderr, "    waiter: op %d lba %u%s\n", io->op, io->lba,
				ftl_gc_is_waiter(f, io) ? " (gc)" : "");
	}
	fprintf(stderr, "  sbs (state/valid/erases):");
	for (uint32_t i = 0; i < f->nr_sb; i++)
		fprintf(stderr, " %u:%u/%u/%u", i, f->sbs[i].state, f->sbs[i].valid,
			f->sbs[i].erase_count);
	fprintf(stderr, "\n");
	for (int s = 0; s < ST_COUNT; s++)
		fprintf(stderr, "  stream %d: sb %d next %u wb %p\n", s, f->streams[s].sb,
			f->streams[s].next, (void *)f->streams[s].wb);
	for (uint32_t i = 0; i < f->nr_wbufs; i++)
		if (f->wbufs[i].state == WB_FAILED)
			fprintf(stderr, "  failed program: page %u of sb %u (refresh %d)\n",
				f->wbufs[i].fpid, f->wbufs[i].fpid * f->slots / f->units_per_sb,
				f->sbs[f->wbufs[i].fpid * f->slots / f->units_per_sb].refresh);
}

bool fx_step(struct fx *x)
{
	uint64_t next;

	if (x->vd.kicked) {
		x->vd.kicked = false;
		ftl_process(x->f);
		return true;
	}
	next = nand_next_event(x->dev);
	if (next == UINT64_MAX)
		return false;
	blox_clock_set(&x->vd.clock, next);
	nand_advance(x->dev, next);
	return true;
}

void fx_run_until(struct fx *x, const bool *done, const char *what)
{
	uint64_t start = x->vd.clock.virt_ns, idle_steps = 0, last = start;

	while (!*done) {
		if (!fx_step(x)) {
			fx_dump(x);
			fail_msg("stuck: %s (nand inflight %lu)", what,
				 (unsigned long)nand_inflight(x->dev));
		}
		idle_steps = x->vd.clock.virt_ns == last ? idle_steps + 1 : 0;
		last = x->vd.clock.virt_ns;
		if (last - start > FX_WATCHDOG_NS || idle_steps > 10000000) {
			fx_dump(x);
			fail_msg("livelock: %s after %.1f s of virtual time", what,
				 (double)(last - start) / 1e9);
		}
	}
}

void fx_drain(struct fx *x)
{
	uint64_t start = x->vd.clock.virt_ns;

	while (fx_step(x))
		if (x->vd.clock.virt_ns - start > FX_WATCHDOG_NS) {
			fx_dump(x);
			fail_msg("livelock: still busy after %.1f s of virtual time",
				 (double)(x->vd.clock.virt_ns - start) / 1e9);
		}
}

void fx_wait(struct fx *x, struct fx_req *r)
{
	char what[96];

	snprintf(what, sizeof(what), "op %d lba %u nr %u never completed", r->io.op,
		 r->io.lba, r->io.nr);
	fx_run_until(x, &r->done, what);
}

void fx_wait_count(struct fx *x, int *count, int n)
{
	uint64_t start = x->vd.clock.virt_ns;

	while (*count < n) {
		if (!fx_step(x)) {
			fx_dump(x);
			fail_msg("stuck: %d of %d completions", *count, n);
		}
		if (x->vd.clock.virt_ns - start > FX_WATCHDOG_NS) {
			fx_dump(x);
			fail_msg("livelock: %d of %d completions after %.1f s of virtual time",
				 *count, n, (double)(x->vd.clock.virt_ns - start) / 1e9);
		}
	}
}

int fx_io(struct fx *x, enum ftl_io_op op, uint32_t lba, uint32_t nr, uint8_t *buf,
	  bool fua)
{
	struct fx_req r = { 0 };
	int rc = fx_submit(x, &r, op, lba, nr, buf, fua);

	assert_int_equal(rc, 0);
	fx_wait(x, &r);
	return r.io.status;
}

void fx_prepare(struct fx *x, uint32_t lba, uint32_t nr)
{
	for (uint32_t u = 0; u < nr; u++) {
		uint32_t v = (uint32_t)++x->ver;

		fx_fill(x->wbuf + (size_t)u * FTL_UNIT, lba + u, v);
		x->shadow[lba + u] = v;
	}
}

void fx_write(struct fx *x, uint32_t lba, uint32_t nr)
{
	fx_prepare(x, lba, nr);
	assert_int_equal(fx_io(x, FTL_IO_WRITE, lba, nr, x->wbuf, false), 0);
}

void fx_write_fua(struct fx *x, uint32_t lba, uint32_t nr)
{
	fx_prepare(x, lba, nr);
	assert_int_equal(fx_io(x, FTL_IO_WRITE, lba, nr, x->wbuf, true), 0);
}

void fx_trim(struct fx *x, uint32_t lba, uint32_t nr)
{
	assert_int_equal(fx_io(x, FTL_IO_TRIM, lba, nr, NULL, false), 0);
	for (uint32_t u = 0; u < nr; u++)
		x->shadow[lba + u] = 0;
}

void fx_flush(struct fx *x)
{
	assert_int_equal(fx_io(x, FTL_IO_FLUSH, 0, 0, NULL, false), 0);
}

void fx_verify(struct fx *x, uint32_t lba, uint32_t nr)
{
	assert_int_equal(fx_io(x, FTL_IO_READ, lba, nr, x->rbuf, false), 0);
	for (uint32_t u = 0; u < nr; u++) {
		uint32_t got = fx_decode(x->rbuf + (size_t)u * FTL_UNIT, lba + u);

		if (got != x->shadow[lba + u])
			fail_msg("lba %u: version %d, want %u", lba + u, (int)got,
				 x->shadow[lba + u]);
	}
}

void fx_verify_all(struct fx *x)
{
	for (uint32_t lba = 0; lba < x->cap; lba += FX_MAX_IO) {
		uint32_t nr = x->cap - lba < FX_MAX_IO ? x->cap - lba : FX_MAX_IO;

		fx_verify(x, lba, nr);
	}
}

void fx_random_writes(struct fx *x, uint32_t span, uint32_t maxnr, uint64_t units)
{
	uint64_t done = 0;

	while (done < units) {
		uint32_t nr = 1 + fx_below(x, maxnr);
		uint32_t lba = fx_below(x, span - nr + 1);

		fx_write(x, lba, nr);
		done += nr;
	}
}

void fx_seq_fill(struct fx *x, uint32_t first, uint32_t n)
{
	for (uint32_t lba = first; lba < first + n; lba += FX_MAX_IO)
		fx_write(x, lba, first + n - lba < FX_MAX_IO ? first + n - lba : FX_MAX_IO);
}

struct ftl_stats fx_stats(const struct fx *x)
{
	struct ftl_stats st;

	ftl_get_stats(x->f, &st);
	return st;
}

/* ---- what the FTL shows (ftl_inspect_*()) ---- */

uint32_t fx_ppn_resident(const struct fx *x, uint32_t lba)
{
	uint32_t ppn;

	return ftl_inspect_lba(x->f, lba, &ppn) ? ppn : FTL_UNMAPPED - 1;
}

struct ftl_sb_info fx_sb(const struct fx *x, uint32_t sb)
{
	struct ftl_sb_info i;

	ftl_inspect_sb(x->f, sb, &i);
	return i;
}

struct ftl_stream_info fx_stream(const struct fx *x, enum ftl_stream_id s)
{
	struct ftl_stream_info i;

	ftl_inspect_stream(x->f, s, &i);
	return i;
}

struct ftl_tp_info fx_tp(const struct fx *x, uint32_t tp)
{
	struct ftl_tp_info i;

	ftl_inspect_tp(x->f, tp, &i);
	return i;
}

struct ftl_activity fx_activity(const struct fx *x)
{
	struct ftl_activity a;

	ftl_inspect_activity(x->f, &a);
	return a;
}

struct ftl_gc_info fx_gc(const struct fx *x)
{
	struct ftl_gc_info g;

	ftl_inspect_gc(x->f, &g);
	return g;
}

/* ---- internals ---- */

void fx_tp_contents(const struct fx *x, uint32_t tp, uint32_t *map)
{
	struct ftl_tp_info t = fx_tp(x, tp);
	const uint8_t *b;

	if (t.ready) {
		for (uint32_t i = 0; i < x->lay.tp_entries; i++)
			assert_true(ftl_inspect_lba(x->f, tp * x->lay.tp_entries + i, &map[i]));
		return;
	}
	if (t.ppn == FTL_UNMAPPED) {
		for (uint32_t i = 0; i < x->lay.tp_entries; i++)
			map[i] = FTL_UNMAPPED;
		return;
	}
	b = ftl_inspect_buffered(x->f, t.ppn);
	if (b) {
		memcpy(map, b, FTL_UNIT);
	} else {
		uint8_t *page = fx_tmp_alloc(x->nc.geo.page_size);
		struct nand_addr a;

		ftl_inspect_page_addr(x->f, t.ppn / x->lay.slots, &a);
		assert_int_equal(x->store->ops->read(x->store, nand_page_index(&x->nc.geo, &a),
						     page, NULL),
				 0);
		memcpy(map, page + (size_t)(t.ppn % x->lay.slots) * FTL_UNIT, FTL_UNIT);
		fx_tmp_free(page);
	}
}

void fx_check_invariants(const struct fx *x, bool exact)
{
	const struct ftl_layout *l = &x->lay;
	uint64_t total = (uint64_t)l->nr_sb * l->units_per_sb, mapped = 0, bits = 0;
	uint64_t *seen = fx_tmp_alloc((total + 63) / 64 * sizeof(uint64_t));
	uint32_t *map = fx_tmp_alloc(FTL_UNIT);
	uint32_t nfree = 0;

	for (uint32_t tp = 0; tp < l->nr_tp; tp++) {
		uint32_t p = fx_tp(x, tp).ppn;

		if (p < FTL_LOST) {
			if (p >= total || !ftl_inspect_valid(x->f, p))
				fail_msg("tp %u at ppn %u: no valid bit", tp, p);
			if (seen[p / 64] & (1ull << (p % 64)))
				fail_msg("tp %u at ppn %u: shared", tp, p);
			seen[p / 64] |= 1ull << (p % 64);
			mapped++;
		}
		fx_tp_contents(x, tp, map);
		for (uint32_t i = 0; i < l->tp_entries; i++) {
			uint32_t lba = tp * l->tp_entries + i;

			p = map[i];
			if (lba >= l->capacity || p >= FTL_LOST)
				continue;
			if (p >= total)
				fail_msg("lba %u: ppn %u out of range", lba, p);
			if (!ftl_inspect_valid(x->f, p))
				fail_msg("lba %u at ppn %u (sb %u): no valid bit", lba, p,
					 p / l->units_per_sb);
			if (seen[p / 64] & (1ull << (p % 64)))
				fail_msg("lba %u at ppn %u: shared", lba, p);
			seen[p / 64] |= 1ull << (p % 64);
			mapped++;
		}
	}
	for (uint32_t sb = 0; sb < l->nr_sb; sb++) {
		struct ftl_sb_info info = fx_sb(x, sb);
		uint32_t v = 0;

		for (uint32_t u = 0; u < l->units_per_sb; u++)
			v += ftl_inspect_valid(x->f, sb * l->units_per_sb + u);
		if (v != info.valid)
			fail_msg("sb %u: valid %u, bits %u", sb, info.valid, v);
		bits += v;
		nfree += info.state == FTL_SB_FREE;
	}
	assert_int_equal(nfree, fx_activity(x).free_sbs);
	if (exact && bits != mapped)
		fail_msg("%lu validity bits for %lu mapped units", (unsigned long)bits,
			 (unsigned long)mapped);
	fx_tmp_free(seen);
	fx_tmp_free(map);
}

/* ---- what may be read after a crash ---- */

void fx_log_init(struct fx_crash_log *l, struct fx *x)
{
	memset(l, 0, sizeof(*l));
	l->x = x;
	l->durable = x->aux[0] = calloc(x->cap, sizeof(*l->durable));
	assert_non_null(l->durable);
}

void fx_log_flushed(struct fx_crash_log *l)
{
	memcpy(l->durable, l->x->shadow, (size_t)l->x->cap * sizeof(*l->durable));
	l->n = 0;
}

void fx_log_add(struct fx_crash_log *l, uint32_t lba, uint32_t nr)
{
	for (uint32_t u = 0; u < nr; u++) {
		if (l->n == l->cap) {
			l->cap = l->cap * 2 + 1024;
			l->ent = l->x->aux[1] = realloc(l->ent, l->cap * sizeof(*l->ent));
			assert_non_null(l->ent);
		}
		l->ent[l->n].lba = lba + u;
		l->ent[l->n++].ver = l->x->shadow[lba + u];
	}
}

void fx_log_write(struct fx_crash_log *l, uint32_t lba, uint32_t nr)
{
	fx_write(l->x, lba, nr);
	fx_log_add(l, lba, nr);
}

void fx_log_trim(struct fx_crash_log *l, uint32_t lba, uint32_t nr)
{
	fx_trim(l->x, lba, nr);
	fx_log_add(l, lba, nr);
}

uint32_t fx_log_check(struct fx_crash_log *l)
{
	struct fx *x = l->x;
	uint32_t newer = 0;

	for (uint32_t lba = 0; lba < x->cap; lba += FX_MAX_IO) {
		uint32_t nr = x->cap - lba < FX_MAX_IO ? x->cap - lba : FX_MAX_IO;

		assert_int_equal(fx_io(x, FTL_IO_READ, lba, nr, x->rbuf, false), 0);
		for (uint32_t u = 0; u < nr; u++) {
			uint32_t got = fx_decode(x->rbuf + (size_t)u * FTL_UNIT, lba + u);
			bool ok = got == l->durable[lba + u];

			for (size_t i = 0; !ok && i < l->n; i++)
				ok = l->ent[i].lba == lba + u && l->ent[i].ver == got;
			if (!ok)
				fail_msg("lba %u after the crash: version %d, flushed %u, last %u",
					 lba + u, (int)got, l->durable[lba + u], x->shadow[lba + u]);
			newer += got != l->durable[lba + u];
			x->shadow[lba + u] = got;
		}
	}
	fx_log_flushed(l);
	return newer;
}

/* ---- life cycle ---- */

struct fx_sd {
	bool done;
	int status;
};

static void fx_sd_cb(void *arg, int status)
{
	struct fx_sd *s = arg;

	s->done = true;
	s->status = status;
}

void fx_shutdown(struct fx *x)
{
	struct fx_sd s = { 0 };

	assert_int_equal(ftl_shutdown(x->f, fx_sd_cb, &s), 0);
	fx_run_until(x, &s.done, "shutdown never completed");
	assert_true(s.done);
	assert_int_equal(s.status, 0);
}

void fx_restart(struct fx *x)
{
	uint32_t cap = x->cap;

	assert_int_equal(fx_ftl_create(x), 0);
	assert_int_equal(x->cap, cap);
}

void clean_restart(struct fx *x)
{
	fx_shutdown(x);
	fx_crash(x); /* nothing is in flight: just a close and reopen */
	fx_restart(x);
}

