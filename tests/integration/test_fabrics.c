/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Integration tests of bloxd's fabrics side: Connect errors (unknown
 * subsystem, host access list, queue sizes, duplicate and unknown
 * queues/controllers), commands before Connect or before CC.EN, the
 * property state machine, the discovery controller and its log page,
 * keep-alive expiry, and the embedded default configuration with -l/-D
 * listeners (IPv4 and IPv6).
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

#include "fixture.h"

#define OPEN_NQN "nqn.2026-12.io.blox:open"
#define LOCKED_NQN "nqn.2026-12.io.blox:locked"
#define DEFAULT_NQN "nqn.2026-12.io.blox:default"
#define SC_CONNECT_INVALID INI_SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_PARAM)
#define SC_CONNECT_HOST INI_SC(NVME_SCT_CMD_SPECIFIC, NVME_SC_CONNECT_INVALID_HOST)

static const char subsystems[] =
	"[ { \"nqn\": \"" OPEN_NQN "\", \"allow_any_host\": true,"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 4096} ] },"
	"  { \"nqn\": \"" LOCKED_NQN "\", \"allow_any_host\": false,"
	"    \"hosts\": [\"" FX_HOST_A "\"],"
	"    \"namespaces\": [ {\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\", \"block_size\": 512} ] } ]";

static struct ini_queue *queue_on(uint16_t port)
{
	struct ini_queue *q = NULL;

	assert_int_equal(ini_queue_connect(FX_ADDR, port, NULL, &q), 0);
	return q;
}

/* Connect @q as queue @qid; returns the status, result in *@dw0. */
static uint16_t connect_as(struct ini_queue *q, uint16_t qid, uint16_t sqsize,
			   const char *subnqn, const char *hostnqn,
			   uint16_t cntlid, uint32_t kato, uint32_t *dw0)
{
	struct ini_connect_args a = {
		.qid = qid,
		.sqsize = sqsize,
		.subnqn = subnqn,
		.hostnqn = hostnqn,
		.cntlid = cntlid,
		.kato_ms = kato,
	};
	struct nvme_cqe cqe;

	a.hostid[0] = 0x42;
	assert_int_equal(ini_connect(q, &a, &cqe), 0);
	if (dw0)
		*dw0 = (uint32_t)cqe.result;
	return ini_status(&cqe);
}

static void test_connect_unknown_subsys(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = queue_on(e->d.nvm_port);
	uint32_t dw0 = 0;
	uint16_t st;

	st = connect_as(q, 0, 31, "nqn.2026-12.io.blox:nope", FX_HOST_A,
			0xffff, 0, &dw0);
	assert_int_equal(INI_SC_CODE(st), SC_CONNECT_INVALID);
	/* IATTR = 1 (in the data), IPO = offset of SUBNQN (256). */
	assert_int_equal(dw0, 0x00010100);
	ini_queue_destroy(q);
}

static void test_connect_host_access(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = queue_on(e->d.nvm_port);
	struct ini_ctrl *c;

	assert_int_equal(INI_SC_CODE(connect_as(q, 0, 31, LOCKED_NQN, FX_HOST_B,
						0xffff, 0, NULL)),
			 SC_CONNECT_HOST);
	ini_queue_destroy(q);

	assert_int_equal(fx_ctrl(&e->d, LOCKED_NQN, FX_HOST_A, 1, NULL, &c), 0);
	assert_int_equal(fx_rw_check(c->io[0], 1, 77, 512), 0);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);

	/* allow_any_host lets both in. */
	assert_int_equal(fx_ctrl(&e->d, OPEN_NQN, FX_HOST_B, 1, NULL, &c), 0);
	assert_int_equal(fx_rw_check(c->io[0], 1, 77, 4096), 0);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

static void test_connect_queue_sizes(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = queue_on(e->d.nvm_port), *io;
	struct ini_ctrl *c;

	/* Admin SQSIZE above 31 (ASQSZ 32 entries). */
	assert_int_equal(INI_SC_CODE(connect_as(q, 0, 32, OPEN_NQN, FX_HOST_A,
						0xffff, 0, NULL)),
			 SC_CONNECT_INVALID);
	ini_queue_destroy(q);

	assert_int_equal(fx_ctrl(&e->d, OPEN_NQN, FX_HOST_A, 0, NULL, &c), 0);
	assert_int_equal(ini_set_features(c->admin, NVME_FEAT_FID_NUM_QUEUES, 0,
					  NULL),
			 0);
	/* I/O SQSIZE above MQES, and 0 (a queue holds at least 2). */
	io = queue_on(e->d.nvm_port);
	assert_int_equal(INI_SC_CODE(connect_as(io, 1, 1024, OPEN_NQN,
						FX_HOST_A, c->cntlid, 0, NULL)),
			 SC_CONNECT_INVALID);
	ini_queue_destroy(io);
	io = queue_on(e->d.nvm_port);
	assert_int_equal(INI_SC_CODE(connect_as(io, 1, 0, OPEN_NQN, FX_HOST_A,
						c->cntlid, 0, NULL)),
			 SC_CONNECT_INVALID);
	ini_queue_destroy(io);
	/* MQES itself is fine. */
	io = queue_on(e->d.nvm_port);
	assert_int_equal(connect_as(io, 1, 1023, OPEN_NQN, FX_HOST_A, c->cntlid,
				    0, NULL),
			 0);
	assert_int_equal(fx_rw_check(io, 1, 3, 4096), 0);
	ini_queue_destroy(io);
	ini_ctrl_destroy(c);
}

static void test_connect_bad_queue_refs(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *io;
	struct ini_ctrl *c;
	uint16_t st;

	assert_int_equal(fx_ctrl(&e->d, OPEN_NQN, FX_HOST_A, 1, NULL, &c), 0);
	/* Ask for 4 queues so that qid 2 is a valid queue id below. */
	assert_int_equal(ini_set_features(c->admin, NVME_FEAT_FID_NUM_QUEUES,
					  3 | 3u << 16, NULL),
			 0);
	/* qid 1 is taken. */
	io = queue_on(e->d.nvm_port);
	st = INI_SC_CODE(connect_as(io, 1, 127, OPEN_NQN, FX_HOST_A, c->cntlid,
				    0, NULL));
	assert_true(st == SC_CONNECT_INVALID || st == NVME_SC_CMD_SEQ_ERROR);
	ini_queue_destroy(io);
	/* The first qid 1 still works. */
	assert_int_equal(fx_rw_check(c->io[0], 1, 5, 4096), 0);
	/* No such controller. */
	io = queue_on(e->d.nvm_port);
	assert_int_equal(INI_SC_CODE(connect_as(io, 2, 127, OPEN_NQN, FX_HOST_A,
						(uint16_t)(c->cntlid + 100), 0,
						NULL)),
			 SC_CONNECT_INVALID);
	ini_queue_destroy(io);
	/* The controller belongs to another host. */
	io = queue_on(e->d.nvm_port);
	assert_int_equal(INI_SC_CODE(connect_as(io, 2, 127, OPEN_NQN, FX_HOST_B,
						c->cntlid, 0, NULL)),
			 SC_CONNECT_INVALID);
	ini_queue_destroy(io);
	/* A qid beyond any the target grants. */
	io = queue_on(e->d.nvm_port);
	assert_int_equal(INI_SC_CODE(connect_as(io, 1000, 127, OPEN_NQN,
						FX_HOST_A, c->cntlid, 0, NULL)),
			 SC_CONNECT_INVALID);
	ini_queue_destroy(io);
	/* An I/O Connect must not create a controller (cntlid 0xFFFF). */
	io = queue_on(e->d.nvm_port);
	assert_int_not_equal(connect_as(io, 1, 127, OPEN_NQN, FX_HOST_A, 0xffff,
					0, NULL),
			     0);
	ini_queue_destroy(io);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

static void test_commands_out_of_order(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = queue_on(e->d.nvm_port);
	uint8_t *buf = calloc(1, 4096);
	uint64_t v;

	assert_non_null(buf);
	/* Before Connect: nothing but Connect. */
	assert_int_equal(INI_SC_CODE(ini_identify(q, NVME_IDENTIFY_CNS_CTRL, 0,
						  0, buf)),
			 NVME_SC_CMD_SEQ_ERROR);
	assert_int_equal(INI_SC_CODE(ini_prop_get(q, NVME_REG_CAP, true, &v)),
			 NVME_SC_CMD_SEQ_ERROR);
	/* After Connect, before CC.EN = 1: fabrics commands only. */
	assert_int_equal(connect_as(q, 0, 31, OPEN_NQN, FX_HOST_A, 0xffff, 0,
				    NULL),
			 0);
	assert_int_equal(INI_SC_CODE(ini_identify(q, NVME_IDENTIFY_CNS_CTRL, 0,
						  0, buf)),
			 NVME_SC_CMD_SEQ_ERROR);
	assert_int_equal(INI_SC_CODE(ini_keep_alive(q)), NVME_SC_CMD_SEQ_ERROR);
	assert_int_equal(INI_SC_CODE(ini_get_features(q, NVME_FEAT_FID_NUM_QUEUES,
						      0, NULL)),
			 NVME_SC_CMD_SEQ_ERROR);
	assert_int_equal(ini_prop_get(q, NVME_REG_CAP, true, &v), 0);
	/* A second Connect on a connected queue. */
	assert_int_not_equal(connect_as(q, 0, 31, OPEN_NQN, FX_HOST_A, 0xffff,
					0, NULL),
			     0);
	free(buf);
	ini_queue_destroy(q);
}

static void test_property_state_machine(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = queue_on(e->d.nvm_port);
	const uint32_t cc_on = 1u | 6u << 16 | 4u << 20;
	uint8_t *buf = calloc(1, 4096);
	uint64_t cap, v;

	assert_non_null(buf);
	assert_int_equal(connect_as(q, 0, 31, OPEN_NQN, FX_HOST_A, 0xffff, 0,
				    NULL),
			 0);
	assert_int_equal(ini_prop_get(q, NVME_REG_CAP, true, &cap), 0);
	assert_int_equal(cap & 0xffff, 1023); /* MQES */
	assert_true(cap & (1ull << 16)); /* CQR */
	assert_true(((cap >> 24) & 0xff) > 0); /* TO */
	assert_int_equal((cap >> 32) & 0xf, 0); /* DSTRD */
	assert_true(cap & (1ull << 37)); /* CSS: NVM command set */
	assert_int_equal((cap >> 48) & 0xf, 0); /* MPSMIN: 4 KiB */
	assert_int_equal(ini_prop_get(q, NVME_REG_VS, false, &v), 0);
	assert_true(v >= 0x10300);
	assert_int_equal(ini_prop_get(q, NVME_REG_CC, false, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ini_prop_get(q, NVME_REG_CSTS, false, &v), 0);
	assert_int_equal(v, 0);

	/* CAP is 8 bytes, unknown offsets and read-only properties. */
	assert_int_equal(INI_SC_CODE(ini_prop_get(q, NVME_REG_CAP, false, &v)),
			 NVME_SC_INVALID_FIELD);
	assert_int_equal(INI_SC_CODE(ini_prop_get(q, 0x1000, false, &v)),
			 NVME_SC_INVALID_FIELD);
	assert_int_equal(INI_SC_CODE(ini_prop_set(q, NVME_REG_CAP, true, 0)),
			 NVME_SC_INVALID_FIELD);

	/* Enable. */
	assert_int_equal(ini_prop_set(q, NVME_REG_CC, false, cc_on), 0);
	assert_int_equal(ini_ctrl_wait_csts(q, 0x1, 0x1, 5000), 0);
	assert_int_equal(ini_prop_get(q, NVME_REG_CC, false, &v), 0);
	assert_int_equal(v, cc_on);
	assert_int_equal(ini_identify(q, NVME_IDENTIFY_CNS_CTRL, 0, 0, buf), 0);
	/* Normal shutdown. */
	assert_int_equal(ini_prop_set(q, NVME_REG_CC, false, cc_on | 1u << 14), 0);
	assert_int_equal(ini_ctrl_wait_csts(q, 0xc, 0x8, 5000), 0);
	/* Reset (EN 1 -> 0): not ready, commands refused again. */
	assert_int_equal(ini_prop_set(q, NVME_REG_CC, false, 0), 0);
	assert_int_equal(ini_ctrl_wait_csts(q, 0x1, 0x0, 5000), 0);
	assert_int_equal(INI_SC_CODE(ini_identify(q, NVME_IDENTIFY_CNS_CTRL, 0,
						  0, buf)),
			 NVME_SC_CMD_SEQ_ERROR);
	/* And enable again. */
	assert_int_equal(ini_prop_set(q, NVME_REG_CC, false, cc_on), 0);
	assert_int_equal(ini_ctrl_wait_csts(q, 0x1, 0x1, 5000), 0);
	assert_int_equal(ini_identify(q, NVME_IDENTIFY_CNS_CTRL, 0, 0, buf), 0);
	free(buf);
	ini_queue_destroy(q);
}

/* Read the whole discovery log (header, then all records). */
static struct nvmf_discovery_log *read_disc_log(struct ini_queue *q,
						uint64_t *numrec)
{
	struct nvmf_discovery_log *hdr = calloc(1, 1024), *log;
	size_t len;

	assert_non_null(hdr);
	assert_int_equal(ini_get_log(q, NVME_LOG_LID_DISCOVER, 0, 0, hdr, 1024), 0);
	assert_int_equal(hdr->recfmt, 0);
	*numrec = hdr->numrec;
	assert_true(*numrec >= 1 && *numrec < 64);
	len = 1024 + *numrec * sizeof(struct nvmf_disc_log_entry);
	log = calloc(1, len);
	assert_non_null(log);
	assert_int_equal(ini_get_log(q, NVME_LOG_LID_DISCOVER, 0, 0, log,
				     (uint32_t)len),
			 0);
	assert_int_equal(log->genctr, hdr->genctr);
	assert_int_equal(log->numrec, hdr->numrec);
	free(hdr);
	return log;
}

struct disc_want {
	const char *subnqn;
	const char *traddr;
	uint8_t adrfam;
	uint16_t port;
	bool found;
};

/* Check every NVM entry is well formed; mark the ones in @want found. */
static void check_disc_entries(const struct nvmf_discovery_log *log,
			       uint64_t n, struct disc_want *want, int nwant,
			       uint16_t disc_only_port)
{
	char nqn[257], addr[257], svc[33], port[8];

	for (uint64_t i = 0; i < n; i++) {
		const struct nvmf_disc_log_entry *en = &log->entries[i];

		fx_field_str(nqn, sizeof(nqn), en->subnqn, sizeof(en->subnqn));
		fx_field_str(addr, sizeof(addr), en->traddr, sizeof(en->traddr));
		fx_field_str(svc, sizeof(svc), en->trsvcid, sizeof(en->trsvcid));
		assert_int_equal(en->trtype, NVMF_TRTYPE_TCP);
		assert_int_equal(en->cntlid, 0xffff);
		assert_int_equal(en->asqsz, 32);
		if (en->subtype == NVME_NQN_CURR || en->subtype == NVME_NQN_DISC) {
			assert_string_equal(nqn, INI_DISC_NQN);
			continue;
		}
		assert_int_equal(en->subtype, NVME_NQN_NVME);
		assert_true(en->treq & 0x04); /* SQ flow control disable */
		assert_int_equal(en->tsas.tcp.sectype, 0);
		/* A discovery-only listener never serves an NVM subsystem. */
		snprintf(port, sizeof(port), "%u", disc_only_port);
		assert_string_not_equal(svc, port);
		for (int w = 0; w < nwant; w++) {
			snprintf(port, sizeof(port), "%u", want[w].port);
			if (strcmp(nqn, want[w].subnqn) || strcmp(svc, port) ||
			    strcmp(addr, want[w].traddr))
				continue;
			assert_int_equal(en->adrfam, want[w].adrfam);
			assert_false(want[w].found); /* no duplicates */
			want[w].found = true;
		}
	}
	for (int w = 0; w < nwant; w++) {
		if (!want[w].found)
			fail_msg("no discovery entry for %s at %s:%u",
				 want[w].subnqn, want[w].traddr, want[w].port);
	}
}

static struct ini_ctrl *disc_ctrl(const char *addr, uint16_t port,
				  const char *hostnqn)
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	uint16_t st = 0;
	char nqn[257];

	ini_ctrl_args_init(&a, addr, port, INI_DISC_NQN);
	a.hostnqn = hostnqn;
	a.nr_io = 0;
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	fx_field_str(nqn, sizeof(nqn), c->id.subnqn, sizeof(c->id.subnqn));
	assert_string_equal(nqn, INI_DISC_NQN);
	return c;
}

static void test_discovery(void **state)
{
	struct fx_env *e = *state;
	uint16_t ports[2] = { e->d.disc_port, e->d.nvm_port };
	uint64_t first_genctr = 0;

	for (int p = 0; p < 2; p++) {
		struct disc_want want[] = {
			{ OPEN_NQN, FX_ADDR, NVMF_ADDR_FAMILY_IP4, e->d.nvm_port },
			{ LOCKED_NQN, FX_ADDR, NVMF_ADDR_FAMILY_IP4, e->d.nvm_port },
		};
		struct ini_ctrl *c = disc_ctrl(FX_ADDR, ports[p], FX_HOST_A);
		struct nvmf_discovery_log *log, *part = calloc(1, 2048);
		uint64_t n, v[2];

		assert_non_null(part);
		log = read_disc_log(c->admin, &n);
		check_disc_entries(log, n, want, 2, e->d.disc_port);
		if (p == 0)
			first_genctr = log->genctr;
		assert_int_equal(log->genctr, first_genctr);
		/* Dword offsets: GENCTR and NUMREC alone, then each record. */
		assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_DISCOVER, 0, 0,
					     v, 16),
				 0);
		assert_int_equal(v[0], log->genctr);
		assert_int_equal(v[1], n);
		assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_DISCOVER, 0, 8,
					     v, 8),
				 0);
		assert_int_equal(v[0], n);
		for (uint64_t i = 0; i < n; i++) {
			assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_DISCOVER,
						     0, 1024 + i * 1024, part,
						     1024),
					 0);
			assert_memory_equal(part, &log->entries[i], 1024);
		}
		/* An offset in the middle of a record. */
		if (n >= 2) {
			assert_int_equal(ini_get_log(c->admin, NVME_LOG_LID_DISCOVER,
						     0, 1024 + 512, part, 1024),
					 0);
			assert_memory_equal(part, (uint8_t *)log->entries + 512,
					    1024);
		}
		/* The header again: nothing changed. */
		free(log);
		log = read_disc_log(c->admin, &n);
		assert_int_equal(log->genctr, first_genctr);
		free(log);
		free(part);
		assert_int_equal(ini_ctrl_shutdown(c), 0);
		ini_ctrl_destroy(c);
	}
}

static void test_discovery_only_port(void **state)
{
	struct fx_env *e = *state;
	struct ini_queue *q = queue_on(e->d.disc_port);

	/* The NVM subsystem is not reachable through a discovery listener. */
	assert_int_equal(INI_SC_CODE(connect_as(q, 0, 31, OPEN_NQN, FX_HOST_A,
						0xffff, 0, NULL)),
			 SC_CONNECT_INVALID);
	ini_queue_destroy(q);
}

static struct ini_ctrl *kato_ctrl(struct fx_env *e, uint32_t kato)
{
	struct ini_ctrl_args a;
	struct ini_ctrl *c = NULL;
	uint16_t st = 0;

	ini_ctrl_args_init(&a, FX_ADDR, e->d.nvm_port, OPEN_NQN);
	a.kato_ms = kato;
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	return c;
}

static void test_kato_expiry(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = kato_ctrl(e, 1000);
	uint32_t kato = 0;
	int64_t t0, dt;

	assert_int_equal(ini_get_features(c->admin, NVME_FEAT_FID_KATO, 0, &kato),
			 0);
	assert_int_equal(kato, 1000);
	t0 = fx_now_ms();
	/* Silence: the target must drop the association, not before KATO. */
	assert_int_equal(ini_wait_closed(c->admin, 6000), 0);
	dt = fx_now_ms() - t0;
	fprintf(stderr, "kato 1000 ms: admin queue closed after %lld ms\n",
		(long long)dt);
	assert_true(dt >= 900);
	assert_true(dt <= 5000);
	assert_int_equal(ini_wait_closed(c->io[0], 2000), 0);
	ini_ctrl_destroy(c);
}

static void test_kato_kept_alive(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c = kato_ctrl(e, 1000);
	int64_t end = fx_now_ms() + 3000;

	while (fx_now_ms() < end) {
		fx_sleep_ms(400);
		assert_int_equal(ini_keep_alive(c->admin), 0);
	}
	assert_int_equal(fx_rw_check(c->io[0], 1, 9, 4096), 0);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

static void test_features(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c;
	uint32_t res = 0;

	assert_int_equal(fx_ctrl(&e->d, OPEN_NQN, FX_HOST_A, 0, NULL, &c), 0);
	assert_int_equal(ini_set_features(c->admin, NVME_FEAT_FID_NUM_QUEUES,
					  3 | 3u << 16, &res),
			 0);
	assert_true((res & 0xffff) >= 3 && (res >> 16) >= 3);
	assert_int_equal(ini_get_features(c->admin, NVME_FEAT_FID_NUM_QUEUES, 0,
					  &res),
			 0);
	assert_true((res & 0xffff) >= 3 && (res >> 16) >= 3);
	assert_int_equal(ini_get_features(c->admin, NVME_FEAT_FID_KATO, 0, &res),
			 0);
	assert_int_equal(res, 0);
	assert_int_equal(ini_keep_alive(c->admin), 0);
	/* A reserved feature identifier. */
	assert_int_equal(INI_SC_CODE(ini_get_features(c->admin, 0x00, 0, &res)),
			 NVME_SC_INVALID_FIELD);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

/* Fabrics Disconnect (NVMe-oF 1.1): I/O queues only. */
static void test_disconnect(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c;

	assert_int_equal(fx_ctrl(&e->d, OPEN_NQN, FX_HOST_A, 2, NULL, &c), 0);
	assert_int_equal(ini_disconnect(c->io[1]), 0);
	assert_int_equal(ini_wait_closed(c->io[1], 5000), 0);
	/* The rest of the association is untouched. */
	assert_int_equal(fx_rw_check(c->io[0], 1, 21, 4096), 0);
	assert_int_equal(INI_SC_CODE(ini_disconnect(c->admin)),
			 INI_SC(NVME_SCT_CMD_SPECIFIC,
				NVME_SC_DISCONNECT_INVALID_QTYPE));
	assert_int_equal(ini_keep_alive(c->admin), 0);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

/* Losing the admin connection ends the controller and its I/O queues. */
static void test_admin_loss_closes_io(void **state)
{
	struct fx_env *e = *state;
	struct ini_ctrl *c;

	assert_int_equal(fx_ctrl(&e->d, OPEN_NQN, FX_HOST_A, 2, NULL, &c), 0);
	ini_raw_shutdown(c->admin);
	assert_int_equal(ini_wait_closed(c->io[0], 5000), 0);
	assert_int_equal(ini_wait_closed(c->io[1], 5000), 0);
	ini_ctrl_destroy(c);
}

/* Set/Get Features Timestamp: 8 bytes of data each way on the admin queue. */
static void test_timestamp(void **state)
{
	struct fx_env *e = *state;
	const uint64_t t = 1800000000000ull; /* ms since the epoch */
	uint8_t ts[8] = { 0 };
	struct ini_ctrl *c;
	struct ini_req r;
	uint64_t got = 0;

	assert_int_equal(fx_ctrl(&e->d, OPEN_NQN, FX_HOST_A, 0, NULL, &c), 0);
	memcpy(ts, &t, 6);
	ini_req_init(&r, nvme_admin_set_features, 0, ts, 8, INI_DIR_H2C);
	r.sqe.cdw10 = NVME_FEAT_FID_TIMESTAMP;
	assert_int_equal(ini_exec(c->admin, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	fx_sleep_ms(200);
	memset(ts, 0, sizeof(ts));
	ini_req_init(&r, nvme_admin_get_features, 0, ts, 8, INI_DIR_C2H);
	r.sqe.cdw10 = NVME_FEAT_FID_TIMESTAMP;
	assert_int_equal(ini_exec(c->admin, &r), 0);
	assert_int_equal(ini_status(&r.cqe), 0);
	assert_int_equal(r.c2h_bytes, 8);
	memcpy(&got, ts, 6);
	assert_true(got >= t + 190 && got < t + 5000);
	assert_int_equal((ts[6] >> 1) & 0x7, 1); /* origin: set by the host */
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
}

/* bloxd without -c: the embedded subsystem, listeners from -l/-D. */
static void test_default_config(void **state)
{
	struct fx_daemon d;
	struct ini_ctrl_args a;
	struct ini_ctrl *c;
	struct nvme_id_ns *ns = calloc(1, sizeof(*ns));
	uint16_t p4 = fx_free_port(FX_ADDR), pd = fx_free_port(FX_ADDR);
	uint16_t p6 = fx_free_port("::1");
	char l4[32], ld[32], l6[32];
	uint16_t st;

	(void)state;
	assert_non_null(ns);
	assert_true(p4 && pd && p6 && p4 != pd);
	snprintf(l4, sizeof(l4), "127.0.0.1:%u", p4);
	snprintf(ld, sizeof(ld), "127.0.0.1:%u", pd);
	snprintf(l6, sizeof(l6), "[::1]:%u", p6);
	char ddir[] = "/tmp/bloxd-data-XXXXXX";
	assert_non_null(mkdtemp(ddir));
	/* The embedded namespace is file-backed: keep it in a scratch dir. */
	const char *argv[] = { "-l", l4, "-D", ld, "-l", l6, "--log-level", "1",
			       "--data-dir", ddir, NULL };
	assert_int_equal(fx_start_argv(&d, argv, FX_ADDR, p4, pd), 0);

	ini_ctrl_args_init(&a, FX_ADDR, p4, DEFAULT_NQN);
	a.hostnqn = FX_HOST_B;
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	assert_int_equal(ini_identify(c->admin, NVME_IDENTIFY_CNS_NS, 1, 0, ns), 0);
	assert_int_equal(ns->nsze, (1ull << 30) / 4096);
	assert_int_equal(ns->lbaf[ns->flbas & 0xf].ds, 12);
	assert_int_equal(fx_rw_check(c->io[0], 1, 262143, 4096), 0);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);

	ini_ctrl_args_init(&a, "::1", p6, DEFAULT_NQN);
	assert_int_equal(ini_ctrl_connect(&a, &c, &st), 0);
	assert_int_equal(fx_rw_check(c->io[0], 1, 262143, 4096), 0);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);

	struct disc_want want[] = {
		{ DEFAULT_NQN, FX_ADDR, NVMF_ADDR_FAMILY_IP4, p4 },
		{ DEFAULT_NQN, "::1", NVMF_ADDR_FAMILY_IP6, p6 },
	};
	uint64_t n;
	c = disc_ctrl(FX_ADDR, pd, FX_HOST_B);
	struct nvmf_discovery_log *log = read_disc_log(c->admin, &n);
	check_disc_entries(log, n, want, 2, pd);
	free(log);
	assert_int_equal(ini_ctrl_shutdown(c), 0);
	ini_ctrl_destroy(c);
	free(ns);
	assert_int_equal(fx_stop(&d), 0);
	{
		char cmd[128];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", ddir);
		assert_int_equal(system(cmd), 0);
	}
}

int main(void)
{
	static const struct fx_group g = { .subsystems = subsystems };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_unknown_subsys),
		cmocka_unit_test(test_connect_host_access),
		cmocka_unit_test(test_connect_queue_sizes),
		cmocka_unit_test(test_connect_bad_queue_refs),
		cmocka_unit_test(test_commands_out_of_order),
		cmocka_unit_test(test_property_state_machine),
		cmocka_unit_test(test_discovery),
		cmocka_unit_test(test_discovery_only_port),
		cmocka_unit_test(test_kato_expiry),
		cmocka_unit_test(test_kato_kept_alive),
		cmocka_unit_test(test_features),
		cmocka_unit_test(test_disconnect),
		cmocka_unit_test(test_admin_loss_closes_io),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_default_config),
		FX_TEST_DAEMON_STOPS_CLEANLY,
	};
	return FX_MAIN(&g, tests);
}
