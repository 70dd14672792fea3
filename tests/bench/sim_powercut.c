/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim powercut: acknowledged data lost at a power cut against the
 * hold-up of power-loss protection (ftl_config.plp_ms), under 4 KiB random
 * writes with GC running, in virtual time.
 *
 * Per hold-up: a fresh device (RAM store, TLC timing) filled once with
 * 128 KiB sequential writes, then random 4 KiB writes over the whole
 * capacity at the queue depth (the volatile write cache on, GC working),
 * then cycles: a random number of writes, a power cut as bloxd's nand
 * backend makes one (daemon/bdev/bdev_ftl_power.c): the FTL submits its
 * write buffer and GC stops where it is (ftl_power_fail()), the device
 * runs for the hold-up, the host data still only in the buffer is counted
 * lost (ftl_volatile_units()) and the hold-up used is the time until the
 * flash was idle (in steps of 50 us), the flash ops in flight are cut (programs
 * in their array phase torn, nand_power_cut()) and a fresh FTL instance is
 * rebuilt from the store as after a crash; then the writes go on. Running
 * erases are not suspended for the buffer's programs (the FTL has no such
 * mode yet): a program queued behind an erase waits for it.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define PC_MAX_PTS 16

struct pc_opts {
	uint32_t holdup[PC_MAX_PTS], nholdup;
	uint32_t cycles, qd, raw_mib, buffer_pages;
	uint64_t seed;
	const char *out;
};

struct pc_point {
	uint32_t holdup_ms, cycles, gc_at_cut, lost_cuts, torn;
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
	       "  --seed N           LBAs and cut moments (default 1)\n"
	       "  --out FILE         results (default stdout)\n");
}

static void run_point(const struct pc_opts *po, uint32_t holdup, struct pc_point *p)
{
	struct sim_opts o = {
		.raw_mib = po->raw_mib, .channels = 4, .dies = 1, .planes = 1, .ppb = 96,
		.page_size = 16384,
		.cmt_kib = 256, .mdc_bytes = 2048, .mdc_min_run = 32, .hot_regions = 128, .hot_top = 128,
		.op_permille = 70, .qd = po->qd, .multiplane = true, .plane_groups = true,
		.seed = po->seed, .gc_bg = -1, .gc_idle = -1,
	};
	uint64_t rng = po->seed * 0x9e3779b97f4a7c15ull + 1;
	struct ftl_config fc;
	struct sim s;

	memset(p, 0, sizeof(*p));
	p->holdup_ms = holdup;
	sim_base_config(&fc, &o);
	fc.plp_ms = holdup;
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

		sim_run_job(&s, SIM_JOB_RANDW, 64 + sim_rnd(&rng) % 4096);
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
	p->buffered_kib /= p->cycles;
	p->lost_kib /= p->cycles;
	p->used_ms /= p->cycles;
	sim_close(&s);
}

int sim_powercut_main(int argc, char **argv)
{
	struct pc_opts o = {
		.holdup = { 0, 1, 2, 5, 10, 20, 50 }, .nholdup = 7, .cycles = 20, .qd = 32,
		.raw_mib = 512, .seed = 1,
	};
	const struct sim_opt opts[] = {
		SIM_OPT_U32S("--holdup", o.holdup, &o.nholdup, PC_MAX_PTS, 0, 10000),
		SIM_OPT_U32("--cycles", &o.cycles, 1, 10000), SIM_OPT_U32("--qd", &o.qd, 1, SIM_MAX_QD),
		SIM_OPT_U32("--raw-mib", &o.raw_mib, 64, 65536),
		SIM_OPT_U32("--buffer-pages", &o.buffer_pages, 0, 65536), SIM_OPT_SEED(&o.seed),
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
		     "timing, 7%% over-provisioning; filled, then 4 KiB random writes at QD %u over "
		     "the capacity (volatile write cache on, GC working); %u cuts per hold-up, each "
		     "after 64..4159 writes, then rebuilt from flash; running erases not suspended\n",
		o.raw_mib, o.qd, o.cycles);
	fprintf(out, "holdup_ms cuts gc_at_cut buffered_KiB lost_KiB max_lost_KiB cuts_losing "
		     "used_ms max_used_ms torn\n");
	for (uint32_t i = 0; i < o.nholdup; i++) {
		struct pc_point p;

		run_point(&o, o.holdup[i], &p);
		fprintf(out, "%9u %4u %9u %12.1f %8.1f %12.1f %11u %7.2f %11.2f %4u\n", p.holdup_ms,
			p.cycles, p.gc_at_cut, p.buffered_kib, p.lost_kib, p.max_lost_kib, p.lost_cuts,
			p.used_ms, p.max_used_ms, p.torn);
		fflush(out);
	}
	fprintf(out, "# wall %.1f s\n", sim_wall_now() - w0);
	if (out != stdout)
		fclose(out);
	return 0;
}
