/* SPDX-License-Identifier: BSD-3-Clause */
/* The NVMe core as the command and log page targets drive it (fuzz_nvmf.h). */
#include "fuzz_nvmf.h"


struct fn_cmd {
	struct nvmf_req req;
	struct fn_q *q;
	unsigned done; /* completions */
	struct fn_cmd *next;
};

struct fn_q {
	struct nvmf_sq sq;
	bool closed; /* the core asked for it to go */
	unsigned parked; /* commands the core holds */
};

struct fn_env {
	struct blox_clock clock;
	struct blox_log log;
	struct nvmf_tgt tgt;
	struct nvmf_port *port;
	struct fn_q *q[FN_NR_QUEUES];
	struct fn_cmd *free, *parked;
	uint16_t cid;
};

/* ---- the transport's side ---- */

static void fn_queue_response(struct nvmf_req *req)
{
	struct fn_cmd *c = container_of(req, struct fn_cmd, req);

	c->done++;
	FUZZ_CHECK(c->done == 1, "opcode 0x%02x cid %u completed %u times", req->cmd.opcode,
		   req->cmd.cid, c->done);
	FUZZ_CHECK(req->cqe.cid == req->cmd.cid && req->cqe.sqid == c->q->sq.qid,
		   "completion cid %u sqid %u for cid %u qid %u", req->cqe.cid,
		   req->cqe.sqid, req->cmd.cid, c->q->sq.qid);
	if (req->dir == NVMF_DIR_C2H && !(req->cqe.status >> 1))
		FUZZ_CHECK(req->data_len <= NVMF_MAX_XFER,
			   "opcode 0x%02x sends %u bytes (buffer %u)", req->cmd.opcode,
			   req->data_len, NVMF_MAX_XFER);
}

static int fn_install_queue(struct nvmf_sq *sq, uint32_t size)
{
	(void)sq;
	/* tcp.c allocates size + slack contexts: a size it could not is a bug. */
	FUZZ_CHECK(size >= 1 && size <= NVMF_MQES + 1, "queue of %u entries", size);
	return 0;
}

static void fn_queue_close(struct nvmf_sq *sq)
{
	container_of(sq, struct fn_q, sq)->closed = true;
}

static void fn_local_addr(struct nvmf_sq *sq, char *buf, size_t len)
{
	(void)sq;
	snprintf(buf, len, "127.0.0.1");
}

static const struct nvmf_transport_ops fn_ops = {
	.name = "fuzz",
	.queue_response = fn_queue_response,
	.install_queue = fn_install_queue,
	.queue_close = fn_queue_close,
	.local_addr = fn_local_addr,
};

/* ---- environment ---- */

static struct fn_q *fn_q_new(struct fn_env *e)
{
	struct fn_q *q = calloc(1, sizeof(*q));

	FUZZ_CHECK(q, "out of memory");
	nvmf_sq_init(&q->sq, &e->tgt, e->port, &fn_ops);
	return q;
}

static void fn_drain(struct fn_env *e)
{
	/* Like the event loop: keep going while completions submit more. */
	for (int i = 0; i < 100000 && !TAILQ_EMPTY(&e->tgt.io_cq.done); i++)
		blox_io_cq_drain(&e->tgt.io_cq);
	FUZZ_CHECK(TAILQ_EMPTY(&e->tgt.io_cq.done), "completions keep coming");
}

/* Commands the core completed since they were parked go back to the pool. */
static void fn_sweep(struct fn_env *e)
{
	struct fn_cmd **pp = &e->parked, *c;

	while ((c = *pp)) {
		if (!c->done) {
			pp = &c->next;
			continue;
		}
		*pp = c->next;
		c->q->parked--;
		c->next = e->free;
		e->free = c;
	}
}

/* The end of a queue's connection: the core's parked commands, then fini. */
static void fn_q_end(struct fn_env *e, struct fn_q *q)
{
	nvmf_sq_quiesce(&q->sq);
	fn_drain(e);
	fn_sweep(e);
	FUZZ_CHECK(q->parked == 0, "%u commands still held after the queue quiesced",
		   q->parked);
	nvmf_sq_fini(&q->sq);
	free(q);
}

/* Queues the core closed are gone: a new unconnected one takes the place. */
static void fn_reap(struct fn_env *e)
{
	/* I/O queues before admin queues, as the connections would end. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < FN_NR_QUEUES; i++) {
			struct fn_q *q = e->q[i];

			if (!q->closed || (pass == 0 && q->sq.qid == 0))
				continue;
			fn_q_end(e, q);
			e->q[i] = fn_q_new(e);
		}
}

static struct fn_cmd *fn_cmd_get(struct fn_env *e)
{
	struct fn_cmd *c = e->free;

	if (c) {
		e->free = c->next;
	} else {
		c = calloc(1, sizeof(*c));
		FUZZ_CHECK(c, "out of memory");
		c->req.buf = malloc(NVMF_MAX_XFER);
		c->req.scratch = malloc(NVMF_MAX_XFER);
		FUZZ_CHECK(c->req.buf && c->req.scratch, "out of memory");
	}
	return c;
}

const struct nvmf_sq *fn_sq(const struct fn_env *e, enum fn_queue q)
{
	return &e->q[q]->sq;
}

void fn_sqe(struct nvme_sqe *sqe, uint8_t opcode, uint32_t nsid, uint32_t len)
{
	struct nvme_sgl_desc sgl = {
		.length = len,
		.type = NVME_SGL_TRANSPORT_DATA_BLOCK << 4 | NVME_SGL_SUB_TRANSPORT,
	};

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = opcode;
	sqe->flags = 0x40; /* PSDT: SGL */
	sqe->nsid = nsid;
	memcpy(sqe->dptr, &sgl, sizeof(sgl));
}

/* @n bytes of data into @buf: what the host gave, zeros beyond. */
static void fill(uint8_t *buf, uint32_t n, const uint8_t *data, size_t len)
{
	size_t take = BLOX_MIN(len, (size_t)n);

	if (take)
		memcpy(buf, data, take);
	memset(buf + take, 0, n - take);
}

int fn_submit(struct fn_env *e, enum fn_queue qi, const struct nvme_sqe *sqe, bool in_capsule,
	      const uint8_t *data, size_t len, const uint8_t **out, uint32_t *out_len)
{
	struct fn_q *q = e->q[qi];
	struct fn_cmd *c;
	struct nvmf_req *req;
	struct nvme_sgl_desc sgl;
	uint32_t max_inline = q->sq.qid ? NVMF_IO_INLINE : NVMF_ADMIN_INLINE;
	uint16_t st;
	int ret;

	if (q->sq.closing)
		return -1; /* tcp.c reads nothing more of it */
	memcpy(&sgl, sqe->dptr, sizeof(sgl));
	/* In-capsule data past the limit: tcp.c ends the connection (fatal). */
	if (in_capsule && (sgl.length == 0 || sgl.length > max_inline))
		in_capsule = false;
	c = fn_cmd_get(e);
	c->q = q;
	c->done = 0;
	req = &c->req;
	/* What tcp_cmd_get() and the receive side set; the rest is as left. */
	req->cmd = *sqe;
	req->data_len = sgl.length;
	req->data_in_capsule = in_capsule;
	if (in_capsule)
		fill(req->buf, sgl.length, data, len);
	st = nvmf_req_init(req, &q->sq);
	if (st) {
		nvmf_req_complete(req, st);
	} else {
		if (req->dir != NVMF_DIR_NONE)
			FUZZ_CHECK(req->data_len <= NVMF_MAX_XFER &&
					   req->transfer_len <= NVMF_MAX_XFER,
				   "opcode 0x%02x accepted with %u bytes (transfer %u, buffer %u)",
				   sqe->opcode, req->data_len, req->transfer_len,
				   NVMF_MAX_XFER);
		if (req->dir == NVMF_DIR_H2C && !in_capsule) {
			/* R2Ts for the SGL length, then the data arrives. */
			fill(req->buf, req->data_len, data, len);
		}
		nvmf_req_execute(req);
	}
	fn_drain(e);
	if (c->done) {
		ret = (c->req.cqe.status >> 1) & 0x7fff;
		if (out)
			*out = req->buf;
		if (out_len)
			*out_len = req->dir == NVMF_DIR_C2H ? req->data_len : 0;
		c->next = e->free;
		e->free = c;
	} else {
		ret = -1;
		q->parked++;
		c->next = e->parked;
		e->parked = c;
	}
	if (e->log.level >= BLOX_LOG_DEBUG)
		fprintf(stderr, "fuzz: queue %d opcode 0x%02x len %u: status 0x%x\n", qi,
			sqe->opcode, sgl.length, ret);
	fn_sweep(e);
	fn_reap(e);
	return ret;
}

int fn_connect(struct fn_env *e, enum fn_queue qi, const char *subnqn, uint16_t qid,
	       uint16_t cntlid, uint64_t *result)
{
	struct nvmf_connect_data d = { .cntlid = cntlid };
	struct nvme_sqe sqe;
	int st;

	snprintf(d.subsysnqn, sizeof(d.subsysnqn), "%s", subnqn);
	snprintf(d.hostnqn, sizeof(d.hostnqn), "%s", FN_HOSTNQN);
	fn_sqe(&sqe, nvme_admin_fabrics, nvme_fabrics_type_connect, sizeof(d));
	sqe.cdw10 = (uint32_t)qid << 16;
	sqe.cdw11 = qid ? 127 : NVMF_ADMIN_MAX_SQSIZE;
	st = fn_submit(e, qi, &sqe, true, (const uint8_t *)&d, sizeof(d), NULL, NULL);
	/* A completed context goes to the head of the free list. */
	if (result && st == 0)
		*result = e->free->req.cqe.result;
	return st;
}

static void connect(struct fn_env *e, enum fn_queue qi, const char *subnqn, uint16_t qid,
		    uint16_t cntlid, uint64_t *result)
{
	int st = fn_connect(e, qi, subnqn, qid, cntlid, result);

	FUZZ_CHECK(st == 0, "connect %s qid %u: status 0x%x", subnqn, qid, st);
}

static void enable(struct fn_env *e, enum fn_queue qi)
{
	struct nvme_sqe sqe;

	fn_sqe(&sqe, nvme_admin_fabrics, nvme_fabrics_type_property_set, 0);
	sqe.cdw11 = NVME_REG_CC;
	sqe.cdw12 = 0x00460001u; /* EN, IOSQES 6, IOCQES 4 */
	FUZZ_CHECK(fn_submit(e, qi, &sqe, false, NULL, 0, NULL, NULL) == 0, "CC.EN");
}

static void add_ram_ns(struct fn_env *e, struct nvmf_subsys *s, uint32_t nsid,
		       uint32_t block_size)
{
	struct blox_bdev_params p = { .backend = "ram",
				      .size = 1u << 20,
				      .block_size = block_size,
				      .clock = &e->clock,
				      .log = &e->log };
	struct blox_bdev *b;

	FUZZ_CHECK(blox_bdev_create(&p, &e->tgt.io_cq, &b) == 0, "ram bdev");
	FUZZ_CHECK(nvmf_ns_add(s, nsid, b, NULL, NULL) == 0, "ns %u", nsid);
}

struct fn_env *fn_env_new(void)
{
	return fn_env_new_auth(NULL, NULL);
}

struct fn_env *fn_env_new_auth(const char *key, const char *ctrl_key)
{
	struct fn_env *e = calloc(1, sizeof(*e));
	struct nvmf_subsys *s;
	uint64_t cntlid = 0;
	const char *why = NULL;

	FUZZ_CHECK(e, "out of memory");
	blox_clock_init_virtual(&e->clock, 1000000000ull);
	e->log.level = getenv("BLOX_FUZZ_LOG") ? BLOX_LOG_DEBUG : -1;
	FUZZ_CHECK(nvmf_tgt_init(&e->tgt, NULL, &e->clock, &e->log) == 0, "tgt");
	/* The contexts' buffers hold NVMF_MAX_XFER: the largest transfer. */
	e->tgt.lim.mdts_kb = NVMF_MAX_XFER / 1024;
	FUZZ_CHECK(nvmf_port_add(&e->tgt, "127.0.0.1", "4420", false, &e->port) == 0, "port");
	FUZZ_CHECK(nvmf_subsys_create(&e->tgt, FN_SUBNQN, &s) == 0, "subsystem");
	s->allow_any_host = !key;
	if (key) {
		FUZZ_CHECK(nvmf_subsys_add_host(s, FN_HOSTNQN) == 0, "host");
		FUZZ_CHECK(nvmf_host_set_keys(nvmf_subsys_find_host(s, FN_HOSTNQN), key,
					      ctrl_key, &why) == 0,
			   "keys: %s", why);
	}
	add_ram_ns(e, s, 1, 512);
	add_ram_ns(e, s, 2, 4096);
	for (int i = 0; i < FN_NR_QUEUES; i++)
		e->q[i] = fn_q_new(e);
	connect(e, FN_ADMIN, FN_SUBNQN, 0, 0xffff, &cntlid);
	/* A host with a secret authenticates first: CC.EN is the fuzzer's to set. */
	if (!key)
		enable(e, FN_ADMIN);
	FUZZ_CHECK(!(cntlid & NVME_CONNECT_AUTHREQ_ATR) == !key,
		   "Connect result 0x%llx (ATR wanted: %d)", (unsigned long long)cntlid, !!key);
	if (!key)
		connect(e, FN_IO, FN_SUBNQN, 1, (uint16_t)cntlid, NULL);
	connect(e, FN_DISC, NVME_DISC_SUBSYS_NAME, 0, 0xffff, NULL);
	enable(e, FN_DISC);
	return e;
}

void fn_env_free(struct fn_env *e)
{
	struct fn_cmd *c;

	fn_drain(e);
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < FN_NR_QUEUES; i++)
			if (e->q[i] && (pass == 1 || e->q[i]->sq.qid != 0)) {
				e->q[i]->sq.closing = true;
				fn_q_end(e, e->q[i]);
				e->q[i] = NULL;
			}
	FUZZ_CHECK(!e->parked, "commands held by the core after every queue ended");
	nvmf_tgt_fini(&e->tgt);
	while ((c = e->free)) {
		e->free = c->next;
		free(c->req.buf);
		free(c->req.scratch);
		free(c);
	}
	free(e);
}
