/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NVMe core's controllers: struct nvmf_ctrl with its error log and
 * reservation notices, and the controller calls: create, queues,
 * keep-alive, properties, the error log, asynchronous events (ctrl.c).
 * Included by nvmf.h, after the subsystem and the request.
 */
#ifndef BLOX_NVMF_CTRL_H
#define BLOX_NVMF_CTRL_H

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

#endif
