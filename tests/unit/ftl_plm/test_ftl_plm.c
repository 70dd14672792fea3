/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Unit tests for predictable latency in the FTL (ftl/plm.c): deterministic
 * and non-deterministic windows, GC deferred and catching up, budgets,
 * excursions, warnings. The tests are in plm_windows.c; main() here.
 */
#include "plm_tests.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_plm_windows),
		FX_TEST(test_plm_gc_deferred),
		FX_TEST(test_plm_budgets),
		FX_TEST(test_plm_warnings),
		FX_TEST(test_plm_gc_paused),
	};

	return fx_run(tests, sizeof(tests) / sizeof(tests[0]));
}
