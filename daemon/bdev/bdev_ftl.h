/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to daemon/bdev: the "nand" backend and the NAND devices it runs
 * on. bdev_ftl.c: the backend's I/O, events, create, bind, unbind and
 * destroy; bdev_ftl_info.c: what it tells (telemetry, endurance,
 * predictable latency, memory); bdev_ftl_mig.c: its die migrations;
 * nand_dev.c: the devices (store, engine, real-time driver, fair sharing),
 * their registry and what the resource manager asks of their flash.
 */
#ifndef BLOX_BDEV_FTL_H
#define BLOX_BDEV_FTL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "bdev.h"
#include "ftl.h"
#include "nand.h"
#include "qos.h"

struct event;
struct nand_rt;
struct fb_sub;
struct fb_io;

struct blox_nand_dev {
	char name[32];
	uint32_t refs;
	TAILQ_ENTRY(blox_nand_dev) link; /* in a registry */
	bool registered;
	struct nand_store *store;
	struct nand_dev *dev;
	struct nand_rt *rt;
	/* The "smart" suspension policy's state and inputs (qos/), when it has it. */
	struct qos_suspend_state susp;
	struct qos_suspend_inputs susp_in;
	bool smart;
	/*
	 * A registered device shares its dies (and channels) among its
	 * namespaces' tenants by weight: one deficit round robin per die
	 * (channel) and class.
	 */
	struct qos_drr *drr, *drr_bus;
	uint32_t ndies, nch;
	/* Where it lives and runs (NULL: the core's reactor); set once, at its open. */
	struct blox_bdev_home *home;
};

struct ftl_bdev {
	struct blox_bdev base;
	struct blox_nand_dev *nd;
	struct nand_store *store; /* nd's, for quick access */
	struct nand_dev *dev;
	struct nand_rt *rt; /* nd's driver; NULL while unbound */
	struct ftl *ftl;
	struct event *kick_ev; /* NULL while unbound */
	struct event *wake_ev; /* a throttled migration's next step; NULL while unbound */
	uint64_t wake_ns; /* the time wake_ev is for (the FTL's wait); 0: none */
	/* Predictable latency: the timer for the window's deadline, who hears of events. */
	struct event *plm_ev; /* NULL while unbound */
	uint64_t plm_armed; /* the deadline plm_ev is set for; 0: none */
	void (*plm_cb)(void *arg);
	void *plm_cb_arg;
	bool kicked;
	uint64_t vnow; /* unbound: the device's time, advanced by the destroy */
	struct ftl_resources res; /* what the FTL owns of the device */
	bool shared_pool; /* its dies are a pool others share (a software vSSD) */
	uint8_t space_level; /* the free-space level last told to the device's policy, +1 (0: never) */
	const struct blox_clock *clock;
	const struct blox_log *log;
	struct fb_io *ios;
	TAILQ_HEAD(, fb_io) free_ios;
	TAILQ_HEAD(, blox_io) waiting;
	/* Blocks smaller than the FTL's unit: every command but Flush goes through it; else NULL. */
	struct fb_sub *sub;
};

#define FTL_BDEV_IOS 4096

/* A request to the FTL on behalf of a blox_io; pooled. */
struct fb_io {
	struct ftl_io fio;
	struct blox_io *io;
	struct ftl_bdev *fb;
	bool busy; /* at the FTL */
	TAILQ_ENTRY(fb_io) link;
};

extern const struct blox_bdev_ops ftl_bdev_ops;

/* nand_dev.c: store and device, without a driver (touches no loop); @shared: tenants share it by weight. */
int nand_dev_open_unbound(const char *name, const struct nand_config *nand,
			  const char *store_path, bool shared, struct blox_nand_dev **out);

/* bdev_ftl.c: what the FTL asks of its device and loop (its env). */
extern const struct ftl_env_ops fb_env_ops;
/* bdev_ftl_power.c: power loss and the rebuild from flash. */
int fb_power_cut(struct blox_bdev *bdev, struct blox_bdev_power_cut *out);
/* bdev_ftl.c: the predictable-latency deadline's timer, after the FTL ran. */
void fb_plm_arm(struct ftl_bdev *fb);

/* bdev_ftl_info.c: the ops that tell. */
void fb_telemetry(struct blox_bdev *bdev, struct blox_bdev_telemetry *t);
void fb_endurance(struct blox_bdev *bdev, struct blox_bdev_endurance *e);
bool fb_fdp_info(struct blox_bdev *bdev, struct blox_bdev_fdp *f);
int fb_fdp_update(struct blox_bdev *bdev, uint32_t ruh);
int fb_fdp_log(struct blox_bdev *bdev, void *buf, uint32_t len, bool save);
int fb_plm_config(struct blox_bdev *bdev, const struct blox_bdev_plm_config *cfg);
int fb_plm_window(struct blox_bdev *bdev, enum blox_plm_window win, uint64_t *retry_in_ns);
void fb_plm_query(struct blox_bdev *bdev, struct blox_bdev_plm_info *out, bool clear);
uint64_t fb_mem_bytes(struct blox_bdev *bdev);

#endif
