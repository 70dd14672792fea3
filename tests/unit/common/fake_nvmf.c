/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The fake transport of the core tests (see fake_nvmf.h): the transport
 * ops that record what the core hands back, queues, commands, and the
 * fabrics and admin commands the tests send.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_nvmf.h"

/* ---- the transport ops ---- */

static void fake_queue_response(struct nvmf_req *req)
{
	struct fake_q *q = container_of(req->sq, struct fake_q, sq);
	struct fake_cmd *c = container_of(req, struct fake_cmd, req);

	q->responses++;
	c->done++;
	c->cqe = req->cqe;
	c->rsp_len = req->data_len;
}

static int fake_install_queue(struct nvmf_sq *sq, uint32_t size)
{
	struct fake_q *q = container_of(sq, struct fake_q, sq);

	q->installs++;
	q->installed_size = size;
	return q->install_rc;
}

static void fake_queue_close(struct nvmf_sq *sq)
{
	struct fake_q *q = container_of(sq, struct fake_q, sq);

	q->closes++;
}

static void fake_local_addr(struct nvmf_sq *sq, char *buf, size_t len)
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

/* ---- target, queues, commands ---- */

void fake_tgt_init_base(struct fake_tgt *ft,
			struct event_base *base)
{
	memset(ft, 0, sizeof(*ft));
	if (base)
		blox_clock_init_real(&ft->clock);
	else
		blox_clock_init_virtual(&ft->clock, FAKE_START_NS);
	ft->log.level = getenv("BLOX_TEST_LOG") ? BLOX_LOG_DEBUG : -1;
	assert_int_equal(nvmf_tgt_init(&ft->tgt, base, &ft->clock, &ft->log), 0);
	/*
	 * The core's tests were written for a 128 KiB MDTS and any KATO;
	 * tests of those limits set their own.
	 */
	ft->tgt.lim.mdts_kb = 128;
	ft->tgt.lim.min_kato_ms = 0;
	assert_int_equal(nvmf_port_add(&ft->tgt, "127.0.0.1", "4420", false,
				       &ft->port),
			 0);
	ft->next_cid = 1;
}

void fake_tgt_init(struct fake_tgt *ft)
{
	fake_tgt_init_base(ft, NULL);
}

struct fake_q *fake_q_new_on(struct fake_tgt *ft,
			     struct nvmf_port *port)
{
	struct fake_q *q = calloc(1, sizeof(*q));

	assert_non_null(q);
	assert_true(ft->nr_queues < BLOX_ARRAY_SIZE(ft->queues));
	nvmf_sq_init(&q->sq, &ft->tgt, port, &fake_ops);
	ft->queues[ft->nr_queues++] = q;
	return q;
}

struct fake_q *fake_q_new(struct fake_tgt *ft)
{
	return fake_q_new_on(ft, ft->port);
}

void fake_q_fini(struct fake_q *q)
{
	if (!q->finished)
		nvmf_sq_fini(&q->sq);
	q->finished = true;
}

struct fake_cmd *fake_cmd_new(struct fake_tgt *ft)
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

static void fake_drain(struct fake_tgt *ft)
{
	/* Like the event loop: keep going while completions submit more. */
	for (int i = 0; i < 100000 && !TAILQ_EMPTY(&ft->tgt.io_cq.done); i++)
		blox_io_cq_drain(&ft->tgt.io_cq);
	assert_true(TAILQ_EMPTY(&ft->tgt.io_cq.done));
}

void fake_tgt_fini(struct fake_tgt *ft)
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

struct nvme_sqe *fake_prep(struct fake_tgt *ft,
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

void fake_data(struct fake_cmd *c, uint32_t len, bool in_capsule)
{
	c->req.data_len = len;
	c->req.data_in_capsule = in_capsule;
}

void fake_submit(struct fake_tgt *ft, struct fake_q *q,
		 struct fake_cmd *c)
{
	uint16_t st = nvmf_req_init(&c->req, &q->sq);

	if (st)
		nvmf_req_complete(&c->req, st);
	else
		nvmf_req_execute(&c->req);
	fake_drain(ft);
}

uint16_t fake_status(const struct fake_cmd *c)
{
	return (uint16_t)(c->cqe.status >> 1);
}

uint16_t fake_exec(struct fake_tgt *ft, struct fake_q *q,
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

/* ---- the core tests' fixtures ---- */

void *fake_fixture_new(size_t size)
{
	struct fake_tgt *ft = calloc(1, size);

	assert_non_null(ft);
	fake_tgt_init(ft);
	return ft;
}

int fake_fixture_teardown(void **state)
{
	struct fake_tgt *ft = *state;

	fake_tgt_fini(ft);
	free(ft);
	return 0;
}

struct fake_q *fake_admin_q(struct fake_tgt *ft, struct nvmf_port *port,
			    const char *subnqn, uint16_t *cntlid)
{
	struct fake_q *q = fake_q_new_on(ft, port ? port : ft->port);
	uint16_t id = fake_admin_up(ft, q, subnqn);

	if (cntlid)
		*cntlid = id;
	return q;
}

/* ---- fabrics ---- */

void fake_prep_connect(struct fake_tgt *ft, struct fake_cmd *c,
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

uint16_t fake_connect(struct fake_tgt *ft, struct fake_q *q,
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

uint16_t fake_prop_set(struct fake_tgt *ft, struct fake_q *q,
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

uint16_t fake_prop_get(struct fake_tgt *ft, struct fake_q *q,
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

uint16_t fake_admin_up_as(struct fake_tgt *ft, struct fake_q *q,
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

uint16_t fake_admin_up(struct fake_tgt *ft, struct fake_q *q,
		       const char *subnqn)
{
	return fake_admin_up_as(ft, q, subnqn, FAKE_HOSTNQN, 0);
}

uint16_t fake_io_connect(struct fake_tgt *ft, struct fake_q *q,
			 const char *subnqn, uint16_t cntlid,
			 uint16_t qid, uint16_t sqsize)
{
	struct fake_connect_args a = { .qid = qid, .sqsize = sqsize,
				       .cntlid = cntlid, .subnqn = subnqn,
				       .hostnqn = FAKE_HOSTNQN };

	return fake_connect(ft, q, &a, NULL);
}

/* ---- admin commands ---- */

uint16_t fake_identify(struct fake_tgt *ft, struct fake_q *q,
		       struct fake_cmd *c, uint8_t cns,
		       uint32_t nsid)
{
	fake_prep(ft, c, nvme_admin_identify, nsid)->cdw10 = cns;
	fake_data(c, 4096, false);
	memset(c->buf, 0xaa, 4096); /* so that zero-filling is visible */
	return fake_exec(ft, q, c);
}

uint16_t fake_get_log(struct fake_tgt *ft, struct fake_q *q,
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

uint16_t fake_set_feat(struct fake_tgt *ft, struct fake_q *q,
		       struct fake_cmd *c, uint8_t fid,
		       uint32_t v)
{
	fake_prep(ft, c, nvme_admin_set_features, 0)->cdw10 = fid;
	c->req.cmd.cdw11 = v;
	return fake_exec(ft, q, c);
}

uint16_t fake_get_feat(struct fake_tgt *ft, struct fake_q *q,
		       struct fake_cmd *c, uint8_t fid,
		       uint8_t sel)
{
	fake_prep(ft, c, nvme_admin_get_features, 0)->cdw10 =
		fid | (uint32_t)sel << 8;
	return fake_exec(ft, q, c);
}

/* ---- configuration ---- */

struct nvmf_subsys *fake_subsys(struct fake_tgt *ft,
				const char *nqn, bool any_host)
{
	struct nvmf_subsys *s;

	assert_int_equal(nvmf_subsys_create(&ft->tgt, nqn, &s), 0);
	s->allow_any_host = any_host;
	return s;
}

struct nvmf_ns *fake_ns(struct fake_tgt *ft,
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
