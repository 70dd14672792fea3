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
#include "sim_lifetime.h"

const char *const lt_kind_name[LT_KINDS] = { "rand", "seq" };
const char *const lt_mix_name[LT_MIXES] = { "mixed", "one-hot" };

static const struct lt_profile profiles[] = {
	{ 'A', LT_RAND, 1.0 }, { 'B', LT_RAND, 0.3 },  { 'C', LT_SEQ, 1.0 },
	{ 'D', LT_RAND, 0.1 }, { 'E', LT_RAND, 0.03 }, { 'F', LT_RAND, 0.01 },
};

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

static const struct lt_profile *mix_profile(enum lt_mix mix, uint32_t i)
{
	if (mix == LT_ONE_HOT)
		return &profiles[i == 0 ? 0 : 2 + (i - 1) % 4];
	return &profiles[i % NPROFILES];
}

/* The device of a run: the NAND defaults (8 ch x 4 dies x 2 planes x 64 blocks, TLC) N ch. */
void lt_geometry(struct nand_geometry *g, uint32_t channels)
{
	nand_geometry_default(g);
	g->channels = channels;
}

uint32_t lt_free_default(uint32_t channels)
{
	return channels / 4;
}

double lt_rated(const struct lt_opts *o)
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
void lt_measure_waf(struct lt_ctx *c, enum lt_kind kind)
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

void lt_run_free(struct lt_run *r)
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
void lt_tenant_label(const struct lt_tenant *t, char *buf, size_t n)
{
	if (t->of > 1)
		snprintf(buf, n, "%c%u", t->p->name, t->idx + 1);
	else
		snprintf(buf, n, "%c", t->p->name);
}

const char *lt_owner_label(const struct lt_run *r, uint32_t owner, char *buf, size_t n)
{
	if (owner == FBX_FREE)
		snprintf(buf, n, "free");
	else if (owner == UINT32_MAX || owner > r->ntenants)
		snprintf(buf, n, "?");
	else
		lt_tenant_label(&r->t[owner - 1], buf, n);
	return buf;
}

/*
 * One run of @cfg: until the average wear reaches rated_pe or --years
 * pass, or for exactly @steps steps when nonzero.
 */
void lt_simulate(const struct lt_ctx *c, const struct lt_cfg *cfg, uint64_t steps,
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

