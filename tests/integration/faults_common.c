/* SPDX-License-Identifier: BSD-3-Clause */
/* What integration_faults and integration_faults_path share; see faults_common.h. */
#include "faults_common.h"

#include <poll.h>

int faults_fx_setup(struct faults_fx *f, const char *subnqn)
{
	f->nqn = subnqn;
	return fx_ctrl(&f->fx.d, subnqn, NULL, 1, NULL, &f->c) ? -1 : 0;
}

void faults_fx_teardown(void *arg)
{
	struct faults_fx *f = arg;

	if (f->c) {
		ini_ctrl_shutdown(f->c);
		ini_ctrl_destroy(f->c);
		f->c = NULL;
	}
}

int ctl(struct faults_fx *f, const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return fx_ctl(&f->fx.d, f->out, sizeof(f->out), "%s", cmd);
}

uint32_t injected(struct faults_fx *f)
{
	unsigned id = 0;

	assert_int_equal(sscanf(f->out, "fault %u:", &id), 1);
	return id;
}

uint64_t fault_num(struct faults_fx *f, uint32_t id, const char *key)
{
	json_object *o, *arr, *v;
	uint64_t r = 0;
	bool found = false;

	assert_int_equal(ctl(f, "--json fault list"), 0);
	o = json_tokener_parse(f->out);
	assert_non_null(o);
	if (json_object_object_get_ex(o, "faults", &arr))
		for (size_t i = 0; i < json_object_array_length(arr); i++) {
			json_object *e = json_object_array_get_idx(arr, i);

			if (!json_object_object_get_ex(e, "id", &v) || json_object_get_int64(v) != id)
				continue;
			found = true;
			if (json_object_object_get_ex(e, key, &v))
				r = json_object_is_type(v, json_type_boolean)
					    ? (uint64_t)json_object_get_boolean(v)
					    : (uint64_t)json_object_get_int64(v);
		}
	json_object_put(o);
	assert_true(found);
	return r;
}

uint64_t ns_stat(struct faults_fx *f, uint32_t nsid, const char *part, const char *key)
{
	return (uint64_t)fx_ns_stat(&f->fx.d, f->nqn, nsid, part, key);
}

void faults_restart(struct faults_fx *f, const char *subs, int (*setup)(void *arg))
{
	struct fx_start_opts o = { .data_dir = f->fx.data_dir };

	faults_fx_teardown(f);
	assert_int_equal(fx_stop(&f->fx.d), 0);
	assert_int_equal(fx_start_opts(&f->fx.d, subs, &o), 0);
	assert_int_equal(setup(f), 0);
	assert_int_equal(ctl(f, "fault list"), 0);
}

void faults_wait_dropped(struct faults_fx *f, struct ini_ctrl *c)
{
	int rc = 0;

	/* Its queues close on their reactors a moment later: a few tries while that is on its way. */
	for (int i = 0; i < 100 && rc >= 0; i++) {
		rc = ini_read(c->io[0], 1, 0, 1, f->buf, BLK);
		if (rc >= 0)
			fx_sleep_ms(20);
	}
	assert_true(rc < 0);
}

void faults_expect_refused(struct faults_fx *f, const struct faults_bad *bad, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = ctl(f, "%s", bad[i].args);

		if (rc != bad[i].rc || !strstr(f->out, bad[i].says))
			fail_msg("bloxctl %s: exit %d (want %d), said: %s", bad[i].args, rc,
				 bad[i].rc, f->out);
	}
	assert_int_equal(ctl(f, "fault list"), 0);
	assert_non_null(strstr(f->out, "no faults"));
}

void faults_wait_held(struct faults_fx *f, uint32_t id, uint64_t n)
{
	for (int i = 0; i < 200 && fault_num(f, id, "held") != n; i++)
		fx_sleep_ms(50);
	assert_int_equal(fault_num(f, id, "held"), n);
}

bool faults_answers_within(struct ini_queue *q, int ms)
{
	struct pollfd p = { .fd = ini_queue_fd(q), .events = POLLIN };

	return poll(&p, 1, ms) > 0;
}

void faults_wait_storm(struct faults_fx *f, uint32_t nsid, uint64_t victims, uint64_t runs)
{
	uint64_t got = 0;

	for (int i = 0; i < 200 && got < victims; i++) {
		if (i)
			fx_sleep_ms(50);
		got = ns_stat(f, nsid, "ftl", "gc_storm_victims");
	}
	assert_int_equal(got, victims);
	assert_int_equal(ns_stat(f, nsid, "ftl", "gc_storms"), 1);
	/* Its victims erased: GC's runs grew by them. */
	for (int i = 0; i < 200 && ns_stat(f, nsid, "ftl", "gc_runs") < runs + victims; i++)
		fx_sleep_ms(50);
	assert_true(ns_stat(f, nsid, "ftl", "gc_runs") >= runs + victims);
}

void faults_gc_prepare(struct faults_fx *f, uint32_t bs)
{
	const uint32_t lbas = (4u << 20) / bs, chunk = (128u << 10) / bs;

	assert_int_equal(ctl(f, "device create gflash --channels 1 --dies-per-channel 2 --planes 1 "
				"--pages-per-block 48 --blocks-per-plane 32"), 0);
	assert_int_equal(ctl(f, "ns create %s --nsid 2 --size 4M --device gflash "
				"--isolation chip:2 --block-size %u", f->nqn, bs), 0);
	for (uint32_t pass = 0; pass < 2; pass++)
		for (uint32_t lba = 0; lba < lbas; lba += chunk) {
			if (pass && (lba / chunk) % 2)
				continue;
			memset(f->buf, (int)(pass * 64 + lba / chunk), chunk * bs);
			assert_int_equal(ini_write(f->c->io[0], 2, lba, chunk, f->buf, chunk * bs,
						   false), 0);
		}
}

void faults_gc_storm(struct faults_fx *f)
{
	uint64_t runs;
	uint32_t id;

	assert_int_equal(ini_flush(f->c->io[0], 2), 0);
	runs = ns_stat(f, 2, "ftl", "gc_runs");
	assert_int_equal(ns_stat(f, 2, "ftl", "gc_storm_victims"), 0);
	assert_int_equal(ctl(f, "fault inject gc-storm %s 2 --superblocks 2", f->nqn), 0);
	id = injected(f);
	assert_int_equal(fault_num(f, id, "fired"), 1);
	faults_wait_storm(f, 2, 2, runs);
}

/* Block @lba as written in round @r. */
void faults_lba_fill(uint8_t *b, uint32_t lba, uint32_t r)
{
	for (uint32_t i = 0; i < BLK; i += 8) {
		memcpy(b + i, &lba, 4);
		memcpy(b + i + 4, &r, 4);
	}
}

/* Every LBA of [0, @n) holds round @r's data. */
void faults_verify(struct faults_fx *f, uint32_t nsid, uint32_t n, uint32_t r)
{
	uint8_t want[BLK];

	for (uint32_t lba = 0; lba < n; lba += 32) {
		assert_int_equal(ini_read(f->c->io[0], nsid, lba, 32, f->buf, 32 * BLK), 0);
		for (uint32_t k = 0; k < 32; k++) {
			faults_lba_fill(want, lba + k, r);
			if (memcmp(f->buf + k * BLK, want, BLK))
				fail_msg("LBA %u: not what round %u wrote", lba + k, r);
		}
	}
}

void faults_write_round(struct faults_fx *f, uint32_t nsid, uint32_t n, uint32_t r)
{
	uint8_t *w = f->buf + 32 * BLK;

	for (uint32_t lba = 0; lba < n; lba += 32) {
		int st;

		for (uint32_t k = 0; k < 32; k++)
			faults_lba_fill(w + k * BLK, lba + k, r);
		st = ini_write(f->c->io[0], nsid, lba, 32, w, 32 * BLK, false);
		if (st)
			fail_msg("round %u, LBA %u: status %#x", r, lba, st);
	}
	assert_int_equal(ini_flush(f->c->io[0], nsid), 0);
}
