/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the files of test_admin_badinput share: the admin frames built by
 * hand on a raw unix socket (wire helpers in admin_badinput_wire.c), the
 * checks on what the server answers, and the tests each file holds
 * (test_admin_badinput.c runs them all).
 */
#ifndef BLOX_TEST_ADMIN_BADINPUT_H
#define BLOX_TEST_ADMIN_BADINPUT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "adm_frame.h"
#include "blox_admin.pb-c.h"
#include "fixture.h"

#define SUBNQN "nqn.2026-12.io.blox:admbad"
#define NS_BLOCKS (16u << 20 >> 12)
#define IDLE_MS 500
#define IO_TIMEOUT_MS 5000
#define MAX_INFLIGHT 64 /* ADM_MAX_INFLIGHT in daemon/adm_internal.h */
#define NOBODY 65534

/* ---- the wire (admin_badinput_wire.c) ---- */

/* An answer frame as read back. */
struct answer {
	struct adm_hdr h;
	char msg[ADM_MAX_MSG + 1];
	uint8_t *payload; /* payload_len bytes, malloc'd */
};

/* Service BloxAdmin, as generated. */
const ProtobufCServiceDescriptor *svc(void);
/* The method index of rpc @name (its position in service BloxAdmin). */
uint16_t midx(const char *name);
/* A new connection to bloxd's admin socket. */
int adm_connect(const struct fx_env *e);
/* Wait up to @ms for @events on @fd: 1 ready, 0 timeout, -errno. */
int wait_fd(int fd, short events, int ms);
/* Send all of @buf, each wait bounded by IO_TIMEOUT_MS. 0 or -errno. */
int send_all(int fd, const void *buf, size_t len);
/*
 * Read exactly @len bytes, each wait bounded by @ms. 0; 1 when the peer
 * closed first (EOF, or ECONNRESET: a unix socket closed while it still
 * held data we sent); -ETIMEDOUT; -errno.
 */
int recv_exact(int fd, void *buf, size_t len, int ms);
/* Frame a request: header (with @h's fields), @msg, @payload. */
size_t build(uint8_t *out, size_t cap, const struct adm_hdr *h,
	     const void *msg, const void *payload);
/* A well-formed request of @method with message @m (NULL: no payload). */
size_t build_req(uint8_t *out, size_t cap, uint16_t method,
		 uint32_t id, uint8_t flags, const ProtobufCMessage *m);
/* Send build_req()'s frame. */
void send_req(int fd, uint16_t method, uint32_t id, uint8_t flags,
	      const ProtobufCMessage *m);
/* A GetVersion request @id. */
void send_version_req(int fd, uint32_t id);
/* Free what recv_answer() allocated. */
void answer_free(struct answer *a);
/* The next frame is an answer (not EOF, not a timeout). */
void recv_answer(int fd, struct answer *a);
/* The next answer is @status for @id/@method, without MORE and payload
 * (errors carry a message and no payload). */
void expect_status(int fd, uint32_t id, uint16_t method,
		   uint16_t status);
/* The server closes the connection within @ms without sending a byte.
 * Returns the milliseconds it took. */
int64_t expect_closed_ms(int fd, int ms);
/* expect_closed_ms() within IO_TIMEOUT_MS. */
void expect_closed(int fd);
/* Nothing arrives within @ms (and the connection stays open). */
void expect_quiet(int fd, int ms);
/* A GetVersion answer on @fd for @id: OK, non-empty version. */
void expect_version(int fd, uint32_t id);
/* bloxd is alive and answers GetVersion on a new connection. */
void check_admin(struct fx_env *e);
/* A header with our fields (magic is always ADM_MAGIC from encode). */
struct adm_hdr hdr(uint16_t method, uint32_t id, uint32_t plen);

/* ---- the tests of admin_badinput_load.c ---- */

void test_flood(void **state);
void test_silent_client(void **state);
void test_streams(void **state);
void test_permission(void **state);
void test_daemon_stops_cleanly(void **state);

#endif
