/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NVMe core's queues and requests: the transport's ops, a queue pair,
 * a request; the life of both as transports drive it, the command sets'
 * parsers, in-band authentication's gate (auth.c), the backend calls the
 * command sets share (io_cmd.c). Included by nvmf.h, after the limits and
 * types they take.
 */
#ifndef BLOX_NVMF_REQ_H
#define BLOX_NVMF_REQ_H

/*
 * Core -> transport. One table per transport; a queue points at it.
 */
struct nvmf_transport_ops {
	const char *name;
	/*
	 * Send @req's completion (req->cqe filled) and, for a successful
	 * controller-to-host command, its data (req->buf, req->data_len).
	 * Called exactly once per request that reached the core.
	 */
	void (*queue_response)(struct nvmf_req *req);
	/*
	 * The queue was accepted by a Connect for @size entries (1's based):
	 * allocate its command contexts now. 0 or -errno.
	 */
	int (*install_queue)(struct nvmf_sq *sq, uint32_t size);
	/*
	 * The core wants the queue gone (controller teardown, keep-alive
	 * expiry, Disconnect). The transport closes the connection and calls
	 * nvmf_sq_fini() once nothing of the queue is in flight.
	 */
	void (*queue_close)(struct nvmf_sq *sq);
	/*
	 * Local address the host reached the queue by (for discovery entries
	 * of wildcard listeners). Writes a string into @buf.
	 */
	void (*local_addr)(struct nvmf_sq *sq, char *buf, size_t len);
};

/* A submission/completion queue pair, embedded in a transport queue. */
struct nvmf_sq {
	const struct nvmf_transport_ops *ops;
	struct nvmf_port *port;
	struct nvmf_tgt *tgt;
	struct nvmf_ctrl *ctrl; /* NULL until Connect */
	uint16_t qid;
	uint16_t reactor; /* the transport's event loop serving it (0: the core's) */
	uint32_t size; /* 1's based */
	uint16_t sqhd;
	bool sqhd_disabled;
	bool closing;
	/*
	 * In-band authentication (auth.c): the Connect said it is required;
	 * the queue takes nothing but AUTH_Send/AUTH_Receive until a
	 * transaction succeeded. @auth: the transaction under way, if any.
	 */
	bool auth_required, authenticated;
	struct nvmf_auth *auth;
	struct event *auth_deadline; /* NVMF_AUTH_DEADLINE_MS after the Connect */
	uint64_t cmds, errors;
	/*
	 * Its commands a fault holds (fault_hold.c; a Connect held by a
	 * latency fault of the Fabrics commands too): the core's time, not
	 * the host's, for the transport's deadlines. Reactor 0's.
	 */
	uint32_t held;
	/*
	 * Set by the transport when the queue runs over TLS: the host and
	 * subsystem its PSK identity named. The Connect must name the same.
	 */
	char tls_hostnqn[NVME_NQN_LENGTH];
	char tls_subnqn[NVME_NQN_LENGTH];
};

enum nvmf_data_dir {
	NVMF_DIR_NONE,
	NVMF_DIR_H2C, /* host to controller: data arrives before execute */
	NVMF_DIR_C2H, /* controller to host: data goes out with the response */
};

struct nvmf_req {
	struct nvme_sqe cmd;
	struct nvme_cqe cqe;
	struct nvmf_sq *sq;
	struct nvmf_ns *ns;
	enum nvmf_data_dir dir;
	/* Length of the data buffer the host described (SGL length). */
	uint32_t data_len;
	/* Bytes the command moves, set by the parser; must match data_len. */
	uint32_t transfer_len;
	bool data_in_capsule;
	/*
	 * Transport-owned: at least data_len bytes rounded up to 4 KiB (4 KiB
	 * on the admin queue even without data), given once nvmf_req_init()
	 * passed (in-capsule data: before it).
	 */
	uint8_t *buf;
	/* A second buffer of scratch_len bytes (Compare, log pages) or NULL. */
	uint8_t *scratch;
	uint32_t scratch_len; /* set by the parser: what execute() needs */
	uint16_t error_loc; /* byte offset in the SQE of a bad field */
	/*
	 * The first LBA an error concerns, for the error log, when it is not
	 * the command's SLBA (a DSM range); UINT64_MAX: none.
	 */
	uint64_t error_lba;
	uint16_t (*execute)(struct nvmf_req *req);
	/*
	 * Set by the transport: a Read's data may come back lent by the
	 * backend (blox_io.lent) rather than in @buf; the transport sends it
	 * from there and gives it back (blox_io_lend_end()) when it is
	 * written, or copies it into @buf (blox_io_unlend()) before it waits.
	 */
	bool lend_ok;
	struct blox_io io;
	struct iovec iov;
	uint32_t next; /* multi-step commands: next DSM range or nsid */
	uint64_t start_ns; /* when the command arrived */
	TAILQ_ENTRY(nvmf_req) link; /* AER list */
	TAILQ_ENTRY(nvmf_req) ns_link; /* ns->at_backend while there */
	/* A Preempt and Abort that waits for this command to leave the backend. */
	struct nvmf_req *resv_waiter;
	/* A latency fault's delay (fault_hold.c), added as the command completes; 0: none. */
	uint64_t fault_delay_ns;
	/* Held by a fault (fault_hold.c): until when (0: its fault cleared), what then. */
	uint64_t hold_until;
	uint32_t hold_fault;
	uint16_t held_status; /* a command other than Read and Write: its status, while delayed */
	void (*hold_fn)(struct nvmf_req *req);
	TAILQ_ENTRY(nvmf_req) hold_link; /* tgt->held */
};

/* Result value meaning "completion will come later" from execute(). */
#define NVMF_REQ_ASYNC 0xffff

/* Queue life, called by transports. */
void nvmf_sq_init(struct nvmf_sq *sq, struct nvmf_tgt *tgt,
		  struct nvmf_port *port, const struct nvmf_transport_ops *ops);
/*
 * The transport stopped taking commands on @sq: requests the core parks
 * (Asynchronous Event Requests) are completed now so that the transport
 * can count its in-flight commands down to zero.
 */
void nvmf_sq_quiesce(struct nvmf_sq *sq);
/* The transport's connection is gone and nothing is in flight. */
void nvmf_sq_fini(struct nvmf_sq *sq);

/*
 * Request life, called by transports:
 * 1. fill req->cmd, req->data_len, req->data_in_capsule, req->buf;
 * 2. nvmf_req_init(): parses and validates, returns an NVMe status
 *    (0: go on); sets req->dir and req->transfer_len;
 * 3. once H2C data is in req->buf, nvmf_req_execute();
 * 4. the core calls ops->queue_response() exactly once, from
 *    nvmf_req_complete().
 * A non-zero status from step 2 is completed with nvmf_req_complete()
 * by the transport once any in-capsule data has been drained.
 */
uint16_t nvmf_req_init(struct nvmf_req *req, struct nvmf_sq *sq);
void nvmf_req_execute(struct nvmf_req *req);
void nvmf_req_complete(struct nvmf_req *req, uint16_t status);

/* Parsers per command set; each sets req->execute or returns a status. */
uint16_t nvmf_parse_fabrics(struct nvmf_req *req);
uint16_t nvmf_parse_admin(struct nvmf_req *req);
uint16_t nvmf_parse_discovery(struct nvmf_req *req);
uint16_t nvmf_parse_io(struct nvmf_req *req);
/*
 * In-band authentication (auth.c): AUTH_Send / AUTH_Receive on a
 * connected queue; whether @req may run on its queue as it stands
 * (0, or Authentication Required); the queue's transaction freed.
 */
uint16_t nvmf_parse_auth(struct nvmf_req *req);
uint16_t nvmf_auth_gate(const struct nvmf_req *req);
/* Connect said @sq must authenticate: start its deadline. 0 or -errno. */
int nvmf_auth_sq_start(struct nvmf_sq *sq);
/* The queue goes: its transaction and deadline are freed. */
void nvmf_auth_sq_fini(struct nvmf_sq *sq);
/* Admin commands shared by NVM and discovery controllers. */
uint16_t nvmf_parse_admin_common(struct nvmf_req *req, bool discovery);
uint16_t nvmf_parse_identify(struct nvmf_req *req, bool discovery);
uint16_t nvmf_parse_get_log_page(struct nvmf_req *req, bool discovery);
void nvmf_fill_id_ctrl(struct nvmf_ctrl *ctrl, struct nvme_id_ctrl *id);

/*
 * The NVM command set's backend calls (io_cmd.c), for the other command
 * sets: prepare @req's blox_io, submit it (counted in flight), take it
 * back in its callback, and the NVMe status of its result.
 */
void nvmf_io_prep(struct nvmf_req *req, enum blox_io_op op, uint64_t slba, uint64_t nlb,
		  uint8_t *buf, blox_io_cb cb);
void nvmf_io_go(struct nvmf_req *req);
struct nvmf_req *nvmf_io_done(struct blox_io *io);
uint16_t nvmf_io_status(struct nvmf_req *req, int rc);

/* Copy @len bytes of @src at @off into req->buf, zero-filling the rest. */
uint16_t nvmf_req_copy_out(struct nvmf_req *req, const void *src, size_t len);

#endif
