/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "zns" backend's predictable latency (bdev.h plm_*, bdev_zns.h
 * struct zb_plm): its NVM Set's windows, their limits and estimates, the
 * warnings and events; the resets whose erases wait for the
 * non-deterministic window, and the background erases of their rows. The
 * figures, in the units of the Predictable Latency Per NVM Set log:
 *   reads_typical: the 4 KiB reads its dies serve in time_max (a read
 *     alone on its die, from the NAND timing); writes_typical: the flash
 *     pages its dies program in that time (host programs meet no erase in
 *     a DTWIN); time_max: BLOX_ZNS_DTWIN_MAX_NS;
 *   ndwin_min_low: one row's erase (its blocks on a die one after the
 *     other); ndwin_min_high: as many as a DTWIN may defer (the rows past
 *     its zones), erased one after the other. A DTWIN may start only once
 *     the NDWIN is ndwin_min_low old.
 * Null timing (no NAND time at all): reads and writes typical are
 * unlimited, the NDWIN times 0. And the wear its telemetry tells: the
 * erase counts of its rows' blocks.
 */
#include "bdev_zns.h"
#include "blox_clock.h"
#include "blox_log.h"
#include "blox_util.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#define BLOX_ZNS_DTWIN_MAX_NS (10ull * 1000 * 1000 * 1000)

/* Events: the bits of the log's Event Type. */
#define EV_READS_WARN (1u << 0)
#define EV_WRITES_WARN (1u << 1)
#define EV_TIME_WARN (1u << 2)
#define EV_WARNS (EV_READS_WARN | EV_WRITES_WARN | EV_TIME_WARN)
#define EV_EXCEEDED (1u << 14) /* DTWIN -> NDWIN: a limit was used up */
#define EV_EXCURSION (1u << 15) /* DTWIN -> NDWIN: a reset's erase could not wait */

static void plm_kick(struct zns_bdev *zb);
static void plm_arm(struct zns_bdev *zb);

static uint64_t now_ns(const struct zns_bdev *zb)
{
	return blox_clock_now(zb->clock);
}

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The static figures, from the NAND timing and the layout. */
static void plm_figures(struct zns_bdev *zb)
{
	const struct nand_timing *t = &nand_dev_config(zb->dev)->timing;
	const struct nand_geometry *g = zb->geo;
	struct zb_plm *p = &zb->plm;
	uint32_t bits = g->cell >= NAND_SLC && g->cell <= NAND_QLC ? (uint32_t)g->cell : 3;
	uint64_t rd = 0, pg = 0, xfer_page, xfer_4k;
	uint32_t spare = zb->nr_rows > zb->l.nr_zones ? zb->nr_rows - zb->l.nr_zones : 0;

	p->time_max_ns = BLOX_ZNS_DTWIN_MAX_NS;
	p->reads_typ = p->writes_typ = UINT64_MAX;
	p->ndwin_lo_ns = p->ndwin_hi_ns = 0;
	if (t->null_timing)
		return;
	for (uint32_t i = 0; i < bits; i++) {
		rd += t->t_read_ns[i];
		pg += t->t_prog_ns[i];
	}
	xfer_page = t->bus_mbps ? (uint64_t)g->page_size * 1000 / t->bus_mbps : 0;
	xfer_4k = t->bus_mbps ? 4096ull * 1000 / t->bus_mbps : 0;
	rd = t->t_cmd_ns + rd / bits + xfer_4k;
	pg = t->t_cmd_ns + pg / bits + xfer_page;
	p->reads_typ = p->time_max_ns / rd * zb->l.ndies;
	p->writes_typ = p->time_max_ns / pg * zb->l.ndies * zb->l.planes;
	p->ndwin_lo_ns = (uint64_t)t->t_erase_ns * zb->l.planes;
	p->ndwin_hi_ns = p->ndwin_lo_ns * (spare ? spare : 1);
}

int zb_plm_init(struct zns_bdev *zb)
{
	struct zb_plm *p = &zb->plm;

	p->rows = calloc(zb->nr_rows, sizeof(*p->rows));
	p->mark = calloc(zb->nr_rows, sizeof(*p->mark));
	if (!p->rows || !p->mark)
		return -ENOMEM;
	p->win = BLOX_PLM_OFF;
	p->erasing = ZB_NONE;
	plm_figures(zb);
	return 0;
}

void zb_plm_fini(struct zns_bdev *zb)
{
	struct zb_plm *p = &zb->plm;

	/* Its erases in flight end (nobody waits); a row cut short keeps its marker. */
	p->stopping = true;
	zb_drive(zb, &p->inflight);
	if (p->timer)
		event_free(p->timer);
	p->timer = NULL;
	free(p->rows);
	free(p->mark);
	p->rows = NULL;
	p->mark = NULL;
}

void zb_plm_rebuild(struct zns_bdev *zb)
{
	struct zb_plm *p = &zb->plm;

	/* The cut dropped its erases; the recovery erases every marked row. */
	memset(p->rows, 0, zb->nr_rows * sizeof(*p->rows));
	p->dirty = 0;
	p->inflight = 0;
	p->erasing = ZB_NONE;
}

bool zb_plm_row_clean(const struct zns_bdev *zb, uint32_t row)
{
	return !zb->plm.rows || zb->plm.rows[row] == ZB_ROW_CLEAN;
}

/* ---- events and windows ---- */

static void raise_event(struct zns_bdev *zb, uint16_t ev)
{
	zb->plm.events |= ev;
	zb->plm.notify = true;
	plm_arm(zb);
}

static void end_dtwin(struct zns_bdev *zb, uint16_t why)
{
	struct zb_plm *p = &zb->plm;

	p->win = BLOX_PLM_NDWIN;
	p->start_ns = now_ns(zb);
	if (why) {
		if (why & EV_EXCEEDED)
			p->exceeded++;
		else
			p->excursions++;
		blox_log(zb->log, BLOX_LOG_INFO,
			 "zns: the deterministic window ended by itself (%s); %u rows to erase",
			 why & EV_EXCEEDED ? "a limit used up" : "a reset's erase could not wait",
			 p->dirty);
		raise_event(zb, why);
	}
	plm_kick(zb);
	plm_arm(zb);
}

static uint64_t writes_done(const struct zns_bdev *zb)
{
	return (zb->plm.write_bytes + zb->geo->page_size - 1) / zb->geo->page_size;
}

/* A DTWIN's estimates and warnings; false once it ended. */
static bool dtwin_check(struct zns_bdev *zb)
{
	struct zb_plm *p = &zb->plm;
	uint64_t in = sat_sub(now_ns(zb), p->start_ns), w = writes_done(zb), time_left;

	if (p->reads > p->b_reads || w > p->b_writes || in >= p->b_time_ns) {
		end_dtwin(zb, EV_EXCEEDED);
		return false;
	}
	if (p->b_reads - p->reads < p->reads_left)
		p->reads_left = p->b_reads - p->reads;
	if (p->b_writes - w < p->writes_left)
		p->writes_left = p->b_writes - w;
	time_left = p->b_time_ns - in;
	if ((p->ee & EV_READS_WARN) && !(p->warned & EV_READS_WARN) &&
	    p->reads_left < p->th_reads) {
		p->warned |= EV_READS_WARN;
		raise_event(zb, EV_READS_WARN);
	}
	if ((p->ee & EV_WRITES_WARN) && !(p->warned & EV_WRITES_WARN) &&
	    p->writes_left < p->th_writes) {
		p->warned |= EV_WRITES_WARN;
		raise_event(zb, EV_WRITES_WARN);
	}
	if ((p->ee & EV_TIME_WARN) && !(p->warned & EV_TIME_WARN) && time_left < p->th_time_ns) {
		p->warned |= EV_TIME_WARN;
		raise_event(zb, EV_TIME_WARN);
	}
	return true;
}

static void timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct zns_bdev *zb = arg;
	struct zb_plm *p = &zb->plm;

	(void)fd;
	(void)what;
	if (p->win == BLOX_PLM_DTWIN)
		dtwin_check(zb);
	if (p->notify) {
		p->notify = false;
		if (p->event && p->win != BLOX_PLM_OFF)
			p->event(p->event_arg);
	}
	plm_arm(zb);
}

/* The timer at the window's end or its time warning; at once for a notice to tell. */
static void plm_arm(struct zns_bdev *zb)
{
	struct zb_plm *p = &zb->plm;
	uint64_t at = UINT64_MAX, now, us;
	struct timeval tv;

	if (!p->timer || p->stopping)
		return;
	if (p->win == BLOX_PLM_DTWIN) {
		at = p->start_ns + p->b_time_ns;
		if ((p->ee & EV_TIME_WARN) && !(p->warned & EV_TIME_WARN))
			at = p->b_time_ns > p->th_time_ns ? at - p->th_time_ns + 1 : p->start_ns;
	}
	now = now_ns(zb);
	if (p->notify)
		at = now;
	if (at == UINT64_MAX) {
		evtimer_del(p->timer);
		return;
	}
	/* Rounded up to the microsecond: never early. */
	us = (sat_sub(at, now) + 999) / 1000;
	tv = (struct timeval){ .tv_sec = (time_t)(us / 1000000u),
			       .tv_usec = (suseconds_t)(us % 1000000u) };
	evtimer_add(p->timer, &tv);
}

int zb_plm_config(struct blox_bdev *bdev, const struct blox_bdev_plm_config *cfg)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);
	struct zb_plm *p = &zb->plm;

	if (!zb->z)
		return -EIO;
	if (!p->timer && !(p->timer = evtimer_new(zb->evbase, timer_cb, zb)))
		return -ENOMEM;
	p->ee = cfg->ee & EV_WARNS;
	p->th_reads = cfg->reads_thresh;
	p->th_writes = cfg->writes_thresh;
	p->th_time_ns = sat_mul(cfg->time_thresh_ms, 1000000);
	if (!cfg->enable) {
		if (p->win == BLOX_PLM_DTWIN)
			end_dtwin(zb, 0);
		p->win = BLOX_PLM_OFF;
		p->events = 0;
		p->notify = false;
		p->event = NULL;
		p->event_arg = NULL;
		plm_arm(zb);
		return 0;
	}
	p->event = cfg->event;
	p->event_arg = cfg->event_arg;
	if (p->win == BLOX_PLM_OFF) {
		p->win = BLOX_PLM_NDWIN;
		p->start_ns = now_ns(zb);
		p->events = 0;
		plm_kick(zb);
	} else if (p->win == BLOX_PLM_DTWIN) {
		dtwin_check(zb); /* the new thresholds apply at once */
	}
	plm_arm(zb);
	return 0;
}

int zb_plm_window(struct blox_bdev *bdev, enum blox_plm_window w, uint64_t *retry_in_ns)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);
	struct zb_plm *p = &zb->plm;
	uint64_t now = now_ns(zb);

	if (!zb->z)
		return -EIO;
	if (p->win == BLOX_PLM_OFF || (w != BLOX_PLM_DTWIN && w != BLOX_PLM_NDWIN))
		return -EINVAL;
	if (w == BLOX_PLM_NDWIN) {
		if (p->win == BLOX_PLM_DTWIN)
			end_dtwin(zb, 0);
		return 0;
	}
	if (p->win == BLOX_PLM_DTWIN)
		return 0;
	if (now - p->start_ns < p->ndwin_lo_ns) {
		if (retry_in_ns)
			*retry_in_ns = p->start_ns + p->ndwin_lo_ns - now;
		return -EAGAIN;
	}
	p->win = BLOX_PLM_DTWIN;
	p->start_ns = now;
	p->b_reads = p->reads_typ;
	p->b_writes = p->writes_typ;
	p->b_time_ns = p->time_max_ns;
	p->reads = p->write_bytes = 0;
	p->reads_left = p->writes_left = UINT64_MAX;
	p->warned = 0;
	p->dtwins++;
	dtwin_check(zb);
	plm_arm(zb);
	return 0;
}

void zb_plm_query(struct blox_bdev *bdev, struct blox_bdev_plm_info *out, bool clear)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);
	struct zb_plm *p = &zb->plm;

	if (p->win == BLOX_PLM_DTWIN)
		dtwin_check(zb);
	out->window = p->win;
	out->events = p->events;
	out->reads_typical = p->reads_typ;
	out->writes_typical = p->writes_typ;
	out->time_max_ms = p->time_max_ns / 1000000;
	out->ndwin_min_high_ms = (p->ndwin_hi_ns + 999999) / 1000000;
	out->ndwin_min_low_ms = (p->ndwin_lo_ns + 999999) / 1000000;
	if (p->win == BLOX_PLM_DTWIN) {
		out->reads_estimate = p->reads_left;
		out->writes_estimate = p->writes_left;
		out->time_estimate_ms = sat_sub(p->b_time_ns, now_ns(zb) - p->start_ns) / 1000000;
	} else if (p->win == BLOX_PLM_NDWIN) {
		/* What a DTWIN begun now would have. */
		out->reads_estimate = p->reads_typ;
		out->writes_estimate = p->writes_typ;
		out->time_estimate_ms = p->time_max_ns / 1000000;
	}
	if (clear)
		p->events = 0;
	plm_arm(zb);
}

void zb_plm_host_io(struct zns_bdev *zb, const struct blox_io *io)
{
	struct zb_plm *p = &zb->plm;

	if (io->op == BLOX_IO_READ)
		zb->host_read_bytes += io->len;
	else if (io->op == BLOX_IO_WRITE || io->op == BLOX_IO_WRITE_ZEROES ||
		 io->op == BLOX_IO_ZONE_APPEND)
		zb->host_written_bytes += io->len;
	if (p->win != BLOX_PLM_DTWIN)
		return;
	if (io->op == BLOX_IO_READ)
		p->reads += (io->len + 4095) / 4096;
	else if (io->op == BLOX_IO_WRITE || io->op == BLOX_IO_WRITE_ZEROES ||
		 io->op == BLOX_IO_ZONE_APPEND)
		p->write_bytes += io->len;
	else
		return;
	dtwin_check(zb);
}

/* ---- resets deferred ---- */

/* Zones that would need a clean row: without one, neither Offline nor Read Only. */
static uint32_t rowless_zones(const struct zns_bdev *zb)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < zb->l.nr_zones; i++) {
		enum zns_state st = zns_zone(zb->z, i)->state;

		/* A reset's marker in flight: its zone leaves its row. */
		if ((zb->zones[i].row == ZB_NONE || zb->zones[i].reset_marked) &&
		    st != ZNS_OFFLINE && st != ZNS_RONLY)
			n++;
	}
	return n;
}

static uint32_t clean_free_rows(const struct zns_bdev *zb)
{
	uint32_t n = 0;

	for (uint32_t r = 0; r < zb->nr_rows; r++)
		if (zb->row_zone[r] == ZB_NONE && zb_plm_row_clean(zb, r) && !zb_row_bad(zb, r) &&
		    !(zb->mig.active && r == zb->mig.row))
			n++;
	return n;
}

bool zb_plm_defer_reset(struct zns_bdev *zb, uint32_t zone)
{
	const struct zb_zone *zz = &zb->zones[zone];

	if (zb->plm.win != BLOX_PLM_DTWIN || zz->row == ZB_NONE)
		return false;
	/* Room for the marker, and a clean row left for every zone without one. */
	if (zz->pnext >= zb->l.zone_pages || clean_free_rows(zb) < rowless_zones(zb) + 1) {
		end_dtwin(zb, EV_EXCURSION);
		return false;
	}
	zb->plm.mark[zz->row] = zz->pnext;
	return true;
}

void zb_plm_reset_marked(struct zns_bdev *zb, uint32_t zone, bool ok)
{
	struct zb_plm *p = &zb->plm;
	uint32_t row = zb->zones[zone].row;

	p->rows[row] = ZB_ROW_DIRTY;
	p->dirty++;
	p->deferred++;
	if (!ok) /* no marker on flash: a crash would bring the zone's data back */
		blox_log(zb->log, BLOX_LOG_ERR,
			 "zns: zone %u: its reset's marker page failed: its row is erased now",
			 zone);
	if (!ok && p->win == BLOX_PLM_DTWIN)
		end_dtwin(zb, EV_EXCURSION);
	plm_kick(zb);
}

/* ---- the background erases (NDWIN, or the mode off) ---- */

static void row_erased(struct zns_bdev *zb, bool failed)
{
	struct zb_plm *p = &zb->plm;
	uint32_t row = p->erasing;

	p->erasing = ZB_NONE;
	p->rows[row] = failed ? ZB_ROW_FAILED : ZB_ROW_CLEAN;
	p->dirty--;
	p->erased_later++;
	if (failed)
		blox_log(zb->log, BLOX_LOG_ERR, "zns: an erase of row %u failed: no zone takes it",
			 row);
}

static bool erase_step(struct zns_bdev *zb);

static void plm_erase_done(struct nand_op *op)
{
	struct zb_op *o = op->cb_arg;
	struct zns_bdev *zb = o->zb;
	struct zb_plm *p = &zb->plm;

	if (op->status)
		p->rows[p->erasing] = ZB_ROW_FAILED;
	p->inflight--;
	zb_op_free(o);
	if (p->inflight || p->stopping)
		return;
	if (p->rows[p->erasing] == ZB_ROW_FAILED)
		row_erased(zb, true);
	else if (p->rows[p->erasing] == ZB_ROW_ERASING && erase_step(zb))
		return;
	else
		row_erased(zb, false);
	zb_mig_kick(zb);
	plm_kick(zb);
}

/*
 * The erases of the row being erased that its state asks for: every block
 * but the marker's, or the marker's. true when some are in flight.
 */
static bool erase_step(struct zns_bdev *zb)
{
	struct zb_plm *p = &zb->plm;
	uint32_t row = p->erasing, stripe = zb->l.ndies * zb->l.planes;
	uint32_t mslot = p->mark[row] % stripe;
	bool mark = p->rows[row] == ZB_ROW_ERASING;

	p->rows[row] = mark ? ZB_ROW_ERASING_MARK : ZB_ROW_ERASING;
	for (uint32_t s = 0; s < stripe; s++) {
		struct zb_op *o;
		uint64_t bi;

		if ((s == mslot) != mark)
			continue;
		if (zb_block_bad(zb, row, s))
			continue;
		o = zb_op_new(zb, NULL, ZB_NONE, false);
		if (!o)
			break; /* tried again at the next kick */
		zb_addr(zb, row, s, &o->op.addr);
		o->op.addr.page = 0;
		bi = nand_block_index(zb->geo, &o->op.addr);
		if (!zb->store->blocks[bi].write_ptr) {
			zb_op_free(o);
			continue;
		}
		o->op.kind = NAND_OP_ERASE;
		o->op.prio = NAND_PRIO_ERASE;
		o->op.cb = plm_erase_done;
		if (zb_op_go(zb, o)) {
			zb_op_free(o);
			continue;
		}
		p->inflight++;
		zb->erases++;
	}
	return p->inflight > 0;
}

/* Start erasing @row now; false when it was erased at once (nothing to erase). */
static bool erase_row(struct zns_bdev *zb, uint32_t row)
{
	struct zb_plm *p = &zb->plm;

	p->erasing = row;
	p->rows[row] = ZB_ROW_DIRTY;
	if (erase_step(zb) || erase_step(zb))
		return true;
	row_erased(zb, false);
	return false;
}

/* The next row waiting, erased now unless the set is in a DTWIN. */
static void plm_kick(struct zns_bdev *zb)
{
	struct zb_plm *p = &zb->plm;

	while (!p->stopping && p->dirty && p->erasing == ZB_NONE && p->win != BLOX_PLM_DTWIN) {
		uint32_t row = ZB_NONE;

		for (uint32_t r = 0; r < zb->nr_rows && row == ZB_NONE; r++)
			if (p->rows[r] == ZB_ROW_DIRTY)
				row = r;
		if (row == ZB_NONE || erase_row(zb, row))
			return;
	}
}

bool zb_plm_mig_wait(struct zns_bdev *zb, uint32_t row)
{
	struct zb_plm *p = &zb->plm;

	if (!p->rows || p->rows[row] == ZB_ROW_CLEAN || p->rows[row] == ZB_ROW_FAILED)
		return false;
	/* The operator's migration is not deferred: the row it reaches is erased first. */
	if (p->erasing == ZB_NONE)
		return erase_row(zb, row);
	return true;
}

/* ---- wear ---- */

void zb_wear(const struct zns_bdev *zb, struct blox_bdev_zoned_wear *w)
{
	uint32_t stripe = zb->l.ndies * zb->l.planes;
	uint64_t sum = 0, n = 0;

	memset(w, 0, sizeof(*w));
	w->min_erase = UINT32_MAX;
	for (uint32_t r = 0; r < zb->nr_rows; r++) {
		for (uint32_t s = 0; s < stripe; s++) {
			struct nand_addr a;
			uint32_t e;

			zb_addr(zb, r, s, &a);
			e = zb->store->blocks[nand_block_index(zb->geo, &a)].erase_count;
			w->min_erase = BLOX_MIN(w->min_erase, e);
			w->max_erase = BLOX_MAX(w->max_erase, e);
			sum += e;
			n++;
		}
		if (zb->row_zone[r] == ZB_NONE && zb_plm_row_clean(zb, r) && !zb_row_bad(zb, r))
			w->rows_free++;
	}
	if (!n)
		w->min_erase = 0;
	w->mean_erase = n ? (double)sum / (double)n : 0;
	w->rows = zb->nr_rows;
	w->rows_dirty = zb->plm.dirty;
	w->resets_deferred = zb->plm.deferred;
	w->rows_erased_later = zb->plm.erased_later;
}

/*
 * Its flash's wear and what it holds, for the NVM Set and the Endurance
 * Group (the namespace's own): the mean erase count of its rows' blocks
 * against the cell type's rated P/E cycles (as for the nand backend: SLC
 * 100k, MLC 10k, TLC 3k, QLC 1k); spare: the rows past its zones that no
 * bad block or failed erase took, in percent of them (100 without any:
 * a bad row then takes a zone Offline instead); the host's bytes since the
 * start; a write of a flash page places nothing else (the Optimal Write
 * Size, the unit of the Predictable Latency log's writes).
 */
void zb_endurance(struct blox_bdev *bdev, struct blox_bdev_endurance *e)
{
	struct zns_bdev *zb = container_of(bdev, struct zns_bdev, base);
	const struct nand_config *cfg = nand_dev_config(zb->dev);
	const struct nand_timing *tm = &cfg->timing;
	uint32_t bits = zb->geo->cell >= NAND_SLC && zb->geo->cell <= NAND_QLC
				? (uint32_t)zb->geo->cell
				: 3;
	static const uint64_t rated_pe[] = { 0, 100000, 10000, 3000, 1000 };
	uint32_t stripe = zb->l.ndies * zb->l.planes, bad = 0;
	uint32_t spare = zb->nr_rows > zb->l.nr_zones ? zb->nr_rows - zb->l.nr_zones : 0;
	uint64_t row_bytes = (uint64_t)stripe * zb->geo->pages_per_block * zb->geo->page_size;
	uint64_t pct, rd = 0;
	struct blox_bdev_zoned_wear w;

	if (!zb->z)
		return; /* a rebuild after a power cut failed */
	zb_wear(zb, &w);
	pct = (uint64_t)(w.mean_erase * 100.0 / (double)rated_pe[bits]);
	e->percent_used = (uint8_t)BLOX_MIN(pct, 255u);
	for (uint32_t r = 0; r < zb->nr_rows; r++)
		if (zb_row_bad(zb, r) || zb->plm.rows[r] == ZB_ROW_FAILED)
			bad++;
	e->avail_spare = spare ? (uint8_t)((spare > bad ? spare - bad : 0) * 100 / spare) : 100;
	e->spare_threshold =
		spare ? (uint8_t)BLOX_MIN(BLOX_MAX((100 + spare - 1) / spare + 1, 10u), 99u) : 10;
	e->host_read_bytes = zb->host_read_bytes;
	e->host_written_bytes = zb->host_written_bytes;
	e->media_written_bytes = zb->programs * zb->geo->page_size;
	e->endurance_bytes = (uint64_t)zb->nr_rows * row_bytes * rated_pe[bits];
	e->total_bytes = zb->base.size;
	if (!tm->null_timing) {
		for (uint32_t i = 0; i < bits; i++)
			rd += tm->t_read_ns[i];
		rd = rd / bits + tm->t_cmd_ns + (tm->bus_mbps ? 4096ull * 1000 / tm->bus_mbps : 0);
	}
	e->read_4k_ns = (uint32_t)BLOX_MIN(rd, (uint64_t)UINT32_MAX);
	e->opt_write_bytes = zb->geo->page_size;
}
