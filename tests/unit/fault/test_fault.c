/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for common/blox_fault.h, the fault registry: each refusal of
 * a bad fault, ids (next, given, taken, removed, cleared), target matching
 * (ranges at their edges, dies, queues, ops: each I/O command alone, the
 * admin queue's), a count that spends a
 * fault, a probability drawn from the seed (the same seed fires at the
 * same sites; another seed elsewhere; the rate near p), the start
 * conditions (after N sites, at a queue depth), the delays each
 * distribution draws, and two threads matching while a third lists and
 * adds (the registry's lock; the TSan build runs it too).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "blox_fault.h"

#define SUBSYS "nqn.2026-12.io.blox:t"

static struct blox_fault_spec unc(uint64_t lba, uint64_t nlb)
{
	struct blox_fault_spec s = { .kind = BLOX_FAULT_READ_UNC, .nsid = 1, .lba = lba,
				     .nlb = nlb, .probability = 1 };

	snprintf(s.subsys, sizeof(s.subsys), "%s", SUBSYS);
	return s;
}

static struct blox_fault_site read_at(uint64_t lba, uint64_t nlb)
{
	return (struct blox_fault_site){ .kind = BLOX_FAULT_READ_UNC, .subsys = SUBSYS,
					 .nsid = 1, .lba = lba, .nlb = nlb,
					 .op = BLOX_FAULT_OP_READ, .qd = 1 };
}

static void refusals(void **state)
{
	struct blox_fault_reg *r;
	struct blox_fault_spec s;
	char err[128];

	(void)state;
	assert_int_equal(blox_fault_reg_create(&r), 0);
	s = unc(0, 8);
	s.probability = 0;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "probability"));
	s.probability = 1.5;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s.probability = 0.0 / 0.0;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s = unc(0, 0);
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "range"));
	s = unc(UINT64_MAX - 1, 4);
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s = unc(0, 8);
	s.nsid = 0;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s = unc(0, 8);
	s.subsys[0] = 0;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s = (struct blox_fault_spec){ .kind = BLOX_FAULT_ERASE_FAIL, .probability = 1 };
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "device"));
	s = unc(0, 8);
	s.kind = BLOX_FAULT_DELAY;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s.delay_ns = 1000;
	s.dist = BLOX_FAULT_DIST_UNIFORM;
	s.delay_max_ns = 10;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s.ops = BLOX_FAULT_OP_FABRICS << 1; /* no such op */
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s.ops = BLOX_FAULT_OP_ADMIN | BLOX_FAULT_OP_READ; /* admin goes alone */
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "admin or fabrics alone"));
	s.ops = BLOX_FAULT_OP_FABRICS | BLOX_FAULT_OP_FLUSH; /* so does fabrics */
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "admin or fabrics alone"));
	s.ops = BLOX_FAULT_OP_ADMIN | BLOX_FAULT_OP_FABRICS; /* one of them */
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "admin or fabrics alone"));
	s.ops = BLOX_FAULT_OP_ADMIN; /* with a namespace */
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no namespace"));
	s.ops = BLOX_FAULT_OP_FABRICS;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no namespace"));
	s.dist = BLOX_FAULT_DIST_FIXED;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	s.ops = 0;
	s.delay_ns = BLOX_FAULT_DELAY_MAX_NS + 1; /* absurd */
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "600 s"));
	s = (struct blox_fault_spec){ .kind = BLOX_FAULT_QUEUE_STALL, .probability = 1 };
	snprintf(s.subsys, sizeof(s.subsys), SUBSYS);
	snprintf(s.host, sizeof(s.host), "nqn.h");
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "duration"));
	s.kind = BLOX_FAULT_KINDS;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(blox_fault_count(r), 0);
	assert_int_equal(blox_fault_kind_parse("bogus"), -1);
	assert_int_equal(blox_fault_kind_parse("read-unc"), BLOX_FAULT_READ_UNC);
	assert_string_equal(blox_fault_kind_name(BLOX_FAULT_KEEPALIVE_DROP), "ka-ignore");
	assert_string_equal(blox_fault_kind_name(BLOX_FAULT_DELAY), "latency");
	assert_null(blox_fault_kind_name(BLOX_FAULT_KINDS));
	for (int k = 0; k < BLOX_FAULT_KINDS; k++) /* every kind is named */
		assert_int_equal(blox_fault_kind_parse(blox_fault_kind_name(k)), k);
	assert_int_equal(blox_fault_dist_parse("exponential"), BLOX_FAULT_DIST_EXPONENTIAL);
	blox_fault_reg_destroy(r);
}

static void ids(void **state)
{
	struct blox_fault all[4] = { 0 };
	struct blox_fault_reg *r;
	struct blox_fault_spec s = unc(0, 8);
	uint32_t id;

	(void)state;
	assert_int_equal(blox_fault_reg_create(&r), 0);
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	assert_int_equal(id, 1);
	assert_int_equal(blox_fault_add(r, &s, 7, &id, NULL, 0), 0); /* as a persisted one */
	assert_int_equal(id, 7);
	assert_int_equal(blox_fault_add(r, &s, 7, &id, NULL, 0), -EEXIST);
	assert_int_equal(blox_fault_add(r, &s, 3, &id, NULL, 0), 0);
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	assert_int_equal(id, 8); /* after the highest */
	assert_int_equal(blox_fault_count(r), 4);
	assert_int_equal(blox_fault_list(r, all, 3), 4); /* 3 copied of 4 */
	assert_int_equal(all[0].id, 1); /* in id order */
	assert_int_equal(all[1].id, 3);
	assert_int_equal(all[2].id, 7);
	assert_int_equal(all[3].id, 0); /* untouched */
	assert_int_equal(blox_fault_remove(r, 3), 0);
	assert_int_equal(blox_fault_remove(r, 3), -ENOENT);
	assert_false(blox_fault_get(r, 3, NULL));
	assert_true(blox_fault_get(r, 7, &all[0]));
	assert_int_equal(all[0].id, 7);
	assert_int_equal(blox_fault_clear(r), 3);
	assert_int_equal(blox_fault_count(r), 0);
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	assert_int_equal(id, 9); /* ids are not given twice */
	for (int i = 1; i < BLOX_FAULT_MAX; i++)
		assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), -ENOSPC);
	blox_fault_reg_destroy(r);
	blox_fault_reg_destroy(NULL);
}

static void matching(void **state)
{
	struct blox_fault_reg *r;
	struct blox_fault_spec s = unc(100, 10); /* LBAs 100..109 */
	struct blox_fault_site x;
	struct blox_fault f;
	uint32_t id;

	(void)state;
	assert_int_equal(blox_fault_reg_create(&r), 0);
	assert_false(blox_fault_armed(r, BLOX_FAULT_READ_UNC));
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	assert_true(blox_fault_armed(r, BLOX_FAULT_READ_UNC));
	assert_false(blox_fault_armed(r, BLOX_FAULT_WRITE_FAIL));
	x = read_at(90, 10); /* 90..99: just before */
	assert_false(blox_fault_match(r, &x, NULL));
	x = read_at(110, 8); /* just after */
	assert_false(blox_fault_match(r, &x, NULL));
	x = read_at(90, 11); /* its first LBA */
	assert_true(blox_fault_match(r, &x, NULL));
	x = read_at(109, 1); /* its last */
	assert_true(blox_fault_match(r, &x, NULL));
	x = read_at(0, 1000); /* around it */
	assert_true(blox_fault_match(r, &x, NULL));
	x = read_at(100, 1);
	x.nsid = 2;
	assert_false(blox_fault_match(r, &x, NULL));
	x.nsid = 1;
	x.subsys = "nqn.other";
	assert_false(blox_fault_match(r, &x, NULL));
	x.subsys = NULL; /* not known: no match */
	assert_false(blox_fault_match(r, &x, NULL));
	x = read_at(100, 1);
	x.kind = BLOX_FAULT_WRITE_FAIL;
	assert_false(blox_fault_match(r, &x, NULL));
	assert_true(blox_fault_get(r, 1, &f));
	assert_int_equal(f.fired, 3);
	assert_int_equal(f.seen, 3);

	/* Dies: device and die. */
	s = (struct blox_fault_spec){ .kind = BLOX_FAULT_ERASE_FAIL, .die = 2, .count = 2,
				      .probability = 1 };
	snprintf(s.device, sizeof(s.device), "d0");
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	x = (struct blox_fault_site){ .kind = BLOX_FAULT_ERASE_FAIL, .device = "d0", .die = 1 };
	assert_false(blox_fault_match(r, &x, NULL));
	x.die = 2;
	x.device = "d1";
	assert_false(blox_fault_match(r, &x, NULL));
	x.device = "d0";
	/* A count of 2: two erases fail, the third does not; spent, still listed. */
	assert_true(blox_fault_match(r, &x, NULL));
	assert_true(blox_fault_match(r, &x, NULL));
	assert_false(blox_fault_match(r, &x, NULL));
	assert_false(blox_fault_armed(r, BLOX_FAULT_ERASE_FAIL));
	assert_true(blox_fault_get(r, 2, &f));
	assert_int_equal(f.fired, 2);
	assert_int_equal(f.seen, 2); /* spent, it looks no more */

	/* A delay of writes only; any subsystem's queue 3 stalls. */
	s = unc(0, 1);
	s.kind = BLOX_FAULT_DELAY;
	s.ops = BLOX_FAULT_OP_WRITE;
	s.delay_ns = 5;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	x = read_at(5000, 1);
	x.kind = BLOX_FAULT_DELAY;
	assert_false(blox_fault_match(r, &x, NULL));
	x.op = BLOX_FAULT_OP_WRITE;
	assert_true(blox_fault_match(r, &x, NULL)); /* a delay has no range */
	x.op = BLOX_FAULT_OP_FLUSH;
	assert_false(blox_fault_match(r, &x, NULL)); /* writes only */
	s = (struct blox_fault_spec){ .kind = BLOX_FAULT_QUEUE_STALL, .qid = 3,
				      .duration_ns = 1, .probability = 1 };
	snprintf(s.subsys, sizeof(s.subsys), SUBSYS);
	snprintf(s.host, sizeof(s.host), "nqn.h");
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	x = (struct blox_fault_site){ .kind = BLOX_FAULT_QUEUE_STALL, .subsys = SUBSYS,
				      .host = "nqn.h", .qid = 2 };
	assert_false(blox_fault_match(r, &x, NULL));
	x.qid = 3;
	assert_true(blox_fault_match(r, &x, NULL));
	x.host = "nqn.g";
	assert_false(blox_fault_match(r, &x, NULL));
	/* A stall of every host's every I/O queue, over at time 1000. */
	s = (struct blox_fault_spec){ .kind = BLOX_FAULT_QUEUE_STALL, .duration_ns = 1000,
				      .until_ns = 1000, .probability = 1 };
	snprintf(s.subsys, sizeof(s.subsys), SUBSYS);
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	x = (struct blox_fault_site){ .kind = BLOX_FAULT_QUEUE_STALL, .subsys = SUBSYS,
				      .host = "nqn.g", .qid = 7, .now = 999 };
	assert_true(blox_fault_match(r, &x, &f));
	assert_int_equal(f.id, id);
	x.now = 1000;
	assert_false(blox_fault_match(r, &x, NULL)); /* its time is over */
	assert_true(blox_fault_get(r, id, &f));
	assert_int_equal(f.seen, 1);
	assert_true(blox_fault_spent(&f, 1000));
	assert_false(blox_fault_spent(&f, 0)); /* no time: only its count */
	/* Keep-alives of any host of a subsystem. */
	s = (struct blox_fault_spec){ .kind = BLOX_FAULT_KEEPALIVE_DROP, .probability = 1 };
	snprintf(s.subsys, sizeof(s.subsys), SUBSYS);
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	x = (struct blox_fault_site){ .kind = BLOX_FAULT_KEEPALIVE_DROP, .subsys = SUBSYS,
				      .host = "nqn.any" };
	assert_true(blox_fault_match(r, &x, NULL));
	x.subsys = "nqn.other";
	assert_false(blox_fault_match(r, &x, NULL));
	blox_fault_reg_destroy(r);
}

/* Which of @n reads of LBA 0 a fault of probability @p and seed @seed fails, as bits. */
static void fired_at(double p, uint64_t seed, uint32_t n, uint8_t *bits, uint32_t *fired)
{
	struct blox_fault_reg *r;
	struct blox_fault_spec s = unc(0, 1);
	struct blox_fault_spec other = unc(0, 1);
	struct blox_fault_site x = read_at(0, 1);
	struct blox_fault f5;

	s.probability = p;
	s.seed = seed;
	/* Another fault (after it in id order) with its own draws changes nothing of its. */
	other.probability = 0.5;
	other.seed = seed ^ 1;
	other.nsid = 1;
	assert_int_equal(blox_fault_reg_create(&r), 0);
	assert_int_equal(blox_fault_add(r, &s, 5, NULL, NULL, 0), 0);
	*fired = 0;
	memset(bits, 0, (n + 7) / 8);
	for (uint32_t i = 0; i < n; i++) {
		if (i == n / 2) /* half-way, another fault shows up */
			assert_int_equal(blox_fault_add(r, &other, 9, NULL, NULL, 0), 0);
		struct blox_fault f;

		if (blox_fault_match(r, &x, &f) && f.id == 5) {
			bits[i / 8] |= (uint8_t)(1u << (i % 8));
			(*fired)++;
		}
	}
	/* The fault given by id 5 counted only its own firings. */
	assert_true(blox_fault_get(r, 5, &f5));
	assert_int_equal(f5.seen, n);
	blox_fault_reg_destroy(r);
}

static void probability_seeded(void **state)
{
	enum { N = 20000 };
	uint8_t a[N / 8], b[N / 8];
	uint32_t fa, fb;

	(void)state;
	fired_at(0.1, 42, N, a, &fa);
	fired_at(0.1, 42, N, b, &fb);
	assert_int_equal(fa, fb);
	assert_memory_equal(a, b, sizeof(a)); /* the same sites fail */
	/* About 10%: 2000 expected, sd 42. */
	assert_in_range(fa, 1700, 2300);
	fired_at(0.1, 43, N, b, &fb);
	assert_memory_not_equal(a, b, sizeof(a));
	assert_in_range(fb, 1700, 2300);
	fired_at(1, 43, N, b, &fb);
	assert_int_equal(fb, N);
}

static void start_conditions(void **state)
{
	struct blox_fault_reg *r;
	struct blox_fault_spec s = unc(0, 10);
	struct blox_fault_site x = read_at(0, 1);
	struct blox_fault f;

	(void)state;
	assert_int_equal(blox_fault_reg_create(&r), 0);
	s.after = 3;
	s.count = 1;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	/* Sites outside its range do not count. */
	x = read_at(500, 1);
	for (int i = 0; i < 10; i++)
		assert_false(blox_fault_match(r, &x, NULL));
	x = read_at(0, 1);
	for (int i = 0; i < 3; i++)
		assert_false(blox_fault_match(r, &x, NULL));
	assert_true(blox_fault_match(r, &x, NULL)); /* the fourth */
	assert_false(blox_fault_match(r, &x, NULL)); /* count 1: spent */
	blox_fault_clear(r);

	s = unc(0, 10);
	s.min_qd = 4;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	for (uint32_t qd = 1; qd < 4; qd++) {
		x.qd = qd;
		assert_false(blox_fault_match(r, &x, NULL));
	}
	x.qd = 4;
	assert_true(blox_fault_match(r, &x, NULL));
	x.qd = 64;
	assert_true(blox_fault_match(r, &x, NULL));
	x.qd = 1;
	assert_false(blox_fault_match(r, &x, NULL));
	assert_int_equal(blox_fault_list(r, &f, 1), 1);
	assert_int_equal(f.fired, 2);
	assert_int_equal(f.seen, 6);
	blox_fault_reg_destroy(r);
}

static void delays(void **state)
{
	struct blox_fault_reg *r;
	struct blox_fault_spec s = unc(0, 1);
	double sum = 0;
	uint64_t lo = UINT64_MAX, hi = 0, first[8];
	uint32_t id;
	enum { N = 20000 };

	(void)state;
	assert_int_equal(blox_fault_reg_create(&r), 0);
	s.kind = BLOX_FAULT_DELAY;
	s.delay_ns = 1000;
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	assert_int_equal(blox_fault_delay_ns(r, id), 1000);
	assert_int_equal(blox_fault_delay_ns(r, 99), 0);

	s.dist = BLOX_FAULT_DIST_UNIFORM;
	s.delay_max_ns = 2000;
	s.seed = 7;
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	for (int i = 0; i < N; i++) {
		uint64_t d = blox_fault_delay_ns(r, id);

		if (i < 8)
			first[i] = d;
		lo = d < lo ? d : lo;
		hi = d > hi ? d : hi;
		sum += (double)d;
	}
	assert_true(lo >= 1000 && lo < 1010);
	assert_true(hi <= 2000 && hi > 1990);
	assert_true(sum / N > 1480 && sum / N < 1520);
	/* The same seed draws the same delays. */
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(blox_fault_delay_ns(r, id), first[i]);

	s.dist = BLOX_FAULT_DIST_EXPONENTIAL;
	s.delay_max_ns = 0;
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	sum = 0;
	hi = 0;
	for (int i = 0; i < N; i++) {
		uint64_t d = blox_fault_delay_ns(r, id);

		sum += (double)d;
		hi = d > hi ? d : hi;
	}
	assert_true(sum / N > 950 && sum / N < 1050); /* mean 1000 */
	assert_true(hi > 5000); /* a tail */
	s.delay_max_ns = 3000; /* capped */
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	for (int i = 0; i < N; i++)
		assert_true(blox_fault_delay_ns(r, id) <= 3000);
	blox_fault_reg_destroy(r);
}

/*
 * The ops of a latency fault: Write Zeroes, Dataset Management and Compare
 * each alone, the others (15, as "all" was kept before) matching all
 * three; admin (no namespace) a subsystem's controllers, a host's or
 * every host's, never an I/O command; fabrics the same controllers'
 * Fabrics commands, not their admin commands (and admin not theirs).
 */
static void op_masks(void **state)
{
	static const unsigned sites[] = {
		BLOX_FAULT_OP_READ,
		BLOX_FAULT_OP_WRITE,
		BLOX_FAULT_OP_FLUSH,
		BLOX_FAULT_OP_OTHER, /* a zone or reservation command */
		BLOX_FAULT_OP_OTHER | BLOX_FAULT_OP_WRITE_ZEROES,
		BLOX_FAULT_OP_OTHER | BLOX_FAULT_OP_DSM,
		BLOX_FAULT_OP_OTHER | BLOX_FAULT_OP_COMPARE,
	};
	static const struct {
		unsigned ops;
		const char *hits; /* per site above: 1 fires */
	} faults[] = {
		{ BLOX_FAULT_OP_WRITE_ZEROES, "0000100" },
		{ BLOX_FAULT_OP_DSM, "0000010" },
		{ BLOX_FAULT_OP_COMPARE, "0000001" },
		{ 15, "1111111" },
		{ BLOX_FAULT_OP_ALL, "1111111" },
		{ 0, "1100000" },
	};
	struct blox_fault_reg *r;
	struct blox_fault_spec s;
	struct blox_fault_site x;
	uint32_t id;

	(void)state;
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		assert_int_equal(blox_fault_reg_create(&r), 0);
		s = unc(0, 1);
		s.kind = BLOX_FAULT_DELAY;
		s.ops = faults[i].ops;
		s.delay_ns = 5;
		assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
		for (size_t k = 0; k < sizeof(sites) / sizeof(sites[0]); k++) {
			x = read_at(0, 1);
			x.kind = BLOX_FAULT_DELAY;
			x.op = sites[k];
			assert_int_equal(blox_fault_match(r, &x, NULL), faults[i].hits[k] == '1');
		}
		/* No I/O fault matches an admin command (nsid 0). */
		x = read_at(0, 1);
		x.kind = BLOX_FAULT_DELAY;
		x.nsid = 0;
		x.op = BLOX_FAULT_OP_ADMIN;
		x.host = "nqn.h";
		assert_false(blox_fault_match(r, &x, NULL));
		blox_fault_reg_destroy(r);
	}
	/* Admin, host nqn.h's: its admin commands, not another host's, not its I/O. */
	assert_int_equal(blox_fault_reg_create(&r), 0);
	s = (struct blox_fault_spec){ .kind = BLOX_FAULT_DELAY, .ops = BLOX_FAULT_OP_ADMIN,
				      .delay_ns = 5, .probability = 1 };
	snprintf(s.subsys, sizeof(s.subsys), SUBSYS);
	snprintf(s.host, sizeof(s.host), "nqn.h");
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	x = (struct blox_fault_site){ .kind = BLOX_FAULT_DELAY, .subsys = SUBSYS, .host = "nqn.h",
				      .op = BLOX_FAULT_OP_ADMIN, .qd = 1 };
	assert_true(blox_fault_match(r, &x, NULL));
	x.host = "nqn.g";
	assert_false(blox_fault_match(r, &x, NULL));
	x.host = "nqn.h";
	x.subsys = "nqn.2026-12.io.blox:u";
	assert_false(blox_fault_match(r, &x, NULL));
	x.subsys = SUBSYS;
	x.nsid = 1;
	x.op = BLOX_FAULT_OP_ALL;
	assert_false(blox_fault_match(r, &x, NULL));
	assert_int_equal(blox_fault_remove(r, id), 0);
	/* Every host's. */
	s.host[0] = 0;
	assert_int_equal(blox_fault_add(r, &s, 0, NULL, NULL, 0), 0);
	x = (struct blox_fault_site){ .kind = BLOX_FAULT_DELAY, .subsys = SUBSYS, .host = "nqn.g",
				      .op = BLOX_FAULT_OP_ADMIN, .qd = 1 };
	assert_true(blox_fault_match(r, &x, NULL));
	/* ... but not their Fabrics commands. */
	x.op = BLOX_FAULT_OP_FABRICS;
	assert_false(blox_fault_match(r, &x, NULL));
	blox_fault_reg_destroy(r);

	/*
	 * Fabrics, host nqn.h's: its Fabrics commands (a Connect's site names
	 * the host and subsystem of its data), not its admin commands, not
	 * another host's, not another subsystem's, not I/O.
	 */
	assert_int_equal(blox_fault_reg_create(&r), 0);
	s.ops = BLOX_FAULT_OP_FABRICS;
	snprintf(s.host, sizeof(s.host), "nqn.h");
	assert_int_equal(blox_fault_add(r, &s, 0, &id, NULL, 0), 0);
	x = (struct blox_fault_site){ .kind = BLOX_FAULT_DELAY, .subsys = SUBSYS, .host = "nqn.h",
				      .op = BLOX_FAULT_OP_FABRICS, .qd = 1 };
	assert_true(blox_fault_match(r, &x, NULL));
	x.op = BLOX_FAULT_OP_ADMIN;
	assert_false(blox_fault_match(r, &x, NULL));
	x.op = BLOX_FAULT_OP_FABRICS;
	x.host = "nqn.g";
	assert_false(blox_fault_match(r, &x, NULL));
	x.host = NULL; /* a site that does not know its host */
	assert_false(blox_fault_match(r, &x, NULL));
	x.host = "nqn.h";
	x.subsys = "nqn.2026-12.io.blox:u";
	assert_false(blox_fault_match(r, &x, NULL));
	x.subsys = SUBSYS;
	x.nsid = 1;
	x.op = BLOX_FAULT_OP_ALL;
	assert_false(blox_fault_match(r, &x, NULL));
	blox_fault_reg_destroy(r);
}

/* Two threads match the same fault while a third lists and adds: no site lost, no double firing. */
struct race {
	struct blox_fault_reg *r;
	uint32_t fired;
};

static void *race_match(void *arg)
{
	struct race *x = arg;
	struct blox_fault_site site = read_at(0, 1);

	for (int i = 0; i < 50000; i++)
		x->fired += blox_fault_match(x->r, &site, NULL);
	return NULL;
}

static void *race_list(void *arg)
{
	struct race *x = arg;
	struct blox_fault all[8];
	struct blox_fault_spec s = unc(5000, 1);

	for (int i = 0; i < 2000; i++) {
		blox_fault_list(x->r, all, 8);
		if (i % 500 == 0)
			assert_int_equal(blox_fault_add(x->r, &s, 0, NULL, NULL, 0), 0);
	}
	return NULL;
}

static void threads(void **state)
{
	struct blox_fault_spec s = unc(0, 1);
	struct race a = { 0 }, b = { 0 };
	struct blox_fault f;
	pthread_t t[3];

	(void)state;
	assert_int_equal(blox_fault_reg_create(&a.r), 0);
	b.r = a.r;
	s.count = 30000; /* of 100000 sites */
	assert_int_equal(blox_fault_add(a.r, &s, 0, NULL, NULL, 0), 0);
	assert_int_equal(pthread_create(&t[0], NULL, race_match, &a), 0);
	assert_int_equal(pthread_create(&t[1], NULL, race_match, &b), 0);
	assert_int_equal(pthread_create(&t[2], NULL, race_list, &a), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	assert_true(blox_fault_get(a.r, 1, &f));
	assert_int_equal(f.fired, 30000);
	assert_int_equal(a.fired + b.fired, 30000);
	assert_int_equal(f.seen, 30000); /* spent: it looks no more */
	assert_false(blox_fault_armed(a.r, BLOX_FAULT_READ_UNC) &&
		     blox_fault_count(a.r) == 1); /* the others were added */
	assert_int_equal(blox_fault_count(a.r), 5);
	blox_fault_reg_destroy(a.r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refusals),		 cmocka_unit_test(ids),
		cmocka_unit_test(matching),		 cmocka_unit_test(probability_seeded),
		cmocka_unit_test(start_conditions), cmocka_unit_test(delays),
		cmocka_unit_test(op_masks),		 cmocka_unit_test(threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
