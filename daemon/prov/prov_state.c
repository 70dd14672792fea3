/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The state file's text: what runs, as the configuration that makes it
 * again. The running target's listeners, subsystems and hosts, and the
 * parameters each registered device and namespace was made with (the
 * service's records), gathered into a struct blox_config and written by
 * the config file's own writer (blox_config_json()), so that what is saved
 * is read back by the same rules.
 */
#include "prov.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* @s's hosts and the namespaces the service made into @cs. 0 or -ENOMEM. */
static int subsys_of(const struct nvmf_subsys *s, struct blox_cfg_subsys *cs)
{
	const struct nvmf_host *h;
	const struct nvmf_ns *ns;
	size_t nh = 0, nn = 0;

	snprintf(cs->nqn, sizeof(cs->nqn), "%s", s->nqn);
	snprintf(cs->serial, sizeof(cs->serial), "%s", s->serial);
	snprintf(cs->model, sizeof(cs->model), "%s", s->model);
	cs->allow_any_host = s->allow_any_host;
	TAILQ_FOREACH(h, &s->hosts, link)
		nh++;
	TAILQ_FOREACH(ns, &s->namespaces, link)
		nn++;
	cs->hosts = calloc(nh + 1, sizeof(*cs->hosts));
	cs->ns = calloc(nn + 1, sizeof(*cs->ns));
	if (!cs->hosts || !cs->ns)
		return -1;
	TAILQ_FOREACH(h, &s->hosts, link) {
		struct blox_cfg_host *ch = &cs->hosts[cs->nr_hosts++];

		snprintf(ch->nqn, sizeof(ch->nqn), "%s", h->nqn);
		snprintf(ch->dhchap_key, sizeof(ch->dhchap_key), "%s", h->key_str);
		snprintf(ch->dhchap_ctrl_key, sizeof(ch->dhchap_ctrl_key), "%s", h->ctrl_key_str);
		snprintf(ch->tls_psk, sizeof(ch->tls_psk), "%s", h->tls_psk);
	}
	TAILQ_FOREACH(ns, &s->namespaces, link) {
		const struct prov_ns_rec *rec = prov_ns_rec(ns);

		/* Its parameters hold the nsid it got: a restart gives it the same. */
		if (rec)
			cs->ns[cs->nr_ns++].params = rec->params;
	}
	return 0;
}

char *blox_state_json(const struct blox_prov *pv)
{
	const struct nvmf_tgt *tgt = pv->tgt;
	struct blox_config cfg = { 0 };
	const struct prov_device *d;
	const struct nvmf_port *p;
	const struct nvmf_referral *r;
	const struct nvmf_subsys *s;
	size_t np = 0, nd = 0, ns = 0, nr = 0;
	char *text = NULL;

	TAILQ_FOREACH(p, &tgt->ports, link)
		np++;
	TAILQ_FOREACH(d, &pv->devices, link)
		nd++;
	TAILQ_FOREACH(r, &tgt->referrals, link)
		nr++;
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		ns++;
	cfg.listeners = calloc(np + 1, sizeof(*cfg.listeners));
	cfg.devices = calloc(nd + 1, sizeof(*cfg.devices));
	cfg.subsys = calloc(ns + 1, sizeof(*cfg.subsys));
	cfg.referrals = calloc(nr + 1, sizeof(*cfg.referrals));
	if (!cfg.listeners || !cfg.devices || !cfg.subsys || !cfg.referrals)
		goto out;
	TAILQ_FOREACH(r, &tgt->referrals, link) {
		struct blox_cfg_referral *c = &cfg.referrals[cfg.nr_referrals++];

		snprintf(c->addr, sizeof(c->addr), "%s", r->addr);
		snprintf(c->port, sizeof(c->port), "%.7s", r->svcid);
	}
	TAILQ_FOREACH(p, &tgt->ports, link) {
		struct blox_cfg_listener *l = &cfg.listeners[cfg.nr_listeners++];

		snprintf(l->addr, sizeof(l->addr), "%s", p->addr);
		/* A port number: at most 5 digits (checked where it was added). */
		snprintf(l->port, sizeof(l->port), "%.7s", p->svcid);
		l->discovery_only = p->discovery_only;
		l->tls = p->tls;
		/* A group in transition: the state it goes to. */
		for (uint32_t g = 0; g <= NVMF_ANAGRPMAX; g++)
			l->ana_state[g] = p->ana_trans[g] ? nvmf_port_ana_target(p, g)
							  : p->ana_state[g];
		memcpy(l->advertise, p->advertise, sizeof(l->advertise));
	}
	TAILQ_FOREACH(d, &pv->devices, link)
		cfg.devices[cfg.nr_devices++].params = d->cfg.params;
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		if (subsys_of(s, &cfg.subsys[cfg.nr_subsys++]))
			goto out;
	text = blox_config_json(&cfg);
out:
	blox_config_free(&cfg);
	return text;
}
