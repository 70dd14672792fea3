/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin handlers of the discovery service: the referrals to other
 * discovery services its log lists (add, remove, list), persisted in the
 * state file like listeners.
 */
#include "adm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void referral_msg(const struct nvmf_tgt *tgt, const struct nvmf_referral *r,
			 Blox__Admin__Referral *m)
{
	uint64_t now = blox_clock_now(tgt->clock);

	blox__admin__referral__init(m);
	m->address = (char *)r->addr;
	m->port = (uint32_t)atoi(r->svcid);
	m->portid = r->portid;
	m->state = (char *)nvmf_ref_state_name(r->state);
	m->state_age_ms = now > r->state_since_ns ? (now - r->state_since_ns) / 1000000 : 0;
	m->last_error = (char *)r->probe_err;
}

static void m_add_referral(ADM_SVC *svc, const Blox__Admin__ReferralRequest *in,
			   Blox__Admin__Referral_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__Referral out;
	char port[12], err[256];
	int rc;

	if (in->port == 0 || in->port > 65535)
		ADM_FAIL(closure, d, ADM_S_INVALID_ARGUMENT, "referral port %u: must be 1..65535",
			 in->port);
	snprintf(port, sizeof(port), "%u", in->port);
	rc = prov_referral_add(a->prov, in->address, port, err, sizeof(err));
	if (rc)
		ADM_FAIL(closure, d,
			 rc == -EEXIST	  ? ADM_S_ALREADY_EXISTS
			 : rc == -EINVAL ? ADM_S_INVALID_ARGUMENT
					 : ADM_S_RESOURCE_EXHAUSTED,
			 "%s", err);
	blox_log(a->log, BLOX_LOG_INFO, "admin: referral %s:%u added", in->address, in->port);
	/* The address in its canonical form: the last one added. */
	referral_msg(a->tgt, TAILQ_LAST(&a->tgt->referrals, nvmf_referral_list), &out);
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	closure(&out, d);
}

static void m_remove_referral(ADM_SVC *svc, const Blox__Admin__ReferralRequest *in,
			      Blox__Admin__Empty_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__Empty out = BLOX__ADMIN__EMPTY__INIT;
	char port[12];

	snprintf(port, sizeof(port), "%u", in->port);
	if (prov_referral_remove(a->prov, in->address, port))
		ADM_FAIL(closure, d, ADM_S_NOT_FOUND, "referral %s:%u not found", in->address,
			 in->port);
	blox_log(a->log, BLOX_LOG_INFO, "admin: referral %s:%u removed", in->address, in->port);
	if (!adm_persist(ADM_REQ(d)))
		ADM_FAILED(closure, d);
	closure(&out, d);
}

static void m_list_referrals(ADM_SVC *svc, const Blox__Admin__Empty *in,
			     Blox__Admin__ReferralList_Closure closure, void *d)
{
	struct blox_admin *a = ADM_OF(svc);
	Blox__Admin__ReferralList out = BLOX__ADMIN__REFERRAL_LIST__INIT;
	Blox__Admin__Referral *rs, **rp;
	struct nvmf_referral *r;
	size_t n = 0;

	(void)in;
	TAILQ_FOREACH(r, &a->tgt->referrals, link)
		n++;
	rs = calloc(n + 1, sizeof(*rs));
	rp = calloc(n + 1, sizeof(*rp));
	if (!rs || !rp) {
		free(rs);
		free(rp);
		ADM_FAIL(closure, d, ADM_S_RESOURCE_EXHAUSTED, "out of memory");
	}
	TAILQ_FOREACH(r, &a->tgt->referrals, link) {
		referral_msg(a->tgt, r, &rs[out.n_referrals]);
		rp[out.n_referrals] = &rs[out.n_referrals];
		out.n_referrals++;
	}
	out.referrals = rp;
	out.genctr = a->tgt->disc_genctr;
	closure(&out, d);
	free(rs);
	free(rp);
}

void adm_m_disc_init(ADM_SVC *svc)
{
	svc->add_referral = m_add_referral;
	svc->remove_referral = m_remove_referral;
	svc->list_referrals = m_list_referrals;
}
