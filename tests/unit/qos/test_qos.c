/* SPDX-License-Identifier: BSD-3-Clause */
/* test_qos: deficit round robin and the smart suspension policy (qos_tests.h). */
#include "qos_tests.h"

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drr_empty),
		cmocka_unit_test(test_drr_weights_invalid),
		cmocka_unit_test(test_drr_order),
		cmocka_unit_test(test_drr_weights_share),
		cmocka_unit_test(test_drr_large_costs),
		cmocka_unit_test(test_drr_arrive_leave),
		cmocka_unit_test(test_drr_forfeit),
		cmocka_unit_test(test_drr_tenant_count),
		cmocka_unit_test(test_susp_defaults),
		cmocka_unit_test(test_susp_names),
		cmocka_unit_test(test_susp_query_branches),
		cmocka_unit_test(test_susp_no_inputs),
		cmocka_unit_test(test_susp_query_paced),
		cmocka_unit_test_setup_teardown(test_susp_engine_query, sx_setup, sx_teardown),
		cmocka_unit_test_setup_teardown(test_susp_engine_granted, sx_setup, sx_teardown),
		cmocka_unit_test_setup_teardown(test_susp_engine_nearly_done, sx_setup, sx_teardown),
		cmocka_unit_test_setup_teardown(test_susp_engine_program, sx_setup, sx_teardown),
		cmocka_unit_test_setup_teardown(test_susp_engine_capped, sx_setup, sx_teardown),
		cmocka_unit_test_setup_teardown(test_susp_engine_pressure, sx_setup, sx_teardown),
		cmocka_unit_test_setup_teardown(test_susp_engine_gc_urgent, sx_setup, sx_teardown),
		cmocka_unit_test_setup_teardown(test_susp_engine_wear, sx_setup, sx_teardown),
		cmocka_unit_test_setup_teardown(test_susp_engine_paced, sx_setup, sx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
