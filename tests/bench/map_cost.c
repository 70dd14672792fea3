/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * map_cost: what one 4 KiB read out of the file store costs this host's CPU,
 * the way the store reads (a copy out of a shared read-only mapping of the
 * file) against the way it could (pread). A file of SIZE MiB is written in
 * full (in the page cache, as a filled vSSD's store is), mapped, and read at
 * random 4 KiB places: six passes of N copies each out of the mapping (the
 * first pass pays the first touch of each 4 KiB of the mapping, the later
 * ones less and less), then N preads, then N copies each preceded by a
 * prefetch of the read 16 ahead (what a store's prefetch at an op's start
 * would give at best). Figures in ns per read to OUT (default stdout).
 *
 *   map_cost FILE [SIZE_MiB (4096)] [N (1000000)] [OUT]
 *
 * FILE is created (and left: remove it after). Run on a quiet machine,
 * pinned (taskset -c 0): a benchmark, nothing is asserted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u
#define AHEAD 16u

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int fill(int fd, size_t size)
{
	static uint8_t buf[1u << 20];

	memset(buf, 0x5a, sizeof(buf));
	for (size_t off = 0; off < size; off += sizeof(buf))
		if (pwrite(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf))
			return -1;
	return fdatasync(fd);
}

int main(int argc, char **argv)
{
	size_t size = (size_t)(argc > 2 ? strtoull(argv[2], NULL, 0) : 4096) << 20;
	uint64_t n = argc > 3 ? strtoull(argv[3], NULL, 0) : 1000000, x = 88172645463325252ull;
	FILE *out = argc > 4 ? fopen(argv[4], "w") : stdout;
	uint64_t pages = size / PAGE, *at;
	static uint8_t dst[PAGE];
	const uint8_t *map;
	double t0;
	int fd;

	if (argc < 2 || !out || size < PAGE || !n) {
		fprintf(stderr, "usage: map_cost FILE [SIZE_MiB] [N] [OUT]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || fill(fd, size)) {
		fprintf(stderr, "map_cost: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	at = malloc(n * sizeof(*at));
	if (map == MAP_FAILED || !at) {
		fprintf(stderr, "map_cost: %s\n", strerror(errno));
		return 2;
	}
	(void)madvise((void *)map, size, MADV_RANDOM); /* as the store maps */
	fprintf(out, "# map_cost %s %zu MiB, %llu random 4 KiB reads per line\n", argv[1],
		size >> 20, (unsigned long long)n);
	for (int pass = 1; pass <= 6; pass++) {
		for (uint64_t i = 0; i < n; i++)
			at[i] = next(&x) % pages;
		t0 = now_ns();
		for (uint64_t i = 0; i < n; i++) {
			memcpy(dst, map + at[i] * PAGE, PAGE);
			__asm__ volatile("" : : "r"(dst) : "memory");
		}
		fprintf(out, "copy from the mapping, pass %d: %6.0f ns\n", pass, (now_ns() - t0) / (double)n);
	}
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		if (pread(fd, dst, PAGE, (off_t)(at[i] * PAGE)) != PAGE)
			return 2;
	fprintf(out, "pread:                         %6.0f ns\n", (now_ns() - t0) / (double)n);
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++) {
		if (i + AHEAD < n)
			for (uint32_t l = 0; l < PAGE; l += 64)
				__builtin_prefetch(map + at[i + AHEAD] * PAGE + l);
		memcpy(dst, map + at[i] * PAGE, PAGE);
		__asm__ volatile("" : : "r"(dst) : "memory");
	}
	fprintf(out, "copy, prefetched %u ahead:     %6.0f ns\n", AHEAD, (now_ns() - t0) / (double)n);
	munmap((void *)map, size);
	close(fd);
	free(at);
	if (out != stdout)
		fclose(out);
	return 0;
}
