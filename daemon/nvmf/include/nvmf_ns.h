/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NVMe core's namespaces: a namespace's counters, health counts,
 * telemetry and Flexible Data Placement state (struct nvmf_ns), and the
 * calls on namespaces: attach, find, detach, references, NVM Sets and
 * Endurance Groups (endgrp.c), the SMART / Health log and its warnings
 * (smart.c), the change notice. Included by nvmf.h, after the limits and
 * types they take.
 */
#ifndef BLOX_NVMF_NS_H
#define BLOX_NVMF_NS_H

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

#endif
