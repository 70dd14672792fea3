/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Target configuration objects: the target context, subsystems with their
 * host allow lists and namespaces, and ports. Changes that a host can see
 * through discovery bump the discovery generation counter.
 */
#include "nvmf.h"
#include "fault_hold.h"

#include <event2/event.h>

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

int nvmf_tgt_init(struct nvmf_tgt *tgt, struct event_base *base,
		  const struct blox_clock *clock, const struct blox_log *log)
{
	int rc;

	memset(tgt, 0, sizeof(*tgt));
	tgt->base = base;
	tgt->clock = clock;
	tgt->log = log;
	tgt->next_port_id = 1;
	tgt->lim = NVMF_TGT_LIMITS_DEFAULT;
	tgt->start_ns = blox_clock_now(clock);
	TAILQ_INIT(&tgt->subsystems);
	TAILQ_INIT(&tgt->ports);
	TAILQ_INIT(&tgt->referrals);
	TAILQ_INIT(&tgt->held);
	TAILQ_INIT(&tgt->drops);
	rc = blox_fault_reg_create(&tgt->faults);
	if (rc)
		return rc;
	rc = blox_io_cq_init(&tgt->io_cq, base);
	if (rc) {
		blox_fault_reg_destroy(tgt->faults);
		return rc;
	}
	rc = nvmf_subsys_create(tgt, NVME_DISC_SUBSYS_NAME, &tgt->discovery);
	if (rc) {
		blox_io_cq_fini(&tgt->io_cq);
		blox_fault_reg_destroy(tgt->faults);
		return rc;
	}
	tgt->discovery->type = NVMF_SUBSYS_DISCOVERY;
	tgt->discovery->allow_any_host = true;
	return 0;
}

void nvmf_tgt_fini(struct nvmf_tgt *tgt)
{
	struct nvmf_subsys *s;
	struct nvmf_port *p;

	while ((s = TAILQ_FIRST(&tgt->subsystems)))
		if (nvmf_subsys_destroy(s))
			break;
	if (tgt->discovery)
		nvmf_subsys_destroy(tgt->discovery);
	while ((p = TAILQ_FIRST(&tgt->ports)))
		nvmf_port_remove(p);
	nvmf_tgt_referrals_free(tgt);
	/* Completions of the last I/O may still sit in the queue. */
	blox_io_cq_drain(&tgt->io_cq);
	blox_io_cq_fini(&tgt->io_cq);
	nvmf_holds_abort(tgt, NULL);
	nvmf_fault_drops_free(tgt);
	if (tgt->hold_ev)
		event_free(tgt->hold_ev);
	tgt->hold_ev = NULL;
	blox_fault_reg_destroy(tgt->faults);
	tgt->faults = NULL;
	nvmf_tgt_set_resv_dir(tgt, NULL);
}

bool nvmf_nqn_valid(const char *nqn)
{
	size_t n = strnlen(nqn, NVME_NQN_LENGTH);

	if (n == 0 || n >= 224)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)nqn[i] < 0x20)
			return false;
	return true;
}

static void hex_serial(const char *nqn, char *out, size_t outlen)
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	size_t i;

	SHA256((const unsigned char *)nqn, strlen(nqn), md);
	for (i = 0; i + 1 < outlen && i / 2 < sizeof(md); i += 2)
		snprintf(out + i, outlen - i, "%02x", md[i / 2]);
	out[BLOX_MIN(i, outlen - 1)] = '\0';
}

int nvmf_subsys_create(struct nvmf_tgt *tgt, const char *nqn,
		       struct nvmf_subsys **out)
{
	struct nvmf_subsys *s;

	if (!nvmf_nqn_valid(nqn))
		return -EINVAL;
	if (nvmf_subsys_find(tgt, nqn))
		return -EEXIST;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->type = NVMF_SUBSYS_NVM;
	snprintf(s->nqn, sizeof(s->nqn), "%s", nqn);
	hex_serial(nqn, s->serial, sizeof(s->serial));
	snprintf(s->model, sizeof(s->model), "%s", NVMF_MODEL);
	TAILQ_INIT(&s->hosts);
	TAILQ_INIT(&s->namespaces);
	TAILQ_INIT(&s->ctrls);
	s->next_cntlid = NVMF_CNTLID_MIN;
	s->tgt = tgt;
	/* The discovery subsystem is created first and is not listed. */
	if (tgt->discovery)
		TAILQ_INSERT_TAIL(&tgt->subsystems, s, link);
	nvmf_tgt_disc_changed(tgt);
	*out = s;
	return 0;
}

/* The namespace's backend and memory (it is off every list). */
static void ns_delete(struct nvmf_ns *ns)
{
	if (ns->bdev)
		nvmf_ns_fdp_save(ns); /* its FDP events, with the backend's metadata */
	blox_bdev_destroy(ns->bdev);
	if (ns->owner_free)
		ns->owner_free(ns->owner);
	nvmf_ns_resv_fini(ns);
	free(ns);
}

int nvmf_subsys_destroy(struct nvmf_subsys *s)
{
	struct nvmf_tgt *tgt = s->tgt;
	struct nvmf_host *h;
	struct nvmf_ns *ns;

	/* Controllers hold queues with I/O in flight: close them first. */
	if (!TAILQ_EMPTY(&s->ctrls))
		return -EBUSY;
	while ((h = TAILQ_FIRST(&s->hosts))) {
		TAILQ_REMOVE(&s->hosts, h, link);
		dhchap_wipe(h, sizeof(*h));
		free(h);
	}
	while ((ns = TAILQ_FIRST(&s->namespaces))) {
		TAILQ_REMOVE(&s->namespaces, ns, link);
		nvmf_plm_ns_release(ns);
		ns_delete(ns);
	}
	if (s != tgt->discovery)
		TAILQ_REMOVE(&tgt->subsystems, s, link);
	else
		tgt->discovery = NULL;
	nvmf_tgt_disc_changed(tgt);
	free(s);
	return 0;
}

void nvmf_tgt_close_ctrls(struct nvmf_tgt *tgt)
{
	struct nvmf_subsys *s;
	struct nvmf_ctrl *c, *tmp;

	/* What faults hold ends now: nothing waits for a stall or a delay. */
	nvmf_holds_abort(tgt, NULL);
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		TAILQ_FOREACH_SAFE(c, &s->ctrls, link, tmp)
			nvmf_ctrl_fatal(c, "target shutting down");
	if (tgt->discovery)
		TAILQ_FOREACH_SAFE(c, &tgt->discovery->ctrls, link, tmp)
			nvmf_ctrl_fatal(c, "target shutting down");
}

uint32_t nvmf_subsys_drop_host(struct nvmf_subsys *s, const char *hostnqn, const char *why)
{
	struct nvmf_ctrl *c, *tmp;
	uint32_t n = 0;

	TAILQ_FOREACH_SAFE(c, &s->ctrls, link, tmp) {
		if (hostnqn && strcmp(c->hostnqn, hostnqn))
			continue;
		n += !c->dying;
		nvmf_ctrl_fatal(c, why);
	}
	return n;
}

uint32_t nvmf_subsys_drop_ctrls(struct nvmf_subsys *s, const char *why)
{
	return nvmf_subsys_drop_host(s, NULL, why);
}

struct nvmf_subsys *nvmf_subsys_find(struct nvmf_tgt *tgt, const char *nqn)
{
	struct nvmf_subsys *s;

	if (tgt->discovery && !strcmp(tgt->discovery->nqn, nqn))
		return tgt->discovery;
	TAILQ_FOREACH(s, &tgt->subsystems, link)
		if (!strcmp(s->nqn, nqn))
			return s;
	return NULL;
}

int nvmf_subsys_add_host(struct nvmf_subsys *s, const char *hostnqn)
{
	struct nvmf_host *h;

	if (!nvmf_nqn_valid(hostnqn))
		return -EINVAL;
	if (nvmf_subsys_host_allowed(s, hostnqn) && !s->allow_any_host)
		return -EEXIST;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	snprintf(h->nqn, sizeof(h->nqn), "%s", hostnqn);
	TAILQ_INSERT_TAIL(&s->hosts, h, link);
	nvmf_tgt_disc_changed(s->tgt);
	return 0;
}

int nvmf_subsys_remove_host(struct nvmf_subsys *s, const char *hostnqn)
{
	struct nvmf_host *h = nvmf_subsys_find_host(s, hostnqn);

	if (!h)
		return -ENOENT;
	TAILQ_REMOVE(&s->hosts, h, link);
	dhchap_wipe(h, sizeof(*h));
	free(h);
	nvmf_tgt_disc_changed(s->tgt);
	return 0;
}

int nvmf_subsys_host_set_tls_psk(struct nvmf_subsys *s, const char *hostnqn, const char *psk)
{
	struct nvmf_host *h = nvmf_subsys_find_host(s, hostnqn);

	if (!h)
		return -ENOENT;
	if (strlen(psk) >= sizeof(h->tls_psk))
		return -ENAMETOOLONG;
	dhchap_wipe(h->tls_psk, sizeof(h->tls_psk));
	snprintf(h->tls_psk, sizeof(h->tls_psk), "%s", psk);
	return 0;
}

struct nvmf_host *nvmf_subsys_find_host(const struct nvmf_subsys *s, const char *hostnqn)
{
	struct nvmf_host *h;

	TAILQ_FOREACH(h, &s->hosts, link)
		if (!strcmp(h->nqn, hostnqn))
			return h;
	return NULL;
}

int nvmf_host_set_keys(struct nvmf_host *h, const char *key, const char *ctrl_key,
		       const char **why)
{
	struct dhchap_key k = { 0 }, ck = { 0 };
	bool has_k = key && key[0], has_ck = ctrl_key && ctrl_key[0];
	int rc = 0;

	if (has_ck && !has_k) {
		*why = "a controller secret needs a host secret";
		return -EINVAL;
	}
	if ((has_k && strlen(key) >= DHCHAP_KEY_STR_MAX) ||
	    (has_ck && strlen(ctrl_key) >= DHCHAP_KEY_STR_MAX)) {
		*why = "a secret is too long for DHHC-1";
		return -EINVAL;
	}
	if ((has_k && (rc = dhchap_key_parse(key, &k, why))) ||
	    (has_ck && (rc = dhchap_key_parse(ctrl_key, &ck, why)))) {
		dhchap_wipe(&k, sizeof(k));
		return rc;
	}
	dhchap_wipe(h->key_str, sizeof(h->key_str));
	dhchap_wipe(h->ctrl_key_str, sizeof(h->ctrl_key_str));
	h->has_key = has_k;
	h->has_ctrl_key = has_ck;
	h->key = k;
	h->ctrl_key = ck;
	snprintf(h->key_str, sizeof(h->key_str), "%s", has_k ? key : "");
	snprintf(h->ctrl_key_str, sizeof(h->ctrl_key_str), "%s", has_ck ? ctrl_key : "");
	dhchap_wipe(&k, sizeof(k));
	dhchap_wipe(&ck, sizeof(ck));
	return 0;
}

bool nvmf_subsys_host_allowed(const struct nvmf_subsys *s, const char *hostnqn)
{
	return s->allow_any_host || nvmf_subsys_find_host(s, hostnqn);
}

/* A stable 16-byte identifier from the subsystem NQN, nsid and a label. */
static void derive_id(const char *nqn, uint32_t nsid, const char *label,
		      uint8_t out[16])
{
	unsigned char md[SHA256_DIGEST_LENGTH];
	char buf[NVME_NQN_LENGTH + 32];
	int n = snprintf(buf, sizeof(buf), "%s|%u|%s", nqn, nsid, label);

	SHA256((const unsigned char *)buf, (size_t)n, md);
	memcpy(out, md, 16);
}

void nvmf_ns_default_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16])
{
	derive_id(nqn, nsid, "uuid", uuid);
	uuid[6] = (uint8_t)((uuid[6] & 0x0f) | 0x50); /* version 5, name-based */
	uuid[8] = (uint8_t)((uuid[8] & 0x3f) | 0x80); /* RFC 4122 variant */
}

/* A namespace of @tgt whose UUID is @uuid or (if not NULL) whose NGUID is @nguid. */
static struct nvmf_ns *find_ids(const struct nvmf_tgt *tgt, const uint8_t uuid[16],
				const uint8_t *nguid)
{
	struct nvmf_subsys *s;
	struct nvmf_ns *ns;

	TAILQ_FOREACH(s, &tgt->subsystems, link)
		TAILQ_FOREACH(ns, &s->namespaces, link)
			if (!memcmp(ns->uuid, uuid, 16) || (nguid && !memcmp(ns->nguid, nguid, 16)))
				return ns;
	return NULL;
}

struct nvmf_ns *nvmf_tgt_find_uuid(const struct nvmf_tgt *tgt, const uint8_t uuid[16])
{
	return find_ids(tgt, uuid, NULL);
}

int nvmf_ns_add(struct nvmf_subsys *s, uint32_t nsid, struct blox_bdev *bdev,
		const uint8_t *uuid, struct nvmf_ns **out)
{
	struct nvmf_ns *ns, *pos;
	uint32_t bs = bdev->block_size;
	uint8_t id_uuid[16], id_nguid[16];

	if (s->type != NVMF_SUBSYS_NVM)
		return -EINVAL;
	if (nsid == 0) {
		nsid = 1;
		while (nvmf_ns_find(s, nsid))
			nsid++;
	}
	if (nsid > NVMF_MAX_NS || nsid == 0xffffffff)
		return -EINVAL;
	if (nvmf_ns_find(s, nsid))
		return -EEXIST;
	if ((bs & (bs - 1)) || bs < 512 || bdev->size % bs)
		return -EINVAL;
	/*
	 * Its identifiers are its own in the whole target: Linux drops a
	 * namespace whose UUID or NGUID another it knows has, in the same
	 * subsystem or another. (No EUI-64 is reported: all zero is none.)
	 */
	if (uuid)
		memcpy(id_uuid, uuid, 16);
	else
		nvmf_ns_default_uuid(s->nqn, nsid, id_uuid);
	derive_id(s->nqn, nsid, "nguid", id_nguid);
	if (find_ids(s->tgt, id_uuid, id_nguid))
		return -ENOTUNIQ;
	if (nvmf_fdp_group_mix(s, bdev))
		return -EMEDIUMTYPE;
	ns = calloc(1, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	if (nvmf_ns_resv_init(ns)) {
		free(ns);
		return -ENOMEM;
	}
	ns->nsid = nsid;
	ns->lba_shift = (uint8_t)__builtin_ctz(bs);
	ns->nblocks = bdev->size >> ns->lba_shift;
	ns->bdev = bdev;
	ns->subsys = s;
	ns->created_ns = blox_clock_now(s->tgt->clock);
	memcpy(ns->uuid, id_uuid, 16);
	memcpy(ns->nguid, id_nguid, 16);
	nvmf_ns_resv_load(ns);
	nvmf_ns_endgrp_assign(s, ns);
	nvmf_ns_fdp_init(ns);
	ns->anagrpid = 1; /* nvmf_ns_set_ana_group() moves it */
	nvmf_tgt_ana_changed(s->tgt);
	/* Keep the list sorted by nsid for the active namespace list. */
	TAILQ_FOREACH(pos, &s->namespaces, link)
		if (pos->nsid > nsid)
			break;
	if (pos)
		TAILQ_INSERT_BEFORE(pos, ns, link);
	else
		TAILQ_INSERT_TAIL(&s->namespaces, ns, link);
	nvmf_subsys_ns_changed(s, nsid);
	if (out)
		*out = ns;
	return 0;
}

struct nvmf_ns *nvmf_ns_find(const struct nvmf_subsys *s, uint32_t nsid)
{
	struct nvmf_ns *ns;

	TAILQ_FOREACH(ns, &s->namespaces, link)
		if (ns->nsid == nsid)
			return ns;
	return NULL;
}

void nvmf_ns_get(struct nvmf_ns *ns)
{
	ns->refs++;
}

static void ns_free(struct nvmf_ns *ns)
{
	void (*released)(void *, struct blox_bdev *) = ns->released;
	void *arg = ns->released_arg;
	struct blox_bdev *bdev = ns->bdev;

	nvmf_plm_ns_release(ns);
	if (released)
		nvmf_ns_fdp_save(ns); /* before the backend is the callback's */
	if (released)
		ns->bdev = NULL; /* the callback's now */
	ns_delete(ns);
	if (released)
		released(arg, bdev);
}

static void ns_free_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	ns_free(arg);
}

/* Free from the loop: the last reference may drop inside a backend callback. */
static void ns_free_later(struct nvmf_ns *ns)
{
	struct event_base *base = ns->subsys->tgt->base;

	if (!base || event_base_once(base, -1, EV_TIMEOUT, ns_free_cb, ns,
				     &(struct timeval){ 0, 0 }))
		ns_free(ns);
}

void nvmf_ns_put(struct nvmf_ns *ns)
{
	if (--ns->refs == 0 && ns->detached)
		ns_free_later(ns);
}

void nvmf_ns_detach(struct nvmf_ns *ns,
		    void (*released)(void *arg, struct blox_bdev *bdev), void *arg)
{
	struct nvmf_subsys *s = ns->subsys;

	TAILQ_REMOVE(&s->namespaces, ns, link);
	ns->detached = true;
	/* Deleted, not stopped: its reservations go with it. */
	nvmf_ns_resv_forget(ns);
	nvmf_tgt_ana_changed(s->tgt);
	ns->released = released;
	ns->released_arg = arg;
	nvmf_subsys_ns_changed(s, ns->nsid);
	if (ns->refs == 0)
		ns_free_later(ns);
}

void nvmf_subsys_ns_changed(struct nvmf_subsys *s, uint32_t nsid)
{
	struct nvmf_ctrl *c;

	TAILQ_FOREACH(c, &s->ctrls, link) {
		bool dup = false;

		for (uint32_t i = 0; i < c->nr_changed_ns &&
				     i < NVMF_MAX_CHANGED_NS; i++)
			dup |= c->changed_ns[i] == nsid;
		if (!dup) {
			if (c->nr_changed_ns < NVMF_MAX_CHANGED_NS)
				c->changed_ns[c->nr_changed_ns] = nsid;
			if (c->nr_changed_ns <= NVMF_MAX_CHANGED_NS)
				c->nr_changed_ns++;
		}
		nvmf_ctrl_aen_raise(c, NVMF_AEN_NS_CHANGED);
	}
}

int nvmf_port_add(struct nvmf_tgt *tgt, const char *addr, const char *svcid,
		  bool discovery_only, struct nvmf_port **out)
{
	struct nvmf_port *p;
	unsigned char tmp[sizeof(struct in6_addr)];
	char *end;
	unsigned long port;
	int family;

	if (inet_pton(AF_INET, addr, tmp) == 1)
		family = AF_INET;
	else if (inet_pton(AF_INET6, addr, tmp) == 1)
		family = AF_INET6;
	else
		return -EINVAL;
	port = strtoul(svcid, &end, 10);
	if (!*svcid || *end || port == 0 || port > 65535)
		return -EINVAL;
	TAILQ_FOREACH(p, &tgt->ports, link)
		if (!strcmp(p->addr, addr) && !strcmp(p->svcid, svcid))
			return -EEXIST;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->id = tgt->next_port_id++;
	snprintf(p->addr, sizeof(p->addr), "%s", addr);
	snprintf(p->svcid, sizeof(p->svcid), "%lu", port);
	p->family = family;
	p->discovery_only = discovery_only;
	p->tgt = tgt;
	TAILQ_INSERT_TAIL(&tgt->ports, p, link);
	nvmf_tgt_disc_changed(tgt);
	*out = p;
	return 0;
}

void nvmf_port_remove(struct nvmf_port *p)
{
	nvmf_port_ana_stop(p);
	TAILQ_REMOVE(&p->tgt->ports, p, link);
	nvmf_tgt_disc_changed(p->tgt);
	free(p);
}
