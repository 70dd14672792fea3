/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox-sim experiment "lifetime": FlashBlox wear balance across `channel`
 * vSSDs over a device's lifetime, driving the product's resource manager
 * (ftl/include/flashblox.h, ftl/rm.c) with an erase-level model of years
 * of writes in virtual time.
 *
 *   blox-sim lifetime [--channels N] [--bound-permille X] [--years Y] [--out FILE]
 *
 * The model. Running the FTL for years is too slow, so each tenant is an
 * erase rate: its host writes (drive writes per day of its own capacity)
 * times the erase write amplification of its pattern give block erases
 * per day, spread evenly over the dies it owns now (an FTL instance
 * stripes every superblock over all its dies and levels wear inside
 * itself). The write amplification is measured first with the real FTL
 * on the emulated NAND (sim_core.c): one tenant's dies, planes and blocks
 * per plane, fewer pages per block (--waf-ppb) and the CMT scaled with
 * them, random and sequential writes; WAF_e = block erases x units per
 * block / host units.
 *
 * Each step (an hour of virtual time) adds the erases to the dies, hands
 * the per-die counts to fbx_wear_update(), and, in the run with swaps,
 * makes the check fbx_check_due() says is due with fbx_swap_check() and
 * carries out its moves (fbx_move_done()). A move of one die costs one
 * erase of every block of the destination die (the program/erase cycle
 * the copied data takes) and one of every block of the source die (it is
 * erased before another tenant may have it): an upper bound. The run
 * without swaps is the same, with no checks made. The main run's tables
 * (imbalance every quarter year, the summary, the last check as the rm saw
 * it, every swap) are followed by a sweep of x and N for both mixes of
 * tenants and a table of fewer free channels.
 *
 * Nothing here is global: the options are parsed into a struct lt_opts
 * that is passed down.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flashblox.h"
#include "sim.h"

#define LT_MAX_CH 64u
#define LT_MAX_DIES BLOX_FTL_MAX_DIES
#define LT_DAY_STEPS 24u /* one step is an hour */
#define LT_QUARTER (365.25 / 4.0)

enum lt_kind { LT_RAND, LT_SEQ, LT_KINDS };

static const char *const kind_name[LT_KINDS] = { "rand", "seq" };

/*
 * The tenants' write profiles, hottest first (a mix below says which
 * tenant takes which). Erase rates differ about 100x between A and F (F
 * nearly idle).
 */
struct lt_profile {
	char name;
	enum lt_kind kind;
	double dwpd; /* drive writes per day of the tenant's capacity */
};

static const struct lt_profile profiles[] = {
	{ 'A', LT_RAND, 1.0 }, { 'B', LT_RAND, 0.3 },  { 'C', LT_SEQ, 1.0 },
	{ 'D', LT_RAND, 0.1 }, { 'E', LT_RAND, 0.03 }, { 'F', LT_RAND, 0.01 },
};

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

/*
 * Which profile tenant @i takes: "mixed" A..F in turn (so with more than
 * six tenants two are A); "one-hot" A once, then C..F in turn (only A
 * writes faster than the device's average: the case of the paper's
 * analysis).
 */
enum lt_mix { LT_MIXED, LT_ONE_HOT, LT_MIXES };

static const char *const mix_name[LT_MIXES] = { "mixed", "one-hot" };

static const struct lt_profile *mix_profile(enum lt_mix mix, uint32_t i)
{
	if (mix == LT_ONE_HOT)
		return &profiles[i == 0 ? 0 : 2 + (i - 1) % 4];
	return &profiles[i % NPROFILES];
}

struct lt_opts {
	uint32_t channels, bound_permille, rated_pe;
	int free_ch; /* -1: a quarter of the channels */
	int mix; /* enum lt_mix */
	double years;
	uint32_t waf_ppb;
	bool sweep;
	const char *out, *outdir;
	char cmdline[1024];
};

/* The write amplification the real FTL showed per write pattern. */
struct lt_waf {
	double erase[LT_KINDS], prog[LT_KINDS]; /* WAF_e and programmed units / host units */
	uint64_t host_units[LT_KINDS], erases[LT_KINDS];
	uint32_t cap_units, nr_tp, cmt_pages;
	double raw_mib, wall;
};

/* What all runs share: the options, the device and the measured WAF. */
struct lt_ctx {
	const struct lt_opts *o;
	struct lt_waf waf;
	struct ftl_config fc;
};

struct lt_cfg {
	uint32_t channels, bound_permille, free_ch;
	enum lt_mix mix;
	bool swaps;
};

struct lt_row {
	double day, avg, max, imb;
	uint64_t checks, swaps;
};

struct lt_log {
	double day, avg, imb;
	char why[160];
};

#define LT_MAX_TENANTS LT_MAX_CH

struct lt_tenant {
	const struct lt_profile *p;
	uint32_t id; /* owner id: its index + 1 */
	uint32_t idx, of; /* its turn among the tenants of its profile, and their number */
	uint32_t ch0; /* its first channel */
	struct fbx_alloc a;
	double erases_per_step; /* block erases per step, over all its dies */
	uint32_t moved; /* swaps that moved it */
};

/* One channel at a check: the rm's inputs and its owner. */
struct lt_chan_state {
	double wear;
	uint64_t since;
	uint32_t owner;
};

struct lt_run {
	struct lt_cfg cfg;
	uint32_t ntenants, rounds;
	double check_step;
	struct lt_tenant t[LT_MAX_TENANTS];
	struct lt_row *rows;
	size_t nrows, caprows;
	struct lt_log *log;
	size_t nlog, caplog;
	uint64_t steps, checks, swaps, idle_checks, refused, moves;
	char refusal[160]; /* the last reason a needed swap was not made */
	double host_erases, mig_erases; /* block erases */
	double first_dead; /* day the first channel reached rated_pe; < 0: not in the run */
	double end_day;
	struct fbx_wear end;
	double worst1, worst1_day; /* after the first round of checks */
	double worst_last, worst_last_day; /* in the last round */
	/* The last check, as the rm saw it. */
	struct lt_chan_state last[LT_MAX_CH];
	char last_why[160];
	double last_day;
	struct lt_chan_state fin[LT_MAX_CH];
};

static void usage(void)
{
	printf("usage: blox-sim lifetime [options]\n"
	       "  FlashBlox wear balance across channel vSSDs over a device lifetime: the\n"
	       "  resource manager (ftl/rm.c) driven by an erase-level model in virtual time\n"
	       "  --channels N          channels of the device (default 8; 4 dies each, nand defaults)\n"
	       "  --free N              channels left free (default a quarter); one 1-channel\n"
	       "                        vSSD per other channel\n"
	       "  --mix mixed|one-hot   the vSSDs' profiles: A..F in turn, or A once then C..F\n"
	       "                        (default mixed; A rand 1 DWPD, B rand 0.3, C seq 1,\n"
	       "                        D rand 0.1, E rand 0.03, F rand 0.01)\n"
	       "  --bound-permille X    x of the bound 1 + x (default 100)\n"
	       "  --rated-pe N          rated P/E cycles (default the cell's: TLC 3000)\n"
	       "  --years Y             at most Y years of virtual time (default 10); a run\n"
	       "                        ends when the average wear reaches rated_pe\n"
	       "  --waf-ppb N           pages per block of the FTL run measuring WAF (default 96)\n"
	       "  --sweep on|off        the x and N sweep and the free-channel table (default on)\n"
	       "  --out FILE            output file (default DIR/flashblox_lifetime.txt)\n"
	       "  --outdir DIR          (default docs/results)\n");
}

static bool parse(struct lt_opts *o, int argc, char **argv)
{
	static const struct sim_choice mixes[] = { { "mixed", LT_MIXED }, { "one-hot", LT_ONE_HOT },
						   { NULL, 0 } };
	const struct sim_opt opts[] = {
		SIM_OPT_U32("--channels", &o->channels, 2, LT_MAX_CH),
		SIM_OPT_INT("--free", &o->free_ch, 0, LT_MAX_CH),
		SIM_OPT_CHOICE("--mix", &o->mix, mixes),
		SIM_OPT_U32("--bound-permille", &o->bound_permille, 1, 10000),
		SIM_OPT_U32("--rated-pe", &o->rated_pe, 1, 1000000),
		SIM_OPT_POS("--years", &o->years),
		SIM_OPT_U32("--waf-ppb", &o->waf_ppb, 3, 384),
		SIM_OPT_ONOFF("--sweep", &o->sweep),
		SIM_OPT_STR("--out", &o->out),
		SIM_OPT_STR("--outdir", &o->outdir),
		SIM_OPT_END,
	};

	*o = (struct lt_opts){ .channels = 8, .bound_permille = 100, .free_ch = -1, .years = 10,
			       .waf_ppb = 96, .sweep = true, .outdir = "docs/results" };
	sim_cmdline(o->cmdline, sizeof(o->cmdline), argc, argv);
	if (!sim_opts_parse("lifetime", usage, opts, argc, argv))
		return false;
	if (o->years > 100)
		sim_die("--years: expected 0..100, got %g", o->years);
	if (o->free_ch >= (int)o->channels)
		sim_die("--free must leave a channel for a vSSD");
	if (o->waf_ppb % 3)
		sim_die("--waf-ppb must be a multiple of 3 (TLC)");
	return true;
}

/* The device of a run: the NAND defaults (8 ch x 4 dies x 2 planes x 64 blocks, TLC) N ch. */
static void lt_geometry(struct nand_geometry *g, uint32_t channels)
{
	nand_geometry_default(g);
	g->channels = channels;
}

static uint32_t lt_free_default(uint32_t channels)
{
	return channels / 4;
}

static double lt_rated(const struct lt_opts *o)
{
	struct fbx_params p;
	struct nand_geometry g;

	lt_geometry(&g, o->channels);
	fbx_params_default(&p, g.cell);
	return o->rated_pe ? o->rated_pe : p.rated_pe;
}

/* ---- WAF of the real FTL ---- */

static uint64_t store_erases(const struct sim *s)
{
	uint64_t n = 0;

	for (uint32_t d = 0; d < nand_dies(&s->nc.geo); d++)
		n += s->store->dies[d].erases;
	return n;
}

static uint64_t programmed(const struct ftl_stats *st)
{
	return st->units_written_host + st->units_written_gc + st->units_written_tp +
	       st->units_padded;
}

/*
 * One tenant's FTL: one channel's dies, planes and blocks per plane of the
 * lifetime device, --waf-ppb pages per block, the CMT scaled by the same
 * factor (so it covers the same share of the translation pages), other
 * settings the FTL's defaults. Sequential fill, 2 x capacity of @kind
 * writes, then 1 x capacity measured.
 */
static void measure_waf(struct lt_ctx *c, enum lt_kind kind)
{
	const struct lt_opts *o = c->o;
	struct nand_geometry g;
	struct sim_opts so;
	struct sim *s = calloc(1, sizeof(*s));
	struct ftl_stats a, b;
	uint64_t e0 = 0, e1;
	double w0 = sim_wall_now();
	uint32_t upb;

	if (!s)
		sim_die("out of memory");
	lt_geometry(&g, o->channels);
	memset(&so, 0, sizeof(so));
	so.channels = 1;
	so.dies = g.dies_per_channel;
	so.planes = g.planes_per_die;
	so.ppb = o->waf_ppb;
	so.page_size = g.page_size;
	so.raw_mib = (uint64_t)g.dies_per_channel * g.planes_per_die * g.blocks_per_plane *
		     o->waf_ppb * g.page_size / (1024 * 1024);
	so.qd = 32;
	so.seed = 1;
	so.multiplane = true;
	so.outdir = o->outdir;
	sim_open(s, &so, &c->fc);
	if (s->nc.geo.blocks_per_plane != g.blocks_per_plane)
		sim_die("waf device: %u blocks per plane, want %u", s->nc.geo.blocks_per_plane,
			g.blocks_per_plane);
	upb = s->nc.geo.pages_per_block * (s->nc.geo.page_size / FTL_UNIT);
	sim_fill(s, 0, 0);
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 2) {
			ftl_get_stats(s->f, &a);
			e0 = store_erases(s);
		}
		if (kind == LT_RAND)
			sim_run_job(s, SIM_JOB_RANDW, s->cap);
		else
			sim_fill(s, 0, 0);
	}
	ftl_get_stats(s->f, &b);
	e1 = store_erases(s);
	/* Read a sample back: the run wrote what it meant to. */
	s->range = s->cap;
	sim_run_job(s, SIM_JOB_READ, 16384);
	c->waf.host_units[kind] = b.units_written_host - a.units_written_host;
	c->waf.erases[kind] = e1 - e0;
	c->waf.erase[kind] = (double)(e1 - e0) * upb / (double)c->waf.host_units[kind];
	c->waf.prog[kind] = (double)(programmed(&b) - programmed(&a)) /
			    (double)c->waf.host_units[kind];
	c->waf.cap_units = s->cap;
	c->waf.nr_tp = s->lay.nr_tp;
	c->waf.cmt_pages = s->lay.cmt_pages;
	c->waf.raw_mib = (double)nand_capacity(&s->nc.geo) / MiB;
	c->waf.wall += sim_wall_now() - w0;
	sim_close(s);
	free(s);
}

/* ---- the lifetime model ---- */

static void push_row(struct lt_run *r, double day, const struct fbx_wear *w)
{
	if (r->nrows == r->caprows) {
		size_t cap = r->caprows ? r->caprows * 2 : 64;
		struct lt_row *n = realloc(r->rows, cap * sizeof(*n));

		if (!n)
			sim_die("out of memory");
		r->rows = n;
		r->caprows = cap;
	}
	r->rows[r->nrows++] = (struct lt_row){ .day = day, .avg = w->avg, .max = w->max,
					       .imb = w->imbalance, .checks = w->checks,
					       .swaps = w->swaps };
}

static void push_log(struct lt_run *r, double day, const struct fbx_wear *w, const char *why)
{
	if (r->nlog == r->caplog) {
		size_t cap = r->caplog ? r->caplog * 2 : 64;
		struct lt_log *n = realloc(r->log, cap * sizeof(*n));

		if (!n)
			sim_die("out of memory");
		r->log = n;
		r->caplog = cap;
	}
	r->log[r->nlog].day = day;
	r->log[r->nlog].avg = w->avg;
	r->log[r->nlog].imb = w->imbalance;
	snprintf(r->log[r->nlog].why, sizeof(r->log[r->nlog].why), "%s", why);
	r->nlog++;
}

static void run_free(struct lt_run *r)
{
	free(r->rows);
	free(r->log);
}

static void chan_state(const struct fbx_rm *rm, uint32_t channels, uint32_t dpc,
		       struct lt_chan_state *out)
{
	for (uint32_t ch = 0; ch < channels; ch++) {
		out[ch].wear = fbx_channel_wear(rm, ch, &out[ch].since);
		out[ch].owner = fbx_die_owner(rm, ch * dpc);
		for (uint32_t d = 1; d < dpc; d++)
			if (fbx_die_owner(rm, ch * dpc + d) != out[ch].owner)
				out[ch].owner = UINT32_MAX; /* split: not in these runs */
	}
}

/* A tenant's label: its profile and, with more than one of a profile, its turn. */
static void tenant_label(const struct lt_tenant *t, char *buf, size_t n)
{
	if (t->of > 1)
		snprintf(buf, n, "%c%u", t->p->name, t->idx + 1);
	else
		snprintf(buf, n, "%c", t->p->name);
}

static const char *owner_label(const struct lt_run *r, uint32_t owner, char *buf, size_t n)
{
	if (owner == FBX_FREE)
		snprintf(buf, n, "free");
	else if (owner == UINT32_MAX || owner > r->ntenants)
		snprintf(buf, n, "?");
	else
		tenant_label(&r->t[owner - 1], buf, n);
	return buf;
}

/*
 * One run of @cfg: until the average wear reaches rated_pe or --years
 * pass, or for exactly @steps steps when nonzero.
 */
static void lt_simulate(const struct lt_ctx *c, const struct lt_cfg *cfg, uint64_t steps,
			struct lt_run *r)
{
	const struct lt_opts *o = c->o;
	struct nand_geometry g;
	struct fbx_params p;
	struct fbx_rm *rm;
	struct fbx_wear w;
	double acc[LT_MAX_DIES] = { 0 }, rated = lt_rated(o), next_row = LT_QUARTER;
	uint64_t die_e[LT_MAX_DIES] = { 0 };
	uint64_t max_steps = steps ? steps : (uint64_t)(o->years * 365.25 * LT_DAY_STEPS);
	uint32_t ndies, dpc, bpd, upb;
	char why[200];
	int rc;

	memset(r, 0, sizeof(*r));
	r->cfg = *cfg;
	r->first_dead = -1;
	lt_geometry(&g, cfg->channels);
	ndies = nand_dies(&g);
	dpc = g.dies_per_channel;
	bpd = g.planes_per_die * g.blocks_per_plane;
	upb = g.pages_per_block * (g.page_size / FTL_UNIT);
	if (ndies > LT_MAX_DIES)
		sim_die("%u channels: %u dies, more than %u", cfg->channels, ndies, LT_MAX_DIES);
	fbx_params_default(&p, g.cell);
	p.bound_permille = cfg->bound_permille;
	p.rated_pe = (uint32_t)rated;
	/*
	 * --free sets the free channels; without the rm's spare, so the free-0
	 * rows show what a device with every channel given out does.
	 */
	p.spare_channel = false;
	if ((rc = fbx_rm_create(&g, &p, &rm)))
		sim_die("fbx_rm_create: %d", rc);
	r->ntenants = cfg->channels - cfg->free_ch;
	for (uint32_t i = 0; i < r->ntenants; i++) {
		struct lt_tenant *t = &r->t[i];
		struct fbx_ask ask = { .iso = FBX_CHANNEL, .count = 1 };
		double host_units_day;

		t->p = mix_profile(cfg->mix, i);
		t->id = i + 1;
		for (uint32_t k = 0; k < r->ntenants; k++)
			if (mix_profile(cfg->mix, k) == t->p) {
				t->idx += k < i;
				t->of++;
			}
		if (fbx_plan(rm, &ask, &c->fc, &t->a, why, sizeof(why)) ||
		    fbx_take(rm, t->id, &t->a, why, sizeof(why)))
			sim_die("tenant %u: %s", t->id, why);
		t->ch0 = t->a.res.dies[0] / dpc;
		host_units_day = t->p->dwpd * (double)t->a.units;
		t->erases_per_step = host_units_day * c->waf.erase[t->p->kind] / upb / LT_DAY_STEPS;
	}
	fbx_wear_get(rm, &w);
	r->rounds = w.rounds;
	r->check_step = w.check_step;
	push_row(r, 0, &w);
	for (uint64_t s = 1; s <= max_steps; s++) {
		double day = (double)s / LT_DAY_STEPS, round_len = r->check_step * cfg->channels;

		for (uint32_t i = 0; i < r->ntenants; i++) {
			const struct lt_tenant *t = &r->t[i];

			for (uint32_t k = 0; k < t->a.res.nr_dies; k++)
				acc[t->a.res.dies[k]] += t->erases_per_step / t->a.res.nr_dies;
			r->host_erases += t->erases_per_step;
		}
		for (uint32_t d = 0; d < ndies; d++)
			die_e[d] = (uint64_t)acc[d];
		fbx_wear_update(rm, die_e);
		if (cfg->swaps && fbx_check_due(rm)) {
			struct fbx_swap sw;
			struct fbx_wear before;

			fbx_wear_get(rm, &before);
			chan_state(rm, cfg->channels, dpc, r->last);
			r->last_day = day;
			rc = fbx_swap_check(rm, &sw);
			snprintf(r->last_why, sizeof(r->last_why), "%s", sw.why);
			if (rc == 1) {
				uint32_t seen[LT_MAX_TENANTS + 1] = { 0 };

				for (uint32_t m = 0; m < sw.nr; m++) {
					const struct fbx_move *mv = &sw.moves[m];

					if (fbx_move_done(rm, mv))
						sim_die("fbx_move_done refused move %u of \"%s\"", m,
							sw.why);
					acc[mv->to_die] += bpd;
					acc[mv->from_die] += bpd;
					r->mig_erases += 2.0 * bpd;
					r->moves++;
					if (mv->owner <= r->ntenants && !seen[mv->owner]++)
						r->t[mv->owner - 1].moved++;
				}
				for (uint32_t i = 0; i < r->ntenants; i++)
					if (!fbx_owner_alloc(rm, r->t[i].id, &r->t[i].a))
						sim_die("tenant %u lost its allocation", r->t[i].id);
				for (uint32_t d = 0; d < ndies; d++)
					die_e[d] = (uint64_t)acc[d];
				fbx_wear_update(rm, die_e);
				push_log(r, day, &before, sw.why);
			} else if (!strstr(sw.why, "wear is even enough")) {
				r->refused++;
				snprintf(r->refusal, sizeof(r->refusal), "%s", sw.why);
			} else {
				r->idle_checks++;
			}
		}
		fbx_wear_get(rm, &w);
		if (r->first_dead < 0 && w.max >= rated)
			r->first_dead = day;
		if (w.avg >= round_len && w.imbalance > r->worst1) {
			r->worst1 = w.imbalance;
			r->worst1_day = day;
		}
		if (w.avg >= rated - round_len && w.imbalance > r->worst_last) {
			r->worst_last = w.imbalance;
			r->worst_last_day = day;
		}
		r->steps = s;
		if (day >= next_row) {
			push_row(r, day, &w);
			next_row += LT_QUARTER;
		}
		if (!steps && w.avg >= rated)
			break;
	}
	r->end_day = (double)r->steps / LT_DAY_STEPS;
	if (r->rows[r->nrows - 1].day < r->end_day)
		push_row(r, r->end_day, &w);
	r->end = w;
	r->checks = w.checks;
	r->swaps = w.swaps;
	chan_state(rm, cfg->channels, dpc, r->fin);
	fbx_rm_destroy(rm);
}

/* ---- output ---- */

static void machine_line(struct sim_out *out)
{
	struct sim_machine m;

	sim_machine_get(&m);
	sim_outf(out, "# machine: %s, %ld cores, %s; single-threaded, virtual time\n", m.model, m.cpus,
		 m.os);
}

static double paper_bound(uint32_t n, double avg, double round_len)
{
	double j = floor(avg / round_len + 1e-9);

	return j >= 1 ? n * (j + 1) / (j * n + 1) : NAN;
}

static void print_header(struct sim_out *out, const struct lt_ctx *c)
{
	const struct lt_opts *o = c->o;
	struct nand_geometry g;
	struct nand_config nc;
	double tprog = 0;

	lt_geometry(&g, o->channels);
	nand_config_default(&nc);
	for (uint32_t i = 0; i < 3; i++)
		tprog += nc.timing.t_prog_ns[i] / 3.0;
	sim_outf(out, "# blox-sim lifetime: FlashBlox wear balance across channel vSSDs over a device lifetime\n");
	sim_outf(out, "# command: %s\n", o->cmdline);
	machine_line(out);
	sim_outf(out, "# device: N ch x %u die/ch x %u plane x %u blocks x %u pages x %u KiB, TLC"
		 " (the NAND defaults, N channels); rated_pe %.0f; a channel is %.0f MiB raw\n",
		 g.dies_per_channel, g.planes_per_die, g.blocks_per_plane, g.pages_per_block,
		 g.page_size / 1024, lt_rated(o),
		 (double)nand_capacity(&g) / g.channels / MiB);
	sim_outf(out, "# resource manager: ftl/rm.c through flashblox.h: fbx_rm_create, fbx_plan + fbx_take"
		 " (one channel per vSSD), fbx_wear_update every step,\n"
		 "#   fbx_check_due / fbx_swap_check / fbx_move_done; imbalance and checks from fbx_wear_get"
		 " (MaxWear / AvgWear over all channels, free ones too)\n");
	sim_outf(out, "# model: a step is 1 hour; a tenant erases DWPD x capacity x WAF_e / units per block"
		 " blocks a day, spread evenly over the dies it owns now;\n"
		 "#   a move of one die: +1 erase on every block of the destination die (the copy's"
		 " P/E cycle) and of the source die (erased before reuse): an upper bound;\n"
		 "#   moves take no time here (estimate below); the run without swaps makes no checks\n");
	sim_outf(out, "# tenants: one 1-channel vSSD per used channel (fbx_plan order, least-worn first);"
		 " profiles A: rand 1.0 DWPD, B: rand 0.3, C: seq 1.0, D: rand 0.1, E: rand 0.03,"
		 " F: rand 0.01;\n"
		 "#   mix \"mixed\": A..F in turn (more than 6 vSSDs: two A); \"one-hot\": A once, then"
		 " C..F in turn (only A above the average rate: the paper's analysed case)\n");
	sim_outf(out, "# estimated time of one channel move (not simulated): copy %.0f MiB of capacity at"
		 " the destination's program rate (%u dies x %u planes x %u KiB / mean tPROG %.0f us"
		 " = %.1f MB/s) + erase (%u blocks x tBERS %.0f ms): %.0f s\n",
		 ftl_capacity_for(&c->fc, &g, g.dies_per_channel, g.blocks_per_plane) * 4096.0 / MiB,
		 g.dies_per_channel, g.planes_per_die, g.page_size / 1024, tprog / 1000,
		 g.dies_per_channel * g.planes_per_die * g.page_size / (tprog / 1e9) / 1e6,
		 g.blocks_per_plane, nc.timing.t_erase_ns / 1e6,
		 ftl_capacity_for(&c->fc, &g, g.dies_per_channel, g.blocks_per_plane) * 4096.0 /
				 (g.dies_per_channel * g.planes_per_die * g.page_size / (tprog / 1e9)) +
			 g.blocks_per_plane * nc.timing.t_erase_ns / 1e9);
}

static void print_waf(struct sim_out *out, const struct lt_ctx *c)
{
	const struct lt_waf *w = &c->waf;

	sim_outf(out, "## WAF of the real FTL (ftl/ on the emulated NAND, virtual time), one tenant's FTL\n");
	sim_outf(out, "# 1 ch x 4 dies x 2 planes x 64 blocks (a lifetime channel) x %u pages (not 384:"
		 " time) = %.0f MiB raw, capacity %u units, %u TPs,\n"
		 "#   CMT %u TPs (256 KiB x %u/384: the share of TPs a 384-page channel's CMT covers),"
		 " op_permille %u, greedy GC, other settings the FTL's defaults\n",
		 c->o->waf_ppb, w->raw_mib, w->cap_units, w->nr_tp, w->cmt_pages, c->o->waf_ppb,
		 c->fc.op_permille);
	sim_outf(out, "# sequential fill, 2 x capacity of the pattern, measured over the next 1 x capacity"
		 " (rand: uniform 4 KiB, QD 32; seq: 128 KiB in order); %.1f s wall\n", w->wall);
	sim_outf(out, "# WAF_e = block erases x units per block / host units (drives the model);"
		 " WAF_p = units programmed (host, GC, TPs, padding) / host units\n");
	sim_outf(out, "%-6s %10s %9s %7s %7s\n", "kind", "host_units", "erases", "WAF_e", "WAF_p");
	for (int k = 0; k < LT_KINDS; k++)
		sim_outf(out, "%-6s %10llu %9llu %7.3f %7.3f\n", kind_name[k],
			 (unsigned long long)w->host_units[k], (unsigned long long)w->erases[k],
			 w->erase[k], w->prog[k]);
}

static void print_tenants(struct sim_out *out, const struct lt_run *r, const struct lt_opts *o)
{
	struct nand_geometry g;
	double total = 0, bpc;
	char lab[16];

	lt_geometry(&g, r->cfg.channels);
	bpc = (double)g.dies_per_channel * g.planes_per_die * g.blocks_per_plane;
	for (uint32_t i = 0; i < r->ntenants; i++)
		total += r->t[i].erases_per_step;
	sim_outf(out, "## tenants (%u channels, %u free): erase rate per block of the tenant's channel;"
		 " x_avg = that over the device's average rate (all channels)\n",
		 r->cfg.channels, r->cfg.free_ch);
	sim_outf(out, "%-6s %-5s %6s %10s %7s %12s %7s %12s\n", "vssd", "kind", "DWPD", "cap_units",
		 "ch@0", "erases/blk/d", "x_avg", "days_to_pe");
	for (uint32_t i = 0; i < r->ntenants; i++) {
		const struct lt_tenant *t = &r->t[i];
		double rate = t->erases_per_step * LT_DAY_STEPS / (bpc * t->a.res.nr_dies / g.dies_per_channel);
		double avg = total * LT_DAY_STEPS / (bpc * r->cfg.channels);

		tenant_label(t, lab, sizeof(lab));
		sim_outf(out, "%-6s %-5s %6.2f %10llu %7u %12.3f %7.2f %12.0f\n", lab,
			 kind_name[t->p->kind], t->p->dwpd, (unsigned long long)t->a.units,
			 t->ch0, rate, rate / avg, lt_rated(o) / rate);
	}
	sim_outf(out, "# device average %.3f erases per block per day: %.0f days (%.2f years) to rated_pe"
		 " with perfect balance and free moves\n",
		 total * LT_DAY_STEPS / (bpc * r->cfg.channels),
		 lt_rated(o) / (total * LT_DAY_STEPS / (bpc * r->cfg.channels)),
		 lt_rated(o) / (total * LT_DAY_STEPS / (bpc * r->cfg.channels)) / 365.25);
}

static void print_series(struct sim_out *out, const struct lt_run *ns, const struct lt_run *sw)
{
	double round_len = sw->check_step * sw->cfg.channels;

	sim_outf(out, "## imbalance over time (MaxWear / AvgWear over channels, erases per block),"
		 " every quarter year; bound_rr = N(j+1)/(jN+1) after j full rounds of N checks\n"
		 "#   (the paper's analysis: one hot tenant moved round-robin; at j = K it is <= 1 + x)\n");
	sim_outf(out, "%7s %6s | %8s %8s %6s | %8s %8s %6s %6s %6s %8s\n", "day", "years",
		 "avg_none", "max_none", "imb", "avg_swap", "max_swap", "imb", "checks", "swaps",
		 "bound_rr");
	for (size_t i = 0; i < sw->nrows && i < ns->nrows; i++) {
		const struct lt_row *a = &ns->rows[i], *b = &sw->rows[i];
		double pb = paper_bound(sw->cfg.channels, b->avg, round_len);

		sim_outf(out, "%7.1f %6.2f | %8.1f %8.1f %6.3f | %8.1f %8.1f %6.3f %6llu %6llu ", b->day,
			 b->day / 365.25, a->avg, a->max, a->imb, b->avg, b->max, b->imb,
			 (unsigned long long)b->checks, (unsigned long long)b->swaps);
		if (isnan(pb))
			sim_outf(out, "%8s\n", "-");
		else
			sim_outf(out, "%8.3f\n", pb);
	}
}

static void print_life(struct sim_out *out, const char *what, double day)
{
	if (day < 0)
		sim_outf(out, "%s: not within the run\n", what);
	else
		sim_outf(out, "%s: day %.1f (%.2f years)\n", what, day, day / 365.25);
}

static void print_summary(struct sim_out *out, const struct lt_run *ns, const struct lt_run *sw)
{
	double x = sw->cfg.bound_permille / 1000.0, n = sw->cfg.channels;
	double kf = (n - 1 - x) / (n * x);
	struct nand_geometry g;
	char lab[16];

	lt_geometry(&g, sw->cfg.channels);
	sim_outf(out, "## summary (%u channels, x = %.3f)\n", sw->cfg.channels, x);
	sim_outf(out, "formula: K >= (N - 1 - x) / (N x) = %.2f -> K = %u rounds, K x N = %.1f (%u checks"
		 " with K rounded up); a check every %.2f erases per block of average wear\n",
		 kf, sw->rounds, kf * n, sw->rounds * sw->cfg.channels, sw->check_step);
	sim_outf(out, "run with swaps: %llu checks, %llu swaps (%llu channel moves of %u dies each),"
		 " %llu checks found wear even enough, %llu needed a swap and found none\n",
		 (unsigned long long)sw->checks, (unsigned long long)sw->swaps,
		 (unsigned long long)(sw->moves / g.dies_per_channel), g.dies_per_channel,
		 (unsigned long long)sw->idle_checks, (unsigned long long)sw->refused);
	if (sw->refused)
		sim_outf(out, "  last reason none was found: %s\n", sw->refusal);
	sim_outf(out, "  over %.1f days: a check every %.1f days, a swap every %.1f days\n",
		 sw->end_day, sw->checks ? sw->end_day / sw->checks : 0,
		 sw->swaps ? sw->end_day / sw->swaps : 0);
	sim_outf(out, "migration cost: %.0f block erases = %.2f erases per block of the device,"
		 " %.2f%% of the %.0f the tenants' writes made\n",
		 sw->mig_erases, sw->mig_erases / (double)nand_blocks(&g),
		 100.0 * sw->mig_erases / sw->host_erases,
		 sw->host_erases);
	sim_outf(out, "imbalance with swaps: final %.3f (day %.1f, average wear %.1f), worst after the"
		 " first round %.3f (day %.1f), ",
		 sw->end.imbalance, sw->end_day, sw->end.avg, sw->worst1, sw->worst1_day);
	if (sw->worst_last > 0)
		sim_outf(out, "worst in the last round %.3f (day %.1f)", sw->worst_last,
			 sw->worst_last_day);
	else
		sim_outf(out, "the run ended (--years) before the last round");
	sim_outf(out, "; bound 1 + x = %.3f: %s%s\n", 1 + x,
		 sw->end.imbalance <= 1 + x + 1e-9 ? "HELD at the end" : "NOT HELD at the end",
		 sw->worst_last > 0 ? "" : " of the run, before the end of the lifetime");
	sim_outf(out, "imbalance without swaps: final %.3f (day %.1f, average wear %.1f)\n",
		 ns->end.imbalance, ns->end_day, ns->end.avg);
	print_life(out, "first channel at rated_pe without swaps", ns->first_dead);
	print_life(out, "first channel at rated_pe with swaps   ", sw->first_dead);
	if (ns->first_dead > 0 && sw->first_dead > 0)
		sim_outf(out, "lifetime gained: x %.2f (%.0f more days)\n",
			 sw->first_dead / ns->first_dead, sw->first_dead - ns->first_dead);
	sim_outf(out, "## channels at the end of the run with swaps (wear = erases per block; owner now;"
		 " swaps that moved the owner)\n");
	sim_outf(out, "%4s %9s %6s %7s %6s\n", "ch", "wear", "x_avg", "owner", "moved");
	for (uint32_t ch = 0; ch < sw->cfg.channels; ch++) {
		uint32_t ow = sw->fin[ch].owner;

		sim_outf(out, "%4u %9.1f %6.3f %7s %6u\n", ch, sw->fin[ch].wear,
			 sw->fin[ch].wear / sw->end.avg, owner_label(sw, ow, lab, sizeof(lab)),
			 ow != FBX_FREE && ow <= sw->ntenants ? sw->t[ow - 1].moved : 0);
	}
}

/* The rm's inputs and choice at the last check of the run with swaps. */
static void print_last_check(struct sim_out *out, const struct lt_run *sw)
{
	struct nand_geometry g;
	double bpc;
	char lab[16];

	lt_geometry(&g, sw->cfg.channels);
	bpc = (double)g.dies_per_channel * g.planes_per_die * g.blocks_per_plane;
	sim_outf(out, "## the last check (day %.1f): what fbx_swap_check saw (wear = erases per block;"
		 " since = erases of the channel since the check before; rate = since per block)\n",
		 sw->last_day);
	sim_outf(out, "%4s %7s %9s %9s %7s\n", "ch", "owner", "wear", "since", "rate");
	for (uint32_t ch = 0; ch < sw->cfg.channels; ch++)
		sim_outf(out, "%4u %7s %9.1f %9llu %7.2f\n", ch,
			 owner_label(sw, sw->last[ch].owner, lab, sizeof(lab)), sw->last[ch].wear,
			 (unsigned long long)sw->last[ch].since, sw->last[ch].since / bpc);
	sim_outf(out, "choice: %s\n", sw->last_why);
}

static void print_log(struct sim_out *out, const struct lt_run *sw)
{
	sim_outf(out, "## swaps made (run with swaps): day, average wear and imbalance before it, the"
		 " rm's reason\n");
	for (size_t i = 0; i < sw->nlog; i++)
		sim_outf(out, "%7.1f %8.1f %6.3f  %s\n", sw->log[i].day, sw->log[i].avg, sw->log[i].imb,
			 sw->log[i].why);
}

/* Both runs of @cfg: with swaps first (it sets the length), then without, as long. */
static void run_pair(const struct lt_ctx *c, struct lt_cfg cfg, struct lt_run *ns,
		     struct lt_run *sw)
{
	cfg.swaps = true;
	lt_simulate(c, &cfg, 0, sw);
	cfg.swaps = false;
	lt_simulate(c, &cfg, sw->steps, ns);
}

static void sweep_head(struct sim_out *out)
{
	sim_outf(out, "%-7s %3s %5s %4s %7s %3s %6s %6s %5s %4s %7s %7s %7s %6s %6s %8s %8s %8s %6s\n",
		 "mix", "N", "x", "free", "K_form", "K", "KxN", "checks", "swaps", "none", "d/swap", "imb_end",
		 "worst_L", "held", "mig%", "life_no", "life_sw", "imb_none", "gain");
}

static void sweep_row(struct sim_out *out, const struct lt_run *ns, const struct lt_run *sw)
{
	double x = sw->cfg.bound_permille / 1000.0, n = sw->cfg.channels;
	double kf = (n - 1 - x) / (n * x);

	sim_outf(out, "%-7s %3u %5.3f %4u %7.2f %3u %6.1f %6llu %5llu %4llu %7.1f %7.3f %7.3f %6s %6.2f %8.0f"
		 " %8.0f %8.3f %6.2f\n",
		 mix_name[sw->cfg.mix], sw->cfg.channels, x, sw->cfg.free_ch, kf, sw->rounds, kf * n,
		 (unsigned long long)sw->checks, (unsigned long long)sw->swaps,
		 (unsigned long long)sw->refused, sw->swaps ? sw->end_day / sw->swaps : 0,
		 sw->end.imbalance, sw->worst_last,
		 sw->end.imbalance <= 1 + x + 1e-9 ? "yes" : "NO", 100.0 * sw->mig_erases / sw->host_erases,
		 ns->first_dead, sw->first_dead, ns->end.imbalance,
		 ns->first_dead > 0 ? sw->first_dead / ns->first_dead : 0);
	if (sw->refused)
		sim_outf(out, "#   none: the last reason: %s\n", sw->refusal);
}

static void print_sweep_notes(struct sim_out *out)
{
	sim_outf(out, "# K_form = (N - 1 - x) / (N x), K = the rm's rounds (rounded up), KxN = K_form x N"
		 " (the paper's swap count); checks and swaps made; none = checks that needed a swap\n"
		 "#   and found none (the rm's last reason in the line below the row); d/swap = days per swap;\n"
		 "# imb_end = MaxWear / AvgWear when the average reaches rated_pe; worst_L = worst in the"
		 " last round; held: imb_end <= 1 + x; mig%% = migration erases / the tenants' erases;\n"
		 "# life_no / life_sw = days until the first channel reaches rated_pe without / with swaps;"
		 " imb_none = the final imbalance without swaps; gain = life_sw / life_no\n");
}

int sim_lifetime_main(int argc, char **argv)
{
	struct lt_opts o;
	struct lt_ctx c;
	struct sim_out out;
	struct lt_run ns, sw;
	struct lt_cfg cfg;
	char path[1024];
	double w0 = sim_wall_now();

	if (!parse(&o, argc, argv))
		return 0;
	memset(&c, 0, sizeof(c));
	c.o = &o;
	ftl_config_default(&c.fc);
	if (o.out)
		snprintf(path, sizeof(path), "%s", o.out);
	else
		snprintf(path, sizeof(path), "%s/flashblox_lifetime.txt", o.outdir);
	out.fp = fopen(path, "w");
	if (!out.fp)
		sim_die("cannot write %s: %s", path, strerror(errno));
	fprintf(stderr, "writing %s\n", path);
	/* The WAF of the tenants' FTL at the lifetime device's geometry, scaled CMT. */
	c.fc.cmt_bytes = (uint32_t)((uint64_t)c.fc.cmt_bytes * o.waf_ppb / 384);
	measure_waf(&c, LT_RAND);
	measure_waf(&c, LT_SEQ);
	ftl_config_default(&c.fc); /* the vSSDs' FTL, as the rm sizes them */
	print_header(&out, &c);
	print_waf(&out, &c);

	cfg = (struct lt_cfg){ .channels = o.channels, .bound_permille = o.bound_permille,
			       .free_ch = o.free_ch >= 0 ? (uint32_t)o.free_ch
							 : lt_free_default(o.channels),
			       .mix = o.mix };
	run_pair(&c, cfg, &ns, &sw);
	sim_outf(&out, "# ==== %u channels, %u free, x = %.3f, mix %s ====\n", cfg.channels,
		 cfg.free_ch, cfg.bound_permille / 1000.0, mix_name[cfg.mix]);
	print_tenants(&out, &sw, &o);
	print_series(&out, &ns, &sw);
	print_summary(&out, &ns, &sw);
	print_last_check(&out, &sw);
	print_log(&out, &sw);
	run_free(&ns);
	run_free(&sw);

	if (o.sweep) {
		static const uint32_t chans[] = { 8, 16 }, xs[] = { 50, 100, 200 };

		sim_outf(&out, "## sweep: x and N, both mixes, a quarter of the channels free\n");
		print_sweep_notes(&out);
		sweep_head(&out);
		for (int m = 0; m < LT_MIXES; m++)
			for (size_t i = 0; i < sizeof(chans) / sizeof(chans[0]); i++)
				for (size_t k = 0; k < sizeof(xs) / sizeof(xs[0]); k++) {
					cfg = (struct lt_cfg){ .channels = chans[i],
							       .bound_permille = xs[k],
							       .free_ch = lt_free_default(chans[i]),
							       .mix = (enum lt_mix)m };
					run_pair(&c, cfg, &ns, &sw);
					sweep_row(&out, &ns, &sw);
					run_free(&ns);
					run_free(&sw);
				}
		sim_outf(&out, "## free channels: %u channels, x = %.3f, 0..2 free (one vSSD more per"
			 " channel less free)\n", o.channels, o.bound_permille / 1000.0);
		sweep_head(&out);
		for (int m = 0; m < LT_MIXES; m++)
			for (uint32_t f = 0; f <= 2 && f < o.channels; f++) {
				cfg = (struct lt_cfg){ .channels = o.channels,
						       .bound_permille = o.bound_permille, .free_ch = f,
						       .mix = (enum lt_mix)m };
				run_pair(&c, cfg, &ns, &sw);
				sweep_row(&out, &ns, &sw);
				run_free(&ns);
				run_free(&sw);
			}
	}
	sim_outf(&out, "# wall time: %.1f s\n", sim_wall_now() - w0);
	sim_out_close(&out);
	return 0;
}
