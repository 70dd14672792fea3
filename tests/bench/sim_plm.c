/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment "plm" (qos bench 5): predictable latency windows in
 * virtual time. One FTL instance (ftl/) over a whole NAND device (nand/),
 * the daemon's code, driven event to event:
 *
 *   1. precondition: the capacity written sequentially (128 KiB writes,
 *      QD 32), then --precond-x times the capacity in uniform random 4 KiB
 *      writes (QD 32), so the device is full and GC works in steady state;
 *   2. per point, from a copy-on-write snapshot of that device (fork()):
 *      open-loop uniform random 4 KiB writes (--w-kiops, Poisson arrivals:
 *      the load that keeps GC busy) and reads (--r-kiops) at once, for
 *      --warmup-s, then --seconds measured. Two schedules:
 *        off          predictable latency disabled (the baseline);
 *        alternating  enabled: NDWIN for --ndwin-ms, then the host asks
 *                     for a DTWIN (if the FTL answers -EAGAIN, the NDWIN
 *                     minimum has not passed: asked again at the time it
 *                     gives), DTWIN for --dtwin-ms (unless its budget ends
 *                     it first: the FTL's default budget), then NDWIN, ...
 *      each with the NAND's suspension policy (--suspend): "default" (a
 *      waiting host read suspends a program or erase not 90% done) or
 *      "never".
 * A read is counted in the window it was submitted in. Every read is
 * checked against what was written (a header of magic, LBA and version in
 * each 4 KiB unit); reads skip LBAs with a write in flight, a write an LBA
 * with one in flight.
 *
 * The results file holds the command, the machine, the device and its GC
 * levels, the FTL's predictable-latency figures, and per point: read and
 * write latency (mean, P50, P99, P99.9, max) by window, the time spent in
 * each, the GC victims erased in each, the windows begun and how many
 * ended by themselves, host throughput and write amplification.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define PL_MAGIC 0x504c4d31u /* "PLM1" */
#define PL_QD 32u
#define PL_OPEN 8192u /* open-loop requests in flight at most */
#define PL_WINS 3 /* off, DTWIN, NDWIN */

enum { PL_W_OFF, PL_W_DT, PL_W_ND };
static const char *const pl_win_name[PL_WINS] = { "off", "DTWIN", "NDWIN" };

struct pl_opts {
	uint32_t channels, dies, planes, blocks, ppb, page_kib;
	uint32_t op_permille;
	double precond_x, r_kiops, w_kiops, seconds, warmup_s, dtwin_ms, ndwin_ms;
	int suspend; /* bit 0: default, bit 1: never */
	int sched; /* bit 0: off, bit 1: alternating */
	uint64_t seed;
	const char *out;
	char cmdline[1024];
};

struct pl_dev;

struct pl_req {
	struct ftl_io io;
	struct pl_dev *d;
	uint8_t *buf;
	uint64_t t_sub;
	uint32_t lba, nr, ver;
	int win; /* PL_W_* at submission */
	bool measured; /* submitted inside the measured time */
	bool closed; /* a precondition request */
	struct pl_req *next;
};

/* What one point measured (sent from the child to the parent). */
struct pl_point {
	int susp; /* 0 default, 1 never */
	bool alternating;
	struct blox_hist rlat[PL_WINS], wlat[PL_WINS];
	double secs[PL_WINS]; /* measured time in each window */
	uint64_t gc_runs[PL_WINS];
	uint64_t reads, writes, bad, io_errors, dropped;
	uint64_t dtwins, exceeded, excursions, held; /* windows begun; ended by themselves; asks held */
	uint64_t host_units, flash_units, erases, suspends;
	double waf;
};

struct pl_dev {
	const struct pl_opts *o;
	struct nand_config nc;
	struct nand_suspend_policy dflt; /* the default policy the wrapper asks */
	struct nand_suspend_default_cfg dcfg; /* its settings (it keeps a pointer) */
	bool susp_on; /* the wrapper suspends as dflt says (else never) */
	struct nand_store *store;
	struct nand_dev *dev;
	struct ftl_vdrive vd;
	struct ftl_config fc;
	struct ftl_resources res;
	struct ftl *f;
	struct ftl_layout lay;
	struct ftl_gc_info gci;
	uint32_t cap;
	uint32_t *shadow; /* version per LBA, 0: never written */
	uint8_t *wbusy; /* a write to this LBA is in flight */
	uint32_t next_ver;
	uint64_t rng;
	struct pl_req *closed_free, *open_free;
	struct pl_req *reqs;
	uint64_t inflight, closed_inflight;
	/* The window the host is in now (PL_W_*), and the point being measured. */
	int win;
	bool measuring;
	struct pl_point *pt;
	uint64_t bad, io_errors;
};

static uint32_t below(struct pl_dev *d, uint32_t n)
{
	return (uint32_t)(sim_rnd(&d->rng) % n);
}

/* An exponential inter-arrival time for @per_s arrivals a second, in ns. */
static uint64_t exp_ns(struct pl_dev *d, double per_s)
{
	double u = ((double)(sim_rnd(&d->rng) >> 11) + 0.5) / 9007199254740992.0;

	return (uint64_t)(-log(u) / per_s * 1e9) + 1;
}

static uint64_t now(const struct pl_dev *d)
{
	return d->vd.clock.virt_ns;
}

/* The suspension wrapper: the default policy, or never (precondition, "never"). */
static bool susp_cb(void *ctx, const struct nand_suspend_query *q)
{
	struct pl_dev *d = ctx;

	return d->susp_on && d->dflt.should_suspend(d->dflt.ctx, q);
}

/* ---- requests ---- */

static void unit_put(uint8_t *u, uint32_t lba, uint32_t ver)
{
	uint32_t h[3] = { PL_MAGIC, lba, ver };

	memcpy(u, h, sizeof(h));
}

static void req_done(struct ftl_io *io)
{
	struct pl_req *r = io->cb_arg;
	struct pl_dev *d = r->d;
	uint64_t lat = now(d) - r->t_sub;

	if (io->status)
		d->io_errors++;
	if (io->op == FTL_IO_READ && !io->status) {
		for (uint32_t u = 0; u < r->nr; u++) {
			uint32_t h[3];

			memcpy(h, r->buf + (size_t)u * FTL_UNIT, sizeof(h));
			if (r->ver ? h[0] != PL_MAGIC || h[1] != r->lba + u || h[2] != r->ver
				   : h[0] == PL_MAGIC)
				d->bad++;
		}
	}
	if (io->op == FTL_IO_WRITE)
		for (uint32_t u = 0; u < r->nr; u++)
			d->wbusy[r->lba + u] = 0;
	if (r->measured && d->pt) {
		if (io->op == FTL_IO_READ) {
			blox_hist_add(&d->pt->rlat[r->win], lat);
			d->pt->reads++;
		} else {
			blox_hist_add(&d->pt->wlat[r->win], lat);
			d->pt->writes++;
		}
	}
	d->inflight--;
	if (r->closed) {
		d->closed_inflight--;
		r->next = d->closed_free;
		d->closed_free = r;
	} else {
		r->next = d->open_free;
		d->open_free = r;
	}
}

static void submit(struct pl_dev *d, struct pl_req *r, enum ftl_io_op op, uint32_t lba, uint32_t nr)
{
	int rc;

	r->io = (struct ftl_io){ .op = op, .lba = lba, .nr = nr, .buf = r->buf, .cb = req_done,
				  .cb_arg = r };
	r->lba = lba;
	r->nr = nr;
	r->t_sub = now(d);
	r->win = d->win;
	r->measured = d->measuring;
	if (op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < nr; u++) {
			uint32_t v = ++d->next_ver;

			d->shadow[lba + u] = v;
			d->wbusy[lba + u] = 1;
			unit_put(r->buf + (size_t)u * FTL_UNIT, lba + u, v);
		}
	} else {
		r->ver = d->shadow[lba];
	}
	d->inflight++;
	rc = ftl_submit(d->f, &r->io);
	if (rc)
		sim_die("ftl_submit: %d", rc);
}

/* One open-loop 4 KiB read or write at a uniform random LBA; false: none free. */
static bool open_io(struct pl_dev *d, bool write)
{
	struct pl_req *r = d->open_free;
	uint32_t lba;
	int tries = 0;

	if (!r) {
		if (d->pt && d->measuring)
			d->pt->dropped++;
		return false;
	}
	do
		lba = below(d, d->cap);
	while (d->wbusy[lba] && ++tries < 64);
	if (d->wbusy[lba])
		return false;
	d->open_free = r->next;
	submit(d, r, write ? FTL_IO_WRITE : FTL_IO_READ, lba, 1);
	return true;
}

/* ---- the driver ---- */

/* One step: ftl_process() if kicked, else the next NAND event up to @until. */
static bool step(struct pl_dev *d, uint64_t until)
{
	uint64_t next;

	if (d->vd.kicked) {
		d->vd.kicked = false;
		ftl_process(d->f);
		return true;
	}
	next = nand_next_event(d->dev);
	if (next == UINT64_MAX || next > until)
		return false;
	blox_clock_set(&d->vd.clock, next);
	nand_advance(d->dev, next);
	return true;
}

/* Everything due up to @t, then the clock at @t. */
static void run_to(struct pl_dev *d, uint64_t t)
{
	while (step(d, t))
		;
	if (t > now(d))
		blox_clock_set(&d->vd.clock, t);
}

/* Closed loop at QD 32: sequential 128 KiB (@seq) or random 4 KiB writes, @units in all. */
static void closed_writes(struct pl_dev *d, bool seq, uint64_t units)
{
	uint64_t done = 0;
	uint32_t ptr = 0;

	while (done < units || d->closed_inflight) {
		while (done < units && d->closed_free) {
			struct pl_req *r = d->closed_free;
			uint32_t lba, nr;

			if (seq) {
				lba = ptr;
				nr = d->cap - ptr < SIM_SEQ_UNITS ? d->cap - ptr : SIM_SEQ_UNITS;
				ptr = (ptr + nr) % d->cap;
			} else {
				nr = 1;
				lba = below(d, d->cap);
				if (d->wbusy[lba])
					continue;
			}
			d->closed_free = r->next;
			d->closed_inflight++;
			submit(d, r, FTL_IO_WRITE, lba, nr);
			done += nr;
		}
		if (!step(d, UINT64_MAX) && d->closed_inflight)
			sim_die("stuck with %lu writes in flight", (unsigned long)d->closed_inflight);
	}
}

/* ---- set-up ---- */

static void dev_open(struct pl_dev *d, const struct pl_opts *o)
{
	struct nand_geometry *g = &d->nc.geo;
	const char *why;
	uint32_t n;

	memset(d, 0, sizeof(*d));
	d->o = o;
	d->rng = o->seed ? o->seed : 0x9e3779b97f4a7c15ull;
	nand_config_default(&d->nc);
	g->channels = o->channels;
	g->dies_per_channel = o->dies;
	g->planes_per_die = o->planes;
	g->blocks_per_plane = o->blocks;
	g->pages_per_block = o->ppb;
	g->page_size = o->page_kib * 1024;
	if (nand_geometry_check(g, &why))
		sim_die("bad geometry: %s", why);
	d->dcfg.max_progress = 0.9; /* nand_config_default()'s */
	nand_suspend_default(&d->dflt, &d->dcfg);
	d->nc.policy = (struct nand_suspend_policy){ .name = "plm-bench",
						     .should_suspend = susp_cb, .ctx = d };
	if (nand_store_ram_open(g, &d->store) || nand_dev_create(&d->nc, d->store, &d->dev))
		sim_die("cannot make the NAND device");
	ftl_vdrive_init(&d->vd, d->dev, d->store);
	ftl_config_default(&d->fc);
	d->fc.op_permille = o->op_permille;
	d->fc.idle_ns = UINT64_MAX / 4; /* the load never idles */
	d->res.nr_dies = nand_dies(g);
	for (uint32_t i = 0; i < d->res.nr_dies; i++)
		d->res.dies[i] = i;
	d->res.nr_blocks = g->blocks_per_plane;
	if (ftl_create(&d->fc, &d->vd.env, &d->res, &d->f))
		sim_die("ftl_create failed");
	ftl_inspect_layout(d->f, &d->lay);
	ftl_inspect_gc(d->f, &d->gci);
	d->cap = ftl_capacity(d->f);
	d->shadow = calloc(d->cap, sizeof(*d->shadow));
	d->wbusy = calloc(d->cap, 1);
	n = PL_QD + PL_OPEN;
	d->reqs = calloc(n, sizeof(*d->reqs));
	if (!d->shadow || !d->wbusy || !d->reqs)
		sim_die("out of memory");
	for (uint32_t i = 0; i < n; i++) {
		struct pl_req *r = &d->reqs[i];

		r->d = d;
		r->closed = i < PL_QD;
		r->buf = malloc(r->closed ? (size_t)SIM_SEQ_UNITS * FTL_UNIT : FTL_UNIT);
		if (!r->buf)
			sim_die("out of memory");
		if (r->closed) {
			r->next = d->closed_free;
			d->closed_free = r;
		} else {
			r->next = d->open_free;
			d->open_free = r;
		}
	}
}

static void dev_close(struct pl_dev *d)
{
	ftl_destroy(d->f);
	nand_dev_destroy(d->dev);
	nand_store_close(d->store);
	for (uint32_t i = 0; i < PL_QD + PL_OPEN; i++)
		free(d->reqs[i].buf);
	free(d->reqs);
	free(d->shadow);
	free(d->wbusy);
}

/* ---- one point ---- */

static void run_point(struct pl_dev *d, struct pl_point *p)
{
	const struct pl_opts *o = d->o;
	uint64_t t0 = now(d), t_meas = t0 + (uint64_t)(o->warmup_s * 1e9);
	uint64_t t_end = t_meas + (uint64_t)(o->seconds * 1e9);
	uint64_t next_r = t0 + exp_ns(d, o->r_kiops * 1e3), next_w = t0 + exp_ns(d, o->w_kiops * 1e3);
	uint64_t next_sw = UINT64_MAX, last = t0;
	struct ftl_stats a = { 0 }, b;
	struct ftl_plm_info ia, ib;
	struct nand_suspend_stats sa = { 0 }, sb = { 0 };
	bool want_dt = false;

	d->susp_on = p->susp == 0;
	d->pt = p;
	d->win = PL_W_OFF;
	if (p->alternating) {
		if (ftl_plm_config(d->f, true, NULL))
			sim_die("ftl_plm_config failed");
		d->win = PL_W_ND;
		next_sw = t0 + (uint64_t)(o->ndwin_ms * 1e6);
	}
	memset(&ia, 0, sizeof(ia));
	for (;;) {
		uint64_t dl = ftl_plm_deadline(d->f), t = next_r;
		struct ftl_plm_info pi;

		t = next_w < t ? next_w : t;
		t = next_sw < t ? next_sw : t;
		t = dl < t ? dl : t;
		t = t_meas > now(d) && t_meas < t ? t_meas : t;
		t = t_end < t ? t_end : t;
		run_to(d, t);
		/* Time in each window, counted over the measured part. */
		if (now(d) > t_meas && d->measuring)
			p->secs[d->win] += (double)(now(d) - last) / 1e9;
		last = now(d);
		if (!d->measuring && now(d) >= t_meas) {
			d->measuring = true;
			ftl_get_stats(d->f, &a);
			ftl_plm_info(d->f, &ia);
			sa = nand_dev_stats(d->dev)->suspend;
		}
		if (now(d) >= t_end)
			break;
		if (now(d) >= dl)
			ftl_process(d->f);
		if (now(d) >= next_sw) {
			if (!want_dt) {
				int rc = ftl_set_deterministic(d->f, true, NULL);

				if (rc == -EAGAIN) {
					ftl_plm_info(d->f, &pi);
					next_sw = pi.dtwin_ready_ns;
					if (d->measuring)
						p->held++;
				} else if (rc) {
					sim_die("ftl_set_deterministic: %d", rc);
				} else {
					want_dt = true;
					next_sw = now(d) + (uint64_t)(o->dtwin_ms * 1e6);
				}
			} else {
				ftl_set_deterministic(d->f, false, NULL);
				want_dt = false;
				next_sw = now(d) + (uint64_t)(o->ndwin_ms * 1e6);
			}
		}
		if (p->alternating) {
			ftl_plm_info(d->f, &pi);
			d->win = pi.window == FTL_PLM_DTWIN ? PL_W_DT : PL_W_ND;
		}
		if (now(d) >= next_r) {
			open_io(d, false);
			next_r += exp_ns(d, o->r_kiops * 1e3);
		}
		if (now(d) >= next_w) {
			open_io(d, true);
			next_w += exp_ns(d, o->w_kiops * 1e3);
		}
	}
	ftl_get_stats(d->f, &b);
	ftl_plm_info(d->f, &ib);
	sb = nand_dev_stats(d->dev)->suspend;
	d->measuring = false;
	/* What was submitted in the window completes (counted); nothing new. */
	while (d->inflight)
		if (!step(d, UINT64_MAX))
			sim_die("stuck with %lu requests in flight", (unsigned long)d->inflight);
	p->gc_runs[PL_W_DT] = ib.st.gc_runs_in_dtwin - ia.st.gc_runs_in_dtwin;
	if (p->alternating)
		p->gc_runs[PL_W_ND] = b.gc_runs - a.gc_runs - p->gc_runs[PL_W_DT];
	else
		p->gc_runs[PL_W_OFF] = b.gc_runs - a.gc_runs;
	p->dtwins = ib.st.dtwins - ia.st.dtwins;
	p->exceeded = ib.st.exceeded - ia.st.exceeded;
	p->excursions = ib.st.excursions - ia.st.excursions;
	p->host_units = b.units_written_host - a.units_written_host;
	p->flash_units = p->host_units + (b.units_written_gc - a.units_written_gc) +
			 (b.units_written_tp - a.units_written_tp) + (b.units_padded - a.units_padded);
	p->waf = p->host_units ? (double)p->flash_units / (double)p->host_units : 0;
	p->erases = b.flash_erases - a.flash_erases;
	p->suspends = sb.suspends[NAND_OP_PROGRAM] + sb.suspends[NAND_OP_ERASE] -
		      sa.suspends[NAND_OP_PROGRAM] - sa.suspends[NAND_OP_ERASE];
	p->bad = d->bad;
	p->io_errors = d->io_errors;
}

struct pl_child {
	struct pl_dev *d;
	struct pl_point *p;
};

static void point_in_child(void *arg)
{
	struct pl_child *c = arg;

	run_point(c->d, c->p);
}

/* Run one point in a child process on a copy of the device; its results through a pipe. */
static void fork_point(struct pl_dev *d, struct pl_point *p)
{
	struct pl_child c = { d, p };
	size_t got;
	int status;

	if (sim_in_child(point_in_child, &c, p, sizeof(*p), &got, &status)) {
		if (got < sizeof(*p))
			sim_die("point: the child sent %zu of %zu bytes", got, sizeof(*p));
		sim_die("point: the child failed");
	}
}

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%s, %ld cores, %s, Linux %s; single-threaded", m.model, m.cpus, m.os,
		 m.release);
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void header(struct sim_out *out, struct pl_dev *d, double pre_wall)
{
	const struct pl_opts *o = d->o;
	const struct nand_geometry *g = &d->nc.geo;
	const struct nand_timing *t = &d->nc.timing;
	struct ftl_plm_info i;
	struct ftl_stats st;
	char m[768];

	machine(m, sizeof(m));
	ftl_plm_info(d->f, &i);
	ftl_get_stats(d->f, &st);
	sim_outf(out, "# blox-sim plm: predictable latency windows (NVMe PLM, ftl/plm.c) under a write load"
		 " that keeps GC busy and a read load\n");
	sim_outf(out, "# command: %s\n", o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (results do not depend on the machine or build)\n", m);
	sim_outf(out, "# device: %u ch x %u die/ch x %u plane x %u blocks x %u pages x %u KiB, TLC: raw %.0f MiB;"
		 " timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, bus %llu MB/s;"
		 " multi-plane %s\n",
		 g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
		 g->pages_per_block, g->page_size / 1024, (double)nand_capacity(g) / MiB,
		 (unsigned long long)t->t_read_ns[0] / 1000, (unsigned long long)t->t_read_ns[1] / 1000,
		 (unsigned long long)t->t_read_ns[2] / 1000, (unsigned long long)t->t_prog_ns[0] / 1000,
		 (unsigned long long)t->t_prog_ns[1] / 1000, (unsigned long long)t->t_prog_ns[2] / 1000,
		 (unsigned long long)t->t_erase_ns / 1000, (unsigned long long)t->bus_mbps,
		 d->nc.multiplane ? "on" : "off");
	sim_outf(out, "# FTL: %u superblocks of %.0f MiB, capacity %.0f MiB (op %u permille), greedy GC;"
		 " levels in free superblocks: idle %u, background %u, foreground %u, urgent %u (spare %u)\n",
		 d->lay.nr_sb, (double)d->lay.units_per_sb * FTL_UNIT / MiB,
		 (double)d->cap * FTL_UNIT / MiB, o->op_permille, d->gci.lvl_idle, d->gci.lvl_bg,
		 d->gci.lvl_fg, d->gci.lvl_urgent, d->gci.spare);
	sim_outf(out, "# precondition: sequential fill + %.1fx capacity random 4 KiB writes (%.1f s wall),"
		 " WAF %.2f so far, %lu GC runs; every point starts from this device (fork())\n",
		 o->precond_x, pre_wall, ftl_waf(d->f), (unsigned long)st.gc_runs);
	sim_outf(out, "# PLM figures: DTWIN Writes Typical %.1f MiB now (floor %.1f MiB), Reads Typical %lu,"
		 " Time Maximum %.0f ms, NDWIN Time Minimum Low %.1f ms / High %.1f ms;"
		 " latency estimates: read %.0f us, behind one program %.0f us (DTWIN),"
		 " behind one erase %.0f us (NDWIN, no suspension)\n",
		 (double)i.writes_typical * FTL_UNIT / MiB,
		 (double)(d->gci.lvl_idle > d->gci.lvl_urgent + 1
				  ? d->gci.lvl_idle - d->gci.lvl_urgent - 1
				  : 0) * d->lay.units_per_sb / 2 * FTL_UNIT / MiB,
		 (unsigned long)i.reads_typical, ms(i.time_max_ns), ms(i.ndwin_min_low_ns),
		 ms(i.ndwin_min_high_ns), (double)i.read_typ_ns / 1e3, (double)i.read_max_dtwin_ns / 1e3,
		 (double)i.read_max_ndwin_ns / 1e3);
	sim_outf(out, "# load: open loop, Poisson arrivals: 4 KiB writes %.2f kIOPS, 4 KiB reads %.2f kIOPS,"
		 " uniform over the capacity; %.1f s warm-up, %.1f s measured per point;"
		 " alternating: NDWIN %.0f ms, DTWIN %.0f ms (the FTL's default budget)\n",
		 o->w_kiops, o->r_kiops, o->warmup_s, o->seconds, o->ndwin_ms, o->dtwin_ms);
}

static void point_rows(struct sim_out *out, const struct pl_point *p)
{
	static const char *const susp[2] = { "default", "never" };

	for (int w = 0; w < PL_WINS; w++) {
		const struct blox_hist *r = &p->rlat[w], *wr = &p->wlat[w];

		if ((w == PL_W_OFF) == p->alternating)
			continue;
		sim_outf(out, "%-8s %-12s %-6s %7.2f %8lu %8.0f %8.0f %8.0f %9.0f %8.0f  %8lu %8.0f %8.0f %8lu\n",
			 susp[p->susp], p->alternating ? "alternating" : "off", pl_win_name[w],
			 p->secs[w], (unsigned long)r->count, blox_hist_mean(r) / 1e3,
			 (double)blox_hist_quantile(r, 0.5) / 1e3,
			 (double)blox_hist_quantile(r, 0.99) / 1e3,
			 (double)blox_hist_quantile(r, 0.999) / 1e3, (double)r->max / 1e3,
			 (unsigned long)wr->count, (double)blox_hist_quantile(wr, 0.99) / 1e3,
			 (double)blox_hist_quantile(wr, 0.999) / 1e3, (unsigned long)p->gc_runs[w]);
	}
}

/* ---- command line ---- */

static void usage(void)
{
	printf("usage: blox-sim plm [options]\n"
	       "  --channels N --dies N --planes N --blocks N --ppb N --page-kib N   device (4 2 2 64 96 16)\n"
	       "  --op N            FTL over-provisioning, permille (250)\n"
	       "  --precond-x X     random overwrite before measuring, x capacity (1.0)\n"
	       "  --w-kiops X       open-loop 4 KiB writes (1.5)\n"
	       "  --r-kiops X       open-loop 4 KiB reads (4.0)\n"
	       "  --seconds X       measured virtual seconds per point (20)\n"
	       "  --warmup-s X      virtual seconds before measuring (2)\n"
	       "  --dtwin-ms X      deterministic window length asked (500)\n"
	       "  --ndwin-ms X      non-deterministic window length (1000)\n"
	       "  --suspend default|never|both   NAND suspension policy (both)\n"
	       "  --sched off|alternating|both   windows (both)\n"
	       "  --seed N          random seed\n"
	       "  --out FILE        results file (docs/results/qos_plm.txt)\n");
}

int sim_plm_main(int argc, char **argv)
{
	struct pl_opts o = { .channels = 4, .dies = 2, .planes = 2, .blocks = 64, .ppb = 96,
			     .page_kib = 16, .op_permille = 250, .precond_x = 1.0,
			     .w_kiops = 1.5, .r_kiops = 4.0, .seconds = 20, .warmup_s = 2,
			     .dtwin_ms = 500, .ndwin_ms = 1000, .suspend = 3, .sched = 3,
			     .out = "docs/results/qos_plm.txt" };
	static const struct sim_choice suspends[] = { { "default", 1 }, { "never", 2 }, { "both", 3 },
						      { NULL, 0 } };
	static const struct sim_choice scheds[] = { { "off", 1 }, { "alternating", 2 }, { "both", 3 },
						    { NULL, 0 } };
	const struct sim_opt opts[] = {
		SIM_OPT_U32("--channels", &o.channels, 1, 1024),
		SIM_OPT_U32("--dies", &o.dies, 1, 1024),
		SIM_OPT_U32("--planes", &o.planes, 1, 16),
		SIM_OPT_U32("--blocks", &o.blocks, 1, 1u << 20),
		SIM_OPT_U32("--ppb", &o.ppb, 1, 1u << 16),
		SIM_OPT_U32("--page-kib", &o.page_kib, 1, 1024),
		SIM_OPT_U32("--op", &o.op_permille, 1, 999),
		SIM_OPT_POS("--precond-x", &o.precond_x),
		SIM_OPT_POS("--w-kiops", &o.w_kiops),
		SIM_OPT_POS("--r-kiops", &o.r_kiops),
		SIM_OPT_POS("--seconds", &o.seconds),
		SIM_OPT_POS("--warmup-s", &o.warmup_s),
		SIM_OPT_POS("--dtwin-ms", &o.dtwin_ms),
		SIM_OPT_POS("--ndwin-ms", &o.ndwin_ms),
		SIM_OPT_CHOICE("--suspend", &o.suspend, suspends),
		SIM_OPT_CHOICE("--sched", &o.sched, scheds),
		SIM_OPT_SEED(&o.seed),
		SIM_OPT_STR("--out", &o.out),
		SIM_OPT_END,
	};
	struct pl_point *pts;
	struct sim_opts so = { .exp = 1 };
	struct sim_out out;
	struct pl_dev d;
	double w0, pre_wall;
	size_t n = 0, np = 0;

	for (int i = 0; i < argc && n < sizeof(o.cmdline) - 2; i++)
		n += (size_t)snprintf(o.cmdline + n, sizeof(o.cmdline) - n, "%s%s", i ? " " : "",
				      i == 0 ? "blox-sim" : argv[i]);
	if (!sim_opts_parse("plm", usage, opts, argc, argv))
		return 0;
	so.out = o.out;
	pts = calloc(4, sizeof(*pts));
	if (!pts)
		sim_die("out of memory");
	w0 = sim_wall_now();
	dev_open(&d, &o);
	closed_writes(&d, true, d.cap);
	closed_writes(&d, false, (uint64_t)(o.precond_x * d.cap));
	ftl_inspect_gc(d.f, &d.gci);
	pre_wall = sim_wall_now() - w0;
	sim_out_open(&out, &so, "qos_plm.txt");
	header(&out, &d, pre_wall);
	for (int s = 0; s < 2; s++) {
		if (!(o.suspend & (1u << s)))
			continue;
		for (int a = 0; a < 2; a++) {
			struct pl_point *p = &pts[np];

			if (!(o.sched & (1u << a)))
				continue;
			p->susp = s;
			p->alternating = a;
			fork_point(&d, p);
			if (p->bad || p->io_errors)
				sim_die("point: %lu reads read back wrong, %lu I/O errors",
					(unsigned long)p->bad, (unsigned long)p->io_errors);
			np++;
		}
	}
	sim_outf(&out, "\n# read latency by the window a read was submitted in (us);"
		 " writes complete in the FTL's write buffer; gc_runs: victims erased in that window\n");
	sim_outf(&out, "%-8s %-12s %-6s %7s %8s %8s %8s %8s %9s %8s  %8s %8s %8s %8s\n", "suspend",
		 "schedule", "window", "time_s", "reads", "mean", "p50", "p99", "p99.9", "max", "writes",
		 "w_p99", "w_p99.9", "gc_runs");
	for (size_t i = 0; i < np; i++)
		point_rows(&out, &pts[i]);
	sim_outf(&out, "\n# per point: DTWINs begun, ended by themselves (budget / excursion), DTWIN asks"
		 " held for the NDWIN minimum, host MiB written, WAF, erases, suspensions, arrivals"
		 " dropped (no request free)\n");
	for (size_t i = 0; i < np; i++) {
		const struct pl_point *p = &pts[i];

		sim_outf(&out, "# %s/%s: dtwins %lu, exceeded %lu, excursions %lu, held %lu, written %.1f MiB,"
			 " WAF %.2f, erases %lu, suspensions %lu, dropped %lu\n",
			 p->susp ? "never" : "default", p->alternating ? "alternating" : "off",
			 (unsigned long)p->dtwins, (unsigned long)p->exceeded,
			 (unsigned long)p->excursions, (unsigned long)p->held,
			 (double)p->host_units * FTL_UNIT / MiB, p->waf, (unsigned long)p->erases,
			 (unsigned long)p->suspends, (unsigned long)p->dropped);
	}
	sim_outf(&out, "# wall: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
	dev_close(&d);
	free(pts);
	return 0;
}
