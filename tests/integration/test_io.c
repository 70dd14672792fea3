/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of bloxd's NVM path over loopback: ICResp values,
 * Identify (controller, namespace, active list, descriptors), write/read
 * verify across queue depths, sizes, digests and SQ flow control modes,
 * in-capsule and R2T writes, FUA, Flush, Write Zeroes, Dataset
 * Management, Compare, several I/O queues, namespace isolation, and a
 * shutdown + reconnect that keeps the data. The last test stops the
 * daemon and checks it exits 0 (ASan leak reports make that fail).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "io.h"
#include "rw.h"

static const char subsystems[] =
	"[ { \"nqn\": \"" SUBNQN "\", \"serial\": \"" SERIAL "\","
	"    \"allow_any_host\": true, \"namespaces\": ["
	"      {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"64M\", \"block_size\": 4096},"
	"      {\"nsid\": 2, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 512},"
	"      {\"nsid\": 3, \"backend\": \"null\", \"size\": \"1G\", \"block_size\": 4096}"
	"  ] } ]";

static const struct rw_geom ns1 = { 1, 4096, NS1_BLOCKS };
static const struct rw_geom ns2 = { 2, 512, NS2_BLOCKS };

/* A controller with @nr_io queues of IO_SQSIZE; fails the test if not. */
struct ini_ctrl *ctrl_up(struct fx_env *e, uint32_t nr_io, const struct ini_opts *o)
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	uint16_t st = 0;
	int rc;

	ini_ctrl_args_init(&a, FX_ADDR, e->d.nvm_port, SUBNQN);
	a.nr_io = nr_io;
	a.io_sqsize = IO_SQSIZE;
	if (o)
		a.qopts = *o;
	rc = ini_ctrl_connect(&a, &c, &st);
	if (rc)
		fprintf(stderr, "ctrl_up: %d status 0x%x\n", rc, st);
	assert_int_equal(rc, 0);
	return c;
}

void ctrl_down(struct ini_ctrl *c)
{
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

/*
 * The write/read matrix for one connection setup: queue 1 sends writes
 * in-capsule when they fit, queue 2 always by R2T.
 */
static void rw_matrix(struct fx_env *e, bool hdgst, bool ddgst, bool sqflow_off,
		      uint32_t h2c_max)
{
	static const uint32_t sizes[] = { 4096, 16384, 65536, 131072 };
	static const uint32_t depths[] = { 1, 8, 32, 128 };
	struct rw_stats st = { 0 };
	struct ini_opts o;
	struct ini_ctrl *c;

	ini_opts_init(&o);
	o.hdgst = hdgst;
	o.ddgst = ddgst;
	o.disable_sqflow = sqflow_off;
	o.h2c_max = h2c_max; /* several H2CData PDUs per R2T */
	c = ctrl_up(e, 2, &o);
	ini_queue_set_inline(c->io[1], 0);
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		for (size_t d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
			assert_int_equal(rw_round(c->io[0], &ns1, sizes[s],
						  depths[d], sqflow_off,
						  IO_SQSIZE, &e->seed, &st),
					 0);
			if (depths[d] > 32)
				continue;
			assert_int_equal(rw_round(c->io[1], &ns1, sizes[s],
						  depths[d], sqflow_off,
						  IO_SQSIZE, &e->seed, &st),
					 0);
		}
	}
	/* One 512-byte block and 4 KiB on the 512-byte namespace. */
	assert_int_equal(rw_round(c->io[0], &ns2, 512, 32, sqflow_off,
				  IO_SQSIZE, &e->seed, &st),
			 0);
	assert_int_equal(rw_round(c->io[1], &ns2, 4096, 8, sqflow_off,
				  IO_SQSIZE, &e->seed, &st),
			 0);
	fprintf(stderr, "rw_matrix hd=%d dd=%d sqflow_off=%d h2c_max=%u: %u "
			"in-capsule, %u R2T writes, %u reads ended by SUCCESS "
			"flag\n",
		hdgst, ddgst, sqflow_off, h2c_max, st.writes_in_capsule,
		st.writes_r2t, st.reads_success_flag);
	assert_true(st.writes_in_capsule > 0 && st.writes_r2t > 0);
	if (!sqflow_off)
		assert_int_equal(st.reads_success_flag, 0);
	ctrl_down(c);
}

static void test_rw_plain(void **state)
{
	rw_matrix(*state, false, false, false, 0);
	rw_matrix(*state, false, false, true, 0);
}

static void test_rw_hdgst(void **state)
{
	rw_matrix(*state, true, false, false, 4096);
	rw_matrix(*state, true, false, true, 0);
}

static void test_rw_ddgst(void **state)
{
	rw_matrix(*state, false, true, false, 0);
	rw_matrix(*state, false, true, true, 8192);
}

static void test_rw_both_digests(void **state)
{
	rw_matrix(*state, true, true, false, 12288);
	rw_matrix(*state, true, true, true, 0);
}

/* HPDA: the target must align C2HData payloads (checked on receive). */
static void test_hpda(void **state)
{
	struct fx_env *e = *state;
	struct rw_stats st = { 0 };
	struct ini_opts o;
	struct ini_ctrl *c;

	ini_opts_init(&o);
	o.hpda = 3; /* 16-byte alignment */
	o.hdgst = true;
	c = ctrl_up(e, 1, &o);
	assert_int_equal(rw_round(c->io[0], &ns1, 65536, 8, false, IO_SQSIZE,
				  &e->seed, &st),
			 0);
	ctrl_down(c);
}

static void test_fua_and_flush(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	uint8_t *w = malloc(16384), *r = malloc(16384);
	int st;

	assert_non_null(w);
	assert_non_null(r);
	fx_fill_random(w, 16384, &e->seed);
	assert_int_equal(ini_write(c->io[0], 1, 5000, 4, w, 16384, true), 0);
	assert_int_equal(ini_read(c->io[0], 1, 5000, 4, r, 16384), 0);
	assert_memory_equal(w, r, 16384);
	assert_int_equal(ini_flush(c->io[0], 1), 0);
	assert_int_equal(ini_flush(c->io[0], 2), 0);
	/* Broadcast flush: allowed iff VWC says so (NVMe 1.4 6.8). */
	st = ini_flush(c->io[0], 0xffffffff);
	if ((c->id.vwc & 0x7) == 0x7)
		assert_int_equal(st, 0);
	else if ((c->id.vwc & 0x7) == 0x5)
		assert_int_equal(INI_SC_CODE(st), NVME_SC_INVALID_NS);
	free(r);
	free(w);
	ctrl_down(c);
}

/* Write 16 random blocks, clear the middle 8 with @op, check the rest. */
static void clear_middle(struct fx_env *e, bool dsm)
{
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	const uint32_t bs = 4096, n = 16, slba = 9000;
	uint8_t *w = malloc(n * bs), *r = malloc(n * bs), *z = calloc(8, bs);
	struct nvme_id_ns *ns = calloc(1, sizeof(*ns));

	assert_non_null(w);
	assert_non_null(r);
	assert_non_null(z);
	assert_non_null(ns);
	fx_fill_random(w, n * bs, &e->seed);
	assert_int_equal(ini_write(c->io[0], 1, slba, n, w, n * bs, false), 0);
	if (dsm) {
		assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS, 1,
					      0, ns),
				 0);
		/* Deallocated blocks read as zeroes (DLFEAT 001b). */
		assert_int_equal(ns->dlfeat & 0x7, 0x1);
		assert_int_equal(ini_dsm_deallocate(c->io[0], 1, slba + 4, 8), 0);
	} else {
		assert_int_equal(ini_write_zeroes(c->io[0], 1, slba + 4, 8), 0);
	}
	memset(r, 0xa5, n * bs);
	assert_int_equal(ini_read(c->io[0], 1, slba, n, r, n * bs), 0);
	assert_memory_equal(r, w, 4 * bs);
	assert_memory_equal(r + 4 * bs, z, 8 * bs);
	assert_memory_equal(r + 12 * bs, w + 12 * bs, 4 * bs);
	free(ns);
	free(z);
	free(r);
	free(w);
	ctrl_down(c);
}

static void test_write_zeroes(void **state)
{
	clear_middle(*state, false);
}

static void test_dsm_deallocate(void **state)
{
	clear_middle(*state, true);
}

static void test_compare(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	const uint32_t len = 65536; /* beyond in-capsule: R2T */
	uint8_t *w = malloc(len);
	int st;

	assert_non_null(w);
	fx_fill_random(w, len, &e->seed);
	assert_int_equal(ini_write(c->io[0], 1, 12000, 16, w, len, false), 0);
	assert_int_equal(ini_compare(c->io[0], 1, 12000, 2, w, 8192), 0);
	assert_int_equal(ini_compare(c->io[0], 1, 12000, 16, w, len), 0);
	w[len - 1] ^= 0x01;
	st = ini_compare(c->io[0], 1, 12000, 16, w, len);
	assert_int_equal(INI_SC_CODE(st),
			 INI_SC(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED));
	w[len - 1] ^= 0x01;
	w[0] ^= 0x80;
	st = ini_compare(c->io[0], 1, 12000, 1, w, 4096);
	assert_int_equal(INI_SC_CODE(st),
			 INI_SC(NVME_SCT_MEDIA, NVME_SC_COMPARE_FAILED));
	free(w);
	ctrl_down(c);
}

/*
 * Large transfers at the defaults, as a host's passthrough I/O sends them
 * (it cannot split those): nvme-cli's 4 MiB `nvme write`/`nvme read`,
 * blktests nvme/029's 1025 blocks of 4 KiB, two 4 MiB commands at once on
 * one connection, a Compare and a transfer of the whole MDTS (8 MiB); one
 * block more than MDTS is refused. With a digest on the data too.
 */
static void test_large_transfer(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	const uint32_t mdts = 8u << 20;
	struct rw_stats st = { 0 };
	struct ini_opts o;
	uint8_t *w = malloc(mdts + 4096);
	int rc;

	assert_non_null(w);
	assert_int_equal(c->id.mdts, 11);
	assert_int_equal(rw_round(c->io[0], &ns1, 4u << 20, 1, false, IO_SQSIZE, &e->seed, &st),
			 0);
	assert_int_equal(rw_round(c->io[0], &ns1, 1025 * 4096, 1, false, IO_SQSIZE, &e->seed,
				  &st),
			 0);
	assert_int_equal(rw_round(c->io[0], &ns1, 4u << 20, 2, false, IO_SQSIZE, &e->seed, &st),
			 0);
	assert_int_equal(rw_round(c->io[0], &ns1, mdts, 1, false, IO_SQSIZE, &e->seed, &st), 0);
	assert_int_equal(rw_round(c->io[0], &ns2, 4u << 20, 1, false, IO_SQSIZE, &e->seed, &st),
			 0);
	fx_fill_random(w, mdts, &e->seed);
	assert_int_equal(ini_write(c->io[0], 1, 0, mdts / 4096, w, mdts, false), 0);
	assert_int_equal(ini_compare(c->io[0], 1, 0, mdts / 4096, w, mdts), 0);
	rc = ini_write(c->io[0], 1, 0, mdts / 4096 + 1, w, mdts + 4096, false);
	assert_true(rc > 0); /* an NVMe status, not a lost connection */
	assert_int_equal(ini_read(c->io[0], 1, 0, 1, w, 4096), 0);
	ctrl_down(c);

	ini_opts_init(&o);
	o.ddgst = true;
	c = ctrl_up(e, 1, &o);
	assert_int_equal(rw_round(c->io[0], &ns1, 4u << 20, 1, false, IO_SQSIZE, &e->seed, &st),
			 0);
	ctrl_down(c);
	free(w);
}

/* @path holds the line @want (a substring of one line). */
static bool log_has(const char *path, const char *want)
{
	char line[1024];
	bool found = false;
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	fclose(f);
	return found;
}

/*
 * Admin commands a host sends while it connects, on a bloxd of its own at
 * --log-level 3: I/O Command Set specific Identify Controller (CNS 06h,
 * which Linux 6.1 asks for at every connect) is all zeroes, and the error
 * log stays empty; the failures made on purpose after it (an unsupported
 * CNS, Get Features of Host Behavior Support) are in the error log and
 * named in bloxd's log with their opcode, CNS or FID and field.
 */
static void test_admin_failures_logged(void **state)
{
	struct fx_env *e = *state;
	char log[128];
	struct fx_start_opts o = { .log_path = log, .log_level = "3" };
	struct fx_daemon d;
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	struct nvme_error_log_page el[2];
	uint8_t *buf = malloc(4096);
	uint16_t st = 0;
	uint32_t res;

	(void)e;
	assert_non_null(buf);
	snprintf(log, sizeof(log), "/tmp/blox-test-io-%d.log", (int)getpid());
	unlink(log);
	assert_int_equal(fx_start_opts(&d, subsystems, &o), 0);
	ini_ctrl_args_init(&a, FX_ADDR, d.nvm_port, SUBNQN);
	a.nr_io = 1;
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);

	memset(buf, 0xaa, 4096);
	assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_CSI_CTRL, 0, 0, buf), 0);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(buf[i], 0);
	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_ERROR, 0, 0, el, sizeof(el)), 0);
	assert_int_equal(el[0].error_count, 0);

	assert_int_equal(INI_SC_CODE(ini_identify(c->admin, NVME_IDENTIFY_CNS_ALLOCATED_NS_LIST,
						  0, 0, buf)),
			 INI_SC(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD));
	assert_int_equal(INI_SC_CODE(ini_get_features(c->admin, NVME_FEAT_FID_HOST_BEHAVIOR,
						      NVME_GET_FEATURES_SEL_CURRENT, &res)),
			 INI_SC(NVME_SCT_GENERIC, NVME_SC_INVALID_FIELD));
	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_ERROR, 0, 0, el, sizeof(el)), 0);
	assert_int_equal(el[0].error_count, 2);
	assert_int_equal(el[0].parm_error_location, offsetof(struct nvme_sqe, cdw10));
	ctrl_down(c);
	assert_int_equal(fx_stop(&d), 0);

	assert_true(log_has(log, "admin cmd 0x06 (identify) cns 0x10: invalid field in CDW10"));
	assert_true(log_has(log, "admin cmd 0x0a (get features) fid 0x16: invalid field in CDW10"));
	assert_false(log_has(log, "cns 0x06"));
	unlink(log);
	free(buf);
}

/* Four I/O queues busy at once; each reads what another one wrote. */
static void test_multi_queue(void **state)
{
	enum { NQ = 4, QD = 16, LEN = 8192 };
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, NQ, NULL);
	struct ini_req *reqs = calloc(NQ * QD, sizeof(*reqs)), *done[QD];
	uint8_t *w = malloc((size_t)NQ * QD * LEN);
	uint8_t *r = malloc((size_t)NQ * QD * LEN);

	assert_non_null(reqs);
	assert_non_null(w);
	assert_non_null(r);
	fx_fill_random(w, (size_t)NQ * QD * LEN, &e->seed);
	memset(r, 0, (size_t)NQ * QD * LEN);
	for (int pass = 0; pass < 2; pass++) {
		for (int i = 0; i < NQ * QD; i++) {
			/* Reads go to the next queue over. */
			int q = pass ? (i / QD + 1) % NQ : i / QD;
			uint8_t *b = (pass ? r : w) + (size_t)i * LEN;
			ini_req_rw(&reqs[i], pass ? nvme_cmd_read : nvme_cmd_write,
				   1, 1000 + (uint64_t)i * 2, 2, b, LEN);
			reqs[i].ctx = (void *)(intptr_t)q;
			assert_int_equal(ini_submit(c->io[q], &reqs[i]), 0);
		}
		for (int q = 0; q < NQ; q++) {
			int left = QD;
			while (left) {
				int n = ini_poll(c->io[q], done, QD);
				assert_true(n > 0);
				for (int k = 0; k < n; k++) {
					assert_int_equal(ini_status(&done[k]->cqe), 0);
					assert_int_equal((intptr_t)done[k]->ctx, q);
				}
				left -= n;
			}
		}
	}
	assert_memory_equal(w, r, (size_t)NQ * QD * LEN);
	free(r);
	free(w);
	free(reqs);
	ctrl_down(c);
}

static void test_ns_isolation(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	uint8_t *a = malloc(32768), *b = malloc(32768), *r = malloc(32768);

	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(r);
	fx_fill_random(a, 32768, &e->seed);
	fx_fill_random(b, 32768, &e->seed);
	/* The same LBA range on both RAM namespaces, then on the null one. */
	assert_int_equal(ini_write(c->io[0], 1, 0, 8, a, 32768, false), 0);
	assert_int_equal(ini_write(c->io[0], 2, 0, 64, b, 32768, false), 0);
	assert_int_equal(ini_write(c->io[0], 3, 0, 8, a, 32768, false), 0);
	assert_int_equal(ini_read(c->io[0], 1, 0, 8, r, 32768), 0);
	assert_memory_equal(r, a, 32768);
	assert_int_equal(ini_read(c->io[0], 2, 0, 64, r, 32768), 0);
	assert_memory_equal(r, b, 32768);
	assert_int_equal(ini_read(c->io[0], 3, 0, 8, r, 32768), 0);
	/* The null backend keeps nothing. */
	assert_memory_not_equal(r, a, 32768);
	free(r);
	free(b);
	free(a);
	ctrl_down(c);
}

/* Like `nvme disconnect` then `nvme connect`: the data must survive. */
static void test_shutdown_reconnect(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 2, NULL);
	const uint32_t len = 131072;
	uint8_t *w = malloc(len), *r = malloc(len);
	uint64_t csts;

	assert_non_null(w);
	assert_non_null(r);
	fx_fill_random(w, len, &e->seed);
	assert_int_equal(ini_write(c->io[1], 1, 14000, 32, w, len, false), 0);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	assert_int_equal(ini_prop_get(c->admin, NVME_REG_CSTS, false, &csts), 0);
	assert_int_equal(csts & 0xc, 0x8); /* SHST = shutdown complete */
	ini_ctrl_destroy(c);

	c = ctrl_up(e, 1, NULL);
	memset(r, 0, len);
	assert_int_equal(ini_read(c->io[0], 1, 14000, 32, r, len), 0);
	assert_memory_equal(w, r, len);
	free(r);
	free(w);
	ctrl_down(c);
}

static void test_smart_log(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	struct nvme_smart_log *before = calloc(1, sizeof(*before));
	struct nvme_smart_log *after = calloc(1, sizeof(*after));
	uint8_t *w = malloc(131072);
	uint64_t b, a;

	assert_non_null(before);
	assert_non_null(after);
	assert_non_null(w);
	fx_fill_random(w, 131072, &e->seed);
	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_SMART, 0xffffffff, 0,
				     before, sizeof(*before)),
			 0);
	for (int i = 0; i < 32; i++) /* 4 MiB */
		assert_int_equal(ini_write(c->io[0], 1, (uint64_t)i * 32, 32, w,
					   131072, false),
				 0);
	assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_SMART, 0xffffffff, 0,
				     after, sizeof(*after)),
			 0);
	/* Data Units Written: thousands of 512-byte units. */
	memcpy(&b, before->data_units_written, 8);
	memcpy(&a, after->data_units_written, 8);
	assert_true(a >= b + 8);
	free(w);
	free(after);
	free(before);
	ctrl_down(c);
}

/* With SQ flow control, SQHD advances by one per command, modulo size. */
static void test_sqhd_advances(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	const uint32_t size = IO_SQSIZE + 1;
	uint8_t buf[4096];
	uint16_t h0 = 0;

	for (uint32_t i = 0; i < 2 * size + 10; i++) {
		struct ini_req r;

		ini_req_rw(&r, nvme_cmd_read, 1, i, 1, buf, sizeof(buf));
		assert_int_equal(ini_exec(c->io[0], &r), 0);
		assert_int_equal(ini_status(&r.cqe), 0);
		if (i == 0)
			h0 = r.cqe.sqhd;
		assert_int_equal(r.cqe.sqhd, (h0 + i) % size);
	}
	/* The admin queue too (32 entries). */
	for (uint32_t i = 0; i < 40; i++) {
		assert_int_equal(ini_keep_alive(c->admin), 0);
		uint16_t h = ini_queue_sqhd(c->admin);
		if (i == 0)
			h0 = h;
		assert_int_equal(h, (h0 + i) % 32);
	}
	ctrl_down(c);
}

/* A queue of MQES + 1 entries kept full (SQSIZE commands outstanding). */
static void test_deep_queue(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl_args a;
	struct rw_stats st = { 0 };
	struct ini_ctrl *c = NULL;
	uint16_t status = 0;

	ini_ctrl_args_init(&a, FX_ADDR, e->d.nvm_port, SUBNQN);
	a.io_sqsize = 1023;
	assert_int_equal(ini_ctrl_connect(&a, &c, &status), 0);
	assert_int_equal(rw_round(c->io[0], &ns1, 4096, 1023, false, 1023,
				  &e->seed, &st),
			 0);
	assert_int_equal(rw_round(c->io[0], &ns1, 16384, 512, false, 1023,
				  &e->seed, &st),
			 0);
	ctrl_down(c);
}

/* 31 Identify commands outstanding on the 32-entry admin queue. */
static void test_admin_queue_depth(void **state)
{
	enum { N = 31 };
	struct fx_env *e = *state;
	struct ini_ctrl *c = ctrl_up(e, 1, NULL);
	struct ini_req reqs[N], *done[N];
	uint8_t *bufs = calloc(N, 4096);
	int left = N;

	assert_non_null(bufs);
	for (int i = 0; i < N; i++) {
		ini_req_init(&reqs[i], nvme_admin_identify, i % 3 + 1,
			     bufs + (size_t)i * 4096, 4096, INI_DIR_C2H);
		reqs[i].sqe.cdw10 = i & 1 ? NVME_IDENTIFY_CNS_CTRL
					  : NVME_IDENTIFY_CNS_NS;
		if (i & 1)
			reqs[i].sqe.nsid = 0;
		assert_int_equal(ini_submit(c->admin, &reqs[i]), 0);
	}
	while (left) {
		int n = ini_poll(c->admin, done, N);
		assert_true(n > 0);
		for (int k = 0; k < n; k++) {
			assert_int_equal(ini_status(&done[k]->cqe), 0);
			assert_int_equal(done[k]->c2h_bytes, 4096);
		}
		left -= n;
	}
	for (int i = 0; i < N; i++) {
		if (i & 1) {
			assert_memory_equal(bufs + (size_t)i * 4096, &c->id, 4096);
		} else {
			struct nvme_id_ns *ns = (void *)(bufs + (size_t)i * 4096);
			static const uint64_t sz[3] = { NS1_BLOCKS, NS2_BLOCKS,
							NS3_BLOCKS };
			assert_int_equal(ns->nsze, sz[i % 3]);
		}
	}
	free(bufs);
	ctrl_down(c);
}

int main(void)
{
	static const struct fx_group g = { .who = "test_io", .subsystems = subsystems };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_icresp),
		cmocka_unit_test(test_identify_ctrl),
		cmocka_unit_test(test_identify_ns),
		cmocka_unit_test(test_rw_plain),
		cmocka_unit_test(test_rw_hdgst),
		cmocka_unit_test(test_rw_ddgst),
		cmocka_unit_test(test_rw_both_digests),
		cmocka_unit_test(test_hpda),
		cmocka_unit_test(test_fua_and_flush),
		cmocka_unit_test(test_write_zeroes),
		cmocka_unit_test(test_dsm_deallocate),
		cmocka_unit_test(test_compare),
		cmocka_unit_test(test_large_transfer),
		cmocka_unit_test(test_admin_failures_logged),
		cmocka_unit_test(test_multi_queue),
		cmocka_unit_test(test_ns_isolation),
		cmocka_unit_test(test_shutdown_reconnect),
		cmocka_unit_test(test_smart_log),
		cmocka_unit_test(test_sqhd_advances),
		cmocka_unit_test(test_deep_queue),
		cmocka_unit_test(test_admin_queue_depth),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};
	return FX_MAIN(&g, tests);
}
