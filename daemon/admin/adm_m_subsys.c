/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of subsystems and their host allow lists. A delete
 * disconnects the subsystem's controllers (when forced), waits until
 * they and its namespaces' commands are gone, then removes it with its
 * namespaces, whose backends and store files go off the loop.
 */
#include "adm_internal.h"
#include "nvme_tls.h"
#include "blox_nqn.h"

#include <errno.h>
#include <event2/event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct subsys_buf {
	Blox__Admin__Subsystem m;
	char **hosts;
	struct adm_ns_array ns;
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
	b->m.controllers = adm_nr_ctrls(s);
	TAILQ_FOREACH(h, &s->hosts, link)
		n++;
	b->hosts = calloc(n + 1, sizeof(*b->hosts));
	if (!b->hosts)
		return -ENOMEM;
	TAILQ_FOREACH(h, &s->hosts, link)
		b->hosts[b->m.n_hosts++] = (char *)h->nqn;
	b->m.hosts = b->hosts;
	if (adm_ns_array_fill(&b->ns, s, s->tgt))
		return -ENOMEM;
	b->m.n_namespaces = b->ns.n;
	b->m.namespaces = b->ns.p;
	return 0;
}

static void subsys_buf_free(struct subsys_buf *b)
{
	free(b->hosts);
	adm_ns_array_free(&b->ns);
}

/* Answer with the subsystem as it is now. */
static void answer_subsys(const struct nvmf_subsys *s,
			  Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct subsys_buf b = { 0 };

	if (subsys_msg(s, &b)) {
		subsys_buf_free(&b);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	closure(&b.m, d);
	subsys_buf_free(&b);
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static void m_create_subsystem(ADM_SVC *svc, const Blox__Admin__SubsystemCreateRequest *in,
			       Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct blox_cfg_host *cs_hosts;
	struct blox_cfg_subsys *cs;
	struct nvmf_subsys *s;
	char err[512];
	int rc;

	if (blox_nqn_check(in->nqn, false, err, sizeof(err)))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "subsystem: %s", err);
	if (strlen(in->serial) > 20 || !printable(in->serial))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "serial: at most 20 printable ASCII characters");
	if (strlen(in->model) > 40 || !printable(in->model))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT,
			 "model: at most 40 printable ASCII characters");
	for (size_t i = 0; i < in->n_hosts; i++)
		if (blox_nqn_check(in->hosts[i], false, err, sizeof(err)))
			ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "host: %s", err);
	if (nvmf_subsys_find(a->tgt, in->nqn))
		ADM_FAIL(closure, d, ADM_S_ALREADY_EXISTS,
			 "subsystem %s already exists", in->nqn);
	cs = calloc(1, sizeof(*cs));
	cs_hosts = calloc(in->n_hosts + 1, sizeof(*cs_hosts));
	if (!cs || !cs_hosts) {
		free(cs);
		free(cs_hosts);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	snprintf(cs->nqn, sizeof(cs->nqn), "%s", in->nqn);
	snprintf(cs->serial, sizeof(cs->serial), "%s", in->serial);
	snprintf(cs->model, sizeof(cs->model), "%s", in->model);
	cs->allow_any_host = in->allow_any_host;
	for (size_t i = 0; i < in->n_hosts; i++)
		snprintf(cs_hosts[i].nqn, sizeof(cs_hosts[i].nqn), "%s", in->hosts[i]);
	cs->hosts = cs_hosts;
	cs->nr_hosts = in->n_hosts;
	rc = prov_subsys_create(a->prov, cs, &s, err, sizeof(err));
	free(cs_hosts);
	free(cs);
	if (rc)
		ADM_FAIL(closure, d, adm_status_from_errno(rc), "%s", err);
	blox_log(a->log, BLOX_LOG_INFO, "admin: subsystem %s created", in->nqn);
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	answer_subsys(s, closure, d);
}

static void m_list_subsystems(ADM_SVC *svc, const Blox__Admin__Empty *in,
			      Blox__Admin__SubsystemList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
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
		adm_fail(ADM_REQ(d), ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	closure(!b || !p || oom ? NULL : &out, d);
	for (size_t i = 0; b && i < out.n_subsystems; i++)
		subsys_buf_free(&b[i]);
	free(b);
	free(p);
}

static void m_show_subsystem(ADM_SVC *svc, const Blox__Admin__SubsystemRef *in,
			     Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct nvmf_subsys *s = adm_find_subsys(ADM_OF(svc), ADM_REQ(d), in->nqn);

	if (!s)
		ADM_FAILED(closure, d);
	answer_subsys(s, closure, d);
}

/* A subsystem delete waits for its controllers, then for its namespaces. */
struct subsys_wait {
	char nqn[NVME_NQN_LENGTH];
	uint32_t polls;
};

/*
 * @s is idle (subsys_idle()): its namespaces are detached and torn down
 * like deleted ones (adm_ns_async.c), then it goes, and the answer comes
 * once their backends and store files are gone too.
 */
static void subsys_delete_now(struct adm_req *r, struct nvmf_subsys *s)
{
	struct subsys_wait *w = r->priv;
	struct nvmf_ns *ns, *tmp;
	struct adm_teardown *t;
	size_t n = 0;

	TAILQ_FOREACH(ns, &s->namespaces, link)
		n++;
	t = adm_teardown_new(r, n);
	if (!t) {
		adm_fail(r, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
		adm_closure(NULL, r);
		return;
	}
	TAILQ_FOREACH_SAFE(ns, &s->namespaces, link, tmp)
		adm_teardown_add(t, ns);
	/* Without controllers and namespaces the destroy cannot fail. */
	prov_subsys_delete(r->a->prov, s);
	blox_log(r->a->log, BLOX_LOG_INFO, "admin: subsystem %s deleted", w->nqn);
	adm_teardown_commit(t);
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
		adm_closure(NULL, r);
		return;
	}
	if (subsys_idle(s)) {
		subsys_delete_now(r, s);
		return;
	}
	if (++w->polls > 3000) { /* 30 s */
		adm_fail(r, ADM_S_UNAVAILABLE,
			 "subsystem %s: controllers did not close in 30 s", w->nqn);
		adm_closure(NULL, r);
		return;
	}
	event_add(r->timer, &(struct timeval){ 0, 10000 });
}

static void m_delete_subsystem(ADM_SVC *svc, const Blox__Admin__SubsystemRef *in,
			       Blox__Admin__Empty_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct adm_req *r = ADM_REQ(d);
	struct nvmf_subsys *s = adm_find_subsys(a, r, in->nqn);
	struct subsys_wait *w;
	struct nvmf_ns *ns;
	uint32_t nc;

	if (!s)
		ADM_FAILED(closure, d);
	TAILQ_FOREACH(ns, &s->namespaces, link) {
		const struct prov_ns_rec *rec = prov_ns_rec(ns);

		if (rec && rec->dev)
			ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
				 "subsystem %s: namespace %u is on shared device %s, "
				 "whose die split only the config file changes",
				 s->nqn, ns->nsid, rec->dev->cfg.name);
	}
	if (adm_subsys_creating(a, s->nqn))
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "subsystem %s: a namespace is being created in it; try again "
			 "when that is done", s->nqn);
	nc = adm_nr_ctrls(s);
	if (nc && !in->force)
		ADM_FAIL(closure, d, ADM_S_FAILED_PRECONDITION,
			 "subsystem %s has %u connected controllers; disconnect "
			 "them or force", s->nqn, nc);
	w = calloc(1, sizeof(*w));
	r->priv = w;
	r->timer = evtimer_new(a->base, subsys_wait_cb, r);
	if (!w || !r->timer)
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	snprintf(w->nqn, sizeof(w->nqn), "%s", s->nqn);
	if (nc) {
		struct nvmf_ctrl *c, *tmp;

		TAILQ_FOREACH_SAFE(c, &s->ctrls, link, tmp)
			nvmf_ctrl_fatal(c, "subsystem deleted by the admin");
	}
	if (subsys_idle(s)) {
		subsys_delete_now(r, s);
		return;
	}
	event_add(r->timer, &(struct timeval){ 0, 10000 });
}

/*
 * Allow a host, with its DH-HMAC-CHAP secrets if given; on a host already
 * allowed, given secrets replace its own (rotation: queues authenticated
 * stay so, the next authentication uses the new ones).
 */
static void m_allow_host(ADM_SVC *svc, const Blox__Admin__HostRequest *in,
			 Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_subsys *s = adm_find_subsys(a, ADM_REQ(d), in->nqn);
	const char *psk = in->tls_psk ? in->tls_psk : "";
	bool dh = in->dhchap_key[0] || in->dhchap_ctrl_key[0];
	struct blox_cfg_host ch = { 0 };
	struct nvmf_host *h;
	const char *why = NULL;
	char err[512];
	int rc;

	if (!s)
		ADM_FAILED(closure, d);
	if (blox_nqn_check(in->host_nqn, false, err, sizeof(err)))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "host: %s", err);
	/* What is wrong with a key, never the key. */
	if (psk[0] && blox_tls_psk_check(psk, err, sizeof(err)))
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "host %s: %s", in->host_nqn, err);
	h = nvmf_subsys_find_host(s, in->host_nqn);
	/*
	 * Allowed already: only new secrets (rotation) are something to do.
	 * Without them the host stays as it is (its secrets too) and the
	 * answer is the same as the first time: scripts may say it again.
	 */
	if (h && !dh && !psk[0]) {
		blox_log(a->log, BLOX_LOG_DEBUG, "admin: host %s already allowed on %s",
			 in->host_nqn, s->nqn);
		answer_subsys(s, closure, d);
		return;
	}
	if (h) {
		rc = dh ? nvmf_host_set_keys(h, in->dhchap_key, in->dhchap_ctrl_key, &why) : 0;
		if (!rc && psk[0])
			rc = prov_host_set_tls_psk(a->prov, s, in->host_nqn, psk);
	} else {
		snprintf(ch.nqn, sizeof(ch.nqn), "%s", in->host_nqn);
		snprintf(ch.dhchap_key, sizeof(ch.dhchap_key), "%s", in->dhchap_key);
		snprintf(ch.dhchap_ctrl_key, sizeof(ch.dhchap_ctrl_key), "%s",
			 in->dhchap_ctrl_key);
		snprintf(ch.tls_psk, sizeof(ch.tls_psk), "%s", psk);
		rc = prov_host_add(a->prov, s, &ch, &why);
		dhchap_wipe(&ch, sizeof(ch));
	}
	if (rc && why)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "host %s: DH-HMAC-CHAP secret: %s",
			 in->host_nqn, why);
	if (rc && rc != -EEXIST)
		ADM_FAIL(closure, d, adm_status_from_errno(rc), "host %s: %s",
			 in->host_nqn, strerror(-rc));
	blox_log(a->log, BLOX_LOG_INFO, "admin: host %s %s on %s%s%s", in->host_nqn,
		 h ? "given new secrets" : "allowed", s->nqn,
		 in->dhchap_ctrl_key[0] ? " (DH-HMAC-CHAP, bidirectional)"
		 : in->dhchap_key[0]    ? " (DH-HMAC-CHAP)"
					: "",
		 psk[0] ? " (TLS PSK)" : "");
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	answer_subsys(s, closure, d);
}

/* A host on the allowed list: whether it has secrets, never what they are. */
static void m_show_host(ADM_SVC *svc, const Blox__Admin__HostRequest *in,
			Blox__Admin__HostInfo_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_subsys *s = adm_find_subsys(a, ADM_REQ(d), in->nqn);
	Blox__Admin__HostInfo out = BLOX__ADMIN__HOST_INFO__INIT;
	const struct nvmf_host *h;
	struct nvme_tls_key k;
	struct nvme_tls_psk tp;
	char err[256];

	if (!s)
		ADM_FAILED(closure, d);
	h = nvmf_subsys_find_host(s, in->host_nqn);
	if (!h)
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "host %s is not on the allowed list of %s",
			 in->host_nqn, s->nqn);
	out.nqn = s->nqn;
	out.host_nqn = (char *)h->nqn;
	out.dhchap_key_set = h->has_key;
	out.dhchap_ctrl_key_set = h->has_ctrl_key;
	out.tls_psk_set = h->tls_psk[0] != '\0';
	/* The identity a host presents with this PSK (NVMe1R, the current form). */
	if (out.tls_psk_set && !nvme_tls_key_parse(h->tls_psk, &k, err, sizeof(err)) &&
	    !nvme_tls_psk_make(&k, h->nqn, s->nqn, 1, &tp))
		out.tls_psk_identity = tp.identity;
	closure(&out, d);
	nvme_tls_wipe(&k, sizeof(k));
	nvme_tls_wipe(&tp, sizeof(tp));
}

/* Controllers of hosts no longer allowed are disconnected. */
static void drop_disallowed(struct nvmf_subsys *s)
{
	struct nvmf_ctrl *c, *tmp;

	TAILQ_FOREACH_SAFE(c, &s->ctrls, link, tmp)
		if (!nvmf_subsys_host_allowed(s, c->hostnqn))
			nvmf_ctrl_fatal(c, "host access revoked by the admin");
}

static void m_deny_host(ADM_SVC *svc, const Blox__Admin__HostRequest *in,
			Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_subsys *s = adm_find_subsys(a, ADM_REQ(d), in->nqn);

	if (!s)
		ADM_FAILED(closure, d);
	if (prov_host_remove(a->prov, s, in->host_nqn))
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND,
			 "host %s is not on the allowed list of %s", in->host_nqn,
			 s->nqn);
	drop_disallowed(s);
	blox_log(a->log, BLOX_LOG_INFO, "admin: host %s denied on %s", in->host_nqn,
		 s->nqn);
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	answer_subsys(s, closure, d);
}

static void m_set_allow_any_host(ADM_SVC *svc, const Blox__Admin__AllowAnyHostRequest *in,
				 Blox__Admin__Subsystem_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	struct nvmf_subsys *s = adm_find_subsys(a, ADM_REQ(d), in->nqn);

	if (!s)
		ADM_FAILED(closure, d);
	prov_subsys_allow_any_host(a->prov, s, in->allow);
	drop_disallowed(s);
	blox_log(a->log, BLOX_LOG_INFO, "admin: %s allow_any_host %s", s->nqn,
		 in->allow ? "on" : "off");
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	answer_subsys(s, closure, d);
}

void adm_m_subsys_init(ADM_SVC *svc)
{
	svc->create_subsystem = m_create_subsystem;
	svc->delete_subsystem = m_delete_subsystem;
	svc->list_subsystems = m_list_subsystems;
	svc->show_subsystem = m_show_subsystem;
	svc->allow_host = m_allow_host;
	svc->deny_host = m_deny_host;
	svc->set_allow_any_host = m_set_allow_any_host;
	svc->show_host = m_show_host;
}
