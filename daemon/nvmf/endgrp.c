/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * NVM Sets and Endurance Groups of a subsystem's namespaces (NVMe base
 * specification 2.0, 3.2.2 and 3.2.3): which group each namespace is in,
 * and what its backend says of the flash under it. How the ids are given
 * out is told at nvmf_ns_endgrp_assign() in nvmf.h. Identify (CNS 04h,
 * 19h) is in admin_cmd.c, the Endurance Group Information log in
 * logpage.c.
 */
#include "nvmf.h"

#include <string.h>

_Static_assert(NVMF_MAX_NS <= 0xffff, "NVM Set and Endurance Group ids are 16 bits");

static bool endgid_taken(const struct nvmf_subsys *s, uint32_t id)
{
	const struct nvmf_ns *ns;

	TAILQ_FOREACH(ns, &s->namespaces, link)
		if (ns->endgid == id)
			return true;
	return false;
}

void nvmf_ns_endgrp_assign(struct nvmf_subsys *s, struct nvmf_ns *ns)
{
	struct blox_bdev_endurance e;
	const struct nvmf_ns *o;
	uint32_t id;

	memset(&e, 0, sizeof(e));
	blox_bdev_endurance(ns->bdev, &e);
	ns->pool = e.shared_pool;
	ns->pool_key = e.pool_key;
	if (ns->pool) {
		TAILQ_FOREACH(o, &s->namespaces, link) {
			if (o->pool && o->pool_key == ns->pool_key) {
				ns->endgid = o->endgid;
				return;
			}
		}
	}
	id = ns->nsid;
	if (endgid_taken(s, id))
		for (id = 1; id < NVMF_ENDGIDMAX && endgid_taken(s, id); id++)
			;
	ns->endgid = (uint16_t)id;
}

void nvmf_ns_endurance(struct nvmf_ns *ns, struct blox_bdev_endurance *e)
{
	memset(e, 0, sizeof(*e));
	if (blox_bdev_endurance(ns->bdev, e))
		return;
	e->avail_spare = 100;
	e->spare_threshold = 10;
	e->host_read_bytes = ns->stats.read_bytes;
	e->host_written_bytes = ns->stats.write_bytes;
	e->total_bytes = ns->bdev->size;
}

uint8_t nvmf_endurance_warning(const struct blox_bdev_endurance *e)
{
	uint8_t w = 0;

	if (e->avail_spare < e->spare_threshold)
		w |= NVME_EG_CRITICAL_WARNING_SPARE;
	if (e->read_only)
		w |= NVME_EG_CRITICAL_WARNING_READ_ONLY;
	return w;
}
