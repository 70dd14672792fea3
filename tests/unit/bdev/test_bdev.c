/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the backends (bdev.c, bdev_ram.c, bdev_null.c,
 * bdev_ftl.c): geometry checks in blox_bdev_create(), RAM data integrity
 * across 1 MiB chunk boundaries, zeroing operations, range errors, the
 * rule that completions only ever arrive through blox_io_cq_drain(), and
 * the nand backend made and destroyed on threads of their own (unbound
 * from the loop), its data surviving the round trip. devcut.c: the power
 * cut of a registered device with vSSDs with power-loss protection.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <event2/event.h>
#include <pthread.h>
#include <unistd.h>

#include "bdev.h"
#include "bdev_test.h"
#include "blox_util.h"
#include "conf.h"

#define MiB (1ull << 20)

struct fixture {
	struct blox_io_cq cq;
	struct blox_bdev *bdev;
	unsigned completions; /* callbacks seen */
};

/* One I/O with its own iovec; cb_arg points at the fixture. */
struct test_io {
	struct blox_io io;
	struct iovec iov[4];
	unsigned done;
};

static void io_cb(struct blox_io *io)
{
	struct test_io *t = container_of(io, struct test_io, io);
	struct fixture *f = io->cb_arg;

	t->done++;
	f->completions++;
}

static int fixture_setup(struct fixture *f, const char *backend, uint64_t size,
			 uint32_t bs)
{
	struct blox_bdev_params p = { .backend = backend, .size = size,
				      .block_size = bs };

	memset(f, 0, sizeof(*f));
	if (blox_io_cq_init(&f->cq, NULL))
		return -1;
	return blox_bdev_create(&p, &f->cq, &f->bdev);
}

static int setup_ram(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || fixture_setup(f, "ram", 8 * MiB + 4096, 4096)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int setup_null(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || fixture_setup(f, "null", 1ull << 40, 512)) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	blox_io_cq_drain(&f->cq);
	blox_bdev_destroy(f->bdev);
	blox_io_cq_fini(&f->cq);
	free(f);
	return 0;
}

/* Submit one operation and return its status after draining. */
static int do_io(struct fixture *f, enum blox_io_op op, uint64_t off,
		 uint64_t len, void *buf)
{
	struct test_io t;

	memset(&t, 0, sizeof(t));
	t.io.op = op;
	t.io.offset = off;
	t.io.len = len;
	if (buf) {
		t.iov[0].iov_base = buf;
		t.iov[0].iov_len = len;
		t.io.iov = t.iov;
		t.io.iovcnt = 1;
	}
	t.io.status = 12345;
	t.io.cb = io_cb;
	t.io.cb_arg = f;
	blox_bdev_submit(f->bdev, &t.io);
	assert_int_equal(t.done, 0); /* never from inside submit() */
	blox_io_cq_drain(&f->cq);
	assert_int_equal(t.done, 1);
	return t.io.status;
}

static void fill_pattern(uint8_t *p, uint64_t len, uint64_t seed)
{
	for (uint64_t i = 0; i < len; i++)
		p[i] = (uint8_t)((seed + i) * 2654435761u >> 13);
}

static void assert_zero(const uint8_t *p, uint64_t len)
{
	for (uint64_t i = 0; i < len; i++)
		if (p[i])
			fail_msg("byte %llu is 0x%02x, want 0",
				 (unsigned long long)i, p[i]);
}

/* 1. blox_bdev_create() accepts ram/null with 512/4096 and rejects the rest. */
static void test_create_params(void **state)
{
	struct blox_io_cq cq;
	struct blox_bdev *b;
	static const struct {
		const char *backend;
		uint64_t size;
		uint32_t bs;
		int rc;
	} cases[] = {
		{ "ram", 1 * MiB, 4096, 0 },
		{ "ram", 4096, 512, 0 },
		{ "null", 1 * MiB, 512, 0 },
		{ "ram", 1 * MiB, 1024, -EINVAL },
		{ "ram", 1 * MiB, 0, -EINVAL },
		{ "ram", 1 * MiB, 8192, -EINVAL },
		{ "null", 1 * MiB, 2048, -EINVAL },
		{ "ram", 0, 4096, -EINVAL },
		{ "ram", 4096 + 512, 4096, -EINVAL },
		{ "null", 1000, 512, -EINVAL },
		{ "flash", 1 * MiB, 4096, -EINVAL },
		{ "nand", 1 * MiB, 4096, -EINVAL }, /* no device model, no loop */
		{ "", 1 * MiB, 4096, -EINVAL },
		{ "RAM", 1 * MiB, 4096, -EINVAL },
		{ NULL, 1 * MiB, 4096, -EINVAL },
	};

	(void)state;
	assert_int_equal(blox_io_cq_init(&cq, NULL), 0);
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(cases); i++) {
		struct blox_bdev_params p = { .backend = cases[i].backend,
					      .size = cases[i].size,
					      .block_size = cases[i].bs };
		int rc;

		b = NULL;
		rc = blox_bdev_create(&p, &cq, &b);
		if (rc != cases[i].rc)
			fail_msg("case %zu (%s, %llu, %u): rc %d, want %d", i,
				 cases[i].backend ? cases[i].backend : "NULL",
				 (unsigned long long)cases[i].size, cases[i].bs, rc,
				 cases[i].rc);
		if (rc == 0) {
			assert_non_null(b);
			assert_int_equal(b->size, cases[i].size);
			assert_int_equal(b->block_size, cases[i].bs);
			assert_ptr_equal(b->cq, &cq);
			blox_bdev_destroy(b);
		}
	}
	blox_bdev_destroy(NULL); /* allowed */
	blox_io_cq_fini(&cq);
}

/* 2. Unwritten space reads as zeroes (buffer pre-filled with junk). */
static void test_ram_unwritten_reads_zero(void **state)
{
	struct fixture *f = *state;
	uint64_t len = 2 * MiB;
	uint8_t *buf = malloc(len);

	assert_non_null(buf);
	memset(buf, 0xcc, len);
	assert_int_equal(do_io(f, BLOX_IO_READ, MiB - 4096, len, buf), 0);
	assert_zero(buf, len);
	free(buf);
}

/* 3. Write/read round trip at pseudo-random offsets and sizes, many
 * crossing 1 MiB chunk boundaries; a shadow copy checks the whole device.
 */
static void test_ram_random_round_trip(void **state)
{
	struct fixture *f = *state;
	uint64_t size = f->bdev->size;
	uint8_t *shadow = calloc(1, size), *buf = malloc(3 * MiB), *all;
	uint32_t rnd = 12345;
	unsigned crossings = 0;

	assert_non_null(shadow);
	assert_non_null(buf);
	for (int i = 0; i < 60; i++) {
		uint64_t len, off;

		rnd = rnd * 1103515245u + 12345u;
		len = ((uint64_t)(rnd >> 8) % (3 * MiB / 512) + 1) * 512;
		rnd = rnd * 1103515245u + 12345u;
		off = ((uint64_t)(rnd >> 4) % ((size - len) / 512 + 1)) * 512;
		if (i % 5 == 0) /* force a straddle of a boundary */
			off = BLOX_MIN((uint64_t)(i / 5 % 8 + 1) * MiB - 512 * (i + 1),
				       size - len);
		crossings += (off >> 20) != ((off + len - 1) >> 20);
		fill_pattern(buf, len, (uint64_t)i << 32 | off);
		assert_int_equal(do_io(f, BLOX_IO_WRITE, off, len, buf), 0);
		memcpy(shadow + off, buf, len);

		memset(buf, 0xee, len);
		assert_int_equal(do_io(f, BLOX_IO_READ, off, len, buf), 0);
		assert_memory_equal(buf, shadow + off, len);
	}
	assert_true(crossings >= 10);

	all = malloc(size);
	assert_non_null(all);
	assert_int_equal(do_io(f, BLOX_IO_READ, 0, size, all), 0);
	assert_memory_equal(all, shadow, size);
	free(all);
	free(buf);
	free(shadow);
}

/* 4. A scattered iovec writes and reads consecutive bytes. */
static void test_ram_iovec(void **state)
{
	struct fixture *f = *state;
	uint8_t a[1000], b[3096], c[4096], out[8192];
	struct test_io t;

	fill_pattern(a, sizeof(a), 1);
	fill_pattern(b, sizeof(b), 2);
	fill_pattern(c, sizeof(c), 3);
	memset(&t, 0, sizeof(t));
	t.io.op = BLOX_IO_WRITE;
	t.io.offset = MiB - 2048;
	t.io.len = 8192;
	t.iov[0] = (struct iovec){ a, sizeof(a) };
	t.iov[1] = (struct iovec){ b, sizeof(b) };
	t.iov[2] = (struct iovec){ c, sizeof(c) };
	t.io.iov = t.iov;
	t.io.iovcnt = 3;
	t.io.cb = io_cb;
	t.io.cb_arg = f;
	blox_bdev_submit(f->bdev, &t.io);
	blox_io_cq_drain(&f->cq);
	assert_int_equal(t.done, 1);
	assert_int_equal(t.io.status, 0);

	assert_int_equal(do_io(f, BLOX_IO_READ, MiB - 2048, 8192, out), 0);
	assert_memory_equal(out, a, sizeof(a));
	assert_memory_equal(out + 1000, b, sizeof(b));
	assert_memory_equal(out + 4096, c, sizeof(c));
}

/* 5. Trim and Write Zeroes read back zero, with the edges untouched;
 * both partial chunks and a whole chunk are covered.
 */
static void test_ram_zeroing(void **state)
{
	struct fixture *f = *state;
	uint64_t len = 4 * MiB;
	uint8_t *pat = malloc(len), *buf = malloc(len);
	enum blox_io_op ops[] = { BLOX_IO_TRIM, BLOX_IO_WRITE_ZEROES };

	assert_non_null(pat);
	assert_non_null(buf);
	for (size_t k = 0; k < BLOX_ARRAY_SIZE(ops); k++) {
		/* [512K, 512K + 4M): zero [1M - 4K, 3M + 4K). */
		uint64_t base = MiB / 2, zoff = MiB - 4096, zlen = 2 * MiB + 8192;

		fill_pattern(pat, len, 77 + k);
		assert_int_equal(do_io(f, BLOX_IO_WRITE, base, len, pat), 0);
		assert_int_equal(do_io(f, ops[k], zoff, zlen, NULL), 0);
		assert_int_equal(do_io(f, BLOX_IO_READ, base, len, buf), 0);
		assert_memory_equal(buf, pat, zoff - base);
		assert_zero(buf + (zoff - base), zlen);
		assert_memory_equal(buf + (zoff - base) + zlen,
				    pat + (zoff - base) + zlen,
				    len - (zoff - base) - zlen);

		/* Writing into a freed chunk again works. */
		assert_int_equal(do_io(f, BLOX_IO_WRITE, 2 * MiB, 4096, pat), 0);
		assert_int_equal(do_io(f, BLOX_IO_READ, 2 * MiB, 4096, buf), 0);
		assert_memory_equal(buf, pat, 4096);
	}
	/* Zeroing never-written space is fine. */
	assert_int_equal(do_io(f, BLOX_IO_TRIM, 6 * MiB, 2 * MiB, NULL), 0);
	free(buf);
	free(pat);
}

/* 6. Out of range is -ERANGE and changes nothing; the last block works. */
static void test_ram_out_of_range(void **state)
{
	struct fixture *f = *state;
	uint64_t size = f->bdev->size;
	uint8_t buf[8192], chk[4096];

	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(do_io(f, BLOX_IO_WRITE, size - 4096, 8192, buf), -ERANGE);
	assert_int_equal(do_io(f, BLOX_IO_WRITE, size, 4096, buf), -ERANGE);
	assert_int_equal(do_io(f, BLOX_IO_READ, size + 4096, 4096, buf), -ERANGE);
	assert_int_equal(do_io(f, BLOX_IO_READ, UINT64_MAX - 4095, 4096, buf),
			 -ERANGE);
	assert_int_equal(do_io(f, BLOX_IO_TRIM, size - 4096, 8192, NULL), -ERANGE);
	assert_int_equal(do_io(f, BLOX_IO_WRITE_ZEROES, 0, size + 512, NULL),
			 -ERANGE);
	assert_int_equal(do_io(f, BLOX_IO_READ, size - 4096, 4096, chk), 0);
	assert_zero(chk, sizeof(chk)); /* the failed write stored nothing */

	assert_int_equal(do_io(f, BLOX_IO_WRITE, size - 4096, 4096, buf), 0);
	assert_int_equal(do_io(f, BLOX_IO_READ, size - 4096, 4096, chk), 0);
	assert_memory_equal(chk, buf, 4096);
	assert_int_equal(do_io(f, BLOX_IO_FLUSH, 0, 0, NULL), 0);
}

/* 7. Completions wait in the cq until drained, in submission order. */
static void test_ram_completion_deferred(void **state)
{
	struct fixture *f = *state;
	struct test_io t[3];
	uint8_t buf[3][4096];

	memset(t, 0, sizeof(t));
	for (int i = 0; i < 3; i++) {
		t[i].io.op = i == 2 ? BLOX_IO_FLUSH : BLOX_IO_WRITE;
		t[i].io.offset = (uint64_t)i * 4096;
		t[i].io.len = i == 2 ? 0 : 4096;
		t[i].iov[0] = (struct iovec){ buf[i], 4096 };
		t[i].io.iov = t[i].iov;
		t[i].io.iovcnt = i == 2 ? 0 : 1;
		t[i].io.cb = io_cb;
		t[i].io.cb_arg = f;
		blox_bdev_submit(f->bdev, &t[i].io);
	}
	assert_int_equal(f->completions, 0);
	assert_ptr_equal(TAILQ_FIRST(&f->cq.done), &t[0].io);
	assert_ptr_equal(TAILQ_NEXT(&t[0].io, link), &t[1].io);
	assert_ptr_equal(TAILQ_NEXT(&t[1].io, link), &t[2].io);
	blox_io_cq_drain(&f->cq);
	assert_int_equal(f->completions, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(t[i].done, 1);
		assert_int_equal(t[i].io.status, 0);
	}
	blox_io_cq_drain(&f->cq); /* nothing twice */
	assert_int_equal(f->completions, 3);
}

/* Resubmits once from its callback: lands in the next drain, not this one. */
static void resubmit_cb(struct blox_io *io)
{
	struct test_io *t = container_of(io, struct test_io, io);
	struct fixture *f = io->cb_arg;

	t->done++;
	f->completions++;
	if (t->done == 1)
		blox_bdev_submit(f->bdev, io);
}

/* 8. A completion submitting new I/O does not run it in the same drain. */
static void test_cq_drain_batch(void **state)
{
	struct fixture *f = *state;
	struct test_io t;

	memset(&t, 0, sizeof(t));
	t.io.op = BLOX_IO_FLUSH;
	t.io.cb = resubmit_cb;
	t.io.cb_arg = f;
	blox_bdev_submit(f->bdev, &t.io);
	blox_io_cq_drain(&f->cq);
	assert_int_equal(t.done, 1);
	assert_false(TAILQ_EMPTY(&f->cq.done));
	blox_io_cq_drain(&f->cq);
	assert_int_equal(t.done, 2);
	assert_true(TAILQ_EMPTY(&f->cq.done));
}

/* 9. Null backend: reads zeroes, accepts writes, checks range, defers. */
static void test_null_backend(void **state)
{
	struct fixture *f = *state;
	uint64_t size = f->bdev->size;
	uint8_t buf[65536];

	memset(buf, 0x77, sizeof(buf));
	assert_int_equal(do_io(f, BLOX_IO_WRITE, 4096, sizeof(buf), buf), 0);
	assert_int_equal(do_io(f, BLOX_IO_READ, 4096, sizeof(buf), buf), 0);
	assert_zero(buf, sizeof(buf));
	memset(buf, 0x77, 512);
	assert_int_equal(do_io(f, BLOX_IO_READ, size - 512, 1024, buf), -ERANGE);
	assert_int_equal(do_io(f, BLOX_IO_WRITE, size, 512, buf), -ERANGE);
	assert_int_equal(do_io(f, BLOX_IO_TRIM, 0, size, NULL), 0);
	assert_int_equal(do_io(f, BLOX_IO_WRITE_ZEROES, size - 512, 512, NULL), 0);
	assert_int_equal(do_io(f, BLOX_IO_FLUSH, 0, 0, NULL), 0);
	assert_int_equal(do_io(f, BLOX_IO_READ, size - 512, 512, buf), 0);
	assert_zero(buf, 512);
}

/* 10. With an event base the cq delivers from the loop, not from submit. */
static void test_cq_event_loop(void **state)
{
	struct event_base *base = event_base_new();
	struct fixture f;
	struct blox_bdev_params p = { .backend = "ram", .size = MiB,
				      .block_size = 512 };
	struct test_io t;
	uint8_t buf[512];

	(void)state;
	assert_non_null(base);
	memset(&f, 0, sizeof(f));
	assert_int_equal(blox_io_cq_init(&f.cq, base), 0);
	assert_int_equal(blox_bdev_create(&p, &f.cq, &f.bdev), 0);
	memset(&t, 0, sizeof(t));
	t.io.op = BLOX_IO_READ;
	t.io.len = sizeof(buf);
	t.iov[0] = (struct iovec){ buf, sizeof(buf) };
	t.io.iov = t.iov;
	t.io.iovcnt = 1;
	t.io.cb = io_cb;
	t.io.cb_arg = &f;
	blox_bdev_submit(f.bdev, &t.io);
	assert_int_equal(t.done, 0);
	/* 1: it ran what was active and found nothing else to wait for. */
	assert_int_equal(event_base_loop(base, EVLOOP_NONBLOCK), 1);
	assert_int_equal(t.done, 1);
	assert_int_equal(t.io.status, 0);
	assert_true(TAILQ_EMPTY(&f.cq.done));
	blox_bdev_destroy(f.bdev);
	blox_io_cq_fini(&f.cq);
	event_base_free(base);
}

/* A small nand backend with its flash in @store_path (NULL: RAM). */
struct ftl_case {
	struct nand_config nand;
	struct ftl_config ftl;
	struct blox_clock clock;
	struct blox_log log;
	struct blox_bdev_params p;
	struct blox_bdev *bdev;
	int rc;
};

static void ftl_case_init(struct ftl_case *c, const char *store_path)
{
	memset(c, 0, sizeof(*c));
	nand_config_default(&c->nand);
	c->nand.geo.channels = 2;
	c->nand.geo.dies_per_channel = 1;
	c->nand.geo.planes_per_die = 1;
	c->nand.geo.pages_per_block = 96; /* a multiple of 3 (TLC) */
	c->nand.timing.null_timing = true;
	ftl_config_default(&c->ftl);
	c->nand.geo.blocks_per_plane =
		blox_config_nand_blocks(&c->nand.geo, 2, 8 * MiB, &c->ftl);
	blox_clock_init_real(&c->clock);
	c->p = (struct blox_bdev_params){ .backend = "nand", .size = 8 * MiB,
					  .block_size = 4096, .nand = &c->nand,
					  .ftl = &c->ftl, .store_path = store_path,
					  .clock = &c->clock, .log = &c->log };
}

static void *prepare_thread(void *arg)
{
	struct ftl_case *c = arg;

	c->rc = blox_bdev_ftl_prepare(&c->p, &c->bdev);
	return NULL;
}

static void *destroy_thread(void *arg)
{
	blox_bdev_destroy(arg);
	return NULL;
}

static void run_thread(void *(*fn)(void *), void *arg)
{
	pthread_t t;

	assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/* One 4 KiB I/O through the loop until it completes; its status. */
static int ftl_io(struct event_base *base, struct fixture *f, enum blox_io_op op,
		  uint64_t off, uint8_t *buf)
{
	struct test_io t;

	memset(&t, 0, sizeof(t));
	t.io.op = op;
	t.io.offset = off;
	t.io.len = 4096;
	t.iov[0] = (struct iovec){ buf, 4096 };
	t.io.iov = t.iov;
	t.io.iovcnt = 1;
	t.io.cb = io_cb;
	t.io.cb_arg = f;
	blox_bdev_submit(f->bdev, &t.io);
	while (!t.done)
		assert_true(event_base_loop(base, EVLOOP_ONCE) >= 0);
	return t.io.status;
}

/*
 * 11. A nand backend made on a thread, bound to the loop, used, unbound
 * and destroyed on a thread (clean stop and checkpoint without the loop),
 * then made again from its store file: the data is there.
 */
static void test_ftl_off_loop(void **state)
{
	char dir[] = "/tmp/blox-bdev-XXXXXX", path[64];
	struct event_base *base = event_base_new();
	struct ftl_case c;
	struct fixture f;
	uint8_t w[4096], r[4096];

	(void)state;
	assert_non_null(base);
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/ns.nand", dir);
	memset(&f, 0, sizeof(f));
	assert_int_equal(blox_io_cq_init(&f.cq, base), 0);
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = (uint8_t)(i * 7 + 3);

	ftl_case_init(&c, path);
	run_thread(prepare_thread, &c);
	assert_int_equal(c.rc, 0);
	assert_int_equal(blox_bdev_ftl_bind(c.bdev, base, &f.cq), 0);
	f.bdev = c.bdev;
	assert_int_equal(ftl_io(base, &f, BLOX_IO_WRITE, 5 * 4096, w), 0);
	assert_int_equal(ftl_io(base, &f, BLOX_IO_READ, 5 * 4096, r), 0);
	assert_memory_equal(w, r, sizeof(w));
	assert_true(blox_bdev_ftl_unbind(c.bdev));
	run_thread(destroy_thread, c.bdev);

	/* Back from the file: the clean stop wrote everything down. */
	ftl_case_init(&c, path);
	run_thread(prepare_thread, &c);
	assert_int_equal(c.rc, 0);
	assert_int_equal(blox_bdev_ftl_bind(c.bdev, base, &f.cq), 0);
	f.bdev = c.bdev;
	memset(r, 0, sizeof(r));
	assert_int_equal(ftl_io(base, &f, BLOX_IO_READ, 5 * 4096, r), 0);
	assert_memory_equal(w, r, sizeof(w));
	/* Destroyed while bound (on the loop, as at bloxd's exit). */
	blox_bdev_destroy(c.bdev);

	unlink(path);
	rmdir(dir);
	blox_io_cq_fini(&f.cq);
	event_base_free(base);
}

/* 12. Only a nand backend of its own device leaves the loop. */
static void test_ftl_unbind_others(void **state)
{
	struct fixture *f = *state;
	struct ftl_case c;

	assert_false(blox_bdev_ftl_unbind(f->bdev));
	/* A RAM store, and a shared device, cannot be prepared off the loop. */
	ftl_case_init(&c, NULL);
	c.p.shared = (struct blox_nand_dev *)f; /* never dereferenced */
	assert_int_equal(blox_bdev_ftl_prepare(&c.p, &c.bdev), -EINVAL);
	c.p.shared = NULL;
	run_thread(prepare_thread, &c);
	assert_int_equal(c.rc, 0);
	assert_true(blox_bdev_ftl_unbind(c.bdev));
	run_thread(destroy_thread, c.bdev);
}

/* "smart" in a device's NAND configuration gets qos/'s policy, bound to the device. */
static void test_smart_policy_bound(void **state)
{
	struct event_base *base = event_base_new();
	struct blox_clock clock;
	struct nand_config nc;
	struct blox_nand_dev *d;
	const struct nand_config *got;

	(void)state;
	blox_clock_init_virtual(&clock, 1);
	nand_config_default(&nc);
	nc.geo.channels = 2;
	nc.geo.dies_per_channel = 1;
	nc.geo.blocks_per_plane = 16;
	nc.policy = (struct nand_suspend_policy){ .name = "smart" };
	assert_int_equal(blox_nand_dev_open("s", &nc, NULL, base, &clock, &d), 0);
	got = blox_nand_dev_nand_config(d);
	assert_string_equal(got->policy.name, "smart");
	assert_non_null(got->policy.should_suspend);
	assert_non_null(got->policy.ctx);
	blox_nand_dev_put(d);
	/* Any other policy is left as it is. */
	nand_config_default(&nc);
	nc.geo.blocks_per_plane = 16;
	assert_int_equal(blox_nand_dev_open("d", &nc, NULL, base, &clock, &d), 0);
	assert_ptr_equal(blox_nand_dev_nand_config(d)->policy.should_suspend,
			 nc.policy.should_suspend);
	blox_nand_dev_put(d);
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_params),
		cmocka_unit_test_setup_teardown(test_ram_unwritten_reads_zero,
						setup_ram, teardown),
		cmocka_unit_test_setup_teardown(test_ram_random_round_trip,
						setup_ram, teardown),
		cmocka_unit_test_setup_teardown(test_ram_iovec, setup_ram, teardown),
		cmocka_unit_test_setup_teardown(test_ram_zeroing, setup_ram,
						teardown),
		cmocka_unit_test_setup_teardown(test_ram_out_of_range, setup_ram,
						teardown),
		cmocka_unit_test_setup_teardown(test_ram_completion_deferred,
						setup_ram, teardown),
		cmocka_unit_test_setup_teardown(test_cq_drain_batch, setup_ram,
						teardown),
		cmocka_unit_test_setup_teardown(test_null_backend, setup_null,
						teardown),
		cmocka_unit_test(test_cq_event_loop),
		cmocka_unit_test(test_ftl_off_loop),
		cmocka_unit_test(test_smart_policy_bound),
		cmocka_unit_test_setup_teardown(test_ftl_unbind_others, setup_ram,
						teardown),
		cmocka_unit_test(test_device_cut_plp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
