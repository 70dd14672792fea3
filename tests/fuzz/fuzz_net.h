/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The client side of the targets that feed a server of bloxd (NVMe/TCP,
 * admin socket) through a real socket, with its event loop run in the
 * same process: write the fuzzer's bytes, end the sending side, read
 * everything the server answers until it closes.
 */
#ifndef BLOX_FUZZ_NET_H
#define BLOX_FUZZ_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;

/*
 * Send @data on the connected socket @fd (made non-blocking here), at most
 * @chunk bytes at a time with the loop run in between (the server sees
 * the stream cut there), then shut its sending side; run @base while reading until the server closes
 * (EOF or reset) and @idle(@arg) says nothing is left of the exchange.
 * Closes @fd with a reset (no TIME_WAIT). Aborts after @limit_ms: a
 * server that never closes a connection whose peer has gone is a hang.
 * The bytes the server sent.
 */
size_t fuzz_exchange(struct event_base *base, int fd, const uint8_t *data, size_t size,
		     size_t chunk, bool (*idle)(void *arg), void *arg, unsigned limit_ms);

#endif
