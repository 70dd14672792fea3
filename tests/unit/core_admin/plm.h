/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the predictable latency tests share: the fixture (plm.c,
 * plm_setup()) and the commands they send, which plm_nand.c uses too.
 */
#ifndef BLOX_TEST_PLM_H
#define BLOX_TEST_PLM_H

#include <stdbool.h>
#include <stdint.h>

#include "fake_nvmf.h"

#define MiB (1024u * 1024u)
#define MS (1000ull * 1000)

struct fpl;
struct nvme_plm_config;

struct pfx {
	struct fake_tgt ft;
	struct event_base *base; /* NULL: virtual clock, no loop */
	struct nvmf_subsys *s;
	struct fake_q *q;
	struct fake_cmd *c;
	struct fpl *fp[8]; /* by nsid: 2 and 5 */
};

/* Set Features 13h of NVM Set @set: enable (@on) with @cfg (NULL: zeroes), or disable. */
uint16_t plm_enable(struct pfx *f, uint16_t set, bool on, const struct nvme_plm_config *cfg);
/* Set Features 12h of NVM Set @set: window @ws (NVME_FEATURE_PLM_DTWIN/NDWIN). */
uint16_t plm_set_window(struct pfx *f, uint16_t set, uint32_t ws);
/* Log 0Ah of @set (LSI), 512 bytes, into f->c->buf. */
uint16_t plm_set_log(struct pfx *f, uint32_t set, bool rae);
/* Run the loop until @c completes (at most @max_ms). */
void plm_loop_until(struct pfx *f, struct fake_cmd *c, uint64_t max_ms);

#endif
