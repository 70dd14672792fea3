/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to telemetry: the sampler's history (tm_sample.c), which the
 * snapshot (tm_snap.c) reads its windows from.
 */
#ifndef BLOX_TM_INTERNAL_H
#define BLOX_TM_INTERNAL_H

#include <sys/queue.h>

#include "telemetry.h"

struct event;

/* What the sampler keeps of one namespace between samples. */
struct tm_model_ns {
	const struct nvmf_ns *ns; /* with @created_ns, who it is (never dereferenced) */
	uint64_t created_ns;
	bool seen; /* in the last sample */
	/* A device of its own: its NAND configuration, resolved once from its parameters. */
	bool cfg_tried, cfg_ok;
	struct nand_config cfg;
	struct tm_counters snap[2]; /* as ns->snap: [0] newest, taken at snap_ns */
	uint64_t snap_ns[2];
	/* Its device's lateness histogram at the samples (0: none then). */
	struct blox_hist late[2];
	uint64_t late_ns[2];
	TAILQ_ENTRY(tm_model_ns) link;
};

struct blox_telemetry {
	struct blox_prov *p;
	struct event *sample_ev; /* every second */
	TAILQ_HEAD(, tm_model_ns) nss;
	/* Each reactor's thread CPU time at the samples, and when. */
	uint64_t cpu_ns[2][PROV_REACTORS_MAX], cpu_at[2];
};

/* The sampler's entry of @ns, or NULL. */
struct tm_model_ns *tm_model_find(const struct blox_telemetry *tm, const struct nvmf_ns *ns);
/*
 * The sample a reading's window starts from: 1 (the older, 1 to 2 s
 * ago), 0 (the newer, when it is at least 0.5 s old and the only one),
 * or -1 (none: the window starts at the object's creation).
 */
int tm_window_base(const uint64_t snap_ns[2], uint64_t now);

/* Besides what tm_snap_take() is asked: the model's part of each namespace now (@flash). */
#define TM_FLASH (1u << 8)

#endif
