/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Private to daemon/prov's migration jobs: a job with what its progress
 * view keeps, shared by the jobs' running (prov_mig.c) and what is read
 * of them (prov_mig_view.c: the progress, the ended jobs a device's record
 * keeps).
 */
#ifndef BLOX_PROV_MIG_INTERNAL_H
#define BLOX_PROV_MIG_INTERNAL_H

#include <stddef.h>

#include "prov.h"

#define RATE_SAMPLES 64 /* > PROV_MIG_RATE_WINDOW_S seconds of polls */
#define RATE_MIN_NS 500000000ull /* a recent rate needs half a second of samples */

/*
 * A job and what its progress view keeps (prov_mig_new() makes both;
 * container_of() finds this from the job).
 */
struct mig_ext {
	struct prov_mig m;
	/* Forward progress as shown: the most reached. */
	double pct;
	uint64_t fwd_shown, fwd_total;
	/* Moving back: by the moves ended, the move under way, as shown. */
	uint64_t back_done, back_shown, back_total;
	bool cur_reverse; /* the FTL's move under way goes back (its last sample) */
	uint64_t move_fwd[FBX_MAX_MOVES]; /* forward bytes each move made */
	/* Bytes moved either way, never less (the recent rate's counter). */
	uint64_t moved, raw;
	struct {
		uint64_t ns, bytes;
	} ring[RATE_SAMPLES];
	unsigned head, n; /* samples in ring[], the newest at head - 1 */
	uint64_t elapsed_saved; /* an ended job read back from a device's record */
};

static inline struct mig_ext *mig_ext_of(struct prov_mig *m)
{
	return (struct mig_ext *)((char *)m - offsetof(struct mig_ext, m));
}

static inline const struct mig_ext *mig_ext_of_c(const struct prov_mig *m)
{
	return (const struct mig_ext *)((const char *)m - offsetof(struct mig_ext, m));
}

static inline bool prov_mig_ended(const struct prov_mig *m)
{
	return m->state == PM_DONE || m->state == PM_CANCELLED || m->state == PM_FAILED;
}

/* The recent rate starts again (a pause, a resume, a cancel, a change of share). */
void prov_mig_rate_reset(struct prov_mig *m);
/* The FTL's progress of @m's move under way, into its view (each poll). */
void prov_mig_sample(struct blox_prov *p, struct prov_mig *m);
/* Ended jobs beyond the newest PROV_MIG_KEEP of their device go. */
void prov_mig_prune(struct blox_prov *p);

#endif
