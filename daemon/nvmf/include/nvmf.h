/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NVMe-oF target core: every object the target knows (target, port,
 * subsystem, namespace, controller, queue, request) and the functions that
 * move a request through its life. Transports (tcp.c) plug in through
 * struct nvmf_transport_ops; the core never knows which one it talks to.
 *
 * Error domains: functions returning int use 0 / -errno; functions
 * returning uint16_t return an NVMe status field (SCT << 8 | SC, plus
 * NVME_SC_DNR) as libnvme's <nvme/types.h> defines it.
 */
#ifndef BLOX_NVMF_H
#define BLOX_NVMF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "bdev.h"
#include "blox_clock.h"
#include "blox_fault.h"
#include "blox_hist.h"
#include "blox_log.h"
#include "blox_queue.h"
#include "blox_util.h"
#include "dhchap.h"
#include "nvme_spec.h"

struct event_base;
struct event;

/* Status values with their status code type (libnvme's SC are bare). */
#define NVMF_SC_CMD(sc) ((NVME_SCT_CMD_SPECIFIC << NVME_SCT_SHIFT) | (sc))
#define NVMF_SC_MEDIA(sc) ((NVME_SCT_MEDIA << NVME_SCT_SHIFT) | (sc))
/* Generic "Transient Transport Error" (NVMe 1.4), not in libnvme 1.3. */
#define NVMF_SC_TRANSIENT_TRANSPORT 0x22

/*
 * A queue that must authenticate and has not this long after its Connect
 * is closed (its controller too, for an admin queue): a host that knows an
 * allowed NQN but not its secret holds nothing for long.
 */
#define NVMF_AUTH_DEADLINE_MS 10000

/* Limits the target advertises (defaults of struct nvmf_tgt_limits). */
#define NVMF_MQES 1023 /* 0's based: 1024 entries per I/O queue */
#define NVMF_MAX_QUEUE_SIZE 65536 /* CAP.MQES is 16 bits, 0's based */
#define NVMF_ADMIN_MAX_SQSIZE 31 /* 0's based */
#define NVMF_MAX_IO_QUEUES 64 /* hard ceiling of --max-io-queues */
/*
 * Default MDTS: 8 MiB, so that a host's passthrough I/O (which it cannot
 * split: nvme-cli's 4 MiB `nvme write`, blktests nvme/029's 1025 blocks of
 * 4 KiB) goes through at the defaults, as on nvmet's TCP ports, which set
 * no limit. Costs nothing until used: a command's buffer is taken from
 * the bounded pool when it needs it, sized to its transfer (tcp_buf.c).
 */
#define NVMF_DEFAULT_MDTS_KB (8u * 1024)
/* A 1 MiB transfer: what the unit tests' and fuzzers' buffers hold. */
#define NVMF_MAX_XFER (1024u * 1024)
#define NVMF_MAX_MDTS_KB (32u * 1024) /* largest --mdts-kb */
#define NVMF_IO_INLINE 16384 /* in-capsule data on I/O queues */
#define NVMF_MAX_IO_INLINE (128u * 1024) /* largest --in-capsule-kb */
#define NVMF_ADMIN_INLINE 8192 /* what Linux assumes for the admin queue */
#define NVMF_AERL 3 /* 0's based: 4 outstanding AERs */
#define NVMF_ACL 3 /* 0's based abort limit */
#define NVMF_ERR_LOG_ENTRIES 64
#define NVMF_KAS_100MS 1 /* keep alive granularity: 100 ms */
#define NVMF_MAX_CHANGED_NS 1024
#define NVMF_MAX_NS 1024
/*
 * NVM Sets and Endurance Groups (endgrp.c): a namespace is an NVM Set of
 * its own (NVMSETID = NSID) in an Endurance Group; ids of both are at
 * most NVMF_MAX_NS.
 */
#define NVMF_NSETIDMAX NVMF_MAX_NS
#define NVMF_ENDGIDMAX NVMF_MAX_NS
/* Read Recovery Levels Supported: 4 (the default) and 15 (Fast Fail), plm.c. */
#define NVMF_RRLS ((1u << 4) | (1u << 15))
/*
 * Asymmetric Namespace Access (ana.c): groups 1..NVMF_ANAGRPMAX, a
 * namespace in one of them (1 unless asked), each port a state per group.
 */
#define NVMF_ANAGRPMAX 128
#define NVMF_ANATT_S 10 /* ANA Transition Time: a change state lasts no longer by itself */
#define NVMF_CNTLID_MIN 1
#define NVMF_CNTLID_MAX 0xffef
#define NVMF_MODEL "blox NAND SSD"
#define NVMF_FW_REV "0.1"

enum nvmf_subsys_type {
	NVMF_SUBSYS_NVM,
	NVMF_SUBSYS_DISCOVERY,
};

struct nvmf_tgt;
struct nvmf_ctrl;
struct nvmf_sq;
struct nvmf_req;
struct nvmf_resv;

/* What a listener asks of TLS 1.3 (NVMe/TCP with a PSK, TP 8011). */
enum nvmf_tls_mode {
	NVMF_TLS_NONE, /* plain NVMe/TCP only */
	NVMF_TLS_REQUIRED, /* TLS only: plain connections are closed */
	NVMF_TLS_ALLOWED, /* either, told apart by the first byte */
};

/* Longest TLS PSK interchange text kept for a host ("NVMeTLSkey-1:..."). */
#define NVMF_TLS_PSK_MAX 96

#include "nvmf_disc.h"

/*
 * An allowed host. With a DH-HMAC-CHAP secret (@key), its queues must
 * authenticate (auth.c) before anything else; with a controller secret
 * too, the host may ask the controller to authenticate back. The DHHC-1
 * text is kept for the state file; none of it is ever logged.
 */
struct nvmf_host {
	char nqn[NVME_NQN_LENGTH];
	bool has_key, has_ctrl_key;
	struct dhchap_key key, ctrl_key;
	char key_str[DHCHAP_KEY_STR_MAX], ctrl_key_str[DHCHAP_KEY_STR_MAX];
	/* Its TLS PSK in the interchange format; "" none (a secret: never logged). */
	char tls_psk[NVMF_TLS_PSK_MAX];
	TAILQ_ENTRY(nvmf_host) link;
};

/* Per-namespace counters reported in SMART and telemetry. */
struct nvmf_ns_stats {
	uint64_t read_cmds, write_cmds;
	uint64_t other_cmds; /* I/O commands but reads and writes (flush, DSM, ...) */
	uint64_t read_bytes, write_bytes;
	uint64_t errors;
	/* Media and data integrity errors: Write Fault, Unrecovered Read Error, end-to-end checks. */
	uint64_t media_errors;
};

/*
 * A namespace's SMART / health counts from the runs of bloxd before this
 * one (kept in the data directory by whoever made it; zero for a new
 * namespace). The SMART log adds this run's to them.
 */
struct nvmf_ns_health {
	uint64_t read_bytes, write_bytes, read_cmds, write_cmds;
	uint64_t power_cycles; /* starts before this one */
	uint64_t power_on_s; /* seconds served before this start */
	uint64_t unsafe_shutdowns; /* runs that ended without a clean stop */
	uint64_t media_errors; /* media and data integrity errors (nvmf_ns_stats) */
};

/* Telemetry of a namespace or a controller: counters and latencies. */
struct nvmf_io_telemetry {
	struct nvmf_ns_stats c;
	struct blox_hist read_lat, write_lat; /* command receipt -> completion */
	uint64_t max_inflight; /* since the start */
	/*
	 * The largest latency and depth since the telemetry's last sample
	 * (the admin API's sampler zeroes them once a second, after copying
	 * them into its snapshot), so a window's maximum is the largest value
	 * seen in it, not since the start.
	 */
	struct nvmf_io_win {
		uint64_t read_ns, write_ns, inflight;
	} win;
};

/* FDP events a namespace keeps (the FDP Events log holds 63). */
#define NVMF_FDP_EVENTS 63

/* FDP events of one kind (host or controller) a namespace recorded. */
struct nvmf_fdp_evlist {
	struct nvme_fdp_event ev[NVMF_FDP_EVENTS];
	uint32_t count; /* recorded so far; the newest NVMF_FDP_EVENTS are kept */
};

/*
 * Flexible Data Placement of a namespace (fdp.c, fdp_ev.c): its backend's
 * reclaim unit handles (none: no FDP), the FDP events the host enabled per
 * placement handle (fdp_ev.c's bit per event type), the host events and
 * the controller events recorded, and the newest of the backend's own
 * events looked at (blox_bdev_fdp.ev_seq).
 */
struct nvmf_fdp {
	uint16_t nr_ruh;
	bool persistent;
	uint64_t ru_bytes;
	uint32_t ru_time_limit_s; /* ERUTL; 0: none */
	uint64_t ev_enable[BLOX_FDP_MAX_RUH];
	struct nvmf_fdp_evlist host, ctrl;
	uint64_t bdev_ev_seen;
	uint64_t invalid_pids; /* writes with an invalid placement identifier */
};

struct nvmf_ns {
	uint32_t nsid;
	uint8_t uuid[16];
	uint8_t nguid[16];
	uint8_t lba_shift;
	uint64_t nblocks;
	struct blox_bdev *bdev;
	struct nvmf_subsys *subsys;
	/*
	 * Its Endurance Group, fixed when it is added (nvmf_ns_endgrp_assign()):
	 * that of the namespaces on the same pool of shared dies (@pool,
	 * @pool_key from the backend), or a group of its own.
	 */
	uint16_t endgid;
	uint32_t anagrpid; /* its ANA group, 1..NVMF_ANAGRPMAX */
	bool pool;
	uint64_t pool_key;
	uint64_t inflight; /* commands at the backend */
	uint64_t zone_changes; /* a zoned backend's zone changes told so far (zns_cmd.c) */
	/*
	 * Its NVM Set's Predictable Latency Mode Config as the host set it
	 * (plm.c; the windows are the backend's), and its Read Recovery Level
	 * (0: the default, 4).
	 */
	bool plm_enabled;
	struct nvme_plm_config plm_cfg;
	uint8_t rrl;
	struct nvmf_fdp fdp;
	struct nvmf_ns_stats stats;
	struct nvmf_ns_health health;
	uint8_t crit_warn; /* critical warnings at the last nvmf_ns_health_check() */
	struct nvmf_io_telemetry tm;
	/* Telemetry samples (admin, every second): [0] newest. */
	struct nvmf_io_telemetry snap[2];
	uint64_t snap_ns[2];
	uint64_t created_ns;
	/*
	 * Requests holding the namespace (from parse to completion). A
	 * detached namespace is off its subsystem's list and is freed once
	 * this drops to zero.
	 */
	uint32_t refs;
	bool detached;
	void (*released)(void *arg, struct blox_bdev *bdev);
	void *released_arg;
	/*
	 * Whoever made the namespace keeps its own record here (how it was
	 * made, where its flash is); @owner_free(@owner) is called when the
	 * namespace is freed, after its backend is gone.
	 */
	void *owner;
	void (*owner_free)(void *owner);
	/*
	 * Its reservation (resv.c, resv_cmd.c): registrants, holder,
	 * generation. Like everything of the core, touched on the core's
	 * reactor only; backends elsewhere never see it.
	 */
	struct nvmf_resv *resv;
	/* Commands at its backend, for a Preempt and Abort to wait out (io_cmd.c). */
	TAILQ_HEAD(, nvmf_req) at_backend;
	TAILQ_ENTRY(nvmf_ns) link;
};

struct nvmf_subsys {
	enum nvmf_subsys_type type;
	char nqn[NVME_NQN_LENGTH];
	char serial[21];
	char model[41];
	bool allow_any_host;
	TAILQ_HEAD(, nvmf_host) hosts;
	TAILQ_HEAD(, nvmf_ns) namespaces;
	TAILQ_HEAD(, nvmf_ctrl) ctrls;
	uint16_t next_cntlid;
	struct nvmf_tgt *tgt;
	TAILQ_ENTRY(nvmf_subsys) link;
};

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

/* Log page 80h entries a controller keeps (the oldest dropped first: the counts show it). */
#define NVMF_RESV_LOG_ENTRIES 64
struct nvmf_resv_note {
	uint64_t lpc; /* Log Page Count */
	uint32_t nsid;
	uint8_t type; /* enum nvme_resv_notify_rnlpt */
};

struct nvmf_err_entry {
	struct nvme_error_log_page e;
};

struct nvmf_ctrl {
	uint16_t cntlid;
	struct nvmf_subsys *subsys;
	struct nvmf_tgt *tgt;
	char hostnqn[NVME_NQN_LENGTH];
	uint8_t hostid[16];
	uint32_t cc, csts;
	uint32_t kato_ms;
	uint64_t last_activity_ns;
	struct event *kato_ev;
	uint16_t nr_io_queues; /* granted by Set Features, 1's based */
	struct nvmf_sq **sqs; /* indexed by qid, NVMF_MAX_IO_QUEUES + 1 */
	uint32_t nr_sqs; /* live entries in sqs */
	bool dying;
	/* Async events. */
	TAILQ_HEAD(, nvmf_req) aer_reqs;
	uint32_t nr_aer;
	uint32_t aen_enabled; /* Set Features Async Event Configuration */
	uint32_t aen_pending; /* bits of enum nvmf_aen: an event to tell */
	uint32_t aen_masked; /* told, and its log page not read yet */
	/* Per NSID, the zone change count when the host last read log BFh (zns_cmd.c); NULL: never. */
	uint64_t *zones_read;
	uint32_t changed_ns[NVMF_MAX_CHANGED_NS];
	uint32_t nr_changed_ns; /* > NVMF_MAX_CHANGED_NS means overflow */
	/* Reservation notifications (resv_cmd.c): log 80h's entries, its AEN, the mask per nsid. */
	struct nvmf_resv_note resv_log[NVMF_RESV_LOG_ENTRIES];
	uint32_t resv_log_head, resv_log_nr;
	uint64_t resv_lpc; /* count of the last entry made */
	uint8_t resv_mask[NVMF_MAX_NS + 1]; /* Set Features 82h */
	/* Set Features (14h) DTWIN held until the set's NDWIN minimum passed (plm.c). */
	TAILQ_HEAD(, nvmf_req) plm_wait;
	struct event *plm_ev; /* NULL until needed */
	uint64_t plm_wake_ns;
	/* Error information log ring. */
	struct nvme_error_log_page errors[NVMF_ERR_LOG_ENTRIES];
	uint64_t err_count;
	/* Features. */
	uint32_t arbitration;
	bool vwc_enabled;
	uint64_t timestamp_ms; /* as set by the host */
	uint64_t timestamp_set_ns; /* clock when it was set; 0: never */
	uint64_t created_ns;
	struct nvmf_io_telemetry tm; /* I/O commands of every namespace */
	uint64_t inflight; /* I/O commands at the backends */
	struct nvmf_io_telemetry snap[2]; /* samples, as for namespaces */
	uint64_t snap_ns[2];
	TAILQ_ENTRY(nvmf_ctrl) link;
};

struct nvmf_tgt_stats {
	uint64_t ctrls_created, ctrls_destroyed, kato_expired;
	uint64_t connects_rejected;
	/* Limits that tripped (struct nvmf_tgt_limits). */
	uint64_t io_queues_clamped; /* Set Features Number of Queues cut to the cap */
	uint64_t refused_io_queues; /* Connect of a queue beyond the cap */
	uint64_t refused_ctrls_per_host; /* Connect over max_ctrls_per_host */
	uint64_t refused_queue_size; /* Connect SQSIZE above the largest queue */
	uint64_t kato_raised; /* a KATO below min_kato_ms raised to it */
	uint64_t kato0_expired; /* KATO-0 controllers idle without I/O queues */
	uint64_t log_suppressed; /* limit log lines left out (rate limit) */
	uint64_t auth_ok, auth_failed; /* DH-HMAC-CHAP transactions */
};

/*
 * What one host may hold of the target. 0 in a cap or deadline: none.
 * bloxd's flags of the same names set them (docs/bloxd.md).
 */
struct nvmf_tgt_limits {
	uint32_t max_io_queues; /* I/O queues per controller, 1..NVMF_MAX_IO_QUEUES */
	uint32_t max_ctrls_per_host; /* controllers of one host NQN, target-wide */
	uint32_t min_kato_ms; /* a smaller nonzero KATO of an I/O controller is raised */
	uint32_t kato0_timeout_ms; /* a KATO-0 controller with no I/O queue, idle */
	uint32_t mdts_kb; /* largest transfer, a power of two >= 4 */
	uint32_t in_capsule_kb; /* in-capsule data on I/O queues (IOCCSZ) */
	uint32_t max_queue_size; /* entries of an I/O queue (CAP.MQES + 1) */
};

#define NVMF_TGT_LIMITS_DEFAULT                                                            \
	((struct nvmf_tgt_limits){ .max_io_queues = NVMF_MAX_IO_QUEUES,                    \
				   .max_ctrls_per_host = 128,                              \
				   .min_kato_ms = 1000,                                    \
				   .kato0_timeout_ms = 120000,                             \
				   .mdts_kb = NVMF_DEFAULT_MDTS_KB,                        \
				   .in_capsule_kb = NVMF_IO_INLINE / 1024,                 \
				   .max_queue_size = NVMF_MQES + 1 })

/* Checks @l; 0, or -EINVAL with what is wrong in @err. */
int nvmf_tgt_limits_check(const struct nvmf_tgt_limits *l, char *err, size_t len);

struct nvmf_tgt {
	struct event_base *base;
	const struct blox_clock *clock;
	const struct blox_log *log;
	struct blox_io_cq io_cq;
	TAILQ_HEAD(, nvmf_subsys) subsystems;
	TAILQ_HEAD(, nvmf_port) ports;
	TAILQ_HEAD(nvmf_referral_list, nvmf_referral) referrals;
	struct nvmf_subsys *discovery;
	uint64_t disc_genctr; /* moved by nvmf_tgt_disc_changed() only */
	uint64_t ana_chgcnt; /* the ANA log's change count (ana.c) */
	/* Faults injected on demand (bloxctl fault inject; blox_fault.h), matched on any reactor. */
	struct blox_fault_reg *faults;
	/* Commands faults hold (fault_hold.c), by the time they go on, those without one last. */
	TAILQ_HEAD(nvmf_req_hold_list, nvmf_req) held;
	struct event *hold_ev; /* made with the first */
	uint64_t nr_held;
	/* Host drops a fault fired for, each on its timer until the loop comes back (fault_hold.c). */
	TAILQ_HEAD(, nvmf_fault_drop) drops;
	uint16_t next_port_id;
	uint64_t start_ns;
	struct nvmf_tgt_stats stats;
	struct nvmf_tgt_limits lim; /* NVMF_TGT_LIMITS_DEFAULT unless set */
	struct blox_ratelimit rl; /* limit log lines (nvmf_limit_log) */
	/* Connects with an empty host NQN let in (and when last logged). */
	struct {
		uint64_t count;
		uint64_t logged_ns;
	} empty_hostnqn;
	/*
	 * Where the daemon's loop marks its passes (pass.cached), the time
	 * is read once per pass, by the first nvmf_tgt_now() after
	 * nvmf_tgt_pass_end(): keep-alive touches and command start times
	 * share it. The transport takes it again before it reads a batch of
	 * capsules (nvmf_tgt_pass_restart), since a libevent pass under load
	 * need not end.
	 * cmds_received and cmds_completed tell the loop a pass had work.
	 * idle_since: when the loop last began a pass that may sleep (0:
	 * never, or no such loop): capsules read after it came while the
	 * loop slept, or woke it (the transport's arrival times).
	 */
	struct {
		bool cached;
		uint64_t now_ns; /* 0: not read in this pass yet */
		uint64_t idle_since;
	} pass;
	uint64_t cmds_received, cmds_completed;
	/* Where namespaces keep their reservations through restarts (resv_store.c); NULL: nowhere. */
	char *resv_dir;
};

/* Largest transfer (MDTS) and in-capsule data of an I/O queue, in bytes. */
static inline uint32_t nvmf_max_xfer(const struct nvmf_tgt *tgt)
{
	return tgt->lim.mdts_kb * 1024u;
}

static inline uint32_t nvmf_io_inline(const struct nvmf_tgt *tgt)
{
	return tgt->lim.in_capsule_kb * 1024u;
}

/* A log line about a limit that tripped (WARN), at most a few per second. */
void nvmf_limit_log(struct nvmf_tgt *tgt, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The time of this loop pass (see nvmf_tgt.pass); the clock's without passes. */
static inline uint64_t nvmf_tgt_now(struct nvmf_tgt *tgt)
{
	if (!tgt->pass.cached)
		return blox_clock_now(tgt->clock);
	if (!tgt->pass.now_ns)
		tgt->pass.now_ns = blox_clock_now(tgt->clock);
	return tgt->pass.now_ns;
}

/*
 * The transport is about to read a batch of capsules at @now (the
 * target's clock): the pass's time moves to it, where the loop marks its
 * passes.
 */
static inline void nvmf_tgt_pass_restart(struct nvmf_tgt *tgt, uint64_t now)
{
	if (tgt->pass.cached)
		tgt->pass.now_ns = now;
}

/* A loop pass ended: the next nvmf_tgt_now() reads the clock again. */
static inline void nvmf_tgt_pass_end(struct nvmf_tgt *tgt)
{
	tgt->pass.now_ns = 0;
}

/*
 * Target life. @base may be NULL in unit tests that drive no timers.
 * nvmf_tgt_fini() expects every controller to be gone already
 * (nvmf_tgt_close_ctrls(), then let the transports drain).
 */
int nvmf_tgt_init(struct nvmf_tgt *tgt, struct event_base *base,
		  const struct blox_clock *clock, const struct blox_log *log);
void nvmf_tgt_fini(struct nvmf_tgt *tgt);

/* Configuration objects. */
int nvmf_subsys_create(struct nvmf_tgt *tgt, const char *nqn,
		       struct nvmf_subsys **out);
/* -EBUSY while the subsystem still has controllers. */
int nvmf_subsys_destroy(struct nvmf_subsys *subsys);
/* Start closing every controller of every subsystem (shutdown). */
void nvmf_tgt_close_ctrls(struct nvmf_tgt *tgt);
/*
 * Start closing every controller of @subsys, saying @why (a power cut):
 * their connections drop; the hosts may connect again. The controllers
 * that were not closing already.
 */
uint32_t nvmf_subsys_drop_ctrls(struct nvmf_subsys *subsys, const char *why);

/*
 * Faults the core carries out (fault_hold.c): commands held by a queue
 * stall or an ignored keep-alive, completions a latency fault delays, and
 * host drops after N commands. After faults are cleared, what their faults
 * held goes on now (nvmf_faults_cleared); at shut-down everything held ends
 * (nvmf_holds_abort, NULL: every queue).
 */
void nvmf_faults_cleared(struct nvmf_tgt *tgt);
void nvmf_holds_abort(struct nvmf_tgt *tgt, struct nvmf_sq *sq);
/* A controller torn down: what faults hold of its queues ends now (those on other reactors too). */
void nvmf_holds_abort_ctrl(struct nvmf_ctrl *c);
/* Commands held now, in all and by fault @fault_id. */
uint64_t nvmf_holds_count(const struct nvmf_tgt *tgt);
uint64_t nvmf_holds_of(const struct nvmf_tgt *tgt, uint32_t fault_id);
/* The same for the controllers of host @hostnqn only (NULL: every host's). */
uint32_t nvmf_subsys_drop_host(struct nvmf_subsys *subsys, const char *hostnqn, const char *why);
struct nvmf_subsys *nvmf_subsys_find(struct nvmf_tgt *tgt, const char *nqn);
int nvmf_subsys_add_host(struct nvmf_subsys *subsys, const char *hostnqn);
/* -ENOENT if @hostnqn is not on the list. */
int nvmf_subsys_remove_host(struct nvmf_subsys *subsys, const char *hostnqn);
bool nvmf_subsys_host_allowed(const struct nvmf_subsys *subsys,
			      const char *hostnqn);
struct nvmf_host *nvmf_subsys_find_host(const struct nvmf_subsys *subsys,
					const char *hostnqn);
/*
 * Set (or, with NULL or "", clear) the DH-HMAC-CHAP host and controller
 * secrets of allowed host @h, in DHHC-1 form. A controller secret needs a
 * host secret. -EINVAL with *@why (never the secret) on bad input; @h is
 * unchanged then. Queues already authenticated stay so; the next
 * authentication (a new queue, a re-authentication) uses the new ones.
 */
int nvmf_host_set_keys(struct nvmf_host *h, const char *key, const char *ctrl_key,
		       const char **why);
/*
 * The TLS PSK (interchange text, checked by the caller; "" to drop it) of
 * @hostnqn, which must be on @subsys's list. -ENOENT, -ENAMETOOLONG.
 */
int nvmf_subsys_host_set_tls_psk(struct nvmf_subsys *subsys, const char *hostnqn,
				 const char *psk);
/*
 * Attach @bdev as namespace @nsid (0: the lowest free) with UUID @uuid
 * (NULL: nvmf_ns_default_uuid()); its NGUID is derived like the default
 * UUID. Takes @bdev. -EEXIST: the nsid is in use; -ENOTUNIQ: another
 * namespace of the target has that UUID or NGUID (hosts would drop one);
 * -EMEDIUMTYPE: it would join an Endurance Group (a pool of shared dies,
 * endgrp.c) whose namespaces have placement handles while it has none, or
 * the other way round (fdp.c: NVMe has every namespace of an Endurance
 * Group with Flexible Data Placement on placement handles).
 */
int nvmf_ns_add(struct nvmf_subsys *subsys, uint32_t nsid,
		struct blox_bdev *bdev, const uint8_t *uuid,
		struct nvmf_ns **out);
/*
 * The UUID namespace @nsid of subsystem @nqn gets when none is given:
 * name-based (version 5 form) from the NQN and nsid, the same at every
 * start and different for every other NQN or nsid.
 */
void nvmf_ns_default_uuid(const char *nqn, uint32_t nsid, uint8_t uuid[16]);
/* The namespace of any subsystem of @tgt whose UUID is @uuid, or NULL. */
struct nvmf_ns *nvmf_tgt_find_uuid(const struct nvmf_tgt *tgt, const uint8_t uuid[16]);
struct nvmf_ns *nvmf_ns_find(const struct nvmf_subsys *subsys, uint32_t nsid);
/*
 * Take @ns off its subsystem (hosts see it gone: AEN + log 04h); commands
 * already holding it fail or finish, then the namespace is freed from the
 * event loop (at once when @base is NULL) and its backend handed to
 * @released(@arg, bdev), which must destroy it (when @released is NULL,
 * the backend is destroyed there and then). @released is never called
 * from inside nvmf_ns_detach() unless the loop cannot take the event.
 */
void nvmf_ns_detach(struct nvmf_ns *ns,
		    void (*released)(void *arg, struct blox_bdev *bdev), void *arg);
void nvmf_ns_get(struct nvmf_ns *ns);
void nvmf_ns_put(struct nvmf_ns *ns);
/*
 * NVM Sets and Endurance Groups (endgrp.c). Every namespace is an NVM Set
 * of its own, NVMSETID = NSID. Endurance Group ids, decided once when the
 * namespace is added and kept while it exists: a namespace whose backend
 * says its dies are a pool shared with other namespaces joins the group
 * of a namespace of the subsystem on the same pool (the same pool key),
 * if there is one; any other namespace (whole dies, a device of its own,
 * a ram or null backend) gets a group of its own, numbered with its NSID
 * if no group has that id, else with the lowest id no group has (one
 * exists: there are fewer groups than NVMF_MAX_NS). So a pool's group
 * keeps the id of the first of its namespaces added, even once that one
 * is gone. Called by nvmf_ns_add() before @ns is on @subsys's list.
 */
void nvmf_ns_endgrp_assign(struct nvmf_subsys *subsys, struct nvmf_ns *ns);
/*
 * What @ns's backend tells of its flash (blox_bdev_endurance), or for a
 * backend without flash: no wear, all spare (100, threshold 10, as in the
 * SMART log), the core's own byte counts, its size as capacity.
 */
void nvmf_ns_endurance(struct nvmf_ns *ns, struct blox_bdev_endurance *e);
/* The Endurance Group critical warning bits (libnvme's NVME_EG_CRITICAL_WARNING_*) of @e. */
uint8_t nvmf_endurance_warning(const struct blox_bdev_endurance *e);
/*
 * The SMART / Health log (smart.c): of namespace @req's NSID, or of the
 * controller (NSID 0 or FFFFFFFFh). Reading it without @rae lets the
 * controller tell the next critical warning. A status; *@len filled.
 */
uint16_t nvmf_log_smart(struct nvmf_req *req, uint8_t *out, size_t *len, bool rae);
/* Fill a log page's 128-bit little-endian counter. */
void nvmf_put128(uint8_t dst[16], uint64_t v);
/*
 * Look at @ns's critical warnings now (spare below its threshold, read
 * only: its backend's blox_bdev_endurance()) and tell each controller of
 * its subsystem of every one that turned on since the last look, by an
 * asynchronous event if its Async Event Configuration enables it. The
 * telemetry sampler calls it every second. The warnings now.
 */
uint8_t nvmf_ns_health_check(struct nvmf_ns *ns);
/* Tell every controller of @subsys that @nsid changed (AEN + log 04h). */
void nvmf_subsys_ns_changed(struct nvmf_subsys *subsys, uint32_t nsid);
/* Valid NQN per NVMe base spec 4.5: non-empty, < 224 bytes, UTF-8 text. */
bool nvmf_nqn_valid(const char *nqn);

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
/* Controllers. */
int nvmf_ctrl_create(struct nvmf_subsys *subsys, const char *hostnqn,
		     const uint8_t hostid[16], uint32_t kato_ms,
		     struct nvmf_ctrl **out);
/* Bind @sq to @ctrl as queue @qid; -EEXIST if taken. */
int nvmf_ctrl_attach_sq(struct nvmf_ctrl *ctrl, struct nvmf_sq *sq,
			uint16_t qid);
/* @kato_ms raised to the target's min_kato_ms if @ctrl is an I/O controller (counted). */
uint32_t nvmf_ctrl_kato_min(struct nvmf_ctrl *ctrl, uint32_t kato_ms);
/* Change the keep alive timeout (0: off, kato0_timeout_ms) and restart the timer. */
void nvmf_ctrl_set_kato(struct nvmf_ctrl *ctrl, uint32_t kato_ms);
/* CC.EN=1 accepted and not being torn down. */
bool nvmf_ctrl_ready(const struct nvmf_ctrl *ctrl);
struct nvmf_ctrl *nvmf_ctrl_find(struct nvmf_subsys *subsys, uint16_t cntlid);
/* Tear a controller down: close all its queues. Safe to call twice. */
void nvmf_ctrl_fatal(struct nvmf_ctrl *ctrl, const char *why);
/* Any command received: re-arms traffic based keep alive. */
void nvmf_ctrl_touch(struct nvmf_ctrl *ctrl);
/* Keep-alive check at time @now; true if the controller expired. */
bool nvmf_ctrl_kato_check(struct nvmf_ctrl *ctrl, uint64_t now_ns);
/* Property access (fabrics Property Get/Set). */
uint16_t nvmf_prop_get(struct nvmf_ctrl *ctrl, uint32_t ofst, bool size8,
		       uint64_t *val);
uint16_t nvmf_prop_set(struct nvmf_ctrl *ctrl, uint32_t ofst, bool size8,
		       uint64_t val);
uint64_t nvmf_ctrl_cap(const struct nvmf_ctrl *ctrl);
/* Record an error completion in the controller's error log. */
void nvmf_ctrl_log_error(struct nvmf_ctrl *ctrl, const struct nvmf_req *req,
			 uint16_t status);
/*
 * Asynchronous events (ctrl.c): each kind is told on an outstanding
 * Asynchronous Event Request when the host enabled it (Set Features 0Bh;
 * reservation notices have no enable bit), then masked until the host
 * reads its log page without Retain Asynchronous Event.
 */
enum nvmf_aen {
	NVMF_AEN_NS_CHANGED, /* Notice 00h, log 04h */
	NVMF_AEN_PLM, /* Notice 04h, log 0Bh */
	NVMF_AEN_RESV, /* NVM command set 00h, log 80h */
	NVMF_AEN_ANA, /* Notice 03h, log 0Ch (ana.c) */
	/*
	 * SMART / Health (smart.c): Spare Below Threshold, and NVM Subsystem
	 * Reliability for media placed read-only; each enabled by its
	 * critical warning bit, and both masked once one is told, until the
	 * host reads log 02h.
	 */
	NVMF_AEN_SMART_SPARE,
	NVMF_AEN_SMART_RO,
	NVMF_AEN_DISC, /* Notice F0h, log 70h (discovery.c) */
	/* Notice EFh, log BFh (zns_cmd.c): zones the controller changed; DW1 names the namespace. */
	NVMF_AEN_ZONE_CHANGED,
	NVMF_AEN_KINDS
};

/* @k happened: tell it (now, or on the next request). */
void nvmf_ctrl_aen_raise(struct nvmf_ctrl *ctrl, enum nvmf_aen k);
/*
 * The host read @k's log page (RAE clear): @k is unmasked, and an event of
 * it that came while it was masked is told now. @still: whether events of
 * @k are left to tell (a log page read one entry at a time), or -1 to keep
 * what was raised.
 */
void nvmf_ctrl_aen_log_read(struct nvmf_ctrl *ctrl, enum nvmf_aen k, int still);
/* Complete an outstanding request with the first event due, if any. */
void nvmf_ctrl_aen_kick(struct nvmf_ctrl *ctrl);

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
/* A host NQN/serial etc. string into a fixed, space padded field. */
void nvmf_strpad(char *dst, size_t dlen, const char *src);

/* The optional features' calls: PLM, reservations, ANA, ZNS, FDP. */
#include "nvmf_feat.h"

#endif
