/* SPDX-License-Identifier: BSD-3-Clause */
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
#ifndef BLOX_MGMT_PROV_MIG_H
#define BLOX_MGMT_PROV_MIG_H

#include "prov.h"

#include <json-c/json.h>

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
json_object *prov_mig_ended_json(const struct blox_prov *p, const char *dev);
/* Take back the ended jobs of device @dev from its record's array @arr (bad entries skipped). */
void prov_mig_ended_load(struct blox_prov *p, const char *dev, json_object *arr);

#endif
