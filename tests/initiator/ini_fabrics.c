/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fabrics commands of the initiator (NVMe-oF 1.1 section 3): Connect,
 * Property Get/Set and Disconnect. The fabrics SQE puts FCTYPE in byte 4
 * (the low byte of the generic nsid field) and its arguments from byte 40
 * (cdw10) on.
 */
#include "ini_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void fabrics_req(struct ini_req *r, uint8_t fctype, void *buf,
			uint32_t len, enum ini_dir dir)
{
	ini_req_init(r, nvme_admin_fabrics, fctype, buf, len, dir);
}

int ini_connect(struct ini_queue *q, const struct ini_connect_args *a,
		struct nvme_cqe *cqe)
{
	struct nvmf_connect_data *d;
	struct ini_req r;
	uint8_t cattr = a->cattr;
	int rc;

	if (strlen(a->subnqn) >= sizeof(d->subsysnqn) ||
	    strlen(a->hostnqn) >= sizeof(d->hostnqn))
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	memcpy(d->hostid, a->hostid, sizeof(d->hostid));
	d->cntlid = a->cntlid;
	strcpy(d->subsysnqn, a->subnqn);
	strcpy(d->hostnqn, a->hostnqn);

	if (q->opts.disable_sqflow)
		cattr |= 0x04;
	fabrics_req(&r, nvme_fabrics_type_connect, d, sizeof(*d), INI_DIR_H2C);
	/* Connect data always goes in-capsule, as Linux hosts send it. */
	r.flags = INI_REQ_INLINE;
	r.sqe.cdw10 = (uint32_t)a->qid << 16; /* RECFMT 0 */
	r.sqe.cdw11 = a->sqsize | (uint32_t)cattr << 16;
	r.sqe.cdw12 = a->kato_ms;
	rc = ini_exec(q, &r);
	free(d);
	if (rc)
		return rc;
	*cqe = r.cqe;
	if (ini_status(&r.cqe) == 0) {
		q->qid = a->qid;
		q->sqflow_disabled = cattr & 0x04;
		ini_queue_set_inline(q, a->qid ? INI_IO_INLINE
					       : INI_ADMIN_INLINE);
	}
	return 0;
}

int ini_prop_get(struct ini_queue *q, uint32_t ofst, bool size8,
		 uint64_t *val)
{
	struct ini_req r;
	int rc;

	fabrics_req(&r, nvme_fabrics_type_property_get, NULL, 0,
		    INI_DIR_NONE);
	r.sqe.cdw10 = size8 ? 1 : 0;
	r.sqe.cdw11 = ofst;
	rc = ini_exec(q, &r);
	if (rc)
		return rc;
	if (val)
		*val = size8 ? r.cqe.result : (uint32_t)r.cqe.result;
	return ini_status(&r.cqe);
}

int ini_prop_set(struct ini_queue *q, uint32_t ofst, bool size8,
		 uint64_t val)
{
	struct ini_req r;
	int rc;

	fabrics_req(&r, nvme_fabrics_type_property_set, NULL, 0,
		    INI_DIR_NONE);
	r.sqe.cdw10 = size8 ? 1 : 0;
	r.sqe.cdw11 = ofst;
	r.sqe.cdw12 = (uint32_t)val;
	r.sqe.cdw13 = (uint32_t)(val >> 32);
	rc = ini_exec(q, &r);
	return rc ? rc : ini_status(&r.cqe);
}

int ini_disconnect(struct ini_queue *q)
{
	struct ini_req r;
	int rc;

	fabrics_req(&r, nvme_fabrics_type_disconnect, NULL, 0, INI_DIR_NONE);
	rc = ini_exec(q, &r);
	return rc ? rc : ini_status(&r.cqe);
}
