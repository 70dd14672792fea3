/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * BloxAdmin method handlers: the service table, and the helpers the
 * handlers of every object share. The handlers themselves live by object
 * in adm_m_target.c, adm_m_subsys.c, adm_m_ns.c and adm_m_ctrl.c. Each
 * checks its input, changes the running target, writes the state file
 * when something changed, and answers through the closure (once).
 * Handlers that must wait (a namespace whose commands are still running,
 * controllers still closing) answer later.
 */
#include "adm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int adm_save_state(struct blox_admin *a, char *err, size_t errlen)
{
	char *text = blox_state_json(a->prov);
	int rc;

	if (!text)
		return snprintf(err, errlen, "out of memory"), -ENOMEM;
	rc = blox_state_write(a->state_path, text, err, errlen);
	free(text);
	a->state_unsaved = rc != 0;
	if (rc)
		blox_log(a->log, BLOX_LOG_ERR, "state file: %s", err);
	return rc;
}

void blox_admin_set_mdns(struct blox_admin *a, const struct blox_mdns *m)
{
	a->mdns = m;
}

void blox_admin_save_state(struct blox_admin *a)
{
	char err[512];

	if (a && a->state_unsaved && adm_save_state(a, err, sizeof(err)) == 0)
		blox_log(a->log, BLOX_LOG_INFO, "state file %s written", a->state_path);
}

bool adm_persist(struct adm_req *r)
{
	char err[512];

	if (adm_save_state(r->a, err, sizeof(err)) == 0)
		return true;
	/* The change stays made: say so, with why it is not on disk. */
	adm_fail(r, ADM_S_INTERNAL, "done, but the state file was not written: %s",
		 err);
	return false;
}

struct nvmf_subsys *adm_find_subsys(struct blox_admin *a, struct adm_req *r,
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

uint32_t adm_nr_ctrls(const struct nvmf_subsys *s)
{
	const struct nvmf_ctrl *c;
	uint32_t n = 0;

	TAILQ_FOREACH(c, &s->ctrls, link)
		n++;
	return n;
}

void adm_methods_init(ADM_SVC *svc)
{
	blox__admin__blox_admin__init(svc, NULL);
	adm_m_target_init(svc);
	adm_m_subsys_init(svc);
	adm_m_ns_init(svc);
	adm_m_ctrl_init(svc);
	adm_m_disc_init(svc);
	adm_m_device_init(svc);
	adm_m_mig_init(svc);
	adm_m_qos_init(svc);
	adm_m_fault_init(svc);
}
