/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Zero-touch discovery (NVMe TP8009): bloxd's discovery controllers
 * announced over mDNS/DNS-SD as services of type _nvme-disc._tcp, with the
 * TXT records "nqn=nqn.2014-08.org.nvmexpress.discovery" and "p=tcp", through
 * avahi-daemon (D-Bus system bus). One service per listener port that is
 * not bound to a loopback address (nothing off the host could reach it);
 * a listener bound to one address is announced on the interface that has
 * it, a wildcard one on every interface. avahi-daemon may come and go:
 * the services are registered whenever it runs, and withdrawn when the
 * announcer is destroyed. Runs on the event base it is given.
 */
#ifndef BLOX_MDNS_H
#define BLOX_MDNS_H

#include <stdbool.h>
#include <stddef.h>

#include "blox_log.h"

struct event_base;
struct blox_mdns;

#define BLOX_MDNS_TYPE "_nvme-disc._tcp"
#define BLOX_MDNS_DISC_NQN "nqn.2014-08.org.nvmexpress.discovery"

/* A listener to announce. */
struct blox_mdns_svc {
	const char *addr; /* numeric IPv4 or IPv6, as bound ("0.0.0.0", "::": any) */
	const char *port; /* decimal */
};

/* What the announcer is doing (bloxctl status, the log). */
enum blox_mdns_state {
	BLOX_MDNS_WAITING, /* avahi-daemon (or the system bus) not there yet */
	BLOX_MDNS_REGISTERING,
	BLOX_MDNS_ANNOUNCED, /* every service registered (may be none) */
	BLOX_MDNS_FAILED, /* a service was refused; said in the log */
};

int blox_mdns_create(struct event_base *base, const struct blox_log *log,
		     struct blox_mdns **out);
/* Withdraws every service. NULL is fine. */
void blox_mdns_destroy(struct blox_mdns *m);
/*
 * Announce exactly @svcs (@n of them; 0 withdraws all). Loopback-bound
 * ones are left out; the others are (re)registered once avahi-daemon runs.
 * 0, or -ENOMEM.
 */
int blox_mdns_update(struct blox_mdns *m, const struct blox_mdns_svc *svcs, size_t n);
enum blox_mdns_state blox_mdns_state(const struct blox_mdns *m);
const char *blox_mdns_state_name(enum blox_mdns_state s);
/* Services announced (registered, or to be once avahi-daemon runs). */
size_t blox_mdns_count(const struct blox_mdns *m);
/* True when @addr (numeric) is a loopback address: never announced. */
bool blox_mdns_is_loopback(const char *addr);

#endif
