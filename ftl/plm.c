/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predictable latency (ftl.h): the windows, their budgets and estimates,
 * the warnings and the events. The deferral itself is a few tests in GC
 * (gc.c: no victim, no round, no erase while ftl_plm_gc_hold()), in its
 * policy (gc_policy.c: no pacing in a DTWIN, catching up to the idle level
 * in NDWIN) and in ftl_process() (no idle prefetch).
 *
 * Time is ops->now(): the FTL reads no clock of its own. A window's time
 * budget is checked whenever the FTL runs (ftl_submit(), ftl_process(),
 * ftl_plm_info()); ftl_plm_deadline() tells the driver when to run it.
 */
#include "ftl_internal.h"

#include <errno.h>
#include <string.h>

static uint64_t now_ns(const struct ftl *f)
{
	return f->env.ops->now(f->env.ctx);
}

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* Bus time of @bytes. */
static uint64_t xfer_ns(const struct nand_timing *t, uint64_t bytes)
{
	return t->bus_mbps ? bytes * 1000 / t->bus_mbps : 0;
}

/*
 * The static figures (ftl.h): latencies from the NAND timing, the typical
 * DTWIN and the NDWIN minimum times from the layout and the GC levels.
 */
static void plm_figures(struct ftl *f)
{
	const struct nand_config *nc = nand_dev_config(f->env.dev);
	const struct nand_timing *t = &nc->timing;
	const struct nand_geometry *g = f->geo;
	struct ftl_plm *p = &f->plm;
	uint32_t bits = g->cell >= NAND_SLC && g->cell <= NAND_QLC ? (uint32_t)g->cell : 3;
	uint64_t rd = 0, pg = 0, pg_max = 0, usable, room, victim_ns, per_die, progs;
	uint64_t span, gain, victims;
	uint32_t free_span;

	if (!t->null_timing) {
		for (uint32_t i = 0; i < bits; i++) {
			rd += t->t_read_ns[i];
			pg += t->t_prog_ns[i];
			pg_max = t->t_prog_ns[i] > pg_max ? t->t_prog_ns[i] : pg_max;
		}
		rd /= bits;
		pg /= bits;
		p->read_typ_ns = t->t_cmd_ns + rd + xfer_ns(t, FTL_UNIT);
		p->prog_typ_ns = t->t_cmd_ns + xfer_ns(t, g->page_size) + pg;
		p->prog_max_ns = t->t_cmd_ns + xfer_ns(t, g->page_size) + pg_max;
		p->read_max_dt_ns = p->read_typ_ns + p->prog_max_ns;
		p->read_max_nd_ns = p->read_typ_ns +
				    (t->t_erase_ns > p->prog_max_ns ? t->t_erase_ns : p->prog_max_ns);
	}
	/* Writes: at least half the units between the idle and the urgent level, less one superblock. */
	free_span = f->gc.lvl_idle > f->gc.lvl_urgent + 1 ? f->gc.lvl_idle - f->gc.lvl_urgent - 1
							   : 0;
	p->writes_floor = (uint64_t)free_span * f->units_per_sb / 2;
	p->time_max_ns = FTL_PLM_DTWIN_MAX_NS;
	/* Reads: as many as the dies serve in the time (they take nothing else). */
	p->reads_typ = p->read_typ_ns ? p->time_max_ns / p->read_typ_ns * f->ndies : UINT64_MAX;
	/*
	 * One victim as full as the average superblock of a full instance:
	 * its valid pages on one die read and programmed (multi-plane programs
	 * when the device joins them), then erased.
	 */
	usable = (uint64_t)(f->nr_sb - FTL_CKPT_SBS) * f->units_per_sb;
	room = usable > f->capacity ? usable - f->capacity : 0;
	per_die = usable ? ((uint64_t)f->pages_per_block * f->planes * f->capacity + usable - 1) /
				   usable
			 : 0;
	progs = nc->multiplane ? (per_die + f->planes - 1) / f->planes : per_die;
	victim_ns = t->null_timing ? 0
				   : per_die * (t->t_cmd_ns + rd + xfer_ns(t, g->page_size)) +
					     per_die * xfer_ns(t, g->page_size) +
					     progs * (t->t_cmd_ns + pg) + t->t_erase_ns;
	p->ndwin_lo_ns = victim_ns;
	/* High: enough victims to win back what a full DTWIN used (idle - urgent). */
	span = (uint64_t)(f->gc.lvl_idle > f->gc.lvl_urgent ? f->gc.lvl_idle - f->gc.lvl_urgent : 0) *
	       f->units_per_sb;
	gain = usable ? (uint64_t)f->units_per_sb * room / usable : 0;
	victims = gain ? (span + gain - 1) / gain : 0;
	p->ndwin_hi_ns = victims > 1 ? victims * victim_ns : victim_ns;
}

void ftl_plm_init(struct ftl *f)
{
	memset(&f->plm, 0, sizeof(f->plm));
	f->plm.win = FTL_PLM_OFF;
	plm_figures(f);
}

/* Host units the free space above the urgent level leaves for writes now (half of it). */
static uint64_t writes_room(const struct ftl *f)
{
	uint32_t lvl = f->gc.lvl_urgent + 1;

	return f->free_sbs > lvl ? (uint64_t)(f->free_sbs - lvl) * f->units_per_sb / 2 : 0;
}

/* The writes a DTWIN has: its budget; out of one, what one begun now would get. */
static uint64_t writes_typical(const struct ftl *f)
{
	uint64_t room;

	if (f->plm.win == FTL_PLM_DTWIN)
		return f->plm.budget.writes;
	room = writes_room(f);
	return room > f->plm.writes_floor ? room : f->plm.writes_floor;
}

static void raise_event(struct ftl *f, uint32_t ev)
{
	struct ftl_plm *p = &f->plm;

	p->events |= ev;
	p->notify = true;
	ftl_kick(f);
}

/* The DTWIN ends: into NDWIN, background work catches up. */
static void end_dtwin(struct ftl *f, uint32_t why)
{
	struct ftl_plm *p = &f->plm;
	uint64_t now = now_ns(f);

	p->st.dtwin_ns += sat_sub(now, p->start_ns);
	p->st.gc_runs_in_dtwin += f->st.gc_runs - p->gc_runs_at_start;
	p->win = FTL_PLM_NDWIN;
	p->start_ns = now;
	/* Writes went unpaced: the next victims pay nothing back. */
	f->gc.credit = 0;
	if (why) {
		if (why & FTL_PLM_EV_EXCEEDED)
			p->st.exceeded++;
		else
			p->st.excursions++;
		raise_event(f, why);
	}
	ftl_kick(f); /* GC resumes from ftl_process() */
}

/* Update the estimates of a DTWIN, raise its warnings; false once it ended. */
static bool dtwin_check(struct ftl *f)
{
	struct ftl_plm *p = &f->plm;
	uint64_t now = now_ns(f), in = sat_sub(now, p->start_ns), w, time_left;

	if (p->reads > p->budget.reads || p->writes > p->budget.writes || in >= p->budget.time_ns) {
		end_dtwin(f, FTL_PLM_EV_EXCEEDED);
		return false;
	}
	w = p->budget.writes - p->writes;
	if (w > writes_room(f))
		w = writes_room(f);
	if (w < p->writes_left)
		p->writes_left = w;
	if (p->budget.reads - p->reads < p->reads_left)
		p->reads_left = p->budget.reads - p->reads;
	time_left = p->budget.time_ns - in;
	if ((p->warn.enable & FTL_PLM_EV_READS_WARN) && !(p->warned & FTL_PLM_EV_READS_WARN) &&
	    p->reads_left < p->warn.reads) {
		p->warned |= FTL_PLM_EV_READS_WARN;
		raise_event(f, FTL_PLM_EV_READS_WARN);
	}
	if ((p->warn.enable & FTL_PLM_EV_WRITES_WARN) && !(p->warned & FTL_PLM_EV_WRITES_WARN) &&
	    p->writes_left < p->warn.writes) {
		p->warned |= FTL_PLM_EV_WRITES_WARN;
		raise_event(f, FTL_PLM_EV_WRITES_WARN);
	}
	if ((p->warn.enable & FTL_PLM_EV_TIME_WARN) && !(p->warned & FTL_PLM_EV_TIME_WARN) &&
	    time_left < p->warn.time_ns) {
		p->warned |= FTL_PLM_EV_TIME_WARN;
		raise_event(f, FTL_PLM_EV_TIME_WARN);
	}
	return true;
}

int ftl_plm_config(struct ftl *f, bool enable, const struct ftl_plm_warn *warn)
{
	struct ftl_plm *p = &f->plm;

	if (f->shutting_down)
		return -ESHUTDOWN;
	if (warn)
		p->warn = *warn;
	else
		memset(&p->warn, 0, sizeof(p->warn));
	if (!enable) {
		if (p->win == FTL_PLM_DTWIN)
			end_dtwin(f, 0);
		p->win = FTL_PLM_OFF;
		p->events = 0;
		p->notify = false;
		return 0;
	}
	if (p->win == FTL_PLM_OFF) {
		p->win = FTL_PLM_NDWIN;
		p->start_ns = now_ns(f);
		p->events = 0;
		ftl_kick(f); /* catching up starts */
	} else if (p->win == FTL_PLM_DTWIN) {
		dtwin_check(f); /* the new thresholds apply at once */
	}
	return 0;
}

int ftl_set_deterministic(struct ftl *f, bool on, const struct ftl_plm_budget *budget)
{
	struct ftl_plm *p = &f->plm;
	uint64_t now;

	if (f->shutting_down)
		return -ESHUTDOWN;
	if (p->win == FTL_PLM_OFF)
		return -EINVAL;
	if (!on) {
		if (p->win == FTL_PLM_DTWIN)
			end_dtwin(f, 0);
		return 0;
	}
	if (p->win == FTL_PLM_DTWIN)
		return 0;
	now = now_ns(f);
	if (now - p->start_ns < p->ndwin_lo_ns)
		return -EAGAIN;
	p->budget = (struct ftl_plm_budget){ .reads = p->reads_typ,
					     .writes = writes_typical(f),
					     .time_ns = p->time_max_ns };
	if (budget && budget->reads)
		p->budget.reads = budget->reads;
	if (budget && budget->writes)
		p->budget.writes = budget->writes;
	if (budget && budget->time_ns)
		p->budget.time_ns = budget->time_ns;
	p->win = FTL_PLM_DTWIN;
	p->start_ns = now;
	p->reads = p->writes = 0;
	p->reads_left = p->writes_left = UINT64_MAX;
	p->warned = 0;
	p->gc_runs_at_start = f->st.gc_runs;
	p->st.dtwins++;
	dtwin_check(f);
	return 0;
}

bool ftl_plm_gc_hold(struct ftl *f)
{
	if (!ftl_plm_deferring(f))
		return false;
	if (ftl_gc_level(f) == FTL_GC_URGENT) {
		end_dtwin(f, FTL_PLM_EV_EXCURSION);
		return false;
	}
	return true;
}

void ftl_plm_host_io(struct ftl *f, enum ftl_io_op op, uint32_t units)
{
	struct ftl_plm *p = &f->plm;

	if (p->win != FTL_PLM_DTWIN)
		return;
	if (op == FTL_IO_READ)
		p->reads += units;
	else if (op == FTL_IO_WRITE)
		p->writes += units;
	dtwin_check(f);
}

void ftl_plm_tick(struct ftl *f)
{
	if (f->plm.win == FTL_PLM_DTWIN)
		dtwin_check(f);
}

void ftl_plm_notify(struct ftl *f)
{
	if (!f->plm.notify)
		return;
	f->plm.notify = false;
	if (f->env.ops->plm_event)
		f->env.ops->plm_event(f->env.ctx);
}

void ftl_plm_clear_events(struct ftl *f)
{
	f->plm.events = 0;
}

uint64_t ftl_plm_deadline(const struct ftl *f)
{
	const struct ftl_plm *p = &f->plm;
	uint64_t end;

	if (p->win != FTL_PLM_DTWIN)
		return UINT64_MAX;
	end = p->start_ns + p->budget.time_ns;
	/* The warning: once less than its threshold is left. */
	if ((p->warn.enable & FTL_PLM_EV_TIME_WARN) && !(p->warned & FTL_PLM_EV_TIME_WARN)) {
		uint64_t at = p->budget.time_ns > p->warn.time_ns ? end - p->warn.time_ns + 1
								  : p->start_ns;

		return at < end ? at : end;
	}
	return end;
}

void ftl_plm_info(struct ftl *f, struct ftl_plm_info *out)
{
	struct ftl_plm *p = &f->plm;
	uint64_t now;

	ftl_plm_tick(f);
	now = now_ns(f);
	memset(out, 0, sizeof(*out));
	out->window = p->win;
	out->events = p->events;
	out->reads_typical = p->reads_typ;
	out->writes_typical = writes_typical(f);
	out->time_max_ns = p->time_max_ns;
	out->ndwin_min_low_ns = p->ndwin_lo_ns;
	out->ndwin_min_high_ns = p->ndwin_hi_ns;
	out->read_typ_ns = p->read_typ_ns;
	out->read_max_dtwin_ns = p->read_max_dt_ns;
	out->read_max_ndwin_ns = p->read_max_nd_ns;
	out->prog_typ_ns = p->prog_typ_ns;
	out->prog_max_ns = p->prog_max_ns;
	out->st = p->st;
	if (p->win == FTL_PLM_OFF)
		return;
	out->window_ns = sat_sub(now, p->start_ns);
	if (p->win == FTL_PLM_DTWIN) {
		out->st.dtwin_ns += out->window_ns;
		out->st.gc_runs_in_dtwin += f->st.gc_runs - p->gc_runs_at_start;
		out->budget = p->budget;
		out->reads = p->reads;
		out->writes = p->writes;
		out->reads_left = p->reads_left;
		out->writes_left = p->writes_left;
		out->time_left_ns = sat_sub(p->budget.time_ns, out->window_ns);
		return;
	}
	/* NDWIN: what a DTWIN begun now would have. */
	out->reads_left = p->reads_typ;
	out->writes_left = writes_room(f);
	out->time_left_ns = p->time_max_ns;
	out->dtwin_ready_ns = p->start_ns + p->ndwin_lo_ns;
}
