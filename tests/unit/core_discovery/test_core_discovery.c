/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the discovery controller (discovery.c and the discovery
 * log in logpage.c): Identify, the commands it accepts, and log page 70h
 * with one entry per (allowed NVM subsystem, NVM listener), read whole or
 * in pieces, and its generation counter.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "fake_nvmf.h"

#define NQN_A "nqn.2026-12.io.blox:a" /* any host */
#define NQN_B "nqn.2026-12.io.blox:b" /* FAKE_HOSTNQN2 only */
#define NQN_C "nqn.2026-12.io.blox:c" /* FAKE_HOSTNQN listed */
#define NQN_D "nqn.2026-12.io.blox:d" /* nobody */

#define HDR_LEN 1024
#define ENTRY_LEN 1024

struct fixture {
	struct fake_tgt ft;
	struct nvmf_port *p6, *pwild, *pdisc; /* besides ft.port (id 1) */
	struct fake_q *q; /* discovery controller of FAKE_HOSTNQN */
	struct fake_cmd *c;
};

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);
	struct nvmf_subsys *s;

	assert_int_equal(nvmf_port_add(&f->ft.tgt, "::1", "4421", false, &f->p6), 0);
	assert_int_equal(nvmf_port_add(&f->ft.tgt, "0.0.0.0", "4422", false,
				       &f->pwild),
			 0);
	assert_int_equal(nvmf_port_add(&f->ft.tgt, "127.0.0.1", "8009", true,
				       &f->pdisc),
			 0);
	fake_subsys(&f->ft, NQN_A, true);
	s = fake_subsys(&f->ft, NQN_B, false);
	assert_int_equal(nvmf_subsys_add_host(s, FAKE_HOSTNQN2), 0);
	s = fake_subsys(&f->ft, NQN_C, false);
	assert_int_equal(nvmf_subsys_add_host(s, FAKE_HOSTNQN), 0);
	fake_subsys(&f->ft, NQN_D, false);
	f->q = fake_admin_q(&f->ft, f->pdisc, FAKE_DISCNQN, NULL);
	f->c = fake_cmd_new(&f->ft);
	*state = f;
	return 0;
}

static void assert_padded(const char *field, size_t len, const char *s)
{
	size_t n = strlen(s);

	assert_true(n <= len);
	assert_memory_equal(field, s, n);
	for (size_t i = n; i < len; i++)
		if (field[i] != ' ')
			fail_msg("'%s': pad byte %zu is 0x%02x", s, i,
				 (uint8_t)field[i]);
}

/* Read @len bytes of the discovery log at @off on @q into @out. */
static void read_disc(struct fixture *f, struct fake_q *q, uint32_t len,
		      uint64_t off, uint8_t *out)
{
	assert_int_equal(fake_get_log(&f->ft, q, f->c, NVME_LOG_LID_DISCOVER, len,
				      off, 0, false),
			 0);
	assert_int_equal(f->c->rsp_len, len);
	memcpy(out, f->c->buf, len);
}

/* 1. Identify Controller says "discovery controller". */
static void test_identify(void **state)
{
	struct fixture *f = *state;
	const struct nvme_id_ctrl *id = (const void *)f->c->buf;

	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_CTRL,
				       0),
			 0);
	assert_int_equal(id->cntrltype, 2);
	assert_string_equal(id->subnqn, FAKE_DISCNQN);
	assert_int_equal(id->cntlid, f->q->sq.ctrl->cntlid);
	assert_int_equal(id->nn, 0);
	assert_int_equal(id->oncs, 0);
	assert_int_equal(id->oaes, 1u << 31); /* discovery log change notices */
	assert_int_equal(id->kas, 1);
	assert_int_equal(id->mdts, 5);
	/* No Commands Supported and Effects log (Linux would ask for it). */
	assert_int_equal(id->lpa, NVME_CTRL_LPA_EXTENDED);
	assert_padded(id->mn, sizeof(id->mn), "blox discovery");
	/* Namespace CNS values do not exist here. */
	assert_int_equal(fake_identify(&f->ft, f->q, f->c, NVME_IDENTIFY_CNS_NS, 1),
			 ST_INVALID_FIELD);
	assert_int_equal(fake_identify(&f->ft, f->q, f->c,
				       NVME_IDENTIFY_CNS_NS_ACTIVE_LIST, 0),
			 ST_INVALID_FIELD);
}

/* 2. Only the discovery subset of admin commands and logs. */
static void test_commands(void **state)
{
	struct fixture *f = *state;
	const uint32_t *sup = (const void *)f->c->buf;

	fake_prep(&f->ft, f->c, nvme_admin_abort_cmd, 0);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_INVALID_OPCODE);
	fake_prep(&f->ft, f->c, 0x80, 0);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), ST_INVALID_OPCODE);
	fake_prep(&f->ft, f->c, nvme_admin_keep_alive, 0);
	assert_int_equal(fake_exec(&f->ft, f->q, f->c), 0);
	assert_int_equal(fake_set_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_KATO,
				       30000),
			 0);
	assert_int_equal(fake_get_feat(&f->ft, f->q, f->c, NVME_FEAT_FID_KATO, 0),
			 0);
	assert_int_equal(f->c->cqe.result, 30000);

	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_SMART, 512,
				      0, 0, false),
			 ST_INVALID_LOG_PAGE);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_ERROR, 64,
				      0, 0, false),
			 ST_INVALID_LOG_PAGE);
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c,
				      NVME_LOG_LID_SUPPORTED_LOG_PAGES, 1024, 0, 0,
				      false),
			 0);
	for (unsigned lid = 0; lid < 256; lid++)
		assert_int_equal(sup[lid], lid == 0 || lid == 0x70 ? 1 : 0);
}

struct want_entry {
	const char *nqn;
	uint16_t portid;
	uint8_t adrfam;
	const char *traddr, *trsvcid;
};

static void check_entry(const struct nvmf_disc_log_entry *e,
			const struct want_entry *w)
{
	assert_int_equal(e->trtype, NVMF_TRTYPE_TCP);
	assert_int_equal(e->adrfam, w->adrfam);
	assert_int_equal(e->subtype, NVME_NQN_NVME);
	/*
	 * As nvmet on a plain TCP port: secure channel not specified, SQ flow
	 * control disable supported (0x06, "not required" without TLS, is
	 * what nvme-cli 2.3 printed as "unrecognized").
	 */
	assert_int_equal(e->treq, NVMF_TREQ_DISABLE_SQFLOW);
	assert_int_equal(e->portid, w->portid);
	assert_int_equal(e->cntlid, 0xffff);
	assert_int_equal(e->asqsz, 32);
	assert_padded(e->trsvcid, sizeof(e->trsvcid), w->trsvcid);
	assert_padded(e->traddr, sizeof(e->traddr), w->traddr);
	assert_string_equal(e->subnqn, w->nqn);
	assert_int_equal(e->tsas.tcp.sectype, NVMF_TCP_SECTYPE_NONE);
}

/* 3. Entries: allowed subsystems x NVM listeners, wildcard resolved. */
static void test_log_entries(void **state)
{
	struct fixture *f = *state;
	static uint8_t log[HDR_LEN + 8 * ENTRY_LEN];
	const struct nvmf_discovery_log *h = (const void *)log;
	const struct want_entry want[] = {
		{ NQN_A, 1, NVMF_ADDR_FAMILY_IP4, "127.0.0.1", "4420" },
		{ NQN_A, 2, NVMF_ADDR_FAMILY_IP6, "::1", "4421" },
		{ NQN_A, 3, NVMF_ADDR_FAMILY_IP4, "127.0.0.1", "4422" },
		{ NQN_C, 1, NVMF_ADDR_FAMILY_IP4, "127.0.0.1", "4420" },
		{ NQN_C, 2, NVMF_ADDR_FAMILY_IP6, "::1", "4421" },
		{ NQN_C, 3, NVMF_ADDR_FAMILY_IP4, "127.0.0.1", "4422" },
	};

	assert_int_equal(f->ft.port->id, 1);
	assert_int_equal(f->p6->id, 2);
	assert_int_equal(f->pwild->id, 3);
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_int_equal(h->numrec, 6);
	assert_int_equal(h->recfmt, 0);
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(want); i++)
		check_entry(&h->entries[i], &want[i]);
	/* Nothing after the last entry. */
	for (size_t i = HDR_LEN + 6 * ENTRY_LEN; i < sizeof(log); i++)
		assert_int_equal(log[i], 0);
}

/*
 * 8. TREQ and SECTYPE of TLS ports, as nvmet's: secure channel required
 * (0x05) on a TLS-only port, not required (0x06) on one that takes both;
 * a plain port's entry says neither (0x04).
 */
static void test_log_treq_tls(void **state)
{
	struct fixture *f = *state;
	static uint8_t log[HDR_LEN + 8 * ENTRY_LEN];
	const struct nvmf_discovery_log *h = (const void *)log;

	f->p6->tls = NVMF_TLS_REQUIRED;
	f->pwild->tls = NVMF_TLS_ALLOWED;
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_int_equal(h->numrec, 6);
	for (size_t i = 0; i < 6; i++) {
		const struct nvmf_disc_log_entry *e = &h->entries[i];

		switch (e->portid) {
		case 1:
			assert_int_equal(e->treq, 0x04);
			assert_int_equal(e->tsas.tcp.sectype, NVMF_TCP_SECTYPE_NONE);
			break;
		case 2:
			assert_int_equal(e->treq, NVMF_TREQ_REQUIRED | NVMF_TREQ_DISABLE_SQFLOW);
			assert_int_equal(e->tsas.tcp.sectype, NVMF_TCP_SECTYPE_TLS13);
			break;
		default:
			assert_int_equal(e->portid, 3);
			assert_int_equal(e->treq,
					 NVMF_TREQ_NOT_REQUIRED | NVMF_TREQ_DISABLE_SQFLOW);
			assert_int_equal(e->tsas.tcp.sectype, NVMF_TCP_SECTYPE_TLS13);
		}
	}
}

/* 4. Another host sees its own set of subsystems. */
static void test_log_per_host(void **state)
{
	struct fixture *f = *state;
	static uint8_t log[HDR_LEN + 8 * ENTRY_LEN];
	const struct nvmf_discovery_log *h = (const void *)log;
	struct fake_q *q2 = fake_q_new(&f->ft);

	fake_admin_up_as(&f->ft, q2, FAKE_DISCNQN, FAKE_HOSTNQN2, 0);
	read_disc(f, q2, sizeof(log), 0, log);
	assert_int_equal(h->numrec, 6);
	for (int i = 0; i < 3; i++)
		assert_string_equal(h->entries[i].subnqn, NQN_A);
	for (int i = 3; i < 6; i++)
		assert_string_equal(h->entries[i].subnqn, NQN_B);
}

/* 5. Read in two pieces at an offset: the same bytes as one read. */
static void test_log_in_pieces(void **state)
{
	struct fixture *f = *state;
	static uint8_t whole[HDR_LEN + 6 * ENTRY_LEN], part[sizeof(whole)];
	const struct nvmf_discovery_log *h = (const void *)part;

	read_disc(f, f->q, sizeof(whole), 0, whole);
	/* Linux: header first, then the entries. */
	read_disc(f, f->q, HDR_LEN, 0, part);
	assert_int_equal(h->numrec, 6);
	read_disc(f, f->q, sizeof(whole) - HDR_LEN, HDR_LEN, part + HDR_LEN);
	assert_memory_equal(part, whole, sizeof(whole));
	/* An odd split inside an entry. */
	read_disc(f, f->q, 2500, 0, part);
	read_disc(f, f->q, sizeof(whole) - 2500, 2500, part + 2500);
	assert_memory_equal(part, whole, sizeof(whole));
	/* Past the end is refused. */
	assert_int_equal(fake_get_log(&f->ft, f->q, f->c, NVME_LOG_LID_DISCOVER, 4,
				      sizeof(whole) + 4, 0, false),
			 ST_INVALID_FIELD);
}

/* 6. GENCTR: stable while nothing changes, bumps when a subsystem comes. */
static void test_log_genctr(void **state)
{
	struct fixture *f = *state;
	static uint8_t log[HDR_LEN + 16 * ENTRY_LEN];
	const struct nvmf_discovery_log *h = (const void *)log;
	uint64_t g0;

	read_disc(f, f->q, HDR_LEN, 0, log);
	g0 = h->genctr;
	read_disc(f, f->q, HDR_LEN, 0, log);
	assert_int_equal(h->genctr, g0);
	read_disc(f, f->q, HDR_LEN + ENTRY_LEN, 0, log);
	assert_int_equal(h->genctr, g0);

	fake_subsys(&f->ft, "nqn.2026-12.io.blox:e", true);
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_true(h->genctr > g0);
	assert_int_equal(h->numrec, 9);
	assert_string_equal(h->entries[6].subnqn, "nqn.2026-12.io.blox:e");

	/* Allowing a host changes what that host sees: bump too. */
	g0 = h->genctr;
	assert_int_equal(nvmf_subsys_add_host(nvmf_subsys_find(&f->ft.tgt, NQN_D),
					      FAKE_HOSTNQN),
			 0);
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_true(h->genctr > g0);
	assert_int_equal(h->numrec, 12);
}

/* 7. The discovery controller also needs CC.EN before admin commands. */
static void test_needs_enable(void **state)
{
	struct fixture *f = *state;
	struct fake_q *q2 = fake_q_new_on(&f->ft, f->pdisc);
	struct fake_connect_args a = { .qid = 0, .sqsize = 31, .cntlid = 0xffff,
				       .subnqn = FAKE_DISCNQN,
				       .hostnqn = FAKE_HOSTNQN };

	assert_int_equal(fake_connect(&f->ft, q2, &a, NULL), 0);
	assert_int_equal(fake_get_log(&f->ft, q2, f->c, NVME_LOG_LID_DISCOVER,
				      HDR_LEN, 0, 0, false),
			 ST_CMD_SEQ);
}

/*
 * 9. Referrals: an entry each after the NVM ones, subtype 1 with the
 * discovery NQN; the generation counter moves with each change; a
 * duplicate (in any spelling of the address) and bad input are refused.
 */
static void test_referrals(void **state)
{
	struct fixture *f = *state;
	static uint8_t log[HDR_LEN + 16 * ENTRY_LEN];
	const struct nvmf_discovery_log *h = (const void *)log;
	const struct nvmf_disc_log_entry *e = &h->entries[6];
	struct nvmf_tgt *t = &f->ft.tgt;
	uint64_t g;

	read_disc(f, f->q, HDR_LEN, 0, log);
	g = h->genctr;
	assert_int_equal(nvmf_referral_add(t, "10.0.0.2", "8009", NULL), 0);
	assert_int_equal(nvmf_referral_add(t, "0::1", "8010", NULL), 0);
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_int_equal(h->genctr, g + 2);
	assert_int_equal(h->numrec, 8);
	assert_int_equal(e[0].subtype, NVME_NQN_DISC);
	assert_int_equal(e[0].trtype, NVMF_TRTYPE_TCP);
	assert_int_equal(e[0].adrfam, NVMF_ADDR_FAMILY_IP4);
	assert_int_equal(e[0].cntlid, 0xffff);
	assert_string_equal(e[0].subnqn, NVME_DISC_SUBSYS_NAME);
	assert_padded(e[0].traddr, sizeof(e[0].traddr), "10.0.0.2");
	assert_padded(e[0].trsvcid, sizeof(e[0].trsvcid), "8009");
	assert_int_equal(e[1].subtype, NVME_NQN_DISC);
	assert_int_equal(e[1].adrfam, NVMF_ADDR_FAMILY_IP6);
	assert_padded(e[1].traddr, sizeof(e[1].traddr), "::1");
	assert_padded(e[1].trsvcid, sizeof(e[1].trsvcid), "8010");
	/* Port ids of their own, none a listener's. */
	assert_true(e[0].portid > 4 && e[1].portid > e[0].portid);
	/* Refused, nothing changed. */
	assert_int_equal(nvmf_referral_add(t, "::1", "8010", NULL), -EEXIST);
	assert_int_equal(nvmf_referral_add(t, "10.0.0", "8009", NULL), -EINVAL);
	assert_int_equal(nvmf_referral_add(t, "10.0.0.3", "0", NULL), -EINVAL);
	assert_int_equal(nvmf_referral_add(t, "10.0.0.3", "65536", NULL), -EINVAL);
	assert_int_equal(nvmf_referral_add(t, "10.0.0.3", "80x", NULL), -EINVAL);
	assert_int_equal(nvmf_referral_remove(t, "10.0.0.9", "8009"), -ENOENT);
	assert_int_equal(nvmf_referral_remove(t, "nonsense", "8009"), -ENOENT);
	read_disc(f, f->q, HDR_LEN, 0, log);
	assert_int_equal(h->genctr, g + 2);
	assert_int_equal(h->numrec, 8);
	/* Removed (the address as written another way): gone, the counter moves. */
	assert_int_equal(nvmf_referral_remove(t, "::0001", "8010"), 0);
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_int_equal(h->genctr, g + 3);
	assert_int_equal(h->numrec, 7);
	assert_padded(e[0].traddr, sizeof(e[0].traddr), "10.0.0.2");
}

/*
 * 10. The Discovery Log Page Change notice: to a persistent discovery
 * controller (KATO set) that enabled it (feature 0Bh bit 31), on every
 * change (subsystem, listener, host, referral); masked until the log is
 * read without RAE; never to one without KATO or without the bit.
 */
static void test_change_notice(void **state)
{
	struct fixture *f = *state;
	struct fake_q *qp = fake_q_new_on(&f->ft, f->pdisc), *q0 = f->q;
	struct fake_cmd *a[5], *b;
	struct nvmf_port *p;
	const uint32_t aen = 0x70f002; /* Notice, F0h, log 70h */

	fake_admin_up_as(&f->ft, qp, FAKE_DISCNQN, FAKE_HOSTNQN, 30000);
	assert_int_equal(fake_set_feat(&f->ft, qp, f->c, NVME_FEAT_FID_ASYNC_EVENT, 1u << 31), 0);
	assert_int_equal(fake_set_feat(&f->ft, q0, f->c, NVME_FEAT_FID_ASYNC_EVENT, 1u << 31), 0);
	for (int i = 0; i < 4; i++) {
		a[i] = fake_cmd_new(&f->ft);
		fake_prep(&f->ft, a[i], nvme_admin_async_event, 0);
		fake_submit(&f->ft, qp, a[i]);
	}
	b = fake_cmd_new(&f->ft);
	fake_prep(&f->ft, b, nvme_admin_async_event, 0);
	fake_submit(&f->ft, q0, b);

	fake_subsys(&f->ft, "nqn.2026-12.io.blox:e", true);
	assert_int_equal(a[0]->done, 1);
	assert_int_equal(a[0]->cqe.result, aen);
	/* Masked: a listener and a host change wait for the log to be read. */
	assert_int_equal(nvmf_port_add(&f->ft.tgt, "127.0.0.1", "4430", false, &p), 0);
	assert_int_equal(nvmf_subsys_add_host(nvmf_subsys_find(&f->ft.tgt, NQN_D), FAKE_HOSTNQN),
			 0);
	assert_int_equal(a[1]->done, 0);
	assert_int_equal(fake_get_log(&f->ft, qp, f->c, NVME_LOG_LID_DISCOVER, HDR_LEN, 0, 0, true),
			 0);
	assert_int_equal(a[1]->done, 0); /* RAE: still masked */
	assert_int_equal(fake_get_log(&f->ft, qp, f->c, NVME_LOG_LID_DISCOVER, HDR_LEN, 0, 0, false),
			 0);
	assert_int_equal(a[1]->done, 1);
	assert_int_equal(a[1]->cqe.result, aen);
	fake_get_log(&f->ft, qp, f->c, NVME_LOG_LID_DISCOVER, HDR_LEN, 0, 0, false);
	assert_int_equal(a[2]->done, 0); /* told once for what came while masked */
	assert_int_equal(nvmf_referral_add(&f->ft.tgt, "10.0.0.2", "8009", NULL), 0);
	assert_int_equal(a[2]->done, 1);
	fake_get_log(&f->ft, qp, f->c, NVME_LOG_LID_DISCOVER, HDR_LEN, 0, 0, false);
	nvmf_port_remove(p);
	assert_int_equal(a[3]->done, 1);
	assert_int_equal(a[3]->cqe.result, aen);
	/* The controller without KATO heard nothing. */
	assert_int_equal(b->done, 0);
	/* Without the enable bit, nothing either (the AER stays parked). */
	fake_get_log(&f->ft, qp, f->c, NVME_LOG_LID_DISCOVER, HDR_LEN, 0, 0, false);
	assert_int_equal(fake_set_feat(&f->ft, qp, f->c, NVME_FEAT_FID_ASYNC_EVENT, 0), 0);
	a[4] = fake_cmd_new(&f->ft);
	fake_prep(&f->ft, a[4], nvme_admin_async_event, 0);
	fake_submit(&f->ft, qp, a[4]);
	assert_int_equal(nvmf_referral_remove(&f->ft.tgt, "10.0.0.2", "8009"), 0);
	assert_int_equal(a[4]->done, 0);
}

/*
 * 11. An advertised address: a listener's entries carry it instead of its
 * own (a wildcard's too, instead of the address the host reached), the
 * counter moving; refused (another family, not a literal, unspecified)
 * without a change; "" gives the listener its own address back.
 */
static void test_log_advertise(void **state)
{
	struct fixture *f = *state;
	static uint8_t log[HDR_LEN + 8 * ENTRY_LEN];
	const struct nvmf_discovery_log *h = (const void *)log;
	const struct nvmf_disc_log_entry *e = h->entries;
	uint64_t g;

	read_disc(f, f->q, HDR_LEN, 0, log);
	g = h->genctr;
	assert_int_equal(nvmf_port_set_advertise(f->ft.port, "10.0.2.2"), 0);
	assert_int_equal(nvmf_port_set_advertise(f->pwild, "192.0.2.7"), 0);
	assert_int_equal(nvmf_port_set_advertise(f->p6, "fd00:0::2"), 0);
	assert_string_equal(f->p6->advertise, "fd00::2");
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_int_equal(h->genctr, g + 3);
	assert_int_equal(h->numrec, 6);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(e[i].portid, i % 3 + 1);
		assert_padded(e[i].traddr, sizeof(e[i].traddr),
			      i % 3 == 0 ? "10.0.2.2" : i % 3 == 1 ? "fd00::2" : "192.0.2.7");
		assert_int_equal(e[i].adrfam,
				 i % 3 == 1 ? NVMF_ADDR_FAMILY_IP6 : NVMF_ADDR_FAMILY_IP4);
	}
	/* Refused, nothing changed; the same again is no change either. */
	assert_int_equal(nvmf_port_set_advertise(f->ft.port, "fd00::2"), -EAFNOSUPPORT);
	assert_int_equal(nvmf_port_set_advertise(f->p6, "10.0.2.2"), -EAFNOSUPPORT);
	assert_int_equal(nvmf_port_set_advertise(f->ft.port, "10.0.2"), -EINVAL);
	assert_int_equal(nvmf_port_set_advertise(f->ft.port, "localhost"), -EINVAL);
	assert_int_equal(nvmf_port_set_advertise(f->pwild, "0.0.0.0"), -EINVAL);
	assert_int_equal(nvmf_port_set_advertise(f->p6, "::"), -EINVAL);
	assert_int_equal(nvmf_port_set_advertise(f->ft.port, "10.0.2.2"), 0);
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_int_equal(h->genctr, g + 3);
	assert_padded(e[0].traddr, sizeof(e[0].traddr), "10.0.2.2");
	assert_string_equal(f->p6->advertise, "fd00::2");
	/* Back to their own: the port's address, the wildcard's reached one. */
	assert_int_equal(nvmf_port_set_advertise(f->ft.port, ""), 0);
	assert_int_equal(nvmf_port_set_advertise(f->pwild, NULL), 0);
	read_disc(f, f->q, sizeof(log), 0, log);
	assert_int_equal(h->genctr, g + 5);
	assert_padded(e[0].traddr, sizeof(e[0].traddr), "127.0.0.1");
	assert_padded(e[2].traddr, sizeof(e[2].traddr), "127.0.0.1");
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fake_fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_identify),
		T(test_commands),
		T(test_log_entries),
		T(test_log_per_host),
		T(test_log_in_pieces),
		T(test_log_genctr),
		T(test_needs_enable),
		T(test_log_treq_tls),
		T(test_referrals),
		T(test_change_notice),
		T(test_log_advertise),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
