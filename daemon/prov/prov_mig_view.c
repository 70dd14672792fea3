/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What is read of a migration job (prov.h, "migration jobs"): its
 * progress as one view made in one place, and the ended jobs a device's
 * record keeps across a restart.
 */
#include "prov_mig_internal.h"

#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Progress as shown (prov_mig.h) ---- */

/* The job moves back now: cancelling, or its FTL's move under way goes back. */
static bool mig_back(const struct prov_mig *m)
{
	return m->reverse || m->state == PM_CANCELLING || (m->ftl_active && mig_ext_of_c(m)->cur_reverse);
}

/* What move @k copied forward (an average of the moves made when it is not known). */
static uint64_t move_bytes(const struct mig_ext *x, uint32_t k)
{
	const struct prov_mig *m = &x->m;

	if (x->move_fwd[k])
		return x->move_fwd[k];
	return m->cur ? m->bytes_done / m->cur : 0;
}

/* The rate's samples start again (a pause, a resume, a cancel, a new share). */
void prov_mig_rate_reset(struct prov_mig *m)
{
	mig_ext_of(m)->n = 0;
}

/*
 * The view's figures from the job and its FTL's last sample (cur_bytes,
 * cur_total, cur_reverse): the most reached, and one more sample of the
 * bytes moved for the recent rate.
 */
void prov_mig_sample(struct blox_prov *p, struct prov_mig *m)
{
	struct mig_ext *x = mig_ext_of(m);
	uint64_t cur = m->ftl_active ? m->cur_bytes : 0, raw;

	if (!mig_back(m)) {
		uint64_t per = m->cur_total ? m->cur_total : m->cur ? m->bytes_done / m->cur : 0;
		double frac = m->nr ? ((double)m->cur + (m->ftl_active && m->cur_total
							 ? (double)m->cur_bytes / (double)m->cur_total
							 : 0)) / m->nr
				    : 1.0;

		if (frac > 1.0)
			frac = 1.0;
		if (frac * 100.0 > x->pct)
			x->pct = frac * 100.0;
		if (m->bytes_done + cur > x->fwd_shown)
			x->fwd_shown = m->bytes_done + cur;
		x->fwd_total = m->bytes_done + per * (m->nr - m->cur);
	} else {
		bool going = m->ftl_active && x->cur_reverse;
		/* The move under way: what it moved back, or (not turned yet) what it copied. */
		uint64_t back = x->back_done + (going ? cur : 0);
		uint64_t total = x->back_done + (m->ftl_active ? (going ? m->cur_total : cur) : 0);
		/* The moves still to go back: those before the one under way. */
		uint32_t left = m->reverse && m->ftl_active ? m->cur - 1 : m->cur;

		for (uint32_t k = 0; k < left && k < FBX_MAX_MOVES; k++)
			total += move_bytes(x, k);
		if (back > x->back_shown)
			x->back_shown = back;
		x->back_total = total > x->back_shown ? total : x->back_shown;
	}
	/* Bytes moved either way; a copy dropped (pause, cancel) is not counted back off. */
	raw = m->bytes_done + x->back_done + cur;
	if (raw > x->raw)
		x->moved += raw - x->raw;
	x->raw = raw;
	if (m->ftl_active && (m->state == PM_RUNNING || m->state == PM_CANCELLING)) {
		x->ring[x->head].ns = blox_clock_now(p->tgt->clock);
		x->ring[x->head].bytes = x->moved;
		x->head = (x->head + 1) % RATE_SAMPLES;
		if (x->n < RATE_SAMPLES)
			x->n++;
	}
}

/* MB/s over the samples of the last PROV_MIG_RATE_WINDOW_S seconds (0: too few); @span. */
static double ring_rate(const struct mig_ext *x, uint64_t *span)
{
	unsigned last = (x->head + RATE_SAMPLES - 1) % RATE_SAMPLES, first = last;

	*span = 0;
	if (x->n < 2)
		return 0;
	for (unsigned i = 1; i < x->n; i++) {
		unsigned k = (last + RATE_SAMPLES - i) % RATE_SAMPLES;

		if (x->ring[last].ns - x->ring[k].ns > PROV_MIG_RATE_WINDOW_S * 1000000000ull)
			break;
		first = k;
	}
	*span = x->ring[last].ns - x->ring[first].ns;
	if (*span < RATE_MIN_NS)
		return 0;
	return (double)(x->ring[last].bytes - x->ring[first].bytes) * 1000.0 / (double)*span;
}

void prov_mig_view(const struct blox_prov *p, const struct prov_mig *m,
		   struct prov_mig_view *v)
{
	const struct mig_ext *x = mig_ext_of_c(m);
	bool ended = prov_mig_ended(m);
	uint64_t span = 0;

	memset(v, 0, sizeof(*v));
	v->percent = m->state == PM_DONE ? 100.0 : x->pct;
	v->bytes_copied = x->fwd_shown;
	v->bytes_total = m->state == PM_DONE || x->fwd_total < x->fwd_shown ? x->fwd_shown
									 : x->fwd_total;
	v->moving_back = mig_back(m) || x->back_shown;
	if (v->moving_back) {
		v->bytes_back = x->back_shown;
		v->back_total = x->back_total > x->back_shown ? x->back_total : x->back_shown;
		/* All of it went back: the cancel's end. */
		if (ended && m->reverse && m->cur == 0)
			v->back_total = v->bytes_back;
		v->back_percent = v->back_total ? 100.0 * (double)v->bytes_back / (double)v->back_total
						: ended && m->cur == 0 ? 100.0 : 0;
	}
	if (m->started_ns) {
		uint64_t end = m->finished_ns ? m->finished_ns : blox_clock_now(p->tgt->clock);

		v->elapsed_ns = end > m->started_ns ? end - m->started_ns : 0;
	} else {
		v->elapsed_ns = x->elapsed_saved;
	}
	if (v->elapsed_ns)
		v->avg_rate_mbps = (double)x->moved * 1000.0 / (double)v->elapsed_ns;
	if (ended || (m->state != PM_RUNNING && m->state != PM_CANCELLING))
		return;
	v->rate_mbps = ring_rate(x, &span);
	v->rate_window_ns = span;
	if (v->rate_mbps > 0) {
		uint64_t left = v->moving_back ? v->back_total - v->bytes_back
					       : v->bytes_total - v->bytes_copied;

		v->eta_ns = (uint64_t)((double)left * 1000.0 / v->rate_mbps);
	}
}

/* ---- Ended jobs across a restart (prov_mig.h) ---- */

/* Ended jobs beyond the newest PROV_MIG_KEEP of their device go. */
void prov_mig_prune(struct blox_prov *p)
{
	struct prov_mig *m, *next, *o;

	for (m = TAILQ_FIRST(&p->migs); m; m = next) {
		uint32_t newer = 0;

		next = TAILQ_NEXT(m, link);
		if (!prov_mig_ended(m))
			continue;
		TAILQ_FOREACH(o, &p->migs, link)
			newer += o != m && prov_mig_ended(o) && o->id > m->id && !strcmp(o->dev, m->dev);
		if (newer >= PROV_MIG_KEEP) {
			TAILQ_REMOVE(&p->migs, m, link);
			free(mig_ext_of(m));
		}
	}
}

static void jint(json_object *o, const char *key, int64_t v)
{
	json_object_object_add(o, key, json_object_new_int64(v));
}

json_object *prov_mig_ended_json(const struct blox_prov *p, const char *dev)
{
	json_object *arr = json_object_new_array();
	const struct prov_mig *m, *o;

	TAILQ_FOREACH(m, &p->migs, link) {
		const struct mig_ext *x = mig_ext_of_c(m);
		struct prov_mig_view v;
		json_object *j, *moves;
		uint32_t newer = 0;

		if (!prov_mig_ended(m) || strcmp(m->dev, dev))
			continue;
		TAILQ_FOREACH(o, &p->migs, link)
			newer += o != m && prov_mig_ended(o) && o->id > m->id && !strcmp(o->dev, dev);
		if (newer >= PROV_MIG_KEEP)
			continue;
		prov_mig_view(p, m, &v);
		j = json_object_new_object();
		jint(j, "id", m->id);
		json_object_object_add(j, "subsystem", json_object_new_string(m->nqn));
		jint(j, "nsid", m->nsid);
		json_object_object_add(j, "why", json_object_new_string(m->why));
		json_object_object_add(j, "state",
				       json_object_new_string(prov_mig_state_name(m->state)));
		moves = json_object_new_array();
		for (uint32_t i = 0; i < m->nr; i++) {
			json_object *mv = json_object_new_array();

			json_object_array_add(mv, json_object_new_int64(m->moves[i].from_die));
			json_object_array_add(mv, json_object_new_int64(m->moves[i].to_die));
			json_object_array_add(moves, mv);
		}
		json_object_object_add(j, "moves", moves);
		jint(j, "cur", m->cur);
		json_object_object_add(j, "reverse", json_object_new_boolean(m->reverse));
		jint(j, "share", m->share);
		jint(j, "error", m->error);
		jint(j, "bytes_done", (int64_t)m->bytes_done);
		jint(j, "bytes_total", (int64_t)v.bytes_total);
		json_object_object_add(j, "percent", json_object_new_double(v.percent));
		jint(j, "bytes_back", (int64_t)x->back_shown);
		jint(j, "back_total", (int64_t)v.back_total);
		jint(j, "bytes_moved", (int64_t)x->moved);
		jint(j, "elapsed_ns", (int64_t)v.elapsed_ns);
		json_object_array_add(arr, j);
	}
	return arr;
}

static int64_t jget(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) ? json_object_get_int64(v) : 0;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : "";
}

void prov_mig_ended_load(struct blox_prov *p, const char *dev, json_object *arr)
{
	if (!json_object_is_type(arr, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *j = json_object_array_get_idx(arr, i), *moves, *v;
		int64_t id = jget(j, "id");
		struct mig_ext *x;
		struct prov_mig *m, *o;
		int st;

		for (st = PM_DONE; st <= PM_FAILED; st++)
			if (!strcmp(jstr(j, "state"), prov_mig_state_name((enum prov_mig_state)st)))
				break;
		/* Not an ended job, or its id taken (a device made again with its record). */
		if (st > PM_FAILED || id <= 0 || id > UINT32_MAX || prov_mig_find(p, (uint32_t)id) ||
		    !(x = calloc(1, sizeof(*x))))
			continue;
		m = &x->m;
		m->id = (uint32_t)id;
		m->state = (enum prov_mig_state)st;
		snprintf(m->dev, sizeof(m->dev), "%s", dev);
		snprintf(m->nqn, sizeof(m->nqn), "%s", jstr(j, "subsystem"));
		snprintf(m->why, sizeof(m->why), "%s", jstr(j, "why"));
		m->nsid = (uint32_t)jget(j, "nsid");
		if (json_object_object_get_ex(j, "moves", &moves) &&
		    json_object_is_type(moves, json_type_array))
			for (size_t k = 0; k < json_object_array_length(moves) && m->nr < FBX_MAX_MOVES;
			     k++) {
				json_object *mv = json_object_array_get_idx(moves, k);

				m->moves[m->nr++] = (struct fbx_move){
					.from_die = (uint32_t)json_object_get_int64(
						json_object_array_get_idx(mv, 0)),
					.to_die = (uint32_t)json_object_get_int64(
						json_object_array_get_idx(mv, 1)),
				};
			}
		m->cur = (uint32_t)jget(j, "cur") <= m->nr ? (uint32_t)jget(j, "cur") : m->nr;
		m->reverse = json_object_object_get_ex(j, "reverse", &v) && json_object_get_boolean(v);
		m->share = (uint32_t)jget(j, "share");
		m->error = (int)jget(j, "error");
		m->bytes_done = (uint64_t)jget(j, "bytes_done");
		x->fwd_shown = m->bytes_done;
		x->fwd_total = (uint64_t)jget(j, "bytes_total");
		x->pct = json_object_object_get_ex(j, "percent", &v) ? json_object_get_double(v) : 0;
		x->back_shown = x->back_done = (uint64_t)jget(j, "bytes_back");
		x->back_total = (uint64_t)jget(j, "back_total");
		x->moved = (uint64_t)jget(j, "bytes_moved");
		x->elapsed_saved = (uint64_t)jget(j, "elapsed_ns");
		if (m->id > p->next_mig_id)
			p->next_mig_id = m->id;
		/* In the order of their ids, among the others. */
		TAILQ_FOREACH(o, &p->migs, link)
			if (o->id > m->id)
				break;
		if (o)
			TAILQ_INSERT_BEFORE(o, m, link);
		else
			TAILQ_INSERT_TAIL(&p->migs, m, link);
	}
}
