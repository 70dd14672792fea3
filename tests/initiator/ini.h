/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * blox's own small NVMe/TCP initiator (host), used by the loopback
 * integration tests and, later, by the benchmark client.
 *
 * One struct ini_queue per TCP connection, blocking sockets, every blocking
 * read bounded by a timeout so a test never hangs. The wire format comes
 * from daemon/tcp_pdu.h; NVMe structures and constants from libnvme's
 * <nvme/types.h>.
 *
 * Layers, bottom up:
 *   ini_queue_*   socket + ICReq/ICResp (ini_queue.c, ini_sock.c)
 *   ini_submit/ini_poll/ini_exec   the asynchronous command core with
 *                 in-capsule data, R2T -> H2CData and C2HData (ini_core.c)
 *   ini_raw_*     raw bytes in and out for bad-input tests (ini_sock.c)
 *   ini_connect/ini_prop_*   fabrics commands (ini_fabrics.c)
 *   ini_identify/ini_get_log/...   admin and I/O helpers (ini_cmds.c)
 *   ini_ctrl_*    controller bring-up and teardown (ini_ctrl.c)
 *
 * Error domains: functions returning int give 0 or -errno for transport
 * problems (-ETIMEDOUT, -ECONNRESET when the target closed, -ECONNABORTED
 * after a C2HTermReq (see ini_queue_term()), -EPROTO for a malformed or
 * unexpected PDU, -EBADMSG for a bad digest, -ENOMEM); the NVMe status
 * of a completed command is in its CQE (ini_status()). A transport error
 * is sticky: the queue is out of step with the target and only good for
 * ini_queue_destroy() (or raw-mode reads).
 *
 * Sends block (with the queue timeout); the 4 MiB socket buffers bound
 * how much in-capsule data may be outstanding before a caller polls.
 */
#ifndef BLOX_INI_H
#define BLOX_INI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <nvme/types.h>

#include "tcp_pdu.h"

#define INI_DEFAULT_TIMEOUT_MS 5000
#define INI_DEFAULT_DEPTH 1024
#define INI_ADMIN_INLINE 8192 /* what hosts assume for the admin queue */
#define INI_IO_INLINE 16384 /* bloxd's IOCCSZ minus the SQE */
#define INI_DISC_NQN "nqn.2014-08.org.nvmexpress.discovery"

/* A status field value (no phase bit) from a status code type and code. */
#define INI_SC(sct, sc) ((uint16_t)(((sct) << 8) | (sc)))
/* Status without DNR/More/CRD: just SCT and SC. */
#define INI_SC_CODE(st) ((uint16_t)((st) & 0x7ff))

/* The status field of a CQE (libnvme layout: status << 1 | phase). */
static inline uint16_t ini_status(const struct nvme_cqe *cqe)
{
	return (uint16_t)(cqe->status >> 1);
}

/* A xorshift64 step: test data and I/O offsets (ini_probe, bloxperf). */
static inline uint64_t ini_xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Connection options, fixed at ini_queue_connect(). */
struct ini_opts {
	bool hdgst; /* ask for header digests */
	bool ddgst; /* ask for data digests */
	uint8_t hpda; /* host PDU data alignment, 0's based dwords */
	uint32_t maxr2t; /* 0's based, as in ICReq */
	uint16_t pfv; /* ICReq PFV; 0 unless testing a bad one */
	/* Connect with CATTR bit 2: no SQ flow control (SQHD 0xFFFF). */
	bool disable_sqflow;
	/*
	 * Take a C2HData SUCCESS (no CapsuleResp) with SQ flow control on,
	 * as SPDK's target sends it; by default that is a protocol error.
	 */
	bool accept_success;
	/* Send writes that fit in-capsule; false: always wait for R2T. */
	bool in_capsule;
	/* Largest H2CData payload to send; 0: the target's MAXH2CDATA. */
	uint32_t h2c_max;
	int timeout_ms; /* every blocking wait; 0: INI_DEFAULT_TIMEOUT_MS */
	/*
	 * Wait for the target's PDUs by asking the socket again and again
	 * (as SPDK's initiator polls) instead of sleeping in poll(): the
	 * thread never idles, so a completion is not delayed by the wake-up
	 * of an idle CPU. Plain TCP only (TLS waits as before).
	 */
	bool busy_poll;
	/* Most commands outstanding at once (cid slots); 0: default. */
	uint32_t depth;
	/*
	 * TLS 1.3 with this configured PSK ("NVMeTLSkey-1:..."): the
	 * handshake runs right after the TCP connect (ini_tls.c), with the
	 * identity of @tls_hostnqn and @tls_subnqn (version 1, or 0 with
	 * @tls_identity_v0) and the cipher suites @tls_ciphers (NULL: both).
	 * A refused handshake fails the open with -ECONNREFUSED.
	 */
	const char *tls_psk;
	const char *tls_hostnqn, *tls_subnqn;
	bool tls_identity_v0;
	const char *tls_ciphers;
};

/* What ICResp said. */
struct ini_icresp_info {
	uint16_t pfv;
	uint8_t cpda;
	bool hdgst, ddgst; /* as negotiated (mirrored by the target) */
	uint32_t maxh2cdata;
};

enum ini_dir {
	INI_DIR_NONE,
	INI_DIR_H2C, /* host to controller (write-like) */
	INI_DIR_C2H, /* controller to host (read-like) */
};

/* Per-request flags. */
enum ini_req_flags {
	INI_REQ_INLINE = 1 << 0, /* force in-capsule data */
	INI_REQ_NO_INLINE = 1 << 1, /* force the R2T path */
	INI_REQ_KEEP_SGL = 1 << 2, /* leave sqe.dptr as the caller built it */
};

/*
 * One command. The caller owns the memory and must keep it (and buf)
 * alive until it comes back done from ini_poll()/ini_wait().
 */
struct ini_req {
	struct nvme_sqe sqe; /* cid is assigned by ini_submit() */
	void *buf;
	uint32_t len; /* bytes of buf the command moves */
	enum ini_dir dir;
	unsigned flags; /* enum ini_req_flags */
	void *ctx; /* caller's */
	/* Results. */
	struct nvme_cqe cqe; /* synthesized for a C2HData SUCCESS ending */
	bool done;
	bool success_flag; /* completed by C2HData with SUCCESS, no CQE */
	bool in_capsule; /* data went in the command capsule */
	uint32_t c2h_bytes; /* data received */
	uint32_t h2c_bytes; /* data sent (in-capsule or H2CData) */
	uint32_t nr_r2t; /* R2Ts answered */
	/* Internal: on the queue's done list, not yet handed out. */
	TAILQ_ENTRY(ini_req) link;
	bool listed;
};

struct ini_queue;

/* A received C2HTermReq. */
struct ini_term {
	uint16_t fes;
	uint32_t fei;
	uint8_t data[NVME_TCP_TERM_MAX_DATA]; /* the offending PDU header */
	uint32_t data_len;
};

/* A PDU received in raw mode. */
struct ini_raw_pdu {
	uint8_t hdr[NVME_TCP_MAX_HLEN + NVME_TCP_DIGEST_LEN];
	uint32_t hdr_len; /* bytes in hdr (hlen, plus digest if flagged) */
	uint8_t *data; /* the rest of the PDU (pad, data, digest); malloc'd */
	uint32_t data_len;
};

/* --- queues (ini_queue.c) ------------------------------------------- */

/* Fill @o with defaults: no digests, hpda 0, maxr2t 0, in-capsule on. */
void ini_opts_init(struct ini_opts *o);

/*
 * Open a TCP connection to @addr (IPv4 or IPv6 text) @port without any
 * PDU exchange (raw tests). 0 or -errno.
 */
int ini_queue_open(const char *addr, uint16_t port, const struct ini_opts *o,
		   struct ini_queue **out);
/* Send ICReq and check ICResp (PFV 0, digests mirrored). 0 or -errno. */
int ini_queue_icreq(struct ini_queue *q);
/* ini_queue_open() + ini_queue_icreq(). */
int ini_queue_connect(const char *addr, uint16_t port,
		      const struct ini_opts *o, struct ini_queue **out);
/* Close the socket and free. Outstanding requests are forgotten. */
void ini_queue_destroy(struct ini_queue *q);

const struct ini_icresp_info *ini_queue_icresp(const struct ini_queue *q);
const struct ini_opts *ini_queue_opts(const struct ini_queue *q);
/* The last C2HTermReq received, or NULL. */
const struct ini_term *ini_queue_term(const struct ini_queue *q);
/* SQHD of the last CapsuleResp. */
uint16_t ini_queue_sqhd(const struct ini_queue *q);
/* Largest write sent in-capsule; set by ini_connect() per queue type. */
void ini_queue_set_inline(struct ini_queue *q, uint32_t bytes);
uint32_t ini_queue_inline(const struct ini_queue *q);
/* Commands submitted and not yet completed. */
uint32_t ini_queue_outstanding(const struct ini_queue *q);
int ini_queue_fd(const struct ini_queue *q);
/* The TLS cipher suite in use, or NULL for plain TCP. */
const char *ini_queue_tls_cipher(const struct ini_queue *q);
/* Remember the queue id (set by ini_connect()). */
void ini_queue_set_qid(struct ini_queue *q, uint16_t qid);
uint16_t ini_queue_qid(const struct ini_queue *q);

/* --- command core (ini_core.c) -------------------------------------- */

/*
 * Send @r's command (and in-capsule data) without waiting. Assigns
 * r->sqe.cid and fills dptr unless INI_REQ_KEEP_SGL. -EBUSY when every
 * cid slot is taken. Data is sent only when the target asks (R2T) unless
 * it went in-capsule.
 */
int ini_submit(struct ini_queue *q, struct ini_req *r);
/*
 * Wait up to the queue timeout for completions and return up to @max of
 * them in @done (count >= 1), or -errno. Answers R2Ts and takes C2HData
 * meanwhile.
 */
int ini_poll(struct ini_queue *q, struct ini_req **done, int max);
/* Wait until @r is done (other completions stay for ini_poll()). */
int ini_wait(struct ini_queue *q, struct ini_req *r);
/* ini_submit() + ini_wait(). The status is in r->cqe. */
int ini_exec(struct ini_queue *q, struct ini_req *r);
/* Fill @r for a command: zeroed sqe with @opcode and @nsid, data. */
void ini_req_init(struct ini_req *r, uint8_t opcode, uint32_t nsid,
		  void *buf, uint32_t len, enum ini_dir dir);

/* --- raw mode (ini_sock.c) ------------------------------------------ */

/* Send @len bytes as they are. 0 or -errno. */
int ini_raw_send(struct ini_queue *q, const void *buf, size_t len);
/*
 * Receive the next PDU without interpreting it (beyond hlen/plen to
 * find its end). @timeout_ms < 0: the queue's. -ECONNRESET if the target
 * closed, -ETIMEDOUT, -EPROTO for a plen too small or huge.
 */
int ini_raw_recv(struct ini_queue *q, struct ini_raw_pdu *pdu, int timeout_ms);
void ini_raw_pdu_free(struct ini_raw_pdu *pdu);
/*
 * Wait until the target closes the connection, discarding anything it
 * sends. 0 once closed, -ETIMEDOUT if still open after @timeout_ms.
 */
int ini_wait_closed(struct ini_queue *q, int timeout_ms);
/* Half-close or fully shut the socket (mid-PDU close tests). */
void ini_raw_shutdown(struct ini_queue *q);

/*
 * Build a CapsuleCmd PDU for @sqe with @dlen bytes of in-capsule data as
 * the queue's negotiated digests want, into @out (@cap bytes). Returns
 * the PDU length or -ENOSPC.
 */
int ini_pdu_build_cmd(const struct ini_queue *q, const struct nvme_sqe *sqe,
		      const void *data, uint32_t dlen, uint8_t *out,
		      size_t cap);
/* Same for an H2CData PDU. */
int ini_pdu_build_h2c(const struct ini_queue *q, uint16_t cccid,
		      uint16_t ttag, uint32_t datao, const void *data,
		      uint32_t dlen, bool last, uint8_t *out, size_t cap);

/* --- fabrics (ini_fabrics.c) ---------------------------------------- */

struct ini_connect_args {
	uint16_t qid;
	uint16_t sqsize; /* 0's based */
	const char *subnqn;
	const char *hostnqn;
	uint8_t hostid[16];
	uint16_t cntlid; /* 0xFFFF for a new admin queue */
	uint32_t kato_ms;
	uint8_t cattr; /* extra CATTR bits; disable_sqflow adds 0x04 */
};

/*
 * Fabrics Connect on @q. @cqe gets the completion (status, DW0). On
 * success records the qid and sets the queue's in-capsule size.
 * Returns 0 (look at the status) or -errno.
 */
int ini_connect(struct ini_queue *q, const struct ini_connect_args *a,
		struct nvme_cqe *cqe);
/* Property Get/Set. @size8: 8-byte property. Status returned (>= 0). */
int ini_prop_get(struct ini_queue *q, uint32_t ofst, bool size8,
		 uint64_t *val);
int ini_prop_set(struct ini_queue *q, uint32_t ofst, bool size8,
		 uint64_t val);
/* Fabrics Disconnect of this queue. Status (>= 0) or -errno. */
int ini_disconnect(struct ini_queue *q);

/* --- in-band authentication, DH-HMAC-CHAP (ini_auth.c) -------------- */

/* What the host holds and offers. */
struct ini_auth_opts {
	const char *key; /* DHHC-1 host secret; NULL: none */
	const char *ctrl_key; /* DHHC-1 controller secret: bidirectional */
	uint8_t hash; /* offer only this hash id; 0: SHA-256, -384, -512 */
	int dhgroup; /* offer only this DH group id; -1: null, ffdhe2048..8192 */
};

/* How one authentication went. */
struct ini_auth_result {
	uint8_t hash, dhgid; /* what the controller chose */
	bool bidir;
	uint8_t failure; /* the explanation of a FAILURE1 received; 0: none */
	bool ctrl_rejected; /* the controller's response was wrong: FAILURE2 sent */
};

/*
 * Authenticate queue @q (after a Connect that said so). 0 on success;
 * -ENOKEY without a host secret; -EACCES when the controller sent
 * FAILURE1 (res->failure); -EKEYREJECTED when its response was wrong
 * (FAILURE2 sent); -EPROTO on a message out of step; an NVMe status
 * (> 0) if a command was refused; other -errno from the transport.
 */
int ini_auth(struct ini_queue *q, const char *subnqn, const char *hostnqn,
	     const struct ini_auth_opts *o, struct ini_auth_result *res);
/* Raw AUTH_Send (TL = @len) and AUTH_Receive (AL = @al): status or -errno. */
int ini_auth_send(struct ini_queue *q, const void *msg, uint32_t len);
int ini_auth_recv(struct ini_queue *q, void *buf, uint32_t al);

/* --- admin and I/O helpers (ini_cmds.c); status (>= 0) or -errno ----- */

int ini_identify(struct ini_queue *q, uint8_t cns, uint32_t nsid,
		 uint16_t cntid, void *buf4k);
/* Get Log Page @lid: @len bytes (dword multiple) from byte @offset. */
int ini_get_log(struct ini_queue *q, uint8_t lid, uint32_t nsid,
		uint64_t offset, void *buf, uint32_t len);
int ini_set_features(struct ini_queue *q, uint8_t fid, uint32_t cdw11,
		     uint32_t *result);
int ini_get_features(struct ini_queue *q, uint8_t fid, uint8_t sel,
		     uint32_t *result);
int ini_keep_alive(struct ini_queue *q);

/* Fill @r for an I/O command on @nsid. @nlb is 1's based. */
void ini_req_rw(struct ini_req *r, uint8_t opcode, uint32_t nsid,
		uint64_t slba, uint32_t nlb, void *buf, uint32_t len);
int ini_read(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
	     void *buf, uint32_t len);
int ini_write(struct ini_queue *q, uint32_t nsid, uint64_t slba,
	      uint32_t nlb, const void *buf, uint32_t len, bool fua);
int ini_flush(struct ini_queue *q, uint32_t nsid);
int ini_write_zeroes(struct ini_queue *q, uint32_t nsid, uint64_t slba,
		     uint32_t nlb);
/* Dataset Management, deallocate one range. */
int ini_dsm_deallocate(struct ini_queue *q, uint32_t nsid, uint64_t slba,
		       uint32_t nlb);
int ini_compare(struct ini_queue *q, uint32_t nsid, uint64_t slba,
		uint32_t nlb, const void *buf, uint32_t len);
/* Set Features @fid of namespace @nsid (FFFFFFFFh: all) with CDW11 @v. */
int ini_set_features_ns(struct ini_queue *q, uint8_t fid, uint32_t nsid, uint32_t cdw11,
			uint32_t *result);
/*
 * Reservation Register, Acquire, Release (CDW10 as the spec lays it out:
 * action, IEKEY, RTYPE, CPTPL) with their keys, and Report (@len bytes,
 * extended data structure if @eds) on namespace @nsid.
 */
int ini_resv_register(struct ini_queue *q, uint32_t nsid, uint32_t cdw10, uint64_t crkey,
		      uint64_t nrkey);
int ini_resv_acquire(struct ini_queue *q, uint32_t nsid, uint32_t cdw10, uint64_t crkey,
		     uint64_t prkey);
int ini_resv_release(struct ini_queue *q, uint32_t nsid, uint32_t cdw10, uint64_t crkey);
int ini_resv_report(struct ini_queue *q, uint32_t nsid, bool eds, void *buf, uint32_t len);
/*
 * Zoned namespaces: Zone Management Send (@zsa on the zone at @slba, or
 * every zone it applies to if @all); Report Zones from @slba with filter
 * @filter (Zone Receive Action Specific), Partial Report if @partial, into
 * @len bytes; Zone Append of @nlb blocks to the zone at @zslba, the LBA
 * written in *@lba.
 */
int ini_zone_send(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint8_t zsa, bool all);
int ini_zone_report(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint8_t filter,
		    bool partial, void *buf, uint32_t len);
int ini_zone_append(struct ini_queue *q, uint32_t nsid, uint64_t zslba, uint32_t nlb,
		    const void *buf, uint32_t len, bool fua, uint64_t *lba);
/*
 * Flexible Data Placement: a Write with directive type @dtype (2: Data
 * Placement) and specific @dspec (its Placement Identifier); Get Log Page
 * @lid with Log Specific Identifier @lsi and Field @lsp; I/O Management
 * Receive (@mo 1: Reclaim Unit Handle Status, @len bytes) and Send (@mo 1:
 * Reclaim Unit Handle Update of the @n placement identifiers @pids).
 */
int ini_write_dir(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint32_t nlb,
		  const void *buf, uint32_t len, uint8_t dtype, uint16_t dspec);
int ini_get_log_lsi(struct ini_queue *q, uint8_t lid, uint8_t lsp, uint16_t lsi,
		    void *buf, uint32_t len);
int ini_io_mgmt_recv(struct ini_queue *q, uint32_t nsid, uint8_t mo, void *buf,
		     uint32_t len);
int ini_io_mgmt_send(struct ini_queue *q, uint32_t nsid, uint8_t mo, const uint16_t *pids,
		     uint16_t n);

/* --- controllers (ini_ctrl.c) --------------------------------------- */

struct ini_ctrl_args {
	const char *addr;
	uint16_t port;
	const char *subnqn;
	const char *hostnqn;
	uint8_t hostid[16];
	uint32_t kato_ms;
	uint16_t admin_sqsize; /* 0's based; 0: 31 */
	uint32_t nr_io; /* I/O queues to create */
	uint16_t io_sqsize; /* 0's based; 0: 127 */
	struct ini_opts qopts; /* for every queue */
	/* Authenticate each queue whose Connect asks for it (dhgroup -1: any). */
	struct ini_auth_opts auth;
	/* If not NULL: how the last authentication went (set on failure too). */
	struct ini_auth_result *auth_res;
};

struct ini_ctrl {
	struct ini_queue *admin;
	struct ini_queue **io; /* nr_io entries */
	uint32_t nr_io;
	uint16_t cntlid;
	uint64_t cap;
	uint32_t vs;
	struct nvme_id_ctrl id;
	struct ini_ctrl_args args; /* strings point at the caller's */
	bool auth_required; /* the admin Connect said ATR */
};

/* Fill @a: default host NQN/ID, 1 I/O queue, kato 0, default qopts. */
void ini_ctrl_args_init(struct ini_ctrl_args *a, const char *addr,
			uint16_t port, const char *subnqn);
/*
 * Bring a controller up: admin queue, Connect, CC.EN=1, wait for RDY,
 * Identify Controller, Number of Queues, then the I/O queues. On a
 * command failure returns -EIO with the NVMe status in *@status (if not
 * NULL); other failures -errno.
 */
int ini_ctrl_connect(const struct ini_ctrl_args *a, struct ini_ctrl **out,
		     uint16_t *status);
/* CC.SHN = normal shutdown and wait for CSTS.SHST = complete. */
int ini_ctrl_shutdown(struct ini_ctrl *c);
/* Close every queue and free (no shutdown). */
void ini_ctrl_destroy(struct ini_ctrl *c);
/* Wait for (CSTS & @mask) == @want, polling Property Get. */
int ini_ctrl_wait_csts(struct ini_queue *admin, uint32_t mask, uint32_t want,
		       int timeout_ms);

#endif
