/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer target: the NVMe/TCP receive state machine (daemon/tcp
 * tcp_rx.c with the PDU checks of daemon/pdu, the send side answering)
 * and the NVMe core behind it, as a host reaches them: each input is the
 * byte stream of one connection to a listener on 127.0.0.1 of a target
 * with a RAM namespace, served by the real transport on the event loop
 * of this process. The first byte cuts the stream: 0 sends it at once,
 * N sends N bytes at a time with the loop run in between, so that the
 * receive side meets PDUs cut anywhere. The connection must end with
 * every queue freed (checked), and sanitizers watch the rest. The target
 * stays up between inputs, as bloxd does between connections.
 */
#include <arpa/inet.h>
#include <event2/event.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz_net.h"
#include "fuzz_util.h"
#include "tcp_internal.h"

#define SUBNQN "nqn.2026-12.io.blox:fuzz"

struct tcp_env {
	struct event_base *base;
	struct blox_clock clock;
	struct blox_log log;
	struct nvmf_tgt tgt;
	struct nvmf_tcp *tcp;
	struct sockaddr_in addr;
};

/* The one target of this fuzzing process (libFuzzer's entry has no context). */
static struct tcp_env *env;

static bool tcp_idle(void *arg)
{
	struct tcp_env *e = arg;

	return nvmf_tcp_nr_queues(e->tcp) == 0;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct blox_bdev_params bp = { .backend = "ram", .size = 4u << 20, .block_size = 512 };
	struct tcp_env *e = calloc(1, sizeof(*e));
	struct nvmf_subsys *s;
	struct nvmf_port *port;
	struct blox_bdev *b;
	socklen_t sl = sizeof(e->addr);
	char svc[8];
	int fd;

	(void)argc;
	(void)argv;
	FUZZ_CHECK(e, "out of memory");
	e->log.level = getenv("BLOX_FUZZ_LOG") ? BLOX_LOG_DEBUG : -1;
	e->base = event_base_new();
	FUZZ_CHECK(e->base, "event_base_new");
	blox_clock_init_real(&e->clock);
	FUZZ_CHECK(nvmf_tgt_init(&e->tgt, e->base, &e->clock, &e->log) == 0, "tgt");
	FUZZ_CHECK(nvmf_tcp_create(&e->tgt, NULL, &e->tcp) == 0, "tcp");
	FUZZ_CHECK(nvmf_subsys_create(&e->tgt, SUBNQN, &s) == 0, "subsystem");
	s->allow_any_host = true;
	bp.clock = &e->clock;
	bp.log = &e->log;
	bp.base = e->base;
	FUZZ_CHECK(blox_bdev_create(&bp, &e->tgt.io_cq, &b) == 0, "ram bdev");
	FUZZ_CHECK(nvmf_ns_add(s, 1, b, NULL, NULL) == 0, "namespace");
	/* A port the kernel has free now (a listener takes no port 0). */
	e->addr.sin_family = AF_INET;
	e->addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	FUZZ_CHECK(fd >= 0 && bind(fd, (struct sockaddr *)&e->addr, sizeof(e->addr)) == 0 &&
			   getsockname(fd, (struct sockaddr *)&e->addr, &sl) == 0,
		   "a free port");
	close(fd);
	snprintf(svc, sizeof(svc), "%u", ntohs(e->addr.sin_port));
	FUZZ_CHECK(nvmf_port_add(&e->tgt, "127.0.0.1", svc, false, &port) == 0, "port");
	FUZZ_CHECK(nvmf_tcp_listen(e->tcp, port) == 0, "listen %s", svc);
	env = e;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tcp_env *e = env;
	size_t chunk = size ? data[0] : 0;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	FUZZ_CHECK(fd >= 0, "socket");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	FUZZ_CHECK(connect(fd, (struct sockaddr *)&e->addr, sizeof(e->addr)) == 0, "connect");
	if (size)
		data++, size--;
	fuzz_exchange(e->base, fd, data, size, chunk ? chunk : SIZE_MAX, tcp_idle, e, 20000);
	return 0;
}
