/*
 * blox-sim: the blox FTL (ftl/) over the emulated NAND (nand/) on the
 * virtual-time driver (ftl/vdrive.c) -- the same FTL and NAND code as the
 * daemon, with time moved event to event -- reproducing the experiments of
 * "improving read performance of DRAM-less storage devices" on a scaled
 * 4-channel, 1-die-per-channel device:
 *
 *   exp 1  sequential fill (128 KiB writes), then closed-loop 4 KiB random
 *          reads over growing LBA ranges: mapping hit rate, IOPS, latency,
 *          plain DFTL (MDC off) vs DFTL+MDC
 *   exp 2  the same, the fill inserting one random 4 KiB write after every
 *          1 MiB of sequential data, with and without stream separation
 *   exp 3  write amplification vs over-provisioning under uniform random
 *          4 KiB writes, greedy and cost-benefit GC, beside the analytic
 *          estimates for greedy
 *
 * Every read is checked against what was written (a header of magic, LBA
 * and version in each 4 KiB unit); exp 3 reads a sample back at the end.
 * The FTL is restarted (clean shutdown, checkpoint, recovery) before each
 * measured point, so each point starts with cold caches.
 *
 * Telemetry beyond ftl_get_stats (MDC descriptor count and coverage, free
 * superblocks, open-superblock fill) is read, never written, from the
 * private state in ftl_internal.h.
 *
 * Run with --help for the options. BLOX_SIM_DEBUG=1 in the environment
 * prints per-point counter deltas (and the state after each restart) to
 * stderr.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "ftl_internal.h"
#include "hist.h"
#include "nand.h"
#include "vdrive.h"

#define MiB (1024.0 * 1024.0)
#define SIM_MAGIC 0x534c4258u /* "XBLS" */
#define MAX_QD 256u
#define SEQ_UNITS 32u /* 128 KiB */
#define MAX_RANGES 32

/* ---- options ---- */

struct opts {
	int exp; /* 1, 2, 3; 0: all */
	uint64_t raw_mib, waf_raw_mib;
	uint32_t waf_ppb, waf_control_kib;
	bool waf_control;
	uint32_t channels, dies, planes, ppb, page_size;
	uint32_t cmt_kib, mdc_bytes, mdc_min_run, hot_regions, hot_top;
	int mdc; /* 0 off, 1 on, 2 both */
	int sep; /* 0 off, 1 on, 2 both */
	int rand_lba; /* exp 2: 0 uniform, 1 ahead, 2 both */
	uint32_t op_permille; /* exp 1/2 */
	uint32_t qd;
	uint64_t reads, warmup;
	bool prefetch;
	bool multiplane; /* NAND engine groups programs/erases across planes */
	uint64_t idle_ms;
	double write_x; /* exp 3: random writes, times the capacity */
	uint32_t ops[16], nops; /* exp 3 op_permille list */
	int gc; /* 0 greedy, 1 cb, 2 both */
	uint32_t nranges;
	uint32_t range_num[MAX_RANGES], range_den[MAX_RANGES];
	int gc_bg, gc_idle; /* permille of the spare superblocks; -1: the FTL's */
	uint64_t seed;
	const char *out, *outdir;
	char cmdline[2048];
};

static struct opts O;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "blox-sim: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- one simulated device ---- */

enum job_kind { JOB_READ, JOB_FILL, JOB_RANDW };

struct sim;

struct slot {
	struct ftl_io io;
	struct sim *s;
	uint8_t *buf;
	uint64_t t_sub;
	bool busy, parked;
	uint32_t lba, nr; /* in flight */
	uint32_t ver[SEQ_UNITS]; /* versions written */
};

struct sim {
	struct nand_config nc;
	struct nand_store *store;
	struct nand_dev *dev;
	struct ftl_vdrive vd;
	struct ftl_config fc;
	struct ftl_resources res;
	struct ftl *f;
	uint32_t cap;
	uint32_t *shadow; /* version per LBA, 0: never written */
	uint32_t next_ver;
	uint64_t rng;
	struct slot slots[MAX_QD];
	uint32_t qd;

	/* The running job. */
	enum job_kind kind;
	uint64_t to_submit, submitted, completed, inflight;
	bool done;
	uint32_t range; /* reads: [0, range) */
	uint32_t fill_ptr; /* fill: next sequential LBA */
	uint32_t since_rand; /* fill: units since the last random write */
	uint32_t rand_every; /* fill: 0 none, else units between random writes */
	int rand_mode; /* 0 uniform, 1 ahead of the fill pointer */
	bool pending_rand;
	uint64_t bad, io_errors;
	struct blox_hist lat;
	/* exp 3 sampling */
	double free_sum, open_sum;
	uint64_t samples;
};

static uint64_t rnd(struct sim *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 2685821657736338717ull;
}

static void make_geometry(struct nand_geometry *g)
{
	uint64_t per_block;

	nand_geometry_default(g);
	g->channels = O.channels;
	g->dies_per_channel = O.dies;
	g->planes_per_die = O.planes;
	g->pages_per_block = O.ppb;
	g->page_size = O.page_size;
	g->oob_size = 1024;
	g->cell = NAND_TLC;
	per_block = (uint64_t)O.channels * O.dies * O.planes * O.ppb * O.page_size;
	g->blocks_per_plane = (uint32_t)(O.raw_mib * 1024 * 1024 / per_block);
}

/*
 * GC levels: the FTL's defaults (permille of the spare superblocks, which
 * a full device reaches on any op_permille, and GC stops when nothing is
 * worth collecting) unless --gc-bg / --gc-idle say otherwise.
 */
static void gc_levels(struct ftl_config *fc)
{
	if (O.gc_bg >= 0)
		fc->gc_bg_permille = (uint32_t)O.gc_bg;
	if (O.gc_idle >= 0)
		fc->gc_idle_permille = (uint32_t)O.gc_idle;
}

static void base_config(struct ftl_config *fc)
{
	ftl_config_default(fc);
	fc->cmt_bytes = O.cmt_kib * 1024;
	fc->mdc_bytes = O.mdc_bytes;
	fc->mdc_min_run = O.mdc_min_run;
	fc->hot_regions = O.hot_regions;
	fc->hot_top = O.hot_top;
	fc->op_permille = O.op_permille;
}

static void sim_open(struct sim *s, const struct ftl_config *fc)
{
	const char *why;
	int rc;

	memset(s, 0, sizeof(*s));
	nand_config_default(&s->nc);
	s->nc.multiplane = O.multiplane;
	make_geometry(&s->nc.geo);
	if (nand_geometry_check(&s->nc.geo, &why))
		die("geometry: %s", why);
	if ((rc = nand_store_ram_open(&s->nc.geo, &s->store)))
		die("store: %d", rc);
	if ((rc = nand_dev_create(&s->nc, s->store, &s->dev)))
		die("nand dev: %d", rc);
	ftl_vdrive_init(&s->vd, s->dev, s->store);
	s->fc = *fc;
	s->res.nr_dies = s->nc.geo.channels * s->nc.geo.dies_per_channel;
	if (s->res.nr_dies > BLOX_FTL_MAX_DIES)
		die("too many dies");
	for (uint32_t i = 0; i < s->res.nr_dies; i++)
		s->res.dies[i] = i;
	s->res.first_block = 0;
	s->res.nr_blocks = s->nc.geo.blocks_per_plane;
	if ((rc = ftl_create(&s->fc, &s->vd.env, &s->res, &s->f)))
		die("ftl_create: %d", rc);
	s->cap = ftl_capacity(s->f);
	s->shadow = calloc(s->cap, sizeof(*s->shadow));
	s->qd = O.qd;
	s->rng = O.seed;
	for (uint32_t i = 0; i < s->qd; i++) {
		s->slots[i].s = s;
		s->slots[i].buf = calloc(SEQ_UNITS, FTL_UNIT);
		if (!s->slots[i].buf)
			die("out of memory");
	}
	if (!s->shadow)
		die("out of memory");
}

static void shutdown_cb(void *arg, int status)
{
	int *st = arg;

	*st = status;
}

static void sim_stop_ftl(struct sim *s)
{
	int status = 1;
	bool flag = false;

	if (ftl_shutdown(s->f, shutdown_cb, &status))
		die("ftl_shutdown refused");
	/* The callback sets status; run until it did or nothing is left. */
	while (status == 1) {
		if (!s->vd.kicked && nand_next_event(s->dev) == UINT64_MAX)
			die("shutdown hangs: no event pending, callback not called");
		ftl_vdrive_run(&s->vd, s->f, blox_clock_now(&s->vd.clock) + 1000000);
	}
	(void)flag;
	if (status)
		die("shutdown status %d", status);
	ftl_destroy(s->f);
	s->f = NULL;
}

/* Clean stop, then start again with @fc (recovery from the checkpoint). */
static void sim_restart(struct sim *s, const struct ftl_config *fc)
{
	int rc;

	sim_stop_ftl(s);
	s->fc = *fc;
	if ((rc = ftl_create(&s->fc, &s->vd.env, &s->res, &s->f)))
		die("ftl_create (restart): %d", rc);
	if (ftl_capacity(s->f) != s->cap)
		die("capacity changed across restart");
	if (getenv("BLOX_SIM_DEBUG")) {
		struct ftl_stats st;

		ftl_get_stats(s->f, &st);
		fprintf(stderr, "restart: free sb %llu, gc runs %llu moved %llu, tp units %llu padded %llu\n",
			(unsigned long long)st.free_superblocks, (unsigned long long)st.gc_runs,
			(unsigned long long)st.gc_units_moved, (unsigned long long)st.units_written_tp,
			(unsigned long long)st.units_padded);
	}
}

static void sim_close(struct sim *s)
{
	if (s->f)
		sim_stop_ftl(s);
	nand_dev_destroy(s->dev);
	nand_store_close(s->store);
	for (uint32_t i = 0; i < s->qd; i++)
		free(s->slots[i].buf);
	free(s->shadow);
}

/* ---- the closed loop ---- */

static bool overlaps(const struct sim *s, uint32_t lba, uint32_t nr)
{
	for (uint32_t i = 0; i < s->qd; i++) {
		const struct slot *o = &s->slots[i];

		if (o->busy && o->io.op == FTL_IO_WRITE && lba < o->lba + o->nr &&
		    o->lba < lba + nr)
			return true;
	}
	return false;
}

static void io_done(struct ftl_io *io);

/* Pick the next op of the job; false when it must wait (overlap). */
static bool next_op(struct sim *s, enum ftl_io_op *op,
		    uint32_t *lba, uint32_t *nr)
{
	switch (s->kind) {
	case JOB_READ:
		*op = FTL_IO_READ;
		*lba = (uint32_t)(rnd(s) % s->range);
		*nr = 1;
		return true;
	case JOB_RANDW:
		*op = FTL_IO_WRITE;
		*nr = 1;
		for (int tries = 0; tries < 64; tries++) {
			*lba = (uint32_t)(rnd(s) % s->cap);
			if (!overlaps(s, *lba, 1))
				return true;
		}
		return false;
	case JOB_FILL:
		*op = FTL_IO_WRITE;
		if (s->pending_rand) {
			*nr = 1;
			for (int tries = 0; tries < 64; tries++) {
				if (s->rand_mode == 1 && s->fill_ptr < s->cap)
					*lba = s->fill_ptr +
					       (uint32_t)(rnd(s) % (s->cap - s->fill_ptr));
				else
					*lba = (uint32_t)(rnd(s) % s->cap);
				if (!overlaps(s, *lba, 1)) {
					s->pending_rand = false;
					return true;
				}
			}
			return false;
		}
		*lba = s->fill_ptr;
		*nr = s->cap - s->fill_ptr < SEQ_UNITS ? s->cap - s->fill_ptr : SEQ_UNITS;
		if (overlaps(s, *lba, *nr))
			return false;
		s->fill_ptr += *nr;
		if (s->rand_every) {
			s->since_rand += *nr;
			if (s->since_rand >= s->rand_every) {
				s->since_rand -= s->rand_every;
				s->pending_rand = true;
				s->to_submit++; /* the random write comes on top */
			}
		}
		return true;
	}
	return false;
}

static void submit_slot(struct sim *s, struct slot *sl)
{
	enum ftl_io_op op;
	uint32_t lba, nr;
	int rc;

	if (!next_op(s, &op, &lba, &nr)) {
		sl->parked = true;
		return;
	}
	sl->parked = false;
	memset(&sl->io, 0, sizeof(sl->io));
	sl->io.op = op;
	sl->io.lba = lba;
	sl->io.nr = nr;
	sl->io.buf = sl->buf;
	sl->io.cb = io_done;
	sl->io.cb_arg = sl;
	sl->lba = lba;
	sl->nr = nr;
	if (op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < nr; u++) {
			uint32_t *h = (uint32_t *)(sl->buf + (size_t)u * FTL_UNIT);

			sl->ver[u] = ++s->next_ver;
			h[0] = SIM_MAGIC;
			h[1] = lba + u;
			h[2] = sl->ver[u];
			h[1023] = ~(lba + u);
		}
	}
	sl->busy = true;
	sl->t_sub = blox_clock_now(&s->vd.clock);
	s->submitted++;
	s->inflight++;
	if ((rc = ftl_submit(s->f, &sl->io)))
		die("ftl_submit: %d (lba %u nr %u)", rc, lba, nr);
}

static void check_read(struct sim *s, struct slot *sl)
{
	for (uint32_t u = 0; u < sl->nr; u++) {
		const uint32_t *h = (const uint32_t *)(sl->buf + (size_t)u * FTL_UNIT);
		uint32_t lba = sl->lba + u, want = s->shadow[lba];
		bool ok;

		if (want == 0)
			ok = h[0] == 0 && h[1] == 0 && h[2] == 0;
		else
			ok = h[0] == SIM_MAGIC && h[1] == lba && h[2] == want &&
			     h[1023] == ~lba;
		if (!ok && s->bad++ < 10)
			fprintf(stderr,
				"VERIFY: lba %u: got magic %08x lba %u ver %u, want ver %u\n",
				lba, h[0], h[1], h[2], want);
	}
}

static void sample_space(struct sim *s)
{
	const struct ftl *f = s->f;
	uint64_t open_left = 0;

	for (int st = 0; st < ST_COUNT; st++)
		if (f->streams[st].sb >= 0)
			open_left += f->units_per_sb - f->streams[st].next;
	s->free_sum += f->free_sbs;
	s->open_sum += (double)open_left / f->units_per_sb;
	s->samples++;
}

static void io_done(struct ftl_io *io)
{
	struct slot *sl = io->cb_arg;
	struct sim *s = sl->s;

	sl->busy = false;
	s->inflight--;
	s->completed++;
	blox_hist_add(&s->lat, blox_clock_now(&s->vd.clock) - sl->t_sub);
	if (io->status) {
		if (s->io_errors++ < 10)
			fprintf(stderr, "IO ERROR: op %d lba %u nr %u status %d\n", io->op,
				io->lba, io->nr, io->status);
	} else if (io->op == FTL_IO_READ) {
		check_read(s, sl);
	} else if (io->op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < sl->nr; u++)
			s->shadow[sl->lba + u] = sl->ver[u];
	}
	if (s->kind == JOB_RANDW)
		sample_space(s);
	/* Refill this slot and any slot parked on an overlap. */
	for (uint32_t i = 0; i < s->qd; i++) {
		struct slot *o = &s->slots[i];

		if ((o == sl || o->parked) && !o->busy && s->submitted < s->to_submit)
			submit_slot(s, o);
	}
	if (s->inflight == 0 && s->submitted >= s->to_submit)
		s->done = true;
}

/*
 * Note on shadow updates: a write's versions are recorded at completion,
 * and overlapping writes are never in flight together, so the shadow is
 * exact whatever order the FTL completes them in.
 */

static void run_job(struct sim *s, enum job_kind kind, uint64_t n)
{
	s->kind = kind;
	s->to_submit = n;
	s->submitted = s->completed = s->inflight = 0;
	s->done = n == 0;
	blox_hist_reset(&s->lat);
	for (uint32_t i = 0; i < s->qd; i++)
		s->slots[i].parked = false;
	for (uint32_t i = 0; i < s->qd && s->submitted < s->to_submit; i++)
		submit_slot(s, &s->slots[i]);
	ftl_vdrive_run_until(&s->vd, s->f, &s->done);
	if (!s->done) {
		struct ftl_stats st;

		ftl_get_stats(s->f, &st);
		die("FTL HANG: job %d: %llu of %llu submitted, %llu in flight, nothing "
		    "pending in the NAND engine and no kick (free sb %llu, gc active %d, "
		    "write_wait %d, read_wait %d)",
		    kind, (unsigned long long)s->submitted,
		    (unsigned long long)s->to_submit, (unsigned long long)s->inflight,
		    (unsigned long long)st.free_superblocks, s->f->gc.active,
		    !TAILQ_EMPTY(&s->f->write_wait), !TAILQ_EMPTY(&s->f->read_wait));
	}
	if (s->bad || s->io_errors)
		die("DATA ERROR: %llu bad reads, %llu I/O errors",
		    (unsigned long long)s->bad, (unsigned long long)s->io_errors);
}

/* Let the FTL sit idle for @ns of virtual time, calling ftl_process. */
static void run_idle(struct sim *s, uint64_t ns)
{
	uint64_t end = blox_clock_now(&s->vd.clock) + ns;

	while (blox_clock_now(&s->vd.clock) < end) {
		uint64_t t = blox_clock_now(&s->vd.clock) + 100000; /* 100 us */

		ftl_vdrive_run(&s->vd, s->f, t < end ? t : end);
		ftl_process(s->f);
	}
	/* Settle whatever the last call started. */
	ftl_vdrive_run(&s->vd, s->f, blox_clock_now(&s->vd.clock) + 1000000);
}

static void fill(struct sim *s, uint32_t rand_every, int rand_mode)
{
	s->fill_ptr = 0;
	s->since_rand = 0;
	s->rand_every = rand_every;
	s->rand_mode = rand_mode;
	s->pending_rand = false;
	run_job(s, JOB_FILL, (s->cap + SEQ_UNITS - 1) / SEQ_UNITS);
	if (s->fill_ptr != s->cap)
		die("fill stopped at %u of %u", s->fill_ptr, s->cap);
}

/* ---- output ---- */

struct out {
	FILE *fp;
	char *buf;
	size_t len;
};

static void outf(struct out *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(o->fp, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void out_open(struct out *o, const char *name)
{
	char path[1024];

	if (O.out && O.exp)
		snprintf(path, sizeof(path), "%s", O.out);
	else
		snprintf(path, sizeof(path), "%s/%s", O.outdir, name);
	o->fp = fopen(path, "w");
	if (!o->fp)
		die("cannot write %s: %s", path, strerror(errno));
	fprintf(stderr, "writing %s\n", path);
}

static void machine(char *buf, size_t n)
{
	struct utsname u;
	char model[256] = "unknown CPU";
	FILE *fp = fopen("/proc/cpuinfo", "r");

	if (fp) {
		char line[512];

		while (fgets(line, sizeof(line), fp))
			if (!strncmp(line, "model name", 10)) {
				char *c = strchr(line, ':');

				if (c) {
					snprintf(model, sizeof(model), "%s", c + 2);
					model[strcspn(model, "\n")] = 0;
				}
				break;
			}
		fclose(fp);
	}
	uname(&u);
	snprintf(buf, n, "%s, Linux %s, single-threaded", model, u.release);
}

static void header(struct out *o, struct sim *s, const char *title)
{
	const struct nand_geometry *g = &s->nc.geo;
	const struct nand_timing *t = &s->nc.timing;
	const struct ftl *f = s->f;
	double raw = (double)nand_capacity(g);
	char m[512];

	machine(m, sizeof(m));
	outf(o, "# blox-sim: %s\n", title);
	outf(o, "# command: %s\n", O.cmdline);
	outf(o, "# machine: %s; virtual time (FTL CPU time is not modeled)\n", m);
	outf(o, "# device: %u ch x %u die/ch x %u plane x %u blocks x %u pages x %u KiB (+%u B OOB), TLC;"
		" raw %.0f MiB = 1/%.0f of the paper's 128 GiB\n",
	     g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
	     g->pages_per_block, g->page_size / 1024, g->oob_size, raw / MiB,
	     128.0 * 1024 * MiB / raw);
	outf(o, "# timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, bus %llu MB/s,"
		" default suspension policy, multi-plane groups %s\n",
	     (unsigned long long)t->t_read_ns[0] / 1000, (unsigned long long)t->t_read_ns[1] / 1000,
	     (unsigned long long)t->t_read_ns[2] / 1000, (unsigned long long)t->t_prog_ns[0] / 1000,
	     (unsigned long long)t->t_prog_ns[1] / 1000, (unsigned long long)t->t_prog_ns[2] / 1000,
	     (unsigned long long)t->t_erase_ns / 1000, (unsigned long long)t->bus_mbps,
	     g->planes_per_die == 1 ? "n/a (1 plane)" : s->nc.multiplane ? "on" : "off");
	outf(o, "# ftl: %u superblocks of %u units (%.0f MiB), 2 for checkpoints; capacity %u units"
		" (%.1f MiB), %u translation pages; op_permille %u\n",
	     f->nr_sb, f->units_per_sb, f->units_per_sb * 4096.0 / MiB, s->cap,
	     s->cap * 4096.0 / MiB, f->nr_tp, s->fc.op_permille);
	{
		struct ftl_config def;

		ftl_config_default(&def);
		outf(o, "# gc levels (permille of the %u spare superblocks): idle %u, background %u,"
			" foreground %u, urgent %u%s = %u/%u/%u/%u superblocks free;"
			" write buffer %u pages, volatile cache %s\n",
		     f->gc.spare, s->fc.gc_idle_permille, s->fc.gc_bg_permille,
		     s->fc.gc_fg_permille, s->fc.gc_urgent_permille,
		     s->fc.gc_bg_permille == def.gc_bg_permille &&
				     s->fc.gc_idle_permille == def.gc_idle_permille
			     ? " (FTL defaults)" : "",
		     f->gc.lvl_idle, f->gc.lvl_bg, f->gc.lvl_fg, f->gc.lvl_urgent,
		     s->fc.write_buffer_pages, s->fc.volatile_cache ? "on" : "off");
	}
}

static void budgets(struct out *o, struct sim *s)
{
	uint32_t tps = O.cmt_kib * 1024 / FTL_UNIT;
	uint32_t desc = O.mdc_bytes / FTL_MDC_DESC_BYTES;

	outf(o, "# budgets: CMT %u KiB%s = %u translation pages = %u MiB of LBA range; MDC %u B%s ="
		" %u descriptors of 10 B, min run %u\n",
	     O.cmt_kib, O.cmt_kib == 256 ? " (the paper's, not scaled)" : "", tps, tps * 4,
	     O.mdc_bytes, O.mdc_bytes == 2048 ? " (the paper's, not scaled)" : "", desc,
	     O.mdc_min_run);
	outf(o, "#   a run continuing a descriptor (LBA and PPN both) merges into it, so a descriptor"
		" spans up to %u units (%.0f MiB) across translation pages: the MDC can cover up to"
		" %u x %.0f MiB of sequentially written data\n",
	     FTL_MDC_MAX_RUN, FTL_MDC_MAX_RUN * 4096.0 / MiB, desc, FTL_MDC_MAX_RUN * 4096.0 / MiB);
	outf(o, "#   the knees sit at absolute LBA ranges set by the budgets; the sweep spans the"
		" capacity (%.0f MiB)\n",
	     s->cap * 4096.0 / MiB);
	outf(o, "# hot regions: %u (%.1f MiB each), hot_top %u (every region read can be hot; only the 64"
		" hottest are prefetched)\n",
	     O.hot_regions, s->cap * 4096.0 / MiB / O.hot_regions, O.hot_top);
}

/* ---- exp 1 and 2: read sweeps ---- */

struct point {
	uint64_t settle_ms;
	double hit, cmt, mdc, tp_per_read, kiops, mean_us, p99_us;
	uint64_t prefetched, gc_runs, mdc_count, mdc_cover;
};

/*
 * After a restart the streams' last superblocks (padded at shutdown) come
 * back as full, partly valid superblocks, which background GC collects:
 * let that finish while idle, so that no GC runs during the reads.
 * Returns the virtual ms it took.
 */
static uint64_t settle_gc(struct sim *s)
{
	uint64_t t0 = blox_clock_now(&s->vd.clock);
	uint64_t runs = s->f->st.gc_runs;

	for (int i = 0; i < 600; i++) {
		run_idle(s, 100000000ull); /* 100 ms */
		if (!ftl_gc_busy(s->f) && s->f->st.gc_runs == runs)
			break;
		runs = s->f->st.gc_runs;
	}
	return (blox_clock_now(&s->vd.clock) - t0) / 1000000;
}

static void measure_range(struct sim *s, const struct ftl_config *fc, uint32_t range,
			  struct point *p)
{
	struct ftl_stats a, b;
	uint64_t t0, t1;

	memset(p, 0, sizeof(*p));
	sim_restart(s, fc);
	p->settle_ms = settle_gc(s);
	s->range = range;
	run_job(s, JOB_READ, O.warmup);
	if (O.prefetch) {
		ftl_get_stats(s->f, &a);
		run_idle(s, O.idle_ms * 1000000ull);
		ftl_get_stats(s->f, &b);
		p->prefetched = b.prefetched_tps - a.prefetched_tps;
	}
	ftl_get_stats(s->f, &a);
	t0 = blox_clock_now(&s->vd.clock);
	run_job(s, JOB_READ, O.reads);
	t1 = blox_clock_now(&s->vd.clock);
	ftl_get_stats(s->f, &b);
	{
		/* Counted here: ftl_stats.host_reads was never counted at 550bb7a. */
		double reads = (double)s->completed;
		double miss = (double)(b.cmt_misses - a.cmt_misses);
		double mdc = (double)(b.mdc_hits - a.mdc_hits);

		p->hit = 100.0 * (1.0 - miss / reads);
		p->mdc = 100.0 * mdc / reads;
		p->cmt = p->hit - p->mdc;
		p->tp_per_read = (double)(b.flash_tp_reads - a.flash_tp_reads) / reads;
		p->kiops = (double)s->completed / ((double)(t1 - t0) * 1e-9) / 1000.0;
		p->mean_us = blox_hist_mean(&s->lat) / 1000.0;
		p->p99_us = (double)blox_hist_quantile(&s->lat, 0.99) / 1000.0;
		p->gc_runs = b.gc_runs - a.gc_runs;
	}
	if (getenv("BLOX_SIM_DEBUG"))
		fprintf(stderr, "measured: reads %llu cmt_hits +%llu cmt_misses +%llu mdc_lookups +%llu mdc_hits +%llu\n",
			(unsigned long long)s->completed, (unsigned long long)(b.cmt_hits - a.cmt_hits),
			(unsigned long long)(b.cmt_misses - a.cmt_misses),
			(unsigned long long)(b.mdc_lookups - a.mdc_lookups),
			(unsigned long long)(b.mdc_hits - a.mdc_hits));
	if (getenv("BLOX_SIM_DEBUG"))
		fprintf(stderr, "measured: tp units +%llu writebacks +%llu gc moved +%llu gc runs +%llu programs +%llu erases +%llu\n",
			(unsigned long long)(b.units_written_tp - a.units_written_tp),
			(unsigned long long)(b.cmt_writebacks - a.cmt_writebacks),
			(unsigned long long)(b.gc_units_moved - a.gc_units_moved),
			(unsigned long long)(b.gc_runs - a.gc_runs),
			(unsigned long long)(b.flash_programs - a.flash_programs),
			(unsigned long long)(b.flash_erases - a.flash_erases));
	p->mdc_count = ftl_mdc_stats(s->f->mdc)->count;
	p->mdc_cover = ftl_mdc_stats(s->f->mdc)->covered_lbas;
}

static void range_list(struct sim *s, uint32_t *ranges, uint32_t *n)
{
	*n = 0;
	for (uint32_t i = 0; i < O.nranges; i++) {
		uint64_t r = O.range_den[i] ? (uint64_t)s->cap * O.range_num[i] / O.range_den[i]
					    : (uint64_t)O.range_num[i] * 256; /* MiB */

		if (r < 1)
			r = 1;
		if (r > s->cap)
			r = s->cap;
		ranges[(*n)++] = (uint32_t)r;
	}
	/* Ascending, no repeats. */
	for (uint32_t i = 1; i < *n; i++)
		for (uint32_t j = i; j > 0 && ranges[j] < ranges[j - 1]; j--) {
			uint32_t t = ranges[j];

			ranges[j] = ranges[j - 1];
			ranges[j - 1] = t;
		}
	for (uint32_t i = 1; i < *n;)
		if (ranges[i] == ranges[i - 1]) {
			memmove(&ranges[i], &ranges[i + 1], (*n - i - 1) * sizeof(*ranges));
			(*n)--;
		} else {
			i++;
		}
}

static void sweep_header(struct out *o)
{
	outf(o, "# per point: restart the FTL (cold CMT/MDC/hot counters), idle until background GC of the superblocks\n"
		"#   the restart left partly written is done (settle), %llu warm-up reads, %s, then %llu"
		" measured reads; closed loop QD %u, 4 KiB, uniform over [0, range)\n",
	     (unsigned long long)O.warmup,
	     O.prefetch ? "an idle period with idle prefetch (cfg.idle_ns 50 ms, then ftl_process every"
			  " 100 us)"
			: "no idle period (prefetch not used)",
	     (unsigned long long)O.reads, O.qd);
	if (O.prefetch)
		outf(o, "#   idle period %llu ms of virtual time; pf = translation pages prefetched into the MDC\n",
		     (unsigned long long)O.idle_ms);
	outf(o, "# hit%% = mapping hit rate = 1 - dCMT_misses / reads over the measured 4 KiB reads: the share"
		" of 4 KiB read lookups\n"
		"#   resolved in SRAM (CMT or MDC) without a translation-page flash read. A read that finds its"
		" translation page\n"
		"#   already being loaded for another read counts as a hit here (it issues no flash read of its"
		" own), though\n"
		"#   the FTL's cmt_hits does not count it (nor a read resumed after its own load).\n");
	outf(o, "# mdc%% = dmdc_hits / reads; cmt%% = hit%% - mdc%%; tp/rd = translation-page flash reads"
		" per host read;\n"
		"# kIOPS = measured reads / virtual time; lat = submit->completion (mean, p99); desc/cov = MDC"
		" descriptors and MiB covered at the end;\n"
		"# gc = GC runs during the measured reads; every read was verified against the written data\n");
}

static void sweep_row_header(struct out *o, const char *label)
{
	outf(o, "%-22s %9s %6s %5s %7s %7s %7s %6s %8s %8s %8s %4s %7s %5s %3s\n", label, "range_MiB",
	     "frac", "TPs", "hit%", "cmt%", "mdc%", "tp/rd", "kIOPS", "lat_us", "p99_us", "desc",
	     "cov_MiB", "pf", "gc");
}

static void sweep(struct out *o, struct sim *s, const char *label, bool mdc)
{
	uint32_t ranges[MAX_RANGES], n;
	struct ftl_config fc = s->fc;

	fc.mdc_enabled = mdc;
	range_list(s, ranges, &n);
	for (uint32_t i = 0; i < n; i++) {
		struct point p;
		double w0 = wall_now();

		measure_range(s, &fc, ranges[i], &p);
		outf(o, "%-22s %9.0f %6.4f %5u %7.2f %7.2f %7.2f %6.3f %8.2f %8.1f %8.1f %4llu %7.0f %5llu %3llu\n",
		     label, ranges[i] * 4096.0 / MiB, (double)ranges[i] / s->cap,
		     (ranges[i] + FTL_TP_ENTRIES - 1) / FTL_TP_ENTRIES, p.hit, p.cmt, p.mdc,
		     p.tp_per_read, p.kiops, p.mean_us, p.p99_us, (unsigned long long)p.mdc_count,
		     p.mdc_cover * 4096.0 / MiB, (unsigned long long)p.prefetched,
		     (unsigned long long)p.gc_runs);
		fprintf(stderr, "  [%.1f s wall, GC settle %llu ms virtual]\n", wall_now() - w0,
			(unsigned long long)p.settle_ms);
	}
}

static void fill_report(struct out *o, struct sim *s, const char *what, double wall)
{
	struct ftl_stats st;

	const struct nand_stats *ns = nand_dev_stats(s->dev);
	double vs = blox_clock_now(&s->vd.clock) * 1e-9;

	ftl_get_stats(s->f, &st);
	outf(o, "# fill (%s): %llu units host, %llu translation-page units, %llu padded, %llu GC"
		" moved; %.1f s virtual (%.1f MiB/s), %.1f s wall; free superblocks after: %llu of %llu;"
		" multi-plane program groups %llu\n",
	     what, (unsigned long long)st.units_written_host,
	     (unsigned long long)st.units_written_tp, (unsigned long long)st.units_padded,
	     (unsigned long long)st.gc_units_moved, vs,
	     vs > 0 ? st.units_written_host * 4096.0 / MiB / vs : 0.0, wall,
	     (unsigned long long)st.free_superblocks, (unsigned long long)st.superblocks,
	     (unsigned long long)ns->mp_groups[NAND_OP_PROGRAM]);
}

static void run_exp1(void)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct ftl_config fc;
	struct out o;
	double w0 = wall_now(), w;

	base_config(&fc);
	fc.stream_separation = O.sep != 0;
	gc_levels(&fc);
	sim_open(s, &fc);
	out_open(&o, "ftl_exp1.txt");
	header(&o, s, "experiment 1: sequential fill, then 4 KiB random reads over growing LBA ranges");
	budgets(&o, s);
	outf(&o, "# fill: the whole capacity in 128 KiB sequential writes, QD %u; stream separation %s\n",
	     O.qd, fc.stream_separation ? "on" : "off");
	fill(s, 0, 0);
	w = wall_now() - w0;
	/* Let background/idle GC settle before the first restart. */
	run_idle(s, 2000000000ull);
	fill_report(&o, s, "sequential", w);
	sweep_header(&o);
	sweep_row_header(&o, "# config");
	if (O.mdc != 1)
		sweep(&o, s, "DFTL", false);
	if (O.mdc != 0)
		sweep(&o, s, "DFTL+MDC", true);
	outf(&o, "# wall time: %.1f s\n", wall_now() - w0);
	fclose(o.fp);
	sim_close(s);
	free(s);
}

static void run_exp2(void)
{
	struct out o;
	double w0 = wall_now();
	bool first = true;

	out_open(&o, "ftl_exp2.txt");
	for (int mode = 0; mode < 2; mode++) {
		if (O.rand_lba != 2 && O.rand_lba != mode)
			continue;
		for (int sep = 1; sep >= 0; sep--) {
			struct sim *s;
			struct ftl_config fc;
			char label[64];
			double w1 = wall_now();

			if (O.sep != 2 && O.sep != sep)
				continue;
			s = calloc(1, sizeof(*s));
			base_config(&fc);
			fc.stream_separation = sep;
			gc_levels(&fc);
			sim_open(s, &fc);
			if (first) {
				header(&o, s, "experiment 2: sequential fill with one random 4 KiB write"
					      " after every 1 MiB, then random reads over growing ranges");
				budgets(&o, s);
				outf(&o, "# fill: 128 KiB sequential writes over the whole capacity, and after"
					 " every 1 MiB (256 units) of them one 4 KiB write to a random LBA, QD %u\n",
				     O.qd);
				outf(&o, "#   rand=uniform: the random LBA is uniform over the capacity (it also"
					 " overwrites, and so splits, LBA runs already filled)\n");
				outf(&o, "#   rand=ahead: uniform over the LBAs the fill has not reached yet (the fill"
					 " overwrites them later: only the physical interleaving remains)\n");
				outf(&o, "#   sep=on: stream separation (a 4 KiB write goes to the random stream);"
					 " sep=off: every host write into one open superblock\n");
				sweep_header(&o);
				sweep_row_header(&o, "# config");
				first = false;
			}
			fill(s, 256, mode);
			run_idle(s, 2000000000ull);
			snprintf(label, sizeof(label), "%s sep=%s", mode ? "ahead" : "uniform",
				 sep ? "on" : "off");
			fill_report(&o, s, label, wall_now() - w1);
			if (O.mdc != 1) {
				snprintf(label, sizeof(label), "%s,%s,DFTL", mode ? "ahead" : "unif",
					 sep ? "sep" : "nosep");
				sweep(&o, s, label, false);
			}
			if (O.mdc != 0) {
				snprintf(label, sizeof(label), "%s,%s,MDC", mode ? "ahead" : "unif",
					 sep ? "sep" : "nosep");
				sweep(&o, s, label, true);
			}
			sim_close(s);
			free(s);
		}
	}
	outf(&o, "# wall time: %.1f s\n", wall_now() - w0);
	fclose(o.fp);
}

/* ---- exp 3: write amplification ---- */

/* Principal branch of Lambert W on [-1/e, 0). */
static double lambert_w0(double x)
{
	double w = x < -0.32 ? -1.0 + sqrt(2.0 * (1.0 + M_E * x)) : x; /* start */

	for (int i = 0; i < 100; i++) {
		double e = exp(w), fw = w * e - x;
		double step = fw / (e * (w + 1.0) - (w + 2.0) * fw / (2.0 * w + 2.0));

		w -= step;
		if (fabs(step) < 1e-14)
			break;
	}
	return w;
}

/* Greedy ~ LRW mean field (Desnoyers 2012): alpha = physical / logical. */
static double waf_fixed_point(double alpha)
{
	if (alpha <= 1.0)
		return INFINITY;
	return alpha / (alpha + lambert_w0(-alpha * exp(-alpha)));
}

static double waf_approx(double rho)
{
	return rho <= 0 ? INFINITY : (1.0 + rho) / (2.0 * rho);
}

/* The alpha at which the fixed point gives @waf (bisection). */
static double alpha_implied(double waf)
{
	double lo = 1.0 + 1e-9, hi = 20.0;

	if (!(waf > 1.0))
		return NAN;
	for (int i = 0; i < 200; i++) {
		double mid = 0.5 * (lo + hi);

		if (waf_fixed_point(mid) > waf)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static void waf_table(struct out *o, uint32_t cmt_kib, const char *title, bool *first)
{
	outf(o, "## %s\n", title);
	outf(o, "%-5s %-6s %7s %5s %7s %7s %5s %5s %7s %7s %7s %7s %6s %6s %7s %7s %7s %7s %7s %6s %7s\n",
	     "op", "gc", "cap_MiB", "TPs", "rho_nom", "a_phys", "free", "open", "a_eff", "waf_all",
	     "waf", "waf_gc", "tp/w", "gctp/w", "apx_ph", "fxp_ph", "apx_ef", "fxp_ef", "a_impl",
	     "gcruns", "wall_s");
	for (uint32_t k = 0; k < O.nops; k++) {
		for (int pol = 0; pol < 2; pol++) {
			struct sim *s;
			struct ftl_config fc;
			struct ftl_stats a, b, c;
			double w1 = wall_now(), alpha_phys, alpha_eff, rho_nom, free_avg, open_avg;
			uint64_t total, last;
			double waf_all, waf_last, waf_gc_last, tp_last, gctp_last, v0, v1;

			if (O.gc != 2 && O.gc != pol)
				continue;
			s = calloc(1, sizeof(*s));
			base_config(&fc);
			fc.cmt_bytes = cmt_kib * 1024;
			fc.op_permille = O.ops[k];
			fc.gc_policy = pol ? FTL_GC_COST_BENEFIT : FTL_GC_GREEDY;
			gc_levels(&fc);
			sim_open(s, &fc);
			if (*first) {
				header(o, s, "experiment 3: write amplification vs over-provisioning, uniform"
					     " random 4 KiB writes");
				outf(o, "#   (the header's capacity is for the first row; each row is a fresh device"
					" with its op_permille)\n");
				outf(o, "# per row: sequential fill of the capacity, then %.1f x capacity of uniform"
					" random 4 KiB writes (QD %u, no two in flight to one LBA);\n"
					"#   then %u random LBAs read back and verified\n",
				     O.write_x, O.qd, 65536u);
				outf(o, "# spare: op_permille is taken of the space left after 2 checkpoint + 4"
					" open-stream + 1 GC superblocks, so the flash spare is larger:\n");
				outf(o, "#   a_phys = (superblocks - 2) x units_per_sb / capacity (all non-checkpoint"
					" flash over the host capacity)\n");
				outf(o, "#   a_eff  = a_phys minus what GC cannot use as spare, as time averages over"
					" the measured writes: the free superblocks\n"
					"#            (free; GC keeps them at its levels, host writes are paced"
					" below the foreground one) and the unwritten part of the open superblocks\n"
					"#            (open), and the valid translation pages (TPs)\n");
				outf(o, "# formulas for greedy under uniform random writes, rho = alpha - 1:\n");
				outf(o, "#   apx  = (1 + rho) / (2 rho)  (Hu et al. 2009 / Desnoyers 2012 approximation)\n");
				outf(o, "#   fxp  = alpha / (alpha + W0(-alpha e^-alpha))  (mean-field fixed point of LRW"
					" cleaning, which greedy approaches for large blocks;\n"
					"#          Desnoyers 2012); _ph at a_phys, _ef at a_eff; a_impl = the alpha at"
					" which fxp equals the measured waf_gc\n");
				outf(o, "# measured over the last 1 x capacity of random writes (steady state); waf_all"
					" over all %.1f x:\n", O.write_x);
				outf(o, "#   waf    = flash units programmed (host + GC + translation pages + padding)"
					" / host units (ftl_waf's definition, counter deltas)\n");
				outf(o, "#   waf_gc = (host + GC-moved units, data and translation pages) / host units:"
					" what the formulas model\n");
				outf(o, "#   tp/w   = translation-page units written (CMT write-backs) per host unit;"
					" gctp/w = of which GC batches wrote back\n");
				*first = false;
			}
			fill(s, 0, 0);
			ftl_get_stats(s->f, &a);
			total = (uint64_t)(O.write_x * s->cap);
			last = s->cap < total ? s->cap : total;
			s->free_sum = s->open_sum = 0;
			s->samples = 0;
			run_job(s, JOB_RANDW, total - last);
			ftl_get_stats(s->f, &b);
			s->free_sum = s->open_sum = 0;
			s->samples = 0;
			run_job(s, JOB_RANDW, last);
			ftl_get_stats(s->f, &c);
			free_avg = s->free_sum / (double)(s->samples ? s->samples : 1);
			open_avg = s->open_sum / (double)(s->samples ? s->samples : 1);
			v0 = (double)(c.units_written_host + c.units_written_gc + c.units_written_tp +
				      c.units_padded - a.units_written_host - a.units_written_gc -
				      a.units_written_tp - a.units_padded);
			waf_all = v0 / (double)(c.units_written_host - a.units_written_host);
			v1 = (double)(c.units_written_host + c.units_written_gc + c.units_written_tp +
				      c.units_padded - b.units_written_host - b.units_written_gc -
				      b.units_written_tp - b.units_padded);
			waf_last = v1 / (double)(c.units_written_host - b.units_written_host);
			waf_gc_last = (double)(c.units_written_host + c.units_written_gc -
					       b.units_written_host - b.units_written_gc) /
				      (double)(c.units_written_host - b.units_written_host);
			tp_last = (double)(c.units_written_tp - b.units_written_tp) /
				  (double)(c.units_written_host - b.units_written_host);
			gctp_last = (double)(c.gc_tp_writebacks - b.gc_tp_writebacks) /
				    (double)(c.units_written_host - b.units_written_host);
			rho_nom = O.ops[k] / (1000.0 - O.ops[k]);
			alpha_phys = (double)(s->f->nr_sb - FTL_CKPT_SBS) * s->f->units_per_sb / s->cap;
			alpha_eff = ((double)(s->f->nr_sb - FTL_CKPT_SBS) - free_avg - open_avg) *
					    s->f->units_per_sb / s->cap -
				    (double)s->f->nr_tp / s->cap;
			if (getenv("BLOX_SIM_DEBUG"))
				fprintf(stderr, "debug: padded %llu (+%llu last), tp pages held %llu, programs %llu, gc moved %llu, gc tp wb %llu, cmt wb %llu\n",
					(unsigned long long)c.units_padded,
					(unsigned long long)(c.units_padded - b.units_padded),
					(unsigned long long)c.tp_pages_held,
					(unsigned long long)c.flash_programs,
					(unsigned long long)c.gc_units_moved,
					(unsigned long long)c.gc_tp_writebacks,
					(unsigned long long)c.cmt_writebacks);
			/* Read a sample back. */
			s->range = s->cap;
			run_job(s, JOB_READ, 65536);
			outf(o, "%-5u %-6s %7.0f %5u %7.3f %7.3f %5.1f %5.2f %7.3f %7.3f %7.3f %7.3f %6.3f %6.3f %7.3f %7.3f %7.3f %7.3f %7.3f %6llu %7.1f\n",
			     O.ops[k], pol ? "cb" : "greedy", s->cap * 4096.0 / MiB, s->f->nr_tp, rho_nom,
			     alpha_phys, free_avg, open_avg, alpha_eff, waf_all, waf_last, waf_gc_last,
			     tp_last, gctp_last, waf_approx(alpha_phys - 1), waf_fixed_point(alpha_phys),
			     waf_approx(alpha_eff - 1), waf_fixed_point(alpha_eff),
			     alpha_implied(waf_gc_last), (unsigned long long)(c.gc_runs - a.gc_runs),
			     wall_now() - w1);
			sim_close(s);
			free(s);
		}
	}
}

static void run_exp3(void)
{
	struct out o;
	double w0 = wall_now();
	bool first = true;
	uint64_t keep_raw = O.raw_mib;
	uint32_t keep_ppb = O.ppb;
	char title[256];

	/* A smaller device than exp 1/2: GC-heavy runs cost CPU per unit moved. */
	O.raw_mib = O.waf_raw_mib;
	O.ppb = O.waf_ppb;
	out_open(&o, "ftl_waf.txt");
	snprintf(title, sizeof(title), "A: DFTL as configured, CMT %u KiB (%u translation pages)",
		 O.cmt_kib, O.cmt_kib / 4);
	waf_table(&o, O.cmt_kib, title, &first);
	if (O.waf_control) {
		snprintf(title, sizeof(title),
			 "B: control, CMT %u KiB: every translation page stays cached, so no CMT"
			 " write-backs; GC alone, as the formulas assume", O.waf_control_kib);
		waf_table(&o, O.waf_control_kib, title, &first);
	}
	outf(&o, "# wall time: %.1f s\n", wall_now() - w0);
	fclose(o.fp);
	O.raw_mib = keep_raw;
	O.ppb = keep_ppb;
}

/* ---- command line ---- */

static void usage(void)
{
	printf(
		"usage: blox-sim [options]\n"
		"  --exp 1|2|3|all        experiment (default all)\n"
		"  --raw-mib N            raw flash in MiB (default 4096)\n"
		"  --channels N --dies N --planes N --ppb N --page-kib N\n"
		"                         geometry (default 4, 1, 1, 384, 16); blocks/plane from --raw-mib\n"
		"  --cmt-kib N            CMT budget (default 256)\n"
		"  --mdc-bytes N          MDC budget (default 2048)   --mdc-min-run N (default 32)\n"
		"  --mdc on|off|both      exp 1/2 configurations (default both)\n"
		"  --sep on|off|both      stream separation (exp 1 default on, exp 2 default both)\n"
		"  --rand-lba uniform|ahead|both  exp 2 random-write targets (default both)\n"
		"  --hot-regions N        (default 128)   --hot-top N (default = hot regions)\n"
		"  --op N                 exp 1/2 op_permille (default 70)\n"
		"  --ops a,b,...          exp 3 op_permille list (default 70,100,150,200,280)\n"
		"  --waf-raw-mib N --waf-ppb N  exp 3 device: raw MiB and pages per block (default 1024, 96)\n"
		"  --waf-control on|off   exp 3: also a table with a CMT holding every TP (default on)\n"
		"  --waf-control-kib N    that CMT (default 4096; must hold every translation page)\n"
		"  --gc greedy|cb|both    exp 3 GC policies (default both)\n"
		"  --write-x X            exp 3 random writes, x capacity (default 3)\n"
		"  --qd N                 queue depth (default 32)\n"
		"  --reads N              measured reads per point (default 100000)\n"
		"  --warmup N             warm-up reads per point (default 32768)\n"
		"  --prefetch on|off      idle period with idle prefetch after warm-up (default on)\n"
		"  --multiplane on|off    NAND multi-plane program/erase groups (default on)\n"
		"  --idle-ms N            idle period, virtual ms (default 200)\n"
		"  --ranges a/b|NM,...    read ranges as fractions of capacity or N MiB\n"
		"                         (default 1/64,1/32,1/16,256M,1/8,3/16,1/4,1072M,5/16,3/8,1/2,3/4,1)\n"
		"  --gc-bg N --gc-idle N  GC background/idle levels, permille of the spare superblocks\n"
		"                         (default: the FTL's, ftl.h)\n"
		"  --seed N               RNG seed (default 1)\n"
		"  --out FILE             output file (with a single --exp)\n"
		"  --outdir DIR           output directory (default docs/results)\n");
}

static int onoff(const char *v)
{
	if (!strcmp(v, "on"))
		return 1;
	if (!strcmp(v, "off"))
		return 0;
	if (!strcmp(v, "both"))
		return 2;
	die("expected on|off|both, got %s", v);
	return 0;
}

static void parse_ranges(const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	O.nranges = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned a, b = 1;
		char *end;

		if (O.nranges == MAX_RANGES)
			die("too many ranges");
		a = (unsigned)strtoul(tok, &end, 10);
		if (*end == 'M' && a) {
			b = 0;
		} else if (sscanf(tok, "%u/%u", &a, &b) < 1 || !a || !b || a > b) {
			die("bad range %s", tok);
		}
		O.range_num[O.nranges] = a;
		O.range_den[O.nranges++] = b;
	}
	free(copy);
}

static void parse_ops(const char *v)
{
	char *copy = strdup(v), *tok, *save = NULL;

	O.nops = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (O.nops == 16)
			die("too many --ops");
		O.ops[O.nops] = (uint32_t)strtoul(tok, NULL, 0);
		if (O.ops[O.nops] >= 1000)
			die("bad op_permille %s", tok);
		O.nops++;
	}
	free(copy);
}

int main(int argc, char **argv)
{
	int sep_set = 0, hot_top_set = 0;
	size_t len = 0;

	O = (struct opts){ .raw_mib = 4096, .waf_raw_mib = 1024, .waf_ppb = 96,
			   .waf_control = true, .waf_control_kib = 4096, .channels = 4, .dies = 1, .planes = 1, .ppb = 384,
			   .page_size = 16384, .cmt_kib = 256, .mdc_bytes = 2048, .mdc_min_run = 32,
			   .hot_regions = 128, .mdc = 2, .sep = 2, .rand_lba = 2, .op_permille = 70,
			   .qd = 32, .reads = 100000, .warmup = 32768, .prefetch = true, .multiplane = true,
			   .idle_ms = 200, .write_x = 3.0, .gc = 2, .seed = 1, .gc_bg = -1,
			   .gc_idle = -1,
			   .outdir = "docs/results" };
	parse_ops("70,100,150,200,280");
	parse_ranges("1/64,1/32,1/16,256M,1/8,3/16,1/4,1072M,5/16,3/8,1/2,3/4,1");
	for (int i = 0; i < argc; i++) {
		int n = snprintf(O.cmdline + len, sizeof(O.cmdline) - len, "%s%s", i ? " " : "",
				 argv[i]);

		if (n < 0 || (size_t)n >= sizeof(O.cmdline) - len)
			break;
		len += (size_t)n;
	}
	for (int i = 1; i < argc; i++) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(k, "--help") || !strcmp(k, "-h")) {
			usage();
			return 0;
		}
		if (!v)
			die("%s needs a value (--help)", k);
		i++;
		if (!strcmp(k, "--exp"))
			O.exp = strcmp(v, "all") ? atoi(v) : 0;
		else if (!strcmp(k, "--raw-mib"))
			O.raw_mib = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--waf-raw-mib"))
			O.waf_raw_mib = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--waf-control"))
			O.waf_control = onoff(v) == 1;
		else if (!strcmp(k, "--waf-control-kib"))
			O.waf_control_kib = (uint32_t)atoi(v);
		else if (!strcmp(k, "--waf-ppb"))
			O.waf_ppb = (uint32_t)atoi(v);
		else if (!strcmp(k, "--channels"))
			O.channels = (uint32_t)atoi(v);
		else if (!strcmp(k, "--dies"))
			O.dies = (uint32_t)atoi(v);
		else if (!strcmp(k, "--planes"))
			O.planes = (uint32_t)atoi(v);
		else if (!strcmp(k, "--ppb"))
			O.ppb = (uint32_t)atoi(v);
		else if (!strcmp(k, "--page-kib"))
			O.page_size = (uint32_t)atoi(v) * 1024;
		else if (!strcmp(k, "--cmt-kib"))
			O.cmt_kib = (uint32_t)atoi(v);
		else if (!strcmp(k, "--mdc-bytes"))
			O.mdc_bytes = (uint32_t)atoi(v);
		else if (!strcmp(k, "--mdc-min-run"))
			O.mdc_min_run = (uint32_t)atoi(v);
		else if (!strcmp(k, "--mdc"))
			O.mdc = onoff(v);
		else if (!strcmp(k, "--sep")) {
			O.sep = onoff(v);
			sep_set = 1;
		} else if (!strcmp(k, "--rand-lba"))
			O.rand_lba = !strcmp(v, "uniform") ? 0 : !strcmp(v, "ahead") ? 1 : 2;
		else if (!strcmp(k, "--hot-regions"))
			O.hot_regions = (uint32_t)atoi(v);
		else if (!strcmp(k, "--hot-top")) {
			O.hot_top = (uint32_t)atoi(v);
			hot_top_set = 1;
		} else if (!strcmp(k, "--op"))
			O.op_permille = (uint32_t)atoi(v);
		else if (!strcmp(k, "--ops"))
			parse_ops(v);
		else if (!strcmp(k, "--gc"))
			O.gc = !strcmp(v, "greedy") ? 0 : !strcmp(v, "cb") ? 1 : 2;
		else if (!strcmp(k, "--write-x"))
			O.write_x = atof(v);
		else if (!strcmp(k, "--qd"))
			O.qd = (uint32_t)atoi(v);
		else if (!strcmp(k, "--reads"))
			O.reads = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--warmup"))
			O.warmup = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--prefetch"))
			O.prefetch = onoff(v) == 1;
		else if (!strcmp(k, "--multiplane"))
			O.multiplane = onoff(v) == 1;
		else if (!strcmp(k, "--idle-ms"))
			O.idle_ms = strtoull(v, NULL, 0);
		else if (!strcmp(k, "--ranges"))
			parse_ranges(v);
		else if (!strcmp(k, "--gc-bg"))
			O.gc_bg = atoi(v);
		else if (!strcmp(k, "--gc-idle"))
			O.gc_idle = atoi(v);
		else if (!strcmp(k, "--seed"))
			O.seed = strtoull(v, NULL, 0) | 1;
		else if (!strcmp(k, "--out"))
			O.out = v;
		else if (!strcmp(k, "--outdir"))
			O.outdir = v;
		else
			die("unknown option %s (--help)", k);
	}
	if (!hot_top_set)
		O.hot_top = O.hot_regions;
	if (O.qd == 0 || O.qd > MAX_QD)
		die("--qd must be 1..%u", MAX_QD);
	if (O.out && !O.exp)
		die("--out needs a single --exp");
	if (O.exp == 0 || O.exp == 1) {
		int keep = O.sep;

		if (!sep_set)
			O.sep = 1;
		if (O.sep == 2)
			die("exp 1 takes --sep on or off");
		run_exp1();
		O.sep = keep;
	}
	if (O.exp == 0 || O.exp == 2)
		run_exp2();
	if (O.exp == 0 || O.exp == 3)
		run_exp3();
	return 0;
}
