/* SPDX-License-Identifier: BSD-3-Clause */
/* The flash's model beside its measurement (blox_model.h: the formulas). */
#include "blox_model.h"

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
