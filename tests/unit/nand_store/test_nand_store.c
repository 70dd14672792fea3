/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the NAND backing stores (store_ram.c, store_file.c): the
 * ops-table contract on both stores, persistence of the file store across
 * close/reopen (data, OOB, write pointers, erase counts, die counters),
 * refusal of another geometry or a foreign file, sparseness (only
 * programmed pages take disk space, erase punches it back) and that
 * punching one block leaves its neighbours intact. store_part.c: partial
 * page reads (read_part) on both stores, and the file store's mapping.
 * store_huge.c: the file store's mapping on 2 MiB pages.
 */
#include "store_tests.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int setup(void **state)
{
	struct sfx *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	strcpy(f->dir, "/tmp/test_nand_store.XXXXXX");
	if (!mkdtemp(f->dir)) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/nand.img", f->dir);
	fx_small_geo(&f->geo);
	*state = f;
	return 0;
}

int teardown(void **state)
{
	struct sfx *f = *state;
	char junk[128];

	nand_dev_destroy(f->dev);
	nand_store_close(f->store);
	unlink(f->path);
	snprintf(junk, sizeof(junk), "%s/junk", f->dir);
	unlink(junk);
	rmdir(f->dir);
	free(f);
	return 0;
}

void fill(uint8_t *p, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed * 37 + i * 13 + (i >> 7));
}

bool all_bytes(const uint8_t *p, size_t n, uint8_t v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return false;
	return true;
}

int open_store(struct sfx *f, bool file, const struct nand_geometry *g)
{
	return file ? nand_store_file_open(f->path, g, &f->store)
		    : nand_store_ram_open(g, &f->store);
}

void close_store(struct sfx *f)
{
	nand_dev_destroy(f->dev);
	f->dev = NULL;
	nand_store_close(f->store);
	f->store = NULL;
}

/* ---- the ops table, straight ---- */

static void contract(struct sfx *f, bool file)
{
	static uint8_t data[4096], oob[64], back[4096], oback[64];
	struct nand_store *s;
	const uint32_t ppb = f->geo.pages_per_block;
	const uint64_t blk = 13;

	assert_int_equal(open_store(f, file, &f->geo), 0);
	s = f->store;
	assert_string_equal(s->ops->name, file ? "file" : "ram");
	assert_memory_equal(&s->geo, &f->geo, sizeof(f->geo));
	assert_int_equal(s->pages_stored, 0);
	for (uint64_t b = 0; b < nand_blocks(&f->geo); b++) {
		assert_int_equal(s->blocks[b].write_ptr, 0);
		assert_int_equal(s->blocks[b].erase_count, 0);
	}
	for (uint32_t d = 0; d < nand_dies(&f->geo); d++)
		assert_int_equal(s->dies[d].reads + s->dies[d].programs + s->dies[d].erases, 0);

	for (uint32_t p = 0; p < 3; p++) {
		fill(data, sizeof(data), p);
		fill(oob, sizeof(oob), 100 + p);
		assert_int_equal(s->ops->program(s, blk * ppb + p, data, oob), 0);
		assert_int_equal(s->blocks[blk].write_ptr, p + 1);
	}
	assert_int_equal(s->pages_stored, 3);
	for (uint32_t p = 0; p < 3; p++) {
		fill(data, sizeof(data), p);
		fill(oob, sizeof(oob), 100 + p);
		assert_int_equal(s->ops->read(s, blk * ppb + p, back, oback), 0);
		assert_memory_equal(back, data, sizeof(data));
		assert_memory_equal(oback, oob, sizeof(oob));
	}
	/* Either half alone. */
	memset(oback, 0, sizeof(oback));
	assert_int_equal(s->ops->read(s, blk * ppb + 2, NULL, oback), 0);
	assert_memory_equal(oback, oob, sizeof(oob));
	memset(back, 0, sizeof(back));
	assert_int_equal(s->ops->read(s, blk * ppb + 2, back, NULL), 0);
	assert_memory_equal(back, data, sizeof(data));
	/* NULL data and OOB store zeroes. */
	assert_int_equal(s->ops->program(s, blk * ppb + 3, NULL, NULL), 0);
	memset(back, 0xee, sizeof(back));
	memset(oback, 0xee, sizeof(oback));
	assert_int_equal(s->ops->read(s, blk * ppb + 3, back, oback), 0);
	assert_true(all_bytes(back, sizeof(back), 0));
	assert_true(all_bytes(oback, sizeof(oback), 0));
	/* Another block is untouched by the erase. */
	assert_int_equal(s->ops->program(s, (blk + 1) * ppb, data, oob), 0);
	assert_int_equal(s->pages_stored, 5);
	assert_int_equal(s->ops->erase(s, blk), 0);
	assert_int_equal(s->blocks[blk].write_ptr, 0);
	assert_int_equal(s->blocks[blk].erase_count, 1);
	assert_int_equal(s->pages_stored, 1);
	assert_int_equal(s->ops->read(s, (blk + 1) * ppb, back, oback), 0);
	assert_memory_equal(back, data, sizeof(data));
	assert_int_equal(s->blocks[blk + 1].write_ptr, 1);
	/* Erasing an erased block still counts. */
	assert_int_equal(s->ops->erase(s, blk), 0);
	assert_int_equal(s->blocks[blk].erase_count, 2);
	assert_int_equal(s->pages_stored, 1);
	assert_int_equal(s->ops->sync(s), 0);
	if (!file) /* documented: only programmed pages are read */
		assert_int_equal(s->ops->read(s, blk * ppb, back, oback), -EIO);
	close_store(f);
}

/* 1. The RAM store keeps the ops-table contract. */
static void test_ram_contract(void **state)
{
	contract(*state, false);
}

/* 2. So does the file store. */
static void test_file_contract(void **state)
{
	contract(*state, true);
}

/* 3. Open errors: bad geometry, unreachable path. */
static void test_open_errors(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g = f->geo;
	struct nand_store *s = NULL;

	g.page_size = 1000;
	assert_int_equal(nand_store_ram_open(&g, &s), -EINVAL);
	assert_int_equal(nand_store_file_open(f->path, &g, &s), -EINVAL);
	assert_null(s);
	assert_int_equal(access(f->path, F_OK), -1); /* nothing created */
	assert_int_equal(nand_store_file_open("/nonexistent-dir/x.img", &f->geo, &s),
			 -ENOENT);
	nand_store_close(NULL);
}

/* ---- persistence through the engine ---- */

static void op_cb(struct nand_op *op)
{
	struct sfx *f = op->cb_arg;

	f->done++;
}

/* Run one data op through the device to completion; its status. */
static int do_op(struct sfx *f, enum nand_op_kind kind, const struct nand_addr *a,
		 void *data, void *oob, bool *erased)
{
	struct nand_op op = {
		.kind = kind,
		.prio = kind == NAND_OP_READ ? NAND_PRIO_HOST_READ :
			kind == NAND_OP_PROGRAM ? NAND_PRIO_HOST_WRITE : NAND_PRIO_ERASE,
		.addr = *a,
		.data = data,
		.oob = oob,
		.cb = op_cb,
		.cb_arg = f,
	};
	uint64_t t;
	int rc = nand_submit(f->dev, &op, 0);

	if (rc)
		return rc;
	while ((t = nand_next_event(f->dev)) != UINT64_MAX)
		nand_advance(f->dev, t);
	assert_int_equal(nand_inflight(f->dev), 0);
	if (erased)
		*erased = op.erased;
	return op.status;
}

static void dev_open(struct sfx *f)
{
	struct nand_config cfg;

	assert_int_equal(nand_store_file_open(f->path, &f->geo, &f->store), 0);
	nand_config_default(&cfg);
	cfg.geo = f->geo;
	assert_int_equal(nand_dev_create(&cfg, f->store, &f->dev), 0);
}

/* 4. Close and reopen: data, OOB, write pointers, erase counts, counters. */
static void test_file_persistence(void **state)
{
	struct sfx *f = *state;
	static uint8_t data[4096], oob[64], back[4096], oback[64];
	const struct nand_addr A = { 0, 1, 1, 2, 0 }, B = { 1, 0, 0, 0, 0 };
	const uint64_t nb = nand_blocks(&f->geo);
	static struct nand_block_meta meta[32];
	struct nand_die_counters dies[4];
	struct nand_addr a;
	uint64_t stored;
	bool erased;

	assert_int_equal(nb, 32);
	dev_open(f);
	for (uint32_t p = 0; p < 4; p++) {
		a = A;
		a.page = p;
		fill(data, sizeof(data), p);
		fill(oob, sizeof(oob), 50 + p);
		assert_int_equal(do_op(f, NAND_OP_PROGRAM, &a, data, oob, NULL), 0);
	}
	for (uint32_t p = 0; p < 6; p++) {
		a = B;
		a.page = p;
		assert_int_equal(do_op(f, NAND_OP_PROGRAM, &a, NULL, NULL, NULL), 0);
	}
	assert_int_equal(do_op(f, NAND_OP_ERASE, &B, NULL, NULL, NULL), 0);
	fill(data, sizeof(data), 77);
	fill(oob, sizeof(oob), 78);
	assert_int_equal(do_op(f, NAND_OP_PROGRAM, &B, data, oob, NULL), 0);
	a = A;
	a.page = 1;
	assert_int_equal(do_op(f, NAND_OP_READ, &a, back, oback, &erased), 0);
	assert_false(erased);

	assert_int_equal(f->store->pages_stored, 5);
	assert_int_equal(f->store->blocks[nand_block_index(&f->geo, &A)].write_ptr, 4);
	assert_int_equal(f->store->blocks[nand_block_index(&f->geo, &B)].write_ptr, 1);
	assert_int_equal(f->store->blocks[nand_block_index(&f->geo, &B)].erase_count, 1);
	assert_int_equal(f->store->dies[1].programs, 4);
	assert_int_equal(f->store->dies[1].reads, 1);
	assert_int_equal(f->store->dies[2].programs, 7);
	assert_int_equal(f->store->dies[2].erases, 1);
	memcpy(meta, f->store->blocks, nb * sizeof(*meta));
	memcpy(dies, f->store->dies, sizeof(dies));
	stored = f->store->pages_stored;
	close_store(f);

	dev_open(f);
	assert_memory_equal(f->store->blocks, meta, nb * sizeof(*meta));
	assert_memory_equal(f->store->dies, dies, sizeof(dies));
	assert_int_equal(f->store->pages_stored, stored);
	for (uint32_t p = 0; p < 4; p++) {
		a = A;
		a.page = p;
		fill(data, sizeof(data), p);
		fill(oob, sizeof(oob), 50 + p);
		assert_int_equal(do_op(f, NAND_OP_READ, &a, back, oback, &erased), 0);
		assert_false(erased);
		assert_memory_equal(back, data, sizeof(data));
		assert_memory_equal(oback, oob, sizeof(oob));
	}
	a.page = 4;
	assert_int_equal(do_op(f, NAND_OP_READ, &a, back, oback, &erased), 0);
	assert_true(erased);
	assert_true(all_bytes(back, sizeof(back), 0xff));
	fill(data, sizeof(data), 77);
	fill(oob, sizeof(oob), 78);
	assert_int_equal(do_op(f, NAND_OP_READ, &B, back, oback, &erased), 0);
	assert_false(erased);
	assert_memory_equal(back, data, sizeof(data));
	assert_memory_equal(oback, oob, sizeof(oob));
	a = B;
	a.page = 1; /* programmed before the erase */
	assert_int_equal(do_op(f, NAND_OP_READ, &a, back, oback, &erased), 0);
	assert_true(erased);
	/* The rules carry over: page 3 of A is taken, page 4 is next. */
	a = A;
	a.page = 3;
	assert_int_equal(do_op(f, NAND_OP_PROGRAM, &a, NULL, NULL, NULL), -EPERM);
	a.page = 4;
	assert_int_equal(do_op(f, NAND_OP_PROGRAM, &a, NULL, NULL, NULL), 0);
	assert_int_equal(f->store->blocks[nand_block_index(&f->geo, &A)].write_ptr, 5);
	close_store(f);
}

/* 5. Reopening with another geometry, or a file that is not ours: -EINVAL. */
static void test_file_wrong_geometry(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g;
	static uint8_t data[4096];
	char junk[128];
	int fd;

	assert_int_equal(nand_store_file_open(f->path, &f->geo, &f->store), 0);
	fill(data, sizeof(data), 3);
	assert_int_equal(f->store->ops->program(f->store, 6, data, NULL), 0);
	close_store(f);

	g = f->geo;
	g.blocks_per_plane = 5;
	assert_int_equal(nand_store_file_open(f->path, &g, &f->store), -EINVAL);
	g = f->geo;
	g.page_size = 8192;
	assert_int_equal(nand_store_file_open(f->path, &g, &f->store), -EINVAL);
	g = f->geo;
	g.oob_size = 128;
	assert_int_equal(nand_store_file_open(f->path, &g, &f->store), -EINVAL);
	g = f->geo;
	g.cell = NAND_SLC;
	assert_int_equal(nand_store_file_open(f->path, &g, &f->store), -EINVAL);
	assert_null(f->store);
	/* The refused opens left the store as it was. */
	assert_int_equal(nand_store_file_open(f->path, &f->geo, &f->store), 0);
	assert_int_equal(f->store->blocks[1].write_ptr, 1);
	assert_int_equal(f->store->pages_stored, 1);
	{
		static uint8_t back[4096];

		assert_int_equal(f->store->ops->read(f->store, 6, back, NULL), 0);
		assert_memory_equal(back, data, sizeof(data));
	}
	close_store(f);

	snprintf(junk, sizeof(junk), "%s/junk", f->dir);
	fd = open(junk, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, sizeof(data)), (ssize_t)sizeof(data));
	close(fd);
	assert_int_equal(nand_store_file_open(junk, &f->geo, &f->store), -EINVAL);
	assert_null(f->store);
}

static uint64_t disk_bytes(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_blocks * 512;
}

/* 6. Sparse: programmed pages cost disk space, erased blocks give it back. */
static void test_file_sparse(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g;
	struct nand_store *s;
	struct stat st;
	uint8_t *data;
	uint64_t base, four, full, stride, ppb;

	nand_geometry_default(&g);
	stride = (uint64_t)g.page_size + g.oob_size;
	ppb = g.pages_per_block;
	data = malloc(g.page_size);
	assert_non_null(data);
	assert_int_equal(nand_store_file_open(f->path, &g, &f->store), 0);
	s = f->store;
	assert_int_equal(stat(f->path, &st), 0);
	assert_true((uint64_t)st.st_size >= nand_pages(&g) * stride);
	base = disk_bytes(f->path);
	/* Header and meta tables only. */
	assert_true(base < 1024 * 1024);

	fill(data, g.page_size, 1);
	for (uint32_t p = 0; p < 4; p++)
		assert_int_equal(s->ops->program(s, p, data, NULL), 0);
	assert_int_equal(s->ops->sync(s), 0);
	four = disk_bytes(f->path);
	assert_true(four >= base + 4 * g.page_size);
	assert_true(four <= base + 4 * stride + 2 * 4096);

	for (uint32_t p = 0; p < ppb; p++)
		assert_int_equal(s->ops->program(s, ppb + p, data, NULL), 0);
	assert_int_equal(s->ops->sync(s), 0);
	full = disk_bytes(f->path);
	assert_true(full >= four + ppb * stride - 4096);

	/* Erase punches the block out again. */
	assert_int_equal(s->ops->erase(s, 1), 0);
	assert_int_equal(s->ops->sync(s), 0);
	assert_true(disk_bytes(f->path) <= four + 4096);
	assert_int_equal(s->ops->erase(s, 0), 0);
	assert_int_equal(s->ops->sync(s), 0);
	assert_true(disk_bytes(f->path) <= base + 4096);
	assert_int_equal(s->pages_stored, 0);
	close_store(f);
	free(data);
}

/* 7. Punching a block whose pages straddle file-system blocks spares its neighbours. */
static void test_file_erase_neighbours(void **state)
{
	struct sfx *f = *state;
	static uint8_t data[4096], oob[64], back[4096], oback[64];
	struct nand_store *s;
	const uint32_t ppb = f->geo.pages_per_block; /* 6 x 4160 bytes: unaligned */

	assert_int_equal(nand_store_file_open(f->path, &f->geo, &f->store), 0);
	s = f->store;
	for (uint64_t b = 0; b < 3; b++)
		for (uint32_t p = 0; p < ppb; p++) {
			fill(data, sizeof(data), (uint32_t)(b * 10 + p));
			fill(oob, sizeof(oob), (uint32_t)(b * 10 + p + 500));
			assert_int_equal(s->ops->program(s, b * ppb + p, data, oob), 0);
		}
	assert_int_equal(s->ops->erase(s, 1), 0);
	close_store(f);
	assert_int_equal(nand_store_file_open(f->path, &f->geo, &f->store), 0);
	s = f->store;
	assert_int_equal(s->blocks[1].write_ptr, 0);
	assert_int_equal(s->blocks[1].erase_count, 1);
	for (uint64_t b = 0; b < 3; b += 2)
		for (uint32_t p = 0; p < ppb; p++) {
			fill(data, sizeof(data), (uint32_t)(b * 10 + p));
			fill(oob, sizeof(oob), (uint32_t)(b * 10 + p + 500));
			assert_int_equal(s->ops->read(s, b * ppb + p, back, oback), 0);
			assert_memory_equal(back, data, sizeof(data));
			assert_memory_equal(oback, oob, sizeof(oob));
		}
	close_store(f);
}

/* 8. The RAM store frees erased pages (pages_stored follows). */
static void test_ram_pages_stored(void **state)
{
	struct sfx *f = *state;
	struct nand_store *s;
	const uint32_t ppb = f->geo.pages_per_block;

	assert_int_equal(nand_store_ram_open(&f->geo, &f->store), 0);
	s = f->store;
	for (uint64_t b = 0; b < nand_blocks(&f->geo); b++)
		for (uint32_t p = 0; p < ppb; p++)
			assert_int_equal(s->ops->program(s, b * ppb + p, NULL, NULL), 0);
	assert_int_equal(s->pages_stored, nand_pages(&f->geo));
	for (uint64_t b = 0; b < nand_blocks(&f->geo); b += 2)
		assert_int_equal(s->ops->erase(s, b), 0);
	assert_int_equal(s->pages_stored, nand_pages(&f->geo) / 2);
	close_store(f); /* ASan: the rest is freed on close */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ram_contract, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_contract, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_persistence, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_wrong_geometry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_sparse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_erase_neighbours, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ram_pages_stored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ram_read_part, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_read_part, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ram_part_after_erase, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_part_coherent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_part_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_short_reopen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_mapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_peek, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_huge_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_huge_pages_off, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
