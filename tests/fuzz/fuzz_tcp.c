/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the NVMe/TCP receive state machine (daemon/tcp
 * tcp_rx.c with the PDU checks of daemon/pdu, the send side answering)
 * and the NVMe core behind it, as hosts reach them: the input is the byte
 * stream of a connection to a listener on 127.0.0.1, served by the real
 * transport on the event loop of this process, to a subsystem with a RAM
 * namespace made for the input (its controller IDs start at 1 each
 * time). The first byte: bits 0-6 cut the streams (0: sent at once; N: N
 * bytes at a time with the loop run in between, so that the receive side
 * meets PDUs cut anywhere); bit 7: two connections, the second (an I/O
 * queue's, say) opened once the server is done with the first: a u16
 * gives the length of the first stream, the rest is the second's. Every
 * queue and controller must be gone once the connections are (checked),
 * and sanitizers watch the rest. The transport stays up between inputs,
 * as bloxd does between connections.
 *
 * Built with FUZZ_TCP_TLS (fuzz_tls), the listeners are a "tls required"
 * and a "tls allowed" one, and the host has a TLS PSK (the unit tests'):
 * the input is a client's first flight (a ClientHello, its PSK identity
 * for the find callback, or NVMe/TCP PDUs where plain connections are
 * allowed), bit 7 of the first byte choosing the allowed listener
 * instead of the two connections.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <event2/event.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_net.h"
#include "fuzz_util.h"
#include "tcp.h"

#define SUBNQN "nqn.2026-12.io.blox:fuzz"
#define HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555"
#define TLS_PSK "NVMeTLSkey-1:01:VRLbtnN9AQb2WXW3c9+wEf/DRLz0QuLdbYvEhwtdWwNf9LrZ:"

struct tcp_env {
	struct event_base *base;
	struct blox_clock clock;
	struct blox_log log;
	struct nvmf_tgt tgt;
	struct nvmf_tcp *tcp;
	struct sockaddr_in addr, addr2; /* TLS: required, allowed */
	struct nvmf_subsys *subsys;
	uint32_t conns; /* connections opened: each from a source address of its own */
};

/* The one target of this fuzzing process (libFuzzer's entry has no context). */
static struct tcp_env *env;

static bool tcp_idle(void *arg)
{
	struct tcp_env *e = arg;

	return nvmf_tcp_nr_queues(e->tcp) == 0;
}

#ifndef FUZZ_TCP_TLS
/* The second connection is gone; the first may still be open. */
static bool first_left(void *arg)
{
	struct tcp_env *e = arg;

	return nvmf_tcp_nr_queues(e->tcp) <= 1;
}
#endif

/* A listener on 127.0.0.1 at a port the kernel has free now (none takes port 0). */
static void listen_on(struct tcp_env *e, enum nvmf_tls_mode tls, struct sockaddr_in *addr)
{
	struct nvmf_port *port;
	socklen_t sl = sizeof(*addr);
	char svc[8];
	int fd;

	addr->sin_family = AF_INET;
	addr->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	FUZZ_CHECK(fd >= 0 && bind(fd, (struct sockaddr *)addr, sizeof(*addr)) == 0 &&
			   getsockname(fd, (struct sockaddr *)addr, &sl) == 0,
		   "a free port");
	close(fd);
	snprintf(svc, sizeof(svc), "%u", ntohs(addr->sin_port));
	FUZZ_CHECK(nvmf_port_add(&e->tgt, "127.0.0.1", svc, false, &port) == 0, "port");
	port->tls = tls;
	FUZZ_CHECK(nvmf_tcp_listen(e->tcp, port) == 0, "listen %s", svc);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct tcp_env *e = calloc(1, sizeof(*e));

	(void)argc;
	(void)argv;
	FUZZ_CHECK(e, "out of memory");
	e->log.level = getenv("BLOX_FUZZ_LOG") ? BLOX_LOG_DEBUG : -1;
	e->base = event_base_new();
	FUZZ_CHECK(e->base, "event_base_new");
	blox_clock_init_real(&e->clock);
	FUZZ_CHECK(nvmf_tgt_init(&e->tgt, e->base, &e->clock, &e->log) == 0, "tgt");
	FUZZ_CHECK(nvmf_tcp_create(&e->tgt, NULL, NULL, &e->tcp) == 0, "tcp");
#ifdef FUZZ_TCP_TLS
	listen_on(e, NVMF_TLS_REQUIRED, &e->addr);
	listen_on(e, NVMF_TLS_ALLOWED, &e->addr2);
#else
	listen_on(e, NVMF_TLS_NONE, &e->addr);
#endif
	env = e;
	return 0;
}

/* The input's subsystem: a RAM namespace of 1 MiB, any host. */
static void subsys_up(struct tcp_env *e)
{
	struct blox_bdev_params bp = { .backend = "ram",
				       .size = 1u << 20,
				       .block_size = 512,
				       .base = e->base,
				       .clock = &e->clock,
				       .log = &e->log };
	struct blox_bdev *b;

	FUZZ_CHECK(nvmf_subsys_create(&e->tgt, SUBNQN, &e->subsys) == 0, "subsystem");
#ifdef FUZZ_TCP_TLS
	FUZZ_CHECK(nvmf_subsys_add_host(e->subsys, HOSTNQN) == 0 &&
			   nvmf_subsys_host_set_tls_psk(e->subsys, HOSTNQN, TLS_PSK) == 0,
		   "host with a TLS PSK");
#else
	e->subsys->allow_any_host = true;
#endif
	FUZZ_CHECK(blox_bdev_create(&bp, &e->tgt.io_cq, &b) == 0, "ram bdev");
	FUZZ_CHECK(nvmf_ns_add(e->subsys, 1, b, NULL, NULL) == 0, "namespace");
}

static void subsys_down(struct tcp_env *e)
{
	int rc = nvmf_subsys_destroy(e->subsys);

	FUZZ_CHECK(rc == 0, "a controller outlived every connection (%d)", rc);
	e->subsys = NULL;
}

/*
 * A connection from 127.0.X.Y, a source address per connection in turn:
 * hundreds a second for minutes (fuzz_tcp then fuzz_tls) leave tens of
 * thousands in TIME_WAIT for a minute, more than one source address has
 * ephemeral ports for towards one listener.
 */
static int conn_open(struct tcp_env *e, const struct sockaddr_in *addr)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	uint32_t n = e->conns++ % (250u * 250u);
	struct sockaddr_in src = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(0x7f000000u | (1 + n / 250) << 8 |
							    (1 + n % 250)) };

	FUZZ_CHECK(fd >= 0, "socket");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof(one));
	FUZZ_CHECK(bind(fd, (const struct sockaddr *)&src, sizeof(src)) == 0, "bind: %s",
		   strerror(errno));
	FUZZ_CHECK(connect(fd, (const struct sockaddr *)addr, sizeof(*addr)) == 0, "connect: %s",
		   strerror(errno));
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tcp_env *e = env;
	struct fz f = { data, size };
	uint8_t how = fz_u8(&f);
	size_t chunk = (how & 0x7f) ? (how & 0x7f) : SIZE_MAX;

	subsys_up(e);
#ifdef FUZZ_TCP_TLS
	fuzz_exchange(e->base, conn_open(e, (how & 0x80) ? &e->addr2 : &e->addr), f.p, f.n, chunk,
		      tcp_idle, e, 20000);
#else
	if (how & 0x80) {
		struct fuzz_conn first, second;
		size_t len = fz_u16(&f);

		len = BLOX_MIN(len, f.n);

		fuzz_conn_init(&first, e->base, conn_open(e, &e->addr));
		fuzz_conn_send(&first, f.p, len, chunk, true);
		fuzz_conn_init(&second, e->base, conn_open(e, &e->addr));
		fuzz_conn_send(&second, f.p + len, f.n - len, chunk, false);
		fuzz_conn_end(&second, first_left, e, 20000);
		fuzz_conn_end(&first, tcp_idle, e, 20000);
	} else {
		fuzz_exchange(e->base, conn_open(e, &e->addr), f.p, f.n, chunk, tcp_idle, e, 20000);
	}
#endif
	subsys_down(e);
	return 0;
}
