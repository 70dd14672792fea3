/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The NVMe core's optional features, as the rest of the core and the
 * management layer call them: predictable latency (plm.c), reservations
 * (resv_cmd.c, resv_store.c), Asymmetric Namespace Access (ana.c), the
 * Zoned Namespace Command Set (zns_cmd.c) and Flexible Data Placement
 * (fdp.c). Included by nvmf.h, after the types they take.
 */
#ifndef BLOX_NVMF_FEAT_H
#define BLOX_NVMF_FEAT_H

/*
 * Predictable latency and read recovery levels of the NVM Sets (plm.c):
 * Get (@set false; @dflt: the default value asked for) and Set Features
 * 12h, 13h and 14h with the set in CDW11 15:0, and the log pages 0Ah (the
 * set in CDW11 31:16) and 0Bh. NVMF_REQ_ASYNC from a Set Features 14h
 * held until its set may enter DTWIN.
 */
uint16_t nvmf_feat_rrl(struct nvmf_req *req, bool set, bool dflt);
uint16_t nvmf_feat_plm_config(struct nvmf_req *req, bool set, bool dflt);
uint16_t nvmf_feat_plm_window(struct nvmf_req *req, bool set, bool dflt);
uint16_t nvmf_log_plm_set(struct nvmf_req *req, uint8_t *out, size_t *len, bool rae);
size_t nvmf_log_plm_agg(struct nvmf_req *req, uint8_t *out, bool rae);
/* @ns leaves: its set's mode is disabled, its backend tells nobody any more. */
void nvmf_plm_ns_release(struct nvmf_ns *ns);
/* The admin queue stops: held requests complete (aborted); the controller's timer goes. */
void nvmf_plm_ctrl_quiesce(struct nvmf_ctrl *c);
void nvmf_plm_ctrl_free(struct nvmf_ctrl *c);
/*
 * Reservations (resv_cmd.c). nvmf_ns_resv_init/fini: @ns's state (0 or
 * -ENOMEM). nvmf_parse_resv: Reservation Register, Report, Acquire and
 * Release on the namespace of @req. nvmf_resv_io_check: may the command
 * of @req run on @ns (0, or Reservation Conflict)? nvmf_resv_io_left:
 * @req left its namespace's backend. Get (@set false) and Set Features
 * 82h and 83h; log page 80h (one entry per read); RESCAP of @ns.
 */
int nvmf_ns_resv_init(struct nvmf_ns *ns);
void nvmf_ns_resv_fini(struct nvmf_ns *ns);
uint16_t nvmf_parse_resv(struct nvmf_req *req);
uint16_t nvmf_resv_io_check(struct nvmf_req *req, struct nvmf_ns *ns);
void nvmf_resv_io_left(struct nvmf_req *req);
uint16_t nvmf_feat_resv_mask(struct nvmf_req *req, bool set);
uint16_t nvmf_feat_resv_persist(struct nvmf_req *req, bool set);
size_t nvmf_log_resv(struct nvmf_ctrl *c, uint8_t *out, bool rae);
uint8_t nvmf_ns_rescap(const struct nvmf_ns *ns);
/*
 * @ns's drive lost power (a power cut): without Persist Through Power Loss
 * its registrations and reservation are gone, as after a restart (the
 * generation starts again at 0); with PTPL they stay as its file has them.
 */
void nvmf_ns_resv_power_lost(struct nvmf_ns *ns);
/*
 * Persist Through Power Loss (resv_store.c). nvmf_tgt_set_resv_dir: where
 * namespaces added from now on keep their state (bloxd's data directory;
 * NULL: nowhere, PTPL not offered); 0 or -ENOMEM. nvmf_ns_resv_load: @ns
 * (being added) takes the state kept for its UUID. nvmf_ns_resv_save:
 * @ns's state to its file while PTPL is set, else the file removed; 0 or
 * -errno. nvmf_ns_resv_forget: @ns is deleted, its file goes.
 */
int nvmf_tgt_set_resv_dir(struct nvmf_tgt *tgt, const char *dir);
void nvmf_ns_resv_load(struct nvmf_ns *ns);
int nvmf_ns_resv_save(struct nvmf_ns *ns);
void nvmf_ns_resv_forget(struct nvmf_ns *ns);
/*
 * For operators (bloxctl ns show, resv-clear): the reservation, registrant
 * @i (< nr: host identifier, key, holding it), an RTYPE's name ("none"
 * for 0), and a clear: every registration and the reservation go as for a
 * Reservation Release (Clear) by a host that is none of them (registrants
 * told "reservation preempted"), PTPL kept and its file written; 0 or
 * -errno (nothing changed).
 */
struct nvmf_resv_view {
	uint32_t gen, nr;
	uint8_t rtype; /* 0: none; 1..6 as RTYPE */
	bool ptpl;
};
void nvmf_ns_resv_view(const struct nvmf_ns *ns, struct nvmf_resv_view *v);
void nvmf_ns_resv_registrant(const struct nvmf_ns *ns, uint32_t i, uint8_t hostid[16],
			     uint64_t *key, bool *holder);
const char *nvmf_resv_type_name(uint8_t rtype);
int nvmf_ns_resv_clear(struct nvmf_ns *ns);
/*
 * Asymmetric Namespace Access (ana.c). State names as nvme-cli prints
 * them ("optimized", "non-optimized", "inaccessible", "persistent-loss",
 * "change"); parse: 0 or -EINVAL. A port's state for group @grp; set it
 * (-EINVAL: a group outside 1..NVMF_ANAGRPMAX or no state): the change
 * count moves and every controller that came in through @p is told
 * (AEN, log 0Ch). @ns into group @grp (-EINVAL as above). The status a
 * command on @ns through @req's port gets (0: it may run; ANA
 * Inaccessible, Persistent Loss or Transition). Log page 0Ch (@rgo:
 * groups without their namespace lists), its length in *@len.
 */
const char *nvmf_ana_state_name(uint8_t st);
int nvmf_ana_state_parse(const char *s, uint8_t *st);
uint8_t nvmf_port_ana_state(const struct nvmf_port *p, uint32_t grp);
int nvmf_port_set_ana_state(struct nvmf_port *p, uint32_t grp, uint8_t st);
int nvmf_ns_set_ana_group(struct nvmf_ns *ns, uint32_t grp);
uint16_t nvmf_ana_check(const struct nvmf_req *req, const struct nvmf_ns *ns);
size_t nvmf_log_ana(struct nvmf_req *req, uint8_t *out, bool rgo, bool rae);
/* The ANA log's content changed (a namespace came or went): its change count moves. */
void nvmf_tgt_ana_changed(struct nvmf_tgt *tgt);
/*
 * A transition of group @grp through @p to state @st that passes through
 * the change state for @ms milliseconds (0: at once, as
 * nvmf_port_set_ana_state()): the group is in change now and in @st once
 * @ms have passed on the target's clock, the controllers that came in
 * through @p told (AEN) at each step. A transition under way is replaced;
 * nvmf_port_set_ana_state() of the group ends it. -EINVAL (group, state,
 * or change as the target), -ERANGE (@ms past ANATT, NVMF_ANATT_S: hosts
 * would give the path up), -ENOMEM, -ENOTSUP (a target without an event
 * base). nvmf_port_ana_target(): the state
 * @grp is going to through @p (its state when none is under way).
 * nvmf_port_ana_stop(): every transition of @p dropped (the port goes).
 */
int nvmf_port_ana_transition(struct nvmf_port *p, uint32_t grp, uint8_t st, uint32_t ms);
uint8_t nvmf_port_ana_target(const struct nvmf_port *p, uint32_t grp);
void nvmf_port_ana_stop(struct nvmf_port *p);

/*
 * The Zoned Namespace Command Set (zns_cmd.c), on a zoned backend
 * (blox_bdev_zone_info()): whether @ns is zoned (its CSI is 2); Zone
 * Management Send and Receive and Zone Append; the ZNS Identify
 * Namespace (CNS 05h) and Controller (CNS 06h) data and the I/O Command
 * Set vector (CNS 1Ch); the commands it adds to the Commands Supported
 * and Effects log of CSI 2.
 */
bool nvmf_ns_zoned(const struct nvmf_ns *ns);
uint16_t nvmf_parse_zns(struct nvmf_req *req);
uint16_t nvmf_zns_id_ns(struct nvmf_req *req);
uint16_t nvmf_zns_id_ctrl(struct nvmf_req *req);
uint16_t nvmf_zns_id_iocs(struct nvmf_req *req);
void nvmf_zns_effects(struct nvme_cmd_effects_log *l);
/*
 * The zones its backend changed by itself (finished, read only, offline):
 * a completion from @ns whose backend counts @changes of them (more than
 * seen) tells every controller (Zone Descriptor Changed notice); each
 * controller's Changed Zone List (log BFh) lists those since it last read
 * it; the NSID the notice names.
 */
void nvmf_zns_changed(struct nvmf_ns *ns, uint64_t changes);
uint16_t nvmf_log_changed_zones(struct nvmf_req *req, uint8_t *out, size_t *len, bool rae);
uint32_t nvmf_zns_changed_nsid(struct nvmf_ctrl *c);

/*
 * Flexible Data Placement (fdp.c). nvmf_ns_fdp_init: @ns's handles from its
 * backend (when it is added); nvmf_ns_fdp: it has them. Log pages 20h-23h
 * of the Endurance Group in CDW11 31:16 (@cap bytes at @out); Get (@set
 * false) and Set Features 1Dh (the group in CDW11 15:0) and 1Eh (the
 * namespace's placement handle in CDW11 15:0) and the data length of 1Eh;
 * Directive Send and Receive (admin); a write's DTYPE checked at parse
 * and its reclaim unit handle; I/O Management Receive and Send; the
 * commands it adds to the Commands Supported and Effects log.
 */
void nvmf_ns_fdp_init(struct nvmf_ns *ns);
/*
 * FDP events (fdp_ev.c) kept across restarts: nvmf_ns_fdp_save() gives
 * @ns's to its backend's metadata (when the namespace goes; the next
 * nvmf_ns_fdp_init() loads them). A power cut of @ns's backend:
 * nvmf_ns_fdp_power_cut() before it (@after false: the backend's events
 * taken while it has power) and after the rebuild (@after true).
 */
void nvmf_ns_fdp_save(struct nvmf_ns *ns);
void nvmf_ns_fdp_power_cut(struct nvmf_ns *ns, bool after);
/*
 * Controller @c's Timestamp (feature 0Eh) now, in ms: from what the host
 * set (*@host_set) or from the controller's creation (admin_cmd.c).
 */
uint64_t nvmf_ctrl_timestamp_ms(struct nvmf_ctrl *c, bool *host_set);
/*
 * Would @bdev, added to @s, put namespaces with and without placement
 * handles into one Endurance Group (a pool of shared dies)? Then the
 * NSID of one in the group, else 0.
 */
uint32_t nvmf_fdp_group_mix(const struct nvmf_subsys *s, struct blox_bdev *bdev);
bool nvmf_ns_fdp(const struct nvmf_ns *ns);
uint16_t nvmf_log_fdp(struct nvmf_req *req, uint8_t lid, uint8_t *out, size_t cap,
		      size_t *len);
uint16_t nvmf_feat_fdp(struct nvmf_req *req, bool set);
uint16_t nvmf_feat_fdp_events(struct nvmf_req *req, bool set);
uint32_t nvmf_feat_fdp_events_len(const struct nvmf_req *req, bool set);
uint16_t nvmf_parse_directive(struct nvmf_req *req, bool send);
uint16_t nvmf_fdp_write_check(struct nvmf_req *req);
uint16_t nvmf_fdp_write_ruh(struct nvmf_req *req);
uint16_t nvmf_parse_io_mgmt(struct nvmf_req *req, bool send);
void nvmf_fdp_effects(struct nvme_cmd_effects_log *l);

#endif
