/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The file store on huge pages (nand_store_file_huge_pages()): where the
 * kernel keeps a file's page cache in 2 MiB folios (a probe file in the
 * test's directory says whether it does; the test skips where it does
 * not), a store whose pages were programmed and then read has its mapping
 * PMD-mapped (/proc/self/smaps, FilePmdMapped), and every page reads back
 * what was programmed, also after an erase and a program again and after a
 * reopen. Without the store's touch of a page's two ends before its
 * pwritev, the writes fill the page cache with small folios and the
 * mapping stays 4 KiB-mapped. Off (the default) it stays 4 KiB-mapped too,
 * and a RAM store says no.
 */
#include "store_tests.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB (1024u * 1024u)

/* FilePmdMapped (bytes) summed over this process's mappings of @path. */
static uint64_t pmd_mapped(const char *path)
{
	FILE *m = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	uint64_t kb, sum = 0;

	assert_non_null(m);
	while (fgets(line, sizeof(line), m)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			char *nl = strchr(line, '\n');

			if (nl)
				*nl = '\0';
			in = strlen(line) >= strlen(path) &&
			     !strcmp(line + strlen(line) - strlen(path), path);
			continue;
		}
		if (in && sscanf(line, "FilePmdMapped: %lu kB", &kb) == 1)
			sum += kb * 1024;
	}
	fclose(m);
	return sum;
}

/* Does a file in @dir, mapped and advised as the store does, get 2 MiB mappings? */
static bool huge_folios_here(const char *dir)
{
	char path[128];
	size_t len = 8 * MIB;
	uint64_t got = 0;
	void *p;
	int fd;

	snprintf(path, sizeof(path), "%s/probe", dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)len), 0);
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	if (!madvise(p, len, MADV_HUGEPAGE)) {
		for (size_t o = 0; o < len; o += 4096)
			(void)((const volatile uint8_t *)p)[o];
		got = pmd_mapped(path);
	}
	munmap(p, len);
	close(fd);
	unlink(path);
	return got > 0;
}

/*
 * The geometry of both tests: 16 KiB pages whose 16448-byte stride
 * crosses the 2 MiB lines, blocks enough for 12 MiB of programs; how many
 * pages those 12 MiB are.
 */
static uint64_t huge_geo(const struct sfx *f, struct nand_geometry *g)
{
	*g = f->geo;
	g->blocks_per_plane = 8;
	g->pages_per_block = 66; /* a multiple of the TLC bits per cell */
	g->page_size = 16384;
	g->oob_size = 64;
	return 12 * MIB / ((uint64_t)g->page_size + g->oob_size);
}

void test_file_huge_pages(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g;
	struct nand_store *s;
	uint64_t n = huge_geo(f, &g), mapped;
	uint8_t *buf, *got;

	if (!huge_folios_here(f->dir)) {
		print_message("no 2 MiB page-cache folios for files in %s on this kernel: skipped\n",
			      f->dir);
		skip();
	}
	assert_int_equal(open_store(f, true, &g), 0);
	s = f->store;
	assert_true(nand_store_file_huge_pages(s));
	/* Pages 0..n-1: blocks in order, each filled as a die fills its block. */
	buf = malloc(g.page_size);
	got = malloc(g.page_size);
	assert_non_null(buf);
	assert_non_null(got);
	for (uint64_t p = 0; p < n; p++) {
		fill(buf, g.page_size, (uint32_t)p);
		assert_int_equal(s->ops->program(s, p, buf, NULL), 0);
	}
	for (uint64_t p = 0; p < n; p++) {
		fill(buf, g.page_size, (uint32_t)p);
		assert_int_equal(s->ops->read_part(s, p, 0, g.page_size, got), 0);
		if (memcmp(buf, got, g.page_size))
			fail_msg("page %llu reads back wrong", (unsigned long long)p);
	}
	/* 12 MiB written from a data offset under 2 MiB: at least four whole 2 MiB regions. */
	mapped = pmd_mapped(f->path);
	if (mapped < 8 * MIB)
		fail_msg("the store's mapping has %llu KiB PMD-mapped after 12 MiB of programs",
			 (unsigned long long)(mapped / 1024));
	/* An erased block programmed again, then the store reopened: the same bytes. */
	assert_int_equal(s->ops->erase(s, 1), 0);
	for (uint64_t p = g.pages_per_block; p < 2ull * g.pages_per_block; p++) {
		fill(buf, g.page_size, (uint32_t)p + 7);
		assert_int_equal(s->ops->program(s, p, buf, NULL), 0);
	}
	close_store(f);
	assert_int_equal(open_store(f, true, &g), 0);
	s = f->store;
	assert_true(nand_store_file_huge_pages(s));
	for (uint64_t p = 0; p < n; p++) {
		bool again = p >= g.pages_per_block && p < 2ull * g.pages_per_block;

		fill(buf, g.page_size, (uint32_t)p + (again ? 7 : 0));
		assert_int_equal(s->ops->read_part(s, p, 0, g.page_size, got), 0);
		if (memcmp(buf, got, g.page_size))
			fail_msg("page %llu reads back wrong after the reopen", (unsigned long long)p);
	}
	free(buf);
	free(got);
	close_store(f);
}

/* Off (the default), the same programs leave the mapping 4 KiB-mapped; a RAM store has none. */
void test_file_huge_pages_off(void **state)
{
	struct sfx *f = *state;
	struct nand_geometry g;
	uint64_t n = huge_geo(f, &g);
	uint8_t *buf;

	if (!huge_folios_here(f->dir))
		skip();
	assert_int_equal(open_store(f, true, &g), 0);
	buf = calloc(1, g.page_size);
	assert_non_null(buf);
	for (uint64_t p = 0; p < n; p++)
		assert_int_equal(f->store->ops->program(f->store, p, buf, NULL), 0);
	for (uint64_t p = 0; p < n; p++)
		assert_int_equal(f->store->ops->read_part(f->store, p, 0, 4096, buf), 0);
	assert_int_equal(pmd_mapped(f->path), 0);
	free(buf);
	close_store(f);
	assert_int_equal(open_store(f, false, &g), 0);
	assert_false(nand_store_file_huge_pages(f->store));
	close_store(f);
}
