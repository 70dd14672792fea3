/*
 * BloxAdmin method handlers. Each checks its input, changes the running
 * target, writes the state file when something changed, and answers
 * through the closure (once). Handlers that must wait (a namespace whose
 * commands are still running, controllers still closing) answer later.
 */
#include "adm_internal.h"
#include "config.h"
#include "state.h"

#include <ctype.h>
#include <errno.h>
#include <event2/event.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SVC Blox__Admin__BloxAdmin_Service
#define ADM(svc) container_of(svc, struct blox_admin, svc)
#define REQ(d) ((struct adm_req *)(d))
#define DONE(closure, d, msg) (closure)((msg), (d))
/* Answer @d with a failure and return from the handler. */
#define FAIL(closure, d, ...)                  \
	do {                                   \
		adm_fail(REQ(d), __VA_ARGS__); \
		(closure)(NULL, (d));          \
		return;                        \
	} while (0)

int adm_save_state(struct blox_admin *a, char *err, size_t errlen)
{
	char *text = blox_state_json(a->tgt, a->devices_json);
	int rc;

	if (!text)
		return snprintf(err, errlen, "out of memory"), -ENOMEM;
	rc = blox_state_write(a->state_path, text, err, errlen);
	free(text);
	if (rc)
		blox_log(a->log, BLOX_LOG_ERR, "state file: %s", err);
	return rc;
}

/* After a change: persist it; a failure is reported with the change made. */
static bool persist(struct adm_req *r)
{
	char err[512];

	if (adm_save_state(r->a, err, sizeof(err)) == 0)
		return true;
	adm_fail(r, ADM_S_INTERNAL, "done, but the state file was not written: %s",
		 err);
	return false;
}

static struct nvmf_subsys *find_subsys(struct blox_admin *a, struct adm_req *r,
				       const char *nqn)
{
	struct nvmf_subsys *s;

	if (!nqn || !nqn[0]) {
		adm_fail(r, ADM_S_INVALID_ARGUMENT, "a subsystem NQN is required");
		return NULL;
	}
	s = nvmf_subsys_find(a->tgt, nqn);
	if (!s || s->type != NVMF_SUBSYS_NVM) {
		adm_fail(r, ADM_S_NOT_FOUND, "subsystem %s not found", nqn);
		return NULL;
	}
	return s;
}

static uint32_t nr_ctrls(const struct nvmf_subsys *s)
{
	const struct nvmf_ctrl *c;
	uint32_t n = 0;

	TAILQ_FOREACH(c, &s->ctrls, link)
		n++;
	return n;
}

/* ---- Daemon ---- */

static void m_get_version(SVC *svc, const Blox__Admin__Empty *in,
			  Blox__Admin__VersionReply_Closure closure, void *d)
{
	Blox__Admin__VersionReply out = BLOX__ADMIN__VERSION_REPLY__INIT;

	(void)svc;
	(void)in;
	out.version = (char *)BLOX_VERSION;
	out.api_version = ADM_VERSION;
	DONE(closure, d, &out);
}

static void m_get_status(SVC *svc, const Blox__Admin__Empty *in,
			 Blox__Admin__DaemonStatus_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	Blox__Admin__DaemonStatus out = BLOX__ADMIN__DAEMON_STATUS__INIT;
	const struct nvmf_subsys *s;
	const struct nvmf_port *p;

	(void)in;
	out.version = (char *)BLOX_VERSION;
	out.uptime_ns = blox_clock_now(a->tgt->clock) - a->tgt->start_ns;
	out.pid = (uint32_t)getpid();
	out.data_dir = a->data_dir;
	out.state_file = access(a->state_path, F_OK) == 0 ? a->state_path : (char *)"";
	TAILQ_FOREACH(s, &a->tgt->subsystems, link) {
		const struct nvmf_ns *ns;

		out.subsystems++;
		out.controllers += nr_ctrls(s);
		TAILQ_FOREACH(ns, &s->namespaces, link)
			out.namespaces++;
	}
	if (a->tgt->discovery)
		out.controllers += nr_ctrls(a->tgt->discovery);
	TAILQ_FOREACH(p, &a->tgt->ports, link)
		out.listeners++;
	out.admin_connections = adm_nr_conns(a);
	out.io_queues = nvmf_tcp_nr_queues(a->tcp);
	DONE(closure, d, &out);
}

static void m_save_config(SVC *svc, const Blox__Admin__SaveConfigRequest *in,
			  Blox__Admin__SaveConfigReply_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	Blox__Admin__SaveConfigReply out = BLOX__ADMIN__SAVE_CONFIG_REPLY__INIT;
	char err[512], *written[2];
	char *text;
	int rc;

	if (in->path[0] && in->path[0] != '/')
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			    "config path %s: must be absolute (it is bloxd's, not yours)",
			    in->path);
	if (adm_save_state(a, err, sizeof(err)))
		FAIL(closure, d, ADM_S_INTERNAL, "%s", err);
	written[out.n_written++] = a->state_path;
	if (in->path[0]) {
		text = blox_state_json(a->tgt, a->devices_json);
		if (!text)
			FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
		rc = blox_state_write(in->path, text, err, sizeof(err));
		free(text);
		if (rc)
			FAIL(closure, d, adm_status_from_errno(rc) == ADM_S_PERMISSION_DENIED
							? ADM_S_PERMISSION_DENIED
							: ADM_S_FAILED_PRECONDITION,
				    "%s", err);
		written[out.n_written++] = in->path;
	}
	out.written = written;
	DONE(closure, d, &out);
}

/* ---- Listeners ---- */

static void listener_msg(struct blox_admin *a, const struct nvmf_port *p,
			 Blox__Admin__Listener *m)
{
	blox__admin__listener__init(m);
	m->id = p->id;
	m->address = (char *)p->addr;
	m->port = (uint32_t)atoi(p->svcid);
	m->discovery_only = p->discovery_only;
	m->queues = nvmf_tcp_port_queues(a->tcp, p);
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

static void m_add_listener(SVC *svc, const Blox__Admin__ListenerRequest *in,
			   Blox__Admin__Listener_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	Blox__Admin__Listener out;
	struct nvmf_port *p;
	char port[8];
	int rc;

	if (in->port == 0 || in->port > 65535)
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			    "listener port %u: must be 1..65535", in->port);
	snprintf(port, sizeof(port), "%u", in->port);
	rc = nvmf_port_add(a->tgt, in->address, port, in->discovery_only, &p);
	if (rc == -EEXIST)
		FAIL(closure, d, ADM_S_ALREADY_EXISTS,
			    "listener %s:%u already exists", in->address, in->port);
	if (rc)
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			    "listener '%s': not an IPv4 or IPv6 address", in->address);
	rc = nvmf_tcp_listen(a->tcp, p);
	if (rc) {
		nvmf_port_remove(p);
		FAIL(closure, d,
			    rc == -EADDRINUSE || rc == -EADDRNOTAVAIL || rc == -EACCES
				    ? ADM_S_FAILED_PRECONDITION
				    : ADM_S_INTERNAL,
			    "listener %s:%u: %s", in->address, in->port, strerror(-rc));
	}
	blox_log(a->log, BLOX_LOG_INFO, "admin: listener %s:%u added", in->address,
		 in->port);
	listener_msg(a, p, &out);
	if (!persist(REQ(d)))
		{ closure(NULL, d); return; }
	DONE(closure, d, &out);
}

static void m_remove_listener(SVC *svc, const Blox__Admin__ListenerRequest *in,
			      Blox__Admin__Empty_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	Blox__Admin__Empty out = BLOX__ADMIN__EMPTY__INIT;
	struct nvmf_port *p = find_port(a, in->address, in->port);
	uint32_t q;

	if (!p)
		FAIL(closure, d, ADM_S_NOT_FOUND, "listener %s:%u not found",
			    in->address, in->port);
	q = nvmf_tcp_port_queues(a->tcp, p);
	if (q)
		FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			    "listener %s:%u has %u connected queues; disconnect its "
			    "hosts first", in->address, in->port, q);
	nvmf_tcp_unlisten(a->tcp, p);
	nvmf_port_remove(p);
	blox_log(a->log, BLOX_LOG_INFO, "admin: listener %s:%u removed",
		 in->address, in->port);
	if (!persist(REQ(d)))
		{ closure(NULL, d); return; }
	DONE(closure, d, &out);
}

static void m_list_listeners(SVC *svc, const Blox__Admin__Empty *in,
			     Blox__Admin__ListenerList_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	Blox__Admin__ListenerList out = BLOX__ADMIN__LISTENER_LIST__INIT;
	Blox__Admin__Listener *ls, **lp;
	struct nvmf_port *p;
	size_t n = 0;

	(void)in;
	TAILQ_FOREACH(p, &a->tgt->ports, link)
		n++;
	ls = calloc(n + 1, sizeof(*ls));
	lp = calloc(n + 1, sizeof(*lp));
	if (!ls || !lp) {
		free(ls);
		free(lp);
		FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	TAILQ_FOREACH(p, &a->tgt->ports, link) {
		listener_msg(a, p, &ls[out.n_listeners]);
		lp[out.n_listeners] = &ls[out.n_listeners];
		out.n_listeners++;
	}
	out.listeners = lp;
	DONE(closure, d, &out);
	free(ls);
	free(lp);
}

/* ---- Namespaces (messages) ---- */

static void uuid_str(const uint8_t u[16], char out[37])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10],
		 u[11], u[12], u[13], u[14], u[15]);
}

/* A Namespace message; strings point into @ns or @uuid. */
static void ns_msg(const struct nvmf_ns *ns, Blox__Admin__Namespace *m,
		   char uuid[37])
{
	blox__admin__namespace__init(m);
	m->nqn = (char *)ns->subsys->nqn;
	m->nsid = ns->nsid;
	m->backend = (char *)ns->bdev->ops->name;
	m->size = ns->bdev->size;
	m->block_size = ns->bdev->block_size;
	uuid_str(ns->uuid, uuid);
	m->uuid = uuid;
	m->inflight = ns->inflight;
	m->params_json = ns->params ? ns->params : (char *)"";
	m->device = (char *)ns->device;
}

struct ns_array {
	Blox__Admin__Namespace *m;
	Blox__Admin__Namespace **p;
	char (*uuid)[37];
	size_t n;
};

static int ns_array_fill(struct ns_array *arr, const struct nvmf_subsys *only,
			 const struct nvmf_tgt *tgt)
{
	const struct nvmf_subsys *s;
	const struct nvmf_ns *ns;
	size_t n = 0;

	TAILQ_FOREACH(s, &tgt->subsystems, link)
		if (!only || s == only)
			TAILQ_FOREACH(ns, &s->namespaces, link)
				n++;
	arr->m = calloc(n + 1, sizeof(*arr->m));
	arr->p = calloc(n + 1, sizeof(*arr->p));
	arr->uuid = calloc(n + 1, sizeof(*arr->uuid));
	arr->n = 0;
	if (!arr->m || !arr->p || !arr->uuid)
		return -ENOMEM;
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		if (!only || s == only)
			TAILQ_FOREACH(ns, &s->namespaces, link) {
				ns_msg(ns, &arr->m[arr->n], arr->uuid[arr->n]);
				arr->p[arr->n] = &arr->m[arr->n];
				arr->n++;
			}
	return 0;
}

static void ns_array_free(struct ns_array *arr)
{
	free(arr->m);
	free(arr->p);
	free(arr->uuid);
}

/* ---- Subsystems ---- */

struct subsys_buf {
	Blox__Admin__Subsystem m;
	char **hosts;
	struct ns_array ns;
};

static int subsys_msg(const struct nvmf_subsys *s, struct subsys_buf *b)
{
	const struct nvmf_host *h;
	size_t n = 0;

	blox__admin__subsystem__init(&b->m);
	b->m.nqn = (char *)s->nqn;
	b->m.serial = (char *)s->serial;
	b->m.model = (char *)s->model;
	b->m.allow_any_host = s->allow_any_host;
	b->m.controllers = nr_ctrls(s);
	TAILQ_FOREACH(h, &s->hosts, link)
		n++;
	b->hosts = calloc(n + 1, sizeof(*b->hosts));
	if (!b->hosts)
		return -ENOMEM;
	TAILQ_FOREACH(h, &s->hosts, link)
		b->hosts[b->m.n_hosts++] = (char *)h->nqn;
	b->m.hosts = b->hosts;
	if (ns_array_fill(&b->ns, s, s->tgt))
		return -ENOMEM;
	b->m.n_namespaces = b->ns.n;
	b->m.namespaces = b->ns.p;
	return 0;
}

static void subsys_buf_free(struct subsys_buf *b)
{
	free(b->hosts);
	ns_array_free(&b->ns);
}

/* Answer with the subsystem as it is now. */
static void answer_subsys(const struct nvmf_subsys *s,
			  Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct subsys_buf b = { 0 };

	if (subsys_msg(s, &b)) {
		subsys_buf_free(&b);
		FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	DONE(closure, d, &b.m);
	subsys_buf_free(&b);
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static void m_create_subsystem(SVC *svc, const Blox__Admin__SubsystemCreateRequest *in,
			       Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	struct nvmf_subsys *s;
	int rc;

	if (!nvmf_nqn_valid(in->nqn) || !strcmp(in->nqn, NVME_DISC_SUBSYS_NAME))
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			    "'%s' is not a usable subsystem NQN", in->nqn);
	if (strlen(in->serial) > 20 || !printable(in->serial))
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			    "serial: at most 20 printable ASCII characters");
	if (strlen(in->model) > 40 || !printable(in->model))
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			    "model: at most 40 printable ASCII characters");
	for (size_t i = 0; i < in->n_hosts; i++)
		if (!nvmf_nqn_valid(in->hosts[i]))
			FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
				    "'%s' is not a host NQN", in->hosts[i]);
	if (nvmf_subsys_find(a->tgt, in->nqn))
		FAIL(closure, d, ADM_S_ALREADY_EXISTS,
			    "subsystem %s already exists", in->nqn);
	rc = nvmf_subsys_create(a->tgt, in->nqn, &s);
	if (rc)
		FAIL(closure, d, adm_status_from_errno(rc), "subsystem %s: %s",
			    in->nqn, strerror(-rc));
	if (in->serial[0])
		snprintf(s->serial, sizeof(s->serial), "%s", in->serial);
	if (in->model[0])
		snprintf(s->model, sizeof(s->model), "%s", in->model);
	s->allow_any_host = in->allow_any_host;
	for (size_t i = 0; i < in->n_hosts; i++)
		nvmf_subsys_add_host(s, in->hosts[i]);
	blox_log(a->log, BLOX_LOG_INFO, "admin: subsystem %s created", in->nqn);
	if (!persist(REQ(d)))
		{ closure(NULL, d); return; }
	answer_subsys(s, closure, d);
}

static void m_list_subsystems(SVC *svc, const Blox__Admin__Empty *in,
			      Blox__Admin__SubsystemList_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	Blox__Admin__SubsystemList out = BLOX__ADMIN__SUBSYSTEM_LIST__INIT;
	const struct nvmf_subsys *s;
	struct subsys_buf *b;
	Blox__Admin__Subsystem **p;
	size_t n = 0;
	bool oom = false;

	(void)in;
	TAILQ_FOREACH(s, &a->tgt->subsystems, link)
		n++;
	b = calloc(n + 1, sizeof(*b));
	p = calloc(n + 1, sizeof(*p));
	if (b && p)
		TAILQ_FOREACH(s, &a->tgt->subsystems, link) {
			oom |= subsys_msg(s, &b[out.n_subsystems]) != 0;
			p[out.n_subsystems] = &b[out.n_subsystems].m;
			out.n_subsystems++;
		}
	out.subsystems = p;
	if (!b || !p || oom)
		adm_fail(REQ(d), ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	closure(!b || !p || oom ? NULL : &out, d);
	for (size_t i = 0; b && i < out.n_subsystems; i++)
		subsys_buf_free(&b[i]);
	free(b);
	free(p);
}

static void m_show_subsystem(SVC *svc, const Blox__Admin__SubsystemRef *in,
			     Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct nvmf_subsys *s = find_subsys(ADM(svc), REQ(d), in->nqn);

	if (!s)
		{ closure(NULL, d); return; }
	answer_subsys(s, closure, d);
}

/* The store file of a file-backed namespace of its own ("" otherwise). */
static void ns_store_file(struct blox_admin *a, const struct nvmf_ns *ns,
			  char *out, size_t len)
{
	char err[256];
	json_object *o, *ftl, *store;

	out[0] = '\0';
	if (strcmp(ns->bdev->ops->name, "nand") || ns->device[0] || !ns->params)
		return;
	o = json_tokener_parse(ns->params);
	if (o && json_object_object_get_ex(o, "ftl", &ftl) &&
	    json_object_object_get_ex(ftl, "store", &store) &&
	    !strcmp(json_object_get_string(store), "ram")) {
		json_object_put(o);
		return;
	}
	json_object_put(o);
	if (blox_config_store_path(a->data_dir, ns->subsys->nqn, ns->nsid, out, len,
				   err, sizeof(err)))
		out[0] = '\0';
}

/* A subsystem delete waits for its controllers, then for its namespaces. */
struct subsys_wait {
	char nqn[NVME_NQN_LENGTH];
	char (*stores)[4200];
	size_t nr_stores;
	uint32_t polls;
};

static void subsys_delete_now(struct adm_req *r, struct nvmf_subsys *s)
{
	struct subsys_wait *w = r->priv;
	int rc = nvmf_subsys_destroy(s);

	if (rc) {
		adm_fail(r, ADM_S_FAILED_PRECONDITION, "subsystem %s: %s", w->nqn,
			 strerror(-rc));
	} else {
		blox_log(r->a->log, BLOX_LOG_INFO, "admin: subsystem %s deleted", w->nqn);
		if (persist(r))
			for (size_t i = 0; i < w->nr_stores; i++)
				unlink(w->stores[i]);
	}
	free(w->stores);
	free(w);
	r->priv = NULL;
	if (r->status)
		adm_closure(NULL, r);
	else {
		Blox__Admin__Empty out = BLOX__ADMIN__EMPTY__INIT;

		adm_closure(&out.base, r);
	}
}

static bool subsys_idle(const struct nvmf_subsys *s)
{
	const struct nvmf_ns *ns;

	if (!TAILQ_EMPTY(&s->ctrls))
		return false;
	TAILQ_FOREACH(ns, &s->namespaces, link)
		if (ns->refs)
			return false;
	return true;
}

static void subsys_wait_cb(evutil_socket_t fd, short what, void *arg)
{
	struct adm_req *r = arg;
	struct subsys_wait *w = r->priv;
	struct nvmf_subsys *s = nvmf_subsys_find(r->a->tgt, w->nqn);

	(void)fd;
	(void)what;
	if (!s) {
		adm_fail(r, ADM_S_NOT_FOUND, "subsystem %s went away", w->nqn);
		free(w->stores);
		free(w);
		r->priv = NULL;
		{ adm_closure(NULL, r); return; }
	}
	if (subsys_idle(s))
		{ subsys_delete_now(r, s); return; }
	if (++w->polls > 3000) { /* 30 s */
		adm_fail(r, ADM_S_UNAVAILABLE,
			 "subsystem %s: controllers did not close in 30 s", w->nqn);
		free(w->stores);
		free(w);
		r->priv = NULL;
		{ adm_closure(NULL, r); return; }
	}
	event_add(r->timer, &(struct timeval){ 0, 10000 });
}

static void m_delete_subsystem(SVC *svc, const Blox__Admin__SubsystemRef *in,
			       Blox__Admin__Empty_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	struct adm_req *r = REQ(d);
	struct nvmf_subsys *s = find_subsys(a, r, in->nqn);
	struct subsys_wait *w;
	struct nvmf_ns *ns;
	uint32_t nc;
	size_t n = 0;

	if (!s)
		{ closure(NULL, d); return; }
	TAILQ_FOREACH(ns, &s->namespaces, link) {
		if (ns->device[0])
			FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
				    "subsystem %s: namespace %u is on shared device %s, "
				    "whose die split only the config file changes",
				    s->nqn, ns->nsid, ns->device);
		n++;
	}
	nc = nr_ctrls(s);
	if (nc && !in->force)
		FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			    "subsystem %s has %u connected controllers; disconnect "
			    "them or force", s->nqn, nc);
	w = calloc(1, sizeof(*w));
	if (w)
		w->stores = calloc(n + 1, sizeof(*w->stores));
	r->timer = evtimer_new(a->base, subsys_wait_cb, r);
	if (!w || !w->stores || !r->timer) {
		if (w)
			free(w->stores);
		free(w);
		FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	snprintf(w->nqn, sizeof(w->nqn), "%s", s->nqn);
	TAILQ_FOREACH(ns, &s->namespaces, link) {
		ns_store_file(a, ns, w->stores[w->nr_stores], sizeof(w->stores[0]));
		if (w->stores[w->nr_stores][0])
			w->nr_stores++;
	}
	r->priv = w;
	if (nc) {
		struct nvmf_ctrl *c, *tmp;

		TAILQ_FOREACH_SAFE(c, &s->ctrls, link, tmp)
			nvmf_ctrl_fatal(c, "subsystem deleted by the admin");
	}
	if (subsys_idle(s))
		{ subsys_delete_now(r, s); return; }
	event_add(r->timer, &(struct timeval){ 0, 10000 });
}

static void m_allow_host(SVC *svc, const Blox__Admin__HostRequest *in,
			 Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	struct nvmf_subsys *s = find_subsys(a, REQ(d), in->nqn);
	const struct nvmf_host *h;
	int rc;

	if (!s)
		{ closure(NULL, d); return; }
	if (!nvmf_nqn_valid(in->host_nqn))
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			    "'%s' is not a host NQN", in->host_nqn);
	TAILQ_FOREACH(h, &s->hosts, link)
		if (!strcmp(h->nqn, in->host_nqn))
			FAIL(closure, d, ADM_S_ALREADY_EXISTS,
				    "host %s is already allowed on %s", in->host_nqn,
				    s->nqn);
	rc = nvmf_subsys_add_host(s, in->host_nqn);
	if (rc && rc != -EEXIST)
		FAIL(closure, d, adm_status_from_errno(rc), "host %s: %s",
			    in->host_nqn, strerror(-rc));
	blox_log(a->log, BLOX_LOG_INFO, "admin: host %s allowed on %s", in->host_nqn,
		 s->nqn);
	if (!persist(REQ(d)))
		{ closure(NULL, d); return; }
	answer_subsys(s, closure, d);
}

/* Controllers of hosts no longer allowed are disconnected. */
static void drop_disallowed(struct nvmf_subsys *s)
{
	struct nvmf_ctrl *c, *tmp;

	TAILQ_FOREACH_SAFE(c, &s->ctrls, link, tmp)
		if (!nvmf_subsys_host_allowed(s, c->hostnqn))
			nvmf_ctrl_fatal(c, "host access revoked by the admin");
}

static void m_deny_host(SVC *svc, const Blox__Admin__HostRequest *in,
			Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	struct nvmf_subsys *s = find_subsys(a, REQ(d), in->nqn);

	if (!s)
		{ closure(NULL, d); return; }
	if (nvmf_subsys_remove_host(s, in->host_nqn))
		FAIL(closure, d, ADM_S_NOT_FOUND,
			    "host %s is not on the allowed list of %s", in->host_nqn,
			    s->nqn);
	drop_disallowed(s);
	blox_log(a->log, BLOX_LOG_INFO, "admin: host %s denied on %s", in->host_nqn,
		 s->nqn);
	if (!persist(REQ(d)))
		{ closure(NULL, d); return; }
	answer_subsys(s, closure, d);
}

static void m_set_allow_any_host(SVC *svc, const Blox__Admin__AllowAnyHostRequest *in,
				 Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	struct nvmf_subsys *s = find_subsys(a, REQ(d), in->nqn);

	if (!s)
		{ closure(NULL, d); return; }
	s->allow_any_host = in->allow;
	a->tgt->disc_genctr++;
	drop_disallowed(s);
	blox_log(a->log, BLOX_LOG_INFO, "admin: %s allow_any_host %s", s->nqn,
		 in->allow ? "on" : "off");
	if (!persist(REQ(d)))
		{ closure(NULL, d); return; }
	answer_subsys(s, closure, d);
}

/* ---- Namespaces ---- */

static void put_u(json_object *o, const char *k, uint64_t v)
{
	if (v)
		json_object_object_add(o, k, json_object_new_int64((int64_t)v));
}

static void put_s(json_object *o, const char *k, const char *v)
{
	if (v && v[0])
		json_object_object_add(o, k, json_object_new_string(v));
}

static void put_t(json_object *o, const char *k, Blox__Admin__Toggle t)
{
	if (t == BLOX__ADMIN__TOGGLE__TOGGLE_ON || t == BLOX__ADMIN__TOGGLE__TOGGLE_OFF)
		json_object_object_add(o, k,
				       json_object_new_boolean(t == BLOX__ADMIN__TOGGLE__TOGGLE_ON));
}

/* The request as a config "namespaces" entry: one parser checks both. */
static json_object *ns_request_json(const Blox__Admin__NamespaceCreateRequest *in,
				    uint32_t nsid)
{
	json_object *o = json_object_new_object();

	put_u(o, "nsid", nsid);
	json_object_object_add(o, "backend",
			       json_object_new_string(in->backend[0] ? in->backend : "nand"));
	json_object_object_add(o, "size", json_object_new_int64((int64_t)in->size));
	put_u(o, "block_size", in->block_size);
	put_s(o, "uuid", in->uuid);
	if (in->nand) {
		const Blox__Admin__NandParams *n = in->nand;
		json_object *j = json_object_new_object();

		put_u(j, "channels", n->channels);
		put_u(j, "dies_per_channel", n->dies_per_channel);
		put_u(j, "planes_per_die", n->planes_per_die);
		put_u(j, "blocks_per_plane", n->blocks_per_plane);
		put_u(j, "pages_per_block", n->pages_per_block);
		put_u(j, "page_size", n->page_size);
		put_u(j, "oob_size", n->oob_size);
		put_s(j, "cell", n->cell);
		put_u(j, "t_read_us", n->t_read_us);
		put_u(j, "t_prog_us", n->t_prog_us);
		put_u(j, "t_erase_us", n->t_erase_us);
		put_u(j, "bus_mbps", n->bus_mbps);
		put_u(j, "t_suspend_us", n->t_suspend_us);
		put_u(j, "t_resume_us", n->t_resume_us);
		put_t(j, "null_timing", n->null_timing);
		put_s(j, "suspend_policy", n->suspend_policy);
		if (json_object_object_length(j))
			json_object_object_add(o, "nand", j);
		else
			json_object_put(j);
	}
	if (in->ftl) {
		const Blox__Admin__FtlParams *f = in->ftl;
		json_object *j = json_object_new_object();

		put_s(j, "store", f->store);
		put_u(j, "cmt_kib", f->cmt_kib);
		put_t(j, "mdc", f->mdc);
		put_u(j, "mdc_bytes", f->mdc_bytes);
		put_u(j, "mdc_min_run", f->mdc_min_run);
		put_t(j, "stream_separation", f->stream_separation);
		put_u(j, "op_percent", f->op_percent);
		put_s(j, "gc_policy", f->gc_policy);
		put_u(j, "write_buffer_pages", f->write_buffer_pages);
		put_u(j, "wl_threshold", f->wl_threshold);
		if (json_object_object_length(j))
			json_object_object_add(o, "ftl", j);
		else
			json_object_put(j);
	}
	return o;
}

static void m_create_namespace(SVC *svc, const Blox__Admin__NamespaceCreateRequest *in,
			       Blox__Admin__Namespace_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	struct nvmf_subsys *s = find_subsys(a, REQ(d), in->nqn);
	struct blox_cfg_ns cn;
	Blox__Admin__Namespace out;
	struct nvmf_ns *ns;
	json_object *o;
	char err[512], uuid[37];
	uint32_t nsid = in->nsid;
	int rc;

	if (!s)
		{ closure(NULL, d); return; }
	if (nsid > NVMF_MAX_NS)
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "nsid %u: must be 1..%u",
			    nsid, NVMF_MAX_NS);
	if (nsid && nvmf_ns_find(s, nsid))
		FAIL(closure, d, ADM_S_ALREADY_EXISTS,
			    "namespace %u already exists in %s", nsid, s->nqn);
	if (!nsid) {
		for (nsid = 1; nsid <= NVMF_MAX_NS && nvmf_ns_find(s, nsid); nsid++)
			;
		if (nsid > NVMF_MAX_NS)
			FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED,
				    "%s has %u namespaces, the limit", s->nqn, NVMF_MAX_NS);
	}
	o = ns_request_json(in, nsid);
	rc = blox_config_parse_ns(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
				  &cn, err, sizeof(err));
	json_object_put(o);
	if (rc)
		FAIL(closure, d, rc == -ENOMEM ? ADM_S_RESOURCE_EXHAUSTED
						      : ADM_S_INVALID_ARGUMENT,
			    "%s", err);
	rc = blox_config_create_ns(a->data_dir, s, &cn, NULL, true, &ns, err,
				   sizeof(err));
	free(cn.params);
	if (rc)
		FAIL(closure, d,
			    rc == -EEXIST ? ADM_S_ALREADY_EXISTS
			    : rc == -EINVAL ? ADM_S_INVALID_ARGUMENT
					    : adm_status_from_errno(rc),
			    "%s", err);
	blox_log(a->log, BLOX_LOG_INFO, "admin: namespace %u (%s, %lu bytes) created in %s",
		 ns->nsid, cn.backend, (unsigned long)cn.size, s->nqn);
	if (!persist(REQ(d)))
		{ closure(NULL, d); return; }
	ns_msg(ns, &out, uuid);
	DONE(closure, d, &out);
}

static struct nvmf_ns *find_ns(struct blox_admin *a, struct adm_req *r,
			       const char *nqn, uint32_t nsid)
{
	struct nvmf_subsys *s = find_subsys(a, r, nqn);
	struct nvmf_ns *ns;

	if (!s)
		return NULL;
	ns = nvmf_ns_find(s, nsid);
	if (!ns)
		adm_fail(r, ADM_S_NOT_FOUND, "namespace %u not found in %s", nsid, nqn);
	return ns;
}

struct ns_wait {
	struct adm_req *r; /* NULL: nobody waits for the answer */
	struct blox_admin *a;
	char store[4200];
};

static void ns_freed(void *arg)
{
	struct ns_wait *w = arg;
	struct adm_req *r = w->r;

	/* The state first: a crash in between leaves a file, not a hole. */
	if (persist(r) && w->store[0])
		unlink(w->store);
	if (r->status)
		adm_closure(NULL, r);
	else {
		Blox__Admin__Empty out = BLOX__ADMIN__EMPTY__INIT;

		adm_closure(&out.base, r);
	}
	free(w);
}

static void m_delete_namespace(SVC *svc, const Blox__Admin__NamespaceRef *in,
			       Blox__Admin__Empty_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	struct nvmf_ns *ns = find_ns(a, REQ(d), in->nqn, in->nsid);
	struct ns_wait *w;
	uint32_t nc;

	if (!ns)
		{ closure(NULL, d); return; }
	if (ns->device[0])
		FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			    "namespace %u of %s is on shared device %s, whose die "
			    "split only the config file changes",
			    ns->nsid, in->nqn, ns->device);
	nc = nr_ctrls(ns->subsys);
	if (nc && !in->force)
		FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			    "namespace %u of %s is in use: %u controllers connected; "
			    "force to delete it under them", ns->nsid, in->nqn, nc);
	w = calloc(1, sizeof(*w));
	if (!w)
		FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	w->r = REQ(d);
	w->a = a;
	ns_store_file(a, ns, w->store, sizeof(w->store));
	blox_log(a->log, BLOX_LOG_INFO, "admin: namespace %u of %s deleted%s",
		 ns->nsid, in->nqn, nc ? " (forced)" : "");
	nvmf_ns_detach(ns, ns_freed, w);
}

static void m_list_namespaces(SVC *svc, const Blox__Admin__NamespaceListRequest *in,
			      Blox__Admin__NamespaceList_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	Blox__Admin__NamespaceList out = BLOX__ADMIN__NAMESPACE_LIST__INIT;
	struct nvmf_subsys *s = NULL;
	struct ns_array arr = { 0 };

	if (in->nqn[0] && !(s = find_subsys(a, REQ(d), in->nqn)))
		{ closure(NULL, d); return; }
	if (ns_array_fill(&arr, s, a->tgt)) {
		ns_array_free(&arr);
		FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	out.n_namespaces = arr.n;
	out.namespaces = arr.p;
	DONE(closure, d, &out);
	ns_array_free(&arr);
}

static void m_show_namespace(SVC *svc, const Blox__Admin__NamespaceRef *in,
			     Blox__Admin__Namespace_Closure closure, void *d)
{
	struct nvmf_ns *ns = find_ns(ADM(svc), REQ(d), in->nqn, in->nsid);
	Blox__Admin__Namespace out;
	char uuid[37];

	if (!ns)
		{ closure(NULL, d); return; }
	ns_msg(ns, &out, uuid);
	DONE(closure, d, &out);
}

/* ---- Telemetry ---- */

static void m_get_stats(SVC *svc, const Blox__Admin__StatsRequest *in,
			Blox__Admin__StatsReply_Closure closure, void *d)
{
	Blox__Admin__StatsReply out = BLOX__ADMIN__STATS_REPLY__INIT;
	bool found;

	adm_stats_fill(ADM(svc), in, &out, &found);
	if (!found) {
		adm_stats_free(&out);
		if (in->nsid)
			FAIL(closure, d, ADM_S_NOT_FOUND,
				    "namespace %u not found in %s", in->nsid, in->nqn);
		FAIL(closure, d, ADM_S_NOT_FOUND, "subsystem %s not found",
			    in->nqn);
	}
	DONE(closure, d, &out);
	adm_stats_free(&out);
}

struct watch {
	Blox__Admin__StatsRequest req; /* copy: the input is gone */
	char nqn[NVME_NQN_LENGTH];
	uint32_t sent;
	uint32_t interval_ms;
};

static void watch_end(struct adm_req *r)
{
	free(r->priv);
	r->priv = NULL;
	r->on_cancel = NULL;
	adm_closure(NULL, r); /* CANCELLED, or the status already set */
}

static void watch_cb(evutil_socket_t fd, short what, void *arg)
{
	struct adm_req *r = arg;
	struct watch *w = r->priv;
	Blox__Admin__StatsReply out = BLOX__ADMIN__STATS_REPLY__INIT;
	bool found;

	(void)fd;
	(void)what;
	adm_stats_fill(r->a, &w->req, &out, &found);
	if (!found) {
		adm_stats_free(&out);
		adm_fail(r, ADM_S_NOT_FOUND, "%s: the watched object is gone",
			 w->nqn[0] ? w->nqn : "stats");
		{ watch_end(r); return; }
	}
	w->sent++;
	if (w->req.count && w->sent >= w->req.count) {
		free(r->priv);
		r->priv = NULL;
		r->on_cancel = NULL;
		adm_closure(&out.base, r);
		adm_stats_free(&out);
		return;
	}
	/* A client that does not keep up loses samples, not memory. */
	if (!adm_conn_congested(r))
		adm_stream_send(r, &out.base);
	adm_stats_free(&out);
	event_add(r->timer, &(struct timeval){ w->interval_ms / 1000,
					       (w->interval_ms % 1000) * 1000 });
}

static void m_watch_stats(SVC *svc, const Blox__Admin__StatsRequest *in,
			  Blox__Admin__StatsReply_Closure closure, void *d)
{
	struct blox_admin *a = ADM(svc);
	struct adm_req *r = REQ(d);
	struct watch *w;

	if (in->interval_ms && (in->interval_ms < 100 || in->interval_ms > 3600000))
		FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			    "interval %u ms: must be 100..3600000", in->interval_ms);
	w = calloc(1, sizeof(*w));
	r->timer = evtimer_new(a->base, watch_cb, r);
	if (!w || !r->timer) {
		free(w);
		FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	blox__admin__stats_request__init(&w->req);
	snprintf(w->nqn, sizeof(w->nqn), "%s", in->nqn);
	w->req.nqn = w->nqn;
	w->req.nsid = in->nsid;
	w->req.count = in->count;
	w->interval_ms = in->interval_ms ? in->interval_ms : 1000;
	r->priv = w;
	r->on_cancel = watch_end;
	watch_cb(-1, 0, r); /* the first answer at once */
}

/* ---- Controllers ---- */

static void ctrl_msg(const struct nvmf_ctrl *c, uint64_t now,
		     Blox__Admin__Controller *m, char id[37], char *lis, size_t lislen,
		     Blox__Admin__Queue *qm, Blox__Admin__Queue **qp)
{
	blox__admin__controller__init(m);
	m->nqn = (char *)c->subsys->nqn;
	m->cntlid = c->cntlid;
	m->host_nqn = (char *)c->hostnqn;
	uuid_str(c->hostid, id);
	m->host_id = id;
	m->kato_ms = c->kato_ms;
	m->io_queues = c->nr_sqs ? c->nr_sqs - 1 : 0;
	m->age_ns = now - c->created_ns;
	lis[0] = '\0';
	if (c->sqs[0] && c->sqs[0]->port)
		snprintf(lis, lislen, "%s:%s", c->sqs[0]->port->addr,
			 c->sqs[0]->port->svcid);
	m->listener = lis;
	m->queues = qp;
	for (uint32_t q = 0; q <= NVMF_MAX_IO_QUEUES; q++) {
		const struct nvmf_sq *sq = c->sqs[q];

		if (!sq)
			continue;
		blox__admin__queue__init(&qm[m->n_queues]);
		qm[m->n_queues].qid = q;
		qm[m->n_queues].size = sq->size;
		qm[m->n_queues].commands = sq->cmds;
		qm[m->n_queues].errors = sq->errors;
		qp[m->n_queues] = &qm[m->n_queues];
		m->n_queues++;
	}
}

static void m_list_controllers(SVC *svc, const Blox__Admin__ControllerListRequest *in,
			       Blox__Admin__ControllerList_Closure closure, void *d)
{
	enum { QMAX = NVMF_MAX_IO_QUEUES + 1, LIS = NVMF_TRADDR_SIZE + 8 };
	struct blox_admin *a = ADM(svc);
	Blox__Admin__ControllerList out = BLOX__ADMIN__CONTROLLER_LIST__INIT;
	struct nvmf_subsys *only = NULL, *s, *disc = a->tgt->discovery;
	const struct nvmf_ctrl *c;
	uint64_t now = blox_clock_now(a->tgt->clock);
	Blox__Admin__Controller *cm;
	Blox__Admin__Controller **cp;
	Blox__Admin__Queue *qm;
	Blox__Admin__Queue **qp;
	char (*ids)[37], (*lis)[LIS];
	size_t nc = 0;

	if (in->nqn[0] && !(only = nvmf_subsys_find(a->tgt, in->nqn)))
		FAIL(closure, d, ADM_S_NOT_FOUND, "subsystem %s not found",
			    in->nqn);
	TAILQ_FOREACH(s, &a->tgt->subsystems, link)
		if (!only || s == only)
			nc += nr_ctrls(s);
	if (disc && (!only || only == disc))
		nc += nr_ctrls(disc);
	cm = calloc(nc + 1, sizeof(*cm));
	cp = calloc(nc + 1, sizeof(*cp));
	ids = calloc(nc + 1, sizeof(*ids));
	lis = calloc(nc + 1, sizeof(*lis));
	qm = calloc((nc + 1) * QMAX, sizeof(*qm));
	qp = calloc((nc + 1) * QMAX, sizeof(*qp));
	if (!cm || !cp || !ids || !lis || !qm || !qp) {
		adm_fail(REQ(d), ADM_S_RESOURCE_EXHAUSTED, "out of memory");
		closure(NULL, d);
		goto out;
	}
	for (s = TAILQ_FIRST(&a->tgt->subsystems);; s = TAILQ_NEXT(s, link)) {
		struct nvmf_subsys *cur = s ? s : disc;

		if (cur && (!only || cur == only))
			TAILQ_FOREACH(c, &cur->ctrls, link) {
				size_t i = out.n_controllers++;

				ctrl_msg(c, now, &cm[i], ids[i], lis[i], LIS, &qm[i * QMAX],
					 &qp[i * QMAX]);
				cp[i] = &cm[i];
			}
		if (!s)
			break;
	}
	out.controllers = cp;
	DONE(closure, d, &out);
out:
	free(cm);
	free(cp);
	free(ids);
	free(lis);
	free(qm);
	free(qp);
}

void adm_methods_init(SVC *svc)
{
	blox__admin__blox_admin__init(svc, NULL);
	svc->get_version = m_get_version;
	svc->get_status = m_get_status;
	svc->save_config = m_save_config;
	svc->add_listener = m_add_listener;
	svc->remove_listener = m_remove_listener;
	svc->list_listeners = m_list_listeners;
	svc->create_subsystem = m_create_subsystem;
	svc->delete_subsystem = m_delete_subsystem;
	svc->list_subsystems = m_list_subsystems;
	svc->show_subsystem = m_show_subsystem;
	svc->allow_host = m_allow_host;
	svc->deny_host = m_deny_host;
	svc->set_allow_any_host = m_set_allow_any_host;
	svc->create_namespace = m_create_namespace;
	svc->delete_namespace = m_delete_namespace;
	svc->list_namespaces = m_list_namespaces;
	svc->show_namespace = m_show_namespace;
	svc->get_stats = m_get_stats;
	svc->watch_stats = m_watch_stats;
	svc->list_controllers = m_list_controllers;
}
