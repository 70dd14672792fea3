/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The SMART / Health Information log (02h) and its asynchronous events.
 *
 * Counts that outlive a restart (data units, commands, power cycles and
 * hours, unsafe shutdowns, media errors) are the namespaces' health
 * (struct nvmf_ns_health, kept by the daemon) plus this run's. What the
 * flash says of itself comes from each backend's endurance
 * (blox_bdev_endurance(): a nand namespace's FTL): Available Spare and its
 * threshold (the superblocks it may still retire), Percentage Used (mean
 * erases over the rated P/E cycles) and whether it went read-only. For
 * the whole controller the worst namespace counts: the spare closest to
 * its threshold, the most used, read-only if any is.
 *
 * Critical warnings: bit 0 (spare below threshold) and bit 3 (read only)
 * from the flash. nvmf_ns_health_check() looks once a second and sends a
 * SMART / Health event (Spare Below Threshold, or NVM Subsystem
 * Reliability for read-only) to the controllers whose Async Event
 * Configuration enables that warning; a warning told is not told again
 * until the host read the log page (without Retain Asynchronous Event).
 */
#include "nvmf.h"

#include <string.h>

/*
 * Lifetime counts of @ns (earlier runs' and this one's) added to @sum:
 * data, commands and media errors summed; power cycles (this start
 * included), power-on seconds and unsafe shutdowns the largest of the
 * namespaces'.
 */
static void add_ns_health(struct nvmf_ns_health *sum, const struct nvmf_ns *ns, uint64_t now)
{
	const struct nvmf_ns_health *h = &ns->health;
	uint64_t on_s = h->power_on_s + (now - ns->created_ns) / 1000000000ull;

	sum->read_cmds += h->read_cmds + ns->stats.read_cmds;
	sum->write_cmds += h->write_cmds + ns->stats.write_cmds;
	sum->read_bytes += h->read_bytes + ns->stats.read_bytes;
	sum->write_bytes += h->write_bytes + ns->stats.write_bytes;
	sum->media_errors += h->media_errors + ns->stats.media_errors;
	sum->power_cycles = BLOX_MAX(sum->power_cycles, h->power_cycles + 1);
	sum->power_on_s = BLOX_MAX(sum->power_on_s, on_s);
	sum->unsafe_shutdowns = BLOX_MAX(sum->unsafe_shutdowns, h->unsafe_shutdowns);
}

/* SMART's critical warning bits of @e (the Endurance Group's are the same bits). */
static uint8_t smart_warning(const struct blox_bdev_endurance *e)
{
	uint8_t eg = nvmf_endurance_warning(e), w = 0;

	if (eg & NVME_EG_CRITICAL_WARNING_SPARE)
		w |= NVME_SMART_CRIT_SPARE;
	if (eg & NVME_EG_CRITICAL_WARNING_READ_ONLY)
		w |= NVME_SMART_CRIT_MEDIA;
	return w;
}

/* What the flash of the namespaces asked for says, the worst of them. */
struct flash_health {
	bool any;
	uint8_t spare, thresh, used, warn, eg_warn;
	int margin; /* spare - threshold of the one shown */
};

static void add_ns_flash(struct flash_health *f, struct nvmf_ns *ns)
{
	struct blox_bdev_endurance e;
	int m;

	nvmf_ns_endurance(ns, &e);
	m = (int)e.avail_spare - (int)e.spare_threshold;
	if (!f->any || m < f->margin) {
		f->spare = e.avail_spare;
		f->thresh = e.spare_threshold;
		f->margin = m;
	}
	f->used = BLOX_MAX(f->used, e.percent_used);
	f->warn |= smart_warning(&e);
	f->eg_warn |= nvmf_endurance_warning(&e);
	f->any = true;
}

uint16_t nvmf_log_smart(struct nvmf_req *req, uint8_t *out, size_t *len, bool rae)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	struct nvme_smart_log *sl = (void *)out;
	struct nvmf_ns_health st = { 0 };
	struct flash_health fh = { .spare = 100, .thresh = 10 };
	uint32_t nsid = req->cmd.nsid;
	struct nvmf_ns *ns;
	uint64_t now = blox_clock_now(c->tgt->clock);

	if (nsid == 0 || nsid == 0xffffffff) {
		TAILQ_FOREACH(ns, &c->subsys->namespaces, link) {
			add_ns_health(&st, ns, now);
			add_ns_flash(&fh, ns);
		}
	} else {
		ns = nvmf_ns_find(c->subsys, nsid);
		if (!ns)
			return NVME_SC_INVALID_NS | NVME_SC_DNR;
		add_ns_health(&st, ns, now);
		add_ns_flash(&fh, ns);
	}
	if (!st.power_cycles) /* no namespace: this start is the one */
		st.power_cycles = 1;
	if (!st.power_on_s)
		st.power_on_s = (now - c->tgt->start_ns) / 1000000000ull;
	memset(sl, 0, sizeof(*sl));
	sl->critical_warning = fh.warn;
	sl->endu_grp_crit_warn_sumry = fh.eg_warn;
	/* An emulated device has no sensor: a nominal 308 K (35 C). */
	sl->temperature[0] = 308 & 0xff;
	sl->temperature[1] = 308 >> 8;
	sl->avail_spare = fh.spare;
	sl->spare_thresh = fh.thresh;
	sl->percent_used = fh.used;
	/*
	 * Over the namespaces' lives, across restarts of bloxd. Data units
	 * are thousands of 512-byte units, rounded up.
	 */
	nvmf_put128(sl->data_units_read, (st.read_bytes / 512 + 999) / 1000);
	nvmf_put128(sl->data_units_written, (st.write_bytes / 512 + 999) / 1000);
	nvmf_put128(sl->host_reads, st.read_cmds);
	nvmf_put128(sl->host_writes, st.write_cmds);
	nvmf_put128(sl->power_cycles, st.power_cycles);
	nvmf_put128(sl->power_on_hours, st.power_on_s / 3600);
	nvmf_put128(sl->unsafe_shutdowns, st.unsafe_shutdowns);
	nvmf_put128(sl->media_errors, st.media_errors);
	nvmf_put128(sl->num_err_log_entries, c->err_count);
	*len = sizeof(*sl);
	if (!rae) {
		nvmf_ctrl_aen_log_read(c, NVMF_AEN_SMART_SPARE, -1);
		nvmf_ctrl_aen_log_read(c, NVMF_AEN_SMART_RO, -1);
	}
	return 0;
}

uint8_t nvmf_ns_health_check(struct nvmf_ns *ns)
{
	struct blox_bdev_endurance e;
	uint8_t w, rising;
	struct nvmf_ctrl *c;

	nvmf_ns_endurance(ns, &e);
	w = smart_warning(&e);
	rising = w & ~ns->crit_warn;
	ns->crit_warn = w;
	if (!rising)
		return w;
	/* Told to those that enable it now; turned on while disabled, never. */
	TAILQ_FOREACH(c, &ns->subsys->ctrls, link) {
		if (rising & c->aen_enabled & NVME_SMART_CRIT_SPARE)
			nvmf_ctrl_aen_raise(c, NVMF_AEN_SMART_SPARE);
		if (rising & c->aen_enabled & NVME_SMART_CRIT_MEDIA)
			nvmf_ctrl_aen_raise(c, NVMF_AEN_SMART_RO);
	}
	return w;
}
