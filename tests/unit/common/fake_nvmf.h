/*
 * Test double for the transport side of the target core, shared by the
 * core_* and ctrl unit tests: a fake struct nvmf_transport_ops that records
 * what the core hands back, fake queues (struct nvmf_sq) on a port, and
 * commands with their own data buffers. Commands go through the same steps
 * as in tcp.c: nvmf_req_init(), then nvmf_req_complete() on a parse error
 * or nvmf_req_execute(); backend completions are delivered by draining the
 * target's io_cq (the target has no event base unless a test gives one).
 *
 * Everything here is static inline so that each test program takes what it
 * uses. Include after <cmocka.h>.
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

static inline void fake_queue_response(struct nvmf_req *req)
{
	struct fake_q *q = container_of(req->sq, struct fake_q, sq);
	struct fake_cmd *c = container_of(req, struct fake_cmd, req);

	q->responses++;
	c->done++;
	c->cqe = req->cqe;
	c->rsp_len = req->data_len;
}

static inline int fake_install_queue(struct nvmf_sq *sq, uint32_t size)
{
	struct fake_q *q = container_of(sq, struct fake_q, sq);

	q->installs++;
	q->installed_size = size;
	return q->install_rc;
}

static inline void fake_queue_close(struct nvmf_sq *sq)
{
	struct fake_q *q = container_of(sq, struct fake_q, sq);

	q->closes++;
}

static inline void fake_local_addr(struct nvmf_sq *sq, char *buf, size_t len)
{
	(void)sq;
	snprintf(buf, len, "%s", "127.0.0.1");
}

static const struct nvmf_transport_ops fake_ops = {
	.name = "fake",
	.queue_response = fake_queue_response,
	.install_queue = fake_install_queue,
	.queue_close = fake_queue_close,
	.local_addr = fake_local_addr,
};

/* A target on a virtual clock (or @base with a real clock), one port. */
static inline void fake_tgt_init_base(struct fake_tgt *ft,
				      struct event_base *base)
{
	memset(ft, 0, sizeof(*ft));
	if (base)
		blox_clock_init_real(&ft->clock);
	else
		blox_clock_init_virtual(&ft->clock, FAKE_START_NS);
	ft->log.level = getenv("BLOX_TEST_LOG") ? BLOX_LOG_DEBUG : -1;
	assert_int_equal(nvmf_tgt_init(&ft->tgt, base, &ft->clock, &ft->log), 0);
	assert_int_equal(nvmf_port_add(&ft->tgt, "127.0.0.1", "4420", false,
				       &ft->port),
			 0);
	ft->next_cid = 1;
}

static inline void fake_tgt_init(struct fake_tgt *ft)
{
	fake_tgt_init_base(ft, NULL);
}

static inline struct fake_q *fake_q_new_on(struct fake_tgt *ft,
					   struct nvmf_port *port)
{
	struct fake_q *q = calloc(1, sizeof(*q));

	assert_non_null(q);
	assert_true(ft->nr_queues < BLOX_ARRAY_SIZE(ft->queues));
	nvmf_sq_init(&q->sq, &ft->tgt, port, &fake_ops);
	ft->queues[ft->nr_queues++] = q;
	return q;
}

static inline struct fake_q *fake_q_new(struct fake_tgt *ft)
{
	return fake_q_new_on(ft, ft->port);
}

/* The transport's side of a queue going away. */
static inline void fake_q_fini(struct fake_q *q)
{
	if (!q->finished)
		nvmf_sq_fini(&q->sq);
	q->finished = true;
}

static inline struct fake_cmd *fake_cmd_new(struct fake_tgt *ft)
{
	struct fake_cmd *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->buf = calloc(1, NVMF_MAX_XFER);
	c->scratch = calloc(1, NVMF_MAX_XFER);
	assert_non_null(c->buf);
	assert_non_null(c->scratch);
	c->next_all = ft->cmds;
	ft->cmds = c;
	return c;
}

static inline void fake_drain(struct fake_tgt *ft)
{
	/* Like the event loop: keep going while completions submit more. */
	for (int i = 0; i < 100000 && !TAILQ_EMPTY(&ft->tgt.io_cq.done); i++)
		blox_io_cq_drain(&ft->tgt.io_cq);
	assert_true(TAILQ_EMPTY(&ft->tgt.io_cq.done));
}

/* Every queue closed by the transport, then the target. */
static inline void fake_tgt_fini(struct fake_tgt *ft)
{
	struct fake_cmd *c;

	fake_drain(ft);
	/* I/O queues first, then admin queues (either order is legal). */
	for (unsigned i = 0; i < ft->nr_queues; i++)
		if (ft->queues[i]->sq.qid != 0)
			fake_q_fini(ft->queues[i]);
	for (unsigned i = 0; i < ft->nr_queues; i++)
		fake_q_fini(ft->queues[i]);
	nvmf_tgt_fini(&ft->tgt);
	for (unsigned i = 0; i < ft->nr_queues; i++)
		free(ft->queues[i]);
	while ((c = ft->cmds)) {
		ft->cmds = c->next_all;
		free(c->buf);
		free(c->scratch);
		free(c);
	}
	memset(ft, 0, sizeof(*ft));
}

/* Reset @c for a new command: SQE zeroed, fresh cid, no data. */
static inline struct nvme_sqe *fake_prep(struct fake_tgt *ft,
					 struct fake_cmd *c, uint8_t opcode,
					 uint32_t nsid)
{
	memset(&c->req, 0, sizeof(c->req));
	memset(&c->cqe, 0xee, sizeof(c->cqe));
	c->done = 0;
	c->req.cmd.opcode = opcode;
	c->req.cmd.flags = FAKE_PSDT_SGL; /* as every fabrics host sends */
	c->req.cmd.cid = ft->next_cid++;
	c->req.cmd.nsid = nsid;
	c->req.buf = c->buf;
	c->req.scratch = c->scratch;
	return &c->req.cmd;
}

/* The host's SGL length (and whether the data came in the capsule). */
static inline void fake_data(struct fake_cmd *c, uint32_t len, bool in_capsule)
{
	c->req.data_len = len;
	c->req.data_in_capsule = in_capsule;
}

/* Run a prepared command the way the transport does; drain backends. */
static inline void fake_submit(struct fake_tgt *ft, struct fake_q *q,
			       struct fake_cmd *c)
{
	uint16_t st = nvmf_req_init(&c->req, &q->sq);

	if (st)
		nvmf_req_complete(&c->req, st);
	else
		nvmf_req_execute(&c->req);
	fake_drain(ft);
}

static inline uint16_t fake_status(const struct fake_cmd *c)
{
	return (uint16_t)(c->cqe.status >> 1);
}

/* Submit and expect exactly one completion; its status. */
static inline uint16_t fake_exec(struct fake_tgt *ft, struct fake_q *q,
				 struct fake_cmd *c)
{
	fake_submit(ft, q, c);
	if (c->done != 1)
		fail_msg("opcode 0x%02x cid %u: %u completions, want 1",
			 c->req.cmd.opcode, c->req.cmd.cid, c->done);
	assert_int_equal(c->cqe.cid, c->req.cmd.cid);
	assert_int_equal(c->cqe.sqid, q->sq.qid);
	return fake_status(c);
}

/* ---- fabrics ---- */

struct fake_connect_args {
	uint16_t qid, sqsize, recfmt, cntlid;
	uint8_t cattr;
	uint32_t kato;
	const char *subnqn, *hostnqn;
	uint8_t hostid[16];
};

static inline void fake_prep_connect(struct fake_tgt *ft, struct fake_cmd *c,
				     const struct fake_connect_args *a)
{
	struct nvme_sqe *cmd = fake_prep(ft, c, nvme_admin_fabrics,
					 nvme_fabrics_type_connect);
	struct nvmf_connect_data *d = (void *)c->buf;

	cmd->cdw10 = a->recfmt | (uint32_t)a->qid << 16;
	cmd->cdw11 = a->sqsize | (uint32_t)a->cattr << 16;
	cmd->cdw12 = a->kato;
	memset(d, 0, sizeof(*d));
	memcpy(d->hostid, a->hostid, 16);
	d->cntlid = a->cntlid;
	snprintf(d->subsysnqn, sizeof(d->subsysnqn), "%s", a->subnqn);
	snprintf(d->hostnqn, sizeof(d->hostnqn), "%s", a->hostnqn);
	fake_data(c, sizeof(*d), true);
}

/* Connect @q; the status; *cntlid (if given) gets the result on success. */
static inline uint16_t fake_connect(struct fake_tgt *ft, struct fake_q *q,
				    const struct fake_connect_args *a,
				    uint64_t *result)
{
	struct fake_cmd *c = fake_cmd_new(ft);
	uint16_t st;

	fake_prep_connect(ft, c, a);
	st = fake_exec(ft, q, c);
	if (result)
		*result = c->cqe.result;
	return st;
}

static inline uint16_t fake_prop_set(struct fake_tgt *ft, struct fake_q *q,
				     uint32_t ofst, bool size8, uint64_t val)
{
	struct fake_cmd *c = fake_cmd_new(ft);
	struct nvme_sqe *cmd = fake_prep(ft, c, nvme_admin_fabrics,
					 nvme_fabrics_type_property_set);

	cmd->cdw10 = size8 ? 1 : 0;
	cmd->cdw11 = ofst;
	cmd->cdw12 = (uint32_t)val;
	cmd->cdw13 = (uint32_t)(val >> 32);
	return fake_exec(ft, q, c);
}

static inline uint16_t fake_prop_get(struct fake_tgt *ft, struct fake_q *q,
				     uint32_t ofst, bool size8, uint64_t *val)
{
	struct fake_cmd *c = fake_cmd_new(ft);
	struct nvme_sqe *cmd = fake_prep(ft, c, nvme_admin_fabrics,
					 nvme_fabrics_type_property_get);
	uint16_t st;

	cmd->cdw10 = size8 ? 1 : 0;
	cmd->cdw11 = ofst;
	st = fake_exec(ft, q, c);
	*val = c->cqe.result;
	return st;
}

/* Admin queue connected to @subnqn as @hostnqn and enabled; its cntlid. */
static inline uint16_t fake_admin_up_as(struct fake_tgt *ft, struct fake_q *q,
					const char *subnqn, const char *hostnqn,
					uint32_t kato)
{
	struct fake_connect_args a = { .qid = 0, .sqsize = 31, .cntlid = 0xffff,
				       .kato = kato, .subnqn = subnqn,
				       .hostnqn = hostnqn };
	uint64_t res = 0;

	assert_int_equal(fake_connect(ft, q, &a, &res), 0);
	assert_int_equal(fake_prop_set(ft, q, NVME_REG_CC, false, FAKE_CC_ENABLE),
			 0);
	assert_non_null(q->sq.ctrl);
	assert_true(nvmf_ctrl_ready(q->sq.ctrl));
	return (uint16_t)res;
}

static inline uint16_t fake_admin_up(struct fake_tgt *ft, struct fake_q *q,
				     const char *subnqn)
{
	return fake_admin_up_as(ft, q, subnqn, FAKE_HOSTNQN, 0);
}

/* I/O queue @qid of controller @cntlid; the status. */
static inline uint16_t fake_io_connect(struct fake_tgt *ft, struct fake_q *q,
				       const char *subnqn, uint16_t cntlid,
				       uint16_t qid, uint16_t sqsize)
{
	struct fake_connect_args a = { .qid = qid, .sqsize = sqsize,
				       .cntlid = cntlid, .subnqn = subnqn,
				       .hostnqn = FAKE_HOSTNQN };

	return fake_connect(ft, q, &a, NULL);
}

/* ---- admin commands ---- */

/* Identify @cns for @nsid into c->buf (4096 bytes); the status. */
static inline uint16_t fake_identify(struct fake_tgt *ft, struct fake_q *q,
				     struct fake_cmd *c, uint8_t cns,
				     uint32_t nsid)
{
	fake_prep(ft, c, nvme_admin_identify, nsid)->cdw10 = cns;
	fake_data(c, 4096, false);
	memset(c->buf, 0xaa, 4096); /* so that zero-filling is visible */
	return fake_exec(ft, q, c);
}

/* Get Log Page @lid, @len bytes (a multiple of 4) from @offset. */
static inline uint16_t fake_get_log(struct fake_tgt *ft, struct fake_q *q,
				    struct fake_cmd *c, uint8_t lid,
				    uint32_t len, uint64_t offset,
				    uint32_t nsid, bool rae)
{
	struct nvme_sqe *cmd = fake_prep(ft, c, nvme_admin_get_log_page, nsid);
	uint32_t numd = len / 4 - 1;

	cmd->cdw10 = lid | (rae ? 1u << 15 : 0) | (numd & 0xffff) << 16;
	cmd->cdw11 = numd >> 16;
	cmd->cdw12 = (uint32_t)offset;
	cmd->cdw13 = (uint32_t)(offset >> 32);
	fake_data(c, len, false);
	memset(c->buf, 0xaa, BLOX_MIN(len, NVMF_MAX_XFER));
	return fake_exec(ft, q, c);
}

/* Set Features @fid with CDW11 @v (no data). */
static inline uint16_t fake_set_feat(struct fake_tgt *ft, struct fake_q *q,
				     struct fake_cmd *c, uint8_t fid,
				     uint32_t v)
{
	fake_prep(ft, c, nvme_admin_set_features, 0)->cdw10 = fid;
	c->req.cmd.cdw11 = v;
	return fake_exec(ft, q, c);
}

/* Get Features @fid with SEL @sel (no data); result in c->cqe.result. */
static inline uint16_t fake_get_feat(struct fake_tgt *ft, struct fake_q *q,
				     struct fake_cmd *c, uint8_t fid,
				     uint8_t sel)
{
	fake_prep(ft, c, nvme_admin_get_features, 0)->cdw10 =
		fid | (uint32_t)sel << 8;
	return fake_exec(ft, q, c);
}

/* ---- configuration ---- */

static inline struct nvmf_subsys *fake_subsys(struct fake_tgt *ft,
					      const char *nqn, bool any_host)
{
	struct nvmf_subsys *s;

	assert_int_equal(nvmf_subsys_create(&ft->tgt, nqn, &s), 0);
	s->allow_any_host = any_host;
	return s;
}

static inline struct nvmf_ns *fake_ns(struct fake_tgt *ft,
				      struct nvmf_subsys *s, uint32_t nsid,
				      const char *backend, uint64_t size,
				      uint32_t bs)
{
	struct blox_bdev_params p = { .backend = backend, .size = size,
				      .block_size = bs };
	struct blox_bdev *b;
	struct nvmf_ns *ns;

	assert_int_equal(blox_bdev_create(&p, &ft->tgt.io_cq, &b), 0);
	assert_int_equal(nvmf_ns_add(s, nsid, b, NULL, &ns), 0);
	return ns;
}

#endif
