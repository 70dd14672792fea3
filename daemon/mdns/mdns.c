/* SPDX-License-Identifier: BSD-3-Clause */
/* Zero-touch discovery through avahi-daemon (mdns.h). */
#include "mdns.h"

#include <arpa/inet.h>
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/domain.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <errno.h>
#include <event2/event.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mdns_internal.h"

/* Renames tried when another host announces a service of the same name. */
#define RENAMES_MAX 16
/* Without a D-Bus system bus, avahi is looked for again this often. */
#define RETRY_S 5

struct mdns_svc {
	char addr[INET6_ADDRSTRLEN];
	char port[8];
	char name[AVAHI_LABEL_MAX];
	AvahiIfIndex ifindex;
	AvahiProtocol proto;
};

struct blox_mdns {
	const struct blox_log *log;
	struct blox_avahi_poll poll;
	AvahiClient *client;
	AvahiEntryGroup *group;
	struct mdns_svc *svcs;
	size_t n;
	enum blox_mdns_state state;
	bool said_waiting;
	struct event *retry; /* no system bus yet: try again */
	unsigned renames;
	char host[64];
};

static void client_cb(AvahiClient *c, AvahiClientState st, void *arg);

bool blox_mdns_is_loopback(const char *addr)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, addr, &a4) == 1)
		return (ntohl(a4.s_addr) >> 24) == 127;
	if (inet_pton(AF_INET6, addr, &a6) == 1)
		return IN6_IS_ADDR_LOOPBACK(&a6) ||
		       (IN6_IS_ADDR_V4MAPPED(&a6) && a6.s6_addr[12] == 127);
	return false;
}

const char *blox_mdns_state_name(enum blox_mdns_state s)
{
	switch (s) {
	case BLOX_MDNS_WAITING:
		return "waiting for avahi-daemon";
	case BLOX_MDNS_REGISTERING:
		return "registering";
	case BLOX_MDNS_ANNOUNCED:
		return "announced";
	case BLOX_MDNS_FAILED:
		return "failed";
	}
	return "?";
}

enum blox_mdns_state blox_mdns_state(const struct blox_mdns *m)
{
	return m->state;
}

size_t blox_mdns_count(const struct blox_mdns *m)
{
	return m->n;
}

/* The interface that has @addr (numeric), or AVAHI_IF_UNSPEC: any. */
static AvahiIfIndex if_of(const char *addr, int family)
{
	unsigned char want[sizeof(struct in6_addr)];
	struct ifaddrs *ifa, *i;
	AvahiIfIndex idx = AVAHI_IF_UNSPEC;

	if (inet_pton(family, addr, want) != 1 || getifaddrs(&ifa))
		return AVAHI_IF_UNSPEC;
	for (i = ifa; i && idx == AVAHI_IF_UNSPEC; i = i->ifa_next) {
		const void *have;
		size_t len;

		if (!i->ifa_addr || i->ifa_addr->sa_family != family)
			continue;
		if (family == AF_INET) {
			have = &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr;
			len = sizeof(struct in_addr);
		} else {
			have = &((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_addr;
			len = sizeof(struct in6_addr);
		}
		if (!memcmp(have, want, len))
			idx = (AvahiIfIndex)if_nametoindex(i->ifa_name);
	}
	freeifaddrs(ifa);
	return idx ? idx : AVAHI_IF_UNSPEC;
}

/* Where @s is announced: its family, and its address's interface unless a wildcard. */
static void svc_place(struct mdns_svc *s)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, s->addr, &a4) == 1) {
		s->proto = AVAHI_PROTO_INET;
		s->ifindex = a4.s_addr == htonl(INADDR_ANY) ? AVAHI_IF_UNSPEC
							    : if_of(s->addr, AF_INET);
	} else if (inet_pton(AF_INET6, s->addr, &a6) == 1 && IN6_IS_ADDR_UNSPECIFIED(&a6)) {
		s->proto = AVAHI_PROTO_UNSPEC; /* dual-stack: both families */
		s->ifindex = AVAHI_IF_UNSPEC;
	} else {
		s->proto = AVAHI_PROTO_INET6;
		s->ifindex = if_of(s->addr, AF_INET6);
	}
}

static void name_svc(const struct blox_mdns *m, struct mdns_svc *s)
{
	snprintf(s->name, sizeof(s->name), "bloxd %.40s port %.5s", m->host, s->port);
}

/* The next name avahi suggests for every service (a collision). */
static void rename_all(struct blox_mdns *m)
{
	for (size_t i = 0; i < m->n; i++) {
		char *alt = avahi_alternative_service_name(m->svcs[i].name);

		if (alt) {
			snprintf(m->svcs[i].name, sizeof(m->svcs[i].name), "%s", alt);
			avahi_free(alt);
		}
	}
}

static void register_all(struct blox_mdns *m);

static void group_cb(AvahiEntryGroup *g, AvahiEntryGroupState st, void *arg)
{
	struct blox_mdns *m = arg;

	(void)g;
	switch (st) {
	case AVAHI_ENTRY_GROUP_ESTABLISHED:
		m->state = BLOX_MDNS_ANNOUNCED;
		blox_log(m->log, BLOX_LOG_INFO, "mDNS: %zu discovery service%s announced as %s",
			 m->n, m->n == 1 ? "" : "s", BLOX_MDNS_TYPE);
		break;
	case AVAHI_ENTRY_GROUP_COLLISION:
		if (++m->renames > RENAMES_MAX) {
			m->state = BLOX_MDNS_FAILED;
			blox_log(m->log, BLOX_LOG_ERR,
				 "mDNS: service names keep colliding with other hosts'; "
				 "not announced");
			break;
		}
		rename_all(m);
		blox_log(m->log, BLOX_LOG_WARN, "mDNS: name taken by another host, now '%s'",
			 m->n ? m->svcs[0].name : "");
		register_all(m);
		break;
	case AVAHI_ENTRY_GROUP_FAILURE:
		m->state = BLOX_MDNS_FAILED;
		blox_log(m->log, BLOX_LOG_ERR, "mDNS: announcing failed: %s",
			 avahi_strerror(avahi_client_errno(m->client)));
		break;
	case AVAHI_ENTRY_GROUP_UNCOMMITED:
	case AVAHI_ENTRY_GROUP_REGISTERING:
		break;
	}
}

/* (Re)register every service, once the client runs. */
static void register_all(struct blox_mdns *m)
{
	int rc;

	if (!m->client || avahi_client_get_state(m->client) != AVAHI_CLIENT_S_RUNNING)
		return;
	if (!m->group) {
		m->group = avahi_entry_group_new(m->client, group_cb, m);
		if (!m->group) {
			m->state = BLOX_MDNS_FAILED;
			blox_log(m->log, BLOX_LOG_ERR, "mDNS: %s",
				 avahi_strerror(avahi_client_errno(m->client)));
			return;
		}
	} else {
		avahi_entry_group_reset(m->group);
	}
	if (!m->n) {
		m->state = BLOX_MDNS_ANNOUNCED;
		return;
	}
	m->state = BLOX_MDNS_REGISTERING;
	for (size_t i = 0; i < m->n; i++) {
		struct mdns_svc *s = &m->svcs[i];
		unsigned tries = 0;

		do {
			rc = avahi_entry_group_add_service(
				m->group, s->ifindex, s->proto, 0, s->name, BLOX_MDNS_TYPE, NULL,
				NULL, (uint16_t)atoi(s->port), "nqn=" BLOX_MDNS_DISC_NQN, "p=tcp",
				NULL);
			if (rc == AVAHI_ERR_COLLISION) {
				char *alt = avahi_alternative_service_name(s->name);

				if (alt) {
					snprintf(s->name, sizeof(s->name), "%s", alt);
					avahi_free(alt);
				}
			}
		} while ((rc == AVAHI_ERR_COLLISION) &&
			 ++tries < RENAMES_MAX);
		if (rc < 0) {
			m->state = BLOX_MDNS_FAILED;
			blox_log(m->log, BLOX_LOG_ERR, "mDNS: service for %s port %s: %s",
				 s->addr, s->port, avahi_strerror(rc));
			return;
		}
	}
	if ((rc = avahi_entry_group_commit(m->group)) < 0) {
		m->state = BLOX_MDNS_FAILED;
		blox_log(m->log, BLOX_LOG_ERR, "mDNS: %s", avahi_strerror(rc));
	}
}

static void say_waiting(struct blox_mdns *m)
{
	m->state = BLOX_MDNS_WAITING;
	if (!m->said_waiting)
		blox_log(m->log, BLOX_LOG_INFO,
			 "mDNS: avahi-daemon not running; discovery services are announced "
			 "when it starts (--no-mdns: never)");
	m->said_waiting = true;
}

/*
 * A client that waits for avahi-daemon to appear; without a system bus
 * avahi gives up at once, so that case is tried again every RETRY_S.
 */
static int client_new(struct blox_mdns *m)
{
	static const struct timeval again = { RETRY_S, 0 };
	int err = 0;

	m->client = avahi_client_new(&m->poll.api, AVAHI_CLIENT_NO_FAIL, client_cb, m, &err);
	if (m->client)
		return 0;
	if (err == AVAHI_ERR_NO_MEMORY)
		return -ENOMEM;
	if (err == AVAHI_ERR_NO_DAEMON || err == AVAHI_ERR_DBUS_ERROR ||
	    err == AVAHI_ERR_DISCONNECTED) {
		say_waiting(m);
		evtimer_add(m->retry, &again);
		return 0;
	}
	m->state = BLOX_MDNS_FAILED;
	blox_log(m->log, BLOX_LOG_WARN, "mDNS: not announcing: %s", avahi_strerror(err));
	return 0;
}

static void retry_cb(evutil_socket_t fd, short what, void *arg)
{
	struct blox_mdns *m = arg;

	(void)fd;
	(void)what;
	if (!m->client)
		client_new(m);
}

static void client_cb(AvahiClient *c, AvahiClientState st, void *arg)
{
	struct blox_mdns *m = arg;

	/* Called from inside avahi_client_new() too, before it returns. */
	m->client = c;
	switch (st) {
	case AVAHI_CLIENT_S_RUNNING:
		if (m->said_waiting)
			blox_log(m->log, BLOX_LOG_INFO, "mDNS: avahi-daemon is there");
		m->said_waiting = false;
		register_all(m);
		break;
	case AVAHI_CLIENT_S_COLLISION:
	case AVAHI_CLIENT_S_REGISTERING:
		/* The host's own name is being (re)established: register after. */
		if (m->group)
			avahi_entry_group_reset(m->group);
		m->state = BLOX_MDNS_REGISTERING;
		break;
	case AVAHI_CLIENT_CONNECTING:
		say_waiting(m);
		break;
	case AVAHI_CLIENT_FAILURE:
		/* avahi-daemon went away: its groups went with it; wait for it again. */
		if (avahi_client_errno(c) == AVAHI_ERR_DISCONNECTED) {
			m->group = NULL;
			avahi_client_free(c);
			m->client = NULL;
			blox_log(m->log, BLOX_LOG_WARN, "mDNS: avahi-daemon went away");
			client_new(m);
			break;
		}
		m->state = BLOX_MDNS_FAILED;
		blox_log(m->log, BLOX_LOG_ERR, "mDNS: %s", avahi_strerror(avahi_client_errno(c)));
		break;
	}
}

int blox_mdns_create(struct event_base *base, const struct blox_log *log,
		     struct blox_mdns **out)
{
	struct blox_mdns *m = calloc(1, sizeof(*m));
	int rc;

	if (!m)
		return -ENOMEM;
	m->log = log;
	m->state = BLOX_MDNS_WAITING;
	if (gethostname(m->host, sizeof(m->host) - 1) || !m->host[0])
		snprintf(m->host, sizeof(m->host), "host");
	blox_avahi_poll_init(&m->poll, base);
	m->retry = evtimer_new(base, retry_cb, m);
	if (!m->retry) {
		free(m);
		return -ENOMEM;
	}
	if ((rc = client_new(m))) {
		event_free(m->retry);
		free(m);
		return rc;
	}
	*out = m;
	return 0;
}

void blox_mdns_destroy(struct blox_mdns *m)
{
	if (!m)
		return;
	/* Freeing the client withdraws its groups' services. */
	if (m->client)
		avahi_client_free(m->client);
	event_free(m->retry);
	free(m->svcs);
	free(m);
}

int blox_mdns_update(struct blox_mdns *m, const struct blox_mdns_svc *svcs, size_t n)
{
	struct mdns_svc *v = n ? calloc(n, sizeof(*v)) : NULL;
	size_t k = 0;

	if (n && !v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if (blox_mdns_is_loopback(svcs[i].addr))
			continue;
		snprintf(v[k].addr, sizeof(v[k].addr), "%s", svcs[i].addr);
		snprintf(v[k].port, sizeof(v[k].port), "%s", svcs[i].port);
		name_svc(m, &v[k]);
		svc_place(&v[k]);
		k++;
	}
	free(m->svcs);
	m->svcs = v;
	m->n = k;
	m->renames = 0;
	register_all(m);
	return 0;
}
