/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Admin command set of NVM subsystem controllers: Identify, Get/Set
 * Features, Keep Alive, Asynchronous Event Request and Abort. Log pages
 * are in logpage.c.
 */
#include "nvmf.h"
#include "fault_hold.h"

#include <stdio.h>
#include <string.h>

#define IDENTIFY_LEN 4096

static uint16_t need_ready(struct nvmf_req *req)
{
	if (!nvmf_ctrl_ready(req->sq->ctrl))
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	return 0;
}

/* ---- Identify ---- */

/* Every namespace of @s (one at least) keeps its write cache through a power loss. */
static bool all_power_protected(const struct nvmf_subsys *s)
{
	const struct nvmf_ns *ns;

	TAILQ_FOREACH(ns, &s->namespaces, link)
		if (!ns->bdev->power_protected)
			return false;
	return !TAILQ_EMPTY(&s->namespaces);
}

void nvmf_fill_id_ctrl(struct nvmf_ctrl *c, struct nvme_id_ctrl *id)
{
	struct nvmf_subsys *s = c->subsys;
	bool disc = s->type == NVMF_SUBSYS_DISCOVERY;

	memset(id, 0, sizeof(*id));
	nvmf_strpad(id->sn, sizeof(id->sn), s->serial);
	nvmf_strpad(id->mn, sizeof(id->mn), disc ? "blox discovery" : s->model);
	nvmf_strpad(id->fr, sizeof(id->fr), NVMF_FW_REV);
	id->rab = 6;
	/*
	 * Several ports, several controllers (each its own cntlid of the
	 * subsystem), ANA reporting: what Linux's native multipath asks.
	 */
	id->cmic = disc ? 0
			: NVME_CTRL_CMIC_MULTI_PORT | NVME_CTRL_CMIC_MULTI_CTRL |
				  NVME_CTRL_CMIC_MULTI_ANA_REPORTING;
	/* MDTS: 2^n units of CAP.MPSMIN (4 KiB); --mdts-kb is a power of two. */
	id->mdts = (uint8_t)__builtin_ctz(c->tgt->lim.mdts_kb / 4);
	id->cntlid = c->cntlid;
	id->ver = 0x00010300;
	/* Namespace attribute and predictable latency event aggregate notices. */
	id->oaes = disc ? NVME_CTRL_OAES_DL
			: NVME_CTRL_OAES_NA | NVME_CTRL_OAES_PLEA | NVME_CTRL_OAES_ANA |
				  NVME_CTRL_OAES_ZD;
	id->ctratt = NVME_CTRL_CTRATT_128_ID | NVME_CTRL_CTRATT_TBKAS;
	id->cntrltype = disc ? NVME_CTRL_CNTRLTYPE_DISCOVERY : NVME_CTRL_CNTRLTYPE_IO;
	id->acl = NVMF_ACL;
	id->aerl = NVMF_AERL;
	id->frmw = (1u << 1) | 1u; /* one slot, read only */
	/*
	 * A discovery controller has no Commands Supported and Effects log
	 * (as nvmet's): with the bit set, Linux asks for it at every connect.
	 */
	id->lpa = disc ? NVME_CTRL_LPA_EXTENDED
		       : NVME_CTRL_LPA_SMART_PER_NS | NVME_CTRL_LPA_CMD_EFFECTS |
				 NVME_CTRL_LPA_EXTENDED;
	id->elpe = NVMF_ERR_LOG_ENTRIES - 1;
	id->wctemp = 343; /* Kelvin */
	id->cctemp = 373;
	id->kas = NVMF_KAS_100MS;
	id->sqes = (6 << 4) | 6;
	id->cqes = (4 << 4) | 4;
	id->maxcmd = (uint16_t)BLOX_MIN(c->tgt->lim.max_queue_size, 0xffffu);
	id->nn = disc ? 0 : NVMF_MAX_NS;
	if (!disc) {
		id->oncs = NVME_CTRL_ONCS_COMPARE | NVME_CTRL_ONCS_DSM |
			   NVME_CTRL_ONCS_WRITE_ZEROES | NVME_CTRL_ONCS_TIMESTAMP |
			   NVME_CTRL_ONCS_RESERVATIONS;
		/*
		 * A volatile write cache, unless every namespace's is protected
		 * against power loss (as PLP drives say: VWC 0).
		 */
		id->vwc = all_power_protected(s) ? 0 : NVME_CTRL_VWC_PRESENT | NVME_CTRL_VWC_FLUSH;
		/* Each namespace an NVM Set, in an Endurance Group (endgrp.c). */
		id->ctratt |= NVME_CTRL_CTRATT_NVM_SETS | NVME_CTRL_CTRATT_ENDURANCE_GROUPS;
		/*
		 * Predictable Latency Mode, and the Read Recovery Levels it
		 * requires (plm.c); a set whose backend has none refuses it.
		 */
		id->ctratt |= NVME_CTRL_CTRATT_PREDICTABLE_LAT | NVME_CTRL_CTRATT_READ_RECV_LVLS;
		/* Flexible Data Placement on namespaces with handles (fdp.c). */
		id->ctratt |= NVME_CTRL_CTRATT_FDPS;
		id->oacs |= NVME_CTRL_OACS_DIRECTIVES;
		id->rrls = NVMF_RRLS;
		id->nsetidmax = NVMF_NSETIDMAX;
		/* ANA (ana.c): every state reported, the groups a namespace can be in. */
		id->anacap = NVME_CTRL_ANACAP_OPT | NVME_CTRL_ANACAP_NON_OPT |
			     NVME_CTRL_ANACAP_INACCESSIBLE | NVME_CTRL_ANACAP_PERSISTENT_LOSS |
			     NVME_CTRL_ANACAP_CHANGE;
		id->anatt = NVMF_ANATT_S;
		id->anagrpmax = NVMF_ANAGRPMAX;
		id->nanagrpid = NVMF_ANAGRPMAX;
		id->mnan = NVMF_MAX_NS;
		id->endgidmax = NVMF_ENDGIDMAX;
	}
	id->sgls = 1u | NVME_CTRL_SGLS_OFFSET; /* SGLs without alignment */
	snprintf(id->subnqn, sizeof(id->subnqn), "%s", s->nqn);
	id->ioccsz = (uint32_t)(sizeof(struct nvme_sqe) + nvmf_io_inline(c->tgt)) / 16;
	id->iorcsz = sizeof(struct nvme_cqe) / 16;
	id->icdoff = 0;
	id->fcatt = 0; /* dynamic controller model */
	id->msdbd = 1;
	id->ofcs = 1; /* Disconnect supported */
}

static uint16_t id_ctrl(struct nvmf_req *req)
{
	struct nvme_id_ctrl id;

	nvmf_fill_id_ctrl(req->sq->ctrl, &id);
	return nvmf_req_copy_out(req, &id, sizeof(id));
}

static uint16_t id_ns(struct nvmf_req *req)
{
	struct nvmf_subsys *s = req->sq->ctrl->subsys;
	uint32_t nsid = req->cmd.nsid;
	struct nvmf_ns *ns;
	struct nvme_id_ns id;

	if (nsid == 0 || nsid > NVMF_MAX_NS)
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	memset(&id, 0, sizeof(id));
	ns = nvmf_ns_find(s, nsid);
	if (!ns) /* inactive but valid NSID: all zeroes */
		return nvmf_req_copy_out(req, &id, sizeof(id));
	id.nsze = ns->nblocks;
	id.ncap = ns->nblocks;
	id.nuse = ns->nblocks;
	id.nlbaf = 0;
	id.flbas = 0;
	id.nmic = NVME_NS_NMIC_SHARED;
	id.rescap = nvmf_ns_rescap(ns);
	/* Deallocated blocks read as zeroes; Write Zeroes may deallocate. */
	id.dlfeat = (1u << 3) | 1u;
	memcpy(id.nvmcap, &(uint64_t){ ns->bdev->size }, 8);
	id.nvmsetid = (uint16_t)ns->nsid;
	id.endgid = ns->endgid;
	id.anagrpid = ns->anagrpid;
	memcpy(id.nguid, ns->nguid, sizeof(id.nguid));
	id.lbaf[0].ds = ns->lba_shift;
	/*
	 * Blocks smaller than what the backend writes whole (512 bytes on the
	 * nand backend's 4 KiB units, "512e"): whole aligned units are the
	 * writes it prefers (a smaller one is a read-modify-write), and a
	 * write inside one unit is atomic, power fail included. Linux takes
	 * the physical block size from NPWG and NAWUPF (the smaller of the
	 * two, with NABO 0) and the optimal I/O size from NOWS; all are 0's
	 * based counts of blocks.
	 */
	if (ns->bdev->phys_block_size > (1u << ns->lba_shift)) {
		uint16_t per = (uint16_t)((ns->bdev->phys_block_size >> ns->lba_shift) - 1);

		id.nsfeat |= NVME_NS_FEAT_NATOMIC | NVME_NS_FEAT_IO_OPT;
		id.nawun = per;
		id.nawupf = per;
		id.nabsn = per;
		id.nabspf = per;
		id.npwg = per;
		id.npwa = per;
		id.npdg = per;
		id.npda = per;
		id.nows = per;
	}
	return nvmf_req_copy_out(req, &id, sizeof(id));
}

/*
 * I/O Command Set Independent Identify Namespace (CNS 08h): what every
 * command set shares (Identify Namespace's fields of the same names), its
 * Endurance Group among them (which FDP's log pages and feature 1Dh name),
 * and NSTAT: ready. Hosts use it when the controller has several command
 * sets (CSI 0 and 2 here).
 */
static uint16_t id_cs_indep_ns(struct nvmf_req *req)
{
	uint32_t nsid = req->cmd.nsid;
	struct nvme_id_independent_id_ns *id = (void *)req->buf;
	struct nvmf_ns *ns;

	_Static_assert(sizeof(*id) == IDENTIFY_LEN, "CNS 08h is an Identify page");
	if (nsid == 0 || nsid > NVMF_MAX_NS)
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	memset(id, 0, sizeof(*id));
	ns = nvmf_ns_find(req->sq->ctrl->subsys, nsid);
	if (!ns)
		return 0; /* inactive but valid NSID: all zeroes */
	if (ns->bdev->phys_block_size > (1u << ns->lba_shift))
		id->nsfeat = NVME_NS_FEAT_NATOMIC | NVME_NS_FEAT_IO_OPT;
	id->nmic = NVME_NS_NMIC_SHARED;
	id->rescap = nvmf_ns_rescap(ns);
	id->anagrpid = ns->anagrpid;
	id->nvmsetid = (uint16_t)ns->nsid;
	id->endgid = ns->endgid;
	id->nstat = 1; /* NRDY */
	return 0;
}

static uint16_t id_active_ns(struct nvmf_req *req)
{
	struct nvmf_subsys *s = req->sq->ctrl->subsys;
	uint32_t *list = (uint32_t *)req->buf, n = 0;
	struct nvmf_ns *ns;

	if (req->cmd.nsid >= 0xfffffffe)
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	memset(req->buf, 0, IDENTIFY_LEN);
	TAILQ_FOREACH(ns, &s->namespaces, link) {
		if (ns->nsid <= req->cmd.nsid)
			continue;
		if (n == IDENTIFY_LEN / 4)
			break;
		list[n++] = ns->nsid;
	}
	return 0;
}

static size_t put_desc(uint8_t *p, uint8_t type, const void *v, uint8_t len)
{
	p[0] = type;
	p[1] = len;
	p[2] = p[3] = 0;
	memcpy(p + 4, v, len);
	return 4u + len;
}

static uint16_t id_ns_descs(struct nvmf_req *req)
{
	struct nvmf_ns *ns = nvmf_ns_find(req->sq->ctrl->subsys, req->cmd.nsid);
	uint8_t *p = req->buf, csi = NVME_CSI_NVM;

	if (!ns)
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	if (nvmf_ns_zoned(ns))
		csi = NVME_CSI_ZNS;
	memset(req->buf, 0, IDENTIFY_LEN);
	p += put_desc(p, NVME_NIDT_NGUID, ns->nguid, NVME_NIDT_NGUID_LEN);
	p += put_desc(p, NVME_NIDT_UUID, ns->uuid, NVME_NIDT_UUID_LEN);
	put_desc(p, NVME_NIDT_CSI, &csi, NVME_NIDT_CSI_LEN);
	return 0;
}

/*
 * NVM Set List: the sets (one per namespace, NVMSETID = NSID) from the id
 * in CDW11 bits 15:0 on, at most 31, each with its Endurance Group and
 * what its backend tells: typical random 4 KiB read (in 100 ns), optimal
 * write size, capacity and what of it the namespace does not use.
 */
static uint16_t id_nvmset_list(struct nvmf_req *req)
{
	struct nvmf_subsys *s = req->sq->ctrl->subsys;
	struct nvme_id_nvmset_list *l = (void *)req->buf;
	uint32_t first = req->cmd.cdw11 & 0xffff, n = 0;
	struct nvmf_ns *ns;

	_Static_assert(sizeof(*l) <= IDENTIFY_LEN, "NVM Set List larger than Identify data");
	memset(req->buf, 0, IDENTIFY_LEN);
	TAILQ_FOREACH(ns, &s->namespaces, link) {
		struct nvme_nvmset_attr *a;
		struct blox_bdev_endurance e;

		if (ns->nsid < first)
			continue;
		if (n == NVME_ID_NVMSET_LIST_MAX)
			break;
		a = &l->ent[n];
		nvmf_ns_endurance(ns, &e);
		a->nvmsetid = (uint16_t)ns->nsid;
		a->endgid = ns->endgid;
		a->rr4kt = (e.read_4k_ns + 99) / 100;
		a->ows = e.opt_write_bytes;
		memcpy(a->tnvmsetcap, &e.total_bytes, 8);
		memcpy(a->unvmsetcap, &e.unalloc_bytes, 8);
		n++;
	}
	l->nid = (uint8_t)n;
	return 0;
}

/* Endurance Group List: the groups' ids from the one in CDW11 bits 15:0 on, ascending. */
static uint16_t id_endgrp_list(struct nvmf_req *req)
{
	struct nvmf_subsys *s = req->sq->ctrl->subsys;
	struct nvme_id_endurance_group_list *l = (void *)req->buf;
	uint8_t used[NVMF_ENDGIDMAX / 8 + 1] = { 0 };
	uint32_t first = BLOX_MAX(req->cmd.cdw11 & 0xffff, 1u), n = 0;
	struct nvmf_ns *ns;

	memset(req->buf, 0, IDENTIFY_LEN);
	TAILQ_FOREACH(ns, &s->namespaces, link)
		used[ns->endgid / 8] |= (uint8_t)(1u << (ns->endgid % 8));
	for (uint32_t id = first; id <= NVMF_ENDGIDMAX; id++) {
		if (!(used[id / 8] & (1u << (id % 8))))
			continue;
		if (n == NVME_ID_ENDURANCE_GROUP_LIST_MAX)
			break;
		l->identifier[n++] = (uint16_t)id;
	}
	l->num = (uint16_t)n;
	return 0;
}

/* The Command Set Identifier of an Identify: CDW11 bits 31:24. */
static uint8_t id_csi(const struct nvmf_req *req)
{
	return (uint8_t)(req->cmd.cdw11 >> 24);
}

/*
 * I/O Command Set specific Identify Controller (CNS 06h) of the NVM
 * command set: all zeroes (no Verify, Write Zeroes or DSM size limits of
 * its own), as nvmet answers it. Linux asks for it at every connect to a
 * controller of version 1.2 or later (nvme_init_non_mdts_limits()).
 */
static uint16_t id_cs_ctrl(struct nvmf_req *req)
{
	if (id_csi(req) == NVME_CSI_ZNS)
		return nvmf_zns_id_ctrl(req);
	if (id_csi(req) != NVME_CSI_NVM) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	memset(req->buf, 0, IDENTIFY_LEN);
	return 0;
}

/*
 * I/O Command Set specific Identify Namespace (CNS 05h) of the NVM
 * command set: no storage tags or protection formats, all zeroes for an
 * active namespace (as nvmet).
 */
static uint16_t id_cs_ns(struct nvmf_req *req)
{
	if (id_csi(req) == NVME_CSI_ZNS)
		return nvmf_zns_id_ns(req);
	if (id_csi(req) != NVME_CSI_NVM) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (!nvmf_ns_find(req->sq->ctrl->subsys, req->cmd.nsid)) {
		req->error_loc = offsetof(struct nvme_sqe, nsid);
		return NVME_SC_INVALID_NS | NVME_SC_DNR;
	}
	memset(req->buf, 0, IDENTIFY_LEN);
	return 0;
}

static uint16_t exec_identify(struct nvmf_req *req)
{
	switch (req->cmd.cdw10 & 0xff) {
	case NVME_IDENTIFY_CNS_NS:
		return id_ns(req);
	case NVME_IDENTIFY_CNS_CTRL:
		return id_ctrl(req);
	case NVME_IDENTIFY_CNS_CSI_NS:
		return id_cs_ns(req);
	case NVME_IDENTIFY_CNS_CSI_CTRL:
		return id_cs_ctrl(req);
	case NVME_IDENTIFY_CNS_NS_ACTIVE_LIST:
		return id_active_ns(req);
	case NVME_IDENTIFY_CNS_NS_DESC_LIST:
		return id_ns_descs(req);
	case NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS:
		return id_cs_indep_ns(req);
	case NVME_IDENTIFY_CNS_NVMSET_LIST:
		return id_nvmset_list(req);
	case NVME_IDENTIFY_CNS_ENDURANCE_GROUP_ID:
		return id_endgrp_list(req);
	case NVME_IDENTIFY_CNS_COMMAND_SET_STRUCTURE:
		return nvmf_zns_id_iocs(req);
	default:
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
}

uint16_t nvmf_parse_identify(struct nvmf_req *req, bool discovery)
{
	uint8_t cns = req->cmd.cdw10 & 0xff;

	if (discovery && cns != NVME_IDENTIFY_CNS_CTRL) {
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	req->dir = NVMF_DIR_C2H;
	req->transfer_len = IDENTIFY_LEN;
	req->execute = exec_identify;
	return 0;
}

/* ---- Features ---- */

uint64_t nvmf_ctrl_timestamp_ms(struct nvmf_ctrl *c, bool *host_set)
{
	uint64_t now = blox_clock_now(c->tgt->clock);

	*host_set = c->timestamp_set_ns != 0;
	if (*host_set)
		return c->timestamp_ms + (now - c->timestamp_set_ns) / 1000000ull;
	return (now - c->created_ns) / 1000000ull;
}

static uint16_t exec_set_features(struct nvmf_req *req)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	uint32_t v = req->cmd.cdw11;

	if (req->cmd.cdw10 & (1u << 31)) {
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVMF_SC_CMD(NVME_SC_FEATURE_NOT_SAVEABLE) | NVME_SC_DNR;
	}
	switch (req->cmd.cdw10 & 0xff) {
	case NVME_FEAT_FID_ARBITRATION:
		c->arbitration = v;
		return 0;
	case NVME_FEAT_FID_VOLATILE_WC:
	{
		struct nvmf_ns *ns;

		c->vwc_enabled = v & 1;
		TAILQ_FOREACH(ns, &c->subsys->namespaces, link)
			blox_bdev_set_write_cache(ns->bdev, c->vwc_enabled);
		return 0;
	}
	case NVME_FEAT_FID_NUM_QUEUES: {
		uint32_t nsq = v & 0xffff, ncq = v >> 16, max_q = c->tgt->lim.max_io_queues;

		if (nsq == 0xffff || ncq == 0xffff) {
			req->error_loc = offsetof(struct nvme_sqe, cdw11);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		if (nsq + 1 > max_q || ncq + 1 > max_q) {
			c->tgt->stats.io_queues_clamped++;
			nvmf_limit_log(c->tgt,
				       "ctrl %u of %s: %u I/O queues asked, %u granted (--max-io-queues)",
				       c->cntlid, c->hostnqn, BLOX_MAX(nsq, ncq) + 1, max_q);
		}
		nsq = BLOX_MIN(nsq + 1, max_q);
		ncq = BLOX_MIN(ncq + 1, max_q);
		c->nr_io_queues = (uint16_t)BLOX_MIN(nsq, ncq);
		req->cqe.result = (nsq - 1) | ((uint64_t)(ncq - 1) << 16);
		return 0;
	}
	case NVME_FEAT_FID_ASYNC_EVENT:
		c->aen_enabled = v;
		nvmf_ctrl_aen_kick(c);
		return 0;
	case NVME_FEAT_FID_TIMESTAMP:
		c->timestamp_ms = 0;
		memcpy(&c->timestamp_ms, req->buf, 6);
		c->timestamp_set_ns = blox_clock_now(c->tgt->clock);
		if (!c->timestamp_set_ns)
			c->timestamp_set_ns = 1;
		return 0;
	case NVME_FEAT_FID_KATO:
		nvmf_ctrl_set_kato(c, nvmf_ctrl_kato_min(c, v));
		return 0;
	case NVME_FEAT_FID_HOST_ID:
		/* The host identifier comes from Connect on fabrics. */
		return NVME_SC_CMD_SEQ_ERROR | NVME_SC_DNR;
	case NVME_FEAT_FID_RRL:
		return nvmf_feat_rrl(req, true, false);
	case NVME_FEAT_FID_PLM_CONFIG:
		return nvmf_feat_plm_config(req, true, false);
	case NVME_FEAT_FID_PLM_WINDOW:
		return nvmf_feat_plm_window(req, true, false);
	case NVME_FEAT_FID_RESV_MASK:
		return nvmf_feat_resv_mask(req, true);
	case NVME_FEAT_FID_RESV_PERSIST:
		return nvmf_feat_resv_persist(req, true);
	case NVME_FEAT_FID_FDP:
		return nvmf_feat_fdp(req, true);
	case NVME_FEAT_FID_FDP_EVENTS:
		return nvmf_feat_fdp_events(req, true);
	default:
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
}

static uint16_t exec_get_features(struct nvmf_req *req)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	uint32_t sel = (req->cmd.cdw10 >> 8) & 0x7;
	bool dflt = sel == NVME_GET_FEATURES_SEL_DEFAULT ||
		    sel == NVME_GET_FEATURES_SEL_SAVED;
	uint64_t *res = &req->cqe.result;

	if (sel == NVME_GET_FEATURES_SEL_SUPPORTED) {
		uint8_t fid = req->cmd.cdw10 & 0xff;

		/* Changeable, not saveable; the reservation features are per namespace. */
		*res = 1u << 2;
		if (fid == NVME_FEAT_FID_RESV_MASK || fid == NVME_FEAT_FID_RESV_PERSIST ||
		    fid == NVME_FEAT_FID_FDP_EVENTS)
			*res |= 1u << 1;
		return 0;
	}
	if (sel > NVME_GET_FEATURES_SEL_SUPPORTED) {
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	switch (req->cmd.cdw10 & 0xff) {
	case NVME_FEAT_FID_ARBITRATION:
		*res = dflt ? 0 : c->arbitration;
		return 0;
	case NVME_FEAT_FID_VOLATILE_WC:
		*res = dflt ? 1 : c->vwc_enabled;
		return 0;
	case NVME_FEAT_FID_NUM_QUEUES:
		*res = (uint64_t)(c->nr_io_queues - 1) |
		       ((uint64_t)(c->nr_io_queues - 1) << 16);
		return 0;
	case NVME_FEAT_FID_ASYNC_EVENT:
		*res = dflt ? 0 : c->aen_enabled;
		return 0;
	case NVME_FEAT_FID_KATO:
		*res = c->kato_ms;
		return 0;
	case NVME_FEAT_FID_TIMESTAMP: {
		bool host_set;
		uint64_t ms = nvmf_ctrl_timestamp_ms(c, &host_set);
		uint8_t ts[8] = { 0 };

		memcpy(ts, &ms, 6);
		ts[6] = host_set ? (1u << 1) : 0; /* timestamp origin */
		return nvmf_req_copy_out(req, ts, sizeof(ts));
	}
	case NVME_FEAT_FID_HOST_ID:
		return nvmf_req_copy_out(req, c->hostid, sizeof(c->hostid));
	case NVME_FEAT_FID_RRL:
		return nvmf_feat_rrl(req, false, dflt);
	case NVME_FEAT_FID_PLM_CONFIG:
		return nvmf_feat_plm_config(req, false, dflt);
	case NVME_FEAT_FID_PLM_WINDOW:
		return nvmf_feat_plm_window(req, false, dflt);
	case NVME_FEAT_FID_RESV_MASK:
		return nvmf_feat_resv_mask(req, false);
	case NVME_FEAT_FID_RESV_PERSIST:
		return nvmf_feat_resv_persist(req, false);
	case NVME_FEAT_FID_FDP:
		return nvmf_feat_fdp(req, false);
	case NVME_FEAT_FID_FDP_EVENTS:
		return nvmf_feat_fdp_events(req, false);
	default:
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
}

static uint16_t parse_features(struct nvmf_req *req, bool set)
{
	uint8_t fid = req->cmd.cdw10 & 0xff;

	if (fid == NVME_FEAT_FID_TIMESTAMP) {
		req->dir = set ? NVMF_DIR_H2C : NVMF_DIR_C2H;
		req->transfer_len = 8;
	} else if (fid == NVME_FEAT_FID_PLM_CONFIG) {
		/* The Deterministic Threshold Configuration, both ways. */
		req->dir = set ? NVMF_DIR_H2C : NVMF_DIR_C2H;
		req->transfer_len = sizeof(struct nvme_plm_config);
	} else if (fid == NVME_FEAT_FID_FDP_EVENTS) {
		/* The event types (set), or their descriptors (get). */
		req->dir = set ? NVMF_DIR_H2C : NVMF_DIR_C2H;
		req->transfer_len = nvmf_feat_fdp_events_len(req, set);
		if (!req->transfer_len)
			req->dir = NVMF_DIR_NONE;
	} else if (fid == NVME_FEAT_FID_HOST_ID && !set) {
		if (!(req->cmd.cdw11 & 1)) { /* only the 128-bit form */
			req->error_loc = offsetof(struct nvme_sqe, cdw11);
			return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
		}
		req->dir = NVMF_DIR_C2H;
		req->transfer_len = 16;
	}
	req->execute = set ? exec_set_features : exec_get_features;
	return 0;
}

/* ---- Keep Alive, AER, Abort ---- */

static uint16_t exec_keep_alive(struct nvmf_req *req)
{
	/* nvmf_req_init() already touched the controller; a ka-ignore fault holds it. */
	return nvmf_fault_keep_alive(req) ? NVMF_REQ_ASYNC : 0;
}

static uint16_t exec_aer(struct nvmf_req *req)
{
	struct nvmf_ctrl *c = req->sq->ctrl;

	if (c->nr_aer > NVMF_AERL)
		return NVMF_SC_CMD(NVME_SC_ASYNC_LIMIT) | NVME_SC_DNR;
	TAILQ_INSERT_TAIL(&c->aer_reqs, req, link);
	c->nr_aer++;
	nvmf_ctrl_aen_kick(c);
	return NVMF_REQ_ASYNC;
}

static uint16_t exec_abort(struct nvmf_req *req)
{
	/* Commands finish quickly or not at all: report "not aborted". */
	req->cqe.result = 1;
	return 0;
}

uint16_t nvmf_parse_admin_common(struct nvmf_req *req, bool discovery)
{
	uint16_t st = need_ready(req);

	if (st)
		return st;
	switch (req->cmd.opcode) {
	case nvme_admin_identify:
		return nvmf_parse_identify(req, discovery);
	case nvme_admin_get_log_page:
		return nvmf_parse_get_log_page(req, discovery);
	case nvme_admin_set_features:
		return parse_features(req, true);
	case nvme_admin_get_features:
		return parse_features(req, false);
	case nvme_admin_keep_alive:
		req->execute = exec_keep_alive;
		return 0;
	case nvme_admin_async_event:
		req->execute = exec_aer;
		return 0;
	case nvme_admin_abort_cmd:
		if (discovery)
			break;
		req->execute = exec_abort;
		return 0;
	case nvme_admin_directive_send:
	case nvme_admin_directive_recv:
		if (discovery)
			break;
		return nvmf_parse_directive(req, req->cmd.opcode == nvme_admin_directive_send);
	default:
		break;
	}
	req->error_loc = offsetof(struct nvme_sqe, opcode);
	return NVME_SC_INVALID_OPCODE | NVME_SC_DNR;
}

uint16_t nvmf_parse_admin(struct nvmf_req *req)
{
	return nvmf_parse_admin_common(req, false);
}
