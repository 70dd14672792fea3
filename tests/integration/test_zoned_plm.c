/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Predictable Latency Mode on a zoned vSSD over loopback through the
 * project's initiator: a zoned vSSD made with bloxctl on a shared device
 * is an NVM Set with the mode (Set Features 13h, 14h; log 0Ah); in a
 * deterministic window it takes writes and zone resets, the log's
 * estimates fall by what the host read and wrote, and the resets' erases
 * wait (bloxctl --json stats: rows waiting, resets deferred); the
 * non-deterministic window erases them, and the wear figures move. A
 * reset that cannot wait ends the window by itself (excursion, log 0Bh,
 * the notice).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "zoned_common.h"

#define SUBNQN "nqn.2026-12.io.blox:zplm"
#define ZSIZE 1024u /* 4 MiB zones */
#define NSID 1u

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": [] } ]";

/* Set Features 13h on set @set: enable (or not), no warnings. Its status. */
static int plm_config(struct ini_queue *adm, uint32_t set, bool enable)
{
	struct nvme_plm_config cfg;
	struct ini_req r;
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	ini_req_init(&r, nvme_admin_set_features, 0, &cfg, sizeof(cfg), INI_DIR_H2C);
	r.sqe.cdw10 = NVME_FEAT_FID_PLM_CONFIG;
	r.sqe.cdw11 = set;
	r.sqe.cdw12 = enable;
	rc = ini_exec(adm, &r);
	return rc ? rc : ini_status(&r.cqe);
}

/* Set Features 14h: 1 DTWIN, 2 NDWIN. */
static int plm_window(struct ini_queue *adm, uint32_t set, uint32_t ws)
{
	struct ini_req r;
	int rc;

	ini_req_init(&r, nvme_admin_set_features, 0, NULL, 0, INI_DIR_NONE);
	r.sqe.cdw10 = NVME_FEAT_FID_PLM_WINDOW;
	r.sqe.cdw11 = set;
	r.sqe.cdw12 = ws;
	rc = ini_exec(adm, &r);
	return rc ? rc : ini_status(&r.cqe);
}

static struct nvme_nvmset_predictable_lat_log plm_log(struct ini_queue *adm, uint16_t set)
{
	struct nvme_nvmset_predictable_lat_log l;

	assert_int_equal(ini_get_log_lsi(adm, NVME_LOG_LID_PREDICTABLE_LAT_NVMSET, 0, set, &l,
					 sizeof(l)),
			 0);
	return l;
}

/* A number of the namespace's "zoned" object in `bloxctl --json stats`. */
static int64_t zstat(struct zfx *e, const char *key)
{
	struct json_object *root, *arr, *ns, *z, *v;
	int64_t n;

	assert_int_equal(zfx_run(e, "--json stats %s %u", SUBNQN, NSID), 0);
	root = json_tokener_parse(e->out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "namespaces", &arr));
	assert_int_equal(json_object_array_length(arr), 1);
	ns = json_object_array_get_idx(arr, 0);
	if (!json_object_object_get_ex(ns, "zoned", &z))
		fail_msg("no zoned stats: %s", e->out);
	n = json_object_object_get_ex(z, key, &v) ? json_object_get_int64(v) : 0;
	json_object_put(root);
	return n;
}

static void wr_check(struct ini_queue *q, uint64_t lba, uint32_t n, uint32_t id)
{
	uint8_t *w = malloc((size_t)n * LBA), *r = malloc((size_t)n * LBA);

	assert_non_null(w);
	assert_non_null(r);
	zfx_fill(w, id, lba, n);
	assert_int_equal(ini_write(q, NSID, lba, n, w, n * LBA, false), 0);
	assert_int_equal(ini_read(q, NSID, lba, n, r, n * LBA), 0);
	assert_memory_equal(w, r, (size_t)n * LBA);
	free(w);
	free(r);
}

/* Device dz (two channels of two dies) and on it the zoned vSSD NSID, 16 MiB of 4 MiB zones. */
static void make_zoned(struct zfx *e)
{
	assert_int_equal(zfx_run(e, "device create dz --channels 2 --dies-per-channel 2 "
				    "--pages-per-block 48 --blocks-per-plane 32"),
			 0);
	assert_int_equal(zfx_run(e, "ns create %s --nsid %u --device dz --zoned --size 16M "
				    "--zone-size 4M",
				 SUBNQN, NSID),
			 0);
}

/* 1. A zoned vSSD: windows, log 0Ah, resets deferred and erased later, the wear. */
static void test_zoned_plm(void **state)
{
	struct zfx *e = *state;
	struct ini_ctrl *c = NULL;
	struct ini_queue *adm, *q;
	struct nvme_nvmset_predictable_lat_log l0, l1;
	int64_t deadline;

	make_zoned(e);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	adm = c->admin;
	q = c->io[0];
	/* Disabled: status 0, the typical figures. */
	l0 = plm_log(adm, NSID);
	assert_int_equal(l0.status, NVME_NVMSET_PL_STATUS_DISABLED);
	assert_true(l0.dtwin_rt > 0 && l0.dtwin_tmax == 10000);
	assert_int_equal(plm_window(adm, NSID, 1), NVME_SC_INVALID_FIELD | NVME_SC_DNR);
	assert_int_equal(plm_config(adm, NSID, true), 0);
	assert_int_equal(plm_log(adm, NSID).status, NVME_NVMSET_PL_STATUS_NDWIN);
	/* Zone 0 written in NDWIN, then a DTWIN (held until NDWIN's minimum, if any). */
	wr_check(q, 0, 64, 1);
	assert_int_equal(plm_window(adm, NSID, 1), 0);
	l0 = plm_log(adm, NSID);
	assert_int_equal(l0.status, NVME_NVMSET_PL_STATUS_DTWIN);
	/* Writes and a reset in the window: 32 LBAs written and read, zone 0 reset. */
	wr_check(q, ZSIZE, 32, 2);
	assert_int_equal(ini_zone_send(q, NSID, 0, NVME_ZNS_ZSA_RESET, false), 0);
	wr_check(q, 0, 16, 3);
	l1 = plm_log(adm, NSID);
	assert_int_equal(l1.status, NVME_NVMSET_PL_STATUS_DTWIN);
	/* 48 LBAs read; 48 written = 3 pages of 16 KiB... of 4 LBAs: 12 pages. */
	assert_int_equal(l0.dtwin_re - l1.dtwin_re, 48);
	assert_int_equal(l0.dtwin_we - l1.dtwin_we, 12);
	assert_true(l1.dtwin_te <= l0.dtwin_te);
	assert_int_equal(zstat(e, "rows_dirty"), 1);
	assert_int_equal(zstat(e, "resets_deferred"), 1);
	assert_int_equal(zstat(e, "max_erase"), 0);
	/* NDWIN: the row is erased in the background. */
	assert_int_equal(plm_window(adm, NSID, 2), 0);
	assert_int_equal(plm_log(adm, NSID).status, NVME_NVMSET_PL_STATUS_NDWIN);
	deadline = fx_now_ms() + 20000;
	while (zstat(e, "rows_dirty") && fx_now_ms() < deadline)
		usleep(10000);
	assert_int_equal(zstat(e, "rows_dirty"), 0);
	assert_int_equal(zstat(e, "rows_erased_later"), 1);
	assert_true(zstat(e, "max_erase") >= 1);
	assert_int_equal(zstat(e, "min_erase"), 0);
	assert_true(zstat(e, "rows") > 4);
	/* No event: the windows were the host's. */
	assert_int_equal(plm_log(adm, NSID).event_type, 0);
	/* The text form. */
	assert_int_equal(zfx_run(e, "stats %s %u", SUBNQN, NSID), 0);
	assert_non_null(strstr(e->out, "zoned"));
	assert_non_null(strstr(e->out, "block erases min 0 max"));
	assert_int_equal(plm_config(adm, NSID, false), 0);
	assert_int_equal(plm_log(adm, NSID).status, NVME_NVMSET_PL_STATUS_DISABLED);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	assert_int_equal(zfx_run(e, "ns delete %s %u", SUBNQN, NSID), 0);
	assert_int_equal(zfx_run(e, "device delete dz"), 0);
}

/*
 * 2. A zoned vSSD with one row past its zones: the second reset in a DTWIN
 * cannot wait (an Empty zone would find no erased row): the window ends by
 * itself, a Deterministic Excursion in log 0Ah, the set in log 0Bh, the
 * Predictable Latency notice; the rows are erased and every zone writes.
 */
static void test_zoned_plm_excursion(void **state)
{
	struct zfx *e = *state;
	struct ini_ctrl *c = NULL;
	struct ini_queue *adm, *q;
	struct nvme_nvmset_predictable_lat_log l;
	struct {
		uint64_t n;
		uint16_t sets[4];
	} agg;
	struct ini_req aer;
	uint32_t rows, zones;
	int64_t deadline;

	/* The rows its block range has: as many zones less one. */
	make_zoned(e);
	rows = (uint32_t)zstat(e, "rows");
	assert_true(rows > 2);
	assert_int_equal(zfx_run(e, "ns delete %s %u", SUBNQN, NSID), 0);
	zones = rows - 1;
	assert_int_equal(zfx_run(e, "ns create %s --nsid %u --device dz --zoned --size %uM "
				"--zone-size 4M",
			     SUBNQN, NSID, zones * 4),
			 0);
	assert_int_equal(fx_ctrl(&e->fx.d, SUBNQN, NULL, 1, NULL, &c), 0);
	adm = c->admin;
	q = c->io[0];
	for (uint32_t z = 0; z < zones; z++)
		wr_check(q, (uint64_t)z * ZSIZE, 4, 10 + z);
	/* Predictable Latency notices on (Asynchronous Event Configuration bit 12). */
	assert_int_equal(ini_set_features(adm, NVME_FEAT_FID_ASYNC_EVENT, 1u << 12, NULL), 0);
	ini_req_init(&aer, nvme_admin_async_event, 0, NULL, 0, INI_DIR_NONE);
	assert_int_equal(ini_submit(adm, &aer), 0);
	assert_int_equal(plm_config(adm, NSID, true), 0);
	assert_int_equal(plm_window(adm, NSID, 1), 0);
	assert_int_equal(ini_zone_send(q, NSID, 0, NVME_ZNS_ZSA_RESET, false), 0);
	assert_int_equal(zstat(e, "rows_dirty"), 1);
	assert_int_equal(plm_log(adm, NSID).status, NVME_NVMSET_PL_STATUS_DTWIN);
	assert_int_equal(ini_zone_send(q, NSID, ZSIZE, NVME_ZNS_ZSA_RESET, false), 0);
	/* The notice: Notice, Predictable Latency Event Aggregate Log Change, log 0Bh. */
	assert_int_equal(ini_wait(adm, &aer), 0);
	assert_int_equal(ini_status(&aer.cqe), 0);
	assert_int_equal(aer.cqe.result, 0x0b0402u);
	memset(&agg, 0, sizeof(agg));
	assert_int_equal(ini_get_log(adm, NVME_LOG_LID_PREDICTABLE_LAT_AGG, 0, 0, &agg,
				     sizeof(agg)),
			 0);
	assert_int_equal(agg.n, 1);
	assert_int_equal(agg.sets[0], NSID);
	/* Read without RAE: the events are cleared. */
	l = plm_log(adm, NSID);
	assert_int_equal(l.status, NVME_NVMSET_PL_STATUS_NDWIN);
	assert_int_equal(l.event_type, 1u << 15);
	assert_int_equal(plm_log(adm, NSID).event_type, 0);
	deadline = fx_now_ms() + 20000;
	while (zstat(e, "rows_dirty") && fx_now_ms() < deadline)
		usleep(10000);
	assert_int_equal(zstat(e, "rows_dirty"), 0);
	assert_int_equal(zstat(e, "resets_deferred"), 1);
	wr_check(q, 0, 8, 100);
	wr_check(q, ZSIZE, 8, 101);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	assert_int_equal(zfx_run(e, "ns delete %s %u", SUBNQN, NSID), 0);
	assert_int_equal(zfx_run(e, "device delete dz"), 0);
}

int main(void)
{
	static const struct fx_group g = { .who = "test_zoned_plm",
					   .subsystems = subsystems,
					   .own_data_dir = true,
					   .size = sizeof(struct zfx) };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zoned_plm),
		cmocka_unit_test(test_zoned_plm_excursion),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};

	return FX_MAIN(&g, tests);
}
