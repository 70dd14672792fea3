/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Faults the core carries out (fault_hold.c), for core.c, io_cmd.c and
 * admin_cmd.c.
 */
#ifndef NVMF_FAULT_HOLD_H
#define NVMF_FAULT_HOLD_H

#include "nvmf.h"

/*
 * Hold @req until @until_ns on the target's clock (0: until fault
 * @fault_id is cleared, or its queue ends), then call @fn with it. A
 * queue that ends completes what it held with Command Aborted due to SQ
 * Deletion instead.
 */
void nvmf_req_hold(struct nvmf_req *req, uint64_t until_ns, uint32_t fault_id,
		   void (*fn)(struct nvmf_req *req));

/*
 * An I/O command about to execute: a queue stall holds it (true: held,
 * it runs through @run when the stall ends); a host-drop fault may fire
 * on it (the host's controllers drop once the loop comes back).
 */
bool nvmf_fault_io_start(struct nvmf_req *req, void (*run)(struct nvmf_req *req));

/*
 * An admin command about to execute (not a Fabrics command, not an
 * Asynchronous Event Request): a latency fault of the admin queue
 * (--op admin) holds it for the delay it draws (true: held, it runs
 * through @run then). The host sees the command that much later.
 */
bool nvmf_fault_admin_start(struct nvmf_req *req, void (*run)(struct nvmf_req *req));

/*
 * A Fabrics command about to execute (on any queue, a Connect too): a
 * latency fault of the Fabrics commands (--op fabrics) holds it for the
 * delay it draws (true: held, it runs through @run then).
 */
bool nvmf_fault_fabrics_start(struct nvmf_req *req, void (*run)(struct nvmf_req *req));

/*
 * bloxd stops: the host drops a fault fired for that the loop did not
 * come back to carry out are forgotten (their timers and memory freed).
 */
void nvmf_fault_drops_free(struct nvmf_tgt *tgt);

/*
 * An I/O command on @req's namespace about to go to the backend, @op one
 * of BLOX_FAULT_OP_*: its latency fault's delay (req->fault_delay_ns).
 */
void nvmf_fault_latency(struct nvmf_req *req, unsigned op);

/* A Keep Alive: true when a ka-ignore fault holds it (never answered while it lasts). */
bool nvmf_fault_keep_alive(struct nvmf_req *req);

/*
 * @req ends with @st: at once, or after the delay of the latency fault
 * nvmf_fault_latency() matched for it (Read and Write count theirs in
 * their latency themselves; this is for the others).
 */
void nvmf_req_complete_late(struct nvmf_req *req, uint16_t st);

#endif
