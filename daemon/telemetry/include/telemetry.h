/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry: one snapshot of the target that every reader renders, the
 * admin API's Stats (bloxctl stats) and the metrics endpoint alike.
 *
 * tm_snap_take() is the one function that asks the namespaces' backends
 * and the devices for their figures (each such call may be a wait on the
 * device's reactor); a reader then only renders the snapshot. Beside the
 * backends' figures a snapshot holds, per namespace and controller, the
 * I/O over the recent window (rates, latency percentiles), the device's
 * lateness and its reactor's CPU over that window, and the model's
 * figures (common/include/blox_model.h) over it.
 *
 * The window: counters are totals; rates and percentiles cover the time
 * between now and the older of two once-a-second samples (1 to 2 s), so
 * a reading shows what happens now rather than an average since start.
 * The sampler (struct blox_telemetry) takes those samples on the loop:
 * the I/O counters of every namespace and controller, and the counters of
 * each namespace's dies and FTL the model needs.
 *
 * The one public header of daemon/telemetry/, which also keeps the
 * namespaces' health counts across restarts (health.c) and serves the
 * metrics endpoint (metrics*.c).
 */
#ifndef BLOX_TELEMETRY_H
#define BLOX_TELEMETRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "blox_hist.h"
#include "blox_model.h"
#include "prov.h"

/*
 * The sampler the windows of Stats (rates, percentiles, the model) come
 * from: a sample of @p's target now and every second on its loop, until
 * destroyed.
 */
struct blox_telemetry;
int blox_telemetry_create(struct blox_prov *p, struct blox_telemetry **out);
/* NULL: nothing. */
void blox_telemetry_destroy(struct blox_telemetry *tm);
/* A sample now (the timer takes one every second). */
void blox_telemetry_sample(struct blox_telemetry *tm);

/* A latency histogram summed up. */
struct tm_lat {
	uint64_t count;
	uint64_t p50_ns, p99_ns, p999_ns, p9999_ns, max_ns; /* 0 without values */
	double mean_ns;
};

void tm_lat_of(const struct blox_hist *h, struct tm_lat *out);

/* I/O of a namespace or a controller: totals, and the window's figures. */
struct tm_io {
	uint64_t read_cmds, write_cmds, read_bytes, write_bytes, errors; /* totals */
	double interval_s; /* the window */
	uint64_t end_ns; /* when it ends: the daemon's clock (CLOCK_MONOTONIC) */
	double read_iops, write_iops, read_bw, write_bw; /* over the window; bytes/s */
	struct tm_lat read_lat, write_lat; /* over the window */
	double mean_queue_depth; /* over the window: time in flight / its length */
	uint64_t queue_depth, max_queue_depth; /* now; the most in the window */
};

/* The model over a namespace's window (its figures in struct blox_model). */
struct tm_model {
	double interval_s;
	uint32_t dies, channels;
	bool from_dies; /* busy time from the dies' counters, else from op counts */
	bool has_ftl;
	struct blox_model r;
	/* The read latency: "closed" (the MVA at the depth held) or "open". */
	const char *latency_model;
	double qd, read_mean_ns, read_mean_pred_ns, read_iops_pred;
	uint64_t p99_read_pred_ns; /* the closed loop's when it applies, else r's */
	bool saturated;
};

/* What the model counts of a namespace's flash (totals). */
struct tm_counters {
	uint64_t busy_ns, read_busy_ns; /* on its dies */
	uint64_t reads, programs; /* ops on its dies */
	uint64_t units_host, units_all; /* FTL units programmed: for the host, all */
};

/* The model's part of a namespace now: its flash and its counters. */
struct tm_flash_now {
	struct blox_model_flash flash;
	struct tm_counters c;
	bool from_dies; /* busy from the per-die counters, else from op counts */
	bool has_ftl;
	double waf_life;
};

/* One namespace as a snapshot found it. */
struct tm_ns {
	const struct nvmf_ns *ns;
	const struct prov_ns_rec *rec; /* NULL: not made by the provisioning service */
	/*
	 * Its backend's telemetry. What @t points to (NAND figures, per-die
	 * counters, suspension decisions) stays valid until that backend's
	 * next telemetry call: render the snapshot before the loop runs on.
	 */
	bool has_tel;
	struct blox_bdev_telemetry t;
	struct ftl_stats fs;
	bool has_qos; /* TM_QOS */
	struct blox_bdev_qos_stats qos;
	bool has_end; /* TM_ENDURANCE */
	struct blox_bdev_endurance end;
	/* TM_WINDOW: */
	bool has_flash; /* the model's part of it now (none: no NAND, null timing, ...) */
	struct tm_flash_now flash;
	struct tm_io io;
	bool has_late; /* its device's lateness over the window */
	struct tm_lat late;
	unsigned reactor; /* its device's */
	double reactor_cpu; /* that reactor's CPU over the window (0..1); 0: unknown */
	bool has_model;
	struct tm_model model;
	bool has_fdp; /* placement handles: their counters */
	struct blox_bdev_fdp fdp;
};

struct tm_ctrl {
	const struct nvmf_ctrl *c;
	struct tm_io io; /* TM_WINDOW */
};

/* What a snapshot gathers beside the backends' telemetry. */
enum {
	TM_QOS = 1u << 0, /* the namespaces' QoS counters */
	TM_ENDURANCE = 1u << 1, /* their wear (blox_bdev_endurance()) */
	TM_WINDOW = 1u << 2, /* the window's figures and the model (needs the sampler) */
};

struct tm_snap {
	uint64_t now; /* the target's clock */
	bool matched; /* a subsystem matched the filter (or there was none) */
	struct tm_ns *ns;
	size_t nr_ns;
	struct tm_ctrl *ctrl;
	size_t nr_ctrl;
};

/*
 * The namespaces and controllers of @p's target, of subsystem @nqn only
 * (NULL or "": every one), of namespace @nsid only (0: every one; given:
 * no controllers), with what @what asks for. @tm may be NULL without
 * TM_WINDOW. 0 or -ENOMEM; tm_snap_free() either way.
 */
int tm_snap_take(struct blox_prov *p, struct blox_telemetry *tm, const char *nqn,
		 uint32_t nsid, unsigned what, struct tm_snap *out);
void tm_snap_free(struct tm_snap *s);

/* ---- Health counts (health.c) ---- */

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

/* ---- The metrics endpoint ---- */

/*
 * OpenMetrics / Prometheus text over HTTP (GET /metrics) on the target's
 * event loop, the families of docs/metrics.md. Bounded: a few connections
 * at once (more are closed at once), small request headers, a timeout on
 * every connection, one request per connection.
 */
struct blox_metrics;

/* Serve @prov's target's metrics on @spec (conf.h: blox_metrics_check_addr()). 0, or -errno with a reason. */
int blox_metrics_create(struct blox_prov *prov, const char *spec, struct blox_metrics **out,
			char *err, size_t errlen);
/* Close the listener and every connection. NULL: nothing. */
void blox_metrics_destroy(struct blox_metrics *m);

#endif
