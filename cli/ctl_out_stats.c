/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bloxctl stats for people (ctl_output.c has the rest of the output): a
 * block per namespace (I/O rows, the model, ftl, fdp, nand lines) and one
 * per controller, in 80 columns.
 */
#include "ctl.h"

#include <stdio.h>
#include <string.h>

/* Stats for people: a block per namespace, then the controllers, in 80 columns. */
#define STATS_WIDTH 80
#define STATS_INDENT 8 /* text after a label ("  ftl", "  nand") starts here */

/* A rate with a K or M suffix: 950, 12.3K, 142K, 1.2M. */
static const char *rate_str(double v, char *buf, size_t len)
{
	if (v < 999.5)
		snprintf(buf, len, "%.0f", v);
	else if (v < 99.95e3)
		snprintf(buf, len, "%.1fK", v / 1e3);
	else if (v < 999.5e3)
		snprintf(buf, len, "%.0fK", v / 1e3);
	else if (v < 99.95e6)
		snprintf(buf, len, "%.1fM", v / 1e6);
	else
		snprintf(buf, len, "%.0fM", v / 1e6);
	return buf;
}

/* A latency in microseconds, in 9 columns; "-" when nothing was measured. */
static void lat_col(uint64_t ns, bool any)
{
	if (!any)
		printf(" %9s", "-");
	else if (ns < 10000000)
		printf(" %9.1f", ns / 1e3);
	else
		printf(" %9.0f", ns / 1e3);
}

/* One direction's row: IOPS, bandwidth, p50/p99/p99.9/max. */
static void io_dir(const char *what, double iops, double bw, const Blox__Admin__Latency *l)
{
	char r[16], b[32];
	bool any = l && l->count;

	cli_size_str((uint64_t)bw, b, sizeof(b));
	printf("  %-6s %7s %11s/s", what, rate_str(iops, r, sizeof(r)), b);
	lat_col(any ? l->p50_ns : 0, any);
	lat_col(any ? l->p99_ns : 0, any);
	lat_col(any ? l->p999_ns : 0, any);
	lat_col(any ? l->max_ns : 0, any);
	printf("\n");
}

/*
 * The I/O of a namespace or a controller: a read and a write row under a
 * header that names the window, then the queue depth and the errors.
 */
static void io_block(const Blox__Admin__IoStats *io)
{
	char win[16];

	snprintf(win, sizeof(win), "%.1f s", io->interval_s);
	printf("  %-6s %7s %13s %9s %9s %9s %9s\n", win, "IOPS", "BANDWIDTH", "p50 us",
	       "p99 us", "p99.9 us", "max us");
	io_dir("read", io->read_iops, io->read_bw, io->read_lat);
	io_dir("write", io->write_iops, io->write_bw, io->write_lat);
	cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  QD",
		 "%.1f (reads and writes in flight, mean over the %.1f s; max %lu), errors %lu",
		 io->mean_queue_depth, io->interval_s, (unsigned long)io->max_queue_depth,
		 (unsigned long)io->errors);
}

/*
 * The model beside the measurement: "read IOPS 12.3K of a 142K bound; read
 * mean 150 us, P99 410 us measured, 140 us and 380 us predicted (closed loop
 * at QD 2.0, 13.1K IOPS; rho 0.42, E[S] 70 us); write IOPS 2.1K measured,
 * 2.3K predicted at WAF 3.1".
 */
static void model_block(const Blox__Admin__NamespaceStats__Model *md)
{
	char a[16], b[16], wr[160] = "";

	if (md->waf_from[0])
		snprintf(wr, sizeof(wr), "; write IOPS %s measured, %s predicted at WAF %.1f%s",
			 rate_str(md->write_iops, a, sizeof(a)),
			 rate_str(md->write_iops_pred, b, sizeof(b)), md->waf,
			 !strcmp(md->waf_from, "life")	 ? " (since the start)"
			 : !strcmp(md->waf_from, "none") ? " (none measured yet)"
							 : "");
	char how[64], x[16];

	if (!strcmp(md->latency_model, "closed"))
		snprintf(how, sizeof(how), "closed loop at QD %.1f, %s IOPS", md->qd,
			 rate_str(md->read_iops_pred, x, sizeof(x)));
	else
		snprintf(how, sizeof(how), "open queue");
	cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  model",
		 "%u dies on %u channel%s: read IOPS %s of a %s bound; read mean %.0f us, P99 "
		 "%.0f us measured, %.0f us and %s%.0f us predicted (%s; rho %.2f%s%s, E[S] "
		 "%.0f us)%s",
		 md->dies, md->channels, md->channels == 1 ? "" : "s", rate_str(md->read_iops, a, sizeof(a)),
		 rate_str(md->read_iops_bound, b, sizeof(b)), md->read_mean_ns / 1e3,
		 md->p99_read_ns / 1e3, md->read_mean_pred_ns / 1e3, md->saturated ? ">= " : "",
		 md->p99_read_pred_ns / 1e3, how, md->rho, md->saturated ? ", saturated" : "",
		 strcmp(md->busy_from, "ops") ? "" : " from op counts", md->service_ns / 1e3, wr);
}

static void zoned_block(const Blox__Admin__ZonedStats *z)
{
	cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  zoned",
		 "block erases min %u max %u mean %.2f, rows %u (%u free, %u waiting for their "
		 "erase), resets whose erase waited %lu (%lu rows erased since)",
		 z->min_erase, z->max_erase, z->mean_erase, z->rows, z->rows_free, z->rows_dirty,
		 (unsigned long)z->resets_deferred, (unsigned long)z->rows_erased_later);
}

static void ftl_block(const Blox__Admin__FtlStats *f)
{
	cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  ftl",
		 "CMT hit %.1f%%, MDC hit %.1f%%, WAF %.2f, GC runs %lu (%lu units moved, %lu "
		 "translation pages written back), host writes paced %lu, erases %lu (min %u "
		 "max %u), free superblocks %lu/%lu%s",
		 f->cmt_hit_rate * 100, f->mdc_hit_rate * 100, f->waf, (unsigned long)f->gc_runs,
		 (unsigned long)f->gc_units_moved, (unsigned long)f->gc_tp_writebacks,
		 (unsigned long)f->gc_paced, (unsigned long)f->flash_erases, f->min_erase,
		 f->max_erase, (unsigned long)f->free_superblocks, (unsigned long)f->superblocks,
		 f->gc_pipeline ? ", GC pipelined" : "");
	if (f->gc_storms)
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  gc storms",
			 "%lu asked, %lu victims taken%s", (unsigned long)f->gc_storms,
			 (unsigned long)f->gc_storm_victims, f->gc_storm_active ? ", one running" : "");
	/* Flash that fails: shown once anything happened (the model is off by default). */
	if (f->read_retries || f->uncorrectable_reads || f->refreshes || f->units_lost ||
	    f->tp_lost || f->lost_reads || f->superblocks_retired || f->read_only ||
	    f->program_failures || f->dies_offline || f->dies_back || f->tp_rebuilt)
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  media",
			 "read retries %lu, uncorrectable reads %lu, refreshes %lu; lost: %lu "
			 "units, %lu translation pages, %lu host reads; program failures %lu; "
			 "superblocks retired %lu; dies offline %u (%lu units lost there, %lu spare "
			 "superblocks taken, %lu translation pages rebuilt), back %lu%s",
			 (unsigned long)f->read_retries, (unsigned long)f->uncorrectable_reads,
			 (unsigned long)f->refreshes, (unsigned long)f->units_lost,
			 (unsigned long)f->tp_lost, (unsigned long)f->lost_reads,
			 (unsigned long)f->program_failures, (unsigned long)f->superblocks_retired,
			 f->dies_offline, (unsigned long)f->offline_units,
			 (unsigned long)f->offline_spare_superblocks, (unsigned long)f->tp_rebuilt,
			 (unsigned long)f->dies_back, f->read_only ? "; READ-ONLY (writes refused)" : "");
	if (f->factory_bad_blocks || f->remapped_blocks || f->spare_blocks_used)
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  spare",
			 "bad blocks: %lu from the factory, %lu remapped to spares (%lu grown); "
			 "spare pool %lu blocks, %lu used",
			 (unsigned long)f->factory_bad_blocks, (unsigned long)f->remapped_blocks,
			 (unsigned long)f->remapped_grown, (unsigned long)f->spare_blocks,
			 (unsigned long)f->spare_blocks_used);
}

/* Flexible Data Placement: the namespace's handles, what each wrote, its WAF. */
static void fdp_block(const Blox__Admin__FdpStats *f)
{
	char line[1024];
	size_t n = 0;

	for (size_t i = 0; i < f->n_handles && n < sizeof(line); i++) {
		const Blox__Admin__FdpStats__Handle *h = f->handles[i];

		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      "; handle %u: host %.1f MiB, media %.1f MiB, WAF %.2f, erased "
				      "%.1f MiB", h->handle, h->host_bytes / 1048576.0,
				      h->media_bytes / 1048576.0, h->waf, h->erased_bytes / 1048576.0);
	}
	cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  fdp",
		 "%zu reclaim unit handles (%s isolated), reclaim unit %.1f MiB, endurance group "
		 "%u; host %.1f MiB, media %.1f MiB (WAF %.2f), erased %.1f MiB%s",
		 f->n_handles, f->persistent ? "persistently" : "initially", f->ru_bytes / 1048576.0,
		 f->endgid, f->host_bytes / 1048576.0, f->media_bytes / 1048576.0, f->waf,
		 f->erased_bytes / 1048576.0, n < sizeof(line) ? line : "");
}

/* @device: the shared device whose totals these are, or "" (the namespace's own). */
static void nand_block(const Blox__Admin__NandStats *n, const char *device)
{
	char whose[96] = "";

	if (device[0])
		snprintf(whose, sizeof(whose), "device %s (every vSSD on it): ", device);
	cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  nand",
		 "%s%u ch, %u dies; reads %lu programs %lu erases %lu (multi-plane groups "
		 "%lu/%lu); suspends %lu, reads served in suspensions %lu",
		 whose, n->channels, n->dies, (unsigned long)n->reads,
		 (unsigned long)n->programs, (unsigned long)n->erases,
		 (unsigned long)n->mp_program_groups, (unsigned long)n->mp_erase_groups,
		 (unsigned long)n->suspends, (unsigned long)n->reads_overtaken);
	if (n->lateness && n->lateness->count)
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  time",
			 "completions late against the model: p50 %.1f us, p99 %.1f us, p99.99 "
			 "%.1f us, max %.1f us (%lu ops); reactor %u CPU %.0f%%",
			 n->lateness->p50_ns / 1e3, n->lateness->p99_ns / 1e3,
			 n->lateness->p9999_ns / 1e3, n->lateness->max_ns / 1e3,
			 (unsigned long)n->lateness->count, n->reactor, n->reactor_cpu * 100);
	if (n->timer_wakeup_late && n->timer_wakeup_late->count)
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  timer",
			 "wake-ups late against their set time: p50 %.1f us, p99 %.1f us, max "
			 "%.1f us (%lu, %lu after their event); set %.0f us early now",
			 n->timer_wakeup_late->p50_ns / 1e3, n->timer_wakeup_late->p99_ns / 1e3,
			 n->timer_wakeup_late->max_ns / 1e3,
			 (unsigned long)n->timer_wakeup_late->count,
			 (unsigned long)n->timer_wakeups_past_event, n->timer_window_ns / 1e3);
	if (n->lent_reads)
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  sent",
			 "reads sent from the store in place (no copy) %lu; erases held for "
			 "them %lu",
			 (unsigned long)n->lent_reads, (unsigned long)n->erases_held);
	if (n->rel_reads || n->grown_bad_blocks || n->factory_bad_blocks || n->dies_offline)
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  rel",
			 "reads decoded %lu (%lu retried, %lu retry steps), uncorrectable %lu; "
			 "grown bad blocks %lu, factory bad blocks %lu; most bit errors in a "
			 "codeword %u; dies gone offline %u, replaced %u",
			 (unsigned long)n->rel_reads, (unsigned long)n->rel_reads_retried,
			 (unsigned long)n->rel_retries, (unsigned long)n->rel_uncorrectable,
			 (unsigned long)n->grown_bad_blocks, (unsigned long)n->factory_bad_blocks,
			 n->max_bit_errors, n->dies_offline, n->dies_replaced);
	if (!strcmp(n->suspend_policy, "smart"))
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  susp",
			 "(smart): granted %lu; not yet (paced) %lu; refused: nearly done %lu, "
			 "capped %lu, heavy host load %lu, GC urgent %lu, not a host read %lu; "
			 "erase-suspend wear %lu",
			 (unsigned long)n->susp_granted, (unsigned long)n->susp_paced,
			 (unsigned long)n->susp_nearly_done,
			 (unsigned long)n->susp_capped, (unsigned long)n->susp_pressure,
			 (unsigned long)n->susp_gc_urgent, (unsigned long)n->susp_not_host_read,
			 (unsigned long)n->erase_suspend_wear);
}

void ctl_print_stats(const ProtobufCMessage *m)
{
	const Blox__Admin__StatsReply *s = (const void *)m;

	printf("bloxd up %.1f s\n", (double)s->uptime_ns / 1e9);
	if (!s->n_namespaces)
		printf("\nno namespaces\n");
	for (size_t i = 0; i < s->n_namespaces; i++) {
		const Blox__Admin__NamespaceStats *n = s->namespaces[i];

		printf("\n");
		cli_wrap(stdout, 0, STATS_WIDTH, "", "namespace %u of %s%s%s%s", n->nsid, n->nqn,
			 n->device[0] ? " (vSSD on " : "", n->device,
			 n->device[0] ? ")" : "");
		if (n->io)
			io_block(n->io);
		if (n->ftl)
			ftl_block(n->ftl);
		if (n->zoned)
			zoned_block(n->zoned);
		if (n->fdp)
			fdp_block(n->fdp);
		if (n->nand)
			nand_block(n->nand, n->device);
		if (n->model)
			model_block(n->model);
	}
	if (s->n_controllers)
		printf("\ncontrollers (connected hosts)\n");
	for (size_t i = 0; i < s->n_controllers; i++) {
		const Blox__Admin__ControllerStats *c = s->controllers[i];

		printf("\n");
		cli_wrap(stdout, 0, STATS_WIDTH, "", "cntlid %u of %s", c->cntlid, c->nqn);
		cli_wrap(stdout, STATS_INDENT, STATS_WIDTH, "  host", "%s", c->host_nqn);
		if (c->io)
			io_block(c->io);
	}
}
