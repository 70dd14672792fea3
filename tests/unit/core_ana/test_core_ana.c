/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for Asymmetric Namespace Access (ana.c and its uses in
 * admin_cmd.c, logpage.c, io_cmd.c, core.c, ctrl.c): state names, the
 * port's state per group, Identify fields, log page 0Ch with and without
 * namespace lists, read in slices and with a thousand namespaces, the
 * change count, the ANA change notice and its enable bit and mask, and the
 * path statuses of I/O through a port in each state.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <event2/event.h>

#include "fake_nvmf.h"

/* Path Related Status (SCT 3h): no DNR, the host tries another path. */
#define ST_ANA_PL 0x301
#define ST_ANA_INACC 0x302
#define ST_ANA_TRANS 0x303
#define AEN_ANA 0x0c0302u /* Notice, ANA change, log 0Ch */
#define AEC_ANA (1u << 11)

struct fixture {
	struct fake_tgt ft;
	struct nvmf_subsys *subsys;
	struct nvmf_port *p2; /* a second port */
	struct fake_q *aq, *ioq; /* a controller through the target's port */
	struct fake_q *aq2; /* another through p2 */
	uint16_t cntlid, cntlid2;
	struct fake_cmd *c;
};

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);

	f->subsys = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	fake_ns(&f->ft, f->subsys, 1, "ram", 1 << 20, 512);
	assert_int_equal(nvmf_ns_set_ana_group(fake_ns(&f->ft, f->subsys, 2, "ram", 1 << 20, 512),
					       2),
			 0);
	fake_ns(&f->ft, f->subsys, 5, "ram", 1 << 20, 512);
	assert_int_equal(nvmf_port_add(&f->ft.tgt, "127.0.0.1", "4421", false, &f->p2), 0);
	f->aq = fake_admin_q(&f->ft, NULL, FAKE_SUBNQN, &f->cntlid);
	f->ioq = fake_q_new(&f->ft);
	assert_int_equal(fake_io_connect(&f->ft, f->ioq, FAKE_SUBNQN, f->cntlid, 1, 31), 0);
	f->aq2 = fake_admin_q(&f->ft, f->p2, FAKE_SUBNQN, &f->cntlid2);
	f->c = fake_cmd_new(&f->ft);
	*state = f;
	return 0;
}

static struct fake_cmd *aer(struct fixture *f, struct fake_q *q)
{
	struct fake_cmd *c = fake_cmd_new(&f->ft);

	fake_prep(&f->ft, c, nvme_admin_async_event, 0);
	fake_submit(&f->ft, q, c);
	return c;
}

/* Get Log Page 0Ch: @len bytes at @off, RGO as asked. */
static uint16_t ana_log(struct fixture *f, struct fake_q *q, uint32_t len, uint64_t off, bool rgo,
			bool rae)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_admin_get_log_page, 0xffffffff);
	uint32_t numd = len / 4 - 1;

	cmd->cdw10 = NVME_LOG_LID_ANA | (rgo ? 1u << 8 : 0) | (rae ? 1u << 15 : 0) |
		     (numd & 0xffff) << 16;
	cmd->cdw11 = numd >> 16;
	cmd->cdw12 = (uint32_t)off;
	cmd->cdw13 = (uint32_t)(off >> 32);
	fake_data(f->c, len, false);
	return fake_exec(&f->ft, q, f->c);
}

static uint16_t io_read(struct fixture *f, uint32_t nsid)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_cmd_read, nsid);

	cmd->cdw12 = 0; /* one block */
	fake_data(f->c, 512, false);
	return fake_exec(&f->ft, f->ioq, f->c);
}

/* 1. Names as nvme-cli prints them, both ways; anything else refused. */
static void test_names(void **state)
{
	static const char *const names[] = { "optimized", "non-optimized", "inaccessible",
					     "persistent-loss", "change" };
	static const uint8_t states[] = { 1, 2, 3, 4, 0xf };
	uint8_t st;

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(nvmf_ana_state_parse(names[i], &st), 0);
		assert_int_equal(st, states[i]);
		assert_string_equal(nvmf_ana_state_name(states[i]), names[i]);
	}
	assert_int_equal(nvmf_ana_state_parse("Optimized", &st), -EINVAL);
	assert_int_equal(nvmf_ana_state_parse("", &st), -EINVAL);
	assert_string_equal(nvmf_ana_state_name(5), "invalid");
}

/* 2. Identify: CMIC, OAES, ANACAP, ANATT, ANAGRPMAX, NANAGRPID, MNAN; ANAGRPID and NMIC. */
static void test_identify(void **state)
{
	struct fixture *f = *state;
	const struct nvme_id_ctrl *id = (const void *)f->c->buf;
	const struct nvme_id_ns *ns = (const void *)f->c->buf;

	assert_int_equal(fake_identify(&f->ft, f->aq, f->c, NVME_IDENTIFY_CNS_CTRL, 0), 0);
	assert_int_equal(id->cmic & 0xb, 0xb);
	assert_true(id->oaes & NVME_CTRL_OAES_ANA);
	assert_int_equal(id->anacap, 0x1f);
	assert_int_equal(id->anatt, NVMF_ANATT_S);
	assert_int_equal(id->anagrpmax, NVMF_ANAGRPMAX);
	assert_int_equal(id->nanagrpid, NVMF_ANAGRPMAX);
	assert_int_equal(id->mnan, id->nn);
	assert_int_equal(id->cntlid, f->cntlid);
	/* The other port's controller: the same subsystem, its own cntlid. */
	assert_int_equal(fake_identify(&f->ft, f->aq2, f->c, NVME_IDENTIFY_CNS_CTRL, 0), 0);
	assert_int_equal(id->cntlid, f->cntlid2);
	assert_int_not_equal(f->cntlid, f->cntlid2);
	assert_string_equal(id->subnqn, FAKE_SUBNQN);

	assert_int_equal(fake_identify(&f->ft, f->aq, f->c, NVME_IDENTIFY_CNS_NS, 2), 0);
	assert_int_equal(ns->anagrpid, 2);
	assert_true(ns->nmic & NVME_NS_NMIC_SHARED);
	assert_int_equal(fake_identify(&f->ft, f->aq, f->c, NVME_IDENTIFY_CNS_NS, 5), 0);
	assert_int_equal(ns->anagrpid, 1);
	/* Supported log pages lists 0Ch. */
	assert_int_equal(fake_get_log(&f->ft, f->aq, f->c, NVME_LOG_LID_SUPPORTED_LOG_PAGES, 1024,
				      0, 0, false),
			 0);
	assert_int_not_equal(((uint32_t *)f->c->buf)[NVME_LOG_LID_ANA], 0);
}

/* 3. The log: groups 1 (nsids 1, 5) and 2 (nsid 2), each port's own states. */
static void test_log(void **state)
{
	struct fixture *f = *state;
	const struct nvme_ana_log *l = (const void *)f->c->buf;
	const uint8_t *b = f->c->buf;
	const struct nvme_ana_group_desc *d1 = (const void *)(b + 16), *d2;
	uint64_t cnt;

	assert_int_equal(ana_log(f, f->aq, 4096, 0, false, true), 0);
	assert_int_equal(l->ngrps, 2);
	cnt = l->chgcnt;
	assert_int_equal(d1->grpid, 1);
	assert_int_equal(d1->nnsids, 2);
	assert_int_equal(d1->state, NVME_ANA_STATE_OPTIMIZED);
	assert_int_equal(d1->nsids[0], 1);
	assert_int_equal(d1->nsids[1], 5);
	d2 = (const void *)(b + 16 + 32 + 8);
	assert_int_equal(d2->grpid, 2);
	assert_int_equal(d2->nnsids, 1);
	assert_int_equal(d2->nsids[0], 2);
	assert_int_equal(*(const uint32_t *)(b + 16 + 32 + 8 + 32 + 4), 0); /* nothing after */

	/* Group 2 inaccessible through p2: p2's log says so, the first port's does not. */
	assert_int_equal(nvmf_port_set_ana_state(f->p2, 2, NVME_ANA_STATE_INACCESSIBLE), 0);
	assert_int_equal(ana_log(f, f->aq, 4096, 0, false, true), 0);
	assert_true(l->chgcnt > cnt);
	assert_int_equal(d2->state, NVME_ANA_STATE_OPTIMIZED);
	assert_int_equal(d2->chgcnt, 0);
	assert_int_equal(ana_log(f, f->aq2, 4096, 0, false, true), 0);
	assert_int_equal(d2->state, NVME_ANA_STATE_INACCESSIBLE);
	assert_int_equal(d2->chgcnt, l->chgcnt);
	assert_int_equal(d1->state, NVME_ANA_STATE_OPTIMIZED);

	/* RGO: the descriptors without their lists, back to back. */
	assert_int_equal(ana_log(f, f->aq2, 4096, 0, true, true), 0);
	assert_int_equal(l->ngrps, 2);
	assert_int_equal(d1->grpid, 1);
	assert_int_equal(d1->nnsids, 0);
	d2 = (const void *)(b + 16 + 32);
	assert_int_equal(d2->grpid, 2);
	assert_int_equal(d2->nnsids, 0);
	assert_int_equal(d2->state, NVME_ANA_STATE_INACCESSIBLE);

	/* Bad input: a group 0 or 129, a state that is none; nothing changes. */
	cnt = f->ft.tgt.ana_chgcnt;
	assert_int_equal(nvmf_port_set_ana_state(f->p2, 0, NVME_ANA_STATE_INACCESSIBLE), -EINVAL);
	assert_int_equal(nvmf_port_set_ana_state(f->p2, NVMF_ANAGRPMAX + 1, 1), -EINVAL);
	assert_int_equal(nvmf_port_set_ana_state(f->p2, 1, 5), -EINVAL);
	assert_int_equal(nvmf_ns_set_ana_group(nvmf_ns_find(f->subsys, 1), 0), -EINVAL);
	/* The same state again is no change. */
	assert_int_equal(nvmf_port_set_ana_state(f->p2, 2, NVME_ANA_STATE_INACCESSIBLE), 0);
	assert_int_equal(f->ft.tgt.ana_chgcnt, cnt);
	/*
	 * The log's size is its largest (16 + 128 * 32 + 1024 * 4 = 8208
	 * bytes, what hosts compute from NANAGRPID and MNAN): its last dword
	 * reads as zero; an offset past the end is refused, a dword-misaligned
	 * one too.
	 */
	assert_int_equal(ana_log(f, f->aq, 4, 8204, false, true), 0);
	assert_int_equal(*(const uint32_t *)f->c->buf, 0);
	assert_int_equal(ana_log(f, f->aq, 4, 8212, false, true), ST_INVALID_FIELD);
	assert_int_equal(ana_log(f, f->aq, 4, 2, false, true), ST_INVALID_FIELD);
}

/*
 * 4. A thousand namespaces over 100 groups: the log read whole and in
 * 512-byte slices at every offset gives the same bytes, every nsid once.
 */
static void test_log_many(void **state)
{
	struct fixture *f = *state;
	static uint8_t whole[16 + 128 * 32 + 1024 * 4];
	uint32_t seen[NVMF_MAX_NS + 1] = { 0 };
	size_t len, off;
	uint32_t total = 0;

	for (uint32_t nsid = 10; nsid < 1010; nsid++)
		nvmf_ns_set_ana_group(fake_ns(&f->ft, f->subsys, nsid, "null", 1 << 20, 512),
				      1 + nsid % 100);
	assert_int_equal(ana_log(f, f->aq, sizeof(whole), 0, false, true), 0);
	memcpy(whole, f->c->buf, sizeof(whole));
	assert_int_equal(((const struct nvme_ana_log *)whole)->ngrps, 100);
	off = 16;
	for (uint16_t i = 0; i < 100; i++) {
		struct nvme_ana_group_desc d; /* only dword aligned in the log */
		uint32_t nsid, prev = 0;

		memcpy(&d, whole + off, sizeof(d));
		assert_int_equal(d.grpid, i + 1);
		for (uint32_t k = 0; k < d.nnsids; k++) {
			memcpy(&nsid, whole + off + 32 + 4 * k, 4);
			assert_true(nsid <= NVMF_MAX_NS);
			seen[nsid]++;
			assert_true(nsid > prev);
			prev = nsid;
		}
		total += d.nnsids;
		off += 32 + 4 * d.nnsids;
	}
	len = off;
	assert_int_equal(total, 1003);
	for (uint32_t nsid = 10; nsid < 1010; nsid++)
		assert_int_equal(seen[nsid], 1);
	for (off = 0; off < len; off += 512) {
		assert_int_equal(ana_log(f, f->aq, 512, off, false, true), 0);
		assert_memory_equal(f->c->buf, whole + off, BLOX_MIN(512, len - off));
	}
	/* The last dword of the descriptors, alone; zeroes after them. */
	assert_int_equal(ana_log(f, f->aq, 4, len - 4, false, true), 0);
	assert_memory_equal(f->c->buf, whole + len - 4, 4);
	for (off = len; off < sizeof(whole); off++)
		assert_int_equal(whole[off], 0);
}

/*
 * 5. The notice: only with AEC bit 11, only to controllers of that port,
 * once until log 0Ch is read without RAE.
 */
static void test_aen(void **state)
{
	struct fixture *f = *state;
	struct fake_cmd *a1 = aer(f, f->aq), *a2 = aer(f, f->aq2), *a3;

	assert_int_equal(fake_set_feat(&f->ft, f->aq2, f->c, NVME_FEAT_FID_ASYNC_EVENT, 0), 0);
	assert_int_equal(nvmf_port_set_ana_state(f->p2, 1, NVME_ANA_STATE_NONOPTIMIZED), 0);
	assert_int_equal(a2->done, 0); /* not enabled */
	assert_int_equal(fake_set_feat(&f->ft, f->aq2, f->c, NVME_FEAT_FID_ASYNC_EVENT, AEC_ANA),
			 0);
	assert_int_equal(a2->done, 1); /* the pending change, told once enabled */
	assert_int_equal(a2->cqe.result, AEN_ANA);
	assert_int_equal(a1->done, 0); /* the other port's controller hears nothing */

	/* Masked until the log is read (RAE=1 does not unmask). */
	a3 = aer(f, f->aq2);
	assert_int_equal(nvmf_port_set_ana_state(f->p2, 1, NVME_ANA_STATE_CHANGE), 0);
	assert_int_equal(a3->done, 0);
	assert_int_equal(ana_log(f, f->aq2, 4096, 0, false, true), 0);
	assert_int_equal(a3->done, 0);
	assert_int_equal(ana_log(f, f->aq2, 4096, 0, false, false), 0);
	assert_int_equal(a3->done, 1);
	assert_int_equal(a3->cqe.result, AEN_ANA);

	/* The first port: enabled, told of its own change. */
	assert_int_equal(fake_set_feat(&f->ft, f->aq, f->c, NVME_FEAT_FID_ASYNC_EVENT, AEC_ANA),
			 0);
	assert_int_equal(a1->done, 0);
	assert_int_equal(nvmf_port_set_ana_state(f->ft.port, 2, NVME_ANA_STATE_INACCESSIBLE), 0);
	assert_int_equal(a1->done, 1);
	assert_int_equal(a1->cqe.result, AEN_ANA);
}

/* 6. I/O through a port in each state: the path status, no DNR; others run. */
static void test_path_status(void **state)
{
	struct fixture *f = *state;
	static const struct {
		uint8_t st;
		uint16_t status;
	} cases[] = {
		{ NVME_ANA_STATE_OPTIMIZED, 0 },
		{ NVME_ANA_STATE_NONOPTIMIZED, 0 },
		{ NVME_ANA_STATE_INACCESSIBLE, ST_ANA_INACC },
		{ NVME_ANA_STATE_PERSISTENT_LOSS, ST_ANA_PL },
		{ NVME_ANA_STATE_CHANGE, ST_ANA_TRANS },
	};

	for (size_t i = 0; i < BLOX_ARRAY_SIZE(cases); i++) {
		assert_int_equal(nvmf_port_set_ana_state(f->ft.port, 2, cases[i].st), 0);
		assert_int_equal(io_read(f, 2), cases[i].status);
		assert_int_equal(io_read(f, 1), 0); /* group 1 stays optimized */
	}
	/* A flush of every namespace meets group 2's state too. */
	assert_int_equal(nvmf_port_set_ana_state(f->ft.port, 2, NVME_ANA_STATE_INACCESSIBLE), 0);
	fake_prep(&f->ft, f->c, nvme_cmd_flush, 0xffffffff);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_ANA_INACC);
	/* Admin commands on the namespace still run (Identify). */
	assert_int_equal(fake_identify(&f->ft, f->aq, f->c, NVME_IDENTIFY_CNS_NS, 2), 0);
	/* Back to optimized: reads go through again. */
	assert_int_equal(nvmf_port_set_ana_state(f->ft.port, 2, NVME_ANA_STATE_OPTIMIZED), 0);
	assert_int_equal(io_read(f, 2), 0);
	fake_prep(&f->ft, f->c, nvme_cmd_flush, 0xffffffff);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), 0);
}

/* 7. Namespaces coming and going move the change count. */
static void test_chgcnt_ns(void **state)
{
	struct fixture *f = *state;
	uint64_t cnt = f->ft.tgt.ana_chgcnt;

	fake_ns(&f->ft, f->subsys, 9, "ram", 1 << 20, 512);
	assert_true(f->ft.tgt.ana_chgcnt > cnt);
	cnt = f->ft.tgt.ana_chgcnt;
	nvmf_ns_detach(nvmf_ns_find(f->subsys, 9), NULL, NULL);
	assert_true(f->ft.tgt.ana_chgcnt > cnt);
	/* Past the largest value the count starts again at 1. */
	f->ft.tgt.ana_chgcnt = UINT64_MAX - 1;
	assert_int_equal(nvmf_port_set_ana_state(f->p2, 3, NVME_ANA_STATE_CHANGE), 0);
	assert_int_equal(f->ft.tgt.ana_chgcnt, 1);
}

/*
 * 8. A transition through the change state: change at once (told), the
 * target once the target's clock has passed its time (told again); a
 * timer that fires before the clock got there waits for the rest; an
 * explicit state ends a transition (its timer never lands), a new one
 * replaces it; refusals: change as the target, past ANATT, a bad group.
 * The clock is virtual: only the test moves it.
 */
static void test_transition(void **state)
{
	struct fixture *f = *state;
	struct event_base *base = event_base_new();
	uint64_t t0 = blox_clock_now(&f->ft.clock), ms = 1000000ull;
	struct nvmf_port *p = f->p2;
	struct fake_cmd *a;

	assert_non_null(base);
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_INACCESSIBLE, 5), -ENOTSUP);
	f->ft.tgt.base = base;
	assert_int_equal(fake_set_feat(&f->ft, f->aq2, f->c, NVME_FEAT_FID_ASYNC_EVENT, AEC_ANA),
			 0);
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_CHANGE, 5), -EINVAL);
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_OPTIMIZED,
						  NVMF_ANATT_S * 1000 + 1),
			 -ERANGE);
	assert_int_equal(nvmf_port_ana_transition(p, 0, NVME_ANA_STATE_INACCESSIBLE, 5), -EINVAL);
	assert_int_equal(nvmf_port_ana_transition(p, 2, 0x7, 5), -EINVAL);
	assert_int_equal(nvmf_port_ana_state(p, 2), NVME_ANA_STATE_OPTIMIZED);
	assert_null(p->ana_trans[2]);

	a = aer(f, f->aq2);
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_INACCESSIBLE, 5), 0);
	assert_int_equal(a->done, 1);
	assert_int_equal(a->cqe.result, AEN_ANA);
	assert_int_equal(nvmf_port_ana_state(p, 2), NVME_ANA_STATE_CHANGE);
	assert_int_equal(nvmf_port_ana_target(p, 2), NVME_ANA_STATE_INACCESSIBLE);
	assert_int_equal(nvmf_port_ana_target(p, 1), NVME_ANA_STATE_OPTIMIZED);
	assert_int_equal(ana_log(f, f->aq2, 4096, 0, false, false), 0);
	a = aer(f, f->aq2);
	/* The timer fires, the clock has not moved: still in change. */
	event_base_loop(base, EVLOOP_ONCE);
	blox_clock_set(&f->ft.clock, t0 + 4 * ms);
	event_base_loop(base, EVLOOP_ONCE);
	assert_int_equal(nvmf_port_ana_state(p, 2), NVME_ANA_STATE_CHANGE);
	assert_int_equal(a->done, 0);
	blox_clock_set(&f->ft.clock, t0 + 5 * ms);
	event_base_loop(base, EVLOOP_ONCE);
	assert_int_equal(nvmf_port_ana_state(p, 2), NVME_ANA_STATE_INACCESSIBLE);
	assert_null(p->ana_trans[2]);
	assert_int_equal(a->done, 1);
	assert_int_equal(a->cqe.result, AEN_ANA);
	assert_int_equal(ana_log(f, f->aq2, 4096, 0, false, false), 0);

	/* Ended by an explicit state: nothing is left to fire. */
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_OPTIMIZED, 5), 0);
	assert_int_equal(nvmf_port_set_ana_state(p, 2, NVME_ANA_STATE_NONOPTIMIZED), 0);
	assert_null(p->ana_trans[2]);
	blox_clock_set(&f->ft.clock, t0 + 50 * ms);
	assert_int_equal(event_base_loop(base, EVLOOP_NONBLOCK), 1); /* no event */
	assert_int_equal(nvmf_port_ana_state(p, 2), NVME_ANA_STATE_NONOPTIMIZED);

	/* Replaced: the second transition's target, at its time. */
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_OPTIMIZED, 5), 0);
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_PERSISTENT_LOSS, 5), 0);
	assert_int_equal(nvmf_port_ana_target(p, 2), NVME_ANA_STATE_PERSISTENT_LOSS);
	blox_clock_set(&f->ft.clock, t0 + 55 * ms);
	event_base_loop(base, EVLOOP_ONCE);
	assert_int_equal(nvmf_port_ana_state(p, 2), NVME_ANA_STATE_PERSISTENT_LOSS);
	assert_int_equal(event_base_loop(base, EVLOOP_NONBLOCK), 1);

	/* To the state it is in: nothing to go through. */
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_PERSISTENT_LOSS, 5), 0);
	assert_null(p->ana_trans[2]);
	/* A port's transitions go with it (or at stop). */
	assert_int_equal(nvmf_port_ana_transition(p, 2, NVME_ANA_STATE_OPTIMIZED, 5), 0);
	nvmf_port_ana_stop(p);
	assert_null(p->ana_trans[2]);
	assert_int_equal(event_base_loop(base, EVLOOP_NONBLOCK), 1);
	f->ft.tgt.base = NULL;
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test_setup_teardown(test_identify, setup, fake_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_log, setup, fake_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_log_many, setup, fake_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_aen, setup, fake_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_path_status, setup, fake_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_chgcnt_ns, setup, fake_fixture_teardown),
		cmocka_unit_test_setup_teardown(test_transition, setup, fake_fixture_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
