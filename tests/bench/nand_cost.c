/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nand_cost: CPU cost of the NAND timing engine per emulated op. A closed
 * loop at QD 256 over the default geometry drives 5M timing-only ops (70%
 * 4 KiB reads, 25% page programs, 5% erases, random addresses, default
 * suspension policy) in virtual time; CPU time is read with
 * CLOCK_PROCESS_CPUTIME_ID around the whole run. Five runs, median kept.
 *
 *   nand_cost [out-file] [ops]   (default docs/results/nand_cost.txt, 5000000)
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include "nand.h"

#define QD 256u
#define RUNS 5

struct driver {
	struct nand_dev *dev;
	struct nand_geometry geo;
	uint64_t rng;
	uint64_t left; /* submissions still to make */
	uint64_t done;
	uint64_t kinds[NAND_OP_KINDS];
	uint64_t last_t;
};

struct result {
	double cpu_s, ns_per_op, ops_per_s;
	uint64_t ops, virt_ns, suspends, kinds[NAND_OP_KINDS];
};

static uint64_t rnd(struct driver *d)
{
	d->rng ^= d->rng >> 12;
	d->rng ^= d->rng << 25;
	d->rng ^= d->rng >> 27;
	return d->rng * 2685821657736338717ull;
}

static uint32_t rnd_below(struct driver *d, uint32_t n)
{
	return (uint32_t)(((rnd(d) >> 32) * n) >> 32);
}

static void op_cb(struct nand_op *op);

static int issue(struct driver *d, struct nand_op *op, uint64_t now)
{
	uint32_t r = rnd_below(d, 100), die = rnd_below(d, nand_dies(&d->geo));

	*op = (struct nand_op){ .timing_only = true, .cb = op_cb, .cb_arg = d };
	if (r < 70) {
		op->kind = NAND_OP_READ;
		op->prio = NAND_PRIO_HOST_READ;
		op->xfer_bytes = 4096;
	} else if (r < 95) {
		op->kind = NAND_OP_PROGRAM;
		op->prio = NAND_PRIO_HOST_WRITE;
	} else {
		op->kind = NAND_OP_ERASE;
		op->prio = NAND_PRIO_ERASE;
	}
	op->addr.ch = die / d->geo.dies_per_channel;
	op->addr.die = die % d->geo.dies_per_channel;
	op->addr.plane = rnd_below(d, d->geo.planes_per_die);
	op->addr.block = rnd_below(d, d->geo.blocks_per_plane);
	op->addr.page = rnd_below(d, d->geo.pages_per_block);
	d->kinds[op->kind]++;
	d->left--;
	return nand_submit(d->dev, op, now);
}

static void op_cb(struct nand_op *op)
{
	struct driver *d = op->cb_arg;

	d->done++;
	d->last_t = op->done_ns;
	if (d->left && issue(d, op, op->done_ns)) {
		fprintf(stderr, "nand_cost: submit failed\n");
		exit(1);
	}
}

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int run(uint64_t nops, uint64_t seed, struct result *res)
{
	struct nand_config cfg;
	struct driver d = { 0 };
	struct nand_op *ops = calloc(QD, sizeof(*ops));
	const struct nand_stats *st;
	double t0, t1;
	uint64_t t;
	int rc;

	if (!ops)
		return -ENOMEM;
	nand_config_default(&cfg);
	d.geo = cfg.geo;
	d.rng = seed;
	d.left = nops;
	rc = nand_dev_create(&cfg, NULL, &d.dev);
	if (rc)
		goto out;
	t0 = cpu_now();
	for (uint32_t i = 0; i < QD && !rc; i++)
		rc = issue(&d, &ops[i], 0);
	while (!rc && (t = nand_next_event(d.dev)) != UINT64_MAX)
		nand_advance(d.dev, t);
	t1 = cpu_now();
	if (!rc && d.done != nops)
		rc = -EIO;
	st = nand_dev_stats(d.dev);
	res->cpu_s = t1 - t0;
	res->ops = d.done;
	res->ns_per_op = res->cpu_s * 1e9 / (double)d.done;
	res->ops_per_s = (double)d.done / res->cpu_s;
	res->virt_ns = d.last_t;
	res->suspends = st->suspend.suspends[NAND_OP_PROGRAM] +
			st->suspend.suspends[NAND_OP_ERASE];
	memcpy(res->kinds, d.kinds, sizeof(d.kinds));
	nand_dev_destroy(d.dev);
out:
	free(ops);
	return rc;
}

static int cmp_res(const void *a, const void *b)
{
	double x = ((const struct result *)a)->ns_per_op;
	double y = ((const struct result *)b)->ns_per_op;

	return x < y ? -1 : x > y;
}

static void mkdir_for(const char *path)
{
	char dir[512];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash)
		return;
	*slash = '\0';
	mkdir(dir, 0755);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "docs/results/nand_cost.txt";
	uint64_t nops = argc > 2 ? strtoull(argv[2], NULL, 0) : 5000000;
	struct result r[RUNS], sorted[RUNS];
	struct utsname un;
	FILE *f;
	char cpu[256] = "unknown";
	FILE *ci = fopen("/proc/cpuinfo", "r");

	if (ci) {
		char line[200];

		while (fgets(line, sizeof(line), ci))
			if (!strncmp(line, "model name", 10)) {
				char *c = strchr(line, ':');

				snprintf(cpu, sizeof(cpu), "%s", c ? c + 2 : line);
				cpu[strcspn(cpu, "\n")] = '\0';
				break;
			}
		fclose(ci);
	}
	uname(&un);
	for (int i = 0; i < RUNS; i++) {
		int rc = run(nops, 0x9e3779b97f4a7c15ull + (uint64_t)i, &r[i]);

		if (rc) {
			fprintf(stderr, "nand_cost: run %d: %s\n", i, strerror(-rc));
			return 1;
		}
		fprintf(stderr, "run %d: %.1f ns/op\n", i, r[i].ns_per_op);
	}
	memcpy(sorted, r, sizeof(r));
	qsort(sorted, RUNS, sizeof(sorted[0]), cmp_res);
	mkdir_for(path);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "nand_cost: %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(f, "# nand_cost: CPU per emulated op of the blox NAND engine, virtual time\n");
	fprintf(f, "# machine: %s, %s %s, one core (single-threaded)\n", cpu, un.sysname,
		un.release);
	fprintf(f, "# workload: closed loop, QD %u, default geometry (8 ch x 4 dies x 2 "
		   "planes), %llu timing-only ops per run:\n",
		QD, (unsigned long long)nops);
	fprintf(f, "#   70%% 4 KiB reads, 25%% programs (16 KiB), 5%% erases, random "
		   "addresses, default suspension policy\n");
	fprintf(f, "# CPU: CLOCK_PROCESS_CPUTIME_ID around submit+advance loop; median "
		   "of %d runs\n", RUNS);
	fprintf(f, "%4s %10s %10s %12s %10s %10s %10s %10s %10s\n", "run", "cpu_s",
		"ns/op", "Mops/s", "virt_s", "reads", "programs", "erases", "suspends");
	for (int i = 0; i < RUNS; i++)
		fprintf(f, "%4d %10.3f %10.1f %12.3f %10.3f %10llu %10llu %10llu %10llu\n", i,
			r[i].cpu_s, r[i].ns_per_op, r[i].ops_per_s / 1e6,
			(double)r[i].virt_ns / 1e9,
			(unsigned long long)r[i].kinds[NAND_OP_READ],
			(unsigned long long)r[i].kinds[NAND_OP_PROGRAM],
			(unsigned long long)r[i].kinds[NAND_OP_ERASE],
			(unsigned long long)r[i].suspends);
	fprintf(f, "median: %.1f ns/op, %.3f M ops/s of engine throughput "
		   "(%.0fx faster than the emulated device runs in real time)\n",
		sorted[RUNS / 2].ns_per_op, sorted[RUNS / 2].ops_per_s / 1e6,
		(double)sorted[RUNS / 2].virt_ns / 1e9 / sorted[RUNS / 2].cpu_s);
	fclose(f);
	printf("median %.1f ns/op, %.3f M ops/s\n", sorted[RUNS / 2].ns_per_op,
	       sorted[RUNS / 2].ops_per_s / 1e6);
	return 0;
}
