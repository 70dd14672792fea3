/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests of how the FTL reports its store's failures to host I/O: a
 * program that fails (a full disk under the file store: -ENOSPC; a media
 * error: -EIO) stops the FTL's writes, and the writes waiting for it, the
 * writes after it and Flush complete with that program's errno, not a
 * blanket -EIO, so the NVMe core can tell the host "no space" from "medium
 * error"; reads of what is on flash go on. The store is the fixture's RAM
 * store with its program call wrapped.
 */
#include "ftl_fixture.h"

/* The store's own ops, and a copy whose program fails with program_rc (0: passes). */
static const struct nand_store_ops *real_ops;
static struct nand_store_ops faulty_ops;
static int program_rc;

static int faulty_program(struct nand_store *s, uint64_t page, const void *data,
			  const void *oob)
{
	if (program_rc)
		return program_rc;
	return real_ops->program(s, page, data, oob);
}

static void make_faulty(struct fx *x, int rc)
{
	real_ops = x->store->ops;
	faulty_ops = *real_ops;
	faulty_ops.program = faulty_program;
	x->store->ops = &faulty_ops;
	program_rc = rc;
}

static bool fatal(const struct fx *x)
{
	return fx_activity(x).fatal;
}

/* A program that fails with @rc: the write waiting for it, later writes and Flush get @rc. */
static void check_program_failure(int rc)
{
	struct fx_geo g;
	struct fx *x;

	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	fx_write_fua(x, 0, 8);
	make_faulty(x, rc);
	fx_prepare(x, 8, 8);
	/* FUA: it waits for its pages to be programmed. */
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 8, 8, x->wbuf, true), rc);
	assert_true(fatal(x));
	/* Refused from now on, with the same cause, cached or not. */
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 16, 1, x->wbuf, false), rc);
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 17, 1, x->wbuf, true), rc);
	assert_int_equal(fx_io(x, FTL_IO_FLUSH, 0, 0, NULL, false), rc);
	/* Even once the store would take pages again: the lost page is lost. */
	program_rc = 0;
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 18, 1, x->wbuf, false), rc);
	/* What reached the flash before reads back. */
	fx_verify(x, 0, 8);
	x->store->ops = real_ops;
	fx_free(x);
}

/* 1. The store cannot grow (a full disk): -ENOSPC, not -EIO. */
static void test_program_enospc(void **state)
{
	(void)state;
	check_program_failure(-ENOSPC);
}

/* 2. A media error stays -EIO. */
static void test_program_eio(void **state)
{
	(void)state;
	check_program_failure(-EIO);
}

/* 3. A write the volatile cache took before the failure: the next write and Flush tell. */
static void test_cached_write_then_failure(void **state)
{
	struct fx_geo g;
	struct fx *x;

	(void)state;
	fx_geo_small(&g);
	x = fx_new(&g, NULL, false);
	make_faulty(x, -ENOSPC);
	fx_prepare(x, 0, FX_MAX_IO);
	/* Buffered: done before any program. */
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 0, FX_MAX_IO, x->wbuf, false), 0);
	assert_int_equal(fx_io(x, FTL_IO_FLUSH, 0, 0, NULL, false), -ENOSPC);
	assert_int_equal(fx_io(x, FTL_IO_WRITE, 100, 1, x->wbuf, false), -ENOSPC);
	x->store->ops = real_ops;
	fx_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_program_enospc),
		FX_TEST(test_program_eio),
		FX_TEST(test_cached_write_then_failure),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
