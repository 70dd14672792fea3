/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim powercut: acknowledged data lost at a power cut against the
 * hold-up of power-loss protection (ftl_config.plp_ms), under 4 KiB random
 * writes with GC running, in virtual time.
 *
 * Per hold-up: a fresh device (RAM store, TLC timing) filled once with
 * 128 KiB sequential writes, then random 4 KiB writes over the whole
 * capacity at the queue depth (the volatile write cache on, GC working),
 * then cycles: the writes go on for a random time (20..520 ms, so that the
 * cut falls at any moment of the flash's work, not only as a write
 * completes), and power goes with writes in flight, as bloxd's nand
 * backend makes one (daemon/bdev/bdev_ftl_power.c): the FTL submits its
 * write buffer and GC stops where it is (ftl_power_fail()), the device
 * runs for the hold-up, the host data still only in the buffer is counted
 * lost (ftl_volatile_units()) and the hold-up used is the time until the
 * flash was idle (in steps of 50 us), the flash ops in flight are cut (programs
 * in their array phase torn, nand_power_cut()) and a fresh FTL instance is
 * rebuilt from the store as after a crash; then the writes go on.
 *
 * Each hold-up runs twice (--suspend both, the default), from the same seed:
 * with the power-loss flush suspending a running erase on a die where the
 * buffer's programs wait (ftl_config.plp_suspend, nand_set_plp_flush()),
 * and without, where a program queued behind an erase waits for its end.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define PC_MAX_PTS 16

struct pc_opts {
	uint32_t holdup[PC_MAX_PTS], nholdup;
	uint32_t cycles, qd, raw_mib, buffer_pages;
	uint32_t rate; /* 4 KiB writes a second; 0: a closed loop at the queue depth */
	int suspend; /* 0 off, 1 on, 2 both */
	uint64_t seed;
	const char *out;
};

struct pc_point {
	uint32_t holdup_ms, cycles, gc_at_cut, lost_cuts, torn;
	bool suspend;
	uint64_t plp_suspends; /* erases the flush suspended */
	double buffered_kib, lost_kib, max_lost_kib, used_ms, max_used_ms;
};

static void pc_usage(void)
{
	printf("usage: blox-sim powercut [options]\n"
	       "  --holdup a,b,...   hold-up times in ms; 0: no protection (default 0,1,2,5,10,20,50)\n"
	       "  --cycles N         power cuts per hold-up (default 20)\n"
	       "  --raw-mib N        the device's raw capacity (default 512)\n"
	       "  --qd N             queue depth of the writes (default 32)\n"
	       "  --buffer-pages N   the FTL's write buffer in flash pages (default the FTL's)\n"
	       "  --suspend off|on|both  the flush suspends running erases (default both)\n"
	       "  --rate N           4 KiB writes a second (default 2000); 0: a closed loop at the\n"
	       "                     queue depth, cut at a random moment with writes in flight\n"
	       "  --seed N           LBAs and cut moments (default 1)\n"
	       "  --out FILE         results (default stdout)\n");
}

/*
 * 4 KiB random writes at @rate a second for @ns of virtual time: each
 * millisecond's writes go in together (at the queue depth, each acknowledged
 * once buffered; when the buffer is full they wait and the load lags), and
 * the FTL's background work runs between them. Nothing of the host's is in
 * flight at the end, the flash may be busy at any point of its work.
 */
static void paced_writes(struct sim *s, uint32_t rate, uint64_t ns, double *carry)
{
	uint64_t end = blox_clock_now(&s->vd.clock) + ns;

	while (blox_clock_now(&s->vd.clock) < end) {
		uint64_t now = blox_clock_now(&s->vd.clock);
		uint64_t slice = now + 1000000 < end ? now + 1000000 : end, n;

		*carry += (double)rate * (double)(slice - now) / 1e9;
		n = (uint64_t)*carry;
		*carry -= (double)n;
		if (n)
			sim_run_job(s, SIM_JOB_RANDW, n);
		ftl_process(s->f);
		if (blox_clock_now(&s->vd.clock) < slice)
			ftl_vdrive_run(&s->vd, s->f, slice);
	}
}

static void run_point(const struct pc_opts *po, uint32_t holdup, bool suspend,
		      struct pc_point *p)
{
	struct sim_opts o = {
		.raw_mib = po->raw_mib, .channels = 4, .dies = 1, .planes = 1, .ppb = 96,
		.page_size = 16384,
		.cmt_kib = 256, .mdc_bytes = 2048, .mdc_min_run = 32, .hot_regions = 128, .hot_top = 128,
		.op_permille = 70, .qd = po->qd, .multiplane = true, .plane_groups = true,
		.seed = po->seed, .gc_bg = -1, .gc_idle = -1,
	};
	uint64_t rng = po->seed * 0x9e3779b97f4a7c15ull + 1;
	double carry = 0;
	struct ftl_config fc;
	struct sim s;

	memset(p, 0, sizeof(*p));
	p->holdup_ms = holdup;
	p->suspend = suspend;
	sim_base_config(&fc, &o);
	fc.plp_ms = holdup;
	fc.plp_suspend = suspend;
	if (po->buffer_pages)
		fc.write_buffer_pages = po->buffer_pages;
	sim_open(&s, &o, &fc);
	sim_fill(&s, 0, 0);
	sim_run_job(&s, SIM_JOB_RANDW, s.cap / 2); /* GC at work from here */
	for (uint32_t c = 0; c < po->cycles; c++) {
		struct nand_power_cut_stats cut;
		struct ftl_gc_info gi;
		uint64_t t0, buffered, lost, used = 0;
		int rc;

		uint64_t run_ns = (20000 + sim_rnd(&rng) % 500000) * 1000ull;

		if (po->rate) {
			paced_writes(&s, po->rate, run_ns, &carry);
		} else {
			sim_run_for(&s, SIM_JOB_RANDW, run_ns);
			sim_cut(&s);
		}
		ftl_inspect_gc(s.f, &gi);
		p->gc_at_cut += gi.active;
		buffered = ftl_volatile_units(s.f);
		t0 = blox_clock_now(&s.vd.clock);
		if (holdup) {
			uint64_t end = t0 + (uint64_t)holdup * 1000000ull, now = t0;

			/* In steps of 50 us: the hold-up ends early once the flash is idle. */
			ftl_power_fail(s.f);
			while (now < end && nand_inflight(s.dev)) {
				ftl_vdrive_run(&s.vd, s.f, now + 50000 < end ? now + 50000 : end);
				now = blox_clock_now(&s.vd.clock) > now + 50000 ? blox_clock_now(&s.vd.clock)
										: now + 50000;
			}
			used = (now < end ? now : end) - t0;
		}
		lost = ftl_volatile_units(s.f);
		if (nand_power_cut(s.dev, true, &cut))
			sim_die("power cut: a torn page not written");
		p->torn += cut.torn;
		ftl_destroy(s.f);
		s.f = NULL;
		sim_drop_inflight(&s);
		if ((rc = ftl_create(&s.fc, &s.vd.env, &s.res, &s.f)))
			sim_die("rebuild after a power cut: %d", rc);
		p->cycles++;
		p->buffered_kib += buffered * FTL_UNIT / 1024.0;
		p->lost_kib += lost * FTL_UNIT / 1024.0;
		p->lost_cuts += lost > 0;
		if (lost * FTL_UNIT / 1024.0 > p->max_lost_kib)
			p->max_lost_kib = lost * FTL_UNIT / 1024.0;
		p->used_ms += used / 1e6;
		if (used / 1e6 > p->max_used_ms)
			p->max_used_ms = used / 1e6;
	}
	p->plp_suspends = nand_dev_stats(s.dev)->suspend.plp_suspends;
	p->buffered_kib /= p->cycles;
	p->lost_kib /= p->cycles;
	p->used_ms /= p->cycles;
	sim_close(&s);
}

int sim_powercut_main(int argc, char **argv)
{
	struct pc_opts o = {
		.holdup = { 0, 1, 2, 5, 10, 20, 50 }, .nholdup = 7, .cycles = 20, .qd = 32,
		.raw_mib = 512, .suspend = 2, .rate = 2000, .seed = 1,
	};
	static const struct sim_choice onoffboth[] = { { "off", 0 }, { "on", 1 }, { "both", 2 },
						       { NULL, 0 } };
	const struct sim_opt opts[] = {
		SIM_OPT_U32S("--holdup", o.holdup, &o.nholdup, PC_MAX_PTS, 0, 10000),
		SIM_OPT_U32("--cycles", &o.cycles, 1, 10000), SIM_OPT_U32("--qd", &o.qd, 1, SIM_MAX_QD),
		SIM_OPT_U32("--raw-mib", &o.raw_mib, 64, 65536),
		SIM_OPT_U32("--buffer-pages", &o.buffer_pages, 0, 65536), SIM_OPT_SEED(&o.seed),
		SIM_OPT_CHOICE("--suspend", &o.suspend, onoffboth),
		SIM_OPT_U32("--rate", &o.rate, 0, 1000000),
		SIM_OPT_STR("--out", &o.out), SIM_OPT_END,
	};
	struct sim_machine m;
	char cmd[1024];
	FILE *out = stdout;
	double w0 = sim_wall_now();

	if (!sim_opts_parse("powercut", pc_usage, opts, argc, argv))
		return 0;
	if (o.out && !(out = fopen(o.out, "w")))
		sim_die("%s: cannot write", o.out);
	sim_machine_get(&m);
	sim_cmdline(cmd, sizeof(cmd), argc, argv);
	fprintf(out, "# blox-sim powercut: acknowledged data lost at a power cut against the "
		     "hold-up of power-loss protection (virtual time)\n"
		     "# command: %s\n# machine: %s, %ld CPUs, %s %s (wall time only)\n",
		cmd, m.model, m.cpus, m.os, m.release);
	fprintf(out, "# device: %u MiB raw, 4 ch x 1 die x 1 plane, 96 pages of 16 KiB a block, TLC "
		     "timing, 7%% over-provisioning; filled, then 4 KiB random writes over the "
		     "capacity, ",
		o.raw_mib);
	if (o.rate)
		fprintf(out, "%u a second (each ms's writes together, at QD %u)", o.rate, o.qd);
	else
		fprintf(out, "a closed loop at QD %u", o.qd);
	fprintf(out, " (volatile write cache on, GC working); %u cuts per hold-up, each at a "
		     "random moment 20..520 ms into the writes, then rebuilt from flash\n"
		     "# suspend: on, the flush suspends an erase running on a die where the "
		     "buffer's programs wait (plp_susp: erases it suspended); off, they wait for its "
		     "end; both from the same seed\n",
		o.cycles);
	fprintf(out, "holdup_ms suspend cuts gc_at_cut buffered_KiB lost_KiB max_lost_KiB "
		     "cuts_losing used_ms max_used_ms plp_susp torn\n");
	for (uint32_t i = 0; i < o.nholdup; i++) {
		for (int sp = 0; sp < 2; sp++) {
			struct pc_point p;

			if (o.suspend != 2 && o.suspend != sp)
				continue;
			if (!o.holdup[i] && sp && o.suspend == 2)
				continue; /* no hold-up, nothing to suspend for */
			run_point(&o, o.holdup[i], sp, &p);
			fprintf(out, "%9u %7s %4u %9u %12.1f %8.1f %12.1f %11u %7.2f %11.2f %8" PRIu64
				     " %4u\n",
				p.holdup_ms, p.suspend ? "on" : "off", p.cycles, p.gc_at_cut,
				p.buffered_kib, p.lost_kib, p.max_lost_kib, p.lost_cuts, p.used_ms,
				p.max_used_ms, p.plp_suspends, p.torn);
			fflush(out);
		}
	}
	fprintf(out, "# wall %.1f s\n", sim_wall_now() - w0);
	if (out != stdout)
		fclose(out);
	return 0;
}
