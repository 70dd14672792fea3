/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim's output: the experiment's file (every line also to stdout, so
 * a run can be watched) and the header lines the experiments share: the
 * command, the machine, the device and FTL geometry, timing, GC levels,
 * and the CMT/MDC budgets of the read experiments.
 */
#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "mdc.h" /* FTL_MDC_DESC_BYTES, FTL_MDC_MAX_RUN */
#include "sim.h"

void sim_outf(struct sim_out *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out->fp, fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	fflush(stdout);
}

void sim_out_create(struct sim_out *out, const char *file, const char *dir, const char *name)
{
	char path[1024];

	if (file)
		snprintf(path, sizeof(path), "%s", file);
	else
		snprintf(path, sizeof(path), "%s/%s", dir, name);
	out->fp = fopen(path, "w");
	if (!out->fp)
		sim_die("cannot write %s: %s", path, strerror(errno));
	fprintf(stderr, "writing %s\n", path);
}

void sim_out_open(struct sim_out *out, const struct sim_opts *o, const char *name)
{
	sim_out_create(out, o->out && o->exp ? o->out : NULL, o->outdir, name);
}

void sim_out_close(struct sim_out *out)
{
	fclose(out->fp);
	out->fp = NULL;
}

static void machine(char *buf, size_t n)
{
	struct sim_machine m;

	sim_machine_get(&m);
	snprintf(buf, n, "%s, Linux %s, single-threaded", m.model, m.release);
}

void sim_out_header(struct sim_out *out, const struct sim *s, const char *title)
{
	const struct nand_geometry *g = &s->nc.geo;
	const struct nand_timing *t = &s->nc.timing;
	const struct ftl_layout *l = &s->lay;
	struct ftl_gc_info gc;
	double raw = (double)nand_capacity(g);
	char m[512];

	machine(m, sizeof(m));
	sim_outf(out, "# blox-sim: %s\n", title);
	sim_outf(out, "# command: %s\n", s->o->cmdline);
	sim_outf(out, "# machine: %s; virtual time (FTL CPU time is not modeled)\n", m);
	sim_outf(out, "# device: %u ch x %u die/ch x %u plane x %u blocks x %u pages x %u KiB (+%u B OOB), TLC;"
		" raw %.0f MiB = 1/%.0f of the paper's 128 GiB\n",
	     g->channels, g->dies_per_channel, g->planes_per_die, g->blocks_per_plane,
	     g->pages_per_block, g->page_size / 1024, g->oob_size, raw / MiB,
	     128.0 * 1024 * MiB / raw);
	sim_outf(out, "# timing: tR %llu/%llu/%llu us, tPROG %llu/%llu/%llu us, tBERS %llu us, bus %llu MB/s,"
		" default suspension policy, multi-plane groups %s, FTL plane groups %s\n",
	     (unsigned long long)t->t_read_ns[0] / 1000, (unsigned long long)t->t_read_ns[1] / 1000,
	     (unsigned long long)t->t_read_ns[2] / 1000, (unsigned long long)t->t_prog_ns[0] / 1000,
	     (unsigned long long)t->t_prog_ns[1] / 1000, (unsigned long long)t->t_prog_ns[2] / 1000,
	     (unsigned long long)t->t_erase_ns / 1000, (unsigned long long)t->bus_mbps,
	     g->planes_per_die == 1 ? "n/a (1 plane)" : s->nc.multiplane ? "on" : "off",
	     g->planes_per_die == 1 ? "n/a" : s->fc.plane_groups ? "on" : "off");
	sim_outf(out, "# ftl: %u superblocks of %u units (%.0f MiB), 2 for checkpoints; capacity %u units"
		" (%.1f MiB), %u translation pages; op_permille %u\n",
	     l->nr_sb, l->units_per_sb, l->units_per_sb * 4096.0 / MiB, s->cap,
	     s->cap * 4096.0 / MiB, l->nr_tp, s->fc.op_permille);
	ftl_inspect_gc(s->f, &gc);
	{
		struct ftl_config def;

		ftl_config_default(&def);
		sim_outf(out, "# gc levels (permille of the %u spare superblocks): idle %u, background %u,"
			" foreground %u, urgent %u%s = %u/%u/%u/%u superblocks free;"
			" write buffer %u pages, volatile cache %s\n",
		     gc.spare, s->fc.gc_idle_permille, s->fc.gc_bg_permille,
		     s->fc.gc_fg_permille, s->fc.gc_urgent_permille,
		     s->fc.gc_bg_permille == def.gc_bg_permille &&
				     s->fc.gc_idle_permille == def.gc_idle_permille
			     ? " (FTL defaults)" : "",
		     gc.lvl_idle, gc.lvl_bg, gc.lvl_fg, gc.lvl_urgent,
		     s->fc.write_buffer_pages, s->fc.volatile_cache ? "on" : "off");
	}
}

void sim_out_budgets(struct sim_out *out, const struct sim *s)
{
	const struct sim_opts *o = s->o;
	uint32_t tps = o->cmt_kib * 1024 / FTL_UNIT;
	uint32_t desc = o->mdc_bytes / FTL_MDC_DESC_BYTES;

	sim_outf(out, "# budgets: CMT %u KiB%s = %u translation pages = %u MiB of LBA range; MDC %u B%s ="
		" %u descriptors of 10 B, min run %u\n",
	     o->cmt_kib, o->cmt_kib == 256 ? " (the paper's, not scaled)" : "", tps, tps * 4,
	     o->mdc_bytes, o->mdc_bytes == 2048 ? " (the paper's, not scaled)" : "", desc,
	     o->mdc_min_run);
	sim_outf(out, "#   a run continuing a descriptor (LBA and PPN both) merges into it, so a descriptor"
		" spans up to %u units (%.0f MiB) across translation pages: the MDC can cover up to"
		" %u x %.0f MiB of sequentially written data\n",
	     FTL_MDC_MAX_RUN, FTL_MDC_MAX_RUN * 4096.0 / MiB, desc, FTL_MDC_MAX_RUN * 4096.0 / MiB);
	sim_outf(out, "#   the knees sit at absolute LBA ranges set by the budgets; the sweep spans the"
		" capacity (%.0f MiB)\n",
	     s->cap * 4096.0 / MiB);
	sim_outf(out, "# hot regions: %u (%.1f MiB each), hot_top %u (every region read can be hot; only the 64"
		" hottest are prefetched)\n",
	     o->hot_regions, s->cap * 4096.0 / MiB / o->hot_regions, o->hot_top);
}

