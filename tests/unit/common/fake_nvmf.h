/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Test double for the transport side of the target core, shared by the
 * core_* and ctrl unit tests: a fake struct nvmf_transport_ops that records
 * what the core hands back, fake queues (struct nvmf_sq) on a port, and
 * commands with their own data buffers. Commands go through the same steps
 * as in tcp.c: nvmf_req_init(), then nvmf_req_complete() on a parse error
 * or nvmf_req_execute(); backend completions are delivered by draining the
 * target's io_cq (the target has no event base unless a test gives one).
 *
 * Built once (fake_nvmf.c) as a library the core and ctrl test programs
 * link. Include after <cmocka.h>.
 */
#ifndef BLOX_TEST_FAKE_NVMF_H
#define BLOX_TEST_FAKE_NVMF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvmf.h"

#define FAKE_HOSTNQN "nqn.2014-08.org.nvmexpress:uuid:11111111-2222-3333-4444-555555555555"
#define FAKE_HOSTNQN2 "nqn.2014-08.org.nvmexpress:uuid:99999999-8888-7777-6666-555555555555"
#define FAKE_SUBNQN "nqn.2026-12.io.blox:unit"
#define FAKE_DISCNQN NVME_DISC_SUBSYS_NAME
#define FAKE_START_NS 1000000000ull /* virtual clock origin: 1 s */

/* Status values as the host sees them (SCT << 8 | SC), DNR = 0x4000. */
#define ST_DNR 0x4000
#define ST_INVALID_OPCODE (ST_DNR | 0x001)
#define ST_INVALID_FIELD (ST_DNR | 0x002)
#define ST_ABORT_SQ_DELETION 0x008
#define ST_INVALID_NS (ST_DNR | 0x00b)
#define ST_CMD_SEQ (ST_DNR | 0x00c)
#define ST_SGL_DATA_LEN (ST_DNR | 0x00f)
#define ST_LBA_RANGE (ST_DNR | 0x080)
#define ST_ASYNC_LIMIT (ST_DNR | 0x105)
#define ST_INVALID_LOG_PAGE (ST_DNR | 0x109)
#define ST_NOT_SAVEABLE (ST_DNR | 0x10d)
#define ST_CONNECT_FORMAT (ST_DNR | 0x180)
#define ST_CONNECT_INVALID_PARAM (ST_DNR | 0x182)
#define ST_CONNECT_INVALID_HOST (ST_DNR | 0x184)
#define ST_COMPARE_FAILED (ST_DNR | 0x285)

/* SQE flags: PSDT 01b (SGL, contiguous metadata), no fusing. */
#define FAKE_PSDT_SGL 0x40

/* CC with EN and the only entry sizes the target takes (64/16 bytes). */
#define FAKE_CC_ENABLE 0x00460001u

struct fake_q {
	struct nvmf_sq sq;
	unsigned responses; /* queue_response() calls */
	unsigned closes; /* queue_close() calls */
	unsigned installs;
	uint32_t installed_size;
	int install_rc; /* what install_queue() returns */
	bool finished; /* nvmf_sq_fini() done */
};

struct fake_cmd {
	struct nvmf_req req;
	struct nvme_cqe cqe; /* copy taken in queue_response() */
	unsigned done; /* queue_response() calls for this command */
	uint32_t rsp_len; /* req->data_len at response time */
	uint8_t *buf, *scratch; /* NVMF_MAX_XFER each */
	struct fake_cmd *next_all;
};

struct fake_tgt {
	struct blox_clock clock;
	struct blox_log log;
	struct nvmf_tgt tgt;
	struct nvmf_port *port;
	struct fake_q *queues[32];
	unsigned nr_queues;
	struct fake_cmd *cmds; /* every command, freed at fini */
	uint16_t next_cid;
};

/* A target on a virtual clock (or @base with a real clock), one port. */
void fake_tgt_init_base(struct fake_tgt *ft,
			struct event_base *base);

void fake_tgt_init(struct fake_tgt *ft);

struct fake_q *fake_q_new_on(struct fake_tgt *ft,
			     struct nvmf_port *port);

struct fake_q *fake_q_new(struct fake_tgt *ft);

/* The transport's side of a queue going away. */
void fake_q_fini(struct fake_q *q);

struct fake_cmd *fake_cmd_new(struct fake_tgt *ft);

/* Every queue closed by the transport, then the target. */
void fake_tgt_fini(struct fake_tgt *ft);

/* Reset @c for a new command: SQE zeroed, fresh cid, no data. */
struct nvme_sqe *fake_prep(struct fake_tgt *ft,
			   struct fake_cmd *c, uint8_t opcode,
			   uint32_t nsid);

/* The host's SGL length (and whether the data came in the capsule). */
void fake_data(struct fake_cmd *c, uint32_t len, bool in_capsule);

/* Run a prepared command the way the transport does; drain backends. */
void fake_submit(struct fake_tgt *ft, struct fake_q *q,
		 struct fake_cmd *c);

uint16_t fake_status(const struct fake_cmd *c);

/* Submit and expect exactly one completion; its status. */
uint16_t fake_exec(struct fake_tgt *ft, struct fake_q *q,
		   struct fake_cmd *c);

/* ---- the core tests' fixtures ---- */

/*
 * A test program's fixture starts with its struct fake_tgt (member ft).
 * FAKE_FIXTURE_NEW(type): a zeroed one, the target initialised (virtual
 * clock, one port); it will not compile unless ft comes first.
 */
void *fake_fixture_new(size_t size);
#define FAKE_FIXTURE_NEW(type)                                                           \
	((type *)fake_fixture_new(sizeof(type) +                                         \
				  0 * sizeof(char[offsetof(type, ft) == 0 ? 1 : -1])))
/* cmocka teardown of such a fixture: fake_tgt_fini(), then free it. */
int fake_fixture_teardown(void **state);

/*
 * A new admin queue on @port (NULL: the target's port), connected to
 * @subnqn as FAKE_HOSTNQN and enabled; *@cntlid (if not NULL) gets its
 * controller ID.
 */
struct fake_q *fake_admin_q(struct fake_tgt *ft, struct nvmf_port *port,
			    const char *subnqn, uint16_t *cntlid);

/* ---- fabrics ---- */

struct fake_connect_args {
	uint16_t qid, sqsize, recfmt, cntlid;
	uint8_t cattr;
	uint32_t kato;
	const char *subnqn, *hostnqn;
	uint8_t hostid[16];
};

void fake_prep_connect(struct fake_tgt *ft, struct fake_cmd *c,
		       const struct fake_connect_args *a);

/* Connect @q; the status; *cntlid (if given) gets the result on success. */
uint16_t fake_connect(struct fake_tgt *ft, struct fake_q *q,
		      const struct fake_connect_args *a,
		      uint64_t *result);

uint16_t fake_prop_set(struct fake_tgt *ft, struct fake_q *q,
		       uint32_t ofst, bool size8, uint64_t val);

uint16_t fake_prop_get(struct fake_tgt *ft, struct fake_q *q,
		       uint32_t ofst, bool size8, uint64_t *val);

/* Admin queue connected to @subnqn as @hostnqn and enabled; its cntlid. */
uint16_t fake_admin_up_as(struct fake_tgt *ft, struct fake_q *q,
			  const char *subnqn, const char *hostnqn,
			  uint32_t kato);

uint16_t fake_admin_up(struct fake_tgt *ft, struct fake_q *q,
		       const char *subnqn);

/* I/O queue @qid of controller @cntlid; the status. */
uint16_t fake_io_connect(struct fake_tgt *ft, struct fake_q *q,
			 const char *subnqn, uint16_t cntlid,
			 uint16_t qid, uint16_t sqsize);

/* ---- admin commands ---- */

/* Identify @cns for @nsid into c->buf (4096 bytes); the status. */
uint16_t fake_identify(struct fake_tgt *ft, struct fake_q *q,
		       struct fake_cmd *c, uint8_t cns,
		       uint32_t nsid);

/* Get Log Page @lid, @len bytes (a multiple of 4) from @offset. */
uint16_t fake_get_log(struct fake_tgt *ft, struct fake_q *q,
		      struct fake_cmd *c, uint8_t lid,
		      uint32_t len, uint64_t offset,
		      uint32_t nsid, bool rae);

/* Set Features @fid with CDW11 @v (no data). */
uint16_t fake_set_feat(struct fake_tgt *ft, struct fake_q *q,
		       struct fake_cmd *c, uint8_t fid,
		       uint32_t v);

/* Get Features @fid with SEL @sel (no data); result in c->cqe.result. */
uint16_t fake_get_feat(struct fake_tgt *ft, struct fake_q *q,
		       struct fake_cmd *c, uint8_t fid,
		       uint8_t sel);

/* ---- configuration ---- */

struct nvmf_subsys *fake_subsys(struct fake_tgt *ft,
				const char *nqn, bool any_host);

struct nvmf_ns *fake_ns(struct fake_tgt *ft,
			struct nvmf_subsys *s, uint32_t nsid,
			const char *backend, uint64_t size,
			uint32_t bs);

#endif
