/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of the daemon itself: version, status, config save,
 * and the NVMe/TCP listeners with their ANA states.
 */
#include "adm_internal.h"
#include "mdns.h"
#include "reactor.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- Daemon ---- */

static void m_get_version(ADM_SVC *svc, const Blox__Admin__Empty *in,
			  Blox__Admin__VersionReply_Closure closure, void *d)
{
	Blox__Admin__VersionReply out = BLOX__ADMIN__VERSION_REPLY__INIT;

	(void)svc;
	(void)in;
	out.version = (char *)BLOX_VERSION;
	out.api_version = ADM_VERSION;
	closure(&out, d);
}

static void m_get_status(ADM_SVC *svc, const Blox__Admin__Empty *in,
			 Blox__Admin__DaemonStatus_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__DaemonStatus out = BLOX__ADMIN__DAEMON_STATUS__INIT;
	Blox__Admin__TransportLimitStats lim = BLOX__ADMIN__TRANSPORT_LIMIT_STATS__INIT;
	uint32_t rq[BLOX_REACTORS_MAX];
	const struct nvmf_subsys *s;
	const struct nvmf_port *p;

	(void)in;
	out.version = (char *)BLOX_VERSION;
	out.uptime_ns = blox_clock_now(a->tgt->clock) - a->tgt->start_ns;
	out.pid = (uint32_t)getpid();
	out.data_dir = a->data_dir;
	out.state_file = access(a->state_path, F_OK) == 0 ? a->state_path : (char *)"";
	{
		struct blox_space sp;

		if (!blox_space_get(a->data_dir, &sp)) {
			out.data_dir_free_bytes = sp.free_bytes;
			out.data_dir_total_bytes = sp.total_bytes;
			out.data_dir_full = sp.full;
		}
	}
	TAILQ_FOREACH(s, &a->tgt->subsystems, link) {
		const struct nvmf_ns *ns;

		out.subsystems++;
		out.controllers += adm_nr_ctrls(s);
		TAILQ_FOREACH(ns, &s->namespaces, link)
			out.namespaces++;
	}
	if (a->tgt->discovery)
		out.controllers += adm_nr_ctrls(a->tgt->discovery);
	TAILQ_FOREACH(p, &a->tgt->ports, link)
		out.listeners++;
	out.admin_connections = adm_nr_conns(a);
	out.io_queues = nvmf_tcp_nr_queues(a->tcp);
	if (a->tcp) {
		struct nvmf_tcp_stats sts, *st = &sts;
		struct nvmf_tcp_buffers buf;

		nvmf_tcp_stats(a->tcp, &sts);
		lim.accept_errors = st->accept_errors;
		lim.accept_pauses = st->accept_pauses;
		lim.refused_total = st->refused_total;
		lim.refused_per_host = st->refused_per_host;
		lim.icreq_timeouts = st->icreq_timeouts;
		lim.connect_timeouts = st->connect_timeouts;
		lim.pdu_timeouts = st->pdu_timeouts;
		lim.log_suppressed = st->log_suppressed;
		lim.admin_accept_errors = a->accept_errors;
		lim.io_queues_clamped = a->tgt->stats.io_queues_clamped;
		lim.refused_io_queues = a->tgt->stats.refused_io_queues;
		lim.refused_ctrls_per_host = a->tgt->stats.refused_ctrls_per_host;
		lim.refused_queue_size = a->tgt->stats.refused_queue_size;
		lim.kato_raised = a->tgt->stats.kato_raised;
		lim.kato0_expired = a->tgt->stats.kato0_expired;
		nvmf_tcp_buffers(a->tcp, &buf);
		lim.buffer_pool_waits = buf.pool_waits;
		lim.buffer_conn_waits = buf.conn_waits;
		lim.r2t_waits = st->r2t_waits;
		lim.admin_inflight_refused = a->inflight_refused;
		lim.buffer_pool_bytes = buf.cap;
		lim.buffer_used_bytes = buf.used;
		lim.buffer_cached_bytes = buf.cached;
		lim.buffer_peak_bytes = buf.peak;
		lim.log_suppressed += a->tgt->stats.log_suppressed;
		out.limits = &lim;
		out.reactors = nvmf_tcp_nr_reactors(a->tcp);
		for (unsigned i = 0; i < out.reactors && i < BLOX_REACTORS_MAX; i++)
			rq[out.n_reactor_queues++] = nvmf_tcp_reactor_queues(a->tcp, i);
		out.reactor_queues = rq;
	}
	out.mdns_state = a->mdns ? (char *)blox_mdns_state_name(blox_mdns_state(a->mdns))
				 : (char *)"off";
	out.mdns_services = a->mdns ? (uint32_t)blox_mdns_count(a->mdns) : 0;
	closure(&out, d);
}

static void m_save_config(ADM_SVC *svc, const Blox__Admin__SaveConfigRequest *in,
			  Blox__Admin__SaveConfigReply_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__SaveConfigReply out = BLOX__ADMIN__SAVE_CONFIG_REPLY__INIT;
	char err[512], *written[2];
	char *text;
	int rc;

	if (in->path[0] && in->path[0] != '/')
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "config path %s: must be absolute (it is bloxd's, not yours)",
			 in->path);
	if (adm_save_state(a, err, sizeof(err)))
		ADM_FAIL(closure, d, ADM_S_INTERNAL, "%s", err);
	written[out.n_written++] = a->state_path;
	if (in->path[0]) {
		text = blox_state_json(a->prov);
		if (!text)
			ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
		rc = blox_state_write(in->path, text, err, sizeof(err));
		free(text);
		if (rc)
			ADM_FAIL(closure, d,
				 adm_status_from_errno(rc) == ADM_S_PERMISSION_DENIED
					 ? ADM_S_PERMISSION_DENIED
					 : ADM_S_FAILED_PRECONDITION,
				 "%s", err);
		written[out.n_written++] = in->path;
	}
	out.written = written;
	closure(&out, d);
}

/* ---- Listeners ---- */

/* A listener's ANA states in its message: every group a namespace is in or a state was set for. */
struct ana_buf {
	Blox__Admin__AnaGroupState st[NVMF_ANAGRPMAX];
	Blox__Admin__AnaGroupState *p[NVMF_ANAGRPMAX];
};

static void ana_msg(struct blox_admin *a, const struct nvmf_port *p, Blox__Admin__Listener *m,
		    struct ana_buf *b)
{
	bool used[NVMF_ANAGRPMAX + 1] = { false };
	const struct nvmf_subsys *s;
	const struct nvmf_ns *ns;

	TAILQ_FOREACH(s, &a->tgt->subsystems, link)
		TAILQ_FOREACH(ns, &s->namespaces, link)
			used[ns->anagrpid] = true;
	for (uint32_t g = 1; g <= NVMF_ANAGRPMAX; g++) {
		Blox__Admin__AnaGroupState *x = &b->st[m->n_ana];

		if (!used[g] && !p->ana_state[g])
			continue;
		blox__admin__ana_group_state__init(x);
		x->group = g;
		x->state = (char *)nvmf_ana_state_name(nvmf_port_ana_state(p, g));
		if (p->ana_trans[g])
			x->target = (char *)nvmf_ana_state_name(nvmf_port_ana_target(p, g));
		b->p[m->n_ana++] = x;
	}
	m->ana = b->p;
}

static void listener_msg(struct blox_admin *a, const struct nvmf_port *p,
			 Blox__Admin__Listener *m, struct ana_buf *b)
{
	blox__admin__listener__init(m);
	if (b && !p->discovery_only)
		ana_msg(a, p, m, b);
	m->id = p->id;
	m->address = (char *)p->addr;
	m->port = (uint32_t)atoi(p->svcid);
	m->discovery_only = p->discovery_only;
	m->queues = nvmf_tcp_port_queues(a->tcp, p);
	m->tls = (char *)blox_tls_mode_name(p->tls);
	m->advertise = (char *)p->advertise;
}

static struct nvmf_port *find_port(struct blox_admin *a, const char *addr,
				   uint32_t port)
{
	struct nvmf_port *p;

	TAILQ_FOREACH(p, &a->tgt->ports, link)
		if (!strcmp(p->addr, addr) && (uint32_t)atoi(p->svcid) == port)
			return p;
	return NULL;
}

static void m_add_listener(ADM_SVC *svc, const Blox__Admin__ListenerRequest *in,
			   Blox__Admin__Listener_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct blox_cfg_listener l = { 0 };
	Blox__Admin__Listener out;
	struct nvmf_port *p;
	struct ana_buf *ab;
	char err[256];
	int rc;

	if (in->port == 0 || in->port > 65535)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "listener port %u: must be 1..65535", in->port);
	if (strlen(in->address) >= sizeof(l.addr))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "listener '%s': not an IPv4 or IPv6 address", in->address);
	snprintf(l.addr, sizeof(l.addr), "%s", in->address);
	snprintf(l.port, sizeof(l.port), "%u", in->port);
	l.discovery_only = in->discovery_only;
	if (blox_tls_mode_parse(in->tls ? in->tls : "", &l.tls))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "listener tls '%s': expected none, required or allowed", in->tls);
	for (size_t i = 0; i < in->n_ana_state; i++) {
		uint32_t g;
		uint8_t st;

		if (blox_ana_spec_parse(in->ana_state[i], &g, &st, err, sizeof(err)))
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "listener %s:%u: %s",
				 in->address, in->port, err);
		if (l.ana_state[g])
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "listener %s:%u: ANA group %u given twice", in->address, in->port, g);
		if (l.discovery_only)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "listener %s:%u: a discovery-only listener has no ANA state",
				 in->address, in->port);
		l.ana_state[g] = st;
	}
	if (in->advertise && in->advertise[0]) {
		if (l.discovery_only)
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				 "listener %s:%u: a discovery-only listener is not in the "
				 "discovery log: nothing to advertise",
				 in->address, in->port);
		if (blox_advertise_check(in->address, in->advertise, l.advertise, err, sizeof(err)))
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "listener %s:%u: %s",
				 in->address, in->port, err);
	}
	ab = calloc(1, sizeof(*ab));
	if (!ab)
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	rc = prov_listener_add(a->prov, &l, &p, err, sizeof(err));
	if (rc)
		free(ab);
	if (rc == -EEXIST)
		ADM_FAIL(closure, d, ADM_S_ALREADY_EXISTS,
			 "listener %s:%u already exists", in->address, in->port);
	if (rc == -EINVAL)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "listener '%s': not an IPv4 or IPv6 address", in->address);
	if (rc)
		ADM_FAIL(closure, d,
			 rc == -EADDRINUSE || rc == -EADDRNOTAVAIL || rc == -EACCES
				 ? ADM_S_FAILED_PRECONDITION
				 : ADM_S_INTERNAL,
			 "listener %s:%u: %s", in->address, in->port, strerror(-rc));
	blox_log(a->log, BLOX_LOG_INFO, "admin: listener %s:%u added%s%s%s%s", in->address,
		 in->port, l.tls ? ", TLS " : "", l.tls ? blox_tls_mode_name(l.tls) : "",
		 l.advertise[0] ? ", advertised as " : "", l.advertise);
	listener_msg(a, p, &out, ab);
	if (!adm_persist(ADM_REQ(d))) {
		free(ab);
		ADM_FAILED(closure, d);
	}
	closure(&out, d);
	free(ab);
}

/* SetAnaState: a group's state through a listener, persisted; its hosts are told. */
static void m_set_ana_state(ADM_SVC *svc, const Blox__Admin__AnaStateRequest *in,
			    Blox__Admin__Listener_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_port *p = find_port(a, in->address, in->port);
	Blox__Admin__Listener out;
	struct ana_buf *ab;
	uint8_t st, was;

	if (!p)
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "listener %s:%u not found", in->address,
			 in->port);
	if (p->discovery_only)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "listener %s:%u is discovery-only: it serves no namespace", in->address,
			 in->port);
	if (in->group == 0 || in->group > NVMF_ANAGRPMAX)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "ANA group %u: must be 1..%u",
			 in->group, NVMF_ANAGRPMAX);
	if (nvmf_ana_state_parse(in->state, &st))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "ANA state '%s': expected optimized, non-optimized, inaccessible, "
			 "persistent-loss or change",
			 in->state);
	if (in->transition_ms && st == NVME_ANA_STATE_CHANGE)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "ANA state change with a transition time: a transition goes through "
			 "change to another state");
	if (in->transition_ms > NVMF_ANATT_S * 1000u)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "transition of %u ms: longer than ANATT (%u s), after which hosts give "
			 "the path up",
			 in->transition_ms, NVMF_ANATT_S);
	ab = calloc(1, sizeof(*ab));
	if (!ab)
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	was = nvmf_port_ana_state(p, in->group);
	if (nvmf_port_ana_transition(p, in->group, st, in->transition_ms)) {
		free(ab);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	blox_log(a->log, BLOX_LOG_INFO, "admin: listener %s:%u ANA group %u: %s -> %s%s%s",
		 in->address, in->port, in->group, nvmf_ana_state_name(was),
		 nvmf_ana_state_name(nvmf_port_ana_state(p, in->group)),
		 p->ana_trans[in->group] ? " -> " : "",
		 p->ana_trans[in->group] ? nvmf_ana_state_name(st) : "");
	listener_msg(a, p, &out, ab);
	if (!adm_persist(ADM_REQ(d))) {
		free(ab);
		ADM_FAILED(closure, d);
	}
	closure(&out, d);
	free(ab);
}

/*
 * A forced RemoveListener: the listener accepts nothing more, its queues
 * are closing; the answer waits until they are gone.
 */
struct lsn_wait {
	uint16_t id; /* the port's: the same listener, not one added again */
	char name[NVMF_TRADDR_SIZE + NVMF_TRSVCID_SIZE + 2];
	uint32_t polls;
};

#define LSN_POLL_MS 10
#define LSN_WAIT_S 30

static struct nvmf_port *find_port_id(struct blox_admin *a, uint16_t id)
{
	struct nvmf_port *p;

	TAILQ_FOREACH(p, &a->tgt->ports, link)
		if (p->id == id)
			return p;
	return NULL;
}

/* Nothing came in through @p is left: it goes (discovery log, mDNS, state file). */
static void listener_remove_now(struct adm_req *r, struct nvmf_port *p, const char *name,
				bool forced)
{
	prov_listener_remove(r->a->prov, p);
	blox_log(r->a->log, BLOX_LOG_INFO, "admin: listener %s removed%s", name,
		 forced ? " (forced: its hosts' queues closed)" : "");
	if (!adm_persist(r)) {
		adm_closure(NULL, r);
		return;
	}
	adm_answer_empty(r);
}

static void listener_wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct adm_req *r = arg;
	struct lsn_wait *w = r->priv;
	struct nvmf_port *p = find_port_id(r->a, w->id);
	uint32_t q;

	(void)fd;
	(void)what;
	if (!p) {
		adm_fail(r, ADM_S_NOT_FOUND, "listener %s went away meanwhile", w->name);
		adm_closure(NULL, r);
		return;
	}
	q = nvmf_tcp_port_queues(r->a->tcp, p);
	if (!q) {
		listener_remove_now(r, p, w->name, true);
		return;
	}
	if (++w->polls >= LSN_WAIT_S * 1000 / LSN_POLL_MS) {
		adm_fail(r, ADM_S_UNAVAILABLE,
			 "listener %s: %u queues still open after %u s (commands not completed); "
			 "it accepts no connection and is removed by listener remove --force "
			 "once they are gone",
			 w->name, q, LSN_WAIT_S);
		adm_closure(NULL, r);
		return;
	}
	event_add(r->timer, &(struct timeval){ 0, LSN_POLL_MS * 1000 });
}

static void m_remove_listener(ADM_SVC *svc, const Blox__Admin__ListenerRequest *in,
			      Blox__Admin__Empty_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct adm_req *r = ADM_REQ(d);
	struct nvmf_port *p = find_port(a, in->address, in->port);
	struct lsn_wait *w;
	uint32_t q;

	if (!p)
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "listener %s:%u not found",
			 in->address, in->port);
	q = nvmf_tcp_port_queues(a->tcp, p);
	if (!q) {
		char name[sizeof(w->name)];

		snprintf(name, sizeof(name), "%s:%s", p->addr, p->svcid);
		listener_remove_now(r, p, name, false);
		return;
	}
	if (!in->force)
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "listener %s:%u has %u connected queues; disconnect its "
			 "hosts first, or --force", in->address, in->port, q);
	w = calloc(1, sizeof(*w));
	r->priv = w;
	r->timer = evtimer_new(a->base, listener_wait_cb, r);
	if (!w || !r->timer)
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	w->id = p->id;
	snprintf(w->name, sizeof(w->name), "%s:%s", p->addr, p->svcid);
	blox_log(a->log, BLOX_LOG_INFO,
		 "admin: listener %s: removing under %u queues: no new connection, its "
		 "controllers torn down", w->name, q);
	prov_listener_drain(a->prov, p, "its listener removed by the admin");
	event_add(r->timer, &(struct timeval){ 0, 0 });
}

static void m_list_listeners(ADM_SVC *svc, const Blox__Admin__Empty *in,
			     Blox__Admin__ListenerList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__ListenerList out = BLOX__ADMIN__LISTENER_LIST__INIT;
	Blox__Admin__Listener *ls, **lp;
	struct ana_buf *ab;
	struct nvmf_port *p;
	size_t n = 0;

	(void)in;
	TAILQ_FOREACH(p, &a->tgt->ports, link)
		n++;
	ls = calloc(n + 1, sizeof(*ls));
	lp = calloc(n + 1, sizeof(*lp));
	ab = calloc(n + 1, sizeof(*ab));
	if (!ls || !lp || !ab) {
		free(ls);
		free(lp);
		free(ab);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	TAILQ_FOREACH(p, &a->tgt->ports, link) {
		listener_msg(a, p, &ls[out.n_listeners], &ab[out.n_listeners]);
		lp[out.n_listeners] = &ls[out.n_listeners];
		out.n_listeners++;
	}
	out.listeners = lp;
	closure(&out, d);
	free(ls);
	free(lp);
	free(ab);
}

void adm_m_target_init(ADM_SVC *svc)
{
	svc->get_version = m_get_version;
	svc->get_status = m_get_status;
	svc->save_config = m_save_config;
	svc->add_listener = m_add_listener;
	svc->remove_listener = m_remove_listener;
	svc->list_listeners = m_list_listeners;
	svc->set_ana_state = m_set_ana_state;
}
