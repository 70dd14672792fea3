/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Configuration, the one public header of daemon/conf/: what a namespace
 * or a device is made of (parameters as asked, their checks and
 * resolution, the tables of their fields), the start-up configuration
 * (JSON file and embedded default) and its JSON writer, the state file's
 * name and atomic write, and what running as a service takes (the data
 * directory's lock, its free space, the service manager's notification).
 * Nothing here makes anything: the provisioning service (prov.h) does.
 *
 * A configuration is parsed and checked whole before any of it is
 * applied, so a bad file changes nothing.
 */
#ifndef BLOX_CONF_H
#define BLOX_CONF_H

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
	BLOX_NP_RELIABILITY,
	BLOX_NP_ECC_BITS,
	BLOX_NP_READ_RETRIES,
	BLOX_NP_AGING,
	BLOX_NP_ERASE_FAIL_PPB,
	BLOX_NP_RELIABILITY_SEED,
	BLOX_NP_PROGRAM_FAIL_PPB,
	BLOX_NP_FACTORY_BAD_PPM,
	BLOX_NP_HUGE_PAGES,
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
	/* Flash that wears (nand_config.rel, docs/FAULTS.md). */
	bool reliability;
	uint32_t ecc_bits, read_retries, aging, erase_fail_ppb, reliability_seed, program_fail_ppb;
	uint32_t factory_bad_ppm; /* blocks bad from the factory (nand_config.factory_bad_ppm) */
	bool huge_pages; /* the file store on 2 MiB pages (nand_config.huge_pages) */
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
	BLOX_FP_PLACEMENT_HANDLES,
	BLOX_FP_RUH_TYPE,
	BLOX_FP_PLP_MS,
	BLOX_FP_PLP_SUSPEND,
	BLOX_FP_RU_TIME_LIMIT_S,
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
	uint32_t plp_ms; /* power-loss protection's hold-up; 0: off */
	bool plp_suspend; /* its flush suspends running erases (default on) */
	bool gc_pipeline; /* not given: on for software vSSDs, off otherwise */
	/* Flexible Data Placement: reclaim unit handles (0: none) and their type. */
	uint32_t placement_handles;
	char ruh_type[16]; /* persistent (default), initial */
	uint32_t ru_time_limit_s; /* a reclaim unit's time limit (ERUTL); 0: none */
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

/* A zoned namespace's zones as asked (its "zns" object; 0: the default). */
struct blox_zns_params {
	uint64_t zone_size; /* bytes, a power of two; 0: the smallest holding a row of blocks */
	uint32_t max_open, max_active; /* 0: no limit */
};

/* A namespace as asked. */
struct blox_ns_params {
	uint32_t nsid; /* 0: none given */
	char backend[16]; /* ram, null, nand, nand-timing, zns */
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
	bool has_zns; /* a "zns" object was given (backend zns) */
	struct blox_zns_params zns;
	/*
	 * Made even when its flash file does not fit the data directory's
	 * free space, or its RAM the host's memory (a sparse overcommit, with
	 * a warning); false: refused then (prov_cap.c).
	 */
	bool overcommit;
	uint32_t ana_group; /* its ANA group, 1..NVMF_ANAGRPMAX; 0: not given (1) */
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
	struct nand_config nand; /* backends "nand", "nand-timing" and "zns" */
	bool auto_blocks; /* blocks_per_plane not given: size to the namespace */
	bool zoned; /* backend "zns": zones straight on NAND, params.zns */
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
/*
 * Backend zns, from blox_ns_resolve() (params_zns.c): its zones checked
 * (4096-byte blocks, a zone size that is a power of two, Max Open within
 * Max Active) and, on a device of its own, the size in whole zones and its
 * blocks per plane (a row of blocks per zone, and one spare row per eight
 * zones, at least one, for wear leveling). 0 or -EINVAL with the reason.
 */
int blox_zns_resolve(struct blox_cfg_ns *ns, const char *where, char *err, size_t errlen);
/*
 * The bytes of one zone of a zns namespace on @ndies dies of @g with the
 * zone size asked in @z (0: the default); 0 when the geometry holds none.
 */
uint64_t blox_zns_zone_bytes(const struct nand_geometry *g, uint32_t ndies,
			     const struct blox_zns_params *z);
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
	/* Its ANA state per group (enum nvme_ana_state; 0: not set, optimized). */
	uint8_t ana_state[NVMF_ANAGRPMAX + 1];
	/* The address its discovery log entries carry ("": its own); canonical. */
	char advertise[NVMF_TRADDR_SIZE];
};

/*
 * @adv, the address a listener on @addr advertises, checked (an IPv4 or
 * IPv6 literal of @addr's family, not 0.0.0.0 or ::) into @canon; -EINVAL
 * with the reason in @err.
 */
int blox_advertise_check(const char *addr, const char *adv, char canon[NVMF_TRADDR_SIZE],
			 char *err, size_t errlen);

/*
 * "GROUP=STATE" (a group 1..NVMF_ANAGRPMAX, a state as nvme-cli names it:
 * optimized, non-optimized, inaccessible, persistent-loss, change) into
 * @grp and @st; -EINVAL with the reason in @err.
 */
int blox_ana_spec_parse(const char *spec, uint32_t *grp, uint8_t *st, char *err,
			size_t errlen);

/* "none" (or ""), "required", "allowed" into @m; -EINVAL otherwise. */
int blox_tls_mode_parse(const char *s, enum nvmf_tls_mode *m);
const char *blox_tls_mode_name(enum nvmf_tls_mode m);
/* A TLS PSK in the interchange format, checked; a reason in @err. */
int blox_tls_psk_check(const char *psk, char *err, size_t errlen);

/* A referral to another discovery service (the discovery log lists it). */
struct blox_cfg_referral {
	char addr[NVMF_TRADDR_SIZE]; /* canonical IPv4 or IPv6 text */
	char port[8];
};

struct blox_config {
	char data_dir[4096]; /* where file-backed namespaces live */
	struct blox_cfg_listener *listeners;
	size_t nr_listeners;
	struct blox_cfg_referral *referrals;
	size_t nr_referrals;
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
/*
 * Blocks per plane an FTL with @c over @ndies of @g needs for @bytes: its
 * over-provisioning, and an open superblock per stream its placement
 * handles add.
 */
uint32_t blox_config_nand_blocks(const struct nand_geometry *g, uint32_t ndies,
				 uint64_t bytes, const struct ftl_config *c);

/*
 * Decide the flash of @cfg's shared devices: each device sized for the
 * namespaces on it (when its blocks per plane are not given), and each
 * namespace on it given its dies, an even split in config order. Done by
 * blox_config_parse() (a dry run) and blox_prov_apply().
 */
int blox_config_plan(struct blox_config *cfg, char *err, size_t errlen);

/* The JSON of a namespace's parameters (with its nsid) or a device's, as in the config file. */
struct json_object;
struct json_object *cfg_ns_json(const struct blox_ns_params *p);
struct json_object *cfg_device_json(const struct blox_device_params *p);
/* Write @text to @path atomically. 0 or -errno with a reason in @err. */
int blox_state_write(const char *path, const char *text, char *err, size_t errlen);

/* ---- The fields of the parameters, as tables ---- */

/*
 * The fields of the NAND and FTL parameters as tables, so that the
 * config file's JSON, the admin API's protobuf messages and the state
 * file read and write them the same way, by the same names, with one set
 * of checks.
 */
enum blox_param_kind {
	BLOX_PK_U32, /* an integer up to @max; 0 given counts as given */
	BLOX_PK_BOOL,
	BLOX_PK_STR, /* text of fewer than @len bytes, one of @values */
};

struct blox_param_field {
	const char *key; /* as in the config file and the .proto */
	enum blox_param_kind kind;
	size_t off; /* in the parameter struct */
	size_t len; /* BLOX_PK_STR: the buffer */
	uint32_t min, max; /* BLOX_PK_U32 */
	/* BLOX_PK_U32: out of range ("%s.%s: " is put before it); NULL: "at most MAX" */
	const char *range_msg;
	/* BLOX_PK_STR: the values allowed and how to say so */
	const char *const *values;
	const char *values_msg; /* e.g. "is not file or ram" */
};

struct blox_param_table {
	const char *name; /* "nand", "ftl" */
	const struct blox_param_field *fields;
	size_t n; /* field i is bit 1u << i of the struct's 'set' */
	const char *const *keys; /* the keys, NULL-terminated */
};

extern const struct blox_param_table blox_nand_table, blox_ftl_table, blox_fbx_table,
	blox_qos_table;

/* A namespace's QoS parameters as the limits the backend holds it to, and its weight. */
void blox_qos_resolve(const struct blox_qos_params *p, struct qos_limits *lim, uint32_t *weight);

/* Permille of the dies' time a wear-balancing swap takes unless the device says. */
#define PROV_DEFAULT_SWAP_SHARE 250

/* The 'set' bits of a parameter struct (its first member). */
static inline uint32_t *blox_params_set(void *params)
{
	return (uint32_t *)params;
}

/* Is field @i of @params given? */
static inline int blox_param_given(const void *params, size_t i)
{
	return (*(const uint32_t *)params >> i) & 1u;
}

/*
 * Check the values given in @params against @t (ranges, allowed words).
 * -EINVAL with "@where.key: ..." in @err.
 */
int blox_params_check(const struct blox_param_table *t, const void *params,
		      const char *where, char *err, size_t errlen);

/* Canonical 8-4-4-4-12 hex form only. 0 or -EINVAL. */
int blox_uuid_parse(const char *s, uint8_t out[16]);
void blox_uuid_str(const uint8_t u[16], char out[37]);

/* Format the reason into @err; returns -EINVAL. */
int blox_fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- Running as a service (svc.c) ---- */

/* In the data directory: its lock (holding the PID of the bloxd using it). */
#define BLOX_LOCK_FILE "bloxd.lock"
/* In the data directory: the namespaces' SMART / health counts (telemetry's health.c). */
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

/* ---- bloxd's command line (args.c) ---- */

/* bloxd's exit codes (also in --help). */
enum bloxd_exit {
	BLOXD_EX_CLEAN = 0,
	BLOXD_EX_RUNTIME = 1, /* a failure while starting or running */
	BLOXD_EX_USAGE = 2, /* bad command line or bad config */
	BLOXD_EX_LOCKED = 3, /* the data directory is used by another bloxd */
	BLOXD_EX_BIND = 4, /* a listener or the admin socket cannot be bound */
	BLOXD_EX_CAPACITY = 5, /* not enough capacity for a namespace */
};

/* The admin API's settings (the admin part checks and serves them). */
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

/*
 * --poll-us default: on, with a small budget. 50 us covers a host's
 * turn-around at queue depth 1 with room for a slower host or a LAN hop
 * (its next command comes while the loop still polls: no sleep and
 * wake-up per command), and costs at most 50 us of CPU after the last
 * command of a burst: nothing while idle, 0.0025% of a core with a Keep
 * Alive every 2 s (docs/PERFORMANCE.md; 20 did as well at QD1 on loopback
 * there, within the noise of a shared machine).
 */
#define BLOXD_POLL_US 50
/* --referral-probe-ms default: each referral's node looked at every 5 s. */
#define BLOX_REFERRAL_PROBE_MS 5000u
/* --reactors default: one per CPU bloxd may run on, up to this many. */
#define BLOXD_REACTORS_AUTO_MAX 8

/* What the command line asks for, before any file is read. */
struct bloxd_args {
	const char *config, *data_dir;
	struct {
		const char *spec;
		bool disc;
	} listen[64];
	size_t nr_listen;
	bool print_config, syslog;
	bool done; /* --help or --version: said, nothing to run */
	int log_level;
	struct nvmf_tcp_limits tcp_limits;
	struct nvmf_tgt_limits tgt_limits;
	struct blox_admin_opts admin_opts;
	unsigned shutdown_timeout; /* seconds */
	unsigned poll_us; /* --poll-us: busy-poll budget after work; 0: off */
	unsigned nr_reactors; /* --reactors; 0: one per CPU (up to BLOXD_REACTORS_AUTO_MAX) */
	const char *metrics_addr; /* --metrics; NULL: no endpoint */
	bool no_mdns; /* --no-mdns: no zero-touch discovery announcements */
	unsigned referral_probe_ms; /* --referral-probe-ms; 0: referrals not watched */
};

/* The defaults of every flag. */
void bloxd_args_init(struct bloxd_args *a);
/*
 * The command line into @a (from bloxd_args_init()): 0, or BLOXD_EX_USAGE
 * with the reason on stderr. --help and --version print and set @a->done.
 */
int bloxd_args_parse(int argc, char **argv, struct bloxd_args *a);

/* Where each part of the configuration came from (--print-config, the log). */
struct bloxd_sources {
	char base[4300]; /* subsystems, hosts, namespaces, devices */
	char listeners[4400];
	const char *data_dir;
};

/*
 * The configuration to start from, by bloxd's precedence (args.c): the
 * state file, else --config, else the embedded default; -l/-D replace its
 * listeners. @src says whence. 0, or a bloxd exit code with the reason
 * logged to @log.
 */
int bloxd_config_load(const struct bloxd_args *a, const struct blox_log *log,
		      struct blox_config *cfg, struct bloxd_sources *src);
/* --print-config: @cfg on stdout, its sources on stderr. An exit code. */
int bloxd_config_print(const struct blox_config *cfg, const struct bloxd_sources *src);

/*
 * The ADDR:PORT of --metrics: a numeric IPv4 address, or an IPv6 one in
 * brackets, and a port 1..65535, resolved into @ai (freeaddrinfo() it).
 * 0, or -EINVAL with a reason.
 */
struct addrinfo;
int blox_metrics_addr_resolve(const char *spec, struct addrinfo **ai, char *err,
			      size_t errlen);
/* The same, checked only. */
int blox_metrics_check_addr(const char *spec, char *err, size_t errlen);

#endif
