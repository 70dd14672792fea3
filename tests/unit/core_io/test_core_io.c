/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for the NVM I/O command set (io.c) through the target core
 * and the RAM backend: Read/Write/Compare/Write Zeroes/DSM/Flush with the
 * data checked, LBA range, MDTS and SGL length errors, the error log, the
 * status a backend's error becomes by opcode and cause, and completion only
 * after the backend's completion queue is drained; faults the core carries
 * out (fault_hold.c) on a virtual clock: a latency fault's completion, a
 * queue stall's command, an ignored Keep Alive.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include <event2/event.h>

#include "fake_nvmf.h"

#define NS1_BLOCKS 8192u /* 4 MiB of 512-byte blocks */
#define NS2_BLOCKS 512u /* 2 MiB of 4096-byte blocks */

struct fixture {
	struct fake_tgt ft;
	struct nvmf_subsys *subsys;
	struct nvmf_ns *ns1, *ns2;
	struct fake_q *aq, *ioq;
	struct fake_cmd *c;
	struct event_base *base; /* a test's own loop, freed after the target */
};

static int setup(void **state)
{
	struct fixture *f = FAKE_FIXTURE_NEW(struct fixture);
	uint16_t cntlid;

	f->subsys = fake_subsys(&f->ft, FAKE_SUBNQN, true);
	f->ns1 = fake_ns(&f->ft, f->subsys, 1, "ram", NS1_BLOCKS * 512ull, 512);
	f->ns2 = fake_ns(&f->ft, f->subsys, 2, "ram", NS2_BLOCKS * 4096ull, 4096);
	f->aq = fake_admin_q(&f->ft, NULL, FAKE_SUBNQN, &cntlid);
	f->ioq = fake_q_new(&f->ft);
	assert_int_equal(fake_io_connect(&f->ft, f->ioq, FAKE_SUBNQN, cntlid, 1,
					 127),
			 0);
	f->c = fake_cmd_new(&f->ft);
	*state = f;
	return 0;
}

static uint32_t bs_of(struct fixture *f, uint32_t nsid)
{
	const struct nvmf_ns *ns = nvmf_ns_find(f->subsys, nsid);

	return ns ? 1u << ns->lba_shift : 512;
}

/* Prepare an LBA command: SLBA in CDW10/11, 0's based NLB in CDW12. */
static void prep_lba(struct fixture *f, uint8_t op, uint32_t nsid,
		     uint64_t slba, uint32_t nlb)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, op, nsid);

	cmd->cdw10 = (uint32_t)slba;
	cmd->cdw11 = (uint32_t)(slba >> 32);
	cmd->cdw12 = (nlb - 1) & 0xffff;
}

static uint16_t do_write(struct fixture *f, uint32_t nsid, uint64_t slba,
			 uint32_t nlb, const void *data)
{
	uint32_t len = nlb * bs_of(f, nsid);

	prep_lba(f, nvme_cmd_write, nsid, slba, nlb);
	fake_data(f->c, len, len <= NVMF_IO_INLINE);
	memcpy(f->c->buf, data, len);
	return fake_exec(&f->ft, f->ioq, f->c);
}

static uint16_t do_read(struct fixture *f, uint32_t nsid, uint64_t slba,
			uint32_t nlb, void *out)
{
	uint32_t len = nlb * bs_of(f, nsid);
	uint16_t st;

	prep_lba(f, nvme_cmd_read, nsid, slba, nlb);
	fake_data(f->c, len, false);
	memset(f->c->buf, 0xcc, len);
	st = fake_exec(&f->ft, f->ioq, f->c);
	if (!st) {
		assert_int_equal(f->c->rsp_len, len);
		memcpy(out, f->c->buf, len);
	}
	return st;
}

static uint16_t do_simple(struct fixture *f, uint8_t op, uint32_t nsid,
			  uint64_t slba, uint32_t nlb)
{
	prep_lba(f, op, nsid, slba, nlb);
	return fake_exec(&f->ft, f->ioq, f->c);
}

static void pattern(uint8_t *p, size_t len, unsigned seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 9));
}

static void assert_zero(const uint8_t *p, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i])
			fail_msg("byte %zu is 0x%02x, want 0", i, p[i]);
}

/* 1. Write then read back, both block sizes, across a 1 MiB chunk edge. */
static void test_write_read(void **state)
{
	struct fixture *f = *state;
	static uint8_t in[NVMF_MAX_XFER], out[NVMF_MAX_XFER];

	pattern(in, sizeof(in), 1);
	assert_int_equal(do_write(f, 1, 100, 8, in), 0);
	assert_int_equal(do_read(f, 1, 100, 8, out), 0);
	assert_memory_equal(out, in, 8 * 512);

	/* 2040..2055 straddles the first MiB; 128 KiB (MDTS) in one go. */
	pattern(in, sizeof(in), 2);
	assert_int_equal(do_write(f, 1, 2040, 256, in), 0);
	assert_int_equal(do_read(f, 1, 2040, 256, out), 0);
	assert_memory_equal(out, in, 256 * 512);
	/* Part of it at an offset reads the matching bytes. */
	assert_int_equal(do_read(f, 1, 2048, 3, out), 0);
	assert_memory_equal(out, in + 8 * 512, 3 * 512);

	pattern(in, sizeof(in), 3);
	assert_int_equal(do_write(f, 2, NS2_BLOCKS - 32, 32, in), 0);
	assert_int_equal(do_read(f, 2, NS2_BLOCKS - 32, 32, out), 0);
	assert_memory_equal(out, in, 32 * 4096);
	/* Namespaces are separate devices. */
	assert_int_equal(do_read(f, 1, NS1_BLOCKS - 1, 1, out), 0);
	assert_zero(out, 512);

	assert_int_equal(f->ns1->stats.write_cmds, 2);
	assert_int_equal(f->ns1->stats.write_bytes, (8 + 256) * 512);
	assert_int_equal(f->ns1->stats.read_cmds, 4);
	assert_int_equal(f->ns2->stats.read_bytes, 32 * 4096);
	assert_int_equal(f->ns1->inflight, 0);
}

/* 2. Completion comes from the backend's cq, not from inside execute. */
static void test_completion_deferred(void **state)
{
	struct fixture *f = *state;

	prep_lba(f, nvme_cmd_read, 1, 0, 1);
	fake_data(f->c, 512, false);
	assert_int_equal(nvmf_req_init(&f->c->req, &f->ioq->sq), 0);
	assert_int_equal(f->c->req.dir, NVMF_DIR_C2H);
	assert_int_equal(f->c->req.transfer_len, 512);
	nvmf_req_execute(&f->c->req);
	assert_int_equal(f->c->done, 0);
	assert_int_equal(f->ns1->inflight, 1);
	blox_io_cq_drain(&f->ft.tgt.io_cq);
	assert_int_equal(f->c->done, 1);
	assert_int_equal(fake_status(f->c), 0);
	assert_int_equal(f->ns1->inflight, 0);
}

/* 3. Compare: equal data succeeds, one differing byte is 0x285. */
static void test_compare(void **state)
{
	struct fixture *f = *state;
	static uint8_t in[8 * 4096];

	pattern(in, sizeof(in), 4);
	assert_int_equal(do_write(f, 2, 10, 8, in), 0);

	prep_lba(f, nvme_cmd_compare, 2, 10, 8);
	fake_data(f->c, 8 * 4096, false);
	memcpy(f->c->buf, in, sizeof(in));
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), 0);

	prep_lba(f, nvme_cmd_compare, 2, 10, 8);
	fake_data(f->c, 8 * 4096, false);
	memcpy(f->c->buf, in, sizeof(in));
	f->c->buf[5 * 4096 + 17] ^= 0x10;
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_COMPARE_FAILED);

	/* Unwritten blocks compare equal to zeroes only. */
	prep_lba(f, nvme_cmd_compare, 1, 5000, 2);
	fake_data(f->c, 1024, true);
	memset(f->c->buf, 0, 1024);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), 0);
	prep_lba(f, nvme_cmd_compare, 1, 5000, 2);
	fake_data(f->c, 1024, true);
	memset(f->c->buf, 0, 1024);
	f->c->buf[1023] = 1;
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_COMPARE_FAILED);
	/* Compare does not change the data. */
	{
		static uint8_t out[8 * 4096];

		assert_int_equal(do_read(f, 2, 10, 8, out), 0);
		assert_memory_equal(out, in, sizeof(in));
	}
}

/* 4. Write Zeroes: the range reads zero, its neighbours are intact. */
static void test_write_zeroes(void **state)
{
	struct fixture *f = *state;
	static uint8_t in[64 * 512], out[64 * 512];

	pattern(in, sizeof(in), 5);
	assert_int_equal(do_write(f, 1, 2020, 64, in), 0);
	assert_int_equal(do_simple(f, nvme_cmd_write_zeroes, 1, 2030, 30), 0);
	assert_int_equal(do_read(f, 1, 2020, 64, out), 0);
	assert_memory_equal(out, in, 10 * 512);
	assert_zero(out + 10 * 512, 30 * 512);
	assert_memory_equal(out + 40 * 512, in + 40 * 512, 24 * 512);

	/* Not limited by MDTS: the whole 4 MiB (8192 blocks) at once... */
	assert_int_equal(do_simple(f, nvme_cmd_write_zeroes, 1, 0, 8192), 0);
	assert_int_equal(do_read(f, 1, 2020, 64, out), 0);
	assert_zero(out, sizeof(out));
	/* ...but by the namespace size. */
	assert_int_equal(do_simple(f, nvme_cmd_write_zeroes, 1, 1, 8192),
			 ST_LBA_RANGE);
	assert_int_equal(do_simple(f, nvme_cmd_write_zeroes, 2, 0, 65536),
			 ST_LBA_RANGE);
}

/* Build @n DSM ranges in c->buf. */
static void put_ranges(struct fixture *f, const struct nvme_dsm_range *r,
		       unsigned n, bool deallocate, uint32_t data_len)
{
	struct nvme_sqe *cmd = fake_prep(&f->ft, f->c, nvme_cmd_dsm, 1);

	cmd->cdw10 = n - 1;
	cmd->cdw11 = deallocate ? 1u << 2 : 0;
	memset(f->c->buf, 0, data_len);
	memcpy(f->c->buf, r, n * sizeof(*r));
	fake_data(f->c, data_len, true);
}

/* 5. DSM deallocate: each range reads zero, the rest is intact. */
static void test_dsm_deallocate(void **state)
{
	struct fixture *f = *state;
	static uint8_t in[256 * 512], out[256 * 512];
	const struct nvme_dsm_range r[] = {
		{ .cattr = 0, .nlb = 16, .slba = 3000 },
		{ .cattr = 0, .nlb = 0, .slba = 3100 }, /* empty: skipped */
		{ .cattr = 0, .nlb = 8, .slba = 3200 },
	};

	pattern(in, sizeof(in), 6);
	assert_int_equal(do_write(f, 1, 3000, 256, in), 0);

	/* Without AD it is only a hint: nothing changes. */
	put_ranges(f, r, 3, false, 3 * sizeof(r[0]));
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), 0);
	assert_int_equal(do_read(f, 1, 3000, 256, out), 0);
	assert_memory_equal(out, in, sizeof(in));

	/* A whole page holding three ranges, as Linux sends it. */
	put_ranges(f, r, 3, true, 4096);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), 0);
	assert_int_equal(do_read(f, 1, 3000, 256, out), 0);
	assert_zero(out, 16 * 512);
	assert_memory_equal(out + 16 * 512, in + 16 * 512, (200 - 16) * 512);
	assert_zero(out + 200 * 512, 8 * 512);
	assert_memory_equal(out + 208 * 512, in + 208 * 512, 48 * 512);
}

/* 6. DSM errors: a range past the end, data shorter than the ranges. */
static void test_dsm_errors(void **state)
{
	struct fixture *f = *state;
	static uint8_t in[8 * 512], out[8 * 512];
	const struct nvme_dsm_range r[] = {
		{ .nlb = 8, .slba = 0 },
		{ .nlb = 2, .slba = NS1_BLOCKS - 1 },
	};

	pattern(in, sizeof(in), 7);
	assert_int_equal(do_write(f, 1, 0, 8, in), 0);
	put_ranges(f, r, 2, true, 2 * sizeof(r[0]));
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_LBA_RANGE);
	assert_int_equal(do_read(f, 1, 0, 8, out), 0);
	assert_memory_equal(out, in, sizeof(in)); /* checked before any trim */

	put_ranges(f, r, 2, true, sizeof(r[0]));
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_SGL_DATA_LEN);
}

/* 7. Flush: one namespace, all of them (FFFFFFFFh), an unknown one. */
static void test_flush(void **state)
{
	struct fixture *f = *state;

	fake_prep(&f->ft, f->c, nvme_cmd_flush, 1);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), 0);
	fake_prep(&f->ft, f->c, nvme_cmd_flush, 0xffffffff);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), 0);
	assert_int_equal(f->ns1->inflight + f->ns2->inflight, 0);
	fake_prep(&f->ft, f->c, nvme_cmd_flush, 3);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_INVALID_NS);
}

/* 8. LBA Out of Range (0x80) for every LBA command, at the edge. */
static void test_lba_out_of_range(void **state)
{
	struct fixture *f = *state;
	static const uint8_t ops[] = { nvme_cmd_read, nvme_cmd_write,
				       nvme_cmd_compare };
	static const struct {
		uint64_t slba;
		uint32_t nlb;
	} bad[] = { { NS1_BLOCKS, 1 },
		    { NS1_BLOCKS - 1, 2 },
		    { 1ull << 32, 1 },
		    { UINT64_MAX, 1 } };
	static uint8_t buf[1024];

	for (size_t o = 0; o < sizeof(ops); o++) {
		for (size_t i = 0; i < BLOX_ARRAY_SIZE(bad); i++) {
			prep_lba(f, ops[o], 1, bad[i].slba, bad[i].nlb);
			fake_data(f->c, bad[i].nlb * 512, ops[o] != nvme_cmd_read);
			if (fake_exec(&f->ft, f->ioq, f->c) != ST_LBA_RANGE)
				fail_msg("op 0x%02x slba %llu: status 0x%x", ops[o],
					 (unsigned long long)bad[i].slba,
					 fake_status(f->c));
		}
	}
	assert_int_equal(do_read(f, 1, NS1_BLOCKS - 2, 2, buf), 0);
	assert_int_equal(do_simple(f, nvme_cmd_write_zeroes, 1, NS1_BLOCKS, 1),
			 ST_LBA_RANGE);
}

/* 9. MDTS (128 KiB): one block more is Invalid Field. */
static void test_mdts(void **state)
{
	struct fixture *f = *state;

	prep_lba(f, nvme_cmd_read, 1, 0, 257);
	fake_data(f->c, 257 * 512, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_INVALID_FIELD);
	prep_lba(f, nvme_cmd_write, 2, 0, 33);
	fake_data(f->c, 33 * 4096, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_INVALID_FIELD);
	prep_lba(f, nvme_cmd_read, 2, 0, 32);
	fake_data(f->c, 32 * 4096, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), 0);
}

/* 10. SGL length differing from NLB * block size: 0x0f; data in a capsule
 * of a command that takes none: 0x0f.
 */
static void test_sgl_length_mismatch(void **state)
{
	struct fixture *f = *state;

	prep_lba(f, nvme_cmd_write, 1, 0, 1);
	fake_data(f->c, 4096, true);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_SGL_DATA_LEN);
	prep_lba(f, nvme_cmd_read, 1, 0, 8);
	fake_data(f->c, 512, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_SGL_DATA_LEN);
	prep_lba(f, nvme_cmd_read, 2, 0, 1);
	fake_data(f->c, 0, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_SGL_DATA_LEN);
	/* Read data cannot come in the capsule. */
	prep_lba(f, nvme_cmd_read, 1, 0, 1);
	fake_data(f->c, 512, true);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_SGL_DATA_LEN);
	prep_lba(f, nvme_cmd_write_zeroes, 1, 0, 1);
	fake_data(f->c, 512, true);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_SGL_DATA_LEN);
	assert_int_equal(f->ns1->stats.write_cmds, 0);
}

/* 11. Unknown opcodes and namespaces on an I/O queue. */
static void test_invalid_opcode_and_ns(void **state)
{
	struct fixture *f = *state;
	static const uint8_t ops[] = { 0x03, 0x0c /* verify */, 0x19,
				       0x81, 0xfe };

	for (size_t i = 0; i < sizeof(ops); i++) {
		fake_prep(&f->ft, f->c, ops[i], 1);
		if (fake_exec(&f->ft, f->ioq, f->c) != ST_INVALID_OPCODE)
			fail_msg("opcode 0x%02x: status 0x%x", ops[i],
				 fake_status(f->c));
	}
	prep_lba(f, nvme_cmd_read, 0, 0, 1);
	fake_data(f->c, 512, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_INVALID_NS);
	prep_lba(f, nvme_cmd_read, 3, 0, 1);
	fake_data(f->c, 512, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_INVALID_NS);
	prep_lba(f, nvme_cmd_write, 0xffffffff, 0, 1);
	fake_data(f->c, 512, true);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_INVALID_NS);
	/* Admin opcodes mean nothing on an I/O queue. */
	fake_prep(&f->ft, f->c, nvme_admin_identify, 1)->cdw10 = 1;
	fake_data(f->c, 4096, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_INVALID_OPCODE);
}

/* 12. An I/O error lands in the error log with its queue, cid, LBA. */
static void test_error_log_entry(void **state)
{
	struct fixture *f = *state;
	const struct nvme_error_log_page *e = (const void *)f->c->buf;
	uint16_t cid;

	prep_lba(f, nvme_cmd_read, 1, NS1_BLOCKS + 5, 1);
	fake_data(f->c, 512, false);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_LBA_RANGE);
	cid = f->c->req.cmd.cid;
	assert_int_equal(f->ns1->stats.errors, 1);
	assert_int_equal(f->ioq->sq.errors, 1);

	assert_int_equal(fake_get_log(&f->ft, f->aq, f->c, NVME_LOG_LID_ERROR, 4096,
				      0, 0, false),
			 0);
	assert_int_equal(e[0].error_count, 1);
	assert_int_equal(e[0].sqid, 1);
	assert_int_equal(e[0].cmdid, cid);
	assert_int_equal(e[0].status_field, ST_LBA_RANGE << 1);
	assert_int_equal(e[0].parm_error_location, 40); /* SLBA in CDW10 */
	assert_int_equal(e[0].nsid, 1);
	assert_int_equal(e[0].lba, NS1_BLOCKS + 5);
	assert_int_equal(e[1].error_count, 0);
}

/* A backend whose every command fails with fail_rc (a fake, completed through the cq). */
static int fail_rc;

static void fail_submit(struct blox_bdev *bdev, struct blox_io *io)
{
	io->status = fail_rc;
	blox_io_cq_post(bdev->cq, io);
}

static void fail_destroy(struct blox_bdev *bdev)
{
	free(bdev);
}

static const struct blox_bdev_ops fail_ops = {
	.name = "fail",
	.submit = fail_submit,
	.destroy = fail_destroy,
};

#define ST_CAP_EXCEEDED (ST_DNR | 0x081) /* generic */
#define ST_NS_NOT_READY 0x082 /* generic, retryable */
#define ST_WRITE_FAULT (ST_DNR | 0x280) /* media */
#define ST_READ_ERROR 0x281 /* media, retryable */
#define ST_INTERNAL 0x006

/* The newest entry of the error log (Get Log Page 01h into f->c->buf). */
static struct nvme_error_log_page newest_error(struct fixture *f)
{
	assert_int_equal(fake_get_log(&f->ft, f->aq, f->c, NVME_LOG_LID_ERROR, 4096, 0, 0, false),
			 0);
	return ((const struct nvme_error_log_page *)f->c->buf)[0];
}

/*
 * 13. A backend's error becomes the status its command and cause call for
 * (the NVMe base spec's status codes): media failure of a read or Compare
 * is Unrecovered Read Error (02/81h), of a command that stores data (Write,
 * Write Zeroes, DSM, Flush) Write Fault (02/80h); no space left on the
 * backing store for one of those is Capacity Exceeded (00/81h), not a
 * medium error; a backend shutting down is Namespace Not Ready (00/82h).
 * Each lands in the error log with its status, LBA and namespace.
 */
static void test_backend_error_status(void **state)
{
	struct fixture *f = *state;
	struct blox_bdev *b = calloc(1, sizeof(*b));
	static const struct {
		uint8_t op;
		int rc;
		uint16_t st;
	} cases[] = {
		{ nvme_cmd_read, -EIO, ST_READ_ERROR },
		{ nvme_cmd_compare, -EIO, ST_READ_ERROR },
		{ nvme_cmd_write, -EIO, ST_WRITE_FAULT },
		{ nvme_cmd_write_zeroes, -EIO, ST_WRITE_FAULT },
		{ nvme_cmd_flush, -EIO, ST_WRITE_FAULT },
		{ nvme_cmd_dsm, -EIO, ST_WRITE_FAULT },
		{ nvme_cmd_write, -ENOSPC, ST_CAP_EXCEEDED },
		{ nvme_cmd_write_zeroes, -ENOSPC, ST_CAP_EXCEEDED },
		{ nvme_cmd_flush, -ENOSPC, ST_CAP_EXCEEDED },
		{ nvme_cmd_read, -ESHUTDOWN, ST_NS_NOT_READY },
		{ nvme_cmd_write, -ESHUTDOWN, ST_NS_NOT_READY },
		{ nvme_cmd_read, -ENOMEM, ST_INTERNAL },
		{ nvme_cmd_read, -ERANGE, ST_LBA_RANGE },
	};
	struct nvme_error_log_page e;

	assert_non_null(b);
	b->ops = &fail_ops;
	b->size = 1024 * 512;
	b->block_size = 512;
	b->cq = &f->ft.tgt.io_cq;
	assert_int_equal(nvmf_ns_add(f->subsys, 3, b, NULL, NULL), 0);
	for (size_t i = 0; i < BLOX_ARRAY_SIZE(cases); i++) {
		uint8_t op = cases[i].op;
		uint16_t st;

		fail_rc = cases[i].rc;
		if (op == nvme_cmd_dsm) {
			const struct nvme_dsm_range r = { .nlb = 4, .slba = 40 };

			put_ranges(f, &r, 1, true, sizeof(r));
			f->c->req.cmd.nsid = 3;
		} else if (op == nvme_cmd_flush) {
			fake_prep(&f->ft, f->c, op, 3);
		} else {
			prep_lba(f, op, 3, 100 + i, 2);
			if (op != nvme_cmd_write_zeroes)
				fake_data(f->c, 1024, op != nvme_cmd_read);
		}
		st = fake_exec(&f->ft, f->ioq, f->c);
		if (st != cases[i].st)
			fail_msg("case %zu: opcode 0x%02x, errno %d: status 0x%03x, want 0x%03x", i,
				 op, -cases[i].rc, st, cases[i].st);
		e = newest_error(f);
		assert_int_equal(e.status_field, cases[i].st << 1);
		assert_int_equal(e.nsid, 3);
		assert_int_equal(e.sqid, 1);
		if (op == nvme_cmd_dsm)
			assert_int_equal(e.lba, 40); /* the range that failed */
		else if (op != nvme_cmd_flush)
			assert_int_equal(e.lba, 100 + i);
	}
	/* A Flush of every namespace: the one that failed is named in the log. */
	fail_rc = -ENOSPC;
	fake_prep(&f->ft, f->c, nvme_cmd_flush, 0xffffffff);
	assert_int_equal(fake_exec(&f->ft, f->ioq, f->c), ST_CAP_EXCEEDED);
	e = newest_error(f);
	assert_int_equal(e.nsid, 3);
	assert_int_equal(f->ns1->inflight + f->ns2->inflight, 0);
}

/* 14. After a controller reset (CC.EN 1 -> 0) I/O is refused. */
static void test_io_after_reset(void **state)
{
	struct fixture *f = *state;
	static uint8_t buf[512];

	assert_int_equal(do_read(f, 1, 0, 1, buf), 0);
	assert_int_equal(fake_prop_set(&f->ft, f->aq, NVME_REG_CC, false, 0), 0);
	assert_int_equal(do_read(f, 1, 0, 1, buf), ST_CMD_SEQ);
}

/* A fault of kind @k on the fixture's subsystem (namespace 1 for latency); its id. */
static uint32_t add_fault(struct fixture *f, enum blox_fault_kind k, uint64_t delay_ns,
			  uint64_t until_ns)
{
	struct blox_fault_spec s = { .kind = k, .probability = 1, .nsid = 1,
				     .delay_ns = delay_ns, .until_ns = until_ns,
				     .duration_ns = until_ns ? 1 : 0 };
	uint32_t id;

	snprintf(s.subsys, sizeof(s.subsys), "%s", FAKE_SUBNQN);
	assert_int_equal(blox_fault_add(f->ft.tgt.faults, &s, 0, &id, NULL, 0), 0);
	return id;
}

/* Submit @f->c as the transport does, on @q, the backend's completions drained. */
static void start(struct fixture *f, struct fake_q *q)
{
	assert_int_equal(nvmf_req_init(&f->c->req, &q->sq), 0);
	nvmf_req_execute(&f->c->req);
	blox_io_cq_drain(&f->ft.tgt.io_cq);
}

/*
 * 15. Faults the core carries out, on the virtual clock (only the test
 * moves it; a timer that fires before it got there waits for the rest):
 * a read 5 ms late, counted in the latency; a write held by a queue stall
 * until it ends, another until the stall is cleared; a Keep Alive held by
 * ka-ignore until its queue goes.
 */
static void test_fault_holds(void **state)
{
	struct fixture *f = *state;
	struct event_base *base = event_base_new();
	uint64_t t0 = blox_clock_now(&f->ft.clock), ms = 1000000ull;
	struct nvmf_tgt *tgt = &f->ft.tgt;
	uint32_t id;

	assert_non_null(base);
	tgt->base = base;
	/* Latency: the backend is done, the host is not told before 5 ms. */
	id = add_fault(f, BLOX_FAULT_DELAY, 5 * ms, 0);
	prep_lba(f, nvme_cmd_read, 1, 0, 1);
	fake_data(f->c, 512, false);
	start(f, f->ioq);
	assert_int_equal(f->c->done, 0);
	assert_int_equal(f->ns1->inflight, 0); /* not at the backend any more */
	assert_int_equal(nvmf_holds_of(tgt, id), 1);
	event_base_loop(base, EVLOOP_ONCE); /* the timer, the clock not moved */
	assert_int_equal(f->c->done, 0);
	blox_clock_set(&f->ft.clock, t0 + 5 * ms);
	event_base_loop(base, EVLOOP_ONCE);
	assert_int_equal(f->c->done, 1);
	assert_int_equal(fake_status(f->c), 0);
	assert_true(f->ns1->tm.win.read_ns >= 5 * ms);
	assert_int_equal(nvmf_holds_count(tgt), 0);
	blox_fault_clear(tgt->faults);

	/* A stall until t0 + 10 ms: the write is not executed before. */
	add_fault(f, BLOX_FAULT_QUEUE_STALL, 0, t0 + 10 * ms);
	prep_lba(f, nvme_cmd_write, 1, 0, 1);
	fake_data(f->c, 512, true);
	start(f, f->ioq);
	assert_int_equal(f->c->done, 0);
	assert_int_equal(f->ns1->inflight, 0);
	assert_int_equal(f->ns1->stats.write_cmds, 0);
	blox_clock_set(&f->ft.clock, t0 + 10 * ms);
	event_base_loop(base, EVLOOP_ONCE);
	blox_io_cq_drain(&tgt->io_cq);
	assert_int_equal(f->c->done, 1);
	assert_int_equal(fake_status(f->c), 0);
	assert_int_equal(f->ns1->stats.write_cmds, 1);
	/* Its time over, it holds nothing more. */
	prep_lba(f, nvme_cmd_write, 1, 0, 1);
	fake_data(f->c, 512, true);
	start(f, f->ioq);
	assert_int_equal(f->c->done, 1);
	/* One of a second, cleared: the command runs now. */
	add_fault(f, BLOX_FAULT_QUEUE_STALL, 0, t0 + 1000 * ms);
	prep_lba(f, nvme_cmd_write, 1, 0, 1);
	fake_data(f->c, 512, true);
	start(f, f->ioq);
	assert_int_equal(f->c->done, 0);
	blox_fault_clear(tgt->faults);
	nvmf_faults_cleared(tgt);
	blox_io_cq_drain(&tgt->io_cq);
	assert_int_equal(f->c->done, 1);
	assert_int_equal(f->ns1->stats.write_cmds, 3);

	/* Keep Alive: held; its admin queue going ends it. */
	id = add_fault(f, BLOX_FAULT_KEEPALIVE_DROP, 0, 0);
	fake_prep(&f->ft, f->c, nvme_admin_keep_alive, 0);
	start(f, f->aq);
	assert_int_equal(f->c->done, 0);
	assert_int_equal(nvmf_holds_of(tgt, id), 1);
	nvmf_holds_abort(tgt, &f->aq->sq);
	assert_int_equal(f->c->done, 1);
	assert_int_equal(fake_status(f->c), ST_ABORT_SQ_DELETION);
	assert_int_equal(event_base_loop(base, EVLOOP_NONBLOCK), 1); /* no timer left */
	tgt->base = NULL;
	if (tgt->hold_ev)
		event_free(tgt->hold_ev);
	tgt->hold_ev = NULL;
	event_base_free(base);
}

/*
 * 16. A host-drop fault fires on a read; bloxd stops before its loop comes
 * back to drop the host: the drop waiting on its timer is freed with the
 * target (teardown_base: the target's end, then the loop's; ASan's leak
 * check fails the program if it is not).
 */
static void test_fault_drop_at_stop(void **state)
{
	struct fixture *f = *state;
	struct nvmf_tgt *tgt = &f->ft.tgt;
	struct blox_fault_spec s = { .kind = BLOX_FAULT_HOST_DROP, .probability = 1, .count = 1 };
	uint32_t id;

	f->base = event_base_new();
	assert_non_null(f->base);
	tgt->base = f->base;
	snprintf(s.subsys, sizeof(s.subsys), "%s", FAKE_SUBNQN);
	snprintf(s.host, sizeof(s.host), "%s", FAKE_HOSTNQN);
	assert_int_equal(blox_fault_add(tgt->faults, &s, 0, &id, NULL, 0), 0);
	prep_lba(f, nvme_cmd_read, 1, 0, 1);
	fake_data(f->c, 512, false);
	start(f, f->ioq);
	assert_int_equal(f->c->done, 1);
	assert_int_equal(fake_status(f->c), 0);
	assert_false(TAILQ_EMPTY(&tgt->drops)); /* decided, not carried out yet */
	assert_false(f->ioq->sq.ctrl->dying);
}

static int teardown_base(void **state)
{
	struct fixture *f = *state;
	struct event_base *base = f->base;

	fake_fixture_teardown(state);
	if (base)
		event_base_free(base);
	return 0;
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, fake_fixture_teardown)
	const struct CMUnitTest tests[] = {
		T(test_write_read),
		T(test_completion_deferred),
		T(test_compare),
		T(test_write_zeroes),
		T(test_dsm_deallocate),
		T(test_dsm_errors),
		T(test_flush),
		T(test_lba_out_of_range),
		T(test_mdts),
		T(test_sgl_length_mismatch),
		T(test_invalid_opcode_and_ns),
		T(test_error_log_entry),
		T(test_backend_error_status),
		T(test_io_after_reset),
		T(test_fault_holds),
		cmocka_unit_test_setup_teardown(test_fault_drop_at_stop, setup, teardown_base),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
