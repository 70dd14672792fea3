/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Get Log Page for NVM and discovery controllers. Each log is built whole
 * into the request's scratch buffer, then the slice the host asked for
 * (dword-aligned offset, NUMD) is copied out, so reading a log in pieces
 * (as Linux does with the discovery log) gives consistent bytes.
 */
#include "nvmf.h"

#include <stdio.h>
#include <sys/socket.h>
#include <string.h>

struct log_args {
	uint8_t lid;
	bool rae;
	uint64_t offset;
	uint32_t len;
};

static void log_args(const struct nvmf_req *req, struct log_args *a)
{
	uint32_t numdl = req->cmd.cdw10 >> 16, numdu = req->cmd.cdw11 & 0xffff;

	a->lid = req->cmd.cdw10 & 0xff;
	a->rae = req->cmd.cdw10 & (1u << 15);
	a->offset = (uint64_t)req->cmd.cdw12 | ((uint64_t)req->cmd.cdw13 << 32);
	a->len = ((numdu << 16 | numdl) + 1) * 4;
}

void nvmf_put128(uint8_t dst[16], uint64_t v)
{
	memset(dst, 0, 16);
	memcpy(dst, &v, sizeof(v));
}

static size_t log_error(struct nvmf_ctrl *c, uint8_t *out)
{
	struct nvme_error_log_page *e = (void *)out;
	uint64_t n = BLOX_MIN(c->err_count, (uint64_t)NVMF_ERR_LOG_ENTRIES);

	memset(out, 0, NVMF_ERR_LOG_ENTRIES * sizeof(*e));
	/* Newest first. */
	for (uint64_t i = 0; i < n; i++)
		e[i] = c->errors[(c->err_count - 1 - i) % NVMF_ERR_LOG_ENTRIES];
	return NVMF_ERR_LOG_ENTRIES * sizeof(*e);
}

/* Bytes in the billions the Endurance Group log counts in, rounded up. */
static uint64_t billions(uint64_t bytes)
{
	return bytes / 1000000000u + (bytes % 1000000000u != 0);
}

/*
 * Total and Unallocated Endurance Group Capacity (NVMe 2.0: bytes 175:160
 * and 191:176), past the end of libnvme 1.3's struct.
 */
/* Where a log page is built whole (the discovery log's cap: 127 entries). */
#define LOG_SCRATCH (128u * 1024)
#define ENDGRP_LOG_TEGCAP 160
#define ENDGRP_LOG_UEGCAP 176

/*
 * Endurance Group Information, the group in CDW11 bits 31:16 (the Log
 * Specific Identifier): over the namespaces in it, the figures their
 * backends give summed (bytes, capacity, endurance) or the worst of them
 * (percentage used, the spare closest to its threshold); host commands
 * and errors are the core's counts. A group no namespace is in: Invalid
 * Field in Command.
 */
static uint16_t log_endgrp(struct nvmf_req *req, uint8_t *out, size_t *len)
{
	struct nvme_endurance_group_log *l = (void *)out;
	uint32_t endgid = req->cmd.cdw11 >> 16, members = 0;
	uint64_t rd = 0, wr = 0, media = 0, ee = 0, total = 0, unalloc = 0;
	uint64_t rcmds = 0, wcmds = 0, errors = 0;
	int margin = 0;
	struct nvmf_ns *ns;

	_Static_assert(sizeof(*l) == 512, "Endurance Group log is 512 bytes");
	memset(out, 0, sizeof(*l));
	TAILQ_FOREACH(ns, &req->sq->ctrl->subsys->namespaces, link) {
		struct blox_bdev_endurance e;
		int m;

		if (ns->endgid != endgid)
			continue;
		nvmf_ns_endurance(ns, &e);
		m = (int)e.avail_spare - (int)e.spare_threshold;
		if (!members || m < margin) {
			margin = m;
			l->avl_spare = e.avail_spare;
			l->avl_spare_threshold = e.spare_threshold;
		}
		members++;
		l->critical_warning |= nvmf_endurance_warning(&e);
		l->percent_used = BLOX_MAX(l->percent_used, e.percent_used);
		rd += e.host_read_bytes;
		wr += e.host_written_bytes;
		media += e.media_written_bytes;
		ee += e.endurance_bytes;
		total += e.total_bytes;
		unalloc += e.unalloc_bytes;
		rcmds += ns->stats.read_cmds;
		wcmds += ns->stats.write_cmds;
		errors += ns->stats.errors;
	}
	if (!members) {
		req->error_loc = offsetof(struct nvme_sqe, cdw11);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	nvmf_put128(l->endurance_estimate, billions(ee));
	nvmf_put128(l->data_units_read, billions(rd));
	nvmf_put128(l->data_units_written, billions(wr));
	nvmf_put128(l->media_units_written, billions(media));
	nvmf_put128(l->host_read_cmds, rcmds);
	nvmf_put128(l->host_write_cmds, wcmds);
	nvmf_put128(l->num_err_info_log_entries, errors);
	nvmf_put128(out + ENDGRP_LOG_TEGCAP, total);
	nvmf_put128(out + ENDGRP_LOG_UEGCAP, unalloc);
	*len = sizeof(*l);
	return 0;
}

/*
 * Endurance Group Event Aggregate: the groups with an event to read about.
 * The target raises no such event, so the list is always empty.
 */
static size_t log_endgrp_events(uint8_t *out)
{
	memset(out, 0, 8);
	return 8;
}

static size_t log_fw_slot(uint8_t *out)
{
	struct nvme_firmware_slot *fw = (void *)out;

	memset(fw, 0, sizeof(*fw));
	fw->afi = 1;
	nvmf_strpad(fw->frs[0], sizeof(fw->frs[0]), NVMF_FW_REV);
	return sizeof(*fw);
}

static size_t log_changed_ns(struct nvmf_ctrl *c, uint8_t *out, bool rae)
{
	uint32_t *list = (uint32_t *)out;

	memset(out, 0, NVMF_MAX_CHANGED_NS * 4);
	if (c->nr_changed_ns > NVMF_MAX_CHANGED_NS)
		list[0] = 0xffffffff; /* overflow: rescan everything */
	else
		memcpy(list, c->changed_ns, c->nr_changed_ns * 4);
	if (!rae) {
		c->nr_changed_ns = 0;
		nvmf_ctrl_aen_log_read(c, NVMF_AEN_NS_CHANGED, -1);
	}
	return NVMF_MAX_CHANGED_NS * 4;
}

/* @csi: the command set asked for (CDW14 bits 31:24); the zoned one adds its commands. */
static size_t log_cmd_effects(uint8_t *out, uint8_t csi)
{
	static const uint8_t admin_ops[] = {
		nvme_admin_get_log_page, nvme_admin_identify,
		nvme_admin_abort_cmd,	 nvme_admin_set_features,
		nvme_admin_get_features, nvme_admin_async_event,
		nvme_admin_keep_alive,
	};
	static const uint8_t io_ops[] = { nvme_cmd_flush, nvme_cmd_write,
					  nvme_cmd_read, nvme_cmd_compare,
					  nvme_cmd_write_zeroes, nvme_cmd_dsm,
					  nvme_cmd_resv_register, nvme_cmd_resv_report,
					  nvme_cmd_resv_acquire, nvme_cmd_resv_release };
	struct nvme_cmd_effects_log *l = (void *)out;

	memset(l, 0, sizeof(*l));
	for (size_t i = 0; i < sizeof(admin_ops); i++)
		l->acs[admin_ops[i]] = NVME_CMD_EFFECTS_CSUPP;
	for (size_t i = 0; i < sizeof(io_ops); i++) {
		uint8_t op = io_ops[i];
		bool changes = op == nvme_cmd_write || op == nvme_cmd_write_zeroes ||
			       op == nvme_cmd_dsm;

		l->iocs[op] = NVME_CMD_EFFECTS_CSUPP |
			      (changes ? NVME_CMD_EFFECTS_LBCC : 0);
	}
	if (csi == NVME_CSI_ZNS)
		nvmf_zns_effects(l);
	nvmf_fdp_effects(l);
	return sizeof(*l);
}

static size_t log_supported(uint8_t *out, bool discovery)
{
	static const uint8_t nvm[] = {
		NVME_LOG_LID_SUPPORTED_LOG_PAGES, NVME_LOG_LID_ERROR,
		NVME_LOG_LID_SMART,		  NVME_LOG_LID_FW_SLOT,
		NVME_LOG_LID_CHANGED_NS,	  NVME_LOG_LID_CMD_EFFECTS,
		NVME_LOG_LID_ENDURANCE_GROUP,	  NVME_LOG_LID_ENDURANCE_GRP_EVT,
		NVME_LOG_LID_PREDICTABLE_LAT_NVMSET, NVME_LOG_LID_PREDICTABLE_LAT_AGG,
		NVME_LOG_LID_RESERVATION, NVME_LOG_LID_ANA,
		NVME_LOG_LID_FDP_CONFIGS,	  NVME_LOG_LID_FDP_RUH_USAGE,
		NVME_LOG_LID_FDP_STATS,		  NVME_LOG_LID_FDP_EVENTS,
		NVME_LOG_LID_ZNS_CHANGED_ZONES,
	};
	struct nvme_supported_log_pages *l = (void *)out;

	memset(l, 0, sizeof(*l));
	if (discovery) {
		l->lid_support[NVME_LOG_LID_SUPPORTED_LOG_PAGES] = 1;
		l->lid_support[NVME_LOG_LID_DISCOVER] = 1;
	} else {
		for (size_t i = 0; i < sizeof(nvm); i++)
			l->lid_support[nvm[i]] = 1;
	}
	return sizeof(*l);
}

/*
 * TREQ of a port's discovery log entries, as nvmet fills it: SQ flow
 * control disable is always supported; the secure channel bits are for a
 * TLS port only (required, or not required when plain TCP is taken too),
 * "not specified" on a plain one: 0x4, which nvme-cli prints as "not
 * specified, sq flow control disable supported" (0x6 it cannot name).
 */
uint8_t nvmf_disc_treq(const struct nvmf_port *p)
{
	uint8_t treq = NVMF_TREQ_DISABLE_SQFLOW;

	if (p->tls == NVMF_TLS_REQUIRED)
		treq |= NVMF_TREQ_REQUIRED;
	else if (p->tls != NVMF_TLS_NONE)
		treq |= NVMF_TREQ_NOT_REQUIRED;
	return treq;
}

/* The fields of an entry for a TCP address both kinds of entry share. */
static void disc_entry(struct nvmf_disc_log_entry *e, int family, uint8_t subtype,
		       uint8_t treq, uint16_t portid, const char *svcid, const char *subnqn,
		       const char *traddr)
{
	memset(e, 0, sizeof(*e));
	e->trtype = NVMF_TRTYPE_TCP;
	e->adrfam = family == AF_INET6 ? NVMF_ADDR_FAMILY_IP6 : NVMF_ADDR_FAMILY_IP4;
	e->subtype = subtype;
	e->treq = treq;
	e->portid = portid;
	e->cntlid = 0xffff;
	e->asqsz = NVMF_ADMIN_MAX_SQSIZE + 1;
	nvmf_strpad(e->trsvcid, sizeof(e->trsvcid), svcid);
	snprintf(e->subnqn, sizeof(e->subnqn), "%s", subnqn);
	nvmf_strpad(e->traddr, sizeof(e->traddr), traddr);
}

/*
 * Discovery log: one entry per (NVM subsystem the host may use, NVM
 * listener), then one per referral whose node is not down (subtype 1:
 * another discovery service, the well-known discovery NQN). A listener's
 * entries carry the address it advertises when it has one; else a wildcard
 * listener reports the address the host reached us by (never 0.0.0.0),
 * another its own.
 */
size_t nvmf_discovery_log(struct nvmf_req *req, uint8_t *out, size_t cap)
{
	struct nvmf_sq *sq = req->sq;
	struct nvmf_tgt *tgt = sq->tgt;
	const char *hostnqn = sq->ctrl->hostnqn;
	struct nvmf_discovery_log *hdr = (void *)out;
	struct nvmf_subsys *s;
	struct nvmf_port *p;
	struct nvmf_referral *r;
	uint64_t n = 0;
	size_t max = (cap - sizeof(*hdr)) / sizeof(struct nvmf_disc_log_entry);
	char local[NVMF_TRADDR_SIZE] = "";

	memset(hdr, 0, sizeof(*hdr));
	sq->ops->local_addr(sq, local, sizeof(local));
	TAILQ_FOREACH(s, &tgt->subsystems, link) {
		if (!nvmf_subsys_host_allowed(s, hostnqn))
			continue;
		TAILQ_FOREACH(p, &tgt->ports, link) {
			struct nvmf_disc_log_entry *e = &hdr->entries[n];
			bool wild = !strcmp(p->addr, "0.0.0.0") ||
				    !strcmp(p->addr, "::");

			if (p->discovery_only)
				continue;
			if (n == max)
				goto done;
			disc_entry(e, p->family, NVME_NQN_NVME, nvmf_disc_treq(p), p->id, p->svcid,
				   s->nqn,
				   p->advertise[0]	? p->advertise
				   : wild && local[0] ? local
						      : p->addr);
			e->tsas.tcp.sectype = p->tls == NVMF_TLS_NONE ? NVMF_TCP_SECTYPE_NONE
								      : NVMF_TCP_SECTYPE_TLS13;
			n++;
		}
	}
	TAILQ_FOREACH(r, &tgt->referrals, link) {
		if (r->state == NVMF_REF_DOWN)
			continue; /* its node stopped answering: hosts would only fail there */
		if (n == max)
			goto done;
		/* What another discovery controller asks of us: nothing secure, no SQ flow control. */
		disc_entry(&hdr->entries[n++], r->family, NVME_NQN_DISC, NVMF_TREQ_DISABLE_SQFLOW,
			   r->portid, r->svcid, NVME_DISC_SUBSYS_NAME, r->addr);
	}
done:
	hdr->genctr = tgt->disc_genctr;
	hdr->numrec = n;
	hdr->recfmt = 0;
	return sizeof(*hdr) + n * sizeof(struct nvmf_disc_log_entry);
}

static uint16_t exec_get_log_page(struct nvmf_req *req)
{
	struct nvmf_ctrl *c = req->sq->ctrl;
	bool disc = c->subsys->type == NVMF_SUBSYS_DISCOVERY;
	uint8_t *tmp = req->scratch;
	struct log_args a;
	size_t len = 0;
	uint16_t st = 0;

	log_args(req, &a);
	if (!disc) {
		switch (a.lid) {
		case NVME_LOG_LID_SUPPORTED_LOG_PAGES:
			len = log_supported(tmp, false);
			break;
		case NVME_LOG_LID_ERROR:
			len = log_error(c, tmp);
			break;
		case NVME_LOG_LID_SMART:
			st = nvmf_log_smart(req, tmp, &len, a.rae);
			break;
		case NVME_LOG_LID_FW_SLOT:
			len = log_fw_slot(tmp);
			break;
		case NVME_LOG_LID_CHANGED_NS:
			len = log_changed_ns(c, tmp, a.rae);
			break;
		case NVME_LOG_LID_CMD_EFFECTS:
			len = log_cmd_effects(tmp, (uint8_t)(req->cmd.cdw14 >> 24));
			break;
		case NVME_LOG_LID_ENDURANCE_GROUP:
			st = log_endgrp(req, tmp, &len);
			break;
		case NVME_LOG_LID_ENDURANCE_GRP_EVT:
			len = log_endgrp_events(tmp);
			break;
		case NVME_LOG_LID_PREDICTABLE_LAT_NVMSET:
			st = nvmf_log_plm_set(req, tmp, &len, a.rae);
			break;
		case NVME_LOG_LID_PREDICTABLE_LAT_AGG:
			len = nvmf_log_plm_agg(req, tmp, a.rae);
			break;
		case NVME_LOG_LID_ZNS_CHANGED_ZONES:
			st = nvmf_log_changed_zones(req, tmp, &len, a.rae);
			break;
		case NVME_LOG_LID_RESERVATION:
			len = nvmf_log_resv(c, tmp, a.rae);
			break;
		case NVME_LOG_LID_ANA:
			/* LSP bit 0: Return Groups Only. */
			len = nvmf_log_ana(req, tmp, (req->cmd.cdw10 >> 8) & 1, a.rae);
			break;
		case NVME_LOG_LID_FDP_CONFIGS:
		case NVME_LOG_LID_FDP_RUH_USAGE:
		case NVME_LOG_LID_FDP_STATS:
		case NVME_LOG_LID_FDP_EVENTS:
			st = nvmf_log_fdp(req, a.lid, tmp, LOG_SCRATCH, &len);
			break;
		default:
			st = NVMF_SC_CMD(NVME_SC_INVALID_LOG_PAGE) | NVME_SC_DNR;
		}
	} else {
		switch (a.lid) {
		case NVME_LOG_LID_SUPPORTED_LOG_PAGES:
			len = log_supported(tmp, true);
			break;
		case NVME_LOG_LID_DISCOVER:
			len = nvmf_discovery_log(req, tmp, req->scratch_len);
			/* Read (RAE clear): the next change may be told. */
			if (!a.rae)
				nvmf_ctrl_aen_log_read(c, NVMF_AEN_DISC, -1);
			break;
		default:
			st = NVMF_SC_CMD(NVME_SC_INVALID_LOG_PAGE) | NVME_SC_DNR;
		}
	}
	if (st) {
		if (req->error_loc == 0xffff)
			req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return st;
	}
	if (a.offset > len) {
		req->error_loc = offsetof(struct nvme_sqe, cdw12);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	return nvmf_req_copy_out(req, tmp + a.offset, len - (size_t)a.offset);
}

uint16_t nvmf_parse_get_log_page(struct nvmf_req *req, bool discovery)
{
	struct log_args a;

	(void)discovery;
	log_args(req, &a);
	if (a.offset & 3) {
		req->error_loc = offsetof(struct nvme_sqe, cdw12);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	if (a.len > nvmf_max_xfer(req->sq->tgt)) {
		req->error_loc = offsetof(struct nvme_sqe, cdw10);
		return NVME_SC_INVALID_FIELD | NVME_SC_DNR;
	}
	req->dir = NVMF_DIR_C2H;
	req->transfer_len = a.len;
	/* The whole page is built, then the slice asked for is copied out. */
	req->scratch_len = LOG_SCRATCH;
	req->execute = exec_get_log_page;
	return 0;
}
