/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * integration_powercut_vssd: a whole device loses power with vSSDs with
 * power-loss protection on it (docs/FAULTS.md, "Power-loss protection"):
 * two protected vSSDs (plp_ms 300 and 20, so the device's hold-up is
 * 300 ms: the second, on one die, needs some 130 ms of flash time for the
 * 1 MiB its host fills its buffer with) take writes from their hosts when
 * the power goes, a neighbour
 * without protection has data flushed and data not. Alone, a protected
 * vSSD is not cut (its device is). After the device's cut every write the
 * protected vSSDs acknowledged reads back, the neighbour's flushed data
 * too, and its unflushed data is there or gone (never another's).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <nvme/types.h>

#include "powercut_vssd.h"

/* A host's writes to namespace 1 at QD: each slot on its own LBAs, each acknowledgement kept. */
struct plp_load {
	struct ini_ctrl *c;
	char who;
	bool live;
	uint64_t acked_writes;
	struct ini_req rq[QD];
	uint8_t bufs[QD][BLK];
	uint32_t lba[QD], round[QD];
	uint32_t acked[NLBA]; /* per LBA: the last generation acknowledged (0: none) */
	uint32_t pend[NLBA]; /* the one in flight or failed (0: none): there or not */
};

static int plp_submit(struct plp_load *l, uint32_t i)
{
	uint32_t lba = LOAD_LBA + i + QD * (l->round[i] % ((NLBA - LOAD_LBA) / QD));

	l->lba[i] = lba;
	l->pend[lba] = l->acked[lba] + 1;
	pcv_pattern(l->bufs[i], l->who, lba, l->pend[lba]);
	ini_req_rw(&l->rq[i], nvme_cmd_write, 1, lba, 1, l->bufs[i], BLK);
	l->rq[i].ctx = (void *)(uintptr_t)i;
	return ini_submit(l->c->io[0], &l->rq[i]);
}

/* One round of completions: false once the connection is gone. */
static bool plp_poll(struct plp_load *l)
{
	struct ini_req *done[QD];
	int n = ini_poll(l->c->io[0], done, QD);

	if (n <= 0)
		return false;
	for (int k = 0; k < n; k++) {
		uint32_t i = (uint32_t)(uintptr_t)done[k]->ctx, lba = l->lba[i];

		if (!ini_status(&done[k]->cqe)) {
			l->acked[lba] = l->pend[lba];
			l->pend[lba] = 0;
			l->acked_writes++;
		}
		l->round[i]++;
		if (plp_submit(l, i))
			return false;
	}
	return true;
}

/* Every LBA @l wrote holds its last acknowledged generation (or the one in flight). */
static void plp_check(struct pcv *f, struct ini_ctrl *c, const struct plp_load *l)
{
	uint32_t lbas = 0, newer = 0;

	for (uint32_t lba = LOAD_LBA; lba < NLBA; lba++) {
		if (!l->acked[lba] && !l->pend[lba])
			continue;
		lbas++;
		newer += l->pend[lba] &&
			 !pcv_check_range(f, c, l->who, lba, 1, l->acked[lba], l->pend[lba]);
		if (!l->pend[lba])
			assert_int_equal(pcv_check_range(f, c, l->who, lba, 1, l->acked[lba], -1), 1);
	}
	printf("  %c: %lu writes acknowledged, every one of %u LBAs reads back (%u with the write "
	       "in flight at the cut)\n",
	       l->who, (unsigned long)l->acked_writes, lbas, newer);
}

/* @key's number in the JSON answer @js (the first one: the device's, before its vSSDs'). */
static double json_num(const char *js, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(js, pat);
	if (!p)
		fail_msg("no %s in %s", key, js);
	return strtod(p + strlen(pat), NULL);
}

static void read_file(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	size_t n = fp ? fread(buf, 1, len - 1, fp) : 0;

	buf[n] = 0;
	if (fp)
		fclose(fp);
}

void test_device_cut_plp(void **state)
{
	struct pcv *f = *state;
	static struct plp_load la, lb;
	static char js[16384];
	struct ini_ctrl *a, *b;
	uint64_t us_a, us_b;
	char path[128];
	int64_t t0;
	pid_t cut;

	pcv_make_device(f);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_A " --nsid 1 --size %uM --device flash "
				"--isolation software --plp-ms 300", NS_MIB), 0);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_B " --nsid 1 --size %uM --device flash "
				"--isolation chip:1 --plp-ms 20", NS_MIB), 0);
	assert_int_equal(pcv_ctl(f, "ns create " NQN_A " --nsid 2 --size 8M --device flash "
				"--isolation software"), 0);
	a = pcv_connect_to(f, NQN_A);
	b = pcv_connect_to(f, NQN_B);
	us_a = pcv_unsafe_shutdowns(a);
	us_b = pcv_unsafe_shutdowns(b);

	/* Alone a protected vSSD keeps its power: its device is what loses it. */
	assert_int_equal(pcv_ctl(f, "fault power-cut " NQN_B " 1"), 4);
	printf("  refused: %s", f->out);
	assert_non_null(strstr(f->out, "cut the device instead"));
	assert_non_null(strstr(f->out, "device flash"));
	assert_int_equal(ini_keep_alive(b->admin), 0);

	/* Written without a Flush on the protected ones; the neighbour: flushed, then not. */
	pcv_write_range(f, a, 'A', 0, FLUSHED, 1);
	pcv_write_range(f, b, 'B', 0, FLUSHED, 1);
	pcv_write_ns(f, a, 2, 'C', 0, FLUSHED, 1);
	assert_int_equal(ini_flush(a->io[0], 2), 0);
	pcv_write_ns(f, a, 2, 'C', 0, OVER, 2);
	pcv_write_ns(f, a, 2, 'C', FLUSHED, LOOSE, 1);

	/* Both protected vSSDs' hosts writing when the power goes. */
	la = (struct plp_load){ .c = a, .who = 'A', .live = true };
	lb = (struct plp_load){ .c = b, .who = 'B', .live = true };
	for (uint32_t i = 0; i < QD; i++) {
		assert_int_equal(plp_submit(&la, i), 0);
		assert_int_equal(plp_submit(&lb, i), 0);
	}
	snprintf(path, sizeof(path), "%s/cut.json", f->d.dir);
	cut = pcv_cut_later(f, 300, path, "--device flash");
	t0 = fx_now_ms();
	while (la.live || lb.live) {
		if (fx_now_ms() - t0 > 60000)
			fail_msg("the hosts' connections never dropped");
		if (la.live)
			la.live = plp_poll(&la);
		if (lb.live)
			lb.live = plp_poll(&lb);
	}
	assert_int_equal(fx_wait_child(cut, 60000), 0);
	read_file(path, js, sizeof(js));
	printf("  bloxctl fault power-cut --device flash --json: %s\n", js);
	/* One hold-up, the longest plp_ms; nothing the protected vSSDs acknowledged lost. */
	assert_int_equal((int)json_num(js, "holdup_ms"), 300);
	assert_non_null(strstr(js, "\"namespaces\""));
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);

	a = pcv_connect_to(f, NQN_A);
	b = pcv_connect_to(f, NQN_B);
	assert_int_equal(pcv_check_range(f, a, 'A', 0, FLUSHED, 1, -1), FLUSHED);
	assert_int_equal(pcv_check_range(f, b, 'B', 0, FLUSHED, 1, -1), FLUSHED);
	plp_check(f, a, &la);
	plp_check(f, b, &lb);
	/* The neighbour without protection: flushed data stays, the rest there or gone. */
	assert_int_equal(pcv_check_ns(f, a, 2, 'C', OVER, FLUSHED - OVER, 1, -1), FLUSHED - OVER);
	printf("  the neighbour without protection: of %u rewritten without a Flush %u new, of %u "
	       "written without a Flush %u there\n",
	       OVER, pcv_check_ns(f, a, 2, 'C', 0, OVER, 2, 1), LOOSE,
	       pcv_check_ns(f, a, 2, 'C', FLUSHED, LOOSE, 1, 0));
	assert_int_equal(pcv_unsafe_shutdowns(a), us_a + 1);
	assert_int_equal(pcv_unsafe_shutdowns(b), us_b + 1);
	/* Both write on. */
	pcv_write_range(f, a, 'A', 0, 64, 3);
	pcv_write_range(f, b, 'B', 0, 64, 3);
	assert_int_equal(pcv_check_range(f, a, 'A', 0, 64, 3, -1), 64);
	assert_int_equal(pcv_check_range(f, b, 'B', 0, 64, 3, -1), 64);
	assert_int_equal(ini_ctrl_shutdown(a), 0);
	assert_int_equal(ini_ctrl_shutdown(b), 0);
	ini_ctrl_destroy(a);
	ini_ctrl_destroy(b);
	/* Idle, in text: the device's hold-up, then each vSSD's. */
	assert_int_equal(pcv_ctl(f, "fault power-cut --device flash"), 0);
	printf("%s", f->out);
	assert_non_null(strstr(f->out, "device flash: power cut, 3 vSSDs\n"
				       "  power-loss protection  300 ms hold-up"));
	assert_non_null(strstr(f->out, NQN_A " namespace 2: power cut\n"
				       "  power-loss protection  off\n"));
}
