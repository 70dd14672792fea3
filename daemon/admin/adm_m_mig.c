/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of migrations: a vSSD moved to other channels or
 * dies while it serves I/O (prov_mig.c), its progress (bytes, percent,
 * recent rate, ETA; a cancel's way back) once or as a stream, pause,
 * resume, cancel and its throttle.
 */
#include "adm_internal.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A Migration message and what it points into. */
struct mig_msg {
	Blox__Admin__Migration m;
	uint32_t from[FBX_MAX_MOVES], to[FBX_MAX_MOVES];
	char error[64];
};

static void mig_msg_fill(const struct blox_admin *a, const struct prov_mig *g,
			 struct mig_msg *x)
{
	struct prov_mig_view v;

	blox__admin__migration__init(&x->m);
	x->error[0] = '\0';
	x->m.id = g->id;
	x->m.nqn = (char *)g->nqn;
	x->m.nsid = g->nsid;
	x->m.device = (char *)g->dev;
	x->m.state = (char *)prov_mig_state_name(g->state);
	x->m.why = (char *)g->why;
	for (uint32_t i = 0; i < g->nr; i++) {
		x->from[i] = g->moves[i].from_die;
		x->to[i] = g->moves[i].to_die;
	}
	x->m.n_from_dies = x->m.n_to_dies = g->nr;
	x->m.from_dies = x->from;
	x->m.to_dies = x->to;
	x->m.moves = g->nr;
	x->m.moves_done = g->cur;
	x->m.share = g->share;
	/* The figures come from the provisioning service's one view of it. */
	prov_mig_view(a->prov, g, &v);
	x->m.bytes_copied = v.bytes_copied;
	x->m.bytes_total = v.bytes_total;
	x->m.percent = v.percent;
	x->m.rate_mbps = v.rate_mbps;
	x->m.eta_ns = v.eta_ns;
	x->m.elapsed_ns = v.elapsed_ns;
	x->m.moving_back = v.moving_back;
	x->m.bytes_back = v.bytes_back;
	x->m.back_total = v.back_total;
	x->m.back_percent = v.back_percent;
	x->m.avg_rate_mbps = v.avg_rate_mbps;
	x->m.rate_window_ns = v.rate_window_ns;
	if (g->error)
		snprintf(x->error, sizeof(x->error), "%s", strerror(-g->error));
	x->m.error = x->error;
}

/* The migrations @id names (0: all), as a list; -ENOENT when @id is unknown. */
static int list_fill(const struct blox_admin *a, uint32_t id, Blox__Admin__MigrationList *out,
		     struct mig_msg **xs, bool *live)
{
	const struct prov_mig *g;
	size_t n = 0, i = 0;

	blox__admin__migration_list__init(out);
	*live = false;
	TAILQ_FOREACH(g, &a->prov->migs, link)
		n += !id || g->id == id;
	if (id && !n)
		return -ENOENT;
	*xs = calloc(n + 1, sizeof(**xs));
	out->migrations = calloc(n + 1, sizeof(*out->migrations));
	if (!*xs || !out->migrations)
		return -ENOMEM;
	TAILQ_FOREACH(g, &a->prov->migs, link) {
		if (id && g->id != id)
			continue;
		mig_msg_fill(a, g, &(*xs)[i]);
		out->migrations[i] = &(*xs)[i].m;
		*live |= g->state != PM_DONE && g->state != PM_CANCELLED && g->state != PM_FAILED;
		i++;
	}
	out->n_migrations = n;
	return 0;
}

/* The vSSD behind NQN/NSID: its record, or NULL with the failure in @r. */
static const struct prov_ns_rec *find_vssd(struct blox_admin *a, struct adm_req *r,
					   const char *nqn, uint32_t nsid)
{
	struct nvmf_subsys *s = adm_find_subsys(a, r, nqn);
	struct nvmf_ns *ns = s ? nvmf_ns_find(s, nsid) : NULL;
	const struct prov_ns_rec *rec;

	if (!s)
		return NULL;
	if (!ns) {
		adm_fail(r, ADM_S_NOT_FOUND, "namespace %u not found in %s", nsid, nqn);
		return NULL;
	}
	rec = prov_ns_rec(ns);
	if (!rec || !rec->dev) {
		adm_fail(r, ADM_S_FAILED_PRECONDITION,
			 "namespace %u of %s is not a vSSD on a device: nothing to migrate", nsid,
			 nqn);
		return NULL;
	}
	return rec;
}

static void m_migration_start(ADM_SVC *svc, const Blox__Admin__MigrateStartRequest *in,
			      Blox__Admin__Migration_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	const struct prov_ns_rec *rec = find_vssd(a, ADM_REQ(d), in->nqn, in->nsid);
	struct fbx_move mv[FBX_MAX_MOVES];
	const struct nand_geometry *g;
	struct prov_device *dev;
	struct fbx_alloc al;
	struct prov_mig *m;
	struct mig_msg x;
	uint32_t nr = 0, dpc;
	int rc;

	if (!rec)
		ADM_FAILED(closure, d);
	dev = rec->dev;
	g = &dev->cfg.nand.geo;
	dpc = g->dies_per_channel;
	if (!fbx_owner_alloc(dev->rm, rec->owner, &al))
		ADM_FAIL(closure, d, ADM_S_INTERNAL, "namespace %u has no flash on %s", in->nsid,
			 dev->cfg.name);
	if (in->share > 1000)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "share %u: 1..1000 permille", in->share);
	if (prov_mig_of(a->prov, dev->cfg.name, rec->owner))
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "namespace %u of %s is being migrated already", in->nsid, in->nqn);
	if (!!in->n_to_channels == !!in->n_to_chips)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "give the channels (--to-channels) or the dies (--to-chips) to move to");
	if (in->n_to_channels) {
		uint32_t nch = al.res.nr_dies / dpc;

		if (al.iso != FBX_CHANNEL)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "namespace %u is a %s vSSD: move it with --to-chips", in->nsid,
				 fbx_isolation_name(al.iso));
		if (in->n_to_channels != nch)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "namespace %u has %u channel%s: give as many to move to, not %zu",
				 in->nsid, nch, nch == 1 ? "" : "s", in->n_to_channels);
		/* Its channels in the order it has them, each die to the same die of the new one. */
		for (uint32_t k = 0; k < nch; k++) {
			uint32_t from_ch = al.res.dies[k * dpc] / dpc, to_ch = in->to_channels[k];

			if (to_ch >= g->channels)
				ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
					 "channel %u: the device has %u", to_ch, g->channels);
			for (uint32_t j = 0; j < k; j++)
				if (in->to_channels[j] == to_ch)
					ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
						 "channel %u given twice", to_ch);
			if (from_ch == to_ch)
				continue;
			for (uint32_t dd = 0; dd < dpc; dd++)
				mv[nr++] = (struct fbx_move){ .owner = rec->owner,
							      .from_die = al.res.dies[k * dpc + dd],
							      .to_die = to_ch * dpc +
									al.res.dies[k * dpc + dd] % dpc };
		}
	} else {
		if (al.iso != FBX_CHIP)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "namespace %u is a %s vSSD: %s", in->nsid,
				 fbx_isolation_name(al.iso),
				 al.iso == FBX_CHANNEL ? "move it with --to-channels"
						       : "software vSSDs share their dies and do not move");
		if (in->n_to_chips != al.res.nr_dies)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "namespace %u has %u dies: give as many to move to, not %zu",
				 in->nsid, al.res.nr_dies, in->n_to_chips);
		for (uint32_t k = 0; k < al.res.nr_dies; k++) {
			if (in->to_chips[k] >= nand_dies(g))
				ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
					 "die %u: the device has %u", in->to_chips[k], nand_dies(g));
			for (uint32_t j = 0; j < k; j++)
				if (in->to_chips[j] == in->to_chips[k])
					ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
						 "die %u given twice", in->to_chips[k]);
			if (in->to_chips[k] != al.res.dies[k])
				mv[nr++] = (struct fbx_move){ .owner = rec->owner,
							      .from_die = al.res.dies[k],
							      .to_die = in->to_chips[k] };
		}
	}
	if (!nr)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "namespace %u is there already: nothing to move", in->nsid);
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t o = fbx_die_owner(dev->rm, mv[i].to_die);
		bool own = false;

		/* A die it has moves elsewhere in this same migration is not free: refused too. */
		for (uint32_t k = 0; k < al.res.nr_dies; k++)
			own |= al.res.dies[k] == mv[i].to_die;
		if (o != FBX_FREE || own)
			ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED,
				 "die %u (channel %u) is %s: a migration moves to free dies only",
				 mv[i].to_die, mv[i].to_die / dpc,
				 own ? "its own" : o == FBX_POOL ? "in the software pool" : "taken");
	}
	rc = prov_mig_from_moves(a->prov, dev, mv, nr, "asked by the operator",
				 in->share ? in->share : 0);
	if (rc)
		ADM_FAIL(closure, d, adm_status_from_errno(rc), "%s", strerror(-rc));
	m = prov_mig_of(a->prov, dev->cfg.name, rec->owner);
	if (!m) {
		/* Ended at once (failed): the last job listed says why. */
		m = TAILQ_LAST(&a->prov->migs, prov_mig_list);
	}
	blox_log(a->log, BLOX_LOG_INFO, "admin: migration %u of %s namespace %u: %u die moves",
		 m ? m->id : 0, in->nqn, in->nsid, nr);
	mig_msg_fill(a, m, &x);
	closure(&x.m, d);
}

static void m_migration_status(ADM_SVC *svc, const Blox__Admin__MigrationRef *in,
			       Blox__Admin__MigrationList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__MigrationList out;
	struct mig_msg *xs = NULL;
	bool live;
	int rc = list_fill(a, in->id, &out, &xs, &live);

	if (rc) {
		free(xs);
		free(out.migrations);
		ADM_FAIL(closure, d, rc == -ENOENT ? ADM_S_NOT_FOUND : ADM_S_RESOURCE_EXHAUSTED,
			 rc == -ENOENT ? "migration %u not found" : "out of memory", in->id);
	}
	closure(&out, d);
	free(xs);
	free(out.migrations);
}

struct mwatch {
	uint32_t id, count, sent, interval_ms;
};

static void mwatch_cancel(struct adm_req *r)
{
	adm_closure(NULL, r);
}

static void mwatch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct adm_req *r = arg;
	struct mwatch *w = r->priv;
	Blox__Admin__MigrationList out;
	struct mig_msg *xs = NULL;
	bool live;
	int rc;

	(void)fd;
	(void)what;
	rc = list_fill(r->a, w->id, &out, &xs, &live);
	if (rc) {
		free(xs);
		free(out.migrations);
		adm_fail(r, rc == -ENOENT ? ADM_S_NOT_FOUND : ADM_S_RESOURCE_EXHAUSTED,
			 rc == -ENOENT ? "migration %u not found" : "out of memory", w->id);
		adm_closure(NULL, r);
		return;
	}
	w->sent++;
	if ((w->count && w->sent >= w->count) || (!w->count && !live)) {
		adm_closure(&out.base, r); /* the last answer ends the stream */
	} else {
		if (!adm_conn_congested(r))
			adm_stream_send(r, &out.base);
		event_add(r->timer, &(struct timeval){ w->interval_ms / 1000,
						       (w->interval_ms % 1000) * 1000 });
	}
	free(xs);
	free(out.migrations);
}

static void m_watch_migrations(ADM_SVC *svc, const Blox__Admin__MigrationWatchRequest *in,
			       Blox__Admin__MigrationList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct adm_req *r = ADM_REQ(d);
	struct mwatch *w;

	if (in->interval_ms && (in->interval_ms < 100 || in->interval_ms > 3600000))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "interval %u ms: must be 100..3600000", in->interval_ms);
	if (in->id && !prov_mig_find(a->prov, in->id))
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "migration %u not found", in->id);
	w = calloc(1, sizeof(*w));
	r->timer = evtimer_new(a->base, mwatch_cb, r);
	if (!w || !r->timer) {
		free(w);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	w->id = in->id;
	w->count = in->count;
	w->interval_ms = in->interval_ms ? in->interval_ms : 1000;
	r->priv = w;
	r->on_cancel = mwatch_cancel;
	mwatch_cb(-1, 0, r);
}

enum mig_op { OP_PAUSE, OP_RESUME, OP_CANCEL, OP_SHARE };

static void mig_control(ADM_SVC *svc, const Blox__Admin__MigrationRef *in,
			Blox__Admin__Migration_Closure closure, void *d, enum mig_op op)
{
	static const char *const names[] = { "pause", "resume", "cancel", "set the share of" };
	struct blox_admin *a = ADM_OF(svc);
	struct prov_mig *m = prov_mig_find(a->prov, in->id);
	struct mig_msg x;
	int rc;

	if (!m)
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "migration %u not found", in->id);
	switch (op) {
	case OP_PAUSE:
		rc = prov_mig_pause(a->prov, m);
		break;
	case OP_RESUME:
		rc = prov_mig_resume(a->prov, m);
		break;
	case OP_CANCEL:
		rc = prov_mig_cancel(a->prov, m);
		break;
	default:
		if (in->share < 1 || in->share > 1000)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "share %u: 1..1000 permille",
				 in->share);
		rc = prov_mig_set_share(a->prov, m, in->share);
		break;
	}
	if (rc == -EINVAL)
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION, "cannot %s migration %u: it is %s",
			 names[op], m->id, prov_mig_state_name(m->state));
	if (rc)
		ADM_FAIL(closure, d, adm_status_from_errno(rc), "migration %u: %s", m->id,
			 strerror(-rc));
	blox_log(a->log, BLOX_LOG_INFO, "admin: migration %u: %s", m->id, names[op]);
	mig_msg_fill(a, m, &x);
	closure(&x.m, d);
}

static void m_migration_pause(ADM_SVC *svc, const Blox__Admin__MigrationRef *in,
			      Blox__Admin__Migration_Closure closure, void *d)
{
	mig_control(svc, in, closure, d, OP_PAUSE);
}

static void m_migration_resume(ADM_SVC *svc, const Blox__Admin__MigrationRef *in,
			       Blox__Admin__Migration_Closure closure, void *d)
{
	mig_control(svc, in, closure, d, OP_RESUME);
}

static void m_migration_cancel(ADM_SVC *svc, const Blox__Admin__MigrationRef *in,
			       Blox__Admin__Migration_Closure closure, void *d)
{
	mig_control(svc, in, closure, d, OP_CANCEL);
}

static void m_migration_set_share(ADM_SVC *svc, const Blox__Admin__MigrationRef *in,
				  Blox__Admin__Migration_Closure closure, void *d)
{
	mig_control(svc, in, closure, d, OP_SHARE);
}

void adm_m_mig_init(ADM_SVC *svc)
{
	svc->migration_start = m_migration_start;
	svc->migration_status = m_migration_status;
	svc->watch_migrations = m_watch_migrations;
	svc->migration_pause = m_migration_pause;
	svc->migration_resume = m_migration_resume;
	svc->migration_cancel = m_migration_cancel;
	svc->migration_set_share = m_migration_set_share;
}
