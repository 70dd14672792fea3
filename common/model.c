/* SPDX-License-Identifier: BSD-3-Clause */
/* The flash's model beside its measurement (blox_model.h: the formulas). */
#include "blox_model.h"

#include <math.h> /* isfinite() only: a macro */

double blox_model_mean_ns(const uint64_t *t, uint32_t n)
{
	double sum = 0;

	if (!n)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		sum += (double)t[i];
	return sum / n;
}

double blox_model_xfer_ns(uint64_t bytes, uint64_t t_cmd_ns, uint64_t bus_mbps)
{
	if (!bus_mbps)
		return (double)t_cmd_ns;
	return (double)(t_cmd_ns + (bytes * 1000 + bus_mbps - 1) / bus_mbps);
}

double blox_model_read_bound(uint32_t dies, uint32_t channels, double t_read_ns,
			     double xfer_ns)
{
	double die_bound, bus_bound;

	if (!dies || !(t_read_ns + xfer_ns > 0))
		return 0;
	die_bound = dies * 1e9 / (t_read_ns + xfer_ns);
	if (!channels || !(xfer_ns > 0))
		return die_bound;
	bus_bound = channels * 1e9 / xfer_ns;
	return bus_bound < die_bound ? bus_bound : die_bound;
}

double blox_model_rho(double occupied_ns, double interval_ns, uint32_t dies)
{
	if (!dies || !(interval_ns > 0) || !(occupied_ns > 0))
		return 0;
	return occupied_ns / (interval_ns * dies);
}

double blox_model_p99_ns(double service_ns, double rho, bool *saturated)
{
	double r = rho > 0 ? rho : 0; /* NaN too */
	bool sat = r >= BLOX_MODEL_RHO_MAX;

	if (sat)
		r = BLOX_MODEL_RHO_MAX;
	if (saturated)
		*saturated = sat;
	return service_ns * (1 + BLOX_MODEL_LN100 * r / (1 - r));
}

double blox_model_write_bound(uint32_t dies, uint32_t units_per_program, double waf,
			      double t_prog_ns)
{
	if (!(waf > 0) || !(t_prog_ns > 0))
		return 0;
	return (double)dies * units_per_program * 1e9 / (waf * t_prog_ns);
}

uint64_t blox_model_busy_from_ops(const struct blox_model_flash *f, const struct blox_model_ops *o,
				  uint64_t *read_busy_ns)
{
	uint32_t types = f->page_types < 1 ? 1
			 : f->page_types > BLOX_MODEL_TYPES ? BLOX_MODEL_TYPES
							    : f->page_types;
	uint64_t joined_e = f->planes > 1 ? o->erase_groups * (f->planes - 1) : 0;
	uint64_t joined_p, rd;

	joined_e = joined_e < o->joined ? joined_e : o->joined;
	joined_e = joined_e < o->erases ? joined_e : o->erases;
	joined_p = o->joined - joined_e;
	joined_p = joined_p < o->programs ? joined_p : o->programs;
	rd = (uint64_t)((double)o->reads * blox_model_mean_ns(f->t_read_ns, types) + 0.5);
	if (read_busy_ns)
		*read_busy_ns = rd;
	return rd +
	       (uint64_t)((double)(o->programs - joined_p) *
				  blox_model_mean_ns(f->t_prog_ns, types) +
			  0.5) +
	       (o->erases - joined_e) * f->t_erase_ns + o->suspends * f->t_suspend_ns +
	       o->resumes * f->t_resume_ns;
}

static double per_second(uint64_t n, double interval_ns)
{
	return interval_ns > 0 ? (double)n * 1e9 / interval_ns : 0;
}

void blox_model_eval(const struct blox_model_flash *f, const struct blox_model_meas *m,
		     struct blox_model *out)
{
	uint32_t types = f->page_types < 1 ? 1
			 : f->page_types > BLOX_MODEL_TYPES ? BLOX_MODEL_TYPES
							    : f->page_types;
	uint32_t planes = f->planes ? f->planes : 1;
	uint32_t units = f->page_size / BLOX_MODEL_UNIT ? f->page_size / BLOX_MODEL_UNIT : 1;
	double occupied;

	*out = (struct blox_model){ 0 };
	out->t_read_ns = blox_model_mean_ns(f->t_read_ns, types);
	out->t_prog_ns = blox_model_mean_ns(f->t_prog_ns, types);
	out->xfer_read_ns = blox_model_xfer_ns(BLOX_MODEL_UNIT, f->t_cmd_ns, f->bus_mbps);
	out->xfer_prog_ns = blox_model_xfer_ns(f->page_size, f->t_cmd_ns, f->bus_mbps);
	out->read_iops_bound =
		blox_model_read_bound(f->dies, f->channels, out->t_read_ns, out->xfer_read_ns);

	out->read_iops = per_second(m->host_reads, m->interval_ns);
	out->write_iops = per_second(m->host_writes, m->interval_ns);
	out->p99_read_ns = m->p99_read_ns;
	occupied = (double)m->busy_ns + (double)m->flash_reads * out->xfer_read_ns +
		   (double)m->flash_programs * out->xfer_prog_ns;
	out->rho = blox_model_rho(occupied, m->interval_ns, f->dies);
	out->service_ns = (m->flash_reads ? (double)m->read_busy_ns / (double)m->flash_reads
					  : out->t_read_ns) +
			  out->xfer_read_ns;
	out->p99_read_pred_ns = blox_model_p99_ns(out->service_ns, out->rho, &out->saturated);

	if (!m->has_ftl)
		return;
	if (m->units_host) {
		out->waf = (double)m->units_all / (double)m->units_host;
		out->waf_src = BLOX_MODEL_WAF_INTERVAL;
	} else if (m->waf_life > 0) {
		out->waf = m->waf_life;
		out->waf_src = BLOX_MODEL_WAF_LIFE;
	} else {
		out->waf = 1;
		out->waf_src = BLOX_MODEL_WAF_NONE;
	}
	out->write_iops_pred =
		blox_model_write_bound(f->dies, units * planes, out->waf, out->t_prog_ns);
	if (m->host_writes && m->host_write_bytes > (uint64_t)m->host_writes * BLOX_MODEL_UNIT)
		out->write_iops_pred /= (double)m->host_write_bytes /
					((double)m->host_writes * BLOX_MODEL_UNIT);
}

/* ---- the closed loop (blox_model.h: "closed loop") ---- */

/* A flash's read timing, as the closed loop uses it. */
struct closed_ctx {
	double D; /* dies */
	uint32_t dies;
	double kc; /* (dies per channel - 1) / D: a read's share of its channel's other dies */
	double xfer, tr, tr2, tr_min, tr_max; /* bus time; E[tR], E[tR^2], its range */
	double z; /* think time */
	double bound; /* reads/s, per ns */
	const uint64_t *t_read;
	uint32_t types;
};

/* The loop at one population: what the next population's arrival sees. */
struct closed_state {
	double n; /* the population */
	double x; /* reads per ns */
	double rd; /* flash response, ns */
	double b; /* channel wait, ns */
	double sd; /* a die's service: tR + channel wait + transfer */
	/* Seen by a read arriving at this population (from the one below). */
	double u; /* its die busy */
	double q; /* reads at its die (the one in service too) */
	double sres; /* E[S^2] / 2 E[S]: the mean residual of a service at random */
};

/* Population @n from @p, the state at n - 1 (approximate MVA, one step). */
static void closed_step(const struct closed_ctx *c, double n, const struct closed_state *p,
			struct closed_state *s)
{
	double sd, es2, sres, cap, r;

	s->n = n;
	s->b = c->kc * p->x * c->xfer * (p->b + c->xfer / 2);
	/* No longer than keeps every die held at the throughput so far (a saturated channel). */
	cap = p->x > 0 ? c->D / p->x - c->tr - c->xfer : s->b;
	s->b = s->b < cap ? s->b : cap > 0 ? cap : 0;
	sd = c->tr + c->xfer + s->b;
	es2 = c->tr2 + 2 * c->tr * (c->xfer + s->b) + (c->xfer + s->b) * (c->xfer + s->b);
	sres = es2 / (2 * sd);
	sres = sres < sd ? sres : sd;
	s->sres = sres;
	s->sd = sd;
	s->u = p->x * p->sd / c->D;
	s->u = s->u < 1 ? s->u : 1;
	s->q = p->x * p->rd / c->D;
	s->q = s->q > s->u ? s->q : s->u;
	/* 1/D of arrivals come to the die whose completion sent them: its next read started. */
	r = sd / c->D + (1 - 1 / c->D) * sres;
	s->rd = sd + sd * (s->q - s->u) + s->u * r;
	s->x = n / (s->rd + c->z);
	/* Never past the bound, never below the population under (the channel's wait lags). */
	if ((c->bound > 0 && s->x > c->bound) || s->x < p->x) {
		s->x = s->x < p->x ? p->x : c->bound;
		s->rd = n / s->x - c->z;
	}
}

/*
 * P(K >= @j), K the reads queued behind the one in service at the
 * arriving read's die: N - 2 others spread evenly over the compositions
 * of D parts (Bose-Einstein), @m in place of N - 2, for any real @m >= 0.
 */
static double closed_k_tail(double m, double j, uint32_t dies)
{
	double p = 1;

	if (j <= 0)
		return 1;
	if (j >= m + 1)
		return 0;
	if (dies == 1)
		return m - j + 1 < 1 ? m - j + 1 : 1;
	for (uint32_t i = 1; i < dies; i++)
		p *= (m - j + i) / (m + i);
	return p;
}

/* The response distribution the P99 is read from (see the header). */
struct closed_dist {
	const struct closed_ctx *c;
	double u; /* P(the arriving read's die is busy) */
	double m[2]; /* K's scale, the spread of the reads at the flash about it */
	double sd, shift; /* a die's mean service; xfer + channel wait */
	double fresh; /* P(the read in service just started, 1/D): else U(0, 2 sres) */
	double res2, rmax; /* 2 sres; the longest residual */
};

/* P(residual > @x): a fresh service, by page type, or U(0, 2 sres). */
static double closed_res_gt(const struct closed_dist *d, double x)
{
	double gt = 0, eq = 1 - x / d->res2;

	if (x < 0)
		return 1;
	for (uint32_t i = 0; i < d->c->types; i++)
		gt += (double)d->c->t_read[i] + d->shift > x;
	return d->fresh * gt / d->c->types + (1 - d->fresh) * (eq > 0 ? eq : 0);
}

/* P(wait > @v | its die busy): the residual + K * sd, K's scale @m. */
static double closed_wait_gt(const struct closed_dist *d, double m, double v)
{
	double ja = (v - d->rmax) / d->sd, jb = v / d->sd, sum;

	/* From jb on the wait is longer whatever the residual; before ja, never. */
	ja = ja < 0 ? 0 : (double)(int64_t)ja + 1;
	jb = jb < 0 ? 0 : (double)(int64_t)jb + 1;
	sum = closed_k_tail(m, jb, d->c->dies);
	for (double j = ja; j < jb; j++)
		sum += (closed_k_tail(m, j, d->c->dies) - closed_k_tail(m, j + 1, d->c->dies)) *
		       closed_res_gt(d, v - j * d->sd);
	return sum;
}

/* P(response <= @t): its own service by page type, after the wait if its die is busy. */
static double closed_cdf(const struct closed_dist *d, double t)
{
	double sum = 0;

	for (uint32_t i = 0; i < d->c->types; i++) {
		double v = t - ((double)d->c->t_read[i] + d->shift);

		if (v >= 0)
			sum += 1 - d->u * (closed_wait_gt(d, d->m[0], v) +
					   closed_wait_gt(d, d->m[1], v)) / 2;
	}
	return sum / d->c->types;
}

/* The square root of @x in [0, 1] (Newton; no libm: the daemon links none). */
static double root01(double x)
{
	double r = 1;

	if (!(x > 0))
		return 0;
	for (int i = 0; i < 64; i++) {
		double next = (r + x / r) / 2;

		if (next >= r)
			break;
		r = next;
	}
	return r;
}

static double closed_p99(const struct closed_ctx *c, const struct closed_state *s)
{
	struct closed_dist d = { .c = c, .u = s->u, .sd = s->sd, .shift = c->xfer + s->b };
	double smax = c->tr_max + d.shift, lo = c->tr_min + d.shift, hi, m, pf, cv;

	m = s->u > 0 ? c->D * (s->q / s->u - 1) : 0;
	/* Others at the flash: binomial over the n - 1, each there w.p. pf. */
	pf = s->n > 1 ? s->q * c->D / (s->n - 1) : 1;
	pf = pf < 1 ? pf : 1;
	cv = pf > 0 && s->n > 1 ? (1 - pf) / ((s->n - 1) * pf) : 0;
	cv = cv < 1 ? root01(cv) : 1;
	d.m[0] = m * (1 - cv);
	d.m[1] = m * (1 + cv);
	d.fresh = 1 / c->D;
	d.res2 = 2 * s->sres;
	d.rmax = smax > d.res2 ? smax : d.res2;
	hi = smax + d.rmax + (d.m[1] + 1) * d.sd;
	/* inf { t : F(t) >= 0.99 } */
	for (int i = 0; i < 200 && hi - lo > 1e-6 + 1e-13 * hi; i++) {
		double mid = lo + (hi - lo) / 2;

		if (closed_cdf(&d, mid) >= BLOX_MODEL_P99)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

void blox_model_closed(const struct blox_model_flash *f, double qd, double think_ns,
		       struct blox_model_closed *out)
{
	struct closed_ctx c = { 0 };
	struct closed_state s, lo, hi;
	double top, w, x, p99_lo;

	*out = (struct blox_model_closed){ 0 };
	c.types = f->page_types < 1 ? 1
		  : f->page_types > BLOX_MODEL_TYPES ? BLOX_MODEL_TYPES
						     : f->page_types;
	c.t_read = f->t_read_ns;
	c.tr = blox_model_mean_ns(f->t_read_ns, c.types);
	c.xfer = blox_model_xfer_ns(BLOX_MODEL_UNIT, f->t_cmd_ns, f->bus_mbps);
	if (!f->dies || !(c.tr + c.xfer > 0) || !(qd > 0) || !isfinite(qd))
		return;
	c.D = c.dies = f->dies;
	if (f->channels && (double)f->dies > f->channels)
		c.kc = ((double)f->dies / f->channels - 1) / c.D;
	c.tr_min = c.tr_max = (double)f->t_read_ns[0];
	for (uint32_t i = 0; i < c.types; i++) {
		double t = (double)f->t_read_ns[i];

		c.tr2 += t * t / c.types;
		c.tr_min = t < c.tr_min ? t : c.tr_min;
		c.tr_max = t > c.tr_max ? t : c.tr_max;
	}
	c.z = think_ns > 0 && isfinite(think_ns) ? think_ns : 0;
	c.bound = blox_model_read_bound(f->dies, f->channels, c.tr, c.xfer) / 1e9;

	/*
	 * Whole populations up to ceil(qd) (at most the cap); a depth between
	 * two of them is interpolated, one past the cap extrapolated at a held
	 * throughput.
	 */
	top = qd > BLOX_MODEL_CLOSED_QD_MAX ? BLOX_MODEL_CLOSED_QD_MAX : (double)(uint64_t)qd;
	top += top < qd && top < BLOX_MODEL_CLOSED_QD_MAX;
	top = top < 1 ? 1 : top;
	s = (struct closed_state){ .rd = c.tr + c.xfer, .sd = c.tr + c.xfer };
	lo = s;
	for (double n = 1; n <= top; n++) {
		lo = s;
		closed_step(&c, n, &lo, &s);
	}
	hi = s;
	if (qd <= 1) {
		out->x = qd * hi.x * 1e9;
		out->r_ns = hi.rd;
		out->p99_ns = closed_p99(&c, &hi);
		out->die_busy = qd * hi.x * hi.sd / c.D;
		return;
	}
	w = qd - (top - 1);
	if (w == 1) {
		out->x = hi.x * 1e9;
		out->r_ns = hi.rd;
		out->p99_ns = closed_p99(&c, &hi);
	} else {
		x = w < 1 ? lo.x + w * (hi.x - lo.x) : hi.x;
		p99_lo = closed_p99(&c, &lo);
		out->x = x * 1e9;
		out->r_ns = qd / x - c.z;
		out->p99_ns = p99_lo + w * (closed_p99(&c, &hi) - p99_lo);
	}
	out->die_busy = lo.x * lo.sd / c.D;
	out->die_busy += (w < 1 ? w : 1) * (hi.x * hi.sd / c.D - out->die_busy);
	out->bus_wait_ns = lo.b + (w < 1 ? w : 1) * (hi.b - lo.b);
}

bool blox_model_closed_applies(double mean_qd, double max_qd)
{
	return isfinite(mean_qd) && isfinite(max_qd) && max_qd > 0 && mean_qd > 0 &&
	       mean_qd >= BLOX_MODEL_STEADY_QD * max_qd;
}
