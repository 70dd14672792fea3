/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NVMe core as the command and log page targets drive it: a target
 * (virtual clock, no event loop) with one NVM subsystem of two RAM
 * namespaces (512 B and 4 KiB blocks) and the discovery subsystem, and
 * queues the way tcp.c hands them to the core (nvmf_sq_init, Connect,
 * nvmf_req_init, nvmf_req_execute, the completions). Commands go in as
 * the transport gives them: the SQE as received, the SGL length as the
 * data length, in-capsule data or data after an R2T. Checked on each:
 * one completion per command (none yet for one the core parks: AERs),
 * never more; a transfer the core accepts fits the buffers; data sent
 * back fits the transfer.
 */
#ifndef BLOX_FUZZ_NVMF_H
#define BLOX_FUZZ_NVMF_H

#include "fuzz_util.h"
#include "nvmf.h"

#define FN_SUBNQN "nqn.2026-12.io.blox:fuzz"
#define FN_HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555"

/* The queues of an environment. */
enum fn_queue {
	FN_ADMIN, /* NVM subsystem's admin queue, connected and enabled */
	FN_IO, /* its I/O queue 1 */
	FN_DISC, /* a discovery controller's admin queue, connected */
	FN_RAW, /* a queue nothing was sent on yet: Connect it yourself */
	FN_NR_QUEUES,
};

struct fn_env;

/* A fresh environment, queues connected as said above. */
struct fn_env *fn_env_new(void);
/*
 * The same with the host on the subsystem's list, with DH-HMAC-CHAP
 * secrets @key and @ctrl_key (DHHC-1; @ctrl_key may be NULL): the admin
 * Connect says it must authenticate (ATR); the admin queue is not enabled
 * and FN_IO not connected (both need the authentication first).
 */
struct fn_env *fn_env_new_auth(const char *key, const char *ctrl_key);
/* Close every queue as the transport does when connections go; free. */
void fn_env_free(struct fn_env *e);

/*
 * Submit @sqe on queue @q. @in_capsule: the data comes with the command
 * (else, for a host-to-controller command, after the core asked for it);
 * the data is @data (@len bytes, zero-filled to the length). The status
 * of its completion, or -1 when the core keeps it for later (or the
 * queue is gone and the command was not sent). @out/@out_len (may be
 * NULL): the data the completion carries.
 */
int fn_submit(struct fn_env *e, enum fn_queue q, const struct nvme_sqe *sqe, bool in_capsule,
	      const uint8_t *data, size_t len, const uint8_t **out, uint32_t *out_len);

/* The core's queue behind @q (what it says of itself: connected, authenticated). */
const struct nvmf_sq *fn_sq(const struct fn_env *e, enum fn_queue q);

/*
 * Connect queue @q (@qid, to controller @cntlid) of FN_HOSTNQN to @subnqn:
 * the status; the completion's result in *@result when it is 0.
 */
int fn_connect(struct fn_env *e, enum fn_queue q, const char *subnqn, uint16_t qid,
	       uint16_t cntlid, uint64_t *result);

/* An SQE as a fabrics host sends it: PSDT SGL, a transport SGL of @len bytes. */
void fn_sqe(struct nvme_sqe *sqe, uint8_t opcode, uint32_t nsid, uint32_t len);

#endif
