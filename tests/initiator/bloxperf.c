/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxperf: an NVMe/TCP benchmark client on the blox initiator, for bloxd
 * or any other NVMe/TCP target. C controllers (connections to the admin
 * queue, each with Q I/O queues), one thread per I/O queue keeping QD
 * commands outstanding: random or sequential, reads, writes or a mix, any
 * block size, with or without digests, for a time or a count. Prints the
 * IOPS, MiB/s and a latency histogram (P50/P99/P99.9/max), as text or JSON.
 *
 *   bloxperf -a ADDR [-p PORT] -n SUBNQN [options]   (--help for them)
 *
 * Exit 0 when every I/O succeeded, 1 when some failed, 2 on bad usage or
 * when the target could not be brought up.
 */
#include "ini.h"

#include "blox_hist.h"
#include "blox_util.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PERF_HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:0b1e0b1e-7e57-4e57-8e57-b10cbe4cf000"
#define PERF_POLL_MAX 64

enum pattern { PAT_READ, PAT_WRITE, PAT_RW, PAT_IDLE };

struct perf_opts {
	const char *addr, *subnqn, *hostnqn, *json;
	uint16_t port;
	uint32_t nsid, qd, bs, queues, conns, rwmix; /* rwmix: % reads */
	uint32_t kato_ms; /* Connect's KATO; Keep Alive every half of it */
	bool random, hdgst, ddgst, busy_poll;
	enum pattern pat;
	double seconds;
	uint64_t count; /* 0: by time */
	uint64_t range; /* bytes of the namespace used; 0: all */
	uint32_t timeline_ms; /* completions per slice of this length; 0: none */
};

/* The most timeline slices a run keeps per queue (16 bytes each). */
#define PERF_MAX_SLICES 4000000u

/* Slices of a run by time with --timeline-ms: the run and 60 s of draining. */
static uint64_t timeline_slices(const struct perf_opts *o)
{
	return (uint64_t)((o->seconds * 1000 + 60000) / o->timeline_ms) + 1;
}

/* A worker's completions in one timeline slice. */
struct slice {
	uint64_t ios, lat_ns; /* completed in it, and their latencies summed */
};

struct perf_run;

/* One I/O queue, one thread. */
struct worker {
	struct perf_run *run;
	struct ini_queue *q;
	struct ini_req *reqs;
	uint64_t *start_ns;
	uint8_t *bufs;
	uint64_t rng, cursor, first_lba, nr_lbas;
	struct blox_hist hist;
	struct slice *slices; /* --timeline-ms: nr_slices of them */
	uint64_t reads, writes, errors, status_errors;
	int transport_rc;
	pthread_t thread;
};

struct perf_run {
	struct perf_opts o;
	struct ini_ctrl **ctrls;
	struct worker *w;
	uint32_t nr_w;
	uint32_t lbads; /* log2 of the block size of the namespace */
	uint64_t nsze; /* namespace size in blocks */
	uint64_t end_ns; /* by time: issue nothing after */
	atomic_uint_fast64_t issued; /* by count: commands handed out */
	atomic_uint finished; /* workers done */
	uint64_t t0, t1;
	uint32_t nr_slices; /* --timeline-ms: the run and 60 s of draining; the last takes the rest */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* May @w issue one more command? */
static bool may_issue(struct worker *w)
{
	struct perf_run *r = w->run;

	if (r->o.count)
		return atomic_fetch_add(&r->issued, 1) < r->o.count;
	return now_ns() < r->end_ns;
}

static int issue(struct worker *w, uint32_t i)
{
	struct perf_run *r = w->run;
	uint32_t nlb = r->o.bs >> r->lbads;
	uint64_t slots = w->nr_lbas / nlb, slot;
	bool rd;
	struct ini_req *req = &w->reqs[i];
	uint8_t *buf = w->bufs + (size_t)i * r->o.bs;

	if (r->o.random) {
		slot = ini_xorshift(&w->rng) % slots;
	} else {
		slot = w->cursor;
		w->cursor = (w->cursor + 1) % slots;
	}
	switch (r->o.pat) {
	case PAT_READ:
		rd = true;
		break;
	case PAT_WRITE:
		rd = false;
		break;
	default:
		rd = ini_xorshift(&w->rng) % 100 < r->o.rwmix;
	}
	ini_req_rw(req, rd ? nvme_cmd_read : nvme_cmd_write, r->o.nsid,
		   w->first_lba + slot * nlb, nlb, buf, r->o.bs);
	req->ctx = (void *)(uintptr_t)i;
	w->start_ns[i] = now_ns();
	return ini_submit(w->q, req);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint32_t outstanding = 0;
	int rc = 0;

	for (uint32_t i = 0; i < w->run->o.qd && may_issue(w); i++) {
		rc = issue(w, i);
		if (rc)
			goto out;
		outstanding++;
	}
	while (outstanding) {
		struct ini_req *done[PERF_POLL_MAX];
		int n = ini_poll(w->q, done, PERF_POLL_MAX);

		if (n < 0) {
			rc = n;
			break;
		}
		for (int k = 0; k < n; k++) {
			uint32_t i = (uint32_t)(uintptr_t)done[k]->ctx;
			uint64_t t = now_ns();

			outstanding--;
			blox_hist_add(&w->hist, t - w->start_ns[i]);
			if (w->slices) {
				uint64_t j = (t - w->run->t0) / (w->run->o.timeline_ms * 1000000ull);
				struct slice *sl = &w->slices[BLOX_MIN(j, w->run->nr_slices - 1ull)];

				sl->ios++;
				sl->lat_ns += t - w->start_ns[i];
			}
			if (done[k]->sqe.opcode == nvme_cmd_read)
				w->reads++;
			else
				w->writes++;
			if (ini_status(&done[k]->cqe)) {
				w->errors++;
				w->status_errors++;
			}
			if (!may_issue(w))
				continue;
			rc = issue(w, i);
			if (rc)
				goto out;
			outstanding++;
		}
	}
out:
	if (rc) {
		w->transport_rc = rc;
		w->errors += outstanding;
	}
	atomic_fetch_add(&w->run->finished, 1);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: bloxperf -a ADDR -n SUBNQN [options]\n"
		"NVMe/TCP benchmark client (any NVMe/TCP target).\n"
		"  -a, --addr ADDR        target address (IPv4 or IPv6)\n"
		"  -p, --port PORT        target port (4420)\n"
		"  -n, --subnqn NQN       subsystem\n"
		"      --hostnqn NQN      host NQN (a fixed bloxperf one)\n"
		"  -N, --nsid N           namespace (1)\n"
		"  -q, --qd N             commands outstanding per I/O queue (1)\n"
		"  -o, --bs BYTES         I/O size, a multiple of the block size (4096)\n"
		"  -w, --rw PATTERN       randread randwrite randrw read write rw\n"
		"                         (randread); idle: no I/O, only keep-alives\n"
		"  -M, --rwmixread PCT    reads in %% for randrw and rw (50)\n"
		"  -Q, --queues N         I/O queues per connection, a thread each (1)\n"
		"  -C, --connections N    controllers, one admin connection each (1)\n"
		"  -H, --hdgst            header digests\n"
		"  -D, --ddgst            data digests\n"
		"  -t, --time SEC         run for SEC seconds (10)\n"
		"  -c, --count N          run N I/Os in all instead\n"
		"  -r, --range BYTES      use the first BYTES of the namespace (all)\n"
		"  -j, --json FILE        results as JSON to FILE ('-': stdout)\n"
		"  -k, --kato-ms N        keep-alive timeout asked in Connect; a Keep\n"
		"                         Alive every N/2 ms on each admin queue (0: off)\n"
		"      --busy-poll        wait for completions by polling the socket (a\n"
		"                         CPU per queue, as spdk_nvme_perf), not sleeping\n"
		"      --timeline-ms N    with --json and --time: completions per slice of\n"
		"                         N ms, with their latencies summed and the run's\n"
		"                         start on CLOCK_MONOTONIC, to set beside a target's\n"
		"                         own figures over the same time\n"
		"Exit 0: every I/O succeeded; 1: some failed; 2: usage or set-up.\n");
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || end == s || *end || x < min || x > max || *s == '-')
		return -1;
	*v = x;
	return 0;
}

static int parse_pattern(struct perf_opts *o, const char *s)
{
	static const struct {
		const char *name;
		enum pattern pat;
		bool random;
	} pats[] = {
		{ "randread", PAT_READ, true }, { "randwrite", PAT_WRITE, true },
		{ "randrw", PAT_RW, true },     { "read", PAT_READ, false },
		{ "write", PAT_WRITE, false },  { "rw", PAT_RW, false },
		{ "idle", PAT_IDLE, false },
	};

	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		if (!strcmp(s, pats[i].name)) {
			o->pat = pats[i].pat;
			o->random = pats[i].random;
			return 0;
		}
	}
	return -1;
}

static int parse_args(int argc, char **argv, struct perf_opts *o)
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "subnqn", required_argument, NULL, 'n' },
		{ "hostnqn", required_argument, NULL, 'h' + 0x100 },
		{ "nsid", required_argument, NULL, 'N' },
		{ "qd", required_argument, NULL, 'q' },
		{ "bs", required_argument, NULL, 'o' },
		{ "rw", required_argument, NULL, 'w' },
		{ "rwmixread", required_argument, NULL, 'M' },
		{ "queues", required_argument, NULL, 'Q' },
		{ "connections", required_argument, NULL, 'C' },
		{ "hdgst", no_argument, NULL, 'H' },
		{ "ddgst", no_argument, NULL, 'D' },
		{ "time", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'c' },
		{ "range", required_argument, NULL, 'r' },
		{ "json", required_argument, NULL, 'j' },
		{ "kato-ms", required_argument, NULL, 'k' },
		{ "timeline-ms", required_argument, NULL, 'T' },
		{ "busy-poll", no_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	*o = (struct perf_opts){ .addr = NULL, .port = 4420, .hostnqn = PERF_HOSTNQN,
				 .nsid = 1, .qd = 1, .bs = 4096, .queues = 1,
				 .conns = 1, .rwmix = 50, .random = true,
				 .pat = PAT_READ, .seconds = 10 };
	while ((c = getopt_long(argc, argv, "a:p:n:N:q:o:w:M:Q:C:HDt:c:r:j:k:T:Bh", opts,
				NULL)) != -1) {
		const char *bad = NULL;

		switch (c) {
		case 'a':
			o->addr = optarg;
			break;
		case 'n':
			o->subnqn = optarg;
			break;
		case 'h' + 0x100:
			o->hostnqn = optarg;
			break;
		case 'j':
			o->json = optarg;
			break;
		case 'H':
			o->hdgst = true;
			break;
		case 'B':
			o->busy_poll = true;
			break;
		case 'D':
			o->ddgst = true;
			break;
		case 'w':
			if (parse_pattern(o, optarg))
				bad = "--rw";
			break;
		case 't': {
			char *end;

			o->seconds = strtod(optarg, &end);
			if (end == optarg || *end || !(o->seconds > 0 && o->seconds <= 86400))
				bad = "--time";
			break;
		}
		case 'p':
		case 'N':
		case 'q':
		case 'o':
		case 'M':
		case 'Q':
		case 'C':
		case 'c':
		case 'k':
		case 'T':
		case 'r': {
			static const struct {
				int c;
				const char *name;
				uint64_t min, max;
			} lim[] = {
				{ 'p', "--port", 1, 65535 },
				{ 'N', "--nsid", 1, 0xfffffffe },
				{ 'q', "--qd", 1, 1024 },
				{ 'o', "--bs", 512, 1u << 24 },
				{ 'M', "--rwmixread", 0, 100 },
				{ 'Q', "--queues", 1, 64 },
				{ 'C', "--connections", 1, 64 },
				{ 'c', "--count", 1, UINT64_MAX },
				{ 'r', "--range", 1, UINT64_MAX },
				{ 'k', "--kato-ms", 0, 3600000 },
				{ 'T', "--timeline-ms", 1, 60000 },
			};
			size_t i = 0;

			while (lim[i].c != c)
				i++;
			if (parse_u64(optarg, lim[i].min, lim[i].max, &v)) {
				fprintf(stderr, "bloxperf: %s: expected %llu..%llu\n",
					lim[i].name, (unsigned long long)lim[i].min,
					(unsigned long long)lim[i].max);
				return 2;
			}
			switch (c) {
			case 'p': o->port = (uint16_t)v; break;
			case 'N': o->nsid = (uint32_t)v; break;
			case 'q': o->qd = (uint32_t)v; break;
			case 'o': o->bs = (uint32_t)v; break;
			case 'M': o->rwmix = (uint32_t)v; break;
			case 'Q': o->queues = (uint32_t)v; break;
			case 'C': o->conns = (uint32_t)v; break;
			case 'c': o->count = v; break;
			case 'k': o->kato_ms = (uint32_t)v; break;
			case 'T': o->timeline_ms = (uint32_t)v; break;
			default: o->range = v; break;
			}
			break;
		}
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
		if (bad) {
			fprintf(stderr, "bloxperf: %s: bad value '%s'\n", bad, optarg);
			return 2;
		}
	}
	if (o->timeline_ms && (o->count || !o->json)) {
		fprintf(stderr, "bloxperf: --timeline-ms goes with --json and a run by time\n");
		return 2;
	}
	if (o->timeline_ms && timeline_slices(o) > PERF_MAX_SLICES) {
		fprintf(stderr, "bloxperf: --timeline-ms %u over %.0f s (and 60 s to drain) is more "
				"than %u slices: take longer ones\n",
			o->timeline_ms, o->seconds, PERF_MAX_SLICES);
		return 2;
	}
	if (optind < argc || !o->addr || !o->subnqn) {
		fprintf(stderr, "bloxperf: %s\n", optind < argc ? "unexpected argument"
								: "-a ADDR and -n SUBNQN are needed");
		usage(stderr);
		return 2;
	}
	return 0;
}

/* Controllers up, the namespace's geometry learnt. 0 or an exit code. */
static int connect_all(struct perf_run *r)
{
	struct nvme_id_ns *id = aligned_alloc(4096, 4096);
	uint16_t status = 0;
	int rc;

	r->ctrls = calloc(r->o.conns, sizeof(*r->ctrls));
	if (!id || !r->ctrls) {
		free(id);
		return 2;
	}
	for (uint32_t i = 0; i < r->o.conns; i++) {
		struct ini_ctrl_args a;

		ini_ctrl_args_init(&a, r->o.addr, r->o.port, r->o.subnqn);
		a.hostnqn = r->o.hostnqn;
		a.nr_io = r->o.queues;
		a.io_sqsize = (uint16_t)(r->o.qd < 31 ? 31 : r->o.qd);
		a.qopts.hdgst = r->o.hdgst;
		a.qopts.ddgst = r->o.ddgst;
		a.qopts.depth = r->o.qd;
		a.qopts.accept_success = true; /* SPDK's target sends it */
		a.qopts.busy_poll = r->o.busy_poll;
		a.kato_ms = r->o.kato_ms;
		rc = ini_ctrl_connect(&a, &r->ctrls[i], &status);
		if (rc) {
			fprintf(stderr, "bloxperf: connect %u to %s:%u %s: %s (status 0x%x)\n",
				i, r->o.addr, r->o.port, r->o.subnqn, strerror(-rc), status);
			free(id);
			return 2;
		}
	}
	rc = ini_identify(r->ctrls[0]->admin, NVME_IDENTIFY_CNS_NS, r->o.nsid, 0, id);
	if (rc || !id->nsze) {
		fprintf(stderr, "bloxperf: identify namespace %u: %s\n", r->o.nsid,
			rc < 0 ? strerror(-rc) : rc ? "failed" : "not there");
		free(id);
		return 2;
	}
	r->nsze = id->nsze;
	r->lbads = id->lbaf[id->flbas & 0xf].ds;
	free(id);
	if (r->o.bs % (1u << r->lbads)) {
		fprintf(stderr, "bloxperf: --bs %u is not a multiple of the %u-byte blocks\n",
			r->o.bs, 1u << r->lbads);
		return 2;
	}
	if (r->o.range && r->o.range >> r->lbads < r->nsze)
		r->nsze = r->o.range >> r->lbads;
	if (r->nsze < (uint64_t)(r->o.bs >> r->lbads) * r->o.queues * r->o.conns) {
		fprintf(stderr, "bloxperf: the namespace (range) is too small\n");
		return 2;
	}
	return 0;
}

static int workers_setup(struct perf_run *r)
{
	uint64_t share;

	r->nr_w = r->o.conns * r->o.queues;
	if (r->o.timeline_ms)
		r->nr_slices = (uint32_t)timeline_slices(&r->o);
	r->w = calloc(r->nr_w, sizeof(*r->w));
	if (!r->w)
		return -ENOMEM;
	share = r->nsze / r->nr_w;
	for (uint32_t i = 0; i < r->nr_w; i++) {
		struct worker *w = &r->w[i];

		w->run = r;
		w->q = r->ctrls[i / r->o.queues]->io[i % r->o.queues];
		w->reqs = calloc(r->o.qd, sizeof(*w->reqs));
		w->start_ns = calloc(r->o.qd, sizeof(*w->start_ns));
		w->bufs = aligned_alloc(4096, ((size_t)r->o.qd * r->o.bs + 4095) / 4096 * 4096);
		if (!w->reqs || !w->start_ns || !w->bufs)
			return -ENOMEM;
		memset(w->bufs, 0xa5, (size_t)r->o.qd * r->o.bs);
		w->rng = 0x9e3779b97f4a7c15ull * (i + 1);
		blox_hist_reset(&w->hist);
		if (r->nr_slices && !(w->slices = calloc(r->nr_slices, sizeof(*w->slices))))
			return -ENOMEM;
		/* Random: the whole range; sequential: each its own share. */
		w->first_lba = r->o.random ? 0 : share * i;
		w->nr_lbas = r->o.random ? r->nsze : share;
	}
	return 0;
}

/*
 * ,"timeline": {"ms": N, "t0_ns": start (CLOCK_MONOTONIC), "ios": [...],
 * "lat_us": [...]}: per slice up to the last with a completion, what
 * completed in it and their latencies summed.
 */
static void timeline_json(const struct perf_run *r, FILE *f)
{
	uint32_t last = 0;

	if (!r->nr_slices)
		return;
	for (uint32_t k = 0; k < r->nr_slices; k++)
		for (uint32_t i = 0; i < r->nr_w; i++)
			if (r->w[i].slices[k].ios)
				last = k + 1;
	fprintf(f, ",\n  \"timeline\": {\"ms\": %u, \"t0_ns\": %llu, \"ios\": [", r->o.timeline_ms,
		(unsigned long long)r->t0);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			fprintf(f, "], \"lat_us\": [");
		for (uint32_t k = 0; k < last; k++) {
			uint64_t v = 0;

			for (uint32_t i = 0; i < r->nr_w; i++)
				v += pass ? r->w[i].slices[k].lat_ns : r->w[i].slices[k].ios;
			if (pass)
				fprintf(f, "%s%.1f", k ? ", " : "", (double)v / 1e3);
			else
				fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)v);
		}
	}
	fprintf(f, "]}");
}

static void report(const struct perf_run *r, FILE *f, bool json)
{
	struct blox_hist *h = calloc(1, sizeof(*h));
	uint64_t reads = 0, writes = 0, errors = 0, ios;
	double secs = (double)(r->t1 - r->t0) / 1e9;
	static const char *const pats[] = { "read", "write", "rw", "idle" };

	if (!h)
		return;
	blox_hist_reset(h);
	for (uint32_t i = 0; i < r->nr_w; i++) {
		blox_hist_merge(h, &r->w[i].hist);
		reads += r->w[i].reads;
		writes += r->w[i].writes;
		errors += r->w[i].errors;
	}
	ios = reads + writes;
	if (json) {
		fprintf(f,
			"{\n  \"target\": {\"addr\": \"%s\", \"port\": %u, \"subnqn\": \"%s\","
			" \"nsid\": %u},\n"
			"  \"config\": {\"qd\": %u, \"bs\": %u, \"pattern\": \"%s%s\","
			" \"rwmixread\": %u, \"queues\": %u, \"connections\": %u,"
			" \"hdgst\": %s, \"ddgst\": %s, \"time_s\": %.3f, \"count\": %llu},\n"
			"  \"seconds\": %.6f,\n  \"ios\": %llu,\n  \"reads\": %llu,\n"
			"  \"writes\": %llu,\n  \"bytes_read\": %llu,\n  \"bytes_written\": %llu,\n"
			"  \"errors\": %llu,\n  \"iops\": %.1f,\n  \"mib_s\": %.2f,\n"
			"  \"latency_us\": {\"mean\": %.2f, \"min\": %.2f, \"p50\": %.2f,"
			" \"p99\": %.2f, \"p99_9\": %.2f, \"max\": %.2f}",
			r->o.addr, r->o.port, r->o.subnqn, r->o.nsid, r->o.qd, r->o.bs,
			r->o.random ? "rand" : "", pats[r->o.pat], r->o.rwmix, r->o.queues,
			r->o.conns, r->o.hdgst ? "true" : "false",
			r->o.ddgst ? "true" : "false", r->o.count ? 0.0 : r->o.seconds,
			(unsigned long long)r->o.count, secs, (unsigned long long)ios,
			(unsigned long long)reads, (unsigned long long)writes,
			(unsigned long long)reads * r->o.bs, (unsigned long long)writes * r->o.bs,
			(unsigned long long)errors, ios / secs,
			(double)ios * r->o.bs / secs / 1048576.0, blox_hist_mean(h) / 1e3,
			h->count ? h->min / 1e3 : 0.0, blox_hist_quantile(h, 0.5) / 1e3,
			blox_hist_quantile(h, 0.99) / 1e3, blox_hist_quantile(h, 0.999) / 1e3,
			h->max / 1e3);
		timeline_json(r, f);
		fprintf(f, "\n}\n");
	} else {
		fprintf(f,
			"%s%s bs %u qd %u x %u queues x %u connections%s%s: %.2f s\n"
			"  ios %llu (reads %llu, writes %llu), errors %llu\n"
			"  %.1f IOPS, %.2f MiB/s\n"
			"  latency us: mean %.2f p50 %.2f p99 %.2f p99.9 %.2f max %.2f\n",
			r->o.random ? "rand" : "", pats[r->o.pat], r->o.bs, r->o.qd,
			r->o.queues, r->o.conns, r->o.hdgst ? " hdgst" : "",
			r->o.ddgst ? " ddgst" : "", secs, (unsigned long long)ios,
			(unsigned long long)reads, (unsigned long long)writes,
			(unsigned long long)errors, ios / secs,
			(double)ios * r->o.bs / secs / 1048576.0, blox_hist_mean(h) / 1e3,
			blox_hist_quantile(h, 0.5) / 1e3, blox_hist_quantile(h, 0.99) / 1e3,
			blox_hist_quantile(h, 0.999) / 1e3, h->max / 1e3);
	}
	free(h);
}

static void teardown(struct perf_run *r)
{
	for (uint32_t i = 0; r->w && i < r->nr_w; i++) {
		free(r->w[i].reqs);
		free(r->w[i].start_ns);
		free(r->w[i].bufs);
		free(r->w[i].slices);
	}
	free(r->w);
	for (uint32_t i = 0; r->ctrls && i < r->o.conns; i++) {
		if (!r->ctrls[i])
			continue;
		ini_ctrl_shutdown(r->ctrls[i]);
		ini_ctrl_destroy(r->ctrls[i]);
	}
	free(r->ctrls);
}

/*
 * The main thread's part while the workers run: a Keep Alive on every
 * admin queue each kato/2 ms until every worker is done (-w idle: no
 * workers, only this for the run's time). 0 or -errno.
 */
static int keep_alive(struct perf_run *r)
{
	uint64_t every = (uint64_t)r->o.kato_ms * 500000ull, next = now_ns() + every;

	if (!every && r->o.pat != PAT_IDLE)
		return 0;
	while (r->o.pat == PAT_IDLE ? now_ns() < r->end_ns
				    : atomic_load(&r->finished) < r->nr_w) {
		struct timespec ts = { 0, 10000000 }; /* 10 ms */

		if (every && now_ns() >= next) {
			for (uint32_t i = 0; i < r->o.conns; i++) {
				int rc = ini_keep_alive(r->ctrls[i]->admin);

				if (rc) {
					fprintf(stderr, "bloxperf: keep alive: %s\n",
						rc < 0 ? strerror(-rc) : "failed");
					return rc < 0 ? rc : -EIO;
				}
			}
			next += every;
		}
		nanosleep(&ts, NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct perf_run r = { 0 };
	uint64_t errors = 0;
	int rc = parse_args(argc, argv, &r.o);

	if (rc)
		return rc;
	rc = connect_all(&r);
	if (!rc && workers_setup(&r)) {
		fprintf(stderr, "bloxperf: out of memory\n");
		rc = 2;
	}
	if (rc) {
		teardown(&r);
		return rc;
	}
	r.t0 = now_ns();
	r.end_ns = r.t0 + (uint64_t)(r.o.seconds * 1e9);
	for (uint32_t i = 0; i < r.nr_w && r.o.pat != PAT_IDLE; i++)
		if (pthread_create(&r.w[i].thread, NULL, worker_main, &r.w[i]))
			worker_main(&r.w[i]); /* no thread: run it here */
	if (keep_alive(&r))
		rc = 1;
	for (uint32_t i = 0; i < r.nr_w; i++)
		if (r.w[i].thread)
			pthread_join(r.w[i].thread, NULL);
	r.t1 = now_ns();
	for (uint32_t i = 0; i < r.nr_w; i++) {
		errors += r.w[i].errors;
		if (r.w[i].transport_rc)
			fprintf(stderr, "bloxperf: queue %u: %s\n", i,
				strerror(-r.w[i].transport_rc));
	}
	if (r.o.json) {
		FILE *f = strcmp(r.o.json, "-") ? fopen(r.o.json, "w") : stdout;

		if (!f) {
			fprintf(stderr, "bloxperf: %s: %s\n", r.o.json, strerror(errno));
			rc = 2;
		} else {
			report(&r, f, true);
			if (f != stdout && fclose(f))
				rc = 2;
		}
	}
	if (!r.o.json || strcmp(r.o.json, "-"))
		report(&r, stdout, false);
	teardown(&r);
	return rc ? rc : errors ? 1 : 0;
}
