/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Management of a running target, the one public header of daemon/mgmt/:
 * the start-up configuration (JSON file and flags), the admin plane (the
 * BloxAdmin service on a unix socket, optionally TLS) and the state file
 * of what it changed. bloxd's main.c uses only this.
 *
 * Configuration: a configuration is parsed and checked whole before any
 * of it is applied, so a bad file changes nothing.
 */
#ifndef BLOX_MGMT_H
#define BLOX_MGMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "flashblox.h"
#include "ftl.h"
#include "nand.h"
#include "qos.h"
#include "nvmf.h"
#include "tcp.h"

/* The state file in the data directory: bloxd starts from it when it exists. */
#define BLOX_STATE_FILE "bloxd-state.json"

#define BLOX_DEFAULT_NQN "nqn.2026-12.io.blox:default"

/* ---- Parameters, as asked ---- */

/*
 * What a namespace or a device is made of, as a config entry, an admin
 * request or the state file asks for it: typed, one struct for all three.
 * A NAND or FTL field counts only when its bit is in @set, so that what
 * was left to the default stays the default and the state file writes
 * back exactly what was asked. Bits follow the field order below.
 */
enum blox_nand_param {
	BLOX_NP_CHANNELS,
	BLOX_NP_DIES_PER_CHANNEL,
	BLOX_NP_PLANES_PER_DIE,
	BLOX_NP_BLOCKS_PER_PLANE,
	BLOX_NP_PAGES_PER_BLOCK,
	BLOX_NP_PAGE_SIZE,
	BLOX_NP_OOB_SIZE,
	BLOX_NP_CELL,
	BLOX_NP_T_READ_US,
	BLOX_NP_T_PROG_US,
	BLOX_NP_T_ERASE_US,
	BLOX_NP_T_SUSPEND_US,
	BLOX_NP_T_RESUME_US,
	BLOX_NP_NULL_TIMING,
	BLOX_NP_MULTI_PLANE,
	BLOX_NP_SUSPEND_POLICY,
	BLOX_NP_BUS_MBPS,
	BLOX_NP_COUNT
};

struct blox_nand_params {
	uint32_t set; /* 1u << enum blox_nand_param, for each field given */
	uint32_t channels, dies_per_channel, planes_per_die, blocks_per_plane;
	uint32_t pages_per_block, page_size, oob_size;
	char cell[8]; /* slc, mlc, tlc, qlc */
	uint32_t t_read_us, t_prog_us, t_erase_us, t_suspend_us, t_resume_us;
	bool null_timing, multi_plane;
	char suspend_policy[16]; /* default, never, always */
	uint32_t bus_mbps;
};

enum blox_ftl_param {
	BLOX_FP_STORE,
	BLOX_FP_CMT_KIB,
	BLOX_FP_MDC,
	BLOX_FP_MDC_BYTES,
	BLOX_FP_MDC_MIN_RUN,
	BLOX_FP_STREAM_SEPARATION,
	BLOX_FP_OP_PERCENT,
	BLOX_FP_GC_POLICY,
	BLOX_FP_WRITE_BUFFER_PAGES,
	BLOX_FP_WL_THRESHOLD,
	BLOX_FP_GC_PIPELINE,
	BLOX_FP_COUNT
};

struct blox_ftl_params {
	uint32_t set; /* 1u << enum blox_ftl_param, for each field given */
	char store[8]; /* file, ram */
	uint32_t cmt_kib;
	bool mdc;
	uint32_t mdc_bytes, mdc_min_run;
	bool stream_separation;
	uint32_t op_percent;
	char gc_policy[16]; /* greedy, cost-benefit */
	uint32_t write_buffer_pages, wl_threshold;
	bool gc_pipeline; /* not given: on for software vSSDs, off otherwise */
};

/* A namespace's QoS (its "qos" object); 0 or absent: no limit. */
enum blox_qos_param {
	BLOX_QP_READ_IOPS,
	BLOX_QP_WRITE_IOPS,
	BLOX_QP_IOPS,
	BLOX_QP_READ_MBPS,
	BLOX_QP_WRITE_MBPS,
	BLOX_QP_MBPS,
	BLOX_QP_BURST_MS,
	BLOX_QP_WEIGHT,
	BLOX_QP_COUNT
};

struct blox_qos_params {
	uint32_t set; /* 1u << enum blox_qos_param, for each field given */
	uint32_t read_iops, write_iops, iops;
	uint32_t read_mbps, write_mbps, mbps; /* MB/s, 10^6 bytes */
	uint32_t burst_ms;
	uint32_t weight; /* its share of common dies against other software vSSDs */
};

/* A namespace as asked. */
struct blox_ns_params {
	uint32_t nsid; /* 0: none given */
	char backend[16]; /* ram, null, nand, nand-timing */
	uint64_t size; /* bytes */
	uint32_t block_size; /* 0: 4096 */
	bool has_uuid;
	uint8_t uuid[16];
	char device[32]; /* backend nand on a registered device; "" for its own */
	/* On a device: channel:N, chip:N, channel, chip or software; "": chip (by size). */
	char isolation[16];
	bool has_nand, has_ftl; /* a "nand" / "ftl" object was given, even empty */
	struct blox_nand_params nand;
	struct blox_ftl_params ftl;
	bool has_qos;
	struct blox_qos_params qos;
	/*
	 * Made even when its flash file does not fit the data directory's
	 * free space, or its RAM the host's memory (a sparse overcommit, with
	 * a warning); false: refused then (prov_cap.c).
	 */
	bool overcommit;
};

/* How a device's resource manager balances wear (its "flashblox" object). */
enum blox_fbx_param {
	BLOX_XP_BOUND_PERMILLE,
	BLOX_XP_RATED_PE,
	BLOX_XP_SWAP_CHECK_ERASES,
	BLOX_XP_POOL_CHANNELS,
	BLOX_XP_AUTO_SWAP,
	BLOX_XP_SWAP_SHARE,
	BLOX_XP_SPARE_CHANNEL,
	BLOX_XP_COUNT
};

struct blox_fbx_params {
	uint32_t set; /* 1u << enum blox_fbx_param, for each field given */
	uint32_t bound_permille; /* x of the bound 1 + x on MaxWear / AvgWear (100: 1.1) */
	uint32_t rated_pe; /* rated P/E cycles of a block (default by cell type) */
	uint32_t swap_check_erases; /* device erases between swap checks; 0: rated_pe / (K N) per block */
	uint32_t pool_channels; /* channels the software pool takes when it forms */
	bool auto_swap; /* swap channels as the wear asks (default on) */
	uint32_t swap_share; /* permille of the dies' time a swap's migration takes */
	bool spare_channel; /* keep one whole channel free for swaps (default on) */
};

/* A NAND device several "nand" namespaces share, as asked. */
struct blox_device_params {
	char name[32]; /* letters, digits, - and _ */
	char store[8]; /* file (default), ram */
	bool has_nand, has_fbx;
	struct blox_nand_params nand;
	struct blox_fbx_params fbx;
	bool overcommit; /* as a namespace's */
	uint32_t reactor; /* 1 + the reactor it is to live on; 0: bloxd picks */
};

/* ---- Resolved: parameters checked, defaults filled in ---- */

/*
 * A namespace resolved from its parameters (blox_ns_resolve()): the NAND
 * and FTL configurations it runs with. On a shared device, @nand is the
 * device's and @dies the share the provisioning service gave it.
 */
struct blox_cfg_ns {
	struct blox_ns_params params; /* as asked, for the state file */
	uint32_t nsid; /* 0: next free */
	char backend[16];
	uint64_t size;
	uint32_t block_size;
	bool has_uuid;
	uint8_t uuid[16];
	struct nand_config nand; /* backends "nand" and "nand-timing" */
	bool auto_blocks; /* blocks_per_plane not given: size to the namespace */
	struct ftl_config ftl; /* backend "nand" */
	bool store_ram; /* backend "nand": keep the flash in RAM, not a file */
	char device[32]; /* backend "nand" on a shared device; "" for its own */
	/* On a shared device: the isolation asked and its count (0: by size). */
	enum fbx_isolation iso;
	uint32_t iso_count;
	struct qos_limits qos; /* all zero: none */
	uint32_t qos_weight; /* 0: 1 */
};

/* A shared NAND device, resolved (blox_device_resolve()). */
struct blox_cfg_device {
	struct blox_device_params params; /* as asked, for the state file */
	char name[32];
	struct nand_config nand;
	bool store_ram;
	struct fbx_params fbx; /* its resource manager's */
	bool auto_swap;
	uint32_t swap_share;
	int reactor; /* the reactor it lives on (params.reactor - 1); -1: bloxd picks */
};

/*
 * Check @p and resolve it into @out (zeroed here). Every failure writes a
 * one-line reason naming the field ("@where.key") to @err and returns
 * -EINVAL. A namespace on a shared device gets its NAND configuration and
 * dies from the provisioning service later.
 */
int blox_ns_resolve(const struct blox_ns_params *p, const char *where,
		    struct blox_cfg_ns *out, char *err, size_t errlen);
int blox_device_resolve(const struct blox_device_params *p, const char *where,
			struct blox_cfg_device *out, char *err, size_t errlen);

/* An allowed host with its secrets: DH-HMAC-CHAP (DHHC-1) and TLS PSK ("": none). */
struct blox_cfg_host {
	char nqn[NVME_NQN_LENGTH];
	char dhchap_key[DHCHAP_KEY_STR_MAX];
	char dhchap_ctrl_key[DHCHAP_KEY_STR_MAX];
	char tls_psk[NVMF_TLS_PSK_MAX]; /* "NVMeTLSkey-1:..."; "" none */
};

struct blox_cfg_subsys {
	char nqn[NVME_NQN_LENGTH];
	char serial[21];
	char model[41];
	bool allow_any_host;
	struct blox_cfg_host *hosts;
	size_t nr_hosts;
	struct blox_cfg_ns *ns;
	size_t nr_ns;
};

struct blox_cfg_listener {
	char addr[NVMF_TRADDR_SIZE];
	char port[8];
	bool discovery_only;
	enum nvmf_tls_mode tls;
};

/* "none" (or ""), "required", "allowed" into @m; -EINVAL otherwise. */
int blox_tls_mode_parse(const char *s, enum nvmf_tls_mode *m);
const char *blox_tls_mode_name(enum nvmf_tls_mode m);
/* A TLS PSK in the interchange format, checked; a reason in @err. */
int blox_tls_psk_check(const char *psk, char *err, size_t errlen);

struct blox_config {
	char data_dir[4096]; /* where file-backed namespaces live */
	struct blox_cfg_listener *listeners;
	size_t nr_listeners;
	struct blox_cfg_subsys *subsys;
	size_t nr_subsys;
	struct blox_cfg_device *devices;
	size_t nr_devices;
};

/*
 * The embedded default: device nand0 with one 1 GiB namespace on a
 * channel of it, 127.0.0.1:4420 and discovery on 127.0.0.1:8009.
 */
int blox_config_default(struct blox_config *cfg);
/* Parse JSON text. On error, a one-line reason is written to @err. */
int blox_config_parse(const char *json, struct blox_config *cfg, char *err,
		      size_t errlen);
int blox_config_load(const char *path, struct blox_config *cfg, char *err,
		     size_t errlen);
/*
 * Split "ADDR:PORT" or "[V6ADDR]:PORT" into @addr and @port (at most
 * @portlen - 1 characters); a failure says "@what '@spec': ..." in @err
 * and returns -EINVAL.
 */
int blox_addr_split(const char *spec, const char *what, char *addr, size_t addrlen,
		    char *port, size_t portlen, char *err, size_t errlen);
/* "ADDR:PORT" or "[V6ADDR]:PORT". */
int blox_config_add_listener(struct blox_config *cfg, const char *spec,
			     bool discovery_only, char *err, size_t errlen);
void blox_config_clear_listeners(struct blox_config *cfg);
/* @cfg as config-file JSON text (malloc'd; NULL on ENOMEM): bloxd --print-config. */
char *blox_config_json(const struct blox_config *cfg);
#define BLOX_DEFAULT_DATA_DIR "/var/lib/bloxd"

void blox_config_free(struct blox_config *cfg);
/* Blocks per plane an FTL over @ndies of @g needs for @bytes at @op_permille. */
uint32_t blox_config_nand_blocks(const struct nand_geometry *g, uint32_t ndies,
				 uint64_t bytes, uint32_t op_permille);


/* ---- The provisioning service ---- */

/*
 * The one place that makes and unmakes what the target serves: devices
 * (registered by name), subsystems and their hosts, namespaces with their
 * backends and flash, listeners. The config loader, the admin API and
 * the state file go through it, and it decides which flash a namespace
 * gets. Its calls in steps are private to daemon/mgmt (prov.h).
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
/* The reactor NAND device @name lives on; -ENOENT when there is none. */
int blox_prov_device_reactor(const struct blox_prov *p, const char *name);
const char *blox_prov_data_dir(const struct blox_prov *p);
/*
 * Decide the flash of @cfg's shared devices: each device sized for the
 * namespaces on it (when its blocks per plane are not given), and each
 * namespace on it given its dies, an even split in config order. Done by
 * blox_prov_apply(); on its own for tests.
 */
int blox_prov_plan(struct blox_config *cfg, char *err, size_t errlen);
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

/* ---- Running as a service (svc.c, health.c) ---- */

/* In the data directory: its lock (holding the PID of the bloxd using it). */
#define BLOX_LOCK_FILE "bloxd.lock"
/* In the data directory: the namespaces' SMART / health counts (health.c). */
#define BLOX_HEALTH_FILE "bloxd-health.json"

struct blox_dir_lock {
	int fd; /* -1: not held */
	bool made_dir; /* the lock made the directory: removed with a failed start */
	char dir[4096];
	char path[4200];
};

/*
 * Take the data directory @dir (made if missing) for this process: an
 * exclusive flock(2) on DIR/bloxd.lock, which then holds our PID. 0;
 * -EBUSY when another process holds it (@err: "data directory D is in
 * use by bloxd (pid N)"); another -errno with a reason in @err.
 */
int blox_dir_lock(struct blox_dir_lock *lk, const char *dir, char *err, size_t errlen);
/* The start went through: the directory stays even if the lock made it. */
void blox_dir_lock_keep(struct blox_dir_lock *lk);
/* Let go: the lock file is removed (and a directory the lock made, if empty). */
void blox_dir_unlock(struct blox_dir_lock *lk);

/*
 * The data directory's filesystem is "full" below this many free bytes:
 * flash files there can no longer grow (a host write that needs a new
 * page fails), a checkpoint or the state file cannot be written.
 */
#define BLOX_SPACE_LOW (1ull << 20)

struct blox_space {
	uint64_t free_bytes; /* statvfs(): f_bavail * f_frsize */
	uint64_t total_bytes; /* f_blocks * f_frsize */
	bool full; /* free_bytes < BLOX_SPACE_LOW */
};

/* The free space of @dir's filesystem now. 0 or -errno. */
int blox_space_get(const char *dir, struct blox_space *out);

/*
 * Tell the service manager @state ("READY=1\nSTATUS=..."): one datagram to
 * $NOTIFY_SOCKET (a path, or "@name" in the abstract namespace). 0 also
 * when the variable is not set; -errno when the send fails.
 */
int blox_sd_notify(const char *state);

/*
 * SMART / health counts that outlive a restart: each namespace's data
 * units and commands read and written, power cycles, power-on time and
 * unsafe shutdowns, kept in DIR/bloxd-health.json (written atomically).
 * blox_health_start() reads what the namespaces of @p had when bloxd last
 * stopped into them (struct nvmf_ns_health), counts this start as a power
 * cycle and, when the last run did not stop cleanly, an unsafe shutdown;
 * then writes the file at once and every @period_s seconds.
 * blox_health_stop() writes it a last time (as a clean stop) and frees.
 */
struct blox_health;
int blox_health_start(struct blox_prov *p, unsigned period_s, struct blox_health **out);
void blox_health_stop(struct blox_health *h);
/* Write the file now. 0 or -errno (logged). */
int blox_health_save(struct blox_health *h);

/* ---- Telemetry (telemetry.h in daemon/mgmt) ---- */

/*
 * The sampler the windows of Stats (rates, percentiles, the model) come
 * from: a sample of @p's target now and every second on its loop, until
 * destroyed.
 */
struct blox_telemetry;
int blox_telemetry_create(struct blox_prov *p, struct blox_telemetry **out);
/* NULL: nothing. */
void blox_telemetry_destroy(struct blox_telemetry *tm);

/* ---- The admin plane ---- */

#define BLOX_DEFAULT_ADMIN_SOCKET "/run/bloxd/bloxd.sock"

struct blox_admin_opts {
	const char *socket_path; /* NULL: BLOX_DEFAULT_ADMIN_SOCKET */
	const char *group; /* socket group; NULL: bloxd's own */
	/* TLS listener ADDR:PORT (NULL: none), with its PEM files. */
	const char *tls_listen, *tls_cert, *tls_key, *tls_ca;
	uint32_t idle_timeout_ms; /* a silent client is closed; 0: 60 s */
	/* Requests in flight at once over every client; more are refused. 0: none. */
	uint32_t max_inflight;
};

struct blox_admin;

/*
 * Check @o before anything is made (bloxd's exit code 2 when it fails,
 * with the reason in @err): the socket's directory exists, or is bloxd's
 * own run directory (the default socket's, made by blox_admin_create()) or
 * the data directory @data_dir (made by the lock step); the group exists;
 * with --admin-tls, its certificate, key and CA are given and readable.
 */
int blox_admin_check_opts(const struct blox_admin_opts *o, const char *data_dir, char *err,
			  size_t errlen);
/*
 * Serve the admin API for @prov's target (its data directory keeps the
 * state file); its Stats read windows from @tm's samples.
 */
int blox_admin_create(struct blox_prov *prov, struct blox_telemetry *tm,
		      const struct blox_admin_opts *o, struct blox_admin **out, char *err,
		      size_t errlen);
/* Close every admin connection and the sockets; pending answers are dropped. */
void blox_admin_destroy(struct blox_admin *a);
/*
 * bloxd is stopping: namespace creates are refused from now on, and those
 * still being made are undone when they finish. Then keep the loop running
 * while blox_admin_busy(): namespaces are still being made or torn down
 * off the loop.
 */
void blox_admin_stop(struct blox_admin *a);
bool blox_admin_busy(const struct blox_admin *a);
/*
 * Answers still in an admin connection's output (not yet written to its
 * socket): a stop waits a little for them, so that the answers of work
 * that ended during the stop ("shutting down") reach their clients.
 */
bool blox_admin_flushing(const struct blox_admin *a);
/*
 * Stopping: write the state file again from the running target when its
 * last write failed (each change wrote it already).
 */
void blox_admin_save_state(struct blox_admin *a);

/* ---- The metrics endpoint ---- */

/*
 * OpenMetrics / Prometheus text over HTTP (GET /metrics) on the target's
 * event loop, the families of docs/metrics.md. Bounded: a few connections
 * at once (more are closed at once), small request headers, a timeout on
 * every connection, one request per connection.
 */
struct blox_metrics;

/*
 * Check the ADDR:PORT of --metrics: a numeric IPv4 address, or an IPv6
 * one in brackets, and a port 1..65535. 0, or -EINVAL with a reason.
 */
int blox_metrics_check_addr(const char *spec, char *err, size_t errlen);
/* Serve @prov's target's metrics on @spec. 0, or -errno with a reason. */
int blox_metrics_create(struct blox_prov *prov, const char *spec, struct blox_metrics **out,
			char *err, size_t errlen);
/* Close the listener and every connection. NULL: nothing. */
void blox_metrics_destroy(struct blox_metrics *m);

#endif
