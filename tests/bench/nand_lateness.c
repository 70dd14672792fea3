/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lateness of real-time NAND completions in the daemon's driver
 * (daemon/nand_rt.c on a libevent loop): how far after its modeled time
 * each completion is delivered, at several loads, with the CPU time the
 * loop used, plus an idle period to show the loop does not spin when
 * nothing is due. Each load runs twice: with the timer's window fixed at
 * NAND_RT_SPIN_NS ("fixed") and following the wake-ups as bloxd runs it
 * ("adaptive"); the timer's own wake-ups (how late after their set time:
 * the host's wake-up latency) and the window at the end are beside them.
 * Writes a table to the file given (default docs/results/nand_lateness.txt).
 *
 *   nand_lateness [out-file] [seconds-per-load]
 */
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "nand_rt.h"

struct load {
	struct nand_rt *rt;
	struct nand_dev *dev;
	struct nand_op *ops;
	uint32_t qd, dies;
	uint64_t seed, done;
	bool stop;
};

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * The host's own floor: a loop that only reads the clock for @secs, and
 * the gaps between two reads (interrupts, the tick, the hypervisor taking
 * the vCPU). A completion due inside a gap is late by what is left of it,
 * whatever the driver does: the lateness percentiles below cannot beat
 * the share of time these take.
 */
static void host_gaps(FILE *out, double secs)
{
	uint64_t t0 = mono_ns(), prev = t0, lost = 0, end = t0 + (uint64_t)(secs * 1e9);
	uint64_t n10 = 0, n20 = 0, n50 = 0, max = 0;

	for (uint64_t now = t0; now < end; prev = now) {
		uint64_t d;

		now = mono_ns();
		d = now - prev;
		if (d > 5000)
			lost += d;
		n10 += d > 10000;
		n20 += d > 20000;
		n50 += d > 50000;
		if (d > max)
			max = d;
	}
	fprintf(out,
		"# the host alone, a clock-reading loop for %.1f s on this CPU: gaps > 10 us %.0f/s,"
		" > 20 us %.0f/s, > 50 us %.0f/s, max %lu ns; %.2f%% of the time in gaps > 5 us\n",
		secs, (double)n10 / secs, (double)n20 / secs, (double)n50 / secs,
		(unsigned long)max, 100.0 * (double)lost / (secs * 1e9));
}

static void submit_one(struct load *l, struct nand_op *op);

static void op_done(struct nand_op *op)
{
	struct load *l = op->cb_arg;

	l->done++;
	if (!l->stop)
		submit_one(l, op);
}

static void submit_one(struct load *l, struct nand_op *op)
{
	const struct nand_geometry *g = &nand_dev_config(l->dev)->geo;
	uint32_t die = (uint32_t)(rnd(&l->seed) % l->dies);

	memset(op, 0, sizeof(*op));
	op->kind = NAND_OP_READ;
	op->prio = NAND_PRIO_HOST_READ;
	op->addr.ch = die / g->dies_per_channel;
	op->addr.die = die % g->dies_per_channel;
	op->addr.block = (uint32_t)(rnd(&l->seed) % g->blocks_per_plane);
	op->addr.page = (uint32_t)(rnd(&l->seed) % g->pages_per_block);
	op->nplanes = 1;
	op->xfer_bytes = 4096;
	op->timing_only = true;
	op->cb = op_done;
	op->cb_arg = l;
	nand_rt_submit(l->rt, op);
}

static void stop_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopexit(arg, NULL);
}

static void run_for(struct event_base *base, double secs)
{
	struct timeval tv = { (time_t)secs, (suseconds_t)((secs - (time_t)secs) * 1e6) };
	struct event *ev = evtimer_new(base, stop_cb, base);

	evtimer_add(ev, &tv);
	event_base_dispatch(base);
	event_free(ev);
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "docs/results/nand_lateness.txt";
	double secs = argc > 2 ? atof(argv[2]) : 3.0;
	static const uint32_t qds[] = { 1, 4, 16, 64 };
	struct event_config *ec = event_config_new();
	struct event_base *base;
	struct blox_clock clk;
	FILE *out = fopen(path, "w");
	double c0, c1;

	if (!out) {
		perror(path);
		return 1;
	}
	event_config_set_flag(ec, EVENT_BASE_FLAG_PRECISE_TIMER);
	base = event_base_new_with_config(ec);
	event_config_free(ec);
	blox_clock_init_real(&clk);
	fprintf(out, "# nand_lateness: real-time NAND completions on the daemon's driver\n"
		     "# 4 KiB random reads, 8 ch x 4 dies TLC defaults, spin window %llu ns,\n"
		     "# %.1f s per load; lateness = delivered - modeled time\n",
		(unsigned long long)NAND_RT_SPIN_NS, secs);
	host_gaps(out, secs);
	fprintf(out, "%-6s %-8s %10s %10s %10s %10s %10s %8s %12s %10s\n", "qd", "window",
		"ops/s", "p50_ns", "p99_ns", "p999_ns", "max_ns", "cpu_%", "wake_p99_ns",
		"window_ns");
	for (size_t i = 0; i < 2 * sizeof(qds) / sizeof(qds[0]); i++) {
		struct nand_config cfg;
		struct load l = { .qd = qds[i / 2], .seed = 0x1234 + i / 2 };
		const struct nand_stats *st;
		bool fixed = i % 2 == 0;

		nand_config_default(&cfg);
		nand_dev_create(&cfg, NULL, &l.dev);
		nand_rt_create(base, &clk, l.dev, NAND_RT_SPIN_NS, &l.rt);
		if (fixed)
			nand_rt_fix_window(l.rt);
		l.dies = nand_dies(&cfg.geo);
		l.ops = calloc(l.qd, sizeof(*l.ops));
		for (uint32_t k = 0; k < l.qd; k++)
			submit_one(&l, &l.ops[k]);
		c0 = cpu_s();
		run_for(base, secs);
		c1 = cpu_s();
		l.stop = true;
		while (nand_inflight(l.dev))
			nand_advance(l.dev, nand_next_event(l.dev));
		st = nand_dev_stats(l.dev);
		fprintf(out, "%-6u %-8s %10.0f %10lu %10lu %10lu %10lu %8.1f %12lu %10lu\n", l.qd,
			fixed ? "fixed" : "adaptive", (double)l.done / secs,
			(unsigned long)blox_hist_quantile(&st->lateness, 0.5),
			(unsigned long)blox_hist_quantile(&st->lateness, 0.99),
			(unsigned long)blox_hist_quantile(&st->lateness, 0.999),
			(unsigned long)st->lateness.max, 100.0 * (c1 - c0) / secs,
			(unsigned long)blox_hist_quantile(&st->rt.wakeup_late, 0.99),
			(unsigned long)st->rt.window_ns);
		nand_rt_destroy(l.rt);
		nand_dev_destroy(l.dev);
		free(l.ops);
	}
	/* Idle: a device with nothing queued must not cost CPU. */
	{
		struct nand_config cfg;
		struct nand_dev *dev;
		struct nand_rt *rt;

		nand_config_default(&cfg);
		nand_dev_create(&cfg, NULL, &dev);
		nand_rt_create(base, &clk, dev, NAND_RT_SPIN_NS, &rt);
		c0 = cpu_s();
		run_for(base, secs);
		c1 = cpu_s();
		fprintf(out, "idle   %-8s %10s %10s %10s %10s %10s %8.1f\n", "adaptive", "-", "-",
			"-", "-", "-", 100.0 * (c1 - c0) / secs);
		nand_rt_destroy(rt);
		nand_dev_destroy(dev);
	}
	fclose(out);
	event_base_free(base);
	return 0;
}
