/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to daemon/mgmt: the provisioning service's objects and its
 * calls in steps, for the admin API, which makes slow namespaces off the
 * event loop. The service is the one place that makes and unmakes what
 * the target serves: devices (registered by name), subsystems and their
 * hosts, namespaces with their backends and flash, listeners; the config
 * loader, the admin API and the state file all go through it, and it
 * decides which dies of a device a namespace gets.
 */
#ifndef BLOX_PROV_H
#define BLOX_PROV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bdev.h"
#include "mgmt.h"

/* A registered device and who owns each of its dies. */
struct prov_device {
	struct blox_cfg_device cfg; /* as resolved (and sized) */
	struct blox_nand_dev *dev;
	uint32_t nr_dies;
	bool *taken; /* per die: a namespace has it */
	TAILQ_ENTRY(prov_device) link;
};

struct blox_prov {
	struct nvmf_tgt *tgt;
	struct nvmf_tcp *tcp; /* NULL: no listeners (unit tests) */
	const struct blox_log *log;
	char data_dir[4096];
	struct blox_dev_registry registry;
	TAILQ_HEAD(, prov_device) devices;
};

/* What the service keeps of a namespace it made (the namespace's owner). */
struct prov_ns_rec {
	struct blox_ns_params params; /* as asked, nsid filled in */
	char *store_path; /* its own store file, NULL when it has none */
	struct prov_device *dev; /* on a registered device, else NULL */
	uint32_t nr_dies;
	uint32_t dies[BLOX_FTL_MAX_DIES];
};

/* A namespace between its plan and its attach. */
struct prov_ns_plan {
	struct blox_cfg_ns cn;
	struct blox_bdev_params bp; /* points into cn and store */
	char store[4200]; /* its own store file, "" if none */
	bool fresh_store; /* the store file is new: removed if the create fails */
	struct prov_device *dev;
	struct blox_bdev *bdev; /* once built */
};

/*
 * Namespaces in steps. prov_ns_plan() (on the loop): checks, the store
 * file's path (@fresh: refuse one that exists), the dies on a registered
 * device. prov_ns_build(): the backend; for a plan that prov_ns_slow()
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

/* The record of a namespace the service made (NULL for any other). */
const struct prov_ns_rec *prov_ns_rec(const struct nvmf_ns *ns);
/*
 * Delete @ns: off its subsystem at once (hosts hear of it), its backend
 * handed to @released(@arg, bdev) once its last command is done (see
 * nvmf_ns_detach()). Returns its store file's path, the caller's now (to
 * remove once the backend is gone), or NULL when it has none.
 */
char *prov_ns_delete(struct blox_prov *p, struct nvmf_ns *ns,
		     void (*released)(void *arg, struct blox_bdev *bdev), void *arg);

/* Subsystems (@cs without its namespaces), hosts, listeners. */
int prov_subsys_create(struct blox_prov *p, const struct blox_cfg_subsys *cs,
		       struct nvmf_subsys **out, char *err, size_t errlen);
/* Off the target with its namespaces: none may be in use (no controllers). */
void prov_subsys_delete(struct blox_prov *p, struct nvmf_subsys *s);
void prov_subsys_allow_any_host(struct blox_prov *p, struct nvmf_subsys *s, bool allow);
int prov_host_add(struct blox_prov *p, struct nvmf_subsys *s, const char *hostnqn);
int prov_host_remove(struct blox_prov *p, struct nvmf_subsys *s, const char *hostnqn);
int prov_listener_add(struct blox_prov *p, const struct blox_cfg_listener *l,
		      struct nvmf_port **out, char *err, size_t errlen);
void prov_listener_remove(struct blox_prov *p, struct nvmf_port *port);

/* Devices: registered under their names, sized and opened. */
int prov_device_create(struct blox_prov *p, const struct blox_cfg_device *d, char *err,
		       size_t errlen);
/* -EBUSY while namespaces are on it. */
int prov_device_destroy(struct blox_prov *p, const char *name);

#endif
