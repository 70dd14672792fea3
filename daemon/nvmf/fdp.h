/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flexible Data Placement inside daemon/nvmf: what fdp.c (logs 20h-22h,
 * features 1Dh, directives, writes, I/O Management) and fdp_ev.c (the FDP
 * events: log 23h, feature 1Eh) share.
 */
#ifndef BLOX_NVMF_FDP_H
#define BLOX_NVMF_FDP_H

#include "nvmf.h"

/* FDP event types (NVMe 2.1, FDP Events log page). Host events: */
#define FDP_EV_RUNFW 0x00 /* Reclaim Unit Not Fully Written */
#define FDP_EV_RUTLE 0x01 /* Reclaim Unit Time Limit Exceeded */
#define FDP_EV_PID 0x03 /* Invalid Placement Identifier */
/* Controller events: */
#define FDP_EV_REALLOC 0x80 /* Media Reallocated */
#define FDP_EV_MODIFY 0x81 /* Implicitly Modified Reclaim Unit Handle */

/* The reclaim unit handle id of @ns's first placement handle in its group. */
uint16_t nvmf_fdp_ruh_base(const struct nvmf_ns *ns);
/*
 * Host event @type of placement handle @ph (placement identifier @pid),
 * recorded if the host enabled it there (feature 1Eh).
 */
void nvmf_fdp_host_event(struct nvmf_ns *ns, uint8_t type, uint16_t pid, uint16_t ph);
/*
 * The backend's own events since the last look (blox_bdev_fdp.ev), as
 * events of the handles that have them enabled now: a reclaim unit closed
 * by its time limit a host event, the others controller events.
 */
void nvmf_fdp_sync(struct nvmf_ns *ns);
/*
 * The saved lists, masks and backend events looked at, from the backend
 * (nvmf_ns_fdp_save() put them there before a stop): false when it has
 * none of this namespace's.
 */
bool nvmf_fdp_load(struct nvmf_ns *ns);
/* Log 23h of Endurance Group @endgid: host events when LSP bit 0 is set, else the controller's. */
uint16_t nvmf_fdp_events_log(struct nvmf_req *req, uint32_t endgid, uint8_t *out, size_t cap,
			     size_t *len);

#endif
