/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The provisioning service's subsystems, their hosts (with their
 * DH-HMAC-CHAP secrets and TLS PSKs) and the listeners: on the target and
 * the transport, as the config loader and the admin API ask.
 */
#include "prov.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int prov_subsys_create(struct blox_prov *p, const struct blox_cfg_subsys *cs,
		       struct nvmf_subsys **out, char *err, size_t errlen)
{
	struct nvmf_subsys *s;
	int rc;

	rc = nvmf_subsys_create(p->tgt, cs->nqn, &s);
	if (rc)
		return blox_fail(err, errlen, "subsystem %s: %s", cs->nqn, strerror(-rc)), rc;
	if (cs->serial[0])
		snprintf(s->serial, sizeof(s->serial), "%s", cs->serial);
	if (cs->model[0])
		snprintf(s->model, sizeof(s->model), "%s", cs->model);
	s->allow_any_host = cs->allow_any_host;
	for (size_t h = 0; h < cs->nr_hosts; h++) {
		const char *why;

		rc = prov_host_add(p, s, &cs->hosts[h], &why);
		if (rc && rc != -EEXIST) {
			nvmf_subsys_destroy(s);
			return blox_fail(err, errlen, "subsystem %s: host %s: %s", cs->nqn,
					 cs->hosts[h].nqn, why ? why : strerror(-rc)),
			       rc;
		}
	}
	if (out)
		*out = s;
	return 0;
}

void prov_subsys_delete(struct blox_prov *p, struct nvmf_subsys *s)
{
	(void)p;
	nvmf_subsys_destroy(s);
}

void prov_subsys_allow_any_host(struct blox_prov *p, struct nvmf_subsys *s, bool allow)
{
	s->allow_any_host = allow;
	/* The discovery log of every host may change. */
	nvmf_tgt_disc_changed(p->tgt);
}

int prov_host_add(struct blox_prov *p, struct nvmf_subsys *s, const struct blox_cfg_host *ch,
		  const char **why)
{
	struct nvmf_host check = { 0 };
	int rc;

	(void)p;
	*why = NULL;
	rc = nvmf_host_set_keys(&check, ch->dhchap_key, ch->dhchap_ctrl_key, why);
	dhchap_wipe(&check, sizeof(check));
	if (rc)
		return rc;
	rc = nvmf_subsys_add_host(s, ch->nqn);
	if (rc)
		return rc;
	rc = nvmf_host_set_keys(nvmf_subsys_find_host(s, ch->nqn), ch->dhchap_key,
				ch->dhchap_ctrl_key, why);
	if (!rc && ch->tls_psk[0])
		rc = nvmf_subsys_host_set_tls_psk(s, ch->nqn, ch->tls_psk);
	return rc;
}

int prov_host_set_tls_psk(struct blox_prov *p, struct nvmf_subsys *s, const char *hostnqn,
			  const char *psk)
{
	(void)p;
	return nvmf_subsys_host_set_tls_psk(s, hostnqn, psk);
}

int prov_host_remove(struct blox_prov *p, struct nvmf_subsys *s, const char *hostnqn)
{
	(void)p;
	return nvmf_subsys_remove_host(s, hostnqn);
}

int prov_listener_add(struct blox_prov *p, const struct blox_cfg_listener *l,
		      struct nvmf_port **out, char *err, size_t errlen)
{
	char own[NVMF_TRADDR_SIZE], adv[NVMF_TRADDR_SIZE];
	struct nvmf_port *port;
	int rc;

	/* Checked before the listener exists: refused, it costs nothing. */
	rc = nvmf_advertise_check(nvmf_addr_canon(l->addr, own), l->advertise, adv);
	if (rc)
		return blox_fail(err, errlen, "listener %s:%s: advertised address '%s': %s",
				 l->addr, l->port, l->advertise,
				 rc == -EAFNOSUPPORT ? "not of the listener's address family"
						     : "not an address hosts can connect to"),
		       rc;
	rc = nvmf_port_add(p->tgt, l->addr, l->port, l->discovery_only, &port);
	if (rc)
		return blox_fail(err, errlen, "listener %s:%s: %s", l->addr, l->port,
				 rc == -EINVAL ? "bad address or port" : strerror(-rc)),
		       rc;
	port->tls = l->tls;
	/* Told with the listener's coming (nvmf_port_add): one change. */
	memcpy(port->advertise, adv, sizeof(port->advertise));
	for (uint32_t g = 1; g <= NVMF_ANAGRPMAX; g++)
		if (l->ana_state[g])
			nvmf_port_set_ana_state(port, g, l->ana_state[g]);
	if (p->tcp && (rc = nvmf_tcp_listen(p->tcp, port))) {
		nvmf_port_remove(port);
		return blox_fail(err, errlen, "listener %s:%s: %s", l->addr, l->port,
				 strerror(-rc)),
		       rc;
	}
	if (out)
		*out = port;
	if (p->listeners_changed)
		p->listeners_changed(p->listeners_arg);
	return 0;
}

void blox_prov_on_listeners(struct blox_prov *p, void (*fn)(void *arg), void *arg)
{
	p->listeners_changed = fn;
	p->listeners_arg = arg;
}

int prov_referral_add(struct blox_prov *p, const char *addr, const char *port, char *err,
		      size_t errlen)
{
	int rc = nvmf_referral_add(p->tgt, addr, port, NULL);

	if (rc)
		blox_fail(err, errlen, "referral %s:%s: %s", addr, port,
			  rc == -EINVAL	  ? "not an IPv4 or IPv6 address and a port 1..65535"
			  : rc == -EEXIST ? "already there"
					  : strerror(-rc));
	return rc;
}

int prov_referral_remove(struct blox_prov *p, const char *addr, const char *port)
{
	return nvmf_referral_remove(p->tgt, addr, port);
}

void prov_listener_remove(struct blox_prov *p, struct nvmf_port *port)
{
	if (p->tcp)
		nvmf_tcp_unlisten(p->tcp, port);
	nvmf_port_remove(port);
	if (p->listeners_changed)
		p->listeners_changed(p->listeners_arg);
}

void prov_listener_drain(struct blox_prov *p, struct nvmf_port *port, const char *why)
{
	if (!p->tcp)
		return;
	nvmf_tcp_unlisten(p->tcp, port);
	nvmf_tcp_port_close(p->tcp, port, why);
}
