/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment "model" (qos bench 4, the model check): the model
 * `bloxctl stats` shows beside the measurement (common/blox_model.h, the
 * very functions bloxd's admin API calls) against what one namespace does
 * in virtual time. One FTL instance over a whole NAND device, the same
 * code as the daemon, driven by the virtual-time driver (ftl/vdrive.c).
 * The model's inputs are taken as the daemon takes them: every second of
 * virtual time (its sampler) the dies' busy counters, their op counts and
 * the FTL's units programmed; latencies into a histogram at completion.
 *
 *   A  the premise: the CMT holds the whole mapping (every host read is
 *      one flash read). The capacity is written sequentially, then per
 *      target utilisation (--pcts, percent of the model's read bound)
 *      open-loop Poisson arrivals of 4 KiB reads at uniformly random
 *      LBAs: --warmup-s, then --seconds measured in 1 s windows. Measured
 *      IOPS and P99 against the bound and the predicted P99, over the
 *      whole measured time and per window (the spread a reading shows).
 *   B  steady random writes on the same device: --precond-x times the
 *      capacity in uniform random 4 KiB writes, then closed-loop random
 *      writes at --w-qd in windows of at least 1 s: measured write IOPS
 *      against the prediction at the window's WAF, and the pages a
 *      program took on average (what multi-plane grouping achieved).
 *   C  A's reads on a new device whose CMT holds 1/--cmt-div of the
 *      mapping (--c-pcts): a read that misses waits for its translation
 *      page's flash read first.
 *
 * Every read is checked against what was written (the header sim_core.c
 * writes in each 4 KiB unit).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blox_model.h"
#include "sim.h"

#define MO_MAX_PCTS 16
#define MO_POOL 16384u /* reads in flight at most (open loop) */
#define MO_MAX_WINDOWS 64
#define SEC 1000000000ull

struct mo_opts {
	uint32_t channels, dies, planes, ppb, page_kib;
	uint64_t raw_mib;
	uint32_t pcts[MO_MAX_PCTS], npcts;
	uint32_t c_pcts[MO_MAX_PCTS], nc_pcts;
	double seconds, warmup_s;
	uint32_t cmt_div;
	double precond_x;
	uint32_t w_qd, w_windows;
	uint64_t seed;
	const char *out;
	char cmdline[2048];
};

/* Counters the model reads, at one time. */
struct mo_snap {
	uint64_t t;
	uint64_t busy, rbusy, reads, progs; /* all dies */
	uint64_t uhost, uall; /* FTL units programmed */
	uint64_t host_reads; /* completed */
};

struct mo_rd {
	struct ftl_io io;
	struct mo *m;
	uint8_t *buf;
	uint64_t t_arr;
};

struct mo {
	const struct mo_opts *o;
	struct sim_opts so; /* what sim_core.c wants */
	struct sim s;
	struct blox_model_flash flash;
	struct mo_rd *rds;
	uint32_t *free_idx, nfree;
	uint64_t rng;
	/* Open loop. */
	uint64_t host_reads, bad, inflight, max_inflight;
	struct blox_hist win; /* latencies completed in the current window */
};

/* One row of table A or B. */
struct mo_point {
	uint32_t pct;
	double offered;
	struct blox_model all; /* over the whole measured time */
	double mean_ns, mg1_mean_ns; /* measured, and the M/G/1 (Pollaczek-Khinchine) mean */
	uint64_t p50_ns, p999_ns, max_ns;
	uint32_t nwin;
	double ratio_lo, ratio_hi; /* per window: predicted / measured P99 */
	uint64_t max_inflight;
};

/* ---- options ---- */

static void usage(void)
{
	printf("blox-sim model [options]: the model of bloxctl stats against virtual time\n"
	       "  --channels N --dies N --planes N   device (default 4 x 2 x 2)\n"
	       "  --ppb N --page-kib N --raw-mib N   pages per block (96), page (16 KiB), raw (1536)\n"
	       "  --pcts L        table A: target utilisations, %% of the read bound\n"
	       "                  (default 10,20,30,40,50,60,70,80,90)\n"
	       "  --c-pcts L      table C: A's reads with a small CMT (default 10,30,50)\n"
	       "  --cmt-div N     table C's CMT: 1/N of the mapping (default 16)\n"
	       "  --seconds S     measured per point, in 1 s windows (default 10)\n"
	       "  --warmup-s S    before each point (default 1)\n"
	       "  --precond-x X   table B: random overwrite before it, x capacity (default 1)\n"
	       "  --w-qd N        table B: random writes in flight (default 64)\n"
	       "  --w-windows N   table B: windows of at least 1 s (default 10)\n"
	       "  --seed N        (default 1)\n"
	       "  --out FILE      (default docs/results/qos_model.txt)\n");
}

static bool parse(struct mo_opts *o, int argc, char **argv)
{
	const struct sim_opt opts[] = {
		SIM_OPT_U32("--channels", &o->channels, 1, 1024),
		SIM_OPT_U32("--dies", &o->dies, 1, 1024),
		SIM_OPT_U32("--planes", &o->planes, 1, 16),
		SIM_OPT_U32("--ppb", &o->ppb, 1, 1u << 16),
		SIM_OPT_U32("--page-kib", &o->page_kib, 1, 1024),
		SIM_OPT_U64("--raw-mib", &o->raw_mib, 1, 1u << 30),
		SIM_OPT_U32S("--pcts", o->pcts, &o->npcts, MO_MAX_PCTS, 1, 99),
		SIM_OPT_U32S("--c-pcts", o->c_pcts, &o->nc_pcts, MO_MAX_PCTS, 1, 99),
		SIM_OPT_U32("--cmt-div", &o->cmt_div, 1, 1u << 20),
		SIM_OPT_NONNEG("--seconds", &o->seconds),
		SIM_OPT_NONNEG("--warmup-s", &o->warmup_s),
		SIM_OPT_NONNEG("--precond-x", &o->precond_x),
		SIM_OPT_U32("--w-qd", &o->w_qd, 1, SIM_MAX_QD),
		SIM_OPT_U32("--w-windows", &o->w_windows, 1, MO_MAX_WINDOWS),
		SIM_OPT_SEED(&o->seed),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_END,
	};
	size_t off = 0;

	*o = (struct mo_opts){ .channels = 4, .dies = 2, .planes = 2, .ppb = 96, .page_kib = 16,
			       .raw_mib = 1536, .pcts = { 10, 20, 30, 40, 50, 60, 70, 80, 90 },
			       .npcts = 9, .c_pcts = { 10, 30, 50 }, .nc_pcts = 3, .seconds = 10,
			       .warmup_s = 1, .cmt_div = 16, .precond_x = 1, .w_qd = 64,
			       .w_windows = 10, .seed = 1, .out = "docs/results/qos_model.txt" };
	off += (size_t)snprintf(o->cmdline, sizeof(o->cmdline), "blox-sim");
	for (int i = 1; i < argc; i++)
		if (off < sizeof(o->cmdline))
			off += (size_t)snprintf(o->cmdline + off, sizeof(o->cmdline) - off, " %s",
						argv[i]);
	if (!sim_opts_parse("model", usage, opts, argc, argv))
		return false;
	if (!o->channels || !o->dies || !o->planes || !o->ppb || !o->page_kib || !o->raw_mib)
		sim_die("geometry values must be positive");
	if (o->seconds < 1 || o->seconds > MO_MAX_WINDOWS || o->warmup_s < 0)
		sim_die("--seconds must be 1..%u, --warmup-s not negative", MO_MAX_WINDOWS);
	if (!o->cmt_div || !o->w_qd || o->w_qd > SIM_MAX_QD || !o->w_windows ||
	    o->w_windows > MO_MAX_WINDOWS || o->precond_x < 0)
		sim_die("--cmt-div, --w-qd (1..%u), --w-windows (1..%u) out of range", SIM_MAX_QD,
			MO_MAX_WINDOWS);
	return true;
}

/* ---- the device and its counters ---- */

/* Exponential gap of mean @mean_ns. */
static uint64_t gap(struct mo *m, double mean_ns)
{
	double u = ((double)(sim_rnd(&m->rng) >> 11) + 0.5) / 9007199254740992.0;

	return (uint64_t)(-log(u) * mean_ns) + 1;
}

static uint64_t now(const struct mo *m)
{
	return blox_clock_now(&m->s.vd.clock);
}

static void snap(const struct mo *m, struct mo_snap *x)
{
	const struct nand_geometry *g = &m->s.nc.geo;
	struct ftl_stats st;

	memset(x, 0, sizeof(*x));
	x->t = now(m);
	for (uint32_t d = 0; d < nand_dies(g); d++) {
		const struct nand_die_stats *ds = nand_die_stats(m->s.dev, d);

		for (int k = 0; k < NAND_OP_KINDS; k++)
			x->busy += ds->busy_ns[k];
		x->busy += ds->suspend_overhead_ns;
		x->rbusy += ds->busy_ns[NAND_OP_READ];
		x->reads += ds->ops[NAND_OP_READ];
		x->progs += ds->ops[NAND_OP_PROGRAM];
	}
	ftl_get_stats(m->s.f, &st);
	x->uhost = st.units_written_host;
	x->uall = st.units_written_host + st.units_written_gc + st.units_written_tp + st.units_padded;
	x->host_reads = m->host_reads;
}

/* The model between two snapshots, as bloxd computes it (adm_stats.c). */
static void model_between(const struct mo *m, const struct mo_snap *a, const struct mo_snap *b,
			  uint64_t host_writes, uint64_t p99_ns, struct blox_model *r)
{
	struct blox_model_meas meas = {
		.interval_ns = (double)(b->t - a->t),
		.host_reads = b->host_reads - a->host_reads,
		.host_writes = host_writes,
		.host_write_bytes = host_writes * FTL_UNIT,
		.p99_read_ns = p99_ns,
		.busy_ns = b->busy - a->busy,
		.read_busy_ns = b->rbusy - a->rbusy,
		.flash_reads = b->reads - a->reads,
		.flash_programs = b->progs - a->progs,
		.units_host = b->uhost - a->uhost,
		.units_all = b->uall - a->uall,
		.waf_life = ftl_waf(m->s.f),
		.has_ftl = true,
	};

	blox_model_eval(&m->flash, &meas, r);
}

static void flash_of(struct blox_model_flash *f, const struct nand_config *nc)
{
	const struct nand_geometry *g = &nc->geo;
	const struct nand_timing *t = &nc->timing;

	memset(f, 0, sizeof(*f));
	f->dies = nand_dies(g);
	f->channels = g->channels;
	f->planes = nc->multiplane ? g->planes_per_die : 1;
	f->page_size = g->page_size;
	f->page_types = (uint32_t)g->cell;
	for (uint32_t i = 0; i < BLOX_MODEL_TYPES; i++) {
		f->t_read_ns[i] = t->t_read_ns[i];
		f->t_prog_ns[i] = t->t_prog_ns[i];
	}
	f->t_erase_ns = t->t_erase_ns;
	f->t_suspend_ns = t->t_suspend_ns;
	f->t_resume_ns = t->t_resume_ns;
	f->t_cmd_ns = t->t_cmd_ns;
	f->bus_mbps = t->bus_mbps;
}

/* A device filled sequentially, its CMT @cmt_div of the mapping (1: all of it). */
static void mo_open(struct mo *m, const struct mo_opts *o, uint32_t cmt_div)
{
	struct ftl_config fc;
	struct ftl_layout lay;

	memset(m, 0, sizeof(*m));
	m->o = o;
	m->so.channels = o->channels;
	m->so.dies = o->dies;
	m->so.planes = o->planes;
	m->so.ppb = o->ppb;
	m->so.page_size = o->page_kib * 1024;
	m->so.raw_mib = o->raw_mib;
	m->so.multiplane = true;
	m->so.qd = o->w_qd;
	m->so.seed = o->seed;
	snprintf(m->so.cmdline, sizeof(m->so.cmdline), "%s", o->cmdline);
	ftl_config_default(&fc);
	/* First open to learn the mapping's size, then the CMT sized to it. */
	sim_open(&m->s, &m->so, &fc);
	ftl_inspect_layout(m->s.f, &lay);
	sim_close(&m->s);
	fc.cmt_bytes = (lay.nr_tp + cmt_div - 1) / cmt_div * FTL_UNIT;
	sim_open(&m->s, &m->so, &fc);
	flash_of(&m->flash, &m->s.nc);
	m->rng = o->seed * 0x9e3779b97f4a7c15ull + cmt_div;
	m->rds = calloc(MO_POOL, sizeof(*m->rds));
	m->free_idx = calloc(MO_POOL, sizeof(*m->free_idx));
	if (!m->rds || !m->free_idx)
		sim_die("out of memory");
	for (uint32_t i = 0; i < MO_POOL; i++) {
		m->rds[i].m = m;
		if (!(m->rds[i].buf = malloc(FTL_UNIT)))
			sim_die("out of memory");
		m->free_idx[m->nfree++] = i;
	}
	sim_fill(&m->s, 0, 0);
}

static void mo_close(struct mo *m)
{
	for (uint32_t i = 0; i < MO_POOL; i++)
		free(m->rds[i].buf);
	free(m->rds);
	free(m->free_idx);
	sim_close(&m->s);
}

/* ---- open-loop reads ---- */

static void rd_done(struct ftl_io *io)
{
	struct mo_rd *r = io->cb_arg;
	struct mo *m = r->m;
	const uint32_t *h = (const uint32_t *)r->buf;
	uint32_t lba = io->lba;

	if (io->status || h[0] != SIM_MAGIC || h[1] != lba || h[2] != m->s.shadow[lba] ||
	    h[1023] != ~lba) {
		if (m->bad++ < 10)
			fprintf(stderr, "VERIFY: lba %u: status %d, got ver %u want %u\n", lba,
				io->status, h[2], m->s.shadow[lba]);
	}
	blox_hist_add(&m->win, now(m) - r->t_arr);
	m->host_reads++;
	m->inflight--;
	m->free_idx[m->nfree++] = (uint32_t)(r - m->rds);
}

static void rd_submit(struct mo *m, uint64_t t)
{
	struct mo_rd *r;
	int rc;

	if (!m->nfree)
		sim_die("more than %u reads in flight: the device is overloaded", MO_POOL);
	r = &m->rds[m->free_idx[--m->nfree]];
	memset(&r->io, 0, sizeof(r->io));
	r->io.op = FTL_IO_READ;
	r->io.lba = (uint32_t)(sim_rnd(&m->rng) % m->s.cap);
	r->io.nr = 1;
	r->io.buf = r->buf;
	r->io.cb = rd_done;
	r->io.cb_arg = r;
	r->t_arr = t;
	if (++m->inflight > m->max_inflight)
		m->max_inflight = m->inflight;
	if ((rc = ftl_submit(m->s.f, &r->io)))
		sim_die("ftl_submit: %d", rc);
}

/*
 * Arrivals at @rate reads/s until @until (virtual ns), windows of 1 s
 * from @t0: each window's snapshot into @w[] (from index 0: its end) and
 * latency histogram merged into @lat when @measure.
 */
static void rd_run(struct mo *m, double rate, uint64_t *next_arr, uint64_t until,
		   struct mo_snap *w, struct blox_hist *wh, uint32_t nwin)
{
	double mean_ns = 1e9 / rate;
	uint64_t wend = now(m) + SEC;
	uint32_t k = 0;

	while (now(m) < until) {
		uint64_t t = *next_arr < wend ? *next_arr : wend;

		if (t > until)
			t = until;
		ftl_vdrive_run(&m->s.vd, m->s.f, t);
		if (t == *next_arr) {
			rd_submit(m, t);
			*next_arr = t + gap(m, mean_ns);
		}
		if (t == wend) {
			if (w && k < nwin) {
				snap(m, &w[k]);
				wh[k] = m->win;
				k++;
			}
			blox_hist_reset(&m->win);
			wend += SEC;
		}
	}
}

static void read_point(struct mo *m, uint32_t pct, struct mo_point *p)
{
	const struct mo_opts *o = m->o;
	uint32_t nwin = (uint32_t)o->seconds;
	double bound = blox_model_read_bound(m->flash.dies, m->flash.channels,
					     blox_model_mean_ns(m->flash.t_read_ns, m->flash.page_types),
					     blox_model_xfer_ns(FTL_UNIT, m->flash.t_cmd_ns,
								m->flash.bus_mbps));
	double rate = bound * pct / 100.0;
	uint64_t next_arr, t0;
	struct mo_snap s0, w[MO_MAX_WINDOWS];
	struct blox_hist *wh = calloc(MO_MAX_WINDOWS, sizeof(*wh));
	struct blox_hist *all = calloc(1, sizeof(*all));
	double es2 = 0;

	if (!wh || !all)
		sim_die("out of memory");
	memset(p, 0, sizeof(*p));
	p->pct = pct;
	p->offered = rate;
	m->max_inflight = 0;
	next_arr = now(m) + gap(m, 1e9 / rate);
	t0 = now(m);
	if (o->warmup_s > 0)
		rd_run(m, rate, &next_arr, t0 + (uint64_t)(o->warmup_s * 1e9), NULL, NULL, 0);
	blox_hist_reset(&m->win);
	snap(m, &s0);
	rd_run(m, rate, &next_arr, s0.t + nwin * SEC, w, wh, nwin);
	/* Let what is in flight finish (not counted), so the next point starts idle. */
	while (m->inflight) {
		if (!m->s.vd.kicked && nand_next_event(m->s.dev) == UINT64_MAX)
			sim_die("FTL HANG: %llu reads in flight, nothing pending",
				(unsigned long long)m->inflight);
		ftl_vdrive_run(&m->s.vd, m->s.f, now(m) + 1000000);
	}
	if (m->bad)
		sim_die("DATA ERROR: %llu bad reads", (unsigned long long)m->bad);
	p->ratio_lo = 1e30;
	for (uint32_t k = 0; k < nwin; k++) {
		const struct mo_snap *a = k ? &w[k - 1] : &s0;
		struct blox_model r;
		uint64_t p99 = blox_hist_quantile(&wh[k], 0.99);

		blox_hist_merge(all, &wh[k]);
		model_between(m, a, &w[k], 0, p99, &r);
		if (p99) {
			double q = r.p99_read_pred_ns / (double)p99;

			p->ratio_lo = q < p->ratio_lo ? q : p->ratio_lo;
			p->ratio_hi = q > p->ratio_hi ? q : p->ratio_hi;
		}
		p->nwin++;
	}
	model_between(m, &s0, &w[nwin - 1], 0, blox_hist_quantile(all, 0.99), &p->all);
	p->mean_ns = blox_hist_mean(all);
	p->p50_ns = blox_hist_quantile(all, 0.5);
	p->p999_ns = blox_hist_quantile(all, 0.999);
	p->max_ns = all->max;
	p->max_inflight = m->max_inflight;
	/*
	 * Reference, not the model: the M/G/1 mean response of a die
	 * (Pollaczek-Khinchine), E[S] + lambda E[S^2] / (2 (1 - rho)), a
	 * read's service one of the page types' tR plus its transfer.
	 */
	for (uint32_t i = 0; i < m->flash.page_types; i++) {
		double s = (double)m->flash.t_read_ns[i] + p->all.xfer_read_ns;

		es2 += s * s / m->flash.page_types;
	}
	if (p->all.rho < 1) {
		double lam = p->all.rho / p->all.service_ns; /* per die and ns, as the model's rho */

		p->mg1_mean_ns = p->all.service_ns + lam * es2 / (2 * (1 - p->all.rho));
	}
	free(wh);
	free(all);
}

/* ---- output ---- */

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%s, Linux %s, %ld CPUs online (%s); the simulator runs on one", m.os,
		 m.release, m.cpus, m.model);
}

static void header(struct sim_out *out, const struct mo *m)
{
	const struct nand_geometry *g = &m->s.nc.geo;
	const struct nand_timing *t = &m->s.nc.timing;
	const struct blox_model_flash *f = &m->flash;
	double tr = blox_model_mean_ns(f->t_read_ns, f->page_types);
	double xr = blox_model_xfer_ns(FTL_UNIT, f->t_cmd_ns, f->bus_mbps);
	char mach[1024];

	machine(mach, sizeof(mach));
	sim_outf(out, "# blox-sim: experiment model (qos bench 4): the model bloxctl stats shows beside"
		      " the measurement, against one namespace in virtual time\n");
	sim_outf(out, "# command: %s\n", m->o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (the FTL's and the engine's CPU time is not"
		      " modeled)\n",
		 mach);
	sim_outf(out, "# device: %u ch x %u die/ch x %u planes x %u blocks x %u pages x %u KiB, TLC;"
		      " raw %.0f MiB; one FTL instance on all %u dies (FTL defaults)\n",
		 g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
		 g->pages_per_block, g->page_size / 1024, (double)nand_capacity(g) / MiB,
		 nand_dies(g));
	sim_outf(out, "# timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, bus %llu"
		      " MB/s, tCMD %llu ns; multi-plane programs on; default suspension policy\n",
		 (unsigned long long)t->t_read_ns[0] / 1000, (unsigned long long)t->t_read_ns[1] / 1000,
		 (unsigned long long)t->t_read_ns[2] / 1000, (unsigned long long)t->t_prog_ns[0] / 1000,
		 (unsigned long long)t->t_prog_ns[1] / 1000, (unsigned long long)t->t_prog_ns[2] / 1000,
		 (unsigned long long)t->t_erase_ns / 1000, (unsigned long long)t->bus_mbps,
		 (unsigned long long)t->t_cmd_ns);
	sim_outf(out, "# model (common/include/blox_model.h, the functions bloxd calls):\n"
		      "#   read bound = min(D / (tR + xr), C / xr) = min(%u / (%.1f + %.3f us), %u /"
		      " %.3f us) = %.0f reads/s\n",
		 f->dies, tr / 1e3, xr / 1e3, f->channels, xr / 1e3,
		 blox_model_read_bound(f->dies, f->channels, tr, xr));
	sim_outf(out, "#   rho = (array busy of the dies + flash reads x xr + programs x xp) /"
		      " (interval x D), from the per-die counters\n"
		      "#   E[S] = read array busy / flash reads + xr; P99 = E[S] (1 + ln(100) rho /"
		      " (1 - rho)), rho capped at %.2f\n"
		      "#   write IOPS = D x (page / 4 KiB) x planes / (WAF x tPROG), tPROG the mean"
		      " over the page types\n",
		 BLOX_MODEL_RHO_MAX);
	sim_outf(out, "# measurement, as bloxd's sampler takes it: counters every 1 s of virtual time,"
		      " a read's latency (arrival to completion) into the window it completes in\n");
}

static void table_reads(struct sim_out *out, const struct mo *m, const struct mo_point *p,
			uint32_t n, const char *title)
{
	sim_outf(out, "%s\n", title);
	sim_outf(out, "# target: %% of the read bound offered (Poisson arrivals, uniformly random"
		      " LBAs, 4 KiB); kIOPS: offered, measured, bound; rho and E[S] measured;\n"
		      "# mean/P50/P99/P99.9 measured (us); pred: the model's P99 over the whole %.0f s;"
		      " pred/meas per 1 s window (lo..hi); M/G/1: the Pollaczek-Khinchine mean\n",
		 m->o->seconds);
	sim_outf(out, "%6s %8s %8s %8s %6s %7s %8s %8s %8s %9s %9s %9s %6s %13s %6s\n", "target",
		 "offered", "kIOPS", "bound", "rho", "E[S]", "mean", "M/G/1", "P50", "P99", "pred",
		 "P99.9", "pred/", "window", "max_qd");
	sim_outf(out, "%6s %8s %8s %8s %6s %7s %8s %8s %8s %9s %9s %9s %6s %13s %6s\n", "%", "kIOPS",
		 "", "kIOPS", "", "us", "us", "mean us", "us", "us", "P99 us", "us", "meas",
		 "pred/meas", "");
	for (uint32_t i = 0; i < n; i++) {
		const struct blox_model *r = &p[i].all;

		sim_outf(out, "%6u %8.1f %8.1f %8.1f %6.3f %7.1f %8.1f %8.1f %8.1f %9.1f %9.1f %9.1f"
			      " %6.2f %6.2f..%5.2f %6llu%s\n",
			 p[i].pct, p[i].offered / 1e3, r->read_iops / 1e3, r->read_iops_bound / 1e3,
			 r->rho, r->service_ns / 1e3, p[i].mean_ns / 1e3, p[i].mg1_mean_ns / 1e3,
			 p[i].p50_ns / 1e3, r->p99_read_ns / 1e3, r->p99_read_pred_ns / 1e3,
			 p[i].p999_ns / 1e3,
			 r->p99_read_ns ? r->p99_read_pred_ns / (double)r->p99_read_ns : 0,
			 p[i].ratio_lo, p[i].ratio_hi, (unsigned long long)p[i].max_inflight,
			 r->saturated ? " saturated" : "");
	}
}

/* ---- B: steady random writes ---- */

/* Program ops and their array time on all dies (for the planes a program took, measured). */
static void prog_counts(const struct mo *m, uint64_t *ops, uint64_t *busy)
{
	*ops = *busy = 0;
	for (uint32_t d = 0; d < nand_dies(&m->s.nc.geo); d++) {
		const struct nand_die_stats *ds = nand_die_stats(m->s.dev, d);

		*ops += ds->ops[NAND_OP_PROGRAM];
		*busy += ds->busy_ns[NAND_OP_PROGRAM];
	}
}

static void writes(struct sim_out *out, struct mo *m)
{
	const struct mo_opts *o = m->o;
	uint64_t n = (uint64_t)(o->precond_x * m->s.cap);
	double tp = blox_model_mean_ns(m->flash.t_prog_ns, m->flash.page_types);
	double sum_meas = 0, sum_pred = 0, sum_units_all = 0, sum_units_host = 0, sum_rho = 0;
	struct blox_model r;

	sim_outf(out, "## B: steady random writes, closed loop at QD %u (4 KiB, uniformly random LBAs),"
		      " after %.1f x the capacity of them; windows of at least 1 s of virtual time\n",
		 o->w_qd, o->precond_x);
	sim_outf(out, "# kIOPS: measured (writes completed / window), and the model's at the window's"
		      " WAF (units programmed / host units programmed); rho measured;\n"
		      "# pages/tPROG: pages programmed per program array time, measured (the model"
		      " takes %u: multi-plane programs of every plane)\n",
		 m->flash.planes);
	while (n) {
		uint64_t k = n < 100000 ? n : 100000;

		sim_run_job(&m->s, SIM_JOB_RANDW, k);
		n -= k;
	}
	sim_outf(out, "%6s %8s %8s %6s %6s %10s %9s %11s %7s\n", "window", "seconds", "kIOPS", "WAF",
		 "rho", "pred kIOPS", "pred/meas", "pages/tPROG", "GC runs");
	for (uint32_t w = 0; w < o->w_windows; w++) {
		uint64_t writes = 0, po0, pb0, po1, pb1;
		struct ftl_stats s0, s1;
		struct mo_snap a, b;

		ftl_get_stats(m->s.f, &s0);
		prog_counts(m, &po0, &pb0);
		snap(m, &a);
		/* In steps of 4000 (each ends with the queue drained: a few ms of 1 s). */
		do {
			sim_run_job(&m->s, SIM_JOB_RANDW, 4000);
			writes += 4000;
		} while (now(m) - a.t < SEC);
		snap(m, &b);
		prog_counts(m, &po1, &pb1);
		ftl_get_stats(m->s.f, &s1);
		model_between(m, &a, &b, writes, 0, &r);
		sim_outf(out, "%6u %8.3f %8.2f %6.2f %6.3f %10.2f %9.3f %11.2f %7llu\n", w + 1,
			 (double)(b.t - a.t) / 1e9, r.write_iops / 1e3, r.waf, r.rho,
			 r.write_iops_pred / 1e3, r.write_iops_pred / r.write_iops,
			 pb1 > pb0 ? (double)(po1 - po0) * tp / (double)(pb1 - pb0) : 0,
			 (unsigned long long)(s1.gc_runs - s0.gc_runs));
		sum_meas += r.write_iops;
		sum_pred += r.write_iops_pred;
		sum_units_all += (double)(b.uall - a.uall);
		sum_units_host += (double)(b.uhost - a.uhost);
		sum_rho += r.rho;
	}
	sim_outf(out, "%6s %8s %8.2f %6.2f %6.3f %10.2f %9.3f\n", "mean", "",
		 sum_meas / o->w_windows / 1e3, sum_units_all / sum_units_host,
		 sum_rho / o->w_windows, sum_pred / o->w_windows / 1e3, sum_pred / sum_meas);
}

int sim_model_main(int argc, char **argv)
{
	struct mo_opts o;
	struct sim_out out;
	struct mo_point pa[MO_MAX_PCTS], pb[MO_MAX_PCTS];
	struct mo *m = calloc(1, sizeof(*m));
	double t0 = sim_wall_now();

	if (!m)
		sim_die("out of memory");
	if (!parse(&o, argc, argv)) {
		free(m);
		return 0;
	}
	sim_out_create(&out, o.out, NULL, NULL);

	mo_open(m, &o, 1);
	header(&out, m);
	sim_outf(&out, "# capacity %u units (%.0f MiB), %u translation pages\n", m->s.cap,
		 m->s.cap * 4096.0 / MiB, m->s.lay.nr_tp);
	for (uint32_t i = 0; i < o.npcts; i++)
		read_point(m, o.pcts[i], &pa[i]);
	table_reads(&out, m, pa, o.npcts,
		    "## A: open-loop random reads, the CMT holds the whole mapping (one flash read"
		    " per host read)");
	writes(&out, m);
	mo_close(m);

	mo_open(m, &o, o.cmt_div);
	for (uint32_t i = 0; i < o.nc_pcts; i++)
		read_point(m, o.c_pcts[i], &pb[i]);
	{
		char title[256];

		snprintf(title, sizeof(title),
			 "## C: A's reads with a CMT of 1/%u of the mapping (%u of %u translation"
			 " pages): a read that misses reads its translation page first",
			 o.cmt_div, (m->s.lay.nr_tp + o.cmt_div - 1) / o.cmt_div, m->s.lay.nr_tp);
		table_reads(&out, m, pb, o.nc_pcts, title);
	}
	{
		struct ftl_stats st;

		ftl_get_stats(m->s.f, &st);
		sim_outf(&out, "# C's mapping: %llu CMT hits, %llu misses (translation-page reads)\n",
			 (unsigned long long)st.cmt_hits, (unsigned long long)st.cmt_misses);
	}
	mo_close(m);
	sim_outf(&out, "# wall time %.0f s\n", sim_wall_now() - t0);
	fclose(out.fp);
	free(m);
	return 0;
}
