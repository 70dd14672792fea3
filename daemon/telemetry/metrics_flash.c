/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics endpoint's families of the flash (docs/metrics.md): the
 * FTL's counters of a `nand` namespace, FDP's bytes per reclaim unit
 * handle, each NAND device's operations, latencies, lateness and dies,
 * the registered devices' wear and balance (FlashBlox). See
 * metrics_collect.h.
 *
 * A NAND device's figures are labelled by whose it is: a namespace's own
 * device by the namespace's labels, a registered device (FlashBlox) by
 * {device}, once for all its namespaces.
 */
#include "blox_util.h"
#include "metrics_collect.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const op_names[NAND_OP_KINDS] = { "read", "program", "erase" };

/* FTL counters of backend "nand", by offset in struct ftl_stats. */
static const struct ftl_family {
	const char *name;
	enum mx_type type;
	const char *help;
	size_t off;
} ftl_families[] = {
	{ "bloxd_ftl_cmt_hits", MX_COUNTER,
	  "Mapping lookups that found their translation page in the cached mapping table (CMT)",
	  offsetof(struct ftl_stats, cmt_hits) },
	{ "bloxd_ftl_cmt_misses", MX_COUNTER, "Translation pages loaded into the CMT (misses)",
	  offsetof(struct ftl_stats, cmt_misses) },
	{ "bloxd_ftl_cmt_evictions", MX_COUNTER, "Translation pages evicted from the CMT",
	  offsetof(struct ftl_stats, cmt_evictions) },
	{ "bloxd_ftl_cmt_writebacks", MX_COUNTER, "Dirty translation pages written back",
	  offsetof(struct ftl_stats, cmt_writebacks) },
	{ "bloxd_ftl_mdc_lookups", MX_COUNTER, "Lookups in the mapping delta cache (MDC)",
	  offsetof(struct ftl_stats, mdc_lookups) },
	{ "bloxd_ftl_mdc_hits", MX_COUNTER, "MDC lookups that found the mapping",
	  offsetof(struct ftl_stats, mdc_hits) },
	{ "bloxd_ftl_gc_runs", MX_COUNTER, "Garbage collection runs (victim superblocks)",
	  offsetof(struct ftl_stats, gc_runs) },
	{ "bloxd_ftl_gc_storm_victims", MX_COUNTER,
	  "Victim superblocks GC storms took (bloxctl fault inject gc-storm)",
	  offsetof(struct ftl_stats, gc_storm_victims) },
	{ "bloxd_ftl_gc_moved_units", MX_COUNTER, "Valid mapping units garbage collection moved",
	  offsetof(struct ftl_stats, gc_units_moved) },
	{ "bloxd_ftl_gc_paced_writes", MX_COUNTER, "Host writes that waited for a GC credit",
	  offsetof(struct ftl_stats, gc_paced) },
	{ "bloxd_ftl_wear_leveling_runs", MX_COUNTER, "Static wear-leveling runs",
	  offsetof(struct ftl_stats, wl_runs) },
	{ "bloxd_ftl_erases", MX_COUNTER, "Flash blocks erased",
	  offsetof(struct ftl_stats, flash_erases) },
	{ "bloxd_ftl_free_superblocks", MX_GAUGE, "Free superblocks now",
	  offsetof(struct ftl_stats, free_superblocks) },
	{ "bloxd_ftl_superblocks", MX_GAUGE, "Superblocks of the FTL",
	  offsetof(struct ftl_stats, superblocks) },
	/* Flash that wears (the reliability model; docs/FAULTS.md). */
	{ "bloxd_ftl_read_retries", MX_COUNTER, "Read-retry steps the flash took for the FTL's reads",
	  offsetof(struct ftl_stats, read_retries) },
	{ "bloxd_ftl_uncorrectable_reads", MX_COUNTER, "Flash reads no retry could correct",
	  offsetof(struct ftl_stats, uncorrectable_reads) },
	{ "bloxd_ftl_refreshes", MX_COUNTER, "Superblocks flagged for refresh (many retries or uncorrectable)",
	  offsetof(struct ftl_stats, refreshes) },
	{ "bloxd_ftl_lost_units", MX_COUNTER, "Mapping units GC could not read: their LBAs read as errors",
	  offsetof(struct ftl_stats, units_lost) },
	{ "bloxd_ftl_lost_translation_pages", MX_COUNTER,
	  "Translation page loads that failed and pages GC could not move",
	  offsetof(struct ftl_stats, tp_lost) },
	{ "bloxd_ftl_lost_reads", MX_COUNTER, "Host reads of lost LBAs (failed)",
	  offsetof(struct ftl_stats, lost_reads) },
	{ "bloxd_ftl_retired_superblocks", MX_GAUGE,
	  "Superblocks retired because an erase or a program failed",
	  offsetof(struct ftl_stats, superblocks_retired) },
	{ "bloxd_ftl_program_failures", MX_COUNTER,
	  "Programs that failed on a grown bad block (the FTL wrote their data elsewhere)",
	  offsetof(struct ftl_stats, program_failures) },
	{ "bloxd_ftl_offline_units_lost", MX_COUNTER,
	  "Units that were on dies gone offline (lost)",
	  offsetof(struct ftl_stats, offline_units) },
	{ "bloxd_ftl_remapped_blocks", MX_GAUGE,
	  "Bad blocks standing in a spare block of their plane",
	  offsetof(struct ftl_stats, remapped_blocks) },
	{ "bloxd_ftl_factory_bad_blocks", MX_GAUGE, "The namespace's blocks bad from the factory",
	  offsetof(struct ftl_stats, factory_bad_blocks) },
	{ "bloxd_ftl_spare_blocks", MX_GAUGE, "Blocks of the spare pool",
	  offsetof(struct ftl_stats, spare_blocks) },
	{ "bloxd_ftl_spare_blocks_used", MX_GAUGE,
	  "Blocks of the spare pool used (spares in use, retired superblocks)",
	  offsetof(struct ftl_stats, spare_blocks_used) },
};

static void ftl_families_all(struct mx_scrape *s)
{
	static const char *const src[] = { "host", "gc", "translation", "padding" };
	struct mx_labels l;

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(ftl_families); i++) {
		const struct ftl_family *f = &ftl_families[i];

		fam(s, f->name, f->type, NULL, f->help);
		FOR_NS(s, n)
			if (n->s->t.has_ftl)
				mx_u64(&s->w, &n->l,
				       *(const uint64_t *)((const char *)&n->s->fs + f->off));
	}
	fam(s, "bloxd_ftl_written_units", MX_COUNTER, NULL,
	    "Mapping units programmed to flash, by what they were for (host, gc, translation, "
	    "padding); write amplification is all of them over host");
	FOR_NS(s, n) {
		const uint64_t v[] = { n->s->fs.units_written_host, n->s->fs.units_written_gc,
				       n->s->fs.units_written_tp, n->s->fs.units_padded };

		for (size_t k = 0; n->s->t.has_ftl && k < BLOX_ARRAY_SIZE(v); k++)
			mx_u64(&s->w, with(&l, &n->l, "source", src[k]), v[k]);
	}
	fam(s, "bloxd_ftl_write_amplification", MX_GAUGE, NULL,
	    "Flash units programmed over host units written, since the start");
	FOR_NS(s, n)
		if (n->s->t.has_ftl)
			mx_double(&s->w, &n->l, n->s->t.waf);
	fam(s, "bloxd_ftl_block_erases_min", MX_GAUGE, NULL, "Erase count of the least-erased block");
	FOR_NS(s, n)
		if (n->s->t.has_ftl)
			mx_u64(&s->w, &n->l, n->s->fs.min_erase);
	fam(s, "bloxd_ftl_block_erases_max", MX_GAUGE, NULL, "Erase count of the most-erased block");
	FOR_NS(s, n)
		if (n->s->t.has_ftl)
			mx_u64(&s->w, &n->l, n->s->fs.max_erase);
	/* A zoned namespace's rows (backend zns): the same figures of their blocks. */
	fam(s, "bloxd_zns_block_erases_min", MX_GAUGE, NULL,
	    "Erase count of the least-erased block of a zoned namespace's rows");
	FOR_NS(s, n)
		if (n->s->t.has_zoned)
			mx_u64(&s->w, &n->l, n->s->t.zoned.min_erase);
	fam(s, "bloxd_zns_block_erases_max", MX_GAUGE, NULL,
	    "Erase count of the most-erased block of a zoned namespace's rows");
	FOR_NS(s, n)
		if (n->s->t.has_zoned)
			mx_u64(&s->w, &n->l, n->s->t.zoned.max_erase);
	fam(s, "bloxd_zns_block_erases_mean", MX_GAUGE, NULL,
	    "Mean erase count of the blocks of a zoned namespace's rows");
	FOR_NS(s, n)
		if (n->s->t.has_zoned)
			mx_double(&s->w, &n->l, n->s->t.zoned.mean_erase);
	fam(s, "bloxd_zns_rows_waiting_erase", MX_GAUGE, NULL,
	    "Rows of a zoned namespace reset in a deterministic window, their erase waiting");
	FOR_NS(s, n)
		if (n->s->t.has_zoned)
			mx_u64(&s->w, &n->l, n->s->t.zoned.rows_dirty);
	fam(s, "bloxd_ftl_read_only", MX_GAUGE, NULL,
	    "1 when the FTL refuses writes (a program failed, or too little spare is left)");
	FOR_NS(s, n)
		if (n->s->t.has_ftl)
			mx_u64(&s->w, &n->l, n->s->fs.read_only);
}

/* Flexible Data Placement: each reclaim unit handle's bytes, labelled by its handle. */
static void fdp_families(struct mx_scrape *s)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} fams[] = {
		{ "bloxd_fdp_host_written_bytes", "Bytes the host wrote with a reclaim unit handle",
		  offsetof(struct blox_bdev_fdp_ruh, host_bytes) },
		{ "bloxd_fdp_media_written_bytes",
		  "Bytes programmed into a handle's superblocks: host data, GC moves, padding",
		  offsetof(struct blox_bdev_fdp_ruh, media_bytes) },
		{ "bloxd_fdp_erased_bytes", "Bytes of a handle's superblocks erased",
		  offsetof(struct blox_bdev_fdp_ruh, erased_bytes) },
	};
	struct mx_labels l;
	char h[12];

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(fams); i++) {
		fam(s, fams[i].name, MX_COUNTER, "bytes", fams[i].help);
		FOR_NS(s, n)
			for (uint32_t r = 0; n->s->has_fdp && r < n->s->fdp.nr_ruh; r++) {
				snprintf(h, sizeof(h), "%u", r);
				mx_u64(&s->w, with(&l, &n->l, "handle", h),
				       *(const uint64_t *)((const char *)&n->s->fdp.ruh[r] +
							   fams[i].off));
			}
	}
}

static void nand_families(struct mx_scrape *s)
{
	struct mx_labels l, l2;
	char die[12], ch[12];

	fam(s, "bloxd_nand_ops", MX_COUNTER, NULL, "Array operations completed, by kind");
	FOR_NAND(s, d)
		for (int k = 0; k < NAND_OP_KINDS; k++)
			mx_u64(&s->w, with(&l, &d->l, "op", op_names[k]),
			       d->from->s->t.nand->latency[k].count);
	fam(s, "bloxd_nand_op_latency_seconds", MX_HISTOGRAM, "seconds",
	    "Array operations from submission to completion, by kind");
	FOR_NAND(s, d)
		for (int k = 0; k < NAND_OP_KINDS; k++)
			mx_hist(&s->w, with(&l, &d->l, "op", op_names[k]),
				&d->from->s->t.nand->latency[k]);
	fam(s, "bloxd_nand_lateness_seconds", MX_HISTOGRAM, "seconds",
	    "How late the real-time driver delivered each completion after its modeled time");
	FOR_NAND(s, d)
		mx_hist(&s->w, &d->l, &d->from->s->t.nand->lateness);
	fam(s, "bloxd_nand_timer_wakeup_late_seconds", MX_HISTOGRAM, "seconds",
	    "How late the real-time driver's timer woke after the time it was set for");
	FOR_NAND(s, d)
		mx_hist(&s->w, &d->l, &d->from->s->t.nand->rt.wakeup_late);
	fam(s, "bloxd_nand_timer_wakeups_past_event", MX_COUNTER, NULL,
	    "Timer wake-ups that came after the event they were set for");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->rt.wakeups_past_event);
	fam(s, "bloxd_nand_timer_window_seconds", MX_GAUGE, "seconds",
	    "How early the real-time driver sets its timer before an event, now");
	FOR_NAND(s, d)
		mx_double(&s->w, &d->l, (double)d->from->s->t.nand->rt.window_ns / 1e9);
	fam(s, "bloxd_nand_lent_reads", MX_COUNTER, NULL,
	    "Host reads sent from where the store keeps their data, without a copy");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->lent_reads);
	fam(s, "bloxd_nand_erases_held", MX_COUNTER, NULL,
	    "Times an erase's end waited (5 us) for a read of its block still being sent");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->erases_held);
	fam(s, "bloxd_nand_suspensions", MX_COUNTER, NULL,
	    "Programs and erases suspended for a read, by kind");
	FOR_NAND(s, d)
		for (int k = NAND_OP_PROGRAM; k <= NAND_OP_ERASE; k++)
			mx_u64(&s->w, with(&l, &d->l, "op", op_names[k]),
			       d->from->s->t.nand->suspend.suspends[k]);
	fam(s, "bloxd_nand_resumes", MX_COUNTER, NULL, "Suspended operations resumed, by kind");
	FOR_NAND(s, d)
		for (int k = NAND_OP_PROGRAM; k <= NAND_OP_ERASE; k++)
			mx_u64(&s->w, with(&l, &d->l, "op", op_names[k]),
			       d->from->s->t.nand->suspend.resumes[k]);
	fam(s, "bloxd_nand_suspensions_refused", MX_COUNTER, NULL,
	    "Suspensions refused, by who refused: the policy or the mechanism's cap");
	FOR_NAND(s, d) {
		const struct nand_suspend_stats *ss = &d->from->s->t.nand->suspend;

		mx_u64(&s->w, with(&l, &d->l, "by", "policy"), ss->declined);
		mx_u64(&s->w, with(&l, &d->l, "by", "cap"), ss->capped);
	}
	fam(s, "bloxd_nand_suspend_decisions", MX_COUNTER, NULL,
	    "The smart suspend policy's decisions: granted, or the reason it refused");
	FOR_NAND(s, d)
		for (int r = 0; d->from->s->t.susp_decisions && r < QOS_SUSP_REASONS; r++)
			mx_u64(&s->w, with(&l, &d->l, "decision", qos_suspend_reason_name(r)),
			       d->from->s->t.susp_decisions[r]);
	fam(s, "bloxd_nand_reads_overtaken", MX_COUNTER, NULL,
	    "Reads served while a program or erase was suspended");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->suspend.reads_overtaken);
	fam(s, "bloxd_nand_read_retries", MX_COUNTER, NULL,
	    "Read-retry steps taken (the reliability model), and reads that needed any");
	FOR_NAND(s, d) {
		mx_u64(&s->w, with(&l, &d->l, "count", "steps"), d->from->s->t.nand->rel.retries);
		mx_u64(&s->w, with(&l, &d->l, "count", "reads"), d->from->s->t.nand->rel.reads_retried);
	}
	fam(s, "bloxd_nand_uncorrectable_reads", MX_COUNTER, NULL,
	    "Reads past the last retry step: uncorrectable");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->rel.uncorrectable);
	fam(s, "bloxd_nand_grown_bad_blocks", MX_COUNTER, NULL,
	    "Blocks marked bad because an erase or a program failed");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l,
		       d->from->s->t.nand->rel.erase_failures +
			       d->from->s->t.nand->rel.program_failures);
	fam(s, "bloxd_nand_dies_offline", MX_COUNTER, NULL,
	    "Dies gone offline (a die-offline fault, or found so in the store at start)");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->rel.dies_offline);
	fam(s, "bloxd_nand_dies_replaced", MX_COUNTER, NULL,
	    "Dies back from offline, replaced by an empty one (the fault cleared)");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->rel.dies_replaced);
	fam(s, "bloxd_nand_max_bit_errors", MX_GAUGE, NULL,
	    "Most raw bit errors seen in one ECC codeword");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.nand->rel.max_errors);
	fam(s, "bloxd_nand_suspended_seconds", MX_COUNTER, "seconds",
	    "Time operations spent suspended, summed");
	FOR_NAND(s, d)
		mx_ns(&s->w, &d->l, d->from->s->t.nand->suspend.suspended_ns);
	fam(s, "bloxd_nand_dies", MX_GAUGE, NULL, "Dies of the device");
	FOR_NAND(s, d)
		mx_u64(&s->w, &d->l, d->from->s->t.dies);
	fam(s, "bloxd_nand_die_busy_seconds", MX_COUNTER, "seconds",
	    "Array time of each die, by operation kind (utilisation: its rate)");
	FOR_NAND(s, d) {
		uint32_t dpc = nand_dev_config(d->from->s->t.nand_dev)->geo.dies_per_channel;

		for (uint32_t i = 0; i < d->from->s->t.dies; i++) {
			const struct nand_die_stats *ds =
				d->from->s->t.die_stats ? &d->from->s->t.die_stats[i] : NULL;

			if (!ds)
				continue;
			snprintf(die, sizeof(die), "%u", i);
			snprintf(ch, sizeof(ch), "%u", dpc ? i / dpc : 0);
			with(&l2, with(&l2, &d->l, "die", die), "channel", ch);
			for (int k = 0; k < NAND_OP_KINDS; k++)
				mx_ns(&s->w, with(&l, &l2, "op", op_names[k]), ds->busy_ns[k]);
		}
	}
}

/* Registered devices: FlashBlox's wear and its balance (struct fbx_wear). */
static const struct wear_family {
	const char *name;
	enum mx_type type; /* a counter is a uint64_t, a gauge a double */
	const char *help;
	size_t off;
} wear_families[] = {
	{ "bloxd_device_wear_avg", MX_GAUGE, "Average erases per block of the device's blocks",
	  offsetof(struct fbx_wear, avg) },
	{ "bloxd_device_wear_max", MX_GAUGE,
	  "Average erases per block of the device's most-worn channel",
	  offsetof(struct fbx_wear, max) },
	{ "bloxd_device_wear_imbalance", MX_GAUGE,
	  "Most-worn channel's wear over the average (1: even); swaps keep it under the bound",
	  offsetof(struct fbx_wear, imbalance) },
	{ "bloxd_device_wear_checks", MX_COUNTER, "Wear checks made",
	  offsetof(struct fbx_wear, checks) },
	{ "bloxd_device_swaps", MX_COUNTER, "Channel swaps made to even the wear",
	  offsetof(struct fbx_wear, swaps) },
};

static void device_families(struct mx_scrape *s)
{
	struct prov_device *d;
	struct mx_labels l, lc;
	char ch[12];

#define DEV_LABELS (l = (struct mx_labels){ 0 }, mx_label(&l, "device", d->cfg.name), &l)
	TAILQ_FOREACH(d, &s->p->devices, link)
		prov_device_wear_update(d); /* the wear as the store has it now */
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(wear_families); i++) {
		const struct wear_family *f = &wear_families[i];

		fam(s, f->name, f->type, NULL, f->help);
		TAILQ_FOREACH(d, &s->p->devices, link) {
			struct fbx_wear w;
			const char *v = (const char *)&w + f->off;

			fbx_wear_get(d->rm, &w);
			if (f->type == MX_COUNTER)
				mx_u64(&s->w, DEV_LABELS, *(const uint64_t *)v);
			else
				mx_double(&s->w, DEV_LABELS, *(const double *)v);
		}
	}
	fam(s, "bloxd_device_wear_bound", MX_GAUGE, NULL, "The imbalance the device keeps under");
	TAILQ_FOREACH(d, &s->p->devices, link)
		mx_double(&s->w, DEV_LABELS, 1.0 + fbx_rm_params(d->rm)->bound_permille / 1000.0);
	fam(s, "bloxd_device_channel_wear", MX_GAUGE, NULL, "Average erases per block of a channel");
	TAILQ_FOREACH(d, &s->p->devices, link)
		for (uint32_t c = 0; c < d->cfg.nand.geo.channels; c++) {
			snprintf(ch, sizeof(ch), "%u", c);
			mx_double(&s->w, with(&lc, DEV_LABELS, "channel", ch),
				  fbx_channel_wear(d->rm, c, NULL));
		}
	fam(s, "bloxd_device_free_dies", MX_GAUGE, NULL, "Dies no vSSD holds");
	TAILQ_FOREACH(d, &s->p->devices, link)
		mx_u64(&s->w, DEV_LABELS, fbx_free_dies(d->rm));
#undef DEV_LABELS
}

void mx_flash_families(struct mx_scrape *s)
{
	ftl_families_all(s);
	fdp_families(s);
	nand_families(s);
	device_families(s);
}
