/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The referrals' nodes watched (blox_prov_probe_referrals()): every
 * interval, a TCP connection is opened to each referral's discovery
 * service and closed once it is accepted. PROBE_DOWN_AFTER failures in a
 * row (refused, unreachable, no answer within the probe's timeout) mark the
 * node down, which leaves its referral out of the discovery log; the next
 * success lists it again. Either change moves the log's generation counter
 * and tells the persistent discovery controllers (nvmf_referral_set_state).
 */
#include "prov.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROBE_DOWN_AFTER 2
#define PROBE_TIMEOUT_MAX_MS 2000u

/* One connection under way; the referral is looked up again at its end (it may be gone). */
struct prov_probe {
	struct blox_prov *p;
	char addr[NVMF_TRADDR_SIZE];
	char svcid[NVMF_TRSVCID_SIZE];
	int fd;
	struct event *ev;
	TAILQ_ENTRY(prov_probe) link;
};

static void probe_free(struct prov_probe *pr)
{
	TAILQ_REMOVE(&pr->p->probes, pr, link);
	if (pr->ev)
		event_free(pr->ev);
	if (pr->fd >= 0)
		close(pr->fd);
	free(pr);
}

static void probe_end(struct prov_probe *pr, int err)
{
	struct blox_prov *p = pr->p;
	struct nvmf_referral *r = nvmf_referral_find(p->tgt, pr->addr, pr->svcid);
	enum nvmf_ref_state was;
	char why[64];

	if (!r)
		goto out;
	was = r->state;
	if (!err) {
		r->probe_fails = 0;
		nvmf_referral_set_state(p->tgt, r, NVMF_REF_UP, NULL);
		if (was == NVMF_REF_DOWN)
			blox_log(p->log, BLOX_LOG_INFO,
				 "referral %s:%s: its discovery service answers again; listed",
				 r->addr, r->svcid);
		goto out;
	}
	snprintf(why, sizeof(why), "%s", err == ETIMEDOUT ? "no answer" : strerror(err));
	if (++r->probe_fails < PROBE_DOWN_AFTER) {
		snprintf(r->probe_err, sizeof(r->probe_err), "%s", why);
		goto out;
	}
	nvmf_referral_set_state(p->tgt, r, NVMF_REF_DOWN, why);
	if (was != NVMF_REF_DOWN)
		blox_log(p->log, BLOX_LOG_WARN,
			 "referral %s:%s: its discovery service is down (%s, %u probes in a row); "
			 "left out of the discovery log until it answers",
			 r->addr, r->svcid, why, r->probe_fails);
out:
	probe_free(pr);
}

static void probe_cb(evutil_socket_t fd, short what, void *arg)
{
	struct prov_probe *pr = arg;
	int err = 0;
	socklen_t len = sizeof(err);

	if (what & EV_TIMEOUT)
		err = ETIMEDOUT;
	else if (getsockopt((int)fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	probe_end(pr, err);
}

static void probe_start(struct blox_prov *p, const struct nvmf_referral *r)
{
	struct sockaddr_storage ss = { 0 };
	struct timeval tv;
	struct prov_probe *pr;
	socklen_t sl;
	unsigned to_ms = p->ref_probe_ms < PROBE_TIMEOUT_MAX_MS ? p->ref_probe_ms
								  : PROBE_TIMEOUT_MAX_MS;
	uint16_t port = (uint16_t)atoi(r->svcid);

	TAILQ_FOREACH(pr, &p->probes, link)
		if (!strcmp(pr->addr, r->addr) && !strcmp(pr->svcid, r->svcid))
			return; /* the last one is still under way */
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return;
	pr->p = p;
	pr->fd = -1;
	snprintf(pr->addr, sizeof(pr->addr), "%s", r->addr);
	snprintf(pr->svcid, sizeof(pr->svcid), "%s", r->svcid);
	TAILQ_INSERT_TAIL(&p->probes, pr, link);
	if (r->family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)&ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(port);
		inet_pton(AF_INET, r->addr, &in->sin_addr);
		sl = sizeof(*in);
	} else {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		inet_pton(AF_INET6, r->addr, &in6->sin6_addr);
		sl = sizeof(*in6);
	}
	pr->fd = socket(r->family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (pr->fd < 0) {
		probe_end(pr, errno);
		return;
	}
	if (!connect(pr->fd, (struct sockaddr *)&ss, sl)) {
		probe_end(pr, 0);
		return;
	}
	if (errno != EINPROGRESS) {
		probe_end(pr, errno);
		return;
	}
	pr->ev = event_new(p->tgt->base, pr->fd, EV_WRITE, probe_cb, pr);
	tv.tv_sec = to_ms / 1000;
	tv.tv_usec = (suseconds_t)(to_ms % 1000) * 1000;
	if (!pr->ev || event_add(pr->ev, &tv))
		probe_end(pr, ENOMEM);
}

static void ref_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_prov *p = arg;
	struct nvmf_referral *r;
	struct timeval tv = { p->ref_probe_ms / 1000, (suseconds_t)(p->ref_probe_ms % 1000) * 1000 };

	(void)fd;
	(void)what;
	TAILQ_FOREACH(r, &p->tgt->referrals, link)
		probe_start(p, r);
	evtimer_add(p->ref_ev, &tv);
}

int blox_prov_probe_referrals(struct blox_prov *p, unsigned interval_ms)
{
	p->ref_probe_ms = interval_ms;
	if (!interval_ms || !p->tgt->base)
		return 0;
	if (!p->ref_ev && !(p->ref_ev = evtimer_new(p->tgt->base, ref_timer_cb, p)))
		return -ENOMEM;
	/* The first round at once: a node down at start-up is found within two rounds. */
	event_active(p->ref_ev, EV_TIMEOUT, 0);
	return 0;
}

void prov_probes_free(struct blox_prov *p)
{
	struct prov_probe *pr;

	if (p->ref_ev)
		event_free(p->ref_ev);
	p->ref_ev = NULL;
	while ((pr = TAILQ_FIRST(&p->probes)))
		probe_free(pr);
}
