/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Provisioning, the one public header of daemon/prov/: the one place that
 * makes and unmakes what the target serves, devices (registered by name),
 * subsystems and their hosts, namespaces with their backends and flash,
 * listeners, migration jobs; it decides which dies of a device a
 * namespace gets, and persists what it made (the devices' records, the
 * state file's text). The config loader's result, the admin API and the
 * state file all go through it. Its objects and its calls in steps are
 * here for the parts above: telemetry reads them, the admin API makes
 * slow namespaces off the event loop with them.
 */
#ifndef BLOX_PROV_H
#define BLOX_PROV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bdev.h"
#include "blox_fault.h"
#include "conf.h"

/* ---- The provisioning service ---- */

/*
 * The one place that makes and unmakes what the target serves: devices
 * (registered by name), subsystems and their hosts, namespaces with their
 * backends and flash, listeners. The config loader, the admin API and
 * the state file go through it, and it decides which flash a namespace
 * gets.
 */
struct blox_prov;

/*
 * For @tgt, listening through @tcp (NULL: add no sockets), keeping
 * file-backed flash in @data_dir (NULL or "": BLOX_DEFAULT_DATA_DIR).
 */
int blox_prov_create(struct nvmf_tgt *tgt, struct nvmf_tcp *tcp, const char *data_dir,
		     struct blox_prov **out);
/*
 * Take everything off the target: the subsystems with their namespaces
 * (their backends stop cleanly) and the listeners. Nothing may be
 * connected any more (shutdown: the transport's queues are gone).
 */
void blox_prov_clear(struct blox_prov *p);
/* Free the service: its records and the registered devices it holds. */
void blox_prov_destroy(struct blox_prov *p);
struct blox_reactors;
/*
 * Spread the NAND devices made from now on (and own-device namespaces)
 * over @rs's reactors, each living on one (its engine, real-time driver,
 * FTLs, GC, migrations), the core's reactor last; until then, and with
 * one reactor, all live on the core's. Once, before any device is made;
 * every device is gone before @rs stops. 0 or -errno.
 */
int blox_prov_use_reactors(struct blox_prov *p, struct blox_reactors *rs);
/*
 * @fn(@arg) after every listener added or removed from now on (bloxd's
 * mDNS announcer follows the listeners this way); NULL: nobody.
 */
void blox_prov_on_listeners(struct blox_prov *p, void (*fn)(void *arg), void *arg);
/*
 * Watch the referrals' nodes: every @interval_ms a TCP connection to each
 * one's discovery service; two failures in a row mark it down (left out of
 * the discovery log, a change hosts are told of), a success lists it again.
 * 0: not watched (every referral listed). 0 or -ENOMEM.
 */
int blox_prov_probe_referrals(struct blox_prov *p, unsigned interval_ms);
/* The reactor NAND device @name lives on; -ENOENT when there is none. */
int blox_prov_device_reactor(const struct blox_prov *p, const char *name);
const char *blox_prov_data_dir(const struct blox_prov *p);
/*
 * Make everything in @cfg: its listeners first (a busy port fails the
 * start before any store is opened), then its plan, devices, subsystems
 * with their hosts and namespaces. A one-line reason in @err on failure.
 * blox_prov_apply() is blox_prov_listen() then blox_prov_make().
 */
int blox_prov_apply(struct blox_prov *p, struct blox_config *cfg, char *err, size_t errlen);
int blox_prov_listen(struct blox_prov *p, const struct blox_config *cfg, char *err,
		     size_t errlen);
int blox_prov_make(struct blox_prov *p, struct blox_config *cfg, char *err, size_t errlen);

/* Where a namespace's or a device's data is kept (prov_cap.c). */
enum prov_cap_kind {
	PROV_CAP_NONE, /* no data of its own */
	PROV_CAP_FILE, /* a flash file in the data directory */
	PROV_CAP_RAM, /* host memory */
};

/* What it takes there at most, and whether it may be made when that does not fit. */
struct prov_cap {
	enum prov_cap_kind kind;
	uint64_t bytes;
	bool overcommit;
};

/*
 * A vSSD's hold on a device: the namespace it is for and whether a
 * namespace has claimed it since the start (the resource manager's owner
 * id is @id).
 */
struct prov_vssd {
	uint32_t id;
	char nqn[NVME_NQN_LENGTH];
	uint32_t nsid;
	bool claimed;
	uint32_t tenant; /* its tenant on the device's dies (1..63), for fair sharing */
	/* From the record: the FTL's die migration to resume (mig_active), else zero. */
	struct ftl_resources mig;
	TAILQ_ENTRY(prov_vssd) link;
};

/*
 * A registered device, its resource manager (who owns each die) and the
 * vSSDs on it, kept in a file beside its flash (dev-NAME.vssd.json) so
 * that every namespace gets exactly its dies back after a restart.
 */
struct prov_device {
	struct blox_cfg_device cfg; /* as resolved */
	unsigned reactor; /* where it lives (its home's reactor) */
	struct blox_nand_dev *dev;
	struct fbx_rm *rm;
	char alloc_path[4200]; /* "" for a device in RAM */
	struct prov_cap cap;
	uint32_t next_id;
	TAILQ_HEAD(, prov_vssd) vssds;
	TAILQ_ENTRY(prov_device) link;
};

/* As reactor.h's BLOX_REACTORS_MAX (checked in prov.c). */
#define PROV_REACTORS_MAX 16

/*
 * The reactor a new NAND device goes to: @want when >= 0 and there is such
 * a reactor, else the one with the fewest devices (own-device namespaces
 * count), the core's last (a @want past the reactors, from a config or
 * state file of a run with more, is logged).
 */
unsigned prov_place(const struct blox_prov *p, int want);
/* A device asked for reactor @want (-1: any): 0, or -EINVAL past the reactors, said in @err. */
int prov_reactor_check(const struct blox_prov *p, int want, char *err, size_t errlen);
/* Its home (NULL for reactor 0). */
struct blox_bdev_home *prov_home(const struct blox_prov *p, unsigned reactor);

enum prov_mig_state {
	PM_QUEUED, /* waits for the device's running job */
	PM_RUNNING,
	PM_PAUSED,
	PM_CANCELLING, /* moving back what was moved */
	PM_DONE,
	PM_CANCELLED,
	PM_FAILED,
};

#define PROV_MIG_SHARE 250 /* permille of the dies' time a migration takes by default */

/* A migration job: the die moves of one vSSD (prov_mig.c). */
struct prov_mig {
	uint32_t id;
	char dev[32];
	uint32_t owner; /* the vSSD */
	char nqn[NVME_NQN_LENGTH];
	uint32_t nsid;
	char why[160]; /* "asked by the operator", or the swap's reason */
	uint32_t nr, cur; /* moves; those before cur are made (cur counts down when reverse) */
	struct fbx_move moves[FBX_MAX_MOVES];
	bool reverse; /* cancelling: moving back */
	enum prov_mig_state state;
	int error;
	uint32_t share;
	bool ftl_active; /* moves[cur] (or its reverse) runs in the FTL */
	struct ftl_resources ftl_res; /* the FTL's state of it, as last saved */
	uint64_t created_ns, started_ns, finished_ns;
	uint64_t bytes_done; /* copied by the moves made */
	uint64_t cur_bytes, cur_total; /* the move under way */
	TAILQ_ENTRY(prov_mig) link;
};

struct blox_prov {
	struct nvmf_tgt *tgt;
	struct nvmf_tcp *tcp; /* NULL: no listeners (unit tests) */
	const struct blox_log *log;
	char data_dir[4096];
	struct blox_dev_registry registry;
	TAILQ_HEAD(, prov_device) devices;
	TAILQ_HEAD(prov_mig_list, prov_mig) migs; /* live ones and those ended since the start */
	uint32_t next_mig_id;
	struct event *mig_ev; /* polls migrations and wear */
	uint64_t wear_polled_ns;
	/*
	 * The reactors NAND devices live on (blox_prov_use_reactors()): a
	 * home on each but the core's (homes[0] is NULL: reactor 0).
	 */
	struct blox_bdev_home *homes[PROV_REACTORS_MAX];
	unsigned nr_reactors; /* 1: every device on the core's */
	struct blox_reactors *rs; /* NULL: none given */
	/* The referrals' nodes watched (prov_ref.c); 0 ms: not watched. */
	unsigned ref_probe_ms;
	struct event *ref_ev;
	TAILQ_HEAD(, prov_probe) probes;
	/* Told after each listener added or removed (blox_prov_on_listeners()). */
	void (*listeners_changed)(void *arg);
	void *listeners_arg;
};

/* CPU time reactor @k's thread has used (ns); 0 when unknown. */
uint64_t prov_reactor_cpu_ns(const struct blox_prov *p, unsigned k);

/* What the service keeps of a namespace it made (the namespace's owner). */
struct prov_ns_rec {
	struct blox_ns_params params; /* as asked, nsid filled in */
	bool homed; /* a nand device of its own, living on @reactor */
	unsigned reactor;
	char *store_path; /* its own store file, NULL when it has none */
	struct prov_device *dev; /* on a registered device, else NULL */
	uint32_t owner; /* its vSSD's id on @dev */
	uint32_t tenant; /* on @dev: its tenant (fair sharing of the dies) */
	struct prov_cap cap;
};

/* What a deleted namespace held on a device, until its backend is gone. */
struct prov_dies {
	char dev[32]; /* "" when it was not on a device */
	uint32_t owner;
};

/* A namespace between its plan and its attach. */
struct prov_ns_plan {
	struct blox_cfg_ns cn;
	struct blox_bdev_params bp; /* points into cn and store */
	char store[4200]; /* its own store file, "" if none */
	char fault_name[BLOX_FAULT_NAME_MAX]; /* a device of its own: "NQN/NSID", its name for faults */
	bool fresh_store; /* the store file is new: removed if the create fails */
	struct prov_device *dev;
	struct fbx_alloc alloc; /* on @dev: what it gets */
	struct prov_vssd *held; /* on @dev: its hold from before a restart, else NULL */
	uint32_t owner; /* on @dev, once built: its vSSD's id */
	bool taken; /* on @dev: built, its allocation taken */
	struct blox_prov *prov;
	char nqn[NVME_NQN_LENGTH];
	struct blox_bdev *bdev; /* once built */
	struct prov_cap cap;
	char warn[512]; /* a fresh one overcommitted: the warning, else "" */
};

/*
 * Namespaces in steps. prov_ns_plan() (on the loop): checks, the store
 * file's path (@fresh: refuse one that exists, and admit its capacity:
 * prov_cap_admit(), -ENOSPC), the dies on a registered device. prov_ns_build(): the backend; for a plan that prov_ns_slow()
 * says is slow (a nand namespace on a device of its own: store file, FTL
 * format or recovery) it touches nothing shared and may run on any
 * thread, otherwise it runs on the loop. prov_ns_attach() (on the loop):
 * bind the backend to the loop, add the namespace (hosts hear of it),
 * keep its record. prov_ns_discard() undoes a built plan that is not
 * attached: prov_ns_unbind() first on the loop, then the rest on any
 * thread. Each fails with a one-line reason in @err.
 */
int prov_ns_plan(struct blox_prov *p, const struct nvmf_subsys *s,
		 const struct blox_cfg_ns *cn, bool fresh, struct prov_ns_plan *pl,
		 char *err, size_t errlen);
bool prov_ns_slow(const struct prov_ns_plan *pl);
int prov_ns_build(struct blox_prov *p, struct prov_ns_plan *pl, char *err, size_t errlen);
int prov_ns_attach(struct blox_prov *p, struct nvmf_subsys *s, struct prov_ns_plan *pl,
		   struct nvmf_ns **out, char *err, size_t errlen);
void prov_ns_unbind(struct prov_ns_plan *pl);
void prov_ns_discard(struct prov_ns_plan *pl);
/* All of it at once, on the loop. */
int prov_ns_create(struct blox_prov *p, struct nvmf_subsys *s, const struct blox_cfg_ns *cn,
		   bool fresh, struct nvmf_ns **out, char *err, size_t errlen);

/* What a power cut of a namespace did (prov_ns_power_cut()). */
struct prov_power_cut {
	struct blox_bdev_power_cut bdev;
	uint32_t ctrls_dropped;
	uint64_t unsafe_shutdowns; /* the namespace's count after it */
};
/*
 * Power loss of @ns's drive and power-up (prov_power.c): its subsystem's
 * controllers drop (hosts may connect again), the backend loses what it
 * was not told to keep and is rebuilt from flash (blox_bdev_power_cut()),
 * the namespace counts a power cycle and an unsafe shutdown. 0, or -errno
 * with the reason in @err (-EOPNOTSUPP: a backend that cannot).
 */
int prov_ns_power_cut(struct blox_prov *p, struct nvmf_ns *ns, struct prov_power_cut *out,
		      char *err, size_t errlen);
/* One vSSD of a device's power cut: which, and what it lost. */
struct prov_dev_power_cut {
	struct nvmf_ns *ns;
	struct prov_mig *mig; /* its live migration job, carried on after the rebuild; or NULL */
	struct prov_power_cut cut;
};
/*
 * Power loss of registered device @name and power-up (prov_power.c):
 * every vSSD on it at once, each as prov_ns_power_cut() (their
 * subsystems' controllers dropped first; vSSDs with power-loss
 * protection share the device's one hold-up). Refused with nothing done
 * (-EOPNOTSUPP, -EBUSY) when any of them would be as part of it; -ENOENT for no
 * such device. @outs has room for @max, *@n filled (sorted as the
 * device's vSSDs), the caller frees nothing.
 */
int prov_device_power_cut(struct blox_prov *p, const char *name, struct prov_dev_power_cut *outs,
			  uint32_t max, uint32_t *n, char *err, size_t errlen);

/* The record of a namespace the service made (NULL for any other). */
const struct prov_ns_rec *prov_ns_rec(const struct nvmf_ns *ns);
/*
 * Delete @ns: off its subsystem at once (hosts hear of it), its backend
 * handed to @released(@arg, bdev) once its last command is done (see
 * nvmf_ns_detach()). Returns its store file's path, the caller's now (to
 * remove once the backend is gone), or NULL when it has none.
 */
char *prov_ns_delete(struct blox_prov *p, struct nvmf_ns *ns,
		     void (*released)(void *arg, struct blox_bdev *bdev), void *arg,
		     struct prov_dies *dies);
/*
 * After prov_ns_delete(), once the backend is destroyed (on the loop): the
 * deleted namespace's dies (or pool blocks) are erased and given back.
 * Nothing for a namespace that was not on a device.
 */
void prov_dies_release(struct blox_prov *p, struct prov_dies *dies);
/*
 * At the end of a start: holds on devices that no namespace claimed (a
 * namespace gone from the configuration) are erased and given back, and
 * said so in the log.
 */
void prov_devices_settle(struct blox_prov *p);
/* Registered devices. */
struct prov_device *prov_device_find(const struct blox_prov *p, const char *name);
/* No limit in @l. */
bool qos_none(const struct qos_limits *l);

/* The file name of the store file of namespace @nsid of @nqn (stable for both). */
void prov_store_file(const char *nqn, uint32_t nsid, char *out, size_t len);

/* prov_cap.c: capacity (the rule is at the top of that file). */
struct prov_cap prov_cap_of_ns(const struct blox_cfg_ns *cn);
struct prov_cap prov_cap_of_device(const struct blox_cfg_device *cd);
/*
 * Admit a new namespace or device needing @c (@what names it: "namespace
 * 3 of NQN", "device nand1") beside what @p has made: 0 when it fits, or
 * when it does not but is overcommitted, then with a warning in @warn
 * (logged; "" otherwise); -ENOSPC with what it needs and what is free in
 * @err when it does not fit (the caller logs it).
 */
int prov_cap_admit(struct blox_prov *p, const struct prov_cap *c, const char *what, char *warn,
		   size_t warnlen, char *err, size_t errlen);
/* prov_cap_admit() of a new device (one whose flash file exists is admitted). */
int prov_cap_admit_device(struct blox_prov *p, const struct blox_cfg_device *cd, char *warn,
			  size_t warnlen, char *err, size_t errlen);
/*
 * The same for every device and namespace of @cfg at start-up, before any
 * is made; those whose flash file exists already are counted, not judged.
 */
int prov_cap_plan(struct blox_prov *p, const struct blox_config *cfg, char *err, size_t errlen);
/* @b for a person: "512 GiB", "1.5 TiB", "4 KiB"; @buf returned. */
const char *prov_cap_bytes_str(uint64_t b, char *buf, size_t len);

/* prov_dev.c, for prov.c and the admin API. */
/* "<data dir>/<file>", creating the data directory if it is missing. */
int prov_data_file(const struct blox_prov *p, const char *file, char *out, size_t len,
		   char *err, size_t errlen);
void prov_devices_free(struct blox_prov *p);
/* @d's resource manager takes the wear its store has now. 0 or -ENOMEM. */
int prov_device_wear_update(struct prov_device *d);
/* Write @d's vSSD record (its file) now. 0 or -errno (logged). */
int prov_device_save(struct blox_prov *p, struct prov_device *d);
struct prov_vssd *prov_vssd_find(const struct prov_device *d, const char *nqn, uint32_t nsid);
/* The vSSD of owner id @owner on @d, or NULL. */
struct prov_vssd *prov_vssd_by_id(const struct prov_device *d, uint32_t owner);
/* Take @v off @d and give its flash back (no erase, no save). */
void prov_vssd_drop(struct prov_device *d, struct prov_vssd *v);
/*
 * What namespace @cn of @nqn gets on @d: its hold from before a restart
 * (*@held, checked against the ask), else a new allocation from the
 * resource manager. *@exhausted: it does not fit now (RESOURCE_EXHAUSTED),
 * rather than a bad ask.
 */
int prov_vssd_plan(struct blox_prov *p, struct prov_device *d, const char *nqn,
		   const struct blox_cfg_ns *cn, struct fbx_alloc *out, struct prov_vssd **held,
		   bool *exhausted, char *err, size_t errlen);
/*
 * Take the planned allocation for the namespace (a new one is erased and
 * the record saved first); its owner id into *@owner.
 */
int prov_vssd_take(struct blox_prov *p, struct prov_device *d, const char *nqn, uint32_t nsid,
		   const struct fbx_alloc *a, struct prov_vssd *held, uint32_t *owner, char *err,
		   size_t errlen);
/* Give @owner's flash back (erased first when @erase) and save the record. */
void prov_vssd_free(struct blox_prov *p, struct prov_device *d, uint32_t owner, bool erase);

/* prov_mig.c: migration jobs. */
const char *prov_mig_state_name(enum prov_mig_state s);
struct prov_mig *prov_mig_find(const struct blox_prov *p, uint32_t id);
/* The live (not ended) job of vSSD @owner on device @dev, or NULL. */
struct prov_mig *prov_mig_of(const struct blox_prov *p, const char *dev, uint32_t owner);
/* A job record (state QUEUED, no moves yet) for @owner on @d, listed. */
struct prov_mig *prov_mig_new(struct blox_prov *p, struct prov_device *d, uint32_t owner);
/*
 * Jobs for @mv (one per vSSD, in order), queued and started when the
 * device has none running. @share 0: the default. 0, -EBUSY (a vSSD has
 * a live job), -ENOMEM.
 */
int prov_mig_from_moves(struct blox_prov *p, struct prov_device *d, const struct fbx_move *mv,
			uint32_t nr, const char *why, uint32_t share);
int prov_mig_pause(struct blox_prov *p, struct prov_mig *m);
int prov_mig_resume(struct blox_prov *p, struct prov_mig *m);
int prov_mig_cancel(struct blox_prov *p, struct prov_mig *m);
int prov_mig_set_share(struct blox_prov *p, struct prov_mig *m, uint32_t share);
/* A job read back from a record, once its vSSD's backend runs: carry on. */
void prov_mig_resumed(struct blox_prov *p, struct prov_mig *m);
/* Arm the poll timer (after a change). */
void prov_mig_kick(struct blox_prov *p);
void prov_migs_free(struct blox_prov *p);
/* The referral probes under way and their timer (prov_ref.c). */
void prov_probes_free(struct blox_prov *p);

/* Subsystems (@cs without its namespaces), hosts, listeners. */
int prov_subsys_create(struct blox_prov *p, const struct blox_cfg_subsys *cs,
		       struct nvmf_subsys **out, char *err, size_t errlen);
/* Off the target with its namespaces: none may be in use (no controllers). */
void prov_subsys_delete(struct blox_prov *p, struct nvmf_subsys *s);
void prov_subsys_allow_any_host(struct blox_prov *p, struct nvmf_subsys *s, bool allow);
/*
 * Allow @ch->nqn on @s with its DH-HMAC-CHAP secrets; bad secrets change
 * nothing (-EINVAL, *@why says what is wrong, never the secret).
 */
int prov_host_add(struct blox_prov *p, struct nvmf_subsys *s, const struct blox_cfg_host *ch,
		  const char **why);
int prov_host_remove(struct blox_prov *p, struct nvmf_subsys *s, const char *hostnqn);
/* Set (rotate) or drop ("") the TLS PSK of an allowed host; the caller checked it. */
int prov_host_set_tls_psk(struct blox_prov *p, struct nvmf_subsys *s, const char *hostnqn,
			  const char *psk);
int prov_listener_add(struct blox_prov *p, const struct blox_cfg_listener *l,
		      struct nvmf_port **out, char *err, size_t errlen);
void prov_listener_remove(struct blox_prov *p, struct nvmf_port *port);
/*
 * A listener removed under its hosts, first step: @port stops accepting
 * at once (a new connection is refused) and every queue that came in
 * through it starts closing, its controller torn down
 * (nvmf_tcp_port_close()). The listener stays (in the discovery log, the
 * state file) until prov_listener_remove(), once
 * nvmf_tcp_port_queues() is 0. Again on the same port: the queues not
 * gone yet are asked again, which changes nothing.
 */
void prov_listener_drain(struct blox_prov *p, struct nvmf_port *port, const char *why);
/*
 * A referral to the discovery service at @addr:@port (the discovery log
 * lists it; discovery controllers are told): 0, or -EINVAL (not an
 * address and port), -EEXIST, -ENOMEM with the reason in @err. Removed:
 * 0 or -ENOENT.
 */
int prov_referral_add(struct blox_prov *p, const char *addr, const char *port, char *err,
		      size_t errlen);
int prov_referral_remove(struct blox_prov *p, const char *addr, const char *port);

/* Devices: registered under their names, sized and opened. */
int prov_device_create(struct blox_prov *p, const struct blox_cfg_device *d, char *err,
		       size_t errlen);
/* -EBUSY while namespaces are on it. */
int prov_device_destroy(struct blox_prov *p, const char *name);
/* Faults were cleared: each registered device's dies whose die-offline fault went come back. */
void prov_devices_faults_cleared(struct blox_prov *p);

/* ---- A device's deletion, migration jobs, the state (prov_dev.c, prov_mig*.c, prov_state.c) ---- */

/*
 * Delete device @name (no vSSD may be on it): unregistered, its store file
 * and record removed, or kept with @keep_store (a create of the same
 * geometry takes them back). The store file's path in @store (may be
 * NULL). 0, -ENOENT, -EBUSY while vSSDs are on it.
 */
int prov_device_delete(struct blox_prov *p, const char *name, bool keep_store, char *store,
		       size_t len);

/*
 * What is read of a migration job (prov_mig.c): its progress as one view
 * made in one place (bloxctl migrate status, --watch and --json show it),
 * and the ended jobs a device's record keeps across a restart.
 *
 * Progress never goes back: the percent and the bytes copied are the most
 * reached (a pause drops the superblock half copied, and its copy starts
 * again on resume). A cancel is progress of its own, moving back: the
 * forward figures stay as reached, and the bytes moved back, of what is
 * to move back, are counted apart. The rate is a recent one: the bytes
 * moved (either way) over the last PROV_MIG_RATE_WINDOW_S seconds of
 * samples (10 a second), started again at a pause, a resume, a cancel and
 * a change of share; the ETA comes from it and from what is left in the
 * direction it goes.
 */
#define PROV_MIG_KEEP 8 /* ended migrations kept per device, in memory and in its record */
#define PROV_MIG_RATE_WINDOW_S 5 /* the recent rate: over this many seconds of progress */

struct prov_mig_view {
	double percent; /* of the move forward, the most reached; 100 when done */
	uint64_t bytes_copied; /* forward, the most reached */
	uint64_t bytes_total; /* forward: an estimate until the last move runs */
	bool moving_back; /* cancelling, or cancelled (or failed) after moving back */
	uint64_t bytes_back; /* moved back so far */
	uint64_t back_total; /* to move back: an estimate until the last move back runs */
	double back_percent;
	double rate_mbps; /* recent (MB/s, 10^6 bytes), either way; 0: not known (yet) */
	double avg_rate_mbps; /* over the whole job: bytes moved either way / elapsed */
	uint64_t rate_window_ns; /* what the recent rate was measured over; 0: none */
	uint64_t eta_ns; /* from the recent rate; 0: not known */
	uint64_t elapsed_ns; /* from its first move to its end (or now) */
};

/* The job's progress now. */
void prov_mig_view(const struct blox_prov *p, const struct prov_mig *m,
		   struct prov_mig_view *out);

/* The ended jobs of device @dev (the newest PROV_MIG_KEEP), for its record. */
struct json_object *prov_mig_ended_json(const struct blox_prov *p, const char *dev);
/* Take back the ended jobs of device @dev from its record's array @arr (bad entries skipped). */
void prov_mig_ended_load(struct blox_prov *p, const char *dev, struct json_object *arr);

/*
 * The running configuration of @p's target as config-file JSON text
 * (malloc'd): its listeners, the registered devices and the subsystems
 * with their hosts and namespaces, each as it was asked for; what the
 * state file holds. NULL on ENOMEM.
 */
char *blox_state_json(const struct blox_prov *p);

#endif
