/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of the targets that feed a server of bloxd (NVMe/TCP,
 * admin socket) through real sockets, with its event loop run in the
 * same process: write the fuzzer's bytes, read what the server answers,
 * end the sending side, wait until the server closes.
 */
#ifndef BLOX_FUZZ_NET_H
#define BLOX_FUZZ_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct event;

/* One client connection. */
struct fuzz_conn {
	struct event_base *base;
	int fd;
	bool eof; /* the server closed (EOF or reset) */
	size_t got; /* bytes the server sent */
	struct event *tick; /* lets the loop wait 1 ms for the server */
};

/* @fd: a connected socket (made non-blocking here), served by @base. */
void fuzz_conn_init(struct fuzz_conn *c, struct event_base *base, int fd);
/*
 * Send @data, at most @chunk bytes at a time with the loop run in
 * between (the server sees the stream cut there), reading the answers;
 * with @settle, then run the loop until the server has nothing more to
 * say (three rounds with nothing new).
 */
void fuzz_conn_send(struct fuzz_conn *c, const uint8_t *data, size_t size, size_t chunk,
		    bool settle);
/*
 * Shut the sending side, run the loop reading until the server closes
 * and @idle(@arg) says nothing is left of the exchange; close @fd with a
 * reset (no TIME_WAIT) and free what fuzz_conn_init() took. Aborts after
 * @limit_ms: a server that never closes a connection whose peer has gone
 * is a hang.
 */
void fuzz_conn_end(struct fuzz_conn *c, bool (*idle)(void *arg), void *arg,
		   unsigned limit_ms);

/* One connection: init, send, end. The bytes the server sent. */
size_t fuzz_exchange(struct event_base *base, int fd, const uint8_t *data, size_t size,
		     size_t chunk, bool (*idle)(void *arg), void *arg, unsigned limit_ms);

#endif
