/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sampler: once a second, on the loop, each namespace's and
 * controller's I/O counters (ns->snap, c->snap: the window's maxima start
 * again from zero), and per namespace the model's counters and its
 * device's lateness (struct tm_model_ns), from one snapshot; each
 * reactor's CPU time. Readings take their windows from the two newest
 * samples (tm_snap.c).
 */
#include "tm_internal.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

struct tm_model_ns *tm_model_find(const struct blox_telemetry *tm, const struct nvmf_ns *ns)
{
	struct tm_model_ns *e;

	TAILQ_FOREACH(e, &tm->nss, link)
		if (e->ns == ns && e->created_ns == ns->created_ns)
			return e;
	return NULL;
}

/*
 * A sample: snap[0] takes the counters and the maxima of the interval
 * that ends now (io->win), which start again from zero.
 */
static void shift(struct nvmf_io_telemetry snap[2], uint64_t snap_ns[2],
		  struct nvmf_io_telemetry *io, uint64_t now)
{
	snap[1] = snap[0];
	snap_ns[1] = snap_ns[0];
	snap[0] = *io;
	snap_ns[0] = now;
	memset(&io->win, 0, sizeof(io->win));
}

/* The flash of @n at the sample @now into its entry @e. */
static void keep(struct tm_model_ns *e, const struct tm_ns *n, uint64_t now)
{
	e->seen = true;
	e->late[1] = e->late[0];
	e->late_ns[1] = e->late_ns[0];
	e->late_ns[0] = 0;
	e->snap[1] = e->snap[0];
	e->snap_ns[1] = e->snap_ns[0];
	if (n->has_tel && n->t.nand) {
		e->late[0] = n->t.nand->lateness;
		e->late_ns[0] = now;
	}
	if (n->has_flash) {
		e->snap[0] = n->flash.c;
		e->snap_ns[0] = now;
	} else {
		e->snap_ns[0] = 0; /* no sample: no model over a window starting here */
	}
}

void blox_telemetry_sample(struct blox_telemetry *tm)
{
	const struct nvmf_tgt *tgt = tm->p->tgt;
	uint64_t now = blox_clock_now(tgt->clock);
	struct tm_model_ns *e, *next;
	struct nvmf_subsys *s;
	struct tm_snap snap;

	TAILQ_FOREACH(e, &tm->nss, link)
		e->seen = false;
	memcpy(tm->cpu_ns[1], tm->cpu_ns[0], sizeof(tm->cpu_ns[0]));
	tm->cpu_at[1] = tm->cpu_at[0];
	for (unsigned k = 0; k < PROV_REACTORS_MAX; k++)
		tm->cpu_ns[0][k] = prov_reactor_cpu_ns(tm->p, k);
	tm->cpu_at[0] = now;
	TAILQ_FOREACH(s, &tgt->subsystems, link) {
		struct nvmf_ns *ns;
		struct nvmf_ctrl *c;

		TAILQ_FOREACH(ns, &s->namespaces, link) {
			shift(ns->snap, ns->snap_ns, &ns->tm, now);
			/* Critical warnings that turned on: their async events. */
			nvmf_ns_health_check(ns);
			if (!tm_model_find(tm, ns) && (e = calloc(1, sizeof(*e)))) {
				e->ns = ns;
				e->created_ns = ns->created_ns;
				TAILQ_INSERT_TAIL(&tm->nss, e, link);
			}
		}
		TAILQ_FOREACH(c, &s->ctrls, link)
			shift(c->snap, c->snap_ns, &c->tm, now);
	}
	if (!tm_snap_take(tm->p, tm, NULL, 0, TM_FLASH, &snap))
		for (size_t i = 0; i < snap.nr_ns; i++)
			if ((e = tm_model_find(tm, snap.ns[i].ns)))
				keep(e, &snap.ns[i], now);
	tm_snap_free(&snap);
	/* Namespaces gone since (or not sampled). */
	for (e = TAILQ_FIRST(&tm->nss); e; e = next) {
		next = TAILQ_NEXT(e, link);
		if (!e->seen) {
			TAILQ_REMOVE(&tm->nss, e, link);
			free(e);
		}
	}
}

static void sample_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	blox_telemetry_sample(arg);
}

int blox_telemetry_create(struct blox_prov *p, struct blox_telemetry **out)
{
	struct blox_telemetry *tm = calloc(1, sizeof(*tm));

	if (!tm)
		return -ENOMEM;
	tm->p = p;
	TAILQ_INIT(&tm->nss);
	tm->sample_ev = event_new(p->tgt->base, -1, EV_PERSIST, sample_cb, tm);
	if (!tm->sample_ev) {
		free(tm);
		return -ENOMEM;
	}
	event_add(tm->sample_ev, &(struct timeval){ 1, 0 });
	blox_telemetry_sample(tm);
	*out = tm;
	return 0;
}

void blox_telemetry_destroy(struct blox_telemetry *tm)
{
	struct tm_model_ns *e;

	if (!tm)
		return;
	event_free(tm->sample_ev);
	while ((e = TAILQ_FIRST(&tm->nss))) {
		TAILQ_REMOVE(&tm->nss, e, link);
		free(e);
	}
	free(tm);
}
