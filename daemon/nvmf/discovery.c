/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The discovery controller: the well-known discovery NQN, reachable on
 * every listener. It answers Identify Controller, Get Log Page (supported
 * logs and the discovery log), features, Keep Alive and AER; the log
 * itself is built in logpage.c. Here too: the referrals to other discovery
 * services the log lists, the address a listener advertises in it, and the change of the log (its generation
 * counter, and the Discovery Log Page Change notice to the persistent
 * discovery controllers that asked for it).
 */
#include "nvmf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint16_t nvmf_parse_discovery(struct nvmf_req *req)
{
	return nvmf_parse_admin_common(req, true);
}

void nvmf_tgt_disc_changed(struct nvmf_tgt *tgt)
{
	struct nvmf_ctrl *c;

	tgt->disc_genctr++;
	/* The target's own discovery subsystem is made first (nvmf_tgt_init). */
	if (!tgt->discovery)
		return;
	/*
	 * A persistent discovery controller (a keep-alive timeout set) is told
	 * when it enabled the notice (Set Features 0Bh bit 31); one that reads
	 * the log and goes has nothing to be told.
	 */
	TAILQ_FOREACH(c, &tgt->discovery->ctrls, link)
		if (c->kato_ms)
			nvmf_ctrl_aen_raise(c, NVMF_AEN_DISC);
}

int nvmf_addr_canon(const char *addr, char canon[NVMF_TRADDR_SIZE])
{
	unsigned char bin[sizeof(struct in6_addr)];
	int family = AF_INET;

	if (!addr || inet_pton(AF_INET, addr, bin) != 1) {
		family = AF_INET6;
		if (!addr || inet_pton(AF_INET6, addr, bin) != 1)
			return -EINVAL;
	}
	if (!inet_ntop(family, bin, canon, NVMF_TRADDR_SIZE))
		return -EINVAL;
	return family;
}

int nvmf_advertise_check(int family, const char *addr, char canon[NVMF_TRADDR_SIZE])
{
	int fam;

	canon[0] = '\0';
	if (!addr || !addr[0])
		return 0;
	fam = nvmf_addr_canon(addr, canon);
	if (fam < 0 || !strcmp(canon, "0.0.0.0") || !strcmp(canon, "::"))
		return -EINVAL;
	return fam == family ? 0 : -EAFNOSUPPORT;
}

int nvmf_port_set_advertise(struct nvmf_port *p, const char *addr)
{
	char canon[NVMF_TRADDR_SIZE];
	int rc = nvmf_advertise_check(p->family, addr, canon);

	if (rc)
		return rc;
	if (!strcmp(p->advertise, canon))
		return 0;
	memcpy(p->advertise, canon, sizeof(p->advertise));
	nvmf_tgt_disc_changed(p->tgt);
	return 0;
}

static struct nvmf_referral *referral_find(const struct nvmf_tgt *tgt, const char *addr,
					   const char *svcid)
{
	struct nvmf_referral *r;

	TAILQ_FOREACH(r, &tgt->referrals, link)
		if (!strcmp(r->addr, addr) && !strcmp(r->svcid, svcid))
			return r;
	return NULL;
}

int nvmf_referral_add(struct nvmf_tgt *tgt, const char *addr, const char *svcid,
		      struct nvmf_referral **out)
{
	char canon[NVMF_TRADDR_SIZE];
	struct nvmf_referral *r;
	unsigned long port;
	char *end;
	int family = nvmf_addr_canon(addr, canon);

	if (family < 0)
		return family;
	errno = 0;
	port = strtoul(svcid, &end, 10);
	if (!*svcid || *end || errno || port == 0 || port > 65535)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	memcpy(r->addr, canon, sizeof(r->addr));
	snprintf(r->svcid, sizeof(r->svcid), "%lu", port);
	if (referral_find(tgt, r->addr, r->svcid)) {
		free(r);
		return -EEXIST;
	}
	r->family = family;
	r->portid = tgt->next_port_id++;
	r->state_since_ns = blox_clock_now(tgt->clock);
	TAILQ_INSERT_TAIL(&tgt->referrals, r, link);
	nvmf_tgt_disc_changed(tgt);
	if (out)
		*out = r;
	return 0;
}

int nvmf_referral_remove(struct nvmf_tgt *tgt, const char *addr, const char *svcid)
{
	char canon[NVMF_TRADDR_SIZE];
	struct nvmf_referral *r;
	unsigned long port = strtoul(svcid, NULL, 10);
	char num[8];

	if (nvmf_addr_canon(addr, canon) < 0)
		return -ENOENT;
	snprintf(num, sizeof(num), "%lu", port);
	r = referral_find(tgt, canon, num);
	if (!r)
		return -ENOENT;
	TAILQ_REMOVE(&tgt->referrals, r, link);
	free(r);
	nvmf_tgt_disc_changed(tgt);
	return 0;
}

struct nvmf_referral *nvmf_referral_find(struct nvmf_tgt *tgt, const char *addr,
					 const char *svcid)
{
	unsigned char bin[sizeof(struct in6_addr)];
	char canon[NVMF_TRADDR_SIZE];
	int family = inet_pton(AF_INET, addr, bin) == 1 ? AF_INET : AF_INET6;

	if (family == AF_INET6 && inet_pton(AF_INET6, addr, bin) != 1)
		return NULL;
	inet_ntop(family, bin, canon, sizeof(canon));
	return referral_find(tgt, canon, svcid);
}

const char *nvmf_ref_state_name(enum nvmf_ref_state st)
{
	switch (st) {
	case NVMF_REF_UNKNOWN:
		return "unknown";
	case NVMF_REF_UP:
		return "up";
	case NVMF_REF_DOWN:
		return "down";
	}
	return "?";
}

void nvmf_referral_set_state(struct nvmf_tgt *tgt, struct nvmf_referral *r,
			     enum nvmf_ref_state st, const char *why)
{
	bool was_listed = r->state != NVMF_REF_DOWN;

	snprintf(r->probe_err, sizeof(r->probe_err), "%s", why ? why : "");
	if (r->state == st)
		return;
	r->state = st;
	r->state_since_ns = blox_clock_now(tgt->clock);
	if (was_listed != (st != NVMF_REF_DOWN))
		nvmf_tgt_disc_changed(tgt);
}

void nvmf_tgt_referrals_free(struct nvmf_tgt *tgt)
{
	struct nvmf_referral *r;

	while ((r = TAILQ_FIRST(&tgt->referrals))) {
		TAILQ_REMOVE(&tgt->referrals, r, link);
		free(r);
	}
}
