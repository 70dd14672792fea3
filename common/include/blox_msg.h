/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A message between reactors (daemon/reactor, reactor.h), embedded in the
 * object it is about. Here, apart from the reactors, so that a part may
 * embed one in its public structures without depending on them.
 */
#ifndef BLOX_MSG_H
#define BLOX_MSG_H

struct blox_msg {
	void (*fn)(struct blox_msg *m);
	struct blox_msg *next; /* the sender's wait list when the ring is full */
};

#endif
