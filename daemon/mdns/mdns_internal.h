/* SPDX-License-Identifier: BSD-3-Clause */
/* avahi's main-loop interface (AvahiPoll) on a libevent base (mdns_poll.c). */
#ifndef BLOX_MDNS_INTERNAL_H
#define BLOX_MDNS_INTERNAL_H

#include <avahi-common/watch.h>

struct event_base;

struct blox_avahi_poll {
	AvahiPoll api; /* api.userdata: this */
	struct event_base *base;
};

/* Fill @p's AvahiPoll for @base; nothing to free (the watches are avahi's). */
void blox_avahi_poll_init(struct blox_avahi_poll *p, struct event_base *base);

#endif
