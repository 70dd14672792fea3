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
 * Then what a read's trip to a TCP socket costs (a loopback connection
 * whose other end a thread on another CPU drains), in rounds that
 * alternate the two ways, 16 reads per writev as a busy target batches
 * them: each read copied out of the mapping into a buffer of its own that
 * is then sent, against the read sent from the mapping in place (a lent
 * read); the sending thread's CPU time per read (its waits for the drain
 * left out), the median of ROUNDS rounds of N / ROUNDS reads each, after
 * one pass sending every 4 KiB of the mapping in place.
 *
 *   map_cost [--huge] FILE [SIZE_MiB (4096)] [N (1000000)] [OUT]
 *
 * --huge: the file on huge pages: its page cache made of 2 MiB folios
 * (mapped with MADV_HUGEPAGE and faulted in before the fill writes it) and
 * the mapping advised MADV_HUGEPAGE, so that where the kernel and file
 * system have large folios the reads go through 2 MiB mappings (a line
 * says how much of the mapping was PMD-mapped). The first line, the
 * fill's cost, says what that costs the writes.
 *
 * FILE is created (and left: remove it after). Run on a quiet machine,
 * pinned (taskset -c 0): a benchmark, nothing is asserted.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096u
#define AHEAD 16u
#define BATCH 16u
#define ROUNDS 11

static double clock_ns(clockid_t c)
{
	struct timespec t;

	clock_gettime(c, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static double now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static uint64_t next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* FilePmdMapped + ShmemPmdMapped of this process's mappings of @path, in MiB. */
static unsigned long pmd_mapped_mib(const char *path)
{
	FILE *m = fopen("/proc/self/smaps", "r");
	char line[512];
	unsigned long kb, sum = 0;
	int in = 0;

	if (!m)
		return 0;
	while (fgets(line, sizeof(line), m)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			in = strstr(line, path) != NULL;
		else if (in && (sscanf(line, "FilePmdMapped: %lu kB", &kb) == 1 ||
				sscanf(line, "ShmemPmdMapped: %lu kB", &kb) == 1))
			sum += kb;
	}
	fclose(m);
	return sum / 1024;
}

/* The file's page cache in 2 MiB folios where the kernel can: faulted in before it is written. */
static int prefault_huge(int fd, size_t size)
{
	void *p;

	if (ftruncate(fd, (off_t)size))
		return -1;
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -1;
	(void)madvise(p, size, MADV_HUGEPAGE);
	for (size_t off = 0; off < size; off += PAGE)
		(void)((const volatile uint8_t *)p)[off];
	return munmap(p, size);
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

/* The other end of the connection: read and drop everything, on CPU 1 if there is one. */
static void *drain(void *arg)
{
	static uint8_t sink[1u << 20];
	int fd = *(int *)arg;
	cpu_set_t cpus;

	CPU_ZERO(&cpus);
	CPU_SET(1, &cpus);
	(void)pthread_setaffinity_np(pthread_self(), sizeof(cpus), &cpus);
	while (read(fd, sink, sizeof(sink)) > 0)
		;
	return NULL;
}

/* A loopback TCP connection: the sending end, the other end in *@rx. */
static int tcp_pair(int *rx)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int l = socket(AF_INET, SOCK_STREAM, 0), tx = socket(AF_INET, SOCK_STREAM, 0);

	if (l < 0 || tx < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &len) ||
	    connect(tx, (struct sockaddr *)&a, sizeof(a)))
		return -1;
	*rx = accept(l, NULL, NULL);
	close(l);
	return *rx < 0 ? -1 : tx;
}

/* @n reads at @at sent to @fd BATCH per writev: copied into @bufs first, or from @map. */
static double send_round(int fd, const uint8_t *map, const uint64_t *at, uint64_t n,
			 uint8_t (*bufs)[PAGE], int copy)
{
	struct iovec iov[BATCH];
	double t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);

	for (uint64_t i = 0; i + BATCH <= n; i += BATCH) {
		size_t left = (size_t)BATCH * PAGE;
		struct iovec *v = iov;
		int cnt = BATCH;

		for (uint32_t k = 0; k < BATCH; k++) {
			const uint8_t *src = map + at[i + k] * PAGE;

			if (copy) {
				memcpy(bufs[k], src, PAGE);
				src = bufs[k];
			}
			iov[k] = (struct iovec){ (void *)src, PAGE };
		}
		while (left) {
			ssize_t w = writev(fd, v, cnt);

			if (w < 0)
				return -1;
			left -= (size_t)w;
			while (cnt && (size_t)w >= v->iov_len) {
				w -= (ssize_t)v->iov_len;
				v++;
				cnt--;
			}
			if (cnt) {
				v->iov_base = (uint8_t *)v->iov_base + w;
				v->iov_len -= (size_t)w;
			}
		}
	}
	return (clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / (double)(n / BATCH * BATCH);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The two ways to a socket, alternated over ROUNDS rounds; their medians to @out. */
static int send_cost(FILE *out, const uint8_t *map, uint64_t pages, uint64_t n, uint64_t *x)
{
	static uint8_t bufs[BATCH][PAGE];
	uint64_t per = n / ROUNDS, *at = malloc(per * sizeof(*at));
	double t[2][ROUNDS];
	pthread_t th;
	int rx, tx = tcp_pair(&rx);
	cpu_set_t cpus;

	if (tx < 0 || !at || pthread_create(&th, NULL, drain, &rx))
		return -1;
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	(void)sched_setaffinity(0, sizeof(cpus), &cpus);
	/*
	 * Every 4 KiB sent from the mapping once first: on a PVM guest the
	 * kernel's first copy out of each page of a user mapping faults on its
	 * own, apart from the process's first touch (paid above).
	 */
	for (uint64_t p0 = 0; p0 < pages; p0 += per) {
		uint64_t k = pages - p0 < per ? pages - p0 : per;

		for (uint64_t i = 0; i < k; i++)
			at[i] = p0 + i;
		if (send_round(tx, map, at, k, bufs, 0) < 0)
			return -1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int way = 0; way < 2; way++) {
			for (uint64_t i = 0; i < per; i++)
				at[i] = next(x) % pages;
			t[way][r] = send_round(tx, map, at, per, bufs, way == 0);
			if (t[way][r] < 0)
				return -1;
		}
	}
	close(tx);
	pthread_join(th, NULL);
	close(rx);
	free(at);
	qsort(t[0], ROUNDS, sizeof(double), cmp_double);
	qsort(t[1], ROUNDS, sizeof(double), cmp_double);
	fprintf(out, "copy, then send the copy:      %6.0f ns (rounds %.0f..%.0f)\n",
		t[0][ROUNDS / 2], t[0][0], t[0][ROUNDS - 1]);
	fprintf(out, "send from the mapping:         %6.0f ns (rounds %.0f..%.0f)\n",
		t[1][ROUNDS / 2], t[1][0], t[1][ROUNDS - 1]);
	fprintf(out, "in place / copied:             %6.2f\n", t[1][ROUNDS / 2] / t[0][ROUNDS / 2]);
	return 0;
}

int main(int argc, char **argv)
{
	int huge = argc > 1 && !strcmp(argv[1], "--huge");
	size_t size;
	uint64_t n, x = 88172645463325252ull;
	FILE *out;
	uint64_t pages, *at;
	static uint8_t dst[PAGE];
	const uint8_t *map;
	double t0, fill_ns;
	int fd;

	argc -= huge;
	argv += huge;
	size = (size_t)(argc > 2 ? strtoull(argv[2], NULL, 0) : 4096) << 20;
	n = argc > 3 ? strtoull(argv[3], NULL, 0) : 1000000;
	out = argc > 4 ? fopen(argv[4], "w") : stdout;
	pages = size / PAGE;
	if (argc < 2 || !out || size < PAGE || !n) {
		fprintf(stderr, "usage: map_cost [--huge] FILE [SIZE_MiB] [N] [OUT]\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	t0 = now_ns();
	if (fd < 0 || (huge && prefault_huge(fd, size)) || fill(fd, size)) {
		fprintf(stderr, "map_cost: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	fill_ns = now_ns() - t0;
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	at = malloc(n * sizeof(*at));
	if (map == MAP_FAILED || !at) {
		fprintf(stderr, "map_cost: %s\n", strerror(errno));
		return 2;
	}
	(void)madvise((void *)map, size, MADV_RANDOM); /* as the store maps */
	if (huge)
		(void)madvise((void *)map, size, MADV_HUGEPAGE);
	fprintf(out, "# map_cost%s %s %zu MiB, %llu random 4 KiB reads per line\n",
		huge ? " --huge" : "", argv[1], size >> 20, (unsigned long long)n);
	fprintf(out, "fill (%sfdatasync):  %6.0f ns per 4 KiB\n",
		huge ? "faulted in, pwrite, " : "pwrite, ", fill_ns / (double)pages);
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
	fprintf(out, "PMD-mapped after pass 6:       %6lu MiB\n", pmd_mapped_mib(argv[1]));
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
	if (send_cost(out, map, pages, n, &x)) {
		fprintf(stderr, "map_cost: send: %s\n", strerror(errno));
		return 2;
	}
	munmap((void *)map, size);
	close(fd);
	free(at);
	if (out != stdout)
		fclose(out);
	return 0;
}
