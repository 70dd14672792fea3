/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Partial page reads (the stores' read_part) against whole-page reads on
 * both stores: every unit-aligned range of a 16 KiB page and odd byte
 * ranges, with guard bytes around the destination; pages programmed with
 * NULL data; a block erased and programmed again. The file store's
 * mapping: pages programmed after it was made (one page cache), a store
 * reopened from an existing file, a file cut short grown back to its size
 * instead of faulting, and that the mapping is really there (and gone at
 * close).
 */
#include "store_tests.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNIT 4096u
#define GUARD 64u
#define GUARD_BYTE 0xa5

/* The small geometry with 16 KiB pages: four units, an unaligned stride. */
static void geo16(struct sfx *f, struct nand_geometry *g)
{
	*g = f->geo;
	g->page_size = 4 * UNIT;
	g->oob_size = 64;
}

static uint32_t rng_next(uint32_t *r)
{
	*r ^= *r << 13;
	*r ^= *r >> 17;
	*r ^= *r << 5;
	return *r;
}

/* read_part(@off, @len) of @page equals @ref's bytes; nothing around dst written. */
static void part_matches(struct nand_store *s, uint64_t page, uint32_t off, uint32_t len,
			 const uint8_t *ref, uint8_t *buf)
{
	uint8_t *dst = buf + GUARD;

	memset(buf, GUARD_BYTE, len + 2 * GUARD);
	assert_int_equal(s->ops->read_part(s, page, off, len, dst), 0);
	if (memcmp(dst, ref + off, len))
		fail_msg("page %llu: read_part(%u, %u) differs from the whole page",
			 (unsigned long long)page, off, len);
	assert_true(all_bytes(buf, GUARD, GUARD_BYTE));
	assert_true(all_bytes(dst + len, GUARD, GUARD_BYTE));
}

/* Every unit-aligned range and a few hundred odd ones of @page. */
static void parts_of(struct nand_store *s, uint64_t page)
{
	const uint32_t ps = s->geo.page_size, units = ps / UNIT;
	static const uint32_t odd[][2] = {
		{ 0, 1 }, { 1, 1 }, { 4095, 2 }, { 4095, 4097 }, { 16383, 1 }, { 7, 16377 },
		{ 1000, 3000 }, { 8191, 8193 }, { 12288, 4095 }, { 12289, 4095 }, { 3, 12288 },
		{ 0, 16384 },
	};
	uint8_t *ref = malloc(ps), *buf = malloc(ps + 2 * GUARD);
	uint32_t r = (uint32_t)page * 2654435761u + 1;

	assert_non_null(ref);
	assert_non_null(buf);
	assert_int_equal(s->ops->read(s, page, ref, NULL), 0);
	for (uint32_t u = 0; u < units; u++)
		for (uint32_t n = 1; u + n <= units; n++)
			part_matches(s, page, u * UNIT, n * UNIT, ref, buf);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		if (odd[i][0] + odd[i][1] <= ps)
			part_matches(s, page, odd[i][0], odd[i][1], ref, buf);
	for (int i = 0; i < 300; i++) {
		uint32_t off = rng_next(&r) % ps;
		uint32_t len = 1 + rng_next(&r) % (ps - off);

		part_matches(s, page, off, len, ref, buf);
	}
	free(ref);
	free(buf);
}

/* Program @page with the pattern of @seed (data and OOB). */
static void program_seed(struct nand_store *s, uint64_t page, uint32_t seed)
{
	uint8_t *data = malloc(s->geo.page_size), *oob = malloc(s->geo.oob_size);

	assert_non_null(data);
	assert_non_null(oob);
	fill(data, s->geo.page_size, seed);
	fill(oob, s->geo.oob_size, seed + 1000);
	assert_int_equal(s->ops->program(s, page, data, oob), 0);
	free(data);
	free(oob);
}

/* Bytes [off, off + len) of @page are those of pattern @seed. */
static void part_is_seed(struct nand_store *s, uint64_t page, uint32_t off, uint32_t len,
			 uint32_t seed)
{
	uint8_t *want = malloc(s->geo.page_size), *got = malloc(len);

	assert_non_null(want);
	assert_non_null(got);
	fill(want, s->geo.page_size, seed);
	assert_int_equal(s->ops->read_part(s, page, off, len, got), 0);
	assert_memory_equal(got, want + off, len);
	free(want);
	free(got);
}

static void read_part_all(struct sfx *f, bool file)
{
	struct nand_geometry g;
	struct nand_store *s;
	uint64_t last_blk;
	uint32_t ppb;
	uint8_t zero[UNIT];

	geo16(f, &g);
	ppb = g.pages_per_block;
	last_blk = nand_blocks(&g) - 1;
	assert_int_equal(open_store(f, file, &g), 0);
	s = f->store;
	for (uint32_t p = 0; p < 3; p++)
		program_seed(s, 2 * ppb + p, 10 + p);
	assert_int_equal(s->ops->program(s, 2 * ppb + 3, NULL, NULL), 0);
	/* The last block of the device: its last page ends the file. */
	for (uint32_t p = 0; p < ppb; p++)
		program_seed(s, last_blk * ppb + p, 20 + p);
	for (uint32_t p = 0; p < 4; p++)
		parts_of(s, 2 * ppb + p);
	for (uint32_t p = 0; p < ppb; p++)
		parts_of(s, last_blk * ppb + p);
	/* A NULL-data program reads back as zeroes, in part too. */
	memset(zero, 0x11, sizeof(zero));
	assert_int_equal(s->ops->read_part(s, 2 * ppb + 3, 5, UNIT, zero), 0);
	assert_true(all_bytes(zero, UNIT, 0));
	part_is_seed(s, last_blk * ppb + ppb - 1, 4 * UNIT - 1, 1, 20 + ppb - 1);
	if (!file) /* as read(): only programmed pages */
		assert_int_equal(s->ops->read_part(s, 0, 0, UNIT, zero), -EIO);
	close_store(f);
}

/* 9. The RAM store's read_part is the whole page's bytes, and only those. */
void test_ram_read_part(void **state)
{
	read_part_all(*state, false);
}

/* 10. So is the file store's. */
void test_file_read_part(void **state)
{
	read_part_all(*state, true);
}

/* A block programmed, erased and programmed again reads the new data. */
static void erase_reprogram(struct nand_store *s, uint64_t blk)
{
	const uint32_t ppb = s->geo.pages_per_block;

	for (uint32_t p = 0; p < ppb; p++)
		program_seed(s, blk * ppb + p, 40 + p);
	part_is_seed(s, blk * ppb + 1, UNIT, 2 * UNIT, 41);
	assert_int_equal(s->ops->erase(s, blk), 0);
	for (uint32_t p = 0; p < 2; p++)
		program_seed(s, blk * ppb + p, 60 + p);
	for (uint32_t p = 0; p < 2; p++) {
		part_is_seed(s, blk * ppb + p, 0, s->geo.page_size, 60 + p);
		part_is_seed(s, blk * ppb + p, UNIT + 3, 100, 60 + p);
	}
}

/* 11. RAM: after an erase and a new program, read_part sees the new data. */
void test_ram_part_after_erase(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g;

	geo16(f, &g);
	assert_int_equal(open_store(f, false, &g), 0);
	erase_reprogram(f->store, 5);
	close_store(f);
}

/*
 * 12. File: pages programmed after the mapping was made are seen through
 * it, even where the mapping had already been read (the hole's zeroes);
 * an erased and reprogrammed block shows its new data, not the old.
 */
void test_file_part_coherent(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g;
	struct nand_store *s;
	uint8_t *got;
	uint32_t ppb;

	geo16(f, &g);
	ppb = g.pages_per_block;
	assert_int_equal(open_store(f, true, &g), 0);
	s = f->store;
	got = malloc(g.page_size);
	assert_non_null(got);
	/* Never programmed: the file's hole, now faulted into the mapping. */
	memset(got, 0x33, g.page_size);
	assert_int_equal(s->ops->read_part(s, 7 * ppb, 0, g.page_size, got), 0);
	assert_true(all_bytes(got, g.page_size, 0));
	program_seed(s, 7 * ppb, 70);
	part_is_seed(s, 7 * ppb, 0, g.page_size, 70);
	part_is_seed(s, 7 * ppb, 2 * UNIT, UNIT, 70);
	erase_reprogram(s, 7);
	erase_reprogram(s, 7);
	free(got);
	close_store(f);
}

/* 13. A store reopened from an existing file maps it and reads its pages. */
void test_file_part_reopen(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g;
	struct nand_store *s;
	uint32_t ppb;

	geo16(f, &g);
	ppb = g.pages_per_block;
	assert_int_equal(open_store(f, true, &g), 0);
	for (uint32_t p = 0; p < ppb; p++)
		program_seed(f->store, 3 * ppb + p, 80 + p);
	close_store(f);
	assert_int_equal(open_store(f, true, &g), 0);
	s = f->store;
	assert_int_equal(s->blocks[3].write_ptr, ppb);
	for (uint32_t p = 0; p < ppb; p++) {
		part_is_seed(s, 3 * ppb + p, 0, g.page_size, 80 + p);
		parts_of(s, 3 * ppb + p);
	}
	/* And what is programmed after the reopen. */
	program_seed(s, 4 * ppb, 90);
	part_is_seed(s, 4 * ppb, UNIT, 3 * UNIT, 90);
	close_store(f);
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

/*
 * 14. A file shorter than its geometry's size (cut in the last block) is
 * grown back at reopen: the cut pages read as zeroes instead of raising
 * SIGBUS through the mapping, the rest as written.
 */
void test_file_short_reopen(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g;
	struct nand_store *s;
	uint64_t full, last, cut;
	uint32_t ppb;
	uint8_t *got, *oob;

	geo16(f, &g);
	ppb = g.pages_per_block;
	last = nand_blocks(&g) - 1;
	full = nand_store_file_bytes(&g);
	assert_int_equal(open_store(f, true, &g), 0);
	assert_int_equal(file_size(f->path), full);
	program_seed(f->store, 0, 100);
	for (uint32_t p = 0; p < ppb; p++)
		program_seed(f->store, last * ppb + p, 110 + p);
	close_store(f);
	/* Cut half of the last block off. */
	cut = (uint64_t)(ppb / 2) * (g.page_size + g.oob_size);
	assert_int_equal(truncate(f->path, (off_t)(full - cut)), 0);
	assert_int_equal(open_store(f, true, &g), 0);
	s = f->store;
	assert_int_equal(file_size(f->path), full);
	got = malloc(g.page_size);
	oob = malloc(g.oob_size);
	assert_non_null(got);
	assert_non_null(oob);
	part_is_seed(s, 0, 0, g.page_size, 100);
	for (uint32_t p = 0; p < ppb / 2; p++)
		part_is_seed(s, last * ppb + p, 0, g.page_size, 110 + p);
	for (uint32_t p = ppb / 2; p < ppb; p++) {
		memset(got, 0x77, g.page_size);
		assert_int_equal(s->ops->read_part(s, last * ppb + p, 0, g.page_size, got), 0);
		assert_true(all_bytes(got, g.page_size, 0));
	}
	/* The device's last byte, through the whole-page read. */
	memset(oob, 0x77, g.oob_size);
	assert_int_equal(s->ops->read(s, last * ppb + ppb - 1, got, oob), 0);
	assert_true(all_bytes(oob, g.oob_size, 0));
	free(got);
	free(oob);
	close_store(f);
}

/* Lines of /proc/self/maps naming @path. */
static int mappings_of(const char *path)
{
	FILE *m = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	assert_non_null(m);
	while (fgets(line, sizeof(line), m))
		if (strstr(line, path))
			n++;
	fclose(m);
	return n;
}

/* 15. The file store reads through a read-only mapping, unmapped at close. */
void test_file_mapped(void **state)
{
	struct sfx *f = *state;
	FILE *m;
	char line[512];
	bool ro = false;

	assert_int_equal(open_store(f, true, &f->geo), 0);
	assert_int_equal(mappings_of(f->path), 1);
	m = fopen("/proc/self/maps", "r");
	assert_non_null(m);
	while (fgets(line, sizeof(line), m)) {
		char perms[8];

		if (strstr(line, f->path) && sscanf(line, "%*s %7s", perms) == 1)
			ro = !strcmp(perms, "r--s");
	}
	fclose(m);
	assert_true(ro);
	close_store(f);
	assert_int_equal(mappings_of(f->path), 0);
}

/*
 * Both stores' peek (what a lent read hands out): the bytes at every unit
 * of a programmed page are the page's, read in place; another page's are
 * its own; a block of an offline die has none (NULL).
 */
static void peek_pages(struct sfx *f, bool file)
{
	struct nand_geometry g;
	struct nand_store *s;
	uint8_t *want;

	geo16(f, &g);
	assert_int_equal(open_store(f, file, &g), 0);
	s = f->store;
	assert_non_null(s->ops->peek);
	want = malloc(g.page_size);
	assert_non_null(want);
	program_seed(s, 3, 30);
	program_seed(s, g.pages_per_block + 0, 40);
	fill(want, g.page_size, 30);
	for (uint32_t u = 0; u < g.page_size / UNIT; u++) {
		const uint8_t *p = s->ops->peek(s, 3, u * UNIT);

		assert_non_null(p);
		assert_memory_equal(p, want + u * UNIT, UNIT);
	}
	fill(want, g.page_size, 40);
	assert_memory_equal(s->ops->peek(s, g.pages_per_block, 0), want, g.page_size);
	s->blocks[0].flags |= NAND_BLOCK_OFFLINE;
	assert_null(s->ops->peek(s, 3, 0));
	s->blocks[0].flags &= ~NAND_BLOCK_OFFLINE;
	free(want);
	close_store(f);
}

void test_store_peek(void **state)
{
	peek_pages(*state, false);
	peek_pages(*state, true);
}
