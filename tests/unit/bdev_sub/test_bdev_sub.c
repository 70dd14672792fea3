/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of 512-byte blocks on the nand backend's 4 KiB units
 * (daemon/bdev/bdev_ftl_sub.c): over a fake FTL that holds every request
 * until the test completes it, in an order of the test's choosing (reads
 * copy at completion, writes land at completion, as late as a real FTL
 * could), the read-modify-write of partial units, the ordering of
 * overlapping commands, Write Zeroes and deallocates of sub-ranges,
 * failures and the context pool; then the real backend (bdev_ftl.c) with
 * 512-byte blocks on a small device, its data surviving a clean stop.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>
#include <unistd.h>

#include "bdev.h"
#include "bdev_ftl_sub.h"
#include "blox_util.h"
#include "conf.h"

#define U FTL_UNIT
#define SECT 512u
#define UNITS 64u
#define MAX_PEND 8192u

/* ---- A fake FTL: units in memory, requests held until completed ---- */

struct fake {
	uint8_t data[UNITS * U];
	struct ftl_io *pend[MAX_PEND];
	uint32_t npend;
	uint64_t reads, writes, trims;
	int fail_next_read; /* its status for the next read completed; 0: none */
	int refuse; /* submit returns this; 0: accept */
	uint64_t rng;
	/* Completions the layer asked to defer (called inside submit). */
	struct blox_io *deferred[MAX_PEND];
	uint32_t ndeferred;
};

static int fake_submit(void *ctx, struct ftl_io *fio)
{
	struct fake *f = ctx;

	if (f->refuse)
		return f->refuse;
	assert_true(f->npend < MAX_PEND);
	assert_true((uint64_t)fio->lba + fio->nr <= UNITS);
	f->pend[f->npend++] = fio;
	return 0;
}

static void fake_done(void *ctx, struct blox_io *io, bool now)
{
	struct fake *f = ctx;

	if (now)
		io->cb(io);
	else
		f->deferred[f->ndeferred++] = io;
}

static const struct fb_sub_ops fake_ops = { .submit = fake_submit, .done = fake_done };

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* Complete the held request @i. */
static void fake_complete(struct fake *f, uint32_t i)
{
	struct ftl_io *fio = f->pend[i];
	uint8_t *at = f->data + (uint64_t)fio->lba * U;
	size_t len = (size_t)fio->nr * U;

	f->pend[i] = f->pend[--f->npend];
	fio->status = 0;
	switch (fio->op) {
	case FTL_IO_READ:
		f->reads++;
		if (f->fail_next_read) {
			fio->status = f->fail_next_read;
			f->fail_next_read = 0;
			break;
		}
		memcpy(fio->buf, at, len);
		break;
	case FTL_IO_WRITE:
		f->writes++;
		memcpy(at, fio->buf, len);
		break;
	case FTL_IO_TRIM:
		f->trims++;
		memset(at, 0, len);
		break;
	default:
		fail();
	}
	fio->cb(fio);
}

/* Run everything to its end, completing held requests in a random order. */
static void fake_run(struct fake *f)
{
	for (;;) {
		if (f->ndeferred) {
			struct blox_io *io = f->deferred[--f->ndeferred];

			io->cb(io);
			continue;
		}
		if (!f->npend)
			break;
		fake_complete(f, (uint32_t)(rnd(&f->rng) % f->npend));
	}
}

/* ---- Commands ---- */

struct tio {
	struct blox_io io;
	struct iovec iov;
	uint8_t *buf;
	bool done;
};

static void tio_cb(struct blox_io *io)
{
	struct tio *t = container_of(io, struct tio, io);

	assert_false(t->done);
	t->done = true;
}

static struct tio *tio_new(enum blox_io_op op, uint64_t sect, uint64_t nsect)
{
	struct tio *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->io.op = op;
	t->io.offset = sect * SECT;
	t->io.len = nsect * SECT;
	t->io.cb = tio_cb;
	if (op == BLOX_IO_READ || op == BLOX_IO_WRITE) {
		t->buf = malloc(t->io.len);
		assert_non_null(t->buf);
		memset(t->buf, 0xee, t->io.len);
		t->iov = (struct iovec){ t->buf, t->io.len };
		t->io.iov = &t->iov;
		t->io.iovcnt = 1;
	}
	return t;
}

static void tio_free(struct tio *t)
{
	free(t->buf);
	free(t);
}

/* A pattern byte of write @id at byte @b of the namespace. */
static uint8_t pat(uint32_t id, uint64_t b)
{
	return (uint8_t)(id * 131u + b * 7u + (b >> 9) + 1u);
}

static struct tio *tio_write(uint32_t id, uint64_t sect, uint64_t nsect)
{
	struct tio *t = tio_new(BLOX_IO_WRITE, sect, nsect);

	for (uint64_t i = 0; i < t->io.len; i++)
		t->buf[i] = pat(id, t->io.offset + i);
	return t;
}

struct env {
	struct fake f;
	struct fb_sub *s;
	uint8_t model[UNITS * U];
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	e->f.rng = 0x9e3779b97f4a7c15ull;
	if (fb_sub_create(&fake_ops, &e->f, SECT, UNITS, &e->s)) {
		free(e);
		return -1;
	}
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	assert_int_equal(e->f.npend, 0);
	fb_sub_destroy(e->s);
	free(e);
	return 0;
}

/* Read sectors [sect, sect + nsect) through the layer and compare with the model. */
static void check_read(struct env *e, uint64_t sect, uint64_t nsect)
{
	struct tio *t = tio_new(BLOX_IO_READ, sect, nsect);

	fb_sub_submit(e->s, &t->io);
	fake_run(&e->f);
	assert_true(t->done);
	assert_int_equal(t->io.status, 0);
	assert_memory_equal(t->buf, e->model + t->io.offset, t->io.len);
	tio_free(t);
}

/* Apply @t (a completed write or zeroing) to the model. */
static void model_apply(struct env *e, const struct tio *t)
{
	if (t->io.op == BLOX_IO_WRITE)
		memcpy(e->model + t->io.offset, t->buf, t->io.len);
	else
		memset(e->model + t->io.offset, 0, t->io.len);
}

/*
 * 1. The eight sectors of one unit written by eight 512-byte commands all
 * in flight at once, completed in random orders (and reads before
 * writes): every sector keeps its write. Without holding the unit, each
 * read-modify-write would read the unit before the others wrote it.
 */
static void test_concurrent_sectors_survive(void **state)
{
	struct env *e = *state;

	for (uint32_t round = 0; round < 50; round++) {
		struct tio *t[8];
		uint32_t unit = 5 + round % 7;
		struct fb_sub_stats st0, st1;

		fb_sub_get_stats(e->s, &st0);
		for (uint32_t i = 0; i < 8; i++) {
			t[i] = tio_write(round * 8 + i, (uint64_t)unit * 8 + i, 1);
			fb_sub_submit(e->s, &t[i]->io);
		}
		/* Only the first goes to the FTL; the others wait for its unit. */
		assert_int_equal(e->f.npend, 1);
		fake_run(&e->f);
		fb_sub_get_stats(e->s, &st1);
		assert_int_equal(st1.waits - st0.waits, 7);
		assert_int_equal(st1.rmw_reads - st0.rmw_reads, 8);
		for (uint32_t i = 0; i < 8; i++) {
			assert_true(t[i]->done);
			assert_int_equal(t[i]->io.status, 0);
			model_apply(e, t[i]);
			tio_free(t[i]);
		}
		check_read(e, (uint64_t)unit * 8, 8);
	}
}

/*
 * 2. Random commands (writes of 1 to 40 sectors anywhere, Write Zeroes,
 * deallocates), up to 64 in flight, completed in random order: the
 * result is theirs applied in arrival order, read back in pieces of
 * every alignment and as a whole.
 */
static void test_random_model(void **state)
{
	struct env *e = *state;
	uint64_t rng = 12345;
	const uint64_t nsect = UNITS * U / SECT;

	for (uint32_t batch = 0; batch < 60; batch++) {
		struct tio *t[64];
		uint32_t n = 1 + (uint32_t)(rnd(&rng) % 64);

		for (uint32_t i = 0; i < n; i++) {
			uint64_t len = 1 + rnd(&rng) % 40, sect = rnd(&rng) % (nsect - len + 1);
			uint32_t kind = (uint32_t)(rnd(&rng) % 10);

			if (kind < 7)
				t[i] = tio_write(batch * 64 + i, sect, len);
			else
				t[i] = tio_new(kind < 9 ? BLOX_IO_WRITE_ZEROES : BLOX_IO_TRIM, sect, len);
			t[i]->io.fua = kind == 0;
			fb_sub_submit(e->s, &t[i]->io);
		}
		fake_run(&e->f);
		for (uint32_t i = 0; i < n; i++) {
			assert_true(t[i]->done);
			assert_int_equal(t[i]->io.status, 0);
			model_apply(e, t[i]);
			tio_free(t[i]);
		}
		for (uint32_t i = 0; i < 8; i++) {
			uint64_t len = 1 + rnd(&rng) % 24, sect = rnd(&rng) % (nsect - len + 1);

			check_read(e, sect, len);
		}
	}
	check_read(e, 0, nsect);
	assert_memory_equal(e->f.data, e->model, sizeof(e->model));
}

/* 3. Whole aligned units go straight through: no read, one request each. */
static void test_aligned_straight(void **state)
{
	struct env *e = *state;
	struct tio *t = tio_write(1, 16, 16); /* units 2 and 3 */

	t->io.fua = true;
	fb_sub_submit(e->s, &t->io);
	assert_int_equal(e->f.npend, 1);
	assert_true(e->f.pend[0]->fua);
	assert_int_equal(e->f.pend[0]->op, FTL_IO_WRITE);
	assert_int_equal(e->f.pend[0]->lba, 2);
	assert_int_equal(e->f.pend[0]->nr, 2);
	assert_ptr_equal(e->f.pend[0]->buf, t->buf); /* no copy */
	fake_run(&e->f);
	assert_int_equal(e->f.reads, 0);
	model_apply(e, t);
	tio_free(t);

	t = tio_new(BLOX_IO_WRITE_ZEROES, 16, 8);
	fb_sub_submit(e->s, &t->io);
	assert_int_equal(e->f.npend, 1);
	assert_int_equal(e->f.pend[0]->op, FTL_IO_TRIM);
	fake_run(&e->f);
	assert_int_equal(e->f.reads, 0);
	model_apply(e, t);
	tio_free(t);

	t = tio_new(BLOX_IO_READ, 16, 16);
	fb_sub_submit(e->s, &t->io);
	assert_int_equal(e->f.npend, 1);
	assert_ptr_equal(e->f.pend[0]->buf, t->buf);
	fake_run(&e->f);
	assert_memory_equal(t->buf, e->model + 16 * SECT, 16 * SECT);
	tio_free(t);
}

/*
 * 4. Write Zeroes and deallocates of sub-ranges zero exactly their
 * sectors: partial units by read-modify-write, whole ones trimmed.
 */
static void test_zero_subranges(void **state)
{
	struct env *e = *state;
	struct tio *t = tio_write(7, 0, 64); /* units 0..7 */
	uint64_t reads, writes, trims;

	fb_sub_submit(e->s, &t->io);
	fake_run(&e->f);
	model_apply(e, t);
	tio_free(t);

	/* Sectors 3..12: the ends of units 0 and 1, nothing whole. */
	reads = e->f.reads, writes = e->f.writes, trims = e->f.trims;
	t = tio_new(BLOX_IO_WRITE_ZEROES, 3, 10);
	fb_sub_submit(e->s, &t->io);
	fake_run(&e->f);
	assert_int_equal(t->io.status, 0);
	assert_int_equal(e->f.reads - reads, 2);
	assert_int_equal(e->f.writes - writes, 2);
	assert_int_equal(e->f.trims - trims, 0);
	model_apply(e, t);
	tio_free(t);
	check_read(e, 0, 64);

	/* Sectors 21..42 deallocated: part of unit 2, units 3 and 4 whole, part of unit 5. */
	reads = e->f.reads, writes = e->f.writes, trims = e->f.trims;
	t = tio_new(BLOX_IO_TRIM, 21, 22);
	fb_sub_submit(e->s, &t->io);
	fake_run(&e->f);
	assert_int_equal(e->f.reads - reads, 2);
	assert_int_equal(e->f.writes - writes, 2);
	assert_int_equal(e->f.trims - trims, 1);
	model_apply(e, t);
	tio_free(t);
	check_read(e, 0, 64);

	/* One sector inside unit 6. */
	t = tio_new(BLOX_IO_WRITE_ZEROES, 50, 1);
	fb_sub_submit(e->s, &t->io);
	fake_run(&e->f);
	model_apply(e, t);
	tio_free(t);
	check_read(e, 0, 64);
	assert_memory_equal(e->f.data, e->model, 64 * SECT);
}

/*
 * 5. A read of the merge fails: the write fails without writing, and the
 * overlapping write waiting behind it goes on and lands.
 */
static void test_rmw_read_fails(void **state)
{
	struct env *e = *state;
	struct tio *a = tio_write(1, 9, 1), *b = tio_write(2, 10, 1);
	uint64_t writes = e->f.writes;

	fb_sub_submit(e->s, &a->io);
	fb_sub_submit(e->s, &b->io);
	assert_int_equal(e->f.npend, 1); /* b waits for unit 1 */
	e->f.fail_next_read = -EIO;
	fake_run(&e->f);
	assert_int_equal(a->io.status, -EIO);
	assert_int_equal(b->io.status, 0);
	assert_int_equal(e->f.writes - writes, 1);
	model_apply(e, b);
	check_read(e, 8, 8);
	tio_free(a);
	tio_free(b);
}

/* 6. A request the FTL refuses at once: the command's completion is deferred, not called inside submit. */
static void test_refused_deferred(void **state)
{
	struct env *e = *state;
	struct tio *t = tio_write(3, 1, 2);

	e->f.refuse = -ERANGE;
	fb_sub_submit(e->s, &t->io);
	assert_false(t->done);
	assert_int_equal(e->f.ndeferred, 1);
	e->f.refuse = 0;
	fake_run(&e->f);
	assert_true(t->done);
	assert_int_equal(t->io.status, -ERANGE);
	tio_free(t);
	/* Nothing held: the unit takes the next write. */
	t = tio_write(4, 1, 2);
	fb_sub_submit(e->s, &t->io);
	fake_run(&e->f);
	assert_int_equal(t->io.status, 0);
	model_apply(e, t);
	tio_free(t);
	check_read(e, 0, 8);
}

/* 7. More commands than contexts: the rest wait in arrival order, all complete, nothing lost. */
static void test_more_than_contexts(void **state)
{
	struct env *e = *state;
	enum { N = 3000 };
	struct tio **t = calloc(N, sizeof(*t));
	struct fb_sub_stats st;

	assert_non_null(t);
	for (uint32_t i = 0; i < N; i++) {
		t[i] = tio_write(i, i % (UNITS * 8), 1);
		fb_sub_submit(e->s, &t[i]->io);
	}
	fake_run(&e->f);
	fb_sub_get_stats(e->s, &st);
	assert_true(st.queued > 0);
	for (uint32_t i = 0; i < N; i++) {
		assert_true(t[i]->done);
		assert_int_equal(t[i]->io.status, 0);
		model_apply(e, t[i]);
		tio_free(t[i]);
	}
	free(t);
	check_read(e, 0, UNITS * 8);
}

/* ---- The real backend with 512-byte blocks ---- */

#define MiB (1ull << 20)

struct ftl_case {
	struct nand_config nand;
	struct ftl_config ftl;
	struct blox_clock clock;
	struct blox_log log;
	struct blox_bdev_params p;
	struct blox_io_cq cq;
	struct event_base *base;
	struct blox_bdev *bdev;
};

static void ftl_case_init(struct ftl_case *c, const char *store_path)
{
	memset(c, 0, sizeof(*c));
	nand_config_default(&c->nand);
	c->nand.geo.channels = 2;
	c->nand.geo.dies_per_channel = 1;
	c->nand.geo.planes_per_die = 1;
	c->nand.geo.pages_per_block = 96;
	ftl_config_default(&c->ftl);
	c->nand.geo.blocks_per_plane =
		blox_config_nand_blocks(&c->nand.geo, 2, 8 * MiB, &c->ftl);
	blox_clock_init_real(&c->clock);
	c->p = (struct blox_bdev_params){ .backend = "nand", .size = 8 * MiB,
					  .block_size = 512, .nand = &c->nand,
					  .ftl = &c->ftl, .store_path = store_path,
					  .clock = &c->clock, .log = &c->log };
}

static void ftl_case_open(struct ftl_case *c, const char *store_path)
{
	ftl_case_init(c, store_path);
	c->base = event_base_new();
	assert_non_null(c->base);
	assert_int_equal(blox_io_cq_init(&c->cq, c->base), 0);
	assert_int_equal(blox_bdev_ftl_prepare(&c->p, &c->bdev), 0);
	assert_int_equal(blox_bdev_ftl_bind(c->bdev, c->base, &c->cq), 0);
	assert_int_equal(c->bdev->block_size, 512);
	assert_int_equal(c->bdev->phys_block_size, U);
}

static void ftl_case_close(struct ftl_case *c)
{
	blox_bdev_destroy(c->bdev);
	blox_io_cq_fini(&c->cq);
	event_base_free(c->base);
}

/* Submit @n commands at once, run the loop until all are done. */
static void ftl_run(struct ftl_case *c, struct tio **t, uint32_t n)
{
	bool all;

	for (uint32_t i = 0; i < n; i++)
		blox_bdev_submit(c->bdev, &t[i]->io);
	do {
		assert_true(event_base_loop(c->base, EVLOOP_ONCE) >= 0);
		all = true;
		for (uint32_t i = 0; i < n; i++)
			all = all && t[i]->done;
	} while (!all);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(t[i]->io.status, 0);
}

static void ftl_check(struct ftl_case *c, const uint8_t *model, uint64_t sect, uint64_t n)
{
	struct tio *t = tio_new(BLOX_IO_READ, sect, n);

	ftl_run(c, &t, 1);
	assert_memory_equal(t->buf, model + sect * SECT, n * SECT);
	tio_free(t);
}

/*
 * 8. The nand backend made with 512-byte blocks (refused before: "4096
 * only"): a 4 KiB write, then the eight sectors of one unit and two
 * writes across unit boundaries all in flight at once, Write Zeroes of a
 * sub-range; all read back at several alignments, and again after a
 * clean stop from the store file. A size that is not whole units is
 * refused.
 */
static void test_ftl_512(void **state)
{
	char dir[] = "/tmp/blox-sub-XXXXXX", path[64];
	static uint8_t model[64 * U];
	struct ftl_case c;
	struct tio *t[16];
	struct blox_bdev *bdev;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ns.nand", dir);
	ftl_case_open(&c, path);

	t[0] = tio_write(1, 0, 64); /* units 0..7 */
	ftl_run(&c, t, 1);
	memcpy(model, t[0]->buf, t[0]->io.len);
	tio_free(t[0]);

	for (uint32_t i = 0; i < 8; i++)
		t[i] = tio_write(10 + i, 24 + i, 1); /* unit 3, sector by sector */
	t[8] = tio_write(20, 6, 5); /* across units 0 and 1 */
	t[9] = tio_write(21, 37, 12); /* unit 4 from sector 5, unit 5 whole, unit 6 to 1 */
	t[10] = tio_write(22, 100, 3); /* alone in unit 12 (never written) */
	ftl_run(&c, t, 11);
	for (uint32_t i = 0; i < 11; i++) {
		memcpy(model + t[i]->io.offset, t[i]->buf, t[i]->io.len);
		tio_free(t[i]);
	}
	t[0] = tio_new(BLOX_IO_WRITE_ZEROES, 27, 3);
	t[1] = tio_new(BLOX_IO_TRIM, 45, 8); /* unit 5's last 3 and unit 6's first 5 */
	ftl_run(&c, t, 2);
	memset(model + 27 * SECT, 0, 3 * SECT);
	memset(model + 45 * SECT, 0, 8 * SECT);
	tio_free(t[0]);
	tio_free(t[1]);
	for (uint64_t s = 0; s < 110; s += 7)
		ftl_check(&c, model, s, 9);
	ftl_check(&c, model, 0, 128);
	ftl_case_close(&c);

	/* Back from the file after a clean stop. */
	ftl_case_open(&c, path);
	ftl_check(&c, model, 0, 128);
	ftl_check(&c, model, 25, 1);
	ftl_case_close(&c);

	/* Half a unit past the last whole one: not a size the FTL maps. */
	ftl_case_init(&c, path);
	c.p.size = 8 * MiB + 512;
	assert_int_equal(blox_bdev_ftl_prepare(&c.p, &bdev), -EINVAL);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_concurrent_sectors_survive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aligned_straight, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zero_subranges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rmw_read_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused_deferred, setup, teardown),
		cmocka_unit_test_setup_teardown(test_more_than_contexts, setup, teardown),
		cmocka_unit_test(test_ftl_512),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
