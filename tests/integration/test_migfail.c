/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A die migration on failing flash, through bloxctl and a host over
 * loopback (docs/FAULTS.md, "Die migrations on failing flash"): a chip
 * vSSD with data moves to another die of its device while a program and an
 * erase fail there and an erase fails on the die it leaves (fault inject
 * program-fail, erase-fail).
 * The failed blocks are grown bad blocks (counted by the device and the
 * namespace), each takes a spare of its plane on the new die, the
 * migration ends done, and every LBA reads what was last written, before
 * and after a restart of bloxd. Then a move to a die where every program
 * fails: the vSSD's data goes back where it was, the job ends failed with
 * its error in migrate status (text and --json), every LBA readable.
 */
#include "faults_common.h"

#define SUBNQN "nqn.2026-12.io.blox:migfail"

static const char *const subsystems =
	"[{\"nqn\": \"" SUBNQN "\", \"allow_any_host\": true, \"namespaces\": ["
	"{\"nsid\": 1, \"backend\": \"ram\", \"size\": \"16M\"}]}]";

static int fixture_setup(void *arg)
{
	return faults_fx_setup(arg, SUBNQN);
}

/* Member @key (a string) of migration @id in migrate status --json, into @out. */
static void mig_str(struct faults_fx *f, uint32_t id, const char *key, char *out, size_t len)
{
	json_object *root, *arr, *m, *v;

	assert_int_equal(ctl(f, "migrate status %u --json", id), 0);
	root = json_tokener_parse(f->out);
	assert_non_null(root);
	assert_true(json_object_object_get_ex(root, "migrations", &arr));
	m = json_object_array_get_idx(arr, 0);
	assert_non_null(m);
	snprintf(out, len, "%s",
		 json_object_object_get_ex(m, key, &v) ? json_object_get_string(v) : "");
	json_object_put(root);
}

static void test_migrate_on_failing_flash(void **state)
{
	struct faults_fx *f = *state;
	uint32_t n = 1024; /* LBAs of 4 KiB: the 4 MiB namespace */
	uint64_t grown, remapped0, pfail0;
	unsigned id, src, dst;
	char s[128];

	assert_int_equal(ctl(f, "device create mflash --channels 1 --dies-per-channel 4 --planes 2 "
				"--pages-per-block 48 --blocks-per-plane 64"),
			 0);
	assert_int_equal(ctl(f, "ns create " SUBNQN " --nsid 4 --size 4M --device mflash "
				"--isolation chip:1 --op-percent 30"),
			 0);
	faults_write_round(f, 4, n, 1);
	faults_write_round(f, 4, n / 2, 2); /* superblocks with stale data too */
	src = fx_ns_die(&f->fx.d, SUBNQN, 4);
	dst = (src + 1) % 4;
	remapped0 = ns_stat(f, 4, "ftl", "remapped_blocks");
	pfail0 = ns_stat(f, 4, "ftl", "program_failures");
	assert_int_equal(ns_stat(f, 4, "nand", "grown_bad_blocks"), 0);

	/*
	 * On the new die its 101st program fails, in the middle of a data
	 * superblock's copy (a single failure: the other plane's block then
	 * holds pages of the copy to drop), and its first erase (that drop's);
	 * on the die left its first erase (of what a moved superblock left).
	 */
	assert_int_equal(ctl(f, "fault inject program-fail --device mflash --die %u --count 1 "
				"--after 100", dst),
			 0);
	assert_int_equal(ctl(f, "fault inject erase-fail --device mflash --die %u --count 1", dst),
			 0);
	assert_int_equal(ctl(f, "fault inject erase-fail --device mflash --die %u --count 1", src),
			 0);
	id = fx_mig_start(&f->fx.d, SUBNQN, 4, (snprintf(s, sizeof(s), "--to-chips %u", dst), s));
	fx_mig_wait(&f->fx.d, id, "done", 60);

	assert_int_equal(fx_ns_die(&f->fx.d, SUBNQN, 4), dst);
	grown = ns_stat(f, 4, "nand", "grown_bad_blocks");
	print_message("die %u to die %u: %lu grown bad blocks, %lu program failures, %lu remapped "
		      "grown (FTL)\n",
		      src, dst, (unsigned long)grown,
		      (unsigned long)(ns_stat(f, 4, "ftl", "program_failures") - pfail0),
		      (unsigned long)ns_stat(f, 4, "ftl", "remapped_grown"));
	for (uint32_t i = 1; i <= 3; i++)
		assert_int_equal(fault_num(f, i, "fired"), 1);
	assert_int_equal(grown, 3);
	assert_int_equal(ns_stat(f, 4, "ftl", "program_failures") - pfail0, 1);
	assert_int_equal(ns_stat(f, 4, "ftl", "remapped_grown"), 3);
	/* The new die's two stay: the die left keeps no remap of the vSSD. */
	assert_int_equal(ns_stat(f, 4, "ftl", "remapped_blocks"), remapped0 + 2);
	assert_false(ns_stat(f, 4, "ftl", "read_only"));
	faults_verify(f, 4, n / 2, 2);
	assert_int_equal(ctl(f, "migrate status %u", id), 0);
	assert_non_null(strstr(f->out, "done"));
	assert_int_equal(ctl(f, "fault clear --all"), 0);

	/* A restart finds the new die's remap in the store, and the data. */
	faults_fx_teardown(f);
	fx_restart(&f->fx, false);
	assert_int_equal(faults_fx_setup(f, SUBNQN), 0);
	assert_int_equal(ns_stat(f, 4, "ftl", "remapped_blocks"), remapped0 + 2);
	faults_verify(f, 4, n / 2, 2);
	faults_write_round(f, 4, n, 3);
	faults_verify(f, 4, n, 3);

	/* Every program fails on the next die: no good block there, the data stays. */
	src = dst;
	dst = (src + 1) % 4;
	assert_int_equal(ctl(f, "fault inject program-fail --device mflash --die %u", dst), 0);
	id = fx_mig_start(&f->fx.d, SUBNQN, 4, (snprintf(s, sizeof(s), "--to-chips %u", dst), s));
	fx_mig_wait(&f->fx.d, id, "failed", 60);
	assert_int_equal(fx_ns_die(&f->fx.d, SUBNQN, 4), src);
	mig_str(f, id, "error", s, sizeof(s));
	print_message("die %u to die %u, every program failing: failed, \"%s\"\n", src, dst, s);
	assert_non_null(strstr(s, "No space left"));
	assert_int_equal(ctl(f, "migrate status %u", id), 0);
	assert_non_null(strstr(f->out, "failed"));
	assert_non_null(strstr(f->out, "No space left"));
	assert_int_equal(ctl(f, "fault clear --all"), 0);
	faults_verify(f, 4, n, 3);
	faults_write_round(f, 4, n, 4);
	faults_verify(f, 4, n, 4);
}

int main(void)
{
	static const struct fx_group g = FAULTS_GROUP(subsystems, fixture_setup);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate_on_failing_flash),
	};

	return FX_MAIN(&g, tests);
}
