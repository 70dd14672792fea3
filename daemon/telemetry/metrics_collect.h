/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One scrape of the metrics endpoint as its collectors share it
 * (metrics_collect.c, metrics_flash.c): the telemetry snapshot with each
 * namespace's, controller's and NAND device's labels, and the writer the
 * families go to. Private to the telemetry part.
 */
#ifndef BLOX_METRICS_COLLECT_H
#define BLOX_METRICS_COLLECT_H

#include "metrics.h"
#include "telemetry.h"

/* One namespace of the snapshot, with its labels. */
struct mx_ns {
	const struct nvmf_ns *ns;
	const struct tm_ns *s;
	char nsid[12];
	struct mx_labels l; /* subnqn, nsid, backend[, device] */
};

struct mx_ctrl {
	const struct nvmf_ctrl *c;
	char cntlid[8];
	struct mx_labels l; /* subnqn, cntlid, hostnqn */
};

/* A NAND device: a namespace's own, or a registered one (first namespace on it). */
struct mx_nand {
	const struct mx_ns *from;
	struct mx_labels l;
};

struct mx_scrape {
	struct blox_prov *p;
	struct mx_writer w;
	struct tm_snap snap;
	struct mx_ns *ns;
	size_t nr_ns;
	struct mx_ctrl *ctrl;
	size_t nr_ctrl;
	struct mx_nand *nand;
	size_t nr_nand;
};

#define FOR_NS(s, n) for (struct mx_ns *n = (s)->ns; n < (s)->ns + (s)->nr_ns; n++)
#define FOR_CTRL(s, c) for (struct mx_ctrl *c = (s)->ctrl; c < (s)->ctrl + (s)->nr_ctrl; c++)
#define FOR_NAND(s, d) for (struct mx_nand *d = (s)->nand; d < (s)->nand + (s)->nr_nand; d++)

/* A family's header: its name, type, unit (NULL: none) and help. */
static inline void fam(struct mx_scrape *s, const char *name, enum mx_type type,
		       const char *unit, const char *help)
{
	mx_family(&s->w, &(struct mx_family){ name, type, unit, help });
}

/* @l plus one pair, in @out. */
static inline const struct mx_labels *with(struct mx_labels *out, const struct mx_labels *l,
					   const char *name, const char *value)
{
	*out = *l;
	mx_label(out, name, value);
	return out;
}

/*
 * The flash's families (metrics_flash.c): the FTL's counters, FDP's per
 * reclaim unit handle, the NAND devices', the registered devices'.
 */
void mx_flash_families(struct mx_scrape *s);

#endif
