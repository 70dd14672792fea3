/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the NVM Set and Endurance Group tests share: the fixture of fake
 * flash namespaces (endgrp.c, endgrp_setup()) and its helpers, which
 * endgrp_nand.c uses too.
 */
#ifndef BLOX_TEST_ENDGRP_H
#define BLOX_TEST_ENDGRP_H

#include <stdint.h>

#include "fake_nvmf.h"

#define MiB (1024u * 1024u)
#define NSMAX 64

/* A backend that tells the figures the test gives it. */
struct ffl {
	struct blox_bdev base;
	struct blox_bdev_endurance e;
};

struct efx {
	struct fake_tgt ft;
	struct nvmf_subsys *s;
	struct fake_q *q;
	struct fake_cmd *c;
	struct nvmf_ns *ns[NSMAX + 1]; /* by nsid */
	struct ffl *fl[NSMAX + 1];
};

/* A 16-byte counter that fits in 64 bits (the upper half must be zero). */
uint64_t endgrp_get128(const uint8_t *p);

#endif
