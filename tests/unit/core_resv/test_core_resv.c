/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for reservations in the target core (resv_cmd.c and where
 * it is wired: io_cmd.c, core.c, admin_cmd.c, logpage.c, ctrl.c), with
 * two hosts, each a controller with an admin and an I/O queue: what
 * Identify says, the commands' data and fields, the access check as a
 * command starts, the notifications (log page 80h, its AEN, the mask
 * feature 82h), the persistence feature 83h and the state file (written
 * before a command completes, the command undone when it cannot be,
 * read back, removed), a host without a host identifier, and a Preempt
 * and Abort waiting out the preempted host's commands at the backend.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "fake_nvmf.h"
#include "resv.h"

#define ST_CONFLICT (ST_DNR | 0x083)
#define ST_HOSTID_FORMAT (ST_DNR | 0x018)

struct host {
	struct fake_q *aq, *ioq;
	uint16_t cntlid;
};

struct fixture {
	struct fake_tgt ft;
	struct nvmf_subsys *subsys;
	struct nvmf_ns *ns;
	struct host h[2];
	struct fake_cmd *c;
	uint32_t nsid; /* of the reservation commands */
};

static void host_up(struct fixture *f, struct host *h, const char *hostnqn, uint8_t idbyte)
{
	struct fake_connect_args a = { .qid = 1, .sqsize = 31, .subnqn = FAKE_SUBNQN,
				       .hostnqn = hostnqn };

	h->aq = fake_q_new(&f->ft);
	h->cntlid = fake_admin_up_as(&f->ft, h->aq, FAKE_SUBNQN, hostnqn, 0);
	memset(h->aq->sq.ctrl->hostid, idbyte, 16);
	h->ioq = fake_q_new(&f->ft);
	a.cntlid = h->cntlid;
	memset(a.hostid, idbyte, 16);
	assert_int_equal(fake_connect(&f->ft, h->ioq, &a, NULL), 0);
}

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);

	f->subsys = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	f->ns = fake_ns(&f->ft, f->subsys, 1, "ram", 1 << 20, 512);
	fake_ns(&f->ft, f->subsys, 2, "ram", 1 << 20, 512);
	host_up(f, &f->h[0], FAKE_HOSTNQN, 0xaa);
	host_up(f, &f->h[1], FAKE_HOSTNQN2, 0xbb);
	f->c = fake_cmd_new(&f->ft);
	f->nsid = 1;
	*state = f;
	return 0;
}

/* A reservation command @opc on nsid 1 with @cdw10 and 16 bytes of keys @k1, @k2. */
static void prep_resv(struct fixture *f, struct fake_cmd *c, uint8_t opc, uint32_t cdw10,
		      uint64_t k1, uint64_t k2, uint32_t len)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, c, opc, f->nsid);

	cmd->cdw10 = cdw10;
	le64_put(c->buf, k1);
	le64_put(c->buf + 8, k2);
	fake_data(c, len, true);
}

static uint16_t resv(struct fixture *f, int h, uint8_t opc, uint32_t cdw10, uint64_t k1,
		     uint64_t k2)
{
	prep_resv(f, f->c, opc, cdw10, k1, k2, opc == nvme_cmd_resv_release ? 8 : 16);
	return fake_exec(&f->ft, f->h[h].ioq, f->c);
}

/* A one-block write of host @h at LBA 0 of @nsid. */
static uint16_t rw_ns(struct fixture *f, int h, uint32_t nsid)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_cmd_write, nsid);

	cmd->cdw12 = 0;
	fake_data(f->c, 512, true);
	return fake_exec(&f->ft, f->h[h].ioq, f->c);
}

static uint16_t rw(struct fixture *f, int h, uint8_t opc)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, opc, 1);

	cmd->cdw12 = 0; /* one block at LBA 0 */
	fake_data(f->c, 512, opc == nvme_cmd_write);
	return fake_exec(&f->ft, f->h[h].ioq, f->c);
}

static uint16_t report(struct fixture *f, int h, bool eds, uint32_t len)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_cmd_resv_report, 1);

	cmd->cdw10 = len / 4 - 1;
	cmd->cdw11 = eds;
	fake_data(f->c, len, false);
	return fake_exec(&f->ft, f->h[h].ioq, f->c);
}

/* The next log page 80h entry of host @h: its type (0: none), count and available pages. */
static uint8_t resv_log(struct fixture *f, int h, uint64_t *lpc, uint8_t *nalp, bool rae)
{
	const struct nvme_resv_notification_log *l = (const void *)f->c->buf;

	assert_int_equal(fake_get_log(&f->ft, f->h[h].aq, f->c, NVME_LOG_LID_RESERVATION, 64, 0,
				      0, rae),
			 0);
	if (lpc)
		*lpc = le64_get(&l->lpc);
	if (nalp)
		*nalp = l->nalp;
	if (l->rnlpt)
		assert_int_equal(le32_get(&l->nsid), 1);
	return l->rnlpt;
}

/* 1. Identify: ONCS bit 5, RESCAP all six types and IEKEY 1.3, no PTPL. */
static void test_identify(void **state)
{
	struct fixture *f = *state;
	const struct nvme_id_ctrl *ic = (const void *)f->c->buf;
	const struct nvme_id_ns *in = (const void *)f->c->buf;

	assert_int_equal(fake_identify(&f->ft, f->h[0].aq, f->c, NVME_IDENTIFY_CNS_CTRL, 0), 0);
	assert_true(ic->oncs & NVME_CTRL_ONCS_RESERVATIONS);
	assert_int_equal(fake_identify(&f->ft, f->h[0].aq, f->c, NVME_IDENTIFY_CNS_NS, 1), 0);
	assert_int_equal(in->rescap, 0xfe);
	assert_int_equal(in->nmic & 1, 1);
}

/* 2. Register, acquire, conflicts on the other host's I/O, report, release. */
static void test_conflict_and_report(void **state)
{
	struct fixture *f = *state;
	const uint8_t *b = f->c->buf;

	assert_int_equal(resv(f, 0, nvme_cmd_resv_register, 0, 0, 0xa1), 0);
	assert_int_equal(resv(f, 0, nvme_cmd_resv_acquire, 2u << 8, 0xa1, 0), 0); /* EA */
	assert_int_equal(rw(f, 0, nvme_cmd_write), 0);
	assert_int_equal(rw(f, 1, nvme_cmd_write), ST_CONFLICT);
	assert_int_equal(rw(f, 1, nvme_cmd_read), ST_CONFLICT);
	assert_int_equal(f->ns->stats.errors, 2);
	/* The other namespace is not reserved. */
	fake_prep(&f->ft, f->c, nvme_cmd_flush, 2);
	assert_int_equal(fake_exec(&f->ft, f->h[1].ioq, f->c), 0);
	/* A flush of every namespace meets the reservation of nsid 1. */
	fake_prep(&f->ft, f->c, nvme_cmd_flush, 0xffffffff);
	assert_int_equal(fake_exec(&f->ft, f->h[1].ioq, f->c), ST_CONFLICT);
	fake_prep(&f->ft, f->c, nvme_cmd_flush, 0xffffffff);
	assert_int_equal(fake_exec(&f->ft, f->h[0].ioq, f->c), 0);

	/* Report from the other host: the normal structure is refused. */
	assert_int_equal(report(f, 1, false, 4096), ST_HOSTID_FORMAT);
	assert_int_equal(report(f, 1, true, 4096), 0);
	assert_int_equal(le32_get(b), 1); /* one registration */
	assert_int_equal(b[4], 2);
	assert_int_equal(le16_get(b + 5), 1);
	assert_int_equal(b[64 + 2], 1);
	assert_int_equal(le64_get(b + 64 + 8), 0xa1);
	assert_int_equal(b[64 + 16], 0xaa);
	assert_int_equal(b[128], 0);

	/* Release with the wrong type; then right. */
	assert_int_equal(resv(f, 0, nvme_cmd_resv_release, 1u << 8, 0xa1, 0), ST_INVALID_FIELD);
	assert_int_equal(resv(f, 0, nvme_cmd_resv_release, 2u << 8, 0xa1, 0), 0);
	assert_int_equal(rw(f, 1, nvme_cmd_write), 0);
}

/* 3. Data shorter than the command's is refused; a Release may carry 16 bytes (Linux). */
static void test_data_lengths(void **state)
{
	struct fixture *f = *state;

	prep_resv(f, f->c, nvme_cmd_resv_register, 0, 0, 1, 8);
	assert_int_equal(fake_exec(&f->ft, f->h[0].ioq, f->c), ST_SGL_DATA_LEN);
	prep_resv(f, f->c, nvme_cmd_resv_register, 0, 0, 1, 16);
	assert_int_equal(fake_exec(&f->ft, f->h[0].ioq, f->c), 0);
	prep_resv(f, f->c, nvme_cmd_resv_release, 0, 1, 0, 4);
	assert_int_equal(fake_exec(&f->ft, f->h[0].ioq, f->c), ST_SGL_DATA_LEN);
	prep_resv(f, f->c, nvme_cmd_resv_release, 0, 1, 0, 16);
	assert_int_equal(fake_exec(&f->ft, f->h[0].ioq, f->c), 0);
	/* Wrong key: conflict. */
	assert_int_equal(resv(f, 0, nvme_cmd_resv_register, 2 /* replace */, 7, 8), ST_CONFLICT);
}

/* 4. A host whose Connect gave no host identifier cannot use reservations. */
static void test_no_hostid(void **state)
{
	struct fixture *f = *state;

	memset(f->h[1].aq->sq.ctrl->hostid, 0, 16);
	assert_int_equal(resv(f, 1, nvme_cmd_resv_register, 0, 0, 1), ST_CMD_SEQ);
	assert_int_equal(report(f, 1, true, 4096), ST_CMD_SEQ);
	/* Set Features Host Identifier: the Connect's, on fabrics. */
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 0)->cdw10 = NVME_FEAT_FID_HOST_ID;
	assert_int_equal(fake_exec(&f->ft, f->h[0].aq, f->c), ST_CMD_SEQ);
}

/* 5. Notifications: log page 80h, its AEN, RAE, the mask. */
static void test_notifications(void **state)
{
	struct fixture *f = *state;
	struct fake_cmd *aer = fake_cmd_new(&f->ft);
	uint64_t lpc;
	uint8_t nalp;

	assert_int_equal(resv_log(f, 1, &lpc, &nalp, false), 0);
	assert_int_equal(lpc, 0);
	fake_prep(&f->ft, aer, nvme_admin_async_event, 0);
	fake_submit(&f->ft, f->h[1].aq, aer);
	assert_int_equal(aer->done, 0);

	assert_int_equal(resv(f, 0, nvme_cmd_resv_register, 0, 0, 0xa1), 0);
	assert_int_equal(resv(f, 1, nvme_cmd_resv_register, 0, 0, 0xb1), 0);
	assert_int_equal(resv(f, 0, nvme_cmd_resv_acquire, 3u << 8, 0xa1, 0), 0); /* WE RO */
	assert_int_equal(aer->done, 0);
	/* A releases: B is told (AEN type 6, info 0, log 80h); A is not. */
	assert_int_equal(resv(f, 0, nvme_cmd_resv_release, 3u << 8, 0xa1, 0), 0);
	assert_int_equal(aer->done, 1);
	assert_int_equal(aer->cqe.result, 6u | (0x80u << 16));
	assert_int_equal(resv_log(f, 0, NULL, NULL, false), 0);
	/* B is preempted by A: a second entry, no AEN until the log is read without RAE. */
	assert_int_equal(resv(f, 0, nvme_cmd_resv_acquire, 1 | (1u << 8), 0xa1, 0xb1), 0);
	fake_prep(&f->ft, aer, nvme_admin_async_event, 0);
	fake_submit(&f->ft, f->h[1].aq, aer);
	assert_int_equal(aer->done, 0);
	assert_int_equal(resv_log(f, 1, &lpc, &nalp, true), NVME_RESV_NOTIFY_RNLPT_RESERVATION_RELEASED);
	assert_int_equal(lpc, 1);
	assert_int_equal(nalp, 1);
	assert_int_equal(aer->done, 0);
	assert_int_equal(resv_log(f, 1, &lpc, &nalp, false),
			 NVME_RESV_NOTIFY_RNLPT_REGISTRATION_PREEMPTED);
	assert_int_equal(lpc, 2);
	assert_int_equal(nalp, 0);
	assert_int_equal(aer->done, 0); /* nothing left to tell */
	assert_int_equal(resv_log(f, 1, &lpc, NULL, false), 0);

	/* B masks "registration preempted" on nsid 1: nothing logged. */
	assert_int_equal(resv(f, 1, nvme_cmd_resv_register, 0, 0, 0xb1), 0);
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 1)->cdw10 = NVME_FEAT_FID_RESV_MASK;
	f->c->req.cmd.cdw11 = NVME_FEAT_RESV_NOTIFY_REGPRE;
	assert_int_equal(fake_exec(&f->ft, f->h[1].aq, f->c), 0);
	fake_prep(&f->ft, f->c, nvme_admin_get_features, 1)->cdw10 = NVME_FEAT_FID_RESV_MASK;
	assert_int_equal(fake_exec(&f->ft, f->h[1].aq, f->c), 0);
	assert_int_equal(f->c->cqe.result, NVME_FEAT_RESV_NOTIFY_REGPRE);
	assert_int_equal(resv(f, 0, nvme_cmd_resv_acquire, 1 | (1u << 8), 0xa1, 0xb1), 0);
	assert_int_equal(aer->done, 0);
	assert_int_equal(resv_log(f, 1, NULL, NULL, false), 0);
	/* Bad masks and namespaces. */
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 1)->cdw10 = NVME_FEAT_FID_RESV_MASK;
	f->c->req.cmd.cdw11 = 1;
	assert_int_equal(fake_exec(&f->ft, f->h[1].aq, f->c), ST_INVALID_FIELD);
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 9)->cdw10 = NVME_FEAT_FID_RESV_MASK;
	assert_int_equal(fake_exec(&f->ft, f->h[1].aq, f->c), ST_INVALID_NS);
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 0xffffffff)->cdw10 =
		NVME_FEAT_FID_RESV_MASK;
	assert_int_equal(fake_exec(&f->ft, f->h[1].aq, f->c), 0);
	fake_prep(&f->ft, f->c, nvme_admin_get_features, 2)->cdw10 = NVME_FEAT_FID_RESV_MASK;
	assert_int_equal(fake_exec(&f->ft, f->h[1].aq, f->c), 0);
	assert_int_equal(f->c->cqe.result, 0);
}

/* 6. Reservation Persistence: PTPL cannot be set; CPTPL 11b is refused. */
static void test_persistence_feature(void **state)
{
	struct fixture *f = *state;

	fake_prep(&f->ft, f->c, nvme_admin_get_features, 1)->cdw10 = NVME_FEAT_FID_RESV_PERSIST;
	assert_int_equal(fake_exec(&f->ft, f->h[0].aq, f->c), 0);
	assert_int_equal(f->c->cqe.result, 0);
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 1)->cdw10 = NVME_FEAT_FID_RESV_PERSIST;
	f->c->req.cmd.cdw11 = 1;
	assert_int_equal(fake_exec(&f->ft, f->h[0].aq, f->c), ST_INVALID_FIELD);
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 1)->cdw10 = NVME_FEAT_FID_RESV_PERSIST;
	assert_int_equal(fake_exec(&f->ft, f->h[0].aq, f->c), 0);
	fake_prep(&f->ft, f->c, nvme_admin_get_features, 1)->cdw10 =
		NVME_FEAT_FID_RESV_PERSIST | (3u << 8);
	assert_int_equal(fake_exec(&f->ft, f->h[0].aq, f->c), 0);
	assert_int_equal(f->c->cqe.result, 0x6); /* changeable, per namespace */
	assert_int_equal(resv(f, 0, nvme_cmd_resv_register, 3u << 30, 0, 1), ST_INVALID_FIELD);
}

/* 7. Preempt and Abort completes once the preempted host's commands left the backend. */
static void test_preempt_abort_waits(void **state)
{
	struct fixture *f = *state;
	struct fake_cmd *w = fake_cmd_new(&f->ft), *a = fake_cmd_new(&f->ft);
	struct nvme_sqe *cmd;

	assert_int_equal(resv(f, 0, nvme_cmd_resv_register, 0, 0, 0xa1), 0);
	assert_int_equal(resv(f, 1, nvme_cmd_resv_register, 0, 0, 0xb1), 0);
	assert_int_equal(resv(f, 1, nvme_cmd_resv_acquire, 1u << 8, 0xb1, 0), 0);
	/* B's write is at the backend (its completion not yet delivered). */
	cmd = fake_prep(&f->ft, w, nvme_cmd_write, 1);
	cmd->cdw12 = 0;
	fake_data(w, 512, true);
	assert_int_equal(nvmf_req_init(&w->req, &f->h[1].ioq->sq), 0);
	nvmf_req_execute(&w->req);
	assert_int_equal(w->done, 0);
	/* A preempts B and aborts: the Acquire waits for the write. */
	prep_resv(f, a, nvme_cmd_resv_acquire, 2 | (2u << 8), 0xa1, 0xb1, 16);
	assert_int_equal(nvmf_req_init(&a->req, &f->h[0].ioq->sq), 0);
	nvmf_req_execute(&a->req);
	assert_int_equal(a->done, 0);
	/* B's next command meets A's reservation. */
	assert_int_equal(rw(f, 1, nvme_cmd_read), ST_CONFLICT);
	/* (rw drained the backend: the write, then the Acquire, completed.) */
	assert_int_equal(w->done, 1);
	assert_int_equal(fake_status(w), 0);
	assert_int_equal(a->done, 1);
	assert_int_equal(fake_status(a), 0);
	/* With nothing in flight, it completes at once. */
	assert_int_equal(resv(f, 1, nvme_cmd_resv_register, 0, 0, 0xb2), 0);
	assert_int_equal(resv(f, 0, nvme_cmd_resv_acquire, 2 | (2u << 8), 0xa1, 0xb2), 0);
}

/* 8. Registrations belong to the host: its controller going keeps them. */
static void test_host_keeps_registration(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(resv(f, 1, nvme_cmd_resv_register, 0, 0, 0xb1), 0);
	assert_int_equal(resv(f, 1, nvme_cmd_resv_acquire, 1u << 8, 0xb1, 0), 0);
	fake_q_fini(f->h[1].ioq);
	fake_q_fini(f->h[1].aq);
	assert_int_equal(rw(f, 0, nvme_cmd_write), ST_CONFLICT);
	assert_int_equal(report(f, 0, true, 128), 0);
	assert_int_equal(f->c->buf[4], 1);
	assert_int_equal(f->c->buf[64 + 16], 0xbb);
	/* The host back on a new controller is still the holder. */
	host_up(f, &f->h[1], FAKE_HOSTNQN2, 0xbb);
	assert_int_equal(rw(f, 1, nvme_cmd_write), 0);
	assert_int_equal(resv(f, 1, nvme_cmd_resv_release, 1u << 8, 0xb1, 0), 0);
	assert_int_equal(rw(f, 0, nvme_cmd_write), 0);
}

/* 9. PTPL: the state file is written before the command completes, and read back. */
static void test_ptpl_store(void **state)
{
	struct fixture *f = *state;
	const struct nvme_id_ns *in = (const void *)f->c->buf;
	char dir[] = "/tmp/blox-unit-resv-XXXXXX", path[128];
	struct nvmf_ns *ns3;
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	assert_int_equal(nvmf_tgt_set_resv_dir(&f->ft.tgt, dir), 0);
	ns3 = fake_ns(&f->ft, f->subsys, 3, "ram", 1 << 20, 512);
	f->nsid = 3;
	/* Namespaces added before the directory was given offer no PTPL. */
	assert_int_equal(fake_identify(&f->ft, f->h[0].aq, f->c, NVME_IDENTIFY_CNS_NS, 1), 0);
	assert_int_equal(in->rescap, 0xfe);
	assert_int_equal(fake_identify(&f->ft, f->h[0].aq, f->c, NVME_IDENTIFY_CNS_NS, 3), 0);
	assert_int_equal(in->rescap, 0xff);

	/* Without PTPL nothing is written. */
	assert_int_equal(resv(f, 1, nvme_cmd_resv_register, 0, 0, 0xb1), 0);
	snprintf(path, sizeof(path), "%s/resv-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-"
		 "%02x%02x%02x%02x%02x%02x", dir, ns3->uuid[0], ns3->uuid[1], ns3->uuid[2],
		 ns3->uuid[3], ns3->uuid[4], ns3->uuid[5], ns3->uuid[6], ns3->uuid[7], ns3->uuid[8],
		 ns3->uuid[9], ns3->uuid[10], ns3->uuid[11], ns3->uuid[12], ns3->uuid[13],
		 ns3->uuid[14], ns3->uuid[15]);
	assert_null(fopen(path, "r"));
	assert_int_equal(resv(f, 0, nvme_cmd_resv_register, 3u << 30, 0, 0xa1), 0);
	assert_int_equal(resv(f, 0, nvme_cmd_resv_acquire, 4u << 8, 0xa1, 0), 0);
	fp = fopen(path, "r");
	assert_non_null(fp);
	fclose(fp);

	/* The directory gone: the command fails and changes nothing, nobody is told. */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(rmdir(dir), 0);
	assert_int_equal(resv(f, 1, nvme_cmd_resv_acquire, 1 | (1u << 8), 0xb1, 0xa1),
			 NVME_SC_INTERNAL);
	assert_true(nvmf_resv_is_holder(ns3->resv, f->h[0].aq->sq.ctrl->hostid));
	assert_int_equal(ns3->resv->rtype, 4);
	assert_int_equal(ns3->resv->nr, 2);
	assert_int_equal(f->h[0].aq->sq.ctrl->resv_log_nr, 0);
	assert_int_equal(mkdir(dir, 0700), 0);

	/* Back: the preempt is kept; a "restart" of the namespace's state reads it. */
	assert_int_equal(resv(f, 1, nvme_cmd_resv_acquire, 1 | (1u << 8), 0xb1, 0xa1), 0);
	nvmf_ns_resv_fini(ns3);
	assert_int_equal(nvmf_ns_resv_init(ns3), 0);
	assert_int_equal(ns3->resv->nr, 0);
	nvmf_ns_resv_load(ns3);
	assert_int_equal(ns3->resv->nr, 1);
	assert_int_equal(ns3->resv->rtype, 1);
	assert_true(ns3->resv->ptpl);
	assert_true(nvmf_resv_is_holder(ns3->resv, f->h[1].aq->sq.ctrl->hostid));
	assert_int_equal(rw_ns(f, 0, 3), ST_CONFLICT);

	/* Get/Set Features 83h; PTPL 0 removes the file. */
	fake_prep(&f->ft, f->c, nvme_admin_get_features, 3)->cdw10 = NVME_FEAT_FID_RESV_PERSIST;
	assert_int_equal(fake_exec(&f->ft, f->h[0].aq, f->c), 0);
	assert_int_equal(f->c->cqe.result, 1);
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 3)->cdw10 = NVME_FEAT_FID_RESV_PERSIST;
	assert_int_equal(fake_exec(&f->ft, f->h[0].aq, f->c), 0);
	assert_null(fopen(path, "r"));
	/* Deleting the namespace forgets its state file. */
	fake_prep(&f->ft, f->c, nvme_admin_set_features, 3)->cdw10 = NVME_FEAT_FID_RESV_PERSIST;
	f->c->req.cmd.cdw11 = 1;
	assert_int_equal(fake_exec(&f->ft, f->h[0].aq, f->c), 0);
	fp = fopen(path, "r");
	assert_non_null(fp);
	fclose(fp);
	nvmf_ns_detach(ns3, NULL, NULL);
	assert_null(fopen(path, "r"));
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fake_fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_identify),
		T(test_conflict_and_report),
		T(test_data_lengths),
		T(test_no_hostid),
		T(test_notifications),
		T(test_persistence_feature),
		T(test_preempt_abort_waits),
		T(test_host_keeps_registration),
		T(test_ptpl_store),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
