/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NVMe-oF target core: every object the target knows (target, port,
 * subsystem, namespace, controller, queue, request) and the functions that
 * move a request through its life. Transports (tcp.c) plug in through
 * struct nvmf_transport_ops; the core never knows which one it talks to.
 * This header gathers the core's others, each of a concern: nvmf_disc.h
 * (listeners, referrals, the discovery log), nvmf_ns.h (namespaces),
 * nvmf_req.h (queues and requests), nvmf_ctrl.h (controllers) and
 * nvmf_feat.h (the optional features); include this one.
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
struct nvmf_subsys;
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

#include "nvmf_ns.h"

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

#include "nvmf_req.h"
#include "nvmf_ctrl.h"

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
/* Valid NQN per NVMe base spec 4.5: non-empty, < 224 bytes, UTF-8 text. */
bool nvmf_nqn_valid(const char *nqn);

/* A host NQN/serial etc. string into a fixed, space padded field. */
void nvmf_strpad(char *dst, size_t dlen, const char *src);

/* The optional features' calls: PLM, reservations, ANA, ZNS, FDP. */
#include "nvmf_feat.h"

#endif
