/* SPDX-License-Identifier: BSD-3-Clause */
/* What integration_fdp and integration_fdp_events share; see fdp_common.h. */
#include "fdp_common.h"

#include <stdlib.h>
#include <string.h>

struct ini_ctrl *fdp_ctrl_up(struct fx_env *fx, const char *subnqn)
{
	struct ini_ctrl *c = NULL;

	assert_int_equal(fx_ctrl(&fx->d, subnqn, NULL, 1, NULL, &c), 0);
	return c;
}

void fdp_ctrl_down(struct ini_ctrl *c)
{
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

void fdp_fill(uint8_t *buf, uint64_t lba, uint32_t n, uint64_t salt)
{
	for (uint64_t i = 0; i < (uint64_t)n * LBA; i += 8) {
		uint64_t v = (lba * LBA + i) * 0x9e3779b97f4a7c15ull ^ salt;

		memcpy(buf + i, &v, 8);
	}
}

void fdp_write_pid(struct ini_queue *q, uint64_t lba, uint64_t n, uint16_t pid, uint64_t salt)
{
	uint8_t *buf = malloc(FDP_CHUNK * LBA);

	assert_non_null(buf);
	for (uint64_t done = 0; done < n;) {
		uint32_t k = (uint32_t)(n - done < FDP_CHUNK ? n - done : FDP_CHUNK);

		fdp_fill(buf, lba + done, k, salt);
		assert_int_equal(ini_write_dir(q, 1, lba + done, k, buf, k * LBA, 2, pid), 0);
		done += k;
	}
	free(buf);
}

void fdp_check(struct ini_queue *q, uint64_t lba, uint32_t n, uint64_t salt)
{
	uint8_t *buf = malloc(FDP_CHUNK * LBA), *want = malloc(FDP_CHUNK * LBA);

	assert_non_null(buf);
	assert_non_null(want);
	for (uint32_t done = 0; done < n; done += FDP_CHUNK) {
		uint32_t k = n - done < FDP_CHUNK ? n - done : FDP_CHUNK;

		fdp_fill(want, lba + done, k, salt);
		assert_int_equal(ini_read(q, 1, lba + done, k, buf, k * LBA), 0);
		assert_memory_equal(buf, want, (size_t)k * LBA);
	}
	free(buf);
	free(want);
}

void fdp_ruh_status(struct ini_queue *q, uint32_t nruh, uint64_t *ruamw)
{
	uint8_t buf[16 + 16 * 32];
	const struct nvme_fdp_ruh_status *s = (const void *)buf;

	assert_true(nruh <= 16);
	assert_int_equal(ini_io_mgmt_recv(q, 1, NVME_IO_MGMT_RECV_RUH_STATUS, buf,
					  (uint32_t)(16 + nruh * 32)),
			 0);
	assert_int_equal(s->nruhsd, nruh);
	for (uint32_t i = 0; i < nruh; i++) {
		assert_int_equal(s->ruhss[i].pid, i);
		ruamw[i] = s->ruhss[i].ruamw;
	}
}
