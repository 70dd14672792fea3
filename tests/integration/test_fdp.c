/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Flexible Data Placement (issue 27) over loopback through the project's
 * initiator: a nand namespace of its own device with four persistently
 * isolated reclaim unit handles from the config file, beside a RAM one.
 * Identify (CTRATT FDPS, OACS Directives, the I/O Command Set
 * Independent Identify Namespace's group), Directive Receive (Data
 * Placement supported and enabled), the FDP configuration (log 20h),
 * writes with placement identifiers and without, Reclaim Unit Handle
 * Status before and after an Update, usage (21h), statistics (22h) equal
 * to what was written and to the FTL's own counters (bloxctl stats),
 * events (23h: an invalid placement identifier, a reclaim unit updated
 * before it was full) as feature 1Eh enabled them, feature 1Dh and the
 * Command Sequence Error of changing it, what a namespace without FDP
 * answers, the data read back, and the statistics through a clean
 * restart. bloxctl refuses handles on a RAM or zoned namespace and more
 * than eight.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdp_common.h"

#define SUBNQN "nqn.2026-12.io.blox:fdp"
#define NRUH 4u
#define RUN 64u /* blocks written per handle */
#define FTL_UNIT_BYTES 4096u /* the nand backend's unit */
#define SC_GENERIC(x) (0x4000 | (x)) /* DNR, generic */

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"  {\"nsid\": 1, \"backend\": \"nand\", \"size\": \"32M\","
	"   \"nand\": {\"channels\": 2, \"dies_per_channel\": 2, \"planes_per_die\": 1,"
	"   \"pages_per_block\": 48}, \"ftl\": {\"placement_handles\": 4}},"
	"  {\"nsid\": 2, \"backend\": \"ram\", \"size\": \"4M\"}"
	"] } ]";

struct env {
	struct fx_env fx; /* first: fx_group_setup() allocates the whole */
	char out[65536];
	uint16_t endgid;
	uint64_t written; /* host bytes written to nsid 1 */
};

#define run(e, ...) fx_ctl(&(e)->fx.d, (e)->out, sizeof((e)->out), __VA_ARGS__)

#define FILL_SALT 0xfdf /* this program's data pattern */

static uint64_t get128(const uint8_t *p)
{
	uint64_t v, hi;

	memcpy(&v, p, 8);
	memcpy(&hi, p + 8, 8);
	assert_int_equal(hi, 0);
	return v;
}

/* Set Features @fid with CDW11 @cdw11, CDW12 @cdw12 and @len bytes of @data. */
static int set_feat(struct ini_queue *q, uint8_t fid, uint32_t nsid, uint32_t cdw11,
		    uint32_t cdw12, void *data, uint32_t len)
{
	struct ini_req r;

	ini_req_init(&r, nvme_admin_set_features, nsid, data, len,
		     len ? INI_DIR_H2C : INI_DIR_NONE);
	r.sqe.cdw10 = fid;
	r.sqe.cdw11 = cdw11;
	r.sqe.cdw12 = cdw12;
	return ini_exec(q, &r) ? -1 : ini_status(&r.cqe);
}

static int get_feat(struct ini_queue *q, uint8_t fid, uint32_t nsid, uint32_t cdw11,
		    void *data, uint32_t len, uint32_t *result)
{
	struct ini_req r;

	ini_req_init(&r, nvme_admin_get_features, nsid, data, len,
		     len ? INI_DIR_C2H : INI_DIR_NONE);
	r.sqe.cdw10 = fid;
	r.sqe.cdw11 = cdw11;
	if (ini_exec(q, &r))
		return -1;
	*result = (uint32_t)r.cqe.result;
	return ini_status(&r.cqe);
}

/* Handle @h's host_bytes and media_bytes in bloxctl stats --json of nsid 1, and the text. */
static void stats_handle(struct env *e, uint32_t h, uint64_t *host, uint64_t *media,
			 uint64_t *total_host)
{
	json_object *o, *nss, *fdp, *hs, *v;
	bool found = false;

	assert_int_equal(run(e, "stats " SUBNQN " 1"), 0);
	assert_non_null(strstr(e->out, "fdp"));
	assert_non_null(strstr(e->out, "4 reclaim unit handles (persistently isolated)"));
	assert_int_equal(run(e, "stats " SUBNQN " 1 --json"), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &nss));
	assert_true(json_object_object_get_ex(json_object_array_get_idx(nss, 0), "fdp", &fdp));
	assert_true(json_object_object_get_ex(fdp, "host_bytes", &v));
	*total_host = (uint64_t)json_object_get_int64(v);
	assert_true(json_object_object_get_ex(fdp, "handles", &hs));
	assert_int_equal(json_object_array_length(hs), NRUH);
	for (size_t i = 0; i < json_object_array_length(hs); i++) {
		json_object *x = json_object_array_get_idx(hs, i);
		uint32_t id = json_object_object_get_ex(x, "handle", &v)
				      ? (uint32_t)json_object_get_int(v) : 0;

		if (id != h)
			continue;
		found = true;
		*host = json_object_object_get_ex(x, "host_bytes", &v)
				? (uint64_t)json_object_get_int64(v) : 0;
		*media = json_object_object_get_ex(x, "media_bytes", &v)
				 ? (uint64_t)json_object_get_int64(v) : 0;
	}
	assert_true(found);
	json_object_put(o);
}

/* The FTL counters of nsid 1 (bloxctl stats --json), in bytes programmed. */
static uint64_t ftl_media_bytes(struct env *e, uint64_t *host)
{
	json_object *o, *nss, *ftl, *v;
	uint64_t units = 0;

	assert_int_equal(run(e, "stats --json"), 0);
	o = json_tokener_parse(e->out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "namespaces", &nss));
	for (size_t i = 0; i < json_object_array_length(nss); i++) {
		json_object *ns = json_object_array_get_idx(nss, i);

		if (!json_object_object_get_ex(ns, "nsid", &v) || json_object_get_int(v) != 1 ||
		    !json_object_object_get_ex(ns, "ftl", &ftl))
			continue;
		*host = json_object_object_get_ex(ftl, "units_written_host", &v)
				? (uint64_t)json_object_get_int64(v) * FTL_UNIT_BYTES
				: 0;
		units = 0;
		for (int k = 0; k < 4; k++) {
			static const char *const keys[] = { "units_written_host",
							    "units_written_gc",
							    "units_written_tp", "units_padded" };

			if (json_object_object_get_ex(ftl, keys[k], &v))
				units += (uint64_t)json_object_get_int64(v);
		}
	}
	json_object_put(o);
	return units * FTL_UNIT_BYTES;
}

static void test_identify(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin;
	struct nvme_id_ctrl id;
	struct nvme_id_ns ns;
	struct nvme_id_directives d;
	struct ini_req r;

	assert_int_equal(ini_identify(a, NVME_IDENTIFY_CNS_CTRL, 0, 0, &id), 0);
	assert_true(id.ctratt & NVME_CTRL_CTRATT_FDPS);
	assert_true(id.ctratt & NVME_CTRL_CTRATT_ENDURANCE_GROUPS);
	assert_true(id.oacs & NVME_CTRL_OACS_DIRECTIVES);
	assert_int_equal(ini_identify(a, NVME_IDENTIFY_CNS_NS, 1, 0, &ns), 0);
	e->endgid = ns.endgid;
	assert_int_not_equal(e->endgid, 0);
	/* I/O Command Set Independent Identify Namespace: the same group, ready. */
	{
		struct nvme_id_independent_id_ns ind;

		memset(&ind, 0xee, sizeof(ind));
		assert_int_equal(ini_identify(a, NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 1, 0,
					      &ind), 0);
		assert_int_equal(ind.endgid, e->endgid);
		assert_int_equal(ind.nvmsetid, ns.nvmsetid);
		assert_int_equal(ind.anagrpid, ns.anagrpid);
		assert_int_equal(ind.nmic, ns.nmic);
		assert_int_equal(ind.rescap, ns.rescap);
		assert_int_equal(ind.nsfeat, ns.nsfeat);
		assert_int_equal(ind.nstat & 1, 1);
		assert_int_equal(ind.rsvd15[0], 0);
		assert_int_equal(ini_identify(a, NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 9, 0,
					      &ind), 0);
		assert_int_equal(ind.endgid, 0); /* inactive: zeroes */
		assert_int_equal(ind.nstat, 0);
		assert_int_not_equal(ini_identify(a, NVME_IDENTIFY_CNS_CSI_INDEPENDENT_ID_NS, 0,
						  0, &ind), 0);
	}

	/* Directive Receive, Identify, Return Parameters. */
	for (uint32_t nsid = 1; nsid <= 2; nsid++) {
		ini_req_init(&r, nvme_admin_directive_recv, nsid, &d, sizeof(d), INI_DIR_C2H);
		r.sqe.cdw10 = sizeof(d) / 4 - 1;
		r.sqe.cdw11 = 1; /* DOPER 1, DTYPE 0 */
		assert_int_equal(ini_exec(a, &r), 0);
		assert_int_equal(ini_status(&r.cqe), 0);
		assert_int_equal(d.supported[0], 0x5);
		assert_int_equal(d.enabled[0], nsid == 1 ? 0x5 : 0x1);
	}
	/* Streams (DTYPE 1) are not supported. */
	ini_req_init(&r, nvme_admin_directive_recv, 1, &d, sizeof(d), INI_DIR_C2H);
	r.sqe.cdw10 = sizeof(d) / 4 - 1;
	r.sqe.cdw11 = 1 | 1u << 8;
	assert_int_equal(ini_exec(a, &r), 0);
	assert_int_equal(ini_status(&r.cqe), SC_GENERIC(NVME_SC_INVALID_FIELD));
	fdp_ctrl_down(c);
}

static void test_config_log(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin;
	uint8_t buf[4096];
	const struct nvme_fdp_config_log *l = (const void *)buf;
	const struct nvme_fdp_config_desc *d = l->configs;
	const struct nvme_fdp_ruhu_log *u = (const void *)buf;

	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_CONFIGS, 0, e->endgid, buf,
					 sizeof(buf)), 0);
	assert_int_equal(l->n, 0); /* one configuration */
	assert_int_equal(l->size, 16 + 64 + NRUH * 4);
	assert_int_equal(d->size, 64 + NRUH * 4);
	assert_true(d->fdpa & (1u << NVME_FDP_CONFIG_FDPA_VALID_SHIFT));
	assert_int_equal(d->nrg, 1);
	assert_int_equal(d->nruh, NRUH);
	assert_int_equal(d->maxpids, 7);
	assert_int_equal(d->nnss, 1);
	/* A superblock: 48 pages of 4 dies, 16 KiB pages. */
	assert_true(d->runs > 0 && d->runs % (48u * 4 * LBA) == 0);
	assert_int_equal(d->erutl, 0);
	for (uint32_t i = 0; i < NRUH; i++)
		assert_int_equal(d->ruhs[i].ruht, NVME_FDP_RUHT_PERSISTENTLY_ISOLATED);

	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_RUH_USAGE, 0, e->endgid, buf, 64),
			 0);
	assert_int_equal(u->nruh, NRUH);
	for (uint32_t i = 0; i < NRUH; i++)
		assert_int_equal(u->ruhus[i].ruha, 1u << NVME_FDP_RUHA_HOST_SHIFT);

	/* Groups without FDP (the RAM namespace's) and none at all. */
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_CONFIGS, 0, 2, buf, 64),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_STATS, 0, 999, buf, 64),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));
	fdp_ctrl_down(c);
}

static void test_writes_stats_events(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin, *q = c->io[0];
	uint8_t *buf = malloc(RUN * LBA), log[4096];
	const struct nvme_fdp_stats_log *st = (const void *)log;
	const struct nvme_fdp_events_log *ev = (const void *)log;
	const struct nvme_fdp_config_log *cl = (const void *)log;
	uint8_t types[2] = { 0x03, 0x00 }, rd[16];
	uint64_t ruamw[NRUH], runs_blocks, host = 0, media = 0, media2 = 0;
	uint16_t pid = 1;
	uint32_t res = 0;

	assert_non_null(buf);
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_CONFIGS, 0, e->endgid, log, 128), 0);
	runs_blocks = cl->configs[0].runs / LBA;

	/* Events: Invalid Placement Identifier on handle 0, Not Fully Written on 1. */
	assert_int_equal(set_feat(a, NVME_FEAT_FID_FDP_EVENTS, 1, 0 | 1u << 16, 1, types, 1), 0);
	assert_int_equal(set_feat(a, NVME_FEAT_FID_FDP_EVENTS, 1, 1 | 1u << 16, 1, types + 1, 1),
			 0);
	assert_int_equal(get_feat(a, NVME_FEAT_FID_FDP_EVENTS, 1, 0 | 3u << 16, rd, 6, &res), 0);
	assert_int_equal(res, 3);
	assert_int_equal(rd[0], 0x00); /* supported: not fully written, off on handle 0 */
	assert_int_equal(rd[1] & 1, 0);
	assert_int_equal(rd[2], 0x01); /* time limit exceeded, off */
	assert_int_equal(rd[3] & 1, 0);
	assert_int_equal(rd[4], 0x03); /* invalid placement identifier, on */
	assert_int_equal(rd[5] & 1, 1);
	/* nvme-cli sends 255 bytes whatever the count. */
	{
		uint8_t big[255] = { 0x03 };

		assert_int_equal(set_feat(a, NVME_FEAT_FID_FDP_EVENTS, 1, 2 | 1u << 16, 1, big,
					  sizeof(big)), 0);
	}
	assert_int_equal(set_feat(a, NVME_FEAT_FID_FDP_EVENTS, 1, 7 | 1u << 16, 1, types, 1),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));
	types[0] = 0x02; /* not one it reports: a controller reset changes no handle */
	assert_int_equal(set_feat(a, NVME_FEAT_FID_FDP_EVENTS, 1, 0 | 1u << 16, 1, types, 1),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));

	/* RUN blocks with each placement identifier, each in its own region. */
	for (uint32_t h = 0; h < NRUH; h++) {
		fdp_fill(buf, h * 1024u, RUN, FILL_SALT);
		assert_int_equal(ini_write_dir(q, 1, h * 1024u, RUN, buf, RUN * LBA, 2,
					       (uint16_t)h), 0);
		e->written += RUN * LBA;
	}
	fdp_ruh_status(q, NRUH, ruamw);
	for (uint32_t h = 0; h < NRUH; h++)
		assert_int_equal(ruamw[h], runs_blocks - RUN);
	/* No directive, and an invalid identifier: both to handle 0. */
	fdp_fill(buf, 5000, 8, FILL_SALT);
	assert_int_equal(ini_write(q, 1, 5000, 8, buf, 8 * LBA, false), 0);
	fdp_fill(buf, 5100, 8, FILL_SALT);
	assert_int_equal(ini_write_dir(q, 1, 5100, 8, buf, 8 * LBA, 2, 9), 0);
	e->written += 16 * LBA;
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[0], runs_blocks - RUN - 16);
	/* Streams directive: not enabled. */
	assert_int_equal(ini_write_dir(q, 1, 5200, 8, buf, 8 * LBA, 1, 0),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));

	/* Update handle 1: a fresh reclaim unit; an identifier out of range is refused. */
	assert_int_equal(ini_io_mgmt_send(q, 1, NVME_IO_MGMT_SEND_RUH_UPDATE, &pid, 1), 0);
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[1], 0);
	assert_int_equal(ruamw[2], runs_blocks - RUN);
	pid = NRUH;
	assert_int_equal(ini_io_mgmt_send(q, 1, NVME_IO_MGMT_SEND_RUH_UPDATE, &pid, 1),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));
	fdp_fill(buf, 1024u + RUN, 8, FILL_SALT);
	assert_int_equal(ini_write_dir(q, 1, 1024u + RUN, 8, buf, 8 * LBA, 2, 1), 0);
	e->written += 8 * LBA;
	fdp_ruh_status(q, NRUH, ruamw);
	assert_int_equal(ruamw[1], runs_blocks - 8);
	assert_int_equal(ini_flush(q, 1), 0);

	/* Statistics: the host bytes written; media bytes as the FTL counts them. */
	for (int tries = 0; tries < 50; tries++) {
		media = ftl_media_bytes(e, &host);
		assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_STATS, 0, e->endgid, log, 64),
				 0);
		media2 = ftl_media_bytes(e, &host);
		if (media == media2)
			break; /* nothing moved in between */
		fx_sleep_ms(100);
	}
	assert_int_equal(get128(st->hbmw), e->written);
	assert_int_equal(host, e->written);
	assert_int_equal(get128(st->mbmw), media);
	assert_true(get128(st->mbmw) >= e->written);
	/* bloxctl stats: per handle, what was written with it. */
	{
		uint64_t h_host, h_media, total;

		stats_handle(e, 0, &h_host, &h_media, &total);
		assert_int_equal(h_host, (RUN + 16) * LBA); /* its own, no directive, invalid */
		assert_true(h_media >= h_host);
		assert_int_equal(total, e->written);
		stats_handle(e, 1, &h_host, &h_media, &total);
		assert_int_equal(h_host, (RUN + 8) * LBA);
		stats_handle(e, 3, &h_host, &h_media, &total);
		assert_int_equal(h_host, RUN * LBA);
	}

	/* Host events (LSP bit 0), oldest first; none from the controller. */
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_EVENTS, 1, e->endgid, log,
					 sizeof(log)), 0);
	assert_int_equal(ev->n, 2);
	assert_int_equal(ev->events[0].type, 0x03);
	assert_int_equal(ev->events[0].pid, 9);
	assert_int_equal(ev->events[0].nsid, 1);
	assert_int_equal(ev->events[1].type, 0x00);
	assert_int_equal(ev->events[1].pid, 1);
	assert_int_equal(ev->events[1].ruhid, 1);
	assert_int_equal(ini_get_log_lsi(a, NVME_LOG_LID_FDP_EVENTS, 0, e->endgid, log,
					 sizeof(log)), 0);
	assert_int_equal(ev->n, 0);

	/* Every block reads back. */
	for (uint32_t h = 0; h < NRUH; h++) {
		uint8_t *want = malloc(RUN * LBA);

		assert_non_null(want);
		fdp_fill(want, h * 1024u, RUN, FILL_SALT);
		assert_int_equal(ini_read(q, 1, h * 1024u, RUN, buf, RUN * LBA), 0);
		assert_memory_equal(buf, want, RUN * LBA);
		free(want);
	}
	free(buf);
	fdp_ctrl_down(c);
}

static void test_features_and_no_fdp(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	struct ini_queue *a = c->admin, *q = c->io[0];
	uint8_t buf[LBA];
	uint32_t res = 0;
	uint16_t pid = 0;

	assert_int_equal(get_feat(a, NVME_FEAT_FID_FDP, 0, e->endgid, NULL, 0, &res), 0);
	assert_int_equal(res & 1, 1);
	assert_int_equal((res >> 8) & 0xff, 0);
	/* Changing it while the group has namespaces is a Command Sequence Error. */
	assert_int_equal(set_feat(a, NVME_FEAT_FID_FDP, 0, e->endgid, 0, NULL, 0),
			 SC_GENERIC(NVME_SC_CMD_SEQ_ERROR));
	assert_int_equal(set_feat(a, NVME_FEAT_FID_FDP, 0, e->endgid, 1, NULL, 0), 0);
	assert_int_equal(set_feat(a, NVME_FEAT_FID_FDP, 0, e->endgid, 1 | 1u << 8, NULL, 0),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));
	assert_int_equal(get_feat(a, NVME_FEAT_FID_FDP, 0, 2, NULL, 0, &res), 0);
	assert_int_equal(res & 1, 0); /* the RAM namespace's group */
	assert_int_equal(get_feat(a, NVME_FEAT_FID_FDP, 0, 999, NULL, 0, &res),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));

	/* A namespace without FDP. */
	assert_int_equal(ini_io_mgmt_recv(q, 2, NVME_IO_MGMT_RECV_RUH_STATUS, buf, 64),
			 SC_GENERIC(0x29));
	assert_int_equal(ini_io_mgmt_send(q, 2, NVME_IO_MGMT_SEND_RUH_UPDATE, &pid, 1),
			 SC_GENERIC(0x29));
	memset(buf, 0, sizeof(buf));
	assert_int_equal(ini_write_dir(q, 2, 0, 1, buf, LBA, 2, 0),
			 SC_GENERIC(NVME_SC_INVALID_FIELD));
	fdp_ctrl_down(c);
}

/* The statistics are the FTL's, kept by its checkpoint: the same after a clean restart. */
static void test_stats_after_restart(void **state)
{
	struct env *e = *state;
	struct ini_ctrl *c = fdp_ctrl_up(&e->fx, SUBNQN);
	uint8_t before[64], after[64];

	assert_int_equal(ini_get_log_lsi(c->admin, NVME_LOG_LID_FDP_STATS, 0, e->endgid,
					 before, 64), 0);
	fdp_ctrl_down(c);
	assert_int_equal(fx_stop(&e->fx.d), 0);
	assert_int_equal(fx_start_opts(&e->fx.d, subsystems,
				       &(struct fx_start_opts){ .data_dir = e->fx.data_dir }),
			 0);
	c = fdp_ctrl_up(&e->fx, SUBNQN);
	assert_int_equal(ini_get_log_lsi(c->admin, NVME_LOG_LID_FDP_STATS, 0, e->endgid,
					 after, 64), 0);
	/* The shutdown may pad and write back translation pages: media only grows. */
	assert_int_equal(get128(after), get128(before));
	assert_true(get128(after + 16) >= get128(before + 16));
	assert_true(get128(after + 16) > 0);
	fdp_ctrl_down(c);
}

/* bloxctl: handles where there is no FTL, and too many. */
static void test_cli_refusals(void **state)
{
	struct env *e = *state;

	assert_int_not_equal(run(e, "ns create " SUBNQN " --size 4M --backend ram "
				    "--placement-handles 2"), 0);
	assert_non_null(strstr(e->out, "placement_handles"));
	assert_non_null(strstr(e->out, "nand"));
	assert_int_not_equal(run(e, "ns create " SUBNQN " --size 16M --zoned --channels 2 "
				    "--placement-handles 2"), 0);
	assert_non_null(strstr(e->out, "zone"));
	assert_int_not_equal(run(e, "ns create " SUBNQN " --size 16M --backend nand "
				    "--placement-handles 9"), 0);
	assert_non_null(strstr(e->out, "placement_handles"));
	assert_int_not_equal(run(e, "ns create " SUBNQN " --size 16M --backend nand "
				    "--ruh-type sometimes --placement-handles 2"), 0);
	assert_non_null(strstr(e->out, "ruh_type"));
}

int main(void)
{
	static const struct fx_group g = FDP_GROUP("integration_fdp", subsystems, struct env);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identify),
		cmocka_unit_test(test_config_log),
		cmocka_unit_test(test_writes_stats_events),
		cmocka_unit_test(test_features_and_no_fdp),
		cmocka_unit_test(test_stats_after_restart),
		cmocka_unit_test(test_cli_refusals),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
