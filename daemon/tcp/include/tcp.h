/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVMe/TCP transport: listeners, one connection per queue, the receive
 * state machine per queue and the send state per command.
 */
#ifndef BLOX_TCP_H
#define BLOX_TCP_H

#include "nvmf.h"

/* Largest data payload of one H2CData PDU we accept (ICResp MAXH2CDATA). */
#define NVMF_TCP_MAXH2CDATA (128u * 1024)

struct nvmf_tcp;

struct nvmf_tcp_stats {
	uint64_t queues_accepted, queues_closed;
	uint64_t pdus_rx, pdus_tx;
	uint64_t term_sent, term_received;
	uint64_t hdgst_errors, ddgst_errors;
};

int nvmf_tcp_create(struct nvmf_tgt *tgt, struct nvmf_tcp **out);
/* Free the transport; every queue must be gone (nvmf_tcp_nr_queues() 0). */
void nvmf_tcp_destroy(struct nvmf_tcp *t);
/* Bind and listen on @port's address. -errno (e.g. -EADDRINUSE). */
int nvmf_tcp_listen(struct nvmf_tcp *t, struct nvmf_port *port);
void nvmf_tcp_unlisten(struct nvmf_tcp *t, struct nvmf_port *port);
/* Start closing every connection (shutdown). */
void nvmf_tcp_close_all(struct nvmf_tcp *t);
uint32_t nvmf_tcp_nr_queues(const struct nvmf_tcp *t);
/* Queues (connected or connecting) that came in through @port. */
uint32_t nvmf_tcp_port_queues(const struct nvmf_tcp *t,
			      const struct nvmf_port *port);
const struct nvmf_tcp_stats *nvmf_tcp_stats(const struct nvmf_tcp *t);

#endif
