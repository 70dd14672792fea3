/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A tenant of the two-tenant experiments (isolation, migcost): one FTL on a
 * device it shares, its ops in flight (a pool of slots with their buffers),
 * the versions it wrote to check every read against, its closed-loop jobs
 * (fill, random writes, verify) and the arrivals of its open loop, and the
 * latencies of the ops submitted inside a measured window.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void sim_tenant_start(struct sim_tenant *t, const char *exp, uint32_t pool, uint64_t seed,
		      uint32_t ti)
{
	t->exp = exp;
	t->se.f = t->f;
	t->cap = ftl_capacity(t->f);
	t->shadow = calloc(t->cap, sizeof(*t->shadow));
	t->pend = calloc(t->cap, sizeof(*t->pend));
	t->slots = calloc(pool, sizeof(*t->slots));
	t->free_idx = calloc(pool, sizeof(*t->free_idx));
	if (!t->shadow || !t->pend || !t->slots || !t->free_idx)
		sim_die("out of memory");
	for (uint32_t i = 0; i < pool; i++) {
		t->slots[i].t = t;
		t->free_idx[i] = pool - 1 - i;
	}
	t->pool = pool;
	t->nfree = pool;
	t->rng = seed * 0x9e3779b97f4a7c15ull + (uint64_t)ti * 0x632be59bd9b4e019ull + 1;
	if (!t->rng)
		t->rng = 1;
	blox_hist_reset(&t->rlat);
	blox_hist_reset(&t->wlat);
}

void sim_tenant_close(struct sim_tenant *t)
{
	ftl_destroy(t->f);
	for (uint32_t i = 0; i < t->pool; i++)
		free(t->slots[i].buf);
	free(t->slots);
	free(t->free_idx);
	free(t->shadow);
	free(t->pend);
}

/* ---- ops ---- */

static void tenant_done(struct ftl_io *io);
static void closed_next(struct sim_tenant *t);

static struct sim_tslot *slot_get(struct sim_tenant *t, uint32_t nr)
{
	struct sim_tslot *sl;

	if (!t->nfree)
		sim_die("%s: tenant %c has %u ops in flight; lower --r-kiops", t->exp, t->name,
			t->pool);
	sl = &t->slots[t->free_idx[--t->nfree]];
	if (sl->buf_units < nr) {
		free(sl->buf);
		sl->buf = calloc(nr, FTL_UNIT);
		if (!sl->buf)
			sim_die("out of memory");
		sl->buf_units = nr;
	}
	return sl;
}

static void slot_put(struct sim_tenant *t, struct sim_tslot *sl)
{
	t->free_idx[t->nfree++] = (uint32_t)(sl - t->slots);
}

void sim_tenant_submit(struct sim_tenant *t, enum ftl_io_op op, uint32_t lba, uint32_t nr,
		       uint64_t t_arr)
{
	struct sim_tslot *sl = slot_get(t, nr);
	int rc;

	sl->io = (struct ftl_io){ .op = op, .lba = lba, .nr = nr, .buf = sl->buf, .cb = tenant_done,
				   .cb_arg = sl };
	sl->lba = lba;
	sl->nr = nr;
	sl->t_arr = t_arr;
	sl->in_win = t->m_on && t_arr >= t->m0 && t_arr < t->m1;
	t->win_inflight += sl->in_win;
	if (op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < nr; u++) {
			sl->ver[u] = ++t->next_ver;
			t->pend[lba + u] = sl->ver[u];
			sim_stamp_unit(sl->buf + (size_t)u * FTL_UNIT, lba + u, sl->ver[u]);
		}
	} else {
		sl->lo = t->shadow[lba];
	}
	t->submitted++;
	t->inflight++;
	if ((rc = ftl_submit(t->f, &sl->io)))
		sim_die("%s: ftl_submit (%c): %d (lba %u nr %u)", t->exp, t->name, rc, lba, nr);
}

/*
 * A read may see the version committed when it was submitted or any
 * written since (a write to the LBA in flight meanwhile), never an older
 * one; an LBA never written reads as zeroes.
 */
static void check_read(struct sim_tenant *t, const struct sim_tslot *sl)
{
	const uint32_t *h = (const uint32_t *)sl->buf;
	uint32_t lba = sl->lba, hi = t->shadow[lba] > t->pend[lba] ? t->shadow[lba] : t->pend[lba];

	if (!sim_unit_between(sl->buf, lba, sl->lo, hi) && t->bad++ < 10)
		fprintf(stderr, "VERIFY (%c): lba %u: got magic %08x lba %u ver %u, want %u..%u\n",
			t->name, lba, h[0], h[1], h[2], sl->lo, hi);
}

static void tenant_done(struct ftl_io *io)
{
	struct sim_tslot *sl = io->cb_arg;
	struct sim_tenant *t = sl->t;
	uint64_t now = blox_clock_now(t->se.clock);

	t->inflight--;
	if (io->status) {
		if (t->io_errors++ < 10)
			fprintf(stderr, "IO ERROR (%c): op %d lba %u nr %u status %d\n", t->name,
				io->op, io->lba, io->nr, io->status);
	} else if (io->op == FTL_IO_READ) {
		check_read(t, sl);
	}
	if (io->op == FTL_IO_WRITE) {
		for (uint32_t u = 0; u < sl->nr; u++) {
			if (!io->status)
				t->shadow[sl->lba + u] = sl->ver[u];
			t->pend[sl->lba + u] = 0;
		}
	}
	if (sl->in_win) {
		blox_hist_add(io->op == FTL_IO_READ ? &t->rlat : &t->wlat, now - sl->t_arr);
		t->win_inflight--;
	}
	slot_put(t, sl);
	if (t->job != SIM_TJOB_OPEN && !t->stop && t->submitted < t->to_submit)
		closed_next(t);
}

uint32_t sim_tenant_free_lba(struct sim_tenant *t)
{
	for (int tries = 0; tries < 1024; tries++) {
		uint32_t lba = (uint32_t)(sim_rnd(&t->rng) % t->cap);

		if (!t->pend[lba])
			return lba;
	}
	sim_die("%s: no free LBA found (%c)", t->exp, t->name);
}

/* ---- jobs ---- */

static void closed_next(struct sim_tenant *t)
{
	uint64_t now = blox_clock_now(t->se.clock);
	uint32_t nr;

	switch (t->job) {
	case SIM_TJOB_FILL:
		nr = t->cap - t->fill_ptr < SIM_SEQ_UNITS ? t->cap - t->fill_ptr : SIM_SEQ_UNITS;
		sim_tenant_submit(t, FTL_IO_WRITE, t->fill_ptr, nr, now);
		t->fill_ptr += nr;
		break;
	case SIM_TJOB_RANDW:
		sim_tenant_submit(t, FTL_IO_WRITE, sim_tenant_free_lba(t), 1, now);
		break;
	case SIM_TJOB_VERIFY:
		sim_tenant_submit(t, FTL_IO_READ, (uint32_t)(sim_rnd(&t->rng) % t->cap), 1, now);
		break;
	default:
		break;
	}
}

void sim_tenant_job_closed(struct sim_tenant *t, enum sim_tjob job, uint64_t n, uint32_t qd)
{
	t->job = job;
	t->to_submit = n;
	t->submitted = 0;
	t->stop = false;
	t->qd = qd;
	t->fill_ptr = 0;
	for (uint32_t i = 0; i < qd && t->submitted < t->to_submit; i++)
		closed_next(t);
}

uint64_t sim_tenant_next_gap(struct sim_tenant *t)
{
	double g = -log(sim_rnd_unit(&t->rng)) * t->mean_gap_ns;

	return g < 1.0 ? 1 : (uint64_t)g;
}

void sim_tenant_job_open(struct sim_tenant *t, double kiops, double theta)
{
	if (theta > 0 && t->z.n != t->cap)
		sim_zipf_init(&t->z, t->cap, theta);
	t->job = SIM_TJOB_OPEN;
	t->mean_gap_ns = 1e6 / kiops;
	t->arrivals = true;
	t->next_arr = blox_clock_now(t->se.clock) + sim_tenant_next_gap(t);
}

bool sim_tenant_busy(const struct sim_tenant *t)
{
	if (t->inflight)
		return true;
	switch (t->job) {
	case SIM_TJOB_NONE:
		return false;
	case SIM_TJOB_OPEN:
		return t->arrivals;
	default:
		return !t->stop && t->submitted < t->to_submit;
	}
}

void sim_tenant_window(struct sim_tenant *t, uint64_t m0, uint64_t m1)
{
	t->m_on = true;
	t->m0 = m0;
	t->m1 = m1;
	blox_hist_reset(&t->rlat);
	blox_hist_reset(&t->wlat);
}
