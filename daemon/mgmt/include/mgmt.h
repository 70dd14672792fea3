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

#include "ftl.h"
#include "nand.h"
#include "nvmf.h"
#include "tcp.h"

/* The state file in the data directory: bloxd starts from it when it exists. */
#define BLOX_STATE_FILE "bloxd-state.json"

#define BLOX_DEFAULT_NQN "nqn.2026-12.io.blox:default"

struct blox_cfg_ns {
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
	uint32_t first_die, nr_dies; /* its share of the device, set at parse */
	char *params; /* the namespace's JSON object as text (state file) */
};

/* A NAND device that several "nand" namespaces split evenly by dies. */
struct blox_cfg_device {
	char name[32];
	struct nand_config nand;
	bool auto_blocks;
	bool store_ram;
};

struct blox_cfg_subsys {
	char nqn[NVME_NQN_LENGTH];
	char serial[21];
	char model[41];
	bool allow_any_host;
	char (*hosts)[NVME_NQN_LENGTH];
	size_t nr_hosts;
	struct blox_cfg_ns *ns;
	size_t nr_ns;
};

struct blox_cfg_listener {
	char addr[NVMF_TRADDR_SIZE];
	char port[8];
	bool discovery_only;
};

struct blox_config {
	char data_dir[4096]; /* where file-backed namespaces live */
	struct blox_cfg_listener *listeners;
	size_t nr_listeners;
	struct blox_cfg_subsys *subsys;
	size_t nr_subsys;
	struct blox_cfg_device *devices;
	size_t nr_devices;
	char *devices_json; /* the "devices" array as text, NULL if none */
};

/* The embedded default: one RAM namespace, 127.0.0.1:4420 and :8009. */
int blox_config_default(struct blox_config *cfg);
/* Parse JSON text. On error, a one-line reason is written to @err. */
int blox_config_parse(const char *json, struct blox_config *cfg, char *err,
		      size_t errlen);
int blox_config_load(const char *path, struct blox_config *cfg, char *err,
		     size_t errlen);
/* "ADDR:PORT" or "[V6ADDR]:PORT". */
int blox_config_add_listener(struct blox_config *cfg, const char *spec,
			     bool discovery_only, char *err, size_t errlen);
void blox_config_clear_listeners(struct blox_config *cfg);
/* Create everything in @cfg on @tgt and listen through @tcp. */
#define BLOX_DEFAULT_DATA_DIR "/var/lib/bloxd"

int blox_config_apply(const struct blox_config *cfg, struct nvmf_tgt *tgt,
		      struct nvmf_tcp *tcp, char *err, size_t errlen);
void blox_config_free(struct blox_config *cfg);
/*
 * One namespace object (the JSON of a "namespaces" entry), checked as
 * the config parser checks it. Free ns->params after use.
 */
int blox_config_parse_ns(const char *json, struct blox_cfg_ns *ns, char *err,
			 size_t errlen);
/*
 * Create namespace @cn in @s: its backend (its own store file in
 * @data_dir for "nand", or its dies of @shared) and the namespace.
 * @fresh: refuse when a store file of that name exists already.
 */
int blox_config_create_ns(const char *data_dir, struct nvmf_subsys *s,
			  const struct blox_cfg_ns *cn, struct blox_nand_dev *shared,
			  bool fresh, struct nvmf_ns **out, char *err, size_t errlen);
/*
 * blox_config_create_ns() in steps, for a backend made elsewhere (on
 * another thread): its parameters @bp (pointing into @cn and @store) and
 * its own store file, written to @store ("" when it has none); then,
 * once made, the namespace over @bdev, keeping @store_path (NULL: none).
 * On failure @bdev stays the caller's.
 */
struct blox_bdev_params;
int blox_config_ns_plan(const char *data_dir, const struct nvmf_subsys *s,
			const struct blox_cfg_ns *cn, struct blox_nand_dev *shared,
			bool fresh, struct blox_bdev_params *bp, char *store,
			size_t storelen, char *err, size_t errlen);
int blox_config_ns_attach(struct nvmf_subsys *s, const struct blox_cfg_ns *cn,
			  struct blox_bdev *bdev, const char *store_path,
			  struct nvmf_ns **out, char *err, size_t errlen);
int blox_config_store_path(const char *data_dir, const char *nqn, uint32_t nsid,
			   char *out, size_t len, char *err, size_t errlen);
/* Size the geometry's blocks per plane so the FTL can hold the namespace. */
void blox_config_size_nand(struct blox_cfg_ns *ns);
/* Blocks per plane an FTL over @ndies of @g needs for @bytes at @op_permille. */
uint32_t blox_config_nand_blocks(const struct nand_geometry *g, uint32_t ndies,
				 uint64_t bytes, uint32_t op_permille);


/* ---- The admin plane ---- */

#define BLOX_DEFAULT_ADMIN_SOCKET "/run/bloxd/bloxd.sock"

struct blox_admin_opts {
	const char *socket_path; /* NULL: BLOX_DEFAULT_ADMIN_SOCKET */
	const char *group; /* socket group; NULL: bloxd's own */
	/* TLS listener ADDR:PORT (NULL: none), with its PEM files. */
	const char *tls_listen, *tls_cert, *tls_key, *tls_ca;
	uint32_t idle_timeout_ms; /* a silent client is closed; 0: 60 s */
	const char *data_dir; /* state file and namespace stores */
	const char *devices_json; /* shared devices of the config, or NULL */
};

struct blox_admin;

int blox_admin_create(struct nvmf_tgt *tgt, struct nvmf_tcp *tcp,
		      const struct blox_admin_opts *o, struct blox_admin **out,
		      char *err, size_t errlen);
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

#endif
