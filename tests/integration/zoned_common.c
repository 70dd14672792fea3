/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the zoned integration tests share: the model of namespace 1, the
 * writes and reads against it, Report Zones, the Changed Zone List, what
 * ns show counts. See zoned_common.h.
 */
#include "zoned_common.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

int zfx_setup(struct zfx *z, uint64_t lbas)
{
	z->model = calloc(lbas, LBA);
	return z->model ? 0 : -1;
}

void zfx_teardown(void *arg)
{
	struct zfx *z = arg;

	free(z->model);
}

void zfx_fill(uint8_t *buf, uint32_t id, uint64_t lba, uint32_t n)
{
	for (uint64_t i = 0; i < (uint64_t)n * LBA; i += 8) {
		uint64_t v = ((uint64_t)id << 40) ^ ((lba * LBA + i) * 0x9e3779b97f4a7c15ull);

		memcpy(buf + i, &v, 8);
	}
}

int zfx_write(struct zfx *z, struct ini_queue *q, uint64_t lba, uint32_t n, bool fua)
{
	uint8_t *buf = malloc((size_t)n * LBA);
	int st;

	assert_non_null(buf);
	zfx_fill(buf, ++z->wid, lba, n);
	st = ini_write(q, 1, lba, n, buf, n * LBA, fua);
	if (st == 0)
		memcpy(z->model + lba * LBA, buf, (size_t)n * LBA);
	free(buf);
	return st;
}

void zfx_check(const struct zfx *z, struct ini_queue *q, uint64_t lba, uint32_t n)
{
	uint8_t *buf = malloc((size_t)n * LBA);

	assert_non_null(buf);
	assert_int_equal(ini_read(q, 1, lba, n, buf, n * LBA), 0);
	for (uint32_t i = 0; i < n; i++)
		if (memcmp(buf + (size_t)i * LBA, z->model + (lba + i) * LBA, LBA))
			fail_msg("LBA %lu differs", (unsigned long)(lba + i));
	free(buf);
}

uint64_t zfx_report(struct ini_queue *q, uint32_t nsid, uint64_t slba, uint8_t filter,
		    struct nvme_zns_desc *d, uint32_t n)
{
	uint32_t len = 64 + n * 64;
	struct nvme_zone_report *r = calloc(1, len);
	uint64_t nr;

	assert_non_null(r);
	assert_int_equal(ini_zone_report(q, nsid, slba, filter, false, r, len), 0);
	nr = r->nr_zones;
	if (d)
		memcpy(d, r->entries, (size_t)n * 64);
	free(r);
	return nr;
}

struct nvme_zns_desc zfx_zone(struct ini_queue *q, uint32_t nsid, uint64_t zslba)
{
	struct nvme_zns_desc d;

	zfx_report(q, nsid, zslba, NVME_ZNS_ZRAS_REPORT_ALL, &d, 1);
	return d;
}

uint16_t zfx_changed_zones(struct ini_queue *adm, uint32_t nsid, uint64_t *first)
{
	uint8_t log[4096];
	struct ini_req r;
	uint16_t n;

	ini_req_init(&r, nvme_admin_get_log_page, nsid, log, sizeof(log), INI_DIR_C2H);
	r.sqe.cdw10 = 0xbf | ((sizeof(log) / 4 - 1) << 16);
	r.sqe.cdw14 = 2u << 24; /* CSI: Zoned Namespace */
	assert_int_equal(ini_exec(adm, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	memcpy(&n, log, 2);
	if (first)
		memcpy(first, log + 8, 8);
	return n;
}

int64_t zfx_ns_zones(const struct fx_daemon *d, const char *nqn, uint32_t nsid, const char *key)
{
	static char out[65536];
	json_object *o, *zs, *v;
	int64_t r = 0;

	assert_int_equal(fx_ctl(d, out, sizeof(out), "--json ns show %s %u", nqn, nsid), 0);
	o = json_tokener_parse(out);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "zones", &zs));
	if (json_object_object_get_ex(zs, key, &v))
		r = json_object_get_int64(v);
	json_object_put(o);
	return r;
}
