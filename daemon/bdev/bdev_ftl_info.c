/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a "nand" backend tells: its telemetry (FTL and device counters),
 * its flash's isolation and wear (NVM Set, Endurance Group), predictable
 * latency (its FTL's windows, in the log's units) and the host memory its
 * own device's pages take.
 */
#include "bdev_ftl.h"
#include "blox_clock.h"
#include "blox_util.h"

#include <errno.h>
#include <string.h>

void fb_telemetry(struct blox_bdev *bdev, struct blox_bdev_telemetry *t)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	const struct nand_geometry *g = &nand_dev_config(fb->dev)->geo;

	if (t->ftl && fb->ftl) {
		t->has_ftl = true;
		ftl_get_stats(fb->ftl, t->ftl);
	}
	t->waf = fb->ftl ? ftl_waf(fb->ftl) : 0;
	t->nand = nand_dev_stats(fb->dev);
	t->nand_dev = fb->dev;
	t->dies = nand_dies(g);
	t->channels = g->channels;
	t->suspend_policy = nand_dev_config(fb->dev)->policy.name;
	if (fb->nd->smart)
		t->susp_decisions = fb->nd->susp.decisions;
}

/*
 * Isolation and wear of the instance's flash (NVM Set, Endurance Group).
 * A namespace holding only a block range of its dies shares them with
 * the pool's other namespaces (software isolation): the pool is named by
 * its device's name and its lowest die (pools hold disjoint dies), hashed
 * (FNV-1a). Whole dies, of a device of its own or not, are its alone.
 * Wear: the mean erase count of its superblocks (a superblock's blocks are
 * erased together) against the cell type's rated P/E cycles, the usual
 * figures (and FlashBlox's, fbx_params_default()): SLC 100k, MLC 10k,
 * TLC 3k, QLC 1k. Spare: the blocks of its spare pool left (the spare
 * superblocks' blocks, less the spares standing in for bad blocks and the
 * retired superblocks') in percent of the pool, the threshold passed with
 * one superblock's width left.
 */
void fb_endurance(struct blox_bdev *bdev, struct blox_bdev_endurance *e)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	const struct nand_config *cfg = nand_dev_config(fb->dev);
	const struct nand_geometry *g = &cfg->geo;
	const struct nand_timing *tm = &cfg->timing;
	uint32_t bits = g->cell >= NAND_SLC && g->cell <= NAND_QLC ? (uint32_t)g->cell : 3;
	static const uint64_t rated_pe[] = { 0, 100000, 10000, 3000, 1000 };
	uint64_t rated = rated_pe[bits], erases = 0, pct, rd = 0;
	struct ftl_activity act;
	struct ftl_layout lay;
	struct ftl_stats st;

	if (!fb->ftl)
		return; /* a rebuild after a power cut failed */
	if (fb->shared_pool) {
		const char *name = fb->nd->name;
		uint32_t low = fb->res.dies[0];
		uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a 64 */

		for (uint32_t i = 1; i < fb->res.nr_dies; i++)
			low = BLOX_MIN(low, fb->res.dies[i]);
		for (size_t i = 0; name[i]; i++)
			h = (h ^ (uint8_t)name[i]) * 0x100000001b3ull;
		for (int i = 0; i < 4; i++)
			h = (h ^ (uint8_t)(low >> (8 * i))) * 0x100000001b3ull;
		e->shared_pool = true;
		e->pool_key = h;
	}
	ftl_get_stats(fb->ftl, &st);
	ftl_inspect_layout(fb->ftl, &lay);
	ftl_inspect_activity(fb->ftl, &act);
	for (uint32_t sb = 0; sb < lay.nr_sb; sb++) {
		struct ftl_sb_info si;

		ftl_inspect_sb(fb->ftl, sb, &si);
		erases += si.erase_count;
	}
	pct = lay.nr_sb ? erases * 100 / ((uint64_t)lay.nr_sb * rated) : 0;
	e->percent_used = (uint8_t)BLOX_MIN(pct, 255u);
	/*
	 * Spare: the superblocks that may still be retired (an erase failed)
	 * before the FTL turns read-only, against those it started with. The
	 * threshold is passed when one retirement is left (10% at least).
	 */
	if (st.spare_superblocks) {
		uint64_t n = st.spare_superblocks, w = st.spare_blocks / n;
		/*
		 * In blocks: a bad block remapped to a spare of its plane takes one
		 * (ftl/remap.c), a retired superblock its width; a die gone offline
		 * takes spare too: more superblocks hold the capacity.
		 */
		uint64_t used = st.spare_blocks_used + st.offline_spare_sbs * w;
		uint64_t left = n * w > used ? n * w - used : 0;

		e->avail_spare = (uint8_t)(left * 100 / (n * w));
		e->spare_threshold = (uint8_t)BLOX_MIN(BLOX_MAX((100 + n - 1) / n + 1, 10u), 99u);
	} else {
		e->avail_spare = act.fatal ? 0 : 100; /* no spare at all: a retirement stops writes */
		e->spare_threshold = 10;
	}
	e->read_only = act.fatal;
	e->host_read_bytes = st.host_reads * FTL_UNIT;
	e->host_written_bytes = st.host_writes * FTL_UNIT;
	e->media_written_bytes = (st.units_written_host + st.units_written_gc +
				  st.units_written_tp + st.units_padded) * FTL_UNIT;
	e->endurance_bytes = (uint64_t)lay.nr_sb * lay.units_per_sb * FTL_UNIT * rated;
	e->total_bytes = (uint64_t)ftl_capacity(fb->ftl) * FTL_UNIT;
	e->unalloc_bytes = e->total_bytes > bdev->size ? e->total_bytes - bdev->size : 0;
	/* A flash read of the page type on average, then 4 KiB over the bus. */
	if (!tm->null_timing) {
		for (uint32_t i = 0; i < bits; i++)
			rd += tm->t_read_ns[i];
		rd = rd / bits + tm->t_cmd_ns + (tm->bus_mbps ? 4096ull * 1000 / tm->bus_mbps : 0);
	}
	e->read_4k_ns = (uint32_t)BLOX_MIN(rd, (uint64_t)UINT32_MAX);
	e->opt_write_bytes = g->page_size; /* the page a stream fills, then programs */
}

/*
 * Predictable latency: the FTL's windows (ftl_plm_*) in the log page's
 * units. A write of the Optimal Write Size is one flash page (what
 * fb_endurance() says), so many FTL units; times in whole milliseconds,
 * estimates rounded down.
 */
static uint32_t units_per_ows(const struct ftl_bdev *fb)
{
	uint32_t n = nand_dev_config(fb->dev)->geo.page_size / FTL_UNIT;

	return n ? n : 1;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

int fb_plm_config(struct blox_bdev *bdev, const struct blox_bdev_plm_config *cfg)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	struct ftl_plm_warn w = {
		.enable = cfg->ee & FTL_PLM_EV_WARNS,
		.reads = cfg->reads_thresh,
		.writes = sat_mul(cfg->writes_thresh, units_per_ows(fb)),
		.time_ns = sat_mul(cfg->time_thresh_ms, 1000000),
	};
	int rc;

	if (!fb->ftl)
		return -EIO;
	rc = ftl_plm_config(fb->ftl, cfg->enable, &w);
	if (!rc) {
		fb->plm_cb = cfg->enable ? cfg->event : NULL;
		fb->plm_cb_arg = cfg->enable ? cfg->event_arg : NULL;
	}
	fb_plm_arm(fb);
	return rc;
}

int fb_plm_window(struct blox_bdev *bdev, enum blox_plm_window win, uint64_t *retry_in_ns)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	int rc;

	if (!fb->ftl)
		return -EIO;
	if (win != BLOX_PLM_DTWIN && win != BLOX_PLM_NDWIN)
		return -EINVAL;
	rc = ftl_set_deterministic(fb->ftl, win == BLOX_PLM_DTWIN, NULL);
	if (rc == -EAGAIN && retry_in_ns) {
		struct ftl_plm_info i;
		uint64_t now = blox_clock_now(fb->clock);

		ftl_plm_info(fb->ftl, &i);
		*retry_in_ns = i.dtwin_ready_ns > now ? i.dtwin_ready_ns - now : 0;
	}
	fb_plm_arm(fb);
	return rc;
}

void fb_plm_query(struct blox_bdev *bdev, struct blox_bdev_plm_info *out, bool clear)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	uint32_t ows = units_per_ows(fb);
	struct ftl_plm_info i;

	if (!fb->ftl)
		return;
	ftl_plm_info(fb->ftl, &i);
	out->window = i.window == FTL_PLM_DTWIN	  ? BLOX_PLM_DTWIN
		      : i.window == FTL_PLM_NDWIN ? BLOX_PLM_NDWIN
						  : BLOX_PLM_OFF;
	out->events = (uint16_t)i.events;
	out->reads_typical = i.reads_typical;
	out->writes_typical = i.writes_typical / ows;
	out->time_max_ms = i.time_max_ns / 1000000;
	out->ndwin_min_high_ms = (i.ndwin_min_high_ns + 999999) / 1000000;
	out->ndwin_min_low_ms = (i.ndwin_min_low_ns + 999999) / 1000000;
	out->reads_estimate = i.reads_left;
	out->writes_estimate = i.writes_left / ows;
	out->time_estimate_ms = i.time_left_ns / 1000000;
	if (clear)
		ftl_plm_clear_events(fb->ftl);
	fb_plm_arm(fb); /* the query may have ended a window */
}

/* A namespace on a registered device: the device's memory is the device's. */
uint64_t fb_mem_bytes(struct blox_bdev *bdev)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);

	return fb->nd->registered ? 0 : blox_nand_dev_mem_bytes(fb->nd);
}

/* Flexible Data Placement: the FTL's reclaim unit handles and their counters. */
bool fb_fdp_info(struct blox_bdev *bdev, struct blox_bdev_fdp *f)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);
	struct ftl_fdp_stats fs;

	_Static_assert(BLOX_FDP_MAX_RUH == FTL_MAX_RUH, "one handle limit");
	if (ftl_fdp_stats(fb->ftl, &fs))
		return false;
	f->nr_ruh = fs.nr_ruh;
	f->persistent = fs.persistent;
	f->ru_bytes = fs.ru_bytes;
	f->ru_time_limit_s = (uint32_t)(fs.ru_time_limit_ns / 1000000000ull);
	for (uint32_t r = 0; r < fs.nr_ruh; r++)
		f->ruh[r] = (struct blox_bdev_fdp_ruh){
			.host_bytes = fs.ruh[r].host_bytes,
			.media_bytes = fs.ruh[r].media_bytes,
			.erased_bytes = fs.ruh[r].erased_bytes,
			.ru_left_bytes = fs.ru_left[r],
			.updates = fs.ru_updates[r],
			.implicit = fs.ru_implicit[r],
			.expired = fs.ru_expired[r],
		};
	f->host_bytes = fs.total.host_bytes;
	f->media_bytes = fs.total.media_bytes;
	f->erased_bytes = fs.total.erased_bytes;
	_Static_assert(BLOX_FDP_EVENTS == FTL_FDP_EVENTS, "one event ring size");
	_Static_assert(BLOX_FDP_EV_RU_FILLED == FTL_FDP_EV_RU_FILLED &&
			       BLOX_FDP_EV_RU_TIMEOUT == FTL_FDP_EV_RU_TIMEOUT &&
			       BLOX_FDP_EV_REALLOC == FTL_FDP_EV_REALLOC,
		       "one set of event types");
	f->ev_seq = fs.ev_seq;
	for (uint32_t i = 0; i < FTL_FDP_EVENTS; i++)
		f->ev[i] = (struct blox_bdev_fdp_event){
			.seq = fs.ev[i].seq,
			.ns = fs.ev[i].ns,
			.type = fs.ev[i].type,
			.ruh = fs.ev[i].ruh,
			.moved_bytes = (uint64_t)fs.ev[i].moved * FTL_UNIT,
			.offset = (uint64_t)fs.ev[i].lba * FTL_UNIT,
		};
	return true;
}

int fb_fdp_log(struct blox_bdev *bdev, void *buf, uint32_t len, bool save)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);

	_Static_assert(BLOX_FDP_LOG_BYTES == FTL_FDP_LOG_BYTES, "one saved log size");
	if (!fb->ftl)
		return -ESHUTDOWN; /* a rebuild after a power cut failed */
	if (save)
		return ftl_fdp_log_set(fb->ftl, buf, len);
	return (int)ftl_fdp_log_get(fb->ftl, buf, len);
}

int fb_fdp_update(struct blox_bdev *bdev, uint32_t ruh)
{
	struct ftl_bdev *fb = container_of(bdev, struct ftl_bdev, base);

	return ftl_ruh_update(fb->ftl, ruh);
}
