/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim, one simulated device: the NAND device in RAM, the FTL on it
 * driven by the virtual-time driver (ftl/vdrive.c), and the closed loop
 * that keeps the options' queue depth of 4 KiB reads, 128 KiB sequential
 * fill writes or 4 KiB random writes in flight. Every write carries a
 * header (magic, LBA, version) in each 4 KiB unit, the versions are kept
 * in a shadow map, and every read is checked against it.
 *
 * The FTL is stopped cleanly and recreated (recovery from the checkpoint)
 * by sim_restart, so a measurement can start with cold caches.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim.h"

void sim_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "blox-sim: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

double sim_wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- device ---- */

static void make_geometry(struct nand_geometry *g, const struct sim_opts *o)
{
	uint64_t per_block;

	nand_geometry_default(g);
	g->channels = o->channels;
	g->dies_per_channel = o->dies;
	g->planes_per_die = o->planes;
	g->pages_per_block = o->ppb;
	g->page_size = o->page_size;
	g->oob_size = 1024;
	g->cell = NAND_TLC;
	per_block = (uint64_t)o->channels * o->dies * o->planes * o->ppb * o->page_size;
	g->blocks_per_plane = (uint32_t)(o->raw_mib * 1024 * 1024 / per_block);
}

/*
 * GC levels: the FTL's defaults (permille of the spare superblocks, which
 * a full device reaches on any op_permille, and GC stops when nothing is
 * worth collecting) unless --gc-bg / --gc-idle say otherwise.
 */
void sim_gc_levels(struct ftl_config *fc, const struct sim_opts *o)
{
	if (o->gc_bg >= 0)
		fc->gc_bg_permille = (uint32_t)o->gc_bg;
	if (o->gc_idle >= 0)
		fc->gc_idle_permille = (uint32_t)o->gc_idle;
}

void sim_base_config(struct ftl_config *fc, const struct sim_opts *o)
{
	ftl_config_default(fc);
	fc->cmt_bytes = o->cmt_kib * 1024;
	fc->mdc_bytes = o->mdc_bytes;
	fc->mdc_min_run = o->mdc_min_run;
	fc->hot_regions = o->hot_regions;
	fc->hot_top = o->hot_top;
	fc->op_permille = o->op_permille;
	fc->plane_groups = o->plane_groups;
}

void sim_open(struct sim *s, const struct sim_opts *o, const struct ftl_config *fc)
{
	const char *why;
	int rc;

	memset(s, 0, sizeof(*s));
	s->o = o;
	nand_config_default(&s->nc);
	s->nc.multiplane = o->multiplane;
	make_geometry(&s->nc.geo, o);
	if (nand_geometry_check(&s->nc.geo, &why))
		sim_die("geometry: %s", why);
	sim_nand_open(&s->nc, &s->store, &s->dev);
	ftl_vdrive_init(&s->vd, s->dev, s->store);
	s->fc = *fc;
	s->res.nr_dies = s->nc.geo.channels * s->nc.geo.dies_per_channel;
	if (s->res.nr_dies > BLOX_FTL_MAX_DIES)
		sim_die("too many dies");
	for (uint32_t i = 0; i < s->res.nr_dies; i++)
		s->res.dies[i] = i;
	s->res.first_block = 0;
	s->res.nr_blocks = s->nc.geo.blocks_per_plane;
	if ((rc = ftl_create(&s->fc, &s->vd.env, &s->res, &s->f)))
		sim_die("ftl_create: %d", rc);
	ftl_inspect_layout(s->f, &s->lay);
	s->cap = ftl_capacity(s->f);
	s->shadow = calloc(s->cap, sizeof(*s->shadow));
	s->qd = o->qd;
	s->rng = o->seed;
	for (uint32_t i = 0; i < s->qd; i++) {
		s->slots[i].s = s;
		s->slots[i].buf = calloc(SIM_SEQ_UNITS, FTL_UNIT);
		if (!s->slots[i].buf)
			sim_die("out of memory");
	}
	if (!s->shadow)
		sim_die("out of memory");
}

static void shutdown_cb(void *arg, int status)
{
	int *st = arg;

	*st = status;
}

static void sim_stop_ftl(struct sim *s)
{
	int status = 1;

	if (ftl_shutdown(s->f, shutdown_cb, &status))
		sim_die("ftl_shutdown refused");
	/* The callback sets status; run until it did or nothing is left. */
	while (status == 1) {
		if (!s->vd.kicked && nand_next_event(s->dev) == UINT64_MAX)
			sim_die("shutdown hangs: no event pending, callback not called");
		ftl_vdrive_run(&s->vd, s->f, blox_clock_now(&s->vd.clock) + 1000000);
	}
	if (status)
		sim_die("shutdown status %d", status);
	ftl_destroy(s->f);
	s->f = NULL;
}

/* Clean stop, then start again with @fc (recovery from the checkpoint). */
void sim_restart(struct sim *s, const struct ftl_config *fc)
{
	int rc;

	sim_stop_ftl(s);
	s->fc = *fc;
	if ((rc = ftl_create(&s->fc, &s->vd.env, &s->res, &s->f)))
		sim_die("ftl_create (restart): %d", rc);
	if (ftl_capacity(s->f) != s->cap)
		sim_die("capacity changed across restart");
	ftl_inspect_layout(s->f, &s->lay);
	if (s->o->debug) {
		struct ftl_stats st;

		ftl_get_stats(s->f, &st);
		fprintf(stderr, "restart: free sb %llu, gc runs %llu moved %llu, tp units %llu padded %llu\n",
			(unsigned long long)st.free_superblocks, (unsigned long long)st.gc_runs,
			(unsigned long long)st.gc_units_moved, (unsigned long long)st.units_written_tp,
			(unsigned long long)st.units_padded);
	}
}

void sim_close(struct sim *s)
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
		const struct sim_slot *o = &s->slots[i];

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
	case SIM_JOB_READ:
		*op = FTL_IO_READ;
		*lba = (uint32_t)(sim_rnd(&s->rng) % s->range);
		*nr = 1;
		return true;
	case SIM_JOB_RANDW:
		*op = FTL_IO_WRITE;
		*nr = 1;
		for (int tries = 0; tries < 64; tries++) {
			*lba = (uint32_t)(sim_rnd(&s->rng) % s->cap);
			if (!overlaps(s, *lba, 1))
				return true;
		}
		return false;
	case SIM_JOB_FILL:
		*op = FTL_IO_WRITE;
		if (s->pending_rand) {
			*nr = 1;
			for (int tries = 0; tries < 64; tries++) {
				if (s->rand_mode == 1 && s->fill_ptr < s->cap)
					*lba = s->fill_ptr +
					       (uint32_t)(sim_rnd(&s->rng) % (s->cap - s->fill_ptr));
				else
					*lba = (uint32_t)(sim_rnd(&s->rng) % s->cap);
				if (!overlaps(s, *lba, 1)) {
					s->pending_rand = false;
					return true;
				}
			}
			return false;
		}
		*lba = s->fill_ptr;
		*nr = s->cap - s->fill_ptr < SIM_SEQ_UNITS ? s->cap - s->fill_ptr : SIM_SEQ_UNITS;
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

static void submit_slot(struct sim *s, struct sim_slot *sl)
{
	enum ftl_io_op op;
	uint32_t lba, nr;
	int rc;

	if (!next_op(s, &op, &lba, &nr)) {
		sl->parked = true;
		return;
	}
	sl->parked = false;
	sl->io = (struct ftl_io){ .op = op, .lba = lba, .nr = nr, .buf = sl->buf, .cb = io_done,
				   .cb_arg = sl };
	sl->lba = lba;
	sl->nr = nr;
	if (op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < nr; u++) {
			sl->ver[u] = ++s->next_ver;
			sim_stamp_unit(sl->buf + (size_t)u * FTL_UNIT, lba + u, sl->ver[u]);
		}
	}
	sl->busy = true;
	sl->t_sub = blox_clock_now(&s->vd.clock);
	s->submitted++;
	s->inflight++;
	if ((rc = ftl_submit(s->f, &sl->io)))
		sim_die("ftl_submit: %d (lba %u nr %u)", rc, lba, nr);
}

static void check_read(struct sim *s, struct sim_slot *sl)
{
	for (uint32_t u = 0; u < sl->nr; u++) {
		const uint32_t *h = (const uint32_t *)(sl->buf + (size_t)u * FTL_UNIT);
		uint32_t lba = sl->lba + u, want = s->shadow[lba];

		if (!sim_unit_is((const uint8_t *)h, lba, want) && s->bad++ < 10)
			fprintf(stderr,
				"VERIFY: lba %u: got magic %08x lba %u ver %u, want ver %u\n",
				lba, h[0], h[1], h[2], want);
	}
}

static void sample_space(struct sim *s)
{
	uint32_t ups = s->lay.units_per_sb;
	uint64_t open_left = 0;
	struct ftl_stream_info si;
	struct ftl_activity a;

	for (int st = 0; st < FTL_STREAMS; st++) {
		ftl_inspect_stream(s->f, st, &si);
		if (si.sb >= 0)
			open_left += ups - si.next;
	}
	ftl_inspect_activity(s->f, &a);
	s->free_sum += a.free_sbs;
	s->open_sum += (double)open_left / ups;
	s->samples++;
}

static void io_done(struct ftl_io *io)
{
	struct sim_slot *sl = io->cb_arg;
	struct sim *s = sl->s;

	if (s->cut)
		return; /* its host is gone: sim_drop_inflight() forgets it */
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
	if (s->kind == SIM_JOB_RANDW)
		sample_space(s);
	/* Refill this slot and any slot parked on an overlap. */
	for (uint32_t i = 0; i < s->qd; i++) {
		struct sim_slot *o = &s->slots[i];

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

void sim_run_job(struct sim *s, enum sim_job kind, uint64_t n)
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
		struct ftl_activity a;
		struct ftl_gc_info g;

		ftl_get_stats(s->f, &st);
		ftl_inspect_activity(s->f, &a);
		ftl_inspect_gc(s->f, &g);
		sim_die("FTL HANG: job %d: %llu of %llu submitted, %llu in flight, nothing "
		    "pending in the NAND engine and no kick (free sb %llu, gc active %d, "
		    "write_wait %d, read_wait %d)",
		    kind, (unsigned long long)s->submitted,
		    (unsigned long long)s->to_submit, (unsigned long long)s->inflight,
		    (unsigned long long)st.free_superblocks, g.active, a.write_waiting > 0,
		    a.read_waiting > 0);
	}
	if (s->bad || s->io_errors)
		sim_die("DATA ERROR: %llu bad reads, %llu I/O errors",
		    (unsigned long long)s->bad, (unsigned long long)s->io_errors);
}

void sim_run_for(struct sim *s, enum sim_job kind, uint64_t ns)
{
	s->kind = kind;
	s->to_submit = UINT64_MAX;
	s->submitted = s->completed = s->inflight = 0;
	s->done = false;
	s->cut = false;
	blox_hist_reset(&s->lat);
	for (uint32_t i = 0; i < s->qd; i++)
		s->slots[i].parked = false;
	for (uint32_t i = 0; i < s->qd; i++)
		submit_slot(s, &s->slots[i]);
	ftl_vdrive_run(&s->vd, s->f, blox_clock_now(&s->vd.clock) + ns);
	if (s->inflight && nand_next_event(s->dev) == UINT64_MAX && !s->vd.kicked) {
		struct ftl_stats st;

		ftl_get_stats(s->f, &st);
		sim_die("FTL HANG: job %d: %llu in flight, nothing pending in the NAND engine "
			"and no kick (free sb %llu)",
			kind, (unsigned long long)s->inflight,
			(unsigned long long)st.free_superblocks);
	}
	if (s->bad || s->io_errors)
		sim_die("DATA ERROR: %llu bad reads, %llu I/O errors",
		    (unsigned long long)s->bad, (unsigned long long)s->io_errors);
}

void sim_cut(struct sim *s)
{
	s->cut = true;
	s->to_submit = s->submitted;
}

void sim_drop_inflight(struct sim *s)
{
	for (uint32_t i = 0; i < s->qd; i++)
		s->slots[i].busy = s->slots[i].parked = false;
	s->inflight = 0;
	s->done = true;
	s->cut = false;
}

/* Let the FTL sit idle for @ns of virtual time, calling ftl_process. */
void sim_run_idle(struct sim *s, uint64_t ns)
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

void sim_fill(struct sim *s, uint32_t rand_every, int rand_mode)
{
	s->fill_ptr = 0;
	s->since_rand = 0;
	s->rand_every = rand_every;
	s->rand_mode = rand_mode;
	s->pending_rand = false;
	sim_run_job(s, SIM_JOB_FILL, (s->cap + SIM_SEQ_UNITS - 1) / SIM_SEQ_UNITS);
	if (s->fill_ptr != s->cap)
		sim_die("fill stopped at %u of %u", s->fill_ptr, s->cap);
}
